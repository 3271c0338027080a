//! The REST change probe against the fake: idle polls are free `304`s, real changes are named,
//! checks are summarized, failures are typed, and the cache survives a process boundary.

use std::time::Duration;

use review_core::model::{ChecksState, CommentId, CommitId, IssueComment, ThreadId};
use review_core::ports::ReviewHost;
use review_github::probe::{Probe, ProbeCache, ProbeError, ProbeOutcome, ProbePolicy, Resource};
use review_github::token::Token;
use review_test_support::github::{FakeCheck, Fault, REST_OPERATION};
use review_test_support::{HEAD_SHA, PrBuilder, bot, person};

use crate::common::{Setup, fast_policy, host, repo, setup};

const NEW_HEAD: &str = "b2c3d4e5f60718293a4b5c6d7e8f901234567890";

fn fast() -> ProbePolicy {
    ProbePolicy {
        max_attempts: 3,
        base_backoff: Duration::from_millis(5),
        request_timeout: Duration::from_secs(5),
    }
}

async fn fixture() -> (Setup, Probe) {
    let pr = PrBuilder::new()
        .thread(
            "T1",
            "src/a.rs",
            3,
            &[(bot("coderabbitai"), "Consider a bound here.")],
        )
        .thread("T2", "src/b.rs", 9, &[(bot("coderabbitai"), "Typo.")])
        .build();
    let s = setup(pr, fast_policy()).await;
    let probe = Probe::new(&s.github.rest_url(), &Token::new("test-token"))
        .unwrap()
        .with_policy(fast());
    (s, probe)
}

async fn poll(probe: &Probe, cache: &mut ProbeCache) -> ProbeOutcome {
    probe.poll(cache, &repo(), 1).await.unwrap()
}

fn push_comment(pr: &mut review_core::model::PullRequest, id: &str, body: &str) {
    pr.comments.push(IssueComment {
        id: CommentId(id.to_owned()),
        author: Some(person("erin")),
        body: body.to_owned(),
        created_at: "2026-11-30T12:00:00Z".to_owned(),
        url: String::new(),
    });
}

#[tokio::test]
async fn the_first_poll_sees_everything_and_an_idle_one_costs_nothing() {
    let (s, probe) = fixture().await;
    let mut cache = ProbeCache::new();
    let first = poll(&probe, &mut cache).await;
    assert_eq!(first.changed, Resource::ALL);
    assert_eq!((first.requests, first.not_modified), (6, 0));
    assert_eq!(first.head_sha, HEAD_SHA);
    assert_eq!(first.pr_state, "open");
    assert!(!first.merged);
    assert_eq!(first.checks.state, None, "no checks yet");
    assert_eq!(s.github.rest_charged(), 6);
    assert_eq!(cache.len(), 6);

    let points = s.github.points();
    let idle = poll(&probe, &mut cache).await;
    assert!(idle.is_idle(), "{:?}", idle.changed);
    assert_eq!((idle.requests, idle.not_modified), (6, 6));
    assert_eq!(idle.head_sha, HEAD_SHA, "answered from the cache");
    assert_eq!(s.github.rest_charged(), 6, "304s are free");
    assert_eq!(s.github.rest_not_modified(), 6);
    assert_eq!(s.github.points(), points, "no GraphQL at all");
    assert!(s.github.requests().is_empty());

    // What was sent: the API's media type and version, and the ETags back.
    let log = s.github.rest_log();
    assert!(log.iter().all(|r| r.method == "GET"
        && r.accept.as_deref() == Some("application/vnd.github+json")
        && r.api_version.as_deref() == Some("2022-11-28")
        && r.authorization.as_deref() == Some("Bearer test-token")));
    assert!(log[..6].iter().all(|r| r.if_none_match.is_none()));
    assert!(log[6..].iter().all(|r| r.if_none_match.is_some()));
    assert_eq!(log[0].path, "/repos/acme/widgets/pulls/1");
    assert_eq!(
        log[4].path,
        format!("/repos/acme/widgets/commits/{HEAD_SHA}/check-runs?per_page=100")
    );
}

#[tokio::test]
async fn resolving_threads_between_polls_stays_idle() {
    let (s, probe) = fixture().await;
    let mut cache = ProbeCache::new();
    poll(&probe, &mut cache).await;
    let results = host(&s, 1)
        .resolve_threads(&[ThreadId::from("T1"), ThreadId::from("T2")])
        .await;
    assert!(results.iter().all(Result::is_ok));
    let idle = poll(&probe, &mut cache).await;
    assert!(idle.is_idle(), "{:?}", idle.changed);
    assert_eq!(idle.not_modified, 6);
}

