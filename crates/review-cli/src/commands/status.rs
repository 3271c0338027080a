//! `review status`: is the pull request ready? One verdict with its reasons, per-bot standings,
//! and a semantic exit code.

use std::time::Duration;

use clap::Args;
use review_app::status::WaitPolicy;
use review_core::status::{Status, Verdict};

use crate::commands::common::{AutomationArgs, PrArgs};
use crate::error::CliError;
use crate::output;
use crate::statusing::StatusReport;

/// Say whether a pull request is ready to merge, and why not
///
/// One verdict, the strongest that applies: BLOCKED (a draft, merge conflicts, a person's
/// latest review requests changes) > CI_FAILING (checks on the head failed, named) >
/// ACTION_REQUIRED (bot findings to fix or resolve, people's threads waiting for the author,
/// findings a person must decide) > WAITING (an expected bot has not reviewed the head, checks
/// running) > READY. Each bot's standing comes from its own channel: its review, its summary,
/// or its notice (reviewing, quota spent until a time, paused); a bot out of quota or paused is
/// shown, not waited for.
///
/// Exit codes: 0 READY, 8 ACTION_REQUIRED, 9 WAITING, 10 CI_FAILING, 11 BLOCKED (and 1-5 as
/// for every command when it cannot tell).
#[derive(Debug, Args)]
pub struct StatusArgs {
    /// The pull request: a number, a URL, or nothing for the open PR of the current branch
    #[arg(value_name = "PR")]
    pr: Option<String>,

    /// Print the verdict as JSON (`review schema status` describes it)
    #[arg(long)]
    json: bool,

    /// Wait until the verdict is not WAITING, polling cheaply (ETags) between full reads
    #[arg(long)]
    wait: bool,

    /// With --wait: give up after this many seconds, the verdict still WAITING (exit 9)
    #[arg(
        long,
        value_name = "SECONDS",
        default_value_t = 1800,
        requires = "wait"
    )]
    timeout: u64,

    /// With --wait: seconds between polls
    #[arg(long, value_name = "SECONDS", default_value_t = 60, requires = "wait")]
    interval: u64,

    /// Also set the verdict as the commit status `review/status` on the head (READY success,
    /// WAITING pending, the rest failure), for a branch protection rule to require; needs a
    /// token that may write commit statuses
    #[arg(long)]
    publish: bool,

    /// With --publish: as a commit status, or as a check run named `review/status` (only a
    /// GitHub App's token may create one, such as the Actions GITHUB_TOKEN; another token falls
    /// back to the commit status, with a warning); `auto`: a check run inside GitHub Actions
    /// (GITHUB_ACTIONS=true), the commit status elsewhere
    #[arg(
        long,
        value_enum,
        value_name = "HOW",
        default_value = "auto",
        requires = "publish"
    )]
    publish_as: PublishAs,

    /// A bot to wait for until it reviewed the head (repeatable; also `expect-bots` in the
    /// config)
    #[arg(long = "expect-bot", value_name = "LOGIN")]
    expect_bots: Vec<String>,

    /// Another path no fix may edit: a finding on it is a person's to decide (repeatable; the
    /// defaults, your config's and the repository's stay)
    #[arg(long = "deny-path", value_name = "PATH")]
    deny_paths: Vec<String>,

    /// A check whose failure or run holds nothing back (repeatable; its exact name)
    #[arg(long = "ignore-check", value_name = "NAME")]
    ignore_checks: Vec<String>,

    #[command(flatten)]
    target: PrArgs,

    #[command(flatten)]
    automation: AutomationArgs,
}

