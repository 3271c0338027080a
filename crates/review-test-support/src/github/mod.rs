//! A fake GitHub GraphQL endpoint for the adapter's tests: [`FakeGitHub`].
//!
//! It runs on a local [`wiremock::MockServer`] and answers `POST /graphql` by actually running
//! the posted document against in-memory pull requests: it parses the document, validates it
//! against the slice of GitHub's schema a review client uses (unknown fields, arguments, types
//! and unused variables fail the whole document, as on GitHub), and executes it with GitHub's
//! conventions:
//!
//! - pages of at most 100 items, opaque cursors (`Y3Vyc29yOnYyOjEwMA==`), `totalCount`, a
//!   `first`/`last` required on every connection; a cursor the fake did not hand out is an
//!   `INVALID_CURSOR_ARGUMENTS` error;
//! - `NOT_FOUND` errors with the field's `path` and `locations` for an unknown repository,
//!   pull request or node id, the field reading `null` (or its nearest nullable parent, as
//!   GraphQL's null propagation wants);
//! - mutations run in document order, each alias on its own, so one bad id in a batch
//!   (`r0: resolveReviewThread(...)`, `r1: ...`) nulls only its alias;
//! - authors typed by `__typename` (`User`, `Bot`, `Organization`, `Mannequin`, and
//!   `EnterpriseUserAccount` for [`AuthorKind::Unknown`](review_core::model::AuthorKind));
//! - a pending review is seen by its author only, and a reply posted while the viewer has one
//!   lands in that draft, out of everyone's sight;
//! - `rateLimit { cost remaining resetAt }` and the `x-ratelimit-*` headers, one point per
//!   document run.
//!
//! Faults ([`Fault`]) replace or delay the next matching answers to test retries: among them a
//! seeded share of server errors ([`Fault::Flaky`]) and answers cut off mid-body
//! ([`Fault::CutOff`]), a real dropped connection through the byte-level proxy that
//! [`FakeGitHub::proxied_graphql_url`] puts in front of the fake. Others spoil part of an
//! answer: a node GitHub cannot load reads `null` beside a `NOT_FOUND` error at its path
//! ([`Fault::NullNode`]), or is left out of a list its `totalCount` still counts
//! ([`Fault::MissingNode`]).
//!
//! Its schema can lack what an older GitHub Enterprise Server's lacks
//! ([`FakeGitHub::without_field`], [`FakeGitHub::without_mutation`],
//! [`FakeGitHub::without_argument`]): a document using it fails whole, as GitHub answers it.
//!
//! Beside GraphQL it serves, under [`FakeGitHub::rest_url`], the few REST `GET`s a change probe
//! asks (the pull request, its comments, reviews, review comments, and its head's check runs and
//! combined status), with `ETag`s and `304 Not Modified` answers that cost nothing, as on
//! GitHub: see [`FakeGitHub::rest_log`] and [`FakeCheck`].
//!
//! ```
//! # tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
//! use review_test_support::PrBuilder;
//! use review_test_support::github::FakeGitHub;
//!
//! let github = FakeGitHub::start().await;
//! github.add_pull_request(PrBuilder::new().build());
//! assert!(github.graphql_url().ends_with("/graphql"));
//! assert_eq!(github.points(), 0);
//! # });
//! ```

mod depth;
mod document;
mod exec;
mod generate;
mod issues;
mod proxy;
mod rest;
mod schema;
mod server;
mod state;

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex, MutexGuard, OnceLock, PoisonError};
use std::time::Duration;

use review_core::model::{CommentId, PullRequest, RepoId, Review, ReviewId, ReviewState, ThreadId};
use wiremock::matchers::{method, path};
use wiremock::{Mock, MockServer};

pub use generate::{
    HUMAN_REVIEWER, depth_lower_bound, large_pull_request, requests_lower_bound, with_human_reply,
    with_reviews,
};
pub use issues::FakeIssue;
pub use rest::{FakeCheck, REST_OPERATION, RestRecorded};

