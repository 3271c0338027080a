//! Against a server whose API lacks a field or mutation the command needs (an older GitHub
//! Enterprise Server): the run stops with an error naming what is missing and exit 4, never a
//! "not found", an empty answer or a verdict on data it could not read. Without the checks'
//! roll-up (`statusCheckRollup`) the commands go on: the checks come from REST, or are unknown.

use review_test_support::github::{FakeCheck, FakeGitHub, Fault};
use review_test_support::{PrBuilder, bot};

use crate::common::{Output, TestEnvironment};

async fn github() -> FakeGitHub {
    let github = FakeGitHub::start().await;
    github.set_viewer("dana");
    github.add_pull_request(
        PrBuilder::new()
            .thread(
                "T1",
                "src/lib.rs",
                3,
                &[(bot("coderabbitai"), "Nit: rename `x`.")],
            )
            .build(),
    );
    github
}

fn run(env: &TestEnvironment, github: &FakeGitHub, command: &str, extra: &[&str]) -> Output {
    let graphql = github.graphql_url();
    let rest = github.rest_url();
    let mut args = vec![command, "1", "--repo", "acme/widgets"];
    args.extend(extra);
    env.run_with(
        &args,
        &[
            ("GITHUB_GRAPHQL_URL", graphql.as_str()),
            ("GITHUB_API_URL", rest.as_str()),
        ],
    )
}

/// Exit 4 with an `error:` naming `what` and a `hint:` saying what to do.
fn assert_names_missing(out: &Output, what: &str) {
    assert_eq!(out.code, 4, "{}\n{}", out.stdout, out.stderr);
    let error = out
        .stderr
        .lines()
        .find(|l| l.starts_with("error:"))
        .unwrap_or_else(|| panic!("no error line: {}", out.stderr));
    assert!(error.contains(what), "{error}");
    assert!(error.contains("API lacks"), "{error}");
    assert!(!error.contains("not found"), "{error}");
    let hint = out
        .stderr
        .lines()
        .find(|l| l.starts_with("hint:"))
        .unwrap_or_else(|| panic!("no hint line: {}", out.stderr));
    assert!(hint.contains("upgrade the server"), "{hint}");
    assert!(hint.contains(what), "{hint}");
}

#[tokio::test(flavor = "multi_thread")]
async fn triage_names_the_field_the_server_lacks() {
    let env = TestEnvironment::new();
    let github = github().await;
    github.without_field("PullRequest", "reviewThreads");
    let out = run(&env, &github, "triage", &[]);
    assert_names_missing(&out, "`PullRequest.reviewThreads`");
    assert!(
        out.stdout.is_empty(),
        "no report on a read that failed: {}",
        out.stdout
    );
    assert!(github.mutations().is_empty());
}

#[tokio::test(flavor = "multi_thread")]
async fn status_names_the_field_instead_of_a_verdict() {
    let env = TestEnvironment::new();
    let github = github().await;
    github.without_field("PullRequest", "isDraft");
    let out = run(&env, &github, "status", &[]);
    assert_names_missing(&out, "`PullRequest.isDraft`");
    assert!(!out.stdout.contains("READY"), "{}", out.stdout);
}

#[tokio::test(flavor = "multi_thread")]
async fn an_argument_the_server_does_not_accept_is_named() {
    let env = TestEnvironment::new();
    let github = github().await;
    github.without_argument("Repository", "pullRequest", "number");
    let out = run(&env, &github, "status", &[]);
    assert_names_missing(&out, "the argument `number` of `pullRequest`");
}

#[tokio::test(flavor = "multi_thread")]
async fn rereview_names_the_mutation_and_fails() {
    let env = TestEnvironment::new();
    let github = github().await;
    github.without_mutation("requestReviewsByLogin");
    let out = run(
        &env,
        &github,
        "rereview",
        &[
            "--expect-bot",
            "copilot-pull-request-reviewer",
            "--expect-bot",
            "gemini-code-assist",
        ],
    );
    assert_eq!(out.code, 4, "{}\n{}", out.stdout, out.stderr);
    assert!(
        out.stdout.contains(
            "copilot  failed: the review host failed: cannot request a review from copilot"
        ),
        "{}",
        out.stdout
    );
    assert!(
        out.stdout.contains("the mutation `requestReviewsByLogin`"),
        "{}",
        out.stdout
    );
    // The other bot is still asked its way.
    assert!(
        out.stdout.contains("gemini   asked by comment"),
        "{}",
        out.stdout
    );
    let error = out
        .stderr
        .lines()
        .find(|l| l.starts_with("error:"))
        .unwrap();
    assert!(error.contains("copilot"), "{error}");
    assert!(
        out.stderr.lines().any(|l| l.starts_with("hint:")),
        "{}",
        out.stderr
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn triage_goes_on_without_the_roll_up() {
    let env = TestEnvironment::new();
    let github = github().await;
    github.without_field("PullRequest", "statusCheckRollup");
    let out = run(&env, &github, "triage", &["--json"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(out.stdout.contains("T1"), "{}", out.stdout);
    assert_eq!(github.count("PullRequestFirstPage"), 1);
    assert_eq!(github.count("PullRequestFirstPageWithoutChecks"), 1);
}

#[tokio::test(flavor = "multi_thread")]
async fn status_without_the_roll_up_takes_the_checks_from_rest() {
    let env = TestEnvironment::new();
    let github = FakeGitHub::start().await;
    github.set_viewer("dana");
    let pr = PrBuilder::new().build();
    let repo = pr.repo.clone();
    github.add_pull_request(pr);
    github.set_checks(&repo, 1, vec![FakeCheck::failed("lint")]);
    github.without_field("PullRequest", "statusCheckRollup");
    let out = run(&env, &github, "status", &[]);
    assert_eq!(out.code, 10, "{}\n{}", out.stdout, out.stderr);
    assert!(out.stdout.contains("CI_FAILING"), "{}", out.stdout);
    assert!(out.stdout.contains("lint"), "{}", out.stdout);
}

#[tokio::test(flavor = "multi_thread")]
async fn status_without_the_roll_up_or_rest_says_checks_unknown_not_ready() {
    let env = TestEnvironment::new();
    let github = FakeGitHub::start().await;
    github.set_viewer("dana");
    github.add_pull_request(PrBuilder::new().build());
    github.without_field("PullRequest", "statusCheckRollup");
    github.inject(Fault::ServerError {
        operation: Some("rest".to_owned()),
        status: 502,
        times: 100,
    });
    let out = run(&env, &github, "status", &[]);
    assert_eq!(out.code, 9, "{}\n{}", out.stdout, out.stderr);
    assert!(out.stdout.contains("WAITING"), "{}", out.stdout);
    assert!(!out.stdout.contains("READY"), "{}", out.stdout);
    assert!(
        out.stdout
            .contains("checks unknown: this server's API lacks PullRequest.statusCheckRollup"),
        "{}",
        out.stdout
    );

    let json = run(&env, &github, "status", &["--json"]);
    assert_eq!(json.code, 9, "{}", json.stderr);
    let v: serde_json::Value = serde_json::from_str(&json.stdout).unwrap();
    assert!(
        v["reasons"]
            .as_array()
            .unwrap()
            .iter()
            .any(|r| r["kind"] == "checks_unknown"),
        "{v}"
    );
}
