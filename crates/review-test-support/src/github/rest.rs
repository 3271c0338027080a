//! The REST side of the fake: the `GET` routes a change probe asks, generated from the
//! stored pull requests, with GitHub's conditional requests (`ETag`, `If-None-Match`, `304`).
//!
//! Routes (under the server's root, or under `/api/v3` as on Enterprise Server):
//!
//! | route | answer |
//! |---|---|
//! | `/repos/{o}/{r}/pulls/{n}` | the pull request: `number`, `state`, `title`, `updated_at`, `head`, `base`, `user`, ... |
//! | `/repos/{o}/{r}/issues/{n}/comments` | its conversation comments |
//! | `/repos/{o}/{r}/pulls/{n}/reviews` | its reviews (a pending one to its author only) |
//! | `/repos/{o}/{r}/pulls/{n}/comments` | its review comments, thread by thread |
//! | `/repos/{o}/{r}/pulls/{n}/requested_reviewers` | `{users, teams}`: the bots a review was requested from (Copilot as `Copilot`) |
//! | `/repos/{o}/{r}/commits/{sha}/check-runs` | `{total_count, check_runs}`, each with its `app` (the viewer's for a run posted here, `ci-app` for one set with the checks); `check_name` filters |
//! | `/repos/{o}/{r}/commits/{sha}/status` | the combined status `{state, statuses, ...}` |
//! | `/repos/{o}/{r}/commits/{sha}/statuses` | the commit's statuses, newest first, each with its `creator` (the viewer who posted it; `ci-bot` for one set with the checks) |
//! | `POST /repos/{o}/{r}/statuses/{sha}` | sets a commit status (one per context, the latest wins; `422` for a state GitHub does not know or a description over 140 characters) |
//!
//! Lists honour `per_page` (default 30, at most 100) and `page`, with a `Link` header naming
//! the next page. Every `200` carries a weak `ETag` hashed from its body, so it changes exactly
//! when the body does; a request whose `If-None-Match` names the current `ETag` gets a `304`
//! with no body, which GitHub does not count against the rate limit (the fake does not either).
//!
//! The pull request's `updated_at` counts from the fake's start by [`PrEntry::revision`], which
//! moves when a person would see the pull request change: a visible reply, a conversation
//! comment, [`super::FakeGitHub::update_pull_request`]. Resolving a thread does not move it
//! (GitHub does not bump `updated_at` for that), nor do checks (they have routes of their own).

use std::sync::{Arc, Mutex, PoisonError};

use review_core::model::{
    Author, AuthorKind, ChecksState, PrState, PullRequest, RepoId, ReviewState, SubjectType,
};
use serde_json::{Value as Json, json};
use wiremock::{Request, Respond, ResponseTemplate};

use super::Fault;
use super::server::{
    Cut, SECONDARY_LIMIT, bearer, header, html_answer, refuse_without_user_agent, take_faults,
};
use super::state::{self, PrEntry, State};

/// The operation name every REST request answers to in [`Fault`]s: a fault with
/// `operation: Some("rest")` hits the next REST requests only (one with `None` hits any
/// request). A request also answers to `rest:` and its route, to aim at one route:
/// `rest:pull`, `rest:issue-comments`, `rest:reviews`, `rest:review-comments`,
/// `rest:requested-reviewers`, `rest:check-runs`, `rest:status`, `rest:statuses`.
pub const REST_OPERATION: &str = "rest";

/// GitHub's primary REST budget for a user token, in requests per hour.
const REST_PER_HOUR: usize = 5_000;

/// A check on a commit, as [`super::FakeGitHub::set_checks`] sets it: a check run (GitHub
/// Actions and other apps) or a commit status (older CI services).
///
/// Statuses, states and conclusions are GitHub's REST spellings and are served verbatim, so a
/// test can also send values GitHub does not use.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FakeCheck {
    /// A check run, served by `commits/{sha}/check-runs`.
    Run {
        /// Its name (`build`, `test (ubuntu-latest)`).
        name: String,
        /// `queued`, `in_progress` or `completed`.
        status: String,
        /// Once completed: `success`, `failure`, `neutral`, `cancelled`, `skipped`,
        /// `timed_out`, `action_required`, `startup_failure` or `stale`.
        conclusion: Option<String>,
    },
    /// A commit status, served by `commits/{sha}/status`.
    Status {
        /// Its context (`ci/circleci`).
        context: String,
        /// `error`, `failure`, `pending` or `success`.
        state: String,
    },
}

impl FakeCheck {
    /// A check run with any status and conclusion.
    pub fn run(name: &str, status: &str, conclusion: Option<&str>) -> Self {
        Self::Run {
            name: name.to_owned(),
            status: status.to_owned(),
            conclusion: conclusion.map(str::to_owned),
        }
    }

    /// A completed check run that succeeded.
    pub fn passed(name: &str) -> Self {
        Self::run(name, "completed", Some("success"))
    }

    /// A completed check run that failed.
    pub fn failed(name: &str) -> Self {
        Self::run(name, "completed", Some("failure"))
    }

    /// A check run still in progress.
    pub fn running(name: &str) -> Self {
        Self::run(name, "in_progress", None)
    }

    /// A commit status.
    pub fn status(context: &str, state: &str) -> Self {
        Self::Status {
            context: context.to_owned(),
            state: state.to_owned(),
        }
    }

