//! The human-participation gate: which comments are automated, and which threads are human.
//!
//! A thread is human if any of its comments is not recognisably automated. Human threads are the
//! PR author's to answer; the tool never acts on them on its own judgement.
//!
//! A comment is automated when:
//! - GitHub types its author as a `Bot`, or
//! - its author's login is a configured automation account (exact match, ignoring ASCII case as
//!   GitHub does, with or without a `[bot]` suffix; an entry written `app[bot]`, and every
//!   account the repository's own file names, match only authors GitHub types as `Bot`), or
//! - it is the tool's own post: its id is in the tool's ledger, or its author is the viewer (the
//!   account the tool posts as) and it carries the automated header and a well-formed
//!   idempotency key, or
//! - its first unquoted line starts with the automated-comment header **and** its author is the
//!   PR's author or a configured automation account (anyone else can type the header).
//!
//! A comment whose author cannot be placed (a deleted account) is human.
//!
//! [`AutomationSettings::may_act`] is the one check of whether the tool may act on a thread on
//! its own judgement (resolve it, reply in it, fix and close it). Every command and the tool
//! server ask it, and it is asked again on a fresh read just before each write.

use std::collections::BTreeSet;
use std::fmt;

use serde::{Deserialize, Serialize};

use crate::model::{Author, AuthorKind, Comment, CommentId, PullRequest, Review, Thread, ThreadId};

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
    /// Logins named by the repository's own configuration file: they count only for authors
    /// GitHub types as `Bot` (a file in the repository must not turn a person into automation).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub bot_accounts: Vec<String>,
    /// The account the tool posts as (the token's owner), read once per run. Its comments that
    /// carry the header and a well-formed key are the tool's own.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub viewer: Option<String>,
    /// Comments the tool's ledger says it posted.
    #[serde(default, skip_serializing_if = "BTreeSet::is_empty")]
    pub own_comments: BTreeSet<CommentId>,
    /// Threads the tool resolved, from its audit log. GitHub does not record who reopens a
    /// thread: one of these that is open again was reopened by a person.
    #[serde(default, skip_serializing_if = "BTreeSet::is_empty")]
    pub resolved_by_tool: BTreeSet<ThreadId>,
}

