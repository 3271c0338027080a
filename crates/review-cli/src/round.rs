//! The round's ports over git and the shell: the loop's clone with its journal of the tool's
//! own edits ([`loop_vcs`]; `review_local::round` makes it the round's working tree), the
//! project's checks ([`ShellChecks`]), and the desktop notification of a
//! round's summary. `review commit-round` and `review loop` wire `review_app::commit_round`
//! with them.

use review_app::commit_round::{Check, CheckRunner};

use crate::error::CliError;
use crate::git::GitVcs;
use crate::output;

fn other(e: impl std::fmt::Display) -> CliError {
    CliError::Other {
        message: e.to_string(),
        hint: None,
    }
}

/// The clone the loop works in, with the pull request's journal of the tool's own edits (the
/// loop's fixer runs are journaled, so a killed run is recovered and a failed round undone) and
/// its audit log.
pub fn loop_vcs(repo: &review_core::model::RepoId, number: u64) -> Result<GitVcs, CliError> {
    let vcs = crate::commands::common::clone_needed(
        "the loop commits in a git repository",
        "run inside a clone of the pull request's repository",
    )?;
    let journal = vcs
        .state_file("journal", repo, number)
        .map_err(|e| CliError::Other {
            message: format!("cannot find the git directory: {e}"),
            hint: None,
        })?;
    let audit = crate::audit::Audit::new(vcs.state_dir().ok().as_ref(), repo, number);
    Ok(vcs.with_journal(journal).with_audit(audit))
}

/// The project's checks: the user's command, run with `sh -c` in the repository root.
#[derive(Debug)]
pub struct ShellChecks<'a> {
    /// Where they run.
    pub root: &'a std::path::Path,
}

impl CheckRunner for ShellChecks<'_> {
    type Error = CliError;

    fn run(&self, check: &Check<'_>) -> Result<(), CliError> {
        crate::command::run(
            crate::command::Kind::Checks,
            check.command,
            self.root,
            "",
            check.timeout,
        )
        .map(|_| ())
        .map_err(other)
    }
}

/// Shows `text` as a desktop notification, best effort.
#[expect(clippy::disallowed_methods, reason = "the desktop notifier")]
pub fn notify(text: &str) {
    let title = "review";
    let body: String = text.lines().take(6).collect::<Vec<_>>().join("\n");
    let tried = if cfg!(target_os = "macos") {
        let script = format!(
            "display notification {:?} with title {:?}",
            body.replace('\n', " · "),
            title
        );
        std::process::Command::new("osascript")
            .args(["-e", &script])
            .status()
    } else {
        std::process::Command::new("notify-send")
            .args([title, &body])
            .status()
    };
    if !tried.is_ok_and(|s| s.success()) {
        output::narrate("[commit-round] no desktop notification could be shown");
    }
}
