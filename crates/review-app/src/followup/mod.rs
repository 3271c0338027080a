//! `followup`: the operator's pass over every unresolved thread, once the operator has said
//! what to do with each (the form and the confirmation are the caller's).
//!
//! The steps, each through ports:
//! - [`check_answers`]: answers naming a review group or a thread the follow-up does not show
//!   are refused, before anything is posted ([`UnknownAnswer`]);
//! - [`plan`]: the answers sorted by intent, unclear ones judged, fix tasks planned, threads
//!   resolved since dropped ([`Planned`]);
//! - [`post_own_replies`]: the reply-only threads answered in the operator's words, each once
//!   ever ([`OwnWords`]), and resolved as asked;
//! - [`translate`] and [`analyse`]: the form's page prepared by the operator's helper commands
//!   ([`Ask`]); a failing helper leaves the page as the reader made it;
//! - [`judge_unclear`]: the instructions the rules leave unclear placed by a judge command
//!   ([`Judge`]); what it cannot place stays unclear;
//! - [`DispatchPorts::dispatch`] (fix tasks sent to the agent, [`Agents`], in the [`Workspace`], each start and
//!   end recorded so a killed run loses no fix and repeats none) or [`by_hand`] (the tasks
//!   written out for the operator), then [`leave_for_finish`];
//! - [`FinishPorts::finish`]: the fix replies whose commits are on the PR's head, each posted
//!   once (a run resumed after a crash posts nothing twice), the threads resolved, the review
//!   groups whose threads are all resolved hidden; what is owed is kept in a
//!   [`FollowupStore`].
//!
//! What the steps did is counted in a [`Tally`]; what happened to each thread or group is a
//! typed [`Note`], said through a [`Narrator`] as it happens. The caller renders both.

mod finish;
mod judge;
mod plan;
mod prepare;
pub mod state;
mod tasks;

use std::future::Future;
use std::sync::Mutex;

use review_core::followup::Issue;
use review_core::followup::form::{FormAnswers, IssueAnswer};
use review_core::model::{CommentId, PullRequest, ThreadId};
use review_core::ports::{HostError, PostedComment, ReviewHost};
use review_core::post;

pub use finish::{FinishPorts, manual_fix};
pub use judge::{Judge, JudgeQuestion, judge_unclear};
pub use plan::{Planned, plan};
pub use prepare::{Ask, Helper, Question, analyse, translate};
pub use state::{Completion, FollowupState, FollowupStore, Hide, MemoryFollowup, Started};
pub use tasks::{
    Agents, DispatchPorts, ManualTask, TaskEvent, Workspace, by_hand, completions_of, describe,
    hides, leave_for_finish,
};

use crate::error::{AppError, ErrorKind};
use crate::respond::FixHistory;

/// What a follow-up did, for the wrap-up.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Tally {
    /// Unresolved threads the follow-up showed.
    pub triaged: usize,
    /// Fix tasks planned.
    pub tasks: usize,
    /// Fix tasks that made their commit.
    pub tasks_done: usize,
    /// Dispatched tasks that failed or made no commit.
    pub tasks_failed: usize,
    /// Replies posted (the operator's words and fix replies).
    pub replies: usize,
    /// Threads resolved.
    pub resolved: usize,
    /// Threads skipped.
    pub skipped: usize,
    /// Fix replies waiting for their fix on the PR's head.
    pub waiting: usize,
}

impl Tally {
    /// Adds what `other` counted.
    pub fn add(&mut self, other: Self) {
        self.triaged += other.triaged;
        self.tasks += other.tasks;
        self.tasks_done += other.tasks_done;
        self.tasks_failed += other.tasks_failed;
        self.replies += other.replies;
        self.resolved += other.resolved;
        self.skipped += other.skipped;
        self.waiting += other.waiting;
    }
}

