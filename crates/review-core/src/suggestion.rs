//! Applying fix material to a file's text, exactly, or not at all: a suggestion block over the
//! thread's lines (or where those lines moved to, when that place is certain), and a diff block
//! that edits existing lines of the thread's file.
//!
//! Nothing here guesses. A suggestion whose lines changed is applied elsewhere only when the
//! text it replaces occurs exactly once in the file, within [`MOVE_WINDOW`] lines of the thread's
//! line; a diff is applied only when its context and removed lines occur exactly once. Line
//! endings (`\n` or `\r\n`) and the final newline are kept.

use crate::model::LineRange;

/// How far (in lines) from the thread's line a suggestion's original text may have moved and
/// still be found.
pub const MOVE_WINDOW: u32 = 30;

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
    /// The lines moved, and the text the suggestion replaces occurs more than once in the file.
    #[error(
        "the lines moved and the text the suggestion replaces occurs {count} times in the file; not guessing which"
    )]
    AmbiguousMove {
        /// How many times it occurs.
        count: usize,
    },
    /// The lines moved, and the text the suggestion replaces stands too far from the thread's
    /// line.
    #[error(
        "the lines moved and the text the suggestion replaces now stands at line {line}, more than {MOVE_WINDOW} lines from the thread"
    )]
    MovedTooFar {
        /// Where it stands now.
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

/// The first line (1-based) where the hunk's last `len` new-side lines differ from the file's
/// lines ending at `end`, if any. Only as many lines as the hunk shows are compared.
fn first_mismatch(lines: &[&str], end: usize, len: usize, shown: &[&str]) -> Option<usize> {
    let take = len.min(shown.len());
    (0..take).find_map(|k| {
        let file_line = end.checked_sub(k)?;
        let hunk_line = shown.get(shown.len() - 1 - k)?;
        let file = lines.get(file_line.checked_sub(1)?)?;
        (file.trim_end() != hunk_line.trim_end()).then_some(file_line)
    })
}

/// Replaces `range` of `text` with `replacement`.
///
/// When `hunk` is given, the lines of the range that the hunk shows must equal the file's
/// lines. When they do not (the lines moved since the comment was written) and the hunk shows
/// every line of the range, the suggestion is applied where that text stands instead, if it
/// occurs exactly once in the file and starts within [`MOVE_WINDOW`] lines of the range;
/// otherwise nothing is applied. The file's line ending style (`\n` or `\r\n`) and its final
/// newline are kept.
pub fn apply(
    text: &str,
    range: Option<LineRange>,
    replacement: &str,
    hunk: Option<&str>,
) -> Result<String, SuggestionError> {
    let range = range.ok_or(SuggestionError::NoLines)?;
    let lines: Vec<&str> = text.lines().collect();
    let (start, end) = (range.start as usize, range.end as usize);
    let len = end.saturating_sub(start) + 1;
    if start == 0 {
        return Err(SuggestionError::OutOfRange {
            range,
            len: lines.len(),
        });
    }
    if let Some(hunk) = hunk {
        let shown = hunk_new_side(hunk);
        let mismatch = if end > lines.len() {
            Some(lines.len() + 1)
        } else {
            first_mismatch(&lines, end, len, &shown)
        };
        if let Some(line) = mismatch {
            // The lines moved: find where their text stands now, if that is certain.
            let Some(original) = shown
                .get(shown.len().saturating_sub(len)..)
                .filter(|o| o.len() == len)
            else {
                return Err(mismatch_error(range, lines.len(), line));
            };
            let at = relocate(&lines, original, start)
                .map_err(|e| e.unwrap_or_else(|| mismatch_error(range, lines.len(), line)))?;
            return Ok(splice(text, &lines, at, at + len - 1, replacement));
        }
    }
    if end > lines.len() {
        return Err(SuggestionError::OutOfRange {
            range,
            len: lines.len(),
        });
    }
    Ok(splice(text, &lines, start, end, replacement))
}

/// The error for a range that does not read as the hunk at `line`.
fn mismatch_error(range: LineRange, len: usize, line: usize) -> SuggestionError {
    if line > len {
        SuggestionError::OutOfRange { range, len }
    } else {
        SuggestionError::Mismatch {
            line: u32::try_from(line).unwrap_or(u32::MAX),
        }
    }
}

/// Where `original` (whole lines, trailing whitespace ignored) stands in `lines`, 1-based, when
/// it occurs exactly once and starts within [`MOVE_WINDOW`] lines of `near`. `Err(None)` when it
/// does not occur at all.
fn relocate(
    lines: &[&str],
    original: &[&str],
    near: usize,
) -> Result<usize, Option<SuggestionError>> {
    if original.is_empty() || original.iter().all(|l| l.trim().is_empty()) {
        return Err(None);
    }
    let found: Vec<usize> = (0..lines.len().saturating_sub(original.len() - 1))
        .filter(|&i| {
            original.iter().enumerate().all(|(k, o)| {
                lines
                    .get(i + k)
                    .is_some_and(|l| l.trim_end() == o.trim_end())
            })
        })
        .map(|i| i + 1)
        .collect();
    match found.as_slice() {
        [] => Err(None),
        [at] if at.abs_diff(near) <= MOVE_WINDOW as usize => Ok(*at),
        [at] => Err(Some(SuggestionError::MovedTooFar {
            line: u32::try_from(*at).unwrap_or(u32::MAX),
        })),
        many => Err(Some(SuggestionError::AmbiguousMove { count: many.len() })),
    }
}

/// `text` with its lines `start..=end` (1-based) replaced by `replacement`'s lines, in the
/// file's line ending style, its final newline kept.
fn splice(text: &str, lines: &[&str], start: usize, end: usize, replacement: &str) -> String {
    let eol = if text.contains("\r\n") { "\r\n" } else { "\n" };
    let mut out: Vec<&str> = Vec::with_capacity(lines.len());
    out.extend(lines.iter().take(start.saturating_sub(1)));
    out.extend(replacement.lines());
    out.extend(lines.iter().skip(end));
    let mut joined = out.join(eol);
    if text.ends_with('\n') && !out.is_empty() {
        joined.push_str(eol);
    }
    joined
}

/// Why a diff block is not applied. Nothing is changed when this is returned.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PatchError {
    /// The block creates a file.
    #[error("the diff block creates a file; only edits of existing lines of {path} are applied")]
    CreatesFile {
        /// The thread's file.
        path: String,
    },
    /// The block deletes a file.
    #[error("the diff block deletes a file; only edits of existing lines of {path} are applied")]
    DeletesFile {
        /// The thread's file.
        path: String,
    },
    /// The block renames or copies a file.
    #[error("the diff block renames a file; only edits of existing lines of {path} are applied")]
    RenamesFile {
        /// The thread's file.
        path: String,
    },
    /// The block changes a file's mode.
    #[error(
        "the diff block changes a file mode; only edits of existing lines of {path} are applied"
    )]
    ChangesMode {
        /// The thread's file.
        path: String,
    },
    /// The block names a file other than the thread's.
    #[error("the diff block edits {other}, not the thread's file {path}")]
    OtherFile {
        /// The file it names.
        other: String,
        /// The thread's file.
        path: String,
    },
    /// A line of the block is neither context (` `), removed (`-`) nor added (`+`).
    #[error(
        "the diff block is not a unified diff (line {line} is neither context, removed nor added)"
    )]
    Malformed {
        /// The line of the block, 1-based.
        line: usize,
    },
    /// A hunk has no context or removed line to find its place by.
    #[error("a hunk of the diff block has no context or removed line to find its place by")]
    Unanchored,
    /// A hunk changes nothing.
    #[error("the diff block changes nothing")]
    NoChange,
    /// A hunk's context and removed lines are not in the file.
    #[error("the file does not contain the diff block's context and removed lines (hunk {hunk})")]
    NotFound {
        /// The hunk, 1-based.
        hunk: usize,
    },
    /// A hunk's context and removed lines occur more than once.
    #[error(
        "the diff block's context and removed lines occur {count} times in the file (hunk {hunk}); not guessing which"
    )]
    Ambiguous {
        /// The hunk, 1-based.
        hunk: usize,
        /// How many times they occur.
        count: usize,
    },
    /// Two hunks edit overlapping lines.
    #[error("two hunks of the diff block edit the same lines")]
    Overlapping,
}

