//! `review status` over GitHub: its JSON, and the commit status `--publish` sets through the
//! REST probe. The reads are [`crate::watching::LivePr`]'s, which `watch` and `loop` share; a
//! status needs no checkout.

use review_core::status::Status;
use review_github::probe::ProbeError;

use crate::commands::common;
use crate::error::CliError;
use crate::github::Connection;
use crate::output;
use crate::watching::LivePr;

/// The JSON `review status --json` prints.
#[derive(Debug, serde::Serialize, serde::Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct StatusReport {
    /// The version of this format.
    pub schema_version: u32,
    /// The pull request, `owner/name#number`.
    pub pr: String,
    /// The verdict and what led to it.
    #[serde(flatten)]
    pub status: Status,
    /// With --wait: whether the wait ran out with the verdict still `WAITING`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timed_out: Option<bool>,
}

/// The version of [`StatusReport`]'s format.
pub const STATUS_SCHEMA_VERSION: u32 = 1;

impl StatusReport {
    /// The report of `status` on `pr` (`owner/name#number`); `timed_out` with `--wait`.
    pub fn new(pr: String, status: Status, timed_out: Option<bool>) -> Self {
        Self {
            schema_version: STATUS_SCHEMA_VERSION,
            pr,
            status,
            timed_out,
        }
    }
}

/// What the verdict on a pull request is read with: its live reads, the request (the flags
/// merged with the user's file once), and its label (`owner/name#number`).
pub struct Prepared {
    /// The pull request's reads (and the probe `--publish` writes through).
    pub live: LivePr,
    /// What the verdict weighs.
    pub request: review_app::status::StatusRequest,
    /// `owner/name#number`.
    pub label: String,
}

/// Connects to the pull request (`pr`, `repo` as the command line names them) and prepares its
/// verdict: `expect_bots` and `deny_paths` are the flags' (the user's file adds its own),
/// `ignore_checks` the checks to leave out.
pub async fn prepare(
    pr: Option<&str>,
    repo: Option<&str>,
    automation: review_core::gate::AutomationSettings,
    expect_bots: &[String],
    ignore_checks: &[String],
    deny_paths: &[String],
    config: &crate::config::Config,
) -> Result<Prepared, CliError> {
    let conn = common::connect(pr, repo, config).await?;
    let label = format!("{}#{}", conn.repo, conn.number);
    let vcs = common::clone_here()?;
    // The review loop's escalations, when its decisions are kept in this clone.
    let escalated = loop_escalations(vcs.as_ref(), &conn.repo, conn.number)?;
    let live = LivePr::new(conn, automation, vcs)?;
    let request = review_app::status::StatusRequest {
        expected_bots: crate::config::merged(expect_bots, &config.expect_bots),
        ignore_checks: ignore_checks.to_vec(),
        denied_paths: crate::config::merged(deny_paths, &config.deny),
        now: Some(review_app::watch::Clock::now(
            &crate::watching::TerminalClock,
        )),
        escalated,
    };
    Ok(Prepared {
        live,
        request,
        label,
    })
}

impl Prepared {
    /// The verdict now, read once.
    pub async fn once(&self) -> Result<Status, CliError> {
        Ok(review_app::status::status(
            &self.live,
            &self.live,
            &mut review_core::watch::ProbeMemo::Null,
            &self.request,
        )
        .await?)
    }
}

impl review_app::status::StatusPublisher for LivePr {
    type Error = ProbeError;

    async fn publish(
        &self,
        head_sha: &str,
        state: review_app::status::Published,
        description: &str,
    ) -> Result<(), ProbeError> {
        use review_app::status::Published;
        use review_github::probe::{CommitState, NewStatus};
        let status = NewStatus {
            state: match state {
                Published::Success => CommitState::Success,
                Published::Pending => CommitState::Pending,
                Published::Failure => CommitState::Failure,
            },
            context: review_core::status::STATUS_CONTEXT.to_owned(),
            description: description.to_owned(),
            target_url: None,
        };
        self.rest()
            .set_status(&self.conn().repo, head_sha, &status)
            .await
    }

