//! Outcomes and the triage report, whose constructor refuses counts that do not reconcile.
//!
//! The JSON form of [`Report`] is a public contract (`review triage --json`); its fields are
//! documented in `docs/report-format.md` and versioned by [`REPORT_VERSION`].

use std::collections::{BTreeMap, BTreeSet};
use std::fmt;

use serde::{Deserialize, Serialize};

use crate::model::{CommitId, PullRequest, RepoId, ThreadId};
use crate::rules::Class;

/// The version of the report's JSON format. Bumped on any change a parser could notice other
/// than an added field. Version 2 adds `hints` and the `deferred_because` values `reopened` and
/// `unsafe_path`.
pub const REPORT_VERSION: u32 = 2;

/// How one unresolved thread ends.
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Outcome {
    /// Resolved without a fix: a nit, or a duplicate of a thread that carries the decision.
    Resolved,
    /// An actionable finding fixed (or to be fixed, in a plan).
    Actioned,
    /// An ambiguous finding the autonomy ladder promoted to a fix.
    Promoted,
    /// Left open for a person, with the reason.
    Deferred,
    /// Outdated: the code it pointed at changed. Counted on its own line, never acted on.
    Outdated,
}

impl Outcome {
    /// Every outcome, in report order.
    pub const ALL: [Self; 5] = [
        Self::Actioned,
        Self::Promoted,
        Self::Resolved,
        Self::Deferred,
        Self::Outdated,
    ];

    /// The name used in reports.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Resolved => "resolved",
            Self::Actioned => "actioned",
            Self::Promoted => "promoted",
            Self::Deferred => "deferred",
            Self::Outdated => "outdated",
        }
    }
}

impl fmt::Display for Outcome {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Why a thread was deferred, for the summary's breakdown.
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum DeferReason {
    /// A person took part in the thread.
    Human,
    /// Not every comment of the thread could be read.
    Incomplete,
    /// An ambiguous bot finding the ladder left to a person.
    AmbiguousBot,
    /// Actionable, but the fix needs a fixer command and none is configured.
    NoFixer,
    /// The local checkout is not at the PR's head commit.
    NotAtHead,
    /// The fix would edit a path on the deny list.
    DenyListed,
    /// The file has uncommitted changes the tool must not sweep into its commit.
    DirtyFile,
    /// The fix could not be applied (the file no longer matches, the fixer failed, ...).
    FixFailed,
    /// The host refused or failed the mutation.
    HostError,
    /// A duplicate of a thread that was itself deferred.
    Duplicate,
    /// Deferred by an earlier pass and passed back in; not triaged again.
    Earlier,
    /// The run was interrupted before it reached the thread.
    Interrupted,
    /// A protocol signal between tools, not a finding.
    ProtocolSignal,
    /// The tool resolved it before and a person reopened it.
    Reopened,
    /// Its path holds a control character.
    UnsafePath,
}

impl DeferReason {
    /// The short label used in the summary line.
    pub fn label(self) -> &'static str {
        match self {
            Self::Human => "human",
            Self::Incomplete => "partly read",
            Self::AmbiguousBot => "ambiguous bot",
            Self::NoFixer => "no fixer",
            Self::NotAtHead => "not at head",
            Self::DenyListed => "deny-listed",
            Self::DirtyFile => "dirty file",
            Self::FixFailed => "fix failed",
            Self::HostError => "host error",
            Self::Duplicate => "duplicate",
            Self::Earlier => "deferred earlier",
            Self::Interrupted => "interrupted",
            Self::ProtocolSignal => "protocol signal",
            Self::Reopened => "reopened",
            Self::UnsafePath => "unsafe path",
        }
    }
}

/// Outcome counts. `resolved + actioned + promoted + deferred` equals the number of unresolved,
/// non-outdated threads read.
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Counts {
    /// Resolved without a fix.
    pub resolved: usize,
    /// Fixed.
    pub actioned: usize,
    /// Promoted by the ladder and fixed.
    pub promoted: usize,
    /// Left for a person.
    pub deferred: usize,
    /// Outdated, counted apart.
    pub outdated: usize,
}

impl Counts {
    fn add(&mut self, outcome: Outcome) {
        match outcome {
            Outcome::Resolved => self.resolved += 1,
            Outcome::Actioned => self.actioned += 1,
            Outcome::Promoted => self.promoted += 1,
            Outcome::Deferred => self.deferred += 1,
            Outcome::Outdated => self.outdated += 1,
        }
    }

