//! `triage`: classify every unresolved review thread of a pull request, decide what happens to
//! each, and (with consent) carry it out.
//!
//! The use-case is [`TriagePorts::triage`]. It stops on a closed or merged pull request; finds
//! the fixes earlier runs committed (the local history's `Review-Thread:` trailers: landed on
//! the PR's head, or only local) and whether the checkout is at the PR's head; reads the
//! comments (`review_classify`); plans with `review_core::plan`; asks the [`Judge`] about the
//! judgement calls, within the hard gates; and, in apply mode with a review host and a
//! checkout, carries the plan out with `review_core::execute` (fixes through the core's
//! `Fixer`), offers the suggestions in people's threads to the user ([`Prompt`], nothing
//! resolved there) and pushes the fix commits and resolves the threads they fix ([`Pusher`]).
//! People's threads are never touched: the plan never acts on one and the executor refuses a
//! plan that would.
//!
//! The outcome is typed ([`Outcome`]): the report, what was pushed ([`Pushed`]), the threads
//! whose fix waits for a push ([`Triaged::awaiting_push`]) and the orchestrator's
//! [`SubstepResult`]; the caller renders it.

use std::collections::BTreeMap;
use std::future::Future;
use std::sync::atomic::{AtomicBool, Ordering};

use review_core::execute::{self, Workspace};
use review_core::judge::Verdict;
use review_core::model::{CommitId, PrState, PullRequest, ThreadId};
use review_core::plan::{self, FixHistory as Fixed, Plan, TriageSettings};
use review_core::ports::{Fixer, ReviewHost, Vcs};
use review_core::report::{DeferReason, Outcome as ThreadOutcome, Report, ThreadReport};
use review_core::rules::{Class, LadderMode};
use review_core::signals::{Concreteness, SignalSet, Suggestion};
use review_core::text::counted;
use serde::Serialize;

use crate::error::{AppError, ErrorKind};
use crate::narrator::Narrator;
use crate::respond::FixHistory;

/// What the judge is asked: the threads worth a judgement call, with what the plan and the
/// reader made of them.
#[derive(Debug, Clone, Copy)]
pub struct JudgeRequest<'a> {
    /// The pull request as read.
    pub pr: &'a PullRequest,
    /// The plan before the judge (the reader's classes and reasons).
    pub plan: &'a Plan,
    /// The reader's signals.
    pub signals: &'a SignalSet,
    /// The threads to ask about, the ambiguous first (`review_core::judge::candidates`).
    pub threads: &'a [ThreadId],
    /// Whether the local checkout is the PR's head (its files may then be read for evidence).
    pub checkout_at_head: bool,
}

/// What the judge answered.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Judged {
    /// Its answer, or why there is none, per thread asked.
    pub verdicts: BTreeMap<ThreadId, Verdict>,
    /// How many threads it could have been asked about.
    pub eligible: usize,
    /// The threads asked about that got no answer because the run was interrupted.
    pub interrupted: Vec<ThreadId>,
    /// Whether the run was interrupted while the judge was asked: nothing more is done.
    pub stopped: bool,
}

/// The judge: for each thread asked, the evidence in (the adapter builds and fences it), an
/// answer or why none out. A failed call is a [`Verdict::Failed`], which changes nothing (the
/// reader's class stands); `Err` is the port failing as a whole (nothing is changed then).
pub trait Judge {
    /// The port's own error.
    type Error: std::error::Error + Send + Sync + 'static;

    /// At most this many threads are asked about in a run (the rest keep the reader's class).
    fn max(&self) -> Option<usize>;

    /// Asks about `request.threads`.
    fn judge(&self, request: JudgeRequest<'_>)
    -> impl Future<Output = Result<Judged, Self::Error>>;
}

/// A judge never asked: for callers without one (the built-in ladder decides).
#[derive(Debug, Clone, Copy, Default)]
pub struct NoJudge;

impl Judge for NoJudge {
    type Error = std::convert::Infallible;

    fn max(&self) -> Option<usize> {
        None
    }

