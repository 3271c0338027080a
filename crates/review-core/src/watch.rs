//! The review loop's watcher: what a poll of a pull request found, what changed since the last
//! one (as events), and whether the PR is quiescent.
//!
//! [`observe`] is pure: it takes the previous [`WatchState`], what a complete read of the PR
//! found (an [`Observation`], built by `review-classify`), the loop's [`Decisions`] and the
//! time, and returns the next state and the events to announce. The CLI owns the polling, the
//! clock and the state file; only the watcher writes that file.
//!
//! The rules:
//! - `pending` is what still needs triage: unresolved bot findings no decision or escalation
//!   knows, and every unresolved thread a person took part in (kind `human`: surfaced, never
//!   answered). A decided finding re-posted under a new thread is a [`Repost`], not pending.
//! - A repost's `count` is 0 while the decided thread is still open beside it (mere
//!   coexistence), and otherwise one more than the reposts of that finding before it; at
//!   [`REPOST_LIMIT`] the loop stops answering and escalates.
//! - Quiescence ([`quiescence`]) holds when every expected bot reviewed the head (a bot silent
//!   for [`WatchSettings::late_after_secs`] after a push is named, not waited for; Copilot is not
//!   expected once it said its quota is spent), every decided bot finding is answered, every
//!   repost answered (or escalated, at the limit), every out-of-diff review is addressed, and checks are neither red nor pending.
//!   [`EventKind::Quiescent`] is announced once per transition.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt;

use serde::{Deserialize, Serialize};

use crate::decisions::{Decisions, Settled, Verdict};
use crate::site::Site;
use crate::text::counted;

/// What the change probe keeps between polls (its ETags), opaque to the watcher: the probe
/// writes it, the state file keeps it as written.
pub type ProbeMemo = serde_json::Value;

/// The version of the state file's format.
pub const STATE_VERSION: u32 = 2;

/// At this repost count the loop escalates instead of answering again.
pub const REPOST_LIMIT: u32 = 3;

/// The reviewed-head value meaning "reviewed after the last push".
pub const REVIEWED_AFTER_PUSH: &str = "timestamp";

/// Whether a thread is a bot's or a person took part.
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum FindingKind {
    /// Only automated comments.
    Bot,
    /// A person wrote in it.
    Human,
}

/// One unresolved review thread, as the watcher records it.
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ThreadFinding {
    /// The finding's fingerprint (the same finding re-posted keeps it).
    pub fingerprint: String,
    /// The thread (or the diagnostics report).
    pub thread_id: Site,
    /// Bot or human.
    pub kind: FindingKind,
    /// Who raised it: a bot key (`coderabbit`, `copilot`, a login) or a person's login.
    pub author: String,
    /// The file.
    pub path: String,
    /// The line (the last of the range), when it is on lines.
    pub line: Option<u32>,
    /// Whether GitHub marks it outdated.
    pub outdated: bool,
    /// The finding's text: the first comment's body, untrusted.
    pub body: String,
    /// Whether every comment of the thread was read. When not, the thread gets neither reply
    /// nor resolve: an unread comment may be a person's.
    pub all_comments_read: bool,
    /// The thread's link.
    #[serde(default)]
    pub url: String,
    /// The ids of the comments people wrote in it.
    #[serde(default)]
    pub human_comment_ids: Vec<String>,
}

/// A top-level PR comment a person wrote.
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct HumanComment {
    /// The comment id.
    pub id: String,
    /// The author's login.
    pub author: String,
    /// The text, untrusted.
    pub body: String,
    /// The link.
    #[serde(default)]
    pub url: String,
}

/// One finding of an out-of-diff review section.
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct OutOfDiffFinding {
    /// The file it names.
    pub path: String,
    /// The line it names (the last of the range), if any.
    pub line: Option<u32>,
    /// Its one-line title.
    pub title: String,
    /// Its text, untrusted.
    pub body: String,
    /// Its fingerprint.
    pub fingerprint: String,
}

/// A review whose body lists findings on lines outside the diff: they have no thread, so they
/// are answered with one aggregate PR comment per review.
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct OutOfDiff {
    /// The review id (what `addressedOutOfDiff` is keyed by).
    pub review_id: String,
    /// The bot that wrote it.
    pub author: String,
    /// The findings, split.
    pub findings: Vec<OutOfDiffFinding>,
}

