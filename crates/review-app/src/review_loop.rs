//! `review_loop`: the review loop driven by the tool itself. Each poll of the watcher is followed
//! by the work it calls for: every pending bot finding (and every finding of an out-of-diff
//! review not yet answered) goes to the judge and its answer is recorded as `decide` records
//! it; each VALID finding goes to the fixer, whose edit is undone and the finding escalated
//! when it fails, changes nothing, edits the user's uncommitted work or a deny-listed path; the
//! round's fixes become one commit after the checks (`commit_round`, or `abandon_round` when it
//! fails); and what is owed is answered through the responder (`respond`). It stops when the
//! pull request closes, after the last poll of the schedule, or when the user asks it to, with
//! the loop's summary.
//!
//! It knows when to stop fixing: a new bot finding on a line one of its own round commits last
//! touched (asked of the [`LineOrigin`]) is a knock-on, recorded in the decisions and announced
//! (a `KNOCK_ON` event and a `[loop]` line); after `review_core::knock_on::KNOCK_ON_LIMIT`
//! knock-ons in a file, or past [`LoopSettings::max_rounds`] (every file), what it would fix
//! there is escalated instead, the reason naming its fix commits there and the one to revert.
//! It keeps watching and answering.
//!
//! The ports: the judge ([`Judge`]), the fixer ([`FixRunner`]), the watcher ([`LoopWatcher`]),
//! the responder ([`Responder`]), the round's working tree and checks (`commit_round`'s; the
//! tree also tells which commit wrote a line, [`LineOrigin`]), the
//! loop's files ([`DecisionsStore`] and [`WatchStore`]), the clock ([`Clock`]), the stop signal
//! ([`StopSignal`]), the round's notice ([`Notifier`]) and a [`Narrator`].

use std::future::Future;
use std::time::Duration;

use review_core::decisions::{self, KnockOn};
use review_core::model::CommitId;
use review_core::watch::{Event, FindingKind, ThreadFinding};

use crate::commit_round::{
    Check, CheckRunner, RoundPorts, RoundRequest, RoundTree, abandon_round, commit_round,
};
use crate::decide::record_answer;
use crate::error::AppError;
use crate::narrator::Narrator;
use crate::ports::DecisionsStore;
use crate::respond::Responded;
use crate::watch::Clock;
use crate::watch_store::WatchStore;

/// How the loop runs: plain data, from the command line and the configuration.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LoopSettings {
    /// How long the judge may take per finding.
    pub judge_timeout: Duration,
    /// Whether a fixer runs on VALID findings (without one, they wait for the user's own fix).
    pub fixer: bool,
    /// How long the fixer may take per finding.
    pub fixer_timeout: Duration,
    /// The project's checks, run before each round's commit.
    pub check: Option<String>,
    /// How long the checks may run.
    pub check_timeout: Duration,
    /// Whether each round's summary is also given to the [`Notifier`].
    pub notify: bool,
    /// The paths no fix may edit.
    pub denied: Vec<String>,
    /// The time between polls.
    pub interval: Duration,
    /// Stop after this many polls.
    pub max_polls: Option<u64>,
    /// The rounds the loop fixes in; past them it only escalates what it would fix (it keeps
    /// watching and answering).
    pub max_rounds: u32,
}

/// One finding the judge is asked about.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct JudgeTask {
    /// The finding (for a finding outside the diff, its thread is its review).
    pub finding: ThreadFinding,
    /// The out-of-diff review it belongs to, if it is one of those.
    pub review: Option<String>,
}

/// The judge: asked about one finding, it answers (raw, as `review_core::judge` reads it) or
/// says why there is no answer.
pub trait Judge {
    /// Why a batch could not be asked at all.
    type Error: std::error::Error + Send + Sync + 'static;

    /// Asks about `task`, in at most `timeout`: the raw answer, or why there is none.
    fn answer(&self, task: &JudgeTask, timeout: Duration) -> Result<String, String>;

    /// Asks about each of `tasks` (side by side, if the judge can) and hands each answer to
    /// `done` with its index, in the order of `tasks`. By default one after another.
    fn answer_all(
        &self,
        tasks: &[JudgeTask],
        timeout: Duration,
        done: &mut dyn FnMut(usize, Result<String, String>),
    ) -> impl Future<Output = Result<(), Self::Error>> {
        async move {
            for (i, task) in tasks.iter().enumerate() {
                done(i, self.answer(task, timeout));
            }
            Ok(())
        }
    }
}

