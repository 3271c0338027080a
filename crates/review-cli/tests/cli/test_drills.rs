//! Fault drills: `review triage --apply`, `review respond --replies` and `review watch --once`
//! against a fake GitHub that fails on purpose (30% of requests answered 502, a secondary rate
//! limit with `retry-after`, the primary limit spent, one alias of a batch failing, answers cut
//! off mid-body). Each run ends as a run without faults does, or stops with a clear error (exit
//! 4) and then a run without faults finishes the job; no reply is ever posted twice, no
//! person's thread is touched, no commit takes the user's uncommitted file.
//!
//! A page slower than the client's timeout is drilled in review-github's `test_drills.rs`: the
//! CLI's timeout (30 s) cannot be shortened from outside. `docs/robustness.md` lists the drills.

use std::collections::{BTreeMap, BTreeSet};
use std::path::PathBuf;
use std::time::{Duration, Instant};

use review_test_support::github::{FakeGitHub, Fault};
use review_test_support::{PrBuilder, bot, person};

use crate::common::{Output, TestEnvironment, git};
use crate::drill_support::{
    GitEnd, assert_no_reply_twice, assert_state_files_whole, assert_user_work_untouched, git_end,
    outcomes, output_of, replies_per_thread, repository, resolved, review_in, touched, triage_pr,
};

/// Nitpicks in the drills' pull request: three resolve batches of 20.
const NITS: usize = 45;

/// The user's config file of the `respond` drills: a post whose answer was lost is looked for
/// for a second (60 s by default).
const SHORT_POST_CHECK: &str = "[github]\npost-check-seconds = 1\n";

/// A clone at the PR head and a fake GitHub holding the PR.
struct Triage {
    env: TestEnvironment,
    work: PathBuf,
    github: FakeGitHub,
    graphql: String,
}

impl Triage {
    async fn start(proxied: bool) -> Self {
        let env = TestEnvironment::new();
        let (head, work) = repository(&env);
        let github = FakeGitHub::start().await;
        github.add_pull_request(triage_pr(&head, NITS));
        let graphql = if proxied {
            github.proxied_graphql_url()
        } else {
            github.graphql_url()
        };
        Self {
            env,
            work,
            github,
            graphql,
        }
    }

    fn apply(&self) -> Output {
        let mut cmd = review_in(&self.work, self.env.dir(), &self.github, &self.graphql);
        cmd.args(["triage", "1", "--repo", "acme/widgets", "--apply", "--json"]);
        output_of(cmd)
    }

    /// What the run left: outcomes aside, GitHub's resolved threads and git's commits.
    fn end(&self) -> (BTreeSet<String>, GitEnd) {
        (resolved(&self.github), git_end(&self.work))
    }

    /// The checks every drill makes after every run.
    fn assert_safe(&self) {
        assert_no_reply_twice(&self.github);
        assert!(
            replies_per_thread(&self.github).is_empty(),
            "triage never replies"
        );
        assert!(
            !touched(&self.github).contains("HUMAN"),
            "the person's thread was touched"
        );
        assert_user_work_untouched(&self.work);
        assert_state_files_whole(&self.work);
    }
}

/// The outcomes and end state of `review triage --apply` without faults.
async fn clean_triage() -> (BTreeMap<String, String>, (BTreeSet<String>, GitEnd)) {
    let clean = Triage::start(false).await;
    let out = clean.apply();
    assert_eq!(out.code, 0, "{}", out.stderr);
    clean.assert_safe();
    (outcomes(&out.stdout), clean.end())
}

/// A faulted run either did what the clean run did, or deferred threads as GitHub errors, or
/// stopped with a clear error (exit 4); then, with GitHub well again, a rerun finishes the job
/// and the end state is the clean run's.
fn assert_converges(
    t: &Triage,
    out: &Output,
    clean: &(BTreeMap<String, String>, (BTreeSet<String>, GitEnd)),
) {
    t.assert_safe();
    match out.code {
        0 => {
            for (id, outcome) in outcomes(&out.stdout) {
                let expected = &clean.0[&id];
                assert!(
                    &outcome == expected || outcome.contains("host_error"),
                    "{id}: {outcome} vs {expected}\n{}",
                    out.stderr
                );
            }
        }
        4 => assert!(
            out.stderr.contains("error: ") && out.stderr.contains("hint: "),
            "{}",
            out.stderr
        ),
        other => panic!("exit {other}: {}", out.stderr),
    }
    t.github.clear_faults();
    let again = t.apply();
    assert_eq!(again.code, 0, "{}", again.stderr);
    t.assert_safe();
    assert_eq!(t.end(), clean.1, "the end state of an uninterrupted run");
}

