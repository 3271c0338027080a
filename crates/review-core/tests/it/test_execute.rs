//! The executor against the strict fakes.

use review_core::execute::{ExecuteError, Workspace, execute};
use review_core::model::{LineRange, PullRequest, ThreadId};
use review_core::plan::{Action, Plan, TriageSettings, plan};
use review_core::report::{DeferReason, Outcome};
use review_core::signals::{
    Concreteness, LadderHint, Scope, Severity, SignalSet, Signals, Suggestion,
};
use review_test_support::HEAD_SHA as HEAD;
use review_test_support::{FakeFixer, FakeHost, FakeVcs, Mutation, PrBuilder, bot, person};

const LIB: &str = "fn a() {}\nfn b() {\n    let v = get();\n}\nfn c() {}\n";

fn signals(entries: &[(&str, Severity, Concreteness)]) -> SignalSet {
    SignalSet {
        threads: entries
            .iter()
            .map(|(id, severity, concreteness)| {
                (
                    ThreadId::from(*id),
                    Signals {
                        family: Some("coderabbit".to_owned()),
                        format_known: true,
                        title: "Handle the missing value".to_owned(),
                        severity: *severity,
                        concreteness: concreteness.clone(),
                        scope: Scope::SingleFile,
                        design_decision: false,
                        style_only: false,
                        speculative: false,
                        already_addressed: false,
                        ladder_hint: LadderHint::StopAndAsk,
                        fingerprint: String::new(),
                        ..Signals::unknown("")
                    },
                )
            })
            .collect(),
        clusters: Vec::new(),
    }
}

fn suggest(text: &str) -> Concreteness {
    Concreteness::Suggestion(Suggestion {
        lines: None,
        replacement: text.to_owned(),
    })
}

/// FIX: a high-severity suggestion on src/lib.rs:3; NIT: a nitpick; HUMAN: a bot thread a person
/// answered.
fn pr() -> PullRequest {
    PrBuilder::new()
        .thread("FIX", "src/lib.rs", 3, &[(bot("coderabbitai"), "x")])
        .with_last(|t| {
            t.comments[0].diff_hunk =
                Some("@@ -1,3 +1,3 @@\n fn a() {}\n fn b() {\n+    let v = get();".to_owned());
        })
        .thread("NIT", "src/lib.rs", 1, &[(bot("coderabbitai"), "x")])
        .thread(
            "HUMAN",
            "src/lib.rs",
            5,
            &[(bot("coderabbitai"), "x"), (person("mei"), "no")],
        )
        .build()
}

fn default_signals() -> SignalSet {
    signals(&[
        ("FIX", Severity::High, suggest("    let v = get()?;")),
        ("NIT", Severity::Nit, Concreteness::Vague),
        ("HUMAN", Severity::Critical, suggest("boom")),
    ])
}

fn run(
    pr: &PullRequest,
    plan: &Plan,
    host: &FakeHost,
    ws: Option<Workspace<'_>>,
) -> Result<review_core::execute::Execution, ExecuteError> {
    let rt = tokio::runtime::Builder::new_current_thread()
        .build()
        .unwrap();
    rt.block_on(execute(pr, plan, &TriageSettings::default(), host, ws))
}

