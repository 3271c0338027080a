//! `status`: is the pull request ready? One verdict with its reasons ([`review_core::status`])
//! from one full read (threads planned as `review triage` plans them, each bot's standing from
//! its own channel) and the change probe's view of the head's checks; and [`wait`], which polls
//! until the verdict is no longer `WAITING`, reading in full only when the probe saw a change.
//!
//! The ports: the full read and the change probe of [`crate::watch`], a [`Clock`] for the
//! wait, and a narrator.

use std::future::Future;
use std::time::Duration;

use review_core::plan::{self, FixSettings, TriageSettings};
use review_core::status::{self as core_status, Status, StatusInput, Verdict};
use review_core::watch::{Checks, ProbeMemo};

use crate::error::AppError;
use crate::narrator::Narrator;
use crate::watch::{ChangeProbe, Clock, FullRead};

/// What the verdict is asked about besides the pull request.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct StatusRequest {
    /// The bots whose review of the head is waited for (`--expect-bot`), as keys; the
    /// repository's own expected bots are added from the full read.
    pub expected_bots: Vec<String>,
    /// Checks whose failure or run holds nothing back (`--ignore-check`).
    pub ignore_checks: Vec<String>,
    /// Paths the triage never edits: a finding on one is a person's to decide.
    pub denied_paths: Vec<String>,
    /// When the verdict is asked, in seconds since the Unix epoch: a bot's quota notice whose
    /// wait has run out by then no longer holds it back. `None`: every quota notice counts.
    /// [`wait`] sets it from its clock at each poll.
    pub now: Option<i64>,
    /// The threads the review loop escalated (its decisions file), with why.
    pub escalated: Vec<(review_core::model::ThreadId, String)>,
}

/// One evaluation: a full read and the probe's checks.
///
/// The threads are planned as `review triage` plans them with a fixer configured and no judge:
/// a bot finding it would fix or resolve is the author's to act on, one it defers is a
/// person's to decide.
pub async fn status<R, P>(
    read: &R,
    probe: &P,
    memo: &mut ProbeMemo,
    request: &StatusRequest,
) -> Result<Status, AppError>
where
    R: FullRead,
    P: ChangeProbe,
{
    let (pr, automation) = read.read().await.map_err(AppError::port)?;
    // The probe names the checks; when it cannot answer, the full read's roll-up stands in.
    let checks = match probe.probe(memo).await {
        Ok(probed) if probed.head_sha.eq_ignore_ascii_case(&pr.head_sha.0) => {
            *memo = probed.memo;
            probed.checks
        }
        Ok(probed) => {
            *memo = probed.memo;
            roll_up(&pr)
        }
        Err(_) => roll_up(&pr),
    };
    // The user's bots and the repository's, as keys, each once.
    let mut expected: Vec<String> = Vec::new();
    for bot in request
        .expected_bots
        .iter()
        .cloned()
        .chain(read.expected_bots())
    {
        let key = review_classify::bot_key_of_login(&bot);
        if !expected.contains(&key) {
            expected.push(key);
        }
    }
    let signals = review_classify::analyze(&pr, &automation);
    let mut fixes = FixSettings {
        fixer_available: true,
        ..FixSettings::default()
    };
    for p in request
        .denied_paths
        .iter()
        .cloned()
        .chain(read.denied_paths())
    {
        if !fixes.denied_paths.contains(&p) {
            fixes.denied_paths.push(p);
        }
    }
    let settings = TriageSettings {
        automation: automation.clone(),
        fixes,
        ..TriageSettings::default()
    };
    let planned = plan::plan(&pr, &signals, &settings);
    let mut bots =
        review_classify::standing::standings_at(&pr, &automation, &expected, request.now);
    review_classify::standing::with_checks(&mut bots, &checks, &expected);
    Ok(core_status::evaluate(&StatusInput {
        pr: &pr,
        plan: &planned,
        checks: &checks,
        bots: &bots,
        automation: &automation,
        ignore_checks: &request.ignore_checks,
        escalated: &request.escalated,
    }))
}

