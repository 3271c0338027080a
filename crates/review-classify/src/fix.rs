//! What a finding's prose says about its fix and its consequences, in any language: a sentence
//! that names the change, a code block introduced as the fix, a choice between fixes, and a
//! plainly serious consequence.
//!
//! Every function returns what it found, in a few words, for the `why` of the signal it sets.

use crate::doc::Doc;
use crate::flags::Prose;
use crate::markup::{
    TITLE_MAX, WordText, contains_ci, first_sentence, has_any, plain, truncate, words,
};

/// Verbs that open an instruction naming a change (`Use X`, `Pass Y`, `Remove Z`). "Move" is
/// left out on purpose: moving code is where structural changes live ("move this into a shared
/// module"); only a move of the code shown, with a code span and no unit of code named
/// ([`STRUCTURE`]), names the change.
const FIX_VERBS: &[&str] = &[
    "accumulate",
    "add",
    "append",
    "apply",
    "assert",
    "await",
    "bind",
    "build",
    "call",
    "cap",
    "cast",
    "catch",
    "change",
    "check",
    "clamp",
    "clear",
    "close",
    "commit",
    "compare",
    "compute",
    "convert",
    "copy",
    "declare",
    "decode",
    "deduplicate",
    "default",
    "define",
    "delete",
    "derive",
    "disable",
    "drop",
    "enable",
    "encode",
    "end",
    "escape",
    "fetch",
    "filter",
    "flush",
    "free",
    "guard",
    "handle",
    "import",
    "include",
    "initialise",
    "initialize",
    "invert",
    "iterate",
    "keep",
    "load",
    "lock",
    "log",
    "lowercase",
    "make",
    "mark",
    "mock",
    "normalise",
    "normalize",
    "only",
    "open",
    "parse",
    "pass",
    "pin",
    "preload",
    "prepend",
    "propagate",
    "qualify",
    "quantise",
    "quantize",
    "quote",
    "raise",
    "read",
    "recompute",
    "reject",
    "release",
    "remove",
    "rename",
    "reorder",
    "replace",
    "reset",
    "restore",
    "restrict",
    "return",
    "rotate",
    "round",
    "send",
    "set",
    "skip",
    "sort",
    "specify",
    "stop",
    "store",
    "stream",
    "swap",
    "switch",
    "throw",
    "track",
    "treat",
    "trim",
    "unset",
    "update",
    "uppercase",
    "use",
    "validate",
    "wrap",
    "write",
];

/// Verbs of other languages that open an instruction (Spanish, Portuguese, German, French).
const FOREIGN_VERBS: &[&str] = &[
    "usa",
    "utiliza",
    "cambia",
    "reemplaza",
    "añade",
    "agrega",
    "compruebe",
    "utilize",
    "substitua",
    "adicione",
    "verifique",
    "troque",
    "cierra",
    "abre",
    "elimina",
    "devuelve",
    "llama",
    "feche",
    "abra",
    "remova",
    "retorne",
    "chame",
    "verwende",
    "verwenden",
    "ersetze",
    "ersetzen",
    "füge",
    "prüfe",
    "öffne",
    "schließe",
    "entferne",
    "setze",
    "nutze",
    "benutze",
    "rufe",
    "gib",
    "bitte",
    "utilisez",
    "utiliser",
    "remplacez",
    "ajoutez",
    "vérifiez",
    "ouvrez",
    "fermez",
    "supprimez",
    "retournez",
    "appelez",
    // Infinitives, as titles in Portuguese, Spanish and French name the change
    // ("Clonar os itens antes de internar ...").
    "clonar",
    "corrigir",
    "adicionar",
    "remover",
    "substituir",
    "validar",
    "verificar",
    "renomear",
    "corregir",
    "añadir",
    "agregar",
    "eliminar",
    "reemplazar",
    "comprobar",
    "renombrar",
    "cloner",
    "corriger",
    "ajouter",
    "supprimer",
    "remplacer",
    "vérifier",
    "valider",
    "renommer",
    // More imperatives: Spanish (tú and usted), Portuguese, French.
    "genera",
    "genere",
    "reutiliza",
    "reutilice",
    "rechaza",
    "rechace",
    "mueve",
    "mueva",
    "renombra",
    "renombre",
    "corrige",
    "corrija",
    "valida",
    "valide",
    "añada",
    "agregue",
    "cambie",
    "elimine",
    "devuelva",
    "llame",
    "acrescente",
    "inclua",
    "mova",
    "renomeie",
    "altere",
    "defina",
    "extraia",
    "rejeite",
    "passez",
    "déplacez",
    "renommez",
    "corrigez",
    "validez",
    "rejetez",
];

