//! Deferring findings to follow-up issues against the fake GitHub: `review defer THREAD` opens
//! one issue (found again by its key after a run that stopped), answers the thread with its
//! link and resolves it; a person's thread and a repository without issues are refused with
//! nothing opened or posted; `respond --from-decisions --defer-to-issue` does the same for
//! `OUT_OF_SCOPE` verdicts, and only when asked.

use review_core::decisions::{Decisions, Seen, Verdict};
use review_core::model::RepoId;
use review_test_support::github::{FakeGitHub, Fault};
use review_test_support::{Mutation, PrBuilder, bot, person};

use crate::common::{Output, TestEnvironment, git, state_file};

const FINDING: &str = "_⚠️ Potential issue_ | _🟡 Minor_\n\n**Cache the parsed settings.** \
They are parsed again on every request; @acme/core #12 <img src=x>.";

fn repo() -> RepoId {
    RepoId::parse("acme/widgets").unwrap()
}

async fn fake() -> FakeGitHub {
    let github = FakeGitHub::start().await;
    github.set_viewer("dana");
    github.add_pull_request(
        PrBuilder::new()
            .thread(
                "A",
                "src/settings.rs",
                12,
                &[(bot("coderabbitai"), FINDING)],
            )
            .thread(
                "H",
                "src/lib.rs",
                3,
                &[
                    (bot("coderabbitai"), "**Rename this.** It reads oddly."),
                    (person("sam"), "I disagree, keep it."),
                ],
            )
            .build(),
    );
    github
}

fn env_in_clone() -> TestEnvironment {
    let env = TestEnvironment::new();
    git(env.dir(), &["init", "-q"]);
    env
}

fn run(env: &TestEnvironment, github: &FakeGitHub, args: &[&str]) -> Output {
    let graphql = github.graphql_url();
    let rest = github.rest_url();
    let mut full = args.to_vec();
    full.extend(["--repo", "acme/widgets"]);
    env.run_with(
        &full,
        &[
            ("GITHUB_GRAPHQL_URL", graphql.as_str()),
            ("GITHUB_API_URL", rest.as_str()),
        ],
    )
}

fn defer(env: &TestEnvironment, github: &FakeGitHub, thread: &str) -> Output {
    run(env, github, &["defer", thread, "--pr", "1"])
}

fn replies_in(github: &FakeGitHub, thread: &str) -> Vec<String> {
    github
        .mutations()
        .into_iter()
        .filter_map(|m| match m {
            Mutation::Reply(t, body) if t.0 == thread => Some(body),
            _ => None,
        })
        .collect()
}

fn resolved(github: &FakeGitHub, thread: &str) -> bool {
    github
        .mutations()
        .iter()
        .any(|m| matches!(m, Mutation::Resolve(t) if t.0 == thread))
}

#[tokio::test(flavor = "multi_thread")]
async fn a_bot_finding_is_deferred_once_with_the_issue_linked_and_the_thread_resolved() {
    let env = env_in_clone();
    env.write_user_config("defer-labels = [\"follow-up\", \"tech-debt\"]\n");
    let github = fake().await;
    let out = defer(&env, &github, "A");
    assert_eq!(out.code, 0, "{}\n{}", out.stdout, out.stderr);

    let issues = github.issues(&repo());
    assert_eq!(issues.len(), 1, "{issues:?}");
    let issue = &issues[0];
    assert_eq!(issue.author, "dana");
    assert_eq!(issue.labels, ["follow-up", "tech-debt"]);
    assert!(
        issue.title.starts_with("Follow-up from #1: ") && issue.title.contains("Cache the parsed"),
        "{}",
        issue.title
    );
    // The finding is quoted as inert text: its mentions and references notify nobody.
    assert!(
        issue.body.contains("~~~text\n_⚠️ Potential issue_"),
        "{}",
        issue.body
    );
    assert!(
        issue.body.contains("<!-- review:defer-key="),
        "{}",
        issue.body
    );
    let url = format!("https://github.com/acme/widgets/issues/{}", issue.number);
    assert_eq!(out.stdout.trim_end().lines().last(), Some(url.as_str()));
    assert!(
        out.stderr.contains("[respond] posting as @dana"),
        "{}",
        out.stderr
    );

    let replies = replies_in(&github, "A");
    assert_eq!(replies.len(), 1, "{replies:?}");
    assert!(
        replies[0].contains(&format!("Deferred to a follow-up issue: {url}")),
        "{}",
        replies[0]
    );
    assert!(replies[0].starts_with("🤖 Automated comment by **review**"));
    assert!(resolved(&github, "A"));

    // Again: nothing opened or posted twice.
    let again = defer(&env, &github, "A");
    assert_ne!(
        again.code, 0,
        "the thread is resolved now: {}",
        again.stderr
    );
    assert_eq!(github.issues(&repo()).len(), 1);
    assert_eq!(replies_in(&github, "A").len(), 1);
}

