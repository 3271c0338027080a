//! Copilot code review: plain prose, an optional `[nitpick]` prefix, and `P0:`/`P1:` prefixes
//! when the repository's custom instructions ask for them.
//!
//! Copilot states no severity of its own and has no header, so its format is always known: a
//! comment is prose with, maybe, a suggestion block.

use review_core::signals::{NonFinding, Severity};

use super::Reading;
use crate::Family;
use crate::doc::Doc;
use crate::markup::{plain, title};
use crate::severity::stated;

/// Splits a leading `[nitpick]`, `P1:` or `[P1]` marker off a plain line.
fn prefix(line: &str) -> Option<(Severity, &str)> {
    let lower = line.to_ascii_lowercase();
    if lower.starts_with("[nitpick]") {
        return Some((Severity::Nit, line.get("[nitpick]".len()..)?));
    }
    let (marker, rest) = if let Some(inner) = line.strip_prefix('[') {
        let end = inner.find(']')?;
        (inner.get(..end)?, inner.get(end + 1..)?)
    } else {
        let end = line.find(':')?;
        (line.get(..end)?, line.get(end + 1..)?)
    };
    if marker.len() > 3 {
        return None;
    }
    let rest = rest.trim_start_matches(':');
    stated(Family::Copilot, marker).map(|s| (s, rest))
}

/// Copilot's posts that are not findings: the pull request overview (with "Copilot reviewed N
/// out of M changed files") and its error notice.
fn non_finding(doc: &Doc, lower: &str) -> Option<(NonFinding, &'static str)> {
    if lower.contains("copilot encountered an error")
        || lower.contains("copilot wasn't able to review")
        || lower.contains("copilot was unable to review")
    {
        return Some((NonFinding::Notice, "Copilot's error notice"));
    }
    let first = doc
        .nonempty()
        .next()
        .map(|(i, _)| doc.plain_of(i).to_lowercase())?;
    (first == "pull request overview"
        || first == "copilot review overview"
        || lower.contains("<!-- ccr-overview-v2 -->")
        || (lower.contains("copilot reviewed ") && lower.contains(" changed files")))
    .then_some((NonFinding::Summary, "Copilot's pull request overview"))
}

/// Reads a Copilot finding.
pub(crate) fn read(doc: &Doc, lower: &str) -> Reading {
    if let Some((kind, why)) = non_finding(doc, lower) {
        return Reading::non_finding(doc, kind, why);
    }
    let mut reading = Reading {
        known: true,
        ..Reading::default()
    };
    let Some((_, first)) = doc.nonempty().next() else {
        return reading;
    };
    let line = plain(first);
    let rest = match prefix(&line) {
        Some((severity, rest)) => {
            reading.severity = Some(severity);
            reading.style = severity == Severity::Nit;
            rest
        }
        None => &line,
    };
    reading.title = Some(title(rest.trim())).filter(|t| !t.is_empty());
    reading
}

#[cfg(test)]
mod tests {
    use review_core::signals::{Concreteness, LadderHint, Severity};

    use crate::Family;
    use crate::families::fixture::read;

    #[test]
    fn nitpick_prefix() {
        let body = "[nitpick] The name `tmp2` says little about what the buffer holds. Consider `pending`.\n\n```suggestion\n    let pending = Vec::new();\n```";
        let f = read(Family::Copilot, body);
        assert!(f.format_known);
        assert_eq!(f.severity, Severity::Nit);
        assert!(f.style_only);
        assert_eq!(
            f.title,
            "The name tmp2 says little about what the buffer holds"
        );
    }

    #[test]
    fn custom_priority_prefixes() {
        let p0 = "P0: The lock is released before the write completes, so two writers can interleave.\n```suggestion\n    let guard = self.lock.lock();\n    self.write(buf)?;\n    drop(guard);\n```";
        let f = read(Family::Copilot, p0);
        assert_eq!(f.severity, Severity::High);
        assert_eq!(
            f.title,
            "The lock is released before the write completes, so two writers can interleave"
        );
        assert!(matches!(f.concreteness, Concreteness::Suggestion(_)));
        assert_eq!(f.ladder_hint, LadderHint::JustDoIt);

        let bracket = "**[P1]** Missing `await` on the flush call.";
        assert_eq!(read(Family::Copilot, bracket).severity, Severity::High);
        let p2 = "P2: Unused import.";
        assert_eq!(read(Family::Copilot, p2).severity, Severity::None);
    }

    #[test]
    fn plain_prose_with_a_diff_is_exact() {
        let body = "This comparison uses `=` instead of `==`, so it always assigns.\n\n```diff\n-if (x = 0) {\n+if (x == 0) {\n```";
        let f = read(Family::Copilot, body);
        assert_eq!(f.severity, Severity::None);
        assert_eq!(f.concreteness, Concreteness::Exact);
        assert_eq!(
            f.title,
            "This comparison uses = instead of ==, so it always assigns"
        );
    }

    #[test]
    fn two_suggestions_offered_as_alternatives() {
        let body = "The timeout is read as seconds but documented in milliseconds.\n\n```suggestion\n    let timeout = Duration::from_millis(raw);\n```\n\nAlternatively, keep seconds and fix the documentation:\n\n```suggestion\n    /// Timeout in seconds.\n```";
        let f = read(Family::Copilot, body);
        assert_eq!(f.concreteness, Concreteness::Exact);
        assert_eq!(f.suggestions.len(), 2);
        // Two fixes to choose from: a choice is the author's (a design decision), and the
        // alternative is kept for whoever decides.
        assert!(f.design_decision);
        assert_eq!(f.ladder_hint, LadderHint::StopAndAsk);
        assert_eq!(
            f.why.get("alternative").map(String::as_str),
            Some("keep seconds and fix the documentation")
        );
    }
}