impl OutOfDiff {
    /// The one PR comment answering this review's out-of-diff findings, once every finding of
    /// it is decided (recorded under the review's id as thread) or escalated, and every fix is
    /// committed. `None` while any is still open.
    pub fn reply(&self, decisions: &Decisions) -> Option<String> {
        let mut lines = vec![
            "Findings outside the diff of this review:".to_owned(),
            String::new(),
        ];
        for f in &self.findings {
            let at = match f.line {
                Some(line) => format!("`{}:{line}`", f.path),
                None => format!("`{}`", f.path),
            };
            let answer = match decisions.seen.get(&f.fingerprint) {
                Some(seen) => crate::decisions::reply_text(seen)?,
                None if decisions.is_escalated(&f.fingerprint) => {
                    "Left for the PR's author to decide.".to_owned()
                }
                None => return None,
            };
            lines.push(format!("- {at} {}: {answer}", f.title));
        }
        Some(lines.join("\n"))
    }
}

/// A decided finding that reappeared under another thread.
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Repost {
    /// The finding's fingerprint.
    pub fingerprint: String,
    /// The new, open thread.
    pub thread_id: Site,
    /// Where it was decided.
    pub prior_thread_id: Site,
    /// The decision taken there.
    pub prior_verdict: Verdict,
    /// 0 for coexistence with the still-open decided thread; 1, 2, ... for genuine reposts.
    pub count: u32,
    /// Whether the new thread's comments were all read.
    #[serde(default = "yes")]
    pub all_comments_read: bool,
}

fn yes() -> bool {
    true
}

/// What a bot last did on the PR.
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct BotActivity {
    /// The bot key.
    pub bot: String,
    /// The commit its text says it reviewed, if it names one.
    pub marker: Option<String>,
    /// The commit GitHub attaches the review to, if any.
    pub commit: Option<String>,
    /// When, as GitHub wrote it.
    pub submitted_at: Option<String>,
}

/// An automated top-level comment (a sticky report some bots edit in place).
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Sticky {
    /// The comment id.
    pub id: String,
    /// The bot key.
    pub author: String,
    /// A digest of its body: a change means it was edited.
    pub digest: String,
}

/// A tool's diagnostics report comment (React Doctor's), which it posts again after each scan:
/// its errors are findings to fix (they stand in `pending` under a report thread, see
/// [`crate::site::Site::Report`]); its warnings are advisory.
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct DiagnosticsReport {
    /// The comment id.
    pub id: String,
    /// The tool's key.
    pub author: String,
    /// The comment's link.
    #[serde(default)]
    pub url: String,
    /// A digest of its body: a change means it was posted again or edited.
    pub digest: String,
    /// The fingerprints of the errors it lists.
    pub errors: Vec<String>,
    /// How many warnings it lists (advisory: not findings).
    pub warnings: usize,
}

/// What is said of checks in [`CheckState::Unknown`].
pub const CHECKS_UNKNOWN: &str = "checks unknown: this server's API lacks \
     PullRequest.statusCheckRollup and the checks could not be read another way";

/// The state of the PR head's checks.
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum CheckState {
    /// No checks reported.
    #[default]
    None,
    /// Some still running or queued.
    Pending,
    /// All passed.
    Green,
    /// At least one failed.
    Red,
    /// The host could not say: its API lacks the roll-up and nothing else named the checks.
    Unknown,
}

impl CheckState {
    /// The state of GitHub's roll-up of a commit's checks (`None`: no checks reported).
    pub fn of(rollup: Option<crate::model::ChecksState>) -> Self {
        use crate::model::ChecksState as Rollup;
        match rollup {
            None => Self::None,
            Some(Rollup::Success) => Self::Green,
            Some(Rollup::Pending | Rollup::Expected) => Self::Pending,
            Some(Rollup::Failure | Rollup::Error) => Self::Red,
            Some(Rollup::Unknown) => Self::Unknown,
        }
    }
}

/// The PR head's checks.
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Checks {
    /// The rolled-up state.
    pub state: CheckState,
    /// The failing checks' names.
    #[serde(default)]
    pub failing: Vec<String>,
    /// The checks still running.
    #[serde(default)]
    pub pending: Vec<String>,
    /// The checks that finished without failing (absent in older state files).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub passed: Vec<String>,
}

