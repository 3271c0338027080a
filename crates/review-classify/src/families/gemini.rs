//! Gemini Code Assist: a priority badge image first (`high-priority.svg`, `critical.svg`,
//! `security-high-priority.svg`, ...), then prose, maybe a suggestion block.

use review_core::signals::NonFinding;

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

/// A `security-*` badge: the badge's name.
fn security_badge(doc: &Doc) -> Option<String> {
    doc.images.iter().find_map(|img| {
        let name = image_name(&img.src);
        (name.starts_with("security-") && stated(Family::Gemini, &name).is_some())
            .then(|| format!("Gemini's {name} badge"))
    })
}

/// Gemini's posts that are not findings: the review body ("## Code Review") and the summary
/// of changes.
fn non_finding(doc: &Doc) -> Option<(NonFinding, &'static str)> {
    let (i, line) = doc.nonempty().next()?;
    if !line.trim_start().starts_with('#') {
        return None;
    }
    let heading = doc
        .plain_of(i)
        .trim_start_matches('#')
        .trim()
        .to_lowercase();
    match heading.as_str() {
        "code review" => Some((NonFinding::Summary, "Gemini's review body")),
        "summary of changes" => Some((NonFinding::Summary, "Gemini's summary of changes")),
        _ => None,
    }
}

/// Reads a Gemini finding.
pub(crate) fn read(doc: &Doc) -> Reading {
    if let Some(found) = badge(doc) {
        return Reading {
            security: security_badge(doc),
            ..Reading::from_badge(doc, Some(found))
        };
    }
    match non_finding(doc) {
        Some((kind, why)) => Reading::non_finding(doc, kind, why),
        None => Reading::default(),
    }
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
    fn security_badges_mark_the_finding() {
        let body = "![security-high](https://www.gstatic.com/codereviewagent/security-high-priority.svg)\n\nThe `name` parameter reaches the path unnormalised.";
        let f = read(Family::Gemini, body);
        assert_eq!(f.severity, Severity::High);
        assert_eq!(
            f.security.as_deref(),
            Some("Gemini's security-high-priority badge")
        );
        let plain = body.replace("security-high-priority", "high-priority");
        assert_eq!(read(Family::Gemini, &plain).security, None);
    }

    #[test]
    fn review_body_and_summary_are_not_findings() {
        use review_core::signals::NonFinding;
        let f = read(
            Family::Gemini,
            "## Code Review\n\nThis pull request adds a retry policy.",
        );
        assert_eq!(f.non_finding, Some(NonFinding::Summary));
        let f = read(Family::Gemini, "## Summary of Changes\n\nHello!");
        assert_eq!(f.non_finding, Some(NonFinding::Summary));
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
