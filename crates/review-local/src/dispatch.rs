//! Dispatching follow-up fix tasks to a coding agent command: one after another in the clone
//! (solo, lead), or in parallel, each in its own git worktree, merged back in order (team).
//!
//! The agent's commits are checked against the deny list ([`review_core::plan::is_denied`]:
//! the default paths and the configured ones) before they count: in a worktree, a commit that
//! touches a deny-listed path is not merged; in the clone, it is left for the user to inspect and
//! its task fails (no completion reply is recorded). In the clone, a commit that adds one of the
//! user's untracked files (there before the agent ran: `.env.local`, say) fails its task the
//! same way.

use std::path::{Path, PathBuf};
use std::time::Duration;

use review_core::followup::DispatchMode;
use review_core::plan::is_denied;
use review_core::text::visible_line;

use review_app::narrator::Narrator;

use crate::git::GitVcs;

/// What one task ended with: the new HEAD's short id when it committed, `None` when it made no
/// commit, or why it failed.
pub type TaskOutcome = Result<Option<String>, String>;

/// Runs the agent on one task in `vcs`'s work tree: the description on stdin and in a file
/// named by `$REVIEW_TASK_FILE`. Returns the commits it made on top of where it started.
fn run_one(
    vcs: &GitVcs,
    agent: &str,
    timeout: Duration,
    description: &str,
    file: &Path,
) -> Result<Vec<String>, String> {
    std::fs::write(file, description).map_err(|e| format!("cannot write the task file: {e}"))?;
    let before = vcs.head_id().map_err(|e| e.to_string())?;
    let file = file.to_string_lossy();
    crate::command::run_with(
        crate::command::Kind::Agent,
        agent,
        vcs.root(),
        description,
        timeout,
        &[("REVIEW_TASK_FILE", &file)],
    )
    .map_err(|why| format!("the agent {why}"))?;
    let after = vcs.head_id().map_err(|e| e.to_string())?;
    if after == before {
        return Ok(Vec::new());
    }
    vcs.commits_between(&before, &after)
        .map_err(|e| e.to_string())
}

/// Why `commits` may not count, if one of them touches a path on `denied`, or one of `theirs`
/// (the user's untracked files from before the agent ran: never committed on a task's account),
/// or cannot be read: the first such commit and path.
fn denied_in(
    vcs: &GitVcs,
    commits: &[String],
    denied: &[String],
    theirs: &[String],
) -> Option<String> {
    for commit in commits {
        let short = commit.get(..7).unwrap_or(commit);
        match vcs.paths_changed_by(commit) {
            Ok(paths) => {
                if let Some(path) = paths.iter().find(|p| is_denied(p, denied)) {
                    return Some(format!(
                        "the agent's commit {short} touches {}, a deny-listed path",
                        visible_line(path)
                    ));
                }
                if let Some(path) = paths.iter().find(|p| theirs.contains(p)) {
                    return Some(format!(
                        "the agent's commit {short} adds {}, a file of yours that was not tracked before it ran",
                        visible_line(path)
                    ));
                }
            }
            Err(e) => return Some(format!("cannot read the agent's commit {short}: {e}")),
        }
    }
    None
}

/// Why the commits in `from..to` (an agent's, found after a run stopped) may not count, if one
/// of them touches a path on `denied`.
pub fn denied_commit(vcs: &GitVcs, from: &str, to: &str, denied: &[String]) -> Option<String> {
    match vcs.commits_between(from, to) {
        Ok(commits) => denied_in(vcs, &commits, denied, &[])
            .map(|why| format!("{why}; left in place for you to inspect, not counted as done")),
        Err(e) => Some(format!("cannot read the agent's commits: {e}")),
    }
}

