//! One module per subcommand, each with its arguments and a `run` function.

pub mod commit_round;
pub mod common;
pub mod config;
pub mod decide;
pub mod fence;
pub mod followup;
pub mod generate;
pub mod judge_prompt;
pub mod log;
pub mod mcp;
pub mod reply;
pub mod resolve;
pub mod respond;
pub mod review_loop;
pub mod schema;
pub mod snapshot;
pub mod threads;
pub mod triage;
pub mod watch;