fn failed_requests(github: &FakeGitHub) -> usize {
    github.requests().iter().filter(|r| r.status >= 500).count()
}

#[tokio::test(flavor = "multi_thread")]
async fn drill_triage_apply_with_30_percent_of_requests_failing_ends_as_a_clean_run() {
    let clean = clean_triage().await;
    let t = Triage::start(false).await;
    t.github.inject(Fault::Flaky {
        operation: None,
        status: 502,
        percent: 30,
        seed: 2,
        times: usize::MAX,
    });
    let out = t.apply();
    assert!(failed_requests(&t.github) >= 3, "the drill injected 502s");
    assert!(
        out.stderr.contains("GitHub answered HTTP 502; retrying in"),
        "{}",
        out.stderr
    );
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert_eq!(outcomes(&out.stdout), clean.0, "the same outcome");
    assert_converges(&t, &out, &clean);
}

#[tokio::test(flavor = "multi_thread")]
async fn drill_triage_apply_waits_out_a_secondary_limit_and_completes() {
    let clean = clean_triage().await;
    let t = Triage::start(false).await;
    t.github.inject(Fault::SecondaryLimit {
        operation: Some("ResolveThreads".to_owned()),
        status: 403,
        retry_after: Some(1),
        times: 1,
    });
    let started = Instant::now();
    let out = t.apply();
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(started.elapsed() >= Duration::from_secs(1), "it waited");
    assert!(
        out.stderr
            .contains("GitHub's secondary rate limit (HTTP 403); waiting 1 s as GitHub asks"),
        "{}",
        out.stderr
    );
    assert_eq!(outcomes(&out.stdout), clean.0);
    assert_eq!(t.end(), clean.1);
    t.assert_safe();
}

#[tokio::test(flavor = "multi_thread")]
async fn drill_triage_apply_with_the_rate_limit_spent_stops_with_exit_4_and_changes_nothing() {
    let t = Triage::start(false).await;
    t.github.inject(Fault::RateLimited {
        operation: None,
        reset_in_secs: 3600,
        times: 1_000,
    });
    let out = t.apply();
    assert_eq!(out.code, 4, "{}", out.stderr);
    assert!(
        out.stderr
            .contains("the GitHub rate limit is exhausted; it resets in"),
        "{}",
        out.stderr
    );
    assert!(
        out.stderr
            .contains("hint: wait for the reset, then run again; nothing was changed"),
        "{}",
        out.stderr
    );
    assert_eq!(t.github.requests().len(), 1, "no hammering");
    assert!(t.github.mutations().is_empty());
    assert!(git_end(&t.work).commits.is_empty(), "no commit");
    t.assert_safe();
}

#[tokio::test(flavor = "multi_thread")]
async fn drill_triage_apply_rate_limited_at_the_resolves_keeps_the_fix_and_exits_4() {
    let clean = clean_triage().await;
    let t = Triage::start(false).await;
    t.github.inject(Fault::RateLimited {
        operation: Some("ResolveThreads".to_owned()),
        reset_in_secs: 3600,
        times: 1_000,
    });
    let out = t.apply();
    // The fix commit is local and justified; no thread was resolved; the run says so.
    assert_eq!(out.code, 4, "{}", out.stderr);
    assert!(
        out.stderr.contains("could not be resolved on GitHub"),
        "{}",
        out.stderr
    );
    let report = outcomes(&out.stdout);
    for n in 0..NITS {
        assert_eq!(report[&format!("NIT{n}")], "\"deferred\" \"host_error\"");
    }
    assert!(out.stdout.contains("the GitHub rate limit is exhausted"));
    assert_eq!(t.github.count("ResolveThreads"), 1, "stopped at the first");
    assert!(t.github.mutations().is_empty());
    assert_eq!(git_end(&t.work).commits, clean.1.1.commits);
    assert_converges(&t, &out, &clean);
}

