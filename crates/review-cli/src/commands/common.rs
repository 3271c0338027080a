//! Arguments and steps several commands share.

use std::path::PathBuf;

use clap::Args;
use review_core::gate::{AutomationSettings, DEFAULT_AUTOMATED_HEADER};
use review_core::model::{PullRequest, Thread, ThreadId};

use crate::error::CliError;
use crate::github::{self, Connection};
use crate::output;

/// Which pull request, on which repository.
#[derive(Debug, Args)]
pub struct PrArgs {
    /// The repository, as [HOST/]OWNER/NAME [default: GH_REPO, else the git remote of `gh repo
    /// set-default`, else `upstream`, else `origin`]
    #[arg(long, value_name = "OWNER/NAME")]
    pub repo: Option<String>,
}

/// How the watcher polls (shared by `review watch` and `review loop`).
#[derive(Debug, Args)]
pub struct PollArgs {
    /// Seconds between polls (a random tenth is added or taken off)
    #[arg(long, value_name = "SECONDS", default_value_t = 60)]
    pub interval: u64,

    /// Stop after this many polls
    #[arg(long, value_name = "N")]
    pub max_polls: Option<u64>,

    /// Read the threads in full at least this often, in seconds, even when nothing seems to
    /// have moved
    #[arg(long, value_name = "SECONDS", default_value_t = 600)]
    pub full_every: u64,

    /// A bot login to wait for before quiescence even if it has not reviewed yet (repeatable)
    #[arg(long = "expect-bot", value_name = "LOGIN")]
    pub expect_bots: Vec<String>,

    /// Minutes after a push before quiescence stops waiting for a bot that has not reviewed
    #[arg(long, value_name = "MINUTES", default_value_t = 20)]
    pub late_after: u64,
}

/// Who counts as automated.
#[derive(Debug, Args)]
pub struct AutomationArgs {
    /// Treat this login as an account that only posts automated comments (repeatable)
    #[arg(long = "automation-account", value_name = "LOGIN")]
    pub automation_accounts: Vec<String>,

    /// The header that marks automated comments posted through the PR author's account
    #[arg(long, value_name = "TEXT", default_value = DEFAULT_AUTOMATED_HEADER)]
    pub automated_header: String,

    /// Another header that marks automated comments, for tools with their own (repeatable)
    #[arg(long = "extra-header", value_name = "TEXT")]
    pub extra_headers: Vec<String>,
}

impl Default for AutomationArgs {
    /// No flag given: the default header, the user's file alone.
    fn default() -> Self {
        // No flag here requires a value (a unit test parses them from nothing).
        crate::cli::defaults().expect("automation flags parse from nothing")
    }
}

impl Default for PollArgs {
    /// No flag given: the command line's defaults.
    fn default() -> Self {
        // No flag here requires a value (a unit test parses them from nothing).
        crate::cli::defaults().expect("poll flags parse from nothing")
    }
}

impl AutomationArgs {
    /// Validated settings, with the accounts and headers of the user's file (`config`) added.
    pub fn settings(&self, config: &crate::config::Config) -> Result<AutomationSettings, CliError> {
        let usage = |message: String, hint: &str| CliError::Usage {
            message,
            hint: Some(hint.to_owned()),
        };
        if self.automated_header.trim().is_empty() {
            return Err(usage(
                "--automated-header cannot be empty".to_owned(),
                "leave it out to use the default header",
            ));
        }
        if let Some(bad) = self
            .automation_accounts
            .iter()
            .find(|a| a.trim().is_empty() || a.contains(char::is_whitespace))
        {
            return Err(usage(
                format!("`{bad}` is not a login"),
                "pass one login per --automation-account",
            ));
        }
        if self.extra_headers.iter().any(|h| h.trim().is_empty()) {
            return Err(usage(
                "--extra-header cannot be empty".to_owned(),
                "pass the text the header starts with",
            ));
        }
        Ok(AutomationSettings {
            accounts: crate::config::merged(&self.automation_accounts, &config.accounts),
            header: self.automated_header.clone(),
            extra_headers: crate::config::merged(&self.extra_headers, &config.headers),
            ..AutomationSettings::default()
        })
    }
}

