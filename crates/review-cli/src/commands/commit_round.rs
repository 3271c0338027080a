//! `review commit-round`: one commit for the fixes of the loop's current round, then the
//! round's summary.

use std::time::Duration;

use clap::Args;
use review_app::commit_round::{Check, RoundPorts, RoundRequest, commit_round};

use crate::commands::common::{self, PrArgs};
use crate::error::CliError;
use crate::loop_files::LoopFiles;
use crate::output;
use crate::round::{ShellChecks, loop_vcs, notify};

/// Commit the current round's fixes as one commit (explicit paths, no push), and summarise
///
/// The fixes are the round's VALID verdicts (and CONFLICTS_WITH_RULE ones with a fix sketch)
/// not yet committed. Only the files named with --path are committed (by default the files of
/// those findings that have changes; an untracked file only when the loop's fixer created it:
/// files that were there before are yours and are never staged unless you name them), staged
/// by literal path; nothing else in the worktree is touched. The project's checks (--check-cmd)
/// run first: if they fail, or a commit is refused, the round stops with nothing committed and
/// its findings unresolved, and no reply claims their fix. On success the fixes record the
/// commit (their replies will cite it), the next round begins, and the summary groups the round
/// as FIXED / REJECTED / HUMAN / ESCALATED, ending with the commit and "ready to push". Git
/// hooks do not run unless --run-hooks (or `run-hooks = true` in your config): use --check-cmd
/// for the project's checks.
#[derive(Debug, Args)]
pub struct CommitRoundArgs {
    /// The pull request: a number, a URL, or nothing for the open PR of the current branch
    #[arg(value_name = "PR")]
    pr: Option<String>,

    /// A file this round edited (repeatable) [default: the round's findings' files that changed]
    #[arg(long = "path", value_name = "PATH")]
    paths: Vec<String>,

    /// The project's checks, run with `sh -c` in the repository root before committing
    /// [default: `commands.checks` of your config file]
    #[arg(long, value_name = "COMMAND")]
    check_cmd: Option<String>,

    /// How long the checks may run, in seconds
    #[arg(long, value_name = "SECONDS", default_value_t = 900)]
    check_timeout: u64,

    /// Also show the summary as a desktop notification, where the system offers one
    #[arg(long)]
    notify: bool,

    /// Another path no fix may edit (repeatable; the defaults, your config's and the
    /// repository's stay)
    #[arg(long = "deny-path", value_name = "PATH")]
    deny_paths: Vec<String>,

    #[command(flatten)]
    target: PrArgs,
}

/// Runs `review commit-round`.
pub async fn run(args: CommitRoundArgs, config: &crate::config::Config) -> Result<(), CliError> {
    let conn = common::connect(args.pr.as_deref(), args.target.repo.as_deref(), config).await?;
    let (repo, number) = (conn.repo.clone(), conn.number);
    let vcs = loop_vcs(&repo, number)?;
    let files = LoopFiles::new(&vcs.state_dir()?, &repo, number)?;
    let check_cmd = crate::config::or_configured(args.check_cmd.as_ref(), config.checks.as_ref());
    let check = check_cmd.as_deref().map(|command| Check {
        command,
        timeout: Duration::from_secs(args.check_timeout),
    });
    let denied = crate::config::repository_of(&conn.client, &repo, number)
        .await?
        .denied(&args.deny_paths, config);
    let ports = RoundPorts {
        tree: &vcs,
        store: &files,
        checks: &ShellChecks { root: vcs.root() },
        narrator: &output::Narrate,
    };
    let request = RoundRequest {
        paths: &args.paths,
        check,
        denied: &denied,
    };
    let text = commit_round(&ports, &request)?.to_string();
    output::human(&text).map_err(CliError::Output)?;
    if args.notify {
        notify(&text);
    }
    Ok(())
}
