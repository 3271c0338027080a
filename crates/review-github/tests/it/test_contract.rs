//! The review-host port's contract on the failures that stop every request, run alike against
//! the in-memory `FakeHost` and against `GitHubHost` over the fake GitHub: a refused token is
//! `HostError::Unauthorized`, a spent rate limit `HostError::Throttled` with its reset, on reads
//! and writes, and each stops all requests.

use std::time::Duration;

use review_core::model::{PullRequest, ThreadId};
use review_core::ports::{HostError, ReviewHost};
use review_core::post;
use review_test_support::github::Fault;
use review_test_support::{FakeHost, PrBuilder, bot};

use crate::common::{Setup, fast_policy, host, repo, setup};

/// How the host is made to refuse every request.
#[derive(Clone, Copy)]
enum Refuse {
    Token,
    /// The rate limit is spent and resets in an hour.
    Budget,
}

/// A host under test; `_github` keeps the fake GitHub serving.
struct Subject {
    name: &'static str,
    host: Box<dyn ReviewHost>,
    _github: Option<Setup>,
}

fn pr() -> PullRequest {
    PrBuilder::new()
        .thread("T1", "a.rs", 1, &[(bot("coderabbitai"), "x")])
        .thread("T2", "a.rs", 2, &[(bot("coderabbitai"), "y")])
        .build()
}

/// The fake host and GitHub's, each refusing as `refuse` says.
async fn subjects(refuse: Refuse) -> Vec<Subject> {
    let fake = FakeHost::new(pr());
    match refuse {
        Refuse::Token => fake.refuse_token(),
        Refuse::Budget => fake.spend_rate_limit(Some(Duration::from_secs(3600))),
    }
    let s = setup(pr(), fast_policy()).await;
    match refuse {
        Refuse::Token => s.github.require_token("another-token"),
        Refuse::Budget => s.github.inject(Fault::RateLimited {
            operation: None,
            reset_in_secs: 3600,
            times: 1_000,
        }),
    }
    vec![
        Subject {
            name: "FakeHost",
            host: Box::new(fake),
            _github: None,
        },
        Subject {
            name: "GitHubHost",
            host: Box::new(host(&s, 1)),
            _github: Some(s),
        },
    ]
}

/// Every kind of request, reads and writes, with what each ended in.
async fn every_request(host: &dyn ReviewHost) -> Vec<(&'static str, HostError)> {
    let mut errors = Vec::new();
    errors.push(("read", host.pull_request(&repo(), 1).await.unwrap_err()));
    let threads = [ThreadId::from("T1"), ThreadId::from("T2")];
    for result in host.resolve_threads(&threads).await {
        errors.push(("resolve", result.unwrap_err()));
    }
    let text = "Not applying this.";
    let key = post::idempotency_key(&threads[0], text);
    let body = post::marked_body(review_core::gate::DEFAULT_AUTOMATED_HEADER, text, &key);
    errors.push(("reply", host.reply(&threads[0], &body).await.unwrap_err()));
    errors
}

#[tokio::test]
async fn a_refused_token_is_unauthorized_on_every_host() {
    for subject in subjects(Refuse::Token).await {
        for (request, e) in every_request(subject.host.as_ref()).await {
            assert!(
                matches!(e, HostError::Unauthorized { .. }),
                "{}: {request}: {e:?}",
                subject.name
            );
            assert!(e.stops_all_requests(), "{}: {request}", subject.name);
        }
    }
}

#[tokio::test]
async fn a_spent_rate_limit_is_throttled_with_its_reset_on_every_host() {
    for subject in subjects(Refuse::Budget).await {
        for (request, e) in every_request(subject.host.as_ref()).await {
            let HostError::Throttled {
                reset_in: Some(reset_in),
                ..
            } = &e
            else {
                panic!("{}: {request}: {e:?}", subject.name)
            };
            assert!(
                (Duration::from_secs(3590)..=Duration::from_secs(3602)).contains(reset_in),
                "{}: {request}: {reset_in:?}",
                subject.name
            );
            assert!(e.stops_all_requests(), "{}: {request}", subject.name);
        }
    }
}
