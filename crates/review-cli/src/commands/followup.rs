//! `review followup`: the operator's pass over every unresolved thread: a form (or an answers
//! file), a plan confirmed before anything is posted, reply-only threads answered in the
//! author's words, fix tasks dispatched to a coding agent, and completion replies once the
//! fixes are pushed.

use std::io::{BufRead, IsTerminal};
use std::path::{Path, PathBuf};
use std::time::Duration;

use clap::Args;
use review_app::followup::{self as followup_app, FinishPorts, FollowupState, Planned, Tally};
use review_core::followup::form::{FormAnswers, FormStatus};
use review_core::followup::{self, Issue};
use review_core::model::PullRequest;
use review_core::text::visible_line;

use crate::commands::common::{self, AutomationArgs, PrArgs};
use crate::error::CliError;
use crate::following::{
    AgentCommand, GitHistory, GitHubReread, GitWorkspace, HelperCommand, JudgeCommand, Narration,
    OwnWordsHost, StateFile, clarifications, preview, wrap_up,
};
use crate::git::GitVcs;
use crate::github::Connection;
use crate::output;

/// The workflow's words when the branch has no open pull request.
const NO_PR: &str =
    "No open PR found for the current branch. Switch to a branch with an open PR and try again.";

/// Follow up on every unresolved thread: say what to do with each, then let the tool do it
///
/// Shows a summary and a local web form (or reads --answers FILE, the same JSON the form
/// returns) where you write, per thread, what to do. `skip`, `reply: <text>` and `fix: <text>`
/// always mean what they say; other instructions are read by rules: blank or "no action" is a
/// skip, an explanation or a refusal ("won't fix") a reply posted in your words, an imperative
/// ("use a HashMap here") a fix dispatched to --agent-cmd, and anything else unclear (then
/// nothing happens until you clarify). The plan, with every reply as it will be posted, is
/// checked against GitHub again, shown, and confirmed (--yes for scripts) before anything is
/// posted. Fix replies ("Fixed in <sha>: ...") and hiding review groups wait until the fixes
/// are on the PR's head: push, then run `review followup --finish`.
#[derive(Debug, Args)]
pub struct FollowupArgs {
    /// The pull request: a number, a URL, or nothing for the open PR of the current branch
    #[arg(value_name = "PR")]
    pr: Option<String>,

    /// Read the answers from FILE instead of showing the form (the groups it hides must be
    /// groups this follow-up shows)
    #[arg(long, value_name = "FILE")]
    answers: Option<PathBuf>,

    /// Confirm the plan without asking
    #[arg(long)]
    yes: bool,

    /// The coding agent for fix tasks, run with `sh -c` in the repository (in its own git
    /// worktree for parallel tasks), the task description on stdin and in $REVIEW_TASK_FILE
    /// (what comes from the PR fenced under a random marker); a commit of its that touches a
    /// deny-listed path does not count [default: `commands.agent` of your config file]
    #[arg(long, value_name = "COMMAND")]
    agent_cmd: Option<String>,

    /// How long one agent run may take, in seconds
    #[arg(long, value_name = "SECONDS", default_value_t = 3600)]
    agent_timeout: u64,

    /// A command that translates each comment into your language for the form (JSON on stdin:
    /// `marker`, `text` fenced, `instructions`; the translation on stdout); the original stays
    /// beside it [default: `commands.translator` of your config file, else none]
    #[arg(long, value_name = "COMMAND")]
    translator_cmd: Option<String>,

    /// A command that analyses each thread for the form's suggestion (JSON on stdin: `marker`,
    /// `comment` fenced, `path`, `line`, `diffHunk`, `instructions`; it answers {"asks", "pros",
    /// "cons", "action": "fix" | "reply" | "skip", "reasoning"}) [default: `commands.analyst`
    /// of your config file, else the comment reader's own suggestion]
    #[arg(long, value_name = "COMMAND")]
    analyst_cmd: Option<String>,

    /// A command that places the instructions the rules leave unclear (JSON on stdin: `marker`,
    /// `instruction` and `comment` fenced, `location`, `instructions`; it answers {"intent":
    /// "fix" | "reply" | "skip" | "unclear"}); never asked about `skip`, `reply:`, `fix:` or a
    /// placeholder such as "hmm"
    #[arg(long, value_name = "COMMAND")]
    judge_cmd: Option<String>,

    /// Do not try to open a browser (the form's address is printed either way)
    #[arg(long)]
    no_browser: bool,

