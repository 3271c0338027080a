//! `commit_round` and `abandon_round` against the in-memory repository and loop files.

use std::sync::Mutex;

use review_app::ErrorKind;
use review_app::commit_round::{
    Check, CheckRunner, RoundPorts, RoundRequest, RoundTree, SetAside, abandon_round, commit_round,
};
use review_app::narrator::Kept;
use review_app::ports::{DecisionsStore, MemoryDecisions};
use review_app::watch_store::{MemoryLoop, MemoryWatch};
use review_core::decisions::{Decisions, FindingFacts, judge};
use review_core::ports::{Vcs, VcsError};
use review_core::watch::{FindingKind, ThreadFinding, WatchState};
use review_test_support::FakeVcs;

/// The round's tree over the fake repository: the tool's edits are remembered, so a round set
/// aside puts them back as committed.
struct Tree {
    vcs: FakeVcs,
    edited: Mutex<Vec<String>>,
}

impl Tree {
    fn new(files: &[(&str, &str)]) -> Self {
        Self {
            vcs: FakeVcs::new("base", files),
            edited: Mutex::new(Vec::new()),
        }
    }

    /// The fixer's edit of `path`.
    fn fix(&self, path: &str, contents: &str) {
        self.vcs
            .write_file(path, contents)
            .expect("the file exists");
        self.edited
            .lock()
            .expect("no test thread panicked")
            .push(path.to_owned());
    }
}

impl RoundTree for Tree {
    type Error = VcsError;

    fn created(&self) -> Result<Vec<String>, VcsError> {
        Ok(Vec::new())
    }

    fn untracked(&self) -> Result<Vec<String>, VcsError> {
        Ok(Vec::new())
    }

    fn changed(&self, paths: &[String]) -> Result<Vec<String>, VcsError> {
        let dirty = self.vcs.dirty_paths()?;
        Ok(paths
            .iter()
            .filter(|p| dirty.contains(p))
            .cloned()
            .collect())
    }

    fn commit_exactly(&self, paths: &[String], message: &str) -> Result<String, VcsError> {
        let id = self.vcs.commit_paths(paths, message)?;
        self.edited
            .lock()
            .expect("no test thread panicked")
            .retain(|p| !paths.contains(p));
        Ok(id.0[..7].to_owned())
    }

    fn set_aside(&self, round: u32) -> Result<Option<SetAside>, VcsError> {
        let edited = std::mem::take(&mut *self.edited.lock().expect("no test thread panicked"));
        if edited.is_empty() {
            return Ok(None);
        }
        for p in &edited {
            let committed = self.vcs.committed_file(p).unwrap_or_default();
            self.vcs.user_edit(p, &committed);
        }
        Ok(Some(SetAside {
            saved: format!("failed-round-{round}.patch"),
            left: Vec::new(),
        }))
    }
}

/// Checks that pass, or fail with their output; they count their runs.
#[derive(Default)]
struct FakeChecks {
    fail: Option<&'static str>,
    runs: Mutex<Vec<String>>,
}

#[derive(Debug, thiserror::Error)]
#[error("{0}")]
struct CheckFailed(&'static str);

impl CheckRunner for FakeChecks {
    type Error = CheckFailed;

    fn run(&self, check: &Check<'_>) -> Result<(), CheckFailed> {
        self.runs
            .lock()
            .expect("no test thread panicked")
            .push(check.command.to_owned());
        self.fail.map_or(Ok(()), |why| Err(CheckFailed(why)))
    }
}

const CHECK: Check<'static> = Check {
    command: "cargo test",
    timeout: std::time::Duration::from_secs(60),
};

/// The round's own files, after the checks.
const CHECKED: RoundRequest<'static> = RoundRequest {
    paths: &[],
    check: Some(CHECK),
    denied: &[],
};

fn valid(d: &mut Decisions, fp: &str, thread: &str, path: &str) {
    let answer = r#"{"verdict":"VALID","reasoning":"the bound is off by one","evidence":["x:1"],"fixSketch":"use <="}"#;
    let facts = FindingFacts {
        path,
        body: "Off by one",
        denied_paths: &[],
        security: None,
    };
    d.record(fp, &thread.into(), judge(answer, facts), 1);
    d.seen.get_mut(fp).expect("just recorded").path = path.to_owned();
}

fn stale(d: &mut Decisions, fp: &str, thread: &str) {
    let answer = r#"{"verdict":"STALE","reasoning":"already handled","evidence":["x:1"],"resolvedSha":"0a1b2c3"}"#;
    let facts = FindingFacts {
        path: "src/lib.rs",
        body: "Handle it",
        denied_paths: &[],
        security: None,
    };
    d.record(fp, &thread.into(), judge(answer, facts), 1);
}