    async fn judge(&self, request: JudgeRequest<'_>) -> Result<Judged, Self::Error> {
        Ok(Judged {
            eligible: request.threads.len(),
            ..Judged::default()
        })
    }
}

/// The suggestion in a person's thread offered to the user: commit it? The thread stays open
/// for the user's reply either way.
#[derive(Debug, Clone, Copy)]
pub struct HumanFixOffer<'a> {
    /// The thread's report line.
    pub entry: &'a ThreadReport,
    /// The file.
    pub path: &'a str,
    /// The finding's title.
    pub title: &'a str,
    /// The suggested replacement.
    pub suggestion: &'a Suggestion,
    /// The lines it replaces.
    pub lines: Option<review_core::model::LineRange>,
}

/// Where the user is asked about the fixes in people's threads (a terminal).
pub trait Prompt {
    /// Whether anyone can be asked (a terminal is there).
    fn available(&self) -> bool;

    /// Asks whether to commit `offer`; `true` for yes.
    fn ask(&self, offer: &HumanFixOffer<'_>) -> bool;
}

/// Pushes the fix commits to the pull request's branch.
pub trait Pusher {
    /// Why a read failed (a failed read after the push stops the run with it).
    type Error: std::error::Error + Send + Sync + 'static;

    /// `pr` read again whole, as the host has it now.
    fn read_again(
        &self,
        pr: &PullRequest,
    ) -> impl Future<Output = Result<PullRequest, Self::Error>>;

    /// Pushes the local HEAD to the PR's `branch` where `now` (the PR as read just before) says
    /// it lives, on top of its head and never forced: where it was pushed to, or why it was
    /// refused or failed.
    fn push(&self, branch: &str, now: &PullRequest) -> Result<String, String>;
}

/// A pusher for callers that never push (`push` unset).
#[derive(Debug, Clone, Copy, Default)]
pub struct NoPusher;

/// [`NoPusher`] was asked to read or push.
#[derive(Debug, thiserror::Error)]
#[error("no pusher is wired")]
pub struct NotWired;

impl Pusher for NoPusher {
    type Error = NotWired;

    async fn read_again(&self, _: &PullRequest) -> Result<PullRequest, NotWired> {
        Err(NotWired)
    }

    fn push(&self, _: &str, _: &PullRequest) -> Result<String, String> {
        Err(NotWired.to_string())
    }
}

/// What a run is asked to do.
#[derive(Debug, Clone)]
pub struct Settings {
    /// Carry the plan out (with a review host and a checkout): commit fixes, resolve.
    pub apply: bool,
    /// Push the fix commits after applying, then resolve the threads they fix.
    pub push: bool,
    /// Offer the suggestions in people's threads to the user ([`Prompt`]).
    pub interactive: bool,
    /// The planner's settings (the gate's, the ladder, the fixes, earlier passes' deferrals);
    /// the run fills in the history, whether the checkout is at the head and the protocol
    /// signals.
    pub triage: TriageSettings,
    /// Texts that mark a bot comment as a protocol signal between tools (`--protocol-signal`),
    /// matched case-insensitively in each thread's first comment: such threads are left alone.
    pub protocol_signals: Vec<String>,
}

/// The ports a triage run works through.
pub struct TriagePorts<'a, J, U> {
    /// The review host the resolves go to; `None`: only a plan (a recorded snapshot).
    pub host: Option<&'a dyn ReviewHost>,
    /// The local checkout fixes are made in; `None` outside one.
    pub vcs: Option<&'a dyn Vcs>,
    /// The checkout's history (the fix commits by their trailers, ancestry).
    pub history: &'a dyn FixHistory,
    /// The fixer for fixes that are not suggestion blocks, if one is configured.
    pub fixer: Option<&'a dyn Fixer>,
    /// The judge, if one is configured.
    pub judge: Option<&'a J>,
    /// Where the user is asked (`Settings::interactive`).
    pub prompt: Option<&'a dyn Prompt>,
    /// The pusher (`Settings::push`).
    pub pusher: Option<&'a U>,
    /// Where progress is said (`[triage] ...` lines).
    pub narrator: &'a (dyn Narrator + Sync),
    /// Set to stop at the next checkpoint (Ctrl-C): what was done is still reported.
    pub stop: &'a AtomicBool,
}

