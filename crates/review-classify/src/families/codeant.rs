//! CodeAnt AI: `**Suggestion:** text [category]` first, a collapsed "**Severity Level:**
//! Critical 🚨" block (Major ⚠️, Minor, ...), "Steps of Reproduction", "Fix in Cursor" links and
//! a "Prompt for AI Agent 🤖" section. Architecture comments start `**🔴 Architect Review —
//! CRITICAL**`. A `[security]` category marks a security finding.

use review_core::signals::Severity;

use super::Reading;
use crate::Family;
use crate::doc::Doc;
use crate::markup::{plain, title};
use crate::severity::stated;

/// The severity a "Severity Level: X" line or an "Architect Review — X" heading states.
fn severity(doc: &Doc) -> Option<Severity> {
    doc.nonempty().find_map(|(i, _)| {
        let p = doc.plain_of(i);
        let lower = p.to_lowercase();
        let rest = if let Some(at) = lower.find("severity level:") {
            p.get(at + "severity level:".len()..)?
        } else if lower.contains("architect review") {
            p.rsplit(['—', '-', ':']).next()?
        } else {
            return None;
        };
        let word = rest
            .split_whitespace()
            .next()?
            .trim_matches(|c: char| !c.is_alphanumeric());
        stated(Family::CodeAnt, word)
    })
}

/// The `**Suggestion:** text [category]` line: the text and the category.
fn suggestion(doc: &Doc) -> Option<(String, Option<String>)> {
    doc.nonempty().take(3).find_map(|(i, _)| {
        let p = doc.plain_of(i);
        let rest = p.strip_prefix("Suggestion:")?.trim();
        match rest.rfind('[') {
            Some(open) if rest.trim_end().ends_with(']') => {
                let category = rest.get(open + 1..rest.len() - 1)?.trim().to_lowercase();
                Some((rest.get(..open)?.trim().to_owned(), Some(category)))
            }
            _ => Some((rest.to_owned(), None)),
        }
    })
}

/// Categories that mark a finding about wording or style, not behaviour: `[typo]`,
/// `[naming]`, `[style]`, `[documentation]`, `[comment]`.
fn style_category(category: &str) -> bool {
    matches!(
        category,
        "typo" | "naming" | "style" | "formatting" | "documentation" | "docs" | "comment"
    )
}

/// Whether the body is CodeAnt's.
pub(crate) fn detect(doc: &Doc, lower: &str) -> bool {
    lower.contains("codeant.ai") || (suggestion(doc).is_some() && lower.contains("severity level:"))
}

/// Reads a CodeAnt finding.
pub(crate) fn read(doc: &Doc) -> Reading {
    if let Some((_, first)) = doc.nonempty().next() {
        let lower = plain(first).to_lowercase();
        if lower.starts_with("codeant ai finished reviewing")
            || lower.starts_with("codeant ai is reviewing")
            || lower.starts_with("codeant-ai is reviewing")
        {
            return Reading::non_finding(
                doc,
                review_core::signals::NonFinding::Notice,
                "CodeAnt's review status notice",
            );
        }
    }
    let severity = severity(doc);
    let found = suggestion(doc);
    let architect = doc
        .nonempty()
        .next()
        .is_some_and(|(i, _)| doc.plain_of(i).to_lowercase().contains("architect review"));
    if found.is_none() && !architect {
        return Reading::default();
    }
    let (text, category) = found.unwrap_or_default();
    let title = if text.is_empty() {
        doc.nonempty()
            .nth(1)
            .map(|(i, _)| title(&plain(doc.lines.get(i).map_or("", String::as_str))))
    } else {
        Some(title(&text))
    };
    Reading {
        known: severity.is_some() || category.is_some(),
        title: title.filter(|t| !t.is_empty()),
        severity,
        style: category.as_deref().is_some_and(style_category),
        security: category
            .filter(|c| c.contains("security"))
            .map(|_| "CodeAnt's [security] category".to_owned()),
        ..Reading::default()
    }
}

#[cfg(test)]
mod tests {
    use review_core::signals::Severity;

    use crate::Family;
    use crate::families::fixture::read;

    #[test]
    fn suggestion_line_and_severity_block() {
        let body = "**Suggestion:** `retry_budget` has no serde default, so old configs panic at start-up. Add `#[serde(default)]`. [logic error]\n\n<details>\n<summary><b>Severity Level:</b> Major ⚠️</summary>\n\n```mdx\n- ❌ Worker fails to start.\n```\n</details>";
        let f = read(Family::CodeAnt, body);
        assert!(f.format_known);
        assert_eq!(f.severity, Severity::High);
        assert_eq!(
            f.title,
            "retry_budget has no serde default, so old configs panic at start-up"
        );
        assert_eq!(f.security, None);
        assert!(!f.style_only, "a logic error is not style");
        let typo = body.replace("[logic error]", "[typo]");
        assert!(read(Family::CodeAnt, &typo).style_only, "a [typo] is style");
        let critical = body
            .replace("Major ⚠️", "Critical 🚨")
            .replace("[logic error]", "[security]");
        let f = read(Family::CodeAnt, &critical);
        assert_eq!(f.severity, Severity::Critical);
        assert!(f.security.is_some());
        let architect =
            "**🔴 Architect Review — CRITICAL**\n\nSession cookies lack the Secure flag.";
        assert_eq!(
            read(Family::CodeAnt, architect).severity,
            Severity::Critical
        );
    }

    #[test]
    fn status_notices_are_not_findings() {
        for body in [
            "CodeAnt AI finished reviewing your PR.",
            "CodeAnt AI is reviewing your PR.",
        ] {
            assert_eq!(
                read(Family::CodeAnt, body).non_finding,
                Some(review_core::signals::NonFinding::Notice),
                "{body}"
            );
        }
        let finding = "**Suggestion:** CodeAnt AI finished reviewing your PR is logged twice. [logic error]\n\n<details>\n<summary><b>Severity Level:</b> Minor</summary>\n</details>";
        assert_eq!(read(Family::CodeAnt, finding).non_finding, None);
    }
}
