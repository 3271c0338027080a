//! `review triage`: classify every unresolved review thread and decide what happens to it.

use std::collections::BTreeMap;
use std::fs;
use std::io::{BufRead, IsTerminal};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use clap::Args;
use review_core::execute::{self, Workspace};
use review_core::model::{CommitId, PrState, PullRequest, RepoId, ThreadId};
use review_core::plan::{self, FixHistory, FixSettings, TriageSettings};
use review_core::ports::{ReviewHost, Vcs};
use review_core::report::Report;
use review_core::rules::LadderMode;
use review_core::snapshot;
use review_core::text::{counted, visible, visible_line};
use review_github::pr_ref::PrRef;
use review_github::reader::Reader;

use crate::commands::common::{self, AutomationArgs};
use crate::error::CliError;
use crate::fixer::CommandFixer;
use crate::git::GitVcs;
use crate::github;
use crate::output;
use crate::prereview;
use crate::render;

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
    triage: TriageSettings,
}

impl Settings {
    fn from_args(mut args: TriageArgs) -> Result<Self, CliError> {
        let mut plan_notes = Vec::new();
        let usage = |message: String, hint: &str| CliError::Usage {
            message,
            hint: Some(hint.to_owned()),
        };
        // Flags win; what they leave unset comes from the user's config file.
        let config = crate::config::current()?;
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
        let automation = args.automation.settings()?;
        let mut fixes = FixSettings {
            fixer_available: args
                .fixer_cmd
                .as_deref()
                .is_some_and(|c| !c.trim().is_empty()),
            ..FixSettings::default()
        };
        fixes
            .denied_paths
            .extend(crate::config::merged(&args.deny_paths, &config.deny));
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
                protocol_signals: args
                    .protocol_signals
                    .into_iter()
                    .filter(|s| !s.trim().is_empty())
                    .collect(),
            },
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

fn read_snapshot(
    path: &Path,
    number: Option<u64>,
    repo: Option<&RepoId>,
) -> Result<PullRequest, CliError> {
    let input_error = |message: String, hint: &str| CliError::Input {
        path: path.to_path_buf(),
        message,
        hint: Some(hint.to_owned()),
    };
    let text = fs::read_to_string(path).map_err(|e| {
        input_error(
            e.to_string(),
            "check the path; a snapshot is a JSON file described in docs/snapshot-format.md",
        )
    })?;
    let pr = snapshot::parse(&text).map_err(|e| {
        input_error(
            e.to_string(),
            "the format is described in docs/snapshot-format.md",
        )
    })?;
    if let Some(number) = number
        && number != pr.number
    {
        return Err(input_error(
            format!("it records PR #{}, not #{number}", pr.number),
            "leave out the PR argument, or pass the snapshot of that PR",
        ));
    }
    if let Some(repo) = repo
        && repo != &pr.repo
    {
        return Err(input_error(
            format!("it records {}, not {repo}", pr.repo),
            "leave out --repo, or pass the snapshot of that repository",
        ));
    }
    Ok(pr)
}

/// The files `threads` are on, at the PR head, for the judge: through the API when connected
/// (never from the working tree, which may hold links anywhere), else from the local checkout's
/// HEAD commit when it is the PR head, else none and why.
async fn files_at_head(
    pr: &PullRequest,
    threads: &[ThreadId],
    connection: Option<&github::Connection>,
    checkout: Option<&GitVcs>,
) -> BTreeMap<String, crate::judge::FileAtHead> {
    let mut files = BTreeMap::new();
    for id in threads {
        let Some(thread) = pr.thread(id) else {
            continue;
        };
        if files.contains_key(&thread.path) || thread.path.is_empty() {
            continue;
        }
        let found = match (connection, checkout) {
            (Some(conn), _) => match Reader::new(&conn.client)
                .file_at(
                    &pr.repo,
                    &pr.head_sha.0,
                    &thread.path,
                    crate::judge::FILE_LIMIT,
                )
                .await
            {
                Ok(review_github::reader::RepoFile::Text(text)) => Ok(text),
                Ok(review_github::reader::RepoFile::Absent) => {
                    Err("the file is not in the PR head".to_owned())
                }
                Ok(review_github::reader::RepoFile::Refused(why)) => Err(why),
                Err(e) => Err(format!("it could not be read: {e}")),
            },
            (None, Some(vcs)) => {
                match vcs.text_at("HEAD", &thread.path, crate::judge::FILE_LIMIT) {
                    Ok(Some(text)) => Ok(text),
                    Ok(None) => Err(
                        "not a regular text file of the PR head within the size read".to_owned(),
                    ),
                    Err(e) => Err(format!("it could not be read: {e}")),
                }
            }
            (None, None) => {
                Err("not available: a recorded snapshot with no checkout at the PR head".to_owned())
            }
        };
        files.insert(thread.path.clone(), found);
    }
    files
}

/// Says what the judge's answers came to: how many it answered, failed, and the hard gates
/// that overrode it.
fn narrate_judge(plan: &plan::Plan, eligible: usize, max: Option<usize>) {
    let reports: Vec<_> = plan
        .threads
        .iter()
        .filter_map(|p| p.report.judge.as_ref().map(|j| (&p.report.id, j)))
        .collect();
    let failed = reports.iter().filter(|(_, j)| j.failed).count();
    let gated: Vec<_> = reports.iter().filter(|(_, j)| j.gate.is_some()).collect();
    let mut line = format!(
        "[triage] step 3 — the judge answered for {} of {}",
        reports.len() - failed,
        counted(eligible, "bot thread", "bot threads")
    );
    if failed > 0 {
        line.push_str(&format!(" ({failed} failed: the reader's class stands)"));
    }
    if let Some(max) = max
        && eligible > max
    {
        let others = match eligible - max {
            1 => "the other one keeps".to_owned(),
            n => format!("the other {n} keep"),
        };
        line.push_str(&format!("; --judge-max {max}: {others} the reader's class"));
    }
    output::narrate(&line);
    for (id, judge) in gated {
        output::narrate(&format!(
            "[triage] step 3 — a hard gate held over the judge's answer for {id}: {}",
            judge.gate.as_deref().unwrap_or_default()
        ));
    }
}

/// Runs `review triage`.
pub async fn run(args: TriageArgs) -> Result<(), CliError> {
    let mut settings = Settings::from_args(args)?;
    if settings.substep {
        output::collect_narration();
    }
    let mut connection = None;
    let mut pr = match &settings.source {
        Source::Snapshot { path, pr, repo } => {
            let read = read_snapshot(path, *pr, repo.as_ref())?;
            output::narrate(&format!(
                "[triage] step 1 — read PR #{} ({}) from {}, a recorded snapshot at {}",
                read.number,
                read.repo,
                path.display(),
                read.head_sha.short()
            ));
            read
        }
        Source::Live { pr, repo } => {
            let conn = github::connect(pr.as_deref(), repo.as_deref(), &common::cwd()?).await?;
            let conn = connection.insert(conn);
            output::narrate(&format!(
                "[triage] step 1 — reading PR #{} ({}) from GitHub",
                conn.number, conn.repo
            ));
            let spinner = output::Spinner::start(&format!("reading PR #{}", conn.number));
            let read = Reader::new(&conn.client)
                .pull_request(&conn.repo, conn.number)
                .await
                .map_err(github::read_error)?;
            drop(spinner);
            let stats = conn.client.stats();
            output::narrate(&format!(
                "[triage] step 1 — read {} at {} in {} ({})",
                counted(read.threads.len(), "thread", "threads"),
                read.head_sha.short(),
                counted(stats.requests, "request", "requests"),
                counted(stats.points, "point", "points")
            ));
            read
        }
    };
    if pr.state != PrState::Open {
        let state = if pr.state == PrState::Merged {
            "merged"
        } else {
            "closed"
        };
        output::narrate(&format!(
            "[triage] done — PR #{} is {state}; nothing to triage",
            pr.number
        ));
        if settings.substep {
            // The orchestrator still gets its result: nothing done, and why.
            let result = SubstepResult::new(&pr.head_sha, None, settings.marker.as_deref());
            output::stdout(&result.to_json()).map_err(CliError::Output)?;
        }
        return Ok(());
    }
    // The repository's own file, read at the PR's base commit through the API (never from the
    // working tree, which is the pull request's content).
    let repository = match &connection {
        Some(conn) => crate::config::repository(&conn.client, &pr).await?,
        None => crate::config::RepositoryLayer::default(),
    };
    settings
        .triage
        .fixes
        .denied_paths
        .extend(crate::config::Config::values(&repository.deny));
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
                    pr = Reader::new(&conn.client)
                        .pull_request(&conn.repo, conn.number)
                        .await
                        .map_err(github::read_error)?;
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
        Source::Live { .. } => match GitVcs::open(&common::cwd()?) {
            Ok(vcs) => {
                let audit = crate::audit::Audit::new(Some(&vcs), &pr.repo, pr.number);
                let vcs = vcs.with_audit(audit);
                if settings.apply {
                    Some(journaled(vcs, &pr)?)
                } else {
                    Some(vcs)
                }
            }
            Err(e) if settings.apply => {
                return Err(CliError::Usage {
                    message: format!("--apply makes fixes in a local checkout of the PR: {e}"),
                    hint: Some(
                        "run it inside a clone, with the PR's branch checked out".to_owned(),
                    ),
                });
            }
            Err(_) => None,
        },
    };
    if let Some(vcs) = &vcs {
        let (history, at_head) = fix_history(vcs, &pr)?;
        if !at_head {
            output::narrate(&format!(
                "[triage] step 3 — local checkout is not at the PR head {}: fixes are deferred",
                pr.head_sha.short()
            ));
        }
        settings.triage.fixes.checkout_at_head = Some(at_head);
        settings.triage.history = history;
    }
    // What the gate knows of this PR: the repository's bot logins, the account the tool posts
    // as, its own comments (ledger) and the threads it resolved (audit log).
    settings.triage.automation = common::gate_for(
        settings.triage.automation.clone(),
        &repository,
        &pr,
        vcs.as_ref(),
    )?;

