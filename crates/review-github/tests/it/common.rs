//! A fake GitHub and a client pointed at it.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use review_core::model::{PullRequest, RepoId};
use review_github::adapter::{GitHubHost, WriteSettings};
use review_github::client::{Client, RetryPolicy};
use review_github::token::Token;
use review_test_support::github::FakeGitHub;

pub fn repo() -> RepoId {
    RepoId::parse("acme/widgets").unwrap()
}

/// How long the tests' hosts look for a post whose answer was lost (60 s in use).
pub const POST_CHECK: Duration = Duration::from_millis(400);

/// Retries without real waits, except those GitHub names (`retry-after`).
pub fn fast_policy() -> RetryPolicy {
    RetryPolicy {
        max_attempts: 4,
        base_backoff: Duration::from_millis(5),
        secondary_wait: Duration::from_millis(50),
        max_secondary_attempts: 3,
        max_wait: Duration::from_secs(5),
        request_timeout: Duration::from_secs(5),
        write_timeout: Duration::from_secs(5),
    }
}

pub struct Setup {
    pub github: FakeGitHub,
    pub client: Client,
    pub waits: Arc<Mutex<Vec<String>>>,
}

pub async fn setup(pr: PullRequest, policy: RetryPolicy) -> Setup {
    let github = FakeGitHub::start().await;
    github.add_pull_request(pr);
    let waits = Arc::new(Mutex::new(Vec::new()));
    let sink = waits.clone();
    let client = Client::new(&github.graphql_url(), &Token::new("test-token"), policy)
        .unwrap()
        .with_progress(Arc::new(move |m: &str| {
            sink.lock().unwrap().push(m.to_owned());
        }));
    Setup {
        github,
        client,
        waits,
    }
}

pub fn host(setup: &Setup, number: u64) -> GitHubHost {
    GitHubHost::new(
        setup.client.clone(),
        repo(),
        number,
        WriteSettings {
            post_interval: Duration::ZERO,
            post_check: POST_CHECK,
            ..WriteSettings::default()
        },
    )
}