    /// The count for one outcome.
    pub fn get(&self, outcome: Outcome) -> usize {
        match outcome {
            Outcome::Resolved => self.resolved,
            Outcome::Actioned => self.actioned,
            Outcome::Promoted => self.promoted,
            Outcome::Deferred => self.deferred,
            Outcome::Outdated => self.outdated,
        }
    }

    /// Resolved + actioned + promoted + deferred.
    pub fn handled(&self) -> usize {
        self.resolved + self.actioned + self.promoted + self.deferred
    }
}

/// One thread's line in the report.
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ThreadReport {
    /// The thread's node id.
    pub id: ThreadId,
    /// How it ends.
    pub outcome: Outcome,
    /// Whether a person took part (or could not be ruled out).
    pub human: bool,
    /// The class of a bot thread; `None` for human threads and threads not classified.
    pub class: Option<Class>,
    /// Why, in one line.
    pub reason: String,
    /// The commit that fixed it, once one was made.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub commit: Option<CommitId>,
    /// `path` or `path:line`.
    pub location: String,
    /// The login of the thread's first comment, if known.
    pub author: Option<String>,
    /// The bot family, for bot threads whose format was recognised.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub family: Option<String>,
    /// The rung of the autonomy ladder, for ambiguous bot threads.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rung: Option<String>,
    /// For recommend-and-ask: the alternative that was not taken.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub alternative: Option<String>,
    /// For deferred threads: the kind of reason.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub deferred_because: Option<DeferReason>,
    /// The thread that carries the decision, when this one is a duplicate of it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub duplicate_of: Option<ThreadId>,
    /// What the judge (`--judge-cmd`) answered for this thread, and the hard gate that overrode
    /// it, if one did; absent when no judge was asked.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub judge: Option<crate::judge::JudgeReport>,
}

/// Advice about the configuration, from what the run saw: a person's account whose comments
/// carry a review tool's format, say. Hints never change an outcome.
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
pub struct Hint {
    /// The account the hint is about.
    pub login: String,
    /// The review tool whose format its comments carry (`greptile`, ...; `bot` for a tool's
    /// format the reader does not name).
    pub family: String,
    /// The advice, one line: "looks like greptile posting as a user; add
    /// `--automation-account LOGIN` if it is".
    pub message: String,
}

impl Hint {
    /// The hint that `login`, a person's account, posts in `family`'s format.
    pub fn posting_as_user(login: &str, family: &str) -> Self {
        let who = if family == "bot" {
            "an automated review tool".to_owned()
        } else {
            family.to_owned()
        };
        Self {
            login: login.to_owned(),
            family: family.to_owned(),
            message: format!(
                "looks like {who} posting as a user; add `--automation-account {login}` if it is"
            ),
        }
    }
}

/// The triage report.
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Report {
    /// [`REPORT_VERSION`].
    pub version: u32,
    /// The PR number.
    pub pr: u64,
    /// `owner/name`.
    pub repo: RepoId,
    /// The PR's head commit when it was read.
    pub head_sha: CommitId,
    /// Whether any change was made (on the host or in git).
    pub applied: bool,
    /// Outcome counts, derived from `threads`.
    pub counts: Counts,
    /// Whether an actionable finding remains that could not be fixed safely.
    pub unresolved_actionable_remaining: bool,
    /// One entry per unresolved thread read.
    pub threads: Vec<ThreadReport>,
    /// Advice about the configuration (see [`Hint`]); empty when there is none.
    #[serde(default)]
    pub hints: Vec<Hint>,
}

/// Why a report could not be built: its entries do not account for the threads read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ReconcileError {
    /// An unresolved thread that was read has no entry.
    #[error("thread {0} was read but has no outcome")]
    Missing(ThreadId),
    /// A thread has more than one entry.
    #[error("thread {0} has more than one outcome")]
    Duplicated(ThreadId),
    /// An entry names a thread that was not read, or was resolved already.
    #[error("thread {0} has an outcome but was not read as unresolved")]
    Unexpected(ThreadId),
    /// An outdated thread got another outcome, or a current one got `outdated`.
    #[error("thread {id}: outcome {outcome} does not match its outdated flag")]
    OutdatedMismatch {
        /// The thread.
        id: ThreadId,
        /// The outcome it was given.
        outcome: Outcome,
    },
    /// The stated counts are not the tally of the entries.
    #[error("counts do not match the thread entries: stated {stated:?}, tallied {tallied:?}")]
    Counts {
        /// The counts in the report.
        stated: Counts,
        /// The counts of its entries.
        tallied: Counts,
    },
}

