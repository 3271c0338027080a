//! `review respond`: post the replies an agent or a person wrote, and resolve, each reply once.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use clap::Args;
use review_core::model::{PullRequest, ThreadId};
use review_core::ports::ReviewHost;
use review_core::post;
use review_github::adapter::{GitHubHost, WriteSettings};
use serde::{Deserialize, Serialize};

use crate::commands::common::{self, AutomationArgs, PrArgs};
use crate::error::CliError;
use crate::git::GitVcs;
use crate::output;

/// Post replies from a file to bot threads, and resolve them; each reply is posted once, ever
///
/// The file is a JSON array of `{"threadId": "PRRT_...", "replyBody": "...", "resolve": true}`.
/// Threads a person took part in, or that could not be read whole, get neither reply nor
/// resolve. A reply that cites a commit waits until that commit is on the PR's head on GitHub.
/// Re-running the same file is safe.
#[derive(Debug, Args)]
pub struct RespondArgs {
    /// The pull request: a number, a URL, or nothing for the open PR of the current branch
    #[arg(value_name = "PR")]
    pr: Option<String>,

    /// The replies file
    #[arg(long, value_name = "FILE")]
    replies: PathBuf,

    #[command(flatten)]
    target: PrArgs,

    #[command(flatten)]
    automation: AutomationArgs,
}

/// One entry of the replies file.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct Reply {
    thread_id: String,
    reply_body: String,
    resolve: bool,
}

/// What was posted, by `thread:key`, so a rerun can show it already did.
#[derive(Debug, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct Ledger {
    posted: BTreeMap<String, Posted>,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct Posted {
    thread: String,
    comment: String,
    url: String,
}

fn read_replies(path: &Path) -> Result<Vec<Reply>, CliError> {
    let text = std::fs::read_to_string(path).map_err(|e| CliError::Input {
        path: path.to_path_buf(),
        message: e.to_string(),
        hint: None,
    })?;
    let replies: Vec<Reply> = serde_json::from_str(&text).map_err(|e| CliError::Usage {
        message: format!("{} is not a replies file: {e}", path.display()),
        hint: Some(
            "a replies file is a JSON array of {\"threadId\", \"replyBody\", \"resolve\"}; nothing was posted"
                .to_owned(),
        ),
    })?;
    if let Some(bad) = replies
        .iter()
        .find(|r| r.reply_body.trim().is_empty() || r.thread_id.trim().is_empty())
    {
        return Err(CliError::Usage {
            message: format!(
                "an entry of {} has an empty threadId or replyBody ({:?})",
                path.display(),
                bad.thread_id
            ),
            hint: Some("nothing was posted".to_owned()),
        });
    }
    Ok(replies)
}

/// Commit ids a reply cites: runs of 7 to 40 hex digits with at least one digit and one letter.
fn cited_commits(text: &str) -> Vec<&str> {
    text.split(|c: char| !c.is_ascii_alphanumeric())
        .filter(|w| {
            (7..=40).contains(&w.len())
                && w.chars().all(|c| c.is_ascii_hexdigit())
                && w.chars().any(|c| c.is_ascii_digit())
                && w.chars().any(|c| c.is_ascii_alphabetic())
        })
        .collect()
}

/// Why a reply must wait, if a commit it cites is not (provably) on the PR's head.
fn unpushed_citation(vcs: Option<&GitVcs>, pr: &PullRequest, body: &str) -> Option<String> {
    cited_commits(body).into_iter().find_map(|sha| {
        if pr.head_sha.0.starts_with(&sha.to_ascii_lowercase()) {
            return None;
        }
        let on_head = vcs.is_some_and(|v| {
            v.has_commit(&pr.head_sha.0) && v.has_commit(sha) && v.is_ancestor(sha, &pr.head_sha.0)
        });
        (!on_head).then(|| {
            format!(
                "it cites {sha}, which is not on the PR's head {} yet",
                pr.head_sha.short()
            )
        })
    })
}

fn ledger_path(vcs: Option<&GitVcs>, pr: &PullRequest) -> Option<PathBuf> {
    crate::state::pr_file(vcs?, "ledger", pr).ok()
}

fn load_ledger(path: Option<&Path>) -> Result<Ledger, CliError> {
    let Some(path) = path else {
        return Ok(Ledger::default());
    };
    crate::state::load(path).map_err(|e| CliError::Input {
        path: path.to_path_buf(),
        message: e.describe("reply ledger"),
        hint: Some("fix it, or move it away: the replies themselves carry their keys, so nothing is posted twice".to_owned()),
    })
}