#[tokio::test(flavor = "multi_thread")]
async fn an_issue_whose_answer_was_lost_is_found_again_by_its_key_not_opened_twice() {
    let env = env_in_clone();
    let github = fake().await;
    // The issue lands but its answer is lost: the run stops with nothing replied.
    github.inject(Fault::ApplyThenFail {
        operation: Some("rest:open-issue".to_owned()),
        status: 502,
        times: 1,
    });
    let out = defer(&env, &github, "A");
    assert_eq!(out.code, 4, "{}\n{}", out.stdout, out.stderr);
    assert!(out.stderr.contains("run again"), "{}", out.stderr);
    assert_eq!(github.issues(&repo()).len(), 1);
    assert!(replies_in(&github, "A").is_empty());
    assert!(!resolved(&github, "A"));

    // The rerun finds it by its key, and answers the thread once.
    let out = defer(&env, &github, "A");
    assert_eq!(out.code, 0, "{}\n{}", out.stdout, out.stderr);
    assert!(
        out.stderr.contains("found (opened before)"),
        "{}",
        out.stderr
    );
    assert_eq!(github.issues(&repo()).len(), 1);
    assert_eq!(replies_in(&github, "A").len(), 1);
    assert!(resolved(&github, "A"));
}

#[tokio::test(flavor = "multi_thread")]
async fn a_run_killed_between_the_issue_and_the_reply_opens_no_second_issue() {
    let env = env_in_clone();
    env.write_user_config("[github]\npost-check-seconds = 1\n");
    let github = fake().await;
    // The reply fails (nothing posted): the issue stands, the thread is unanswered.
    github.inject(Fault::ServerError {
        operation: Some("AddThreadReply".to_owned()),
        status: 500,
        times: 3,
    });
    let out = run(
        &env,
        &github,
        &["defer", "A", "--pr", "1", "--note", "Later."],
    );
    assert_ne!(out.code, 0, "{}", out.stdout);
    assert_eq!(github.issues(&repo()).len(), 1);
    github.clear_faults();
    // The ledger and the issue list both survive; the rerun opens nothing new.
    std::fs::remove_file(state_file(env.dir(), "ledger")).ok();
    let out = run(
        &env,
        &github,
        &["defer", "A", "--pr", "1", "--note", "Later."],
    );
    assert_eq!(out.code, 0, "{}\n{}", out.stdout, out.stderr);
    assert_eq!(github.issues(&repo()).len(), 1);
    let replies = replies_in(&github, "A");
    assert_eq!(replies.len(), 1, "{replies:?}");
    assert!(replies[0].contains("Later. Deferred to a follow-up issue:"));
}

#[tokio::test(flavor = "multi_thread")]
async fn a_persons_thread_is_refused_and_nothing_is_opened() {
    let env = env_in_clone();
    let github = fake().await;
    let out = defer(&env, &github, "H");
    assert_eq!(out.code, 6, "{}\n{}", out.stdout, out.stderr);
    assert!(out.stderr.contains("review followup"), "{}", out.stderr);
    assert!(github.issues(&repo()).is_empty());
    assert!(github.mutations().is_empty(), "{:?}", github.mutations());
}

#[tokio::test(flavor = "multi_thread")]
async fn with_issues_turned_off_the_thread_stays_open_and_unanswered() {
    let env = env_in_clone();
    let github = fake().await;
    github.turn_off_issues(&repo());
    let out = defer(&env, &github, "A");
    assert_eq!(out.code, 6, "{}\n{}", out.stdout, out.stderr);
    assert!(out.stderr.contains("issues turned off"), "{}", out.stderr);
    assert!(github.mutations().is_empty(), "{:?}", github.mutations());
}

/// The loop's decisions with thread A judged `OUT_OF_SCOPE`.
fn decided_out_of_scope(env: &TestEnvironment) {
    let mut decisions = Decisions::default();
    decisions.seen.insert(
        "fp-a".to_owned(),
        Seen {
            thread_id: "A".into(),
            verdict: Verdict::OutOfScope,
            reasoning: "the settings cache belongs to the config rework".to_owned(),
            evidence: vec!["src/settings.rs:12".to_owned()],
            fix_sketch: None,
            resolved_sha: None,
            decided_in_round: 1,
            path: "src/settings.rs".to_owned(),
            replied: Some(false),
            settled: None,
        },
    );
    let path = state_file(env.dir(), "decisions");
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(&path, serde_json::to_string(&decisions).unwrap()).unwrap();
}

