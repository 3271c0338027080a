//! `watch`: the review loop's poll policy. A poll asks the cheap change probe first and reads
//! the pull request in full only when something moved, when a full read is due (resolutions do
//! not show in the probe), or before announcing quiescence; between full reads it settles what
//! time alone changes (a late bot, the quiescence wait). The watch state is written once per
//! poll, by the watcher alone.
//!
//! The ports: the change probe ([`ChangeProbe`]), the full read ([`FullRead`]; [`OverHost`]
//! makes one of any `ReviewHost`), the loop's files, a [`Clock`] that tells the time and
//! sleeps, and a narrator.

use std::future::Future;
use std::time::Duration;

use review_core::gate::AutomationSettings;
use review_core::model::{PullRequest, RepoId};
use review_core::ports::{HostError, ReviewHost};
use review_core::time::{format_utc, parse_rfc3339};
use review_core::watch::{
    self as core_watch, Checks, Event, EventKind, PollCost, ProbeMemo, WatchSettings, WatchState,
};

use crate::error::AppError;
use crate::narrator::Narrator;
use crate::ports::DecisionsStore;
use crate::watch_store::WatchStore;

/// What the change probe saw.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Probed {
    /// The head commit.
    pub head_sha: String,
    /// Whether the pull request is open.
    pub open: bool,
    /// Whether nothing changed since the probe's last answer.
    pub idle: bool,
    /// The head's checks.
    pub checks: Checks,
    /// The requests the probe sent.
    pub requests: u64,
    /// How many of them were answered "not modified".
    pub not_modified: u64,
    /// What the probe keeps for next time.
    pub memo: ProbeMemo,
}

/// The cheap "did anything move?" question (on GitHub, REST requests with ETags: an answer of
/// "not modified" costs nothing).
pub trait ChangeProbe {
    /// Why the probe could not answer: the poll reads in full instead.
    type Error: std::error::Error + Send + Sync + 'static;

    /// Asks, with what the last answer left in `memo` (`Null` before the first).
    fn probe(&self, memo: &ProbeMemo) -> impl Future<Output = Result<Probed, Self::Error>>;
}

/// What the host's client has spent so far, cumulative.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Spent {
    /// Requests sent.
    pub requests: u64,
    /// Rate-limit points.
    pub points: u64,
}

/// The full read of the pull request, with the gate's settings for it.
pub trait FullRead {
    /// The port's own error.
    type Error: std::error::Error + Send + Sync + 'static;

    /// Reads the pull request with all its threads, and the automation settings that apply to
    /// it (the repository's file may add to them).
    fn read(&self) -> impl Future<Output = Result<(PullRequest, AutomationSettings), Self::Error>>;

    /// The bot logins the repository's own settings expect, once a full read found them.
    fn expected_bots(&self) -> Vec<String> {
        Vec::new()
    }

    /// The paths no fix may edit, besides the defaults, once a full read found the repository's
    /// settings.
    fn denied_paths(&self) -> Vec<String> {
        Vec::new()
    }

    /// What the reads have spent so far (the probe counts its own).
    fn spent(&self) -> Spent {
        Spent::default()
    }
}

/// A [`FullRead`] over any review host, with fixed automation settings.
#[derive(Debug)]
pub struct OverHost<'a, H> {
    /// The host.
    pub host: &'a H,
    /// The repository.
    pub repo: RepoId,
    /// The pull request.
    pub number: u64,
    /// The gate's settings.
    pub automation: AutomationSettings,
}

impl<H: ReviewHost> FullRead for OverHost<'_, H> {
    type Error = HostError;

    async fn read(&self) -> Result<(PullRequest, AutomationSettings), HostError> {
        let pr = self.host.pull_request(&self.repo, self.number).await?;
        Ok((pr, self.automation.clone()))
    }
}

/// The watcher stopped sleeping because the user asked it to stop.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("stopped by the user")]
pub struct Interrupted;

/// The time, and waiting.
pub trait Clock {
    /// Seconds since the Unix epoch.
    fn now(&self) -> i64;

    /// Waits about `duration` (an implementation may spread polls with a little randomness);
    /// [`Interrupted`] when the user asked to stop, now or while the last poll ran.
    fn sleep(&self, duration: Duration) -> impl Future<Output = Result<(), Interrupted>>;
}

