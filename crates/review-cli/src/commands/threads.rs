//! `review threads`: list a pull request's review threads.

use std::fmt::Write as _;

use clap::Args;
use review_core::text::visible_line;

use crate::commands::common::{self, AutomationArgs, PrArgs};
use crate::error::CliError;
use crate::output;
use crate::outputs::{Listed, Listing};

/// List the review threads of a pull request: who wrote them, where, and whether a person took
/// part
#[derive(Debug, Args)]
pub struct ThreadsArgs {
    /// The pull request: a number, a URL, or nothing for the open PR of the current branch
    #[arg(value_name = "PR")]
    pr: Option<String>,

    #[command(flatten)]
    target: PrArgs,

    #[command(flatten)]
    automation: AutomationArgs,

    /// Include resolved threads
    #[arg(long)]
    all: bool,

    /// Print JSON: `{"version": 1, "pr": N, "repo": "o/n", "threads": [...]}`
    #[arg(long)]
    json: bool,
}

/// Runs `review threads`.
pub async fn run(args: ThreadsArgs, config: &crate::config::Config) -> Result<(), CliError> {
    let automation = args.automation.settings(config)?;
    let common::Gated { pr, automation, .. } = common::load_gated(
        args.pr.as_deref(),
        args.target.repo.as_deref(),
        "[threads]",
        automation,
        config,
    )
    .await?;
    let signals = review_classify::analyze(&pr, &automation);
    let threads: Vec<Listed> = pr
        .threads
        .iter()
        .filter(|t| args.all || !t.is_resolved)
        .map(|t| {
            let sig = signals.threads.get(&t.id);
            let first = t.first_comment();
            Listed {
                id: t.id.0.clone(),
                location: t.location(),
                resolved: t.is_resolved,
                outdated: t.is_outdated,
                human: automation.left_to_a_person(t, &pr),
                all_comments_read: t.all_comments_read,
                author: first
                    .and_then(|c| c.author.as_ref())
                    .map(|a| a.login.clone()),
                family: sig.and_then(|s| s.family.clone()),
                title: sig.map_or_else(
                    || first.map(|c| first_line(&c.body)).unwrap_or_default(),
                    |s| s.title.clone(),
                ),
                comments: t.comments.len(),
            }
        })
        .collect();
    let human = !args.json;
    let text = if args.json {
        let listing = Listing {
            version: 1,
            pr: pr.number,
            repo: pr.repo.to_string(),
            threads,
        };
        let mut json = serde_json::to_string_pretty(&listing).map_err(|e| CliError::Other {
            message: format!("cannot encode the listing: {e}"),
            hint: None,
        })?;
        json.push('\n');
        json
    } else {
        render(&threads)
    };
    if human {
        output::human(&text)
    } else {
        output::stdout(&text)
    }
    .map_err(CliError::Output)
}

fn first_line(body: &str) -> String {
    let line = body
        .lines()
        .map(str::trim)
        .find(|l| !l.is_empty())
        .unwrap_or("");
    line.chars().take(100).collect()
}

/// The listing for people: one row per thread. Ids, paths, logins and titles come from the pull
/// request: each is shown on one line with its control and bidirectional formatting characters
/// escaped ([`visible_line`]), so a comment cannot redraw a row or add one.
fn render(threads: &[Listed]) -> String {
    let mut out = String::new();
    let id_w = threads
        .iter()
        .map(|t| visible_line(&t.id).len())
        .max()
        .unwrap_or(0);
    let loc_w = threads
        .iter()
        .map(|t| visible_line(&t.location).len())
        .max()
        .unwrap_or(0);
    for t in threads {
        let state = if t.resolved {
            "resolved"
        } else if t.outdated {
            "outdated"
        } else {
            "open"
        };
        let who = match (&t.family, &t.author) {
            (Some(f), _) if !t.human => f.clone(),
            (_, Some(a)) => format!("@{a}"),
            _ => "(unknown)".to_owned(),
        };
        let kind = if t.human { "human" } else { "bot" };
        let _ = writeln!(
            out,
            "{:id_w$}  {:loc_w$}  {state:8}  {kind:5}  {}  ({} comments) {}",
            visible_line(&t.id),
            visible_line(&t.location),
            visible_line(&who),
            t.comments,
            visible_line(&t.title)
        );
    }
    if threads.is_empty() {
        out.push_str("no unresolved review threads\n");
    }
    out
}
