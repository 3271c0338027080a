//! The command line: parsing, and dispatch to one module per subcommand.

use clap::{Parser, Subcommand};

use crate::commands;
use crate::error::{CliError, EXIT_CODES_HELP};

/// Triage the review conversation on a GitHub pull request: fix what is clear, resolve what is
/// noise, ask about what is unclear, and leave every thread a person touched to a person
#[derive(Debug, Parser)]
#[command(name = "review", version, after_long_help = EXIT_CODES_HELP)]
pub struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    Triage(commands::triage::TriageArgs),
}

/// Parses the command line and runs the command.
pub fn run() -> Result<(), CliError> {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => return Err(CliError::Clap(e)),
    };
    match cli.command {
        Command::Triage(args) => commands::triage::run(args),
    }
}
