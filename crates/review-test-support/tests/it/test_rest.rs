//! The REST routes: shapes, `ETag`s that move exactly when the content does, free `304`s,
//! authentication, faults.

use review_core::model::{
    ChecksState, CommentId, CommitId, IssueComment, RepoId, Review, ReviewId, ReviewState,
};
use review_test_support::github::{FakeCheck, FakeGitHub, Fault, REST_OPERATION};
use review_test_support::{HEAD_SHA, PrBuilder, bot, person};
use serde_json::{Value, json};

use crate::client::{Response, get_raw, ok};
use crate::queries::{ADD_THREAD_REPLY, RESOLVE_THREAD, UNRESOLVE_THREAD};

const ADD_COMMENT: &str = r#"mutation AddComment($subjectId: ID!, $body: String!) {
  addComment(input: {subjectId: $subjectId, body: $body}) { commentEdge { node { id } } }
}"#;

fn acme() -> RepoId {
    RepoId::parse("acme/widgets").unwrap()
}

async fn github() -> FakeGitHub {
    let github = FakeGitHub::start().await;
    github.add_pull_request(
        PrBuilder::new()
            .thread(
                "A",
                "src/a.rs",
                1,
                &[(bot("coderabbitai"), "one"), (person("dana"), "done")],
            )
            .thread("B", "src/a.rs", 2, &[(bot("coderabbitai"), "two")])
            .build(),
    );
    github
}

const HEADERS: &[(&str, &str)] = &[
    ("Authorization", "Bearer t0ken"),
    ("User-Agent", "review-tests"),
    ("Accept", "application/vnd.github+json"),
];

fn get(github: &FakeGitHub, path: &str) -> Response {
    get_raw(&format!("{}{path}", github.rest_url()), HEADERS)
}

fn get_if(github: &FakeGitHub, path: &str, etag: &str) -> Response {
    let mut headers = HEADERS.to_vec();
    headers.push(("If-None-Match", etag));
    get_raw(&format!("{}{path}", github.rest_url()), &headers)
}

fn etag(response: &Response) -> String {
    response.header("etag").expect("an ETag").to_owned()
}

const PULL: &str = "/repos/acme/widgets/pulls/1";
const ISSUE_COMMENTS: &str = "/repos/acme/widgets/issues/1/comments?per_page=100";
const REVIEWS: &str = "/repos/acme/widgets/pulls/1/reviews?per_page=100";
const REVIEW_COMMENTS: &str = "/repos/acme/widgets/pulls/1/comments?per_page=100";

fn checks_path(sha: &str, what: &str) -> String {
    format!("/repos/acme/widgets/commits/{sha}/{what}")
}

/// The ETags of the four pull-request resources, in a fixed order.
fn etags(github: &FakeGitHub) -> Vec<String> {
    [PULL, ISSUE_COMMENTS, REVIEWS, REVIEW_COMMENTS]
        .iter()
        .map(|p| {
            let r = get(github, p);
            assert_eq!(r.status, 200, "{p}: {}", r.body);
            etag(&r)
        })
        .collect()
}

#[tokio::test]
async fn the_pull_request_in_rest_shape() {
    let github = github().await;
    let answer = get(&github, PULL);
    assert_eq!(answer.status, 200, "{}", answer.body);
    assert_eq!(answer.header("x-ratelimit-resource"), Some("core"));
    assert_eq!(answer.header("x-ratelimit-remaining"), Some("4999"));
    let pull = answer.json();
    assert_eq!(pull["number"], 1);
    assert_eq!(pull["state"], "open");
    assert_eq!(pull["merged"], false);
    assert_eq!(pull["title"], "Test PR");
    assert_eq!(pull["head"]["sha"], HEAD_SHA);
    assert_eq!(pull["head"]["ref"], "feature");
    assert_eq!(pull["base"]["ref"], "main");
    assert_eq!(pull["user"]["login"], "dana");
    assert!(pull["updated_at"].as_str().unwrap().ends_with('Z'));
    let tag = etag(&answer);
    assert!(tag.starts_with("W/\"") && tag.ends_with('"'), "{tag}");
}

