//! The commands that write on a pull request's threads: `review resolve`, `reply`, `defer` and
//! `respond`, each as one call that returns what it did. The command line prints the lines;
//! `review mcp` returns them as its tools' results (nothing is printed on its thread).

use review_app::defer::Prepared;
use review_app::respond::Source;
use review_core::gate::AutomationSettings;
use review_core::model::ThreadId;
use review_core::ports::{HostError, ReviewHost};
use review_core::post;
use review_core::reply::Reply;
use review_core::text::visible;
use serde::Deserialize;

use crate::commands::common;
use crate::error::CliError;
use crate::output;
use crate::replying::{self, History, PostLock};

/// What a write did: its report, a line each (as the command prints them), and the error it
/// ends with once those are said (some of its writes failed), if any.
#[derive(Debug, Default)]
pub struct Acted {
    /// The lines, as printed (what quotes the pull request shown escaped: [`visible`]).
    pub lines: Vec<String>,
    /// What failed, after the lines.
    pub failed: Option<CliError>,
}

impl Acted {
    /// Prints the lines on stdout, then ends as the write did.
    pub fn print(self) -> Result<(), CliError> {
        let mut text = String::new();
        for line in &self.lines {
            text.push_str(line);
            text.push('\n');
        }
        output::stdout(&text).map_err(CliError::Output)?;
        self.failed.map_or(Ok(()), Err)
    }

    /// The lines of reply outcomes, as `respond` prints them.
    fn said(outcomes: &[review_app::respond::ReplyOutcome]) -> Self {
        let mut acted = Self::default();
        for outcome in outcomes {
            acted.say(&replying::render(outcome));
        }
        acted
    }

    /// One line for people: its control and bidirectional characters shown escaped.
    fn say(&mut self, line: &str) {
        self.lines.extend(visible(line).lines().map(str::to_owned));
    }

    /// One line of exact text (links, ids).
    fn exact(&mut self, line: String) {
        self.lines.push(line);
    }
}

/// Resolves the bot threads `ids` of the pull request `pr` and `repo` name, without a reply.
/// Refused for all of them if any has human participation or was not read whole; a thread
/// already resolved is said so and not resolved again.
pub async fn resolve(
    pr: Option<&str>,
    repo: Option<&str>,
    ids: Vec<ThreadId>,
    automation: AutomationSettings,
    config: &crate::config::Config,
) -> Result<Acted, CliError> {
    let common::Gated {
        conn,
        pr,
        vcs,
        automation,
    } = common::load_gated(pr, repo, "[resolve]", automation, config).await?;
    // Check every thread before touching any.
    for id in &ids {
        common::bot_thread(&pr, id, &automation)?;
    }
    let mut acted = Acted::default();
    // A thread already resolved is not resolved again: a second call changes nothing.
    let (done, ids): (Vec<ThreadId>, Vec<ThreadId>) = ids
        .into_iter()
        .partition(|id| pr.thread(id).is_some_and(|t| t.is_resolved));
    for id in &done {
        acted.exact(format!("already resolved {id}"));
    }
    if ids.is_empty() {
        return Ok(acted);
    }
    let host = conn.audited_host(review_core::gate::DEFAULT_AUTOMATED_HEADER, vcs.as_ref());
    let results = host.resolve_threads(&ids).await;
    let mut failed = Vec::new();
    for (id, result) in ids.iter().zip(results) {
        match result {
            Ok(()) => acted.exact(format!("resolved {id}")),
            Err(e) => failed.push(format!("{id}: {e}")),
        }
    }
    crate::statusing::refresh_if_resolved(&conn, &host, &automation, &pr, None, config).await;
    if !failed.is_empty() {
        acted.failed = Some(CliError::GitHub {
            message: format!(
                "{} of {} threads were not resolved:\n  {}",
                failed.len(),
                ids.len(),
                failed.join("\n  ")
            ),
            source: None,
            hint: Some(
                "run again with the threads that failed; resolving twice is harmless".to_owned(),
            ),
        });
    }
    Ok(acted)
}

