//! `review reply`: reply in a bot thread.

use std::io::Read;
use std::path::PathBuf;

use clap::Args;

use crate::commands::common::{self, AutomationArgs, PrArgs};
use crate::error::CliError;

/// Reply in a bot thread
///
/// The reply starts with the automated-comment header and carries a hidden key, so it never
/// makes the thread look human and running the same command twice posts it once. Refused on a
/// thread with human participation.
#[derive(Debug, Args)]
pub struct ReplyArgs {
    /// The thread's node id (`PRRT_...`, as `review threads` lists it)
    #[arg(value_name = "THREAD")]
    thread: String,

    /// The text of the reply
    #[arg(
        long,
        value_name = "TEXT",
        conflicts_with = "body_file",
        required_unless_present = "body_file"
    )]
    body: Option<String>,

    /// Read the text of the reply from a file (`-` for stdin)
    #[arg(long, value_name = "FILE")]
    body_file: Option<PathBuf>,

    /// The pull request: a number or URL [default: the open PR of the current branch]
    #[arg(long, value_name = "PR")]
    pr: Option<String>,

    #[command(flatten)]
    target: PrArgs,

    #[command(flatten)]
    automation: AutomationArgs,
}

fn read_body(args: &ReplyArgs) -> Result<String, CliError> {
    let text = match (&args.body, &args.body_file) {
        (Some(body), _) => body.clone(),
        (None, Some(path)) if path.as_os_str() == "-" => {
            let mut text = String::new();
            std::io::stdin()
                .read_to_string(&mut text)
                .map_err(CliError::Output)?;
            text
        }
        (None, Some(path)) => std::fs::read_to_string(path).map_err(|e| CliError::Input {
            path: path.clone(),
            message: e.to_string(),
            hint: None,
        })?,
        (None, None) => String::new(),
    };
    if text.trim().is_empty() {
        return Err(CliError::Usage {
            message: "the reply is empty".to_owned(),
            hint: Some("pass the text with --body TEXT or --body-file FILE".to_owned()),
        });
    }
    Ok(text)
}

/// Runs `review reply`.
pub async fn run(args: ReplyArgs, config: &crate::config::Config) -> Result<(), CliError> {
    let automation = args.automation.settings(config)?;
    let text = read_body(&args)?;
    let id = common::thread_id(&args.thread)?;
    crate::acting::reply(
        args.pr.as_deref(),
        args.target.repo.as_deref(),
        id,
        &text,
        automation,
        config,
    )
    .await?
    .print()
}