#[tokio::test(flavor = "multi_thread")]
async fn drill_triage_apply_with_one_alias_failing_defers_that_thread_then_resolves_it() {
    let clean = clean_triage().await;
    let t = Triage::start(false).await;
    t.github.inject(Fault::AliasError {
        alias: "r1".to_owned(),
        times: 1,
    });
    let out = t.apply();
    assert_eq!(out.code, 4, "a resolve failed: {}", out.stderr);
    assert!(
        out.stderr
            .contains("1 thread could not be resolved on GitHub"),
        "{}",
        out.stderr
    );
    let report = outcomes(&out.stdout);
    let failed: Vec<&String> = report
        .iter()
        .filter(|(_, o)| o.contains("host_error"))
        .map(|(id, _)| id)
        .collect();
    assert_eq!(failed.len(), 1, "only that alias's thread: {report:?}");
    assert_eq!(
        resolved(&t.github).len(),
        NITS - 1,
        "the rest of its batch landed"
    );
    assert_converges(&t, &out, &clean);
}

#[tokio::test(flavor = "multi_thread")]
async fn drill_triage_apply_with_answers_cut_off_mid_body_ends_as_a_clean_run() {
    let clean = clean_triage().await;
    let t = Triage::start(true).await;
    for operation in ["PullRequestFirstPage", "ResolveThreads"] {
        t.github.inject(Fault::CutOff {
            operation: Some(operation.to_owned()),
            times: 1,
        });
    }
    let out = t.apply();
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(
        out.stderr.contains("the answer was cut off") || out.stderr.contains("connection failed"),
        "{}",
        out.stderr
    );
    assert_eq!(outcomes(&out.stdout), clean.0);
    assert_eq!(t.end(), clean.1);
    t.assert_safe();
}

/// Regression: the person's "no, keep the unwrap" in `HUMAN` came back `null` beside a
/// `NOT_FOUND` error and was dropped; the thread then read as CodeRabbit's alone, fully read,
/// and `--apply` acted on it. It is deferred as partly read, and nothing touches it.
#[tokio::test(flavor = "multi_thread")]
async fn drill_triage_apply_leaves_a_thread_whose_persons_reply_came_back_null() {
    let t = Triage::start(false).await;
    // `PRRC_3` is mei's reply in `HUMAN` (after FIX's and HUMAN's first comment), null in
    // every answer that holds it.
    t.github.inject(Fault::NullNode {
        id: "PRRC_3".to_owned(),
        times: usize::MAX,
    });
    let out = t.apply();
    assert_eq!(out.code, 0, "{}", out.stderr);
    t.assert_safe();
    let report: serde_json::Value = serde_json::from_str(&out.stdout).unwrap();
    let human = report["threads"]
        .as_array()
        .unwrap()
        .iter()
        .find(|th| th["id"] == "HUMAN")
        .unwrap();
    assert_eq!(human["outcome"], "deferred", "{human}");
    assert_eq!(human["deferred_because"], "incomplete", "{human}");
    assert!(
        !resolved(&t.github).contains("HUMAN"),
        "the person's thread was resolved"
    );
    assert!(
        resolved(&t.github).contains("NIT0"),
        "the rest of the run went on"
    );
}

/// A review or a top-level comment that comes back null is not a thread that can be left
/// alone: the read fails, and nothing is changed.
#[tokio::test(flavor = "multi_thread")]
async fn drill_triage_apply_with_a_review_that_comes_back_null_stops_and_changes_nothing() {
    let t = Triage::start(false).await;
    t.github
        .update_pull_request(&crate::drill_support::repo(), 1, |pr| {
            pr.reviews.push(review_core::model::Review {
                id: review_core::model::ReviewId("PRR_mei".to_owned()),
                author: Some(person("mei")),
                state: review_core::model::ReviewState::ChangesRequested,
                body: "Please do not merge this yet.".to_owned(),
                submitted_at: None,
                commit: None,
            });
        });
    t.github.inject(Fault::NullNode {
        id: "PRR_mei".to_owned(),
        times: usize::MAX,
    });
    let before = git_end(&t.work);
    let out = t.apply();
    assert_eq!(out.code, 4, "{}", out.stderr);
    assert!(
        out.stderr
            .contains("error: GitHub left part of pull request acme/widgets#1 out of its answer")
            && out.stderr.contains("NOT_FOUND")
            && out.stderr.contains("hint: run again; nothing was changed"),
        "{}",
        out.stderr
    );
    assert!(t.github.mutations().is_empty());
    assert_eq!(git_end(&t.work), before, "no commit");
    t.assert_safe();
}

// `review respond --replies`.

const REPLIES: &str = r#"[
  {"threadId": "A", "replyBody": "Not applying this — the cache is deliberate.", "resolve": true},
  {"threadId": "B", "replyBody": "Out of scope for this PR; tracked separately.", "resolve": false},
  {"threadId": "C", "replyBody": "Not applying this — the name is the crate's convention.", "resolve": true},
  {"threadId": "HUM", "replyBody": "ok", "resolve": true}
]"#;

