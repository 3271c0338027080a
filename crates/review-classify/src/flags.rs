//! What every family's prose can say: style-only, speculative, a design decision, how far the
//! change reaches, already addressed, an alternative, exact instructions.
//!
//! Phrases are matched against word strings (see [`crate::markup::words`]): lower case, words
//! separated by single spaces, a space at each end. A phrase with a space at both ends matches
//! whole words; one without a trailing space matches a word's start (`" vulnerab"`).

use review_core::signals::Scope;

use crate::doc::{Block, Doc};
use std::ops::Range;

use crate::markup::{
    TITLE_MAX, WordText, contains_ci, first_sentence, has_any, is_emoji, push_words, truncate,
    words,
};

/// Hedges: the finding may not state a defect.
const HEDGES: &[&str] = &[
    " might ",
    " may want to ",
    " you may ",
    " may be worth ",
    " might be worth ",
    " consider ",
    " considering ",
    " could potentially ",
    " potentially ",
    " perhaps ",
    " possibly ",
    " maybe ",
    " it would be nice ",
    " would be nice to ",
    " you could ",
    " could be improved ",
    " optionally ",
    " may lead to ",
    " may produce ",
    " may cause ",
];

/// Words that state a defect. A hedged finding that states one is not speculative.
const DEFECTS: &[&str] = &[
    " bug",
    " panic",
    " crash",
    " incorrect",
    " wrong ",
    " wrongly ",
    " fail",
    " broken ",
    " breaks ",
    " leak",
    " vulnerab",
    " injection",
    " race condition",
    " data race",
    " deadlock",
    " off by one ",
    " null pointer",
    " null dereference",
    " nil pointer",
    " undefined ",
    " overflow",
    " underflow",
    " data loss",
    " infinite loop",
    " regression",
    " exception",
    " throws ",
    " does not ",
    " doesn t ",
    " will not ",
    " won t ",
    " never ",
    " missing ",
    " unhandled",
    " uncaught",
    " out of bounds",
    " security ",
    " insecure",
    " unsafe ",
    " corrupt",
    " mismatch",
];

/// A design decision, a new dependency or a change of scope.
const DESIGN: &[&str] = &[
    " architecture ",
    " architectural ",
    " design ",
    " redesign ",
    " design decision",
    " new dependency ",
    " new dependencies ",
    " add a dependency ",
    " adding a dependency ",
    " extra dependency ",
    " additional dependency ",
    " external dependency ",
    " third party crate ",
    " third party library ",
    " refactor the ",
    " refactoring the ",
    " should we ",
    " trade off",
    " tradeoff",
    " at the cost of ",
    " each gives a different ",
    " each behaves differently ",
    // Matching an earlier behaviour, or not, is the author's call.
    " to match the original behaviour ",
    " to match the original behavior ",
    " to keep the original behaviour ",
    " to keep the original behavior ",
    // The reviewer asks which of two behaviours the author wants.
    " which default do you want",
    " which behaviour do you want",
    " which behavior do you want",
    " which do you want",
    " which one do you want",
    " do you want the ",
    " would you prefer ",
    " do you prefer ",
    " consider restructuring ",
    " restructure ",
    " restructuring ",
    " breaking change",
    // A change that breaks what callers already rely on: keeping or breaking it is the author's.
    " backward compatib",
    " backwards compatib",
    " existing scripts ",
    " existing clients ",
    " existing integrations ",
    " existing users ",
    " existing callers ",
    " existing consumers ",
    " downstream users ",
    " downstream consumers ",
    " anyone who relied on ",
    " anyone who relies on ",
    " anyone relying on ",
    " users who rely on ",
    " callers who rely on ",
    " public api ",
    " out of scope ",
    " separate pr ",
    " follow up pr ",
    " rethink ",
    " rethought ",
    " rethinking ",
    " decide ",
    " deciding ",
    " decision ",
    " coordinate with ",
    // The reviewer asks whether a behaviour change is wanted: the author's choice.
    " if that is intended ",
    " if this is intended ",
    " if that is intentional ",
    " if this is intentional ",
    " if intentional ",
    " unless this is intended ",
    " unless that is intended ",
    " is this intended ",
    " was this intended ",
    " is this intentional ",
    " was this intentional ",
    " extract a ",
    " extract the ",
    " extracting a ",
    " extracting the ",
    " extract this into ",
    " extract it into ",
    " extract these into ",
    " extracting this into ",
    " extracting it into ",
    " extracting these into ",
    " split it into ",
    " splitting it into ",
    " split the ",
    " splitting the ",
    " separate helpers ",
    " shared helper ",
    " into its own ",
    " belongs in the ",
];