/// What the caller records as tasks go: `Started(i, base)` before task `i` runs on top of
/// commit `base` (one after another only), `Finished(i, outcome)` once it is over.
#[derive(Debug)]
pub enum TaskEvent<'a> {
    /// Task `i` is about to run on top of this commit.
    Started(usize, &'a str),
    /// Task `i` is over.
    Finished(usize, &'a TaskOutcome),
}

/// Runs every task, keeping the task files and worktrees in `dir` (the pull request's own);
/// returns one outcome per task, in order. `record` hears each task start (one after another
/// only) and finish, so a run killed half-way can be picked up. A task whose commits touch a
/// path on `denied` fails: in the clone its commits stay for the user to inspect; from a
/// worktree they are not merged. Progress (`[followup] ...` lines) goes to `narrator`.
#[allow(
    clippy::too_many_arguments,
    reason = "the dispatch's inputs, each used once; a struct would only rename them"
)]
pub fn run_tasks(
    vcs: &GitVcs,
    dir: &Path,
    agent: &str,
    timeout: Duration,
    mode: DispatchMode,
    descriptions: &[String],
    denied: &[String],
    record: &dyn Fn(TaskEvent<'_>),
    narrator: &dyn Narrator,
) -> Vec<TaskOutcome> {
    if let Ok(legacy) = vcs
        .common_dir()
        .map(|c| crate::state::legacy_followup_dir(&c))
    {
        clear_legacy(vcs, &legacy);
    }
    if let Err(e) = std::fs::create_dir_all(dir) {
        return descriptions
            .iter()
            .map(|_| Err(format!("cannot create {}: {e}", dir.display())))
            .collect();
    }
    let task_file = |i: usize| dir.join(format!("task-{}.md", i + 1));
    match mode {
        DispatchMode::Solo | DispatchMode::Lead => descriptions
            .iter()
            .enumerate()
            .map(|(i, d)| {
                narrator.narrate(&format!("[followup] task {}: the agent is working", i + 1));
                let outcome = match vcs.head_id() {
                    Err(e) => Err(e.to_string()),
                    Ok(base) => {
                        record(TaskEvent::Started(i, &base));
                        // The untracked files there before the agent ran are the user's.
                        let theirs = vcs.untracked().unwrap_or_default();
                        run_one(vcs, agent, timeout, d, &task_file(i)).and_then(|commits| {
                            if commits.is_empty() {
                                Ok(None)
                            } else if let Some(why) = denied_in(vcs, &commits, denied, &theirs) {
                                Err(format!(
                                    "{why}; left in place for you to inspect, not counted as done"
                                ))
                            } else {
                                vcs.short_head().map(Some).map_err(|e| e.to_string())
                            }
                        })
                    }
                };
                record(TaskEvent::Finished(i, &outcome));
                outcome
            })
            .collect(),
        DispatchMode::Team => {
            let outcomes = team(vcs, agent, timeout, descriptions, denied, dir, narrator);
            for (i, o) in outcomes.iter().enumerate() {
                record(TaskEvent::Finished(i, o));
            }
            outcomes
        }
    }
}

/// Clears what follow-ups of earlier releases left in `legacy`, the one directory they shared
/// for every pull request: worktrees of a killed run (never merged; the tasks were dispatched
/// again), task files, and the directory once empty.
fn clear_legacy(vcs: &GitVcs, legacy: &Path) {
    let Ok(entries) = std::fs::read_dir(legacy) else {
        return;
    };
    for path in entries.flatten().map(|e| e.path()) {
        let name = path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        if name.starts_with("worktree-") {
            if vcs.remove_worktree(&path).is_err() {
                let _ = std::fs::remove_dir_all(&path);
            }
        } else if name.starts_with("task-") && name.ends_with(".md") {
            let _ = std::fs::remove_file(&path);
        }
    }
    vcs.prune_worktrees();
    let _ = std::fs::remove_dir(legacy);
}

/// Parallel tasks, each in a worktree detached at HEAD, then merged back in order with
/// cherry-picks. A task whose commits conflict with an earlier one's is reported, not merged.
fn team(
    vcs: &GitVcs,
    agent: &str,
    timeout: Duration,
    descriptions: &[String],
    denied: &[String],
    dir: &Path,
    narrator: &dyn Narrator,
) -> Vec<TaskOutcome> {
    let base = match vcs.head_id() {
        Ok(b) => b,
        Err(e) => return descriptions.iter().map(|_| Err(e.to_string())).collect(),
    };
    // Worktrees a killed run left behind are removed first: their work was not merged, and the
    // tasks are dispatched again. One with uncommitted changes (an agent that edited without
    // committing) is kept: those changes exist nowhere else.
    if let Ok(entries) = std::fs::read_dir(dir) {
        for stale in entries.flatten().map(|e| e.path()).filter(|p| {
            p.file_name()
                .is_some_and(|n| n.to_string_lossy().starts_with("worktree-"))
        }) {
            if GitVcs::open(&stale).is_ok_and(|t| t.is_dirty().unwrap_or(true)) {
                narrator.narrate(&format!(
                    "[followup] kept the worktree {}: it holds uncommitted changes ({})",
                    stale.display(),
                    see_changes(&stale)
                ));
                continue;
            }
            if vcs.remove_worktree(&stale).is_err() {
                let _ = std::fs::remove_dir_all(&stale);
            }
        }
        vcs.prune_worktrees();
    }
    let paths: Vec<PathBuf> = (0..descriptions.len())
        .map(|i| dir.join(format!("worktree-{}-{}", std::process::id(), i + 1)))
        .collect();
    narrator.narrate(&format!(
        "[followup] {} tasks in parallel, one git worktree each",
        descriptions.len()
    ));
    // The worktrees are added one after another before any task starts: two `git worktree add`
    // at once race on the repository's worktree list (`failed to read .git/worktrees/…/commondir`).
    let trees: Vec<Result<GitVcs, String>> = paths
        .iter()
        .map(|path| vcs.add_worktree(path, &base).map_err(|e| e.to_string()))
        .collect();
    let worked: Vec<Result<(Vec<String>, bool), String>> = std::thread::scope(|s| {
        let handles: Vec<_> = descriptions
            .iter()
            .zip(&trees)
            .enumerate()
            .map(|(i, (d, tree))| {
                let file = dir.join(format!("task-{}.md", i + 1));
                s.spawn(move || {
                    let tree = tree.as_ref().map_err(Clone::clone)?;
                    let commits = run_one(tree, agent, timeout, d, &file)?;
                    // Changes it made but did not commit keep its worktree (they would be
                    // deleted with it).
                    let dirty = tree.is_dirty().unwrap_or(true);
                    Ok((commits, dirty))
                })
            })
            .collect();
        handles
            .into_iter()
            .map(|h| {
                h.join()
                    .unwrap_or_else(|_| Err("the task's runner failed".to_owned()))
            })
            .collect()
    });
    let mut kept = Vec::new();
    let outcomes = worked
        .into_iter()
        .zip(&paths)
        .map(|(result, path)| {
            let (commits, dirty) = result?;
            if dirty {
                kept.push(path.clone());
            }
            if dirty && !commits.is_empty() {
                narrator.narrate(&format!(
                    "[followup] an agent left changes it did not commit besides its commits: kept in the worktree {} ({})",
                    path.display(),
                    see_changes(path)
                ));
            }
            if dirty && commits.is_empty() {
                return Err(format!(
                    "the agent made no commit but left changes, kept in the worktree {} and not merged ({}; `git worktree remove --force` it once done)",
                    path.display(),
                    see_changes(path)
                ));
            }
            if commits.is_empty() {
                return Ok(None);
            }
            if let Some(why) = denied_in(vcs, &commits, denied, &[]) {
                return Err(format!("{why}: not merged"));
            }
            vcs.cherry_pick(&commits).map_err(|e| {
                format!("its commits conflict with an earlier task's and were not merged: {e}")
            })?;
            vcs.short_head().map(Some).map_err(|e| e.to_string())
        })
        .collect();
    for path in paths.iter().filter(|p| !kept.contains(p)) {
        if path.exists() {
            let _ = vcs.remove_worktree(path);
        }
    }
    outcomes
}

/// How to see what a kept worktree holds.
fn see_changes(path: &Path) -> String {
    let raw = path.to_string_lossy();
    let plain = raw
        .chars()
        .all(|c| c.is_ascii_alphanumeric() || matches!(c, '/' | '.' | '_' | '-'));
    let quoted = if plain {
        raw.into_owned()
    } else {
        format!("'{}'", raw.replace('\'', "'\\''"))
    };
    let shown = visible_line(&quoted).into_owned();
    format!("see them with `git -C {shown} status` and `git -C {shown} diff`")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::git::tests::sh;

    /// Regression: each parallel task added its own worktree, so several `git worktree add` ran
    /// at once and one failed now and then (`failed to read .git/worktrees/…/commondir`). Many
    /// tasks at once all get their worktree (with 32, the old code failed about one run in four).
    #[test]
    fn many_parallel_tasks_each_get_a_worktree() {
        let repo = tempfile::tempdir().unwrap();
        sh(repo.path(), &["init", "-q"]);
        std::fs::write(repo.path().join("a.txt"), "a\n").unwrap();
        sh(repo.path(), &["add", "a.txt"]);
        sh(repo.path(), &["commit", "-q", "-m", "first"]);
        let vcs = GitVcs::open(repo.path()).unwrap();
        let dir = repo.path().join(".git").join("review-tasks");
        std::fs::create_dir_all(&dir).unwrap();
        let descriptions: Vec<String> = (1..=32).map(|i| format!("task {i}")).collect();
        let outcomes = team(
            &vcs,
            "true",
            Duration::from_secs(60),
            &descriptions,
            &[],
            &dir,
            &review_app::narrator::Kept::default(),
        );
        assert_eq!(outcomes, vec![Ok(None); descriptions.len()]);
        let left: Vec<_> = std::fs::read_dir(&dir)
            .unwrap()
            .flatten()
            .filter(|e| e.file_name().to_string_lossy().starts_with("worktree-"))
            .collect();
        assert!(left.is_empty(), "worktrees left behind: {left:?}");
    }
}
