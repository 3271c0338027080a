//! Small text helpers shared by the readers: emoji, markdown stripping, word strings and titles.

/// The longest title a finding gets, in characters.
pub(crate) const TITLE_MAX: usize = 120;

/// Whether `c` is an emoji or a symbol that bots use as decoration (pills, badges, arrows),
/// including the joiners and variation selectors that glue emoji together.
pub(crate) fn is_emoji(c: char) -> bool {
    matches!(
        u32::from(c),
        0x1F000..=0x1FAFF
            | 0x2600..=0x27BF
            | 0x2B00..=0x2BFF
            | 0x2190..=0x21FF
            | 0x2300..=0x23FF
            | 0x25A0..=0x25FF
            | 0xFE00..=0xFE0F
            | 0xE0020..=0xE007F
            | 0x200D
            | 0x20E3
            | 0x203C
            | 0x2049
            | 0x2122
            | 0x2139
            | 0x3030
            | 0x303D
            | 0x00A9
            | 0x00AE
    )
}

/// Removes block markers at the start of a line: blockquote `>`, heading `#`, list bullets and
/// numbers.
fn strip_line_markers(line: &str) -> &str {
    let mut s = line.trim();
    loop {
        let before = s;
        s = s.trim_start_matches('>').trim_start();
        let hashes = s.len() - s.trim_start_matches('#').len();
        if (1..=6).contains(&hashes) && s.get(hashes..).is_some_and(|r| r.starts_with(' ')) {
            s = s.get(hashes..).unwrap_or(s).trim_start();
        }
        for bullet in ["- ", "* ", "+ "] {
            if let Some(rest) = s.strip_prefix(bullet) {
                s = rest.trim_start();
            }
        }
        let digits = s.len() - s.trim_start_matches(|c: char| c.is_ascii_digit()).len();
        if digits > 0
            && digits < 4
            && let Some(rest) = s.get(digits..).and_then(|r| r.strip_prefix(". "))
        {
            s = rest.trim_start();
        }
        if s == before {
            return s;
        }
    }
}

/// A line's text without markdown emphasis, code ticks, block markers, emoji or extra
/// whitespace. Text inside code spans is kept as written. HTML must already be gone.
pub(crate) fn plain(line: &str) -> String {
    let s = strip_line_markers(line);
    if s.is_ascii() && !s.contains(['*', '_', '~', '`']) {
        // Nothing to strip but extra whitespace.
        let mut out = String::with_capacity(s.len());
        for word in s.split(char::is_whitespace).filter(|w| !w.is_empty()) {
            if !out.is_empty() {
                out.push(' ');
            }
            out.push_str(word);
        }
        return out;
    }
    let mut out = String::with_capacity(s.len());
    let mut in_code = false;
    let mut prev: Option<char> = None;
    let mut last_space = true;
    let mut chars = s.chars().peekable();
    let boundary = |c: Option<char>| c.is_none_or(|c| !c.is_alphanumeric());
    while let Some(c) = chars.next() {
        let next = chars.peek().copied();
        let before = prev;
        prev = Some(c);
        let keep = if c == '`' {
            in_code = !in_code;
            None
        } else if in_code {
            Some(c)
        } else {
            match c {
                '*' => None,
                '~' if next == Some('~') || before == Some('~') => None,
                '_' if boundary(before) || boundary(next) => None,
                c if !c.is_ascii() && is_emoji(c) => Some(' '),
                c => Some(c),
            }
        };
        match keep {
            Some(c) if c.is_whitespace() && !last_space => {
                out.push(' ');
                last_space = true;
            }
            Some(c) if !c.is_whitespace() => {
                out.push(c);
                last_space = false;
            }
            _ => {}
        }
    }
    if out.ends_with(' ') {
        out.pop();
    }
    out
}

/// The text as lower-case words separated by single spaces, with a space at each end, so that a
/// phrase written as `" word word "` matches whole words only. Anything not a letter or digit
/// separates words.
pub(crate) fn words(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 2);
    out.push(' ');
    push_words(&mut out, text);
    out
}

/// Appends the words of `text` to a word string that ends with a space, each followed by a
/// space.
pub(crate) fn push_words(out: &mut String, text: &str) {
    let mut last_space = true;
    for c in text.chars() {
        if c.is_ascii_alphanumeric() {
            out.push(c.to_ascii_lowercase());
            last_space = false;
        } else if !c.is_ascii() && c.is_alphanumeric() {
            out.extend(c.to_lowercase());
            last_space = false;
        } else if !last_space {
            out.push(' ');
            last_space = true;
        }
    }
    if !last_space {
        out.push(' ');
    }
}

/// A word string (see [`words`]) with the first two letters of each of its words, so that a
/// phrase whose first word cannot be there is ruled out without searching the text.
#[derive(Debug, Clone)]
pub(crate) struct WordText {
    text: String,
    /// One bit per (first letter, second letter) pair; anything but `a`..`z` is letter 26.
    initials: [u64; 12],
}