    async fn published_by(&self, head_sha: &str) -> Result<Option<String>, ProbeError> {
        match self
            .rest()
            .status_creator(
                &self.conn().repo,
                head_sha,
                review_core::status::STATUS_CONTEXT,
            )
            .await
        {
            // A token that may not read commit statuses (403 or 404 there) cannot have set
            // one: none of the viewer's stands, and there is nothing to warn about.
            Err(ProbeError::Http { status: 403, .. } | ProbeError::NotFound { .. }) => Ok(None),
            other => other,
        }
    }
}

/// The verdict published as a check run `review/status` (`--publish-as check-run`): only a
/// GitHub App's token may create one (the Actions `GITHUB_TOKEN` is), so a token refused (403)
/// sets the commit status instead, with a warning.
#[derive(Debug)]
pub struct CheckRunPublisher<'a>(pub &'a LivePr);

impl review_app::status::StatusPublisher for CheckRunPublisher<'_> {
    type Error = ProbeError;

    async fn publish(
        &self,
        head_sha: &str,
        state: review_app::status::Published,
        description: &str,
    ) -> Result<(), ProbeError> {
        use review_app::status::Published;
        let run = review_github::probe::NewCheckRun {
            name: review_core::status::STATUS_CONTEXT.to_owned(),
            conclusion: match state {
                Published::Success => Some("success"),
                Published::Failure => Some("failure"),
                Published::Pending => None,
            },
            title: description.to_owned(),
            summary: description.to_owned(),
        };
        match self
            .0
            .rest()
            .create_check_run(&self.0.conn().repo, head_sha, &run)
            .await
        {
            Err(ProbeError::Http { status: 403, .. }) => {
                output::narrate(&format!(
                    "[status] warning: this token cannot create check runs (only a GitHub App's \
                     can, such as the Actions GITHUB_TOKEN); setting the commit status {} instead",
                    review_core::status::STATUS_CONTEXT
                ));
                self.0.publish(head_sha, state, description).await
            }
            other => other,
        }
    }

    async fn published_by(&self, head_sha: &str) -> Result<Option<String>, ProbeError> {
        self.0.published_by(head_sha).await
    }
}

/// The verdict published again where the viewer published it last: over the head's check run
/// `review/status` when the viewer's app created it (the Actions token's app is
/// `github-actions`, its GraphQL login too), else over the commit status. [`published_by`]
/// decides the channel, [`publish`] follows it, as [`review_app::status::refresh`] calls them.
///
/// [`published_by`]: review_app::status::StatusPublisher::published_by
/// [`publish`]: review_app::status::StatusPublisher::publish
#[derive(Debug)]
pub struct StandingPublisher<'a> {
    live: &'a LivePr,
    viewer: String,
    as_check_run: std::sync::atomic::AtomicBool,
}

impl<'a> StandingPublisher<'a> {
    /// A publisher for `viewer`'s verdicts on `live`'s pull request.
    pub fn new(live: &'a LivePr, viewer: &str) -> Self {
        Self {
            live,
            viewer: viewer.to_owned(),
            as_check_run: std::sync::atomic::AtomicBool::new(false),
        }
    }
}

impl review_app::status::StatusPublisher for StandingPublisher<'_> {
    type Error = ProbeError;

    async fn publish(
        &self,
        head_sha: &str,
        state: review_app::status::Published,
        description: &str,
    ) -> Result<(), ProbeError> {
        if self.as_check_run.load(std::sync::atomic::Ordering::Relaxed) {
            CheckRunPublisher(self.live)
                .publish(head_sha, state, description)
                .await
        } else {
            self.live.publish(head_sha, state, description).await
        }
    }

    async fn published_by(&self, head_sha: &str) -> Result<Option<String>, ProbeError> {
        let run = self
            .live
            .rest()
            .check_run_creator(
                &self.live.conn().repo,
                head_sha,
                review_core::status::STATUS_CONTEXT,
            )
            .await;
        match run {
            Ok(Some(app)) if review_app::status::same_account(&app, &self.viewer) => {
                self.as_check_run
                    .store(true, std::sync::atomic::Ordering::Relaxed);
                return Ok(Some(app));
            }
            // Another app's run, none, or a token that may not read check runs: the commit
            // status is the one to look at.
            Ok(_) | Err(ProbeError::Http { status: 403, .. } | ProbeError::NotFound { .. }) => {}
            Err(e) => return Err(e),
        }
        self.live.published_by(head_sha).await
    }
}