impl Report {
    /// Builds a report, checking that `threads` gives exactly one outcome to each unresolved
    /// thread of `pr`, `outdated` exactly to the outdated ones.
    pub fn new(
        pr: &PullRequest,
        applied: bool,
        threads: Vec<ThreadReport>,
    ) -> Result<Self, ReconcileError> {
        let mut seen = BTreeSet::new();
        let read: BTreeMap<&ThreadId, bool> = pr
            .unresolved_threads()
            .map(|t| (&t.id, t.is_outdated))
            .collect();
        for entry in &threads {
            let Some(&outdated) = read.get(&entry.id) else {
                return Err(ReconcileError::Unexpected(entry.id.clone()));
            };
            if !seen.insert(&entry.id) {
                return Err(ReconcileError::Duplicated(entry.id.clone()));
            }
            if outdated != (entry.outcome == Outcome::Outdated) {
                return Err(ReconcileError::OutdatedMismatch {
                    id: entry.id.clone(),
                    outcome: entry.outcome,
                });
            }
        }
        if let Some(missing) = read.keys().find(|id| !seen.contains(*id)) {
            return Err(ReconcileError::Missing((*missing).clone()));
        }
        let counts = tally(&threads);
        let unresolved_actionable_remaining = threads.iter().any(|t| {
            t.outcome == Outcome::Deferred && t.class == Some(Class::Actionable) && !t.human
        });
        Ok(Self {
            version: REPORT_VERSION,
            pr: pr.number,
            repo: pr.repo.clone(),
            head_sha: pr.head_sha.clone(),
            applied,
            counts,
            unresolved_actionable_remaining,
            threads,
            hints: Vec::new(),
        })
    }

    /// Checks a report read back from JSON: its counts must be the tally of its entries, and
    /// no thread may appear twice.
    pub fn check(&self) -> Result<(), ReconcileError> {
        let mut seen = BTreeSet::new();
        for entry in &self.threads {
            if !seen.insert(&entry.id) {
                return Err(ReconcileError::Duplicated(entry.id.clone()));
            }
        }
        let tallied = tally(&self.threads);
        if tallied != self.counts {
            return Err(ReconcileError::Counts {
                stated: self.counts,
                tallied,
            });
        }
        Ok(())
    }

    /// The deferred threads that wait for a person: every one but protocol signals, which are
    /// a matter between tools (the workflow ignores them), not review threads. `--exit-code`
    /// and a sub-step's `deferred_threads` count these.
    pub fn waiting_for_a_person(&self) -> impl Iterator<Item = &ThreadReport> {
        self.threads.iter().filter(|t| {
            t.outcome == Outcome::Deferred
                && t.deferred_because != Some(DeferReason::ProtocolSignal)
        })
    }

    /// Deferred threads broken down by kind of reason, most frequent first.
    pub fn deferred_breakdown(&self) -> Vec<(DeferReason, usize)> {
        let mut by: BTreeMap<DeferReason, usize> = BTreeMap::new();
        for t in self
            .threads
            .iter()
            .filter(|t| t.outcome == Outcome::Deferred)
        {
            *by.entry(t.deferred_because.unwrap_or(DeferReason::AmbiguousBot))
                .or_default() += 1;
        }
        let mut out: Vec<_> = by.into_iter().collect();
        out.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
        out
    }

    /// The workflow's closing line: `[triage] done — sha=... resolved=n ... deferred=n (k human, ...)`.
    pub fn summary_line(&self, pre_review: &str) -> String {
        let c = &self.counts;
        let mut line = format!(
            "[triage] done — sha={} qa-swarm={pre_review} resolved={} actioned={} promoted={} deferred={}",
            self.head_sha.short(),
            c.resolved,
            c.actioned,
            c.promoted,
            c.deferred
        );
        let breakdown = self.deferred_breakdown();
        if !breakdown.is_empty() {
            let parts: Vec<String> = breakdown
                .iter()
                .map(|(why, n)| format!("{n} {}", why.label()))
                .collect();
            line.push_str(&format!(" ({})", parts.join(", ")));
        }
        if c.outdated > 0 {
            line.push_str(&format!(" outdated={}", c.outdated));
        }
        line
    }
}

fn tally(threads: &[ThreadReport]) -> Counts {
    let mut counts = Counts::default();
    for t in threads {
        counts.add(t.outcome);
    }
    counts
}
