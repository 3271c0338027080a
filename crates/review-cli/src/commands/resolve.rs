//! `review resolve`: resolve bot threads, without a reply.

use clap::Args;
use review_core::model::ThreadId;
use review_core::ports::ReviewHost;

use crate::commands::common::{self, AutomationArgs, PrArgs};
use crate::error::CliError;
use crate::output;

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
    let (conn, pr) = common::load(
        args.pr.as_deref(),
        args.target.repo.as_deref(),
        "[resolve]",
        config,
    )
    .await?;
    let vcs = common::clone_here()?;
    let repository = crate::config::repository(&conn.client, &pr).await?;
    let automation = common::gate_for(automation, &repository, &pr, vcs.as_ref())?;
    // Check every thread before touching any.
    for id in &ids {
        common::bot_thread(&pr, id, &automation)?;
    }
    // A thread already resolved is not resolved again: a second call changes nothing.
    let (done, ids): (Vec<ThreadId>, Vec<ThreadId>) = ids
        .into_iter()
        .partition(|id| pr.thread(id).is_some_and(|t| t.is_resolved));
    for id in &done {
        output::stdout(&format!("already resolved {id}\n")).map_err(CliError::Output)?;
    }
    if ids.is_empty() {
        return Ok(());
    }
    let host = conn.audited_host(review_core::gate::DEFAULT_AUTOMATED_HEADER, vcs.as_ref());
    let results = host.resolve_threads(&ids).await;
    let mut failed = Vec::new();
    for (id, result) in ids.iter().zip(results) {
        match result {
            Ok(()) => output::stdout(&format!("resolved {id}\n")).map_err(CliError::Output)?,
            Err(e) => failed.push(format!("{id}: {e}")),
        }
    }
    crate::statusing::refresh_if_resolved(&conn, &host, &automation, &pr, None, config).await;
    if failed.is_empty() {
        Ok(())
    } else {
        Err(CliError::GitHub {
            message: format!(
                "{} of {} threads were not resolved:\n  {}",
                failed.len(),
                ids.len(),
                failed.join("\n  ")
            ),
            source: None,
            hint: Some(
                "run again with the threads that failed; resolving twice is harmless".to_owned(),
            ),
        })
    }
}