/// What the follow-up says as it goes, one thread, issue or group at a time.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Note {
    /// An answer names a thread of the PR that is resolved now: left out.
    AnswerLeftOut {
        /// The thread.
        thread: String,
    },
    /// A thread was resolved since it was collected: dropped from the plan.
    DroppedStale {
        /// The thread.
        thread: String,
    },
    /// A reply-only thread already carries this reply: not posted again.
    RepliedBefore {
        /// The issue's number in the summary.
        number: usize,
    },
    /// A reply-only thread was answered in the operator's words.
    Replied {
        /// The issue's number.
        number: usize,
    },
    /// A deferred thread's follow-up issue stands (`opened` by this run, else found by its key).
    DeferredTo {
        /// The issue's number in the summary.
        number: usize,
        /// The follow-up issue.
        issue: review_core::defer::IssueRef,
        /// Whether this run opened it.
        opened: bool,
    },
    /// A deferred thread got no follow-up issue (issues off, or the host failed): no reply, not
    /// resolved.
    DeferFailed {
        /// The issue's number in the summary.
        number: usize,
        /// Why.
        why: String,
    },
    /// A reply-only thread's reply failed: not resolved.
    ReplyFailed {
        /// The issue's number.
        number: usize,
        /// The host's error.
        error: String,
    },
    /// Resolving a thread failed.
    ResolveFailed {
        /// The thread.
        thread: ThreadId,
        /// The host's error.
        error: String,
    },
    /// A fix reply's thread is resolved already: no reply.
    AlreadyResolved {
        /// The thread.
        thread: ThreadId,
    },
    /// A fix reply waits: its commit is not on the PR's head yet.
    NotPushed {
        /// The thread.
        thread: ThreadId,
        /// The fix's commit, as recorded.
        sha: String,
    },
    /// A fix made by hand waits: no commit for it on the PR's head yet.
    NoManualFix {
        /// The thread.
        thread: ThreadId,
        /// The task's files (none: any file).
        files: Vec<String>,
    },
    /// A fix reply failed: kept for the next run.
    FixReplyFailed {
        /// The thread.
        thread: ThreadId,
        /// The host's error.
        error: String,
    },
    /// A group to hide still has unresolved threads: kept for the next run.
    GroupOpen {
        /// The group's reviewer.
        reviewer: String,
        /// Its threads still open.
        open: usize,
        /// Its threads.
        threads: usize,
    },
    /// Hiding one of a group's comments failed: the group is kept for the next run.
    HideFailed {
        /// The comment.
        comment: CommentId,
        /// The host's error.
        error: String,
    },
    /// The review's own body could not be hidden (its comments are).
    ReviewBodyNotHidden {
        /// The host's error.
        error: String,
    },
    /// A group was hidden.
    GroupHidden {
        /// The group's reviewer.
        reviewer: String,
        /// How many comments were hidden.
        comments: usize,
    },
    /// A helper command gave no answer about a thread: the page shows it as the reader made it.
    HelperFailed {
        /// Which helper.
        helper: Helper,
        /// The issue's number.
        number: usize,
        /// Why, as the command runner says it.
        why: String,
    },
    /// The analyst's answer about a thread did not read: the reader's suggestion stays.
    NoAnalysis {
        /// The issue's number.
        number: usize,
    },
    /// A fix task's threads were answered by an earlier run: not dispatched again.
    TaskDoneBefore {
        /// The task's title.
        title: String,
    },
    /// A fix task's agent committed before the run was killed: taken up.
    TaskTakenUp {
        /// The task's title.
        title: String,
        /// The commit (short id).
        sha: String,
    },
    /// A fix task failed: its threads stay open.
    TaskFailed {
        /// The task's title.
        title: String,
        /// Why.
        why: String,
    },
    /// A fix task made no commit: its threads stay open.
    TaskNoCommit {
        /// The task's title.
        title: String,
    },
    /// A task's start or end could not be recorded.
    RecordFailed {
        /// The store's error.
        error: String,
    },
    /// The judge was asked about an unclear instruction.
    Judged {
        /// The issue's number.
        number: usize,
        /// What came of it.
        verdict: Judged,
    },
}

/// What a judge made of an unclear instruction.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Judged {
    /// The judge command failed (why, as the command runner says it): it stays unclear.
    Failed(String),
    /// The judge answered without placing it: it stays unclear.
    NotPlaced,
    /// The judge placed it.
    Placed(review_core::followup::Intent),
}

/// Says [`Note`]s as they happen.
pub trait Narrator: Send + Sync {
    /// Says `note`.
    fn note(&self, note: &Note);
}

/// A [`Narrator`] that keeps what it is told, for tests and for callers that show it later.
#[derive(Debug, Default)]
pub struct Notes(pub Mutex<Vec<Note>>);

impl Notes {
    /// What was said, in order.
    pub fn taken(&self) -> Vec<Note> {
        self.0.lock().map(|n| n.clone()).unwrap_or_default()
    }
}

impl Narrator for Notes {
    fn note(&self, note: &Note) {
        if let Ok(mut n) = self.0.lock() {
            n.push(note.clone());
        }
    }
}

/// The pull request read again, whole, just before acting on what it says.
pub trait Reread {
    /// The port's own error.
    type Error: std::error::Error + Send + Sync + 'static;

    /// `pr` as the host has it now.
    fn pull_request(
        &self,
        pr: &PullRequest,
    ) -> impl Future<Output = Result<PullRequest, Self::Error>>;
}

/// [`Reread`] through a [`ReviewHost`]'s read of the pull request.
#[derive(Debug, Clone, Copy)]
pub struct HostReread<'a, H>(pub &'a H);

