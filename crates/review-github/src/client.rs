//! The GraphQL client: one POST per request, bounded retries, GitHub's rate limits honoured, and
//! counts of what was spent.
//!
//! Retries:
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
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use http::{HeaderMap, StatusCode};
use serde::Deserialize;
use serde::de::DeserializeOwned;

use crate::token::Token;

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

/// Called with a one-line message whenever the client waits (a rate limit, a backoff).
pub type Progress = Arc<dyn Fn(&str) + Send + Sync>;

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
}

/// A GraphQL client for one endpoint and token.
#[derive(Clone)]
pub struct Client {
    crab: octocrab::Octocrab,
    url: http::Uri,
    policy: RetryPolicy,
    stats: Arc<Mutex<Stats>>,
    progress: Option<Progress>,
}

impl std::fmt::Debug for Client {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Client")
            .field("url", &self.url)
            .field("policy", &self.policy)
            .finish_non_exhaustive()
    }
}

/// Whether a request may be sent again after a failure in flight.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Repeat {
    /// Reads, resolves and minimizes: repeating them is harmless.
    Safe,
    /// Posts: a repeat could post twice. Sent once; the caller checks whether it landed.
    Once,
}

enum Attempt<T> {
    Done(Response<T>),
    Retry { why: String, wait: Option<Duration> },
    Secondary { why: String, wait: Duration },
    Fail(ClientError),
}

fn now_epoch() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_secs())
}

fn header_u64(headers: &HeaderMap, name: &str) -> Option<u64> {
    headers.get(name)?.to_str().ok()?.trim().parse().ok()
}

fn is_secondary(message: &str) -> bool {
    message
        .to_ascii_lowercase()
        .contains("secondary rate limit")
}

/// A duration for people: `30 s`, or `0.3 s` below a second.
pub(crate) fn seconds(d: Duration) -> String {
    if d < Duration::from_secs(1) && !d.is_zero() {
        format!("{:.1} s", d.as_secs_f64().max(0.1))
    } else {
        format!("{} s", d.as_secs_f64().round())
    }
}

fn shorten(text: &str) -> String {
    let one_line: String = text.split_whitespace().collect::<Vec<_>>().join(" ");
    let mut out: String = one_line.chars().take(200).collect();
    if one_line.chars().count() > 200 {
        out.push('…');
    }
    out
}

impl Client {
    /// A client for the GraphQL endpoint `graphql_url`, authenticating with `token`.
    ///
    /// Must be called inside a tokio runtime.
    pub fn new(graphql_url: &str, token: &Token, policy: RetryPolicy) -> Result<Self, ClientError> {
        let full: http::Uri = graphql_url
            .parse()
            .map_err(|e| ClientError::Build(format!("`{graphql_url}`: {e}")))?;
        let (Some(scheme), Some(authority)) = (full.scheme_str(), full.authority()) else {
            return Err(ClientError::Build(format!(
                "`{graphql_url}` is not an absolute URL"
            )));
        };
        // octocrab sends the token only to its base host (or api.github.com), so the endpoint's
        // host is the base and requests name only the path.
        let base = format!("{scheme}://{authority}/");
        let url: http::Uri = full
            .path_and_query()
            .map_or("/", http::uri::PathAndQuery::as_str)
            .parse()
            .map_err(|e| ClientError::Build(format!("`{graphql_url}`: {e}")))?;
        // octocrab's builder panics on a token no HTTP header can carry (a newline in it, say).
        if http::HeaderValue::from_str(&format!("Bearer {}", token.expose())).is_err() {
            return Err(ClientError::Build(
                "the token contains characters an HTTP header cannot carry".to_owned(),
            ));
        }
        let crab = octocrab::Octocrab::builder()
            .base_uri(base.as_str())
            .map_err(|e| ClientError::Build(format!("`{base}`: {e}")))?
            .personal_token(token.expose().to_owned())
            .set_connect_timeout(Some(Duration::from_secs(10)))
            // The client's own timeout (in `attempt`) governs each request and names it; this
            // one is a backstop a little later, or the two race and a plain wait for an answer
            // is reported as a failed connection.
            .set_read_timeout(Some(
                policy
                    .request_timeout
                    .max(policy.write_timeout)
                    .saturating_add(Duration::from_secs(5)),
            ))
            .build()
            .map_err(|e| ClientError::Build(e.to_string()))?;
        Ok(Self {
            crab,
            url,
            policy,
            stats: Arc::new(Mutex::new(Stats::default())),
            progress: None,
        })
    }

