//! `review triage`: classify every unresolved review thread and decide what happens to it.
//! The work is `review_app::triage`'s; this module reads the arguments and the configuration,
//! reads the pull request, runs the pre-review, wires the adapters (`crate::triaging`) and
//! prints the report.

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use clap::Args;
use review_app::triage::{self, SubstepResult, TriagePorts};
use review_core::model::{PullRequest, RepoId, ThreadId};
use review_core::plan::{FixHistory, FixSettings, TriageSettings};
use review_core::ports::{ReviewHost, Vcs};
use review_core::rules::LadderMode;
use review_core::text::counted;
use review_github::pr_ref::PrRef;

use crate::commands::common::{self, AutomationArgs};
use crate::error::CliError;
use crate::fixer::CommandFixer;
use crate::git::GitVcs;
use crate::output;
use crate::prereview;
use crate::render;
use crate::replying::History;
use crate::triaging;

/// Classify every unresolved review thread and plan what to do with each
///
/// Bot threads are classified actionable, nit or ambiguous; ambiguous ones go through the
/// autonomy ladder; threads with any human participation are always left to the PR's author.
/// Without --apply nothing is changed.
#[derive(Debug, Args)]
pub struct TriageArgs {
    /// The pull request: a number, a URL, or nothing for the open PR of the current branch
    #[arg(value_name = "PR")]
    pr: Option<String>,

    /// Read the pull request from a recorded snapshot instead of GitHub; nothing is changed
    #[arg(long, value_name = "FILE")]
    input: Option<PathBuf>,

    /// The repository, as [HOST/]OWNER/NAME [default: GH_REPO, else the git remote of `gh repo
    /// set-default`, else `upstream`, else `origin`]
    #[arg(long, value_name = "OWNER/NAME")]
    repo: Option<String>,

    /// Print the report as JSON (documented in docs/report-format.md)
    #[arg(long)]
    json: bool,

    /// Carry the plan out: commit each fix locally (one commit per thread, only the edited file)
    /// and resolve nits and fixed threads on GitHub, without replies; pushes only with --push
    #[arg(long, conflicts_with = "input")]
    apply: bool,

    /// Also append the report for people to FILE, as Markdown (a CI job summary such as
    /// $GITHUB_STEP_SUMMARY), whatever stdout gets
    #[arg(long, value_name = "FILE")]
    summary_file: Option<PathBuf>,

    /// Only plan, even when your config file sets `defaults.apply = true`
    #[arg(long, conflicts_with = "apply")]
    no_apply: bool,

    /// A command that makes fixes other than suggestion blocks (a coding agent or script); it
    /// gets the task as JSON on stdin, the comment fenced as data, and must only edit files
    #[arg(long, value_name = "COMMAND")]
    fixer_cmd: Option<String>,

    /// How long the fixer may take for one thread, in seconds
    #[arg(long, value_name = "SECONDS", default_value_t = 600)]
    fixer_timeout: u64,

    /// Text that marks a bot comment as a protocol signal between tools, not a finding (for
    /// example "approval dismissed"); such threads are left alone (repeatable)
    #[arg(long = "protocol-signal", value_name = "TEXT")]
    protocol_signals: Vec<String>,

    /// Your judge: a command (a coding agent, a script) that decides the judgement calls for
    /// each bot thread, within the hard gates no answer overrides. It gets the evidence as JSON
    /// on stdin, the comment fenced as data, and answers {"class", "reason", "rung"} on stdout
    /// (docs/judge.md; `review judge-prompt triage` prints a ready prompt). Named here it also
    /// runs in a plan; from your config file (`commands.judge`) only with --apply. Without
    /// one, the built-in ladder decides
    #[arg(long, visible_alias = "triager-cmd", value_name = "COMMAND")]
    judge_cmd: Option<String>,

