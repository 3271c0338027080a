//! `review decide`: record triager verdicts into the loop's decisions file.

use std::collections::BTreeMap;
use std::io::Read;
use std::path::PathBuf;

use clap::Args;

use crate::commands::common::PrArgs;
use crate::error::CliError;
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

/// The answers of an --answers file.
fn read_answers(path: &std::path::Path) -> Result<review_app::decide::Answers, CliError> {
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
    Ok(crate::deciding::batch(map))
}

/// Runs `review decide`.
pub async fn run(args: DecideArgs, config: &crate::config::Config) -> Result<(), CliError> {
    let answers = match (&args.finding, &args.answer, &args.answers) {
        (Some(fp), Some(answer), _) => review_app::decide::Answers::One {
            fingerprint: fp.clone(),
            raw: read_text(answer)?,
        },
        (_, _, Some(path)) => read_answers(path)?,
        _ => review_app::decide::Answers::Batch(BTreeMap::new()),
    };
    let recorded = crate::deciding::decide(
        args.pr.as_deref(),
        args.target.repo.as_deref(),
        &answers,
        args.round,
        &args.deny_paths,
        config,
    )
    .await?;

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
