//! `review loop`: the review loop driven by the tool itself, with a judge command and a fixer
//! command, for users with no agent at hand. It shares its state, its files and its rules with
//! `watch`, `decide`, `commit-round` and `respond`, which an agent or a script drives instead.

use std::time::Duration;

use clap::Args;
use review_app::review_loop::{LoopOutcome, LoopPorts, LoopSettings, Stop};

use crate::commands::common::{self, AutomationArgs, PollArgs, PrArgs};
use crate::error::CliError;
use crate::loop_files::LoopFiles;
use crate::looping::{CommandFixRunner, CommandJudge, CtrlC, Desktop, Polling, Responding};
use crate::output;
use crate::round::ShellChecks;
use crate::watching::{self, TerminalClock, Watcher};

/// Run the review loop on a pull request: triage, fix, commit and answer, round after round
///
/// Each poll (as `review watch`) is followed by the work it calls for: every new bot finding is
/// sent to --judge-cmd (JSON on stdin, the comment fenced as data) and its answer recorded as
/// `review decide` would; VALID findings go to --fixer-cmd, and the round's fixes become one
/// commit after --check-cmd (as `review commit-round`); replies are posted from the decisions
/// (as `review respond --from-decisions`), those citing a fix once it is pushed. The loop never
/// pushes, never answers a person, and leaves escalations open. It runs until Ctrl-C or
/// --max-polls.
#[derive(Debug, Args)]
pub struct LoopArgs {
    /// The pull request: a number, a URL, or nothing for the open PR of the current branch
    #[arg(value_name = "PR")]
    pr: Option<String>,

    /// Your judge: run with `sh -c` once per finding, the finding as JSON on stdin; it answers
    /// {"verdict", "reasoning", "evidence", "fixSketch"} on stdout (docs/judge.md; `review
    /// judge-prompt loop` prints a ready prompt) [default: `commands.judge` of your config file]
    #[arg(long, visible_alias = "triager-cmd", value_name = "COMMAND")]
    judge_cmd: Option<String>,

    /// How long the judge may take per finding, in seconds
    #[arg(
        long,
        alias = "triager-timeout",
        value_name = "SECONDS",
        default_value_t = 300
    )]
    judge_timeout: u64,

    /// The fixer: run with `sh -c` in the repository root once per VALID finding; it edits
    /// files and must not commit. Without it, VALID findings wait for your own fix and
    /// `review commit-round`
    #[arg(long, value_name = "COMMAND")]
    fixer_cmd: Option<String>,

    /// How long the fixer may take per finding, in seconds
    #[arg(long, value_name = "SECONDS", default_value_t = 600)]
    fixer_timeout: u64,

    /// The project's checks, run before each round's commit; a failure stops the round
    #[arg(long, value_name = "COMMAND")]
    check_cmd: Option<String>,

    /// How long the checks may run, in seconds
    #[arg(long, value_name = "SECONDS", default_value_t = 900)]
    check_timeout: u64,

    #[command(flatten)]
    poll: PollArgs,

    /// Another path no fix may edit (repeatable; the defaults stay)
    #[arg(long = "deny-path", value_name = "PATH")]
    deny_paths: Vec<String>,

    /// The rounds the loop fixes in: past them, what it would fix is escalated (it keeps
    /// watching and answering). It also stops fixing a file after 3 new findings on lines its
    /// own fixes wrote there (knock-ons)
    #[arg(long, value_name = "N", default_value_t = review_core::knock_on::DEFAULT_MAX_ROUNDS)]
    max_rounds: u32,

    /// Show each round's summary as a desktop notification, where the system offers one
    #[arg(long)]
    notify: bool,

    /// Ask your expected bots (--expect-bot, `expect-bots` in your own config) that are late on
    /// the head (see --late-after) to review again, once per head, as `review rereview` does
    #[arg(long)]
    rereview_late: bool,

    /// Open a follow-up issue for each finding judged OUT_OF_SCOPE (once per thread, found
    /// again by a key in its body), and answer its thread with the link before resolving it;
    /// also `defer-to-issue = true` in your own config. Labels: `defer-labels`
    #[arg(long)]
    defer_to_issue: bool,

    #[command(flatten)]
    target: PrArgs,

    #[command(flatten)]
    automation: AutomationArgs,
}

