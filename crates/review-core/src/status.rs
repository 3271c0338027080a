//! Whether a pull request is ready to merge: one verdict with its reasons.
//!
//! [`evaluate`] combines what blocks a merge (a draft, conflicts, a person's requested
//! changes), the head's checks, the review threads as the triage plans them, and each expected
//! review bot's standing on the head into one [`Verdict`]. When several apply, the strongest
//! wins: `BLOCKED` > `CI_FAILING` > `ACTION_REQUIRED` > `WAITING` > `READY`. `READY` means
//! quiescent as `review watch` defines it (every expected bot reviewed the head, no bot finding
//! left open, checks green or absent) with no person's thread or escalation waiting.
//!
//! The evaluation reads no text: the bots' standings come from the comment reader
//! (`review_classify::standing`), the threads' outcomes from [`crate::plan`].

use std::fmt;

use serde::{Deserialize, Serialize};

use crate::gate::{AutomationSettings, same_login};
use crate::model::{Mergeable, PullRequest, ReviewState, ThreadId};
use crate::plan::Plan;
use crate::report::Outcome;
use crate::watch::{CheckState, Checks};

/// The context of the commit status `review status --publish` sets. The tool's own status is
/// never one of the checks it decides on: a published `ACTION_REQUIRED` must not come back as a
/// failing check.
pub const STATUS_CONTEXT: &str = "review/status";

/// The answer to "can this pull request be merged?".
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum Verdict {
    /// Nothing is left to do or to wait for.
    Ready,
    /// Something is still to come: an expected bot's review of the head, running checks.
    Waiting,
    /// The author has work: bot findings to fix or resolve, people's threads to answer,
    /// findings a person must decide.
    ActionRequired,
    /// Checks on the head failed.
    CiFailing,
    /// A merge is blocked: a draft, merge conflicts, or a person requested changes.
    Blocked,
}

impl Verdict {
    /// Every verdict, weakest first.
    pub const ALL: [Self; 5] = [
        Self::Ready,
        Self::Waiting,
        Self::ActionRequired,
        Self::CiFailing,
        Self::Blocked,
    ];

    /// The name used in reports.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Ready => "READY",
            Self::Waiting => "WAITING",
            Self::ActionRequired => "ACTION_REQUIRED",
            Self::CiFailing => "CI_FAILING",
            Self::Blocked => "BLOCKED",
        }
    }
}

impl fmt::Display for Verdict {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// What a review bot last said about the pull request, as its own channel shows it (a
/// review, a summary comment, a notice).
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "state")]
pub enum BotState {
    /// It reviewed the current head.
    ReviewedHead,
    /// Its latest word says a review of the pull request is under way.
    Reviewing,
    /// Its latest word says its quota or rate limit is spent; `until` (RFC 3339) when the
    /// notice says when it ends.
    QuotaSpent {
        /// When the bot says it can review again, if it says.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        until: Option<String>,
    },
    /// Its latest word says its reviews are paused on this pull request.
    Paused,
    /// It reviewed, but not the current head.
    ReviewedEarlier {
        /// The commit it names or was attached to, if any.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        commit: Option<String>,
    },
    /// It has said nothing on this pull request.
    NeverSeen,
}

impl BotState {
    /// Whether the bot's review of the head is still to come and worth waiting for: a bot
    /// that is out of quota or paused will not review, so nothing waits for it.
    pub fn awaited(&self) -> bool {
        matches!(
            self,
            Self::Reviewing | Self::ReviewedEarlier { .. } | Self::NeverSeen
        )
    }
}

impl fmt::Display for BotState {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::ReviewedHead => f.write_str("reviewed the head"),
            Self::Reviewing => f.write_str("reviewing"),
            Self::QuotaSpent { until: Some(t) } => write!(f, "quota spent until {t}"),
            Self::QuotaSpent { until: None } => f.write_str("quota spent"),
            Self::Paused => f.write_str("reviews paused"),
            Self::ReviewedEarlier { commit: Some(c) } => {
                write!(f, "reviewed {}, not the head", short(c))
            }
            Self::ReviewedEarlier { commit: None } => f.write_str("reviewed an earlier head"),
            Self::NeverSeen => f.write_str("never seen"),
        }
    }
}

