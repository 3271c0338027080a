//! The review loop's two files, per pull request, under the git common directory:
//! `review/pulls/OWNER/NAME/N/watch.json` (written by `review watch` only) and
//! `review/pulls/OWNER/NAME/N/decisions.json` (written by `decide`, `commit-round` and
//! `respond`, always through [`LoopFiles::update_decisions`], under a lock).

use std::path::{Path, PathBuf};

use review_core::decisions::Decisions;
use review_core::model::RepoId;
use review_core::watch::WatchState;

use crate::StoreError;
use crate::state::StateDir;
use crate::state::{self, LoadError};

/// Where a pull request's loop files are.
#[derive(Debug, Clone)]
pub struct LoopFiles {
    /// The watcher's state.
    pub watch: PathBuf,
    /// The decisions.
    pub decisions: PathBuf,
}

impl LoopFiles {
    /// The files of `repo#number` in `dir`.
    pub fn new(dir: &StateDir, repo: &RepoId, number: u64) -> Result<Self, StoreError> {
        let path = |kind| {
            dir.pr_file(kind, repo, number).map_err(|e| StoreError::Io {
                message: format!("cannot open the loop's files: {e}"),
                hint: e.hint(),
            })
        };
        Ok(Self {
            watch: path("watch")?,
            decisions: path("decisions")?,
        })
    }

    /// The watcher's state, `None` before the first poll.
    pub fn load_watch(&self) -> Result<Option<WatchState>, StoreError> {
        if !self.watch.exists() {
            return Ok(None);
        }
        state::load(&self.watch)
            .map(Some)
            .map_err(|e| corrupt(&self.watch, &e, "watch state"))
    }

    /// The watcher's state, which must exist.
    pub fn require_watch(&self, number: u64) -> Result<WatchState, StoreError> {
        self.load_watch()?.ok_or_else(|| StoreError::Missing {
            message: format!("PR #{number} has no watch state yet"),
            hint: format!("run `review watch {number} --once` first"),
        })
    }

    /// The decisions (empty before the first), their out-of-diff findings placed on their
    /// reviews ([`Decisions::place_reviews`], with the reviews of the watch state).
    pub fn load_decisions(&self) -> Result<Decisions, StoreError> {
        let reviews = self.reviews()?;
        let mut decisions: Decisions = state::load(&self.decisions)
            .map_err(|e| corrupt(&self.decisions, &e, "decisions file"))?;
        decisions.place_reviews(reviews);
        Ok(decisions)
    }

    /// Changes the decisions under the lock: load (placed as [`Self::load_decisions`] places
    /// them), `change`, save atomically.
    pub fn update_decisions<R>(
        &self,
        change: impl FnOnce(&mut Decisions) -> R,
    ) -> Result<R, StoreError> {
        let reviews = self.reviews()?;
        state::update(&self.decisions, |d: &mut Decisions| {
            d.place_reviews(reviews);
            change(d)
        })
        .map_err(|e| corrupt(&self.decisions, &e, "decisions file"))
    }

    /// The reviews whose out-of-diff findings the watcher recorded: the decisions file names
    /// each finding of one by the review's id.
    fn reviews(&self) -> Result<Vec<String>, StoreError> {
        Ok(self
            .load_watch()?
            .map(|w| w.out_of_diff.into_iter().map(|o| o.review_id).collect())
            .unwrap_or_default())
    }
}

/// The decisions file as the use-cases' store.
impl review_app::ports::DecisionsStore for LoopFiles {
    type Error = StoreError;

    fn load(&self) -> Result<Decisions, StoreError> {
        self.load_decisions()
    }

    fn update(&self, change: &mut dyn FnMut(&mut Decisions)) -> Result<(), StoreError> {
        self.update_decisions(|d| change(d))
    }
}

/// The watch state file as the use-cases' store: saved atomically under its lock.
impl review_app::watch_store::WatchStore for LoopFiles {
    type Error = StoreError;

    fn load_watch(&self) -> Result<Option<WatchState>, StoreError> {
        Self::load_watch(self)
    }

    fn save_watch(&self, state: &WatchState) -> Result<(), StoreError> {
        state::locked(&self.watch, || state::save(&self.watch, state)).map_err(
            |e: std::io::Error| StoreError::Io {
                message: format!("cannot write {}: {e}", self.watch.display()),
                hint: "check the permissions of the git directory".to_owned(),
            },
        )
    }
}

/// The loop's files as respond reads them: the decisions, and the watcher's state.
impl review_app::respond::LoopStore for LoopFiles {
    fn load_watch(&self) -> Result<Option<WatchState>, StoreError> {
        Self::load_watch(self)
    }
}

fn corrupt(path: &Path, e: &LoadError, what: &str) -> StoreError {
    StoreError::Unusable {
        path: path.to_path_buf(),
        message: e.describe(what),
        hint: "it was left as it is: fix it, or move it away to start the loop's memory afresh"
            .to_owned(),
    }
}
