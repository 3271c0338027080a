//! The human-participation gate: which comments are automated, and which threads are human.
//!
//! A thread is human if any of its comments is not recognisably automated. Human threads are the
//! PR author's to answer; the tool never acts on them on its own judgement.
//!
//! A comment is automated when:
//! - GitHub types its author as a `Bot`, or
//! - its author's login is a configured automation account (exact match, ignoring ASCII case as
//!   GitHub does, with or without a `[bot]` suffix), or
//! - its first unquoted line starts with the automated-comment header **and** its author is the
//!   PR's author or a configured automation account (anyone else can type the header).
//!
//! A comment whose author cannot be placed (a deleted account) is human.

use serde::{Deserialize, Serialize};

use crate::model::{Author, AuthorKind, Comment, PullRequest, Thread};

/// The header that marks a comment posted by a tool through a person's account.
pub const DEFAULT_AUTOMATED_HEADER: &str = "🤖 Automated comment by";

/// What the gate needs to know about automation on this repository.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct AutomationSettings {
    /// Logins of accounts that only ever post automated comments (for example a QA bot that
    /// posts through a user account). Matched exactly, ASCII case-insensitively, with or without
    /// `[bot]`.
    pub accounts: Vec<String>,
    /// The header that marks an automated comment posted through a person's account; the tool
    /// posts with this one.
    pub header: String,
    /// Other headers that mark automated comments (tools that use their own), under the same
    /// rule: they count only on comments by the PR's author or an automation account.
    #[serde(default)]
    pub extra_headers: Vec<String>,
}

impl Default for AutomationSettings {
    fn default() -> Self {
        Self {
            accounts: Vec::new(),
            header: DEFAULT_AUTOMATED_HEADER.to_owned(),
            extra_headers: Vec::new(),
        }
    }
}

/// Why a comment was judged automated or human. Reports quote it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Participation {
    /// GitHub types the author as a Bot.
    BotAccount,
    /// The author is a configured automation account.
    AutomationAccount,
    /// The body carries the automated header and the author may use it.
    AutomatedHeader,
    /// A person wrote it (or the author could not be placed).
    Human {
        /// The author's login, or `None` for a deleted account.
        login: Option<String>,
    },
}

impl Participation {
    /// Whether the comment counts as automated.
    pub fn is_automated(&self) -> bool {
        !matches!(self, Self::Human { .. })
    }
}

/// Strips a trailing `[bot]` and compares logins as GitHub does (ASCII case-insensitive).
pub fn same_login(a: &str, b: &str) -> bool {
    fn base(login: &str) -> &str {
        login.strip_suffix("[bot]").unwrap_or(login)
    }
    base(a).eq_ignore_ascii_case(base(b))
}

/// Whether the first unquoted, non-blank line of `body` starts with `header`.
///
/// Quoted lines (`>`) are skipped so that quoting a bot's comment does not make a person's reply
/// automated; text before the header on the same line disqualifies it.
pub fn starts_with_header(body: &str, header: &str) -> bool {
    if header.is_empty() {
        return false;
    }
    body.lines()
        .map(str::trim_start)
        .find(|line| !line.is_empty() && !line.starts_with('>'))
        .is_some_and(|line| line.starts_with(header))
}

impl AutomationSettings {
    /// Whether the first unquoted line of `body` starts with one of the automated headers.
    pub fn has_header(&self, body: &str) -> bool {
        starts_with_header(body, &self.header)
            || self
                .extra_headers
                .iter()
                .any(|h| starts_with_header(body, h))
    }

    /// Whether `login` is a configured automation account.
    pub fn is_automation_account(&self, login: &str) -> bool {
        self.accounts.iter().any(|a| same_login(a, login))
    }

    /// Places one comment's author.
    pub fn participation(
        &self,
        author: Option<&Author>,
        body: &str,
        pr_author: Option<&Author>,
    ) -> Participation {
        let Some(author) = author else {
            return Participation::Human { login: None };
        };
        if author.kind == AuthorKind::Bot {
            return Participation::BotAccount;
        }
        if self.is_automation_account(&author.login) {
            return Participation::AutomationAccount;
        }
        let is_pr_author = pr_author.is_some_and(|p| same_login(&p.login, &author.login));
        if is_pr_author && self.has_header(body) {
            return Participation::AutomatedHeader;
        }
        Participation::Human {
            login: Some(author.login.clone()),
        }
    }

    /// Places one review comment of `pr`.
    pub fn comment_participation(&self, comment: &Comment, pr: &PullRequest) -> Participation {
        self.participation(comment.author.as_ref(), &comment.body, pr.author.as_ref())
    }

