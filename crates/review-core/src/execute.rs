//! The executor: carries a [`Plan`] out through the ports, and reports what happened.
//!
//! Before the first mutation it checks the plan against the PR it was made from and refuses a
//! plan that would touch a human thread, a thread not read whole, or a thread it does not know:
//! the planner never makes such a plan, and the executor does not trust that it did not.
//!
//! Fixes are committed one per thread, staging only the edited paths. A fixed thread is not
//! resolved here: it resolves once its commit is on the PR head (a later run), so its report line
//! says "fixed in SHA, resolves after push".

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, Ordering};

use crate::model::{CommitId, PullRequest, ThreadId};
use crate::plan::{Action, FixMaterial, FixTask, Plan, TriageSettings, is_denied};
use crate::ports::{Fixer, ReviewHost, Vcs, VcsError};
use crate::report::{DeferReason, Outcome, ReconcileError, Report, ThreadReport};
use crate::suggestion;
use crate::text::counted;

/// Why a plan was not carried out. Nothing was mutated when this is returned, except for
/// [`ExecuteError::Reconcile`], which reports a bug after the fact.
#[derive(Debug, thiserror::Error)]
pub enum ExecuteError {
    /// The plan asks for a mutation the rules forbid.
    #[error("refusing the plan: thread {thread} {why}")]
    PlanViolation {
        /// The thread.
        thread: ThreadId,
        /// What is wrong with acting on it.
        why: &'static str,
    },
    /// The outcomes do not reconcile with the threads read.
    #[error(transparent)]
    Reconcile(#[from] ReconcileError),
}

/// The result of carrying out a plan.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Execution {
    /// The report, `applied` set when anything changed.
    pub report: Report,
    /// `[triage] ...` lines describing what was done.
    pub narration: Vec<String>,
}

/// Where fixes are made. Without a workspace, planned fixes are deferred.
#[derive(Clone, Copy)]
pub struct Workspace<'a> {
    /// The local repository.
    pub vcs: &'a dyn Vcs,
    /// The fixer for fixes that are not suggestion blocks, if one is configured.
    pub fixer: Option<&'a dyn Fixer>,
}

impl std::fmt::Debug for Workspace<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Workspace")
            .field("fixer", &self.fixer.is_some())
            .finish_non_exhaustive()
    }
}

/// Checks that every mutation in `plan` is on a thread the rules allow the tool to touch.
pub fn check_plan(
    pr: &PullRequest,
    plan: &Plan,
    settings: &TriageSettings,
) -> Result<(), ExecuteError> {
    for p in plan.threads.iter().filter(|p| p.action.mutates()) {
        let violation = |why| ExecuteError::PlanViolation {
            thread: p.report.id.clone(),
            why,
        };
        let thread = pr
            .thread(&p.report.id)
            .ok_or_else(|| violation("is not in the PR read"))?;
        if thread.is_resolved {
            return Err(violation("is already resolved"));
        }
        if thread.is_outdated
            && !(p.action == Action::Resolve && settings.history.landed.contains_key(&thread.id))
        {
            return Err(violation("is outdated"));
        }
        if let Err(refusal) = settings.automation.may_act(thread, pr) {
            return Err(violation(match refusal {
                crate::gate::Refusal::NotReadWhole => "was not read whole",
                crate::gate::Refusal::Reopened => "was reopened after the tool resolved it",
                crate::gate::Refusal::UnsafePath => "has a path with a control character",
                _ => "has human participation",
            }));
        }
        if let Action::Fix(task) = &p.action {
            if task.thread != thread.id || task.path != thread.path {
                return Err(violation("has a fix aimed at another thread or file"));
            }
            if is_denied(&task.path, &settings.fixes.denied_paths) {
                return Err(violation("has a fix on a deny-listed path"));
            }
        }
    }
    Ok(())
}

/// The commit message for a fix: `fix: address <bot> <title>` with a trailer naming the thread.
pub fn commit_message(task: &FixTask) -> String {
    let title: String = task
        .title
        .lines()
        .next()
        .unwrap_or("")
        .chars()
        .take(72)
        .collect();
    let title = if title.trim().is_empty() {
        format!("finding in {}", task.path)
    } else {
        title.trim().to_owned()
    };
    format!(
        "fix: address {} {title}\n\nReview-Thread: {}\n",
        task.reviewer, task.thread
    )
}

