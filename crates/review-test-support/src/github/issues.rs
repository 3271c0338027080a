//! The repositories' issues, as far as follow-ups need them: `POST /repos/{o}/{r}/issues` opens
//! one as the viewer (numbers shared with the pull requests, as on GitHub), and `GET
//! /repos/{o}/{r}/issues` lists them newest first, filtered by `creator`, paged. A repository
//! with its issues turned off ([`super::FakeGitHub::turn_off_issues`]) answers `410 Gone` to
//! both, as GitHub does.
//!
//! Faults: a request answers to `rest` and `rest:open-issue` (the `POST`) or `rest:issues` (the
//! list). [`Fault::ApplyThenFail`] opens the issue and loses the answer.

use std::sync::{Arc, Mutex, PoisonError};

use review_core::model::RepoId;
use serde_json::{Value as Json, json};
use wiremock::{Request, Respond, ResponseTemplate};

use super::Fault;
use super::rest::{REST_OPERATION, RestRecorded, refused_token};
use super::server::{html_answer, take_faults};
use super::state::State;

/// An issue of the fake.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FakeIssue {
    /// Its number (shared with the repository's pull requests).
    pub number: u64,
    /// Its title.
    pub title: String,
    /// Its body.
    pub body: String,
    /// Its labels.
    pub labels: Vec<String>,
    /// Who opened it.
    pub author: String,
}

impl FakeIssue {
    fn json(&self, repo: &RepoId) -> Json {
        json!({
            "number": self.number,
            "title": self.title,
            "body": self.body,
            "state": "open",
            "html_url": format!("https://github.com/{repo}/issues/{}", self.number),
            "user": {"login": self.author, "type": "User"},
            "labels": self.labels.iter().map(|l| json!({"name": l})).collect::<Vec<_>>(),
        })
    }
}

fn answer(status: u16, body: &Json) -> (u16, ResponseTemplate) {
    (
        status,
        ResponseTemplate::new(status).set_body_raw(
            body.to_string().into_bytes(),
            "application/json; charset=utf-8",
        ),
    )
}

fn gone() -> (u16, ResponseTemplate) {
    answer(
        410,
        &json!({"message": "Issues are disabled for this repo", "status": "410"}),
    )
}

fn not_found() -> (u16, ResponseTemplate) {
    answer(404, &json!({"message": "Not Found", "status": "404"}))
}

/// `(owner, name)` of `/repos/{o}/{r}/issues`, with or without the Enterprise prefix.
fn repo_of(path: &str) -> Option<(String, String)> {
    let path = path.strip_prefix("/api/v3").unwrap_or(path);
    let segments: Vec<&str> = path.trim_start_matches('/').split('/').collect();
    match segments.as_slice() {
        ["repos", owner, name, "issues"] => Some(((*owner).to_owned(), (*name).to_owned())),
        _ => None,
    }
}

/// The next number of `repo`: after every pull request and issue it has.
fn next_number(st: &State, repo: &RepoId) -> u64 {
    let prs = st
        .prs
        .iter()
        .filter(|e| &e.pr.repo == repo)
        .map(|e| e.pr.number);
    let issues = st.issues.get(repo).into_iter().flatten().map(|i| i.number);
    prs.chain(issues).max().unwrap_or(0) + 1
}

fn open(st: &mut State, request: &Request) -> (u16, ResponseTemplate) {
    if let Some(refused) = refused_token(st, request, true) {
        return refused;
    }
    let Some((repo, _)) = repo_of(request.url.path())
        .and_then(|(o, n)| st.repo(&o, &n).map(|(r, b)| (r.clone(), b.to_owned())))
    else {
        return not_found();
    };
    if st.issues_off.contains(&repo) {
        return gone();
    }
    let body: Json = serde_json::from_slice(&request.body).unwrap_or(Json::Null);
    let title = body.get("title").and_then(Json::as_str).unwrap_or("");
    if title.trim().is_empty() || title.chars().count() > 256 {
        return answer(
            422,
            &json!({"message": "Validation Failed", "status": "422"}),
        );
    }
    let labels = body
        .get("labels")
        .and_then(Json::as_array)
        .map(|l| {
            l.iter()
                .filter_map(Json::as_str)
                .map(str::to_owned)
                .collect()
        })
        .unwrap_or_default();
    let issue = FakeIssue {
        number: next_number(st, &repo),
        title: title.to_owned(),
        body: body
            .get("body")
            .and_then(Json::as_str)
            .unwrap_or("")
            .to_owned(),
        labels,
        author: st.viewer.clone(),
    };
    let json = issue.json(&repo);
    st.issues.entry(repo).or_default().push(issue);
    answer(201, &json)
}

fn list(st: &State, request: &Request) -> (u16, ResponseTemplate) {
    if let Some(refused) = refused_token(st, request, false) {
        return refused;
    }
    let Some((repo, _)) = repo_of(request.url.path())
        .and_then(|(o, n)| st.repo(&o, &n).map(|(r, b)| (r.clone(), b.to_owned())))
    else {
        return not_found();
    };
    if st.issues_off.contains(&repo) {
        return gone();
    }
    let mut per_page = 30;
    let mut page = 1;
    let mut creator = None;
    for (key, value) in request.url.query_pairs() {
        match key.as_ref() {
            "per_page" => per_page = value.parse::<usize>().unwrap_or(30).clamp(1, 100),
            "page" => page = value.parse::<usize>().unwrap_or(1).max(1),
            "creator" => creator = Some(value.into_owned()),
            _ => {}
        }
    }
    let mut items: Vec<&FakeIssue> = st
        .issues
        .get(&repo)
        .into_iter()
        .flatten()
        .filter(|i| {
            creator
                .as_ref()
                .is_none_or(|c| c.eq_ignore_ascii_case(&i.author))
        })
        .collect();
    items.reverse();
    let page: Vec<Json> = items
        .into_iter()
        .skip((page - 1) * per_page)
        .take(per_page)
        .map(|i| i.json(&repo))
        .collect();
    answer(200, &Json::from(page))
}

/// The wiremock responder for `POST` and `GET /repos/{o}/{r}/issues`.
#[derive(Debug)]
pub(crate) struct IssuesResponder {
    pub state: Arc<Mutex<State>>,
}

impl Respond for IssuesResponder {
    fn respond(&self, request: &Request) -> ResponseTemplate {
        let mut st = self.state.lock().unwrap_or_else(PoisonError::into_inner);
        let posting = request.method.as_str() == "POST";
        st.rest.push(RestRecorded::of(request));
        let aimed = format!(
            "{REST_OPERATION}:{}",
            if posting { "open-issue" } else { "issues" }
        );
        let (delay, fault, _) = take_faults(&mut st, &[REST_OPERATION, &aimed], &[]);
        let (status, template) = match fault {
            Some(Fault::ApplyThenFail { status, .. }) => {
                if posting {
                    open(&mut st, request);
                } else {
                    list(&st, request);
                }
                html_answer(status)
            }
            Some(Fault::ServerError { status, .. } | Fault::Flaky { status, .. }) => {
                html_answer(status)
            }
            _ if posting => open(&mut st, request),
            _ => list(&st, request),
        };
        if let Some(last) = st.rest.last_mut() {
            last.status = status;
            last.charged = status < 300;
        }
        match delay {
            Some(d) => template.set_delay(d),
            None => template,
        }
    }
}
