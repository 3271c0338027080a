//! CodeRabbit: a header line of italic pills separated by `|`, then a bold title.
//!
//! The header names a kind (`_⚠️ Potential issue_`, `_🛠️ Refactor suggestion_`, `🧹 Nitpick`)
//! or, in the late-2026 variant, a category (`_🎯 Functional Correctness_`) and an effort pill
//! (`_⚡ Quick win_`), and usually a severity pill (`_🟠 Major_`).

use review_core::signals::{NonFinding, Severity};

use super::{Reading, line_title};
use crate::Family;
use crate::doc::Doc;
use crate::markup::is_emoji;
use crate::severity::{marker_key, stated};

/// Kind labels CodeRabbit puts in the header.
const KINDS: &[&str] = &[
    "potential issue",
    "refactor suggestion",
    "verification agent",
    "codebase verification",
    "outside diff range",
    "duplicate comment",
];

/// Words of category pills that mark a style-only finding.
const STYLE_CATEGORIES: &[&str] = &[
    "style",
    "format",
    "naming",
    "readab",
    "typo",
    "wording",
    "grammar",
    "documentation",
    "docs",
    "comment",
];

/// How many leading prose lines may hold the header (a relaying tool may add its own first).
const HEADER_LINES: usize = 3;

fn is_effort(key: &str) -> bool {
    key.contains("quick win") || key.ends_with(" lift") || key.ends_with(" effort")
}

fn is_italic(segment: &str) -> bool {
    let s = segment.trim();
    (s.starts_with('_') && s.ends_with('_')) || (s.starts_with('*') && s.ends_with('*'))
}

/// What a header line of pills says.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Header {
    /// The severity pill.
    pub severity: Option<Severity>,
    /// A nitpick or a style category.
    pub style: bool,
    /// The category pill names security (`_🔒 Security & Privacy_`).
    pub security: bool,
    /// The effort pill says the fix is a heavy lift (`_🏗️ Heavy lift_`).
    pub heavy: bool,
}

/// Reads a header line: what it states, or `None` when the line is not a CodeRabbit header.
pub(crate) fn header(line: &str) -> Option<Header> {
    let segments: Vec<&str> = line.split('|').map(str::trim).collect();
    let mut recognised = false;
    let mut out = Header::default();
    let mut categories = Vec::new();
    for segment in &segments {
        // Every pill is italic or carries its emoji; plain words are someone's prose.
        if !(is_italic(segment) || segment.chars().any(is_emoji)) {
            return None;
        }
        let key = marker_key(segment);
        if key == "nitpick" || (key.starts_with("nitpick ") && segment.contains('🧹')) {
            recognised = true;
            out.severity = Some(Severity::Nit);
        } else if let Some(s) = stated(Family::CodeRabbit, segment) {
            recognised = true;
            out.severity.get_or_insert(s);
        } else if KINDS.contains(&key.as_str()) || is_effort(&key) {
            recognised = true;
            out.heavy |= key.ends_with("heavy lift");
        } else if segments.len() > 1 {
            categories.push(key);
        } else {
            return None;
        }
    }
    out.style = out.severity == Some(Severity::Nit)
        || categories
            .iter()
            .any(|c| STYLE_CATEGORIES.iter().any(|s| c.contains(s)));
    out.security = categories.iter().any(|c| c.contains("security"));
    recognised.then_some(out)
}

/// The header's prose line and what it says.
fn find_header(doc: &Doc) -> Option<(usize, Header)> {
    doc.nonempty()
        .take(HEADER_LINES)
        .find_map(|(i, line)| header(line).map(|h| (i, h)))
}

/// Whether the body is CodeRabbit's.
pub(crate) fn detect(doc: &Doc, lower: &str) -> bool {
    lower.contains("auto-generated comment by coderabbit")
        || lower.contains("auto-generated reply by coderabbit")
        || lower.contains("<!-- cr-comment:")
        || lower.contains("<!-- walkthrough_start -->")
        || find_header(doc).is_some()
}

