//! Signals: what a reader of comment text (the `review-classify` crate) found in a thread.
//!
//! The core's rules decide only from these signals, never from the raw text, so a comment body
//! can change an outcome only through the documented signals below.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::model::{LineRange, ThreadId};

/// Stated severity, normalised across bots.
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Severity {
    /// No severity stated.
    None,
    /// A nitpick.
    Nit,
    /// Low.
    Low,
    /// Medium.
    Medium,
    /// High.
    High,
    /// Critical.
    Critical,
}

impl Severity {
    /// High or critical: the only severities the rules may fix unattended.
    pub fn is_high(self) -> bool {
        matches!(self, Self::High | Self::Critical)
    }

    /// The lower-case name used in reports.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::None => "none",
            Self::Nit => "nit",
            Self::Low => "low",
            Self::Medium => "medium",
            Self::High => "high",
            Self::Critical => "critical",
        }
    }
}

/// A GitHub suggestion block: replacement text for the thread's lines.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Suggestion {
    /// The lines the suggestion replaces (the thread's line range when it was posted).
    pub lines: Option<LineRange>,
    /// The replacement text (may be empty: delete the lines).
    pub replacement: String,
}

/// How concretely the finding says what to change.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "kind")]
pub enum Concreteness {
    /// A suggestion block the tool can apply as written.
    Suggestion(Suggestion),
    /// Exact instructions or a proposed diff: a fixer knows what to change.
    Exact,
    /// Prose that leaves the change open.
    Vague,
}

impl Concreteness {
    /// Whether a reader knows exactly what to change.
    pub fn is_concrete(&self) -> bool {
        !matches!(self, Self::Vague)
    }
}

/// How far the change reaches.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Scope {
    /// One file, or a few tightly related edits in it.
    SingleFile,
    /// Several files.
    MultiFile,
}

/// What the reader suggests for the autonomy ladder if the rules find the thread ambiguous.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "rung")]
pub enum LadderHint {
    /// One concrete, reversible fix: a just-do-it candidate.
    JustDoIt,
    /// Several reasonable fixes: pick one, and record the other.
    RecommendAndAsk {
        /// The alternative not taken, one line.
        alternative: String,
    },
    /// Neither: a person decides.
    StopAndAsk,
}

/// Why a bot comment is not a finding at all.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum NonFinding {
    /// A summary of the review or the pull request: a walkthrough, an overview, a review body
    /// that counts the findings posted as threads, a clean-review verdict.
    Summary,
    /// A status or quota notice: a rate limit, a paused or skipped review, a usage limit, an
    /// error of the tool, a deployment status.
    Notice,
}

impl NonFinding {
    /// The words the report uses.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Summary => "summary",
            Self::Notice => "status or quota notice",
        }
    }
}

/// Everything the rules need to know about one thread's finding.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Signals {
    /// The bot family that wrote the finding (`coderabbit`, `copilot`, ...), or `None` when the
    /// author is automated but its format is not one the reader knows.
    pub family: Option<String>,
    /// Whether the reader recognised the comment's format. Unknown formats never become
    /// actionable.
    pub format_known: bool,
    /// The one-line finding, for reports.
    pub title: String,
    /// Stated severity, normalised.
    pub severity: Severity,
    /// How concretely the fix is described.
    pub concreteness: Concreteness,
    /// How far the change reaches.
    pub scope: Scope,
    /// The text asks for a design decision, a new dependency or a change of scope.
    pub design_decision: bool,
    /// Style only (formatting, naming taste, wording) or marked as a nitpick.
    pub style_only: bool,
    /// Speculative ("might", "consider", "could potentially").
    pub speculative: bool,
    /// The bot says the finding was already addressed.
    pub already_addressed: bool,
    /// The comment is not a finding (a summary, a status or quota notice): nothing to fix.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub non_finding: Option<NonFinding>,
    /// The finding is security-sensitive, with what says so: the bot's own mark (a
    /// `security-*` badge, a security label, pill or category, a code-scanning alert) or the
    /// reader's documented rule (the title or lead names a security weakness). A person decides
    /// every such finding.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub security: Option<String>,
    /// The text states a plainly serious consequence in so many words (a crash, a panic or an
    /// uncaught exception, a hang, data loss, a wrong result): it stands in for a stated high
    /// severity when the bot states none or a lower one.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub serious: bool,
    /// The comment's one diff block, when it offers no suggestion block and the diff names no
    /// other file: fix material applied exactly, or not at all (see
    /// [`crate::suggestion::Patch`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub patch: Option<String>,
    /// What set each signal, by field name (`severity`, `concreteness`, `scope`,
    /// `design_decision`, `style_only`, `security`, `serious`, `non_finding`, ...): the marker
    /// or the words the reader found. The rules quote it in their reasons.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub why: BTreeMap<String, String>,
    /// The reader's hint for the ladder.
    pub ladder_hint: LadderHint,
    /// A stable key for "the same finding" (see `review-classify`).
    pub fingerprint: String,
}

impl Signals {
    /// Signals for a finding the reader could not read at all: never actionable.
    pub fn unknown(title: impl Into<String>) -> Self {
        Self {
            family: None,
            format_known: false,
            title: title.into(),
            severity: Severity::None,
            concreteness: Concreteness::Vague,
            scope: Scope::SingleFile,
            design_decision: false,
            style_only: false,
            speculative: false,
            already_addressed: false,
            non_finding: None,
            security: None,
            serious: false,
            patch: None,
            why: BTreeMap::new(),
            ladder_hint: LadderHint::StopAndAsk,
            fingerprint: String::new(),
        }
    }

    /// What set `signal` (a field name), if the reader said.
    pub fn why(&self, signal: &str) -> Option<&str> {
        self.why.get(signal).map(String::as_str)
    }
}

/// A group of threads that raise the same finding.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Cluster {
    /// The threads, in the order the reader found them.
    pub threads: Vec<ThreadId>,
    /// Whether different reviewers raised it (a convergent finding carries more confidence).
    pub convergent: bool,
}

/// Signals for every thread the reader looked at, and the duplicate clusters among them.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct SignalSet {
    /// Per-thread signals. A bot thread with no entry is read as [`Signals::unknown`].
    pub threads: BTreeMap<ThreadId, Signals>,
    /// Clusters of two or more threads.
    pub clusters: Vec<Cluster>,
}

impl SignalSet {
    /// The cluster a thread belongs to, if any.
    pub fn cluster_of(&self, id: &ThreadId) -> Option<&Cluster> {
        self.clusters.iter().find(|c| c.threads.contains(id))
    }
}
