//! `review triage`: classify every unresolved review thread and decide what happens to it.
//! The work is `review_app::triage`'s, run by [`triaging::run`] (the pull request read, the
//! pre-review, the adapters wired); this module merges the flags with the configuration and
//! prints the report.

use std::fs;
use std::path::Path;

use review_app::triage::{self, SubstepResult};
use review_core::model::PullRequest;

use crate::error::CliError;
use crate::output;
use crate::render;
use crate::triaging::{self, Settings};

/// Runs `review triage`: reads the pull request, runs the pre-review, wires the adapters
/// (`crate::triaging`), runs `review_app::triage`, and prints the report.
pub async fn run(
    args: triaging::TriageArgs,
    config: &crate::config::Config,
) -> Result<(), CliError> {
    let mut settings = Settings::from_args(args, config)?;
    if settings.substep {
        output::collect_narration();
    }
    match triaging::run::run(&mut settings, config).await? {
        triaging::run::Run::Closed(closed) => print_closed(&closed, &settings),
        triaging::run::Run::Triaged {
            pr,
            triaged,
            pre_review,
        } => render_triaged(&pr, &triaged, &settings, pre_review),
    }
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
    triaging::run::ended(triaged, settings.exit_code)
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
