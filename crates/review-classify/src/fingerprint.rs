//! Fingerprints and title similarity: what makes two findings "the same".
//!
//! A title is normalised before it is compared or hashed: HTML and markdown removed, emoji
//! removed, lower case, punctuation turned into spaces, line references (`line 42`,
//! `lines 10-12`, `L42`, `#L10-L12`, `file.rs:42`) and a few filler words dropped. A re-post
//! after a push, with different whitespace, markup or line numbers, keeps its key.

use crate::Family;
use crate::doc::clean_inline;
use crate::markup::plain;

/// Filler words that do not tell findings apart.
const STOPWORDS: &[&str] = &[
    "a", "an", "the", "of", "to", "in", "on", "at", "for", "is", "are", "be", "this", "that", "it",
    "its", "and", "or", "with", "by", "from", "as", "near", "around",
];

/// Words that introduce a line reference.
const LINE_WORDS: &[&str] = &["line", "lines", "ln"];

/// Removes `:42`, `:10-12` and `#L10-L12` references from lower-case text.
fn drop_line_suffixes(lower: &str) -> String {
    let mut out = String::with_capacity(lower.len());
    let mut chars = lower.chars().peekable();
    while let Some(c) = chars.next() {
        let starts_ref = match c {
            ':' => chars.peek().is_some_and(char::is_ascii_digit),
            '#' => {
                let mut look = chars.clone();
                look.next() == Some('l') && look.next().is_some_and(|d| d.is_ascii_digit())
            }
            _ => false,
        };
        if !starts_ref {
            out.push(c);
            continue;
        }
        out.push(' ');
        while chars
            .peek()
            .is_some_and(|n| n.is_ascii_digit() || matches!(n, '-' | '–' | 'l'))
        {
            chars.next();
        }
    }
    out
}

/// Whether a token is `l42` (an `L42` line reference).
fn is_line_token(t: &str) -> bool {
    t.len() > 1
        && t.starts_with('l')
        && t.get(1..)
            .is_some_and(|d| d.bytes().all(|b| b.is_ascii_digit()))
}

fn is_number(t: &str) -> bool {
    !t.is_empty() && t.bytes().all(|b| b.is_ascii_digit())
}

/// A title's normalised words, in order.
pub(crate) fn tokens(title: &str) -> Vec<String> {
    let (clean, _) = clean_inline(title, 0);
    let lower = drop_line_suffixes(&plain(&clean).to_lowercase());
    let raw: Vec<&str> = lower
        .split(|c: char| !c.is_alphanumeric())
        .filter(|t| !t.is_empty())
        .collect();
    let mut out = Vec::with_capacity(raw.len());
    let mut i = 0;
    while let Some(&t) = raw.get(i) {
        i += 1;
        if is_line_token(t) {
            continue;
        }
        if LINE_WORDS.contains(&t) && raw.get(i).is_some_and(|n| is_number(n) || is_line_token(n)) {
            // `lines 10 to 12`, `line 7 and 9`
            while let Some(&n) = raw.get(i) {
                let joins = matches!(n, "to" | "and" | "through")
                    && raw.get(i + 1).is_some_and(|m| is_number(m));
                if is_number(n) || is_line_token(n) || joins {
                    i += 1;
                } else {
                    break;
                }
            }
            continue;
        }
        if STOPWORDS.contains(&t) {
            continue;
        }
        out.push(t.to_owned());
    }
    out
}

/// Words too common in findings to say two of them are about the same thing.
const WEAK_WORDS: &[&str] = &[
    "so", "when", "before", "after", "anything", "every", "whole", "than", "not", "no", "was",
    "will", "can", "should", "would", "could", "may", "might", "into", "then", "there", "here",
    "which", "while", "if", "but", "we", "you", "your", "our", "has", "have", "does", "do",
];

/// A crude stem: enough for "buffered"/"buffer" and "rows"/"row" to meet, not a linguist.
fn stem(word: &str) -> &str {
    for suffix in ["ing", "ed", "es", "s"] {
        if let Some(base) = word.strip_suffix(suffix)
            && base.chars().count() >= 4
        {
            return base;
        }
    }
    word
}

/// The sorted, de-duplicated token set used for similarity: tokens without weak words, stemmed.
pub(crate) fn token_set(title: &str) -> Vec<String> {
    let mut set: Vec<String> = tokens(title)
        .iter()
        .filter(|t| !WEAK_WORDS.contains(&t.as_str()))
        .map(|t| stem(t).to_owned())
        .collect();
    set.sort_unstable();
    set.dedup();
    set
}

fn common(a: &[String], b: &[String]) -> usize {
    let (mut i, mut j, mut common) = (0, 0, 0usize);
    while let (Some(x), Some(y)) = (a.get(i), b.get(j)) {
        match x.cmp(y) {
            std::cmp::Ordering::Less => i += 1,
            std::cmp::Ordering::Greater => j += 1,
            std::cmp::Ordering::Equal => {
                common += 1;
                i += 1;
                j += 1;
            }
        }
    }
    common
}

