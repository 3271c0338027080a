//! What the CLI reads from the local git repository, through the `git` command: the checked-out
//! branch and the `origin` remote. (Writes to git come with the VCS port's adapter.)

use std::path::Path;
use std::process::{Command, Stdio};

/// Why git could not answer.
#[derive(Debug, thiserror::Error)]
pub enum GitError {
    /// `git` is not installed or could not run.
    #[error("cannot run git: {0}")]
    Spawn(#[source] std::io::Error),
    /// Not inside a git repository.
    #[error("not inside a git repository")]
    NotARepo,
    /// git answered with an error.
    #[error("git {args} failed: {message}")]
    Failed {
        /// The arguments.
        args: String,
        /// What git said.
        message: String,
    },
}

fn git(dir: &Path, args: &[&str]) -> Result<String, GitError> {
    let out = Command::new("git")
        .args(args)
        .current_dir(dir)
        .stdin(Stdio::null())
        .output()
        .map_err(GitError::Spawn)?;
    if out.status.success() {
        // Only the end: porcelain formats start with a meaningful space (" M path").
        return Ok(String::from_utf8_lossy(&out.stdout).trim_end().to_owned());
    }
    let message = String::from_utf8_lossy(&out.stderr).trim().to_owned();
    if message.contains("not a git repository") {
        return Err(GitError::NotARepo);
    }
    Err(GitError::Failed {
        args: args.join(" "),
        message,
    })
}

/// The checked-out branch, or `None` on a detached HEAD.
pub fn current_branch(dir: &Path) -> Result<Option<String>, GitError> {
    match git(dir, &["symbolic-ref", "--quiet", "--short", "HEAD"]) {
        Ok(branch) => Ok(Some(branch)),
        Err(GitError::Failed { .. }) => {
            // `symbolic-ref` fails on a detached HEAD; make sure this is a repository at all.
            git(dir, &["rev-parse", "--git-dir"])?;
            Ok(None)
        }
        Err(e) => Err(e),
    }
}

/// The remote that stands for the repository pull requests are opened on, as `gh` chooses it:
/// the one `gh repo set-default` marked (`remote.NAME.gh-resolved = base`), else `upstream` (a
/// fork's clone), else `origin`. Its name and URL, if there is one.
pub fn base_remote(dir: &Path) -> Result<Option<(String, String)>, GitError> {
    // Not a repository at all is an error; a repository without remotes is `None`.
    git(dir, &["rev-parse", "--git-dir"])?;
    let url = |name: &str| git(dir, &["remote", "get-url", name]).ok();
    let marked = git(
        dir,
        &["config", "--get-regexp", r"^remote\..*\.gh-resolved$"],
    )
    .unwrap_or_default()
    .lines()
    .find_map(|line| {
        let (key, value) = line.split_once(' ')?;
        let name = key.strip_prefix("remote.")?.strip_suffix(".gh-resolved")?;
        (value.trim() == "base").then(|| name.to_owned())
    });
    for name in marked
        .into_iter()
        .chain(["upstream".to_owned(), "origin".to_owned()])
    {
        if let Some(u) = url(&name) {
            return Ok(Some((name, u)));
        }
    }
    Ok(None)
}

/// The local repository as the VCS port: reads and commits through the `git` command.
///
/// Commits stage exactly the paths given (`git commit -- PATH...`), never everything; files are
/// read and written only inside the work tree.
#[derive(Debug, Clone)]
pub struct GitVcs {
    root: std::path::PathBuf,
    /// Where the tool's own uncommitted edits are recorded, if journaling.
    journal: Option<std::path::PathBuf>,
}

/// One edit the tool wrote and has not committed yet.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct JournalEntry {
    /// The file.
    pub path: String,
    /// A hash of the content the tool wrote.
    pub written: String,
}

/// A stable hash of a file's content (FNV-1a, 64 bits).
fn content_hash(text: &str) -> String {
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    for byte in text.bytes() {
        hash ^= u64::from(byte);
        hash = hash.wrapping_mul(0x0000_0100_0000_01b3);
    }
    format!("{hash:016x}")
}

