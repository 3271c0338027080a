//! `decide`: a judge's answers on the bot findings a watch left pending, judged within the hard
//! gates (`review_core::decisions::judge`) and recorded in the decisions store, one outcome per
//! finding.

use std::collections::BTreeMap;

use review_core::decisions::{FindingFacts, Judged, judge};
use review_core::watch::{FindingKind, ThreadFinding, WatchState};
use serde::Serialize;

use crate::error::{AppError, ErrorKind};
use crate::ports::DecisionsStore;

/// What was recorded for one finding.
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, serde::Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Recorded {
    /// The finding's fingerprint.
    pub fingerprint: String,
    /// Its thread (or, for a finding outside the diff, its review).
    pub thread_id: review_core::site::Site,
    /// The verdict recorded: `VALID`, `STALE`, ..., or `ESCALATE`.
    pub verdict: String,
    /// For an escalation, why.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
}

/// What a judge answered: for one finding, or a batch by fingerprint.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Answers {
    /// One pending finding's answer (its final message, raw).
    One {
        /// The finding's fingerprint.
        fingerprint: String,
        /// The answer.
        raw: String,
    },
    /// A batch: the answer per fingerprint of each finding dispatched; an empty answer means
    /// nothing came back (it escalates). Only the findings it names are recorded.
    Batch(BTreeMap<String, String>),
}

/// What a `decide` came to.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Decided {
    /// One outcome per finding answered, in the watch state's order.
    pub recorded: Vec<Recorded>,
    /// Fingerprints answered that are not pending: their answers were ignored.
    pub ignored: Vec<String>,
    /// Pending bot findings a batch did not name: what was recorded for them stays.
    pub left: usize,
}

/// The escalation reason of a batch answer that is empty.
pub const NO_VERDICT: &str = "no verdict was returned for it";

/// Records `answers` on the findings `watch` left pending, in `round` (default: the store's
/// current round), with `denied` the paths no fix may edit.
pub fn decide<S: DecisionsStore>(
    store: &S,
    watch: &WatchState,
    answers: &Answers,
    round: Option<u32>,
    denied: &[String],
) -> Result<Decided, AppError> {
    let pending: BTreeMap<&str, &ThreadFinding> = watch
        .pending
        .iter()
        .map(|f| (f.fingerprint.as_str(), f))
        .collect();
    let mut decided = Decided::default();
    let mut work: Vec<(&ThreadFinding, &str, Option<&str>)> = Vec::new();
    match answers {
        Answers::One { fingerprint, raw } => {
            let finding = pending.get(fingerprint.as_str()).ok_or_else(|| {
                AppError::new(
                    ErrorKind::NotFound,
                    format!("no pending finding has fingerprint {fingerprint}"),
                    Some(
                        "the watch state's `pending` lists them; run `review watch --once` to refresh it",
                    ),
                )
            })?;
            work.push((finding, raw, None));
        }
        Answers::Batch(given) => {
            decided.ignored = given
                .keys()
                .filter(|fp| !pending.contains_key(fp.as_str()))
                .cloned()
                .collect();
            // A batch records only what it answers: a verdict recorded earlier for a finding it
            // does not name stays as it was.
            for finding in watch.pending.iter().filter(|f| f.kind == FindingKind::Bot) {
                match given.get(&finding.fingerprint) {
                    Some(raw) => work.push((finding, raw, Some(NO_VERDICT))),
                    None => decided.left += 1,
                }
            }
        }
    }
    for (finding, raw, missing) in &work {
        let missing = raw.trim().is_empty().then_some(*missing).flatten();
        decided
            .recorded
            .push(record_answer(store, finding, raw, round, denied, missing)?);
    }
    if decided.recorded.len() != work.len() {
        return Err(AppError::new(
            ErrorKind::Internal,
            format!(
                "{} findings dispatched but {} outcomes recorded",
                work.len(),
                decided.recorded.len()
            ),
            Some("run the same command again: recording is idempotent"),
        ));
    }
    Ok(decided)
}

/// Judges a judge's `raw` answer on `finding` and records it through the store. `missing` is
/// the escalation reason when the answer is empty (the finding was dispatched and nothing came
/// back). A person's finding is refused: people's threads are not triaged.
pub fn record_answer<S: DecisionsStore>(
    store: &S,
    finding: &ThreadFinding,
    raw: &str,
    round: Option<u32>,
    denied: &[String],
    missing: Option<&str>,
) -> Result<Recorded, AppError> {
    if finding.kind == FindingKind::Human {
        return Err(AppError::new(
            ErrorKind::Refused,
            format!(
                "thread {} has human participation: people's findings are not triaged",
                finding.thread_id
            ),
            Some("leave it to the PR's author"),
        ));
    }
    // The reader's own reading decides whether the finding is security-sensitive: the bot's
    // mark or the documented rule (docs/judge.md), the same as triage's.
    let family = review_classify::Family::ALL
        .into_iter()
        .find(|f| f.as_str() == finding.author)
        .unwrap_or(review_classify::Family::OtherBot);
    let security = review_classify::read_finding(family, &finding.body, &finding.path).security;
    let judged = match missing {
        Some(reason) => Judged::Escalate {
            reason: reason.to_owned(),
        },
        None => judge(
            raw,
            FindingFacts {
                path: &finding.path,
                body: &finding.body,
                denied_paths: denied,
                security: security.as_deref(),
            },
        ),
    };
    let recorded = Recorded {
        fingerprint: finding.fingerprint.clone(),
        thread_id: finding.thread_id.clone(),
        verdict: match &judged {
            Judged::Decided(a) => a.verdict.as_str().to_owned(),
            Judged::Escalate { .. } => "ESCALATE".to_owned(),
        },
        reason: match &judged {
            Judged::Escalate { reason } => Some(reason.clone()),
            Judged::Decided(_) => None,
        },
    };
    store
        .update(&mut |d| {
            let round = round.unwrap_or_else(|| d.current_round());
            d.record(
                &finding.fingerprint,
                &finding.thread_id,
                judged.clone(),
                round,
            );
            if let Some(seen) = d.seen.get_mut(&finding.fingerprint) {
                seen.path.clone_from(&finding.path);
            }
        })
        .map_err(AppError::port)?;
    Ok(recorded)
}
