//! `respond`: post the replies owed on a pull request, each once ever, and resolve as asked.
//!
//! The replies come from a caller (a replies file) or from the review loop's decisions
//! ([`owed_replies`]). Each is checked against the gate on the thread as read, and again on a
//! fresh read just before its post; a person's thread is never replied to (a decision on it is
//! settled as handed to a person); a reply citing a commit waits until the commit is on the
//! PR's head; the ledger, and the key every reply carries, keep a rerun (or a run after a
//! crash between a post and its record) from posting twice. Every step's outcome is a
//! [`ReplyOutcome`], which the caller renders. The use-case is [`RespondPorts::respond`]; its
//! pieces are public for callers that post replies of their own ([`RespondPorts::post_replies`]).
//!
//! The ports are this module's own ([`LedgerStore`], [`LoopStore`], [`FixHistory`],
//! [`Rereads`], [`Narrator`]) beside the core's `ReviewHost` and the crate's `DecisionsStore`.
//!
//! Before anything is posted, replies citing a commit nobody knows are refused:
//!
//! ```
//! use review_app::ErrorKind;
//! use review_app::respond::{NoHistory, check_citations};
//! use review_core::reply::Reply;
//! use review_test_support::PrBuilder;
//!
//! let pr = PrBuilder::new().build();
//! // Outside a clone only the PR's head is known: a reply citing another commit would wait
//! // forever.
//! let replies = [Reply::thread("PRRT_1", "Fixed in 3f2a9c1.".to_owned(), true)];
//! let err = check_citations(&NoHistory, &pr, &replies).unwrap_err();
//! assert_eq!(err.kind, ErrorKind::Invalid);
//! assert!(err.message.contains("PRRT_1 cites 3f2a9c1"));
//! ```

use std::future::Future;
use std::sync::Mutex;

use review_core::decisions::{Decisions, Escalation, Settled};
use review_core::gate::{AutomationSettings, Refusal};
use review_core::model::{PullRequest, ReviewId, Thread, ThreadId};
use review_core::ports::{HostError, ReviewHost};
use review_core::post;
use review_core::reply::{
    self, Awaited, Landed, Ledger, LedgerDecision, Reply, ReplyTarget, Voice,
};
use review_core::site::Site;
use review_core::watch::WatchState;

use crate::error::{AppError, ErrorKind};
use crate::ports::{DecisionsStore, Poisoned};

/// The reply ledger of one pull request: what the tool posted there.
pub trait LedgerStore {
    /// The port's own error.
    type Error: std::error::Error + Send + Sync + 'static;

    /// The ledger as it is (empty before the first post).
    fn load_ledger(&self) -> Result<Ledger, Self::Error>;

    /// Saves `ledger` whole, durably: once this returns, a rerun sees every post in it.
    fn save_ledger(&self, ledger: &Ledger) -> Result<(), Self::Error>;
}

/// The review loop's files as `respond` uses them: the decisions (read and changed) and the
/// watcher's state (read only: its reposts and out-of-diff reviews).
pub trait LoopStore: DecisionsStore {
    /// The watcher's state, `None` before the first poll.
    fn load_watch(&self) -> Result<Option<WatchState>, Self::Error>;
}

/// One of the pull request's own commits that carries fixes: its id and the threads its
/// `Review-Thread:` trailers name.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FixCommit {
    /// The full commit id.
    pub sha: String,
    /// The threads it fixes.
    pub threads: Vec<String>,
}

/// What `respond` asks of the local history: whether a commit a reply cites is known and on
/// the PR's head, and where a recorded fix landed. Every answer is "no" / `None` when the
/// history cannot tell (no clone, an unknown commit): the reply then waits, or is refused.
pub trait FixHistory {
    /// The full id of the commit `rev` names, when the history has it.
    fn resolve_commit(&self, rev: &str) -> Option<String>;

    /// Whether the history has commit `sha`.
    fn has_commit(&self, sha: &str) -> bool;

    /// Whether `ancestor` is `descendant` or one of its ancestors.
    fn is_ancestor(&self, ancestor: &str, descendant: &str) -> bool;

    /// The fix commits of `base..head` (with no base: the last 1000 commits of `head`), newest
    /// first; `None` when they cannot be read.
    fn fix_commits(&self, base: Option<&str>, head: &str) -> Option<Vec<FixCommit>>;

    /// The patch id of `sha` (the same change after a rebase has the same one).
    fn patch_id(&self, sha: &str) -> Option<String>;
}

/// A history that knows no commit: outside a clone.
#[derive(Debug, Clone, Copy, Default)]
pub struct NoHistory;

impl FixHistory for NoHistory {
    fn resolve_commit(&self, _: &str) -> Option<String> {
        None
    }
    fn has_commit(&self, _: &str) -> bool {
        false
    }
    fn is_ancestor(&self, _: &str, _: &str) -> bool {
        false
    }
    fn fix_commits(&self, _: Option<&str>, _: &str) -> Option<Vec<FixCommit>> {
        None
    }
    fn patch_id(&self, _: &str) -> Option<String> {
        None
    }
}

/// The reads made again just before writing: a person may have answered since the first read.
pub trait Rereads {
    /// Why a read failed, as the report says it.
    type Error: std::fmt::Display;