    /// Reports waits through `progress`.
    #[must_use]
    pub fn with_progress(mut self, progress: Progress) -> Self {
        self.progress = Some(progress);
        self
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

    fn say(&self, message: &str) {
        if let Some(p) = &self.progress {
            p(message);
        }
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
        let mut attempts = 0u32;
        let mut secondary = 0u32;
        let mut backoff = self.policy.base_backoff;
        let mut secondary_backoff = self.policy.secondary_wait;
        loop {
            attempts += 1;
            self.count(attempts + secondary > 1);
            match self.attempt(body, repeat).await {
                Attempt::Done(r) => return Ok(r),
                Attempt::Fail(e) => return Err(e),
                Attempt::Retry { why, wait } => {
                    if repeat == Repeat::Once {
                        return Err(ClientError::Uncertain(why));
                    }
                    if attempts >= self.policy.max_attempts {
                        return Err(ClientError::GaveUp {
                            attempts,
                            last: why,
                        });
                    }
                    let wait = wait.unwrap_or(backoff);
                    backoff = backoff.saturating_mul(2);
                    self.say(&format!("{why}; retrying in {}", seconds(wait)));
                    tokio::time::sleep(wait).await;
                }
                Attempt::Secondary { why, wait } => {
                    secondary += 1;
                    attempts -= 1;
                    if secondary >= self.policy.max_secondary_attempts {
                        return Err(ClientError::GaveUp {
                            attempts: attempts + secondary,
                            last: why,
                        });
                    }
                    let wait = if wait.is_zero() {
                        let w = secondary_backoff;
                        secondary_backoff = secondary_backoff.saturating_mul(2);
                        w
                    } else {
                        wait
                    };
                    if wait > self.policy.max_wait {
                        return Err(ClientError::RateLimited { reset_in: wait });
                    }
                    self.say(&format!(
                        "{why}; waiting {} s as GitHub asks",
                        wait.as_secs()
                    ));
                    tokio::time::sleep(wait).await;
                }
            }
        }
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

    async fn attempt<T: DeserializeOwned>(
        &self,
        body: &serde_json::Value,
        repeat: Repeat,
    ) -> Attempt<T> {
        let timeout = self.timeout_for(body);
        let sent =
            tokio::time::timeout(timeout, self.crab._post(self.url.clone(), Some(body))).await;
        let response = match sent {
            Err(_) => {
                return Attempt::Retry {
                    why: format!("no answer within {}", seconds(timeout)),
                    wait: None,
                };
            }
            Ok(Err(e)) => {
                return Attempt::Retry {
                    why: format!("connection failed: {}", shorten(&e.to_string())),
                    wait: None,
                };
            }
            Ok(Ok(r)) => r,
        };
        let status = response.status();
        let headers = response.headers().clone();
        let text = match tokio::time::timeout(timeout, self.crab.body_to_string(response)).await {
            Ok(Ok(t)) => t,
            Ok(Err(e)) => {
                return Attempt::Retry {
                    why: format!("the answer was cut off: {}", shorten(&e.to_string())),
                    wait: None,
                };
            }
            Err(_) => {
                return Attempt::Retry {
                    why: "the answer stalled".to_owned(),
                    wait: None,
                };
            }
        };
        let retry_after = header_u64(&headers, "retry-after").map(Duration::from_secs);
        let remaining = header_u64(&headers, "x-ratelimit-remaining");
        let reset_in = header_u64(&headers, "x-ratelimit-reset")
            .map(|reset| Duration::from_secs(reset.saturating_sub(now_epoch()) + 1));
        let limit_wait = || {
            retry_after
                .or(if remaining == Some(0) { reset_in } else { None })
                .unwrap_or(Duration::ZERO)
        };

        if status == StatusCode::UNAUTHORIZED {
            return Attempt::Fail(ClientError::BadCredentials);
        }
        if (status == StatusCode::FORBIDDEN || status == StatusCode::TOO_MANY_REQUESTS)
            && (is_secondary(&text)
                || retry_after.is_some()
                || status == StatusCode::TOO_MANY_REQUESTS)
        {
            return Attempt::Secondary {
                why: format!("GitHub's secondary rate limit (HTTP {})", status.as_u16()),
                wait: limit_wait(),
            };
        }
        if status == StatusCode::FORBIDDEN && remaining == Some(0) {
            let reset_in = reset_in.unwrap_or(self.policy.secondary_wait);
            return self.wait_for_reset(reset_in);
        }
        if status.is_server_error() {
            let _ = repeat;
            return Attempt::Retry {
                why: format!("GitHub answered HTTP {}", status.as_u16()),
                wait: retry_after,
            };
        }
        if !status.is_success() {
            return Attempt::Fail(ClientError::Http {
                status: status.as_u16(),
                message: shorten(&text),
            });
        }
        let wire: Wire<T> = match serde_json::from_str(&text) {
            Ok(w) => w,
            // A body that stops mid-JSON was cut off on the way (a dropped connection behind a
            // proxy): as uncertain as a 5xx, and retried like one (a post is then looked for).
            Err(e) if e.is_eof() => {
                return Attempt::Retry {
                    why: format!("the answer was cut off: {e}"),
                    wait: None,
                };
            }
            Err(e) => {
                return Attempt::Fail(ClientError::Decode(format!("{e}: {}", shorten(&text))));
            }
        };
        let errors = wire.errors.unwrap_or_default();
        if errors
            .iter()
            .any(|e| e.kind.as_deref() == Some("RATE_LIMITED"))
        {
            let reset_in = reset_in.unwrap_or(self.policy.secondary_wait);
            return self.wait_for_reset(reset_in);
        }
        if errors.iter().any(|e| is_secondary(&e.message)) {
            return Attempt::Secondary {
                why: "GitHub's secondary rate limit".to_owned(),
                wait: limit_wait(),
            };
        }
        Attempt::Done(Response {
            data: wire.data,
            errors,
        })
    }

    fn wait_for_reset<T>(&self, reset_in: Duration) -> Attempt<T> {
        if reset_in > self.policy.max_wait {
            return Attempt::Fail(ClientError::RateLimited { reset_in });
        }
        Attempt::Secondary {
            why: "GitHub's rate limit is exhausted".to_owned(),
            wait: reset_in,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations_read_as_people_say_them() {
        assert_eq!(seconds(Duration::from_secs(30)), "30 s");
        assert_eq!(seconds(Duration::from_millis(300)), "0.3 s");
        assert_eq!(seconds(Duration::from_millis(5)), "0.1 s");
        assert_eq!(seconds(Duration::from_millis(1500)), "2 s");
        assert_eq!(seconds(Duration::ZERO), "0 s");
    }

    #[tokio::test]
    async fn a_token_no_header_can_carry_is_an_error_not_a_panic() {
        let token = Token::new("ghp_abc\nX-Injected: 1");
        let err = Client::new(
            "https://api.github.com/graphql",
            &token,
            RetryPolicy::default(),
        )
        .unwrap_err();
        assert!(matches!(err, ClientError::Build(_)), "{err:?}");
        assert!(
            !err.to_string().contains("ghp_abc"),
            "the token is not echoed"
        );
    }
}
