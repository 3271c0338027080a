//! The command line: parsing, and dispatch to one module per subcommand.

use clap::{Parser, Subcommand};

use crate::commands;
use crate::error::{CliError, EXIT_CODES_HELP};

/// What `review --version` prints after the name: the version, the commit the binary was built
/// from (`unknown` for a build outside git) and the target it was built for (see `build.rs`).
pub const VERSION: &str = concat!(
    env!("CARGO_PKG_VERSION"),
    " (commit ",
    env!("REVIEW_BUILD_COMMIT"),
    ", ",
    env!("REVIEW_BUILD_TARGET"),
    ")"
);

/// Triage the review conversation on a GitHub pull request: fix what is clear, resolve what is
/// noise, ask about what is unclear, and leave every thread a person touched to a person
#[derive(Debug, Parser)]
#[command(name = "review", version = VERSION, after_long_help = EXIT_CODES_HELP)]
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

    /// Let the git commands the tool runs (commit, checkout, worktree, cherry-pick, push) run
    /// the repository's hooks. Off by default: with husky, lefthook or pre-commit the hooks are
    /// part of the pull request's tree, so running them runs the pull request's code. Your own
    /// config file may turn it on with `run-hooks = true`
    #[arg(long, global = true)]
    run_hooks: bool,

    /// Let this command see the token variables (GH_TOKEN, GITHUB_TOKEN, the enterprise ones
    /// and those of your `[token-variables]`): reviewer, judge, fixer, checks, agent,
    /// translator or analyst (repeatable). By default no command the tool runs gets them
    /// (a `gh` login stays reachable to it: this is defence in depth)
    #[arg(long = "pass-token", global = true, value_name = "COMMAND", value_parser = pass_token_name)]
    pass_token: Vec<crate::command::Kind>,

    /// How many judge, analyst and translator calls run at once (1-64) [default: `jobs` in your
    /// config file, else 4]. Answers are taken in thread order, so the output is the same with
    /// any number; fixers always run one at a time (they edit the working tree)
    #[arg(long, global = true, value_name = "N", value_parser = clap::value_parser!(u16).range(1..=64))]
    jobs: Option<u16>,
}

fn pass_token_name(text: &str) -> Result<crate::command::Kind, String> {
    crate::command::Kind::named(text).ok_or_else(|| {
        let names: Vec<&str> = crate::command::Kind::ALL
            .iter()
            .map(|k| k.as_str())
            .collect();
        format!(
            "`{text}` is not a command the tool runs; one of {}",
            names.join(", ")
        )
    })
}

#[derive(Debug, Subcommand)]
enum Command {
    Triage(crate::triaging::TriageArgs),
    Threads(commands::threads::ThreadsArgs),
    Resolve(commands::resolve::ResolveArgs),
    Reply(commands::reply::ReplyArgs),
    Defer(commands::defer::DeferArgs),
    Respond(commands::respond::RespondArgs),
    Followup(commands::followup::FollowupArgs),
    Watch(commands::watch::WatchArgs),
    Status(commands::status::StatusArgs),
    Rereview(commands::rereview::RereviewArgs),
    Decide(commands::decide::DecideArgs),
    Fence(commands::fence::FenceArgs),
    CommitRound(commands::commit_round::CommitRoundArgs),
    Loop(commands::review_loop::LoopArgs),
    JudgePrompt(commands::judge_prompt::JudgePromptArgs),
    Config(commands::config::ConfigArgs),
    Mcp(commands::mcp::McpArgs),
    Schema(commands::schema::SchemaArgs),
    Completions(commands::generate::CompletionsArgs),
    Man(commands::generate::ManArgs),
    Snapshot(commands::snapshot::SnapshotArgs),
    Log(commands::log::LogArgs),
}

/// The subcommand's name, for the audit log.
fn command_name(command: &Command) -> &'static str {
    match command {
        Command::Triage(_) => "triage",
        Command::Threads(_) => "threads",
        Command::Resolve(_) => "resolve",
        Command::Reply(_) => "reply",
        Command::Defer(_) => "defer",
        Command::Respond(_) => "respond",
        Command::Followup(_) => "followup",
        Command::Watch(_) => "watch",
        Command::Status(_) => "status",
        Command::Rereview(_) => "rereview",
        Command::Decide(_) => "decide",
        Command::Fence(_) => "fence",
        Command::CommitRound(_) => "commit-round",
        Command::Loop(_) => "loop",
        Command::JudgePrompt(_) => "judge-prompt",
        Command::Config(_) => "config",
        Command::Mcp(_) => "mcp",
        Command::Schema(_) => "schema",
        Command::Completions(_) => "completions",
        Command::Man(_) => "man",
        Command::Snapshot(_) => "snapshot",
        Command::Log(_) => "log",
    }
}

