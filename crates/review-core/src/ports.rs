//! Ports: the traits through which the core reaches the review host, the local repository and
//! external fixers. Adapters implement them (`review-github`, the CLI's git module); strict
//! in-memory fakes live in `review-test-support`.

use std::time::Duration;

use async_trait::async_trait;

use crate::model::{CommentId, CommitId, PullRequest, RepoId, ThreadId};
use crate::plan::FixTask;

/// A boxed error from an adapter, kept opaque so adapter types do not leak into the core.
pub type BoxError = Box<dyn std::error::Error + Send + Sync>;

/// An error from the review host.
#[derive(Debug, thiserror::Error)]
pub enum HostError {
    /// The thing named does not exist (or the token cannot see it).
    #[error("not found: {0}")]
    NotFound(String),
    /// The host refused the request (permissions, a pending review, validation).
    #[error("refused: {0}")]
    Refused(String),
    /// Reading or writing failed after retries; the message says what was tried.
    #[error("the review host failed: {message}")]
    Unavailable {
        /// What failed.
        message: String,
        /// The underlying error, if any.
        #[source]
        source: Option<BoxError>,
    },
    /// The host's rate limit (its budget, or a limit on how fast one may ask) is spent, and
    /// resets later than the adapter may wait: every request until then would fail the same
    /// way. Nothing was done by the request that met it.
    #[error("the review host failed: {message}")]
    Throttled {
        /// What failed, and why.
        message: String,
        /// How long until the limit resets, as the host said when it refused, if it did.
        reset_in: Option<Duration>,
        /// The underlying error, if any.
        #[source]
        source: Option<BoxError>,
    },
    /// The host refused the credentials: every request would fail the same way until they are
    /// replaced. Nothing was done by the request that met it.
    #[error("the review host failed: {message}")]
    Unauthorized {
        /// What failed, and why.
        message: String,
        /// The underlying error, if any.
        #[source]
        source: Option<BoxError>,
    },
}

/// Why a post ended uncertain: its answer was lost, and looking for it did not find it (or
/// could not tell). It may have landed, or may land later; it was not sent again. The source of
/// the [`HostError::Unavailable`] such a post returns: see [`HostError::may_have_been_posted`].
#[derive(Debug, thiserror::Error)]
#[error("its answer was lost, and looking for it for {} did not find it", crate::time::seconds(*.looked))]
pub struct MaybePosted {
    /// How long it was looked for.
    pub looked: Duration,
}

impl HostError {
    /// Whether a failed post may still have been posted (a [`MaybePosted`] source): run again,
    /// and the next run's look for its key decides. Nothing is known about any other failure of
    /// a post.
    pub fn may_have_been_posted(&self) -> bool {
        let Self::Unavailable {
            source: Some(source),
            ..
        } = self
        else {
            return false;
        };
        source.downcast_ref::<MaybePosted>().is_some()
    }

    /// Whether every later request would fail the same way ([`HostError::Throttled`],
    /// [`HostError::Unauthorized`]): a caller with several writes to make stops at the first
    /// such error instead of spending a refused request on each.
    pub fn stops_all_requests(&self) -> bool {
        matches!(self, Self::Throttled { .. } | Self::Unauthorized { .. })
    }
}

/// Why a comment is hidden.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MinimizeReason {
    /// Fixed or answered.
    Resolved,
    /// The code changed.
    Outdated,
    /// A repeat of another comment.
    Duplicate,
    /// Off topic.
    OffTopic,
}

/// A comment the tool posted.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PostedComment {
    /// Its node id.
    pub id: CommentId,
    /// Its link.
    pub url: String,
}

/// The review host (GitHub).
///
/// Every method: an id the host does not know is [`HostError::NotFound`]; a spent rate limit is
/// [`HostError::Throttled`] and a refused token [`HostError::Unauthorized`], with nothing done;
/// the host failing on one thread fails that thread's request only, with
/// [`HostError::Unavailable`]. `review_test_support::contract` checks every implementation
/// against these documents, one suite for all.
#[async_trait]
pub trait ReviewHost: Send + Sync {
    /// Reads a pull request with all its review threads (resolved ones included), reviews and
    /// top-level comments.
    ///
    /// Contract: every thread whose comments could not all be read has `all_comments_read ==
    /// false`; a thread page that could not be read is an error, never a silently shorter list.
    async fn pull_request(&self, repo: &RepoId, number: u64) -> Result<PullRequest, HostError>;

