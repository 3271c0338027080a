//! The one error type of the use-cases.

use std::error::Error as StdError;
use std::fmt;

/// What kind of failure a use-case met: the caller maps it to its own terms (the `review`
/// binary to its documented exit codes).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum ErrorKind {
    /// What was asked for is not there (a finding that is not pending, say).
    NotFound,
    /// What was given is not valid, or cannot be done as asked (a reply citing a commit nobody
    /// knows, a source that needs files there are none of, a round's fixes whose files have no
    /// changes): nothing was done; the caller changes its request.
    Invalid,
    /// The use-case refuses to act (a person's thread, say).
    Refused,
    /// A port failed: a store could not be read or written, a host did not answer. The source
    /// is the port's own error.
    Port,
    /// A step the use-case ran failed (the project's checks, a refused commit): the message
    /// says which, the source is the step's own error.
    Failed,
    /// The use-case's own accounting failed: a bug.
    Internal,
}

/// A use-case's failure: its kind, a one-line message, what to do about it, and the cause.
#[derive(Debug, thiserror::Error)]
pub struct AppError {
    /// What kind of failure.
    pub kind: ErrorKind,
    /// One line: what went wrong.
    pub message: String,
    /// What to do about it, when something helps.
    pub hint: Option<String>,
    /// The cause (a port's own error, for [`ErrorKind::Port`]).
    #[source]
    pub source: Option<Box<dyn StdError + Send + Sync>>,
}

impl fmt::Display for AppError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl AppError {
    /// An error of `kind` with `message` and `hint`.
    pub fn new(kind: ErrorKind, message: impl Into<String>, hint: Option<&str>) -> Self {
        Self {
            kind,
            message: message.into(),
            hint: hint.map(str::to_owned),
            source: None,
        }
    }

    /// A failure of `kind` caused by `source`, which is kept.
    pub fn caused(
        kind: ErrorKind,
        message: impl Into<String>,
        hint: Option<String>,
        source: impl StdError + Send + Sync + 'static,
    ) -> Self {
        Self {
            kind,
            message: message.into(),
            hint,
            source: Some(Box::new(source)),
        }
    }

    /// A port's failure, kept whole as the source: the caller that wired the port can take its
    /// own error back ([`AppError::port_error`]).
    pub fn port(error: impl StdError + Send + Sync + 'static) -> Self {
        Self {
            kind: ErrorKind::Port,
            message: error.to_string(),
            hint: None,
            source: Some(Box::new(error)),
        }
    }

    /// The port's own error, when this is a port's failure of type `E`.
    pub fn port_error<E: StdError + 'static>(&self) -> Option<&E> {
        match self.kind {
            ErrorKind::Port => self.source.as_deref().and_then(|e| e.downcast_ref::<E>()),
            _ => None,
        }
    }
}
