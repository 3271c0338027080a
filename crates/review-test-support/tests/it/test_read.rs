//! Reads: pages, cursors, shapes, not-found answers, validation and authentication.

use review_core::model::{
    Author, AuthorKind, CommitId, IssueComment, LineRange, PrState, RepoId, Review, ReviewId,
    ReviewState, SubjectType,
};
use review_test_support::github::{FakeGitHub, large_pull_request, with_human_reply};
use review_test_support::{PrBuilder, bot, person};
use serde_json::{Value, json};

use crate::client::{ok, op, post_raw};
use crate::queries::{
    ISSUE_COMMENTS_PAGE, OPEN_PULL_REQUESTS_FOR_BRANCH, PULL_REQUEST_FIRST_PAGE, REVIEWS_PAGE,
    THREAD_COMMENTS_PAGE, THREADS_PAGE, resolve_threads,
};

fn acme() -> RepoId {
    RepoId::parse("acme/widgets").unwrap()
}

fn pr_vars(number: u64) -> Value {
    json!({"owner": "acme", "name": "widgets", "number": number})
}

fn page_vars(after: &str) -> Value {
    json!({"owner": "acme", "name": "widgets", "number": 1, "after": after})
}

fn ids(nodes: &Value) -> Vec<String> {
    nodes
        .as_array()
        .unwrap()
        .iter()
        .map(|n| n["id"].as_str().unwrap().to_owned())
        .collect()
}

#[tokio::test]
async fn pages_250_threads_and_the_rest_of_a_150_comment_thread() {
    let github = FakeGitHub::start().await;
    github.add_pull_request(with_human_reply(
        large_pull_request(250, 2, &[(7, 150)]),
        7,
        140,
    ));

    let first = ok(
        &github,
        "PullRequestFirstPage",
        PULL_REQUEST_FIRST_PAGE,
        &pr_vars(1),
    );
    assert!(first.get("errors").is_none(), "{first}");
    let threads = &first["data"]["repository"]["pullRequest"]["reviewThreads"];
    assert_eq!(threads["totalCount"], 250);
    assert_eq!(threads["pageInfo"]["hasNextPage"], true);
    let mut seen = ids(&threads["nodes"]);
    assert_eq!(seen.len(), 100);
    let long = &threads["nodes"][7]["comments"];
    assert_eq!(long["nodes"].as_array().unwrap().len(), 100);
    assert_eq!(long["pageInfo"]["hasNextPage"], true);
    let long_cursor = long["pageInfo"]["endCursor"].as_str().unwrap().to_owned();
    assert_eq!(
        threads["nodes"][0]["comments"]["pageInfo"]["hasNextPage"],
        false
    );

    // The cursors chain: each page starts where the last ended.
    let mut cursors = vec![
        threads["pageInfo"]["endCursor"]
            .as_str()
            .unwrap()
            .to_owned(),
    ];
    loop {
        let after = cursors.last().unwrap().clone();
        let page = ok(&github, "ThreadsPage", THREADS_PAGE, &page_vars(&after));
        let threads = &page["data"]["repository"]["pullRequest"]["reviewThreads"];
        assert_eq!(threads["totalCount"], 250);
        seen.extend(ids(&threads["nodes"]));
        if threads["pageInfo"]["hasNextPage"] == false {
            assert_eq!(threads["nodes"].as_array().unwrap().len(), 50);
            break;
        }
        cursors.push(
            threads["pageInfo"]["endCursor"]
                .as_str()
                .unwrap()
                .to_owned(),
        );
    }
    assert_eq!(cursors.len(), 2, "three pages in all");
    assert_ne!(cursors[0], cursors[1]);
    let expected: Vec<String> = (0..250).map(|i| format!("PRRT_{i}")).collect();
    assert_eq!(seen, expected);

    // The long thread's continuation, through `node`.
    let rest = ok(
        &github,
        "ThreadCommentsPage",
        THREAD_COMMENTS_PAGE,
        &json!({"id": "PRRT_7", "after": long_cursor}),
    );
    let node = &rest["data"]["node"];
    assert_eq!(node["__typename"], "PullRequestReviewThread");
    let comments = node["comments"]["nodes"].as_array().unwrap();
    assert_eq!(comments.len(), 50);
    assert_eq!(node["comments"]["pageInfo"]["hasNextPage"], false);
    assert_eq!(comments[40]["id"], "PRRC_7_140");
    assert_eq!(
        comments[40]["author"],
        json!({"login": "mei", "__typename": "User"})
    );
    let humans = comments
        .iter()
        .chain(long["nodes"].as_array().unwrap())
        .filter(|c| c["author"]["__typename"] != "Bot")
        .count();
    assert_eq!(humans, 1, "comment 140 is the thread's only human reply");

    // Reviews and top-level comments fit in one page; their next page is empty.
    let pr = &first["data"]["repository"]["pullRequest"];
    assert_eq!(pr["reviews"]["pageInfo"]["hasNextPage"], false);
    let after = pr["reviews"]["pageInfo"]["endCursor"].as_str().unwrap();
    let reviews = ok(&github, "ReviewsPage", REVIEWS_PAGE, &page_vars(after));
    let reviews = &reviews["data"]["repository"]["pullRequest"]["reviews"];
    assert_eq!(reviews["nodes"], json!([]));
    assert_eq!(
        reviews["pageInfo"],
        json!({"hasNextPage": false, "endCursor": null})
    );
    assert_eq!(pr["comments"]["nodes"].as_array().unwrap().len(), 3);
    let after = pr["comments"]["pageInfo"]["endCursor"].as_str().unwrap();
    let comments = ok(
        &github,
        "IssueCommentsPage",
        ISSUE_COMMENTS_PAGE,
        &page_vars(after),
    );
    assert_eq!(
        comments["data"]["repository"]["pullRequest"]["comments"]["nodes"],
        json!([])
    );

    // One point per document, reported in the body and the headers.
    assert_eq!(github.points(), 6);
    assert_eq!(github.count("ThreadsPage"), 2);
    assert_eq!(rest["data"]["rateLimit"]["cost"], 1);
    assert_eq!(rest["data"]["rateLimit"]["remaining"], 5000 - 4);
    let last = op(
        &github,
        "ThreadsPage",
        THREADS_PAGE,
        &page_vars(&cursors[0]),
    );
    assert_eq!(last.header("x-ratelimit-used"), Some("7"));
    assert_eq!(last.header("x-ratelimit-remaining"), Some("4993"));
    assert_eq!(last.header("x-ratelimit-limit"), Some("5000"));
    assert_eq!(last.header("x-ratelimit-resource"), Some("graphql"));
    assert!(
        last.header("x-ratelimit-reset")
            .unwrap()
            .parse::<u64>()
            .is_ok()
    );
}

