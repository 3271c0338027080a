//! The reply ledger: what the tool posted on a pull request, by `thread:key`, so a rerun can see
//! it already did, and so the gate knows the tool's own comments by id. Kept per pull request
//! under the git common directory (`review/ledger-OWNER-NAME-N.json`), written atomically.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use review_core::model::{CommentId, RepoId};
use serde::{Deserialize, Serialize};

use crate::error::CliError;
use crate::git::GitVcs;

/// What was posted, by `thread:key`.
#[derive(Debug, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Ledger {
    /// The posts, by `thread:key` (`review:key` for a review's comment).
    pub posted: BTreeMap<String, Posted>,
}

/// One post.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Posted {
    /// The thread (or review) answered.
    pub thread: String,
    /// The comment's node id.
    pub comment: String,
    /// A link to it.
    pub url: String,
}

impl Ledger {
    /// The ledger file of `repo#number` in `vcs`'s repository. A ledger an earlier release kept
    /// that cannot be moved to its place is an error: a reply it records could go out again.
    pub fn path(vcs: &GitVcs, repo: &RepoId, number: u64) -> Result<PathBuf, CliError> {
        crate::state::pr_file_for(vcs, "ledger", repo, number).map_err(|e| CliError::Other {
            message: format!("cannot open the reply ledger: {e}"),
            hint: Some(e.hint()),
        })
    }

    /// Loads the ledger at `path` (none: empty). A corrupt ledger is an input error (exit 3).
    pub fn load(path: Option<&Path>) -> Result<Self, CliError> {
        let Some(path) = path else {
            return Ok(Self::default());
        };
        crate::state::load(path).map_err(|e| CliError::Input {
            path: path.to_path_buf(),
            message: e.describe("reply ledger"),
            hint: Some("fix it, or move it away: the replies themselves carry their keys, so nothing is posted twice".to_owned()),
        })
    }

    /// Loads the ledger of `repo#number`.
    pub fn for_pr(vcs: &GitVcs, repo: &RepoId, number: u64) -> Result<Self, CliError> {
        Self::load(Some(&Self::path(vcs, repo, number)?))
    }

    /// Saves the ledger at `path`, atomically.
    pub fn save(&self, path: Option<&Path>) -> Result<(), CliError> {
        let Some(path) = path else {
            return Ok(());
        };
        crate::state::save(path, self).map_err(|e| CliError::Input {
            path: path.to_path_buf(),
            message: format!("cannot record the reply: {e}"),
            hint: Some(
                "the reply is posted and carries its key; a rerun will not post it again"
                    .to_owned(),
            ),
        })
    }

    /// The ids of the comments the tool posted.
    pub fn comment_ids(&self) -> impl Iterator<Item = CommentId> + '_ {
        self.posted.values().map(|p| CommentId(p.comment.clone()))
    }
}