/// Style-only wording in a title.
const STYLE: &[&str] = &[
    " typo in comment",
    " typo in the comment",
    " typo in a comment",
    " typo in docstring",
    " typo in the docstring",
    " typo in doc",
    " typo in the doc",
    " missing docstring",
    " lacks a docstring",
    " parameter docs",
    " missing documentation",
    " lacks documentation",
    // A message's wording, not a key or an identifier (a typo there can be a defect).
    " typo in log message",
    " typo in the log message",
    " typo in error message",
    " typo in the error message",
    " typo in warning message",
    " typo in the warning message",
    " spelling ",
    " misspell",
    " grammar",
    " wording ",
    " formatting ",
    " whitespace",
    " indentation ",
    " trailing comma",
    " naming convention",
    " variable name ",
    " name does not describe ",
    " more descriptive name",
    " descriptive name ",
    " code style ",
    " style nit",
    " nit ",
    " nitpick",
    " for readability ",
    " for consistency ",
    " for clarity ",
    " unused variable",
    " unused import",
    " unused local",
    " unused parameter",
    " unused argument",
    " dead code ",
    " unreachable code ",
];

/// The change reaches other files.
const SCOPE: &[&str] = &[
    " across files ",
    " across multiple files ",
    " across all files ",
    " across the codebase ",
    " throughout the codebase ",
    " all callers ",
    " every caller ",
    " each caller ",
    " all call sites ",
    " every call site ",
    " each call site ",
    " other call sites ",
    " other files ",
    " multiple files ",
    " several files ",
    " every file ",
    " all files ",
];

/// A later automated reply saying the finding was addressed.
const REPLY_ADDRESSED: &[&str] = &[
    " addressed in commit",
    " has been addressed ",
    " have been addressed ",
    " was addressed ",
    " were addressed ",
    " is now addressed ",
    " has been fixed ",
    " have been fixed ",
    " is now fixed ",
    " fixed in commit",
    " resolved in commit",
];

/// Words that undo an "addressed" reply.
const NEGATIONS: &[&str] = &[
    " not ",
    " n t ",
    " still ",
    " yet ",
    " partially ",
    " partly ",
];

/// The comment offers an alternative.
const ALTERNATIVES: &[&str] = &[
    " alternatively ",
    " another option ",
    " an alternative ",
    " alternative approach ",
    " alternative fix ",
    " option 2 ",
    " option b ",
    " or you could ",
    " or if you prefer ",
    " a different approach ",
];

/// Labels that introduce fix material in a following code block.
const PROPOSED: &[&str] = &[
    " proposed fix ",
    " suggested fix ",
    " proposed change ",
    " suggested change ",
    " recommended fix ",
    " proposed patch ",
    " suggested patch ",
];

/// How much prose after the title counts as the finding's lead, in bytes.
const LEAD_BYTES: usize = 800;

/// A finding's prose, ready for phrase matching.
#[derive(Debug, Clone)]
pub(crate) struct Prose {
    /// Words of every prose line.
    pub all: WordText,
    /// Words of the title and the first prose lines: where the finding is stated.
    pub lead: WordText,
    /// Where each prose line's words are in `all`, by line index (empty for lines without
    /// words, or in CodeRabbit's note).
    line_words: Vec<Range<usize>>,
}

impl Prose {
    pub(crate) fn new(doc: &Doc, title: &str) -> Self {
        let mut in_note = false;
        let mut all = String::with_capacity(doc.lines.iter().map(String::len).sum::<usize>() + 1);
        all.push(' ');
        let mut line_words = Vec::with_capacity(doc.lines.len());
        let mut lead_end = 1;
        for (line, p) in doc.lines.iter().zip(&doc.plain) {
            let quoted = line.trim_start().starts_with('>');
            in_note = quoted && (in_note || is_note_start(p));
            if p.is_empty() || in_note {
                line_words.push(0..0);
                continue;
            }
            // The range starts at the space before the line's first word.
            let start = all.len() - 1;
            let before = all.len();
            push_words(&mut all, p);
            if before < LEAD_BYTES {
                lead_end = all.len();
            }
            line_words.push(start..all.len());
        }
        let mut lead = words(title);
        lead.push_str(all.get(1..lead_end).unwrap_or(""));
        Self {
            all: WordText::new(all),
            lead: WordText::new(lead),
            line_words,
        }
    }

