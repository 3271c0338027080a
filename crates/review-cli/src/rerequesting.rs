//! `review rereview`'s adapters: `review_app::rereview` wired to GitHub (the audited host, the
//! reply ledger under the git common directory), its report as text and as JSON.

use review_app::rereview::{Action, RereviewRequest, Rereviewed};
use review_core::gate::AutomationSettings;
use review_core::model::PullRequest;
use serde::{Deserialize, Serialize};

use crate::error::CliError;
use crate::git::GitVcs;
use crate::github::Connection;
use crate::ledger::LedgerFile;

/// Runs the use-case on `pr` (read under the posting lock) through the audited host and the
/// reply ledger.
pub async fn rereview(
    conn: &Connection,
    pr: &PullRequest,
    automation: &AutomationSettings,
    vcs: Option<&GitVcs>,
    request: &RereviewRequest,
) -> Result<Rereviewed, CliError> {
    let ledger = LedgerFile::new(
        crate::commands::common::state_dir(vcs)?.as_ref(),
        &pr.repo,
        pr.number,
    )?;
    let host = conn.audited_host(&automation.header, vcs);
    let requests = RestRequests(conn.probe()?);
    Ok(review_app::rereview::rereview(&host, &ledger, &requests, pr, automation, request).await?)
}

/// Who a review is requested from, read through the REST API (`requested_reviewers`), where
/// GitHub lists a bot a request reached.
struct RestRequests(review_github::probe::Probe);

impl review_app::rereview::ReviewRequests for RestRequests {
    type Error = review_github::probe::ProbeError;

    async fn requested_reviewers(&self, pr: &PullRequest) -> Result<Vec<String>, Self::Error> {
        self.0.requested_reviewers(&pr.repo, pr.number).await
    }
}

/// The run's error when an ask failed (after the report said which and why): exit 4, as for
/// any GitHub failure, so a script does not take a failed ask for one made.
pub fn failures(done: &Rereviewed) -> Result<(), CliError> {
    let failed: Vec<&str> = done
        .bots
        .iter()
        .filter(|b| {
            matches!(
                b.action,
                Action::Failed { .. } | Action::NotConfirmed { .. }
            )
        })
        .map(|b| b.bot.as_str())
        .collect();
    if failed.is_empty() {
        return Ok(());
    }
    Err(CliError::GitHub {
        message: format!("could not ask {}: see above", failed.join(", ")),
        source: None,
        hint: Some(
            "fix what the report names, then run again; asks already made are recorded and not \
             sent twice"
                .to_owned(),
        ),
    })
}

/// Checks a `--expect-bot` value: a plain login (clap's value parser).
pub fn bot_login(text: &str) -> Result<String, String> {
    let trimmed = text.trim();
    if review_core::ports::is_plain_login(trimmed) {
        Ok(trimmed.to_owned())
    } else {
        Err(format!(
            "{text:?} is not a bot's login (letters, digits and hyphens, `[bot]` allowed)"
        ))
    }
}

/// The JSON `review rereview --json` prints.
#[derive(Debug, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct RereviewReport {
    /// The version of this format.
    pub schema_version: u32,
    /// The pull request, `owner/name#number`.
    pub pr: String,
    /// The head commit the bots were asked about.
    pub head: String,
    /// Whether nothing was sent (`--dry-run`).
    pub dry_run: bool,
    /// One entry per expected bot.
    pub bots: Vec<BotEntry>,
}

/// The version of [`RereviewReport`]'s format.
pub const REREVIEW_SCHEMA_VERSION: u32 = 2;

/// What was done for one bot.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Did {
    /// Its command was posted as a comment (in a dry run: would be).
    AskedByComment,
    /// A review was requested from it, and GitHub lists it among the requested reviewers (in a
    /// dry run: would be requested).
    AskedByReviewRequest,
    /// GitHub took the review request but does not list the bot among the requested reviewers
    /// (Copilot code review not enabled, most likely): not recorded, asked again next run.
    NotConfirmed,
    /// Asked for this head already: not asked again.
    AlreadyAsked,
    /// Its quota is spent.
    SkippedQuotaSpent,
    /// Its reviews are paused.
    SkippedPaused,
    /// It reviewed the head.
    SkippedReviewedHead,
    /// Its review is under way.
    SkippedReviewing,
    /// It has no documented re-review command.
    SkippedNoCommand,
    /// Its command is not documented by a source: shown, not sent.
    SkippedUnverified,
    /// The host refused or failed the ask.
    Failed,
    /// Not tried: the host refuses every request now.
    NotTried,
}

