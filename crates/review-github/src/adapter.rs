//! [`GitHubHost`]: the review-host port on GitHub.
//!
//! Reads are complete (see [`crate::reader`]). Resolves and minimizes go several to one GraphQL
//! document under aliases, [`WriteSettings::batch_size`] at a time, each alias's result mapped
//! back to its thread. Replies go one at a time, at least [`WriteSettings::post_interval`] apart
//! (GitHub asks for about a second between content-creating requests), each carrying the
//! automated header and a hidden idempotency key. A post is sent once and never again: one whose
//! answer was lost (a timeout, an answer cut off, a 5xx) may have landed, or may land a little
//! later, so the thread (or the pull request's comments) is read again for its key, with
//! growing pauses, for up to [`WriteSettings::post_check`]. Found, it landed; still absent, the
//! post ends in an error that says it may have been posted ([`may_have_been_posted`]), and the
//! next run's look for the key decides. Before the first reply, the viewer's pending (draft)
//! review is looked for: a reply would vanish into it.

use std::time::{Duration, Instant};

use async_trait::async_trait;
use cynic::{MutationBuilder, QueryBuilder};
use review_core::model::{CommentId, PullRequest, RepoId, ThreadId};
use review_core::ports::{HostError, MinimizeReason, PostedComment, ReviewHost};
use review_core::post;
use tokio::sync::Mutex;

use crate::client::{ApiError, Client, ClientError, Repeat};
use crate::queries::{self as q, batch_document};
use crate::reader::{ReadError, Reader};

/// How writes are paced and batched.
#[derive(Debug, Clone)]
pub struct WriteSettings {
    /// Resolves or minimizes per GraphQL document. GitHub counts each mutation as 5 points
    /// against a secondary limit of 2,000 points a minute, and asks for no more than about 80
    /// content-creating requests a minute; 20 per document keeps one document at 100 points and
    /// a failed document cheap to retry.
    pub batch_size: usize,
    /// The least time between two posts (replies, comments).
    pub post_interval: Duration,
    /// The header every post must start with.
    pub header: String,
    /// How long to keep looking for a post whose answer was lost (a timeout, an answer cut off,
    /// a 5xx) before giving up with "may have been posted; run again". The first look is at
    /// once, the next after a sixteenth of this (at most a second), each pause twice the one
    /// before, the last at the end of it.
    pub post_check: Duration,
}

impl Default for WriteSettings {
    fn default() -> Self {
        Self {
            batch_size: 20,
            post_interval: Duration::from_secs(1),
            header: review_core::gate::DEFAULT_AUTOMATED_HEADER.to_owned(),
            post_check: Duration::from_secs(60),
        }
    }
}

/// Why a post ended uncertain (the core's, re-exported where the adapter's users found it).
pub use review_core::ports::MaybePosted;

/// Whether a failed post may still have been posted ([`MaybePosted`]): run again, and the next
/// run's look for its key decides ([`HostError::may_have_been_posted`]).
pub fn may_have_been_posted(e: &HostError) -> bool {
    e.may_have_been_posted()
}

/// The review host on GitHub, for one pull request's writes.
#[derive(Debug)]
pub struct GitHubHost {
    client: Client,
    repo: RepoId,
    number: u64,
    settings: WriteSettings,
    state: Mutex<WriteState>,
}

#[derive(Debug, Default)]
struct WriteState {
    pending_checked: bool,
    last_post: Option<Instant>,
}

fn unavailable(message: impl Into<String>) -> HostError {
    Failure::Unavailable.error(message.into(), None)
}

/// How a failed request ends in the port: GitHub's rate limit spent past what the client may
/// wait is [`HostError::Throttled`], a refused token [`HostError::Unauthorized`], anything else
/// [`HostError::Unavailable`].
#[derive(Debug, Clone, Copy)]
enum Failure {
    Throttled(Duration),
    Unauthorized,
    Unavailable,
}