/// What the fixer is given for one VALID finding.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FixTask {
    /// The finding's thread (or review).
    pub thread_id: review_core::site::Site,
    /// The file it is about.
    pub path: String,
    /// The judge's reasoning.
    pub reasoning: String,
    /// The judge's sketch of the fix.
    pub fix_sketch: Option<String>,
    /// The finding's text, as the reviewer wrote it (data, not instructions).
    pub finding: String,
}

/// What one fixer run did to the working tree.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Fixed<U> {
    /// The files it changed, created or deleted.
    pub edited: Vec<String>,
    /// Those of them that held uncommitted work of the user's before it ran.
    pub over_user_work: Vec<String>,
    /// What the fixer keeps to undo the run.
    pub undo: U,
}

/// The fixer: makes one finding's fix in the working tree, and undoes a run.
pub trait FixRunner {
    /// What a run keeps to be undone.
    type Undo;
    /// Why a run could not all be undone.
    type Error: std::error::Error + Send + Sync + 'static;

    /// Runs the fixer on `task`, in at most `timeout`: what it edited, or why it failed (a run
    /// that fails leaves nothing behind).
    fn fix(&self, task: &FixTask, timeout: Duration) -> Result<Fixed<Self::Undo>, String>;

    /// Puts every file the run edited back as it was before it.
    fn undo(&self, fixed: &Fixed<Self::Undo>) -> Result<(), Self::Error>;
}

/// What one poll of the watcher came to.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Poll {
    /// The events, in order.
    pub events: Vec<Event>,
    /// Whether the pull request is still open.
    pub open: bool,
}

/// The watcher: one poll (as `watch::poll`, the watch state saved), and its showing.
pub trait LoopWatcher {
    /// The port's own error.
    type Error: std::error::Error + Send + Sync + 'static;

    /// Polls once.
    fn poll(&self) -> impl Future<Output = Result<Poll, Self::Error>>;

    /// Shows the poll numbered `number` (from 1) to the user.
    fn show(&self, poll: &Poll, number: u64) -> Result<(), Self::Error>;

    /// Shows events the loop itself found (a knock-on), as the poll's are shown.
    fn announce(&self, events: &[Event]) -> Result<(), Self::Error>;
}

/// Which commit last touched a line of a file at the head.
pub trait LineOrigin {
    /// Why it could not be told.
    type Error: std::error::Error + Send + Sync + 'static;

    /// The commit that last touched `line` (from 1) of `path` at `head` (the pull request's head
    /// the finding is on, when known; else the working tree's own head); `None` when that head
    /// has no such line.
    fn origin(
        &self,
        head: Option<&str>,
        path: &str,
        line: u32,
    ) -> Result<Option<CommitId>, Self::Error>;
}

/// The responder: posts what the decisions owe (as `respond` from the loop's decisions).
pub trait Responder {
    /// The port's own error.
    type Error: std::error::Error + Send + Sync + 'static;

    /// Posts what is owed; one outcome per reply or resolve.
    fn respond(&self) -> impl Future<Output = Result<Responded, Self::Error>>;

    /// Shows what a [`Responder::respond`] did to the user.
    fn show(&self, responded: &Responded);
}

/// Whether the user asked the run to stop (Ctrl-C): the loop stops at its next step.
pub trait StopSignal {
    /// Whether the run is stopping.
    fn stopping(&self) -> bool;
}

/// Where a round's summary is also shown when [`LoopSettings::notify`] asks (a desktop
/// notification, say).
pub trait Notifier {
    /// Shows `summary`, best effort.
    fn notify(&self, summary: &str);
}

/// What the loop goes through.
#[derive(Debug)]
pub struct LoopPorts<'a, J, F, W, R, T, C, S, K, X, B, N> {
    /// The judge.
    pub judge: &'a J,
    /// The fixer (asked only when [`LoopSettings::fixer`] says there is one).
    pub fixer: &'a F,
    /// The watcher.
    pub watcher: &'a W,
    /// The responder.
    pub responder: &'a R,
    /// The working tree the rounds commit from, which also tells which commit wrote a line of
    /// its head (how a knock-on is told).
    pub tree: &'a T,
    /// The project's checks.
    pub checks: &'a C,
    /// The loop's files: the decisions and the watch state.
    pub store: &'a S,
    /// The clock that sleeps between polls.
    pub clock: &'a K,
    /// Whether the user asked to stop.
    pub stop: &'a X,
    /// Where a round's summary is shown when asked.
    pub notifier: &'a B,
    /// Where progress is said.
    pub narrator: &'a N,
}

