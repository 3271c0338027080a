//! Issue 13, items 15 and 16: writes happen once, and only when what they say is true. Two
//! `respond` runs started together on one replies file, a run that gives up on a lock another run
//! holds, and a reply about a fix whose commit was rebased before the push.

use review_test_support::github::{FakeCheck, FakeGitHub, Fault};
use review_test_support::{PrBuilder, bot};

use crate::attack2_support::{finish, move_head, replies_in, repo, review, run, spawn};
use crate::common::{Output, TestEnvironment, commit, git, git_out};

// Attack: two `respond` runs on the same replies file at the same moment (two agents, a retried
// CI job): both see the replies missing and both post them. Safe: one per-PR lock covers
// read-check-post-record; the second run waits (and says so), reads again under the lock, and
// posts nothing twice.
#[tokio::test(flavor = "multi_thread")]
async fn attack_two_respond_runs_at_once_post_each_reply_once() {
    let env = TestEnvironment::new();
    git(env.dir(), &["init", "-q", "-b", "feature"]);
    let github = FakeGitHub::start().await;
    github.add_pull_request(
        PrBuilder::new()
            .thread("A", "src/lib.rs", 3, &[(bot("coderabbitai"), "x")])
            .thread("B", "src/lib.rs", 5, &[(bot("cursor"), "y")])
            .build(),
    );
    env.write(
        "replies.json",
        r#"[
  {"threadId": "A", "replyBody": "Not applying this — the cache is deliberate.", "resolve": true},
  {"threadId": "B", "replyBody": "Out of scope for this PR; tracked separately.", "resolve": false}
]"#,
    );
    // The last look before each post is slow: without the lock, both runs would be between that
    // look and their post at the same time.
    github.inject(Fault::Slow {
        operation: Some("ThreadCommentsPage".to_owned()),
        delay: std::time::Duration::from_millis(1500),
        times: 2,
    });
    let args = [
        "respond",
        "1",
        "--repo",
        "acme/widgets",
        "--replies",
        "replies.json",
    ];
    let first = spawn(review(env.dir(), env.dir(), &github, &args));
    let second = spawn(review(env.dir(), env.dir(), &github, &args));
    let outs: Vec<Output> = vec![finish(first), finish(second)];
    for out in &outs {
        assert_eq!(out.code, 0, "{}\n{}", out.stdout, out.stderr);
    }
    assert_eq!(
        replies_in(&github, "A").len(),
        1,
        "{:?}",
        github.mutations()
    );
    assert_eq!(
        replies_in(&github, "B").len(),
        1,
        "{:?}",
        github.mutations()
    );
    let waited: Vec<&Output> = outs
        .iter()
        .filter(|o| {
            o.stderr
                .contains("another run is posting on this pull request; waiting for it")
        })
        .collect();
    assert_eq!(waited.len(), 1, "one run waited for the other: {outs:?}");
    assert!(
        waited[0].stdout.contains("already  A") && waited[0].stdout.contains("already  B"),
        "the run that waited found both replies posted: {}",
        waited[0].stdout
    );
}

