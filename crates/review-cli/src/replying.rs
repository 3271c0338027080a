//! Posting replies from the command line, for `review respond` and `review loop`: the adapters
//! of `review_app::respond`'s ports over git ([`History`]), GitHub ([`GitHubRereads`]) and the
//! terminal ([`Narration`]), the per-PR posting lock ([`PostLock`]), and the report line of
//! each outcome ([`render`]).

use std::path::PathBuf;
use std::time::Duration;

use review_app::respond::{
    Already, Failure, FixCommit, FixHistory, Narrator, Note, ReplyOutcome, Rereads, RespondPorts,
    Responded, Skip, Source, Wait,
};
use review_core::gate::AutomationSettings;
use review_core::model::{PullRequest, Thread, ThreadId};
use review_core::reply::{Awaited, ReplyTarget};
use review_github::env::EnvVars;
use review_github::reader::{ReadError, Reader};

use crate::error::CliError;
use crate::git::GitVcs;
use crate::github::Connection;
use crate::ledger::LedgerFile;
use crate::loop_files::LoopFiles;
use crate::output;

/// How long a run waits for another run posting on the same pull request.
const LOCK_WAIT: Duration = Duration::from_secs(30);

/// The variable that shortens [`LOCK_WAIT`], for the tests (which cannot wait 30 s for a lock):
/// whole seconds, never more than [`LOCK_WAIT`]. A shorter wait only gives up sooner.
const LOCK_WAIT_FOR_TESTS: &str = EnvVars::REVIEW_TEST_LOCK_WAIT_SECONDS;

/// How long this run waits for the post lock: [`LOCK_WAIT`], or less when
/// [`LOCK_WAIT_FOR_TESTS`] says so.
#[expect(
    clippy::disallowed_methods,
    reason = "a knob of the tests, read where it applies"
)]
fn lock_wait() -> Duration {
    std::env::var(LOCK_WAIT_FOR_TESTS)
        .ok()
        .and_then(|s| s.trim().parse::<u64>().ok())
        .map_or(LOCK_WAIT, |secs| Duration::from_secs(secs).min(LOCK_WAIT))
}

/// Runs the `respond` use-case on `pr` (read under the posting lock) through the CLI's adapters:
/// GitHub with the audit log, the ledger file and the loop's files of `vcs`'s repository (none
/// outside a clone), git for citations; with `defer_to_issue`, the replies to `OUT_OF_SCOPE`
/// decisions open their follow-up issue first; the bots' channels as `config` overrides them.
#[expect(
    clippy::too_many_arguments,
    reason = "respond's inputs, each used once; `review respond` and the loop each pass their own"
)]
pub async fn respond(
    conn: &Connection,
    pr: &PullRequest,
    source: Source,
    automation: &AutomationSettings,
    vcs: Option<&GitVcs>,
    files: Option<&LoopFiles>,
    defer_to_issue: bool,
    config: &crate::config::Config,
) -> Result<Responded, CliError> {
    let ledger = LedgerFile::new(
        crate::commands::common::state_dir(vcs)?.as_ref(),
        &pr.repo,
        pr.number,
    )?;
    let host = conn.audited_host(&automation.header, vcs);
    let channels = config.channels.clone();
    let issues = if defer_to_issue {
        Some(crate::deferring::GitHubIssues::new(
            conn,
            pr.viewer.clone(),
            vcs,
        )?)
    } else {
        None
    };
    let labels = crate::deferring::labels(config);
    let ports = RespondPorts {
        host: &host,
        rereads: &GitHubRereads(conn),
        ledger: &ledger,
        history: &History(vcs),
        files,
        channels: &channels,
        deferral: issues.as_ref().map(|tracker| review_app::defer::Deferral {
            tracker,
            labels: &labels,
        }),
    };
    let responded = ports.respond(&Narration, pr, source, automation).await?;
    crate::statusing::refresh_if_resolved(conn, &host, automation, pr, None, config).await;
    Ok(responded)
}

/// The local history through git: a commit's full id, ancestry, the PR's fix commits by their
/// trailers, patch ids. Outside a clone it knows no commit.
#[derive(Debug, Clone, Copy)]
pub struct History<'a>(pub Option<&'a GitVcs>);

