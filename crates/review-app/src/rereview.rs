//! `rereview`: after a push, ask each expected review bot that has not reviewed the head to
//! review again, once per head.
//!
//! For each expected bot (the caller's list: `--expect-bot` and the user's own configuration,
//! never the repository's file) its standing on the pull request decides first
//! ([`review_classify::standing`]): a bot that reviewed the head, is reviewing, is out of quota
//! or is paused is left alone. Then its channel ([`review_classify::channels`]): a bot without
//! a documented way to be asked is left alone; Copilot is asked with a review request
//! ([`ReviewHost::request_review`]), confirmed by reading who a review is requested from
//! afterwards ([`ReviewRequests`]: GitHub accepts a request for a Copilot that is not enabled
//! and then drops it); the others with their command posted as a comment on the
//! pull request ([`ReviewHost::comment`]), the command first when it must open the comment
//! ([`post::command_body`]), the tool's header and the hidden key after it. A command we only
//! believe works (no source documents it) is shown, not sent, unless the caller says so.
//!
//! Each ask is made at most once per bot and head: its idempotency key is made of the bot, the
//! head and the command; the reply ledger ([`LedgerStore`]) records it, and a comment by the
//! viewer carrying the key counts as asked even when the ledger lost it (a run that stopped
//! between the post and the record). Calling this is the consent: it never runs on its own.
//!
//! The bots' names come from the user's command line and configuration; anything but a plain
//! login is refused before anything is read or sent:
//!
//! ```
//! use review_app::rereview::check_bots;
//!
//! assert!(check_bots(&["coderabbitai[bot]".to_owned(), "gemini-code-assist".to_owned()]).is_ok());
//! assert!(check_bots(&["x\n/approve".to_owned()]).is_err());
//! ```

use review_classify::Family;
use review_classify::channels::{self, RereviewKind};
use review_core::gate::AutomationSettings;
use review_core::model::{PullRequest, ThreadId};
use review_core::ports::{ReviewHost, is_plain_login};
use review_core::post;
use review_core::reply::{Ledger, Posted};
use review_core::status::BotState;

use crate::error::{AppError, ErrorKind};
use crate::respond::LedgerStore;

/// The login Copilot code review is asked for a review by (GraphQL names its reviews so).
pub const COPILOT_REVIEWER: &str = "copilot-pull-request-reviewer";

/// Who a pull request's review is requested from now: how a review request is confirmed.
pub trait ReviewRequests {
    /// The port's own error.
    type Error: std::error::Error + Send + Sync + 'static;

    /// The logins (users and bots, as GitHub's REST API spells them: Copilot is `Copilot`) a
    /// review of `pr` is requested from.
    fn requested_reviewers(
        &self,
        pr: &PullRequest,
    ) -> impl Future<Output = Result<Vec<String>, Self::Error>>;
}

/// What to ask, and of whom.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RereviewRequest {
    /// The expected bots, as logins or keys (`--expect-bot`, the user's `expect-bots`).
    pub expected_bots: Vec<String>,
    /// Also send the commands no source documents (otherwise they are shown, not sent).
    pub send_unverified: bool,
    /// Decide, and send nothing.
    pub dry_run: bool,
    /// When it is asked, in seconds since the Unix epoch: a quota notice whose wait has run out
    /// by then no longer holds a bot back. `None`: every quota notice counts.
    pub now: Option<i64>,
}