    /// Whether it counts as failed: a run concluded `failure`, `timed_out`, `cancelled`,
    /// `action_required` or `startup_failure`, or a status `error` or `failure`.
    pub fn is_failing(&self) -> bool {
        match self {
            Self::Run { conclusion, .. } => matches!(
                conclusion.as_deref(),
                Some("failure" | "timed_out" | "cancelled" | "action_required" | "startup_failure")
            ),
            Self::Status { state, .. } => matches!(state.as_str(), "error" | "failure"),
        }
    }

    /// Whether it has yet to finish: a run not `completed`, or a status `pending`.
    pub fn is_pending(&self) -> bool {
        match self {
            Self::Run { status, .. } => status != "completed",
            Self::Status { state, .. } => state == "pending",
        }
    }

    /// The state GitHub's `statusCheckRollup` shows for these checks: `FAILURE` if any failed,
    /// else `PENDING` if any is unfinished, else `SUCCESS`; `None` for no checks.
    ///
    /// ```
    /// use review_core::model::ChecksState;
    /// use review_test_support::github::FakeCheck;
    ///
    /// let checks = [FakeCheck::passed("build"), FakeCheck::running("test")];
    /// assert_eq!(FakeCheck::rollup(&checks), Some(ChecksState::Pending));
    /// assert_eq!(FakeCheck::rollup(&[]), None);
    /// ```
    pub fn rollup(checks: &[Self]) -> Option<ChecksState> {
        if checks.is_empty() {
            None
        } else if checks.iter().any(Self::is_failing) {
            Some(ChecksState::Failure)
        } else if checks.iter().any(Self::is_pending) {
            Some(ChecksState::Pending)
        } else {
            Some(ChecksState::Success)
        }
    }

    /// The one check, named `ci`, that stands for a rolled-up state set on the model without
    /// named checks (as [`crate::PrBuilder`] does); none for [`ChecksState::Unknown`], a
    /// reader's state GitHub never holds.
    fn standing_for(state: ChecksState) -> Option<Self> {
        Some(match state {
            ChecksState::Success => Self::passed("ci"),
            ChecksState::Failure => Self::failed("ci"),
            ChecksState::Pending => Self::running("ci"),
            ChecksState::Error => Self::status("ci", "error"),
            ChecksState::Expected => Self::status("ci", "pending"),
            ChecksState::Unknown => return None,
        })
    }
}

/// A REST request the fake received.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RestRecorded {
    /// The method (`GET`).
    pub method: String,
    /// The path and query, as sent (`/repos/acme/widgets/pulls/1`).
    pub path: String,
    /// The `If-None-Match` header, verbatim.
    pub if_none_match: Option<String>,
    /// The `Authorization` header, verbatim.
    pub authorization: Option<String>,
    /// The `Accept` header, verbatim.
    pub accept: Option<String>,
    /// The `X-GitHub-Api-Version` header, verbatim.
    pub api_version: Option<String>,
    /// The HTTP status of the answer.
    pub status: u16,
    /// Whether it counted against the REST budget: a `200` or a `404` does, as on GitHub; a
    /// `304`, a `401` and an answer replaced by a [`Fault`] do not.
    pub charged: bool,
}

impl RestRecorded {
    /// `request` as received, before its answer (status 0, not charged).
    pub(crate) fn of(request: &Request) -> Self {
        let path = match request.url.query() {
            Some(q) => format!("{}?{q}", request.url.path()),
            None => request.url.path().to_owned(),
        };
        Self {
            method: request.method.to_string(),
            path,
            if_none_match: header(request, "if-none-match"),
            authorization: header(request, "authorization"),
            accept: header(request, "accept"),
            api_version: header(request, "x-github-api-version"),
            status: 0,
            charged: false,
        }
    }
}

/// The wiremock responder for every `GET`: one per fake, sharing the fake's state.
#[derive(Debug)]
pub(crate) struct RestResponder {
    pub state: Arc<Mutex<State>>,
}

impl Respond for RestResponder {
    fn respond(&self, request: &Request) -> ResponseTemplate {
        let mut st = self.state.lock().unwrap_or_else(PoisonError::into_inner);
        let (status, charged, template) = handle(&mut st, request);
        if let Some(last) = st.rest.last_mut() {
            last.status = status;
            last.charged = charged;
        }
        template
    }
}

/// The wiremock responder for `POST /repos/{o}/{r}/statuses/{sha}`: sets a commit status as
/// GitHub does (one per context, the latest wins), so later reads of the commit's checks see
/// it.
#[derive(Debug)]
pub(crate) struct StatusResponder {
    pub state: Arc<Mutex<State>>,
}

impl Respond for StatusResponder {
    fn respond(&self, request: &Request) -> ResponseTemplate {
        let mut st = self.state.lock().unwrap_or_else(PoisonError::into_inner);
        st.rest.push(RestRecorded {
            method: request.method.to_string(),
            path: request.url.path().to_owned(),
            if_none_match: None,
            authorization: header(request, "authorization"),
            accept: header(request, "accept"),
            api_version: header(request, "x-github-api-version"),
            status: 0,
            charged: false,
        });
        let (status, template) = post_status(&mut st, request);
        if let Some(last) = st.rest.last_mut() {
            last.status = status;
            last.charged = status == 201;
        }
        template
    }
}

