//! The form's web server: what its handlers share with the waiter, how a request is checked and
//! answers parsed, the responses with the page's safety headers, and the browser opener.

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
use review_core::followup::form::{FormAnswers, FormPage, FormStatus, GroupAnswer, IssueAnswer};
use review_core::text::visible_line;
use serde::Deserialize;
use tokio::sync::{Notify, oneshot};
use tokio::task::JoinHandle;
use tokio::time::Instant;

use super::page::{PageScript, render_answered, render_page};
use super::{FormError, FormTimings};

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
        let secret = crate::command::random_marker().map_err(FormError::Secret)?;
        let nonce = crate::command::random_marker().map_err(FormError::Secret)?;
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
pub(super) struct Answers {
    /// Per thread id.
    #[serde(default)]
    pub(super) issues: BTreeMap<String, IssueAnswer>,
    /// Per group id.
    #[serde(default)]
    pub(super) groups: BTreeMap<String, GroupAnswer>,
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
pub(super) fn open_in_browser(url: &str) {
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

#[cfg(test)]
mod tests {
    use std::io::{Read, Write};
    use std::net::TcpStream;

    use review_core::followup::form::ChosenAction;

    use super::super::fixtures::sample_page;
    use super::super::run_form_with;
    use super::*;

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
