//! The instructions the rules leave unclear, placed by a judge command.

use std::future::Future;

use review_core::followup::form::{ChosenAction, FormAnswers};
use review_core::followup::{self, Intent, Issue, Sorted};

use super::{Judged, Narrator, Note};
use crate::error::AppError;

/// One instruction put to the judge, with what it answers.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct JudgeQuestion {
    /// The operator's instruction, as written (from the form: data, to be fenced).
    pub instruction: String,
    /// The reviewer's comment it answers (from the PR: data, to be fenced).
    pub comment: String,
    /// Where the comment is (`path:line`, or the general comment's place).
    pub location: String,
    /// What the judge is asked to do ([`followup::JUDGE_INSTRUCTIONS`]).
    pub instructions: &'static str,
}

/// The judge command: each question asked (side by side, as the caller likes), one raw answer
/// per question in order, or why there is none (a command that failed, timed out, or could not
/// be run). The answers are read by the use-case ([`followup::judged_intent`]).
pub trait Judge {
    /// Why the calls as a whole failed (interrupted, say): nothing is posted after it.
    type Error: std::error::Error + Send + Sync + 'static;

    /// The judge's answers to `questions`, in their order.
    fn ask(
        &self,
        questions: &[JudgeQuestion],
    ) -> impl Future<Output = Result<Vec<Result<String, String>>, Self::Error>>;
}

/// Asks `judge` about each instruction the rules left unclear and a judge may place (the
/// selector on auto, [`followup::Reading::judgeable`]); moves those it places to the fixes,
/// replies or skips, each narrated ([`Note::Judged`]). What it does not place, or could not be
/// asked about, stays unclear: a failing judge changes nothing. The lists keep thread order.
///
/// # Errors
///
/// [`crate::ErrorKind::Port`] when the judge's calls as a whole fail (the port's error is the
/// source); nothing has been posted then.
pub async fn judge_unclear<J: Judge>(
    judge: &J,
    narrator: &dyn Narrator,
    mut sorted: Sorted,
    answers: &FormAnswers,
) -> Result<Sorted, AppError> {
    let mut asked = Vec::new();
    let mut questions = Vec::new();
    let mut kept = Vec::new();
    for (issue, text) in std::mem::take(&mut sorted.unclear) {
        let answer = answers
            .issues
            .get(&issue.thread_id)
            .cloned()
            .unwrap_or_default();
        let reading = review_classify::instruction::read_instruction(&text);
        if reading.judgeable && answer.action == ChosenAction::Auto {
            questions.push(JudgeQuestion {
                instruction: text.clone(),
                comment: issue.top_comment.clone(),
                location: issue.location(),
                instructions: followup::JUDGE_INSTRUCTIONS,
            });
            asked.push((issue, text, answer));
        } else {
            kept.push((issue, text));
        }
    }
    sorted.unclear = kept;
    if asked.is_empty() {
        return Ok(sorted);
    }
    let verdicts = judge.ask(&questions).await.map_err(AppError::port)?;
    // A judge that answers fewer times than asked leaves the rest unclear.
    let mut verdicts = verdicts.into_iter();
    for (issue, text, mut answer) in asked {
        let verdict = verdicts
            .next()
            .unwrap_or_else(|| Err("gave no answer".to_owned()));
        let placed = verdict
            .as_ref()
            .ok()
            .and_then(|out| followup::judged_intent(out));
        let judged = match (&verdict, placed) {
            (Err(why), _) => Judged::Failed(why.clone()),
            (Ok(_), None) => Judged::NotPlaced,
            (Ok(_), Some(intent)) => Judged::Placed(intent),
        };
        narrator.note(&Note::Judged {
            number: issue.number,
            verdict: judged,
        });
        answer.instruction.clone_from(&text);
        match placed {
            Some(Intent::Fix) => sorted.fixes.push((issue, answer)),
            Some(Intent::Reply) => sorted.replies.push((issue, answer)),
            Some(Intent::Skip) => sorted.skipped.push(issue),
            // `judged_intent` never places a defer: only the operator's `defer:` opens an issue.
            Some(Intent::Unclear | Intent::Defer) | None => sorted.unclear.push((issue, text)),
        }
    }
    // Thread order, as the rules left them.
    let order = |i: &Issue| i.number;
    sorted.fixes.sort_by_key(|(i, _)| order(i));
    sorted.replies.sort_by_key(|(i, _)| order(i));
    sorted.skipped.sort_by_key(order);
    sorted.unclear.sort_by_key(|(i, _)| order(i));
    Ok(sorted)
}
