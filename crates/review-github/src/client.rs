//! The GraphQL client: one POST per request over the [`crate::transport`], bounded retries,
//! GitHub's rate limits honoured, and counts of what was spent.
//!
//! Retries (the transport's, with this client's [`RetryPolicy`]):
//! - 5xx answers, timeouts, connection errors and answers cut off mid-body (a connection
//!   dropped, or a JSON body that stops short): retried with exponential backoff, at most
//!   [`RetryPolicy::max_attempts`] times, for requests that are safe to repeat. A request that
//!   is not (a reply) is sent once, and the caller checks whether it landed.
//! - Secondary rate limits (403/429, or 200 with that message): wait for `retry-after`, else for
//!   the reset time when nothing remains, else [`RetryPolicy::secondary_wait`] doubled each time.
//! - Primary exhaustion (HTTP 200 with a `RATE_LIMITED` error): wait for `x-ratelimit-reset` if
//!   that is within [`RetryPolicy::max_wait`], else stop with an error saying when to retry.
//!
//! Timeouts: a read may take [`RetryPolicy::request_timeout`], a mutation (a document starting
//! with `mutation`) the longer [`RetryPolicy::write_timeout`]: GitHub can be slow to write,
//! and a write given up on too early is a write whose outcome is unknown.
//!
//! Waits are announced through the [`Progress`] callback (the CLI prints them on stderr).

use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde::Deserialize;
use serde::de::DeserializeOwned;

use crate::token::Token;
use crate::transport::{
    Answer, Endpoint, Limits, Method, Request, Retries, Throttle, Transport, TransportError,
    Verdict, is_secondary, shorten,
};
pub use crate::transport::{Progress, Repeat};
use crate::unsupported::Unsupported;

/// How the client retries and waits.
#[derive(Debug, Clone)]
pub struct RetryPolicy {
    /// Attempts in all (first try included) for 5xx, timeouts and connection errors.
    pub max_attempts: u32,
    /// The first backoff; doubled on each retry.
    pub base_backoff: Duration,
    /// The wait after a secondary rate limit that names no time (GitHub asks for at least 60 s).
    pub secondary_wait: Duration,
    /// Attempts in all after secondary rate limits.
    pub max_secondary_attempts: u32,
    /// The longest the client waits for a rate limit to reset before giving up.
    pub max_wait: Duration,
    /// How long one read may take before it counts as a timeout.
    pub request_timeout: Duration,
    /// How long one mutation may take before it counts as a timeout: longer than a read, as a
    /// mutation given up on may still land (a post is then looked for, never sent again).
    pub write_timeout: Duration,
}

impl Default for RetryPolicy {
    fn default() -> Self {
        Self {
            max_attempts: 4,
            base_backoff: Duration::from_secs(1),
            secondary_wait: Duration::from_secs(60),
            max_secondary_attempts: 3,
            max_wait: Duration::from_secs(15 * 60),
            request_timeout: Duration::from_secs(30),
            write_timeout: Duration::from_secs(60),
        }
    }
}

/// What the client has spent so far.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Stats {
    /// HTTP requests sent, retries included.
    pub requests: u64,
    /// GraphQL points, from `rateLimit.cost` where the query asked for it, else 1 per query.
    pub points: u64,
    /// Requests that were retries.
    pub retries: u64,
}

/// One error GitHub put in a GraphQL response's `errors`.
#[derive(Debug, Clone, Deserialize, PartialEq, Eq)]
pub struct ApiError {
    /// The message.
    pub message: String,
    /// GitHub's error type (`NOT_FOUND`, `RATE_LIMITED`, `FORBIDDEN`, ...), if given.
    #[serde(default, rename = "type")]
    pub kind: Option<String>,
    /// Where in the response it applies; the first segment is the field or alias.
    #[serde(default)]
    pub path: Option<Vec<serde_json::Value>>,
    /// GraphQL's `extensions`: `code` and the names a schema error gives (see
    /// [`crate::unsupported`]).
    #[serde(default)]
    pub extensions: Option<serde_json::Map<String, serde_json::Value>>,
}

impl ApiError {
    /// The first segment of the path (the top-level field or alias), if a string.
    pub fn top_field(&self) -> Option<&str> {
        self.path.as_ref()?.first()?.as_str()
    }
}

/// A GraphQL response: data (possibly partial) and errors.
#[derive(Debug)]
pub struct Response<T> {
    /// The data, if any.
    pub data: Option<T>,
    /// The errors, possibly beside data.
    pub errors: Vec<ApiError>,
}

#[derive(Deserialize)]
struct Wire<T> {
    data: Option<T>,
    #[serde(default)]
    errors: Option<Vec<ApiError>>,
}

