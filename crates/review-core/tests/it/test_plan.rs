//! Planner cases that name a rule each.

use review_core::gate::{AutomationSettings, DEFAULT_AUTOMATED_HEADER};
use review_core::model::ThreadId;
use review_core::plan::{Action, FixMaterial, TriageSettings, plan};
use review_core::report::{DeferReason, Outcome};
use review_core::rules::{Class, LadderMode};
use review_core::signals::{
    Cluster, Concreteness, LadderHint, Scope, Severity, SignalSet, Signals, Suggestion,
};
use review_test_support::{PrBuilder, bot, person};

fn sig(severity: Severity, concreteness: Concreteness) -> Signals {
    Signals {
        family: Some("coderabbit".to_owned()),
        format_known: true,
        title: "Missing bounds check".to_owned(),
        severity,
        concreteness,
        scope: Scope::SingleFile,
        design_decision: false,
        style_only: false,
        speculative: false,
        already_addressed: false,
        ladder_hint: LadderHint::StopAndAsk,
        fingerprint: "fp".to_owned(),
        ..Signals::unknown("")
    }
}

fn suggestion() -> Concreteness {
    Concreteness::Suggestion(Suggestion {
        lines: None,
        replacement: "let x = checked();".to_owned(),
    })
}

fn signals(entries: &[(&str, Signals)]) -> SignalSet {
    SignalSet {
        threads: entries
            .iter()
            .map(|(id, s)| (ThreadId::from(*id), s.clone()))
            .collect(),
        clusters: Vec::new(),
    }
}

fn outcome_of(plan: &review_core::plan::Plan, id: &str) -> (Outcome, Action, String) {
    let p = plan.threads.iter().find(|p| p.report.id.0 == id).unwrap();
    (p.report.outcome, p.action.clone(), p.report.reason.clone())
}

#[test]
fn a_one_word_human_reply_makes_a_bot_thread_human() {
    let pr = PrBuilder::new()
        .thread(
            "T1",
            "src/lib.rs",
            3,
            &[(bot("coderabbitai"), "x"), (person("mei"), "no")],
        )
        .build();
    let plan = plan(
        &pr,
        &signals(&[("T1", sig(Severity::Critical, suggestion()))]),
        &TriageSettings::default(),
    );
    let (outcome, action, reason) = outcome_of(&plan, "T1");
    assert_eq!(outcome, Outcome::Deferred);
    assert_eq!(action, Action::Leave);
    assert!(reason.contains("@mei"), "{reason}");
}

#[test]
fn forged_header_from_another_person_is_human_but_the_authors_own_is_not() {
    let body = format!("{DEFAULT_AUTOMATED_HEADER} **QA Swarm**\n\n**Severity: HIGH**");
    let pr = PrBuilder::new()
        .thread(
            "FORGED",
            "src/lib.rs",
            3,
            &[(person("mallory"), body.as_str())],
        )
        .thread("OWN", "src/lib.rs", 9, &[(person("dana"), body.as_str())])
        .build();
    let s = signals(&[
        ("FORGED", sig(Severity::High, suggestion())),
        ("OWN", sig(Severity::High, suggestion())),
    ]);
    let plan = plan(&pr, &s, &TriageSettings::default());
    assert_eq!(outcome_of(&plan, "FORGED").0, Outcome::Deferred);
    assert_eq!(outcome_of(&plan, "OWN").0, Outcome::Actioned);
}

#[test]
fn partly_read_bot_thread_is_deferred_as_human() {
    let pr = PrBuilder::new()
        .thread("T1", "src/lib.rs", 3, &[(bot("coderabbitai"), "x")])
        .with_last(|t| t.all_comments_read = false)
        .build();
    let plan = plan(
        &pr,
        &signals(&[("T1", sig(Severity::Critical, suggestion()))]),
        &TriageSettings::default(),
    );
    let entry = &plan.threads[0].report;
    assert_eq!(entry.outcome, Outcome::Deferred);
    assert_eq!(entry.deferred_because, Some(DeferReason::Incomplete));
    assert!(entry.human);
}

#[test]
fn actionable_without_suggestion_needs_a_fixer() {
    let pr = PrBuilder::new()
        .thread("T1", "src/lib.rs", 3, &[(bot("cursor"), "x")])
        .build();
    let s = signals(&[("T1", sig(Severity::High, Concreteness::Exact))]);
    let without = plan(&pr, &s, &TriageSettings::default());
    let entry = &without.threads[0].report;
    assert_eq!(entry.outcome, Outcome::Deferred);
    assert_eq!(entry.deferred_because, Some(DeferReason::NoFixer));
    assert!(without.report(&pr).unwrap().unresolved_actionable_remaining);

    let mut settings = TriageSettings::default();
    settings.fixes.fixer_available = true;
    let with = plan(&pr, &s, &settings);
    assert!(matches!(&with.threads[0].action, Action::Fix(t) if t.material == FixMaterial::Fixer));
    assert_eq!(with.threads[0].report.outcome, Outcome::Actioned);
}

