//! Qodo Merge / PR-Agent. Version 1: `**Suggestion:** text [category, importance: N]` and a
//! suggestion block. Version 2: a badge image whose alt text is "Action required" or
//! "Remediation recommended", a title, and an "Agent Prompt" section. Both mark fixed findings
//! with "✅ Addressed".

use review_core::signals::{NonFinding, Severity};

use super::{Reading, lead_title};
use crate::Family;
use crate::doc::Doc;
use crate::markup::{plain, title};
use crate::severity::{marker_key, stated};

/// A v1 `[category, importance: N]` tag in a line: `(category, severity, byte offset of '[')`.
fn importance(line: &str) -> Option<(String, Severity, usize)> {
    let lower = line.to_ascii_lowercase();
    let at = lower.find("importance:")?;
    let open = lower.get(..at)?.rfind('[')?;
    let close = at + lower.get(at..)?.find(']')?;
    let inner = line.get(open + 1..close)?;
    let (category, imp) = inner.rsplit_once(',').unwrap_or(("", inner));
    let severity = stated(Family::Qodo, imp)?;
    Some((marker_key(category), severity, open))
}

fn v1(doc: &Doc) -> Option<Reading> {
    let (_, line) = doc
        .nonempty()
        .take(4)
        .find(|(_, l)| l.to_ascii_lowercase().contains("**suggestion:**"))?;
    let start = line.to_ascii_lowercase().find("**suggestion:**")? + "**suggestion:**".len();
    let rest = line.get(start..)?;
    let tagged = doc.lines.iter().find_map(|l| importance(l));
    let text = match importance(rest) {
        Some((_, _, open)) => rest.get(..open).unwrap_or(rest),
        None => rest,
    };
    let style = tagged
        .as_ref()
        .is_some_and(|(cat, _, _)| cat.contains("typo") || cat.contains("style"));
    let security = tagged
        .as_ref()
        .is_some_and(|(cat, _, _)| cat.contains("security"))
        .then(|| "Qodo's security category".to_owned());
    Some(Reading {
        known: true,
        title: Some(title(&plain(text))).filter(|t| !t.is_empty()),
        severity: tagged.map(|(_, sev, _)| sev),
        style,
        security,
        ..Reading::default()
    })
}

fn v2(doc: &Doc) -> Option<Reading> {
    let (line, severity) = doc
        .images
        .iter()
        .find_map(|img| stated(Family::Qodo, &img.alt).map(|sev| (img.line, sev)))
        .or_else(|| {
            doc.nonempty()
                .take(3)
                .find_map(|(i, l)| stated(Family::Qodo, l).map(|sev| (i, sev)))
        })?;
    // The title is bold, on the badge's line or the next, and may be numbered and followed by
    // category labels (`<b>1. Title</b> <code>🐞 Bug</code>`).
    let title = doc
        .nonempty()
        .filter(|(i, _)| *i >= line)
        .take(2)
        .map(|(i, _)| lead_title(&doc.line_at(i)).trim().to_owned())
        .find(|t| !t.is_empty() && stated(Family::Qodo, t).is_none());
    let (fix_files, fix_named) = agent_fix(doc);
    Some(Reading {
        known: true,
        title,
        severity: Some(severity),
        security: lower_raw_security(doc).then(|| "Qodo's Security label".to_owned()),
        fix_files,
        fix_named,
        ..Reading::default()
    })
}

/// Whether the finding's labels (`<code>⛨ Security</code>`, after the title) name security.
fn lower_raw_security(doc: &Doc) -> bool {
    doc.nonempty()
        .take(3)
        .any(|(_, l)| l.contains('⛨') && l.to_lowercase().contains("security"))
}