use crate::Mutation;
use state::{PrEntry, State};

/// A request the fake received, as it arrived.
#[derive(Debug, Clone, PartialEq)]
pub struct Recorded {
    /// The `operationName` sent, or else the name of the document's only operation.
    pub operation: Option<String>,
    /// The `variables` sent (`null` if none).
    pub variables: serde_json::Value,
    /// How many top-level fields of the operation carry an alias (`r0: ...`): the size of a
    /// batch.
    pub aliases: usize,
    /// The `Authorization` header, verbatim.
    pub authorization: Option<String>,
    /// The document sent.
    pub query: String,
    /// The HTTP status of the answer.
    pub status: u16,
}

/// A failure to inject into the fake's next answers.
///
/// Each fault applies to the next request whose operation name matches `operation` (`None`:
/// any request, REST included), `times` times, then is used up. Faults are queued in order; a
/// request takes at most one answer-replacing fault (the first queued that matches), plus at
/// most one [`Fault::Slow`], plus every [`Fault::AliasError`] naming one of its top-level keys,
/// plus every [`Fault::NullNode`] and [`Fault::MissingNode`] whose node its answer holds, plus
/// every [`Fault::FailingNode`] whose node one of its mutations names.
/// A request hit by a fault that answers in place of GitHub spends no points and changes nothing.
///
/// REST requests answer to the operation name [`REST_OPERATION`] (`"rest"`) and to their
/// route's (`"rest:reviews"`, ...). For them a [`Fault::SecondaryLimit`] answers 403 (or 429)
/// whatever its status, a [`Fault::RateLimited`] answers 403 with `x-ratelimit-remaining: 0`,
/// and a [`Fault::ApplyThenFail`] is a plain server error (a `GET` applies nothing).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Fault {
    /// A gateway failure: `status` (502, 503, 504, ...) with an HTML body, nothing applied.
    ServerError {
        /// The operation it hits; `None` for any.
        operation: Option<String>,
        /// The HTTP status.
        status: u16,
        /// How many requests it hits.
        times: usize,
    },
    /// A secondary rate limit: "You have exceeded a secondary rate limit ...". With status 403 or
    /// 429 the body is `{"message", "documentation_url"}`; with 200 it is a GraphQL `errors`
    /// entry carrying that message. `retry_after` adds a `retry-after` header.
    SecondaryLimit {
        /// The operation it hits; `None` for any.
        operation: Option<String>,
        /// 403, 429 or 200.
        status: u16,
        /// Seconds for the `retry-after` header.
        retry_after: Option<u64>,
        /// How many requests it hits.
        times: usize,
    },
    /// The primary limit spent: HTTP 200, an error of type `RATE_LIMITED`,
    /// `x-ratelimit-remaining: 0` and `x-ratelimit-reset` `reset_in_secs` from now.
    RateLimited {
        /// The operation it hits; `None` for any.
        operation: Option<String>,
        /// Seconds until the budget resets.
        reset_in_secs: u64,
        /// How many requests it hits.
        times: usize,
    },
    /// The answer, whatever it is, comes `delay` late.
    Slow {
        /// The operation it hits; `None` for any.
        operation: Option<String>,
        /// How late.
        delay: Duration,
        /// How many requests it hits.
        times: usize,
    },
    /// The top-level field answering under `alias` (a batch entry such as `r1`) fails with
    /// GitHub's internal error, without being applied; the document's other fields run.
    AliasError {
        /// The response key that fails.
        alias: String,
        /// How many requests it hits.
        times: usize,
    },
    /// The document runs (mutations land) but the answer is `status` with an HTML body, as when
    /// GitHub's front end times out on a write that went through.
    ApplyThenFail {
        /// The operation it hits; `None` for any.
        operation: Option<String>,
        /// The HTTP status.
        status: u16,
        /// How many requests it hits.
        times: usize,
    },
    /// Server errors on a share of the matching requests: each one fails, as
    /// [`Fault::ServerError`] does (`status`, an HTML body, nothing applied), with a chance of
    /// `percent` in 100, drawn from a generator seeded with `seed`, so the same requests in the
    /// same order fail the same way every run. A request it spares passes on to the other
    /// faults. Used up after `times` failures.
    Flaky {
        /// The operation it hits; `None` for any.
        operation: Option<String>,
        /// The HTTP status of a failure.
        status: u16,
        /// The chance of a failure, in 100.
        percent: u8,
        /// The generator's state: the seed, then moved on by each draw.
        seed: u64,
        /// How many failures it makes.
        times: usize,
    },
    /// The connection drops in the middle of the answer: the request runs (mutations land),
    /// then the status line, the headers and the first half of the body are sent, and the
    /// connection is closed.
    ///
    /// A real drop needs the byte-level proxy in front of the fake: reach it through
    /// [`FakeGitHub::proxied_graphql_url`] or [`FakeGitHub::proxied_rest_url`]. Reached
    /// directly, the fake cannot close a connection half-way through a body, and answers a
    /// stand-in instead: the right status with the body cut in half (and a `Content-Length`
    /// that matches the cut body). An error answered before a document runs (a 401, a request
    /// that is not JSON) is not cut.
    CutOff {
        /// The operation it hits; `None` for any.
        operation: Option<String>,
        /// How many requests it hits.
        times: usize,
    },
    /// GitHub cannot load the node `id` (a review thread, a review comment, a review or a
    /// top-level comment): wherever an answer holds it, in any request, it reads `null`, with a
    /// `NOT_FOUND` error whose `path` points at it (`repository.pullRequest.reviewThreads.nodes.
    /// 0.comments.nodes.1`), and the rest of the answer comes as usual. A non-null field above
    /// it goes null in its place, as GraphQL's null propagation wants. Used up after `times`
    /// answers that held it.
    NullNode {
        /// The node's id.
        id: String,
        /// How many answers it hits.
        times: usize,
    },
    /// The node `id` (as for [`Fault::NullNode`]) is left out of its connection's `nodes`,
    /// with no error, while the connection's `totalCount` still counts it: GitHub's list and
    /// its count disagree. Used up after `times` answers that would have held it.
    MissingNode {
        /// The node's id.
        id: String,
        /// How many answers it hits.
        times: usize,
    },
    /// Every mutation field whose input names the node `id` (a thread to resolve or reply in, a
    /// comment to minimize, a pull request to comment on) fails with GitHub's internal error,
    /// its field `null` and nothing applied; the document's other fields run. Used up after
    /// `times` documents that named it.
    FailingNode {
        /// The node's id.
        id: String,
        /// How many documents it hits.
        times: usize,
    },
}

