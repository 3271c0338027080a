//! Each failure class: a retry that succeeds, and one that gives up with a clear error.

use std::time::Duration;

use review_github::client::ClientError;
use review_github::reader::{ReadError, Reader};
use review_test_support::PrBuilder;
use review_test_support::github::Fault;

use crate::common::{fast_policy, repo, setup};

fn first_page() -> Option<String> {
    Some("PullRequestFirstPage".to_owned())
}

fn client_error(err: ReadError) -> ClientError {
    match err {
        ReadError::Request { source, .. } => source,
        other => panic!("expected a request failure, got {other}"),
    }
}

#[tokio::test]
async fn a_502_is_retried_and_the_read_succeeds() {
    let s = setup(PrBuilder::new().build(), fast_policy()).await;
    s.github.inject(Fault::ServerError {
        operation: first_page(),
        status: 502,
        times: 2,
    });
    Reader::new(&s.client)
        .pull_request(&repo(), 1)
        .await
        .unwrap();
    assert_eq!(s.github.requests().len(), 3);
    assert_eq!(s.client.stats().retries, 2);
    assert_eq!(s.waits.lock().unwrap().len(), 2, "each wait is announced");
}

#[tokio::test]
async fn persistent_5xx_gives_up_with_a_clear_error() {
    let s = setup(PrBuilder::new().build(), fast_policy()).await;
    s.github.inject(Fault::ServerError {
        operation: first_page(),
        status: 503,
        times: 10,
    });
    let err = client_error(
        Reader::new(&s.client)
            .pull_request(&repo(), 1)
            .await
            .unwrap_err(),
    );
    assert!(
        matches!(err, ClientError::GaveUp { attempts: 4, .. }),
        "{err}"
    );
    assert!(err.to_string().contains("HTTP 503"), "{err}");
}

#[tokio::test]
async fn a_secondary_limit_honours_retry_after() {
    let s = setup(PrBuilder::new().build(), fast_policy()).await;
    s.github.inject(Fault::SecondaryLimit {
        operation: first_page(),
        status: 403,
        retry_after: Some(1),
        times: 1,
    });
    let started = std::time::Instant::now();
    Reader::new(&s.client)
        .pull_request(&repo(), 1)
        .await
        .unwrap();
    assert!(
        started.elapsed() >= Duration::from_secs(1),
        "waited as GitHub asked"
    );
    assert!(s.waits.lock().unwrap()[0].contains("secondary rate limit"));
}

#[tokio::test]
async fn a_secondary_limit_in_a_200_answer_is_recognised() {
    let s = setup(PrBuilder::new().build(), fast_policy()).await;
    s.github.inject(Fault::SecondaryLimit {
        operation: first_page(),
        status: 200,
        retry_after: None,
        times: 1,
    });
    Reader::new(&s.client)
        .pull_request(&repo(), 1)
        .await
        .unwrap();
    assert_eq!(s.github.requests().len(), 2);
}

#[tokio::test]
async fn a_429_without_retry_after_backs_off_and_gives_up_in_the_end() {
    let s = setup(PrBuilder::new().build(), fast_policy()).await;
    s.github.inject(Fault::SecondaryLimit {
        operation: first_page(),
        status: 429,
        retry_after: None,
        times: 10,
    });
    let err = client_error(
        Reader::new(&s.client)
            .pull_request(&repo(), 1)
            .await
            .unwrap_err(),
    );
    assert!(matches!(err, ClientError::GaveUp { .. }), "{err}");
}

#[tokio::test]
async fn primary_exhaustion_waits_for_a_near_reset() {
    let s = setup(PrBuilder::new().build(), fast_policy()).await;
    s.github.inject(Fault::RateLimited {
        operation: first_page(),
        reset_in_secs: 1,
        times: 1,
    });
    Reader::new(&s.client)
        .pull_request(&repo(), 1)
        .await
        .unwrap();
    assert!(s.waits.lock().unwrap()[0].contains("rate limit is exhausted"));
}

#[tokio::test]
async fn primary_exhaustion_with_a_far_reset_stops_and_says_when() {
    let s = setup(PrBuilder::new().build(), fast_policy()).await;
    s.github.inject(Fault::RateLimited {
        operation: first_page(),
        reset_in_secs: 3600,
        times: 1,
    });
    let err = client_error(
        Reader::new(&s.client)
            .pull_request(&repo(), 1)
            .await
            .unwrap_err(),
    );
    assert!(matches!(err, ClientError::RateLimited { .. }), "{err}");
    assert!(err.to_string().contains("resets in"), "{err}");
    assert_eq!(s.github.requests().len(), 1, "no hammering");
}

