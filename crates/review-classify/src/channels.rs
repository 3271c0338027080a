//! How each review bot behaves on its own channel: whether it reads replies in its threads,
//! whether it resolves its own threads once a push fixes the finding, the comment (or review
//! request) that asks it to review again, its resolve command, and whether reactions teach it.
//!
//! Every cell is a [`Known`]: [`Known::Verified`] when a public source (the bot's own
//! documentation, as a rule) says so, [`Known::Unverified`] when it is what we believe without
//! such a source, [`Known::Unknown`] when we do not know. The sources, the dates they were read
//! and the reasons behind every unverified belief are in `docs/bot-channels.md`, one row per
//! family; the tests below hold this table and that document to each other.
//!
//! How the tool is meant to use it (planned): where a bot does not read replies, a thread is
//! resolved without a reply; where the bot resolves its own fixed threads, the tool does not
//! reply as well; a re-review command is sent at most once per head commit, and only with the
//! user's consent. A re-review command is text to post as the user, never something a comment
//! body asked for.
//!
//! ```
//! use review_classify::channels::{Known, RereviewKind, channel};
//! use review_classify::Family;
//!
//! // Copilot code review does not see replies: resolve its threads without answering.
//! assert_eq!(channel(Family::Copilot).reads_replies, Known::Verified(false));
//! // Its re-review is a review request, not a comment.
//! let rereview = channel(Family::Copilot).rereview.unwrap();
//! assert_eq!(rereview.command, RereviewKind::ReviewRequest);
//!
//! // A bot this build knows nothing about: nothing is assumed, nothing is sent.
//! let other = channel(Family::OtherBot);
//! assert_eq!(other.reads_replies, Known::Unknown);
//! assert!(other.rereview.is_none() && other.resolve_command.is_none());
//! ```

use crate::Family;

use Known::{Unknown, Unverified, Verified};

/// A fact about a bot, and how sure we are of it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Known<T> {
    /// A public source says so (listed with its date in `docs/bot-channels.md`).
    Verified(T),
    /// What we believe without a source; `docs/bot-channels.md` says why.
    Unverified(T),
    /// Not known either way.
    Unknown,
}

impl<T: Copy> Known<T> {
    /// The value, sourced or believed; `None` when unknown.
    pub fn value(self) -> Option<T> {
        match self {
            Self::Verified(v) | Self::Unverified(v) => Some(v),
            Self::Unknown => None,
        }
    }

    /// The value only when a source backs it.
    pub fn verified(self) -> Option<T> {
        match self {
            Self::Verified(v) => Some(v),
            Self::Unverified(_) | Self::Unknown => None,
        }
    }

    /// Whether a source backs the value.
    pub fn is_verified(self) -> bool {
        matches!(self, Self::Verified(_))
    }
}

/// How a bot is asked to review again.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum RereviewKind {
    /// Post this text as a pull-request (issue) comment.
    Comment {
        /// The command, one line, exactly as the bot documents it.
        text: &'static str,
        /// Whether the command must open the comment. When the source does not say, this is
        /// `true`: posting the command as a comment of its own works either way.
        must_start_comment: bool,
    },
    /// Request a review from the bot (the reviewers menu, or the API's review request).
    ReviewRequest,
}

/// The documented way to ask a bot for another review.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Rereview {
    /// What to send.
    pub command: RereviewKind,
    /// Whether a public source documents this command (see `docs/bot-channels.md`).
    pub verified: bool,
}

