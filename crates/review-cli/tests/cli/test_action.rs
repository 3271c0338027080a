//! The GitHub Action (`action.yml` and its scripts `action/install.sh`, `action/run.sh`), run as
//! Actions runs it: each step with the environment `action.yml` gives it (read from the file, its
//! inputs' defaults included) on top of exactly the variables Actions sets for the event, against
//! the fake GitHub, in a clone whose base branch and pull request head carry different
//! configuration files; the install against a local server holding a fake release.
//!
//! What Actions sets, from GitHub's documentation:
//! - "Variables reference", default environment variables
//!   (<https://docs.github.com/en/actions/reference/workflows-and-actions/variables#default-environment-variables>):
//!   `CI`, `GITHUB_ACTIONS`, `GITHUB_ACTION_PATH`, `GITHUB_ACTION_REPOSITORY`, `GITHUB_ACTOR`,
//!   `GITHUB_API_URL`, `GITHUB_GRAPHQL_URL`, `GITHUB_SERVER_URL`, `GITHUB_ENV`,
//!   `GITHUB_EVENT_NAME`, `GITHUB_EVENT_PATH`, `GITHUB_JOB`, `GITHUB_OUTPUT`, `GITHUB_PATH`,
//!   `GITHUB_REF`, `GITHUB_REF_NAME`, `GITHUB_REF_TYPE`, `GITHUB_REPOSITORY`,
//!   `GITHUB_REPOSITORY_OWNER`, `GITHUB_RUN_ATTEMPT`, `GITHUB_RUN_ID`, `GITHUB_RUN_NUMBER`,
//!   `GITHUB_SHA`, `GITHUB_STEP_SUMMARY`, `GITHUB_WORKFLOW`, `GITHUB_WORKSPACE`, `RUNNER_ARCH`,
//!   `RUNNER_NAME`, `RUNNER_OS`, `RUNNER_TEMP`, `RUNNER_TOOL_CACHE`; and `GITHUB_BASE_REF` /
//!   `GITHUB_HEAD_REF` "only set when the event that triggers a workflow run is either
//!   `pull_request` or `pull_request_target`". No `GITHUB_TOKEN` variable: the token reaches the
//!   step only through `action.yml`'s `GH_TOKEN: ${{ inputs.token }}`.
//! - "Events that trigger workflows"
//!   (<https://docs.github.com/en/actions/reference/workflows-and-actions/events-that-trigger-workflows>):
//!   for `pull_request`, `pull_request_review` and `pull_request_review_comment`, `GITHUB_SHA` is
//!   the last merge commit of `GITHUB_REF`, the merge branch `refs/pull/N/merge`; for
//!   `pull_request_target` it is the last commit of the base branch, and `GITHUB_REF` the base
//!   branch. "GITHUB_TOKEN has read-only permissions in pull requests from forked repositories"
//!   on `pull_request` and the review events; `pull_request_target` runs with the base
//!   repository's (write) token.
//! - The payloads ("Webhook events and payloads"): every one of these events carries
//!   `pull_request` (`number`, `base.ref`, `base.sha`, `base.repo.full_name`, `head.*`); a review
//!   event adds `review`, a review-comment event `comment`.
//! - Inside a composite action's steps `github.action_ref` and `github.action_repository` (and
//!   their variables) are empty (actions/runner#2473), so the harness sets them empty.

use std::collections::BTreeMap;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use review_test_support::github::{FakeGitHub, Fault};
use review_test_support::{PrBuilder, bot, person};
use serde_json::{Value, json};

use crate::common::{TestEnvironment, commit, git, workspace_root};

// ---------------------------------------------------------------------------------------------
// The workflow run: events and what Actions sets for them

/// The pull request events the docs name.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Event {
    PullRequest,
    PullRequestTarget,
    Review,
    ReviewComment,
}

const EVENTS: [Event; 4] = [
    Event::PullRequest,
    Event::PullRequestTarget,
    Event::Review,
    Event::ReviewComment,
];

/// The base commit of the pull request: its `.github/review.toml` is what the run reads.
const BASE: &str = "0c0c0c0c0c0c0c0c0c0c0c0c0c0c0c0c0c0c0c0c";
/// The merge commit Actions checks out on `pull_request` and the review events.
const MERGE: &str = "3e3e3e3e3e3e3e3e3e3e3e3e3e3e3e3e3e3e3e3e";
const TOKEN: &str = "ghs_workflowtoken";

impl Event {
    fn name(self) -> &'static str {
        match self {
            Self::PullRequest => "pull_request",
            Self::PullRequestTarget => "pull_request_target",
            Self::Review => "pull_request_review",
            Self::ReviewComment => "pull_request_review_comment",
        }
    }

    /// The event's payload, for pull request #1 of acme/widgets from `head_repo`.
    fn payload(self, head_repo: &str) -> Value {
        let pull_request = json!({
            "number": 1,
            "state": "open",
            "title": "Test PR",
            "base": {"ref": "main", "sha": BASE, "repo": {"full_name": "acme/widgets"}},
            "head": {
                "ref": "feature",
                "sha": review_test_support::HEAD_SHA,
                "repo": {"full_name": head_repo},
            },
        });
        let repository = json!({"full_name": "acme/widgets"});
        match self {
            Self::PullRequest | Self::PullRequestTarget => json!({
                "action": "synchronize", "number": 1,
                "pull_request": pull_request, "repository": repository,
            }),
            Self::Review => json!({
                "action": "submitted",
                "review": {"state": "commented", "body": "see the threads"},
                "pull_request": pull_request, "repository": repository,
            }),
            Self::ReviewComment => json!({
                "action": "created",
                "comment": {"body": "Why this order?", "path": "src/lib.rs"},
                "pull_request": pull_request, "repository": repository,
            }),
        }
    }

    /// `GITHUB_SHA` and `GITHUB_REF`.
    fn sha_and_ref(self) -> (&'static str, &'static str) {
        match self {
            Self::PullRequestTarget => (BASE, "refs/heads/main"),
            _ => (MERGE, "refs/pull/1/merge"),
        }
    }

    /// Whether Actions sets `GITHUB_BASE_REF` and `GITHUB_HEAD_REF`.
    fn sets_base_and_head_ref(self) -> bool {
        matches!(self, Self::PullRequest | Self::PullRequestTarget)
    }
}