impl<J, U> std::fmt::Debug for TriagePorts<'_, J, U> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TriagePorts")
            .field("host", &self.host.is_some())
            .field("vcs", &self.vcs.is_some())
            .field("fixer", &self.fixer.is_some())
            .field("judge", &self.judge.is_some())
            .field("prompt", &self.prompt.is_some())
            .field("pusher", &self.pusher.is_some())
            .finish_non_exhaustive()
    }
}

/// What [`TriagePorts::triage`] came to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Outcome {
    /// The pull request is closed or merged: nothing was triaged.
    Closed(Closed),
    /// The run's report and what it did.
    Triaged(Box<Triaged>),
}

/// A pull request that is not open.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Closed {
    /// Whether it was merged (else closed).
    pub merged: bool,
    /// Its head.
    pub head: CommitId,
}

/// What a push did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Pushed {
    /// No push was asked, or no fix commit waited for one.
    Nothing,
    /// Pushed this commit to the PR's branch.
    To(CommitId),
    /// The push failed or was refused, and why (the report stands; the caller fails after
    /// showing it).
    Failed(String),
}

/// A run's report and what it did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Triaged {
    /// The report: one line per unresolved thread, the counts, the hints.
    pub report: Report,
    /// What the push did.
    pub pushed: Pushed,
    /// The head after the run, when the run moved it: what it pushed, else the tip of the fix
    /// commits it made (never a commit of the user's).
    pub new_head: Option<CommitId>,
    /// The threads whose fix commit is not on the PR's head as the run ends (committed by this
    /// run or an earlier one, not pushed): they resolve after the push.
    pub awaiting_push: Vec<ThreadId>,
    /// The threads resolved after this run's push.
    pub resolved_after_push: Vec<ThreadId>,
    /// Whether the run was interrupted (what was done so far is in the report).
    pub interrupted: bool,
}

impl Triaged {
    /// The orchestrator's result of this run, with the run's `narration`.
    pub fn substep(&self, marker: Option<&str>, narration: Vec<String>) -> SubstepResult {
        SubstepResult::of(&self.report, self.new_head.as_ref(), marker, narration)
    }
}

/// What `review triage --substep` prints: the triage workflow's result as a sub-step.
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct SubstepResult {
    /// The PR head the run started from.
    head_sha_in: CommitId,
    /// The head after the run: the commit it pushed, else the tip of the fix commits it made,
    /// else `head_sha_in`.
    new_head_sha: CommitId,
    /// Whether the pre-review ran.
    qa_swarm_ran: bool,
    /// The commit the pre-review marker records, when one was given.
    qa_swarm_marker_sha: Option<String>,
    /// Threads resolved.
    resolved: usize,
    /// Threads fixed.
    actioned: usize,
    /// Ambiguous threads the ladder fixed.
    promoted: usize,
    /// Threads left for a person (protocol signals, left alone, are not among them).
    deferred_threads: Vec<ThreadId>,
    /// Whether actionable findings remain unresolved.
    unresolved_actionable_remaining: bool,
    /// The run's narration lines.
    narration: Vec<String>,
}

impl SubstepResult {
    /// The result of a run that did nothing at `head` (a merged or closed PR), with its
    /// narration.
    pub fn new(
        head: &CommitId,
        new_head: Option<&CommitId>,
        marker: Option<&str>,
        narration: Vec<String>,
    ) -> Self {
        Self {
            head_sha_in: head.clone(),
            new_head_sha: new_head.unwrap_or(head).clone(),
            qa_swarm_ran: false,
            qa_swarm_marker_sha: marker.map(str::to_owned),
            resolved: 0,
            actioned: 0,
            promoted: 0,
            deferred_threads: Vec::new(),
            unresolved_actionable_remaining: false,
            narration,
        }
    }

