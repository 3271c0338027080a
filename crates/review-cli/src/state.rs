//! The files the tool keeps: where they live, and how they are read and written.
//!
//! Per pull request, under the repository's git common directory (shared by worktrees):
//! `review/KIND-OWNER-NAME-N.json`. Every write goes through a temporary file in the same
//! directory and a rename, so a reader never sees half a file and an interrupted run leaves the
//! previous one. A file that does not parse is reported, never overwritten.

use std::io;
use std::path::{Path, PathBuf};

use review_core::model::{PullRequest, RepoId};
use serde::Serialize;
use serde::de::DeserializeOwned;

use crate::git::{GitError, GitVcs};

/// The path of the `kind` state file of `pr` (`journal`, `ledger`, `pre-review`, `watch`,
/// `decisions`).
pub fn pr_file(vcs: &GitVcs, kind: &str, pr: &PullRequest) -> Result<PathBuf, GitError> {
    pr_file_for(vcs, kind, &pr.repo, pr.number)
}

/// [`pr_file`] for a pull request known by repository and number only.
pub fn pr_file_for(
    vcs: &GitVcs,
    kind: &str,
    repo: &RepoId,
    number: u64,
) -> Result<PathBuf, GitError> {
    Ok(vcs
        .common_dir()?
        .join("review")
        .join(format!("{kind}-{}-{}-{number}.json", repo.owner, repo.name)))
}

/// Holds an exclusive lock on `path` (through `path.lock` beside it) while `f` runs, so
/// read-modify-write cycles of several processes on one file never lose an update. Blocks
/// until the lock is free; the lock goes with the process if it dies.
pub fn locked<T, E: From<io::Error>>(
    path: &Path,
    f: impl FnOnce() -> Result<T, E>,
) -> Result<T, E> {
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir)?;
    }
    let mut name = path.as_os_str().to_owned();
    name.push(".lock");
    let lock = std::fs::OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(PathBuf::from(name))?;
    lock.lock()?;
    let result = f();
    drop(lock);
    result
}

/// Loads, changes and saves a state file under its lock ([`locked`]). A file that does not
/// parse is left as it is and reported.
pub fn update<T, R>(path: &Path, change: impl FnOnce(&mut T) -> R) -> Result<R, LoadError>
where
    T: Serialize + DeserializeOwned + Default,
{
    locked(path, || {
        let mut value: T = load(path)?;
        let out = change(&mut value);
        save(path, &value)?;
        Ok(out)
    })
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
    // Unique per process and call: two threads of one process may write the same file.
    static NEXT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    let n = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let tmp = dir.join(format!(".{name}.{}.{n}.tmp", std::process::id()));
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

    #[test]
    fn concurrent_updates_lose_nothing() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("review/decisions.json");
        std::thread::scope(|s| {
            for t in 0..8 {
                let path = &path;
                s.spawn(move || {
                    for i in 0..25 {
                        update(path, |v: &mut Vec<String>| v.push(format!("{t}-{i}"))).unwrap();
                    }
                });
            }
        });
        let all: Vec<String> = load(&path).unwrap();
        assert_eq!(all.len(), 200, "every update kept");
    }

    #[test]
    fn a_corrupt_file_is_not_updated() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("d.json");
        std::fs::write(&path, "{\"seen\": [trunc").unwrap();
        let err = update(&path, |v: &mut Vec<String>| v.push("x".into())).unwrap_err();
        assert!(matches!(err, LoadError::Corrupt(_)));
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "{\"seen\": [trunc");
    }
}
