//! The watcher's ports over GitHub and the terminal, shared by `review watch` and `review
//! loop`: the change probe (review-github's ETag probe) and the full read with the gate's
//! settings ([`Watcher`]), the clock that sleeps between polls and hears Ctrl-C
//! ([`TerminalClock`]), and the events as JSON lines ([`EventLine`]). The poll policy itself is
//! `review_app::watch`.

use std::hash::{BuildHasher, Hasher};
use std::time::Duration;

use review_app::watch::{
    ChangeProbe, Clock, FullRead, Interrupted, PollPolicy, Probed, Spent, WatchPorts,
};
use review_core::watch::{self, CheckState, Checks, Event, ProbeMemo, WatchSettings, WatchState};
use review_github::probe::{ChecksSummary, Probe, ProbeCache, ProbeError};
use serde::Serialize;

use crate::commands::common;
use crate::error::CliError;
use crate::github::Connection;
use crate::loop_files::LoopFiles;
use crate::output;

/// One line `review watch` prints: an event.
#[derive(Debug, Serialize, serde::Deserialize, schemars::JsonSchema)]
pub struct EventLine {
    /// What changed.
    event: watch::EventKind,
    /// The pull request, `owner/name#number`.
    pr: String,
    /// The head commit at the last full read.
    head: String,
    /// What it is about: thread, comment or review ids, check names, a commit.
    items: Vec<String>,
    /// One line for people (for QUIESCENT, the clean report).
    detail: String,
    /// The state file with the details.
    state: std::path::PathBuf,
}

/// `base`, give or take a random tenth.
fn jittered(base: Duration) -> Duration {
    let base = u64::try_from(base.as_millis()).unwrap_or(u64::MAX) / 1000;
    let spread = base * 100; // milliseconds in a tenth
    if spread == 0 {
        return Duration::ZERO;
    }
    let random = std::collections::hash_map::RandomState::new()
        .build_hasher()
        .finish();
    let offset = random % (2 * spread + 1);
    Duration::from_millis(base * 1000 - spread + offset)
}

/// The probe's checks, without the tool's own commit status (`review status --publish`).
pub(crate) fn checks_from(summary: &ChecksSummary) -> Checks {
    Checks {
        state: CheckState::of(summary.state),
        failing: summary.failing.clone(),
        pending: summary.pending.clone(),
        passed: summary.passed.clone(),
    }
    .without(review_core::status::STATUS_CONTEXT)
}

/// The system clock; its sleep shows a spinner, adds or takes off a random tenth, and ends
/// early once Ctrl-C was pressed, now or during the poll before (see
/// [`crate::command::stop_on_ctrl_c`], which the caller starts).
#[derive(Debug, Clone, Copy)]
pub struct TerminalClock;

impl Clock for TerminalClock {
    fn now(&self) -> i64 {
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| i64::try_from(d.as_secs()).unwrap_or(i64::MAX))
    }

    async fn sleep(&self, duration: Duration) -> Result<(), Interrupted> {
        let _spinner = output::Spinner::start("waiting for the next poll");
        tokio::select! {
            () = tokio::time::sleep(jittered(duration)) => Ok(()),
            () = crate::command::stopped() => Err(Interrupted),
        }
    }
}

/// A pull request on GitHub, read live: the connection, the REST change probe, and the gate's
/// settings for each full read (the repository's file read once, at the base commit). The
/// ports `review watch`, `review loop` and `review status` share.
pub struct LivePr {
    conn: Connection,
    probe: Probe,
    automation: review_core::gate::AutomationSettings,
    /// The clone, for the ledger and the audit log the gate reads.
    vcs: Option<crate::git::GitVcs>,
    /// The repository's file, read at the base commit on the first full read.
    repository: tokio::sync::OnceCell<crate::config::RepositoryLayer>,
}

impl std::fmt::Debug for LivePr {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LivePr")
            .field("repo", &self.conn.repo)
            .field("number", &self.conn.number)
            .finish_non_exhaustive()
    }
}

impl LivePr {
    /// The pull request `conn` names, read with the gate's `automation` settings.
    pub fn new(
        conn: Connection,
        automation: review_core::gate::AutomationSettings,
        vcs: Option<crate::git::GitVcs>,
    ) -> Result<Self, CliError> {
        let probe = conn.probe()?;
        Ok(Self {
            conn,
            probe,
            automation,
            vcs,
            repository: tokio::sync::OnceCell::new(),
        })
    }

    /// The connection.
    pub fn conn(&self) -> &Connection {
        &self.conn
    }

    /// The probe, for the commit status `review status --publish` sets.
    pub fn rest(&self) -> &Probe {
        &self.probe
    }

    /// The gate's settings for a fresh read of the pull request.
    pub async fn gate(
        &self,
        pr: &review_core::model::PullRequest,
    ) -> Result<review_core::gate::AutomationSettings, CliError> {
        let repository = self
            .repository
            .get_or_try_init(|| crate::config::repository(&self.conn.client, pr))
            .await?;
        common::gate_for(self.automation.clone(), repository, pr, self.vcs.as_ref())
    }

