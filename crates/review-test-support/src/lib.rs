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

/// The contract suite of the review-host port, for every host: see [`host_contract!`].
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
