//! Issue 13, items 10 to 13: the human gate's side doors. The tool's own replies when the token's
//! owner is not the PR's author, a review a person wrote answered by `respond`, an automation
//! account written `app[bot]` matching a person named `app`, and a thread a person reopened after
//! the tool resolved it.

use review_core::model::{Review, ReviewId, ReviewState, ThreadId};
use review_core::report::{DeferReason, Outcome};
use review_test_support::github::FakeGitHub;
use review_test_support::{Mutation, PrBuilder, bot, person};
use serde_json::Value;

use crate::attack2_support::{
    entry, fake_pr, nitpick, replied_in, report, resolved_on_github, review, run,
};
use crate::common::{Output, TestEnvironment, git};

/// A directory with an empty git repository in it (a clone the tool keeps its files in).
fn clone_dir(env: &TestEnvironment, name: &str) -> std::path::PathBuf {
    let dir = env.dir().join(name);
    std::fs::create_dir_all(&dir).unwrap();
    git(&dir, &["init", "-q", "-b", "feature"]);
    dir
}

fn in_dir(
    env: &TestEnvironment,
    dir: &std::path::Path,
    github: &FakeGitHub,
    args: &[&str],
) -> Output {
    let mut full = args.to_vec();
    full.extend(["--repo", "acme/widgets"]);
    run(review(dir, env.dir(), github, &full))
}

fn apply(
    env: &TestEnvironment,
    dir: &std::path::Path,
    github: &FakeGitHub,
    extra: &[&str],
) -> Output {
    let mut args = vec!["triage", "1", "--apply", "--json"];
    args.extend_from_slice(extra);
    in_dir(env, dir, github, &args)
}

/// `review threads --json`: each thread's `human`, by id.
fn human_by_thread(out: &Output) -> std::collections::BTreeMap<String, bool> {
    assert_eq!(out.code, 0, "{}", out.stderr);
    let listing: Value = serde_json::from_str(&out.stdout).unwrap();
    listing["threads"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| {
            (
                t["id"].as_str().unwrap().to_owned(),
                t["human"].as_bool().unwrap(),
            )
        })
        .collect()
}

