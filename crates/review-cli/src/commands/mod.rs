//! One module per subcommand, each with its arguments and a `run` function.

pub mod commit_round;
pub mod common;
pub mod config;
pub mod decide;
pub mod defer;
pub mod fence;
pub mod followup;
pub mod generate;
pub mod judge_prompt;
pub mod log;
pub mod mcp;
pub mod reply;
pub mod rereview;
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
    /// The command modules: the file stems under `commands/` (`mod` aside).
    fn command_files() -> Vec<(String, String)> {
        let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/src/commands");
        let mut files = Vec::new();
        for entry in std::fs::read_dir(dir).expect("the commands directory") {
            let path = entry.expect("a directory entry").path();
            let Some(file) = path.file_stem().and_then(|s| s.to_str()) else {
                continue;
            };
            if file == "mod" || path.extension().is_none_or(|e| e != "rs") {
                continue;
            }
            let text = std::fs::read_to_string(&path).expect("a source file");
            files.push((file.to_owned(), text));
        }
        files
    }

    /// The first path segment of each item after `prefix` at `at` in `text`: `x` for
    /// `prefix x::y`, and each of `a`, `b` for `prefix {a::A, b::{B, C}}`.
    fn named_after(text: &str, at: usize) -> Vec<String> {
        let rest = &text[at..];
        let segment = |s: &str| -> String {
            s.trim_start()
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                .collect()
        };
        let Some(group) = rest.strip_prefix('{') else {
            return vec![segment(rest)];
        };
        // The top-level items of the group, up to its closing brace.
        let (mut depth, mut items, mut item) = (0usize, Vec::new(), String::new());
        for c in group.chars() {
            match c {
                '{' => depth += 1,
                '}' if depth == 0 => break,
                '}' => depth -= 1,
                ',' if depth == 0 => {
                    items.push(std::mem::take(&mut item));
                    continue;
                }
                _ => {}
            }
            item.push(c);
        }
        items.push(item);
        items.iter().map(|i| segment(i)).collect()
    }

    /// What `text` (the file `commands/<file>.rs`) takes from other command modules: each
    /// `crate::commands::<module>` and `super::<module>` (also in a `{...}` group) naming a
    /// command other than `file`, `common` or `mod`.
    fn taken_from_others(file: &str, text: &str, commands: &[String]) -> Vec<String> {
        let mut found = Vec::new();
        for prefix in ["commands::", "super::"] {
            for (i, _) in text.match_indices(prefix) {
                if text[..i].ends_with(prefix) {
                    continue;
                }
                let mut at = i + prefix.len();
                // `super::super::x` is `x` too.
                while text[at..].starts_with(prefix) {
                    at += prefix.len();
                }
                for module in named_after(text, at) {
                    let is_command = commands.contains(&module);
                    if is_command && module != file && module != "common" && module != "mod" {
                        found.push(format!("commands/{file}.rs names `{prefix}{module}`"));
                    }
                }
            }
        }
        found
    }

    /// Commands do not call commands: what they share lives in `common`, outside `commands/`
    /// (an adapter, `outputs.rs`) or in review-app. No file under `commands/` names another
    /// command's module, as `crate::commands::x` or `super::x`.
    #[test]
    fn no_command_takes_from_another_commands_module() {
        let files = command_files();
        assert!(files.len() > 10, "the command files were not found");
        let commands: Vec<String> = files.iter().map(|(f, _)| f.clone()).collect();
        let found: Vec<String> = files
            .iter()
            .flat_map(|(file, text)| taken_from_others(file, text, &commands))
            .collect();
        assert!(
            found.is_empty(),
            "move what commands share to `common`, a module outside `commands/`, or review-app:\n{}",
            found.join("\n")
        );
    }

    /// The scan sees each way of naming another command's module, and passes a command's own
    /// items, `common` and a test module's `super::*`.
    #[test]
    fn the_scan_sees_every_way_of_naming_another_command() {
        let commands: Vec<String> = ["triage", "decide", "schema", "common", "threads"]
            .map(str::to_owned)
            .to_vec();
        let taken = |text: &str| taken_from_others("schema", text, &commands);
        assert_eq!(
            taken("of::<crate::commands::triage::SubstepResult>()"),
            ["commands/schema.rs names `commands::triage`"]
        );
        assert_eq!(
            taken("use crate::commands::{common, decide::Recorded, threads::{Listing}};"),
            [
                "commands/schema.rs names `commands::decide`",
                "commands/schema.rs names `commands::threads`"
            ]
        );
        assert_eq!(
            taken("use super::decide::Recorded; use super::super::triage;"),
            [
                "commands/schema.rs names `super::decide`",
                "commands/schema.rs names `super::triage`"
            ]
        );
        for fine in [
            "use crate::commands::common::{self, PrArgs};",
            "use super::*;",
            "use super::read_replies;",
            "crate::commands::schema::Output",
            "review_app::decide::Recorded",
        ] {
            assert!(taken(fine).is_empty(), "{fine}");
        }
    }
}
