//! The `review` command as a library: the command line, its commands and the adapters they wire
//! (git, GitHub, the user's commands, the terminal), over the use-cases of `review-app`.
//!
//! Each command is arguments, then settings, then adapters, then a call of the application,
//! then rendering. The binary (`src/main.rs`) is [`run`] and nothing else; `review mcp` calls the
//! same command functions in process, so the gates it goes through are the command line's.

mod acting;
mod cli;
mod commands;
mod config;
mod deciding;
mod deferring;
mod error;
mod fixer;
mod following;
mod form;
mod github;
mod judge;
mod looping;
mod output;
mod outputs;
mod prereview;
mod render;
mod replying;
mod rerequesting;
mod round;
mod statusing;
mod triaging;
mod watching;

// The local adapters, under the names the command modules know them by.
use review_local::{audit, command, dispatch, git, ledger, loop_files, state};

/// Runs `review` with the process's arguments and returns its exit code: parses the command
/// line, runs the command, cleans up what git left (a temporary index), and maps the outcome to
/// the documented exit codes (`review --help`), printing an error, its causes and a hint on
/// stderr when it failed.
#[must_use]
pub fn run() -> std::process::ExitCode {
    output::show_local_warnings();
    let result = cli::run();
    git::cleanup();
    error::exit(result)
}

/// Test support, not an API: the follow-up form's server on its own, for the browser test
/// (`tests/cli/test_form_browser.rs`), which drives a real browser against a page it builds.
/// [`FormServer::bind`](form_test_support::FormServer::bind) starts serving a page on a random
/// loopback port, [`FormServer::url`](form_test_support::FormServer::url) is its address and
/// [`FormServer::wait`](form_test_support::FormServer::wait) its answers.
#[doc(hidden)]
pub mod form_test_support {
    pub use crate::form::{FormError, FormServer, FormTimings};
}