/// Runs `review loop`.
pub async fn run(args: LoopArgs, config: &crate::config::Config) -> Result<(), CliError> {
    let mut args = args;
    let automation = args.automation.settings(config)?;
    args.judge_cmd = crate::config::or_configured(args.judge_cmd.as_ref(), config.judge.as_ref());
    args.fixer_cmd = crate::config::or_configured(args.fixer_cmd.as_ref(), config.fixer.as_ref());
    args.check_cmd = crate::config::or_configured(args.check_cmd.as_ref(), config.checks.as_ref());
    args.poll.expect_bots = crate::config::merged(&args.poll.expect_bots, &config.expect_bots);
    let Some(judge_cmd) = args.judge_cmd.clone().filter(|c| !c.trim().is_empty()) else {
        return Err(CliError::Usage {
            message: "the loop needs a judge command".to_owned(),
            hint: Some(
                "pass --judge-cmd, or set `commands.judge` in your config file (`review judge-prompt loop` prints a prompt for it)".to_owned(),
            ),
        });
    };
    let conn = common::connect(args.pr.as_deref(), args.target.repo.as_deref(), config).await?;
    let vcs = crate::round::loop_vcs(&conn.repo, conn.number)?;
    // A run killed while its fixer worked left edits the journal knows: undone, so the fixer
    // starts clean and nothing is applied twice.
    let (undone, left) = vcs.recover().map_err(|e| CliError::Other {
        message: format!("cannot recover the edits of a run that stopped: {e}"),
        hint: Some("fix or move away the journal it names".to_owned()),
    })?;
    if !undone.is_empty() {
        output::narrate(&format!(
            "[loop] a run that stopped left uncommitted edits of {}: undone, the fixer runs again",
            undone.join(", ")
        ));
    }
    for p in left {
        output::narrate(&format!(
            "[loop] {p} changed since an earlier run's fixer edited it; left as it is (yours)"
        ));
    }
    let files = LoopFiles::new(&vcs.state_dir()?, &conn.repo, conn.number)?;
    let repository = crate::config::repository_of(&conn.client, &conn.repo, conn.number).await?;
    let watcher = Watcher::new(
        conn,
        files.clone(),
        watching::settings(&args.poll.expect_bots, args.poll.late_after),
        automation.clone(),
        args.poll.full_every,
        Some(vcs.clone()),
    )?;
    output::narrate(&format!(
        "[loop] handling review feedback on {}#{}; it never pushes",
        watcher.conn().repo,
        watcher.conn().number
    ));
    let settings = LoopSettings {
        judge_timeout: Duration::from_secs(args.judge_timeout),
        fixer: args.fixer_cmd.is_some(),
        fixer_timeout: Duration::from_secs(args.fixer_timeout),
        check: args.check_cmd.clone(),
        check_timeout: Duration::from_secs(args.check_timeout),
        notify: args.notify,
        denied: repository.denied(&args.deny_paths, config),
        interval: Duration::from_secs(args.poll.interval),
        max_polls: args.poll.max_polls,
        max_rounds: args.max_rounds,
    };
    let judge = CommandJudge {
        command: judge_cmd,
        root: vcs.root().to_path_buf(),
    };
    let fixer = CommandFixRunner {
        command: args.fixer_cmd.clone().unwrap_or_default(),
        vcs: &vcs,
    };
    let mut responder = Responding::new(&watcher, &files, &vcs, config);
    responder.defer_to_issue = crate::deferring::wanted(args.defer_to_issue, config);
    if args.rereview_late {
        review_app::rereview::check_bots(&args.poll.expect_bots)?;
    }
    let polling = Polling {
        watcher: &watcher,
        files: &files,
        vcs: &vcs,
        rereview: args.rereview_late.then(|| args.poll.expect_bots.clone()),
    };
    let checks = ShellChecks { root: vcs.root() };
    let ports = LoopPorts {
        judge: &judge,
        fixer: &fixer,
        watcher: &polling,
        responder: &responder,
        tree: &vcs,
        checks: &checks,
        store: &files,
        clock: &TerminalClock,
        stop: &CtrlC,
        notifier: &Desktop,
        narrator: &output::Narrate,
    };
    // Ctrl-C at any point stops the loop at its next step, with its summary.
    crate::command::stop_on_ctrl_c();
    let outcome = review_app::review_loop::run(&ports, &settings).await?;
    render(&outcome)
}

/// Says why the loop stopped and its summary; Ctrl-C is exit 130.
fn render(outcome: &LoopOutcome) -> Result<(), CliError> {
    match outcome.stop {
        Stop::Closed => output::narrate("[loop] the pull request is no longer open; stopping"),
        Stop::MaxPolls => {}
        Stop::Interrupted { while_judging } => {
            if while_judging {
                output::narrate("[loop] interrupted while the judge was asked; stopping");
            }
            output::narrate("[loop] stopped by Ctrl-C");
        }
    }
    for line in outcome.summary.iter().flat_map(|s| s.lines()) {
        output::narrate(&format!("[loop] {line}"));
    }
    match outcome.stop {
        Stop::Interrupted { .. } => Err(CliError::Interrupted),
        Stop::Closed | Stop::MaxPolls => Ok(()),
    }
}