/// Phrases that make an instruction of what follows them, in a sentence with a code span.
const MODALS: &[&str] = &[
    " should be ",
    " should use ",
    " should call ",
    " should pass ",
    " should return ",
    " should read ",
    " must be ",
    " must use ",
    " needs to be ",
    " need to be ",
    " has to be ",
    " debería ",
    " deberia ",
    " deveria ",
    " sollte ",
    " devrait ",
    // "It is enough to ...": Spanish and Portuguese ("basta con", "basta").
    " basta ",
];

/// Words saying that a gerund clause (`Using X ...`) is the fix.
const OUTCOMES: &[&str] = &[
    " fixes ",
    " fix it ",
    " fixes it ",
    " restores ",
    " resolves ",
    " avoids ",
    " prevents ",
    " releases ",
    " keeps ",
    " ensures ",
    " solves ",
    " handles ",
    " closes ",
];

/// Instructions in scripts without spaces between words, and Korean endings.
const CJK_INSTRUCTIONS: &[&str] = &[
    "即可",
    "改为",
    "改成",
    "应改为",
    "应该使用",
    "建议使用",
    "建议改为",
    "请使用",
    "需要调用",
    "てください",
    "に変更",
    "を使用",
    "に置き換え",
    "を使って",
    "하세요",
    "해야 합니다",
    "해야합니다",
    "주세요",
    "请检查",
    "请将",
    "请在",
    "请添加",
    "请删除",
    "请移除",
    "请改用",
    "수정해야",
    "변경해야",
    "사용해야",
    "로 수정",
    "로 변경",
];

/// Hedges: a hedged sentence proposes, it does not name the fix.
const HEDGES: &[&str] = &[
    " might ",
    " may ",
    " could ",
    " consider ",
    " considering ",
    " perhaps ",
    " maybe ",
    " possibly ",
    " worth ",
    " probably ",
    " if you want ",
    " optionally ",
];

/// Words that introduce an illustration rather than the fix.
const EXAMPLES: &[&str] = &[
    " for example ",
    " e g ",
    " for instance ",
    " such as ",
    " something like ",
    " like this ",
    " sketch ",
    " roughly ",
];

/// Whether a sentence (markdown, code spans kept) names the change: it carries a code span and
/// opens with a fix verb, puts one after a modal (`should be`), makes a gerund clause the fix
/// (`Using X fixes it`), or is an instruction in another language; and it is not hedged.
pub(crate) fn names_change(sentence: &str) -> bool {
    if sentence.matches('`').count() < 2 {
        return false;
    }
    let w = words(&plain(sentence));
    if has_any(&w, HEDGES) {
        return false;
    }
    let mut tokens = w.split_whitespace();
    let mut first = tokens.next().unwrap_or("");
    // Leading labels: "Fix:", "Suggestion:", "Please", "Instead", "So", "Then".
    while matches!(
        first,
        "fix" | "suggestion" | "suggested" | "please" | "instead" | "so" | "then" | "and"
    ) && tokens.clone().next().is_some()
    {
        let next = tokens.next().unwrap_or("");
        if first == "fix" && !FIX_VERBS.contains(&next) && next != "the" {
            // "Fix the ..." is itself an instruction.
            break;
        }
        first = next;
    }
    if first == "do" || first == "don" {
        // "Do not ..." / "Don't ...".
        return true;
    }
    // A sentence that opens with a code span opens with a name, not a verb (`validar_item`
    // checks only ...).
    let opens_with_code = plain_start_is_code(sentence);
    if !opens_with_code
        && (FIX_VERBS.contains(&first) || FOREIGN_VERBS.contains(&first))
        && !tokens.clone().next().is_some_and(noun_use)
    {
        return true;
    }
    // A move within the code shown (`Move the DROP COLUMN after the UPDATE`) names the change;
    // a move to another unit of code (a module, a helper, a shared file) is structural.
    if first == "move" && !has_any(&w, STRUCTURE) {
        return true;
    }
    if has_any(&w, MODALS) {
        return true;
    }
    let gerund = w.split_whitespace().any(|t| {
        t.strip_suffix("ing").is_some_and(|stem| {
            FIX_VERBS
                .iter()
                .any(|v| *v == stem || v.strip_suffix('e') == Some(stem) || doubled(v, stem))
        })
    });
    if gerund && has_any(&w, OUTCOMES) {
        return true;
    }
    !sentence.is_ascii() && CJK_INSTRUCTIONS.iter().any(|p| sentence.contains(p))
}