fn roll_up(pr: &review_core::model::PullRequest) -> Checks {
    Checks {
        state: review_core::watch::CheckState::of(pr.checks),
        ..Checks::default()
    }
}

/// How [`wait`] polls.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct WaitPolicy {
    /// Between polls.
    pub interval: Duration,
    /// The longest wait; the last verdict stands when it runs out (still `WAITING`).
    pub timeout: Duration,
}

/// How a [`wait`] ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Waited {
    /// The last verdict.
    pub status: Status,
    /// Polls made.
    pub polls: u64,
    /// Whether the timeout ran out with the verdict still `WAITING`.
    pub timed_out: bool,
}

/// Evaluates until the verdict is not `WAITING` or `policy.timeout` runs out. Between polls
/// the cheap probe is asked first; the pull request is read again only when it saw a change.
/// Ctrl-C (the clock's sleep interrupted) ends the wait with the last verdict, as a timeout.
pub async fn wait<R, P, K, N>(
    read: &R,
    probe: &P,
    clock: &K,
    narrator: &N,
    request: &StatusRequest,
    policy: WaitPolicy,
) -> Result<Waited, AppError>
where
    R: FullRead,
    P: ChangeProbe,
    K: Clock,
    N: Narrator + ?Sized,
{
    let mut memo = ProbeMemo::Null;
    let started = clock.now();
    let mut request = request.clone();
    request.now = Some(started);
    let request = &mut request;
    let deadline =
        started.saturating_add(i64::try_from(policy.timeout.as_secs()).unwrap_or(i64::MAX));
    let mut current = status(read, probe, &mut memo, request).await?;
    let mut polls = 1;
    loop {
        if current.verdict != Verdict::Waiting {
            return Ok(Waited {
                status: current,
                polls,
                timed_out: false,
            });
        }
        if clock.now() >= deadline || clock.sleep(policy.interval).await.is_err() {
            return Ok(Waited {
                status: current,
                polls,
                timed_out: true,
            });
        }
        // Nothing moved: the verdict stands, for free.
        let moved = match probe.probe(&memo).await {
            Ok(p) => {
                let idle = p.idle;
                memo = p.memo;
                !idle
            }
            Err(e) => {
                narrator.narrate(&format!(
                    "[status] the change probe failed ({e}); reading the pull request"
                ));
                true
            }
        };
        polls += 1;
        // A quota notice whose wait ran out changes the verdict with nothing moved on GitHub.
        let now = clock.now();
        let quota_over = current.bots.iter().any(|b| match &b.state {
            review_core::status::BotState::QuotaSpent { until: Some(t) } => {
                review_core::time::parse_rfc3339(t).is_some_and(|t| t <= now)
            }
            _ => false,
        });
        if !moved && !quota_over {
            continue;
        }
        request.now = Some(now);
        current = status(read, probe, &mut memo, request).await?;
        narrator.narrate(&format!(
            "[status] poll {polls}: {}{}",
            current.verdict,
            current
                .reasons
                .first()
                .map(|r| format!(" ({r})"))
                .unwrap_or_default()
        ));
    }
}

/// How a verdict shows as a commit status: `READY` passes, `WAITING` is pending, the rest
/// fail, so a branch protection rule that requires it holds the merge until `READY`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Published {
    /// `READY`.
    Success,
    /// `WAITING`.
    Pending,
    /// `ACTION_REQUIRED`, `CI_FAILING`, `BLOCKED`.
    Failure,
}

impl Published {
    /// The commit state a verdict publishes as.
    pub fn of(verdict: Verdict) -> Self {
        match verdict {
            Verdict::Ready => Self::Success,
            Verdict::Waiting => Self::Pending,
            Verdict::ActionRequired | Verdict::CiFailing | Verdict::Blocked => Self::Failure,
        }
    }
}

/// Where a verdict is published: a commit status on the head (GitHub's `review/status`).
pub trait StatusPublisher {
    /// The port's own error.
    type Error: std::error::Error + Send + Sync + 'static;