impl Fault {
    fn times(&self) -> usize {
        match self {
            Self::ServerError { times, .. }
            | Self::SecondaryLimit { times, .. }
            | Self::RateLimited { times, .. }
            | Self::Slow { times, .. }
            | Self::AliasError { times, .. }
            | Self::ApplyThenFail { times, .. }
            | Self::Flaky { times, .. }
            | Self::CutOff { times, .. }
            | Self::NullNode { times, .. }
            | Self::MissingNode { times, .. }
            | Self::FailingNode { times, .. } => *times,
        }
    }

    fn times_mut(&mut self) -> &mut usize {
        match self {
            Self::ServerError { times, .. }
            | Self::SecondaryLimit { times, .. }
            | Self::RateLimited { times, .. }
            | Self::Slow { times, .. }
            | Self::AliasError { times, .. }
            | Self::ApplyThenFail { times, .. }
            | Self::Flaky { times, .. }
            | Self::CutOff { times, .. }
            | Self::NullNode { times, .. }
            | Self::MissingNode { times, .. }
            | Self::FailingNode { times, .. } => times,
        }
    }
}

/// A fake of GitHub's GraphQL API on a local port, holding pull requests in memory.
///
/// Build pull requests with [`crate::PrBuilder`] or [`large_pull_request`], add them, point the
/// client at [`FakeGitHub::graphql_url`] with any bearer token (or the one given to
/// [`FakeGitHub::require_token`]) and a `User-Agent`, then inspect
/// [`FakeGitHub::pull_request`], [`FakeGitHub::requests`] and [`FakeGitHub::mutations`].
///
/// Node ids are looked up across every pull request added, so keep them unique between pull
/// requests that share a test. Values are served as stored (an empty `url` reads as `""`); a
/// comment without a diff hunk reads `diffHunk: ""`, as the field is non-null on GitHub.
#[derive(Debug)]
pub struct FakeGitHub {
    server: MockServer,
    state: Arc<Mutex<State>>,
    /// The byte-level proxy for [`Fault::CutOff`], started on first use.
    proxy: OnceLock<proxy::Proxy>,
}

