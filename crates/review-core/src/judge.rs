//! The judge: the user's own command deciding the judgement calls of triage, within the hard
//! gates no answer overrides.
//!
//! The reader's signals and the rules in [`crate::rules`] give every bot thread a class. Some of
//! that is judgement (is it serious enough, is the fix clear, is it local, does it need a design
//! decision, is it noise), and a judge (a coding agent, a script: `--judge-cmd`) may decide those.
//! Some of it is not: the **hard gates**, one list shared by `triage`, the loop, `decide` and the
//! tool server, hold whatever any answer says:
//!
//! - a person took part, an author could not be placed, not every comment was read, a thread
//!   reopened after the tool resolved it, a path with a control character ([`crate::gate`]'s
//!   `may_act`: such threads are never handed to a judge at all);
//! - a fix on a deny-listed path or one outside the repository (the planner and the VCS port);
//! - a fix carrying a deny-listed action ([`denied_action`]: `git push`, `--force`, `rm -rf`,
//!   branch deletion, ...);
//! - a security-sensitive finding ([`crate::signals::Signals::security`]): a person decides;
//! - an unknown format, or a post that is not a finding (a summary, a quota notice), is never
//!   actionable;
//! - a finding the bot states as critical or high is never dismissed as a nit on the judge's word
//!   alone (it needs the reader's "already addressed" or "not a finding" signal);
//! - a finding below the user's severity floor (`judge.min-severity`, the user's own file only)
//!   is never made actionable by a judge.
//!
//! A judge that fails, times out or answers out of shape changes nothing: a thread on the ladder
//! becomes stop-and-ask, any other keeps the reader's class.

use serde::{Deserialize, Serialize};

use crate::model::ThreadId;
use crate::plan::Plan;
use crate::rules::{Class, Classification};
use crate::signals::{LadderHint, Severity, SignalSet, Signals};

/// Actions a fix must never take on a comment's or a judge's say-so.
const DENIED_ACTIONS: &[&str] = &[
    "git push",
    "push --force",
    "force-push",
    "force push",
    "--force",
    "git reset --hard",
    "rm -rf",
    "rm -fr",
    "git branch -d",
    "git branch -D",
    "git push --delete",
    "delete the branch",
    "drop table",
    "drop database",
];

/// The deny-listed action `text` (a fix: a suggestion, a diff, a fix sketch) carries, if any.
///
/// ```
/// use review_core::judge::denied_action;
///
/// assert_eq!(denied_action("then `git push --force origin main`"), Some("git push"));
/// assert_eq!(denied_action("return x.get(i)"), None);
/// ```
pub fn denied_action(text: &str) -> Option<&'static str> {
    let lower = text.to_lowercase();
    DENIED_ACTIONS
        .iter()
        .find(|a| lower.contains(&a.to_lowercase()))
        .copied()
}

/// What a judge answered for one thread of a triage.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Answer {
    /// The class it gives.
    pub class: Class,
    /// Why, in one line. Empty only for the older triager answer (a rung alone), which judges
    /// only a thread the reader left ambiguous.
    pub reason: String,
    /// For an ambiguous thread: the rung (`None` reads as stop-and-ask).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rung: Option<LadderHint>,
}

/// A judge's answer, or why there is none.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Verdict {
    /// The judge answered.
    Answered(Answer),
    /// It failed, timed out, or answered out of shape: why, one line.
    Failed(String),
}

/// What the judge's answer came to, for the report: the answer (or its failure) and the hard gate
/// that overrode it, if one did.
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct JudgeReport {
    /// The class the judge gave (none when it failed).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub class: Option<Class>,
    /// Its reason, or why it gave no answer.
    pub reason: String,
    /// The rung it gave an ambiguous thread.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rung: Option<String>,
    /// The hard gate that overrode its answer, if one did.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub gate: Option<String>,
    /// Whether it failed (timed out, answered out of shape): then the reader's class stands.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub failed: bool,
}

