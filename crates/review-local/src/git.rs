//! The local git repository, through the `git` command: the checked-out branch and remotes, and
//! [`GitVcs`], the VCS port's adapter (reads, commits, pushes, worktrees, the journal).
//!
//! Every git command the tool runs is given:
//! - `--literal-pathspecs`: a path is a file name, never a pathspec (`:(exclude)x`, `:!x`,
//!   `:(glob)*` match nothing but a file of that name);
//! - `-c core.hooksPath=<an empty directory>` (unless the user opted in with `--run-hooks` or
//!   `run-hooks = true` in their own config): hooks come from the pull request's tree with
//!   husky, lefthook or pre-commit, so running them would run the PR's code;
//! - `-c core.fsmonitor=false`: a monitor command is another way to run code on `git status`;
//! - no token variables in its environment, but for a push (which may need one for the
//!   credential helper): hooks the user opted into, and whatever else git runs, see none.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::OnceLock;

use review_core::model::RepoId;

/// Why git could not answer.
#[derive(Debug, thiserror::Error)]
pub enum GitError {
    /// `git` is not installed or could not run.
    #[error("cannot run git: {0}")]
    Spawn(#[source] std::io::Error),
    /// Not inside a git repository.
    #[error("not inside a git repository")]
    NotARepo,
    /// git answered with an error. Shown as `git commit failed: ...`: the subcommand and what
    /// git (or a hook) said, not the whole command line with its paths and options.
    #[error("git {} failed: {message}", subcommand(args))]
    Failed {
        /// The arguments, all of them (for the audit and debugging).
        args: String,
        /// What git said.
        message: String,
    },
}

/// The subcommand of a git command line (`commit` of `commit -F - -- src/a.rs`).
fn subcommand(args: &str) -> &str {
    args.split_whitespace().next().unwrap_or(args)
}

/// Whether the tool's git commands run the repository's hooks; set once, at start.
static RUN_HOOKS: OnceLock<bool> = OnceLock::new();

/// Lets the tool's git commands run the repository's hooks (`--run-hooks`, or `run-hooks = true`
/// in the user's own config). Off unless called.
pub fn set_run_hooks(on: bool) {
    let _ = RUN_HOOKS.set(on);
}

fn run_hooks() -> bool {
    RUN_HOOKS.get().copied().unwrap_or(false)
}

/// An empty directory to point `core.hooksPath` at: no hook is ever found there. One per
/// process, in the system's temporary directory, made private to the user.
static NO_HOOKS: OnceLock<Result<PathBuf, String>> = OnceLock::new();

fn no_hooks_dir() -> Result<&'static Path, GitError> {
    let made = NO_HOOKS.get_or_init(|| {
        let dir = std::env::temp_dir().join(format!(
            "review-no-hooks-{}-{}",
            std::process::id(),
            crate::audit::run_id()
        ));
        let mut builder = std::fs::DirBuilder::new();
        std::os::unix::fs::DirBuilderExt::mode(&mut builder, 0o700);
        match builder.create(&dir) {
            Ok(()) => Ok(dir),
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => Ok(dir),
            Err(e) => Err(format!("cannot make an empty hooks directory: {e}")),
        }
    });
    match made {
        Ok(dir) => {
            // Empty, or it is not what it should be.
            if std::fs::read_dir(dir).map_or(true, |mut d| d.next().is_some()) {
                return Err(GitError::Failed {
                    args: "(hooks)".to_owned(),
                    message: format!("{} is not an empty directory", dir.display()),
                });
            }
            Ok(dir)
        }
        Err(message) => Err(GitError::Failed {
            args: "(hooks)".to_owned(),
            message: message.clone(),
        }),
    }
}

/// Removes the empty hooks directory this process made, if it made one.
pub fn cleanup() {
    if let Some(Ok(dir)) = NO_HOOKS.get() {
        let _ = std::fs::remove_dir(dir);
    }
}

/// The `git` command with the options every call gets (see the module's documentation).
#[expect(clippy::disallowed_methods, reason = "git's one command builder")]
fn git_command(dir: &Path) -> Result<Command, GitError> {
    let mut cmd = Command::new("git");
    for var in crate::command::token_variables() {
        cmd.env_remove(var);
    }
    cmd.arg("--literal-pathspecs")
        .args(["-c", "core.fsmonitor=false"])
        .current_dir(dir)
        .stdin(Stdio::null());
    if !run_hooks() {
        let hooks = no_hooks_dir()?;
        cmd.arg("-c")
            .arg(format!("core.hooksPath={}", hooks.display()));
    }
    Ok(cmd)
}

