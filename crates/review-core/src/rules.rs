//! The triage workflow's judgement rules: actionable, nit or ambiguous, and the autonomy ladder.

use std::fmt;

use serde::{Deserialize, Serialize};

use crate::signals::{LadderHint, Severity, Signals};

/// How a bot thread is classified.
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Class {
    /// Severe, concrete, localised, no design decision: fix it.
    Actionable,
    /// Style-only, speculative, low severity or already addressed: resolve it, reason in the report.
    Nit,
    /// Anything else: the autonomy ladder decides, or a person does.
    Ambiguous,
}

impl Class {
    /// The name used in reports.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Actionable => "actionable",
            Self::Nit => "nit",
            Self::Ambiguous => "ambiguous",
        }
    }
}

impl fmt::Display for Class {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A class with the one-line reason it was given.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Classification {
    /// The class.
    pub class: Class,
    /// Why, in one line.
    pub reason: String,
}

/// `text`, followed by what set `signal` in parentheses when the reader said.
fn because(text: &str, signals: &Signals, signal: &str) -> String {
    match signals.why(signal) {
        Some(why) if !why.trim().is_empty() => format!("{text} ({why})"),
        _ => text.to_owned(),
    }
}

/// Classifies a bot finding. `convergent` says whether reviewers other than its author raised the
/// same finding.
///
/// The rules follow the labelling guide in `docs/classification.md`, in this order; the first
/// that applies decides, and the reason names the signal (and what set it, from
/// [`Signals::why`]):
///
/// 1. a format the reader does not know: **ambiguous**;
/// 2. not a finding (a summary, a status or quota notice): **nit**;
/// 3. already addressed: **nit**;
/// 4. security-sensitive: **ambiguous**, however clear the fix;
/// 5. style only, or a nitpick severity: **nit**;
/// 6. low severity: **nit**;
/// 7. a design decision (or a choice between fixes): **ambiguous**;
/// 8. a change that spans several files: **ambiguous**;
/// 9. speculative and not high: **nit**;
/// 10. no concrete fix: **ambiguous**;
/// 11. high or critical, or plainly serious, or convergent: **actionable**;
/// 12. otherwise (a medium or unstated severity with a concrete, local fix): **nit**, fixed
///     rather than resolved ([`fixes_nit`]).
pub fn classify(signals: &Signals, convergent: bool) -> Classification {
    let nit = |reason: String| Classification {
        class: Class::Nit,
        reason,
    };
    let ambiguous = |reason: String| Classification {
        class: Class::Ambiguous,
        reason,
    };
    let severity = signals.severity.as_str();
    if !signals.format_known {
        return ambiguous("unrecognised comment format; a person should read it".to_owned());
    }
    if let Some(kind) = signals.non_finding {
        return nit(because(
            &format!("not a finding: {}", kind.as_str()),
            signals,
            "non_finding",
        ));
    }
    if signals.already_addressed {
        return nit(because(
            "already addressed, per the reviewer",
            signals,
            "already_addressed",
        ));
    }
    if let Some(mark) = &signals.security {
        return ambiguous(format!(
            "security-sensitive ({mark}); a person decides however clear the fix"
        ));
    }
    if let Some(gate) = crate::judge::hard_gate(signals) {
        return ambiguous(format!("{gate}; a person decides"));
    }
    if signals.style_only || signals.severity == Severity::Nit {
        return nit(because("style-only nitpick", signals, "style_only"));
    }
    if signals.severity == Severity::Low {
        return nit(because("low severity", signals, "severity"));
    }
    if signals.design_decision {
        return ambiguous(because(
            "needs a design decision",
            signals,
            "design_decision",
        ));
    }
    if signals.scope != crate::signals::Scope::SingleFile {
        return ambiguous(because("the change spans several files", signals, "scope"));
    }
    if signals.speculative && !signals.severity.is_high() {
        return nit(because(
            "speculative; no concrete defect stated",
            signals,
            "speculative",
        ));
    }
    let serious = signals.severity.is_high() || signals.serious;
    if !signals.concreteness.is_concrete() {
        let text = if serious {
            format!("{severity} severity, but the fix is not described concretely")
        } else {
            format!("{severity} severity and no concrete fix described")
        };
        return ambiguous(text);
    }
    let fix = because("concrete single-file fix", signals, "concreteness");
    if signals.severity.is_high() {
        return actionable(format!("{severity} severity, {fix}"));
    }
    if signals.serious {
        return actionable(format!(
            "{} ({severity} severity stated), {fix}",
            because("plainly serious", signals, "serious")
        ));
    }
    if convergent {
        return actionable(format!("convergent finding, {fix}"));
    }
    if signals.severity == Severity::None {
        return nit(format!("no severity stated, with a {fix}: a nit"));
    }
    nit(format!("{severity} severity with a {fix}: a nit"))
}

/// Whether a nit is fixed rather than resolved: a defect (not style, speculation, low severity,
/// a notice or something already addressed) of medium or unstated severity, with a concrete fix
/// on the thread's own file. The guide lets such a nit be fixed or resolved; fixing it is right
/// whether the reader placed its severity well or not, while resolving it unread drops a defect
/// the reader underrated (a bot that states no severity at all, a consequence the reader's words
/// miss). Where no fix can be made the nit is resolved, as any other. `reader` is the class
/// [`classify`] gave.
pub fn fixes_nit(signals: &Signals, reader: Class) -> bool {
    reader == Class::Nit
        && matches!(signals.severity, Severity::Medium | Severity::None)
        && signals.concreteness.is_concrete()
        && !signals.style_only
        && !signals.speculative
        && !signals.already_addressed
        && signals.non_finding.is_none()
}

fn actionable(reason: String) -> Classification {
    Classification {
        class: Class::Actionable,
        reason,
    }
}

/// A rung of the autonomy ladder for an ambiguous bot thread.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "rung")]
pub enum Rung {
    /// The outcome is clearly better and there is one sensible way: do it.
    JustDoIt,
    /// Several reasonable ways: pick one, do it, and say what the alternative was.
    RecommendAndAsk {
        /// The alternative considered, one line.
        alternative: String,
    },
    /// Unclear, or a design question: a person decides.
    StopAndAsk,
}

impl Rung {
    /// The name used in reports.
    pub fn as_str(&self) -> &'static str {
        match self {
            Self::JustDoIt => "just-do-it",
            Self::RecommendAndAsk { .. } => "recommend-and-ask",
            Self::StopAndAsk => "stop-and-ask",
        }
    }
}

