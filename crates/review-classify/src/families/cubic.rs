//! cubic: the finding starts with its priority (`P0:` .. `P3:`), then the description; a
//! hidden `<!-- metadata:{"confidence":9} -->` marker, a "Prompt for AI agents" section and a
//! "Fix with Cubic" button. Its review bodies read "**N issues found** across M files" (or "No
//! issues found").

use review_core::signals::NonFinding;

use super::Reading;
use crate::Family;
use crate::doc::Doc;
use crate::markup::title;
use crate::severity::stated;

/// The leading `P0:` .. `P3:` of the first prose line: the severity and the rest of the line.
fn priority(doc: &Doc) -> Option<(review_core::signals::Severity, String)> {
    let (i, _) = doc.nonempty().next()?;
    let line = doc.plain_of(i);
    let (marker, rest) = line.split_once(':')?;
    let severity = stated(Family::Cubic, marker.trim())?;
    Some((severity, rest.trim().to_owned()))
}

/// Whether the body is cubic's.
pub(crate) fn detect(_doc: &Doc, lower: &str) -> bool {
    lower.contains("cubic.dev") || lower.contains("<!-- cubic:")
}

/// Reads a cubic finding or review body.
pub(crate) fn read(doc: &Doc, lower: &str) -> Reading {
    if let Some((severity, rest)) = priority(doc) {
        return Reading {
            known: true,
            title: Some(title(&rest)).filter(|t| !t.is_empty()),
            severity: Some(severity),
            ..Reading::default()
        };
    }
    let first = doc
        .nonempty()
        .next()
        .map(|(i, _)| doc.plain_of(i).to_lowercase())
        .unwrap_or_default();
    let counted = first.contains("issues found across")
        || first.contains("issue found across")
        || lower.contains("<!-- cubic:review-summary");
    if counted {
        return Reading::non_finding(doc, NonFinding::Summary, "cubic's review summary");
    }
    Reading::default()
}

#[cfg(test)]
mod tests {
    use review_core::signals::{NonFinding, Severity};

    use crate::Family;
    use crate::families::fixture::read;

    #[test]
    fn priorities_and_summaries() {
        for (p, want) in [
            ("P0", Severity::Critical),
            ("P1", Severity::High),
            ("P2", Severity::Medium),
            ("P3", Severity::Low),
        ] {
            let body = format!(
                "<!-- metadata:{{\"confidence\":9}} -->\n{p}: `flush()` is never awaited, so the last rows are lost. Await it before returning."
            );
            let f = read(Family::Cubic, &body);
            assert!(f.format_known, "{p}");
            assert_eq!(f.severity, want, "{p}");
            assert_eq!(
                f.title,
                "flush() is never awaited, so the last rows are lost"
            );
        }
        let f = read(
            Family::Cubic,
            "**2 issues found** across 5 files\n\n<sub>Reply with feedback.</sub>",
        );
        assert_eq!(f.non_finding, Some(NonFinding::Summary));
        assert!(!read(Family::Cubic, "Looks fine.").format_known);
    }
}
