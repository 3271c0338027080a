//! `finish`: the fix replies whose commits are on the PR's head, each posted once, the threads
//! resolved, and the review groups whose threads are all resolved hidden.

use review_core::followup;
use review_core::gate::AutomationSettings;
use review_core::model::{Author, CommentId, PullRequest, ThreadId};
use review_core::ports::{MinimizeReason, ReviewHost};
use review_core::post;

use super::state::{FollowupState, FollowupStore};
use super::{FollowupHistory, Narrator, Note, Reread, Tally, resolve_all};
use crate::error::AppError;
use crate::respond::landed_fix;

/// The ports `finish` works through.
#[derive(Debug)]
pub struct FinishPorts<'a, H, R, S, F> {
    /// The review host the replies, resolves and hides go to.
    pub host: &'a H,
    /// The pull request read again (before the replies, and after the resolves).
    pub reread: &'a R,
    /// The follow-up's state: what is owed.
    pub store: &'a S,
    /// The local history: where each fix landed.
    pub history: &'a F,
}

impl<H, R, S, F> FinishPorts<'_, H, R, S, F>
where
    H: ReviewHost,
    R: Reread,
    S: FollowupStore,
    F: FollowupHistory,
{
    /// Posts the fix replies whose commits are on the PR's head (after reading the PR again: a
    /// thread resolved since is skipped), each once ever (a reply carrying the same key already
    /// in the thread is not posted again, so a run resumed after a crash posts nothing twice),
    /// resolves their threads, and hides the review groups whose threads are all resolved (only
    /// the group reviewer's own comments). What could not be done yet (a fix not pushed, a
    /// failed reply, a group still open or not hidden) is kept in the store for the next run;
    /// the rest leaves it. Only the threads the store names are answered: a thread the
    /// follow-up did not plan a fix for, a person's included, gets nothing.
    ///
    /// Returns the replies posted, the threads resolved and the fix replies waiting for a push.
    ///
    /// # Errors
    ///
    /// [`crate::ErrorKind::Port`] when the store or the read of the PR fails (the port's error is
    /// the source); a failed reply, resolve or hide is narrated and kept, not an error.
    pub async fn finish(
        &self,
        narrator: &dyn Narrator,
        pr_before: &PullRequest,
        automation: &AutomationSettings,
    ) -> Result<Tally, AppError> {
        let mut tally = Tally::default();
        let state = self.store.load().map_err(AppError::port)?;
        if state.completions.is_empty() && state.hide.is_empty() {
            return Ok(tally);
        }
        let pr = self
            .reread
            .pull_request(pr_before)
            .await
            .map_err(AppError::port)?;
        let host = self.host;
        let mut left = FollowupState::default();
        let mut to_resolve = Vec::new();
        for c in state.completions {
            let id = ThreadId(c.thread_id.clone());
            let Some(thread) = pr.thread(&id) else {
                continue;
            };
            if thread.is_resolved {
                narrator.note(&Note::AlreadyResolved { thread: id });
                continue;
            }
            // The fix as it landed on the PR's head (a rebase before the push changes its id).
            let landed = match &c.since {
                None => landed_fix(self.history, &pr, &c.thread_id, &c.sha),
                Some(since) => manual_fix(self.history, &pr, &c.thread_id, since, &c.files),
            };
            let Some(landed) = landed else {
                tally.waiting += 1;
                narrator.note(&match &c.since {
                    None => Note::NotPushed {
                        thread: id,
                        sha: c.sha.clone(),
                    },
                    Some(_) => Note::NoManualFix {
                        thread: id,
                        files: c.files.clone(),
                    },
                });
                left.completions.push(c);
                continue;
            };
            let text = followup::fixed_reply(c.lang, landed.get(..7).unwrap_or(&landed), &c.what);
            let key = post::idempotency_key(&id, &text);
            let posted = thread
                .comments
                .iter()
                .any(|cm| post::find_key(&cm.body) == Some(key.as_str()));
            if !posted {
                if let Err(e) = host
                    .reply(&id, &post::marked_body(&automation.header, &text, &key))
                    .await
                {
                    narrator.note(&Note::FixReplyFailed {
                        thread: id,
                        error: e.to_string(),
                    });
                    left.completions.push(c);
                    continue;
                }
                tally.replies += 1;
            }
            to_resolve.push(id);
        }
        tally.resolved += resolve_all(host, narrator, &to_resolve).await;
        // Hide groups, reading the threads again after the resolves.
        let pr = if to_resolve.is_empty() {
            pr
        } else {
            self.reread
                .pull_request(pr_before)
                .await
                .map_err(AppError::port)?
        };
        for h in state.hide {
            let threads: Vec<_> = h
                .threads
                .iter()
                .filter_map(|id| pr.thread(&ThreadId(id.clone())))
                .collect();
            let open = threads.iter().filter(|t| !t.is_resolved).count();
            if open > 0 {
                narrator.note(&Note::GroupOpen {
                    reviewer: h.reviewer.clone(),
                    open,
                    threads: threads.len(),
                });
                left.hide.push(h);
                continue;
            }
            // Only the group's reviewer's own comments: a person's replies in its threads (and
            // the tool's) stay as they are.
            let by_reviewer = |author: Option<&Author>| {
                !h.reviewer.is_empty() && author.is_some_and(|a| a.login == h.reviewer)
            };
            let comments: Vec<CommentId> = threads
                .iter()
                .flat_map(|t| t.comments.iter())
                .filter(|c| by_reviewer(c.author.as_ref()))
                .map(|c| c.id.clone())
                .collect();
            let mut failed = false;
            for c in &comments {
                if let Err(e) = host.minimize(c, MinimizeReason::Outdated).await {
                    narrator.note(&Note::HideFailed {
                        comment: c.clone(),
                        error: e.to_string(),
                    });
                    failed = true;
                }
            }
            // The review's own body too, when it says something (the host refuses where the
            // viewer cannot minimize it: that is reported, the comments stay hidden).
            let review = pr.reviews.iter().find(|r| {
                r.id.0 == h.group && !r.body.trim().is_empty() && by_reviewer(r.author.as_ref())
            });
            if let (Some(review), false) = (review, failed) {
                let id = CommentId(review.id.0.clone());
                if let Err(e) = host.minimize(&id, MinimizeReason::Outdated).await {
                    narrator.note(&Note::ReviewBodyNotHidden {
                        error: e.to_string(),
                    });
                }
            }
            if failed {
                left.hide.push(h);
            } else {
                narrator.note(&Note::GroupHidden {
                    reviewer: h.reviewer.clone(),
                    comments: comments.len(),
                });
            }
        }
        self.store.replace(&left).map_err(AppError::port)?;
        Ok(tally)
    }
}

/// The fix of a task carried out by hand, once on the PR's head: the commit whose trailer
/// names `thread`, else the newest commit of `since..head` that touches one of `files` (any
/// commit there, when the task has no files).
pub fn manual_fix<F: FollowupHistory>(
    history: &F,
    pr: &PullRequest,
    thread: &str,
    since: &str,
    files: &[String],
) -> Option<String> {
    if let Some(sha) = landed_fix(history, pr, thread, "") {
        return Some(sha);
    }
    let head = pr.head_sha.0.as_str();
    if !history.has_commit(head) || !history.is_ancestor(since, head) {
        return None;
    }
    let commits = history.commits_between(since, head)?;
    commits.into_iter().rev().find(|sha| {
        files.is_empty()
            || history
                .paths_changed_by(sha)
                .is_some_and(|paths| paths.iter().any(|p| files.contains(p)))
    })
}
