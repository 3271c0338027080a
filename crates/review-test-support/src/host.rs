//! A strict in-memory review host.

use std::collections::BTreeSet;
use std::sync::{Mutex, MutexGuard};
use std::time::Duration;

use async_trait::async_trait;
use review_core::model::{Author, AuthorKind, Comment, CommentId, PullRequest, RepoId, ThreadId};
use review_core::ports::{HostError, MaybePosted, MinimizeReason, PostedComment, ReviewHost};
use review_core::post;

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
    /// `requestReviewsByLogin`: a review requested from the bot with this login (without
    /// `[bot]`).
    RequestReview(String),
}

#[derive(Debug)]
struct State {
    pr: PullRequest,
    log: Vec<Mutation>,
    failing: BTreeSet<ThreadId>,
    refusing: Option<Refusal>,
    /// The next post lands but its answer is lost.
    lose_answer: bool,
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
/// Like GitHub it refuses unknown thread and comment ids and empty or oversized bodies; like
/// `GitHubHost` it refuses a reply or comment that does not start with the automated header
/// or carries no idempotency key; resolving a resolved thread succeeds. Every accepted mutation
/// is recorded in order. It keeps the port's contract as the suite in [`crate::contract`]
/// checks it.
#[derive(Debug)]
pub struct FakeHost {
    state: Mutex<State>,
    viewer: Author,
    header: String,
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
                lose_answer: false,
                next_id: 0,
            }),
            viewer,
            header: review_core::gate::DEFAULT_AUTOMATED_HEADER.to_owned(),
        }
    }

    /// The host with posts required to start with `header` instead of the default automated
    /// header (as `GitHubHost`'s `WriteSettings::header`).
    #[must_use]
    pub fn with_header(mut self, header: &str) -> Self {
        header.clone_into(&mut self.header);
        self
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

    /// Makes the next reply or comment land while its answer is lost, as behind a timeout: it
    /// is posted, and the call fails with an error that says it may have been posted
    /// ([`HostError::may_have_been_posted`]).
    pub fn lose_next_answer(&self) {
        self.state().lose_answer = true;
    }

    /// The mutations accepted so far, in order.
    pub fn mutations(&self) -> Vec<Mutation> {
        self.state().log.clone()
    }

    /// Changes the PR as GitHub would between two reads (a bot posts a new thread, say).
    pub fn change_pr(&self, change: impl FnOnce(&mut PullRequest)) {
        change(&mut self.state().pr);
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

    /// Refuses a body the port says no post may have: blank, oversized, without the automated
    /// header or the idempotency key.
    fn check_body(&self, body: &str, what: &str) -> Result<(), HostError> {
        if body.trim().is_empty() {
            return Err(HostError::Refused("body cannot be blank".to_owned()));
        }
        if body.chars().count() > MAX_BODY {
            return Err(HostError::Refused(format!(
                "body is longer than {MAX_BODY} characters"
            )));
        }
        if !post::is_marked(body, &self.header) {
            return Err(HostError::Refused(format!(
                "a {what} must start with the automated-comment header and carry the \
                 idempotency key (review_core::post::marked_body)"
            )));
        }
        Ok(())
    }

    /// The answer to a post that landed as `posted`: lost, if the test said so.
    fn answer(state: &mut State, posted: PostedComment) -> Result<PostedComment, HostError> {
        if std::mem::take(&mut state.lose_answer) {
            return Err(HostError::Unavailable {
                message: format!("the answer to the post of {} was lost", posted.id),
                source: Some(Box::new(MaybePosted {
                    looked: Duration::ZERO,
                })),
            });
        }
        Ok(posted)
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
        self.check_body(body, "reply")?;
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
        Self::answer(&mut state, PostedComment { id, url })
    }

    async fn comment(&self, subject: &str, body: &str) -> Result<PostedComment, HostError> {
        let mut state = self.state();
        Self::check_open(&state)?;
        if state.pr.id != subject {
            return Err(HostError::NotFound(format!("pull request {subject}")));
        }
        self.check_body(body, "comment")?;
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
        Self::answer(&mut state, PostedComment { id, url })
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

    async fn request_review(&self, subject: &str, login: &str) -> Result<(), HostError> {
        let mut state = self.state();
        Self::check_open(&state)?;
        if !review_core::ports::is_plain_login(login) {
            return Err(HostError::Refused(format!("{login:?} is not a login")));
        }
        if state.pr.id != subject {
            return Err(HostError::NotFound(format!("pull request {subject}")));
        }
        let base = login.strip_suffix("[bot]").unwrap_or(login);
        state.log.push(Mutation::RequestReview(base.to_owned()));
        Ok(())
    }
}
