//! `review log`: what the tool did to a pull request, from its audit log.

use clap::Args;

use crate::commands::common::{self, PrArgs};
use crate::error::CliError;
use crate::output;

/// Show what the tool did to a pull request: every resolve, reply, comment, minimize, commit
/// and push, with the run that made it
///
/// The log is kept in the clone, under the git common directory
/// (`review/pulls/OWNER/NAME/N/audit.jsonl`), one JSON object per line, appended as each
/// mutation is made (or fails, or may have happened: `uncertain`), never rewritten.
#[derive(Debug, Args)]
pub struct LogArgs {
    /// The pull request: a number, a URL, or nothing for the open PR of the current branch
    #[arg(value_name = "PR")]
    pr: Option<String>,

    /// Only the entries of this run (the id the log shows)
    #[arg(long, value_name = "RUN")]
    run: Option<String>,

    /// Print the entries as JSON lines, as the log keeps them
    #[arg(long)]
    json: bool,

    #[command(flatten)]
    target: PrArgs,
}

/// Runs `review log`.
pub async fn run(args: LogArgs, config: &crate::config::Config) -> Result<(), CliError> {
    let (repo, number) =
        common::pr_number(args.pr.as_deref(), args.target.repo.as_deref(), config).await?;
    let vcs = common::clone_needed(
        "the audit log is kept in the clone",
        "run inside the clone the tool ran in",
    )?;
    let entries =
        crate::audit::entries(&vcs.state_dir()?, &repo, number).map_err(|e| CliError::Other {
            message: format!("cannot read the audit log: {e}"),
            hint: None,
        })?;
    let entries: Vec<_> = entries
        .into_iter()
        .filter(|e| args.run.as_deref().is_none_or(|r| e.run == r))
        .collect();
    let mut text = String::new();
    for e in &entries {
        if args.json {
            let line = serde_json::to_string(e).map_err(|e| CliError::Other {
                message: e.to_string(),
                hint: None,
            })?;
            text.push_str(&line);
            text.push('\n');
        } else {
            text.push_str(&format!(
                "{}  {}  {:<12} {:<9} {:<9} {}{}\n",
                e.time,
                e.run,
                e.command,
                e.action,
                e.outcome,
                e.target,
                if e.detail.is_empty() {
                    String::new()
                } else {
                    format!("  ({})", e.detail)
                }
            ));
        }
    }
    if entries.is_empty() && !args.json {
        text.push_str(&format!("nothing recorded for {repo}#{number}\n"));
    }
    if args.json {
        // The exact text, as kept (JSON escapes what needs escaping).
        output::stdout(&text).map_err(CliError::Output)
    } else {
        output::human(&text).map_err(CliError::Output)
    }
}
