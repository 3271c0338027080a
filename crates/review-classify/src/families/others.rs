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

/// Amazon Q Developer: error and refusal notices.
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
                "i'll review this pull request",
                NonFinding::Notice,
                "Amazon Q's acknowledgement",
            ),
        ],
    )
    .unwrap_or_default()
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
}
