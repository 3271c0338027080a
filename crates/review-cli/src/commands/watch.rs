//! `review watch`: the review loop's watcher. Polls a pull request cheaply, keeps the loop's
//! state file, and prints one JSON event per line.

use std::hash::{BuildHasher, Hasher};
use std::time::Duration;

use clap::Args;
use review_core::time::{format_utc, parse_rfc3339};
use review_core::watch::{self, CheckState, Checks, Event, PollCost, WatchSettings, WatchState};
use review_github::probe::{ChecksSummary, Probe, ProbeCache, ProbeOutcome};
use review_github::reader::Reader;
use serde::Serialize;

use crate::commands::common::{self, AutomationArgs, PrArgs};
use crate::error::CliError;
use crate::github::{self, Connection};
use crate::loop_files::LoopFiles;
use crate::output;

/// Watch a pull request for review activity, printing one JSON event per line
///
/// Events: NEW_FINDINGS, OUT_OF_DIFF, REPOST, HUMAN_COMMENT, PUSHED, CHECKS_RED, CHECKS_CLEAR,
/// COPILOT_QUOTA, STICKY_REPORT, QUIESCENT. Each names what changed; the detail is in the state
/// file (`.git/review/pulls/OWNER/NAME/N/watch.json`, shared by worktrees), which only the
/// watcher writes. A poll first asks GitHub's REST API whether anything moved, with ETags (answers of
/// 304 cost nothing), and reads the threads over GraphQL only when something did, every
/// --full-every seconds (resolutions do not show over REST), and before announcing QUIESCENT.
#[derive(Debug, Args)]
pub struct WatchArgs {
    /// The pull request: a number, a URL, or nothing for the open PR of the current branch
    #[arg(value_name = "PR")]
    pr: Option<String>,

    /// Poll once and exit
    #[arg(long)]
    once: bool,

    #[command(flatten)]
    poll: PollArgs,

    #[command(flatten)]
    target: PrArgs,

    #[command(flatten)]
    automation: AutomationArgs,
}

/// How the watcher polls (shared by `review watch` and `review loop`).
#[derive(Debug, Args)]
pub struct PollArgs {
    /// Seconds between polls (a random tenth is added or taken off)
    #[arg(long, value_name = "SECONDS", default_value_t = 60)]
    pub(crate) interval: u64,

    /// Stop after this many polls
    #[arg(long, value_name = "N")]
    pub(crate) max_polls: Option<u64>,

    /// Read the threads in full at least this often, in seconds, even when nothing seems to
    /// have moved
    #[arg(long, value_name = "SECONDS", default_value_t = 600)]
    pub(crate) full_every: u64,

    /// A bot login to wait for before quiescence even if it has not reviewed yet (repeatable)
    #[arg(long = "expect-bot", value_name = "LOGIN")]
    pub(crate) expect_bots: Vec<String>,

    /// Minutes after a push before quiescence stops waiting for a bot that has not reviewed
    #[arg(long, value_name = "MINUTES", default_value_t = 20)]
    pub(crate) late_after: u64,
}

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

fn now() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| i64::try_from(d.as_secs()).unwrap_or(i64::MAX))
}