/// The trailer that names the thread a fix commit answers.
pub const THREAD_TRAILER: &str = "Review-Thread:";

impl GitVcs {
    /// The repository containing `dir`.
    pub fn open(dir: &Path) -> Result<Self, GitError> {
        let root = git(dir, &["rev-parse", "--show-toplevel"])?;
        Ok(Self {
            root: root.into(),
            journal: None,
        })
    }

    fn run(&self, args: &[&str]) -> Result<String, GitError> {
        git(&self.root, args)
    }

    /// Records every file the tool writes in `path` until it is committed, so a run killed
    /// between writing and committing leaves a trail the next run can follow.
    #[must_use]
    pub fn with_journal(mut self, path: std::path::PathBuf) -> Self {
        self.journal = Some(path);
        self
    }

    fn read_journal(&self) -> Result<Vec<JournalEntry>, GitError> {
        let Some(path) = &self.journal else {
            return Ok(Vec::new());
        };
        crate::state::load(path).map_err(|e| GitError::Failed {
            args: "(journal)".to_owned(),
            message: format!(
                "{}: {}; fix or delete it",
                path.display(),
                e.describe("fix journal")
            ),
        })
    }

    fn write_journal(&self, entries: &[JournalEntry]) -> Result<(), GitError> {
        let Some(path) = &self.journal else {
            return Ok(());
        };
        if entries.is_empty() {
            return match std::fs::remove_file(path) {
                Err(e) if e.kind() != std::io::ErrorKind::NotFound => Err(GitError::Spawn(e)),
                _ => Ok(()),
            };
        }
        crate::state::save(path, &entries).map_err(GitError::Spawn)
    }

    /// Records in the journal that `path` now holds an edit the tool made through a helper (the
    /// fixer command), so a run killed before the commit recovers it like its own writes.
    pub fn journal_edit(&self, path: &str) -> Result<(), GitError> {
        let full = self.root.join(path);
        let Ok(text) = std::fs::read_to_string(&full) else {
            return Ok(());
        };
        let mut entries = self.read_journal()?;
        entries.retain(|e| e.path != path);
        entries.push(JournalEntry {
            path: path.to_owned(),
            written: content_hash(&text),
        });
        self.write_journal(&entries)
    }

    /// Recovers from a run killed between writing a fix and committing it: a journaled file that
    /// still holds exactly what the tool wrote is put back as committed (the fix is made again
    /// from the plan); a file changed since is the user's and is left alone. Returns the paths
    /// put back and those left.
    pub fn recover(&self) -> Result<(Vec<String>, Vec<String>), GitError> {
        let entries = self.read_journal()?;
        let (mut restored, mut left) = (Vec::new(), Vec::new());
        for entry in entries {
            let full = self.root.join(&entry.path);
            let now = std::fs::read_to_string(&full).ok();
            if now.as_deref().map(content_hash) == Some(entry.written.clone()) {
                self.run(&["checkout", "--quiet", "--", &entry.path])?;
                restored.push(entry.path);
            } else if now.is_some() {
                left.push(entry.path);
            }
        }
        self.write_journal(&[])?;
        Ok((restored, left))
    }

    /// The work tree's root.
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// The repository's common directory (shared by its worktrees), where the tool keeps state.
    pub fn common_dir(&self) -> Result<std::path::PathBuf, GitError> {
        self.run(&["rev-parse", "--path-format=absolute", "--git-common-dir"])
            .map(Into::into)
    }

    /// The paths whose content differs between two commits other than in whitespace.
    pub fn substantive_changes(&self, from: &str, to: &str) -> Result<Vec<String>, GitError> {
        let names = self.run(&["diff", "--name-only", from, to])?;
        let mut changed = Vec::new();
        for path in names.lines().filter(|p| !p.is_empty()) {
            let diff = self.run(&["diff", "-w", "--ignore-blank-lines", from, to, "--", path])?;
            if diff.lines().any(|l| l.starts_with("@@"))
                || self
                    .run(&["cat-file", "-e", &format!("{to}:{path}")])
                    .is_err()
            {
                changed.push(path.to_owned());
            }
        }
        Ok(changed)
    }