/// How a bot behaves on its own review threads.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Channel {
    /// A reply posted in one of the bot's threads reaches the bot: it may answer it, or it
    /// reads it as context for its next review. Some bots need to be mentioned in the reply
    /// (`docs/bot-channels.md` says which); the tool's own replies should not mention a bot
    /// unless they mean to start it working.
    pub reads_replies: Known<bool>,
    /// The bot marks its own review threads resolved (or removes them) once a later commit
    /// fixes the finding.
    pub resolves_fixed_threads: Known<bool>,
    /// How to ask for another review, when the bot has a way.
    pub rereview: Option<Rereview>,
    /// A comment that makes the bot resolve its own open threads on the pull request. Only
    /// documented commands are listed, so this is always sourced.
    pub resolve_command: Option<&'static str>,
    /// 👍 / 👎 reactions on the bot's comments change what it comments on later.
    pub learns_from_reactions: Known<bool>,
}

impl Channel {
    /// A bot nothing is known about: every cell [`Known::Unknown`], no command.
    pub const UNKNOWN: Self = Self {
        reads_replies: Unknown,
        resolves_fixed_threads: Unknown,
        rereview: None,
        resolve_command: None,
        learns_from_reactions: Unknown,
    };
}

/// A re-review comment documented by a source.
const fn comment(text: &'static str, must_start_comment: bool) -> Option<Rereview> {
    Some(Rereview {
        command: RereviewKind::Comment {
            text,
            must_start_comment,
        },
        verified: true,
    })
}

/// A re-review comment we believe works, without a source.
const fn believed_comment(text: &'static str, must_start_comment: bool) -> Option<Rereview> {
    Some(Rereview {
        command: RereviewKind::Comment {
            text,
            must_start_comment,
        },
        verified: false,
    })
}

