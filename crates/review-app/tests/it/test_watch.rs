//! The poll policy against a fake probe, the fake host and a clock that advances instantly.

use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use crate::block_on;
use review_app::narrator::Kept;
use review_app::watch::{
    ChangeProbe, FullRead, ManualClock, OverHost, PollPolicy, Polled, Probed, Schedule, Spent,
    Stopped, WatchPorts, poll, watch,
};
use review_app::watch_store::{MemoryLoop, WatchStore as _};
use review_core::gate::AutomationSettings;
use review_core::model::PullRequest;
use review_core::ports::HostError;
use review_core::watch::{Checks, EventKind, ProbeMemo, WatchSettings};
use review_test_support::{FakeHost, HEAD_SHA, PrBuilder};

/// A probe that answers as told, and counts its questions.
struct FakeProbe {
    answer: Mutex<Result<Probed, &'static str>>,
    asked: AtomicU64,
}

#[derive(Debug, thiserror::Error)]
#[error("{0}")]
struct ProbeDown(&'static str);

impl FakeProbe {
    fn idle() -> Self {
        Self {
            answer: Mutex::new(Ok(Probed {
                head_sha: HEAD_SHA.to_owned(),
                open: true,
                idle: true,
                checks: Checks::default(),
                requests: 3,
                not_modified: 3,
                memo: ProbeMemo::from("etags"),
            })),
            asked: AtomicU64::new(0),
        }
    }

    fn set(&self, change: impl FnOnce(&mut Result<Probed, &'static str>)) {
        change(&mut self.answer.lock().expect("no test thread panicked"));
    }
}

impl ChangeProbe for FakeProbe {
    type Error = ProbeDown;

    async fn probe(&self, _memo: &ProbeMemo) -> Result<Probed, ProbeDown> {
        self.asked.fetch_add(1, Ordering::SeqCst);
        self.answer
            .lock()
            .expect("no test thread panicked")
            .clone()
            .map_err(ProbeDown)
    }
}

/// The full read over the fake host, counting reads: each costs one request and one point.
struct Reads<'a> {
    host: OverHost<'a, FakeHost>,
    reads: AtomicU64,
}

impl<'a> Reads<'a> {
    fn new(host: &'a FakeHost, pr: &PullRequest) -> Self {
        Self {
            host: OverHost {
                host,
                repo: pr.repo.clone(),
                number: pr.number,
                automation: AutomationSettings::default(),
            },
            reads: AtomicU64::new(0),
        }
    }

    fn count(&self) -> u64 {
        self.reads.load(Ordering::SeqCst)
    }
}

impl FullRead for Reads<'_> {
    type Error = HostError;

    async fn read(&self) -> Result<(PullRequest, AutomationSettings), HostError> {
        self.reads.fetch_add(1, Ordering::SeqCst);
        self.host.read().await
    }

    fn spent(&self) -> Spent {
        Spent {
            requests: self.count(),
            points: self.count(),
        }
    }
}

const T0: i64 = 1_764_000_000;

fn policy(expected: &[&str]) -> PollPolicy {
    PollPolicy {
        settings: WatchSettings {
            expected_bots: expected.iter().map(|b| (*b).to_owned()).collect(),
            late_after_secs: 600,
        },
        full_every_secs: 3600,
        label: "acme/widgets#1".to_owned(),
    }
}

fn every_minute(max_polls: u64) -> Schedule {
    Schedule {
        interval: Duration::from_secs(60),
        max_polls: Some(max_polls),
    }
}

/// Each poll's events and whether it read in full.
type Seen = Vec<(Vec<EventKind>, bool)>;

fn record(seen: &mut Seen, polled: &Polled) {
    seen.push((
        polled.events.iter().map(|e| e.event).collect(),
        polled.state.last_poll.full_read,
    ));
}

struct World {
    pr: PullRequest,
    host: FakeHost,
    probe: FakeProbe,
    store: MemoryLoop,
    clock: ManualClock,
    narrator: Kept,
}

impl World {
    fn new() -> Self {
        let pr = PrBuilder::new().build();
        Self {
            host: FakeHost::new(pr.clone()),
            pr,
            probe: FakeProbe::idle(),
            store: MemoryLoop::default(),
            clock: ManualClock::at(T0),
            narrator: Kept::default(),
        }
    }

    fn ports<'a>(
        &'a self,
        reads: &'a Reads<'a>,
    ) -> WatchPorts<'a, FakeProbe, Reads<'a>, MemoryLoop, ManualClock, Kept> {
        WatchPorts {
            probe: &self.probe,
            read: reads,
            store: &self.store,
            clock: &self.clock,
            narrator: &self.narrator,
        }
    }

    fn run(&self, reads: &Reads<'_>, policy: &PollPolicy, schedule: Schedule) -> (Stopped, Seen) {
        let ports = self.ports(reads);
        let mut seen = Seen::new();
        let (stopped, polls) = block_on(watch(&ports, policy, schedule, |p, _| {
            record(&mut seen, p);
            Ok(())
        }))
        .expect("the fakes do not fail");
        assert_eq!(polls as usize, seen.len());
        (stopped, seen)
    }
}

