//! The use-cases of `review`, written against ports.
//!
//! Each use-case takes what it reads and writes as traits ([`ports`]), returns a typed outcome
//! that a caller renders as it likes, and fails with an [`AppError`] that carries its kind, a
//! message, a hint and the source. The `review` binary wires the ports to git, GitHub and its
//! state files; a test wires them to in-memory fakes; another tool may wire them to its own.
//!
//! The use-cases:
//! - [`decide`]: a judge's answers on the findings a watch left pending, judged within the hard
//!   gates and recorded through a [`ports::DecisionsStore`];
//! - [`respond`]: the replies owed on a pull request posted each once ever, resolved as asked,
//!   a person's thread never replied to, through the review host and `respond`'s own ports
//!   (the reply ledger, the loop's files, the fix history, the re-reads, a narrator); one
//!   [`respond::ReplyOutcome`] per reply or resolve.
//!
//! # Stability
//!
//! The crate is young: its public items may change in any 0.x release (the CHANGELOG says
//! what moved). What holds now: a use-case never touches a file, a process, the environment or
//! the clock itself, only its ports.

pub mod decide;
pub mod error;
pub mod ports;
pub mod respond;

pub use error::{AppError, ErrorKind};