    /// Thread `id` of `pr` read again, whole: its comments as the host has them now, with
    /// `all_comments_read` false when any could not be read. `None` when it could not be read
    /// at all (then nothing is posted in it).
    fn thread(&self, pr: &PullRequest, id: &ThreadId) -> impl Future<Output = Option<Thread>>;

    /// `pr` read again whole, just before the resolves.
    fn pull_request(
        &self,
        pr: &PullRequest,
    ) -> impl Future<Output = Result<PullRequest, Self::Error>>;
}

/// [`Rereads`] through a [`ReviewHost`]'s whole read of the pull request.
#[derive(Debug, Clone, Copy)]
pub struct HostRereads<'a, H>(pub &'a H);

impl<H: ReviewHost> Rereads for HostRereads<'_, H> {
    type Error = HostError;

    async fn thread(&self, pr: &PullRequest, id: &ThreadId) -> Option<Thread> {
        let fresh = self.0.pull_request(&pr.repo, pr.number).await.ok()?;
        fresh.thread(id).cloned()
    }

    async fn pull_request(&self, pr: &PullRequest) -> Result<PullRequest, HostError> {
        self.0.pull_request(&pr.repo, pr.number).await
    }
}

/// What `respond` says as it goes, before its outcomes (the caller decides how it is shown).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Note {
    /// A reply about a fix has no fix commit recorded yet (`resolvedSha`): it waits.
    AwaitsFixCommit {
        /// The thread.
        thread: String,
    },
    /// A thread was resolved on GitHub (or went away) before its answer: not answered.
    ClosedBeforeAnswer {
        /// The thread.
        thread: String,
    },
    /// A repost seen too often: escalated for a person instead of answered.
    RepostEscalated {
        /// The thread.
        thread: String,
        /// How often it was posted again.
        count: u32,
    },
    /// The replies about to be posted, and the account that posts them (the token's owner, as
    /// the pull request's read named it; `None` when the host did not say). Said before each
    /// batch, so a long run names its account again before it writes.
    PostingAs {
        /// The account.
        login: Option<String>,
        /// How many replies the batch holds.
        replies: usize,
    },
    /// An out-of-scope finding's follow-up issue stands; its reply carries the link.
    Deferred {
        /// The thread.
        thread: String,
        /// The issue.
        issue: review_core::defer::IssueRef,
        /// Whether this run opened it (else a run before did).
        opened: bool,
    },
    /// An out-of-scope finding got no follow-up issue: its reply is held back.
    DeferHeld {
        /// The thread.
        thread: String,
        /// Why (the repository's issues are off, or the host failed).
        why: String,
    },
}

/// Says [`Note`]s as they happen.
pub trait Narrator: Send + Sync {
    /// Says `note`.
    fn note(&self, note: &Note);
}

/// A [`Narrator`] that keeps what it is told, for tests and for callers that show it later.
#[derive(Debug, Default)]
pub struct Notes(pub Mutex<Vec<Note>>);

impl Notes {
    /// What was said, in order.
    pub fn taken(&self) -> Vec<Note> {
        self.0.lock().map(|n| n.clone()).unwrap_or_default()
    }
}

impl Narrator for Notes {
    fn note(&self, note: &Note) {
        if let Ok(mut n) = self.0.lock() {
            n.push(note.clone());
        }
    }
}

/// When a reply found posted was posted.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Already {
    /// Before this run (the ledger or the host as first read has it).
    Before,
    /// While this run was at work (the fresh read has it).
    Meanwhile,
}

/// Why a reply waits for a push.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Wait {
    /// The commit it waits for (its fix, or its round's) is not on the PR's head.
    Awaited {
        /// The commit, as recorded.
        awaited: Awaited,
        /// The PR's head, short.
        head: String,
    },
    /// Its text cites a commit that is not on the PR's head.
    Cites {
        /// The commit cited.
        sha: String,
        /// The PR's head, short.
        head: String,
    },
}

/// Why a reply (or a resolve) was left alone.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Skip {
    /// The thread is not on the pull request.
    NotOnPr {
        /// The PR's number.
        number: u64,
    },
    /// The gate refuses the thread (or review) as read.
    Refused(Refusal),
    /// The gate refuses the thread on the fresh read before the reply.
    RefusedSinceRead(Refusal),
    /// The thread is escalated in the loop's decisions: a person answers it.
    Escalated,
    /// Not resolved: the thread is gone from the fresh read before the resolves.
    GoneBeforeResolve,
    /// Not resolved: the gate refuses the thread on the fresh read before the resolves.
    NotResolvedSinceRead(Refusal),
}

/// Why a reply (or a resolve) failed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Failure {
    /// No such review on the pull request.
    NoSuchReview {
        /// The PR's number.
        number: u64,
    },
    /// The thread could not be read again before the reply: not posted.
    NotReread,
    /// The host refused or failed the thread reply; `uncertain` when it may have been posted
    /// all the same (the next run looks first). Not resolved.
    Reply {
        /// The host's error.
        message: String,
        /// Whether it may have been posted.
        uncertain: bool,
    },
    /// The host refused or failed the review's comment.
    Comment(String),
    /// The review's comment was posted but the ledger could not record it.
    Record(String),
    /// Not resolved: the threads could not be read again before the resolves.
    NotRereadBeforeResolve(String),
    /// The host failed the resolve.
    Resolve(String),
}

