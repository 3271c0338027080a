//! The pre-review step: run the user's reviewer command (`--reviewer-cmd`, the workflow's
//! qa-swarm) on the first pass, and later only when the code changed since the last run.
//!
//! "Changed" means the diff from the marker commit (where the reviewer last ran) to the PR's
//! head touches a file other than `*.md` or `*.txt`, beyond whitespace. The marker is kept per
//! pull request in `review/pulls/OWNER/NAME/N/pre-review.json` under the repository's git
//! common directory (shared by worktrees), written atomically; a corrupt file is reported, never
//! overwritten.

use std::path::{Path, PathBuf};
use std::time::Duration;

use review_core::model::PullRequest;
use serde::{Deserialize, Serialize};

use crate::error::CliError;
use crate::git::GitVcs;
use crate::output;

/// What the pre-review step did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    /// The reviewer ran and succeeded: the PR must be read again for its findings.
    Ran,
    /// It did not run (the narration says why).
    Skipped,
}

#[derive(Debug, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct State {
    /// The PR head the reviewer last ran at.
    marker: Option<String>,
}

/// Paths that never need a new pre-review.
fn is_doc(path: &str) -> bool {
    let lower = path.to_ascii_lowercase();
    lower.ends_with(".md") || lower.ends_with(".txt")
}

fn state_path(vcs: &GitVcs, pr: &PullRequest) -> Result<PathBuf, CliError> {
    vcs.state_file("pre-review", &pr.repo, pr.number)
        .map_err(|e| CliError::Other {
            message: format!("cannot open the pre-review state: {e}"),
            hint: Some(e.hint()),
        })
}

fn load(path: &Path) -> Result<State, CliError> {
    crate::state::load(path).map_err(|e| CliError::Input {
        path: path.to_path_buf(),
        message: e.describe("pre-review state"),
        hint: Some(
            "fix or delete the file; it only records where the reviewer last ran".to_owned(),
        ),
    })
}

fn save(path: &Path, state: &State) -> Result<(), CliError> {
    crate::state::save(path, state).map_err(|e| CliError::Input {
        path: path.to_path_buf(),
        message: format!("cannot record the pre-review marker: {e}"),
        hint: None,
    })
}

/// Runs the pre-review step for `pr` if it is due. `skip` forces a skip (reported as such).
pub fn run(
    vcs: &GitVcs,
    pr: &PullRequest,
    command: &str,
    timeout: Duration,
    skip: bool,
) -> Result<Outcome, CliError> {
    let path = state_path(vcs, pr)?;
    let mut state = load(&path)?;
    let head = pr.head_sha.0.as_str();
    // Why it runs, and the same said after "skipped ..., although".
    let (reason, although) = match state.marker.as_deref() {
        None => ("first pass".to_owned(), "this is the first pass".to_owned()),
        Some(marker) if marker == head => {
            output::narrate(&format!(
                "[triage] step 2 — skip pre-review, it already ran at {}",
                pr.head_sha.short()
            ));
            return Ok(Outcome::Skipped);
        }
        Some(marker) => {
            let short = marker.get(..7).unwrap_or(marker);
            if !vcs.has_commit(marker) || !vcs.has_commit(head) {
                (
                    format!("cannot compare {short} with the PR head locally"),
                    format!("{short} cannot be compared with the PR head locally"),
                )
            } else {
                let changed =
                    vcs.substantive_changes(marker, head)
                        .map_err(|e| CliError::Other {
                            message: format!("cannot diff since the pre-review marker: {e}"),
                            hint: None,
                        })?;
                let code: Vec<&String> = changed.iter().filter(|p| !is_doc(p)).collect();
                if code.is_empty() {
                    output::narrate(&format!(
                        "[triage] step 2 — skip pre-review, only doc-only changes since {short}"
                    ));
                    return Ok(Outcome::Skipped);
                }
                let shown: Vec<&str> = code.iter().take(3).map(|p| p.as_str()).collect();
                let more = if code.len() > 3 {
                    format!(" and {} more", code.len() - 3)
                } else {
                    String::new()
                };
                let reason = format!("diff since {short} touches {}{more}", shown.join(", "));
                (reason.clone(), format!("the {reason}"))
            }
        }
    };
    if skip {
        output::narrate(&format!(
            "[triage] step 2 — pre-review skipped by --skip-pre-review, although {although}"
        ));
        return Ok(Outcome::Skipped);
    }
    output::narrate(&format!("[triage] step 2 — {reason}, running the reviewer"));
    let input = serde_json::json!({
        "repo": pr.repo,
        "pr": pr.number,
        "url": pr.url,
        "head_sha": pr.head_sha,
        "base_ref": pr.base_ref,
        "head_ref": pr.head_ref,
    })
    .to_string();
    match crate::command::run(
        crate::command::Kind::Reviewer,
        command,
        vcs.root(),
        &input,
        timeout,
    ) {
        Ok(_) => {
            state.marker = Some(head.to_owned());
            save(&path, &state)?;
            Ok(Outcome::Ran)
        }
        Err(why) => {
            output::narrate(&format!(
                "[triage] step 2 — warning: the reviewer {why}; triage goes on without it"
            ));
            Ok(Outcome::Skipped)
        }
    }
}