impl Checks {
    /// The checks without the one named `name` (the tool's own commit status), the state
    /// worked out again from what is left: red if any failed, pending if any runs, else green
    /// when there were checks at all.
    pub fn without(&self, name: &str) -> Self {
        let keep = |names: &[String]| -> Vec<String> {
            names.iter().filter(|n| *n != name).cloned().collect()
        };
        let had_it = self
            .failing
            .iter()
            .chain(&self.pending)
            .chain(&self.passed)
            .any(|n| n == name);
        if !had_it {
            return self.clone();
        }
        let (failing, pending, passed) =
            (keep(&self.failing), keep(&self.pending), keep(&self.passed));
        let state = if !failing.is_empty() {
            CheckState::Red
        } else if !pending.is_empty() {
            CheckState::Pending
        } else if passed.is_empty() && self.state == CheckState::None {
            CheckState::None
        } else {
            CheckState::Green
        };
        Self {
            state,
            failing,
            pending,
            passed,
        }
    }
}

/// What a complete read of the PR found.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Observation {
    /// The head commit.
    pub head_sha: String,
    /// Every unresolved thread.
    pub threads: Vec<ThreadFinding>,
    /// Every thread read, resolved or not: id -> resolved.
    pub resolved: BTreeMap<String, bool>,
    /// Top-level comments people wrote (the PR's author excluded).
    pub human_comments: Vec<HumanComment>,
    /// Reviews listing findings outside the diff.
    pub out_of_diff: Vec<OutOfDiff>,
    /// Every bot review or summary, one entry each.
    pub activity: Vec<BotActivity>,
    /// The bots whose latest word is a quota or rate-limit notice (the comment reader decides
    /// what a notice is), by key.
    pub quota_spent: BTreeSet<String>,
    /// Automated top-level comments.
    pub stickies: Vec<Sticky>,
    /// The latest diagnostics report comment (React Doctor's), if any.
    pub doctor: Option<DiagnosticsReport>,
    /// The checks of the head.
    pub checks: Checks,
}

/// What the watcher is told beyond the PR.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WatchSettings {
    /// Bots expected to review even before they have (bot keys).
    pub expected_bots: Vec<String>,
    /// After a push, how long a bot may stay silent before quiescence stops waiting for it.
    pub late_after_secs: i64,
}

impl Default for WatchSettings {
    fn default() -> Self {
        Self {
            expected_bots: Vec::new(),
            late_after_secs: 20 * 60,
        }
    }
}

/// What a poll cost.
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PollCost {
    /// Requests sent (REST and GraphQL).
    pub requests: u64,
    /// GraphQL points spent.
    pub points: u64,
    /// REST answers that were `304 Not Modified` (free).
    pub not_modified: u64,
    /// Whether the threads were read in full.
    pub full_read: bool,
}

/// What the watcher has announced, so each change is announced once.
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Announced {
    /// Bot threads announced as new findings.
    #[serde(default)]
    pub findings: BTreeSet<String>,
    /// Comments people wrote, in threads or at the top level.
    #[serde(default)]
    pub human_comments: BTreeSet<String>,
    /// Out-of-diff reviews.
    #[serde(default)]
    pub out_of_diff: BTreeSet<String>,
    /// Sticky comments, with the digest announced.
    #[serde(default)]
    pub stickies: BTreeMap<String, String>,
    /// The bots whose quota notice was announced.
    #[serde(default)]
    pub quota_spent: BTreeSet<String>,
}

/// The watcher's state file: `<common dir>/review/pulls/OWNER/NAME/N/watch.json`.
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct WatchState {
    /// [`STATE_VERSION`].
    pub version: u32,
    /// `owner/name#number`.
    pub pr: String,
    /// The head commit at the last full read.
    pub head_sha: String,
    /// When the watcher first saw this head (RFC 3339, UTC).
    pub head_seen_at: String,
    /// When the last poll ran.
    pub polled_at: String,
    /// When the threads were last read in full.
    pub full_read_at: String,
    /// Findings still needing triage (bot) or a person's attention (human).
    pub pending: Vec<ThreadFinding>,
    /// Top-level comments people wrote.
    pub human_comments: Vec<HumanComment>,
    /// Reviews with out-of-diff findings (GitHub reviews are permanent: this never shrinks).
    pub out_of_diff: Vec<OutOfDiff>,
    /// Reposts of decided findings.
    pub reposted: Vec<Repost>,
    /// Per expected bot: a prefix of the head it reviewed, [`REVIEWED_AFTER_PUSH`], or another
    /// commit (not caught up).
    pub reviewed_head: BTreeMap<String, String>,
    /// The bots quiescence waits for.
    pub expected_bots: Vec<String>,
    /// The bots whose latest word says their quota is spent: quiescence does not wait for
    /// them. (Version 1 kept `copilotExpected` instead; it is read again from the next full
    /// read.)
    #[serde(default)]
    pub quota_spent: BTreeSet<String>,
    /// The head's checks.
    pub checks: Checks,
    /// Whether QUIESCENT was announced for the current stretch of quiescence.
    pub quiescent: bool,
    /// Bots that never reviewed the head within the wait, named in the clean report.
    #[serde(default)]
    pub late_bots: Vec<String>,
    /// What quiescence waited on at the last poll, one line each (empty: quiescent): told to
    /// the user when it changes.
    #[serde(default)]
    pub waiting: Vec<String>,
    /// What the last poll cost.
    pub last_poll: PollCost,
    /// GraphQL points spent by all polls.
    #[serde(default)]
    pub total_points: u64,
    /// What was announced.
    #[serde(default)]
    pub announced: Announced,
    /// Automated top-level comments seen.
    #[serde(default)]
    pub stickies: Vec<Sticky>,
    /// The latest diagnostics report comment (React Doctor's) seen.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub doctor: Option<DiagnosticsReport>,
    /// The poller's own cache (ETags), kept as it wrote it.
    #[serde(default)]
    pub probe: ProbeMemo,
}