/// Whether the autonomy ladder may be consulted.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum LadderMode {
    /// The ladder is not available: every ambiguous thread is stop-and-ask.
    Off,
    /// The ladder follows the reader's hint, within the limits of [`ladder`].
    #[default]
    Hints,
}

/// Places an ambiguous bot thread on the autonomy ladder.
///
/// Never promotes a thread whose format is unknown, that is security-sensitive or not a finding,
/// that needs a design decision, whose fix is vague, or whose change spans several files: those
/// are stop-and-ask whatever the hint says.
pub fn ladder(signals: &Signals, mode: LadderMode) -> Rung {
    ladder_with(signals, mode, &signals.ladder_hint)
}

/// Places an ambiguous bot thread on the ladder at the rung a judge gave it. The judge decides
/// the judgement calls (a design decision, a vague fix, a change to several files: where a fix
/// cannot be made, the thread is deferred when the fix is planned); the hard gates still hold: a
/// format the reader does not know, a security-sensitive finding, a post that is not a finding,
/// and a fix carrying a deny-listed action are stop-and-ask whatever it says.
pub fn ladder_judged(signals: &Signals, mode: LadderMode, verdict: &LadderHint) -> Rung {
    if mode == LadderMode::Off
        || !signals.format_known
        || signals.security.is_some()
        || signals.non_finding.is_some()
        || crate::judge::hard_gate(signals).is_some()
    {
        return Rung::StopAndAsk;
    }
    match verdict {
        LadderHint::JustDoIt => Rung::JustDoIt,
        LadderHint::RecommendAndAsk { alternative } if !alternative.trim().is_empty() => {
            Rung::RecommendAndAsk {
                alternative: alternative.clone(),
            }
        }
        LadderHint::RecommendAndAsk { .. } | LadderHint::StopAndAsk => Rung::StopAndAsk,
    }
}

