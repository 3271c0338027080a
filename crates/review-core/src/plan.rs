//! The triage planner: threads + signals + settings -> which thread gets which outcome and action.
//!
//! [`plan`] is a pure function. It never plans a mutation of a human thread or of a thread whose
//! comments were not all read, and it gives every unresolved thread exactly one outcome.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::gate::{AutomationSettings, Refusal};
use crate::model::{CommitId, LineRange, PullRequest, Thread, ThreadId};
use crate::report::{DeferReason, Outcome, ReconcileError, Report, ThreadReport};
use crate::rules::{self, Class, LadderMode, Rung};
use crate::signals::{Cluster, Concreteness, Severity, SignalSet, Signals, Suggestion};
use crate::text::counted;

/// Paths no fix may edit unless the user changes the list: CI definitions and lockfiles.
pub const DEFAULT_DENIED_PATHS: &[&str] = &[
    ".github/",
    "Cargo.lock",
    "package-lock.json",
    "yarn.lock",
    "pnpm-lock.yaml",
    "poetry.lock",
    "uv.lock",
    "Gemfile.lock",
    "composer.lock",
    "go.sum",
];

/// Whether `path` is on `denied`: an entry ending in `/` denies everything under that directory
/// (at any depth of the repository), any other entry denies files of that name anywhere. Names
/// match whatever their case (`.GitHub/` is `.github/` on a file system that ignores case).
pub fn is_denied(path: &str, denied: &[String]) -> bool {
    let path = path.trim_start_matches("./").to_lowercase();
    denied.iter().any(|rule| {
        let rule = rule.to_lowercase();
        if let Some(dir) = rule.strip_suffix('/') {
            path.starts_with(rule.as_str()) || path.contains(&format!("/{dir}/"))
        } else {
            path == rule || path.ends_with(&format!("/{rule}"))
        }
    })
}

/// What the planner may assume about making fixes.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FixSettings {
    /// Whether the local checkout is at the PR's head (fixes need it). `None` when the planner
    /// runs without a checkout (a recorded snapshot): fixes are planned as if it were.
    pub checkout_at_head: Option<bool>,
    /// Whether a fixer command is available for fixes that are not suggestion blocks.
    pub fixer_available: bool,
    /// Paths never edited (see [`is_denied`]).
    pub denied_paths: Vec<String>,
}

impl Default for FixSettings {
    fn default() -> Self {
        Self {
            checkout_at_head: None,
            fixer_available: false,
            denied_paths: DEFAULT_DENIED_PATHS
                .iter()
                .map(|s| (*s).to_owned())
                .collect(),
        }
    }
}

/// Everything the planner is told besides the PR and the signals.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct TriageSettings {
    /// Who counts as automated.
    pub automation: AutomationSettings,
    /// Whether the autonomy ladder may promote ambiguous bot threads.
    pub ladder: LadderMode,
    /// What fixes may be made.
    pub fixes: FixSettings,
    /// Fixes the tool already committed, found by the `Review-Thread:` trailer of their commits.
    #[serde(default)]
    pub history: FixHistory,
    /// Threads deferred by an earlier pass (the caller's `deferred_threads`): not triaged again,
    /// counted as deferred.
    #[serde(default)]
    pub deferred: std::collections::BTreeSet<ThreadId>,
    /// The judge's answers (`--judge-cmd`), by thread: they decide the judgement calls, within
    /// the hard gates of [`crate::judge`].
    #[serde(default)]
    pub judged: BTreeMap<ThreadId, crate::judge::Verdict>,
    /// The user's severity floor (`judge.min-severity`): no judge makes a finding below it
    /// actionable.
    #[serde(default)]
    pub severity_floor: Option<Severity>,
    /// Threads whose first comment is a protocol signal between tools (an "approval
    /// dismissed" notice, say), not a finding: left alone. The comment reader finds them from
    /// the user's texts (`review_classify::protocol_signalled`); the planner reads no text.
    #[serde(default)]
    pub protocol_signalled: std::collections::BTreeSet<ThreadId>,
}

