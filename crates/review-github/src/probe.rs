//! A cheap "has anything changed?" probe of a pull request over REST, for polling.
//!
//! A full GraphQL read of a pull request costs points from a budget of 5,000 an hour; a REST
//! `GET` sent with `If-None-Match: <the last ETag>` that answers `304 Not Modified` costs
//! nothing. So a watcher asks [`Probe::poll`] first, and reads with GraphQL only when the probe
//! says something moved. An idle poll is six `304`s: no points, no REST budget.
//!
//! One poll asks, in order and one at a time (GitHub asks clients not to send one user's
//! requests concurrently), for pull request `owner/name#n`:
//!
//! | [`Resource`] | route | kept from a `200` |
//! |---|---|---|
//! | [`Resource::Pull`] | `repos/{o}/{r}/pulls/{n}` | head sha, state, `updated_at` |
//! | [`Resource::IssueComments`] | `repos/{o}/{r}/issues/{n}/comments?per_page=100` | the count |
//! | [`Resource::Reviews`] | `repos/{o}/{r}/pulls/{n}/reviews?per_page=100` | the count |
//! | [`Resource::ReviewComments`] | `repos/{o}/{r}/pulls/{n}/comments?per_page=100` | the count |
//! | [`Resource::CheckRuns`] | `repos/{o}/{r}/commits/{head}/check-runs?per_page=100` | name, status, conclusion |
//! | [`Resource::Status`] | `repos/{o}/{r}/commits/{head}/status` | state; context and state of each |
//!
//! The lists are read on their first page only: GitHub's `ETag` of a page changes when an item
//! on it is added or edited, and a pull request long enough to spill past 100 conversation
//! comments also moves its own `updated_at` (resource 1) when one is added.
//!
//! What the probe learnt lives in a [`ProbeCache`] the caller keeps between polls, in memory or
//! in a state file (it is plain serde data), so that a poll in a new process still sends
//! `If-None-Match` and answers a `304` from what it kept. The cache changes only when a whole
//! poll succeeds: a poll that fails half-way must not hide, behind `304`s next time, changes it
//! saw but did not report.
//!
//! Requests go over the [`crate::transport`], as the GraphQL client's do. Failures are typed
//! ([`ProbeError`]); 5xx answers, timeouts, connection failures and answers cut off are retried
//! a few times with backoff ([`ProbePolicy`]). Rate limits are not waited out here: the caller,
//! which knows its polling interval, decides.

use std::collections::BTreeMap;
use std::fmt;
use std::time::Duration;

use http::{HeaderMap, HeaderValue, StatusCode};
use review_core::model::{ChecksState, RepoId};
use serde::{Deserialize, Serialize};

use crate::token::Token;
use crate::transport::{
    Answer, Endpoint, Limits, Method, Repeat, Request, Retries, Transport, TransportError, Verdict,
    error_message, shorten, throttled_message,
};

/// GitHub's media type for REST answers.
pub(crate) const ACCEPT: &str = "application/vnd.github+json";

/// The REST API version the probe is written against.
pub(crate) const API_VERSION: &str = "2022-11-28";

/// How the probe retries and waits.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProbePolicy {
    /// Attempts in all (first try included) for one request that meets a 5xx answer, a timeout
    /// or a connection failure. `0` counts as `1`.
    pub max_attempts: u32,
    /// The wait before the first retry; doubled on each one.
    pub base_backoff: Duration,
    /// How long one request (answer and body) may take before it counts as a timeout.
    pub request_timeout: Duration,
}

impl Default for ProbePolicy {
    fn default() -> Self {
        Self {
            max_attempts: 3,
            base_backoff: Duration::from_millis(500),
            request_timeout: Duration::from_secs(20),
        }
    }
}

/// One of the six things a poll asks about.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Resource {
    /// The pull request itself: head, state, title, `updated_at`.
    Pull,
    /// Its conversation (top-level) comments.
    IssueComments,
    /// Its reviews.
    Reviews,
    /// Its inline review comments.
    ReviewComments,
    /// The check runs of its head commit.
    CheckRuns,
    /// The combined commit status of its head commit.
    Status,
}

impl Resource {
    /// All six, in the order a poll asks them.
    pub const ALL: [Self; 6] = [
        Self::Pull,
        Self::IssueComments,
        Self::Reviews,
        Self::ReviewComments,
        Self::CheckRuns,
        Self::Status,
    ];

    /// A short name (`issue-comments`), as serialized.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Pull => "pull",
            Self::IssueComments => "issue-comments",
            Self::Reviews => "reviews",
            Self::ReviewComments => "review-comments",
            Self::CheckRuns => "check-runs",
            Self::Status => "status",
        }
    }

    /// Whether it belongs to the head commit rather than the pull request.
    pub fn is_check(self) -> bool {
        matches!(self, Self::CheckRuns | Self::Status)
    }
}

