//! Issue 13, item 17: every mutation is recorded (commits, pushes, resolves, replies,
//! minimizes), with its run, failures included, and shown by `review log`.

use std::collections::BTreeSet;

use review_core::model::{Review, ReviewId, ReviewState, ThreadId};
use review_core::report::Outcome;
use review_test_support::github::{FakeGitHub, Fault};
use review_test_support::{Mutation, PrBuilder, bot};
use serde_json::Value;

use crate::attack2_support::{
    LIB_HUNK, MAJOR_WITH_SUGGESTION, clone, entry, move_head, nitpick, report, review, run,
};
use crate::common::{Output, TestEnvironment, git_out};

fn log_entries(out: &Output) -> Vec<Value> {
    assert_eq!(out.code, 0, "{}", out.stderr);
    out.stdout
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("not JSON ({e}): {l}")))
        .collect()
}

// Attack: a run commits, resolves and replies (or fails to) and leaves no trace of what it did
// to the user's pull request; safe: each mutation is appended to the audit log with its run
// id, a failed one as failed, and `review log` shows them, per run on request.
#[tokio::test(flavor = "multi_thread")]
async fn attack_every_mutation_is_in_the_log_with_its_run_failures_too() {
    let env = TestEnvironment::new();
    let (head, work) = clone(&env);
    let github = FakeGitHub::start().await;
    github.add_pull_request(
        PrBuilder::new()
            .with_pr(|p| p.head_sha.0.clone_from(&head))
            .thread(
                "FIX",
                "src/lib.rs",
                3,
                &[(bot("coderabbitai"), MAJOR_WITH_SUGGESTION)],
            )
            .with_last(|t| t.comments[0].diff_hunk = Some(LIB_HUNK.to_owned()))
            .thread("NIT", "src/m0.rs", 1, &[(bot("coderabbitai"), &nitpick(0))])
            .thread(
                "ASK",
                "src/lib.rs",
                1,
                &[(bot("cursor"), "Is `a` still used?")],
            )
            .thread(
                "LATER",
                "src/lib.rs",
                2,
                &[(bot("cursor"), "Is `b` still used?")],
            )
            .build(),
    );
    let tool = |args: &[&str]| {
        let mut full = args.to_vec();
        full.extend(["--repo", "acme/widgets"]);
        run(review(&work, env.dir(), &github, &full))
    };

    // Run 1: a fix commit and a resolve.
    let out = tool(&["triage", "1", "--apply", "--json", "--no-ladder"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let triaged = report(&out);
    assert_eq!(entry(&triaged, "FIX").outcome, Outcome::Actioned);
    assert_eq!(entry(&triaged, "NIT").outcome, Outcome::Resolved);
    let fix_commit = git_out(&work, &["rev-parse", "HEAD"]);

    // Run 2: a reply.
    std::fs::write(
        work.join("replies.json"),
        r#"[{"threadId": "ASK", "replyBody": "Yes, by the CLI entry point.", "resolve": false}]"#,
    )
    .unwrap();
    let out = tool(&["respond", "1", "--replies", "replies.json"]);
    assert_eq!(out.code, 0, "{}", out.stderr);

    // Run 3: a resolve GitHub fails.
    github.inject(Fault::AliasError {
        alias: "r0".to_owned(),
        times: 1,
    });
    let out = tool(&["resolve", "LATER", "--pr", "1"]);
    assert_eq!(out.code, 4, "{}", out.stderr);

    // The log, as JSON lines: each parses, each names its run and command.
    let all = log_entries(&tool(&["log", "1", "--json"]));
    let find = |action: &str, target: &str| -> &Value {
        all.iter()
            .find(|e| e["action"] == action && e["target"] == target)
            .unwrap_or_else(|| panic!("no {action} of {target} in {all:#?}"))
    };
    let commit = all
        .iter()
        .find(|e| e["action"] == "commit")
        .unwrap_or_else(|| panic!("no commit in {all:#?}"));
    assert_eq!(commit["target"], fix_commit.as_str(), "{commit}");
    assert_eq!(commit["outcome"], "ok");
    assert_eq!(commit["command"], "triage");
    let resolve = find("resolve", "NIT");
    assert_eq!(
        (&resolve["outcome"], &resolve["command"]),
        (&"ok".into(), &"triage".into())
    );
    let reply = find("reply", "ASK");
    assert_eq!(
        (&reply["outcome"], &reply["command"]),
        (&"ok".into(), &"respond".into())
    );
    assert!(
        reply["detail"]
            .as_str()
            .unwrap()
            .contains("/pull/1#discussion_r"),
        "the reply's link: {reply}"
    );
    let failed = find("resolve", "LATER");
    assert_eq!(failed["outcome"], "failed", "{failed}");
    assert_eq!(failed["command"], "resolve");
    assert!(
        !failed["detail"].as_str().unwrap().is_empty(),
        "why: {failed}"
    );

    // One run id per run: the commit and the resolve of run 1 share one; each run has its own.
    let run1 = commit["run"].as_str().unwrap().to_owned();
    assert_eq!(resolve["run"], run1.as_str());
    let runs: BTreeSet<&str> = all.iter().map(|e| e["run"].as_str().unwrap()).collect();
    assert_eq!(runs.len(), 3, "three runs: {all:#?}");
    assert_ne!(reply["run"], failed["run"]);
    assert_ne!(reply["run"], run1.as_str());

    // --run keeps that run's entries only.
    let only = log_entries(&tool(&["log", "1", "--json", "--run", &run1]));
    assert!(!only.is_empty());
    assert!(only.iter().all(|e| e["run"] == run1.as_str()), "{only:#?}");
    assert_eq!(
        only.len(),
        all.iter().filter(|e| e["run"] == run1.as_str()).count()
    );

    // The listing for people says the same.
    let out = tool(&["log", "1"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    for needle in ["commit", "resolve", "reply", "failed", &run1] {
        assert!(out.stdout.contains(needle), "{needle}: {}", out.stdout);
    }
    let failed_line = out
        .stdout
        .lines()
        .find(|l| l.contains("LATER"))
        .unwrap_or_else(|| panic!("{}", out.stdout));
    assert!(failed_line.contains("failed"), "{failed_line}");
}

// Attack: a run pushes the user's branch, or hides comments on the pull request, and leaves no
// trace of it: only commits, resolves and replies would be on record. Safe: the push (the remote
// and refspec it went to, the commit pushed) and each minimize (the comment, why) are in the
// audit log with their runs and commands, and `review log` shows them.
#[tokio::test(flavor = "multi_thread")]
async fn attack_pushes_and_minimizes_are_in_the_log_too() {
    let env = TestEnvironment::new();
    let (head, work) = clone(&env);
    let remote = env.dir().join("remote.git");
    let github = FakeGitHub::start().await;
    github.set_viewer("dana");
    let mut pr = PrBuilder::new()
        .with_pr(|p| p.head_sha.0.clone_from(&head))
        .thread(
            "FIX",
            "src/lib.rs",
            3,
            &[(bot("coderabbitai"), MAJOR_WITH_SUGGESTION)],
        )
        .with_last(|t| t.comments[0].diff_hunk = Some(LIB_HUNK.to_owned()))
        .thread(
            "ASK",
            "src/lib.rs",
            1,
            &[(bot("coderabbitai"), "Is `a` still used?")],
        )
        .build();
    // Both threads came in one CodeRabbit review: the follow-up's group `R1`.
    pr.reviews.push(Review {
        id: ReviewId("R1".into()),
        author: Some(bot("coderabbitai")),
        state: ReviewState::Commented,
        body: String::new(),
        submitted_at: Some("2026-01-05T10:00:00Z".into()),
        commit: Some(pr.head_sha.clone()),
    });
    for t in &mut pr.threads {
        t.comments[0].review_id = Some(ReviewId("R1".into()));
    }
    github.add_pull_request(pr);
    let tool = |args: &[&str]| {
        let mut full = args.to_vec();
        full.extend(["--repo", "acme/widgets"]);
        run(review(&work, env.dir(), &github, &full))
    };

    // Run 1: the fix committed and pushed.
    let out = tool(&["triage", "1", "--apply", "--json", "--push", "--no-ladder"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let pushed = git_out(&work, &["rev-parse", "HEAD"]);
    assert_ne!(pushed, head);
    assert_eq!(git_out(&remote, &["rev-parse", "feature"]), pushed);

    // GitHub shows the push; run 2 resolves the fixed thread.
    move_head(&github, &pushed);
    let out = tool(&["triage", "1", "--apply", "--json", "--no-ladder"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(
        github
            .mutations()
            .contains(&Mutation::Resolve(ThreadId::from("FIX"))),
        "{}",
        out.stderr
    );

    // Run 3: the follow-up answers the question and, its group all resolved, hides the group.
    std::fs::write(
        work.join("answers.json"),
        r#"{"status": "submitted",
            "issues": {"ASK": {"instruction": "Yes, the CLI entry point calls it.", "action": "reply", "autoResolve": true}},
            "groups": {"R1": {"hide": true}}}"#,
    )
    .unwrap();
    let out = tool(&["followup", "1", "--answers", "answers.json", "--yes"]);
    assert_eq!(out.code, 0, "{}\n{}", out.stdout, out.stderr);
    let minimized: Vec<String> = github
        .mutations()
        .into_iter()
        .filter_map(|m| match m {
            Mutation::Minimize(id) => Some(id.0),
            _ => None,
        })
        .collect();
    assert!(!minimized.is_empty(), "{}", out.stderr);

    let all = log_entries(&tool(&["log", "1", "--json"]));
    let push = all
        .iter()
        .find(|e| e["action"] == "push")
        .unwrap_or_else(|| panic!("no push in {all:#?}"));
    assert_eq!(push["target"], "origin HEAD:refs/heads/feature", "{push}");
    assert_eq!(push["detail"], pushed.as_str(), "the commit pushed: {push}");
    assert_eq!(
        (&push["outcome"], &push["command"]),
        (&"ok".into(), &"triage".into())
    );
    for id in &minimized {
        let hidden = all
            .iter()
            .find(|e| e["action"] == "minimize" && e["target"] == id.as_str())
            .unwrap_or_else(|| panic!("no minimize of {id} in {all:#?}"));
        assert_eq!(
            (&hidden["outcome"], &hidden["command"]),
            (&"ok".into(), &"followup".into())
        );
        assert_eq!(hidden["detail"], "Outdated", "why: {hidden}");
        assert_ne!(hidden["run"], push["run"]);
    }
    assert_eq!(
        all.iter().filter(|e| e["action"] == "minimize").count(),
        minimized.len(),
        "one entry per minimize: {all:#?}"
    );

    // The listing for people says the same.
    let out = tool(&["log", "1"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let line_of = |needle: &str| {
        out.stdout
            .lines()
            .find(|l| l.contains(needle))
            .unwrap_or_else(|| panic!("{needle}: {}", out.stdout))
            .to_owned()
    };
    let push_line = line_of("origin HEAD:refs/heads/feature");
    assert!(
        push_line.contains("push") && push_line.contains(&pushed),
        "{push_line}"
    );
    for id in &minimized {
        let line = line_of(id);
        assert!(
            line.contains("minimize") && line.contains("followup"),
            "{line}"
        );
    }
}
