//! The one HTTP transport under the GraphQL [`crate::client`] and the REST change
//! [`crate::probe`]: how the HTTP client is built, which token it may carry, how one request is
//! sent and timed, how GitHub's answer is sorted before its caller reads it, and how a failure is
//! retried or waited out.
//!
//! - **Building.** A token no HTTP header can carry (a newline in it, say) is refused before any
//!   request, with an error that does not echo it. The endpoint must be an absolute `http(s)`
//!   URL; the client's base is its scheme and host alone, and requests name only a path, so the
//!   token goes to that host and to no other.
//! - **Sending.** Each request has its own time limit, for the answer and again for its body; a
//!   request that meets it, a connection that fails and a body cut off on the way are failures in
//!   flight.
//! - **Sorting.** Before the caller sees an answer: 401 is [`TransportError::Unauthorized`];
//!   a 429, or a 403 that names a rate limit (the words, `retry-after`, or
//!   `x-ratelimit-remaining: 0`), is a rate limit; a 5xx is a failure worth another try. The rest
//!   (successes, `304`, `404`, other refusals) is the caller's to read, and the caller may find a
//!   failure in flight (a JSON body that stops short) or a rate limit (GraphQL's `RATE_LIMITED`,
//!   which comes with HTTP 200) in it.
//! - **Retrying.** A failure in flight or a 5xx is tried again, after a backoff that doubles
//!   each time, until the attempts are spent ([`TransportError::GaveUp`]); a request that must
//!   not be repeated ([`Repeat::Once`]) is not, and ends [`TransportError::Uncertain`]. A rate
//!   limit is either waited out (for as long as GitHub says: `retry-after`, else the reset when
//!   nothing remains, else a wait that doubles) a bounded number of times and never past the
//!   longest allowed wait, or reported at once ([`TransportError::Throttled`]), as the caller
//!   chooses.
//! - **Holding together.** A rate limit is the token's, not one request's: while one request
//!   waits one out, every other request of the same transport (and its clones), those already
//!   retrying included, holds its next attempt until that wait ends, so concurrent requests do
//!   not keep hitting a limit one of them has met.
//!
//! [`RateLimit`] reads GitHub's rate-limit headers.

use std::sync::Arc;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use http::{HeaderMap, HeaderValue, StatusCode};

use crate::token::Token;

/// Called with a one-line message whenever a request waits (a rate limit, a backoff).
pub type Progress = Arc<dyn Fn(&str) + Send + Sync>;

/// Whether a request may be sent again after a failure in flight.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Repeat {
    /// Reads, resolves and minimizes: repeating them is harmless.
    Safe,
    /// Posts: a repeat could post twice. Sent once; the caller checks whether it landed.
    Once,
}

/// Why the transport could not deliver an answer. None of these carries the token.
///
/// The GraphQL client and the change probe name these in their own errors
/// ([`crate::client::ClientError`], [`crate::probe::ProbeError`], through `From`).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum TransportError {
    /// GitHub refused the token (HTTP 401).
    #[error("GitHub refused the token (HTTP 401)")]
    Unauthorized,
    /// A rate limit (primary or secondary) that was not waited out: the caller reports rate
    /// limits, or the wait would be longer than it allows.
    #[error("{}", throttled_message(message, *wait))]
    Throttled {
        /// How long GitHub asks to wait (`retry-after`, else the time until the reset when
        /// nothing is left), if it said.
        wait: Option<Duration>,
        /// What GitHub said, shortened.
        message: String,
    },
    /// 5xx answers or failures in flight (no answer in time, a failed connection, an answer cut
    /// off), still after the allowed attempts.
    #[error("gave up after {attempts} attempts: {last}")]
    GaveUp {
        /// Attempts made.
        attempts: u32,
        /// The last failure.
        last: String,
    },
    /// A request that must not be repeated ([`Repeat::Once`]) failed in flight: it may or may
    /// not have been applied.
    #[error("the request may or may not have been applied: {0}")]
    Uncertain(String),
    /// The client or a request could not be built (a bad URL, a token no HTTP header can carry).
    #[error("{0}")]
    Build(String),
}

/// `GitHub's rate limit was hit (MESSAGE)`, and the wait if known.
pub(crate) fn throttled_message(message: &str, wait: Option<Duration>) -> String {
    match wait {
        Some(wait) => format!(
            "GitHub's rate limit was hit ({message}); retry in {} s",
            wait.as_secs()
        ),
        None => format!("GitHub's rate limit was hit ({message})"),
    }
}

/// GitHub's rate-limit headers of one answer, each `None` when absent or not a number.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RateLimit {
    /// `x-ratelimit-limit`: the budget per window.
    pub limit: Option<u64>,
    /// `x-ratelimit-remaining`: what is left of it.
    pub remaining: Option<u64>,
    /// `x-ratelimit-used`: what was spent of it.
    pub used: Option<u64>,
    /// `x-ratelimit-reset`: when the window resets, in seconds since the Unix epoch.
    pub reset: Option<u64>,
    /// `x-ratelimit-resource`: which budget (`core`, `graphql`, ...).
    pub resource: Option<String>,
    /// `retry-after`: how long GitHub asks to wait, in seconds.
    pub retry_after: Option<Duration>,
}