#[test]
fn suggestion_is_committed_alone_and_the_nit_resolved_without_reply() {
    let pr = pr();
    let vcs = FakeVcs::new(HEAD, &[("src/lib.rs", LIB), ("notes.txt", "mine\n")]);
    vcs.user_edit("notes.txt", "my unsaved work\n");
    let host = FakeHost::new(pr.clone());
    let plan = plan(&pr, &default_signals(), &TriageSettings::default());
    let ex = run(
        &pr,
        &plan,
        &host,
        Some(Workspace {
            vcs: &vcs,
            fixer: None,
        }),
    )
    .unwrap();

    let commits = vcs.commits();
    assert_eq!(commits.len(), 1);
    assert_eq!(
        commits[0].paths,
        vec!["src/lib.rs".to_owned()],
        "only the edited path is staged"
    );
    assert!(
        commits[0]
            .message
            .starts_with("fix: address coderabbit Handle the missing value")
    );
    assert!(commits[0].message.contains("Review-Thread: FIX"));
    assert_eq!(
        vcs.committed_file("src/lib.rs").unwrap(),
        LIB.replace("get();", "get()?;")
    );
    assert_eq!(
        vcs.committed_file("notes.txt").unwrap(),
        "mine\n",
        "the user's work stays out of the commit"
    );

    // The fixed thread waits for the push; the nit is resolved; the human thread is untouched.
    assert_eq!(
        host.mutations(),
        vec![Mutation::Resolve(ThreadId::from("NIT"))]
    );
    let fix = ex.report.threads.iter().find(|t| t.id.0 == "FIX").unwrap();
    assert_eq!(fix.outcome, Outcome::Actioned);
    assert_eq!(fix.commit.as_ref(), Some(&commits[0].id));
    assert!(fix.reason.contains("resolves after push"), "{}", fix.reason);
    assert!(ex.report.applied);
    assert_eq!(ex.report.counts.handled(), 3);
}

#[test]
fn checkout_not_at_head_defers_fixes_but_still_resolves_nits() {
    let pr = pr();
    let vcs = FakeVcs::new(
        "0000000000000000000000000000000000000000",
        &[("src/lib.rs", LIB)],
    );
    let host = FakeHost::new(pr.clone());
    let plan = plan(&pr, &default_signals(), &TriageSettings::default());
    let ex = run(
        &pr,
        &plan,
        &host,
        Some(Workspace {
            vcs: &vcs,
            fixer: None,
        }),
    )
    .unwrap();
    assert!(vcs.commits().is_empty());
    let fix = ex.report.threads.iter().find(|t| t.id.0 == "FIX").unwrap();
    assert_eq!(fix.outcome, Outcome::Deferred);
    assert_eq!(fix.deferred_because, Some(DeferReason::NotAtHead));
    assert_eq!(
        host.mutations(),
        vec![Mutation::Resolve(ThreadId::from("NIT"))]
    );
}

#[test]
fn a_dirty_target_file_defers_the_fix_and_keeps_the_users_edit() {
    let pr = pr();
    let vcs = FakeVcs::new(HEAD, &[("src/lib.rs", LIB)]);
    vcs.user_edit("src/lib.rs", "user was here\n");
    let host = FakeHost::new(pr.clone());
    let plan = plan(&pr, &default_signals(), &TriageSettings::default());
    let ex = run(
        &pr,
        &plan,
        &host,
        Some(Workspace {
            vcs: &vcs,
            fixer: None,
        }),
    )
    .unwrap();
    assert!(vcs.commits().is_empty());
    assert_eq!(vcs.work_file("src/lib.rs").unwrap(), "user was here\n");
    let fix = ex.report.threads.iter().find(|t| t.id.0 == "FIX").unwrap();
    assert_eq!(fix.deferred_because, Some(DeferReason::DirtyFile));
}

#[test]
fn a_rejected_commit_restores_the_file_and_stops_fixing() {
    let pr = PrBuilder::new()
        .thread("F1", "src/lib.rs", 3, &[(bot("coderabbitai"), "x")])
        .thread("F2", "src/lib.rs", 1, &[(bot("coderabbitai"), "x")])
        .build();
    let set = signals(&[
        ("F1", Severity::High, suggest("    let v = get()?;")),
        ("F2", Severity::High, suggest("fn a() -> () {}")),
    ]);
    let vcs = FakeVcs::new(HEAD, &[("src/lib.rs", LIB)]);
    vcs.reject_commits("pre-commit: cargo fmt failed");
    let host = FakeHost::new(pr.clone());
    let plan = plan(&pr, &set, &TriageSettings::default());
    let ex = run(
        &pr,
        &plan,
        &host,
        Some(Workspace {
            vcs: &vcs,
            fixer: None,
        }),
    )
    .unwrap();
    assert_eq!(
        vcs.work_file("src/lib.rs").unwrap(),
        LIB,
        "nothing half-done is left behind"
    );
    for t in &ex.report.threads {
        assert_eq!(t.outcome, Outcome::Deferred);
        assert_eq!(t.deferred_because, Some(DeferReason::FixFailed));
    }
    assert!(ex.report.threads[0].reason.contains("cargo fmt failed"));
    assert!(ex.report.threads[1].reason.contains("not attempted"));
    assert!(!ex.report.applied);
    assert!(host.mutations().is_empty());
}

