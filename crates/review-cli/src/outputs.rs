//! The JSON outputs of commands that are no use-case's outcome (`review threads --json`,
//! `review config --json`, `review fence --json`): here, outside `commands/`, so that
//! `review schema` reads their types without taking from another command's module.

use serde::Serialize;

/// One thread, as listed.
#[derive(Debug, Serialize, schemars::JsonSchema)]
pub struct Listed {
    pub(crate) id: String,
    pub(crate) location: String,
    pub(crate) resolved: bool,
    pub(crate) outdated: bool,
    pub(crate) human: bool,
    pub(crate) all_comments_read: bool,
    pub(crate) author: Option<String>,
    pub(crate) family: Option<String>,
    pub(crate) title: String,
    pub(crate) comments: usize,
}

/// What `review threads --json` prints.
#[derive(Debug, Serialize, schemars::JsonSchema)]
pub struct Listing {
    pub(crate) version: u32,
    pub(crate) pr: u64,
    pub(crate) repo: String,
    pub(crate) threads: Vec<Listed>,
}

/// One setting, as `review config --json` prints it (an array of these).
#[derive(Debug, Serialize, schemars::JsonSchema)]
pub struct Row {
    pub(crate) key: &'static str,
    pub(crate) value: String,
    pub(crate) source: String,
}

/// What `review fence --json` prints.
#[derive(Debug, Serialize, schemars::JsonSchema)]
pub struct FenceOutput {
    /// The marker, `finding_` and 32 hex digits from the OS random source.
    pub(crate) marker: String,
    /// The body between `<marker>` and `</marker>` lines, copies of the tags redacted.
    pub(crate) fenced: String,
}