/// What an event announces.
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum EventKind {
    /// New bot findings to triage.
    NewFindings,
    /// A review listed findings outside the diff.
    OutOfDiff,
    /// A decided finding came back under a new thread.
    Repost,
    /// A person commented (in a thread or at the top level).
    HumanComment,
    /// The head moved.
    Pushed,
    /// Checks turned red (or the failing set changed).
    ChecksRed,
    /// Checks stopped being red.
    ChecksClear,
    /// A bot said its quota is spent (its items: the bots).
    QuotaSpent,
    /// A bot posted or edited its sticky report comment.
    StickyReport,
    /// A diagnostics report (React Doctor's) was posted or rewritten: its errors are findings.
    Doctor,
    /// The PR became quiescent.
    Quiescent,
    /// A new bot finding is on a line one of the loop's own fix commits wrote (its items: the
    /// thread and the commit); announced by `review loop`, once per finding.
    KnockOn,
}

impl EventKind {
    /// The name on the event line.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::NewFindings => "NEW_FINDINGS",
            Self::OutOfDiff => "OUT_OF_DIFF",
            Self::Repost => "REPOST",
            Self::HumanComment => "HUMAN_COMMENT",
            Self::Pushed => "PUSHED",
            Self::ChecksRed => "CHECKS_RED",
            Self::ChecksClear => "CHECKS_CLEAR",
            Self::QuotaSpent => "QUOTA_SPENT",
            Self::StickyReport => "STICKY_REPORT",
            Self::Doctor => "DOCTOR",
            Self::Quiescent => "QUIESCENT",
            Self::KnockOn => "KNOCK_ON",
        }
    }
}

impl fmt::Display for EventKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One announcement: what changed, naming the items; the rest is in the state file.
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Event {
    /// What changed.
    pub event: EventKind,
    /// The ids it is about (thread ids, comment ids, review ids, check names, a commit).
    pub items: Vec<String>,
    /// One line for people.
    pub detail: String,
}

impl Event {
    fn new(event: EventKind, items: Vec<String>, detail: String) -> Self {
        Self {
            event,
            items,
            detail,
        }
    }
}

impl Event {
    /// The announcement of a knock-on: its thread and the commit whose line it is on.
    pub fn knock_on(k: &crate::decisions::KnockOn) -> Self {
        Self::new(
            EventKind::KnockOn,
            vec![k.thread_id.to_string(), k.commit.clone()],
            format!(
                "a new finding on {}:{}, a line the loop's round-{} fix {} wrote",
                k.path,
                k.line,
                k.round,
                short(&k.commit)
            ),
        )
    }
}

/// Whether a reviewed-head value means caught up with `head`.
pub fn caught_up(value: &str, head: &str) -> bool {
    value == REVIEWED_AFTER_PUSH
        || (value.len() >= 7
            && value.chars().all(|c| c.is_ascii_hexdigit())
            && head
                .to_ascii_lowercase()
                .starts_with(&value.to_ascii_lowercase()))
}

/// The first seven characters of a commit id, as people write it.
pub(crate) fn short(sha: &str) -> &str {
    sha.get(..7).unwrap_or(sha)
}