/// One review bot's standing on the pull request.
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct BotStanding {
    /// The bot's key (its family or login, as `--expect-bot` names it).
    pub bot: String,
    /// Whether the user expects it to review (`--expect-bot`, `expect-bots`): only an expected
    /// bot's review is waited for.
    pub expected: bool,
    /// What it last said.
    #[serde(flatten)]
    pub state: BotState,
}

/// Why the verdict is what it is: one entry per thing that holds the pull request back.
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "kind")]
pub enum Reason {
    /// The pull request is a draft.
    Draft,
    /// It has merge conflicts with its base.
    Conflicts,
    /// A person's latest review requests changes.
    ChangesRequested {
        /// Their login.
        by: String,
    },
    /// Checks on the head failed.
    ChecksFailing {
        /// Their names (empty when the host names none).
        checks: Vec<String>,
    },
    /// A bot finding the triage would fix.
    Actionable(ThreadReason),
    /// A bot finding the triage would resolve as a nit (`review triage --apply` does).
    Nit(ThreadReason),
    /// A bot finding a person must decide.
    Escalated(ThreadReason),
    /// A person's thread whose last word is not the author's.
    PersonWaiting(ThreadReason),
    /// Checks on the head are still running.
    ChecksPending {
        /// Their names (empty when the host names none).
        checks: Vec<String>,
    },
    /// The head's checks are unknown: the host's API lacks the roll-up and nothing else named
    /// them. Not READY on data the tool could not read.
    ChecksUnknown,
    /// An expected bot has not reviewed the head.
    BotWaiting {
        /// The bot's key.
        bot: String,
        /// What it last said.
        #[serde(flatten)]
        state: BotState,
    },
}

/// The thread a [`Reason`] is about.
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ThreadReason {
    /// The thread's node id.
    pub thread: ThreadId,
    /// `path` or `path:line`.
    pub location: String,
    /// Who opened it, if known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub author: Option<String>,
    /// Why it stands, in one line.
    pub why: String,
}

impl Reason {
    /// The verdict this reason calls for on its own.
    pub fn verdict(&self) -> Verdict {
        match self {
            Self::Draft | Self::Conflicts | Self::ChangesRequested { .. } => Verdict::Blocked,
            Self::ChecksFailing { .. } => Verdict::CiFailing,
            Self::Actionable(_) | Self::Nit(_) | Self::Escalated(_) | Self::PersonWaiting(_) => {
                Verdict::ActionRequired
            }
            Self::ChecksPending { .. } | Self::ChecksUnknown | Self::BotWaiting { .. } => {
                Verdict::Waiting
            }
        }
    }
}

impl fmt::Display for Reason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let names = |checks: &[String]| {
            if checks.is_empty() {
                String::new()
            } else {
                format!(": {}", checks.join(", "))
            }
        };
        match self {
            Self::Draft => f.write_str("the pull request is a draft"),
            Self::Conflicts => f.write_str("it has merge conflicts with its base"),
            Self::ChangesRequested { by } => write!(f, "{by} requested changes"),
            Self::ChecksFailing { checks } => write!(f, "checks failed{}", names(checks)),
            Self::Actionable(t) => write!(f, "a bot finding to fix at {}: {}", t.location, t.why),
            Self::Nit(t) => write!(f, "a nit left open at {}: {}", t.location, t.why),
            Self::Escalated(t) => write!(
                f,
                "a finding for a person to decide at {}: {}",
                t.location, t.why
            ),
            Self::PersonWaiting(t) => write!(
                f,
                "{} waits for an answer at {}",
                t.author.as_deref().unwrap_or("a person"),
                t.location
            ),
            Self::ChecksPending { checks } => write!(f, "checks still running{}", names(checks)),
            Self::ChecksUnknown => f.write_str(crate::watch::CHECKS_UNKNOWN),
            Self::BotWaiting { bot, state } => {
                write!(f, "{bot} has not reviewed the head ({state})")
            }
        }
    }
}

/// Something worth knowing that holds nothing back.
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "kind")]
pub enum Note {
    /// A bot thread on code that has since changed: never acted on.
    Outdated(ThreadReason),
    /// A person's thread the author answered last: it waits for the reviewer.
    ReviewerToAnswer(ThreadReason),
    /// An expected bot that will not review soon (out of quota, paused): not waited for.
    BotUnavailable {
        /// The bot's key.
        bot: String,
        /// What it last said.
        #[serde(flatten)]
        state: BotState,
    },
    /// A failing or running check the user said to ignore (`--ignore-check`).
    CheckIgnored {
        /// The check's name.
        check: String,
    },
}