// ---------------------------------------------------------------------------------------------
// action.yml: the inputs' defaults and each step's environment

#[derive(Debug)]
struct Step {
    name: String,
    /// The step's `env:`, values as written (`${{ inputs.apply }}`).
    env: Vec<(String, String)>,
    /// The script it runs, relative to the action's root.
    script: String,
}

#[derive(Debug)]
struct ActionYml {
    defaults: BTreeMap<String, String>,
    outputs: Vec<String>,
    steps: Vec<Step>,
}

fn unquote(v: &str) -> String {
    let v = v.trim();
    for q in ['"', '\''] {
        if let Some(inner) = v.strip_prefix(q).and_then(|r| r.strip_suffix(q)) {
            return inner.to_owned();
        }
    }
    v.to_owned()
}

/// Reads `action.yml` as written (a small, fixed shape: two-space indents, scalar values).
fn action_yml() -> ActionYml {
    let text = std::fs::read_to_string(workspace_root().join("action.yml")).unwrap();
    let mut section = "";
    let mut input: Option<String> = None;
    let mut in_env = false;
    let mut action = ActionYml {
        defaults: BTreeMap::new(),
        outputs: Vec::new(),
        steps: Vec::new(),
    };
    for line in text.lines() {
        let trimmed = line.trim_start();
        if trimmed.is_empty() || trimmed.starts_with('#') {
            continue;
        }
        let indent = line.len() - trimmed.len();
        if indent == 0 {
            section = trimmed.trim_end_matches(':');
            continue;
        }
        match (section, indent) {
            ("inputs", 2) => input = Some(trimmed.trim_end_matches(':').to_owned()),
            ("inputs", 4) => {
                if let (Some(name), Some(v)) = (&input, trimmed.strip_prefix("default:")) {
                    action.defaults.insert(name.clone(), unquote(v));
                }
            }
            ("outputs", 2) => action
                .outputs
                .push(trimmed.trim_end_matches(':').to_owned()),
            ("runs", 4) => {
                if let Some(name) = trimmed.strip_prefix("- name:") {
                    action.steps.push(Step {
                        name: name.trim().to_owned(),
                        env: Vec::new(),
                        script: String::new(),
                    });
                    in_env = false;
                }
            }
            ("runs", 6) => {
                in_env = trimmed == "env:";
                if let Some(run) = trimmed.strip_prefix("run:") {
                    let script = run
                        .split("$GITHUB_ACTION_PATH/")
                        .nth(1)
                        .expect("a step runs a script of the action")
                        .trim_end_matches('"');
                    action.steps.last_mut().unwrap().script = script.to_owned();
                }
            }
            ("runs", 8) if in_env => {
                let (k, v) = trimmed.split_once(':').unwrap();
                action
                    .steps
                    .last_mut()
                    .unwrap()
                    .env
                    .push((k.to_owned(), unquote(v)));
            }
            _ => {}
        }
    }
    action
}

impl ActionYml {
    fn step(&self, name: &str) -> &Step {
        self.steps
            .iter()
            .find(|s| s.name == name)
            .unwrap_or_else(|| panic!("action.yml has no step {name:?}"))
    }

    /// The step's environment for the workflow's `with:` inputs, expressions evaluated as the
    /// runner does (`${{ inputs.x }}` with the inputs' defaults, `${{ github.token }}`).
    fn step_env(&self, name: &str, with: &[(&str, &str)], token: &str) -> Vec<(String, String)> {
        let mut inputs = self.defaults.clone();
        for (k, v) in with {
            assert!(inputs.contains_key(*k), "action.yml has no input {k}");
            inputs.insert((*k).to_owned(), (*v).to_owned());
        }
        let eval = |expr: &str| -> String {
            let expr = expr.trim();
            if expr == "github.token" {
                return token.to_owned();
            }
            let name = expr
                .strip_prefix("inputs.")
                .expect("an expression action.yml uses");
            let value = inputs.get(name).expect("a declared input").clone();
            if value.starts_with("${{") {
                // A default that is an expression itself (`token: ${{ github.token }}`).
                return token.to_owned();
            }
            value
        };
        self.step(name)
            .env
            .iter()
            .map(|(k, v)| {
                let value = match v.strip_prefix("${{").and_then(|r| r.strip_suffix("}}")) {
                    Some(expr) => eval(expr),
                    None => v.clone(),
                };
                (k.clone(), value)
            })
            .collect()
    }
}

// ---------------------------------------------------------------------------------------------
// The runner

/// A job on a runner: its temp directory, tool cache and workspace, and the event.
struct Runner {
    env: TestEnvironment,
    work: PathBuf,
    event: Event,
    head_repo: String,
    token: String,
    action: ActionYml,
}

/// What a step did.
#[derive(Debug)]
struct StepRun {
    code: i32,
    stdout: String,
    stderr: String,
    summary: String,
    outputs: BTreeMap<String, String>,
    path: Vec<PathBuf>,
    took: Duration,
}

impl Runner {
    fn new(event: Event) -> Self {
        let env = TestEnvironment::new();
        let work = clone_with_configs(&env);
        for dir in ["runner-temp", "tool-cache"] {
            std::fs::create_dir_all(env.dir().join(dir)).unwrap();
        }
        Self {
            env,
            work,
            event,
            head_repo: "acme/widgets".to_owned(),
            token: TOKEN.to_owned(),
            action: action_yml(),
        }
    }

    fn fork(mut self, owner: &str) -> Self {
        self.head_repo = format!("{owner}/widgets");
        self
    }

    fn tool_cache(&self) -> PathBuf {
        self.env.dir().join("tool-cache")
    }