/// How `family` behaves on its own channel. Sources and reasons: `docs/bot-channels.md`.
///
/// [`Family::QaHeader`] and [`Family::OtherBot`] (and any bot whose behaviour is not known)
/// get [`Channel::UNKNOWN`]: every cell unknown, no command to send.
pub fn channel(family: Family) -> Channel {
    match family {
        Family::CodeRabbit => Channel {
            reads_replies: Verified(true),
            resolves_fixed_threads: Unverified(true),
            rereview: comment("@coderabbitai review", true),
            resolve_command: Some("@coderabbitai resolve"),
            learns_from_reactions: Unverified(false),
        },
        Family::Copilot => Channel {
            reads_replies: Verified(false),
            resolves_fixed_threads: Unverified(false),
            rereview: Some(Rereview {
                command: RereviewKind::ReviewRequest,
                verified: true,
            }),
            resolve_command: None,
            learns_from_reactions: Unverified(false),
        },
        Family::Gemini => Channel {
            reads_replies: Verified(true),
            resolves_fixed_threads: Unverified(false),
            rereview: comment("/gemini review", true),
            resolve_command: None,
            learns_from_reactions: Unverified(false),
        },
        Family::Codex => Channel {
            reads_replies: Unverified(false),
            resolves_fixed_threads: Unverified(false),
            rereview: comment("@codex review", true),
            resolve_command: None,
            learns_from_reactions: Unverified(false),
        },
        Family::Cursor => Channel {
            reads_replies: Verified(true),
            resolves_fixed_threads: Unverified(false),
            rereview: comment("bugbot run", true),
            resolve_command: None,
            learns_from_reactions: Unknown,
        },
        Family::Greptile => Channel {
            reads_replies: Verified(true),
            resolves_fixed_threads: Unverified(true),
            rereview: comment("@greptileai", true),
            resolve_command: None,
            learns_from_reactions: Verified(true),
        },
        Family::Sourcery => Channel {
            reads_replies: Verified(true),
            resolves_fixed_threads: Unverified(false),
            rereview: comment("@sourcery-ai review", true),
            resolve_command: Some("@sourcery-ai resolve"),
            learns_from_reactions: Unknown,
        },
        Family::Qodo => Channel {
            reads_replies: Verified(true),
            resolves_fixed_threads: Unverified(false),
            rereview: comment("/review", true),
            resolve_command: None,
            learns_from_reactions: Unknown,
        },
        Family::Claude => Channel {
            reads_replies: Verified(true),
            resolves_fixed_threads: Unverified(false),
            rereview: believed_comment("@claude review once", true),
            resolve_command: None,
            learns_from_reactions: Unknown,
        },
        Family::Bito => Channel {
            reads_replies: Verified(true),
            resolves_fixed_threads: Unknown,
            rereview: comment("/review", true),
            // `/resolve` exists, but its documentation limits it to GitLab and Bitbucket.
            resolve_command: None,
            learns_from_reactions: Unknown,
        },
        Family::Cubic => Channel {
            reads_replies: Verified(true),
            resolves_fixed_threads: Unknown,
            rereview: believed_comment("@cubic-dev-ai review", false),
            resolve_command: None,
            learns_from_reactions: Verified(true),
        },
        Family::Kilo => Channel {
            reads_replies: Unverified(false),
            resolves_fixed_threads: Unknown,
            rereview: None,
            resolve_command: None,
            learns_from_reactions: Unknown,
        },
        Family::CodeQl => Channel {
            reads_replies: Unverified(false),
            resolves_fixed_threads: Verified(true),
            rereview: None,
            resolve_command: None,
            learns_from_reactions: Unverified(false),
        },
        Family::AmazonQ => Channel {
            reads_replies: Verified(true),
            resolves_fixed_threads: Unknown,
            rereview: comment("/q review", true),
            resolve_command: None,
            learns_from_reactions: Unknown,
        },
        Family::Jules => Channel {
            reads_replies: Unverified(true),
            ..Channel::UNKNOWN
        },
        Family::Vercel | Family::SonarQube => Channel {
            reads_replies: Unverified(false),
            resolves_fixed_threads: Unverified(false),
            rereview: None,
            resolve_command: None,
            learns_from_reactions: Unverified(false),
        },
        Family::Korbit => Channel {
            reads_replies: Unverified(true),
            resolves_fixed_threads: Unknown,
            rereview: comment("/korbit-review", true),
            resolve_command: None,
            learns_from_reactions: Unknown,
        },
        Family::CodeAnt | Family::DeepSource | Family::QaHeader | Family::OtherBot => {
            Channel::UNKNOWN
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The document the table's sources live in.
    const DOC: &str = include_str!("../../../docs/bot-channels.md");

    /// The cells of `family`'s row in the document's table (the row whose second cell is the
    /// family key in backticks), without the leading and trailing empty cells.
    fn row(family: Family) -> Vec<&'static str> {
        let key = format!("`{}`", family.as_str());
        let rows: Vec<Vec<&str>> = DOC
            .lines()
            .filter(|l| l.starts_with('|'))
            .map(|l| l.split('|').map(str::trim).collect::<Vec<_>>())
            .filter(|cells| cells.get(2) == Some(&key.as_str()))
            .collect();
        assert_eq!(
            rows.len(),
            1,
            "{family}: exactly one row in docs/bot-channels.md"
        );
        let cells = &rows[0];
        assert_eq!(
            cells.len(),
            9,
            "{family}: 7 cells between the pipes: {cells:?}"
        );
        cells[1..8].to_vec()
    }

    /// The reference labels a cell uses: `[label]` not followed by `(`.
    fn references(cell: &str) -> Vec<&str> {
        let mut labels = Vec::new();
        let mut rest = cell;
        while let Some(open) = rest.find('[') {
            let after = &rest[open + 1..];
            let Some(close) = after.find(']') else { break };
            if !after[close + 1..].starts_with('(') {
                labels.push(&after[..close]);
            }
            rest = &after[close + 1..];
        }
        labels
    }

    /// The URL a reference label is defined with (`[label]: https://... "..."`).
    fn definition(label: &str) -> Option<&'static str> {
        let prefix = format!("[{label}]: ");
        DOC.lines()
            .find_map(|l| l.strip_prefix(prefix.as_str()))
            .map(|rest| rest.split_whitespace().next().unwrap_or(""))
    }

    /// A cell backed by at least one source that the document defines.
    fn assert_sourced(family: Family, what: &str, cell: &str) {
        let labels = references(cell);
        assert!(!labels.is_empty(), "{family} {what}: no source in {cell:?}");
        for label in labels {
            let url = definition(label)
                .unwrap_or_else(|| panic!("{family} {what}: [{label}] is not defined"));
            assert!(url.starts_with("https://"), "{family} [{label}]: {url}");
        }
    }

    fn assert_cell(family: Family, what: &str, known: Known<bool>, cell: &str) {
        let word = |v: bool| if v { "yes" } else { "no" };
        match known {
            Verified(v) => {
                assert!(cell.starts_with(word(v)), "{family} {what}: {cell:?}");
                assert!(!cell.contains("unverified"), "{family} {what}: {cell:?}");
                assert_sourced(family, what, cell);
            }
            Unverified(v) => {
                assert!(cell.starts_with(word(v)), "{family} {what}: {cell:?}");
                assert!(cell.contains("unverified"), "{family} {what}: {cell:?}");
            }
            Unknown => assert_eq!(cell, "unknown", "{family} {what}"),
        }
    }

    #[test]
    fn every_named_tool_has_a_row_that_matches_the_table() {
        for family in Family::ALL.into_iter().filter(|f| f.is_named_tool()) {
            let c = channel(family);
            let cells = row(family);
            assert_cell(family, "reads replies", c.reads_replies, cells[2]);
            assert_cell(family, "resolves", c.resolves_fixed_threads, cells[3]);
            assert_cell(family, "reactions", c.learns_from_reactions, cells[6]);

            let rereview = cells[4];
            match c.rereview {
                None => assert_eq!(rereview, "none", "{family} re-review"),
                Some(r) => {
                    match r.command {
                        RereviewKind::Comment {
                            text,
                            must_start_comment,
                        } => {
                            assert!(rereview.contains(&format!("`{text}`")), "{family}");
                            let place = if must_start_comment {
                                "own comment"
                            } else {
                                "anywhere"
                            };
                            assert!(rereview.contains(place), "{family}: {rereview:?}");
                        }
                        RereviewKind::ReviewRequest => {
                            assert!(rereview.starts_with("review request"), "{family}");
                        }
                    }
                    if r.verified {
                        assert!(!rereview.contains("unverified"), "{family}: {rereview:?}");
                        assert_sourced(family, "re-review", rereview);
                    } else {
                        assert!(rereview.contains("unverified"), "{family}: {rereview:?}");
                    }
                }
            }

            let resolve = cells[5];
            match c.resolve_command {
                None => assert_eq!(resolve, "none", "{family} resolve command"),
                Some(cmd) => {
                    assert!(
                        resolve.contains(&format!("`{cmd}`")),
                        "{family}: {resolve:?}"
                    );
                    assert_sourced(family, "resolve command", resolve);
                }
            }
        }
    }

    #[test]
    fn the_document_lists_no_family_the_enum_lacks() {
        let keys: Vec<String> = Family::ALL
            .iter()
            .filter(|f| f.is_named_tool())
            .map(|f| format!("`{}`", f.as_str()))
            .collect();
        let table_rows = DOC
            .lines()
            .filter(|l| l.starts_with("| ") && !l.starts_with("| Family"))
            .map(|l| l.split('|').map(str::trim).nth(2).unwrap_or(""))
            .filter(|key| key.starts_with('`'))
            .collect::<Vec<_>>();
        for key in &table_rows {
            assert!(keys.iter().any(|k| k == key), "unknown family row {key}");
        }
        assert_eq!(table_rows.len(), keys.len());
    }

    #[test]
    fn every_source_is_an_https_link_with_a_reading_date() {
        let definitions: Vec<&str> = DOC
            .lines()
            .filter(|l| l.starts_with('[') && l.contains("]: "))
            .collect();
        assert!(definitions.len() >= 10, "{}", definitions.len());
        for line in definitions {
            let (_, rest) = line.split_once("]: ").unwrap();
            assert!(rest.starts_with("https://"), "{line}");
            assert!(rest.contains("2026-"), "{line}: say when it was read");
        }
    }

    #[test]
    fn commands_are_single_trimmed_lines() {
        for family in Family::ALL {
            let c = channel(family);
            let mut commands = Vec::new();
            if let Some(Rereview {
                command: RereviewKind::Comment { text, .. },
                ..
            }) = c.rereview
            {
                commands.push(text);
            }
            commands.extend(c.resolve_command);
            for cmd in commands {
                assert!(!cmd.is_empty(), "{family}");
                assert_eq!(cmd, cmd.trim(), "{family}");
                assert!(!cmd.contains(['\n', '\r']), "{family}: {cmd:?}");
            }
        }
    }

    #[test]
    fn only_mentions_may_sit_anywhere_in_a_comment() {
        // A slash command is read only at the start of a comment; a command allowed anywhere
        // must be a mention of the bot.
        for family in Family::ALL {
            if let Some(Rereview {
                command:
                    RereviewKind::Comment {
                        text,
                        must_start_comment,
                    },
                ..
            }) = channel(family).rereview
            {
                if text.starts_with('/') {
                    assert!(must_start_comment, "{family}: {text}");
                }
                if !must_start_comment {
                    assert!(text.starts_with('@'), "{family}: {text}");
                }
            }
        }
    }

    #[test]
    fn a_resolve_command_mentions_the_same_handle_as_the_rereview() {
        for family in Family::ALL {
            let c = channel(family);
            let (Some(resolve), Some(Rereview { command, .. })) = (c.resolve_command, c.rereview)
            else {
                continue;
            };
            let RereviewKind::Comment { text, .. } = command else {
                panic!("{family}: a resolve comment but a review-request re-review");
            };
            let handle = |s: &'static str| s.split_whitespace().next().unwrap_or("");
            assert!(handle(resolve).starts_with('@'), "{family}: {resolve}");
            assert_eq!(handle(resolve), handle(text), "{family}");
        }
    }

    #[test]
    fn hosts_and_unknown_bots_assume_nothing() {
        for family in [Family::QaHeader, Family::OtherBot] {
            assert_eq!(channel(family), Channel::UNKNOWN, "{family}");
        }
    }

    #[test]
    fn no_two_bots_share_a_mention_handle() {
        // A handle names one bot: sending one bot's command must not start another.
        let mut handles: Vec<(&str, Family)> = Vec::new();
        for family in Family::ALL {
            if let Some(Rereview {
                command: RereviewKind::Comment { text, .. },
                ..
            }) = channel(family).rereview
            {
                let handle = text.split_whitespace().next().unwrap_or("");
                if handle.starts_with('@') {
                    if let Some((_, other)) = handles.iter().find(|(h, _)| *h == handle) {
                        panic!("{family} and {other} share {handle}");
                    }
                    handles.push((handle, family));
                }
            }
        }
    }

    #[test]
    fn known_accessors() {
        assert_eq!(Verified(true).value(), Some(true));
        assert_eq!(Unverified(false).value(), Some(false));
        assert_eq!(Known::<bool>::Unknown.value(), None);
        assert_eq!(Verified(false).verified(), Some(false));
        assert_eq!(Unverified(true).verified(), None);
        assert!(Verified(true).is_verified());
        assert!(!Unverified(true).is_verified());
    }

    #[test]
    fn copilot_alone_is_asked_by_review_request() {
        for family in Family::ALL {
            let by_request = matches!(
                channel(family).rereview,
                Some(Rereview {
                    command: RereviewKind::ReviewRequest,
                    ..
                })
            );
            assert_eq!(by_request, family == Family::Copilot, "{family}");
        }
    }
}
