//! The labelled corpus (`tests/fixtures/corpus/`): the reader's measured quality, held as a
//! regression test. `cargo test -p review-classify --test runner corpus -- --nocapture` prints
//! the table; `cargo run -p review-classify --example evaluate` prints the same.

use crate::corpus_eval::{
    Case, Judging, Part, PlanReport, Report, corpus_dir, is_reserved, load, reserved_patterns,
};

/// Per-family minimum number of cases the corpus must keep.
const MIN_PER_FAMILY: usize = 6;

/// Families the modelled cases name that the reader does not know yet: their findings read as an
/// unknown bot's until it does.
const FAMILIES_TO_COME: &[&str] = &[
    "ellipsis",
    "codacy",
    "codescene",
    "graphite",
    "windsurf",
    "devin",
    "augment",
    "baz",
    "mergify",
    "snyk",
    "socket",
];

fn cases() -> Vec<Case> {
    load(&corpus_dir()).unwrap_or_else(|e| panic!("corpus: {e}"))
}

/// The reading of the tuned part (the held-back quarter's misses are never printed).
fn report(cases: &[Case]) -> Report {
    let tuned: Vec<Case> = cases
        .iter()
        .filter(|c| c.part() == Part::Tuned)
        .cloned()
        .collect();
    Report::new(&tuned)
}

/// The targets in plan mode with a fixer configured and no judge, on both parts: no person's
/// comment read as a bot's, no harmful outcome, and at least 85% of the bot threads labelled
/// actionable or nit handled without a person. On the tuned part the reader is also held to
/// its families, severities, fingerprints and the guide's classes.
#[test]
#[allow(
    clippy::print_stdout,
    reason = "the evaluation table is this test's output"
)]
fn corpus_meets_the_targets() {
    let cases = cases();
    let plans = PlanReport::new(&cases);
    println!("{}", plans.render_part(Part::Tuned));
    meets_the_plan_targets(&plans, Part::Tuned, 85);

    let report = report(&cases);
    println!("{}", report.render());
    let humans = report.families.get("human").map_or(0, |t| t.cases);
    assert!(humans >= 20, "at least 20 human comments, found {humans}");
    assert!(
        report.class_score().1 >= 100,
        "at least 100 automated comments"
    );
    assert!(
        report.humans_as_automated.is_empty(),
        "human comments read as automated: {:?}",
        report.humans_as_automated
    );
    let at_least = |(ok, n): (usize, usize), pct: usize, what: &str| {
        assert!(ok * 100 >= n * pct, "{what}: {ok}/{n} is under {pct}%");
    };
    at_least(report.family_score(), 97, "family");
    at_least(report.severity_score(), 95, "severity");
    at_least(report.class_score(), 90, "class (the guide's label)");
    assert!(
        report.group_errors.is_empty(),
        "fingerprints shared across groups: {:#?}",
        report.group_errors
    );
    // Re-posts whose title was reworded get a new fingerprint (they are triaged again, which is
    // safe); the few the corpus holds are listed by the evaluation.
    assert!(
        report.split_reposts.len() <= 4,
        "re-posts read as new findings: {:#?}",
        report.split_reposts
    );
}

/// The targets in plan mode, checked with counts only: no case of the held-back part is named,
/// so that none is tuned on.
fn meets_the_plan_targets(plans: &PlanReport, part: Part, handled_pct: usize) {
    let f = plans.overall(part);
    let name = part.as_str();
    assert_eq!(f.people_as_bots, 0, "{name}: people read as bots");
    assert_eq!(f.harmful, 0, "{name}: harmful outcomes");
    assert!(
        f.handled * 100 >= f.eligible * handled_pct,
        "{name}: {}/{} handled without a person is under {handled_pct}%",
        f.handled,
        f.eligible
    );
}

/// The same targets on the held-back quarter, which no rule was tuned on. It misses them (see
/// docs/classification.md for the figures and what fails): ignored so that the suite states
/// what holds, run with `--ignored` to see the figures. Do not tune rules on it.
#[test]
#[ignore = "the held-back quarter misses the targets: 11 harmful, 87.3% handled (docs/classification.md)"]
#[allow(
    clippy::print_stdout,
    reason = "the evaluation table is this test's output"
)]
fn held_back_part_meets_the_targets() {
    let plans = PlanReport::new(&cases());
    println!("{}", plans.render_part(Part::HeldBack));
    meets_the_plan_targets(&plans, Part::HeldBack, 85);
}

/// With a judge that answers each case's label (as `review triage --judge-cmd` asks it: only
/// about the threads no hard gate decides anyway), on both parts: no person read as a bot, no
/// harmful outcome, at least 97% of the bot threads labelled actionable or nit handled without
/// a person, and every such thread still left to a person is stopped by a hard gate, listed
/// with it. The scripted judge is as good as the labels: this measures the gates and the
/// planner, not a judge's judgement.
#[test]
#[allow(
    clippy::print_stdout,
    reason = "the evaluation table is this test's output"
)]
fn with_a_judge_answering_the_labels_the_corpus_meets_the_targets() {
    let plans = PlanReport::judged(&cases(), Judging::Scripted);
    for part in [Part::Tuned, Part::HeldBack] {
        println!("{}", plans.render_part(part));
        meets_the_plan_targets(&plans, part, 97);
        let name = part.as_str();
        let gated = plans.gated(part);
        print!("{name}: {}", plans.render_gated(part));
        let ungated: Vec<_> = gated.iter().filter(|(_, g)| g.is_none()).collect();
        assert!(
            ungated.is_empty(),
            "{name}: {} threads left to a person with no hard gate to say why",
            ungated.len()
        );
    }
}

