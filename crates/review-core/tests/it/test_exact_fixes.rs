//! Fixes made without a fixer, exactly or not at all: comments read by `review-classify`,
//! planned, and carried out against the strict fakes.

use review_core::execute::{Workspace, execute};
use review_core::gate::AutomationSettings;
use review_core::model::{PullRequest, ThreadId};
use review_core::plan::{Action, FixMaterial, TriageSettings, plan};
use review_core::report::{DeferReason, Outcome, ThreadReport};
use review_core::rules::Class;
use review_test_support::HEAD_SHA as HEAD;
use review_test_support::{FakeHost, FakeVcs, Mutation, PrBuilder, bot};

/// Triages `pr` with no fixer and carries the plan out in `vcs`; returns the report line of
/// thread `id` and the plan's action for it.
fn triage(pr: &PullRequest, vcs: &FakeVcs, id: &str) -> (ThreadReport, Action) {
    let settings = TriageSettings::default();
    let signals = review_classify::analyze(pr, &AutomationSettings::default());
    let planned = plan(pr, &signals, &settings);
    let action = planned
        .threads
        .iter()
        .find(|p| p.report.id.0 == id)
        .map(|p| p.action.clone())
        .unwrap();
    let host = FakeHost::new(pr.clone());
    let rt = tokio::runtime::Builder::new_current_thread()
        .build()
        .unwrap();
    let ex = rt
        .block_on(execute(
            pr,
            &planned,
            &settings,
            &host,
            Some(Workspace { vcs, fixer: None }),
        ))
        .unwrap();
    assert!(
        !host
            .mutations()
            .iter()
            .any(|m| matches!(m, Mutation::Reply(..))),
        "a triage never replies"
    );
    let entry = ex.report.threads.iter().find(|t| t.id.0 == id).unwrap();
    (entry.clone(), action)
}

const SUM: &str = "pub fn total(items: &[Item]) -> i64 {\n    let mut sum = 0;\n    for item in items {\n        sum -= item.price;\n    }\n    sum\n}\n";

const CRITICAL_WITH_SUGGESTION: &str = r#"_⚠️ Potential issue_ | _🔴 Critical_

**`total` subtracts every price instead of adding it.**

`sum -= item.price` makes the total negative, so every caller gets the wrong sum: invoices, the cart badge and the export all show it.

<details>
<summary>📝 Committable suggestion</summary>

> ‼️ **IMPORTANT**
> Carefully review the code before committing.

```suggestion
        sum += item.price;
```

</details>

<!-- This is an auto-generated comment by CodeRabbit -->"#;

/// A CodeRabbit 🔴 Critical finding whose suggestion is on its own lines, and whose prose says
/// "every caller gets the wrong sum", is actioned: the suggestion is the fix, and words about
/// impact are not its scope.
#[test]
fn a_critical_finding_with_a_suggestion_on_its_lines_is_actioned_and_applied() {
    let pr = PrBuilder::new()
        .thread(
            "SUM",
            "src/cart/total.rs",
            4,
            &[(bot("coderabbitai"), CRITICAL_WITH_SUGGESTION)],
        )
        .with_last(|t| {
            t.comments[0].diff_hunk = Some(
                "@@ -1,4 +1,4 @@\n pub fn total(items: &[Item]) -> i64 {\n     let mut sum = 0;\n     for item in items {\n+        sum -= item.price;"
                    .to_owned(),
            );
        })
        .build();
    let vcs = FakeVcs::new(HEAD, &[("src/cart/total.rs", SUM)]);
    let (entry, action) = triage(&pr, &vcs, "SUM");
    assert_eq!(entry.class, Some(Class::Actionable), "{}", entry.reason);
    assert_eq!(entry.outcome, Outcome::Actioned, "{}", entry.reason);
    assert!(
        matches!(&action, Action::Fix(t) if matches!(t.material, FixMaterial::Suggestion(_))),
        "{action:?}"
    );
    assert_eq!(
        vcs.committed_file("src/cart/total.rs").unwrap(),
        SUM.replace("sum -= item.price", "sum += item.price")
    );
    assert!(
        entry.reason.contains("resolves after push"),
        "{}",
        entry.reason
    );
}

