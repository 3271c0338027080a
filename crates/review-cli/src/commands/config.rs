//! `review config`: the effective settings and where each came from.

use clap::Args;
use review_core::gate::DEFAULT_AUTOMATED_HEADER;
use review_core::plan::DEFAULT_DENIED_PATHS;
use serde::Serialize;

use crate::commands::common;
use crate::config::{self, Source};
use crate::error::CliError;
use crate::output;

/// The long help of `review config`: the two files and every key.
const CONFIG_HELP: &str = "Show the effective configuration and where each setting comes from

Two files are read, and flags win over both. Your own file (REVIEW_CONFIG, else
$XDG_CONFIG_HOME/review/config.toml, else ~/.config/review/config.toml) may set everything:

    [automation]
    accounts = [\"qa-bot\"]          # more logins that only post automated comments
    headers = [\"🔎 QA report\"]      # more headers that mark automated comments
    [paths]
    deny = [\"migrations/\"]         # more paths no fix may edit
    [watch]
    expect-bots = [\"coderabbitai\"] # more bots quiescence waits for
    [commands]                     # your file only
    reviewer = \"...\"               # triage --reviewer-cmd
    triager = \"...\"                # triage and loop --triager-cmd
    fixer = \"...\"                  # triage and loop --fixer-cmd
    checks = \"cargo test\"          # commit-round and loop --check-cmd
    agent = \"...\"                  # followup --agent-cmd
    translator = \"...\"             # followup: comments shown in your language
    analyst = \"...\"                # followup: the form's suggestion per thread
    [token-variables]              # your file only; each token goes to its host only
    \"github.com/acme\" = \"ACME_TOKEN\"            # the token for acme's repositories on github.com
    \"ghe.example.com/platform\" = \"PLATFORM_TOKEN\" # ... for platform's on an Enterprise host
    [defaults]                     # your file only
    apply = true                   # triage applies unless --no-apply
    push = false                   # triage --apply pushes unless --no-push
    [github]                       # your file only
    post-check-seconds = 60        # how long a post whose answer was lost is looked for

The repository's file (.github/review.toml, or REVIEW_REPO_CONFIG) may only add bot logins,
automated headers, deny-listed paths and expected bots: commands, defaults and tokens in it
are an error, so a pull request cannot make the tool run its commands. Tokens come from
GH_TOKEN / GITHUB_TOKEN (github.com), GH_ENTERPRISE_TOKEN (the host GH_HOST names) or `gh
auth token`, never from these files, and each goes only to its own host.";

/// Show the effective configuration and where each setting comes from
#[derive(Debug, Args)]
#[command(long_about = CONFIG_HELP)]
pub struct ConfigArgs {
    /// Print the settings as JSON
    #[arg(long)]
    json: bool,
}

/// One setting, as `review config --json` prints it (an array of these).
#[derive(Debug, Serialize, schemars::JsonSchema)]
pub struct Row {
    key: &'static str,
    value: String,
    source: String,
}

fn rows(config: &config::Config) -> Vec<Row> {
    let mut rows = Vec::new();
    let mut push = |key, value: String, source: &Source| {
        rows.push(Row {
            key,
            value,
            source: source.to_string(),
        });
    };
    for (v, s) in &config.accounts {
        push("automation.accounts", v.clone(), s);
    }
    push(
        "automation.header",
        DEFAULT_AUTOMATED_HEADER.to_owned(),
        &Source::Default,
    );
    for (v, s) in &config.headers {
        push("automation.headers", v.clone(), s);
    }
    for p in DEFAULT_DENIED_PATHS {
        push("paths.deny", (*p).to_owned(), &Source::Default);
    }
    for (v, s) in &config.deny {
        push("paths.deny", v.clone(), s);
    }
    for (v, s) in &config.expect_bots {
        push("watch.expect-bots", v.clone(), s);
    }
    for (key, value) in [
        ("commands.reviewer", &config.reviewer),
        ("commands.triager", &config.triager),
        ("commands.fixer", &config.fixer),
        ("commands.checks", &config.checks),
        ("commands.agent", &config.agent),
        ("commands.translator", &config.translator),
        ("commands.analyst", &config.analyst),
    ] {
        match value {
            Some((v, s)) => push(key, v.clone(), s),
            None => push(key, "(not set)".to_owned(), &Source::Default),
        }
    }
    for ((host, owner), (var, source)) in &config.token_variables {
        push("token-variables", format!("{host}/{owner} = {var}"), source);
    }
    match &config.post_check {
        Some((secs, source)) => push("github.post-check-seconds", secs.to_string(), source),
        None => push(
            "github.post-check-seconds",
            review_github::adapter::WriteSettings::default()
                .post_check
                .as_secs()
                .to_string(),
            &Source::Default,
        ),
    }
    for (key, value) in [
        ("defaults.apply", &config.apply),
        ("defaults.push", &config.push),
    ] {
        match value {
            Some((v, s)) => push(key, v.to_string(), s),
            None => push(key, "false".to_owned(), &Source::Default),
        }
    }
    rows
}

/// Runs `review config`.
pub fn run(args: &ConfigArgs) -> Result<(), CliError> {
    let cwd = common::cwd()?;
    let config = config::load(&cwd)?;
    let rows = rows(&config);
    let text = if args.json {
        serde_json::to_string_pretty(&rows).map_err(|e| CliError::Other {
            message: e.to_string(),
            hint: None,
        })? + "\n"
    } else {
        let file = |path: Option<std::path::PathBuf>| {
            path.map_or_else(
                || "(none)".to_owned(),
                |p| {
                    let state = if p.exists() { "" } else { " (not found)" };
                    format!("{}{state}", p.display())
                },
            )
        };
        let mut text = format!(
            "user file        {}\nrepository file  {}\n\n",
            file(config::user_path()),
            file(config::repository_path(&cwd))
        );
        let width = rows.iter().map(|r| r.key.len()).max().unwrap_or(0);
        let vwidth = rows
            .iter()
            .map(|r| r.value.chars().count())
            .max()
            .unwrap_or(0)
            .min(40);
        for r in &rows {
            text.push_str(&format!(
                "{:width$}  {:vwidth$}  {}\n",
                r.key, r.value, r.source
            ));
        }
        text
    };
    output::stdout(&text).map_err(CliError::Output)
}