impl fmt::Display for Note {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Outdated(t) => write!(f, "outdated thread at {} (left as it is)", t.location),
            Self::ReviewerToAnswer(t) => write!(
                f,
                "the author answered last at {}: it waits for {}",
                t.location,
                t.author.as_deref().unwrap_or("the reviewer")
            ),
            Self::BotUnavailable { bot, state } => write!(f, "{bot}: {state}; not waited for"),
            Self::CheckIgnored { check } => write!(f, "check {check} ignored"),
        }
    }
}

impl Status {
    /// One line for a commit status or a job summary: the verdict and its strongest reason,
    /// at most `max` characters.
    pub fn summary(&self, max: usize) -> String {
        let line = match self.reasons.first() {
            Some(r) if self.reasons.len() > 1 => {
                format!("{}: {r} (+{} more)", self.verdict, self.reasons.len() - 1)
            }
            Some(r) => format!("{}: {r}", self.verdict),
            None => self.verdict.as_str().to_owned(),
        };
        crate::text::visible_line(&line).chars().take(max).collect()
    }
}

/// The verdict on a pull request, with everything that led to it.
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Status {
    /// The verdict: the strongest of the reasons', `READY` when there are none.
    pub verdict: Verdict,
    /// The head commit the verdict is about.
    pub head_sha: String,
    /// What holds the pull request back, strongest first.
    pub reasons: Vec<Reason>,
    /// What is worth knowing and holds nothing back.
    pub notes: Vec<Note>,
    /// Every bot seen or expected, by key.
    pub bots: Vec<BotStanding>,
}

/// What [`evaluate`] is given besides the pull request.
#[derive(Debug, Clone, Copy)]
pub struct StatusInput<'a> {
    /// The pull request, read whole.
    pub pr: &'a PullRequest,
    /// The triage's plan for it (plan mode: nothing carried out).
    pub plan: &'a Plan,
    /// The head's checks, by name.
    pub checks: &'a Checks,
    /// Each bot's standing, expected ones included.
    pub bots: &'a [BotStanding],
    /// Who counts as automated.
    pub automation: &'a AutomationSettings,
    /// Checks whose failure or run holds nothing back (`--ignore-check`), by exact name.
    pub ignore_checks: &'a [String],
    /// The bot threads the review loop escalated, with why: a person decides them, whatever
    /// the triage's plan would do.
    pub escalated: &'a [(ThreadId, String)],
}

