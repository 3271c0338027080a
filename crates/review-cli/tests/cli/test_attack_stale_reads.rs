//! Issue 13, item 9: a person replies in a bot thread between the tool's read and its write
//! (while the fixer works, while `respond` posts, while `--push` pushes). The thread is read again
//! just before the write, and the person's reply keeps it out of the tool's hands.

use review_core::report::{DeferReason, Outcome};
use review_test_support::github::{FakeGitHub, Fault};
use review_test_support::{PrBuilder, bot, person};

use crate::attack2_support::{
    BUGBOT, LIB_HUNK, MAJOR_WITH_SUGGESTION, add_comment, clone, entry, finish, move_head, nitpick,
    replied_in, report, resolved_on_github, review, spawn, wait_until,
};
use crate::common::{TestEnvironment, git, git_out};

// Attack: a person answers the nit while the fixer works on another thread (minutes after the
// read); safe: the resolve batch reads the threads again and leaves the nit open, deferred.
#[tokio::test(flavor = "multi_thread")]
async fn attack_a_persons_reply_while_the_fixer_works_keeps_the_nit_open() {
    let env = TestEnvironment::new();
    let (head, work) = clone(&env);
    let github = FakeGitHub::start().await;
    github.add_pull_request(
        PrBuilder::new()
            .with_pr(|p| p.head_sha.0.clone_from(&head))
            .thread("BUG", "src/lib.rs", 3, &[(bot("cursor"), BUGBOT)])
            .thread(
                "NIT",
                "src/lib.rs",
                1,
                &[(bot("coderabbitai"), &nitpick(0))],
            )
            .build(),
    );
    let started = env.dir().join("fixer-started");
    let release = env.dir().join("fixer-release");
    let fixer = format!(
        "cat > /dev/null; touch '{}'; while [ ! -e '{}' ]; do sleep 0.05; done; \
         sed -i 's/get().unwrap()/get()?/' src/lib.rs",
        started.display(),
        release.display()
    );
    let child = spawn(review(
        &work,
        env.dir(),
        &github,
        &[
            "triage",
            "1",
            "--repo",
            "acme/widgets",
            "--apply",
            "--json",
            "--fixer-cmd",
            &fixer,
        ],
    ));
    wait_until("the fixer starts", || started.exists());
    // The plan is made: NIT is to be resolved. Now a person answers it.
    add_comment(
        &github,
        "NIT",
        person("mei"),
        "please keep this open, I want to rename it myself",
    );
    std::fs::write(&release, "").unwrap();
    let out = finish(child);
    assert_eq!(out.code, 0, "{}", out.stderr);

    let report = report(&out);
    let nit = entry(&report, "NIT");
    assert_eq!(nit.outcome, Outcome::Deferred, "{nit:?}");
    assert_eq!(nit.deferred_because, Some(DeferReason::Human), "{nit:?}");
    assert!(
        nit.reason.contains("since it was read") && nit.reason.contains("@mei"),
        "{}",
        nit.reason
    );
    assert!(
        !resolved_on_github(&github, "NIT"),
        "{:?}",
        github.mutations()
    );
    assert_eq!(
        entry(&report, "BUG").outcome,
        Outcome::Actioned,
        "the rest of the run as usual"
    );
}

// Attack: a person answers thread B while `respond` posts its reply in A (after the run read
// the pull request, before B's post); safe: B is read again just before its post and skipped.
#[tokio::test(flavor = "multi_thread")]
async fn attack_a_persons_reply_while_respond_posts_keeps_the_reply_out_of_that_thread() {
    let env = TestEnvironment::new();
    git(env.dir(), &["init", "-q", "-b", "feature"]);
    let github = FakeGitHub::start().await;
    github.add_pull_request(
        PrBuilder::new()
            .thread("A", "src/lib.rs", 3, &[(bot("coderabbitai"), "x")])
            .thread("B", "src/lib.rs", 5, &[(bot("coderabbitai"), "y")])
            .build(),
    );
    env.write(
        "replies.json",
        r#"[
  {"threadId": "A", "replyBody": "Not applying this — the cache is deliberate.", "resolve": true},
  {"threadId": "B", "replyBody": "Out of scope for this PR; tracked separately.", "resolve": true}
]"#,
    );
    // A's reply lands at once, its answer comes late: time for a person to answer B.
    github.inject(Fault::Slow {
        operation: Some("AddThreadReply".to_owned()),
        delay: std::time::Duration::from_secs(2),
        times: 1,
    });
    let child = spawn(review(
        env.dir(),
        env.dir(),
        &github,
        &[
            "respond",
            "1",
            "--repo",
            "acme/widgets",
            "--replies",
            "replies.json",
        ],
    ));
    wait_until("A's reply lands", || replied_in(&github, "A"));
    add_comment(
        &github,
        "B",
        person("mei"),
        "no: this one matters, let us talk",
    );
    let out = finish(child);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(
        out.stdout.contains(
            "skipped  B: since it was read, human participation (@mei); the PR author answers"
        ),
        "{}",
        out.stdout
    );
    assert!(!replied_in(&github, "B"), "{:?}", github.mutations());
    assert!(!resolved_on_github(&github, "B"));
    assert!(resolved_on_github(&github, "A"), "the rest as usual");
}

