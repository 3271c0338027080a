//! Normalising stated severity: the one table that maps each family's words to a [`Severity`].
//!
//! The triage rules fix unattended only what is `high` or `critical`, so this table decides what
//! may be fixed without a person. Every reader looks its markers up here, through [`stated`].

use review_core::signals::Severity;

use crate::Family;

/// Every stated-severity marker the readers know: `(family, key, severity)`.
///
/// Keys are written as [`marker_key`] makes them (lower case, emoji and markup removed), so
/// `_🟠 Major_` is `major` and `**issue (bug_risk):**` is `issue bug_risk`. The
/// [`Family::QaHeader`] rows are plain severity words; readers of formats they do not know use
/// the same words, capped at medium.
pub const TABLE: &[(Family, &str, Severity)] = &[
    // CodeRabbit pills.
    (Family::CodeRabbit, "critical", Severity::Critical),
    (Family::CodeRabbit, "major", Severity::High),
    (Family::CodeRabbit, "minor", Severity::Medium),
    (Family::CodeRabbit, "trivial", Severity::Low),
    (Family::CodeRabbit, "nitpick", Severity::Nit),
    // Codex shields badges.
    (Family::Codex, "p0", Severity::Critical),
    (Family::Codex, "p1", Severity::High),
    (Family::Codex, "p2", Severity::Medium),
    (Family::Codex, "p3", Severity::Low),
    // Gemini badge image names.
    (Family::Gemini, "critical", Severity::Critical),
    (Family::Gemini, "security-critical", Severity::Critical),
    (Family::Gemini, "high-priority", Severity::High),
    (Family::Gemini, "security-high-priority", Severity::High),
    (Family::Gemini, "medium-priority", Severity::Medium),
    (Family::Gemini, "security-medium-priority", Severity::Medium),
    (Family::Gemini, "low-priority", Severity::Low),
    (Family::Gemini, "security-low-priority", Severity::Low),
    // Cursor Bugbot.
    (Family::Cursor, "high severity", Severity::High),
    (Family::Cursor, "medium severity", Severity::Medium),
    (Family::Cursor, "low severity", Severity::Low),
    // Greptile badges.
    (Family::Greptile, "p1", Severity::High),
    (Family::Greptile, "p2", Severity::Medium),
    (Family::Greptile, "p3", Severity::Low),
    (Family::Greptile, "p4", Severity::Low),
    // Sourcery labels: the `kind category` row first, then the kind alone.
    (Family::Sourcery, "issue bug_risk", Severity::High),
    (Family::Sourcery, "security", Severity::High),
    (Family::Sourcery, "issue", Severity::Medium),
    (Family::Sourcery, "suggestion", Severity::Low),
    (Family::Sourcery, "nitpick", Severity::Nit),
    // Qodo v2 badges and v1 importance.
    (Family::Qodo, "action required", Severity::High),
    (Family::Qodo, "remediation recommended", Severity::Medium),
    (Family::Qodo, "review recommended", Severity::Medium),
    (Family::Qodo, "importance 10", Severity::High),
    (Family::Qodo, "importance 9", Severity::High),
    (Family::Qodo, "importance 8", Severity::High),
    (Family::Qodo, "importance 7", Severity::Medium),
    (Family::Qodo, "importance 6", Severity::Medium),
    (Family::Qodo, "importance 5", Severity::Medium),
    (Family::Qodo, "importance 4", Severity::Low),
    (Family::Qodo, "importance 3", Severity::Low),
    (Family::Qodo, "importance 2", Severity::Low),
    (Family::Qodo, "importance 1", Severity::Low),
    // Copilot: only custom instructions state a severity.
    (Family::Copilot, "p0", Severity::High),
    (Family::Copilot, "p1", Severity::High),
    (Family::Copilot, "nitpick", Severity::Nit),
    // cubic: a `P0:` .. `P3:` prefix.
    (Family::Cubic, "p0", Severity::Critical),
    (Family::Cubic, "p1", Severity::High),
    (Family::Cubic, "p2", Severity::Medium),
    (Family::Cubic, "p3", Severity::Low),
    // Kilo labels (and roast mode's `Severity: warning`).
    (Family::Kilo, "critical", Severity::Critical),
    (Family::Kilo, "warning", Severity::Medium),
    (Family::Kilo, "suggestion", Severity::Low),
    // CodeAnt's "Severity Level" and "Architect Review — X".
    (Family::CodeAnt, "critical", Severity::Critical),
    (Family::CodeAnt, "major", Severity::High),
    (Family::CodeAnt, "minor", Severity::Medium),
    (Family::CodeAnt, "trivial", Severity::Low),
    // DeepSource's severity indicator images.
    (Family::DeepSource, "critical", Severity::Critical),
    (Family::DeepSource, "major", Severity::High),
    (Family::DeepSource, "minor", Severity::Medium),
    // Plain words, as a tool posting with the automated header writes them.
    (Family::QaHeader, "critical", Severity::Critical),
    (Family::QaHeader, "high", Severity::High),
    (Family::QaHeader, "medium", Severity::Medium),
    (Family::QaHeader, "low", Severity::Low),
    (Family::QaHeader, "nit", Severity::Nit),
    (Family::QaHeader, "nitpick", Severity::Nit),
];