/// Carries out `plan` on `pr`: makes the planned fixes in `workspace` (one commit each) and
/// resolves the planned threads on `host`. Returns the report of what happened.
pub async fn execute(
    pr: &PullRequest,
    plan: &Plan,
    settings: &TriageSettings,
    host: &dyn ReviewHost,
    workspace: Option<Workspace<'_>>,
) -> Result<Execution, ExecuteError> {
    execute_until(pr, plan, settings, host, workspace, &AtomicBool::new(false)).await
}

/// [`execute`], stopping at the next checkpoint (before a fix, before the resolves) once `stop`
/// is set (by Ctrl-C, say). Threads not reached are deferred as "interrupted", so the report
/// still accounts for every thread.
pub async fn execute_until(
    pr: &PullRequest,
    plan: &Plan,
    settings: &TriageSettings,
    host: &dyn ReviewHost,
    workspace: Option<Workspace<'_>>,
    stop: &AtomicBool,
) -> Result<Execution, ExecuteError> {
    execute_narrated(pr, plan, settings, host, workspace, stop, &|_| {}).await
}

/// [`execute_until`], telling `narrate` each narration line as it happens: as each fix starts
/// and ends, before the resolves. A fix or a fixer can take minutes; a caller that shows the
/// lines only from [`Execution::narration`] leaves its user in silence meanwhile.
pub async fn execute_narrated(
    pr: &PullRequest,
    plan: &Plan,
    settings: &TriageSettings,
    host: &dyn ReviewHost,
    workspace: Option<Workspace<'_>>,
    stop: &AtomicBool,
    narrate: &(dyn Fn(&str) + Sync),
) -> Result<Execution, ExecuteError> {
    check_plan(pr, plan, settings)?;
    let mut entries: Vec<ThreadReport> = plan.threads.iter().map(|p| p.report.clone()).collect();
    let mut narration = Narration {
        lines: Vec::new(),
        sink: narrate,
    };
    let mut applied = false;
    let index: BTreeMap<ThreadId, usize> = entries
        .iter()
        .enumerate()
        .map(|(i, e)| (e.id.clone(), i))
        .collect();

    // Fixes, one commit per thread.
    let fixes: Vec<&FixTask> = plan
        .threads
        .iter()
        .filter_map(|p| match &p.action {
            Action::Fix(task) => Some(task),
            _ => None,
        })
        .collect();
    let mut fixed: BTreeMap<ThreadId, CommitId> = BTreeMap::new();
    // Nits whose fix could not be made: resolved, as a nit is when no fix is planned.
    let mut unfixed_nits: Vec<ThreadId> = Vec::new();
    if !fixes.is_empty() {
        let outcome = make_fixes(pr, settings, &fixes, workspace, stop, &mut narration).await;
        for (thread, result) in outcome {
            let entry = &mut entries[index[&thread]];
            match result {
                Ok(commit) => {
                    applied = true;
                    entry.reason = format!("fixed in {}, resolves after push", commit.short());
                    entry.commit = Some(commit.clone());
                    fixed.insert(thread, commit);
                }
                Err((why, text))
                    if entry.class == Some(crate::rules::Class::Nit)
                        && why != DeferReason::Interrupted =>
                {
                    entry.outcome = Outcome::Resolved;
                    entry.reason = format!("a nit, not fixed ({text}): resolve");
                    unfixed_nits.push(thread);
                }
                Err((why, text)) => defer(entry, why, text),
            }
        }
    }

    // Duplicates follow their leader's fix.
    for p in &plan.threads {
        if let Action::FollowFix { leader } = &p.action {
            let entry = &mut entries[index[&p.report.id]];
            match fixed.get(leader) {
                Some(commit) => {
                    entry.reason = format!(
                        "duplicate of {leader}, fixed in {}; resolves after push",
                        commit.short()
                    );
                    entry.commit = Some(commit.clone());
                }
                None => defer(
                    entry,
                    DeferReason::Duplicate,
                    format!("duplicate of {leader}, whose fix was not made"),
                ),
            }
        }
    }

    // Resolves, in one batch.
    let to_resolve: Vec<ThreadId> = plan
        .threads
        .iter()
        .filter(|p| p.action == Action::Resolve)
        .map(|p| p.report.id.clone())
        .chain(unfixed_nits)
        .collect();
    if !to_resolve.is_empty() && stop.load(Ordering::SeqCst) {
        narration.say("[triage] interrupted — stopping before the resolves".to_owned());
        for id in &to_resolve {
            defer(
                &mut entries[index[id]],
                DeferReason::Interrupted,
                "interrupted before it was resolved".to_owned(),
            );
        }
    } else if !to_resolve.is_empty() {
        // The plan was made from a read minutes old (a judge and a fixer ran since): a person may
        // have replied meanwhile. Read again just before the batch, and leave what changed.
        let to_resolve = recheck(pr, settings, host, &to_resolve, &mut |id, why, text| {
            defer(&mut entries[index[id]], why, text);
        })
        .await;
        let outcomes: Vec<Outcome> = to_resolve
            .iter()
            .map(|id| entries[index[id]].outcome)
            .collect();
        narration.say(resolving_line(&outcomes));
        let results = if to_resolve.is_empty() {
            Vec::new()
        } else {
            host.resolve_threads(&to_resolve).await
        };
        for (i, id) in to_resolve.iter().enumerate() {
            let entry = &mut entries[index[id]];
            match results.get(i) {
                Some(Ok(())) => {
                    applied = true;
                    // "…, which is on the PR; resolve" was the plan: it is done.
                    if entry.reason.ends_with("; resolve") {
                        entry.reason.push('d');
                    }
                }
                Some(Err(e)) => defer(
                    entry,
                    DeferReason::HostError,
                    format!("resolve failed: {e}"),
                ),
                None => defer(
                    entry,
                    DeferReason::HostError,
                    "resolve failed: the host gave no result for this thread".to_owned(),
                ),
            }
        }
    }

    let report = Report::new(pr, applied, entries)?;
    Ok(Execution {
        report,
        narration: narration.lines,
    })
}

