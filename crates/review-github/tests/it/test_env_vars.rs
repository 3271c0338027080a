//! `EnvVars` is the one list of the environment variables the tool reads: every read in the
//! workspace's source names one of its constants (never a string literal), and `EnvVars::ALL`
//! holds every constant once. A new variable must be added there, documented, to be read.

use std::path::Path;

use review_github::env::EnvVars;

/// The calls that read a variable, whose first argument must not be a string literal.
const READS: &[&str] = &["env::var(", "env::var_os(", ".non_empty(", ".var("];

/// The source of a file without its unit tests (which read their own fixed environments).
fn without_tests(text: &str) -> &str {
    text.find("#[cfg(test)]\nmod tests")
        .map_or(text, |at| &text[..at])
}

#[test]
fn every_variable_read_is_named_in_env_vars() {
    let crates = Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/.."));
    let mut read = 0;
    let mut literals = Vec::new();
    for entry in std::fs::read_dir(crates).unwrap() {
        let src = entry.unwrap().path().join("src");
        if !src.is_dir() {
            continue;
        }
        for (path, text) in review_test_support::rust_sources(&src) {
            read += 1;
            let code = without_tests(&text);
            for call in READS {
                for (at, _) in code.match_indices(call) {
                    let argument = code[at + call.len()..].trim_start();
                    if argument.starts_with('"') {
                        let shown: String = argument.chars().take(40).collect();
                        literals.push(format!("{}: {call}{shown}", path.display()));
                    }
                }
            }
            for whole in ["env::vars(", "env::vars_os("] {
                if code.contains(whole) {
                    literals.push(format!("{} reads the whole environment", path.display()));
                }
            }
        }
    }
    assert!(
        read > 50,
        "the workspace's source was not found under {}",
        crates.display()
    );
    assert!(
        literals.is_empty(),
        "read a variable by a constant of `review_github::env::EnvVars` (documented there, listed in ALL):\n{}",
        literals.join("\n")
    );
}

#[test]
fn env_vars_all_lists_every_constant() {
    let text = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/src/env.rs")).unwrap();
    let declared: Vec<&str> = text
        .lines()
        .filter_map(|l| l.trim().strip_prefix("pub const "))
        .filter_map(|l| l.split_once(": &'static str = \""))
        .map(|(name, rest)| {
            let value = rest.trim_end_matches("\";");
            assert_eq!(name, value, "a constant is named as its variable");
            name
        })
        .collect();
    assert!(declared.len() >= 10, "the constants were not found");
    for name in &declared {
        assert!(EnvVars::ALL.contains(name), "`EnvVars::ALL` misses {name}");
    }
    assert_eq!(
        declared.len(),
        EnvVars::ALL.len(),
        "ALL names something twice or undeclared"
    );
    for name in [
        "REVIEW_CONFIG",
        "REVIEW_REPO_CONFIG",
        "XDG_CONFIG_HOME",
        "HOME",
        "NO_COLOR",
    ] {
        assert!(EnvVars::ALL.contains(&name), "{name}");
    }
}