/// Whether `sentence` opens with a code span (after any leading labels' punctuation).
fn plain_start_is_code(sentence: &str) -> bool {
    sentence
        .trim_start_matches(|c: char| c.is_whitespace() || matches!(c, '*' | '_' | '>' | '-'))
        .starts_with('`')
}

/// Verbs that open an instruction only in prose without code (`Reuse the value from the first
/// read`), beside [`FIX_VERBS`].
const PROSE_VERBS: &[&str] = &[
    "reuse", "wait", "respond", "defer", "retry", "say", "state", "mention",
];

/// The shortest and longest instruction in prose without a code span, in words: "Fix this." names
/// nothing, and a long sentence describes more than one change.
const PROSE_WORDS: std::ops::RangeInclusive<usize> = 3..=24;

/// Determiners: a three-word instruction names its object with one (`Await the commit`).
const DETERMINERS: &[&str] = &["the", "this", "that", "its", "each", "every", "both"];

/// Whether a sentence in plain prose, without a code span, names the change: it opens with a fix
/// verb (`Send the response only after the commit succeeds`, `Propagate the error instead of
/// converting it`) or makes a gerund clause the fix (`Trimming before the check avoids the
/// request`); it is not hedged, offers no second change (`Reorder the statements or wrap the
/// copy`) and is neither too short to name anything nor long enough to name several things.
pub(crate) fn instructs_in_prose(sentence: &str) -> bool {
    if plain_start_is_code(sentence) {
        return false;
    }
    let w = words(&plain(sentence));
    if has_any(&w, HEDGES) || has_any(&w, EXAMPLES) {
        return false;
    }
    let tokens: Vec<&str> = w.split_whitespace().collect();
    let mut at = 0;
    while tokens.get(at).is_some_and(|t| {
        matches!(
            *t,
            "fix" | "suggestion" | "suggested" | "please" | "instead" | "so" | "then"
        )
    }) {
        at += 1;
    }
    let rest = tokens.get(at..).unwrap_or(&[]);
    if !PROSE_WORDS.contains(&rest.len())
        || (rest.len() == 3 && !rest.get(1).is_some_and(|d| DETERMINERS.contains(d)))
    {
        return false;
    }
    let is_verb =
        |t: &str| FIX_VERBS.contains(&t) || PROSE_VERBS.contains(&t) || FOREIGN_VERBS.contains(&t);
    // A second instruction after "or": a choice, which is the author's.
    if rest
        .windows(2)
        .any(|p| matches!(p, [or, verb] if *or == "or" && is_verb(verb)))
    {
        return false;
    }
    let first = rest.first().copied().unwrap_or("");
    if rest.get(1).is_some_and(|second| noun_use(second)) {
        return false;
    }
    // "Make X deterministic", "Keep it safe": a goal, not the change that reaches it.
    if is_verb(first) && !matches!(first, "make" | "keep" | "only") {
        return true;
    }
    let gerund = first.strip_suffix("ing").is_some_and(|stem| {
        FIX_VERBS
            .iter()
            .any(|v| *v == stem || v.strip_suffix('e') == Some(stem) || doubled(v, stem))
    });
    gerund && has_any(&w, OUTCOMES)
}