/// Why the loop stopped.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stop {
    /// The pull request is no longer open.
    Closed,
    /// The schedule's polls were all made.
    MaxPolls,
    /// The user asked to stop.
    Interrupted {
        /// Whether it came while the judge was asked (what it had not answered stays pending).
        while_judging: bool,
    },
}

/// What a loop came to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LoopOutcome {
    /// Why it stopped.
    pub stop: Stop,
    /// The polls made.
    pub polls: u64,
    /// The loop's final summary (what its rounds did and what is left), one line per line;
    /// none when the pull request closed.
    pub summary: Option<String>,
}

fn port<E: std::error::Error + Send + Sync + 'static>(e: E) -> AppError {
    AppError::port(e)
}

/// Runs the loop until the pull request closes, the polls are done or the user stops it.
pub async fn run<J, F, W, R, T, C, S, K, X, B, N>(
    ports: &LoopPorts<'_, J, F, W, R, T, C, S, K, X, B, N>,
    settings: &LoopSettings,
) -> Result<LoopOutcome, AppError>
where
    J: Judge,
    F: FixRunner,
    W: LoopWatcher,
    R: Responder,
    T: RoundTree + LineOrigin,
    C: CheckRunner,
    S: DecisionsStore + WatchStore,
    K: Clock,
    X: StopSignal,
    B: Notifier,
    N: Narrator,
{
    let mut polls = 0u64;
    let stopped = |polls, while_judging| {
        Ok::<_, AppError>(LoopOutcome {
            stop: Stop::Interrupted { while_judging },
            polls,
            summary: Some(summary(ports.store, polls)?),
        })
    };
    loop {
        let polled = ports.watcher.poll().await.map_err(port)?;
        polls += 1;
        ports.watcher.show(&polled, polls).map_err(port)?;
        if !polled.open {
            return Ok(LoopOutcome {
                stop: Stop::Closed,
                polls,
                summary: None,
            });
        }
        // Ctrl-C stops the judge's calls; what they had not answered stays pending for the next
        // run.
        let judged = triage_all(ports, settings).await?;
        if ports.stop.stopping() {
            return stopped(polls, true);
        }
        if judged? > 0 {
            let edited = fix_all(ports, settings)?;
            if ports.stop.stopping() {
                return stopped(polls, false);
            }
            commit(ports, settings, &edited)?;
        }
        if !ports.stop.stopping() && owes_replies(ports.store)? {
            answer(ports).await?;
        }
        if ports.stop.stopping() {
            return stopped(polls, false);
        }
        if settings.max_polls.is_some_and(|m| polls >= m) {
            return Ok(LoopOutcome {
                stop: Stop::MaxPolls,
                polls,
                summary: Some(summary(ports.store, polls)?),
            });
        }
        if ports.clock.sleep(settings.interval).await.is_err() {
            return stopped(polls, false);
        }
    }
}

/// The loop's final summary: what its rounds did and what is left.
fn summary<S: DecisionsStore + WatchStore>(store: &S, polls: u64) -> Result<String, AppError> {
    let state = store.load_watch().map_err(port)?.unwrap_or_default();
    let d = DecisionsStore::load(store).map_err(port)?;
    Ok(review_core::watch::final_summary(&state, &d, polls))
}

/// The findings to ask the judge about: every pending bot finding, and every finding not yet
/// known of the out-of-diff reviews not yet answered.
fn triage_work<S: DecisionsStore + WatchStore>(store: &S) -> Result<Vec<JudgeTask>, AppError> {
    let state = store.load_watch().map_err(port)?.unwrap_or_default();
    let known = DecisionsStore::load(store).map_err(port)?;
    let mut work: Vec<JudgeTask> = state
        .pending
        .iter()
        .filter(|f| f.kind == FindingKind::Bot)
        .map(|f| JudgeTask {
            finding: f.clone(),
            review: None,
        })
        .collect();
    for review in state
        .out_of_diff
        .iter()
        .filter(|o| !known.addressed_out_of_diff.contains_key(&o.review_id))
    {
        for f in review
            .findings
            .iter()
            .filter(|f| !known.knows(&f.fingerprint))
        {
            let finding = ThreadFinding {
                fingerprint: f.fingerprint.clone(),
                thread_id: review_core::site::Site::review(review.review_id.clone()),
                kind: FindingKind::Bot,
                author: review.author.clone(),
                path: f.path.clone(),
                line: f.line,
                outdated: false,
                body: f.body.clone(),
                all_comments_read: true,
                url: String::new(),
                human_comment_ids: Vec::new(),
            };
            work.push(JudgeTask {
                finding,
                review: Some(review.review_id.clone()),
            });
        }
    }
    Ok(work)
}

