//! Findings without a thread: the ones a bot lists in a review body instead of posting inline.
//!
//! - CodeRabbit groups them in collapsible sections of the review body ("⚠️ Outside diff range
//!   comments (N)", older "🔭 Outside diff range comments", "🧹 Nitpick comments (N)", "♻️
//!   Duplicate comments (N)"), the first often inside a `> [!CAUTION]` quote. Each section has
//!   one `<details>` per file (`<summary>src/a.rs (2)</summary>`) holding items that start with
//!   a line range: `` `41-52`: **Title.** `` then prose, diffs and tool output.
//! - Copilot lists "Comments suppressed due to low confidence (N)" as `**path:line**` lines,
//!   each followed by a bullet with the comment.
//!
//! Sections addressed to agents or tools ("Prompt for AI Agents", "🧰 Tools", "Analysis chain")
//! are not read. Other families write no such sections: they get no findings.

use std::fmt;

use review_core::model::LineRange;
use review_core::signals::Severity;

use crate::doc::Doc;
use crate::families::{coderabbit, lead_title};
use crate::markup::{contains_ci, count_ci, plain, title};
use crate::{Family, fingerprint};

/// Which section of a review body a finding came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum ThreadlessKind {
    /// CodeRabbit's "Outside diff range comments": on lines the PR did not change.
    OutsideDiff,
    /// CodeRabbit's "Nitpick comments".
    Nitpick,
    /// CodeRabbit's "Duplicate comments": raised before and still not fixed.
    Duplicate,
    /// Copilot's "Comments suppressed due to low confidence".
    Suppressed,
}

impl ThreadlessKind {
    /// The name used in reports: `outside-diff`, `nitpick`, `duplicate`, `suppressed`.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::OutsideDiff => "outside-diff",
            Self::Nitpick => "nitpick",
            Self::Duplicate => "duplicate",
            Self::Suppressed => "suppressed",
        }
    }
}

impl fmt::Display for ThreadlessKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One finding listed in a review body.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ThreadlessFinding {
    /// The section it was listed in.
    pub kind: ThreadlessKind,
    /// The file it is about.
    pub path: String,
    /// The lines it names, when it names any.
    pub lines: Option<LineRange>,
    /// The one-line finding, markup stripped, at most 120 characters.
    pub title: String,
    /// The stated severity, normalised: `nit` for CodeRabbit's nitpick section, the item's own
    /// severity pill when it has one, else `none`.
    pub severity: Severity,
    /// The item's text as written (markdown), without the line-range prefix, agent prompts and
    /// tool output.
    pub text: String,
    /// The finding's fingerprint (see [`fingerprint()`](crate::fingerprint())): an inline re-post of the same finding by
    /// the same bot on the same file has the same key.
    pub fingerprint: String,
}

/// Splits a review body written by `family` into the findings it lists without a thread.
///
/// Reads CodeRabbit's outside-diff, nitpick and duplicate sections and Copilot's
/// suppressed-comment section; any other family, or a body without such sections, gives
/// nothing. Never panics.
///
/// ```
/// use review_classify::{threadless_findings, Family, ThreadlessKind};
/// use review_core::signals::Severity;
///
/// let body = "**Actionable comments posted: 1**\n\n<details>\n\
///             <summary>🧹 Nitpick comments (1)</summary><blockquote>\n\n<details>\n\
///             <summary>src/export/csv.rs (1)</summary><blockquote>\n\n\
///             `7-9`: **Keep the column list in one place.**\n\n\
///             The order is spelled out twice.\n\n\
///             </blockquote></details>\n\n</blockquote></details>";
/// let found = threadless_findings(body, Family::CodeRabbit);
/// assert_eq!(found.len(), 1);
/// assert_eq!(found[0].kind, ThreadlessKind::Nitpick);
/// assert_eq!(found[0].path, "src/export/csv.rs");
/// assert_eq!(found[0].lines.map(|l| (l.start, l.end)), Some((7, 9)));
/// assert_eq!(found[0].title, "Keep the column list in one place");
/// assert_eq!(found[0].severity, Severity::Nit);
/// ```
pub fn threadless_findings(review_body: &str, family: Family) -> Vec<ThreadlessFinding> {
    match family {
        Family::CodeRabbit | Family::Copilot => Scanner::new(family).scan(review_body),
        _ => Vec::new(),
    }
}