/// What came of one reply, or one resolve.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ReplyOutcome {
    /// Posted now.
    Posted {
        /// What it answered.
        target: ReplyTarget,
        /// A link to the comment.
        url: String,
    },
    /// Posted already: not posted again.
    AlreadyPosted {
        /// What it answered.
        target: ReplyTarget,
        /// When.
        when: Already,
    },
    /// Waits for a push; a run after it posts it.
    AwaitingPush {
        /// What it answers.
        target: ReplyTarget,
        /// Why.
        wait: Wait,
    },
    /// Left alone.
    Skipped {
        /// What it answers.
        target: ReplyTarget,
        /// Why.
        why: Skip,
    },
    /// A person has the thread now: its decision is settled as handed to a person, no reply
    /// owed.
    HandedOver {
        /// The thread.
        thread: ThreadId,
        /// Why the gate refused it.
        refusal: Refusal,
    },
    /// Failed.
    Failed {
        /// What it answers.
        target: ReplyTarget,
        /// Why.
        why: Failure,
    },
    /// The host refuses every post now (a spent rate limit, a refused token): `left` more
    /// replies were not tried.
    Stopped {
        /// How many replies were not tried.
        left: usize,
    },
    /// The thread was resolved.
    Resolved {
        /// The thread.
        thread: ThreadId,
    },
    /// No reply was posted, by the bot's channel: the decision is settled as `how` (resolved
    /// without reply, or left to the bot).
    Unsaid {
        /// The thread.
        thread: ThreadId,
        /// How it was settled.
        how: Settled,
    },
}

impl ReplyOutcome {
    /// Whether the outcome stays as it is until something else changes (skipped, or waiting
    /// for a push): a caller that runs again and again says it once.
    pub fn is_standing(&self) -> bool {
        matches!(self, Self::Skipped { .. } | Self::AwaitingPush { .. })
    }
}

/// What a run of [`RespondPorts::post_replies`] came to.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Responded {
    /// How many replies were asked.
    pub asked: usize,
    /// One outcome per reply or resolve, in order.
    pub outcomes: Vec<ReplyOutcome>,
}

impl Responded {
    /// How many replies or resolves failed (the replies a stop left untried included), those
    /// that may have been posted apart.
    pub fn failed(&self) -> usize {
        self.outcomes
            .iter()
            .map(|o| match o {
                ReplyOutcome::Failed {
                    why:
                        Failure::Reply {
                            uncertain: true, ..
                        },
                    ..
                } => 0,
                ReplyOutcome::Failed { .. } => 1,
                ReplyOutcome::Stopped { left } => *left,
                _ => 0,
            })
            .sum()
    }

    /// How many replies failed in a way that they may have been posted all the same.
    pub fn uncertain(&self) -> usize {
        self.outcomes
            .iter()
            .filter(|o| {
                matches!(
                    o,
                    ReplyOutcome::Failed {
                        why: Failure::Reply {
                            uncertain: true,
                            ..
                        },
                        ..
                    }
                )
            })
            .count()
    }
}

/// Where the replies come from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Source {
    /// Given by the caller (a replies file).
    Given(Vec<Reply>),
    /// Written from the loop's decisions and the watcher's reposts ([`owed_replies`]).
    FromDecisions,
    /// The review loop's: [`Source::FromDecisions`], then one answer to each out-of-diff review
    /// whose findings are all decided ([`reply::out_of_diff_answers`]). With nothing owed,
    /// nothing more is read or posted.
    Loop,
}

/// What the user's own config says of one bot's channel, over the built-in table
/// (`review_classify::channels`); `None` keeps the table's sourced answer.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ChannelOverride {
    /// Whether the bot reads replies in its threads.
    pub reads_replies: Option<bool>,
    /// Whether the bot resolves its own threads once a push fixes them.
    pub resolves_fixed_threads: Option<bool>,
}

/// How the replies written from the loop's decisions reach each bot: where a bot does not read
/// replies, its thread is resolved without one; where it resolves its own fixed threads, a
/// reply about the tool's fix is left unsaid and the thread to the bot. The built-in table
/// counts only its sourced cells; the user's config may say more, per bot key. Never used for
/// replies the user wrote.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Channels {
    /// Off: every owed reply is posted, as before the table.
    pub enabled: bool,
    /// The user's word per bot key (`copilot`, `coderabbit`, ...).
    pub overrides: std::collections::BTreeMap<String, ChannelOverride>,
}

/// The built-in table with no word from the user: what [`Channels::default`] gives, for
/// callers that keep no config.
pub static TABLE: Channels = Channels {
    enabled: true,
    overrides: std::collections::BTreeMap::new(),
};

impl Default for Channels {
    fn default() -> Self {
        Self {
            enabled: true,
            overrides: std::collections::BTreeMap::new(),
        }
    }
}

impl Channels {
    /// Every reply posted: the channels are not consulted.
    pub fn off() -> Self {
        Self {
            enabled: false,
            overrides: std::collections::BTreeMap::new(),
        }
    }