    /// Resolves threads, without a reply. Returns one result per id, in the order given; one bad
    /// id never hides the others' results. Resolving a resolved thread succeeds.
    async fn resolve_threads(&self, threads: &[ThreadId]) -> Vec<Result<(), HostError>>;

    /// Reopens a resolved thread. Reopening an open thread succeeds.
    async fn unresolve_thread(&self, thread: &ThreadId) -> Result<(), HostError>;

    /// Posts a reply in a thread. The body must already carry the automated header and the
    /// idempotency key: an empty or unmarked body is refused, and nothing is posted.
    ///
    /// A post is sent once: when its answer is lost the host may look for it and return it, or
    /// fail with an error for which [`HostError::may_have_been_posted`] is true; it never sends
    /// it again. The reply is on the next read of the pull request, last in its thread.
    async fn reply(&self, thread: &ThreadId, body: &str) -> Result<PostedComment, HostError>;

    /// Posts a top-level comment on the pull request whose node id is `subject`. Like a reply,
    /// the body must already carry the automated header and the idempotency key, and it is sent
    /// once.
    async fn comment(&self, subject: &str, body: &str) -> Result<PostedComment, HostError>;

    /// Hides a comment with a reason. Hiding a hidden comment succeeds.
    async fn minimize(&self, comment: &CommentId, reason: MinimizeReason) -> Result<(), HostError>;

    /// Requests a review of the pull request whose node id is `subject` from the bot `login`
    /// (as reviews name it, `copilot-pull-request-reviewer`; a trailing `[bot]` is allowed),
    /// added to the reviewers already requested. Requesting one already requested succeeds. A
    /// login that is not a plain GitHub login is refused, and nothing is sent.
    ///
    /// The default refuses: a host that cannot request reviews says so.
    async fn request_review(&self, subject: &str, login: &str) -> Result<(), HostError> {
        let _ = subject;
        Err(HostError::Refused(format!(
            "this host cannot request a review from {login}"
        )))
    }
}

/// Whether `login` is a plain GitHub login (letters, digits and single hyphens, at most 39,
/// not starting or ending with a hyphen), with or without a trailing `[bot]`.
///
/// ```
/// use review_core::ports::is_plain_login;
///
/// assert!(is_plain_login("copilot-pull-request-reviewer[bot]"));
/// assert!(is_plain_login("coderabbitai"));
/// assert!(!is_plain_login("evil\n/approve"));
/// assert!(!is_plain_login("-x"));
/// assert!(!is_plain_login(""));
/// ```
pub fn is_plain_login(login: &str) -> bool {
    let base = login.strip_suffix("[bot]").unwrap_or(login);
    !base.is_empty()
        && base.len() <= 39
        && !base.starts_with('-')
        && !base.ends_with('-')
        && !base.contains("--")
        && base.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-')
}

/// An error from the local repository.
#[derive(Debug, thiserror::Error)]
pub enum VcsError {
    /// The path is outside the repository, absolute, or names a directory.
    #[error("invalid path `{0}`")]
    InvalidPath(String),
    /// Nothing to commit, or a path given to commit has no change.
    #[error("nothing to commit for {0:?}")]
    NothingToCommit(Vec<String>),
    /// A hook or git itself rejected the commit.
    #[error("commit rejected: {0}")]
    CommitRejected(String),
    /// HEAD is detached or the repository is in a state that forbids the operation.
    #[error("{0}")]
    State(String),
    /// Any other failure.
    #[error("git failed: {message}")]
    Other {
        /// What failed.
        message: String,
        /// The underlying error.
        #[source]
        source: Option<BoxError>,
    },
}

