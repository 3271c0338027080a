//! Reading one finding: the family's reader, then what every family shares.

use review_core::signals::{Concreteness, LadderHint, Scope, Severity, Signals, Suggestion};

use crate::doc::{Block, Doc};
use crate::families::{
    Reading, coderabbit, codex, copilot, cursor, gemini, generic, greptile, qa, qodo, sourcery,
};
use crate::flags::{self, Prose};
use crate::markup::contains_ci;
use crate::severity::UNKNOWN_FORMAT_CAP;
use crate::{Family, fingerprint};

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
            ladder_hint: self.ladder_hint.clone(),
            fingerprint: fingerprint(Some(family), path, &self.title),
        }
    }
}

/// The family's own reader.
fn family_reading(family: Family, doc: &Doc, header: &str) -> Reading {
    match family {
        Family::CodeRabbit => coderabbit::read(doc),
        Family::Copilot => copilot::read(doc),
        Family::Gemini => gemini::read(doc),
        Family::Codex => codex::read(doc),
        Family::Cursor => cursor::read(doc),
        Family::Greptile => greptile::read(doc),
        Family::Sourcery => sourcery::read(doc),
        Family::Qodo => qodo::read(doc),
        Family::Claude | Family::Bito => generic::read_titled(doc),
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
    let reading = family_reading(family, &doc, header);
    let title = reading
        .title
        .clone()
        .filter(|t| !t.is_empty())
        .unwrap_or_else(|| generic::generic_title(&doc, header));
    let prose = Prose::new(&doc, &title);

    let skipped = doc
        .lines
        .iter()
        .any(|l| contains_ci(l, "committable suggestion skipped"));
    let suggestions: Vec<&Block> = if skipped {
        Vec::new()
    } else {
        doc.suggestions().collect()
    };
    let diff = doc
        .blocks
        .iter()
        .any(|b| b.closed && matches!(b.info.as_str(), "diff" | "patch"));
    let exact = diff || flags::proposed_fix(&doc, &prose) || flags::exact_prose(&doc);
    let concreteness = match suggestions.as_slice() {
        [one] => Concreteness::Suggestion(Suggestion {
            lines: None,
            replacement: one.text.clone(),
        }),
        [] if exact => Concreteness::Exact,
        [] => Concreteness::Vague,
        _ => Concreteness::Exact,
    };

    let format_known = reading.known || !suggestions.is_empty() || diff;
    let mut severity = reading.severity.unwrap_or(Severity::None);
    if !reading.known {
        severity = severity.min(UNKNOWN_FORMAT_CAP);
    }
    let scope = flags::scope(&doc, &prose, path);
    let design_decision = flags::design(&prose);
    let speculative = flags::speculative(&prose);
    let style_only = reading.style
        || severity == Severity::Nit
        || flags::style_title(&title)
        || flags::nit_marker(&doc, header);
    let already_addressed = flags::addressed(&doc);
    let alternative =
        flags::alternative(&doc, &prose).or_else(|| flags::or_between(&doc, &suggestions));
    let ladder_hint = ladder_hint(
        format_known,
        &concreteness,
        scope,
        design_decision,
        speculative,
        alternative,
    );
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
        ladder_hint,
    }
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
}