    /// Pushes HEAD to `branch` on the current branch's remote (its upstream's, else `origin`),
    /// without force: a remote that moved rejects the push.
    pub fn push_head(&self, branch: &str) -> Result<String, GitError> {
        let remote = current_branch(&self.root)?
            .and_then(|b| self.run(&["config", &format!("branch.{b}.remote")]).ok())
            .filter(|r| !r.is_empty())
            .unwrap_or_else(|| "origin".to_owned());
        self.run(&[
            "push",
            "--quiet",
            &remote,
            &format!("HEAD:refs/heads/{branch}"),
        ])?;
        Ok(remote)
    }

    /// Which of `paths` have changes in the working tree (or the index) against HEAD, untracked
    /// files included.
    pub fn changed(&self, paths: &[String]) -> Result<Vec<String>, GitError> {
        if paths.is_empty() {
            return Ok(Vec::new());
        }
        let mut tracked = vec!["diff", "--name-only", "HEAD", "--"];
        tracked.extend(paths.iter().map(String::as_str));
        let mut untracked = vec!["ls-files", "--others", "--exclude-standard", "--"];
        untracked.extend(paths.iter().map(String::as_str));
        let listed = format!("{}\n{}", self.run(&tracked)?, self.run(&untracked)?);
        Ok(paths
            .iter()
            .filter(|p| listed.lines().any(|l| l == p.as_str()))
            .cloned()
            .collect())
    }

    /// Commits exactly `paths` (stated one by one: never `add -A`) with `message`, letting the
    /// repository's hooks run. Returns the new commit's abbreviated id (at least 7 characters).
    /// When the commit is refused (a hook, nothing to commit), the paths are unstaged again and
    /// the working tree is left as it was.
    pub fn commit_paths_exactly(
        &self,
        paths: &[String],
        message: &str,
    ) -> Result<String, GitError> {
        for p in paths {
            review_core::ports::check_repo_path(p).map_err(|e| GitError::Failed {
                args: format!("add -- {p}"),
                message: e.to_string(),
            })?;
        }
        let mut add = vec!["add", "--"];
        add.extend(paths.iter().map(String::as_str));
        self.run(&add)?;
        let mut commit = vec!["commit", "--quiet", "--message", message, "--"];
        commit.extend(paths.iter().map(String::as_str));
        if let Err(e) = self.run(&commit) {
            let mut reset = vec!["reset", "--quiet", "--"];
            reset.extend(paths.iter().map(String::as_str));
            let _ = self.run(&reset);
            return Err(e);
        }
        self.run(&["rev-parse", "--short=7", "HEAD"])
    }

    /// The abbreviated id of HEAD (at least 7 characters, as `git rev-parse --short` gives).
    pub fn short_head(&self) -> Result<String, GitError> {
        self.run(&["rev-parse", "--short=7", "HEAD"])
    }

    /// The full id of HEAD.
    pub fn head_id(&self) -> Result<String, GitError> {
        self.run(&["rev-parse", "HEAD"])
    }

    /// The commits of `from..to`, oldest first.
    pub fn commits_between(&self, from: &str, to: &str) -> Result<Vec<String>, GitError> {
        let out = self.run(&["rev-list", "--reverse", &format!("{from}..{to}")])?;
        Ok(out.lines().map(str::to_owned).collect())
    }

    /// The paths `commit` changes: against each parent (a merge's included), both sides of a
    /// rename, as git stores them (not quoted).
    pub fn paths_changed_by(&self, commit: &str) -> Result<Vec<String>, GitError> {
        let out = self.run(&[
            "diff-tree",
            "--no-commit-id",
            "--name-only",
            "-r",
            "-z",
            "--no-renames",
            "-m",
            "--root",
            commit,
        ])?;
        Ok(out
            .split('\0')
            .filter(|p| !p.is_empty())
            .map(str::to_owned)
            .collect())
    }