    /// How long the judge may take for one thread, in seconds
    #[arg(
        long,
        alias = "triager-timeout",
        value_name = "SECONDS",
        default_value_t = 300
    )]
    judge_timeout: u64,

    /// Ask the judge about at most N threads this run (the ambiguous first); the rest keep the
    /// reader's class
    #[arg(long, value_name = "N", requires = "judge_cmd")]
    judge_max: Option<usize>,

    /// Push the fix commits to the PR's branch after --apply (never forced), then resolve the
    /// threads they fix
    #[arg(long, requires = "apply")]
    push: bool,

    /// Do not push, even when your config file sets `defaults.push = true`
    #[arg(long, conflicts_with = "push")]
    no_push: bool,

    /// A reviewer command to run before triage (the workflow's pre-review): on the first pass,
    /// then only when the code changed since it last ran; it gets the PR as JSON on stdin
    #[arg(long, value_name = "COMMAND")]
    reviewer_cmd: Option<String>,

    /// How long the reviewer may take, in seconds
    #[arg(long, value_name = "SECONDS", default_value_t = 1800)]
    reviewer_timeout: u64,

    /// Skip the pre-review even though the code changed since it last ran (said in the report)
    #[arg(long, requires = "reviewer_cmd")]
    skip_pre_review: bool,

    /// On a terminal, with --apply: offer to commit a bot's suggestion in a thread a person took
    /// part in (each asked one by one); the thread stays open for your reply
    #[arg(long, requires = "apply", conflicts_with = "substep")]
    interactive: bool,

    /// Run as a sub-step of an orchestrator: print only the workflow's JSON result (with the
    /// narration inside it), never prompt
    #[arg(long)]
    substep: bool,

    /// A thread deferred by an earlier pass: not triaged again, counted as deferred (repeatable)
    #[arg(long = "deferred", value_name = "THREAD")]
    deferred: Vec<String>,

    /// The pre-review marker commit the caller keeps; echoed back in the --substep result
    #[arg(long, value_name = "SHA")]
    marker: Option<String>,

    /// Exit with status 7 when threads still need a person (deferred threads remain)
    #[arg(long)]
    exit_code: bool,

    /// Leave every ambiguous bot thread to a person instead of consulting the autonomy ladder
    #[arg(long)]
    no_ladder: bool,

    #[command(flatten)]
    automation: AutomationArgs,

    /// Never edit this path, in addition to the defaults (`dir/` for a directory; repeatable)
    #[arg(long = "deny-path", value_name = "PATH")]
    deny_paths: Vec<String>,
}

/// Where the pull request is read from.
#[derive(Debug)]
enum Source {
    /// A recorded snapshot; the PR number and repository, when given, must match it.
    Snapshot {
        path: PathBuf,
        pr: Option<u64>,
        repo: Option<RepoId>,
    },
    /// GitHub.
    Live {
        pr: Option<String>,
        repo: Option<String>,
    },
}

/// The validated settings of one triage run.
#[derive(Debug)]
struct Settings {
    source: Source,
    apply: bool,
    substep: bool,
    marker: Option<String>,
    exit_code: bool,
    fixer: Option<(String, std::time::Duration)>,
    reviewer: Option<(String, std::time::Duration)>,
    skip_pre_review: bool,
    push: bool,
    judge: Option<crate::judge::JudgeCmd>,
    interactive: bool,
    json: bool,
    summary_file: Option<PathBuf>,
    /// What the plan leaves out and says so (a reviewer named for a plan).
    plan_notes: Vec<String>,
    /// `--deny-path`, merged into the deny list once the repository's file is read.
    deny_flags: Vec<String>,
    triage: TriageSettings,
    /// `--protocol-signal` texts, blank ones dropped.
    protocol_signals: Vec<String>,
}