/// Whether `thread` is a protocol signal of `settings`.
fn is_signal(thread: &Thread, settings: &TriageSettings) -> bool {
    settings.protocol_signalled.contains(&thread.id)
}

/// The report's reason for a protocol signal.
const PROTOCOL_SIGNAL_REASON: &str = "a protocol signal between tools, not a finding; left alone";

/// Fix commits made by earlier runs, by the thread they answer.
///
/// A fix counts once it is on the PR: a thread whose fix commit is on the PR's head on the host
/// is resolved (even if the fix made it outdated); one whose fix commit is only local waits,
/// reported as "fixed in SHA, resolves after push", and is not fixed again.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct FixHistory {
    /// Fix commits on the PR's head on the host.
    pub landed: BTreeMap<ThreadId, CommitId>,
    /// Fix commits in the local checkout, not yet on the PR's head.
    pub pending: BTreeMap<ThreadId, CommitId>,
}

/// What a fix is made from.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "kind")]
pub enum FixMaterial {
    /// A suggestion block, applied as written to the thread's lines.
    Suggestion(Suggestion),
    /// A diff block that edits existing lines of the thread's file, applied only where its
    /// context and removed lines match exactly once (see [`crate::suggestion::Patch`]).
    Diff {
        /// The diff block's text.
        patch: String,
    },
    /// A described fix, made by the fixer command.
    Fixer,
}

/// One fix to make.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FixTask {
    /// The thread the fix answers.
    pub thread: ThreadId,
    /// The file to edit.
    pub path: String,
    /// The thread's lines, if it has any.
    pub lines: Option<LineRange>,
    /// The bot family, for the commit message.
    pub reviewer: String,
    /// The one-line finding, for the commit message.
    pub title: String,
    /// What the fix is made from.
    pub material: FixMaterial,
}

/// What the executor does with a thread.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "kind")]
pub enum Action {
    /// Nothing: the thread is deferred or outdated.
    Leave,
    /// Resolve the thread without a reply.
    Resolve,
    /// Make the fix and commit it; the thread resolves once the commit is on the PR head.
    Fix(FixTask),
    /// A duplicate of `leader`: it follows the leader's fix.
    FollowFix {
        /// The thread that carries the fix.
        leader: ThreadId,
    },
}

impl Action {
    /// Whether carrying the action out changes anything on the host or in git.
    pub fn mutates(&self) -> bool {
        !matches!(self, Self::Leave)
    }
}

/// The plan for one thread.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PlannedThread {
    /// The report line (outcome, reason, ...).
    pub report: ThreadReport,
    /// What to do.
    pub action: Action,
}

/// A triage plan for a whole PR.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Plan {
    /// One entry per unresolved thread, in the PR's thread order.
    pub threads: Vec<PlannedThread>,
    /// `[triage] step N — ...` lines describing the decision.
    pub narration: Vec<String>,
}

impl Plan {
    /// Leaves `threads`, and the duplicates that follow them, to a person as interrupted (the
    /// run was stopped before their decision was made): no action, deferred `interrupted`,
    /// `why` as the reason.
    pub fn interrupt(&mut self, threads: &std::collections::BTreeSet<ThreadId>, why: &str) {
        for p in &mut self.threads {
            let leader_stopped = p
                .report
                .duplicate_of
                .as_ref()
                .is_some_and(|l| threads.contains(l));
            if threads.contains(&p.report.id) || leader_stopped {
                p.action = Action::Leave;
                p.report.outcome = Outcome::Deferred;
                p.report.deferred_because = Some(DeferReason::Interrupted);
                p.report.reason = why.to_owned();
                p.report.commit = None;
            }
        }
    }

    /// The report of this plan, before anything is carried out (`applied` is false).
    pub fn report(&self, pr: &PullRequest) -> Result<Report, ReconcileError> {
        Report::new(
            pr,
            false,
            self.threads.iter().map(|t| t.report.clone()).collect(),
        )
    }
}