fn files(decisions: Decisions) -> MemoryLoop {
    let person = ThreadFinding {
        fingerprint: "ffff0000".to_owned(),
        thread_id: "PRRT_mei".into(),
        kind: FindingKind::Human,
        author: "mei".to_owned(),
        path: "src/lib.rs".to_owned(),
        line: Some(3),
        outdated: false,
        body: "Why?".to_owned(),
        all_comments_read: true,
        url: String::new(),
        human_comment_ids: Vec::new(),
    };
    MemoryLoop {
        decisions: MemoryDecisions::new(decisions),
        watch: MemoryWatch::new(Some(WatchState {
            pending: vec![person],
            ..WatchState::default()
        })),
    }
}

fn ports<'a>(
    tree: &'a Tree,
    store: &'a MemoryLoop,
    checks: &'a FakeChecks,
    narrator: &'a Kept,
) -> RoundPorts<'a, Tree, MemoryLoop, FakeChecks, Kept> {
    RoundPorts {
        tree,
        store,
        checks,
        narrator,
    }
}

#[test]
fn a_round_with_edits_commits_only_its_paths_and_records_its_summary() {
    let tree = Tree::new(&[("src/page.rs", "a"), ("src/lib.rs", "b"), ("notes.md", "c")]);
    let mut d = Decisions::default();
    valid(&mut d, "aaaa1111", "PRRT_1", "src/page.rs");
    stale(&mut d, "bbbb2222", "PRRT_2");
    let store = files(d);
    tree.fix("src/page.rs", "a fixed");
    // The user's own work in progress is never the round's.
    tree.vcs.user_edit("notes.md", "mine");
    let (checks, narrator) = (FakeChecks::default(), Kept::default());
    let request = CHECKED;
    let summary = commit_round(&ports(&tree, &store, &checks, &narrator), &request).unwrap();

    let commits = tree.vcs.commits();
    assert_eq!(commits.len(), 1);
    assert_eq!(commits[0].paths, ["src/page.rs"]);
    assert!(commits[0].message.contains("Review-Thread: PRRT_1"));
    assert_eq!(tree.vcs.work_file("notes.md").as_deref(), Some("mine"));
    assert_eq!(
        *checks.runs.lock().expect("no test thread panicked"),
        ["cargo test"]
    );
    assert_eq!(
        narrator.lines(),
        ["[commit-round] running the checks: cargo test"]
    );

    let sha = summary.commit.clone().unwrap();
    assert_eq!(summary.round, 1);
    assert_eq!(summary.fixed.len(), 1);
    assert_eq!(summary.rejected.len(), 1);
    assert_eq!(summary.human.len(), 1);
    let text = summary.to_string();
    assert!(
        text.starts_with("Round 1\nFIXED\n  - src/page.rs (PRRT_1): the bound is off by one\n"),
        "{text}"
    );
    assert!(
        text.contains("HUMAN\n  - mei on src/lib.rs (PRRT_mei)\n"),
        "{text}"
    );
    assert!(
        text.ends_with(&format!("{sha} — ready to push.\n")),
        "{text}"
    );

    let after = store.load().unwrap();
    assert_eq!(
        after.seen["aaaa1111"].resolved_sha.as_deref(),
        Some(sha.as_str())
    );
    assert_eq!(after.current_round(), 2, "the next round began");
}

#[test]
fn explicit_paths_are_committed_as_given_and_a_denied_one_is_refused() {
    let tree = Tree::new(&[("src/page.rs", "a"), ("src/util.rs", "u")]);
    let mut d = Decisions::default();
    valid(&mut d, "aaaa1111", "PRRT_1", "src/page.rs");
    let store = files(d);
    tree.fix("src/page.rs", "a fixed");
    tree.fix("src/util.rs", "u fixed");
    let (checks, narrator) = (FakeChecks::default(), Kept::default());
    let ports = ports(&tree, &store, &checks, &narrator);
    let denied = vec!["src/util.rs".to_owned()];
    let both = ["src/page.rs".to_owned(), "src/util.rs".to_owned()];
    let refused = RoundRequest {
        paths: &both,
        check: None,
        denied: &denied,
    };
    let err = commit_round(&ports, &refused).unwrap_err();
    assert_eq!(err.kind, ErrorKind::Refused);
    assert!(
        err.message.starts_with("src/util.rs is a deny-listed path"),
        "{err}"
    );
    assert!(tree.vcs.commits().is_empty());

    let request = RoundRequest {
        paths: &both,
        check: None,
        denied: &[],
    };
    commit_round(&ports, &request).unwrap();
    assert_eq!(tree.vcs.commits()[0].paths, both);
}

