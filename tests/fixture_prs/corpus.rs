//! The cases of the labelled corpus (`crates/review-classify/tests/fixtures/corpus/`) that the
//! recorded pull requests are built from. Read the way the corpus's own harness reads them
//! (`crates/review-classify/tests/corpus_eval.rs`): a front matter of flat `key = value` lines
//! between `+++` lines, then the body, its final newlines dropped.

use std::collections::BTreeMap;
use std::path::PathBuf;

use review_core::model::{Author, AuthorKind};

use crate::workspace_root;

/// The corpus directory.
pub fn corpus_dir() -> PathBuf {
    workspace_root().join("crates/review-classify/tests/fixtures/corpus")
}

/// One case: who wrote it, where, its label, and its body.
#[derive(Debug, Clone)]
pub struct Case {
    /// The file name without `.md`.
    pub name: String,
    /// The author; `None` for a deleted account (`login = ""`).
    pub author: Option<Author>,
    /// Whether the case was written by the PR's author (`pr_author = true`).
    pub pr_author: bool,
    /// The file the case's thread is on.
    pub path: String,
    /// The expected family, `human` for a person.
    pub family: String,
    /// The label of an automated case: `actionable`, `nit` or `ambiguous`.
    pub class: Option<String>,
    /// Whether the case was modelled on a public source (only those can be held back).
    pub modelled: bool,
    /// The comment body, exactly as the corpus holds it.
    pub body: String,
}

impl Case {
    /// Whether a person wrote the case.
    pub fn is_person(&self) -> bool {
        self.family == "human"
    }

    /// Whether the case is in the corpus's held-back quarter, the same hash as
    /// `Case::is_held_back` in `corpus_eval.rs` (FNV-1a of the name, a multiple of 4). Fixtures
    /// use none of them: their outcomes must not be shown where rules are tuned.
    pub fn is_held_back(&self) -> bool {
        if !self.modelled {
            return false;
        }
        let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
        for byte in self.name.bytes() {
            hash ^= u64::from(byte);
            hash = hash.wrapping_mul(0x0000_0100_0000_01b3);
        }
        hash.is_multiple_of(4)
    }
}

/// The cases read so far, by name.
#[derive(Debug, Default)]
pub struct Corpus {
    cases: BTreeMap<String, Case>,
}

impl Corpus {
    /// The case `name`, read from the corpus directory on first use. Panics on a case that does
    /// not exist or does not parse: a fixture naming it is wrong.
    pub fn case(&mut self, name: &str) -> &Case {
        if !self.cases.contains_key(name) {
            let path = corpus_dir().join(format!("{name}.md"));
            let text = std::fs::read_to_string(&path)
                .unwrap_or_else(|e| panic!("corpus case {name}: {}: {e}", path.display()));
            let case = parse(name, &text).unwrap_or_else(|e| panic!("corpus case {name}: {e}"));
            self.cases.insert(name.to_owned(), case);
        }
        &self.cases[name]
    }
}

fn kind(name: &str) -> Result<AuthorKind, String> {
    Ok(match name {
        "Bot" => AuthorKind::Bot,
        "User" => AuthorKind::User,
        "Organization" => AuthorKind::Organization,
        "Mannequin" => AuthorKind::Mannequin,
        "Unknown" => AuthorKind::Unknown,
        other => return Err(format!("unknown author kind {other:?}")),
    })
}

/// Parses one case file (only the keys the fixtures use; the corpus's own harness checks the
/// rest).
fn parse(name: &str, text: &str) -> Result<Case, String> {
    let rest = text.strip_prefix("+++\n").ok_or("no front matter")?;
    let (front, body) = rest
        .split_once("\n+++\n")
        .ok_or("unterminated front matter")?;
    let mut fields = BTreeMap::new();
    for line in front.lines().filter(|l| !l.trim().is_empty()) {
        let (key, value) = line
            .split_once('=')
            .ok_or_else(|| format!("bad line {line:?}"))?;
        let value = value.trim();
        let value = value
            .strip_prefix('"')
            .and_then(|v| v.strip_suffix('"'))
            .unwrap_or(value);
        fields.insert(key.trim().to_owned(), value.to_owned());
    }
    let field = |key: &str| fields.get(key).cloned();
    let login = field("login").ok_or("no login")?;
    let kind = kind(&field("kind").ok_or("no kind")?)?;
    Ok(Case {
        name: name.to_owned(),
        author: (!login.is_empty()).then(|| Author::new(login, kind)),
        pr_author: field("pr_author").is_some_and(|v| v == "true"),
        path: field("path").ok_or("no path")?,
        family: field("family").ok_or("no family")?,
        class: field("class"),
        modelled: fields.contains_key("modelled-on"),
        body: body.trim_end_matches('\n').to_owned(),
    })
}
