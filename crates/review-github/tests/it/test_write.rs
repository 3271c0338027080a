//! Writes: batched resolves, replies with idempotency keys, the pending-review guard.

use review_core::model::ThreadId;
use review_core::ports::{HostError, ReviewHost};
use review_core::post;
use review_test_support::github::{Fault, large_pull_request};
use review_test_support::{Mutation, PrBuilder, bot};

use crate::common::{fast_policy, host, repo, setup};

fn marked(thread: &str, text: &str) -> String {
    let key = post::idempotency_key(&ThreadId::from(thread), text);
    post::marked_body(review_core::gate::DEFAULT_AUTOMATED_HEADER, text, &key)
}

#[tokio::test]
async fn two_hundred_resolves_take_ceil_200_over_b_requests() {
    let pr = large_pull_request(200, 1, &[]);
    let ids: Vec<ThreadId> = pr.threads.iter().map(|t| t.id.clone()).collect();
    let s = setup(pr.clone(), fast_policy()).await;
    let host = host(&s, pr.number);
    let results = host.resolve_threads(&ids).await;
    assert!(results.iter().all(Result::is_ok));
    let batch = review_github::adapter::WriteSettings::default().batch_size;
    assert_eq!(s.github.count("ResolveThreads"), 200usize.div_ceil(batch));
    let now = s.github.pull_request(&repo(), pr.number).unwrap();
    assert!(now.threads.iter().all(|t| t.is_resolved));
}

#[tokio::test]
async fn one_bad_id_in_a_batch_does_not_hide_the_others() {
    let pr = PrBuilder::new()
        .thread("T1", "a.rs", 1, &[(bot("coderabbitai"), "x")])
        .thread("T2", "a.rs", 2, &[(bot("coderabbitai"), "x")])
        .build();
    let s = setup(pr, fast_policy()).await;
    let host = host(&s, 1);
    let ids = [
        ThreadId::from("T1"),
        ThreadId::from("NOPE"),
        ThreadId::from("T2"),
    ];
    let results = host.resolve_threads(&ids).await;
    assert!(results[0].is_ok());
    assert!(
        matches!(results[1], Err(HostError::NotFound(_))),
        "{:?}",
        results[1]
    );
    assert!(results[2].is_ok());
    assert_eq!(s.github.count("ResolveThreads"), 1);
    let now = s.github.pull_request(&repo(), 1).unwrap();
    assert!(now.threads.iter().all(|t| t.is_resolved));
}

#[tokio::test]
async fn a_partial_error_on_one_alias_fails_only_that_thread() {
    let pr = PrBuilder::new()
        .thread("T1", "a.rs", 1, &[(bot("coderabbitai"), "x")])
        .thread("T2", "a.rs", 2, &[(bot("coderabbitai"), "x")])
        .build();
    let s = setup(pr, fast_policy()).await;
    s.github.inject(Fault::AliasError {
        alias: "r1".to_owned(),
        times: 1,
    });
    let results = host(&s, 1)
        .resolve_threads(&[ThreadId::from("T1"), ThreadId::from("T2")])
        .await;
    assert!(results[0].is_ok());
    assert!(results[1].is_err());
    let now = s.github.pull_request(&repo(), 1).unwrap();
    assert!(now.threads[0].is_resolved && !now.threads[1].is_resolved);
}

#[tokio::test]
async fn a_reply_carries_the_header_and_key_and_keeps_the_thread_a_bot_thread() {
    let pr = PrBuilder::new()
        .thread("T1", "a.rs", 1, &[(bot("coderabbitai"), "x")])
        .build();
    let s = setup(pr, fast_policy()).await;
    let host = host(&s, 1);
    let body = marked("T1", "Fixed in 3f2a9c1.");
    host.reply(&ThreadId::from("T1"), &body).await.unwrap();
    let now = s.github.pull_request(&repo(), 1).unwrap();
    assert_eq!(now.threads[0].comments.len(), 2);
    assert!(
        !review_core::gate::AutomationSettings::default().thread_is_human(&now.threads[0], &now),
        "our own reply, posted as the PR author with the header, is automated"
    );
}

#[tokio::test]
async fn unmarked_replies_are_refused_before_anything_is_sent() {
    let pr = PrBuilder::new()
        .thread("T1", "a.rs", 1, &[(bot("coderabbitai"), "x")])
        .build();
    let s = setup(pr, fast_policy()).await;
    let err = host(&s, 1)
        .reply(&ThreadId::from("T1"), "plain words")
        .await
        .unwrap_err();
    assert!(matches!(err, HostError::Refused(_)), "{err}");
    assert!(s.github.requests().is_empty());
}