fn proposed_fix(diff: &str) -> String {
    format!(
        "_⚠️ Potential issue_ | _🟠 Major_\n\n**`total` subtracts every price.**\n\nThe sign is wrong, so the total is negative.\n\n<details>\n<summary>🐛 Proposed fix</summary>\n\n```diff\n{diff}```\n</details>\n\n📝 Committable suggestion skipped: line range outside the PR's diff."
    )
}

fn diff_pr(body: &str) -> PullRequest {
    PrBuilder::new()
        .thread(
            "DIFF",
            "src/cart/total.rs",
            2,
            &[(bot("coderabbitai"), body)],
        )
        .build()
}

/// A "Proposed fix" diff that edits existing lines of the thread's file is applied exactly,
/// with no fixer configured; line endings and the missing final newline are kept.
#[test]
fn a_proposed_fix_diff_is_applied_exactly_without_a_fixer() {
    let body = proposed_fix(
        "     for item in items {\n-        sum -= item.price;\n+        sum += item.price;\n     }\n",
    );
    let crlf = SUM.replace('\n', "\r\n");
    let crlf = crlf.strip_suffix("\r\n").unwrap();
    let vcs = FakeVcs::new(HEAD, &[("src/cart/total.rs", crlf)]);
    let (entry, action) = triage(&diff_pr(&body), &vcs, "DIFF");
    assert!(
        matches!(&action, Action::Fix(t) if matches!(t.material, FixMaterial::Diff { .. })),
        "{action:?}"
    );
    assert_eq!(entry.outcome, Outcome::Actioned, "{}", entry.reason);
    assert_eq!(
        vcs.committed_file("src/cart/total.rs").unwrap(),
        crlf.replace("sum -= item.price", "sum += item.price")
    );
}

/// A diff whose context no longer matches the file, or matches twice, is deferred with the
/// reason, and the file is left as it was.
#[test]
fn a_diff_that_does_not_match_exactly_once_is_deferred_with_the_reason() {
    let body = proposed_fix("-        sum -= item.price;\n+        sum += item.price;\n");
    let twice = SUM.replace("    sum\n", "        sum -= item.price;\n    sum\n");
    let vcs = FakeVcs::new(HEAD, &[("src/cart/total.rs", &twice)]);
    let (entry, _) = triage(&diff_pr(&body), &vcs, "DIFF");
    assert_eq!(entry.outcome, Outcome::Deferred);
    assert_eq!(entry.deferred_because, Some(DeferReason::FixFailed));
    assert!(entry.reason.contains("occur 2 times"), "{}", entry.reason);
    assert!(vcs.commits().is_empty());
    assert_eq!(vcs.work_file("src/cart/total.rs").unwrap(), twice);

    let gone = SUM.replace("sum -= item.price", "sum = sum - item.price");
    let vcs = FakeVcs::new(HEAD, &[("src/cart/total.rs", &gone)]);
    let (entry, _) = triage(&diff_pr(&body), &vcs, "DIFF");
    assert_eq!(entry.deferred_because, Some(DeferReason::FixFailed));
    assert!(
        entry.reason.contains("does not contain the diff block"),
        "{}",
        entry.reason
    );
    assert!(vcs.commits().is_empty());
}

/// A diff that creates, deletes or renames a file, or changes a mode, is never applied: the
/// plan defers it with the reason.
#[test]
fn a_diff_that_touches_files_or_modes_is_deferred_with_the_reason() {
    for (diff, why) in [
        (
            "--- /dev/null\n+++ b/src/cart/total.rs\n@@ -0,0 +1 @@\n+pub fn total() {}\n",
            "creates a file",
        ),
        (
            "diff --git a/src/cart/total.rs b/src/cart/total.rs\nold mode 100644\nnew mode 100755\n",
            "changes a file mode",
        ),
        (
            "diff --git a/src/cart/total.rs b/src/cart/total.rs\nsimilarity index 95%\nrename from src/cart/total.rs\nrename to src/cart/sum.rs\n",
            "renames a file",
        ),
    ] {
        let vcs = FakeVcs::new(HEAD, &[("src/cart/total.rs", SUM)]);
        let (entry, action) = triage(&diff_pr(&proposed_fix(diff)), &vcs, "DIFF");
        assert_eq!(action, Action::Leave, "{diff}");
        assert_eq!(entry.outcome, Outcome::Deferred, "{diff}");
        assert!(entry.reason.contains(why), "{diff}: {}", entry.reason);
        assert!(vcs.commits().is_empty());
    }
}