/// What was done for one bot.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Action {
    /// Its command was posted as a comment (with `dry_run`: would be).
    ByComment {
        /// The command.
        command: String,
        /// A link to the comment (`None` in a dry run).
        url: Option<String>,
    },
    /// A review was requested from it, and GitHub lists it among the requested reviewers
    /// (with `dry_run`: would be requested).
    ByReviewRequest {
        /// The login the review was requested from.
        login: String,
    },
    /// GitHub took the review request, but does not list the bot among the requested reviewers
    /// afterwards (or could not be asked): the bot is not known to be coming. Not recorded, so
    /// the next run asks again (asking again is harmless).
    NotConfirmed {
        /// The login the review was requested from.
        login: String,
        /// What was seen instead.
        reason: String,
    },
    /// It was asked for this head already: not asked again.
    AlreadyAsked,
    /// Its quota is spent (until the time, when its notice said).
    QuotaSpent {
        /// When it says it can review again, RFC 3339.
        until: Option<String>,
    },
    /// Its reviews are paused on this pull request.
    Paused,
    /// It reviewed the head.
    ReviewedHead,
    /// Its review is under way.
    Reviewing,
    /// It has no documented way to be asked.
    NoCommand,
    /// Its command is not documented by a source: shown, not sent.
    Unverified {
        /// The command, for the user to post if they wish.
        command: String,
    },
    /// The host refused or failed the ask; `uncertain` when it may have landed (the next run
    /// looks for its key first).
    Failed {
        /// The host's error.
        message: String,
        /// Whether the comment may have been posted all the same.
        uncertain: bool,
    },
    /// Not tried: the host refuses every request now (a spent rate limit, a refused token).
    NotTried,
}

/// One bot's outcome.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BotRereview {
    /// The bot, as its key (`coderabbit`, `copilot`, or a login).
    pub bot: String,
    /// What was done.
    pub action: Action,
}

/// The outcome of [`rereview`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Rereviewed {
    /// The head the bots were asked about.
    pub head: String,
    /// Whether nothing was sent.
    pub dry_run: bool,
    /// One per expected bot, sorted by key.
    pub bots: Vec<BotRereview>,
}

impl Rereviewed {
    /// Whether an ask failed.
    pub fn failed(&self) -> bool {
        self.bots.iter().any(|b| {
            matches!(
                b.action,
                Action::Failed { .. } | Action::NotTried | Action::NotConfirmed { .. }
            )
        })
    }
}

/// Checks the expected bots' names: each a plain GitHub login (or a bot's key), nothing a
/// comment or a request could be bent by.
///
/// # Errors
///
/// [`ErrorKind::Invalid`] naming the first that is not.
pub fn check_bots(bots: &[String]) -> Result<(), AppError> {
    match bots.iter().find(|b| !is_plain_login(b.trim())) {
        Some(bad) => Err(AppError::new(
            ErrorKind::Invalid,
            format!("{bad:?} is not a bot's login"),
            Some("name a bot by its GitHub login (letters, digits, hyphens; `[bot]` allowed)"),
        )),
        None => Ok(()),
    }
}

/// The family a bot key names, if a named tool's.
fn family_of(key: &str) -> Option<Family> {
    Family::ALL
        .into_iter()
        .find(|f| f.is_named_tool() && f.as_str() == key)
}

/// Whether another bot whose re-review command is `command` was asked for `head` by a comment
/// the ledger records or the viewer posted.
fn asked_by_the_same_comment(
    book: &Ledger,
    pr: &PullRequest,
    automation: &AutomationSettings,
    bot: &str,
    head: &str,
    command: &str,
) -> bool {
    Family::ALL
        .into_iter()
        .filter(|f| f.is_named_tool() && f.as_str() != bot)
        .filter(|f| {
            channels::channel(*f).rereview.is_some_and(
                |r| matches!(r.command, RereviewKind::Comment { text, .. } if text == command),
            )
        })
        .any(|other| {
            let target = format!("rereview:{}@{head}", other.as_str());
            let key = post::idempotency_key(&ThreadId(target.clone()), command);
            book.posted.contains_key(&entry(&target, &key))
                || pr.comments.iter().any(|c| {
                    post::find_key(&c.body) == Some(key.as_str())
                        && c.author
                            .as_ref()
                            .is_some_and(|a| automation.is_own_post(Some(&c.id), a, &c.body))
                })
        })
}