// Attack: a person answers thread A after `respond` posted its reply there and before the
// resolve batch at the end of the run (another reply was being posted meanwhile); safe: the
// threads are read again before the resolves, and A stays open.
#[tokio::test(flavor = "multi_thread")]
async fn attack_a_persons_reply_after_the_tools_reply_keeps_the_thread_unresolved() {
    let env = TestEnvironment::new();
    git(env.dir(), &["init", "-q", "-b", "feature"]);
    let github = FakeGitHub::start().await;
    // The token's owner is not the PR's author: the tool's reply is its own by its header and
    // key (and its ledger), not by who wrote the PR.
    github.set_viewer("review-ci");
    github.add_pull_request(
        PrBuilder::new()
            .thread("A", "src/lib.rs", 3, &[(bot("coderabbitai"), "x")])
            .thread("B", "src/lib.rs", 5, &[(bot("coderabbitai"), "y")])
            .build(),
    );
    env.write(
        "replies.json",
        r#"[
  {"threadId": "A", "replyBody": "Not applying this — the cache is deliberate.", "resolve": true},
  {"threadId": "B", "replyBody": "Out of scope for this PR; tracked separately.", "resolve": true}
]"#,
    );
    // The reads of single threads before each post come late: B's read gives a person time to
    // answer A, after A's reply landed.
    github.inject(Fault::Slow {
        operation: Some("ThreadCommentsPage".to_owned()),
        delay: std::time::Duration::from_secs(2),
        times: 2,
    });
    let child = spawn(review(
        env.dir(),
        env.dir(),
        &github,
        &[
            "respond",
            "1",
            "--repo",
            "acme/widgets",
            "--replies",
            "replies.json",
        ],
    ));
    wait_until("A's reply lands", || replied_in(&github, "A"));
    add_comment(
        &github,
        "A",
        person("mei"),
        "the cache is not deliberate, it leaks: please keep this open",
    );
    let out = finish(child);
    assert!(
        !resolved_on_github(&github, "A"),
        "a person answered A before the resolve: {:?}\n{}",
        github.mutations(),
        out.stdout
    );
    assert!(
        out.stdout.contains("A: not resolved: since it was read"),
        "{}",
        out.stdout
    );
    assert!(resolved_on_github(&github, "B"), "{}", out.stdout);
    assert_eq!(out.code, 0, "{}\n{}", out.stdout, out.stderr);
}

// Attack: a person answers the fixed thread while `--push` pushes its fix (the resolve after the
// push comes minutes after the read); safe: the threads are read again after the push and the
// fixed thread is left open, its fix pushed.
#[tokio::test(flavor = "multi_thread")]
async fn attack_a_persons_reply_during_the_push_keeps_the_fixed_thread_open() {
    let env = TestEnvironment::new();
    let (head, work) = clone(&env);
    let remote = env.dir().join("remote.git");
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
            .build(),
    );
    // GitHub's side of the push: it records the pushed commit and holds the push until the test
    // has shown it on the pull request, with a person's reply in the fixed thread.
    let pushed = env.dir().join("pushed");
    let release = env.dir().join("push-release");
    let hook = remote.join("hooks/post-receive");
    std::fs::write(
        &hook,
        format!(
            "#!/bin/sh\nread old new ref\necho \"$new\" > '{0}.tmp' && mv '{0}.tmp' '{0}'\n\
             while [ ! -e '{1}' ]; do sleep 0.05; done\n",
            pushed.display(),
            release.display()
        ),
    )
    .unwrap();
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&hook, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
    let child = spawn(review(
        &work,
        env.dir(),
        &github,
        &[
            "triage",
            "1",
            "--repo",
            "acme/widgets",
            "--apply",
            "--json",
            "--push",
        ],
    ));
    wait_until("the push reaches the remote", || pushed.exists());
    let sha = std::fs::read_to_string(&pushed).unwrap().trim().to_owned();
    move_head(&github, &sha);
    add_comment(
        &github,
        "FIX",
        person("mei"),
        "wait, I want to review this fix before it is closed",
    );
    std::fs::write(&release, "").unwrap();
    let out = finish(child);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert_eq!(
        git_out(&remote, &["rev-parse", "feature"]),
        sha,
        "the fix is pushed"
    );
    assert_eq!(git_out(&work, &["rev-parse", "HEAD"]), sha);
    let report = report(&out);
    let fix = entry(&report, "FIX");
    assert!(
        fix.reason
            .contains("pushed; not resolved: since it was read")
            && fix.reason.contains("@mei"),
        "{fix:?}"
    );
    assert!(
        !resolved_on_github(&github, "FIX"),
        "{:?}",
        github.mutations()
    );
}
