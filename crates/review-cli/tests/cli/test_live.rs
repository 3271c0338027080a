//! The commands against the fake GitHub, pointed at with `GITHUB_GRAPHQL_URL` as users point the
//! tool at any server.

use review_core::model::ThreadId;
use review_core::report::Report;
use review_core::snapshot;
use review_test_support::github::FakeGitHub;
use review_test_support::{Mutation, PrBuilder, bot, person};

use crate::common::{TestEnvironment, example_snapshot, git};

fn example_pr() -> review_core::model::PullRequest {
    snapshot::parse(&std::fs::read_to_string(example_snapshot()).unwrap()).unwrap()
}

async fn github_with(pr: review_core::model::PullRequest) -> FakeGitHub {
    let github = FakeGitHub::start().await;
    github.add_pull_request(pr);
    github
}

fn vars(github: &FakeGitHub) -> Vec<(&'static str, String)> {
    vec![
        ("GITHUB_GRAPHQL_URL", github.graphql_url()),
        ("GITHUB_API_URL", github.rest_url()),
    ]
}

fn run(env: &TestEnvironment, github: &FakeGitHub, args: &[&str]) -> crate::common::Output {
    let v = vars(github);
    let v: Vec<(&str, &str)> = v.iter().map(|(k, v)| (*k, v.as_str())).collect();
    env.run_with(args, &v)
}

/// The example, as GitHub serves it: every comment readable (the recorded example marks one
/// thread as read in part, which a server that answers every page does not reproduce).
fn served_example() -> review_core::model::PullRequest {
    let mut pr = example_pr();
    for t in &mut pr.threads {
        t.all_comments_read = true;
    }
    pr
}