/// Parses the command line and runs the command.
pub fn run() -> Result<(), CliError> {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => return Err(CliError::Clap(e)),
    };
    crate::output::set_color(cli.color);
    // The user's file, read once for the run and handed to the command: a command that needs it
    // fails on a broken file (saying where), one that does not (`schema`, `completions`, ...)
    // runs all the same.
    let config = crate::config::load();
    let configured_hooks = config
        .as_ref()
        .ok()
        .and_then(|c| c.run_hooks.as_ref().map(|(on, _)| *on))
        .unwrap_or(false);
    crate::git::set_run_hooks(cli.run_hooks || configured_hooks);
    let mut pass = cli.pass_token.clone();
    let mut extra_variables = Vec::new();
    if let Ok(config) = &config {
        for (name, source) in &config.pass_token {
            match pass_token_name(name) {
                Ok(kind) => pass.push(kind),
                Err(why) => {
                    return Err(CliError::Usage {
                        message: format!("{source}: commands.pass-token: {why}"),
                        hint: None,
                    });
                }
            }
        }
        extra_variables = config
            .token_variables
            .values()
            .map(|(var, _)| var.clone())
            .collect();
    }
    crate::command::set_token_policy(pass, extra_variables);
    let configured_jobs = config
        .as_ref()
        .ok()
        .and_then(|c| c.jobs.as_ref().map(|(n, _)| *n));
    crate::command::set_jobs(
        cli.jobs
            .map(usize::from)
            .or(configured_jobs)
            .unwrap_or(crate::command::DEFAULT_JOBS),
    );
    crate::audit::set_command(command_name(&cli.command));
    runtime()?.block_on(dispatch(cli.command, config))
}

/// The value of the flags `T` when none is given: clap's own defaults, so that a caller that
/// builds a command's settings in process (`review mcp`) starts from exactly what the command
/// line would. Fails only for flags that require a value (none of those it is used for: a unit
/// test parses each).
pub(crate) fn defaults<T: clap::Args + clap::FromArgMatches>() -> Result<T, clap::Error> {
    let matches = T::augment_args(clap::Command::new("review"))
        .no_binary_name(true)
        .try_get_matches_from(std::iter::empty::<String>())?;
    T::from_arg_matches(&matches)
}

/// A runtime for one command, on the thread that calls it.
pub(crate) fn runtime() -> Result<tokio::runtime::Runtime, CliError> {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| CliError::Other {
            message: format!("cannot start the async runtime: {e}"),
            hint: None,
        })
}

/// Runs the command with the user's configuration (`config`: as read, or why it could not be),
/// which only the commands that use it ask for.
async fn dispatch(
    command: Command,
    config: Result<crate::config::Config, CliError>,
) -> Result<(), CliError> {
    match command {
        Command::Triage(args) => commands::triage::run(args, &config?).await,
        Command::Threads(args) => commands::threads::run(args, &config?).await,
        Command::Resolve(args) => commands::resolve::run(args, &config?).await,
        Command::Reply(args) => commands::reply::run(args, &config?).await,
        Command::Defer(args) => commands::defer::run(args, &config?).await,
        Command::Respond(args) => commands::respond::run(args, &config?).await,
        Command::Followup(args) => commands::followup::run(args, &config?).await,
        Command::Watch(args) => commands::watch::run(args, &config?).await,
        Command::Status(args) => commands::status::run(args, &config?).await,
        Command::Rereview(args) => commands::rereview::run(args, &config?).await,
        Command::Decide(args) => commands::decide::run(args, &config?).await,
        Command::Fence(args) => commands::fence::run(args, &config?).await,
        Command::CommitRound(args) => commands::commit_round::run(args, &config?).await,
        Command::Loop(args) => commands::review_loop::run(args, &config?).await,
        Command::JudgePrompt(args) => commands::judge_prompt::run(&args),
        Command::Config(args) => commands::config::run(&args, &config?).await,
        Command::Mcp(args) => commands::mcp::run(args, config?).await,
        Command::Schema(args) => commands::schema::run(&args),
        Command::Completions(args) => commands::generate::completions(&args),
        Command::Man(args) => commands::generate::man(&args),
        Command::Snapshot(args) => commands::snapshot::run(args, &config?).await,
        Command::Log(args) => commands::log::run(args, &config?).await,
    }
}

#[cfg(test)]
mod tests {
    use clap::Parser as _;

    use super::Cli;

    /// The flags `review mcp` builds its calls' settings from parse from nothing (the `Default`
    /// of each is clap's parse of no argument), and equal the command line's own defaults.
    #[test]
    fn the_flags_calls_start_from_are_the_command_lines_defaults() {
        let triage = crate::triaging::TriageArgs::default();
        let super::Command::Triage(cli) = Cli::parse_from(["review", "triage"]).command else {
            panic!("not triage");
        };
        assert_eq!(format!("{triage:?}"), format!("{cli:?}"));
        assert_eq!(triage.fixer_timeout, 600);
        assert_eq!(triage.judge_timeout, 300);
        assert!(!triage.apply && !triage.json && triage.pr.is_none());
        let automation = crate::commands::common::AutomationArgs::default();
        assert_eq!(
            automation.automated_header,
            review_core::gate::DEFAULT_AUTOMATED_HEADER
        );
        let poll = crate::commands::common::PollArgs::default();
        assert_eq!(
            (poll.interval, poll.full_every, poll.late_after),
            (60, 600, 20)
        );
        assert!(poll.expect_bots.is_empty() && poll.max_polls.is_none());
    }
}
