//! `review rereview` against the fake GitHub: each expected bot that has not reviewed the head
//! is asked by its documented way (a slash command starts its comment; Copilot gets a review
//! request), a second run asks nothing, and odd logins are refused before anything is sent.

use review_core::model::{CommentId, CommitId, IssueComment, Review, ReviewId, ReviewState};
use review_test_support::github::FakeGitHub;
use review_test_support::{HEAD_SHA, Mutation, PrBuilder, bot};
use serde_json::Value;

use crate::common::{Output, TestEnvironment};

async fn github_with(pr: review_core::model::PullRequest) -> FakeGitHub {
    let github = FakeGitHub::start().await;
    github.set_viewer("dana");
    github.add_pull_request(pr);
    github
}

fn rereview(env: &TestEnvironment, github: &FakeGitHub, extra: &[&str]) -> Output {
    let graphql = github.graphql_url();
    let rest = github.rest_url();
    let mut args = vec!["rereview", "1", "--repo", "acme/widgets"];
    args.extend(extra);
    env.run_with(
        &args,
        &[
            ("GITHUB_GRAPHQL_URL", graphql.as_str()),
            ("GITHUB_API_URL", rest.as_str()),
        ],
    )
}

/// A clone to keep the reply ledger in.
fn clone_in(env: &TestEnvironment) {
    let status = std::process::Command::new("git")
        .args(["init", "-q"])
        .current_dir(env.dir())
        .status()
        .unwrap();
    assert!(status.success());
}

fn comments(github: &FakeGitHub) -> Vec<String> {
    github
        .mutations()
        .into_iter()
        .filter_map(|m| match m {
            Mutation::Comment(body) => Some(body),
            _ => None,
        })
        .collect()
}

fn requests(github: &FakeGitHub) -> Vec<String> {
    github
        .mutations()
        .into_iter()
        .filter_map(|m| match m {
            Mutation::RequestReview(login) => Some(login),
            _ => None,
        })
        .collect()
}

/// The JSON printed, checked against `review schema rereview`.
fn json(out: &Output) -> Value {
    let v: Value =
        serde_json::from_str(&out.stdout).unwrap_or_else(|e| panic!("{e}: {}", out.stdout));
    let schema = TestEnvironment::new().run(&["schema", "rereview"]);
    assert_eq!(schema.code, 0, "{}", schema.stderr);
    let schema: Value = serde_json::from_str(&schema.stdout).unwrap();
    let validator = jsonschema::validator_for(&schema).unwrap();
    let errors: Vec<String> = validator.iter_errors(&v).map(|e| e.to_string()).collect();
    assert!(errors.is_empty(), "{errors:?}\n{v}");
    v
}

#[tokio::test(flavor = "multi_thread")]
async fn each_bot_is_asked_its_way_once_and_a_second_run_sends_nothing() {
    let env = TestEnvironment::new();
    clone_in(&env);
    let github = github_with(PrBuilder::new().build()).await;
    let bots = [
        "--expect-bot",
        "gemini-code-assist",
        "--expect-bot",
        "coderabbitai",
        "--expect-bot",
        "copilot-pull-request-reviewer",
    ];
    let out = rereview(&env, &github, &bots);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(
        out.stdout
            .contains("gemini      asked by comment `/gemini review`"),
        "{}",
        out.stdout
    );
    assert!(
        out.stdout
            .contains("coderabbit  asked by comment `@coderabbitai review`"),
        "{}",
        out.stdout
    );
    assert!(
        out.stdout
            .contains("copilot     asked by review request (copilot-pull-request-reviewer)"),
        "{}",
        out.stdout
    );
    assert!(
        out.stderr.contains("[rereview] acme/widgets#1 at a1b2c3d"),
        "{}",
        out.stderr
    );
    let posted = comments(&github);
    assert_eq!(posted.len(), 2, "{posted:?}");
    let gemini = posted
        .iter()
        .find(|b| b.contains("/gemini review"))
        .unwrap();
    assert!(
        gemini.starts_with("/gemini review\n\n🤖 Automated comment by **review**"),
        "{gemini}"
    );
    assert!(review_core::post::find_key(gemini).is_some());
    assert!(
        posted
            .iter()
            .any(|b| b.starts_with("@coderabbitai review\n"))
    );
    assert_eq!(
        requests(&github),
        vec!["copilot-pull-request-reviewer".to_owned()]
    );
    assert_eq!(
        github.requested_reviewers(1),
        vec!["copilot-pull-request-reviewer".to_owned()],
        "GitHub lists the request: confirmed"
    );

    let again = rereview(&env, &github, &[&bots[..], &["--json"]].concat());
    assert_eq!(again.code, 0, "{}", again.stderr);
    let v = json(&again);
    assert_eq!(v["head"], HEAD_SHA);
    for b in v["bots"].as_array().unwrap() {
        assert_eq!(b["action"], "already_asked", "{v}");
    }
    assert_eq!(github.mutations().len(), 3, "a second run sends nothing");
}

