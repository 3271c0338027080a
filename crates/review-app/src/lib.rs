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
//!   [`respond::ReplyOutcome`] per reply or resolve;
//! - [`triage`]: every unresolved thread classified, planned, judged within the hard gates and,
//!   with consent, carried out (fixes committed, nits and landed fixes resolved, the fix commits
//!   pushed and their threads resolved), a person's thread never acted on; a typed
//!   [`triage::Outcome`] with the threads whose fix waits for a push;
//! - [`rereview`]: each expected bot that has not reviewed the head asked again, once per
//!   head (its command as a comment, Copilot by a review request), never one out of quota or
//!   paused, each ask recorded in the reply ledger;
//! - [`commit_round`]: the round's one commit after the checks, or the round set aside;
//! - [`status`]: whether the pull request is ready (one verdict with its reasons), once or
//!   waiting until it is no longer `WAITING`;
//! - [`watch`]: the poll policy (the cheap change probe before a full read, late bots,
//!   quiescence, the schedule);
//! - [`review_loop`]: the review loop (poll, judge, fix, commit the round, answer) until the
//!   pull request closes, the polls are done or the user stops it, through its own ports (the
//!   judge, the fixer, the watcher, the responder, the stop signal, the line origin that tells
//!   a knock-on); one [`review_loop::LoopOutcome`].
//! - [`followup`]: the operator's follow-up once the answers are in: answers checked, replies
//!   in the operator's words, unclear instructions judged, and `finish` (the fix replies once
//!   each, the resolves, the hidden groups) over a [`followup::FollowupStore`]; a
//!   [`followup::Tally`] and typed [`followup::Note`]s.
//!
//! Ports besides the core's `ReviewHost` and `Vcs`: [`ports`] (the decisions), [`watch_store`]
//! (the watch state), [`narrator`], and each use-case's own (the reply ledger, the round's
//! working tree and checks, the change probe, the full read, the clock, triage's judge, prompt
//! and pusher). Async ports return plain futures: the caller runs them on its own executor.
//!
//! # Stability
//!
//! The crate is young: its public items may change in any 0.x release (the CHANGELOG says
//! what moved). What holds now: a use-case never touches a file, a process, the environment or
//! the clock itself, only its ports.

pub mod commit_round;
pub mod decide;
pub mod defer;
pub mod error;
pub mod followup;
pub mod narrator;
pub mod ports;
pub mod rereview;
pub mod respond;
pub mod review_loop;
pub mod status;
pub mod triage;
pub mod watch;
pub mod watch_store;

pub use error::{AppError, ErrorKind};