/// The decision for a bot thread before clusters are taken into account.
struct BotDecision {
    class: Class,
    outcome: Outcome,
    reason: String,
    rung: Option<Rung>,
    action: Action,
    deferred: Option<DeferReason>,
    judge: Option<crate::judge::JudgeReport>,
}

/// Plans the triage of every unresolved thread of `pr`.
pub fn plan(pr: &PullRequest, signals: &SignalSet, settings: &TriageSettings) -> Plan {
    let leaders = cluster_leaders(pr, signals, settings);
    let mut planned: Vec<PlannedThread> = Vec::new();
    let mut follower_of: Vec<(usize, ThreadId)> = Vec::new();

    for thread in pr.unresolved_threads() {
        let sig = signals.threads.get(&thread.id);
        let mut report = ThreadReport {
            id: thread.id.clone(),
            outcome: Outcome::Deferred,
            human: false,
            class: None,
            reason: String::new(),
            commit: None,
            location: thread.location(),
            author: thread
                .first_comment()
                .and_then(|c| c.author.as_ref())
                .map(|a| a.login.clone()),
            family: sig.and_then(|s| s.family.clone()),
            rung: None,
            alternative: None,
            deferred_because: None,
            duplicate_of: None,
            judge: None,
        };
        // The one check of whether the tool may act on this thread.
        let gate = settings.automation.may_act(thread, pr);
        report.human = gate.as_ref().err().is_some_and(Refusal::is_human);

        if thread.is_outdated {
            report.outcome = Outcome::Outdated;
            let landed = settings.history.landed.get(&thread.id);
            let action = match landed {
                // Outdated because its own fix landed: the fix counts, resolve it.
                Some(commit) if gate.is_ok() => {
                    report.reason = format!(
                        "outdated by its fix {}, which is on the PR; resolve",
                        commit.short()
                    );
                    report.commit = Some(commit.clone());
                    Action::Resolve
                }
                _ => {
                    report.reason = "outdated: the code it points at has changed".to_owned();
                    Action::Leave
                }
            };
            planned.push(PlannedThread { report, action });
            continue;
        }
        if settings.deferred.contains(&thread.id) {
            report.deferred_because = Some(DeferReason::Earlier);
            report.reason = "deferred by an earlier pass; not triaged again".to_owned();
            if gate.is_ok() {
                if is_signal(thread, settings) {
                    // A protocol signal passed back is still a protocol signal.
                    report.deferred_because = Some(DeferReason::ProtocolSignal);
                    report.reason = PROTOCOL_SIGNAL_REASON.to_owned();
                } else {
                    // Not triaged again, but its class is kept: an actionable finding left
                    // unfixed still counts in `unresolved_actionable_remaining`.
                    let unknown = Signals::unknown("");
                    let convergent = leaders
                        .iter()
                        .any(|l| l.leader == thread.id && l.convergent);
                    let d = decide(thread, sig.unwrap_or(&unknown), convergent, settings);
                    report.class = Some(d.class);
                }
            }
            planned.push(PlannedThread {
                report,
                action: Action::Leave,
            });
            continue;
        }
        if let Err(refusal) = gate {
            report.deferred_because = Some(match refusal {
                Refusal::NotReadWhole => DeferReason::Incomplete,
                Refusal::Human(_) | Refusal::NoComments => DeferReason::Human,
                Refusal::Reopened => DeferReason::Reopened,
                Refusal::UnsafePath => DeferReason::UnsafePath,
            });
            report.reason = refusal.to_string();
            let fixed = settings
                .history
                .landed
                .get(&thread.id)
                .or_else(|| settings.history.pending.get(&thread.id));
            if let (Some(commit), true) = (fixed, report.human) {
                // Fixed at the author's word (`--interactive`): still the author's to answer.
                report.reason = format!(
                    "fixed in {}, thread left open for your reply",
                    commit.short()
                );
                report.commit = Some(commit.clone());
            }
            planned.push(PlannedThread {
                report,
                action: Action::Leave,
            });
            continue;
        }

        if is_signal(thread, settings) {
            report.deferred_because = Some(DeferReason::ProtocolSignal);
            report.reason = PROTOCOL_SIGNAL_REASON.to_owned();
            planned.push(PlannedThread {
                report,
                action: Action::Leave,
            });
            continue;
        }
        if let Some(leader) = leaders.iter().find(|l| l.followers.contains(&thread.id)) {
            follower_of.push((planned.len(), leader.leader.clone()));
            report.duplicate_of = Some(leader.leader.clone());
            planned.push(PlannedThread {
                report,
                action: Action::Leave,
            });
            continue;
        }
        let unknown;
        let sig = match sig {
            Some(s) => s,
            None => {
                unknown = Signals::unknown("");
                &unknown
            }
        };
        let convergent = leaders
            .iter()
            .any(|l| l.leader == thread.id && l.convergent);
        let d = decide(thread, sig, convergent, settings);
        report.judge = d.judge.clone();
        report.class = Some(d.class);
        report.outcome = d.outcome;
        report.reason = d.reason;
        report.deferred_because = d.deferred;
        let mut action = d.action;
        let fixed_outcome = if d.outcome == Outcome::Promoted {
            Outcome::Promoted
        } else {
            Outcome::Actioned
        };
        if let Some(commit) = settings.history.landed.get(&thread.id) {
            report.outcome = fixed_outcome;
            report.deferred_because = None;
            report.reason = format!("fixed in {}, which is on the PR; resolve", commit.short());
            report.commit = Some(commit.clone());
            action = Action::Resolve;
        } else if let Some(commit) = settings.history.pending.get(&thread.id) {
            report.outcome = fixed_outcome;
            report.deferred_because = None;
            report.reason = format!("fixed in {}, resolves after push", commit.short());
            report.commit = Some(commit.clone());
            action = Action::Leave;
        }
        if let Some(rung) = &d.rung {
            report.rung = Some(rung.as_str().to_owned());
            if let Rung::RecommendAndAsk { alternative } = rung {
                report.alternative = Some(alternative.clone());
            }
        }
        planned.push(PlannedThread { report, action });
    }

    // Duplicates follow the thread that carries the decision.
    for (index, leader_id) in follower_of {
        let Some(leader) = planned.iter().find(|p| p.report.id == leader_id).cloned() else {
            continue;
        };
        let entry = &mut planned[index];
        entry.report.class = leader.report.class;
        match &leader.action {
            Action::Resolve => {
                entry.report.outcome = Outcome::Resolved;
                entry.report.reason = format!("duplicate of {leader_id}, resolved with it");
                entry.action = Action::Resolve;
            }
            Action::Fix(_) => {
                entry.report.outcome = Outcome::Resolved;
                entry.report.reason =
                    format!("duplicate of {leader_id}; resolves when its fix is on the PR");
                entry.action = Action::FollowFix { leader: leader_id };
            }
            Action::Leave if leader.report.commit.is_some() => {
                entry.report.outcome = Outcome::Resolved;
                entry.report.reason =
                    format!("duplicate of {leader_id}; resolves when its fix is on the PR");
            }
            Action::Leave | Action::FollowFix { .. } => {
                entry.report.outcome = Outcome::Deferred;
                entry.report.deferred_because = Some(DeferReason::Duplicate);
                entry.report.reason = format!("duplicate of {leader_id}, deferred with it");
            }
        }
    }

    let narration = narrate(pr, &planned);
    Plan {
        threads: planned,
        narration,
    }
}