    /// The pull request read whole, with the gate's settings, a spinner saying `what`.
    pub async fn read_as(
        &self,
        what: &str,
    ) -> Result<
        (
            review_core::model::PullRequest,
            review_core::gate::AutomationSettings,
        ),
        CliError,
    > {
        let _spinner = output::Spinner::start(&format!("reading {what}"));
        let pr = self.conn.read_pr().await?;
        let automation = self.gate(&pr).await?;
        Ok((pr, automation))
    }

    /// The repository file's values of one list, once a full read found the file.
    fn repository_values(
        &self,
        list: impl Fn(&crate::config::RepositoryLayer) -> &[(String, crate::config::Source)],
    ) -> Vec<String> {
        self.repository
            .get()
            .map(|r| crate::config::Config::values(list(r)).collect())
            .unwrap_or_default()
    }
}

impl ChangeProbe for LivePr {
    type Error = ProbeError;

    async fn probe(&self, memo: &ProbeMemo) -> Result<Probed, ProbeError> {
        let mut cache: ProbeCache = serde_json::from_value(memo.clone()).unwrap_or_default();
        let o = self
            .probe
            .poll(&mut cache, &self.conn.repo, self.conn.number)
            .await?;
        Ok(Probed {
            open: o.pr_state == "open",
            idle: o.is_idle(),
            checks: checks_from(&o.checks),
            requests: u64::from(o.requests),
            not_modified: u64::from(o.not_modified),
            memo: serde_json::to_value(&cache).unwrap_or_default(),
            head_sha: o.head_sha,
        })
    }
}

impl FullRead for LivePr {
    type Error = CliError;

    async fn read(
        &self,
    ) -> Result<
        (
            review_core::model::PullRequest,
            review_core::gate::AutomationSettings,
        ),
        CliError,
    > {
        self.read_as(&format!("PR #{}", self.conn.number)).await
    }

    fn expected_bots(&self) -> Vec<String> {
        self.repository_values(|r| &r.expect_bots)
    }

    fn denied_paths(&self) -> Vec<String> {
        self.repository_values(|r| &r.deny)
    }

    fn spent(&self) -> Spent {
        let stats = self.conn.client.stats();
        Spent {
            requests: stats.requests,
            points: stats.points,
        }
    }
}

/// What one poll needs: the pull request read live, the loop's files and the poll policy.
pub struct Watcher {
    live: LivePr,
    files: LoopFiles,
    policy: PollPolicy,
}

impl std::fmt::Debug for Watcher {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Watcher")
            .field("pr", &self.policy.label)
            .finish_non_exhaustive()
    }
}

impl Watcher {
    /// A watcher of the pull request `conn` names, keeping its state in `files`.
    pub fn new(
        conn: Connection,
        files: LoopFiles,
        settings: WatchSettings,
        automation: review_core::gate::AutomationSettings,
        full_every: u64,
        vcs: Option<crate::git::GitVcs>,
    ) -> Result<Self, CliError> {
        Ok(Self {
            policy: PollPolicy {
                settings,
                full_every_secs: i64::try_from(full_every).unwrap_or(i64::MAX),
                label: format!("{}#{}", conn.repo, conn.number),
            },
            live: LivePr::new(conn, automation, vcs)?,
            files,
        })
    }

    /// The watcher of the pull request `pr` and `repo` name (as the command line does), polling
    /// as `poll` says (the user's file adds its expected bots), its state in this clone's loop
    /// files.
    pub async fn connect(
        pr: Option<&str>,
        repo: Option<&str>,
        automation: review_core::gate::AutomationSettings,
        poll: &common::PollArgs,
        config: &crate::config::Config,
    ) -> Result<Self, CliError> {
        let conn = common::connect(pr, repo, config).await?;
        let files = common::loop_files_here(&conn.repo, conn.number)?;
        Self::new(
            conn,
            files,
            settings(
                &crate::config::merged(&poll.expect_bots, &config.expect_bots),
                poll.late_after,
            ),
            automation,
            poll.full_every,
            common::clone_here()?,
        )
    }

    /// One poll, as `review watch --once` makes it: the events' lines (none when the pull
    /// request is no longer open, which is narrated).
    pub async fn once(&self) -> Result<Vec<EventLine>, CliError> {
        let schedule = review_app::watch::Schedule {
            interval: Duration::ZERO,
            max_polls: Some(1),
        };
        let mut lines = Vec::new();
        let (stopped, _) =
            review_app::watch::watch(&self.ports(), self.policy(), schedule, |polled, n| {
                lines = self
                    .lines(&polled.events, n)
                    .map_err(review_app::AppError::port)?;
                Ok(())
            })
            .await?;
        self.ended(stopped)?;
        Ok(lines)
    }