/// Reads a judge's raw answer for a triage: `{"class", "reason", "rung"?, "alternative"?}`, or
/// the older triager shape `{"rung", "alternative"?}` (read as an ambiguous thread's rung). The
/// object may stand alone, in a fenced block, or after some prose. Anything else is out of
/// shape: the error says why, in one line.
///
/// ```
/// use review_core::judge::parse_answer;
/// use review_core::rules::Class;
///
/// let a = parse_answer(r#"{"class": "nit", "reason": "naming only"}"#).unwrap();
/// assert_eq!(a.class, Class::Nit);
/// let old = parse_answer(r#"{"rung": "just-do-it"}"#).unwrap();
/// assert_eq!(old.class, Class::Ambiguous);
/// assert!(parse_answer("sure, fix it").is_err());
/// ```
pub fn parse_answer(raw: &str) -> Result<Answer, String> {
    let text = raw.trim();
    if text.is_empty() {
        return Err("answered nothing".to_owned());
    }
    let json =
        crate::decisions::json_object(text).ok_or_else(|| "answered no JSON object".to_owned())?;
    let value: serde_json::Value =
        serde_json::from_str(json).map_err(|e| format!("answered malformed JSON: {e}"))?;
    let object = value
        .as_object()
        .ok_or_else(|| "answered JSON that is not an object".to_owned())?;
    let text_of = |key: &str| -> Result<Option<String>, String> {
        match object.get(key) {
            None | Some(serde_json::Value::Null) => Ok(None),
            Some(serde_json::Value::String(s)) => Ok(Some(s.trim().to_owned())),
            Some(_) => Err(format!("answered a `{key}` that is not a string")),
        }
    };
    let one_line =
        |s: &str| -> String { s.lines().next().unwrap_or("").chars().take(300).collect() };
    let rung = match text_of("rung")?.as_deref() {
        None => None,
        Some("just-do-it") => Some(LadderHint::JustDoIt),
        Some("stop-and-ask") => Some(LadderHint::StopAndAsk),
        Some("recommend-and-ask") => {
            let alternative = text_of("alternative")?
                .filter(|a| !a.is_empty())
                .ok_or_else(|| "answered recommend-and-ask without the alternative".to_owned())?;
            Some(LadderHint::RecommendAndAsk {
                alternative: one_line(&alternative),
            })
        }
        Some(other) => return Err(format!("answered an unknown rung {other:?}")),
    };
    let class = match text_of("class")?.map(|c| c.to_ascii_lowercase()).as_deref() {
        Some("actionable") => Class::Actionable,
        Some("nit") => Class::Nit,
        Some("ambiguous") => Class::Ambiguous,
        Some(other) => return Err(format!("answered an unknown class {other:?}")),
        // The older triager shape: a rung alone judges an ambiguous thread.
        None if rung.is_some() => {
            return Ok(Answer {
                class: Class::Ambiguous,
                reason: String::new(),
                rung,
            });
        }
        None => return Err("answered no `class`".to_owned()),
    };
    let reason = text_of("reason")?
        .filter(|r| !r.is_empty())
        .ok_or_else(|| "answered a class without a `reason`".to_owned())?;
    Ok(Answer {
        class,
        reason: one_line(&reason),
        rung: if class == Class::Ambiguous {
            rung
        } else {
            None
        },
    })
}

/// The class a thread ends with once its judge was heard, and the rung for an ambiguous one.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Judged {
    /// The class and its reason.
    pub classification: Classification,
    /// For an ambiguous thread, the judge's rung (`None`: the built-in ladder places it).
    pub rung: Option<LadderHint>,
    /// What to report.
    pub report: JudgeReport,
}

/// The fix a finding carries, as text (its suggestion or diff), for [`denied_action`].
fn fix_text(signals: &Signals) -> String {
    let mut text = String::new();
    if let crate::signals::Concreteness::Suggestion(s) = &signals.concreteness {
        text.push_str(&s.replacement);
    }
    if let Some(patch) = &signals.patch {
        text.push('\n');
        text.push_str(patch);
    }
    text
}

