//! `review`: triage the review conversation on a GitHub pull request.

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
mod loop_files;
mod output;
mod prereview;
mod render;
mod state;
mod triager;

fn main() -> std::process::ExitCode {
    error::exit(cli::run())
}