/// A clock that moves only when told to or slept on: a sleep returns at once, the time advanced
/// by its duration. For tests, and for replaying a watch.
#[derive(Debug, Default)]
pub struct ManualClock {
    now: std::sync::atomic::AtomicI64,
    sleeps: std::sync::atomic::AtomicU64,
    stop_after: Option<u64>,
}

impl ManualClock {
    /// A clock at `now` (Unix seconds).
    pub fn at(now: i64) -> Self {
        Self {
            now: now.into(),
            ..Self::default()
        }
    }

    /// The same clock, whose `n`-th sleep and every later one is interrupted.
    #[must_use]
    pub fn interrupted_at_sleep(mut self, n: u64) -> Self {
        self.stop_after = Some(n);
        self
    }

    /// Moves the time on by `seconds`.
    pub fn advance(&self, seconds: i64) {
        self.now
            .fetch_add(seconds, std::sync::atomic::Ordering::SeqCst);
    }

    /// How many sleeps were asked for.
    pub fn sleeps(&self) -> u64 {
        self.sleeps.load(std::sync::atomic::Ordering::SeqCst)
    }
}

impl Clock for ManualClock {
    fn now(&self) -> i64 {
        self.now.load(std::sync::atomic::Ordering::SeqCst)
    }

    async fn sleep(&self, duration: Duration) -> Result<(), Interrupted> {
        let n = self
            .sleeps
            .fetch_add(1, std::sync::atomic::Ordering::SeqCst)
            + 1;
        if self.stop_after.is_some_and(|s| n >= s) {
            return Err(Interrupted);
        }
        self.advance(i64::try_from(duration.as_secs()).unwrap_or(i64::MAX));
        Ok(())
    }
}

/// What a watch goes through.
#[derive(Debug)]
pub struct WatchPorts<'a, P, R, S, K, N> {
    /// The change probe.
    pub probe: &'a P,
    /// The full read.
    pub read: &'a R,
    /// The loop's files: the watch state (read and written) and the decisions (read).
    pub store: &'a S,
    /// The time.
    pub clock: &'a K,
    /// Where progress is said.
    pub narrator: &'a N,
}

/// How the watcher polls.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PollPolicy {
    /// The watch settings of the command line and the user (the repository's expected bots are
    /// added from [`FullRead::expected_bots`]).
    pub settings: WatchSettings,
    /// Read in full at least this often, in seconds, even when the probe sees nothing.
    pub full_every_secs: i64,
    /// The pull request, `owner/name#number`.
    pub label: String,
}

/// What one poll came to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Polled {
    /// The events, in order.
    pub events: Vec<Event>,
    /// Whether the pull request is still open (as far as the probe knows).
    pub open: bool,
    /// The watch state as the poll saved it (its head, the poll's cost).
    pub state: WatchState,
}

fn port<E: std::error::Error + Send + Sync + 'static>(e: E) -> AppError {
    AppError::port(e)
}

fn settings_of<R: FullRead>(policy: &PollPolicy, read: &R) -> WatchSettings {
    let mut settings = policy.settings.clone();
    for bot in read.expected_bots() {
        let key = review_classify::bot_key_of_login(&bot);
        if !settings.expected_bots.contains(&key) {
            settings.expected_bots.push(key);
        }
    }
    settings
}