/// The hard gate that stops `signals` being fixed or dismissed on any judge's word, if one does,
/// whatever the answer (the gates that depend on the answer are in [`apply`]). The judge is
/// never asked about such a thread ([`candidates`]).
pub fn hard_gate(signals: &Signals) -> Option<String> {
    if let Some(mark) = &signals.security {
        return Some(format!("security-sensitive ({mark}): a person decides"));
    }
    if let Some(action) = denied_action(&fix_text(signals)) {
        return Some(format!("the fix carries a deny-listed action ({action})"));
    }
    None
}

/// Applies `verdict` (the judge's answer for a thread whose signals are `signals` and whose
/// reader class is `reader`) within the hard gates. `floor` is the user's severity floor.
pub fn apply(
    signals: &Signals,
    reader: &Classification,
    verdict: &Verdict,
    floor: Option<Severity>,
) -> Judged {
    let keep = |report: JudgeReport, rung: Option<LadderHint>| Judged {
        classification: reader.clone(),
        rung,
        report,
    };
    let answer = match verdict {
        Verdict::Failed(why) => {
            // A thread on the ladder becomes stop-and-ask; any other keeps the reader's class.
            let rung = (reader.class == Class::Ambiguous).then_some(LadderHint::StopAndAsk);
            return keep(
                JudgeReport {
                    class: None,
                    reason: why.clone(),
                    rung: None,
                    gate: None,
                    failed: true,
                },
                rung,
            );
        }
        Verdict::Answered(a) => a,
    };
    // The older triager answer (a rung, no class: its reason is empty) judges only what the
    // reader left ambiguous.
    if answer.reason.is_empty() && reader.class != Class::Ambiguous {
        return keep(
            JudgeReport {
                class: None,
                reason: "a rung alone judges only an ambiguous thread".to_owned(),
                rung: answer.rung.as_ref().map(|r| rung_name(r).to_owned()),
                gate: None,
                failed: false,
            },
            None,
        );
    }
    let report = |gate: Option<String>| JudgeReport {
        class: Some(answer.class),
        reason: answer.reason.clone(),
        rung: answer.rung.as_ref().map(|r| rung_name(r).to_owned()),
        gate,
        failed: false,
    };
    let gated = |gate: String| {
        let rung = (reader.class == Class::Ambiguous).then_some(LadderHint::StopAndAsk);
        Judged {
            classification: if reader.class == Class::Actionable {
                // The gate stops a fix on the judge's word; it does not make the reader's own
                // fix safe either when the gate is about the fix itself.
                Classification {
                    class: Class::Ambiguous,
                    reason: gate.clone(),
                }
            } else {
                reader.clone()
            },
            rung,
            report: report(Some(gate)),
        }
    };
    if let Some(gate) = hard_gate(signals) {
        return gated(gate);
    }
    let reason = answer.reason.lines().next().unwrap_or("").trim();
    let said = |what: &str| {
        if reason.is_empty() {
            format!("the judge: {what}")
        } else {
            format!("the judge: {reason}")
        }
    };
    match answer.class {
        Class::Actionable => {
            if signals.non_finding.is_some() {
                return keep(
                    report(Some(
                        "a post that is not a finding is never fixed".to_owned(),
                    )),
                    (reader.class == Class::Ambiguous).then_some(LadderHint::StopAndAsk),
                );
            }
            if !signals.format_known {
                return keep(
                    report(Some("an unknown format is never actionable".to_owned())),
                    (reader.class == Class::Ambiguous).then_some(LadderHint::StopAndAsk),
                );
            }
            if let Some(floor) = floor
                && !signals.serious
                && rank(signals.severity) < rank(floor)
            {
                return keep(
                    report(Some(format!(
                        "below your severity floor ({})",
                        floor.as_str()
                    ))),
                    (reader.class == Class::Ambiguous).then_some(LadderHint::StopAndAsk),
                );
            }
            Judged {
                classification: Classification {
                    class: Class::Actionable,
                    reason: said("a real defect with a clear, local fix"),
                },
                rung: None,
                report: report(None),
            }
        }
        Class::Nit => {
            let dismissible = signals.already_addressed || signals.non_finding.is_some();
            if signals.severity.is_high() && !dismissible {
                return keep(
                    report(Some(format!(
                        "a {} finding is not dismissed on the judge's word alone",
                        signals.severity.as_str()
                    ))),
                    (reader.class == Class::Ambiguous).then_some(LadderHint::StopAndAsk),
                );
            }
            Judged {
                classification: Classification {
                    class: Class::Nit,
                    reason: said("noise, resolved without a fix"),
                },
                rung: None,
                report: report(None),
            }
        }
        Class::Ambiguous => {
            let rung = if signals.format_known {
                answer.rung.clone().unwrap_or(LadderHint::StopAndAsk)
            } else {
                LadderHint::StopAndAsk
            };
            Judged {
                classification: Classification {
                    class: Class::Ambiguous,
                    reason: said("a judgement call"),
                },
                rung: Some(rung),
                report: report(
                    (!signals.format_known && answer.rung.is_some())
                        .then(|| "an unknown format is never promoted".to_owned()),
                ),
            }
        }
    }
}

