//! Strict in-memory fakes of the `review` ports, and builders for pull requests, for tests.
//!
//! The fakes reject what GitHub or git would reject (unknown ids, empty bodies, paths outside the
//! repository, empty commits) so that a test passing against them means something.
//!
//! [`github::FakeGitHub`] goes one level lower, for the GitHub adapter's own tests: a local HTTP
//! server that runs the adapter's GraphQL documents against in-memory pull requests.

mod builder;
mod host;
mod vcs;

pub use builder::{HEAD_SHA, PrBuilder, bot, person};
pub use host::{FakeHost, Mutation};
pub use vcs::{FakeFixer, FakeVcs, RecordedCommit};

/// Generators of arbitrary pull requests for property tests.
pub mod strategy;

pub mod github;

pub mod contract;

/// The names of the `[dependencies]` of a crate's `Cargo.toml` text (not dev- or build-), for
/// the architecture tests that keep a crate's dependencies to a list.
pub fn dependencies_of(manifest: &str) -> Vec<String> {
    let mut in_deps = false;
    let mut deps = Vec::new();
    for line in manifest.lines().map(str::trim) {
        if line.starts_with('[') {
            in_deps = line == "[dependencies]";
            continue;
        }
        if in_deps
            && !line.is_empty()
            && !line.starts_with('#')
            && let Some(name) = line.split(['=', '.', ' ']).next()
        {
            deps.push(name.trim().to_owned());
        }
    }
    deps
}

/// What the source of a crate that reaches the world only through ports must never name: the
/// file system, processes, the environment, the network, the clock and sleeping, and the crates
/// of the command line, HTTP, the MCP protocol, the GitHub client and the async runtime.
pub const WORLD_CALLS: &[&str] = &[
    "std::fs",
    "std::process",
    "std::env",
    "std::net",
    "SystemTime",
    "Instant::now",
    "thread::sleep",
    "tokio",
    "clap",
    "octocrab",
    "rmcp",
    "axum",
];

/// Every `.rs` file under `dir` (recursively, sorted by path) with its text, for the
/// architecture tests that read a crate's own source.
///
/// # Panics
///
/// When `dir` or a file under it cannot be read: the test is then looking in the wrong place.
pub fn rust_sources(dir: &std::path::Path) -> Vec<(std::path::PathBuf, String)> {
    let mut pending = vec![dir.to_path_buf()];
    let mut files = Vec::new();
    while let Some(dir) = pending.pop() {
        let entries = std::fs::read_dir(&dir)
            .unwrap_or_else(|e| panic!("cannot read {}: {e}", dir.display()));
        for entry in entries {
            let path = entry
                .unwrap_or_else(|e| panic!("cannot read {}: {e}", dir.display()))
                .path();
            if path.is_dir() {
                pending.push(path);
            } else if path.extension().is_some_and(|ext| ext == "rs") {
                let text = std::fs::read_to_string(&path)
                    .unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
                files.push((path, text));
            }
        }
    }
    files.sort();
    files
}

/// The [`WORLD_CALLS`] the `.rs` files under `src` name, as `path names word` lines (empty when
/// the source is clean), and how many files were read.
pub fn world_calls_in(src: &std::path::Path) -> (Vec<String>, usize) {
    let files = rust_sources(src);
    let found = files
        .iter()
        .flat_map(|(path, text)| {
            WORLD_CALLS
                .iter()
                .filter(|word| text.contains(**word))
                .map(move |word| format!("{} names `{word}`", path.display()))
        })
        .collect();
    (found, files.len())
}