    /// How a watch that `stopped` ends: a pull request no longer open is said and done; an
    /// interrupted one is exit 130.
    pub fn ended(&self, stopped: review_app::watch::Stopped) -> Result<(), CliError> {
        match stopped {
            review_app::watch::Stopped::Closed => {
                output::narrate(&format!(
                    "[watch] {} is no longer open; stopping",
                    self.label()
                ));
                Ok(())
            }
            review_app::watch::Stopped::Done => Ok(()),
            review_app::watch::Stopped::Interrupted => Err(CliError::Interrupted),
        }
    }

    /// The gate's settings for a fresh read of the pull request.
    pub async fn gate(
        &self,
        pr: &review_core::model::PullRequest,
    ) -> Result<review_core::gate::AutomationSettings, CliError> {
        self.live.gate(pr).await
    }

    /// The connection.
    pub fn conn(&self) -> &Connection {
        self.live.conn()
    }

    /// The pull request, `owner/name#number`.
    pub fn label(&self) -> &str {
        &self.policy.label
    }

    /// How it polls.
    pub fn policy(&self) -> &PollPolicy {
        &self.policy
    }

    /// The use-case's ports: this watcher as the probe and the full read, its loop files, the
    /// terminal's clock and narration.
    pub fn ports(&self) -> WatchPorts<'_, Self, Self, LoopFiles, TerminalClock, output::Narrate> {
        WatchPorts {
            probe: self,
            read: self,
            store: &self.files,
            clock: &TerminalClock,
            narrator: &output::Narrate,
        }
    }

    /// Prints `events` on stdout, one JSON line each, and narrates the poll's cost.
    pub fn print(&self, events: &[Event], poll: u64) -> Result<(), CliError> {
        let lines = self.lines(events, poll)?;
        self.print_lines(&lines)
    }

    /// The lines of `events`, as a poll prints them; narrates the poll's cost.
    pub fn lines(&self, events: &[Event], poll: u64) -> Result<Vec<EventLine>, CliError> {
        let (lines, state) = self.event_lines(events)?;
        let cost = state.last_poll;
        output::narrate(&format!(
            "[watch] poll {poll}: {} event(s), {} request(s), {} not modified, {} point(s){}",
            events.len(),
            cost.requests,
            cost.not_modified,
            cost.points,
            if cost.full_read { ", threads read" } else { "" }
        ));
        Ok(lines)
    }

    /// Prints `lines` as JSON lines on stdout.
    pub fn print_lines(&self, lines: &[EventLine]) -> Result<(), CliError> {
        let mut text = String::new();
        for line in lines {
            text.push_str(&serde_json::to_string(line).map_err(|e| CliError::Other {
                message: e.to_string(),
                hint: None,
            })?);
            text.push('\n');
        }
        output::stdout(&text).map_err(CliError::Output)
    }

    /// Prints `events` as JSON lines on stdout, as a poll's are; returns the watch state read
    /// for them.
    pub fn print_events(&self, events: &[Event]) -> Result<WatchState, CliError> {
        let (lines, state) = self.event_lines(events)?;
        self.print_lines(&lines)?;
        Ok(state)
    }

    /// The lines of `events`, with the watch state read for them.
    fn event_lines(&self, events: &[Event]) -> Result<(Vec<EventLine>, WatchState), CliError> {
        let state = self.files.load_watch()?.unwrap_or_default();
        let lines = events
            .iter()
            .map(|e| EventLine {
                event: e.event,
                pr: self.policy.label.clone(),
                head: state.head_sha.clone(),
                items: e.items.clone(),
                detail: e.detail.clone(),
                state: self.files.watch.clone(),
            })
            .collect();
        Ok((lines, state))
    }

    /// One poll: returns the events, and whether the PR is still open.
    pub async fn poll(&self) -> Result<(Vec<Event>, bool), CliError> {
        let polled = review_app::watch::poll(&self.ports(), &self.policy).await?;
        Ok((polled.events, polled.open))
    }
}

impl ChangeProbe for Watcher {
    type Error = ProbeError;

    async fn probe(&self, memo: &ProbeMemo) -> Result<Probed, ProbeError> {
        ChangeProbe::probe(&self.live, memo).await
    }
}

impl FullRead for Watcher {
    type Error = CliError;

    async fn read(
        &self,
    ) -> Result<
        (
            review_core::model::PullRequest,
            review_core::gate::AutomationSettings,
        ),
        CliError,
    > {
        self.live.read_as(&self.policy.label).await
    }

    fn expected_bots(&self) -> Vec<String> {
        self.live.expected_bots()
    }

    fn spent(&self) -> Spent {
        self.live.spent()
    }
}

/// The watcher's settings from the command line.
pub fn settings(expect_bots: &[String], late_after_minutes: u64) -> WatchSettings {
    WatchSettings {
        expected_bots: expect_bots
            .iter()
            .map(|b| review_classify::bot_key_of_login(b))
            .collect(),
        late_after_secs: i64::try_from(late_after_minutes.saturating_mul(60)).unwrap_or(i64::MAX),
    }
}