/// Runs `review status`.
pub async fn run(args: StatusArgs, config: &crate::config::Config) -> Result<(), CliError> {
    let automation = args.automation.settings(config)?;
    for (flag, values) in [
        ("--expect-bot", &args.expect_bots),
        ("--ignore-check", &args.ignore_checks),
    ] {
        if values.iter().any(|v| v.trim().is_empty()) {
            return Err(CliError::Usage {
                message: format!("{flag} cannot be empty"),
                hint: Some(format!("pass a name after {flag}, or leave it out")),
            });
        }
    }
    if args.wait && args.interval == 0 {
        return Err(CliError::Usage {
            message: "--interval must be at least 1 second".to_owned(),
            hint: None,
        });
    }
    let prepared = crate::statusing::prepare(
        args.pr.as_deref(),
        args.target.repo.as_deref(),
        automation,
        &args.expect_bots,
        &args.ignore_checks,
        &args.deny_paths,
        config,
    )
    .await?;
    let (status, timed_out) = if args.wait {
        crate::command::stop_on_ctrl_c();
        let waited = review_app::status::wait(
            &prepared.live,
            &prepared.live,
            &crate::watching::TerminalClock,
            &output::Narrate,
            &prepared.request,
            WaitPolicy {
                interval: Duration::from_secs(args.interval),
                timeout: Duration::from_secs(args.timeout),
            },
        )
        .await?;
        if waited.timed_out {
            output::narrate(&format!(
                "[status] stopped waiting after {} poll(s): still WAITING",
                waited.polls
            ));
        }
        (waited.status, Some(waited.timed_out))
    } else {
        (prepared.once().await?, None)
    };
    let verdict = status.verdict;
    let text = if args.json {
        let report = StatusReport::new(prepared.label.clone(), status.clone(), timed_out);
        serde_json::to_string_pretty(&report).map_err(|e| CliError::Other {
            message: e.to_string(),
            hint: None,
        })? + "\n"
    } else {
        render(&prepared.label, &status)
    };
    output::stdout(&text).map_err(CliError::Output)?;
    if args.publish {
        let how = match args.publish_as {
            PublishAs::Auto if crate::statusing::in_actions() => PublishAs::CheckRun,
            PublishAs::Auto => PublishAs::Status,
            how => how,
        };
        let published = match how {
            PublishAs::Status | PublishAs::Auto => {
                review_app::status::publish(&prepared.live, &status).await
            }
            PublishAs::CheckRun => {
                review_app::status::publish(
                    &crate::statusing::CheckRunPublisher(&prepared.live),
                    &status,
                )
                .await
            }
        };
        match published {
            Ok(state) => output::narrate(&format!(
                "[status] set {} to {} on {}",
                review_core::status::STATUS_CONTEXT,
                match state {
                    review_app::status::Published::Success => "success",
                    review_app::status::Published::Pending => "pending",
                    review_app::status::Published::Failure => "failure",
                },
                status.head_sha.get(..7).unwrap_or(&status.head_sha)
            )),
            Err(e) => {
                return Err(CliError::GitHub {
                    message: format!(
                        "cannot set the commit status {}: {e}",
                        review_core::status::STATUS_CONTEXT
                    ),
                    source: None,
                    hint: Some(
                        "the token needs write access to commit statuses (\"Commit statuses: write\" for a fine-grained token, `repo:status` for a classic one)"
                            .to_owned(),
                    ),
                });
            }
        }
    }
    match verdict {
        Verdict::Ready => Ok(()),
        other => Err(CliError::NotReady { verdict: other }),
    }
}

/// How `--publish` sets the verdict.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum PublishAs {
    /// A check run inside GitHub Actions, the commit status elsewhere.
    Auto,
    /// The commit status `review/status`.
    Status,
    /// A check run `review/status`.
    CheckRun,
}

/// The verdict for people: the verdict line, the reasons, the notes, the bots.
fn render(label: &str, status: &Status) -> String {
    use review_core::text::visible_line;
    let mut out = format!(
        "{label} at {}: {}\n",
        status.head_sha.get(..7).unwrap_or(&status.head_sha),
        status.verdict
    );
    for r in &status.reasons {
        out.push_str(&format!(
            "  {:<15} {}\n",
            r.verdict().as_str(),
            visible_line(&r.to_string())
        ));
    }
    for n in &status.notes {
        out.push_str(&format!(
            "  {:<15} {}\n",
            "note",
            visible_line(&n.to_string())
        ));
    }
    if !status.bots.is_empty() {
        out.push_str("bots:\n");
        for b in &status.bots {
            out.push_str(&format!(
                "  {}{}: {}\n",
                visible_line(&b.bot),
                if b.expected { " (expected)" } else { "" },
                b.state
            ));
        }
    }
    out
}