/// The reviewed-head value of one bot activity against `head`, first seen at `head_seen_at`.
fn reviewed_value(a: &BotActivity, head: &str, head_seen_at: i64) -> Option<String> {
    let lower = head.to_ascii_lowercase();
    if let Some(m) = a.marker.as_deref().filter(|m| caught_up(m, &lower)) {
        return Some(m.to_owned());
    }
    if let Some(c) = a.commit.as_deref().filter(|c| caught_up(c, &lower)) {
        return Some(c.get(..12).unwrap_or(c).to_owned());
    }
    let after_push = a
        .submitted_at
        .as_deref()
        .and_then(crate::time::parse_rfc3339)
        .is_some_and(|t| t >= head_seen_at);
    if after_push {
        return Some(REVIEWED_AFTER_PUSH.to_owned());
    }
    a.marker.clone().or_else(|| a.commit.clone())
}

/// The next state and the events of a poll that read the PR in full.
///
/// `now` is seconds since the epoch. `prev` is `None` on the first poll of a PR.
pub fn observe(
    prev: Option<&WatchState>,
    obs: Observation,
    decisions: &Decisions,
    settings: &WatchSettings,
    pr: &str,
    now: i64,
) -> (WatchState, Vec<Event>) {
    let mut events = Vec::new();
    let mut state = prev.cloned().unwrap_or_else(|| WatchState {
        version: STATE_VERSION,
        pr: pr.to_owned(),
        ..WatchState::default()
    });
    state.version = STATE_VERSION;
    pr.clone_into(&mut state.pr);
    let stamp = crate::time::format_utc(now);

    // The head.
    if state.head_sha != obs.head_sha {
        if !state.head_sha.is_empty() {
            events.push(Event::new(
                EventKind::Pushed,
                vec![obs.head_sha.clone()],
                format!(
                    "the head moved from {} to {}",
                    short(&state.head_sha),
                    short(&obs.head_sha)
                ),
            ));
        }
        state.head_sha.clone_from(&obs.head_sha);
        state.head_seen_at.clone_from(&stamp);
        state.late_bots.clear();
    }
    let head_seen_at = crate::time::parse_rfc3339(&state.head_seen_at).unwrap_or(now);

    // Reposts, then what is pending.
    let mut new_reposts = Vec::new();
    for f in obs.threads.iter().filter(|f| f.kind == FindingKind::Bot) {
        let Some(prior) = decisions.seen.get(&f.fingerprint) else {
            continue;
        };
        if prior.thread_id == f.thread_id
            || state.reposted.iter().any(|r| r.thread_id == f.thread_id)
        {
            continue;
        }
        let prior_open = obs.resolved.get(prior.thread_id.as_str()) == Some(&false);
        let count = if prior_open {
            0
        } else {
            1 + state
                .reposted
                .iter()
                .filter(|r| r.fingerprint == f.fingerprint && r.count > 0)
                .count() as u32
        };
        let repost = Repost {
            fingerprint: f.fingerprint.clone(),
            thread_id: f.thread_id.clone(),
            prior_thread_id: prior.thread_id.clone(),
            prior_verdict: prior.verdict,
            count,
            all_comments_read: f.all_comments_read,
        };
        new_reposts.push(repost.thread_id.clone());
        state.reposted.push(repost);
    }
    if !new_reposts.is_empty() {
        let counts: Vec<String> = state
            .reposted
            .iter()
            .filter(|r| new_reposts.contains(&r.thread_id))
            .map(|r| r.count.to_string())
            .collect();
        events.push(Event::new(
            EventKind::Repost,
            new_reposts.iter().map(ToString::to_string).collect(),
            format!(
                "{} decided finding(s) posted again (count {})",
                new_reposts.len(),
                counts.join(", ")
            ),
        ));
    }
    let reposted: BTreeSet<&Site> = state.reposted.iter().map(|r| &r.thread_id).collect();
    state.pending = obs
        .threads
        .iter()
        .filter(|f| match f.kind {
            FindingKind::Human => true,
            FindingKind::Bot => {
                !decisions.settles(&f.fingerprint, &f.thread_id) && !reposted.contains(&f.thread_id)
            }
        })
        .cloned()
        .collect();

    let new_findings: Vec<String> = state
        .pending
        .iter()
        .filter(|f| f.kind == FindingKind::Bot)
        .filter(|f| !state.announced.findings.contains(f.thread_id.as_str()))
        .map(|f| f.thread_id.to_string())
        .collect();
    if !new_findings.is_empty() {
        events.push(Event::new(
            EventKind::NewFindings,
            new_findings.clone(),
            format!("{} new bot finding(s) to triage", new_findings.len()),
        ));
        state.announced.findings.extend(new_findings);
    }

    // People.
    let mut human_new = Vec::new();
    for f in &obs.threads {
        for id in &f.human_comment_ids {
            if !state.announced.human_comments.contains(id) {
                human_new.push(id.clone());
            }
        }
    }
    for c in &obs.human_comments {
        if !state.announced.human_comments.contains(&c.id) {
            human_new.push(c.id.clone());
        }
    }
    if !human_new.is_empty() {
        events.push(Event::new(
            EventKind::HumanComment,
            human_new.clone(),
            format!(
                "{} comment(s) by people: surfaced, never answered",
                human_new.len()
            ),
        ));
        state.announced.human_comments.extend(human_new);
    }
    state.human_comments = obs.human_comments;

    // Out of the diff.
    let ood_new: Vec<String> = obs
        .out_of_diff
        .iter()
        .filter(|o| !state.announced.out_of_diff.contains(&o.review_id))
        .map(|o| o.review_id.clone())
        .collect();
    if !ood_new.is_empty() {
        let n: usize = obs
            .out_of_diff
            .iter()
            .filter(|o| ood_new.contains(&o.review_id))
            .map(|o| o.findings.len())
            .sum();
        events.push(Event::new(
            EventKind::OutOfDiff,
            ood_new.clone(),
            format!(
                "{n} finding(s) outside the diff in {} review(s)",
                ood_new.len()
            ),
        ));
        state.announced.out_of_diff.extend(ood_new);
    }
    for o in obs.out_of_diff {
        if let Some(known) = state
            .out_of_diff
            .iter_mut()
            .find(|k| k.review_id == o.review_id)
        {
            *known = o;
        } else {
            state.out_of_diff.push(o);
        }
    }

    // Sticky reports.
    let changed: Vec<String> = obs
        .stickies
        .iter()
        .filter(|s| state.announced.stickies.get(&s.id) != Some(&s.digest))
        .map(|s| s.id.clone())
        .collect();
    if !changed.is_empty() {
        events.push(Event::new(
            EventKind::StickyReport,
            changed.clone(),
            format!("{} bot report comment(s) posted or edited", changed.len()),
        ));
    }
    for s in &obs.stickies {
        state
            .announced
            .stickies
            .insert(s.id.clone(), s.digest.clone());
    }
    state.stickies = obs.stickies;

    // The diagnostics report: announced each time it is posted again or rewritten, with the
    // errors it lists that are not decided yet (those are in `pending`, to fix).
    if let Some(report) = &obs.doctor
        && state.doctor.as_ref().map(|d| &d.digest) != Some(&report.digest)
    {
        let open: Vec<String> = report
            .errors
            .iter()
            .filter(|fp| !decisions.knows(fp))
            .cloned()
            .collect();
        events.push(Event::new(
            EventKind::Doctor,
            open.clone(),
            format!(
                "{} report: {} to fix, {} (advisory)",
                report.author,
                counted(open.len(), "new error", "new errors"),
                counted(report.warnings, "warning", "warnings")
            ),
        ));
    }
    state.doctor = obs.doctor;

    // Quotas: each bot whose quota notice is new is announced once, again after it stopped
    // being its latest word.
    let newly: Vec<String> = obs
        .quota_spent
        .difference(&state.announced.quota_spent)
        .cloned()
        .collect();
    if !newly.is_empty() {
        let detail = format!(
            "{} {} its quota is spent: quiescence does not wait for {}",
            newly.join(", "),
            if newly.len() == 1 {
                "reports"
            } else {
                "report"
            },
            if newly.len() == 1 { "it" } else { "them" }
        );
        events.push(Event::new(EventKind::QuotaSpent, newly, detail));
    }
    state.announced.quota_spent.clone_from(&obs.quota_spent);
    state.quota_spent = obs.quota_spent;

    // Who reviewed what.
    let mut latest: BTreeMap<&str, &BotActivity> = BTreeMap::new();
    for a in &obs.activity {
        let newer = latest.get(a.bot.as_str()).is_none_or(|b| {
            let t = |x: &BotActivity| {
                x.submitted_at
                    .as_deref()
                    .and_then(crate::time::parse_rfc3339)
            };
            t(a) >= t(b)
        });
        if newer {
            latest.insert(&a.bot, a);
        }
    }
    let mut expected: BTreeSet<String> = settings.expected_bots.iter().cloned().collect();
    expected.extend(latest.keys().map(|k| (*k).to_owned()));
    expected.extend(
        obs.threads
            .iter()
            .filter(|f| f.kind == FindingKind::Bot)
            .map(|f| f.author.clone()),
    );
    expected.extend(state.expected_bots.iter().cloned());
    state.expected_bots = expected.into_iter().collect();
    state.reviewed_head = latest
        .iter()
        .filter_map(|(bot, a)| {
            reviewed_value(a, &state.head_sha, head_seen_at).map(|v| ((*bot).to_owned(), v))
        })
        .collect();

    events.extend(apply_checks(&mut state, obs.checks));

    state.polled_at.clone_from(&stamp);
    state.full_read_at = stamp;
    events.extend(settle(&mut state, decisions, settings, now, true));
    (state, events)
}

