//! Each review bot's standing on a pull request, as its own channel shows it: a review of the
//! head, a review of an earlier head, or a notice that it is reviewing, out of quota or paused.
//!
//! A notice counts only where the family's reader reads the body as a status notice (not a
//! finding), or for Copilot, whose quota notice is a review body: a finding about rate
//! limiting is never read as the bot's own rate limit.

use std::collections::BTreeMap;

use review_core::gate::AutomationSettings;
use review_core::model::{Author, PullRequest, ReviewState};
use review_core::post;
use review_core::signals::NonFinding;
use review_core::status::{BotStanding, BotState};
use review_core::watch::caught_up;

use crate::markup::contains_ci;
use crate::observe::bot_key;
use crate::{Family, identify, read_finding};

/// What a notice says of the bot that posted it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Notice {
    /// A review is under way.
    Reviewing,
    /// Its quota or rate limit is spent; `wait` seconds when the notice says how long.
    QuotaSpent {
        /// How long the notice says to wait, in seconds.
        wait: Option<i64>,
    },
    /// Its reviews are paused on this pull request.
    Paused,
}

/// Words that mark each kind of notice, matched case-insensitively.
const REVIEWING: &[&str] = &[
    "review in progress by coderabbit",
    "currently processing new changes in this pr",
    "review in progress",
    "is reviewing your pull request",
    "reviewing your pull request",
];
const QUOTA: &[&str] = &[
    "rate limit exceeded",
    "review limit reached",
    "usage limit",
    "quota",
    "premium request",
    "out of credits",
    "credits have run out",
];
const PAUSED: &[&str] = &["reviews paused", "review paused", "reviews are paused"];

/// What `body`, a comment by `family`, says of the bot, if it is a status notice.
///
/// ```
/// use review_classify::{Family, standing::{notice, Notice}};
///
/// let body = "> [!WARNING]\n> ## Rate limit exceeded\n>\n> Please wait **12 minutes and 30 seconds** before requesting another review.";
/// assert_eq!(notice(Family::CodeRabbit, body), Some(Notice::QuotaSpent { wait: Some(750) }));
/// // A finding about rate limits is not a notice.
/// assert_eq!(notice(Family::CodeRabbit, "_⚠️ Potential issue_ | _🟠 Major_\n\n**Rate limit exceeded is not handled.**"), None);
/// ```
pub fn notice(family: Family, body: &str) -> Option<Notice> {
    let is_notice = read_finding(family, body, "").non_finding == Some(NonFinding::Notice);
    // Copilot's quota notice is a review body of its own; its overview of a pull request
    // about rate limits is not one.
    let copilot_quota = family == Family::Copilot
        && !contains_ci(body, "pull request overview")
        && (QUOTA.iter().any(|w| contains_ci(body, w)) || contains_ci(body, "rate limit"));
    if !is_notice && !copilot_quota {
        return None;
    }
    if PAUSED.iter().any(|w| contains_ci(body, w)) {
        return Some(Notice::Paused);
    }
    if copilot_quota || QUOTA.iter().any(|w| contains_ci(body, w)) {
        return Some(Notice::QuotaSpent {
            wait: wait_seconds(body),
        });
    }
    if REVIEWING.iter().any(|w| contains_ci(body, w)) {
        return Some(Notice::Reviewing);
    }
    None
}

/// The wait a notice names ("wait 17 minutes and 3 seconds", "try again in 2 hours"), in
/// seconds.
fn wait_seconds(body: &str) -> Option<i64> {
    let lower = body.to_lowercase();
    let at = ["wait", "again in", "resets in", "reset in"]
        .iter()
        .filter_map(|w| lower.find(w).map(|i| i + w.len()))
        .min()?;
    let words: Vec<String> = lower[at..]
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .take(10)
        .map(str::to_owned)
        .collect();
    let mut total = 0i64;
    let mut found = false;
    for pair in words.windows(2) {
        let Ok(n) = pair[0].parse::<i64>() else {
            continue;
        };
        let unit = match pair[1].trim_end_matches('s') {
            "second" | "sec" => 1,
            "minute" | "min" => 60,
            "hour" | "hr" | "h" => 3600,
            "day" => 86_400,
            _ => continue,
        };
        total = total.saturating_add(n.saturating_mul(unit));
        found = true;
    }
    found.then_some(total)
}

/// The standing of every bot seen on `pr`, and of each `expected` bot (keys as
/// `--expect-bot` names them), sorted by key.
///
/// A bot reviewed the head when one of its reviews is attached to the head or names it (a
/// summary's "reviewed up to `sha`"); else its latest notice decides (reviewing, out of quota
/// until the notice's time plus its wait, paused); else it reviewed an earlier head, or was
/// never seen. The tool's own posts are nobody's reviews.
pub fn standings(
    pr: &PullRequest,
    automation: &AutomationSettings,
    expected: &[String],
) -> Vec<BotStanding> {
    standings_at(pr, automation, expected, None)
}

