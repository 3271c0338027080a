//! Tools whose posts on a pull request are mostly status: Amazon Q Developer, Jules, Vercel,
//! SonarQube Cloud, and Korbit's issue tables. Each recognises its notices and summaries (not
//! findings); anything else they post is an unknown format unless noted.

use review_core::signals::NonFinding;

use super::Reading;
use crate::doc::Doc;
use crate::markup::{plain, title};

/// A notice or summary recognised by phrases: `(family's words, kind, why)`.
fn by_phrases(doc: &Doc, lower: &str, phrases: &[(&str, NonFinding, &str)]) -> Option<Reading> {
    phrases
        .iter()
        .find(|(p, _, _)| lower.contains(p))
        .map(|&(_, kind, why)| Reading::non_finding(doc, kind, why))
}

/// Amazon Q Developer: its error, refusal and progress notices; anything else is a finding in
/// plain prose.
pub(crate) fn read_amazonq(doc: &Doc, lower: &str) -> Reading {
    by_phrases(
        doc,
        lower,
        &[
            (
                "not able to complete the code review",
                NonFinding::Notice,
                "Amazon Q's error notice",
            ),
            (
                "unable to complete the code review",
                NonFinding::Notice,
                "Amazon Q's error notice",
            ),
            (
                "unable to complete the pull request revision",
                NonFinding::Notice,
                "Amazon Q's error notice",
            ),
            (
                "internal service error",
                NonFinding::Notice,
                "Amazon Q's error notice",
            ),
            (
                "not able to suggest a fix for this review finding",
                NonFinding::Notice,
                "Amazon Q's notice that it has no fix to offer",
            ),
            (
                "i'll review this pull request",
                NonFinding::Notice,
                "Amazon Q's acknowledgement",
            ),
            (
                "i'm reviewing this pull request",
                NonFinding::Notice,
                "Amazon Q's review-started notice",
            ),
            (
                "i finished the code review",
                NonFinding::Summary,
                "Amazon Q's review-finished notice",
            ),
        ],
    )
    // Its findings are plain prose, as Copilot's: known by the login, no severity stated.
    .unwrap_or(Reading {
        known: true,
        ..Reading::default()
    })
}

/// Whether the body is Jules's.
pub(crate) fn detect_jules(_doc: &Doc, lower: &str) -> bool {
    lower.contains("jules, reporting for duty") || lower.contains("jules.google")
}

/// Jules: its greeting and status notices.
pub(crate) fn read_jules(doc: &Doc, lower: &str) -> Reading {
    by_phrases(
        doc,
        lower,
        &[("reporting for duty", NonFinding::Notice, "Jules's greeting")],
    )
    .unwrap_or_default()
}

/// Whether the body is Vercel's.
pub(crate) fn detect_vercel(_doc: &Doc, lower: &str) -> bool {
    lower.starts_with("[vc]:")
        || lower.contains("vercel.link/github-learn-more")
        || (lower.contains("attempting to deploy a commit") && lower.contains("vercel.com"))
}

/// Vercel: deployment status tables and authorisation requests.
pub(crate) fn read_vercel(doc: &Doc, lower: &str) -> Reading {
    by_phrases(
        doc,
        lower,
        &[
            (
                "the latest updates on your projects",
                NonFinding::Notice,
                "Vercel's deployment status",
            ),
            (
                "attempting to deploy a commit",
                NonFinding::Notice,
                "Vercel's deployment authorisation request",
            ),
            ("[vc]:", NonFinding::Notice, "Vercel's deployment status"),
        ],
    )
    .unwrap_or_default()
}

/// Whether the body is SonarQube Cloud's.
pub(crate) fn detect_sonarqube(_doc: &Doc, lower: &str) -> bool {
    lower.contains("sonarcloud.io") && lower.contains("quality gate")
}

/// SonarQube Cloud: the quality-gate summary.
pub(crate) fn read_sonarqube(doc: &Doc, lower: &str) -> Reading {
    by_phrases(
        doc,
        lower,
        &[
            (
                "quality gate passed",
                NonFinding::Summary,
                "SonarQube's quality-gate summary",
            ),
            (
                "quality gate failed",
                NonFinding::Summary,
                "SonarQube's quality-gate summary",
            ),
        ],
    )
    .unwrap_or_default()
}

/// Korbit: an issue table (`| Category | Issue | Status |`) whose row names the issue; the
/// description follows.
pub(crate) fn read_korbit(doc: &Doc) -> Reading {
    if let Some(reading) = korbit_heading(doc) {
        return reading;
    }
    let header = doc
        .nonempty()
        .next()
        .map(|(i, _)| doc.plain_of(i).to_lowercase());
    if !header.is_some_and(|h| h.contains("category") && h.contains("issue")) {
        return Reading::default();
    }
    let row = doc
        .lines
        .iter()
        .skip_while(|l| !l.trim_start().starts_with('|'))
        .filter(|l| l.trim_start().starts_with('|'))
        .nth(2);
    let issue = row.and_then(|r| r.split('|').map(str::trim).nth(2).map(plain));
    Reading {
        known: true,
        title: issue.map(|i| title(&i)).filter(|t| !t.is_empty()),
        ..Reading::default()
    }
}