/// Asks the judge about every finding of [`triage_work`], the answers recorded in order as they
/// come. The outer error: the judge could not be asked; the inner: an answer could not be
/// recorded (said after a stop, which wins). Returns how many findings were asked about.
async fn triage_all<J, F, W, R, T, C, S, K, X, B, N>(
    ports: &LoopPorts<'_, J, F, W, R, T, C, S, K, X, B, N>,
    settings: &LoopSettings,
) -> Result<Result<usize, AppError>, AppError>
where
    J: Judge,
    W: LoopWatcher,
    T: LineOrigin,
    S: DecisionsStore + WatchStore,
    X: StopSignal,
    N: Narrator,
{
    let work = match triage_work(ports.store) {
        Ok(work) => work,
        Err(e) => return Ok(Err(e)),
    };
    if let Err(e) = knock_ons(ports, &work) {
        return Ok(Err(e));
    }
    let mut failure = None;
    ports
        .judge
        .answer_all(&work, settings.judge_timeout, &mut |i, answer| {
            let Some(task) = work.get(i) else { return };
            // Interrupted: what the judge did not answer stays pending.
            if failure.is_some() || (answer.is_err() && ports.stop.stopping()) {
                return;
            }
            let finding = &task.finding;
            // No answer is an empty one, which escalates.
            let raw = answer.unwrap_or_else(|why| {
                ports.narrator.narrate(&format!(
                    "[loop] the judge {why} for {}: escalated",
                    finding.thread_id
                ));
                String::new()
            });
            let missing = raw
                .trim()
                .is_empty()
                .then_some("the judge returned nothing");
            match record_answer(ports.store, finding, &raw, None, &settings.denied, missing) {
                Ok(recorded) if task.review.is_none() => ports.narrator.narrate(&format!(
                    "[loop] {} {}{}",
                    recorded.verdict,
                    finding.thread_id,
                    recorded
                        .reason
                        .map(|r| format!(": {r}"))
                        .unwrap_or_default()
                )),
                Ok(_) => {}
                Err(e) => failure = Some(e),
            }
        })
        .await
        .map_err(port)?;
    Ok(match failure {
        Some(e) => Err(e),
        None => Ok(work.len()),
    })
}

/// Records and announces the knock-ons among `work`: findings on a line one of the loop's round
/// commits last touched at the head, once each. A line whose commit cannot be told is said and
/// passed over.
fn knock_ons<J, F, W, R, T, C, S, K, X, B, N>(
    ports: &LoopPorts<'_, J, F, W, R, T, C, S, K, X, B, N>,
    work: &[JudgeTask],
) -> Result<(), AppError>
where
    W: LoopWatcher,
    T: LineOrigin,
    S: DecisionsStore + WatchStore,
    N: Narrator,
{
    let d = DecisionsStore::load(ports.store).map_err(port)?;
    if d.seen
        .values()
        .all(|s| !s.claims_fix() || s.resolved_sha.is_none())
    {
        // No fix commit of the loop's yet: nothing to ask.
        return Ok(());
    }
    let state = ports.store.load_watch().map_err(port)?.unwrap_or_default();
    let head = Some(state.head_sha.trim()).filter(|h| !h.is_empty());
    let mut found = Vec::new();
    for task in work {
        let f = &task.finding;
        let Some(line) = f.line.filter(|_| !f.outdated && !f.path.is_empty()) else {
            continue;
        };
        if d.is_knock_on(&f.fingerprint)
            || found
                .iter()
                .any(|k: &KnockOn| k.fingerprint == f.fingerprint)
        {
            continue;
        }
        let origin = match ports.tree.origin(head, &f.path, line) {
            Ok(origin) => origin,
            Err(e) => {
                ports.narrator.narrate(&format!(
                    "[loop] cannot tell which commit wrote {}:{line} ({e}); not checked for a knock-on",
                    f.path
                ));
                continue;
            }
        };
        let Some((commit, round)) = origin.and_then(|c| d.round_commit_of(&c.0)) else {
            continue;
        };
        found.push(KnockOn {
            fingerprint: f.fingerprint.clone(),
            thread_id: f.thread_id.clone(),
            path: f.path.clone(),
            line,
            commit,
            round,
        });
    }
    if found.is_empty() {
        return Ok(());
    }
    let mut new = Vec::new();
    ports
        .store
        .update(&mut |d| {
            new = found
                .iter()
                .filter(|k| d.record_knock_on((*k).clone()))
                .cloned()
                .collect();
        })
        .map_err(port)?;
    if new.is_empty() {
        return Ok(());
    }
    let events: Vec<Event> = new.iter().map(Event::knock_on).collect();
    ports.watcher.announce(&events).map_err(port)?;
    let d = DecisionsStore::load(ports.store).map_err(port)?;
    for k in &new {
        let n = d
            .knock_ons
            .iter()
            .filter(|x| x.path == k.path)
            .position(|x| x.fingerprint == k.fingerprint)
            .map_or(0, |i| i + 1);
        let limit = review_core::knock_on::KNOCK_ON_LIMIT;
        let then = if n >= limit {
            format!("; the loop stops fixing {}", k.path)
        } else {
            format!(" ({n} of {limit} before the loop stops fixing the file)")
        };
        ports.narrator.narrate(&format!(
            "[loop] KNOCK_ON {}: {}:{} is a line of the round-{} fix {}{then}",
            k.thread_id,
            k.path,
            k.line,
            k.round,
            k.commit.get(..7).unwrap_or(&k.commit),
        ));
    }
    Ok(())
}