/// The severity `family` means by `marker`, if the table has it.
pub fn stated(family: Family, marker: &str) -> Option<Severity> {
    let key = marker_key(marker);
    TABLE
        .iter()
        .find(|(f, k, _)| *f == family && *k == key)
        .map(|&(_, _, s)| s)
}

/// The highest severity a comment whose format the reader does not know may carry.
pub(crate) const UNKNOWN_FORMAT_CAP: Severity = Severity::Medium;

/// Removes emoji shortcodes (`:warning:`, `:red_circle:`) that some bots write instead of
/// the emoji.
fn strip_shortcodes(marker: &str) -> std::borrow::Cow<'_, str> {
    if marker.matches(':').count() < 2 {
        return std::borrow::Cow::Borrowed(marker);
    }
    let mut out = String::with_capacity(marker.len());
    let mut rest = marker;
    while let Some(open) = rest.find(':') {
        let after = rest.get(open + 1..).unwrap_or("");
        let len = after
            .find(|c: char| !(c.is_ascii_alphanumeric() || matches!(c, '_' | '+' | '-')))
            .unwrap_or(after.len());
        if len > 0 && after.get(len..).is_some_and(|t| t.starts_with(':')) {
            out.push_str(rest.get(..open).unwrap_or(""));
            out.push(' ');
            rest = after.get(len + 1..).unwrap_or("");
        } else {
            out.push_str(rest.get(..=open).unwrap_or(""));
            rest = after;
        }
    }
    out.push_str(rest);
    std::borrow::Cow::Owned(out)
}

