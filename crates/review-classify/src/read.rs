//! Reading one finding: the family's reader, then what every family shares.

use std::collections::BTreeMap;

use review_core::signals::{
    Concreteness, LadderHint, NonFinding, Scope, Severity, Signals, Suggestion,
};

use crate::doc::{Block, Doc};
use crate::families::{
    Reading, codeant, codeql, coderabbit, codex, copilot, cubic, cursor, deepsource, gemini,
    generic, greptile, kilo, others, qa, qodo, sourcery,
};
use crate::flags::{self, Prose};
use crate::markup::contains_ci;
use crate::severity::UNKNOWN_FORMAT_CAP;
use crate::{Family, fingerprint, fix, security};

/// What the reader found in one finding (a thread's first comment).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Finding {
    /// Whether the comment's format was recognised: the family's markers, or clear structure
    /// (a suggestion block or a diff) when they are absent.
    pub format_known: bool,
    /// The one-line finding, markup stripped, at most 120 characters.
    pub title: String,
    /// The stated severity, normalised. Never above medium when the family's markers are
    /// absent.
    pub severity: Severity,
    /// The replacement text of each closed suggestion block, exactly as written (each line
    /// ends with a newline; an empty block deletes the lines).
    pub suggestions: Vec<String>,
    /// How concretely the fix is described: the one suggestion block; exact (a diff, a
    /// proposed fix, several suggestion blocks, or "replace `a` with `b`"); or vague.
    pub concreteness: Concreteness,
    /// How far the change reaches.
    pub scope: Scope,
    /// The lead asks for a design decision, a new dependency or a change of scope.
    pub design_decision: bool,
    /// A nitpick, a style category or a style-only title.
    pub style_only: bool,
    /// Hedged wording without a stated defect.
    pub speculative: bool,
    /// The comment says it was addressed.
    pub already_addressed: bool,
    /// The comment is not a finding: a summary, or a status or quota notice.
    pub non_finding: Option<NonFinding>,
    /// The finding is security-sensitive: the bot's mark, or the term the reader's rule found.
    pub security: Option<String>,
    /// The text states a plainly serious consequence (a crash, data loss, a wrong result).
    pub serious: bool,
    /// The one diff block, when no suggestion block is offered and it names no other file.
    pub patch: Option<String>,
    /// What set each signal, by field name, in a few words.
    pub why: BTreeMap<String, String>,
    /// The reader's hint for the autonomy ladder.
    pub ladder_hint: LadderHint,
}

impl Finding {
    /// The signals the core decides on, for a finding by `family` on `path`. The family is
    /// `None` in the signals for [`Family::OtherBot`].
    pub fn signals(&self, family: Family, path: &str) -> Signals {
        Signals {
            family: (family != Family::OtherBot).then(|| family.as_str().to_owned()),
            format_known: self.format_known,
            title: self.title.clone(),
            severity: self.severity,
            concreteness: self.concreteness.clone(),
            scope: self.scope,
            design_decision: self.design_decision,
            style_only: self.style_only,
            speculative: self.speculative,
            already_addressed: self.already_addressed,
            non_finding: self.non_finding,
            security: self.security.clone(),
            serious: self.serious,
            patch: self.patch.clone(),
            why: self.why.clone(),
            ladder_hint: self.ladder_hint.clone(),
            fingerprint: match self.non_finding {
                // A summary or a notice is no re-post of a finding with the same title.
                Some(kind) => fingerprint(
                    Some(family),
                    path,
                    &format!("not a finding {} {}", kind.as_str(), self.title),
                ),
                None => fingerprint(Some(family), path, &self.title),
            },
        }
    }
}

/// The family's own reader.
fn family_reading(family: Family, doc: &Doc, lower: &str, header: &str) -> Reading {
    match family {
        Family::CodeRabbit => coderabbit::read(doc, lower),
        Family::Copilot => copilot::read(doc, lower),
        Family::Gemini => gemini::read(doc),
        Family::Codex => codex::read(doc, lower),
        Family::Cursor => cursor::read(doc, lower),
        Family::Greptile => greptile::read(doc),
        Family::Sourcery => sourcery::read(doc, lower),
        Family::Qodo => qodo::read(doc, lower),
        Family::Claude => generic::read_claude(doc, lower),
        Family::Bito => generic::read_bito(doc),
        Family::Cubic => cubic::read(doc, lower),
        Family::Kilo => kilo::read(doc, lower),
        Family::CodeAnt => codeant::read(doc),
        Family::CodeQl => codeql::read(doc, lower),
        Family::DeepSource => deepsource::read(doc),
        Family::AmazonQ => others::read_amazonq(doc, lower),
        Family::Jules => others::read_jules(doc, lower),
        Family::Vercel => others::read_vercel(doc, lower),
        Family::Korbit => others::read_korbit(doc),
        Family::SonarQube => others::read_sonarqube(doc, lower),
        Family::QaHeader => qa::read(doc, header),
        Family::OtherBot => generic::read_unknown(doc),
    }
}