impl Failure {
    fn of(e: &ClientError) -> Self {
        match e {
            ClientError::RateLimited { reset_in } => Self::Throttled(*reset_in),
            ClientError::BadCredentials => Self::Unauthorized,
            _ => Self::Unavailable,
        }
    }

    fn error(self, message: String, source: Option<ClientError>) -> HostError {
        let source = source.map(|e| Box::new(e) as review_core::ports::BoxError);
        match self {
            Self::Throttled(reset_in) => HostError::Throttled {
                message,
                reset_in: Some(reset_in),
                source,
            },
            Self::Unauthorized => HostError::Unauthorized { message, source },
            Self::Unavailable => HostError::Unavailable { message, source },
        }
    }
}

/// The port's error for a request that failed with `e`, said as `message`, `e` kept as the
/// source.
fn host_error(message: String, e: ClientError) -> HostError {
    // What the server's API lacks goes into the one line callers print.
    let message = match &e {
        ClientError::Unsupported(missing) if !message.contains(&missing.to_string()) => {
            format!("{message}: {missing}")
        }
        _ => message,
    };
    Failure::of(&e).error(message, Some(e))
}

fn from_read(e: ReadError) -> HostError {
    match e {
        ReadError::RepoNotFound(_) | ReadError::PullRequestNotFound { .. } => {
            HostError::NotFound(e.to_string())
        }
        // The cause goes into the message: callers print a host error on one line.
        ReadError::Request { what, source } => {
            Failure::of(&source).error(format!("reading {what} failed: {source}"), None)
        }
        other => unavailable(other.to_string()),
    }
}

/// How GitHub's internal error starts ("Something went wrong while executing your query. This
/// may be the result of a timeout, or it could be a GitHub bug."): it carries no `type`, and
/// is a failure of GitHub's, not a refusal of the request.
const INTERNAL_ERROR: &str = "Something went wrong while executing your query";

fn is_internal(e: &ApiError) -> bool {
    e.kind.is_none() && e.message.starts_with(INTERNAL_ERROR)
}

/// The port's error for GraphQL errors on a mutation field: not found, GitHub's own failure
/// (unavailable: the field was not applied, and may be repeated), or a refusal.
fn from_api(errors: &[&ApiError]) -> HostError {
    let message = errors
        .iter()
        .map(|e| e.message.as_str())
        .collect::<Vec<_>>()
        .join("; ");
    if errors
        .iter()
        .any(|e| e.kind.as_deref() == Some("NOT_FOUND"))
    {
        HostError::NotFound(message)
    } else if !errors.is_empty() && errors.iter().all(|e| is_internal(e)) {
        unavailable(message)
    } else {
        HostError::Refused(message)
    }
}

impl GitHubHost {
    /// A host for `repo#number` over `client`.
    pub fn new(client: Client, repo: RepoId, number: u64, settings: WriteSettings) -> Self {
        Self {
            client,
            repo,
            number,
            settings,
            state: Mutex::new(WriteState::default()),
        }
    }

    /// Posts a reply in the PR author's own words (`review_core::post::own_words_body`: no
    /// automated header, but the idempotency key), once: the follow-up's reply-only threads,
    /// the one place the tool writes in a thread a person took part in, because the words are
    /// the author's. Not part of the `ReviewHost` port on purpose.
    ///
    /// # Errors
    /// As [`ReviewHost::reply`], and `Refused` for a body without a key.
    pub async fn reply_in_own_words(
        &self,
        thread: &ThreadId,
        body: &str,
    ) -> Result<PostedComment, HostError> {
        let Some(key) = post::find_key(body).map(str::to_owned) else {
            return Err(HostError::Refused(
                "a reply must carry the idempotency key".to_owned(),
            ));
        };
        self.check_pending_review().await?;
        self.post_once("reply", self.post_reply(thread, body), || {
            self.landed(thread, &key)
        })
        .await
    }

    /// The client (for its request and point counts).
    pub fn client(&self) -> &Client {
        &self.client
    }