    /// Adds a worktree at `path` on a detached `commit`.
    pub fn add_worktree(&self, path: &Path, commit: &str) -> Result<Self, GitError> {
        let p = path.to_string_lossy();
        self.run(&["worktree", "add", "--quiet", "--detach", &p, commit])?;
        Self::open(path)
    }

    /// Removes the worktree at `path` (and what is in it).
    pub fn remove_worktree(&self, path: &Path) -> Result<(), GitError> {
        let p = path.to_string_lossy();
        self.run(&["worktree", "remove", "--force", &p]).map(|_| ())
    }

    /// Forgets worktrees whose directories are gone (best effort).
    pub fn prune_worktrees(&self) {
        let _ = self.run(&["worktree", "prune"]);
    }

    /// Applies `commits` on HEAD, in order; on a conflict, aborts and leaves HEAD as it was.
    pub fn cherry_pick(&self, commits: &[String]) -> Result<(), GitError> {
        let mut args = vec!["cherry-pick", "--allow-empty"];
        args.extend(commits.iter().map(String::as_str));
        self.run(&args).map(|_| ()).inspect_err(|_| {
            let _ = self.run(&["cherry-pick", "--abort"]);
        })
    }

    /// Whether `commit` exists locally.
    pub fn has_commit(&self, commit: &str) -> bool {
        self.run(&["cat-file", "-e", &format!("{commit}^{{commit}}")])
            .is_ok()
    }

    /// Whether `a` is an ancestor of (or equal to) `b`.
    pub fn is_ancestor(&self, a: &str, b: &str) -> bool {
        self.run(&["merge-base", "--is-ancestor", a, b]).is_ok()
    }

    /// The commits of `range` (anything `git log` takes), newest first, each with the threads
    /// its `Review-Thread:` trailers name (a round commit of the review loop names several).
    pub fn fix_commits(&self, range: &[&str]) -> Result<Vec<(String, Vec<String>)>, GitError> {
        let mut args = vec!["log", "--format=%H%x1f%B%x1e"];
        args.extend_from_slice(range);
        let out = self.run(&args)?;
        Ok(out
            .split('\u{1e}')
            .filter_map(|entry| {
                let (sha, body) = entry.trim().split_once('\u{1f}')?;
                let threads = body
                    .lines()
                    .filter_map(|l| l.trim().strip_prefix(THREAD_TRAILER))
                    .map(|t| t.trim().to_owned())
                    .filter(|t| !t.is_empty())
                    .collect();
                Some((sha.trim().to_owned(), threads))
            })
            .collect())
    }

    fn checked(&self, path: &str) -> Result<std::path::PathBuf, review_core::ports::VcsError> {
        review_core::ports::check_repo_path(path)?;
        let full = self.root.join(path);
        // A symbolic link in the work tree can point anywhere: where the path really leads (as
        // far as it exists) must be inside the work tree, and not in git's own directory.
        let mut existing = full.as_path();
        while !existing.exists() {
            match existing.parent() {
                Some(parent) => existing = parent,
                None => break,
            }
        }
        let inside = match (existing.canonicalize(), self.root.canonicalize()) {
            (Ok(real), Ok(root)) => real.starts_with(&root) && !real.starts_with(root.join(".git")),
            _ => false,
        };
        if !inside {
            return Err(review_core::ports::VcsError::InvalidPath(format!(
                "{path} (it leads outside the work tree)"
            )));
        }
        Ok(full)
    }
}

fn vcs_error(e: GitError) -> review_core::ports::VcsError {
    review_core::ports::VcsError::Other {
        message: e.to_string(),
        source: Some(Box::new(e)),
    }
}

impl review_core::ports::Vcs for GitVcs {
    fn head(&self) -> Result<review_core::model::CommitId, review_core::ports::VcsError> {
        self.run(&["rev-parse", "HEAD"])
            .map(review_core::model::CommitId)
            .map_err(vcs_error)
    }

    fn branch(&self) -> Result<Option<String>, review_core::ports::VcsError> {
        current_branch(&self.root).map_err(vcs_error)
    }