    /// The result of a run that ended in `report` and moved the head to `new_head`, if it did.
    pub fn of(
        report: &Report,
        new_head: Option<&CommitId>,
        marker: Option<&str>,
        narration: Vec<String>,
    ) -> Self {
        Self {
            resolved: report.counts.resolved,
            actioned: report.counts.actioned,
            promoted: report.counts.promoted,
            // Protocol signals are left alone, not deferred to a person: the workflow ignores
            // them.
            deferred_threads: report
                .waiting_for_a_person()
                .map(|t| t.id.clone())
                .collect(),
            unresolved_actionable_remaining: report.unresolved_actionable_remaining,
            ..Self::new(&report.head_sha, new_head, marker, narration)
        }
    }
}

/// The stop on a pull request that is not open: says so, and what it is.
pub fn closed(pr: &PullRequest, narrator: &dyn Narrator) -> Option<Closed> {
    if pr.state == PrState::Open {
        return None;
    }
    let merged = pr.state == PrState::Merged;
    narrator.narrate(&format!(
        "[triage] done — PR #{} is {}; nothing to triage",
        pr.number,
        if merged { "merged" } else { "closed" }
    ));
    Some(Closed {
        merged,
        head: pr.head_sha.clone(),
    })
}

/// Fix commits of earlier runs, by the `Review-Thread:` trailer of their trailer block: those on
/// the PR's head (landed, among the PR's own commits: `base..head`) and those only in the local
/// checkout on top of it (pending). The checkout counts as at the PR head when HEAD is the PR
/// head, or the PR head plus only the tool's own fix commits.
///
/// # Errors
///
/// [`ErrorKind::Failed`] when HEAD or the fix commits cannot be read.
pub fn fix_history(
    vcs: &dyn Vcs,
    history: &dyn FixHistory,
    pr: &PullRequest,
    narrator: &dyn Narrator,
) -> Result<(Fixed, bool), AppError> {
    let unreadable = || {
        AppError::new(
            ErrorKind::Failed,
            "cannot read the local history: git could not list the fix commits",
            None,
        )
    };
    let mut fixed = Fixed::default();
    let pr_head = pr.head_sha.0.as_str();
    // Before reading HEAD: a clone without the PR's head (or without any commit) can still plan.
    if !history.has_commit(pr_head) {
        narrator.narrate(&format!(
            "[triage] step 3 — the PR head {} is not in the local repository; fetch it to make fixes",
            pr.head_sha.short()
        ));
        return Ok((fixed, false));
    }
    let head = vcs.head().map_err(|e| {
        AppError::new(
            ErrorKind::Failed,
            format!("cannot read the local HEAD: {e}"),
            Some("run inside a clone with a commit checked out"),
        )
    })?;
    // The PR's own commits: from its base. A base the clone does not have leaves the last
    // thousand commits of the head (said so).
    let base = match pr.base_sha.as_ref() {
        Some(base) if history.has_commit(&base.0) => Some(base.0.as_str()),
        Some(base) => {
            narrator.narrate(&format!(
                "[triage] step 3 — the PR's base {} is not in the local repository: fix commits are looked for in the head's last 1000 commits; fetch the base to narrow that",
                base.short()
            ));
            None
        }
        None => None,
    };
    for commit in history.fix_commits(base, pr_head).ok_or_else(unreadable)? {
        for thread in commit.threads {
            fixed
                .landed
                .entry(ThreadId(thread))
                .or_insert_with(|| CommitId(commit.sha.clone()));
        }
    }
    if head.0 == pr_head {
        return Ok((fixed, true));
    }
    if !history.is_ancestor(pr_head, &head.0) {
        return Ok((fixed, false));
    }
    let ahead = history
        .fix_commits(Some(pr_head), "HEAD")
        .ok_or_else(unreadable)?;
    let ours_only = ahead.iter().all(|c| !c.threads.is_empty());
    for commit in ahead {
        for thread in commit.threads {
            fixed
                .pending
                .entry(ThreadId(thread))
                .or_insert_with(|| CommitId(commit.sha.clone()));
        }
    }
    Ok((fixed, ours_only))
}

/// The threads of `report` whose fix commit is not on the PR's head (`landed`): they wait for a
/// push.
pub fn awaiting_push(report: &Report, landed: &Fixed) -> Vec<ThreadId> {
    report
        .threads
        .iter()
        .filter(|t| t.commit.is_some() && !landed.landed.contains_key(&t.id))
        .map(|t| t.id.clone())
        .collect()
}