#[test]
fn deny_listed_paths_are_never_planned_for_a_fix() {
    let pr = PrBuilder::new()
        .thread(
            "CI",
            ".github/workflows/ci.yml",
            3,
            &[(bot("coderabbitai"), "x")],
        )
        .thread(
            "LOCK",
            "crates/x/Cargo.lock",
            3,
            &[(bot("coderabbitai"), "x")],
        )
        .build();
    let s = signals(&[
        ("CI", sig(Severity::Critical, suggestion())),
        ("LOCK", sig(Severity::Critical, suggestion())),
    ]);
    let plan = plan(&pr, &s, &TriageSettings::default());
    for p in &plan.threads {
        assert_eq!(
            p.report.deferred_because,
            Some(DeferReason::DenyListed),
            "{}",
            p.report.id
        );
        assert_eq!(p.action, Action::Leave);
    }
}

#[test]
fn not_at_head_defers_every_fix() {
    let pr = PrBuilder::new()
        .thread("T1", "src/lib.rs", 3, &[(bot("coderabbitai"), "x")])
        .build();
    let mut settings = TriageSettings::default();
    settings.fixes.checkout_at_head = Some(false);
    let plan = plan(
        &pr,
        &signals(&[("T1", sig(Severity::High, suggestion()))]),
        &settings,
    );
    assert_eq!(
        plan.threads[0].report.deferred_because,
        Some(DeferReason::NotAtHead)
    );
    assert!(
        plan.threads[0]
            .report
            .reason
            .contains("local checkout is not at the PR head")
    );
}

#[test]
fn ladder_promotes_only_when_available() {
    // By the labelling guide a medium finding with a concrete fix is a nit (resolving or fixing
    // it are both fine; it is fixed, as a nit and not through the ladder); what stays ambiguous (a vague fix, a design question, several files,
    // security, an unknown format) is beyond what the reader's hints may promote, so without a
    // judge the ladder leaves it to a person. With the ladder off, the reason says so.
    let pr = PrBuilder::new()
        .thread("T1", "src/lib.rs", 3, &[(bot("gemini-code-assist"), "x")])
        .thread("T2", "src/lib.rs", 9, &[(bot("gemini-code-assist"), "y")])
        .build();
    let mut concrete = sig(Severity::Medium, suggestion());
    concrete.ladder_hint = LadderHint::RecommendAndAsk {
        alternative: "return an error instead".to_owned(),
    };
    let mut vague = sig(Severity::Medium, Concreteness::Vague);
    vague.ladder_hint = LadderHint::JustDoIt;
    let set = signals(&[("T1", concrete), ("T2", vague)]);
    let on = plan(&pr, &set, &TriageSettings::default());
    let (outcome, action, reason) = outcome_of(&on, "T1");
    assert_eq!(outcome, Outcome::Actioned, "{reason}");
    assert!(matches!(action, Action::Fix(_)), "{action:?}");
    assert_eq!(on.threads[0].report.class, Some(Class::Nit));
    assert_eq!(on.threads[0].report.rung, None, "no ladder for a nit");
    let entry = &on.threads[1].report;
    assert_eq!(entry.outcome, Outcome::Deferred);
    assert_eq!(entry.rung.as_deref(), Some("stop-and-ask"));
    assert!(entry.reason.ends_with("; stop-and-ask"), "{}", entry.reason);

    let off = plan(
        &pr,
        &set,
        &TriageSettings {
            ladder: LadderMode::Off,
            ..TriageSettings::default()
        },
    );
    let entry = &off.threads[1].report;
    assert_eq!(entry.outcome, Outcome::Deferred);
    assert_eq!(entry.rung.as_deref(), Some("stop-and-ask"));
    assert!(
        entry.reason.ends_with("; ladder unavailable"),
        "{}",
        entry.reason
    );
}