#[tokio::test]
async fn a_reply_moves_the_pull_request_its_reviews_and_review_comments() {
    let (s, probe) = fixture().await;
    let mut cache = ProbeCache::new();
    poll(&probe, &mut cache).await;
    let thread = ThreadId::from("T2");
    let key = review_core::post::idempotency_key(&thread, "Fixed, thanks.");
    let body = review_core::post::marked_body(
        review_core::gate::DEFAULT_AUTOMATED_HEADER,
        "Fixed, thanks.",
        &key,
    );
    host(&s, 1).reply(&thread, &body).await.unwrap();
    let after = poll(&probe, &mut cache).await;
    assert_eq!(
        after.changed,
        [Resource::Pull, Resource::Reviews, Resource::ReviewComments]
    );
    assert_eq!(after.not_modified, 3);
    assert!(poll(&probe, &mut cache).await.is_idle());
}

#[tokio::test]
async fn a_human_reply_and_an_issue_comment_are_named() {
    let (s, probe) = fixture().await;
    let mut cache = ProbeCache::new();
    poll(&probe, &mut cache).await;

    s.github.update_pull_request(&repo(), 1, |pr| {
        push_comment(pr, "IC_1", "Can we ship this today?");
    });
    let after = poll(&probe, &mut cache).await;
    assert_eq!(after.changed, [Resource::Pull, Resource::IssueComments]);

    s.github.update_pull_request(&repo(), 1, |pr| {
        let mut reply = pr.threads[0].comments[0].clone();
        reply.id = CommentId::from("PRRC_human");
        reply.author = Some(person("erin"));
        reply.body = "I disagree, keep it unbounded.".to_owned();
        pr.threads[0].comments.push(reply);
    });
    let after = poll(&probe, &mut cache).await;
    assert_eq!(after.changed, [Resource::Pull, Resource::ReviewComments]);

    // An edit of a comment's body is a change too.
    s.github.update_pull_request(&repo(), 1, |pr| {
        pr.comments[0].body = "Can we ship this tomorrow?".to_owned();
    });
    let after = poll(&probe, &mut cache).await;
    assert_eq!(after.changed, [Resource::Pull, Resource::IssueComments]);
}

#[tokio::test]
async fn a_push_moves_the_head_and_the_checks() {
    let (s, probe) = fixture().await;
    let mut cache = ProbeCache::new();
    poll(&probe, &mut cache).await;
    s.github.update_pull_request(&repo(), 1, |pr| {
        pr.head_sha = CommitId::from(NEW_HEAD);
        pr.threads[0].is_outdated = true;
    });
    let after = poll(&probe, &mut cache).await;
    assert_eq!(after.head_sha, NEW_HEAD);
    assert_eq!(
        after.changed,
        [
            Resource::Pull,
            Resource::ReviewComments,
            Resource::CheckRuns,
            Resource::Status
        ]
    );
    assert_eq!(cache.len(), 6, "the old head's checks are forgotten");
    let log = s.github.rest_log();
    assert!(log[log.len() - 2].path.contains(NEW_HEAD));
    assert!(poll(&probe, &mut cache).await.is_idle());
}

#[tokio::test]
async fn checks_fail_then_pass() {
    let (s, probe) = fixture().await;
    let mut cache = ProbeCache::new();
    poll(&probe, &mut cache).await;

    s.github.set_checks(
        &repo(),
        1,
        vec![
            FakeCheck::passed("build"),
            FakeCheck::failed("test (ubuntu-latest)"),
            FakeCheck::running("lint"),
            FakeCheck::status("ci/legacy", "pending"),
        ],
    );
    let failing = poll(&probe, &mut cache).await;
    assert_eq!(failing.changed, [Resource::CheckRuns, Resource::Status]);
    assert_eq!(failing.checks.state, Some(ChecksState::Failure));
    assert_eq!(failing.checks.failing, ["test (ubuntu-latest)"]);
    assert_eq!(failing.checks.pending, ["lint", "ci/legacy"]);
    assert_eq!(
        s.github.pull_request(&repo(), 1).unwrap().checks,
        Some(ChecksState::Failure),
        "GraphQL agrees"
    );

    // Nothing moved: the summary comes from the cache.
    let idle = poll(&probe, &mut cache).await;
    assert!(idle.is_idle());
    assert_eq!(idle.checks, failing.checks);

    s.github.set_checks(
        &repo(),
        1,
        vec![
            FakeCheck::passed("build"),
            FakeCheck::passed("test (ubuntu-latest)"),
            FakeCheck::passed("lint"),
            FakeCheck::status("ci/legacy", "success"),
        ],
    );
    let passing = poll(&probe, &mut cache).await;
    assert_eq!(passing.changed, [Resource::CheckRuns, Resource::Status]);
    assert_eq!(passing.checks.state, Some(ChecksState::Success));
    assert!(passing.checks.failing.is_empty() && passing.checks.pending.is_empty());
}