#[tokio::test]
async fn comments_and_reviews_in_rest_shape_with_bot_logins() {
    let github = github().await;
    github.update_pull_request(&acme(), 1, |pr| {
        pr.comments.push(IssueComment {
            id: CommentId("IC_1".into()),
            author: Some(bot("coderabbitai")),
            body: "Summary".into(),
            created_at: "2026-11-30T10:00:00Z".into(),
            url: String::new(),
        });
        pr.reviews.push(Review {
            id: ReviewId("PRR_1".into()),
            author: Some(person("erin")),
            state: ReviewState::Approved,
            body: "LGTM".into(),
            submitted_at: Some("2026-11-30T11:00:00Z".into()),
            commit: Some(CommitId(HEAD_SHA.into())),
        });
    });
    let comments = get(&github, ISSUE_COMMENTS).json();
    assert_eq!(
        comments[0]["user"],
        json!({"login": "coderabbitai[bot]", "id": comments[0]["user"]["id"], "type": "Bot"})
    );
    assert_eq!(comments[0]["node_id"], "IC_1");
    assert!(comments[0]["id"].as_u64().is_some());

    let reviews = get(&github, REVIEWS).json();
    assert_eq!(reviews[0]["state"], "APPROVED");
    assert_eq!(reviews[0]["user"]["type"], "User");
    assert_eq!(reviews[0]["commit_id"], HEAD_SHA);

    let inline = get(&github, REVIEW_COMMENTS).json();
    let inline = inline.as_array().unwrap();
    assert_eq!(inline.len(), 3);
    assert_eq!(inline[0]["path"], "src/a.rs");
    assert_eq!(inline[0]["line"], 1);
    assert_eq!(inline[0]["user"]["login"], "coderabbitai[bot]");
    assert_eq!(inline[1]["in_reply_to_id"], inline[0]["id"]);
    assert!(inline[0].get("in_reply_to_id").is_none());
    assert_eq!(inline[1]["user"]["login"], "dana");
}

#[tokio::test]
async fn a_matching_if_none_match_is_a_free_304() {
    let github = github().await;
    let first = get(&github, PULL);
    let tag = etag(&first);
    assert_eq!(github.rest_charged(), 1);

    let again = get_if(&github, PULL, &tag);
    assert_eq!(again.status, 304);
    assert_eq!(again.body, "");
    assert_eq!(again.header("etag"), Some(tag.as_str()));
    assert_eq!(again.header("x-ratelimit-remaining"), Some("4999"));
    assert_eq!(github.rest_charged(), 1, "a 304 costs nothing");
    assert_eq!(github.rest_not_modified(), 1);
    assert_eq!(github.rest_requests(), 2);

    let stale = get_if(&github, PULL, "W/\"0000\"");
    assert_eq!(stale.status, 200);
    assert_eq!(github.rest_charged(), 2);
    assert_eq!(github.points(), 0, "REST spends no GraphQL points");
    assert!(
        github.requests().is_empty(),
        "REST is not in the GraphQL log"
    );

    let log = github.rest_log();
    assert_eq!(log[1].if_none_match.as_deref(), Some(tag.as_str()));
    assert_eq!(
        log[1].accept.as_deref(),
        Some("application/vnd.github+json")
    );
    assert_eq!(
        log.iter()
            .map(|r| (r.status, r.charged))
            .collect::<Vec<_>>(),
        [(200, true), (304, false), (200, true)]
    );
}

#[tokio::test]
async fn resolving_a_thread_changes_no_etag() {
    let github = github().await;
    let before = etags(&github);
    ok(
        &github,
        "ResolveThread",
        RESOLVE_THREAD,
        &json!({"threadId": "A"}),
    );
    assert!(github.pull_request(&acme(), 1).unwrap().threads[0].is_resolved);
    assert_eq!(etags(&github), before);
    ok(
        &github,
        "UnresolveThread",
        UNRESOLVE_THREAD,
        &json!({"threadId": "A"}),
    );
    assert_eq!(etags(&github), before);
}

