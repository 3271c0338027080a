//! Attacks through git hooks (issue 13, item 3): the pull request commits hooks under `.husky/`
//! and the clone points `core.hooksPath` at them (as husky, lefthook or pre-commit set it up),
//! with more hooks in `.git/hooks`; every hook writes a marker outside the clone. The tool's git
//! commands run none of them unless the user opts in with `--run-hooks`.

use std::path::PathBuf;

use review_core::model::{Review, ReviewId, ReviewState};
use review_core::report::Outcome;
use review_test_support::bot;

use crate::attack_harness::{Attack, CODE, HUNK, TRIAGE_VALID, VALID, entry, script, suggestion};
use crate::common::{git, git_out};

/// Every hook a commit, checkout, worktree, cherry-pick, push or index write can run.
const HOOKS: [&str; 11] = [
    "pre-commit",
    "prepare-commit-msg",
    "commit-msg",
    "post-commit",
    "pre-push",
    "post-checkout",
    "post-merge",
    "post-rewrite",
    "reference-transaction",
    "post-index-change",
    "pre-auto-gc",
];

/// Commits the hooks under `.husky/` as part of the PR (and pushes), points `core.hooksPath` at
/// them, and adds the same hooks to `.git/hooks`. Returns the marker file they append to.
fn hooked(a: &Attack) -> PathBuf {
    let marker = a.outside("hooks-ran");
    for name in HOOKS {
        for (dir, tag) in [(".husky", "husky"), (".git/hooks", "git-dir")] {
            script(
                &a.work.join(dir).join(name),
                &format!("echo '{tag} {name}' >> '{}'\n", marker.display()),
            );
        }
    }
    git(&a.work, &["add", ".husky"]);
    crate::common::commit(&a.work, "chore: husky");
    a.push();
    git(&a.work, &["config", "core.hooksPath", ".husky"]);
    marker
}

/// The hooks that ran since `marker` was cleared.
fn ran(marker: &PathBuf) -> Vec<String> {
    std::fs::read_to_string(marker)
        .unwrap_or_default()
        .lines()
        .map(str::to_owned)
        .collect()
}

/// A clone with hooks and a PR whose bot thread `FIX` carries a suggestion for `src/lib.rs`.
async fn hooked_pr() -> (Attack, PathBuf) {
    let a = Attack::with_files(&[("src/lib.rs", CODE)]).await;
    let marker = hooked(&a);
    a.open_pr(|b| {
        b.thread(
            "FIX",
            "src/lib.rs",
            3,
            &[(
                bot("coderabbitai"),
                &suggestion("Unchecked unwrap on request input"),
            )],
        )
        .with_last(|t| t.comments[0].diff_hunk = Some(HUNK.to_owned()))
    });
    let _ = std::fs::remove_file(&marker);
    (a, marker)
}