#[test]
fn a_file_that_no_longer_matches_the_hunk_is_never_half_applied() {
    let pr = pr();
    let changed = LIB.replace("get()", "fetch()");
    let vcs = FakeVcs::new(HEAD, &[("src/lib.rs", &changed)]);
    let host = FakeHost::new(pr.clone());
    let plan = plan(&pr, &default_signals(), &TriageSettings::default());
    let ex = run(
        &pr,
        &plan,
        &host,
        Some(Workspace {
            vcs: &vcs,
            fixer: None,
        }),
    )
    .unwrap();
    assert_eq!(vcs.work_file("src/lib.rs").unwrap(), changed);
    let fix = ex.report.threads.iter().find(|t| t.id.0 == "FIX").unwrap();
    assert_eq!(fix.deferred_because, Some(DeferReason::FixFailed));
    assert!(fix.reason.contains("no longer matches"), "{}", fix.reason);
}

#[test]
fn one_failed_resolve_does_not_hide_the_others() {
    let pr = PrBuilder::new()
        .thread("N1", "src/lib.rs", 1, &[(bot("coderabbitai"), "x")])
        .thread("N2", "src/lib.rs", 2, &[(bot("coderabbitai"), "x")])
        .thread("N3", "src/lib.rs", 3, &[(bot("coderabbitai"), "x")])
        .build();
    let set = signals(&[
        ("N1", Severity::Nit, Concreteness::Vague),
        ("N2", Severity::Nit, Concreteness::Vague),
        ("N3", Severity::Nit, Concreteness::Vague),
    ]);
    let host = FakeHost::new(pr.clone());
    host.fail_thread("N2");
    let plan = plan(&pr, &set, &TriageSettings::default());
    let ex = run(&pr, &plan, &host, None).unwrap();
    assert_eq!(
        host.mutations(),
        vec![
            Mutation::Resolve(ThreadId::from("N1")),
            Mutation::Resolve(ThreadId::from("N3"))
        ]
    );
    assert_eq!(ex.report.counts.resolved, 2);
    assert_eq!(ex.report.counts.deferred, 1);
    assert_eq!(
        ex.report.threads[1].deferred_because,
        Some(DeferReason::HostError)
    );
}

#[test]
fn a_plan_that_would_touch_a_human_thread_is_refused_before_any_mutation() {
    let pr = pr();
    let host = FakeHost::new(pr.clone());
    let mut plan = plan(&pr, &default_signals(), &TriageSettings::default());
    // Tamper: ask to resolve the human thread.
    let human = plan
        .threads
        .iter_mut()
        .find(|p| p.report.id.0 == "HUMAN")
        .unwrap();
    human.action = Action::Resolve;
    let err = run(&pr, &plan, &host, None).unwrap_err();
    assert!(
        matches!(err, ExecuteError::PlanViolation { ref thread, .. } if thread.0 == "HUMAN"),
        "{err}"
    );
    assert!(host.mutations().is_empty());
}

