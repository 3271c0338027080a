//! `review`: triage the review conversation on a GitHub pull request.

mod audit;
mod cli;
mod command;
mod commands;
mod config;
mod dispatch;
mod error;
mod fixer;
mod form;
mod git;
mod github;
mod judge;
mod ledger;
mod loop_files;
mod output;
mod prereview;
mod render;
mod replying;
mod round;
mod state;
mod watching;

fn main() -> std::process::ExitCode {
    let result = cli::run();
    git::cleanup();
    error::exit(result)
}