    /// Runs `single` (a typed one-field mutation) for each item, `batch_size` per document, and
    /// returns one result per item in order.
    async fn batched(
        &self,
        name: &str,
        single: &str,
        items: &[serde_json::Map<String, serde_json::Value>],
    ) -> Vec<Result<(), HostError>> {
        let mut results = Vec::with_capacity(items.len());
        // Once the budget is spent or the token refused, the later batches are not sent: they
        // would fail the same way.
        let mut stopped: Option<(Failure, String)> = None;
        for chunk in items.chunks(self.settings.batch_size.max(1)) {
            if let Some((failure, message)) = &stopped {
                results.extend(
                    chunk
                        .iter()
                        .map(|_| Err(failure.error(message.clone(), None))),
                );
                continue;
            }
            let Some(document) = batch_document(single, name, chunk.len()) else {
                results.extend(
                    chunk
                        .iter()
                        .map(|_| Err(HostError::Refused("cannot build the batch".to_owned()))),
                );
                continue;
            };
            let mut variables = serde_json::Map::new();
            for (i, vars) in chunk.iter().enumerate() {
                for (k, v) in vars {
                    variables.insert(format!("{k}{i}"), v.clone());
                }
            }
            let body = serde_json::json!({
                "query": document,
                "variables": variables,
                "operationName": name,
            });
            match self
                .client
                .send::<serde_json::Map<String, serde_json::Value>>(&body, Repeat::Safe)
                .await
            {
                Err(e) => {
                    let message = e.to_string();
                    let failure = Failure::of(&e);
                    if !matches!(failure, Failure::Unavailable) {
                        stopped = Some((failure, message.clone()));
                    }
                    results.extend(
                        chunk
                            .iter()
                            .map(|_| Err(failure.error(message.clone(), None))),
                    );
                }
                Ok(response) => {
                    let data = response.data.unwrap_or_default();
                    for i in 0..chunk.len() {
                        let alias = format!("r{i}");
                        let errors: Vec<&ApiError> = response
                            .errors
                            .iter()
                            .filter(|e| e.top_field() == Some(alias.as_str()))
                            .collect();
                        let landed = data.get(&alias).is_some_and(|v| !v.is_null());
                        results.push(if !errors.is_empty() {
                            Err(from_api(&errors))
                        } else if landed {
                            Ok(())
                        } else if !response.errors.is_empty() {
                            // Errors that name no alias: they may concern this one.
                            Err(from_api(&response.errors.iter().collect::<Vec<_>>()))
                        } else {
                            Err(HostError::Refused(format!(
                                "GitHub returned nothing for {alias}"
                            )))
                        });
                    }
                }
            }
        }
        results
    }

    async fn check_pending_review(&self) -> Result<(), HostError> {
        let mut state = self.state.lock().await;
        if state.pending_checked {
            return Ok(());
        }
        let number = i32::try_from(self.number)
            .map_err(|_| HostError::NotFound(format!("#{}", self.number)))?;
        let op = q::ViewerPendingReview::build(q::PullRequestVariables {
            owner: self.repo.owner.clone(),
            name: self.repo.name.clone(),
            number,
        });
        let response = self
            .client
            .run(&op, Repeat::Safe)
            .await
            .map_err(|e| host_error("cannot check for a pending review".to_owned(), e))?;
        let pending = response
            .data
            .and_then(|d| d.repository)
            .and_then(|r| r.pull_request)
            .and_then(|p| p.reviews)
            .and_then(|r| r.nodes)
            .is_some_and(|nodes| nodes.into_iter().flatten().next().is_some());
        if pending {
            return Err(HostError::Refused(format!(
                "you have a pending (draft) review on {}#{}: a reply would be absorbed into it \
                 and nobody would see it; submit or discard the draft first",
                self.repo, self.number
            )));
        }
        state.pending_checked = true;
        Ok(())
    }

    async fn pace(&self) {
        let mut state = self.state.lock().await;
        if let Some(last) = state.last_post {
            let since = last.elapsed();
            if since < self.settings.post_interval {
                tokio::time::sleep(self.settings.post_interval - since).await;
            }
        }
        state.last_post = Some(Instant::now());
    }