/// The ladder hint from the other signals: stop unless one concrete, known, local,
/// non-speculative fix is offered; recommend-and-ask when the comment offers an alternative.
fn ladder_hint(
    format_known: bool,
    concreteness: &Concreteness,
    scope: Scope,
    design: bool,
    speculative: bool,
    alternative: Option<String>,
) -> LadderHint {
    if !format_known
        || design
        || speculative
        || scope != Scope::SingleFile
        || !concreteness.is_concrete()
    {
        return LadderHint::StopAndAsk;
    }
    match alternative {
        Some(alternative) => LadderHint::RecommendAndAsk { alternative },
        None => LadderHint::JustDoIt,
    }
}

/// Reads one finding by `family` on `path`; `header` is the automated-comment header a
/// [`Family::QaHeader`] comment starts with.
pub(crate) fn read(family: Family, body: &str, path: &str, header: &str) -> Finding {
    let doc = Doc::parse(body);
    let lower = body.to_lowercase();
    let mut reading = family_reading(family, &doc, &lower, header);
    if !reading.known && !matches!(family, Family::OtherBot | Family::QaHeader) {
        // The family's markers are absent: read it as a bot of unknown format would be.
        let unknown = generic::read_unknown(&doc);
        reading.severity = reading.severity.or(unknown.severity);
    }
    let title = reading
        .title
        .clone()
        .filter(|t| !t.is_empty())
        .unwrap_or_else(|| generic::generic_title(&doc, header));
    let prose = Prose::new(&doc, &title);
    let mut why = BTreeMap::new();
    let mut note = |signal: &str, text: String| {
        why.entry(signal.to_owned()).or_insert(text);
    };

    let skipped = doc
        .lines
        .iter()
        .any(|l| contains_ci(l, "committable suggestion skipped"));
    let suggestions: Vec<&Block> = if skipped {
        Vec::new()
    } else {
        doc.suggestions().collect()
    };
    let diffs: Vec<&Block> = doc
        .blocks
        .iter()
        .filter(|b| b.closed && matches!(b.info.as_str(), "diff" | "patch"))
        .collect();
    let diff_elsewhere = diffs
        .iter()
        .flat_map(|b| flags::diff_files(b))
        .find(|f| !flags::is_thread_file(f, path));
    let fix_elsewhere = reading
        .fix_files
        .iter()
        .find(|f| !flags::is_thread_file(f, path))
        .cloned();
    // Fix material on the thread's own file: one suggestion block, or diffs naming no other file.
    let own_fix = suggestions.len() == 1 || (!diffs.is_empty() && diff_elsewhere.is_none());

    let title_line = reading_title_line(&doc, &title);
    let exact = if !diffs.is_empty() {
        Some("a diff block".to_owned())
    } else if flags::proposed_fix(&doc, &prose) {
        Some("a proposed fix with code".to_owned())
    } else if flags::exact_prose(&doc) {
        Some("it says what to replace with what".to_owned())
    } else {
        fix::code_after_colon(&doc)
            .or_else(|| fix::named_change(&doc, title_line.as_deref()))
            .or_else(|| fix::missing_await(&doc))
            .or_else(|| {
                reading
                    .fix_named
                    .as_ref()
                    .map(|f| format!("the suggested fix names the change: \"{f}\""))
            })
    };
    let concreteness = match suggestions.as_slice() {
        [one] => {
            note("concreteness", "a suggestion block".to_owned());
            Concreteness::Suggestion(Suggestion {
                lines: None,
                replacement: one.text.clone(),
            })
        }
        [] => match exact {
            Some(what) => {
                note("concreteness", what);
                Concreteness::Exact
            }
            None => Concreteness::Vague,
        },
        _ => {
            note("concreteness", "several suggestion blocks".to_owned());
            Concreteness::Exact
        }
    };

    let format_known = reading.known || !suggestions.is_empty() || !diffs.is_empty();
    if reading.known {
        note("format_known", format!("the markers of {family}"));
    }
    let mut severity = reading.severity.unwrap_or(Severity::None);
    if !reading.known {
        severity = severity.min(UNKNOWN_FORMAT_CAP);
    }
    let (mut scope, scope_why) = flags::scope(&doc, &prose, path, own_fix);
    if let Some(w) = scope_why {
        note("scope", w);
    }
    if let Some(file) = diff_elsewhere.clone().or(fix_elsewhere) {
        scope = Scope::MultiFile;
        note("scope", format!("the fix names {file}"));
    }
    let choice = (suggestions.len() != 1)
        .then(|| fix::choice(&doc, &prose))
        .flatten();
    let design_why = reading
        .design
        .clone()
        .or_else(|| flags::design(&prose))
        .or(choice);
    if let Some(w) = &design_why {
        note("design_decision", w.clone());
    }
    let design_decision = design_why.is_some();
    let speculative = flags::speculative(&prose);
    if speculative {
        note(
            "speculative",
            "hedged wording and no defect stated".to_owned(),
        );
    }
    let style_why = if reading.style {
        Some("the reviewer's nitpick or style marker".to_owned())
    } else if severity == Severity::Nit {
        Some("a nitpick severity".to_owned())
    } else if flags::style_title(&title) {
        Some("the title is about style".to_owned())
    } else if flags::nit_marker(&doc, header) {
        Some("a nit marker".to_owned())
    } else if flags::docs_file(path)
        && design_why.is_none()
        && !matches!(severity, Severity::High | Severity::Critical)
    {
        // Documentation, unless the finding asks for a decision (docs and code that disagree:
        // which one changes is the author's choice) or the bot rates it high or critical (a
        // plan, a runbook or a spec can be wrong in ways that matter).
        Some("the thread is on a documentation file".to_owned())
    } else {
        None
    };
    let style_only = style_why.is_some();
    if let Some(w) = style_why {
        note("style_only", w);
    }
    let already_addressed = flags::addressed(&doc);
    if already_addressed {
        note("already_addressed", "\"✅ Addressed\"".to_owned());
    }
    let non_finding = reading.non_finding.as_ref().map(|(kind, w)| {
        note("non_finding", w.clone());
        *kind
    });
    let security = reading
        .security
        .or_else(|| security::reader_security(&prose));
    let serious = fix::serious(&prose);
    if let Some(w) = &serious {
        note("serious", w.clone());
    }
    let alternative =
        flags::alternative(&doc, &prose).or_else(|| flags::or_between(&doc, &suggestions));
    if let Some(a) = &alternative {
        note("alternative", a.clone());
    }
    let ladder_hint = ladder_hint(
        format_known && security.is_none() && non_finding.is_none(),
        &concreteness,
        scope,
        design_decision,
        speculative,
        alternative,
    );
    let patch = match (suggestions.as_slice(), diffs.as_slice()) {
        ([], [one]) if diff_elsewhere.is_none() => Some(one.text.clone()),
        _ => None,
    };
    Finding {
        format_known,
        title,
        severity,
        suggestions: suggestions.iter().map(|b| b.text.clone()).collect(),
        concreteness,
        scope,
        design_decision,
        style_only,
        speculative,
        already_addressed,
        non_finding,
        security,
        serious: serious.is_some(),
        patch,
        why,
        ladder_hint,
    }
}