impl RateLimit {
    /// Reads the headers of an answer.
    ///
    /// ```
    /// use std::time::Duration;
    /// use http::{HeaderMap, HeaderValue};
    /// use review_github::transport::RateLimit;
    ///
    /// let mut headers = HeaderMap::new();
    /// headers.insert("x-ratelimit-remaining", HeaderValue::from_static("0"));
    /// headers.insert("x-ratelimit-reset", HeaderValue::from_static("1000"));
    /// let limit = RateLimit::from_headers(&headers);
    /// assert!(limit.is_spent());
    /// assert_eq!(limit.reset_in(970), Some(Duration::from_secs(31)));
    /// assert_eq!(limit.wait(970), Some(Duration::from_secs(31)));
    /// ```
    pub fn from_headers(headers: &HeaderMap) -> Self {
        Self {
            limit: header_u64(headers, "x-ratelimit-limit"),
            remaining: header_u64(headers, "x-ratelimit-remaining"),
            used: header_u64(headers, "x-ratelimit-used"),
            reset: header_u64(headers, "x-ratelimit-reset"),
            resource: headers
                .get("x-ratelimit-resource")
                .and_then(|v| v.to_str().ok())
                .map(|v| v.trim().to_owned()),
            retry_after: header_u64(headers, "retry-after").map(Duration::from_secs),
        }
    }

    /// Whether nothing is left (`x-ratelimit-remaining: 0`).
    pub fn is_spent(&self) -> bool {
        self.remaining == Some(0)
    }

    /// The time from `now` (seconds since the Unix epoch) until the reset, plus a second so that
    /// a wait for it ends after it; `None` without a reset time.
    pub fn reset_in(&self, now: u64) -> Option<Duration> {
        self.reset
            .map(|reset| Duration::from_secs(reset.saturating_sub(now) + 1))
    }

    /// How long a rate limit asks to wait, from `now`: `retry-after`, else the time until the
    /// reset when nothing is left; `None` when GitHub names no time.
    pub fn wait(&self, now: u64) -> Option<Duration> {
        self.retry_after.or(if self.is_spent() {
            self.reset_in(now)
        } else {
            None
        })
    }
}

fn header_u64(headers: &HeaderMap, name: &str) -> Option<u64> {
    headers.get(name)?.to_str().ok()?.trim().parse().ok()
}

/// Seconds since the Unix epoch, by the system clock.
fn now_epoch() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_secs())
}

/// A duration for people: `30 s`, or `0.3 s` below a second.
pub(crate) use review_core::time::seconds;

/// `text` on one line, at most 200 characters.
pub(crate) fn shorten(text: &str) -> String {
    let one_line = text.split_whitespace().collect::<Vec<_>>().join(" ");
    let mut out: String = one_line.chars().take(200).collect();
    if one_line.chars().count() > 200 {
        out.push('…');
    }
    out
}

/// GitHub's `message`, or the body itself, shortened to one line.
pub(crate) fn error_message(body: &str) -> String {
    serde_json::from_str::<serde_json::Value>(body)
        .ok()
        .and_then(|v| v.get("message")?.as_str().map(shorten))
        .unwrap_or_else(|| shorten(body))
}

/// Whether `text` names GitHub's secondary rate limit.
pub(crate) fn is_secondary(text: &str) -> bool {
    text.to_ascii_lowercase().contains("secondary rate limit")
}

/// Refuses a token no HTTP header can carry: octocrab's builder would panic on it. The error
/// does not echo it.
fn check_token(token: &Token) -> Result<(), TransportError> {
    if HeaderValue::from_str(&format!("Bearer {}", token.expose())).is_err() {
        return Err(TransportError::Build(
            "the token contains characters an HTTP header cannot carry".to_owned(),
        ));
    }
    Ok(())
}

/// An endpoint split into the client's base (scheme and host) and what requests name.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Endpoint {
    /// `scheme://host[:port]`, without a slash.
    pub origin: String,
    /// The path (`/graphql`, `/api/v3`, `/` for none).
    pub path: String,
    /// The query, if any.
    pub query: Option<String>,
}

impl Endpoint {
    /// Splits `url`, which must be an absolute `http(s)` URL.
    pub(crate) fn parse(url: &str) -> Result<Self, TransportError> {
        let full: http::Uri = url
            .parse()
            .map_err(|e| TransportError::Build(format!("`{url}`: {e}")))?;
        let (Some(scheme @ ("http" | "https")), Some(authority)) =
            (full.scheme_str(), full.authority())
        else {
            return Err(TransportError::Build(format!(
                "`{url}` is not an absolute http(s) URL"
            )));
        };
        Ok(Self {
            origin: format!("{scheme}://{authority}"),
            path: full.path().to_owned(),
            query: full.query().map(str::to_owned),
        })
    }
}