/// Applies checks read without a full read (the cheap poll); returns CHECKS_RED / CHECKS_CLEAR.
pub fn apply_checks(state: &mut WatchState, checks: Checks) -> Vec<Event> {
    let mut events = Vec::new();
    let was_red = state.checks.state == CheckState::Red;
    let red = checks.state == CheckState::Red;
    if red && (!was_red || state.checks.failing != checks.failing) {
        events.push(Event::new(
            EventKind::ChecksRed,
            checks.failing.clone(),
            if checks.failing.is_empty() {
                "checks failed".to_owned()
            } else {
                format!("failing: {}", checks.failing.join(", "))
            },
        ));
    }
    if was_red && !red {
        events.push(Event::new(
            EventKind::ChecksClear,
            Vec::new(),
            "checks are no longer red".to_owned(),
        ));
    }
    state.checks = checks;
    events
}

/// Drops newly decided findings from `pending` and re-evaluates quiescence. `full_read` says whether the threads were just read in full: the
/// QUIESCENT event is only announced then. Returns the event, if it is one.
pub fn settle(
    state: &mut WatchState,
    decisions: &Decisions,
    settings: &WatchSettings,
    now: i64,
    full_read: bool,
) -> Vec<Event> {
    // Decisions recorded since the last read take their findings out of `pending`.
    state.pending.retain(|f| {
        f.kind == FindingKind::Human || !decisions.settles(&f.fingerprint, &f.thread_id)
    });
    let q = quiescence(state, decisions, settings, now);
    state.late_bots.clone_from(&q.late_bots);
    state.waiting.clone_from(&q.waiting);
    if !q.holds() {
        state.quiescent = false;
        return Vec::new();
    }
    if state.quiescent || !full_read {
        return Vec::new();
    }
    state.quiescent = true;
    vec![Event::new(
        EventKind::Quiescent,
        vec![state.head_sha.clone()],
        clean_report(state, decisions),
    )]
}

