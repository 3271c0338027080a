//! The follow-up form in a browser: a web server on the loopback interface that shows a
//! [`FormPage`] and blocks until the operator submits it, cancels it, closes the tab, or the page's
//! time runs out.
//!
//! Safety of the page:
//! - Every request must name the server itself in its `Host` header (`127.0.0.1:PORT` or
//!   `localhost:PORT`), so a page whose DNS name was rebound to the loopback address cannot reach
//!   it; every `POST` must come from the form's own page: an `Origin` of the server's own address,
//!   or, without one (or with the `null` origin a `no-referrer` beacon carries), a
//!   `Sec-Fetch-Site: same-origin`. Anything else is a 403, so another site cannot answer the
//!   form through the operator's browser.
//! - Every route sits under a per-run secret drawn from the operating system's random source
//!   (`/SECRET/`, `/SECRET/submit`, ...): anything else is a 404, so only whoever was shown the URL
//!   can read or answer the form.
//! - Everything shown comes from pull-request comments, which are untrusted: every piece of text is
//!   escaped, its control and bidirectional formatting characters shown as escapes
//!   (`review_core::text::visible`), links are only ever `http(s)://`, and the
//!   Content-Security-Policy runs no script but the page's own (a per-run nonce).
//! - Answers are checked strictly: only the page's thread and group ids, only the known fields.
//!
//! The module reaches the rest of the binary only through `super::command` and `super::output`,
//! so that the browser test can compile it on its own.
#![allow(
    dead_code,
    reason = "`review followup` is its caller; the browser test uses only part of it"
)]

use std::collections::{BTreeMap, BTreeSet};
use std::io;
use std::process::{Command, Stdio};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::Duration;

use axum::Router;
use axum::body::Bytes;
use axum::extract::{Request, State};
use axum::http::{HeaderMap, HeaderValue, Method, StatusCode, header};
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Redirect, Response};
use axum::routing::{get, post};
use review_core::followup::form::{
    ChosenAction, FormAnswers, FormGroup, FormIssue, FormPage, FormStatus, GroupAnswer, IssueAnswer,
};
use review_core::text::{visible, visible_line};
use serde::Deserialize;
use tokio::sync::{Notify, oneshot};
use tokio::task::JoinHandle;
use tokio::time::Instant;

/// How the form watches its page. The defaults suit a person; tests shorten them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FormTimings {
    /// How often the open page tells the server it is still there (and saves a draft).
    pub heartbeat: Duration,
    /// Once the page was loaded, how long without a heartbeat before it counts as closed.
    pub silence: Duration,
    /// After the page says it is going away, how long a reload has to come back before the form
    /// counts as closed.
    pub reload_grace: Duration,
}

impl Default for FormTimings {
    fn default() -> Self {
        Self {
            heartbeat: Duration::from_secs(5),
            silence: Duration::from_secs(30),
            reload_grace: Duration::from_secs(3),
        }
    }
}

/// Why the form could not be shown.
#[derive(Debug, thiserror::Error)]
pub enum FormError {
    /// No secret could be drawn from the operating system's random source.
    #[error("cannot make the form's secret: {0}")]
    Secret(String),
    /// No port could be opened on the loopback interface.
    #[error("cannot listen on 127.0.0.1: {0}")]
    Bind(io::Error),
    /// The web server stopped before the form was answered.
    #[error("the form's web server stopped: {0}")]
    Serve(io::Error),
}

/// Shows `page` in a browser and waits for the operator's answers, with the default timings.
///
/// `previous` fills the form in again (the form is reopened after the operator rejects the
/// plan). With `open_browser`, the system's browser is asked to open the page; the URL is always
/// narrated on stderr.
pub async fn run_form(
    page: &FormPage,
    previous: Option<&FormAnswers>,
    open_browser: bool,
) -> Result<FormAnswers, FormError> {
    run_form_with(page, previous, open_browser, FormTimings::default()).await
}

/// [`run_form`] with the given timings.
pub async fn run_form_with(
    page: &FormPage,
    previous: Option<&FormAnswers>,
    open_browser: bool,
    timings: FormTimings,
) -> Result<FormAnswers, FormError> {
    let server = FormServer::bind(page, previous, timings).await?;
    super::output::narrate(&format!(
        "[followup] the form is at {} — open it in a browser",
        server.url()
    ));
    if open_browser {
        open_in_browser(server.url());
    }
    server.wait().await
}

/// The form's server, listening from [`FormServer::bind`] on: [`FormServer::url`] is the page,
/// and [`FormServer::wait`] waits for the outcome and stops the server.
#[derive(Debug)]
pub struct FormServer {
    /// The page's URL, secret included.
    url: String,
    /// What the request handlers share with the waiter.
    shared: Arc<Shared>,
    /// Tells the server to stop.
    shutdown: Option<oneshot::Sender<()>>,
    /// The server's task.
    task: Option<JoinHandle<io::Result<()>>>,
}

impl FormServer {
    /// Opens a random port on 127.0.0.1 and starts serving `page` there.
    pub async fn bind(
        page: &FormPage,
        previous: Option<&FormAnswers>,
        timings: FormTimings,
    ) -> Result<Self, FormError> {
        let secret = super::command::random_marker().map_err(FormError::Secret)?;
        let nonce = super::command::random_marker().map_err(FormError::Secret)?;
        let listener = tokio::net::TcpListener::bind(("127.0.0.1", 0))
            .await
            .map_err(FormError::Bind)?;
        let port = listener.local_addr().map_err(FormError::Bind)?.port();
        let origin = format!("http://127.0.0.1:{port}");
        let hosts = [format!("127.0.0.1:{port}"), format!("localhost:{port}")];
        let ids = PageIds::of(page);
        let prefill = previous.map(|answers| ids.keep_known(answers));
        let now = Instant::now();
        let shared = Arc::new(Shared {
            page: page.clone(),
            ids,
            nonce,
            hosts,
            timings,
            deadline: now + Duration::from_secs(page.timeout_secs),
            live: Mutex::new(Live {
                prefill,
                ..Live::default()
            }),
            wake: Notify::new(),
        });
        let base = format!("/{secret}");
        let router = Router::new()
            .route(&base, get(Redirect::permanent(&format!("{base}/"))))
            .route(&format!("{base}/"), get(show_page))
            .route(&format!("{base}/submit"), post(submit))
            .route(&format!("{base}/cancel"), post(cancel))
            .route(&format!("{base}/alive"), post(alive))
            .route(&format!("{base}/closed"), post(closed))
            .fallback(not_found)
            .layer(middleware::from_fn_with_state(Arc::clone(&shared), guard))
            .with_state(Arc::clone(&shared));
        let (shutdown, stop) = oneshot::channel::<()>();
        let task = tokio::spawn(async move {
            axum::serve(listener, router)
                .with_graceful_shutdown(async {
                    let _ = stop.await;
                })
                .await
        });
        Ok(Self {
            url: format!("{origin}{base}/"),
            shared,
            shutdown: Some(shutdown),
            task: Some(task),
        })
    }

    /// The page's URL: `http://127.0.0.1:PORT/SECRET/`.
    pub fn url(&self) -> &str {
        &self.url
    }

    /// Waits until the form is submitted, cancelled, closed or out of time, then stops the
    /// server. Only a submitted form carries answers.
    pub async fn wait(mut self) -> Result<FormAnswers, FormError> {
        let shared = Arc::clone(&self.shared);
        let poll = poll_interval(shared.timings);
        let Some(mut task) = self.task.take() else {
            return Err(FormError::Serve(io::Error::other(
                "the server was not started",
            )));
        };
        let outcome = loop {
            if let Some(outcome) = shared.outcome(Instant::now()) {
                break outcome;
            }
            let nap = poll.min(shared.deadline.saturating_duration_since(Instant::now()));
            tokio::select! {
                () = shared.wake.notified() => {}
                () = tokio::time::sleep(nap) => {}
                ended = &mut task => {
                    let error = match ended {
                        Ok(Ok(())) => io::Error::other("it ended on its own"),
                        Ok(Err(error)) => error,
                        Err(error) => io::Error::other(error.to_string()),
                    };
                    return Err(FormError::Serve(error));
                }
            }
        };
        if let Some(shutdown) = self.shutdown.take() {
            let _ = shutdown.send(());
        }
        // Let the last answer reach the browser; a connection the browser keeps open does not
        // hold the command up for long.
        if tokio::time::timeout(Duration::from_secs(2), &mut task)
            .await
            .is_err()
        {
            task.abort();
        }
        Ok(outcome)
    }
}

impl Drop for FormServer {
    fn drop(&mut self) {
        if let Some(task) = self.task.take() {
            task.abort();
        }
    }
}

