//! Fault drills at the adapter level, where the request timeout can be made short: a page
//! slower than the timeout, a reply whose answer never comes, answers cut off mid-body (a real
//! dropped connection, through the fake's proxy), and a 30% rate of 502s over a whole read and
//! write. Each ends as a clean run does, or with a clear error; no reply is ever posted twice.
//! `docs/robustness.md` lists them.

use std::time::Duration;

use review_core::model::{PullRequest, ThreadId};
use review_core::ports::ReviewHost;
use review_core::post;
use review_github::adapter::{GitHubHost, WriteSettings};
use review_github::client::{Client, RetryPolicy};
use review_github::reader::Reader;
use review_github::token::Token;
use review_test_support::github::{FakeGitHub, Fault, large_pull_request};
use review_test_support::{Mutation, PrBuilder, bot};

use crate::common::{fast_policy, host, repo, setup};

fn marked(thread: &str, text: &str) -> String {
    let key = post::idempotency_key(&ThreadId::from(thread), text);
    post::marked_body(review_core::gate::DEFAULT_AUTOMATED_HEADER, text, &key)
}

fn replies_to(github: &FakeGitHub, thread: &str) -> usize {
    github
        .mutations()
        .iter()
        .filter(|m| matches!(m, Mutation::Reply(t, _) if t.0 == thread))
        .count()
}

fn two_threads() -> PullRequest {
    PrBuilder::new()
        .thread("T1", "a.rs", 1, &[(bot("coderabbitai"), "x")])
        .thread("T2", "a.rs", 2, &[(bot("coderabbitai"), "y")])
        .build()
}

/// A client and a host reaching the fake through its byte-level proxy, which can drop a
/// connection half-way through an answer.
fn through_proxy(github: &FakeGitHub, policy: RetryPolicy) -> (Client, GitHubHost) {
    let client = Client::new(
        &github.proxied_graphql_url(),
        &Token::new("test-token"),
        policy,
    )
    .unwrap();
    let host = GitHubHost::new(
        client.clone(),
        repo(),
        1,
        WriteSettings {
            post_interval: Duration::ZERO,
            ..WriteSettings::default()
        },
    );
    (client, host)
}

#[tokio::test]
async fn drill_a_page_slower_than_the_timeout_is_retried_and_reads_the_same() {
    let pr = large_pull_request(250, 3, &[]);
    let clean = setup(pr.clone(), fast_policy()).await;
    let expected = Reader::new(&clean.client)
        .pull_request(&repo(), pr.number)
        .await
        .unwrap();

    let mut policy = fast_policy();
    policy.request_timeout = Duration::from_millis(300);
    let s = setup(pr.clone(), policy).await;
    // The second page of threads hangs past the timeout, twice.
    s.github.inject(Fault::Slow {
        operation: Some("ThreadsPage".to_owned()),
        delay: Duration::from_secs(10),
        times: 2,
    });
    let started = std::time::Instant::now();
    let read = Reader::new(&s.client)
        .pull_request(&repo(), pr.number)
        .await
        .unwrap();
    assert_eq!(read, expected, "the same pull request as a clean read");
    assert!(
        started.elapsed() < Duration::from_secs(8),
        "gave up on each slow answer at the timeout"
    );
    let waits = s.waits.lock().unwrap().clone();
    assert_eq!(waits, ["no answer within 0.3 s; retrying in 0.1 s"; 2]);
}

#[tokio::test]
async fn drill_a_page_that_never_answers_gives_up_with_a_clear_error() {
    let mut policy = fast_policy();
    policy.request_timeout = Duration::from_millis(200);
    let s = setup(two_threads(), policy).await;
    s.github.inject(Fault::Slow {
        operation: None,
        delay: Duration::from_secs(2),
        times: 100,
    });
    let err = Reader::new(&s.client)
        .pull_request(&repo(), 1)
        .await
        .unwrap_err();
    let text = err.to_string();
    let source = std::error::Error::source(&err).map(ToString::to_string);
    assert!(
        source.as_deref().is_some_and(
            |s| s.contains("gave up after 4 attempts") && s.contains("no answer within")
        ),
        "{text}: {source:?}"
    );
    assert!(s.github.mutations().is_empty());
}