    /// Post the replies of fixes now on the PR's head, and hide the review groups whose threads
    /// are all resolved (the group reviewer's own comments)
    #[arg(long, conflicts_with_all = ["answers", "yes"])]
    finish: bool,

    /// Another path no fix task may edit (repeatable; the defaults, your config's and the
    /// repository's stay)
    #[arg(long = "deny-path", value_name = "PATH")]
    deny_paths: Vec<String>,

    #[command(flatten)]
    target: PrArgs,

    #[command(flatten)]
    automation: AutomationArgs,
}

fn read_answers(path: &Path) -> Result<FormAnswers, CliError> {
    let text = std::fs::read_to_string(path).map_err(|e| CliError::Input {
        path: path.to_path_buf(),
        message: e.to_string(),
        hint: None,
    })?;
    serde_json::from_str(&text).map_err(|e| CliError::Input {
        path: path.to_path_buf(),
        message: format!("not a follow-up answers file: {e}"),
        hint: Some(
            "it is the JSON the form returns: {\"status\": \"submitted\", \"issues\": {\"<thread id>\": {\"instruction\", \"autoResolve\", \"action\"}}, \"groups\": {\"<group id>\": {\"hide\"}}}"
                .to_owned(),
        ),
    })
}

async fn connect(
    args: &FollowupArgs,
    config: &crate::config::Config,
) -> Result<(Connection, PullRequest), CliError> {
    match common::load(
        args.pr.as_deref(),
        args.target.repo.as_deref(),
        "[followup]",
        config,
    )
    .await
    {
        Err(CliError::NotFound { message, .. })
            if args.pr.is_none() && message.starts_with("no open PR for branch") =>
        {
            Err(CliError::NotFound {
                message: NO_PR.to_owned(),
                hint: None,
            })
        }
        other => other,
    }
}

/// Asks on the terminal whether to go on.
fn confirm(yes: bool) -> Result<bool, CliError> {
    if yes {
        return Ok(true);
    }
    if !std::io::stdin().is_terminal() {
        return Err(CliError::Usage {
            message: "the plan needs your confirmation, and there is no terminal to ask on"
                .to_owned(),
            hint: Some("pass --yes to confirm it; nothing was posted".to_owned()),
        });
    }
    output::prompt("Proceed with this plan? [y/N] ");
    let mut answer = String::new();
    std::io::stdin()
        .lock()
        .read_line(&mut answer)
        .map_err(CliError::Output)?;
    Ok(matches!(
        answer.trim().to_ascii_lowercase().as_str(),
        "y" | "yes"
    ))
}

/// Shows the form and waits for its answers.
async fn show_form(
    page: &followup::form::FormPage,
    previous: Option<&FormAnswers>,
    open_browser: bool,
) -> Result<FormAnswers, String> {
    crate::form::run_form(page, previous, open_browser)
        .await
        .map_err(|e| e.to_string())
}