    /// Runs `step` of action.yml with the `with:` inputs, `extra` variables (a test's stand-in
    /// for a constant of action.yml, a stub's), and `path` before the runner's own PATH (what
    /// earlier steps added to `GITHUB_PATH`).
    fn run(
        &self,
        step: &str,
        with: &[(&str, &str)],
        github: Option<&FakeGitHub>,
        path: &[PathBuf],
        extra: &[(&str, &str)],
    ) -> StepRun {
        static RUNS: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
        let dir = self.env.dir();
        let n = RUNS.fetch_add(1, Ordering::SeqCst);
        let file = |name: &str| {
            let p = dir.join(format!("{name}-{n}"));
            std::fs::write(&p, "").unwrap();
            p
        };
        let (summary, outputs, github_path, github_env) = (
            file("step-summary"),
            file("output"),
            file("path"),
            file("env"),
        );
        let event_path = dir.join(format!("event-{n}.json"));
        std::fs::write(
            &event_path,
            serde_json::to_string_pretty(&self.event.payload(&self.head_repo)).unwrap(),
        )
        .unwrap();
        let (sha, git_ref) = self.event.sha_and_ref();
        let mut search: Vec<PathBuf> = path.to_vec();
        search.extend(std::env::split_paths(
            &std::env::var_os("PATH").unwrap_or_default(),
        ));
        let (api, graphql) = github.map_or_else(
            || {
                (
                    "https://api.github.com".to_owned(),
                    "https://api.github.com/graphql".to_owned(),
                )
            },
            |g| (g.rest_url(), g.graphql_url()),
        );
        let runner_arch = match std::env::consts::ARCH {
            "aarch64" => "ARM64",
            _ => "X64",
        };
        let runner_os = match std::env::consts::OS {
            "macos" => "macOS",
            _ => "Linux",
        };
        let root = workspace_root();
        let action = self.action.step(step);
        let mut cmd = Command::new("bash");
        cmd.arg(root.join(&action.script))
            .current_dir(&self.work)
            .env_clear()
            .env("PATH", std::env::join_paths(&search).unwrap())
            .env("HOME", dir)
            .env("GIT_CONFIG_GLOBAL", "/dev/null")
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .env("CI", "true")
            .env("GITHUB_ACTIONS", "true")
            .env("GITHUB_ACTION", "__review-tool_review")
            .env("GITHUB_ACTION_PATH", &root)
            .env("GITHUB_ACTION_REPOSITORY", "")
            .env("GITHUB_ACTION_REF", "")
            .env("GITHUB_ACTOR", "dana")
            .env("GITHUB_API_URL", api)
            .env("GITHUB_GRAPHQL_URL", graphql)
            .env("GITHUB_SERVER_URL", "https://github.com")
            .env("GITHUB_ENV", &github_env)
            .env("GITHUB_EVENT_NAME", self.event.name())
            .env("GITHUB_EVENT_PATH", &event_path)
            .env("GITHUB_JOB", "triage")
            .env("GITHUB_OUTPUT", &outputs)
            .env("GITHUB_PATH", &github_path)
            .env("GITHUB_REF", git_ref)
            .env(
                "GITHUB_REF_NAME",
                git_ref
                    .trim_start_matches("refs/heads/")
                    .trim_start_matches("refs/pull/"),
            )
            .env("GITHUB_REF_TYPE", "branch")
            .env("GITHUB_REPOSITORY", "acme/widgets")
            .env("GITHUB_REPOSITORY_OWNER", "acme")
            .env("GITHUB_RUN_ATTEMPT", "1")
            .env("GITHUB_RUN_ID", "1658821493")
            .env("GITHUB_RUN_NUMBER", "3")
            .env("GITHUB_SHA", sha)
            .env("GITHUB_STEP_SUMMARY", &summary)
            .env("GITHUB_WORKFLOW", "review triage")
            .env("GITHUB_WORKSPACE", &self.work)
            .env("RUNNER_ARCH", runner_arch)
            .env("RUNNER_NAME", "GitHub Actions 2")
            .env("RUNNER_OS", runner_os)
            .env("RUNNER_TEMP", dir.join("runner-temp"))
            .env("RUNNER_TOOL_CACHE", self.tool_cache());
        if self.event.sets_base_and_head_ref() {
            cmd.env("GITHUB_BASE_REF", "main")
                .env("GITHUB_HEAD_REF", "feature");
        }
        for (k, v) in self.action.step_env(step, with, &self.token) {
            cmd.env(k, v);
        }
        for (k, v) in extra {
            cmd.env(k, v);
        }
        let started = Instant::now();
        let out = cmd.output().unwrap();
        let took = started.elapsed();
        let read = |p: &Path| std::fs::read_to_string(p).unwrap_or_default();
        StepRun {
            code: out.status.code().unwrap_or(-1),
            stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
            stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
            summary: read(&summary),
            outputs: read(&outputs)
                .lines()
                .filter_map(|l| l.split_once('='))
                .map(|(k, v)| (k.to_owned(), v.to_owned()))
                .collect(),
            path: read(&github_path).lines().map(PathBuf::from).collect(),
            took,
        }
    }

    /// The Triage step with the `review` just built, as if the install step had put it on PATH.
    fn triage(&self, with: &[(&str, &str)], github: &FakeGitHub) -> StepRun {
        self.run("Triage", with, Some(github), &[built_review_dir()], &[])
    }
}

impl StepRun {
    fn report(&self) -> Value {
        let path = self.outputs.get("report").expect("the report output");
        serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
    }

    fn explain(&self) -> String {
        format!(
            "exit {}\n--- stdout\n{}\n--- stderr\n{}\n--- summary\n{}\n--- outputs\n{:?}",
            self.code, self.stdout, self.stderr, self.summary, self.outputs
        )
    }
}

fn built_review_dir() -> PathBuf {
    Path::new(env!("CARGO_BIN_EXE_review"))
        .parent()
        .unwrap()
        .to_owned()
}

fn thread<'a>(report: &'a Value, id: &str) -> &'a Value {
    report["threads"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["id"] == id)
        .unwrap_or_else(|| panic!("thread {id} in the report"))
}

// ---------------------------------------------------------------------------------------------
// The repository and the fake GitHub

fn commit_all(dir: &Path, message: &str) {
    git(dir, &["add", "-A"]);
    commit(dir, message);
}

