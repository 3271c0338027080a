//! `review decide`: record triager verdicts into the loop's decisions file.

use std::collections::BTreeMap;
use std::io::Read;
use std::path::PathBuf;

use clap::Args;
use review_core::decisions::{FindingFacts, Judged, judge};
use review_core::watch::{FindingKind, ThreadFinding};
use serde::Serialize;

use crate::commands::common::{self, PrArgs};
use crate::error::CliError;
use crate::loop_files::LoopFiles;
use crate::output;

/// Record triager verdicts on the findings `review watch` found pending
///
/// An answer is the triager's final message: a JSON object {"verdict", "reasoning", "evidence",
/// "fixSketch", "resolvedSha"}, also when wrapped in a ```json fence or prose. Verdicts: VALID,
/// STALE, FALSE_POSITIVE, CONFLICTS_WITH_RULE, OUT_OF_SCOPE, ESCALATE. No answer, malformed
/// JSON, an unknown verdict or an empty evidence list is recorded as ESCALATE, and so is a
/// security-sensitive finding (the reader's `security` signal, as in triage), a fix on a
/// deny-listed path, or a fix that would push, force or delete. With --answers, a batch records exactly the findings it names: each gets one outcome
/// (a finding named with a null or empty answer was dispatched and nothing came back: it is
/// escalated); findings it does not name keep what was recorded for them, or stay pending.
///
/// Writes only the decisions file, under a lock: parallel `decide` calls lose nothing.
#[derive(Debug, Args)]
#[command(group(clap::ArgGroup::new("input").required(true).args(["finding", "answers"])))]
pub struct DecideArgs {
    /// The pull request: a number, a URL, or nothing for the open PR of the current branch
    #[arg(value_name = "PR")]
    pr: Option<String>,

    /// The fingerprint of the one finding to record (from the watch state's `pending`)
    #[arg(long, value_name = "FINGERPRINT", requires = "answer")]
    finding: Option<String>,

    /// The triager's answer for --finding: a file, or `-` for stdin
    #[arg(long, value_name = "FILE")]
    answer: Option<PathBuf>,

    /// Answers for the findings dispatched: a JSON object from fingerprint to answer (the
    /// answer as text, as an object, or null when nothing came back, which escalates); only the
    /// findings it names are recorded
    #[arg(long, value_name = "FILE", conflicts_with = "finding")]
    answers: Option<PathBuf>,

    /// The round to record them in [default: the decisions file's current round]
    #[arg(long, value_name = "N")]
    round: Option<u32>,

    /// Another path no fix may edit (repeatable; the defaults stay)
    #[arg(long = "deny-path", value_name = "PATH")]
    deny_paths: Vec<String>,

    /// Print what was recorded as JSON
    #[arg(long)]
    json: bool,

    #[command(flatten)]
    target: PrArgs,
}

/// What was recorded for one finding.
#[derive(Debug, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Recorded {
    pub fingerprint: String,
    pub thread_id: String,
    pub verdict: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
}

fn read_text(path: &std::path::Path) -> Result<String, CliError> {
    let mut text = String::new();
    let result = if path.as_os_str() == "-" {
        std::io::stdin().read_to_string(&mut text).map(|_| ())
    } else {
        std::fs::read_to_string(path).map(|t| text = t)
    };
    result.map_err(|e| CliError::Input {
        path: path.to_path_buf(),
        message: e.to_string(),
        hint: None,
    })?;
    Ok(text)
}

/// The answers of an --answers file, as raw text per fingerprint.
fn read_answers(path: &std::path::Path) -> Result<BTreeMap<String, String>, CliError> {
    let text = read_text(path)?;
    let map: BTreeMap<String, serde_json::Value> =
        serde_json::from_str(&text).map_err(|e| CliError::Input {
            path: path.to_path_buf(),
            message: format!("not an answers file: {e}"),
            hint: Some(
                "an answers file is a JSON object from fingerprint to the triager's answer; nothing was recorded"
                    .to_owned(),
            ),
        })?;
    Ok(map
        .into_iter()
        .map(|(fp, v)| {
            let raw = match v {
                serde_json::Value::Null => String::new(),
                serde_json::Value::String(s) => s,
                other => other.to_string(),
            };
            (fp, raw)
        })
        .collect())
}

