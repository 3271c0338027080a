//! Reads review comments and produces the [`Signals`] the `review-core` rules decide on.
//!
//! - [`identify`] names the tool that wrote a comment ([`Family`]), or says a person wrote it.
//! - [`read_finding`] reads one finding (a thread's first comment) in that family's format:
//!   title, stated severity (normalised through [`severity::TABLE`]), suggestion blocks, how
//!   concrete the fix is, how far it reaches, and the design, style, speculative and
//!   addressed flags.
//! - [`analyze`] does both for every unresolved thread of a pull request whose first comment
//!   is automated, and finds the clusters of threads that raise the same finding.
//! - [`fingerprint()`] is the stable key of a finding across re-posts.
//! - [`threadless_findings`] splits the findings a bot lists in a review body (CodeRabbit's
//!   outside-diff, nitpick and duplicate sections, Copilot's suppressed comments).
//! - [`reviewed_commit`] and [`is_stale`] read the commit a bot's review or summary names, and
//!   say whether that review is older than the PR's head.
//! - [`account_hints`] finds people's accounts whose comments carry a review tool's format,
//!   for the report's hints.
//! - [`protocol_signalled`] finds the threads whose first comment carries one of the user's
//!   protocol-signal texts (messages between tools, left alone by the planner).
//! - [`observe()`] reads a pull request into what the review loop's watcher records (findings
//!   with fingerprints, people's comments, out-of-diff findings, what each bot last reviewed).
//!
//! Comment bodies are untrusted data. Nothing here follows instructions found in them;
//! sections aimed at agents ("Prompt for AI Agents") are not read for the title or the flags;
//! a format the reader does not know never states a high severity. Reading never panics.
//!
//! ```
//! use review_classify::{analyze, identify, Family};
//! use review_core::gate::AutomationSettings;
//! use review_core::model::*;
//! use review_core::signals::{Concreteness, Severity};
//!
//! let comment = |id: &str, login: &str, body: &str| Comment {
//!     id: CommentId::from(id),
//!     author: Some(Author::new(login, AuthorKind::Bot)),
//!     body: body.to_owned(),
//!     created_at: "2026-11-30T10:00:00Z".into(),
//!     url: String::new(),
//!     diff_hunk: None,
//!     review_id: None,
//! };
//! let thread = |id: &str, line: u32, c: Comment| Thread {
//!     id: ThreadId::from(id),
//!     is_resolved: false,
//!     is_outdated: false,
//!     path: "src/parse.rs".into(),
//!     lines: Some(LineRange::new(line, line)),
//!     subject_type: SubjectType::Line,
//!     comments: vec![c],
//!     all_comments_read: true,
//!     original_lines: None,
//! };
//! let rabbit = "_⚠️ Potential issue_ | _🟠 Major_\n\n**Empty input panics the parser.**\n\n\
//!               ```suggestion\n    let Some(first) = parts.first() else { return None };\n```";
//! let codex = "**<sub><sub>![P2 Badge](https://img.shields.io/badge/P2-yellow?style=flat)</sub></sub> \
//!              Parser panics on empty input**\n\nIndexing `parts[0]` fails when the line is empty.";
//! let pr = PullRequest {
//!     repo: RepoId::parse("acme/widgets").unwrap(),
//!     number: 7,
//!     id: String::new(),
//!     title: "Parse widgets".into(),
//!     url: String::new(),
//!     state: PrState::Open,
//!     author: Some(Author::new("alice", AuthorKind::User)),
//!     head_ref: "widgets".into(),
//!     base_ref: "main".into(),
//!     head_sha: CommitId::from("0123456789abcdef0123456789abcdef01234567"),
//!     base_sha: None,
//!     head_repo: None,
//!     viewer: None,
//!     draft: false,
//!     mergeable: None,
//!     checks: None,
//!     reviews: vec![],
//!     comments: vec![],
//!     threads: vec![
//!         thread("PRRT_1", 12, comment("PRRC_1", "coderabbitai", rabbit)),
//!         thread("PRRT_2", 13, comment("PRRC_2", "chatgpt-codex-connector", codex)),
//!     ],
//! };
//! let settings = AutomationSettings::default();
//! assert_eq!(
//!     identify(pr.threads[0].comments[0].author.as_ref(), rabbit, None, &settings),
//!     Some(Family::CodeRabbit)
//! );
//!
//! let signals = analyze(&pr, &settings);
//! let first = &signals.threads[&ThreadId::from("PRRT_1")];
//! assert_eq!(first.family.as_deref(), Some("coderabbit"));
//! assert_eq!(first.severity, Severity::High);
//! assert_eq!(first.title, "Empty input panics the parser");
//! assert!(matches!(first.concreteness, Concreteness::Suggestion(_)));
//! assert_eq!(signals.threads[&ThreadId::from("PRRT_2")].severity, Severity::Medium);
//!
//! // Two reviewers raised the same finding two lines apart: one convergent cluster.
//! assert_eq!(signals.clusters.len(), 1);
//! assert!(signals.clusters[0].convergent);
//! ```
#![warn(missing_docs)]