impl FakeGitHub {
    /// Starts a fake with no repositories, viewer `dana` (the author of [`crate::PrBuilder`]'s
    /// pull requests) and a full budget of 5,000 points.
    pub async fn start() -> Self {
        Self::serve(MockServer::start().await).await
    }

    /// Starts a fake as [`FakeGitHub::start`] does, listening on `ip` (another loopback
    /// address, such as `127.0.0.2`, stands for another host: tests check which token each
    /// host receives).
    ///
    /// # Panics
    /// If no port can be bound on `ip`.
    pub async fn start_on(ip: std::net::IpAddr) -> Self {
        let listener = std::net::TcpListener::bind((ip, 0))
            .unwrap_or_else(|e| panic!("FakeGitHub cannot listen on {ip}: {e}"));
        Self::serve(MockServer::builder().listener(listener).start().await).await
    }

    async fn serve(server: MockServer) -> Self {
        let state = Arc::new(Mutex::new(State::new()));
        Mock::given(method("POST"))
            .and(path("/graphql"))
            .respond_with(server::Responder {
                state: Arc::clone(&state),
            })
            .mount(&server)
            .await;
        Mock::given(method("POST"))
            .and(wiremock::matchers::path_regex(
                r"/repos/[^/]+/[^/]+/statuses/[^/]+$",
            ))
            .respond_with(rest::StatusResponder {
                state: Arc::clone(&state),
            })
            .mount(&server)
            .await;
        Mock::given(method("POST"))
            .and(wiremock::matchers::path_regex(
                r"/repos/[^/]+/[^/]+/check-runs$",
            ))
            .respond_with(rest::CheckRunResponder {
                state: Arc::clone(&state),
            })
            .mount(&server)
            .await;
        Mock::given(wiremock::matchers::path_regex(
            r"/repos/[^/]+/[^/]+/issues$",
        ))
        .respond_with(issues::IssuesResponder {
            state: Arc::clone(&state),
        })
        .mount(&server)
        .await;
        Mock::given(method("GET"))
            .respond_with(rest::RestResponder {
                state: Arc::clone(&state),
            })
            .mount(&server)
            .await;
        Self {
            server,
            state,
            proxy: OnceLock::new(),
        }
    }

    fn state(&self) -> MutexGuard<'_, State> {
        // A test that panicked while holding the lock has failed already; the data is still
        // good for the next assertion.
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    fn entry<T>(&self, repo: &RepoId, number: u64, f: impl FnOnce(&mut State, usize) -> T) -> T {
        let mut st = self.state();
        let Some(idx) = st
            .prs
            .iter()
            .position(|e| &e.pr.repo == repo && e.pr.number == number)
        else {
            panic!("FakeGitHub has no pull request {repo}#{number}: add it first");
        };
        f(&mut st, idx)
    }

