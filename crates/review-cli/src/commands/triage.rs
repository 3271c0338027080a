//! `review triage`: classify every unresolved review thread and decide what happens to it.

use std::fs;
use std::path::PathBuf;

use clap::Args;
use review_core::gate::{AutomationSettings, DEFAULT_AUTOMATED_HEADER};
use review_core::model::{PrState, PullRequest, RepoId};
use review_core::plan::{self, FixSettings, TriageSettings};
use review_core::report::Report;
use review_core::rules::LadderMode;
use review_core::snapshot;
use review_github::pr_ref::PrRef;

use crate::error::CliError;
use crate::output;
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

    /// The repository, as OWNER/NAME [default: the `origin` remote]
    #[arg(long, value_name = "OWNER/NAME")]
    repo: Option<String>,

    /// Print the report as JSON (documented in docs/report-format.md)
    #[arg(long)]
    json: bool,

    /// Carry the plan out: commit fixes locally and resolve bot threads
    #[arg(long, conflicts_with = "input")]
    apply: bool,

    /// Leave every ambiguous bot thread to a person instead of consulting the autonomy ladder
    #[arg(long)]
    no_ladder: bool,

    /// Treat this login as an account that only posts automated comments (repeatable)
    #[arg(long = "automation-account", value_name = "LOGIN")]
    automation_accounts: Vec<String>,

    /// The header that marks automated comments posted through the PR author's account
    #[arg(long, value_name = "TEXT", default_value = DEFAULT_AUTOMATED_HEADER)]
    automated_header: String,

    /// Never edit this path, in addition to the defaults (`dir/` for a directory; repeatable)
    #[arg(long = "deny-path", value_name = "PATH")]
    deny_paths: Vec<String>,
}

/// The validated settings of one triage run.
#[derive(Debug)]
struct Settings {
    input: PathBuf,
    pr: Option<u64>,
    repo: Option<RepoId>,
    json: bool,
    triage: TriageSettings,
}

impl Settings {
    fn from_args(args: TriageArgs) -> Result<Self, CliError> {
        let usage = |message: String, hint: &str| CliError::Usage {
            message,
            hint: Some(hint.to_owned()),
        };
        let Some(input) = args.input else {
            return Err(CliError::Usage {
                message: "reading pull requests from GitHub is not available in this version"
                    .to_owned(),
                hint: Some(
                    "triage a recorded pull request with --input FILE, e.g. \
                     `review triage --input examples/acme-widgets-pr-482.json`"
                        .to_owned(),
                ),
            });
        };
        if args.apply {
            return Err(usage(
                "--apply needs a live pull request".to_owned(),
                "drop --apply to see the plan for a recorded snapshot",
            ));
        }
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
        if let (Some(url), Some(flag)) = (&url_repo, &flag_repo) {
            if url != flag {
                return Err(usage(
                    format!("the PR URL names {url} but --repo names {flag}"),
                    "pass one of them, or make them agree",
                ));
            }
        }
        let repo = flag_repo.or(url_repo);
        if args.automated_header.trim().is_empty() {
            return Err(usage(
                "--automated-header cannot be empty".to_owned(),
                "leave it out to use the default header",
            ));
        }
        if let Some(bad) = args
            .automation_accounts
            .iter()
            .find(|a| a.trim().is_empty() || a.contains(char::is_whitespace))
        {
            return Err(usage(
                format!("`{bad}` is not a login"),
                "pass one login per --automation-account",
            ));
        }
        let mut fixes = FixSettings::default();
        fixes.denied_paths.extend(args.deny_paths);
        Ok(Self {
            input,
            pr,
            repo,
            json: args.json,
            triage: TriageSettings {
                automation: AutomationSettings {
                    accounts: args.automation_accounts,
                    header: args.automated_header,
                },
                ladder: if args.no_ladder {
                    LadderMode::Off
                } else {
                    LadderMode::Hints
                },
                fixes,
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

fn read_snapshot(settings: &Settings) -> Result<PullRequest, CliError> {
    let path = &settings.input;
    let input_error = |message: String, hint: &str| CliError::Input {
        path: path.clone(),
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
    if let Some(number) = settings.pr {
        if number != pr.number {
            return Err(input_error(
                format!("it records PR #{}, not #{number}", pr.number),
                "leave out the PR argument, or pass the snapshot of that PR",
            ));
        }
    }
    if let Some(repo) = &settings.repo {
        if repo != &pr.repo {
            return Err(input_error(
                format!("it records {}, not {repo}", pr.repo),
                "leave out --repo, or pass the snapshot of that repository",
            ));
        }
    }
    Ok(pr)
}

/// Runs `review triage`.
pub fn run(args: TriageArgs) -> Result<(), CliError> {
    let settings = Settings::from_args(args)?;
    let pr = read_snapshot(&settings)?;
    output::narrate(&format!(
        "[triage] step 1 — read PR #{} ({}) from {}, a recorded snapshot at {}",
        pr.number,
        pr.repo,
        settings.input.display(),
        pr.head_sha.short()
    ));
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
        return Ok(());
    }
    output::narrate("[triage] step 2 — skip pre-review: no reviewer command configured");

    let signals = review_classify::analyze(&pr, &settings.triage.automation);
    let plan = plan::plan(&pr, &signals, &settings.triage);
    for line in &plan.narration {
        output::narrate(line);
    }
    let report: Report = plan.report(&pr).map_err(|e| CliError::Other {
        message: format!("the plan does not account for every thread: {e}"),
        hint: Some(
            "this is a bug in review; please report it with the snapshot attached".to_owned(),
        ),
    })?;
    let text = if settings.json {
        let mut json = serde_json::to_string_pretty(&report).map_err(|e| CliError::Other {
            message: format!("cannot encode the report: {e}"),
            hint: None,
        })?;
        json.push('\n');
        json
    } else {
        render::report(&pr, &report)
    };
    output::stdout(&text).map_err(CliError::Output)?;
    output::narrate(&report.summary_line("skip"));
    Ok(())
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