/// The gate's settings for one pull request: `automation` (flags and the user's file) plus the
/// bot logins of the repository's file, the account the tool posts as (who read `pr`), the
/// comments the tool's ledger says it posted, and the threads its audit log says it resolved.
pub fn gate_for(
    mut automation: AutomationSettings,
    repository: &crate::config::RepositoryLayer,
    pr: &PullRequest,
    vcs: Option<&crate::git::GitVcs>,
) -> Result<AutomationSettings, CliError> {
    automation.bot_accounts = crate::config::Config::values(&repository.bot_accounts).collect();
    automation.viewer.clone_from(&pr.viewer);
    if let Some(dir) = state_dir(vcs)? {
        automation.own_comments = crate::ledger::for_pr(&dir, &pr.repo, pr.number)?
            .comment_ids()
            .collect();
        automation.resolved_by_tool = crate::audit::resolved_threads(&dir, &pr.repo, pr.number);
    }
    Ok(automation)
}

/// The current directory, for finding the repository and branch.
pub fn cwd() -> Result<PathBuf, CliError> {
    std::env::current_dir().map_err(|e| CliError::Other {
        message: format!("cannot read the current directory: {e}"),
        hint: None,
    })
}

/// The clone the current directory is in, if it is in one (the ledger, the audit log and the
/// loop's files live there; outside a clone there are none).
pub fn clone_here() -> Result<Option<crate::git::GitVcs>, CliError> {
    Ok(crate::git::GitVcs::open(&cwd()?).ok())
}

/// The clone the current directory is in, which the command needs: outside one, a usage error
/// saying `needs` ("the loop commits in a git repository") and `hint`.
pub fn clone_needed(needs: &str, hint: &str) -> Result<crate::git::GitVcs, CliError> {
    crate::git::GitVcs::open(&cwd()?).map_err(|e| CliError::Usage {
        message: format!("{needs}: {e}"),
        hint: Some(hint.to_owned()),
    })
}

/// Where the tool keeps its files in `vcs` (none outside a clone).
pub fn state_dir(
    vcs: Option<&crate::git::GitVcs>,
) -> Result<Option<review_local::state::StateDir>, CliError> {
    Ok(vcs.map(crate::git::GitVcs::state_dir).transpose()?)
}

/// The review loop's files of `repo#number` in `vcs` (none outside a clone).
pub fn loop_files_in(
    vcs: Option<&crate::git::GitVcs>,
    repo: &review_core::model::RepoId,
    number: u64,
) -> Result<Option<crate::loop_files::LoopFiles>, CliError> {
    state_dir(vcs)?
        .map(|dir| crate::loop_files::LoopFiles::new(&dir, repo, number))
        .transpose()
        .map_err(CliError::from)
}

/// The review loop's files of `repo#number` in the repository of the current directory.
pub fn loop_files_here(
    repo: &review_core::model::RepoId,
    number: u64,
) -> Result<crate::loop_files::LoopFiles, CliError> {
    let vcs = clone_needed(
        "the loop keeps its files in a git repository",
        "run inside a clone of the pull request's repository",
    )?;
    Ok(crate::loop_files::LoopFiles::new(
        &vcs.state_dir()?,
        repo,
        number,
    )?)
}

/// The connection to the pull request named (`pr`, `repo` as given), else the current branch's,
/// from the current directory, with the user's `config` (tokens): what every command that
/// talks to GitHub starts with.
pub async fn connect(
    pr: Option<&str>,
    repo: Option<&str>,
    config: &crate::config::Config,
) -> Result<Connection, CliError> {
    github::connect(pr, repo, &cwd()?, config).await
}