fn save_ledger(path: Option<&Path>, ledger: &Ledger) -> Result<(), CliError> {
    let Some(path) = path else {
        return Ok(());
    };
    crate::state::save(path, ledger).map_err(|e| CliError::Input {
        path: path.to_path_buf(),
        message: format!("cannot record the reply: {e}"),
        hint: Some(
            "the reply is posted and carries its key; a rerun will not post it again".to_owned(),
        ),
    })
}

/// Runs `review respond`.
pub async fn run(args: RespondArgs) -> Result<(), CliError> {
    let automation = args.automation.settings()?;
    let replies = read_replies(&args.replies)?;
    let (conn, pr) =
        common::load(args.pr.as_deref(), args.target.repo.as_deref(), "[respond]").await?;
    let vcs = GitVcs::open(&common::cwd()?).ok();
    let ledger_file = ledger_path(vcs.as_ref(), &pr);
    let mut ledger = load_ledger(ledger_file.as_deref())?;
    let host = GitHubHost::new(
        conn.client.clone(),
        conn.repo.clone(),
        conn.number,
        WriteSettings {
            header: automation.header.clone(),
            ..WriteSettings::default()
        },
    );

    let mut lines = Vec::new();
    let mut to_resolve = Vec::new();
    let mut failed = 0usize;
    for reply in &replies {
        let id = ThreadId(reply.thread_id.clone());
        if let Err(e) = common::bot_thread(&pr, &id, &automation) {
            lines.push(format!("skipped  {id}: {e}"));
            continue;
        }
        let key = post::idempotency_key(&id, &reply.reply_body);
        let entry = format!("{id}:{key}");
        let Some(thread) = pr.thread(&id) else {
            continue;
        };
        let landed = thread
            .comments
            .iter()
            .find(|c| post::find_key(&c.body) == Some(key.as_str()));
        if ledger.posted.contains_key(&entry) || landed.is_some() {
            if let (Some(c), false) = (landed, ledger.posted.contains_key(&entry)) {
                // Posted by a run that stopped before recording it.
                ledger.posted.insert(
                    entry.clone(),
                    Posted {
                        thread: id.0.clone(),
                        comment: c.id.0.clone(),
                        url: c.url.clone(),
                    },
                );
                save_ledger(ledger_file.as_deref(), &ledger)?;
            }
            lines.push(format!("already  {id}: posted before; not posted again"));
            if reply.resolve && !thread.is_resolved {
                to_resolve.push(id);
            }
            continue;
        }
        if let Some(why) = unpushed_citation(vcs.as_ref(), &pr, &reply.reply_body) {
            lines.push(format!("waiting  {id}: {why}; run again after the push"));
            continue;
        }
        let body = post::marked_body(&automation.header, &reply.reply_body, &key);
        match host.reply(&id, &body).await {
            Ok(posted) => {
                ledger.posted.insert(
                    entry,
                    Posted {
                        thread: id.0.clone(),
                        comment: posted.id.0.clone(),
                        url: posted.url.clone(),
                    },
                );
                save_ledger(ledger_file.as_deref(), &ledger)?;
                lines.push(format!("posted   {id}: {}", posted.url));
                if reply.resolve {
                    to_resolve.push(id);
                }
            }
            Err(e) => {
                failed += 1;
                lines.push(format!("failed   {id}: {e}; not resolved"));
            }
        }
    }
    if !to_resolve.is_empty() {
        for (id, result) in to_resolve
            .iter()
            .zip(host.resolve_threads(&to_resolve).await)
        {
            match result {
                Ok(()) => lines.push(format!("resolved {id}")),
                Err(e) => {
                    failed += 1;
                    lines.push(format!("failed   {id}: resolving: {e}"));
                }
            }
        }
    }
    let mut text = lines.join("\n");
    text.push('\n');
    output::stdout(&text).map_err(CliError::Output)?;
    if failed > 0 {
        return Err(CliError::GitHub {
            message: format!(
                "{failed} of the {} replies or resolves failed",
                replies.len()
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
    use super::cited_commits;

    #[test]
    fn cited_commits_are_hex_runs_with_digits_and_letters() {
        assert_eq!(
            cited_commits("Fixed in 3f2a9c1 — renamed."),
            vec!["3f2a9c1"]
        );
        assert_eq!(
            cited_commits("Fixed in `0123456789abcdef0123456789abcdef01234567`."),
            vec!["0123456789abcdef0123456789abcdef01234567"]
        );
        assert!(cited_commits("Not applying this — the cache is deliberate.").is_empty());
        assert!(cited_commits("see issue 1234567 and the word deadbeef").is_empty());
    }
}