fn decide(
    thread: &Thread,
    sig: &Signals,
    convergent: bool,
    settings: &TriageSettings,
) -> BotDecision {
    let reader = rules::classify(sig, convergent);
    let reader_class = reader.class;
    // The judge decides the judgement calls, within the hard gates.
    let judged = settings
        .judged
        .get(&thread.id)
        .map(|v| crate::judge::apply(sig, &reader, v, settings.severity_floor));
    let (classification, judge_rung, judge) = match judged {
        Some(j) => (j.classification, j.rung, Some(j.report)),
        None => (reader, None, None),
    };
    // The judge found the fix clear: a fixer may make one the comment only describes.
    let judged_clear = judge
        .as_ref()
        .is_some_and(|j| j.class.is_some() && !j.failed && j.gate.is_none());
    let mut decision = match classification.class {
        Class::Nit if rules::fixes_nit(sig, reader_class) => {
            let fixed = fix_decision(
                thread,
                sig,
                (Class::Nit, Outcome::Actioned),
                &format!(
                    "{}, fixed rather than resolved unread",
                    classification.reason
                ),
                None,
                false,
                settings,
            );
            match fixed.deferred {
                // A path the tool may never edit, or a checkout a later run can fix from: the
                // defect stays open, deferred with why, rather than dismissed unfixed.
                Some(DeferReason::DenyListed | DeferReason::NotAtHead) => fixed,
                // No fix this tool could ever make (prose and no fixer, a diff it cannot
                // apply): the nit is resolved, as any other.
                Some(_) => resolve_nit(format!(
                    "{}, resolved without a fix ({})",
                    classification.reason, fixed.reason
                )),
                None => fixed,
            }
        }
        Class::Nit => resolve_nit(classification.reason),
        Class::Actionable => fix_decision(
            thread,
            sig,
            (Class::Actionable, Outcome::Actioned),
            &classification.reason,
            None,
            judged_clear,
            settings,
        ),
        Class::Ambiguous => {
            let rung = match &judge_rung {
                // The judge's rung: its judgement within the hard gates.
                Some(hint) => rules::ladder_judged(sig, settings.ladder, hint),
                None => rules::ladder(sig, settings.ladder),
            };
            match rung {
                Rung::StopAndAsk => {
                    let why = if settings.ladder == LadderMode::Off {
                        "ladder unavailable"
                    } else {
                        "stop-and-ask"
                    };
                    BotDecision {
                        class: Class::Ambiguous,
                        outcome: Outcome::Deferred,
                        reason: format!("{}; {why}", classification.reason),
                        rung: Some(Rung::StopAndAsk),
                        action: Action::Leave,
                        deferred: Some(DeferReason::AmbiguousBot),
                        judge: None,
                    }
                }
                Rung::JustDoIt | Rung::RecommendAndAsk { .. } => {
                    let reason = match &rung {
                        Rung::RecommendAndAsk { alternative } => format!(
                            "{}; recommend-and-ask: took the proposed fix, alternative was {alternative}",
                            classification.reason
                        ),
                        _ => format!(
                            "{}; just-do-it: one concrete, reversible fix",
                            classification.reason
                        ),
                    };
                    fix_decision(
                        thread,
                        sig,
                        (Class::Ambiguous, Outcome::Promoted),
                        &reason,
                        Some(rung),
                        judged_clear,
                        settings,
                    )
                }
            }
        }
    };
    decision.judge = judge;
    decision
}