    /// Sets the status of commit `head_sha` to `state` with the one-line `description`.
    fn publish(
        &self,
        head_sha: &str,
        state: Published,
        description: &str,
    ) -> impl Future<Output = Result<(), Self::Error>>;

    /// Who set the standing `review/status` of commit `head_sha`: a login, `None` when the
    /// commit has none.
    fn published_by(
        &self,
        head_sha: &str,
    ) -> impl Future<Output = Result<Option<String>, Self::Error>>;
}

/// The longest description a commit status keeps.
pub const DESCRIPTION_MAX: usize = 140;

/// Publishes `status` on its head commit; returns the state it published.
pub async fn publish<P: StatusPublisher>(
    publisher: &P,
    status: &Status,
) -> Result<Published, AppError> {
    let state = Published::of(status.verdict);
    publisher
        .publish(&status.head_sha, state, &status.summary(DESCRIPTION_MAX))
        .await
        .map_err(AppError::port)?;
    Ok(state)
}

/// Whether two logins name one account: GitHub's REST API says `github-actions[bot]` where
/// GraphQL says `github-actions` (and a check run names the app `github-actions`); case does
/// not count. Empty names no account.
///
/// ```
/// use review_app::status::same_account;
///
/// assert!(same_account("github-actions[bot]", "github-actions"));
/// assert!(!same_account("dana", "dan"));
/// ```
pub fn same_account(a: &str, b: &str) -> bool {
    let bare = |l: &str| {
        let l = l.trim();
        l.strip_suffix("[bot]").unwrap_or(l).to_ascii_lowercase()
    };
    !bare(a).is_empty() && bare(a) == bare(b)
}

/// What [`refresh`] did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Refreshed {
    /// The head carries no `review/status` of the viewer's: nothing was published.
    NotOurs,
    /// The new verdict was published over the viewer's own.
    Published {
        /// The verdict published.
        verdict: Verdict,
        /// Its commit state.
        state: Published,
    },
}

/// Keeps a published verdict true after the tool changed the pull request itself (resolving a
/// thread through the API starts no workflow that would evaluate it again): when the head
/// already carries a `review/status` that `viewer` set, the verdict is evaluated again and
/// published over it through [`publish`]. Where no status of the viewer's stands (none, or
/// another account's), nothing is published: the user never asked for one. An unknown viewer
/// publishes nothing. `head` is the pull request's head as the caller read it (resolving moves
/// no head): who set its status is the one look made before the full read.
///
/// # Errors
/// [`AppError`] when a read, the look at the head's status or the publish fails; the caller
/// warns, its own work stands.
pub async fn refresh<R, P, S, N>(
    read: &R,
    probe: &P,
    publisher: &S,
    narrator: &N,
    request: &StatusRequest,
    viewer: Option<&str>,
    head: &str,
) -> Result<Refreshed, AppError>
where
    R: FullRead,
    P: ChangeProbe,
    S: StatusPublisher,
    N: Narrator + ?Sized,
{
    let Some(viewer) = viewer.filter(|v| !v.trim().is_empty()) else {
        return Ok(Refreshed::NotOurs);
    };
    // The cheap look first: who set the head's status; the full read only for ours.
    let mut memo = ProbeMemo::Null;
    let by = publisher.published_by(head).await.map_err(AppError::port)?;
    if !by.is_some_and(|by| same_account(&by, viewer)) {
        return Ok(Refreshed::NotOurs);
    }
    let status = status(read, probe, &mut memo, request).await?;
    let state = publish(publisher, &status).await?;
    narrator.narrate(&format!(
        "[status] refreshed {}: {}",
        core_status::STATUS_CONTEXT,
        status.verdict
    ));
    Ok(Refreshed::Published {
        verdict: status.verdict,
        state,
    })
}

#[cfg(test)]
mod tests {
    use super::same_account;

    #[test]
    fn an_app_is_one_account_under_both_of_its_logins() {
        assert!(same_account("github-actions[bot]", "github-actions"));
        assert!(same_account("Dana", "dana"));
        assert!(!same_account("dana", "dan"));
        assert!(!same_account("", ""));
        assert!(!same_account("[bot]", ""));
    }
}