/// Replies `text` in the bot thread `id`, once ever: the reply carries the automated header and
/// a key, and a thread that already has it gets its link back instead of a second post.
pub async fn reply(
    pr: Option<&str>,
    repo: Option<&str>,
    id: ThreadId,
    text: &str,
    automation: AutomationSettings,
    config: &crate::config::Config,
) -> Result<Acted, CliError> {
    if text.trim().is_empty() {
        return Err(CliError::Usage {
            message: "the reply is empty".to_owned(),
            hint: Some("pass the text with --body TEXT or --body-file FILE".to_owned()),
        });
    }
    let common::Gated {
        conn,
        pr,
        vcs,
        automation,
    } = common::load_gated(pr, repo, "[reply]", automation, config).await?;
    let thread = common::bot_thread(&pr, &id, &automation)?;
    let key = post::idempotency_key(&id, text);
    let mut acted = Acted::default();
    if let Some(existing) = thread
        .comments
        .iter()
        .find(|c| post::find_key(&c.body) == Some(key.as_str()))
    {
        output::narrate(&format!(
            "[reply] already posted in {id}; not posting it again"
        ));
        acted.exact(existing.url.clone());
        return Ok(acted);
    }
    let body = post::marked_body(&automation.header, text, &key);
    let host = conn.audited_host(&automation.header, vcs.as_ref());
    match host.reply(&id, &body).await {
        Ok(posted) => {
            acted.exact(posted.url);
            Ok(acted)
        }
        Err(HostError::NotFound(message)) => Err(CliError::NotFound {
            message,
            hint: None,
        }),
        Err(HostError::Refused(message)) => Err(CliError::Refused {
            message,
            hint: None,
        }),
        Err(
            e @ (HostError::Unavailable { .. }
            | HostError::Throttled { .. }
            | HostError::Unauthorized { .. }),
        ) => Err(CliError::GitHub {
            hint: Some(if review_github::adapter::may_have_been_posted(&e) {
                "run the same command again: it looks for this reply first and posts it only if \
                 it is not there"
                    .to_owned()
            } else {
                "run the same command again: a reply that already landed is not posted twice"
                    .to_owned()
            }),
            message: e.to_string(),
            source: None,
        }),
    }
}

/// Moves the bot thread `id`'s finding to a follow-up issue: the issue opened once ever (found
/// again by a key in its body), the thread answered with its link (`note` said first) and
/// resolved. The issue's link is the last line.
pub async fn defer(
    pr: Option<&str>,
    repo: Option<&str>,
    id: ThreadId,
    note: &str,
    automation: AutomationSettings,
    config: &crate::config::Config,
) -> Result<Acted, CliError> {
    let common::Gated {
        conn,
        pr,
        vcs,
        automation,
    } = common::load_gated(pr, repo, "[defer]", automation, config).await?;
    // One run posts on a pull request at a time; the PR is read again under the lock.
    let _lock = PostLock::take(vcs.as_ref(), &pr)?;
    let pr = conn.read_pr().await?;
    let issues = crate::deferring::GitHubIssues::new(&conn, pr.viewer.clone(), vcs.as_ref())?;
    let labels = crate::deferring::labels(config);
    let prepared =
        review_app::defer::defer_thread(&issues, &pr, &id, note, &labels, &automation).await?;
    let (issue, reply) = match prepared {
        Prepared::StaysDeferred { why } => {
            return Err(CliError::Refused {
                message: format!("{id}: {why}"),
                hint: Some(
                    "turn the repository's issues on, or track the finding elsewhere; the thread \
                     was left open"
                        .to_owned(),
                ),
            });
        }
        Prepared::Reply { issue, reply } => (issue, reply),
    };
    if let Some(found) = issue.issue() {
        let how = match issue {
            review_app::defer::Issue::Opened(_) => "opened",
            _ => "found (opened before)",
        };
        output::narrate(&format!(
            "[defer] follow-up issue {how}: #{} {}",
            found.number, found.url
        ));
    }
    let files = common::loop_files_in(vcs.as_ref(), &pr.repo, pr.number)?;
    let responded = replying::respond(
        &conn,
        &pr,
        Source::Given(vec![reply]),
        &automation,
        vcs.as_ref(),
        files.as_ref(),
        false,
        config,
    )
    .await?;
    let mut acted = Acted::said(&responded.outcomes);
    if responded.failed() + responded.uncertain() > 0 {
        acted.failed = Some(CliError::GitHub {
            message: format!("the reply or the resolve of {id} failed"),
            source: None,
            hint: Some(
                "run the same command again: the issue is found by its key and the reply is \
                 not posted twice"
                    .to_owned(),
            ),
        });
        return Ok(acted);
    }
    if let Some(found) = issue.issue() {
        acted.exact(found.url.clone());
    }
    Ok(acted)
}

/// One entry of a replies file: `{"threadId", "replyBody", "resolve"}`, or `{"reviewId",
/// "replyBody"}` for a review's out-of-diff findings.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct Entry {
    #[serde(default)]
    thread_id: String,
    #[serde(default)]
    review_id: Option<String>,
    reply_body: String,
    #[serde(default)]
    resolve: bool,
}