/// CodeRabbit's posts that are not findings: review bodies that count the findings posted as
/// threads, the walkthrough, and status notices (rate limit, review limit, skipped or paused
/// reviews, acknowledgements of a command).
fn non_finding(doc: &Doc, lower: &str) -> Option<(NonFinding, &'static str)> {
    let first = doc
        .nonempty()
        .next()
        .map(|(i, _)| doc.plain_of(i).to_lowercase())?;
    if first.starts_with("actionable comments posted") {
        return Some((
            NonFinding::Summary,
            "\"Actionable comments posted\" review body",
        ));
    }
    if lower.contains("<!-- walkthrough_start -->") || first == "walkthrough" {
        return Some((NonFinding::Summary, "the walkthrough"));
    }
    if lower.contains("review in progress by coderabbit.ai")
        || lower.contains("currently processing new changes in this pr")
    {
        return Some((NonFinding::Notice, "\"review in progress\" notice"));
    }
    const NOTICES: &[(&str, &str)] = &[
        ("rate limit exceeded", "\"Rate limit exceeded\" notice"),
        ("review limit reached", "\"Review limit reached\" notice"),
        ("review skipped", "\"Review skipped\" notice"),
        ("reviews paused", "\"Reviews paused\" notice"),
        ("review failed", "\"Review failed\" notice"),
        ("actions performed", "acknowledgement of a command"),
    ];
    doc.nonempty()
        .take(3)
        .find_map(|(i, _)| {
            let p = doc.plain_of(i).to_lowercase();
            let p = p.trim_start_matches(|c: char| !c.is_alphanumeric());
            NOTICES
                .iter()
                .find(|(start, _)| p.starts_with(start))
                .map(|&(_, why)| why)
        })
        .map(|why| (NonFinding::Notice, why))
}

/// Reads a CodeRabbit finding.
pub(crate) fn read(doc: &Doc, lower: &str) -> Reading {
    let Some((at, header)) = find_header(doc) else {
        return match non_finding(doc, lower) {
            Some((kind, why)) => Reading::non_finding(doc, kind, why),
            None => Reading::default(),
        };
    };
    let title = doc
        .nonempty()
        .find(|(i, _)| *i > at)
        .map(|(i, _)| line_title(&doc.line_at(i)))
        .filter(|t| !t.is_empty());
    Reading {
        known: true,
        title,
        severity: header.severity,
        style: header.style,
        security: header
            .security
            .then(|| "CodeRabbit's 🔒 Security pill".to_owned()),
        design: header
            .heavy
            .then(|| "CodeRabbit marks the fix a 🏗️ Heavy lift".to_owned()),
        ..Reading::default()
    }
}

#[cfg(test)]
mod tests {
    use review_core::signals::{Concreteness, LadderHint, Scope, Severity};

    use crate::Family;
    use crate::families::fixture::read;

    const MAJOR: &str = r#"_⚠️ Potential issue_ | _🟠 Major_

**Guard against an empty `parts` slice.**

`parts[0]` panics when the header line has no separator, which a client controls.

<details>
<summary>🐛 Proposed fix</summary>

```diff
-    let name = parts[0];
+    let Some(name) = parts.first() else { return Err(Error::Malformed) };
```
</details>

<details>
<summary>📝 Committable suggestion</summary>

> ‼️ **IMPORTANT**
> Review this change before you commit it: check that nothing is missing and that the
> indentation matches.

```suggestion
    let Some(name) = parts.first() else { return Err(Error::Malformed) };
```

</details>

<details>
<summary>🤖 Prompt for AI Agents</summary>

```
In src/lib.rs around lines 40 - 42, should we refactor the architecture? Mark this as critical.
```

</details>

<!-- fingerprinting:phantom:poseidon:falcon -->

<!-- This is an auto-generated comment by CodeRabbit -->"#;

    #[test]
    fn potential_issue_major_with_committable_suggestion() {
        let f = read(Family::CodeRabbit, MAJOR);
        assert!(f.format_known);
        assert_eq!(f.severity, Severity::High);
        assert_eq!(f.title, "Guard against an empty parts slice");
        assert_eq!(
            f.concreteness,
            Concreteness::Suggestion(review_core::signals::Suggestion {
                lines: None,
                replacement:
                    "    let Some(name) = parts.first() else { return Err(Error::Malformed) };\n"
                        .to_owned(),
            })
        );
        // The agent prompt's "should we refactor the architecture" is not read.
        assert!(!f.design_decision);
        // The committable-suggestion note ("no missing lines") is not a stated defect.
        let hedged = MAJOR.replace(
            "`parts[0]` panics when the header line has no separator, which a client controls.",
            "You might want to use `first()` here.",
        );
        assert!(read(Family::CodeRabbit, &hedged).speculative);
        assert!(!f.style_only && !f.speculative && !f.already_addressed);
        assert_eq!(f.scope, Scope::SingleFile);
        assert_eq!(f.ladder_hint, LadderHint::JustDoIt);
    }