/// Runs `review decide`.
pub async fn run(args: DecideArgs) -> Result<(), CliError> {
    let conn = crate::github::connect(
        args.pr.as_deref(),
        args.target.repo.as_deref(),
        &common::cwd()?,
    )
    .await?;
    let (repo, number) = (conn.repo.clone(), conn.number);
    let files = LoopFiles::here(&repo, number)?;
    let watch = files.require_watch(number)?;
    let denied = crate::config::repository_of(&conn.client, &repo, number)
        .await?
        .denied(&args.deny_paths)?;

    let pending: BTreeMap<&str, &ThreadFinding> = watch
        .pending
        .iter()
        .map(|f| (f.fingerprint.as_str(), f))
        .collect();
    let mut answers: Vec<(&ThreadFinding, String)> = Vec::new();
    let mut missing_reason = None;
    if let (Some(fp), Some(answer)) = (&args.finding, &args.answer) {
        let finding = pending.get(fp.as_str()).ok_or_else(|| CliError::NotFound {
            message: format!("no pending finding has fingerprint {fp}"),
            hint: Some(
                "the watch state's `pending` lists them; run `review watch --once` to refresh it"
                    .to_owned(),
            ),
        })?;
        answers.push((finding, read_text(answer)?));
    } else if let Some(path) = &args.answers {
        let given = read_answers(path)?;
        for (fp, _) in given
            .iter()
            .filter(|(fp, _)| !pending.contains_key(fp.as_str()))
        {
            output::narrate(&format!(
                "[decide] {fp} is not a pending finding; its answer is ignored"
            ));
        }
        // A batch records only what it answers: a verdict recorded earlier for a finding it
        // does not name stays as it was.
        for finding in watch.pending.iter().filter(|f| f.kind == FindingKind::Bot) {
            if let Some(raw) = given.get(&finding.fingerprint) {
                answers.push((finding, raw.clone()));
            }
        }
        let left = watch
            .pending
            .iter()
            .filter(|f| f.kind == FindingKind::Bot && !given.contains_key(&f.fingerprint))
            .count();
        if left > 0 {
            output::narrate(&format!(
                "[decide] {left} pending finding(s) are not in this batch: what was recorded for them stays"
            ));
        }
        missing_reason = Some("no verdict was returned for it");
    }

    let mut recorded = Vec::new();
    for (finding, raw) in &answers {
        let missing = raw.trim().is_empty().then_some(missing_reason).flatten();
        recorded.push(record_answer(
            &files, finding, raw, args.round, &denied, missing,
        )?);
    }
    assert_counts(answers.len(), recorded.len())?;

    let text = if args.json {
        serde_json::to_string_pretty(&recorded).map_err(|e| CliError::Other {
            message: e.to_string(),
            hint: None,
        })? + "\n"
    } else if recorded.is_empty() {
        "nothing pending to decide\n".to_owned()
    } else {
        recorded
            .iter()
            .map(|r| match &r.reason {
                Some(why) => format!("ESCALATE {} ({}): {why}\n", r.fingerprint, r.thread_id),
                None => format!("{} {} ({})\n", r.verdict, r.fingerprint, r.thread_id),
            })
            .collect()
    };
    if args.json {
        output::stdout(&text)
    } else {
        // Reasons may quote the triager's answer: escapes shown, not obeyed.
        output::human(&text)
    }
    .map_err(CliError::Output)
}

/// Judges a triager's `raw` answer on `finding` and records it through the decisions file's
/// locked writer. `missing` is the escalation reason to use when the answer is empty (the
/// finding was dispatched and nothing came back). A person's thread is refused.
pub(crate) fn record_answer(
    files: &LoopFiles,
    finding: &ThreadFinding,
    raw: &str,
    round: Option<u32>,
    denied: &[String],
    missing: Option<&str>,
) -> Result<Recorded, CliError> {
    if finding.kind == FindingKind::Human {
        return Err(CliError::Refused {
            message: format!(
                "thread {} has human participation: people's findings are not triaged",
                finding.thread_id
            ),
            hint: Some("leave it to the PR's author".to_owned()),
        });
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
    files.update_decisions(|d| {
        let round = round.unwrap_or_else(|| d.current_round());
        d.record(&finding.fingerprint, &finding.thread_id, judged, round);
        if let Some(seen) = d.seen.get_mut(&finding.fingerprint) {
            seen.path.clone_from(&finding.path);
        }
    })?;
    Ok(recorded)
}

/// Each finding dispatched has exactly one outcome recorded.
fn assert_counts(dispatched: usize, recorded: usize) -> Result<(), CliError> {
    if dispatched == recorded {
        Ok(())
    } else {
        Err(CliError::Other {
            message: format!("{dispatched} findings dispatched but {recorded} outcomes recorded"),
            hint: Some("run the same command again: recording is idempotent".to_owned()),
        })
    }
}
