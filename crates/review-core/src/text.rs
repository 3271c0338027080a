//! Text from outside (GitHub, the pull request) made safe to show to a person.
//!
//! A comment, a title or a path can hold control characters and bidirectional formatting
//! characters. Shown as they are, an escape sequence (`ESC [2K`, a carriage return) redraws a
//! terminal's line, and a right-to-left override reorders what follows it, in a terminal and in a
//! browser alike: a person's row could be made to read as a bot's. Every human-readable output
//! (the reports, listings, narration, summaries and the follow-up's form) passes such text
//! through [`visible`] or [`visible_line`], which write those characters as escapes
//! (`\u{1b}`, `\u{202e}`). Machine outputs (`--json`, the protocols of external commands) keep
//! the exact text: JSON escapes what it must.
//!
//! ```
//! use review_core::text::{visible, visible_line};
//!
//! assert_eq!(visible("ok\x1b[2K\r@coderabbitai"), "ok\\u{1b}[2K\\u{d}@coderabbitai");
//! assert_eq!(visible("admin\u{202e}txt.exe"), "admin\\u{202e}txt.exe");
//! assert_eq!(visible("two\nlines\tand a tab"), "two\nlines\tand a tab");
//! assert_eq!(visible_line("src/a.rs\n## Objective"), "src/a.rs\\u{a}## Objective");
//! ```

use std::borrow::Cow;
use std::fmt::Write as _;

/// Whether `c` is shown as an escape: a C0 control (but newline and tab, unless `breaks` are
/// escaped too), DEL, a C1 control, or a bidirectional formatting character (the embeddings and
/// overrides U+202A..U+202E, the isolates U+2066..U+2069, the marks U+200E, U+200F and U+061C).
pub fn is_escaped(c: char, breaks: bool) -> bool {
    match c {
        '\n' | '\t' => breaks,
        '\u{0}'..='\u{1f}' | '\u{7f}'..='\u{9f}' => true,
        '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}' => true,
        '\u{200e}' | '\u{200f}' | '\u{61c}' => true,
        _ => false,
    }
}

fn escaped(text: &str, breaks: bool) -> Cow<'_, str> {
    if !text.chars().any(|c| is_escaped(c, breaks)) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 16);
    for c in text.chars() {
        if is_escaped(c, breaks) {
            let _ = write!(out, "\\u{{{:x}}}", u32::from(c));
        } else {
            out.push(c);
        }
    }
    Cow::Owned(out)
}

/// `text` with its control and bidirectional formatting characters written as `\u{…}` escapes;
/// newlines and tabs stay. For text shown as several lines (a comment, a summary).
pub fn visible(text: &str) -> Cow<'_, str> {
    escaped(text, false)
}

/// [`visible`] for text shown on one line (a row of a table or a listing: a path, a title, a
/// login): newlines and tabs are escaped too, so the text cannot start a row of its own.
pub fn visible_line(text: &str) -> Cow<'_, str> {
    escaped(text, true)
}

/// `n` and the noun for it, singular for one: `counted(1, "thread", "threads")` is `1 thread`,
/// `counted(3, "thread", "threads")` is `3 threads`. For narration and summaries.
///
/// ```
/// use review_core::text::counted;
///
/// assert_eq!(counted(1, "thread", "threads"), "1 thread");
/// assert_eq!(counted(0, "summary", "summaries"), "0 summaries");
/// ```
pub fn counted<N>(n: N, one: &str, many: &str) -> String
where
    N: std::fmt::Display + PartialEq + From<u8> + Copy,
{
    let noun = if n == N::from(1) { one } else { many };
    format!("{n} {noun}")
}

/// `text` for a comment GitHub renders, with the references it would link or notify made inert:
/// issue and pull request numbers (`#1`, `GH-1`) and mentions (`@mei`, `@acme/team`) are put in
/// code spans, where GitHub neither links nor notifies. Text already in a code span is left as
/// it is. For words the tool quotes in a comment it posts (an operator's instruction names the
/// follow-up's own issue numbers, not the repository's).
///
/// ```
/// use review_core::text::inert_references;
///
/// assert_eq!(inert_references("as in #1, ask @mei"), "as in `#1`, ask `@mei`");
/// assert_eq!(inert_references("dana@example.com and `#2` and C#7"), "dana@example.com and `#2` and C#7");
/// ```
pub fn inert_references(text: &str) -> String {
    let chars: Vec<char> = text.chars().collect();
    let mut out = String::with_capacity(text.len() + 8);
    let mut in_code = false;
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        if c == '`' {
            in_code = !in_code;
            out.push(c);
            i += 1;
            continue;
        }
        let starts_word = i == 0 || !(chars[i - 1].is_alphanumeric() || chars[i - 1] == '_');
        let reference_end = if in_code || !starts_word {
            None
        } else if c == '#' {
            let end = digits_end(&chars, i + 1);
            (end > i + 1).then_some(end)
        } else if (c == 'G' || c == 'g')
            && chars
                .get(i + 1)
                .is_some_and(|h| h.eq_ignore_ascii_case(&'h'))
            && chars.get(i + 2) == Some(&'-')
        {
            let end = digits_end(&chars, i + 3);
            (end > i + 3).then_some(end)
        } else if c == '@' && chars.get(i + 1).is_some_and(char::is_ascii_alphanumeric) {
            let mut end = i + 1;
            while end < chars.len()
                && (chars[end].is_ascii_alphanumeric() || matches!(chars[end], '-' | '/' | '_'))
            {
                end += 1;
            }
            Some(end)
        } else {
            None
        };
        match reference_end {
            Some(end) => {
                out.push('`');
                out.extend(&chars[i..end]);
                out.push('`');
                i = end;
            }
            None => {
                out.push(c);
                i += 1;
            }
        }
    }
    out
}

fn digits_end(chars: &[char], from: usize) -> usize {
    let mut end = from;
    while end < chars.len() && chars[end].is_ascii_digit() {
        end += 1;
    }
    end
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_control_and_bidi_character_is_escaped_and_nothing_else() {
        for c in (0u32..=0x10ffff).filter_map(char::from_u32) {
            let text = c.to_string();
            let shown = visible_line(&text);
            let expected = (c as u32) < 0x20
                || (0x7f..=0x9f).contains(&(c as u32))
                || (0x202a..=0x202e).contains(&(c as u32))
                || (0x2066..=0x2069).contains(&(c as u32))
                || matches!(c as u32, 0x200e | 0x200f | 0x61c);
            assert_eq!(shown != text, expected, "U+{:04X}", c as u32);
            if expected {
                assert_eq!(shown, format!("\\u{{{:x}}}", c as u32));
            }
            let kept = matches!(c, '\n' | '\t');
            assert_eq!(
                visible(&text) == text,
                !expected || kept,
                "U+{:04X}",
                c as u32
            );
        }
    }

    #[test]
    fn escaping_twice_changes_nothing_more() {
        let hostile = "a\x1b[2K\r\u{9b}31m\u{2067}b\u{7f}\n\tc";
        let once = visible(hostile).into_owned();
        assert_eq!(visible(&once), once);
        assert!(!once.chars().any(|c| is_escaped(c, false)));
        let line = visible_line(hostile).into_owned();
        assert_eq!(visible_line(&line), line);
        assert!(!line.contains('\n') && !line.contains('\t'));
    }

    #[test]
    fn plain_text_is_borrowed() {
        assert!(matches!(visible("plain — ünïcode"), Cow::Borrowed(_)));
        assert!(matches!(visible_line("src/lib.rs:12"), Cow::Borrowed(_)));
    }
}