/// GitHub takes a review request for a Copilot that is not enabled and drops it: the request
/// is confirmed by reading who a review is requested from, and one GitHub does not list is
/// not an ask made (exit 4, nothing recorded, asked again by the next run).
#[tokio::test(flavor = "multi_thread")]
async fn a_copilot_request_github_drops_is_not_confirmed_and_asked_again() {
    let env = TestEnvironment::new();
    clone_in(&env);
    let github = github_with(PrBuilder::new().build()).await;
    github.drop_review_requests();
    let copilot = ["--expect-bot", "copilot-pull-request-reviewer"];
    let out = rereview(&env, &github, &[&copilot[..], &["--json"]].concat());
    assert_eq!(out.code, 4, "{}\n{}", out.stdout, out.stderr);
    let v = json(&out);
    assert_eq!(v["bots"][0]["action"], "not_confirmed", "{v}");
    assert!(
        v["bots"][0]["message"]
            .as_str()
            .unwrap()
            .contains("does not list Copilot among the requested reviewers"),
        "{v}"
    );
    assert!(
        github
            .rest_log()
            .iter()
            .any(|r| r.path == "/repos/acme/widgets/pulls/1/requested_reviewers"),
        "the request was checked"
    );
    assert!(github.requested_reviewers(1).is_empty());
    // Not recorded: the next run asks again, and says so in words.
    let again = rereview(&env, &github, &copilot);
    assert_eq!(again.code, 4, "{}", again.stderr);
    assert!(
        again.stdout.contains(
            "copilot  not confirmed: requested a review from copilot-pull-request-reviewer"
        ),
        "{}",
        again.stdout
    );
    assert_eq!(requests(&github).len(), 2);
}

