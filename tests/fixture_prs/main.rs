//! Recorded pull requests (`tests/fixtures/prs/`), each triaged offline by the `review` binary
//! and its JSON report snapshot-tested (`snapshots/`, reviewed like code).
//!
//! Run: `cargo test -p review-cli --test fixture_prs`. The target belongs to `review-cli`'s
//! manifest, because a virtual workspace compiles no top-level `tests/` by itself.
//!
//! Each fixture is a snapshot file (`docs/snapshot-format.md`) built from cases of the labelled
//! corpus by the description in `prs.rs`. The files are committed, so that a change to one shows
//! in review and `review triage --input tests/fixtures/prs/NAME.json` works on a checkout; the
//! test builds each again and fails when the file differs, so a fixture cannot drift from the
//! corpus or be edited by hand. After changing `prs.rs` or a case it uses, write the files with
//! `REVIEW_UPDATE_FIXTURES=1 cargo test -p review-cli --test fixture_prs`, then review both the
//! fixture diff and the report snapshots (`cargo insta review`).
//!
//! Every PR is triaged in plan mode as `review triage --input FILE --json`, with a fixer named
//! (a plan runs none: the name is of a command that does not exist, so a plan that ran it would
//! show) and the corpus's automation account `qa-runner`: the settings the corpus is evaluated
//! with. Besides the snapshot, each report is held to invariants that do not depend on it:
//! every unresolved thread once, people's threads never acted on, the corpus's labels never
//! contradicted in a harmful way.
#![allow(
    clippy::disallowed_methods,
    reason = "the test runs the binary and reads its own knob, REVIEW_UPDATE_FIXTURES"
)]

mod corpus;
mod prs;
mod recorded;

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::Command;

use review_core::report::{DeferReason, Outcome, Report, ThreadReport};
use review_core::snapshot;

use crate::corpus::Corpus;
use crate::recorded::{Pr, State, Text};

/// The workspace root.
pub fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .ancestors()
        .nth(2)
        .expect("the CLI crate lives two levels below the workspace root")
        .to_path_buf()
}

/// Where the recorded pull requests live.
fn fixtures_dir() -> PathBuf {
    workspace_root().join("tests/fixtures/prs")
}

/// Set to `1` to write the fixture files from `prs.rs` and the corpus instead of comparing.
const UPDATE_VAR: &str = "REVIEW_UPDATE_FIXTURES";

/// The fixer named on the command line: a command that does not exist. A plan runs no fixer;
/// one that did would report the fix as failed.
const FIXER: &str = "review-fixture-fixer-never-runs";

/// The automation account the corpus is labelled under.
const AUTOMATION_ACCOUNT: &str = "qa-runner";

fn fixture_path(pr: &Pr) -> PathBuf {
    fixtures_dir().join(format!("{}.json", pr.name))
}

/// The fixture file is what `prs.rs` and the corpus make (or is written so, on request).
fn check_file(pr: &Pr, corpus: &mut Corpus) {
    let path = fixture_path(pr);
    let want = pr.render(corpus);
    let have = std::fs::read_to_string(&path).unwrap_or_default();
    if have == want {
        return;
    }
    if std::env::var(UPDATE_VAR).is_ok_and(|v| v == "1") {
        std::fs::create_dir_all(fixtures_dir()).expect("tests/fixtures/prs can be made");
        std::fs::write(&path, want).expect("the fixture can be written");
        return;
    }
    panic!(
        "{} is not what tests/fixture_prs/prs.rs and the corpus make (a case changed, or the file \
         was edited). Write it with `{UPDATE_VAR}=1 cargo test -p review-cli --test fixture_prs` \
         and review the diff and the report snapshots.",
        path.display()
    );
}

/// Every case a fixture uses exists and is in the corpus's tuned part.
fn check_cases(pr: &Pr, corpus: &mut Corpus) {
    let texts = pr
        .reviews
        .iter()
        .chain(&pr.comments)
        .filter_map(|t| match t {
            Text::Case(c) => Some(*c),
            Text::Own(..) => None,
        });
    for name in texts.chain(pr.threads.iter().flat_map(|t| t.cases())) {
        let case = corpus.case(name);
        assert!(
            !case.is_held_back(),
            "{}: case {name} is in the corpus's held-back part; fixtures use tuned cases only",
            pr.name
        );
    }
}