    /// The GraphQL endpoint, `http://127.0.0.1:PORT/graphql` (the address it listens on).
    pub fn graphql_url(&self) -> String {
        format!("{}/graphql", self.server.uri())
    }

    /// The base of the REST API, `http://127.0.0.1:PORT`. The routes are also served under
    /// `/api/v3`, so [`FakeGitHub::enterprise_rest_url`] stands for an Enterprise Server base.
    pub fn rest_url(&self) -> String {
        self.server.uri()
    }

    /// The GraphQL endpoint through a byte-level proxy in front of the fake, on a port of its
    /// own: the same answers, except that a [`Fault::CutOff`] drops the connection half-way
    /// through the body, for real. The proxy starts on the first call.
    ///
    /// # Panics
    /// If no local port can be bound for the proxy.
    pub fn proxied_graphql_url(&self) -> String {
        format!("{}/graphql", self.proxy().uri())
    }

    /// The base of the REST API through the proxy of [`FakeGitHub::proxied_graphql_url`].
    ///
    /// # Panics
    /// If no local port can be bound for the proxy.
    pub fn proxied_rest_url(&self) -> String {
        self.proxy().uri()
    }

    fn proxy(&self) -> &proxy::Proxy {
        self.proxy.get_or_init(|| {
            proxy::Proxy::start(*self.server.address())
                .unwrap_or_else(|e| panic!("FakeGitHub cannot start its proxy: {e}"))
        })
    }

    /// The base of the REST API as Enterprise Server spells it, `http://127.0.0.1:PORT/api/v3`.
    pub fn enterprise_rest_url(&self) -> String {
        format!("{}/api/v3", self.server.uri())
    }

    /// Adds a pull request, keyed by `(pr.repo, pr.number)`; it replaces one with the same key.
    /// Its repository comes into being with default branch `main` unless it exists already. The
    /// head repository is owned by the base repository's owner until
    /// [`FakeGitHub::set_head_owner`] says otherwise.
    pub fn add_pull_request(&self, pr: PullRequest) {
        let mut st = self.state();
        st.repos
            .entry(pr.repo.clone())
            .or_insert_with(|| "main".to_owned());
        st.prs
            .retain(|e| !(e.pr.repo == pr.repo && e.pr.number == pr.number));
        let revision = st.tick();
        st.prs.push(PrEntry {
            head_owner: pr.repo.owner.clone(),
            pr,
            drafts: Vec::new(),
            minimized: BTreeMap::new(),
            revision,
        });
    }

    /// Edits a stored pull request in place, as things happen on GitHub between two reads: a
    /// push (a new `head_sha`, threads outdated), new threads, human replies, reviews,
    /// conversation comments, a title or state change. Its pending-review drafts, minimized
    /// comments and head owner are kept, and its REST `updated_at` (hence its `ETag`) moves.
    ///
    /// Checks are per commit: after a push, give the new head its checks with
    /// [`FakeGitHub::set_checks`] (until then its REST checks stand for `pr.checks` as left).
    ///
    /// # Panics
    /// If the pull request was not added, or `f` changes its repository or number.
    pub fn update_pull_request(
        &self,
        repo: &RepoId,
        number: u64,
        f: impl FnOnce(&mut PullRequest),
    ) {
        self.entry(repo, number, |st, i| {
            f(&mut st.prs[i].pr);
            let pr = &st.prs[i].pr;
            assert!(
                &pr.repo == repo && pr.number == number,
                "update_pull_request must not change the key of {repo}#{number}"
            );
            st.touch(i);
        });
    }

