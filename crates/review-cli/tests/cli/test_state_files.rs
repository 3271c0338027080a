//! The tool's state files: one directory per pull request, which two repositories never share,
//! and upgrades that lose nothing. The upgrade tests give this release the files the previous
//! release wrote with its own commands (`fixtures/upgrade/`, see the README there), placed
//! where that release kept them, against a GitHub that shows none of that release's posts: only
//! the files stand between this release and a reply posted twice or a decision lost.

use std::path::{Path, PathBuf};

use review_core::model::{CommitId, PullRequest, RepoId};
use review_core::report::{Outcome, Report};
use review_test_support::github::{FakeCheck, FakeGitHub};
use review_test_support::{Mutation, PrBuilder, bot};
use serde_json::Value;

use crate::common::{Output, git_out};
use crate::upgrade_scenario::{
    LOOP_PR, OLD_FILES, REPLIES, TRIAGE_PR, loop_pr, loop_repository, repo, run, triage_pr,
    triage_repository,
};

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/cli/fixtures/upgrade")
}

fn fixture(name: &str) -> String {
    std::fs::read_to_string(fixtures().join(name)).unwrap()
}

fn json(text: &str) -> Value {
    serde_json::from_str(text).unwrap()
}

/// Puts the previous release's files `names` (and their lock files, where it left one) in
/// `work`'s `.git/review/`, where that release kept them.
fn place_old(work: &Path, names: &[&str]) {
    let dir = work.join(".git/review");
    std::fs::create_dir_all(&dir).unwrap();
    for name in names {
        assert!(OLD_FILES.contains(name), "{name} is a fixture");
        std::fs::copy(fixtures().join(name), dir.join(name)).unwrap();
        let lock = format!("{name}.lock");
        if fixtures().join(&lock).exists() {
            std::fs::copy(fixtures().join(&lock), dir.join(&lock)).unwrap();
        }
    }
}

/// This release's file of `kind` for acme/widgets#`number` in `work`.
fn new_file(work: &Path, kind: &str, number: u64) -> PathBuf {
    work.join(format!(
        ".git/review/pulls/acme/widgets/{number}/{kind}.json"
    ))
}

/// The previous release's files `names` are gone from `work`, lock files included.
fn assert_moved_away(work: &Path, names: &[&str]) {
    for name in names {
        let old = work.join(".git/review").join(name);
        assert!(!old.exists(), "{name} was moved");
        assert!(
            !work
                .join(".git/review")
                .join(format!("{name}.lock"))
                .exists(),
            "{name}.lock was removed"
        );
    }
}

/// The head of the loop's pull request when the previous release last polled it.
fn old_head() -> String {
    json(&fixture("watch-acme-widgets-1.json"))["headSha"]
        .as_str()
        .unwrap()
        .to_owned()
}

struct Env {
    home: tempfile::TempDir,
    github: FakeGitHub,
}

impl Env {
    async fn start(pr: PullRequest) -> Self {
        let home = tempfile::tempdir().unwrap();
        let github = FakeGitHub::start().await;
        github.set_viewer("dana");
        github.add_pull_request(pr);
        Self { home, github }
    }

    /// The loop's clone, a repository the commands run in.
    fn loop_clone(&self) -> PathBuf {
        let dir = self.home.path().join("loop");
        loop_repository(&dir);
        dir
    }

    fn run(&self, dir: &Path, args: &[&str]) -> Output {
        run(dir, self.home.path(), &self.github, args)
    }

    fn replies_to(&self, thread: &str) -> usize {
        self.github
            .mutations()
            .iter()
            .filter(|m| matches!(m, Mutation::Reply(t, _) if t.0 == thread))
            .count()
    }
}

fn ok(out: &Output) {
    assert_eq!(out.code, 0, "{}\n{}", out.stdout, out.stderr);
}