#[test]
fn fixer_edits_are_committed_and_fixer_failures_deferred() {
    let pr = PrBuilder::new()
        .thread("OK", "src/lib.rs", 3, &[(bot("cursor"), "x")])
        .thread("BAD", "src/lib.rs", 5, &[(bot("cursor"), "x")])
        .build();
    let set = signals(&[
        ("OK", Severity::High, Concreteness::Exact),
        ("BAD", Severity::High, Concreteness::Exact),
    ]);
    let vcs = FakeVcs::new(HEAD, &[("src/lib.rs", LIB)]);
    let fixer = FakeFixer::new(&vcs, |task, vcs| {
        if task.thread.0 == "BAD" {
            return Err("agent exited with status 1".to_owned());
        }
        use review_core::ports::Vcs;
        vcs.write_file("src/lib.rs", "fixed\n")
            .map_err(|e| e.to_string())?;
        Ok(vec!["src/lib.rs".to_owned()])
    });
    let mut settings = TriageSettings::default();
    settings.fixes.fixer_available = true;
    let plan = plan(&pr, &set, &settings);
    let host = FakeHost::new(pr.clone());
    let rt = tokio::runtime::Builder::new_current_thread()
        .build()
        .unwrap();
    let ex = rt
        .block_on(execute(
            &pr,
            &plan,
            &settings,
            &host,
            Some(Workspace {
                vcs: &vcs,
                fixer: Some(&fixer),
            }),
        ))
        .unwrap();
    assert_eq!(fixer.tasks().len(), 2);
    assert_eq!(fixer.tasks()[0].lines, Some(LineRange::new(3, 3)));
    assert_eq!(vcs.commits().len(), 1);
    assert_eq!(ex.report.threads[0].outcome, Outcome::Actioned);
    assert_eq!(
        ex.report.threads[1].deferred_because,
        Some(DeferReason::FixFailed)
    );
    assert!(ex.report.threads[1].reason.contains("status 1"));
}

#[test]
fn an_interrupt_stops_at_the_next_checkpoint_and_the_rest_is_deferred() {
    use std::sync::Arc;
    use std::sync::atomic::{AtomicBool, Ordering};

    let pr = PrBuilder::new()
        .thread("F1", "src/lib.rs", 3, &[(bot("cursor"), "x")])
        .thread("F2", "src/lib.rs", 5, &[(bot("cursor"), "x")])
        .thread("N1", "src/lib.rs", 1, &[(bot("coderabbitai"), "x")])
        .build();
    let set = signals(&[
        ("F1", Severity::High, Concreteness::Exact),
        ("F2", Severity::High, Concreteness::Exact),
        ("N1", Severity::Nit, Concreteness::Vague),
    ]);
    let stop = Arc::new(AtomicBool::new(false));
    let vcs = FakeVcs::new(HEAD, &[("src/lib.rs", LIB)]);
    let pressed = stop.clone();
    let fixer = FakeFixer::new(&vcs, move |_, vcs| {
        use review_core::ports::Vcs;
        vcs.write_file("src/lib.rs", "fixed\n")
            .map_err(|e| e.to_string())?;
        // Ctrl-C arrives while the first fix is being made.
        pressed.store(true, Ordering::SeqCst);
        Ok(vec!["src/lib.rs".to_owned()])
    });
    let mut settings = TriageSettings::default();
    settings.fixes.fixer_available = true;
    let plan = plan(&pr, &set, &settings);
    let host = FakeHost::new(pr.clone());
    let rt = tokio::runtime::Builder::new_current_thread()
        .build()
        .unwrap();
    let ws = Workspace {
        vcs: &vcs,
        fixer: Some(&fixer),
    };
    let ex = rt
        .block_on(review_core::execute::execute_until(
            &pr,
            &plan,
            &settings,
            &host,
            Some(ws),
            &stop,
        ))
        .unwrap();
    assert_eq!(vcs.commits().len(), 1, "the fix under way is finished");
    assert_eq!(ex.report.threads[0].outcome, Outcome::Actioned);
    for t in &ex.report.threads[1..] {
        assert_eq!(t.outcome, Outcome::Deferred, "{t:?}");
        assert_eq!(t.deferred_because, Some(DeferReason::Interrupted));
    }
    assert!(
        host.mutations().is_empty(),
        "nothing resolved after the interrupt"
    );
    assert_eq!(ex.report.counts.handled(), 3, "the counts still reconcile");
}