    fn changed_paths(
        &self,
        since: &review_core::model::CommitId,
    ) -> Result<Vec<String>, review_core::ports::VcsError> {
        let out = self
            .run(&["diff", "--name-only", &since.0, "HEAD"])
            .map_err(vcs_error)?;
        Ok(out.lines().map(str::to_owned).collect())
    }

    fn dirty_paths(&self) -> Result<Vec<String>, review_core::ports::VcsError> {
        let out = self
            .run(&["status", "--porcelain=v1", "-z", "--untracked-files=no"])
            .map_err(vcs_error)?;
        let mut paths = Vec::new();
        let mut entries = out.split('\0');
        while let Some(entry) = entries.next() {
            let Some(path) = entry.get(3..).filter(|p| !p.is_empty()) else {
                continue;
            };
            paths.push(path.to_owned());
            if entry.starts_with('R') || entry.starts_with('C') {
                // A rename or copy is followed by its source path.
                if let Some(from) = entries.next() {
                    paths.push(from.to_owned());
                }
            }
        }
        Ok(paths)
    }

    fn read_file(&self, path: &str) -> Result<Option<String>, review_core::ports::VcsError> {
        let full = self.checked(path)?;
        match std::fs::read_to_string(&full) {
            Ok(text) => Ok(Some(text)),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
            Err(e) => Err(review_core::ports::VcsError::Other {
                message: format!("cannot read {path}: {e}"),
                source: Some(Box::new(e)),
            }),
        }
    }

    fn write_file(&self, path: &str, contents: &str) -> Result<(), review_core::ports::VcsError> {
        let full = self.checked(path)?;
        if !full.is_file() {
            return Err(review_core::ports::VcsError::InvalidPath(format!(
                "{path} (no such file)"
            )));
        }
        // Journal first: a run killed after the write finds its own edit on the next start.
        let mut entries = self.read_journal().map_err(vcs_error)?;
        entries.retain(|e| e.path != path);
        entries.push(JournalEntry {
            path: path.to_owned(),
            written: content_hash(contents),
        });
        self.write_journal(&entries).map_err(vcs_error)?;
        std::fs::write(&full, contents).map_err(|e| review_core::ports::VcsError::Other {
            message: format!("cannot write {path}: {e}"),
            source: Some(Box::new(e)),
        })
    }

    fn commit_paths(
        &self,
        paths: &[String],
        message: &str,
    ) -> Result<review_core::model::CommitId, review_core::ports::VcsError> {
        if paths.is_empty() {
            return Err(review_core::ports::VcsError::NothingToCommit(Vec::new()));
        }
        for p in paths {
            self.checked(p)?;
        }
        let mut args = vec!["commit", "--quiet", "--message", message, "--"];
        args.extend(paths.iter().map(String::as_str));
        match self.run(&args) {
            Ok(_) => {
                let mut entries = self.read_journal().map_err(vcs_error)?;
                entries.retain(|e| !paths.contains(&e.path));
                self.write_journal(&entries).map_err(vcs_error)?;
                self.head()
            }
            Err(GitError::Failed { message, .. })
                if message.contains("nothing") && message.contains("commit") =>
            {
                Err(review_core::ports::VcsError::NothingToCommit(
                    paths.to_vec(),
                ))
            }
            Err(GitError::Failed { message, .. }) => {
                Err(review_core::ports::VcsError::CommitRejected(message))
            }
            Err(e) => Err(vcs_error(e)),
        }
    }
}

#[cfg(test)]
mod tests {
    use review_core::ports::Vcs as _;

    use super::*;

    fn sh(dir: &Path, args: &[&str]) {
        let ok = Command::new("git")
            .args(args)
            .current_dir(dir)
            .env("GIT_CONFIG_GLOBAL", "/dev/null")
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .env("GIT_AUTHOR_NAME", "t")
            .env("GIT_AUTHOR_EMAIL", "t@example.com")
            .env("GIT_COMMITTER_NAME", "t")
            .env("GIT_COMMITTER_EMAIL", "t@example.com")
            .stdout(Stdio::null())
            .status()
            .unwrap()
            .success();
        assert!(ok, "git {args:?}");
    }

