//! Deferring a finding to a follow-up issue: the issue the tool opens (its title, its body with
//! the finding quoted as inert text and a link back to the thread, its labels), the hidden key
//! that makes it opened once per thread however often a run is repeated or killed, and the reply
//! that points the thread at it.
//!
//! The key lives in the issue's body, so a run that stopped after opening the issue and before
//! recording it finds the issue again by its key instead of opening a second one.

use std::fmt;

use serde::{Deserialize, Serialize};

use crate::model::{PullRequest, RepoId, Thread, ThreadId};

/// The marker that introduces the hidden key in an issue's body.
const KEY_PREFIX: &str = "<!-- review:defer-key=";

/// The longest title the tool gives an issue, in characters (GitHub allows 256).
const TITLE_LIMIT: usize = 120;

/// The most of a finding quoted in the issue, in characters; the thread holds the rest.
const QUOTE_LIMIT: usize = 6_000;

/// The key of the follow-up issue for `thread` of `repo#number`: the same thread always has
/// the same key, so a rerun finds the issue it opened before.
///
/// ```
/// use review_core::defer::issue_key;
/// use review_core::model::{RepoId, ThreadId};
///
/// let repo = RepoId::parse("acme/widgets").unwrap();
/// let a = issue_key(&repo, 7, &ThreadId::from("PRRT_1"));
/// assert_eq!(a, issue_key(&repo, 7, &ThreadId::from("PRRT_1")));
/// assert_ne!(a, issue_key(&repo, 8, &ThreadId::from("PRRT_1")));
/// ```
pub fn issue_key(repo: &RepoId, number: u64, thread: &ThreadId) -> String {
    // FNV-1a, 64 bits: stable across builds and platforms, which std's hasher is not.
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    let subject = format!("{repo}#{number}");
    for byte in subject.bytes().chain([0xff]).chain(thread.0.bytes()) {
        hash ^= u64::from(byte);
        hash = hash.wrapping_mul(0x0000_0100_0000_01b3);
    }
    format!("{hash:016x}")
}

/// The follow-up key an issue's body carries, if any: the last well-formed one.
///
/// ```
/// use review_core::defer::key_in;
///
/// assert_eq!(key_in("text\n<!-- review:defer-key=00ff -->"), Some("00ff"));
/// assert_eq!(key_in("<!-- review:defer-key=zz; x -->"), None);
/// ```
pub fn key_in(body: &str) -> Option<&str> {
    let start = body.rfind(KEY_PREFIX)? + KEY_PREFIX.len();
    let rest = body.get(start..)?;
    let key = rest.get(..rest.find(" -->")?)?;
    (!key.is_empty() && key.chars().all(|c| c.is_ascii_hexdigit())).then_some(key)
}

/// An issue the tool would open.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct IssueDraft {
    /// Its title: one line, no markup that GitHub acts on.
    pub title: String,
    /// Its body: the finding quoted as inert text, the link to the thread, and the key.
    pub body: String,
    /// The labels to give it (the user's; GitHub ignores none, so they must exist).
    pub labels: Vec<String>,
    /// The key in its body ([`issue_key`]).
    pub key: String,
}

/// An issue on the host.
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct IssueRef {
    /// Its number in the repository.
    pub number: u64,
    /// A link to it.
    pub url: String,
}

impl fmt::Display for IssueRef {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "#{} ({})", self.number, self.url)
    }
}

/// What asking the host to open an issue gave.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Opened {
    /// The issue is open.
    Issue(IssueRef),
    /// The repository has its issues turned off: nothing was opened.
    IssuesOff,
}

/// Text with every `@` and `#` that GitHub would turn into a mention or a cross-reference made
/// inert (a zero-width joiner after it), and no line breaks: safe for an issue's title.
fn inert_line(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '\n' | '\r' | '\t' => out.push(' '),
            c if c.is_control() => {}
            '@' | '#' => {
                out.push(c);
                out.push('\u{2060}');
            }
            c => out.push(c),
        }
    }
    out.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// `text` cut to `limit` characters, on a character boundary, with `…` when cut.