    /// Whether a thread is human: any comment not automated, or no comment at all (a thread that
    /// shows nothing cannot be placed).
    pub fn thread_is_human(&self, thread: &Thread, pr: &PullRequest) -> bool {
        self.human_participants(thread, pr).next().is_some() || thread.comments.is_empty()
    }

    /// The human comments of a thread, as their participation.
    pub fn human_participants<'a>(
        &'a self,
        thread: &'a Thread,
        pr: &'a PullRequest,
    ) -> impl Iterator<Item = Participation> + 'a {
        thread
            .comments
            .iter()
            .map(|c| self.comment_participation(c, pr))
            .filter(|p| !p.is_automated())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn settings() -> AutomationSettings {
        AutomationSettings {
            accounts: vec!["qa-runner".to_owned()],
            ..AutomationSettings::default()
        }
    }

    fn user(login: &str) -> Author {
        Author::new(login, AuthorKind::User)
    }

    #[test]
    fn bot_typed_author_is_automated() {
        let bot = Author::new("coderabbitai", AuthorKind::Bot);
        assert!(
            settings()
                .participation(Some(&bot), "hi", None)
                .is_automated()
        );
    }

    #[test]
    fn bot_like_login_typed_user_is_human() {
        // A person may own an account whose login looks like a bot's.
        let person = user("coderabbitai");
        assert!(
            !settings()
                .participation(Some(&person), "hi", None)
                .is_automated()
        );
    }

    #[test]
    fn configured_account_matches_exactly_with_or_without_bot_suffix() {
        let s = settings();
        assert!(
            s.participation(Some(&user("qa-runner")), "x", None)
                .is_automated()
        );
        assert!(
            s.participation(Some(&user("QA-Runner[bot]")), "x", None)
                .is_automated()
        );
        assert!(
            !s.participation(Some(&user("qa-runner2")), "x", None)
                .is_automated()
        );
        assert!(
            !s.participation(Some(&user("my-qa-runner")), "x", None)
                .is_automated()
        );
    }

    #[test]
    fn header_counts_only_from_the_pr_author() {
        let s = settings();
        let body = "🤖 Automated comment by **QA Swarm**\n\nMissing null check.";
        let author = user("alice");
        assert!(
            s.participation(Some(&author), body, Some(&author))
                .is_automated()
        );
        assert!(
            !s.participation(Some(&user("mallory")), body, Some(&author))
                .is_automated()
        );
    }

    #[test]
    fn quoted_header_does_not_make_a_reply_automated() {
        let s = settings();
        let alice = user("alice");
        let body =
            "> 🤖 Automated comment by **QA Swarm**\n> Missing null check.\n\nNo, this is fine.";
        assert!(
            !s.participation(Some(&alice), body, Some(&alice))
                .is_automated()
        );
    }

    #[test]
    fn header_must_start_the_first_unquoted_line() {
        assert!(starts_with_header(
            "\n  🤖 Automated comment by X",
            DEFAULT_AUTOMATED_HEADER
        ));
        assert!(starts_with_header(
            "> quoted\n🤖 Automated comment by X",
            DEFAULT_AUTOMATED_HEADER
        ));
        assert!(!starts_with_header(
            "see: 🤖 Automated comment by X",
            DEFAULT_AUTOMATED_HEADER
        ));
        assert!(!starts_with_header(
            "hello\n🤖 Automated comment by X",
            DEFAULT_AUTOMATED_HEADER
        ));
        assert!(!starts_with_header("anything", ""));
    }

    #[test]
    fn extra_headers_follow_the_same_rule() {
        let s = AutomationSettings {
            extra_headers: vec!["[acme-review-bot]".to_owned()],
            ..settings()
        };
        let dana = user("dana");
        let body = "[acme-review-bot] unused import";
        assert!(
            s.participation(Some(&dana), body, Some(&dana))
                .is_automated()
        );
        assert!(
            !s.participation(Some(&user("mallory")), body, Some(&dana))
                .is_automated()
        );
        assert!(
            !settings()
                .participation(Some(&dana), body, Some(&dana))
                .is_automated()
        );
    }

    #[test]
    fn deleted_author_is_human() {
        assert_eq!(
            settings().participation(None, "🤖 Automated comment by X", None),
            Participation::Human { login: None }
        );
    }

    #[test]
    fn unknown_author_kind_is_human() {
        let ghost = Author::new("someone", AuthorKind::Unknown);
        assert!(
            !settings()
                .participation(Some(&ghost), "x", None)
                .is_automated()
        );
    }
}
