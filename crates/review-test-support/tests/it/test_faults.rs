//! Each fault changes the next matching answers as stated, then stops.

use std::time::{Duration, Instant};

use review_core::model::RepoId;
use review_test_support::github::{FakeGitHub, Fault};
use review_test_support::{PrBuilder, bot};
use serde_json::{Value, json};

use crate::client::{ok, op};
use crate::queries::{ADD_THREAD_REPLY, PULL_REQUEST_FIRST_PAGE, resolve_threads};

const FIRST: &str = "PullRequestFirstPage";

fn vars() -> Value {
    json!({"owner": "acme", "name": "widgets", "number": 1})
}

async fn github() -> FakeGitHub {
    let github = FakeGitHub::start().await;
    github.add_pull_request(
        PrBuilder::new()
            .thread("A", "src/a.rs", 1, &[(bot("coderabbitai"), "one")])
            .thread("B", "src/a.rs", 2, &[(bot("coderabbitai"), "two")])
            .build(),
    );
    github
}

fn first(github: &FakeGitHub) -> crate::client::Response {
    op(github, FIRST, PULL_REQUEST_FIRST_PAGE, &vars())
}

#[tokio::test]
async fn server_errors_hit_their_operation_then_stop() {
    let github = github().await;
    github.inject(Fault::ServerError {
        operation: Some(FIRST.into()),
        status: 502,
        times: 2,
    });
    // Another operation passes untouched.
    let other = op(
        &github,
        "ResolveThreads",
        &resolve_threads(1),
        &json!({"threadId0": "A"}),
    );
    assert_eq!(other.status, 200);
    for _ in 0..2 {
        let answer = first(&github);
        assert_eq!(answer.status, 502);
        assert!(
            answer
                .header("content-type")
                .unwrap()
                .starts_with("text/html")
        );
        assert!(answer.body.contains("<html>"));
    }
    assert_eq!(first(&github).status, 200);
    assert_eq!(github.points(), 2, "the failed reads cost nothing");
    assert_eq!(github.count(FIRST), 3);
}

#[tokio::test]
async fn secondary_limits_in_their_three_forms() {
    let github = github().await;
    github.inject(Fault::SecondaryLimit {
        operation: None,
        status: 403,
        retry_after: Some(7),
        times: 1,
    });
    github.inject(Fault::SecondaryLimit {
        operation: None,
        status: 429,
        retry_after: None,
        times: 1,
    });
    github.inject(Fault::SecondaryLimit {
        operation: None,
        status: 200,
        retry_after: None,
        times: 1,
    });
    let forbidden = first(&github);
    assert_eq!(forbidden.status, 403);
    assert_eq!(forbidden.header("retry-after"), Some("7"));
    let message = forbidden.json()["message"].as_str().unwrap().to_owned();
    assert!(message.starts_with("You have exceeded a secondary rate limit"));

    let too_many = first(&github);
    assert_eq!(too_many.status, 429);
    assert_eq!(too_many.header("retry-after"), None);

    let in_body = first(&github);
    assert_eq!(in_body.status, 200);
    assert_eq!(in_body.json(), json!({"errors": [{"message": message}]}));

    let fine = first(&github);
    assert_eq!(fine.status, 200);
    assert!(fine.json()["data"]["repository"].is_object());
}

#[tokio::test]
async fn rate_limited_answers_point_at_the_reset() {
    let github = github().await;
    github.inject(Fault::RateLimited {
        operation: None,
        reset_in_secs: 120,
        times: 1,
    });
    let limited = first(&github);
    assert_eq!(limited.status, 200);
    assert_eq!(
        limited.json(),
        json!({"errors": [{"type": "RATE_LIMITED", "message": "API rate limit exceeded for user ID 1."}]})
    );
    assert_eq!(limited.header("x-ratelimit-remaining"), Some("0"));
    let reset: u64 = limited
        .header("x-ratelimit-reset")
        .unwrap()
        .parse()
        .unwrap();
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs();
    assert!((now + 110..=now + 130).contains(&reset), "{reset} vs {now}");

    let fine = first(&github);
    assert_eq!(fine.header("x-ratelimit-remaining"), Some("4999"));
    assert_eq!(fine.json()["data"]["rateLimit"]["remaining"], 4999);
}

#[tokio::test]
async fn slow_answers_come_late_once() {
    let github = github().await;
    let delay = Duration::from_millis(250);
    github.inject(Fault::Slow {
        operation: Some(FIRST.into()),
        delay,
        times: 1,
    });
    let start = Instant::now();
    assert_eq!(first(&github).status, 200);
    assert!(start.elapsed() >= delay);
    let start = Instant::now();
    assert_eq!(first(&github).status, 200);
    assert!(start.elapsed() < delay);
}

