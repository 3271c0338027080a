//! Sourcery: a bold label first (`**issue (bug_risk):**`, `**suggestion (performance):**`,
//! `**nitpick:**`, `**security (hardcoded_secret):**`), the finding on the same line, then
//! prose and maybe a suggestion block.

use review_core::signals::NonFinding;

use super::Reading;
use crate::Family;
use crate::doc::Doc;
use crate::markup::{leading_bold, plain, title};
use crate::severity::{marker_key, stated};

/// Label kinds Sourcery writes.
const KINDS: &[&str] = &[
    "issue",
    "suggestion",
    "nitpick",
    "security",
    "praise",
    "question",
    "todo",
    "thought",
    "chore",
    "note",
];

/// Categories that make a finding style-only.
const STYLE_CATEGORIES: &[&str] = &["typo", "style", "naming", "formatting", "docstring"];

/// The label of a line: `(kind, category, rest of the line)`.
fn label(line: &str) -> Option<(String, Option<String>, &str)> {
    let (inner, rest) = leading_bold(line)?;
    let (inner, rest) = match inner.strip_suffix(':') {
        Some(inner) => (inner, rest),
        None => (inner, rest.strip_prefix(':')?),
    };
    let (kind, category) = match inner.split_once('(') {
        Some((kind, cat)) => (kind, Some(cat.trim_end().trim_end_matches(')'))),
        None => (inner, None),
    };
    let kind = marker_key(kind);
    KINDS
        .contains(&kind.as_str())
        .then(|| (kind, category.map(marker_key), rest))
}

fn first_label(doc: &Doc) -> Option<(String, Option<String>, &str)> {
    doc.nonempty().next().and_then(|(_, line)| label(line))
}

/// Whether the body is Sourcery's.
pub(crate) fn detect(doc: &Doc, lower: &str) -> bool {
    lower.contains("sourcery.ai") || first_label(doc).is_some()
}

/// Sourcery's posts that are not findings: its review bodies ("Hey - I've reviewed your changes
/// and they look great!", "Hey - I've found N issues") and the Reviewer's Guide.
fn non_finding(doc: &Doc, lower: &str) -> Option<(NonFinding, &'static str)> {
    if lower.contains("start review_guide") || lower.contains("reviewer's guide") {
        return Some((NonFinding::Summary, "Sourcery's Reviewer's Guide"));
    }
    let first = doc
        .nonempty()
        .next()
        .map(|(i, _)| doc.plain_of(i).to_lowercase())?;
    let first = first.replace('’', "'");
    (first.starts_with("hey - i've reviewed your changes")
        || first.starts_with("hey - i've found")
        || first.starts_with("hey there - i've reviewed"))
    .then_some((NonFinding::Summary, "Sourcery's review body"))
}

/// Reads a Sourcery finding or review body.
pub(crate) fn read(doc: &Doc, lower: &str) -> Reading {
    let Some((kind, category, rest)) = first_label(doc) else {
        return match non_finding(doc, lower) {
            Some((kind, why)) => Reading::non_finding(doc, kind, why),
            None => Reading::default(),
        };
    };
    let full = match &category {
        Some(cat) => format!("{kind} {cat}"),
        None => kind.clone(),
    };
    let severity = stated(Family::Sourcery, &full).or_else(|| stated(Family::Sourcery, &kind));
    let style = kind == "nitpick"
        || category
            .as_deref()
            .is_some_and(|c| STYLE_CATEGORIES.iter().any(|s| c.contains(s)));
    Reading {
        known: true,
        title: Some(title(&plain(rest))).filter(|t| !t.is_empty()),
        severity,
        style,
        security: (kind == "security").then(|| match &category {
            Some(cat) => format!("Sourcery's security ({cat}) label"),
            None => "Sourcery's security label".to_owned(),
        }),
        ..Reading::default()
    }
}

#[cfg(test)]
mod tests {
    use review_core::signals::{Concreteness, Severity};

    use crate::Family;
    use crate::families::fixture::read;

    #[test]
    fn labels() {
        let cases = [
            ("**issue (bug_risk):**", Severity::High, false),
            ("**security (hardcoded_secret):**", Severity::High, false),
            ("**issue (typo):**", Severity::Medium, true),
            ("**suggestion (performance):**", Severity::Low, false),
            ("**nitpick:**", Severity::Nit, true),
            ("**nitpick**:", Severity::Nit, true),
        ];
        for (label, want, style) in cases {
            let body = format!(
                "{label} The retry counter is never reset after a success.\n\n```suggestion\n        retries = 0;\n```"
            );
            let f = read(Family::Sourcery, &body);
            assert!(f.format_known, "{label}");
            assert_eq!(f.severity, want, "{label}");
            assert_eq!(f.style_only, style, "{label}");
            assert_eq!(f.title, "The retry counter is never reset after a success");
            assert!(matches!(f.concreteness, Concreteness::Suggestion(_)));
        }
    }

    #[test]
    fn praise_states_nothing_and_plain_bold_is_not_a_label() {
        let f = read(Family::Sourcery, "**praise:** Nice use of `let else`.");
        assert!(f.format_known);
        assert_eq!(f.severity, Severity::None);
        let f = read(Family::Sourcery, "**Important:** something");
        assert!(!f.format_known);
    }
}
