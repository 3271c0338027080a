//! Applying a suggestion block to a file's text, deterministically, or not at all.

use crate::model::LineRange;

/// Why a suggestion could not be applied. Nothing is changed when this is returned.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SuggestionError {
    /// The thread has no line range to replace.
    #[error("the thread has no line range to apply the suggestion to")]
    NoLines,
    /// The range reaches past the end of the file.
    #[error("lines {range} are past the end of the file ({len} lines)")]
    OutOfRange {
        /// The range.
        range: LineRange,
        /// The file's line count.
        len: usize,
    },
    /// The file's lines differ from those the suggestion was written against.
    #[error("the file no longer matches what the suggestion was written against (line {line})")]
    Mismatch {
        /// The first line that differs.
        line: u32,
    },
}

/// The new-side lines of a diff hunk (context and added lines, without their prefix), in order.
/// GitHub's `diffHunk` for a comment ends at the commented line.
pub fn hunk_new_side(hunk: &str) -> Vec<&str> {
    hunk.lines()
        .filter(|l| !l.starts_with("@@") && !l.starts_with('-') && !l.starts_with('\\'))
        .map(|l| l.get(1..).unwrap_or(""))
        .collect()
}

/// Replaces `range` of `text` with `replacement`.
///
/// When `hunk` is given, the lines of the range that the hunk shows must equal the file's
/// lines, or nothing is applied. The file's line ending style (`\n` or `\r\n`) and its final
/// newline are kept.
pub fn apply(
    text: &str,
    range: Option<LineRange>,
    replacement: &str,
    hunk: Option<&str>,
) -> Result<String, SuggestionError> {
    let range = range.ok_or(SuggestionError::NoLines)?;
    let crlf = text.contains("\r\n");
    let eol = if crlf { "\r\n" } else { "\n" };
    let trailing_newline = text.ends_with('\n');
    let lines: Vec<&str> = text.lines().collect();
    let (start, end) = (range.start as usize, range.end as usize);
    if start == 0 || end > lines.len() {
        return Err(SuggestionError::OutOfRange {
            range,
            len: lines.len(),
        });
    }
    if let Some(hunk) = hunk {
        let shown = hunk_new_side(hunk);
        // The hunk ends at `end`: walk back over the range as far as the hunk reaches.
        let take = (end - start + 1).min(shown.len());
        for k in 0..take {
            let file_line = end - k;
            let hunk_line = shown[shown.len() - 1 - k];
            if lines[file_line - 1].trim_end() != hunk_line.trim_end() {
                return Err(SuggestionError::Mismatch {
                    line: u32::try_from(file_line).unwrap_or(u32::MAX),
                });
            }
        }
    }
    let mut out: Vec<&str> = Vec::with_capacity(lines.len());
    out.extend_from_slice(&lines[..start - 1]);
    out.extend(replacement.lines());
    out.extend_from_slice(&lines[end..]);
    let mut joined = out.join(eol);
    if trailing_newline && !out.is_empty() {
        joined.push_str(eol);
    }
    Ok(joined)
}

#[cfg(test)]
mod tests {
    use super::*;

    const FILE: &str = "fn main() {\n    let x = foo();\n    println!(\"{x}\");\n}\n";

    #[test]
    fn replaces_one_line_and_keeps_the_rest() {
        let out = apply(
            FILE,
            Some(LineRange::new(2, 2)),
            "    let x = foo()?;",
            None,
        )
        .unwrap();
        assert_eq!(
            out,
            "fn main() {\n    let x = foo()?;\n    println!(\"{x}\");\n}\n"
        );
    }

    #[test]
    fn replaces_a_multi_line_range_with_more_lines() {
        let out = apply(
            FILE,
            Some(LineRange::new(2, 3)),
            "    let x = 1;\n    let y = 2;\n    dbg!(x + y);",
            None,
        )
        .unwrap();
        assert_eq!(
            out,
            "fn main() {\n    let x = 1;\n    let y = 2;\n    dbg!(x + y);\n}\n"
        );
    }

    #[test]
    fn empty_replacement_deletes_the_lines() {
        let out = apply(FILE, Some(LineRange::new(3, 3)), "", None).unwrap();
        assert_eq!(out, "fn main() {\n    let x = foo();\n}\n");
    }

    #[test]
    fn keeps_crlf_line_endings() {
        let out = apply("a\r\nb\r\n", Some(LineRange::new(1, 1)), "z", None).unwrap();
        assert_eq!(out, "z\r\nb\r\n");
    }

    #[test]
    fn refuses_ranges_past_the_end() {
        assert!(matches!(
            apply(FILE, Some(LineRange::new(4, 9)), "x", None),
            Err(SuggestionError::OutOfRange { .. })
        ));
        assert_eq!(apply(FILE, None, "x", None), Err(SuggestionError::NoLines));
    }

    #[test]
    fn refuses_when_the_file_no_longer_matches_the_hunk() {
        let hunk = "@@ -1,3 +1,3 @@\n fn main() {\n-    let x = bar();\n+    let x = foo();";
        assert!(apply(FILE, Some(LineRange::new(2, 2)), "y", Some(hunk)).is_ok());
        let changed = FILE.replace("foo()", "baz()");
        assert_eq!(
            apply(&changed, Some(LineRange::new(2, 2)), "y", Some(hunk)),
            Err(SuggestionError::Mismatch { line: 2 })
        );
    }
}