/// A run of `review triage` on a fixture.
struct Run {
    stdout: String,
    stderr: String,
    code: i32,
    home: tempfile::TempDir,
}

/// `review triage --input FILE --json` in plan mode, offline: an empty environment (no token),
/// a temp dir as the working directory and home.
fn triage(pr: &Pr) -> Run {
    let home = tempfile::tempdir().expect("a temp dir can be made");
    let path = fixture_path(pr);
    let out = Command::new(env!("CARGO_BIN_EXE_review"))
        .arg("triage")
        .arg("--input")
        .arg(&path)
        .args(["--json", "--fixer-cmd", FIXER])
        .args(["--automation-account", AUTOMATION_ACCOUNT])
        .current_dir(home.path())
        .env_clear()
        .env("HOME", home.path())
        .env("PATH", std::env::var_os("PATH").unwrap_or_default())
        .env("NO_COLOR", "1")
        .stdin(std::process::Stdio::null())
        .output()
        .expect("the review binary runs");
    Run {
        stdout: String::from_utf8(out.stdout).expect("stdout is UTF-8"),
        stderr: String::from_utf8(out.stderr).expect("stderr is UTF-8"),
        code: out.status.code().unwrap_or(-1),
        home,
    }
}

impl Run {
    /// stdout with machine-specific paths made stable (the report holds none today).
    fn normalized(&self) -> String {
        let tmp = self.home.path().to_string_lossy().into_owned();
        let root = workspace_root().to_string_lossy().into_owned();
        self.stdout.replace(&tmp, "[TEMP]").replace(&root, "[ROOT]")
    }
}

/// The invariants of one report, from what the fixture says and the corpus's labels.
fn check_report(pr: &Pr, corpus: &mut Corpus, report: &Report) {
    let name = pr.name;
    report
        .check()
        .unwrap_or_else(|e| panic!("{name}: the counts do not reconcile: {e}"));
    assert!(!report.applied, "{name}: --input never changes anything");
    assert_eq!(report.pr, pr.number, "{name}");
    assert_eq!(report.repo.to_string(), pr.repo, "{name}");
    assert_eq!(report.head_sha.0, pr.head_sha, "{name}");

    // Every unresolved thread has exactly one entry; resolved threads have none.
    let mut entries: BTreeMap<String, &ThreadReport> = BTreeMap::new();
    for entry in &report.threads {
        assert!(
            entries.insert(entry.id.0.clone(), entry).is_none(),
            "{name}: thread {} is reported twice",
            entry.id
        );
    }
    let unresolved: BTreeSet<String> = pr
        .threads
        .iter()
        .filter(|t| t.state != State::Resolved)
        .map(recorded::Thread::id)
        .collect();
    let reported: BTreeSet<String> = entries.keys().cloned().collect();
    assert_eq!(
        unresolved, reported,
        "{name}: every unresolved thread has exactly one entry"
    );
    let current = pr.threads.iter().filter(|t| t.state == State::Open).count();
    assert_eq!(report.counts.handled(), current, "{name}: counts");
    assert_eq!(
        report.counts.outdated,
        pr.threads
            .iter()
            .filter(|t| t.state == State::Outdated)
            .count(),
        "{name}: outdated count"
    );

    for t in pr.threads.iter().filter(|t| t.state != State::Resolved) {
        let entry = entries[&t.id()];
        let id = t.id();
        let first = corpus.case(t.case).clone();
        let person_took_part = first.is_person()
            || t.replies.iter().any(|r| match r {
                Text::Case(c) => corpus.case(c).is_person(),
                Text::Own(_, kind, _) => *kind != review_core::model::AuthorKind::Bot,
            });
        if t.state == State::Outdated {
            assert_eq!(entry.outcome, Outcome::Outdated, "{name}: {id}");
            continue;
        }
        if person_took_part || t.partial {
            // A person's thread, or one not fully read, is never acted on: it is left to a
            // person, named as such.
            assert_eq!(entry.outcome, Outcome::Deferred, "{name}: {id}: {entry:?}");
            assert!(entry.human, "{name}: {id} is a person's: {entry:?}");
            assert!(entry.class.is_none(), "{name}: {id}: {entry:?}");
            let why = if t.partial {
                DeferReason::Incomplete
            } else {
                DeferReason::Human
            };
            assert_eq!(entry.deferred_because, Some(why), "{name}: {id}: {entry:?}");
            continue;
        }
        assert!(!entry.human, "{name}: {id} is a bot's: {entry:?}");
        if entry.duplicate_of.is_some() {
            // The thread it duplicates carries the decision (and is checked itself).
            continue;
        }
        // Never harmful by the corpus's label: an actionable finding is not dismissed, an
        // ambiguous one is neither fixed nor dismissed.
        match first.class.as_deref() {
            Some("actionable") => assert_ne!(
                entry.outcome,
                Outcome::Resolved,
                "{name}: {id} is labelled actionable but dismissed: {entry:?}"
            ),
            Some("ambiguous") => assert_eq!(
                entry.outcome,
                Outcome::Deferred,
                "{name}: {id} is labelled ambiguous but not left to a person: {entry:?}"
            ),
            _ => {}
        }
    }
}

