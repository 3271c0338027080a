//! `review completions` and `review man`: shell completions and a man page, generated from the
//! command-line definition itself, so they never drift from it.

use clap::{Args, CommandFactory, ValueEnum};

use crate::cli::Cli;
use crate::error::CliError;
use crate::output;

/// A shell to complete in.
#[derive(Debug, Clone, Copy, ValueEnum)]
pub enum Shell {
    /// Bash.
    Bash,
    /// Zsh.
    Zsh,
    /// Fish.
    Fish,
    /// Elvish.
    Elvish,
    /// PowerShell.
    Powershell,
}

/// Print a shell completion script
///
/// For example: `review completions bash > ~/.local/share/bash-completion/completions/review`,
/// `review completions zsh > "${fpath[1]}/_review"`, or
/// `review completions fish > ~/.config/fish/completions/review.fish`.
#[derive(Debug, Args)]
pub struct CompletionsArgs {
    /// The shell
    #[arg(value_enum)]
    shell: Shell,
}

/// Print the man page (roff)
///
/// For example: `review man > ~/.local/share/man/man1/review.1`, then `man review`.
#[derive(Debug, Args)]
pub struct ManArgs {}

/// Runs `review completions`.
pub fn completions(args: &CompletionsArgs) -> Result<(), CliError> {
    let shell = match args.shell {
        Shell::Bash => clap_complete::Shell::Bash,
        Shell::Zsh => clap_complete::Shell::Zsh,
        Shell::Fish => clap_complete::Shell::Fish,
        Shell::Elvish => clap_complete::Shell::Elvish,
        Shell::Powershell => clap_complete::Shell::PowerShell,
    };
    let mut script = Vec::new();
    clap_complete::generate(shell, &mut Cli::command(), "review", &mut script);
    output::stdout(&String::from_utf8_lossy(&script)).map_err(CliError::Output)
}

/// Runs `review man`: the main page, then a section per command with its description and
/// options.
pub fn man(_: &ManArgs) -> Result<(), CliError> {
    let command = Cli::command();
    let mut page = Vec::new();
    clap_mangen::Man::new(command.clone())
        .render(&mut page)
        .map_err(CliError::Output)?;
    for sub in command.get_subcommands().filter(|s| s.get_name() != "help") {
        let name = format!("review {}", sub.get_name());
        page.extend_from_slice(format!(".SH \"{}\"\n", name.to_uppercase()).as_bytes());
        let man = clap_mangen::Man::new(sub.clone());
        let mut section = Vec::new();
        man.render_description_section(&mut section)
            .and_then(|()| man.render_options_section(&mut section))
            .map_err(CliError::Output)?;
        // Each rendered section starts with its own heading: keep the text under ours.
        let text = String::from_utf8_lossy(&section);
        for line in text.lines().filter(|l| !l.starts_with(".SH")) {
            page.extend_from_slice(line.as_bytes());
            page.push(b'\n');
        }
    }
    output::stdout(&String::from_utf8_lossy(&page)).map_err(CliError::Output)
}