/// What asking `bot` means, once its standing allows it.
enum Ask {
    Comment { command: &'static str, first: bool },
    ReviewRequest,
}

/// The ledger's entry of an ask: `rereview:BOT@HEAD:KEY`.
fn entry(target: &str, key: &str) -> String {
    format!("{target}:{key}")
}

/// Asks every expected bot of `request` that has not reviewed `pr`'s head to review it, once
/// per head, through `host`, recording each ask in `ledger`; a review request counts as made
/// once `requests` lists the bot. `automation` names the viewer
/// (whose comments carrying an ask's key count as asked) and the header the posts carry.
///
/// # Errors
///
/// [`ErrorKind::Invalid`] for a bot name that is not a login ([`check_bots`]);
/// [`ErrorKind::Port`] when the ledger cannot be read or written (a failed ask is an outcome).
pub async fn rereview<H, S, Q>(
    host: &H,
    ledger: &S,
    requests: &Q,
    pr: &PullRequest,
    automation: &AutomationSettings,
    request: &RereviewRequest,
) -> Result<Rereviewed, AppError>
where
    H: ReviewHost + ?Sized,
    S: LedgerStore,
    Q: ReviewRequests,
{
    check_bots(&request.expected_bots)?;
    let head = pr.head_sha.0.to_ascii_lowercase();
    let mut keys: Vec<String> = request
        .expected_bots
        .iter()
        .map(|b| review_classify::bot_key_of_login(b))
        .collect();
    keys.sort();
    keys.dedup();
    let standings = review_classify::standing::standings_at(pr, automation, &keys, request.now);
    let mut book = ledger.load_ledger().map_err(AppError::port)?;
    let mut out = Rereviewed {
        head: head.clone(),
        dry_run: request.dry_run,
        bots: Vec::new(),
    };
    let mut stopped = false;
    for standing in standings.into_iter().filter(|s| s.expected) {
        let bot = standing.bot;
        let action = match standing.state {
            BotState::ReviewedHead => Action::ReviewedHead,
            BotState::Reviewing => Action::Reviewing,
            BotState::Paused => Action::Paused,
            BotState::QuotaSpent { until } => Action::QuotaSpent { until },
            BotState::ReviewedEarlier { .. } | BotState::NeverSeen => {
                let channel = family_of(&bot).map(channels::channel);
                match channel.and_then(|c| c.rereview) {
                    None => Action::NoCommand,
                    Some(r) => {
                        let ask = match r.command {
                            RereviewKind::Comment {
                                text,
                                must_start_comment,
                            } => Ask::Comment {
                                command: text,
                                first: must_start_comment,
                            },
                            RereviewKind::ReviewRequest => Ask::ReviewRequest,
                        };
                        match ask {
                            Ask::Comment { command, .. }
                                if !r.verified && !request.send_unverified =>
                            {
                                Action::Unverified {
                                    command: command.to_owned(),
                                }
                            }
                            _ if stopped => Action::NotTried,
                            ask => {
                                let (action, stops) = ask_once(
                                    host, ledger, requests, &mut book, pr, automation, request,
                                    &bot, &head, ask,
                                )
                                .await?;
                                stopped |= stops;
                                action
                            }
                        }
                    }
                }
            }
        };
        out.bots.push(BotRereview { bot, action });
    }
    Ok(out)
}

/// Asks `bot` once for `head`: unless the ledger or the viewer's comments show it asked. The
/// flag says the host refuses every later request.
#[allow(
    clippy::too_many_arguments,
    reason = "one call site, each argument distinct"
)]
async fn ask_once<H, S, Q>(
    host: &H,
    ledger: &S,
    requests: &Q,
    book: &mut Ledger,
    pr: &PullRequest,
    automation: &AutomationSettings,
    request: &RereviewRequest,
    bot: &str,
    head: &str,
    ask: Ask,
) -> Result<(Action, bool), AppError>
where
    H: ReviewHost + ?Sized,
    S: LedgerStore,
    Q: ReviewRequests,
{
    let target = format!("rereview:{bot}@{head}");
    let what = match &ask {
        Ask::Comment { command, .. } => (*command).to_owned(),
        Ask::ReviewRequest => format!("review request: {COPILOT_REVIEWER}"),
    };
    let key = post::idempotency_key(&ThreadId(target.clone()), &what);
    let entry = entry(&target, &key);
    if book.posted.contains_key(&entry) {
        return Ok((Action::AlreadyAsked, false));
    }
    // Bots that answer the same command (Qodo and Bito both read `/review`): one comment asks
    // them all, so a comment posted for another of them on this head asked this one too.
    if let Ask::Comment { command, .. } = &ask
        && asked_by_the_same_comment(book, pr, automation, bot, head, command)
    {
        return Ok((Action::AlreadyAsked, false));
    }
    // The viewer's own comment with the key: posted by a run that stopped before recording it.
    let landed = pr.comments.iter().find(|c| {
        post::find_key(&c.body) == Some(key.as_str())
            && c.author
                .as_ref()
                .is_some_and(|a| automation.is_own_post(Some(&c.id), a, &c.body))
    });
    if let Some(c) = landed {
        if !request.dry_run {
            book.posted.insert(
                entry,
                Posted {
                    thread: target,
                    comment: c.id.0.clone(),
                    url: c.url.clone(),
                },
            );
            ledger.save_ledger(book).map_err(AppError::port)?;
        }
        return Ok((Action::AlreadyAsked, false));
    }
    let short = head.get(..7).unwrap_or(head);
    match ask {
        Ask::ReviewRequest => {
            let action = Action::ByReviewRequest {
                login: COPILOT_REVIEWER.to_owned(),
            };
            if request.dry_run {
                return Ok((action, false));
            }
            match host.request_review(&pr.id, COPILOT_REVIEWER).await {
                Ok(()) => {
                    // GitHub answers a request for a Copilot that will never come as it answers
                    // one that will: only the list of requested reviewers tells them apart.
                    let listed = match requests.requested_reviewers(pr).await {
                        Ok(logins) => logins
                            .iter()
                            .any(|l| review_classify::bot_key_of_login(l) == bot),
                        Err(e) => {
                            return Ok((
                                Action::NotConfirmed {
                                    login: COPILOT_REVIEWER.to_owned(),
                                    reason: format!(
                                        "GitHub took the request, but who a review is requested \
                                         from could not be read: {e}"
                                    ),
                                },
                                false,
                            ));
                        }
                    };
                    if !listed {
                        return Ok((
                            Action::NotConfirmed {
                                login: COPILOT_REVIEWER.to_owned(),
                                reason: "GitHub took the request, but does not list Copilot among \
                                         the requested reviewers: Copilot code review is likely \
                                         not enabled for this repository or account"
                                    .to_owned(),
                            },
                            false,
                        ));
                    }
                    book.posted.insert(
                        entry,
                        Posted {
                            thread: target,
                            comment: String::new(),
                            url: String::new(),
                        },
                    );
                    ledger.save_ledger(book).map_err(AppError::port)?;
                    Ok((action, false))
                }
                Err(e) => Ok(failed(&e)),
            }
        }
        Ask::Comment { command, first } => {
            if request.dry_run {
                return Ok((
                    Action::ByComment {
                        command: command.to_owned(),
                        url: None,
                    },
                    false,
                ));
            }
            let note = format!("asks for a review of `{short}`, once for this commit.");
            let body = if first {
                post::command_body(command, &automation.header, &note, &key)
            } else {
                post::marked_body(&automation.header, &format!("{command}\n\n{note}"), &key)
            };
            match host.comment(&pr.id, &body).await {
                Ok(posted) => {
                    book.posted.insert(
                        entry,
                        Posted {
                            thread: target,
                            comment: posted.id.0.clone(),
                            url: posted.url.clone(),
                        },
                    );
                    ledger.save_ledger(book).map_err(AppError::port)?;
                    Ok((
                        Action::ByComment {
                            command: command.to_owned(),
                            url: Some(posted.url),
                        },
                        false,
                    ))
                }
                Err(e) => Ok(failed(&e)),
            }
        }
    }
}

/// A failed ask, and whether the host refuses every later request.
fn failed(e: &review_core::ports::HostError) -> (Action, bool) {
    let uncertain = e.may_have_been_posted();
    let action = Action::Failed {
        message: e.to_string(),
        uncertain,
    };
    (action, !uncertain && e.stops_all_requests())
}
