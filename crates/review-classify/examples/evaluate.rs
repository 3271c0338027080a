//! Prints the evaluation of the labelled corpus: class confusion matrix, per-family figures,
//! totals and mismatches.
//!
//! ```text
//! cargo run -p review-classify --example evaluate
//! cargo run -p review-classify --example evaluate -- --titles   # also every title read
//! ```
#![allow(
    clippy::print_stdout,
    clippy::print_stderr,
    reason = "an example that prints a report"
)]

#[path = "../tests/corpus_eval.rs"]
mod corpus_eval;

fn main() {
    let cases = match corpus_eval::load(&corpus_eval::corpus_dir()) {
        Ok(cases) => cases,
        Err(e) => {
            eprintln!("error: {e}");
            std::process::exit(1);
        }
    };
    let report = corpus_eval::Report::new(&cases);
    if std::env::args().any(|a| a == "--titles") {
        println!("{}", report.render_titles());
    }
    print!("{}", report.render());
}