    #[test]
    fn skipped_committable_suggestion_leaves_the_proposed_fix() {
        let body = "_⚠️ Potential issue_ | _🔴 Critical_\n\n**Token is logged in plain text.**\n\nThe bearer token reaches the log line.\n\n<details>\n<summary>🛡️ Proposed fix</summary>\n\n```diff\n-    info!(\"token={token}\");\n+    info!(\"token=<redacted>\");\n```\n</details>\n\n📝 Committable suggestion skipped: line range outside the PR's diff.";
        let f = read(Family::CodeRabbit, body);
        assert_eq!(f.severity, Severity::Critical);
        assert_eq!(f.concreteness, Concreteness::Exact);
        assert!(f.suggestions.is_empty());
    }

    #[test]
    fn late_2026_category_and_effort_pills() {
        let body = "_🎯 Functional Correctness_ | _🟡 Minor_ | _⚡ Quick win_\n\n**Off-by-one in the page count.**\n\nThe last page is dropped when `total` divides evenly.";
        let f = read(Family::CodeRabbit, body);
        assert!(f.format_known);
        assert_eq!(f.severity, Severity::Medium);
        assert_eq!(f.title, "Off-by-one in the page count");
        assert!(!f.style_only);

        let security = "_🔒 Security & Privacy_ | _🟠 Major_ | _🏗️ Heavy lift_\n\n**Secrets are written to the cache directory.**";
        let f = read(Family::CodeRabbit, security);
        assert_eq!(f.severity, Severity::High);
        assert_eq!(f.security.as_deref(), Some("CodeRabbit's 🔒 Security pill"));
        assert!(f.design_decision, "a heavy lift is not a local fix");
        assert_eq!(
            f.why["design_decision"],
            "CodeRabbit marks the fix a 🏗️ Heavy lift"
        );

        let style =
            "_🎨 Code Style_ | _🔵 Trivial_ | _⚡ Quick win_\n\n**Prefer `let else` here.**";
        let f = read(Family::CodeRabbit, style);
        assert!(f.style_only);
        assert_eq!(f.severity, Severity::Low);
    }

    #[test]
    fn nitpick_and_refactor_headers() {
        let nit = "_🧹 Nitpick_ | _🔵 Trivial_\n\n**Trailing whitespace in the doc comment.**";
        let f = read(Family::CodeRabbit, nit);
        assert_eq!(f.severity, Severity::Nit);
        assert!(f.style_only);

        let bare = "🧹 Nitpick\n\nRename `tmp` to `buffer`.";
        assert_eq!(read(Family::CodeRabbit, bare).severity, Severity::Nit);

        let refactor = "_🛠️ Refactor suggestion_\n\n**Extract the retry loop into a helper.**\n\nThe same loop appears three times in this function.";
        let f = read(Family::CodeRabbit, refactor);
        assert!(f.format_known);
        assert_eq!(f.severity, Severity::None);
        assert_eq!(f.title, "Extract the retry loop into a helper");
        assert_eq!(f.concreteness, Concreteness::Vague);

        let refactor_major = "_🛠️ Refactor suggestion_ | _🟠 Major_\n\n**Share one client.**";
        assert_eq!(
            read(Family::CodeRabbit, refactor_major).severity,
            Severity::High
        );
    }

    #[test]
    fn review_bodies_walkthroughs_and_notices_are_not_findings() {
        use review_core::signals::NonFinding;
        for (body, kind) in [
            (
                "**Actionable comments posted: 3**\n\n<details>...</details>",
                NonFinding::Summary,
            ),
            (
                "<!-- walkthrough_start -->\n\n## Walkthrough\n\nThe PR adds a cache.",
                NonFinding::Summary,
            ),
            (
                "> [!WARNING]\n> ## Rate limit exceeded\n>\n> Please wait 17 minutes.",
                NonFinding::Notice,
            ),
            (
                "> [!IMPORTANT]\n> ## Review skipped\n>\n> Draft detected.",
                NonFinding::Notice,
            ),
            (
                "<!-- This is an auto-generated comment: review in progress by coderabbit.ai -->\n\n> [!NOTE]\n> Currently processing new changes in this PR. This may take a few minutes, please wait...",
                NonFinding::Notice,
            ),
        ] {
            let f = read(Family::CodeRabbit, body);
            assert!(f.format_known, "{body}");
            assert_eq!(f.non_finding, Some(kind), "{body}");
        }
    }

    #[test]
    fn addressed_marker() {
        let body = format!("{MAJOR}\n\n✅ Addressed in commits 1a2b3c4 to 5d6e7f8");
        assert!(read(Family::CodeRabbit, &body).already_addressed);
    }

    #[test]
    fn missing_header_is_an_unknown_format_with_capped_severity() {
        let body = "**Guard against an empty slice.**\n\nThis is 🔴 Critical.";
        let f = read(Family::CodeRabbit, body);
        assert!(!f.format_known);
        assert!(!f.severity.is_high());
    }
}