/// Why a request failed.
#[derive(Debug, thiserror::Error)]
pub enum ClientError {
    /// GitHub refused the token.
    #[error("GitHub refused the token (HTTP 401)")]
    BadCredentials,
    /// The token lacks access.
    #[error("GitHub answered HTTP {status}: {message}")]
    Http {
        /// The status.
        status: u16,
        /// What GitHub said, shortened.
        message: String,
    },
    /// The rate limit is exhausted and resets later than the client may wait.
    #[error("the GitHub rate limit is exhausted; it resets in {} s", reset_in.as_secs())]
    RateLimited {
        /// Time until the reset.
        reset_in: Duration,
    },
    /// Still failing after the allowed retries.
    #[error("gave up after {attempts} attempts: {last}")]
    GaveUp {
        /// Attempts made.
        attempts: u32,
        /// The last failure.
        last: String,
    },
    /// The request may or may not have been applied (a non-repeatable request failed in flight).
    #[error("the request may or may not have been applied: {0}")]
    Uncertain(String),
    /// The answer was not the JSON expected.
    #[error("unexpected answer from GitHub: {0}")]
    Decode(String),
    /// The request could not be built (a bad URL).
    #[error("cannot build the request: {0}")]
    Build(String),
    /// The server's API lacks a field, mutation or argument the document uses: GitHub ran
    /// nothing. Not retried: the same document fails the same way.
    #[error("{0}")]
    Unsupported(Unsupported),
}

/// The transport's errors, as the client names them.
impl From<TransportError> for ClientError {
    fn from(e: TransportError) -> Self {
        match e {
            TransportError::Unauthorized => Self::BadCredentials,
            // The client waits out what it may: a rate limit it reports names its wait.
            TransportError::Throttled { wait, .. } => Self::RateLimited {
                reset_in: wait.unwrap_or_default(),
            },
            TransportError::GaveUp { attempts, last } => Self::GaveUp { attempts, last },
            TransportError::Uncertain(why) => Self::Uncertain(why),
            TransportError::Build(why) => Self::Build(why),
        }
    }
}

/// A GraphQL client for one endpoint and token.
#[derive(Clone)]
pub struct Client {
    transport: Transport,
    url: http::Uri,
    policy: RetryPolicy,
    retries: Retries,
    stats: Arc<Mutex<Stats>>,
    progress: Option<Progress>,
    /// What the server's API was found to lack, shared by the client's clones: a run asks
    /// the full document once, then only the one without it.
    lacking: Arc<Mutex<Vec<Unsupported>>>,
}

impl std::fmt::Debug for Client {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Client")
            .field("url", &self.url)
            .field("policy", &self.policy)
            .finish_non_exhaustive()
    }
}

impl From<&RetryPolicy> for Retries {
    fn from(policy: &RetryPolicy) -> Self {
        Self {
            max_attempts: policy.max_attempts,
            base_backoff: policy.base_backoff,
            limits: Limits::Wait {
                secondary_wait: policy.secondary_wait,
                max_attempts: policy.max_secondary_attempts,
                max_wait: policy.max_wait,
            },
        }
    }
}

impl Client {
    /// A client for the GraphQL endpoint `graphql_url`, authenticating with `token`.
    ///
    /// Must be called inside a tokio runtime.
    ///
    /// # Errors
    /// [`ClientError::Build`] when `graphql_url` is not an absolute `http(s)` URL, or the token
    /// holds characters an HTTP header cannot carry.
    pub fn new(graphql_url: &str, token: &Token, policy: RetryPolicy) -> Result<Self, ClientError> {
        let endpoint = Endpoint::parse(graphql_url)?;
        let url: http::Uri = match &endpoint.query {
            Some(query) => format!("{}?{query}", endpoint.path),
            None => endpoint.path.clone(),
        }
        .parse()
        .map_err(|e| ClientError::Build(format!("`{graphql_url}`: {e}")))?;
        // The client's own timeout (in `send`) governs each request and names it; octocrab's is
        // a backstop a little later, or the two race and a plain wait for an answer is reported
        // as a failed connection.
        let backstop = policy
            .request_timeout
            .max(policy.write_timeout)
            .saturating_add(Duration::from_secs(5));
        let transport = Transport::new(&endpoint.origin, token, Some(backstop))?;
        Ok(Self {
            transport,
            url,
            retries: Retries::from(&policy),
            policy,
            stats: Arc::new(Mutex::new(Stats::default())),
            progress: None,
            lacking: Arc::new(Mutex::new(Vec::new())),
        })
    }

