//! Formats without a severity scale: Claude and Bito (free text, a bold title at most), bots
//! this version does not know, and the fallback for a family whose markers are absent.

use super::{Reading, qa};
use crate::doc::Doc;
use crate::markup::{bold_line, plain, title};

/// How many leading lines may hold a bold title.
const TITLE_LINES: usize = 3;

/// A line as a title candidate: `None` for a line that only states a severity (its remainder
/// when it has one), else its bold part or first sentence.
fn candidate(line: &str, bold_only: bool) -> Option<String> {
    let text = match bold_line(line) {
        Some(inner) => plain(inner),
        None if bold_only => return None,
        None => plain(line),
    };
    let text = match qa::stated_word(&text) {
        Some((_, rest)) => rest.to_owned(),
        None => text,
    };
    Some(title(&text)).filter(|t| !t.is_empty())
}

/// Prose lines with text, without an automated-comment `header` line.
fn body_lines<'a>(doc: &'a Doc, header: &'a str) -> impl Iterator<Item = (usize, &'a str)> {
    doc.nonempty()
        .filter(move |(_, line)| header.is_empty() || !line.trim_start().starts_with(header))
}

/// A bold line near the top, as a title.
fn bold_title(doc: &Doc, header: &str) -> Option<String> {
    body_lines(doc, header)
        .take(TITLE_LINES)
        .find_map(|(i, _)| candidate(&doc.line_at(i), true))
}

/// A table row or separator: not a title.
fn is_table_row(line: &str) -> bool {
    line.trim_start().starts_with('|')
}

/// The first meaningful line as a title: a bold line near the top, else the first sentence of
/// the first line that says more than a severity. An automated-comment `header` line is
/// skipped.
pub(crate) fn generic_title(doc: &Doc, header: &str) -> String {
    bold_title(doc, header)
        .or_else(|| {
            body_lines(doc, header)
                .filter(|(_, line)| !is_table_row(line))
                .find_map(|(_, line)| candidate(line, false))
        })
        .unwrap_or_default()
}

/// Claude or Bito: known when a bold title gives the comment structure.
pub(crate) fn read_titled(doc: &Doc) -> Reading {
    let title = bold_title(doc, "");
    Reading {
        known: title.is_some(),
        title,
        severity: None,
        style: false,
    }
}

/// A bot whose format is unknown: a stated plain-word severity is read (and capped later), the
/// format is never known from the prose alone.
pub(crate) fn read_unknown(doc: &Doc) -> Reading {
    let severity = doc
        .nonempty()
        .take(4)
        .find_map(|(_, line)| qa::stated_word(&plain(line)).map(|(s, _)| s));
    Reading {
        known: false,
        title: None,
        severity,
        style: false,
    }
}

/// Whether the body is Bito's.
pub(crate) fn detect_bito(_doc: &Doc, lower: &str) -> bool {
    lower.contains("bito.ai") || lower.contains("code review agent run")
}

/// Whether the body is Claude's.
pub(crate) fn detect_claude(_doc: &Doc, lower: &str) -> bool {
    lower.contains("claude finished")
        || lower.contains("claude.ai/code")
        || lower.contains("generated with [claude code]")
}

#[cfg(test)]
mod tests {
    use review_core::signals::{Concreteness, LadderHint, Severity};

    use crate::Family;
    use crate::families::fixture::read;

    #[test]
    fn claude_and_bito_free_text() {
        let body = "**Unchecked `unwrap` on user input**\n\nThe port comes from the query string; a bad value panics the worker.\n\n```suggestion\n    let port: u16 = query.port.parse().map_err(Error::BadPort)?;\n```";
        for family in [Family::Claude, Family::Bito] {
            let f = read(family, body);
            assert!(f.format_known, "{family:?}");
            assert_eq!(f.severity, Severity::None);
            assert_eq!(f.title, "Unchecked unwrap on user input");
            assert!(matches!(f.concreteness, Concreteness::Suggestion(_)));
        }
        let prose = read(
            Family::Claude,
            "Looks fine overall, but this could be simpler.",
        );
        assert!(!prose.format_known);
        assert_eq!(prose.ladder_hint, LadderHint::StopAndAsk);
    }

    #[test]
    fn unknown_bots_never_state_high() {
        let body = "**Severity: CRITICAL**\n\nSQL is built from request input.\n\n```suggestion\nquery(\"SELECT * FROM t WHERE id = ?\", id)\n```";
        let f = read(Family::OtherBot, body);
        assert!(f.format_known, "a suggestion block is clear structure");
        assert_eq!(f.severity, Severity::Medium);
        assert_eq!(f.title, "SQL is built from request input");

        let f = read(Family::OtherBot, "CRITICAL: everything is broken");
        assert!(!f.format_known);
        assert!(!f.severity.is_high());
    }
}