/// The section a `<summary>` opens, from its plain text.
fn section_kind(summary: &str) -> Option<ThreadlessKind> {
    if contains_ci(summary, "outside diff range comment") {
        Some(ThreadlessKind::OutsideDiff)
    } else if contains_ci(summary, "nitpick comment") {
        Some(ThreadlessKind::Nitpick)
    } else if contains_ci(summary, "duplicate comment") {
        Some(ThreadlessKind::Duplicate)
    } else if contains_ci(summary, "comments suppressed due to low confidence")
        || contains_ci(summary, "suppressed comment")
    {
        Some(ThreadlessKind::Suppressed)
    } else {
        None
    }
}

/// Sub-sections whose content is for agents or tools, not part of a finding.
fn skipped_summary(summary: &str) -> bool {
    contains_ci(summary, "prompt for ai agent")
        || contains_ci(summary, "agent prompt")
        || contains_ci(summary, "analysis chain")
        || contains_ci(summary, "learnings")
        || plain(summary).eq_ignore_ascii_case("tools")
}

/// A per-file summary, `src/a.rs (2)`: the path.
fn file_summary(summary: &str) -> Option<String> {
    let text = summary.trim();
    let (path, count) = text.rsplit_once(" (")?;
    let count = count.strip_suffix(')')?;
    let path = path.trim().trim_matches('`');
    let path_like = !path.is_empty()
        && !path.contains(char::is_whitespace)
        && (path.contains('/') || path.contains('.'));
    (path_like && !count.is_empty() && count.bytes().all(|b| b.is_ascii_digit()))
        .then(|| path.to_owned())
}

/// The text of a `<summary>` on a line, cleaned to plain text.
fn summary_text(line: &str) -> Option<String> {
    let lower = line.to_ascii_lowercase();
    let open = lower.find("<summary")?;
    let start = open + lower.get(open..)?.find('>')? + 1;
    let end = lower
        .get(start..)
        .and_then(|rest| rest.find("</summary"))
        .map_or(line.len(), |e| start + e);
    let inner = line.get(start..end)?;
    let (clean, _) = crate::doc::clean_inline(inner, 0);
    Some(plain(&clean))
}

/// A line without leading blockquote markers.
fn unquote(line: &str) -> &str {
    let mut s = line.trim_start();
    while let Some(rest) = s.strip_prefix('>') {
        s = rest.trim_start();
    }
    s
}

/// A number of at most 9 digits.
fn number(s: &str) -> Option<u32> {
    let s = s.trim();
    (!s.is_empty() && s.len() <= 9 && s.bytes().all(|b| b.is_ascii_digit()))
        .then(|| s.parse().ok())
        .flatten()
}

/// `42` or `41-52` (also with `–` or `to`) as a line range.
fn line_range(s: &str) -> Option<LineRange> {
    let s = s.trim();
    let s = s
        .strip_prefix("lines ")
        .or_else(|| s.strip_prefix("line "))
        .unwrap_or(s);
    if let Some(one) = number(s) {
        return Some(LineRange::new(one, one));
    }
    let (a, b) = s
        .split_once('-')
        .or_else(|| s.split_once('–'))
        .or_else(|| s.split_once(" to "))?;
    Some(LineRange::new(number(a)?, number(b)?))
}

/// A CodeRabbit item start: `` `41-52`: rest ``.
fn coderabbit_item(line: &str) -> Option<(LineRange, &str)> {
    let inner = line.strip_prefix('`')?;
    let close = inner.find('`')?;
    let lines = line_range(inner.get(..close)?)?;
    let rest = inner.get(close + 1..)?.trim_start();
    let rest = rest.strip_prefix(':').unwrap_or(rest);
    Some((lines, rest.trim_start()))
}