pub mod channels;
mod cluster;
mod doc;
pub mod doctor;
mod families;
mod family;
mod fingerprint;
mod fix;
mod flags;
mod hints;
pub mod instruction;
mod markup;
mod observe;
mod protocol;
mod read;
mod reviewed;
mod security;
pub mod severity;
pub mod standing;
mod threadless;

use review_core::gate::{AutomationSettings, DEFAULT_AUTOMATED_HEADER};
use review_core::model::{Author, PullRequest, Thread};
use review_core::signals::{Concreteness, SignalSet, Signals};

pub use crate::family::{Family, identify};
pub use crate::fingerprint::fingerprint;
pub use crate::hints::{account_hints, hint_family};
pub use crate::observe::{bot_key_of_login, observe};
pub use crate::protocol::{is_protocol_signal, protocol_signalled};
pub use crate::read::Finding;
pub use crate::reviewed::{is_stale, reviewed_commit};
pub use crate::threadless::{ThreadlessFinding, ThreadlessKind, threadless_findings};

/// Reads one finding (a thread's first comment) written by `family`, on the file `path`.
///
/// A [`Family::QaHeader`] comment may start with the default automated-comment header
/// ([`DEFAULT_AUTOMATED_HEADER`]); [`analyze`] uses the configured one.
pub fn read_finding(family: Family, body: &str, path: &str) -> Finding {
    read::read(family, body, path, DEFAULT_AUTOMATED_HEADER)
}

/// A bot's review body or summary comment that names a reviewed commit other than the PR's
/// head: stale, so the triage workflow skips it (the bot will review the head shortly).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StaleSummary {
    /// The review's or comment's node id.
    pub id: String,
    /// The bot family, or the author's login when the family is not known.
    pub who: String,
    /// The commit it says it reviewed.
    pub reviewed: String,
}

/// The stale bot reviews and summaries of `pr`: automated review bodies and top-level comments
/// that name a reviewed commit other than the head. People's comments are never in the list.
pub fn stale_summaries(pr: &PullRequest, automation: &AutomationSettings) -> Vec<StaleSummary> {
    let pr_author = pr.author.as_ref();
    let reviews = pr
        .reviews
        .iter()
        .map(|r| (r.id.0.as_str(), r.author.as_ref(), r.body.as_str()));
    let comments = pr
        .comments
        .iter()
        .map(|c| (c.id.0.as_str(), c.author.as_ref(), c.body.as_str()));
    reviews
        .chain(comments)
        .filter_map(|(id, author, body)| {
            let family = identify(author, body, pr_author, automation)?;
            let reviewed = reviewed_commit(body)?;
            if !is_stale(body, &pr.head_sha) {
                return None;
            }
            let who = if family.is_named_tool() {
                family.as_str().to_owned()
            } else {
                author.map_or_else(|| family.as_str().to_owned(), |a| a.login.clone())
            };
            Some(StaleSummary {
                id: id.to_owned(),
                who,
                reviewed,
            })
        })
        .collect()
}

