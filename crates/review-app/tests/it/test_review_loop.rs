//! The review loop against fakes: a scripted judge and fixer, the fake host read by the real
//! poll policy and answered by the real `respond`, the in-memory loop files, a clock that
//! advances at once. A VALID finding is fixed and its round committed; a finding the judge does
//! not answer, or whose fix fails, changes nothing or edits a deny-listed path, is escalated
//! (the edit undone); a stop, a closed pull request and the last poll each end the loop; a
//! person's thread is never asked about nor posted in. A new finding on a line the loop's own
//! fix wrote is a knock-on, announced once; after three in a file the loop stops fixing that
//! file, and past the round limit it fixes nothing, while it still answers.

use std::collections::BTreeMap;
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::Duration;

use review_app::commit_round::{Check, CheckRunner, RoundTree, SetAside};
use review_app::narrator::Kept;
use review_app::ports::DecisionsStore as _;
use review_app::respond::{
    HostRereads, MemoryLedger, NoHistory, Notes, RespondPorts, Responded, Source,
};
use review_app::review_loop::{
    FixRunner, FixTask, Fixed, Judge, JudgeTask, LineOrigin, LoopOutcome, LoopPorts, LoopSettings,
    LoopWatcher, Notifier, Poll, Responder, Stop, StopSignal, run,
};
use review_app::watch::{ChangeProbe, ManualClock, OverHost, PollPolicy, Probed, WatchPorts, poll};
use review_app::watch_store::{MemoryLoop, WatchStore as _};
use review_core::decisions::Verdict;
use review_core::gate::AutomationSettings;
use review_core::model::{CommitId, Thread, ThreadId};
use review_core::ports::{Vcs, VcsError};
use review_core::watch::{Event, EventKind, ProbeMemo, WatchSettings};
use review_test_support::{FakeHost, FakeVcs, Mutation, PrBuilder, bot, person};

const T0: i64 = 1_767_225_600;

const FALSE_POSITIVE: &str = r#"{"verdict":"FALSE_POSITIVE","reasoning":"the name is the crate's convention","evidence":["src/lib.rs:1"]}"#;

const VALID: &str = r#"{"verdict":"VALID","reasoning":"the bound is off by one","evidence":["src/a.rs:3"],"fixSketch":"use <="}"#;

/// Two bot threads (`BOT1` on `src/a.rs`, `BOT2` on `src/b.rs`) and one a person took part in
/// (`MIXED`).
fn pr() -> review_core::model::PullRequest {
    PrBuilder::new()
        .thread(
            "BOT1",
            "src/a.rs",
            3,
            &[(
                bot("coderabbitai"),
                "**Off by one.** The loop skips the last item.",
            )],
        )
        .thread(
            "BOT2",
            "src/b.rs",
            9,
            &[(
                bot("coderabbitai"),
                "**Unused import.** `std::fmt` is never used.",
            )],
        )
        .thread(
            "MIXED",
            "src/c.rs",
            1,
            &[
                (bot("coderabbitai"), "**Rename it.** The name says nothing."),
                (person("mei"), "I disagree: leave it."),
            ],
        )
        .build()
}

/// A probe that never answers: every poll reads in full.
struct NoProbe;

#[derive(Debug, thiserror::Error)]
#[error("no probe here")]
struct ProbeDown;

impl ChangeProbe for NoProbe {
    type Error = ProbeDown;

    async fn probe(&self, _memo: &ProbeMemo) -> Result<Probed, ProbeDown> {
        Err(ProbeDown)
    }
}

/// The watcher: the real poll over the fake host; the pull request closes at the poll
/// `closes_at`, if given.
struct HostWatcher<'a> {
    host: &'a FakeHost,
    store: &'a MemoryLoop,
    clock: &'a ManualClock,
    narrator: &'a Kept,
    closes_at: Option<u64>,
    polls: AtomicU64,
    shown: AtomicU64,
    /// Threads a bot posts before the poll numbered with them.
    arrivals: Mutex<Vec<(u64, Thread)>>,
    /// The events the loop announced itself.
    announced: Mutex<Vec<Event>>,
}

impl LoopWatcher for HostWatcher<'_> {
    type Error = review_app::AppError;

    async fn poll(&self) -> Result<Poll, review_app::AppError> {
        let next = self.polls.load(Ordering::SeqCst) + 1;
        let arriving: Vec<Thread> = self
            .arrivals
            .lock()
            .expect("no test thread panicked")
            .iter()
            .filter(|(at, _)| *at == next)
            .map(|(_, t)| t.clone())
            .collect();
        self.host.change_pr(|pr| pr.threads.extend(arriving));
        let pr = self.host.current();
        let read = OverHost {
            host: self.host,
            repo: pr.repo.clone(),
            number: pr.number,
            automation: AutomationSettings::default(),
        };
        let ports = WatchPorts {
            probe: &NoProbe,
            read: &read,
            store: self.store,
            clock: self.clock,
            narrator: self.narrator,
        };
        let policy = PollPolicy {
            settings: WatchSettings::default(),
            full_every_secs: 0,
            label: format!("{}#{}", pr.repo, pr.number),
        };
        let polled = poll(&ports, &policy).await?;
        let n = self.polls.fetch_add(1, Ordering::SeqCst) + 1;
        Ok(Poll {
            events: polled.events,
            open: polled.open && self.closes_at.is_none_or(|c| n < c),
        })
    }

    fn show(&self, _poll: &Poll, number: u64) -> Result<(), review_app::AppError> {
        self.shown.store(number, Ordering::SeqCst);
        Ok(())
    }

    fn announce(&self, events: &[Event]) -> Result<(), review_app::AppError> {
        self.announced
            .lock()
            .expect("no test thread panicked")
            .extend_from_slice(events);
        Ok(())
    }
}

