//! The fix tasks: dispatched to an agent (a task an earlier run finished, or whose agent
//! committed before the run was killed, not dispatched again), or written out for the operator
//! to carry out; what each leaves owed recorded for `finish`.

use review_core::followup::{self, DispatchMode, Issue, Task};
use review_core::model::{PullRequest, ThreadId};

use super::state::{Completion, FollowupState, FollowupStore, Hide, Started};
use super::{Narrator, Note, Tally};
use crate::error::{AppError, ErrorKind};

/// What the dispatch asks of the working tree.
pub trait Workspace {
    /// The full id of the commit checked out, when there is one.
    fn head(&self) -> Option<String>;

    /// Its short id, when there is one.
    fn short_head(&self) -> Option<String>;

    /// Whether `ancestor` is `descendant` or one of its ancestors.
    fn is_ancestor(&self, ancestor: &str, descendant: &str) -> bool;

    /// Why the commits of `from..to` may not count as a task's fix (one touches a deny-listed
    /// path, or they cannot be read), `None` when they may.
    fn denied_commit(&self, from: &str, to: &str) -> Option<String>;
}

/// One event of a dispatch, for the record that lets a killed run pick up where it stopped.
#[derive(Debug, Clone, Copy)]
pub enum TaskEvent<'a> {
    /// Task `i` is about to run on top of this commit.
    Started(usize, &'a str),
    /// Task `i` is over: its commit (short id), none, or why it failed.
    Finished(usize, &'a Result<Option<String>, String>),
}

/// The coding agent: runs the tasks (their descriptions, in `mode`: one after another, or in
/// parallel and merged back in order), telling `record` as each starts and ends; one outcome per
/// task, in order: its commit, none (it made no commit), or why it failed.
pub trait Agents {
    /// A fresh random fence marker for a task's description, or why there is none.
    fn marker(&self) -> Result<String, String>;

    /// Runs the tasks described by `descriptions`.
    fn run(
        &self,
        mode: DispatchMode,
        descriptions: &[String],
        record: &dyn Fn(TaskEvent<'_>),
    ) -> Vec<Result<Option<String>, String>>;
}

/// The fix replies task `task` owes once its fix (`sha`) is on the PR's head: one per thread
/// the operator asked to resolve, in the thread's language.
pub fn completions_of(
    pr: &PullRequest,
    issues: &[Issue],
    task: &Task,
    sha: &str,
) -> Vec<Completion> {
    task.instructions
        .iter()
        .filter(|(id, _)| task.auto_resolve.get(id).copied().unwrap_or(false))
        .map(|(id, text)| {
            let texts: Vec<&str> = pr
                .thread(&ThreadId(id.clone()))
                .map(|t| t.comments.iter().map(|c| c.body.as_str()).collect())
                .unwrap_or_default();
            let lang = review_classify::instruction::language_of(texts);
            let summary = issues
                .iter()
                .find(|i| &i.thread_id == id)
                .map_or("", |i| i.summary.as_str());
            Completion {
                thread_id: id.clone(),
                sha: sha.to_owned(),
                what: followup::what_was_done(
                    text,
                    review_classify::instruction::language_of([text.as_str()]),
                    summary,
                    lang,
                ),
                lang,
                since: None,
                files: Vec::new(),
            }
        })
        .collect()
}

/// The agent's task description for `task`: what comes from the pull request fenced under a
/// fresh random marker ([`followup::task_description`]).
///
/// # Errors
///
/// [`ErrorKind::Failed`] when there is no marker: nothing is dispatched.
pub fn describe<A: Agents>(
    agents: &A,
    pr: &PullRequest,
    task: &Task,
    issues: &[Issue],
) -> Result<String, AppError> {
    let hex = agents.marker().map_err(|message| {
        AppError::new(
            ErrorKind::Failed,
            message,
            Some("nothing was dispatched; run again"),
        )
    })?;
    Ok(followup::task_description(
        pr,
        task,
        issues,
        &format!("task_{hex}"),
    ))
}

/// A task written out for the operator to carry out.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ManualTask {
    /// Its title.
    pub title: String,
    /// Its description, as an agent would get it.
    pub description: String,
}

/// The tasks written out for the operator (no agent), each with its description; the fix
/// replies they owe are recorded in `state` as made by hand since `since` (the commit checked
/// out now), for `finish` to answer once the fixes are on the PR's head. Without `since`
/// nothing is owed.
///
/// # Errors
///
/// As [`describe`].
pub fn by_hand<A: Agents>(
    agents: &A,
    pr: &PullRequest,
    issues: &[Issue],
    tasks: &[Task],
    since: Option<&str>,
    state: &mut FollowupState,
) -> Result<Vec<ManualTask>, AppError> {
    let mut out = Vec::with_capacity(tasks.len());
    for task in tasks {
        out.push(ManualTask {
            title: task.title.clone(),
            description: describe(agents, pr, task, issues)?,
        });
        // Auto-resolve is owed all the same: once the fix is on the PR's head, `finish`
        // answers and resolves these threads.
        if let Some(since) = since {
            let owed = completions_of(pr, issues, task, "")
                .into_iter()
                .map(|c| Completion {
                    since: Some(since.to_owned()),
                    files: task.files.clone(),
                    ..c
                });
            state.record(owed.collect());
        }
    }
    Ok(out)
}

/// The ports the dispatch works through.
#[derive(Debug)]
pub struct DispatchPorts<'a, W, A, S> {
    /// The working tree.
    pub workspace: &'a W,
    /// The coding agent.
    pub agents: &'a A,
    /// The follow-up's state.
    pub store: &'a S,
}