/// Normalises a marker for [`TABLE`]: emoji shortcodes (`:warning:`) removed; lower case;
/// letters, digits, `-` and `_` kept; anything else separates words; `_`, `-` and `*` trimmed
/// from each word's ends.
pub fn marker_key(marker: &str) -> String {
    let mut out = String::with_capacity(marker.len());
    let spaced: String = strip_shortcodes(marker)
        .chars()
        .map(|c| {
            if c.is_alphanumeric() || c == '-' || c == '_' {
                c
            } else {
                ' '
            }
        })
        .collect();
    for word in spaced.split_whitespace() {
        let word = word.trim_matches(|c| c == '_' || c == '-');
        if word.is_empty() {
            continue;
        }
        if !out.is_empty() {
            out.push(' ');
        }
        out.extend(word.chars().flat_map(char::to_lowercase));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn table_keys_are_already_normalised_and_unique() {
        for (i, (family, key, _)) in TABLE.iter().enumerate() {
            assert_eq!(&marker_key(key), key, "{family:?} {key}");
            assert!(
                !TABLE
                    .iter()
                    .skip(i + 1)
                    .any(|(f, k, _)| f == family && k == key),
                "duplicate row {family:?} {key}"
            );
        }
    }

    #[test]
    fn the_normalisation_matches_the_documented_table() {
        use Severity::*;
        let cases = [
            (Family::CodeRabbit, "_🔴 Critical_", Critical),
            (Family::CodeRabbit, "_🟠 Major_", High),
            (Family::CodeRabbit, "_🟡 Minor_", Medium),
            (Family::CodeRabbit, "_🔵 Trivial_", Low),
            (Family::CodeRabbit, "🧹 Nitpick", Nit),
            (Family::Codex, "P0", Critical),
            (Family::Codex, "P1", High),
            (Family::Codex, "P2", Medium),
            (Family::Codex, "P3", Low),
            (Family::Gemini, "critical", Critical),
            (Family::Gemini, "security-critical", Critical),
            (Family::Gemini, "high-priority", High),
            (Family::Gemini, "security-high-priority", High),
            (Family::Gemini, "medium-priority", Medium),
            (Family::Gemini, "low-priority", Low),
            (Family::Cursor, "**High Severity**", High),
            (Family::Cursor, "**Medium Severity**", Medium),
            (Family::Cursor, "**Low Severity**", Low),
            (Family::Greptile, "P1", High),
            (Family::Greptile, "P2", Medium),
            (Family::Greptile, "P3", Low),
            (Family::Greptile, "P4", Low),
            (Family::Sourcery, "issue (bug_risk)", High),
            (Family::Sourcery, "security", High),
            (Family::Sourcery, "issue", Medium),
            (Family::Sourcery, "suggestion", Low),
            (Family::Sourcery, "nitpick", Nit),
            (Family::Qodo, "Action required", High),
            (Family::Qodo, "Remediation recommended", Medium),
            (Family::Qodo, "importance: 8", High),
            (Family::Qodo, "importance: 5", Medium),
            (Family::Qodo, "importance: 4", Low),
            (Family::Copilot, "P0", High),
            (Family::Copilot, "P1", High),
            (Family::Copilot, "[nitpick]", Nit),
            (Family::Cubic, "P0", Critical),
            (Family::Cubic, "P1", High),
            (Family::Cubic, "P2", Medium),
            (Family::Cubic, "P3", Low),
            (Family::Kilo, "CRITICAL", Critical),
            (Family::Kilo, "WARNING", Medium),
            (Family::Kilo, "SUGGESTION", Low),
            (Family::CodeAnt, "Critical 🚨", Critical),
            (Family::CodeAnt, "Major ⚠️", High),
            (Family::CodeAnt, "Minor", Medium),
            (Family::DeepSource, "major", High),
            (Family::DeepSource, "minor", Medium),
            (Family::QaHeader, "HIGH", High),
            (Family::QaHeader, "Critical", Critical),
        ];
        for (family, marker, want) in cases {
            assert_eq!(stated(family, marker), Some(want), "{family:?} {marker}");
        }
    }

    #[test]
    fn shortcodes_are_not_words() {
        assert_eq!(marker_key("_:warning: Potential issue_"), "potential issue");
        assert_eq!(marker_key(":red_circle: Critical"), "critical");
        assert_eq!(marker_key("importance: 8"), "importance 8");
        assert_eq!(marker_key("a:b c:d"), "a b c d");
        assert_eq!(marker_key("::"), "");
    }

    #[test]
    fn markers_a_family_does_not_use_state_nothing() {
        assert_eq!(stated(Family::Copilot, "P2"), None);
        assert_eq!(stated(Family::Cursor, "Critical Severity"), None);
        assert_eq!(stated(Family::Codex, "high"), None);
        assert_eq!(stated(Family::CodeRabbit, "Potential issue"), None);
    }

    #[test]
    fn families_without_a_scale_never_state_high() {
        for family in [
            Family::Claude,
            Family::Bito,
            Family::CodeQl,
            Family::AmazonQ,
            Family::Jules,
            Family::Vercel,
            Family::Korbit,
            Family::SonarQube,
            Family::OtherBot,
        ] {
            assert!(
                !TABLE.iter().any(|(f, _, _)| *f == family),
                "{family:?} must state nothing"
            );
        }
    }
}
