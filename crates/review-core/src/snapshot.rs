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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::gate::{AutomationSettings, DEFAULT_AUTOMATED_HEADER, starts_with_header};
    use crate::model::{Comment, Thread};
    use crate::suggestion::hunk_new_side;

    /// A recorded pull request with every kind of thread the triage meets (see the file itself).
    const PR_482: &str = include_str!("../../../examples/acme-widgets-pr-482.json");

    const QA_SWARM_HEADER: &str = "🤖 Automated comment by **QA Swarm**";

    fn written_by(c: &Comment, login: &str) -> bool {
        c.author.as_ref().is_some_and(|a| a.login == login)
    }

    /// A comment the QA bot posted through the PR author's account.
    fn is_qa_swarm(c: &Comment) -> bool {
        written_by(c, "dana") && c.body.starts_with(QA_SWARM_HEADER)
    }

    fn first_by<'a>(threads: &[&'a Thread], login: &str) -> Vec<&'a Thread> {
        threads
            .iter()
            .copied()
            .filter(|t| t.first_comment().is_some_and(|c| written_by(c, login)))
            .collect()
    }

    /// The new-side start line of a hunk header `@@ -a,b +c,d @@ ...`.
    fn hunk_new_start(hunk: &str) -> Option<u32> {
        let header = hunk.lines().next()?;
        let plus = header.split_whitespace().find(|w| w.starts_with('+'))?;
        plus[1..].split(',').next()?.parse().ok()
    }

    #[test]
    fn example_snapshot_of_pr_482_parses_and_keeps_its_edge_cases() {
        let pr = parse(PR_482).unwrap();
        assert_eq!(pr.repo.to_string(), "acme/widgets");
        assert_eq!(pr.number, 482);
        assert_eq!(pr.head_sha.0.len(), 40);

        let unresolved: Vec<&Thread> = pr.unresolved_threads().collect();
        assert!(unresolved.len() >= 30, "{} unresolved", unresolved.len());
        assert!(pr.threads.iter().filter(|t| t.is_resolved).count() >= 4);
        let outdated: Vec<&&Thread> = unresolved.iter().filter(|t| t.is_outdated).collect();
        assert!(outdated.len() >= 4, "{} outdated", outdated.len());
        assert!(outdated.iter().all(|t| t.lines.is_none()));
        assert!(unresolved.iter().any(|t| !t.all_comments_read));

        // Every review comment that names a review names one of the PR's reviews.
        for c in pr.threads.iter().flat_map(|t| &t.comments) {
            if let Some(review) = &c.review_id {
                assert!(pr.reviews.iter().any(|r| &r.id == review), "{review}");
            }
        }
        // The diff hunk of a current line thread ends at the thread's last line.
        for t in unresolved.iter().filter(|t| !t.is_outdated) {
            let (Some(lines), Some(hunk)) = (
                t.lines,
                t.first_comment().and_then(|c| c.diff_hunk.as_deref()),
            ) else {
                continue;
            };
            let start = hunk_new_start(hunk).unwrap();
            let shown = u32::try_from(hunk_new_side(hunk).len()).unwrap();
            assert_eq!(start + shown - 1, lines.end, "hunk of {}", t.id);
        }

        let gate = AutomationSettings::default();
        let forged = first_by(&unresolved, "mallory");
        assert_eq!(forged.len(), 1);
        assert!(starts_with_header(
            &forged[0].comments[0].body,
            DEFAULT_AUTOMATED_HEADER
        ));
        assert!(
            gate.thread_is_human(forged[0], &pr),
            "a header typed by someone other than the PR author must not count"
        );

        let qa: Vec<&Thread> = unresolved
            .iter()
            .copied()
            .filter(|t| t.comments.iter().all(is_qa_swarm))
            .collect();
        assert!(qa.len() >= 3, "{} all-QA threads", qa.len());
        for t in &qa {
            assert!(
                !gate.thread_is_human(t, &pr),
                "{} should be automated",
                t.id
            );
        }

        // A QA thread where the PR author replied quoting the header is human.
        let quoted: Vec<&Thread> = unresolved
            .iter()
            .copied()
            .filter(|t| t.first_comment().is_some_and(is_qa_swarm))
            .filter(|t| {
                t.comments
                    .iter()
                    .skip(1)
                    .any(|c| c.body.starts_with(&format!("> {QA_SWARM_HEADER}")))
            })
            .collect();
        assert_eq!(quoted.len(), 1);
        assert!(gate.thread_is_human(quoted[0], &pr));

        // A bot-like login typed User is a person.
        let sonar = first_by(&unresolved, "sonar-helper");
        assert_eq!(sonar.len(), 1);
        assert!(gate.thread_is_human(sonar[0], &pr));

        // Writing the snapshot back and reading it again changes nothing.
        let again = parse(&to_string(&pr, Some("2026-11-18T09:12:44Z"))).unwrap();
        assert_eq!(again, pr);
    }

    #[test]
    fn snapshot_parse_errors_name_what_is_wrong() {
        let wrong = r#"{"format": "review-report", "version": 1, "pull_request": {}}"#;
        assert!(matches!(
            parse(wrong),
            Err(SnapshotError::WrongFormat { found }) if found == "review-report"
        ));
        assert!(matches!(
            parse(r#"{"version": 1}"#),
            Err(SnapshotError::WrongFormat { found }) if found == "(missing)"
        ));

        let v2 = PR_482.replacen("\"version\": 1,", "\"version\": 2,", 1);
        assert_ne!(v2, PR_482);
        let err = parse(&v2).unwrap_err();
        assert!(matches!(
            err,
            SnapshotError::UnsupportedVersion { found: 2 }
        ));
        assert!(err.to_string().contains("version 2"), "{err}");

        let mut pr = parse(PR_482).unwrap();
        let copy = pr.threads[3].clone();
        pr.threads.push(copy.clone());
        match parse(&to_string(&pr, None)) {
            Err(SnapshotError::DuplicateThread(id)) => assert_eq!(id, copy.id.0),
            other => panic!("expected a duplicate thread error, got {other:?}"),
        }

        let malformed =
            "{\n  \"format\": \"review-snapshot\",\n  \"version\": 1,\n  \"pull_request\": {,\n}\n";
        let err = parse(malformed).unwrap_err();
        match &err {
            SnapshotError::Json { line, column, .. } => assert_eq!((*line, *column), (4, 20)),
            other => panic!("expected a JSON error, got {other:?}"),
        }
        assert!(err.to_string().contains("line 4, column 20"), "{err}");

        // Unknown envelope fields are rejected, with where they are.
        let extra = PR_482.replacen("\"version\": 1,", "\"version\": 1,\n  \"extra\": true,", 1);
        let err = parse(&extra).unwrap_err();
        match &err {
            SnapshotError::Json { line, message, .. } => {
                assert_eq!(*line, 4);
                assert!(message.contains("unknown field `extra`"), "{message}");
            }
            other => panic!("expected a JSON error, got {other:?}"),
        }
    }

    #[test]
    fn snapshot_format_doc_example_parses_and_unknown_inner_fields_are_ignored() {
        // docs/snapshot-format.md promises both; hold it to them.
        let doc = include_str!("../../../docs/snapshot-format.md");
        let example = doc
            .split("## A short example")
            .nth(1)
            .and_then(|rest| rest.split("```json\n").nth(1))
            .and_then(|block| block.split("\n```").next())
            .expect("the doc has a JSON example");
        let pr = parse(example).unwrap();
        assert_eq!(pr.threads.len(), 1);
        assert!(AutomationSettings::default().thread_is_human(&pr.threads[0], &pr));

        let newer = PR_482.replacen(
            "\"is_resolved\": false,",
            "\"is_resolved\": false,\n        \"added_later\": {\"any\": 1},",
            1,
        );
        assert_ne!(newer, PR_482);
        assert_eq!(parse(&newer).unwrap(), parse(PR_482).unwrap());
    }
}
