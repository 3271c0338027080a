//! `review respond --replies FILE` against the fake GitHub: each reply posted once, ever.

use review_core::model::ThreadId;
use review_test_support::github::{FakeGitHub, Fault};
use review_test_support::{Mutation, PrBuilder, bot, person};

use crate::common::{TestEnvironment, git};

fn pr() -> review_core::model::PullRequest {
    PrBuilder::new()
        .thread("A", "src/lib.rs", 3, &[(bot("coderabbitai"), "x")])
        .thread("B", "src/lib.rs", 5, &[(bot("cursor"), "y")])
        .thread(
            "HUM",
            "src/lib.rs",
            9,
            &[(bot("coderabbitai"), "x"), (person("mei"), "no")],
        )
        .build()
}

const REPLIES: &str = r#"[
  {"threadId": "A", "replyBody": "Not applying this — the cache is deliberate.", "resolve": true},
  {"threadId": "B", "replyBody": "Out of scope for this PR; tracked separately.", "resolve": false},
  {"threadId": "HUM", "replyBody": "ok", "resolve": true}
]"#;

async fn setup() -> (TestEnvironment, FakeGitHub) {
    let env = TestEnvironment::new();
    git(env.dir(), &["init", "-q", "-b", "feature"]);
    let github = FakeGitHub::start().await;
    github.set_viewer("dana");
    github.add_pull_request(pr());
    env.write("replies.json", REPLIES);
    (env, github)
}

fn respond(env: &TestEnvironment, github: &FakeGitHub) -> crate::common::Output {
    let url = github.graphql_url();
    env.run_with(
        &[
            "respond",
            "1",
            "--repo",
            "acme/widgets",
            "--replies",
            "replies.json",
        ],
        &[("GITHUB_GRAPHQL_URL", &url)],
    )
}

fn replies_posted(github: &FakeGitHub) -> usize {
    github
        .mutations()
        .iter()
        .filter(|m| matches!(m, Mutation::Reply(..)))
        .count()
}

