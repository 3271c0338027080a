//! The local adapters of `review`: what the use-cases of `review-app` read and write on the
//! user's machine, beside the GitHub adapters of `review-github` (which this crate does not
//! depend on: a remote's URL is read by the reader the caller passes, [`git::ReadRemote`]).
//!
//! - [`git`]: the checkout and its history ([`git::GitVcs`] implements the core's `Vcs`), with
//!   hooks and fsmonitor off for every git command the tool runs;
//! - [`state`]: the per-pull-request files under the git common directory, written atomically
//!   under a lock; paths take the common directory ([`state::StateDir`]), not a checkout;
//! - [`ledger`] and [`loop_files`]: the reply ledger and the review loop's files, as the stores
//!   `review-app` asks for, failing with a [`StoreError`];
//! - [`audit`]: the append-only log of every mutation, and [`audit::AuditedHost`], any review
//!   host recording into it;
//! - [`command`]: the user's commands, each in a process group of its own, killed whole at its
//!   deadline, without the user's tokens unless passed;
//! - [`dispatch`]: follow-up tasks handed to an agent, one git worktree each;
//! - [`round`]: the loop's clone as the round's working tree and as the origin of a line.
//!
//! Warnings about the files (a legacy file beside its successor, an audit line that could not
//! be written) go to the [`log`] facade at the `warn` level; progress goes to the narrator the
//! caller passes.

pub mod audit;
pub mod command;
pub mod dispatch;
pub mod git;
pub mod ledger;
pub mod loop_files;
pub mod round;
pub mod state;

use std::path::PathBuf;

/// A state file that cannot be used: the stores' error ([`ledger::LedgerFile`],
/// [`loop_files::LoopFiles`]), each with what to do.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    /// The file is there but cannot be read as what it should hold, or cannot be written.
    #[error("cannot use {}: {message}", path.display())]
    Unusable {
        /// The file.
        path: PathBuf,
        /// What is wrong with it.
        message: String,
        /// What to do.
        hint: String,
    },
    /// A file that must exist does not yet.
    #[error("{message}")]
    Missing {
        /// What is missing.
        message: String,
        /// What to do.
        hint: String,
    },
    /// The file's place cannot be found or made (no git directory, a legacy file that cannot
    /// be moved), or the file cannot be written there.
    #[error("{message}")]
    Io {
        /// What failed.
        message: String,
        /// What to do.
        hint: String,
    },
}

impl StoreError {
    /// What to do about it.
    pub fn hint(&self) -> &str {
        match self {
            Self::Unusable { hint, .. } | Self::Missing { hint, .. } | Self::Io { hint, .. } => {
                hint
            }
        }
    }
}

#[cfg(test)]
mod tests {
    /// The adapters know no command line, terminal, web form, tool server or configuration
    /// file (those are the binary's), and no GitHub (review-github's adapters sit beside them):
    /// a dependency on one of those crates fails here.
    #[test]
    fn depends_on_no_command_line_form_server_or_config_crate() {
        let manifest = include_str!("../Cargo.toml");
        let deps = manifest
            .split("[dependencies]")
            .nth(1)
            .and_then(|rest| rest.split("\n[").next())
            .expect("a [dependencies] table");
        let names: Vec<&str> = deps
            .lines()
            .map(str::trim)
            .filter(|l| !l.is_empty() && !l.starts_with('#'))
            .filter_map(|l| l.split(['=', '.']).next().map(str::trim))
            .collect();
        assert!(names.contains(&"review-core"), "{names:?}");
        for banned in [
            "clap",
            "clap_complete",
            "clap_mangen",
            "axum",
            "rmcp",
            "toml",
            "review-github",
            "octocrab",
        ] {
            assert!(!names.contains(&banned), "review-local depends on {banned}");
        }
    }

    /// Where the files live is not git's business and git's errors are not the files': the
    /// state modules' code names no git type (the stores take a [`crate::state::StateDir`], which a
    /// clone gives), so `git.rs` and `state.rs` make no circle.
    #[test]
    fn the_state_files_know_nothing_of_git() {
        for (name, source) in [
            ("state.rs", include_str!("state.rs")),
            ("loop_files.rs", include_str!("loop_files.rs")),
            ("ledger.rs", include_str!("ledger.rs")),
        ] {
            // The code, not its tests (which make real clones to check the paths).
            let code: String = source
                .split("#[cfg(test)]")
                .next()
                .unwrap_or_default()
                .lines()
                .filter(|l| !l.trim_start().starts_with("//"))
                .collect::<Vec<_>>()
                .join("\n");
            for banned in ["crate::git", "GitVcs", "GitError"] {
                assert!(!code.contains(banned), "{name} names {banned}");
            }
        }
    }

