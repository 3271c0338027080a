//! `review resolve`: resolve bot threads, without a reply.

use clap::Args;
use review_core::model::ThreadId;

use crate::commands::common::{self, AutomationArgs, PrArgs};
use crate::error::CliError;

/// Resolve bot threads, without a reply
///
/// Refused, for all the threads given, if any of them has human participation or could not be
/// read whole: those are the PR author's to answer.
#[derive(Debug, Args)]
pub struct ResolveArgs {
    /// The threads' node ids (`PRRT_...`, as `review threads` lists them)
    #[arg(value_name = "THREAD", required = true)]
    threads: Vec<String>,

    /// The pull request: a number or URL [default: the open PR of the current branch]
    #[arg(long, value_name = "PR")]
    pr: Option<String>,

    #[command(flatten)]
    target: PrArgs,

    #[command(flatten)]
    automation: AutomationArgs,
}

/// Runs `review resolve`.
pub async fn run(args: ResolveArgs, config: &crate::config::Config) -> Result<(), CliError> {
    let automation = args.automation.settings(config)?;
    let ids: Vec<ThreadId> = args
        .threads
        .iter()
        .map(|t| common::thread_id(t))
        .collect::<Result<_, _>>()?;
    crate::acting::resolve(
        args.pr.as_deref(),
        args.target.repo.as_deref(),
        ids,
        automation,
        config,
    )
    .await?
    .print()
}