/// How a caller retries and waits.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Retries {
    /// Attempts in all (first try included) for failures in flight and 5xx answers; `0` counts
    /// as `1`.
    pub max_attempts: u32,
    /// The first backoff; doubled on each retry.
    pub base_backoff: Duration,
    /// What a rate limit does.
    pub limits: Limits,
}

/// What a rate limit does to a request.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Limits {
    /// It is waited out, and so is a time a 5xx answer names (`retry-after`).
    Wait {
        /// The wait after a secondary rate limit that names no time (GitHub asks for at least
        /// 60 s), doubled each time; also the wait for a spent budget with no reset time.
        secondary_wait: Duration,
        /// Attempts in all after rate limits.
        max_attempts: u32,
        /// The longest wait; a longer one is [`TransportError::Throttled`].
        max_wait: Duration,
    },
    /// It is [`TransportError::Throttled`] at once: the caller decides when to ask again. A 5xx
    /// answer is retried after the backoff whatever time it names.
    Report,
}

/// A rate limit met by one attempt.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Throttle {
    /// What happened, for the progress line.
    pub why: String,
    /// What GitHub said, shortened.
    pub message: String,
    /// How long GitHub asks to wait, if it said.
    pub wait: Option<Duration>,
    /// Whether the budget is spent (primary), rather than a secondary limit: its wait, past
    /// [`Limits::Wait::max_wait`], is reported at once.
    pub spent: bool,
}

/// How one attempt ended, as far as retrying goes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Failure {
    /// A failure in flight, or a 5xx answer (with the time it names, if any).
    Retry {
        /// What happened.
        why: String,
        /// `retry-after` of a 5xx answer.
        wait: Option<Duration>,
    },
    /// A rate limit.
    Throttled(Throttle),
}

/// What the transport does after a failed attempt.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Step {
    /// Waits this long, saying so, then tries again.
    Wait {
        /// How long.
        wait: Duration,
        /// The progress line.
        say: String,
    },
    /// Gives up with this error.
    Stop(TransportError),
}

/// The retry decisions for one request: pure, so they are tested without a server.
#[derive(Debug)]
pub(crate) struct Retrier<'a> {
    retries: &'a Retries,
    repeat: Repeat,
    attempts: u32,
    limited: u32,
    backoff: Duration,
    limit_backoff: Duration,
}

impl<'a> Retrier<'a> {
    pub(crate) fn new(retries: &'a Retries, repeat: Repeat) -> Self {
        let limit_backoff = match &retries.limits {
            Limits::Wait { secondary_wait, .. } => *secondary_wait,
            Limits::Report => Duration::ZERO,
        };
        Self {
            retries,
            repeat,
            attempts: 0,
            limited: 0,
            backoff: retries.base_backoff,
            limit_backoff,
        }
    }

    /// Counts an attempt about to be sent; whether it is a retry.
    pub(crate) fn start(&mut self) -> bool {
        self.attempts += 1;
        self.attempts + self.limited > 1
    }

    /// What to do after the attempt just made failed with `failure`.
    pub(crate) fn after(&mut self, failure: Failure) -> Step {
        match failure {
            Failure::Retry { why, wait } => {
                if self.repeat == Repeat::Once {
                    return Step::Stop(TransportError::Uncertain(why));
                }
                if self.attempts >= self.retries.max_attempts.max(1) {
                    return Step::Stop(TransportError::GaveUp {
                        attempts: self.attempts,
                        last: why,
                    });
                }
                let named = match self.retries.limits {
                    Limits::Wait { .. } => wait,
                    Limits::Report => None,
                };
                let wait = named.unwrap_or(self.backoff);
                self.backoff = self.backoff.saturating_mul(2);
                Step::Wait {
                    say: format!("{why}; retrying in {}", seconds(wait)),
                    wait,
                }
            }
            Failure::Throttled(throttle) => self.throttled(throttle),
        }
    }

    fn throttled(&mut self, throttle: Throttle) -> Step {
        let Limits::Wait {
            secondary_wait,
            max_attempts,
            max_wait,
        } = self.retries.limits
        else {
            return Step::Stop(TransportError::Throttled {
                wait: throttle.wait,
                message: throttle.message,
            });
        };
        let named = if throttle.spent {
            let wait = throttle.wait.unwrap_or(secondary_wait);
            if wait > max_wait {
                return Step::Stop(TransportError::Throttled {
                    wait: Some(wait),
                    message: throttle.message,
                });
            }
            Some(wait)
        } else {
            throttle.wait
        };
        // A rate limit is counted apart from failures: it says nothing about the request.
        self.limited += 1;
        self.attempts -= 1;
        if self.limited >= max_attempts {
            return Step::Stop(TransportError::GaveUp {
                attempts: self.attempts + self.limited,
                last: throttle.why,
            });
        }
        let wait = match named {
            Some(wait) if !wait.is_zero() => wait,
            _ => {
                let wait = self.limit_backoff;
                self.limit_backoff = self.limit_backoff.saturating_mul(2);
                wait
            }
        };
        if wait > max_wait {
            return Step::Stop(TransportError::Throttled {
                wait: Some(wait),
                message: throttle.message,
            });
        }
        Step::Wait {
            say: format!(
                "{}; waiting {} s as GitHub asks",
                throttle.why,
                wait.as_secs()
            ),
            wait,
        }
    }
}