    /// How an answer to `thread` reaches the bot that opened it.
    pub fn voice(
        &self,
        thread: &Thread,
        pr: &PullRequest,
        automation: &AutomationSettings,
    ) -> Voice {
        if !self.enabled {
            return Voice::Reply;
        }
        let Some(first) = thread.first_comment() else {
            return Voice::Reply;
        };
        let Some(family) = review_classify::identify(
            first.author.as_ref(),
            &first.body,
            pr.author.as_ref(),
            automation,
        ) else {
            return Voice::Reply;
        };
        let key = first
            .author
            .as_ref()
            .map(|a| review_classify::bot_key_of_login(&a.login))
            .unwrap_or_default();
        let said = self.overrides.get(&key).copied().unwrap_or_default();
        let table = review_classify::channels::channel(family);
        let reads = said
            .reads_replies
            .or_else(|| table.reads_replies.verified());
        let resolves = said
            .resolves_fixed_threads
            .or_else(|| table.resolves_fixed_threads.verified());
        if reads == Some(false) {
            Voice::ResolveWithoutReply
        } else if resolves == Some(true) {
            Voice::LeaveToBot
        } else {
            Voice::Reply
        }
    }
}

/// The ports `respond` works through.
#[derive(Debug)]
pub struct RespondPorts<'a, H, R, S, F, L> {
    /// The review host the replies and resolves go to.
    pub host: &'a H,
    /// The reads made again before writing.
    pub rereads: &'a R,
    /// The reply ledger.
    pub ledger: &'a S,
    /// The local history, for citations and landed fixes.
    pub history: &'a F,
    /// The loop's files, when there are any (in a clone): respond keeps the decisions up to date.
    pub files: Option<&'a L>,
    /// How the replies written from the decisions reach each bot.
    pub channels: &'a Channels,
    /// Deferring to follow-up issues, when the user turned it on: the replies to `OUT_OF_SCOPE`
    /// decisions open their issue first and carry its link (never a replies file's).
    pub deferral: Option<crate::defer::Deferral<'a>>,
}

/// The in-memory loop files respond reads: the decisions and the watch state.
impl LoopStore for crate::watch_store::MemoryLoop {
    fn load_watch(&self) -> Result<Option<WatchState>, Poisoned> {
        crate::watch_store::WatchStore::load_watch(&self.watch)
    }
}

/// An in-memory [`LedgerStore`].
#[derive(Debug, Default)]
pub struct MemoryLedger(pub Mutex<Ledger>);

impl LedgerStore for MemoryLedger {
    type Error = Poisoned;

    fn load_ledger(&self) -> Result<Ledger, Poisoned> {
        self.0.lock().map(|l| l.clone()).map_err(|_| Poisoned)
    }

    fn save_ledger(&self, ledger: &Ledger) -> Result<(), Poisoned> {
        *self.0.lock().map_err(|_| Poisoned)? = ledger.clone();
        Ok(())
    }
}

/// Marks decided findings whose reply state is unknown (files written before `replied`
/// existed): resolved on GitHub means replied; open means still owed.
pub fn reconcile<D: DecisionsStore>(files: &D, pr: &PullRequest) -> Result<(), AppError> {
    if files
        .load()
        .map_err(AppError::port)?
        .unreconciled()
        .next()
        .is_none()
    {
        return Ok(());
    }
    files
        .update(&mut |d| {
            for seen in d.seen.values_mut().filter(|s| s.replied.is_none()) {
                let resolved = seen
                    .thread_id
                    .as_thread()
                    .and_then(|id| pr.thread(id))
                    .is_some_and(|t| t.is_resolved);
                seen.replied = Some(resolved);
            }
        })
        .map_err(AppError::port)
}

/// The replies owed according to the decisions and the watcher's reposts
/// ([`reply::owed`]), after recording what that reading settles: threads closed before their
/// answer, reposts seen too often (escalated). Says each through `narrator`.
pub fn owed_replies<L: LoopStore>(
    files: &L,
    pr: &PullRequest,
    narrator: &dyn Narrator,
) -> Result<Vec<Reply>, AppError> {
    let decisions = files.load().map_err(AppError::port)?;
    let watch = files
        .load_watch()
        .map_err(AppError::port)?
        .unwrap_or_default();
    let owed = reply::owed(&decisions, &watch, pr);
    for thread in &owed.awaiting_fix_sha {
        narrator.note(&Note::AwaitsFixCommit {
            thread: thread.to_string(),
        });
    }
    if !owed.closed.is_empty() || !owed.closed_reposts.is_empty() {
        for thread in owed.closed.iter().chain(&owed.closed_reposts) {
            narrator.note(&Note::ClosedBeforeAnswer {
                thread: thread.to_string(),
            });
        }
        files
            .update(&mut |d| {
                for thread in &owed.closed {
                    d.settle_thread(thread, Settled::ClosedOnGitHub);
                }
                for thread in &owed.closed_reposts {
                    d.answered_reposts.insert(thread.clone(), true);
                }
            })
            .map_err(AppError::port)?;
    }
    if !owed.escalate.is_empty() {
        files
            .update(&mut |d| {
                for r in &owed.escalate {
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
            })
            .map_err(AppError::port)?;
        for r in &owed.escalate {
            narrator.note(&Note::RepostEscalated {
                thread: r.thread_id.to_string(),
                count: r.count,
            });
        }
    }
    Ok(owed.replies)
}

/// Where a cited commit is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Citation {
    /// On the PR's head.
    OnHead,
    /// Known (to the history or the PR) but not on the PR's head yet.
    NotPushed,
    /// Neither the history nor the PR knows it.
    Unknown,
}