    let stale = review_classify::stale_summaries(&pr, &settings.triage.automation);
    if !stale.is_empty() {
        let list: Vec<String> = stale
            .iter()
            .map(|s| {
                format!(
                    "{} (reviewed {})",
                    s.who,
                    s.reviewed.get(..7).unwrap_or(&s.reviewed)
                )
            })
            .collect();
        output::narrate(&format!(
            "[triage] step 4 — skip {}, not of the head {}: {}",
            counted(stale.len(), "stale bot summary", "stale bot summaries"),
            pr.head_sha.short(),
            list.join(", ")
        ));
    }
    let signals = review_classify::analyze(&pr, &settings.triage.automation);
    let mut plan = plan::plan(&pr, &signals, &settings.triage);
    let mut interrupted = false;
    match &settings.judge {
        Some(_) if settings.triage.ladder == LadderMode::Off => {
            output::narrate("[triage] step 3 — --no-ladder: the judge is not asked");
        }
        Some(judge) => {
            let threads = crate::judge::candidates(&plan, &signals);
            let files = files_at_head(
                &pr,
                &threads,
                connection.as_ref(),
                vcs.as_ref()
                    .filter(|_| settings.triage.fixes.checkout_at_head == Some(true)),
            )
            .await;
            let calls = crate::judge::prepare(judge, &pr, &plan, &signals, &threads, &files);
            let (judge_cmd, dir, eligible) = (judge.clone(), common::cwd()?, threads.len());
            // The calls run side by side (--jobs) on the blocking pool; Ctrl-C stops them all.
            let (asked, stopped) = crate::command::interruptible(move || {
                crate::judge::ask(&judge_cmd, &dir, &calls, eligible)
            })
            .await
            .map_err(|e| CliError::Other {
                message: format!("the judge's calls failed: {e}"),
                hint: Some("nothing was changed; run again".to_owned()),
            })?;
            settings.triage.judged = asked.verdicts;
            plan = plan::plan(&pr, &signals, &settings.triage);
            if stopped {
                interrupted = true;
                output::narrate(&format!(
                    "[triage] interrupted — {} threads had no answer from the judge; nothing is changed",
                    asked.interrupted.len()
                ));
                plan.interrupt(
                    &asked.interrupted.iter().cloned().collect(),
                    "interrupted before the judge answered",
                );
            }
            narrate_judge(&plan, asked.eligible, judge.max);
        }
        None if settings.triage.ladder == LadderMode::Off => {}
        None => {
            if plan
                .threads
                .iter()
                .any(|p| p.report.class == Some(review_core::rules::Class::Ambiguous))
            {
                output::narrate(
                    "[triage] step 3 — no judge (--judge-cmd): the built-in ladder places the ambiguous bot threads",
                );
            }
        }
    }
    for line in &plan.narration {
        output::narrate(line);
    }
    let mut push_failure = None;
    // Interrupted while the judge was asked: nothing more is done.
    // The head after the run, when the run moved it: what it pushed, else the tip of the fix
    // commits it made (never a commit of the user's).
    let mut new_head: Option<CommitId> = None;
    let stop = Arc::new(AtomicBool::new(interrupted));
    let mut report: Report = match (&connection, &vcs) {
        (Some(conn), Some(vcs)) if settings.apply => {
            let host = conn.audited_host(review_core::gate::DEFAULT_AUTOMATED_HEADER, Some(vcs));
            let fixer = settings.fixer.as_ref().map(|(cmd, timeout)| {
                CommandFixer::new(cmd.clone(), vcs.clone(), Arc::new(pr.clone()), *timeout)
            });
            let workspace = Workspace {
                vcs,
                fixer: fixer.as_ref().map(|f| f as &dyn review_core::ports::Fixer),
            };
            let head_before = vcs.head().ok();
            // Ctrl-C stops at the next checkpoint; what was done so far is still reported.
            let flag = stop.clone();
            let watcher = tokio::spawn(async move {
                crate::command::ctrl_c().await;
                flag.store(true, Ordering::SeqCst);
            });
            // Each line is narrated as it happens (a fixer may work for minutes).
            let done = execute::execute_narrated(
                &pr,
                &plan,
                &settings.triage,
                &host,
                Some(workspace),
                &stop,
                &|line| output::narrate(line),
            )
            .await
            .map_err(|e| CliError::Other {
                message: e.to_string(),
                hint: Some(
                    "nothing was changed; this is a bug in review, please report it".to_owned(),
                ),
            })?;
            watcher.abort();
            let mut report = done.report;
            if settings.interactive && !stop.load(Ordering::SeqCst) {
                if std::io::stdin().is_terminal() && std::io::stderr().is_terminal() {
                    offer_human_fixes(
                        vcs,
                        &pr,
                        &signals,
                        &settings.triage,
                        &mut report,
                        &mut ask_terminal,
                    )?;
                } else {
                    output::narrate("[triage] --interactive needs a terminal; no fix offered");
                }
            }
            let head_after = vcs.head().ok();
            if head_after != head_before {
                new_head = head_after;
            }
            if settings.push && !stop.load(Ordering::SeqCst) {
                match push_and_resolve(vcs, conn, &pr, &settings.triage, &host, &mut report).await?
                {
                    Pushed::Nothing => {}
                    Pushed::To(commit) => {
                        report.applied = true;
                        new_head = Some(commit);
                    }
                    Pushed::Failed(why) => push_failure = Some(why),
                }
            }
            report
        }
        _ => plan.report(&pr).map_err(|e| CliError::Other {
            message: format!("the plan does not account for every thread: {e}"),
            hint: Some(
                "this is a bug in review; please report it with `review snapshot` attached"
                    .to_owned(),
            ),
        })?,
    };
    report.hints = review_classify::account_hints(&pr, &settings.triage.automation);
    let human = !settings.substep && !settings.json;
    let text = if settings.substep {
        output::narrate(&report.summary_line(pre_review));
        SubstepResult::of(&report, new_head.as_ref(), settings.marker.as_deref()).to_json()
    } else if settings.json {
        let mut json = serde_json::to_string_pretty(&report).map_err(|e| CliError::Other {
            message: format!("cannot encode the report: {e}"),
            hint: None,
        })?;
        json.push('\n');
        json
    } else {
        render::report(&pr, &report, settings.apply)
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
            render::report(&pr, &report, settings.apply)
        );
        append(path, &markdown)?;
    }
    if !settings.substep {
        output::narrate(&report.summary_line(pre_review));
    }
    if stop.load(Ordering::SeqCst) {
        return Err(CliError::Interrupted);
    }
    if let Some(why) = push_failure {
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

/// What `review triage --substep` prints: the triage workflow's result as a sub-step.
#[derive(Debug, serde::Serialize, schemars::JsonSchema)]
pub struct SubstepResult {
    /// The PR head the run started from.
    head_sha_in: CommitId,
    /// The head after the run: the commit it pushed, else the tip of the fix commits it made,
    /// else `head_sha_in`.
    new_head_sha: CommitId,
    /// Whether the pre-review ran.
    qa_swarm_ran: bool,
    /// The commit the pre-review marker records, when one was given.
    qa_swarm_marker_sha: Option<String>,
    /// Threads resolved.
    resolved: usize,
    /// Threads fixed.
    actioned: usize,
    /// Ambiguous threads the ladder fixed.
    promoted: usize,
    /// Threads left for a person (protocol signals, left alone, are not among them).
    deferred_threads: Vec<ThreadId>,
    /// Whether actionable findings remain unresolved.
    unresolved_actionable_remaining: bool,
    /// The run's narration lines.
    narration: Vec<String>,
}

impl SubstepResult {
    /// The result of a run that did nothing at `head` (a merged or closed PR), with the
    /// narration so far.
    fn new(head: &CommitId, new_head: Option<&CommitId>, marker: Option<&str>) -> Self {
        Self {
            head_sha_in: head.clone(),
            new_head_sha: new_head.unwrap_or(head).clone(),
            qa_swarm_ran: false,
            qa_swarm_marker_sha: marker.map(str::to_owned),
            resolved: 0,
            actioned: 0,
            promoted: 0,
            deferred_threads: Vec::new(),
            unresolved_actionable_remaining: false,
            narration: output::collected_narration(),
        }
    }

    /// The result of a run that ended in `report` and moved the head to `new_head`, if it did.
    fn of(report: &Report, new_head: Option<&CommitId>, marker: Option<&str>) -> Self {
        Self {
            resolved: report.counts.resolved,
            actioned: report.counts.actioned,
            promoted: report.counts.promoted,
            // Protocol signals are left alone, not deferred to a person: the workflow ignores
            // them.
            deferred_threads: report
                .waiting_for_a_person()
                .map(|t| t.id.clone())
                .collect(),
            unresolved_actionable_remaining: report.unresolved_actionable_remaining,
            ..Self::new(&report.head_sha, new_head, marker)
        }
    }

    /// The result as pretty JSON, with a final newline.
    fn to_json(&self) -> String {
        let mut text = serde_json::to_string_pretty(self).unwrap_or_else(|_| "{}".to_owned());
        text.push('\n');
        text
    }
}

/// The checkout with a journal of the tool's own uncommitted edits for this PR, after recovering
/// from a run that was killed between writing a fix and committing it.
fn journaled(vcs: GitVcs, pr: &PullRequest) -> Result<GitVcs, CliError> {
    let git_error = |e: crate::git::GitError| CliError::Other {
        message: format!("cannot read the fix journal: {e}"),
        hint: None,
    };
    let path = crate::state::pr_file(&vcs, "journal", pr).map_err(|e| CliError::Other {
        message: format!("cannot open the fix journal: {e}"),
        hint: Some(e.hint()),
    })?;
    let vcs = vcs.with_journal(path.clone());
    // A journal that does not parse is an input file like the others: exit 3, left as it is.
    let (restored, left) = vcs.recover().map_err(|e| {
        match crate::state::load::<Vec<serde_json::Value>>(&path) {
            Err(bad) => CliError::Input {
                path: path.clone(),
                message: bad.describe("fix journal"),
                hint: Some(
                    "it was left as it is: fix it, or move it away (the edits it records are then left to you)"
                        .to_owned(),
                ),
            },
            Ok(_) => git_error(e),
        }
    })?;
    if !restored.is_empty() {
        output::narrate(&format!(
            "[triage] step 3 — an earlier run stopped before committing its edits of {}; put back, the fixes are made again",
            restored.join(", ")
        ));
    }
    if !left.is_empty() {
        output::narrate(&format!(
            "[triage] step 3 — {} changed since an earlier run edited it; left as it is (yours)",
            left.join(", ")
        ));
    }
    Ok(vcs)
}

/// Asks a yes/no question on the terminal.
fn ask_terminal(question: &str) -> bool {
    output::prompt(question);
    let mut answer = String::new();
    std::io::stdin().lock().read_line(&mut answer).is_ok()
        && matches!(answer.trim(), "y" | "Y" | "yes")
}

/// The gutter before each line of a replacement in [`human_fix_question`].
const GUTTER: &str = "│ ";

/// The question `--interactive` asks about the suggestion in a person's thread. The replacement
/// is shown exactly as it will be committed (the lines `suggestion::apply` writes): each line
/// after a visible gutter, the end marked, and control and bidirectional formatting characters
/// written as escapes (`\u{1b}`), so nothing in it can redraw the prompt, hide a line or reorder
/// one. Ids, paths and titles from the pull request are shown on one line each.
fn human_fix_question(
    entry: &review_core::report::ThreadReport,
    path: &str,
    title: &str,
    suggestion: &review_core::signals::Suggestion,
    lines: Option<review_core::model::LineRange>,
) -> String {
    use std::fmt::Write as _;
    let range = lines.map_or_else(|| "?".to_owned(), |l| l.to_string());
    let mut out = format!(
        "\n{} ({}): {}\n{}\n",
        visible_line(&entry.id.0),
        visible_line(&entry.location),
        visible_line(title),
        visible_line(&entry.reason)
    );
    let new: Vec<&str> = suggestion.replacement.lines().collect();
    if new.is_empty() {
        let _ = writeln!(
            out,
            "suggested replacement: lines {range} of {} are deleted",
            visible_line(path)
        );
    } else {
        let _ = writeln!(
            out,
            "suggested replacement of lines {range} of {}, {} line(s) exactly as they will be \
             committed (each after \"{}\"; control characters shown as \\u{{..}}):",
            visible_line(path),
            new.len(),
            GUTTER.trim_end()
        );
        for line in new {
            let _ = writeln!(out, "{GUTTER}{}", visible(line));
        }
    }
    out.push_str("└─ end of the replacement\n");
    out.push_str("commit this fix? The thread stays open for your reply. [y/N] ");
    out
}

/// Offers, one by one, the bot suggestions in threads a person took part in, and commits each
/// one the user accepts. Nothing is resolved or replied to: the thread stays open for the
/// user's own reply, and its report line says "fixed in SHA, thread left open for your reply".
fn offer_human_fixes(
    vcs: &GitVcs,
    pr: &PullRequest,
    signals: &review_core::signals::SignalSet,
    triage: &TriageSettings,
    report: &mut Report,
    ask: &mut dyn FnMut(&str) -> bool,
) -> Result<(), CliError> {
    use review_core::signals::Concreteness;
    if triage.fixes.checkout_at_head != Some(true) {
        output::narrate(
            "[triage] --interactive: the checkout is not at the PR head; no fix offered",
        );
        return Ok(());
    }
    let dirty = vcs.dirty_paths().unwrap_or_default();
    for entry in report.threads.iter_mut().filter(|t| {
        t.human
            && t.outcome == review_core::report::Outcome::Deferred
            && t.deferred_because == Some(review_core::report::DeferReason::Human)
    }) {
        let (Some(thread), Some(sig)) = (pr.thread(&entry.id), signals.threads.get(&entry.id))
        else {
            continue;
        };
        let Concreteness::Suggestion(suggestion) = &sig.concreteness else {
            continue;
        };
        let fixed_before = triage.history.pending.contains_key(&entry.id)
            || triage.history.landed.contains_key(&entry.id);
        if fixed_before
            || sig.design_decision
            || plan::is_denied(&thread.path, &triage.fixes.denied_paths)
            || dirty.contains(&thread.path)
        {
            continue;
        }
        let question = human_fix_question(
            entry,
            &thread.path,
            &sig.title,
            suggestion,
            suggestion.lines.or(thread.lines),
        );
        if !ask(&question) {
            continue;
        }
        let task = plan::FixTask {
            thread: thread.id.clone(),
            path: thread.path.clone(),
            lines: thread.lines,
            reviewer: sig.family.clone().unwrap_or_else(|| "bot".to_owned()),
            title: sig.title.clone(),
            material: plan::FixMaterial::Suggestion(suggestion.clone()),
        };
        let committed =
            execute::write_suggestion(pr, &task, suggestion, vcs).and_then(|original| {
                execute::commit_fix(
                    &task,
                    std::slice::from_ref(&thread.path),
                    Some(&original),
                    vcs,
                )
            });
        match committed {
            Ok(commit) => {
                entry.reason = format!(
                    "fixed in {}, thread left open for your reply",
                    commit.short()
                );
                entry.commit = Some(commit);
                report.applied = true;
            }
            Err(why) => output::narrate(&format!("[triage] {}: {why}; not fixed", entry.id)),
        }
    }
    Ok(())
}

/// What [`push_and_resolve`] did.
enum Pushed {
    /// No fix commit waited for a push.
    Nothing,
    /// Pushed this commit to the PR's branch.
    To(CommitId),
    /// The push failed or was refused, and why (the report is still printed before the command
    /// fails).
    Failed(String),
}

/// Pushes the fix commits waiting for a push to the PR's own branch (see
/// [`GitVcs::push_to_pr`]), reads the PR again, and resolves the threads whose fixes are now on
/// its head and that the tool may still act on. The push is refused, before git is asked, when
/// the PR's head on GitHub (as read at the start, and again just before the push) is not in
/// HEAD's history: someone pushed to the branch since the checkout.
async fn push_and_resolve(
    vcs: &GitVcs,
    conn: &github::Connection,
    pr: &PullRequest,
    triage: &TriageSettings,
    host: &crate::audit::AuditedHost,
    report: &mut Report,
) -> Result<Pushed, CliError> {
    let refused = |why: String| {
        output::narrate(&format!("[triage] push — refused or failed: {why}"));
        Ok(Pushed::Failed(why))
    };
    let pr_head = pr.head_sha.0.as_str();
    if !vcs.has_commit(pr_head) || !vcs.is_ancestor(pr_head, "HEAD") {
        return refused(
            crate::git::PushRefused::NotAhead {
                head: pr.head_sha.short().to_owned(),
            }
            .to_string(),
        );
    }
    // Every fix commit not yet on the PR: this run's, an earlier run's, and one committed at
    // your word in a person's thread (`--interactive`), which is pushed but never resolved.
    let waiting: Vec<usize> = report
        .threads
        .iter()
        .enumerate()
        .filter(|(_, t)| t.commit.is_some() && !triage.history.landed.contains_key(&t.id))
        .map(|(i, _)| i)
        .collect();
    if waiting.is_empty() {
        output::narrate("[triage] push — no fix commit waits for a push; nothing pushed");
        return Ok(Pushed::Nothing);
    }
    let local = vcs.head().map_err(|e| CliError::Other {
        message: format!("cannot read the local HEAD: {e}"),
        hint: None,
    })?;
    let branch = &pr.head_ref;
    output::narrate(&format!(
        "[triage] push — pushing {} to {branch}",
        local.short()
    ));
    // Minutes may have passed since the read (the fixer, the checks): someone may have pushed
    // to the branch meanwhile. The push goes on top of GitHub's head as it is now, or not at all.
    let now = match Reader::new(&conn.client)
        .pull_request(&conn.repo, conn.number)
        .await
    {
        Ok(now) => now,
        Err(e) => {
            return refused(format!(
                "cannot read the pull request again before the push: {e}"
            ));
        }
    };
    let remote = match vcs.push_to_pr(
        &conn.host_name,
        now.head_repo.as_ref(),
        branch,
        &now.head_sha.0,
    ) {
        Ok(remote) => remote,
        Err(e) => return refused(e.to_string()),
    };
    output::narrate(&format!(
        "[triage] push — pushed to {remote}; reading the PR again"
    ));
    for &i in &waiting {
        let entry = &mut report.threads[i];
        if entry.human {
            let short = entry
                .commit
                .as_ref()
                .map_or_else(String::new, |c| c.short().to_owned());
            entry.reason = format!("fixed in {short}, pushed; thread left open for your reply");
        }
    }
    let waiting: Vec<usize> = waiting
        .into_iter()
        .filter(|&i| !report.threads[i].human)
        .collect();
    if waiting.is_empty() {
        return Ok(Pushed::To(local));
    }
    let after = Reader::new(&conn.client)
        .pull_request(&conn.repo, conn.number)
        .await
        .map_err(github::read_error)?;
    if after.head_sha != local {
        output::narrate(
            "[triage] push — GitHub does not show the push yet; run again to resolve the fixed threads",
        );
        return Ok(Pushed::To(local));
    }
    let ids: Vec<ThreadId> = waiting
        .iter()
        .map(|&i| report.threads[i].id.clone())
        .collect();
    // Minutes may have passed since the read the plan came from: read again just before.
    let mut left = Vec::new();
    let ids = execute::recheck(&after, triage, host, &ids, &mut |id, why, text| {
        left.push((id.clone(), why, text));
    })
    .await;
    for (id, _, text) in left {
        if let Some(entry) = report.threads.iter_mut().find(|t| t.id == id) {
            let short = entry
                .commit
                .as_ref()
                .map_or_else(String::new, |c| c.short().to_owned());
            entry.reason = format!("fixed in {short}, pushed; {text}");
        }
    }
    if !ids.is_empty() {
        output::narrate(&format!(
            "[triage] push — resolving {} without reply",
            counted(ids.len(), "fixed thread", "fixed threads")
        ));
    }
    let results = host.resolve_threads(&ids).await;
    for (id, result) in ids.iter().zip(results) {
        let Some(entry) = report.threads.iter_mut().find(|t| &t.id == id) else {
            continue;
        };
        let short = entry
            .commit
            .as_ref()
            .map_or_else(String::new, |c| c.short().to_owned());
        entry.reason = match result {
            Ok(()) => format!("fixed in {short}, pushed; resolved"),
            Err(e) => {
                format!("fixed in {short}, pushed; resolving failed ({e}): the next run retries")
            }
        };
    }
    Ok(Pushed::To(local))
}

/// Fix commits of earlier runs, by the `Review-Thread:` trailer of their trailer block: those on
/// the PR's head (landed, among the PR's own commits: `base..head`) and those only in the local
/// checkout on top of it (pending). The checkout counts as at the PR head when HEAD is the PR
/// head, or the PR head plus only the tool's own fix commits.
fn fix_history(vcs: &GitVcs, pr: &PullRequest) -> Result<(FixHistory, bool), CliError> {
    let git_error = |e: crate::git::GitError| CliError::Other {
        message: format!("cannot read the local history: {e}"),
        hint: None,
    };
    let mut history = FixHistory::default();
    let pr_head = pr.head_sha.0.as_str();
    // Before reading HEAD: a clone without the PR's head (or without any commit) can still plan.
    if !vcs.has_commit(pr_head) {
        output::narrate(&format!(
            "[triage] step 3 — the PR head {} is not in the local repository; fetch it to make fixes",
            pr.head_sha.short()
        ));
        return Ok((history, false));
    }
    let head = vcs.head().map_err(|e| CliError::Other {
        message: format!("cannot read the local HEAD: {e}"),
        hint: Some("run inside a clone with a commit checked out".to_owned()),
    })?;
    // The PR's own commits: from its base. A base the clone does not have leaves the last
    // thousand commits of the head (said so).
    let range = match pr.base_sha.as_ref().filter(|b| vcs.has_commit(&b.0)) {
        Some(base) => vec![format!("{}..{pr_head}", base.0)],
        None => {
            if let Some(base) = &pr.base_sha {
                output::narrate(&format!(
                    "[triage] step 3 — the PR's base {} is not in the local repository: fix commits are looked for in the head's last 1000 commits; fetch the base to narrow that",
                    base.short()
                ));
            }
            vec!["-n".to_owned(), "1000".to_owned(), pr_head.to_owned()]
        }
    };
    let range: Vec<&str> = range.iter().map(String::as_str).collect();
    for (sha, threads) in vcs.fix_commits(&range).map_err(git_error)? {
        for thread in threads {
            history
                .landed
                .entry(ThreadId(thread))
                .or_insert_with(|| CommitId(sha.clone()));
        }
    }
    if head.0 == pr_head {
        return Ok((history, true));
    }
    if !vcs.is_ancestor(pr_head, &head.0) {
        return Ok((history, false));
    }
    let ahead = vcs
        .fix_commits(&[&format!("{pr_head}..HEAD")])
        .map_err(git_error)?;
    let ours_only = ahead.iter().all(|(_, threads)| !threads.is_empty());
    for (sha, threads) in ahead {
        for thread in threads {
            history
                .pending
                .entry(ThreadId(thread))
                .or_insert_with(|| CommitId(sha.clone()));
        }
    }
    Ok((history, ours_only))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Regression: `--interactive` printed a suggestion's replacement raw, so an escape sequence
    /// in it could erase the shown lines and draw others: what was shown was not what would be
    /// committed. Each line is now shown after a gutter, escapes visible, the end marked.
    #[test]
    fn the_interactive_question_shows_the_replacement_exactly_and_inertly() {
        use review_core::report::{Outcome, ThreadReport};
        let entry: ThreadReport = serde_json::from_value(serde_json::json!({
            "id": "PRRT_1\u{1b}[2K",
            "location": "src/lib.rs:3",
            "outcome": "deferred",
            "human": true,
            "class": null,
            "reason": "a person took part",
        }))
        .unwrap();
        assert_eq!(entry.outcome, Outcome::Deferred);
        let suggestion = review_core::signals::Suggestion {
            lines: Some(review_core::model::LineRange::new(3, 4)),
            replacement:
                "let a = 1;\x1b[2K\r\x1b[1Alet a = safe();\r\n\tlet b = \u{202e}2;\u{9b}0m\nend"
                    .to_owned(),
        };
        let question = human_fix_question(
            &entry,
            "src/lib.rs",
            "Use \u{2066}a constant",
            &suggestion,
            suggestion.lines,
        );
        assert_eq!(
            question,
            "\nPRRT_1\\u{1b}[2K (src/lib.rs:3): Use \\u{2066}a constant\na person took part\n\
             suggested replacement of lines 3-4 of src/lib.rs, 3 line(s) exactly as they will be \
             committed (each after \"│\"; control characters shown as \\u{..}):\n\
             │ let a = 1;\\u{1b}[2K\\u{d}\\u{1b}[1Alet a = safe();\n\
             │ \tlet b = \\u{202e}2;\\u{9b}0m\n\
             │ end\n\
             └─ end of the replacement\n\
             commit this fix? The thread stays open for your reply. [y/N] "
        );
        for c in question.chars() {
            assert!(
                !review_core::text::is_escaped(c, false),
                "a raw U+{:04X} in the question",
                u32::from(c)
            );
        }
        let deleted = review_core::signals::Suggestion {
            lines: Some(review_core::model::LineRange::new(7, 7)),
            replacement: String::new(),
        };
        let question = human_fix_question(&entry, "src/lib.rs", "x", &deleted, deleted.lines);
        assert!(
            question.contains("suggested replacement: lines 7 of src/lib.rs are deleted\n└─ end of the replacement\n"),
            "{question}"
        );
    }

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
