//! `review respond`: post the replies an agent or a person wrote, and resolve, each reply once.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use clap::Args;
use review_core::model::{PullRequest, ThreadId};
use review_core::ports::ReviewHost;
use review_core::post;
use review_github::adapter::GitHubHost;
use serde::{Deserialize, Serialize};

use review_core::decisions::{self, Escalation};
use review_core::watch::REPOST_LIMIT;

use crate::commands::common::{self, AutomationArgs, PrArgs};
use crate::error::CliError;
use crate::git::GitVcs;
use crate::loop_files::LoopFiles;
use crate::output;

/// Post replies from a file to bot threads, and resolve them; each reply is posted once, ever
///
/// The file is a JSON array of `{"threadId": "PRRT_...", "replyBody": "...", "resolve": true}`;
/// an entry `{"reviewId": "PRR_...", "replyBody": "..."}` answers a review's out-of-diff
/// findings with one PR comment instead. Threads a person took part in, threads escalated in
/// the loop's decisions, and threads that could not be read whole get neither reply nor
/// resolve. A reply that cites a commit waits until that commit is on the PR's head on GitHub.
/// Re-running the same file is safe. With --from-decisions the replies are written from the
/// loop's decisions file and the watcher's reposts instead.
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

    #[command(flatten)]
    target: PrArgs,

    #[command(flatten)]
    automation: AutomationArgs,
}