#[tokio::test]
async fn an_alias_error_fails_one_batch_entry_unapplied() {
    let github = github().await;
    github.inject(Fault::AliasError {
        alias: "r1".into(),
        times: 1,
    });
    let answer = ok(
        &github,
        "ResolveThreads",
        &resolve_threads(2),
        &json!({"threadId0": "A", "threadId1": "B"}),
    );
    assert_eq!(answer["data"]["r0"]["thread"]["isResolved"], true);
    assert_eq!(answer["data"]["r1"], Value::Null);
    assert_eq!(answer["errors"].as_array().unwrap().len(), 1);
    assert_eq!(answer["errors"][0]["path"], json!(["r1"]));
    let repo = RepoId::parse("acme/widgets").unwrap();
    let pr = github.pull_request(&repo, 1).unwrap();
    assert!(pr.threads[0].is_resolved);
    assert!(
        !pr.threads[1].is_resolved,
        "the failed alias was not applied"
    );

    let again = ok(
        &github,
        "ResolveThreads",
        &resolve_threads(2),
        &json!({"threadId0": "A", "threadId1": "B"}),
    );
    assert!(again.get("errors").is_none(), "{again}");
    assert!(github.pull_request(&repo, 1).unwrap().threads[1].is_resolved);
}

#[tokio::test]
async fn apply_then_fail_lands_the_write_behind_a_5xx() {
    let github = github().await;
    github.inject(Fault::ApplyThenFail {
        operation: Some("AddThreadReply".into()),
        status: 504,
        times: 1,
    });
    let vars = json!({"threadId": "A", "body": "Fixed. <!-- review:key=1 -->"});
    let failed = op(&github, "AddThreadReply", ADD_THREAD_REPLY, &vars);
    assert_eq!(failed.status, 504);
    let repo = RepoId::parse("acme/widgets").unwrap();
    let thread = github.pull_request(&repo, 1).unwrap().threads[0].clone();
    assert_eq!(thread.comments.len(), 2, "the post landed");
    assert_eq!(thread.comments[1].body, "Fixed. <!-- review:key=1 -->");

    let next = op(&github, "AddThreadReply", ADD_THREAD_REPLY, &vars);
    assert_eq!(next.status, 200);
    let statuses: Vec<u16> = github.requests().iter().map(|r| r.status).collect();
    assert_eq!(statuses, [504, 200]);
}

/// The statuses of `n` first-page reads under a [`Fault::Flaky`] seeded with `seed`.
async fn flaky_statuses(seed: u64, n: usize) -> Vec<u16> {
    let github = github().await;
    github.inject(Fault::Flaky {
        operation: Some(FIRST.into()),
        status: 502,
        percent: 30,
        seed,
        times: usize::MAX,
    });
    (0..n).map(|_| first(&github).status).collect()
}

#[tokio::test]
async fn flaky_fails_a_seeded_share_of_requests_the_same_way_every_time() {
    let statuses = flaky_statuses(7, 200).await;
    let failed = statuses.iter().filter(|&&s| s == 502).count();
    assert!((40..=80).contains(&failed), "about 30% of 200: {failed}");
    assert!(statuses.iter().all(|&s| s == 502 || s == 200));
    assert_eq!(flaky_statuses(7, 200).await, statuses, "the seed decides");
    assert_ne!(flaky_statuses(8, 200).await, statuses);

    // Used up after `times` failures; spared requests reach the other faults.
    let github = github().await;
    github.inject(Fault::Flaky {
        operation: None,
        status: 503,
        percent: 100,
        seed: 1,
        times: 2,
    });
    github.inject(Fault::ServerError {
        operation: None,
        status: 504,
        times: 1,
    });
    let statuses: Vec<u16> = (0..4).map(|_| first(&github).status).collect();
    assert_eq!(statuses, [503, 503, 504, 200]);
    assert_eq!(github.points(), 1, "failed requests cost nothing");
}

#[tokio::test]
async fn a_cut_off_answer_drops_the_connection_half_way_through_the_proxy() {
    let github = github().await;
    let repo = RepoId::parse("acme/widgets").unwrap();
    let reply = |url: &str, key: &str| {
        let body = json!({
            "query": ADD_THREAD_REPLY,
            "variables": {"threadId": "A", "body": format!("Fixed. <!-- review:key={key} -->")},
            "operationName": "AddThreadReply",
        });
        crate::client::post_raw(
            url,
            &[
                ("Authorization", "Bearer t0ken"),
                ("User-Agent", "review-tests"),
            ],
            &body.to_string(),
        )
    };

    // Through the proxy: the whole body's length announced, half of it sent, then the end.
    github.inject(Fault::CutOff {
        operation: Some("AddThreadReply".into()),
        times: 1,
    });
    let cut = reply(&github.proxied_graphql_url(), "1");
    assert_eq!(cut.status, 200);
    assert!(
        cut.header("x-fake-cut-off").is_none(),
        "the marker is not passed on"
    );
    let announced: usize = cut.header("content-length").unwrap().parse().unwrap();
    assert_eq!(cut.body.len(), announced / 2, "{}", cut.body);
    assert!(serde_json::from_str::<Value>(&cut.body).is_err());
    assert_eq!(
        github.pull_request(&repo, 1).unwrap().threads[0]
            .comments
            .len(),
        2,
        "the reply landed before the drop"
    );
    // The proxy passes other answers whole.
    let whole = reply(&github.proxied_graphql_url(), "2");
    assert_eq!(whole.status, 200);
    assert!(whole.json()["data"].is_object());

    // Directly: the stand-in, a body cut in half with a length that matches it.
    github.inject(Fault::CutOff {
        operation: Some("AddThreadReply".into()),
        times: 1,
    });
    let stand_in = reply(&github.graphql_url(), "3");
    assert_eq!(stand_in.status, 200);
    let announced: usize = stand_in.header("content-length").unwrap().parse().unwrap();
    assert_eq!(stand_in.body.len(), announced);
    assert!(serde_json::from_str::<Value>(&stand_in.body).is_err());
    assert_eq!(
        github.pull_request(&repo, 1).unwrap().threads[0]
            .comments
            .len(),
        4
    );
}