/// Builds (or checks) the fixture, triages it, holds the report to the invariants and to its
/// snapshot.
fn check(name: &str) {
    let pr = prs::named(name);
    let mut corpus = Corpus::default();
    check_cases(&pr, &mut corpus);
    check_file(&pr, &mut corpus);

    // The file parses as a snapshot, and is the PR described.
    let text = std::fs::read_to_string(fixture_path(&pr)).expect("the fixture is readable");
    let parsed = snapshot::parse(&text).unwrap_or_else(|e| panic!("{name}: {e}"));
    assert_eq!(parsed, pr.build(&mut corpus), "{name}");

    let run = triage(&pr);
    assert_eq!(run.code, 0, "{name}: exit status\n{}", run.stderr);
    let report: Report = serde_json::from_str(&run.stdout)
        .unwrap_or_else(|e| panic!("{name}: the report does not parse: {e}\n{}", run.stdout));
    check_report(&pr, &mut corpus, &report);

    insta::with_settings!({
        prepend_module_to_snapshot => false,
        omit_expression => true,
        description => format!(
            "{}\nreview triage --input tests/fixtures/prs/{name}.json --json --fixer-cmd {FIXER} --automation-account {AUTOMATION_ACCOUNT}",
            pr.about
        ),
    }, {
        insta::assert_snapshot!(name, run.normalized());
    });
}

#[test]
fn go_ledger_pr_1207() {
    check("go-ledger-pr-1207");
}

#[test]
fn ts_storefront_pr_2048() {
    check("ts-storefront-pr-2048");
}

#[test]
fn py_pipeline_pr_77() {
    check("py-pipeline-pr-77");
}

#[test]
fn i18n_shop_pr_512() {
    check("i18n-shop-pr-512");
}

#[test]
fn rust_cache_pr_9041() {
    check("rust-cache-pr-9041");
}

/// Every file in `tests/fixtures/prs/` is a described PR (a removed one leaves no stale file),
/// every described PR has a test above, and no two use the same case for a thread.
#[test]
fn fixtures_are_all_described_and_tested() {
    let described: BTreeSet<String> = prs::all().iter().map(|p| p.name.to_owned()).collect();
    let files: BTreeSet<String> = std::fs::read_dir(fixtures_dir())
        .expect("tests/fixtures/prs exists")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|e| e == "json"))
        .filter_map(|p| p.file_stem().map(|s| s.to_string_lossy().into_owned()))
        .collect();
    assert_eq!(files, described, "fixture files and prs.rs disagree");

    let source = include_str!("main.rs");
    for name in &described {
        assert!(
            source.contains(&format!("check(\"{name}\")")),
            "{name} has no test in main.rs"
        );
    }

    let mut seen = BTreeMap::new();
    for pr in prs::all() {
        for t in &pr.threads {
            if let Some(other) = seen.insert(t.case, pr.name) {
                panic!("case {} starts a thread in {other} and {}", t.case, pr.name);
            }
        }
    }
}