/// Whether the judge is asked about a thread with these signals at all: never about one a hard
/// gate stops whatever it says, nor about a post that is not a finding.
fn worth_asking(sig: &Signals) -> bool {
    sig.non_finding.is_none() && hard_gate(sig).is_none()
}

/// The threads of `plan` to ask the judge about, the ambiguous first (where its answer decides
/// most), then the actionable, then the nits: bot threads the gate lets the tool act on, that
/// the reader classified, that are no duplicate, and that no hard gate stops anyway.
pub fn candidates(plan: &Plan, signals: &SignalSet) -> Vec<ThreadId> {
    let mut out: Vec<(u8, ThreadId)> = plan
        .threads
        .iter()
        .filter_map(|p| {
            let r = &p.report;
            let class = r.class?;
            // A thread an earlier pass deferred is not triaged again: its class is the reader's.
            if r.human
                || r.duplicate_of.is_some()
                || r.deferred_because == Some(crate::report::DeferReason::Earlier)
            {
                return None;
            }
            let sig = signals.threads.get(&r.id)?;
            worth_asking(sig).then(|| {
                let order = match class {
                    Class::Ambiguous => 0,
                    Class::Actionable => 1,
                    Class::Nit => 2,
                };
                (order, r.id.clone())
            })
        })
        .collect();
    out.sort_by_key(|(order, _)| *order);
    out.into_iter().map(|(_, id)| id).collect()
}

/// The name of a rung, as reports write it.
pub fn rung_name(hint: &LadderHint) -> &'static str {
    match hint {
        LadderHint::JustDoIt => "just-do-it",
        LadderHint::RecommendAndAsk { .. } => "recommend-and-ask",
        LadderHint::StopAndAsk => "stop-and-ask",
    }
}