/// One hunk: the old side (context and removed lines) and the new side (context and added).
#[derive(Debug, Clone, PartialEq, Eq)]
struct Hunk {
    old: Vec<String>,
    new: Vec<String>,
}

/// A diff block that edits existing lines of one file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Patch {
    hunks: Vec<Hunk>,
}

/// A header's file name without the `a/` or `b/` prefix and a trailing tab-separated date.
fn header_name(name: &str) -> &str {
    let name = name.split('\t').next().unwrap_or("").trim();
    name.strip_prefix("a/")
        .or_else(|| name.strip_prefix("b/"))
        .unwrap_or(name)
        .trim_start_matches("./")
}

/// Whether a header names `path` (`a/src/x.rs`, `b/src/x.rs` or `src/x.rs`).
fn names_path(name: &str, path: &str) -> bool {
    header_name(name) == path.trim_start_matches("./")
}

impl Patch {
    /// Reads a diff block (the text inside ```` ```diff ````) as edits of the existing lines of
    /// `path`. Headers (`diff --git`, `---`, `+++`, `index`) are checked, not required: a block
    /// that creates, deletes or renames a file, changes a mode, or names another file is
    /// refused. Hunks are separated by `@@` lines; a block without them is one hunk.
    pub fn parse(block: &str, path: &str) -> Result<Self, PatchError> {
        let refuse = |e: fn(String) -> PatchError| Err(e(path.to_owned()));
        let mut hunks: Vec<Hunk> = Vec::new();
        let mut current = Hunk {
            old: Vec::new(),
            new: Vec::new(),
        };
        let mut in_header = true;
        for (n, raw) in block.lines().enumerate() {
            let line = raw.strip_suffix('\r').unwrap_or(raw);
            if in_header {
                if let Some(rest) = line.strip_prefix("diff --git ") {
                    if let Some(other) = rest.split_whitespace().find(|n| !names_path(n, path)) {
                        return Err(PatchError::OtherFile {
                            other: header_name(other).to_owned(),
                            path: path.to_owned(),
                        });
                    }
                    continue;
                }
                if line.starts_with("new file mode") {
                    return refuse(|path| PatchError::CreatesFile { path });
                }
                if line.starts_with("deleted file mode") {
                    return refuse(|path| PatchError::DeletesFile { path });
                }
                if line.starts_with("rename from")
                    || line.starts_with("rename to")
                    || line.starts_with("copy from")
                    || line.starts_with("copy to")
                    || line.starts_with("similarity index")
                {
                    return refuse(|path| PatchError::RenamesFile { path });
                }
                if line.starts_with("old mode") || line.starts_with("new mode") {
                    return refuse(|path| PatchError::ChangesMode { path });
                }
                if line.starts_with("index ") {
                    continue;
                }
                if let Some(name) = line
                    .strip_prefix("--- ")
                    .or_else(|| line.strip_prefix("+++ "))
                {
                    let name = name.split('\t').next().unwrap_or("").trim();
                    if name == "/dev/null" {
                        return if line.starts_with("---") {
                            refuse(|path| PatchError::CreatesFile { path })
                        } else {
                            refuse(|path| PatchError::DeletesFile { path })
                        };
                    }
                    if !names_path(name, path) {
                        return Err(PatchError::OtherFile {
                            other: header_name(name).to_owned(),
                            path: path.to_owned(),
                        });
                    }
                    continue;
                }
            }
            in_header = false;
            if line.starts_with("@@") {
                if !current.old.is_empty() || !current.new.is_empty() {
                    hunks.push(std::mem::replace(
                        &mut current,
                        Hunk {
                            old: Vec::new(),
                            new: Vec::new(),
                        },
                    ));
                }
                continue;
            }
            if line == "\\ No newline at end of file" {
                continue;
            }
            match line.chars().next() {
                Some('-') => current.old.push(line.get(1..).unwrap_or("").to_owned()),
                Some('+') => current.new.push(line.get(1..).unwrap_or("").to_owned()),
                Some(' ') => {
                    let text = line.get(1..).unwrap_or("").to_owned();
                    current.old.push(text.clone());
                    current.new.push(text);
                }
                // An empty line is an empty context line (editors strip the lone space).
                None => {
                    current.old.push(String::new());
                    current.new.push(String::new());
                }
                Some(_) => return Err(PatchError::Malformed { line: n + 1 }),
            }
        }
        if !current.old.is_empty() || !current.new.is_empty() {
            hunks.push(current);
        }
        // Trailing empty context lines are an artefact of the block's end, not lines to match.
        for h in &mut hunks {
            while h.old.last().is_some_and(String::is_empty)
                && h.new.last().is_some_and(String::is_empty)
            {
                h.old.pop();
                h.new.pop();
            }
        }
        if hunks.is_empty() || hunks.iter().all(|h| h.old == h.new) {
            return Err(PatchError::NoChange);
        }
        if hunks
            .iter()
            .any(|h| h.old.iter().all(|l| l.trim().is_empty()))
        {
            return Err(PatchError::Unanchored);
        }
        Ok(Self { hunks })
    }