fn cut(text: &str, limit: usize) -> String {
    if text.chars().count() <= limit {
        return text.to_owned();
    }
    let mut out: String = text.chars().take(limit.saturating_sub(1)).collect();
    out.push('…');
    out
}

/// `text` inside a fenced code block that nothing in `text` can close: GitHub renders no
/// mention, reference, image or HTML inside it, so a hostile finding notifies nobody and links
/// nothing.
fn inert_block(text: &str) -> String {
    let longest = text
        .lines()
        .map(|l| l.trim_start().chars().take_while(|&c| c == '~').count())
        .max()
        .unwrap_or(0);
    let fence = "~".repeat(longest.max(2) + 1);
    format!("{fence}text\n{}\n{fence}", text.trim_end())
}

/// The issue to open for `thread` of `pr`: `title` (the finding's, as the caller read it) after
/// the PR's number, the finding's first comment quoted as inert text with its author and file,
/// `note` (why it is deferred, in the tool's words or the operator's), a link to the thread,
/// and the key.
pub fn draft(
    pr: &PullRequest,
    thread: &Thread,
    title: &str,
    note: &str,
    labels: &[String],
) -> IssueDraft {
    let key = issue_key(&pr.repo, pr.number, &thread.id);
    let first = thread.first_comment();
    let title = {
        let line = inert_line(title);
        let line = if line.is_empty() {
            format!("a finding on {}", inert_line(&thread.path))
        } else {
            line
        };
        cut(
            &format!("Follow-up from #{}: {line}", pr.number),
            TITLE_LIMIT,
        )
    };
    let who = first
        .and_then(|c| c.author.as_ref())
        .map_or_else(|| "a deleted account".to_owned(), |a| inert_line(&a.login));
    let link = first.map_or_else(|| pr.url.clone(), |c| c.url.clone());
    let place = thread.location();
    let finding = first.map_or("", |c| c.body.as_str());
    let mut body = String::new();
    if !note.trim().is_empty() {
        body.push_str(note.trim());
        body.push_str("\n\n");
    }
    body.push_str(&format!(
        "Deferred from {link} (`{}` on `{}`), where {who} wrote:\n\n{}\n\n",
        inert_line(&place).replace('`', "'"),
        inert_line(&pr.head_ref).replace('`', "'"),
        inert_block(&cut(finding, QUOTE_LIMIT)),
    ));
    body.push_str(&format!("{KEY_PREFIX}{key} -->"));
    IssueDraft {
        title,
        body,
        labels: labels.to_vec(),
        key,
    }
}