/// How GitHub refuses a REST request before its route: no `User-Agent` (403), no token or
/// another than the fake's (401), and, for a write, a read-only token (403).
pub(super) fn refused_token(
    st: &State,
    request: &Request,
    writing: bool,
) -> Option<(u16, ResponseTemplate)> {
    if let Some(refused) = refuse_without_user_agent(request) {
        return Some(refused);
    }
    let given = bearer(request);
    let authorized = match (&given, &st.token) {
        (None, _) => false,
        (Some(given), Some(wanted)) => given == wanted,
        (Some(_), None) => true,
    };
    if !authorized {
        let body = json!({"message": "Bad credentials", "status": "401"});
        return Some((401, json_template(st, 401, &body)));
    }
    if writing && given.is_some_and(|t| st.read_only.contains(&t)) {
        let body = json!({"message": "Resource not accessible by integration", "status": "403"});
        return Some((403, json_template(st, 403, &body)));
    }
    None
}

/// The wiremock responder for `POST /repos/{o}/{r}/check-runs`: creates a check run as GitHub
/// does for a GitHub App's token (the latest of a name on a commit stands), or refuses with 403
/// where [`super::FakeGitHub::refuse_check_runs`] said the token is not an App's.
#[derive(Debug)]
pub(crate) struct CheckRunResponder {
    pub state: Arc<Mutex<State>>,
}

impl Respond for CheckRunResponder {
    fn respond(&self, request: &Request) -> ResponseTemplate {
        let mut st = self.state.lock().unwrap_or_else(PoisonError::into_inner);
        st.rest.push(RestRecorded::of(request));
        let (status, template) = post_check_run(&mut st, request);
        if let Some(last) = st.rest.last_mut() {
            last.status = status;
            last.charged = status == 201;
        }
        template
    }
}

fn post_check_run(st: &mut State, request: &Request) -> (u16, ResponseTemplate) {
    if let Some(refused) = refused_token(st, request, true) {
        return refused;
    }
    if st.check_runs_refused {
        let body = json!({"message": "Resource not accessible by integration", "status": "403"});
        return (403, json_template(st, 403, &body));
    }
    let path = request.url.path();
    let path = path.strip_prefix("/api/v3").unwrap_or(path);
    let segments: Vec<&str> = path.trim_start_matches('/').split('/').collect();
    let ["repos", owner, name, "check-runs"] = segments.as_slice() else {
        return (404, json_template(st, 404, &not_found().1));
    };
    let Some((repo, _)) = st.repo(owner, name) else {
        return (404, json_template(st, 404, &not_found().1));
    };
    let repo = repo.clone();
    let body: Json = serde_json::from_slice(&request.body).unwrap_or(Json::Null);
    let text = |k: &str| body.get(k).and_then(Json::as_str).unwrap_or("").to_owned();
    let (name, sha, status) = (text("name"), text("head_sha"), text("status"));
    let conclusion = body
        .get("conclusion")
        .and_then(Json::as_str)
        .map(str::to_owned);
    if name.is_empty()
        || !matches!(status.as_str(), "queued" | "in_progress" | "completed")
        || (status == "completed") != conclusion.is_some()
    {
        let body = json!({"message": "Validation Failed", "status": "422"});
        return (422, json_template(st, 422, &body));
    }
    let Ok(mut checks) = checks_of(st, &repo, &sha) else {
        let body = json!({"message": format!("No commit found for SHA: {sha}"), "status": "422"});
        return (422, json_template(st, 422, &body));
    };
    checks.retain(|c| !matches!(c, FakeCheck::Run { name: n, .. } if *n == name));
    let run_name = name.clone();
    checks.push(FakeCheck::Run {
        name,
        status,
        conclusion,
    });
    for e in st
        .prs
        .iter_mut()
        .filter(|e| e.pr.repo == repo && e.pr.head_sha.0 == sha)
    {
        e.pr.checks = FakeCheck::rollup(&checks);
    }
    let app = st.viewer.trim_end_matches("[bot]").to_owned();
    st.check_run_apps
        .insert((repo.clone(), sha.clone(), run_name), app);
    st.checks.insert((repo, sha), checks);
    st.posted_check_runs.push(body.clone());
    (
        201,
        json_template(st, 201, &json!({"id": st.posted_check_runs.len()})),
    )
}