#[tokio::test(flavor = "multi_thread")]
async fn replies_are_posted_once_and_human_threads_are_left_alone() {
    let (env, github) = setup().await;
    let out = respond(&env, &github);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(out.stdout.contains("skipped  HUM"), "{}", out.stdout);
    assert_eq!(replies_posted(&github), 2);
    assert!(
        github
            .mutations()
            .contains(&Mutation::Resolve(ThreadId::from("A")))
    );
    assert!(
        !github
            .mutations()
            .contains(&Mutation::Resolve(ThreadId::from("B"))),
        "resolve: false"
    );
    let now = github
        .pull_request(
            &review_core::model::RepoId::parse("acme/widgets").unwrap(),
            1,
        )
        .unwrap();
    let reply = &now.threads[0].comments[1].body;
    assert!(
        reply.starts_with("🤖 Automated comment by **review**"),
        "{reply}"
    );
    assert!(review_core::post::find_key(reply).is_some());
    assert_eq!(
        now.threads[2].comments.len(),
        2,
        "nothing posted in the person's thread"
    );

    // The same file again: nothing new.
    let before = github.mutations().len();
    let out = respond(&env, &github);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(out.stdout.contains("already  A"), "{}", out.stdout);
    assert_eq!(replies_posted(&github), 2);
    assert!(
        github.mutations().len() - before <= 1,
        "at most a harmless re-resolve"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn a_crash_between_posting_and_recording_does_not_post_twice() {
    let (env, github) = setup().await;
    assert_eq!(respond(&env, &github).code, 0);
    // As if the run had died after posting and before writing its ledger.
    let ledger = crate::common::state_file(env.dir(), "ledger");
    assert!(
        ledger.exists(),
        "the ledger is kept under the git directory"
    );
    std::fs::remove_file(&ledger).unwrap();
    let out = respond(&env, &github);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert_eq!(
        replies_posted(&github),
        2,
        "the keys in the thread are enough"
    );
    assert!(
        ledger.exists(),
        "the ledger is rebuilt from what GitHub shows"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn a_wrong_file_shape_posts_nothing() {
    let (env, github) = setup().await;
    env.write("replies.json", r#"{"seen": {}, "escalated": []}"#);
    let out = respond(&env, &github);
    assert_eq!(out.code, 2, "{}", out.stderr);
    assert!(
        out.stderr.contains("is not a replies file"),
        "{}",
        out.stderr
    );
    assert!(github.mutations().is_empty());
    assert!(
        github.requests().is_empty(),
        "stopped before asking GitHub anything"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn a_failed_reply_is_reported_and_its_thread_not_resolved() {
    let (env, github) = setup().await;
    // The reply that failed is looked for 1 s (60 s by default) before it is reported.
    env.write_user_config("[github]\npost-check-seconds = 1\n");
    github.inject(Fault::ServerError {
        operation: Some("AddThreadReply".to_owned()),
        status: 502,
        times: 100,
    });
    let out = respond(&env, &github);
    assert_eq!(out.code, 4, "{}", out.stderr);
    assert!(out.stdout.contains("failed   A"), "{}", out.stdout);
    assert!(
        !github
            .mutations()
            .contains(&Mutation::Resolve(ThreadId::from("A")))
    );
}

/// A commit in the test's repository whose abbreviated id is all digits (about one in 27 is),
/// made by committing until one comes.
fn all_digit_commit(env: &TestEnvironment) -> String {
    for n in 0..2_000 {
        crate::common::commit(env.dir(), &format!("work {n}"));
        let short = crate::common::git_out(env.dir(), &["rev-parse", "--short=7", "HEAD"]);
        if short.bytes().all(|b| b.is_ascii_digit()) {
            return short;
        }
    }
    panic!("no all-digit short id in 2000 commits");
}

#[tokio::test(flavor = "multi_thread")]
async fn a_reply_citing_an_unpushed_commit_waits_even_when_its_id_is_all_digits() {
    let (env, github) = setup().await;
    let sha = all_digit_commit(&env);
    env.write(
        "replies.json",
        &format!(r#"[{{"threadId": "A", "replyBody": "Fixed in {sha} — handled the None case.", "resolve": true}}]"#),
    );
    let out = respond(&env, &github);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(
        out.stdout.contains(&format!("waiting  A: it cites {sha}")),
        "{}",
        out.stdout
    );
    assert!(
        github.mutations().is_empty(),
        "nothing posted before the push"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn a_reply_citing_a_commit_nobody_knows_is_refused_before_anything_is_posted() {
    let (env, github) = setup().await;
    env.write(
        "replies.json",
        r#"[{"threadId": "B", "replyBody": "Out of scope.", "resolve": false},
            {"threadId": "A", "replyBody": "Fixed in `3f2a9c1` — handled the None case.", "resolve": true}]"#,
    );
    let out = respond(&env, &github);
    assert_eq!(out.code, 2, "{}", out.stderr);
    assert!(out.stderr.contains("A cites 3f2a9c1"), "{}", out.stderr);
    assert!(github.mutations().is_empty(), "not even the other reply");
}

/// SIGKILL at many points of a run (before anything, mid-post with the reply applied but not
/// yet answered, between replies), then re-runs: every reply lands exactly once.
#[tokio::test(flavor = "multi_thread")]
async fn killed_at_any_point_every_reply_lands_exactly_once() {
    let env = TestEnvironment::new();
    git(env.dir(), &["init", "-q", "-b", "feature"]);
    let github = FakeGitHub::start().await;
    github.set_viewer("dana");
    let threads: Vec<String> = (0..6).map(|i| format!("T{i}")).collect();
    let mut builder = PrBuilder::new();
    for (i, t) in threads.iter().enumerate() {
        builder = builder.thread(t, "src/lib.rs", 3 + i as u32, &[(bot("coderabbitai"), "x")]);
    }
    github.add_pull_request(builder.build());
    let replies: Vec<serde_json::Value> = threads
        .iter()
        .map(|t| {
            serde_json::json!({
                "threadId": t,
                "replyBody": format!("Not applying this — {t} is intended."),
                "resolve": true,
            })
        })
        .collect();
    env.write("replies.json", &serde_json::to_string(&replies).unwrap());
    let url = github.graphql_url();
    let args = [
        "respond",
        "1",
        "--repo",
        "acme/widgets",
        "--replies",
        "replies.json",
    ];
    let vars = [("GITHUB_GRAPHQL_URL", url.as_str())];
    let per_thread = |github: &FakeGitHub| {
        let mut counts = std::collections::BTreeMap::new();
        for m in github.mutations() {
            if let Mutation::Reply(t, _) = m {
                *counts.entry(t.0).or_insert(0) += 1;
            }
        }
        counts
    };

    // Killed at once, and after a few moments.
    for delay in [0u64, 5, 40] {
        let mut child = env.spawn_with(&args, &vars);
        std::thread::sleep(std::time::Duration::from_millis(delay));
        child.kill().unwrap();
        child.wait().unwrap();
        assert!(per_thread(&github).values().all(|&n| n == 1));
    }
    // Killed while a reply is applied on GitHub but its answer has not arrived: the ledger
    // has not recorded it.
    for _ in 0..4 {
        github.inject(Fault::Slow {
            operation: Some("AddThreadReply".to_owned()),
            delay: std::time::Duration::from_secs(5),
            times: 1,
        });
        let before: usize = per_thread(&github).values().sum();
        let mut child = env.spawn_with(&args, &vars);
        let started = std::time::Instant::now();
        while per_thread(&github).values().sum::<usize>() == before
            && child.try_wait().unwrap().is_none()
            && started.elapsed() < std::time::Duration::from_secs(20)
        {
            std::thread::sleep(std::time::Duration::from_millis(5));
        }
        let finished = child.try_wait().unwrap().is_some();
        child.kill().unwrap();
        child.wait().unwrap();
        let counts = per_thread(&github);
        assert!(counts.values().all(|&n| n == 1), "{counts:?}");
        assert!(
            finished || counts.values().sum::<usize>() > before,
            "killed after the reply was applied and before its answer"
        );
    }
    let out = env.run_with(&args, &vars);
    assert_eq!(out.code, 0, "{}\n{}", out.stdout, out.stderr);
    let counts = per_thread(&github);
    assert_eq!(counts.len(), threads.len(), "{counts:?}");
    assert!(counts.values().all(|&n| n == 1), "exactly once: {counts:?}");
    let now = github
        .pull_request(
            &review_core::model::RepoId::parse("acme/widgets").unwrap(),
            1,
        )
        .unwrap();
    assert!(now.threads.iter().all(|t| t.is_resolved));
}

#[tokio::test(flavor = "multi_thread")]
async fn a_spent_rate_limit_stops_the_replies_instead_of_trying_each() {
    let (env, github) = setup().await;
    env.write(
        "replies.json",
        r#"[
          {"threadId": "A", "replyBody": "Not applying this — the cache is deliberate.", "resolve": true},
          {"threadId": "B", "replyBody": "Out of scope for this PR; tracked separately.", "resolve": true}
        ]"#,
    );
    github.inject(Fault::RateLimited {
        operation: Some("AddThreadReply".to_owned()),
        reset_in_secs: 3600,
        times: 10,
    });
    let out = respond(&env, &github);
    assert_eq!(out.code, 4, "{}", out.stderr);
    assert!(
        out.stdout
            .contains("stopped: GitHub refuses posts now; 1 more replies not tried"),
        "{}",
        out.stdout
    );
    assert_eq!(
        github.count("AddThreadReply"),
        1,
        "one refused request, not one per reply"
    );
    assert!(github.mutations().is_empty());
}

#[tokio::test(flavor = "multi_thread")]
async fn a_pending_review_of_the_viewer_stops_the_replies_before_any_post() {
    let (env, github) = setup().await;
    github.add_pending_review(
        &review_core::model::RepoId::parse("acme/widgets").unwrap(),
        1,
    );
    let out = respond(&env, &github);
    assert_eq!(out.code, 4, "{}\n{}", out.stdout, out.stderr);
    let said = format!("{}{}", out.stdout, out.stderr);
    assert!(said.contains("submit or discard the draft"), "{said}");
    assert_eq!(replies_posted(&github), 0);
    assert!(
        !github
            .mutations()
            .iter()
            .any(|m| matches!(m, Mutation::Resolve(..))),
        "nothing resolved either: {:?}",
        github.mutations()
    );
}

/// `review ARGS 1 --repo acme/widgets` in `env`'s clone; it must succeed.
fn step(env: &TestEnvironment, github: &FakeGitHub, args: &[&str]) -> crate::common::Output {
    let mut full = args.to_vec();
    full.extend(["1", "--repo", "acme/widgets"]);
    let out = crate::attack2_support::run(crate::attack2_support::review(
        env.dir(),
        env.dir(),
        github,
        &full,
    ));
    assert_eq!(out.code, 0, "{args:?}: {}\n{}", out.stdout, out.stderr);
    out
}

// A Copilot thread and a CodeQL one, both decided VALID and fixed by one round commit that is
// the pull request's head: Copilot reads no replies, so its thread is resolved without one;
// CodeQL resolves its own fixed threads, so its thread is left to it (the channels table).
#[tokio::test(flavor = "multi_thread")]
async fn settled_decisions_reach_each_bot_on_its_own_channel() {
    use crate::common::{commit, git_out};
    let env = TestEnvironment::new();
    let dir = env.dir();
    git(dir, &["init", "-q", "-b", "feature"]);
    std::fs::create_dir_all(dir.join("src")).unwrap();
    std::fs::write(dir.join("src/cache.rs"), "pub struct Cache;\n").unwrap();
    git(dir, &["add", "."]);
    commit(dir, "start");
    let start = git_out(dir, &["rev-parse", "HEAD"]);
    let github = FakeGitHub::start().await;
    github.set_viewer("dana");
    github.add_pull_request(
        PrBuilder::new()
            .with_pr(|p| p.head_sha.0.clone_from(&start))
            .thread(
                "COP",
                "src/cache.rs",
                1,
                &[(
                    bot("copilot-pull-request-reviewer"),
                    "The cache never evicts: bound it.",
                )],
            )
            .thread(
                "CQL",
                "src/cache.rs",
                1,
                &[(
                    bot("github-advanced-security"),
                    "## Uncontrolled data used in path expression\n\nThis path depends on a user-provided value.",
                )],
            )
            .build(),
    );
    github.set_checks(
        &crate::attack2_support::repo(),
        1,
        vec![review_test_support::github::FakeCheck::passed("ci")],
    );

    step(&env, &github, &["watch", "--once"]);
    let watch: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(crate::common::state_file(dir, "watch")).unwrap(),
    )
    .unwrap();
    let pending = watch["pending"].as_array().cloned().unwrap_or_default();
    assert_eq!(pending.len(), 2, "{watch}");
    std::fs::write(
        dir.join("answer.json"),
        r#"{"verdict": "VALID", "reasoning": "the cache now evicts its oldest entry when full",
            "evidence": ["src/cache.rs:1"], "fixSketch": "an LRU bound"}"#,
    )
    .unwrap();
    for p in &pending {
        let fp = p["fingerprint"].as_str().unwrap();
        step(
            &env,
            &github,
            &["decide", "--finding", fp, "--answer", "answer.json"],
        );
    }
    std::fs::write(
        dir.join("src/cache.rs"),
        "pub struct Cache { max: usize }\n",
    )
    .unwrap();
    step(&env, &github, &["commit-round", "--check-cmd", "true"]);
    let fixed = git_out(dir, &["rev-parse", "HEAD"]);
    crate::attack2_support::move_head(&github, &fixed);

    let out = step(&env, &github, &["respond", "--from-decisions"]);
    assert!(
        !github
            .mutations()
            .iter()
            .any(|m| matches!(m, Mutation::Reply(..))),
        "no reply to either bot: {:?}",
        github.mutations()
    );
    let resolved: Vec<ThreadId> = github
        .mutations()
        .into_iter()
        .filter_map(|m| match m {
            Mutation::Resolve(t) => Some(t),
            _ => None,
        })
        .collect();
    assert_eq!(resolved, [ThreadId::from("COP")], "{}", out.stdout);
    let said = format!("{}{}", out.stdout, out.stderr);
    assert!(said.contains("does not read replies"), "{said}");
    let decisions: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(crate::common::state_file(dir, "decisions")).unwrap(),
    )
    .unwrap();
    let settled: std::collections::BTreeMap<String, String> = decisions["seen"]
        .as_object()
        .unwrap()
        .values()
        .map(|d| {
            (
                d["threadId"].as_str().unwrap().to_owned(),
                d["settled"].as_str().unwrap_or("").to_owned(),
            )
        })
        .collect();
    assert_eq!(settled["COP"], "resolvedWithoutReply", "{decisions}");
    assert_eq!(settled["CQL"], "leftToBot", "{decisions}");
}
