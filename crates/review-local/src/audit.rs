//! The audit log: every mutation the tool makes (resolve, unresolve, reply, comment, minimize,
//! commit, push), appended as one JSON line to `review/pulls/OWNER/NAME/N/audit.jsonl` under the
//! git common directory, with the run's id, and shown by `review log`. Append-only: a line is
//! written in one `write` to a file opened for appending, never rewritten.
//!
//! The log also tells the gate which threads the tool resolved: GitHub does not record who
//! reopens a thread, so one the tool resolved that is open again was reopened by a person.

use std::collections::BTreeSet;
use std::io::Write as _;
use std::path::PathBuf;
use std::sync::Mutex;

use async_trait::async_trait;
use review_core::model::{CommentId, RepoId, ThreadId};
use review_core::ports::{HostError, MinimizeReason, PostedComment, ReviewHost};
use serde::{Deserialize, Serialize};

use crate::state::StateDir;

/// One line of the log.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct Entry {
    /// When, RFC 3339 UTC.
    pub time: String,
    /// The run that made it (random per process).
    pub run: String,
    /// The command that ran (`triage`, `respond`, ...).
    pub command: String,
    /// `resolve`, `unresolve`, `reply`, `comment`, `minimize`, `commit` or `push`.
    pub action: String,
    /// What it acted on: a thread, comment or pull request id, a commit, a branch.
    pub target: String,
    /// `ok`, `failed`, or `uncertain` (it may have happened: GitHub's answer was lost).
    pub outcome: String,
    /// More: a link, the reason of a failure, the commit's files.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub detail: String,
}

/// The run's id: 8 random bytes as hex, drawn once per run (per command `review mcp` runs in
/// process, see [`set_command`]).
pub fn run_id() -> String {
    RUN.lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
        .get_or_insert_with(|| {
            crate::command::random_marker()
                .map(|hex| hex.chars().take(16).collect())
                .unwrap_or_else(|_| format!("pid{}", std::process::id()))
        })
        .clone()
}

static RUN: Mutex<Option<String>> = Mutex::new(None);

/// The command this process runs, for the log (`triage`, `respond`, ...). Each command `review
/// mcp` runs in process is a run of its own: the name changes and a new run id is drawn.
pub fn set_command(name: &str) {
    name.clone_into(
        &mut COMMAND
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner),
    );
    *RUN.lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner) = None;
}

/// The command this run is, as [`set_command`] named it.
pub fn command() -> String {
    COMMAND
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
        .clone()
}

static COMMAND: Mutex<String> = Mutex::new(String::new());

fn now() -> String {
    let secs = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| i64::try_from(d.as_secs()).unwrap_or(i64::MAX));
    review_core::time::format_utc(secs)
}

/// The log of one pull request.
#[derive(Debug, Clone)]
pub struct Audit {
    path: Option<PathBuf>,
}

/// The log file of `repo#number` in `dir`.
pub fn path(dir: &StateDir, repo: &RepoId, number: u64) -> Option<PathBuf> {
    dir.pr_file("audit", repo, number)
        .ok()
        .map(|p| p.with_extension("jsonl"))
}

impl Audit {
    /// The log of `repo#number`, kept in `dir`; without one, nothing is kept (a command run
    /// outside a clone).
    pub fn new(dir: Option<&StateDir>, repo: &RepoId, number: u64) -> Self {
        Self {
            path: dir.and_then(|d| path(d, repo, number)),
        }
    }

    /// Appends one entry. A log that cannot be written is a warning: the mutation happened.
    pub fn record(&self, action: &str, target: &str, outcome: &str, detail: &str) {
        let Some(path) = &self.path else {
            return;
        };
        let entry = Entry {
            time: now(),
            run: run_id(),
            command: command(),
            action: action.to_owned(),
            target: target.to_owned(),
            outcome: outcome.to_owned(),
            detail: detail.replace(['\n', '\r'], " "),
        };
        let written = serde_json::to_string(&entry)
            .map_err(std::io::Error::other)
            .and_then(|mut line| {
                line.push('\n');
                if let Some(dir) = path.parent() {
                    std::fs::create_dir_all(dir)?;
                }
                let mut file = std::fs::OpenOptions::new()
                    .create(true)
                    .append(true)
                    .open(path)?;
                file.write_all(line.as_bytes())?;
                file.sync_data()
            });
        if let Err(e) = written {
            log::warn!("cannot write the audit log {}: {e}", path.display());
        }
    }