impl<H: ReviewHost> Reread for HostReread<'_, H> {
    type Error = HostError;

    async fn pull_request(&self, pr: &PullRequest) -> Result<PullRequest, HostError> {
        self.0.pull_request(&pr.repo, pr.number).await
    }
}

/// What `finish` asks of the local history besides `respond`'s: the commits of a range and the
/// paths a commit changed (for a fix made by hand). `None` when the history cannot tell.
pub trait FollowupHistory: FixHistory {
    /// The commits of `from..to`, oldest first.
    fn commits_between(&self, from: &str, to: &str) -> Option<Vec<String>>;

    /// The paths commit `sha` changed.
    fn paths_changed_by(&self, sha: &str) -> Option<Vec<String>>;
}

impl FollowupHistory for crate::respond::NoHistory {
    fn commits_between(&self, _: &str, _: &str) -> Option<Vec<String>> {
        None
    }
    fn paths_changed_by(&self, _: &str) -> Option<Vec<String>> {
        None
    }
}

/// The host's reply in the operator's own words: no automated header, but the idempotency key
/// (`review_core::post::own_words_body`). The one place the follow-up writes in a thread a
/// person took part in, because the words are the operator's; not part of `ReviewHost` on
/// purpose.
pub trait OwnWords {
    /// The port's own error.
    type Error: std::error::Error + Send + Sync + 'static;

    /// Posts `body` in `thread`, once.
    fn reply_in_own_words(
        &self,
        thread: &ThreadId,
        body: &str,
    ) -> impl Future<Output = Result<PostedComment, Self::Error>>;
}

/// What [`check_answers`] refused: answers naming what the follow-up does not show.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum UnknownAnswer {
    /// A review group the follow-up does not show (hiding a group minimizes comments).
    #[error("unknown review group {0:?}")]
    Group(String),
    /// Threads the pull request does not have.
    #[error("unknown threads {0:?}")]
    Threads(Vec<String>),
}

/// Refuses answers that name a review group the follow-up did not show (an answers file written
/// for another pull request, or by hand: hiding a group minimizes comments, so only the groups
/// of `issues` may be named), then answers that name a thread the pull request does not have (a
/// mistyped id, another pull request's: an answer that went nowhere would leave its thread
/// silently unhandled). A thread of the pull request that is resolved now is said to be left
/// out ([`Note::AnswerLeftOut`]). Nothing has been posted when this fails.
///
/// # Errors
///
/// [`ErrorKind::Invalid`], its source an [`UnknownAnswer`] naming what is unknown.
pub fn check_answers(
    narrator: &dyn Narrator,
    answers: &FormAnswers,
    issues: &[Issue],
    pr: &PullRequest,
) -> Result<(), AppError> {
    check_groups(answers, issues)?;
    check_threads(narrator, answers, issues, pr)
}

fn check_groups(answers: &FormAnswers, issues: &[Issue]) -> Result<(), AppError> {
    use review_core::text::visible_line;
    let Some(unknown) = answers
        .groups
        .keys()
        .find(|id| !issues.iter().any(|i| &i.group == *id))
    else {
        return Ok(());
    };
    let shown: std::collections::BTreeSet<&str> = issues.iter().map(|i| i.group.as_str()).collect();
    let shown: Vec<&str> = shown.into_iter().collect();
    Err(AppError::caused(
        ErrorKind::Invalid,
        format!(
            "the answers name the review group {}, which this follow-up does not show; nothing was posted",
            visible_line(&format!("{unknown:?}"))
        ),
        Some(format!(
            "name only the groups shown (the form's `data-group`; here: {}), or answer with the form",
            visible_line(&shown.join(", "))
        )),
        UnknownAnswer::Group(unknown.clone()),
    ))
}

fn check_threads(
    narrator: &dyn Narrator,
    answers: &FormAnswers,
    issues: &[Issue],
    pr: &PullRequest,
) -> Result<(), AppError> {
    use review_core::text::visible_line;
    let mut unknown = Vec::new();
    for id in answers
        .issues
        .keys()
        .filter(|id| !issues.iter().any(|i| &i.thread_id == *id))
    {
        if pr.thread(&ThreadId(id.clone())).is_some() {
            narrator.note(&Note::AnswerLeftOut { thread: id.clone() });
        } else {
            unknown.push(id.clone());
        }
    }
    if unknown.is_empty() {
        return Ok(());
    }
    let shown: Vec<String> = issues
        .iter()
        .map(|i| format!("#{} {}", i.number, visible_line(&i.thread_id)))
        .collect();
    let named: Vec<String> = unknown
        .iter()
        .map(|id| visible_line(&format!("{id:?}")).into_owned())
        .collect();
    Err(AppError::caused(
        ErrorKind::Invalid,
        format!(
            "the answers name {} this follow-up does not show: {}; nothing was posted",
            if unknown.len() == 1 {
                "a thread"
            } else {
                "threads"
            },
            named.join(", ")
        ),
        Some(format!(
            "use the ids of the summary's Thread column (here: {}), or answer with the form",
            shown.join(", ")
        )),
        UnknownAnswer::Threads(unknown),
    ))
}