#[tokio::test]
async fn a_cursor_the_fake_did_not_hand_out_is_an_error() {
    let github = FakeGitHub::start().await;
    github.add_pull_request(large_pull_request(3, 1, &[]));
    let answer = ok(
        &github,
        "ThreadsPage",
        THREADS_PAGE,
        &page_vars("cursor:100"),
    );
    // reviewThreads is non-null: the error nulls the pull request.
    assert_eq!(answer["data"]["repository"], json!({"pullRequest": null}));
    let error = &answer["errors"][0];
    assert_eq!(error["type"], "INVALID_CURSOR_ARGUMENTS");
    assert_eq!(
        error["path"],
        json!(["repository", "pullRequest", "reviewThreads"])
    );
    assert_eq!(error["locations"], json!([{"line": 4, "column": 7}]));
    assert!(answer["data"]["rateLimit"]["cost"].is_number());
}

#[tokio::test]
async fn serves_the_model_in_githubs_shapes() {
    let github = FakeGitHub::start().await;
    let pr = PrBuilder::new()
        .thread("ONE", "src/a.rs", 12, &[(bot("coderabbitai"), "finding")])
        .thread("RANGE", "src/a.rs", 14, &[(person("mei"), "range")])
        .with_last(|t| t.lines = Some(LineRange::new(10, 14)))
        .thread("OLD", "src/b.rs", 3, &[(bot("coderabbitai"), "old")])
        .with_last(|t| {
            t.is_outdated = true;
            t.is_resolved = true;
        })
        .thread("FILE", "Cargo.lock", 1, &[(bot("coderabbitai"), "file")])
        .with_last(|t| {
            t.subject_type = SubjectType::File;
            t.lines = None;
        })
        .with_last(|t| {
            t.comments[0].author = None;
            t.comments[0].diff_hunk = Some("@@ -1 +1 @@".into());
            t.comments[0].review_id = Some(ReviewId::from("PRR_1"));
            t.comments[0].url = "https://github.com/acme/widgets/pull/1#discussion_r9".into();
        })
        .with_pr(|pr| {
            pr.state = PrState::Merged;
            pr.author = Some(Author::new("ghost-corp", AuthorKind::Organization));
            pr.reviews.push(Review {
                id: ReviewId::from("PRR_1"),
                author: Some(Author::new("someone", AuthorKind::Unknown)),
                state: ReviewState::ChangesRequested,
                body: "Please fix.".into(),
                submitted_at: Some("2026-11-30T11:00:00Z".into()),
                commit: Some(CommitId::from("abc123")),
            });
            pr.comments.push(IssueComment {
                id: "IC_1".into(),
                author: Some(Author::new("imported", AuthorKind::Mannequin)),
                body: "Thanks".into(),
                created_at: "2026-11-30T12:00:00Z".into(),
                url: "https://github.com/acme/widgets/pull/1#issuecomment-1".into(),
            });
        })
        .build();
    github.add_pull_request(pr);
    let answer = ok(
        &github,
        "PullRequestFirstPage",
        PULL_REQUEST_FIRST_PAGE,
        &pr_vars(1),
    );
    let pr = &answer["data"]["repository"]["pullRequest"];
    assert_eq!(pr["state"], "MERGED");
    assert_eq!(pr["headRefOid"], review_test_support::HEAD_SHA);
    assert_eq!(pr["headRefName"], "feature");
    assert_eq!(
        pr["author"],
        json!({"login": "ghost-corp", "__typename": "Organization"})
    );
    let threads = pr["reviewThreads"]["nodes"].as_array().unwrap();
    let lines: Vec<(&Value, &Value, &Value)> = threads
        .iter()
        .map(|t| (&t["line"], &t["startLine"], &t["subjectType"]))
        .collect();
    assert_eq!(
        lines,
        [
            (&json!(12), &Value::Null, &json!("LINE")),
            (&json!(14), &json!(10), &json!("LINE")),
            (&Value::Null, &Value::Null, &json!("LINE")),
            (&Value::Null, &Value::Null, &json!("FILE")),
        ]
    );
    assert_eq!(
        threads[3],
        json!({
            "id": "FILE",
            "isResolved": false,
            "isOutdated": false,
            "path": "Cargo.lock",
            "line": null,
            "startLine": null,
            "subjectType": "FILE",
            "comments": {
                "nodes": [{
                    "id": "PRRC_4",
                    "author": null,
                    "body": "file",
                    "createdAt": "2026-11-30T10:00:00Z",
                    "url": "https://github.com/acme/widgets/pull/1#discussion_r9",
                    "diffHunk": "@@ -1 +1 @@",
                    "pullRequestReview": {"id": "PRR_1"},
                }],
                "pageInfo": {"hasNextPage": false, "endCursor": "Y3Vyc29yOnYyOjE="},
            },
        })
    );
    assert_eq!(threads[2]["isResolved"], true);
    assert_eq!(threads[2]["isOutdated"], true);
    // A comment without a hunk or review reads "" and null.
    assert_eq!(threads[0]["comments"]["nodes"][0]["diffHunk"], "");
    assert_eq!(
        threads[0]["comments"]["nodes"][0]["pullRequestReview"],
        Value::Null
    );
    assert_eq!(
        pr["reviews"]["nodes"],
        json!([{
            "id": "PRR_1",
            "author": {"login": "someone", "__typename": "EnterpriseUserAccount"},
            "state": "CHANGES_REQUESTED",
            "body": "Please fix.",
            "submittedAt": "2026-11-30T11:00:00Z",
            "commit": {"oid": "abc123"},
        }])
    );
    assert_eq!(
        pr["comments"]["nodes"][0]["author"],
        json!({"login": "imported", "__typename": "Mannequin"})
    );
}