/// Where commit `sha` (as cited, perhaps short) is, for `pr`.
pub fn citation<F: FixHistory>(history: &F, pr: &PullRequest, sha: &str) -> Citation {
    let sha = sha.to_ascii_lowercase();
    if pr.head_sha.0.starts_with(&sha) {
        return Citation::OnHead;
    }
    let Some(full) = history.resolve_commit(&sha) else {
        return Citation::Unknown;
    };
    if history.has_commit(&pr.head_sha.0) && history.is_ancestor(&full, &pr.head_sha.0) {
        Citation::OnHead
    } else {
        Citation::NotPushed
    }
}

/// Refuses replies that cite a commit neither the history nor the PR knows (they would wait
/// forever, or worse, be posted citing nothing), before anything is posted.
///
/// # Errors
///
/// [`ErrorKind::Invalid`], naming each such reply and commit.
pub fn check_citations<F: FixHistory>(
    history: &F,
    pr: &PullRequest,
    replies: &[Reply],
) -> Result<(), AppError> {
    let unknown: Vec<String> = replies
        .iter()
        .flat_map(|r| {
            reply::cited_commits(&r.body)
                .into_iter()
                .filter(|sha| citation(history, pr, sha) == Citation::Unknown)
                .map(|sha| format!("{} cites {sha}", r.target.id()))
                .collect::<Vec<_>>()
        })
        .collect();
    if unknown.is_empty() {
        return Ok(());
    }
    Err(AppError::new(
        ErrorKind::Invalid,
        format!(
            "a reply cites a commit that neither git nor the pull request knows: {}",
            unknown.join("; ")
        ),
        Some("fetch it, fix the sha, or run inside the clone that has it; nothing was posted"),
    ))
}

/// Why a reply must wait: the first commit it cites that is not on the PR's head yet.
fn unpushed_citation<F: FixHistory>(history: &F, pr: &PullRequest, body: &str) -> Option<Wait> {
    reply::cited_commits(body).into_iter().find_map(|sha| {
        (citation(history, pr, sha) != Citation::OnHead).then(|| Wait::Cites {
            sha: sha.to_owned(),
            head: pr.head_sha.short().to_owned(),
        })
    })
}

/// The commit on the PR's head that carries the fix recorded as `commit` for `thread`: one of
/// the PR's own commits (`base..head`) whose trailer names the thread, else `commit` itself
/// when it is on the head, else one with the same patch-id (a rebase changed its id). `None`
/// while the fix is not on the PR's head.
pub fn landed_fix<F: FixHistory>(
    history: &F,
    pr: &PullRequest,
    thread: &str,
    commit: &str,
) -> Option<String> {
    let head = pr.head_sha.0.as_str();
    if !history.has_commit(head) {
        return None;
    }
    let base = pr
        .base_sha
        .as_ref()
        .map(|b| b.0.as_str())
        .filter(|b| history.has_commit(b));
    let own = history.fix_commits(base, head)?;
    if let Some(fix) = own.iter().find(|c| c.threads.iter().any(|t| t == thread)) {
        return Some(fix.sha.clone());
    }
    let recorded = history.resolve_commit(commit)?;
    if history.is_ancestor(&recorded, head) {
        return Some(recorded);
    }
    let patch = history.patch_id(&recorded)?;
    own.iter()
        .map(|c| &c.sha)
        .find(|sha| history.patch_id(sha).as_deref() == Some(patch.as_str()))
        .cloned()
}

/// The outcome of a thread the gate refuses: handed over when its decision could be settled as
/// a person's, else skipped for `skip`'s reason.
fn refused<L: LoopStore>(
    files: Option<&L>,
    id: &ThreadId,
    refusal: Refusal,
    skip: fn(Refusal) -> Skip,
) -> Result<ReplyOutcome, AppError> {
    Ok(if hand_over(files, id, &refusal)? {
        ReplyOutcome::HandedOver {
            thread: id.clone(),
            refusal,
        }
    } else {
        ReplyOutcome::Skipped {
            target: ReplyTarget::Thread(id.clone()),
            why: skip(refusal),
        }
    })
}

/// Settles the decisions on `thread` as handed to a person when `refusal` says a person has it
/// now (took part, could not be placed, reopened it): no reply is owed any more, so quiescence
/// does not wait on it. A thread not read whole is not settled: an unread page may hold a
/// person's reply, or not, and the thread stays owed, named, until it is read whole. Returns
/// whether it settled one.
fn hand_over<L: LoopStore>(
    files: Option<&L>,
    thread: &ThreadId,
    refusal: &Refusal,
) -> Result<bool, AppError> {
    let Some(files) = files else {
        return Ok(false);
    };
    if matches!(refusal, Refusal::NotReadWhole | Refusal::UnsafePath) {
        return Ok(false);
    }
    let thread = &Site::Thread(thread.clone());
    let decisions = files.load().map_err(AppError::port)?;
    let owed = decisions.owed().any(|(_, s)| &s.thread_id == thread);
    // A repost a person answered in is theirs too: it is owed no pointer any more.
    let repost = !decisions.answered_reposts.contains_key(thread)
        && files
            .load_watch()
            .map_err(AppError::port)?
            .is_some_and(|w| w.reposted.iter().any(|r| &r.thread_id == thread));
    if !owed && !repost {
        return Ok(false);
    }
    files
        .update(&mut |d| {
            d.settle_thread(thread, Settled::HandedToPerson);
            if repost {
                d.answered_reposts.insert(thread.clone(), false);
            }
        })
        .map_err(AppError::port)?;
    Ok(true)
}

