//! GitHub code scanning (CodeQL) alerts posted on a pull request: a heading naming the rule
//! (`## CodeQL / Insecure temporary file`, or the rule alone), one line of message and a "Show
//! more details" link to `.../security/code-scanning/N`. No severity, no fix.
//!
//! An alert is security-sensitive unless its rule is a code-quality rule ([`QUALITY`]): those
//! are style-only.

use super::Reading;
use crate::doc::Doc;
use crate::markup::title;

/// Words of CodeQL's code-quality rules (unused code, redundancy): style-only alerts.
const QUALITY: &[&str] = &[
    "unused import",
    "unused local",
    "unused variable",
    "unused parameter",
    "unused global",
    "unreachable code",
    "commented-out code",
    "redundant",
    "duplicate",
    "useless",
    "unnecessary",
    "empty except",
    "variable defined multiple times",
];

/// Words of CodeQL rules and messages about security.
const SECURITY: &[&str] = &[
    "insecure",
    "injection",
    "user-controlled",
    "user-provided",
    "user provided",
    "race condition",
    "unpinned",
    "clear-text",
    "cleartext",
    "hard-coded",
    "hardcoded",
    "uncontrolled",
    "untrusted",
    "cross-site",
    "redirect",
    "traversal",
    "weak",
    "cryptograph",
    "certificate",
    "permission",
    "exposure",
    "sensitive",
    "secret",
    "credential",
    "csrf",
    "ssrf",
    "xss",
];

/// The rule an alert names: the heading after `CodeQL /`, or the heading.
fn rule(doc: &Doc) -> Option<String> {
    let (i, line) = doc.nonempty().next()?;
    if !line.trim_start().starts_with('#') {
        return None;
    }
    let p = doc.plain_of(i);
    let p = p.trim_start_matches('#').trim();
    let rule = match p.split_once('/') {
        Some((tool, rule)) if tool.trim().eq_ignore_ascii_case("codeql") => rule.trim(),
        _ => p,
    };
    Some(rule.to_owned())
}

/// Whether the body is a code-scanning alert.
pub(crate) fn detect(_doc: &Doc, lower: &str) -> bool {
    lower.contains("/security/code-scanning/")
}

/// Reads a code-scanning alert.
pub(crate) fn read(doc: &Doc, lower: &str) -> Reading {
    let Some(rule) = rule(doc) else {
        return Reading::default();
    };
    if !detect(doc, lower) {
        return Reading::default();
    }
    let rule_lower = rule.to_lowercase();
    let message = doc
        .nonempty()
        .nth(1)
        .map(|(i, _)| doc.plain_of(i).to_lowercase())
        .unwrap_or_default();
    let security = SECURITY
        .iter()
        .any(|w| rule_lower.contains(w) || message.contains(w));
    let quality = !security && QUALITY.iter().any(|w| rule_lower.contains(w));
    Reading {
        known: true,
        title: Some(title(&rule)).filter(|t| !t.is_empty()),
        style: quality,
        security: security.then(|| format!("a CodeQL security alert: {rule}")),
        ..Reading::default()
    }
}

#[cfg(test)]
mod tests {
    use crate::Family;
    use crate::families::fixture::read;

    const LINK: &str = "[Show more details](https://github.com/acme/app/security/code-scanning/7)";

    #[test]
    fn security_and_quality_alerts() {
        let f = read(
            Family::CodeQl,
            &format!(
                "## Log injection\n\nThis log entry depends on a [user-provided value](1).\n\n{LINK}"
            ),
        );
        assert!(f.format_known);
        assert_eq!(f.title, "Log injection");
        assert!(f.security.is_some());
        let f = read(
            Family::CodeQl,
            &format!("## CodeQL / Unused import\n\nImport of 'itertools' is not used.\n\n{LINK}"),
        );
        assert_eq!(f.title, "Unused import");
        assert!(f.style_only && f.security.is_none());
        let f = read(
            Family::CodeQl,
            &format!("## CodeQL / Non-iterable used in for loop\n\nThis may fail.\n\n{LINK}"),
        );
        assert!(!f.style_only && f.security.is_none());
        assert!(!read(Family::CodeQl, "## Log injection\n\nno link").format_known);
    }
}