/// Checks that `path` is a plain relative path inside a repository: not empty, not absolute, no
/// `\\`, no control character, no leading `:` (git would read it as pathspec magic), no empty,
/// `.` or `..` component, and no component that is (or a file system could take for) `.git`:
/// `.git` in any case, with trailing dots or spaces (`.git.`), or its short name `git~1` (git's
/// own files are never a fix's). Every [`Vcs`] implementation applies it before touching a
/// file, so no path from a comment can reach outside the work tree. (A symbolic link can still
/// lead outside: an implementation on a real file system checks where the path really goes
/// too.)
pub fn check_repo_path(path: &str) -> Result<(), VcsError> {
    let is_git_dir = |c: &str| {
        let c = c.trim_end_matches(['.', ' ']).to_ascii_lowercase();
        c == ".git" || c == "git~1"
    };
    let bad = path.is_empty()
        || path.starts_with('/')
        || path.starts_with(':')
        || path.contains('\\')
        || path.chars().any(char::is_control)
        || path
            .split('/')
            .any(|c| c.is_empty() || c == "." || c == ".." || is_git_dir(c));
    if bad {
        return Err(VcsError::InvalidPath(path.to_owned()));
    }
    Ok(())
}

/// The local repository the fixes are made in.
///
/// Paths are relative to the repository root, with `/` separators.
pub trait Vcs: Send + Sync {
    /// The commit HEAD points at.
    fn head(&self) -> Result<CommitId, VcsError>;

    /// The checked-out branch, or `None` on a detached HEAD.
    fn branch(&self) -> Result<Option<String>, VcsError>;

    /// Paths changed between `since` and HEAD.
    fn changed_paths(&self, since: &CommitId) -> Result<Vec<String>, VcsError>;

    /// Paths with uncommitted changes (staged or not) in the working tree.
    fn dirty_paths(&self) -> Result<Vec<String>, VcsError>;

    /// The working-tree content of a file, or `None` if it does not exist.
    fn read_file(&self, path: &str) -> Result<Option<String>, VcsError>;

    /// Replaces the working-tree content of an existing file.
    fn write_file(&self, path: &str, contents: &str) -> Result<(), VcsError>;

    /// Commits exactly `paths` (staged by explicit path, never "all") with `message`, and returns
    /// the new commit. Fails if any path has no change; other dirty files stay out of the commit.
    fn commit_paths(&self, paths: &[String], message: &str) -> Result<CommitId, VcsError>;
}

/// An error from the fixer.
#[derive(Debug, thiserror::Error)]
#[error("the fixer failed: {message}")]
pub struct FixerError {
    /// What went wrong, one line.
    pub message: String,
    /// The underlying error.
    #[source]
    pub source: Option<BoxError>,
}

/// What a fixer changed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FixerOutput {
    /// The files it edited, relative to the repository root.
    pub edited: Vec<String>,
}

/// An external fixer (a coding agent or script) for fixes that are not suggestion blocks.
#[async_trait]
pub trait Fixer: Send + Sync {
    /// Makes the fix described by `task` in the working tree, and says which files it edited.
    ///
    /// Contract: edits only files under the repository root, commits nothing; the finding's text
    /// reaches it fenced, as data.
    async fn fix(&self, task: &FixTask) -> Result<FixerOutput, FixerError>;

    /// Puts the working tree back as it was before the last [`Fixer::fix`] of `task`, for a fix
    /// that is not committed (a deny-listed path, the user's uncommitted work, a refused
    /// commit): a finding's edit is committed under its own trailer or undone, never left for
    /// another commit to carry. The default does nothing (for fixers that edit nothing real).
    async fn discard(&self, task: &FixTask) -> Result<(), FixerError> {
        let _ = task;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::check_repo_path;

    #[test]
    fn only_plain_paths_inside_the_work_tree_pass() {
        for good in [
            "src/lib.rs",
            "a",
            ".github.md",
            "dir/.gitignore",
            "x/.gitkeep",
        ] {
            assert!(check_repo_path(good).is_ok(), "{good}");
        }
        for bad in [
            "",
            "/etc/passwd",
            "../outside",
            "src/../../x",
            "./src/lib.rs",
            "src//lib.rs",
            "src\\lib.rs",
            ".git/config",
            "sub/.git/hooks/pre-commit",
            ".GIT/config",
            ".git./config",
            ".git ./config",
            "GIT~1/config",
            "a/git~1/hooks/x",
            ":(exclude)x.py",
            ":!x",
            ":^x",
            ":(glob)*",
            "src/a\nb.rs",
        ] {
            assert!(check_repo_path(bad).is_err(), "{bad}");
        }
    }
}