/// The narration of a run: each line told to the caller's sink as it happens, and kept.
struct Narration<'a> {
    lines: Vec<String>,
    sink: &'a (dyn Fn(&str) + Sync),
}

impl Narration<'_> {
    fn say(&mut self, line: String) {
        (self.sink)(&line);
        self.lines.push(line);
    }
}

/// Reads `pr` again through `host` and keeps those of `threads` the tool may still act on;
/// `deferred` hears each one it may not, with why. A read that fails leaves every one of them.
pub async fn recheck(
    pr: &PullRequest,
    settings: &TriageSettings,
    host: &dyn ReviewHost,
    threads: &[ThreadId],
    deferred: &mut dyn FnMut(&ThreadId, DeferReason, String),
) -> Vec<ThreadId> {
    let fresh = match host.pull_request(&pr.repo, pr.number).await {
        Ok(fresh) => fresh,
        Err(e) => {
            for id in threads {
                deferred(
                    id,
                    DeferReason::HostError,
                    format!("not resolved: the threads could not be read again first ({e})"),
                );
            }
            return Vec::new();
        }
    };
    let mut keep = Vec::new();
    for id in threads {
        match fresh.thread(id) {
            None => deferred(
                id,
                DeferReason::HostError,
                "not resolved: the thread is gone from the pull request".to_owned(),
            ),
            Some(thread) => match settings.automation.may_act(thread, &fresh) {
                Ok(()) => keep.push(id.clone()),
                Err(refusal) => {
                    let why = match refusal {
                        crate::gate::Refusal::NotReadWhole => DeferReason::Incomplete,
                        crate::gate::Refusal::Reopened => DeferReason::Reopened,
                        crate::gate::Refusal::UnsafePath => DeferReason::UnsafePath,
                        _ => DeferReason::Human,
                    };
                    deferred(
                        id,
                        why,
                        format!("not resolved: since it was read, {refusal}"),
                    );
                }
            },
        }
    }
    keep
}

/// The narration of the resolves: how many threads, and under which count each is, when not
/// all are counted as resolved (a thread whose fix is on the PR is actioned or promoted, one
/// outdated by its own fix is outdated).
fn resolving_line(outcomes: &[Outcome]) -> String {
    let mut line = format!(
        "[triage] step 4 — resolving {} without reply",
        counted(outcomes.len(), "thread", "threads")
    );
    if outcomes.iter().all(|o| *o == Outcome::Resolved) {
        return line;
    }
    let n = |wanted: Outcome| outcomes.iter().filter(|o| **o == wanted).count();
    let parts: Vec<String> = [
        (
            Outcome::Resolved,
            "nit or duplicate",
            "nits or duplicates",
            "",
        ),
        (
            Outcome::Actioned,
            "whose fix is on the PR",
            "whose fix is on the PR",
            " (counted as actioned)",
        ),
        (
            Outcome::Promoted,
            "whose fix is on the PR",
            "whose fix is on the PR",
            " (counted as promoted)",
        ),
        (
            Outcome::Outdated,
            "outdated by its own fix",
            "outdated by their own fix",
            " (counted as outdated)",
        ),
    ]
    .into_iter()
    .filter(|(outcome, ..)| n(*outcome) > 0)
    .map(|(outcome, one, many, count)| format!("{}{count}", counted(n(outcome), one, many)))
    .collect();
    line.push_str(": ");
    line.push_str(&parts.join(", "));
    line
}

