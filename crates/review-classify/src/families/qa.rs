//! Tools posting through a person's account with the automated header
//! (`🤖 Automated comment by **QA Swarm**`), and configured automation accounts. The finding
//! states a severity in plain words near the top: `**Severity: HIGH**`, `[HIGH] Title`,
//! `CRITICAL: Title`, or a line holding the word alone.

use review_core::signals::Severity;

use super::Reading;
use crate::Family;
use crate::doc::Doc;
use crate::markup::{plain, title};
use crate::severity::stated;

/// How many lines after the header may state the severity.
const SEVERITY_LINES: usize = 4;

/// A severity stated in plain words at the start of a plain line, and the rest of the line
/// when it can be a title.
pub(crate) fn stated_word(line: &str) -> Option<(Severity, &str)> {
    let lower = line.to_ascii_lowercase();
    let word_at = |from: usize| -> Option<(Severity, usize)> {
        let tail = line.get(from..)?;
        let len = tail
            .find(|c: char| !c.is_ascii_alphabetic())
            .unwrap_or(tail.len());
        stated(Family::QaHeader, tail.get(..len)?).map(|s| (s, from + len))
    };
    if let Some(at) = lower.find("severity") {
        // `Severity: HIGH`, `severity level - high`, `Severity is high`.
        let mut from = at + "severity".len();
        for _ in 0..3 {
            let rest = lower.get(from..)?;
            let skipped = rest.len()
                - rest
                    .trim_start_matches(|c: char| !c.is_ascii_alphanumeric())
                    .len();
            from += skipped;
            if let Some((sev, _)) = word_at(from) {
                return Some((sev, ""));
            }
            let rest = lower.get(from..)?;
            if rest.starts_with("level") || rest.starts_with("is") {
                from += if rest.starts_with("level") { 5 } else { 2 };
                continue;
            }
            break;
        }
        return None;
    }
    if let Some(inner) = line.strip_prefix('[') {
        let end = inner.find(']')?;
        if let Some(sev) = stated(Family::QaHeader, inner.get(..end)?) {
            return Some((sev, inner.get(end + 1..)?.trim()));
        }
        // `[reviewer-tag] 🟠 HIGH`: a tag naming who found it, then the severity (after an
        // emoji or two).
        let after = inner.get(end + 1..)?;
        let word = after.trim_start_matches(|c: char| !c.is_ascii_alphabetic());
        let at = line.len() - word.len();
        let (sev, stop) = word_at(at)?;
        let rest = line
            .get(stop..)?
            .trim_start_matches(|c: char| c == ':' || c == '-' || c == '—' || c.is_whitespace());
        return Some((sev, rest.trim()));
    }
    let (sev, end) = word_at(0)?;
    let rest = line.get(end..)?;
    let trimmed = rest.trim_start();
    if rest.is_empty() {
        Some((sev, ""))
    } else if let Some(after) = trimmed
        .strip_prefix(':')
        .or_else(|| trimmed.strip_prefix(" -"))
        .or_else(|| trimmed.strip_prefix('-'))
        .or_else(|| trimmed.strip_prefix('—'))
    {
        Some((sev, after.trim()))
    } else {
        None
    }
}

