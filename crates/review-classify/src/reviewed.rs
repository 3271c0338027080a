//! The commit a bot's review or summary says it reviewed, and whether that makes it stale.
//!
//! Bots name the commit in their own words: CodeRabbit "Reviewed everything up to SHA" and
//! "between SHA and SHA" (the later one counts), Cursor Bugbot "Reviewed by Cursor Bugbot
//! for commit SHA", Codex "**Reviewed commit:** `SHA`", Greptile "Last reviewed commit:
//! [message](.../commit/SHA)", Qodo "updated to latest commit SHA" or "until commit SHA",
//! Bito "Commit Range: a..b" (the later one), the triage workflow's "reviewing commit SHA" and
//! "in SHA" (the word right after "in", and only it), and any `/commit/SHA` link as a last
//! resort.

use review_core::model::CommitId;

/// Phrases after which the reviewed commit is named, in the order they are tried, and whether
/// the phrase names a range whose end is the commit.
const MARKERS: &[(&str, Range)] = &[
    ("reviewed everything up to", Range::One),
    ("reviewed by cursor bugbot for commit", Range::One),
    ("reviewed commit:", Range::One),
    ("last reviewed commit:", Range::One),
    ("updated to latest commit", Range::One),
    ("until commit", Range::One),
    ("commit range:", Range::DotDot),
    ("between", Range::BetweenAnd),
    // The workflow's own patterns: "reviewing commit <sha>", "in <sha>".
    ("reviewing commit", Range::One),
    ("in", Range::Next),
];

/// How a marker names the commit.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Range {
    /// The first commit after the marker.
    One,
    /// `a..b` (or `a...b`): `b`.
    DotDot,
    /// `a and b`: `b`.
    BetweenAnd,
    /// The very next word, and only it (for a marker as short as "in").
    Next,
}

/// How many words after a marker may hold the commit.
const WINDOW: usize = 4;

/// A commit id in a word: a bare hex id (7 to 40 digits, with at least one decimal digit), or
/// the id at the end of a `/commit/<sha>` link.
fn sha_in(word: &str) -> Option<&str> {
    if let Some(at) = word.rfind("/commit/") {
        return word.get(at + "/commit/".len()..).and_then(leading_sha);
    }
    let trimmed = word.trim_start_matches(|c: char| !c.is_ascii_alphanumeric());
    leading_sha(trimmed).filter(|sha| {
        // The whole word is the id, up to punctuation.
        trimmed
            .get(sha.len()..)
            .is_none_or(|rest| !rest.starts_with(|c: char| c.is_ascii_alphanumeric()))
    })
}

/// The hex id at the start of `s`, if it is one.
fn leading_sha(s: &str) -> Option<&str> {
    let len = s.bytes().take_while(u8::is_ascii_hexdigit).count();
    let sha = s.get(..len)?;
    let bounded = s
        .get(len..)
        .is_none_or(|rest| !rest.starts_with(|c: char| c.is_ascii_alphanumeric()));
    ((7..=40).contains(&len) && bounded && sha.bytes().any(|b| b.is_ascii_digit())).then_some(sha)
}

/// Splits text after a marker into words, with markdown link syntax turned into spaces so
/// `[msg](url)` gives the url as a word of its own.
fn words(text: &str) -> impl Iterator<Item = &str> {
    text.split(|c: char| c.is_whitespace() || matches!(c, '(' | ')' | '[' | ']' | '<' | '>' | '"'))
        .filter(|w| !w.is_empty())
}

/// The commit named right after a marker, per its [`Range`].
fn after_marker(rest: &str, range: Range) -> Option<&str> {
    match range {
        Range::One => words(rest).take(WINDOW).find_map(sha_in),
        Range::Next => words(rest).next().and_then(sha_in),
        Range::DotDot => {
            let word = words(rest).take(WINDOW).find(|w| w.contains(".."))?;
            let (_, end) = word.rsplit_once("..")?;
            sha_in(end.trim_start_matches('.'))
        }
        Range::BetweenAnd => {
            let mut ws = words(rest);
            sha_in(ws.next()?)?;
            if !ws.next()?.eq_ignore_ascii_case("and") {
                return None;
            }
            sha_in(ws.next()?)
        }
    }
}

/// The first `/commit/<sha>` link of a line.
fn commit_link(raw: &str) -> Option<&str> {
    words(raw)
        .filter(|w| w.contains("/commit/"))
        .find_map(sha_in)
}

/// A line as the markers are matched: links reduced to their text, tags removed, and
/// emphasis and code ticks turned into spaces.
fn normal(raw: &str) -> String {
    let (clean, _) = crate::doc::clean_inline(raw, 0);
    clean
        .chars()
        .map(|c| if matches!(c, '*' | '`' | '_') { ' ' } else { c })
        .collect()
}

