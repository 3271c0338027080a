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
pub mod status;
pub mod threads;
pub mod triage;
pub mod watch;

#[cfg(test)]
mod tests {
    /// What a command still takes from another command's module, as `(file, module)`: each is
    /// to move to a shared module (`common`, an adapter outside `commands/`) or into
    /// review-app. The list only shrinks.
    const KNOWN: &[(&str, &str)] = &[
        ("followup", "respond"),
        ("mcp", "decide"),
        ("review_loop", "respond"),
        ("schema", "config"),
        ("schema", "decide"),
        ("schema", "fence"),
        ("schema", "threads"),
        ("schema", "triage"),
    ];

    /// Commands do not call commands: shared steps live in `common` or outside `commands/`.
    #[test]
    fn no_command_takes_from_another_commands_module() {
        let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/src/commands");
        let mut read = 0;
        for entry in std::fs::read_dir(dir).expect("the commands directory") {
            let path = entry.expect("a directory entry").path();
            let Some(file) = path.file_stem().and_then(|s| s.to_str()) else {
                continue;
            };
            if file == "mod" {
                continue;
            }
            let text = std::fs::read_to_string(&path).expect("a source file");
            read += 1;
            for (i, _) in text.match_indices("commands::") {
                let module: String = text[i + "commands::".len()..]
                    .chars()
                    .take_while(|c| c.is_ascii_lowercase() || *c == '_')
                    .collect();
                if module.is_empty() || module == "common" || module == file {
                    continue;
                }
                assert!(
                    KNOWN.contains(&(file, module.as_str())),
                    "commands/{file}.rs takes from commands/{module}.rs: move what they share \
                     to `common`, an adapter outside `commands/`, or review-app"
                );
            }
        }
        assert!(read > 10, "the command files were not found");
    }
}