impl FixHistory for History<'_> {
    fn resolve_commit(&self, rev: &str) -> Option<String> {
        self.0.and_then(|v| v.resolve_commit(rev))
    }

    fn has_commit(&self, sha: &str) -> bool {
        self.0.is_some_and(|v| v.has_commit(sha))
    }

    fn is_ancestor(&self, ancestor: &str, descendant: &str) -> bool {
        self.0.is_some_and(|v| v.is_ancestor(ancestor, descendant))
    }

    fn fix_commits(&self, base: Option<&str>, head: &str) -> Option<Vec<FixCommit>> {
        let vcs = self.0?;
        let range = match base {
            Some(base) => vec![format!("{base}..{head}")],
            None => vec!["-n".to_owned(), "1000".to_owned(), head.to_owned()],
        };
        let range: Vec<&str> = range.iter().map(String::as_str).collect();
        let commits = vcs.fix_commits(&range).ok()?;
        Some(
            commits
                .into_iter()
                .map(|(sha, threads)| FixCommit { sha, threads })
                .collect(),
        )
    }

    fn patch_id(&self, sha: &str) -> Option<String> {
        self.0.and_then(|v| v.patch_id(sha))
    }
}

/// The reads made again before writing, through the GraphQL reader.
#[derive(Debug, Clone, Copy)]
pub struct GitHubRereads<'a>(pub &'a Connection);

impl Rereads for GitHubRereads<'_> {
    type Error = ReadError;

    async fn thread(&self, pr: &PullRequest, id: &ThreadId) -> Option<Thread> {
        fresh_thread(self.0, pr, id).await
    }

    async fn pull_request(&self, pr: &PullRequest) -> Result<PullRequest, ReadError> {
        Reader::new(&self.0.client)
            .pull_request(&pr.repo, pr.number)
            .await
    }
}