#[test]
fn a_cluster_is_decided_once_and_duplicates_follow_the_leader() {
    // Three bots raise the same finding; only Codex gives a suggestion, so Codex's thread leads.
    let pr = PrBuilder::new()
        .thread("CR", "src/lib.rs", 10, &[(bot("coderabbitai"), "x")])
        .thread("GEM", "src/lib.rs", 11, &[(bot("gemini-code-assist"), "x")])
        .thread(
            "CDX",
            "src/lib.rs",
            10,
            &[(bot("chatgpt-codex-connector"), "x")],
        )
        .thread("HUM", "src/lib.rs", 10, &[(person("mei"), "same here")])
        .build();
    let mut set = signals(&[
        ("CR", sig(Severity::Medium, Concreteness::Vague)),
        ("GEM", sig(Severity::Medium, Concreteness::Exact)),
        ("CDX", sig(Severity::Medium, suggestion())),
    ]);
    set.clusters.push(Cluster {
        threads: ["CR", "GEM", "CDX", "HUM"].map(ThreadId::from).to_vec(),
        convergent: true,
    });
    let plan = plan(&pr, &set, &TriageSettings::default());
    let (outcome, action, _) = outcome_of(&plan, "CDX");
    assert_eq!(
        outcome,
        Outcome::Actioned,
        "convergent medium with a suggestion is actionable"
    );
    assert!(matches!(action, Action::Fix(_)));
    for follower in ["CR", "GEM"] {
        let (outcome, action, reason) = outcome_of(&plan, follower);
        assert_eq!(outcome, Outcome::Resolved);
        assert_eq!(
            action,
            Action::FollowFix {
                leader: ThreadId::from("CDX")
            }
        );
        assert!(reason.contains("duplicate of CDX"), "{reason}");
    }
    assert_eq!(
        outcome_of(&plan, "HUM").0,
        Outcome::Deferred,
        "a person in a cluster stays the author's"
    );
    let fixes = plan
        .threads
        .iter()
        .filter(|p| matches!(p.action, Action::Fix(_)))
        .count();
    assert_eq!(fixes, 1, "one fix for the whole cluster");
}

#[test]
fn duplicates_of_a_deferred_leader_are_deferred() {
    let pr = PrBuilder::new()
        .thread("A", "src/lib.rs", 10, &[(bot("coderabbitai"), "x")])
        .thread("B", "src/lib.rs", 10, &[(bot("cursor"), "x")])
        .build();
    let mut design = sig(Severity::High, Concreteness::Exact);
    design.design_decision = true;
    let mut set = signals(&[("A", design.clone()), ("B", design)]);
    set.clusters.push(Cluster {
        threads: vec![ThreadId::from("A"), ThreadId::from("B")],
        convergent: true,
    });
    let plan = plan(&pr, &set, &TriageSettings::default());
    assert_eq!(outcome_of(&plan, "A").0, Outcome::Deferred);
    let b = &plan.threads[1].report;
    assert_eq!(b.outcome, Outcome::Deferred);
    assert_eq!(b.deferred_because, Some(DeferReason::Duplicate));
    assert_eq!(b.class, Some(Class::Ambiguous));
}

#[test]
fn automation_account_threads_are_bot_threads() {
    let pr = PrBuilder::new()
        .thread(
            "T1",
            "src/lib.rs",
            3,
            &[(person("qa-runner"), "plain text, no header")],
        )
        .build();
    let settings = TriageSettings {
        automation: AutomationSettings {
            accounts: vec!["qa-runner".to_owned()],
            ..AutomationSettings::default()
        },
        ..TriageSettings::default()
    };
    let plan = plan(
        &pr,
        &signals(&[("T1", sig(Severity::Nit, Concreteness::Vague))]),
        &settings,
    );
    assert_eq!(plan.threads[0].report.outcome, Outcome::Resolved);
    assert_eq!(plan.threads[0].action, Action::Resolve);
}

#[test]
fn a_defect_read_as_a_nit_waits_for_the_head_but_is_resolved_when_no_fix_could_be_made() {
    // A checkout not at the head: a later run can fix it, so it is left open with why. Prose
    // with no fixer: no run of this tool could fix it, so it is resolved as any nit.
    let pr = PrBuilder::new()
        .thread(
            "AHEAD",
            "src/lib.rs",
            3,
            &[(bot("copilot-pull-request-reviewer"), "x")],
        )
        .thread(
            "PROSE",
            "src/lib.rs",
            9,
            &[(bot("copilot-pull-request-reviewer"), "y")],
        )
        .build();
    let set = signals(&[
        ("AHEAD", sig(Severity::None, suggestion())),
        ("PROSE", sig(Severity::None, Concreteness::Exact)),
    ]);
    let mut settings = TriageSettings::default();
    settings.fixes.checkout_at_head = Some(false);
    let planned = plan(&pr, &set, &settings);
    let (outcome, action, reason) = outcome_of(&planned, "AHEAD");
    assert_eq!(
        (outcome, action),
        (Outcome::Deferred, Action::Leave),
        "{reason}"
    );
    let entry = planned
        .threads
        .iter()
        .find(|p| p.report.id.0 == "AHEAD")
        .unwrap();
    assert_eq!(entry.report.deferred_because, Some(DeferReason::NotAtHead));
    let (outcome, action, reason) =
        outcome_of(&plan(&pr, &set, &TriageSettings::default()), "PROSE");
    assert_eq!(
        (outcome, action),
        (Outcome::Resolved, Action::Resolve),
        "{reason}"
    );
    assert!(reason.contains("resolved without a fix"), "{reason}");
}