// Attack: the token belongs to a CI account (`review-ci`), not to the PR's author, so the tool's
// own reply reads as a person's and its thread is never closed; and anyone may copy the header
// and a key. Safe: a reply by the viewer carrying the header and a well-formed key is the tool's
// own (in another clone too, without the ledger), a copy by another account stays a person's.
#[tokio::test(flavor = "multi_thread")]
async fn attack_the_tools_reply_through_a_ci_token_is_its_own_and_a_forged_one_is_a_persons() {
    let env = TestEnvironment::new();
    let github = FakeGitHub::start().await;
    github.set_viewer("review-ci");
    let forged_key = review_core::post::idempotency_key(&ThreadId::from("B"), "Fixed.");
    let forged = review_core::post::marked_body(
        review_core::gate::DEFAULT_AUTOMATED_HEADER,
        "Fixed.",
        &forged_key,
    );
    github.add_pull_request(
        PrBuilder::new()
            .thread("A", "src/m0.rs", 1, &[(bot("coderabbitai"), &nitpick(0))])
            .thread(
                "B",
                "src/m1.rs",
                1,
                &[(bot("coderabbitai"), &nitpick(1)), (person("eve"), &forged)],
            )
            .build(),
    );
    assert_eq!(
        fake_pr(&github).author.unwrap().login,
        "dana",
        "the PR's author is not the token's owner"
    );

    // A CI job answers A (without resolving it).
    let ci = clone_dir(&env, "ci-respond");
    std::fs::write(
        ci.join("replies.json"),
        r#"[{"threadId": "A", "replyBody": "Renaming is out of scope here.", "resolve": false}]"#,
    )
    .unwrap();
    let out = in_dir(
        &env,
        &ci,
        &github,
        &["respond", "1", "--replies", "replies.json"],
    );
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(replied_in(&github, "A"));
    let reply = &fake_pr(&github).threads[0].comments[1];
    assert_eq!(reply.author.as_ref().unwrap().login, "review-ci");

    // Another job, in another clone (no ledger of the first): the reply is the tool's own.
    let other = clone_dir(&env, "ci-triage");
    let human = human_by_thread(&in_dir(&env, &other, &github, &["threads", "1", "--json"]));
    assert!(!human["A"], "the tool's own reply: {human:?}");
    assert!(human["B"], "eve's copy of the header and a key: {human:?}");
    // And in the clone with the ledger.
    let human = human_by_thread(&in_dir(&env, &ci, &github, &["threads", "1", "--json"]));
    assert_eq!((human["A"], human["B"]), (false, true), "{human:?}");

    let out = apply(&env, &other, &github, &[]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let report = report(&out);
    assert_eq!(
        entry(&report, "A").outcome,
        Outcome::Resolved,
        "{:?}",
        entry(&report, "A")
    );
    assert!(resolved_on_github(&github, "A"));
    let b = entry(&report, "B");
    assert_eq!(
        (b.outcome, b.deferred_because),
        (Outcome::Deferred, Some(DeferReason::Human)),
        "{b:?}"
    );
    assert!(b.reason.contains("@eve"), "{}", b.reason);
    assert!(!resolved_on_github(&github, "B"));
}

fn review_by(id: &str, author: review_core::model::Author) -> Review {
    Review {
        id: ReviewId(id.to_owned()),
        author: Some(author),
        state: ReviewState::Commented,
        body: "A few things outside the diff: the README example is stale.".to_owned(),
        submitted_at: Some("2026-11-30T10:00:00Z".to_owned()),
        commit: None,
    }
}

// Attack: a replies file (an agent's) answers a review a person wrote, by its `reviewId`; safe:
// a review gets the gate a thread gets: nothing posted, the entry skipped with the reason.
#[tokio::test(flavor = "multi_thread")]
async fn attack_respond_does_not_answer_a_review_a_person_wrote() {
    let env = TestEnvironment::new();
    let github = FakeGitHub::start().await;
    github.add_pull_request(
        PrBuilder::new()
            .with_pr(|p| {
                p.reviews.push(review_by("R_MEI", person("mei")));
                p.reviews.push(review_by("R_BOT", bot("coderabbitai")));
            })
            .build(),
    );
    let dir = clone_dir(&env, "work");
    std::fs::write(
        dir.join("replies.json"),
        r#"[
  {"reviewId": "R_MEI", "replyBody": "Out of scope for this PR."},
  {"reviewId": "R_BOT", "replyBody": "The README example is updated separately."}
]"#,
    )
    .unwrap();
    let out = in_dir(
        &env,
        &dir,
        &github,
        &["respond", "1", "--replies", "replies.json"],
    );
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(
        out.stdout
            .contains("skipped  R_MEI: human participation (@mei); the PR author answers"),
        "{}",
        out.stdout
    );
    let comments: Vec<String> = github
        .mutations()
        .into_iter()
        .filter_map(|m| match m {
            Mutation::Comment(body) => Some(body),
            _ => None,
        })
        .collect();
    assert_eq!(
        comments.len(),
        1,
        "only the bot's review is answered: {comments:?}"
    );
    assert!(comments[0].contains("The README example is updated separately."));
    assert!(!comments[0].contains("Out of scope for this PR."));
}