/// Sets the status a `POST .../statuses/{sha}` asks for, checking it as GitHub does.
fn post_status(st: &mut State, request: &Request) -> (u16, ResponseTemplate) {
    if let Some(refused) = refused_token(st, request, true) {
        return refused;
    }
    let path = request.url.path();
    let path = path.strip_prefix("/api/v3").unwrap_or(path);
    let segments: Vec<&str> = path.trim_start_matches('/').split('/').collect();
    let ["repos", owner, name, "statuses", sha] = segments.as_slice() else {
        return (404, json_template(st, 404, &not_found().1));
    };
    let Some((repo, _)) = st.repo(owner, name) else {
        return (404, json_template(st, 404, &not_found().1));
    };
    let repo = repo.clone();
    let body: Json = serde_json::from_slice(&request.body).unwrap_or(Json::Null);
    let state = body.get("state").and_then(Json::as_str).unwrap_or("");
    let context = body
        .get("context")
        .and_then(Json::as_str)
        .unwrap_or("default");
    let description = body.get("description").and_then(Json::as_str).unwrap_or("");
    if !matches!(state, "error" | "failure" | "pending" | "success")
        || description.chars().count() > 140
    {
        let body = json!({"message": "Validation Failed", "status": "422"});
        return (422, json_template(st, 422, &body));
    }
    let Ok(mut checks) = checks_of(st, &repo, sha) else {
        let body = json!({"message": format!("No commit found for SHA: {sha}"), "status": "422"});
        return (422, json_template(st, 422, &body));
    };
    checks.retain(|c| !matches!(c, FakeCheck::Status { context: c, .. } if c == context));
    checks.push(FakeCheck::Status {
        context: context.to_owned(),
        state: state.to_owned(),
    });
    for e in st
        .prs
        .iter_mut()
        .filter(|e| e.pr.repo == repo && e.pr.head_sha.0 == *sha)
    {
        e.pr.checks = FakeCheck::rollup(&checks);
    }
    let creator = st.viewer.clone();
    st.status_creators.insert(
        (repo.clone(), (*sha).to_owned(), context.to_owned()),
        creator,
    );
    st.checks.insert((repo, (*sha).to_owned()), checks);
    st.posted_statuses.push(body.clone());
    let answer = json!({
        "state": state,
        "context": context,
        "description": description,
        "target_url": body.get("target_url").cloned().unwrap_or(Json::Null),
    });
    (201, json_template(st, 201, &answer))
}

/// A route of the REST API the fake serves.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Route {
    Pull(u64),
    IssueComments(u64),
    Reviews(u64),
    ReviewComments(u64),
    RequestedReviewers(u64),
    CheckRuns(String),
    Status(String),
    Statuses(String),
}

impl Route {
    /// The route's name in [`Fault`]s, after `rest:`.
    fn name(&self) -> &'static str {
        match self {
            Self::Pull(_) => "pull",
            Self::IssueComments(_) => "issue-comments",
            Self::Reviews(_) => "reviews",
            Self::ReviewComments(_) => "review-comments",
            Self::RequestedReviewers(_) => "requested-reviewers",
            Self::CheckRuns(_) => "check-runs",
            Self::Status(_) => "status",
            Self::Statuses(_) => "statuses",
        }
    }
}

/// The repository owner, name and route of a path; `None` for a path the fake does not serve.
fn route(path: &str) -> Option<(String, String, Route)> {
    let path = path.strip_prefix("/api/v3").unwrap_or(path);
    let segments: Vec<&str> = path.trim_start_matches('/').split('/').collect();
    let ["repos", owner, name, rest @ ..] = segments.as_slice() else {
        return None;
    };
    let number = |n: &str| n.parse::<u64>().ok();
    let route = match rest {
        ["pulls", n] => Route::Pull(number(n)?),
        ["issues", n, "comments"] => Route::IssueComments(number(n)?),
        ["pulls", n, "reviews"] => Route::Reviews(number(n)?),
        ["pulls", n, "comments"] => Route::ReviewComments(number(n)?),
        ["pulls", n, "requested_reviewers"] => Route::RequestedReviewers(number(n)?),
        ["commits", sha, "check-runs"] => Route::CheckRuns((*sha).to_owned()),
        ["commits", sha, "status"] => Route::Status((*sha).to_owned()),
        ["commits", sha, "statuses"] => Route::Statuses((*sha).to_owned()),
        _ => return None,
    };
    Some(((*owner).to_owned(), (*name).to_owned(), route))
}

/// A page of a list: `per_page` (default 30, at most 100) and `page` (from 1).
#[derive(Debug, Clone)]
struct Paging {
    per_page: usize,
    page: usize,
    /// `check_name`: the one check run name a `check-runs` list keeps.
    check_name: Option<String>,
}

impl Paging {
    fn of(request: &Request) -> Self {
        let mut paging = Self {
            per_page: 30,
            page: 1,
            check_name: None,
        };
        for (key, value) in request.url.query_pairs() {
            if key == "check_name" {
                paging.check_name = Some(value.into_owned());
                continue;
            }
            let Ok(n) = value.parse::<usize>() else {
                continue;
            };
            match key.as_ref() {
                "per_page" => paging.per_page = n.clamp(1, 100),
                "page" => paging.page = n.max(1),
                _ => {}
            }
        }
        paging
    }

    /// This page of `items`, and whether a next page exists.
    fn slice(self, items: Vec<Json>) -> (Vec<Json>, bool) {
        let start = (self.page - 1).saturating_mul(self.per_page);
        let more = items.len() > start.saturating_add(self.per_page);
        let page = items.into_iter().skip(start).take(self.per_page).collect();
        (page, more)
    }
}

/// What a route answers before conditional handling: a body (and whether a next page exists),
/// or an error status and body.
type Answer = Result<(Json, bool), (u16, Json)>;

fn not_found() -> (u16, Json) {
    (
        404,
        json!({
            "message": "Not Found",
            "documentation_url": "https://docs.github.com/rest",
            "status": "404",
        }),
    )
}