    /// The words of prose line `i` (a word string, `""` when it has none).
    pub(crate) fn line(&self, i: usize) -> &str {
        self.line_words
            .get(i)
            .and_then(|r| self.all.as_str().get(r.clone()))
            .unwrap_or("")
    }
}

/// The first line of CodeRabbit's quoted note above a committable suggestion (`> ‼️
/// **IMPORTANT**`): the same words on every comment, about reviewing the code, not about the
/// finding. The note runs to the end of the blockquote.
fn is_note_start(plain: &str) -> bool {
    plain == "IMPORTANT"
}

/// A title that names a style-only change and no defect.
pub(crate) fn style_title(title: &str) -> bool {
    let w = words(title);
    has_any(&w, STYLE) && !has_any(&w, DEFECTS)
}

/// The finding opens with a nitpick marker (`Nit:`, `nit -`, `[nit]`, `(nit)`, `Nitpick:`),
/// after an automated-comment `header` line if there is one.
pub(crate) fn nit_marker(doc: &Doc, header: &str) -> bool {
    let Some(first) = doc
        .nonempty()
        .map(|(i, _)| doc.plain_of(i))
        .find(|p| header.is_empty() || !p.starts_with(header.trim_start_matches(is_emoji).trim()))
    else {
        return false;
    };
    let lower = first
        .trim_start_matches(['[', '('])
        .trim_start()
        .to_lowercase();
    let Some(rest) = lower.strip_prefix("nit") else {
        return false;
    };
    let rest = rest.strip_prefix("pick").unwrap_or(rest);
    rest.chars().next().is_none_or(|c| !c.is_alphanumeric())
}

/// Hedged wording in the lead and no defect stated anywhere.
pub(crate) fn speculative(prose: &Prose) -> bool {
    prose.lead.has_any(HEDGES) && !prose.all.has_any(DEFECTS)
}

/// "Decide" in other languages: a finding that says a decision is needed leaves it to the
/// author, as " decide " and " decision " do in English. Spaced words for the languages that
/// space them, substrings for those that do not ("決め": 決める, 決めたうえで; not 決定論的,
/// "deterministic").
const DESIGN_ELSEWHERE: &[&str] = &[
    " decidir ",
    " entscheiden ",
    " décider ",
    " decidere ",
    // "If that is intended": whether a change was meant is the author's to say.
    " beabsichtigt",
    " gewollt ",
    " sein soll",
    // "One option would be": a choice offered, not the change.
    " eine möglichkeit",
    " intencional",
    " intentionnel",
];
const DESIGN_UNSPACED: &[&str] = &[
    "決め",
    "決定する必要",
    "需要决定",
    "需要決定",
    "결정해야",
    "결정이 필요",
    // "To match the original behaviour": whether to is the author's call.
    "元の挙動に合わせる",
    "元の動作に合わせる",
];

/// The lead asks for a design decision, a refactoring, a new dependency or a change of scope:
/// the words found.
pub(crate) fn design(prose: &Prose) -> Option<String> {
    if let Some(asked) = asks_intent(prose.lead.as_str()) {
        return Some(asked);
    }
    let lead = prose.lead.as_str();
    if let Some(word) = DESIGN_ELSEWHERE
        .iter()
        .find(|p| lead.contains(*p))
        .or_else(|| {
            (!lead.is_ascii())
                .then(|| DESIGN_UNSPACED.iter().find(|p| lead.contains(*p)))
                .flatten()
        })
    {
        return Some(format!("it says \"{}\"", word.trim()));
    }
    if !prose.lead.has_any(DESIGN) {
        return None;
    }
    DESIGN
        .iter()
        .find(|p| prose.lead.has_any(std::slice::from_ref(p)))
        .map(|p| format!("it says \"{}\"", p.trim()))
}

