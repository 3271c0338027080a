//! `review status` against the fake GitHub: the verdict, its reasons and exit code, each bot's
//! standing, `--ignore-check`, `--wait` and hostile text in what it prints.

use review_core::model::{CommitId, Review, ReviewId, ReviewState};
use review_test_support::github::{FakeCheck, FakeGitHub};
use review_test_support::{HEAD_SHA, PrBuilder, bot, person};
use serde_json::Value;

use crate::common::{Output, TestEnvironment};

const CRITICAL: &str = "_⚠️ Potential issue_ | _🔴 Critical_\n\n**Off by one drops the last item.**\n\n```suggestion\nfor i in 0..=n {\n```";

fn coderabbit_review_of_head() -> Review {
    Review {
        id: ReviewId("R1".to_owned()),
        author: Some(bot("coderabbitai")),
        state: ReviewState::Commented,
        body: String::new(),
        submitted_at: Some("2026-01-05T10:00:00Z".to_owned()),
        commit: Some(CommitId(HEAD_SHA.to_owned())),
    }
}

async fn github_with(pr: review_core::model::PullRequest, checks: Vec<FakeCheck>) -> FakeGitHub {
    let github = FakeGitHub::start().await;
    github.set_viewer("dana");
    let repo = pr.repo.clone();
    github.add_pull_request(pr);
    github.set_checks(&repo, 1, checks);
    github
}

fn status(env: &TestEnvironment, github: &FakeGitHub, extra: &[&str]) -> Output {
    let graphql = github.graphql_url();
    let rest = github.rest_url();
    let mut args = vec!["status", "1", "--repo", "acme/widgets"];
    args.extend(extra);
    env.run_with(
        &args,
        &[
            ("GITHUB_GRAPHQL_URL", graphql.as_str()),
            ("GITHUB_API_URL", rest.as_str()),
        ],
    )
}

/// The JSON printed, checked against `review schema status`.
fn json(out: &Output) -> Value {
    let v: Value =
        serde_json::from_str(&out.stdout).unwrap_or_else(|e| panic!("{e}: {}", out.stdout));
    let schema = TestEnvironment::new().run(&["schema", "status"]);
    assert_eq!(schema.code, 0, "{}", schema.stderr);
    let schema: Value = serde_json::from_str(&schema.stdout).unwrap();
    let validator = jsonschema::validator_for(&schema).unwrap();
    let errors: Vec<String> = validator.iter_errors(&v).map(|e| e.to_string()).collect();
    assert!(errors.is_empty(), "{errors:?}\n{v}");
    v
}

