//! Reading the operator's instruction for a thread: skip, reply in their words, fix, or unclear.
//!
//! Three forms are always understood, whatever follows them: `skip` (alone, or `skip: <note>`),
//! `reply: <text>` (the text is what is posted) and `fix: <text>` (the text is the task). Any
//! other instruction goes through rules, in the languages the follow-up writes in (English,
//! Korean, Japanese, Chinese, Spanish, German, French):
//!
//! - directives to the tool itself: "no action", "ignore" are skips; "comment only", "reply"
//!   say that a reply is wanted but not what it says, so they are unclear;
//! - a negation ("won't fix", "no change needed", "수정 불필요", "修正不要", "不用改", "no hace
//!   falta", "keine Änderung nötig", "pas de changement") is the author's answer: a reply, never a
//!   fix;
//! - an imperative (a code-change verb opening a clause: "Make the timeout configurable", "Use
//!   a HashMap here instead", "but rename it"; an imperative ending such as "해 주세요" or
//!   "してください") is a fix;
//! - an explanation ("because", "already", "intentional", "handled in", ...) is a reply, even
//!   when it names a function such as `update()`;
//! - a negation together with an imperative contradicts itself, and a code-change verb that
//!   opens no clause ("I'll fix it"), a "should" or "must" without an explanation, or a
//!   negated verb ("don't log it") cannot be placed with confidence: unclear, as are
//!   placeholders ("hmm", "test", "?"), a single word the rules do not know, and text in a
//!   language they do not know.
//!
//! What is unclear is never guessed: the operator is asked.

use review_core::followup::{Intent, Lang, Reading};

/// The language of a review conversation, from its texts: the script first (Hangul, Kana, Han),
/// then common words for Spanish, German and French; English otherwise.
pub fn language_of<'a>(texts: impl IntoIterator<Item = &'a str>) -> Lang {
    let text: String = texts.into_iter().collect::<Vec<_>>().join("\n");
    let count = |f: fn(char) -> bool| text.chars().filter(|&c| f(c)).count();
    let hangul = count(|c| matches!(c as u32, 0xAC00..=0xD7AF | 0x1100..=0x11FF));
    let kana = count(|c| matches!(c as u32, 0x3040..=0x30FF));
    let han = count(|c| matches!(c as u32, 0x4E00..=0x9FFF | 0x3400..=0x4DBF));
    if hangul >= 2 {
        return Lang::Ko;
    }
    if kana >= 2 {
        return Lang::Ja;
    }
    if han >= 2 {
        return Lang::Zh;
    }
    let lower = text.to_lowercase();
    let words: Vec<&str> = lower
        .split(|c: char| !c.is_alphabetic())
        .filter(|w| !w.is_empty())
        .collect();
    let score = |list: &[&str]| words.iter().filter(|w| list.contains(w)).count();
    let es = score(&[
        "el", "los", "que", "para", "por", "una", "esto", "pero", "está",
    ]);
    let de = score(&[
        "der", "die", "das", "und", "nicht", "ist", "ein", "eine", "wird",
    ]);
    let fr = score(&[
        "le", "les", "est", "pas", "une", "des", "pour", "avec", "ce",
    ]);
    let en = score(&["the", "and", "is", "not", "this", "for", "with", "should"]);
    let best = [(es, Lang::Es), (de, Lang::De), (fr, Lang::Fr)]
        .into_iter()
        .max_by_key(|(n, _)| *n)
        .filter(|(n, _)| *n >= 2 && *n > en);
    best.map_or(Lang::En, |(_, l)| l)
}

/// Reads an instruction (see the module's documentation for the rules).
///
/// ```
/// use review_classify::instruction::read_instruction;
/// use review_core::followup::Intent;
///
/// let r = read_instruction("reply: Make the timeout configurable in a follow-up PR.");
/// assert_eq!(r.intent, Intent::Reply);
/// assert_eq!(r.text, "Make the timeout configurable in a follow-up PR.");
/// assert_eq!(read_instruction("Make the timeout configurable").intent, Intent::Fix);
/// assert_eq!(read_instruction("won't fix").intent, Intent::Reply);
/// assert_eq!(read_instruction("Already handled in update() below").intent, Intent::Reply);
/// assert_eq!(read_instruction("no action").intent, Intent::Skip);
/// assert_eq!(read_instruction("comment only").intent, Intent::Unclear);
/// let d = read_instruction("defer: Good point; tracked for the next release.");
/// assert_eq!((d.intent, d.text.as_str()), (Intent::Defer, "Good point; tracked for the next release."));
/// assert_eq!(read_instruction("defer:").intent, Intent::Unclear);
/// ```
pub fn read_instruction(instruction: &str) -> Reading {
    let text = instruction.trim();
    if text.is_empty() {
        return Reading::new(Intent::Skip, "");
    }
    if let Some(reading) = explicit(text) {
        return reading;
    }
    let intent = by_rules(text);
    let hint = (intent == Intent::Unclear).then(|| hint_for(text));
    Reading {
        intent,
        text: text.to_owned(),
        hint,
        judgeable: intent == Intent::Unclear
            && hint != Some(REPLY_HINT)
            && text.chars().any(char::is_alphabetic)
            && !PLACEHOLDERS.contains(&normalize(text).trim()),
    }
}