#[tokio::test]
async fn the_cache_crosses_a_process_boundary() {
    let (s, probe) = fixture().await;
    let mut cache = ProbeCache::new();
    poll(&probe, &mut cache).await;
    let saved = serde_json::to_string_pretty(&cache).unwrap();

    // A second process: a new probe, the cache read back from the state file.
    let probe = Probe::new(&s.github.rest_url(), &Token::new("test-token"))
        .unwrap()
        .with_policy(fast());
    let mut restored: ProbeCache = serde_json::from_str(&saved).unwrap();
    assert_eq!(restored, cache);
    let charged = s.github.rest_charged();
    let idle = poll(&probe, &mut restored).await;
    assert!(idle.is_idle());
    assert_eq!(idle.not_modified, 6);
    assert_eq!(idle.head_sha, HEAD_SHA);
    assert_eq!(s.github.rest_charged(), charged);
}

#[tokio::test]
async fn a_502_once_is_retried() {
    let (s, probe) = fixture().await;
    s.github.inject(Fault::ServerError {
        operation: Some(REST_OPERATION.into()),
        status: 502,
        times: 1,
    });
    let mut cache = ProbeCache::new();
    let outcome = poll(&probe, &mut cache).await;
    assert_eq!(outcome.changed, Resource::ALL);
    assert_eq!(outcome.requests, 7, "six and one retry");
    assert_eq!(s.github.rest_requests(), 7);
}

#[tokio::test]
async fn a_token_that_cannot_read_checks_still_watches_the_pull_request() {
    let (s, probe) = fixture().await;
    for route in ["rest:check-runs", "rest:status"] {
        s.github.inject(Fault::ServerError {
            operation: Some(route.into()),
            status: 403,
            times: usize::MAX,
        });
    }
    let mut cache = ProbeCache::new();
    let outcome = probe
        .poll(&mut cache, &repo(), 1)
        .await
        .expect("a 403 on checks is not an error");
    assert_eq!(outcome.checks.state, None, "no checks it can see");
    let again = poll(&probe, &mut cache).await;
    assert!(
        !again.changed.contains(&Resource::Pull),
        "the pull request itself is still polled with its ETag: {:?}",
        again.changed
    );
}

#[tokio::test]
async fn persistent_5xx_gives_up_and_a_change_it_saw_is_reported_next_time() {
    let (s, probe) = fixture().await;
    let mut cache = ProbeCache::new();
    poll(&probe, &mut cache).await;
    s.github
        .update_pull_request(&repo(), 1, |pr| push_comment(pr, "IC_1", "Ping?"));
    // The pull request and its comments answer 200; the reviews fail for good.
    s.github.inject(Fault::ServerError {
        operation: Some(format!("{REST_OPERATION}:reviews")),
        status: 503,
        times: 3,
    });
    let before = cache.clone();
    let err = probe.poll(&mut cache, &repo(), 1).await.unwrap_err();
    assert!(
        matches!(err, ProbeError::Unavailable { attempts: 3, .. }),
        "{err}"
    );
    assert!(err.to_string().contains("HTTP 503"), "{err}");
    assert_eq!(cache, before, "a failed poll changes nothing");
    let after = poll(&probe, &mut cache).await;
    assert_eq!(after.changed, [Resource::Pull, Resource::IssueComments]);
}

#[tokio::test]
async fn bad_credentials_are_typed_and_never_show_the_token() {
    let (s, _) = fixture().await;
    s.github.require_token("the-right-one");
    let probe = Probe::new(&s.github.rest_url(), &Token::new("ghp_wrong_s3cret"))
        .unwrap()
        .with_policy(fast());
    let mut cache = ProbeCache::new();
    let err = probe.poll(&mut cache, &repo(), 1).await.unwrap_err();
    assert!(matches!(err, ProbeError::BadCredentials), "{err}");
    assert_eq!(s.github.rest_requests(), 1, "not retried");
    for shown in [
        err.to_string(),
        format!("{err:?}"),
        format!("{probe:?}"),
        format!("{cache:?}"),
    ] {
        assert!(!shown.contains("s3cret"), "{shown}");
    }
    assert!(cache.is_empty());
}