impl Settings {
    fn from_args(mut args: TriageArgs, config: &crate::config::Config) -> Result<Self, CliError> {
        let mut plan_notes = Vec::new();
        let usage = |message: String, hint: &str| CliError::Usage {
            message,
            hint: Some(hint.to_owned()),
        };
        // Flags win; what they leave unset comes from the user's config file.
        let default_on =
            |v: &Option<(bool, crate::config::Source)>| v.as_ref().is_some_and(|(on, _)| *on);
        if args.input.is_none() && !args.no_apply && default_on(&config.apply) {
            args.apply = true;
        }
        if args.apply && !args.no_push && default_on(&config.push) {
            args.push = true;
        }
        // A sub-step acts (it fixes, pushes and resolves, as the workflow's sub-step does): with
        // no consent to act it is refused, rather than answered with planned counts an
        // orchestrator would take for done. A recorded snapshot is only ever planned.
        if args.substep && !args.apply && args.input.is_none() {
            return Err(usage(
                "--substep acts as the workflow's sub-step does, and acting needs --apply"
                    .to_owned(),
                "pass --apply (and --push to push the fixes), or leave out --substep to see the plan",
            ));
        }
        let configured = |flag: Option<&String>, value| crate::config::or_configured(flag, value);
        args.fixer_cmd = configured(args.fixer_cmd.as_ref(), config.fixer.as_ref());
        // A plan runs no reviewer (whose job is to post a review) and no fixer; a judge only
        // when the command line names one: a configured judge runs with --apply.
        if args.apply {
            args.judge_cmd = configured(args.judge_cmd.as_ref(), config.judge.as_ref());
            args.reviewer_cmd = configured(args.reviewer_cmd.as_ref(), config.reviewer.as_ref());
        } else if args.reviewer_cmd.is_some() {
            plan_notes.push(
                "[triage] step 2 — skip pre-review: a plan runs no reviewer (it would post a review); pass --apply to run it"
                    .to_owned(),
            );
            args.reviewer_cmd = None;
        }
        let source = match args.input {
            None => Source::Live {
                pr: args.pr,
                repo: args.repo,
            },
            Some(path) => {
                let (pr, url_repo) = match args.pr.as_deref() {
                    Some(text) => {
                        let (n, repo) = parse_pr(text)?;
                        (Some(n), repo)
                    }
                    None => (None, None),
                };
                let flag_repo = args
                    .repo
                    .as_deref()
                    .map(RepoId::parse)
                    .transpose()
                    .map_err(|e| {
                        usage(
                            e.to_string(),
                            "pass --repo as OWNER/NAME, e.g. --repo acme/widgets",
                        )
                    })?;
                if let (Some(url), Some(flag)) = (&url_repo, &flag_repo)
                    && url != flag
                {
                    return Err(usage(
                        format!("the PR URL names {url} but --repo names {flag}"),
                        "pass one of them, or make them agree",
                    ));
                }
                Source::Snapshot {
                    path,
                    pr,
                    repo: flag_repo.or(url_repo),
                }
            }
        };
        let automation = args.automation.settings(config)?;
        // The deny list is assembled once the repository's file is read (`run`).
        let fixes = FixSettings {
            fixer_available: args
                .fixer_cmd
                .as_deref()
                .is_some_and(|c| !c.trim().is_empty()),
            ..FixSettings::default()
        };
        if let Some(bad) = args
            .deferred
            .iter()
            .find(|t| t.trim().is_empty() || t.contains(char::is_whitespace))
        {
            return Err(usage(
                format!("`{bad}` is not a thread id"),
                "pass thread node ids such as PRRT_kwDO...",
            ));
        }
        if let Some(m) = &args.marker
            && (m.is_empty() || !m.chars().all(|c| c.is_ascii_hexdigit()))
        {
            return Err(usage(
                format!("`{m}` is not a commit id"),
                "pass the marker as a hex commit id",
            ));
        }
        Ok(Self {
            deny_flags: args.deny_paths.clone(),
            source,
            apply: args.apply,
            substep: args.substep,
            marker: args.marker,
            exit_code: args.exit_code,
            reviewer: args.reviewer_cmd.filter(|c| !c.trim().is_empty()).map(|c| {
                (
                    c,
                    std::time::Duration::from_secs(args.reviewer_timeout.max(1)),
                )
            }),
            skip_pre_review: args.skip_pre_review,
            push: args.push,
            interactive: args.interactive,
            judge: args
                .judge_cmd
                .filter(|c| !c.trim().is_empty())
                .map(|command| crate::judge::JudgeCmd {
                    command,
                    timeout: std::time::Duration::from_secs(args.judge_timeout.max(1)),
                    max: args.judge_max,
                }),
            fixer: args
                .fixer_cmd
                .filter(|c| !c.trim().is_empty())
                .map(|c| (c, std::time::Duration::from_secs(args.fixer_timeout.max(1)))),
            json: args.json,
            summary_file: args.summary_file,
            plan_notes,
            triage: TriageSettings {
                automation,
                ladder: if args.no_ladder {
                    LadderMode::Off
                } else {
                    LadderMode::Hints
                },
                fixes,
                history: FixHistory::default(),
                deferred: args.deferred.into_iter().map(ThreadId).collect(),
                judged: BTreeMap::new(),
                severity_floor: config.min_severity.as_ref().map(|(floor, _)| *floor),
                protocol_signalled: std::collections::BTreeSet::new(),
            },
            protocol_signals: args
                .protocol_signals
                .into_iter()
                .filter(|s| !s.trim().is_empty())
                .collect(),
        })
    }
}

