//! `review status` over GitHub: its JSON, and the commit status `--publish` sets through the
//! REST probe. The reads are [`crate::watching::LivePr`]'s, which `watch` and `loop` share; a
//! status needs no checkout.

use review_core::status::Status;
use review_github::probe::ProbeError;

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
}
