//! The follow-up workflow: the PR's author reads every unresolved thread in one form, writes what
//! to do with each, and the tool carries it out with traceability from each fix to its thread.
//!
//! - [`form`]: what the form shows and what it returns.

pub mod form;
