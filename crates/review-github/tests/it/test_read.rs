//! Complete reads: every thread, every comment, at the lowest request count.

use review_core::gate::AutomationSettings;
use review_core::model::ThreadId;
use review_github::reader::{ReadError, Reader};
use review_test_support::PrBuilder;
use review_test_support::github::{large_pull_request, requests_lower_bound, with_human_reply};

use crate::common::{fast_policy, repo, setup};

#[tokio::test]
async fn reads_250_threads_and_finds_the_human_reply_at_comment_140() {
    let pr = with_human_reply(large_pull_request(250, 2, &[(7, 150)]), 7, 140);
    let expected_requests = requests_lower_bound(&pr);
    let s = setup(pr.clone(), fast_policy()).await;
    let read = Reader::new(&s.client)
        .pull_request(&repo(), pr.number)
        .await
        .unwrap();

    assert_eq!(read.threads.len(), 250);
    let long = &read.threads[7];
    assert_eq!(long.comments.len(), 150, "the continuation pages were read");
    assert!(long.all_comments_read);
    assert_eq!(
        long.comments, pr.threads[7].comments,
        "every comment, in order"
    );
    assert!(
        AutomationSettings::default().thread_is_human(long, &read),
        "the one human reply, on the second page, makes the thread human"
    );
    assert_eq!(read.threads, pr.threads);
    assert_eq!(read.reviews.len(), pr.reviews.len());

    // Requests: the lower bound exactly, and nothing per thread.
    assert_eq!(s.github.requests().len(), expected_requests);
    assert_eq!(s.github.count("ThreadsPage"), 2);
    assert_eq!(s.github.count("ThreadCommentsPage"), 1);
    assert_eq!(s.client.stats().requests as usize, expected_requests);
    assert_eq!(s.client.stats().points, s.github.points());
}

#[tokio::test]
async fn a_small_pr_is_one_request() {
    let pr = PrBuilder::new()
        .thread(
            "T1",
            "src/lib.rs",
            3,
            &[(review_test_support::bot("coderabbitai"), "x")],
        )
        .build();
    let s = setup(pr.clone(), fast_policy()).await;
    let read = Reader::new(&s.client)
        .pull_request(&repo(), 1)
        .await
        .unwrap();
    assert_eq!(read.threads.len(), 1);
    assert_eq!(read.head_sha, pr.head_sha);
    assert_eq!(read.author, pr.author);
    assert_eq!(s.github.requests().len(), 1);
    let auth = s.github.requests()[0].authorization.clone().unwrap();
    assert_eq!(auth, "Bearer test-token");
}

#[tokio::test]
async fn the_heads_checks_state_is_read() {
    let pr = PrBuilder::new()
        .with_pr(|p| p.checks = Some(review_core::model::ChecksState::Failure))
        .build();
    let s = setup(pr, fast_policy()).await;
    let read = Reader::new(&s.client)
        .pull_request(&repo(), 1)
        .await
        .unwrap();
    assert_eq!(read.checks, Some(review_core::model::ChecksState::Failure));
    let s = setup(PrBuilder::new().build(), fast_policy()).await;
    assert_eq!(
        Reader::new(&s.client)
            .pull_request(&repo(), 1)
            .await
            .unwrap()
            .checks,
        None
    );
}

#[tokio::test]
async fn a_missing_pr_or_repo_is_named() {
    let s = setup(PrBuilder::new().build(), fast_policy()).await;
    let err = Reader::new(&s.client)
        .pull_request(&repo(), 99)
        .await
        .unwrap_err();
    assert!(
        matches!(
            err,
            ReadError::PullRequestNotFound { number: 99, .. } | ReadError::Api { .. }
        ),
        "{err}"
    );
    let other = review_core::model::RepoId::parse("acme/nothing").unwrap();
    let err = Reader::new(&s.client)
        .pull_request(&other, 1)
        .await
        .unwrap_err();
    assert!(err.to_string().contains("acme/nothing"), "{err}");
}