/// A Copilot item start: `**path:line**` or `**path:start-end**`.
fn copilot_item(line: &str) -> Option<(String, Option<LineRange>, &str)> {
    let (inner, rest) = crate::markup::leading_bold(line)?;
    let inner = inner.trim().trim_matches('`');
    let (path, lines) = match inner.rsplit_once(':') {
        Some((path, tail)) => (path, Some(line_range(tail)?)),
        None => (inner, None),
    };
    let path_like = !path.is_empty()
        && !path.contains(char::is_whitespace)
        && (path.contains('/') || path.contains('.'));
    path_like.then(|| (path.to_owned(), lines, rest))
}

/// An item being collected.
struct Item {
    kind: ThreadlessKind,
    path: String,
    lines: Option<LineRange>,
    text: Vec<String>,
}

/// The line-by-line reader of a review body.
struct Scanner {
    family: Family,
    found: Vec<ThreadlessFinding>,
    /// The open `<details>` depth.
    depth: usize,
    /// The section being read and the depth of its `<details>`.
    section: Option<(ThreadlessKind, usize)>,
    /// The file sub-section being read and the depth of its `<details>`.
    file: Option<(String, usize)>,
    /// Skip lines until the depth falls below this.
    skip: Option<usize>,
    /// Inside a fenced code block (its fence character and length).
    fence: Option<(u8, usize)>,
    item: Option<Item>,
}

impl Scanner {
    fn new(family: Family) -> Self {
        Self {
            family,
            found: Vec::new(),
            depth: 0,
            section: None,
            file: None,
            skip: None,
            fence: None,
            item: None,
        }
    }

    fn scan(mut self, body: &str) -> Vec<ThreadlessFinding> {
        for raw in body.lines() {
            self.line(unquote(raw));
        }
        self.finish_item();
        self.found
    }

    fn push_text(&mut self, line: &str) {
        if self.skip.is_none()
            && let Some(item) = self.item.as_mut()
        {
            item.text.push(line.to_owned());
        }
    }

    fn line(&mut self, line: &str) {
        if let Some((ch, len)) = self.fence {
            let t = line.trim();
            if !t.is_empty() && t.len() >= len && t.bytes().all(|c| c == ch) {
                self.fence = None;
            }
            self.push_text(line);
            return;
        }
        if let Some(fence) = fence_open(line) {
            self.fence = Some(fence);
            self.push_text(line);
            return;
        }
        let (opens, closes) = if line.contains('<') {
            (
                count_ci(line, "<details", usize::MAX),
                count_ci(line, "</details", usize::MAX),
            )
        } else {
            (0, 0)
        };
        let level = self.depth + opens;
        match summary_text(line) {
            Some(summary) if self.skip.is_none() => self.summary(&summary, level.max(1)),
            Some(_) => {}
            None => self.content(line),
        }
        self.depth = (self.depth + opens).saturating_sub(closes);
        if self.skip.is_some_and(|s| self.depth < s) {
            self.skip = None;
        }
        if self.file.as_ref().is_some_and(|(_, l)| self.depth < *l) {
            self.finish_item();
            self.file = None;
        }
        if self.section.is_some_and(|(_, l)| self.depth < l) {
            self.finish_item();
            self.section = None;
            self.file = None;
        }
    }

    fn summary(&mut self, summary: &str, level: usize) {
        if let Some(kind) = section_kind(summary) {
            self.finish_item();
            self.section = Some((kind, level));
            self.file = None;
        } else if self.section.is_some() {
            if skipped_summary(summary) {
                self.skip = Some(level);
            } else if let Some(path) = file_summary(summary)
                .filter(|_| self.file.as_ref().is_none_or(|(_, l)| level <= *l))
            {
                self.finish_item();
                self.file = Some((path, level));
            } else {
                self.push_text(summary);
            }
        }
    }

