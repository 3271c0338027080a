//! `review judge-prompt`: the ready prompt for your judge command.

use clap::{Args, ValueEnum};

use crate::error::CliError;

/// Print a ready prompt for your judge command (--judge-cmd), with the workflow's rules
///
/// The prompt says what the judge gets on stdin, the rules it judges by and the one JSON object
/// it answers with. Every judge input carries the same text as `instructions`; this prints it
/// for a coding agent that takes its prompt as an argument, e.g.
/// `--judge-cmd 'claude -p "$(review judge-prompt triage)"'` (docs/judge.md has tested
/// configurations for common agents).
#[derive(Debug, Args)]
pub struct JudgePromptArgs {
    /// The workflow the judge works for: triage's classes and rungs, or the loop's verdicts
    #[arg(value_enum)]
    workflow: Workflow,
}

/// The workflows a judge serves.
#[derive(Debug, Clone, Copy, ValueEnum)]
enum Workflow {
    /// `review triage`: {"class", "reason", "rung", "alternative"}
    Triage,
    /// `review loop`: {"verdict", "reasoning", "evidence", "fixSketch"}
    Loop,
}

/// Runs `review judge-prompt`.
pub fn run(args: &JudgePromptArgs) -> Result<(), CliError> {
    let prompt = match args.workflow {
        Workflow::Triage => crate::judge::TRIAGE_PROMPT,
        Workflow::Loop => crate::judge::LOOP_PROMPT,
    };
    crate::output::stdout(&format!("{prompt}\n")).map_err(CliError::Output)
}
