//! `review config`: the effective settings and where each came from.

use clap::Args;
use review_core::gate::DEFAULT_AUTOMATED_HEADER;
use review_core::plan::DEFAULT_DENIED_PATHS;
use review_core::text::visible_line;

use crate::commands::common;
use crate::config::{self, Source};
use crate::error::CliError;
use crate::output;
use crate::outputs::Row;

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
    judge = \"...\"                  # triage and loop --judge-cmd (older name: triager)
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
    [judge]                        # your file only
    min-severity = \"high\"          # no judge makes a finding below it actionable

`jobs = 4`, a top-level key of your own file, is how many judge, analyst and translator calls
run at once (--jobs wins). `run-hooks = true`, a top-level key of your own file (before any
[table]), lets the tool's git commands run the repository's hooks (off by default: with husky, lefthook or pre-commit the
hooks are the pull request's code). The repository's file (.github/review.toml) is read at the
pull request's base commit through the API, never from the working tree (which holds the pull
request's own content): a regular file of at most 64 KiB. It may only add bot logins (counted
only for authors GitHub types as Bot), deny-listed paths and expected bots: automation accounts
typed User, headers, commands, defaults, hooks and tokens in it are an error, so a pull request
cannot make the tool run its commands or treat a person as automation. REVIEW_REPO_CONFIG names
a local copy to use instead. Tokens come from GH_TOKEN / GITHUB_TOKEN (github.com),
GH_ENTERPRISE_TOKEN (the host GH_HOST names) or `gh auth token`, never from these files, and
each goes only to its own host.";

/// Show the effective configuration and where each setting comes from
#[derive(Debug, Args)]
#[command(long_about = CONFIG_HELP)]
pub struct ConfigArgs {
    /// Print the settings as JSON
    #[arg(long)]
    json: bool,

    /// Also show what the repository's file adds for this pull request (a number or URL), read
    /// at its base commit
    #[arg(long, value_name = "PR")]
    pr: Option<String>,

    #[command(flatten)]
    target: common::PrArgs,
}

fn rows(config: &config::Config, repository: &config::RepositoryLayer) -> Vec<Row> {
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
    for (v, s) in &repository.bot_accounts {
        push("automation.accounts (Bot only)", v.clone(), s);
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
    for (v, s) in config.deny.iter().chain(&repository.deny) {
        push("paths.deny", v.clone(), s);
    }
    for (v, s) in config.expect_bots.iter().chain(&repository.expect_bots) {
        push("watch.expect-bots", v.clone(), s);
    }
    for (key, value) in [
        ("commands.reviewer", &config.reviewer),
        ("commands.judge", &config.judge),
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
    match &config.jobs {
        Some((jobs, source)) => push("jobs", jobs.to_string(), source),
        None => push(
            "jobs",
            crate::command::DEFAULT_JOBS.to_string(),
            &Source::Default,
        ),
    }
    if let Some((floor, source)) = &config.min_severity {
        push("judge.min-severity", floor.as_str().to_owned(), source);
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
    for (label, source) in &config.defer_labels {
        push("defer-labels", label.clone(), source);
    }
    for (key, value) in [
        ("defaults.apply", &config.apply),
        ("defaults.push", &config.push),
        ("run-hooks", &config.run_hooks),
        ("defer-to-issue", &config.defer_to_issue),
    ] {
        match value {
            Some((v, s)) => push(key, v.to_string(), s),
            None => push(key, "false".to_owned(), &Source::Default),
        }
    }
    rows
}

/// Runs `review config`.
pub async fn run(args: &ConfigArgs, config: &config::Config) -> Result<(), CliError> {
    let repository = match &args.pr {
        Some(pr) => {
            let conn = crate::github::connect(
                Some(pr),
                args.target.repo.as_deref(),
                &common::cwd()?,
                config,
            )
            .await?;
            let read = conn.read_pr().await?;
            config::repository(&conn.client, &read).await?
        }
        None => match config::repository_override() {
            Some(path) => config::repository_local(&path)?,
            None => config::RepositoryLayer::default(),
        },
    };
    let rows = rows(config, &repository);
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
                    format!("{}{state}", visible_line(&p.display().to_string()))
                },
            )
        };
        let repository_file = match (&repository.file, &args.pr) {
            (Some(source), _) => source.to_string(),
            (None, Some(_)) => format!("(none at the base commit: {})", config::REPOSITORY_FILE),
            (None, None) => format!(
                "{} at a pull request's base commit (pass --pr to read it)",
                config::REPOSITORY_FILE
            ),
        };
        let mut text = format!(
            "user file        {}\nrepository file  {repository_file}\n\n",
            file(config::user_path()),
        );
        // Values may come from the repository's file (the pull request's): shown on one line,
        // their control and bidirectional formatting characters escaped.
        let width = rows.iter().map(|r| r.key.len()).max().unwrap_or(0);
        let vwidth = rows
            .iter()
            .map(|r| visible_line(&r.value).chars().count())
            .max()
            .unwrap_or(0)
            .min(40);
        for r in &rows {
            text.push_str(&format!(
                "{:width$}  {:vwidth$}  {}\n",
                r.key,
                visible_line(&r.value),
                visible_line(&r.source)
            ));
        }
        text
    };
    if args.json {
        output::stdout(&text)
    } else {
        output::human(&text)
    }
    .map_err(CliError::Output)
}