// Attack: a run posting on the pull request hangs while it holds the per-PR lock (a stalled
// network, a suspended terminal); another `respond` must neither post around it nor wait for
// ever. Safe: it waits up to its deadline (30 s; `REVIEW_TEST_LOCK_WAIT_SECONDS` shortens it for
// tests), then fails (exit 1) naming the run that holds the lock, having posted nothing, and
// leaves the lock and its holder file as they are.
#[tokio::test(flavor = "multi_thread")]
async fn attack_respond_gives_up_on_a_held_lock_naming_its_holder_and_posts_nothing() {
    let env = TestEnvironment::new();
    git(env.dir(), &["init", "-q", "-b", "feature"]);
    let github = FakeGitHub::start().await;
    github.add_pull_request(
        PrBuilder::new()
            .thread("A", "src/lib.rs", 3, &[(bot("coderabbitai"), "x")])
            .build(),
    );
    env.write(
        "replies.json",
        r#"[{"threadId": "A", "replyBody": "Not applying this — the cache is deliberate.", "resolve": true}]"#,
    );
    let args = [
        "respond",
        "1",
        "--repo",
        "acme/widgets",
        "--replies",
        "replies.json",
    ];
    // Another live run holds the lock, taken as the tool takes it: an exclusive lock on the lock
    // file, and who holds it in the holder file beside it.
    let dir = crate::common::state_dir(env.dir());
    std::fs::create_dir_all(&dir).unwrap();
    let lock_path = dir.join("posting.lock");
    let holder_path = dir.join("posting.holder");
    let open_lock = || {
        std::fs::OpenOptions::new()
            .create(true)
            .truncate(false)
            .write(true)
            .open(&lock_path)
            .unwrap()
    };
    let held = open_lock();
    held.try_lock().unwrap();
    let holder = "`review respond` (process 4242, run 20261130T110000Z-1a2b)";
    std::fs::write(&holder_path, holder).unwrap();

    let mut cmd = review(env.dir(), env.dir(), &github, &args);
    cmd.env("REVIEW_TEST_LOCK_WAIT_SECONDS", "1");
    let started = std::time::Instant::now();
    let out = run(cmd);
    let waited = started.elapsed();
    assert_eq!(out.code, 1, "{}\n{}", out.stdout, out.stderr);
    assert!(
        out.stderr
            .contains("another run is posting on this pull request; waiting for it"),
        "{}",
        out.stderr
    );
    assert!(
        out.stderr.contains(&format!(
            "error: {holder} is posting on PR #1; gave up waiting after 1 s"
        )),
        "{}",
        out.stderr
    );
    assert!(
        out.stderr
            .contains("hint: wait for it to finish and run again")
            && out.stderr.contains("posting.lock"),
        "{}",
        out.stderr
    );
    assert!(
        waited >= std::time::Duration::from_secs(1) && waited < std::time::Duration::from_secs(20),
        "it waited its deadline, no more: {waited:?}"
    );
    assert!(github.mutations().is_empty(), "{:?}", github.mutations());
    assert_eq!(
        std::fs::read_to_string(&holder_path).unwrap(),
        holder,
        "the holder file is the holder's"
    );
    assert!(
        matches!(
            open_lock().try_lock(),
            Err(std::fs::TryLockError::WouldBlock)
        ),
        "the lock file is the one still held"
    );

    // The holder ends (its lock released, its holder file removed): the same run posts, once.
    drop(held);
    std::fs::remove_file(&holder_path).unwrap();
    let out = run(review(env.dir(), env.dir(), &github, &args));
    assert_eq!(out.code, 0, "{}\n{}", out.stdout, out.stderr);
    assert_eq!(
        replies_in(&github, "A").len(),
        1,
        "{:?}",
        github.mutations()
    );
}

const FINDING: &str = "**Unbounded cache growth.** The cache never evicts entries.";

/// A clone in `env` whose PR (on `github`) has CodeRabbit's finding `A`; the loop polled it,
/// recorded a VALID verdict, and its `commit-round` committed the fix (trailer `Review-Thread:
/// A`), not pushed. Then the base moved on (`upstream`, from the PR's first commit) and the
/// branch was rebased onto it, its last message replaced by `reword` when given. Returns the
/// recorded short sha of the fix and the rebased head.
fn fix_then_rebase(
    env: &TestEnvironment,
    github: &FakeGitHub,
    reword: Option<&str>,
) -> (String, String) {
    let dir = env.dir();
    git(dir, &["init", "-q", "-b", "feature"]);
    std::fs::create_dir_all(dir.join("src")).unwrap();
    std::fs::write(dir.join("src/cache.rs"), "pub struct Cache;\n").unwrap();
    std::fs::write(dir.join("README.md"), "widgets\n").unwrap();
    git(dir, &["add", "."]);
    commit(dir, "start");
    let start = git_out(dir, &["rev-parse", "HEAD"]);
    github.set_viewer("dana");
    github.add_pull_request(
        PrBuilder::new()
            .with_pr(|p| p.head_sha.0.clone_from(&start))
            .thread("A", "src/cache.rs", 1, &[(bot("coderabbitai"), FINDING)])
            .build(),
    );
    github.set_checks(&repo(), 1, vec![FakeCheck::passed("ci")]);

    // The loop: a poll, a VALID verdict, the fix, the round's commit.
    loop_step(env, github, &["watch", "--once"]);
    let watch: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(crate::common::state_file(dir, "watch")).unwrap(),
    )
    .unwrap();
    let fp = watch["pending"][0]["fingerprint"]
        .as_str()
        .unwrap()
        .to_owned();
    std::fs::write(
        dir.join("answer.json"),
        r#"{"verdict": "VALID", "reasoning": "the cache now evicts its oldest entry when full",
            "evidence": ["src/cache.rs:1"], "fixSketch": "an LRU bound"}"#,
    )
    .unwrap();
    loop_step(
        env,
        github,
        &["decide", "--finding", &fp, "--answer", "answer.json"],
    );
    std::fs::write(
        dir.join("src/cache.rs"),
        "pub struct Cache { max: usize }\n",
    )
    .unwrap();
    loop_step(env, github, &["commit-round", "--check-cmd", "true"]);
    let recorded = git_out(dir, &["rev-parse", "--short=7", "HEAD"]);
    assert!(git_out(dir, &["log", "-1", "--format=%B"]).contains("Review-Thread: A"));

    // The base moved on; the user rebases the branch onto it before pushing.
    git(dir, &["checkout", "-q", "-b", "upstream", &start]);
    std::fs::write(dir.join("README.md"), "widgets, the upstream edit\n").unwrap();
    git(dir, &["add", "README.md"]);
    commit(dir, "upstream");
    git(dir, &["checkout", "-q", "feature"]);
    let as_dana = ["-c", "user.name=Dana", "-c", "user.email=dana@example.com"];
    git(dir, &[&as_dana[..], &["rebase", "-q", "upstream"]].concat());
    if let Some(message) = reword {
        git(
            dir,
            &[&as_dana[..], &["commit", "-q", "--amend", "-m", message]].concat(),
        );
    }
    let rebased = git_out(dir, &["rev-parse", "HEAD"]);
    assert_ne!(&rebased[..7], recorded, "the rebase changed the fix's id");
    (recorded, rebased)
}