impl Default for AutomationSettings {
    fn default() -> Self {
        Self {
            accounts: Vec::new(),
            header: DEFAULT_AUTOMATED_HEADER.to_owned(),
            extra_headers: Vec::new(),
            bot_accounts: Vec::new(),
            viewer: None,
            own_comments: BTreeSet::new(),
            resolved_by_tool: BTreeSet::new(),
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
    /// The tool's own post (in its ledger, or by the viewer with the header and a key).
    OwnPost,
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

/// Whether the first unquoted, non-blank line of `body` starts with `header`, or the comment
/// opens with a GitHub alert (`> [!NOTE]`, `> [!WARNING]`, ...) whose first line of text does.
/// One-line HTML comments before it (`<!-- marker -->`, invisible on GitHub) are skipped.
///
/// Quoted lines (`>`) are otherwise skipped so that quoting a bot's comment does not make a
/// person's reply automated; text before the header on the same line disqualifies it. An alert
/// is not a quote: tools posting through a person's account often put their header in one, and
/// quoting such a comment nests it (`> > [!NOTE]`), which does not count.
pub fn starts_with_header(body: &str, header: &str) -> bool {
    if header.is_empty() {
        return false;
    }
    // Hidden one-line markers first (`<!-- review-swarm-summary -->`, which a tool keeps to find
    // its sticky comment again) are invisible: the header after them still opens the comment.
    let body = skip_hidden_markers(body);
    let lines = body.lines().map(str::trim_start).filter(|l| !l.is_empty());
    if let Some(first) = lines.clone().next()
        && is_alert_opening(first)
    {
        // The alert holds the header and nothing more: a longer one is a quoted comment (the
        // finding inside it), and the text after it is a person's answer.
        let alert: Vec<&str> = lines
            .skip(1)
            .take_while(|l| l.starts_with('>'))
            .map(|l| l.trim_start_matches('>').trim())
            .filter(|l| !l.is_empty())
            .collect();
        return alert.len() == 1 && alert[0].starts_with(header);
    }
    body.lines()
        .map(str::trim_start)
        .find(|line| !line.is_empty() && !line.starts_with('>'))
        .is_some_and(|line| line.starts_with(header))
}

/// `body` after its leading blank lines and one-line HTML comments (`<!-- marker -->`).
fn skip_hidden_markers(body: &str) -> &str {
    let mut rest = body;
    while let Some((line, after)) = rest.split_once('\n') {
        let t = line.trim();
        let marker = t
            .strip_prefix("<!--")
            .and_then(|r| r.strip_suffix("-->"))
            .is_some_and(|inner| !inner.contains("-->"));
        if !(t.is_empty() || marker) {
            break;
        }
        rest = after;
    }
    rest
}

/// Whether `line` opens a GitHub alert: `> [!NOTE]` and the like, alone on its line.
fn is_alert_opening(line: &str) -> bool {
    let Some(rest) = line.strip_prefix('>') else {
        return false;
    };
    let kind = rest
        .trim()
        .strip_prefix("[!")
        .and_then(|r| r.strip_suffix(']'))
        .unwrap_or("");
    ["note", "tip", "important", "warning", "caution"]
        .iter()
        .any(|k| kind.eq_ignore_ascii_case(k))
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

    /// Whether `author` is a configured automation account. An entry ending in `[bot]`, and
    /// every account from the repository's file, matches only an author typed `Bot`.
    pub fn is_automation_account(&self, author: &Author) -> bool {
        let is_bot = author.kind == AuthorKind::Bot;
        self.accounts
            .iter()
            .any(|a| same_login(a, &author.login) && (is_bot || !a.ends_with("[bot]")))
            || (is_bot
                && self
                    .bot_accounts
                    .iter()
                    .any(|a| same_login(a, &author.login)))
    }

    /// Whether a comment is the tool's own post: in its ledger, or by the viewer with the
    /// header and a well-formed idempotency key.
    pub fn is_own_post(&self, id: Option<&CommentId>, author: &Author, body: &str) -> bool {
        id.is_some_and(|id| self.own_comments.contains(id))
            || self.viewer.as_deref().is_some_and(|v| {
                same_login(v, &author.login)
                    && author.kind != AuthorKind::Bot
                    && crate::post::is_marked(body, &self.header)
            })
    }

    /// Places one comment's author.
    pub fn participation(
        &self,
        author: Option<&Author>,
        body: &str,
        pr_author: Option<&Author>,
    ) -> Participation {
        self.placed(None, author, body, pr_author)
    }

    /// Places the author of the comment `id` (`None` when it has no id, as a review body).
    pub fn placed(
        &self,
        id: Option<&CommentId>,
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
        if self.is_automation_account(author) {
            return Participation::AutomationAccount;
        }
        if self.is_own_post(id, author, body) {
            return Participation::OwnPost;
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
        self.placed(
            Some(&comment.id),
            comment.author.as_ref(),
            &comment.body,
            pr.author.as_ref(),
        )
    }

    /// Whether a thread is human by who took part alone: any comment not automated, or no comment
    /// at all (a thread that shows nothing cannot be placed). What the tool does with a thread is
    /// [`Self::may_act`]'s, and what it shows as "human" is [`Self::left_to_a_person`], which also
    /// counts a thread not read whole or reopened.
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

/// Why the tool may not act on a thread (or a review) on its own judgement.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Refusal {
    /// Not every comment of the thread could be read: an unread one may be a person's.
    NotReadWhole,
    /// A person took part (logins as `@login`, or "an unknown author").
    Human(Vec<String>),
    /// The thread shows no comment, so nobody can be placed.
    NoComments,
    /// The tool resolved it before and it is open again: a person reopened it.
    Reopened,
    /// Its path holds a control character: it is never handed to a command or shown raw.
    UnsafePath,
}

impl Refusal {
    /// Whether the thread is left to a person because of who took part in it (a person, an
    /// unknown author, a reopening, or comments that could not all be read).
    pub fn is_human(&self) -> bool {
        !matches!(self, Self::UnsafePath)
    }
}

impl fmt::Display for Refusal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::NotReadWhole => {
                f.write_str("not every comment could be read; an unread reply may be a person's")
            }
            Self::Human(who) if who.is_empty() => {
                f.write_str("no comment could be placed; treated as human")
            }
            Self::Human(who) => write!(
                f,
                "human participation ({}); the PR author answers",
                who.join(", ")
            ),
            Self::NoComments => f.write_str("no comment could be placed; treated as human"),
            Self::Reopened => f.write_str("reopened after the tool resolved it; left to a person"),
            Self::UnsafePath => f.write_str(
                "its path holds a control character; never handed to a command, left to a person",
            ),
        }
    }
}

/// Whether `text` holds a control character (C0, DEL or C1) or a bidirectional control, which
/// could rewrite what a terminal or a markdown task shows.
pub fn has_control(text: &str) -> bool {
    text.chars().any(|c| {
        c.is_control()
            || matches!(c, '\u{200e}' | '\u{200f}' | '\u{061c}' | '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}')
    })
}

impl AutomationSettings {
    /// The one check of whether the tool may act on `thread` of `pr` on its own judgement:
    /// every comment was read, every comment is automated (no person, no author that cannot be
    /// placed), it was not reopened after the tool resolved it, and its path is plain text.
    /// Whether it is resolved is not this check's business (resolving twice is harmless).
    pub fn may_act(&self, thread: &Thread, pr: &PullRequest) -> Result<(), Refusal> {
        if !thread.all_comments_read {
            return Err(Refusal::NotReadWhole);
        }
        // Each person once, in the order they first took part.
        let mut who: Vec<String> = Vec::new();
        for p in self.human_participants(thread, pr) {
            let name = match p {
                Participation::Human { login: Some(l) } => format!("@{l}"),
                _ => "an unknown author".to_owned(),
            };
            if !who.contains(&name) {
                who.push(name);
            }
        }
        if !who.is_empty() {
            return Err(Refusal::Human(who));
        }
        if thread.comments.is_empty() {
            return Err(Refusal::NoComments);
        }
        if !thread.is_resolved && self.resolved_by_tool.contains(&thread.id) {
            return Err(Refusal::Reopened);
        }
        if has_control(&thread.path) {
            return Err(Refusal::UnsafePath);
        }
        Ok(())
    }

