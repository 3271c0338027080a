//! Errors the CLI reports, their exit codes, and how they are printed.

use std::io;
use std::path::PathBuf;
use std::process::ExitCode;

use crate::output;

/// Exit codes, as documented in `review --help` and the README.
pub mod code {
    /// Success.
    pub const OK: u8 = 0;
    /// An error not listed below.
    pub const FAILURE: u8 = 1;
    /// The command line is wrong.
    pub const USAGE: u8 = 2;
    /// An input file (a recorded snapshot) is missing, unreadable or malformed.
    pub const INPUT: u8 = 3;
    /// GitHub could not be reached, refused the token, rate-limited the run, or its API lacks a
    /// field the command needs.
    pub const GITHUB: u8 = 4;
    /// The repository, pull request or thread could not be found.
    pub const NOT_FOUND: u8 = 5;
    /// The tool refused to act: the thread is a person's, or was not read whole.
    pub const REFUSED: u8 = 6;
    /// `--exit-code`: the run succeeded and threads still need a person.
    pub const NEEDS_PERSON: u8 = 7;
    /// `review status`: the verdict is ACTION_REQUIRED.
    pub const ACTION_REQUIRED: u8 = 8;
    /// `review status`: the verdict is WAITING.
    pub const WAITING: u8 = 9;
    /// `review status`: the verdict is CI_FAILING.
    pub const CI_FAILING: u8 = 10;
    /// `review status`: the verdict is BLOCKED.
    pub const BLOCKED: u8 = 11;
    /// Interrupted (Ctrl-C); what was done so far was reported.
    pub const INTERRUPTED: u8 = 130;
}

/// The exit-code table shown at the end of `review --help`.
pub const EXIT_CODES_HELP: &str = "\
Exit codes:
    0  success
    1  an error not listed below
    2  the command line is wrong
    3  an input file is missing, unreadable or malformed
    4  GitHub could not be reached, refused the token, rate-limited the run,
       or its API lacks a field the command needs
    5  the repository, pull request or thread could not be found
    6  refused: the thread has human participation or was not read whole
    7  with --exit-code: threads still need a person
    8  status: ACTION_REQUIRED
    9  status: WAITING
   10  status: CI_FAILING
   11  status: BLOCKED
  130  interrupted (Ctrl-C) after reporting what was done so far";