    #[test]
    fn the_base_remote_is_chosen_as_gh_chooses_it() {
        let dir = tempfile::tempdir().unwrap();
        sh(dir.path(), &["init", "-q"]);
        assert_eq!(base_remote(dir.path()).unwrap(), None);
        sh(
            dir.path(),
            &[
                "remote",
                "add",
                "origin",
                "https://github.com/me/widgets.git",
            ],
        );
        assert_eq!(base_remote(dir.path()).unwrap().unwrap().0, "origin");
        sh(
            dir.path(),
            &[
                "remote",
                "add",
                "upstream",
                "https://github.com/acme/widgets.git",
            ],
        );
        assert_eq!(
            base_remote(dir.path()).unwrap(),
            Some((
                "upstream".to_owned(),
                "https://github.com/acme/widgets.git".to_owned()
            )),
            "a fork's clone: the pull requests are upstream's"
        );
        sh(dir.path(), &["config", "remote.origin.gh-resolved", "base"]);
        assert_eq!(
            base_remote(dir.path()).unwrap().unwrap().0,
            "origin",
            "gh repo set-default"
        );
        let outside = tempfile::tempdir().unwrap();
        assert!(base_remote(outside.path()).is_err());
    }

    #[test]
    fn an_unstaged_edit_is_read_with_its_whole_path() {
        let dir = tempfile::tempdir().unwrap();
        sh(dir.path(), &["init", "-q"]);
        std::fs::write(dir.path().join("notes.md"), "a\n").unwrap();
        std::fs::write(dir.path().join("lib.rs"), "a\n").unwrap();
        sh(dir.path(), &["add", "."]);
        sh(dir.path(), &["commit", "-q", "-m", "start"]);
        std::fs::write(dir.path().join("notes.md"), "b\n").unwrap();
        std::fs::write(dir.path().join("new.rs"), "c\n").unwrap();
        let vcs = GitVcs::open(dir.path()).unwrap();
        // Porcelain starts with a space (" M notes.md"): it must not be trimmed away.
        assert_eq!(vcs.dirty_paths().unwrap(), vec!["notes.md".to_owned()]);
        let asked = ["notes.md", "lib.rs", "new.rs"].map(str::to_owned);
        assert_eq!(
            vcs.changed(&asked).unwrap(),
            vec!["notes.md".to_owned(), "new.rs".to_owned()]
        );
    }

    #[test]
    fn a_symbolic_link_out_of_the_work_tree_is_no_way_out() {
        let outside = tempfile::tempdir().unwrap();
        std::fs::write(outside.path().join("lib.rs"), "a\n").unwrap();
        let dir = tempfile::tempdir().unwrap();
        sh(dir.path(), &["init", "-q"]);
        std::fs::create_dir(dir.path().join("src")).unwrap();
        std::fs::write(dir.path().join("src/lib.rs"), "a\n").unwrap();
        std::os::unix::fs::symlink(outside.path(), dir.path().join("ext")).unwrap();
        std::os::unix::fs::symlink(
            outside.path().join("lib.rs"),
            dir.path().join("src/linked.rs"),
        )
        .unwrap();
        std::os::unix::fs::symlink("lib.rs", dir.path().join("src/alias.rs")).unwrap();
        let vcs = GitVcs::open(dir.path()).unwrap();
        for path in ["ext/lib.rs", "src/linked.rs", "ext/new.rs", ".git/config"] {
            assert!(
                matches!(
                    vcs.read_file(path),
                    Err(review_core::ports::VcsError::InvalidPath(_))
                ),
                "{path}"
            );
            assert!(vcs.write_file(path, "b\n").is_err(), "{path}");
        }
        assert_eq!(
            std::fs::read_to_string(outside.path().join("lib.rs")).unwrap(),
            "a\n"
        );
        // A link that stays inside is a path like any other.
        assert_eq!(
            vcs.read_file("src/alias.rs").unwrap().as_deref(),
            Some("a\n")
        );
        assert_eq!(vcs.read_file("src/missing.rs").unwrap(), None);
    }
}
