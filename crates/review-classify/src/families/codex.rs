//! Codex: a bold first line holding a shields.io priority badge and the title
//! (`**<sub><sub>![P1 Badge](https://img.shields.io/badge/P1-orange?style=flat)</sub></sub> Title**`),
//! then prose, ending with "Useful? React with 👍 / 👎."

use review_core::signals::{NonFinding, Severity};

use super::Reading;
use crate::Family;
use crate::doc::Doc;
use crate::severity::stated;

/// The priority of a badge image: alt `P1 Badge` or a shields.io `badge/P1-...` source.
fn priority(alt: &str, src: &str) -> Option<Severity> {
    let from_alt = alt
        .split_whitespace()
        .next()
        .filter(|_| alt.to_ascii_lowercase().contains("badge"));
    let from_src = src
        .to_ascii_lowercase()
        .split_once("shields.io/badge/")
        .and_then(|(_, rest)| rest.split(['-', '?', '/']).next().map(str::to_owned));
    from_alt
        .and_then(|p| stated(Family::Codex, p))
        .or_else(|| from_src.and_then(|p| stated(Family::Codex, &p)))
}

fn badge(doc: &Doc) -> Option<(usize, Severity)> {
    doc.images
        .iter()
        .find_map(|img| priority(&img.alt, &img.src).map(|sev| (img.line, sev)))
}

/// Whether the body is Codex's.
pub(crate) fn detect(doc: &Doc, _lower: &str) -> bool {
    badge(doc).is_some()
}

/// Codex's posts that are not findings: the review body ("Codex Review", with the reviewed
/// commit), the clean verdict ("Didn't find any major issues") and usage-limit notices.
fn non_finding(doc: &Doc, lower: &str) -> Option<(NonFinding, &'static str)> {
    let first = doc
        .nonempty()
        .next()
        .map(|(i, _)| doc.plain_of(i).to_lowercase())?;
    if lower.contains("codex usage limits") || lower.contains("usage limits have been reached") {
        return Some((NonFinding::Notice, "Codex's usage-limit notice"));
    }
    if lower.contains("didn't find any major issues")
        || lower.contains("didn’t find any major issues")
    {
        return Some((NonFinding::Summary, "Codex's clean review"));
    }
    let heading = first.trim_start_matches(|c: char| !c.is_alphanumeric());
    heading
        .starts_with("codex review")
        .then_some((NonFinding::Summary, "Codex's review body"))
}

/// Reads a Codex finding, review body or notice.
pub(crate) fn read(doc: &Doc, lower: &str) -> Reading {
    match badge(doc) {
        Some(found) => Reading::from_badge(doc, Some(found)),
        None => match non_finding(doc, lower) {
            Some((kind, why)) => Reading::non_finding(doc, kind, why),
            None => Reading::default(),
        },
    }
}

#[cfg(test)]
mod tests {
    use review_core::signals::{Concreteness, Severity};

    use crate::Family;
    use crate::families::fixture::read;

    fn body(p: &str, color: &str) -> String {
        format!(
            "**<sub><sub>![{p} Badge](https://img.shields.io/badge/{p}-{color}?style=flat)</sub></sub>  Reject negative page sizes**\n\n`page_size` is cast to `usize` after parsing, so `-1` wraps to a huge allocation.\n\nUseful? React with 👍 / 👎."
        )
    }

    #[test]
    fn shields_badges() {
        for (p, color, want) in [
            ("P0", "red", Severity::Critical),
            ("P1", "orange", Severity::High),
            ("P2", "yellow", Severity::Medium),
            ("P3", "green", Severity::Low),
        ] {
            let f = read(Family::Codex, &body(p, color));
            assert!(f.format_known);
            assert_eq!(f.severity, want, "{p}");
            assert_eq!(f.title, "Reject negative page sizes");
            // A title that says what to change, in plain words, names the fix.
            assert_eq!(f.concreteness, Concreteness::Exact);
            assert!(f.why["concreteness"].starts_with("the title says what to change"));
        }
    }

    #[test]
    fn badge_without_alt_reads_the_source() {
        let b = "**![](https://img.shields.io/badge/P1-orange?style=flat) Close the file handle**";
        let f = read(Family::Codex, b);
        assert_eq!(f.severity, Severity::High);
        assert_eq!(f.title, "Close the file handle");
    }

    #[test]
    fn review_bodies_and_notices_are_not_findings() {
        use review_core::signals::NonFinding;
        for (body, kind) in [
            (
                "Codex Review: Didn't find any major issues. 🚀",
                NonFinding::Summary,
            ),
            (
                "### 💡 Codex Review\n\n**Reviewed commit:** `25dbf2e264`",
                NonFinding::Summary,
            ),
            (
                "You have reached your Codex usage limits for code reviews.",
                NonFinding::Notice,
            ),
        ] {
            let f = read(Family::Codex, body);
            assert!(f.format_known, "{body}");
            assert_eq!(f.non_finding, Some(kind), "{body}");
        }
    }

    #[test]
    fn no_badge_is_unknown() {
        let f = read(Family::Codex, "**Close the file handle**\n\nIt leaks.");
        assert!(!f.format_known);
        assert_eq!(f.severity, Severity::None);
    }
}