/// What an instruction asks for ([`read_instruction`] without the text).
///
/// ```
/// use review_classify::instruction::intent;
/// use review_core::followup::Intent;
///
/// assert_eq!(intent("  "), Intent::Skip);
/// assert_eq!(intent("This is intentional because the cache is bounded elsewhere."), Intent::Reply);
/// assert_eq!(intent("This change is intentional because the caller retries."), Intent::Reply);
/// assert_eq!(intent("Fix the validation and add a test"), Intent::Fix);
/// assert_eq!(intent("intentional, but rename it to max_entries"), Intent::Fix);
/// assert_eq!(intent("no change needed"), Intent::Reply);
/// assert_eq!(intent("Use a HashMap here instead"), Intent::Fix);
/// assert_eq!(intent("hmm"), Intent::Unclear);
/// assert_eq!(intent("검증 로직을 수정해 주세요"), Intent::Fix);
/// assert_eq!(intent("수정 불필요"), Intent::Reply);
/// assert_eq!(intent("Это сделано намеренно"), Intent::Unclear);
/// ```
pub fn intent(instruction: &str) -> Intent {
    read_instruction(instruction).intent
}

/// `skip`, `skip: ...`, `reply: <text>`, `fix: <text>`, `defer: <text>` (any case, an ASCII or
/// full-width colon).
fn explicit(text: &str) -> Option<Reading> {
    for (word, intent) in [
        ("skip", Intent::Skip),
        ("reply", Intent::Reply),
        ("fix", Intent::Fix),
        ("defer", Intent::Defer),
    ] {
        let Some(head) = text.get(..word.len()) else {
            continue;
        };
        if !head.eq_ignore_ascii_case(word) {
            continue;
        }
        let rest = &text[word.len()..];
        let after = rest.trim_start();
        let body = after
            .strip_prefix(':')
            .or_else(|| after.strip_prefix('：'))
            .map(str::trim);
        match (intent, body) {
            (Intent::Skip, Some(_)) => return Some(Reading::new(Intent::Skip, "")),
            (Intent::Skip, None) if rest.trim_matches(['.', '!', ' ']).is_empty() => {
                return Some(Reading::new(Intent::Skip, ""));
            }
            (Intent::Reply, Some("")) => {
                return Some(Reading {
                    intent: Intent::Unclear,
                    text: text.to_owned(),
                    hint: Some(REPLY_HINT),
                    judgeable: false,
                });
            }
            (Intent::Defer, Some("")) => {
                return Some(Reading {
                    intent: Intent::Unclear,
                    text: text.to_owned(),
                    hint: Some(DEFER_HINT),
                    judgeable: false,
                });
            }
            (Intent::Fix, Some("")) => return Some(Reading::new(Intent::Fix, word)),
            (_, Some(body)) => return Some(Reading::new(intent, body)),
            _ => {}
        }
    }
    None
}

const REPLY_HINT: &str = "write what the reply says: `reply: <text>`";
const DEFER_HINT: &str = "write what the issue and the reply say: `defer: <text>` (the words are yours, posted as written)";
const GENERAL_HINT: &str = "start it with `fix:` (a code change) or `reply:` (a comment, posted as written), or write `skip`";

/// The hint for an instruction the rules leave unclear.
fn hint_for(text: &str) -> &'static str {
    let norm = normalize(text);
    if REPLY_DIRECTIVES
        .iter()
        .any(|d| norm.trim() == normalize(d).trim())
    {
        REPLY_HINT
    } else {
        GENERAL_HINT
    }
}

/// Lowercase, apostrophes made plain, every other non-alphanumeric character a space, spaces
/// collapsed, one space at each end: phrases are then found as ` phrase `, on word boundaries.
fn normalize(text: &str) -> String {
    let mut out = String::from(" ");
    for c in text.to_lowercase().chars() {
        let c = match c {
            '\u{2019}' | '\u{2018}' | '`' => '\'',
            c => c,
        };
        if c.is_alphanumeric() || c == '\'' {
            out.push(c);
        } else if !out.ends_with(' ') {
            out.push(' ');
        }
    }
    if !out.ends_with(' ') {
        out.push(' ');
    }
    out
}