#[tokio::test]
async fn a_pending_review_stops_the_reply_with_a_clear_message() {
    let pr = PrBuilder::new()
        .thread("T1", "a.rs", 1, &[(bot("coderabbitai"), "x")])
        .build();
    let s = setup(pr, fast_policy()).await;
    s.github.add_pending_review(&repo(), 1);
    let err = host(&s, 1)
        .reply(&ThreadId::from("T1"), &marked("T1", "Done."))
        .await
        .unwrap_err();
    assert!(err.to_string().contains("pending (draft) review"), "{err}");
    assert!(
        s.github.draft_replies(&repo(), 1).is_empty(),
        "nothing vanished into the draft"
    );
    assert_eq!(s.github.count("AddThreadReply"), 0);
}

#[tokio::test]
async fn a_reply_that_landed_behind_a_502_is_not_posted_twice() {
    let pr = PrBuilder::new()
        .thread("T1", "a.rs", 1, &[(bot("coderabbitai"), "x")])
        .build();
    let s = setup(pr, fast_policy()).await;
    s.github.inject(Fault::ApplyThenFail {
        operation: Some("AddThreadReply".to_owned()),
        status: 502,
        times: 1,
    });
    let posted = host(&s, 1)
        .reply(&ThreadId::from("T1"), &marked("T1", "Done."))
        .await
        .unwrap();
    let replies = s
        .github
        .mutations()
        .into_iter()
        .filter(|m| matches!(m, Mutation::Reply(..)))
        .count();
    assert_eq!(replies, 1, "the re-read found the first post");
    let now = s.github.pull_request(&repo(), 1).unwrap();
    assert_eq!(now.threads[0].comments.len(), 2);
    assert_eq!(posted.id, now.threads[0].comments[1].id);
}

/// A 502 may hide a reply that landed, or that lands later: it is looked for, and never sent
/// again. (It was sent again once when the first look missed it; a late landing then made two.)
#[tokio::test]
async fn a_reply_that_did_not_land_is_not_sent_again_and_may_have_been_posted() {
    let pr = PrBuilder::new()
        .thread("T1", "a.rs", 1, &[(bot("coderabbitai"), "x")])
        .build();
    let s = setup(pr, fast_policy()).await;
    s.github.inject(Fault::ServerError {
        operation: Some("AddThreadReply".to_owned()),
        status: 502,
        times: 1,
    });
    let err = host(&s, 1)
        .reply(&ThreadId::from("T1"), &marked("T1", "Done."))
        .await
        .unwrap_err();
    assert!(
        review_github::adapter::may_have_been_posted(&err),
        "{err:?}"
    );
    assert!(
        err.to_string()
            .contains("may have been posted (GitHub answered HTTP 502)"),
        "{err}"
    );
    assert_eq!(
        s.github.count("AddThreadReply"),
        1,
        "sent once, never again"
    );
    assert!(
        s.github.count("ThreadCommentsPage") >= 3,
        "looked for again and again"
    );
    assert_eq!(
        s.github.pull_request(&repo(), 1).unwrap().threads[0]
            .comments
            .len(),
        1
    );
}

#[tokio::test]
async fn a_pr_comment_is_marked_and_posted_once_even_behind_a_502() {
    let pr = PrBuilder::new().build();
    let subject = pr.id.clone();
    let s = setup(pr, fast_policy()).await;
    s.github.inject(Fault::ApplyThenFail {
        operation: Some("AddPrComment".to_owned()),
        status: 502,
        times: 1,
    });
    let key = post::idempotency_key(
        &ThreadId::from(subject.as_str()),
        "All review threads are resolved.",
    );
    let body = post::marked_body(
        review_core::gate::DEFAULT_AUTOMATED_HEADER,
        "All review threads are resolved.",
        &key,
    );
    let host = host(&s, 1);
    let posted = host.comment(&subject, &body).await.unwrap();
    let now = s.github.pull_request(&repo(), 1).unwrap();
    assert_eq!(now.comments.len(), 1, "posted once");
    assert_eq!(now.comments[0].id, posted.id);
    assert!(host.comment(&subject, "unmarked").await.is_err());
    assert!(host.comment("PR_nope", &body).await.is_err());
}