/// The repository and number of the pull request named (a number or URL: no request), or of
/// the current branch's open pull request (found on GitHub).
pub async fn pr_number(
    pr: Option<&str>,
    repo: Option<&str>,
    config: &crate::config::Config,
) -> Result<(review_core::model::RepoId, u64), CliError> {
    let cwd = cwd()?;
    match github::named_pull_request(pr, repo, &cwd)? {
        Some(found) => Ok(found),
        None => {
            let conn = github::connect(None, repo, &cwd, config).await?;
            Ok((conn.repo, conn.number))
        }
    }
}

/// A pull request read whole, the clone the command runs in (if any), and the gate's settings
/// for it ([`gate_for`]): what every command that acts on threads starts from.
#[derive(Debug)]
pub struct Gated {
    /// The connection.
    pub conn: Connection,
    /// The pull request as read.
    pub pr: PullRequest,
    /// The clone of the current directory, if it is in one.
    pub vcs: Option<crate::git::GitVcs>,
    /// `automation` completed for this pull request.
    pub automation: AutomationSettings,
}

/// Reads the pull request whole ([`load`], narrating under `tag`) and completes `automation`
/// for it with the repository's file and this clone's ledger and audit log.
pub async fn load_gated(
    pr: Option<&str>,
    repo: Option<&str>,
    tag: &str,
    automation: AutomationSettings,
    config: &crate::config::Config,
) -> Result<Gated, CliError> {
    let (conn, pr) = load(pr, repo, tag, config).await?;
    let vcs = clone_here()?;
    let repository = crate::config::repository(&conn.client, &pr).await?;
    let automation = gate_for(automation, &repository, &pr, vcs.as_ref())?;
    Ok(Gated {
        conn,
        pr,
        vcs,
        automation,
    })
}

/// Connects and reads the pull request whole, narrating under `tag` (`[threads]`, ...).
pub async fn load(
    pr: Option<&str>,
    repo: Option<&str>,
    tag: &str,
    config: &crate::config::Config,
) -> Result<(Connection, PullRequest), CliError> {
    let conn = connect(pr, repo, config).await?;
    let _spinner = output::Spinner::start(&format!("reading PR #{}", conn.number));
    let read = conn.read_pr().await?;
    let stats = conn.client.stats();
    output::narrate(&format!(
        "{tag} read PR #{} ({}): {} threads in {} requests ({} points)",
        read.number,
        read.repo,
        read.threads.len(),
        stats.requests,
        stats.points
    ));
    Ok((conn, read))
}

/// A thread id from the command line, checked to have the shape of a GraphQL node id (letters,
/// digits, `_`, `-`, `=`; at most 200 characters) before anything is asked of GitHub.
pub fn thread_id(text: &str) -> Result<ThreadId, CliError> {
    if review_github::ids::is_node_id(text) {
        Ok(ThreadId(text.to_owned()))
    } else {
        Err(CliError::Usage {
            message: format!("`{text}` is not a thread id"),
            hint: Some(
                "pass a thread's node id, such as PRRT_kwDO..., as `review threads` lists it"
                    .to_owned(),
            ),
        })
    }
}

/// The thread `id` of `pr`, if the tool may act on it on its own judgement (the gate's one
/// check, [`AutomationSettings::may_act`]): it exists, was read whole, no person took part, it
/// was not reopened after the tool resolved it, and its path is plain text.
pub fn bot_thread<'a>(
    pr: &'a PullRequest,
    id: &ThreadId,
    automation: &AutomationSettings,
) -> Result<&'a Thread, CliError> {
    let thread = pr.thread(id).ok_or_else(|| CliError::NotFound {
        message: format!("thread {id} is not on PR #{}", pr.number),
        hint: Some("list the threads with `review threads`".to_owned()),
    })?;
    automation
        .may_act(thread, pr)
        .map_err(|refusal| CliError::Refused {
            message: format!("thread {id}: {refusal}"),
            hint: Some(
                "threads a person took part in are the PR author's to answer, on GitHub".to_owned(),
            ),
        })?;
    Ok(thread)
}
