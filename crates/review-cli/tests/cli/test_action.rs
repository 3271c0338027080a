//! The GitHub Action's script (`action/run.sh`), run as Actions runs it: the event file and the
//! variables Actions sets, against the fake GitHub, in a clone whose base branch and pull request
//! head carry different configuration files.

use std::path::Path;
use std::process::Command;

use review_test_support::github::FakeGitHub;
use review_test_support::{PrBuilder, bot, person};
use serde_json::Value;

use crate::common::{TestEnvironment, commit, git, workspace_root};

fn commit_all(dir: &Path, message: &str) {
    git(dir, &["add", "-A"]);
    commit(dir, message);
}

/// The base commit of the pull request: its `.github/review.toml` is what the run reads.
const BASE: &str = "0c0c0c0c0c0c0c0c0c0c0c0c0c0c0c0c0c0c0c0c";

/// A clone on the PR branch: the base branch `main` (on `origin`) says qa-bot is a bot; the PR
/// head tries to set a command in the repository's file.
fn clone_with_configs(env: &TestEnvironment) -> std::path::PathBuf {
    let origin = env.dir().join("origin.git");
    let work = env.dir().join("work");
    std::fs::create_dir_all(&work).unwrap();
    git(
        env.dir(),
        &[
            "init",
            "-q",
            "--bare",
            "-b",
            "main",
            origin.to_str().unwrap(),
        ],
    );
    git(&work, &["init", "-q", "-b", "main"]);
    std::fs::create_dir_all(work.join(".github")).unwrap();
    std::fs::write(
        work.join(".github/review.toml"),
        "[automation]\naccounts = [\"qa-bot\"]\n",
    )
    .unwrap();
    commit_all(&work, "base");
    git(
        &work,
        &["remote", "add", "origin", origin.to_str().unwrap()],
    );
    git(&work, &["push", "-q", "origin", "main"]);
    git(&work, &["checkout", "-q", "-b", "feature"]);
    std::fs::write(
        work.join(".github/review.toml"),
        "[commands]\nfixer = \"touch pwned\"\n",
    )
    .unwrap();
    commit_all(&work, "head");
    work
}

fn run_action(
    env: &TestEnvironment,
    work: &Path,
    github: &FakeGitHub,
    inputs: &[(&str, &str)],
) -> (i32, String, String, String) {
    let event = env.write(
        "event.json",
        r#"{"action": "submitted", "review": {"state": "commented"}, "pull_request": {"number": 1, "base": {"ref": "main"}}}"#,
    );
    let runner_temp = env.dir().join("runner-temp");
    std::fs::create_dir_all(&runner_temp).unwrap();
    let summary = env.dir().join("summary.md");
    let outputs = env.dir().join("outputs.txt");
    let bin_dir = Path::new(env!("CARGO_BIN_EXE_review"))
        .parent()
        .unwrap()
        .to_owned();
    let path = format!(
        "{}:{}",
        bin_dir.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let mut cmd = Command::new("bash");
    cmd.arg(workspace_root().join("action/run.sh"))
        .current_dir(work)
        .env_clear()
        .env("PATH", path)
        .env("HOME", env.dir())
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GITHUB_ACTIONS", "true")
        .env("GITHUB_EVENT_NAME", "pull_request_review")
        .env("GITHUB_EVENT_PATH", &event)
        .env("GITHUB_REPOSITORY", "acme/widgets")
        .env("GITHUB_BASE_REF", "main")
        .env("GITHUB_HEAD_REF", "feature")
        .env("RUNNER_TEMP", &runner_temp)
        .env("GITHUB_STEP_SUMMARY", &summary)
        .env("GITHUB_OUTPUT", &outputs)
        .env("GITHUB_API_URL", github.rest_url())
        .env("GITHUB_GRAPHQL_URL", github.graphql_url())
        .env("GH_TOKEN", "ghs_workflowtoken");
    for (k, v) in inputs {
        cmd.env(k, v);
    }
    let out = cmd.output().unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stderr).into_owned(),
        std::fs::read_to_string(&summary).unwrap_or_default(),
        std::fs::read_to_string(&outputs).unwrap_or_default(),
    )
}

