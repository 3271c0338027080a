//! Deferring findings to follow-up issues, only when the user asks: the issue opened once per
//! thread (found again by the key in its body after a run that stopped), the thread answered
//! with its link and resolved. Where the repository has its issues turned off, nothing is
//! opened and the thread stays deferred, with that reason.
//!
//! Two ways in: [`defer_thread`] (one bot thread the user names, `review defer THREAD`), and
//! [`Deferral::link_owed`], which `respond` runs on the replies it owes from the loop's
//! decisions when the user turned deferring on (each `OUT_OF_SCOPE` verdict opens its issue,
//! and its reply carries the link).

use async_trait::async_trait;
use review_core::decisions::{Decisions, Escalation, Verdict};
use review_core::defer::{self, IssueDraft, IssueRef, Opened};
use review_core::gate::AutomationSettings;
use review_core::model::{PullRequest, Thread, ThreadId};
use review_core::ports::HostError;
use review_core::reply::{Reply, ReplyTarget};

use crate::error::{AppError, ErrorKind};
use crate::ports::DecisionsStore;
use crate::respond::{Narrator, Note};

/// Where follow-up issues are opened: the pull request's repository, as the token's owner.
#[async_trait]
pub trait IssueTracker: Send + Sync {
    /// The issue the token's owner opened on the repository whose body carries `key`
    /// ([`defer::key_in`]), if any. Looks far enough back to find one a stopped run opened.
    async fn find_issue(&self, key: &str) -> Result<Option<IssueRef>, HostError>;

    /// Opens `draft`. Sent once: a lost answer is an error, and the next run's
    /// [`IssueTracker::find_issue`] decides whether it landed.
    async fn open_issue(&self, draft: &IssueDraft) -> Result<Opened, HostError>;
}

/// The issue a deferral stands on.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Issue {
    /// Opened by this run.
    Opened(IssueRef),
    /// Opened before (by a run that stopped, or one that already answered the thread).
    Found(IssueRef),
    /// The repository has its issues turned off: nothing opened.
    IssuesOff,
}

impl Issue {
    /// The issue, if there is one.
    pub fn issue(&self) -> Option<&IssueRef> {
        match self {
            Self::Opened(i) | Self::Found(i) => Some(i),
            Self::IssuesOff => None,
        }
    }
}

/// The issue for `draft`: the one its key finds, or a new one.
///
/// # Errors
///
/// [`ErrorKind::Port`] when the host cannot be asked or refuses.
pub async fn ensure_issue(
    tracker: &dyn IssueTracker,
    draft: &IssueDraft,
) -> Result<Issue, AppError> {
    let host = |what: &str, e: HostError| {
        AppError::caused(
            ErrorKind::Port,
            format!("cannot {what} the follow-up issue: {e}"),
            Some(
                "run again: the issue carries a key, so a rerun finds one that was opened"
                    .to_owned(),
            ),
            e,
        )
    };
    if let Some(found) = tracker
        .find_issue(&draft.key)
        .await
        .map_err(|e| host("look for", e))?
    {
        return Ok(Issue::Found(found));
    }
    match tracker
        .open_issue(draft)
        .await
        .map_err(|e| host("open", e))?
    {
        Opened::Issue(issue) => Ok(Issue::Opened(issue)),
        Opened::IssuesOff => Ok(Issue::IssuesOff),
    }
}

/// The finding's title as the reader reads it (the bot's format known), else its first words.
pub fn title_of(thread: &Thread, pr: &PullRequest, automation: &AutomationSettings) -> String {
    let Some(first) = thread.first_comment() else {
        return String::new();
    };
    let family = review_classify::identify(
        first.author.as_ref(),
        &first.body,
        pr.author.as_ref(),
        automation,
    )
    .unwrap_or(review_classify::Family::OtherBot);
    review_classify::read_finding(family, &first.body, &thread.path).title
}

/// The reason a thread stays deferred on a repository with its issues turned off.
pub fn issues_off_reason(pr: &PullRequest) -> String {
    format!(
        "deferred: {} has its issues turned off, so no follow-up issue was opened",
        pr.repo
    )
}

/// What deferring one thread came to, before its reply.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Prepared {
    /// The issue stands: post `reply` (its link in it) and resolve the thread.
    Reply {
        /// The issue.
        issue: Issue,
        /// The reply to post.
        reply: Reply,
    },
    /// Nothing to post: the thread stays deferred, for `why`.
    StaysDeferred {
        /// Why.
        why: String,
    },
}