#[tokio::test]
async fn drill_a_reply_whose_answer_times_out_is_looked_for_not_posted_twice() {
    let mut policy = fast_policy();
    policy.request_timeout = Duration::from_millis(300);
    let s = setup(two_threads(), policy).await;
    // The fake applies the reply at once and answers 2 s later: the client has given up.
    s.github.inject(Fault::Slow {
        operation: Some("AddThreadReply".to_owned()),
        delay: Duration::from_secs(2),
        times: 1,
    });
    let posted = host(&s, 1)
        .reply(&ThreadId::from("T1"), &marked("T1", "Not applying this."))
        .await
        .unwrap();
    assert_eq!(replies_to(&s.github, "T1"), 1, "found, not sent again");
    let now = s.github.pull_request(&repo(), 1).unwrap();
    assert_eq!(now.threads[0].comments[1].id, posted.id);
    assert_eq!(s.github.count("AddThreadReply"), 1);
}

#[tokio::test]
async fn drill_a_read_cut_off_mid_answer_is_retried_and_reads_the_same() {
    let pr = large_pull_request(150, 2, &[]);
    let clean = setup(pr.clone(), fast_policy()).await;
    let expected = Reader::new(&clean.client)
        .pull_request(&repo(), pr.number)
        .await
        .unwrap();

    let github = FakeGitHub::start().await;
    github.add_pull_request(pr.clone());
    github.inject(Fault::CutOff {
        operation: None,
        times: 2,
    });
    let (client, _) = through_proxy(&github, fast_policy());
    let read = Reader::new(&client)
        .pull_request(&repo(), pr.number)
        .await
        .unwrap();
    assert_eq!(read, expected);
    assert_eq!(client.stats().retries, 2, "each cut answer asked again");
}

#[tokio::test]
async fn drill_a_reply_cut_off_mid_answer_lands_once() {
    let github = FakeGitHub::start().await;
    github.add_pull_request(two_threads());
    let (_, host) = through_proxy(&github, fast_policy());
    github.inject(Fault::CutOff {
        operation: Some("AddThreadReply".to_owned()),
        times: 1,
    });
    host.reply(&ThreadId::from("T1"), &marked("T1", "Fixed in 3f2a9c1."))
        .await
        .unwrap();
    assert_eq!(replies_to(&github, "T1"), 1);
    assert_eq!(
        github.count("AddThreadReply"),
        1,
        "found by re-reading, not re-sent"
    );

    // A resolve batch cut off mid-answer: applied, then sent again, which is harmless.
    github.inject(Fault::CutOff {
        operation: Some("ResolveThreads".to_owned()),
        times: 1,
    });
    let results = host
        .resolve_threads(&[ThreadId::from("T1"), ThreadId::from("T2")])
        .await;
    assert!(results.iter().all(Result::is_ok), "{results:?}");
    let now = github.pull_request(&repo(), 1).unwrap();
    assert!(now.threads.iter().all(|t| t.is_resolved));
}

#[tokio::test]
async fn drill_a_reply_cut_off_twice_is_reported_uncertain_and_posted_once() {
    let github = FakeGitHub::start().await;
    github.add_pull_request(two_threads());
    let (_, host) = through_proxy(&github, fast_policy());
    // The reply is cut off, and so is every read that looks for it: the host cannot tell, and
    // says so rather than posting again.
    github.inject(Fault::CutOff {
        operation: Some("AddThreadReply".to_owned()),
        times: 1,
    });
    github.inject(Fault::CutOff {
        operation: Some("ThreadCommentsPage".to_owned()),
        times: 1_000,
    });
    let err = host
        .reply(&ThreadId::from("T1"), &marked("T1", "Fixed in 3f2a9c1."))
        .await
        .unwrap_err();
    let text = err.to_string();
    assert!(
        text.contains("may not have been posted (the answer was cut off")
            && text.contains("looking for it failed")
            && text.contains("run again to check"),
        "{text}"
    );
    assert_eq!(
        replies_to(&github, "T1"),
        1,
        "landed once, never sent again"
    );
    assert_eq!(github.count("AddThreadReply"), 1);
}