#[test]
fn with_nothing_awaited_the_first_full_read_is_quiescent() {
    let w = World::new();
    let reads = Reads::new(&w.host, &w.pr);
    let (stopped, seen) = w.run(&reads, &policy(&[]), every_minute(1));
    assert_eq!(stopped, Stopped::Done);
    assert_eq!(seen, [(vec![EventKind::Quiescent], true)]);
    assert_eq!(w.clock.sleeps(), 0, "no sleep after the last poll");
}

#[test]
fn the_watcher_waits_for_a_late_bot_within_the_timeout_then_stops_waiting() {
    let w = World::new();
    let reads = Reads::new(&w.host, &w.pr);
    let (stopped, seen) = w.run(&reads, &policy(&["coderabbit"]), every_minute(12));
    assert_eq!(stopped, Stopped::Done);
    // The first poll reads in full; the idle ones after it only ask the probe, until the bot
    // is late (600 s after the head was seen, at the 11th poll): quiescence is confirmed by a
    // full read, naming the late bot.
    assert!(seen[0].1, "the first poll reads in full");
    assert!(seen[0].0.is_empty(), "{seen:?}");
    for (i, (events, full)) in seen.iter().enumerate().take(10).skip(1) {
        assert!(!full && events.is_empty(), "poll {}: {seen:?}", i + 1);
    }
    assert_eq!(seen[10], (vec![EventKind::Quiescent], true));
    assert_eq!(seen[11], (vec![], false), "announced once");
    assert_eq!(reads.count(), 2);
    assert_eq!(w.probe.asked.load(Ordering::SeqCst), 12);
    let state = w
        .store
        .watch
        .load_watch()
        .expect("in memory")
        .expect("saved");
    assert_eq!(state.late_bots, ["coderabbit"]);
    assert_eq!(state.total_points, 2, "idle polls spend no point");
    assert_eq!(
        state.probe,
        ProbeMemo::from("etags"),
        "the probe's memo is kept"
    );
    assert_eq!(
        w.narrator.lines(),
        [format!(
            "[watch] not quiescent yet, waiting on: coderabbit has not reviewed {}",
            &HEAD_SHA[..7]
        )],
        "what quiescence waits on is said once"
    );
}

#[test]
fn a_change_the_probe_sees_or_a_due_full_read_reads_in_full() {
    let w = World::new();
    let reads = Reads::new(&w.host, &w.pr);
    let mut policy = policy(&["coderabbit"]);
    policy.full_every_secs = 120;
    let ports = w.ports(&reads);
    let full = |label: &str| {
        let polled = block_on(poll(&ports, &policy)).expect("the fakes do not fail");
        assert!(polled.open, "{label}");
        polled.state.last_poll.full_read
    };
    assert!(full("first"));
    w.clock.advance(60);
    assert!(!full("idle"));
    w.clock.advance(60);
    assert!(full("due"));
    w.probe.set(|a| {
        if let Ok(p) = a {
            p.idle = false;
        }
    });
    assert!(full("moved"));
    w.probe.set(|a| *a = Err("connection reset"));
    assert!(full("probe down"));
    assert_eq!(reads.count(), 4);
    assert!(
        w.narrator.lines().contains(
            &"[watch] the cheap check failed (connection reset); reading the threads instead"
                .to_owned()
        ),
        "{:?}",
        w.narrator.lines()
    );
}

#[test]
fn a_closed_pull_request_stops_the_watch_without_quiescence() {
    let w = World::new();
    w.probe.set(|a| {
        if let Ok(p) = a {
            p.open = false;
        }
    });
    let reads = Reads::new(&w.host, &w.pr);
    let (stopped, seen) = w.run(&reads, &policy(&[]), every_minute(5));
    assert_eq!(stopped, Stopped::Closed);
    assert_eq!(seen, [(vec![], true)], "no QUIESCENT for a closed PR");
}

#[test]
fn an_interrupted_sleep_stops_the_watch() {
    let mut w = World::new();
    w.clock = ManualClock::at(T0).interrupted_at_sleep(2);
    let reads = Reads::new(&w.host, &w.pr);
    let schedule = Schedule {
        interval: Duration::from_secs(60),
        max_polls: None,
    };
    let (stopped, seen) = w.run(&reads, &policy(&["coderabbit"]), schedule);
    assert_eq!(stopped, Stopped::Interrupted);
    assert_eq!(seen.len(), 2);
}

#[test]
fn a_failing_full_read_comes_back_whole() {
    let w = World::new();
    w.host.refuse_token();
    let reads = Reads::new(&w.host, &w.pr);
    let ports = w.ports(&reads);
    let err = block_on(poll(&ports, &policy(&[]))).unwrap_err();
    assert_eq!(err.kind, review_app::ErrorKind::Port);
    assert!(matches!(
        err.port_error::<HostError>(),
        Some(HostError::Unauthorized { .. })
    ));
    assert!(
        w.store.watch.load_watch().expect("in memory").is_none(),
        "no state is kept"
    );
}