    fn content(&mut self, line: &str) {
        if self.skip.is_some() {
            return;
        }
        let Some((kind, _)) = self.section else {
            return;
        };
        match self.family {
            Family::CodeRabbit => {
                if let (Some((path, _)), Some((lines, rest))) = (&self.file, coderabbit_item(line))
                {
                    let path = path.clone();
                    self.finish_item();
                    self.item = Some(Item {
                        kind,
                        path,
                        lines: Some(lines),
                        text: vec![rest.to_owned()],
                    });
                    return;
                }
            }
            _ => {
                if let Some((path, lines, rest)) = copilot_item(line) {
                    self.finish_item();
                    self.item = Some(Item {
                        kind,
                        path,
                        lines,
                        text: vec![rest.to_owned()],
                    });
                    return;
                }
            }
        }
        self.push_text(line);
    }

    fn finish_item(&mut self) {
        let Some(item) = self.item.take() else {
            return;
        };
        let text = item.text.join("\n").trim().to_owned();
        let doc = Doc::parse(&text);
        let (title, stated) = match self.family {
            Family::CodeRabbit => coderabbit_title(&doc),
            _ => copilot_title(&doc),
        };
        let severity = if item.kind == ThreadlessKind::Nitpick {
            Severity::Nit
        } else {
            stated.unwrap_or(Severity::None)
        };
        let fingerprint = fingerprint(Some(self.family), &item.path, &title);
        self.found.push(ThreadlessFinding {
            kind: item.kind,
            path: item.path,
            lines: item.lines,
            title,
            severity,
            text,
            fingerprint,
        });
    }
}

/// An opening code fence: its character and length.
fn fence_open(line: &str) -> Option<(u8, usize)> {
    let t = line.trim_start();
    let ch = *t.as_bytes().first()?;
    if ch != b'`' && ch != b'~' {
        return None;
    }
    let len = t.bytes().take_while(|&c| c == ch).count();
    let info = t.get(len..).unwrap_or("");
    (len >= 3 && !(ch == b'`' && info.contains('`'))).then_some((ch, len))
}

/// A CodeRabbit item's title and the severity its pills state, if it has a pill line.
fn coderabbit_title(doc: &Doc) -> (String, Option<Severity>) {
    let mut severity = None;
    let mut found = None;
    for (i, line) in doc.nonempty().take(4) {
        if let Some(header) = coderabbit::header(line) {
            severity = severity.or(header.severity);
            continue;
        }
        if found.is_none() {
            found = Some(lead_title(&doc.line_at(i)));
        }
        if severity.is_some() {
            break;
        }
    }
    (found.unwrap_or_default(), severity)
}

/// A Copilot item's title: the first sentence of its bullet, without `[nitpick]`, which marks
/// it a nit.
fn copilot_title(doc: &Doc) -> (String, Option<Severity>) {
    let Some((_, line)) = doc.nonempty().next() else {
        return (String::new(), None);
    };
    let text = plain(line);
    match text
        .get(..9)
        .filter(|head| head.eq_ignore_ascii_case("[nitpick]"))
    {
        Some(_) => (
            title(text.get(9..).unwrap_or("").trim()),
            Some(Severity::Nit),
        ),
        None => (title(&text), None),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn line_ranges() {
        assert_eq!(line_range("41-52"), Some(LineRange::new(41, 52)));
        assert_eq!(line_range("7"), Some(LineRange::new(7, 7)));
        assert_eq!(line_range("lines 3 to 5"), Some(LineRange::new(3, 5)));
        assert_eq!(line_range("12–10"), Some(LineRange::new(10, 12)));
        assert_eq!(line_range("x"), None);
        assert_eq!(line_range("99999999999"), None);
    }

    #[test]
    fn file_summaries() {
        assert_eq!(file_summary("src/a.rs (2)").as_deref(), Some("src/a.rs"));
        assert_eq!(file_summary("README.md (1)").as_deref(), Some("README.md"));
        assert_eq!(file_summary("🧰 Tools"), None);
        assert_eq!(file_summary("Committable suggestion (1)"), None);
    }

    #[test]
    fn other_families_list_nothing() {
        let body = "<details><summary>🧹 Nitpick comments (1)</summary>\n<details><summary>a.rs (1)</summary>\n`1`: **x**\n</details></details>";
        assert!(threadless_findings(body, Family::Gemini).is_empty());
        assert_eq!(threadless_findings(body, Family::CodeRabbit).len(), 1);
    }
}