/// An answer GitHub gave, read whole.
#[derive(Debug, Clone)]
pub(crate) struct Answer {
    /// The status.
    pub status: StatusCode,
    /// The headers.
    pub headers: HeaderMap,
    /// The body.
    pub body: String,
    /// Its rate-limit headers.
    pub rate: RateLimit,
    /// When it came, in seconds since the Unix epoch.
    pub received: u64,
}

impl Answer {
    /// The wait a rate limit asks for ([`RateLimit::wait`], from when the answer came).
    pub(crate) fn limit_wait(&self) -> Option<Duration> {
        self.rate.wait(self.received)
    }

    /// The time until the reset ([`RateLimit::reset_in`], from when the answer came).
    pub(crate) fn reset_in(&self) -> Option<Duration> {
        self.rate.reset_in(self.received)
    }
}

/// What the transport makes of an answer before its caller reads it.
#[derive(Debug)]
enum Sorted {
    /// The caller's to read.
    Pass(Answer),
    /// 401.
    Unauthorized,
    /// A 5xx answer or a rate limit.
    Failed(Failure),
}

/// Sorts an answer: 401, rate limits (429, or a 403 naming one) and 5xx answers are the
/// transport's; anything else is the caller's.
fn sort(answer: Answer) -> Sorted {
    let status = answer.status;
    if status == StatusCode::UNAUTHORIZED {
        return Sorted::Unauthorized;
    }
    if status == StatusCode::FORBIDDEN || status == StatusCode::TOO_MANY_REQUESTS {
        let message = error_message(&answer.body);
        let secondary = is_secondary(&answer.body);
        let named = answer.rate.retry_after.is_some();
        let limited = status == StatusCode::TOO_MANY_REQUESTS
            || secondary
            || named
            || answer.rate.is_spent()
            || message.to_ascii_lowercase().contains("rate limit");
        if limited {
            // The budget is spent: a 403 with nothing left, naming no secondary limit.
            let spent =
                status == StatusCode::FORBIDDEN && !secondary && !named && answer.rate.is_spent();
            return Sorted::Failed(Failure::Throttled(if spent {
                Throttle {
                    why: "GitHub's rate limit is exhausted".to_owned(),
                    message,
                    wait: answer.reset_in(),
                    spent: true,
                }
            } else {
                Throttle {
                    why: format!("GitHub's secondary rate limit (HTTP {})", status.as_u16()),
                    message,
                    wait: answer.limit_wait(),
                    spent: false,
                }
            }));
        }
    }
    if status.is_server_error() {
        return Sorted::Failed(Failure::Retry {
            why: format!("GitHub answered HTTP {}", status.as_u16()),
            wait: answer.rate.retry_after,
        });
    }
    Sorted::Pass(answer)
}

/// What a caller makes of an answer the transport passed on.
#[derive(Debug)]
pub(crate) enum Verdict<T, E> {
    /// The result.
    Done(T),
    /// A failure in flight found in the answer (a body cut off): tried again like a 5xx.
    Retry(String),
    /// A rate limit found in the answer (GraphQL's, with HTTP 200).
    Throttled(Throttle),
    /// An error of the caller's.
    Fail(E),
}

/// The method and what goes with it.
#[derive(Debug)]
pub(crate) enum Method<'a> {
    /// `GET` with these headers.
    Get(HeaderMap),
    /// `POST` of this JSON body.
    Post(&'a serde_json::Value),
}

/// One request: what to send, how long it may take, whether it may be repeated.
#[derive(Debug)]
pub(crate) struct Request<'a> {
    /// The method.
    pub method: Method<'a>,
    /// The path (and query) on the transport's host.
    pub path: http::Uri,
    /// How long the answer, and again its body, may take.
    pub timeout: Duration,
    /// Whether it may be sent again after a failure in flight.
    pub repeat: Repeat,
}

/// The HTTP transport for one host and token.
#[derive(Clone)]
pub(crate) struct Transport {
    crab: octocrab::Octocrab,
    /// Until when every request holds its next attempt: the end of the latest wait for a rate
    /// limit, shared by the clones.
    hold: Arc<std::sync::Mutex<Option<tokio::time::Instant>>>,
}