/// Settles the decisions on `thread` still owed a reply as `how`: no reply is owed any more.
fn settle<L: LoopStore>(
    files: Option<&L>,
    thread: &ThreadId,
    how: Settled,
) -> Result<(), AppError> {
    let thread = &Site::Thread(thread.clone());
    let Some(files) = files else {
        return Ok(());
    };
    files
        .update(&mut |d| {
            d.settle_thread(thread, how);
        })
        .map_err(AppError::port)
}

/// Records in the decisions that `thread` got its reply (decided findings and reposts).
fn mark_replied<L: LoopStore>(files: Option<&L>, thread: &ThreadId) -> Result<(), AppError> {
    let thread = &Site::Thread(thread.clone());
    let Some(files) = files else {
        return Ok(());
    };
    let decisions = files.load().map_err(AppError::port)?;
    let watch = files
        .load_watch()
        .map_err(AppError::port)?
        .unwrap_or_default();
    let decided = decisions
        .seen
        .values()
        .any(|s| &s.thread_id == thread && s.replied != Some(true));
    let repost = watch.reposted.iter().any(|r| &r.thread_id == thread)
        && !decisions.answered_reposts.contains_key(thread);
    if !decided && !repost {
        return Ok(());
    }
    files
        .update(&mut |d| {
            for seen in d.seen.values_mut().filter(|s| &s.thread_id == thread) {
                seen.replied = Some(true);
            }
            if repost {
                d.answered_reposts.insert(thread.clone(), true);
            }
        })
        .map_err(AppError::port)
}