/// Reads a finding after an optional automated `header` line.
pub(crate) fn read(doc: &Doc, header: &str) -> Reading {
    let mut lines = doc.nonempty().peekable();
    let mut known = false;
    // The header may open the comment, or an alert that opens it (`> [!NOTE]`, then
    // `> 🤖 Automated comment by ...`): the gate's rule (`starts_with_header`).
    let text: Vec<&str> = doc.nonempty().map(|(_, l)| l).collect();
    if !header.is_empty() && review_core::gate::starts_with_header(&text.join("\n"), header) {
        known = true;
        while let Some((_, line)) = lines.peek() {
            let line = line.trim_start();
            let quoted = line.starts_with('>');
            let is_header = line
                .trim_start_matches('>')
                .trim_start()
                .starts_with(header);
            if quoted || is_header {
                lines.next();
                if is_header {
                    break;
                }
            } else {
                break;
            }
        }
        // What is left of the alert (blank quoted lines).
        while lines
            .peek()
            .is_some_and(|(_, l)| l.trim_start().trim_start_matches('>').trim().is_empty())
        {
            lines.next();
        }
    }
    let mut severity = None;
    let mut found_title = None;
    for (n, (_, line)) in lines.enumerate() {
        let p = plain(line);
        if severity.is_none()
            && n < SEVERITY_LINES
            && let Some((sev, rest)) = stated_word(&p)
        {
            severity = Some(sev);
            if found_title.is_none() && !rest.is_empty() {
                found_title = Some(title(rest));
            }
            continue;
        }
        if found_title.is_none() {
            let text = crate::markup::bold_line(line).map_or_else(|| p.clone(), plain);
            found_title = Some(title(&text)).filter(|t| !t.is_empty());
        }
        if found_title.is_some() && (severity.is_some() || n >= SEVERITY_LINES) {
            break;
        }
    }
    let summary = found_title.as_deref().is_some_and(is_summary_title);
    Reading {
        known: known || severity.is_some(),
        non_finding: summary.then(|| {
            (
                review_core::signals::NonFinding::Summary,
                "the tool's review summary".to_owned(),
            )
        }),
        title: found_title,
        severity,
        security: security_category(doc),
        ..Reading::default()
    }
}

/// A title that opens a review summary (`Review summary for 9d41c2e: 3 findings ...`) or a
/// verdict (`APPROVE WITH NITS (round 3 @ 9c2e41b)`), not a finding.
fn is_summary_title(title: &str) -> bool {
    let lower = title.to_lowercase();
    let lower = lower
        .strip_prefix("verdict:")
        .unwrap_or(&lower)
        .trim_start();
    // The phrase is the whole heading, or is followed by what a summary puts after it (a
    // colon, "for <sha>", a parenthesis): "Approve button does nothing" is a finding.
    let heading = |phrase: &str, after: &[&str]| {
        lower.strip_prefix(phrase).is_some_and(|rest| {
            let rest = rest.trim_end();
            rest.is_empty() || after.iter().any(|a| rest.starts_with(a))
        })
    };
    const SUMMARY_AFTER: &[&str] = &[":", " for ", " (", " —", " -"];
    // A verdict heading (`## 💬 APPROVE WITH NITS (round 3 @ 9c2e41b)`): the round's summary.
    const VERDICT_AFTER: &[&str] = &[" (", ":", " —", " -", " with nits"];
    [
        "review summary",
        "summary of the review",
        "qa summary",
        "review complete",
    ]
    .iter()
    .any(|p| heading(p, SUMMARY_AFTER))
        || [
            "approve",
            "approved",
            "request changes",
            "changes requested",
            "blocked",
        ]
        .iter()
        .any(|p| heading(p, VERDICT_AFTER))
}

/// A `Category: Security` field (a tool's own classification of the finding).
fn security_category(doc: &Doc) -> Option<String> {
    doc.nonempty().take(8).find_map(|(i, _)| {
        let p = doc.plain_of(i).to_lowercase();
        p.split('|').find_map(|field| {
            let (key, value) = field.split_once(':')?;
            (key.trim() == "category" && value.contains("security"))
                .then(|| "the tool's Security category".to_owned())
        })
    })
}

#[cfg(test)]
mod tests {
    use review_core::signals::{Concreteness, Severity};

    use super::stated_word;
    use crate::Family;
    use crate::families::fixture::read;