/// Severities in order, for the floor.
fn rank(s: Severity) -> u8 {
    match s {
        Severity::None | Severity::Nit => 0,
        Severity::Low => 1,
        Severity::Medium => 2,
        Severity::High => 3,
        Severity::Critical => 4,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::signals::{Concreteness, Scope, Suggestion};

    fn signals() -> Signals {
        Signals {
            family: Some("coderabbit".to_owned()),
            format_known: true,
            title: "Off by one".to_owned(),
            severity: Severity::Medium,
            concreteness: Concreteness::Vague,
            scope: Scope::SingleFile,
            ..Signals::unknown("")
        }
    }

    fn answer(class: Class, rung: Option<LadderHint>) -> Verdict {
        Verdict::Answered(Answer {
            class,
            reason: "because".to_owned(),
            rung,
        })
    }

    fn reader(class: Class) -> Classification {
        Classification {
            class,
            reason: "reader".to_owned(),
        }
    }

    #[test]
    fn the_judge_decides_the_judgement_calls() {
        let j = apply(
            &signals(),
            &reader(Class::Ambiguous),
            &answer(Class::Actionable, None),
            None,
        );
        assert_eq!(j.classification.class, Class::Actionable);
        assert_eq!(j.classification.reason, "the judge: because");
        assert_eq!(j.report.gate, None);
        let j = apply(
            &signals(),
            &reader(Class::Ambiguous),
            &answer(Class::Ambiguous, Some(LadderHint::JustDoIt)),
            None,
        );
        assert_eq!(j.rung, Some(LadderHint::JustDoIt));
    }

    #[test]
    fn answers_are_read_strictly() {
        let a = parse_answer(
            "Looking at the code...\n```json\n{\"class\": \"ambiguous\", \"reason\": \"a trade-off\", \"rung\": \"recommend-and-ask\", \"alternative\": \"return 204\"}\n```",
        )
        .unwrap();
        assert_eq!(a.class, Class::Ambiguous);
        assert_eq!(
            a.rung,
            Some(LadderHint::RecommendAndAsk {
                alternative: "return 204".to_owned()
            })
        );
        let a = parse_answer(
            r#"{"class": "Actionable", "reason": "off by one", "rung": "just-do-it"}"#,
        )
        .unwrap();
        assert_eq!((a.class, a.rung), (Class::Actionable, None));
        assert_eq!(
            parse_answer(r#"{"rung": "stop-and-ask"}"#).unwrap().rung,
            Some(LadderHint::StopAndAsk)
        );
        for bad in [
            "",
            "yes",
            "just-do-it",
            r#"{"rung": "maybe"}"#,
            r#"{"rung": "recommend-and-ask"}"#,
            r#"{"class": "fix it", "reason": "x"}"#,
            r#"{"class": "nit"}"#,
            r#"{"class": "nit", "reason": ""}"#,
            r#"{"class": 3, "reason": "x"}"#,
            r#"["nit"]"#,
        ] {
            assert!(parse_answer(bad).is_err(), "{bad:?}");
        }
    }

    #[test]
    fn a_failed_judge_changes_nothing() {
        for class in [Class::Actionable, Class::Nit, Class::Ambiguous] {
            let j = apply(
                &signals(),
                &reader(class),
                &Verdict::Failed("timed out".to_owned()),
                None,
            );
            assert_eq!(j.classification, reader(class));
            assert!(j.report.failed);
            let expected = (class == Class::Ambiguous).then_some(LadderHint::StopAndAsk);
            assert_eq!(j.rung, expected);
        }
    }

    #[test]
    fn the_hard_gates_hold_whatever_the_answer() {
        let security = Signals {
            security: Some("Gemini security-high-priority badge".to_owned()),
            ..signals()
        };
        let unknown = Signals {
            format_known: false,
            ..signals()
        };
        let high = Signals {
            severity: Severity::High,
            ..signals()
        };
        let pushes = Signals {
            concreteness: Concreteness::Suggestion(Suggestion {
                lines: None,
                replacement: "run(\"git push --force\")".to_owned(),
            }),
            ..signals()
        };
        for verdict in [
            answer(Class::Actionable, None),
            answer(Class::Nit, None),
            answer(Class::Ambiguous, Some(LadderHint::JustDoIt)),
        ] {
            let j = apply(&security, &reader(Class::Ambiguous), &verdict, None);
            assert_eq!(j.classification.class, Class::Ambiguous);
            assert_eq!(j.rung, Some(LadderHint::StopAndAsk));
            assert!(j.report.gate.is_some());
            let j = apply(&pushes, &reader(Class::Actionable), &verdict, None);
            assert_eq!(j.classification.class, Class::Ambiguous, "{verdict:?}");
            let j = apply(&unknown, &reader(Class::Ambiguous), &verdict, None);
            assert_ne!(j.classification.class, Class::Actionable);
            assert!(j.rung.is_none_or(|r| r == LadderHint::StopAndAsk));
        }
        let j = apply(
            &high,
            &reader(Class::Actionable),
            &answer(Class::Nit, None),
            None,
        );
        assert_eq!(j.classification.class, Class::Actionable, "not dismissed");
        let addressed = Signals {
            already_addressed: true,
            ..high
        };
        let j = apply(
            &addressed,
            &reader(Class::Nit),
            &answer(Class::Nit, None),
            None,
        );
        assert_eq!(j.classification.class, Class::Nit);
        let low = Signals {
            severity: Severity::Low,
            ..signals()
        };
        let j = apply(
            &low,
            &reader(Class::Nit),
            &answer(Class::Actionable, None),
            Some(Severity::Medium),
        );
        assert_eq!(j.classification.class, Class::Nit, "below the floor");
    }
}