/// The markdown line the title was read from (code spans kept), from the title's first word on
/// (labels and badges before it are not the title), for [`fix::named_change`].
fn reading_title_line(doc: &Doc, title: &str) -> Option<String> {
    let probe: String = title.chars().take(24).collect();
    let first_word = title.split_whitespace().next()?;
    let (i, _) = doc
        .nonempty()
        .find(|(i, _)| doc.plain_of(*i).contains(probe.as_str()))?;
    let line = doc.line_at(i).into_owned();
    let from = line.find(first_word).unwrap_or(0);
    Some(line.get(from..).unwrap_or(&line).to_owned())
}

/// The title of any comment, for clustering threads a person started.
pub(crate) fn title_of(body: &str) -> String {
    generic::generic_title(&Doc::parse(body), "")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unclosed_suggestion_from_a_truncated_body_is_not_applied() {
        let f = read(
            Family::Copilot,
            "Fix the bound.\n```suggestion\n    for i in 0..n {",
            "a.rs",
            "",
        );
        assert_eq!(f.concreteness, Concreteness::Vague);
        assert!(f.suggestions.is_empty());
    }

    #[test]
    fn empty_suggestion_deletes() {
        let f = read(
            Family::Copilot,
            "This debug line should go.\n```suggestion\n```",
            "a.rs",
            "",
        );
        assert_eq!(
            f.concreteness,
            Concreteness::Suggestion(Suggestion {
                lines: None,
                replacement: String::new()
            })
        );
    }

    #[test]
    fn design_and_multi_file_findings_stop() {
        let f = read(
            Family::Copilot,
            "Should we move parsing into its own module?\n```diff\n+mod parse;\n```",
            "a.rs",
            "",
        );
        assert!(f.design_decision);
        assert_eq!(f.ladder_hint, LadderHint::StopAndAsk);
        let f = read(
            Family::Copilot,
            "Update `src/b.rs` too.\n```suggestion\nx\n```",
            "src/a.rs",
            "",
        );
        assert_eq!(f.scope, Scope::MultiFile);
        assert_eq!(f.ladder_hint, LadderHint::StopAndAsk);
    }

    #[test]
    fn signals_carry_family_and_fingerprint() {
        let f = read(Family::OtherBot, "Something.", "a.rs", "");
        let s = f.signals(Family::OtherBot, "a.rs");
        assert_eq!(s.family, None);
        assert!(!s.format_known);
        assert_eq!(
            s.fingerprint,
            fingerprint(Some(Family::OtherBot), "a.rs", "Something")
        );
        let s = f.signals(Family::Cursor, "a.rs");
        assert_eq!(s.family.as_deref(), Some("cursor"));
    }

    #[test]
    fn each_rule_records_what_set_it() {
        // A bot-stated high severity whose title names the change is concrete.
        let f = read(
            Family::Codex,
            "**<sub><sub>![P1 Badge](https://img.shields.io/badge/P1-orange?style=flat)</sub></sub>  Use `fileURLToPath` when resolving the schema directory**\n\n`pathname` keeps percent-encoding, so the validator throws `ENOENT`.\n\nUseful? React with 👍 / 👎.",
            "src/schemas.ts",
            "",
        );
        assert_eq!(f.concreteness, Concreteness::Exact);
        assert!(
            f.why["concreteness"].starts_with("the title names the change"),
            "{:?}",
            f.why
        );
        assert!(f.serious, "{:?}", f.why);

        // A choice between fixes is a person's decision.
        let f = read(
            Family::Codex,
            "**<sub><sub>![P1 Badge](https://img.shields.io/badge/P1-orange?style=flat)</sub></sub>  Avoid skipping `main()`**\n\nEither drop the guard, or detect direct execution another way.",
            "src/index.ts",
            "",
        );
        assert!(f.design_decision);
        assert!(f.why["design_decision"].contains("either"), "{:?}", f.why);

        // A documentation file makes a finding style-only.
        let f = read(
            Family::Copilot,
            "The example uses the old flag.",
            "docs/guide.md",
            "",
        );
        assert!(f.style_only);
        assert_eq!(f.why["style_only"], "the thread is on a documentation file");

        // A summary is not a finding, and says which summary.
        let f = read(
            Family::Greptile,
            "<h3>Greptile Summary</h3>\n\nThis PR adds resumable uploads.",
            "src/upload.ts",
            "",
        );
        assert_eq!(f.non_finding, Some(NonFinding::Summary));
        assert_eq!(f.why["non_finding"], "the Greptile Summary");

        // The reader's security rule names the term it found.
        let f = read(
            Family::Copilot,
            "The query is built with an f-string from `request.args['sort']`, which allows SQL injection.",
            "api/q.py",
            "",
        );
        assert_eq!(
            f.security.as_deref(),
            Some("the finding names a security weakness: \"injection\"")
        );
    }

    #[test]
    fn a_single_diff_on_the_threads_file_is_the_patch() {
        let body = "This divides by zero.\n\n```diff\n-    x / n\n+    x / n.max(1)\n```";
        let f = read(Family::Copilot, body, "src/a.rs", "");
        assert_eq!(f.patch.as_deref(), Some("-    x / n\n+    x / n.max(1)\n"));
        let elsewhere = "Fix it there.\n\n```diff\n--- a/src/b.rs\n+++ b/src/b.rs\n-x\n+y\n```";
        let f = read(Family::Copilot, elsewhere, "src/a.rs", "");
        assert_eq!(f.patch, None);
        assert_eq!(f.scope, Scope::MultiFile);
        let with_suggestion = format!("{body}\n\n```suggestion\n    x / n.max(1)\n```");
        assert_eq!(
            read(Family::Copilot, &with_suggestion, "src/a.rs", "").patch,
            None
        );
    }
}