/// Whether the PR is quiescent, and if not, why.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Quiescence {
    /// What still blocks it, one line each (empty: quiescent).
    pub waiting: Vec<String>,
    /// Expected bots that never reviewed the head within the wait: named, not waited for.
    pub late_bots: Vec<String>,
}

impl Quiescence {
    /// Whether all four conditions hold.
    pub fn holds(&self) -> bool {
        self.waiting.is_empty()
    }
}

/// Evaluates the four conditions of quiescence on a state and the decisions.
pub fn quiescence(
    state: &WatchState,
    decisions: &Decisions,
    settings: &WatchSettings,
    now: i64,
) -> Quiescence {
    let mut q = Quiescence::default();
    let since_push = crate::time::parse_rfc3339(&state.head_seen_at).map_or(0, |t| now - t);
    for bot in &state.expected_bots {
        if state.quota_spent.contains(bot) {
            continue;
        }
        let done = state
            .reviewed_head
            .get(bot)
            .is_some_and(|v| caught_up(v, &state.head_sha));
        if done {
            continue;
        }
        if since_push >= settings.late_after_secs {
            q.late_bots.push(bot.clone());
        } else {
            q.waiting
                .push(format!("{bot} has not reviewed {}", short(&state.head_sha)));
        }
    }
    let undecided = state
        .pending
        .iter()
        .filter(|f| f.kind == FindingKind::Bot)
        .count();
    if undecided > 0 {
        q.waiting
            .push(format!("{undecided} bot finding(s) not yet triaged"));
    }
    // Each reply owed, by its thread: the one a user can look up.
    for (_, seen) in decisions.owed() {
        q.waiting.push(format!(
            "a reply owed on {} ({})",
            seen.thread_id,
            seen.verdict.as_str()
        ));
    }
    let reposts = state
        .reposted
        .iter()
        .filter(|r| {
            !decisions.answered_reposts.contains_key(&r.thread_id)
                && !decisions.is_escalated_thread(&r.thread_id)
        })
        .count();
    if reposts > 0 {
        q.waiting.push(format!(
            "{reposts} repost(s) neither answered nor escalated"
        ));
    }
    let unaddressed = state
        .out_of_diff
        .iter()
        .filter(|o| decisions.addressed_out_of_diff.get(&o.review_id) != Some(&true))
        .count();
    if unaddressed > 0 {
        q.waiting.push(format!(
            "{unaddressed} out-of-diff review(s) not yet addressed"
        ));
    }
    match state.checks.state {
        CheckState::Red => q.waiting.push(format!(
            "checks are red: {}",
            state.checks.failing.join(", ")
        )),
        CheckState::Pending if !state.checks.pending.is_empty() => q.waiting.push(format!(
            "checks still running: {}",
            state.checks.pending.join(", ")
        )),
        CheckState::Pending => q.waiting.push("checks are still running".to_owned()),
        CheckState::Unknown => q.waiting.push(CHECKS_UNKNOWN.to_owned()),
        CheckState::Green | CheckState::None => {}
    }
    q
}