#[tokio::test(flavor = "multi_thread")]
async fn upgrade_respond_replies_posts_nothing_the_old_ledger_records() {
    // GitHub shows no reply (say a page the read did not return): the ledger is the record.
    let env = Env::start(loop_pr()).await;
    let dir = env.loop_clone();
    place_old(&dir, &["ledger-acme-widgets-1.json"]);
    std::fs::write(env.home.path().join("replies.json"), REPLIES).unwrap();
    let replies = env.home.path().join("replies.json");
    let args = [
        "respond",
        "1",
        "--repo",
        "acme/widgets",
        "--replies",
        replies.to_str().unwrap(),
    ];
    for _ in 0..2 {
        let out = env.run(&dir, &args);
        ok(&out);
        assert!(out.stdout.contains("already  D"), "{}", out.stdout);
        assert_eq!(env.replies_to("D"), 0, "posted again: {}", out.stdout);
    }
    assert_moved_away(&dir, &["ledger-acme-widgets-1.json"]);
    let ledger = json(&std::fs::read_to_string(new_file(&dir, "ledger", 1)).unwrap());
    let old = json(&fixture("ledger-acme-widgets-1.json"));
    for (key, entry) in old["posted"].as_object().unwrap() {
        assert_eq!(&ledger["posted"][key], entry, "{key} kept");
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn an_old_file_beside_its_successor_is_left_as_it_is_and_said() {
    // The earlier release ran again after an upgrade: both ledgers exist. The newer is used,
    // the old one stays where it is, and the run says so (a warning of the local adapters,
    // shown as narration).
    let env = Env::start(loop_pr()).await;
    let dir = env.loop_clone();
    place_old(&dir, &["ledger-acme-widgets-1.json"]);
    let new = new_file(&dir, "ledger", 1);
    std::fs::create_dir_all(new.parent().unwrap()).unwrap();
    let newer = fixture("ledger-acme-widgets-1.json");
    std::fs::write(&new, &newer).unwrap();
    std::fs::write(env.home.path().join("replies.json"), REPLIES).unwrap();
    let replies = env.home.path().join("replies.json");
    let out = env.run(
        &dir,
        &[
            "respond",
            "1",
            "--repo",
            "acme/widgets",
            "--replies",
            replies.to_str().unwrap(),
        ],
    );
    ok(&out);
    assert!(
        out.stderr.contains("[review] warning: ")
            && out
                .stderr
                .contains("ledger-acme-widgets-1.json was written by an earlier release"),
        "{}",
        out.stderr
    );
    assert!(
        dir.join(".git/review/ledger-acme-widgets-1.json").exists(),
        "left as it is"
    );
    assert!(new.exists(), "the newer one is used");
    assert_eq!(
        env.replies_to("D"),
        0,
        "the newer ledger records D: {}",
        out.stdout
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn upgrade_respond_from_decisions_answers_only_what_the_old_decisions_still_owe() {
    // A and C were answered by the previous release (GitHub here does not show it), B is owed.
    let mut pr = loop_pr();
    pr.head_sha = CommitId(old_head());
    let env = Env::start(pr).await;
    let dir = env.loop_clone();
    let names = ["decisions-acme-widgets-1.json", "watch-acme-widgets-1.json"];
    place_old(&dir, &names);
    let args = ["respond", "1", "--repo", "acme/widgets", "--from-decisions"];
    let out = env.run(&dir, &args);
    ok(&out);
    assert!(out.stdout.contains("posted   B"), "{}", out.stdout);
    let out = env.run(&dir, &args);
    ok(&out);
    assert_eq!(env.replies_to("B"), 1, "once: {}", out.stdout);
    assert_eq!(env.replies_to("A"), 0, "A was answered before the upgrade");
    assert_eq!(env.replies_to("C"), 0, "C was answered before the upgrade");
    assert_eq!(env.replies_to("D"), 0, "D has no decision");

    assert_moved_away(&dir, &names);
    let decisions = json(&std::fs::read_to_string(new_file(&dir, "decisions", 1)).unwrap());
    let old = json(&fixture("decisions-acme-widgets-1.json"));
    assert_eq!(decisions["round"], old["round"]);
    for (fp, seen) in old["seen"].as_object().unwrap() {
        for field in [
            "threadId",
            "verdict",
            "reasoning",
            "resolvedSha",
            "decidedInRound",
        ] {
            assert_eq!(
                decisions["seen"][fp][field], seen[field],
                "{fp}.{field} kept"
            );
        }
        assert_eq!(decisions["seen"][fp]["replied"], true, "{fp}");
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn upgrade_watch_goes_on_from_the_old_state() {
    // GitHub as the previous release left it: A and C resolved, the fix pushed.
    let mut pr = loop_pr();
    pr.head_sha = CommitId(old_head());
    for t in &mut pr.threads {
        t.is_resolved = t.id.0 == "A" || t.id.0 == "C";
    }
    let env = Env::start(pr).await;
    env.github
        .set_checks(&repo(), LOOP_PR, vec![FakeCheck::passed("ci")]);
    let dir = env.loop_clone();
    let names = ["decisions-acme-widgets-1.json", "watch-acme-widgets-1.json"];
    place_old(&dir, &names);
    let out = env.run(&dir, &["watch", "1", "--repo", "acme/widgets", "--once"]);
    ok(&out);
    let events: Vec<String> = out
        .stdout
        .lines()
        .map(|l| json(l)["event"].as_str().unwrap().to_owned())
        .collect();
    assert!(
        !events
            .iter()
            .any(|e| e == "NEW_FINDINGS" || e == "HUMAN_COMMENT" || e == "PUSHED"),
        "announced again: {events:?}"
    );
    assert_moved_away(&dir, &names);
    let state = json(&std::fs::read_to_string(new_file(&dir, "watch", 1)).unwrap());
    let old = json(&fixture("watch-acme-widgets-1.json"));
    assert_eq!(
        state["headSeenAt"], old["headSeenAt"],
        "the same head, seen then"
    );
    assert!(state["totalPoints"].as_u64() >= old["totalPoints"].as_u64());
    for thread in old["announced"]["findings"].as_array().unwrap() {
        assert!(
            state["announced"]["findings"]
                .as_array()
                .unwrap()
                .contains(thread),
            "{thread} still announced"
        );
    }
    let pending: Vec<&str> = state["pending"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["threadId"].as_str().unwrap())
        .collect();
    assert!(
        !pending.contains(&"B"),
        "B was decided before the upgrade: {pending:?}"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn upgrade_triage_recovers_the_old_journal_and_honours_the_old_pre_review_marker() {
    let home = tempfile::tempdir().unwrap();
    let work = home.path().join("work");
    let head = triage_repository(&work);
    let marker = json(&fixture("pre-review-acme-widgets-2.json"))["marker"]
        .as_str()
        .unwrap()
        .to_owned();
    assert_eq!(
        head, marker,
        "the repository the fixtures were written in is built again commit for commit"
    );
    // What the killed run left: its edit, uncommitted, and the journal that names it.
    std::fs::write(work.join("src/lib.rs"), fixture("triage-src-lib.rs.txt")).unwrap();
    let names = [
        "journal-acme-widgets-2.json",
        "pre-review-acme-widgets-2.json",
    ];
    place_old(&work, &names);
    let github = FakeGitHub::start().await;
    github.add_pull_request(triage_pr(&head));
    let ran = home.path().join("reviewer-ran");
    let reviewer = format!("touch '{}'", ran.display());
    let out = run(
        &work,
        home.path(),
        &github,
        &[
            "triage",
            "2",
            "--repo",
            "acme/widgets",
            "--apply",
            "--json",
            "--reviewer-cmd",
            &reviewer,
        ],
    );
    ok(&out);
    assert!(
        out.stderr
            .contains("an earlier run stopped before committing its edits of src/lib.rs"),
        "{}",
        out.stderr
    );
    assert!(
        out.stderr.contains("skip pre-review, it already ran at"),
        "{}",
        out.stderr
    );
    assert!(!ran.exists(), "the reviewer ran again");
    let report: Report = serde_json::from_str(&out.stdout).unwrap();
    let fix = report.threads.iter().find(|t| t.id.0 == "FIX").unwrap();
    assert_eq!(
        fix.outcome,
        Outcome::Actioned,
        "not mistaken for yours: {fix:?}"
    );
    assert_eq!(git_out(&work, &["rev-list", "--count", "HEAD"]), "2");
    assert_eq!(
        git_out(&work, &["show", "HEAD:src/lib.rs"]),
        fixture("triage-src-lib.rs.txt").trim_end()
    );
    assert_moved_away(&work, &names);
    assert!(!new_file(&work, "journal", TRIAGE_PR).exists(), "cleared");
    assert_eq!(
        json(&std::fs::read_to_string(new_file(&work, "pre-review", TRIAGE_PR)).unwrap())["marker"],
        marker.as_str()
    );
}

/// A pull request #1 on `repo` at `head` with one bot thread `thread`.
fn pr_on(repo: &str, head: &str, thread: &str) -> PullRequest {
    PrBuilder::new()
        .with_pr(|p| {
            p.repo = RepoId::parse(repo).unwrap();
            p.head_sha = CommitId(head.repeat(40));
            p.id = format!("PR_{thread}");
            p.url = format!("https://github.com/{repo}/pull/1");
        })
        .thread(
            thread,
            "src/lib.rs",
            3,
            &[(
                bot("coderabbitai"),
                &format!("**Finding {thread}.** Check it."),
            )],
        )
        .build()
}

#[tokio::test(flavor = "multi_thread")]
async fn two_repositories_whose_names_ran_together_keep_their_own_state() {
    // `a-b/c#1` and `a/b-c#1` both were `review/watch-a-b-c-1.json`: each watcher took the
    // other's state for its own, saw the other's head as a push, lost its pending findings.
    let env = Env::start(pr_on("a-b/c", "1", "T1")).await;
    env.github.add_pull_request(pr_on("a/b-c", "2", "T2"));
    let dir = env.loop_clone();
    let poll = |repo: &str| {
        let out = env.run(&dir, &["watch", "1", "--repo", repo, "--once"]);
        ok(&out);
        out.stdout
            .lines()
            .map(|l| json(l)["event"].as_str().unwrap().to_owned())
            .collect::<Vec<_>>()
    };
    assert_eq!(poll("a-b/c"), ["NEW_FINDINGS"]);
    assert_eq!(poll("a/b-c"), ["NEW_FINDINGS"]);
    assert!(poll("a-b/c").is_empty(), "nothing new on a-b/c");
    assert!(poll("a/b-c").is_empty(), "nothing new on a/b-c");
    let state = |path: &str| {
        json(&std::fs::read_to_string(dir.join(".git/review/pulls").join(path)).unwrap())
    };
    assert_eq!(state("a-b/c/1/watch.json")["pr"], "a-b/c#1");
    assert_eq!(state("a/b-c/1/watch.json")["pr"], "a/b-c#1");
    // One repository, two spellings: one state.
    assert!(poll("A-B/C").is_empty(), "the same repository");
}