/// The letter index of a byte of a word string: `a`..`z`, or 26 for anything else.
fn letter(b: Option<&u8>) -> usize {
    match b {
        Some(&b @ b'a'..=b'z') => usize::from(b - b'a'),
        _ => 26,
    }
}

impl WordText {
    /// Wraps a word string made by [`words`].
    pub(crate) fn new(text: String) -> Self {
        let mut initials = [0u64; 12];
        let bytes = text.as_bytes();
        for (i, &b) in bytes.iter().enumerate() {
            if b == b' ' && bytes.get(i + 1).is_some_and(|&n| n != b' ') {
                let bit = letter(bytes.get(i + 1)) * 27 + letter(bytes.get(i + 2));
                if let Some(word) = initials.get_mut(bit / 64) {
                    *word |= 1 << (bit % 64);
                }
            }
        }
        Self { text, initials }
    }

    /// The word string.
    pub(crate) fn as_str(&self) -> &str {
        &self.text
    }

    /// Whether the text contains any of `phrases` (written like [`has_any`]'s).
    pub(crate) fn has_any(&self, phrases: &[&str]) -> bool {
        phrases.iter().any(|p| {
            let bytes = p.as_bytes();
            let possible = match bytes.first() {
                Some(b' ') => {
                    let bit = letter(bytes.get(1)) * 27 + letter(bytes.get(2));
                    // A one-letter word (`" a "`) is not ruled out by its second byte.
                    bytes.get(2) == Some(&b' ')
                        || self
                            .initials
                            .get(bit / 64)
                            .is_none_or(|w| w & (1 << (bit % 64)) != 0)
                }
                _ => true,
            };
            possible && self.text.contains(p)
        })
    }
}

/// Whether `hay` contains `needle` ignoring ASCII case (`needle` written in lower case).
pub(crate) fn contains_ci(hay: &str, needle: &str) -> bool {
    count_ci(hay, needle, 1) > 0
}

/// How many times `hay` contains `needle` ignoring ASCII case, counting up to `limit`.
pub(crate) fn count_ci(hay: &str, needle: &str, limit: usize) -> usize {
    let (hay, needle) = (hay.as_bytes(), needle.as_bytes());
    let Some(&first) = needle.first() else {
        return 0;
    };
    let (lo, up) = (first.to_ascii_lowercase(), first.to_ascii_uppercase());
    let Some(last_start) = hay.len().checked_sub(needle.len()) else {
        return 0;
    };
    let mut count = 0;
    let mut at = 0;
    while count < limit {
        // Jump to the next byte that can start a match, then compare the whole needle.
        let Some(skip) = hay
            .get(at..=last_start)
            .and_then(|rest| rest.iter().position(|&b| b == lo || b == up))
        else {
            break;
        };
        at += skip;
        if hay
            .get(at..at + needle.len())
            .is_some_and(|w| w.eq_ignore_ascii_case(needle))
        {
            count += 1;
        }
        at += 1;
    }
    count
}

/// Whether `words` (from [`words`]) contains any of `phrases`.
pub(crate) fn has_any(words: &str, phrases: &[&str]) -> bool {
    phrases.iter().any(|p| words.contains(p))
}

/// The first sentence of a plain line (the whole line when it has one sentence).
pub(crate) fn first_sentence(s: &str) -> &str {
    let mut prev_word_start = 0;
    let mut iter = s.char_indices().peekable();
    while let Some((i, c)) = iter.next() {
        if c.is_whitespace() {
            prev_word_start = i + c.len_utf8();
            continue;
        }
        let ends = matches!(c, '.' | '?' | '!' | '。' | '？' | '！');
        let next_is_space = iter.peek().is_none_or(|(_, n)| n.is_whitespace());
        if ends && next_is_space {
            let word = s.get(prev_word_start..i).unwrap_or("").to_lowercase();
            let abbreviation = matches!(
                word.trim_start_matches(|c: char| !c.is_alphanumeric()),
                "e.g" | "i.e" | "etc" | "vs" | "cf" | "np" | "tj" | "tzn" | "itp" | "itd" | "z.b"
            );
            // A sentence ends after a word, not after `..` or a lone dot (`.` in code).
            let after_word = word
                .chars()
                .last()
                .is_some_and(|p| p.is_alphanumeric() || matches!(p, ')' | '"' | '\'' | ']' | '`'));
            if !abbreviation && after_word && i >= 8 {
                return s.get(..i + c.len_utf8()).unwrap_or(s).trim();
            }
        }
    }
    s.trim()
}

/// A one-line title: the first sentence of `plain`, without a trailing period, cut to
/// [`TITLE_MAX`] characters at a word boundary where possible.
pub(crate) fn title(plain: &str) -> String {
    let sentence = first_sentence(plain);
    let sentence = sentence.strip_suffix('.').unwrap_or(sentence).trim();
    truncate(sentence, TITLE_MAX)
}

/// Cuts `s` to at most `max` characters, ending with `…` when cut.
pub(crate) fn truncate(s: &str, max: usize) -> String {
    if s.chars().count() <= max {
        return s.to_owned();
    }
    let keep: String = s.chars().take(max.saturating_sub(1)).collect();
    let cut = match keep.rfind(' ') {
        Some(i) if i > keep.len() / 2 => keep.get(..i).unwrap_or(&keep),
        _ => &keep,
    };
    format!("{}…", cut.trim_end())
}