/// Korbit's inline finding: a heading that carries a category badge (`### Title
/// <sub>![category Functionality](...)</sub>`), then "What is the issue?", "Why this matters"
/// and "Suggested change" under a "Tell me more" fold. A Security category marks it so.
fn korbit_heading(doc: &Doc) -> Option<Reading> {
    let badge = doc
        .images
        .iter()
        .find(|img| img.alt.to_lowercase().starts_with("category "))?;
    let heading = doc.line_at(badge.line);
    if !heading.trim_start().starts_with('#') {
        return None;
    }
    let category = badge.alt.get("category ".len()..).unwrap_or("").trim();
    let text = plain(&heading);
    let text = text.trim_start_matches('#').trim();
    Some(Reading {
        known: true,
        title: Some(title(text)).filter(|t| !t.is_empty()),
        security: category
            .to_lowercase()
            .contains("security")
            .then(|| "Korbit's Security category".to_owned()),
        style: matches!(
            category.to_lowercase().as_str(),
            "readability" | "documentation" | "naming"
        ),
        ..Reading::default()
    })
}

#[cfg(test)]
mod tests {
    use review_core::signals::NonFinding;

    use crate::Family;
    use crate::families::fixture::read;

    #[test]
    fn notices_of_status_tools() {
        let q = "🔴 I'm not able to complete the code review at this moment because of an internal service error.";
        assert_eq!(
            read(Family::AmazonQ, q).non_finding,
            Some(NonFinding::Notice)
        );
        let j = "👋 Jules, reporting for duty! I'm here to lend a hand with this pull request.";
        assert_eq!(read(Family::Jules, j).non_finding, Some(NonFinding::Notice));
        let v = "[vc]: #abc=:xyz\nThe latest updates on your projects. Learn more about [Vercel for GitHub](https://vercel.link/github-learn-more).";
        assert_eq!(
            read(Family::Vercel, v).non_finding,
            Some(NonFinding::Notice)
        );
        let s = "## Quality Gate failed\n\n[See analysis details on SonarQube Cloud](https://sonarcloud.io/x)";
        assert_eq!(
            read(Family::SonarQube, s).non_finding,
            Some(NonFinding::Summary)
        );
        assert!(!read(Family::Jules, "Please fix the loop.").format_known);
    }

    #[test]
    fn korbit_issue_table() {
        let body = "| Category | Issue | Status |\n|---|---|---|\n| Error Handling | Exceptions from `run_job` are swallowed | Open |\n\nThe bare `except:` hides failures.";
        let f = read(Family::Korbit, body);
        assert!(f.format_known);
        assert_eq!(f.title, "Exceptions from run_job are swallowed");
    }

    #[test]
    fn amazon_q_progress_notices_and_plain_prose_findings() {
        let started = "⏳ I'm reviewing this pull request for security vulnerabilities and code quality issues.";
        assert_eq!(
            read(Family::AmazonQ, started).non_finding,
            Some(NonFinding::Notice)
        );
        for finished in [
            "✅ I finished the code review, and didn't find any security or code quality issues.",
            "✅ I finished the code review, and left comments with the issues I found.",
        ] {
            assert_eq!(
                read(Family::AmazonQ, finished).non_finding,
                Some(NonFinding::Summary),
                "{finished}"
            );
        }
        // A finding in plain prose is read as Copilot's is: known, no severity stated.
        let f = read(
            Family::AmazonQ,
            "The upload retries without a timeout, so a stalled connection holds a worker forever.",
        );
        assert!(f.format_known);
        assert_eq!(f.non_finding, None);
        assert_eq!(f.severity, review_core::signals::Severity::None);
    }

    #[test]
    fn korbit_inline_finding_with_a_category_badge() {
        let body = "### Page offset skips the first page <sub>![category Functionality](https://img.shields.io/badge/Functionality-e11d48)</sub>\n\n<details>\n  <summary>Tell me more</summary>\n\n###### What is the issue?\n`offset` is `page * size` while `page` starts at 1.\n\n###### Suggested change ∙ *Feature Preview*\nCompute the offset from `page - 1`.\n\n</details>";
        let f = read(Family::Korbit, body);
        assert!(f.format_known);
        assert_eq!(f.title, "Page offset skips the first page");
        assert_eq!(f.security, None);
        assert!(
            f.concreteness.is_concrete(),
            "the suggested change names it"
        );
        let security = body.replace("category Functionality", "category Security");
        assert!(read(Family::Korbit, &security).security.is_some());
        let readability = body.replace("category Functionality", "category Readability");
        assert!(read(Family::Korbit, &readability).style_only);
        // A badge outside a heading is not Korbit's finding format.
        let loose = "Some text ![category Functionality](https://img.shields.io/badge/x)";
        assert!(!read(Family::Korbit, loose).format_known);
    }
}