/// Every family the reader knows keeps at least a few cases.
#[test]
fn every_family_has_cases() {
    let cases = cases();
    for family in review_classify::Family::ALL {
        let n = cases.iter().filter(|c| c.family == family.as_str()).count();
        let min = match family {
            review_classify::Family::Korbit | review_classify::Family::SonarQube => 1,
            review_classify::Family::OtherBot => 4,
            f if f.is_named_tool() && !FIRST_FAMILIES.contains(&f.as_str()) => 2,
            _ => MIN_PER_FAMILY,
        };
        assert!(n >= min, "{family}: {n} cases, want at least {min}");
    }
}

/// The families of the first cases, each with at least [`MIN_PER_FAMILY`] cases.
const FIRST_FAMILIES: &[&str] = &[
    "coderabbit",
    "copilot",
    "gemini",
    "codex",
    "cursor",
    "greptile",
    "sourcery",
    "qodo",
    "claude",
    "bito",
    "qa",
    "bot",
];

#[test]
fn every_case_parses_and_names_a_known_family() {
    let known: Vec<&str> = review_classify::Family::ALL
        .iter()
        .map(|f| f.as_str())
        .chain(["human"])
        .collect();
    for case in cases() {
        let to_come = case.is_modelled() && FAMILIES_TO_COME.contains(&case.family.as_str());
        assert!(
            known.contains(&case.family.as_str()) || to_come,
            "{}: {}",
            case.name,
            case.family
        );
    }
}

/// The corpus modelled on real review comments: at least 400 cases, 60 of people's comments and
/// 30 not in English, each naming its public source and the reason for its label.
#[test]
fn the_modelled_corpus_is_large_and_varied_enough() {
    let modelled: Vec<Case> = cases().into_iter().filter(Case::is_modelled).collect();
    assert!(modelled.len() >= 400, "{} modelled cases", modelled.len());
    let people = modelled.iter().filter(|c| c.family == "human").count();
    assert!(people >= 60, "{people} people's comments");
    let foreign = modelled.iter().filter(|c| c.lang != "en").count();
    assert!(foreign >= 30, "{foreign} comments not in English");
    for case in &modelled {
        let source = case.modelled_on.as_deref().unwrap_or_default();
        let (repo, path) = source.split_once(':').unwrap_or((source, ""));
        assert!(
            repo.split('/').count() == 2 && !path.is_empty(),
            "{}: modelled-on is owner/name:path, not {source:?}",
            case.name
        );
        assert!(
            case.reason.as_deref().is_some_and(|r| !r.trim().is_empty()),
            "{}: a labelled case says why",
            case.name
        );
    }
}

/// No case is modelled on a repository kept for the independent check (the list lives beside
/// the project, in `../shared/RESERVED.md`; where it is absent, as on a fresh machine, the
/// check has nothing to compare with and passes).
/// The cases of a batch waiting in `tests/fixtures/corpus-pending/` (see its README): read by
/// no evaluation, only checked for form, so they move to the corpus as they are.
fn pending() -> Vec<Case> {
    let dir =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/corpus-pending");
    if !dir.exists() {
        return Vec::new();
    }
    load(&dir).unwrap_or_else(|e| panic!("a pending case does not parse: {e}"))
}

#[test]
fn pending_cases_parse_and_do_not_clash_with_the_corpus() {
    let names: std::collections::BTreeSet<String> = cases().into_iter().map(|c| c.name).collect();
    for case in pending() {
        assert!(case.modelled_on.is_some(), "{}: no modelled-on", case.name);
        assert!(!names.contains(&case.name), "{} is in both", case.name);
    }
}

#[test]
fn no_case_is_modelled_on_a_reserved_repository() {
    let list = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/RESERVED.md");
    let Ok(text) = std::fs::read_to_string(&list) else {
        return;
    };
    let reserved = reserved_patterns(&text);
    assert!(!reserved.is_empty(), "the reserved list reads as empty");
    // The batch waiting in `corpus-pending/` is held to the same rule.
    let mut all = cases();
    all.extend(pending());
    let bad: Vec<String> = all
        .iter()
        .filter_map(|c| {
            let source = c.modelled_on.as_deref()?;
            is_reserved(source, &reserved).then(|| format!("{}: {source}", c.name))
        })
        .collect();
    assert!(
        bad.is_empty(),
        "modelled on reserved repositories: {bad:#?}"
    );
}

#[test]
fn the_reserved_list_is_read_as_written() {
    let text = "repositories below ... (any path, any pull request).\n\njdx/mise, Hex-Tech-Lab/*, klogg and its forks, GoogleCloudPlatform/DataflowTemplates,\noven-sh/bun.\n";
    let reserved = reserved_patterns(text);
    assert!(is_reserved("jdx/mise:docs/x.md", &reserved));
    assert!(!is_reserved("jdx/other:docs/x.md", &reserved));
    assert!(is_reserved("hex-tech-lab/anything:a", &reserved));
    assert!(is_reserved("someone/klogg:src/a.cpp", &reserved));
    assert!(is_reserved("oven-sh/bun:src/a.zig", &reserved));
    assert!(is_reserved(
        "GoogleCloudPlatform/DataflowTemplates:a",
        &reserved
    ));
    assert!(!is_reserved("GoogleCloudPlatform/other:a", &reserved));
}