/// How often the waiter looks at the clock: often enough to notice a closed page promptly.
fn poll_interval(timings: FormTimings) -> Duration {
    (timings.silence.min(timings.reload_grace) / 4)
        .clamp(Duration::from_millis(10), Duration::from_secs(1))
}

/// What the handlers and the waiter share.
#[derive(Debug)]
struct Shared {
    /// What the form shows.
    page: FormPage,
    /// The thread and group ids an answer may name.
    ids: PageIds,
    /// The nonce of the page's own script.
    nonce: String,
    /// `127.0.0.1:PORT` and `localhost:PORT`: the only `Host`s served, and (after `http://`) the
    /// only origins a browser may answer from.
    hosts: [String; 2],
    /// How the page is watched.
    timings: FormTimings,
    /// When the form stops waiting.
    deadline: Instant,
    /// What changes while the form is open.
    live: Mutex<Live>,
    /// Wakes the waiter when an outcome is set.
    wake: Notify,
}

/// The state of an open form.
#[derive(Debug, Default)]
struct Live {
    /// The last time the page was loaded or sent a heartbeat.
    last_seen: Option<Instant>,
    /// When the page said it was going away, unless it came back since.
    leaving_since: Option<Instant>,
    /// How many times the page was loaded: each load knows its number, so the goodbye of a page
    /// being reloaded, which may arrive after the new load, does not close the form.
    loads: u64,
    /// The answers to fill the form with: the page's latest draft, else the previous answers.
    prefill: Option<Answers>,
    /// How the form ended, once it did.
    outcome: Option<FormAnswers>,
}

impl Shared {
    /// The live state (a panic elsewhere cannot leave it half-written: every update is one
    /// assignment).
    fn live(&self) -> MutexGuard<'_, Live> {
        self.live.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// How the form ended, if it did by `now`.
    fn outcome(&self, now: Instant) -> Option<FormAnswers> {
        let live = self.live();
        if let Some(outcome) = &live.outcome {
            return Some(outcome.clone());
        }
        let ended = |status| Some(without_answers(status));
        if now >= self.deadline {
            return ended(FormStatus::Timeout);
        }
        if live
            .last_seen
            .is_some_and(|seen| now.duration_since(seen) >= self.timings.silence)
        {
            return ended(FormStatus::Closed);
        }
        if live
            .leaving_since
            .is_some_and(|left| now.duration_since(left) >= self.timings.reload_grace)
        {
            return ended(FormStatus::Closed);
        }
        None
    }

    /// Records that the page is there.
    fn seen(&self) {
        let mut live = self.live();
        live.last_seen = Some(Instant::now());
        live.leaving_since = None;
    }

    /// Ends the form with `outcome`, unless it has already ended.
    fn finish(&self, outcome: FormAnswers) -> Result<(), Refusal> {
        let mut live = self.live();
        if live.outcome.is_some() {
            return Err((StatusCode::CONFLICT, "the form has already been answered"));
        }
        live.outcome = Some(outcome);
        drop(live);
        self.wake.notify_one();
        Ok(())
    }

    /// Refuses a request not addressed to this server by its own name (`Host`: a DNS name
    /// rebound to the loopback address is not), and a `POST` not sent by the form's own page: its
    /// `Origin` must be this server's, or, when the browser sends none or the `null` origin (a
    /// beacon under the page's `no-referrer` policy), `Sec-Fetch-Site` must say `same-origin`.
    fn check_request(&self, method: &Method, headers: &HeaderMap) -> Result<(), Refusal> {
        let own_host = |value: &[u8]| {
            self.hosts
                .iter()
                .any(|host| host.as_bytes().eq_ignore_ascii_case(value))
        };
        if !headers
            .get(header::HOST)
            .is_some_and(|host| own_host(host.as_bytes()))
        {
            return Err((
                StatusCode::FORBIDDEN,
                "this form answers only at its own address",
            ));
        }
        if method == Method::GET || method == Method::HEAD {
            return Ok(());
        }
        let same_origin = headers
            .get("sec-fetch-site")
            .is_some_and(|site| site.as_bytes() == b"same-origin");
        let allowed = match headers.get(header::ORIGIN).map(HeaderValue::as_bytes) {
            Some(b"null") | None => same_origin,
            Some(origin) => origin.strip_prefix(b"http://").is_some_and(own_host),
        };
        if allowed {
            Ok(())
        } else {
            Err((StatusCode::FORBIDDEN, "this form answers only its own page"))
        }
    }
}

/// Why a request was refused: its status and a sentence for the page.
type Refusal = (StatusCode, &'static str);

/// A refusal as the page reads it: `{"error": "..."}`.
fn refused((status, message): Refusal) -> Response {
    json_error(status, message)
}

/// A form that ended with `status` and no answers.
fn without_answers(status: FormStatus) -> FormAnswers {
    FormAnswers {
        status,
        issues: BTreeMap::new(),
        groups: BTreeMap::new(),
    }
}

/// The ids of a page.
#[derive(Debug)]
struct PageIds {
    /// Every thread id.
    threads: BTreeSet<String>,
    /// Every group id.
    groups: BTreeSet<String>,
}

impl PageIds {
    /// The ids of `page`.
    fn of(page: &FormPage) -> Self {
        Self {
            threads: page
                .groups
                .iter()
                .flat_map(|group| group.issues.iter().map(|issue| issue.thread_id.clone()))
                .collect(),
            groups: page.groups.iter().map(|group| group.id.clone()).collect(),
        }
    }

    /// The answers of `answers` that name this page's threads and groups.
    fn keep_known(&self, answers: &FormAnswers) -> Answers {
        Answers {
            issues: answers
                .issues
                .iter()
                .filter(|(id, _)| self.threads.contains(*id))
                .map(|(id, answer)| (id.clone(), answer.clone()))
                .collect(),
            groups: answers
                .groups
                .iter()
                .filter(|(id, _)| self.groups.contains(*id))
                .map(|(id, answer)| (id.clone(), answer.clone()))
                .collect(),
        }
    }

    /// Parses the answers the page sent: JSON with only the known fields and only this page's
    /// ids. A thread or group the page did not send gets the default answer.
    fn parse(&self, body: &[u8]) -> Result<Answers, String> {
        let value: serde_json::Value =
            serde_json::from_slice(body).map_err(|e| format!("the answers are not JSON: {e}"))?;
        // Serde would also take a struct written as an array: only objects are answers.
        let objects = |value: &serde_json::Value| {
            value.as_object().is_some_and(|entries| {
                entries.values().all(|entry| {
                    entry.as_object().is_some_and(|fields| {
                        fields
                            .values()
                            .all(|field| !field.is_array() && !field.is_object())
                    })
                })
            })
        };
        let well_formed = value.as_object().is_some_and(|top| {
            top.iter()
                .all(|(key, value)| !matches!(key.as_str(), "issues" | "groups") || objects(value))
        });
        if !well_formed {
            return Err(
                "the answers must be {\"issues\": {id: {...}}, \"groups\": {id: {...}}}".to_owned(),
            );
        }
        let mut answers: Answers =
            serde_json::from_value(value).map_err(|e| format!("the answers are malformed: {e}"))?;
        if let Some(id) = answers.issues.keys().find(|id| !self.threads.contains(*id)) {
            return Err(format!(
                "there is no thread {} in this form",
                visible_line(&format!("{id:?}"))
            ));
        }
        if let Some(id) = answers.groups.keys().find(|id| !self.groups.contains(*id)) {
            return Err(format!(
                "there is no review group {} in this form",
                visible_line(&format!("{id:?}"))
            ));
        }
        for id in &self.threads {
            answers.issues.entry(id.clone()).or_default();
        }
        for id in &self.groups {
            answers.groups.entry(id.clone()).or_default();
        }
        Ok(answers)
    }
}

/// The answers the page sends: `{issues: {threadId: {...}}, groups: {groupId: {hide}}}`.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct Answers {
    /// Per thread id.
    #[serde(default)]
    issues: BTreeMap<String, IssueAnswer>,
    /// Per group id.
    #[serde(default)]
    groups: BTreeMap<String, GroupAnswer>,
}

/// Every request, before its route: [`Shared::check_request`].
async fn guard(State(shared): State<Arc<Shared>>, request: Request, next: Next) -> Response {
    if let Err(refusal) = shared.check_request(request.method(), request.headers()) {
        return refused(refusal);
    }
    next.run(request).await
}

/// `GET /SECRET/`: the page.
async fn show_page(State(shared): State<Arc<Shared>>) -> Response {
    shared.seen();
    let remaining = shared.deadline.saturating_duration_since(Instant::now());
    let html = {
        let mut live = shared.live();
        live.loads += 1;
        if live.outcome.is_some() {
            None
        } else {
            Some(render_page(
                &shared.page,
                live.prefill.as_ref(),
                &PageScript {
                    nonce: &shared.nonce,
                    heartbeat: shared.timings.heartbeat,
                    remaining,
                    load: live.loads,
                },
            ))
        }
    };
    let html = html.unwrap_or_else(|| render_answered(&shared.page.title));
    respond(
        StatusCode::OK,
        "text/html; charset=utf-8",
        html,
        &shared.nonce,
    )
}