impl<J: Judge, U: Pusher> TriagePorts<'_, J, U> {
    /// Triages `pr` (as read, open or not).
    ///
    /// # Errors
    ///
    /// [`ErrorKind::Port`] when the judge fails as a whole (nothing changed) or the read after a
    /// push fails (the port's error is the source); [`ErrorKind::Failed`] when the local history
    /// cannot be read; [`ErrorKind::Internal`] when the plan or its execution does not account
    /// for every thread (a bug).
    pub async fn triage(&self, pr: &PullRequest, settings: &Settings) -> Result<Outcome, AppError> {
        let narrator = self.narrator;
        if let Some(closed) = closed(pr, narrator) {
            return Ok(Outcome::Closed(closed));
        }
        let mut triage = settings.triage.clone();
        triage
            .protocol_signalled
            .extend(review_classify::protocol_signalled(
                pr,
                &settings.protocol_signals,
            ));
        if let Some(vcs) = self.vcs {
            let (fixed, at_head) = fix_history(vcs, self.history, pr, narrator)?;
            if !at_head {
                narrator.narrate(&format!(
                    "[triage] step 3 — local checkout is not at the PR head {}: fixes are deferred",
                    pr.head_sha.short()
                ));
            }
            triage.fixes.checkout_at_head = Some(at_head);
            triage.history = fixed;
        }
        narrate_stale(pr, &triage, narrator);
        let signals = review_classify::analyze(pr, &triage.automation);
        let mut plan = plan::plan(pr, &signals, &triage);
        self.ask_judge(pr, &signals, &mut triage, &mut plan).await?;
        for line in &plan.narration {
            narrator.narrate(line);
        }
        let mut pushed = Pushed::Nothing;
        let mut new_head = None;
        let mut resolved_after_push = Vec::new();
        let mut awaiting = Vec::new();
        let mut report = match (self.host, self.vcs) {
            (Some(host), Some(vcs)) if settings.apply => {
                let head_before = vcs.head().ok();
                let workspace = Workspace {
                    vcs,
                    fixer: self.fixer,
                };
                // Each line is narrated as it happens (a fixer may work for minutes).
                let done = execute::execute_narrated(
                    pr,
                    &plan,
                    &triage,
                    host,
                    Some(workspace),
                    self.stop,
                    &|line| narrator.narrate(line),
                )
                .await
                .map_err(|e| {
                    AppError::new(
                        ErrorKind::Internal,
                        e.to_string(),
                        Some("nothing was changed; this is a bug in review, please report it"),
                    )
                })?;
                let mut report = done.report;
                if settings.interactive && !self.stopped() {
                    match self.prompt.filter(|p| p.available()) {
                        Some(prompt) => {
                            offer_human_fixes(
                                vcs,
                                pr,
                                &signals,
                                &triage,
                                &mut report,
                                prompt,
                                narrator,
                            );
                        }
                        None => narrator
                            .narrate("[triage] --interactive needs a terminal; no fix offered"),
                    }
                }
                let head_after = vcs.head().ok();
                if head_after != head_before {
                    new_head = head_after;
                }
                awaiting = awaiting_push(&report, &triage.history);
                if settings.push && !self.stopped() {
                    let push = self
                        .push_and_resolve(vcs, pr, &triage, host, &mut report, &awaiting)
                        .await?;
                    match push.pushed {
                        Pushed::To(commit) => {
                            report.applied = true;
                            new_head = Some(commit.clone());
                            // Pushed: no fix waits any more.
                            awaiting.clear();
                            pushed = Pushed::To(commit);
                        }
                        other => pushed = other,
                    }
                    resolved_after_push = push.resolved;
                }
                report
            }
            _ => plan.report(pr).map_err(|e| {
                AppError::new(
                    ErrorKind::Internal,
                    format!("the plan does not account for every thread: {e}"),
                    Some(
                        "this is a bug in review; please report it with `review snapshot` attached",
                    ),
                )
            })?,
        };
        if !matches!(pushed, Pushed::To(_)) {
            awaiting = awaiting_push(&report, &triage.history);
        }
        report.hints = review_classify::account_hints(pr, &triage.automation);
        Ok(Outcome::Triaged(Box::new(Triaged {
            report,
            pushed,
            new_head,
            awaiting_push: awaiting,
            resolved_after_push,
            interrupted: self.stopped(),
        })))
    }

    fn stopped(&self) -> bool {
        self.stop.load(Ordering::SeqCst)
    }

    /// Asks the judge (when there is one and the ladder is on) and plans again with its answers.
    async fn ask_judge(
        &self,
        pr: &PullRequest,
        signals: &SignalSet,
        triage: &mut TriageSettings,
        plan: &mut Plan,
    ) -> Result<(), AppError> {
        let narrator = self.narrator;
        match self.judge {
            Some(_) if triage.ladder == LadderMode::Off => {
                narrator.narrate("[triage] step 3 — --no-ladder: the judge is not asked");
            }
            Some(judge) => {
                let threads = review_core::judge::candidates(plan, signals);
                let judged = judge
                    .judge(JudgeRequest {
                        pr,
                        plan,
                        signals,
                        threads: &threads,
                        checkout_at_head: triage.fixes.checkout_at_head == Some(true),
                    })
                    .await
                    .map_err(AppError::port)?;
                triage.judged = judged.verdicts;
                *plan = plan::plan(pr, signals, triage);
                if judged.stopped {
                    self.stop.store(true, Ordering::SeqCst);
                    narrator.narrate(&format!(
                        "[triage] interrupted — {} threads had no answer from the judge; nothing is changed",
                        judged.interrupted.len()
                    ));
                    plan.interrupt(
                        &judged.interrupted.iter().cloned().collect(),
                        "interrupted before the judge answered",
                    );
                }
                narrate_judge(plan, judged.eligible, judge.max(), narrator);
            }
            None if triage.ladder == LadderMode::Off => {}
            None => {
                if plan
                    .threads
                    .iter()
                    .any(|p| p.report.class == Some(Class::Ambiguous))
                {
                    narrator.narrate(
                        "[triage] step 3 — no judge (--judge-cmd): the built-in ladder places the ambiguous bot threads",
                    );
                }
            }
        }
        Ok(())
    }

    /// Pushes the fix commits waiting for a push (`waiting`) to the PR's own branch, reads the
    /// PR again, and resolves the threads whose fixes are now on its head and that the tool may
    /// still act on. The push is refused, before anything is pushed, when the PR's head (as read
    /// at the start, and again just before the push) is not in HEAD's history: someone pushed to
    /// the branch since the checkout.
    async fn push_and_resolve(
        &self,
        vcs: &dyn Vcs,
        pr: &PullRequest,
        triage: &TriageSettings,
        host: &dyn ReviewHost,
        report: &mut Report,
        waiting: &[ThreadId],
    ) -> Result<PushDone, AppError> {
        let narrator = self.narrator;
        let refused = |why: String| {
            narrator.narrate(&format!("[triage] push — refused or failed: {why}"));
            Ok(PushDone::from(Pushed::Failed(why)))
        };
        let Some(pusher) = self.pusher else {
            return refused("no pusher is wired".to_owned());
        };
        let pr_head = pr.head_sha.0.as_str();
        if !self.history.has_commit(pr_head) || !self.history.is_ancestor(pr_head, "HEAD") {
            return refused(format!(
                "the pull request's head {} is not an ancestor of HEAD; pull or rebase onto it first",
                pr.head_sha.short()
            ));
        }
        // Every fix commit not yet on the PR: this run's, an earlier run's, and one committed at
        // the user's word in a person's thread (`interactive`), which is pushed but never
        // resolved.
        if waiting.is_empty() {
            narrator.narrate("[triage] push — no fix commit waits for a push; nothing pushed");
            return Ok(PushDone::from(Pushed::Nothing));
        }
        let local = vcs.head().map_err(|e| {
            AppError::new(
                ErrorKind::Failed,
                format!("cannot read the local HEAD: {e}"),
                None,
            )
        })?;
        let branch = &pr.head_ref;
        narrator.narrate(&format!(
            "[triage] push — pushing {} to {branch}",
            local.short()
        ));
        // Minutes may have passed since the read (the fixer, the checks): someone may have
        // pushed to the branch meanwhile. The push goes on top of the head as it is now, or not
        // at all.
        let now = match pusher.read_again(pr).await {
            Ok(now) => now,
            Err(e) => {
                return refused(format!(
                    "cannot read the pull request again before the push: {e}"
                ));
            }
        };
        let remote = match pusher.push(branch, &now) {
            Ok(remote) => remote,
            Err(why) => return refused(why),
        };
        narrator.narrate(&format!(
            "[triage] push — pushed to {remote}; reading the PR again"
        ));
        let short_of = |entry: &ThreadReport| {
            entry
                .commit
                .as_ref()
                .map_or_else(String::new, |c| c.short().to_owned())
        };
        for entry in report
            .threads
            .iter_mut()
            .filter(|t| t.human && waiting.contains(&t.id))
        {
            entry.reason = format!(
                "fixed in {}, pushed; thread left open for your reply",
                short_of(entry)
            );
        }
        let ids: Vec<ThreadId> = report
            .threads
            .iter()
            .filter(|t| !t.human && waiting.contains(&t.id))
            .map(|t| t.id.clone())
            .collect();
        let done = |resolved| PushDone {
            pushed: Pushed::To(local.clone()),
            resolved,
        };
        if ids.is_empty() {
            return Ok(done(Vec::new()));
        }
        let after = pusher.read_again(pr).await.map_err(AppError::port)?;
        if after.head_sha != local {
            narrator.narrate(
                "[triage] push — GitHub does not show the push yet; run again to resolve the fixed threads",
            );
            return Ok(done(Vec::new()));
        }
        // Minutes may have passed since the read the plan came from: read again just before.
        let mut left = Vec::new();
        let ids = execute::recheck(&after, triage, host, &ids, &mut |id, why, text| {
            left.push((id.clone(), why, text));
        })
        .await;
        for (id, _, text) in left {
            if let Some(entry) = report.threads.iter_mut().find(|t| t.id == id) {
                entry.reason = format!("fixed in {}, pushed; {text}", short_of(entry));
            }
        }
        if !ids.is_empty() {
            narrator.narrate(&format!(
                "[triage] push — resolving {} without reply",
                counted(ids.len(), "fixed thread", "fixed threads")
            ));
        }
        let results = host.resolve_threads(&ids).await;
        let mut resolved = Vec::new();
        for (id, result) in ids.iter().zip(results) {
            let Some(entry) = report.threads.iter_mut().find(|t| &t.id == id) else {
                continue;
            };
            let short = short_of(entry);
            entry.reason = match result {
                Ok(()) => {
                    resolved.push(id.clone());
                    format!("fixed in {short}, pushed; resolved")
                }
                Err(e) => format!(
                    "fixed in {short}, pushed; resolving failed ({e}): the next run retries"
                ),
            };
        }
        Ok(done(resolved))
    }
}

