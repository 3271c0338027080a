//! `review defer`: move a bot's finding to a follow-up issue.

use clap::Args;

use crate::commands::common::{self, AutomationArgs, PrArgs};
use crate::error::CliError;

/// Move a bot's finding to a follow-up issue
///
/// Opens an issue on the pull request's repository (its title, the finding quoted as inert
/// text, a link to the thread, and a hidden key; labels from `defer-labels` in your own
/// config), replies in the thread with the link and resolves it. Run it again and
/// nothing is opened or posted twice: the issue is found again by its key, the reply by its
/// own. Refused on a thread a person took part in: defer those in your own words through
/// `review followup`. Where the repository has its issues turned off, nothing is opened or
/// posted and the thread stays open.
#[derive(Debug, Args)]
pub struct DeferArgs {
    /// The thread's node id (`PRRT_...`, as `review threads` lists it)
    #[arg(value_name = "THREAD")]
    thread: String,

    /// Why it is deferred, said first in the issue and in the reply
    #[arg(
        long,
        value_name = "TEXT",
        default_value = crate::deferring::DEFAULT_NOTE
    )]
    note: String,

    /// The pull request: a number or URL [default: the open PR of the current branch]
    #[arg(long, value_name = "PR")]
    pr: Option<String>,

    #[command(flatten)]
    target: PrArgs,

    #[command(flatten)]
    automation: AutomationArgs,
}

/// Runs `review defer`.
pub async fn run(args: DeferArgs, config: &crate::config::Config) -> Result<(), CliError> {
    let automation = args.automation.settings(config)?;
    let id = common::thread_id(&args.thread)?;
    crate::acting::defer(
        args.pr.as_deref(),
        args.target.repo.as_deref(),
        id,
        &args.note,
        automation,
        config,
    )
    .await?
    .print()
}