impl fmt::Display for Resource {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The checks of the head commit, merged from its check runs and its commit statuses.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ChecksSummary {
    /// [`ChecksState::Failure`] if any failed, else [`ChecksState::Pending`] if any has yet to
    /// finish, else [`ChecksState::Success`] if there is any; `None` for no checks at all.
    pub state: Option<ChecksState>,
    /// The names (check runs) and contexts (statuses) that failed: runs concluded `failure`,
    /// `timed_out`, `cancelled`, `action_required` or `startup_failure`; statuses `error` or
    /// `failure`. In GitHub's order, each once.
    pub failing: Vec<String>,
    /// The names and contexts not finished: runs not `completed`, statuses `pending`.
    pub pending: Vec<String>,
    /// The names and contexts that finished without failing (absent in older caches).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub passed: Vec<String>,
}

impl ChecksSummary {
    /// Merges check runs `(name, status, conclusion)` and statuses `(context, state)`.
    ///
    /// ```
    /// use review_core::model::ChecksState;
    /// use review_github::probe::ChecksSummary;
    ///
    /// let runs = [("build", "completed", Some("success")), ("test", "in_progress", None)];
    /// let statuses = [("ci/legacy", "failure")];
    /// let summary = ChecksSummary::merge(runs, statuses);
    /// assert_eq!(summary.state, Some(ChecksState::Failure));
    /// assert_eq!(summary.failing, ["ci/legacy"]);
    /// assert_eq!(summary.pending, ["test"]);
    /// ```
    pub fn merge<'a>(
        runs: impl IntoIterator<Item = (&'a str, &'a str, Option<&'a str>)>,
        statuses: impl IntoIterator<Item = (&'a str, &'a str)>,
    ) -> Self {
        let mut summary = Self::default();
        let mut any = false;
        for (name, status, conclusion) in runs {
            any = true;
            if is_failed_conclusion(conclusion) {
                push_once(&mut summary.failing, name);
            } else if status != "completed" {
                push_once(&mut summary.pending, name);
            } else {
                push_once(&mut summary.passed, name);
            }
        }
        for (context, state) in statuses {
            any = true;
            match state {
                "error" | "failure" => push_once(&mut summary.failing, context),
                "pending" => push_once(&mut summary.pending, context),
                "success" => push_once(&mut summary.passed, context),
                _ => {}
            }
        }
        summary.state = if !summary.failing.is_empty() {
            Some(ChecksState::Failure)
        } else if !summary.pending.is_empty() {
            Some(ChecksState::Pending)
        } else if any {
            Some(ChecksState::Success)
        } else {
            None
        };
        summary
    }
}

fn is_failed_conclusion(conclusion: Option<&str>) -> bool {
    matches!(
        conclusion,
        Some("failure" | "timed_out" | "cancelled" | "action_required" | "startup_failure")
    )
}

fn push_once(list: &mut Vec<String>, name: &str) {
    if !list.iter().any(|n| n == name) {
        list.push(name.to_owned());
    }
}

/// The state of a commit status, as GitHub spells it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CommitState {
    /// `success`.
    Success,
    /// `failure`.
    Failure,
    /// `pending`.
    Pending,
    /// `error`.
    Error,
}

impl CommitState {
    /// GitHub's spelling.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Success => "success",
            Self::Failure => "failure",
            Self::Pending => "pending",
            Self::Error => "error",
        }
    }
}

/// A commit status to set with [`Probe::set_status`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NewStatus {
    /// Its state.
    pub state: CommitState,
    /// Its context: the name a branch protection rule requires (`review/status`).
    pub context: String,
    /// One line (GitHub keeps at most 140 characters; longer is cut).
    pub description: String,
    /// A link shown beside it.
    pub target_url: Option<String>,
}

/// A check run to create ([`Probe::create_check_run`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NewCheckRun {
    /// Its name (`review/status`).
    pub name: String,
    /// `success`, `failure`, `action_required`, `neutral`, ...; `None`: still in progress.
    pub conclusion: Option<&'static str>,
    /// The output's title: one line.
    pub title: String,
    /// The output's summary (Markdown).
    pub summary: String,
}

/// What one poll found.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ProbeOutcome {
    /// The head commit of the pull request.
    pub head_sha: String,
    /// `open` or `closed` (a merged pull request is `closed`, with [`ProbeOutcome::merged`]).
    pub pr_state: String,
    /// Whether it was merged.
    pub merged: bool,
    /// The pull request's `updated_at`, as GitHub wrote it.
    pub updated_at: String,
    /// What moved since the cache was last updated, in [`Resource::ALL`] order; everything on
    /// an empty cache, and the check resources whenever the head commit changed. Empty: nothing
    /// to read again.
    pub changed: Vec<Resource>,
    /// The head commit's checks (fresh, or as cached when unchanged).
    pub checks: ChecksSummary,
    /// HTTP requests sent, retries included.
    pub requests: u32,
    /// How many of them answered `304 Not Modified` (free of rate limit).
    pub not_modified: u32,
}

impl ProbeOutcome {
    /// Whether nothing moved since the last poll.
    pub fn is_idle(&self) -> bool {
        self.changed.is_empty()
    }

    /// Whether `resource` moved.
    pub fn has_changed(&self, resource: Resource) -> bool {
        self.changed.contains(&resource)
    }
}

/// What the probe remembers between polls: for each path asked, the last `ETag` and what the
/// answer said. Plain data for the caller's state file; its content is the probe's business.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ProbeCache {
    /// By path under the REST base (`/repos/acme/widgets/pulls/7`).
    #[serde(default)]
    entries: BTreeMap<String, CacheEntry>,
}

impl ProbeCache {
    /// An empty cache: the next poll reports everything as changed.
    pub fn new() -> Self {
        Self::default()
    }

    /// Whether nothing is cached.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// How many answers are cached.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Forgets everything: the next poll asks afresh and reports everything as changed.
    pub fn clear(&mut self) {
        self.entries.clear();
    }

    fn pull(&self, path: &str) -> Option<&PullSummary> {
        match &self.entries.get(path)?.summary {
            Summary::Pull(pull) => Some(pull),
            _ => None,
        }
    }
}

/// The `ETag` and summary of one answer.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
struct CacheEntry {
    /// `None` when GitHub sent none: the next answer then counts as changed.
    #[serde(default)]
    etag: Option<String>,
    summary: Summary,
}

/// What is kept of an answer: enough to answer a `304` without asking again.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "camelCase")]
enum Summary {
    Pull(PullSummary),
    Count(CountSummary),
    CheckRuns(CheckRunsSummary),
    Status(StatusSummary),
}

