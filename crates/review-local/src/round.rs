//! The loop's clone as the review loop's ports: the working tree a round commits from
//! (`RoundTree` for [`GitVcs`], its journal of the tool's own edits undone or set aside as a
//! patch) and `git blame` telling which commit wrote a line (`LineOrigin`, for knock-ons).

use review_app::commit_round::{RoundTree, SetAside};
use review_app::review_loop::LineOrigin;
use review_core::model::CommitId;

use crate::git::{GitError, GitVcs};

/// Why the round's working tree failed: git, or the patch file a failed round is saved to.
#[derive(Debug, thiserror::Error)]
pub enum TreeError {
    /// A git command failed.
    #[error(transparent)]
    Git(#[from] GitError),
    /// The patch of a failed round could not be written.
    #[error("cannot save the failed round's patch: {0}")]
    Io(#[from] std::io::Error),
}

/// The clone as the round's working tree.
impl RoundTree for GitVcs {
    type Error = TreeError;

    fn created(&self) -> Result<Vec<String>, TreeError> {
        Ok(self
            .journal_entries()?
            .into_iter()
            .filter(|e| e.created)
            .map(|e| e.path)
            .collect())
    }

    fn untracked(&self) -> Result<Vec<String>, TreeError> {
        Ok(Self::untracked(self)?)
    }

    fn changed(&self, paths: &[String]) -> Result<Vec<String>, TreeError> {
        Ok(Self::changed(self, paths)?)
    }

    fn commit_exactly(&self, paths: &[String], message: &str) -> Result<String, TreeError> {
        Ok(self.commit_paths_exactly(paths, message)?)
    }

    /// Saves the journaled edits as a patch under the git common directory and undoes them.
    fn set_aside(&self, round: u32) -> Result<Option<SetAside>, TreeError> {
        let entries = self.journal_entries()?;
        if entries.is_empty() {
            return Ok(None);
        }
        let paths: Vec<String> = entries.iter().map(|e| e.path.clone()).collect();
        let text = self.patch_of(&entries)?;
        let dir = self.common_dir()?.join("review");
        std::fs::create_dir_all(&dir)?;
        let path = dir.join(format!(
            "failed-round-{round}-{}.patch",
            crate::audit::run_id()
        ));
        crate::state::write_atomically(&path, &text)?;
        let (_, left) = self.undo_own_edits(&paths)?;
        Ok(Some(SetAside {
            saved: path.display().to_string(),
            left,
        }))
    }
}

/// The commit that wrote a line, by `git blame` at the pull request's head when the clone has
/// that commit, else at the clone's HEAD.
impl LineOrigin for GitVcs {
    type Error = GitError;

    fn origin(
        &self,
        head: Option<&str>,
        path: &str,
        line: u32,
    ) -> Result<Option<CommitId>, Self::Error> {
        let at = head
            .filter(|h| h.len() >= 7 && h.chars().all(|c| c.is_ascii_hexdigit()))
            .filter(|h| self.has_commit(h))
            .unwrap_or("HEAD");
        Ok(self.line_origin(at, path, line)?.map(CommitId))
    }
}