#[expect(
    clippy::disallowed_methods,
    reason = "a push passes the token variables on to git's credential helper"
)]
fn git(dir: &Path, args: &[&str]) -> Result<String, GitError> {
    let mut cmd = git_command(dir)?;
    if args.first() == Some(&"push") {
        // A push may authenticate through a credential helper that reads the token.
        for var in crate::command::token_variables() {
            if let Some(value) = std::env::var_os(var) {
                cmd.env(var, value);
            }
        }
    }
    let out = cmd
        .args(args)
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

/// Reads a remote's URL as the repository it names and its host, by the host's own rules
/// (GitHub's are `review_github::remote::HostedRepo`'s), or `None` when it names none. The
/// adapters here know git, not a host's URLs: the caller passes its reader.
pub type ReadRemote = dyn Fn(&str) -> Option<(String, RepoId)> + Sync;

/// The owner of the repository `branch` is pushed to, read as `gh` reads it: the remote named by
/// `branch.B.pushRemote`, else `remote.pushDefault`, else `branch.B.remote`, and that remote's
/// URL as configured. `None` when none is set or the URL names no GitHub repository.
pub fn push_owner(dir: &Path, branch: &str, read: &ReadRemote) -> Option<String> {
    let get = |key: &str| {
        git(dir, &["config", "--get", key])
            .ok()
            .filter(|v| !v.is_empty())
    };
    let remote = get(&format!("branch.{branch}.pushRemote"))
        .or_else(|| get("remote.pushDefault"))
        .or_else(|| get(&format!("branch.{branch}.remote")))?;
    let url = get(&format!("remote.{remote}.pushurl"))
        .or_else(|| get(&format!("remote.{remote}.url")))?;
    read(&url).map(|(_, repo)| repo.owner)
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
/// Commits stage exactly the paths given, by literal path, never everything; files are read and
/// written only inside the work tree.
#[derive(Debug, Clone)]
pub struct GitVcs {
    root: PathBuf,
    /// Where the tool's own uncommitted edits are recorded, if journaling.
    journal: Option<PathBuf>,
    /// Where commits and pushes are recorded.
    audit: Option<crate::audit::Audit>,
}

/// One edit the tool wrote and has not committed yet.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct JournalEntry {
    /// The file.
    pub path: String,
    /// A hash of the content the tool wrote.
    pub written: String,
    /// Whether the tool (or its fixer) created the file: undoing the edit removes it.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub created: bool,
}

/// A stable hash of a file's content (FNV-1a, 64 bits), of its bytes (a binary file is hashed
/// like any other).
fn content_hash(bytes: &[u8]) -> String {
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    for &byte in bytes {
        hash ^= u64::from(byte);
        hash = hash.wrapping_mul(0x0000_0100_0000_01b3);
    }
    format!("{hash:016x}")
}

/// What the journal hashes for the file at `full`: a regular file's bytes, a symbolic link's
/// target (never followed: it may lead to `/dev/zero` or out of the work tree), else nothing.
fn held_bytes(full: &Path) -> Option<Vec<u8>> {
    let meta = std::fs::symlink_metadata(full).ok()?;
    if meta.file_type().is_symlink() {
        let target = std::fs::read_link(full).ok()?;
        let mut bytes = b"symlink:".to_vec();
        bytes.extend(target.as_os_str().as_encoded_bytes());
        Some(bytes)
    } else if meta.is_file() {
        std::fs::read(full).ok()
    } else {
        None
    }
}

/// The trailer that names the thread a fix commit answers.
pub const THREAD_TRAILER: &str = "Review-Thread:";

/// Why a push was refused before git was asked.
#[derive(Debug, thiserror::Error)]
pub enum PushRefused {
    /// No remote points at the repository the PR's branch lives in.
    #[error(
        "no remote points at {repo}, where the pull request's branch lives; add one (`git remote add {name} https://{host}/{repo}.git`) and run again"
    )]
    NoRemote {
        /// The head repository.
        repo: String,
        /// Its host.
        host: String,
        /// A name for the remote to add.
        name: String,
    },
    /// The PR's head on GitHub is not in HEAD's history: pushing would throw commits away.
    #[error(
        "the pull request's head {head} is not an ancestor of HEAD; pull or rebase onto it first"
    )]
    NotAhead {
        /// The PR's head.
        head: String,
    },
    /// The PR's head repository is not known (an old server, or a deleted fork).
    #[error("GitHub did not say where the pull request's branch lives; push it yourself")]
    UnknownHead,
    /// git failed.
    #[error(transparent)]
    Git(#[from] GitError),
}