/// Whether `phrase` is in `norm` (from [`normalize`]): on word boundaries for alphabetic
/// scripts, as a substring for Hangul, Kana and Han (written without spaces between words).
fn has(norm: &str, phrase: &str) -> bool {
    if phrase.chars().any(is_cjk) {
        let squeezed: String = norm.chars().filter(|c| *c != ' ').collect();
        let p: String = phrase.chars().filter(|c| *c != ' ').collect();
        squeezed.contains(&p)
    } else {
        norm.contains(&normalize(phrase))
    }
}

fn has_any(norm: &str, phrases: &[&str]) -> bool {
    phrases.iter().any(|p| has(norm, p))
}

/// Whole instructions that tell the tool to do nothing.
const SKIP_DIRECTIVES: &[&str] = &[
    "no action",
    "no action needed",
    "no action required",
    "nothing",
    "nothing to do",
    "none",
    "ignore",
    "ignore it",
    "ignore this",
    "leave it",
    "pass",
    "n/a",
    "na",
    "no-op",
    "noop",
    "무시",
    "스킵",
    "건너뛰기",
    "패스",
    "조치 없음",
    "無視",
    "スキップ",
    "対応なし",
    "何もしない",
    "忽略",
    "跳过",
    "不处理",
    "ignorar",
    "omitir",
    "nada",
    "sin acción",
    "ninguna acción",
    "ignorieren",
    "überspringen",
    "nichts",
    "keine aktion",
    "nichts tun",
    "ignorer",
    "passer",
    "rien",
    "aucune action",
    "rien à faire",
];

/// Whole instructions that ask for a reply without saying what it says.
const REPLY_DIRECTIVES: &[&str] = &[
    "comment only",
    "comment",
    "just comment",
    "reply",
    "reply only",
    "just reply",
    "respond",
    "answer",
    "reply to it",
    "답글만",
    "댓글만",
    "코멘트만",
    "답글",
    "コメントのみ",
    "返信のみ",
    "返信",
    "仅回复",
    "只回复",
    "仅评论",
    "回复",
    "solo comentar",
    "solo responder",
    "responder",
    "nur kommentieren",
    "nur antworten",
    "antworten",
    "commentaire seulement",
    "répondre seulement",
    "juste répondre",
    "répondre",
];

/// Placeholders that say nothing.
const PLACEHOLDERS: &[&str] = &[
    "test", "testing", "hmm", "hm", "maybe", "check", "tbd", "todo", "idk", "later", "wip", "x",
    "ok", "okay", "perhaps", "not sure", "done", "yes", "no", "sure", "asdf", "foo",
];

/// Negations: the author declines the change. Each is an answer to the reviewer.
pub(crate) const NEGATIONS: &[&str] = &[
    // English
    "won't fix",
    "wont fix",
    "wontfix",
    "will not fix",
    "won't change",
    "will not change",
    "not going to fix",
    "not fixing",
    "won't do",
    "no change needed",
    "no changes needed",
    "no change required",
    "no changes required",
    "no change necessary",
    "no fix needed",
    "nothing to fix",
    "not needed",
    "not necessary",
    "unnecessary",
    "not a bug",
    "not an issue",
    "not a problem",
    "false positive",
    "works as intended",
    "working as intended",
    "by design",
    "as designed",
    "don't fix",
    "do not fix",
    "don't change",
    "do not change",
    "don't touch",
    "do not touch",
    "keep as is",
    "keep it as is",
    "leave as is",
    "leave it as is",
    "not applicable",
    "out of scope",
    // Korean
    "수정하지 않",
    "수정 안 함",
    "수정 안 합",
    "수정할 필요 없",
    "수정 불필요",
    "변경 불필요",
    "변경하지 않",
    "고치지 않",
    "필요 없",
    "필요없",
    "그대로 두",
    "그대로 유지",
    "하지 마",
    "문제 없",
    "오탐",
    // Japanese
    "修正不要",
    "対応不要",
    "変更不要",
    "修正しません",
    "直しません",
    "変更しません",
    "必要ありません",
    "不要です",
    "このままで",
    "そのままで",
    "問題ありません",
    "しないで",
    "誤検知",
    // Chinese
    "不修复",
    "不用修",
    "不用改",
    "不需要修改",
    "无需修改",
    "不需要改",
    "无需更改",
    "不需要更改",
    "不改",
    "保持不变",
    "不是问题",
    "误报",
    // Spanish
    "no se corrige",
    "no se arregla",
    "no lo arreglaremos",
    "no hace falta",
    "no es necesario",
    "innecesario",
    "sin cambios",
    "no requiere cambios",
    "no cambiar",
    "no es un error",
    "falso positivo",
    "se queda así",
    // German
    "wird nicht behoben",
    "nicht beheben",
    "keine änderung",
    "keine änderungen",
    "nicht nötig",
    "nicht notwendig",
    "nicht erforderlich",
    "unnötig",
    "kein fehler",
    "kein bug",
    "falsch positiv",
    "bleibt so",
    "nicht ändern",
    // French
    "ne sera pas corrigé",
    "ne pas corriger",
    "pas de correction",
    "pas de changement",
    "aucun changement",
    "pas nécessaire",
    "inutile",
    "pas un bug",
    "faux positif",
    "ne pas changer",
    "pas besoin",
    "laisser tel quel",
];

