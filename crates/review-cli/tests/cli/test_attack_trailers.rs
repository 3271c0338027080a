//! Attacks on the `Review-Thread:` trailers the tool counts fixes by (issue 13, item 28): only
//! the trailer block of the pull request's own commits (`base..head`) names a landed fix.

use review_core::report::Outcome;
use review_test_support::{Mutation, bot};

use crate::attack_harness::{Attack, CODE, HUNK, entry, suggestion};

/// Attack (28): thread `X` is named by a proper `Review-Thread: X` trailer on a commit before the
/// PR's base, and by a `Review-Thread: X` line in the body (not the trailer block) of a PR
/// commit. Safe: neither counts as X's fix having landed: X is not resolved as fixed, the plan
/// fixes it, and `--apply` commits that fix under its own trailer (which lands it once pushed).
#[tokio::test(flavor = "multi_thread")]
async fn attack_trailers_outside_the_prs_trailer_block_do_not_land_a_fix() {
    let mut a = Attack::empty().await;
    a.commit_files(
        &[("README.md", "widgets\n")],
        "fix: an old fix of another pull request\n\nReview-Thread: X",
    );
    a.commit_files(&[("CHANGELOG.md", "0.1\n")], "release 0.1");
    a.mark_base();
    a.commit_files(
        &[("src/lib.rs", CODE)],
        "feat: widgets\n\nReview-Thread: X\n\nThe line above quotes a trailer; it is not one.",
    );
    a.push();
    a.open_pr(|b| {
        b.thread(
            "X",
            "src/lib.rs",
            3,
            &[(
                bot("coderabbitai"),
                &suggestion("Unchecked unwrap on request input"),
            )],
        )
        .with_last(|t| t.comments[0].diff_hunk = Some(HUNK.to_owned()))
    });
    // git itself reads both as trailers of their commit or not at all, as the attack needs.
    let trailers = crate::common::git_out(
        &a.work,
        &[
            "log",
            "--format=%(trailers:key=Review-Thread,valueonly)%x00",
            "--all",
        ],
    );
    assert_eq!(
        trailers.matches('X').count(),
        1,
        "only the old commit's: {trailers:?}"
    );

    let plan = a.on_pr("triage", &["--json"]);
    assert_eq!(plan.code, 0, "{}", plan.stderr);
    let report: review_core::report::Report = serde_json::from_str(&plan.stdout).unwrap();
    let x = entry(&report, "X");
    assert_eq!(x.outcome, Outcome::Actioned, "{x:?}");
    assert!(!x.reason.contains("on the PR"), "{x:?}");

    let head = a.head();
    let (out, report) = a.apply(&[]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let x = entry(&report, "X");
    assert_eq!(x.outcome, Outcome::Actioned, "{x:?}");
    assert!(x.reason.contains("resolves after push"), "{x:?}");
    assert_ne!(a.head(), head, "the fix is made, not taken as made");
    assert!(
        !a.mutations().contains(&Mutation::Resolve("X".into())),
        "{:?}",
        a.mutations()
    );

    // Its own fix commit, once on the PR, is what lands it.
    a.push();
    a.move_pr_head(&a.head());
    let (out, report) = a.apply(&[]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(
        entry(&report, "X").reason.contains("which is on the PR"),
        "{:?}",
        entry(&report, "X")
    );
    assert_eq!(a.mutations(), [Mutation::Resolve("X".into())]);
}