/// What the push came to, and the threads resolved after it.
struct PushDone {
    pushed: Pushed,
    resolved: Vec<ThreadId>,
}

impl From<Pushed> for PushDone {
    fn from(pushed: Pushed) -> Self {
        Self {
            pushed,
            resolved: Vec::new(),
        }
    }
}

/// Says which bot summaries are of an older head, and so are skipped.
fn narrate_stale(pr: &PullRequest, triage: &TriageSettings, narrator: &dyn Narrator) {
    let stale = review_classify::stale_summaries(pr, &triage.automation);
    if stale.is_empty() {
        return;
    }
    let list: Vec<String> = stale
        .iter()
        .map(|s| {
            format!(
                "{} (reviewed {})",
                s.who,
                s.reviewed.get(..7).unwrap_or(&s.reviewed)
            )
        })
        .collect();
    narrator.narrate(&format!(
        "[triage] step 4 — skip {}, not of the head {}: {}",
        counted(stale.len(), "stale bot summary", "stale bot summaries"),
        pr.head_sha.short(),
        list.join(", ")
    ));
}

/// Says what the judge's answers came to: how many it answered, failed, and the hard gates
/// that overrode it.
fn narrate_judge(plan: &Plan, eligible: usize, max: Option<usize>, narrator: &dyn Narrator) {
    use std::fmt::Write as _;
    let reports: Vec<_> = plan
        .threads
        .iter()
        .filter_map(|p| p.report.judge.as_ref().map(|j| (&p.report.id, j)))
        .collect();
    let failed = reports.iter().filter(|(_, j)| j.failed).count();
    let gated: Vec<_> = reports.iter().filter(|(_, j)| j.gate.is_some()).collect();
    let mut line = format!(
        "[triage] step 3 — the judge answered for {} of {}",
        reports.len() - failed,
        counted(eligible, "bot thread", "bot threads")
    );
    if failed > 0 {
        let _ = write!(line, " ({failed} failed: the reader's class stands)");
    }
    if let Some(max) = max
        && eligible > max
    {
        let others = match eligible - max {
            1 => "the other one keeps".to_owned(),
            n => format!("the other {n} keep"),
        };
        let _ = write!(line, "; --judge-max {max}: {others} the reader's class");
    }
    narrator.narrate(&line);
    for (id, judge) in gated {
        narrator.narrate(&format!(
            "[triage] step 3 — a hard gate held over the judge's answer for {id}: {}",
            judge.gate.as_deref().unwrap_or_default()
        ));
    }
}