    /// The stores work on any directory: the loop's files, the ledger and the audit log of one
    /// pull request, kept in a temporary directory that no git repository holds.
    #[test]
    fn the_stores_keep_their_files_in_the_directory_they_are_given() {
        use review_core::model::RepoId;
        let temp = tempfile::tempdir().unwrap();
        let dir = crate::state::StateDir::new(temp.path());
        let repo = RepoId::parse("acme/widgets").unwrap();
        let files = crate::loop_files::LoopFiles::new(&dir, &repo, 7).unwrap();
        assert!(files.watch.starts_with(temp.path().join("review/pulls")));
        assert_ne!(files.watch, files.decisions);
        let ledger = crate::ledger::LedgerFile::new(Some(&dir), &repo, 7).unwrap();
        let mut posted = ledger.load().unwrap();
        assert!(posted.posted.is_empty());
        posted.posted.insert(
            "T:key".to_owned(),
            review_core::reply::Posted {
                thread: "T".to_owned(),
                comment: "C".to_owned(),
                url: "https://example.test/c".to_owned(),
            },
        );
        ledger.save(&posted).unwrap();
        assert_eq!(crate::ledger::for_pr(&dir, &repo, 7).unwrap(), posted);
        assert!(
            crate::ledger::for_pr(&dir, &repo, 8)
                .unwrap()
                .posted
                .is_empty()
        );
        let audit = crate::audit::Audit::new(Some(&dir), &repo, 7);
        audit.record("resolve", "T", "ok", "");
        assert_eq!(
            crate::audit::resolved_threads(&dir, &repo, 7),
            [review_core::model::ThreadId("T".to_owned())].into()
        );
        assert!(crate::audit::resolved_threads(&dir, &repo, 8).is_empty());
    }

    /// A decisions file names an out-of-diff finding by its review's id, as a thread's would
    /// be: the store places it on the review the watch state recorded, when it loads the file
    /// and when it changes it, so the decision is never answered as a thread's. A thread's
    /// decision and a report's stay what they are, and the file's text is unchanged.
    #[test]
    fn the_loop_files_place_an_out_of_diff_decision_on_its_review() {
        use review_core::decisions::{Decisions, Judged};
        use review_core::model::RepoId;
        use review_core::site::Site;
        use review_core::watch::{OutOfDiff, WatchState};
        let temp = tempfile::tempdir().unwrap();
        let dir = crate::state::StateDir::new(temp.path());
        let repo = RepoId::parse("acme/widgets").unwrap();
        let files = crate::loop_files::LoopFiles::new(&dir, &repo, 7).unwrap();
        let decided = |fp: &str| {
            Judged::Decided(review_core::decisions::Answer {
                verdict: review_core::decisions::Verdict::Stale,
                reasoning: format!("{fp} is addressed"),
                evidence: vec!["src/a.rs:1".to_owned()],
                fix_sketch: None,
                resolved_sha: None,
            })
        };
        // As an earlier run wrote it: three decisions, by their ids.
        let mut written = Decisions::default();
        written.record("fp-review", &"PRR_1".into(), decided("fp-review"), 1);
        written.record("fp-thread", &"PRRT_2".into(), decided("fp-thread"), 1);
        written.record(
            "fp-report",
            &"report:react-doctor".into(),
            decided("fp-report"),
            1,
        );
        crate::state::save(&files.decisions, &written).unwrap();
        let text = std::fs::read_to_string(&files.decisions).unwrap();
        // No watch state yet: nothing says PRR_1 is a review.
        let loaded = files.load_decisions().unwrap();
        assert_eq!(loaded.seen["fp-review"].thread_id, Site::thread("PRR_1"));
        let watch = WatchState {
            out_of_diff: vec![OutOfDiff {
                review_id: "PRR_1".to_owned(),
                author: "coderabbit".to_owned(),
                findings: Vec::new(),
            }],
            ..WatchState::default()
        };
        crate::state::save(&files.watch, &watch).unwrap();
        let loaded = files.load_decisions().unwrap();
        assert_eq!(loaded.seen["fp-review"].thread_id, Site::review("PRR_1"));
        assert_eq!(loaded.seen["fp-thread"].thread_id, Site::thread("PRRT_2"));
        assert_eq!(
            loaded.seen["fp-report"].thread_id,
            Site::report("react-doctor")
        );
        assert!(loaded.owed().all(|(fp, _)| fp != "fp-report"));
        let placed = files
            .update_decisions(|d| d.seen["fp-review"].thread_id.clone())
            .unwrap();
        assert_eq!(placed, Site::review("PRR_1"));
        assert_eq!(std::fs::read_to_string(&files.decisions).unwrap(), text);
    }
}