#[tokio::test]
async fn unknown_repositories_pull_requests_and_nodes_read_null_with_an_error() {
    let github = FakeGitHub::start().await;
    github.add_pull_request(
        PrBuilder::new()
            .thread("T", "a.rs", 1, &[(bot("b"), "x")])
            .build(),
    );

    let vars = json!({"owner": "acme", "name": "nope", "number": 1});
    let answer = ok(
        &github,
        "PullRequestFirstPage",
        PULL_REQUEST_FIRST_PAGE,
        &vars,
    );
    assert_eq!(answer["data"]["repository"], Value::Null);
    assert_eq!(answer["errors"][0]["type"], "NOT_FOUND");
    assert_eq!(answer["errors"][0]["path"], json!(["repository"]));
    assert_eq!(
        answer["errors"][0]["message"],
        "Could not resolve to a Repository with the name 'acme/nope'."
    );
    assert_eq!(answer["data"]["rateLimit"]["cost"], 1);

    // Names match whatever their case, as on GitHub.
    let vars = json!({"owner": "ACME", "name": "Widgets", "number": 2});
    let answer = ok(
        &github,
        "PullRequestFirstPage",
        PULL_REQUEST_FIRST_PAGE,
        &vars,
    );
    assert_eq!(answer["data"]["repository"], json!({"pullRequest": null}));
    assert_eq!(
        answer["errors"][0]["path"],
        json!(["repository", "pullRequest"])
    );

    let vars = json!({"id": "PRRT_gone", "after": null});
    let answer = ok(&github, "ThreadCommentsPage", THREAD_COMMENTS_PAGE, &vars);
    assert_eq!(answer["data"]["node"], Value::Null);
    assert_eq!(answer["errors"][0]["path"], json!(["node"]));
    assert_eq!(
        answer["errors"][0]["message"],
        "Could not resolve to a node with the global id of 'PRRT_gone'"
    );

    // A node of another type matches no fragment: only its __typename.
    let vars = json!({"id": "PRRC_1", "after": null});
    let answer = ok(&github, "ThreadCommentsPage", THREAD_COMMENTS_PAGE, &vars);
    assert_eq!(
        answer["data"]["node"],
        json!({"__typename": "PullRequestReviewComment"})
    );
}