/// Units of code a move may take code into: such a move is a structural change.
const STRUCTURE: &[&str] = &[
    " module",
    " file ",
    " files ",
    " helper",
    " service",
    " shared ",
    " crate ",
    " package ",
    " class ",
    " component",
    " layer ",
    " util",
    " library ",
    " scope ",
];

/// Whether the word after a fix verb shows the verb is a noun: "Import of module `a` begins a
/// cycle", "Call to `free` after ...", "Return value is ignored", "Use of a deprecated API".
fn noun_use(second: &str) -> bool {
    matches!(
        second,
        "of" | "to"
            | "is"
            | "are"
            | "was"
            | "were"
            | "has"
            | "have"
            | "value"
            | "values"
            | "type"
            | "types"
            | "statement"
            | "statements"
            | "path"
            | "paths"
    )
}

/// `stem` is `verb` with its last consonant doubled (`trim` -> `trimm`ing).
fn doubled(verb: &str, stem: &str) -> bool {
    stem.len() == verb.len() + 1
        && stem.starts_with(verb)
        && stem.chars().last() == verb.chars().last()
}

/// The sentences of a markdown line (also split on the CJK full stop and semicolon).
fn sentences(line: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut rest = line.trim();
    while !rest.is_empty() {
        let s = first_sentence(rest);
        if s.is_empty() {
            break;
        }
        out.extend(s.split_inclusive(['。', '；']));
        rest = rest.get(s.len()..).unwrap_or("").trim_start();
    }
    out
}

/// Where a finding names its change: the title, else a sentence of its description. Returns
/// the words for `why`.
pub(crate) fn named_change(doc: &Doc, title_line: Option<&str>) -> Option<String> {
    // The title is its line's first sentence: a one-paragraph comment's later sentences are
    // its description.
    let title_line = title_line.map(|t| sentences(t).first().copied().unwrap_or(t));
    if let Some(title) = title_line
        && names_change(title)
    {
        return Some(format!(
            "the title names the change: \"{}\"",
            truncate(&plain(title), 80)
        ));
    }
    doc.lines
        .iter()
        .filter(|l| {
            let t = l.trim_start();
            // Only a sentence with a code span can name the change.
            t.bytes().filter(|&b| b == b'`').nth(1).is_some()
                && !t.starts_with('>')
                && !t.starts_with('|')
                && !t.starts_with('#')
        })
        .flat_map(|l| sentences(l))
        .find(|s| names_change(s))
        .map(|s| {
            format!(
                "a sentence names the change: \"{}\"",
                truncate(&plain(s), 80)
            )
        })
        .or_else(|| prose_change(doc, title_line))
}

/// Where a finding says what to change in plain prose ([`instructs_in_prose`]): the title, else a
/// sentence or `;` clause of its description (not a quote, a table, a heading or a list item).
fn prose_change(doc: &Doc, title_line: Option<&str>) -> Option<String> {
    if let Some(title) = title_line
        && instructs_in_prose(title)
    {
        return Some(format!(
            "the title says what to change: \"{}\"",
            truncate(&plain(title), 80)
        ));
    }
    doc.lines
        .iter()
        .filter(|l| {
            let t = l.trim_start();
            let list_item = ["- ", "* ", "+ "].iter().any(|m| t.starts_with(m))
                || t.split_once(". ")
                    .is_some_and(|(n, _)| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()));
            // A parenthesised aside ("(Use Cmd/Ctrl + Click for best experience)") is no fix.
            let plain_line = plain(t);
            let aside = plain_line.trim().starts_with('(') && plain_line.trim().ends_with(')');
            !t.is_empty() && !list_item && !aside && !t.starts_with(['>', '|', '#', '<'])
        })
        .flat_map(|l| sentences(l))
        .flat_map(|s| s.split("; "))
        .find(|s| instructs_in_prose(s))
        .map(|s| {
            format!(
                "a sentence says what to change: \"{}\"",
                truncate(&plain(s), 80)
            )
        })
}

