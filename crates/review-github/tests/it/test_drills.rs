//! Fault drills at the adapter level, where the request timeout can be made short: a page
//! slower than the timeout, a reply whose answer never comes, answers cut off mid-body (a real
//! dropped connection, through the fake's proxy), and a 30% rate of 502s over a whole read and
//! write. Each ends as a clean run does, or with a clear error; no reply is ever posted twice.
//! `docs/robustness.md` lists them.

use std::time::Duration;

use review_core::model::{PullRequest, ThreadId};
use review_core::ports::ReviewHost;
use review_core::post;
use review_github::adapter::{GitHubHost, WriteSettings, may_have_been_posted};
use review_github::client::{Client, RetryPolicy};
use review_github::reader::Reader;
use review_github::token::Token;
use review_test_support::github::{FakeGitHub, Fault, large_pull_request};
use review_test_support::{Mutation, PrBuilder, bot};

use crate::common::{POST_CHECK, fast_policy, host, repo, setup};

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
            post_check: POST_CHECK,
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
    policy.write_timeout = Duration::from_millis(300);
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
        text.contains("may have been posted (the answer was cut off")
            && text.contains("looking for it failed")
            && text.contains("run again to check"),
        "{text}"
    );
    assert!(may_have_been_posted(&err), "{err:?}");
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
            // A reply that failed and never showed up: reported, never sent again, and a rerun
            // checks first.
            Err(e) => assert!(
                e.to_string().contains("may have been posted") && may_have_been_posted(&e),
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

// Uncertain posts: sent once, looked for until `WriteSettings::post_check` has passed, never
// sent again.

/// The comments of `thread` on the fake carrying `body`'s idempotency key.
fn keyed(github: &FakeGitHub, thread: &str, body: &str) -> usize {
    let key = post::find_key(body).unwrap();
    github
        .pull_request(&repo(), 1)
        .unwrap()
        .thread(&ThreadId::from(thread))
        .unwrap()
        .comments
        .iter()
        .filter(|c| post::find_key(&c.body) == Some(key))
        .count()
}

#[tokio::test]
async fn drill_a_reply_that_lands_late_is_found_by_looking_again_not_posted_twice() {
    let s = setup(two_threads(), fast_policy()).await;
    let body = marked("T1", "Not applying this: the cache is deliberate.");
    // GitHub answers 502 and writes the reply 150 ms later: the first look finds nothing.
    s.github.inject(Fault::ServerError {
        operation: Some("AddThreadReply".to_owned()),
        status: 502,
        times: 1,
    });
    let late = {
        let body = body.clone();
        let github = &s.github;
        async move {
            tokio::time::sleep(Duration::from_millis(150)).await;
            github.update_pull_request(&repo(), 1, |pr| {
                let mut reply = pr.threads[0].comments[0].clone();
                reply.id = review_core::model::CommentId::from("PRRC_late");
                reply.body = body;
                pr.threads[0].comments.push(reply);
            });
        }
    };
    let (host, thread) = (host(&s, 1), ThreadId::from("T1"));
    let (posted, ()) = tokio::join!(host.reply(&thread, &body), late);
    let posted = posted.unwrap();
    assert_eq!(posted.id.0, "PRRC_late", "found where it landed");
    assert_eq!(s.github.count("AddThreadReply"), 1, "not sent again");
    assert_eq!(keyed(&s.github, "T1", &body), 1, "exactly one reply");
    assert!(
        s.github.count("ThreadCommentsPage") >= 2,
        "the first look missed it; a later one found it"
    );
}

#[tokio::test]
async fn drill_a_reply_that_never_lands_may_have_been_posted_and_a_rerun_posts_it_once() {
    let s = setup(two_threads(), fast_policy()).await;
    let body = marked("T1", "Out of scope for this PR.");
    s.github.inject(Fault::ServerError {
        operation: Some("AddThreadReply".to_owned()),
        status: 502,
        times: 1,
    });
    let started = std::time::Instant::now();
    let err = host(&s, 1)
        .reply(&ThreadId::from("T1"), &body)
        .await
        .unwrap_err();
    assert!(
        started.elapsed() >= POST_CHECK,
        "looked for the whole budget"
    );
    assert!(may_have_been_posted(&err), "{err:?}");
    let text = err.to_string();
    assert!(
        text.contains("the reply may have been posted (GitHub answered HTTP 502)")
            && text.contains("it is not sent again; run again to check"),
        "{text}"
    );
    assert_eq!(s.github.count("AddThreadReply"), 1);
    assert_eq!(keyed(&s.github, "T1", &body), 0);

    // The next run: its read shows no reply with the key, so it posts, once.
    let read = Reader::new(&s.client)
        .pull_request(&repo(), 1)
        .await
        .unwrap();
    let key = post::find_key(&body).unwrap();
    assert!(
        !read.threads[0]
            .comments
            .iter()
            .any(|c| post::find_key(&c.body) == Some(key))
    );
    host(&s, 1)
        .reply(&ThreadId::from("T1"), &body)
        .await
        .unwrap();
    assert_eq!(keyed(&s.github, "T1", &body), 1, "exactly one reply");
}

#[tokio::test]
async fn drill_an_uncertain_reply_lands_once_whatever_the_fault() {
    for fault in [
        Fault::Slow {
            operation: Some("AddThreadReply".to_owned()),
            delay: Duration::from_secs(2),
            times: 1,
        },
        Fault::ApplyThenFail {
            operation: Some("AddThreadReply".to_owned()),
            status: 504,
            times: 1,
        },
        Fault::CutOff {
            operation: Some("AddThreadReply".to_owned()),
            times: 1,
        },
    ] {
        let mut policy = fast_policy();
        policy.write_timeout = Duration::from_millis(300);
        let s = setup(two_threads(), policy).await;
        // Reading the thread fails twice in a row first: found by a later look.
        s.github.inject(Fault::ServerError {
            operation: Some("ThreadCommentsPage".to_owned()),
            status: 502,
            times: 4,
        });
        s.github.inject(fault.clone());
        let body = marked("T2", "Fixed in 3f2a9c1.");
        host(&s, 1)
            .reply(&ThreadId::from("T2"), &body)
            .await
            .unwrap_or_else(|e| panic!("{fault:?}: {e}"));
        assert_eq!(s.github.count("AddThreadReply"), 1, "{fault:?}");
        assert_eq!(keyed(&s.github, "T2", &body), 1, "{fault:?}");
        assert!(s.github.count("ThreadCommentsPage") >= 5, "{fault:?}");
    }
}

#[tokio::test]
async fn drill_a_pr_comment_that_never_lands_may_have_been_posted() {
    let s = setup(two_threads(), fast_policy()).await;
    let subject = s.github.pull_request(&repo(), 1).unwrap().id;
    let key = post::idempotency_key(&ThreadId::from("review:PRR_1"), "Addressed.");
    let body = post::marked_body(
        review_core::gate::DEFAULT_AUTOMATED_HEADER,
        "Addressed.",
        &key,
    );
    s.github.inject(Fault::ServerError {
        operation: Some("AddPrComment".to_owned()),
        status: 503,
        times: 1,
    });
    let err = host(&s, 1).comment(&subject, &body).await.unwrap_err();
    assert!(may_have_been_posted(&err), "{err:?}");
    assert!(
        err.to_string().contains("the comment may have been posted"),
        "{err}"
    );
    assert_eq!(s.github.count("AddPrComment"), 1);
    assert!(
        s.github.count("PullRequestFirstPage") >= 3,
        "looked for on the PR"
    );
}

#[tokio::test]
async fn drill_a_mutation_waits_for_the_longer_write_timeout() {
    let mut policy = fast_policy();
    policy.request_timeout = Duration::from_millis(300);
    policy.write_timeout = Duration::from_secs(3);
    let s = setup(two_threads(), policy).await;
    // A reply answered after 1 s: past a read's timeout, within a write's.
    s.github.inject(Fault::Slow {
        operation: Some("AddThreadReply".to_owned()),
        delay: Duration::from_secs(1),
        times: 1,
    });
    let body = marked("T1", "Done.");
    host(&s, 1)
        .reply(&ThreadId::from("T1"), &body)
        .await
        .unwrap();
    assert_eq!(
        s.github.count("ThreadCommentsPage"),
        0,
        "answered in time: nothing to look for"
    );
    assert!(s.waits.lock().unwrap().is_empty(), "{:?}", s.waits);
    // A read answered after 1 s times out and is retried.
    s.github.inject(Fault::Slow {
        operation: Some("PullRequestFirstPage".to_owned()),
        delay: Duration::from_secs(1),
        times: 1,
    });
    Reader::new(&s.client)
        .pull_request(&repo(), 1)
        .await
        .unwrap();
    assert_eq!(
        s.waits.lock().unwrap().first().map(String::as_str),
        Some("no answer within 0.3 s; retrying in 0.1 s")
    );
}