/// Runs the fixer on each of the round's VALID findings; returns the files it edited. A fixer
/// that fails, changes nothing, or edits a file with the user's own changes or a deny-listed
/// path has its edit undone and its finding escalated.
fn fix_all<J, F, W, R, T, C, S, K, X, B, N>(
    ports: &LoopPorts<'_, J, F, W, R, T, C, S, K, X, B, N>,
    settings: &LoopSettings,
) -> Result<Vec<String>, AppError>
where
    F: FixRunner,
    S: DecisionsStore + WatchStore,
    X: StopSignal,
    N: Narrator,
{
    if !settings.fixer {
        return Ok(Vec::new());
    }
    let (store, fixer) = (ports.store, ports.fixer);
    let d = DecisionsStore::load(store).map_err(port)?;
    let round = d.current_round();
    let mut edited = Vec::new();
    let mut failed = Vec::new();
    for (fp, seen) in d.uncommitted_fixes(round) {
        // Past the round limit, or in a file its fixes keep drawing findings in, the loop
        // escalates instead of fixing.
        if let Some(stopped) = d.fixing_stopped(&seen.path, round, settings.max_rounds) {
            failed.push((fp.clone(), seen.thread_id.clone(), stopped.to_string()));
            continue;
        }
        let state = store.load_watch().map_err(port)?.unwrap_or_default();
        let inline = state
            .pending
            .iter()
            .find(|f| &f.fingerprint == fp)
            .map(|f| f.body.clone());
        let body = inline
            .or_else(|| {
                state
                    .out_of_diff
                    .iter()
                    .flat_map(|o| &o.findings)
                    .find(|f| &f.fingerprint == fp)
                    .map(|f| f.body.clone())
            })
            .unwrap_or_default();
        let task = FixTask {
            thread_id: seen.thread_id.clone(),
            path: seen.path.clone(),
            reasoning: seen.reasoning.clone(),
            fix_sketch: seen.fix_sketch.clone(),
            finding: body,
        };
        let result = fixer.fix(&task, settings.fixer_timeout);
        if ports.stop.stopping() {
            // Stopped: the fix is undone and tried again on the next run, not escalated.
            if let Ok(fixed) = &result {
                let _ = fixer.undo(fixed);
            }
            return Ok(Vec::new());
        }
        let problem = match &result {
            Err(why) => Some(why.clone()),
            Ok(fixed) if fixed.edited.is_empty() => Some("the fixer changed nothing".to_owned()),
            Ok(fixed) if !fixed.over_user_work.is_empty() => Some(format!(
                "the fixer edited {}, which has uncommitted work of yours",
                fixed.over_user_work.join(", ")
            )),
            Ok(fixed) => fixed
                .edited
                .iter()
                .find(|p| review_core::plan::is_denied(p, &settings.denied))
                .map(|p| format!("the fixer edited {p}, a deny-listed path")),
        };
        match (problem, result) {
            (Some(why), Ok(fixed)) => {
                // A finding's edit is committed under its own trailer or undone: never carried
                // into the round's commit by another finding.
                let why = match fixer.undo(&fixed) {
                    Ok(()) => format!("{why}; its edit was undone"),
                    Err(e) => format!("{why}; its edit could not all be undone ({e})"),
                };
                failed.push((fp.clone(), seen.thread_id.clone(), why));
            }
            (Some(why), Err(_)) => failed.push((fp.clone(), seen.thread_id.clone(), why)),
            (None, Ok(fixed)) => edited.extend(fixed.edited),
            (None, Err(_)) => {}
        }
    }
    if !failed.is_empty() {
        store
            .update(&mut |d| {
                for (fp, thread, why) in &failed {
                    ports
                        .narrator
                        .narrate(&format!("[loop] {thread}: {why}; escalated"));
                    d.record(
                        fp,
                        thread,
                        decisions::Judged::Escalate {
                            reason: why.clone(),
                        },
                        round,
                    );
                }
            })
            .map_err(port)?;
    }
    edited.sort();
    edited.dedup();
    Ok(edited)
}