/// [`standings`] at `now` (seconds since the Unix epoch): a quota notice whose wait has run out
/// by then no longer counts (the bot may review again), so its bot stands as it would without
/// the notice. With `None`, every quota notice counts.
pub fn standings_at(
    pr: &PullRequest,
    automation: &AutomationSettings,
    expected: &[String],
    now: Option<i64>,
) -> Vec<BotStanding> {
    #[derive(Default)]
    struct Seen {
        head: bool,
        earlier: Option<String>,
        seen: bool,
        // (when, notice)
        latest_notice: Option<(String, Notice)>,
        latest_word: String,
    }
    let head = pr.head_sha.0.to_ascii_lowercase();
    let pr_author = pr.author.as_ref();
    let mut bots: BTreeMap<String, Seen> = BTreeMap::new();
    let mut see =
        |author: Option<&Author>, body: &str, when: &str, commit: Option<&str>, is_review: bool| {
            if post::find_key(body).is_some() {
                return;
            }
            let Some(family) = identify(author, body, pr_author, automation) else {
                return;
            };
            let entry = bots.entry(bot_key(family, author)).or_default();
            entry.seen = true;
            let marker = crate::reviewed_commit(body);
            let reviewed = marker
                .iter()
                .map(String::as_str)
                .chain(commit.filter(|_| is_review))
                .find(|c| caught_up(c, &head));
            if reviewed.is_some() {
                entry.head = true;
            } else if let Some(c) = marker.as_deref().or(commit.filter(|_| is_review)) {
                entry.earlier = Some(c.to_owned());
            }
            if when >= entry.latest_word.as_str() {
                entry.latest_word = when.to_owned();
                entry.latest_notice = notice(family, body).map(|n| (when.to_owned(), n));
            }
        };
    for r in pr
        .reviews
        .iter()
        .filter(|r| r.state != ReviewState::Pending)
    {
        see(
            r.author.as_ref(),
            &r.body,
            r.submitted_at.as_deref().unwrap_or(""),
            r.commit.as_ref().map(|c| c.0.as_str()),
            true,
        );
    }
    for c in &pr.comments {
        see(c.author.as_ref(), &c.body, &c.created_at, None, false);
    }
    for key in expected {
        bots.entry(key.to_ascii_lowercase()).or_default();
    }
    bots.into_iter()
        .map(|(bot, seen)| {
            let until = |when: &str, wait: Option<i64>| {
                let wait = wait?;
                review_core::time::parse_rfc3339(when).map(|t| t.saturating_add(wait))
            };
            let notice = seen.latest_notice.filter(|(when, n)| match (n, now) {
                (Notice::QuotaSpent { wait }, Some(now)) => {
                    until(when, *wait).is_none_or(|t| t > now)
                }
                _ => true,
            });
            let state = if seen.head {
                BotState::ReviewedHead
            } else if let Some((when, n)) = notice {
                match n {
                    Notice::Reviewing => BotState::Reviewing,
                    Notice::Paused => BotState::Paused,
                    Notice::QuotaSpent { wait } => BotState::QuotaSpent {
                        until: until(&when, wait).map(review_core::time::format_utc),
                    },
                }
            } else if seen.earlier.is_some() || seen.seen {
                BotState::ReviewedEarlier {
                    commit: seen.earlier,
                }
            } else {
                BotState::NeverSeen
            };
            BotStanding {
                expected: expected.iter().any(|e| e.eq_ignore_ascii_case(&bot)),
                bot,
                state,
            }
        })
        .collect()
}

/// The bot a check on the head stands for, when its name names one as a word ("CodeRabbit",
/// "Cursor Bugbot", "Greptile Review", "SonarCloud Code Analysis"), by key.
pub fn bot_of_check(name: &str) -> Option<&'static str> {
    let lower = name.to_lowercase();
    let words: Vec<&str> = lower
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .collect();
    let alias = |w: &str| match w {
        "bugbot" => Some("cursor"),
        "sonarcloud" => Some("sonarqube"),
        _ => None,
    };
    words.iter().find_map(|w| {
        Family::ALL
            .iter()
            .filter(|f| f.is_named_tool())
            .map(|f| f.as_str())
            .find(|key| key == w)
            .or_else(|| alias(w))
    })
}