/// One bot's line of the report.
#[derive(Debug, Clone, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct BotEntry {
    /// The bot, as its key (`coderabbit`, `copilot`, or a login).
    pub bot: String,
    /// What was done.
    pub action: Did,
    /// The command posted or shown.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub command: Option<String>,
    /// The login a review was requested from.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub login: Option<String>,
    /// A link to the comment posted.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub url: Option<String>,
    /// When a spent quota ends, RFC 3339, when the bot said.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub until: Option<String>,
    /// Why the ask failed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
    /// For a failed comment: it may have been posted all the same (the next run looks first).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub uncertain: bool,
}

impl BotEntry {
    fn of(bot: &str, action: &Action) -> Self {
        let mut e = Self {
            bot: bot.to_owned(),
            action: Did::AlreadyAsked,
            command: None,
            login: None,
            url: None,
            until: None,
            message: None,
            uncertain: false,
        };
        e.action = match action {
            Action::ByComment { command, url } => {
                e.command = Some(command.clone());
                e.url.clone_from(url);
                Did::AskedByComment
            }
            Action::ByReviewRequest { login } => {
                e.login = Some(login.clone());
                Did::AskedByReviewRequest
            }
            Action::NotConfirmed { login, reason } => {
                e.login = Some(login.clone());
                e.message = Some(reason.clone());
                Did::NotConfirmed
            }
            Action::AlreadyAsked => Did::AlreadyAsked,
            Action::QuotaSpent { until } => {
                e.until.clone_from(until);
                Did::SkippedQuotaSpent
            }
            Action::Paused => Did::SkippedPaused,
            Action::ReviewedHead => Did::SkippedReviewedHead,
            Action::Reviewing => Did::SkippedReviewing,
            Action::NoCommand => Did::SkippedNoCommand,
            Action::Unverified { command } => {
                e.command = Some(command.clone());
                Did::SkippedUnverified
            }
            Action::Failed { message, uncertain } => {
                e.message = Some(message.clone());
                e.uncertain = *uncertain;
                Did::Failed
            }
            Action::NotTried => Did::NotTried,
        };
        e
    }
}

/// The report of `done` on `pr` (`owner/name#number`).
pub fn report(pr: &str, done: &Rereviewed) -> RereviewReport {
    RereviewReport {
        schema_version: REREVIEW_SCHEMA_VERSION,
        pr: pr.to_owned(),
        head: done.head.clone(),
        dry_run: done.dry_run,
        bots: done
            .bots
            .iter()
            .map(|b| BotEntry::of(&b.bot, &b.action))
            .collect(),
    }
}

/// One line per bot: what was done.
pub fn render(done: &Rereviewed) -> String {
    if done.bots.is_empty() {
        return "no expected bots: name them with --expect-bot, or `expect-bots` in your config\n"
            .to_owned();
    }
    let width = done.bots.iter().map(|b| b.bot.len()).max().unwrap_or(0);
    let would = if done.dry_run { "would ask" } else { "asked" };
    let mut out = String::new();
    for b in &done.bots {
        let what = match &b.action {
            Action::ByComment { command, url } => match url {
                Some(url) if !url.is_empty() => format!("{would} by comment `{command}` ({url})"),
                _ => format!("{would} by comment `{command}`"),
            },
            Action::ByReviewRequest { login } => format!("{would} by review request ({login})"),
            Action::NotConfirmed { login, reason } => {
                format!("not confirmed: requested a review from {login}; {reason}")
            }
            Action::AlreadyAsked => "already asked for this head".to_owned(),
            Action::QuotaSpent { until: Some(t) } => format!("skipped: quota spent until {t}"),
            Action::QuotaSpent { until: None } => "skipped: quota spent".to_owned(),
            Action::Paused => "skipped: paused".to_owned(),
            Action::ReviewedHead => "skipped: reviewed the head".to_owned(),
            Action::Reviewing => "skipped: reviewing".to_owned(),
            Action::NoCommand => "skipped: no re-review command".to_owned(),
            Action::Unverified { command } => format!(
                "skipped: `{command}` is not documented by a source; post it yourself, or pass \
                 --send-unverified"
            ),
            Action::Failed {
                message,
                uncertain: true,
            } => format!(
                "failed: {message} (it may have been posted; the next run looks for it first)"
            ),
            Action::Failed { message, .. } => format!("failed: {message}"),
            Action::NotTried => "not tried: the host refuses every request now".to_owned(),
        };
        out.push_str(&format!("{:<width$}  {what}\n", b.bot));
    }
    out
}
