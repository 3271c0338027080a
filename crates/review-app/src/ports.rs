//! Where the use-cases read and write, as traits.
//!
//! The review host and the working tree are `review_core::ports`' `ReviewHost` and `Vcs`; the
//! ports here are the loop's own: its decisions file (more follow as the use-cases move in).

use review_core::decisions::Decisions;

/// The review loop's decisions: one record per finding, changed by one writer at a time.
pub trait DecisionsStore {
    /// The port's own error.
    type Error: std::error::Error + Send + Sync + 'static;

    /// The decisions as they are (empty before the first).
    fn load(&self) -> Result<Decisions, Self::Error>;

    /// Changes the decisions under the store's lock: load, `change`, save, with no other writer
    /// in between.
    fn update(&self, change: &mut dyn FnMut(&mut Decisions)) -> Result<(), Self::Error>;
}

/// An in-memory [`DecisionsStore`], for tests and for tools that keep no files.
#[derive(Debug, Default)]
pub struct MemoryDecisions {
    decisions: std::sync::Mutex<Decisions>,
}

impl MemoryDecisions {
    /// A store holding `decisions`.
    pub fn new(decisions: Decisions) -> Self {
        Self {
            decisions: std::sync::Mutex::new(decisions),
        }
    }
}

/// An in-memory store's lock was poisoned by a panic in another thread (every in-memory store
/// of the crate fails with it).
#[derive(Debug, thiserror::Error)]
#[error("the in-memory store was left half-changed by a panic")]
pub struct Poisoned;

impl DecisionsStore for MemoryDecisions {
    type Error = Poisoned;

    fn load(&self) -> Result<Decisions, Poisoned> {
        self.decisions
            .lock()
            .map(|d| d.clone())
            .map_err(|_| Poisoned)
    }

    fn update(&self, change: &mut dyn FnMut(&mut Decisions)) -> Result<(), Poisoned> {
        let mut d = self.decisions.lock().map_err(|_| Poisoned)?;
        change(&mut d);
        Ok(())
    }
}