/// Leaves `entry` open, with why. An outdated thread stays counted as outdated (its own line in
/// the counts), with the reason it was not resolved.
fn defer(entry: &mut ThreadReport, why: DeferReason, text: String) {
    if entry.outcome == Outcome::Outdated {
        entry.deferred_because = Some(why);
        entry.reason = text;
        return;
    }
    entry.outcome = Outcome::Deferred;
    entry.deferred_because = Some(why);
    entry.reason = text;
    entry.commit = None;
}

type FixResult = Result<CommitId, (DeferReason, String)>;

/// Writes `suggestion` into the file of `task`, exactly over the thread's lines, if the file
/// still reads as the comment's diff hunk. Returns the file's text before, or why nothing was
/// written.
pub fn write_suggestion(
    pr: &PullRequest,
    task: &FixTask,
    suggestion: &crate::signals::Suggestion,
    vcs: &dyn Vcs,
) -> Result<String, String> {
    let text = match vcs.read_file(&task.path) {
        Ok(Some(text)) => text,
        Ok(None) => return Err(format!("{} does not exist in the checkout", task.path)),
        Err(e) => return Err(format!("cannot read {}: {e}", task.path)),
    };
    let hunk = pr
        .thread(&task.thread)
        .and_then(|t| t.first_comment())
        .and_then(|c| c.diff_hunk.as_deref());
    let new = suggestion::apply(
        &text,
        suggestion.lines.or(task.lines),
        &suggestion.replacement,
        hunk,
    )
    .map_err(|e| e.to_string())?;
    if new == text {
        return Err("the suggestion changes nothing in the file".to_owned());
    }
    vcs.write_file(&task.path, &new)
        .map_err(|e| format!("cannot write {}: {e}", task.path))?;
    Ok(text)
}

/// Applies the diff block `patch` to the file of `task`, where its context and removed lines
/// stand exactly once. Returns the file's text before, or why nothing was written.
pub fn write_patch(task: &FixTask, patch: &str, vcs: &dyn Vcs) -> Result<String, String> {
    let text = match vcs.read_file(&task.path) {
        Ok(Some(text)) => text,
        Ok(None) => return Err(format!("{} does not exist in the checkout", task.path)),
        Err(e) => return Err(format!("cannot read {}: {e}", task.path)),
    };
    let new = suggestion::Patch::parse(patch, &task.path)
        .and_then(|p| p.apply(&text))
        .map_err(|e| e.to_string())?;
    if new == text {
        return Err("the diff block changes nothing in the file".to_owned());
    }
    vcs.write_file(&task.path, &new)
        .map_err(|e| format!("cannot write {}: {e}", task.path))?;
    Ok(text)
}

/// Commits `edited` as the fix of `task` (one commit, those paths only, with the thread's
/// trailer). If the commit fails, the task's file is put back to `original` when given, so
/// nothing half-done is left; returns why.
pub fn commit_fix(
    task: &FixTask,
    edited: &[String],
    original: Option<&str>,
    vcs: &dyn Vcs,
) -> Result<CommitId, String> {
    vcs.commit_paths(edited, &commit_message(task))
        .map_err(|e| {
            if let Some(original) = original {
                let _ = vcs.write_file(&task.path, original);
            }
            match e {
                VcsError::CommitRejected(why) => format!("commit rejected: {why}"),
                other => format!("commit failed: {other}"),
            }
        })
}

