//! `review rereview`: ask the expected bots that have not reviewed the head to review it again.
//! The work is `review_app::rereview`'s; this module reads the arguments, wires the adapters
//! (`crate::rerequesting`) and prints the report.

use clap::Args;
use review_app::rereview::RereviewRequest;

use crate::commands::common::{self, AutomationArgs, PrArgs};
use crate::error::CliError;
use crate::output;
use crate::replying::PostLock;
use crate::rerequesting;

/// Ask the expected review bots to review the head again, once per head
///
/// For each expected bot (--expect-bot, and `expect-bots` in your own config; never the
/// repository's file) that has not reviewed the pull request's head: Copilot gets a review
/// request; the others get their documented re-review command as a comment from you (the
/// command first when the bot needs it to open the comment, then the tool's header and a
/// hidden key). A bot that reviewed the head, is reviewing, is out of quota or is paused is
/// left alone, and so is one without a documented command (docs/bot-channels.md lists them).
/// A command no source documents is shown, not sent, unless --send-unverified. Each bot is
/// asked at most once per head: a second run asks nothing until the next push.
///
/// Running it is the consent: nothing else sends these commands.
#[derive(Debug, Args)]
pub struct RereviewArgs {
    /// The pull request: a number, a URL, or nothing for the open PR of the current branch
    #[arg(value_name = "PR")]
    pr: Option<String>,

    /// A bot to ask, by its login (repeatable; also `expect-bots` in your config)
    #[arg(long = "expect-bot", value_name = "LOGIN", value_parser = rerequesting::bot_login)]
    expect_bots: Vec<String>,

    /// Say what would be asked, and send nothing
    #[arg(long)]
    dry_run: bool,

    /// Also send the commands no source documents (`@claude review once`, `@cubic-dev-ai review`)
    #[arg(long)]
    send_unverified: bool,

    /// Print the report as JSON (`review schema rereview` describes it)
    #[arg(long)]
    json: bool,

    #[command(flatten)]
    target: PrArgs,

    #[command(flatten)]
    automation: AutomationArgs,
}

/// Runs `review rereview`.
pub async fn run(args: RereviewArgs, config: &crate::config::Config) -> Result<(), CliError> {
    let automation = args.automation.settings(config)?;
    let expected = crate::config::merged(&args.expect_bots, &config.expect_bots);
    review_app::rereview::check_bots(&expected)?;
    let common::Gated {
        conn,
        pr,
        vcs,
        automation,
    } = common::load_gated(
        args.pr.as_deref(),
        args.target.repo.as_deref(),
        "[rereview]",
        automation,
        config,
    )
    .await?;
    // One run posts on a pull request at a time; the PR is read again under the lock.
    let _lock = PostLock::take(vcs.as_ref(), &pr)?;
    let pr = review_github::reader::Reader::new(&conn.client)
        .pull_request(&conn.repo, conn.number)
        .await
        .map_err(crate::github::read_error)?;
    let request = RereviewRequest {
        expected_bots: expected,
        send_unverified: args.send_unverified,
        dry_run: args.dry_run,
        now: Some(review_app::watch::Clock::now(
            &crate::watching::TerminalClock,
        )),
    };
    let done = rerequesting::rereview(&conn, &pr, &automation, vcs.as_ref(), &request).await?;
    let label = format!("{}#{}", pr.repo, pr.number);
    if args.json {
        let text =
            serde_json::to_string_pretty(&rerequesting::report(&label, &done)).map_err(|e| {
                CliError::Other {
                    message: e.to_string(),
                    hint: None,
                }
            })? + "\n";
        output::stdout(&text).map_err(CliError::Output)?;
    } else {
        output::narrate(&format!(
            "[rereview] {label} at {}{}",
            done.head.get(..7).unwrap_or(&done.head),
            if done.dry_run {
                " (dry run: nothing is sent)"
            } else {
                ""
            }
        ));
        output::human(&rerequesting::render(&done)).map_err(CliError::Output)?;
    }
    rerequesting::failures(&done)
}
