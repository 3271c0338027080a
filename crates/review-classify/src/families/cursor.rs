//! Cursor Bugbot: `### Title`, then `**High Severity**` (or Medium, Low), a description between
//! hidden markers, maybe "Additional Locations (N)", "Fix in Cursor" links, and a footer
//! "Reviewed by Cursor Bugbot for commit `<sha>`". No suggestion blocks.

use review_core::signals::{NonFinding, Severity};

use super::Reading;
use crate::Family;
use crate::doc::Doc;
use crate::markup::{plain, title};
use crate::severity::stated;

fn severity(doc: &Doc) -> Option<Severity> {
    doc.nonempty()
        .take(4)
        .find_map(|(_, line)| stated(Family::Cursor, line))
}

/// The `### Title` heading, without the `Bug:` prefix older Bugbot versions wrote.
fn heading(doc: &Doc) -> Option<String> {
    doc.nonempty()
        .take(3)
        .find(|(_, line)| line.trim_start().starts_with('#'))
        .map(|(_, line)| {
            let text = plain(line);
            let text = text
                .strip_prefix("Bug:")
                .or_else(|| text.strip_prefix("BUG:"))
                .map_or(text.as_str(), str::trim_start);
            title(text)
        })
        .filter(|t| !t.is_empty())
}

/// Whether the body is Cursor Bugbot's.
pub(crate) fn detect(_doc: &Doc, lower: &str) -> bool {
    lower.contains("bugbot_bug_id") || lower.contains("cursor bugbot")
}

/// Bugbot's posts that are not findings: its review bodies ("Bugbot reviewed your changes
/// and found no new issues", "... found N potential issues") and quota notices.
fn non_finding(lower: &str) -> Option<(NonFinding, &'static str)> {
    if lower.contains("run out of free bugbot") || lower.contains("bugbot is not enabled") {
        return Some((NonFinding::Notice, "Bugbot's quota notice"));
    }
    (lower.contains("<!-- bugbot_review -->")
        || lower.contains("bugbot reviewed your changes")
        || lower.contains("bugbot has reviewed your changes"))
    .then_some((NonFinding::Summary, "Bugbot's review body"))
}

/// Reads a Cursor Bugbot finding.
pub(crate) fn read(doc: &Doc, lower: &str) -> Reading {
    if let Some((kind, why)) = non_finding(lower) {
        return Reading::non_finding(doc, kind, why);
    }
    let severity = severity(doc);
    let title = heading(doc);
    let footer = doc
        .lines
        .iter()
        .any(|l| crate::markup::contains_ci(l, "cursor bugbot"));
    Reading {
        known: severity.is_some() || (title.is_some() && footer),
        title,
        severity,
        ..Reading::default()
    }
}

#[cfg(test)]
mod tests {
    use review_core::signals::{Concreteness, LadderHint, Scope, Severity};

    use crate::Family;
    use crate::families::fixture::read;

    const BUG: &str = r#"### Cache key ignores the locale

**High Severity**

<!-- DESCRIPTION START -->
The cache key is built from the path alone, so a page rendered for one locale is served to every other locale.
<!-- DESCRIPTION END -->

<!-- BUGBOT_BUG_ID: 0f3c2a9e-1111-4222-8333-944455556666 -->

[Fix in Cursor](https://cursor.com/open?data=abc) • [Fix in Web](https://cursor.com/agents?data=abc)

<sup>Reviewed by [Cursor Bugbot](https://cursor.com/bugbot) for commit 0123456789abcdef0123456789abcdef01234567. Configure [here](https://cursor.com/dashboard).</sup>"#;

    #[test]
    fn title_and_severity() {
        let f = read(Family::Cursor, BUG);
        assert!(f.format_known);
        assert_eq!(f.title, "Cache key ignores the locale");
        assert_eq!(f.severity, Severity::High);
        assert_eq!(f.concreteness, Concreteness::Vague);
        assert_eq!(f.scope, Scope::SingleFile);
        assert_eq!(f.ladder_hint, LadderHint::StopAndAsk);
    }

    #[test]
    fn medium_and_low() {
        let medium = BUG.replace("High Severity", "Medium Severity");
        assert_eq!(read(Family::Cursor, &medium).severity, Severity::Medium);
        let low = BUG.replace("High Severity", "Low Severity");
        assert_eq!(read(Family::Cursor, &low).severity, Severity::Low);
    }

    #[test]
    fn additional_locations_in_other_files_widen_the_scope() {
        let body = BUG.replace(
            "<!-- BUGBOT_BUG_ID",
            "<details>\n<summary>Additional Locations (1)</summary>\n\n- [`src/render/page.ts#L40-L44`](https://github.com/acme/site/blob/abc/src/render/page.ts#L40-L44)\n\n</details>\n\n<!-- BUGBOT_BUG_ID",
        );
        let f = crate::read_finding(Family::Cursor, &body, "src/cache.ts");
        assert_eq!(f.scope, Scope::MultiFile);
    }
}