    /// Applies the patch to `text`: every hunk's old side must occur exactly once (whole lines,
    /// compared exactly but for a `\r` at the end), and no two hunks may overlap. The file's
    /// line endings and final newline are kept.
    pub fn apply(&self, text: &str) -> Result<String, PatchError> {
        let lines: Vec<&str> = text.lines().collect();
        let mut places: Vec<(usize, &Hunk)> = Vec::new();
        for (n, hunk) in self.hunks.iter().enumerate() {
            let width = hunk.old.len();
            let found: Vec<usize> = (0..=lines.len().saturating_sub(width))
                .filter(|&i| {
                    hunk.old
                        .iter()
                        .enumerate()
                        .all(|(k, o)| lines.get(i + k).is_some_and(|l| *l == o))
                })
                .collect();
            match found.as_slice() {
                [] => return Err(PatchError::NotFound { hunk: n + 1 }),
                [at] => places.push((*at, hunk)),
                many => {
                    return Err(PatchError::Ambiguous {
                        hunk: n + 1,
                        count: many.len(),
                    });
                }
            }
        }
        places.sort_by_key(|(at, _)| *at);
        if places
            .windows(2)
            .any(|w| w[0].0 + w[0].1.old.len() > w[1].0)
        {
            return Err(PatchError::Overlapping);
        }
        let eol = if text.contains("\r\n") { "\r\n" } else { "\n" };
        let mut out: Vec<&str> = Vec::with_capacity(lines.len());
        let mut next = 0;
        for (at, hunk) in &places {
            out.extend(lines.iter().skip(next).take(at - next));
            out.extend(hunk.new.iter().map(String::as_str));
            next = at + hunk.old.len();
        }
        out.extend(lines.iter().skip(next));
        let mut joined = out.join(eol);
        if text.ends_with('\n') && !out.is_empty() {
            joined.push_str(eol);
        }
        Ok(joined)
    }
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

