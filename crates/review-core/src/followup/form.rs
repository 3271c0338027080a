//! The follow-up form's contract: what the page shows ([`FormPage`]) and what comes back
//! ([`FormAnswers`]). The CLI serves the page in a browser, or reads the same answers from a file
//! (`review followup --answers FILE`).

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

/// What the form shows.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct FormPage {
    /// The page title: `PR Review Triage — #482`.
    pub title: String,
    /// The pull request's number.
    pub pr_number: u64,
    /// The pull request's title.
    pub pr_title: String,
    /// The pull request's link.
    pub pr_url: String,
    /// The summary, as Markdown (shown as text, never as HTML).
    pub summary: String,
    /// The threads, grouped by the review submission they came from.
    pub groups: Vec<FormGroup>,
    /// How long the form stays open, in seconds.
    pub timeout_secs: u64,
}

/// One review submission (or the standalone comments) and its threads.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct FormGroup {
    /// The review's id, or `standalone:<thread id>` for a thread without one.
    pub id: String,
    /// The reviewer's login.
    pub reviewer: String,
    /// When the review was submitted.
    pub submitted_at: Option<String>,
    /// The threads of the group, in order.
    pub issues: Vec<FormIssue>,
}

/// One unresolved thread in the form.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct FormIssue {
    /// The thread id (the key of its answer).
    pub thread_id: String,
    /// Its number in the summary table (from 1).
    pub number: usize,
    /// The reviewer's login.
    pub reviewer: String,
    /// `path:line`, or `general comment` for a comment without a line.
    pub location: String,
    /// The thread's link.
    pub url: String,
    /// Whether GitHub marks it outdated (the page shows an OUTDATED badge first).
    pub outdated: bool,
    /// The comment as the operator reads it (translated when a translator is configured).
    pub comment: String,
    /// The reviewer's exact words.
    pub original: String,
    /// The code around the comment.
    pub diff_hunk: Option<String>,
    /// The one-line summary.
    pub summary: String,
    /// The stated severity (`critical`, `high`, `medium`, `low`, `nit`, `none`).
    pub severity: String,
    /// What the tool suggests.
    pub suggestion: FormSuggestion,
    /// The duplicate cluster it belongs to (`A`, `B`, ...), so one instruction can serve several.
    pub cluster: Option<String>,
}

/// The suggestion shown under a thread.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct FormSuggestion {
    /// What the reviewer asks, in a sentence.
    pub asks: String,
    /// Reasons to do it.
    pub pros: Vec<String>,
    /// Reasons not to.
    pub cons: Vec<String>,
    /// The suggested action.
    pub action: ChosenAction,
    /// Why.
    pub reasoning: String,
}

/// How the form ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum FormStatus {
    /// The operator submitted it: the only status that goes on.
    Submitted,
    /// The operator cancelled.
    Cancelled,
    /// Nobody submitted before the timeout.
    Timeout,
    /// The page was closed without submitting.
    Closed,
}

/// The action the operator chose for a thread (or the tool suggests).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ChosenAction {
    /// Infer it from the instruction's text.
    #[default]
    Auto,
    /// A code change.
    Fix,
    /// A reply with the instruction's text, no code change.
    Reply,
    /// Nothing.
    Skip,
}

/// The operator's answer for one thread.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct IssueAnswer {
    /// What to do, in the operator's words.
    #[serde(default)]
    pub instruction: String,
    /// Comment and resolve automatically once handled.
    #[serde(default)]
    pub auto_resolve: bool,
    /// The action selector.
    #[serde(default)]
    pub action: ChosenAction,
}

/// The operator's answer for one review group.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct GroupAnswer {
    /// Hide (minimize) the group's comments on the PR page once all its threads are resolved.
    #[serde(default)]
    pub hide: bool,
}

/// What the form returns (and what `--answers FILE` holds).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct FormAnswers {
    /// How the form ended.
    pub status: FormStatus,
    /// Per thread id.
    #[serde(default)]
    pub issues: BTreeMap<String, IssueAnswer>,
    /// Per group id.
    #[serde(default)]
    pub groups: BTreeMap<String, GroupAnswer>,
}

/// The form's timeout: 3 minutes per thread, at least 10 minutes.
///
/// ```
/// assert_eq!(review_core::followup::form::timeout_secs(2), 600);
/// assert_eq!(review_core::followup::form::timeout_secs(40), 7200);
/// ```
pub fn timeout_secs(threads: usize) -> u64 {
    (threads as u64 * 180).max(600)
}

/// The follow-up analyst's answer about a thread: one JSON object `{"asks", "pros", "cons",
/// "action": "fix" | "reply" | "skip", "reasoning"}` (`pros`, `cons` and `reasoning` may be
/// left out). `None` when it does not read, or says nothing of what the reviewer asks: then
/// the reader's own suggestion stays.
///
/// ```
/// use review_core::followup::form::{ChosenAction, read_analysis};
///
/// let a = read_analysis(r#"{"asks": "Bound the cache.", "action": "fix"}"#).unwrap();
/// assert_eq!((a.asks.as_str(), a.action), ("Bound the cache.", ChosenAction::Fix));
/// assert_eq!(read_analysis(r#"{"asks": " ", "action": "fix"}"#), None);
/// assert_eq!(read_analysis("fix it"), None);
/// ```
pub fn read_analysis(answer: &str) -> Option<FormSuggestion> {
    #[derive(Deserialize)]
    struct Analysis {
        asks: String,
        #[serde(default)]
        pros: Vec<String>,
        #[serde(default)]
        cons: Vec<String>,
        action: ChosenAction,
        #[serde(default)]
        reasoning: String,
    }
    let a = serde_json::from_str::<Analysis>(answer.trim()).ok()?;
    (!a.asks.trim().is_empty()).then_some(FormSuggestion {
        asks: a.asks,
        pros: a.pros,
        cons: a.cons,
        action: a.action,
        reasoning: a.reasoning,
    })
}