/// A clone on the PR branch: the base branch `main` (on `origin`) says qa-bot is a bot; the PR
/// head tries to set a command in the repository's file. Files `src/lib.rs` and `qa-bot-notes`
/// are there for a glob to find, were the `args` input ever globbed.
fn clone_with_configs(env: &TestEnvironment) -> PathBuf {
    let origin = env.dir().join("origin.git");
    let work = env.dir().join("work");
    std::fs::create_dir_all(work.join(".github")).unwrap();
    std::fs::create_dir_all(work.join("src")).unwrap();
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
    std::fs::write(
        work.join(".github/review.toml"),
        "[automation]\naccounts = [\"qa-bot\"]\n",
    )
    .unwrap();
    std::fs::write(work.join("src/lib.rs"), "pub fn f() {}\n").unwrap();
    std::fs::write(work.join("qa-bot-notes"), "").unwrap();
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
                "SIGNAL",
                "src/main.rs",
                2,
                &[(
                    bot("coderabbitai"),
                    "_🧹 Nitpick_\n\nReview approval dismissed after new commits.",
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

fn mutations_sent(github: &FakeGitHub) -> usize {
    github
        .requests()
        .iter()
        .filter(|r| r.query.trim_start().starts_with("mutation"))
        .count()
}

// ---------------------------------------------------------------------------------------------
// Events

/// Every pull request event the docs name reads the base commit's file (deny-listing
/// migrations/), never the head's (which sets a command), with the variables Actions sets for
/// that event: `GITHUB_BASE_REF` is absent on the review events, and nothing depends on it.
#[tokio::test(flavor = "multi_thread")]
async fn every_pull_request_event_reads_the_base_commits_config_and_posts_nothing() {
    for event in EVENTS {
        let runner = Runner::new(event);
        let github = fake().await;
        let run = runner.triage(&[], &github);
        let why = format!("{}: {}", event.name(), run.explain());
        assert_eq!(run.code, 0, "{why}");
        assert!(
            !runner.work.join("pwned").exists(),
            "the head's file is never read: {why}"
        );
        assert!(run.summary.starts_with("### review triage of #1"), "{why}");
        assert!(run.summary.contains("plan only, nothing changed"), "{why}");
        assert!(
            run.stdout.contains("base branch main"),
            "the base branch from the payload: {why}"
        );
        let report = run.report();
        assert_eq!(
            thread(&report, "FIX")["deferred_because"],
            "deny_listed",
            "the base commit's file was read: {why}"
        );
        assert!(
            thread(&report, "QA")["human"].as_bool().unwrap(),
            "the base commit's file cannot make a person (qa-bot, a User) automation: {why}"
        );
        assert!(thread(&report, "MEI")["human"].as_bool().unwrap(), "{why}");
        assert!(
            github.mutations().is_empty(),
            "nothing posted by default: {why}"
        );
        assert!(
            github
                .requests()
                .iter()
                .all(|r| r.authorization.as_deref() == Some("Bearer ghs_workflowtoken")),
            "the workflow token is used: {why}"
        );
        assert!(
            !run.stderr.contains(TOKEN) && !run.summary.contains(TOKEN),
            "{why}"
        );
        // The outputs: the report, the counts, whether a person is needed.
        assert_eq!(run.outputs["applied"], "false", "{why}");
        assert_eq!(run.outputs["needs-person"], "true", "{why}");
        for key in ["resolved", "actioned", "promoted", "deferred", "outdated"] {
            assert_eq!(
                run.outputs[key],
                report["counts"][key].to_string(),
                "{key}: {why}"
            );
        }
        for output in &runner.action.outputs {
            assert!(
                run.outputs.contains_key(output),
                "action.yml's output {output} is written: {why}"
            );
        }
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn the_action_can_fail_when_threads_need_a_person() {
    let runner = Runner::new(Event::Review);
    let github = fake().await;
    let run = runner.triage(&[("fail-on-needs-person", "true")], &github);
    assert_eq!(run.code, 7, "{}", run.explain());
    assert!(
        run.summary.contains("review triage of #1"),
        "the summary is still written"
    );
    assert_eq!(run.outputs["needs-person"], "true");
}

/// An event without a pull request (a push) is refused with an annotation naming the events.
#[tokio::test(flavor = "multi_thread")]
async fn an_event_without_a_pull_request_is_refused() {
    let runner = Runner::new(Event::PullRequest);
    let github = fake().await;
    let event = runner
        .env
        .write("push.json", r#"{"ref": "refs/heads/main"}"#);
    let run = runner.run(
        "Triage",
        &[],
        Some(&github),
        &[built_review_dir()],
        &[
            ("GITHUB_EVENT_PATH", event.to_str().unwrap()),
            ("GITHUB_EVENT_NAME", "push"),
        ],
    );
    assert_eq!(run.code, 2, "{}", run.explain());
    assert!(
        run.stdout
            .contains("::error::the push event names no pull request")
            && run.stdout.contains("pull_request_review_comment"),
        "{}",
        run.explain()
    );
    assert!(github.requests().is_empty());
}

/// The repository's file cannot be read (GitHub keeps failing): the step fails, and says why in
/// an error annotation and in the job summary, not only deep in the log.
#[tokio::test(flavor = "multi_thread")]
async fn a_config_that_cannot_be_read_is_visible_in_the_summary_and_annotations() {
    let runner = Runner::new(Event::Review);
    let github = fake().await;
    github.inject(Fault::ServerError {
        operation: Some("RepositoryFile".to_owned()),
        status: 502,
        times: 10,
    });
    let run = runner.triage(&[], &github);
    assert_eq!(run.code, 4, "{}", run.explain());
    assert!(
        run.summary
            .contains("### review triage of #1 failed (exit 4)")
            && run
                .summary
                .contains("error: cannot read the repository's .github/review.toml"),
        "{}",
        run.explain()
    );
    assert!(
        run.stdout
            .contains("::error title=review triage failed (exit 4)::error: cannot read the repository's .github/review.toml"),
        "{}",
        run.explain()
    );
}

/// What `review` prints is never read as a workflow command: it runs between a
/// `::stop-commands::` with a fresh random token and the token that resumes them.
#[tokio::test(flavor = "multi_thread")]
async fn the_output_of_review_is_never_read_as_workflow_commands() {
    let runner = Runner::new(Event::PullRequest);
    let github = fake().await;
    let tokens: Vec<String> = (0..2)
        .map(|_| {
            let run = runner.triage(&[], &github);
            let token = run
                .stdout
                .lines()
                .find_map(|l| l.strip_prefix("::stop-commands::"))
                .unwrap_or_else(|| panic!("{}", run.explain()))
                .to_owned();
            assert!(token.len() > 30, "{token}");
            assert!(run.stdout.contains(&format!("::{token}::")), "resumed");
            token
        })
        .collect();
    assert_ne!(tokens[0], tokens[1], "a new token every run");
}

// ---------------------------------------------------------------------------------------------
// Arguments

/// The `args` input, one argument per line, reaches `review` unchanged: no word splitting, no
/// globbing (the workspace has `src/lib.rs` and `qa-bot-notes` for a glob to find), no
/// expansion, quotes kept, spaces kept; blank lines skipped. Seen by a stub `review` that
/// records its arguments.
#[tokio::test(flavor = "multi_thread")]
async fn args_reach_the_cli_unchanged_one_per_line() {
    let runner = Runner::new(Event::PullRequest);
    let stub = runner.env.dir().join("stub");
    std::fs::create_dir_all(&stub).unwrap();
    let argv = runner.env.dir().join("argv");
    std::fs::write(
        stub.join("review"),
        format!(
            "#!/bin/sh\nfor a in \"$@\"; do printf '%s\\0' \"$a\"; done > '{}'\n",
            argv.display()
        ),
    )
    .unwrap();
    use std::os::unix::fs::PermissionsExt as _;
    std::fs::set_permissions(stub.join("review"), std::fs::Permissions::from_mode(0o755)).unwrap();
    let lines = [
        "--protocol-signal",
        "approval dismissed",
        "--automation-account",
        "qa-*",
        "--deny-path=src/*.rs",
        "$HOME",
        "  two  spaces  ",
        "'single quoted'",
        "\"double quoted\"",
        "$(touch pwned)",
        "`touch pwned`",
        "a\\b",
    ];
    let input = format!("{}\n\n", lines.join("\n"));
    let run = runner.run("Triage", &[("args", &input)], None, &[stub], &[]);
    assert_eq!(run.code, 0, "{}", run.explain());
    let got = std::fs::read(&argv).unwrap();
    let got: Vec<&str> = std::str::from_utf8(&got)
        .unwrap()
        .split_terminator('\0')
        .collect();
    let tail = &got[got.len() - lines.len() - 3..got.len() - 3];
    assert_eq!(tail, lines, "{got:?}");
    assert_eq!(&got[..4], ["triage", "1", "--repo", "acme/widgets"]);
    assert_eq!(
        got[got.len() - 3..],
        ["--json", "--summary-file", got[got.len() - 1]]
    );
    assert!(!runner.work.join("pwned").exists());
}

/// The real CLI with a quoted value: `--protocol-signal` / `approval dismissed` on two lines
/// marks the thread saying it as a signal (word splitting would have failed the run).
#[tokio::test(flavor = "multi_thread")]
async fn a_value_with_spaces_reaches_the_real_cli() {
    let runner = Runner::new(Event::Review);
    let github = fake().await;
    let run = runner.triage(
        &[(
            "args",
            "--protocol-signal\napproval dismissed\n--deny-path\nsrc/*.rs\n",
        )],
        &github,
    );
    assert_eq!(run.code, 0, "{}", run.explain());
    let report = run.report();
    assert_eq!(
        thread(&report, "SIGNAL")["deferred_because"],
        "protocol_signal"
    );
    assert_ne!(
        thread(&report, "NIT")["deferred_because"],
        "deny_listed",
        "src/*.rs is a file name, not a glob that found src/lib.rs"
    );
}

/// A flag and its value on one line (the old, word-split form) is refused with a hint, before
/// anything is read.
#[tokio::test(flavor = "multi_thread")]
async fn a_flag_and_its_value_on_one_line_is_refused_with_a_hint() {
    let runner = Runner::new(Event::PullRequest);
    let github = fake().await;
    let run = runner.triage(&[("args", "--automation-account qa-bot")], &github);
    assert_eq!(run.code, 2, "{}", run.explain());
    assert!(
        run.stdout
            .contains("give one argument per line, or --flag=value"),
        "{}",
        run.explain()
    );
    assert!(github.requests().is_empty());
}

// ---------------------------------------------------------------------------------------------
// Fork pull requests and read-only tokens

/// A pull request from a fork, `apply: "true"`, on each event whose token GitHub makes
/// read-only: the step plans, says why nothing was applied (a notice and the summary), and
/// succeeds, without even trying a write.
#[tokio::test(flavor = "multi_thread")]
async fn a_fork_pull_request_with_apply_plans_says_why_and_succeeds() {
    for event in [Event::PullRequest, Event::Review, Event::ReviewComment] {
        let runner = Runner::new(event).fork("stranger");
        let github = fake().await;
        let repo = review_core::model::RepoId::parse("acme/widgets").unwrap();
        github.set_head_owner(&repo, 1, "stranger");
        github.read_only_token(TOKEN);
        let run = runner.triage(&[("apply", "true")], &github);
        let why = format!("{}: {}", event.name(), run.explain());
        assert_eq!(run.code, 0, "{why}");
        assert!(
            run.stdout.contains("::notice title=review: nothing applied::Nothing was applied: this pull request comes from a fork (stranger/widgets)"),
            "{why}"
        );
        assert!(
            run.summary
                .contains("> **Nothing was applied**: this pull request comes from a fork")
                && run.summary.contains("read-only token"),
            "{why}"
        );
        assert!(run.summary.contains("plan only, nothing changed"), "{why}");
        assert_eq!(run.outputs["applied"], "false", "{why}");
        assert_eq!(run.report()["applied"], false, "{why}");
        assert_eq!(mutations_sent(&github), 0, "no write even tried: {why}");
    }
}

/// `pull_request_target` runs with the base repository's token, fork or not: `apply` applies.
#[tokio::test(flavor = "multi_thread")]
async fn a_fork_pull_request_on_pull_request_target_applies() {
    let runner = Runner::new(Event::PullRequestTarget).fork("stranger");
    let github = fake().await;
    let repo = review_core::model::RepoId::parse("acme/widgets").unwrap();
    github.set_head_owner(&repo, 1, "stranger");
    let run = runner.triage(&[("apply", "true")], &github);
    assert!(
        !run.summary.contains("Nothing was applied"),
        "{}",
        run.explain()
    );
    assert_eq!(run.outputs["applied"], "true", "{}", run.explain());
    assert!(mutations_sent(&github) > 0, "{}", run.explain());
}

/// A token that may not write on a pull request of the repository itself (a workflow without
/// `pull-requests: write`, Dependabot's, a private fork's): GitHub refuses the writes, and the
/// step reports the plan, says why, and succeeds.
#[tokio::test(flavor = "multi_thread")]
async fn a_read_only_token_with_apply_reports_the_plan_and_succeeds() {
    let runner = Runner::new(Event::PullRequest);
    let github = fake().await;
    github.read_only_token(TOKEN);
    let run = runner.triage(&[("apply", "true")], &github);
    assert_eq!(run.code, 0, "{}", run.explain());
    assert!(github.mutations().is_empty());
    assert!(
        run.summary
            .contains("> **Nothing was applied**: GitHub refused the token's writes")
            && run.summary.contains("pull-requests: write"),
        "{}",
        run.explain()
    );
    assert_eq!(
        run.summary.matches("### review triage of #1").count(),
        1,
        "the plan only, not the refused attempt: {}",
        run.explain()
    );
    assert_eq!(run.outputs["applied"], "false");
    assert_eq!(run.report()["applied"], false);
}

// ---------------------------------------------------------------------------------------------
// The install: a fake release on a local server

/// A local HTTP/1.1 server holding files; it counts the requests and stops when dropped.
struct ReleaseServer {
    addr: std::net::SocketAddr,
    files: Arc<Mutex<BTreeMap<String, Vec<u8>>>>,
    hits: Arc<Mutex<Vec<String>>>,
    stop: Arc<AtomicBool>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl ReleaseServer {
    fn start() -> Self {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let addr = listener.local_addr().unwrap();
        let files: Arc<Mutex<BTreeMap<String, Vec<u8>>>> = Arc::default();
        let hits: Arc<Mutex<Vec<String>>> = Arc::default();
        let stop = Arc::new(AtomicBool::new(false));
        let thread = {
            let (files, hits, stop) = (Arc::clone(&files), Arc::clone(&hits), Arc::clone(&stop));
            std::thread::spawn(move || {
                for stream in listener.incoming() {
                    if stop.load(Ordering::SeqCst) {
                        break;
                    }
                    if let Ok(stream) = stream {
                        serve(stream, &files, &hits);
                    }
                }
            })
        };
        Self {
            addr,
            files,
            hits,
            stop,
            thread: Some(thread),
        }
    }

    fn url(&self) -> String {
        format!("http://{}/releases/download", self.addr)
    }

    fn put(&self, path: &str, bytes: Vec<u8>) {
        self.files
            .lock()
            .unwrap()
            .insert(format!("/releases/download/{path}"), bytes);
    }

    fn hits(&self) -> Vec<String> {
        self.hits.lock().unwrap().clone()
    }
}

impl Drop for ReleaseServer {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
        let _ = TcpStream::connect(self.addr);
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

fn serve(
    mut stream: TcpStream,
    files: &Mutex<BTreeMap<String, Vec<u8>>>,
    hits: &Mutex<Vec<String>>,
) {
    stream.set_read_timeout(Some(Duration::from_secs(5))).ok();
    let mut reader = BufReader::new(stream.try_clone().unwrap());
    let mut request = String::new();
    if reader.read_line(&mut request).is_err() {
        return;
    }
    loop {
        let mut header = String::new();
        match reader.read_line(&mut header) {
            Ok(0) | Err(_) => break,
            Ok(_) if header == "\r\n" || header == "\n" => break,
            Ok(_) => {}
        }
    }
    let path = request.split_whitespace().nth(1).unwrap_or("").to_owned();
    hits.lock().unwrap().push(path.clone());
    let found = files.lock().unwrap().get(&path).cloned();
    let (status, body) = match found {
        Some(bytes) => ("200 OK", bytes),
        None => ("404 Not Found", b"Not Found".to_vec()),
    };
    let head = format!(
        "HTTP/1.1 {status}\r\nContent-Length: {}\r\nContent-Type: application/octet-stream\r\nConnection: close\r\n\r\n",
        body.len()
    );
    let _ = stream.write_all(head.as_bytes());
    let _ = stream.write_all(&body);
    let _ = stream.flush();
    let mut rest = Vec::new();
    let _ = reader.read_to_end(&mut rest);
}

/// The release target of this machine, and the tool cache's name for its architecture.
fn host_target() -> (&'static str, &'static str) {
    match (std::env::consts::OS, std::env::consts::ARCH) {
        ("linux", "x86_64") => ("x86_64-unknown-linux-musl", "x64"),
        ("linux", "aarch64") => ("aarch64-unknown-linux-musl", "arm64"),
        ("macos", "x86_64") => ("x86_64-apple-darwin", "x64"),
        ("macos", "aarch64") => ("aarch64-apple-darwin", "arm64"),
        other => panic!("no release target for {other:?}"),
    }
}

/// The release archive as cargo-dist lays it out: `review-cli-TARGET/review` in
/// `review-cli-TARGET.tar.gz`. Its `review` runs the binary under test.
fn release_archive(env: &TestEnvironment, target: &str) -> Vec<u8> {
    let pkg = env.dir().join("pkg");
    let dir = pkg.join(format!("review-cli-{target}"));
    std::fs::create_dir_all(&dir).unwrap();
    let review = dir.join("review");
    std::fs::write(
        &review,
        format!(
            "#!/bin/sh\nexec '{}' \"$@\"\n",
            env!("CARGO_BIN_EXE_review")
        ),
    )
    .unwrap();
    use std::os::unix::fs::PermissionsExt as _;
    std::fs::set_permissions(&review, std::fs::Permissions::from_mode(0o755)).unwrap();
    let archive = env.dir().join("release.tar.gz");
    let status = Command::new("tar")
        .arg("-czf")
        .arg(&archive)
        .arg("-C")
        .arg(&pkg)
        .arg(format!("review-cli-{target}"))
        .status()
        .unwrap();
    assert!(status.success());
    std::fs::read(archive).unwrap()
}

fn sha256_hex(env: &TestEnvironment, bytes: &[u8]) -> String {
    let file = env.dir().join("to-hash");
    std::fs::write(&file, bytes).unwrap();
    let out = Command::new("sh")
        .arg("-c")
        .arg("if command -v sha256sum >/dev/null; then sha256sum \"$1\"; else shasum -a 256 \"$1\"; fi")
        .arg("sh")
        .arg(&file)
        .output()
        .unwrap();
    String::from_utf8(out.stdout).unwrap()[..64].to_owned()
}

/// A release of the workspace's version on a local server: the archive and its checksum file
/// (`HEX *NAME`, as cargo-dist writes it), `checksum` in place of the right one if given.
fn serve_release(runner: &Runner, checksum: Option<&str>) -> (ReleaseServer, String) {
    let (target, _) = host_target();
    let server = ReleaseServer::start();
    let archive = release_archive(&runner.env, target);
    let asset = format!("review-cli-{target}.tar.gz");
    let sum = checksum.map_or_else(|| sha256_hex(&runner.env, &archive), str::to_owned);
    let version = env!("CARGO_PKG_VERSION");
    server.put(&format!("v{version}/{asset}"), archive);
    server.put(
        &format!("v{version}/{asset}.sha256"),
        format!("{sum} *{asset}\n").into_bytes(),
    );
    (server, asset)
}

/// The default install (no `version` input): `github.action_ref` is empty in a composite action,
/// so the version is the action's own, from its Cargo.toml; the release archive is downloaded,
/// its SHA-256 checked, and the binary put in the tool cache and on PATH, in seconds. The next
/// job on the runner takes it from the cache without a download, and the Triage step runs the
/// installed binary.
#[tokio::test(flavor = "multi_thread")]
async fn the_install_takes_the_actions_own_release_checks_it_and_caches_it() {
    let runner = Runner::new(Event::PullRequest);
    let (server, asset) = serve_release(&runner, None);
    let url = server.url();
    let releases = [("REVIEW_RELEASES", url.as_str())];
    let version = env!("CARGO_PKG_VERSION");
    let (_, arch) = host_target();

    let run = runner.run("Install review", &[], None, &[], &releases);
    assert_eq!(run.code, 0, "{}", run.explain());
    assert!(
        run.took < Duration::from_secs(20),
        "seconds: {:?}",
        run.took
    );
    let dir = runner.tool_cache().join("review").join(version).join(arch);
    assert_eq!(run.path, std::slice::from_ref(&dir), "{}", run.explain());
    assert!(dir.join("review").is_file());
    assert!(
        runner
            .tool_cache()
            .join(format!("review/{version}/{arch}.complete"))
            .is_file()
    );
    assert!(run.stdout.contains("verified"), "{}", run.explain());
    assert!(
        run.stdout.contains(&format!("review {version} (commit ")),
        "its --version: {}",
        run.explain()
    );
    assert_eq!(
        server.hits(),
        [
            format!("/releases/download/v{version}/{asset}.sha256"),
            format!("/releases/download/v{version}/{asset}"),
        ]
    );

    // Another job on this runner: from the tool cache, nothing downloaded.
    let again = runner.run("Install review", &[], None, &[], &releases);
    assert_eq!(again.code, 0, "{}", again.explain());
    assert!(
        again.stdout.contains("from the tool cache"),
        "{}",
        again.explain()
    );
    assert_eq!(again.path, std::slice::from_ref(&dir));
    assert_eq!(server.hits().len(), 2, "no second download");

    // The Triage step with what the install put on PATH.
    let github = fake().await;
    let triage = runner.run("Triage", &[], Some(&github), &run.path, &[]);
    assert_eq!(triage.code, 0, "{}", triage.explain());
    assert_eq!(
        thread(&triage.report(), "FIX")["deferred_because"],
        "deny_listed"
    );
}

/// A pinned `version` (with or without the `v`) installs that release.
#[tokio::test(flavor = "multi_thread")]
async fn the_install_takes_a_pinned_version() {
    let runner = Runner::new(Event::PullRequest);
    let (server, _) = serve_release(&runner, None);
    let url = server.url();
    let version = format!("v{}", env!("CARGO_PKG_VERSION"));
    let run = runner.run(
        "Install review",
        &[("version", &version)],
        None,
        &[],
        &[("REVIEW_RELEASES", &url)],
    );
    assert_eq!(run.code, 0, "{}", run.explain());
    assert!(server.hits()[0].contains(&format!("/{version}/")));
}

/// A checksum that does not match the archive: nothing is installed, nothing cached, nothing
/// put on PATH, and the error says why.
#[tokio::test(flavor = "multi_thread")]
async fn the_install_refuses_an_archive_whose_checksum_does_not_match() {
    let runner = Runner::new(Event::PullRequest);
    let wrong = "0".repeat(64);
    let (server, asset) = serve_release(&runner, Some(&wrong));
    let url = server.url();
    let run = runner.run(
        "Install review",
        &[],
        None,
        &[],
        &[("REVIEW_RELEASES", &url)],
    );
    assert_eq!(run.code, 1, "{}", run.explain());
    assert!(
        run.stderr.contains(&format!(
            "::error title=review: install::checksum mismatch for {asset}: expected {wrong}"
        )) && run.stderr.contains("nothing was installed"),
        "{}",
        run.explain()
    );
    assert!(run.path.is_empty(), "nothing on PATH");
    let cached = runner.tool_cache().join("review");
    assert!(
        !cached.exists() || walk(&cached).is_empty(),
        "nothing in the tool cache: {:?}",
        walk(&cached)
    );
}

/// A release that is not there: the error names the URL and the way out.
#[tokio::test(flavor = "multi_thread")]
async fn the_install_of_a_missing_release_says_so() {
    let runner = Runner::new(Event::PullRequest);
    let (server, _) = serve_release(&runner, None);
    let url = server.url();
    let run = runner.run(
        "Install review",
        &[("version", "9.9.9")],
        None,
        &[],
        &[("REVIEW_RELEASES", &url)],
    );
    assert_eq!(run.code, 1, "{}", run.explain());
    assert!(
        run.stderr
            .contains("is 9.9.9 released? (the input version: source builds instead)"),
        "{}",
        run.explain()
    );
    assert!(run.path.is_empty());
}

/// A version that is not one (a path, a URL) never reaches a download URL.
#[tokio::test(flavor = "multi_thread")]
async fn the_install_refuses_a_version_that_is_not_a_release() {
    let runner = Runner::new(Event::PullRequest);
    let server = ReleaseServer::start();
    let url = server.url();
    for version in ["../../evil", "main", "1.0", "1.0.0/../x"] {
        let run = runner.run(
            "Install review",
            &[("version", version)],
            None,
            &[],
            &[("REVIEW_RELEASES", &url)],
        );
        assert_eq!(run.code, 1, "{version}: {}", run.explain());
        assert!(
            run.stderr.contains("is neither a release"),
            "{}",
            run.explain()
        );
    }
    assert!(server.hits().is_empty());
}

/// action.yml downloads from the repository Cargo.toml names (the constant cannot drift).
#[test]
fn the_release_repository_in_action_yml_is_the_workspaces() {
    let action = action_yml();
    let releases = action
        .step("Install review")
        .env
        .iter()
        .find(|(k, _)| k == "REVIEW_RELEASES")
        .map(|(_, v)| v.clone())
        .expect("REVIEW_RELEASES in action.yml");
    let manifest = std::fs::read_to_string(workspace_root().join("Cargo.toml")).unwrap();
    let repository = manifest
        .lines()
        .find_map(|l| l.strip_prefix("repository = "))
        .map(unquote)
        .expect("the workspace's repository");
    assert_eq!(releases, format!("{repository}/releases/download"));
    assert_eq!(
        action.defaults["version"], "",
        "the default is the action's own version"
    );
}

fn walk(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    if let Ok(entries) = std::fs::read_dir(dir) {
        for e in entries.flatten() {
            let p = e.path();
            if p.is_dir() {
                out.extend(walk(&p));
            } else {
                out.push(p);
            }
        }
    }
    out
}

/// `review --version` says which commit and target a binary is (what the install checks, and
/// what a bug report needs): the checkout's commit when built in git, else `unknown`.
#[test]
fn the_version_names_the_commit_and_the_target() {
    let out = Command::new(env!("CARGO_BIN_EXE_review"))
        .arg("--version")
        .output()
        .unwrap();
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    let rest = text
        .trim_end()
        .strip_prefix(&format!("review {} (commit ", env!("CARGO_PKG_VERSION")))
        .unwrap_or_else(|| panic!("{text}"));
    let (commit, target) = rest
        .strip_suffix(')')
        .and_then(|r| r.split_once(", "))
        .unwrap_or_else(|| panic!("{text}"));
    let head = Command::new("git")
        .args(["rev-parse", "HEAD"])
        .current_dir(workspace_root())
        .output()
        .ok()
        .filter(|o| o.status.success())
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_owned());
    match head {
        Some(head) => assert!(head.starts_with(commit) && commit.len() == 12, "{text}"),
        None => assert_eq!(commit, "unknown", "{text}"),
    }
    let arch = std::env::consts::ARCH;
    let os = match std::env::consts::OS {
        "macos" => "apple-darwin",
        other => other,
    };
    assert!(
        target.starts_with(arch) && target.contains(os),
        "{text}: a {arch} {os} target"
    );
}

/// The `status` input: the verdict after the triage in the outputs and the summary, never a
/// failed step; `publish` sets it as the head's commit status; anything else is refused.
#[tokio::test(flavor = "multi_thread")]
async fn the_status_input_adds_the_verdict_and_can_publish_it() {
    let runner = Runner::new(Event::PullRequest);
    let github = fake().await;
    let run = runner.triage(&[("status", "true")], &github);
    assert_eq!(
        run.code,
        0,
        "a verdict never fails the step: {}",
        run.explain()
    );
    assert_eq!(
        run.outputs["status"],
        "ACTION_REQUIRED",
        "mei's question waits for the author: {}",
        run.explain()
    );
    assert!(
        run.summary.contains("**Status**: `ACTION_REQUIRED`"),
        "{}",
        run.explain()
    );
    assert!(
        github.posted_statuses().is_empty(),
        "`true` publishes nothing"
    );

    let run = runner.triage(&[("status", "publish")], &github);
    assert_eq!(run.code, 0, "{}", run.explain());
    let posted = github.posted_statuses();
    assert_eq!(posted.len(), 1, "{}", run.explain());
    assert_eq!(posted[0]["context"], "review/status");
    assert_eq!(posted[0]["state"], "failure");

    // As a check run (the Actions token is an App's): no second commit status.
    let run = runner.triage(&[("status", "publish-check-run")], &github);
    assert_eq!(run.code, 0, "{}", run.explain());
    let runs = github.posted_check_runs();
    assert_eq!(runs.len(), 1, "{}", run.explain());
    assert_eq!(runs[0]["name"], "review/status");
    assert_eq!(runs[0]["conclusion"], "failure");
    assert_eq!(github.posted_statuses().len(), 1);

    let run = runner.triage(&[], &github);
    assert_eq!(run.outputs["status"], "", "no verdict without the input");

    let run = runner.triage(&[("status", "yes")], &github);
    assert_eq!(run.code, 2, "{}", run.explain());
    assert!(
        run.stdout.contains("use \\\"true\\\"") || run.stdout.contains("status is"),
        "{}",
        run.explain()
    );
}
