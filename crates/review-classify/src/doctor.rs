//! React Doctor's report comment: the sticky PR comment its GitHub Action writes (and rewrites,
//! by deleting and posting again) after each scan. Its errors are findings to fix; its warnings
//! are advisory.
//!
//! The comment opens with the hidden marker `<!-- react-doctor -->`, then `## React Doctor`, a
//! count of new issues and, under `### Findings`, one `<details>` group per rule: the rule in
//! the `<summary>` (`<b>plugin/rule</b> · N occurrences`), then one bullet per diagnostic:
//! `` - ❌ `path:line` - message `` for an error, `⚠️` for a warning. An older form of the
//! Action posts the command's plain-text output in a code block instead: it names no error in a
//! form that can be read exactly, so it yields none (the comment is still a sticky report).

/// The hidden marker React Doctor's report comment opens with.
pub const MARKER: &str = "<!-- react-doctor -->";

/// One diagnostic of the report.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Diagnostic {
    /// `plugin/rule`, from its group's summary (empty when none was read).
    pub rule: String,
    /// The file, relative to the repository's root as the report writes it.
    pub path: String,
    /// The line, when the report names one.
    pub line: Option<u32>,
    /// The message, untrusted.
    pub message: String,
    /// An error (`❌`); else a warning (`⚠️`).
    pub error: bool,
}

/// The diagnostics a React Doctor report comment lists, or `None` when `body` is not one.
pub fn diagnostics(body: &str) -> Option<Vec<Diagnostic>> {
    let mut lines = body.lines().map(str::trim);
    if lines.by_ref().find(|l| !l.is_empty())? != MARKER {
        return None;
    }
    let mut rule = String::new();
    let mut found = Vec::new();
    for line in lines {
        if let Some(summary) = line.strip_prefix("<summary>") {
            rule = summary
                .strip_prefix("<b>")
                .and_then(|s| s.split_once("</b>"))
                .map(|(r, _)| r.trim().to_owned())
                .unwrap_or_default();
            continue;
        }
        let Some(rest) = line.strip_prefix("- ") else {
            continue;
        };
        let (error, rest) = if let Some(r) = rest.strip_prefix('❌') {
            (true, r)
        } else if let Some(r) = rest.strip_prefix("⚠️").or_else(|| rest.strip_prefix('⚠')) {
            (false, r)
        } else {
            continue;
        };
        let Some((at, message)) = rest
            .trim_start()
            .strip_prefix('`')
            .and_then(|r| r.split_once('`'))
        else {
            continue;
        };
        let message = message
            .trim_start()
            .strip_prefix('-')
            .unwrap_or(message)
            .trim();
        let (path, line) = match at.rsplit_once(':') {
            Some((path, line)) if line.parse::<u32>().is_ok() => (path, line.parse().ok()),
            _ => (at, None),
        };
        if path.is_empty() || message.is_empty() {
            continue;
        }
        found.push(Diagnostic {
            rule: rule.clone(),
            path: path.to_owned(),
            line,
            message: message.to_owned(),
            error,
        });
    }
    Some(found)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A report in the Action's format: two rules, errors and a warning, a remainder line and
    /// a suppression hint.
    const REPORT: &str = "<!-- react-doctor -->\n\n## React Doctor\n\n3 new issues (plus 4 baseline).\n\n\
**Score:** `81` / 100 (Great)\n\n### Findings\n\n<details>\n\
<summary><b>react-doctor/no-array-index-as-key</b> · 2 occurrences</summary>\n\n\
- ❌ `web/src/List.tsx:18` - Array index used as React key\n\
- ❌ `web/src/Table.tsx:40` - Array index used as React key\n\n\
Suppress with: `// eslint-disable-next-line react-doctor/no-array-index-as-key -- intentional`\n\
</details>\n\n<details>\n\
<summary><b>react-doctor/no-derived-state-effect</b> · 1 occurrence</summary>\n\n\
- ⚠️ `web/src/Form.tsx` - State derived in an effect; compute it while rendering\n\
- _+2 more in this rule_\n\n</details>";

    #[test]
    fn errors_and_warnings_are_read_with_their_rule_file_and_line() {
        let found = diagnostics(REPORT).unwrap();
        assert_eq!(found.len(), 3, "{found:?}");
        assert_eq!(
            found[0],
            Diagnostic {
                rule: "react-doctor/no-array-index-as-key".into(),
                path: "web/src/List.tsx".into(),
                line: Some(18),
                message: "Array index used as React key".into(),
                error: true,
            }
        );
        assert_eq!(found[1].line, Some(40));
        assert!(!found[2].error);
        assert_eq!(found[2].rule, "react-doctor/no-derived-state-effect");
        assert_eq!(found[2].line, None);
        assert_eq!(found[2].path, "web/src/Form.tsx");
    }

    #[test]
    fn a_clean_report_lists_nothing_and_other_comments_are_not_reports() {
        assert_eq!(
            diagnostics("<!-- react-doctor -->\n\n## React Doctor\n\nNo issues found."),
            Some(Vec::new())
        );
        // The older form: the command's output in a code block names nothing exactly.
        assert_eq!(
            diagnostics("<!-- react-doctor -->\n## 🩺 React Doctor\n\n```\n✗ 2 errors\n```"),
            Some(Vec::new())
        );
        assert_eq!(diagnostics("## React Doctor\n- ❌ `a.tsx:1` - x"), None);
        assert_eq!(diagnostics("Quoting: <!-- react-doctor -->"), None);
    }
}
