//! A strict in-memory review host.

use std::collections::BTreeSet;
use std::sync::{Mutex, MutexGuard};
use std::time::Duration;

use async_trait::async_trait;
use review_core::model::{Author, AuthorKind, Comment, CommentId, PullRequest, RepoId, ThreadId};
use review_core::ports::{HostError, MinimizeReason, PostedComment, ReviewHost};

/// GitHub's limit on a comment body, in characters.
const MAX_BODY: usize = 65_536;

/// A mutation the fake host received.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Mutation {
    /// `resolveReviewThread`.
    Resolve(ThreadId),
    /// `unresolveReviewThread`.
    Unresolve(ThreadId),
    /// `addPullRequestReviewThreadReply`.
    Reply(ThreadId, String),
    /// `minimizeComment`.
    Minimize(CommentId),
    /// `addComment` on the pull request, with its body.
    Comment(String),
}

#[derive(Debug)]
struct State {
    pr: PullRequest,
    log: Vec<Mutation>,
    failing: BTreeSet<ThreadId>,
    refusing: Option<Refusal>,
    next_id: usize,
}

/// Why the whole host refuses every request.
#[derive(Debug, Clone, Copy)]
enum Refusal {
    Throttled(Option<Duration>),
    Unauthorized,
}

/// A review host holding one pull request in memory.
///
/// Like GitHub it refuses unknown thread and comment ids and empty or oversized bodies; resolving
/// a resolved thread succeeds. Every accepted mutation is recorded in order.
#[derive(Debug)]
pub struct FakeHost {
    state: Mutex<State>,
    viewer: Author,
}

impl FakeHost {
    /// A host serving `pr`; replies are posted as the PR's author (as a person's token would).
    pub fn new(pr: PullRequest) -> Self {
        let viewer = pr
            .author
            .clone()
            .unwrap_or_else(|| Author::new("viewer", AuthorKind::User));
        Self {
            state: Mutex::new(State {
                pr,
                log: Vec::new(),
                failing: BTreeSet::new(),
                refusing: None,
                next_id: 0,
            }),
            viewer,
        }
    }

    fn state(&self) -> MutexGuard<'_, State> {
        // A test that panicked while holding the lock has failed already; its data is still fine
        // to read for the next assertion.
        self.state
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Makes every mutation of `thread` fail as an unavailable host would.
    pub fn fail_thread(&self, thread: &str) {
        self.state().failing.insert(ThreadId(thread.to_owned()));
    }

    /// Makes every later request fail with [`HostError::Throttled`], as GitHub does once its
    /// rate limit is spent (resetting in `reset_in`, if given); nothing is read or changed.
    pub fn spend_rate_limit(&self, reset_in: Option<Duration>) {
        self.state().refusing = Some(Refusal::Throttled(reset_in));
    }

    /// Makes every later request fail with [`HostError::Unauthorized`], as GitHub does with a
    /// refused token; nothing is read or changed.
    pub fn refuse_token(&self) {
        self.state().refusing = Some(Refusal::Unauthorized);
    }

    /// The mutations accepted so far, in order.
    pub fn mutations(&self) -> Vec<Mutation> {
        self.state().log.clone()
    }

    /// The PR as the host now has it.
    pub fn current(&self) -> PullRequest {
        self.state().pr.clone()
    }

    /// The refusal of every request, if the host was told to refuse them.
    fn check_open(state: &State) -> Result<(), HostError> {
        match state.refusing {
            None => Ok(()),
            Some(Refusal::Throttled(reset_in)) => Err(HostError::Throttled {
                message: "the rate limit is spent".to_owned(),
                reset_in,
                source: None,
            }),
            Some(Refusal::Unauthorized) => Err(HostError::Unauthorized {
                message: "the token was refused".to_owned(),
                source: None,
            }),
        }
    }

    fn check_thread(state: &State, thread: &ThreadId) -> Result<(), HostError> {
        Self::check_open(state)?;
        if state.failing.contains(thread) {
            return Err(HostError::Unavailable {
                message: format!("injected failure on {thread}"),
                source: None,
            });
        }
        if state.pr.thread(thread).is_none() {
            return Err(HostError::NotFound(format!("thread {thread}")));
        }
        Ok(())
    }
}