/// Reads the PR argument: `482`, `#482` or a pull request URL (which also names the repository).
fn parse_pr(text: &str) -> Result<(u64, Option<RepoId>), CliError> {
    match PrRef::parse(text) {
        Ok(PrRef::Number(n)) => Ok((n, None)),
        Ok(PrRef::Url(url)) => Ok((url.number, Some(url.repo))),
        other => Err(CliError::Usage {
            message: other.err().map_or_else(|| format!("`{text}` names no pull request"), |e| e.to_string()),
            hint: Some(
                "pass a number such as 482, or a URL such as https://github.com/OWNER/REPO/pull/482"
                    .to_owned(),
            ),
        }),
    }
}

/// Runs `review triage`: reads the pull request, runs the pre-review, wires the adapters
/// (`crate::triaging`), runs `review_app::triage`, and prints the report.
pub async fn run(args: TriageArgs, config: &crate::config::Config) -> Result<(), CliError> {
    let mut settings = Settings::from_args(args, config)?;
    if settings.substep {
        output::collect_narration();
    }
    let narrator = output::Narrate;
    let mut connection = None;
    let mut pr = match &settings.source {
        Source::Snapshot { path, pr, repo } => triaging::read_recorded(path, *pr, repo.as_ref())?,
        Source::Live { pr, repo } => {
            let (conn, read) = triaging::read_live(pr.as_deref(), repo.as_deref(), config).await?;
            connection = Some(conn);
            read
        }
    };
    if let Some(closed) = triage::closed(&pr, &narrator) {
        return print_closed(&closed, &settings);
    }
    // The repository's own file, read at the PR's base commit through the API (never from the
    // working tree, which is the pull request's content).
    let repository = match &connection {
        Some(conn) => crate::config::repository(&conn.client, &pr).await?,
        None => crate::config::RepositoryLayer::default(),
    };
    // The deny list, one way for every command: the defaults, the flags, the user's file and
    // the repository's.
    settings.triage.fixes.denied_paths = repository.denied(&settings.deny_flags, config);
    let mut pre_review = "skip";
    match (&settings.source, &settings.reviewer, &connection) {
        (Source::Snapshot { .. }, _, _) => {
            output::narrate(
                "[triage] step 2 — skip pre-review: a recorded snapshot cannot be reviewed again",
            );
        }
        _ if settings.substep => {
            output::narrate("[triage] step 2 — skip pre-review as a sub-step: the caller runs it");
        }
        (_, None, _) if !settings.plan_notes.is_empty() => {
            for note in &settings.plan_notes {
                output::narrate(note);
            }
        }
        (_, None, _) => {
            output::narrate("[triage] step 2 — skip pre-review: no reviewer command configured");
        }
        (_, Some((command, timeout)), Some(conn)) => match GitVcs::open(&common::cwd()?) {
            Ok(vcs) => {
                if prereview::run(&vcs, &pr, command, *timeout, settings.skip_pre_review)?
                    == prereview::Outcome::Ran
                {
                    pre_review = "ran";
                    output::narrate(
                        "[triage] step 2 — the reviewer finished; reading the PR again for its findings",
                    );
                    pr = conn.read_pr().await?;
                }
            }
            Err(e) => output::narrate(&format!(
                "[triage] step 2 — warning: skip pre-review, it needs a local checkout: {e}"
            )),
        },
        (_, Some(_), None) => {}
    }

    // The local checkout: where fixes are made, and where earlier fixes are found.
    let vcs = match &settings.source {
        Source::Snapshot { .. } => None,
        Source::Live { .. } => triaging::checkout(&pr, settings.apply)?,
    };
    // What the gate knows of this PR: the repository's bot logins, the account the tool posts
    // as, its own comments (ledger) and the threads it resolved (audit log).
    settings.triage.automation = common::gate_for(
        settings.triage.automation.clone(),
        &repository,
        &pr,
        vcs.as_ref(),
    )?;

    // The adapters: GitHub with the audit log, the fixer and judge commands, git, the terminal.
    let acting = match (&connection, &vcs) {
        (Some(conn), Some(vcs)) if settings.apply => Some((conn, vcs)),
        _ => None,
    };
    if acting.is_some() {
        // Before any write: the account the resolves (and pushes' threads) go out as.
        output::narrate(&format!(
            "[triage] step 1 — writes go out as {}",
            output::account(pr.viewer.as_deref())
        ));
    }
    let host = acting.map(|(conn, vcs)| {
        conn.audited_host(review_core::gate::DEFAULT_AUTOMATED_HEADER, Some(vcs))
    });
    let fixer =
        acting
            .and(settings.fixer.as_ref())
            .zip(vcs.as_ref())
            .map(|((cmd, timeout), vcs)| {
                CommandFixer::new(cmd.clone(), vcs.clone(), Arc::new(pr.clone()), *timeout)
            });
    let judge = match &settings.judge {
        Some(judge) => Some(triaging::CommandJudge {
            judge: judge.clone(),
            connection: connection.as_ref(),
            vcs: vcs.as_ref(),
            dir: common::cwd()?,
        }),
        None => None,
    };
    let pusher = acting.map(|(conn, vcs)| triaging::GitPusher { vcs, conn });
    let stop = Arc::new(AtomicBool::new(false));
    // Ctrl-C stops at the next checkpoint; what was done so far is still reported.
    let watcher = acting.map(|_| {
        let flag = stop.clone();
        tokio::spawn(async move {
            crate::command::ctrl_c().await;
            flag.store(true, Ordering::SeqCst);
        })
    });
    let history = History(vcs.as_ref());
    let ports = TriagePorts {
        host: host.as_ref().map(|h| h as &dyn ReviewHost),
        vcs: vcs.as_ref().map(|v| v as &dyn Vcs),
        history: &history,
        fixer: fixer.as_ref().map(|f| f as &dyn review_core::ports::Fixer),
        judge: judge.as_ref(),
        prompt: Some(&triaging::Terminal),
        pusher: pusher.as_ref(),
        narrator: &narrator,
        stop: &stop,
    };
    let app_settings = triage::Settings {
        apply: settings.apply,
        push: settings.push,
        interactive: settings.interactive,
        triage: settings.triage.clone(),
        protocol_signals: settings.protocol_signals.clone(),
    };
    let outcome = ports.triage(&pr, &app_settings).await;
    if let Some(watcher) = watcher {
        watcher.abort();
    }
    if let (Some(conn), Some(host)) = (&connection, &host) {
        crate::statusing::refresh_if_resolved(
            conn,
            host,
            &settings.triage.automation,
            &pr,
            Some(&settings.triage.fixes.denied_paths),
            config,
        )
        .await;
    }
    let triaged = match outcome.map_err(triaging::cli_error)? {
        triage::Outcome::Closed(closed) => return print_closed(&closed, &settings),
        triage::Outcome::Triaged(triaged) => triaged,
    };
    render_triaged(&pr, &triaged, &settings, pre_review)
}