/// Whether this runs inside a GitHub Actions job, where `--publish` makes a check run.
pub fn in_actions() -> bool {
    use review_github::env::{Env, EnvVars, ProcessEnv};
    ProcessEnv
        .var(EnvVars::GITHUB_ACTIONS)
        .is_some_and(|v| v.trim() == "true")
}

/// [`refresh_after_resolving`] on `pr` (as read before the resolves) when `host` resolved a
/// thread; nothing otherwise. `denied`: the resolving command's own deny list (its flags
/// merged in), else the user's file's.
pub async fn refresh_if_resolved(
    conn: &Connection,
    host: &crate::github::AuditedHost,
    automation: &review_core::gate::AutomationSettings,
    pr: &review_core::model::PullRequest,
    denied: Option<&[String]>,
    config: &crate::config::Config,
) {
    if host.resolved() > 0 {
        refresh_after_resolving(conn, automation, pr, denied, config).await;
    }
}

/// The threads the review loop escalated, with why, from its decisions file in `vcs`'s clone
/// (none outside one).
pub fn loop_escalations(
    vcs: Option<&crate::git::GitVcs>,
    repo: &review_core::model::RepoId,
    number: u64,
) -> Result<Vec<(review_core::model::ThreadId, String)>, CliError> {
    let Some(files) = common::loop_files_in(vcs, repo, number)? else {
        return Ok(Vec::new());
    };
    Ok(files
        .load_decisions()?
        .escalated
        .into_iter()
        // Only a thread can be waiting: an out-of-diff review's escalation has none.
        .filter_map(|e| Some((e.thread_id.as_thread()?.clone(), e.reason)))
        .collect())
}

/// After a command resolved threads on GitHub: the verdict published as `review/status`, if
/// the viewer published one on the head (as a check run or a commit status:
/// [`StandingPublisher`]), evaluated again and published over it
/// ([`review_app::status::refresh`]), with the user's expected bots and the resolving
/// command's deny list (`denied`; `None`: the user's file's; the repository's is added by the
/// read). A failure is a warning: the command's own work stands.
pub async fn refresh_after_resolving(
    conn: &Connection,
    automation: &review_core::gate::AutomationSettings,
    pr: &review_core::model::PullRequest,
    denied: Option<&[String]>,
    config: &crate::config::Config,
) {
    let outcome = async {
        let vcs = common::clone_here()?;
        let request = review_app::status::StatusRequest {
            expected_bots: crate::config::merged(&[], &config.expect_bots),
            ignore_checks: Vec::new(),
            denied_paths: denied.map_or_else(
                || crate::config::merged(&[], &config.deny),
                <[String]>::to_vec,
            ),
            now: Some(review_app::watch::Clock::now(
                &crate::watching::TerminalClock,
            )),
            escalated: loop_escalations(vcs.as_ref(), &pr.repo, pr.number)?,
        };
        let live = LivePr::new(conn.clone(), automation.clone(), vcs)?;
        let publisher = StandingPublisher::new(&live, pr.viewer.as_deref().unwrap_or_default());
        review_app::status::refresh(
            &live,
            &live,
            &publisher,
            &output::Narrate,
            &request,
            pr.viewer.as_deref(),
            &pr.head_sha.0,
        )
        .await
        .map_err(CliError::from)
    }
    .await;
    if let Err(e) = outcome {
        output::narrate(&format!(
            "[status] warning: could not refresh {}: {e}; run `review status --publish` to set it again",
            review_core::status::STATUS_CONTEXT
        ));
    }
}
