//! The watcher's state file as a port: read by the round and the other use-cases, written by
//! the watcher alone.

use review_core::watch::WatchState;

/// The review loop's watch state: what the last poll saw.
pub trait WatchStore {
    /// The port's own error.
    type Error: std::error::Error + Send + Sync + 'static;

    /// The state, `None` before the first poll.
    fn load_watch(&self) -> Result<Option<WatchState>, Self::Error>;

    /// Replaces the state (under the store's lock: a reader never sees half of it).
    fn save_watch(&self, state: &WatchState) -> Result<(), Self::Error>;
}

pub use crate::ports::Poisoned;

/// An in-memory [`WatchStore`], for tests and for tools that keep no files.
#[derive(Debug, Default)]
pub struct MemoryWatch {
    state: std::sync::Mutex<Option<WatchState>>,
}

impl MemoryWatch {
    /// A store holding `state`.
    pub fn new(state: Option<WatchState>) -> Self {
        Self {
            state: std::sync::Mutex::new(state),
        }
    }
}

impl WatchStore for MemoryWatch {
    type Error = Poisoned;

    fn load_watch(&self) -> Result<Option<WatchState>, Self::Error> {
        self.state.lock().map(|s| s.clone()).map_err(|_| Poisoned)
    }

    fn save_watch(&self, state: &WatchState) -> Result<(), Self::Error> {
        *self.state.lock().map_err(|_| Poisoned)? = Some(state.clone());
        Ok(())
    }
}

/// The loop's two files in memory: decisions and watch state, for the use-cases that read both
/// (the round, and respond's `LoopStore`).
#[derive(Debug, Default)]
pub struct MemoryLoop {
    /// The decisions.
    pub decisions: crate::ports::MemoryDecisions,
    /// The watch state.
    pub watch: MemoryWatch,
}

impl crate::ports::DecisionsStore for MemoryLoop {
    type Error = Poisoned;

    fn load(&self) -> Result<review_core::decisions::Decisions, Self::Error> {
        self.decisions.load()
    }

    fn update(
        &self,
        change: &mut dyn FnMut(&mut review_core::decisions::Decisions),
    ) -> Result<(), Self::Error> {
        self.decisions.update(change)
    }
}

impl WatchStore for MemoryLoop {
    type Error = Poisoned;

    fn load_watch(&self) -> Result<Option<WatchState>, Poisoned> {
        self.watch.load_watch()
    }

    fn save_watch(&self, state: &WatchState) -> Result<(), Poisoned> {
        self.watch.save_watch(state)
    }
}
