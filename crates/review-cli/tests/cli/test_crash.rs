//! Crash drills: `review triage --apply` killed with SIGKILL at many points (after a range of
//! delays, inside its fix commit with the commit then landing or refused, and while a resolve is
//! applied on GitHub but its answer has not arrived), then run again to completion. The end
//! state must be an uninterrupted run's: the same threads resolved, the same one fix commit
//! (holding only the file it fixed, never the user's uncommitted file), no reply, no person's
//! thread touched, and every file under `.git/review` whole JSON after every kill.
//! `test_respond.rs` has the same drill for `review respond`. `docs/robustness.md` lists them.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Child;
use std::time::{Duration, Instant};

use review_test_support::github::{FakeGitHub, Fault};

use crate::common::TestEnvironment;
use crate::drill_support::{
    GitEnd, assert_state_files_whole, assert_user_work_untouched, git_end, output_of,
    replies_per_thread, repository, resolved, review_in, touched, triage_pr,
};

/// Nitpicks: two resolve batches.
const NITS: usize = 25;

struct Drill {
    env: TestEnvironment,
    work: PathBuf,
    github: FakeGitHub,
}

impl Drill {
    async fn start() -> Self {
        let env = TestEnvironment::new();
        let (head, work) = repository(&env);
        let github = FakeGitHub::start().await;
        github.add_pull_request(triage_pr(&head, NITS));
        Self { env, work, github }
    }

    fn command(&self) -> std::process::Command {
        let mut cmd = review_in(
            &self.work,
            self.env.dir(),
            &self.github,
            &self.github.graphql_url(),
        );
        cmd.args(["triage", "1", "--repo", "acme/widgets", "--apply", "--json"]);
        cmd
    }

    fn spawn(&self) -> Child {
        self.spawn_with(&[])
    }

    fn spawn_with(&self, extra: &[&str]) -> Child {
        let mut cmd = self.command();
        cmd.args(extra)
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null());
        cmd.spawn().unwrap()
    }

    fn end(&self) -> (BTreeSet<String>, GitEnd) {
        (resolved(&self.github), git_end(&self.work))
    }

    /// What must hold after any kill.
    fn assert_invariants(&self, when: &str) {
        wait_for_git(&self.work);
        assert!(replies_per_thread(&self.github).is_empty(), "{when}");
        assert!(!touched(&self.github).contains("HUMAN"), "{when}");
        assert_user_work_untouched(&self.work);
        assert_state_files_whole(&self.work);
        let end = git_end(&self.work);
        assert!(
            end.commits.len() <= 1,
            "{when}: one fix commit at most: {end:?}"
        );
        for (files, threads) in &end.commits {
            assert_eq!(files, "src/lib.rs", "{when}: only the file it fixed");
            assert_eq!(threads, &["FIX".to_owned()], "{when}");
        }
    }
}

/// Waits until no git process holds the index (a commit the killed run started may still be
/// finishing: SIGKILL does not reach its children).
fn wait_for_git(work: &Path) {
    let lock = work.join(".git/index.lock");
    let started = Instant::now();
    while lock.exists() && started.elapsed() < Duration::from_secs(10) {
        std::thread::sleep(Duration::from_millis(10));
    }
    assert!(!lock.exists(), "git still holds the index");
}

fn kill(mut child: Child) {
    child.kill().unwrap();
    child.wait().unwrap();
}

/// The end state of a run never interrupted, and how long it took.
async fn uninterrupted() -> ((BTreeSet<String>, GitEnd), Duration) {
    let d = Drill::start().await;
    let started = Instant::now();
    let out = output_of(d.command());
    let took = started.elapsed();
    assert_eq!(out.code, 0, "{}", out.stderr);
    d.assert_invariants("uninterrupted");
    (d.end(), took)
}

/// Runs to completion and compares with the uninterrupted run.
fn finish(d: &Drill, expected: &(BTreeSet<String>, GitEnd)) {
    d.github.clear_faults();
    wait_for_git(&d.work);
    let out = output_of(d.command());
    assert_eq!(out.code, 0, "{}", out.stderr);
    d.assert_invariants("the final run");
    assert_eq!(&d.end(), expected, "the end state of an uninterrupted run");
    // And once more: nothing left to do, nothing done twice.
    let before = d.github.mutations().len();
    let out = output_of(d.command());
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert_eq!(&d.end(), expected);
    assert!(
        d.github.mutations().len() - before <= NITS,
        "at most harmless re-resolves"
    );
}