#[tokio::test(flavor = "multi_thread")]
async fn without_a_clone_the_tools_comment_is_found_by_viewer_and_key() {
    let env = TestEnvironment::new();
    let github = github_with(PrBuilder::new().build()).await;
    let out = rereview(&env, &github, &["--expect-bot", "gemini-code-assist"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let out = rereview(&env, &github, &["--expect-bot", "gemini-code-assist"]);
    assert!(
        out.stdout.contains("gemini  already asked for this head"),
        "{}",
        out.stdout
    );
    assert_eq!(comments(&github).len(), 1);
    // And watch does not take the tool's own command for a person's comment.
    let graphql = github.graphql_url();
    let rest = github.rest_url();
    let watch = env.run_with(
        &["watch", "1", "--repo", "acme/widgets", "--once"],
        &[
            ("GITHUB_GRAPHQL_URL", graphql.as_str()),
            ("GITHUB_API_URL", rest.as_str()),
        ],
    );
    assert!(
        !watch.stdout.contains("HUMAN_COMMENT"),
        "{}\n{}",
        watch.stdout,
        watch.stderr
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn bots_that_reviewed_the_head_are_out_of_quota_or_have_no_command_are_left_alone() {
    let env = TestEnvironment::new();
    // The quota notice is a minute old: its 12 min 30 s wait is still running.
    let posted = now_secs() - 60;
    let pr = PrBuilder::new()
        .with_pr(|p| {
            p.reviews.push(Review {
                id: ReviewId("R1".to_owned()),
                author: Some(bot("gemini-code-assist")),
                state: ReviewState::Commented,
                body: String::new(),
                submitted_at: Some("2026-01-05T10:00:00Z".to_owned()),
                commit: Some(CommitId(HEAD_SHA.to_owned())),
            });
            p.comments.push(IssueComment {
                id: CommentId("IC_cr".to_owned()),
                author: Some(bot("coderabbitai")),
                body: "> [!WARNING]\n> ## Rate limit exceeded\n>\n> Please wait **12 minutes and 30 seconds** before requesting another review.".to_owned(),
                created_at: review_core::time::format_utc(posted),
                url: String::new(),
            });
        })
        .build();
    let github = github_with(pr).await;
    let out = rereview(
        &env,
        &github,
        &[
            "--expect-bot",
            "gemini-code-assist",
            "--expect-bot",
            "coderabbitai",
            "--expect-bot",
            "acme-lint",
            "--expect-bot",
            "claude",
        ],
    );
    assert_eq!(out.code, 0, "{}", out.stderr);
    let until = format!(
        "coderabbit  skipped: quota spent until {}",
        review_core::time::format_utc(posted + 750)
    );
    for line in [
        "gemini      skipped: reviewed the head",
        until.as_str(),
        "acme-lint   skipped: no re-review command",
        "claude      skipped: `@claude review once` is not documented by a source",
    ] {
        assert!(out.stdout.contains(line), "{line}\n{}", out.stdout);
    }
    assert_eq!(github.mutations(), vec![]);
    // A dry run says what it would do and sends nothing.
    let dry = rereview(
        &env,
        &github,
        &["--expect-bot", "copilot-pull-request-reviewer", "--dry-run"],
    );
    assert!(
        dry.stdout.contains("copilot  would ask by review request"),
        "{}",
        dry.stdout
    );
    assert_eq!(github.mutations(), vec![]);
}

/// Seconds since the Unix epoch.
fn now_secs() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| i64::try_from(d.as_secs()).unwrap())
        .unwrap()
}

/// A quota notice whose wait has run out holds the bot back no more: it is asked again.
#[tokio::test(flavor = "multi_thread")]
async fn a_bot_whose_quota_wait_ran_out_is_asked_again() {
    let env = TestEnvironment::new();
    clone_in(&env);
    let pr = PrBuilder::new()
        .with_pr(|p| {
            p.comments.push(IssueComment {
                id: CommentId("IC_cr".to_owned()),
                author: Some(bot("coderabbitai")),
                body: "> [!WARNING]\n> ## Rate limit exceeded\n>\n> Please wait **12 minutes and 30 seconds** before requesting another review.".to_owned(),
                // An hour ago: the wait ended 47 minutes ago.
                created_at: review_core::time::format_utc(now_secs() - 3_600),
                url: String::new(),
            });
        })
        .build();
    let github = github_with(pr).await;
    let out = rereview(&env, &github, &["--expect-bot", "coderabbitai"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(
        out.stdout
            .contains("coderabbit  asked by comment `@coderabbitai review`"),
        "{}",
        out.stdout
    );
    assert_eq!(comments(&github).len(), 1);
}

#[tokio::test(flavor = "multi_thread")]
async fn an_odd_login_is_refused_before_anything_is_read_or_sent() {
    let env = TestEnvironment::new();
    let github = github_with(PrBuilder::new().build()).await;
    for bad in [
        "gemini\n/approve",
        "x y",
        "<!-- review:idempotency-key=00 -->",
        "@coderabbitai review",
    ] {
        let out = rereview(&env, &github, &["--expect-bot", bad]);
        assert_eq!(out.code, 2, "{bad:?}: {}", out.stderr);
        assert!(
            out.stderr.contains("is not a bot's login"),
            "{}",
            out.stderr
        );
    }
    // One from the user's config is refused too.
    env.write_user_config("[watch]\nexpect-bots = [\"bad login\"]\n");
    let out = rereview(&env, &github, &[]);
    assert_ne!(out.code, 0, "{}", out.stderr);
    assert!(
        out.stderr.contains("is not a bot's login"),
        "{}",
        out.stderr
    );
    assert_eq!(github.mutations(), vec![]);
}

#[test]
fn help_explains_the_command() {
    let out = TestEnvironment::new().run(&["rereview", "--help"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    for words in [
        "once per head",
        "review request",
        "--expect-bot",
        "--dry-run",
        "--json",
        "quota",
    ] {
        assert!(out.stdout.contains(words), "{words}\n{}", out.stdout);
    }
}
