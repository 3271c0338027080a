//! The ports of `review status` over GitHub: the full read with the gate's settings, and the
//! change probe (review-github's ETag probe) that names the head's checks. No loop files: a
//! status needs no checkout.

use review_app::watch::{ChangeProbe, FullRead, Probed};
use review_core::gate::AutomationSettings;
use review_core::model::PullRequest;
use review_core::status::Status;
use review_core::watch::ProbeMemo;
use review_github::probe::{Probe, ProbeCache, ProbeError};

use crate::commands::common;
use crate::error::CliError;
use crate::github::Connection;
use crate::output;

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

/// A pull request on GitHub, read for its status.
pub struct LiveStatus {
    conn: Connection,
    probe: Probe,
    automation: AutomationSettings,
    /// The clone, when there is one: the ledger and the audit log the gate reads.
    vcs: Option<crate::git::GitVcs>,
    /// The repository's file, read at the base commit on the first full read.
    repository: tokio::sync::OnceCell<crate::config::RepositoryLayer>,
}

impl std::fmt::Debug for LiveStatus {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LiveStatus")
            .field("repo", &self.conn.repo)
            .field("number", &self.conn.number)
            .finish_non_exhaustive()
    }
}

impl LiveStatus {
    /// The status ports of the pull request `conn` names.
    pub fn new(
        conn: Connection,
        automation: AutomationSettings,
        vcs: Option<crate::git::GitVcs>,
    ) -> Result<Self, CliError> {
        let probe = Probe::new(&conn.rest, &conn.token).map_err(|e| CliError::GitHub {
            message: e.to_string(),
            source: None,
            hint: Some("check GITHUB_API_URL".to_owned()),
        })?;
        Ok(Self {
            conn,
            probe,
            automation,
            vcs,
            repository: tokio::sync::OnceCell::new(),
        })
    }
}

impl review_app::status::StatusPublisher for LiveStatus {
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
        self.probe
            .set_status(&self.conn.repo, head_sha, &status)
            .await
    }
}

impl ChangeProbe for LiveStatus {
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
            checks: crate::watching::checks_from(&o.checks),
            requests: u64::from(o.requests),
            not_modified: u64::from(o.not_modified),
            memo: serde_json::to_value(&cache).unwrap_or_default(),
            head_sha: o.head_sha,
        })
    }
}

impl FullRead for LiveStatus {
    type Error = CliError;

    async fn read(&self) -> Result<(PullRequest, AutomationSettings), CliError> {
        let _spinner = output::Spinner::start(&format!("reading PR #{}", self.conn.number));
        let pr = self.conn.read_pr().await?;
        let repository = self
            .repository
            .get_or_try_init(|| crate::config::repository(&self.conn.client, &pr))
            .await?;
        let automation =
            common::gate_for(self.automation.clone(), repository, &pr, self.vcs.as_ref())?;
        Ok((pr, automation))
    }

    fn denied_paths(&self) -> Vec<String> {
        self.repository
            .get()
            .map(|r| crate::config::Config::values(&r.deny).collect())
            .unwrap_or_default()
    }

    fn expected_bots(&self) -> Vec<String> {
        self.repository
            .get()
            .map(|r| crate::config::Config::values(&r.expect_bots).collect())
            .unwrap_or_default()
    }
}
