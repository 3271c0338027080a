//! `review triage --input`: the report on the recorded example, and bad input.

use std::collections::BTreeSet;

use review_core::report::{Outcome, REPORT_VERSION, Report};
use review_core::snapshot;

use crate::common::{TestEnvironment, example_snapshot};

fn example_arg() -> String {
    example_snapshot().to_string_lossy().into_owned()
}

#[test]
fn human_report_on_the_example() {
    let env = TestEnvironment::new();
    let out = env.run(&["triage", "--input", &example_arg()]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    insta::assert_snapshot!(out.render(&env));
}

#[test]
fn json_report_on_the_example() {
    let env = TestEnvironment::new();
    let out = env.run(&["triage", "--input", &example_arg(), "--json"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    insta::assert_snapshot!(env.normalize(&out.stdout));
}

/// The JSON report is a public contract: parse it back and check it against the snapshot read.
#[test]
fn json_report_parses_and_reconciles_with_the_snapshot() {
    let env = TestEnvironment::new();
    let out = env.run(&["triage", "--input", &example_arg(), "--json"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let report: Report =
        serde_json::from_str(&out.stdout).expect("the report parses into the public type");
    report.check().expect("counts are the tally of the entries");
    assert_eq!(report.version, REPORT_VERSION);
    assert!(!report.applied, "--input never changes anything");

    let pr = snapshot::parse(&std::fs::read_to_string(example_snapshot()).unwrap()).unwrap();
    assert_eq!(report.pr, pr.number);
    assert_eq!(report.head_sha, pr.head_sha);
    let unresolved: BTreeSet<_> = pr.unresolved_threads().map(|t| t.id.clone()).collect();
    let reported: BTreeSet<_> = report.threads.iter().map(|t| t.id.clone()).collect();
    assert_eq!(
        unresolved, reported,
        "every unresolved thread has exactly one entry"
    );
    let current = pr.unresolved_threads().filter(|t| !t.is_outdated).count();
    assert_eq!(report.counts.handled(), current);

    // Fields the design fixes, by name, on the raw JSON.
    let raw: serde_json::Value = serde_json::from_str(&out.stdout).unwrap();
    for key in ["pr", "repo", "head_sha", "applied", "counts", "threads"] {
        assert!(raw.get(key).is_some(), "missing top-level field {key}");
    }
    for key in ["resolved", "actioned", "promoted", "deferred", "outdated"] {
        assert!(raw["counts"].get(key).is_some(), "missing count {key}");
    }
    for t in raw["threads"].as_array().unwrap() {
        for key in ["id", "outcome", "human", "class", "reason"] {
            assert!(t.get(key).is_some(), "thread entry without {key}: {t}");
        }
        if t["human"] == true {
            assert!(t["class"].is_null(), "human threads carry no class: {t}");
        }
    }
    // Every thread with human participation in the example is deferred or outdated.
    for t in report.threads.iter().filter(|t| t.human) {
        assert!(
            matches!(t.outcome, Outcome::Deferred | Outcome::Outdated),
            "{t:?}"
        );
    }
}

#[test]
fn narration_goes_to_stderr_and_data_to_stdout() {
    let env = TestEnvironment::new();
    let out = env.run(&["triage", "--input", &example_arg(), "--json"]);
    assert!(out.stdout.trim_start().starts_with('{'));
    assert!(
        out.stderr.lines().all(|l| l.starts_with("[triage] ")),
        "{}",
        out.stderr
    );
    assert!(
        out.stderr
            .lines()
            .last()
            .unwrap()
            .starts_with("[triage] done — sha=")
    );
}

#[test]
fn missing_snapshot_file() {
    let env = TestEnvironment::new();
    let out = env.run(&["triage", "--input", "nope.json"]);
    insta::assert_snapshot!(out.render(&env), @r"
    ------- stderr -------
    error: cannot use nope.json: No such file or directory (os error 2)
    hint: check the path; a snapshot is a JSON file described in docs/snapshot-format.md
    [exit status: 3]
    ");
}

#[test]
fn malformed_snapshot_file() {
    let env = TestEnvironment::new();
    env.write(
        "bad.json",
        "{\"format\": \"review-snapshot\",\n \"version\": 1,\n \"pull_request\": {\"number\": }\n}",
    );
    let out = env.run(&["triage", "--input", "bad.json"]);
    insta::assert_snapshot!(out.render(&env), @r"
    ------- stderr -------
    error: cannot use bad.json: invalid snapshot JSON at line 3, column 29: expected value
    hint: the format is described in docs/snapshot-format.md
    [exit status: 3]
    ");
}

#[test]
fn snapshot_with_a_missing_field_names_it() {
    let env = TestEnvironment::new();
    env.write(
        "partial.json",
        r#"{"format": "review-snapshot", "version": 1, "pull_request": {"number": 3}}"#,
    );
    let out = env.run(&["triage", "--input", "partial.json"]);
    assert_eq!(out.code, 3);
    assert!(
        out.stderr.contains("missing field `repo`"),
        "{}",
        out.stderr
    );
    assert!(out.stdout.is_empty());
}

#[test]
fn not_a_snapshot() {
    let env = TestEnvironment::new();
    env.write("other.json", r#"{"name": "package.json, maybe"}"#);
    let out = env.run(&["triage", "--input", "other.json"]);
    insta::assert_snapshot!(out.render(&env), @r#"
    ------- stderr -------
    error: cannot use other.json: not a review snapshot: `format` is "(missing)", expected "review-snapshot"
    hint: the format is described in docs/snapshot-format.md
    [exit status: 3]
    "#);
}

#[test]
fn pr_argument_must_match_the_snapshot() {
    let env = TestEnvironment::new();
    let out = env.run(&["triage", "7", "--input", &example_arg()]);
    assert_eq!(out.code, 3);
    assert!(
        out.stderr.contains("it records PR #482, not #7"),
        "{}",
        out.stderr
    );
}

#[test]
fn a_merged_pr_is_not_triaged() {
    let env = TestEnvironment::new();
    let text = std::fs::read_to_string(example_snapshot()).unwrap();
    let mut pr = snapshot::parse(&text).unwrap();
    pr.state = review_core::model::PrState::Merged;
    env.write("merged.json", &snapshot::to_string(&pr, None));
    let out = env.run(&["triage", "--input", "merged.json"]);
    assert_eq!(out.code, 0);
    assert!(out.stdout.is_empty());
    assert!(
        out.stderr.contains("PR #482 is merged; nothing to triage"),
        "{}",
        out.stderr
    );
}

#[test]
fn no_ladder_leaves_every_ambiguous_thread_to_a_person() {
    let env = TestEnvironment::new();
    let out = env.run(&["triage", "--input", &example_arg(), "--json", "--no-ladder"]);
    let report: Report = serde_json::from_str(&out.stdout).unwrap();
    assert_eq!(report.counts.promoted, 0);
    for t in report
        .threads
        .iter()
        .filter(|t| t.class == Some(review_core::rules::Class::Ambiguous))
    {
        assert_eq!(t.outcome, Outcome::Deferred, "{t:?}");
    }
}

#[test]
fn help_lists_the_exit_codes() {
    let env = TestEnvironment::new();
    let out = env.run(&["--help"]);
    assert_eq!(out.code, 0);
    assert!(out.stdout.contains("Exit codes:"), "{}", out.stdout);
    assert!(
        out.stdout
            .contains("3  an input file is missing, unreadable or malformed")
    );
}

#[test]
fn substep_prints_only_the_workflow_result() {
    let env = TestEnvironment::new();
    let deferred_before = "PRRT_kwDOKx7Ld86lqJ5NJl";
    let out = env.run(&[
        "triage",
        "--input",
        &example_arg(),
        "--substep",
        "--deferred",
        deferred_before,
        "--marker",
        "abc1234",
    ]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(
        out.stderr.is_empty(),
        "narration goes into the result: {}",
        out.stderr
    );
    let result: serde_json::Value = serde_json::from_str(&out.stdout).unwrap();
    let keys: Vec<&str> = result
        .as_object()
        .unwrap()
        .keys()
        .map(String::as_str)
        .collect();
    assert_eq!(
        keys,
        [
            "actioned",
            "deferred_threads",
            "head_sha_in",
            "narration",
            "new_head_sha",
            "promoted",
            "qa_swarm_marker_sha",
            "qa_swarm_ran",
            "resolved",
            "unresolved_actionable_remaining"
        ]
    );
    assert_eq!(
        result["head_sha_in"], result["new_head_sha"],
        "nothing was applied"
    );
    assert_eq!(result["qa_swarm_marker_sha"], "abc1234");
    let deferred: Vec<&str> = result["deferred_threads"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap())
        .collect();
    assert!(
        deferred.contains(&deferred_before),
        "a thread passed with --deferred stays deferred"
    );
    let narration = result["narration"].as_array().unwrap();
    assert!(
        narration
            .iter()
            .all(|l| l.as_str().unwrap().starts_with("[triage] "))
    );
    assert!(
        narration
            .last()
            .unwrap()
            .as_str()
            .unwrap()
            .starts_with("[triage] done — ")
    );
}

#[test]
fn exit_code_says_threads_still_need_a_person() {
    let env = TestEnvironment::new();
    let out = env.run(&["triage", "--input", &example_arg(), "--exit-code"]);
    assert_eq!(out.code, 7, "{}", out.stderr);
    assert!(!out.stdout.is_empty(), "the report is still printed");
    assert!(!out.stderr.contains("error:"), "{}", out.stderr);
    let out = env.run(&["triage", "--input", &example_arg()]);
    assert_eq!(
        out.code, 0,
        "without --exit-code deferred threads are not a failure"
    );
}

/// A tool posting through a person's account, without the automated header, is a person's
/// thread; the report hints at the flag that would make the account automated.
#[test]
fn the_report_hints_at_a_tool_posting_as_a_user() {
    use review_test_support::{PrBuilder, person};
    let env = TestEnvironment::new();
    let greptile = "<img alt=\"P1\" src=\"https://greptile-static-assets.s3.amazonaws.com/badges/p1.svg\"> **Digest sent to unsubscribed users**\n\n`getRecipients` never filters on `unsubscribedAt`.";
    let pr = PrBuilder::new()
        .thread(
            "T1",
            "src/digest.ts",
            42,
            &[(person("greptile-apps"), greptile)],
        )
        .thread("T2", "src/digest.ts", 50, &[(person("mei"), "why?")])
        .build();
    env.write("hint.json", &snapshot::to_string(&pr, None));
    let out = env.run(&["triage", "--input", "hint.json", "--json"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let report: Report = serde_json::from_str(&out.stdout).unwrap();
    assert!(
        report
            .threads
            .iter()
            .all(|t| t.human && t.outcome == Outcome::Deferred),
        "hints change no outcome: {report:?}"
    );
    assert_eq!(report.hints.len(), 1, "{:?}", report.hints);
    assert_eq!(report.hints[0].login, "greptile-apps");
    assert_eq!(report.hints[0].family, "greptile");
    assert_eq!(
        report.hints[0].message,
        "looks like greptile posting as a user; add `--automation-account greptile-apps` if it is"
    );
    let out = env.run(&["triage", "--input", "hint.json"]);
    assert!(
        out.stdout
            .contains("hint: @greptile-apps looks like greptile posting as a user"),
        "{}",
        out.stdout
    );
}