/// One entry of the replies file: a thread reply, or (with `reviewId`) a PR comment answering a
/// review's out-of-diff findings.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub(crate) struct Reply {
    #[serde(default)]
    pub thread_id: String,
    #[serde(default)]
    pub review_id: Option<String>,
    pub reply_body: String,
    #[serde(default)]
    pub resolve: bool,
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
    fn review(r: &Reply) -> Option<&str> {
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

/// The loop's files, when the current directory is in a clone: the decisions respond keeps up
/// to date, and the watcher's reposts.
fn loop_files(vcs: Option<&GitVcs>, pr: &PullRequest) -> Option<LoopFiles> {
    LoopFiles::new(vcs?, &pr.repo, pr.number).ok()
}

/// Marks decided findings whose reply state is unknown (files written before `replied`
/// existed): resolved on GitHub means replied; open means still owed.
pub(crate) fn reconcile(files: &LoopFiles, pr: &PullRequest) -> Result<(), CliError> {
    if files.load_decisions()?.unreconciled().next().is_none() {
        return Ok(());
    }
    files.update_decisions(|d| {
        for seen in d.seen.values_mut().filter(|s| s.replied.is_none()) {
            let resolved = pr
                .thread(&ThreadId(seen.thread_id.clone()))
                .is_some_and(|t| t.is_resolved);
            seen.replied = Some(resolved);
        }
    })
}

/// The replies owed according to the decisions and the watcher's reposts. Reposts seen
/// [`REPOST_LIMIT`] times are escalated instead.
pub(crate) fn replies_from_decisions(
    files: &LoopFiles,
    pr: &PullRequest,
) -> Result<Vec<Reply>, CliError> {
    let decisions = files.load_decisions()?;
    let watch = files.load_watch()?.unwrap_or_default();
    let mut replies = Vec::new();
    // Threads closed (or gone) before their answer: settled, so quiescence does not wait on
    // them forever. Out-of-diff findings (recorded under their review) are answered apart.
    let mut settled = Vec::new();
    for seen in decisions.owed().map(|(_, s)| s) {
        if watch
            .out_of_diff
            .iter()
            .any(|o| o.review_id == seen.thread_id)
        {
            continue;
        }
        let thread = pr.thread(&ThreadId(seen.thread_id.clone()));
        let Some(thread) = thread.filter(|t| !t.is_resolved) else {
            settled.push(seen.thread_id.clone());
            continue;
        };
        match decisions::reply_text(seen) {
            Some(text) => replies.push(Reply {
                thread_id: seen.thread_id.clone(),
                review_id: None,
                reply_body: text,
                resolve: thread.all_comments_read,
            }),
            None => output::narrate(&format!(
                "[respond] {}: a VALID verdict replies once its fix commit is recorded (resolvedSha)",
                seen.thread_id
            )),
        }
    }
    let mut escalate = Vec::new();
    let mut closed_reposts = Vec::new();
    for repost in &watch.reposted {
        if decisions.answered_reposts.contains_key(&repost.thread_id)
            || decisions.is_escalated_thread(&repost.thread_id)
        {
            continue;
        }
        let open = pr
            .thread(&ThreadId(repost.thread_id.clone()))
            .is_some_and(|t| !t.is_resolved);
        if !open {
            closed_reposts.push(repost.thread_id.clone());
            continue;
        }
        if repost.count >= REPOST_LIMIT {
            escalate.push(repost.clone());
            continue;
        }
        let Some(prior) = decisions.seen.get(&repost.fingerprint) else {
            continue;
        };
        let prior_url = pr
            .thread(&ThreadId(prior.thread_id.clone()))
            .and_then(|t| t.first_comment())
            .map(|c| c.url.as_str())
            .filter(|u| !u.is_empty());
        replies.push(Reply {
            thread_id: repost.thread_id.clone(),
            review_id: None,
            reply_body: decisions::repost_reply(prior, prior_url),
            resolve: repost.all_comments_read,
        });
    }
    if !settled.is_empty() || !closed_reposts.is_empty() {
        for thread in settled.iter().chain(&closed_reposts) {
            output::narrate(&format!(
                "[respond] {thread} was resolved on GitHub before its answer; not answered"
            ));
        }
        files.update_decisions(|d| {
            for seen in d.seen.values_mut() {
                if settled.contains(&seen.thread_id) {
                    seen.replied = Some(true);
                }
            }
            for thread in &closed_reposts {
                d.answered_reposts.insert(thread.clone(), true);
            }
        })?;
    }
    if !escalate.is_empty() {
        files.update_decisions(|d| {
            for r in &escalate {
                if !d.is_escalated_thread(&r.thread_id) {
                    let round = d.current_round();
                    d.escalated.push(Escalation {
                        fingerprint: r.fingerprint.clone(),
                        thread_id: r.thread_id.clone(),
                        reason: format!("posted again {} times after a decision", r.count),
                        escalated_in_round: round,
                    });
                }
            }
        })?;
        for r in &escalate {
            output::narrate(&format!(
                "[respond] {}: reposted {} times; escalated for a person instead of answered",
                r.thread_id, r.count
            ));
        }
    }
    Ok(replies)
}

/// Records in the decisions that `thread` got its reply (decided findings and reposts).
fn mark_replied(files: Option<&LoopFiles>, thread: &str) -> Result<(), CliError> {
    let Some(files) = files else {
        return Ok(());
    };
    let decisions = files.load_decisions()?;
    let watch = files.load_watch()?.unwrap_or_default();
    let decided = decisions
        .seen
        .values()
        .any(|s| s.thread_id == thread && s.replied != Some(true));
    let repost = watch.reposted.iter().any(|r| r.thread_id == thread)
        && !decisions.answered_reposts.contains_key(thread);
    if !decided && !repost {
        return Ok(());
    }
    files.update_decisions(|d| {
        for seen in d.seen.values_mut().filter(|s| s.thread_id == thread) {
            seen.replied = Some(true);
        }
        if repost {
            d.answered_reposts.insert(thread.to_owned(), true);
        }
    })
}

/// Runs `review respond`.
pub async fn run(args: RespondArgs) -> Result<(), CliError> {
    let automation = args.automation.settings()?;
    let file_replies = args.replies.as_deref().map(read_replies).transpose()?;
    let (conn, pr) =
        common::load(args.pr.as_deref(), args.target.repo.as_deref(), "[respond]").await?;
    let vcs = GitVcs::open(&common::cwd()?).ok();
    let files = loop_files(vcs.as_ref(), &pr);
    if let Some(files) = &files {
        reconcile(files, &pr)?;
    }
    let replies = match file_replies {
        Some(replies) => replies,
        None => {
            let files = files.as_ref().ok_or_else(|| CliError::Usage {
                message: "--from-decisions needs the loop's files, kept in the git repository"
                    .to_owned(),
                hint: Some("run inside a clone of the pull request's repository".to_owned()),
            })?;
            replies_from_decisions(files, &pr)?
        }
    };
    let (lines, failed) = post_replies(
        &conn,
        &pr,
        &replies,
        &automation,
        vcs.as_ref(),
        files.as_ref(),
    )
    .await?;
    let mut text = lines.join("\n");
    if text.is_empty() {
        text.push_str("nothing to reply to");
    }
    text.push('\n');
    output::human(&text).map_err(CliError::Output)?;
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

/// Posts `replies` on `pr` (read whole just before), each once ever, and resolves as asked.
/// Returns one report line per reply or resolve, and how many failed.
pub(crate) async fn post_replies(
    conn: &crate::github::Connection,
    pr: &PullRequest,
    replies: &[Reply],
    automation: &review_core::gate::AutomationSettings,
    vcs: Option<&GitVcs>,
    files: Option<&LoopFiles>,
) -> Result<(Vec<String>, usize), CliError> {
    let files = files.cloned();
    let escalated = match &files {
        Some(f) => f.load_decisions()?,
        None => decisions::Decisions::default(),
    };
    let ledger_file = ledger_path(vcs, pr);
    let mut ledger = load_ledger(ledger_file.as_deref())?;
    let host = conn.host(&automation.header);

    let mut lines = Vec::new();
    let mut to_resolve = Vec::new();
    let mut failed = 0usize;
    for (done, reply) in replies.iter().enumerate() {
        if let Some(review) = reply.review_id.as_deref() {
            match answer_review(
                &host,
                vcs,
                pr,
                automation,
                &mut ledger,
                ledger_file.as_deref(),
                review,
                &reply.reply_body,
            )
            .await
            {
                Ok(line) => {
                    let waiting = line.starts_with("waiting");
                    lines.push(line);
                    if let Some(files) = &files
                        && !waiting
                    {
                        files.update_decisions(|d| {
                            d.addressed_out_of_diff.insert(review.to_owned(), true);
                            for seen in d.seen.values_mut().filter(|s| s.thread_id == review) {
                                seen.replied = Some(true);
                            }
                        })?;
                    }
                }
                Err(line) => {
                    failed += 1;
                    lines.push(line);
                }
            }
            continue;
        }
        let id = ThreadId(reply.thread_id.clone());
        if let Err(e) = common::bot_thread(pr, &id, automation) {
            lines.push(format!("skipped  {id}: {e}"));
            continue;
        }
        if escalated.is_escalated_thread(&id.0) {
            lines.push(format!(
                "skipped  {id}: escalated in the loop's decisions; a person answers it"
            ));
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
            mark_replied(files.as_ref(), &id.0)?;
            lines.push(format!("already  {id}: posted before; not posted again"));
            if reply.resolve && !thread.is_resolved {
                to_resolve.push(id);
            }
            continue;
        }
        if let Some(why) = unpushed_citation(vcs, pr, &reply.reply_body) {
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
                mark_replied(files.as_ref(), &id.0)?;
                lines.push(format!("posted   {id}: {}", posted.url));
                if reply.resolve {
                    to_resolve.push(id);
                }
            }
            Err(e) => {
                failed += 1;
                lines.push(format!("failed   {id}: {e}; not resolved"));
                if review_github::adapter::stops_all_posts(&e) {
                    let left = replies.len() - done - 1;
                    lines.push(format!(
                        "stopped: GitHub refuses posts now; {left} more replies not tried (run again later)"
                    ));
                    failed += left;
                    break;
                }
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
    Ok((lines, failed))
}

/// Posts the one PR comment answering review `review`'s out-of-diff findings, once ever.
/// Returns the report line, or the failure line.
#[allow(clippy::too_many_arguments)]
async fn answer_review(
    host: &GitHubHost,
    vcs: Option<&GitVcs>,
    pr: &PullRequest,
    automation: &review_core::gate::AutomationSettings,
    ledger: &mut Ledger,
    ledger_file: Option<&Path>,
    review: &str,
    text: &str,
) -> Result<String, String> {
    let key_id = ThreadId(format!("review:{review}"));
    let key = post::idempotency_key(&key_id, text);
    let entry = format!("{review}:{key}");
    if !pr.reviews.iter().any(|r| r.id.0 == review) {
        return Err(format!(
            "failed   {review}: no such review on PR #{}",
            pr.number
        ));
    }
    let landed = pr
        .comments
        .iter()
        .find(|c| post::find_key(&c.body) == Some(key.as_str()));
    if ledger.posted.contains_key(&entry) || landed.is_some() {
        return Ok(format!(
            "already  {review}: answered before; not posted again"
        ));
    }
    if let Some(why) = unpushed_citation(vcs, pr, text) {
        return Ok(format!(
            "waiting  {review}: {why}; run again after the push"
        ));
    }
    let body = post::marked_body(&automation.header, text, &key);
    match host.comment(&pr.id, &body).await {
        Ok(posted) => {
            ledger.posted.insert(
                entry,
                Posted {
                    thread: review.to_owned(),
                    comment: posted.id.0.clone(),
                    url: posted.url.clone(),
                },
            );
            save_ledger(ledger_file, ledger).map_err(|e| format!("failed   {review}: {e}"))?;
            Ok(format!("posted   {review}: {}", posted.url))
        }
        Err(e) => Err(format!("failed   {review}: {e}")),
    }
}

#[cfg(test)]
mod tests {
    use super::{cited_commits, read_replies};

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