/// Words and phrases that explain: the text answers the reviewer.
const EXPLANATIONS: &[&str] = &[
    // English
    "because",
    "since",
    "already",
    "intentional",
    "intentionally",
    "intended",
    "deliberate",
    "deliberately",
    "on purpose",
    "handled",
    "covered",
    "expected",
    "the reason",
    "so that",
    "due to",
    "see",
    "as per",
    "this is",
    "that is",
    "it is",
    "it's",
    "that's",
    "elsewhere",
    "upstream",
    "follow-up",
    "follow up",
    "separate pr",
    "later pr",
    "fixed in",
    "addressed in",
    "done in",
    "resolved in",
    // Korean
    "때문",
    "이미",
    "의도",
    "처리되",
    "처리하고",
    "처리됩",
    "되어 있",
    // Japanese
    "意図",
    "既に",
    "すでに",
    "ため",
    "なので",
    "対応済",
    "処理済",
    "処理して",
    "仕様",
    // Chinese
    "因为",
    "已经",
    "故意",
    "有意",
    "刻意",
    "已处理",
    "已在",
    "由于",
    "预期",
    // Spanish
    "porque",
    "ya",
    "intencional",
    "a propósito",
    "adrede",
    "por diseño",
    "se maneja",
    "manejado",
    "debido a",
    "está bien",
    "es correcto",
    // German
    "weil",
    "bereits",
    "schon",
    "absichtlich",
    "gewollt",
    "beabsichtigt",
    "bewusst",
    "behandelt",
    "ist korrekt",
    "ist richtig",
    // French
    "parce que",
    "car",
    "puisque",
    "déjà",
    "intentionnel",
    "volontaire",
    "exprès",
    "voulu",
    "géré",
    "c'est",
    "prévu",
];

/// Verbs that, opening a clause, ask for a code change (imperatives and the infinitives used
/// as instructions).
const IMPERATIVES: &[&str] = &[
    // English
    "fix",
    "refactor",
    "add",
    "remove",
    "update",
    "change",
    "rename",
    "delete",
    "replace",
    "move",
    "extract",
    "implement",
    "rewrite",
    "revert",
    "apply",
    "convert",
    "validate",
    "guard",
    "wrap",
    "split",
    "inline",
    "simplify",
    "drop",
    "bump",
    "pin",
    "make",
    "use",
    "handle",
    "return",
    "avoid",
    "switch",
    "introduce",
    "bound",
    "limit",
    "cap",
    "log",
    "document",
    "cover",
    "clamp",
    "escape",
    "sanitize",
    "reuse",
    "throw",
    "raise",
    "catch",
    "increase",
    "decrease",
    "lower",
    "set",
    "unify",
    "merge",
    "consolidate",
    "ensure",
    "restore",
    "reorder",
    "sort",
    "memoize",
    "correct",
    "tighten",
    "trim",
    "normalize",
    "deduplicate",
    "dedupe",
    "propagate",
    "initialize",
    "call",
    "emit",
    "expose",
    "export",
    "import",
    "flatten",
    "close",
    "free",
    "release",
    "lock",
    "await",
    "write",
    "delegate",
    "accept",
    "adopt",
    // Spanish
    "arregla",
    "corrige",
    "añade",
    "agrega",
    "elimina",
    "quita",
    "cambia",
    "usa",
    "utiliza",
    "haz",
    "renombra",
    "mueve",
    "reemplaza",
    "actualiza",
    "corregir",
    "arreglar",
    "añadir",
    "agregar",
    "eliminar",
    "quitar",
    "cambiar",
    "usar",
    "renombrar",
    "mover",
    "reemplazar",
    "actualizar",
    "hacer",
    // German
    "behebe",
    "korrigiere",
    "füge",
    "entferne",
    "ändere",
    "nutze",
    "verwende",
    "benenne",
    "mache",
    "mach",
    "ersetze",
    "aktualisiere",
    "lösche",
    // French
    "corriger",
    "ajoute",
    "ajouter",
    "supprime",
    "supprimer",
    "modifie",
    "modifier",
    "remplace",
    "remplacer",
    "utilise",
    "utiliser",
    "renomme",
    "renommer",
    "déplace",
    "déplacer",
    "mets",
    "mettre",
    "fais",
    "faire",
    "rends",
    "rendre",
];