/// `review ARGS 1 --repo acme/widgets` in `env`'s clone; it must succeed.
fn loop_step(env: &TestEnvironment, github: &FakeGitHub, args: &[&str]) -> Output {
    let mut full = args.to_vec();
    full.extend(["1", "--repo", "acme/widgets"]);
    let out = run(review(env.dir(), env.dir(), github, &full));
    assert_eq!(out.code, 0, "{args:?}: {}\n{}", out.stdout, out.stderr);
    out
}

/// Before the push the reply waits; once GitHub's PR head is `rebased`, it is posted citing
/// that commit (not `recorded`), and never again.
fn assert_cited_as_landed(
    env: &TestEnvironment,
    github: &FakeGitHub,
    recorded: &str,
    rebased: &str,
) {
    let out = loop_step(env, github, &["respond", "--from-decisions"]);
    assert!(out.stdout.contains("waiting  A"), "{}", out.stdout);
    assert!(
        replies_in(github, "A").is_empty(),
        "{:?}",
        github.mutations()
    );

    // Pushed: GitHub's PR head is the rebased commit. The reply cites it, not the recorded one.
    move_head(github, rebased);
    let out = loop_step(env, github, &["respond", "--from-decisions"]);
    assert!(out.stdout.contains("posted   A"), "{}", out.stdout);
    let replies = replies_in(github, "A");
    assert_eq!(replies.len(), 1);
    assert!(
        replies[0].contains(&format!(
            "Fixed in {} — the cache now evicts its oldest entry when full.",
            &rebased[..7]
        )),
        "{}",
        replies[0]
    );
    assert!(!replies[0].contains(recorded), "{}", replies[0]);

    // And once only.
    loop_step(env, github, &["respond", "--from-decisions"]);
    assert_eq!(replies_in(github, "A").len(), 1, "{:?}", github.mutations());
}

// Attack: the loop commits a fix (its `Review-Thread:` trailer), then the user rebases the branch
// before pushing, so the recorded commit never reaches the PR; a reply citing the recorded sha
// would cite a commit the PR does not have (or go out before the push). Safe: the reply waits
// until the fix is on the PR's head, found by its trailer, then cites the commit as it landed,
// once.
#[tokio::test(flavor = "multi_thread")]
async fn attack_a_fix_rebased_before_the_push_is_cited_as_it_landed() {
    let env = TestEnvironment::new();
    let github = FakeGitHub::start().await;
    let (recorded, rebased) = fix_then_rebase(&env, &github, None);
    assert!(git_out(env.dir(), &["log", "-1", "--format=%B"]).contains("Review-Thread: A"));
    assert_cited_as_landed(&env, &github, &recorded, &rebased);
}

// Attack: the same, and the rebase also rewrote the fix's message without its trailer; safe: the
// fix is found on the PR's head by its patch, and cited as it landed, once.
#[tokio::test(flavor = "multi_thread")]
async fn attack_a_fix_rebased_and_reworded_before_the_push_is_found_by_its_patch() {
    let env = TestEnvironment::new();
    let github = FakeGitHub::start().await;
    let (recorded, rebased) = fix_then_rebase(&env, &github, Some("Bound the cache"));
    assert!(!git_out(env.dir(), &["log", "-1", "--format=%B"]).contains("Review-Thread"));
    assert_cited_as_landed(&env, &github, &recorded, &rebased);
}