#[tokio::test]
async fn a_null_node_reads_null_with_a_not_found_error_at_its_path_then_stops() {
    let github = FakeGitHub::start().await;
    github.add_pull_request(
        PrBuilder::new()
            .thread("A", "src/a.rs", 1, &[(bot("coderabbitai"), "one")])
            .thread(
                "B",
                "src/a.rs",
                2,
                &[
                    (bot("coderabbitai"), "two"),
                    (review_test_support::person("mei"), "no"),
                ],
            )
            .build(),
    );
    // `PRRC_3` is the person's reply in B: the second comment of the second thread.
    github.inject(Fault::NullNode {
        id: "PRRC_3".into(),
        times: 1,
    });
    // A request that does not hold the node leaves the fault in place.
    let other = op(
        &github,
        "ResolveThreads",
        &resolve_threads(1),
        &json!({"threadId0": "A"}),
    );
    assert_eq!(other.status, 200);
    let answer = first(&github).json();
    let comments =
        &answer["data"]["repository"]["pullRequest"]["reviewThreads"]["nodes"][1]["comments"];
    assert_eq!(comments["nodes"][0]["body"], "two");
    assert_eq!(comments["nodes"][1], Value::Null);
    let errors = answer["errors"].as_array().unwrap();
    assert_eq!(errors.len(), 1, "{errors:?}");
    assert_eq!(errors[0]["type"], "NOT_FOUND");
    assert_eq!(
        errors[0]["path"],
        json!([
            "repository",
            "pullRequest",
            "reviewThreads",
            "nodes",
            1,
            "comments",
            "nodes",
            1
        ])
    );
    assert!(errors[0]["message"].as_str().unwrap().contains("'PRRC_3'"));
    // Used up: the next answer holds the reply again.
    let answer = first(&github).json();
    assert!(answer.get("errors").is_none(), "{answer}");
    assert_eq!(
        answer["data"]["repository"]["pullRequest"]["reviewThreads"]["nodes"][1]["comments"]["nodes"]
            [1]["body"],
        "no"
    );
}

#[tokio::test]
async fn a_missing_node_is_left_out_of_its_list_while_the_count_keeps_it() {
    let github = github().await;
    github.inject(Fault::MissingNode {
        id: "A".into(),
        times: 1,
    });
    let answer = first(&github).json();
    let threads = &answer["data"]["repository"]["pullRequest"]["reviewThreads"];
    assert_eq!(threads["nodes"].as_array().unwrap().len(), 1);
    assert_eq!(threads["nodes"][0]["id"], "B");
    assert_eq!(threads["totalCount"], 2);
    assert!(answer.get("errors").is_none(), "no error says so: {answer}");
    let answer = first(&github).json();
    assert_eq!(
        answer["data"]["repository"]["pullRequest"]["reviewThreads"]["nodes"]
            .as_array()
            .unwrap()
            .len(),
        2,
        "used up"
    );
}

#[tokio::test]
async fn a_read_only_token_reads_but_every_write_is_forbidden() {
    let github = github().await;
    github.read_only_token("t0ken");
    let read = first(&github);
    assert_eq!(read.status, 200);
    assert!(read.json().get("errors").is_none(), "{}", read.body);
    let answer = ok(
        &github,
        "ResolveThreads",
        &resolve_threads(2),
        &json!({"threadId0": "A", "threadId1": "B"}),
    );
    assert_eq!(answer["data"]["r0"], Value::Null);
    assert_eq!(answer["data"]["r1"], Value::Null);
    let errors = answer["errors"].as_array().unwrap();
    assert_eq!(errors.len(), 2);
    for (i, e) in errors.iter().enumerate() {
        assert_eq!(e["type"], "FORBIDDEN");
        assert_eq!(e["message"], "Resource not accessible by integration");
        assert_eq!(e["path"], json!([format!("r{i}")]));
    }
    let repo = RepoId::parse("acme/widgets").unwrap();
    let pr = github.pull_request(&repo, 1).unwrap();
    assert!(pr.threads.iter().all(|t| !t.is_resolved), "nothing applied");
    assert!(github.mutations().is_empty());
}