struct Respond {
    env: TestEnvironment,
    github: FakeGitHub,
    graphql: String,
}

impl Respond {
    async fn start(proxied: bool) -> Self {
        let env = TestEnvironment::new();
        git(env.dir(), &["init", "-q", "-b", "feature"]);
        let github = FakeGitHub::start().await;
        github.add_pull_request(
            PrBuilder::new()
                .thread("A", "src/lib.rs", 3, &[(bot("coderabbitai"), "x")])
                .thread("B", "src/lib.rs", 5, &[(bot("cursor"), "y")])
                .thread("C", "src/lib.rs", 7, &[(bot("gemini-code-assist"), "z")])
                .thread(
                    "HUM",
                    "src/lib.rs",
                    9,
                    &[(bot("coderabbitai"), "x"), (person("mei"), "no")],
                )
                .build(),
        );
        env.write("replies.json", REPLIES);
        // A post whose answer was lost is looked for 1 s, not 60.
        env.write_user_config(SHORT_POST_CHECK);
        let graphql = if proxied {
            github.proxied_graphql_url()
        } else {
            github.graphql_url()
        };
        Self {
            env,
            github,
            graphql,
        }
    }

    fn respond(&self) -> Output {
        let mut cmd = review_in(self.env.dir(), self.env.dir(), &self.github, &self.graphql);
        cmd.args([
            "respond",
            "1",
            "--repo",
            "acme/widgets",
            "--replies",
            "replies.json",
        ]);
        output_of(cmd)
    }

    fn assert_safe(&self) {
        assert_no_reply_twice(&self.github);
        assert!(!touched(&self.github).contains("HUM"));
        assert_state_files_whole(self.env.dir());
    }

    /// A run that stopped with a clear error, then one without faults: the end state of a
    /// clean run, each reply exactly once.
    fn assert_converges(&self, out: &Output) {
        self.assert_safe();
        match out.code {
            0 => {}
            4 => assert!(
                out.stderr.contains("error: ")
                    && out.stderr.contains(
                        "hint: run the same command again: what was posted is not posted twice"
                    ),
                "{}",
                out.stderr
            ),
            other => panic!("exit {other}: {}", out.stderr),
        }
        self.github.clear_faults();
        let again = self.respond();
        assert_eq!(again.code, 0, "{}\n{}", again.stdout, again.stderr);
        self.assert_done();
    }