#[tokio::test]
async fn a_reply_moves_the_pull_request_its_reviews_and_review_comments() {
    let github = github().await;
    let before = etags(&github);
    let updated = get(&github, PULL).json()["updated_at"].clone();
    ok(
        &github,
        "AddThreadReply",
        ADD_THREAD_REPLY,
        &json!({"threadId": "B", "body": "Fixed."}),
    );
    let after = etags(&github);
    assert_ne!(after[0], before[0], "pull");
    assert_eq!(after[1], before[1], "issue comments");
    assert_ne!(after[2], before[2], "reviews: the reply came in a review");
    assert_ne!(after[3], before[3], "review comments");
    assert_ne!(get(&github, PULL).json()["updated_at"], updated);
}

#[tokio::test]
async fn a_reply_into_a_pending_review_moves_nothing() {
    let github = github().await;
    github.add_pending_review(&acme(), 1);
    let before = etags(&github);
    ok(
        &github,
        "AddThreadReply",
        ADD_THREAD_REPLY,
        &json!({"threadId": "B", "body": "Draft."}),
    );
    assert_eq!(etags(&github), before, "nobody sees a draft");
}

#[tokio::test]
async fn add_comment_moves_the_pull_request_and_its_comments() {
    let github = github().await;
    let before = etags(&github);
    ok(
        &github,
        "AddComment",
        ADD_COMMENT,
        &json!({"subjectId": "PR_1", "body": "Triage report"}),
    );
    let after = etags(&github);
    assert_ne!(after[0], before[0]);
    assert_ne!(after[1], before[1]);
    assert_eq!(after[2..], before[2..]);
    assert_eq!(
        get(&github, ISSUE_COMMENTS).json()[0]["body"],
        "Triage report"
    );
}

#[tokio::test]
async fn update_pull_request_keeps_drafts_and_moves_the_etag() {
    let github = github().await;
    github.add_pending_review(&acme(), 1);
    ok(
        &github,
        "AddThreadReply",
        ADD_THREAD_REPLY,
        &json!({"threadId": "B", "body": "Draft."}),
    );
    let before = etags(&github);
    github.update_pull_request(&acme(), 1, |pr| {
        pr.head_sha = CommitId("f".repeat(40));
        pr.threads[0].is_outdated = true;
    });
    assert_eq!(github.draft_replies(&acme(), 1).len(), 1, "drafts kept");
    let after = etags(&github);
    assert_ne!(after[0], before[0]);
    assert_ne!(after[3], before[3], "the outdated thread lost its line");
    assert_eq!(get(&github, PULL).json()["head"]["sha"], "f".repeat(40));
}