impl<W: Workspace, A: Agents, S: FollowupStore> DispatchPorts<'_, W, A, S> {
    /// Dispatches `tasks` to the agent. A task whose threads an earlier run answered is not
    /// dispatched again; a task whose agent committed before the run was killed is taken up (its
    /// commits checked against the deny list first); the rest run, each start and end recorded in
    /// the store as it happens, so a run killed meanwhile loses no fix and repeats none. Returns
    /// the tasks done and failed.
    ///
    /// # Errors
    ///
    /// [`ErrorKind::Port`] when the store fails before the dispatch; [`ErrorKind::Failed`] without a
    /// fence marker. A failure to record an event once the agents run is narrated
    /// ([`Note::RecordFailed`]).
    pub fn dispatch(
        &self,
        narrator: &dyn Narrator,
        pr: &PullRequest,
        issues: &[Issue],
        tasks: &[Task],
        mode: DispatchMode,
    ) -> Result<Tally, AppError> {
        let (workspace, agents, store) = (self.workspace, self.agents, self.store);
        let mut tally = Tally::default();
        let saved = store.load().map_err(AppError::port)?;
        let head = workspace.head().unwrap_or_default();
        let mut todo: Vec<&Task> = Vec::new();
        for task in tasks {
            let done = !task.threads.is_empty()
                && task.threads.iter().all(|t| {
                    saved
                        .completions
                        .iter()
                        .any(|c| &c.thread_id == t && c.since.is_none())
                });
            let killed = saved
                .started
                .iter()
                .find(|s| s.threads == task.threads)
                .filter(|s| s.base != head && workspace.is_ancestor(&s.base, &head));
            if done {
                narrator.note(&Note::TaskDoneBefore {
                    title: task.title.clone(),
                });
            } else if let Some(started) = killed {
                let sha = workspace.short_head().unwrap_or_default();
                let threads = task.threads.clone();
                if let Some(bad) = workspace.denied_commit(&started.base, &head) {
                    // The agent's commit touches a deny-listed path: left for the operator, not
                    // taken up, no reply recorded.
                    narrator.note(&Note::TaskFailed {
                        title: task.title.clone(),
                        why: bad,
                    });
                    store
                        .update(&mut |st| st.started.retain(|s| s.threads != threads))
                        .map_err(AppError::port)?;
                    tally.tasks_failed += 1;
                    continue;
                }
                narrator.note(&Note::TaskTakenUp {
                    title: task.title.clone(),
                    sha: sha.clone(),
                });
                let mut picked = Some(completions_of(pr, issues, task, &sha));
                store
                    .update(&mut |st| {
                        st.started.retain(|s| s.threads != threads);
                        st.record(picked.take().unwrap_or_default());
                    })
                    .map_err(AppError::port)?;
                tally.tasks_done += 1;
            } else {
                todo.push(task);
            }
        }
        let record = |event: TaskEvent<'_>| {
            let result = match event {
                TaskEvent::Started(i, base) => {
                    let Some(task) = todo.get(i) else { return };
                    let started = Started {
                        threads: task.threads.clone(),
                        base: base.to_owned(),
                    };
                    store.update(&mut |st| {
                        st.started.retain(|s| s.threads != started.threads);
                        st.started.push(started.clone());
                    })
                }
                TaskEvent::Finished(i, outcome) => {
                    let Some(task) = todo.get(i) else { return };
                    let mut picked = Some(match outcome {
                        Ok(Some(sha)) => completions_of(pr, issues, task, sha),
                        _ => Vec::new(),
                    });
                    store.update(&mut |st| {
                        st.started.retain(|s| s.threads != task.threads);
                        st.record(picked.take().unwrap_or_default());
                    })
                }
            };
            if let Err(e) = result {
                narrator.note(&Note::RecordFailed {
                    error: e.to_string(),
                });
            }
        };
        let descriptions = todo
            .iter()
            .map(|t| describe(agents, pr, t, issues))
            .collect::<Result<Vec<_>, _>>()?;
        let outcomes = agents.run(mode, &descriptions, &record);
        for (task, outcome) in todo.iter().zip(outcomes) {
            match outcome {
                Ok(Some(_)) => tally.tasks_done += 1,
                Ok(None) => {
                    tally.tasks_failed += 1;
                    narrator.note(&Note::TaskNoCommit {
                        title: task.title.clone(),
                    });
                }
                Err(why) => {
                    tally.tasks_failed += 1;
                    narrator.note(&Note::TaskFailed {
                        title: task.title.clone(),
                        why,
                    });
                }
            }
        }
        Ok(tally)
    }
}

/// The review groups the answers ask to hide, each with its reviewer and threads as shown.
pub fn hides(answers: &followup::form::FormAnswers, issues: &[Issue]) -> Vec<Hide> {
    answers
        .groups
        .iter()
        .filter(|(_, g)| g.hide)
        .map(|(group, _)| Hide {
            group: group.clone(),
            reviewer: issues
                .iter()
                .find(|i| &i.group == group)
                .map_or_else(String::new, |i| i.reviewer.clone()),
            threads: issues
                .iter()
                .filter(|i| &i.group == group)
                .map(|i| i.thread_id.clone())
                .collect(),
        })
        .collect()
}

/// Leaves what this run owes for `finish`: `completions` in place of what was owed for the same
/// threads, and the groups of `hide` not listed yet.
///
/// # Errors
///
/// [`ErrorKind::Port`] when the store fails.
pub fn leave_for_finish<S: FollowupStore>(
    store: &S,
    completions: Vec<Completion>,
    hide: Vec<Hide>,
) -> Result<(), AppError> {
    let mut given = Some((completions, hide));
    store
        .update(&mut |saved| {
            if let Some((completions, hide)) = given.take() {
                saved.record(completions);
                saved.add_hides(hide);
            }
        })
        .map_err(AppError::port)
}