    /// Whether `thread` of `pr` is left to a person: [`Self::may_act`], the one check, refuses it
    /// because of who took part in it ([`Refusal::is_human`]: a person or an author that cannot
    /// be placed, no comment at all, comments that could not all be read, a reopening after the
    /// tool resolved it). A thread refused only for its path is not a person's, and a thread the
    /// tool may act on is not either. This is what the plan's reports, `review threads`, the MCP
    /// server and the follow-up's issues call "human".
    pub fn left_to_a_person(&self, thread: &Thread, pr: &PullRequest) -> bool {
        self.may_act(thread, pr).is_err_and(|r| r.is_human())
    }

    /// The same check for a review submission answered as a whole (its out-of-diff findings):
    /// its author must be automated.
    pub fn may_act_on_review(&self, review: &Review, pr: &PullRequest) -> Result<(), Refusal> {
        match self.participation(review.author.as_ref(), &review.body, pr.author.as_ref()) {
            Participation::Human { login: Some(l) } => Err(Refusal::Human(vec![format!("@{l}")])),
            Participation::Human { login: None } => Err(Refusal::Human(Vec::new())),
            _ => Ok(()),
        }
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
    fn a_header_opening_an_alert_counts_but_not_a_quoted_or_nested_one() {
        let h = DEFAULT_AUTOMATED_HEADER;
        let alert = "> [!NOTE]\n> 🤖 Automated comment by **QA Swarm** — not written by a human\n\n**[logic]** 🟠 HIGH: the total is off by one.";
        assert!(starts_with_header(alert, h));
        assert!(starts_with_header(&alert.replace("NOTE", "warning"), h));
        // Quoting such a comment nests the alert: a person's reply.
        let quoted = "> > [!NOTE]\n> > 🤖 Automated comment by **QA Swarm**\n\nNo, this is fine.";
        assert!(!starts_with_header(quoted, h));
        // A plain quote of the header is still not the header.
        assert!(!starts_with_header("> 🤖 Automated comment by X\n\nNo.", h));
        // Text in the alert before the header, or an alert that is not first: not the header.
        assert!(!starts_with_header(
            "> [!NOTE]\n> see: 🤖 Automated comment by X",
            h
        ));
        assert!(!starts_with_header(
            "hi\n> [!NOTE]\n> 🤖 Automated comment by X",
            h
        ));
        assert!(!starts_with_header(
            "> [!NOTICE]\n> 🤖 Automated comment by X",
            h
        ));
        // An alert that holds the finding too is a quoted comment, answered below it.
        let pasted = "> [!NOTE]\n> 🤖 Automated comment by **QA Swarm**\n>\n> **[qa]** 🟠 HIGH\n>\n> `refill` races.\n\nNot changing it.";
        assert!(!starts_with_header(pasted, h));
        // The rule of who may use it is unchanged: only the PR's author (or an account).
        let alice = user("alice");
        assert!(
            settings()
                .participation(Some(&alice), alert, Some(&alice))
                .is_automated()
        );
        assert!(
            !settings()
                .participation(Some(&user("mallory")), alert, Some(&alice))
                .is_automated()
        );
    }

    #[test]
    fn hidden_one_line_markers_before_the_header_are_skipped() {
        let h = DEFAULT_AUTOMATED_HEADER;
        // A tool's sticky comment keeps a marker to find itself again; it is invisible.
        assert!(starts_with_header(
            "<!-- review-swarm-summary -->\n🤖 Automated comment by **Review Swarm**\n\n## APPROVE",
            h
        ));
        assert!(starts_with_header(
            "<!-- a -->\n\n<!-- b -->\n> [!NOTE]\n> 🤖 Automated comment by **Review Swarm**\n\nbody",
            h
        ));
        // Only whole one-line comments are skipped: text, an unclosed or a multi-line comment,
        // or a comment with text after it on its line, still come first.
        for body in [
            "<!-- marker --> hello\n🤖 Automated comment by X",
            "<!-- open\n🤖 Automated comment by X\n-->",
            "<!-->\n🤖 Automated comment by X",
            "<!-- a --> <!-- b -->x\n🤖 Automated comment by X",
            "<!-- marker -->\nhello\n🤖 Automated comment by X",
        ] {
            assert!(!starts_with_header(body, h), "{body:?}");
        }
        // Who may use the header is unchanged.
        let body = "<!-- m -->\n🤖 Automated comment by **QA**\n\nx";
        let alice = user("alice");
        assert!(
            !settings()
                .participation(Some(&user("mallory")), body, Some(&alice))
                .is_automated()
        );
        assert!(
            settings()
                .participation(Some(&alice), body, Some(&alice))
                .is_automated()
        );
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

    fn pr_with(comments: Vec<(Option<Author>, &str)>) -> PullRequest {
        let comments = comments
            .into_iter()
            .enumerate()
            .map(|(i, (author, body))| Comment {
                id: CommentId(format!("C{i}")),
                author,
                body: body.to_owned(),
                created_at: "2026-11-30T10:00:00Z".to_owned(),
                url: String::new(),
                diff_hunk: None,
                review_id: None,
            })
            .collect();
        PullRequest {
            repo: crate::model::RepoId::parse("acme/widgets").unwrap(),
            number: 1,
            id: String::new(),
            title: String::new(),
            url: String::new(),
            state: crate::model::PrState::Open,
            author: Some(user("dana")),
            head_ref: String::new(),
            base_ref: String::new(),
            head_sha: crate::model::CommitId::from("abc"),
            base_sha: None,
            head_repo: None,
            viewer: None,
            draft: false,
            mergeable: None,
            checks: None,
            reviews: Vec::new(),
            comments: Vec::new(),
            threads: vec![Thread {
                id: ThreadId::from("T"),
                is_resolved: false,
                is_outdated: false,
                path: "src/lib.rs".to_owned(),
                lines: None,
                subject_type: crate::model::SubjectType::Line,
                comments,
                all_comments_read: true,
                original_lines: None,
            }],
        }
    }

    fn bot(login: &str) -> Author {
        Author::new(login, AuthorKind::Bot)
    }

    #[test]
    fn the_tools_own_replies_are_its_own_whoever_runs_it() {
        let key = crate::post::idempotency_key(&ThreadId::from("T"), "Fixed.");
        let reply = crate::post::marked_body(DEFAULT_AUTOMATED_HEADER, "Fixed.", &key);
        // The token's owner (mallory-ci) is not the PR author (dana).
        let pr = pr_with(vec![
            (Some(bot("coderabbitai")), "finding"),
            (Some(user("mallory-ci")), &reply),
        ]);
        let mut s = settings();
        assert!(
            s.may_act(&pr.threads[0], &pr).is_err(),
            "no viewer: a person"
        );
        s.viewer = Some("mallory-ci".to_owned());
        assert_eq!(s.may_act(&pr.threads[0], &pr), Ok(()));
        // Another account typing the same text is still a person.
        let forged = pr_with(vec![
            (Some(bot("coderabbitai")), "finding"),
            (Some(user("eve")), &reply),
        ]);
        assert!(s.may_act(&forged.threads[0], &forged).is_err());
        // The viewer without the header and key is a person too (their own words).
        let plain = pr_with(vec![
            (Some(bot("coderabbitai")), "finding"),
            (Some(user("mallory-ci")), "I disagree"),
        ]);
        assert!(s.may_act(&plain.threads[0], &plain).is_err());
        // A comment in the ledger is the tool's own.
        let mut ledger = settings();
        ledger.own_comments.insert(CommentId::from("C1"));
        assert_eq!(ledger.may_act(&plain.threads[0], &plain), Ok(()));
    }

    #[test]
    fn a_rereview_command_by_the_viewer_with_its_key_is_the_tools_own() {
        let key =
            crate::post::idempotency_key(&ThreadId::from("rereview:gemini@abc"), "/gemini review");
        let body = crate::post::command_body(
            "/gemini review",
            DEFAULT_AUTOMATED_HEADER,
            "asked again for `abc`.",
            &key,
        );
        let mut s = settings();
        s.viewer = Some("mallory-ci".to_owned());
        assert_eq!(
            s.participation(Some(&user("mallory-ci")), &body, Some(&user("dana"))),
            Participation::OwnPost
        );
        // The same text by someone else is a person's comment.
        assert!(
            !s.participation(Some(&user("eve")), &body, Some(&user("dana")))
                .is_automated()
        );
        // In a thread, it does not make the thread human.
        let pr = pr_with(vec![
            (Some(bot("coderabbitai")), "finding"),
            (Some(user("mallory-ci")), &body),
        ]);
        assert_eq!(s.may_act(&pr.threads[0], &pr), Ok(()));
    }

    #[test]
    fn a_bot_suffixed_entry_or_a_repository_account_matches_only_bots() {
        let s = AutomationSettings {
            accounts: vec!["app[bot]".to_owned()],
            bot_accounts: vec!["bob".to_owned()],
            ..AutomationSettings::default()
        };
        assert!(!s.is_automation_account(&user("app")));
        assert!(
            !s.participation(Some(&user("app")), "x", None)
                .is_automated()
        );
        assert!(
            !s.participation(Some(&user("bob")), "x", None)
                .is_automated()
        );
        assert!(s.is_automation_account(&bot("app")));
        assert!(s.is_automation_account(&bot("bob")));
    }

    #[test]
    fn may_act_refuses_people_partial_reads_reopened_threads_and_control_paths() {
        let s = settings();
        let bot_only = pr_with(vec![(Some(bot("coderabbitai")), "finding")]);
        assert_eq!(s.may_act(&bot_only.threads[0], &bot_only), Ok(()));

        let human = pr_with(vec![
            (Some(bot("coderabbitai")), "finding"),
            (Some(user("mei")), "no"),
        ]);
        assert_eq!(
            s.may_act(&human.threads[0], &human),
            Err(Refusal::Human(vec!["@mei".to_owned()]))
        );
        // A long discussion names each person once, in the order they first spoke.
        let talk = pr_with(vec![
            (Some(bot("coderabbitai")), "finding"),
            (Some(user("mei")), "no"),
            (Some(user("tomasz")), "yes"),
            (Some(user("mei")), "still no"),
            (Some(user("tomasz")), "fine"),
        ]);
        assert_eq!(
            s.may_act(&talk.threads[0], &talk),
            Err(Refusal::Human(vec![
                "@mei".to_owned(),
                "@tomasz".to_owned()
            ]))
        );

        let mut partly = bot_only.clone();
        partly.threads[0].all_comments_read = false;
        assert_eq!(
            s.may_act(&partly.threads[0], &partly),
            Err(Refusal::NotReadWhole)
        );

        let mut empty = bot_only.clone();
        empty.threads[0].comments.clear();
        assert_eq!(
            s.may_act(&empty.threads[0], &empty),
            Err(Refusal::NoComments)
        );

        let mut reopened = settings();
        reopened.resolved_by_tool.insert(ThreadId::from("T"));
        assert_eq!(
            reopened.may_act(&bot_only.threads[0], &bot_only),
            Err(Refusal::Reopened)
        );
        let mut resolved = bot_only.clone();
        resolved.threads[0].is_resolved = true;
        assert_eq!(reopened.may_act(&resolved.threads[0], &resolved), Ok(()));

        for path in [
            "src/a\nb.rs",
            "src/\u{1b}[2Ka.rs",
            "src/\u{202e}sr.a",
            "a\u{85}b",
        ] {
            let mut bad = bot_only.clone();
            bad.threads[0].path = path.to_owned();
            assert_eq!(
                s.may_act(&bad.threads[0], &bad),
                Err(Refusal::UnsafePath),
                "{path:?}"
            );
        }
    }

    /// What "left to a person" means, refusal by refusal: all but a control path. The follow-up's
    /// issues once built their own rule (a person, no comment, or not read whole) that missed a
    /// thread reopened after the tool resolved it; it is left to a person too.
    #[test]
    fn left_to_a_person_is_every_refusal_but_a_control_path() {
        let s = settings();
        let bot_only = pr_with(vec![(Some(bot("coderabbitai")), "finding")]);
        assert!(!s.left_to_a_person(&bot_only.threads[0], &bot_only));
        let human = pr_with(vec![
            (Some(bot("coderabbitai")), "finding"),
            (Some(user("mei")), "no"),
        ]);
        assert!(s.left_to_a_person(&human.threads[0], &human));
        let ghost = pr_with(vec![(None, "finding")]);
        assert!(s.left_to_a_person(&ghost.threads[0], &ghost));
        let mut partly = bot_only.clone();
        partly.threads[0].all_comments_read = false;
        assert!(s.left_to_a_person(&partly.threads[0], &partly));
        let mut empty = bot_only.clone();
        empty.threads[0].comments.clear();
        assert!(s.left_to_a_person(&empty.threads[0], &empty));
        let mut reopened = settings();
        reopened.resolved_by_tool.insert(ThreadId::from("T"));
        assert!(reopened.left_to_a_person(&bot_only.threads[0], &bot_only));
        assert!(
            !s.thread_is_human(&bot_only.threads[0], &bot_only),
            "who took part alone does not see the reopening"
        );
        let mut bad = bot_only;
        bad.threads[0].path = "src/a\nb.rs".to_owned();
        assert_eq!(s.may_act(&bad.threads[0], &bad), Err(Refusal::UnsafePath));
        assert!(!s.left_to_a_person(&bad.threads[0], &bad));
    }

    #[test]
    fn a_review_is_answered_only_when_its_author_is_automated() {
        let s = settings();
        let pr = pr_with(vec![]);
        let review = |author: Author| Review {
            id: crate::model::ReviewId::from("R"),
            author: Some(author),
            state: crate::model::ReviewState::Commented,
            body: "findings".to_owned(),
            submitted_at: None,
            commit: None,
        };
        assert_eq!(
            s.may_act_on_review(&review(bot("coderabbitai")), &pr),
            Ok(())
        );
        assert!(s.may_act_on_review(&review(user("mei")), &pr).is_err());
    }
}
