//! Formats without a severity scale: Claude and Bito (free text, a bold title at most), bots
//! this version does not know, and the fallback for a family whose markers are absent.

use review_core::signals::NonFinding;

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

/// Prose lines with text, without an automated-comment `header` line, and without quoted
/// lines when the comment has text of its own (a reply's title is its own words).
fn body_lines<'a>(doc: &'a Doc, header: &'a str) -> impl Iterator<Item = (usize, &'a str)> {
    let quoted = |line: &str| line.trim_start().starts_with('>');
    let own_text = doc.nonempty().any(|(_, line)| !quoted(line));
    doc.nonempty()
        .filter(move |(_, line)| header.is_empty() || !line.trim_start().starts_with(header))
        .filter(move |(_, line)| !(own_text && quoted(line)))
}

/// A bold line near the top, as a title.
fn bold_title(doc: &Doc, header: &str) -> Option<String> {
    body_lines(doc, header)
        .take(TITLE_LINES)
        .find_map(|(i, _)| candidate(&doc.line_at(i), true))
}

/// A table row or separator, or a GitHub alert marker (`> [!NOTE]`): not a title.
fn is_table_row(line: &str) -> bool {
    let t = line.trim_start().trim_start_matches('>').trim();
    t.starts_with('|') || (t.starts_with("[!") && t.ends_with(']') && !t.contains(' '))
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
        ..Reading::default()
    }
}

/// Bito: its run-status and progress notices, its run and changelist summaries, and findings
/// with a bold (or HTML `<b>`) title.
pub(crate) fn read_bito(doc: &Doc) -> Reading {
    // The notice's whole first line (a finding's title may start with the same words).
    const NOTICES: &[(&str, NonFinding, &str)] = &[
        (
            "ai code review is in progress (usually takes <3 minutes unless it's a very large pr).",
            NonFinding::Notice,
            "Bito's review-in-progress notice",
        ),
        (
            "code review agent run status",
            NonFinding::Notice,
            "Bito's run status",
        ),
        (
            "changelist by bito",
            NonFinding::Summary,
            "Bito's changelist",
        ),
    ];
    let first = doc
        .nonempty()
        .next()
        .map(|(i, _)| doc.plain_of(i).trim().to_lowercase())
        .unwrap_or_default();
    // The run's summary: "Code Review Agent Run #7be21c", its counts and the tools it ran (the
    // findings are comments of their own).
    let run_summary = first
        .strip_prefix("code review agent run #")
        .is_some_and(|id| !id.is_empty() && id.chars().all(|c| c.is_ascii_hexdigit()));
    if run_summary {
        return Reading::non_finding(doc, NonFinding::Summary, "Bito's run summary");
    }
    match NOTICES.iter().find(|(p, _, _)| first == *p) {
        Some(&(_, kind, why)) => Reading::non_finding(doc, kind, why),
        None => read_titled(doc),
    }
}

/// Labels a free-text finding may open with (`Nit:`, `**Bug:**`): structure enough to read it.
const LABELS: &[&str] = &["nit", "nitpick", "bug", "issue", "suggestion", "question"];

/// Claude: its task and review summaries that list no issue, its error notices, and findings
/// with a bold title or a leading label.
pub(crate) fn read_claude(doc: &Doc, lower: &str) -> Reading {
    if lower.contains("claude encountered an error") {
        return Reading::non_finding(doc, NonFinding::Notice, "Claude's error notice");
    }
    let summary = lower.contains("claude finished") || {
        let first = doc
            .nonempty()
            .next()
            .map(|(i, _)| doc.plain_of(i).to_lowercase())
            .unwrap_or_default();
        first.starts_with("code review") || first.starts_with("review:")
    };
    if summary {
        // A summary that lists issues is read as a finding (a person reads it); one that lists
        // none is a summary.
        let lists_issues = doc.nonempty().any(|(i, line)| {
            let t = line.trim_start();
            let numbered = t
                .split_once(['.', ')'])
                .is_some_and(|(n, _)| !n.is_empty() && n.chars().all(|c| c.is_ascii_digit()));
            numbered && !doc.plain_of(i).is_empty()
        }) || (lower.contains("issues found")
            && !lower.contains("no issues found"));
        if !lists_issues {
            return Reading::non_finding(
                doc,
                NonFinding::Summary,
                "Claude's summary, listing no issue",
            );
        }
    }
    let labelled = doc.nonempty().next().is_some_and(|(i, _)| {
        let p = doc.plain_of(i).to_lowercase();
        p.split_once(':')
            .is_some_and(|(label, _)| LABELS.contains(&label.trim()))
    });
    let reading = read_titled(doc);
    Reading {
        known: reading.known || labelled,
        ..reading
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
        severity,
        ..Reading::default()
    }
}

/// Whether the body is Bito's.
pub(crate) fn detect_bito(_doc: &Doc, lower: &str) -> bool {
    lower.contains("bito.ai") || lower.contains("code review agent run")
}

/// Whether the body is Claude's.
pub(crate) fn detect_claude(_doc: &Doc, lower: &str) -> bool {
    lower.contains("claude finished")
        || lower.contains("claude encountered an error")
        || lower.trim_start().starts_with("🤖 claude:")
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
    fn bito_notices_and_changelist_are_not_findings() {
        use review_core::signals::NonFinding;
        for (body, kind) in [
            (
                "AI Code Review is in progress (usually takes <3 minutes unless it's a very large PR).",
                NonFinding::Notice,
            ),
            (
                "## Code Review Agent Run Status\n\n- **Limitations and other issues:** Failure - skipped.",
                NonFinding::Notice,
            ),
            (
                "**Changelist by Bito**\n\n- Adds a cache.",
                NonFinding::Summary,
            ),
            (
                "**Code Review Agent Run #7be21c**\n\n- Tools: Detect-secrets - Successful",
                NonFinding::Summary,
            ),
        ] {
            let f = read(Family::Bito, body);
            assert!(f.format_known, "{body}");
            assert_eq!(f.non_finding, Some(kind), "{body}");
        }
        let finding =
            "<b>Code Review Agent Run Status is logged twice</b>\n\nThe status line repeats.";
        assert_eq!(read(Family::Bito, finding).non_finding, None);
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
