//! What a follow-up leaves for `--finish`, and the store it is kept in.

use review_core::followup::Lang;
use serde::{Deserialize, Serialize};

use crate::ports::Poisoned;

/// A fix reply owed once its commit is on the PR's head.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Completion {
    /// The thread the reply goes to.
    pub thread_id: String,
    /// The fix's commit; empty for a task carried out by hand (then `since` is set).
    pub sha: String,
    /// What was done, in the reply's words.
    pub what: String,
    /// The language of the reply.
    pub lang: Lang,
    /// For a task printed for you to carry out (no agent): the commit HEAD was at then. The
    /// fix is a commit on the PR's head that names the thread in a `Review-Thread:` trailer,
    /// else the newest commit after this one that touches `files` (any, for general comments).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub since: Option<String>,
    /// The task's files, for a task carried out by hand.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub files: Vec<String>,
}

/// A review group to hide once all its threads are resolved.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Hide {
    /// The group: its review's id (or `standalone:<thread>`).
    pub group: String,
    /// The group's reviewer: only their comments are hidden.
    pub reviewer: String,
    /// The group's threads.
    pub threads: Vec<String>,
}

/// A fix task under way: the threads it answers and the commit it started from, so that a run
/// killed while the agent worked picks up the agent's commits instead of losing them.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Started {
    /// The task's threads.
    pub threads: Vec<String>,
    /// The commit the task started from.
    pub base: String,
}

/// What a follow-up leaves for `--finish` (the `review` binary keeps it in
/// `.git/review/pulls/OWNER/NAME/N/followup.json`).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct FollowupState {
    /// The fix replies owed.
    #[serde(default)]
    pub completions: Vec<Completion>,
    /// The review groups to hide.
    #[serde(default)]
    pub hide: Vec<Hide>,
    /// The fix tasks under way.
    #[serde(default)]
    pub started: Vec<Started>,
}

impl FollowupState {
    /// Records `picked`, in place of what was owed for the same threads before (a task carried
    /// out by hand and then by an agent is answered once, for the agent's commit).
    pub fn record(&mut self, mut picked: Vec<Completion>) {
        // A task printed again keeps the commit it was first printed at: a fix made by hand
        // since then is still found.
        for p in picked.iter_mut().filter(|p| p.since.is_some()) {
            if let Some(first) = self
                .completions
                .iter()
                .find(|c| c.thread_id == p.thread_id && c.since.is_some())
            {
                p.since.clone_from(&first.since);
            }
        }
        self.completions
            .retain(|c| !picked.iter().any(|p| p.thread_id == c.thread_id));
        self.completions.extend(picked);
    }

    /// Adds the groups of `hide` not listed yet.
    pub fn add_hides(&mut self, hide: impl IntoIterator<Item = Hide>) {
        for h in hide {
            if !self.hide.iter().any(|s| s.group == h.group) {
                self.hide.push(h);
            }
        }
    }
}

/// Where the follow-up's state is kept, one writer at a time.
pub trait FollowupStore {
    /// The port's own error.
    type Error: std::error::Error + Send + Sync + 'static;

    /// The state as it is (empty before the first follow-up).
    fn load(&self) -> Result<FollowupState, Self::Error>;

    /// Changes the state under the store's lock: load, `change`, save, with no other writer in
    /// between.
    fn update(&self, change: &mut dyn FnMut(&mut FollowupState)) -> Result<(), Self::Error>;

    /// Replaces the state whole, durably (what `finish` leaves for the next run).
    fn replace(&self, state: &FollowupState) -> Result<(), Self::Error>;
}

/// An in-memory [`FollowupStore`], for tests and for tools that keep no files.
#[derive(Debug, Default)]
pub struct MemoryFollowup {
    state: std::sync::Mutex<FollowupState>,
}

impl MemoryFollowup {
    /// A store holding `state`.
    pub fn new(state: FollowupState) -> Self {
        Self {
            state: std::sync::Mutex::new(state),
        }
    }
}

impl FollowupStore for MemoryFollowup {
    type Error = Poisoned;

    fn load(&self) -> Result<FollowupState, Poisoned> {
        self.state.lock().map(|s| s.clone()).map_err(|_| Poisoned)
    }

    fn update(&self, change: &mut dyn FnMut(&mut FollowupState)) -> Result<(), Poisoned> {
        let mut s = self.state.lock().map_err(|_| Poisoned)?;
        change(&mut s);
        Ok(())
    }

    fn replace(&self, state: &FollowupState) -> Result<(), Poisoned> {
        *self.state.lock().map_err(|_| Poisoned)? = state.clone();
        Ok(())
    }
}