#[tokio::test]
async fn open_pull_requests_of_a_branch_carry_their_head_owner() {
    let github = FakeGitHub::start().await;
    let at = |number: u64, head: &str, state: PrState| {
        PrBuilder::new()
            .with_pr(|pr| {
                pr.number = number;
                pr.id = format!("PR_{number}");
                pr.title = format!("PR {number}");
                pr.url = format!("https://github.com/acme/widgets/pull/{number}");
                head.clone_into(&mut pr.head_ref);
                pr.state = state;
            })
            .build()
    };
    github.add_pull_request(at(9, "feature", PrState::Open));
    github.add_pull_request(at(4, "feature", PrState::Open));
    github.add_pull_request(at(5, "feature", PrState::Closed));
    github.add_pull_request(at(6, "other", PrState::Open));
    github.set_head_owner(&acme(), 9, "forker");
    github.set_default_branch(&acme(), "trunk");

    let vars = json!({"owner": "acme", "name": "widgets", "headRefName": "feature"});
    let answer = ok(
        &github,
        "OpenPullRequestsForBranch",
        OPEN_PULL_REQUESTS_FOR_BRANCH,
        &vars,
    );
    assert_eq!(
        answer,
        json!({"data": {"repository": {
            "defaultBranchRef": {"name": "trunk"},
            "pullRequests": {"nodes": [
                {"number": 4, "title": "PR 4", "url": "https://github.com/acme/widgets/pull/4",
                 "headRepositoryOwner": {"login": "acme"}},
                {"number": 9, "title": "PR 9", "url": "https://github.com/acme/widgets/pull/9",
                 "headRepositoryOwner": {"login": "forker"}},
            ]},
        }}})
    );

    // A repository with no pull requests exists once it has a default branch.
    let other = RepoId::parse("acme/empty").unwrap();
    github.set_default_branch(&other, "main");
    let vars = json!({"owner": "acme", "name": "empty", "headRefName": "feature"});
    let answer = ok(
        &github,
        "OpenPullRequestsForBranch",
        OPEN_PULL_REQUESTS_FOR_BRANCH,
        &vars,
    );
    assert_eq!(
        answer["data"]["repository"]["pullRequests"]["nodes"],
        json!([])
    );
}