/// Answers one REST request, and records it: the status, and whether it is charged (see
/// [`RestRecorded::charged`]).
fn handle(st: &mut State, request: &Request) -> (u16, bool, ResponseTemplate) {
    st.rest.push(RestRecorded::of(request));

    let aimed = route(request.url.path()).map(|(_, _, r)| format!("{REST_OPERATION}:{}", r.name()));
    let mut names = vec![REST_OPERATION];
    names.extend(aimed.as_deref());
    let (delay, fault, _) = take_faults(st, &names, &[]);
    let cut = Cut::of(fault.as_ref(), request);
    let (status, charged, template) = match fault {
        Some(fault) if cut.is_none() => {
            let (status, template) = fault_answer(st, &fault);
            (status, false, template)
        }
        _ => {
            let (status, template) = answer(st, request, cut);
            (status, status == 200 || status == 404, template)
        }
    };
    let template = match delay {
        Some(d) => template.set_delay(d),
        None => template,
    };
    (status, charged, template)
}

/// The answer of a fault in place of GitHub's. A [`Fault::SecondaryLimit`] with status 200
/// (a GraphQL shape) answers 403 here.
fn fault_answer(st: &State, fault: &Fault) -> (u16, ResponseTemplate) {
    match fault {
        Fault::SecondaryLimit {
            status,
            retry_after,
            ..
        } => {
            let status = if *status == 429 { 429 } else { 403 };
            let body = json!({
                "message": SECONDARY_LIMIT,
                "documentation_url": "https://docs.github.com/rest/using-the-rest-api/rate-limits-for-the-rest-api#about-secondary-rate-limits",
            });
            let mut t = json_template(st, status, &body);
            if let Some(secs) = retry_after {
                t = t.insert_header("retry-after", secs.to_string());
            }
            (status, t)
        }
        Fault::RateLimited { reset_in_secs, .. } => {
            let body = json!({
                "message": "API rate limit exceeded for user ID 1. If you reach out to GitHub \
                            Support for help, please include the request ID FAKE:0000:0000.",
                "documentation_url": "https://docs.github.com/rest/overview/rate-limits-for-the-rest-api",
            });
            let t = json_template(st, 403, &body)
                .insert_header("x-ratelimit-remaining", "0")
                .insert_header("x-ratelimit-used", REST_PER_HOUR.to_string())
                .insert_header(
                    "x-ratelimit-reset",
                    (state::now() + reset_in_secs).to_string(),
                );
            (403, t)
        }
        // A server error, or a GET that "applied" and failed: nothing to apply, an HTML page.
        _ => html_answer(fault_status(fault)),
    }
}

fn fault_status(fault: &Fault) -> u16 {
    match fault {
        Fault::ServerError { status, .. }
        | Fault::ApplyThenFail { status, .. }
        | Fault::Flaky { status, .. } => *status,
        _ => 502,
    }
}

/// Authenticates, routes, and answers `200` or `304`; a `200` cut as `cut` says.
fn answer(st: &State, request: &Request, cut: Option<Cut>) -> (u16, ResponseTemplate) {
    if let Some(refused) = refuse_without_user_agent(request) {
        return refused;
    }
    match (bearer(request), &st.token) {
        (None, _) => {
            let body = json!({
                "message": "Requires authentication",
                "documentation_url": "https://docs.github.com/rest",
                "status": "401",
            });
            return (401, json_template(st, 401, &body));
        }
        (Some(given), Some(wanted)) if &given != wanted => {
            let body = json!({
                "message": "Bad credentials",
                "documentation_url": "https://docs.github.com/rest",
                "status": "401",
            });
            return (401, json_template(st, 401, &body));
        }
        _ => {}
    }
    let body = match route(request.url.path()) {
        Some((owner, name, route)) => serve(st, &owner, &name, &route, Paging::of(request)),
        None => Err(not_found()),
    };
    let (body, more) = match body {
        Ok(ok) => ok,
        Err((status, body)) => return (status, json_template(st, status, &body)),
    };
    let text = body.to_string();
    let etag = etag_of(&text);
    if header(request, "if-none-match").is_some_and(|given| etag_matches(&given, &etag)) {
        let t = rate_headers(ResponseTemplate::new(304), st, false)
            .insert_header("etag", etag.as_str());
        return (304, t);
    }
    let mut t = json_template(st, 200, &body).insert_header("etag", etag.as_str());
    if more {
        t = t.insert_header("link", next_link(request));
    }
    if let Some(cut) = cut {
        t = cut.apply(t, text.as_bytes(), "application/json; charset=utf-8");
    }
    (200, t)
}