#[tokio::test]
async fn named_checks_are_served_and_rolled_up_for_graphql() {
    let github = github().await;
    // No checks at all: no runs, and GitHub's combined status of nothing is "pending".
    let runs = get(&github, &checks_path(HEAD_SHA, "check-runs")).json();
    assert_eq!(runs, json!({"total_count": 0, "check_runs": []}));
    let status = get(&github, &checks_path(HEAD_SHA, "status")).json();
    assert_eq!(status["state"], "pending");
    assert_eq!(status["total_count"], 0);

    let pull_etag = etag(&get(&github, PULL));
    github.set_checks(
        &acme(),
        1,
        vec![
            FakeCheck::passed("build"),
            FakeCheck::failed("test"),
            FakeCheck::status("ci/legacy", "success"),
        ],
    );
    assert_eq!(
        github.pull_request(&acme(), 1).unwrap().checks,
        Some(ChecksState::Failure)
    );
    let runs = get(&github, &checks_path(HEAD_SHA, "check-runs")).json();
    assert_eq!(runs["total_count"], 2);
    let names: Vec<(&Value, &Value, &Value)> = runs["check_runs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| (&r["name"], &r["status"], &r["conclusion"]))
        .collect();
    assert_eq!(
        names,
        [
            (&json!("build"), &json!("completed"), &json!("success")),
            (&json!("test"), &json!("completed"), &json!("failure")),
        ]
    );
    let status = get(&github, &checks_path(HEAD_SHA, "status")).json();
    assert_eq!(status["state"], "success");
    assert_eq!(status["statuses"][0]["context"], "ci/legacy", "{status}");
    assert_eq!(
        etag(&get(&github, PULL)),
        pull_etag,
        "checks do not move the pull request"
    );
}

#[tokio::test]
async fn a_rolled_up_state_without_names_stands_as_one_check() {
    let github = FakeGitHub::start().await;
    github.add_pull_request(
        PrBuilder::new()
            .with_pr(|pr| pr.checks = Some(ChecksState::Failure))
            .build(),
    );
    let runs = get(&github, &checks_path(HEAD_SHA, "check-runs")).json();
    assert_eq!(runs["check_runs"][0]["name"], "ci");
    assert_eq!(runs["check_runs"][0]["conclusion"], "failure");
}

#[tokio::test]
async fn errors_as_github_gives_them() {
    let github = github().await;
    github.require_token("t0ken");
    let wrong = get_raw(
        &format!("{}{PULL}", github.rest_url()),
        &[("Authorization", "Bearer nope"), ("User-Agent", "t")],
    );
    assert_eq!(wrong.status, 401);
    assert_eq!(wrong.json()["message"], "Bad credentials");
    let none = get_raw(
        &format!("{}{PULL}", github.rest_url()),
        &[("User-Agent", "t")],
    );
    assert_eq!(none.status, 401);
    let no_agent = get_raw(
        &format!("{}{PULL}", github.rest_url()),
        &[("Authorization", "Bearer t0ken")],
    );
    assert_eq!(no_agent.status, 403);

    for path in [
        "/repos/acme/widgets/pulls/2",
        "/repos/acme/other/pulls/1",
        "/repos/acme/widgets/pulls/1/files",
        "/repos/acme/widgets/issues/9/comments",
    ] {
        let missing = get(&github, path);
        assert_eq!(missing.status, 404, "{path}");
        assert_eq!(missing.json()["message"], "Not Found");
    }
    let unknown = get(&github, &checks_path(&"0".repeat(40), "check-runs"));
    assert_eq!(unknown.status, 422);
    let log = github.rest_log();
    assert_eq!(
        log.iter().filter(|r| r.charged).count(),
        4,
        "the 404s count, the 401s and the 403 do not"
    );
    // Owner and name match whatever their case, as on GitHub.
    assert_eq!(get(&github, "/repos/ACME/Widgets/pulls/1").status, 200);
}

#[tokio::test]
async fn lists_page_with_a_link_to_the_next() {
    let github = FakeGitHub::start().await;
    github.add_pull_request(
        PrBuilder::new()
            .with_pr(|pr| {
                for n in 0..5 {
                    pr.comments.push(IssueComment {
                        id: CommentId(format!("IC_{n}")),
                        author: Some(person("erin")),
                        body: format!("comment {n}"),
                        created_at: "2026-11-30T10:00:00Z".into(),
                        url: String::new(),
                    });
                }
            })
            .build(),
    );
    let first = get(&github, "/repos/acme/widgets/issues/1/comments?per_page=2");
    assert_eq!(first.json().as_array().unwrap().len(), 2);
    let link = first.header("link").unwrap().to_owned();
    assert!(
        link.contains("per_page=2") && link.contains("page=2"),
        "{link}"
    );
    assert!(link.ends_with("rel=\"next\""), "{link}");
    let last = get(
        &github,
        "/repos/acme/widgets/issues/1/comments?per_page=2&page=3",
    );
    assert_eq!(last.json()[0]["body"], "comment 4");
    assert_eq!(last.header("link"), None);
    let all = get(&github, "/repos/acme/widgets/issues/1/comments");
    assert_eq!(all.json().as_array().unwrap().len(), 5);
}

#[tokio::test]
async fn rest_faults_hit_rest_only_and_cost_nothing() {
    let github = github().await;
    github.inject(Fault::ServerError {
        operation: Some(REST_OPERATION.into()),
        status: 502,
        times: 1,
    });
    github.inject(Fault::SecondaryLimit {
        operation: Some(REST_OPERATION.into()),
        status: 200,
        retry_after: Some(3),
        times: 1,
    });
    github.inject(Fault::RateLimited {
        operation: Some(REST_OPERATION.into()),
        reset_in_secs: 60,
        times: 1,
    });
    ok(
        &github,
        "ResolveThread",
        RESOLVE_THREAD,
        &json!({"threadId": "A"}),
    );
    let bad_gateway = get(&github, PULL);
    assert_eq!(bad_gateway.status, 502);
    assert!(bad_gateway.body.contains("<html>"));
    let secondary = get(&github, PULL);
    assert_eq!(secondary.status, 403);
    assert_eq!(secondary.header("retry-after"), Some("3"));
    assert!(
        secondary.json()["message"]
            .as_str()
            .unwrap()
            .contains("secondary rate limit")
    );
    let primary = get(&github, PULL);
    assert_eq!(primary.status, 403);
    assert_eq!(primary.header("x-ratelimit-remaining"), Some("0"));
    assert!(
        primary.json()["message"]
            .as_str()
            .unwrap()
            .contains("rate limit exceeded")
    );
    assert_eq!(get(&github, PULL).status, 200);
    assert_eq!(github.rest_charged(), 1);
    assert_eq!(github.rest_requests(), 4);

    // A fault aimed at one route passes the others by.
    github.inject(Fault::ServerError {
        operation: Some(format!("{REST_OPERATION}:reviews")),
        status: 503,
        times: 1,
    });
    assert_eq!(get(&github, PULL).status, 200);
    assert_eq!(get(&github, REVIEW_COMMENTS).status, 200);
    assert_eq!(get(&github, REVIEWS).status, 503);
    assert_eq!(get(&github, REVIEWS).status, 200);
}

#[tokio::test]
async fn the_enterprise_prefix_serves_the_same_routes() {
    let github = github().await;
    let answer = get_raw(&format!("{}{PULL}", github.enterprise_rest_url()), HEADERS);
    assert_eq!(answer.status, 200);
    assert_eq!(answer.json()["number"], 1);
    assert_eq!(github.rest_log()[0].path, format!("/api/v3{PULL}"));
}

#[tokio::test]
async fn a_commits_statuses_name_who_set_each_newest_first() {
    let github = github().await;
    github.set_checks(&acme(), 1, vec![FakeCheck::status("ci/legacy", "success")]);
    github.set_viewer("dana");
    let posted = crate::client::post_raw(
        &format!(
            "{}/repos/acme/widgets/statuses/{HEAD_SHA}",
            github.rest_url()
        ),
        HEADERS,
        r#"{"state": "failure", "context": "review/status", "description": "ACTION_REQUIRED"}"#,
    );
    assert_eq!(posted.status, 201, "{}", posted.body);
    let listed = get(&github, &checks_path(HEAD_SHA, "statuses")).json();
    let seen: Vec<(&Value, &Value, &Value)> = listed
        .as_array()
        .unwrap()
        .iter()
        .map(|s| (&s["context"], &s["state"], &s["creator"]["login"]))
        .collect();
    assert_eq!(
        seen,
        [
            (&json!("review/status"), &json!("failure"), &json!("dana")),
            (&json!("ci/legacy"), &json!("success"), &json!("ci-bot")),
        ]
    );
}