    /// Reports waits through `progress`.
    #[must_use]
    pub fn with_progress(mut self, progress: Progress) -> Self {
        self.progress = Some(progress);
        self
    }

    /// Remembers, for the rest of the run, that the server's API lacks `missing`.
    pub fn note_lacking(&self, missing: &Unsupported) {
        let mut lacking = self
            .lacking
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        if !lacking.contains(missing) {
            lacking.push(missing.clone());
        }
    }

    /// Whether the server's API was found to lack `type_name.field` this run.
    pub fn lacks(&self, type_name: &str, field: &str) -> bool {
        self.lacking
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .iter()
            .any(|m| m.is_field(type_name, field))
    }

    /// What was spent so far.
    pub fn stats(&self) -> Stats {
        *self
            .stats
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    fn count(&self, retry: bool) {
        let mut stats = self
            .stats
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        stats.requests += 1;
        if retry {
            stats.retries += 1;
        }
    }

    /// Adds `points` to the spend (from a query's `rateLimit.cost`).
    pub fn add_points(&self, points: u64) {
        self.stats
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .points += points;
    }

    /// Sends a cynic operation and decodes its data.
    pub async fn run<Q, V>(
        &self,
        op: &cynic::Operation<Q, V>,
        repeat: Repeat,
    ) -> Result<Response<Q>, ClientError>
    where
        Q: DeserializeOwned,
        V: serde::Serialize,
    {
        let body = serde_json::to_value(op).map_err(|e| ClientError::Build(e.to_string()))?;
        self.send(&body, repeat).await
    }

    /// Sends a raw GraphQL request body (`{"query", "variables", "operationName"}`).
    pub async fn send<T: DeserializeOwned>(
        &self,
        body: &serde_json::Value,
        repeat: Repeat,
    ) -> Result<Response<T>, ClientError> {
        let request = Request {
            method: Method::Post(body),
            path: self.url.clone(),
            timeout: self.timeout_for(body),
            repeat,
        };
        self.transport
            .send(
                &request,
                &self.retries,
                self.progress.as_ref(),
                |retry| self.count(retry),
                |answer| read(&answer),
            )
            .await
    }

    /// The time limit of one request: [`RetryPolicy::write_timeout`] for a mutation,
    /// [`RetryPolicy::request_timeout`] for anything else.
    fn timeout_for(&self, body: &serde_json::Value) -> Duration {
        let mutation = body
            .get("query")
            .and_then(serde_json::Value::as_str)
            .is_some_and(|q| q.trim_start().starts_with("mutation"));
        if mutation {
            self.policy.write_timeout
        } else {
            self.policy.request_timeout
        }
    }
}

/// Reads a GraphQL answer the transport passed on (not a 401, a rate limit or a 5xx): another
/// refusal fails; a body that stops short was cut off on the way; GraphQL's own rate limits
/// (with HTTP 200) are waited out like the transport's.
fn read<T: DeserializeOwned>(answer: &Answer) -> Verdict<Response<T>, ClientError> {
    if !answer.status.is_success() {
        return Verdict::Fail(ClientError::Http {
            status: answer.status.as_u16(),
            message: shorten(&answer.body),
        });
    }
    let wire: Wire<T> = match serde_json::from_str(&answer.body) {
        Ok(w) => w,
        // A body that stops mid-JSON was cut off on the way (a dropped connection behind a
        // proxy): as uncertain as a 5xx, and retried like one (a post is then looked for).
        Err(e) if e.is_eof() => return Verdict::Retry(format!("the answer was cut off: {e}")),
        Err(e) => {
            return Verdict::Fail(ClientError::Decode(format!(
                "{e}: {}",
                shorten(&answer.body)
            )));
        }
    };
    let errors = wire.errors.unwrap_or_default();
    if let Some(limited) = errors
        .iter()
        .find(|e| e.kind.as_deref() == Some("RATE_LIMITED"))
    {
        return Verdict::Throttled(Throttle {
            why: "GitHub's rate limit is exhausted".to_owned(),
            message: shorten(&limited.message),
            wait: answer.reset_in(),
            spent: true,
        });
    }
    if let Some(limited) = errors.iter().find(|e| is_secondary(&e.message)) {
        return Verdict::Throttled(Throttle {
            why: "GitHub's secondary rate limit".to_owned(),
            message: shorten(&limited.message),
            wait: answer.limit_wait(),
            spent: false,
        });
    }
    // A document the schema refuses carries no data; with data, the errors are about it.
    if wire.data.is_none()
        && let Some(missing) = Unsupported::from_errors(&errors)
    {
        return Verdict::Fail(ClientError::Unsupported(missing));
    }
    Verdict::Done(Response {
        data: wire.data,
        errors,
    })
}