impl<H, R, S, F, L> RespondPorts<'_, H, R, S, F, L>
where
    H: ReviewHost,
    R: Rereads,
    S: LedgerStore,
    F: FixHistory,
    L: LoopStore,
{
    /// Runs `respond` on `pr` (as read under the caller's posting lock): reconciles the decisions
    /// with the PR, takes the replies from `source`, and posts them ([`Self::post_replies`]).
    ///
    /// # Errors
    ///
    /// [`ErrorKind::Invalid`] for [`Source::FromDecisions`] without the loop's files;
    /// [`ErrorKind::Port`] when a store fails (the store's error is the source).
    pub async fn respond(
        &self,
        narrator: &dyn Narrator,
        pr: &PullRequest,
        source: Source,
        automation: &AutomationSettings,
    ) -> Result<Responded, AppError> {
        if let Some(files) = self.files {
            reconcile(files, pr)?;
        }
        let replies = match source {
            Source::Given(replies) => replies,
            Source::FromDecisions | Source::Loop => {
                let files = self.files.ok_or_else(|| {
                    AppError::new(
                        ErrorKind::Invalid,
                        "the replies from the decisions need the loop's files",
                        Some("wire the loop's files (`RespondPorts::files`)"),
                    )
                })?;
                let mut replies = owed_replies(files, pr, narrator)?;
                if let Some(deferral) = &self.deferral {
                    deferral
                        .link_owed(files, pr, &mut replies, automation, narrator)
                        .await?;
                }
                for reply in &mut replies {
                    if let ReplyTarget::Thread(id) = &reply.target
                        && let Some(thread) = pr.thread(id)
                    {
                        reply.voice = self.channels.voice(thread, pr, automation);
                    }
                }
                if source == Source::Loop {
                    let decisions = files.load().map_err(AppError::port)?;
                    let watch = files
                        .load_watch()
                        .map_err(AppError::port)?
                        .unwrap_or_default();
                    replies.extend(reply::out_of_diff_answers(&decisions, &watch));
                    if replies.is_empty() {
                        return Ok(Responded::default());
                    }
                }
                replies
            }
        };
        if !replies.is_empty() {
            narrator.note(&Note::PostingAs {
                login: pr.viewer.clone(),
                replies: replies.len(),
            });
        }
        self.post_replies(pr, &replies, automation).await
    }

    /// Posts `replies` on `pr` (read whole just before, under the caller's posting lock), each once
    /// ever, and resolves as asked. Each thread is read again just before its reply and passes the
    /// gate on that read; the threads to resolve are read again before the resolves, and pass it
    /// again (the run's own replies counting as the tool's). A thread a person has now is handed
    /// over (its decision settled), never replied to.
    ///
    /// # Errors
    ///
    /// [`ErrorKind::Port`] when the ledger or the loop's files fail (a failed post or resolve is an
    /// outcome, not an error).
    pub async fn post_replies(
        &self,
        pr: &PullRequest,
        replies: &[Reply],
        automation: &AutomationSettings,
    ) -> Result<Responded, AppError> {
        let files = self.files;
        let escalated = match files {
            Some(f) => f.load().map_err(AppError::port)?,
            None => Decisions::default(),
        };
        let mut ledger = self.ledger.load_ledger().map_err(AppError::port)?;
        let mut out = Responded {
            asked: replies.len(),
            outcomes: Vec::new(),
        };
        let mut to_resolve = Vec::new();
        for (done, reply) in replies.iter().enumerate() {
            let id = match &reply.target {
                ReplyTarget::Review(review) => {
                    let outcome = self
                        .answer_review(pr, automation, &mut ledger, review, reply)
                        .await;
                    let answered = matches!(
                        outcome,
                        ReplyOutcome::Posted { .. } | ReplyOutcome::AlreadyPosted { .. }
                    );
                    out.outcomes.push(outcome);
                    if let (true, Some(files)) = (answered, files) {
                        files
                            .update(&mut |d| {
                                d.addressed_out_of_diff.insert(review.0.clone(), true);
                                for seen in d
                                    .seen
                                    .values_mut()
                                    .filter(|s| s.thread_id == Site::Review(review.clone()))
                                {
                                    seen.replied = Some(true);
                                }
                            })
                            .map_err(AppError::port)?;
                    }
                    continue;
                }
                ReplyTarget::Thread(id) => id,
            };
            let target = reply.target.clone();
            let Some(read) = pr.thread(id) else {
                out.outcomes.push(ReplyOutcome::Skipped {
                    target,
                    why: Skip::NotOnPr { number: pr.number },
                });
                continue;
            };
            if let Err(refusal) = automation.may_act(read, pr) {
                out.outcomes
                    .push(refused(files, id, refusal, Skip::Refused)?);
                continue;
            }
            if escalated.is_escalated_thread(&Site::Thread(id.clone())) {
                out.outcomes.push(ReplyOutcome::Skipped {
                    target,
                    why: Skip::Escalated,
                });
                continue;
            }
            // A reply about a fix cites the fix as it landed on the PR's head, and waits till then.
            let body = match &reply.awaits {
                None => reply.body.clone(),
                Some(awaited) => {
                    let recorded = awaited.commit();
                    match landed_fix(self.history, pr, &id.0, recorded) {
                        Some(landed) => {
                            let short = landed.get(..7).unwrap_or(&landed);
                            reply.body.replace(recorded, short)
                        }
                        None => {
                            out.outcomes.push(ReplyOutcome::AwaitingPush {
                                target,
                                wait: Wait::Awaited {
                                    awaited: awaited.clone(),
                                    head: pr.head_sha.short().to_owned(),
                                },
                            });
                            continue;
                        }
                    }
                }
            };
            match reply.voice {
                Voice::ResolveWithoutReply if reply.resolve => {
                    settle(files, id, Settled::ResolvedWithoutReply)?;
                    out.outcomes.push(ReplyOutcome::Unsaid {
                        thread: id.clone(),
                        how: Settled::ResolvedWithoutReply,
                    });
                    if !read.is_resolved {
                        to_resolve.push(id.clone());
                    }
                    continue;
                }
                Voice::LeaveToBot if reply.awaits.is_some() => {
                    settle(files, id, Settled::LeftToBot)?;
                    out.outcomes.push(ReplyOutcome::Unsaid {
                        thread: id.clone(),
                        how: Settled::LeftToBot,
                    });
                    continue;
                }
                _ => {}
            }
            let key = target.key(&body);
            let entry = target.ledger_entry(&key);
            let landed = read
                .comments
                .iter()
                .find(|c| post::find_key(&c.body) == Some(key.as_str()))
                .map(|c| Landed {
                    id: &c.id,
                    url: &c.url,
                });
            match ledger.decide(&entry, &target, landed) {
                LedgerDecision::Post => {}
                decision => {
                    if let LedgerDecision::RecordLanded(posted) = decision {
                        // Posted by a run that stopped before recording it.
                        ledger.posted.insert(entry.clone(), posted);
                        self.ledger.save_ledger(&ledger).map_err(AppError::port)?;
                    }
                    mark_replied(files, id)?;
                    out.outcomes.push(ReplyOutcome::AlreadyPosted {
                        target,
                        when: Already::Before,
                    });
                    if reply.resolve && !read.is_resolved {
                        to_resolve.push(id.clone());
                    }
                    continue;
                }
            }
            if reply.awaits.is_none()
                && let Some(wait) = unpushed_citation(self.history, pr, &body)
            {
                out.outcomes
                    .push(ReplyOutcome::AwaitingPush { target, wait });
                continue;
            }
            // Read the thread again just before posting: a person may have replied since.
            let Some(fresh) = self.rereads.thread(pr, id).await else {
                out.outcomes.push(ReplyOutcome::Failed {
                    target,
                    why: Failure::NotReread,
                });
                continue;
            };
            if let Err(refusal) = automation.may_act(&fresh, pr) {
                out.outcomes
                    .push(refused(files, id, refusal, Skip::RefusedSinceRead)?);
                continue;
            }
            if fresh
                .comments
                .iter()
                .any(|c| post::find_key(&c.body) == Some(key.as_str()))
            {
                out.outcomes.push(ReplyOutcome::AlreadyPosted {
                    target,
                    when: Already::Meanwhile,
                });
                continue;
            }
            let marked = post::marked_body(&automation.header, &body, &key);
            match self.host.reply(id, &marked).await {
                Ok(posted) => {
                    ledger.record(entry, &target, Landed::from(&posted));
                    self.ledger.save_ledger(&ledger).map_err(AppError::port)?;
                    mark_replied(files, id)?;
                    out.outcomes.push(ReplyOutcome::Posted {
                        target,
                        url: posted.url,
                    });
                    if reply.resolve {
                        to_resolve.push(id.clone());
                    }
                }
                Err(e) => {
                    let uncertain = e.may_have_been_posted();
                    out.outcomes.push(ReplyOutcome::Failed {
                        target,
                        why: Failure::Reply {
                            message: e.to_string(),
                            uncertain,
                        },
                    });
                    if !uncertain && e.stops_all_requests() {
                        out.outcomes.push(ReplyOutcome::Stopped {
                            left: replies.len() - done - 1,
                        });
                        break;
                    }
                }
            }
        }
        self.resolve(pr, automation, &ledger, to_resolve, &mut out.outcomes)
            .await;
        Ok(out)
    }

    /// Reads the threads to resolve again (the replies took time: a person may have answered
    /// since), leaves those that gained a person, and resolves the rest.
    async fn resolve(
        &self,
        pr: &PullRequest,
        automation: &AutomationSettings,
        ledger: &Ledger,
        mut to_resolve: Vec<ThreadId>,
        outcomes: &mut Vec<ReplyOutcome>,
    ) {
        if to_resolve.is_empty() {
            return;
        }
        let mut gate = automation.clone();
        gate.own_comments.extend(ledger.comment_ids());
        match self.rereads.pull_request(pr).await {
            Ok(fresh) => to_resolve.retain(|id| {
                let target = ReplyTarget::Thread(id.clone());
                let why = match fresh.thread(id) {
                    None => Skip::GoneBeforeResolve,
                    Some(thread) => match gate.may_act(thread, &fresh) {
                        Ok(()) => return true,
                        Err(refusal) => Skip::NotResolvedSinceRead(refusal),
                    },
                };
                outcomes.push(ReplyOutcome::Skipped { target, why });
                false
            }),
            Err(e) => {
                for id in to_resolve.drain(..) {
                    outcomes.push(ReplyOutcome::Failed {
                        target: ReplyTarget::Thread(id),
                        why: Failure::NotRereadBeforeResolve(e.to_string()),
                    });
                }
            }
        }
        if to_resolve.is_empty() {
            return;
        }
        let results = self.host.resolve_threads(&to_resolve).await;
        for (id, result) in to_resolve.into_iter().zip(results) {
            outcomes.push(match result {
                Ok(()) => ReplyOutcome::Resolved { thread: id },
                Err(e) => ReplyOutcome::Failed {
                    target: ReplyTarget::Thread(id),
                    why: Failure::Resolve(e.to_string()),
                },
            });
        }
    }

    /// Posts the one PR comment answering review `review`'s out-of-diff findings, once ever, when
    /// the review is a bot's. A ledger that cannot record the comment is a failed outcome: the
    /// comment is posted and carries its key, so a rerun does not post it again.
    async fn answer_review(
        &self,
        pr: &PullRequest,
        automation: &AutomationSettings,
        ledger: &mut Ledger,
        review: &ReviewId,
        reply: &Reply,
    ) -> ReplyOutcome {
        let target = reply.target.clone();
        let text = reply.body.as_str();
        let key = target.key(text);
        let entry = target.ledger_entry(&key);
        let Some(found) = pr.reviews.iter().find(|r| &r.id == review) else {
            return ReplyOutcome::Failed {
                target,
                why: Failure::NoSuchReview { number: pr.number },
            };
        };
        if let Err(refusal) = automation.may_act_on_review(found, pr) {
            return ReplyOutcome::Skipped {
                target,
                why: Skip::Refused(refusal),
            };
        }
        // Only the tool's own comment counts as the answer: a key anyone else typed is not one.
        let landed = pr.comments.iter().any(|c| {
            post::find_key(&c.body) == Some(key.as_str())
                && c.author
                    .as_ref()
                    .is_some_and(|a| automation.is_own_post(Some(&c.id), a, &c.body))
        });
        if ledger.posted.contains_key(&entry) || landed {
            return ReplyOutcome::AlreadyPosted {
                target,
                when: Already::Before,
            };
        }
        if let Some(wait) = unpushed_citation(self.history, pr, text) {
            return ReplyOutcome::AwaitingPush { target, wait };
        }
        let body = post::marked_body(&automation.header, text, &key);
        match self.host.comment(&pr.id, &body).await {
            Ok(posted) => {
                ledger.record(entry, &target, Landed::from(&posted));
                match self.ledger.save_ledger(ledger) {
                    Ok(()) => ReplyOutcome::Posted {
                        target,
                        url: posted.url,
                    },
                    Err(e) => ReplyOutcome::Failed {
                        target,
                        why: Failure::Record(e.to_string()),
                    },
                }
            }
            Err(e) => ReplyOutcome::Failed {
                target,
                why: Failure::Comment(e.to_string()),
            },
        }
    }
}