/// The verdict on `input.pr`.
pub fn evaluate(input: &StatusInput<'_>) -> Status {
    let pr = input.pr;
    let mut reasons = Vec::new();
    let mut notes = Vec::new();
    if pr.draft {
        reasons.push(Reason::Draft);
    }
    if pr.mergeable == Some(Mergeable::Conflicting) {
        reasons.push(Reason::Conflicts);
    }
    for by in changes_requested(pr, input.automation) {
        reasons.push(Reason::ChangesRequested { by });
    }

    let checks = input.checks.without(STATUS_CONTEXT);
    let (failing, pending) = split_checks(&checks, input.ignore_checks, &mut notes);
    if !failing.is_empty() || (checks.state == CheckState::Red && no_names(&checks)) {
        reasons.push(Reason::ChecksFailing { checks: failing });
    }

    for planned in &input.plan.threads {
        let r = &planned.report;
        let Some(thread) = pr.thread(&r.id) else {
            continue;
        };
        let about = ThreadReason {
            thread: r.id.clone(),
            location: r.location.clone(),
            author: r.author.clone(),
            why: r.reason.clone(),
        };
        if r.human {
            let last_by_author = thread
                .comments
                .last()
                .and_then(|c| c.author.as_ref())
                .zip(pr.author.as_ref())
                .is_some_and(|(a, p)| same_login(&a.login, &p.login));
            if last_by_author {
                // The reviewer is the one to answer: the person who spoke before the author.
                let reviewer = thread
                    .comments
                    .iter()
                    .rev()
                    .filter_map(|c| c.author.as_ref())
                    .find(|a| {
                        pr.author
                            .as_ref()
                            .is_none_or(|p| !same_login(&a.login, &p.login))
                    })
                    .map(|a| a.login.clone());
                notes.push(Note::ReviewerToAnswer(ThreadReason {
                    author: reviewer.or(about.author.clone()),
                    ..about
                }));
            } else {
                reasons.push(Reason::PersonWaiting(about));
            }
            continue;
        }
        if let Some((_, why)) = input.escalated.iter().find(|(id, _)| id == &r.id) {
            reasons.push(Reason::Escalated(ThreadReason {
                why: format!("escalated by the review loop: {why}"),
                ..about
            }));
            continue;
        }
        match r.outcome {
            Outcome::Actioned | Outcome::Promoted => reasons.push(Reason::Actionable(about)),
            Outcome::Resolved => reasons.push(Reason::Nit(about)),
            Outcome::Deferred => reasons.push(Reason::Escalated(about)),
            Outcome::Outdated => notes.push(Note::Outdated(about)),
        }
    }

    if !pending.is_empty() || (checks.state == CheckState::Pending && no_names(&checks)) {
        reasons.push(Reason::ChecksPending { checks: pending });
    }
    if checks.state == CheckState::Unknown && no_names(&checks) {
        reasons.push(Reason::ChecksUnknown);
    }
    for b in input.bots.iter().filter(|b| b.expected) {
        if b.state.awaited() {
            reasons.push(Reason::BotWaiting {
                bot: b.bot.clone(),
                state: b.state.clone(),
            });
        } else if b.state != BotState::ReviewedHead {
            notes.push(Note::BotUnavailable {
                bot: b.bot.clone(),
                state: b.state.clone(),
            });
        }
    }

    // Strongest first; the order within one verdict is the order found.
    reasons.sort_by_key(|r| std::cmp::Reverse(r.verdict()));
    Status {
        verdict: reasons
            .iter()
            .map(Reason::verdict)
            .max()
            .unwrap_or(Verdict::Ready),
        head_sha: pr.head_sha.0.clone(),
        reasons,
        notes,
        bots: input.bots.to_vec(),
    }
}

/// Whether the checks carry no names at all (a roll-up state only).
fn no_names(checks: &Checks) -> bool {
    checks.failing.is_empty() && checks.pending.is_empty()
}

/// The failing and running checks not ignored; each ignored one noted once.
fn split_checks(
    checks: &Checks,
    ignore: &[String],
    notes: &mut Vec<Note>,
) -> (Vec<String>, Vec<String>) {
    let mut keep = |names: &[String]| {
        let mut kept = Vec::new();
        for name in names {
            if ignore.iter().any(|i| i == name) {
                let note = Note::CheckIgnored {
                    check: name.clone(),
                };
                if !notes.contains(&note) {
                    notes.push(note);
                }
            } else {
                kept.push(name.clone());
            }
        }
        kept
    };
    let failing = keep(&checks.failing);
    let pending = keep(&checks.pending);
    (failing, pending)
}

/// The people whose latest review (approving, requesting changes or dismissed) requests
/// changes, in the order of those reviews. Bots' reviews and comment-only reviews do not count;
/// neither does the PR author.
fn changes_requested(pr: &PullRequest, automation: &AutomationSettings) -> Vec<String> {
    let mut latest: Vec<(String, ReviewState)> = Vec::new();
    for review in &pr.reviews {
        let Some(author) = review.author.as_ref() else {
            continue;
        };
        if automation
            .participation(Some(author), &review.body, pr.author.as_ref())
            .is_automated()
            || pr
                .author
                .as_ref()
                .is_some_and(|p| same_login(&p.login, &author.login))
        {
            continue;
        }
        if !matches!(
            review.state,
            ReviewState::Approved | ReviewState::ChangesRequested | ReviewState::Dismissed
        ) {
            continue;
        }
        match latest
            .iter_mut()
            .find(|(login, _)| same_login(login, &author.login))
        {
            Some(entry) => entry.1 = review.state,
            None => latest.push((author.login.clone(), review.state)),
        }
    }
    latest
        .into_iter()
        .filter(|(_, s)| *s == ReviewState::ChangesRequested)
        .map(|(login, _)| login)
        .collect()
}

use crate::watch::short;