    fn numbered(n: usize) -> String {
        (1..=n).map(|i| format!("line {i}\n")).collect()
    }

    /// A hunk whose new side ends with `lines` (the commented lines).
    fn hunk_ending(lines: &[&str]) -> String {
        let mut h = "@@ -1,1 +1,1 @@\n context\n".to_owned();
        for l in lines {
            h.push('+');
            h.push_str(l);
            h.push('\n');
        }
        h
    }

    #[test]
    fn a_moved_suggestion_applies_where_its_text_stands_when_that_is_certain() {
        // The comment was on line 10 ("target"); two lines were inserted above since.
        let mut file = numbered(40);
        file = file.replace("line 10\n", "line 10\nextra a\nextra b\n");
        file = file.replace("line 20\n", "target\n");
        let hunk = hunk_ending(&["target"]);
        let out = apply(&file, Some(LineRange::new(18, 18)), "fixed", Some(&hunk)).unwrap();
        assert!(out.contains("line 19\nfixed\nline 21\n"), "{out}");
        assert_eq!(out.lines().count(), file.lines().count());

        // Twice in the file: not guessing which.
        let twice = file.replace("line 30\n", "target\n");
        assert_eq!(
            apply(&twice, Some(LineRange::new(18, 18)), "fixed", Some(&hunk)),
            Err(SuggestionError::AmbiguousMove { count: 2 })
        );

        // Once, but more than 30 lines from the thread's line.
        let far = numbered(80).replace("line 70\n", "target\n");
        assert_eq!(
            apply(&far, Some(LineRange::new(18, 18)), "fixed", Some(&hunk)),
            Err(SuggestionError::MovedTooFar { line: 70 })
        );

        // Nowhere: the lines changed, not moved.
        let gone = numbered(40);
        assert_eq!(
            apply(&gone, Some(LineRange::new(18, 18)), "fixed", Some(&hunk)),
            Err(SuggestionError::Mismatch { line: 18 })
        );

        // Without a hunk the original text is unknown: applied over the range as before.
        assert!(apply(&gone, Some(LineRange::new(18, 18)), "fixed", None).is_ok());
    }

    #[test]
    fn a_moved_multi_line_suggestion_needs_every_line_shown() {
        let file = "a\nb\nx\ny\nz\n";
        let hunk = hunk_ending(&["x", "y"]);
        let out = apply(file, Some(LineRange::new(1, 2)), "X\nY", Some(&hunk)).unwrap();
        assert_eq!(out, "a\nb\nX\nY\nz\n");
        // The hunk shows one line of a two-line range: the original text is not known whole.
        let short = hunk_ending(&["y"]);
        assert!(matches!(
            apply(file, Some(LineRange::new(1, 2)), "X\nY", Some(&short)),
            Err(SuggestionError::Mismatch { .. })
        ));
    }

