//! `review reply`: reply in a bot thread.

use std::io::Read;
use std::path::PathBuf;

use clap::Args;
use review_core::ports::{HostError, ReviewHost};
use review_core::post;

use crate::commands::common::{self, AutomationArgs, PrArgs};
use crate::error::CliError;
use crate::output;

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
    let (conn, pr) = common::load(
        args.pr.as_deref(),
        args.target.repo.as_deref(),
        "[reply]",
        config,
    )
    .await?;
    let vcs = common::clone_here()?;
    let repository = crate::config::repository(&conn.client, &pr).await?;
    let automation = common::gate_for(automation, &repository, &pr, vcs.as_ref())?;
    let thread = common::bot_thread(&pr, &id, &automation)?;
    let key = post::idempotency_key(&id, &text);
    if let Some(existing) = thread
        .comments
        .iter()
        .find(|c| post::find_key(&c.body) == Some(key.as_str()))
    {
        output::narrate(&format!(
            "[reply] already posted in {id}; not posting it again"
        ));
        return output::stdout(&format!("{}\n", existing.url)).map_err(CliError::Output);
    }
    let body = post::marked_body(&automation.header, &text, &key);
    let host = conn.audited_host(&automation.header, vcs.as_ref());
    match host.reply(&id, &body).await {
        Ok(posted) => output::stdout(&format!("{}\n", posted.url)).map_err(CliError::Output),
        Err(HostError::NotFound(message)) => Err(CliError::NotFound {
            message,
            hint: None,
        }),
        Err(HostError::Refused(message)) => Err(CliError::Refused {
            message,
            hint: None,
        }),
        Err(
            e @ (HostError::Unavailable { .. }
            | HostError::Throttled { .. }
            | HostError::Unauthorized { .. }),
        ) => Err(CliError::GitHub {
            hint: Some(if review_github::adapter::may_have_been_posted(&e) {
                "run the same command again: it looks for this reply first and posts it only if \
                 it is not there"
                    .to_owned()
            } else {
                "run the same command again: a reply that already landed is not posted twice"
                    .to_owned()
            }),
            message: e.to_string(),
            source: None,
        }),
    }
}