/// Adds what the head's checks say of each bot: some bots post only a status check or a check
/// run when they review (no review, no summary naming the commit). A bot whose check on the
/// head finished is [`BotState::ReviewedHead`]; one whose check runs is
/// [`BotState::Reviewing`], unless its own words said more. Checks are the head's, so they
/// speak of the head.
pub fn with_checks(
    standings: &mut Vec<BotStanding>,
    checks: &review_core::watch::Checks,
    expected: &[String],
) {
    let mut say = |name: &str, state: BotState| {
        let Some(key) = bot_of_check(name) else {
            return;
        };
        match standings.iter_mut().find(|b| b.bot == key) {
            Some(b) => {
                let weaker = match (&b.state, &state) {
                    (BotState::ReviewedHead, _) => false,
                    (_, BotState::ReviewedHead) => true,
                    (BotState::NeverSeen | BotState::ReviewedEarlier { .. }, _) => true,
                    _ => false,
                };
                if weaker {
                    b.state = state;
                }
            }
            None => standings.push(BotStanding {
                bot: key.to_owned(),
                expected: expected.iter().any(|e| e.eq_ignore_ascii_case(key)),
                state,
            }),
        }
    };
    for name in &checks.passed {
        say(name, BotState::ReviewedHead);
    }
    for name in &checks.pending {
        say(name, BotState::Reviewing);
    }
    standings.sort_by(|a, b| a.bot.cmp(&b.bot));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_bots_check_on_the_head_says_it_reviewed_or_is_reviewing() {
        assert_eq!(bot_of_check("CodeRabbit"), Some("coderabbit"));
        assert_eq!(bot_of_check("Cursor Bugbot"), Some("cursor"));
        assert_eq!(bot_of_check("Greptile Review"), Some("greptile"));
        assert_eq!(bot_of_check("SonarCloud Code Analysis"), Some("sonarqube"));
        assert_eq!(bot_of_check("build (ubuntu-latest)"), None);
        assert_eq!(bot_of_check("precodexx"), None, "a word, not a substring");
        let checks = review_core::watch::Checks {
            passed: vec!["Cursor Bugbot".to_owned(), "ci".to_owned()],
            pending: vec!["Greptile Review".to_owned()],
            ..review_core::watch::Checks::default()
        };
        let mut bots = vec![
            BotStanding {
                bot: "cursor".to_owned(),
                expected: true,
                state: BotState::NeverSeen,
            },
            BotStanding {
                bot: "coderabbit".to_owned(),
                expected: true,
                state: BotState::Paused,
            },
        ];
        with_checks(&mut bots, &checks, &["greptile".to_owned()]);
        let state = |key: &str| bots.iter().find(|b| b.bot == key).map(|b| b.state.clone());
        assert_eq!(state("cursor"), Some(BotState::ReviewedHead));
        assert_eq!(state("greptile"), Some(BotState::Reviewing));
        assert!(bots.iter().find(|b| b.bot == "greptile").unwrap().expected);
        assert_eq!(
            state("coderabbit"),
            Some(BotState::Paused),
            "its own word stands"
        );
    }

    #[test]
    fn waits_are_read_in_any_units_and_absent_waits_are_none() {
        assert_eq!(
            wait_seconds("Please wait 17 minutes and 3 seconds."),
            Some(1023)
        );
        assert_eq!(wait_seconds("try again in 2 hours"), Some(7200));
        assert_eq!(wait_seconds("wait **1 day**"), Some(86_400));
        assert_eq!(wait_seconds("your quota is spent"), None);
        assert_eq!(wait_seconds("please wait a little"), None);
        assert_eq!(
            wait_seconds("wait 99999999999999999999 hours"),
            None,
            "a number that does not fit is not a wait"
        );
    }

    #[test]
    fn notices_are_told_apart_and_findings_are_not_notices() {
        let cr = |body: &str| notice(Family::CodeRabbit, body);
        assert_eq!(
            cr(
                "<!-- This is an auto-generated comment: review in progress by coderabbit.ai -->\n\n> [!NOTE]\n> Currently processing new changes in this PR. This may take a few minutes, please wait..."
            ),
            Some(Notice::Reviewing)
        );
        assert_eq!(
            cr("> [!NOTE]\n> ## Reviews paused\n>\n> Use `@coderabbitai resume` to resume."),
            Some(Notice::Paused)
        );
        assert_eq!(
            notice(
                Family::Copilot,
                "Copilot could not review this pull request: you have used your monthly premium requests quota."
            ),
            Some(Notice::QuotaSpent { wait: None })
        );
        assert_eq!(
            notice(
                Family::Copilot,
                "The retry loop ignores `Retry-After`, so the client keeps hitting the API."
            ),
            None
        );
    }
}