#[tokio::test]
async fn a_failed_continuation_page_marks_only_that_thread_partly_read() {
    let pr = large_pull_request(3, 2, &[(1, 130)]);
    let s = setup(pr.clone(), fast_policy()).await;
    s.github
        .inject(review_test_support::github::Fault::ServerError {
            operation: Some("ThreadCommentsPage".to_owned()),
            status: 502,
            times: 10,
        });
    let read = Reader::new(&s.client)
        .pull_request(&repo(), pr.number)
        .await
        .unwrap();
    let partial: Vec<&ThreadId> = read
        .threads
        .iter()
        .filter(|t| !t.all_comments_read)
        .map(|t| &t.id)
        .collect();
    assert_eq!(partial, vec![&pr.threads[1].id]);
    assert_eq!(read.threads[1].comments.len(), 100, "what was read is kept");
}

#[tokio::test]
async fn a_failed_page_of_threads_fails_the_read_instead_of_truncating() {
    let pr = large_pull_request(150, 1, &[]);
    let s = setup(pr.clone(), fast_policy()).await;
    s.github
        .inject(review_test_support::github::Fault::ServerError {
            operation: Some("ThreadsPage".to_owned()),
            status: 502,
            times: 10,
        });
    let err = Reader::new(&s.client)
        .pull_request(&repo(), pr.number)
        .await
        .unwrap_err();
    assert!(
        err.to_string().contains("a page of review threads"),
        "{err}"
    );
}

/// Regression: a page of reviews that could not be read was dropped silently.
#[tokio::test]
async fn a_failed_page_of_reviews_fails_the_read() {
    use review_core::model::{Review, ReviewId, ReviewState};
    let pr = PrBuilder::new()
        .with_pr(|p| {
            p.reviews = (0..150)
                .map(|i| Review {
                    id: ReviewId(format!("PRR_{i}")),
                    author: Some(review_test_support::bot("coderabbitai")),
                    state: ReviewState::Commented,
                    body: String::new(),
                    submitted_at: None,
                    commit: None,
                })
                .collect();
        })
        .build();
    let s = setup(pr.clone(), fast_policy()).await;
    let read = Reader::new(&s.client)
        .pull_request(&repo(), 1)
        .await
        .unwrap();
    assert_eq!(read.reviews.len(), 150, "both pages");
    s.github
        .inject(review_test_support::github::Fault::ServerError {
            operation: Some("ReviewsPage".to_owned()),
            status: 502,
            times: 10,
        });
    let err = Reader::new(&s.client)
        .pull_request(&repo(), 1)
        .await
        .unwrap_err();
    assert!(err.to_string().contains("a page of reviews"), "{err}");
}

// Null nodes and short lists: GitHub answers data *and* errors when it cannot load an object
// (the object reads `null`, an error's `path` points at it). Nothing of that may be dropped.

fn null_node(id: &str) -> review_test_support::github::Fault {
    review_test_support::github::Fault::NullNode {
        id: id.to_owned(),
        times: 1,
    }
}

fn missing_node(id: &str) -> review_test_support::github::Fault {
    review_test_support::github::Fault::MissingNode {
        id: id.to_owned(),
        times: 1,
    }
}

/// `T1`: a bot's finding and a person's reply (`PRRC_2`); `T2`: a bot's finding (`PRRC_3`).
fn bot_thread_with_a_reply() -> review_core::model::PullRequest {
    use review_test_support::{bot, person};
    PrBuilder::new()
        .thread(
            "T1",
            "src/lib.rs",
            3,
            &[
                (bot("coderabbitai"), "Consider a guard."),
                (person("mei"), "No: the caller checks it."),
            ],
        )
        .thread("T2", "src/lib.rs", 9, &[(bot("coderabbitai"), "A nit.")])
        .build()
}

fn partly_read(pr: &review_core::model::PullRequest) -> Vec<&str> {
    pr.threads
        .iter()
        .filter(|t| !t.all_comments_read)
        .map(|t| t.id.0.as_str())
        .collect()
}

