//! Gemini Code Assist: a priority badge image first (`high-priority.svg`, `critical.svg`,
//! `security-high-priority.svg`, ...), then prose, maybe a suggestion block.

use super::{Reading, image_name};
use crate::Family;
use crate::doc::Doc;
use crate::severity::stated;

/// Whether the body is Gemini's.
pub(crate) fn detect(doc: &Doc, lower: &str) -> bool {
    lower.contains("gstatic.com/codereviewagent/") || badge(doc).is_some()
}

/// The first priority badge: its line and severity.
fn badge(doc: &Doc) -> Option<(usize, review_core::signals::Severity)> {
    doc.images
        .iter()
        .find_map(|img| stated(Family::Gemini, &image_name(&img.src)).map(|sev| (img.line, sev)))
}

/// Reads a Gemini finding.
pub(crate) fn read(doc: &Doc) -> Reading {
    Reading::from_badge(doc, badge(doc))
}

#[cfg(test)]
mod tests {
    use review_core::signals::{Concreteness, Severity};

    use crate::Family;
    use crate::families::fixture::read;

    #[test]
    fn priority_badges() {
        let cases = [
            ("critical", Severity::Critical),
            ("security-critical", Severity::Critical),
            ("high-priority", Severity::High),
            ("security-high-priority", Severity::High),
            ("medium-priority", Severity::Medium),
            ("low-priority", Severity::Low),
        ];
        for (name, want) in cases {
            let body = format!(
                "![{name}](https://www.gstatic.com/codereviewagent/{name}.svg)\n\nThe retry loop never sleeps, so a failing backend is hammered. Add a backoff.\n\n```suggestion\n        std::thread::sleep(backoff.next());\n```"
            );
            let f = read(Family::Gemini, &body);
            assert!(f.format_known, "{name}");
            assert_eq!(f.severity, want, "{name}");
            assert_eq!(
                f.title,
                "The retry loop never sleeps, so a failing backend is hammered"
            );
            assert!(matches!(f.concreteness, Concreteness::Suggestion(_)));
        }
    }

    #[test]
    fn html_badge_on_the_same_line_as_the_text() {
        let body = r#"<img src="https://www.gstatic.com/codereviewagent/medium-priority.svg" alt="medium" /> Das Feld `limit` wird nie geprüft."#;
        let f = read(Family::Gemini, body);
        assert_eq!(f.severity, Severity::Medium);
        assert_eq!(f.title, "Das Feld limit wird nie geprüft");
    }

    #[test]
    fn missing_badge_is_unknown_unless_structured() {
        let f = read(Family::Gemini, "This might be slow.");
        assert!(!f.format_known);
        let f = read(Family::Gemini, "Use the constant.\n```suggestion\nMAX\n```");
        assert!(f.format_known);
        assert_eq!(f.severity, Severity::None);
    }
}