/// The decision to resolve a nit, with `reason`.
fn resolve_nit(reason: String) -> BotDecision {
    BotDecision {
        class: Class::Nit,
        outcome: Outcome::Resolved,
        reason,
        rung: None,
        action: Action::Resolve,
        deferred: None,
        judge: None,
    }
}

/// The decision to fix `thread` (its class and the outcome a fix gives), or to defer it with why
/// when no fix can be made; `judged_clear` when the judge found the fix clear.
fn fix_decision(
    thread: &Thread,
    sig: &Signals,
    (class, outcome): (Class, Outcome),
    reason: &str,
    rung: Option<Rung>,
    judged_clear: bool,
    settings: &TriageSettings,
) -> BotDecision {
    let defer = |why: DeferReason, text: String| BotDecision {
        class,
        outcome: Outcome::Deferred,
        reason: text,
        rung: rung.clone(),
        action: Action::Leave,
        deferred: Some(why),
        judge: None,
    };
    // Deny-listed first: it holds wherever the checkout is.
    if is_denied(&thread.path, &settings.fixes.denied_paths) {
        return defer(
            DeferReason::DenyListed,
            format!(
                "{}: {} is on the deny list; never edited",
                class.as_str(),
                thread.path
            ),
        );
    }
    if settings.fixes.checkout_at_head == Some(false) {
        return defer(
            DeferReason::NotAtHead,
            format!("{}: local checkout is not at the PR head", class.as_str()),
        );
    }
    let material = match (&sig.concreteness, &sig.patch) {
        (Concreteness::Suggestion(s), _) => FixMaterial::Suggestion(s.clone()),
        // A diff block is applied exactly, with or without a fixer; one that creates, deletes or
        // renames a file, changes a mode or names another file is left to a person.
        (Concreteness::Exact, Some(patch)) => {
            match crate::suggestion::Patch::parse(patch, &thread.path) {
                Ok(_) => FixMaterial::Diff {
                    patch: patch.clone(),
                },
                Err(e) => {
                    return defer(DeferReason::FixFailed, format!("{}: {e}", class.as_str()));
                }
            }
        }
        (Concreteness::Exact, None) if settings.fixes.fixer_available => FixMaterial::Fixer,
        (Concreteness::Vague, None) if judged_clear && settings.fixes.fixer_available => {
            FixMaterial::Fixer
        }
        (Concreteness::Vague, _) if settings.fixes.fixer_available => {
            return defer(
                DeferReason::AmbiguousBot,
                format!(
                    "{}: the fix is not described concretely enough to hand to the fixer",
                    class.as_str()
                ),
            );
        }
        (Concreteness::Exact | Concreteness::Vague, _) => {
            return defer(
                DeferReason::NoFixer,
                format!(
                    "{}, no fixer: the fix is not a suggestion block and no fixer command is configured",
                    class.as_str()
                ),
            );
        }
    };
    let how = match material {
        FixMaterial::Suggestion(_) => "apply the suggestion block",
        FixMaterial::Diff { .. } => "apply the diff block",
        FixMaterial::Fixer => "hand to the fixer",
    };
    BotDecision {
        class,
        outcome,
        reason: format!("{reason}; {how}"),
        rung,
        action: Action::Fix(FixTask {
            thread: thread.id.clone(),
            path: thread.path.clone(),
            lines: thread.lines,
            reviewer: sig.family.clone().unwrap_or_else(|| "bot".to_owned()),
            title: sig.title.clone(),
            material,
        }),
        deferred: None,
        judge: None,
    }
}