/// The commit a bot's review body or summary comment says it reviewed, as written (a full or
/// abbreviated hex id, lower case).
///
/// Returns `None` when the body names no reviewed commit.
///
/// ```
/// use review_classify::reviewed_commit;
///
/// let body = "Reviewing files that changed from the base of the PR and between \
///             0d91e7a4c2 and 3b8f1d0c6e.";
/// assert_eq!(reviewed_commit(body).as_deref(), Some("3b8f1d0c6e"));
/// assert_eq!(reviewed_commit("**Reviewed commit:** `9c4e2b7`").as_deref(), Some("9c4e2b7"));
/// assert_eq!(reviewed_commit("Looks good to me."), None);
/// ```
pub fn reviewed_commit(body: &str) -> Option<String> {
    let lines: Vec<(String, &str)> = body.lines().map(|raw| (normal(raw), raw)).collect();
    for &(marker, range) in MARKERS {
        for (clean, raw) in &lines {
            let lower = clean.to_ascii_lowercase();
            let mut from = 0;
            while let Some(at) = lower.get(from..).and_then(|s| s.find(marker)) {
                let start = from + at + marker.len();
                let begin = from + at;
                from = start;
                // A marker is a word of its own: "in" is not the end of "within".
                let bounded = lower
                    .get(..begin)
                    .and_then(|b| b.chars().last())
                    .is_none_or(|c| !c.is_alphanumeric())
                    && lower
                        .get(start..)
                        .and_then(|a| a.chars().next())
                        .is_none_or(|c| !c.is_alphanumeric());
                if !bounded {
                    continue;
                }
                let named = clean
                    .get(start..)
                    .and_then(|rest| after_marker(rest, range))
                    // A link's text may be a commit message; its target names the commit.
                    .or_else(|| (range == Range::One).then(|| commit_link(raw)).flatten());
                if let Some(sha) = named {
                    return Some(sha.to_ascii_lowercase());
                }
            }
        }
    }
    lines
        .iter()
        .rev()
        .find_map(|(_, raw)| {
            words(raw)
                .filter(|w| w.contains("/commit/"))
                .filter_map(sha_in)
                .last()
        })
        .map(str::to_ascii_lowercase)
}

/// Whether a bot's review or summary is stale: it names a reviewed commit (see
/// [`reviewed_commit`]) that is not the PR's `head` (compared as a prefix, ignoring ASCII
/// case, so an abbreviated id matches). A body that names no commit is not stale.
///
/// ```
/// use review_classify::is_stale;
/// use review_core::model::CommitId;
///
/// let head = CommitId::from("9c4e2b7a1f03d58e6b2c91a7f4d0e3b58a6c2f19");
/// assert!(!is_stale("Reviewed everything up to 9c4e2b7.", &head));
/// assert!(is_stale("Reviewed everything up to 3b8f1d0.", &head));
/// assert!(!is_stale("No commit named here.", &head));
/// ```
pub fn is_stale(body: &str, head: &CommitId) -> bool {
    let Some(named) = reviewed_commit(body) else {
        return false;
    };
    let head = head.0.trim().to_ascii_lowercase();
    if head.is_empty() {
        return false;
    }
    !(head.starts_with(&named) || named.starts_with(&head))
}

#[cfg(test)]
mod tests {
    use super::*;

    const FULL: &str = "5b9d0e3f1c2a7b8e4d6f0a1c3e5b7d9f2a4c6e8b";

    #[test]
    fn every_family_s_wording() {
        let cases = [
            (
                "Reviewed everything up to 5b9d0e3 in 1 minute and 12 seconds",
                "5b9d0e3",
            ),
            (
                "Reviewing files that changed from the base of the PR and between 0d91e7a4c2b85f3e6a1d9c07b4e2f8a5d3c6b190 and 3b8f1d0c6e2a47b9f5c1d83e0a6b4f27c9e15d02.",
                "3b8f1d0c6e2a47b9f5c1d83e0a6b4f27c9e15d02",
            ),
            (
                "<sup>Reviewed by [Cursor Bugbot](https://cursor.com/bugbot) for commit 5b9d0e3f1c2a7b8e4d6f0a1c3e5b7d9f2a4c6e8b. Configure [here](https://x).</sup>",
                FULL,
            ),
            ("**Reviewed commit:** `3b8f1d0c6e`", "3b8f1d0c6e"),
            (
                "<sub>Last reviewed commit: [Add CSV writer and export limits](https://github.com/acme/widgets/commit/5b9d0e3f1c2a7b8e4d6f0a1c3e5b7d9f2a4c6e8b)</sub>",
                FULL,
            ),
            (
                "**[Persistent review](https://x)** updated to latest commit https://github.com/acme/api/commit/77e6d5c4b3a291807f6e5d4c3b2a190817263544",
                "77e6d5c4b3a291807f6e5d4c3b2a190817263544",
            ),
            ("Review updated until commit a1b2c3d", "a1b2c3d"),
            ("Greptile is reviewing commit 4c5b6a7 now.", "4c5b6a7"),
            ("Found 2 issues in 3b8f1d0c6e.", "3b8f1d0c6e"),
            (
                "**Code Review Agent Run #8c1f2a**\n\n- Commit Range: `0f1e2d3..4c5b6a7`\n- Files: 3",
                "4c5b6a7",
            ),
            (
                "See [the fix](https://github.com/acme/api/commit/abc1234) and [this one](https://github.com/acme/api/commit/def5678).",
                "def5678",
            ),
        ];
        for (body, want) in cases {
            assert_eq!(reviewed_commit(body).as_deref(), Some(want), "{body}");
        }
    }

    #[test]
    fn prose_is_not_a_commit() {
        for body in [
            "The difference between the old and the new parser is small.",
            "Reviewed everything up to the last push.",
            "Commit range: not available",
            "between deadbeef and cafebabe",
            "",
            "/commit/",
            "between 1234567",
            "Found in the main loop 1234567 times.",
            "within 1234567 ms",
            "in 2026 we moved",
        ] {
            assert_eq!(reviewed_commit(body), None, "{body}");
        }
    }

    #[test]
    fn staleness_is_a_prefix_match_of_head() {
        let head = CommitId::from(FULL);
        assert!(!is_stale("Reviewed everything up to 5B9D0E3.", &head));
        assert!(!is_stale(&format!("for commit {FULL}"), &head));
        assert!(is_stale("between 5b9d0e3 and 0a1b2c3", &head));
        assert!(!is_stale("between 0a1b2c3 and 5b9d0e3", &head));
        assert!(!is_stale("Nothing named.", &head));
        assert!(!is_stale(
            "Reviewed everything up to 5b9d0e3",
            &CommitId::from("")
        ));
    }
}
