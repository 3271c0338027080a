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

/// Classifies a bot finding. `convergent` says whether reviewers other than its author raised the
/// same finding.
///
/// Actionable needs all of: high or critical severity (or a convergent finding), a concrete fix,
/// a single-file scope, no design decision, and a format the reader knows. Nit: already
/// addressed, style-only, speculative, or low severity. Everything else is ambiguous.
pub fn classify(signals: &Signals, convergent: bool) -> Classification {
    let nit = |reason: &str| Classification {
        class: Class::Nit,
        reason: reason.to_owned(),
    };
    let ambiguous = |reason: String| Classification {
        class: Class::Ambiguous,
        reason,
    };
    if !signals.format_known {
        return ambiguous("unrecognised comment format; a person should read it".to_owned());
    }
    if signals.already_addressed {
        return nit("already addressed, per the reviewer");
    }
    if signals.style_only || signals.severity == Severity::Nit {
        return nit("style-only nitpick");
    }
    if signals.speculative && !signals.severity.is_high() {
        return nit("speculative; no concrete defect stated");
    }
    if signals.severity == Severity::Low {
        return nit("low severity");
    }
    if !(signals.severity.is_high() || convergent) {
        return ambiguous(format!(
            "{} severity, not high enough to fix unattended",
            signals.severity.as_str()
        ));
    }
    if signals.design_decision {
        return ambiguous("needs a design decision".to_owned());
    }
    if !signals.concreteness.is_concrete() {
        return ambiguous("the fix is not described concretely".to_owned());
    }
    if signals.scope != crate::signals::Scope::SingleFile {
        return ambiguous("the change spans several files".to_owned());
    }
    let why = if signals.severity.is_high() {
        format!(
            "{} severity, concrete single-file fix",
            signals.severity.as_str()
        )
    } else {
        "convergent finding, concrete single-file fix".to_owned()
    };
    Classification {
        class: Class::Actionable,
        reason: why,
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
/// Never promotes a thread whose format is unknown, that needs a design decision, whose fix is
/// vague, or whose change spans several files: those are stop-and-ask whatever the hint says.
pub fn ladder(signals: &Signals, mode: LadderMode) -> Rung {
    ladder_with(signals, mode, &signals.ladder_hint)
}

/// [`ladder`] with a verdict from elsewhere (a triager command) in place of the reader's hint.
/// The same limits hold: a verdict cannot promote an unknown format, a design decision, a vague
/// fix or a change to several files.
pub fn ladder_with(signals: &Signals, mode: LadderMode, verdict: &LadderHint) -> Rung {
    if mode == LadderMode::Off
        || !signals.format_known
        || signals.design_decision
        || !signals.concreteness.is_concrete()
        || signals.scope != crate::signals::Scope::SingleFile
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
    fn medium_is_ambiguous_unless_convergent() {
        let s = Signals {
            severity: Severity::Medium,
            ..high_concrete()
        };
        assert_eq!(classify(&s, false).class, Class::Ambiguous);
        assert_eq!(classify(&s, true).class, Class::Actionable);
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