#[async_trait]
impl ReviewHost for FakeHost {
    async fn pull_request(&self, repo: &RepoId, number: u64) -> Result<PullRequest, HostError> {
        let state = self.state();
        Self::check_open(&state)?;
        if &state.pr.repo != repo || state.pr.number != number {
            return Err(HostError::NotFound(format!("pull request {repo}#{number}")));
        }
        Ok(state.pr.clone())
    }

    async fn resolve_threads(&self, threads: &[ThreadId]) -> Vec<Result<(), HostError>> {
        let mut state = self.state();
        threads
            .iter()
            .map(|id| {
                Self::check_thread(&state, id)?;
                if let Some(t) = state.pr.threads.iter_mut().find(|t| &t.id == id) {
                    t.is_resolved = true;
                }
                state.log.push(Mutation::Resolve(id.clone()));
                Ok(())
            })
            .collect()
    }

    async fn unresolve_thread(&self, thread: &ThreadId) -> Result<(), HostError> {
        let mut state = self.state();
        Self::check_thread(&state, thread)?;
        if let Some(t) = state.pr.threads.iter_mut().find(|t| &t.id == thread) {
            t.is_resolved = false;
        }
        state.log.push(Mutation::Unresolve(thread.clone()));
        Ok(())
    }

    async fn reply(&self, thread: &ThreadId, body: &str) -> Result<PostedComment, HostError> {
        let mut state = self.state();
        Self::check_thread(&state, thread)?;
        if body.trim().is_empty() {
            return Err(HostError::Refused("body cannot be blank".to_owned()));
        }
        if body.chars().count() > MAX_BODY {
            return Err(HostError::Refused(format!(
                "body is longer than {MAX_BODY} characters"
            )));
        }
        state.next_id += 1;
        let id = CommentId(format!("PRRC_fake_{}", state.next_id));
        let url = format!("https://github.com/fake#{id}");
        let comment = Comment {
            id: id.clone(),
            author: Some(self.viewer.clone()),
            body: body.to_owned(),
            created_at: "2026-11-30T12:00:00Z".to_owned(),
            url: url.clone(),
            diff_hunk: None,
            review_id: None,
        };
        if let Some(t) = state.pr.threads.iter_mut().find(|t| &t.id == thread) {
            t.comments.push(comment);
        }
        state
            .log
            .push(Mutation::Reply(thread.clone(), body.to_owned()));
        Ok(PostedComment { id, url })
    }

    async fn comment(&self, subject: &str, body: &str) -> Result<PostedComment, HostError> {
        let mut state = self.state();
        Self::check_open(&state)?;
        if state.pr.id != subject {
            return Err(HostError::NotFound(format!("pull request {subject}")));
        }
        if body.trim().is_empty() {
            return Err(HostError::Refused("body cannot be blank".to_owned()));
        }
        state.next_id += 1;
        let id = CommentId(format!("IC_fake_{}", state.next_id));
        let url = format!("https://github.com/fake#{id}");
        state.pr.comments.push(review_core::model::IssueComment {
            id: id.clone(),
            author: Some(self.viewer.clone()),
            body: body.to_owned(),
            created_at: "2026-11-30T12:00:00Z".to_owned(),
            url: url.clone(),
        });
        state.log.push(Mutation::Comment(body.to_owned()));
        Ok(PostedComment { id, url })
    }

    async fn minimize(
        &self,
        comment: &CommentId,
        _reason: MinimizeReason,
    ) -> Result<(), HostError> {
        let mut state = self.state();
        Self::check_open(&state)?;
        let known = state
            .pr
            .threads
            .iter()
            .flat_map(|t| &t.comments)
            .any(|c| &c.id == comment)
            || state.pr.comments.iter().any(|c| &c.id == comment);
        if !known {
            return Err(HostError::NotFound(format!("comment {comment}")));
        }
        state.log.push(Mutation::Minimize(comment.clone()));
        Ok(())
    }
}