/// Regression: a person's reply that came back `null` beside a `NOT_FOUND` error was dropped,
/// and its thread then read as a bot's thread, fully read.
#[tokio::test]
async fn a_null_reply_beside_not_found_marks_its_thread_partly_read() {
    let s = setup(bot_thread_with_a_reply(), fast_policy()).await;
    s.github.inject(null_node("PRRC_2"));
    let read = Reader::new(&s.client)
        .pull_request(&repo(), 1)
        .await
        .unwrap();
    assert_eq!(partly_read(&read), ["T1"]);
    assert_eq!(read.threads[0].comments.len(), 1, "the reply is not there");
    assert!(
        !AutomationSettings::default().thread_is_human(&read.threads[0], &read),
        "read alone, the thread looks like a bot's: only the partial mark protects it"
    );
    assert_eq!(s.github.requests().len(), 1);
}

#[tokio::test]
async fn an_error_inside_a_thread_marks_that_thread_partly_read() {
    // The reply's review cannot be loaded: its `pullRequestReview` field reads null with an
    // error inside the thread (the comment itself is there).
    let pr = PrBuilder::new()
        .thread(
            "T1",
            "src/lib.rs",
            3,
            &[(review_test_support::bot("coderabbitai"), "x")],
        )
        .with_last(|t| {
            t.comments[0].review_id = Some(review_core::model::ReviewId("PRR_gone".to_owned()));
        })
        .thread(
            "T2",
            "src/lib.rs",
            9,
            &[(review_test_support::bot("coderabbitai"), "y")],
        )
        .build();
    let s = setup(pr, fast_policy()).await;
    s.github.inject(null_node("PRR_gone"));
    let read = Reader::new(&s.client)
        .pull_request(&repo(), 1)
        .await
        .unwrap();
    assert_eq!(partly_read(&read), ["T1"]);
    assert_eq!(read.threads[0].comments.len(), 1);
}

#[tokio::test]
async fn a_null_comment_on_a_continuation_page_marks_the_thread_partly_read() {
    let pr = large_pull_request(3, 2, &[(1, 130)]);
    let s = setup(pr.clone(), fast_policy()).await;
    s.github.inject(null_node("PRRC_1_120"));
    let read = Reader::new(&s.client)
        .pull_request(&repo(), pr.number)
        .await
        .unwrap();
    assert_eq!(partly_read(&read), ["PRRT_1"]);
    assert_eq!(read.threads[1].comments.len(), 129);
}

#[tokio::test]
async fn fewer_comments_than_the_total_count_mark_the_thread_partly_read() {
    let s = setup(bot_thread_with_a_reply(), fast_policy()).await;
    // Left out of the list without an error; the count still says 2.
    s.github.inject(missing_node("PRRC_2"));
    let read = Reader::new(&s.client)
        .pull_request(&repo(), 1)
        .await
        .unwrap();
    assert_eq!(partly_read(&read), ["T1"]);

    let pr = large_pull_request(3, 2, &[(1, 130)]);
    let s = setup(pr.clone(), fast_policy()).await;
    s.github.inject(missing_node("PRRC_1_120"));
    let read = Reader::new(&s.client)
        .pull_request(&repo(), pr.number)
        .await
        .unwrap();
    assert_eq!(partly_read(&read), ["PRRT_1"]);
}

/// What a failed read says, checked to be the "left out" error.
async fn incomplete(s: &crate::common::Setup) -> String {
    let err = Reader::new(&s.client)
        .pull_request(&repo(), 1)
        .await
        .unwrap_err();
    assert!(matches!(err, ReadError::Incomplete { .. }), "{err:?}");
    err.to_string()
}

#[tokio::test]
async fn a_null_thread_fails_the_read() {
    let s = setup(bot_thread_with_a_reply(), fast_policy()).await;
    s.github.inject(null_node("T2"));
    let text = incomplete(&s).await;
    assert!(
        text.contains("NOT_FOUND") && text.contains("reviewThreads.nodes.1"),
        "{text}"
    );

    // On a later page of threads too.
    let pr = large_pull_request(150, 1, &[]);
    let s = setup(pr, fast_policy()).await;
    s.github.inject(null_node("PRRT_120"));
    let text = incomplete(&s).await;
    assert!(text.contains("a page of review threads"), "{text}");
}