    #[test]
    fn stated_words() {
        assert_eq!(stated_word("Severity: HIGH"), Some((Severity::High, "")));
        assert_eq!(
            stated_word("Severity level - critical · security reviewer"),
            Some((Severity::Critical, ""))
        );
        assert_eq!(
            stated_word("[HIGH] Missing null check"),
            Some((Severity::High, "Missing null check"))
        );
        assert_eq!(
            stated_word("CRITICAL: SQL built from input"),
            Some((Severity::Critical, "SQL built from input"))
        );
        assert_eq!(stated_word("LOW"), Some((Severity::Low, "")));
        assert_eq!(stated_word("Highly unusual"), None);
        assert_eq!(stated_word("High time we fixed this"), None);
        assert_eq!(stated_word("The severity of this is unclear"), None);
    }

    #[test]
    fn header_then_bold_severity_then_title() {
        let body = "🤖 Automated comment by **QA Swarm**\n\n**Severity: HIGH**\n\n**Missing null check in `parse_header`**\n\n`hdr` is `None` when the request has no host.\n\n```suggestion\n    let hdr = hdr.ok_or(Error::NoHost)?;\n```";
        let f = read(Family::QaHeader, body);
        assert!(f.format_known);
        assert_eq!(f.severity, Severity::High);
        assert_eq!(f.title, "Missing null check in parse_header");
        assert!(matches!(f.concreteness, Concreteness::Suggestion(_)));
    }

    #[test]
    fn bracket_and_colon_forms() {
        let body = "🤖 Automated comment by **QA Swarm**\n\n[CRITICAL] Password compared with `==`\n\nUse a constant-time comparison.";
        let f = read(Family::QaHeader, body);
        assert_eq!(f.severity, Severity::Critical);
        assert_eq!(f.title, "Password compared with ==");

        let body = "🤖 Automated comment by **QA Swarm**\nMEDIUM: Retry count is off by one";
        let f = read(Family::QaHeader, body);
        assert_eq!(f.severity, Severity::Medium);
        assert_eq!(f.title, "Retry count is off by one");
    }

    #[test]
    fn header_alone_gives_no_header_title() {
        let f = read(
            Family::QaHeader,
            "🤖 Automated comment by **QA Swarm**\n\n**HIGH**",
        );
        assert_eq!(f.severity, Severity::High);
        assert_eq!(f.title, "");
    }

    #[test]
    fn no_stated_severity() {
        let body =
            "🤖 Automated comment by **QA Swarm**\n\nThe loop might be slow on large inputs.";
        let f = read(Family::QaHeader, body);
        assert!(f.format_known);
        assert_eq!(f.severity, Severity::None);
        assert_eq!(f.title, "The loop might be slow on large inputs");
        assert!(f.speculative);
    }

    #[test]
    fn the_tools_review_summary_is_not_a_finding() {
        let body = "🤖 Automated comment by **review-bot**\n\nReview summary for 9d41c2e: 3 findings (1 critical, 1 medium, 1 low), posted inline.";
        let f = read(Family::QaHeader, body);
        assert!(f.format_known);
        assert_eq!(
            f.non_finding,
            Some(review_core::signals::NonFinding::Summary)
        );
        let verdict = "<!-- shepherd-swarm-summary -->\n🤖 Automated comment by **Shepherd swarm**\n\n## 💬 APPROVE WITH NITS <sub>(round 3 @ 9c2e41b)</sub>\n\n### Findings\n- LOW `a.ts:5` naming";
        assert_eq!(
            read(Family::QaHeader, verdict).non_finding,
            Some(review_core::signals::NonFinding::Summary)
        );
        for title in [
            "Approve button does nothing when the form is dirty",
            "Review summary page crashes on an empty PR",
            "Blocked users can still post",
        ] {
            let body = format!("🤖 Automated comment by **review-bot**\n\n**{title}**\n\nDetails.");
            assert_eq!(read(Family::QaHeader, &body).non_finding, None, "{title}");
        }
        let finding = "🤖 Automated comment by **review-bot**\n\n**Severity: HIGH**\n\nThe summary row drops the last invoice.";
        assert_eq!(read(Family::QaHeader, finding).non_finding, None);
    }
}