/// The commit of someone else's every other line comes from.
const THEIRS: &str = "feedfacefeedfacefeedfacefeedfacefeedface";

/// `git blame` over the fake repository: a line of [`Tree::blamed`] was written by the last
/// commit that changed its file; any other line by a commit of someone else's.
impl LineOrigin for Tree {
    type Error = std::convert::Infallible;

    fn origin(
        &self,
        _head: Option<&str>,
        path: &str,
        line: u32,
    ) -> Result<Option<CommitId>, Self::Error> {
        let blamed = self.blamed.lock().expect("no test thread panicked");
        if !blamed.iter().any(|(p, l)| *p == path && *l == line) {
            return Ok(Some(CommitId(THEIRS.to_owned())));
        }
        let last = self
            .vcs
            .commits()
            .into_iter()
            .rev()
            .find(|c| c.paths.iter().any(|p| p == path));
        Ok(Some(CommitId(
            last.map_or_else(|| THEIRS.to_owned(), |c| git_id(&c.id)),
        )))
    }
}

/// The responder: the real `respond` from the loop's decisions, on the fake host.
struct HostResponder<'a> {
    host: &'a FakeHost,
    store: &'a MemoryLoop,
    ledger: MemoryLedger,
    shown: Mutex<Vec<Responded>>,
}

impl Responder for HostResponder<'_> {
    type Error = review_app::AppError;

    async fn respond(&self) -> Result<Responded, review_app::AppError> {
        let rereads = HostRereads(self.host);
        let ports = RespondPorts {
            host: self.host,
            rereads: &rereads,
            ledger: &self.ledger,
            history: &NoHistory,
            files: Some(self.store),
            channels: &review_app::respond::TABLE,
            deferral: None,
        };
        let pr = self.host.current();
        ports
            .respond(
                &Notes::default(),
                &pr,
                Source::Loop,
                &AutomationSettings::default(),
            )
            .await
    }

    fn show(&self, responded: &Responded) {
        self.shown
            .lock()
            .expect("no test thread panicked")
            .push(responded.clone());
    }
}

/// A judge answering from a script by thread (no entry: no answer); after `stop_after`
/// answers it asks the run to stop and answers nothing more.
struct ScriptedJudge<'a> {
    answers: BTreeMap<&'static str, Result<&'static str, &'static str>>,
    stop_after: Option<usize>,
    stop: &'a Flag,
    asked: Mutex<Vec<String>>,
}

impl Judge for ScriptedJudge<'_> {
    type Error = std::convert::Infallible;

    fn answer(&self, task: &JudgeTask, _timeout: Duration) -> Result<String, String> {
        let mut asked = self.asked.lock().expect("no test thread panicked");
        if self.stop.stopping() {
            return Err("was stopped".to_owned());
        }
        asked.push(task.finding.thread_id.to_string());
        if self.stop_after.is_some_and(|n| asked.len() >= n) {
            self.stop.0.store(true, Ordering::SeqCst);
        }
        match self.answers.get(task.finding.thread_id.as_str()) {
            Some(Ok(raw)) => Ok((*raw).to_owned()),
            Some(Err(why)) => Err((*why).to_owned()),
            None => Err("failed (exit 1)".to_owned()),
        }
    }
}

/// What the scripted fixer does for a thread.
#[derive(Clone, Copy)]
enum Does {
    /// Writes the file.
    Edit(&'static str, &'static str),
    /// Runs and changes nothing.
    Nothing,
}

/// A fixer that edits the fake repository as scripted, and puts files back when undone.
struct ScriptedFixer<'a> {
    tree: &'a Tree,
    script: BTreeMap<&'static str, Does>,
    undone: Mutex<Vec<String>>,
    tasks: Mutex<Vec<FixTask>>,
    /// Set: the run is asked to stop while the fixer works.
    stops: Option<&'a Flag>,
}

#[derive(Debug, thiserror::Error)]
#[error("cannot put it back")]
struct CannotUndo;