/// Regression: a thread outdated by its own fix whose resolve failed was deferred, which the
/// report refuses (an outdated thread is counted as outdated): the run ended in "this is a bug".
/// It stays outdated, with why it is still open. The narration says under which count each
/// thread resolved falls, and a thread resolved says so.
#[test]
fn a_thread_outdated_by_its_fix_stays_outdated_whether_its_resolve_fails_or_not() {
    let mut pr = PrBuilder::new()
        .thread("OLD", "src/lib.rs", 3, &[(bot("coderabbitai"), "x")])
        .thread("N1", "src/lib.rs", 1, &[(bot("coderabbitai"), "x")])
        .build();
    pr.threads[0].is_outdated = true;
    let set = signals(&[
        ("OLD", Severity::High, suggest("    let v = get()?;")),
        ("N1", Severity::Nit, Concreteness::Vague),
    ]);
    let mut settings = TriageSettings::default();
    settings.history.landed.insert(
        ThreadId::from("OLD"),
        review_core::model::CommitId("f1f1f1f1f1f1f1f1f1f1f1f1f1f1f1f1f1f1f1f1".to_owned()),
    );
    let planned = plan(&pr, &set, &settings);
    let rt = tokio::runtime::Builder::new_current_thread()
        .build()
        .unwrap();
    for fails in [false, true] {
        let host = FakeHost::new(pr.clone());
        if fails {
            host.fail_thread("OLD");
        }
        let ex = rt
            .block_on(execute(&pr, &planned, &settings, &host, None))
            .unwrap();
        assert_eq!(
            ex.narration,
            [
                "[triage] step 4 — resolving 2 threads without reply: 1 nit or duplicate, 1 outdated by its own fix (counted as outdated)"
            ]
        );
        let old = &ex.report.threads[0];
        assert_eq!(old.outcome, Outcome::Outdated);
        assert_eq!(ex.report.counts.outdated, 1);
        if fails {
            assert_eq!(old.deferred_because, Some(DeferReason::HostError));
            assert!(old.reason.starts_with("resolve failed"), "{}", old.reason);
        } else {
            assert_eq!(old.deferred_because, None);
            assert_eq!(
                old.reason,
                "outdated by its fix f1f1f1f, which is on the PR; resolved"
            );
        }
    }
}

#[test]
fn a_nit_whose_fix_cannot_be_made_is_resolved_as_a_nit() {
    // A medium finding with a suggestion is a nit that is fixed rather than resolved unread; when
    // the fix cannot be made (here the file has the user's uncommitted edits), the nit is
    // resolved, as it would be with no fix planned, instead of going to a person. An actionable
    // finding in the same place still goes to a person.
    let pr = PrBuilder::new()
        .thread("NIT", "src/lib.rs", 3, &[(bot("coderabbitai"), "x")])
        .thread("BUG", "src/lib.rs", 1, &[(bot("coderabbitai"), "x")])
        .build();
    let set = signals(&[
        ("NIT", Severity::Medium, suggest("    let v = get()?;")),
        ("BUG", Severity::High, suggest("fn a() -> () {}")),
    ]);
    let vcs = FakeVcs::new(HEAD, &[("src/lib.rs", LIB)]);
    vcs.user_edit("src/lib.rs", "user was here\n");
    let host = FakeHost::new(pr.clone());
    let plan = plan(&pr, &set, &TriageSettings::default());
    assert!(
        matches!(plan.threads[0].action, Action::Fix(_)),
        "the nit's fix is planned"
    );
    let ex = run(
        &pr,
        &plan,
        &host,
        Some(Workspace {
            vcs: &vcs,
            fixer: None,
        }),
    )
    .unwrap();
    assert!(vcs.commits().is_empty());
    assert_eq!(vcs.work_file("src/lib.rs").unwrap(), "user was here\n");
    let nit = ex.report.threads.iter().find(|t| t.id.0 == "NIT").unwrap();
    assert_eq!(nit.outcome, Outcome::Resolved, "{}", nit.reason);
    assert!(nit.reason.contains("not fixed"), "{}", nit.reason);
    assert!(nit.reason.contains("uncommitted changes"), "{}", nit.reason);
    let bug = ex.report.threads.iter().find(|t| t.id.0 == "BUG").unwrap();
    assert_eq!(bug.outcome, Outcome::Deferred);
    assert_eq!(bug.deferred_because, Some(DeferReason::DirtyFile));
    assert_eq!(
        host.mutations(),
        vec![Mutation::Resolve(ThreadId::from("NIT"))],
        "only the nit is resolved"
    );
}
