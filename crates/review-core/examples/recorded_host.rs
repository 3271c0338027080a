//! Plugs a custom review host into the triage planner and executor: a pull request recorded in
//! a file (the snapshot format `review snapshot` writes) stands in for GitHub, and the host
//! records the mutations it is asked for instead of making them.
//!
//! This is the shape of any integration: implement [`ReviewHost`] for your service (or a
//! recording, or a test double), read comments with `review-classify`, plan with
//! [`plan`], and carry the plan out with [`execute`]. Without a workspace (no checkout), fixes are
//! not made; resolves go to the host.
//!
//! Run it with `cargo run -p review-core --example recorded_host [SNAPSHOT.json]` (by default the
//! recorded example shipped in `examples/`).

#![allow(
    clippy::print_stdout,
    reason = "an example shows its result on the terminal"
)]

use std::sync::Mutex;

use async_trait::async_trait;
use review_core::execute::execute;
use review_core::model::{CommentId, PullRequest, RepoId, ThreadId};
use review_core::plan::{TriageSettings, plan};
use review_core::ports::{HostError, MinimizeReason, PostedComment, ReviewHost};
use review_core::snapshot;

/// A review host that serves one recorded pull request and writes down what it is asked to do.
struct RecordedHost {
    pr: PullRequest,
    asked: Mutex<Vec<String>>,
}

impl RecordedHost {
    fn note(&self, what: String) {
        self.asked
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .push(what);
    }
}

#[async_trait]
impl ReviewHost for RecordedHost {
    async fn pull_request(&self, repo: &RepoId, number: u64) -> Result<PullRequest, HostError> {
        if repo == &self.pr.repo && number == self.pr.number {
            Ok(self.pr.clone())
        } else {
            Err(HostError::NotFound(format!(
                "{repo}#{number} is not recorded"
            )))
        }
    }

    async fn resolve_threads(&self, threads: &[ThreadId]) -> Vec<Result<(), HostError>> {
        threads
            .iter()
            .map(|t| {
                self.note(format!("resolve {t}"));
                Ok(())
            })
            .collect()
    }

    async fn unresolve_thread(&self, thread: &ThreadId) -> Result<(), HostError> {
        self.note(format!("unresolve {thread}"));
        Ok(())
    }

    async fn reply(&self, thread: &ThreadId, body: &str) -> Result<PostedComment, HostError> {
        self.note(format!("reply in {thread}: {} bytes", body.len()));
        Ok(PostedComment {
            id: CommentId::from("recorded"),
            url: String::new(),
        })
    }

    async fn comment(&self, subject: &str, body: &str) -> Result<PostedComment, HostError> {
        self.note(format!("comment on {subject}: {} bytes", body.len()));
        Ok(PostedComment {
            id: CommentId::from("recorded"),
            url: String::new(),
        })
    }

    async fn minimize(&self, comment: &CommentId, reason: MinimizeReason) -> Result<(), HostError> {
        self.note(format!("minimize {comment} as {reason:?}"));
        Ok(())
    }
}

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let path = std::env::args().nth(1).unwrap_or_else(|| {
        concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../examples/acme-widgets-pr-482.json"
        )
        .to_owned()
    });
    let recorded = snapshot::parse(&std::fs::read_to_string(&path)?)?;
    let host = RecordedHost {
        pr: recorded.clone(),
        asked: Mutex::new(Vec::new()),
    };

    // Read through the port, as a real integration would.
    let pr = host.pull_request(&recorded.repo, recorded.number).await?;
    let settings = TriageSettings::default();
    let signals = review_classify::analyze(&pr, &settings.automation);
    let planned = plan(&pr, &signals, &settings);
    let report = execute(&pr, &planned, &settings, &host, None).await?.report;

    println!(
        "{}#{}: {} unresolved threads read",
        pr.repo,
        pr.number,
        report.threads.len()
    );
    println!("{}", report.summary_line("skipped"));
    println!("The host was asked to:");
    for line in host
        .asked
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
        .iter()
    {
        println!("  {line}");
    }
    Ok(())
}
