//! `review snapshot`: record a pull request in the `--input` format.

use std::path::PathBuf;

use clap::Args;
use review_core::snapshot;

use crate::commands::common::{self, PrArgs};
use crate::error::CliError;
use crate::output;

/// Record a pull request, with every thread and comment, to a file that `review triage --input`
/// reads offline
///
/// Attach the file to a bug report to make a case reproducible. Comment bodies are recorded as
/// they are: mind what the PR contains before sharing it.
#[derive(Debug, Args)]
pub struct SnapshotArgs {
    /// The pull request: a number, a URL, or nothing for the open PR of the current branch
    #[arg(value_name = "PR")]
    pr: Option<String>,

    #[command(flatten)]
    target: PrArgs,

    /// Where to write the snapshot (`-` for stdout)
    #[arg(long, short, value_name = "FILE")]
    out: PathBuf,
}

/// Runs `review snapshot`.
pub async fn run(args: SnapshotArgs, config: &crate::config::Config) -> Result<(), CliError> {
    let (_, pr) = common::load(
        args.pr.as_deref(),
        args.target.repo.as_deref(),
        "[snapshot]",
        config,
    )
    .await?;
    let mut text = snapshot::to_string(&pr, Some(&now_rfc3339()));
    text.push('\n');
    if args.out.as_os_str() == "-" {
        return output::stdout(&text).map_err(CliError::Output);
    }
    crate::state::write_atomically(&args.out, &text).map_err(|e| CliError::Input {
        path: args.out.clone(),
        message: e.to_string(),
        hint: Some("check that the directory exists and is writable".to_owned()),
    })?;
    output::narrate(&format!("[snapshot] wrote {}", args.out.display()));
    Ok(())
}

/// The current time as RFC 3339 UTC, from the system clock.
fn now_rfc3339() -> String {
    let secs = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    rfc3339(secs)
}

/// Formats seconds since the epoch as `YYYY-MM-DDTHH:MM:SSZ` (civil-from-days, proleptic
/// Gregorian).
fn rfc3339(secs: u64) -> String {
    let days = i64::try_from(secs / 86_400).unwrap_or(0);
    let rem = secs % 86_400;
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!(
        "{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}Z",
        rem / 3600,
        rem % 3600 / 60,
        rem % 60
    )
}

#[cfg(test)]
mod tests {
    use super::rfc3339;

    #[test]
    fn formats_utc_dates() {
        assert_eq!(rfc3339(0), "1970-01-01T00:00:00Z");
        assert_eq!(rfc3339(951_782_400), "2000-02-29T00:00:00Z");
        assert_eq!(rfc3339(1_796_011_200), "2026-11-30T04:00:00Z");
    }
}