impl std::fmt::Debug for Transport {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Transport").finish_non_exhaustive()
    }
}

impl Transport {
    /// A transport to `origin` (`scheme://host`, see [`Endpoint::origin`]) carrying `token`.
    /// Connections time out after 10 s; `read_timeout`, if given, bounds any wait for data (a
    /// backstop behind the requests' own time limits). Must be called inside a tokio runtime.
    pub(crate) fn new(
        origin: &str,
        token: &Token,
        read_timeout: Option<Duration>,
    ) -> Result<Self, TransportError> {
        check_token(token)?;
        // octocrab sends the token only to its base host (or api.github.com), so the base is
        // the endpoint's host and requests name only the path.
        let base = format!("{origin}/");
        let crab = octocrab::Octocrab::builder()
            .base_uri(base.as_str())
            .map_err(|e| TransportError::Build(format!("`{base}`: {e}")))?
            .personal_token(token.expose().to_owned())
            .set_connect_timeout(Some(Duration::from_secs(10)))
            .set_read_timeout(read_timeout)
            .build()
            .map_err(|e| TransportError::Build(e.to_string()))?;
        Ok(Self {
            crab,
            hold: Arc::default(),
        })
    }

    /// When the latest wait for a rate limit ends, if one was met.
    fn held_until(&self) -> Option<tokio::time::Instant> {
        *self
            .hold
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Holds every request's next attempt until `until`, unless a later hold stands.
    fn hold_until(&self, until: tokio::time::Instant) {
        let mut hold = self
            .hold
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        *hold = Some(hold.map_or(until, |h| h.max(until)));
    }

    /// Waits until no wait for a rate limit stands.
    async fn held(&self) {
        while let Some(until) = self.held_until() {
            if until <= tokio::time::Instant::now() {
                return;
            }
            tokio::time::sleep_until(until).await;
        }
    }

    /// Sends `request` until `read` makes something of an answer, retrying and waiting as
    /// `retries` say; `on_attempt` hears of each attempt (whether it is a retry), `progress` of
    /// each wait.
    pub(crate) async fn send<T, E: From<TransportError>>(
        &self,
        request: &Request<'_>,
        retries: &Retries,
        progress: Option<&Progress>,
        mut on_attempt: impl FnMut(bool),
        mut read: impl FnMut(Answer) -> Verdict<T, E>,
    ) -> Result<T, E> {
        let mut retrier = Retrier::new(retries, request.repeat);
        loop {
            self.held().await;
            on_attempt(retrier.start());
            let failure = match self.attempt(request).await {
                Err(why) => Failure::Retry { why, wait: None },
                Ok(answer) => match sort(answer) {
                    Sorted::Unauthorized => return Err(TransportError::Unauthorized.into()),
                    Sorted::Failed(failure) => failure,
                    Sorted::Pass(answer) => match read(answer) {
                        Verdict::Done(done) => return Ok(done),
                        Verdict::Fail(e) => return Err(e),
                        Verdict::Retry(why) => Failure::Retry { why, wait: None },
                        Verdict::Throttled(throttle) => Failure::Throttled(throttle),
                    },
                },
            };
            let limited = matches!(failure, Failure::Throttled(_));
            match retrier.after(failure) {
                Step::Stop(e) => return Err(e.into()),
                Step::Wait { wait, say } => {
                    if limited && let Some(until) = tokio::time::Instant::now().checked_add(wait) {
                        self.hold_until(until);
                    }
                    if let Some(progress) = progress {
                        progress(&say);
                    }
                    tokio::time::sleep(wait).await;
                }
            }
        }
    }

    /// One attempt: the answer read whole, or why it failed in flight.
    async fn attempt(&self, request: &Request<'_>) -> Result<Answer, String> {
        let timeout = request.timeout;
        let path = request.path.clone();
        let sent = match &request.method {
            Method::Get(headers) => {
                tokio::time::timeout(
                    timeout,
                    self.crab._get_with_headers(path, Some(headers.clone())),
                )
                .await
            }
            Method::Post(body) => {
                tokio::time::timeout(timeout, self.crab._post(path, Some(*body))).await
            }
        };
        let response = match sent {
            Err(_) => return Err(format!("no answer within {}", seconds(timeout))),
            Ok(Err(e)) => return Err(format!("connection failed: {}", shorten(&e.to_string()))),
            Ok(Ok(response)) => response,
        };
        let status = response.status();
        let headers = response.headers().clone();
        let body = match tokio::time::timeout(timeout, self.crab.body_to_string(response)).await {
            Ok(Ok(body)) => body,
            Ok(Err(e)) => {
                return Err(format!(
                    "the answer was cut off: {}",
                    shorten(&e.to_string())
                ));
            }
            Err(_) => return Err("the answer stalled".to_owned()),
        };
        Ok(Answer {
            status,
            rate: RateLimit::from_headers(&headers),
            headers,
            body,
            received: now_epoch(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const NOW: u64 = 1_000_000;

    fn headers(pairs: &[(&'static str, &'static str)]) -> HeaderMap {
        let mut map = HeaderMap::new();
        for (name, value) in pairs {
            map.insert(*name, HeaderValue::from_static(value));
        }
        map
    }

    fn answer(status: u16, pairs: &[(&'static str, &'static str)], body: &str) -> Answer {
        let headers = headers(pairs);
        Answer {
            status: StatusCode::from_u16(status).unwrap(),
            rate: RateLimit::from_headers(&headers),
            headers,
            body: body.to_owned(),
            received: NOW,
        }
    }

    fn throttle(status: u16, pairs: &[(&'static str, &'static str)], body: &str) -> Throttle {
        match sort(answer(status, pairs, body)) {
            Sorted::Failed(Failure::Throttled(t)) => t,
            other => panic!("{status} {body}: {other:?}"),
        }
    }

    fn waiting() -> Retries {
        Retries {
            max_attempts: 4,
            base_backoff: Duration::from_secs(1),
            limits: Limits::Wait {
                secondary_wait: Duration::from_secs(60),
                max_attempts: 3,
                max_wait: Duration::from_secs(15 * 60),
            },
        }
    }

    fn reporting() -> Retries {
        Retries {
            max_attempts: 3,
            base_backoff: Duration::from_millis(500),
            limits: Limits::Report,
        }
    }

    fn retry(why: &str) -> Failure {
        Failure::Retry {
            why: why.to_owned(),
            wait: None,
        }
    }

    fn secondary(wait: Option<u64>) -> Failure {
        Failure::Throttled(Throttle {
            why: "GitHub's secondary rate limit (HTTP 403)".to_owned(),
            message: "You have exceeded a secondary rate limit".to_owned(),
            wait: wait.map(Duration::from_secs),
            spent: false,
        })
    }

    fn spent(reset_in: Option<u64>) -> Failure {
        Failure::Throttled(Throttle {
            why: "GitHub's rate limit is exhausted".to_owned(),
            message: "API rate limit exceeded".to_owned(),
            wait: reset_in.map(Duration::from_secs),
            spent: true,
        })
    }

    /// A retrier whose first attempt was sent.
    fn sent(rules: &Retries, repeat: Repeat) -> Retrier<'_> {
        let mut r = Retrier::new(rules, repeat);
        assert!(!r.start(), "the first attempt is no retry");
        r
    }

    fn wait_of(step: &Step) -> Duration {
        match step {
            Step::Wait { wait, .. } => *wait,
            Step::Stop(e) => panic!("stopped: {e}"),
        }
    }

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
        let err = Transport::new("https://api.github.com", &token, None).unwrap_err();
        assert!(matches!(err, TransportError::Build(_)), "{err:?}");
        assert!(
            !err.to_string().contains("ghp_abc"),
            "the token is not echoed"
        );
        assert!(!format!("{err:?}").contains("ghp_abc"));
        assert!(Transport::new("https://api.github.com", &Token::new("ghp_abc"), None).is_ok());
    }

    #[test]
    fn endpoints_are_absolute_http_urls_split_at_the_host() {
        assert_eq!(
            Endpoint::parse("https://ghe.example.com:8443/api/graphql?x=1").unwrap(),
            Endpoint {
                origin: "https://ghe.example.com:8443".to_owned(),
                path: "/api/graphql".to_owned(),
                query: Some("x=1".to_owned()),
            }
        );
        assert_eq!(Endpoint::parse("http://h").unwrap().path, "/");
        for bad in ["", "not a url", "ftp://example.com", "/api/v3", "h/x"] {
            assert!(
                matches!(Endpoint::parse(bad), Err(TransportError::Build(_))),
                "{bad}"
            );
        }
    }

    #[test]
    fn rate_limit_headers_are_read() {
        let limit = RateLimit::from_headers(&headers(&[
            ("x-ratelimit-limit", "5000"),
            ("x-ratelimit-remaining", " 4990 "),
            ("x-ratelimit-used", "10"),
            ("x-ratelimit-reset", "1000060"),
            ("x-ratelimit-resource", "graphql"),
        ]));
        assert_eq!(
            limit,
            RateLimit {
                limit: Some(5000),
                remaining: Some(4990),
                used: Some(10),
                reset: Some(1_000_060),
                resource: Some("graphql".to_owned()),
                retry_after: None,
            }
        );
        assert!(!limit.is_spent());
        assert_eq!(limit.reset_in(NOW), Some(Duration::from_secs(61)));
        assert_eq!(limit.wait(NOW), None, "something is left: no wait named");
        // A reset already past is a second away.
        assert_eq!(limit.reset_in(2_000_000), Some(Duration::from_secs(1)));

        let garbled = RateLimit::from_headers(&headers(&[
            ("x-ratelimit-remaining", "none"),
            ("retry-after", "Wed, 21 Oct 2026 07:28:00 GMT"),
        ]));
        assert_eq!(garbled, RateLimit::default());
        assert_eq!(RateLimit::default().wait(NOW), None);
    }

    #[test]
    fn retry_after_wins_over_the_reset() {
        let limit = RateLimit::from_headers(&headers(&[
            ("retry-after", "30"),
            ("x-ratelimit-remaining", "0"),
            ("x-ratelimit-reset", "1000600"),
        ]));
        assert_eq!(limit.wait(NOW), Some(Duration::from_secs(30)));
        let spent = RateLimit::from_headers(&headers(&[
            ("x-ratelimit-remaining", "0"),
            ("x-ratelimit-reset", "1000600"),
        ]));
        assert_eq!(spent.wait(NOW), Some(Duration::from_secs(601)));
    }

    #[test]
    fn answers_are_sorted_before_the_caller_reads_them() {
        assert!(matches!(sort(answer(401, &[], "{}")), Sorted::Unauthorized));
        for status in [200, 304, 404, 422] {
            assert!(
                matches!(sort(answer(status, &[], "{}")), Sorted::Pass(_)),
                "{status}"
            );
        }
        let forbidden = answer(
            403,
            &[],
            r#"{"message":"Resource not accessible by integration"}"#,
        );
        assert!(
            matches!(sort(forbidden), Sorted::Pass(_)),
            "a refusal is the caller's"
        );
        assert!(matches!(
            sort(answer(502, &[], "<html>")),
            Sorted::Failed(Failure::Retry { wait: None, .. })
        ));
        assert!(matches!(
            sort(answer(503, &[("retry-after", "7")], "<html>")),
            Sorted::Failed(Failure::Retry { wait: Some(d), .. }) if d == Duration::from_secs(7)
        ));
    }

    #[test]
    fn rate_limits_are_recognised_and_their_waits_read() {
        let body = r#"{"message":"You have exceeded a secondary rate limit"}"#;
        let t = throttle(403, &[("retry-after", "30")], body);
        assert_eq!(t.wait, Some(Duration::from_secs(30)));
        assert!(!t.spent);
        assert_eq!(t.why, "GitHub's secondary rate limit (HTTP 403)");
        assert_eq!(t.message, "You have exceeded a secondary rate limit");

        let t = throttle(429, &[], "slow down");
        assert_eq!((t.wait, t.spent), (None, false));
        assert_eq!(t.why, "GitHub's secondary rate limit (HTTP 429)");

        // A 403 naming a time is a rate limit, whatever it says.
        let t = throttle(403, &[("retry-after", "5")], "{}");
        assert_eq!((t.wait, t.spent), (Some(Duration::from_secs(5)), false));

        // The budget spent: wait for the reset.
        let spent = [
            ("x-ratelimit-remaining", "0"),
            ("x-ratelimit-reset", "1000600"),
        ];
        let t = throttle(
            403,
            &spent,
            r#"{"message":"API rate limit exceeded for user"}"#,
        );
        assert!(t.spent);
        assert_eq!(t.wait, Some(Duration::from_secs(601)));
        assert_eq!(t.why, "GitHub's rate limit is exhausted");

        // A 429 with nothing left is still a secondary limit, waiting for the reset.
        let t = throttle(429, &spent, "{}");
        assert!(!t.spent);
        assert_eq!(t.wait, Some(Duration::from_secs(601)));

        // The words alone make a 403 a rate limit.
        let t = throttle(403, &[], r#"{"message":"API rate limit exceeded"}"#);
        assert_eq!((t.wait, t.spent), (None, false));
    }

    #[test]
    fn failures_in_flight_back_off_doubling_then_give_up() {
        let rules = waiting();
        let mut r = sent(&rules, Repeat::Safe);
        let mut waits = Vec::new();
        loop {
            match r.after(retry("GitHub answered HTTP 502")) {
                Step::Wait { wait, say } => {
                    assert!(say.starts_with("GitHub answered HTTP 502; retrying in "));
                    waits.push(wait.as_secs());
                    assert!(r.start(), "later attempts are retries");
                }
                Step::Stop(e) => {
                    assert_eq!(
                        e,
                        TransportError::GaveUp {
                            attempts: 4,
                            last: "GitHub answered HTTP 502".to_owned()
                        }
                    );
                    break;
                }
            }
        }
        assert_eq!(waits, [1, 2, 4]);
    }

    #[test]
    fn a_time_a_5xx_names_is_waited_only_by_a_waiting_caller() {
        let named = || Failure::Retry {
            why: "GitHub answered HTTP 503".to_owned(),
            wait: Some(Duration::from_secs(9)),
        };
        let rules = waiting();
        let mut r = sent(&rules, Repeat::Safe);
        assert_eq!(wait_of(&r.after(named())), Duration::from_secs(9));
        r.start();
        assert_eq!(
            wait_of(&r.after(retry("x"))),
            Duration::from_secs(2),
            "the backoff doubled all the same"
        );
        let rules = reporting();
        let mut r = sent(&rules, Repeat::Safe);
        assert_eq!(wait_of(&r.after(named())), Duration::from_millis(500));
    }

    #[test]
    fn a_request_sent_once_is_never_repeated() {
        let rules = waiting();
        let mut r = sent(&rules, Repeat::Once);
        assert_eq!(
            r.after(retry("no answer within 60 s")),
            Step::Stop(TransportError::Uncertain(
                "no answer within 60 s".to_owned()
            ))
        );
        // A rate limit says the request was not applied: waited out all the same.
        let mut r = sent(&rules, Repeat::Once);
        assert_eq!(
            wait_of(&r.after(secondary(Some(3)))),
            Duration::from_secs(3)
        );
    }

    #[test]
    fn no_attempts_is_one_attempt() {
        let mut rules = reporting();
        rules.max_attempts = 0;
        let mut r = sent(&rules, Repeat::Safe);
        assert!(matches!(
            r.after(retry("x")),
            Step::Stop(TransportError::GaveUp { attempts: 1, .. })
        ));
    }

    #[test]
    fn secondary_limits_wait_as_asked_else_doubling_a_bounded_number_of_times() {
        let rules = waiting();
        let mut r = sent(&rules, Repeat::Safe);
        let step = r.after(secondary(Some(30)));
        assert_eq!(
            step,
            Step::Wait {
                wait: Duration::from_secs(30),
                say: "GitHub's secondary rate limit (HTTP 403); waiting 30 s as GitHub asks"
                    .to_owned()
            }
        );
        assert!(r.start(), "the next attempt is a retry");
        assert_eq!(wait_of(&r.after(secondary(None))), Duration::from_secs(60));
        r.start();
        // The third limit in a row: given up, counting every attempt sent.
        assert_eq!(
            r.after(secondary(None)),
            Step::Stop(TransportError::GaveUp {
                attempts: 3,
                last: "GitHub's secondary rate limit (HTTP 403)".to_owned()
            })
        );

        let mut r = sent(&rules, Repeat::Safe);
        assert_eq!(wait_of(&r.after(secondary(None))), Duration::from_secs(60));
        r.start();
        assert_eq!(
            wait_of(&r.after(secondary(Some(0)))),
            Duration::from_secs(120)
        );

        // Rate limits do not use up the attempts failures have.
        let mut r = sent(&rules, Repeat::Safe);
        wait_of(&r.after(secondary(Some(1))));
        for _ in 0..3 {
            r.start();
            wait_of(&r.after(retry("x")));
        }
        r.start();
        assert!(matches!(
            r.after(retry("x")),
            Step::Stop(TransportError::GaveUp { attempts: 4, .. })
        ));

        // A secondary limit asking for longer than the longest wait is reported.
        let mut r = sent(&rules, Repeat::Safe);
        assert!(matches!(
            r.after(secondary(Some(3600))),
            Step::Stop(TransportError::Throttled { wait: Some(d), .. }) if d == Duration::from_secs(3600)
        ));
    }

    #[test]
    fn a_spent_budget_waits_for_a_near_reset_and_reports_a_far_one() {
        let rules = waiting();
        let mut r = sent(&rules, Repeat::Safe);
        assert_eq!(
            r.after(spent(Some(61))),
            Step::Wait {
                wait: Duration::from_secs(61),
                say: "GitHub's rate limit is exhausted; waiting 61 s as GitHub asks".to_owned()
            }
        );
        let mut r = sent(&rules, Repeat::Safe);
        assert_eq!(
            wait_of(&r.after(spent(None))),
            Duration::from_secs(60),
            "no reset time: the secondary wait"
        );
        let mut r = sent(&rules, Repeat::Safe);
        assert_eq!(
            r.after(spent(Some(3600))),
            Step::Stop(TransportError::Throttled {
                wait: Some(Duration::from_secs(3600)),
                message: "API rate limit exceeded".to_owned()
            })
        );
    }

    #[test]
    fn a_reporting_caller_gets_rate_limits_at_once() {
        let rules = reporting();
        let mut r = sent(&rules, Repeat::Safe);
        let step = r.after(secondary(Some(42)));
        assert_eq!(
            step,
            Step::Stop(TransportError::Throttled {
                wait: Some(Duration::from_secs(42)),
                message: "You have exceeded a secondary rate limit".to_owned()
            })
        );
        let Step::Stop(e) = step else { unreachable!() };
        assert_eq!(
            e.to_string(),
            "GitHub's rate limit was hit (You have exceeded a secondary rate limit); retry in 42 s"
        );
        let mut r = sent(&rules, Repeat::Safe);
        assert!(matches!(
            r.after(spent(None)),
            Step::Stop(TransportError::Throttled { wait: None, .. })
        ));
    }
}
