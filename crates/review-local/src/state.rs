//! The files the tool keeps: where they live, and how they are read and written.
//!
//! Per pull request, under the repository's git common directory (shared by worktrees), in one
//! directory: `review/pulls/OWNER/NAME/N/KIND.json` ([`pr_file_for`]). OWNER and NAME
//! are one path component each ([`path_component`]): no two repositories share a directory,
//! whatever their names (`a-b/c` and `a/b-c` do not meet), and the two spellings of one
//! repository (GitHub's names ignore case) do.
//!
//! Every write goes through a temporary file in the same directory, flushed to disk, and a
//! rename, after which the directory is flushed too: a reader never sees half a file, and an
//! interrupted run or a power cut leaves the previous file or the new one. A file that does not
//! parse is reported, never overwritten.
//!
//! Upgrades: earlier releases kept the files as `review/KIND-OWNER-NAME-N.json`. The first
//! access to a file through [`pr_file_for`] moves the old one to its new place, once, under the
//! old file's lock; a file already at the new place is never overwritten.

use std::io;
use std::path::{Path, PathBuf};

use review_core::model::RepoId;
use serde::Serialize;
use serde::de::DeserializeOwned;

/// Where the tool keeps a clone's files: under `review/` in git's common directory, which the
/// clone's worktrees share. The stores take one ([`crate::loop_files::LoopFiles::new`],
/// [`crate::ledger::LedgerFile::new`], [`crate::audit::Audit::new`]); a clone gives its own
/// ([`crate::git::GitVcs::state_dir`]), and a test any directory.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StateDir(PathBuf);

impl StateDir {
    /// The state directory of the git common directory `common`.
    pub fn new(common: impl Into<PathBuf>) -> Self {
        Self(common.into())
    }

    /// The git common directory.
    pub fn common(&self) -> &Path {
        &self.0
    }

    /// The path of the `kind` state file of `repo#number` here ([`pr_file_for`]).
    ///
    /// # Errors
    /// When a file an earlier release kept for it cannot be moved to its place.
    pub fn pr_file(&self, kind: &str, repo: &RepoId, number: u64) -> Result<PathBuf, PathError> {
        pr_file_for(&self.0, kind, repo, number)
    }
}

/// Why the place of a state file could not be given.
#[derive(Debug, thiserror::Error)]
pub enum PathError {
    /// The repository's git directory could not be found.
    #[error("cannot find the git directory: {0}")]
    Git(#[source] Box<dyn std::error::Error + Send + Sync>),
    /// The file an earlier release wrote could not be moved to where this release keeps it.
    #[error(
        "cannot move {} (written by an earlier release) to {}: {source}",
        from.display(),
        to.display()
    )]
    Move {
        /// The old file.
        from: PathBuf,
        /// Its new place.
        to: PathBuf,
        /// What failed.
        source: io::Error,
    },
}

impl PathError {
    /// What to do about it.
    pub fn hint(&self) -> String {
        match self {
            Self::Git(_) => "run inside a clone of the pull request's repository".to_owned(),
            Self::Move { .. } => "check the permissions of the git directory, or move the file \
                                  there yourself; nothing was changed"
                .to_owned(),
        }
    }
}

/// The path of the `kind` state file (`journal`, `ledger`, `pre-review`, `watch`, `decisions`,
/// `followup`, ...) of `repo#number`: `KIND.json` in its directory,
/// `review/pulls/OWNER/NAME/N` under the git common directory `common` (shared by a clone's
/// worktrees). A file an earlier release kept for it (`review/KIND-OWNER-NAME-N.json`) is
/// moved there first.
pub fn pr_file_for(
    common: &Path,
    kind: &str,
    repo: &RepoId,
    number: u64,
) -> Result<PathBuf, PathError> {
    let review = common.join("review");
    let path = pr_dir_in(&review, repo, number).join(format!("{kind}.json"));
    let old = review.join(format!("{kind}-{}-{}-{number}.json", repo.owner, repo.name));
    migrate(&old, &path).map_err(|source| PathError::Move {
        from: old,
        to: path.clone(),
        source,
    })?;
    Ok(path)
}