/// German infinitives that end an instruction ("Timeout konfigurierbar machen").
const DE_FINAL_INFINITIVES: &[&str] = &[
    "machen",
    "ändern",
    "entfernen",
    "hinzufügen",
    "umbenennen",
    "verwenden",
    "nutzen",
    "beheben",
    "korrigieren",
    "ersetzen",
    "löschen",
    "aktualisieren",
    "ergänzen",
    "einbauen",
];

/// Words that open a clause without changing what it asks (politeness, connectives).
const LEAD_INS: &[&str] = &[
    "please",
    "pls",
    "plz",
    "kindly",
    "just",
    "also",
    "then",
    "and",
    "but",
    "so",
    "instead",
    "ok",
    "okay",
    "sure",
    "yes",
    "yeah",
    "agreed",
    "good catch",
    "let's",
    "lets",
    "let us",
    "go ahead and",
    "can you",
    "could you",
    "would you",
    "we should",
    "we need to",
    "need to",
    "we must",
    "por favor",
    "pero",
    "y",
    "también",
    "bitte",
    "aber",
    "und",
    "auch",
    "merci de",
    "s'il te plaît",
    "s'il vous plaît",
    "veuillez",
    "mais",
    "et",
    "aussi",
];

/// Words that open a statement (a sentence about the code, not an order).
const STATEMENT_STARTS: &[&str] = &[
    "i", "i'm", "i've", "we", "we're", "we've", "it", "it's", "its", "this", "that", "that's",
    "these", "those", "there", "there's", "the", "our", "they", "here", "esto", "este", "esta",
    "eso", "es", "está", "el", "la", "los", "las", "nosotros", "lo", "das", "dies", "diese",
    "dieser", "der", "die", "es", "wir", "ich", "hier", "ce", "cela", "ça", "le", "les", "nous",
    "on", "il", "elle", "je", "ici",
];

/// A request without an order: "should", "must" and the like.
const MODALS: &[&str] = &[
    "should",
    "must",
    "needs to",
    "have to",
    "has to",
    "ought to",
    "would be better",
    "해야",
    "べき",
    "必要があ",
    "应该",
    "需要",
    "debería",
    "hay que",
    "tiene que",
    "sollte",
    "muss",
    "müssen",
    "devrait",
    "il faut",
    "doit",
];

/// A negated verb: "don't log it" may ask for a change or decline one.
const NEGATED: &[&str] = &["don't", "do not", "never", "no", "nicht", "ne pas", "pas"];

/// Code-change stems in Korean, Japanese and Chinese (no spaces between words there).
const CJK_FIX_STEMS: &[&str] = &[
    "수정", "고쳐", "고치", "추가", "삭제", "변경", "리팩", "제거", "교체", "修正", "追加", "削除",
    "変更", "直し", "修复", "修改", "添加", "删除", "更改", "移除", "替换",
];

/// Imperative endings in Korean, Japanese and Chinese.
const CJK_IMPERATIVES: &[&str] = &[
    "해 주세요",
    "해주세요",
    "해 줘",
    "해줘",
    "하세요",
    "해라",
    "하자",
    "해 주십시오",
    "하십시오",
    "주세요",
    "바랍니다",
    "してください",
    "して下さい",
    "してほしい",
    "して欲しい",
    "しましょう",
    "しよう",
    "ください",
    "下さい",
    "请",
    "改成",
    "改为",
    "换成",
    "加上",
    "去掉",
    "删掉",
    "一下",
];

/// What the clauses of an instruction hold.
#[derive(Debug, Default)]
struct Cues {
    negation: bool,
    explanation: bool,
    imperative: bool,
    /// A code-change verb that opens no clause, a modal, or a negated verb.
    doubtful: bool,
    statement: bool,
    words: usize,
}