/// The reviewer asks whether a change was meant: "if the rename is intended", "unless this was
/// deliberate" (a condition on intent, within a few words): the author's choice. The words found.
fn asks_intent(words: &str) -> Option<String> {
    let tokens: Vec<&str> = words.split_whitespace().collect();
    tokens.iter().enumerate().find_map(|(i, t)| {
        if !matches!(*t, "if" | "unless") {
            return None;
        }
        let window = tokens.get(i + 1..(i + 6).min(tokens.len()))?;
        let at = window
            .iter()
            .position(|w| matches!(*w, "intended" | "intentional" | "deliberate" | "desired"))?;
        let verb = window.get(at.checked_sub(1)?)?;
        let asked = window.get(..=at)?.join(" ");
        matches!(*verb, "is" | "was" | "are" | "were" | "s")
            .then(|| format!("it asks \"{t} {asked}\""))
    })
}

/// Files that are instructions to an agent or a tool rather than documentation, though they
/// are Markdown (`SKILL.md`, `AGENTS.md`, `foo.agent.md`, a prompt): a finding on one is
/// about behaviour.
fn instruction_file(path: &str) -> bool {
    let name = path.rsplit('/').next().unwrap_or(path).to_ascii_lowercase();
    let lower = path.to_ascii_lowercase();
    matches!(
        name.as_str(),
        "skill.md" | "agents.md" | "claude.md" | "gemini.md" | "copilot-instructions.md"
    ) || name.ends_with(".agent.md")
        || name.ends_with(".prompt.md")
        || name.ends_with(".instructions.md")
        || lower.contains("/prompts/")
        || lower.starts_with("prompts/")
        || lower.contains("/agents/")
        || lower.starts_with("agents/")
        || lower.contains("/skills/")
        || lower.starts_with("skills/")
}

/// Extensions of documentation files: a finding on one is about documentation.
const DOC_EXTENSIONS: &[&str] = &["md", "mdx", "markdown", "rst", "adoc", "asciidoc"];

/// Whether the thread's file is documentation (Markdown, reStructuredText, AsciiDoc).
pub(crate) fn docs_file(path: &str) -> bool {
    !instruction_file(path)
        && path
            .rsplit_once('.')
            .is_some_and(|(_, ext)| DOC_EXTENSIONS.contains(&ext.to_ascii_lowercase().as_str()))
}

/// The comment carries a "✅ Addressed" mark (CodeRabbit appends "✅ Addressed in commit ...",
/// Qodo marks "✅ Addressed").
pub(crate) fn addressed(doc: &Doc) -> bool {
    doc.lines.iter().any(|l| contains_ci(l, "✅ addressed"))
}

/// Whether an automated reply says the finding was addressed (without a negation), or says
/// "Fixed in `<sha>`".
pub(crate) fn reply_addressed(body: &str) -> bool {
    let doc = Doc::parse(body);
    let prose = Prose::new(&doc, "");
    if prose.all.has_any(NEGATIONS) {
        return false;
    }
    if addressed(&doc) || prose.all.has_any(REPLY_ADDRESSED) {
        return true;
    }
    let mut rest = prose.all.as_str();
    while let Some(at) = rest.find(" fixed in ") {
        rest = rest.get(at + " fixed in ".len()..).unwrap_or("");
        let next = rest.split(' ').next().unwrap_or("");
        if (7..=40).contains(&next.len()) && next.chars().all(|c| c.is_ascii_hexdigit()) {
            return true;
        }
    }
    false
}

/// Extensions of files a finding may name.
const EXTENSIONS: &[&str] = &[
    "rs", "py", "pyi", "js", "jsx", "ts", "tsx", "mjs", "cjs", "go", "java", "kt", "kts", "swift",
    "rb", "php", "c", "h", "cc", "cpp", "hpp", "cs", "scala", "sh", "bash", "sql", "yml", "yaml",
    "toml", "json", "md", "html", "css", "scss", "vue", "svelte", "ex", "exs", "erl", "hs", "ml",
    "lua", "dart", "proto", "graphql", "gradle", "xml", "ini", "cfg", "tf", "nix", "zig",
];

/// Names that look like files but are not.
const NOT_PATHS: &[&str] = &[
    "node.js",
    "next.js",
    "vue.js",
    "nuxt.js",
    "express.js",
    "three.js",
    "d3.js",
    "chart.js",
    "react.js",
    "angular.js",
    "ember.js",
    "deno.js",
    "discord.js",
    "socket.io",
    "moment.js",
    "day.js",
    "knockout.js",
    "backbone.js",
    "alpine.js",
    "solid.js",
    "p5.js",
    "pixi.js",
    "phaser.js",
    "video.js",
    "pdf.js",
    "highlight.js",
    "marked.js",
];