/// Attack (3): `triage --apply --push` in a clone whose PR ships hooks (`core.hooksPath=.husky`)
/// and has hooks in `.git/hooks`. Safe: the fix is committed and pushed and no hook runs; with
/// `--run-hooks` (the user's opt-in) the commit hooks do.
#[tokio::test(flavor = "multi_thread")]
async fn attack_triage_apply_push_runs_none_of_the_prs_hooks() {
    let (a, marker) = hooked_pr().await;
    let (out, report) = a.apply(&["--push"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert_eq!(entry(&report, "FIX").outcome, Outcome::Actioned);
    let remote = a.env.dir().join("remote.git");
    assert_eq!(
        git_out(&remote, &["rev-parse", "feature"]),
        a.head(),
        "committed and pushed"
    );
    assert_eq!(ran(&marker), Vec::<String>::new(), "no hook ran");

    // The user opts in: the commit hooks run (the push never runs pre-push: `--no-verify`).
    let (a, marker) = hooked_pr().await;
    let (out, report) = a.apply(&["--push", "--run-hooks"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert_eq!(entry(&report, "FIX").outcome, Outcome::Actioned);
    let ran = ran(&marker);
    for hook in ["husky pre-commit", "husky commit-msg", "husky post-commit"] {
        assert!(ran.iter().any(|r| r == hook), "{hook}: {ran:?}");
    }
}

/// Attack (3): `commit-round` in a clone whose PR ships hooks. Safe: the round is committed and
/// no hook runs; with `--run-hooks` the commit hooks do.
#[tokio::test(flavor = "multi_thread")]
async fn attack_commit_round_runs_none_of_the_prs_hooks() {
    for opt_in in [false, true] {
        let (a, marker) = hooked_pr().await;
        a.poll();
        a.decide("FIX", VALID);
        a.write("src/lib.rs", &CODE.replace("get().unwrap()", "get()?"));
        let _ = std::fs::remove_file(&marker);
        let mut args = vec!["--check-cmd", "true"];
        if opt_in {
            args.push("--run-hooks");
        }
        let out = a.on_pr("commit-round", &args);
        assert_eq!(out.code, 0, "{}", out.stderr);
        assert_eq!(a.files_of("HEAD"), ["src/lib.rs"]);
        let ran = ran(&marker);
        if opt_in {
            assert!(ran.iter().any(|r| r == "husky pre-commit"), "{ran:?}");
            assert!(ran.iter().any(|r| r == "husky commit-msg"), "{ran:?}");
        } else {
            assert_eq!(ran, Vec::<String>::new(), "no hook ran");
        }
    }
}

/// Attack (3): `review loop` (triager, fixer, checks, round commit) in a clone whose PR ships
/// hooks. Safe: the round is committed and no hook runs; with `--run-hooks` the commit hooks do.
#[tokio::test(flavor = "multi_thread")]
async fn attack_the_loop_runs_none_of_the_prs_hooks() {
    for opt_in in [false, true] {
        let (a, marker) = hooked_pr().await;
        let triager = a.sh("triage.sh", TRIAGE_VALID);
        let mut args = vec![
            "--triager-cmd",
            &triager,
            "--fixer-cmd",
            "sed -i 's/get().unwrap()/get()?/' src/lib.rs",
            "--check-cmd",
            "true",
            "--interval",
            "0",
            "--max-polls",
            "1",
        ];
        if opt_in {
            args.push("--run-hooks");
        }
        let out = a.on_pr("loop", &args);
        assert_eq!(out.code, 0, "{}", out.stderr);
        assert!(out.stderr.contains("ready to push"), "{}", out.stderr);
        assert_eq!(a.files_of("HEAD"), ["src/lib.rs"]);
        let ran = ran(&marker);
        if opt_in {
            assert!(ran.iter().any(|r| r == "husky pre-commit"), "{ran:?}");
        } else {
            assert_eq!(ran, Vec::<String>::new(), "no hook ran");
        }
    }
}

/// The agent: commits its edit of the task's file with hooks off (its own git is its business;
/// only the tool's git commands are under test).
const AGENT: &str = r#"set -e
file=$(grep -o 'src/[a-z]*\.rs' "$REVIEW_TASK_FILE" | head -n 1)
echo "// fixed" >> "$file"
git -c core.hooksPath=/dev/null add "$file"
git -c core.hooksPath=/dev/null commit -q -m "fix: $file"
"#;

/// A PR whose two bot threads (one CodeRabbit review) become independent follow-up tasks.
async fn followup_pr() -> (Attack, PathBuf) {
    let a = Attack::with_files(&[("src/cache.rs", "// cache\n"), ("src/api.rs", "// api\n")]).await;
    let marker = hooked(&a);
    let pr = a.open_pr(|b| {
        b.thread(
            "CACHE",
            "src/cache.rs",
            1,
            &[(
                bot("coderabbitai"),
                "**Unbounded cache.** Entries are never evicted.",
            )],
        )
        .thread(
            "API",
            "src/api.rs",
            1,
            &[(
                bot("coderabbitai"),
                "**Wrong status code.** 404 should be 204.",
            )],
        )
    });
    let head = pr.head_sha;
    a.github
        .update_pull_request(&crate::attack_harness::repo(), 1, |pr| {
            pr.reviews.push(Review {
                id: ReviewId("R1".into()),
                author: Some(bot("coderabbitai")),
                state: ReviewState::Commented,
                body: String::new(),
                submitted_at: Some("2026-01-05T10:00:00Z".into()),
                commit: Some(head),
            });
            for t in &mut pr.threads {
                t.comments[0].review_id = Some(ReviewId("R1".into()));
            }
        });
    std::fs::write(
        a.outside("answers.json"),
        r#"{"status": "submitted", "issues": {
            "CACHE": {"instruction": "fix the eviction", "autoResolve": true},
            "API": {"instruction": "fix the status code", "autoResolve": true}}}"#,
    )
    .unwrap();
    let _ = std::fs::remove_file(&marker);
    (a, marker)
}

/// Attack (3): `followup` dispatches two tasks in parallel, each in a git worktree (checkouts
/// run post-checkout) merged back by cherry-pick (post-commit, post-rewrite), in a clone whose PR
/// ships hooks. Safe: both tasks are merged and no hook runs; with `--run-hooks` the worktree
/// checkout's post-checkout does.
#[tokio::test(flavor = "multi_thread")]
async fn attack_followup_worktrees_run_none_of_the_prs_hooks() {
    for opt_in in [false, true] {
        let (a, marker) = followup_pr().await;
        let agent = a.sh("agent.sh", AGENT);
        let answers = a.outside("answers.json");
        let mut args = vec![
            "--answers",
            answers.to_str().unwrap(),
            "--yes",
            "--agent-cmd",
            &agent,
        ];
        if opt_in {
            args.push("--run-hooks");
        }
        let out = a.on_pr("followup", &args);
        assert_eq!(out.code, 0, "{}\n{}", out.stdout, out.stderr);
        assert!(
            out.stderr.contains("in parallel, one git worktree each"),
            "{}",
            out.stderr
        );
        let mut merged = a.files_of("HEAD");
        merged.extend(a.files_of("HEAD~1"));
        merged.sort();
        assert_eq!(merged, ["src/api.rs", "src/cache.rs"], "both merged back");
        let ran = ran(&marker);
        if opt_in {
            assert!(ran.iter().any(|r| r == "husky post-checkout"), "{ran:?}");
        } else {
            assert_eq!(ran, Vec::<String>::new(), "no hook ran");
        }
    }
}

/// Attack (3 with 19): the user opts into hooks (`--run-hooks`) and the PR's `pre-commit`
/// hook dumps its environment while the token variables are set. Safe: the hook runs (the
/// user asked for that) but gets no token: only a push may need one.
#[tokio::test(flavor = "multi_thread")]
async fn attack_hooks_the_user_opted_into_get_no_token() {
    let (a, marker) = hooked_pr().await;
    let dump = a.outside("hook.env");
    script(
        &a.work.join(".husky/pre-commit"),
        &format!("env > '{}'\n", dump.display()),
    );
    let secrets = [
        ("GH_TOKEN", "ghp_GHTOKENsecret0001"),
        ("GITHUB_TOKEN", "ghp_GITHUBTOKENsecret0002"),
        ("GH_ENTERPRISE_TOKEN", "ghe_ENTERPRISEsecret0003"),
    ];
    let out = a.run_with(
        &[
            "triage",
            "1",
            "--repo",
            "acme/widgets",
            "--apply",
            "--json",
            "--run-hooks",
        ],
        &secrets,
    );
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(ran(&marker).iter().any(|r| r == "husky commit-msg"));
    let env = std::fs::read_to_string(&dump).unwrap();
    assert!(env.contains("PATH="), "{env}");
    for (name, value) in secrets {
        assert!(!env.contains(value), "the hook sees {name}");
    }
}