/// One poll: the probe, a full read when something moved or one is due, the settling of what
/// time changes, and the state saved. Returns the events and whether the pull request is open.
/// A probe that fails is said and replaced by a full read.
pub async fn poll<P, R, S, K, N>(
    ports: &WatchPorts<'_, P, R, S, K, N>,
    policy: &PollPolicy,
) -> Result<Polled, AppError>
where
    P: ChangeProbe,
    R: FullRead,
    S: WatchStore + DecisionsStore,
    K: Clock,
    N: Narrator,
{
    let WatchPorts {
        probe,
        read,
        store,
        clock,
        narrator,
    } = *ports;
    let previous = store.load_watch().map_err(port)?;
    let waited = previous.as_ref().map(|s| s.waiting.clone());
    let decisions = DecisionsStore::load(store).map_err(port)?;
    let before = read.spent();
    let memo = previous
        .as_ref()
        .map(|s| s.probe.clone())
        .unwrap_or_default();
    let probed = match probe.probe(&memo).await {
        Ok(outcome) => Some(outcome),
        Err(e) => {
            narrator.narrate(&format!(
                "[watch] the cheap check failed ({e}); reading the threads instead"
            ));
            None
        }
    };
    let now = clock.now();
    let full_due = previous.as_ref().is_none_or(|s| {
        parse_rfc3339(&s.full_read_at).is_none_or(|t| now - t >= policy.full_every_secs)
    });
    let moved = probed
        .as_ref()
        .is_none_or(|o| !o.idle || previous.as_ref().is_some_and(|s| s.head_sha != o.head_sha));

    let (probed_ref, decisions_ref) = (&probed, &decisions);
    let full_read = |previous: Option<WatchState>| async move {
        let (pr, automation) = read.read().await.map_err(port)?;
        let mut obs = review_classify::observe(&pr, &automation);
        if let Some(o) = probed_ref {
            obs.checks = o.checks.clone();
        }
        Ok::<_, AppError>(core_watch::observe(
            previous.as_ref(),
            obs,
            decisions_ref,
            &settings_of(policy, read),
            &policy.label,
            now,
        ))
    };
    let (mut state, mut events, full) = match (previous, moved || full_due) {
        (Some(mut state), false) => {
            let mut events = Vec::new();
            if let Some(o) = &probed {
                events.extend(core_watch::apply_checks(&mut state, o.checks.clone()));
            }
            let settings = settings_of(policy, read);
            events.extend(core_watch::settle(
                &mut state, &decisions, &settings, now, false,
            ));
            let confirm = !state.quiescent
                && core_watch::quiescence(&state, &decisions, &settings, now).holds();
            if confirm {
                // Quiescence is announced only on a full read.
                let (s, e) = full_read(Some(state)).await?;
                events.extend(e);
                (s, events, true)
            } else {
                (state, events, false)
            }
        }
        (previous, _) => {
            let (s, e) = full_read(previous).await?;
            (s, e, true)
        }
    };
    let after = read.spent();
    let (probe_requests, not_modified) = probed
        .as_ref()
        .map_or((0, 0), |o| (o.requests, o.not_modified));
    state.last_poll = PollCost {
        requests: after.requests - before.requests + probe_requests,
        points: after.points - before.points,
        not_modified,
        full_read: full,
    };
    state.total_points += state.last_poll.points;
    state.polled_at = format_utc(now);
    if let Some(o) = &probed {
        state.probe.clone_from(&o.memo);
        if !o.open {
            events.retain(|e| e.event != EventKind::Quiescent);
        }
    }
    let open = probed.as_ref().is_none_or(|o| o.open);
    // What quiescence waits on, said when it changes.
    if open && !state.waiting.is_empty() && waited.as_ref() != Some(&state.waiting) {
        narrator.narrate(&format!(
            "[watch] not quiescent yet, waiting on: {}",
            state.waiting.join("; ")
        ));
    }
    store.save_watch(&state).map_err(port)?;
    Ok(Polled {
        events,
        open,
        state,
    })
}

/// When the watcher polls again, and when it stops.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Schedule {
    /// The time between polls.
    pub interval: Duration,
    /// Stop after this many polls.
    pub max_polls: Option<u64>,
}

/// Why a watch ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stopped {
    /// The pull request is no longer open.
    Closed,
    /// The schedule's polls were all made.
    Done,
    /// The user asked to stop (the clock's sleep was interrupted).
    Interrupted,
}

/// Polls on `schedule` until the pull request closes, the polls are done or the user stops it;
/// `each` gets every poll's outcome and its number (from 1) as it comes.
pub async fn watch<P, R, S, K, N>(
    ports: &WatchPorts<'_, P, R, S, K, N>,
    policy: &PollPolicy,
    schedule: Schedule,
    mut each: impl FnMut(&Polled, u64) -> Result<(), AppError>,
) -> Result<(Stopped, u64), AppError>
where
    P: ChangeProbe,
    R: FullRead,
    S: WatchStore + DecisionsStore,
    K: Clock,
    N: Narrator,
{
    let mut polls = 0u64;
    loop {
        let polled = poll(ports, policy).await?;
        polls += 1;
        each(&polled, polls)?;
        if !polled.open {
            return Ok((Stopped::Closed, polls));
        }
        if schedule.max_polls.is_some_and(|m| polls >= m) {
            return Ok((Stopped::Done, polls));
        }
        if ports.clock.sleep(schedule.interval).await.is_err() {
            return Ok((Stopped::Interrupted, polls));
        }
    }
}
