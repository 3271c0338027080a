//! The recorded-PR snapshot format: a pull request with its threads, as JSON, for triage offline.
//!
//! ```json
//! { "format": "review-snapshot", "version": 1, "pull_request": { ... } }
//! ```
//!
//! `pull_request` is a [`PullRequest`] in its serde form; `docs/snapshot-format.md` documents
//! every field. Parsing is strict about the envelope and the thread list (duplicate thread ids
//! are an error) so that a hand-edited file fails loudly instead of triaging something else.

use std::collections::BTreeSet;

use serde::{Deserialize, Serialize};

use crate::model::PullRequest;

/// The value of the envelope's `format` field.
pub const SNAPSHOT_FORMAT: &str = "review-snapshot";
/// The snapshot version this build reads and writes.
pub const SNAPSHOT_VERSION: u32 = 1;

/// Why a snapshot could not be read.
#[derive(Debug, thiserror::Error)]
pub enum SnapshotError {
    /// Not JSON, or JSON of the wrong shape.
    #[error("invalid snapshot JSON at line {line}, column {column}: {message}")]
    Json {
        /// 1-based line.
        line: usize,
        /// 1-based column.
        column: usize,
        /// What serde said.
        message: String,
    },
    /// The `format` field is not [`SNAPSHOT_FORMAT`].
    #[error("not a review snapshot: `format` is {found:?}, expected \"{SNAPSHOT_FORMAT}\"")]
    WrongFormat {
        /// The value found.
        found: String,
    },
    /// A version this build does not read.
    #[error(
        "snapshot version {found} is not supported (this build reads version {SNAPSHOT_VERSION})"
    )]
    UnsupportedVersion {
        /// The version found.
        found: u32,
    },
    /// Two threads share an id.
    #[error("thread id {0} appears more than once")]
    DuplicateThread(String),
}

#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct Envelope<T> {
    format: String,
    version: u32,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    recorded_at: Option<String>,
    pull_request: T,
}

#[derive(Deserialize)]
struct Header {
    format: Option<String>,
    version: Option<u32>,
}

fn json_error(e: &serde_json::Error) -> SnapshotError {
    SnapshotError::Json {
        line: e.line(),
        column: e.column(),
        message: e
            .to_string()
            .split(" at line ")
            .next()
            .unwrap_or_default()
            .to_owned(),
    }
}

/// Parses a snapshot.
pub fn parse(text: &str) -> Result<PullRequest, SnapshotError> {
    // Read the envelope first so a wrong file or version is named as such, not as a field error.
    let header: Header = serde_json::from_str(text).map_err(|e| json_error(&e))?;
    match header.format.as_deref() {
        Some(SNAPSHOT_FORMAT) => {}
        other => {
            return Err(SnapshotError::WrongFormat {
                found: other.unwrap_or("(missing)").to_owned(),
            });
        }
    }
    match header.version {
        Some(SNAPSHOT_VERSION) => {}
        other => {
            return Err(SnapshotError::UnsupportedVersion {
                found: other.unwrap_or(0),
            });
        }
    }
    let envelope: Envelope<PullRequest> = serde_json::from_str(text).map_err(|e| json_error(&e))?;
    let pr = envelope.pull_request;
    let mut seen = BTreeSet::new();
    for t in &pr.threads {
        if !seen.insert(&t.id) {
            return Err(SnapshotError::DuplicateThread(t.id.0.clone()));
        }
    }
    Ok(pr)
}

/// Writes a snapshot of `pr`, pretty-printed. `recorded_at` is an RFC 3339 time the caller reads
/// from its clock, if it wants one recorded.
pub fn to_string(pr: &PullRequest, recorded_at: Option<&str>) -> String {
    let envelope = Envelope {
        format: SNAPSHOT_FORMAT.to_owned(),
        version: SNAPSHOT_VERSION,
        recorded_at: recorded_at.map(str::to_owned),
        pull_request: pr,
    };
    serde_json::to_string_pretty(&envelope)
        .expect("a PullRequest always serializes: it has only string keys")
}