/// The thread of a cluster that carries the decision, and the duplicates that follow it.
struct Leader {
    leader: ThreadId,
    followers: Vec<ThreadId>,
    convergent: bool,
}

/// Picks, per cluster, the bot thread that carries the decision: among threads that may be
/// acted on (unresolved, current, all comments read, no human), the one with the most usable fix
/// material, then the highest severity, then the first.
fn cluster_leaders(
    pr: &PullRequest,
    signals: &SignalSet,
    settings: &TriageSettings,
) -> Vec<Leader> {
    let mut leaders = Vec::new();
    for cluster in merge_overlapping(&signals.clusters) {
        let eligible: Vec<&Thread> = cluster
            .threads
            .iter()
            .filter_map(|id| pr.thread(id))
            .filter(|t| {
                !t.is_resolved
                    && !t.is_outdated
                    && settings.automation.may_act(t, pr).is_ok()
                    && !is_signal(t, settings)
            })
            .collect();
        let rank = |t: &&&Thread| {
            let s = signals.threads.get(&t.id);
            let material = match s.map(|s| &s.concreteness) {
                Some(Concreteness::Suggestion(_)) => 2,
                Some(Concreteness::Exact) => 1,
                _ => 0,
            };
            let severity = s.map_or(Severity::None, |s| s.severity);
            (material, severity)
        };
        // max_by_key keeps the last maximum; iterate in reverse so ties go to the first thread.
        let Some(leader) = eligible.iter().rev().max_by_key(rank) else {
            continue;
        };
        leaders.push(Leader {
            leader: leader.id.clone(),
            followers: eligible
                .iter()
                .filter(|t| t.id != leader.id)
                .map(|t| t.id.clone())
                .collect(),
            convergent: cluster.convergent,
        });
    }
    leaders
}