impl GitVcs {
    /// The path of the `kind` state file of `repo#number` under this clone's common directory
    /// ([`crate::state::pr_file_for`]).
    pub fn state_file(
        &self,
        kind: &str,
        repo: &RepoId,
        number: u64,
    ) -> Result<PathBuf, crate::state::PathError> {
        let common = self
            .common_dir()
            .map_err(|e| crate::state::PathError::Git(Box::new(e)))?;
        crate::state::pr_file_for(&common, kind, repo, number)
    }

    /// Where the tool keeps this clone's files (its git common directory).
    ///
    /// # Errors
    /// When git cannot name the common directory.
    pub fn state_dir(&self) -> Result<crate::state::StateDir, crate::StoreError> {
        self.common_dir()
            .map(crate::state::StateDir::new)
            .map_err(|e| crate::StoreError::Io {
                message: format!("cannot find the git directory: {e}"),
                hint: "run inside a clone of the pull request's repository".to_owned(),
            })
    }

    /// The repository containing `dir`.
    pub fn open(dir: &Path) -> Result<Self, GitError> {
        let root = git(dir, &["rev-parse", "--show-toplevel"])?;
        Ok(Self {
            root: root.into(),
            journal: None,
            audit: None,
        })
    }

    fn run(&self, args: &[&str]) -> Result<String, GitError> {
        git(&self.root, args)
    }

    /// Records every file the tool writes in `path` until it is committed, so a run killed
    /// between writing and committing leaves a trail the next run can follow.
    #[must_use]
    pub fn with_journal(mut self, path: PathBuf) -> Self {
        self.journal = Some(path);
        self
    }

    /// Records commits and pushes in `audit`.
    #[must_use]
    pub fn with_audit(mut self, audit: crate::audit::Audit) -> Self {
        self.audit = Some(audit);
        self
    }

    fn record(&self, action: &str, target: &str, outcome: &str, detail: &str) {
        if let Some(audit) = &self.audit {
            audit.record(action, target, outcome, detail);
        }
    }