    #[test]
    fn a_moved_suggestion_keeps_crlf_and_the_missing_final_newline() {
        let file = "a\r\nb\r\ntarget\r\nc";
        let hunk = hunk_ending(&["target"]);
        let out = apply(file, Some(LineRange::new(1, 1)), "fixed", Some(&hunk)).unwrap();
        assert_eq!(out, "a\r\nb\r\nfixed\r\nc");
    }

    const SRC: &str = "fn sum(xs: &[i32]) -> i32 {\n    let mut t = 0;\n    for x in xs {\n        t -= x;\n    }\n    t\n}\n";

    #[test]
    fn a_diff_applies_exactly() {
        let block = " fn sum(xs: &[i32]) -> i32 {\n     let mut t = 0;\n     for x in xs {\n-        t -= x;\n+        t += x;\n     }\n";
        let patch = Patch::parse(block, "src/sum.rs").unwrap();
        assert_eq!(patch.apply(SRC).unwrap(), SRC.replace("t -= x", "t += x"));
        // Headers naming the thread's file are fine; CRLF and a missing final newline are kept.
        let headed = format!("--- a/src/sum.rs\n+++ b/src/sum.rs\n@@ -1,6 +1,6 @@\n{block}");
        let patch = Patch::parse(&headed, "src/sum.rs").unwrap();
        let crlf = SRC.replace('\n', "\r\n");
        let crlf = crlf.strip_suffix("\r\n").unwrap();
        assert_eq!(patch.apply(crlf).unwrap(), crlf.replace("t -= x", "t += x"));
    }

    #[test]
    fn a_diff_with_two_hunks_applies_both_or_neither() {
        let block = "@@ -1 +1 @@\n-fn sum(xs: &[i32]) -> i32 {\n+fn sum(xs: &[i64]) -> i64 {\n@@ -4 +4 @@\n-        t -= x;\n+        t += x;\n";
        let patch = Patch::parse(block, "src/sum.rs").unwrap();
        let out = patch.apply(SRC).unwrap();
        assert!(out.starts_with("fn sum(xs: &[i64]) -> i64 {\n"));
        assert!(out.contains("t += x"));
        let changed = SRC.replace("t -= x", "t *= x");
        assert_eq!(patch.apply(&changed), Err(PatchError::NotFound { hunk: 2 }));
    }

    #[test]
    fn a_diff_that_does_not_match_exactly_once_is_refused() {
        let patch = Patch::parse("-    t\n+    t.max(0)\n", "src/sum.rs").unwrap();
        let twice = SRC.replace("    let mut t = 0;\n", "    t\n");
        assert_eq!(
            patch.apply(&twice),
            Err(PatchError::Ambiguous { hunk: 1, count: 2 })
        );
        let patch = Patch::parse("-        t -= y;\n+        t += y;\n", "src/sum.rs").unwrap();
        assert_eq!(patch.apply(SRC), Err(PatchError::NotFound { hunk: 1 }));
        // Whitespace counts: an indentation change is a different line.
        let patch = Patch::parse("-    t -= x;\n+    t += x;\n", "src/sum.rs").unwrap();
        assert_eq!(patch.apply(SRC), Err(PatchError::NotFound { hunk: 1 }));
    }

    #[test]
    fn diffs_that_touch_files_or_modes_are_refused_with_the_reason() {
        let path = "src/sum.rs";
        let cases = [
            (
                "--- /dev/null\n+++ b/src/new.rs\n@@ -0,0 +1 @@\n+fn x() {}\n",
                "creates a file",
            ),
            (
                "diff --git a/src/sum.rs b/src/sum.rs\ndeleted file mode 100644\n--- a/src/sum.rs\n+++ /dev/null\n",
                "deletes a file",
            ),
            (
                "diff --git a/src/sum.rs b/src/sum.rs\nsimilarity index 90%\nrename from src/sum.rs\nrename to src/total.rs\n",
                "renames a file",
            ),
            (
                "diff --git a/src/sum.rs b/src/sum.rs\nold mode 100644\nnew mode 100755\n",
                "changes a file mode",
            ),
            (
                "--- a/src/other.rs\n+++ b/src/other.rs\n-a\n+b\n",
                "edits src/other.rs",
            ),
            (
                "diff --git a/src/sum.rs b/src/other.rs\n-a\n+b\n",
                "edits src/other.rs",
            ),
            ("+fn added() {}\n", "no context or removed line"),
            (" same\n", "changes nothing"),
            ("-a\nnot a diff line\n+b\n", "line 2 is neither"),
        ];
        for (block, want) in cases {
            let err = Patch::parse(block, path).unwrap_err();
            assert!(err.to_string().contains(want), "{block:?}: {err}");
        }
    }
}
