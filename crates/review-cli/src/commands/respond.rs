//! `review respond`: post the replies an agent or a person wrote, and resolve, each reply once.

use std::path::{Path, PathBuf};
use std::time::Duration;

use clap::Args;
use review_core::decisions::{self, Escalation, Settled};
use review_core::gate::Refusal;
use review_core::model::{PullRequest, Thread, ThreadId};
use review_core::ports::ReviewHost;
use review_core::post;
use review_core::watch::REPOST_LIMIT;
use serde::Deserialize;

use crate::audit::AuditedHost;
use crate::commands::common::{self, AutomationArgs, PrArgs};
use crate::error::CliError;
use crate::git::GitVcs;
use crate::ledger::{Ledger, Posted};
use crate::loop_files::LoopFiles;
use crate::output;

/// How long a run waits for another run posting on the same pull request.
const LOCK_WAIT: Duration = Duration::from_secs(30);

/// The variable that shortens [`LOCK_WAIT`], for the tests (which cannot wait 30 s for a lock):
/// whole seconds, never more than [`LOCK_WAIT`]. A shorter wait only gives up sooner.
const LOCK_WAIT_FOR_TESTS: &str = "REVIEW_TEST_LOCK_WAIT_SECONDS";

/// How long this run waits for the post lock: [`LOCK_WAIT`], or less when
/// [`LOCK_WAIT_FOR_TESTS`] says so.
fn lock_wait() -> Duration {
    std::env::var(LOCK_WAIT_FOR_TESTS)
        .ok()
        .and_then(|s| s.trim().parse::<u64>().ok())
        .map_or(LOCK_WAIT, |secs| Duration::from_secs(secs).min(LOCK_WAIT))
}

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
    /// For a reply written from a decision: the commit it waits for, as recorded. A reply about
    /// a fix waits until that fix is on the PR's head, and cites it as it landed there; the
    /// other replies of a round that made a commit wait for that commit's push.
    #[serde(skip)]
    pub awaits: Option<String>,
    /// Whether `awaits` is the reply's own fix (else its round's commit).
    #[serde(skip)]
    pub awaits_own_fix: bool,
}