/// Runs `review followup`.
pub async fn run(args: FollowupArgs, config: &crate::config::Config) -> Result<(), CliError> {
    let automation = args.automation.settings(config)?;
    let (conn, pr) = connect(&args, config).await?;
    let vcs = common::clone_here()?;
    // The deny list: the defaults, the flags, the user's file and the repository's (at the
    // base commit).
    let denied = crate::config::repository(&conn.client, &pr)
        .await?
        .denied(&args.deny_paths, config);
    if args.finish {
        let vcs = vcs.ok_or_else(|| CliError::Usage {
            message: "--finish reads what the follow-up left in the git directory".to_owned(),
            hint: Some("run it in the clone the follow-up ran in".to_owned()),
        })?;
        let tally = finish(&conn, &pr, &vcs, &automation, &denied, config).await?;
        return output::human(&wrap_up(&tally)).map_err(CliError::Output);
    }

    let signals = review_classify::analyze(&pr, &automation);
    let issues = followup::collect(&pr, &signals, &automation);
    if issues.is_empty() {
        return output::stdout("All review threads are resolved. Nothing to follow up on.\n")
            .map_err(CliError::Output);
    }
    let summary = followup::Summary::of(&pr, &issues);
    let mut page = followup::form_page(&pr, &issues, &summary);
    let translator =
        crate::config::or_configured(args.translator_cmd.as_ref(), config.translator.as_ref());
    let analyst = crate::config::or_configured(args.analyst_cmd.as_ref(), config.analyst.as_ref());
    let translator = translator.filter(|c| !c.trim().is_empty());
    let analyst = analyst.filter(|c| !c.trim().is_empty());
    if translator.is_some() || analyst.is_some() {
        // Their calls run side by side on the blocking pool; Ctrl-C stops them all.
        let dir = common::cwd().ok();
        let (filled, stopped) = crate::command::interruptible(output::carried(move || {
            if let Some(command) = translator {
                let translator = HelperCommand {
                    command,
                    dir: dir.clone(),
                };
                followup_app::translate(&translator, &Narration, &mut page);
            }
            if let Some(command) = analyst {
                followup_app::analyse(&HelperCommand { command, dir }, &Narration, &mut page);
            }
            page
        }))
        .await
        .map_err(|e| CliError::Other {
            message: format!("the translator's or analyst's calls failed: {e}"),
            hint: Some("nothing was changed; run again".to_owned()),
        })?;
        if stopped {
            output::narrate(
                "[followup] interrupted while the comments were prepared; nothing was changed",
            );
            return Err(CliError::Interrupted);
        }
        page = filled;
    }
    // The summary, with each thread's line as the form shows it (translated, when a translator
    // is set).
    let shown: Vec<Issue> = issues
        .iter()
        .map(|i| {
            let mut shown = i.clone();
            if let Some(f) = page
                .groups
                .iter()
                .flat_map(|g| g.issues.iter())
                .find(|f| f.thread_id == i.thread_id)
            {
                shown.summary.clone_from(&f.summary);
            }
            shown
        })
        .collect();
    page.summary = summary.markdown(&shown);
    output::narrate(&page.summary);

    let mut previous: Option<FormAnswers> = None;
    let (answers, sorted, tasks, mode) = loop {
        let answers = match &args.answers {
            Some(path) => read_answers(path)?,
            None => show_form(&page, previous.as_ref(), !args.no_browser)
                .await
                .map_err(|e| CliError::Other {
                    message: format!("the form could not be shown: {e}"),
                    hint: Some("pass --answers FILE to answer without a browser".to_owned()),
                })?,
        };
        followup_app::check_answers(&Narration, &answers, &issues, &pr)?;
        let json = serde_json::to_string(&answers).unwrap_or_default();
        output::stdout(&format!("{json}\n")).map_err(CliError::Output)?;
        if answers.status != FormStatus::Submitted {
            output::narrate("Triage cancelled.");
            return Ok(());
        }
        let judge = args
            .judge_cmd
            .as_deref()
            .filter(|c| !c.trim().is_empty())
            .map(|command| {
                common::cwd().map(|dir| JudgeCommand {
                    command: command.to_owned(),
                    dir,
                })
            })
            .transpose()?;
        let planned = followup_app::plan(
            judge.as_ref(),
            &GitHubReread(&conn),
            &Narration,
            &pr,
            &issues,
            &answers,
        )
        .await?;
        let (sorted, tasks, mode) = match planned {
            Planned::Unclear(unclear) => {
                output::human(&clarifications(&unclear)).map_err(CliError::Output)?;
                return Err(CliError::Usage {
                    message: format!(
                        "{} instruction(s) are ambiguous; nothing was done",
                        unclear.len()
                    ),
                    hint: Some(
                        "start each with `fix:` (a code change) or `reply:` (a comment, posted as written), or write `skip`, and run again"
                            .to_owned(),
                    ),
                });
            }
            Planned::Nothing => {
                return output::stdout("No action taken — all issues skipped.\n")
                    .map_err(CliError::Output);
            }
            Planned::Plan {
                sorted,
                tasks,
                mode,
            } => (sorted, tasks, mode),
        };
        output::narrate(&preview(
            &tasks,
            mode,
            &sorted.replies,
            &sorted.deferred,
            sorted.skipped.len(),
            &issues,
        ));
        if confirm(args.yes)? {
            break (answers, sorted, tasks, mode);
        }
        if args.answers.is_some() {
            output::narrate("[followup] not confirmed: nothing was posted");
            return Ok(());
        }
        output::narrate("[followup] not confirmed: the form opens again with your answers");
        previous = Some(answers);
    };

    let mut tally = Tally {
        triaged: issues.len(),
        skipped: sorted.skipped.len(),
        tasks: tasks.len(),
        ..Tally::default()
    };
    let host = conn.audited_host(&automation.header, vcs.as_ref());

    // Reply-only threads: the operator's words, once ever.
    tally.add(
        followup_app::post_own_replies(
            &host,
            &OwnWordsHost(&host),
            &Narration,
            &pr,
            &sorted.replies,
        )
        .await,
    );

    // Deferred threads: a follow-up issue each, then the operator's words with its link.
    if !sorted.deferred.is_empty() {
        let tracker = crate::deferring::GitHubIssues::new(&conn, pr.viewer.clone(), vcs.as_ref())?;
        tally.add(
            followup_app::defer_own(
                &host,
                &OwnWordsHost(&host),
                &tracker,
                &Narration,
                &pr,
                &sorted.deferred,
                &crate::deferring::labels(config),
            )
            .await,
        );
    }

    // Fix tasks.
    let mut owed = Vec::new();
    if !tasks.is_empty() {
        let agent = crate::config::or_configured(args.agent_cmd.as_ref(), config.agent.as_ref());
        let vcs = vcs.as_ref().ok_or_else(|| CliError::Usage {
            message: "fix tasks run in a clone of the repository".to_owned(),
            hint: Some("run review followup inside the pull request's clone".to_owned()),
        })?;
        let store = StateFile::of(vcs, &pr)?;
        let agents = AgentCommand {
            vcs,
            dir: store.path().with_file_name("followup"),
            command: agent.clone().unwrap_or_default(),
            timeout: Duration::from_secs(args.agent_timeout),
            denied: &denied,
        };
        match agent.filter(|a| !a.trim().is_empty()) {
            None => {
                let since = vcs.head_id().ok();
                let mut state = FollowupState::default();
                let written = followup_app::by_hand(
                    &agents,
                    &pr,
                    &issues,
                    &tasks,
                    since.as_deref(),
                    &mut state,
                )?;
                for (n, task) in written.iter().enumerate() {
                    output::human(&format!(
                        "\n### Task {}: {}\n\n{}",
                        n + 1,
                        visible_line(&task.title),
                        task.description
                    ))
                    .map_err(CliError::Output)?;
                }
                owed = state.completions;
                output::narrate(&format!(
                    "[followup] no agent command (--agent-cmd or commands.agent): the tasks are printed above for you to carry out; commit each fix (a `{} <thread id>` trailer names its thread), push, then run `review followup --finish` to answer and resolve the threads marked auto-resolve",
                    crate::git::THREAD_TRAILER
                ));
            }
            Some(_) => {
                let workspace = GitWorkspace {
                    vcs,
                    denied: &denied,
                };
                let ports = followup_app::DispatchPorts {
                    workspace: &workspace,
                    agents: &agents,
                    store: &store,
                };
                tally.add(ports.dispatch(&Narration, &pr, &issues, &tasks, mode)?);
            }
        }
    }
    if let Some(vcs) = &vcs {
        let store = StateFile::of(vcs, &pr)?;
        followup_app::leave_for_finish(&store, owed, followup_app::hides(&answers, &issues))?;
        tally.add(finish(&conn, &pr, vcs, &automation, &denied, config).await?);
    }
    output::human(&wrap_up(&tally)).map_err(CliError::Output)?;
    if tally.tasks_failed > 0 && tally.tasks_done == 0 {
        // A run whose every fix task failed did not do what it was asked: scripts must see it.
        return Err(CliError::Other {
            message: format!(
                "{} failed: no fix was made, and {} open",
                review_core::text::counted(tally.tasks_failed, "fix task", "fix tasks"),
                if tally.tasks_failed == 1 {
                    "its threads stay"
                } else {
                    "their threads stay"
                }
            ),
            hint: Some(
                "the reasons are above; carry the tasks out by hand, or run again".to_owned(),
            ),
        });
    }
    Ok(())
}

/// `--finish` through the CLI's adapters: GitHub with the audit log, the state file, git.
async fn finish(
    conn: &Connection,
    pr: &PullRequest,
    vcs: &GitVcs,
    automation: &review_core::gate::AutomationSettings,
    denied: &[String],
    config: &crate::config::Config,
) -> Result<Tally, CliError> {
    let store = StateFile::of(vcs, pr)?;
    let host = conn.audited_host(&automation.header, Some(vcs));
    let ports = FinishPorts {
        host: &host,
        reread: &GitHubReread(conn),
        store: &store,
        history: &GitHistory(vcs),
    };
    let tally = ports.finish(&Narration, pr, automation).await?;
    crate::statusing::refresh_if_resolved(conn, &host, automation, pr, Some(denied), config).await;
    Ok(tally)
}