/// Resolves `threads` in one batch, narrating each that failed; returns how many were resolved.
pub async fn resolve_all<H: ReviewHost>(
    host: &H,
    narrator: &dyn Narrator,
    threads: &[ThreadId],
) -> usize {
    if threads.is_empty() {
        return 0;
    }
    let mut resolved = 0;
    for (id, r) in threads.iter().zip(host.resolve_threads(threads).await) {
        match r {
            Ok(()) => resolved += 1,
            Err(e) => narrator.note(&Note::ResolveFailed {
                thread: id.clone(),
                error: e.to_string(),
            }),
        }
    }
    resolved
}

/// Defers the threads the operator wrote `defer: <text>` for: each gets its follow-up issue
/// (once ever, found again by its key; the operator's text first in it), then the operator's
/// text and the issue's link as a reply in their own words, once ever, resolved as asked. A
/// person's thread too: the words are the operator's. A thread whose issue cannot be opened
/// gets no reply and stays open.
pub async fn defer_own<H: ReviewHost, W: OwnWords>(
    host: &H,
    words: &W,
    tracker: &dyn crate::defer::IssueTracker,
    narrator: &dyn Narrator,
    pr: &PullRequest,
    deferred: &[(Issue, IssueAnswer)],
    labels: &[String],
) -> Tally {
    let mut replies = Vec::new();
    for (issue, answer) in deferred {
        let Some(thread) = pr.thread(&ThreadId(issue.thread_id.clone())) else {
            continue;
        };
        let text = answer.instruction.trim();
        let draft = review_core::defer::draft(pr, thread, &issue.summary, text, labels);
        let found = match crate::defer::ensure_issue(tracker, &draft).await {
            Ok(found) => found,
            Err(e) => {
                narrator.note(&Note::DeferFailed {
                    number: issue.number,
                    why: e.to_string(),
                });
                continue;
            }
        };
        let Some(link) = found.issue() else {
            narrator.note(&Note::DeferFailed {
                number: issue.number,
                why: crate::defer::issues_off_reason(pr),
            });
            continue;
        };
        narrator.note(&Note::DeferredTo {
            number: issue.number,
            issue: link.clone(),
            opened: matches!(found, crate::defer::Issue::Opened(_)),
        });
        let mut answer = answer.clone();
        answer.instruction = review_core::defer::deferred_reply(link, text);
        replies.push((issue.clone(), answer));
    }
    post_own_replies(host, words, narrator, pr, &replies).await
}

/// Answers the reply-only threads in the operator's words (`replies`, as confirmed), each once
/// ever: a thread of `pr` (as read before) that already carries the reply's key gets no second
/// one. Each thread answered, or answered before, whose answer asks for it is then resolved; a
/// failed reply leaves its thread open. Returns the replies posted and the threads resolved.
pub async fn post_own_replies<H: ReviewHost, W: OwnWords>(
    host: &H,
    words: &W,
    narrator: &dyn Narrator,
    pr: &PullRequest,
    replies: &[(Issue, IssueAnswer)],
) -> Tally {
    let mut tally = Tally::default();
    let mut to_resolve = Vec::new();
    for (issue, answer) in replies {
        let id = ThreadId(issue.thread_id.clone());
        let text = answer.instruction.trim();
        let key = post::idempotency_key(&id, text);
        let already = pr.thread(&id).is_some_and(|t| {
            t.comments
                .iter()
                .any(|c| post::find_key(&c.body) == Some(key.as_str()))
        });
        if already {
            narrator.note(&Note::RepliedBefore {
                number: issue.number,
            });
        } else {
            match words
                .reply_in_own_words(&id, &post::own_words_body(text, &key))
                .await
            {
                Ok(_) => {
                    tally.replies += 1;
                    narrator.note(&Note::Replied {
                        number: issue.number,
                    });
                }
                Err(e) => {
                    narrator.note(&Note::ReplyFailed {
                        number: issue.number,
                        error: e.to_string(),
                    });
                    continue;
                }
            }
        }
        if answer.auto_resolve {
            to_resolve.push(id);
        }
    }
    tally.resolved += resolve_all(host, narrator, &to_resolve).await;
    tally
}