// Attack: the user names the automation account `app[bot]`, and a person whose login is `app`
// (typed `User`) comments in bot threads, which then read as automated and are resolved; safe:
// an entry ending in `[bot]` matches only authors GitHub types `Bot`.
#[tokio::test(flavor = "multi_thread")]
async fn attack_a_person_named_like_a_bot_suffixed_account_stays_a_person() {
    let env = TestEnvironment::new();
    let github = FakeGitHub::start().await;
    github.add_pull_request(
        PrBuilder::new()
            .thread(
                "X",
                "src/m0.rs",
                1,
                &[
                    (bot("coderabbitai"), &nitpick(0)),
                    (person("app"), "do not resolve this, I am on it"),
                ],
            )
            .thread("Y", "src/m1.rs", 1, &[(person("app"), &nitpick(1))])
            // The account the user meant: a bot named `app`.
            .thread(
                "Z",
                "src/m2.rs",
                1,
                &[
                    (bot("coderabbitai"), &nitpick(2)),
                    (bot("app"), "Acknowledged by the app."),
                ],
            )
            .build(),
    );
    let dir = clone_dir(&env, "work");
    let out = apply(&env, &dir, &github, &["--automation-account", "app[bot]"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let report = report(&out);
    for id in ["X", "Y"] {
        let e = entry(&report, id);
        assert_eq!(
            (e.outcome, e.deferred_because),
            (Outcome::Deferred, Some(DeferReason::Human)),
            "{e:?}"
        );
        assert!(e.reason.contains("@app"), "{}", e.reason);
        assert!(!resolved_on_github(&github, id), "{id}");
    }
    assert_eq!(
        entry(&report, "Z").outcome,
        Outcome::Resolved,
        "the bot `app` is the automation account: {:?}",
        entry(&report, "Z")
    );
    // `review resolve` says the same.
    let out = in_dir(
        &env,
        &dir,
        &github,
        &[
            "resolve",
            "X",
            "--pr",
            "1",
            "--automation-account",
            "app[bot]",
        ],
    );
    assert_eq!(out.code, 6, "{}", out.stderr);
    assert!(
        out.stderr.contains("human participation (@app)"),
        "{}",
        out.stderr
    );
    assert!(!resolved_on_github(&github, "X"));
}

// Attack: a person reopens a bot thread the tool resolved (GitHub does not say who reopened
// it), and the next run resolves it again; safe: a thread the audit log says the tool resolved
// that is open again is deferred as reopened, by triage and by `review resolve`.
#[tokio::test(flavor = "multi_thread")]
async fn attack_a_reopened_thread_is_not_resolved_again() {
    let env = TestEnvironment::new();
    let github = FakeGitHub::start().await;
    github.add_pull_request(
        PrBuilder::new()
            .thread("NIT", "src/m0.rs", 1, &[(bot("coderabbitai"), &nitpick(0))])
            .build(),
    );
    let dir = clone_dir(&env, "work");
    let out = apply(&env, &dir, &github, &[]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert_eq!(entry(&report(&out), "NIT").outcome, Outcome::Resolved);
    assert_eq!(
        github.mutations(),
        vec![Mutation::Resolve(ThreadId::from("NIT"))]
    );
    let log = in_dir(&env, &dir, &github, &["log", "1", "--json"]);
    assert_eq!(log.code, 0, "{}", log.stderr);
    let logged: Vec<Value> = log
        .stdout
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert!(
        logged
            .iter()
            .any(|e| e["action"] == "resolve" && e["target"] == "NIT" && e["outcome"] == "ok"),
        "{}",
        log.stdout
    );

    // A person reopens it on GitHub.
    github.update_pull_request(&crate::attack2_support::repo(), 1, |pr| {
        pr.threads[0].is_resolved = false;
    });
    let out = apply(&env, &dir, &github, &[]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let nit = report(&out)
        .threads
        .into_iter()
        .find(|t| t.id.0 == "NIT")
        .unwrap();
    assert_eq!(
        (nit.outcome, nit.deferred_because),
        (Outcome::Deferred, Some(DeferReason::Reopened)),
        "{nit:?}"
    );
    assert!(
        nit.reason.contains("reopened after the tool resolved it"),
        "{}",
        nit.reason
    );
    let out = in_dir(&env, &dir, &github, &["resolve", "NIT", "--pr", "1"]);
    assert_eq!(out.code, 6, "{}", out.stderr);
    assert!(
        out.stderr.contains("reopened after the tool resolved it"),
        "{}",
        out.stderr
    );
    assert_eq!(
        github.mutations(),
        vec![Mutation::Resolve(ThreadId::from("NIT"))],
        "resolved once, never again"
    );
    assert!(!fake_pr(&github).threads[0].is_resolved);
}