fn cues(text: &str) -> Cues {
    let norm = normalize(text);
    let mut c = Cues {
        negation: has_any(&norm, NEGATIONS),
        explanation: has_any(&norm, EXPLANATIONS),
        doubtful: has_any(&norm, MODALS),
        words: norm.split_whitespace().count(),
        ..Cues::default()
    };
    // Scripts without spaces between words: the endings and stems say it.
    if text.chars().any(is_cjk) {
        if has_any(&norm, CJK_IMPERATIVES) {
            c.imperative = true;
        } else if has_any(&norm, CJK_FIX_STEMS) && !c.explanation && !c.negation {
            // Terse noun phrases ("캐시 크기 제한 추가") are how instructions are written there.
            c.imperative = true;
        }
    }
    for clause in text.split([
        '.', ';', '!', '?', ',', ':', '\n', '—', '–', '(', ')', '。', '、', '，', '；', '！', '？',
    ]) {
        let norm = normalize(clause);
        let mut words: Vec<&str> = norm.split_whitespace().collect();
        if words.is_empty() {
            continue;
        }
        // Lead-ins, as often as they come ("ok, but please also add ...").
        loop {
            let rest = words.join(" ");
            let Some(lead) = LEAD_INS
                .iter()
                .find(|l| rest == **l || rest.starts_with(&format!("{l} ")))
            else {
                break;
            };
            let n = lead.split_whitespace().count();
            words.drain(..n.min(words.len()));
            if words.is_empty() {
                break;
            }
        }
        let Some(first) = words.first().copied() else {
            continue;
        };
        let rest = words.join(" ");
        let negated_verb = NEGATED.iter().any(|n| {
            rest.strip_prefix(n)
                .and_then(|r| r.strip_prefix(' '))
                .and_then(|r| r.split(' ').next())
                .is_some_and(|w| IMPERATIVES.contains(&w) || DE_FINAL_INFINITIVES.contains(&w))
        });
        let last_two = &words[words.len().saturating_sub(2)..];
        let final_infinitive = matches!(last_two, [before, last]
            if DE_FINAL_INFINITIVES.contains(last) && !matches!(*before, "nicht" | "kein" | "keine"));
        let stray_verb = words
            .iter()
            .skip(1)
            .any(|w| IMPERATIVES.contains(w) && !is_noun_use(w));
        if IMPERATIVES.contains(&first) || final_infinitive {
            c.imperative = true;
        } else if negated_verb || stray_verb {
            c.doubtful = true;
        }
        if STATEMENT_STARTS.contains(&first) && words.len() > 1 {
            c.statement = true;
        }
    }
    c
}

/// Imperative words that are as often nouns or adjectives inside a sentence ("the log", "a
/// set", "the cap"): inside a clause they do not make it doubtful.
fn is_noun_use(word: &str) -> bool {
    matches!(
        word,
        "log"
            | "set"
            | "sort"
            | "call"
            | "lock"
            | "cap"
            | "limit"
            | "bound"
            | "free"
            | "close"
            | "use"
            | "change"
            | "return"
            | "import"
            | "export"
            | "release"
            | "merge"
            | "split"
            | "write"
            | "document"
            | "cover"
            | "correct"
            | "lower"
            | "make"
            | "catch"
            | "escape"
            | "update"
            | "handle"
    )
}

fn by_rules(text: &str) -> Intent {
    if !known_script(text) {
        return Intent::Unclear;
    }
    if !text.chars().any(char::is_alphabetic) {
        return if text.chars().all(|c| c == '-' || c.is_whitespace()) {
            Intent::Skip
        } else {
            Intent::Unclear
        };
    }
    let norm = normalize(text);
    let whole = norm.trim();
    if SKIP_DIRECTIVES.iter().any(|d| normalize(d).trim() == whole) {
        return Intent::Skip;
    }
    if REPLY_DIRECTIVES
        .iter()
        .any(|d| normalize(d).trim() == whole)
        || PLACEHOLDERS.contains(&whole)
    {
        return Intent::Unclear;
    }
    let c = cues(text);
    if c.negation && c.imperative {
        // "won't fix, but rename it": which one?
        return Intent::Unclear;
    }
    if c.negation {
        return Intent::Reply;
    }
    if c.imperative {
        return Intent::Fix;
    }
    if c.explanation {
        return Intent::Reply;
    }
    if c.doubtful {
        return Intent::Unclear;
    }
    let cjk = text.chars().any(is_cjk);
    if c.statement && !cjk && c.words >= 3 {
        return Intent::Reply;
    }
    Intent::Unclear
}

fn is_cjk(c: char) -> bool {
    matches!(c as u32, 0x1100..=0x11FF | 0x3040..=0x30FF | 0x3400..=0x4DBF | 0x4E00..=0x9FFF | 0xAC00..=0xD7AF)
}

