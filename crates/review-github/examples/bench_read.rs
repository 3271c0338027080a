//! Reads a generated pull request of 1,000 threads and 5,000 comments from the local fake GitHub
//! and resolves 200 threads, printing requests, GraphQL points and wall time.
//!
//! ```sh
//! cargo run --release -p review-github --example bench_read
//! ```
#![allow(clippy::print_stdout, reason = "a benchmark prints its figures")]
#![allow(clippy::unwrap_used, reason = "a benchmark on generated data")]

use std::time::{Duration, Instant};

use review_core::model::ThreadId;
use review_core::ports::ReviewHost;
use review_github::adapter::{GitHubHost, WriteSettings};
use review_github::client::{Client, RetryPolicy};
use review_github::reader::Reader;
use review_github::token::Token;
use review_test_support::github::{FakeGitHub, large_pull_request};

#[tokio::main(flavor = "multi_thread", worker_threads = 2)]
async fn main() {
    // 1,000 threads: 990 of 4 comments and 10 of 150 (two pages each): 5,460 comments in all.
    let long: Vec<(usize, usize)> = (0..10).map(|i| (i * 97, 150)).collect();
    let pr = large_pull_request(1000, 4, &long);
    let comments: usize = pr.threads.iter().map(|t| t.comments.len()).sum();
    let lower_bound = 1000usize.div_ceil(100)
        + pr.threads
            .iter()
            .map(|t| t.comments.len().div_ceil(100).max(1) - 1)
            .sum::<usize>()
        + pr.reviews.len().div_ceil(100).max(1)
        - 1
        + pr.comments.len().div_ceil(100).max(1)
        - 1;
    let github = FakeGitHub::start().await;
    github.add_pull_request(pr.clone());
    let client = Client::new(
        &github.graphql_url(),
        &Token::new("bench"),
        RetryPolicy::default(),
    )
    .unwrap();

    let started = Instant::now();
    let read = Reader::new(&client)
        .pull_request(&pr.repo, pr.number)
        .await
        .unwrap();
    let elapsed = started.elapsed();
    let stats = client.stats();
    assert_eq!(read.threads.len(), 1000);
    println!("read: {} threads, {comments} comments", read.threads.len());
    println!(
        "read: {} requests (lower bound {lower_bound}, ratio {:.2}), {} GraphQL points, {:.0} ms",
        stats.requests,
        stats.requests as f64 / lower_bound as f64,
        stats.points,
        elapsed.as_secs_f64() * 1000.0
    );

    let host = GitHubHost::new(
        client.clone(),
        pr.repo.clone(),
        pr.number,
        WriteSettings {
            post_interval: Duration::ZERO,
            ..WriteSettings::default()
        },
    );
    let ids: Vec<ThreadId> = read
        .threads
        .iter()
        .filter(|t| !t.is_resolved)
        .take(200)
        .map(|t| t.id.clone())
        .collect();
    let before = github.requests().len();
    let started = Instant::now();
    let results = host.resolve_threads(&ids).await;
    let elapsed = started.elapsed();
    assert!(results.iter().all(Result::is_ok));
    let batch = WriteSettings::default().batch_size;
    println!(
        "resolve: {} threads in {} mutation requests (batch size {batch}, bound ceil({}/{batch}) = {}), {:.0} ms",
        ids.len(),
        github.requests().len() - before,
        ids.len(),
        ids.len().div_ceil(batch),
        elapsed.as_secs_f64() * 1000.0
    );
}