/// A call the finding says is not awaited (`` `tx.commit()` is not awaited ``): the fix is the
/// missing `await`, as exact as a forgotten await can be. Returns the words for `why`.
pub(crate) fn missing_await(doc: &Doc) -> Option<String> {
    doc.lines.iter().find_map(|l| {
        let t = l.trim_start();
        if t.starts_with(['>', '|', '#']) {
            return None;
        }
        let lower = plain(l).to_lowercase();
        [
            "is not awaited",
            "isn't awaited",
            "is never awaited",
            "are not awaited",
        ]
        .iter()
        .any(|p| lower.contains(p))
        .then(|| "a call it says is not awaited (the missing await)".to_owned())
        .filter(|_| t.matches('`').count() >= 2)
    })
}

/// A prose line ending in `:` followed by a closed code block (not a suggestion or a diff, which
/// are read on their own) that shows the fix: not an illustration ("for example", "such as")
/// and without elided parts (`...`).
pub(crate) fn code_after_colon(doc: &Doc) -> Option<String> {
    doc.blocks
        .iter()
        .filter(|b| b.closed && !matches!(b.info.as_str(), "suggestion" | "diff" | "patch"))
        .filter(|b| !b.text.trim().is_empty())
        .filter(|b| !elided(&b.text))
        .find_map(|b| {
            let before = (0..b.line).rev().find(|&i| !doc.plain_of(i).is_empty())?;
            let blank_between = (before + 1..b.line).all(|i| doc.plain_of(i).is_empty());
            let line = doc.plain_of(before);
            let w = words(line);
            (blank_between && line.trim_end().ends_with(':') && !has_any(&w, EXAMPLES))
                .then(|| format!("a code block follows \"{}\"", truncate(line, 60)))
        })
}

/// Whether a code block leaves parts out (`...` on a line of its own, after a comment marker or
/// between spaces, or `…`): an outline, not the fix. A spread operator (`...rest`) is code.
fn elided(text: &str) -> bool {
    text.contains('…')
        || text.lines().any(|l| {
            let t = l.trim();
            t == "..."
                || ["// ...", "# ...", "/* ...", "-- ...", "<!-- ..."]
                    .iter()
                    .any(|m| t.starts_with(m))
                || t.contains(" ... ")
                || t.ends_with(" ...")
        })
}

/// Phrases that offer a choice between fixes.
const CHOICES: &[&str] = &[
    " either ",
    " alternatively ",
    " another option ",
    " an alternative ",
    " two options ",
    " two approaches ",
    " option 1 ",
    " option a ",
    " entweder ",
    " o bien ",
    " ou bien ",
    " soit ",
];

/// The comment offers a choice between fixes: "either ... or", "alternatively", or a second
/// instruction after ", or" (`Add a moved block, or run terraform state mv`). Returns the words
/// for `why`.
pub(crate) fn choice(doc: &Doc, prose: &Prose) -> Option<String> {
    if let Some(p) = CHOICES
        .iter()
        .find(|p| prose.all.has_any(std::slice::from_ref(p)))
    {
        let p = p.trim();
        return Some(if p == "either" {
            "offers a choice between fixes (\"either … or\")".to_owned()
        } else {
            format!("offers a choice between fixes (\"{p}\")")
        });
    }
    doc.lines.iter().find_map(|l| {
        if !(contains_ci(l, ", or ") || contains_ci(l, "; or ")) {
            return None;
        }
        // ", or <verb>": the comma is in the plain line, not in its words.
        let lower = plain(l).to_lowercase();
        [", or ", "; or "].iter().find_map(|sep| {
            lower.match_indices(sep).find_map(|(at, _)| {
                let after = lower.get(at + sep.len()..).unwrap_or("");
                let verb = after
                    .split(|c: char| !c.is_alphanumeric())
                    .next()
                    .unwrap_or("");
                // The verb, or its gerund ("Consider streaming it, or rotating the log").
                let stem = verb.strip_suffix("ing").unwrap_or("");
                let gerund = !stem.is_empty()
                    && FIX_VERBS.iter().any(|v| {
                        *v == stem || v.strip_suffix('e') == Some(stem) || doubled(v, stem)
                    });
                (FIX_VERBS.contains(&verb) || gerund || matches!(verb, "run" | "show" | "document"))
                    .then(|| format!("offers a choice between fixes (\"{}\")", sep.trim()))
            })
        })
    })
}