/// A suggestion whose lines moved (lines were added above since the comment) is applied where
/// its original text stands, when that text occurs once within 30 lines; twice, it is deferred.
#[test]
fn a_moved_suggestion_applies_only_on_a_unique_match_within_the_window() {
    let moved = format!("use crate::Item;\n\n// Totals.\n{SUM}");
    let pr = PrBuilder::new()
        .thread(
            "SUM",
            "src/cart/total.rs",
            4,
            &[(bot("coderabbitai"), CRITICAL_WITH_SUGGESTION)],
        )
        .with_last(|t| {
            t.comments[0].diff_hunk = Some(
                "@@ -1,4 +1,4 @@\n pub fn total(items: &[Item]) -> i64 {\n+        sum -= item.price;"
                    .to_owned(),
            );
        })
        .build();
    let vcs = FakeVcs::new(HEAD, &[("src/cart/total.rs", &moved)]);
    let (entry, _) = triage(&pr, &vcs, "SUM");
    assert_eq!(entry.outcome, Outcome::Actioned, "{}", entry.reason);
    assert_eq!(
        vcs.committed_file("src/cart/total.rs").unwrap(),
        moved.replace("sum -= item.price", "sum += item.price")
    );

    let twice = format!(
        "{moved}\npub fn refund(items: &[Item]) -> i64 {{\n    let mut sum = 0;\n    for item in items {{\n        sum -= item.price;\n    }}\n    sum\n}}\n"
    );
    let vcs = FakeVcs::new(HEAD, &[("src/cart/total.rs", &twice)]);
    let (entry, _) = triage(&pr, &vcs, "SUM");
    assert_eq!(entry.outcome, Outcome::Deferred);
    assert_eq!(entry.deferred_because, Some(DeferReason::FixFailed));
    assert!(entry.reason.contains("not guessing"), "{}", entry.reason);
    assert!(vcs.commits().is_empty());
}

/// Two bots posting the same suggestion on the same line are one finding: one fix, and the
/// other thread follows it (it is not applied a second time, which would fail).
#[test]
fn the_same_suggestion_from_two_bots_is_applied_once() {
    let gemini = "![high](https://www.gstatic.com/codereviewagent/high-priority.svg)\n\nThe loop subtracts each price, so the total is negative.\n\n```suggestion\n        sum += item.price;\n```";
    let pr = PrBuilder::new()
        .thread(
            "RABBIT",
            "src/cart/total.rs",
            4,
            &[(bot("coderabbitai"), CRITICAL_WITH_SUGGESTION)],
        )
        .thread(
            "GEMINI",
            "src/cart/total.rs",
            4,
            &[(bot("gemini-code-assist"), gemini)],
        )
        .build();
    let vcs = FakeVcs::new(HEAD, &[("src/cart/total.rs", SUM)]);
    let (leader, action) = triage(&pr, &vcs, "RABBIT");
    assert!(matches!(action, Action::Fix(_)), "{action:?}");
    assert_eq!(leader.outcome, Outcome::Actioned, "{}", leader.reason);
    let (follower, action) = triage(
        &pr,
        &FakeVcs::new(HEAD, &[("src/cart/total.rs", SUM)]),
        "GEMINI",
    );
    assert_eq!(
        action,
        Action::FollowFix {
            leader: ThreadId::from("RABBIT")
        }
    );
    assert!(
        follower.reason.contains("duplicate of RABBIT"),
        "{}",
        follower.reason
    );
    assert_eq!(vcs.commits().len(), 1);
}
