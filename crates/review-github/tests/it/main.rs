//! Integration tests of the GitHub adapter against the fake GitHub.
#![allow(clippy::unwrap_used, reason = "test helpers: a panic is a failed test")]
#![allow(clippy::print_stderr, reason = "a skipped check says so")]
#![allow(
    clippy::disallowed_methods,
    reason = "the schema check reads its own knob, REVIEW_GITHUB_SCHEMA"
)]

mod common;
mod schema_subset;
mod test_contract;
mod test_drills;
mod test_env_vars;
mod test_failures;
mod test_parallel_read;
mod test_probe;
mod test_read;
mod test_write;