/// The thread `id` of `pr` read again, whole, just before a post: its comments as GitHub has
/// them now. `None` when it could not be read (then nothing is posted in it).
async fn fresh_thread(conn: &Connection, pr: &PullRequest, id: &ThreadId) -> Option<Thread> {
    let mut thread = pr.thread(id)?.clone();
    let reader = Reader::new(&conn.client);
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

/// Says respond's notes on stderr, as `[respond] ...` lines.
#[derive(Debug, Clone, Copy)]
pub struct Narration;

impl Narrator for Narration {
    fn note(&self, note: &Note) {
        output::narrate(&match note {
            Note::AwaitsFixCommit { thread } => format!(
                "[respond] {thread}: a reply about a fix waits for the fix's commit (resolvedSha)"
            ),
            Note::ClosedBeforeAnswer { thread } => {
                format!("[respond] {thread} was resolved on GitHub before its answer; not answered")
            }
            Note::RepostEscalated { thread, count } => format!(
                "[respond] {thread}: reposted {count} times; escalated for a person instead of answered"
            ),
            Note::PostingAs { login, replies } => {
                let who = output::account(login.as_deref());
                let s = if *replies == 1 { "y" } else { "ies" };
                format!("[respond] posting as {who}: {replies} repl{s} owed")
            }
            Note::Deferred {
                thread,
                issue,
                opened,
            } => {
                let how = if *opened { "opened" } else { "found" };
                format!(
                    "[respond] {thread}: out of scope; follow-up issue {how}: #{} {}",
                    issue.number, issue.url
                )
            }
            Note::DeferHeld { thread, why } => {
                format!("[respond] {thread}: out of scope, reply held back: {why}")
            }
        });
    }
}

/// The report line of one outcome.
pub fn render(outcome: &ReplyOutcome) -> String {
    match outcome {
        ReplyOutcome::Posted { target, url } => format!("posted   {}: {url}", target.id()),
        ReplyOutcome::AlreadyPosted { target, when } => {
            let id = target.id();
            match (target, when) {
                (ReplyTarget::Review(_), _) => {
                    format!("already  {id}: answered before; not posted again")
                }
                (ReplyTarget::Thread(_), Already::Before) => {
                    format!("already  {id}: posted before; not posted again")
                }
                (ReplyTarget::Thread(_), Already::Meanwhile) => {
                    format!("already  {id}: posted meanwhile; not posted again")
                }
            }
        }
        ReplyOutcome::AwaitingPush { target, wait } => {
            let why = match wait {
                Wait::Awaited { awaited, head } => {
                    let what = match awaited {
                        Awaited::OwnFix(_) => "its fix",
                        Awaited::RoundCommit(_) => "its round's commit",
                    };
                    format!(
                        "{what} {} is not on the PR's head {head} yet",
                        awaited.commit()
                    )
                }
                Wait::Cites { sha, head } => {
                    format!("it cites {sha}, which is not on the PR's head {head} yet")
                }
            };
            format!("waiting  {}: {why}; run again after the push", target.id())
        }
        ReplyOutcome::Skipped { target, why } => {
            let id = target.id();
            let why = match why {
                Skip::NotOnPr { number } => format!("thread {id} is not on PR #{number}"),
                Skip::Refused(refusal) => match target {
                    ReplyTarget::Thread(_) => format!("thread {id}: {refusal}"),
                    ReplyTarget::Review(_) => refusal.to_string(),
                },
                Skip::RefusedSinceRead(refusal) => format!("since it was read, {refusal}"),
                Skip::Escalated => {
                    "escalated in the loop's decisions; a person answers it".to_owned()
                }
                Skip::GoneBeforeResolve => {
                    "not resolved: the thread is gone from the pull request".to_owned()
                }
                Skip::NotResolvedSinceRead(refusal) => {
                    format!("not resolved: since it was read, {refusal}")
                }
            };
            format!("skipped  {id}: {why}")
        }
        ReplyOutcome::Unsaid { thread, how } => format!("unsaid   {}: {}", thread.0, how.as_str()),
        ReplyOutcome::HandedOver { thread, refusal } => format!(
            "handed   {thread}: {refusal}; its decision is settled as handed to a person, no reply owed"
        ),
        ReplyOutcome::Failed { target, why } => {
            let why = match why {
                Failure::NoSuchReview { number } => format!("no such review on PR #{number}"),
                Failure::NotReread => {
                    "it could not be read again before the reply; not posted".to_owned()
                }
                Failure::Reply { message, .. } => format!("{message}; not resolved"),
                Failure::Comment(message) | Failure::Record(message) => message.clone(),
                Failure::NotRereadBeforeResolve(e) => {
                    format!("not resolved: the threads could not be read again first ({e})")
                }
                Failure::Resolve(e) => format!("resolving: {e}"),
            };
            format!("failed   {}: {why}", target.id())
        }
        ReplyOutcome::Stopped { left } => format!(
            "stopped: GitHub refuses posts now; {left} more replies not tried (run again later)"
        ),
        ReplyOutcome::Resolved { thread } => format!("resolved {thread}"),
    }
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
        let Ok(path) = vcs
            .state_file("posting", &pr.repo, pr.number)
            .map(|p| p.with_extension("lock"))
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
            crate::audit::command(),
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

#[cfg(test)]
mod tests {
    use review_app::respond::{Already, Failure, ReplyOutcome, Skip, Wait};
    use review_core::gate::Refusal;
    use review_core::model::{ReviewId, ThreadId};
    use review_core::reply::{Awaited, ReplyTarget};

    use super::render;

    /// Every outcome renders to the line `respond` printed before its outcomes were typed: the
    /// report is a documented output, and the loop's "said once" rule keys on it.
    #[test]
    fn each_outcome_renders_the_line_respond_always_printed() {
        let t = || ReplyTarget::Thread(ThreadId("PRRT_1".to_owned()));
        let r = || ReplyTarget::Review(ReviewId("PRR_1".to_owned()));
        let human = || Refusal::Human(vec!["@mei".to_owned()]);
        let head = "a1b2c3d".to_owned();
        let cases = [
            (
                ReplyOutcome::Posted {
                    target: t(),
                    url: "https://x/1".to_owned(),
                },
                "posted   PRRT_1: https://x/1",
            ),
            (
                ReplyOutcome::AlreadyPosted {
                    target: t(),
                    when: Already::Before,
                },
                "already  PRRT_1: posted before; not posted again",
            ),
            (
                ReplyOutcome::AlreadyPosted {
                    target: t(),
                    when: Already::Meanwhile,
                },
                "already  PRRT_1: posted meanwhile; not posted again",
            ),
            (
                ReplyOutcome::AlreadyPosted {
                    target: r(),
                    when: Already::Before,
                },
                "already  PRR_1: answered before; not posted again",
            ),
            (
                ReplyOutcome::AwaitingPush {
                    target: t(),
                    wait: Wait::Awaited {
                        awaited: Awaited::OwnFix("f00".to_owned()),
                        head: head.clone(),
                    },
                },
                "waiting  PRRT_1: its fix f00 is not on the PR's head a1b2c3d yet; run again after the push",
            ),
            (
                ReplyOutcome::AwaitingPush {
                    target: t(),
                    wait: Wait::Awaited {
                        awaited: Awaited::RoundCommit("f00".to_owned()),
                        head: head.clone(),
                    },
                },
                "waiting  PRRT_1: its round's commit f00 is not on the PR's head a1b2c3d yet; run again after the push",
            ),
            (
                ReplyOutcome::AwaitingPush {
                    target: r(),
                    wait: Wait::Cites {
                        sha: "1234567".to_owned(),
                        head,
                    },
                },
                "waiting  PRR_1: it cites 1234567, which is not on the PR's head a1b2c3d yet; run again after the push",
            ),
            (
                ReplyOutcome::Skipped {
                    target: t(),
                    why: Skip::NotOnPr { number: 7 },
                },
                "skipped  PRRT_1: thread PRRT_1 is not on PR #7",
            ),
            (
                ReplyOutcome::Skipped {
                    target: t(),
                    why: Skip::Refused(human()),
                },
                "skipped  PRRT_1: thread PRRT_1: human participation (@mei); the PR author answers",
            ),
            (
                ReplyOutcome::Skipped {
                    target: r(),
                    why: Skip::Refused(human()),
                },
                "skipped  PRR_1: human participation (@mei); the PR author answers",
            ),
            (
                ReplyOutcome::Skipped {
                    target: t(),
                    why: Skip::RefusedSinceRead(human()),
                },
                "skipped  PRRT_1: since it was read, human participation (@mei); the PR author answers",
            ),
            (
                ReplyOutcome::Skipped {
                    target: t(),
                    why: Skip::Escalated,
                },
                "skipped  PRRT_1: escalated in the loop's decisions; a person answers it",
            ),
            (
                ReplyOutcome::Skipped {
                    target: t(),
                    why: Skip::GoneBeforeResolve,
                },
                "skipped  PRRT_1: not resolved: the thread is gone from the pull request",
            ),
            (
                ReplyOutcome::Skipped {
                    target: t(),
                    why: Skip::NotResolvedSinceRead(Refusal::Reopened),
                },
                "skipped  PRRT_1: not resolved: since it was read, reopened after the tool resolved it; left to a person",
            ),
            (
                ReplyOutcome::HandedOver {
                    thread: ThreadId("PRRT_1".to_owned()),
                    refusal: human(),
                },
                "handed   PRRT_1: human participation (@mei); the PR author answers; its decision is settled as handed to a person, no reply owed",
            ),
            (
                ReplyOutcome::Failed {
                    target: r(),
                    why: Failure::NoSuchReview { number: 7 },
                },
                "failed   PRR_1: no such review on PR #7",
            ),
            (
                ReplyOutcome::Failed {
                    target: t(),
                    why: Failure::NotReread,
                },
                "failed   PRRT_1: it could not be read again before the reply; not posted",
            ),
            (
                ReplyOutcome::Failed {
                    target: t(),
                    why: Failure::Reply {
                        message: "refused: locked".to_owned(),
                        uncertain: false,
                    },
                },
                "failed   PRRT_1: refused: locked; not resolved",
            ),
            (
                ReplyOutcome::Failed {
                    target: r(),
                    why: Failure::Comment("refused: locked".to_owned()),
                },
                "failed   PRR_1: refused: locked",
            ),
            (
                ReplyOutcome::Failed {
                    target: r(),
                    why: Failure::Record("disk full".to_owned()),
                },
                "failed   PRR_1: disk full",
            ),
            (
                ReplyOutcome::Failed {
                    target: t(),
                    why: Failure::NotRereadBeforeResolve("timed out".to_owned()),
                },
                "failed   PRRT_1: not resolved: the threads could not be read again first (timed out)",
            ),
            (
                ReplyOutcome::Failed {
                    target: t(),
                    why: Failure::Resolve("not found: x".to_owned()),
                },
                "failed   PRRT_1: resolving: not found: x",
            ),
            (
                ReplyOutcome::Stopped { left: 2 },
                "stopped: GitHub refuses posts now; 2 more replies not tried (run again later)",
            ),
            (
                ReplyOutcome::Resolved {
                    thread: ThreadId("PRRT_1".to_owned()),
                },
                "resolved PRRT_1",
            ),
        ];
        for (outcome, line) in cases {
            assert_eq!(render(&outcome), line, "{outcome:?}");
        }
    }
}
