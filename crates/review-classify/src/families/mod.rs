//! One reader per family. Each finds its family's markers (stated severity, title line, nitpick
//! and style labels) and says whether it found them; what every family shares (suggestion
//! blocks, flags, scope) is read in [`crate::read`].

use review_core::signals::{NonFinding, Severity};

pub(crate) mod codeant;
pub(crate) mod codeql;
pub(crate) mod coderabbit;
pub(crate) mod codex;
pub(crate) mod copilot;
pub(crate) mod cubic;
pub(crate) mod cursor;
pub(crate) mod deepsource;
pub(crate) mod gemini;
pub(crate) mod generic;
pub(crate) mod greptile;
pub(crate) mod kilo;
pub(crate) mod others;
pub(crate) mod qa;
pub(crate) mod qodo;
pub(crate) mod sourcery;

/// What a family's reader found.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Reading {
    /// The family's markers were found: the format is known.
    pub known: bool,
    /// The finding's title, plain, if the format places one.
    pub title: Option<String>,
    /// The stated severity, normalised through [`crate::severity::TABLE`].
    pub severity: Option<Severity>,
    /// The family marks the finding as a nitpick or a style category.
    pub style: bool,
    /// The family marks the finding as security-sensitive: what the mark is.
    pub security: Option<String>,
    /// The family marks the fix as more than a local change (CodeRabbit's heavy-lift pill): why.
    pub design: Option<String>,
    /// The comment is the family's summary or status notice, not a finding: which, and why.
    pub non_finding: Option<(NonFinding, String)>,
    /// The files the family says the fix touches (Qodo's "Fix Focus Areas"), when it says.
    pub fix_files: Vec<String>,
    /// The change the family's structured fix names (Qodo's "Suggested fix" with a code span).
    pub fix_named: Option<String>,
}

impl Reading {
    /// A known reading of a summary or notice, titled by its first line.
    pub(crate) fn non_finding(doc: &crate::doc::Doc, kind: NonFinding, why: &str) -> Self {
        Self {
            known: true,
            title: title_from(doc, 0),
            non_finding: Some((kind, why.to_owned())),
            ..Self::default()
        }
    }
}

impl Reading {
    /// The reading of a family that states severity with a badge image: known when the badge
    /// is there, titled from the text after it.
    pub(crate) fn from_badge(doc: &crate::doc::Doc, badge: Option<(usize, Severity)>) -> Self {
        match badge {
            Some((line, severity)) => Self {
                known: true,
                title: title_from(doc, line),
                severity: Some(severity),
                ..Self::default()
            },
            None => Self::default(),
        }
    }
}

/// The file name of an image source without directories, query or `.svg`, lower case.
pub(crate) fn image_name(src: &str) -> String {
    let path = src.split(['?', '#']).next().unwrap_or("");
    let name = path.rsplit('/').next().unwrap_or("");
    let name = name.strip_suffix(".svg").unwrap_or(name);
    name.to_ascii_lowercase()
}

/// A plain title from the first prose line at or after `from` that has text.
pub(crate) fn title_from(doc: &crate::doc::Doc, from: usize) -> Option<String> {
    doc.nonempty()
        .find(|(i, _)| *i >= from)
        .map(|(i, _)| line_title(&doc.line_at(i)))
        .filter(|t| !t.is_empty())
}

/// A line as a title: its bold part when it is bold as a whole, else its first sentence.
pub(crate) fn line_title(line: &str) -> String {
    let text = crate::markup::bold_line(line).unwrap_or(line);
    crate::markup::title(&crate::markup::plain(text))
}

/// A line as a title when it starts bold: the leading bold part, whatever follows it on the
/// line (labels, badges); else [`line_title`].
pub(crate) fn lead_title(line: &str) -> String {
    match crate::markup::leading_bold(line) {
        Some((inner, _)) if !crate::markup::plain(inner).is_empty() => {
            crate::markup::title(&crate::markup::plain(inner))
        }
        _ => line_title(line),
    }
}

#[cfg(test)]
pub(crate) mod fixture {
    //! Shared helpers for the per-family fixture tests.
    use crate::Family;
    use crate::Finding;

    /// Reads `body` as `family` on `src/lib.rs`.
    pub(crate) fn read(family: Family, body: &str) -> Finding {
        crate::read_finding(family, body, "src/lib.rs")
    }
}
