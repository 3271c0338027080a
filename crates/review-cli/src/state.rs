//! The files the tool keeps: where they live, and how they are read and written.
//!
//! Per pull request, under the repository's git common directory (shared by worktrees):
//! `review/KIND-OWNER-NAME-N.json`. Every write goes through a temporary file in the same
//! directory and a rename, so a reader never sees half a file and an interrupted run leaves the
//! previous one. A file that does not parse is reported, never overwritten.

use std::io;
use std::path::{Path, PathBuf};

use review_core::model::PullRequest;
use serde::Serialize;
use serde::de::DeserializeOwned;

use crate::git::{GitError, GitVcs};

/// The path of the `kind` state file of `pr` (`journal`, `ledger`, `pre-review`).
pub fn pr_file(vcs: &GitVcs, kind: &str, pr: &PullRequest) -> Result<PathBuf, GitError> {
    Ok(vcs.common_dir()?.join("review").join(format!(
        "{kind}-{}-{}-{}.json",
        pr.repo.owner, pr.repo.name, pr.number
    )))
}

/// Why a state file could not be read.
#[derive(Debug, thiserror::Error)]
pub enum LoadError {
    /// It could not be read at all.
    #[error(transparent)]
    Io(#[from] io::Error),
    /// It is not what the tool wrote.
    #[error("it is corrupt: {0}")]
    Corrupt(#[from] serde_json::Error),
}

impl LoadError {
    /// One line naming the file's role: "the reply ledger is corrupt: ...".
    pub fn describe(&self, what: &str) -> String {
        match self {
            Self::Io(e) => format!("cannot read the {what}: {e}"),
            Self::Corrupt(e) => format!("the {what} is corrupt: {e}"),
        }
    }
}

/// Reads a JSON state file; a missing file is the default value.
pub fn load<T: DeserializeOwned + Default>(path: &Path) -> Result<T, LoadError> {
    match std::fs::read_to_string(path) {
        Ok(text) => Ok(serde_json::from_str(&text)?),
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(T::default()),
        Err(e) => Err(e.into()),
    }
}

/// Writes `value` as pretty JSON, atomically, creating the directory if needed.
pub fn save<T: Serialize>(path: &Path, value: &T) -> io::Result<()> {
    let text = serde_json::to_string_pretty(value).map_err(io::Error::other)?;
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir)?;
    }
    write_atomically(path, &text)
}

/// Writes `text` to `path` through a temporary file in the same directory and a rename.
pub fn write_atomically(path: &Path, text: &str) -> io::Result<()> {
    let dir = path
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let tmp = dir.join(format!(".{name}.{}.tmp", std::process::id()));
    std::fs::write(&tmp, text)?;
    std::fs::rename(&tmp, path).inspect_err(|_| {
        let _ = std::fs::remove_file(&tmp);
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trip_missing_and_corrupt() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("deep/state.json");
        let missing: Vec<String> = load(&path).unwrap();
        assert!(missing.is_empty());
        save(&path, &vec!["a".to_owned()]).unwrap();
        assert_eq!(load::<Vec<String>>(&path).unwrap(), vec!["a".to_owned()]);
        std::fs::write(&path, "{ not json").unwrap();
        assert!(matches!(
            load::<Vec<String>>(&path),
            Err(LoadError::Corrupt(_))
        ));
        assert_eq!(
            std::fs::read_to_string(&path).unwrap(),
            "{ not json",
            "left as it is"
        );
        let leftovers = std::fs::read_dir(path.parent().unwrap()).unwrap().count();
        assert_eq!(leftovers, 1, "no temporary file left behind");
    }
}
