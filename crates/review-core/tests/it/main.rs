//! Integration tests of review-core against the in-memory fakes.
#![allow(clippy::unwrap_used, reason = "test helpers: a panic is a failed test")]

mod test_architecture;
mod test_exact_fixes;
mod test_execute;
mod test_plan;
mod test_properties;
mod test_status;
mod test_watch;