/// A token of prose as a file path, if it looks like one. A quoted token (`".cache/a.json"`)
/// is a string literal, not a path.
fn path_token(raw: &str) -> Option<&str> {
    if !raw.contains('.') || raw.contains('(') || raw.contains("://") {
        return None;
    }
    let unticked = raw.trim_matches(|c: char| matches!(c, '`' | ',' | ';' | ')' | '('));
    if unticked.len() > 1
        && (unticked.starts_with('"') || unticked.starts_with('\''))
        && (unticked.ends_with('"') || unticked.ends_with('\''))
    {
        return None;
    }
    let t = raw.trim_matches(|c: char| {
        matches!(
            c,
            '`' | '\''
                | '"'
                | ')'
                | '['
                | ']'
                | '{'
                | '}'
                | ','
                | ';'
                | '*'
                | '<'
                | '>'
                | '!'
                | '?'
        )
    });
    let t = t.trim_end_matches(['.', ':']);
    let t = t.split('#').next().unwrap_or("");
    let t = match t.split_once(':') {
        Some((head, tail)) if tail.starts_with(|c: char| c.is_ascii_digit()) => head,
        Some(_) => return None,
        None => t,
    };
    if t.starts_with("www.") || NOT_PATHS.contains(&t.to_ascii_lowercase().as_str()) {
        return None;
    }
    let (stem, ext) = t.rsplit_once('.')?;
    let stem_ok = stem.chars().any(char::is_alphabetic)
        && !stem.ends_with('/')
        && stem
            .chars()
            .all(|c| c.is_alphanumeric() || matches!(c, '_' | '-' | '.' | '/' | '@' | '+'));
    (stem_ok && EXTENSIONS.contains(&ext)).then_some(t)
}

/// Whether a path named in prose is the thread's file. A path with spaces (`People Directory
/// 1/ContentView.swift`) reaches the reader in pieces: its last piece is still the thread's file.
fn same_file(token: &str, path: &str) -> bool {
    let path = path.trim().trim_start_matches("./");
    let token = token.trim_start_matches("./");
    token == path
        || path
            .strip_suffix(token)
            .is_some_and(|head| head.ends_with('/') || (head.ends_with(' ') && token.contains('/')))
        || token
            .strip_suffix(path)
            .is_some_and(|head| head.ends_with('/'))
}

/// Single file, unless the prose names another file or says the change reaches across files:
/// the scope and what set it. When the comment's fix material is on the thread's own file (one
/// suggestion block, or a diff that names no other file), words about impact ("every caller")
/// are not its scope; a file the prose names still is.
pub(crate) fn scope(
    doc: &Doc,
    prose: &Prose,
    path: &str,
    own_fix: bool,
) -> (Scope, Option<String>) {
    if !own_fix && prose.all.has_any(SCOPE) {
        let phrase = SCOPE
            .iter()
            .find(|p| prose.all.has_any(std::slice::from_ref(p)))
            .map_or("", |p| p.trim());
        return (Scope::MultiFile, Some(format!("it says \"{phrase}\"")));
    }
    let other = doc
        .lines
        .iter()
        .filter(|line| line.contains('.'))
        .find_map(|line| {
            line.split_whitespace()
                .filter_map(path_token)
                .find(|token| !same_file(token, path))
        });
    match other {
        Some(file) => (Scope::MultiFile, Some(format!("it names {file}"))),
        None => (Scope::SingleFile, None),
    }
}

/// The files a diff block's headers name (`--- a/x`, `+++ b/x`, `diff --git a/x b/x`).
pub(crate) fn diff_files(block: &Block) -> Vec<String> {
    let mut out = Vec::new();
    for line in block.text.lines() {
        let named = if let Some(rest) = line
            .strip_prefix("+++ ")
            .or_else(|| line.strip_prefix("--- "))
        {
            vec![rest.split('\t').next().unwrap_or("").trim()]
        } else if let Some(rest) = line.strip_prefix("diff --git ") {
            rest.split_whitespace().collect()
        } else {
            continue;
        };
        for name in named {
            let name = name
                .strip_prefix("a/")
                .or_else(|| name.strip_prefix("b/"))
                .unwrap_or(name);
            if !name.is_empty() && name != "/dev/null" && !out.iter().any(|o| o == name) {
                out.push(name.to_owned());
            }
        }
    }
    out
}