/// Whether two findings on the same lines share enough words to be the same finding worded
/// differently (as different bots word it): at least two words, and at least 30% of the shorter
/// one's words. Weaker than [`similar`], so it is only used for threads on nearby lines.
pub(crate) fn overlapping(a: &[String], b: &[String]) -> bool {
    let shared = common(a, b);
    let shorter = a.len().min(b.len());
    shared >= 2 && shared * 10 >= shorter * 3
}

/// Whether two sorted token sets have a Jaccard index of at least one half. Two empty sets are
/// not similar: nothing is known about either.
pub(crate) fn similar(a: &[String], b: &[String]) -> bool {
    let common = common(a, b);
    let union = a.len() + b.len() - common;
    union > 0 && 2 * common >= union
}

/// FNV-1a, 64 bits.
pub(crate) fn fnv1a(parts: &[&[u8]]) -> u64 {
    const OFFSET: u64 = 0xcbf2_9ce4_8422_2325;
    const PRIME: u64 = 0x0000_0100_0000_01b3;
    let mut hash = OFFSET;
    for (n, part) in parts.iter().enumerate() {
        if n > 0 {
            // A separator no text contains, so ("ab", "c") and ("a", "bc") differ.
            hash ^= 0xff;
            hash = hash.wrapping_mul(PRIME);
        }
        for &b in *part {
            hash ^= u64::from(b);
            hash = hash.wrapping_mul(PRIME);
        }
    }
    hash
}

/// A stable key for "the same finding": 16 hex digits of a 64-bit FNV-1a hash over the family,
/// the path and the normalised title (see the module docs).
///
/// The same finding re-posted after a push, with different whitespace, markup, emoji or line
/// numbers, keeps its key; different titles, paths or families give different keys. Pass
/// `None` as the family to compare findings across reviewers.
///
/// ```
/// use review_classify::{fingerprint, Family};
///
/// let a = fingerprint(Some(Family::CodeRabbit), "src/lib.rs", "**Missing null check** (line 42)");
/// let b = fingerprint(Some(Family::CodeRabbit), "src/lib.rs", "Missing  null check at L57");
/// assert_eq!(a, b);
/// assert_eq!(a.len(), 16);
/// assert_ne!(a, fingerprint(Some(Family::CodeRabbit), "src/lib.rs", "Missing bounds check"));
/// assert_ne!(a, fingerprint(None, "src/lib.rs", "Missing null check"));
/// ```
pub fn fingerprint(family: Option<Family>, path: &str, title: &str) -> String {
    let family = family.map_or("", Family::as_str);
    let path = path.trim().trim_start_matches("./");
    let title = tokens(title).join(" ");
    format!(
        "{:016x}",
        fnv1a(&[family.as_bytes(), path.as_bytes(), title.as_bytes()])
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fnv_matches_the_reference_values() {
        assert_eq!(fnv1a(&[b""]), 0xcbf2_9ce4_8422_2325);
        assert_eq!(fnv1a(&[b"a"]), 0xaf63_dc4c_8601_ec8c);
        assert_eq!(fnv1a(&[b"foobar"]), 0x8594_4171_f739_67e8);
    }

    #[test]
    fn tokens_drop_markup_line_references_and_filler() {
        assert_eq!(
            tokens("⚠️ **Missing `null` check** in `parse.rs:42` (lines 10 to 12, L40-L44)"),
            ["missing", "null", "check", "parse", "rs"]
        );
        assert_eq!(
            tokens("Use u32 for the 3 retries"),
            ["use", "u32", "3", "retries"]
        );
        assert_eq!(tokens("<b>Bold</b> &amp; line"), ["bold", "line"]);
    }

    #[test]
    fn similarity_is_a_half_jaccard() {
        let a = token_set("Missing null check in parser");
        let b = token_set("Parser lacks a null check");
        assert!(similar(&a, &b)); // {null, check, parser} of {missing, null, check, parser, lacks}
        let c = token_set("Unbounded allocation");
        assert!(!similar(&a, &c));
        assert!(!similar(&[], &[]));
    }

    #[test]
    fn keys_differ_by_family_path_and_title() {
        let base = fingerprint(Some(Family::Gemini), "a.rs", "Leak");
        assert_ne!(base, fingerprint(Some(Family::Codex), "a.rs", "Leak"));
        assert_ne!(base, fingerprint(Some(Family::Gemini), "b.rs", "Leak"));
        assert_ne!(base, fingerprint(Some(Family::Gemini), "a.rs", "Panic"));
        assert_eq!(base, fingerprint(Some(Family::Gemini), "./a.rs", " leak. "));
    }
}