/// Plainly serious consequences, as word strings.
const SERIOUS: &[&str] = &[
    " crash",
    " panic",
    " throws ",
    " throw an ",
    " raises ",
    " uncaught ",
    " unhandled exception",
    " exception ",
    " segfault",
    " segmentation fault ",
    " fatal error ",
    " stack overflow ",
    " out of memory ",
    " deadlock",
    " hangs ",
    " hang ",
    " hung ",
    " infinite loop",
    " never terminates ",
    " never returns ",
    " blocks forever ",
    " spins ",
    " data loss ",
    " loses ",
    " lost ",
    " deletes every ",
    " deletes all ",
    " destroys ",
    " wipes ",
    " corrupt",
    " truncated ",
    " wrong ",
    " incorrect ",
    " off by one ",
    " twice ",
    " double counts ",
    " returns 500 ",
    " a 500 ",
    " into a 500 ",
    " blank screen ",
    " white screen ",
    " fails to load ",
    " fails to start ",
    " refuses to start ",
    " does not build ",
    " fails to compile ",
    " never expire",
    " always skipped ",
    " is skipped ",
    " are skipped ",
    " never returned ",
    " never runs ",
    " never run ",
    " never written ",
    " never sent ",
    " never applied ",
    " always false ",
    " always true ",
    " always fails ",
    " always empty ",
    " lança ",
    " exceção ",
    " excepción ",
    " se cae ",
    " stürzt ",
    " absturz",
    " plante ",
    " perte de données ",
    " perda de dados ",
    " pérdida de datos ",
    " datenverlust ",
];

/// Plainly serious consequences in scripts without spaces between words, and Korean.
const CJK_SERIOUS: &[&str] = &[
    "崩溃",
    "白屏",
    "异常",
    "抛出",
    "死锁",
    "丢失",
    "丢弃",
    "クラッシュ",
    "例外",
    "デッドロック",
    "失われ",
    "欠落",
    "크래시",
    "충돌",
    "종료됩니다",
    "종료돼",
    "예외",
    "누락",
    "유실",
    "데드락",
    "멈춥",
];

/// The finding states a plainly serious consequence: what it says, for `why`.
pub(crate) fn serious(prose: &Prose) -> Option<String> {
    let found = SERIOUS
        .iter()
        .find(|p| prose.all.has_any(std::slice::from_ref(p)))
        .map(|p| p.trim().to_owned())
        .or_else(|| exception_name(&prose.all))
        .or_else(|| {
            let text = prose.all.as_str();
            if text.is_ascii() {
                return None;
            }
            CJK_SERIOUS
                .iter()
                .find(|p| text.contains(*p))
                .map(|p| (*p).to_owned())
        })?;
    Some(format!("it says \"{}\"", truncate(&found, TITLE_MAX)))
}

