//! Follow-up issues through the REST API: the one the token's owner opened with a key in its
//! body (`GET /repos/{o}/{r}/issues?creator=...`), and a new one (`POST /repos/{o}/{r}/issues`),
//! sent once. A repository with its issues turned off answers `410 Gone` to both.

use http::{HeaderMap, HeaderValue, StatusCode};
use review_core::defer::{IssueDraft, IssueRef, Opened, key_in};
use review_core::model::RepoId;

use crate::probe::{ACCEPT, API_VERSION, Probe, ProbeError, path_segment};
use crate::transport::{Limits, Method, Repeat, Request, Retries, Verdict, error_message, shorten};

/// How many pages of the owner's issues (100 each, newest first) are searched for a key: an
/// issue a stopped run opened is among the newest.
const SEARCH_PAGES: u32 = 3;

impl Probe {
    fn retries(&self) -> Retries {
        Retries {
            max_attempts: self.policy.max_attempts,
            base_backoff: self.policy.base_backoff,
            limits: Limits::Report,
        }
    }

    fn uri(&self, path: &str) -> Result<http::Uri, ProbeError> {
        format!("{}{path}", self.prefix)
            .parse()
            .map_err(|e| ProbeError::Build(format!("`{path}`: {e}")))
    }

    /// The issue of `repo` opened by `creator` (any author when `None`) whose body carries the
    /// follow-up key `key`, among the creator's newest 300 issues; `None` when there is none, or
    /// when the repository has its issues turned off.
    ///
    /// # Errors
    /// A [`ProbeError`]: the token refused, GitHub unavailable, an answer that does not read.
    pub async fn find_issue(
        &self,
        repo: &RepoId,
        creator: Option<&str>,
        key: &str,
    ) -> Result<Option<IssueRef>, ProbeError> {
        let root = format!(
            "/repos/{}/{}/issues",
            path_segment(&repo.owner),
            path_segment(&repo.name)
        );
        let creator = creator
            .map(|c| format!("&creator={}", path_segment(c.trim_end_matches("[bot]"))))
            .unwrap_or_default();
        for page in 1..=SEARCH_PAGES {
            let path = format!(
                "{root}?state=all&sort=created&direction=desc&per_page=100&page={page}{creator}"
            );
            let mut headers = HeaderMap::new();
            headers.insert(http::header::ACCEPT, HeaderValue::from_static(ACCEPT));
            headers.insert(
                "x-github-api-version",
                HeaderValue::from_static(API_VERSION),
            );
            let request = Request {
                method: Method::Get(headers),
                path: self.uri(&path)?,
                timeout: self.policy.request_timeout,
                repeat: Repeat::Safe,
            };
            let answer = self
                .transport
                .send(
                    &request,
                    &self.retries(),
                    None,
                    |_| {},
                    |answer| match answer.status {
                        s if s.is_success() => Verdict::Done(Some(answer.body)),
                        StatusCode::GONE => Verdict::Done(None),
                        StatusCode::NOT_FOUND => {
                            Verdict::Fail(ProbeError::NotFound { path: path.clone() })
                        }
                        s => Verdict::Fail(ProbeError::Http {
                            status: s.as_u16(),
                            message: error_message(&answer.body),
                        }),
                    },
                )
                .await?;
            let Some(body) = answer else {
                return Ok(None);
            };
            let items: Vec<serde_json::Value> =
                serde_json::from_str(&body).map_err(|e| ProbeError::Malformed {
                    path: path.clone(),
                    reason: format!("{e}: {}", shorten(&body)),
                })?;
            let found = items.iter().find_map(|item| {
                // Pull requests are issues too in this list: never one of ours.
                if item.get("pull_request").is_some() {
                    return None;
                }
                let body = item.get("body").and_then(serde_json::Value::as_str)?;
                (key_in(body) == Some(key))
                    .then(|| issue_ref(item))
                    .flatten()
            });
            if found.is_some() {
                return Ok(found);
            }
            if items.len() < 100 {
                break;
            }
        }
        Ok(None)
    }

    /// Opens `draft` on `repo`. Sent once: a lost answer is [`ProbeError::Unavailable`], and
    /// [`Probe::find_issue`] tells whether it landed. A repository with its issues turned off
    /// is [`Opened::IssuesOff`].
    ///
    /// # Errors
    /// A [`ProbeError`]: the token refused or may not open issues (403), a draft GitHub refuses
    /// (422), GitHub unavailable or its answer lost.
    pub async fn open_issue(
        &self,
        repo: &RepoId,
        draft: &IssueDraft,
    ) -> Result<Opened, ProbeError> {
        let path = format!(
            "/repos/{}/{}/issues",
            path_segment(&repo.owner),
            path_segment(&repo.name)
        );
        let mut body = serde_json::json!({ "title": draft.title, "body": draft.body });
        if !draft.labels.is_empty() {
            body["labels"] = serde_json::Value::from(draft.labels.clone());
        }
        let request = Request {
            method: Method::Post(&body),
            path: self.uri(&path)?,
            timeout: self.policy.request_timeout,
            repeat: Repeat::Once,
        };
        self.transport
            .send(
                &request,
                &self.retries(),
                None,
                |_| {},
                |answer| match answer.status {
                    s if s.is_success() => {
                        let parsed = serde_json::from_str::<serde_json::Value>(&answer.body)
                            .ok()
                            .and_then(|v| issue_ref(&v));
                        match parsed {
                            Some(issue) => Verdict::Done(Opened::Issue(issue)),
                            None => Verdict::Fail(ProbeError::Malformed {
                                path: path.clone(),
                                reason: format!("no issue in {}", shorten(&answer.body)),
                            }),
                        }
                    }
                    StatusCode::GONE => Verdict::Done(Opened::IssuesOff),
                    StatusCode::NOT_FOUND => {
                        Verdict::Fail(ProbeError::NotFound { path: path.clone() })
                    }
                    s => Verdict::Fail(ProbeError::Http {
                        status: s.as_u16(),
                        message: error_message(&answer.body),
                    }),
                },
            )
            .await
    }
}

/// The number and link of an issue in a REST answer.
fn issue_ref(item: &serde_json::Value) -> Option<IssueRef> {
    Some(IssueRef {
        number: item.get("number")?.as_u64()?,
        url: item.get("html_url")?.as_str()?.to_owned(),
    })
}