/// The text between a leading `**` and the next `**` of a line, if the line starts bold.
pub(crate) fn leading_bold(line: &str) -> Option<(&str, &str)> {
    let rest = line.trim_start().strip_prefix("**")?;
    let end = rest.find("**")?;
    Some((rest.get(..end)?, rest.get(end + 2..)?))
}

/// The inside of a line that is bold as a whole (`**...**`, maybe with trailing punctuation).
pub(crate) fn bold_line(line: &str) -> Option<&str> {
    let (inner, rest) = leading_bold(line)?;
    rest.trim()
        .chars()
        .all(|c| c.is_ascii_punctuation())
        .then_some(inner)
        .filter(|i| !i.trim().is_empty())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plain_strips_emphasis_emoji_and_markers_but_keeps_code_and_snake_case() {
        assert_eq!(
            plain("_⚠️ Potential issue_ | _🟠 Major_"),
            "Potential issue | Major"
        );
        assert_eq!(
            plain("**Avoid `parts[0]` on empty_input.**"),
            "Avoid parts[0] on empty_input."
        );
        assert_eq!(plain("> ### 1. ~~old~~ text"), "old text");
        assert_eq!(plain("`__init__` stays"), "__init__ stays");
        assert_eq!(plain("한국어 설명 🚀"), "한국어 설명");
    }

    #[test]
    fn word_text_rules_out_only_absent_first_words() {
        let w = WordText::new(words("The buffer never flushes; a data race"));
        assert!(w.has_any(&[" never "]));
        assert!(w.has_any(&[" flush"]));
        assert!(w.has_any(&[" data race"]));
        assert!(w.has_any(&[" a data "]));
        assert!(!w.has_any(&[" panic", " off by one "]));
        assert!(!w.has_any(&[" buffers "]));
        let korean = WordText::new(words("버퍼가 비워지지 않습니다 never"));
        assert!(korean.has_any(&[" never "]));
        assert!(korean.has_any(&["버퍼"]));
    }

    #[test]
    fn case_insensitive_counts() {
        assert_eq!(count_ci("<details><DETAILS></Details>", "<details", 10), 2);
        assert_eq!(count_ci("aaaa", "aa", 10), 3);
        assert_eq!(count_ci("aaaa", "aa", 2), 2);
        assert_eq!(count_ci("a", "aa", 10), 0);
        assert_eq!(count_ci("abc", "", 10), 0);
        assert!(contains_ci(
            "Committable Suggestion skipped",
            "committable suggestion"
        ));
        assert!(!contains_ci("é", "e"));
    }

    #[test]
    fn the_plain_fast_path_agrees_with_the_slow_one() {
        for line in ["a  b\t c", "  - item one ", "a\u{b}b", "x", ""] {
            let slow_input = format!("{line}*");
            let slow = plain(&slow_input);
            assert_eq!(
                plain(line),
                slow.trim_end_matches('*').trim_end(),
                "{line:?}"
            );
        }
    }

    #[test]
    fn words_are_lowercase_and_space_wrapped() {
        assert_eq!(words("Should we, maybe?"), " should we maybe ");
        assert_eq!(words(""), " ");
        assert!(has_any(
            &words("Could POTENTIALLY fail"),
            &[" could potentially "]
        ));
        assert!(!has_any(&words("designated"), &[" design "]));
    }

    #[test]
    fn first_sentence_skips_abbreviations_and_short_heads() {
        assert_eq!(
            first_sentence("Use a map, e.g. a BTreeMap. Then sort."),
            "Use a map, e.g. a BTreeMap."
        );
        assert_eq!(first_sentence("No stop here"), "No stop here");
        assert_eq!(
            first_sentence("Call foo.bar() first. Then"),
            "Call foo.bar() first."
        );
        assert_eq!(
            first_sentence("Nieznany format (np. xml) zwraca JSON. Dalej"),
            "Nieznany format (np. xml) zwraca JSON."
        );
        assert_eq!(
            first_sentence("Joined without removing .. segments. Keep the base name."),
            "Joined without removing .. segments."
        );
    }

    #[test]
    fn titles_are_cut_to_the_limit_on_a_word_boundary() {
        let long = "word ".repeat(60);
        let t = title(&long);
        assert!(t.chars().count() <= TITLE_MAX, "{t}");
        assert!(t.ends_with('…'));
        let wide = "가".repeat(300);
        assert_eq!(title(&wide).chars().count(), TITLE_MAX);
        assert_eq!(title("Missing null check."), "Missing null check");
    }

    #[test]
    fn bold_lines() {
        assert_eq!(bold_line("**Title here.**"), Some("Title here."));
        assert_eq!(bold_line("**Title**:"), Some("Title"));
        assert_eq!(bold_line("**Label:** rest"), None);
        assert_eq!(leading_bold("**Label:** rest"), Some(("Label:", " rest")));
        assert_eq!(bold_line("plain"), None);
    }
}