    /// Whether a comment carrying `key` is already in `thread` (reads every page). "No" only
    /// when every comment GitHub counts was read: an unread one may be it.
    async fn landed(
        &self,
        thread: &ThreadId,
        key: &str,
    ) -> Result<Option<PostedComment>, HostError> {
        let reader = Reader::new(&self.client);
        let mut after = None;
        let mut read = 0;
        loop {
            let page = reader
                .thread_comments(thread, after)
                .await
                .map_err(from_read)?;
            if let Some(c) = page
                .comments
                .iter()
                .find(|c| post::find_key(&c.body) == Some(key))
            {
                return Ok(Some(PostedComment {
                    id: c.id.clone(),
                    url: c.url.clone(),
                }));
            }
            read += page.comments.len();
            match page.next {
                Some(n) if page.lost == 0 => after = Some(n),
                _ if page.lost > 0 || read < page.total => {
                    return Err(unavailable(format!(
                        "GitHub gave {read} of the {} comments of thread {thread}",
                        page.total
                    )));
                }
                _ => return Ok(None),
            }
        }
    }

    /// The idempotency key of a body the tool may post: it carries the key and starts with the
    /// automated-comment header (invariant 8), or it is refused before anything is sent.
    fn key_of_marked(&self, body: &str, what: &str) -> Result<String, HostError> {
        if body.trim().is_empty() {
            return Err(HostError::Refused(format!("a {what} cannot be empty")));
        }
        let Some(key) = post::find_key(body) else {
            return Err(HostError::Refused(format!(
                "a {what} must carry the idempotency key (review_core::post::marked_body)"
            )));
        };
        if !post::is_marked(body, &self.settings.header) {
            return Err(HostError::Refused(format!(
                "a {what} must start with the automated-comment header"
            )));
        }
        Ok(key.to_owned())
    }

    /// Posts with `send`, once and never again; when the answer leaves it uncertain whether the
    /// post landed, looks for it with `landed` (see [`GitHubHost::look_for`]), so a post never
    /// appears twice.
    async fn post_once<SF, L, LF>(
        &self,
        what: &str,
        send: SF,
        landed: L,
    ) -> Result<PostedComment, HostError>
    where
        SF: Future<Output = Result<PostedComment, ClientError>>,
        L: Fn() -> LF,
        LF: Future<Output = Result<Option<PostedComment>, HostError>>,
    {
        match send.await {
            Ok(posted) => Ok(posted),
            Err(ClientError::Uncertain(why)) => self.look_for(what, &why, landed).await,
            // GitHub's internal error "may be the result of a timeout": the post may have landed.
            Err(ClientError::Http {
                status: 200,
                message,
            }) if message.contains(INTERNAL_ERROR) => {
                self.look_for(what, "GitHub answered with its internal error", landed)
                    .await
            }
            Err(ClientError::Http {
                status: 200,
                message,
            }) => {
                let not_found = message.to_ascii_lowercase().contains("could not resolve");
                Err(if not_found {
                    HostError::NotFound(message)
                } else {
                    HostError::Refused(message)
                })
            }
            Err(e) => Err(host_error(format!("posting the {what} failed: {e}"), e)),
        }
    }