/// Whether `file` (from a diff header or a fix list) is the thread's file.
pub(crate) fn is_thread_file(file: &str, path: &str) -> bool {
    same_file(file, path)
}

/// The alternative the comment offers, as one line.
pub(crate) fn alternative(doc: &Doc, prose: &Prose) -> Option<String> {
    if !prose.all.has_any(ALTERNATIVES) {
        return None;
    }
    let mut lines = doc.nonempty().map(|(i, _)| i);
    let at = lines.find(|&i| has_any(prose.line(i), ALTERNATIVES))?;
    let mut text = after_marker(doc.plain_of(at))
        .unwrap_or_else(|| first_sentence(doc.plain_of(at)))
        .to_owned();
    if text.chars().count() < 16
        && let Some(next) = lines.next()
    {
        text.push(' ');
        text.push_str(first_sentence(doc.plain_of(next)));
    }
    Some(truncate(text.trim(), TITLE_MAX))
}

/// The words after "alternatively" (or "an alternative is", ...) up to the end of that sentence:
/// the alternative itself rather than the sentence that introduces it.
fn after_marker(line: &str) -> Option<&str> {
    const MARKERS: &[&str] = &[
        "alternatively",
        "an alternative would be",
        "an alternative is",
        "another option is",
        "alternative approach",
        "alternative fix",
    ];
    let lower = line.to_ascii_lowercase();
    let (at, marker) = MARKERS
        .iter()
        .filter_map(|m| lower.find(m).map(|at| (at, *m)))
        .min_by_key(|(at, _)| *at)?;
    // ASCII lower-casing keeps byte offsets, so `at` is a char boundary of `line` too.
    let rest = line.get(at + marker.len()..)?;
    let rest = rest.trim_start_matches([',', ':', ' ', '-']);
    let end = rest.find(". ").map_or(rest.len(), |e| e);
    let text = rest.get(..end)?.trim_end_matches(['.', ':']).trim();
    (text.chars().count() >= 8).then_some(text)
}

/// With several suggestion blocks and a bare "or" between them, the second block as the
/// alternative.
pub(crate) fn or_between(doc: &Doc, suggestions: &[&Block]) -> Option<String> {
    let (first, second) = (suggestions.first()?, suggestions.get(1)?);
    let offered = doc
        .plain
        .get(first.line..second.line)?
        .iter()
        .map(|l| l.to_lowercase())
        .any(|p| {
            p == "or"
                || ((p.starts_with("or ") || p.starts_with("or,") || p.starts_with("or:"))
                    && p.len() < 40)
        });
    if !offered {
        return None;
    }
    let replacement = second
        .text
        .lines()
        .map(str::trim)
        .find(|l| !l.is_empty())
        .unwrap_or("delete the lines");
    Some(truncate(
        &format!("the other suggested replacement: {replacement}"),
        TITLE_MAX,
    ))
}

/// A fix-material label ("Proposed fix", "Suggested change", ...) followed by a closed code
/// block.
pub(crate) fn proposed_fix(doc: &Doc, prose: &Prose) -> bool {
    if !prose.all.has_any(PROPOSED) {
        return false;
    }
    (0..prose.line_words.len()).any(|i| {
        has_any(prose.line(i), PROPOSED)
            && doc
                .blocks
                .iter()
                .any(|b| b.closed && b.line > i && b.info != "suggestion")
    })
}

