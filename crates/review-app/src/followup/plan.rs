//! The plan a submitted form's answers make: sorted by intent, unclear ones judged, fix tasks
//! planned, and what was resolved since the threads were collected dropped.

use review_core::followup::form::FormAnswers;
use review_core::followup::{self, DispatchMode, Issue, Sorted, Task};
use review_core::model::{PullRequest, ThreadId};

use super::{Judge, Narrator, Note, Reread, judge_unclear};
use crate::error::AppError;

/// What the answers come to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Planned {
    /// Instructions neither the rules nor the judge could place (the issue and its text):
    /// nothing is done until the operator clarifies them.
    Unclear(Vec<(Issue, String)>),
    /// Every thread skipped: nothing to do.
    Nothing,
    /// The plan to confirm.
    Plan {
        /// The answers sorted (the replies as they will be posted).
        sorted: Sorted,
        /// The fix tasks.
        tasks: Vec<Task>,
        /// How they are dispatched.
        mode: DispatchMode,
    },
}

/// Makes the plan of `answers` (a submitted form, checked against `issues`): sorted by intent,
/// the unclear instructions put to `judge` when there is one, the fix tasks planned, then the
/// PR read again and every thread resolved since it was collected dropped from the plan
/// ([`Note::DroppedStale`]).
///
/// # Errors
///
/// [`crate::ErrorKind::Port`] when the judge's calls as a whole fail or the PR cannot be read
/// again (the port's error is the source); nothing has been posted.
pub async fn plan<J: Judge, R: Reread>(
    judge: Option<&J>,
    reread: &R,
    narrator: &dyn Narrator,
    pr: &PullRequest,
    issues: &[Issue],
    answers: &FormAnswers,
) -> Result<Planned, AppError> {
    let mut sorted = followup::sort(
        issues,
        answers,
        &review_classify::instruction::read_instruction,
    );
    if let Some(judge) = judge {
        sorted = judge_unclear(judge, narrator, sorted, answers).await?;
    }
    if !sorted.unclear.is_empty() {
        return Ok(Planned::Unclear(sorted.unclear));
    }
    if sorted.fixes.is_empty() && sorted.replies.is_empty() && sorted.deferred.is_empty() {
        return Ok(Planned::Nothing);
    }
    let (mut tasks, mode) = followup::plan(&sorted.fixes);
    // Stale check: what was resolved since the threads were collected leaves the plan.
    let fresh = reread.pull_request(pr).await.map_err(AppError::port)?;
    let resolved = |id: &str| {
        fresh
            .thread(&ThreadId(id.to_owned()))
            .is_none_or(|t| t.is_resolved)
    };
    let mut dropped = followup::drop_stale(&mut tasks, &mut sorted.replies, &resolved);
    dropped.extend(followup::drop_stale(
        &mut Vec::new(),
        &mut sorted.deferred,
        &resolved,
    ));
    for thread in dropped {
        narrator.note(&Note::DroppedStale { thread });
    }
    Ok(Planned::Plan {
        sorted,
        tasks,
        mode,
    })
}