impl Entry {
    fn into_reply(self) -> Reply {
        match self.review_id {
            Some(review) => Reply::review(&review, self.reply_body),
            None => Reply::thread(&self.thread_id, self.reply_body, self.resolve),
        }
    }

    fn review(&self) -> Option<&str> {
        self.review_id
            .as_deref()
            .map(str::trim)
            .filter(|id| !id.is_empty())
    }
}

/// The replies `value` lists (a replies file's JSON; `what` names it in errors): each needs a
/// reply body and exactly one of a thread and a review, and a review's comment cannot be
/// resolved. Nothing is posted when any entry is wrong.
pub fn replies(value: serde_json::Value, what: &str) -> Result<Vec<Reply>, CliError> {
    let replies: Vec<Entry> = serde_json::from_value(value).map_err(|e| CliError::Usage {
        message: format!("{what} is not a replies file: {e}"),
        hint: Some(
            "a replies file is a JSON array of {\"threadId\", \"replyBody\", \"resolve\"}; nothing was posted"
                .to_owned(),
        ),
    })?;
    if let Some(bad) = replies.iter().find(|r| {
        r.reply_body.trim().is_empty()
            || (r.thread_id.trim().is_empty() == r.review().is_none())
            || (r.review().is_some() && r.resolve)
    }) {
        return Err(CliError::Usage {
            message: format!(
                "an entry of {what} needs a replyBody and exactly one of threadId and reviewId \
                 (a review's comment cannot be resolved) ({:?})",
                if bad.thread_id.is_empty() {
                    bad.review_id.clone().unwrap_or_default()
                } else {
                    bad.thread_id.clone()
                }
            ),
            hint: Some("nothing was posted".to_owned()),
        });
    }
    Ok(replies.into_iter().map(Entry::into_reply).collect())
}

/// Posts `replies` (or, with `None`, what the loop's decisions owe) on the pull request `pr` and
/// `repo` name, and resolves: each reply posted once, ever; threads a person took part in,
/// escalated ones and those not read whole get neither reply nor resolve. `defer_to_issue`
/// (from the decisions only) moves out-of-scope findings to follow-up issues.
pub async fn respond(
    pr: Option<&str>,
    repo: Option<&str>,
    replies: Option<Vec<Reply>>,
    defer_to_issue: bool,
    automation: AutomationSettings,
    config: &crate::config::Config,
) -> Result<Acted, CliError> {
    let common::Gated {
        conn,
        pr,
        vcs,
        automation,
    } = common::load_gated(pr, repo, "[respond]", automation, config).await?;
    if let Some(replies) = &replies {
        review_app::respond::check_citations(&History(vcs.as_ref()), &pr, replies)?;
    }
    // One run posts on a pull request at a time; the PR is read again under the lock.
    let _lock = PostLock::take(vcs.as_ref(), &pr)?;
    let pr = conn.read_pr().await?;
    // The loop's files, when the current directory is in a clone: the decisions respond keeps
    // up to date, and the watcher's reposts.
    let files = common::loop_files_in(vcs.as_ref(), &pr.repo, pr.number)?;
    let source = match replies {
        Some(replies) => Source::Given(replies),
        None if files.is_none() => {
            return Err(CliError::Usage {
                message: "--from-decisions needs the loop's files, kept in the git repository"
                    .to_owned(),
                hint: Some("run inside a clone of the pull request's repository".to_owned()),
            });
        }
        None => Source::FromDecisions,
    };
    // Never for given replies: the user wrote those words.
    let defer = source == Source::FromDecisions && crate::deferring::wanted(defer_to_issue, config);
    let responded = replying::respond(
        &conn,
        &pr,
        source,
        &automation,
        vcs.as_ref(),
        files.as_ref(),
        defer,
        config,
    )
    .await?;
    let mut acted = Acted::said(&responded.outcomes);
    if acted.lines.is_empty() {
        acted.exact("nothing to reply to".to_owned());
    }
    let uncertain = responded.uncertain();
    let failed = responded.failed() + uncertain;
    if failed > 0 {
        let maybe = if uncertain > 0 {
            format!(" ({uncertain} of them may have been posted: the next run looks first)")
        } else {
            String::new()
        };
        acted.failed = Some(CliError::GitHub {
            message: format!(
                "{failed} of the {} replies or resolves failed{maybe}",
                responded.asked
            ),
            source: None,
            hint: Some(
                "run the same command again: what was posted is not posted twice".to_owned(),
            ),
        });
    }
    Ok(acted)
}