/// Signals for every unresolved thread of `pr` whose first comment is automated, and the
/// duplicate clusters among all its unresolved, current threads.
///
/// Threads a person started get no signals (the core defers them) but may join a cluster: a
/// person raising the same finding counts for convergence. A later automated reply saying the
/// finding was addressed ("✅ Addressed in commit ...", "has been fixed", "Fixed in `<sha>`")
/// marks it addressed. A cluster is convergent when two or more reviewers raised it: a named
/// tool counts once whatever login it posted from, anyone else by login.
pub fn analyze(pr: &PullRequest, automation: &AutomationSettings) -> SignalSet {
    let pr_author = pr.author.as_ref();
    let mut set = SignalSet::default();
    let mut entries = Vec::new();
    for thread in pr.unresolved_threads() {
        let Some(first) = thread.first_comment() else {
            continue;
        };
        let family = identify(first.author.as_ref(), &first.body, pr_author, automation);
        let mut suggestion = None;
        let title = match family {
            Some(family) => {
                let signals = thread_signals(thread, family, pr_author, automation);
                let title = signals.title.clone();
                if signals.non_finding.is_some() {
                    // A summary or a notice is nobody's duplicate.
                    set.threads.insert(thread.id.clone(), signals);
                    continue;
                }
                if let Concreteness::Suggestion(s) = &signals.concreteness {
                    suggestion = Some(s.replacement.clone());
                }
                set.threads.insert(thread.id.clone(), signals);
                title
            }
            None => read::title_of(&first.body),
        };
        if !thread.is_outdated {
            let reviewer = match family {
                Some(f) if f.is_named_tool() => Some(format!("tool:{}", f.as_str())),
                _ => first.author.as_ref().map(|a| login_key(&a.login)),
            };
            let entry = cluster::Entry::new(
                thread.id.clone(),
                &thread.path,
                thread.lines,
                &title,
                reviewer,
            );
            entries.push(match &suggestion {
                Some(s) => entry.with_suggestion(s),
                None => entry,
            });
        }
    }
    set.clusters = cluster::clusters(&entries);
    set
}

/// The signals of a thread whose first comment `family` wrote.
fn thread_signals(
    thread: &Thread,
    family: Family,
    pr_author: Option<&Author>,
    automation: &AutomationSettings,
) -> Signals {
    let body = thread.first_comment().map_or("", |c| c.body.as_str());
    let mut finding = read::read(family, body, &thread.path, &automation.header);
    if !finding.already_addressed {
        finding.already_addressed = thread.comments.iter().skip(1).any(|reply| {
            identify(reply.author.as_ref(), &reply.body, pr_author, automation).is_some()
                && flags::reply_addressed(&reply.body)
        });
    }
    finding.signals(family, &thread.path)
}

/// A login as a reviewer identity: lower case, without `[bot]`.
fn login_key(login: &str) -> String {
    let base = login.strip_suffix("[bot]").unwrap_or(login);
    format!("login:{}", base.to_ascii_lowercase())
}

#[cfg(test)]
mod tests {
    use review_core::model::{
        AuthorKind, Comment, CommentId, CommitId, LineRange, PrState, RepoId, SubjectType, ThreadId,
    };
    use review_core::signals::Severity;

    use super::*;

    fn comment(login: &str, kind: AuthorKind, body: &str) -> Comment {
        Comment {
            id: CommentId::from("c"),
            author: Some(Author::new(login, kind)),
            body: body.to_owned(),
            created_at: "2026-11-30T10:00:00Z".to_owned(),
            url: String::new(),
            diff_hunk: None,
            review_id: None,
        }
    }

    fn bot(login: &str, body: &str) -> Comment {
        comment(login, AuthorKind::Bot, body)
    }

    fn thread(id: &str, path: &str, line: u32, comments: Vec<Comment>) -> Thread {
        Thread {
            id: ThreadId::from(id),
            is_resolved: false,
            is_outdated: false,
            path: path.to_owned(),
            lines: Some(LineRange::new(line, line)),
            subject_type: SubjectType::Line,
            comments,
            all_comments_read: true,
            original_lines: None,
        }
    }