#[tokio::test(flavor = "multi_thread")]
async fn a_finding_to_fix_is_action_required_with_exit_8_and_the_bot_caught_up() {
    let env = TestEnvironment::new();
    let github = github_with(
        PrBuilder::new()
            .thread("T1", "src/lib.rs", 3, &[(bot("coderabbitai"), CRITICAL)])
            .with_pr(|pr| pr.reviews.push(coderabbit_review_of_head()))
            .build(),
        vec![FakeCheck::passed("ci")],
    )
    .await;
    let out = status(&env, &github, &["--json", "--expect-bot", "coderabbitai"]);
    assert_eq!(out.code, 8, "{}", out.stderr);
    let v = json(&out);
    assert_eq!(v["schemaVersion"], 1);
    assert_eq!(v["pr"], "acme/widgets#1");
    assert_eq!(v["verdict"], "ACTION_REQUIRED");
    assert_eq!(v["reasons"][0]["kind"], "actionable");
    assert_eq!(v["reasons"][0]["thread"], "T1");
    assert_eq!(v["reasons"].as_array().unwrap().len(), 1, "{v}");
    assert_eq!(v["bots"][0]["bot"], "coderabbit");
    assert_eq!(v["bots"][0]["expected"], true);
    assert_eq!(v["bots"][0]["state"], "reviewed_head");

    let out = status(&env, &github, &["--expect-bot", "coderabbitai"]);
    assert_eq!(out.code, 8);
    assert!(
        out.stdout.starts_with("acme/widgets#1 at "),
        "{}",
        out.stdout
    );
    assert!(out.stdout.contains(": ACTION_REQUIRED\n"), "{}", out.stdout);
    assert!(
        out.stdout.contains("a bot finding to fix at src/lib.rs:3"),
        "{}",
        out.stdout
    );
    assert!(
        out.stdout
            .contains("coderabbit (expected): reviewed the head"),
        "{}",
        out.stdout
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn a_draft_with_a_failing_check_is_blocked_and_names_the_check() {
    let env = TestEnvironment::new();
    let github = github_with(
        PrBuilder::new().with_pr(|pr| pr.draft = true).build(),
        vec![FakeCheck::passed("build"), FakeCheck::failed("lint")],
    )
    .await;
    let out = status(&env, &github, &["--json"]);
    assert_eq!(out.code, 11, "{}", out.stderr);
    let v = json(&out);
    assert_eq!(v["verdict"], "BLOCKED");
    let kinds: Vec<&str> = v["reasons"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["kind"].as_str().unwrap())
        .collect();
    assert_eq!(kinds, ["draft", "checks_failing"]);
    assert_eq!(v["reasons"][1]["checks"], serde_json::json!(["lint"]));
}

#[tokio::test(flavor = "multi_thread")]
async fn failing_checks_are_ci_failing_until_ignored_by_name() {
    let env = TestEnvironment::new();
    let github = github_with(
        PrBuilder::new().build(),
        vec![FakeCheck::passed("build"), FakeCheck::failed("flaky-e2e")],
    )
    .await;
    assert_eq!(status(&env, &github, &[]).code, 10);
    let out = status(&env, &github, &["--json", "--ignore-check", "flaky-e2e"]);
    assert_eq!(out.code, 0, "{}", out.stdout);
    let v = json(&out);
    assert_eq!(v["verdict"], "READY");
    assert_eq!(v["notes"][0]["kind"], "check_ignored");
    // A name must match exactly: a prefix ignores nothing.
    assert_eq!(status(&env, &github, &["--ignore-check", "flaky"]).code, 10);
}

#[tokio::test(flavor = "multi_thread")]
async fn an_expected_bot_not_seen_is_waiting_and_a_wait_that_runs_out_says_so() {
    let env = TestEnvironment::new();
    let github = github_with(PrBuilder::new().build(), vec![FakeCheck::passed("ci")]).await;
    let out = status(
        &env,
        &github,
        &["--json", "--expect-bot", "gemini-code-assist[bot]"],
    );
    assert_eq!(out.code, 9, "{}", out.stderr);
    let v = json(&out);
    assert_eq!(v["verdict"], "WAITING");
    assert_eq!(v["reasons"][0]["kind"], "bot_waiting");
    assert_eq!(v["reasons"][0]["bot"], "gemini");
    assert_eq!(v["reasons"][0]["state"], "never_seen");

    let out = status(
        &env,
        &github,
        &[
            "--json",
            "--expect-bot",
            "gemini",
            "--wait",
            "--timeout",
            "0",
        ],
    );
    assert_eq!(out.code, 9, "{}", out.stderr);
    assert_eq!(json(&out)["timedOut"], true);
    assert!(out.stderr.contains("still WAITING"), "{}", out.stderr);
}

#[tokio::test(flavor = "multi_thread")]
async fn a_quiet_pull_request_is_ready_and_a_persons_question_is_not() {
    let env = TestEnvironment::new();
    let github = github_with(PrBuilder::new().build(), vec![FakeCheck::passed("ci")]).await;
    let out = status(&env, &github, &[]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(out.stdout.contains(": READY\n"), "{}", out.stdout);

    let asked = github_with(
        PrBuilder::new()
            .thread(
                "T1",
                "src/lib.rs",
                3,
                &[(person("erin"), "why a vec here?")],
            )
            .build(),
        vec![FakeCheck::passed("ci")],
    )
    .await;
    let out = status(&env, &asked, &["--json"]);
    assert_eq!(out.code, 8);
    assert_eq!(json(&out)["reasons"][0]["kind"], "person_waiting");
    assert_eq!(json(&out)["reasons"][0]["author"], "erin");
}

#[tokio::test(flavor = "multi_thread")]
async fn text_from_the_pull_request_is_shown_escaped() {
    let env = TestEnvironment::new();
    let github = github_with(
        PrBuilder::new()
            .thread(
                "T1",
                "src/\u{1b}[2Jevil\u{202e}.rs",
                3,
                &[(bot("coderabbitai"), CRITICAL)],
            )
            .build(),
        vec![FakeCheck::passed("ci")],
    )
    .await;
    let out = status(&env, &github, &[]);
    assert_eq!(out.code, 8, "{}", out.stderr);
    assert!(!out.stdout.contains('\u{1b}'), "{:?}", out.stdout);
    assert!(!out.stdout.contains('\u{202e}'), "{:?}", out.stdout);
}

#[test]
fn bad_flags_are_usage_errors() {
    let env = TestEnvironment::new();
    let out = env.run(&[
        "status",
        "1",
        "--repo",
        "acme/widgets",
        "--ignore-check",
        " ",
    ]);
    assert_eq!(out.code, 2, "{}", out.stderr);
    assert!(
        out.stderr.contains("--ignore-check cannot be empty"),
        "{}",
        out.stderr
    );
    let out = env.run(&["status", "1", "--repo", "acme/widgets", "--timeout", "5"]);
    assert_eq!(out.code, 2, "--timeout needs --wait: {}", out.stderr);
}

#[tokio::test(flavor = "multi_thread")]
async fn a_published_verdict_is_the_heads_commit_status_and_never_read_back_as_a_check() {
    let env = TestEnvironment::new();
    let github = github_with(
        PrBuilder::new()
            .thread("T1", "src/lib.rs", 3, &[(bot("coderabbitai"), CRITICAL)])
            .build(),
        vec![FakeCheck::passed("ci")],
    )
    .await;
    let out = status(&env, &github, &["--publish"]);
    assert_eq!(out.code, 8, "{}", out.stderr);
    assert!(
        out.stderr.contains("set review/status to failure"),
        "{}",
        out.stderr
    );
    let posted = github.posted_statuses();
    assert_eq!(posted.len(), 1);
    assert_eq!(posted[0]["state"], "failure");
    assert_eq!(posted[0]["context"], "review/status");
    let description = posted[0]["description"].as_str().unwrap();
    assert!(
        description.starts_with("ACTION_REQUIRED: a bot finding to fix at src/lib.rs:3"),
        "{description}"
    );
    assert!(description.chars().count() <= 140);

    // The failing status it set is the tool's own: the next verdict is still about the finding,
    // not CI_FAILING, and `watch` does not see red checks either.
    let out = status(&env, &github, &["--json"]);
    assert_eq!(out.code, 8, "{}", out.stdout);
    assert_eq!(json(&out)["verdict"], "ACTION_REQUIRED");

    // Once ready, the same context passes.
    let ready = github_with(PrBuilder::new().build(), vec![FakeCheck::passed("ci")]).await;
    assert_eq!(status(&env, &ready, &["--publish"]).code, 0);
    assert_eq!(ready.posted_statuses()[0]["state"], "success");
    assert_eq!(ready.posted_statuses()[0]["description"], "READY");
}

#[tokio::test(flavor = "multi_thread")]
async fn a_token_that_may_not_write_statuses_prints_the_verdict_then_says_what_token_is_needed() {
    let env = TestEnvironment::new();
    let github = github_with(PrBuilder::new().build(), vec![FakeCheck::passed("ci")]).await;
    github.read_only_token("test-token");
    let out = status(&env, &github, &["--publish"]);
    assert_eq!(out.code, 4, "{}", out.stderr);
    assert!(
        out.stdout.contains(": READY"),
        "the verdict is printed first: {}",
        out.stdout
    );
    assert!(
        out.stderr
            .contains("cannot set the commit status review/status"),
        "{}",
        out.stderr
    );
    assert!(
        out.stderr.contains("Commit statuses: write"),
        "{}",
        out.stderr
    );
    assert!(github.posted_statuses().is_empty());
}

#[tokio::test(flavor = "multi_thread")]
async fn a_finding_on_a_deny_listed_path_is_a_persons_to_decide() {
    let env = TestEnvironment::new();
    let github = github_with(
        PrBuilder::new()
            .thread(
                "T1",
                "migrations/001.sql",
                3,
                &[(bot("coderabbitai"), CRITICAL)],
            )
            .build(),
        vec![FakeCheck::passed("ci")],
    )
    .await;
    let out = status(&env, &github, &["--json"]);
    assert_eq!(
        json(&out)["reasons"][0]["kind"],
        "actionable",
        "{}",
        out.stdout
    );
    let out = status(&env, &github, &["--json", "--deny-path", "migrations/"]);
    assert_eq!(out.code, 8);
    assert_eq!(
        json(&out)["reasons"][0]["kind"],
        "escalated",
        "{}",
        out.stdout
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn a_bot_that_posts_only_a_check_has_reviewed_the_head_once_it_finished() {
    let env = TestEnvironment::new();
    let github = github_with(
        PrBuilder::new().build(),
        vec![FakeCheck::passed("ci"), FakeCheck::passed("Cursor Bugbot")],
    )
    .await;
    let out = status(&env, &github, &["--json", "--expect-bot", "cursor[bot]"]);
    assert_eq!(out.code, 0, "{}", out.stdout);
    let v = json(&out);
    let cursor = v["bots"]
        .as_array()
        .unwrap()
        .iter()
        .find(|b| b["bot"] == "cursor")
        .cloned()
        .unwrap_or_default();
    assert_eq!(cursor["state"], "reviewed_head", "{v}");
    assert_eq!(cursor["expected"], true, "{v}");

    let running = github_with(
        PrBuilder::new().build(),
        vec![
            FakeCheck::passed("ci"),
            FakeCheck::running("Greptile Review"),
        ],
    )
    .await;
    let out = status(
        &env,
        &running,
        &["--json", "--expect-bot", "greptile-apps[bot]"],
    );
    assert_eq!(out.code, 9, "{}", out.stdout);
    let v = json(&out);
    let kinds: Vec<&str> = v["reasons"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["kind"].as_str().unwrap())
        .collect();
    assert!(kinds.contains(&"bot_waiting"), "{v}");
    assert!(
        v["bots"]
            .as_array()
            .unwrap()
            .iter()
            .any(|b| b["bot"] == "greptile" && b["state"] == "reviewing"),
        "{v}"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn a_quota_notice_is_spent_not_reviewed_and_is_not_waited_for() {
    let env = TestEnvironment::new();
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| i64::try_from(d.as_secs()).unwrap())
        .unwrap();
    let with_notice = |posted: i64| {
        let notice = "> [!WARNING]\n> ## Rate limit exceeded\n>\n> Please wait **12 minutes and 30 seconds** before requesting another review.";
        PrBuilder::new()
            .with_pr(|pr| {
                pr.comments.push(review_core::model::IssueComment {
                    id: review_core::model::CommentId("IC_quota".to_owned()),
                    author: Some(bot("coderabbitai")),
                    body: notice.to_owned(),
                    created_at: review_core::time::format_utc(posted),
                    url: String::new(),
                });
            })
            .build()
    };
    // A minute old: spent for another 11 min 30 s.
    let github = github_with(with_notice(now - 60), vec![FakeCheck::passed("ci")]).await;
    let out = status(&env, &github, &["--json", "--expect-bot", "coderabbitai"]);
    assert_eq!(out.code, 0, "a spent bot is not waited for: {}", out.stdout);
    let v = json(&out);
    assert_eq!(v["bots"][0]["bot"], "coderabbit", "{v}");
    assert_eq!(v["bots"][0]["state"], "quota_spent", "{v}");
    assert_eq!(
        v["bots"][0]["until"],
        review_core::time::format_utc(now - 60 + 750),
        "{v}"
    );
    assert_eq!(v["notes"][0]["kind"], "bot_unavailable", "{v}");

    // An hour old: the wait is over, and the bot that has not reviewed the head is waited for.
    let github = github_with(with_notice(now - 3_600), vec![FakeCheck::passed("ci")]).await;
    let out = status(&env, &github, &["--json", "--expect-bot", "coderabbitai"]);
    assert_eq!(out.code, 9, "waiting for the bot again: {}", out.stdout);
    let v = json(&out);
    assert_ne!(v["bots"][0]["state"], "quota_spent", "{v}");
}

/// A finding the review loop escalated (its decisions file in this clone) is a person's to
/// decide, although the triage's plan alone would call it a nit to resolve.
#[tokio::test(flavor = "multi_thread")]
async fn a_finding_the_loop_escalated_requires_action() {
    let env = TestEnvironment::new();
    crate::common::git(env.dir(), &["init", "-q"]);
    let github = github_with(
        PrBuilder::new()
            .thread(
                "NIT",
                "src/lib.rs",
                3,
                &[(
                    bot("coderabbitai"),
                    "_🧹 Nitpick_\n\n**Prefer `let else`.**",
                )],
            )
            .build(),
        vec![FakeCheck::passed("ci")],
    )
    .await;
    let decisions = review_core::decisions::Decisions {
        escalated: vec![review_core::decisions::Escalation {
            fingerprint: "fp".to_owned(),
            thread_id: "NIT".into(),
            reason: "the judge gave no evidence".to_owned(),
            escalated_in_round: 1,
        }],
        ..review_core::decisions::Decisions::default()
    };
    let path = crate::common::state_file(env.dir(), "decisions");
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(&path, serde_json::to_string(&decisions).unwrap()).unwrap();
    let out = status(&env, &github, &["--json"]);
    assert_eq!(out.code, 8, "{}\n{}", out.stdout, out.stderr);
    let v = json(&out);
    let reason = &v["reasons"][0];
    assert_eq!(reason["kind"], "escalated", "{v}");
    assert_eq!(reason["thread"], "NIT", "{v}");
    assert!(
        reason["why"]
            .as_str()
            .unwrap()
            .contains("the judge gave no evidence"),
        "{v}"
    );
}

/// `review respond` with one reply that resolves `T1`, against both of the fake's endpoints.
fn respond_resolving(env: &TestEnvironment, github: &FakeGitHub) -> Output {
    env.write(
        "replies.json",
        r#"[{"threadId": "T1", "replyBody": "Not applying this — the bound is right.", "resolve": true}]"#,
    );
    let graphql = github.graphql_url();
    let rest = github.rest_url();
    env.run_with(
        &[
            "respond",
            "1",
            "--repo",
            "acme/widgets",
            "--replies",
            "replies.json",
        ],
        &[
            ("GITHUB_GRAPHQL_URL", graphql.as_str()),
            ("GITHUB_API_URL", rest.as_str()),
        ],
    )
}

/// Resolves T1 through `respond` and asserts the published verdict was refreshed to READY.
fn resolve_and_expect_refresh(env: &TestEnvironment, github: &FakeGitHub) {
    let out = respond_resolving(env, github);
    assert_eq!(out.code, 0, "{}\n{}", out.stdout, out.stderr);
    assert!(
        out.stderr
            .contains("[status] refreshed review/status: READY"),
        "{}",
        out.stderr
    );
}

fn finding_on_t1() -> review_core::model::PullRequest {
    PrBuilder::new()
        .thread("T1", "src/lib.rs", 3, &[(bot("coderabbitai"), CRITICAL)])
        .build()
}

#[tokio::test(flavor = "multi_thread")]
async fn a_verdict_the_viewer_published_is_refreshed_once_the_tool_resolves_a_thread() {
    let env = TestEnvironment::new();
    crate::common::git(env.dir(), &["init", "-q", "-b", "feature"]);
    let github = github_with(finding_on_t1(), vec![FakeCheck::passed("ci")]).await;
    assert_eq!(status(&env, &github, &["--publish"]).code, 8);
    assert_eq!(github.posted_statuses()[0]["state"], "failure");

    resolve_and_expect_refresh(&env, &github);
    let posted = github.posted_statuses();
    assert_eq!(posted.len(), 2, "{posted:?}");
    assert_eq!(posted[1]["context"], "review/status");
    assert_eq!(posted[1]["state"], "success");
    assert_eq!(posted[1]["description"], "READY");
}

#[tokio::test(flavor = "multi_thread")]
async fn no_status_is_published_after_resolving_where_the_viewer_never_published_one() {
    // None on the head at all.
    let env = TestEnvironment::new();
    crate::common::git(env.dir(), &["init", "-q", "-b", "feature"]);
    let github = github_with(finding_on_t1(), vec![FakeCheck::passed("ci")]).await;
    let out = respond_resolving(&env, &github);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(github.posted_statuses().is_empty());
    assert!(!out.stderr.contains("[status]"), "{}", out.stderr);

    // One of another account's (a CI job's) under the same name: not ours to overwrite.
    let env = TestEnvironment::new();
    crate::common::git(env.dir(), &["init", "-q", "-b", "feature"]);
    let github = github_with(
        finding_on_t1(),
        vec![
            FakeCheck::passed("ci"),
            FakeCheck::status("review/status", "failure"),
        ],
    )
    .await;
    let out = respond_resolving(&env, &github);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(github.posted_statuses().is_empty());
    assert!(!out.stderr.contains("[status]"), "{}", out.stderr);
}

#[tokio::test(flavor = "multi_thread")]
async fn a_refresh_that_fails_warns_and_leaves_the_resolve_done() {
    let env = TestEnvironment::new();
    crate::common::git(env.dir(), &["init", "-q", "-b", "feature"]);
    let github = github_with(finding_on_t1(), vec![FakeCheck::passed("ci")]).await;
    assert_eq!(status(&env, &github, &["--publish"]).code, 8);
    github.inject(review_test_support::github::Fault::ServerError {
        operation: Some("rest:statuses".to_owned()),
        status: 502,
        times: 100,
    });
    let out = respond_resolving(&env, &github);
    assert_eq!(out.code, 0, "{}\n{}", out.stdout, out.stderr);
    assert!(
        out.stderr.contains("could not refresh review/status"),
        "{}",
        out.stderr
    );
    assert!(
        github
            .mutations()
            .contains(&review_test_support::Mutation::Resolve(
                review_core::model::ThreadId::from("T1")
            ))
    );
    assert_eq!(github.posted_statuses().len(), 1, "the old one stands");
}

#[tokio::test(flavor = "multi_thread")]
async fn a_token_that_may_not_read_statuses_resolves_without_a_warning() {
    let env = TestEnvironment::new();
    crate::common::git(env.dir(), &["init", "-q", "-b", "feature"]);
    let github = github_with(finding_on_t1(), vec![FakeCheck::passed("ci")]).await;
    github.inject(review_test_support::github::Fault::ServerError {
        operation: Some("rest:statuses".to_owned()),
        status: 403,
        times: 100,
    });
    let out = respond_resolving(&env, &github);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(!out.stderr.contains("[status]"), "{}", out.stderr);
    assert!(github.posted_statuses().is_empty());
}

/// `--publish-as check-run` creates a check run `review/status` (an App's token, as in
/// Actions), which the next verdict does not read as CI; a token that is not an App's sets the
/// commit status instead, with a warning.
#[tokio::test(flavor = "multi_thread")]
async fn a_verdict_published_as_a_check_run_or_as_the_status_where_none_may_be_created() {
    let env = TestEnvironment::new();
    let github = github_with(
        PrBuilder::new()
            .thread("T1", "src/lib.rs", 3, &[(bot("coderabbitai"), CRITICAL)])
            .build(),
        vec![FakeCheck::passed("ci")],
    )
    .await;
    let out = status(&env, &github, &["--publish", "--publish-as", "check-run"]);
    assert_eq!(out.code, 8, "{}", out.stderr);
    let runs = github.posted_check_runs();
    assert_eq!(runs.len(), 1, "{runs:?}");
    assert_eq!(runs[0]["name"], "review/status");
    assert_eq!(runs[0]["status"], "completed");
    assert_eq!(runs[0]["conclusion"], "failure");
    assert!(
        runs[0]["output"]["title"]
            .as_str()
            .unwrap()
            .starts_with("ACTION_REQUIRED: a bot finding to fix"),
        "{runs:?}"
    );
    assert!(github.posted_statuses().is_empty());
    // Its own failing run is not a failing check.
    let out = status(&env, &github, &["--json"]);
    assert_eq!(json(&out)["verdict"], "ACTION_REQUIRED", "{}", out.stdout);

    // A token that may not create check runs: the commit status, and a warning.
    let github = github_with(PrBuilder::new().build(), vec![FakeCheck::passed("ci")]).await;
    github.refuse_check_runs();
    let out = status(&env, &github, &["--publish", "--publish-as", "check-run"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(
        out.stderr.contains("cannot create check runs"),
        "{}",
        out.stderr
    );
    assert!(github.posted_check_runs().is_empty());
    assert_eq!(github.posted_statuses()[0]["state"], "success");

    // --publish-as without --publish is a usage error.
    let out = status(&env, &github, &["--publish-as", "check-run"]);
    assert_eq!(out.code, 2, "{}", out.stderr);
}

/// Inside GitHub Actions (`GITHUB_ACTIONS=true`) `--publish` makes a check run, and a thread the
/// tool resolves afterwards refreshes that check run, not a commit status beside it.
#[tokio::test(flavor = "multi_thread")]
async fn inside_actions_the_verdict_is_a_check_run_and_a_resolve_refreshes_the_run() {
    let env = TestEnvironment::new();
    crate::common::git(env.dir(), &["init", "-q", "-b", "feature"]);
    let github = github_with(finding_on_t1(), vec![FakeCheck::passed("ci")]).await;
    // The Actions token's account, as GraphQL names it and as its check runs name the app.
    github.set_viewer("github-actions");
    let graphql = github.graphql_url();
    let rest = github.rest_url();
    let endpoints = [
        ("GITHUB_GRAPHQL_URL", graphql.as_str()),
        ("GITHUB_API_URL", rest.as_str()),
        ("GITHUB_ACTIONS", "true"),
    ];
    let out = env.run_with(
        &["status", "1", "--repo", "acme/widgets", "--publish"],
        &endpoints,
    );
    assert_eq!(out.code, 8, "{}", out.stderr);
    assert!(github.posted_statuses().is_empty());
    let runs = github.posted_check_runs();
    assert_eq!(runs.len(), 1, "{runs:?}");
    assert_eq!(runs[0]["conclusion"], "failure");

    resolve_and_expect_refresh(&env, &github);
    let runs = github.posted_check_runs();
    assert_eq!(runs.len(), 2, "{runs:?}");
    assert_eq!(runs[1]["name"], "review/status");
    assert_eq!(runs[1]["conclusion"], "success");
    assert!(
        github.posted_statuses().is_empty(),
        "no status beside the run"
    );

    // Outside Actions, `--publish` is the commit status.
    let out = status(&env, &github, &["--publish"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert_eq!(github.posted_statuses().len(), 1);
    assert_eq!(github.posted_check_runs().len(), 2);
}

/// A check run `review/status` another app created is not the viewer's: a resolve leaves it.
#[tokio::test(flavor = "multi_thread")]
async fn another_apps_check_run_is_not_refreshed() {
    let env = TestEnvironment::new();
    crate::common::git(env.dir(), &["init", "-q", "-b", "feature"]);
    let github = github_with(
        finding_on_t1(),
        vec![FakeCheck::passed("ci"), FakeCheck::failed("review/status")],
    )
    .await;
    let out = respond_resolving(&env, &github);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(!out.stderr.contains("[status]"), "{}", out.stderr);
    assert!(github.posted_check_runs().is_empty());
    assert!(github.posted_statuses().is_empty());
}

/// The refresh after `triage --apply` resolves a nit plans with the triage's own deny list:
/// a finding on a path its `--deny-path` names is one for a person, not one to fix.
#[tokio::test(flavor = "multi_thread")]
async fn a_refresh_after_triage_uses_the_triages_deny_list() {
    const NIT: &str = "_🧹 Nitpick_\n\n**Prefer a more descriptive name than `a`.**\n\nConsider renaming `a` to say what it holds.";
    let pr = PrBuilder::new()
        .thread("T1", "src/lib.rs", 3, &[(bot("coderabbitai"), CRITICAL)])
        .thread("T2", "src/other.rs", 1, &[(bot("coderabbitai"), NIT)])
        .build();
    let env = TestEnvironment::new();
    crate::common::git(env.dir(), &["init", "-q", "-b", "feature"]);
    let github = github_with(pr, vec![FakeCheck::passed("ci")]).await;
    assert_eq!(status(&env, &github, &["--publish"]).code, 8);
    let before = github.posted_statuses()[0]["description"]
        .as_str()
        .unwrap()
        .to_owned();
    let graphql = github.graphql_url();
    let rest = github.rest_url();
    let out = env.run_with(
        &[
            "triage",
            "1",
            "--repo",
            "acme/widgets",
            "--apply",
            "--deny-path",
            "src/lib.rs",
        ],
        &[
            ("GITHUB_GRAPHQL_URL", graphql.as_str()),
            ("GITHUB_API_URL", rest.as_str()),
        ],
    );
    assert_eq!(out.code, 0, "{}\n{}", out.stdout, out.stderr);
    let posted = github.posted_statuses();
    assert_eq!(
        posted.len(),
        2,
        "refreshed once T2 was resolved: {posted:?}"
    );
    let after = posted[1]["description"].as_str().unwrap();
    assert_ne!(after, before, "the deny list changed what T1 asks for");
    assert!(
        after.contains("person"),
        "T1 is deny-listed, for a person: {after}"
    );
}
