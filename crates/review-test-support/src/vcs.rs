//! A strict in-memory repository and fixer.

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex, MutexGuard};

use async_trait::async_trait;
use review_core::model::CommitId;
use review_core::plan::FixTask;
use review_core::ports::{Fixer, FixerError, FixerOutput, Vcs, VcsError, check_repo_path};

/// A commit the fake repository recorded.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RecordedCommit {
    /// Its id.
    pub id: CommitId,
    /// Its message.
    pub message: String,
    /// The paths it changed.
    pub paths: Vec<String>,
}

#[derive(Debug)]
struct Repo {
    head: CommitId,
    branch: Option<String>,
    committed: BTreeMap<String, String>,
    work: BTreeMap<String, String>,
    commits: Vec<RecordedCommit>,
    reject_commits: Option<String>,
}

/// An in-memory repository: a committed tree, a working tree, and a commit log.
///
/// Like git it refuses paths outside the repository, commits of unchanged paths and empty
/// commits; it stages exactly the paths it is given. Clones share the same repository.
#[derive(Debug, Clone)]
pub struct FakeVcs {
    repo: Arc<Mutex<Repo>>,
}

impl FakeVcs {
    /// A repository at `head` on branch `feature` whose committed and working trees are `files`.
    pub fn new(head: &str, files: &[(&str, &str)]) -> Self {
        let tree: BTreeMap<String, String> = files
            .iter()
            .map(|(p, c)| ((*p).to_owned(), (*c).to_owned()))
            .collect();
        Self {
            repo: Arc::new(Mutex::new(Repo {
                head: CommitId(head.to_owned()),
                branch: Some("feature".to_owned()),
                committed: tree.clone(),
                work: tree,
                commits: Vec::new(),
                reject_commits: None,
            })),
        }
    }

    fn repo(&self) -> MutexGuard<'_, Repo> {
        self.repo
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Edits the working tree as a user would (the edit stays uncommitted).
    pub fn user_edit(&self, path: &str, contents: &str) {
        self.repo()
            .work
            .insert(path.to_owned(), contents.to_owned());
    }

    /// Makes every later commit fail as a rejecting commit hook would.
    pub fn reject_commits(&self, why: &str) {
        self.repo().reject_commits = Some(why.to_owned());
    }

    /// The commits made so far.
    pub fn commits(&self) -> Vec<RecordedCommit> {
        self.repo().commits.clone()
    }

    /// The working-tree content of `path`.
    pub fn work_file(&self, path: &str) -> Option<String> {
        self.repo().work.get(path).cloned()
    }

    /// The committed content of `path` at HEAD.
    pub fn committed_file(&self, path: &str) -> Option<String> {
        self.repo().committed.get(path).cloned()
    }
}

impl Vcs for FakeVcs {
    fn head(&self) -> Result<CommitId, VcsError> {
        Ok(self.repo().head.clone())
    }

    fn branch(&self) -> Result<Option<String>, VcsError> {
        Ok(self.repo().branch.clone())
    }

    fn changed_paths(&self, since: &CommitId) -> Result<Vec<String>, VcsError> {
        let repo = self.repo();
        let start = repo
            .commits
            .iter()
            .position(|c| &c.id == since)
            .map(|i| i + 1)
            .ok_or_else(|| VcsError::State(format!("unknown commit {since}")))?;
        let mut paths: Vec<String> = repo.commits[start..]
            .iter()
            .flat_map(|c| c.paths.iter().cloned())
            .collect();
        paths.sort();
        paths.dedup();
        Ok(paths)
    }

    fn dirty_paths(&self) -> Result<Vec<String>, VcsError> {
        let repo = self.repo();
        Ok(repo
            .work
            .iter()
            .filter(|(p, c)| repo.committed.get(*p) != Some(*c))
            .map(|(p, _)| p.clone())
            .collect())
    }

    fn read_file(&self, path: &str) -> Result<Option<String>, VcsError> {
        check_repo_path(path)?;
        Ok(self.repo().work.get(path).cloned())
    }

    fn write_file(&self, path: &str, contents: &str) -> Result<(), VcsError> {
        check_repo_path(path)?;
        let mut repo = self.repo();
        match repo.work.get_mut(path) {
            Some(c) => {
                contents.clone_into(c);
                Ok(())
            }
            None => Err(VcsError::InvalidPath(format!("{path} (no such file)"))),
        }
    }

    fn commit_paths(&self, paths: &[String], message: &str) -> Result<CommitId, VcsError> {
        if paths.is_empty() {
            return Err(VcsError::NothingToCommit(Vec::new()));
        }
        for p in paths {
            check_repo_path(p)?;
        }
        let mut repo = self.repo();
        let unchanged: Vec<String> = paths
            .iter()
            .filter(|p| repo.work.get(*p) == repo.committed.get(*p))
            .cloned()
            .collect();
        if !unchanged.is_empty() {
            return Err(VcsError::NothingToCommit(unchanged));
        }
        if let Some(why) = &repo.reject_commits {
            return Err(VcsError::CommitRejected(why.clone()));
        }
        for p in paths {
            let contents = repo.work.get(p).cloned();
            match contents {
                Some(c) => repo.committed.insert(p.clone(), c),
                None => repo.committed.remove(p),
            };
        }
        let id = CommitId(format!("{:040x}", 0xc0ffee_usize + repo.commits.len()));
        repo.head = id.clone();
        repo.commits.push(RecordedCommit {
            id: id.clone(),
            message: message.to_owned(),
            paths: paths.to_vec(),
        });
        Ok(id)
    }
}

type FixFn = dyn Fn(&FixTask, &FakeVcs) -> Result<Vec<String>, String> + Send + Sync;

/// A fixer that runs a closure against a [`FakeVcs`], and records the tasks it was given.
pub struct FakeFixer {
    vcs: FakeVcs,
    fix: Box<FixFn>,
    tasks: Mutex<Vec<FixTask>>,
}

impl std::fmt::Debug for FakeFixer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("FakeFixer").finish_non_exhaustive()
    }
}

impl FakeFixer {
    /// A fixer whose work is `fix`: it edits the repository and returns the edited paths, or an
    /// error message.
    pub fn new(
        vcs: &FakeVcs,
        fix: impl Fn(&FixTask, &FakeVcs) -> Result<Vec<String>, String> + Send + Sync + 'static,
    ) -> Self {
        Self {
            vcs: vcs.clone(),
            fix: Box::new(fix),
            tasks: Mutex::new(Vec::new()),
        }
    }

    /// The tasks received, in order.
    pub fn tasks(&self) -> Vec<FixTask> {
        self.tasks
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .clone()
    }
}

#[async_trait]
impl Fixer for FakeFixer {
    async fn fix(&self, task: &FixTask) -> Result<FixerOutput, FixerError> {
        self.tasks
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .push(task.clone());
        (self.fix)(task, &self.vcs)
            .map(|edited| FixerOutput { edited })
            .map_err(|message| FixerError {
                message,
                source: None,
            })
    }
}