    fn pr(threads: Vec<Thread>) -> PullRequest {
        PullRequest {
            repo: RepoId::parse("acme/widgets").unwrap(),
            number: 1,
            id: String::new(),
            title: String::new(),
            url: String::new(),
            state: PrState::Open,
            author: Some(Author::new("alice", AuthorKind::User)),
            head_ref: String::new(),
            base_ref: String::new(),
            head_sha: CommitId::from("0123456789abcdef0123456789abcdef01234567"),
            base_sha: None,
            head_repo: None,
            viewer: None,
            draft: false,
            mergeable: None,
            checks: None,
            reviews: vec![],
            comments: vec![],
            threads,
        }
    }

    #[test]
    fn stale_summaries_are_bot_summaries_of_another_commit() {
        use review_core::model::{IssueComment, Review, ReviewId, ReviewState};
        let mut p = pr(vec![]);
        let review = |id: &str, login: &str, kind: AuthorKind, body: &str| Review {
            id: ReviewId::from(id),
            author: Some(Author::new(login, kind)),
            state: ReviewState::Commented,
            body: body.to_owned(),
            submitted_at: None,
            commit: None,
        };
        p.reviews = vec![
            review(
                "old",
                "chatgpt-codex-connector",
                AuthorKind::Bot,
                "### 💡 Codex Review\n\n**Reviewed commit:** `aaaaaaa1`",
            ),
            review(
                "head",
                "chatgpt-codex-connector",
                AuthorKind::Bot,
                "### 💡 Codex Review\n\n**Reviewed commit:** `0123456`",
            ),
            review(
                "person",
                "bob",
                AuthorKind::User,
                "Reviewed everything up to aaaaaaa1, looks fine",
            ),
        ];
        p.comments = vec![IssueComment {
            id: CommentId::from("g"),
            author: Some(Author::new("greptile-apps", AuthorKind::Bot)),
            body: "Greptile Summary\n\nLast reviewed commit: [wip](https://github.com/acme/widgets/commit/bbbbbbb2)".to_owned(),
            created_at: String::new(),
            url: String::new(),
        }];
        let stale = stale_summaries(&p, &AutomationSettings::default());
        let ids: Vec<(&str, &str)> = stale
            .iter()
            .map(|s| (s.id.as_str(), s.who.as_str()))
            .collect();
        assert_eq!(ids, [("old", "codex"), ("g", "greptile")], "{stale:?}");
    }

    const LEAK: &str = "### File handle leaks on the error path\n\n**Medium Severity**\n\nThe early return skips `close`.";

    #[test]
    fn human_first_threads_get_no_signals_but_count_for_convergence() {
        let p = pr(vec![
            thread("t1", "a.rs", 10, vec![bot("cursor", LEAK)]),
            thread(
                "t2",
                "a.rs",
                11,
                vec![comment(
                    "bob",
                    AuthorKind::User,
                    "The file handle leaks on the error path, I think.",
                )],
            ),
        ]);
        let set = analyze(&p, &AutomationSettings::default());
        assert_eq!(set.threads.len(), 1);
        assert!(set.threads.contains_key(&ThreadId::from("t1")));
        assert_eq!(set.clusters.len(), 1);
        assert!(set.clusters[0].convergent);
    }

    #[test]
    fn two_bots_posting_the_same_suggestion_on_the_same_line_are_one_finding() {
        let rabbit = "_⚠️ Potential issue_ | _🟠 Major_\n\n**Guard the empty slice.**\n\n```suggestion\n    let Some(first) = parts.first() else { return None };\n```";
        let gemini = "![high](https://www.gstatic.com/codereviewagent/high-priority.svg)\n\nIndexing `parts[0]` panics on an empty header line.\n\n```suggestion\n    let Some(first)  =  parts.first() else { return None };\n```";
        let p = pr(vec![
            thread("t1", "a.rs", 10, vec![bot("coderabbitai", rabbit)]),
            thread("t2", "a.rs", 10, vec![bot("gemini-code-assist", gemini)]),
            thread(
                "t3",
                "a.rs",
                30,
                vec![bot(
                    "gemini-code-assist",
                    &gemini.replace("Indexing `parts[0]` panics", "The trailer parser panics"),
                )],
            ),
        ]);
        let set = analyze(&p, &AutomationSettings::default());
        assert_eq!(set.clusters.len(), 1, "{:?}", set.clusters);
        assert_eq!(
            set.clusters[0].threads,
            [ThreadId::from("t1"), ThreadId::from("t2")],
            "the same suggestion elsewhere in the file is another finding"
        );
        assert!(set.clusters[0].convergent);
    }

