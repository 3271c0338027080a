//! The labelled corpus (`tests/fixtures/corpus/`): the reader's measured quality, held as a
//! regression test. `cargo test -p review-classify --test runner corpus -- --nocapture` prints
//! the table; `cargo run -p review-classify --example evaluate` prints the same.

use crate::corpus_eval::{Report, corpus_dir, load};

/// Per-family minimum number of cases the corpus must keep.
const MIN_PER_FAMILY: usize = 6;

fn report() -> Report {
    let cases = load(&corpus_dir()).unwrap_or_else(|e| panic!("corpus: {e}"));
    Report::new(&cases)
}

#[test]
#[allow(
    clippy::print_stdout,
    reason = "the evaluation table is this test's output"
)]
fn corpus_meets_the_targets() {
    let report = report();
    println!("{}", report.render());

    let humans = report.families.get("human").map_or(0, |t| t.cases);
    assert!(humans >= 20, "at least 20 human comments, found {humans}");
    assert!(
        report.class_score().1 >= 100,
        "at least 100 automated comments"
    );
    for (family, tally) in &report.families {
        assert!(
            tally.cases >= MIN_PER_FAMILY,
            "{family}: {} cases, want at least {MIN_PER_FAMILY}",
            tally.cases
        );
    }

    assert!(
        report.humans_as_automated.is_empty(),
        "human comments read as automated: {:?}",
        report.humans_as_automated
    );
    let at_least = |(ok, n): (usize, usize), pct: usize, what: &str| {
        assert!(ok * 100 >= n * pct, "{what}: {ok}/{n} is under {pct}%");
    };
    at_least(report.family_score(), 97, "family");
    at_least(report.severity_score(), 97, "severity");
    at_least(report.class_score(), 90, "class");
    assert!(
        report.group_errors.is_empty(),
        "fingerprint groups: {:#?}",
        report.group_errors
    );
}

#[test]
fn every_case_parses_and_names_a_known_family() {
    let known: Vec<&str> = review_classify::Family::ALL
        .iter()
        .map(|f| f.as_str())
        .chain(["human"])
        .collect();
    for case in load(&corpus_dir()).unwrap_or_else(|e| panic!("corpus: {e}")) {
        assert!(
            known.contains(&case.family.as_str()),
            "{}: {}",
            case.name,
            case.family
        );
    }
}