/// `POST /SECRET/submit`: the answers.
async fn submit(State(shared): State<Arc<Shared>>, body: Bytes) -> Response {
    let answers = match shared.ids.parse(&body) {
        Ok(answers) => answers,
        Err(message) => return json_error(StatusCode::BAD_REQUEST, &message),
    };
    let outcome = FormAnswers {
        status: FormStatus::Submitted,
        issues: answers.issues,
        groups: answers.groups,
    };
    match shared.finish(outcome) {
        Ok(()) => json_ok(),
        Err(refusal) => refused(refusal),
    }
}

/// `POST /SECRET/cancel`: the operator gave up.
async fn cancel(State(shared): State<Arc<Shared>>) -> Response {
    match shared.finish(without_answers(FormStatus::Cancelled)) {
        Ok(()) => json_ok(),
        Err(refusal) => refused(refusal),
    }
}

/// `POST /SECRET/alive`: the page is still open; its body, when valid, is the latest draft.
async fn alive(State(shared): State<Arc<Shared>>, body: Bytes) -> Response {
    shared.seen();
    if body.is_empty() {
        return json_ok();
    }
    match shared.ids.parse(&body) {
        Ok(draft) => {
            shared.live().prefill = Some(draft);
            json_ok()
        }
        Err(message) => json_error(StatusCode::BAD_REQUEST, &message),
    }
}

/// `POST /SECRET/closed`: the page is going away (closed, or reloaded: a reload comes back).
/// Its body is the number of the load saying goodbye; a superseded load's goodbye is ignored.
async fn closed(State(shared): State<Arc<Shared>>, body: Bytes) -> Response {
    let load = std::str::from_utf8(&body)
        .ok()
        .and_then(|text| text.trim().parse::<u64>().ok());
    let mut live = shared.live();
    if load.is_none_or(|load| load == live.loads) {
        live.leaving_since = Some(Instant::now());
    }
    drop(live);
    shared.wake.notify_one();
    json_ok()
}

/// Anything without the secret.
async fn not_found() -> Response {
    respond(
        StatusCode::NOT_FOUND,
        "text/plain; charset=utf-8",
        "not found\n".to_owned(),
        "-",
    )
}

/// `{"ok":true}`.
fn json_ok() -> Response {
    respond(
        StatusCode::OK,
        "application/json",
        "{\"ok\":true}".to_owned(),
        "-",
    )
}

/// `{"error": message}` with `status`.
fn json_error(status: StatusCode, message: &str) -> Response {
    let body = serde_json::json!({ "error": message }).to_string();
    respond(status, "application/json", body, "-")
}

/// A response with the page's safety headers.
fn respond(status: StatusCode, content_type: &'static str, body: String, nonce: &str) -> Response {
    let csp = format!(
        "default-src 'none'; style-src 'unsafe-inline'; script-src 'nonce-{nonce}'; \
         form-action 'self'; connect-src 'self'; base-uri 'none'; frame-ancestors 'none'"
    );
    let mut response = (status, body).into_response();
    let headers = response.headers_mut();
    headers.insert(header::CONTENT_TYPE, HeaderValue::from_static(content_type));
    headers.insert(
        header::CONTENT_SECURITY_POLICY,
        HeaderValue::from_str(&csp)
            .unwrap_or_else(|_| HeaderValue::from_static("default-src 'none'")),
    );
    headers.insert(
        header::X_CONTENT_TYPE_OPTIONS,
        HeaderValue::from_static("nosniff"),
    );
    headers.insert(
        header::REFERRER_POLICY,
        HeaderValue::from_static("no-referrer"),
    );
    headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    response
}

/// Asks the system's browser to open `url`; whether it does is its business.
#[expect(clippy::disallowed_methods, reason = "the browser opener")]
fn open_in_browser(url: &str) {
    let mut command = if cfg!(target_os = "macos") {
        Command::new("open")
    } else if cfg!(windows) {
        let mut command = Command::new("cmd");
        command.args(["/C", "start", ""]);
        command
    } else {
        Command::new("xdg-open")
    };
    command
        .arg(url)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null());
    if let Ok(mut child) = command.spawn() {
        // Reap it whenever it ends, without waiting for it here.
        std::thread::spawn(move || {
            let _ = child.wait();
        });
    }
}

/// `text` from the pull request as the page shows it: its control and bidirectional formatting
/// characters written as visible escapes ([`visible`]: a right-to-left override cannot reorder
/// the page), then escaped for HTML. Attribute values the page sends back (thread and group ids)
/// and the operator's own drafts use [`escape`] alone, so they round-trip exactly.
fn shown(text: &str) -> String {
    escape(&visible(text))
}

/// Escapes `text` for HTML text and quoted attribute values.
fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

/// `label` (already HTML) as a link to `url`, or alone when `url` is not `http(s)://`.
fn link(url: &str, label: &str) -> String {
    let lower = url.get(..8).unwrap_or(url).to_ascii_lowercase();
    if lower.starts_with("https://") || lower.starts_with("http://") {
        format!(
            "<a href=\"{}\" target=\"_blank\" rel=\"noopener noreferrer\">{label}</a>",
            escape(url)
        )
    } else {
        label.to_owned()
    }
}

/// `2025-06-01T12:34:56Z` as `2025-06-01 12:34 UTC`; anything else as it is.
fn show_time(at: &str) -> String {
    let bytes = at.as_bytes();
    if at.len() >= 17
        && bytes.get(10) == Some(&b'T')
        && at.ends_with('Z')
        && let (Some(day), Some(time)) = (at.get(..10), at.get(11..16))
    {
        return format!("{day} {time} UTC");
    }
    at.to_owned()
}

/// What the page's script needs.
#[derive(Debug)]
struct PageScript<'a> {
    /// The nonce the Content-Security-Policy allows.
    nonce: &'a str,
    /// How often to send a heartbeat.
    heartbeat: Duration,
    /// How long until the form stops waiting.
    remaining: Duration,
    /// The number of this load of the page.
    load: u64,
}

