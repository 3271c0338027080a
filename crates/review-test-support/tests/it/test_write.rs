//! Mutations: batches with a bad id, replies (and the pending-review trap), minimizing.

use review_core::model::{CommentId, RepoId, ThreadId};
use review_test_support::github::FakeGitHub;
use review_test_support::{Mutation, PrBuilder, bot, person};
use serde_json::{Value, json};

use crate::client::ok;
use crate::queries::{
    ADD_THREAD_REPLY, MINIMIZE_COMMENT, PULL_REQUEST_FIRST_PAGE, RESOLVE_THREAD, UNRESOLVE_THREAD,
    VIEWER_PENDING_REVIEW, minimize_comments, resolve_threads,
};

fn acme() -> RepoId {
    RepoId::parse("acme/widgets").unwrap()
}

async fn github_with_threads() -> FakeGitHub {
    let github = FakeGitHub::start().await;
    github.add_pull_request(
        PrBuilder::new()
            .thread("A", "src/a.rs", 1, &[(bot("coderabbitai"), "one")])
            .thread("B", "src/a.rs", 2, &[(bot("coderabbitai"), "two")])
            .thread("C", "src/a.rs", 3, &[(person("mei"), "three")])
            .build(),
    );
    github
}

fn resolved(github: &FakeGitHub) -> Vec<bool> {
    github
        .pull_request(&acme(), 1)
        .unwrap()
        .threads
        .iter()
        .map(|t| t.is_resolved)
        .collect()
}

#[tokio::test]
async fn a_bad_id_in_a_batch_nulls_only_its_alias() {
    let github = github_with_threads().await;
    let vars = json!({"threadId0": "A", "threadId1": "PRRT_nope", "threadId2": "C"});
    let answer = ok(&github, "ResolveThreads", &resolve_threads(3), &vars);
    assert_eq!(
        answer["data"],
        json!({
            "r0": {"thread": {"id": "A", "isResolved": true}},
            "r1": null,
            "r2": {"thread": {"id": "C", "isResolved": true}},
        })
    );
    assert_eq!(
        answer["errors"],
        json!([{
            "type": "NOT_FOUND",
            "path": ["r1"],
            "locations": [{"line": 3, "column": 3}],
            "message": "Could not resolve to a node with the global id of 'PRRT_nope'",
        }])
    );
    assert_eq!(resolved(&github), [true, false, true]);
    assert_eq!(
        github.mutations(),
        [
            Mutation::Resolve(ThreadId::from("A")),
            Mutation::Resolve(ThreadId::from("C"))
        ]
    );
    assert_eq!(github.requests()[0].aliases, 3);

    // The single forms: an unknown id nulls the field; resolving twice is fine.
    let answer = ok(
        &github,
        "ResolveThread",
        RESOLVE_THREAD,
        &json!({"threadId": "X"}),
    );
    assert_eq!(answer["data"], json!({"resolveReviewThread": null}));
    assert_eq!(answer["errors"][0]["path"], json!(["resolveReviewThread"]));
    let answer = ok(
        &github,
        "ResolveThread",
        RESOLVE_THREAD,
        &json!({"threadId": "A"}),
    );
    assert_eq!(
        answer["data"]["resolveReviewThread"]["thread"]["isResolved"],
        true
    );
    let answer = ok(
        &github,
        "UnresolveThread",
        UNRESOLVE_THREAD,
        &json!({"threadId": "C"}),
    );
    assert_eq!(
        answer["data"],
        json!({"unresolveReviewThread": {"thread": {"id": "C", "isResolved": false}}})
    );
    assert_eq!(resolved(&github), [true, false, false]);
}

#[tokio::test]
async fn replies_are_posted_as_the_viewer_and_blank_ones_refused() {
    let github = github_with_threads().await;
    github.set_viewer("review-bot");
    let answer = ok(
        &github,
        "AddThreadReply",
        ADD_THREAD_REPLY,
        &json!({"threadId": "B", "body": "Fixed in abc123."}),
    );
    let comment = &answer["data"]["addPullRequestReviewThreadReply"]["comment"];
    let id = comment["id"].as_str().unwrap();
    assert!(
        comment["url"]
            .as_str()
            .unwrap()
            .starts_with("https://github.com/acme/widgets/pull/1#discussion_r")
    );

    // Read back as the adapter would: the reply closes thread B, typed User.
    let read = ok(
        &github,
        "PullRequestFirstPage",
        PULL_REQUEST_FIRST_PAGE,
        &json!({"owner": "acme", "name": "widgets", "number": 1}),
    );
    let pr = &read["data"]["repository"]["pullRequest"];
    let last = &pr["reviewThreads"]["nodes"][1]["comments"]["nodes"][1];
    assert_eq!(last["id"], id);
    assert_eq!(last["body"], "Fixed in abc123.");
    assert_eq!(
        last["author"],
        json!({"login": "review-bot", "__typename": "User"})
    );
    // GitHub wraps a lone reply in a submitted review of its own.
    let review = last["pullRequestReview"]["id"].clone();
    let reviews = pr["reviews"]["nodes"].as_array().unwrap();
    assert!(
        reviews
            .iter()
            .any(|r| r["id"] == review && r["state"] == "COMMENTED")
    );

    for blank in ["", "  \n"] {
        let answer = ok(
            &github,
            "AddThreadReply",
            ADD_THREAD_REPLY,
            &json!({"threadId": "B", "body": blank}),
        );
        assert_eq!(
            answer["data"],
            json!({"addPullRequestReviewThreadReply": null})
        );
        assert_eq!(answer["errors"][0]["type"], "UNPROCESSABLE");
        assert_eq!(
            answer["errors"][0]["path"],
            json!(["addPullRequestReviewThreadReply"])
        );
    }
    let thread = github.pull_request(&acme(), 1).unwrap().threads[1].clone();
    assert_eq!(thread.comments.len(), 2);
    assert_eq!(
        github.mutations(),
        [Mutation::Reply(
            ThreadId::from("B"),
            "Fixed in abc123.".into()
        )]
    );
}