impl FixRunner for ScriptedFixer<'_> {
    type Undo = ();
    type Error = CannotUndo;

    fn fix(&self, task: &FixTask, _timeout: Duration) -> Result<Fixed<()>, String> {
        self.tasks
            .lock()
            .expect("no test thread panicked")
            .push(task.clone());
        if let Some(stop) = self.stops {
            stop.0.store(true, Ordering::SeqCst);
        }
        let edited = match self.script.get(task.thread_id.as_str()) {
            Some(Does::Edit(path, contents)) => {
                self.tree.vcs.user_edit(path, contents);
                self.tree
                    .edited
                    .lock()
                    .expect("no test thread panicked")
                    .push((*path).to_owned());
                vec![(*path).to_owned()]
            }
            Some(Does::Nothing) => Vec::new(),
            None => return Err("the fixer failed (exit 2)".to_owned()),
        };
        Ok(Fixed {
            edited,
            over_user_work: Vec::new(),
            undo: (),
        })
    }

    fn undo(&self, fixed: &Fixed<()>) -> Result<(), CannotUndo> {
        for p in &fixed.edited {
            let committed = self.tree.vcs.committed_file(p).ok_or(CannotUndo)?;
            self.tree.vcs.user_edit(p, &committed);
            self.tree
                .edited
                .lock()
                .expect("no test thread panicked")
                .retain(|e| e != p);
            self.undone
                .lock()
                .expect("no test thread panicked")
                .push(p.clone());
        }
        Ok(())
    }
}

/// The id git would give the fake repository's commit `id`: its distinct end first, so that
/// the abbreviated ids of two commits differ, as git's do.
fn git_id(id: &CommitId) -> String {
    let cut = id.0.len().saturating_sub(7);
    format!("{}{}", &id.0[cut..], &id.0[..cut])
}

/// The round's tree over the fake repository.
struct Tree {
    vcs: FakeVcs,
    edited: Mutex<Vec<String>>,
    /// The lines the loop's own last commit of their file wrote (see its [`LineOrigin`]).
    blamed: Mutex<Vec<(&'static str, u32)>>,
}

impl RoundTree for Tree {
    type Error = VcsError;

    fn created(&self) -> Result<Vec<String>, VcsError> {
        Ok(Vec::new())
    }

    fn untracked(&self) -> Result<Vec<String>, VcsError> {
        Ok(Vec::new())
    }

    fn changed(&self, paths: &[String]) -> Result<Vec<String>, VcsError> {
        let dirty = self.vcs.dirty_paths()?;
        Ok(paths
            .iter()
            .filter(|p| dirty.contains(p))
            .cloned()
            .collect())
    }

    fn commit_exactly(&self, paths: &[String], message: &str) -> Result<String, VcsError> {
        let id = self.vcs.commit_paths(paths, message)?;
        self.edited
            .lock()
            .expect("no test thread panicked")
            .retain(|p| !paths.contains(p));
        Ok(git_id(&id)[..7].to_owned())
    }

    fn set_aside(&self, round: u32) -> Result<Option<SetAside>, VcsError> {
        let edited = std::mem::take(&mut *self.edited.lock().expect("no test thread panicked"));
        if edited.is_empty() {
            return Ok(None);
        }
        for p in &edited {
            let committed = self.vcs.committed_file(p).unwrap_or_default();
            self.vcs.user_edit(p, &committed);
        }
        Ok(Some(SetAside {
            saved: format!("failed-round-{round}.patch"),
            left: Vec::new(),
        }))
    }
}

/// Checks that always pass, counting their runs.
#[derive(Default)]
struct Checks(AtomicU64);

impl CheckRunner for Checks {
    type Error = std::convert::Infallible;

    fn run(&self, _check: &Check<'_>) -> Result<(), std::convert::Infallible> {
        self.0.fetch_add(1, Ordering::SeqCst);
        Ok(())
    }
}

/// The stop signal, set by the test (or the scripted judge).
#[derive(Default)]
struct Flag(AtomicBool);

impl StopSignal for Flag {
    fn stopping(&self) -> bool {
        self.0.load(Ordering::SeqCst)
    }
}

/// The notices a round gave.
#[derive(Default)]
struct Notices(Mutex<Vec<String>>);

impl Notifier for Notices {
    fn notify(&self, summary: &str) {
        self.0
            .lock()
            .expect("no test thread panicked")
            .push(summary.to_owned());
    }
}

fn settings(max_polls: u64) -> LoopSettings {
    LoopSettings {
        judge_timeout: Duration::from_secs(300),
        fixer: true,
        fixer_timeout: Duration::from_secs(600),
        check: Some("cargo test".to_owned()),
        check_timeout: Duration::from_secs(900),
        notify: true,
        denied: vec![".github/".to_owned()],
        interval: Duration::from_secs(60),
        max_polls: Some(max_polls),
        max_rounds: 10,
    }
}

/// Everything a loop runs over.
struct World {
    host: FakeHost,
    store: MemoryLoop,
    clock: ManualClock,
    narrator: Kept,
    tree: Tree,
    checks: Checks,
    stop: Flag,
    notices: Notices,
}

impl World {
    fn new() -> Self {
        Self {
            host: FakeHost::new(pr()),
            store: MemoryLoop::default(),
            clock: ManualClock::at(T0),
            narrator: Kept::default(),
            tree: Tree {
                vcs: FakeVcs::new(
                    "base",
                    &[
                        ("src/a.rs", "for i in 0..n - 1 {}"),
                        ("src/b.rs", "use std::fmt;"),
                        ("src/c.rs", "fn f() {}"),
                        (".github/workflows/ci.yml", "on: push"),
                    ],
                ),
                edited: Mutex::new(Vec::new()),
                blamed: Mutex::new(Vec::new()),
            },
            checks: Checks::default(),
            stop: Flag::default(),
            notices: Notices::default(),
        }
    }