/// [`ladder`] with `verdict` in place of the reader's hint, within the same limits.
fn ladder_with(signals: &Signals, mode: LadderMode, verdict: &LadderHint) -> Rung {
    if signals.design_decision
        || !signals.concreteness.is_concrete()
        || signals.scope != crate::signals::Scope::SingleFile
    {
        return Rung::StopAndAsk;
    }
    ladder_judged(signals, mode, verdict)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::signals::{Concreteness, Scope, Suggestion};

    fn high_concrete() -> Signals {
        Signals {
            family: Some("coderabbit".to_owned()),
            format_known: true,
            title: "Missing null check".to_owned(),
            severity: Severity::High,
            concreteness: Concreteness::Suggestion(Suggestion {
                lines: None,
                replacement: "x".to_owned(),
            }),
            scope: Scope::SingleFile,
            design_decision: false,
            style_only: false,
            speculative: false,
            already_addressed: false,
            ladder_hint: LadderHint::JustDoIt,
            fingerprint: "f".to_owned(),
            ..Signals::unknown("")
        }
    }

    #[test]
    fn high_concrete_single_file_is_actionable() {
        assert_eq!(classify(&high_concrete(), false).class, Class::Actionable);
    }

    #[test]
    fn unknown_format_is_never_actionable_even_when_every_other_signal_says_so() {
        let s = Signals {
            format_known: false,
            ..high_concrete()
        };
        assert_eq!(classify(&s, true).class, Class::Ambiguous);
        assert_eq!(ladder(&s, LadderMode::Hints), Rung::StopAndAsk);
    }

    #[test]
    fn medium_with_a_concrete_fix_is_a_nit_unless_convergent_or_serious() {
        let s = Signals {
            severity: Severity::Medium,
            ..high_concrete()
        };
        let c = classify(&s, false);
        assert_eq!(c.class, Class::Nit);
        assert!(
            c.reason.starts_with("medium severity with a concrete"),
            "{}",
            c.reason
        );
        assert_eq!(classify(&s, true).class, Class::Actionable);
        let serious = Signals {
            serious: true,
            why: [("serious".to_owned(), "words: \"panics\"".to_owned())].into(),
            ..s
        };
        let c = classify(&serious, false);
        assert_eq!(c.class, Class::Actionable);
        assert!(
            c.reason.contains("plainly serious (words: \"panics\")"),
            "{}",
            c.reason
        );
        let unstated = Signals {
            severity: Severity::None,
            ..serious
        };
        assert_eq!(classify(&unstated, false).class, Class::Actionable);
    }

    #[test]
    fn medium_without_a_concrete_fix_is_ambiguous() {
        let s = Signals {
            severity: Severity::Medium,
            concreteness: Concreteness::Vague,
            ..high_concrete()
        };
        let c = classify(&s, false);
        assert_eq!(c.class, Class::Ambiguous);
        assert_eq!(c.reason, "medium severity and no concrete fix described");
    }

    #[test]
    fn security_sensitive_findings_go_to_a_person_whatever_else_is_said() {
        for base in [
            high_concrete(),
            Signals {
                severity: Severity::Low,
                ..high_concrete()
            },
            Signals {
                style_only: true,
                speculative: true,
                ..high_concrete()
            },
        ] {
            let s = Signals {
                security: Some("Gemini security-high-priority badge".to_owned()),
                ..base
            };
            let c = classify(&s, true);
            assert_eq!(c.class, Class::Ambiguous);
            assert!(
                c.reason.contains("Gemini security-high-priority badge"),
                "{}",
                c.reason
            );
            assert_eq!(ladder(&s, LadderMode::Hints), Rung::StopAndAsk);
            assert_eq!(
                ladder_with(&s, LadderMode::Hints, &LadderHint::JustDoIt),
                Rung::StopAndAsk
            );
        }
        // Already addressed: nothing is left for a person.
        let addressed = Signals {
            security: Some("x".to_owned()),
            already_addressed: true,
            ..high_concrete()
        };
        assert_eq!(classify(&addressed, false).class, Class::Nit);
    }

    #[test]
    fn non_findings_are_nits_named_as_such() {
        let s = Signals {
            non_finding: Some(crate::signals::NonFinding::Notice),
            why: [(
                "non_finding".to_owned(),
                "\"usage limits\" notice".to_owned(),
            )]
            .into(),
            ..high_concrete()
        };
        let c = classify(&s, false);
        assert_eq!(c.class, Class::Nit);
        assert_eq!(
            c.reason,
            "not a finding: status or quota notice (\"usage limits\" notice)"
        );
        let summary = Signals {
            non_finding: Some(crate::signals::NonFinding::Summary),
            ..Signals::unknown("x")
        };
        // An unknown format is never read further.
        assert_eq!(classify(&summary, false).class, Class::Ambiguous);
    }

    #[test]
    fn reasons_name_what_set_the_deciding_signal() {
        let s = Signals {
            design_decision: true,
            why: [(
                "design_decision".to_owned(),
                "CodeRabbit marks the fix a heavy lift".to_owned(),
            )]
            .into(),
            ..high_concrete()
        };
        assert_eq!(
            classify(&s, false).reason,
            "needs a design decision (CodeRabbit marks the fix a heavy lift)"
        );
        let s = Signals {
            concreteness: Concreteness::Exact,
            why: [(
                "concreteness".to_owned(),
                "the title names the change: \"use `x`\"".to_owned(),
            )]
            .into(),
            ..high_concrete()
        };
        assert_eq!(
            classify(&s, false).reason,
            "high severity, concrete single-file fix (the title names the change: \"use `x`\")"
        );
    }

    #[test]
    fn each_missing_condition_blocks_actionable() {
        let vague = Signals {
            concreteness: Concreteness::Vague,
            ..high_concrete()
        };
        let wide = Signals {
            scope: Scope::MultiFile,
            ..high_concrete()
        };
        let design = Signals {
            design_decision: true,
            ..high_concrete()
        };
        for s in [vague, wide, design] {
            assert_eq!(classify(&s, true).class, Class::Ambiguous, "{s:?}");
        }
    }

    #[test]
    fn nit_markers_make_nits() {
        let style = Signals {
            style_only: true,
            ..high_concrete()
        };
        let addressed = Signals {
            already_addressed: true,
            ..high_concrete()
        };
        let low = Signals {
            severity: Severity::Low,
            ..high_concrete()
        };
        let speculative = Signals {
            speculative: true,
            severity: Severity::Medium,
            ..high_concrete()
        };
        for s in [style, addressed, low, speculative] {
            assert_eq!(classify(&s, false).class, Class::Nit, "{s:?}");
        }
    }

    #[test]
    fn ladder_off_means_stop_and_ask() {
        assert_eq!(ladder(&high_concrete(), LadderMode::Off), Rung::StopAndAsk);
        assert_eq!(ladder(&high_concrete(), LadderMode::Hints), Rung::JustDoIt);
    }

    #[test]
    fn recommend_and_ask_needs_a_stated_alternative() {
        let with = Signals {
            ladder_hint: LadderHint::RecommendAndAsk {
                alternative: "use a map instead".to_owned(),
            },
            ..high_concrete()
        };
        let without = Signals {
            ladder_hint: LadderHint::RecommendAndAsk {
                alternative: " ".to_owned(),
            },
            ..high_concrete()
        };
        assert!(matches!(
            ladder(&with, LadderMode::Hints),
            Rung::RecommendAndAsk { .. }
        ));
        assert_eq!(ladder(&without, LadderMode::Hints), Rung::StopAndAsk);
    }

    #[test]
    fn ladder_never_promotes_design_decisions_or_vague_fixes() {
        let design = Signals {
            design_decision: true,
            ..high_concrete()
        };
        let vague = Signals {
            concreteness: Concreteness::Vague,
            ..high_concrete()
        };
        assert_eq!(ladder(&design, LadderMode::Hints), Rung::StopAndAsk);
        assert_eq!(ladder(&vague, LadderMode::Hints), Rung::StopAndAsk);
    }
}