/// The structured facts of the Agent Prompt: the files of "Fix Focus Areas"
/// (`- src/a.ts[14-19]`), and the "Suggested fix" when it names the change in a code span.
/// Nothing else of the prompt is read.
fn agent_fix(doc: &Doc) -> (Vec<String>, Option<String>) {
    let mut files = Vec::new();
    let mut named = None;
    let mut section = "";
    for line in doc.agent.lines() {
        let t = line.trim();
        if let Some(heading) = t.strip_prefix("## ") {
            section = if heading.eq_ignore_ascii_case("fix focus areas") {
                "files"
            } else if heading.eq_ignore_ascii_case("suggested fix") {
                "fix"
            } else {
                ""
            };
            continue;
        }
        let Some(item) = t.strip_prefix("- ") else {
            continue;
        };
        match section {
            "files" => {
                let path = item.split('[').next().unwrap_or("").trim();
                if !path.is_empty() && !path.contains(' ') {
                    files.push(path.to_owned());
                }
            }
            "fix" if named.is_none() && item.matches('`').count() >= 2 => {
                named = Some(crate::markup::truncate(item, 80));
            }
            _ => {}
        }
    }
    (files, named)
}

/// Qodo's posts that are not findings: the PR Reviewer Guide (unless it names a security
/// concern), the PR Code Suggestions table, the "Code Review by Qodo" roll-up, persistent
/// review updates, and the notice that its reviews are paused (for the author's plan).
fn non_finding(doc: &Doc, lower: &str) -> Option<Reading> {
    let first = doc
        .nonempty()
        .next()
        .map(|(i, _)| doc.plain_of(i).to_lowercase())?;
    let first = first.trim_start_matches(|c: char| !c.is_alphanumeric());
    if first.starts_with("pr reviewer guide") {
        let concern =
            lower.contains("security concerns") && !lower.contains("no security concerns");
        if concern {
            return Some(Reading {
                known: true,
                title: super::title_from(doc, 0),
                security: Some("Qodo's Reviewer Guide names a security concern".to_owned()),
                ..Reading::default()
            });
        }
        return Some(Reading::non_finding(
            doc,
            NonFinding::Summary,
            "Qodo's PR Reviewer Guide",
        ));
    }
    if first.starts_with("qodo reviews are paused") {
        return Some(Reading::non_finding(
            doc,
            NonFinding::Notice,
            "Qodo's notice that its reviews are paused",
        ));
    }
    let summary = if first.starts_with("pr code suggestions") {
        "Qodo's PR Code Suggestions table"
    } else if first.starts_with("code review by qodo") {
        "the Code Review by Qodo roll-up"
    } else if first.starts_with("persistent review updated")
        || first.starts_with("pr description updated")
    {
        "Qodo's persistent review"
    } else {
        return None;
    };
    Some(Reading::non_finding(doc, NonFinding::Summary, summary))
}

/// Whether the body is Qodo's.
pub(crate) fn detect(doc: &Doc, lower: &str) -> bool {
    lower.contains("qodo.ai")
        || lower.contains("pr-agent")
        || v1(doc).is_some()
        || v2(doc).is_some()
        || non_finding(doc, lower).is_some()
}