#[tokio::test]
async fn a_page_that_times_out_is_retried() {
    let mut policy = fast_policy();
    policy.request_timeout = Duration::from_millis(300);
    let s = setup(PrBuilder::new().build(), policy).await;
    s.github.inject(Fault::Slow {
        operation: first_page(),
        delay: Duration::from_secs(2),
        times: 1,
    });
    Reader::new(&s.client)
        .pull_request(&repo(), 1)
        .await
        .unwrap();
    assert!(
        s.waits.lock().unwrap()[0].contains("no answer within"),
        "{:?}",
        s.waits.lock().unwrap()
    );
}

#[tokio::test]
async fn a_refused_token_is_not_retried() {
    let s = setup(PrBuilder::new().build(), fast_policy()).await;
    s.github.require_token("another-token");
    let err = client_error(
        Reader::new(&s.client)
            .pull_request(&repo(), 1)
            .await
            .unwrap_err(),
    );
    assert!(matches!(err, ClientError::BadCredentials), "{err}");
    assert_eq!(s.github.requests().len(), 1);
}

#[tokio::test]
async fn a_field_the_server_lacks_fails_once_naming_it() {
    let s = setup(PrBuilder::new().build(), fast_policy()).await;
    s.github.without_field("PullRequest", "reviewThreads");
    let err = Reader::new(&s.client)
        .pull_request(&repo(), 1)
        .await
        .unwrap_err();
    match client_error(err) {
        ClientError::Unsupported(missing) => {
            assert!(
                missing.is_field("PullRequest", "reviewThreads"),
                "{missing:?}"
            );
        }
        other => panic!("expected Unsupported, got {other}"),
    }
    assert_eq!(
        s.github.count("PullRequestFirstPage"),
        1,
        "the same document fails the same way: not retried"
    );
}

#[tokio::test]
async fn a_mutation_the_server_lacks_is_named_in_the_hosts_error() {
    use review_core::ports::{HostError, ReviewHost};
    let s = setup(PrBuilder::new().build(), fast_policy()).await;
    s.github.without_mutation("requestReviewsByLogin");
    let pr = s.github.pull_request(&repo(), 1).unwrap();
    let err = crate::common::host(&s, 1)
        .request_review(&pr.id, "copilot-pull-request-reviewer")
        .await
        .unwrap_err();
    assert!(matches!(err, HostError::Unavailable { .. }), "{err:?}");
    assert!(
        err.to_string()
            .contains("lacks the mutation `requestReviewsByLogin`"),
        "{err}"
    );
    assert!(!err.stops_all_requests());
    assert!(s.github.mutations().is_empty());
}

#[tokio::test]
async fn without_a_roll_up_the_read_goes_on_and_marks_the_checks_unknown_asking_once_per_run() {
    use review_core::model::ChecksState;
    let s = setup(PrBuilder::new().build(), fast_policy()).await;
    s.github.without_field("PullRequest", "statusCheckRollup");
    let reader = Reader::new(&s.client);
    let pr = reader.pull_request(&repo(), 1).await.unwrap();
    assert_eq!(pr.checks, Some(ChecksState::Unknown));
    assert_eq!(pr.threads.len(), PrBuilder::new().build().threads.len());
    assert_eq!(s.github.count("PullRequestFirstPage"), 1);
    assert_eq!(s.github.count("PullRequestFirstPageWithoutChecks"), 1);

    // The run remembers: a later read, by any reader over the client, asks without it at once.
    let again = Reader::new(&s.client.clone())
        .pull_request(&repo(), 1)
        .await
        .unwrap();
    assert_eq!(again.checks, Some(ChecksState::Unknown));
    assert_eq!(s.github.count("PullRequestFirstPage"), 1);
    assert_eq!(s.github.count("PullRequestFirstPageWithoutChecks"), 2);
}

#[tokio::test]
async fn a_server_with_the_roll_up_is_asked_for_it_only() {
    let s = setup(PrBuilder::new().build(), fast_policy()).await;
    let pr = Reader::new(&s.client)
        .pull_request(&repo(), 1)
        .await
        .unwrap();
    assert_ne!(pr.checks, Some(review_core::model::ChecksState::Unknown));
    assert_eq!(s.github.count("PullRequestFirstPageWithoutChecks"), 0);
}

#[tokio::test]
async fn a_comment_on_a_server_without_add_comment_names_the_mutation_once() {
    use review_core::ports::ReviewHost;
    let s = setup(PrBuilder::new().build(), fast_policy()).await;
    s.github.without_mutation("addComment");
    let pr = s.github.pull_request(&repo(), 1).unwrap();
    let host = crate::common::host(&s, 1);
    let key = review_core::post::idempotency_key(
        &review_core::model::ThreadId::from(pr.id.as_str()),
        "hello",
    );
    let body =
        review_core::post::marked_body(review_core::gate::DEFAULT_AUTOMATED_HEADER, "hello", &key);
    let err = host.comment(&pr.id, &body).await.unwrap_err().to_string();
    assert_eq!(
        err.matches("lacks the mutation `addComment`").count(),
        1,
        "{err}"
    );
    assert!(s.github.mutations().is_empty());
}