#[test]
fn a_failing_check_abandons_the_round_and_leaves_no_edits() {
    let tree = Tree::new(&[("src/page.rs", "a")]);
    let mut d = Decisions::default();
    valid(&mut d, "aaaa1111", "PRRT_1", "src/page.rs");
    let store = files(d);
    tree.fix("src/page.rs", "a broken");
    let checks = FakeChecks {
        fail: Some("1 test failed"),
        ..FakeChecks::default()
    };
    let narrator = Kept::default();
    let request = CHECKED;
    let err = commit_round(&ports(&tree, &store, &checks, &narrator), &request).unwrap_err();
    assert_eq!(err.kind, ErrorKind::Failed);
    assert_eq!(err.message, "the project's checks failed: 1 test failed");
    assert!(
        err.hint
            .as_deref()
            .unwrap()
            .contains("nothing was committed")
    );
    assert!(tree.vcs.commits().is_empty());
    assert_eq!(
        store.load().unwrap().current_round(),
        1,
        "the round did not close"
    );

    let saved = abandon_round(
        &tree,
        &store,
        &narrator,
        &format!("the round stopped: {err}"),
    )
    .unwrap();
    assert_eq!(saved.as_deref(), Some("failed-round-1.patch"));
    assert_eq!(
        tree.vcs.work_file("src/page.rs").as_deref(),
        Some("a"),
        "edit undone"
    );
    let after = store.load().unwrap();
    assert!(after.uncommitted_fixes(1).is_empty(), "no fix is claimed");
    assert_eq!(after.escalated.len(), 1);
    assert!(
        after.escalated[0]
            .reason
            .ends_with("the round's edits were undone and saved in failed-round-1.patch"),
        "{}",
        after.escalated[0].reason
    );
}

#[test]
fn a_refused_commit_fails_the_round_with_nothing_recorded() {
    let tree = Tree::new(&[("src/page.rs", "a")]);
    let mut d = Decisions::default();
    valid(&mut d, "aaaa1111", "PRRT_1", "src/page.rs");
    let store = files(d.clone());
    tree.fix("src/page.rs", "a fixed");
    tree.vcs.reject_commits("pre-commit: lint failed");
    let (checks, narrator) = (FakeChecks::default(), Kept::default());
    let request = RoundRequest {
        check: None,
        ..CHECKED
    };
    let err = commit_round(&ports(&tree, &store, &checks, &narrator), &request).unwrap_err();
    assert_eq!(err.kind, ErrorKind::Failed);
    assert!(err.message.starts_with("the commit was refused: "), "{err}");
    assert!(err.message.contains("lint failed"), "{err}");
    assert_eq!(store.load().unwrap(), d, "decisions unchanged");
}

#[test]
fn a_round_with_no_work_commits_nothing_and_stays_open() {
    let tree = Tree::new(&[("src/page.rs", "a")]);
    let store = files(Decisions::default());
    let (checks, narrator) = (FakeChecks::default(), Kept::default());
    let request = CHECKED;
    let summary = commit_round(&ports(&tree, &store, &checks, &narrator), &request).unwrap();
    assert_eq!(summary.commit, None);
    assert!(
        summary
            .to_string()
            .ends_with("No fixes this round; nothing committed.\n")
    );
    assert!(tree.vcs.commits().is_empty());
    assert!(
        checks
            .runs
            .lock()
            .expect("no test thread panicked")
            .is_empty(),
        "no checks without a fix"
    );
    assert_eq!(store.load().unwrap().current_round(), 1);
}

#[test]
fn fixes_whose_files_did_not_change_ask_for_paths() {
    let tree = Tree::new(&[("src/page.rs", "a")]);
    let mut d = Decisions::default();
    valid(&mut d, "aaaa1111", "PRRT_1", "src/page.rs");
    let store = files(d);
    let (checks, narrator) = (FakeChecks::default(), Kept::default());
    let request = CHECKED;
    let err = commit_round(&ports(&tree, &store, &checks, &narrator), &request).unwrap_err();
    assert_eq!(err.kind, ErrorKind::Invalid);
    assert_eq!(
        err.message,
        "round 1 has 1 fix(es) but none of their files has changes"
    );
    // Abandoning a round with no edits saves nothing and escalates its fixes.
    let saved = abandon_round(&tree, &store, &narrator, "stopped").unwrap();
    assert_eq!(saved, None);
    assert_eq!(store.load().unwrap().escalated[0].reason, "stopped");
}