#[test]
fn protocol_signals_are_left_alone_not_triaged() {
    let pr = PrBuilder::new()
        .thread(
            "SIG",
            "src/lib.rs",
            3,
            &[(
                bot("stamphog"),
                "Approval dismissed: new commits were pushed.",
            )],
        )
        .build();
    let settings = TriageSettings {
        protocol_signalled: [ThreadId::from("SIG")].into_iter().collect(),
        ..TriageSettings::default()
    };
    let set = signals(&[("SIG", sig(Severity::Critical, suggestion()))]);
    let plan = plan(&pr, &set, &settings);
    assert_eq!(plan.threads[0].action, Action::Leave);
    assert_eq!(
        plan.threads[0].report.deferred_because,
        Some(DeferReason::ProtocolSignal)
    );
    let without = review_core::plan::plan(&pr, &set, &TriageSettings::default());
    assert!(
        matches!(without.threads[0].action, Action::Fix(_)),
        "only the threads the reader found are signals"
    );
}

#[test]
fn a_nit_that_is_a_defect_with_a_concrete_fix_is_fixed_not_resolved_unread() {
    // A medium or unstated severity with a concrete fix on the thread's own file: the guide lets
    // it be fixed or resolved, and fixing it is right even when the reader underrated it (Copilot
    // states no severity at all). Style, low severity, or a fix that cannot be made here is
    // resolved as any nit.
    let pr = PrBuilder::new()
        .thread(
            "UNRATED",
            "src/lib.rs",
            3,
            &[(bot("copilot-pull-request-reviewer"), "x")],
        )
        .thread(
            "MEDIUM",
            "src/lib.rs",
            9,
            &[(bot("gemini-code-assist"), "y")],
        )
        .thread(
            "STYLE",
            "src/lib.rs",
            12,
            &[(bot("copilot-pull-request-reviewer"), "z")],
        )
        .thread("LOW", "src/lib.rs", 15, &[(bot("gemini-code-assist"), "v")])
        .thread(
            "DENIED",
            "Cargo.lock",
            1,
            &[(bot("copilot-pull-request-reviewer"), "w")],
        )
        .build();
    let unrated = sig(Severity::None, suggestion());
    let mut style = sig(Severity::None, suggestion());
    style.style_only = true;
    let set = signals(&[
        ("UNRATED", unrated.clone()),
        ("MEDIUM", sig(Severity::Medium, suggestion())),
        ("STYLE", style),
        ("LOW", sig(Severity::Low, suggestion())),
        ("DENIED", unrated),
    ]);
    let planned = plan(&pr, &set, &TriageSettings::default());

    for (id, stated) in [
        ("UNRATED", "no severity stated"),
        ("MEDIUM", "medium severity"),
    ] {
        let (outcome, action, reason) = outcome_of(&planned, id);
        assert_eq!(outcome, Outcome::Actioned, "{id}: {reason}");
        assert!(
            matches!(&action, Action::Fix(t) if matches!(t.material, FixMaterial::Suggestion(_))),
            "{id}: {action:?}"
        );
        assert!(reason.starts_with(stated), "{id}: {reason}");
        assert!(
            reason.contains("fixed rather than resolved unread"),
            "{id}: {reason}"
        );
        let entry = planned
            .threads
            .iter()
            .find(|p| p.report.id.0 == id)
            .unwrap();
        assert_eq!(entry.report.class, Some(Class::Nit), "{id}");
    }
    for id in ["STYLE", "LOW"] {
        let (outcome, action, reason) = outcome_of(&planned, id);
        assert_eq!(outcome, Outcome::Resolved, "{id}: {reason}");
        assert_eq!(action, Action::Resolve, "{id}");
    }
    // A defect whose fix cannot be made here is left open with why, never dismissed unfixed.
    let (outcome, action, reason) = outcome_of(&planned, "DENIED");
    assert_eq!(
        (outcome, action),
        (Outcome::Deferred, Action::Leave),
        "{reason}"
    );
    assert!(reason.contains("deny list"), "{reason}");
}
