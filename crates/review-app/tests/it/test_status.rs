//! `review status` as a use-case: the verdict over the fake host and a probe that answers as
//! told, the wait on a clock that advances at once, and the published commit status over a
//! publisher that records what it is asked.

use std::sync::Mutex;
use std::time::Duration;

use crate::block_on;
use review_app::narrator::Kept;
use review_app::status::{
    Published, Refreshed, StatusPublisher, StatusRequest, WaitPolicy, publish, refresh, status,
    wait,
};
use review_app::watch::{ChangeProbe, ManualClock, OverHost, Probed};
use review_core::gate::AutomationSettings;
use review_core::model::{PullRequest, ThreadId};
use review_core::status::{Reason, Verdict};
use review_core::watch::{CheckState, Checks, ProbeMemo};
use review_test_support::{FakeHost, HEAD_SHA, PrBuilder, bot, person};

/// A probe on the head whose checks are as told, and turn green at its `green_at`-th call
/// (saying something moved then).
struct Probe {
    state: Mutex<(CheckState, u32)>,
    green_at: Option<u32>,
}

impl Probe {
    fn with(state: CheckState) -> Self {
        Self {
            state: Mutex::new((state, 0)),
            green_at: None,
        }
    }

    fn green_at(call: u32) -> Self {
        Self {
            green_at: Some(call),
            ..Self::with(CheckState::Pending)
        }
    }
}

#[derive(Debug, thiserror::Error)]
#[error("the probe is down")]
struct ProbeDown;

impl ChangeProbe for Probe {
    type Error = ProbeDown;

    async fn probe(&self, _memo: &ProbeMemo) -> Result<Probed, ProbeDown> {
        let mut held = self.state.lock().expect("no test thread panicked");
        held.1 += 1;
        let moved = self.green_at == Some(held.1);
        if moved {
            held.0 = CheckState::Green;
        }
        Ok(Probed {
            head_sha: HEAD_SHA.to_owned(),
            open: true,
            idle: !moved,
            checks: Checks {
                state: held.0,
                ..Checks::default()
            },
            requests: 1,
            not_modified: u64::from(!moved),
            memo: ProbeMemo::from("etag"),
        })
    }
}

fn reads<'a>(host: &'a FakeHost, pr: &PullRequest) -> OverHost<'a, FakeHost> {
    OverHost {
        host,
        repo: pr.repo.clone(),
        number: pr.number,
        automation: AutomationSettings::default(),
    }
}

fn kinds(reasons: &[Reason]) -> Vec<String> {
    reasons
        .iter()
        .map(|r| {
            match r {
                Reason::PersonWaiting(_) => "person_waiting",
                Reason::Nit(_) => "nit",
                Reason::Escalated(_) => "escalated",
                Reason::Actionable(_) => "actionable",
                Reason::ChecksPending { .. } => "checks_pending",
                _ => "other",
            }
            .to_owned()
        })
        .collect()
}

/// A person's question, a nit, and what the loop escalated each hold the pull request back,
/// each named with its thread; with none of them and green checks it is ready.
#[test]
fn each_thread_that_holds_the_pull_request_back_is_a_reason() {
    let pr = PrBuilder::new()
        .thread(
            "NIT",
            "src/lib.rs",
            1,
            &[(
                bot("coderabbitai"),
                "_🧹 Nitpick_\n\n**Prefer `let else`.**",
            )],
        )
        .thread(
            "ASK",
            "src/lib.rs",
            9,
            &[(person("mei"), "Why a Vec here?")],
        )
        .thread(
            "BUG",
            "src/lib.rs",
            5,
            &[(bot("coderabbitai"), "**Check the bound.**")],
        )
        .build();
    let host = FakeHost::new(pr.clone());
    let probe = Probe::with(CheckState::Green);
    let request = StatusRequest {
        escalated: vec![(ThreadId("BUG".to_owned()), "a design decision".to_owned())],
        ..StatusRequest::default()
    };
    let got = block_on(status(
        &reads(&host, &pr),
        &probe,
        &mut ProbeMemo::Null,
        &request,
    ))
    .expect("the fakes do not fail");
    assert_eq!(got.verdict, Verdict::ActionRequired, "{got:?}");
    let kinds = kinds(&got.reasons);
    for kind in ["person_waiting", "nit", "escalated"] {
        assert!(kinds.contains(&kind.to_owned()), "{kind} in {kinds:?}");
    }
    let about = |thread: &str| {
        got.reasons.iter().any(|r| match r {
            Reason::PersonWaiting(t) | Reason::Nit(t) | Reason::Escalated(t) => {
                t.thread.0 == thread
            }
            _ => false,
        })
    };
    assert!(about("ASK") && about("NIT") && about("BUG"), "{got:?}");
    assert!(host.mutations().is_empty(), "a verdict changes nothing");

    let quiet = PrBuilder::new().build();
    let host = FakeHost::new(quiet.clone());
    let got = block_on(status(
        &reads(&host, &quiet),
        &probe,
        &mut ProbeMemo::Null,
        &StatusRequest::default(),
    ))
    .expect("the fakes do not fail");
    assert_eq!(got.verdict, Verdict::Ready, "{got:?}");
    assert!(got.reasons.is_empty(), "{got:?}");
}