impl Reply {
    /// A reply to a thread.
    pub fn thread(thread: &str, body: String, resolve: bool) -> Self {
        Self {
            thread_id: thread.to_owned(),
            review_id: None,
            reply_body: body,
            resolve,
            awaits: None,
            awaits_own_fix: false,
        }
    }
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

/// The commits a reply cites: runs of 7 to 40 hex digits (digits alone included) that follow
/// "in " (as in "Fixed in 3f2a9c1") or stand alone in a code span (`` `3f2a9c1` ``).
pub(crate) fn cited_commits(text: &str) -> Vec<&str> {
    let is_sha = |w: &str| (7..=40).contains(&w.len()) && w.bytes().all(|b| b.is_ascii_hexdigit());
    let mut out: Vec<&str> = Vec::new();
    // Code spans.
    for (i, span) in text.split('`').enumerate() {
        if i % 2 == 1 && is_sha(span.trim()) {
            out.push(span.trim());
        }
    }
    // "in <sha>", whatever precedes "in".
    let words: Vec<&str> = text
        .split(|c: char| c.is_whitespace())
        .filter(|w| !w.is_empty())
        .collect();
    for pair in words.windows(2) {
        if pair[0].eq_ignore_ascii_case("in") {
            let w = pair[1].trim_matches(|c: char| !c.is_ascii_alphanumeric());
            if is_sha(w) {
                out.push(w);
            }
        }
    }
    out.sort_unstable();
    out.dedup();
    out
}

/// Where a cited commit is.
#[derive(Debug, PartialEq, Eq)]
enum Citation {
    /// On the PR's head.
    OnHead,
    /// Known (to git or the PR) but not on the PR's head yet.
    NotPushed,
    /// Neither git nor the PR knows it.
    Unknown,
}

fn citation(vcs: Option<&GitVcs>, pr: &PullRequest, sha: &str) -> Citation {
    let sha = sha.to_ascii_lowercase();
    if pr.head_sha.0.starts_with(&sha) {
        return Citation::OnHead;
    }
    let Some(full) = vcs.and_then(|v| v.resolve_commit(&sha)) else {
        return Citation::Unknown;
    };
    let on_head =
        vcs.is_some_and(|v| v.has_commit(&pr.head_sha.0) && v.is_ancestor(&full, &pr.head_sha.0));
    if on_head {
        Citation::OnHead
    } else {
        Citation::NotPushed
    }
}

/// Refuses (exit 2, before anything is posted) a replies file that cites a commit neither git
/// nor the PR knows: it would wait forever, or worse, be posted citing nothing.
fn check_citations(
    vcs: Option<&GitVcs>,
    pr: &PullRequest,
    replies: &[Reply],
) -> Result<(), CliError> {
    let unknown: Vec<String> = replies
        .iter()
        .flat_map(|r| {
            cited_commits(&r.reply_body)
                .into_iter()
                .filter(|sha| citation(vcs, pr, sha) == Citation::Unknown)
                .map(|sha| {
                    format!(
                        "{} cites {sha}",
                        if r.thread_id.is_empty() {
                            r.review_id.as_deref().unwrap_or("?")
                        } else {
                            &r.thread_id
                        }
                    )
                })
                .collect::<Vec<_>>()
        })
        .collect();
    if unknown.is_empty() {
        return Ok(());
    }
    Err(CliError::Usage {
        message: format!(
            "a reply cites a commit that neither git nor the pull request knows: {}",
            unknown.join("; ")
        ),
        hint: Some(
            "fetch it, fix the sha, or run inside the clone that has it; nothing was posted"
                .to_owned(),
        ),
    })
}

/// Why a reply must wait, if a commit it cites is not on the PR's head yet.
fn unpushed_citation(vcs: Option<&GitVcs>, pr: &PullRequest, body: &str) -> Option<String> {
    cited_commits(body).into_iter().find_map(|sha| {
        (citation(vcs, pr, sha) != Citation::OnHead).then(|| {
            format!(
                "it cites {sha}, which is not on the PR's head {} yet",
                pr.head_sha.short()
            )
        })
    })
}

/// The commit on the PR's head that carries the fix recorded as `commit` for `thread`: one of
/// the PR's own commits (`base..head`) whose trailer names the thread, else one with the same
/// patch-id (a rebase changed its id), else `commit` itself when it is on the head. `None`
/// while the fix is not on the PR's head.
pub(crate) fn landed_fix(
    vcs: Option<&GitVcs>,
    pr: &PullRequest,
    thread: &str,
    commit: &str,
) -> Option<String> {
    let vcs = vcs?;
    let head = pr.head_sha.0.as_str();
    if !vcs.has_commit(head) {
        return None;
    }
    let range = match pr.base_sha.as_ref().filter(|b| vcs.has_commit(&b.0)) {
        Some(base) => vec![format!("{}..{head}", base.0)],
        None => vec!["-n".to_owned(), "1000".to_owned(), head.to_owned()],
    };
    let range: Vec<&str> = range.iter().map(String::as_str).collect();
    let own = vcs.fix_commits(&range).ok()?;
    if let Some((sha, _)) = own
        .iter()
        .find(|(_, threads)| threads.iter().any(|t| t == thread))
    {
        return Some(sha.clone());
    }
    let recorded = vcs.resolve_commit(commit)?;
    if vcs.is_ancestor(&recorded, head) {
        return Some(recorded);
    }
    let patch = vcs.patch_id(&recorded)?;
    own.iter()
        .map(|(sha, _)| sha)
        .find(|sha| vcs.patch_id(sha).as_deref() == Some(patch.as_str()))
        .cloned()
}

/// The loop's files, when the current directory is in a clone: the decisions respond keeps up
/// to date, and the watcher's reposts.
fn loop_files(vcs: Option<&GitVcs>, pr: &PullRequest) -> Result<Option<LoopFiles>, CliError> {
    vcs.map(|v| LoopFiles::new(v, &pr.repo, pr.number))
        .transpose()
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
    let mut closed = Vec::new();
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
            closed.push(seen.thread_id.clone());
            continue;
        };
        match decisions::reply_text(seen) {
            Some(text) => {
                let mut reply = Reply::thread(&seen.thread_id, text, thread.all_comments_read);
                if seen.claims_fix() {
                    reply.awaits.clone_from(&seen.resolved_sha);
                    reply.awaits_own_fix = true;
                } else if let Some(commit) = decisions.round_commit(seen.decided_in_round) {
                    // The round's answers go out together, once its commit is pushed.
                    reply.awaits = Some(commit.to_owned());
                }
                replies.push(reply);
            }
            None => output::narrate(&format!(
                "[respond] {}: a reply about a fix waits for the fix's commit (resolvedSha)",
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
        let mut reply = Reply::thread(
            &repost.thread_id,
            decisions::repost_reply(prior, prior_url),
            repost.all_comments_read,
        );
        if prior.claims_fix() {
            reply.awaits.clone_from(&prior.resolved_sha);
            reply.awaits_own_fix = true;
        }
        replies.push(reply);
    }
    if !closed.is_empty() || !closed_reposts.is_empty() {
        for thread in closed.iter().chain(&closed_reposts) {
            output::narrate(&format!(
                "[respond] {thread} was resolved on GitHub before its answer; not answered"
            ));
        }
        files.update_decisions(|d| {
            for thread in &closed {
                d.settle_thread(thread, Settled::ClosedOnGitHub);
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

/// Settles the decisions on `thread` as handed to a person when `refusal` says a person has it
/// now (took part, could not be placed, reopened it): no reply is owed any more, so quiescence
/// does not wait on it. A thread not read whole is not settled: an unread page may hold a
/// person's reply, or not, and the thread stays owed, named, until it is read whole. Returns
/// whether it settled one.
fn hand_over(files: Option<&LoopFiles>, thread: &str, refusal: &Refusal) -> Result<bool, CliError> {
    let Some(files) = files else {
        return Ok(false);
    };
    if matches!(refusal, Refusal::NotReadWhole | Refusal::UnsafePath) {
        return Ok(false);
    }
    let decisions = files.load_decisions()?;
    let owed = decisions.owed().any(|(_, s)| s.thread_id == thread);
    // A repost a person answered in is theirs too: it is owed no pointer any more.
    let repost = !decisions.answered_reposts.contains_key(thread)
        && files
            .load_watch()?
            .is_some_and(|w| w.reposted.iter().any(|r| r.thread_id == thread));
    if !owed && !repost {
        return Ok(false);
    }
    files.update_decisions(|d| {
        d.settle_thread(thread, Settled::HandedToPerson);
        if repost {
            d.answered_reposts.insert(thread.to_owned(), false);
        }
    })?;
    Ok(true)
}

/// The report line of a decision handed to a person.
fn handed_line(id: &ThreadId, refusal: &Refusal) -> String {
    format!(
        "handed   {id}: {refusal}; its decision is settled as handed to a person, no reply owed"
    )
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

/// The per-PR lock every run that posts replies takes for its read-check-post-record cycle, so
/// two runs on one pull request never both see a reply missing and both post it. Waits up to
/// [`lock_wait`] (30 s), then fails naming the run that holds it.
pub(crate) struct PostLock {
    _file: std::fs::File,
    /// Beside the lock, who holds it (the lock file itself stays empty).
    holder: PathBuf,
}

impl Drop for PostLock {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.holder);
    }
}

impl PostLock {
    /// Takes the lock of `pr` in `vcs`'s repository (outside a clone there is nothing to share
    /// a lock through, and nothing is taken).
    pub fn take(vcs: Option<&GitVcs>, pr: &PullRequest) -> Result<Option<Self>, CliError> {
        let Some(vcs) = vcs else {
            return Ok(None);
        };
        let Ok(path) = crate::state::pr_file(vcs, "posting", pr).map(|p| p.with_extension("lock"))
        else {
            return Ok(None);
        };
        let holder = path.with_extension("holder");
        let fail = |message: String| CliError::Other {
            message,
            hint: None,
        };
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir)
                .map_err(|e| fail(format!("cannot make {}: {e}", dir.display())))?;
        }
        let file = std::fs::OpenOptions::new()
            .create(true)
            .truncate(false)
            .write(true)
            .open(&path)
            .map_err(|e| fail(format!("cannot open {}: {e}", path.display())))?;
        let started = std::time::Instant::now();
        let wait = lock_wait();
        let mut said = false;
        loop {
            match file.try_lock() {
                Ok(()) => break,
                Err(std::fs::TryLockError::WouldBlock) => {
                    if started.elapsed() >= wait {
                        let who = std::fs::read_to_string(&holder).unwrap_or_default();
                        let who = if who.trim().is_empty() {
                            "another run".to_owned()
                        } else {
                            who.trim().to_owned()
                        };
                        return Err(CliError::Other {
                            message: format!(
                                "{who} is posting on PR #{}; gave up waiting after {} s",
                                pr.number,
                                wait.as_secs()
                            ),
                            hint: Some(format!(
                                "wait for it to finish and run again (its lock: {})",
                                path.display()
                            )),
                        });
                    }
                    if !said {
                        output::narrate(
                            "[respond] another run is posting on this pull request; waiting for it",
                        );
                        said = true;
                    }
                    std::thread::sleep(Duration::from_millis(200));
                }
                Err(std::fs::TryLockError::Error(e)) => {
                    return Err(fail(format!("cannot lock {}: {e}", path.display())));
                }
            }
        }
        let who = format!(
            "`review {}` (process {}, run {})",
            std::env::args().nth(1).unwrap_or_default(),
            std::process::id(),
            crate::audit::run_id()
        );
        let _ = std::fs::write(&holder, who);
        Ok(Some(Self {
            _file: file,
            holder,
        }))
    }
}

/// Runs `review respond`.
pub async fn run(args: RespondArgs) -> Result<(), CliError> {
    let automation = args.automation.settings()?;
    let file_replies = args.replies.as_deref().map(read_replies).transpose()?;
    let (conn, pr) =
        common::load(args.pr.as_deref(), args.target.repo.as_deref(), "[respond]").await?;
    let vcs = GitVcs::open(&common::cwd()?).ok();
    if let Some(replies) = &file_replies {
        check_citations(vcs.as_ref(), &pr, replies)?;
    }
    let repository = crate::config::repository(&conn.client, &pr).await?;
    let automation = common::gate_for(automation, &repository, &pr, vcs.as_ref())?;
    // One run posts on a pull request at a time; the PR is read again under the lock.
    let _lock = PostLock::take(vcs.as_ref(), &pr)?;
    let pr = review_github::reader::Reader::new(&conn.client)
        .pull_request(&conn.repo, conn.number)
        .await
        .map_err(crate::github::read_error)?;
    let files = loop_files(vcs.as_ref(), &pr)?;
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
    let (lines, failed, uncertain) = post_replies(
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
    let failed = failed + uncertain;
    if failed > 0 {
        let maybe = if uncertain > 0 {
            format!(" ({uncertain} of them may have been posted: the next run looks first)")
        } else {
            String::new()
        };
        return Err(CliError::GitHub {
            message: format!(
                "{failed} of the {} replies or resolves failed{maybe}",
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

/// The thread `id` of `pr` read again, whole, just before a post: its comments as GitHub has
/// them now. `None` when it could not be read (then nothing is posted in it).
async fn fresh_thread(
    conn: &crate::github::Connection,
    pr: &PullRequest,
    id: &ThreadId,
) -> Option<Thread> {
    let mut thread = pr.thread(id)?.clone();
    let reader = review_github::reader::Reader::new(&conn.client);
    let mut comments = Vec::new();
    let mut after = None;
    let mut whole = true;
    loop {
        let page = reader.thread_comments(id, after).await.ok()?;
        whole &= page.lost == 0;
        comments.extend(page.comments);
        match page.next {
            Some(cursor) => after = Some(cursor),
            None => {
                whole &= comments.len() >= page.total;
                break;
            }
        }
    }
    thread.comments = comments;
    // A comment GitHub could not load, or fewer than it counts: not read whole, so the gate
    // leaves the thread alone.
    thread.all_comments_read = whole;
    Some(thread)
}

/// Posts `replies` on `pr` (read whole just before, under the posting lock), each once ever,
/// and resolves as asked. Each thread is read again just before its reply and passes the
/// gate on that read; the threads to resolve are read again before the resolves, and pass it
/// again (the run's own replies counting as the tool's). Returns one report line per reply or resolve, how many failed, and how
/// many may have been posted without the tool seeing it.
pub(crate) async fn post_replies(
    conn: &crate::github::Connection,
    pr: &PullRequest,
    replies: &[Reply],
    automation: &review_core::gate::AutomationSettings,
    vcs: Option<&GitVcs>,
    files: Option<&LoopFiles>,
) -> Result<(Vec<String>, usize, usize), CliError> {
    let files = files.cloned();
    let escalated = match &files {
        Some(f) => f.load_decisions()?,
        None => decisions::Decisions::default(),
    };
    let ledger_file = vcs
        .map(|v| Ledger::path(v, &pr.repo, pr.number))
        .transpose()?;
    let mut ledger = Ledger::load(ledger_file.as_deref())?;
    let host = conn.audited_host(&automation.header, vcs);

    let mut lines = Vec::new();
    let mut to_resolve = Vec::new();
    let (mut failed, mut uncertain) = (0usize, 0usize);
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
                Ok(Answered::Waiting(line) | Answered::Skipped(line)) => lines.push(line),
                Ok(Answered::Done(line)) => {
                    lines.push(line);
                    if let Some(files) = &files {
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
        let Some(read) = pr.thread(&id) else {
            lines.push(format!(
                "skipped  {id}: thread {id} is not on PR #{}",
                pr.number
            ));
            continue;
        };
        if let Err(refusal) = automation.may_act(read, pr) {
            lines.push(if hand_over(files.as_ref(), &id.0, &refusal)? {
                handed_line(&id, &refusal)
            } else {
                format!("skipped  {id}: thread {id}: {refusal}")
            });
            continue;
        }
        if escalated.is_escalated_thread(&id.0) {
            lines.push(format!(
                "skipped  {id}: escalated in the loop's decisions; a person answers it"
            ));
            continue;
        }
        // A reply about a fix cites the fix as it landed on the PR's head, and waits till then.
        let body = match &reply.awaits {
            None => reply.reply_body.clone(),
            Some(recorded) => match landed_fix(vcs, pr, &id.0, recorded) {
                Some(landed) => {
                    let short = landed.get(..7).unwrap_or(&landed);
                    reply.reply_body.replace(recorded.as_str(), short)
                }
                None => {
                    let what = if reply.awaits_own_fix {
                        "its fix"
                    } else {
                        "its round's commit"
                    };
                    lines.push(format!(
                        "waiting  {id}: {what} {recorded} is not on the PR's head {} yet; run again after the push",
                        pr.head_sha.short()
                    ));
                    continue;
                }
            },
        };
        let key = post::idempotency_key(&id, &body);
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
                ledger.save(ledger_file.as_deref())?;
            }
            mark_replied(files.as_ref(), &id.0)?;
            lines.push(format!("already  {id}: posted before; not posted again"));
            if reply.resolve && !thread.is_resolved {
                to_resolve.push(id);
            }
            continue;
        }
        if reply.awaits.is_none()
            && let Some(why) = unpushed_citation(vcs, pr, &body)
        {
            lines.push(format!("waiting  {id}: {why}; run again after the push"));
            continue;
        }
        // Read the thread again just before posting: a person may have replied since.
        let Some(fresh) = fresh_thread(conn, pr, &id).await else {
            failed += 1;
            lines.push(format!(
                "failed   {id}: it could not be read again before the reply; not posted"
            ));
            continue;
        };
        if let Err(refusal) = automation.may_act(&fresh, pr) {
            lines.push(if hand_over(files.as_ref(), &id.0, &refusal)? {
                handed_line(&id, &refusal)
            } else {
                format!("skipped  {id}: since it was read, {refusal}")
            });
            continue;
        }
        if fresh
            .comments
            .iter()
            .any(|c| post::find_key(&c.body) == Some(key.as_str()))
        {
            lines.push(format!("already  {id}: posted meanwhile; not posted again"));
            continue;
        }
        let marked = post::marked_body(&automation.header, &body, &key);
        match host.reply(&id, &marked).await {
            Ok(posted) => {
                ledger.posted.insert(
                    entry,
                    Posted {
                        thread: id.0.clone(),
                        comment: posted.id.0.clone(),
                        url: posted.url.clone(),
                    },
                );
                ledger.save(ledger_file.as_deref())?;
                mark_replied(files.as_ref(), &id.0)?;
                lines.push(format!("posted   {id}: {}", posted.url));
                if reply.resolve {
                    to_resolve.push(id);
                }
            }
            Err(e) if e.to_string().contains("may have been posted") => {
                uncertain += 1;
                lines.push(format!("failed   {id}: {e}; not resolved"));
            }
            Err(e) => {
                failed += 1;
                lines.push(format!("failed   {id}: {e}; not resolved"));
                if e.stops_all_requests() {
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
    // The replies took time: a person may have answered a thread since its reply went out.
    // Read the threads again just before the resolves, and leave those that gained a person.
    if !to_resolve.is_empty() {
        let mut gate = automation.clone();
        gate.own_comments.extend(ledger.comment_ids());
        match review_github::reader::Reader::new(&conn.client)
            .pull_request(&pr.repo, pr.number)
            .await
        {
            Ok(fresh) => to_resolve.retain(|id| match fresh.thread(id) {
                None => {
                    lines.push(format!(
                        "skipped  {id}: not resolved: the thread is gone from the pull request"
                    ));
                    false
                }
                Some(thread) => match gate.may_act(thread, &fresh) {
                    Ok(()) => true,
                    Err(refusal) => {
                        lines.push(format!(
                            "skipped  {id}: not resolved: since it was read, {refusal}"
                        ));
                        false
                    }
                },
            }),
            Err(e) => {
                for id in &to_resolve {
                    failed += 1;
                    lines.push(format!(
                        "failed   {id}: not resolved: the threads could not be read again first ({e})"
                    ));
                }
                to_resolve.clear();
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
    Ok((lines, failed, uncertain))
}

/// What answering a review came to.
enum Answered {
    /// Posted now, or before.
    Done(String),
    /// It cites a commit not on the PR's head yet.
    Waiting(String),
    /// The review is not the tool's to answer.
    Skipped(String),
}

/// Posts the one PR comment answering review `review`'s out-of-diff findings, once ever, when
/// the review is a bot's. Returns the report line, or the failure line.
#[allow(clippy::too_many_arguments)]
async fn answer_review(
    host: &AuditedHost,
    vcs: Option<&GitVcs>,
    pr: &PullRequest,
    automation: &review_core::gate::AutomationSettings,
    ledger: &mut Ledger,
    ledger_file: Option<&Path>,
    review: &str,
    text: &str,
) -> Result<Answered, String> {
    let key_id = ThreadId(format!("review:{review}"));
    let key = post::idempotency_key(&key_id, text);
    let entry = format!("{review}:{key}");
    let Some(found) = pr.reviews.iter().find(|r| r.id.0 == review) else {
        return Err(format!(
            "failed   {review}: no such review on PR #{}",
            pr.number
        ));
    };
    if let Err(refusal) = automation.may_act_on_review(found, pr) {
        return Ok(Answered::Skipped(format!("skipped  {review}: {refusal}")));
    }
    // Only the tool's own comment counts as the answer: a key anyone else typed is not one.
    let landed = pr.comments.iter().find(|c| {
        post::find_key(&c.body) == Some(key.as_str())
            && c.author
                .as_ref()
                .is_some_and(|a| automation.is_own_post(Some(&c.id), a, &c.body))
    });
    if ledger.posted.contains_key(&entry) || landed.is_some() {
        return Ok(Answered::Done(format!(
            "already  {review}: answered before; not posted again"
        )));
    }
    if let Some(why) = unpushed_citation(vcs, pr, text) {
        return Ok(Answered::Waiting(format!(
            "waiting  {review}: {why}; run again after the push"
        )));
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
            ledger
                .save(ledger_file)
                .map_err(|e| format!("failed   {review}: {e}"))?;
            Ok(Answered::Done(format!("posted   {review}: {}", posted.url)))
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
    fn cited_commits_follow_in_or_stand_in_a_code_span_digits_alone_included() {
        assert_eq!(
            cited_commits("Fixed in 3f2a9c1 — renamed."),
            vec!["3f2a9c1"]
        );
        assert_eq!(
            cited_commits("Fixed in `0123456789abcdef0123456789abcdef01234567`."),
            vec!["0123456789abcdef0123456789abcdef01234567"]
        );
        // About one short sha in 27 is all digits: it is a citation all the same.
        assert_eq!(cited_commits("Fixed in 8675309."), vec!["8675309"]);
        assert_eq!(cited_commits("see `1234567`"), vec!["1234567"]);
        assert!(cited_commits("Not applying this — the cache is deliberate.").is_empty());
        assert!(cited_commits("see issue 1234567 and the word deadbeef").is_empty());
    }
}