    /// Looks for a post whose answer was lost (`why`) with `landed`: at once, then after growing
    /// pauses until [`WriteSettings::post_check`] has passed. Found, it is the post. Otherwise
    /// the error says it may have been posted, with a [`MaybePosted`] source; the post is not
    /// sent again, as it may still land: the next run's look for its key decides.
    async fn look_for<L, LF>(
        &self,
        what: &str,
        why: &str,
        landed: L,
    ) -> Result<PostedComment, HostError>
    where
        L: Fn() -> LF,
        LF: Future<Output = Result<Option<PostedComment>, HostError>>,
    {
        let budget = self.settings.post_check;
        let started = Instant::now();
        let mut pause = (budget / 16).min(Duration::from_secs(1));
        let mut failed: Option<String>;
        loop {
            match landed().await {
                Ok(Some(posted)) => return Ok(posted),
                Ok(None) => failed = None,
                // The thread or pull request is gone: nothing can have landed there.
                Err(e @ HostError::NotFound(_)) => return Err(e),
                Err(
                    HostError::Unavailable { message, .. }
                    | HostError::Throttled { message, .. }
                    | HostError::Unauthorized { message, .. }
                    | HostError::Refused(message),
                ) => {
                    failed = Some(message);
                }
            }
            let elapsed = started.elapsed();
            if elapsed >= budget {
                break;
            }
            tokio::time::sleep(pause.min(budget - elapsed)).await;
            pause = pause.saturating_mul(2);
        }
        let looked = started.elapsed();
        let message = match failed {
            None => format!(
                "the {what} may have been posted ({why}): it did not show up within {} of \
                 looking, and it is not sent again; run again to check: the next run looks for \
                 it first",
                crate::transport::seconds(looked)
            ),
            Some(failure) => format!(
                "the {what} may have been posted ({why}), and looking for it failed \
                 ({failure}); it is not sent again; run again to check: the next run looks for \
                 it first"
            ),
        };
        Err(HostError::Unavailable {
            message,
            source: Some(Box::new(MaybePosted { looked })),
        })
    }

    /// The PR comment carrying `key`, if one landed.
    async fn landed_on_pr(&self, key: &str) -> Result<Option<PostedComment>, HostError> {
        let pr = Reader::new(&self.client)
            .pull_request(&self.repo, self.number)
            .await
            .map_err(from_read)?;
        Ok(pr
            .comments
            .iter()
            .find(|c| post::find_key(&c.body) == Some(key))
            .map(|c| PostedComment {
                id: c.id.clone(),
                url: c.url.clone(),
            }))
    }

    async fn post_comment(&self, subject: &str, body: &str) -> Result<PostedComment, ClientError> {
        self.pace().await;
        let op = q::AddPrComment::build(q::CommentVariables {
            subject_id: cynic::Id::new(subject),
            body: body.to_owned(),
        });
        let response = self.client.run(&op, Repeat::Once).await?;
        let posted = response
            .data
            .and_then(|d| d.add_comment)
            .and_then(|p| p.comment_edge)
            .and_then(|e| e.node);
        posted
            .map(|c| PostedComment {
                id: CommentId(c.id.into_inner()),
                url: c.url.0,
            })
            .ok_or_else(|| ClientError::Http {
                status: 200,
                message: response
                    .errors
                    .iter()
                    .map(|e| e.message.as_str())
                    .collect::<Vec<_>>()
                    .join("; "),
            })
    }

    async fn post_reply(
        &self,
        thread: &ThreadId,
        body: &str,
    ) -> Result<PostedComment, ClientError> {
        self.pace().await;
        let op = q::AddThreadReply::build(q::ReplyVariables {
            thread_id: cynic::Id::new(&thread.0),
            body: body.to_owned(),
        });
        let response = self.client.run(&op, Repeat::Once).await?;
        let posted = response
            .data
            .and_then(|d| d.add_pull_request_review_thread_reply)
            .and_then(|p| p.comment);
        match posted {
            Some(c) => Ok(PostedComment {
                id: CommentId(c.id.into_inner()),
                url: c.url.0,
            }),
            None => Err(ClientError::Http {
                status: 200,
                message: response
                    .errors
                    .iter()
                    .map(|e| e.message.as_str())
                    .collect::<Vec<_>>()
                    .join("; "),
            }),
        }
    }
}

#[async_trait]
impl ReviewHost for GitHubHost {
    async fn pull_request(&self, repo: &RepoId, number: u64) -> Result<PullRequest, HostError> {
        Reader::new(&self.client)
            .pull_request(repo, number)
            .await
            .map_err(from_read)
    }