    /// The journal's entries: the tool's own uncommitted edits.
    pub fn journal_entries(&self) -> Result<Vec<JournalEntry>, GitError> {
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
    /// `created` when the file did not exist (or was not tracked and not there) before.
    pub fn journal_edit(&self, path: &str, created: bool) -> Result<(), GitError> {
        let full = self.root.join(path);
        let Some(bytes) = held_bytes(&full) else {
            return Ok(());
        };
        let mut entries = self.journal_entries()?;
        let was_created = entries.iter().any(|e| e.path == path && e.created);
        entries.retain(|e| e.path != path);
        entries.push(JournalEntry {
            path: path.to_owned(),
            written: content_hash(&bytes),
            created: created || was_created,
        });
        self.write_journal(&entries)
    }

    /// Whether `path` holds exactly what the tool last wrote there (its own uncommitted edit),
    /// not something of the user's.
    pub fn is_own_edit(&self, path: &str) -> Result<bool, GitError> {
        let now = held_bytes(&self.root.join(path));
        Ok(self
            .journal_entries()?
            .iter()
            .any(|e| e.path == path && now.as_deref().map(content_hash) == Some(e.written.clone())))
    }

    /// Undoes the tool's own uncommitted edit of each of `paths` that still holds exactly what
    /// the tool wrote: a tracked file is put back as committed (one index entry, by literal
    /// path), a file the tool created is removed. A file changed since is the user's and is
    /// left alone. Returns the paths undone and those left.
    pub fn undo_own_edits(&self, paths: &[String]) -> Result<(Vec<String>, Vec<String>), GitError> {
        let entries = self.journal_entries()?;
        let (mut undone, mut left) = (Vec::new(), Vec::new());
        let mut keep = Vec::new();
        for entry in entries {
            if !paths.contains(&entry.path) {
                keep.push(entry);
                continue;
            }
            // A journal names files the tool wrote; one that does not pass the path check was
            // not written by it (a hand-edited or hostile journal) and is never touched.
            if review_core::ports::check_repo_path(&entry.path).is_err()
                || self.checked(&entry.path).is_err()
            {
                left.push(entry.path);
                continue;
            }
            let full = self.root.join(&entry.path);
            let now = held_bytes(&full);
            if now.as_deref().map(content_hash) == Some(entry.written.clone()) {
                if entry.created {
                    std::fs::remove_file(&full).map_err(GitError::Spawn)?;
                } else {
                    self.restore_one(&entry.path)?;
                }
                undone.push(entry.path);
            } else if now.is_some() {
                left.push(entry.path);
            }
        }
        self.write_journal(&keep)?;
        Ok((undone, left))
    }

    /// Puts one tracked file back as the index holds it: exactly one index entry, whose path is
    /// `path` itself (never a directory, never a pattern).
    fn restore_one(&self, path: &str) -> Result<(), GitError> {
        let listed = self.run(&["ls-files", "--stage", "-z", "--", path])?;
        let entries: Vec<&str> = listed.split('\0').filter(|e| !e.is_empty()).collect();
        let exact = entries.len() == 1
            && entries[0]
                .split_once('\t')
                .is_some_and(|(_, name)| name == path);
        if !exact {
            return Err(GitError::Failed {
                args: format!("checkout -- {path}"),
                message: format!("{path} is not exactly one tracked file; left as it is"),
            });
        }
        self.run(&["checkout", "--quiet", "--", path]).map(|_| ())
    }

    /// Recovers from a run killed between writing a fix and committing it: a journaled file that
    /// still holds exactly what the tool wrote is put back as committed (the fix is made again
    /// from the plan), or removed if the tool created it; a file changed since is the user's and
    /// is left alone. Returns the paths put back and those left.
    pub fn recover(&self) -> Result<(Vec<String>, Vec<String>), GitError> {
        let paths: Vec<String> = self
            .journal_entries()?
            .into_iter()
            .map(|e| e.path)
            .collect();
        self.undo_own_edits(&paths)
    }

    /// The work tree's root.
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// The repository's common directory (shared by its worktrees), where the tool keeps state.
    pub fn common_dir(&self) -> Result<PathBuf, GitError> {
        self.run(&["rev-parse", "--path-format=absolute", "--git-common-dir"])
            .map(Into::into)
    }

    /// The paths whose content differs between two commits other than in whitespace.
    pub fn substantive_changes(&self, from: &str, to: &str) -> Result<Vec<String>, GitError> {
        let names = self.run(&["diff", "--name-only", "-z", from, to])?;
        let mut changed = Vec::new();
        for path in names.split('\0').filter(|p| !p.is_empty()) {
            let diff = self.run(&[
                "diff",
                "--no-color",
                "--no-ext-diff",
                "--no-textconv",
                "-w",
                "--ignore-blank-lines",
                from,
                to,
                "--",
                path,
            ])?;
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

    /// The remote whose URL is `repo` on `host` (case as GitHub ignores it), as `read` reads
    /// each, if any.
    pub fn remote_for(
        &self,
        host: &str,
        repo: &RepoId,
        read: &ReadRemote,
    ) -> Result<Option<String>, GitError> {
        let names = self.run(&["remote"])?;
        for name in names.lines().map(str::trim).filter(|n| !n.is_empty()) {
            // The URL as the user configured it (a push URL when there is one), before any
            // `insteadOf` rewriting: the repository the user said this remote is.
            let url = self
                .run(&["config", "--get", &format!("remote.{name}.pushurl")])
                .or_else(|_| self.run(&["config", "--get", &format!("remote.{name}.url")]));
            let Ok(url) = url else {
                continue;
            };
            if let Some((on, named)) = read(&url)
                && on.eq_ignore_ascii_case(host)
                && named.owner.eq_ignore_ascii_case(&repo.owner)
                && named.name.eq_ignore_ascii_case(&repo.name)
            {
                return Ok(Some(name.to_owned()));
            }
        }
        Ok(None)
    }

    /// Pushes HEAD to the pull request's own branch: `HEAD:refs/heads/<branch>` with a plain
    /// refspec (no `+`, no `--force`), only to the remote whose URL is the repository the
    /// branch lives in (`head`, on `host`), and only when the PR's head on GitHub (`pr_head`)
    /// is an ancestor of HEAD. Remote URLs are read with `read`. Returns the remote pushed to.
    pub fn push_to_pr(
        &self,
        host: &str,
        head: Option<&review_core::model::HeadRepo>,
        branch: &str,
        pr_head: &str,
        read: &ReadRemote,
    ) -> Result<String, PushRefused> {
        let head = head.ok_or(PushRefused::UnknownHead)?;
        let remote =
            self.remote_for(host, &head.repo, read)?
                .ok_or_else(|| PushRefused::NoRemote {
                    repo: head.repo.to_string(),
                    host: host.to_owned(),
                    name: if head.cross_repository {
                        head.repo.owner.to_ascii_lowercase()
                    } else {
                        "origin".to_owned()
                    },
                })?;
        if !self.has_commit(pr_head) || !self.is_ancestor(pr_head, "HEAD") {
            return Err(PushRefused::NotAhead {
                head: pr_head.get(..7).unwrap_or(pr_head).to_owned(),
            });
        }
        let refspec = format!("HEAD:refs/heads/{branch}");
        let pushed = self.run(&["push", "--quiet", "--no-verify", &remote, &refspec]);
        let target = format!("{remote} {refspec}");
        match &pushed {
            Ok(_) => self.record("push", &target, "ok", &self.head_id().unwrap_or_default()),
            Err(e) => self.record("push", &target, "failed", &e.to_string()),
        }
        pushed?;
        Ok(remote)
    }

    /// Untracked files that are not ignored, by their whole path.
    pub fn untracked(&self) -> Result<Vec<String>, GitError> {
        let out = self.run(&["ls-files", "--others", "--exclude-standard", "-z"])?;
        Ok(out
            .split('\0')
            .filter(|p| !p.is_empty())
            .map(str::to_owned)
            .collect())
    }

    /// Which of `paths` have changes in the working tree (or the index) against HEAD, untracked
    /// (not ignored) files included.
    pub fn changed(&self, paths: &[String]) -> Result<Vec<String>, GitError> {
        if paths.is_empty() {
            return Ok(Vec::new());
        }
        let mut tracked = vec!["diff", "--name-only", "-z", "HEAD", "--"];
        tracked.extend(paths.iter().map(String::as_str));
        let mut untracked = vec!["ls-files", "--others", "--exclude-standard", "-z", "--"];
        untracked.extend(paths.iter().map(String::as_str));
        let listed = format!("{}\0{}", self.run(&tracked)?, self.run(&untracked)?);
        Ok(paths
            .iter()
            .filter(|p| listed.split('\0').any(|l| l == p.as_str()))
            .cloned()
            .collect())
    }

    /// Commits exactly `paths` (stated one by one, by literal path: never `add -A`) with
    /// `message`. Returns the new commit's abbreviated id (at least 7 characters). When the
    /// commit is refused (a hook the user opted into, nothing to commit), the paths are
    /// unstaged again and the working tree is left as it was.
    pub fn commit_paths_exactly(
        &self,
        paths: &[String],
        message: &str,
    ) -> Result<String, GitError> {
        for p in paths {
            self.checked(p).map_err(|e| GitError::Failed {
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
            self.record("commit", &paths.join(" "), "failed", &e.to_string());
            return Err(e);
        }
        self.forget_journaled(paths)?;
        let sha = self.run(&["rev-parse", "--short=7", "HEAD"])?;
        self.record(
            "commit",
            &self.head_id().unwrap_or_default(),
            "ok",
            &paths.join(" "),
        );
        Ok(sha)
    }

    /// Drops `paths` from the journal: their edits are committed.
    fn forget_journaled(&self, paths: &[String]) -> Result<(), GitError> {
        let mut entries = self.journal_entries()?;
        let before = entries.len();
        entries.retain(|e| !paths.contains(&e.path));
        if entries.len() != before {
            self.write_journal(&entries)?;
        }
        Ok(())
    }

    /// The abbreviated id of HEAD (at least 7 characters, as `git rev-parse --short` gives).
    pub fn short_head(&self) -> Result<String, GitError> {
        self.run(&["rev-parse", "--short=7", "HEAD"])
    }

    /// The text of `path` in `commit`, if it is a regular file there of at most `max_bytes` of
    /// UTF-8 text: a link, a submodule, a binary or a larger file reads as none. Read from git's
    /// objects, never from the work tree.
    pub fn text_at(
        &self,
        commit: &str,
        path: &str,
        max_bytes: usize,
    ) -> Result<Option<String>, GitError> {
        if review_core::ports::check_repo_path(path).is_err() {
            return Ok(None);
        }
        let listing = self.run(&["ls-tree", "-z", "--full-tree", commit, "--", path])?;
        let Some((meta, name)) = listing.split('\0').next().and_then(|e| e.split_once('\t')) else {
            return Ok(None);
        };
        let mut fields = meta.split(' ');
        let (Some(mode), Some(kind), Some(oid)) = (fields.next(), fields.next(), fields.next())
        else {
            return Ok(None);
        };
        if name != path || kind != "blob" || !matches!(mode, "100644" | "100755") {
            return Ok(None);
        }
        let size: usize = self
            .run(&["cat-file", "-s", oid])?
            .trim()
            .parse()
            .unwrap_or(usize::MAX);
        if size > max_bytes {
            return Ok(None);
        }
        let out = git_command(&self.root)?
            .args(["cat-file", "blob", oid])
            .output()
            .map_err(GitError::Spawn)?;
        if !out.status.success() || out.stdout.contains(&0) {
            return Ok(None);
        }
        Ok(String::from_utf8(out.stdout).ok())
    }

    /// The commit that last touched `line` (from 1) of `path` at `rev` (`HEAD`, or a commit id),
    /// by `git blame --porcelain` (the path literal, after `--`); `None` when `rev` has no such
    /// path or line, or the path is not one of the repository's.
    pub fn line_origin(
        &self,
        rev: &str,
        path: &str,
        line: u32,
    ) -> Result<Option<String>, GitError> {
        if line == 0 || rev.starts_with('-') || review_core::ports::check_repo_path(path).is_err() {
            return Ok(None);
        }
        let range = format!("{line},{line}");
        match self.run(&["blame", "--porcelain", "-L", &range, rev, "--", path]) {
            Ok(out) => Ok(blamed_commit(&out)),
            Err(GitError::Failed { message, .. })
                if message.contains("no such path") || message.contains("has only") =>
            {
                Ok(None)
            }
            Err(e) => Err(e),
        }
    }

    /// The full id of HEAD.
    pub fn head_id(&self) -> Result<String, GitError> {
        self.run(&["rev-parse", "HEAD"])
    }

    /// The full id of a commit git knows by `rev` (a short id, say), if it knows one.
    pub fn resolve_commit(&self, rev: &str) -> Option<String> {
        self.run(&[
            "rev-parse",
            "--verify",
            "--quiet",
            &format!("{rev}^{{commit}}"),
        ])
        .ok()
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
        let mut tree = Self::open(path)?;
        tree.audit.clone_from(&self.audit);
        Ok(tree)
    }

    /// Whether the work tree has changes against HEAD: tracked files changed (staged or not),
    /// or files that are neither tracked nor ignored.
    pub fn is_dirty(&self) -> Result<bool, GitError> {
        let out = self.run(&["status", "--porcelain", "-z", "--untracked-files=all"])?;
        Ok(!out.trim_matches('\0').is_empty())
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
        let result = self.run(&args).map(|_| ()).inspect_err(|_| {
            let _ = self.run(&["cherry-pick", "--abort"]);
        });
        let outcome = if result.is_ok() { "ok" } else { "failed" };
        self.record(
            "commit",
            &self.head_id().unwrap_or_default(),
            outcome,
            &format!("cherry-pick {}", commits.join(" ")),
        );
        result
    }

    /// A patch of the journaled edits: the tracked files' changes against HEAD, and each file
    /// the tool created in full. `git apply` takes it back.
    pub fn patch_of(&self, entries: &[JournalEntry]) -> Result<String, GitError> {
        let tracked: Vec<&str> = entries
            .iter()
            .filter(|e| !e.created)
            .map(|e| e.path.as_str())
            .collect();
        let mut text = String::new();
        if !tracked.is_empty() {
            // A patch whatever the user's diff settings: no colour, no external diff tool, no
            // text conversion; binary changes as binary patches.
            let mut args = vec![
                "diff",
                "--no-color",
                "--no-ext-diff",
                "--no-textconv",
                "--binary",
                "HEAD",
                "--",
            ];
            args.extend(&tracked);
            text.push_str(&self.run(&args)?);
            text.push('\n');
        }
        // Each file the tool created, in full, as git writes a new file's patch (a binary one
        // as a binary patch). `diff --no-index` answers 1 when the files differ.
        for e in entries.iter().filter(|e| e.created) {
            if !self.root.join(&e.path).is_file() {
                continue;
            }
            let out = git_command(&self.root)?
                .args([
                    "diff",
                    "--no-index",
                    "--no-color",
                    "--no-ext-diff",
                    "--no-textconv",
                    "--binary",
                    "--",
                    "/dev/null",
                    &e.path,
                ])
                .output()
                .map_err(GitError::Spawn)?;
            if !matches!(out.status.code(), Some(0 | 1)) {
                return Err(GitError::Failed {
                    args: format!("diff --no-index -- /dev/null {}", e.path),
                    message: String::from_utf8_lossy(&out.stderr).trim().to_owned(),
                });
            }
            text.push_str(&String::from_utf8_lossy(&out.stdout));
        }
        Ok(text)
    }

    /// The stable patch-id of `commit`'s change (the same for a commit rebased elsewhere).
    pub fn patch_id(&self, commit: &str) -> Option<String> {
        use std::io::Write as _;
        let diff = self.run(&["diff-tree", "-p", "--root", commit]).ok()?;
        let mut child = git_command(&self.root)
            .ok()?
            .args(["patch-id", "--stable"])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .ok()?;
        if let Some(mut stdin) = child.stdin.take() {
            let _ = stdin.write_all(diff.as_bytes());
            let _ = stdin.write_all(b"\n");
        }
        let out = child.wait_with_output().ok()?;
        String::from_utf8_lossy(&out.stdout)
            .split_whitespace()
            .next()
            .map(str::to_owned)
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
    /// the `Review-Thread:` trailers of its trailer block name (a round commit of the review loop
    /// names several). A `Review-Thread:` line elsewhere in a message names nothing.
    pub fn fix_commits(&self, range: &[&str]) -> Result<Vec<(String, Vec<String>)>, GitError> {
        let format = format!(
            "--format=%H%x1f%(trailers:key={},valueonly,separator=%x1d)%x1e",
            THREAD_TRAILER.trim_end_matches(':')
        );
        let mut args = vec!["log", format.as_str()];
        args.extend_from_slice(range);
        let out = self.run(&args)?;
        Ok(out
            .split('\u{1e}')
            .filter_map(|entry| {
                let (sha, trailers) = entry.trim().split_once('\u{1f}')?;
                let threads = trailers
                    .split('\u{1d}')
                    .map(str::trim)
                    .filter(|t| !t.is_empty())
                    .map(str::to_owned)
                    .collect();
                Some((sha.trim().to_owned(), threads))
            })
            .collect())
    }

    fn checked(&self, path: &str) -> Result<PathBuf, review_core::ports::VcsError> {
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
        // `-z`: a name git would quote (one not in ASCII, say) comes as it is.
        let out = self
            .run(&["diff", "--name-only", "-z", &since.0, "HEAD"])
            .map_err(vcs_error)?;
        Ok(out
            .split('\0')
            .filter(|p| !p.is_empty())
            .map(str::to_owned)
            .collect())
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
        let mut entries = self.journal_entries().map_err(vcs_error)?;
        let created = entries.iter().any(|e| e.path == path && e.created);
        entries.retain(|e| e.path != path);
        entries.push(JournalEntry {
            path: path.to_owned(),
            written: content_hash(contents.as_bytes()),
            created,
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
        // A file the tool created is not known to git yet: stage it by its literal path first.
        let untracked = self.untracked().map_err(vcs_error)?;
        let new: Vec<&str> = paths
            .iter()
            .filter(|p| untracked.contains(p))
            .map(String::as_str)
            .collect();
        if !new.is_empty() {
            let mut add = vec!["add", "--"];
            add.extend(&new);
            self.run(&add).map_err(vcs_error)?;
        }
        let mut args = vec!["commit", "--quiet", "--message", message, "--"];
        args.extend(paths.iter().map(String::as_str));
        let committed = self.run(&args);
        if committed.is_err() && !new.is_empty() {
            let mut reset = vec!["reset", "--quiet", "--"];
            reset.extend(&new);
            let _ = self.run(&reset);
        }
        match committed {
            Ok(_) => {
                self.forget_journaled(paths).map_err(vcs_error)?;
                let head = self.head()?;
                self.record("commit", &head.0, "ok", &paths.join(" "));
                Ok(head)
            }
            Err(GitError::Failed { message, .. })
                if message.contains("nothing") && message.contains("commit") =>
            {
                self.record("commit", &paths.join(" "), "failed", &message);
                Err(review_core::ports::VcsError::NothingToCommit(
                    paths.to_vec(),
                ))
            }
            Err(GitError::Failed { message, .. }) => {
                self.record("commit", &paths.join(" "), "failed", &message);
                Err(review_core::ports::VcsError::CommitRejected(message))
            }
            Err(e) => Err(vcs_error(e)),
        }
    }
}

/// The commit `git blame --porcelain` names for its first line: the first word of its first
/// line, a full object id; `None` for a line not committed yet (all zeros) or output that is
/// not blame's.
fn blamed_commit(porcelain: &str) -> Option<String> {
    let first = porcelain.lines().next()?;
    let sha = first.split(' ').next()?;
    let is_id = matches!(sha.len(), 40 | 64) && sha.chars().all(|c| c.is_ascii_hexdigit());
    (is_id && sha.chars().any(|c| c != '0')).then(|| sha.to_ascii_lowercase())
}

#[cfg(test)]
pub(crate) mod tests {
    use review_core::ports::Vcs as _;

    use super::*;

    /// Runs git in `dir` with no user or system configuration, asserting it succeeds.
    #[expect(
        clippy::disallowed_methods,
        reason = "a test's own git, to set up a repository"
    )]
    pub(crate) fn sh(dir: &Path, args: &[&str]) {
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
    fn blame_output_names_the_commit_of_its_line() {
        let sha = "3f2a9c1d".repeat(5);
        let porcelain = format!(
            "{sha} 3 3 1\nauthor t\nauthor-mail <t@example.com>\nfilename -n\n\tlet x = 1;"
        );
        assert_eq!(blamed_commit(&porcelain), Some(sha));
        let zeros = "0".repeat(40);
        assert_eq!(
            blamed_commit(&format!("{zeros} 1 1 1\n\tx")),
            None,
            "not committed"
        );
        assert_eq!(blamed_commit(""), None);
        assert_eq!(blamed_commit("fatal: no such path"), None);
    }

    /// A path that reads as an option or a glob, or holds spaces, is blamed as the file it
    /// names; one that reads as a magic pathspec is not one of the repository's paths.
    #[test]
    fn a_line_is_blamed_by_its_literal_path() {
        let dir = tempfile::tempdir().unwrap();
        sh(dir.path(), &["init", "-q"]);
        let names = ["-n", ":(exclude)x", "src/with space.rs", "src/*.rs", "x"];
        std::fs::create_dir(dir.path().join("src")).unwrap();
        for name in names {
            std::fs::write(dir.path().join(name), "one\ntwo\n").unwrap();
        }
        sh(dir.path(), &["add", "--", "."]);
        sh(dir.path(), &["commit", "-q", "-m", "start"]);
        let start = git(dir.path(), &["rev-parse", "HEAD"]).unwrap();
        std::fs::write(dir.path().join("-n"), "one\nTWO\n").unwrap();
        std::fs::write(dir.path().join("src/with space.rs"), "ONE\ntwo\n").unwrap();
        std::fs::write(dir.path().join("src/*.rs"), "one\nTWO\n").unwrap();
        sh(dir.path(), &["commit", "-q", "-a", "-m", "fix"]);
        let fix = git(dir.path(), &["rev-parse", "HEAD"]).unwrap();
        let vcs = GitVcs::open(dir.path()).unwrap();
        assert_eq!(
            vcs.line_origin(&start, "-n", 2).unwrap(),
            Some(start.clone()),
            "at the commit asked"
        );
        assert_eq!(vcs.line_origin("HEAD", "-n", 2).unwrap(), Some(fix.clone()));
        assert_eq!(
            vcs.line_origin("HEAD", "-n", 1).unwrap(),
            Some(start.clone())
        );
        assert_eq!(
            vcs.line_origin("HEAD", "src/with space.rs", 1).unwrap(),
            Some(fix.clone())
        );
        assert_eq!(vcs.line_origin("HEAD", "src/*.rs", 2).unwrap(), Some(fix));
        assert_eq!(vcs.line_origin("HEAD", "x", 2).unwrap(), Some(start));
        assert_eq!(
            vcs.line_origin("HEAD", ":(exclude)x", 1).unwrap(),
            None,
            "no pathspec"
        );
        assert_eq!(
            vcs.line_origin("HEAD", "x", 9).unwrap(),
            None,
            "no such line"
        );
        assert_eq!(
            vcs.line_origin("HEAD", "gone.rs", 1).unwrap(),
            None,
            "no such path"
        );
        assert_eq!(
            vcs.line_origin("HEAD", "../x", 1).unwrap(),
            None,
            "not the repository's"
        );
    }

    /// Regression: a failing hook's message came after the whole git command line, options and
    /// paths included; it comes after the subcommand alone.
    #[test]
    fn a_git_failure_names_the_subcommand_then_what_git_said() {
        let dir = tempfile::tempdir().unwrap();
        sh(dir.path(), &["init", "-q"]);
        let e = git(
            dir.path(),
            &["commit", "-q", "-m", "x", "--", "no-such-file"],
        )
        .unwrap_err();
        let text = e.to_string();
        assert!(text.starts_with("git commit failed: "), "{text}");
        assert!(
            !text.contains("no-such-file --") && !text.contains("-m x"),
            "{text}"
        );
    }

    /// Regression: `changed_paths` read git's quoted names (`"docs/caf\303\251.md"`), so a
    /// doc whose name is not ASCII did not read as a doc.
    #[test]
    fn changed_paths_are_read_as_named_whatever_their_letters() {
        let dir = tempfile::tempdir().unwrap();
        sh(dir.path(), &["init", "-q"]);
        std::fs::write(dir.path().join("lib.rs"), "a\n").unwrap();
        sh(dir.path(), &["add", "."]);
        sh(dir.path(), &["commit", "-q", "-m", "start"]);
        let start = review_core::model::CommitId(git(dir.path(), &["rev-parse", "HEAD"]).unwrap());
        std::fs::create_dir(dir.path().join("docs")).unwrap();
        std::fs::write(dir.path().join("docs/café notes.md"), "déjà vu\n").unwrap();
        std::fs::write(dir.path().join("Ünïcode \"q\".txt"), "naïve\n").unwrap();
        sh(dir.path(), &["add", "."]);
        sh(dir.path(), &["commit", "-q", "-m", "docs"]);
        let vcs = GitVcs::open(dir.path()).unwrap();
        let expected = ["docs/café notes.md", "Ünïcode \"q\".txt"].map(str::to_owned);
        assert_eq!(vcs.changed_paths(&start).unwrap(), expected);
        assert_eq!(vcs.substantive_changes(&start.0, "HEAD").unwrap(), expected);
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