/// An error the CLI reports.
#[derive(Debug, thiserror::Error)]
pub enum CliError {
    /// Bad arguments, or `--help`/`--version` (which clap reports through its error type).
    #[error(transparent)]
    Clap(#[from] clap::Error),
    /// The arguments parse but ask for something impossible.
    #[error("{message}")]
    Usage {
        /// What is wrong.
        message: String,
        /// What to do instead.
        hint: Option<String>,
    },
    /// An input file could not be used.
    #[error("cannot use {path}: {message}")]
    Input {
        /// The file.
        path: PathBuf,
        /// What is wrong with it.
        message: String,
        /// What to do.
        hint: Option<String>,
    },
    /// GitHub could not be reached, refused the token, or rate-limited the run.
    #[error("{message}")]
    GitHub {
        /// What failed.
        message: String,
        /// The underlying error.
        #[source]
        source: Option<Box<dyn std::error::Error + Send + Sync>>,
        /// What to do.
        hint: Option<String>,
    },
    /// The repository, pull request or thread could not be found.
    #[error("{message}")]
    NotFound {
        /// What is missing.
        message: String,
        /// What to do.
        hint: Option<String>,
    },
    /// The tool refused to act on a thread.
    #[error("{message}")]
    Refused {
        /// Why.
        message: String,
        /// What to do.
        hint: Option<String>,
    },
    /// Not an error: `--exit-code` asked to say that threads still need a person.
    #[error("{}", needs_person(*deferred))]
    NeedsPerson {
        /// How many deferred threads wait for a person (protocol signals wait for no one).
        deferred: usize,
    },
    /// Not an error: `review status` printed a verdict other than READY.
    #[error("the pull request is {verdict}")]
    NotReady {
        /// The verdict.
        verdict: review_core::status::Verdict,
    },
    /// Interrupted by Ctrl-C; the report of what was done so far was printed.
    #[error("interrupted; the report above says what was done")]
    Interrupted,
    /// Writing the output failed.
    #[error("cannot write output: {0}")]
    Output(#[source] io::Error),
    /// Anything else.
    #[error("{message}")]
    Other {
        /// What failed.
        message: String,
        /// What to do.
        hint: Option<String>,
    },
}

/// "1 thread still needs a person", "3 threads still need a person".
fn needs_person(n: usize) -> String {
    review_core::text::counted(n, "thread still needs", "threads still need") + " a person"
}

impl CliError {
    /// The exit code this error ends the run with (see [`code`]).
    pub(crate) fn code(&self) -> u8 {
        match self {
            Self::Clap(e) if !e.use_stderr() => code::OK,
            Self::Clap(_) | Self::Usage { .. } => code::USAGE,
            Self::Input { .. } => code::INPUT,
            Self::GitHub { .. } => code::GITHUB,
            Self::NotFound { .. } => code::NOT_FOUND,
            Self::Refused { .. } => code::REFUSED,
            Self::NeedsPerson { .. } => code::NEEDS_PERSON,
            Self::NotReady { verdict } => match verdict {
                review_core::status::Verdict::Ready => code::OK,
                review_core::status::Verdict::ActionRequired => code::ACTION_REQUIRED,
                review_core::status::Verdict::Waiting => code::WAITING,
                review_core::status::Verdict::CiFailing => code::CI_FAILING,
                review_core::status::Verdict::Blocked => code::BLOCKED,
            },
            Self::Interrupted => code::INTERRUPTED,
            Self::Output(_) | Self::Other { .. } => code::FAILURE,
        }
    }

    pub(crate) fn hint(&self) -> Option<&str> {
        match self {
            Self::Usage { hint, .. }
            | Self::Input { hint, .. }
            | Self::Other { hint, .. }
            | Self::GitHub { hint, .. }
            | Self::NotFound { hint, .. }
            | Self::Refused { hint, .. } => hint.as_deref(),
            Self::Clap(_)
            | Self::Output(_)
            | Self::NeedsPerson { .. }
            | Self::NotReady { .. }
            | Self::Interrupted => None,
        }
    }
}

/// Turns the result of a command into the process's exit code, printing the error if any.
pub fn exit(result: Result<(), CliError>) -> ExitCode {
    ExitCode::from(report(result))
}

/// The exit code of a command's result (see [`code`]), printing the error if any.
pub(crate) fn report(result: Result<(), CliError>) -> u8 {
    let err = match result {
        Ok(()) => return code::OK,
        Err(err) => err,
    };
    match &err {
        // A closed pipe (`review triage ... | head`) is not an error worth a message.
        CliError::Output(e) if e.kind() == io::ErrorKind::BrokenPipe => {
            return code::OK;
        }
        CliError::Clap(e) => {
            // clap prints help, version and usage errors in its own format.
            let _ = e.print();
        }
        // The report already says it; the status is the message.
        CliError::NeedsPerson { .. } | CliError::NotReady { .. } => {}
        other => output::error(&other.to_string(), source_chain(other), other.hint()),
    }
    err.code()
}

pub(crate) fn source_chain(err: &dyn std::error::Error) -> Vec<String> {
    let mut chain = Vec::new();
    let mut cur = err.source();
    while let Some(e) = cur {
        chain.push(e.to_string());
        cur = e.source();
    }
    chain
}

/// A state file that cannot be used: a corrupt or unwritable file is an input error (exit 3),
/// one that must exist and does not is not found (exit 5), a place that cannot be made is
/// exit 1.
impl From<review_local::StoreError> for CliError {
    fn from(e: review_local::StoreError) -> Self {
        use review_local::StoreError;
        match e {
            StoreError::Unusable {
                path,
                message,
                hint,
            } => Self::Input {
                path,
                message,
                hint: Some(hint),
            },
            StoreError::Missing { message, hint } => Self::NotFound {
                message,
                hint: Some(hint),
            },
            StoreError::Io { message, hint } => Self::Other {
                message,
                hint: Some(hint),
            },
        }
    }
}

impl CliError {
    /// A port's failure (`source`) that a use-case reported as `message`: the CLI's own error
    /// given back whole (its exit code kept), a local store's by its kind, the host's by its
    /// kind (the message already says what failed), any other as a failure whose message says
    /// the source's words once.
    fn from_port(
        source: Box<dyn std::error::Error + Send + Sync>,
        message: String,
        hint: Option<String>,
    ) -> Self {
        let source = match source.downcast::<Self>() {
            Ok(own) => return *own,
            Err(other) => other,
        };
        let source = match source.downcast::<review_local::StoreError>() {
            Ok(store) => return Self::from(*store),
            Err(other) => other,
        };
        match source.downcast::<review_core::ports::HostError>() {
            Ok(host) => match *host {
                review_core::ports::HostError::NotFound(_) => Self::NotFound { message, hint },
                review_core::ports::HostError::Refused(_) => Self::Refused { message, hint },
                _ => Self::GitHub {
                    message,
                    source: None,
                    hint,
                },
            },
            Err(other) => {
                let words = other.to_string();
                Self::Other {
                    message: if message == words || message.ends_with(&words) {
                        message
                    } else {
                        format!("{message}: {words}")
                    },
                    hint,
                }
            }
        }
    }
}

/// A use-case's failure in the CLI's terms: a port's failure is the CLI's own error given back
/// whole (its exit code kept); the others map by kind.
impl From<review_app::AppError> for CliError {
    fn from(e: review_app::AppError) -> Self {
        use review_app::ErrorKind;
        let review_app::AppError {
            kind,
            message,
            hint,
            source,
        } = e;
        match kind {
            ErrorKind::NotFound => Self::NotFound { message, hint },
            ErrorKind::Refused => Self::Refused { message, hint },
            ErrorKind::Invalid => Self::Usage { message, hint },
            ErrorKind::Port => match source {
                Some(source) => Self::from_port(source, message, hint),
                None => Self::Other { message, hint },
            },
            _ => Self::Other { message, hint },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Debug, thiserror::Error)]
    #[error("git commit failed: a hook said no")]
    struct Failed;

    #[test]
    fn a_ports_error_says_its_words_once_and_a_stores_keeps_its_kind() {
        let other = CliError::from(review_app::AppError::port(Failed));
        assert_eq!(other.to_string(), "git commit failed: a hook said no");
        let store = CliError::from(review_app::AppError::port(
            review_local::StoreError::Missing {
                message: "PR #1 has no watch state yet".to_owned(),
                hint: "run `review watch 1 --once` first".to_owned(),
            },
        ));
        assert!(matches!(store, CliError::NotFound { .. }), "{store:?}");
        assert_eq!(store.hint(), Some("run `review watch 1 --once` first"));
    }
}
