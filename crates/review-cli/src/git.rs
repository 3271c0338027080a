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
        return Ok(String::from_utf8_lossy(&out.stdout).trim().to_owned());
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

/// The URL of the `origin` remote, if there is one.
pub fn origin_url(dir: &Path) -> Result<Option<String>, GitError> {
    match git(dir, &["remote", "get-url", "origin"]) {
        Ok(url) => Ok(Some(url)),
        Err(GitError::Failed { .. }) => {
            git(dir, &["rev-parse", "--git-dir"])?;
            Ok(None)
        }
        Err(e) => Err(e),
    }
}
