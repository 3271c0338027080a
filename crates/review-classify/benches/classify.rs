//! Classifying 10,000 review comments: identify the author's family, read the finding, build
//! its signals and let the core classify it; then `analyze` over a pull request of 10,000
//! threads (clusters included). Single-threaded; prints the figures.
//!
//! ```text
//! cargo bench -p review-classify --bench classify
//! ```
#![allow(
    clippy::print_stdout,
    clippy::print_stderr,
    reason = "a benchmark that prints its figures"
)]

#[path = "../tests/corpus_eval.rs"]
mod corpus_eval;

use std::hint::black_box;
use std::time::{Duration, Instant};

use review_classify::{analyze, identify, read_finding};
use review_core::model::{
    Comment, CommentId, CommitId, LineRange, PrState, PullRequest, RepoId, SubjectType, Thread,
    ThreadId,
};
use review_core::rules::classify;

const COMMENTS: usize = 10_000;
const RUNS: usize = 7;

fn median(mut times: Vec<Duration>) -> Duration {
    times.sort();
    times.get(times.len() / 2).copied().unwrap_or_default()
}

fn main() {
    let cases = match corpus_eval::load(&corpus_eval::corpus_dir()) {
        Ok(cases) => cases,
        Err(e) => {
            eprintln!("error: {e}");
            std::process::exit(1);
        }
    };
    let settings = corpus_eval::settings();
    let comments: Vec<&corpus_eval::Case> = cases.iter().cycle().take(COMMENTS).collect();
    let pr_authors: Vec<_> = comments.iter().map(|c| c.pr_author()).collect();
    let bytes: usize = comments.iter().map(|c| c.body.len()).sum();

    let mut times = Vec::with_capacity(RUNS);
    for _ in 0..RUNS {
        let started = Instant::now();
        let mut actionable = 0usize;
        for (case, pr_author) in comments.iter().zip(&pr_authors) {
            let family = identify(case.author.as_ref(), &case.body, Some(pr_author), &settings);
            if let Some(family) = family {
                let finding = read_finding(family, &case.body, &case.path);
                let signals = finding.signals(family, &case.path);
                let class = classify(&signals, false).class;
                actionable += usize::from(class == review_core::rules::Class::Actionable);
            }
        }
        black_box(actionable);
        times.push(started.elapsed());
    }
    let per_comment = median(times);
    let rate = COMMENTS as f64 / per_comment.as_secs_f64();
    println!(
        "classify: {COMMENTS} comments ({:.1} MiB of bodies) in {:.1} ms (median of {RUNS}), {:.0} comments/s",
        bytes as f64 / (1024.0 * 1024.0),
        per_comment.as_secs_f64() * 1000.0,
        rate
    );

    let threads: Vec<Thread> = comments
        .iter()
        .enumerate()
        .map(|(i, case)| {
            let line = u32::try_from(i % 400).unwrap_or(0) + 1;
            Thread {
                id: ThreadId(format!("PRRT_{i}")),
                is_resolved: false,
                is_outdated: false,
                path: format!("{}/{}", i % 250, case.path),
                lines: Some(LineRange::new(line, line)),
                subject_type: SubjectType::Line,
                comments: vec![Comment {
                    id: CommentId(format!("PRRC_{i}")),
                    author: case.author.clone(),
                    body: case.body.clone(),
                    created_at: String::new(),
                    url: String::new(),
                    diff_hunk: None,
                    review_id: None,
                }],
                all_comments_read: true,
                original_lines: None,
            }
        })
        .collect();
    let pr = PullRequest {
        repo: RepoId::parse("acme/widgets").expect("a valid repository"),
        number: 1,
        id: String::new(),
        title: String::new(),
        url: String::new(),
        state: PrState::Open,
        author: Some(review_core::model::Author::new(
            "pr-owner",
            review_core::model::AuthorKind::User,
        )),
        head_ref: String::new(),
        base_ref: String::new(),
        head_sha: CommitId::from("0123456789abcdef0123456789abcdef01234567"),
        base_sha: None,
        head_repo: None,
        viewer: None,
        draft: false,
        mergeable: None,
        checks: None,
        reviews: vec![],
        comments: vec![],
        threads,
    };
    let mut times = Vec::with_capacity(RUNS);
    let mut clusters = 0;
    for _ in 0..RUNS {
        let started = Instant::now();
        let set = analyze(&pr, &settings);
        times.push(started.elapsed());
        clusters = set.clusters.len();
        black_box(set);
    }
    let whole = median(times);
    println!(
        "analyze: a PR of {COMMENTS} threads on 250 directories in {:.1} ms (median of {RUNS}), {:.0} threads/s, {clusters} clusters",
        whole.as_secs_f64() * 1000.0,
        COMMENTS as f64 / whole.as_secs_f64()
    );
}