/// The directory of the files of `repo#number` in `review`: `pulls/OWNER/NAME/N`, OWNER and
/// NAME as [`path_component`]s. The follow-up's task files and worktrees are in its
/// `followup/`.
fn pr_dir_in(review: &Path, repo: &RepoId, number: u64) -> PathBuf {
    review
        .join("pulls")
        .join(path_component(&repo.owner))
        .join(path_component(&repo.name))
        .join(number.to_string())
}

/// Where earlier releases put the follow-up's task files and worktrees, for every pull
/// request at once.
pub fn legacy_followup_dir(common: &Path) -> PathBuf {
    common.join("review").join("followup")
}

/// An owner or repository name as one path component that no other name gives: ASCII letters
/// in lower case (GitHub's names ignore case), digits, `-`, `_` and `.` (but a leading one)
/// kept, every other byte written `%XX`. Never empty for a non-empty name, never `.` or `..`,
/// never holds a separator.
pub fn path_component(name: &str) -> String {
    let mut out = String::with_capacity(name.len());
    for (i, byte) in name.bytes().enumerate() {
        let c = char::from(byte.to_ascii_lowercase());
        if c.is_ascii_alphanumeric() || c == '-' || c == '_' || (c == '.' && i > 0) {
            out.push(c);
        } else {
            out.push_str(&format!("%{byte:02X}"));
        }
    }
    out
}

/// Moves the file an earlier release kept (`old`) to `new`, once: under `old`'s lock (the one
/// that release's writers took), only while `old` exists and `new` does not. Idempotent, and
/// safe when several processes try at once: the first moves it, the others find it gone. When
/// both exist (the earlier release ran again after an upgrade), `new` is kept, `old` is left
/// as it is, and a warning says so.
fn migrate(old: &Path, new: &Path) -> io::Result<()> {
    if std::fs::symlink_metadata(old).is_err() {
        return Ok(());
    }
    let result = locked(old, || {
        if std::fs::symlink_metadata(old).is_err() {
            return Ok(());
        }
        if std::fs::symlink_metadata(new).is_ok() {
            log::warn!(
                "{} was written by an earlier release, and {} exists too: the newer one is \
                 used, the old one is left as it is (move it away once you have looked)",
                old.display(),
                new.display()
            );
            return Ok(());
        }
        if let Some(dir) = new.parent() {
            create_dirs(dir)?;
        }
        std::fs::rename(old, new)?;
        for dir in [new.parent(), old.parent()].into_iter().flatten() {
            sync_dir(dir)?;
        }
        Ok(())
    });
    if std::fs::symlink_metadata(old).is_err() {
        // Its lock file is of no use any more; whoever still waits on it finds the file gone.
        let _ = std::fs::remove_file(lock_path(old));
    }
    result
}

fn lock_path(path: &Path) -> PathBuf {
    let mut name = path.as_os_str().to_owned();
    name.push(".lock");
    PathBuf::from(name)
}

/// Holds an exclusive lock on `path` (through `path.lock` beside it) while `f` runs, so
/// read-modify-write cycles of several processes on one file never lose an update. Blocks
/// until the lock is free; the lock goes with the process if it dies.
pub fn locked<T, E: From<io::Error>>(
    path: &Path,
    f: impl FnOnce() -> Result<T, E>,
) -> Result<T, E> {
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        create_dirs(dir)?;
    }
    let lock = std::fs::OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(lock_path(path))?;
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

/// Writes `value` as pretty JSON, atomically and durably ([`write_atomically`]), creating the
/// directory if needed.
pub fn save<T: Serialize>(path: &Path, value: &T) -> io::Result<()> {
    let text = serde_json::to_string_pretty(value).map_err(io::Error::other)?;
    if let Some(dir) = path.parent() {
        create_dirs(dir)?;
    }
    write_atomically(path, &text)
}