    /// Gives pull request `number`'s head commit these named checks (replacing any it had), and
    /// sets the pull request's `checks` (GraphQL's `statusCheckRollup`) to their
    /// [roll-up](FakeCheck::rollup). REST serves the runs under `commits/{sha}/check-runs` and
    /// the statuses under `commits/{sha}/status`. Like GitHub, this does not move the pull
    /// request's `updated_at`: checks have `ETag`s of their own.
    ///
    /// # Panics
    /// If the pull request was not added.
    pub fn set_checks(&self, repo: &RepoId, number: u64, checks: Vec<FakeCheck>) {
        self.entry(repo, number, |st, i| {
            let pr = &mut st.prs[i].pr;
            pr.checks = FakeCheck::rollup(&checks);
            let key = (pr.repo.clone(), pr.head_sha.0.clone());
            st.checks.insert(key, checks);
        });
    }

    /// Sets a repository's default branch, creating the repository (with no pull requests) if
    /// needed.
    pub fn set_default_branch(&self, repo: &RepoId, branch: &str) {
        self.state().repos.insert(repo.clone(), branch.to_owned());
    }

    /// Makes pull request `number` come from a repository owned by `owner` (a fork).
    ///
    /// # Panics
    /// If the pull request was not added.
    pub fn set_head_owner(&self, repo: &RepoId, number: u64, owner: &str) {
        self.entry(repo, number, |st, i| {
            owner.clone_into(&mut st.prs[i].head_owner);
        });
    }

    /// Puts a regular file with `contents` at `path` of `commit` in `repo`, for
    /// `Repository.object(expression: "COMMIT:PATH")` to serve.
    pub fn set_file(&self, repo: &RepoId, commit: &str, path: &str, contents: &[u8]) {
        self.put_file(repo, commit, path, contents, 0o100_644);
    }

    /// Puts a symbolic link at `path` of `commit` in `repo`, pointing at `target`.
    pub fn set_symlink(&self, repo: &RepoId, commit: &str, path: &str, target: &str) {
        self.put_file(repo, commit, path, target.as_bytes(), 0o120_000);
    }

    fn put_file(&self, repo: &RepoId, commit: &str, path: &str, contents: &[u8], mode: u32) {
        self.state()
            .files
            .entry((repo.clone(), commit.to_owned()))
            .or_default()
            .insert(
                path.to_owned(),
                state::FakeFile {
                    bytes: contents.to_vec(),
                    mode,
                },
            );
    }

    /// Sets the login the token belongs to: replies are posted as this user (typed `User`), and
    /// pending reviews are visible to it only.
    pub fn set_viewer(&self, login: &str) {
        login.clone_into(&mut self.state().viewer);
    }

    /// Accepts only `Authorization: Bearer <token>` (or `token <token>`) from now on; any other
    /// token answers 401 "Bad credentials". Without this, any token is accepted; no token at all
    /// is always a 401.
    pub fn require_token(&self, token: &str) {
        self.state().token = Some(token.to_owned());
    }

    /// Makes `token` read-only, as GitHub makes a workflow's token on a pull request from a fork:
    /// queries answer as usual, and every mutation field it sends fails with GitHub's
    /// `FORBIDDEN` error, "Resource not accessible by integration", its field `null` and
    /// nothing applied; a commit status it posts is refused with a 403 of the same words.
    pub fn read_only_token(&self, token: &str) {
        self.state().read_only.insert(token.to_owned());
    }

    /// Gives the viewer a pending (draft) review on a pull request, as GitHub keeps one while a
    /// review is started and not submitted. It shows in the pull request's `reviews` to the
    /// viewer only, with state `PENDING`; replies posted meanwhile land in it. Returns its id.
    ///
    /// # Panics
    /// If the pull request was not added.
    pub fn add_pending_review(&self, repo: &RepoId, number: u64) -> ReviewId {
        self.entry(repo, number, |st, i| {
            let n = st.fresh();
            let id = ReviewId(format!("PRR_pending{n}"));
            let author = review_core::model::Author::new(
                st.viewer.clone(),
                review_core::model::AuthorKind::User,
            );
            let pr = &mut st.prs[i].pr;
            let commit = Some(pr.head_sha.clone());
            pr.reviews.push(Review {
                id: id.clone(),
                author: Some(author),
                state: ReviewState::Pending,
                body: String::new(),
                submitted_at: None,
                commit,
            });
            id
        })
    }

