//! A large pull request read with its independent chains of pages side by side: as many
//! requests as before, as many round trips one after another as the longest chain.

use std::time::Duration;

use review_core::model::PullRequest;
use review_github::client::ClientError;
use review_github::reader::{MAX_IN_FLIGHT, ReadError, Reader};
use review_test_support::github::{
    Fault, depth_lower_bound, large_pull_request, requests_lower_bound, with_reviews,
};

use crate::common::{fast_policy, repo, setup};

/// 1,000 threads (ten of 150 comments, two pages each) and 2,451 reviews: 25 pages of reviews
/// are the longest chain.
fn large() -> PullRequest {
    let long: Vec<(usize, usize)> = (0..10).map(|i| (i * 97, 150)).collect();
    with_reviews(large_pull_request(1000, 4, &long), 2451)
}

/// The indexes of the threads not fully read.
fn partly_read(pr: &PullRequest) -> Vec<usize> {
    pr.threads
        .iter()
        .enumerate()
        .filter(|(_, t)| !t.all_comments_read)
        .map(|(i, _)| i)
        .collect()
}

fn slow(latency: Duration) -> Fault {
    Fault::Slow {
        operation: None,
        delay: latency,
        times: usize::MAX,
    }
}

#[tokio::test]
async fn a_large_pr_is_read_whole_in_as_many_round_trips_as_its_longest_chain() {
    let pr = large();
    assert_eq!(pr.reviews.len(), 2451);
    let requests = requests_lower_bound(&pr);
    let depth = depth_lower_bound(&pr);
    assert_eq!((requests, depth), (44, 25), "the PR this test is about");
    let s = setup(pr.clone(), fast_policy()).await;
    // Answers that take time, so that requests in flight together are seen together.
    s.github.inject(slow(Duration::from_millis(150)));
    let read = Reader::new(&s.client)
        .pull_request(&repo(), pr.number)
        .await
        .unwrap();

    // Whole, and in GitHub's order.
    assert_eq!(
        read.threads, pr.threads,
        "every thread and comment, in order"
    );
    assert!(read.threads.iter().all(|t| t.all_comments_read));
    assert_eq!(read.reviews, pr.reviews, "every review, in order");
    assert_eq!(read.comments, pr.comments);

    // As many requests as a read one page after another, and no more round trips than the
    // longest chain plus one.
    assert_eq!(s.github.requests().len(), requests);
    assert_eq!(s.client.stats().requests as usize, requests);
    assert_eq!(
        s.client.stats().points,
        s.github.points(),
        "every point counted"
    );
    let measured = s.github.depth();
    assert!(
        (depth..=depth + 1).contains(&measured),
        "depth {measured}, longest chain {depth}"
    );
    let peak = s.github.peak_in_flight_since(0);
    assert!(
        (2..=MAX_IN_FLIGHT).contains(&peak),
        "{peak} requests in flight at once"
    );
}

#[tokio::test]
async fn a_failing_page_in_one_chain_fails_the_whole_read_as_it_did() {
    for (operation, what) in [
        ("ReviewsPage", "a page of reviews"),
        ("ThreadsPage", "a page of review threads"),
    ] {
        let s = setup(large(), fast_policy()).await;
        s.github.inject(Fault::ServerError {
            operation: Some(operation.to_owned()),
            status: 502,
            times: usize::MAX,
        });
        let err = Reader::new(&s.client)
            .pull_request(&repo(), 1)
            .await
            .unwrap_err();
        match &err {
            ReadError::Request {
                what: named,
                source: ClientError::GaveUp { attempts, last },
            } => {
                assert_eq!(named, what);
                assert_eq!(*attempts, fast_policy().max_attempts);
                assert_eq!(last, "GitHub answered HTTP 502");
            }
            other => panic!("{operation}: {other:?}"),
        }
        assert_eq!(err.to_string(), format!("reading {what} failed"));
        assert_eq!(
            s.github.count(operation),
            fast_policy().max_attempts as usize,
            "the first page of that chain, tried as often as the policy allows, and no further"
        );
    }
}

#[tokio::test]
async fn failing_continuation_pages_mark_only_their_threads_while_the_rest_is_read() {
    let pr = large();
    let s = setup(pr.clone(), fast_policy()).await;
    // Every later comment page fails for good: the ten long threads are partly read, nothing
    // else is, and the read goes on.
    s.github.inject(Fault::ServerError {
        operation: Some("ThreadCommentsPage".to_owned()),
        status: 502,
        times: usize::MAX,
    });
    let read = Reader::new(&s.client)
        .pull_request(&repo(), pr.number)
        .await
        .unwrap();
    let partly = partly_read(&read);
    let long: Vec<usize> = (0..10).map(|i| i * 97).collect();
    assert_eq!(partly, long);
    assert!(
        long.iter().all(|&i| read.threads[i].comments.len() == 100),
        "what was read is kept"
    );
    let ids: Vec<_> = read.threads.iter().map(|t| &t.id).collect();
    let expected: Vec<_> = pr.threads.iter().map(|t| &t.id).collect();
    assert_eq!(ids, expected, "the order of threads is GitHub's");
    assert_eq!(read.reviews, pr.reviews);
}

#[tokio::test]
async fn a_comment_lost_on_one_continuation_page_marks_only_that_thread() {
    let pr = large();
    let s = setup(pr.clone(), fast_policy()).await;
    // Thread 485 is on the fifth page of threads; its second comment page loses a comment.
    s.github.inject(Fault::NullNode {
        id: "PRRC_485_120".to_owned(),
        times: 1,
    });
    let read = Reader::new(&s.client)
        .pull_request(&repo(), pr.number)
        .await
        .unwrap();
    let partly = partly_read(&read);
    assert_eq!(partly, vec![485]);
    assert_eq!(read.threads[485].comments.len(), 149);
    assert_eq!(read.threads[..485], pr.threads[..485]);
    assert_eq!(read.threads[486..], pr.threads[486..]);
}

#[tokio::test]
async fn a_rate_limit_met_by_one_request_holds_the_others_of_the_client() {
    let s = setup(large_pull_request(2, 1, &[]), fast_policy()).await;
    s.github.inject(Fault::SecondaryLimit {
        operation: Some("PullRequestFirstPage".to_owned()),
        status: 403,
        retry_after: Some(1),
        times: 1,
    });
    let started = std::time::Instant::now();
    let limited = async {
        Reader::new(&s.client)
            .pull_request(&repo(), 1)
            .await
            .unwrap()
    };
    // A second read of the same client, sent once the first has met the limit: it waits for
    // the limit's end too instead of going out beside the wait.
    let other = async {
        tokio::time::sleep(Duration::from_millis(200)).await;
        let read = Reader::new(&s.client).pull_request(&repo(), 1).await;
        (read.unwrap(), started.elapsed())
    };
    let (_, (read, after)) = tokio::join!(limited, other);
    assert_eq!(read.threads.len(), 2);
    assert!(after >= Duration::from_millis(900), "sent after {after:?}");
    assert_eq!(
        s.github.count("PullRequestFirstPage"),
        3,
        "the limited one, its retry, the other"
    );
    assert_eq!(s.waits.lock().unwrap().len(), 1, "one wait announced");
}