    /// Records the outcome of a host mutation.
    fn host<T>(&self, action: &str, target: &str, result: &Result<T, HostError>, detail: &str) {
        match result {
            Ok(_) => self.record(action, target, "ok", detail),
            // A post whose answer was lost, which looking for it did not find (its error says
            // so by its source): only posts are sent once, every other mutation is repeated
            // until its answer comes.
            Err(e @ HostError::Unavailable { message, .. }) if e.may_have_been_posted() => {
                self.record(action, target, "uncertain", message);
            }
            Err(e) => self.record(action, target, "failed", &e.to_string()),
        }
    }
}

/// Every entry of `repo#number`'s log, oldest first; lines that do not parse are skipped.
pub fn entries(dir: &StateDir, repo: &RepoId, number: u64) -> Result<Vec<Entry>, std::io::Error> {
    let Some(path) = path(dir, repo, number) else {
        return Ok(Vec::new());
    };
    match std::fs::read_to_string(&path) {
        Ok(text) => Ok(text
            .lines()
            .filter_map(|l| serde_json::from_str(l).ok())
            .collect()),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(Vec::new()),
        Err(e) => Err(e),
    }
}

/// The threads the tool resolved and did not reopen itself, from the log.
pub fn resolved_threads(dir: &StateDir, repo: &RepoId, number: u64) -> BTreeSet<ThreadId> {
    let mut resolved = BTreeSet::new();
    for e in entries(dir, repo, number).unwrap_or_default() {
        if e.outcome != "ok" {
            continue;
        }
        match e.action.as_str() {
            "resolve" => {
                resolved.insert(ThreadId(e.target));
            }
            "unresolve" => {
                resolved.remove(&ThreadId(e.target));
            }
            _ => {}
        }
    }
    resolved
}

/// A review host with every mutation recorded in the audit log.
#[derive(Debug)]
pub struct AuditedHost<H> {
    inner: H,
    audit: Audit,
    /// Threads resolved through this host, for the refresh of a published `review/status`.
    resolved: std::sync::atomic::AtomicUsize,
}

impl<H> AuditedHost<H> {
    /// `inner`, recording into `audit`.
    pub fn new(inner: H, audit: Audit) -> Self {
        Self {
            inner,
            audit,
            resolved: std::sync::atomic::AtomicUsize::new(0),
        }
    }

    /// How many threads were resolved through this host.
    pub fn resolved(&self) -> usize {
        self.resolved.load(std::sync::atomic::Ordering::Relaxed)
    }

    /// Records a post made through [`Self::inner`] directly (one the port does not make, such as
    /// a reply in the author's own words), as a post through the port is.
    pub fn record_post(
        &self,
        action: &str,
        target: &str,
        result: &Result<PostedComment, HostError>,
    ) {
        let url = result.as_ref().map(|p| p.url.clone()).unwrap_or_default();
        self.audit.host(action, target, result, &url);
    }

    /// The host it records for.
    pub fn inner(&self) -> &H {
        &self.inner
    }
}

#[async_trait]
impl<H: ReviewHost> ReviewHost for AuditedHost<H> {
    async fn pull_request(
        &self,
        repo: &RepoId,
        number: u64,
    ) -> Result<review_core::model::PullRequest, HostError> {
        self.inner.pull_request(repo, number).await
    }

    async fn resolve_threads(&self, threads: &[ThreadId]) -> Vec<Result<(), HostError>> {
        let results = self.inner.resolve_threads(threads).await;
        for (id, r) in threads.iter().zip(&results) {
            self.audit.host("resolve", &id.0, r, "");
            if r.is_ok() {
                self.resolved
                    .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            }
        }
        results
    }

    async fn unresolve_thread(&self, thread: &ThreadId) -> Result<(), HostError> {
        let result = self.inner.unresolve_thread(thread).await;
        self.audit.host("unresolve", &thread.0, &result, "");
        result
    }

    async fn reply(&self, thread: &ThreadId, body: &str) -> Result<PostedComment, HostError> {
        let result = self.inner.reply(thread, body).await;
        self.record_post("reply", &thread.0, &result);
        result
    }

    async fn comment(&self, subject: &str, body: &str) -> Result<PostedComment, HostError> {
        let result = self.inner.comment(subject, body).await;
        self.record_post("comment", subject, &result);
        result
    }

    async fn minimize(&self, comment: &CommentId, reason: MinimizeReason) -> Result<(), HostError> {
        let result = self.inner.minimize(comment, reason).await;
        self.audit
            .host("minimize", &comment.0, &result, &format!("{reason:?}"));
        result
    }

    async fn request_review(&self, subject: &str, login: &str) -> Result<(), HostError> {
        let result = self.inner.request_review(subject, login).await;
        self.audit.host("request-review", subject, &result, login);
        result
    }
}