    /// What a clean run leaves.
    fn assert_done(&self) {
        self.assert_safe();
        let expected: BTreeMap<String, usize> = [("A", 1), ("B", 1), ("C", 1)]
            .map(|(t, n)| (t.to_owned(), n))
            .into();
        assert_eq!(replies_per_thread(&self.github), expected);
        assert_eq!(
            resolved(&self.github),
            ["A", "C"].map(str::to_owned).into(),
            "B asked not to be resolved"
        );
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn drill_respond_with_30_percent_of_requests_failing_posts_each_reply_once() {
    let r = Respond::start(false).await;
    r.github.inject(Fault::Flaky {
        operation: None,
        status: 502,
        percent: 30,
        seed: 7,
        times: usize::MAX,
    });
    let out = r.respond();
    assert!(failed_requests(&r.github) >= 2, "the drill injected 502s");
    if out.code == 4 {
        // A reply whose post and second try both failed: said plainly, not guessed at.
        assert!(out.stdout.contains("failed   "), "{}", out.stdout);
    }
    r.assert_converges(&out);
}

#[tokio::test(flavor = "multi_thread")]
async fn drill_respond_with_a_reply_applied_behind_a_502_posts_it_once() {
    let r = Respond::start(false).await;
    // GitHub posts the reply, then its front end answers 502.
    r.github.inject(Fault::ApplyThenFail {
        operation: Some("AddThreadReply".to_owned()),
        status: 502,
        times: 1,
    });
    let out = r.respond();
    assert_eq!(out.code, 0, "{}\n{}", out.stdout, out.stderr);
    r.assert_done();
}

#[tokio::test(flavor = "multi_thread")]
async fn drill_respond_waits_out_a_secondary_limit_and_completes() {
    let r = Respond::start(false).await;
    r.github.inject(Fault::SecondaryLimit {
        operation: Some("AddThreadReply".to_owned()),
        status: 429,
        retry_after: Some(1),
        times: 1,
    });
    let out = r.respond();
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(
        out.stderr
            .contains("GitHub's secondary rate limit (HTTP 429); waiting 1 s as GitHub asks"),
        "{}",
        out.stderr
    );
    r.assert_done();
}

#[tokio::test(flavor = "multi_thread")]
async fn drill_respond_with_the_rate_limit_spent_stops_with_exit_4_and_posts_nothing() {
    let r = Respond::start(false).await;
    r.github.inject(Fault::RateLimited {
        operation: Some("AddThreadReply".to_owned()),
        reset_in_secs: 3600,
        times: 1_000,
    });
    let out = r.respond();
    assert_eq!(out.code, 4, "{}", out.stderr);
    assert!(
        out.stdout
            .contains("the GitHub rate limit is exhausted; it resets in"),
        "{}",
        out.stdout
    );
    assert!(
        r.github.mutations().is_empty(),
        "no reply, and no resolve without its reply"
    );
    assert!(
        r.github.count("AddThreadReply") <= 3,
        "one try per reply at most"
    );
    r.assert_converges(&out);
}

#[tokio::test(flavor = "multi_thread")]
async fn drill_respond_with_one_resolve_of_the_batch_failing_exits_4_then_finishes() {
    let r = Respond::start(false).await;
    r.github.inject(Fault::AliasError {
        alias: "r0".to_owned(),
        times: 1,
    });
    let out = r.respond();
    assert_eq!(out.code, 4, "{}", out.stderr);
    assert!(
        out.stdout.contains("failed   A: resolving"),
        "{}",
        out.stdout
    );
    assert!(out.stdout.contains("resolved C"), "{}", out.stdout);
    r.assert_converges(&out);
}

#[tokio::test(flavor = "multi_thread")]
async fn drill_respond_with_a_reply_cut_off_mid_body_posts_it_once() {
    let r = Respond::start(true).await;
    r.github.inject(Fault::CutOff {
        operation: Some("AddThreadReply".to_owned()),
        times: 1,
    });
    let out = r.respond();
    assert_eq!(out.code, 0, "{}\n{}", out.stdout, out.stderr);
    assert_eq!(
        r.github.count("AddThreadReply"),
        3,
        "the cut reply was found, not sent again"
    );
    r.assert_done();
}

#[tokio::test(flavor = "multi_thread")]
async fn drill_respond_with_a_json_answer_that_stops_short_posts_it_once() {
    // Without the proxy: the stand-in for a dropped connection, a body cut in half.
    let r = Respond::start(false).await;
    for operation in ["PullRequestFirstPage", "AddThreadReply"] {
        r.github.inject(Fault::CutOff {
            operation: Some(operation.to_owned()),
            times: 1,
        });
    }
    let out = r.respond();
    assert_eq!(out.code, 0, "{}\n{}", out.stdout, out.stderr);
    assert_eq!(r.github.count("AddThreadReply"), 3);
    r.assert_done();
}

/// A reply whose post got a 502 and that never shows up: looked for (1 s here, 60 s by
/// default), not sent again, reported "may have been posted; run again" with exit 4, its thread
/// not resolved; the rerun finds it absent and posts it, once.
#[tokio::test(flavor = "multi_thread")]
async fn drill_respond_with_a_reply_that_never_shows_up_says_it_may_have_been_posted() {
    let r = Respond::start(false).await;
    r.github.inject(Fault::ServerError {
        operation: Some("AddThreadReply".to_owned()),
        status: 502,
        times: 1,
    });
    let started = Instant::now();
    let out = r.respond();
    assert!(started.elapsed() >= Duration::from_secs(1), "looked for it");
    assert_eq!(out.code, 4, "{}\n{}", out.stdout, out.stderr);
    assert!(
        out.stdout.contains(
            "failed   A: the review host failed: the reply may have been posted (GitHub answered HTTP 502)"
        ) && out.stdout.contains("it is not sent again; run again to check"),
        "{}",
        out.stdout
    );
    assert!(
        !resolved(&r.github).contains("A"),
        "not resolved without its reply"
    );
    assert_eq!(
        r.github.count("AddThreadReply"),
        3,
        "one request per reply, none again"
    );
    r.assert_converges(&out);
}

/// `review reply` maps the same outcome to exit 4, with a hint to run it again.
#[tokio::test(flavor = "multi_thread")]
async fn drill_reply_that_never_shows_up_exits_4_and_the_rerun_posts_it_once() {
    let r = Respond::start(false).await;
    r.github.inject(Fault::ServerError {
        operation: Some("AddThreadReply".to_owned()),
        status: 503,
        times: 1,
    });
    let reply = || {
        let mut cmd = review_in(r.env.dir(), r.env.dir(), &r.github, &r.graphql);
        cmd.args([
            "reply",
            "B",
            "--pr",
            "1",
            "--repo",
            "acme/widgets",
            "--body",
            "Out of scope for this PR.",
        ]);
        output_of(cmd)
    };
    let out = reply();
    assert_eq!(out.code, 4, "{}", out.stderr);
    assert!(
        out.stderr
            .contains("the reply may have been posted (GitHub answered HTTP 503)")
            && out
                .stderr
                .contains("hint: run the same command again: it looks for this reply first"),
        "{}",
        out.stderr
    );
    let again = reply();
    assert_eq!(again.code, 0, "{}", again.stderr);
    assert_eq!(replies_per_thread(&r.github).get("B"), Some(&1));
    let again = reply();
    assert_eq!(again.code, 0, "{}", again.stderr);
    assert!(again.stderr.contains("already posted"), "{}", again.stderr);
    assert_no_reply_twice(&r.github);
}

// `review watch --once`.

/// The events of one `review watch --once` on a fresh clone, with `fault` injected first.
async fn watch_once(fault: Option<Fault>) -> (Output, FakeGitHub, TestEnvironment) {
    let env = TestEnvironment::new();
    git(env.dir(), &["init", "-q", "-b", "feature"]);
    let github = FakeGitHub::start().await;
    github.add_pull_request(
        PrBuilder::new()
            .thread(
                "A",
                "src/cache.rs",
                3,
                &[(
                    bot("coderabbitai"),
                    "**Unbounded cache growth.** The cache never evicts entries.",
                )],
            )
            .thread(
                "H",
                "src/cache.rs",
                9,
                &[(person("mei"), "why a cache at all?")],
            )
            .build(),
    );
    if let Some(fault) = fault {
        github.inject(fault);
    }
    let mut cmd = review_in(env.dir(), env.dir(), &github, &github.graphql_url());
    cmd.args(["watch", "1", "--repo", "acme/widgets", "--once"]);
    let out = output_of(cmd);
    (out, github, env)
}

/// The event kinds and items a watch printed.
fn events(out: &Output) -> Vec<(String, Vec<String>)> {
    out.stdout
        .lines()
        .map(|l| {
            let v: serde_json::Value = serde_json::from_str(l).unwrap();
            let items = v["items"]
                .as_array()
                .unwrap()
                .iter()
                .map(|i| i.as_str().unwrap().to_owned())
                .collect();
            (v["event"].as_str().unwrap().to_owned(), items)
        })
        .collect()
}

#[tokio::test(flavor = "multi_thread")]
async fn drill_watch_once_with_30_percent_of_requests_failing_sees_what_a_clean_poll_sees() {
    let (clean, _, _) = watch_once(None).await;
    assert_eq!(clean.code, 0, "{}", clean.stderr);
    let expected = events(&clean);
    assert!(!expected.is_empty());

    let (out, github, env) = watch_once(Some(Fault::Flaky {
        operation: None,
        status: 502,
        percent: 30,
        seed: 9,
        times: usize::MAX,
    }))
    .await;
    let failed =
        failed_requests(&github) + github.rest_log().iter().filter(|r| r.status >= 500).count();
    assert!(failed >= 3, "the drill injected 502s");
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert_eq!(events(&out), expected, "{}", out.stderr);
    assert!(
        github.mutations().is_empty(),
        "watch writes nothing to GitHub"
    );
    assert_state_files_whole(env.dir());
}

#[tokio::test(flavor = "multi_thread")]
async fn drill_watch_once_with_the_rate_limit_spent_stops_with_exit_4_and_keeps_no_state() {
    let (out, github, env) = watch_once(Some(Fault::RateLimited {
        operation: None,
        reset_in_secs: 3600,
        times: 1_000,
    }))
    .await;
    assert_eq!(out.code, 4, "{}", out.stderr);
    assert!(out.stderr.contains("rate limit"), "{}", out.stderr);
    assert!(out.stdout.is_empty(), "no event announced: {}", out.stdout);
    assert!(github.mutations().is_empty());
    let files = assert_state_files_whole(env.dir());
    assert!(
        !files.iter().any(|f| f.ends_with("watch.json")),
        "no state saved from a failed poll: {files:?}"
    );
}