#[tokio::test(flavor = "multi_thread")]
async fn live_triage_equals_triage_of_its_snapshot_and_sends_no_mutation() {
    let pr = served_example();
    let github = github_with(pr.clone()).await;
    let env = TestEnvironment::new();
    let live = run(
        &env,
        &github,
        &["triage", "482", "--repo", "acme/widgets", "--json"],
    );
    assert_eq!(live.code, 0, "{}", live.stderr);
    assert!(live.stderr.contains("in 1 request "), "{}", live.stderr);

    let out = run(
        &env,
        &github,
        &[
            "snapshot",
            "https://github.com/acme/widgets/pull/482",
            "--out",
            "pr.json",
        ],
    );
    assert_eq!(out.code, 0, "{}", out.stderr);
    let recorded =
        snapshot::parse(&std::fs::read_to_string(env.dir().join("pr.json")).unwrap()).unwrap();
    assert_eq!(
        recorded.threads, pr.threads,
        "the snapshot holds every thread and comment as served"
    );
    assert_eq!(recorded.head_sha, pr.head_sha);

    let offline = env.run(&["triage", "--input", "pr.json", "--json"]);
    assert_eq!(
        live.stdout, offline.stdout,
        "the same PR gives the same report, live or recorded"
    );
    let report: Report = serde_json::from_str(&live.stdout).unwrap();
    assert_eq!(
        report.counts.handled() + report.counts.outdated,
        pr.unresolved_threads().count()
    );
    assert!(
        github.mutations().is_empty(),
        "without --apply not one mutation is sent"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn the_current_branchs_open_pr_is_found_and_echoed() {
    let github = github_with(PrBuilder::new().with_pr(|p| p.number = 7).build()).await;
    let repo = review_core::model::RepoId::parse("acme/widgets").unwrap();
    github.set_default_branch(&repo, "main");
    let env = TestEnvironment::new();
    git(env.dir(), &["init", "-q", "-b", "feature"]);
    git(
        env.dir(),
        &["remote", "add", "origin", "git@github.com:acme/widgets.git"],
    );
    let out = run(&env, &github, &["threads"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(out.stderr.contains("using PR #7"), "{}", out.stderr);

    git(env.dir(), &["checkout", "-q", "-b", "lonely"]);
    let out = run(&env, &github, &["threads"]);
    assert_eq!(out.code, 5, "{}", out.stderr);
    assert!(
        out.stderr
            .contains("no open PR for branch lonely — open one, or pass a number"),
        "{}",
        out.stderr
    );

    git(env.dir(), &["checkout", "-q", "-b", "main"]);
    let out = run(&env, &github, &["threads"]);
    assert_eq!(out.code, 2, "{}", out.stderr);
    assert!(
        out.stderr.contains("main is the default branch"),
        "{}",
        out.stderr
    );
}

/// In a fork's clone (`origin` the fork, `upstream` the base, the branch pushed to `origin`), the
/// current branch's pull request is the one whose head is in the fork, not a same-named branch's
/// pull request from the base repository's own namespace.
#[tokio::test(flavor = "multi_thread")]
async fn in_a_forks_clone_the_current_branchs_pr_is_the_forks() {
    let github = FakeGitHub::start().await;
    let repo = review_core::model::RepoId::parse("acme/widgets").unwrap();
    github.add_pull_request(PrBuilder::new().with_pr(|p| p.number = 7).build());
    github.add_pull_request(
        PrBuilder::new()
            .with_pr(|p| {
                p.number = 8;
                p.id = "PR_8".to_owned();
            })
            .build(),
    );
    github.set_head_owner(&repo, 8, "me");
    let env = TestEnvironment::new();
    git(env.dir(), &["init", "-q", "-b", "feature"]);
    for (name, url) in [
        ("origin", "https://github.com/me/widgets.git"),
        ("upstream", "https://github.com/acme/widgets.git"),
    ] {
        git(env.dir(), &["remote", "add", name, url]);
    }
    git(env.dir(), &["config", "branch.feature.remote", "origin"]);
    git(
        env.dir(),
        &["config", "branch.feature.merge", "refs/heads/feature"],
    );
    let out = run(&env, &github, &["threads"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(out.stderr.contains("using PR #8"), "{}", out.stderr);
}

#[tokio::test(flavor = "multi_thread")]
async fn several_open_prs_on_one_branch_are_listed_when_no_one_can_be_asked() {
    let github = FakeGitHub::start().await;
    github.add_pull_request(PrBuilder::new().with_pr(|p| p.number = 7).build());
    github.add_pull_request(
        PrBuilder::new()
            .with_pr(|p| {
                p.number = 8;
                p.id = "PR_8".to_owned();
            })
            .build(),
    );
    let env = TestEnvironment::new();
    git(env.dir(), &["init", "-q", "-b", "feature"]);
    git(
        env.dir(),
        &[
            "remote",
            "add",
            "origin",
            "https://github.com/acme/widgets.git",
        ],
    );
    let out = run(&env, &github, &["threads"]);
    assert_eq!(out.code, 2, "{}", out.stderr);
    assert!(
        out.stderr.contains("#7") && out.stderr.contains("#8"),
        "{}",
        out.stderr
    );
}

fn two_thread_pr() -> review_core::model::PullRequest {
    PrBuilder::new()
        .thread(
            "BOT",
            "src/lib.rs",
            3,
            &[(bot("coderabbitai"), "_🧹 Nitpick_\n\nRename `x`.")],
        )
        .thread(
            "HUM",
            "src/lib.rs",
            9,
            &[(bot("coderabbitai"), "x"), (person("mei"), "no")],
        )
        .build()
}

#[tokio::test(flavor = "multi_thread")]
async fn resolve_refuses_a_human_thread_and_touches_nothing() {
    let github = github_with(two_thread_pr()).await;
    let env = TestEnvironment::new();
    let out = run(
        &env,
        &github,
        &[
            "resolve",
            "BOT",
            "HUM",
            "--pr",
            "1",
            "--repo",
            "acme/widgets",
        ],
    );
    assert_eq!(out.code, 6, "{}", out.stderr);
    assert!(
        out.stderr
            .contains("thread HUM: human participation (@mei)"),
        "{}",
        out.stderr
    );
    assert!(github.mutations().is_empty(), "all or nothing");

    let out = run(
        &env,
        &github,
        &["resolve", "BOT", "--pr", "1", "--repo", "acme/widgets"],
    );
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert_eq!(
        github.mutations(),
        vec![Mutation::Resolve(ThreadId::from("BOT"))]
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn reply_posts_once_even_when_run_twice() {
    let github = github_with(two_thread_pr()).await;
    github.set_viewer("dana");
    let env = TestEnvironment::new();
    let args = [
        "reply",
        "BOT",
        "--body",
        "Renamed in 3f2a9c1.",
        "--pr",
        "1",
        "--repo",
        "acme/widgets",
    ];
    let first = run(&env, &github, &args);
    assert_eq!(first.code, 0, "{}", first.stderr);
    let second = run(&env, &github, &args);
    assert_eq!(second.code, 0, "{}", second.stderr);
    assert!(
        second.stderr.contains("already posted"),
        "{}",
        second.stderr
    );
    let replies: Vec<_> = github
        .mutations()
        .into_iter()
        .filter(|m| matches!(m, Mutation::Reply(..)))
        .collect();
    assert_eq!(replies.len(), 1);

    let refused = run(
        &env,
        &github,
        &[
            "reply",
            "HUM",
            "--body",
            "ok",
            "--pr",
            "1",
            "--repo",
            "acme/widgets",
        ],
    );
    assert_eq!(refused.code, 6, "{}", refused.stderr);
}

#[tokio::test(flavor = "multi_thread")]
async fn threads_lists_human_and_bot_threads() {
    let github = github_with(two_thread_pr()).await;
    let env = TestEnvironment::new();
    let out = run(
        &env,
        &github,
        &["threads", "1", "--repo", "acme/widgets", "--json"],
    );
    assert_eq!(out.code, 0, "{}", out.stderr);
    let listing: serde_json::Value = serde_json::from_str(&out.stdout).unwrap();
    let threads = listing["threads"].as_array().unwrap();
    assert_eq!(threads.len(), 2);
    assert_eq!(threads[0]["human"], false);
    assert_eq!(threads[1]["human"], true);
}

#[tokio::test(flavor = "multi_thread")]
async fn github_errors_have_their_exit_code_and_never_show_the_token() {
    let github = github_with(two_thread_pr()).await;
    github.require_token("another-token");
    let env = TestEnvironment::new();
    let out = run(&env, &github, &["triage", "1", "--repo", "acme/widgets"]);
    assert_eq!(out.code, 4, "{}", out.stderr);
    assert!(out.stderr.contains("refused the token"), "{}", out.stderr);
    assert!(!out.stderr.contains("test-token") && !out.stdout.contains("test-token"));

    let github = github_with(two_thread_pr()).await;
    let out = run(&env, &github, &["triage", "99", "--repo", "acme/widgets"]);
    assert_eq!(out.code, 5, "{}", out.stderr);
    assert!(out.stderr.contains("acme/widgets#99"), "{}", out.stderr);
}

#[tokio::test(flavor = "multi_thread")]
async fn no_token_says_which_variables_were_tried() {
    let github = github_with(two_thread_pr()).await;
    let env = TestEnvironment::new();
    let mut v = vars(&github);
    v.push(("GH_TOKEN", String::new()));
    v.push(("PATH", String::new()));
    let v: Vec<(&str, &str)> = v.iter().map(|(k, v)| (*k, v.as_str())).collect();
    let out = env.run_with(&["triage", "1", "--repo", "acme/widgets"], &v);
    assert_eq!(out.code, 4, "{}", out.stderr);
    assert!(
        out.stderr.contains("GH_TOKEN") && out.stderr.contains("GITHUB_TOKEN"),
        "{}",
        out.stderr
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn a_merged_pr_read_live_is_not_triaged() {
    let github = github_with(
        PrBuilder::new()
            .with_pr(|p| p.state = review_core::model::PrState::Merged)
            .build(),
    )
    .await;
    let env = TestEnvironment::new();
    let out = run(&env, &github, &["triage", "1", "--repo", "acme/widgets"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(
        out.stderr.contains("PR #1 is merged; nothing to triage"),
        "{}",
        out.stderr
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn a_detached_head_asks_for_a_pr_number() {
    let github = github_with(PrBuilder::new().build()).await;
    let env = TestEnvironment::new();
    git(env.dir(), &["init", "-q", "-b", "feature"]);
    git(
        env.dir(),
        &[
            "remote",
            "add",
            "origin",
            "https://github.com/acme/widgets.git",
        ],
    );
    git(
        env.dir(),
        &[
            "-c",
            "user.name=t",
            "-c",
            "user.email=t@example.com",
            "commit",
            "-q",
            "--allow-empty",
            "-m",
            "x",
        ],
    );
    git(env.dir(), &["checkout", "-q", "--detach"]);
    let out = run(&env, &github, &["threads"]);
    assert_eq!(out.code, 2, "{}", out.stderr);
    assert!(out.stderr.contains("HEAD is detached"), "{}", out.stderr);
    assert!(github.requests().is_empty(), "nothing asked of GitHub");
}