#[tokio::test]
async fn invalid_documents_fail_whole_without_data_or_cost() {
    let github = FakeGitHub::start().await;
    github.add_pull_request(PrBuilder::new().build());

    let unknown_field = "query Q($owner: String!, $name: String!) { repository(owner: $owner, name: $name) { pullRequest(number: 1) { isFancy } } }";
    let answer = ok(
        &github,
        "Q",
        unknown_field,
        &json!({"owner": "acme", "name": "widgets"}),
    );
    assert!(answer.get("data").is_none(), "{answer}");
    assert_eq!(
        answer["errors"][0]["message"],
        "Field 'isFancy' doesn't exist on type 'PullRequest'"
    );
    assert_eq!(
        answer["errors"][0]["path"],
        json!(["query Q", "repository", "pullRequest", "isFancy"])
    );

    // A required variable missing.
    let answer = ok(
        &github,
        "PullRequestFirstPage",
        PULL_REQUEST_FIRST_PAGE,
        &json!({"owner": "acme", "name": "widgets"}),
    );
    assert!(answer.get("data").is_none());
    assert_eq!(
        answer["errors"][0]["message"],
        "Variable $number of type Int! was provided invalid value"
    );

    // A declared variable never used.
    let unused =
        "query U($owner: String!, $x: Int) { repository(owner: $owner, name: \"widgets\") { id } }";
    let answer = ok(&github, "U", unused, &json!({"owner": "acme"}));
    assert_eq!(
        answer["errors"][0]["message"],
        "Variable $x is declared by U but not used"
    );

    // A connection without `first`, and one asking for too much.
    let unbounded = "query { repository(owner: \"acme\", name: \"widgets\") { pullRequests(states: [OPEN]) { totalCount } } }";
    let answer = ok(&github, "", unbounded, &Value::Null);
    assert_eq!(answer["errors"][0]["type"], "MISSING_PAGINATION_BOUNDARIES");
    let greedy = "query { repository(owner: \"acme\", name: \"widgets\") { pullRequests(first: 101) { totalCount } } }";
    let answer = ok(&github, "", greedy, &Value::Null);
    assert_eq!(answer["errors"][0]["type"], "EXCESSIVE_PAGINATION");

    let answer = ok(
        &github,
        "Broken",
        "query Broken { repository(",
        &Value::Null,
    );
    assert!(
        answer["errors"][0]["message"]
            .as_str()
            .unwrap()
            .starts_with("Parse error"),
        "{answer}"
    );
    // Only the two documents that ran (and failed while running) cost a point.
    assert_eq!(github.points(), 2);
}

#[tokio::test]
async fn authentication_and_the_request_log() {
    let github = FakeGitHub::start().await;
    github.add_pull_request(PrBuilder::new().build());
    let body = json!({"query": PULL_REQUEST_FIRST_PAGE, "variables": pr_vars(1), "operationName": "PullRequestFirstPage"})
        .to_string();

    let anonymous = post_raw(&github.graphql_url(), &[("User-Agent", "t")], &body);
    assert_eq!(anonymous.status, 401);
    assert_eq!(
        anonymous.json()["message"],
        "This endpoint requires you to be authenticated."
    );
    let no_agent = post_raw(
        &github.graphql_url(),
        &[("Authorization", "Bearer x")],
        &body,
    );
    assert_eq!(no_agent.status, 403);

    github.require_token("s3cret");
    let wrong = post_raw(
        &github.graphql_url(),
        &[("Authorization", "Bearer t0ken"), ("User-Agent", "t")],
        &body,
    );
    assert_eq!(wrong.status, 401);
    assert_eq!(wrong.json()["message"], "Bad credentials");
    let right = post_raw(
        &github.graphql_url(),
        &[("Authorization", "bearer s3cret"), ("User-Agent", "t")],
        &body,
    );
    assert_eq!(right.status, 200, "{}", right.body);

    github.require_token("t0ken");
    op(
        &github,
        "ResolveThreads",
        &resolve_threads(3),
        &json!({"threadId0": "a", "threadId1": "b", "threadId2": "c"}),
    );
    let log = github.requests();
    assert_eq!(log.len(), 5);
    assert_eq!(log[0].authorization, None);
    assert_eq!(log[3].authorization.as_deref(), Some("bearer s3cret"));
    assert_eq!(log[3].operation.as_deref(), Some("PullRequestFirstPage"));
    assert_eq!(log[3].variables, pr_vars(1));
    assert_eq!(log[3].aliases, 0);
    assert_eq!(
        log.iter().map(|r| r.status).collect::<Vec<_>>(),
        [401, 403, 401, 200, 200]
    );
    assert_eq!(log[4].aliases, 3);
    assert_eq!(github.count("PullRequestFirstPage"), 4);
    assert_eq!(github.count("ResolveThreads"), 1);
}
