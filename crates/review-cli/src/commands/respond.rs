//! `review respond`: post the replies an agent or a person wrote, and resolve, each reply once.
//! The work is `review_app::respond`'s; this module reads the arguments and the replies file,
//! wires the CLI's adapters (`crate::replying`) and prints the report.

use std::path::{Path, PathBuf};

use clap::Args;
use review_core::reply::Reply;

use crate::commands::common::{AutomationArgs, PrArgs};
use crate::error::CliError;

/// Post replies from a file to bot threads, and resolve them; each reply is posted once, ever
///
/// The file is a JSON array of `{"threadId": "PRRT_...", "replyBody": "...", "resolve": true}`;
/// an entry `{"reviewId": "PRR_...", "replyBody": "..."}` answers a bot review's out-of-diff
/// findings with one PR comment instead. Threads a person took part in (and reviews a person
/// wrote), threads escalated in the loop's decisions, and threads that could not be read whole
/// get neither reply nor resolve; each thread is read again just before its reply, and the
/// threads to resolve again just before the resolves. A reply that
/// cites a commit ("in <sha>", "Fixed in <sha>", or a sha in backticks) waits until that commit
/// is on the PR's head on GitHub; one citing a commit neither git nor the PR knows is refused
/// (exit 2) before anything is posted. Re-running the same file is safe, and two runs on one
/// pull request take turns (a lock). With --from-decisions the replies are written from the
/// loop's decisions file and the watcher's reposts instead: a reply about a fix waits for that
/// fix to be on the PR's head and cites the commit as it landed there.
#[derive(Debug, Args)]
#[command(group(clap::ArgGroup::new("source").required(true).args(["replies", "from_decisions"])))]
pub struct RespondArgs {
    /// The pull request: a number, a URL, or nothing for the open PR of the current branch
    #[arg(value_name = "PR")]
    pr: Option<String>,

    /// The replies file
    #[arg(long, value_name = "FILE")]
    replies: Option<PathBuf>,

    /// Reply to every decided finding still owed a reply, and to reposts, from the decisions
    /// file (a repost seen 3 times is escalated instead)
    #[arg(long)]
    from_decisions: bool,

    /// With --from-decisions: open a follow-up issue for each finding judged OUT_OF_SCOPE
    /// (once per thread, found again by a key in its body) and put its link in the reply; also
    /// `defer-to-issue = true` in your own config. Labels: `defer-labels`
    #[arg(long, requires = "from_decisions")]
    defer_to_issue: bool,

    #[command(flatten)]
    target: PrArgs,

    #[command(flatten)]
    automation: AutomationArgs,
}

/// The replies of a replies file.
fn read_replies(path: &Path) -> Result<Vec<Reply>, CliError> {
    let text = std::fs::read_to_string(path).map_err(|e| CliError::Input {
        path: path.to_path_buf(),
        message: e.to_string(),
        hint: None,
    })?;
    let value = serde_json::from_str(&text).map_err(|e| CliError::Usage {
        message: format!("{} is not a replies file: {e}", path.display()),
        hint: Some(
            "a replies file is a JSON array of {\"threadId\", \"replyBody\", \"resolve\"}; nothing was posted"
                .to_owned(),
        ),
    })?;
    crate::acting::replies(value, &path.display().to_string())
}

/// Runs `review respond`.
pub async fn run(args: RespondArgs, config: &crate::config::Config) -> Result<(), CliError> {
    let automation = args.automation.settings(config)?;
    let replies = args.replies.as_deref().map(read_replies).transpose()?;
    crate::acting::respond(
        args.pr.as_deref(),
        args.target.repo.as_deref(),
        replies,
        args.defer_to_issue,
        automation,
        config,
    )
    .await?
    .print()
}

#[cfg(test)]
mod tests {
    use super::read_replies;

    proptest::proptest! {
        /// Whatever a replies file holds, it is read or refused with a usage or input error
        /// before anything is posted: never a panic.
        #[test]
        fn any_replies_file_reads_or_is_refused(text in "(\\PC|\n|\\{|\\}|\\[|\\]|:|,|\"){0,300}") {
            let dir = tempfile::tempdir().unwrap();
            let path = dir.path().join("replies.json");
            std::fs::write(&path, &text).unwrap();
            if let Err(e) = read_replies(&path) {
                let code = e.code();
                proptest::prop_assert!(code == 2 || code == 3, "exit {code}: {e}");
            }
        }
    }
}