/// Whether the letters of `text` are Latin, Hangul, Kana or Han: scripts of the languages the
/// rules know.
fn known_script(text: &str) -> bool {
    text.chars()
        .filter(|c| c.is_alphabetic())
        .all(|c| c.is_ascii_alphabetic() || is_cjk(c) || matches!(c as u32, 0xC0..=0x24F))
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// Regression: these were read by keyword: the negations and explanations as fixes (they
    /// name "fix", "change", "update"), the imperatives and directives as replies posted
    /// verbatim.
    #[test]
    fn common_wording_is_read_as_meant() {
        for (text, want) in [
            ("won't fix", Intent::Reply),
            ("Won't fix.", Intent::Reply),
            ("no change needed", Intent::Reply),
            (
                "This change is intentional because the caller retries.",
                Intent::Reply,
            ),
            ("Already handled in update() below", Intent::Reply),
            ("Make the timeout configurable", Intent::Fix),
            ("Use a HashMap here instead", Intent::Fix),
            ("no action", Intent::Skip),
            ("comment only", Intent::Unclear),
            ("I'll fix it", Intent::Unclear),
            ("The timeout should be configurable", Intent::Unclear),
            ("Don't log the token", Intent::Unclear),
            ("won't fix, but rename it", Intent::Unclear),
            (
                "We batch to stay under the rate limit; see docs/github.md.",
                Intent::Reply,
            ),
            ("Please add a regression test", Intent::Fix),
            ("ok, but also remove the debug print", Intent::Fix),
            ("Bound the cache", Intent::Fix),
            ("Bumped elsewhere", Intent::Reply),
            ("Accept the suggestion", Intent::Fix),
            ("Fixed in 3f2a9c1", Intent::Reply),
            ("Good catch, will fix", Intent::Unclear),
            ("Thanks, this is intended behaviour", Intent::Reply),
            (
                "Not applicable here since we never pass null",
                Intent::Reply,
            ),
            // The other languages.
            ("캐시 크기 제한 추가", Intent::Fix),
            ("이미 update()에서 처리됩니다", Intent::Reply),
            ("수정하지 않습니다", Intent::Reply),
            ("修正不要です", Intent::Reply),
            ("タイムアウトを設定可能にしてください", Intent::Fix),
            ("不用改，这是故意的", Intent::Reply),
            ("请改成 HashMap", Intent::Fix),
            ("No hace falta, es intencional", Intent::Reply),
            ("Usa un HashMap aquí", Intent::Fix),
            ("Keine Änderung nötig, das ist gewollt", Intent::Reply),
            ("Timeout konfigurierbar machen", Intent::Fix),
            ("Pas de changement nécessaire", Intent::Reply),
            ("Utilise une HashMap ici", Intent::Fix),
            ("C'est voulu : la valeur est bornée ailleurs", Intent::Reply),
        ] {
            assert_eq!(intent(text), want, "{text:?}");
        }
    }

    #[test]
    fn explicit_forms_carry_their_text() {
        let r = read_instruction("Reply: No change needed — update() already clamps it.");
        assert_eq!(r.intent, Intent::Reply);
        assert_eq!(r.text, "No change needed — update() already clamps it.");
        let r = read_instruction("fix : won't fix is wrong here, clamp it");
        assert_eq!(
            (r.intent, r.text.as_str()),
            (Intent::Fix, "won't fix is wrong here, clamp it")
        );
        assert_eq!(read_instruction("SKIP").intent, Intent::Skip);
        assert_eq!(read_instruction("skip: bot noise").intent, Intent::Skip);
        let r = read_instruction("reply:");
        assert_eq!((r.intent, r.hint), (Intent::Unclear, Some(REPLY_HINT)));
        assert_eq!(read_instruction("comment only").hint, Some(REPLY_HINT));
        // A judge may place what the rules could not read, never a placeholder, a reply
        // without its text, or an explicit form.
        assert!(read_instruction("I'll fix it").judgeable);
        assert!(read_instruction("Это сделано намеренно").judgeable);
        for text in [
            "hmm",
            "?",
            "comment only",
            "reply:",
            "fix: x",
            "won't fix",
            "Use a HashMap",
        ] {
            assert!(!read_instruction(text).judgeable, "{text:?}");
        }
        // "skip" opening a sentence is not the explicit form.
        assert_eq!(read_instruction("skipping is fine").intent, Intent::Unclear);
    }

    /// Instructions built from a negation of any language, with common framing around it.
    fn negated() -> impl Strategy<Value = String> {
        let phrase = proptest::sample::select(NEGATIONS.to_vec());
        let before = proptest::sample::select(vec![
            "",
            "Sorry, ",
            "Hmm, ",
            "Honestly ",
            "I think ",
            "Thanks! ",
            "@coderabbitai ",
        ]);
        let after = proptest::sample::select(vec![
            "",
            ".",
            "!",
            " — see update() below",
            ": the input is validated upstream",
            " because the caller already retries",
            ", the change in #12 covers it",
            " (the cache is bounded elsewhere)",
            "; 이미 처리됨",
            "。意図的です",
        ]);
        (before, phrase, after, any::<bool>()).prop_map(|(b, p, a, upper)| {
            let p = if upper {
                let mut cs = p.chars();
                cs.next()
                    .map(|c| c.to_uppercase().chain(cs).collect())
                    .unwrap_or_default()
            } else {
                p.to_owned()
            };
            format!("{b}{p}{a}")
        })
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(512))]

        /// `skip`, `reply: <text>` and `fix: <text>` win over whatever the text says.
        #[test]
        fn explicit_prefixes_always_win(
            word in proptest::sample::select(vec!["skip", "Skip", "SKIP", "reply", "Reply", "fix", "FIX", "Fix"]),
            space in proptest::sample::select(vec!["", " "]),
            colon in proptest::sample::select(vec![":", "："]),
            body in "\\PC{0,80}",
        ) {
            let r = read_instruction(&format!("  {word}{space}{colon} {body}"));
            match word.to_ascii_lowercase().as_str() {
                "skip" => prop_assert_eq!(r.intent, Intent::Skip),
                "reply" if body.trim().is_empty() => prop_assert_eq!(r.intent, Intent::Unclear),
                "reply" => {
                    prop_assert_eq!(r.intent, Intent::Reply);
                    prop_assert_eq!(r.text, body.trim());
                }
                _ => {
                    prop_assert_eq!(r.intent, Intent::Fix);
                    if !body.trim().is_empty() {
                        prop_assert_eq!(r.text, body.trim());
                    }
                }
            }
        }

        /// No negation, in any language, dispatches a fix.
        #[test]
        fn no_negation_dispatches_a_fix(text in negated()) {
            prop_assert_ne!(intent(&text), Intent::Fix, "{:?}", text);
        }

        /// Any text is read without a panic, and only an explicit form or a rule makes a fix.
        #[test]
        fn any_text_reads(text in "\\PC{0,200}") {
            let r = read_instruction(&text);
            if r.intent == Intent::Skip {
                prop_assert!(r.text.is_empty());
            }
        }
    }

    #[test]
    fn intents_follow_the_workflow_table() {
        for (text, want) in [
            ("", Intent::Skip),
            (
                "already handled in the middleware, see auth.rs",
                Intent::Reply,
            ),
            ("this is intentional because we batch writes", Intent::Reply),
            ("fix it", Intent::Fix),
            ("Refactor into a helper", Intent::Fix),
            ("intentional — but remove the debug print", Intent::Fix),
            ("test", Intent::Unclear),
            ("?", Intent::Unclear),
            ("maybe", Intent::Unclear),
            ("ok", Intent::Unclear),
            ("!!!", Intent::Unclear),
            ("これは意図的です", Intent::Reply),
            ("修正してください", Intent::Fix),
            ("هذا مقصود", Intent::Unclear),
        ] {
            assert_eq!(intent(text), want, "{text:?}");
        }
    }

    #[test]
    fn languages_are_told_apart() {
        assert_eq!(
            language_of(["이 부분은 캐시 크기를 제한해야 합니다"]),
            Lang::Ko
        );
        assert_eq!(
            language_of(["ここはキャッシュを制限してください"]),
            Lang::Ja
        );
        assert_eq!(language_of(["这里应该限制缓存大小"]), Lang::Zh);
        assert_eq!(
            language_of(["El caché no tiene límite y esto es un problema para la memoria"]),
            Lang::Es
        );
        assert_eq!(
            language_of(["Der Cache ist nicht begrenzt und das ist ein Problem"]),
            Lang::De
        );
        assert_eq!(
            language_of(["Le cache n'est pas limité, ce qui est une fuite pour les gros PR"]),
            Lang::Fr
        );
        assert_eq!(
            language_of(["The cache is not bounded and this is a leak"]),
            Lang::En
        );
        for lang in [
            Lang::En,
            Lang::Ko,
            Lang::Ja,
            Lang::Zh,
            Lang::Es,
            Lang::De,
            Lang::Fr,
        ] {
            assert!(review_core::followup::fixed_reply(lang, "3f2a9c1", "x.").contains("3f2a9c1"));
        }
    }
}