/// Commits the round if it fixed anything, and says its summary; a round whose checks fail or
/// whose commit is refused is set aside and its findings escalated.
fn commit<J, F, W, R, T, C, S, K, X, B, N>(
    ports: &LoopPorts<'_, J, F, W, R, T, C, S, K, X, B, N>,
    settings: &LoopSettings,
    edited: &[String],
) -> Result<(), AppError>
where
    T: RoundTree,
    C: CheckRunner,
    S: DecisionsStore + WatchStore,
    B: Notifier,
    N: Narrator,
{
    let d = DecisionsStore::load(ports.store).map_err(port)?;
    let round = d.current_round();
    if !d.round_had_work(round) {
        return Ok(());
    }
    if !d.uncommitted_fixes(round).is_empty() && edited.is_empty() {
        ports.narrator.narrate(
            "[loop] VALID findings wait for a fix: pass --fixer-cmd, or fix them yourself and run `review commit-round`",
        );
        return Ok(());
    }
    let check = settings.check.as_deref().map(|command| Check {
        command,
        timeout: settings.check_timeout,
    });
    let round_ports = RoundPorts {
        tree: ports.tree,
        store: ports.store,
        checks: ports.checks,
        narrator: ports.narrator,
    };
    let request = RoundRequest {
        paths: edited,
        check,
        denied: &settings.denied,
    };
    match commit_round(&round_ports, &request) {
        Ok(summary) => {
            let summary = summary.to_string();
            ports.narrator.narrate(&summary);
            if settings.notify {
                ports.notifier.notify(&summary);
            }
            Ok(())
        }
        Err(e) => {
            // Nothing that claims a fix is posted, and the next round starts clean.
            let patch = abandon_round(
                ports.tree,
                ports.store,
                ports.narrator,
                &format!("the round stopped: {e}"),
            )?;
            ports.narrator.narrate(&format!(
                "[loop] the round stopped: {e}; its findings are escalated{}",
                patch.map_or_else(String::new, |p| format!(
                    ", and its edits were undone and saved in {p}"
                ))
            ));
            Ok(())
        }
    }
}

/// Whether anything is owed an answer: decided findings, reposts, out-of-diff reviews.
pub fn owes_replies<S: DecisionsStore + WatchStore>(store: &S) -> Result<bool, AppError> {
    let d = DecisionsStore::load(store).map_err(port)?;
    let state = store.load_watch().map_err(port)?.unwrap_or_default();
    let reposts = state.reposted.iter().any(|r| {
        !d.answered_reposts.contains_key(&r.thread_id) && !d.is_escalated_thread(&r.thread_id)
    });
    let out_of_diff = state
        .out_of_diff
        .iter()
        .any(|o| !d.addressed_out_of_diff.contains_key(&o.review_id));
    Ok(d.owed().next().is_some() || reposts || out_of_diff)
}

/// Posts what is owed through the responder and shows what it did.
async fn answer<J, F, W, R, T, C, S, K, X, B, N>(
    ports: &LoopPorts<'_, J, F, W, R, T, C, S, K, X, B, N>,
) -> Result<(), AppError>
where
    R: Responder,
    N: Narrator,
{
    let responded = ports.responder.respond().await.map_err(port)?;
    ports.responder.show(&responded);
    let failed = responded.failed() + responded.uncertain();
    if failed > 0 {
        ports.narrator.narrate(&format!(
            "[loop] {failed} replies or resolves failed; they are tried again next poll"
        ));
    }
    Ok(())
}