#[tokio::test(flavor = "multi_thread")]
async fn respond_defers_out_of_scope_verdicts_only_when_asked() {
    // Not asked: the plain out-of-scope reply, no issue.
    let env = env_in_clone();
    decided_out_of_scope(&env);
    let github = fake().await;
    let out = run(&env, &github, &["respond", "1", "--from-decisions"]);
    assert_eq!(out.code, 0, "{}\n{}", out.stdout, out.stderr);
    assert!(github.issues(&repo()).is_empty());
    let replies = replies_in(&github, "A");
    assert_eq!(replies.len(), 1);
    assert!(!replies[0].contains("follow-up issue"), "{}", replies[0]);

    // Asked: the issue first, its link in the reply; a rerun adds nothing.
    let env = env_in_clone();
    decided_out_of_scope(&env);
    let github = fake().await;
    let args = ["respond", "1", "--from-decisions", "--defer-to-issue"];
    let out = run(&env, &github, &args);
    assert_eq!(out.code, 0, "{}\n{}", out.stdout, out.stderr);
    let issues = github.issues(&repo());
    assert_eq!(issues.len(), 1);
    assert!(
        issues[0]
            .body
            .starts_with("Out of scope for this PR — the settings cache")
    );
    let replies = replies_in(&github, "A");
    assert_eq!(replies.len(), 1);
    assert!(
        replies[0].contains(&format!(
            "Out of scope for this PR — the settings cache belongs to the config rework. \
             Deferred to a follow-up issue: https://github.com/acme/widgets/issues/{}",
            issues[0].number
        )),
        "{}",
        replies[0]
    );
    assert!(
        out.stderr.contains("follow-up issue opened"),
        "{}",
        out.stderr
    );
    let out = run(&env, &github, &args);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert_eq!(github.issues(&repo()).len(), 1);
    assert_eq!(replies_in(&github, "A").len(), 1);
}

#[tokio::test(flavor = "multi_thread")]
async fn respond_on_a_repository_without_issues_escalates_instead_of_replying() {
    let env = env_in_clone();
    decided_out_of_scope(&env);
    env.write_user_config("defer-to-issue = true\n");
    let github = fake().await;
    github.turn_off_issues(&repo());
    let out = run(&env, &github, &["respond", "1", "--from-decisions"]);
    assert_eq!(out.code, 0, "{}\n{}", out.stdout, out.stderr);
    assert!(out.stderr.contains("reply held back"), "{}", out.stderr);
    assert!(replies_in(&github, "A").is_empty());
    let decisions: Decisions =
        serde_json::from_str(&std::fs::read_to_string(state_file(env.dir(), "decisions")).unwrap())
            .unwrap();
    assert!(decisions.is_escalated_thread(&"A".into()), "{decisions:?}");
    assert!(
        decisions.escalated[0].reason.contains("issues turned off"),
        "{:?}",
        decisions.escalated
    );
}

/// The ledger records each issue opened: a rerun finds it there without asking GitHub, however
/// many issues were opened on the repository since.
#[tokio::test(flavor = "multi_thread")]
async fn a_rerun_finds_the_issue_in_the_ledger_first() {
    let env = env_in_clone();
    env.write_user_config("[github]\npost-check-seconds = 1\n");
    let github = fake().await;
    github.inject(Fault::ServerError {
        operation: Some("AddThreadReply".to_owned()),
        status: 500,
        times: 3,
    });
    let out = defer(&env, &github, "A");
    assert_ne!(out.code, 0, "{}", out.stdout);
    github.clear_faults();
    let searches = |github: &FakeGitHub| {
        github
            .rest_log()
            .iter()
            .filter(|r| r.method == "GET" && r.path.contains("/issues?"))
            .count()
    };
    let before = searches(&github);
    let out = defer(&env, &github, "A");
    assert_eq!(out.code, 0, "{}\n{}", out.stdout, out.stderr);
    assert_eq!(searches(&github), before, "the ledger answered");
    assert_eq!(github.issues(&repo()).len(), 1);
    assert_eq!(replies_in(&github, "A").len(), 1);
}

/// Two runs deferring the same thread at once (slow answers widen the race): the posting lock
/// and the key leave one issue and one reply.
#[tokio::test(flavor = "multi_thread")]
async fn attack_two_defers_at_once_open_one_issue_and_post_one_reply() {
    let env = env_in_clone();
    let github = fake().await;
    github.inject(Fault::Slow {
        operation: None,
        delay: std::time::Duration::from_millis(150),
        times: 40,
    });
    let (graphql, rest) = (github.graphql_url(), github.rest_url());
    let vars = [
        ("GITHUB_GRAPHQL_URL", graphql.as_str()),
        ("GITHUB_API_URL", rest.as_str()),
    ];
    let args = ["defer", "A", "--pr", "1", "--repo", "acme/widgets"];
    let mut runs: Vec<_> = (0..2).map(|_| env.spawn_with(&args, &vars)).collect();
    for run in &mut runs {
        run.wait().expect("the run ends");
    }
    assert_eq!(
        github.issues(&repo()).len(),
        1,
        "{:?}",
        github.issues(&repo())
    );
    assert_eq!(replies_in(&github, "A").len(), 1);
}