    async fn resolve_threads(&self, threads: &[ThreadId]) -> Vec<Result<(), HostError>> {
        let single = q::ResolveThread::build(q::ThreadVariables {
            thread_id: cynic::Id::new(""),
        })
        .query;
        let items: Vec<_> = threads
            .iter()
            .map(|t| {
                let mut m = serde_json::Map::new();
                m.insert(
                    "threadId".to_owned(),
                    serde_json::Value::String(t.0.clone()),
                );
                m
            })
            .collect();
        self.batched("ResolveThreads", &single, &items).await
    }

    async fn unresolve_thread(&self, thread: &ThreadId) -> Result<(), HostError> {
        let op = q::UnresolveThread::build(q::ThreadVariables {
            thread_id: cynic::Id::new(&thread.0),
        });
        let response = self
            .client
            .run(&op, Repeat::Safe)
            .await
            .map_err(|e| host_error(format!("cannot reopen {thread}"), e))?;
        let done = response
            .data
            .and_then(|d| d.unresolve_review_thread)
            .and_then(|p| p.thread)
            .is_some();
        if done {
            Ok(())
        } else {
            Err(from_api(&response.errors.iter().collect::<Vec<_>>()))
        }
    }

    async fn reply(&self, thread: &ThreadId, body: &str) -> Result<PostedComment, HostError> {
        let key = self.key_of_marked(body, "reply")?;
        self.check_pending_review().await?;
        self.post_once("reply", self.post_reply(thread, body), || {
            self.landed(thread, &key)
        })
        .await
        .map_err(|e| match e {
            HostError::NotFound(m) => HostError::NotFound(format!("thread {thread}: {m}")),
            other => other,
        })
    }

    async fn comment(&self, subject: &str, body: &str) -> Result<PostedComment, HostError> {
        let key = self.key_of_marked(body, "comment")?;
        self.post_once("comment", self.post_comment(subject, body), || {
            self.landed_on_pr(&key)
        })
        .await
    }

    async fn minimize(&self, comment: &CommentId, reason: MinimizeReason) -> Result<(), HostError> {
        let classifier = match reason {
            MinimizeReason::Resolved => "RESOLVED",
            MinimizeReason::Outdated => "OUTDATED",
            MinimizeReason::Duplicate => "DUPLICATE",
            MinimizeReason::OffTopic => "OFF_TOPIC",
        };
        let single = q::MinimizeComment::build(q::MinimizeVariables {
            subject_id: cynic::Id::new(""),
            classifier: q::ReportedContentClassifiers::Resolved,
        })
        .query;
        let mut item = serde_json::Map::new();
        item.insert(
            "subjectId".to_owned(),
            serde_json::Value::String(comment.0.clone()),
        );
        item.insert(
            "classifier".to_owned(),
            serde_json::Value::String(classifier.to_owned()),
        );
        self.batched("MinimizeComments", &single, &[item])
            .await
            .into_iter()
            .next()
            .unwrap_or_else(|| Err(HostError::Refused("no result".to_owned())))
    }

    async fn request_review(&self, subject: &str, login: &str) -> Result<(), HostError> {
        if !review_core::ports::is_plain_login(login) {
            return Err(HostError::Refused(format!(
                "{login:?} is not a GitHub login: no review was requested"
            )));
        }
        let base = login.strip_suffix("[bot]").unwrap_or(login);
        let op = q::RequestReviewsByLogin::build(q::RequestReviewVariables {
            pull_request_id: cynic::Id::new(subject),
            bot_logins: Some(vec![format!("{base}[bot]")]),
        });
        // Requesting a reviewer already requested changes nothing: safe to repeat.
        let response = self
            .client
            .run(&op, Repeat::Safe)
            .await
            .map_err(|e| host_error(format!("cannot request a review from {base}"), e))?;
        let done = response
            .data
            .and_then(|d| d.request_reviews_by_login)
            .and_then(|p| p.pull_request)
            .is_some();
        if done {
            Ok(())
        } else {
            Err(from_api(&response.errors.iter().collect::<Vec<_>>()))
        }
    }
}