async fn fake() -> FakeGitHub {
    let github = FakeGitHub::start().await;
    // The base commit's file, which the run reads through the API: it names qa-bot (a User,
    // whom no repository file can make automation) and deny-lists migrations/.
    let repo = review_core::model::RepoId::parse("acme/widgets").unwrap();
    github.set_file(
        &repo,
        BASE,
        ".github/review.toml",
        b"[automation]\naccounts = [\"qa-bot\"]\n\n[paths]\ndeny = [\"migrations/\"]\n",
    );
    github.add_pull_request(
        PrBuilder::new()
            .with_pr(|pr| pr.base_sha = Some(review_core::model::CommitId(BASE.to_owned())))
            .thread(
                "FIX",
                "migrations/001.sql",
                1,
                &[(
                    bot("coderabbitai"),
                    "_⚠️ Potential issue_ | _🟠 Major_\n\n**Missing semicolon.**\n\n```suggestion\nCREATE TABLE t (id int);\n```\n",
                )],
            )
            .thread(
                "QA",
                "src/lib.rs",
                3,
                &[(person("qa-bot"), "Lint: unused import.")],
            )
            .thread(
                "NIT",
                "src/lib.rs",
                5,
                &[(
                    bot("coderabbitai"),
                    "_🧹 Nitpick_\n\n**Prefer `let else`.**",
                )],
            )
            .thread(
                "MEI",
                "src/lib.rs",
                9,
                &[(person("mei"), "Why this order?")],
            )
            .build(),
    );
    github
}

#[tokio::test(flavor = "multi_thread")]
async fn the_action_triages_with_the_base_branch_config_and_posts_nothing() {
    let env = TestEnvironment::new();
    let work = clone_with_configs(&env);
    let github = fake().await;
    let (code, stderr, summary, outputs) = run_action(&env, &work, &github, &[]);
    assert_eq!(code, 0, "{stderr}\n{summary}");
    assert!(
        !work.join("pwned").exists(),
        "the head's configuration is never read"
    );
    assert!(summary.starts_with("### review triage of #1"), "{summary}");
    assert!(summary.contains("plan only, nothing changed"), "{summary}");
    let report_path = outputs
        .lines()
        .find_map(|l| l.strip_prefix("report="))
        .expect("the report output");
    let report: Value =
        serde_json::from_str(&std::fs::read_to_string(report_path).unwrap()).unwrap();
    let human = |id: &str| {
        report["threads"]
            .as_array()
            .unwrap()
            .iter()
            .find(|t| t["id"] == id)
            .unwrap()["human"]
            .as_bool()
            .unwrap()
    };
    assert!(
        human("QA"),
        "the base commit's file cannot make a person (qa-bot, a User) automation"
    );
    assert!(human("MEI"));
    let fix = report["threads"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["id"] == "FIX")
        .unwrap();
    assert_eq!(
        fix["deferred_because"], "deny_listed",
        "the base commit's file was read: {fix}"
    );
    assert!(github.mutations().is_empty(), "nothing posted by default");
    assert!(
        github
            .requests()
            .iter()
            .all(|r| r.authorization.as_deref() == Some("Bearer ghs_workflowtoken")),
        "the workflow token is used"
    );
    assert!(!stderr.contains("ghs_workflowtoken") && !summary.contains("ghs_workflowtoken"));
}

#[tokio::test(flavor = "multi_thread")]
async fn the_action_can_fail_when_threads_need_a_person() {
    let env = TestEnvironment::new();
    let work = clone_with_configs(&env);
    let github = fake().await;
    let (code, stderr, summary, _) = run_action(
        &env,
        &work,
        &github,
        &[("REVIEW_FAIL_ON_NEEDS_PERSON", "true")],
    );
    assert_eq!(code, 7, "{stderr}\n{summary}");
    assert!(
        summary.contains("review triage of #1"),
        "the summary is still written"
    );
}