/// What a route serves for the repository `owner/name`.
fn serve(st: &State, owner: &str, name: &str, route: &Route, paging: Paging) -> Answer {
    let (repo, _) = st.repo(owner, name).ok_or_else(not_found)?;
    let entry = |number: u64| st.pr(repo, number).ok_or_else(not_found);
    match route {
        Route::Pull(n) => Ok((pull_json(st, entry(*n)?), false)),
        Route::IssueComments(n) => {
            let pr = &entry(*n)?.pr;
            let items = pr.comments.iter().map(|c| issue_comment_json(pr, c));
            Ok(list(items.collect(), paging))
        }
        Route::Reviews(n) => {
            let pr = &entry(*n)?.pr;
            let items = pr
                .reviews
                .iter()
                .filter(|r| st.visible(r))
                .map(|r| review_json(pr, r));
            Ok(list(items.collect(), paging))
        }
        Route::ReviewComments(n) => Ok(list(review_comments_json(&entry(*n)?.pr), paging)),
        Route::RequestedReviewers(n) => {
            let pr = &entry(*n)?.pr;
            let users: Vec<Json> = st
                .requested
                .get(&pr.id)
                .into_iter()
                .flatten()
                .map(|login| {
                    // REST names Copilot's reviewer `Copilot`, and other bots with `[bot]`.
                    let shown = if login == "copilot-pull-request-reviewer" {
                        "Copilot".to_owned()
                    } else {
                        format!("{login}[bot]")
                    };
                    json!({"login": shown, "type": "Bot"})
                })
                .collect();
            Ok((json!({"users": users, "teams": []}), false))
        }
        Route::CheckRuns(sha) => {
            let checks = checks_of(st, repo, sha)?;
            let wanted = paging.check_name.as_deref();
            let runs: Vec<Json> = checks
                .iter()
                .filter_map(|c| match c {
                    FakeCheck::Run {
                        name,
                        status,
                        conclusion,
                    } if wanted.is_none_or(|w| w == name) => {
                        let app = st
                            .check_run_apps
                            .get(&(repo.clone(), sha.clone(), name.clone()))
                            .map_or("ci-app", String::as_str);
                        Some(json!({
                            "id": rest_id(name),
                            "name": name,
                            "head_sha": sha,
                            "status": status,
                            "conclusion": conclusion,
                            "app": {"slug": app},
                        }))
                    }
                    _ => None,
                })
                .collect();
            let total = runs.len();
            let (page, more) = paging.slice(runs);
            Ok((json!({"total_count": total, "check_runs": page}), more))
        }
        Route::Status(sha) => {
            let checks = checks_of(st, repo, sha)?;
            let statuses: Vec<(&str, &str)> = checks
                .iter()
                .filter_map(|c| match c {
                    FakeCheck::Status { context, state } => {
                        Some((context.as_str(), state.as_str()))
                    }
                    FakeCheck::Run { .. } => None,
                })
                .collect();
            Ok((combined_status_json(repo, sha, &statuses), false))
        }
        Route::Statuses(sha) => {
            // Newest first, as GitHub lists them: the fake keeps one per context, latest last.
            let checks = checks_of(st, repo, sha)?;
            let items: Vec<Json> = checks
                .iter()
                .rev()
                .filter_map(|c| match c {
                    FakeCheck::Status { context, state } => {
                        let creator = st
                            .status_creators
                            .get(&(repo.clone(), sha.clone(), context.clone()))
                            .map_or("ci-bot", String::as_str);
                        Some(json!({
                            "id": rest_id(context),
                            "context": context,
                            "state": state,
                            "creator": {"login": creator, "type": "User"},
                        }))
                    }
                    FakeCheck::Run { .. } => None,
                })
                .collect();
            Ok(list(items, paging))
        }
    }
}

fn list(items: Vec<Json>, paging: Paging) -> (Json, bool) {
    let (page, more) = paging.slice(items);
    (Json::Array(page), more)
}

/// The checks of commit `sha`: those set by name, else the one standing for the rolled-up state
/// of a pull request whose head it is. A commit the fake knows nothing of answers 422, as GitHub
/// does for a commit it does not have.
fn checks_of(st: &State, repo: &RepoId, sha: &str) -> Result<Vec<FakeCheck>, (u16, Json)> {
    if let Some(named) = st.checks.get(&(repo.clone(), sha.to_owned())) {
        return Ok(named.clone());
    }
    let head = st
        .prs
        .iter()
        .find(|e| &e.pr.repo == repo && e.pr.head_sha.0 == sha);
    match head {
        Some(e) => Ok(e
            .pr
            .checks
            .and_then(FakeCheck::standing_for)
            .into_iter()
            .collect()),
        None => Err((
            422,
            json!({
                "message": format!("No commit found for SHA: {sha}"),
                "documentation_url": "https://docs.github.com/rest/commits/commits",
                "status": "422",
            }),
        )),
    }
}

/// GitHub's combined status: `failure` if any context errored or failed, `pending` if there is
/// none or one is pending, else `success`.
fn combined_status_json(repo: &RepoId, sha: &str, statuses: &[(&str, &str)]) -> Json {
    let state = if statuses
        .iter()
        .any(|(_, s)| *s == "error" || *s == "failure")
    {
        "failure"
    } else if statuses.is_empty() || statuses.iter().any(|(_, s)| *s == "pending") {
        "pending"
    } else {
        "success"
    };
    let statuses: Vec<Json> = statuses
        .iter()
        .map(|(context, state)| json!({"id": rest_id(context), "context": context, "state": state}))
        .collect();
    json!({
        "state": state,
        "sha": sha,
        "total_count": statuses.len(),
        "statuses": statuses,
        "repository": {"full_name": repo.to_string()},
    })
}