/// Kill points spread over a run of `took`: at once, then each tenth of the way.
fn kill_points(took: Duration) -> Vec<Duration> {
    (0..=10).map(|tenth| took * tenth / 10).collect()
}

#[tokio::test(flavor = "multi_thread")]
async fn crash_triage_apply_killed_at_each_tenth_of_a_run_then_finished() {
    let (expected, took) = uninterrupted().await;
    for at in kill_points(took) {
        let d = Drill::start().await;
        let child = d.spawn();
        std::thread::sleep(at);
        kill(child);
        d.assert_invariants(&format!("killed after {at:?}"));
        finish(&d, &expected);
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn crash_triage_apply_killed_again_and_again_then_finished() {
    let (expected, took) = uninterrupted().await;
    let d = Drill::start().await;
    for at in kill_points(took) {
        let child = d.spawn();
        std::thread::sleep(at);
        kill(child);
        d.assert_invariants(&format!("killed after {at:?}"));
    }
    finish(&d, &expected);
}

#[tokio::test(flavor = "multi_thread")]
async fn crash_triage_apply_killed_while_a_resolve_is_applied_but_unanswered() {
    let (expected, _) = uninterrupted().await;
    let d = Drill::start().await;
    for round in 0..2 {
        // The fake resolves the batch at once and answers 10 s later.
        d.github.inject(Fault::Slow {
            operation: Some("ResolveThreads".to_owned()),
            delay: Duration::from_secs(10),
            times: 1,
        });
        let before = d.github.mutations().len();
        let child = d.spawn();
        let started = Instant::now();
        while d.github.mutations().len() == before && started.elapsed() < Duration::from_secs(20) {
            std::thread::sleep(Duration::from_millis(5));
        }
        assert!(
            d.github.mutations().len() > before,
            "round {round}: the batch was applied"
        );
        kill(child);
        d.assert_invariants(&format!("round {round}: killed with a resolve in flight"));
    }
    finish(&d, &expected);
}

/// A pre-commit hook that says it started, then waits for the test to release it with an exit
/// status (0: the commit lands after the tool died; 1: git refuses it).
fn install_hook(work: &Path, dir: &Path) {
    let hook = work.join(".git/hooks/pre-commit");
    std::fs::create_dir_all(hook.parent().unwrap()).unwrap();
    let d = dir.display();
    std::fs::write(
        &hook,
        format!(
            "#!/bin/sh\ntouch '{d}/hook-started'\nwhile [ ! -e '{d}/hook-release' ]; do sleep 0.02; done\nexit \"$(cat '{d}/hook-release')\"\n"
        ),
    )
    .unwrap();
    std::process::Command::new("chmod")
        .args(["+x", hook.to_str().unwrap()])
        .status()
        .unwrap();
}

/// Releases the hook with `status`, written whole before the hook can read it.
fn release_hook(dir: &Path, status: &str) {
    std::fs::write(dir.join("hook-release.tmp"), status).unwrap();
    std::fs::rename(dir.join("hook-release.tmp"), dir.join("hook-release")).unwrap();
}

#[tokio::test(flavor = "multi_thread")]
async fn crash_triage_apply_killed_inside_its_fix_commit_then_finished() {
    let (expected, _) = uninterrupted().await;
    // The commit lands after the tool died (before it cleared its journal), or git refuses it
    // (the edit stays, journaled): either way the next run ends where an uninterrupted one does.
    for status in ["0", "1"] {
        let d = Drill::start().await;
        let signals = d.env.dir().join("hook");
        std::fs::create_dir_all(&signals).unwrap();
        install_hook(&d.work, &signals);
        // The user opted into hooks for this run: the hook is what holds the commit open.
        let child = d.spawn_with(&["--run-hooks"]);
        let started = Instant::now();
        while !signals.join("hook-started").exists() && started.elapsed() < Duration::from_secs(20)
        {
            std::thread::sleep(Duration::from_millis(5));
        }
        assert!(signals.join("hook-started").exists(), "the commit began");
        kill(child);
        let journal = crate::common::state_file(&d.work, "journal");
        assert!(journal.exists(), "the edit is journaled while uncommitted");
        release_hook(&signals, status);
        d.assert_invariants(&format!("killed in the commit, hook exit {status}"));
        std::fs::remove_file(d.work.join(".git/hooks/pre-commit")).unwrap();
        finish(&d, &expected);
        assert!(!journal.exists(), "the journal is cleared");
    }
}