#[tokio::test]
async fn a_reply_while_the_viewer_has_a_pending_review_lands_in_the_draft() {
    let github = github_with_threads().await;
    let vars = json!({"owner": "acme", "name": "widgets", "number": 1});
    let none = ok(&github, "ViewerPendingReview", VIEWER_PENDING_REVIEW, &vars);
    assert_eq!(
        none["data"],
        json!({"repository": {"pullRequest": {"reviews": {"nodes": []}}}})
    );

    let pending = github.add_pending_review(&acme(), 1);
    let found = ok(&github, "ViewerPendingReview", VIEWER_PENDING_REVIEW, &vars);
    assert_eq!(
        found["data"]["repository"]["pullRequest"]["reviews"]["nodes"],
        json!([{"id": pending.0}])
    );

    // Accepted, like on GitHub...
    let answer = ok(
        &github,
        "AddThreadReply",
        ADD_THREAD_REPLY,
        &json!({"threadId": "A", "body": "Done."}),
    );
    assert!(answer.get("errors").is_none(), "{answer}");
    assert!(answer["data"]["addPullRequestReviewThreadReply"]["comment"]["id"].is_string());
    // ...but nobody sees it: the thread is unchanged.
    let pr = github.pull_request(&acme(), 1).unwrap();
    assert_eq!(pr.threads[0].comments.len(), 1);
    assert_eq!(
        github.draft_replies(&acme(), 1),
        [(ThreadId::from("A"), "Done.".to_owned())]
    );
    let read = ok(
        &github,
        "PullRequestFirstPage",
        PULL_REQUEST_FIRST_PAGE,
        &vars,
    );
    let thread = &read["data"]["repository"]["pullRequest"]["reviewThreads"]["nodes"][0];
    assert_eq!(thread["comments"]["nodes"].as_array().unwrap().len(), 1);

    // Another account does not see the viewer's draft.
    github.set_viewer("someone-else");
    let other = ok(&github, "ViewerPendingReview", VIEWER_PENDING_REVIEW, &vars);
    assert_eq!(
        other["data"]["repository"]["pullRequest"]["reviews"]["nodes"],
        json!([])
    );
}

#[tokio::test]
async fn minimizes_singly_and_in_batches() {
    let github = github_with_threads().await;
    let answer = ok(
        &github,
        "MinimizeComment",
        MINIMIZE_COMMENT,
        &json!({"subjectId": "PRRC_1", "classifier": "RESOLVED"}),
    );
    assert_eq!(
        answer["data"],
        json!({"minimizeComment": {"minimizedComment": {"isMinimized": true}}})
    );
    let vars = json!({
        "subjectId0": "PRRC_2", "classifier0": "OUTDATED",
        "subjectId1": "IC_nope", "classifier1": "DUPLICATE",
    });
    let answer = ok(&github, "MinimizeComments", &minimize_comments(2), &vars);
    assert_eq!(
        answer["data"]["r0"]["minimizedComment"]["isMinimized"],
        true
    );
    assert_eq!(answer["data"]["r1"], Value::Null);
    assert_eq!(answer["errors"][0]["path"], json!(["r1"]));
    assert_eq!(
        github.minimized(&CommentId::from("PRRC_1")).as_deref(),
        Some("RESOLVED")
    );
    assert_eq!(
        github.minimized(&CommentId::from("PRRC_2")).as_deref(),
        Some("OUTDATED")
    );

    // A classifier GitHub does not know fails the whole document: nothing applied.
    let answer = ok(
        &github,
        "MinimizeComment",
        MINIMIZE_COMMENT,
        &json!({"subjectId": "PRRC_3", "classifier": "WRONG"}),
    );
    assert!(answer.get("data").is_none(), "{answer}");
    assert_eq!(
        answer["errors"][0]["message"],
        "Variable $classifier of type ReportedContentClassifiers! was provided invalid value"
    );
    assert_eq!(github.minimized(&CommentId::from("PRRC_3")), None);
    assert_eq!(
        github.mutations(),
        [
            Mutation::Minimize(CommentId::from("PRRC_1")),
            Mutation::Minimize(CommentId::from("PRRC_2"))
        ]
    );
}