    fn judge(
        &self,
        answers: &[(&'static str, Result<&'static str, &'static str>)],
    ) -> ScriptedJudge<'_> {
        ScriptedJudge {
            answers: answers.iter().copied().collect(),
            stop_after: None,
            stop: &self.stop,
            asked: Mutex::new(Vec::new()),
        }
    }

    fn fixer(&self, script: &[(&'static str, Does)]) -> ScriptedFixer<'_> {
        ScriptedFixer {
            tree: &self.tree,
            script: script.iter().copied().collect(),
            undone: Mutex::new(Vec::new()),
            tasks: Mutex::new(Vec::new()),
            stops: None,
        }
    }

    fn watcher(&self, closes_at: Option<u64>) -> HostWatcher<'_> {
        HostWatcher {
            host: &self.host,
            store: &self.store,
            clock: &self.clock,
            narrator: &self.narrator,
            closes_at,
            polls: AtomicU64::new(0),
            shown: AtomicU64::new(0),
            arrivals: Mutex::new(Vec::new()),
            announced: Mutex::new(Vec::new()),
        }
    }

    /// Says the loop's last commit of their file wrote `lines`.
    fn blame(&self, lines: &[(&'static str, u32)]) {
        self.tree
            .blamed
            .lock()
            .expect("no test thread panicked")
            .extend_from_slice(lines);
    }

    fn responder(&self) -> HostResponder<'_> {
        HostResponder {
            host: &self.host,
            store: &self.store,
            ledger: MemoryLedger::default(),
            shown: Mutex::new(Vec::new()),
        }
    }

    async fn run(
        &self,
        judge: &ScriptedJudge<'_>,
        fixer: &ScriptedFixer<'_>,
        watcher: &HostWatcher<'_>,
        responder: &HostResponder<'_>,
        settings: &LoopSettings,
    ) -> LoopOutcome {
        let ports = LoopPorts {
            judge,
            fixer,
            watcher,
            responder,
            tree: &self.tree,
            checks: &self.checks,
            store: &self.store,
            clock: &self.clock,
            stop: &self.stop,
            notifier: &self.notices,
            narrator: &self.narrator,
        };
        run(&ports, settings).await.expect("the fakes do not fail")
    }

    fn verdict(&self, thread: &str) -> Option<Verdict> {
        self.store
            .load()
            .expect("in memory")
            .seen
            .values()
            .find(|s| s.thread_id == thread)
            .map(|s| s.verdict)
    }

    fn escalated(&self, thread: &str) -> bool {
        self.store
            .load()
            .expect("in memory")
            .is_escalated_thread(&thread.into())
    }

    fn said(&self, line: &str) -> bool {
        self.narrator.lines().iter().any(|l| l == line)
    }

    /// No reply or resolve ever went to the person's thread.
    fn mixed_untouched(&self) {
        let mixed = ThreadId::from("MIXED");
        for m in self.host.mutations() {
            match &m {
                Mutation::Reply(t, _) | Mutation::Resolve(t) | Mutation::Unresolve(t) => {
                    assert_ne!(*t, mixed, "a person's thread was written to: {m:?}");
                }
                Mutation::Minimize(_) | Mutation::Comment(_) | Mutation::RequestReview(_) => {}
            }
        }
    }
}

#[tokio::test]
async fn a_valid_finding_is_fixed_and_its_round_committed() {
    let w = World::new();
    let judge = w.judge(&[("BOT1", Ok(VALID)), ("BOT2", Ok(FALSE_POSITIVE))]);
    let fixer = w.fixer(&[("BOT1", Does::Edit("src/a.rs", "for i in 0..n {}"))]);
    let (watcher, responder) = (w.watcher(None), w.responder());
    let outcome = w
        .run(&judge, &fixer, &watcher, &responder, &settings(1))
        .await;

    assert_eq!(outcome.stop, Stop::MaxPolls);
    assert_eq!(outcome.polls, 1);
    assert!(outcome.summary.is_some());
    let mut asked = judge.asked.lock().unwrap().clone();
    asked.sort();
    assert_eq!(asked, ["BOT1", "BOT2"], "the person's thread is not judged");
    let commits = w.tree.vcs.commits();
    assert_eq!(commits.len(), 1, "one commit for the round");
    assert_eq!(commits[0].paths, ["src/a.rs"]);
    assert_eq!(w.checks.0.load(Ordering::SeqCst), 1, "the checks ran first");
    let d = w.store.load().unwrap();
    let fixed = d.seen.values().find(|s| s.thread_id == "BOT1").unwrap();
    assert_eq!(fixed.verdict, Verdict::Valid);
    assert!(fixed.resolved_sha.is_some(), "the fix records its commit");
    assert_eq!(d.round, 2, "the next round starts");
    assert!(w.said("[loop] VALID BOT1"));
    assert_eq!(
        w.notices.0.lock().unwrap().len(),
        1,
        "the round's summary is notified"
    );
    let tasks = fixer.tasks.lock().unwrap().clone();
    assert_eq!(tasks.len(), 1);
    assert_eq!(tasks[0].path, "src/a.rs");
    assert!(tasks[0].finding.contains("Off by one"));
    assert_eq!(watcher.shown.load(Ordering::SeqCst), 1);
    assert_eq!(
        responder.shown.lock().unwrap().len(),
        1,
        "what was owed was answered"
    );
    w.mixed_untouched();
}

#[tokio::test]
async fn a_judge_with_no_answer_escalates() {
    let w = World::new();
    let judge = w.judge(&[("BOT1", Err("timed out after 300s")), ("BOT2", Ok("  "))]);
    let fixer = w.fixer(&[]);
    let (watcher, responder) = (w.watcher(None), w.responder());
    let outcome = w
        .run(&judge, &fixer, &watcher, &responder, &settings(1))
        .await;

    assert_eq!(outcome.stop, Stop::MaxPolls);
    assert!(w.escalated("BOT1"));
    assert!(w.escalated("BOT2"));
    assert!(w.said("[loop] the judge timed out after 300s for BOT1: escalated"));
    assert!(w.said("[loop] ESCALATE BOT2: the judge returned nothing"));
    assert!(fixer.tasks.lock().unwrap().is_empty(), "nothing to fix");
    assert!(w.tree.vcs.commits().is_empty());
    w.mixed_untouched();
}

#[tokio::test]
async fn a_fix_of_a_deny_listed_path_is_undone_and_escalated() {
    let w = World::new();
    let judge = w.judge(&[("BOT1", Ok(VALID)), ("BOT2", Err("failed (exit 1)"))]);
    let fixer = w.fixer(&[(
        "BOT1",
        Does::Edit(
            ".github/workflows/ci.yml",
            "on: [push, pull_request_target]",
        ),
    )]);
    let (watcher, responder) = (w.watcher(None), w.responder());
    w.run(&judge, &fixer, &watcher, &responder, &settings(1))
        .await;

    assert!(w.escalated("BOT1"));
    assert_eq!(*fixer.undone.lock().unwrap(), [".github/workflows/ci.yml"]);
    assert_eq!(
        w.tree.vcs.work_file(".github/workflows/ci.yml").as_deref(),
        Some("on: push"),
        "the edit was undone"
    );
    assert!(w.tree.vcs.commits().is_empty(), "nothing was committed");
    assert!(w.said(
        "[loop] BOT1: the fixer edited .github/workflows/ci.yml, a deny-listed path; its edit was undone; escalated"
    ));
    w.mixed_untouched();
}

#[tokio::test]
async fn a_fixer_that_changes_nothing_or_fails_escalates() {
    let w = World::new();
    let judge = w.judge(&[("BOT1", Ok(VALID)), ("BOT2", Ok(r#"{"verdict":"VALID","reasoning":"drop it","evidence":["src/b.rs:1"],"fixSketch":"remove the line"}"#))]);
    // BOT2 has no script: the fixer fails on it.
    let fixer = w.fixer(&[("BOT1", Does::Nothing)]);
    let (watcher, responder) = (w.watcher(None), w.responder());
    w.run(&judge, &fixer, &watcher, &responder, &settings(1))
        .await;

    assert!(w.escalated("BOT1"));
    assert!(w.escalated("BOT2"));
    assert!(w.said("[loop] BOT1: the fixer changed nothing; its edit was undone; escalated"));
    assert!(w.said("[loop] BOT2: the fixer failed (exit 2); escalated"));
    assert!(w.tree.vcs.commits().is_empty());
    assert_eq!(w.checks.0.load(Ordering::SeqCst), 0, "no round to check");
}

#[tokio::test]
async fn a_stop_while_judging_ends_with_the_summary_and_leaves_the_rest_pending() {
    let w = World::new();
    let mut judge = w.judge(&[("BOT1", Ok(VALID)), ("BOT2", Ok(VALID))]);
    judge.stop_after = Some(1);
    let fixer = w.fixer(&[("BOT1", Does::Edit("src/a.rs", "for i in 0..n {}"))]);
    let (watcher, responder) = (w.watcher(None), w.responder());
    let outcome = w
        .run(&judge, &fixer, &watcher, &responder, &settings(5))
        .await;

    assert_eq!(
        outcome.stop,
        Stop::Interrupted {
            while_judging: true
        }
    );
    assert_eq!(outcome.polls, 1);
    assert!(outcome.summary.is_some(), "the summary is given");
    let answered = judge.asked.lock().unwrap().clone();
    assert_eq!(answered.len(), 1);
    assert_eq!(
        w.verdict(&answered[0]),
        Some(Verdict::Valid),
        "what was answered stays"
    );
    let other = if answered[0] == "BOT1" {
        "BOT2"
    } else {
        "BOT1"
    };
    assert_eq!(
        w.verdict(other),
        None,
        "what was not answered stays pending"
    );
    let watch = w.store.load_watch().unwrap().unwrap();
    assert!(watch.pending.iter().any(|f| f.thread_id == other));
    assert!(
        fixer.tasks.lock().unwrap().is_empty(),
        "no fix after a stop"
    );
    assert!(w.tree.vcs.commits().is_empty());
    assert!(
        responder.shown.lock().unwrap().is_empty(),
        "nothing is posted after a stop"
    );
    assert_eq!(w.clock.sleeps(), 0);
}

#[tokio::test]
async fn a_stop_while_fixing_undoes_the_fix_and_escalates_nothing() {
    let w = World::new();
    let judge = w.judge(&[("BOT1", Ok(VALID)), ("BOT2", Ok(FALSE_POSITIVE))]);
    let mut fixer = w.fixer(&[("BOT1", Does::Edit("src/a.rs", "for i in 0..n {}"))]);
    fixer.stops = Some(&w.stop);
    let (watcher, responder) = (w.watcher(None), w.responder());
    let outcome = w
        .run(&judge, &fixer, &watcher, &responder, &settings(5))
        .await;

    assert_eq!(
        outcome.stop,
        Stop::Interrupted {
            while_judging: false
        }
    );
    assert!(outcome.summary.is_some());
    assert_eq!(
        *fixer.undone.lock().unwrap(),
        ["src/a.rs"],
        "the fix is undone"
    );
    assert_eq!(
        w.tree.vcs.work_file("src/a.rs").as_deref(),
        Some("for i in 0..n - 1 {}")
    );
    assert_eq!(
        w.verdict("BOT1"),
        Some(Verdict::Valid),
        "tried again on the next run, not escalated"
    );
    assert!(w.tree.vcs.commits().is_empty());
    assert!(
        w.host.mutations().is_empty(),
        "nothing is posted after a stop"
    );
}

#[tokio::test]
async fn an_interrupted_sleep_stops_with_the_summary() {
    let mut w = World::new();
    w.clock = ManualClock::at(T0).interrupted_at_sleep(1);
    let judge = w.judge(&[
        ("BOT1", Err("failed (exit 1)")),
        ("BOT2", Err("failed (exit 1)")),
    ]);
    let fixer = w.fixer(&[]);
    let (watcher, responder) = (w.watcher(None), w.responder());
    let outcome = w
        .run(&judge, &fixer, &watcher, &responder, &settings(5))
        .await;

    assert_eq!(
        outcome.stop,
        Stop::Interrupted {
            while_judging: false
        }
    );
    assert_eq!(outcome.polls, 1);
    assert!(outcome.summary.is_some());
}

#[tokio::test]
async fn a_closed_pull_request_stops_the_loop() {
    let w = World::new();
    let judge = w.judge(&[("BOT1", Ok(VALID)), ("BOT2", Ok(VALID))]);
    let fixer = w.fixer(&[]);
    let (watcher, responder) = (w.watcher(Some(1)), w.responder());
    let outcome = w
        .run(&judge, &fixer, &watcher, &responder, &settings(5))
        .await;

    assert_eq!(outcome.stop, Stop::Closed);
    assert_eq!(outcome.polls, 1);
    assert_eq!(outcome.summary, None);
    assert!(
        judge.asked.lock().unwrap().is_empty(),
        "nothing is judged on a closed PR"
    );
    assert!(w.host.mutations().is_empty());
}

#[tokio::test]
async fn max_polls_stops_with_the_summary_and_a_person_is_never_answered() {
    let w = World::new();
    let judge = w.judge(&[("BOT1", Ok(FALSE_POSITIVE)), ("BOT2", Ok(FALSE_POSITIVE))]);
    let fixer = w.fixer(&[]);
    let (watcher, responder) = (w.watcher(None), w.responder());
    let outcome = w
        .run(&judge, &fixer, &watcher, &responder, &settings(3))
        .await;

    assert_eq!(outcome.stop, Stop::MaxPolls);
    assert_eq!(outcome.polls, 3);
    assert_eq!(
        w.clock.sleeps(),
        2,
        "a sleep between polls, none after the last"
    );
    assert_eq!(watcher.shown.load(Ordering::SeqCst), 3);
    let summary = outcome.summary.expect("the summary");
    assert!(!summary.trim().is_empty());
    // Each finding is judged once: a decided one is not asked about again.
    let mut asked = judge.asked.lock().unwrap().clone();
    asked.sort();
    assert_eq!(asked, ["BOT1", "BOT2"]);
    assert!(w.tree.vcs.commits().is_empty(), "nothing to commit");
    w.mixed_untouched();
    // The bots' false positives are answered, each once over the three polls.
    let mut replied: Vec<String> = w
        .host
        .mutations()
        .into_iter()
        .filter_map(|m| match m {
            Mutation::Reply(t, _) => Some(t.0),
            _ => None,
        })
        .collect();
    replied.sort();
    assert_eq!(replied, ["BOT1", "BOT2"]);
}

/// Bot threads posted later: `(id, path, line, title)`.
fn threads(specs: &[(&str, &str, u32, &str)]) -> Vec<Thread> {
    let mut b = PrBuilder::new();
    for (id, path, line, title) in specs {
        b = b.thread(
            id,
            path,
            *line,
            &[(bot("coderabbitai"), &format!("**{title}.** See the lines."))],
        );
    }
    b.build().threads
}

fn arrive(watcher: &HostWatcher<'_>, at: u64, specs: &[(&str, &str, u32, &str)]) {
    watcher
        .arrivals
        .lock()
        .expect("no test thread panicked")
        .extend(threads(specs).into_iter().map(|t| (at, t)));
}

fn valid(path_line: &'static str) -> &'static str {
    // The evidence is all the judge's checks need.
    match path_line {
        "a" => {
            r#"{"verdict":"VALID","reasoning":"the bound is off by one","evidence":["src/a.rs:3"],"fixSketch":"use <="}"#
        }
        "b" => {
            r#"{"verdict":"VALID","reasoning":"the import is unused","evidence":["src/b.rs:9"],"fixSketch":"drop it"}"#
        }
        _ => {
            r#"{"verdict":"VALID","reasoning":"the guard goes first","evidence":["src/a.rs:4"],"fixSketch":"move it up"}"#
        }
    }
}

fn knock_ons(w: &World) -> Vec<review_core::decisions::KnockOn> {
    w.store.load().expect("in memory").knock_ons
}

fn replied_to(w: &World) -> Vec<String> {
    let mut replied: Vec<String> = w
        .host
        .mutations()
        .into_iter()
        .filter_map(|m| match m {
            Mutation::Reply(t, _) => Some(t.0),
            _ => None,
        })
        .collect();
    replied.sort();
    replied
}

fn escalation(w: &World, thread: &str) -> Option<String> {
    w.store
        .load()
        .expect("in memory")
        .escalated
        .into_iter()
        .find(|e| e.thread_id == thread)
        .map(|e| e.reason)
}

#[tokio::test]
async fn a_finding_on_a_line_the_loop_wrote_is_a_knock_on_announced_once() {
    let w = World::new();
    let judge = w.judge(&[
        ("BOT1", Ok(VALID)),
        ("BOT2", Ok(FALSE_POSITIVE)),
        ("NEW1", Ok(FALSE_POSITIVE)),
        ("NEW2", Ok(FALSE_POSITIVE)),
    ]);
    let fixer = w.fixer(&[("BOT1", Does::Edit("src/a.rs", "for i in 0..=n {}"))]);
    let (watcher, responder) = (w.watcher(None), w.responder());
    // After the fix of BOT1, a finding on its line and one on a line of someone else's.
    arrive(
        &watcher,
        2,
        &[
            ("NEW1", "src/a.rs", 3, "Inclusive range overflows"),
            ("NEW2", "src/a.rs", 8, "Doc comment is stale"),
        ],
    );
    w.blame(&[("src/a.rs", 3)]);
    w.run(&judge, &fixer, &watcher, &responder, &settings(3))
        .await;

    let commits = w.tree.vcs.commits();
    assert_eq!(commits.len(), 1);
    let fix = git_id(&commits[0].id)[..7].to_owned();
    let k = knock_ons(&w);
    assert_eq!(k.len(), 1, "{k:?}");
    assert_eq!(
        (
            k[0].thread_id.to_string().as_str(),
            k[0].path.as_str(),
            k[0].line
        ),
        ("NEW1", "src/a.rs", 3)
    );
    assert_eq!((k[0].commit.as_str(), k[0].round), (fix.as_str(), 1));
    let announced = watcher.announced.lock().unwrap().clone();
    assert_eq!(announced.len(), 1, "announced once over the polls");
    assert_eq!(announced[0].event, EventKind::KnockOn);
    assert_eq!(announced[0].items, ["NEW1".to_owned(), fix.clone()]);
    assert!(w.said(&format!(
        "[loop] KNOCK_ON NEW1: src/a.rs:3 is a line of the round-1 fix {fix} (1 of 3 before the loop stops fixing the file)"
    )));
    // (BOT2's answer waits for the push of round 1's commit, as every reply of that round.)
    assert_eq!(replied_to(&w), ["NEW1", "NEW2"], "both are answered");
    w.mixed_untouched();
}

#[tokio::test]
async fn the_third_knock_on_stops_fixing_that_file_only() {
    let w = World::new();
    let judge = w.judge(&[
        ("BOT1", Ok(VALID)),
        ("BOT2", Ok(FALSE_POSITIVE)),
        ("K1", Ok(valid("k"))),
        ("K2", Ok(FALSE_POSITIVE)),
        ("K3", Ok(FALSE_POSITIVE)),
        ("LATER", Ok(valid("a"))),
        ("ELSEWHERE", Ok(valid("b"))),
        ("LAST", Ok(FALSE_POSITIVE)),
    ]);
    let fixer = w.fixer(&[
        ("BOT1", Does::Edit("src/a.rs", "for i in 0..=n {}")),
        (
            "K1",
            Does::Edit("src/a.rs", "if n > 0 { for i in 0..=n {} }"),
        ),
        ("LATER", Does::Edit("src/a.rs", "// rewritten")),
        ("ELSEWHERE", Does::Edit("src/b.rs", "")),
    ]);
    let (watcher, responder) = (w.watcher(None), w.responder());
    arrive(
        &watcher,
        2,
        &[
            ("K1", "src/a.rs", 3, "Inclusive range overflows"),
            ("K2", "src/a.rs", 4, "Loop variable is unused"),
        ],
    );
    arrive(
        &watcher,
        3,
        &[
            ("K3", "src/a.rs", 5, "Guard is redundant"),
            ("LATER", "src/a.rs", 20, "Magic number"),
            ("ELSEWHERE", "src/b.rs", 2, "Wrong import order"),
        ],
    );
    arrive(&watcher, 4, &[("LAST", "src/a.rs", 30, "Typo in the doc")]);
    w.blame(&[("src/a.rs", 3), ("src/a.rs", 4), ("src/a.rs", 5)]);
    w.run(&judge, &fixer, &watcher, &responder, &settings(4))
        .await;

    let commits = w.tree.vcs.commits();
    let short = |i: usize| git_id(&commits[i].id)[..7].to_owned();
    assert_eq!(commits.len(), 3, "BOT1, K1, then ELSEWHERE: {commits:?}");
    assert_eq!(
        commits[2].paths,
        ["src/b.rs"],
        "another file is still fixed"
    );
    let (first, second) = (short(0), short(1));
    let k: Vec<(String, String)> = knock_ons(&w)
        .into_iter()
        .map(|k| (k.thread_id.to_string(), k.commit))
        .collect();
    assert_eq!(
        k,
        [
            ("K1".to_owned(), first.clone()),
            ("K2".to_owned(), first.clone()),
            ("K3".to_owned(), second.clone()),
        ]
    );
    assert_eq!(watcher.announced.lock().unwrap().len(), 3);
    assert!(w.said(&format!("[loop] KNOCK_ON K2: src/a.rs:4 is a line of the round-1 fix {first} (2 of 3 before the loop stops fixing the file)")), "{:#?}", w.narrator.lines());
    assert!(w.said(&format!(
        "[loop] KNOCK_ON K3: src/a.rs:5 is a line of the round-2 fix {second}; the loop stops fixing src/a.rs"
    )), "{:#?}", w.narrator.lines());
    // The next VALID finding in the file is escalated, not fixed, with the loop's fixes there.
    assert!(
        !fixer
            .tasks
            .lock()
            .unwrap()
            .iter()
            .any(|t| t.thread_id == "LATER"),
        "the file is not fixed again"
    );
    let reason = escalation(&w, "LATER").expect("escalated");
    assert_eq!(
        reason,
        format!(
            "the loop stopped fixing src/a.rs: its own fixes there drew 3 new findings (knock-ons); \
its fixes in src/a.rs: {first} (round 1) fixed BOT1 (the bound is off by one), and drew K1 (line 3), K2 (line 4); \
{second} (round 2) fixed K1 (the guard goes first), and drew K3 (line 5); \
revert {first} first: its lines drew 2 of the 3 knock-ons"
        )
    );
    assert!(w.said(&format!("[loop] LATER: {reason}; escalated")));
    assert_eq!(w.verdict("ELSEWHERE"), Some(Verdict::Valid));
    // It keeps answering (what rounds 1 to 3 owe waits for their commits to be pushed).
    assert_eq!(replied_to(&w), ["LAST"]);
    w.mixed_untouched();
}

#[tokio::test]
async fn the_round_limit_stops_all_fixing_while_replies_are_still_posted() {
    let w = World::new();
    let judge = w.judge(&[
        ("BOT1", Ok(VALID)),
        ("BOT2", Ok(FALSE_POSITIVE)),
        ("NEXT", Ok(valid("b"))),
        ("WRONG", Ok(FALSE_POSITIVE)),
    ]);
    let fixer = w.fixer(&[
        ("BOT1", Does::Edit("src/a.rs", "for i in 0..=n {}")),
        ("NEXT", Does::Edit("src/b.rs", "")),
    ]);
    let (watcher, responder) = (w.watcher(None), w.responder());
    arrive(
        &watcher,
        2,
        &[
            ("NEXT", "src/b.rs", 2, "Wrong import order"),
            ("WRONG", "src/c.rs", 1, "Name shadows a builtin"),
        ],
    );
    let mut s = settings(3);
    s.max_rounds = 1;
    let outcome = w.run(&judge, &fixer, &watcher, &responder, &s).await;

    assert_eq!(outcome.stop, Stop::MaxPolls, "it runs on");
    assert_eq!(w.tree.vcs.commits().len(), 1, "round 1 only");
    let tasks: Vec<String> = fixer
        .tasks
        .lock()
        .unwrap()
        .iter()
        .map(|t| t.thread_id.to_string())
        .collect();
    assert_eq!(tasks, ["BOT1"], "nothing is fixed past the limit");
    assert_eq!(
        escalation(&w, "NEXT").as_deref(),
        Some(
            "the loop reached its round limit (1) and fixes nothing more; it made no fix in src/b.rs"
        )
    );
    assert!(knock_ons(&w).is_empty());
    assert!(watcher.announced.lock().unwrap().is_empty());
    assert!(
        replied_to(&w).contains(&"WRONG".to_owned()),
        "still answered"
    );
    w.mixed_untouched();
}