fn with_reviews_and_comments(n: usize) -> review_core::model::PullRequest {
    use review_core::model::{IssueComment, Review, ReviewId, ReviewState};
    PrBuilder::new()
        .with_pr(|p| {
            p.reviews = (0..n)
                .map(|i| Review {
                    id: ReviewId(format!("PRR_{i}")),
                    author: Some(review_test_support::person("mei")),
                    state: ReviewState::Commented,
                    body: format!("review {i}"),
                    submitted_at: None,
                    commit: None,
                })
                .collect();
            p.comments = (0..n)
                .map(|i| IssueComment {
                    id: review_core::model::CommentId(format!("IC_{i}")),
                    author: Some(review_test_support::person("mei")),
                    body: format!("comment {i}"),
                    created_at: "2026-11-30T10:00:00Z".to_owned(),
                    url: String::new(),
                })
                .collect();
        })
        .build()
}

#[tokio::test]
async fn a_null_review_or_pr_comment_fails_the_read() {
    for id in ["PRR_1", "IC_1", "PRR_120", "IC_120"] {
        let s = setup(with_reviews_and_comments(150), fast_policy()).await;
        s.github.inject(null_node(id));
        let text = incomplete(&s).await;
        assert!(text.contains(&format!("'{id}'")), "{id}: {text}");
    }
}

#[tokio::test]
async fn fewer_threads_reviews_or_pr_comments_than_counted_fail_the_read() {
    for (pr, id, what) in [
        (bot_thread_with_a_reply(), "T2", "the review threads"),
        (
            large_pull_request(150, 1, &[]),
            "PRRT_120",
            "the review threads",
        ),
        (with_reviews_and_comments(3), "PRR_1", "the reviews"),
        (with_reviews_and_comments(150), "PRR_120", "the reviews"),
        (with_reviews_and_comments(3), "IC_1", "the PR comments"),
    ] {
        let s = setup(pr, fast_policy()).await;
        s.github.inject(missing_node(id));
        let text = incomplete(&s).await;
        assert!(
            text.contains(what) && text.contains("read of the"),
            "{id}: {text}"
        );
    }
}

#[tokio::test]
async fn a_missing_pull_request_is_still_not_found_and_not_incomplete() {
    let s = setup(PrBuilder::new().build(), fast_policy()).await;
    let err = Reader::new(&s.client)
        .pull_request(&repo(), 99)
        .await
        .unwrap_err();
    assert!(
        matches!(err, ReadError::PullRequestNotFound { number: 99, .. }),
        "{err:?}"
    );
}

/// Each comment's `authorAssociation` is read onto its author (`NONE` as none), in threads and
/// on the conversation alike.
#[tokio::test]
async fn the_authors_association_is_read_with_each_comment() {
    use review_core::model::{Association, CommentId, IssueComment};
    use review_test_support::person;
    let member = person("mei").with_association(Some(Association::Member));
    let outsider = person("ola").with_association(Some(Association::FirstTimeContributor));
    let pr = PrBuilder::new()
        .thread(
            "T",
            "src/lib.rs",
            3,
            &[(member.clone(), "why?"), (person("nobody"), "+1")],
        )
        .with_pr(|pr| {
            pr.comments.push(IssueComment {
                id: CommentId("IC_1".into()),
                author: Some(outsider.clone()),
                body: "Please merge".into(),
                created_at: "2026-01-05T10:00:00Z".into(),
                url: String::new(),
            });
        })
        .build();
    let s = setup(pr.clone(), fast_policy()).await;
    let read = Reader::new(&s.client)
        .pull_request(&repo(), pr.number)
        .await
        .unwrap();
    let authors: Vec<_> = read.threads[0]
        .comments
        .iter()
        .map(|c| c.author.as_ref().unwrap().association)
        .collect();
    assert_eq!(authors, [Some(Association::Member), None]);
    assert!(
        read.threads[0].comments[0]
            .author
            .as_ref()
            .unwrap()
            .is_maintainer()
    );
    let conversation = read.comments[0].author.as_ref().unwrap();
    assert_eq!(
        conversation.association,
        Some(Association::FirstTimeContributor)
    );
    assert!(!conversation.is_maintainer());
    assert_eq!(read.threads, pr.threads, "the model reads back as it was");
}