/// The clean report announced with QUIESCENT.
pub fn clean_report(state: &WatchState, decisions: &Decisions) -> String {
    let number = state.pr.rsplit_once('#').map_or("?", |(_, n)| n);
    let checks = match state.checks.state {
        CheckState::None => "no checks reported",
        CheckState::Unknown => "checks unknown",
        _ => "checks green",
    };
    let humans = people_waiting(state);
    let who = if state.late_bots.is_empty() {
        "all bots".to_owned()
    } else {
        format!("all bots but {}", state.late_bots.join(", "))
    };
    let mut text = format!(
        "PR #{number} is clean — {who} reviewed {}, 0 open bot threads, {checks}.\n{}.\n{}.",
        short(&state.head_sha),
        tally(decisions),
        awaiting_you(humans, decisions.escalated.len()),
    );
    if !state.late_bots.is_empty() {
        text.push_str(&format!(
            "\nNot waited for (no review of {} in time): {}.",
            short(&state.head_sha),
            state.late_bots.join(", ")
        ));
    }
    text.push_str("\nStill watching. Stop the loop (Ctrl-C) when you're done.");
    text
}

/// People's comments waiting for the author: in threads and on the conversation.
fn people_waiting(state: &WatchState) -> usize {
    state
        .pending
        .iter()
        .filter(|f| f.kind == FindingKind::Human)
        .count()
        + state.human_comments.len()
}

/// "3 rounds · 2 fixed · 1 rejected": the rounds run and the findings decided in them.
fn tally(decisions: &Decisions) -> String {
    let rounds = decisions
        .seen
        .values()
        .map(|s| s.decided_in_round)
        .chain(decisions.escalated.iter().map(|e| e.escalated_in_round))
        .max()
        .unwrap_or(0);
    let fixed = decisions
        .seen
        .values()
        .filter(|s| s.verdict == Verdict::Valid)
        .count();
    let rejected = decisions.seen.len() - fixed;
    format!(
        "{} · {fixed} fixed · {rejected} rejected",
        counted(rounds, "round", "rounds")
    )
}

/// "1 human comment and 2 escalations remain open, awaiting you".
fn awaiting_you(humans: usize, escalations: usize) -> String {
    let verb = if humans + escalations == 1 {
        "remains"
    } else {
        "remain"
    };
    format!(
        "{} and {} {verb} open, awaiting you",
        counted(humans, "human comment", "human comments"),
        counted(escalations, "escalation", "escalations")
    )
}

/// The summary printed when the loop stops (Ctrl-C, or its last poll): what it did over all its
/// rounds and what is left. The state files stay, so running it again resumes.
pub fn final_summary(state: &WatchState, decisions: &Decisions, polls: u64) -> String {
    let humans = people_waiting(state);
    let owed = decisions.owed().count();
    let settled = decisions
        .seen
        .values()
        .filter(|s| s.settled == Some(Settled::HandedToPerson))
        .count();
    let mut text = format!(
        "Stopped after {}: {}.\n{}",
        counted(polls, "poll", "polls"),
        tally(decisions),
        counted(owed, "reply", "replies"),
    );
    text.push_str(if owed == 1 {
        " still owed (posted when its fix is pushed, or on the next run)"
    } else {
        " still owed (posted when their fix is pushed, or on the next run)"
    });
    if settled > 0 {
        text.push_str(&format!(
            "; {} handed to a person",
            counted(settled, "thread", "threads")
        ));
    }
    text.push_str(&format!(
        ".\n{}.\nThe state is kept: run the loop again to resume.",
        awaiting_you(humans, decisions.escalated.len())
    ));
    text
}