/// Writes `text` to `path` through a temporary file in the same directory, flushed to disk
/// before it is renamed over `path`; the directory is flushed after the rename, so the new
/// name survives a power cut. A failure leaves no temporary file behind.
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
    let written = (|| {
        use std::io::Write as _;
        let mut file = std::fs::File::create(&tmp)?;
        file.write_all(text.as_bytes())?;
        sync_file(&file, &tmp)?;
        drop(file);
        std::fs::rename(&tmp, path)
    })();
    if let Err(e) = written {
        let _ = std::fs::remove_file(&tmp);
        return Err(e);
    }
    sync_dir(dir)
}

/// Creates `dir` and its missing parents, flushing each parent a directory was created in.
fn create_dirs(dir: &Path) -> io::Result<()> {
    if dir.as_os_str().is_empty() || dir.is_dir() {
        return Ok(());
    }
    if let Some(parent) = dir.parent() {
        create_dirs(parent)?;
    }
    match std::fs::create_dir(dir) {
        Ok(()) => {}
        // Another process made it meanwhile.
        Err(e) if e.kind() == io::ErrorKind::AlreadyExists && dir.is_dir() => return Ok(()),
        Err(e) => return Err(e),
    }
    match dir.parent().filter(|p| !p.as_os_str().is_empty()) {
        Some(parent) => sync_dir(parent),
        None => sync_dir(Path::new(".")),
    }
}

/// Flushes a file's content to disk.
fn sync_file(file: &std::fs::File, path: &Path) -> io::Result<()> {
    file.sync_all()?;
    record_sync(Synced::File, path);
    Ok(())
}

/// Flushes a directory's entries (names created, renamed or removed in it) to disk, where the
/// system can: elsewhere (no directory handles, a file system that refuses) the rename's own
/// guarantees are all there is.
fn sync_dir(dir: &Path) -> io::Result<()> {
    #[cfg(unix)]
    {
        let synced = std::fs::File::open(dir).and_then(|d| d.sync_all());
        match synced {
            Ok(()) => record_sync(Synced::Dir, dir),
            Err(e)
                if matches!(
                    e.kind(),
                    io::ErrorKind::InvalidInput
                        | io::ErrorKind::Unsupported
                        | io::ErrorKind::PermissionDenied
                ) => {}
            Err(e) => return Err(e),
        }
    }
    #[cfg(not(unix))]
    let _ = dir;
    Ok(())
}

/// What was flushed, as the tests see it.
#[cfg_attr(not(test), allow(dead_code, reason = "only the tests look"))]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Synced {
    File,
    Dir,
}

#[cfg(test)]
thread_local! {
    /// Every flush made on this thread, in order.
    static SYNCS: std::cell::RefCell<Vec<(Synced, PathBuf)>> = const { std::cell::RefCell::new(Vec::new()) };
}

#[cfg(test)]
fn record_sync(what: Synced, path: &Path) {
    SYNCS.with(|s| s.borrow_mut().push((what, path.to_path_buf())));
}

#[cfg(not(test))]
fn record_sync(_: Synced, _: &Path) {}

#[cfg(test)]
mod tests {
    use super::*;

    fn git_repo() -> (tempfile::TempDir, crate::git::GitVcs) {
        let dir = tempfile::tempdir().unwrap();
        crate::git::tests::sh(dir.path(), &["init", "-q"]);
        let vcs = crate::git::GitVcs::open(dir.path()).unwrap();
        (dir, vcs)
    }

    fn repo(text: &str) -> RepoId {
        RepoId::parse(text).unwrap()
    }

    /// Every file under `dir`, relative to it.
    fn files_under(dir: &Path) -> Vec<String> {
        let mut out = Vec::new();
        let mut todo = vec![dir.to_path_buf()];
        while let Some(d) = todo.pop() {
            for entry in std::fs::read_dir(&d).unwrap() {
                let path = entry.unwrap().path();
                if path.is_dir() {
                    todo.push(path);
                } else {
                    let rel = path.strip_prefix(dir).unwrap();
                    out.push(rel.to_string_lossy().into_owned());
                }
            }
        }
        out.sort();
        out
    }