    #[test]
    fn summaries_and_notices_join_no_cluster() {
        let summary = "<h3>Greptile Summary</h3>\n\nAdds exports.";
        let p = pr(vec![
            thread("t1", "a.rs", 10, vec![bot("greptile-apps", summary)]),
            thread("t2", "a.rs", 10, vec![bot("greptile-apps", summary)]),
        ]);
        let set = analyze(&p, &AutomationSettings::default());
        assert!(set.clusters.is_empty(), "{:?}", set.clusters);
        assert_eq!(set.threads.len(), 2);
    }

    #[test]
    fn one_tool_under_two_logins_is_not_convergent() {
        let body = "The loop bound skips the last element, an off-by-one.\n```suggestion\nfor i in 0..=n {\n```";
        let p = pr(vec![
            thread("t1", "a.rs", 10, vec![bot("Copilot", body)]),
            thread(
                "t2",
                "a.rs",
                10,
                vec![bot("copilot-pull-request-reviewer", body)],
            ),
        ]);
        let set = analyze(&p, &AutomationSettings::default());
        assert_eq!(set.clusters.len(), 1);
        assert!(!set.clusters[0].convergent);
    }

    #[test]
    fn a_later_bot_reply_marks_the_finding_addressed() {
        let p = pr(vec![
            thread(
                "t1",
                "a.rs",
                10,
                vec![
                    bot("cursor", LEAK),
                    bot("cursor", "This has been fixed in the latest commit."),
                ],
            ),
            thread(
                "t2",
                "b.rs",
                10,
                vec![
                    bot("cursor", LEAK),
                    comment("bob", AuthorKind::User, "✅ Addressed in commit abcdef1"),
                ],
            ),
        ]);
        let set = analyze(&p, &AutomationSettings::default());
        assert!(set.threads[&ThreadId::from("t1")].already_addressed);
        // A person's reply is not the bot's word (and makes the thread human anyway).
        assert!(!set.threads[&ThreadId::from("t2")].already_addressed);
    }

    #[test]
    fn resolved_threads_are_skipped_and_outdated_ones_are_not_clustered() {
        let mut resolved = thread("t1", "a.rs", 10, vec![bot("cursor", LEAK)]);
        resolved.is_resolved = true;
        let mut outdated = thread("t2", "a.rs", 10, vec![bot("cursor", LEAK)]);
        outdated.is_outdated = true;
        outdated.lines = None;
        let current = thread("t3", "a.rs", 10, vec![bot("cursor", LEAK)]);
        let set = analyze(
            &pr(vec![resolved, outdated, current]),
            &AutomationSettings::default(),
        );
        assert_eq!(set.threads.len(), 2);
        assert!(!set.threads.contains_key(&ThreadId::from("t1")));
        assert!(set.clusters.is_empty());
    }

    #[test]
    fn qa_comments_use_the_configured_header() {
        let settings = AutomationSettings {
            header: "[qa-bot]".to_owned(),
            ..AutomationSettings::default()
        };
        let body = "[qa-bot] posted this\n\n**Severity: CRITICAL**\n\nSecrets written to the log.";
        let p = pr(vec![thread(
            "t1",
            "a.rs",
            3,
            vec![comment("alice", AuthorKind::User, body)],
        )]);
        let set = analyze(&p, &settings);
        let s = &set.threads[&ThreadId::from("t1")];
        assert_eq!(s.family.as_deref(), Some("qa"));
        assert!(s.format_known);
        assert_eq!(s.severity, Severity::Critical);
        assert_eq!(s.title, "Secrets written to the log");
    }

    #[test]
    fn unknown_bots_are_read_as_unknown() {
        let p = pr(vec![thread(
            "t1",
            "a.rs",
            3,
            vec![bot("some-linter", "CRITICAL: this is the worst code ever")],
        )]);
        let s = &analyze(&p, &AutomationSettings::default()).threads[&ThreadId::from("t1")];
        assert_eq!(s.family, None);
        assert!(!s.format_known);
        assert!(!s.severity.is_high());
    }
}
