//! `review respond`: post the replies an agent or a person wrote, and resolve, each reply once.
//! The work is `review_app::respond`'s; this module reads the arguments and the replies file,
//! wires the CLI's adapters (`crate::replying`) and prints the report.

use std::path::{Path, PathBuf};

use clap::Args;
use review_app::respond::Source;
use review_core::reply::Reply;
use serde::Deserialize;

use crate::commands::common::{self, AutomationArgs, PrArgs};
use crate::error::CliError;
use crate::loop_files::LoopFiles;
use crate::output;
use crate::replying::{self, History, PostLock};

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

/// One entry of the replies file: a thread reply, or (with `reviewId`) a PR comment answering a
/// review's out-of-diff findings.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct Entry {
    #[serde(default)]
    thread_id: String,
    #[serde(default)]
    review_id: Option<String>,
    reply_body: String,
    #[serde(default)]
    resolve: bool,
}

impl Entry {
    /// The reply the entry asks for (checked by [`read_replies`] first).
    fn into_reply(self) -> Reply {
        match self.review_id {
            Some(review) => Reply::review(&review, self.reply_body),
            None => Reply::thread(&self.thread_id, self.reply_body, self.resolve),
        }
    }
}

fn read_replies(path: &Path) -> Result<Vec<Reply>, CliError> {
    let text = std::fs::read_to_string(path).map_err(|e| CliError::Input {
        path: path.to_path_buf(),
        message: e.to_string(),
        hint: None,
    })?;
    let replies: Vec<Entry> = serde_json::from_str(&text).map_err(|e| CliError::Usage {
        message: format!("{} is not a replies file: {e}", path.display()),
        hint: Some(
            "a replies file is a JSON array of {\"threadId\", \"replyBody\", \"resolve\"}; nothing was posted"
                .to_owned(),
        ),
    })?;
    fn review(r: &Entry) -> Option<&str> {
        r.review_id
            .as_deref()
            .map(str::trim)
            .filter(|id| !id.is_empty())
    }
    if let Some(bad) = replies.iter().find(|r| {
        r.reply_body.trim().is_empty()
            || (r.thread_id.trim().is_empty() == review(r).is_none())
            || (review(r).is_some() && r.resolve)
    }) {
        return Err(CliError::Usage {
            message: format!(
                "an entry of {} needs a replyBody and exactly one of threadId and reviewId \
                 (a review's comment cannot be resolved) ({:?})",
                path.display(),
                if bad.thread_id.is_empty() {
                    bad.review_id.clone().unwrap_or_default()
                } else {
                    bad.thread_id.clone()
                }
            ),
            hint: Some("nothing was posted".to_owned()),
        });
    }
    Ok(replies.into_iter().map(Entry::into_reply).collect())
}

/// Runs `review respond`.
pub async fn run(args: RespondArgs, config: &crate::config::Config) -> Result<(), CliError> {
    let automation = args.automation.settings(config)?;
    let file_replies = args.replies.as_deref().map(read_replies).transpose()?;
    let (conn, pr) = common::load(
        args.pr.as_deref(),
        args.target.repo.as_deref(),
        "[respond]",
        config,
    )
    .await?;
    let vcs = common::clone_here()?;
    if let Some(replies) = &file_replies {
        review_app::respond::check_citations(&History(vcs.as_ref()), &pr, replies)?;
    }
    let repository = crate::config::repository(&conn.client, &pr).await?;
    let automation = common::gate_for(automation, &repository, &pr, vcs.as_ref())?;
    // One run posts on a pull request at a time; the PR is read again under the lock.
    let _lock = PostLock::take(vcs.as_ref(), &pr)?;
    let pr = conn.read_pr().await?;
    // The loop's files, when the current directory is in a clone: the decisions respond keeps
    // up to date, and the watcher's reposts.
    let files = vcs
        .as_ref()
        .map(|v| LoopFiles::new(v, &pr.repo, pr.number))
        .transpose()?;
    let source = match file_replies {
        Some(replies) => Source::Given(replies),
        None if files.is_none() => {
            return Err(CliError::Usage {
                message: "--from-decisions needs the loop's files, kept in the git repository"
                    .to_owned(),
                hint: Some("run inside a clone of the pull request's repository".to_owned()),
            });
        }
        None => Source::FromDecisions,
    };
    // Never for a replies file: the user wrote those words.
    let defer =
        source == Source::FromDecisions && crate::deferring::wanted(args.defer_to_issue, config);
    let responded = replying::respond(
        &conn,
        &pr,
        source,
        &automation,
        vcs.as_ref(),
        files.as_ref(),
        defer,
        config,
    )
    .await?;
    let lines: Vec<String> = responded.outcomes.iter().map(replying::render).collect();
    let mut text = lines.join("\n");
    if text.is_empty() {
        text.push_str("nothing to reply to");
    }
    text.push('\n');
    output::human(&text).map_err(CliError::Output)?;
    let uncertain = responded.uncertain();
    let failed = responded.failed() + uncertain;
    if failed > 0 {
        let maybe = if uncertain > 0 {
            format!(" ({uncertain} of them may have been posted: the next run looks first)")
        } else {
            String::new()
        };
        return Err(CliError::GitHub {
            message: format!(
                "{failed} of the {} replies or resolves failed{maybe}",
                responded.asked
            ),
            source: None,
            hint: Some(
                "run the same command again: what was posted is not posted twice".to_owned(),
            ),
        });
    }
    Ok(())
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
