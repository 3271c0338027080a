//! The environment variables `review` reads, and the [`Env`] lookup the rest of the crate takes.
//!
//! [`EnvVars`] is the one list of every variable the tool reads: a variable not named there is
//! not read anywhere. Code that needs one takes an [`Env`] rather than calling
//! [`std::env::var`], so tests pass a [`MapEnv`] and nothing depends on the test process's
//! environment. [`ProcessEnv`] is the only place that reads the real environment here; the
//! command-line interface reads the few variables it owns itself, naming these constants
//! (`clippy.toml` refuses `std::env::var*` elsewhere).

use std::collections::BTreeMap;

/// The names of every environment variable `review` reads, each documented where it is declared.
/// Besides these, the token variables a user names in `[token-variables]` are read (their names
/// are configuration, not code).
///
/// Tokens and hosts follow the conventions of GitHub's `gh` CLI, so a machine already set up for
/// `gh` (or a GitHub Actions runner) needs nothing more.
#[derive(Debug, Clone, Copy)]
pub struct EnvVars;

impl EnvVars {
    /// A token for `github.com`, and for a `*.ghe.com` host (GitHub Enterprise Cloud with data
    /// residency) the user configured ([`EnvVars::GH_HOST`] names it, or a per-owner token
    /// variable is bound to it); never sent to any other host. Read before
    /// [`EnvVars::GITHUB_TOKEN`]; an empty value is skipped.
    pub const GH_TOKEN: &'static str = "GH_TOKEN";

    /// A token for the same hosts as [`EnvVars::GH_TOKEN`], read when that is unset or empty.
    /// GitHub Actions provides one to workflows.
    pub const GITHUB_TOKEN: &'static str = "GITHUB_TOKEN";

    /// A token for the GitHub Enterprise Server host [`EnvVars::GH_HOST`] names, and no other
    /// (a pull request URL naming another host never gets it). Read before
    /// [`EnvVars::GITHUB_ENTERPRISE_TOKEN`]; an empty value is skipped.
    pub const GH_ENTERPRISE_TOKEN: &'static str = "GH_ENTERPRISE_TOKEN";

    /// A token for the Enterprise Server host [`EnvVars::GH_HOST`] names, read when
    /// [`EnvVars::GH_ENTERPRISE_TOKEN`] is unset or empty.
    pub const GITHUB_ENTERPRISE_TOKEN: &'static str = "GITHUB_ENTERPRISE_TOKEN";

    /// The GitHub host (`github.example.com`, no scheme) to use when neither a pull request URL
    /// nor the git remote names one. Without it the host is `github.com`. It is also the one
    /// host the Enterprise token variables are sent to, and a `*.ghe.com` host it names gets
    /// the `github.com` ones.
    pub const GH_HOST: &'static str = "GH_HOST";

    /// The repository as `[HOST/]OWNER/NAME`, used when `--repo` is not given, before the git
    /// remote is consulted.
    pub const GH_REPO: &'static str = "GH_REPO";

    /// The REST API base URL (`https://api.github.com`, `https://HOST/api/v3`). GitHub Actions
    /// sets it. When set, it is used whatever the host (unless [`EnvVars::GITHUB_SERVER_URL`]
    /// names another host), which is also how tests point the tool at a local server
    /// (`http://127.0.0.1:PORT`).
    pub const GITHUB_API_URL: &'static str = "GITHUB_API_URL";

    /// The GraphQL endpoint (`https://api.github.com/graphql`). GitHub Actions sets it. When only
    /// [`EnvVars::GITHUB_API_URL`] is set, the GraphQL endpoint is derived from it.
    pub const GITHUB_GRAPHQL_URL: &'static str = "GITHUB_GRAPHQL_URL";

    /// The web address of the GitHub the workflow runs on (`https://github.com`,
    /// `https://ghe.example.com`). GitHub Actions sets it beside the two API URLs. When it names
    /// a host other than the one the pull request is on, the API URL overrides are for that other
    /// host and are not used: the token of the pull request's host never goes to them.
    pub const GITHUB_SERVER_URL: &'static str = "GITHUB_SERVER_URL";

    /// `true` inside a GitHub Actions job (the runner sets it). `review status --publish`
    /// then publishes the verdict as a check run (the job's token is a GitHub App's, which may
    /// create one) rather than a commit status, unless `--publish-as` says otherwise. Read by
    /// the command-line interface.
    pub const GITHUB_ACTIONS: &'static str = "GITHUB_ACTIONS";

    /// When set to any non-empty value, human output uses no color (<https://no-color.org>).
    /// Read by the command-line interface, not by this crate.
    pub const NO_COLOR: &'static str = "NO_COLOR";

    /// The path of the user's configuration file, instead of
    /// `$XDG_CONFIG_HOME/review/config.toml`. An empty value is skipped. Read by the
    /// command-line interface.
    pub const REVIEW_CONFIG: &'static str = "REVIEW_CONFIG";

    /// A local copy of the repository's `.github/review.toml`, read instead of the file at the
    /// pull request's base commit. An empty value is skipped. Read by the command-line interface.
    pub const REVIEW_REPO_CONFIG: &'static str = "REVIEW_REPO_CONFIG";

    /// The base directory of the user's configuration (`$XDG_CONFIG_HOME/review/config.toml`),
    /// when [`EnvVars::REVIEW_CONFIG`] is unset. An empty value is skipped. Read by the
    /// command-line interface.
    pub const XDG_CONFIG_HOME: &'static str = "XDG_CONFIG_HOME";