#[tokio::test]
async fn drill_thirty_percent_of_502s_over_a_read_and_writes_end_as_a_clean_run() {
    let pr = large_pull_request(300, 2, &[]);
    let ids: Vec<ThreadId> = pr.threads.iter().take(60).map(|t| t.id.clone()).collect();
    let clean = setup(pr.clone(), fast_policy()).await;
    let expected = Reader::new(&clean.client)
        .pull_request(&repo(), pr.number)
        .await
        .unwrap();

    let s = setup(pr.clone(), fast_policy()).await;
    s.github.inject(Fault::Flaky {
        operation: None,
        status: 502,
        percent: 30,
        seed: 482,
        times: usize::MAX,
    });
    let read = Reader::new(&s.client)
        .pull_request(&repo(), pr.number)
        .await
        .unwrap();
    assert_eq!(read, expected);
    let host = host(&s, pr.number);
    let results = host.resolve_threads(&ids).await;
    for (i, id) in ids.iter().enumerate().take(3) {
        let body = marked(&id.0, "Not applying this.");
        match host.reply(id, &body).await {
            Ok(_) => {}
            // Both the reply and its second try failed: reported, and a rerun checks first.
            Err(e) => assert!(
                e.to_string().contains("may not have been posted"),
                "{i}: {e}"
            ),
        }
    }
    let failed = s
        .github
        .requests()
        .iter()
        .filter(|r| r.status == 502)
        .count();
    assert!(failed > 0, "the drill injected failures");
    assert!(
        results.iter().all(Result::is_ok),
        "each batch retried to success: {results:?}"
    );
    let now = s.github.pull_request(&repo(), pr.number).unwrap();
    assert!(ids.iter().all(|id| now.thread(id).unwrap().is_resolved));
    for id in ids.iter().take(3) {
        assert!(replies_to(&s.github, &id.0) <= 1, "{id} replied twice");
    }
    assert_eq!(
        s.client.stats().requests,
        s.github.requests().len() as u64,
        "every request counted"
    );
}

#[tokio::test]
async fn drill_a_json_body_that_stops_short_is_treated_as_cut_off() {
    // Without the proxy the fake answers the right status with half the body: the stand-in
    // for a connection dropped mid-answer.
    let s = setup(two_threads(), fast_policy()).await;
    s.github.inject(Fault::CutOff {
        operation: None,
        times: 1,
    });
    let read = Reader::new(&s.client)
        .pull_request(&repo(), 1)
        .await
        .unwrap();
    assert_eq!(read.threads.len(), 2);
    assert!(
        s.waits.lock().unwrap()[0].starts_with("the answer was cut off"),
        "{:?}",
        s.waits.lock().unwrap()
    );

    s.github.inject(Fault::CutOff {
        operation: Some("AddThreadReply".to_owned()),
        times: 1,
    });
    host(&s, 1)
        .reply(&ThreadId::from("T2"), &marked("T2", "Out of scope."))
        .await
        .unwrap();
    assert_eq!(
        replies_to(&s.github, "T2"),
        1,
        "landed, found, not sent again"
    );
    assert_eq!(s.github.count("AddThreadReply"), 1);
}

#[tokio::test]
async fn drill_a_spent_budget_stops_the_resolve_batches_at_the_first() {
    let pr = large_pull_request(70, 1, &[]);
    let ids: Vec<ThreadId> = pr.threads.iter().map(|t| t.id.clone()).collect();
    let s = setup(pr, fast_policy()).await;
    s.github.inject(Fault::RateLimited {
        operation: None,
        reset_in_secs: 3600,
        times: 1_000,
    });
    let results = host(&s, 1).resolve_threads(&ids).await;
    assert_eq!(results.len(), 70);
    assert!(results.iter().all(|r| {
        r.as_ref()
            .is_err_and(|e| e.to_string().contains("rate limit is exhausted"))
    }));
    assert_eq!(
        s.github.count("ResolveThreads"),
        1,
        "the later batches were not sent"
    );
}
