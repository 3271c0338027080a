//! `review triage`: classify every unresolved review thread and decide what happens to it.

use std::fs;
use std::path::{Path, PathBuf};

use clap::Args;
use review_core::model::{PrState, PullRequest, RepoId};
use review_core::plan::{self, FixSettings, TriageSettings};
use review_core::report::Report;
use review_core::rules::LadderMode;
use review_core::snapshot;
use review_github::pr_ref::PrRef;
use review_github::reader::Reader;

use crate::commands::common::{self, AutomationArgs};
use crate::error::CliError;
use crate::github;
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
    json: bool,
    triage: TriageSettings,
}

impl Settings {
    fn from_args(args: TriageArgs) -> Result<Self, CliError> {
        let usage = |message: String, hint: &str| CliError::Usage {
            message,
            hint: Some(hint.to_owned()),
        };
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
                if let (Some(url), Some(flag)) = (&url_repo, &flag_repo) {
                    if url != flag {
                        return Err(usage(
                            format!("the PR URL names {url} but --repo names {flag}"),
                            "pass one of them, or make them agree",
                        ));
                    }
                }
                Source::Snapshot {
                    path,
                    pr,
                    repo: flag_repo.or(url_repo),
                }
            }
        };
        let automation = args.automation.settings()?;
        let mut fixes = FixSettings::default();
        fixes.denied_paths.extend(args.deny_paths);
        Ok(Self {
            source,
            json: args.json,
            triage: TriageSettings {
                automation,
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
    if let Some(number) = number {
        if number != pr.number {
            return Err(input_error(
                format!("it records PR #{}, not #{number}", pr.number),
                "leave out the PR argument, or pass the snapshot of that PR",
            ));
        }
    }
    if let Some(repo) = repo {
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
pub async fn run(args: TriageArgs) -> Result<(), CliError> {
    let settings = Settings::from_args(args)?;
    let pr = match &settings.source {
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
            output::narrate(&format!(
                "[triage] step 1 — reading PR #{} ({}) from GitHub",
                conn.number, conn.repo
            ));
            let read = Reader::new(&conn.client)
                .pull_request(&conn.repo, conn.number)
                .await
                .map_err(github::read_error)?;
            let stats = conn.client.stats();
            output::narrate(&format!(
                "[triage] step 1 — read {} threads at {} in {} requests ({} points)",
                read.threads.len(),
                read.head_sha.short(),
                stats.requests,
                stats.points
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
            "this is a bug in review; please report it with `review snapshot` attached".to_owned(),
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