/// The page's style: calm, readable, no external resources.
const STYLE: &str = r#"
:root { color-scheme: light; --fg: #1f2328; --muted: #59636e; --line: #d1d9e0; --soft: #eaeef2;
  --bg: #f6f8fa; --card: #ffffff; --accent: #0969da; }
* { box-sizing: border-box; }
body { margin: 0; background: var(--bg); color: var(--fg);
  font: 15px/1.55 system-ui, -apple-system, "Segoe UI", "Noto Sans", "Liberation Sans", Helvetica, Arial, sans-serif; }
main { max-width: 940px; margin: 0 auto; padding: 28px 20px 0; }
a { color: var(--accent); text-decoration: none; }
a:hover { text-decoration: underline; }
h1 { font-size: 22px; margin: 0 0 2px; font-weight: 600; }
.sub { color: var(--muted); margin: 0 0 18px; }
.card { background: var(--card); border: 1px solid var(--line); border-radius: 8px; padding: 14px 18px;
  margin: 0 0 12px; }
pre, code { font: 13px/1.5 ui-monospace, SFMono-Regular, Menlo, Consolas, "Liberation Mono", monospace; }
pre { margin: 0; white-space: pre-wrap; overflow-wrap: anywhere; }
.summary > summary { font-weight: 600; cursor: pointer; }
.summary pre { margin-top: 8px; max-height: 360px; overflow: auto; }
.group { margin: 30px 0 0; }
.group-head { display: flex; align-items: baseline; justify-content: space-between; gap: 12px;
  flex-wrap: wrap; padding: 0 2px 8px; margin: 0 0 12px; border-bottom: 1px solid var(--line); }
.group-head h2 { font-size: 17px; margin: 0; font-weight: 600; }
.group-head .when { color: var(--muted); font-weight: 400; }
.group-head label { color: var(--muted); font-size: 14px; cursor: pointer; }
.meta { display: flex; flex-wrap: wrap; align-items: center; gap: 6px; color: var(--muted);
  font-size: 13.5px; }
.meta .num { color: var(--fg); font-weight: 600; }
.meta code { color: var(--fg); }
.badge { font-size: 11px; font-weight: 600; letter-spacing: .04em; padding: 0 7px; border-radius: 999px;
  border: 1px solid var(--line); background: var(--bg); line-height: 18px; }
.badge.outdated { color: #7d4e00; background: #fff8c5; border-color: #e4c767; }
.sev-critical { color: #b3261e; background: #ffebe9; border-color: #f5b7b1; }
.sev-major { color: #953800; background: #fff1e5; border-color: #f3c9a4; }
.headline { font-weight: 600; margin: 8px 0 2px; }
.comment { white-space: pre-wrap; overflow-wrap: anywhere; margin: 4px 0 10px; }
details.more { border-top: 1px solid var(--soft); padding: 5px 0; }
details.more > summary { cursor: pointer; color: var(--muted); font-size: 14px; }
details.more[open] > summary { margin-bottom: 6px; }
.original { white-space: pre-wrap; overflow-wrap: anywhere; color: #3d444d; }
.diff { background: var(--bg); border: 1px solid var(--soft); border-radius: 6px; padding: 6px 0;
  overflow-x: auto; white-space: pre; }
.diff span { display: block; padding: 0 10px; min-height: 1.5em; }
.diff .add { background: #e6ffec; }
.diff .del { background: #ffebe9; }
.diff .hunk { color: #6639ba; }
.suggestion dl { margin: 0; display: grid; grid-template-columns: max-content 1fr; gap: 4px 14px; }
.suggestion dt { color: var(--muted); }
.suggestion dd { margin: 0; }
.suggestion ul { margin: 0; padding-left: 18px; }
.cluster { margin: 8px 0 2px; padding: 5px 10px; border-radius: 6px; font-size: 13.5px;
  color: #5a32a3; background: #f7f2ff; border: 1px solid #dccbfb; }
.answer { margin-top: 10px; padding-top: 12px; border-top: 1px solid var(--soft); }
.answer .field { display: block; font-weight: 600; font-size: 14px; margin: 0 0 4px; }
textarea { display: block; width: 100%; min-height: 62px; resize: vertical; font: inherit; color: inherit;
  padding: 7px 10px; border: 1px solid var(--line); border-radius: 6px; background: #fff; }
textarea:focus, select:focus { outline: 2px solid #0969da40; border-color: var(--accent); }
.row { display: flex; flex-wrap: wrap; align-items: center; gap: 8px 22px; margin-top: 8px; font-size: 14px; }
.row label { cursor: pointer; }
select { font: inherit; padding: 2px 6px; border: 1px solid var(--line); border-radius: 6px; background: #fff; }
.bar { position: sticky; bottom: 0; margin-top: 26px; padding: 12px 0 14px; display: flex; align-items: center;
  gap: 10px; background: rgba(246, 248, 250, .96); border-top: 1px solid var(--line); }
button { font: inherit; font-weight: 600; padding: 5px 16px; border-radius: 6px; cursor: pointer;
  border: 1px solid var(--line); background: #fff; color: var(--fg); }
button.primary { background: #1f883d; border-color: #1a7f37; color: #fff; }
button:disabled { opacity: .6; cursor: default; }
#problem { color: #b3261e; font-size: 14px; }
.bar .when { margin-left: auto; color: var(--muted); font-size: 13px; }
.done { margin: 80px auto; max-width: 520px; text-align: center; font-size: 18px; }
"#;

/// The page's script: builds the answers, posts them, and keeps the server told that the page is
/// open. `__HEARTBEAT__`, `__REMAINING__` and `__LOAD__` are replaced by numbers.
const SCRIPT: &str = r#"
(function () {
  'use strict';
  var HEARTBEAT_MS = __HEARTBEAT__;
  var CLOSES_AT = Date.now() + __REMAINING__;
  var LOAD = __LOAD__;
  var form = document.getElementById('answers');
  var problem = document.getElementById('problem');
  var buttons = document.querySelectorAll('.bar button');
  var finished = false;
  function collect() {
    var issues = {};
    document.querySelectorAll('article.issue').forEach(function (el) {
      issues[el.dataset.thread] = {
        instruction: el.querySelector('textarea').value,
        autoResolve: el.querySelector('input[data-role="auto"]').checked,
        action: el.querySelector('select').value
      };
    });
    var groups = {};
    document.querySelectorAll('section.group').forEach(function (el) {
      groups[el.dataset.group] = { hide: el.querySelector('input[data-role="hide"]').checked };
    });
    return { issues: issues, groups: groups };
  }
  function post(path, body) {
    return fetch(path, {
      method: 'POST', cache: 'no-store', body: body,
      headers: { 'Content-Type': 'application/json' }
    });
  }
  function busy(on) {
    buttons.forEach(function (b) { b.disabled = on; });
  }
  function finish(message) {
    finished = true;
    clearInterval(timer);
    form.hidden = true;
    var done = document.getElementById('done');
    done.textContent = message;
    done.hidden = false;
    window.scrollTo(0, 0);
  }
  function send(path, body, message) {
    problem.textContent = '';
    busy(true);
    post(path, body).then(function (response) {
      if (response.ok) { finish(message); return; }
      return response.json().then(function (answer) {
        problem.textContent = answer.error || ('The tool refused: ' + response.status);
      });
    }).catch(function (error) {
      problem.textContent = 'The tool did not answer (' + error + '). Is the command still running?';
    }).then(function () { busy(false); });
  }
  form.addEventListener('submit', function (event) {
    event.preventDefault();
    send('submit', JSON.stringify(collect()), 'Submitted \u2014 you can close this tab');
  });
  document.getElementById('cancel').addEventListener('click', function () {
    send('cancel', '', 'Cancelled \u2014 you can close this tab');
  });
  var timer = setInterval(function () {
    if (finished) { return; }
    post('alive', JSON.stringify(collect())).catch(function () {
      problem.textContent = 'The tool is no longer waiting for this form (its time ran out, or it ' +
        'was stopped).';
    });
  }, HEARTBEAT_MS);
  window.addEventListener('pagehide', function () {
    if (!finished) { navigator.sendBeacon('closed', String(LOAD)); }
  });
  var when = document.getElementById('closes');
  var at = new Date(CLOSES_AT);
  when.textContent = 'Open until ' + String(at.getHours()).padStart(2, '0') + ':' +
    String(at.getMinutes()).padStart(2, '0');
})();
"#;

/// The whole page for `page`, filled in with `prefill`.
fn render_page(page: &FormPage, prefill: Option<&Answers>, script: &PageScript<'_>) -> String {
    let threads: usize = page.groups.iter().map(|group| group.issues.len()).sum();
    let mut html = String::with_capacity(8192 + threads * 4096);
    html.push_str("<!doctype html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n");
    html.push_str("<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n");
    html.push_str("<meta name=\"referrer\" content=\"no-referrer\">\n");
    html.push_str(&format!("<title>{}</title>\n", shown(&page.title)));
    html.push_str(&format!(
        "<style>{STYLE}</style>\n</head>\n<body>\n<main>\n"
    ));
    html.push_str(&format!("<h1>{}</h1>\n", shown(&page.title)));
    let pr = link(
        &page.pr_url,
        &format!("#{} {}", page.pr_number, shown(&page.pr_title)),
    );
    let plural = if threads == 1 { "" } else { "s" };
    html.push_str(&format!(
        "<p class=\"sub\">{pr} · {threads} unresolved thread{plural}. Say how to handle each one, \
         then submit.</p>\n"
    ));
    if !page.summary.trim().is_empty() {
        html.push_str(&format!(
            "<details class=\"card summary\" open><summary>Summary</summary><pre>{}</pre></details>\n",
            shown(&page.summary)
        ));
    }
    html.push_str("<div id=\"done\" class=\"card done\" hidden></div>\n");
    html.push_str("<form id=\"answers\" autocomplete=\"off\">\n");
    let mut index = 0;
    for group in &page.groups {
        render_group(&mut html, group, prefill, &mut index);
    }
    html.push_str(
        "<div class=\"bar\"><button type=\"submit\" class=\"primary\" id=\"submit\">Submit</button>\
         <button type=\"button\" id=\"cancel\">Cancel</button><span id=\"problem\" role=\"alert\"></span>\
         <span class=\"when\" id=\"closes\"></span></div>\n</form>\n</main>\n",
    );
    let code = SCRIPT
        .replace("__HEARTBEAT__", &script.heartbeat.as_millis().to_string())
        .replace("__REMAINING__", &script.remaining.as_millis().to_string())
        .replace("__LOAD__", &script.load.to_string());
    html.push_str(&format!(
        "<script nonce=\"{}\">{code}</script>\n</body>\n</html>\n",
        escape(script.nonce)
    ));
    html
}

/// One review group: its header and its threads.
fn render_group(
    html: &mut String,
    group: &FormGroup,
    prefill: Option<&Answers>,
    index: &mut usize,
) {
    let hide = prefill
        .and_then(|answers| answers.groups.get(&group.id))
        .is_some_and(|answer| answer.hide);
    let when = group
        .submitted_at
        .as_deref()
        .map(|at| format!(" <span class=\"when\">· {}</span>", shown(&show_time(at))))
        .unwrap_or_default();
    html.push_str(&format!(
        "<section class=\"group\" data-group=\"{}\">\n<div class=\"group-head\"><h2>Review by @{}{when}</h2>\
         <label><input type=\"checkbox\" data-role=\"hide\"{}> Hide this review group on the PR page</label></div>\n",
        escape(&group.id),
        shown(&group.reviewer),
        checked(hide),
    ));
    for issue in &group.issues {
        *index += 1;
        let answer = prefill.and_then(|answers| answers.issues.get(&issue.thread_id));
        render_issue(html, issue, answer, *index);
    }
    html.push_str("</section>\n");
}

/// One thread: what was said, the suggestion, and the operator's answer.
fn render_issue(html: &mut String, issue: &FormIssue, answer: Option<&IssueAnswer>, index: usize) {
    html.push_str(&format!(
        "<article class=\"card issue\" data-thread=\"{}\">\n<div class=\"meta\">",
        escape(&issue.thread_id)
    ));
    if issue.outdated {
        html.push_str("<span class=\"badge outdated\">OUTDATED</span>");
    }
    html.push_str(&format!("<span class=\"num\">#{}</span>", issue.number));
    if !issue.severity.is_empty() && issue.severity != "none" {
        let class = match issue.severity.as_str() {
            "critical" => " sev-critical",
            "major" => " sev-major",
            _ => "",
        };
        html.push_str(&format!(
            "<span class=\"badge{class}\">{}</span>",
            shown(&issue.severity)
        ));
    }
    html.push_str(&format!(
        "<span>@{} · <code>{}</code> · {}</span></div>\n",
        shown(&issue.reviewer),
        shown(&issue.location),
        link(&issue.url, "view on GitHub"),
    ));
    if !issue.summary.trim().is_empty() {
        html.push_str(&format!(
            "<div class=\"headline\">{}</div>\n",
            shown(&issue.summary)
        ));
    }
    html.push_str(&format!(
        "<div class=\"comment\">{}</div>\n",
        shown(&issue.comment)
    ));
    if issue.original != issue.comment && !issue.original.is_empty() {
        html.push_str(&format!(
            "<details class=\"more\"><summary>Original</summary><div class=\"original\">{}</div></details>\n",
            shown(&issue.original)
        ));
    }
    if let Some(hunk) = issue.diff_hunk.as_deref().filter(|hunk| !hunk.is_empty()) {
        html.push_str("<details class=\"more\"><summary>Diff</summary><pre class=\"diff\">");
        for line in hunk.lines() {
            let class = if line.starts_with("@@") {
                " class=\"hunk\""
            } else if line.starts_with('+') {
                " class=\"add\""
            } else if line.starts_with('-') {
                " class=\"del\""
            } else {
                ""
            };
            html.push_str(&format!("<span{class}>{}</span>", shown(line)));
        }
        html.push_str("</pre></details>\n");
    }
    render_suggestion(html, issue);
    if let Some(cluster) = &issue.cluster {
        html.push_str(&format!(
            "<div class=\"cluster\">Cluster {}: the same finding as other threads; one instruction \
             can serve them all</div>\n",
            shown(cluster)
        ));
    }
    let instruction = answer.map(|a| a.instruction.as_str()).unwrap_or_default();
    let auto = answer.is_some_and(|a| a.auto_resolve);
    let action = answer.map(|a| a.action).unwrap_or_default();
    html.push_str(&format!(
        "<div class=\"answer\"><label class=\"field\" for=\"instruction-{index}\">How to handle</label>\
         <textarea id=\"instruction-{index}\" rows=\"2\" placeholder=\"e.g. fix: validate the input · reply: this is intentional because … · skip\">{}</textarea>\
         <div class=\"row\"><label><input type=\"checkbox\" data-role=\"auto\"{}> Auto comment + resolve</label>\
         <label>Action <select data-role=\"action\">",
        escape(instruction),
        checked(auto),
    ));
    for (value, choice, label) in [
        ("auto", ChosenAction::Auto, "auto — from the instruction"),
        ("fix", ChosenAction::Fix, "fix — change the code"),
        ("reply", ChosenAction::Reply, "reply — no code change"),
        ("skip", ChosenAction::Skip, "skip"),
    ] {
        let selected = if choice == action { " selected" } else { "" };
        html.push_str(&format!(
            "<option value=\"{value}\"{selected}>{label}</option>"
        ));
    }
    html.push_str("</select></label></div></div>\n</article>\n");
}

/// The tool's suggestion for a thread.
fn render_suggestion(html: &mut String, issue: &FormIssue) {
    let suggestion = &issue.suggestion;
    let list = |items: &[String]| {
        if items.is_empty() {
            "—".to_owned()
        } else {
            let items: String = items
                .iter()
                .map(|item| format!("<li>{}</li>", shown(item)))
                .collect();
            format!("<ul>{items}</ul>")
        }
    };
    let action = action_name(suggestion.action);
    html.push_str(&format!(
        "<details class=\"more suggestion\"><summary>Suggestion: {action}</summary><dl>\
         <dt>Asks</dt><dd>{}</dd><dt>For</dt><dd>{}</dd><dt>Against</dt><dd>{}</dd>\
         <dt>Suggested action</dt><dd>{action}</dd><dt>Why</dt><dd>{}</dd></dl></details>\n",
        shown(&suggestion.asks),
        list(&suggestion.pros),
        list(&suggestion.cons),
        shown(&suggestion.reasoning),
    ));
}

/// The selector's value for `action`.
fn action_name(action: ChosenAction) -> &'static str {
    match action {
        ChosenAction::Auto => "auto",
        ChosenAction::Fix => "fix",
        ChosenAction::Reply => "reply",
        ChosenAction::Skip => "skip",
    }
}

/// ` checked` when `on`.
fn checked(on: bool) -> &'static str {
    if on { " checked" } else { "" }
}

/// The page shown once the form was answered (a reload after submitting or cancelling).
fn render_answered(title: &str) -> String {
    format!(
        "<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>{}</title>\
         <style>{STYLE}</style></head><body><main><div class=\"card done\">This form has been answered — you \
         can close this tab</div></main></body></html>\n",
        shown(title)
    )
}

#[cfg(test)]
mod tests {
    use std::io::{Read, Write};
    use std::net::TcpStream;

    use review_core::followup::form::FormSuggestion;

    use super::*;

    /// A thread with `comment`.
    fn issue(thread_id: &str, number: usize, comment: &str) -> FormIssue {
        FormIssue {
            thread_id: thread_id.to_owned(),
            number,
            reviewer: "coderabbitai".to_owned(),
            location: "src/lib.rs:10".to_owned(),
            url: format!("https://github.com/acme/widgets/pull/482#discussion_r{number}"),
            outdated: false,
            comment: comment.to_owned(),
            original: comment.to_owned(),
            diff_hunk: Some("@@ -1,2 +1,2 @@\n-old\n+new".to_owned()),
            summary: "A finding".to_owned(),
            severity: "minor".to_owned(),
            suggestion: FormSuggestion {
                asks: "Change it".to_owned(),
                pros: vec!["clearer".to_owned()],
                cons: vec![],
                action: ChosenAction::Fix,
                reasoning: "It is cheap".to_owned(),
            },
            cluster: None,
        }
    }

    /// Two groups, three threads: `T1`, `T2` in `PRR_1`, `T3` in `standalone:T3`.
    fn sample_page(timeout_secs: u64) -> FormPage {
        FormPage {
            title: "PR Review Triage — #482".to_owned(),
            pr_number: 482,
            pr_title: "Widgets".to_owned(),
            pr_url: "https://github.com/acme/widgets/pull/482".to_owned(),
            summary: "| # | thread |\n| 1 | T1 |".to_owned(),
            groups: vec![
                FormGroup {
                    id: "PRR_1".to_owned(),
                    reviewer: "coderabbitai".to_owned(),
                    submitted_at: Some("2025-06-01T12:34:56Z".to_owned()),
                    issues: vec![issue("T1", 1, "first"), issue("T2", 2, "second")],
                },
                FormGroup {
                    id: "standalone:T3".to_owned(),
                    reviewer: "alice".to_owned(),
                    submitted_at: None,
                    issues: vec![issue("T3", 3, "third")],
                },
            ],
            timeout_secs,
        }
    }

    /// Timings under which the page never counts as closed during a test.
    fn patient() -> FormTimings {
        FormTimings {
            heartbeat: Duration::from_millis(100),
            silence: Duration::from_secs(60),
            reload_grace: Duration::from_secs(60),
        }
    }

    /// An HTTP answer.
    #[derive(Debug)]
    struct Reply {
        status: u16,
        head: String,
        body: String,
    }

    impl Reply {
        /// The value of header `name`.
        fn header(&self, name: &str) -> Option<&str> {
            self.head.lines().skip(1).find_map(|line| {
                let (key, value) = line.split_once(':')?;
                key.eq_ignore_ascii_case(name).then_some(value.trim())
            })
        }
    }

    /// Where a server listens and the path of its page.
    fn target(server: &FormServer) -> (String, String) {
        let rest = server.url().strip_prefix("http://").unwrap();
        let (addr, path) = rest.split_once('/').unwrap();
        (addr.to_owned(), format!("/{path}"))
    }

    /// Sends one HTTP/1.1 request to `addr` as the form's own page would (`Host: addr`, and on a
    /// `POST` an `Origin` of `http://addr` unless `headers` say where it comes from) and reads
    /// the whole answer.
    async fn http(
        addr: &str,
        method: &str,
        path: &str,
        body: &str,
        headers: &[(&str, &str)],
    ) -> Reply {
        let origin = format!("http://{addr}");
        let mut all: Vec<(&str, &str)> = vec![("Host", addr)];
        let says_where = headers.iter().any(|(name, _)| {
            name.eq_ignore_ascii_case("origin") || name.eq_ignore_ascii_case("sec-fetch-site")
        });
        if method == "POST" && !says_where {
            all.push(("Origin", &origin));
        }
        all.extend_from_slice(headers);
        exactly(addr, method, path, body, &all).await
    }

    /// Sends one HTTP/1.1 request to `addr` with exactly `headers` (and a length) and reads the
    /// whole answer.
    async fn exactly(
        addr: &str,
        method: &str,
        path: &str,
        body: &str,
        headers: &[(&str, &str)],
    ) -> Reply {
        let mut request = format!(
            "{method} {path} HTTP/1.1\r\nConnection: close\r\nContent-Length: {}\r\n",
            body.len()
        );
        for (name, value) in headers {
            request.push_str(&format!("{name}: {value}\r\n"));
        }
        request.push_str("\r\n");
        request.push_str(body);
        let addr = addr.to_owned();
        tokio::task::spawn_blocking(move || {
            let mut stream = TcpStream::connect(&addr).unwrap();
            stream
                .set_read_timeout(Some(Duration::from_secs(10)))
                .unwrap();
            stream.write_all(request.as_bytes()).unwrap();
            let mut raw = String::new();
            stream.read_to_string(&mut raw).unwrap();
            let (head, body) = raw.split_once("\r\n\r\n").unwrap();
            let status = head.split(' ').nth(1).unwrap().parse().unwrap();
            Reply {
                status,
                head: head.to_owned(),
                body: body.to_owned(),
            }
        })
        .await
        .unwrap()
    }

    /// Waits for the form's outcome in the background.
    fn waiting(server: FormServer) -> JoinHandle<Result<FormAnswers, FormError>> {
        tokio::spawn(server.wait())
    }

    /// The outcome, which must come within 10 s.
    async fn outcome(task: JoinHandle<Result<FormAnswers, FormError>>) -> FormAnswers {
        tokio::time::timeout(Duration::from_secs(10), task)
            .await
            .expect("the form ends")
            .unwrap()
            .unwrap()
    }

    #[test]
    fn hostile_text_renders_as_inert_text() {
        let mut page = sample_page(600);
        page.title = "</title><script>alert(1)</script>".to_owned();
        page.pr_url = "javascript:alert(1)".to_owned();
        page.summary = "<script>alert(2)</script>".to_owned();
        let group = &mut page.groups[0];
        group.id = "\"><script>alert(3)</script>".to_owned();
        group.reviewer = "a\" onmouseover=\"alert(4)".to_owned();
        group.submitted_at = Some("<b>now</b>".to_owned());
        let hostile = &mut group.issues[0];
        hostile.thread_id = "x' onfocus='alert(5)".to_owned();
        hostile.comment = "<script>alert(1)</script> and <img src=x onerror=alert(1)>".to_owned();
        hostile.original = "<iframe src=\"https://evil.example\"></iframe>".to_owned();
        hostile.url = "javascript:alert(6)".to_owned();
        hostile.location = "<svg onload=alert(7)>".to_owned();
        hostile.diff_hunk = Some("+<script>alert(8)</script>".to_owned());
        hostile.suggestion.pros = vec!["<u>x</u>".to_owned()];
        hostile.cluster = Some("<A>".to_owned());
        let prefill = Answers {
            issues: BTreeMap::from([(
                "T2".to_owned(),
                IssueAnswer {
                    instruction: "</textarea><script>alert(9)</script>".to_owned(),
                    ..IssueAnswer::default()
                },
            )]),
            groups: BTreeMap::new(),
        };
        let html = render_page(
            &page,
            Some(&prefill),
            &PageScript {
                nonce: "abc",
                heartbeat: Duration::from_secs(5),
                remaining: Duration::from_secs(600),
                load: 1,
            },
        );

        // The page's own script is the only one, and every tag is one the page writes itself.
        assert_eq!(html.matches("<script").count(), 1, "{html}");
        assert!(html.contains("<script nonce=\"abc\">"));
        let allowed = [
            "!doctype", "html", "head", "meta", "title", "style", "body", "main", "h1", "h2", "p",
            "a", "details", "summary", "pre", "div", "form", "section", "label", "input",
            "article", "span", "code", "textarea", "select", "option", "dl", "dt", "dd", "ul",
            "li", "button", "script",
        ];
        for (at, _) in html.match_indices('<') {
            let name: String = html[at + 1..]
                .trim_start_matches('/')
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric() || *c == '!')
                .collect();
            assert!(
                allowed.contains(&name.to_ascii_lowercase().as_str()),
                "<{name} at {at}"
            );
        }
        assert!(html.contains(
            "&lt;script&gt;alert(1)&lt;/script&gt; and &lt;img src=x onerror=alert(1)&gt;"
        ));
        assert!(
            html.contains("<title>&lt;/title&gt;&lt;script&gt;alert(1)&lt;/script&gt;</title>")
        );
        assert!(html.contains("data-group=\"&quot;&gt;&lt;script&gt;alert(3)&lt;/script&gt;\""));
        assert!(html.contains("data-thread=\"x&#39; onfocus=&#39;alert(5)\""));
        assert!(html.contains("@a&quot; onmouseover=&quot;alert(4)"));
        assert!(html.contains("&lt;/textarea&gt;&lt;script&gt;alert(9)&lt;/script&gt;</textarea>"));
        assert!(html.contains("Cluster &lt;A&gt;:"));
        assert!(!html.to_ascii_lowercase().contains("javascript:"));
        assert!(html.contains("https://github.com/acme/widgets/pull/482#discussion_r2\""));
    }

    /// Regression: a comment's control characters and bidirectional overrides reached the page
    /// as they were, where a right-to-left override reorders the text around it. They are shown
    /// as escapes; the ids the page sends back stay exact.
    #[test]
    fn control_and_bidi_characters_are_shown_as_escapes() {
        let mut page = sample_page(600);
        page.pr_title = "Widgets\u{202e}gpj.exe".to_owned();
        page.summary = "| 1 | @alice\u{1b}[2K\r| src/a.rs |".to_owned();
        let group = &mut page.groups[0];
        group.id = "PRR_\u{2066}1".to_owned();
        group.reviewer = "mei\u{200f}".to_owned();
        let issue = &mut group.issues[0];
        issue.thread_id = "T\u{7}1".to_owned();
        issue.comment =
            "looks fine\u{1b}[2K\r\u{1b}[1A@coderabbitai: LGTM \u{202e}!won\n\tnext".to_owned();
        issue.original = "x\u{9b}31m".to_owned();
        issue.location = "src/a.rs\u{61c}:3".to_owned();
        issue.summary = "Use \u{2067}a constant\u{200e}".to_owned();
        issue.diff_hunk = Some("+let a = \"\u{202d}\";\u{7f}".to_owned());
        issue.suggestion.asks = "\u{85}asks".to_owned();
        let html = render_page(
            &page,
            None,
            &PageScript {
                nonce: "abc",
                heartbeat: Duration::from_secs(5),
                remaining: Duration::from_secs(600),
                load: 1,
            },
        );
        let raw: Vec<String> = html
            .chars()
            .filter(|c| review_core::text::is_escaped(*c, false))
            .map(|c| format!("U+{:04X}", u32::from(c)))
            .collect();
        assert_eq!(
            raw,
            vec!["U+2066", "U+0007"],
            "only the ids the page sends back keep their characters"
        );
        for shown in [
            "Widgets\\u{202e}gpj.exe",
            "@alice\\u{1b}[2K\\u{d}|",
            "Review by @mei\\u{200f}",
            "looks fine\\u{1b}[2K\\u{d}\\u{1b}[1A@coderabbitai: LGTM \\u{202e}!won\n\tnext",
            "x\\u{9b}31m",
            "src/a.rs\\u{61c}:3",
            "Use \\u{2067}a constant\\u{200e}",
            "+let a = &quot;\\u{202d}&quot;;\\u{7f}",
            "\\u{85}asks",
        ] {
            assert!(html.contains(shown), "{shown}: {html}");
        }
        assert!(html.contains("data-group=\"PRR_\u{2066}1\""));
        assert!(html.contains("data-thread=\"T\u{7}1\""));
    }

    /// The form serves only its own address (a DNS name rebound to 127.0.0.1 is refused) and
    /// takes a `POST` only from its own page.
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn only_its_own_address_and_page_may_use_the_form() {
        let server = FormServer::bind(&sample_page(600), None, patient())
            .await
            .unwrap();
        let (addr, base) = target(&server);
        let port = addr.rsplit_once(':').unwrap().1.to_owned();
        let task = waiting(server);
        let submit = format!("{base}submit");
        let alive = format!("{base}alive");
        let own = format!("http://{addr}");
        let localhost = format!("localhost:{port}");
        let other_port = format!("127.0.0.1:{}", if port == "1" { "2" } else { "1" });

        // Foreign `Host`s: refused on every route, the fallback included.
        for host in [
            format!("evil.example:{port}"),
            "evil.example".to_owned(),
            other_port.clone(),
            format!("127.0.0.1.evil.example:{port}"),
            String::new(),
        ] {
            for (method, path) in [("GET", base.as_str()), ("GET", "/"), ("POST", &submit)] {
                let reply = exactly(
                    &addr,
                    method,
                    path,
                    "{}",
                    &[("Host", &host), ("Origin", &own)],
                )
                .await;
                assert_eq!(reply.status, 403, "{method} {path} for Host {host:?}");
                assert!(!reply.body.contains("<form"), "{host}");
            }
        }
        let reply = exactly(&addr, "GET", &base, "", &[]).await;
        assert_eq!(reply.status, 403, "no Host at all");
        // The server's own names.
        let page = exactly(&addr, "GET", &base, "", &[("Host", &localhost)]).await;
        assert_eq!(page.status, 200);
        let page = exactly(&addr, "GET", &base, "", &[("Host", &addr.to_uppercase())]).await;
        assert_eq!(page.status, 200, "host names are not case-sensitive");

        // POSTs that do not come from the page.
        let refused_posts: [&[(&str, &str)]; 7] = [
            &[("Host", &addr)],
            &[("Host", &addr), ("Origin", "https://evil.example")],
            &[("Host", &addr), ("Origin", "http://evil.example")],
            &[("Host", &addr), ("Origin", &format!("http://{other_port}"))],
            &[("Host", &addr), ("Origin", "null")],
            &[("Host", &addr), ("Sec-Fetch-Site", "cross-site")],
            &[
                ("Host", &addr),
                ("Origin", "https://evil.example"),
                ("Sec-Fetch-Site", "same-origin"),
            ],
        ];
        for headers in refused_posts {
            for path in [
                &submit,
                &alive,
                &format!("{base}cancel"),
                &format!("{base}closed"),
            ] {
                let reply = exactly(&addr, "POST", path, "{}", headers).await;
                assert_eq!(reply.status, 403, "POST {path} with {headers:?}");
                let error: serde_json::Value = serde_json::from_str(&reply.body).unwrap();
                assert_eq!(error["error"], "this form answers only its own page");
            }
        }
        assert!(!task.is_finished(), "no refused request ends the form");

        // The page's own requests: a fetch (its origin), a beacon under `no-referrer` (the
        // `null` origin, same-origin by Fetch Metadata), and the page opened as localhost.
        let beacon = exactly(
            &addr,
            "POST",
            &alive,
            "",
            &[
                ("Host", &addr),
                ("Origin", "null"),
                ("Sec-Fetch-Site", "same-origin"),
            ],
        )
        .await;
        assert_eq!(beacon.status, 200, "{}", beacon.body);
        let fetched = exactly(
            &addr,
            "POST",
            &alive,
            "",
            &[("Host", &addr), ("Sec-Fetch-Site", "same-origin")],
        )
        .await;
        assert_eq!(fetched.status, 200, "{}", fetched.body);
        let via_localhost = exactly(
            &addr,
            "POST",
            &alive,
            "",
            &[
                ("Host", &localhost),
                ("Origin", &format!("http://{localhost}")),
            ],
        )
        .await;
        assert_eq!(via_localhost.status, 200, "{}", via_localhost.body);
        assert!(!task.is_finished());
        let body = r#"{"issues":{"T1":{"instruction":"Use a constant","action":"fix"}}}"#;
        let accepted = exactly(
            &addr,
            "POST",
            &submit,
            body,
            &[("Host", &addr), ("Origin", &own)],
        )
        .await;
        assert_eq!(accepted.status, 200, "{}", accepted.body);
        let answers = outcome(task).await;
        assert_eq!(answers.status, FormStatus::Submitted);
        assert_eq!(answers.issues["T1"].instruction, "Use a constant");
    }

    #[test]
    fn only_web_links_become_links() {
        assert_eq!(link("javascript:alert(1)", "x"), "x");
        assert_eq!(link("data:text/html,hi", "x"), "x");
        assert_eq!(link("//evil.example", "x"), "x");
        assert!(
            link("HTTPS://github.com/a\"b", "x")
                .starts_with("<a href=\"HTTPS://github.com/a&quot;b\"")
        );
        assert!(link("http://localhost/", "x").starts_with("<a href=\"http://localhost/\""));
        assert_eq!(escape("<&>\"'"), "&lt;&amp;&gt;&quot;&#39;");
        assert_eq!(show_time("2025-06-01T12:34:56Z"), "2025-06-01 12:34 UTC");
        assert_eq!(show_time("yesterday"), "yesterday");
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn every_route_needs_the_secret() {
        let server = FormServer::bind(&sample_page(600), None, patient())
            .await
            .unwrap();
        let (addr, base) = target(&server);
        assert_eq!(base.len(), 34, "a 32-hex-digit secret: {base}");
        let task = waiting(server);
        let other = format!("/{}/", "0".repeat(32));
        for (method, path) in [
            ("GET", "/".to_owned()),
            ("GET", "/favicon.ico".to_owned()),
            ("GET", other.clone()),
            ("GET", format!("{base}x")),
            ("GET", base.to_uppercase()),
            ("POST", "/submit".to_owned()),
            ("POST", "/cancel".to_owned()),
            ("POST", "/closed".to_owned()),
            ("POST", format!("{other}submit")),
            ("POST", format!("{other}cancel")),
            ("POST", format!("/x{base}submit")),
        ] {
            let reply = http(&addr, method, &path, "{\"issues\":{}}", &[]).await;
            assert_eq!(reply.status, 404, "{method} {path}");
            assert!(!reply.body.contains("<form"), "{method} {path}");
        }
        assert!(
            !task.is_finished(),
            "no request without the secret ends the form"
        );

        let page = http(&addr, "GET", &base, "", &[]).await;
        assert_eq!(page.status, 200);
        assert_eq!(
            page.header("content-type"),
            Some("text/html; charset=utf-8")
        );
        assert_eq!(page.header("x-content-type-options"), Some("nosniff"));
        assert_eq!(page.header("referrer-policy"), Some("no-referrer"));
        assert_eq!(page.header("cache-control"), Some("no-store"));
        let csp = page.header("content-security-policy").unwrap();
        let nonce = csp
            .split("'nonce-")
            .nth(1)
            .and_then(|rest| rest.split('\'').next())
            .unwrap();
        assert_eq!(nonce.len(), 32);
        assert!(
            csp.starts_with("default-src 'none'; style-src 'unsafe-inline'; script-src 'nonce-")
        );
        assert!(csp.contains("form-action 'self'; connect-src 'self'"));
        assert!(page.body.contains(&format!("<script nonce=\"{nonce}\">")));
        assert_eq!(page.body.matches("<textarea").count(), 3);
        assert!(page.body.contains("<title>PR Review Triage — #482</title>"));
        assert!(page.body.contains(
            "Review by @coderabbitai <span class=\"when\">· 2025-06-01 12:34 UTC</span>"
        ));

        let without_slash = http(&addr, "GET", base.trim_end_matches('/'), "", &[]).await;
        assert_eq!(without_slash.status, 308);
        assert_eq!(without_slash.header("location"), Some(base.as_str()));

        let cancelled = http(&addr, "POST", &format!("{base}cancel"), "", &[]).await;
        assert_eq!(cancelled.status, 200);
        let answers = outcome(task).await;
        assert_eq!(answers.status, FormStatus::Cancelled);
        assert!(answers.issues.is_empty() && answers.groups.is_empty());
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn submitted_answers_are_checked_strictly() {
        let server = FormServer::bind(&sample_page(600), None, patient())
            .await
            .unwrap();
        let (addr, base) = target(&server);
        let submit = format!("{base}submit");
        let task = waiting(server);
        for (body, why) in [
            ("", "not JSON"),
            ("[]", "not an object"),
            (r#"[{"T1":{}},{}]"#, "a struct as an array"),
            (
                r#"{"issues":{"T1":["x",true,"fix"]}}"#,
                "an answer as an array",
            ),
            (r#"{"issues":[]}"#, "issues as an array"),
            (
                r#"{"groups":{"PRR_1":{"hide":[true]}}}"#,
                "a list for a flag",
            ),
            (r#"{"issues":{"T9":{}}}"#, "no thread T9"),
            (r#"{"groups":{"PRR_9":{"hide":true}}}"#, "no group PRR_9"),
            (
                r#"{"issues":{"T1":{"instruction":"x","extra":1}}}"#,
                "an unknown field",
            ),
            (
                r#"{"issues":{"T1":{"action":"delete"}}}"#,
                "an unknown action",
            ),
            (
                r#"{"issues":{"T1":{"autoResolve":"yes"}}}"#,
                "a string for a flag",
            ),
            (
                r#"{"issues":{},"status":"submitted"}"#,
                "an unknown top-level field",
            ),
        ] {
            let reply = http(&addr, "POST", &submit, body, &[]).await;
            assert_eq!(reply.status, 400, "{why}: {}", reply.body);
            let error: serde_json::Value = serde_json::from_str(&reply.body).unwrap();
            assert!(error["error"].is_string(), "{why}");
        }
        let foreign = http(
            &addr,
            "POST",
            &submit,
            "{}",
            &[("Origin", "https://evil.example")],
        )
        .await;
        assert_eq!(foreign.status, 403);
        assert!(
            !task.is_finished(),
            "a refused answer leaves the form waiting"
        );

        let origin = format!("http://{addr}");
        let body = r#"{"issues":{"T1":{"instruction":"Use a constant","autoResolve":true,"action":"fix"}},
                       "groups":{"PRR_1":{"hide":true}}}"#;
        let accepted = http(&addr, "POST", &submit, body, &[("Origin", &origin)]).await;
        assert_eq!(accepted.status, 200, "{}", accepted.body);
        let answers = outcome(task).await;
        assert_eq!(answers.status, FormStatus::Submitted);
        assert_eq!(
            answers.issues["T1"],
            IssueAnswer {
                instruction: "Use a constant".to_owned(),
                auto_resolve: true,
                action: ChosenAction::Fix,
            }
        );
        assert_eq!(answers.issues["T2"], IssueAnswer::default());
        assert_eq!(answers.issues.len(), 3);
        assert!(answers.groups["PRR_1"].hide);
        assert!(!answers.groups["standalone:T3"].hide);
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn time_runs_out_when_nobody_answers() {
        let started = std::time::Instant::now();
        let answers = run_form_with(&sample_page(1), None, false, patient())
            .await
            .unwrap();
        assert_eq!(answers.status, FormStatus::Timeout);
        assert!(answers.issues.is_empty());
        let took = started.elapsed();
        assert!(
            took >= Duration::from_secs(1) && took < Duration::from_secs(5),
            "{took:?}"
        );
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_page_that_stops_its_heartbeat_counts_as_closed() {
        let timings = FormTimings {
            heartbeat: Duration::from_millis(100),
            silence: Duration::from_millis(1000),
            reload_grace: Duration::from_secs(60),
        };
        let server = FormServer::bind(&sample_page(600), None, timings)
            .await
            .unwrap();
        let (addr, base) = target(&server);
        let task = waiting(server);
        // Not loaded yet: no heartbeat is expected.
        tokio::time::sleep(Duration::from_millis(1200)).await;
        assert!(!task.is_finished(), "a page never loaded is not closed");
        assert_eq!(http(&addr, "GET", &base, "", &[]).await.status, 200);
        for _ in 0..12 {
            tokio::time::sleep(Duration::from_millis(100)).await;
            let beat = http(&addr, "POST", &format!("{base}alive"), "", &[]).await;
            assert_eq!(beat.status, 200);
        }
        assert!(!task.is_finished(), "a beating page is open");
        let stopped = std::time::Instant::now();
        let answers = outcome(task).await;
        assert_eq!(answers.status, FormStatus::Closed);
        assert!(stopped.elapsed() >= Duration::from_millis(800));
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn the_closing_beacon_ends_the_form_unless_the_page_comes_back() {
        let timings = FormTimings {
            heartbeat: Duration::from_millis(100),
            silence: Duration::from_secs(60),
            reload_grace: Duration::from_millis(500),
        };
        let server = FormServer::bind(&sample_page(600), None, timings)
            .await
            .unwrap();
        let (addr, base) = target(&server);
        let closed = format!("{base}closed");
        let task = waiting(server);
        assert_eq!(http(&addr, "GET", &base, "", &[]).await.status, 200);
        // A reload: the page leaves and comes straight back.
        assert_eq!(http(&addr, "POST", &closed, "1", &[]).await.status, 200);
        let second = http(&addr, "GET", &base, "", &[]).await.body;
        assert!(second.contains("var LOAD = 2;"));
        tokio::time::sleep(Duration::from_millis(900)).await;
        assert!(!task.is_finished(), "a reloaded page is still open");
        // A reload whose goodbye arrives after the new load.
        assert_eq!(http(&addr, "GET", &base, "", &[]).await.status, 200);
        assert_eq!(http(&addr, "POST", &closed, "2", &[]).await.status, 200);
        tokio::time::sleep(Duration::from_millis(900)).await;
        assert!(
            !task.is_finished(),
            "a late goodbye of a superseded load is ignored"
        );
        // The tab is closed.
        assert_eq!(http(&addr, "POST", &closed, "3", &[]).await.status, 200);
        assert_eq!(outcome(task).await.status, FormStatus::Closed);
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn previous_answers_and_drafts_fill_the_form_in() {
        let previous = FormAnswers {
            status: FormStatus::Submitted,
            issues: BTreeMap::from([
                (
                    "T2".to_owned(),
                    IssueAnswer {
                        instruction: "Keep <b>it</b> & \"say\" why".to_owned(),
                        auto_resolve: true,
                        action: ChosenAction::Reply,
                    },
                ),
                ("T-gone".to_owned(), IssueAnswer::default()),
            ]),
            groups: BTreeMap::from([("standalone:T3".to_owned(), GroupAnswer { hide: true })]),
        };
        let server = FormServer::bind(&sample_page(600), Some(&previous), patient())
            .await
            .unwrap();
        let (addr, base) = target(&server);
        let task = waiting(server);
        let page = http(&addr, "GET", &base, "", &[]).await.body;
        let t2 = page.split("data-thread=\"T2\"").nth(1).unwrap();
        let t2 = t2.split("</article>").next().unwrap();
        assert!(t2.contains(">Keep &lt;b&gt;it&lt;/b&gt; &amp; &quot;say&quot; why</textarea>"));
        assert!(t2.contains("<input type=\"checkbox\" data-role=\"auto\" checked>"));
        assert!(t2.contains("<option value=\"reply\" selected>"));
        let t1 = page.split("data-thread=\"T1\"").nth(1).unwrap();
        let t1 = t1.split("</article>").next().unwrap();
        assert!(t1.contains("></textarea>"));
        assert!(t1.contains("<option value=\"auto\" selected>"));
        assert!(!t1.contains(" checked"));
        let hide = page.split("data-group=\"standalone:T3\"").nth(1).unwrap();
        assert!(hide.contains("data-role=\"hide\" checked>"));
        assert!(!page.contains("T-gone"));

        // A heartbeat carries the page's draft, which a reload shows.
        let draft = r#"{"issues":{"T1":{"instruction":"drafted","action":"skip"}},"groups":{}}"#;
        let beat = http(&addr, "POST", &format!("{base}alive"), draft, &[]).await;
        assert_eq!(beat.status, 200);
        let reloaded = http(&addr, "GET", &base, "", &[]).await.body;
        let t1 = reloaded.split("data-thread=\"T1\"").nth(1).unwrap();
        assert!(t1.contains(">drafted</textarea>"));
        assert!(t1.contains("<option value=\"skip\" selected>"));
        let bad = http(
            &addr,
            "POST",
            &format!("{base}alive"),
            r#"{"issues":{"T9":{}}}"#,
            &[],
        )
        .await;
        assert_eq!(bad.status, 400);

        assert_eq!(
            http(&addr, "POST", &format!("{base}cancel"), "", &[])
                .await
                .status,
            200
        );
        assert_eq!(outcome(task).await.status, FormStatus::Cancelled);
    }
}