    /// The home directory: the user's configuration is `$HOME/.config/review/config.toml` when
    /// neither [`EnvVars::REVIEW_CONFIG`] nor [`EnvVars::XDG_CONFIG_HOME`] is set. Read by the
    /// command-line interface.
    pub const HOME: &'static str = "HOME";

    /// For the tests: how many whole seconds a run waits for another run posting on the same
    /// pull request (never more than the usual 30). A shorter wait only gives up sooner. Read by
    /// the command-line interface.
    pub const REVIEW_TEST_LOCK_WAIT_SECONDS: &'static str = "REVIEW_TEST_LOCK_WAIT_SECONDS";

    /// For the maintainers: when set, the command-line interface's schema test rewrites the
    /// published JSON Schemas (`docs/schemas/`) instead of comparing them. Read by that test
    /// only, never by the tool.
    pub const UPDATE_SCHEMAS: &'static str = "UPDATE_SCHEMAS";

    /// Every variable above, for tools that must clear or record the environment (a test
    /// environment that starts empty, a `--debug` dump that lists which are set).
    pub const ALL: &'static [&'static str] = &[
        Self::GH_TOKEN,
        Self::GITHUB_TOKEN,
        Self::GH_ENTERPRISE_TOKEN,
        Self::GITHUB_ENTERPRISE_TOKEN,
        Self::GH_HOST,
        Self::GH_REPO,
        Self::GITHUB_API_URL,
        Self::GITHUB_GRAPHQL_URL,
        Self::GITHUB_SERVER_URL,
        Self::GITHUB_ACTIONS,
        Self::NO_COLOR,
        Self::REVIEW_CONFIG,
        Self::REVIEW_REPO_CONFIG,
        Self::XDG_CONFIG_HOME,
        Self::HOME,
        Self::REVIEW_TEST_LOCK_WAIT_SECONDS,
        Self::UPDATE_SCHEMAS,
    ];
}

/// A source of environment variables.
///
/// Implemented by [`ProcessEnv`] (the real environment), by [`MapEnv`] (a fixed map, for tests),
/// and by any `Fn(&str) -> Option<String>`.
pub trait Env {
    /// The value of the variable `name`, or `None` when it is unset (or, for the process
    /// environment, not valid Unicode).
    fn var(&self, name: &str) -> Option<String>;

    /// The value of `name` with surrounding whitespace removed, or `None` when it is unset or
    /// blank. Every variable this crate reads goes through this: an empty value counts as unset,
    /// as it does for `gh`.
    fn non_empty(&self, name: &str) -> Option<String> {
        let value = self.var(name)?;
        let trimmed = value.trim();
        (!trimmed.is_empty()).then(|| trimmed.to_owned())
    }
}

impl<F> Env for F
where
    F: Fn(&str) -> Option<String>,
{
    fn var(&self, name: &str) -> Option<String> {
        self(name)
    }
}

/// The environment of the running process. The only reader of the real environment in this crate.
#[derive(Debug, Clone, Copy, Default)]
pub struct ProcessEnv;

impl Env for ProcessEnv {
    #[expect(
        clippy::disallowed_methods,
        reason = "the one reader of the real environment for the GitHub adapter"
    )]
    fn var(&self, name: &str) -> Option<String> {
        std::env::var(name).ok()
    }
}

/// A fixed set of variables: an environment for tests, or a snapshot of the real one.
///
/// ```
/// use review_github::env::{Env, EnvVars, MapEnv};
///
/// let env = MapEnv::from_iter([(EnvVars::GH_TOKEN, ""), (EnvVars::GH_HOST, "ghe.example.com")]);
/// assert_eq!(env.var(EnvVars::GH_TOKEN).as_deref(), Some(""));
/// assert_eq!(env.non_empty(EnvVars::GH_TOKEN), None);
/// assert_eq!(env.non_empty(EnvVars::GH_HOST).as_deref(), Some("ghe.example.com"));
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct MapEnv {
    vars: BTreeMap<String, String>,
}

impl MapEnv {
    /// An empty environment.
    pub fn new() -> Self {
        Self::default()
    }

    /// Sets `name` to `value`, replacing any earlier value.
    pub fn set(&mut self, name: impl Into<String>, value: impl Into<String>) -> &mut Self {
        self.vars.insert(name.into(), value.into());
        self
    }
}

impl Env for MapEnv {
    fn var(&self, name: &str) -> Option<String> {
        self.vars.get(name).cloned()
    }
}

impl<K: Into<String>, V: Into<String>> FromIterator<(K, V)> for MapEnv {
    fn from_iter<I: IntoIterator<Item = (K, V)>>(iter: I) -> Self {
        Self {
            vars: iter
                .into_iter()
                .map(|(k, v)| (k.into(), v.into()))
                .collect(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn non_empty_skips_unset_empty_and_blank_values_and_trims() {
        let env = MapEnv::from_iter([("EMPTY", ""), ("BLANK", " \n"), ("SET", " tok\n")]);
        for (name, expected) in [
            ("UNSET", None),
            ("EMPTY", None),
            ("BLANK", None),
            ("SET", Some("tok")),
        ] {
            assert_eq!(env.non_empty(name).as_deref(), expected, "{name}");
        }
    }

    #[test]
    fn closures_are_environments() {
        let env = |name: &str| (name == "GH_HOST").then(|| "h.example".to_owned());
        let env: &dyn Env = &env;
        assert_eq!(env.var("GH_HOST").as_deref(), Some("h.example"));
        assert_eq!(env.var("GH_TOKEN"), None);
    }

    #[test]
    fn all_lists_every_variable_once() {
        let mut names = EnvVars::ALL.to_vec();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), EnvVars::ALL.len());
        assert_eq!(names.len(), 17);
    }
}