/// `base` seconds, give or take a random tenth.
fn jittered(base: u64) -> Duration {
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

fn checks_from(summary: &ChecksSummary) -> Checks {
    Checks {
        state: CheckState::of(summary.state),
        failing: summary.failing.clone(),
        pending: summary.pending.clone(),
    }
}

/// What one poll needs.
pub(crate) struct Watcher {
    conn: Connection,
    probe: Probe,
    files: LoopFiles,
    base_settings: WatchSettings,
    automation: review_core::gate::AutomationSettings,
    pub(crate) full_every: i64,
    label: String,
    /// The clone, for the ledger and the audit log the gate reads.
    vcs: Option<crate::git::GitVcs>,
    /// The repository's file, read at the base commit on the first full read.
    repository: tokio::sync::OnceCell<crate::config::RepositoryLayer>,
}

impl Watcher {
    /// A watcher of the pull request `conn` names, keeping its state in `files`.
    pub(crate) fn new(
        conn: Connection,
        files: LoopFiles,
        settings: WatchSettings,
        automation: review_core::gate::AutomationSettings,
        full_every: u64,
        vcs: Option<crate::git::GitVcs>,
    ) -> Result<Self, CliError> {
        let probe = Probe::new(&conn.rest, &conn.token).map_err(|e| CliError::GitHub {
            message: e.to_string(),
            source: None,
            hint: Some("check GITHUB_API_URL".to_owned()),
        })?;
        Ok(Self {
            label: format!("{}#{}", conn.repo, conn.number),
            full_every: i64::try_from(full_every).unwrap_or(i64::MAX),
            conn,
            probe,
            files,
            base_settings: settings,
            automation,
            vcs,
            repository: tokio::sync::OnceCell::new(),
        })
    }

    /// The watch settings: the command line's and the user's, plus the bots the repository's
    /// file expects (once it was read).
    fn settings(&self) -> WatchSettings {
        let mut settings = self.base_settings.clone();
        if let Some(repository) = self.repository.get() {
            for bot in crate::config::Config::values(&repository.expect_bots) {
                let key = review_classify::bot_key_of_login(&bot);
                if !settings.expected_bots.contains(&key) {
                    settings.expected_bots.push(key);
                }
            }
        }
        settings
    }

    /// The gate's settings for a fresh read of the pull request.
    pub(crate) async fn gate(
        &self,
        pr: &review_core::model::PullRequest,
    ) -> Result<review_core::gate::AutomationSettings, CliError> {
        let repository = self
            .repository
            .get_or_try_init(|| crate::config::repository(&self.conn.client, pr))
            .await?;
        common::gate_for(self.automation.clone(), repository, pr, self.vcs.as_ref())
    }

    /// The connection.
    pub(crate) fn conn(&self) -> &Connection {
        &self.conn
    }

    /// Prints `events` on stdout, one JSON line each, and narrates the poll's cost.
    pub(crate) fn print(&self, events: &[Event], poll: u64) -> Result<(), CliError> {
        let state = self.files.load_watch()?.unwrap_or_default();
        let mut text = String::new();
        for e in events {
            let line = EventLine {
                event: e.event,
                pr: self.label.clone(),
                head: state.head_sha.clone(),
                items: e.items.clone(),
                detail: e.detail.clone(),
                state: self.files.watch.clone(),
            };
            text.push_str(&serde_json::to_string(&line).map_err(|e| CliError::Other {
                message: e.to_string(),
                hint: None,
            })?);
            text.push('\n');
        }
        output::stdout(&text).map_err(CliError::Output)?;
        let cost = state.last_poll;
        output::narrate(&format!(
            "[watch] poll {poll}: {} event(s), {} request(s), {} not modified, {} point(s){}",
            events.len(),
            cost.requests,
            cost.not_modified,
            cost.points,
            if cost.full_read { ", threads read" } else { "" }
        ));
        Ok(())
    }

    /// One poll: returns the events, and whether the PR is still open.
    pub(crate) async fn poll(&self) -> Result<(Vec<Event>, bool), CliError> {
        let previous = self.files.load_watch()?;
        let waited = previous.as_ref().map(|s| s.waiting.clone());
        let decisions = self.files.load_decisions()?;
        let before = self.conn.client.stats();
        let mut cache: ProbeCache = previous
            .as_ref()
            .and_then(|s| serde_json::from_value(s.probe.clone()).ok())
            .unwrap_or_default();
        let probed = match self
            .probe
            .poll(&mut cache, &self.conn.repo, self.conn.number)
            .await
        {
            Ok(outcome) => Some(outcome),
            Err(e) => {
                output::narrate(&format!(
                    "[watch] the cheap check failed ({e}); reading the threads instead"
                ));
                None
            }
        };
        let now = now();
        let full_due = previous.as_ref().is_none_or(|s| {
            parse_rfc3339(&s.full_read_at).is_none_or(|t| now - t >= self.full_every)
        });
        let moved = probed.as_ref().is_none_or(|o| {
            !o.is_idle() || previous.as_ref().is_some_and(|s| s.head_sha != o.head_sha)
        });

        let (mut state, mut events, full_read) = match (previous, moved || full_due) {
            (Some(mut state), false) => {
                let mut events = Vec::new();
                if let Some(o) = &probed {
                    events.extend(watch::apply_checks(&mut state, checks_from(&o.checks)));
                }
                let settings = self.settings();
                events.extend(watch::settle(&mut state, &decisions, &settings, now, false));
                let confirm = !state.quiescent
                    && watch::quiescence(&state, &decisions, &settings, now).holds();
                if confirm {
                    // Quiescence is announced only on a full read.
                    let (s, e) = self
                        .full_read(Some(&state), &decisions, probed.as_ref(), now)
                        .await?;
                    events.extend(e);
                    (s, events, true)
                } else {
                    (state, events, false)
                }
            }
            (previous, _) => {
                let (s, e) = self
                    .full_read(previous.as_ref(), &decisions, probed.as_ref(), now)
                    .await?;
                (s, e, true)
            }
        };
        let after = self.conn.client.stats();
        let (probe_requests, not_modified) = probed.as_ref().map_or((0, 0), |o| {
            (u64::from(o.requests), u64::from(o.not_modified))
        });
        state.last_poll = PollCost {
            requests: after.requests - before.requests + probe_requests,
            points: after.points - before.points,
            not_modified,
            full_read,
        };
        state.total_points += state.last_poll.points;
        state.polled_at = format_utc(now);
        if let Some(o) = &probed {
            state.probe = serde_json::to_value(&cache).unwrap_or_default();
            if o.pr_state != "open" {
                events.retain(|e| e.event != watch::EventKind::Quiescent);
            }
        }
        let open = probed
            .as_ref()
            .is_none_or(|o: &ProbeOutcome| o.pr_state == "open");
        // What quiescence waits on, said when it changes.
        if open && !state.waiting.is_empty() && waited.as_ref() != Some(&state.waiting) {
            output::narrate(&format!(
                "[watch] not quiescent yet, waiting on: {}",
                state.waiting.join("; ")
            ));
        }
        crate::state::locked(&self.files.watch, || {
            crate::state::save(&self.files.watch, &state)
        })
        .map_err(|e: std::io::Error| CliError::Other {
            message: format!("cannot write {}: {e}", self.files.watch.display()),
            hint: Some("check the permissions of the git directory".to_owned()),
        })?;
        Ok((events, open))
    }

    async fn full_read(
        &self,
        previous: Option<&WatchState>,
        decisions: &review_core::decisions::Decisions,
        probed: Option<&ProbeOutcome>,
        now: i64,
    ) -> Result<(WatchState, Vec<Event>), CliError> {
        let _spinner = output::Spinner::start(&format!("reading {}", self.label));
        let pr = Reader::new(&self.conn.client)
            .pull_request(&self.conn.repo, self.conn.number)
            .await
            .map_err(github::read_error)?;
        let automation = self.gate(&pr).await?;
        let mut obs = review_classify::observe(&pr, &automation);
        if let Some(o) = probed {
            obs.checks = checks_from(&o.checks);
        }
        Ok(watch::observe(
            previous,
            obs,
            decisions,
            &self.settings(),
            &self.label,
            now,
        ))
    }
}

/// The watcher's settings from the command line.
pub(crate) fn settings(expect_bots: &[String], late_after_minutes: u64) -> WatchSettings {
    WatchSettings {
        expected_bots: expect_bots
            .iter()
            .map(|b| review_classify::bot_key_of_login(b))
            .collect(),
        late_after_secs: i64::try_from(late_after_minutes.saturating_mul(60)).unwrap_or(i64::MAX),
    }
}

/// Sleeps `seconds` give or take a tenth; `Err` once Ctrl-C was pressed, now or during the
/// poll before (see [`crate::command::stop_on_ctrl_c`], which the caller starts).
pub(crate) async fn pause(seconds: u64) -> Result<(), CliError> {
    let _spinner = output::Spinner::start("waiting for the next poll");
    tokio::select! {
        () = tokio::time::sleep(jittered(seconds)) => Ok(()),
        () = crate::command::stopped() => Err(CliError::Interrupted),
    }
}

/// Runs `review watch`.
pub async fn run(args: WatchArgs) -> Result<(), CliError> {
    let automation = args.automation.settings()?;
    if args.poll.expect_bots.iter().any(|b| b.trim().is_empty()) {
        return Err(CliError::Usage {
            message: "--expect-bot cannot be empty".to_owned(),
            hint: Some("pass a bot login such as coderabbitai".to_owned()),
        });
    }
    let conn = github::connect(
        args.pr.as_deref(),
        args.target.repo.as_deref(),
        &common::cwd()?,
    )
    .await?;
    let files = LoopFiles::here(&conn.repo, conn.number)?;
    let watcher = Watcher::new(
        conn,
        files,
        settings(
            &crate::config::merged(
                &args.poll.expect_bots,
                &crate::config::current()?.expect_bots,
            ),
            args.poll.late_after,
        ),
        automation,
        args.poll.full_every,
        crate::git::GitVcs::open(&common::cwd()?).ok(),
    )?;
    let max_polls = if args.once {
        Some(1)
    } else {
        args.poll.max_polls
    };
    // A Ctrl-C during a poll is heard too: the poll ends, then the watcher stops.
    crate::command::stop_on_ctrl_c();
    let mut polls = 0u64;
    loop {
        let (events, open) = watcher.poll().await?;
        polls += 1;
        watcher.print(&events, polls)?;
        if !open {
            output::narrate(&format!(
                "[watch] {} is no longer open; stopping",
                watcher.label
            ));
            return Ok(());
        }
        if max_polls.is_some_and(|m| polls >= m) {
            return Ok(());
        }
        pause(args.poll.interval).await?;
    }
}