/// A REST user: bots get `[bot]` after their GraphQL login and type `Bot`; a deleted account
/// is GitHub's `ghost`.
fn user_json(author: Option<&Author>) -> Json {
    let Some(author) = author else {
        return json!({"login": "ghost", "id": 10_137, "type": "User"});
    };
    let (login, kind) = match author.kind {
        AuthorKind::Bot if author.login.ends_with("[bot]") => (author.login.clone(), "Bot"),
        AuthorKind::Bot => (format!("{}[bot]", author.login), "Bot"),
        AuthorKind::Organization => (author.login.clone(), "Organization"),
        AuthorKind::Mannequin => (author.login.clone(), "Mannequin"),
        AuthorKind::User | AuthorKind::Unknown => (author.login.clone(), "User"),
    };
    json!({"login": login, "id": rest_id(&author.login), "type": kind})
}

fn html_url(pr: &PullRequest) -> String {
    if pr.url.is_empty() {
        format!("https://github.com/{}/pull/{}", pr.repo, pr.number)
    } else {
        pr.url.clone()
    }
}

fn pull_json(st: &State, e: &PrEntry) -> Json {
    let pr = &e.pr;
    json!({
        "number": pr.number,
        "node_id": pr.id,
        "state": if pr.state == PrState::Open { "open" } else { "closed" },
        "merged": pr.state == PrState::Merged,
        "title": pr.title,
        "html_url": html_url(pr),
        "updated_at": state::rfc3339(st.started + e.revision),
        "user": user_json(pr.author.as_ref()),
        "head": {"sha": pr.head_sha.0, "ref": pr.head_ref, "user": {"login": e.head_owner}},
        "base": {"ref": pr.base_ref},
    })
}

fn issue_comment_json(pr: &PullRequest, c: &review_core::model::IssueComment) -> Json {
    json!({
        "id": rest_id(&c.id.0),
        "node_id": c.id.0,
        "user": user_json(c.author.as_ref()),
        "body": c.body,
        "created_at": c.created_at,
        "updated_at": c.created_at,
        "html_url": if c.url.is_empty() { html_url(pr) } else { c.url.clone() },
    })
}

fn review_state(state: ReviewState) -> &'static str {
    match state {
        ReviewState::Approved => "APPROVED",
        ReviewState::ChangesRequested => "CHANGES_REQUESTED",
        ReviewState::Commented => "COMMENTED",
        ReviewState::Dismissed => "DISMISSED",
        ReviewState::Pending => "PENDING",
    }
}

fn review_json(pr: &PullRequest, r: &review_core::model::Review) -> Json {
    let mut review = json!({
        "id": rest_id(&r.id.0),
        "node_id": r.id.0,
        "user": user_json(r.author.as_ref()),
        "body": r.body,
        "state": review_state(r.state),
        "html_url": html_url(pr),
    });
    if let Some(submitted) = &r.submitted_at {
        review["submitted_at"] = json!(submitted);
    }
    if let Some(commit) = &r.commit {
        review["commit_id"] = json!(commit.0);
    }
    review
}

/// The review comments of a pull request, thread by thread; a reply names the thread's first
/// comment in `in_reply_to_id`.
fn review_comments_json(pr: &PullRequest) -> Vec<Json> {
    let mut out = Vec::new();
    for t in &pr.threads {
        let current = !t.is_outdated && t.subject_type == SubjectType::Line;
        let lines = t.lines.filter(|_| current);
        let first = t.comments.first().map(|c| rest_id(&c.id.0));
        for (i, c) in t.comments.iter().enumerate() {
            let mut comment = json!({
                "id": rest_id(&c.id.0),
                "node_id": c.id.0,
                "pull_request_review_id": c.review_id.as_ref().map_or(0, |r| rest_id(&r.0)),
                "user": user_json(c.author.as_ref()),
                "body": c.body,
                "path": t.path,
                "line": lines.map(|l| l.end),
                "start_line": lines.filter(|l| l.start != l.end).map(|l| l.start),
                "subject_type": if t.subject_type == SubjectType::File { "file" } else { "line" },
                "diff_hunk": c.diff_hunk.clone().unwrap_or_default(),
                "created_at": c.created_at,
                "updated_at": c.created_at,
                "html_url": if c.url.is_empty() { html_url(pr) } else { c.url.clone() },
            });
            if let (true, Some(first)) = (i > 0, first) {
                comment["in_reply_to_id"] = json!(first);
            }
            out.push(comment);
        }
    }
    out
}

/// FNV-1a, 64 bits: stable across runs and Rust versions, unlike `DefaultHasher`'s promise.
fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |h, b| {
        (h ^ u64::from(*b)).wrapping_mul(0x0000_0100_0000_01b3)
    })
}

/// A numeric REST id for a node id or name: stable, positive, and within JSON's safe integers.
fn rest_id(key: &str) -> u64 {
    fnv1a(key.as_bytes()) % 9_000_000_000 + 1_000_000_000
}

/// The weak `ETag` of a body, as GitHub writes them (`W/"..."`).
fn etag_of(body: &str) -> String {
    format!("W/\"{:016x}\"", fnv1a(body.as_bytes()))
}

/// Whether an `If-None-Match` value names `etag`: `*`, or one of a comma-separated list, with
/// the weak comparison HTTP asks for conditional `GET`s (the `W/` prefix does not count).
fn etag_matches(given: &str, etag: &str) -> bool {
    let strip = |t: &str| t.trim().trim_start_matches("W/").to_owned();
    given
        .split(',')
        .any(|t| t.trim() == "*" || strip(t) == strip(etag))
}

