//! `review watch`: the review loop's watcher. Polls a pull request cheaply, keeps the loop's
//! state file, and prints one JSON event per line.

use std::time::Duration;

use clap::Args;
use review_app::AppError;
use review_app::watch::Schedule;

use crate::commands::common::{AutomationArgs, PollArgs, PrArgs};
use crate::error::CliError;

/// Watch a pull request for review activity, printing one JSON event per line
///
/// Events: NEW_FINDINGS, OUT_OF_DIFF, REPOST, HUMAN_COMMENT, PUSHED, CHECKS_RED, CHECKS_CLEAR,
/// QUOTA_SPENT, STICKY_REPORT, QUIESCENT. Each names what changed; the detail is in the state
/// file (`.git/review/pulls/OWNER/NAME/N/watch.json`, shared by worktrees), which only the
/// watcher writes. A poll first asks GitHub's REST API whether anything moved, with ETags (answers of
/// 304 cost nothing), and reads the threads over GraphQL only when something did, every
/// --full-every seconds (resolutions do not show over REST), and before announcing QUIESCENT.
#[derive(Debug, Args)]
pub struct WatchArgs {
    /// The pull request: a number, a URL, or nothing for the open PR of the current branch
    #[arg(value_name = "PR")]
    pr: Option<String>,

    /// Poll once and exit
    #[arg(long)]
    once: bool,

    #[command(flatten)]
    poll: PollArgs,

    #[command(flatten)]
    target: PrArgs,

    #[command(flatten)]
    automation: AutomationArgs,
}

/// Runs `review watch`.
pub async fn run(args: WatchArgs, config: &crate::config::Config) -> Result<(), CliError> {
    let automation = args.automation.settings(config)?;
    if args.poll.expect_bots.iter().any(|b| b.trim().is_empty()) {
        return Err(CliError::Usage {
            message: "--expect-bot cannot be empty".to_owned(),
            hint: Some("pass a bot login such as coderabbitai".to_owned()),
        });
    }
    let watcher = crate::watching::Watcher::connect(
        args.pr.as_deref(),
        args.target.repo.as_deref(),
        automation,
        &args.poll,
        config,
    )
    .await?;
    let max_polls = if args.once {
        Some(1)
    } else {
        args.poll.max_polls
    };
    // A Ctrl-C during a poll is heard too: the poll ends, then the watcher stops.
    crate::command::stop_on_ctrl_c();
    let schedule = Schedule {
        interval: Duration::from_secs(args.poll.interval),
        max_polls,
    };
    let (stopped, _) =
        review_app::watch::watch(&watcher.ports(), watcher.policy(), schedule, |polled, n| {
            watcher.print(&polled.events, n).map_err(AppError::port)
        })
        .await?;
    watcher.ended(stopped)
}
