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

    /// When to color the messages on stderr (NO_COLOR in the environment means never, unless
    /// --color always)
    #[arg(
        long,
        global = true,
        value_enum,
        value_name = "WHEN",
        default_value = "auto"
    )]
    color: crate::output::ColorChoice,
}

#[derive(Debug, Subcommand)]
enum Command {
    Triage(commands::triage::TriageArgs),
    Threads(commands::threads::ThreadsArgs),
    Resolve(commands::resolve::ResolveArgs),
    Reply(commands::reply::ReplyArgs),
    Respond(commands::respond::RespondArgs),
    Followup(commands::followup::FollowupArgs),
    Watch(commands::watch::WatchArgs),
    Decide(commands::decide::DecideArgs),
    Fence(commands::fence::FenceArgs),
    CommitRound(commands::commit_round::CommitRoundArgs),
    Loop(commands::review_loop::LoopArgs),
    Config(commands::config::ConfigArgs),
    Mcp(commands::mcp::McpArgs),
    Schema(commands::schema::SchemaArgs),
    Completions(commands::generate::CompletionsArgs),
    Man(commands::generate::ManArgs),
    Snapshot(commands::snapshot::SnapshotArgs),
}

/// Parses the command line and runs the command.
pub fn run() -> Result<(), CliError> {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => return Err(CliError::Clap(e)),
    };
    crate::output::set_color(cli.color);
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| CliError::Other {
            message: format!("cannot start the async runtime: {e}"),
            hint: None,
        })?;
    runtime.block_on(async {
        match cli.command {
            Command::Triage(args) => commands::triage::run(args).await,
            Command::Threads(args) => commands::threads::run(args).await,
            Command::Resolve(args) => commands::resolve::run(args).await,
            Command::Reply(args) => commands::reply::run(args).await,
            Command::Respond(args) => commands::respond::run(args).await,
            Command::Followup(args) => commands::followup::run(args).await,
            Command::Watch(args) => commands::watch::run(args).await,
            Command::Decide(args) => commands::decide::run(args).await,
            Command::Fence(args) => commands::fence::run(args).await,
            Command::CommitRound(args) => commands::commit_round::run(args).await,
            Command::Loop(args) => commands::review_loop::run(args).await,
            Command::Config(args) => commands::config::run(&args),
            Command::Mcp(args) => commands::mcp::run(args).await,
            Command::Schema(args) => commands::schema::run(&args),
            Command::Completions(args) => commands::generate::completions(&args),
            Command::Man(args) => commands::generate::man(&args),
            Command::Snapshot(args) => commands::snapshot::run(args).await,
        }
    })
}