/// Exact instructions in prose: "replace `a` with `b`", "rename `a` to `b`".
pub(crate) fn exact_prose(doc: &Doc) -> bool {
    doc.lines.iter().filter(|l| l.contains('`')).any(|line| {
        let lower = line.to_ascii_lowercase();
        [
            "replace `",
            "change `",
            "rename `",
            "replacing `",
            "changing `",
            "renaming `",
        ]
        .iter()
        .filter_map(|verb| lower.find(verb).map(|at| at + verb.len()))
        .any(|from| {
            lower
                .get(from..)
                .is_some_and(|rest| rest.contains("` with `") || rest.contains("` to `"))
        })
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn prose(body: &str) -> (Doc, Prose) {
        let doc = Doc::parse(body);
        let p = Prose::new(&doc, "");
        (doc, p)
    }

    #[test]
    fn phrase_lists_are_written_as_word_strings() {
        for list in [
            HEDGES,
            DEFECTS,
            DESIGN,
            STYLE,
            SCOPE,
            REPLY_ADDRESSED,
            NEGATIONS,
            ALTERNATIVES,
            PROPOSED,
        ] {
            for phrase in list {
                let normal = words(phrase);
                assert!(
                    normal.starts_with(phrase.trim_end()) || normal == *phrase,
                    "{phrase:?} is not normalised ({normal:?})"
                );
            }
        }
    }

    #[test]
    fn speculative_needs_a_hedge_and_no_defect() {
        assert!(speculative(&prose("You might want to cache this value.").1));
        assert!(speculative(&prose("Consider extracting a helper.").1));
        // A possible consequence with no defect stated is a hedge too; a stated one is not.
        assert!(speculative(
            &prose("That may produce a quoting problem if the snippet is edited later.").1
        ));
        assert!(!speculative(
            &prose("An empty list may cause a crash in `render`.").1
        ));
        assert!(!speculative(
            &prose("Consider a guard: this panics on empty input.").1
        ));
        assert!(!speculative(&prose("The index is off by one.").1));
    }

    #[test]
    fn design_wording() {
        for text in [
            "Should we move this into its own crate?",
            "This adds a new dependency on serde_yaml.",
            "Consider restructuring the module.",
            "There is a trade-off between speed and memory.",
            // Asking whether a behaviour change is wanted leaves the choice to the author.
            "The command now opens a browser on a TTY. If that is intended, say so in the changelog.",
            "Was this intentional? Before, the list was sorted by date.",
            "If the rename is intended, keep the old flag as an alias.",
            "Unless the new default was deliberate, restore it.",
            // Extracting code into a new unit shared with others is a refactoring to decide.
            "Consider extracting this into a `BillingService` shared with the renewal job.",
            // A decision asked for, in other languages.
            "Hace falta decidir cómo serializar el acceso.",
            "店舗ごとに締めるのか、全社で統一するのかを決めたうえで計算する必要があります。",
            "어느 쪽으로 갈지 결정해야 합니다.",
            "Switching works everywhere but changes logging, at the cost of a lookup table.",
            "Which default do you want the role to ship?",
            "This changes logging for anyone who relied on the external server.",
            "You could probe the process, read the session, or list packages; each gives a different answer.",
            "元の挙動に合わせるなら、残りが空であることだけを確認してください。",
            "Falls das so gewollt ist, sollte es im Changelog stehen.",
            "Ein Schalter wäre eine Möglichkeit, falls JSON die Standardausgabe sein soll.",
        ] {
            assert!(design(&prose(text).1).is_some(), "{text}");
        }
        assert!(design(&prose("The designated handler is skipped.").1).is_none());
        assert!(design(&prose("このテストは決定論的ではありません。").1).is_none());
        assert!(design(&prose("The intended value is lost when the cache is cold.").1).is_none());
        assert!(
            design(&prose("The cache is intended to be per request, but it is global.").1)
                .is_none()
        );
    }

    #[test]
    fn nit_markers() {
        for body in [
            "Nit: rename `rl`.",
            "**Nit: naming**",
            "[nit] spacing",
            "(nit) spacing",
            "nitpick - long line",
            "Nit",
            "🤖 Automated comment by **QA**\n\nnit: a",
        ] {
            assert!(
                nit_marker(&Doc::parse(body), "🤖 Automated comment by"),
                "{body}"
            );
        }
        for body in ["Nitrogen levels", "This is a nit", "Unit tests fail"] {
            assert!(!nit_marker(&Doc::parse(body), ""), "{body}");
        }
    }

    #[test]
    fn style_titles() {
        assert!(style_title("Typo in comment"));
        assert!(style_title("Typo in log message"));
        assert!(style_title("Public method lacks parameter docs"));
        assert!(style_title("Fix indentation of the match arms"));
        assert!(style_title("Rename for clarity"));
        assert!(!style_title("Typo in the key name breaks lookup"));
        assert!(!style_title("Missing null check"));
    }

    #[test]
    fn scope_from_paths_and_phrases() {
        let path = "src/server/handler.rs";
        let single = "Check `handler.rs:40` and `src/server/handler.rs#L10-L12`; call `res.json()` after Node.js.";
        let (doc, p) = prose(single);
        assert_eq!(scope(&doc, &p, path, false).0, Scope::SingleFile);
        let multi = "Update the caller in `src/client/mod.rs` as well.";
        let (doc, p) = prose(multi);
        assert_eq!(
            scope(&doc, &p, path, false),
            (
                Scope::MultiFile,
                Some("it names src/client/mod.rs".to_owned())
            )
        );
        let (doc, p) = prose("Apply the same change to all callers.");
        assert_eq!(scope(&doc, &p, path, false).0, Scope::MultiFile);
        let (doc, p) = prose("See https://example.com/docs/other.rs for details.");
        assert_eq!(scope(&doc, &p, path, false).0, Scope::SingleFile);
    }

    #[test]
    fn a_fix_on_the_threads_own_file_sets_the_scope() {
        let path = "src/sum.rs";
        let (doc, p) = prose("Every caller gets the wrong sum.");
        assert_eq!(scope(&doc, &p, path, true).0, Scope::SingleFile);
        assert_eq!(scope(&doc, &p, path, false).0, Scope::MultiFile);
        // A file the prose names is still another file.
        let (doc, p) = prose("Update `src/b.rs` too.");
        assert_eq!(scope(&doc, &p, path, true).0, Scope::MultiFile);
        // A quoted string literal is not a path.
        let (doc, p) = prose("Values such as `\".cache/index.json\"` are missed.");
        assert_eq!(scope(&doc, &p, path, false).0, Scope::SingleFile);
    }

    #[test]
    fn diff_headers_name_files() {
        let doc = Doc::parse("```diff\n--- a/src/a.rs\n+++ b/src/b.rs\n@@ -1 +1 @@\n-x\n+y\n```");
        assert_eq!(diff_files(&doc.blocks[0]), ["src/a.rs", "src/b.rs"]);
        let doc = Doc::parse("```diff\n-x\n+y\n```");
        assert!(diff_files(&doc.blocks[0]).is_empty());
    }

    #[test]
    fn documentation_files() {
        assert!(docs_file("docs/guide.md"));
        assert!(docs_file("README.rst"));
        assert!(!docs_file("requirements.txt"));
        assert!(!docs_file("src/md.rs"));
        // Markdown that instructs an agent or a tool is behaviour, not documentation.
        for path in [
            "skills/review/SKILL.md",
            "AGENTS.md",
            "agents/second-opinion.agent.md",
            ".github/prompts/triage.prompt.md",
            "CLAUDE.md",
        ] {
            assert!(!docs_file(path), "{path}");
        }
    }

    #[test]
    fn replies_that_say_addressed() {
        assert!(reply_addressed(
            "✅ Addressed in commits 1a2b3c4 to 5d6e7f8"
        ));
        assert!(reply_addressed("This has been addressed, thanks."));
        assert!(reply_addressed(
            "🤖 Automated comment by **review**\n\nFixed in 3f2a9c1."
        ));
        assert!(!reply_addressed("This has not been addressed yet."));
        assert!(!reply_addressed(
            "It has been fixed partially; the other branch is still open."
        ));
        assert!(!reply_addressed("Fixed in the next release."));
        assert!(!reply_addressed("Thanks for the explanation."));
    }

    #[test]
    fn alternatives_and_exact_prose() {
        let (doc, p) =
            prose("Use a map.\n\n**Alternatively:**\nsort the list once and binary-search it.");
        assert_eq!(
            alternative(&doc, &p).as_deref(),
            Some("Alternatively: sort the list once and binary-search it.")
        );
        let (doc, p) = prose(
            "Either prefix such cells with a quote, or alternatively document that the export is for machines only. The first is usual.",
        );
        assert_eq!(
            alternative(&doc, &p).as_deref(),
            Some("document that the export is for machines only"),
            "the alternative itself, not the sentence that introduces it"
        );
        let (doc, _) = prose("Rename `tmp` to `buffer`.");
        assert!(exact_prose(&doc));
        let (doc, _) = prose("Replace `a == b` with `a.eq(&b)` here.");
        assert!(exact_prose(&doc));
        let (doc, _) = prose("Change the name to something clearer.");
        assert!(!exact_prose(&doc));
    }

    #[test]
    fn bare_or_between_suggestions() {
        let body = "Two ways:\n```suggestion\nA\n```\nor\n```suggestion\nB\n```";
        let doc = Doc::parse(body);
        let blocks: Vec<&Block> = doc.suggestions().collect();
        assert_eq!(
            or_between(&doc, &blocks).as_deref(),
            Some("the other suggested replacement: B")
        );
    }
}