    #[test]
    fn a_save_flushes_the_file_before_its_rename_and_the_directory_after() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("review/pulls/acme/state.json");
        SYNCS.with(|s| s.borrow_mut().clear());
        save(&path, &vec!["kept".to_owned()]).unwrap();
        let syncs = SYNCS.with(|s| s.borrow().clone());
        let parent = path.parent().unwrap();
        let file_at = syncs
            .iter()
            .position(|(what, p)| {
                *what == Synced::File
                    && p.parent() == Some(parent)
                    && p.file_name().unwrap().to_string_lossy().ends_with(".tmp")
            })
            .unwrap_or_else(|| panic!("the temporary file is flushed: {syncs:?}"));
        assert!(
            syncs[file_at + 1..]
                .iter()
                .any(|(what, p)| *what == Synced::Dir && p == parent),
            "the directory is flushed after the rename: {syncs:?}"
        );
        for created in ["review", "review/pulls", "review/pulls/acme"] {
            let made = dir.path().join(created);
            assert!(
                syncs[..file_at]
                    .iter()
                    .any(|(what, p)| *what == Synced::Dir && Some(p.as_path()) == made.parent()),
                "the directory {created} was created durably: {syncs:?}"
            );
        }
        assert_eq!(load::<Vec<String>>(&path).unwrap(), vec!["kept".to_owned()]);
        assert_eq!(
            files_under(dir.path()),
            vec!["review/pulls/acme/state.json".to_owned()],
            "no temporary file left"
        );