#[tokio::test]
async fn unknown_pull_requests_and_rate_limits_are_typed() {
    let (s, probe) = fixture().await;
    let mut cache = ProbeCache::new();
    let err = probe.poll(&mut cache, &repo(), 99).await.unwrap_err();
    assert!(
        matches!(&err, ProbeError::NotFound { path } if path == "/repos/acme/widgets/pulls/99"),
        "{err}"
    );

    s.github.inject(Fault::SecondaryLimit {
        operation: Some(REST_OPERATION.into()),
        status: 403,
        retry_after: Some(42),
        times: 1,
    });
    let err = probe.poll(&mut cache, &repo(), 1).await.unwrap_err();
    assert!(
        matches!(err, ProbeError::RateLimited { retry_after: Some(d), .. } if d == Duration::from_secs(42)),
        "{err}"
    );

    s.github.inject(Fault::RateLimited {
        operation: Some(REST_OPERATION.into()),
        reset_in_secs: 600,
        times: 1,
    });
    let err = probe.poll(&mut cache, &repo(), 1).await.unwrap_err();
    let ProbeError::RateLimited {
        retry_after: Some(wait),
        ..
    } = err
    else {
        panic!("{err}")
    };
    assert!(
        (Duration::from_secs(590)..=Duration::from_secs(602)).contains(&wait),
        "{wait:?}"
    );
    assert!(cache.is_empty());
}

#[tokio::test]
async fn an_enterprise_base_keeps_its_api_v3_path() {
    let (s, _) = fixture().await;
    let probe = Probe::new(
        &format!("{}/", s.github.enterprise_rest_url()),
        &Token::new("test-token"),
    )
    .unwrap()
    .with_policy(fast());
    let mut cache = ProbeCache::new();
    let outcome = poll(&probe, &mut cache).await;
    assert_eq!(outcome.changed, Resource::ALL);
    let log = s.github.rest_log();
    assert!(
        log.iter()
            .all(|r| r.path.starts_with("/api/v3/repos/acme/widgets/"))
    );
    assert!(log.iter().all(|r| r.authorization.is_some()));
}

#[tokio::test]
async fn bad_bases_and_tokens_are_refused_without_a_panic() {
    for base in [
        "",
        "not a url",
        "ftp://example.com",
        "/api/v3",
        "https://h/x?y=1",
    ] {
        let err = Probe::new(base, &Token::new("t")).unwrap_err();
        assert!(matches!(err, ProbeError::Build(_)), "{base}: {err}");
    }
    let err = Probe::new("https://api.github.com", &Token::new("ghp_a\nb_s3cret")).unwrap_err();
    assert!(matches!(err, ProbeError::Build(_)), "{err}");
    assert!(!err.to_string().contains("s3cret"));
}

#[tokio::test]
async fn a_closed_and_merged_pull_request_says_so() {
    let (s, probe) = fixture().await;
    s.github.update_pull_request(&repo(), 1, |pr| {
        pr.state = review_core::model::PrState::Merged;
    });
    let outcome = poll(&probe, &mut ProbeCache::new()).await;
    assert_eq!(outcome.pr_state, "closed");
    assert!(outcome.merged);
}

#[tokio::test]
async fn a_hand_edited_cache_costs_a_fresh_read_not_an_error() {
    let (_s, probe) = fixture().await;
    let mut cache = ProbeCache::new();
    poll(&probe, &mut cache).await;
    let mut saved = serde_json::to_value(&cache).unwrap();
    let entries = &mut saved["entries"];
    entries["/repos/acme/widgets/pulls/1"]["summary"] =
        serde_json::json!({"kind": "count", "count": 1});
    entries["/repos/acme/widgets/issues/1/comments?per_page=100"]["etag"] =
        serde_json::json!("W/\"bad\nvalue\"");
    let mut edited: ProbeCache = serde_json::from_value(saved).unwrap();
    let outcome = poll(&probe, &mut edited).await;
    assert_eq!(outcome.changed, [Resource::Pull, Resource::IssueComments]);
    assert_eq!(outcome.head_sha, HEAD_SHA);
    assert_eq!(edited, cache, "healed");
    assert!(poll(&probe, &mut edited).await.is_idle());
}