    /// The pull request as the fake now holds it: resolved flags as last set, visible replies
    /// appended (each in a review of its own, added to `reviews`), pending reviews included.
    /// Replies absorbed by a pending review are not in it: see [`FakeGitHub::draft_replies`].
    pub fn pull_request(&self, repo: &RepoId, number: u64) -> Option<PullRequest> {
        self.state().pr(repo, number).map(|e| e.pr.clone())
    }

    /// The replies that landed in the viewer's pending review on a pull request (thread, body),
    /// in order. Nobody but the viewer sees them.
    pub fn draft_replies(&self, repo: &RepoId, number: u64) -> Vec<(ThreadId, String)> {
        self.state().pr(repo, number).map_or_else(Vec::new, |e| {
            e.drafts
                .iter()
                .map(|(t, c)| (t.clone(), c.body.clone()))
                .collect()
        })
    }

    /// The classifier a comment was minimized with (`RESOLVED`, `OUTDATED`, ...), if it was.
    pub fn minimized(&self, comment: &CommentId) -> Option<String> {
        self.state()
            .prs
            .iter()
            .find_map(|e| e.minimized.get(comment).cloned())
    }

    /// Every GraphQL request received, in order, faulted ones included. REST requests are in
    /// [`FakeGitHub::rest_log`].
    pub fn requests(&self) -> Vec<Recorded> {
        self.state().requests.clone()
    }

    /// The round-trip depth of every GraphQL request received so far: how many answers the
    /// client waited for one after another. See [`FakeGitHub::depth_since`].
    pub fn depth(&self) -> usize {
        self.depth_since(0)
    }

    /// The round-trip depth of the GraphQL requests received from the `first`-th on (an index
    /// into [`FakeGitHub::requests`]): each request's level is 1 + the highest level among
    /// those whose answer was out before it arrived, and the depth is the highest level.
    /// Requests in flight together share a level; a strictly sequential run is as deep as it
    /// has requests. A request's answer is out once computed plus any [`Fault::Slow`] delay,
    /// so overlap shows only when answers take time: inject a `Fault::Slow` for every request
    /// (`operation: None`, `times: usize::MAX`) to measure a client's concurrency.
    pub fn depth_since(&self, first: usize) -> usize {
        depth::depth(self.state().timings.get(first..).unwrap_or_default())
    }

    /// The most GraphQL requests that were in flight at once (arrived, their answer not yet
    /// out), from the `first`-th request on; see [`FakeGitHub::depth_since`] for when an
    /// answer is out.
    pub fn peak_in_flight_since(&self, first: usize) -> usize {
        depth::peak(self.state().timings.get(first..).unwrap_or_default())
    }

    /// How many requests named `operation` were received, faulted ones included.
    pub fn count(&self, operation: &str) -> usize {
        self.state()
            .requests
            .iter()
            .filter(|r| r.operation.as_deref() == Some(operation))
            .count()
    }

    /// The rate-limit points spent: one per document run (validated and executed), whatever
    /// its size; requests answered by a fault other than [`Fault::ApplyThenFail`] cost none.
    pub fn points(&self) -> u64 {
        self.state().points
    }

    /// The mutations applied, in order, one per successful mutation field (each alias of a
    /// batch counts on its own). A reply absorbed by a pending review counts: GitHub accepted it.
    pub fn mutations(&self) -> Vec<Mutation> {
        self.state().mutations.clone()
    }

    /// The bodies of the check runs created (`POST .../check-runs`), in order.
    pub fn posted_check_runs(&self) -> Vec<serde_json::Value> {
        self.state().posted_check_runs.clone()
    }

