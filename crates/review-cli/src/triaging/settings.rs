//! `review triage`'s flags ([`TriageArgs`], shared by the command line and `review mcp`'s
//! triage tools) and the settings they make once merged with the user's file ([`Settings`]).

use std::collections::BTreeMap;
use std::path::PathBuf;

use clap::Args;
use review_core::model::{RepoId, ThreadId};
use review_core::plan::{FixHistory, FixSettings, TriageSettings};
use review_core::rules::LadderMode;
use review_github::pr_ref::PrRef;

use crate::commands::common::AutomationArgs;
use crate::error::CliError;

/// Classify every unresolved review thread and plan what to do with each
///
/// Bot threads are classified actionable, nit or ambiguous; ambiguous ones go through the
/// autonomy ladder; threads with any human participation are always left to the PR's author.
/// Without --apply nothing is changed.
#[derive(Debug, Args)]
pub struct TriageArgs {
    /// The pull request: a number, a URL, or nothing for the open PR of the current branch
    #[arg(value_name = "PR")]
    pub(crate) pr: Option<String>,

    /// Read the pull request from a recorded snapshot instead of GitHub; nothing is changed
    #[arg(long, value_name = "FILE")]
    pub(crate) input: Option<PathBuf>,

    /// The repository, as [HOST/]OWNER/NAME [default: GH_REPO, else the git remote of `gh repo
    /// set-default`, else `upstream`, else `origin`]
    #[arg(long, value_name = "OWNER/NAME")]
    pub(crate) repo: Option<String>,

    /// Print the report as JSON (documented in docs/report-format.md)
    #[arg(long)]
    pub(crate) json: bool,

    /// Carry the plan out: commit each fix locally (one commit per thread, only the edited file)
    /// and resolve nits and fixed threads on GitHub, without replies; pushes only with --push
    #[arg(long, conflicts_with = "input")]
    pub(crate) apply: bool,

    /// Also append the report for people to FILE, as Markdown (a CI job summary such as
    /// $GITHUB_STEP_SUMMARY), whatever stdout gets
    #[arg(long, value_name = "FILE")]
    pub(crate) summary_file: Option<PathBuf>,

    /// Only plan, even when your config file sets `defaults.apply = true`
    #[arg(long, conflicts_with = "apply")]
    pub(crate) no_apply: bool,

    /// A command that makes fixes other than suggestion blocks (a coding agent or script); it
    /// gets the task as JSON on stdin, the comment fenced as data, and must only edit files
    #[arg(long, value_name = "COMMAND")]
    pub(crate) fixer_cmd: Option<String>,

    /// How long the fixer may take for one thread, in seconds
    #[arg(long, value_name = "SECONDS", default_value_t = 600)]
    pub(crate) fixer_timeout: u64,

    /// Text that marks a bot comment as a protocol signal between tools, not a finding (for
    /// example "approval dismissed"); such threads are left alone (repeatable)
    #[arg(long = "protocol-signal", value_name = "TEXT")]
    pub(crate) protocol_signals: Vec<String>,

    /// Your judge: a command (a coding agent, a script) that decides the judgement calls for
    /// each bot thread, within the hard gates no answer overrides. It gets the evidence as JSON
    /// on stdin, the comment fenced as data, and answers {"class", "reason", "rung"} on stdout
    /// (docs/judge.md; `review judge-prompt triage` prints a ready prompt). Named here it also
    /// runs in a plan; from your config file (`commands.judge`) only with --apply. Without
    /// one, the built-in ladder decides
    #[arg(long, visible_alias = "triager-cmd", value_name = "COMMAND")]
    pub(crate) judge_cmd: Option<String>,