/// The wait polls while checks run: pending, then green once the probe says they moved, after
/// as many sleeps as it took; with checks that never finish it stops at its timeout, still
/// WAITING, and says so.
#[test]
fn the_wait_ends_when_the_verdict_does_or_at_its_timeout() {
    let pr = PrBuilder::new().build();
    let host = FakeHost::new(pr.clone());
    let narrator = Kept::default();
    let policy = WaitPolicy {
        interval: Duration::from_secs(60),
        timeout: Duration::from_secs(300),
    };

    let waited = |probe: &Probe, clock: &ManualClock| {
        block_on(wait(
            &reads(&host, &pr),
            probe,
            clock,
            &narrator,
            &StatusRequest::default(),
            policy,
        ))
        .expect("the fakes do not fail")
    };
    // Pending at the first read and the next probe; the third says they passed.
    let clock = ManualClock::at(1_764_000_000);
    let waited_out = waited(&Probe::green_at(3), &clock);
    assert_eq!(waited_out.status.verdict, Verdict::Ready, "{waited_out:?}");
    assert!(!waited_out.timed_out);
    assert_eq!((waited_out.polls, clock.sleeps()), (3, 2), "{waited_out:?}");

    let waited = waited(
        &Probe::with(CheckState::Pending),
        &ManualClock::at(1_764_000_000),
    );
    assert_eq!(waited.status.verdict, Verdict::Waiting, "{waited:?}");
    assert!(waited.timed_out, "{waited:?}");
    assert!(
        kinds(&waited.status.reasons).contains(&"checks_pending".to_owned()),
        "{waited:?}"
    );
    // One poll at the start and one after each minute until the five are over.
    assert_eq!(waited.polls, 6, "{waited:?}");
}

/// A publisher that records what it is asked to set, and says who set the status on a head.
#[derive(Default)]
struct Recorder {
    set: Mutex<Vec<(String, Published, String)>>,
    by: Option<String>,
}

#[derive(Debug, thiserror::Error)]
#[error("never")]
struct Never;

impl StatusPublisher for Recorder {
    type Error = Never;

    async fn publish(&self, head: &str, state: Published, description: &str) -> Result<(), Never> {
        self.set.lock().expect("no test thread panicked").push((
            head.to_owned(),
            state,
            description.to_owned(),
        ));
        Ok(())
    }

    async fn published_by(&self, _head: &str) -> Result<Option<String>, Never> {
        Ok(self.by.clone())
    }
}

/// The verdict is published as its state on the head, with a description that fits; after a
/// change, only a status the viewer's own account set (under either of an app's logins) is
/// published over, and another's is left alone.
#[test]
fn a_published_verdict_is_refreshed_only_over_the_viewers_own() {
    let pr = PrBuilder::new()
        .thread(
            "ASK",
            "src/lib.rs",
            9,
            &[(person("mei"), &"Why? ".repeat(100))],
        )
        .build();
    let host = FakeHost::new(pr.clone());
    let probe = Probe::with(CheckState::Green);
    let got = block_on(status(
        &reads(&host, &pr),
        &probe,
        &mut ProbeMemo::Null,
        &StatusRequest::default(),
    ))
    .expect("the fakes do not fail");
    let recorder = Recorder::default();
    let state = block_on(publish(&recorder, &got)).expect("the recorder does not fail");
    assert_eq!(state, Published::Failure);
    let set = recorder
        .set
        .lock()
        .expect("no test thread panicked")
        .clone();
    assert_eq!(set.len(), 1);
    assert_eq!(set[0].0, HEAD_SHA);
    assert!(
        set[0].2.chars().count() <= review_app::status::DESCRIPTION_MAX,
        "{set:?}"
    );

    let narrator = Kept::default();
    let refreshed = |by: Option<&str>, viewer: Option<&str>| {
        let recorder = Recorder {
            by: by.map(str::to_owned),
            ..Recorder::default()
        };
        let out = block_on(refresh(
            &reads(&host, &pr),
            &probe,
            &recorder,
            &narrator,
            &StatusRequest::default(),
            viewer,
            HEAD_SHA,
        ))
        .expect("the fakes do not fail");
        let set = recorder.set.lock().expect("no test thread panicked").len();
        (out, set)
    };
    assert_eq!(
        refreshed(Some("review-app[bot]"), Some("review-app")),
        (
            Refreshed::Published {
                verdict: Verdict::ActionRequired,
                state: Published::Failure
            },
            1
        )
    );
    assert_eq!(
        refreshed(Some("someone-else"), Some("review-app")),
        (Refreshed::NotOurs, 0)
    );
    assert_eq!(refreshed(None, Some("review-app")), (Refreshed::NotOurs, 0));
    assert_eq!(refreshed(Some("review-app"), None), (Refreshed::NotOurs, 0));
}
