//! `review fence`: wrap an untrusted comment body for a triager, between tags made from an
//! unguessable marker.

use std::io::Read;

use clap::Args;
use review_core::post;

use crate::commands::common::{self, PrArgs};
use crate::error::CliError;
use crate::output;
use crate::outputs::FenceOutput;

/// Fence a comment body as data for a triager, with a marker from the OS random source
///
/// Prints `MARKER: <marker>`, a blank line, then the body between `<marker>` and `</marker>`
/// lines. Literal copies of the tags (and of the marker) inside the body are redacted first, so
/// a comment cannot forge the boundary; name the marker in the triager's prompt. The body is
/// read from stdin, or with --finding from the watch state of the pull request.
#[derive(Debug, Args)]
pub struct FenceArgs {
    /// The fingerprint of a pending or out-of-diff finding in the watch state
    #[arg(long, value_name = "FINGERPRINT")]
    finding: Option<String>,

    /// With --finding: the pull request (a number or URL) [default: the current branch's]
    #[arg(value_name = "PR", requires = "finding")]
    pr: Option<String>,

    /// Print {"marker", "fenced"} as JSON
    #[arg(long)]
    json: bool,

    #[command(flatten)]
    target: PrArgs,
}

async fn finding_body(
    args: &FenceArgs,
    fp: &str,
    config: &crate::config::Config,
) -> Result<String, CliError> {
    let (repo, number) =
        common::pr_number(args.pr.as_deref(), args.target.repo.as_deref(), config).await?;
    let watch = common::loop_files_here(&repo, number)?.require_watch(number)?;
    let pending = watch
        .pending
        .iter()
        .find(|f| f.fingerprint == fp)
        .map(|f| f.body.clone());
    let out_of_diff = || {
        watch
            .out_of_diff
            .iter()
            .flat_map(|o| &o.findings)
            .find(|f| f.fingerprint == fp)
            .map(|f| f.body.clone())
    };
    pending
        .or_else(out_of_diff)
        .ok_or_else(|| CliError::NotFound {
            message: format!("no pending or out-of-diff finding has fingerprint {fp}"),
            hint: Some("run `review watch --once` to refresh the watch state".to_owned()),
        })
}

/// Runs `review fence`.
pub async fn run(args: FenceArgs, config: &crate::config::Config) -> Result<(), CliError> {
    let body = match &args.finding {
        Some(fp) => finding_body(&args, fp, config).await?,
        None => {
            let mut text = String::new();
            std::io::stdin()
                .read_to_string(&mut text)
                .map_err(|e| CliError::Usage {
                    message: format!("cannot read the body from stdin: {e}"),
                    hint: Some("pipe the comment body in, or pass --finding".to_owned()),
                })?;
            text
        }
    };
    let marker = crate::command::random_marker()
        .map(|hex| format!("finding_{hex}"))
        .map_err(|message| CliError::Other {
            message,
            hint: None,
        })?;
    let fenced = post::fence(body.trim_end_matches('\n'), &marker);
    let text = if args.json {
        serde_json::to_string(&FenceOutput { marker, fenced }).map_err(|e| CliError::Other {
            message: e.to_string(),
            hint: None,
        })? + "\n"
    } else {
        format!("MARKER: {marker}\n\n{fenced}\n")
    };
    output::stdout(&text).map_err(CliError::Output)
}
