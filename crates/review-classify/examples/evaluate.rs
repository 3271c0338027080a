//! Prints the evaluation of the labelled corpus: class confusion matrix, per-family figures,
//! totals and mismatches, then the outcomes in plan mode with a fixer configured, for the tuned
//! and the held-back parts: with no judge, then with a scripted judge that answers each case's
//! label (and the cases a hard gate still leaves to a person, with the gate).
//!
//! ```text
//! cargo run -p review-classify --example evaluate
//! cargo run -p review-classify --example evaluate -- --titles   # also every title read
//! cargo run -p review-classify --example evaluate -- --misses   # the tuned part's misses
//! cargo run -p review-classify --example evaluate -- --all      # every tuned case's outcome
//! cargo run -p review-classify --example evaluate -- --tuned    # no figures of the held-back part
//! ```
//!
//! `--tuned` is for working on the reader: the held-back part's figures are measured once a
//! change is made, not watched while it is made.
#![allow(
    clippy::print_stdout,
    clippy::print_stderr,
    reason = "an example that prints a report"
)]

#[path = "../tests/corpus_eval.rs"]
mod corpus_eval;

use corpus_eval::{Judging, Part, PlanReport};

fn main() {
    let cases = match corpus_eval::load(&corpus_eval::corpus_dir()) {
        Ok(cases) => cases,
        Err(e) => {
            eprintln!("error: {e}");
            std::process::exit(1);
        }
    };
    let tuned: Vec<corpus_eval::Case> = cases
        .iter()
        .filter(|c| c.part() == Part::Tuned)
        .cloned()
        .collect();
    let report = corpus_eval::Report::new(&tuned);
    if std::env::args().any(|a| a == "--titles") {
        println!("{}", report.render_titles());
    }
    println!("reading, tuned part:");
    print!("{}", report.render());
    let tuned_only = std::env::args().any(|a| a == "--tuned");
    let parts: &[Part] = if tuned_only {
        &[Part::Tuned]
    } else {
        &[Part::Tuned, Part::HeldBack]
    };
    let plans = PlanReport::new(&cases);
    for &part in parts {
        println!();
        print!("{}", plans.render_part(part));
    }
    let judged = PlanReport::judged(&cases, Judging::Scripted);
    for &part in parts {
        println!();
        print!("{}", judged.render_part(part));
        print!("{}", judged.render_gated(part));
    }
    if std::env::args().any(|a| a == "--misses") {
        println!("\ntuned part, not as labelled:");
        print!("{}", plans.render_tuned_misses());
    }
    if std::env::args().any(|a| a == "--all") {
        println!("\ntuned part, every case:");
        print!("{}", plans.render_tuned_all());
    }
}