/// Prints what a run on a closed or merged PR prints: with `--substep`, the orchestrator still
/// gets its result (nothing done, and why).
fn print_closed(closed: &triage::Closed, settings: &Settings) -> Result<(), CliError> {
    if settings.substep {
        let result = SubstepResult::new(
            &closed.head,
            None,
            settings.marker.as_deref(),
            output::collected_narration(),
        );
        output::stdout(&triaging::substep_json(&result)).map_err(CliError::Output)?;
    }
    Ok(())
}

/// Prints the report (the `--substep` result, JSON, or for people), appends the summary file,
/// and maps what the run left to the exit code.
fn render_triaged(
    pr: &PullRequest,
    triaged: &triage::Triaged,
    settings: &Settings,
    pre_review: &str,
) -> Result<(), CliError> {
    let report = &triaged.report;
    let human = !settings.substep && !settings.json;
    let text = if settings.substep {
        output::narrate(&report.summary_line(pre_review));
        triaging::substep_json(
            &triaged.substep(settings.marker.as_deref(), output::collected_narration()),
        )
    } else if settings.json {
        let mut json = serde_json::to_string_pretty(report).map_err(|e| CliError::Other {
            message: format!("cannot encode the report: {e}"),
            hint: None,
        })?;
        json.push('\n');
        json
    } else {
        render::report(pr, report, settings.apply)
    };
    if human {
        output::human(&text)
    } else {
        output::stdout(&text)
    }
    .map_err(CliError::Output)?;
    if let Some(path) = &settings.summary_file {
        let markdown = format!(
            "### review triage of #{}\n\n{}\n\n```text\n{}```\n",
            pr.number,
            report.summary_line(pre_review),
            render::report(pr, report, settings.apply)
        );
        append(path, &markdown)?;
    }
    if !settings.substep {
        output::narrate(&report.summary_line(pre_review));
    }
    if triaged.interrupted {
        return Err(CliError::Interrupted);
    }
    if let triage::Pushed::Failed(why) = &triaged.pushed {
        return Err(CliError::Other {
            message: format!("the push failed: {why}"),
            hint: Some(
                "the fixes are committed locally; pull or rebase, then push yourself and run again"
                    .to_owned(),
            ),
        });
    }
    // GitHub failed some resolves (the report says why): not a success (exit 4, as documented).
    let unresolved = report
        .threads
        .iter()
        .filter(|t| t.deferred_because == Some(review_core::report::DeferReason::HostError))
        .count();
    if unresolved > 0 {
        return Err(CliError::GitHub {
            message: format!(
                "{} could not be resolved on GitHub",
                counted(unresolved, "thread", "threads")
            ),
            source: None,
            hint: Some(
                "the report says why; run again: what was done is not done twice".to_owned(),
            ),
        });
    }
    // Protocol signals need no person: they are the tools' business.
    let waiting = report.waiting_for_a_person().count();
    if settings.exit_code && waiting > 0 {
        return Err(CliError::NeedsPerson { deferred: waiting });
    }
    Ok(())
}

/// Appends `text` to the file at `path`, creating it.
fn append(path: &Path, text: &str) -> Result<(), CliError> {
    use std::io::Write as _;
    fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(path)
        .and_then(|mut f| f.write_all(text.as_bytes()))
        .map_err(|e| CliError::Input {
            path: path.to_path_buf(),
            message: format!("cannot write the summary: {e}"),
            hint: None,
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pr_numbers_and_urls_parse() {
        assert_eq!(parse_pr("482").unwrap(), (482, None));
        assert_eq!(parse_pr("#482").unwrap(), (482, None));
        let (n, repo) = parse_pr("https://github.com/acme/widgets/pull/482/files?w=1").unwrap();
        assert_eq!(n, 482);
        assert_eq!(repo.unwrap().to_string(), "acme/widgets");
        for bad in [
            "",
            "0",
            "-3",
            "abc",
            "https://github.com/acme/widgets/issues/482",
        ] {
            assert!(parse_pr(bad).is_err(), "{bad:?}");
        }
    }
}