/// Clusters that share a thread are one cluster: a thread follows at most one leader.
fn merge_overlapping(clusters: &[Cluster]) -> Vec<Cluster> {
    let mut merged: Vec<Cluster> = Vec::new();
    for cluster in clusters {
        let mut current = Cluster {
            threads: Vec::new(),
            convergent: cluster.convergent,
        };
        for id in &cluster.threads {
            if !current.threads.contains(id) {
                current.threads.push(id.clone());
            }
        }
        // Absorb every earlier cluster that shares a thread with this one.
        let mut k = 0;
        while k < merged.len() {
            if merged[k]
                .threads
                .iter()
                .any(|id| current.threads.contains(id))
            {
                let other = merged.remove(k);
                current.convergent |= other.convergent;
                let mut threads = other.threads;
                for id in current.threads {
                    if !threads.contains(&id) {
                        threads.push(id);
                    }
                }
                current.threads = threads;
                k = 0;
            } else {
                k += 1;
            }
        }
        merged.push(current);
    }
    merged
}

fn narrate(pr: &PullRequest, planned: &[PlannedThread]) -> Vec<String> {
    let count = |f: &dyn Fn(&PlannedThread) -> bool| planned.iter().filter(|p| f(p)).count();
    let current = count(&|p| p.report.outcome != Outcome::Outdated);
    let bots = count(&|p| !p.report.human && p.report.outcome != Outcome::Outdated);
    let class_n = |c: Class| {
        count(&|p| p.report.class == Some(c) && p.report.duplicate_of.is_none() && !p.report.human)
    };
    let dupes =
        count(&|p| p.report.duplicate_of.is_some() && p.report.outcome != Outcome::Outdated);
    let humans = count(&|p| p.report.human && p.report.outcome != Outcome::Outdated);
    let outdated = count(&|p| p.report.outcome == Outcome::Outdated);
    let promoted = count(&|p| p.report.outcome == Outcome::Promoted);
    let signals = count(&|p| p.report.deferred_because == Some(DeferReason::ProtocolSignal));
    let mut lines = vec![format!(
        "[triage] step 3 — {} on PR #{} ({outdated} outdated set aside)",
        counted(
            current,
            "unresolved current thread",
            "unresolved current threads"
        ),
        pr.number
    )];
    let mut bot_line = format!(
        "[triage] step 3 — {}: {} actionable, {} nit, {} ambiguous ({promoted} promoted by the ladder), {}",
        counted(bots, "bot thread", "bot threads"),
        class_n(Class::Actionable),
        class_n(Class::Nit),
        class_n(Class::Ambiguous),
        counted(dupes, "duplicate", "duplicates"),
    );
    if signals > 0 {
        bot_line.push_str(&format!(
            ", {} left alone",
            counted(signals, "protocol signal", "protocol signals")
        ));
    }
    lines.push(bot_line);
    for p in planned
        .iter()
        .filter(|p| matches!(p.action, Action::Fix(_)))
    {
        lines.push(format!(
            "[triage] step 3 — fix planned for thread {} ({})",
            p.report.id, p.report.location
        ));
    }
    lines.push(format!(
        "[triage] step 4 — {} with human participation deferred untouched",
        counted(humans, "thread", "threads")
    ));
    lines
}