/// The `Link` header naming the next page of the list requested.
fn next_link(request: &Request) -> String {
    let mut url = request.url.clone();
    let paging = Paging::of(request);
    let pairs: Vec<(String, String)> = request
        .url
        .query_pairs()
        .filter(|(k, _)| k != "page")
        .map(|(k, v)| (k.into_owned(), v.into_owned()))
        .collect();
    url.query_pairs_mut()
        .clear()
        .extend_pairs(pairs)
        .append_pair("page", &(paging.page + 1).to_string());
    format!("<{url}>; rel=\"next\"")
}

/// GitHub's rate-limit headers for the REST (`core`) budget, counting this answer if it is
/// `charged`.
fn rate_headers(template: ResponseTemplate, st: &State, charged: bool) -> ResponseTemplate {
    let used = st.rest.iter().filter(|r| r.charged).count() + usize::from(charged);
    template
        .insert_header("x-github-request-id", format!("FAKE:R{}", st.rest.len()))
        .insert_header("x-ratelimit-limit", REST_PER_HOUR.to_string())
        .insert_header(
            "x-ratelimit-remaining",
            REST_PER_HOUR.saturating_sub(used).to_string(),
        )
        .insert_header("x-ratelimit-used", used.to_string())
        .insert_header("x-ratelimit-reset", st.reset_at.to_string())
        .insert_header("x-ratelimit-resource", "core")
}

fn json_template(st: &State, status: u16, body: &Json) -> ResponseTemplate {
    let charged = status == 200 || status == 404;
    rate_headers(ResponseTemplate::new(status), st, charged).set_body_raw(
        body.to_string().into_bytes(),
        "application/json; charset=utf-8",
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn routes_with_and_without_the_enterprise_prefix() {
        let rows: &[(&str, Option<Route>)] = &[
            ("/repos/a/b/pulls/7", Some(Route::Pull(7))),
            ("/api/v3/repos/a/b/pulls/7", Some(Route::Pull(7))),
            (
                "/repos/a/b/issues/7/comments",
                Some(Route::IssueComments(7)),
            ),
            ("/repos/a/b/pulls/7/reviews", Some(Route::Reviews(7))),
            (
                "/repos/a/b/pulls/7/comments",
                Some(Route::ReviewComments(7)),
            ),
            (
                "/repos/a/b/commits/abc/check-runs",
                Some(Route::CheckRuns("abc".into())),
            ),
            (
                "/repos/a/b/commits/abc/status",
                Some(Route::Status("abc".into())),
            ),
            ("/repos/a/b/pulls/x", None),
            ("/repos/a/b/pulls/-1", None),
            ("/repos/a/b", None),
            ("/graphql", None),
            ("/repos/a/b/pulls/7/files", None),
        ];
        for (path, want) in rows {
            assert_eq!(route(path).map(|(_, _, r)| r), *want, "{path}");
        }
    }

    #[test]
    fn etags_compare_weakly_and_in_lists() {
        let etag = etag_of("[]");
        assert!(etag.starts_with("W/\"") && etag.ends_with('"'));
        assert!(etag_matches(&etag, &etag));
        assert!(etag_matches(etag.trim_start_matches("W/"), &etag));
        assert!(etag_matches(&format!("\"x\", {etag}"), &etag));
        assert!(etag_matches("*", &etag));
        assert!(!etag_matches("W/\"0\"", &etag));
        assert_ne!(etag_of("[]"), etag_of("[1]"));
    }

    #[test]
    fn rollup_table() {
        use ChecksState::{Failure, Pending, Success};
        let rows: &[(&[FakeCheck], Option<ChecksState>)] = &[
            (&[], None),
            (&[FakeCheck::passed("a")], Some(Success)),
            (
                &[FakeCheck::run("a", "completed", Some("skipped"))],
                Some(Success),
            ),
            (
                &[FakeCheck::passed("a"), FakeCheck::running("b")],
                Some(Pending),
            ),
            (
                &[FakeCheck::failed("a"), FakeCheck::running("b")],
                Some(Failure),
            ),
            (
                &[FakeCheck::run("a", "completed", Some("timed_out"))],
                Some(Failure),
            ),
            (&[FakeCheck::status("s", "error")], Some(Failure)),
            (&[FakeCheck::status("s", "pending")], Some(Pending)),
            (&[FakeCheck::status("s", "success")], Some(Success)),
            (&[FakeCheck::run("a", "queued", None)], Some(Pending)),
        ];
        for (checks, want) in rows {
            assert_eq!(FakeCheck::rollup(checks), *want, "{checks:?}");
        }
    }

    #[test]
    fn every_rolled_up_state_has_a_standing_check_that_rolls_up_alike() {
        use ChecksState::{Error, Expected, Failure, Pending, Success};
        let rows = [
            (Success, Success),
            (Failure, Failure),
            (Pending, Pending),
            (Error, Failure),
            (Expected, Pending),
        ];
        for (state, rolled) in rows {
            let check = FakeCheck::standing_for(state)
                .into_iter()
                .collect::<Vec<_>>();
            assert_eq!(FakeCheck::rollup(&check), Some(rolled), "{state:?}");
        }
    }
}