async fn make_fixes(
    pr: &PullRequest,
    settings: &TriageSettings,
    fixes: &[&FixTask],
    workspace: Option<Workspace<'_>>,
    stop: &AtomicBool,
    narration: &mut Narration<'_>,
) -> Vec<(ThreadId, FixResult)> {
    let all = |why: DeferReason, text: &str| -> Vec<(ThreadId, FixResult)> {
        fixes
            .iter()
            .map(|t| (t.thread.clone(), Err((why, text.to_owned()))))
            .collect()
    };
    let Some(ws) = workspace else {
        return all(
            DeferReason::NotAtHead,
            "no local checkout to make the fix in",
        );
    };
    // The caller may know better: the PR head plus only the tool's own fix commits is "at head".
    let vouched = settings.fixes.checkout_at_head == Some(true);
    match ws.vcs.head() {
        Ok(head) if head == pr.head_sha || vouched => {}
        Ok(_) => {
            return all(
                DeferReason::NotAtHead,
                "local checkout is not at the PR head",
            );
        }
        Err(e) => {
            return all(
                DeferReason::NotAtHead,
                &format!("cannot read the local HEAD: {e}"),
            );
        }
    }
    let dirty = match ws.vcs.dirty_paths() {
        Ok(d) => d,
        Err(e) => {
            return all(
                DeferReason::DirtyFile,
                &format!("cannot read the working tree state: {e}"),
            );
        }
    };
    let mut out = Vec::new();
    let mut stopped: Option<String> = None;
    for task in fixes {
        if stop.load(Ordering::SeqCst) {
            out.push((
                task.thread.clone(),
                Err((
                    DeferReason::Interrupted,
                    "interrupted before the fix was made".to_owned(),
                )),
            ));
            continue;
        }
        if let Some(why) = &stopped {
            out.push((
                task.thread.clone(),
                Err((DeferReason::FixFailed, why.clone())),
            ));
            continue;
        }
        if dirty.iter().any(|d| d == &task.path) {
            out.push((
                task.thread.clone(),
                Err((
                    DeferReason::DirtyFile,
                    format!(
                        "{} has uncommitted changes; not mixing them into a fix",
                        task.path
                    ),
                )),
            ));
            continue;
        }
        narration.say(format!(
            "[triage] step 3 — applying fix for thread {} ({}){}",
            task.thread,
            task.path,
            if matches!(task.material, FixMaterial::Fixer) {
                ": the fixer is working on it"
            } else {
                ""
            }
        ));
        let result = fix_one(pr, task, ws, &dirty, &settings.fixes.denied_paths).await;
        narration.say(match &result {
            Ok(commit) => format!(
                "[triage] step 3 — fixed thread {} in {}",
                task.thread,
                commit.short()
            ),
            Err((_, why)) => format!("[triage] step 3 — thread {} not fixed: {why}", task.thread),
        });
        if let Err((DeferReason::FixFailed, text)) = &result
            && text.starts_with("commit rejected")
        {
            stopped = Some(format!("not attempted: an earlier {text}"));
        }
        out.push((task.thread.clone(), result));
    }
    out
}

async fn fix_one(
    pr: &PullRequest,
    task: &FixTask,
    ws: Workspace<'_>,
    dirty: &[String],
    denied: &[String],
) -> FixResult {
    let failed = |text: String| Err((DeferReason::FixFailed, text));
    let (edited, original) = match &task.material {
        FixMaterial::Suggestion(s) => match write_suggestion(pr, task, s, ws.vcs) {
            Ok(original) => (vec![task.path.clone()], Some(original)),
            Err(why) => return failed(why),
        },
        FixMaterial::Diff { patch } => match write_patch(task, patch, ws.vcs) {
            Ok(original) => (vec![task.path.clone()], Some(original)),
            Err(why) => return failed(why),
        },
        FixMaterial::Fixer => {
            let Some(fixer) = ws.fixer else {
                return Err((
                    DeferReason::NoFixer,
                    "actionable, no fixer configured".to_owned(),
                ));
            };
            match fixer.fix(task).await {
                Ok(out) if out.edited.is_empty() => {
                    return failed("the fixer changed nothing".to_owned());
                }
                Ok(out) => (out.edited, None),
                Err(e) => return failed(e.to_string()),
            }
        }
    };
    let fixer_made = matches!(task.material, FixMaterial::Fixer);
    let undo = |why: String| async move {
        if fixer_made && let Some(fixer) = ws.fixer {
            return match fixer.discard(task).await {
                Ok(()) => format!("{why}; its edit was undone"),
                Err(e) => format!("{why}; its edit could not be undone ({e})"),
            };
        }
        why
    };
    if let Some(p) = edited.iter().find(|p| is_denied(p, denied)) {
        return Err((
            DeferReason::DenyListed,
            undo(format!(
                "the fixer edited {p}, which is on the deny list; not committing"
            ))
            .await,
        ));
    }
    if let Some(p) = edited.iter().find(|p| dirty.contains(p)) {
        return Err((
            DeferReason::DirtyFile,
            undo(format!(
                "the fixer edited {p}, which had uncommitted changes; not committing"
            ))
            .await,
        ));
    }
    match commit_fix(task, &edited, original.as_deref(), ws.vcs) {
        Ok(commit) => Ok(commit),
        Err(why) => Err((DeferReason::FixFailed, undo(why).await)),
    }
}