    /// Refuses to create check runs (403), as GitHub does for a token that is not a GitHub
    /// App's (a personal access token).
    pub fn refuse_check_runs(&self) {
        self.state().check_runs_refused = true;
    }

    /// From now on, review requests are accepted (the mutation answers as usual) and then
    /// dropped: nobody is listed under `requested_reviewers`, as GitHub does for a bot that is
    /// not enabled (Copilot code review off for the repository or the account).
    pub fn drop_review_requests(&self) {
        self.state().requests_dropped = true;
    }

    /// The bots a review of pull request `number` is requested from now, as logins without
    /// `[bot]` (Copilot's reviewer is `copilot-pull-request-reviewer`), in order.
    pub fn requested_reviewers(&self, number: u64) -> Vec<String> {
        let st = self.state();
        st.prs
            .iter()
            .find(|e| e.pr.number == number)
            .and_then(|e| st.requested.get(&e.pr.id))
            .cloned()
            .unwrap_or_default()
    }

    /// The issues of `repo`, oldest first.
    pub fn issues(&self, repo: &RepoId) -> Vec<FakeIssue> {
        self.state().issues.get(repo).cloned().unwrap_or_default()
    }

    /// Turns `repo`'s issues off: opening or listing them answers `410 Gone`.
    pub fn turn_off_issues(&self, repo: &RepoId) {
        self.state().issues_off.insert(repo.clone());
    }

    /// The bodies of the commit statuses posted (`POST .../statuses/{sha}`), in order.
    pub fn posted_statuses(&self) -> Vec<serde_json::Value> {
        self.state().posted_statuses.clone()
    }

    /// Every REST request received, in order, faulted ones included.
    pub fn rest_log(&self) -> Vec<RestRecorded> {
        self.state().rest.clone()
    }

    /// How many REST requests were received, `304`s and faulted ones included.
    pub fn rest_requests(&self) -> usize {
        self.state().rest.len()
    }

    /// How many REST requests were answered `304 Not Modified`.
    pub fn rest_not_modified(&self) -> usize {
        self.state().rest.iter().filter(|r| r.status == 304).count()
    }

    /// How many REST requests counted against the rate limit (see [`RestRecorded::charged`]):
    /// an idle poll that only gets `304`s leaves this unchanged.
    pub fn rest_charged(&self) -> usize {
        self.state().rest.iter().filter(|r| r.charged).count()
    }

    /// Makes the server's schema lack `type_name.field`, as an older GitHub Enterprise Server's
    /// lacks fields added since: every document selecting it fails whole with HTTP 200, an
    /// `undefinedField` error (`typeName`, `fieldName`, "Field 'F' doesn't exist on type 'T'")
    /// and no `data`, nothing run and no point spent. A mutation is a field of `Mutation`
    /// ([`FakeGitHub::without_mutation`]).
    pub fn without_field(&self, type_name: &str, field: &str) {
        self.state()
            .lacking
            .fields
            .insert((type_name.to_owned(), field.to_owned()));
    }

    /// Makes the server lack the mutation `name` ([`FakeGitHub::without_field`] on
    /// `Mutation`).
    pub fn without_mutation(&self, name: &str) {
        self.without_field("Mutation", name);
    }

    /// Makes `type_name.field` refuse the argument `argument`: a document passing it fails whole
    /// with an `argumentNotAccepted` error (`name`, `typeName`, `argumentName`) and no `data`.
    pub fn without_argument(&self, type_name: &str, field: &str, argument: &str) {
        self.state().lacking.args.insert((
            type_name.to_owned(),
            field.to_owned(),
            argument.to_owned(),
        ));
    }

    /// Queues a fault for the next matching requests (see [`Fault`]).
    pub fn inject(&self, fault: Fault) {
        self.state().faults.push(fault);
    }

    /// Drops every queued fault, used up or not: GitHub is well again.
    pub fn clear_faults(&self) {
        self.state().faults.clear();
    }
}
