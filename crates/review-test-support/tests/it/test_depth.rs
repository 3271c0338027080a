//! The round-trip depth the fake measures: requests in flight together share a level.

use std::time::Duration;

use review_test_support::github::{FakeGitHub, Fault};
use review_test_support::{PrBuilder, bot};
use serde_json::{Value, json};

use crate::client::ok;
use crate::queries::PULL_REQUEST_FIRST_PAGE;

const FIRST: &str = "PullRequestFirstPage";

fn vars() -> Value {
    json!({"owner": "acme", "name": "widgets", "number": 1})
}

/// A fake whose every answer takes `latency`.
async fn slow(latency: Duration) -> FakeGitHub {
    let github = FakeGitHub::start().await;
    github.add_pull_request(
        PrBuilder::new()
            .thread("A", "src/a.rs", 1, &[(bot("coderabbitai"), "one")])
            .build(),
    );
    github.inject(Fault::Slow {
        operation: None,
        delay: latency,
        times: usize::MAX,
    });
    github
}

fn read(github: &FakeGitHub) {
    let answer = ok(github, FIRST, PULL_REQUEST_FIRST_PAGE, &vars());
    assert!(answer.get("errors").is_none(), "{answer}");
}

#[tokio::test]
async fn requests_one_after_another_are_as_deep_as_they_are_many() {
    let github = slow(Duration::from_millis(20)).await;
    assert_eq!(github.depth(), 0);
    for _ in 0..4 {
        read(&github);
    }
    assert_eq!(github.requests().len(), 4);
    assert_eq!(github.depth(), 4);
    assert_eq!(github.depth_since(1), 3);
    assert_eq!(github.peak_in_flight_since(0), 1);
}

#[tokio::test]
async fn requests_in_flight_together_share_a_level() {
    let github = slow(Duration::from_millis(300)).await;
    read(&github);
    std::thread::scope(|s| {
        for _ in 0..4 {
            s.spawn(|| read(&github));
        }
    });
    read(&github);
    assert_eq!(github.requests().len(), 6);
    // The first, the four together, the last.
    assert_eq!(github.depth(), 3);
    assert_eq!(github.depth_since(1), 2);
    assert_eq!(github.depth_since(5), 1);
    assert_eq!(github.peak_in_flight_since(0), 4);
    assert_eq!(github.peak_in_flight_since(5), 1);
}
