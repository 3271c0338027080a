//! The reply ledger's file: what the tool posted on a pull request, by `thread:key`
//! ([`review_core::reply::Ledger`]), so a rerun can see it already did, and so the gate knows the
//! tool's own comments by id. Kept per pull request under the git common directory
//! (`review/pulls/OWNER/NAME/N/ledger.json`), written atomically.

use std::path::PathBuf;

use review_core::model::RepoId;
pub use review_core::reply::Ledger;

use crate::StoreError;
use crate::state::StateDir;

/// Where a pull request's ledger is kept: nowhere outside a clone (then it is empty and saving
/// keeps nothing; the replies carry their keys all the same).
#[derive(Debug, Clone, Default)]
pub struct LedgerFile {
    path: Option<PathBuf>,
}

impl LedgerFile {
    /// The ledger file of `repo#number` in `dir` (none without one: a command run outside a
    /// clone). A ledger an earlier release kept that cannot be moved to its place is an error:
    /// a reply it records could go out again.
    pub fn new(dir: Option<&StateDir>, repo: &RepoId, number: u64) -> Result<Self, StoreError> {
        let path = dir
            .map(|dir| {
                dir.pr_file("ledger", repo, number)
                    .map_err(|e| StoreError::Io {
                        message: format!("cannot open the reply ledger: {e}"),
                        hint: e.hint(),
                    })
            })
            .transpose()?;
        Ok(Self { path })
    }

    /// Loads the ledger (none: empty). A corrupt ledger is an input error (exit 3).
    pub fn load(&self) -> Result<Ledger, StoreError> {
        let Some(path) = &self.path else {
            return Ok(Ledger::default());
        };
        crate::state::load(path).map_err(|e| StoreError::Unusable {
            path: path.clone(),
            message: e.describe("reply ledger"),
            hint: "fix it, or move it away: the replies themselves carry their keys, so nothing is posted twice".to_owned(),
        })
    }

    /// Saves `ledger`, atomically.
    pub fn save(&self, ledger: &Ledger) -> Result<(), StoreError> {
        let Some(path) = &self.path else {
            return Ok(());
        };
        crate::state::save(path, ledger).map_err(|e| StoreError::Unusable {
            path: path.clone(),
            message: format!("cannot record the reply: {e}"),
            hint: "the reply is posted and carries its key; a rerun will not post it again"
                .to_owned(),
        })
    }
}

/// Loads the ledger of `repo#number`.
pub fn for_pr(dir: &StateDir, repo: &RepoId, number: u64) -> Result<Ledger, StoreError> {
    LedgerFile::new(Some(dir), repo, number)?.load()
}

/// The ledger file as respond's store.
impl review_app::respond::LedgerStore for LedgerFile {
    type Error = StoreError;

    fn load_ledger(&self) -> Result<Ledger, StoreError> {
        self.load()
    }

    fn save_ledger(&self, ledger: &Ledger) -> Result<(), StoreError> {
        self.save(ledger)
    }
}