        // An update goes through the same write.
        SYNCS.with(|s| s.borrow_mut().clear());
        update(&path, |v: &mut Vec<String>| v.push("more".to_owned())).unwrap();
        let syncs = SYNCS.with(|s| s.borrow().clone());
        assert!(
            syncs.iter().any(|(what, _)| *what == Synced::File),
            "{syncs:?}"
        );
        assert_eq!(
            syncs.last().map(|(what, p)| (*what, p.as_path())),
            Some((Synced::Dir, parent))
        );
        assert_eq!(load::<Vec<String>>(&path).unwrap().len(), 2);
    }

    #[test]
    fn a_failed_write_leaves_no_temporary_file() {
        let dir = tempfile::tempdir().unwrap();
        // The target is a directory: the rename fails.
        let path = dir.path().join("taken");
        std::fs::create_dir_all(path.join("inside")).unwrap();
        assert!(write_atomically(&path, "x").is_err());
        assert_eq!(files_under(dir.path()), Vec::<String>::new());
    }

    #[test]
    fn names_that_differ_never_share_a_directory() {
        let review = Path::new("review");
        let dir = |r: &str| pr_dir_in(review, &repo(r), 1);
        // The old layout gave these two one file.
        assert_ne!(dir("a-b/c"), dir("a/b-c"));
        assert_eq!(dir("a-b/c"), Path::new("review/pulls/a-b/c/1"));
        // One repository, two spellings: GitHub's names ignore case.
        assert_eq!(dir("Acme/Widgets"), dir("acme/widgets"));
        // Nothing escapes its directory or meets another name.
        let names = [
            "a", "A", "a-", "-a", "a.b", ".a", "..", ".", "%2E", "%2e", "a%b", "a_b", "a\\b",
            "a:b", "ü", "%C3%BC", "a.", "a..b",
        ];
        let mut seen = std::collections::BTreeMap::new();
        for name in names {
            let c = path_component(name);
            assert!(
                !c.is_empty() && c != "." && c != ".." && !c.starts_with('.'),
                "{name}: {c}"
            );
            assert!(
                !c.contains('/') && !c.contains('\\') && !c.contains(':'),
                "{name}: {c}"
            );
            if let Some(other) = seen.insert(c.clone(), name) {
                assert!(
                    other.eq_ignore_ascii_case(name),
                    "{other} and {name} meet at {c}"
                );
            }
        }
        assert_eq!(path_component("My.Repo_1-x"), "my.repo_1-x");
        assert_eq!(path_component(".github"), "%2Egithub");
        assert_eq!(path_component("%"), "%25");
    }

    #[test]
    fn a_file_of_the_old_layout_is_moved_once_and_keeps_its_content() {
        let (_dir, vcs) = git_repo();
        let review = vcs.common_dir().unwrap().join("review");
        std::fs::create_dir_all(&review).unwrap();
        let kinds = [
            "journal",
            "ledger",
            "pre-review",
            "watch",
            "decisions",
            "followup",
        ];
        for kind in kinds {
            std::fs::write(
                review.join(format!("{kind}-Acme-my.widgets-7.json")),
                format!("{{\"kind\": \"{kind}\"}}"),
            )
            .unwrap();
        }
        std::fs::write(review.join("decisions-Acme-my.widgets-7.json.lock"), "").unwrap();
        // Another pull request's file stays where it is until it is asked for.
        std::fs::write(review.join("ledger-acme-my.widgets-8.json"), "{}").unwrap();
        for kind in kinds {
            let path = pr_file_for(
                &vcs.common_dir().unwrap(),
                kind,
                &repo("Acme/my.widgets"),
                7,
            )
            .unwrap();
            assert_eq!(
                path,
                review.join(format!("pulls/acme/my.widgets/7/{kind}.json"))
            );
            assert_eq!(
                std::fs::read_to_string(&path).unwrap(),
                format!("{{\"kind\": \"{kind}\"}}")
            );
            // Again: nothing to do.
            assert_eq!(
                pr_file_for(
                    &vcs.common_dir().unwrap(),
                    kind,
                    &repo("Acme/my.widgets"),
                    7
                )
                .unwrap(),
                path
            );
        }
        let mut expected: Vec<String> = kinds
            .iter()
            .map(|k| format!("pulls/acme/my.widgets/7/{k}.json"))
            .collect();
        expected.push("ledger-acme-my.widgets-8.json".to_owned());
        expected.sort();
        assert_eq!(
            files_under(&review),
            expected,
            "old names and their locks are gone"
        );
    }

    #[test]
    fn a_file_at_the_new_place_is_never_overwritten_by_an_old_one() {
        let (_dir, vcs) = git_repo();
        let review = vcs.common_dir().unwrap().join("review");
        let path = pr_file_for(
            &vcs.common_dir().unwrap(),
            "ledger",
            &repo("acme/widgets"),
            1,
        )
        .unwrap();
        save(&path, &"newer").unwrap();
        // The earlier release ran again after the upgrade.
        let old = review.join("ledger-acme-widgets-1.json");
        std::fs::write(&old, "\"older\"").unwrap();
        assert_eq!(
            pr_file_for(
                &vcs.common_dir().unwrap(),
                "ledger",
                &repo("acme/widgets"),
                1
            )
            .unwrap(),
            path
        );
        assert_eq!(load::<String>(&path).unwrap(), "newer");
        assert_eq!(
            std::fs::read_to_string(&old).unwrap(),
            "\"older\"",
            "left for the user"
        );
    }

    #[test]
    fn processes_racing_to_move_an_old_file_move_it_once() {
        for _ in 0..20 {
            let (_dir, vcs) = git_repo();
            let review = vcs.common_dir().unwrap().join("review");
            std::fs::create_dir_all(&review).unwrap();
            std::fs::write(review.join("decisions-acme-widgets-1.json"), "[\"old\"]").unwrap();
            let paths: Vec<PathBuf> = std::thread::scope(|s| {
                let handles: Vec<_> = (0..6)
                    .map(|i| {
                        let vcs = &vcs;
                        s.spawn(move || {
                            let path = pr_file_for(
                                &vcs.common_dir().unwrap(),
                                "decisions",
                                &repo("acme/widgets"),
                                1,
                            )
                            .unwrap();
                            update(&path, |v: &mut Vec<String>| v.push(format!("t{i}"))).unwrap();
                            path
                        })
                    })
                    .collect();
                handles.into_iter().map(|h| h.join().unwrap()).collect()
            });
            assert!(paths.windows(2).all(|w| w[0] == w[1]));
            let all: Vec<String> = load(&paths[0]).unwrap();
            assert_eq!(all.len(), 7, "the old content and every update: {all:?}");
            assert_eq!(all[0], "old");
            assert!(!review.join("decisions-acme-widgets-1.json").exists());
        }
    }

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