    /// How long the judge may take for one thread, in seconds
    #[arg(
        long,
        alias = "triager-timeout",
        value_name = "SECONDS",
        default_value_t = 300
    )]
    pub(crate) judge_timeout: u64,

    /// Ask the judge about at most N threads this run (the ambiguous first); the rest keep the
    /// reader's class
    #[arg(long, value_name = "N", requires = "judge_cmd")]
    pub(crate) judge_max: Option<usize>,

    /// Push the fix commits to the PR's branch after --apply (never forced), then resolve the
    /// threads they fix
    #[arg(long, requires = "apply")]
    pub(crate) push: bool,

    /// Do not push, even when your config file sets `defaults.push = true`
    #[arg(long, conflicts_with = "push")]
    pub(crate) no_push: bool,

    /// A reviewer command to run before triage (the workflow's pre-review): on the first pass,
    /// then only when the code changed since it last ran; it gets the PR as JSON on stdin
    #[arg(long, value_name = "COMMAND")]
    pub(crate) reviewer_cmd: Option<String>,

    /// How long the reviewer may take, in seconds
    #[arg(long, value_name = "SECONDS", default_value_t = 1800)]
    pub(crate) reviewer_timeout: u64,

    /// Skip the pre-review even though the code changed since it last ran (said in the report)
    #[arg(long, requires = "reviewer_cmd")]
    pub(crate) skip_pre_review: bool,

    /// On a terminal, with --apply: offer to commit a bot's suggestion in a thread a person took
    /// part in (each asked one by one); the thread stays open for your reply
    #[arg(long, requires = "apply", conflicts_with = "substep")]
    pub(crate) interactive: bool,

    /// Run as a sub-step of an orchestrator: print only the workflow's JSON result (with the
    /// narration inside it), never prompt
    #[arg(long)]
    pub(crate) substep: bool,

    /// A thread deferred by an earlier pass: not triaged again, counted as deferred (repeatable)
    #[arg(long = "deferred", value_name = "THREAD")]
    pub(crate) deferred: Vec<String>,

    /// The pre-review marker commit the caller keeps; echoed back in the --substep result
    #[arg(long, value_name = "SHA")]
    pub(crate) marker: Option<String>,

    /// Exit with status 7 when threads still need a person (deferred threads remain)
    #[arg(long)]
    pub(crate) exit_code: bool,

    /// Leave every ambiguous bot thread to a person instead of consulting the autonomy ladder
    #[arg(long)]
    pub(crate) no_ladder: bool,

    #[command(flatten)]
    pub(crate) automation: AutomationArgs,

    /// Never edit this path, in addition to the defaults (`dir/` for a directory; repeatable)
    #[arg(long = "deny-path", value_name = "PATH")]
    pub(crate) deny_paths: Vec<String>,
}

impl Default for TriageArgs {
    /// No flag given: what `review triage` alone would do.
    fn default() -> Self {
        // No flag here requires a value (a unit test parses them from nothing).
        crate::cli::defaults().expect("triage flags parse from nothing")
    }
}

/// Where the pull request is read from.
#[derive(Debug)]
pub enum Source {
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
pub struct Settings {
    pub(crate) source: Source,
    pub(crate) apply: bool,
    pub(crate) substep: bool,
    pub(crate) marker: Option<String>,
    pub(crate) exit_code: bool,
    pub(crate) fixer: Option<(String, std::time::Duration)>,
    pub(crate) reviewer: Option<(String, std::time::Duration)>,
    pub(crate) skip_pre_review: bool,
    pub(crate) push: bool,
    pub(crate) judge: Option<crate::judge::JudgeCmd>,
    pub(crate) interactive: bool,
    pub(crate) json: bool,
    pub(crate) summary_file: Option<PathBuf>,
    /// What the plan leaves out and says so (a reviewer named for a plan).
    pub(crate) plan_notes: Vec<String>,
    /// `--deny-path`, merged into the deny list once the repository's file is read.
    pub(crate) deny_flags: Vec<String>,
    pub(crate) triage: TriageSettings,
    /// `--protocol-signal` texts, blank ones dropped.
    pub(crate) protocol_signals: Vec<String>,
}

impl Settings {
    /// The settings of `args`: the flags win, what they leave unset comes from `config`.
    pub fn from_args(
        mut args: TriageArgs,
        config: &crate::config::Config,
    ) -> Result<Self, CliError> {
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
