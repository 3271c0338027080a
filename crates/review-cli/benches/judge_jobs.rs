//! Time to a plan with a slow judge: `review triage` on a recorded pull request with 38
//! ambiguous bot threads and a judge that takes one second per thread, at `--jobs 1` and
//! `--jobs 4`. Prints the wall time of each.
//!
//! ```sh
//! cargo bench -p review-cli --bench judge_jobs
//! ```
#![allow(clippy::print_stdout, reason = "a benchmark prints its figures")]
#![allow(clippy::unwrap_used, reason = "a benchmark on generated data")]
#![allow(
    clippy::disallowed_methods,
    reason = "a benchmark runs the binary and sets its environment"
)]

use std::process::{Command, Stdio};
use std::time::Instant;

use review_test_support::{PrBuilder, bot};

/// A CodeRabbit finding that needs a design decision: ambiguous for the reader, so the judge
/// is asked about it.
const FINDING: &str = "_⚠️ Potential issue_ | _🟠 Major_\n\n**Retries have no upper bound.**\n\nThe client retries forever when the upstream is down; decide whether to cap the attempts or to add a circuit breaker, which changes how callers see failures.";

fn main() {
    let mut builder = PrBuilder::new();
    for i in 0..38 {
        builder = builder.thread(
            &format!("T{i}"),
            &format!("src/client_{i}.rs"),
            10,
            &[(bot("coderabbitai"), FINDING)],
        );
    }
    let pr = builder.build();
    let dir = tempfile::tempdir().unwrap();
    let snapshot = dir.path().join("pr.json");
    std::fs::write(&snapshot, review_core::snapshot::to_string(&pr, None)).unwrap();
    let judge = r#"cat > /dev/null; sleep 1; echo '{"class": "ambiguous", "reason": "a design choice", "rung": "stop-and-ask"}'"#;
    println!("38 ambiguous bot threads, a judge of 1 s per thread");
    for jobs in ["1", "4"] {
        let started = Instant::now();
        let status = Command::new(env!("CARGO_BIN_EXE_review"))
            .args(["triage", "--input"])
            .arg(&snapshot)
            .args(["--json", "--judge-cmd", judge, "--jobs", jobs])
            .current_dir(dir.path())
            .env("HOME", dir.path())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status()
            .unwrap();
        assert!(status.success());
        println!("--jobs {jobs}: {:.1} s", started.elapsed().as_secs_f64());
    }
}
