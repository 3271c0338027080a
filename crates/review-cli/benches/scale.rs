//! How `review` behaves at the scale of the busiest pull requests: generated PRs of 1,000 and
//! 3,000 threads (with several threads of 150+ comments and bodies of 1-3 KB) served by the fake
//! GitHub with 0 and 50 ms of latency per request. For `review triage` (plan and apply) and
//! `review watch` (a first poll, then an idle one) it prints requests, the round-trip depth of
//! the GraphQL requests (how many answers were waited for one after another), GraphQL points,
//! wall time, the process's peak memory, the ratio of requests to the lower bound, and the
//! lower bound of the depth (the first page plus the longest chain of later pages).
//!
//! ```sh
//! cargo bench -p review-cli --bench scale
//! ```
#![allow(clippy::print_stdout, reason = "a benchmark prints its figures")]
#![allow(clippy::unwrap_used, reason = "a benchmark on generated data")]
#![allow(
    clippy::disallowed_methods,
    reason = "a benchmark runs the binary and sets its environment"
)]

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use review_core::model::PullRequest;
use review_test_support::github::{
    FakeGitHub, Fault, depth_lower_bound, large_pull_request, requests_lower_bound,
};

/// A generated PR with bodies padded to 1-3 KB.
fn generate(threads: usize, per_thread: usize, long: &[(usize, usize)]) -> PullRequest {
    let mut pr = large_pull_request(threads, per_thread, long);
    let filler = "The cached value is read on every request, so a stale entry stays visible \
                  until the process restarts; bound it and key it by version. ";
    for (i, c) in pr
        .threads
        .iter_mut()
        .flat_map(|t| t.comments.iter_mut())
        .enumerate()
    {
        let target = 1024 + (i * 37) % 2048;
        while c.body.len() < target {
            c.body.push_str(filler);
        }
    }
    pr
}

/// Runs `review ARGS` in `dir` against `github`; returns wall time and peak resident memory.
fn run(dir: &Path, github: &FakeGitHub, args: &[&str]) -> (Duration, u64, bool) {
    let started = Instant::now();
    let mut child = Command::new(env!("CARGO_BIN_EXE_review"))
        .args(args)
        .current_dir(dir)
        .env("GH_TOKEN", "bench")
        .env("GITHUB_GRAPHQL_URL", github.graphql_url())
        .env("GITHUB_API_URL", github.rest_url())
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .env("REVIEW_CONFIG", "/dev/null")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let status_file = format!("/proc/{}/status", child.id());
    let mut peak_kb = 0u64;
    let status = loop {
        if let Ok(text) = std::fs::read_to_string(&status_file)
            && let Some(kb) = text
                .lines()
                .find_map(|l| l.strip_prefix("VmHWM:"))
                .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<u64>().ok())
        {
            peak_kb = peak_kb.max(kb);
        }
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        std::thread::sleep(Duration::from_millis(2));
    };
    (
        started.elapsed(),
        peak_kb,
        status.success() || status.code() == Some(7),
    )
}

fn git(dir: &Path, args: &[&str]) {
    let ok = Command::new("git")
        .args(args)
        .current_dir(dir)
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .unwrap()
        .success();
    assert!(ok, "git {args:?}");
}

#[tokio::main(flavor = "multi_thread", worker_threads = 2)]
async fn main() {
    // (label, threads, comments per thread, long threads as (index, comments))
    type Size = (&'static str, usize, usize, Vec<(usize, usize)>);
    let sizes: [Size; 2] = [
        (
            "1,000 threads",
            1000,
            4,
            (0..10).map(|i| (i * 97, 150)).collect(),
        ),
        (
            "3,000 threads",
            3000,
            3,
            (0..5).map(|i| (i * 577, 160)).collect(),
        ),
    ];
    println!(
        "| PR | latency | command | requests | lower bound | ratio | depth | depth lower bound | GraphQL points | wall | peak memory |"
    );
    println!("|---|---|---|---|---|---|---|---|---|---|---|");
    for (label, threads, per, long) in &sizes {
        let pr = generate(*threads, *per, long);
        let comments: usize = pr.threads.iter().map(|t| t.comments.len()).sum();
        let bound = requests_lower_bound(&pr);
        let depth_bound = depth_lower_bound(&pr);
        for latency in [0u64, 50] {
            let dir = tempfile::tempdir().unwrap();
            git(dir.path(), &["init", "-q", "-b", "feature"]);
            std::fs::write(dir.path().join("README"), "x\n").unwrap();
            git(dir.path(), &["add", "README"]);
            git(
                dir.path(),
                &[
                    "-c",
                    "user.name=b",
                    "-c",
                    "user.email=b@example.com",
                    "commit",
                    "-q",
                    "-m",
                    "x",
                ],
            );
            let github = FakeGitHub::start().await;
            github.add_pull_request(pr.clone());
            if latency > 0 {
                github.inject(Fault::Slow {
                    operation: None,
                    delay: Duration::from_millis(latency),
                    times: usize::MAX,
                });
            }
            let label = format!("{label} ({comments} comments)");
            let steps: [(&str, Vec<&str>); 4] = [
                (
                    "triage (plan)",
                    vec!["triage", "1", "--repo", "acme/widgets", "--json"],
                ),
                (
                    "triage --apply",
                    vec!["triage", "1", "--repo", "acme/widgets", "--apply", "--json"],
                ),
                (
                    "watch, first poll",
                    vec!["watch", "1", "--repo", "acme/widgets", "--once"],
                ),
                (
                    "watch, idle poll",
                    vec!["watch", "1", "--repo", "acme/widgets", "--once"],
                ),
            ];
            for (name, args) in steps {
                let (requests, points) = (github.requests().len(), github.points());
                let mutations_before = github.mutations().len();
                let rest = github.rest_requests();
                let (wall, peak_kb, ok) = run(dir.path(), &github, &args);
                let graphql = github.requests().len() - requests;
                let depth = github.depth_since(requests);
                let rest = github.rest_requests() - rest;
                let applied = github.mutations().len() - mutations_before;
                let mutations = if applied > 0 {
                    format!(" ({applied} resolves)")
                } else {
                    String::new()
                };
                let full = name.starts_with("triage (plan)") || name == "watch, first poll";
                let (ratio, depth_bound) = if full {
                    (
                        format!("{:.2}", graphql as f64 / bound as f64),
                        depth_bound.to_string(),
                    )
                } else {
                    ("—".to_owned(), "—".to_owned())
                };
                let bound = if name == "watch, idle poll" {
                    "—".to_owned()
                } else {
                    bound.to_string()
                };
                println!(
                    "| {label} | {latency} ms | {name}{} | {graphql} GraphQL{mutations} + {rest} REST | {bound} | {ratio} | {depth} | {depth_bound} | {} | {:.2} s | {:.1} MiB |",
                    if ok { "" } else { " (FAILED)" },
                    github.points() - points,
                    wall.as_secs_f64(),
                    peak_kb as f64 / 1024.0
                );
            }
        }
    }
}