/// An exception or error type named in the text (`TypeError`, `NullPointerException`).
fn exception_name(text: &WordText) -> Option<String> {
    text.as_str()
        .split(' ')
        .find(|w| {
            (w.len() > "exception".len() && w.ends_with("exception"))
                || (w.len() >= 8 && w.ends_with("error") && !w.ends_with("errors"))
        })
        .map(str::to_owned)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn phrase_lists_are_word_strings() {
        for list in [MODALS, OUTCOMES, HEDGES, EXAMPLES, CHOICES, SERIOUS] {
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
    fn sentences_that_name_the_change() {
        for s in [
            "Use `fileURLToPath` when resolving the schema directory",
            "Replace the direct index with a checked lookup: use `slots.get(idx)`.",
            "The condition should be `deleted_at IS NULL OR deleted_at > NOW()`.",
            "Using `tags=None` and creating a new list inside the function fixes it.",
            "Wrapping the call in `try`/`finally` releases the slot on errors too.",
            "Disable the button while submitting and return early from `handleSubmit`.",
            "Do not drop `users.legacy_email` in the same release.",
            "在关闭前调用 `self.flush()` 即可。",
            "`(page - 1) * size`로 수정해야 합니다.",
            "キーにロケールを含めてください（`menu:${storeId}:${locale}`）。",
            "Compare com o valor esperado (`90.0` para o cupom de 10%).",
            "Fix: pass `timeout=10` to `requests.post`.",
            "Move the `DROP COLUMN` after the `UPDATE`.",
            "`args.force`가 참이면 전체 경로를 선택하도록 조건을 바꿔 주세요.",
            "请检查 `Close()` 的错误并在失败时返回。",
            "Bitte den Aufruf von `writeFile` awaiten.",
            "Acrescente `quantidade > 0` à condição.",
            "Derive the expected id from the prompt text passed to `generate` instead.",
            "Basta con rechazar la petición cuando `fin <= inicio`.",
        ] {
            assert!(names_change(s), "{s}");
        }
        for s in [
            "Consider using `SmallVec` here.",
            "It may be worth looking at `SELECT ... FOR UPDATE`.",
            "The loop indexes `chunks[i]` one past the end.",
            "Use a context manager.",
            "Avoid skipping `main()` when launched through the bin shim",
            "Import of `reports` begins an import cycle.",
            "Move the block to module scope together with the `regionRows` fixture.",
            "Move `parse_row` into a shared helper.",
            "Call to `free` after the buffer was handed to the worker.",
            // A name that opens the sentence is not a verb, whatever its first word.
            "`validar_item` verifica apenas se `quantidade` é inteiro.",
            "`close()` calls `self._fh.close()` without a flush.",
            "`use_cache` is read before `init()` sets it.",
        ] {
            assert!(!names_change(s), "{s}");
        }
    }

    /// Titles in Portuguese, Spanish and French name the change with an infinitive; a title
    /// that asks to say something in a description is an instruction too.
    #[test]
    fn infinitive_titles_and_asking_to_say_name_the_change() {
        for s in [
            "Clonar os itens antes de internar o TypedDict normalizado",
            "Corregir el rango de fechas antes de guardar la reserva",
            "Supprimer le verrou avant de rappeler le gestionnaire",
            "Say in the tool description that reset_step deletes the step's notes",
        ] {
            assert!(instructs_in_prose(s), "{s}");
        }
        assert!(!instructs_in_prose(
            "`reset_step` calls `notes.purge(step)` before it writes the file"
        ));
    }

    #[test]
    fn instructions_in_plain_prose() {
        for s in [
            "Send the response only after the commit succeeds.",
            "Propagate the error instead of converting it.",
            "reuse the value from the first read.",
            "Trimming before the check avoids the request.",
            "Please close the reader when the loop exits early.",
            "Reject negative page sizes",
            "Await the commit.",
            "Genera la clave una sola vez al crear el pedido y reutilízala en los reintentos.",
        ] {
            assert!(instructs_in_prose(s), "{s}");
        }
        for s in [
            // Too short to name anything.
            "Fix this.",
            "Handle errors.",
            "Handle errors properly.",
            // Hedged, illustrated, or a goal rather than a change.
            "Consider caching the parsed schema between requests.",
            "Add a guard, for example a length check before the loop.",
            "Make resume ordering deterministic after reconnect",
            // A choice between two changes is the author's.
            "Reorder the statements or wrap the copy in the same transaction.",
            // Not an instruction.
            "The handler acknowledges the event before the write commits.",
            "Import of module reports begins an import cycle.",
            "Return value of the write call is ignored here.",
            "Use of the deprecated parser in the export path.",
            "It would be more robust to compute the schedule in the configured time zone.",
            // Long enough to name several changes.
            "Add a retry with backoff around the upload and then update the progress bar and \
             the cache and the metrics and the audit log in the same transaction block.",
        ] {
            assert!(!instructs_in_prose(s), "{s}");
        }
    }

    #[test]
    fn prose_instructions_are_read_from_the_description_not_lists_or_quotes() {
        let doc =
            Doc::parse("The handler acks early; send the response only after the commit succeeds.");
        let why = prose_change(&doc, None).unwrap();
        assert!(why.starts_with("a sentence says what to change"), "{why}");
        for body in [
            "> Send the response only after the commit succeeds.",
            "- Send the response only after the commit succeeds.",
            "1. Send the response only after the commit succeeds.",
            "# Send the response only after the commit succeeds",
        ] {
            assert_eq!(prose_change(&Doc::parse(body), None), None, "{body}");
        }
        let doc =
            Doc::parse("**Suggestion:** Returning early hides it. Propagate the error instead.");
        assert!(
            prose_change(&doc, None).is_some(),
            "a bold label opens a sentence, not a list"
        );
    }

    #[test]
    fn a_call_said_not_to_be_awaited_is_a_missing_await() {
        let doc = Doc::parse("P1: `tx.commit()` is not awaited before the response is sent.");
        assert!(missing_await(&doc).is_some());
        for body in [
            "The commit is not awaited before the response is sent.",
            "> `tx.commit()` is not awaited",
            "`tx.commit()` is awaited twice.",
        ] {
            assert_eq!(missing_await(&Doc::parse(body)), None, "{body}");
        }
    }

    #[test]
    fn code_after_a_colon_is_the_fix_unless_it_illustrates() {
        let doc = Doc::parse("Assert the value itself:\n```python\nassert x == 1\n```");
        assert!(code_after_colon(&doc).is_some());
        let doc = Doc::parse("For example:\n```ts\nfunction run() {}\n```");
        assert!(code_after_colon(&doc).is_none());
        let doc = Doc::parse("Like so:\n```ts\nrun();\n// ...\n```");
        assert!(code_after_colon(&doc).is_none());
        let doc = Doc::parse("Bound it:\n```ts\nitems.push(...res.data);\n```");
        assert!(
            code_after_colon(&doc).is_some(),
            "a spread is not an elision"
        );
        let doc = Doc::parse("The loop runs forever.\n```ts\nwhile (true) {}\n```");
        assert!(code_after_colon(&doc).is_none());
    }

    #[test]
    fn choices_between_fixes() {
        let read = |body: &str| {
            let doc = Doc::parse(body);
            let prose = Prose::new(&doc, "");
            choice(&doc, &prose)
        };
        assert!(read("Either drop the guard, or detect direct execution another way.").is_some());
        assert!(
            read("Add a `moved` block, or run `terraform state mv` as part of the rollout.")
                .is_some()
        );
        assert!(read("Alternatively, keep seconds and fix the docs.").is_some());
        assert!(
            read("Consider reading it line by line, or rotating the log so it stays small.")
                .is_some()
        );
        assert!(read("Use an `RLock` or read the id before taking the lock.").is_none());
        assert!(
            read("Wrapping the call in `try`/`finally` (or `async with`) releases it.").is_none()
        );
    }

    #[test]
    fn serious_consequences_in_several_languages() {
        let read = |body: &str| {
            let doc = Doc::parse(body);
            serious(&Prose::new(&doc, ""))
        };
        for body in [
            "`port.parse().unwrap()` panics on a malformed value.",
            "`user.preferences.theme` throws `TypeError` for those accounts.",
            "The query deletes every row in `sessions`.",
            "这里会抛出 `TypeError`，导致整个页面白屏。",
            "딥링크로 진입하면 `NullPointerException`으로 앱이 종료됩니다.",
        ] {
            assert!(read(body).is_some(), "{body}");
        }
        assert!(read("The name `tmp` says little about its contents.").is_none());
    }

    #[test]
    fn a_one_line_comment_s_title_is_its_first_sentence() {
        // Copilot and others write one paragraph: the first sentence is the title, the rest is
        // description, where a hedged or conditional instruction does not name the fix.
        let line = "With this change `--similar` opens the browser UI whenever stdout is a TTY. \
                    If that is intended, it should be called out; otherwise keep printing.";
        let doc = Doc::parse(line);
        let why = named_change(&doc, Some(line));
        assert!(
            why.as_deref().is_none_or(|w| !w.starts_with("the title")),
            "{why:?}"
        );
    }
}