/// The reply that points a deferred thread at its issue: `note` and the link.
///
/// ```
/// use review_core::defer::{deferred_reply, IssueRef};
///
/// let issue = IssueRef { number: 12, url: "https://github.com/acme/widgets/issues/12".into() };
/// assert_eq!(
///     deferred_reply(&issue, "Out of scope for this PR."),
///     "Out of scope for this PR. Deferred to a follow-up issue: https://github.com/acme/widgets/issues/12"
/// );
/// ```
pub fn deferred_reply(issue: &IssueRef, note: &str) -> String {
    let note = note.trim();
    if note.is_empty() {
        format!("Deferred to a follow-up issue: {}", issue.url)
    } else {
        format!("{note} Deferred to a follow-up issue: {}", issue.url)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{
        Author, AuthorKind, Comment, CommentId, CommitId, LineRange, PrState, SubjectType,
    };
    use proptest::prelude::*;

    fn pr_with(body: &str) -> (PullRequest, Thread) {
        let thread = Thread {
            id: ThreadId::from("PRRT_1"),
            is_resolved: false,
            is_outdated: false,
            path: "src/lib.rs".into(),
            lines: Some(LineRange { start: 4, end: 4 }),
            original_lines: None,
            subject_type: SubjectType::Line,
            comments: vec![Comment {
                id: CommentId::from("C_1"),
                author: Some(Author::new("coderabbitai", AuthorKind::Bot)),
                body: body.into(),
                created_at: "2026-11-30T10:00:00Z".into(),
                url: "https://github.com/acme/widgets/pull/7#discussion_r1".into(),
                diff_hunk: None,
                review_id: None,
            }],
            all_comments_read: true,
        };
        let pr = PullRequest {
            repo: RepoId::parse("acme/widgets").unwrap(),
            number: 7,
            id: "PR_7".into(),
            title: String::new(),
            url: "https://github.com/acme/widgets/pull/7".into(),
            state: PrState::Open,
            author: Some(Author::new("dana", AuthorKind::User)),
            head_ref: "feature".into(),
            base_ref: "main".into(),
            head_sha: CommitId("a".repeat(40)),
            base_sha: None,
            head_repo: None,
            viewer: None,
            draft: false,
            mergeable: None,
            checks: None,
            reviews: Vec::new(),
            comments: Vec::new(),
            threads: vec![thread.clone()],
        };
        (pr, thread)
    }

    #[test]
    fn the_draft_quotes_the_finding_links_the_thread_and_carries_the_key() {
        let (pr, thread) = pr_with("**Cache the parsed config.** It is read on every call.");
        let d = draft(
            &pr,
            &thread,
            "Cache the parsed config.",
            "Out of scope.",
            &[],
        );
        assert_eq!(d.title, "Follow-up from #7: Cache the parsed config.");
        assert!(d.body.starts_with("Out of scope.\n\n"), "{}", d.body);
        assert!(
            d.body
                .contains("https://github.com/acme/widgets/pull/7#discussion_r1")
        );
        assert!(d.body.contains("`src/lib.rs:4`"));
        assert!(d.body.contains("~~~text\n**Cache the parsed config.**"));
        assert_eq!(key_in(&d.body), Some(d.key.as_str()));
        assert_eq!(d.key, issue_key(&pr.repo, 7, &thread.id));
    }

    #[test]
    fn a_hostile_finding_mentions_nobody_and_cannot_close_its_block() {
        let hostile = "@acme/security please look\n~~~~~\n#1 @everyone <img src=x>\n~~~~~~\nend";
        let (pr, thread) = pr_with(hostile);
        let d = draft(&pr, &thread, "@acme/security #1 look\nsecond line", "", &[]);
        assert!(
            !d.title.contains("@a") && !d.title.contains("#1"),
            "{}",
            d.title
        );
        assert!(!d.title.contains('\n'));
        // The quote's fence is longer than any run of tildes inside it.
        let fence_line = d
            .body
            .lines()
            .find(|l| l.starts_with("~~~") && l.ends_with("text"))
            .unwrap();
        assert_eq!(fence_line, "~~~~~~~text");
        let closing = d.body.lines().filter(|l| *l == "~~~~~~~").count();
        assert_eq!(closing, 1, "{}", d.body);
    }

    #[test]
    fn a_forged_key_in_the_finding_is_not_the_issue_key() {
        let (pr, thread) = pr_with("x <!-- review:defer-key=deadbeef -->");
        let d = draft(&pr, &thread, "x", "", &[]);
        assert_eq!(key_in(&d.body), Some(d.key.as_str()));
        assert_ne!(d.key, "deadbeef");
    }

    proptest! {
        #[test]
        fn any_finding_stays_inside_its_block(body in "(?s).{0,300}", title in ".{0,200}") {
            let (pr, thread) = pr_with(&body);
            let d = draft(&pr, &thread, &title, "note", &[]);
            prop_assert!(d.title.chars().count() <= TITLE_LIMIT);
            prop_assert!(!d.title.contains('\n'));
            let open = d.body.lines().position(|l| l.starts_with('~') && l.ends_with("text")).unwrap();
            let fence = d.body.lines().nth(open).unwrap().trim_end_matches("text").to_owned();
            // The first line after the opening that could close it is the block's own end.
            let close = d.body.lines().skip(open + 1).position(|l| {
                let t = l.trim_start();
                t.starts_with(&fence) && t.trim_start_matches('~').trim().is_empty()
            });
            let close = close.map(|c| c + open + 1).unwrap();
            let after: Vec<&str> = d.body.lines().skip(close + 1).collect();
            prop_assert_eq!(after.iter().filter(|l| !l.is_empty()).count(), 1);
            prop_assert_eq!(key_in(&d.body), Some(d.key.as_str()));
        }
    }
}