/// Offers, one by one, the bot suggestions in threads a person took part in, and commits each
/// one the user accepts. Nothing is resolved or replied to: the thread stays open for the
/// user's own reply, and its report line says "fixed in SHA, thread left open for your reply".
fn offer_human_fixes(
    vcs: &dyn Vcs,
    pr: &PullRequest,
    signals: &SignalSet,
    triage: &TriageSettings,
    report: &mut Report,
    prompt: &dyn Prompt,
    narrator: &dyn Narrator,
) {
    if triage.fixes.checkout_at_head != Some(true) {
        narrator
            .narrate("[triage] --interactive: the checkout is not at the PR head; no fix offered");
        return;
    }
    let dirty = vcs.dirty_paths().unwrap_or_default();
    for entry in report.threads.iter_mut().filter(|t| {
        t.human
            && t.outcome == ThreadOutcome::Deferred
            && t.deferred_because == Some(DeferReason::Human)
    }) {
        let (Some(thread), Some(sig)) = (pr.thread(&entry.id), signals.threads.get(&entry.id))
        else {
            continue;
        };
        let Concreteness::Suggestion(suggestion) = &sig.concreteness else {
            continue;
        };
        let fixed_before = triage.history.pending.contains_key(&entry.id)
            || triage.history.landed.contains_key(&entry.id);
        if fixed_before
            || sig.design_decision
            || plan::is_denied(&thread.path, &triage.fixes.denied_paths)
            || dirty.contains(&thread.path)
        {
            continue;
        }
        let offer = HumanFixOffer {
            entry,
            path: &thread.path,
            title: &sig.title,
            suggestion,
            lines: suggestion.lines.or(thread.lines),
        };
        if !prompt.ask(&offer) {
            continue;
        }
        let task = plan::FixTask {
            thread: thread.id.clone(),
            path: thread.path.clone(),
            lines: thread.lines,
            reviewer: sig.family.clone().unwrap_or_else(|| "bot".to_owned()),
            title: sig.title.clone(),
            material: plan::FixMaterial::Suggestion(suggestion.clone()),
        };
        let committed =
            execute::write_suggestion(pr, &task, suggestion, vcs).and_then(|original| {
                execute::commit_fix(
                    &task,
                    std::slice::from_ref(&thread.path),
                    Some(&original),
                    vcs,
                )
            });
        match committed {
            Ok(commit) => {
                entry.reason = format!(
                    "fixed in {}, thread left open for your reply",
                    commit.short()
                );
                entry.commit = Some(commit);
                report.applied = true;
            }
            Err(why) => narrator.narrate(&format!("[triage] {}: {why}; not fixed", entry.id)),
        }
    }
}
