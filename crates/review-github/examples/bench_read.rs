//! Reads generated pull requests from the local fake GitHub, with 0 and 50 ms added to every
//! answer: 1,000 threads and 5,460 comments, and the same with 2,451 reviews. For each it prints
//! requests, the round-trip depth (how many answers were waited for one after another), their
//! lower bounds, GraphQL points and wall time. Then it resolves 200 threads.
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
use review_test_support::github::{
    FakeGitHub, Fault, depth_lower_bound, large_pull_request, requests_lower_bound, with_reviews,
};

#[tokio::main(flavor = "multi_thread", worker_threads = 2)]
async fn main() {
    // 1,000 threads: 990 of 4 comments and 10 of 150 (two pages each): 5,460 comments in all.
    let long: Vec<(usize, usize)> = (0..10).map(|i| (i * 97, 150)).collect();
    let pr = large_pull_request(1000, 4, &long);
    let comments: usize = pr.threads.iter().map(|t| t.comments.len()).sum();
    let many_reviews = with_reviews(pr.clone(), 2451);
    println!(
        "| PR | latency | requests | requests lower bound | depth | depth lower bound | GraphQL points | wall |"
    );
    println!("|---|---|---|---|---|---|---|---|");
    for (label, pr) in [
        (format!("1,000 threads ({comments} comments)"), &pr),
        (
            format!("1,000 threads ({comments} comments), 2,451 reviews"),
            &many_reviews,
        ),
    ] {
        for latency in [0u64, 50] {
            let github = FakeGitHub::start().await;
            github.add_pull_request(pr.clone());
            if latency > 0 {
                github.inject(Fault::Slow {
                    operation: None,
                    delay: Duration::from_millis(latency),
                    times: usize::MAX,
                });
            }
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
            assert_eq!(read.threads, pr.threads);
            assert_eq!(read.reviews, pr.reviews);
            let stats = client.stats();
            println!(
                "| {label} | {latency} ms | {} | {} | {} | {} | {} | {:.0} ms |",
                stats.requests,
                requests_lower_bound(pr),
                github.depth(),
                depth_lower_bound(pr),
                stats.points,
                elapsed.as_secs_f64() * 1000.0
            );
        }
    }

    let github = FakeGitHub::start().await;
    github.add_pull_request(pr.clone());
    let client = Client::new(
        &github.graphql_url(),
        &Token::new("bench"),
        RetryPolicy::default(),
    )
    .unwrap();
    let read = Reader::new(&client)
        .pull_request(&pr.repo, pr.number)
        .await
        .unwrap();
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