impl Summary {
    /// Whether this is the kind of summary `resource` gives.
    fn answers(&self, resource: Resource) -> bool {
        matches!(
            (self, resource),
            (Self::Pull(_), Resource::Pull)
                | (
                    Self::Count(_),
                    Resource::IssueComments | Resource::Reviews | Resource::ReviewComments
                )
                | (Self::CheckRuns(_), Resource::CheckRuns)
                | (Self::Status(_), Resource::Status)
        )
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
struct PullSummary {
    head_sha: String,
    state: String,
    #[serde(default)]
    updated_at: String,
    #[serde(default)]
    merged: bool,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
struct CountSummary {
    count: usize,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
struct CheckRunsSummary {
    runs: Vec<CheckRun>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
struct CheckRun {
    name: String,
    #[serde(default)]
    status: String,
    #[serde(default)]
    conclusion: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
struct StatusSummary {
    #[serde(default)]
    state: String,
    #[serde(default)]
    statuses: Vec<CommitStatus>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
struct CommitStatus {
    context: String,
    #[serde(default)]
    state: String,
}

/// Why a poll failed. None of these carries the token.
#[derive(Debug, thiserror::Error)]
pub enum ProbeError {
    /// GitHub refused the token.
    #[error("GitHub refused the token (HTTP 401)")]
    BadCredentials,
    /// No such repository, pull request or commit, or the token cannot see it.
    #[error(
        "GitHub found nothing at {path} (HTTP 404): no such pull request, or the token cannot see it"
    )]
    NotFound {
        /// The path asked, under the REST base.
        path: String,
    },
    /// A primary or secondary rate limit.
    #[error("{}", throttled_message(.message, *.retry_after))]
    RateLimited {
        /// How long GitHub asks to wait (`retry-after`, else the reset time when nothing is
        /// left), if it said.
        retry_after: Option<Duration>,
        /// What GitHub said, shortened.
        message: String,
    },
    /// Any other refusal (403 without a rate limit, 422, ...).
    #[error("GitHub answered HTTP {status}: {message}")]
    Http {
        /// The status.
        status: u16,
        /// What GitHub said, shortened.
        message: String,
    },
    /// 5xx answers, timeouts or connection failures, still after the allowed retries.
    #[error("GitHub is unavailable: gave up after {attempts} attempts: {last}")]
    Unavailable {
        /// Attempts made for the failing request.
        attempts: u32,
        /// The last failure.
        last: String,
    },
    /// An answer that is not what the route gives.
    #[error("unexpected answer from GitHub for {path}: {reason}")]
    Malformed {
        /// The path asked, under the REST base.
        path: String,
        /// What was wrong.
        reason: String,
    },
    /// The probe could not be built (a bad base URL, a token no HTTP header can carry).
    #[error("cannot build the REST probe: {0}")]
    Build(String),
}

/// The transport's errors, as the probe names them.
impl From<TransportError> for ProbeError {
    fn from(e: TransportError) -> Self {
        match e {
            TransportError::Unauthorized => Self::BadCredentials,
            TransportError::Throttled { wait, message } => Self::RateLimited {
                retry_after: wait,
                message,
            },
            TransportError::GaveUp { attempts, last } => Self::Unavailable { attempts, last },
            // Every request of the probe is a read, sent as `Repeat::Safe`: never met.
            TransportError::Uncertain(last) => Self::Unavailable { attempts: 1, last },
            TransportError::Build(why) => Self::Build(why),
        }
    }
}

/// The REST change probe for one API base and token.
#[derive(Clone)]
pub struct Probe {
    pub(crate) transport: Transport,
    /// The base's path (`/api/v3` on Enterprise Server, else empty), put before every route:
    /// requests name only a path, so that the token goes to the base's host alone.
    pub(crate) prefix: String,
    base: String,
    pub(crate) policy: ProbePolicy,
}

impl fmt::Debug for Probe {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Probe")
            .field("base", &self.base)
            .field("policy", &self.policy)
            .finish_non_exhaustive()
    }
}

/// What one request gave.
#[derive(Debug)]
enum Fetched {
    NotModified,
    Fresh { etag: Option<String>, body: String },
}

/// Changes one poll makes, applied to the cache only once every request succeeded.
#[derive(Default)]
struct Round {
    requests: u32,
    not_modified: u32,
    changed: Vec<Resource>,
    updates: Vec<(String, CacheEntry)>,
}

impl Probe {
    /// A probe of the REST API at `rest_base` (`https://api.github.com`, or
    /// `https://HOST/api/v3` for Enterprise Server; see [`crate::host::Endpoints::rest`]),
    /// authenticating with `token`, with the default [`ProbePolicy`].
    ///
    /// Must be called inside a tokio runtime.
    ///
    /// # Errors
    /// [`ProbeError::Build`] when `rest_base` is not an absolute `http(s)` URL, or the token
    /// holds characters an HTTP header cannot carry.
    pub fn new(rest_base: &str, token: &Token) -> Result<Self, ProbeError> {
        let endpoint = Endpoint::parse(rest_base)?;
        if endpoint.query.is_some() {
            return Err(ProbeError::Build(format!(
                "`{rest_base}` has a query; a REST base is a scheme, a host and a path"
            )));
        }
        let prefix = endpoint.path.trim_end_matches('/').to_owned();
        // Only the connection has a timeout of the client's: the answer's is the policy's
        // `request_timeout`, which `with_policy` may change after this.
        let transport = Transport::new(&endpoint.origin, token, None)?;
        Ok(Self {
            transport,
            base: format!("{}{prefix}", endpoint.origin),
            prefix,
            policy: ProbePolicy::default(),
        })
    }

    /// Retries and waits as `policy` says.
    #[must_use]
    pub fn with_policy(mut self, policy: ProbePolicy) -> Self {
        self.policy = policy;
        self
    }

    /// Asks whether pull request `repo#number` changed since `cache` was last updated, and
    /// updates `cache` (only when the whole poll succeeds).
    ///
    /// # Errors
    /// A [`ProbeError`] for the first request that failed; `cache` is then left as it was.
    pub async fn poll(
        &self,
        cache: &mut ProbeCache,
        repo: &RepoId,
        number: u64,
    ) -> Result<ProbeOutcome, ProbeError> {
        let root = format!(
            "/repos/{}/{}",
            path_segment(&repo.owner),
            path_segment(&repo.name)
        );
        let mut round = Round::default();

        let pull_path = format!("{root}/pulls/{number}");
        let previous_head = cache.pull(&pull_path).map(|p| p.head_sha.clone());
        let Summary::Pull(pull) = self
            .fetch(cache, &mut round, Resource::Pull, &pull_path, parse_pull)
            .await?
        else {
            return Err(malformed(
                &pull_path,
                "the cached answer is not a pull request",
            ));
        };

        let lists = [
            (
                Resource::IssueComments,
                format!("{root}/issues/{number}/comments?per_page=100"),
            ),
            (
                Resource::Reviews,
                format!("{root}/pulls/{number}/reviews?per_page=100"),
            ),
            (
                Resource::ReviewComments,
                format!("{root}/pulls/{number}/comments?per_page=100"),
            ),
        ];
        for (resource, path) in &lists {
            self.fetch(cache, &mut round, *resource, path, parse_count)
                .await?;
        }

        let (runs_path, status_path) = check_paths(&root, &pull.head_sha);
        // A token that may not read checks (a fine-grained token without "Checks: read", or
        // "Commit statuses: read") gets 403 or 404 there: the head then has no checks this probe
        // can see, and the pull request is still watched cheaply instead of failing every poll.
        let unreadable = |e: &ProbeError| {
            matches!(
                e,
                ProbeError::Http { status: 403, .. } | ProbeError::NotFound { .. }
            )
        };
        let runs = match self
            .fetch(
                cache,
                &mut round,
                Resource::CheckRuns,
                &runs_path,
                parse_runs,
            )
            .await
        {
            Ok(Summary::CheckRuns(runs)) => runs.runs,
            Ok(_) => return Err(malformed(&runs_path, "the cached answer is not check runs")),
            Err(e) if unreadable(&e) => Vec::new(),
            Err(e) => return Err(e),
        };
        let statuses = match self
            .fetch(
                cache,
                &mut round,
                Resource::Status,
                &status_path,
                parse_status,
            )
            .await
        {
            Ok(Summary::Status(status)) => status.statuses,
            Ok(_) => return Err(malformed(&status_path, "the cached answer is not a status")),
            Err(e) if unreadable(&e) => Vec::new(),
            Err(e) => return Err(e),
        };

        // A new head means new check URLs; say so even if they happen to be cached.
        let moved = previous_head.as_ref().is_some_and(|h| h != &pull.head_sha);
        if moved {
            for resource in [Resource::CheckRuns, Resource::Status] {
                if !round.changed.contains(&resource) {
                    round.changed.push(resource);
                }
            }
        }
        round.changed.sort();

        if let Some(old) = previous_head.filter(|_| moved) {
            let (old_runs, old_status) = check_paths(&root, &old);
            cache.entries.remove(&old_runs);
            cache.entries.remove(&old_status);
        }
        cache.entries.extend(round.updates);

        let checks = ChecksSummary::merge(
            runs.iter()
                .map(|r| (r.name.as_str(), r.status.as_str(), r.conclusion.as_deref())),
            statuses
                .iter()
                .map(|s| (s.context.as_str(), s.state.as_str())),
        );
        Ok(ProbeOutcome {
            head_sha: pull.head_sha,
            pr_state: pull.state,
            merged: pull.merged,
            updated_at: pull.updated_at,
            changed: round.changed,
            checks,
            requests: round.requests,
            not_modified: round.not_modified,
        })
    }

    /// Sets the commit status `status` on commit `sha` of `repo` (`POST
    /// /repos/{o}/{r}/statuses/{sha}`): one per context, the latest wins, so sending it again
    /// is harmless and a failure in flight is retried. Needs a token that may write commit
    /// statuses.
    ///
    /// # Errors
    /// A [`ProbeError`]: the token refused (401, or 403/404 without the right), a commit the
    /// repository does not have or a status GitHub refuses (422), GitHub unavailable.
    pub async fn set_status(
        &self,
        repo: &RepoId,
        sha: &str,
        status: &NewStatus,
    ) -> Result<(), ProbeError> {
        check_commit_id(sha)?;
        // GitHub refuses a description over 140 characters.
        let description: String = status.description.chars().take(140).collect();
        let mut body = serde_json::json!({
            "state": status.state.as_str(),
            "context": status.context,
            "description": description,
        });
        if let Some(url) = &status.target_url {
            body["target_url"] = serde_json::Value::from(url.as_str());
        }
        self.post(repo, &format!("statuses/{sha}"), &body).await
    }

    /// `POST` of `body` to `/repos/{o}/{r}/{route}`, retried as a write that may be repeated
    /// (statuses and check runs: the latest of a name stands).
    async fn post(
        &self,
        repo: &RepoId,
        route: &str,
        body: &serde_json::Value,
    ) -> Result<(), ProbeError> {
        let path = format!(
            "{}/repos/{}/{}/{route}",
            self.prefix,
            path_segment(&repo.owner),
            path_segment(&repo.name)
        );
        let uri: http::Uri = path
            .parse()
            .map_err(|e| ProbeError::Build(format!("`{path}`: {e}")))?;
        let request = Request {
            method: Method::Post(body),
            path: uri,
            timeout: self.policy.request_timeout,
            repeat: Repeat::Safe,
        };
        let retries = Retries {
            max_attempts: self.policy.max_attempts,
            base_backoff: self.policy.base_backoff,
            limits: Limits::Report,
        };
        self.transport
            .send(
                &request,
                &retries,
                None,
                |_| {},
                |answer| {
                    if answer.status.is_success() {
                        return Verdict::Done(());
                    }
                    Verdict::Fail(match answer.status {
                        StatusCode::NOT_FOUND => ProbeError::NotFound { path: path.clone() },
                        s => ProbeError::Http {
                            status: s.as_u16(),
                            message: error_message(&answer.body),
                        },
                    })
                },
            )
            .await
    }

    /// Who set the latest commit status with `context` on commit `sha` of `repo` (`GET
    /// /repos/{o}/{r}/commits/{sha}/statuses`, newest first): the creator's login, `None` when
    /// the commit has no status with that context (in the newest hundred) or GitHub names no
    /// creator.
    ///
    /// # Errors
    /// A [`ProbeError`]: the token refused, no such commit, GitHub unavailable, an answer that
    /// is not a list of statuses.
    pub async fn status_creator(
        &self,
        repo: &RepoId,
        sha: &str,
        context: &str,
    ) -> Result<Option<String>, ProbeError> {
        check_commit_id(sha)?;
        let path = format!(
            "/repos/{}/{}/commits/{sha}/statuses?per_page=100",
            path_segment(&repo.owner),
            path_segment(&repo.name)
        );
        let json = self.get_json(&path).await?;
        let items = json
            .as_array()
            .ok_or_else(|| malformed(&path, "not a list of statuses"))?;
        // Newest first: the first with the context is the one that stands.
        Ok(items
            .iter()
            .find(|s| s.get("context").and_then(serde_json::Value::as_str) == Some(context))
            .and_then(|s| s.get("creator"))
            .and_then(|c| c.get("login"))
            .and_then(serde_json::Value::as_str)
            .filter(|l| !l.is_empty())
            .map(str::to_owned))
    }

    /// Which app created the latest check run named `name` on commit `sha` of `repo` (`GET
    /// /repos/{o}/{r}/commits/{sha}/check-runs?check_name=...&filter=latest`): its slug
    /// (`github-actions` for the Actions token), `None` when the commit has no run of that name.
    ///
    /// # Errors
    /// A [`ProbeError`]: the token refused, no such commit, GitHub unavailable, an answer that
    /// is not a list of check runs.
    pub async fn check_run_creator(
        &self,
        repo: &RepoId,
        sha: &str,
        name: &str,
    ) -> Result<Option<String>, ProbeError> {
        check_commit_id(sha)?;
        let path = format!(
            "/repos/{}/{}/commits/{sha}/check-runs?check_name={}&filter=latest&per_page=100",
            path_segment(&repo.owner),
            path_segment(&repo.name),
            path_segment(name)
        );
        let json = self.get_json(&path).await?;
        let runs = json
            .get("check_runs")
            .and_then(serde_json::Value::as_array)
            .ok_or_else(|| malformed(&path, "no `check_runs` list"))?;
        // GitHub lists the newest first; the name is checked again, the filter being the
        // server's.
        Ok(runs
            .iter()
            .find(|r| r.get("name").and_then(serde_json::Value::as_str) == Some(name))
            .and_then(|r| r.get("app"))
            .and_then(|a| a.get("slug"))
            .and_then(serde_json::Value::as_str)
            .filter(|s| !s.is_empty())
            .map(str::to_owned))
    }

    /// The logins a review of pull request `number` of `repo` is requested from now (`GET
    /// /repos/{o}/{r}/pulls/{n}/requested_reviewers`, users and bots; teams are left out): how
    /// a review request is confirmed to have landed, since GitHub accepts a request for a bot
    /// that will never come (Copilot code review not enabled for the repository or the
    /// account). Copilot is listed as `Copilot` here.
    ///
    /// # Errors
    /// A [`ProbeError`]: the token refused, no such pull request, GitHub unavailable, an answer
    /// that does not read.
    pub async fn requested_reviewers(
        &self,
        repo: &RepoId,
        number: u64,
    ) -> Result<Vec<String>, ProbeError> {
        let path = format!(
            "/repos/{}/{}/pulls/{number}/requested_reviewers",
            path_segment(&repo.owner),
            path_segment(&repo.name)
        );
        let json = self.get_json(&path).await?;
        let users = json
            .get("users")
            .and_then(serde_json::Value::as_array)
            .ok_or_else(|| malformed(&path, "no `users` list"))?;
        Ok(users
            .iter()
            .filter_map(|u| u.get("login").and_then(serde_json::Value::as_str))
            .filter(|l| !l.is_empty())
            .map(str::to_owned)
            .collect())
    }

    /// One `GET` of `path` without a cached `ETag`, read as JSON.
    async fn get_json(&self, path: &str) -> Result<serde_json::Value, ProbeError> {
        let mut requests = 0;
        let Fetched::Fresh { body, .. } = self.get(path, None, &mut requests).await? else {
            return Err(malformed(
                path,
                "304 Not Modified to a request without an ETag",
            ));
        };
        serde_json::from_str(&body)
            .map_err(|e| malformed(path, &format!("{e}: {}", shorten(&body))))
    }

    /// Creates the check run `run` on commit `sha` of `repo` (`POST
    /// /repos/{o}/{r}/check-runs`). Only a GitHub App's token may (the Actions `GITHUB_TOKEN`
    /// is one): another token is refused with 403. The latest run of a name on a commit is the
    /// one a branch protection rule reads, so sending one per verdict is how it is updated.
    ///
    /// # Errors
    /// A [`ProbeError`]: the token refused (401; 403 for a token that is not an App's), a
    /// commit the repository does not have (422), GitHub unavailable.
    pub async fn create_check_run(
        &self,
        repo: &RepoId,
        sha: &str,
        run: &NewCheckRun,
    ) -> Result<(), ProbeError> {
        check_commit_id(sha)?;
        let mut body = serde_json::json!({
            "name": run.name,
            "head_sha": sha,
            "output": {"title": run.title, "summary": run.summary},
        });
        match run.conclusion {
            Some(conclusion) => {
                body["status"] = "completed".into();
                body["conclusion"] = conclusion.into();
            }
            None => body["status"] = "in_progress".into(),
        }
        self.post(repo, "check-runs", &body).await
    }

    /// Asks `path` (with the cached `ETag`, if any) and gives the summary, fresh or cached.
    async fn fetch(
        &self,
        cache: &ProbeCache,
        round: &mut Round,
        resource: Resource,
        path: &str,
        parse: fn(&serde_json::Value) -> Result<Summary, String>,
    ) -> Result<Summary, ProbeError> {
        // An entry of the wrong kind (a hand-edited state file) is ignored rather than trusted:
        // without its ETag the answer is a 200, which replaces it.
        let cached = cache
            .entries
            .get(path)
            .filter(|c| c.summary.answers(resource));
        let etag = cached.and_then(|c| c.etag.as_deref());
        match self.get(path, etag, &mut round.requests).await? {
            Fetched::NotModified => {
                round.not_modified += 1;
                match cached {
                    Some(c) if etag.is_some() => Ok(c.summary.clone()),
                    _ => Err(malformed(
                        path,
                        "304 Not Modified to a request without an ETag",
                    )),
                }
            }
            Fetched::Fresh { etag: fresh, body } => {
                let json: serde_json::Value = serde_json::from_str(&body)
                    .map_err(|e| malformed(path, &format!("{e}: {}", shorten(&body))))?;
                let summary = parse(&json).map_err(|reason| malformed(path, &reason))?;
                let changed = cached.is_none_or(|c| match (&c.etag, &fresh) {
                    (Some(old), Some(new)) => old != new || c.summary != summary,
                    _ => true,
                });
                if changed {
                    round.changed.push(resource);
                }
                round.updates.push((
                    path.to_owned(),
                    CacheEntry {
                        etag: fresh,
                        summary: summary.clone(),
                    },
                ));
                Ok(summary)
            }
        }
    }

    /// One `GET`, retried on 5xx answers, timeouts, connection failures and answers cut off;
    /// `requests` counts each attempt.
    async fn get(
        &self,
        path: &str,
        etag: Option<&str>,
        requests: &mut u32,
    ) -> Result<Fetched, ProbeError> {
        let uri: http::Uri = format!("{}{path}", self.prefix)
            .parse()
            .map_err(|e| ProbeError::Build(format!("`{path}`: {e}")))?;
        let mut headers = HeaderMap::new();
        headers.insert(http::header::ACCEPT, HeaderValue::from_static(ACCEPT));
        headers.insert(
            "x-github-api-version",
            HeaderValue::from_static(API_VERSION),
        );
        // A cached ETag a header cannot carry (a hand-edited state file) is not sent: the
        // answer is then a 200 and counts as a change, which is safe.
        if let Some(value) = etag.and_then(|e| HeaderValue::from_str(e).ok()) {
            headers.insert(http::header::IF_NONE_MATCH, value);
        }
        let request = Request {
            method: Method::Get(headers),
            path: uri,
            timeout: self.policy.request_timeout,
            repeat: Repeat::Safe,
        };
        let retries = Retries {
            max_attempts: self.policy.max_attempts,
            base_backoff: self.policy.base_backoff,
            limits: Limits::Report,
        };
        self.transport
            .send(
                &request,
                &retries,
                None,
                |_| *requests += 1,
                |answer| read(path, answer),
            )
            .await
    }
}

/// Reads an answer the transport passed on (not a 401, a rate limit or a 5xx) to the `GET` of
/// `path`.
fn read(path: &str, answer: Answer) -> Verdict<Fetched, ProbeError> {
    let status = answer.status;
    if status == StatusCode::NOT_MODIFIED {
        return Verdict::Done(Fetched::NotModified);
    }
    if status.is_success() {
        let etag = answer
            .headers
            .get(http::header::ETAG)
            .and_then(|v| v.to_str().ok())
            .map(str::to_owned);
        return Verdict::Done(Fetched::Fresh {
            etag,
            body: answer.body,
        });
    }
    Verdict::Fail(match status {
        StatusCode::NOT_FOUND => ProbeError::NotFound {
            path: path.to_owned(),
        },
        _ => ProbeError::Http {
            status: status.as_u16(),
            message: error_message(&answer.body),
        },
    })
}

/// `Ok` for a commit id that can go in a path: 1 to 64 hex digits.
fn check_commit_id(sha: &str) -> Result<(), ProbeError> {
    if sha.is_empty() || sha.len() > 64 || !sha.bytes().all(|b| b.is_ascii_hexdigit()) {
        return Err(ProbeError::Build(format!(
            "{:?} is not a commit id",
            shorten(sha)
        )));
    }
    Ok(())
}

fn malformed(path: &str, reason: &str) -> ProbeError {
    ProbeError::Malformed {
        path: path.to_owned(),
        reason: reason.to_owned(),
    }
}

/// The check-run and status paths of commit `sha`.
fn check_paths(root: &str, sha: &str) -> (String, String) {
    (
        format!("{root}/commits/{sha}/check-runs?per_page=100"),
        format!("{root}/commits/{sha}/status"),
    )
}

/// `text` as one path segment: anything but RFC 3986's unreserved characters percent-encoded,
/// so that no name can add a segment or a query.
pub(crate) fn path_segment(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for b in text.bytes() {
        if b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_' | b'~') {
            out.push(char::from(b));
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

fn text(v: Option<&serde_json::Value>) -> Option<&str> {
    v.and_then(serde_json::Value::as_str)
}

fn parse_pull(json: &serde_json::Value) -> Result<Summary, String> {
    let head_sha = text(json.pointer("/head/sha")).ok_or("no `head.sha`")?;
    // The sha goes into the next paths: only a commit id may.
    if head_sha.is_empty()
        || head_sha.len() > 64
        || !head_sha.bytes().all(|b| b.is_ascii_hexdigit())
    {
        return Err(format!(
            "`head.sha` {:?} is not a commit id",
            shorten(head_sha)
        ));
    }
    let state = text(json.get("state")).ok_or("no `state`")?;
    let merged = json
        .get("merged")
        .and_then(serde_json::Value::as_bool)
        .unwrap_or(false)
        || json.get("merged_at").is_some_and(|v| !v.is_null());
    Ok(Summary::Pull(PullSummary {
        head_sha: head_sha.to_owned(),
        state: state.to_owned(),
        updated_at: text(json.get("updated_at")).unwrap_or_default().to_owned(),
        merged,
    }))
}

fn parse_count(json: &serde_json::Value) -> Result<Summary, String> {
    let items = json.as_array().ok_or("not a list")?;
    Ok(Summary::Count(CountSummary { count: items.len() }))
}

fn parse_runs(json: &serde_json::Value) -> Result<Summary, String> {
    #[derive(Deserialize)]
    struct Wire {
        check_runs: Vec<CheckRun>,
    }
    let wire = Wire::deserialize(json).map_err(|e| e.to_string())?;
    Ok(Summary::CheckRuns(CheckRunsSummary {
        runs: wire.check_runs,
    }))
}

fn parse_status(json: &serde_json::Value) -> Result<Summary, String> {
    let status = StatusSummary::deserialize(json).map_err(|e| e.to_string())?;
    Ok(Summary::Status(status))
}

#[cfg(test)]
mod tests {
    use super::*;
    use ChecksState::{Failure, Pending, Success};

    type Run = (&'static str, &'static str, Option<&'static str>);
    type Status = (&'static str, &'static str);
    /// Runs, statuses, and the state, failing and pending names expected.
    type Row = (
        &'static [Run],
        &'static [Status],
        Option<ChecksState>,
        &'static [&'static str],
        &'static [&'static str],
    );

    #[test]
    fn checks_roll_up_table() {
        let rows: &[Row] = &[
            (&[], &[], None, &[], &[]),
            (
                &[("b", "completed", Some("success"))],
                &[],
                Some(Success),
                &[],
                &[],
            ),
            (
                &[("b", "completed", Some("neutral"))],
                &[],
                Some(Success),
                &[],
                &[],
            ),
            (
                &[("b", "completed", Some("skipped"))],
                &[],
                Some(Success),
                &[],
                &[],
            ),
            (&[("b", "queued", None)], &[], Some(Pending), &[], &["b"]),
            (
                &[("b", "in_progress", None)],
                &[],
                Some(Pending),
                &[],
                &["b"],
            ),
            (
                &[
                    ("b", "completed", Some("failure")),
                    ("t", "in_progress", None),
                ],
                &[],
                Some(Failure),
                &["b"],
                &["t"],
            ),
            (
                &[("b", "completed", Some("timed_out"))],
                &[],
                Some(Failure),
                &["b"],
                &[],
            ),
            (
                &[("b", "completed", Some("cancelled"))],
                &[],
                Some(Failure),
                &["b"],
                &[],
            ),
            (
                &[("b", "completed", Some("action_required"))],
                &[],
                Some(Failure),
                &["b"],
                &[],
            ),
            (
                &[("b", "completed", Some("startup_failure"))],
                &[],
                Some(Failure),
                &["b"],
                &[],
            ),
            (&[], &[("s", "success")], Some(Success), &[], &[]),
            (&[], &[("s", "pending")], Some(Pending), &[], &["s"]),
            (&[], &[("s", "error")], Some(Failure), &["s"], &[]),
            (&[], &[("s", "failure")], Some(Failure), &["s"], &[]),
            (
                &[("b", "completed", Some("success"))],
                &[("s", "pending")],
                Some(Pending),
                &[],
                &["s"],
            ),
            // The same name twice (a matrix) is named once.
            (
                &[
                    ("b", "completed", Some("failure")),
                    ("b", "completed", Some("failure")),
                ],
                &[],
                Some(Failure),
                &["b"],
                &[],
            ),
        ];
        for (runs, statuses, state, failing, pending) in rows {
            let summary = ChecksSummary::merge(runs.iter().copied(), statuses.iter().copied());
            assert_eq!(summary.state, *state, "{runs:?} {statuses:?}");
            assert_eq!(summary.failing, *failing, "{runs:?} {statuses:?}");
            assert_eq!(summary.pending, *pending, "{runs:?} {statuses:?}");
        }
    }

    /// Every pair of checks from a small domain: the state follows from the lists, and each
    /// failing or pending name is one of the checks.
    #[test]
    fn checks_roll_up_properties_over_every_pair() {
        let statuses = ["queued", "in_progress", "completed", "waiting", ""];
        let conclusions = [
            None,
            Some("success"),
            Some("failure"),
            Some("neutral"),
            Some("cancelled"),
            Some("skipped"),
            Some("timed_out"),
            Some("action_required"),
            Some("startup_failure"),
            Some("stale"),
            Some("weird"),
        ];
        let states = ["error", "failure", "pending", "success", "weird"];
        let mut runs: Vec<Run> = Vec::new();
        for (i, status) in statuses.iter().enumerate() {
            for conclusion in &conclusions {
                runs.push((["r0", "r1", "r2", "r3", "r4"][i], status, *conclusion));
            }
        }
        let contexts: Vec<Status> = states.iter().map(|s| ("ctx", *s)).collect();
        let mut cases: Vec<(Vec<Run>, Vec<Status>)> = Vec::new();
        for a in &runs {
            for b in &runs {
                cases.push((vec![*a, *b], vec![]));
            }
            for s in &contexts {
                cases.push((vec![*a], vec![*s]));
            }
        }
        for (runs, statuses) in cases {
            let summary = ChecksSummary::merge(runs.iter().copied(), statuses.iter().copied());
            let expected = if !summary.failing.is_empty() {
                Failure
            } else if !summary.pending.is_empty() {
                Pending
            } else {
                Success
            };
            assert_eq!(summary.state, Some(expected), "{runs:?} {statuses:?}");
            let names: Vec<&str> = runs
                .iter()
                .map(|r| r.0)
                .chain(statuses.iter().map(|s| s.0))
                .collect();
            for name in summary.failing.iter().chain(&summary.pending) {
                assert!(names.contains(&name.as_str()), "{name}");
            }
            for (name, _, conclusion) in &runs {
                if is_failed_conclusion(*conclusion) {
                    assert!(summary.failing.iter().any(|n| n == name));
                }
            }
            let failed_status = statuses
                .iter()
                .any(|(_, s)| *s == "error" || *s == "failure");
            assert!(!failed_status || summary.failing.iter().any(|n| n == "ctx"));
        }
    }

    #[test]
    fn path_segments_cannot_escape() {
        assert_eq!(path_segment("acme"), "acme");
        assert_eq!(path_segment("my.repo-x_y~"), "my.repo-x_y~");
        assert_eq!(path_segment("a/b?c#d"), "a%2Fb%3Fc%23d");
        assert_eq!(path_segment(".."), "..");
        assert_eq!(path_segment("é"), "%C3%A9");
    }

    #[test]
    fn pull_answers_must_name_a_commit() {
        let ok = serde_json::json!({"head": {"sha": "abc123"}, "state": "open", "updated_at": "t"});
        assert!(parse_pull(&ok).is_ok());
        for bad in [
            serde_json::json!({"state": "open"}),
            serde_json::json!({"head": {"sha": "../../x"}, "state": "open"}),
            serde_json::json!({"head": {"sha": ""}, "state": "open"}),
            serde_json::json!({"head": {"sha": 7}, "state": "open"}),
            serde_json::json!({"head": {"sha": "abc"}}),
            serde_json::json!([]),
        ] {
            assert!(parse_pull(&bad).is_err(), "{bad}");
        }
        let merged =
            serde_json::json!({"head": {"sha": "ab"}, "state": "closed", "merged_at": "t"});
        let Ok(Summary::Pull(pull)) = parse_pull(&merged) else {
            panic!("a pull request")
        };
        assert!(pull.merged);
    }

    #[test]
    fn lists_and_checks_parse_or_say_why() {
        assert!(parse_count(&serde_json::json!({"message": "x"})).is_err());
        assert!(parse_runs(&serde_json::json!({"check_runs": [{"status": "queued"}]})).is_err());
        assert!(parse_runs(&serde_json::json!([])).is_err());
        assert!(parse_status(&serde_json::json!({"statuses": [{"state": "x"}]})).is_err());
        let Ok(Summary::Status(status)) = parse_status(&serde_json::json!({})) else {
            panic!("a status")
        };
        assert!(status.statuses.is_empty());
    }

    fn answer(status: u16, headers: HeaderMap, body: &str) -> Answer {
        Answer {
            status: StatusCode::from_u16(status).unwrap(),
            rate: crate::transport::RateLimit::from_headers(&headers),
            headers,
            body: body.to_owned(),
            received: 0,
        }
    }

    /// 401, rate limits and 5xx answers are the transport's (see its tests); the probe reads
    /// the rest.
    #[test]
    fn answers_are_read_or_typed() {
        let fatal =
            |status: u16, body: &str| match read("/p", answer(status, HeaderMap::new(), body)) {
                Verdict::Fail(e) => e,
                other => panic!("{status}: {other:?}"),
            };
        assert!(matches!(
            fatal(404, "{}"),
            ProbeError::NotFound { path } if path == "/p"
        ));
        let refused = fatal(
            403,
            r#"{"message":"Resource not accessible by integration"}"#,
        );
        assert!(
            matches!(&refused, ProbeError::Http { status: 403, message } if message == "Resource not accessible by integration"),
            "{refused}"
        );
        assert!(matches!(
            read("/p", answer(304, HeaderMap::new(), "")),
            Verdict::Done(Fetched::NotModified)
        ));
        let mut headers = HeaderMap::new();
        headers.insert(http::header::ETAG, HeaderValue::from_static("W/\"1\""));
        assert!(matches!(
            read("/p", answer(200, headers, "{}")),
            Verdict::Done(Fetched::Fresh { etag: Some(e), .. }) if e == "W/\"1\""
        ));
    }

    #[test]
    fn transport_errors_are_named_as_the_probe_names_them() {
        assert!(matches!(
            ProbeError::from(TransportError::Unauthorized),
            ProbeError::BadCredentials
        ));
        let limited = ProbeError::from(TransportError::Throttled {
            wait: Some(Duration::from_secs(30)),
            message: "You have exceeded a secondary rate limit".to_owned(),
        });
        assert!(
            matches!(limited, ProbeError::RateLimited { retry_after: Some(d), .. } if d == Duration::from_secs(30)),
            "{limited}"
        );
        assert!(limited.to_string().contains("retry in 30 s"), "{limited}");
        let gave_up = ProbeError::from(TransportError::GaveUp {
            attempts: 3,
            last: "GitHub answered HTTP 502".to_owned(),
        });
        assert_eq!(
            gave_up.to_string(),
            "GitHub is unavailable: gave up after 3 attempts: GitHub answered HTTP 502"
        );
    }

    #[test]
    fn the_cache_round_trips_in_camel_case() {
        let mut cache = ProbeCache::new();
        cache.entries.insert(
            "/repos/a/b/pulls/1".into(),
            CacheEntry {
                etag: Some("W/\"1\"".into()),
                summary: Summary::Pull(PullSummary {
                    head_sha: "ab".into(),
                    state: "open".into(),
                    updated_at: "t".into(),
                    merged: false,
                }),
            },
        );
        let text = serde_json::to_string(&cache).unwrap();
        assert!(text.contains("\"headSha\":\"ab\""), "{text}");
        assert!(text.contains("\"kind\":\"pull\""), "{text}");
        let back: ProbeCache = serde_json::from_str(&text).unwrap();
        assert_eq!(back, cache);
        let empty: ProbeCache = serde_json::from_str("{}").unwrap();
        assert!(empty.is_empty());
    }
}