/// Checks that the tool may act on `id` (a bot's open thread on `pr`), opens its issue (once)
/// and returns the reply to post with its link, `note` first: the caller posts it through
/// `respond` (once ever, the thread read again first) and resolves the thread.
///
/// # Errors
///
/// [`ErrorKind::Invalid`] for a thread the pull request does not have or already resolved;
/// [`ErrorKind::Refused`] for a thread the tool may not act on (a person's: defer it through
/// the follow-up in your own words); [`ErrorKind::Port`] when the issue cannot be looked for or
/// opened.
pub async fn defer_thread(
    tracker: &dyn IssueTracker,
    pr: &PullRequest,
    id: &ThreadId,
    note: &str,
    labels: &[String],
    automation: &AutomationSettings,
) -> Result<Prepared, AppError> {
    let thread = pr.thread(id).ok_or_else(|| {
        AppError::new(
            ErrorKind::Invalid,
            format!("pull request #{} has no thread {id}", pr.number),
            Some("list the threads with `review threads`"),
        )
    })?;
    if thread.is_resolved {
        return Err(AppError::new(
            ErrorKind::Invalid,
            format!("thread {id} is resolved already: there is nothing to defer"),
            None,
        ));
    }
    if let Err(refusal) = automation.may_act(thread, pr) {
        return Err(AppError::new(
            ErrorKind::Refused,
            format!("the tool does not act on thread {id}: {refusal}"),
            Some(
                "a person's thread is deferred only in your own words: write `defer: ...` for it \
                 in `review followup`",
            ),
        ));
    }
    let title = title_of(thread, pr, automation);
    let draft = defer::draft(pr, thread, &title, note, labels);
    let issue = ensure_issue(tracker, &draft).await?;
    Ok(prepared(pr, id, issue, note))
}

fn prepared(pr: &PullRequest, id: &ThreadId, issue: Issue, note: &str) -> Prepared {
    match issue.issue() {
        None => Prepared::StaysDeferred {
            why: issues_off_reason(pr),
        },
        Some(found) => {
            let reply = Reply::thread(&id.0, defer::deferred_reply(found, note), true);
            Prepared::Reply { issue, reply }
        }
    }
}

/// Deferring turned on for the replies written from the loop's decisions: where issues go
/// and with which labels.
#[derive(Clone, Copy)]
pub struct Deferral<'a> {
    /// Where the issues are opened.
    pub tracker: &'a dyn IssueTracker,
    /// The labels each issue gets (the user's config).
    pub labels: &'a [String],
}

impl std::fmt::Debug for Deferral<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Deferral")
            .field("labels", &self.labels)
            .finish_non_exhaustive()
    }
}

/// The `OUT_OF_SCOPE` decision on `thread`, not yet answered.
fn out_of_scope(decisions: &Decisions, thread: &ThreadId) -> bool {
    decisions.seen.values().any(|s| {
        s.thread_id.is_thread(thread) && s.verdict == Verdict::OutOfScope && s.replied != Some(true)
    })
}

impl Deferral<'_> {
    /// For each of `replies` that answers an `OUT_OF_SCOPE` decision on a thread of `pr`: opens
    /// its issue (once) and puts the link in the reply. A thread whose issue cannot be opened
    /// keeps no reply this run (posting it without the link would answer the thread twice once
    /// the issue is opened); on a repository with its issues turned off it is escalated with
    /// that reason (recorded in `files`). Each is said through `narrator`.
    ///
    /// # Errors
    ///
    /// [`ErrorKind::Port`] when the decisions cannot be read or written.
    pub async fn link_owed<D: DecisionsStore>(
        &self,
        files: &D,
        pr: &PullRequest,
        replies: &mut Vec<Reply>,
        automation: &AutomationSettings,
        narrator: &dyn Narrator,
    ) -> Result<(), AppError> {
        let decisions = files.load().map_err(AppError::port)?;
        let mut kept = Vec::with_capacity(replies.len());
        for mut reply in replies.drain(..) {
            let ReplyTarget::Thread(id) = &reply.target else {
                kept.push(reply);
                continue;
            };
            let (Some(thread), true) = (pr.thread(id), out_of_scope(&decisions, id)) else {
                kept.push(reply);
                continue;
            };
            let id = id.clone();
            let title = title_of(thread, pr, automation);
            let draft = defer::draft(pr, thread, &title, &reply.body, self.labels);
            match ensure_issue(self.tracker, &draft).await {
                Ok(issue) => match issue.issue() {
                    Some(found) => {
                        reply.body = defer::deferred_reply(found, &reply.body);
                        narrator.note(&Note::Deferred {
                            thread: id.0,
                            issue: found.clone(),
                            opened: matches!(issue, Issue::Opened(_)),
                        });
                        kept.push(reply);
                    }
                    None => {
                        let reason = issues_off_reason(pr);
                        files
                            .update(&mut |d| {
                                if !d.is_escalated_thread(&id.clone().into()) {
                                    let round = d.current_round();
                                    let fingerprint = d
                                        .seen
                                        .iter()
                                        .find(|(_, s)| s.thread_id.is_thread(&id))
                                        .map(|(f, _)| f.clone())
                                        .unwrap_or_default();
                                    d.escalated.push(Escalation {
                                        fingerprint,
                                        thread_id: id.clone().into(),
                                        reason: reason.clone(),
                                        escalated_in_round: round,
                                    });
                                }
                            })
                            .map_err(AppError::port)?;
                        narrator.note(&Note::DeferHeld {
                            thread: id.0,
                            why: reason,
                        });
                    }
                },
                Err(e) => narrator.note(&Note::DeferHeld {
                    thread: id.0,
                    why: e.to_string(),
                }),
            }
        }
        *replies = kept;
        Ok(())
    }
}
