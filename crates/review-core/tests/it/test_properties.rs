//! Properties over generated pull requests: the invariants that make the product.

use proptest::prelude::*;
use review_core::execute::{Workspace, check_plan, execute};
use review_core::judge::{Verdict, hard_gate};
use review_core::plan::{Action, TriageSettings, plan};
use review_core::report::{Outcome, Report};
use review_core::rules::Class;
use review_test_support::strategy::triage_input;
use review_test_support::{FakeHost, FakeVcs, Mutation};

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    /// No plan ever contains an action on a human thread, a thread read in part, or a thread
    /// that is resolved or outdated.
    #[test]
    fn plans_never_act_on_human_or_partly_read_threads((pr, signals, settings) in triage_input(24)) {
        let plan = plan(&pr, &signals, &settings);
        for p in plan.threads.iter().filter(|p| p.action.mutates()) {
            let thread = pr.thread(&p.report.id).expect("planned threads come from the PR");
            prop_assert!(!settings.automation.thread_is_human(thread, &pr), "acts on human thread {}", thread.id);
            prop_assert!(thread.all_comments_read, "acts on partly read thread {}", thread.id);
            prop_assert!(!thread.is_resolved);
            // An outdated thread is touched only to resolve it because its own fix landed.
            prop_assert!(
                !thread.is_outdated
                    || (p.action == Action::Resolve && settings.history.landed.contains_key(&thread.id))
            );
            prop_assert!(!p.report.human);
        }
        prop_assert!(check_plan(&pr, &plan, &settings).is_ok());
    }

    /// The one "may act" check and what is shown as "human" agree on every thread, whichever the
    /// tool resolved before: a thread the tool may act on is nobody's; one left to a person is
    /// exactly one with a person or an unplaced author, no comment, a part unread, or reopened
    /// after the tool resolved it; and the plan's reports and the follow-up's issues call "human"
    /// just those threads.
    #[test]
    fn may_act_and_left_to_a_person_agree(
        (pr, signals, mut settings) in triage_input(24),
        resolved_before in prop::collection::vec(any::<bool>(), 24),
    ) {
        for (t, before) in pr.threads.iter().zip(resolved_before) {
            if before {
                settings.automation.resolved_by_tool.insert(t.id.clone());
            }
        }
        let gate = &settings.automation;
        let plan = plan(&pr, &signals, &settings);
        let issues = review_core::followup::collect(&pr, &signals, gate);
        for t in &pr.threads {
            let person = gate.left_to_a_person(t, &pr);
            let reopened = !t.is_resolved && gate.resolved_by_tool.contains(&t.id);
            prop_assert_eq!(
                person,
                gate.thread_is_human(t, &pr) || !t.all_comments_read || reopened,
                "thread {}", t.id
            );
            if gate.may_act(t, &pr).is_ok() {
                prop_assert!(!person, "acts on {}, a person's", t.id);
            }
            if let Some(p) = plan.threads.iter().find(|p| p.report.id == t.id) {
                prop_assert_eq!(p.report.human, person, "report of {}", t.id);
            }
            if let Some(i) = issues.iter().find(|i| i.thread_id == t.id.0) {
                prop_assert_eq!(i.human, person, "issue of {}", t.id);
            }
        }
    }

    /// Every unresolved thread gets exactly one outcome and the counts reconcile.
    #[test]
    fn outcome_counts_always_reconcile((pr, signals, settings) in triage_input(24)) {
        let plan = plan(&pr, &signals, &settings);
        let report = plan.report(&pr).expect("a plan always reconciles");
        let unresolved = pr.unresolved_threads().count();
        let current = pr.unresolved_threads().filter(|t| !t.is_outdated).count();
        prop_assert_eq!(report.threads.len(), unresolved);
        prop_assert_eq!(report.counts.handled(), current);
        prop_assert_eq!(report.counts.outdated, unresolved - current);
        prop_assert!(report.check().is_ok());
        // Round trip through the public JSON form.
        let json = serde_json::to_string(&report).unwrap();
        let back: Report = serde_json::from_str(&json).unwrap();
        prop_assert!(back.check().is_ok());
        prop_assert_eq!(back, report);
    }

    /// No judge's answer (the settings carry answers of every class and rung, and failures, for
    /// any thread, human and partly read ones included: a judge that obeys a hostile body
    /// answers anything) gets past a hard gate: a security-sensitive finding or a fix carrying a
    /// deny-listed action is never fixed and ends as it would with no judge, an unknown format or a post that is not a
    /// finding is never made actionable, a bot-stated critical or high finding is not dismissed
    /// on the judge's word, and a failed judge changes no outcome.
    #[test]
    fn no_judge_answer_gets_past_a_hard_gate((pr, signals, settings) in triage_input(24)) {
        let judged = plan(&pr, &signals, &settings);
        let unjudged = plan(&pr, &signals, &TriageSettings { judged: Default::default(), ..settings.clone() });
        for (p, u) in judged.threads.iter().zip(&unjudged.threads) {
            prop_assert_eq!(&p.report.id, &u.report.id);
            let thread = pr.thread(&p.report.id).expect("planned threads come from the PR");
            let answer = settings.judged.get(&p.report.id);
            // A fix of the tool's own already made is history, not judgement.
            let fixed = settings.history.landed.contains_key(&thread.id)
                || settings.history.pending.contains_key(&thread.id);
            if thread.is_outdated || p.report.duplicate_of.is_some() || fixed {
                continue;
            }
            if p.report.human || !thread.all_comments_read {
                prop_assert_eq!(&p.action, &Action::Leave);
                prop_assert!(p.report.judge.is_none(), "a judge's answer counted on a refused thread");
                continue;
            }
            let Some(sig) = signals.threads.get(&p.report.id) else { continue };
            if hard_gate(sig).is_some() {
                // Never fixed, and whatever the judge said, the outcome the reader's own rules
                // give (an already-addressed one resolves; the rest wait for a person).
                prop_assert!(!matches!(p.action, Action::Fix(_)), "{:?} {:?}", sig, answer);
                prop_assert_eq!(&p.action, &u.action, "{:?} {:?}", sig, answer);
                prop_assert_eq!(p.report.outcome, u.report.outcome);
            }
            if !sig.format_known || sig.non_finding.is_some() {
                prop_assert_ne!(p.report.class, Some(Class::Actionable).filter(|_| u.report.class != Some(Class::Actionable)));
                prop_assert!(!matches!(p.action, Action::Fix(_)) || matches!(u.action, Action::Fix(_)));
            }
            if sig.severity.is_high()
                && !sig.already_addressed
                && sig.non_finding.is_none()
                && u.action != Action::Resolve
            {
                prop_assert_ne!(&p.action, &Action::Resolve, "a {:?} finding dismissed on the judge's word", sig.severity);
            }
            if matches!(answer, Some(Verdict::Failed(_))) || answer.is_none() {
                prop_assert_eq!(p.report.outcome, u.report.outcome);
                prop_assert_eq!(p.report.class, u.report.class);
            }
        }
    }

    /// A thread whose fix is already committed is never fixed again.
    #[test]
    fn committed_fixes_are_never_made_twice((pr, signals, settings) in triage_input(24)) {
        let plan = plan(&pr, &signals, &settings);
        for p in &plan.threads {
            if settings.history.landed.contains_key(&p.report.id) || settings.history.pending.contains_key(&p.report.id) {
                prop_assert!(!matches!(p.action, Action::Fix(_)), "{:?}", p);
            }
        }
    }

    /// Threads an earlier pass deferred are not triaged again.
    #[test]
    fn earlier_deferrals_stay_deferred((pr, signals, settings) in triage_input(24)) {
        let plan = plan(&pr, &signals, &settings);
        for p in plan.threads.iter().filter(|p| settings.deferred.contains(&p.report.id)) {
            let outdated = pr.thread(&p.report.id).unwrap().is_outdated;
            prop_assert_eq!(p.report.outcome, if outdated { Outcome::Outdated } else { Outcome::Deferred });
            if !outdated {
                prop_assert_eq!(&p.action, &Action::Leave);
            }
        }
    }

    /// Human threads are deferred, whatever their signals say.
    #[test]
    fn human_threads_are_deferred_untouched((pr, signals, settings) in triage_input(24)) {
        let plan = plan(&pr, &signals, &settings);
        for p in &plan.threads {
            let thread = pr.thread(&p.report.id).unwrap();
            if settings.automation.thread_is_human(thread, &pr) && !thread.is_outdated {
                prop_assert_eq!(p.report.outcome, Outcome::Deferred);
                prop_assert_eq!(&p.action, &Action::Leave);
                prop_assert!(p.report.class.is_none());
            }
        }
    }

    /// Carrying a plan out never mutates a human or partly read thread on the host, and the
    /// executed report reconciles too.
    #[test]
    fn execution_never_mutates_human_or_partly_read_threads((pr, signals, settings) in triage_input(16)) {
        let rt = tokio::runtime::Builder::new_current_thread().build().unwrap();
        let plan = plan(&pr, &signals, &settings);
        let host = FakeHost::new(pr.clone());
        let vcs = FakeVcs::new(
            pr.head_sha.0.as_str(),
            &[("src/lib.rs", &"line\n".repeat(210)), ("src/main.rs", &"x\n".repeat(210))],
        );
        let ws = Workspace { vcs: &vcs, fixer: None };
        let execution = rt.block_on(execute(&pr, &plan, &settings, &host, Some(ws))).expect("plans from the planner execute");
        for m in host.mutations() {
            let id = match &m {
                Mutation::Resolve(id) | Mutation::Unresolve(id) | Mutation::Reply(id, _) => id.clone(),
                Mutation::Minimize(_) => continue,
                Mutation::Comment(_) => {
                    prop_assert!(false, "triage never comments");
                    continue;
                }
                Mutation::RequestReview(_) => {
                    prop_assert!(false, "triage never requests reviews");
                    continue;
                }
            };
            let thread = pr.thread(&id).unwrap();
            prop_assert!(!settings.automation.thread_is_human(thread, &pr));
            prop_assert!(thread.all_comments_read);
            prop_assert!(!matches!(m, Mutation::Reply(..)), "triage never replies");
        }
        prop_assert_eq!(execution.report.counts.handled(), pr.unresolved_threads().filter(|t| !t.is_outdated).count());
        // Every commit touches only the file of the thread it fixes.
        for c in vcs.commits() {
            prop_assert_eq!(c.paths.len(), 1);
            prop_assert!(c.message.contains("Review-Thread: PRRT_"));
        }
    }
}
