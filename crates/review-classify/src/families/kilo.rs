//! Kilo Code: a bold label first (`**CRITICAL:**`, `**WARNING:**`, `**SUGGESTION:**`) and the
//! finding on the same line; in "roast" mode, `🔥 **The Roast**: ...`, `🩹 **The Fix**: ...` and
//! `📏 **Severity**: warning`. Its summary comment carries `<!-- kilo-review -->` and "## Code
//! Review Summary" (in roast mode "## Code Review Roast 🔥").

use review_core::signals::NonFinding;

use super::Reading;
use crate::Family;
use crate::doc::Doc;
use crate::markup::{is_emoji, leading_bold, plain, title};
use crate::severity::stated;

/// A leading bold label (`**WARNING:** rest`): the severity and the rest of the line.
fn label(line: &str) -> Option<(review_core::signals::Severity, &str)> {
    let (inner, rest) = leading_bold(line)?;
    let (inner, rest) = match inner.strip_suffix(':') {
        Some(inner) => (inner, rest),
        None => (inner, rest.strip_prefix(':')?),
    };
    stated(Family::Kilo, inner.trim()).map(|s| (s, rest))
}

/// Roast mode: the `**Severity**: word` line, and the roast's text as the title.
fn roast(doc: &Doc) -> Option<Reading> {
    let severity = doc.nonempty().find_map(|(i, _)| {
        let p = doc.plain_of(i);
        let (key, value) = p.split_once(':')?;
        (key.trim().eq_ignore_ascii_case("severity"))
            .then(|| stated(Family::Kilo, value.trim()))
            .flatten()
    })?;
    let title = doc.nonempty().find_map(|(i, _)| {
        let p = doc.plain_of(i);
        let (key, value) = p.split_once(':')?;
        key.trim()
            .eq_ignore_ascii_case("the roast")
            .then(|| title(value.trim()))
    });
    Some(Reading {
        known: true,
        title,
        severity: Some(severity),
        ..Reading::default()
    })
}

/// Whether the body is Kilo's.
pub(crate) fn detect(_doc: &Doc, lower: &str) -> bool {
    lower.contains("<!-- kilo-review -->") || lower.contains("app.kilo.ai")
}

/// Reads a Kilo finding or summary.
pub(crate) fn read(doc: &Doc, lower: &str) -> Reading {
    if lower.contains("<!-- kilo-review -->")
        || doc.nonempty().next().is_some_and(|(i, _)| {
            let first = doc
                .plain_of(i)
                .trim_end_matches(is_emoji)
                .trim()
                .to_lowercase();
            // The roast mode's summary: "## Code Review Roast 🔥" and a verdict table.
            first == "code review summary" || first == "code review roast"
        })
    {
        return Reading::non_finding(doc, NonFinding::Summary, "Kilo's review summary");
    }
    if let Some((_, line)) = doc.nonempty().next()
        && let Some((severity, rest)) = label(line)
    {
        return Reading {
            known: true,
            title: Some(title(&plain(rest))).filter(|t| !t.is_empty()),
            severity: Some(severity),
            ..Reading::default()
        };
    }
    roast(doc).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use review_core::signals::{NonFinding, Severity};

    use crate::Family;
    use crate::families::fixture::read;

    #[test]
    fn labels_roasts_and_summaries() {
        for (label, want) in [
            ("CRITICAL", Severity::Critical),
            ("WARNING", Severity::Medium),
            ("SUGGESTION", Severity::Low),
        ] {
            let f = read(
                Family::Kilo,
                &format!(
                    "**{label}:** Timer is not cleared on unmount\n\nThe effect returns nothing."
                ),
            );
            assert!(f.format_known, "{label}");
            assert_eq!(f.severity, want, "{label}");
            assert_eq!(f.title, "Timer is not cleared on unmount");
        }
        let roast = "🔥 **The Roast**: This `catch` swallows the error.\n\n🩹 **The Fix**: Log it.\n\n📏 **Severity**: warning";
        let f = read(Family::Kilo, roast);
        assert_eq!(f.severity, Severity::Medium);
        assert_eq!(f.title, "This catch swallows the error");
        let summary = "<!-- kilo-review -->\n## Code Review Summary\n\n**Status:** No Issues Found";
        assert_eq!(
            read(Family::Kilo, summary).non_finding,
            Some(NonFinding::Summary)
        );
    }

    #[test]
    fn the_roast_summary_is_a_summary() {
        let body = "## Code Review Roast 🔥\n\n**Verdict:** 3 Issues Found\n\n| 🚨 | ⚠️ | 💡 |\n|---|---|---|\n| 1 | 1 | 1 |";
        assert_eq!(
            read(Family::Kilo, body).non_finding,
            Some(NonFinding::Summary)
        );
    }
}