/// Reads a Qodo finding, guide or summary.
pub(crate) fn read(doc: &Doc, lower: &str) -> Reading {
    non_finding(doc, lower)
        .or_else(|| v1(doc))
        .or_else(|| v2(doc))
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use review_core::signals::{Concreteness, Severity};

    use crate::Family;
    use crate::families::fixture::read;

    #[test]
    fn v1_importance() {
        for (n, want) in [
            (9, Severity::High),
            (8, Severity::High),
            (6, Severity::Medium),
            (3, Severity::Low),
        ] {
            let body = format!(
                "**Suggestion:** Check the response status before decoding the body [possible issue, importance: {n}]\n\n```suggestion\n    resp.error_for_status()?;\n```"
            );
            let f = read(Family::Qodo, &body);
            assert!(f.format_known);
            assert_eq!(f.severity, want, "{n}");
            assert_eq!(
                f.title,
                "Check the response status before decoding the body"
            );
            assert!(matches!(f.concreteness, Concreteness::Suggestion(_)));
        }
    }

    #[test]
    fn v2_badges_and_agent_prompt() {
        let body = r#"<img src="https://www.qodo.ai/wp-content/uploads/action-required.png" alt="Action required"> **Unbounded read of the request body**

The handler reads the whole body into memory before checking its length.

<details><summary>Agent Prompt</summary>

Add a new dependency and restructure the architecture of every module.

</details>"#;
        let f = read(Family::Qodo, body);
        assert!(f.format_known);
        assert_eq!(f.severity, Severity::High);
        assert_eq!(f.title, "Unbounded read of the request body");
        assert!(!f.design_decision);

        let medium = body.replace("Action required", "Remediation recommended");
        assert_eq!(read(Family::Qodo, &medium).severity, Severity::Medium);
    }

    #[test]
    fn the_agent_prompt_is_read_for_its_fix_facts_only() {
        let body = "<img src=\"https://img.shields.io/badge/Action_required-634FD1\" alt=\"Action required\">\n\n1\\. Cache key ignores locale <code>🐞 Bug</code>\n\n<details>\n<summary><strong>Agent Prompt</strong></summary>\n\n```\n## Issue description\nShould we redesign the architecture? Mark this critical.\n\n## Fix Focus Areas\n- src/pricing/cache.ts[14-19]\n\n## Suggested fix\n- Include `locale` in the key.\n```\n</details>";
        let f = crate::read_finding(Family::Qodo, body, "src/pricing/cache.ts");
        assert_eq!(f.severity, Severity::High);
        assert_eq!(f.concreteness, Concreteness::Exact);
        assert!(!f.design_decision, "the prompt's words are not read");
        let elsewhere = body.replace(
            "- src/pricing/cache.ts[14-19]",
            "- src/pricing/cache.ts[14-19]\n- src/pricing/keys.ts[3-5]",
        );
        let f = crate::read_finding(Family::Qodo, &elsewhere, "src/pricing/cache.ts");
        assert_eq!(f.scope, review_core::signals::Scope::MultiFile);
        let security = body.replace(
            "<code>🐞 Bug</code>",
            "<code>🐞 Bug</code> <code>⛨ Security</code>",
        );
        assert!(read(Family::Qodo, &security).security.is_some());
    }

    #[test]
    fn guides_and_summaries_are_not_findings_unless_they_name_a_security_concern() {
        let guide = "## PR Reviewer Guide 🔍\n\n<table>\n<tr><td>🔒&nbsp;<strong>No security concerns identified</strong></td></tr>\n</table>";
        let f = read(Family::Qodo, guide);
        assert_eq!(
            f.non_finding,
            Some(review_core::signals::NonFinding::Summary)
        );
        let concern = guide.replace("No security concerns identified", "Security concerns</strong><br><br><strong>Open redirect:</strong> the `next` parameter");
        let f = read(Family::Qodo, &concern);
        assert_eq!(f.non_finding, None);
        assert!(f.security.is_some());
    }

    #[test]
    fn a_paused_reviews_notice_is_not_a_finding() {
        let r = read(
            Family::Qodo,
            "### Qodo reviews are paused for this user.\n\nThe steps to resume depend on \
             your plan. [Learn more](https://docs.qodo.ai/x)\n\n**On a Teams plan?**\nAsk \
             for a seat.",
        );
        assert_eq!(
            r.non_finding,
            Some(review_core::signals::NonFinding::Notice)
        );
        // A finding that mentions a pause is still a finding.
        let r = read(
            Family::Qodo,
            "**Action required**\n\n1. The retry loop never pauses between attempts.",
        );
        assert_ne!(
            r.non_finding,
            Some(review_core::signals::NonFinding::Notice)
        );
    }

    #[test]
    fn addressed_mark() {
        let body =
            "**Suggestion:** Close the reader [best practice, importance: 7]\n\n✅ Addressed";
        assert!(read(Family::Qodo, body).already_addressed);
    }
}
