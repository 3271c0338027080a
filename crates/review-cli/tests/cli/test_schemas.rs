//! Every JSON output validates against the schema `review schema` publishes for it.

use review_test_support::github::FakeGitHub;
use review_test_support::{PrBuilder, bot, person};
use serde_json::Value;

use crate::common::{TestEnvironment, example_snapshot, git};

fn schema(env: &TestEnvironment, name: &str) -> Value {
    let out = env.run(&["schema", name]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    serde_json::from_str(&out.stdout).unwrap()
}

fn assert_valid(env: &TestEnvironment, name: &str, instance: &Value) {
    let schema = schema(env, name);
    let validator = jsonschema::validator_for(&schema).unwrap();
    let errors: Vec<String> = validator
        .iter_errors(instance)
        .map(|e| format!("{} at {}", e, e.instance_path()))
        .collect();
    assert!(errors.is_empty(), "{name}: {errors:?}\n{instance}");
}

fn json(text: &str) -> Value {
    serde_json::from_str(text).unwrap_or_else(|e| panic!("{e}: {text}"))
}

#[test]
fn triage_outputs_validate() {
    let env = TestEnvironment::new();
    let input = example_snapshot();
    let input = input.to_str().unwrap();
    let out = env.run(&["triage", "--input", input, "--json"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let mut report = json(&out.stdout);
    assert_valid(&env, "report", &report);
    // The schema has teeth: a report whose counts are not numbers does not validate.
    report["counts"]["resolved"] = Value::from("seven");
    let validator = jsonschema::validator_for(&schema(&env, "report")).unwrap();
    assert!(!validator.is_valid(&report));
    let out = env.run(&["triage", "--input", input, "--substep"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert_valid(&env, "substep", &json(&out.stdout));
    let out = env.run(&["config", "--json"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert_valid(&env, "config", &json(&out.stdout));
}

#[tokio::test(flavor = "multi_thread")]
async fn loop_outputs_and_files_validate() {
    let env = TestEnvironment::new();
    git(env.dir(), &["init", "-q", "-b", "feature"]);
    let github = FakeGitHub::start().await;
    github.add_pull_request(
        PrBuilder::new()
            .thread(
                "A",
                "src/cache.rs",
                3,
                &[(bot("coderabbitai"), "**Unbounded cache.** It grows.")],
            )
            .thread("H", "src/lib.rs", 9, &[(person("mei"), "Why?")])
            .build(),
    );
    let graphql = github.graphql_url();
    let rest = github.rest_url();
    let vars = [
        ("GITHUB_GRAPHQL_URL", graphql.as_str()),
        ("GITHUB_API_URL", rest.as_str()),
    ];
    let run = |args: &[&str]| {
        let mut full = args.to_vec();
        full.extend(["--repo", "acme/widgets"]);
        let out = env.run_with(&full, &vars);
        assert_eq!(out.code, 0, "{args:?}: {}", out.stderr);
        out.stdout
    };

    assert_valid(&env, "threads", &json(&run(&["threads", "1", "--json"])));
    let events = run(&["watch", "1", "--once"]);
    assert!(!events.is_empty());
    for line in events.lines() {
        assert_valid(&env, "watch-event", &json(line));
    }
    let state_path = crate::common::state_file(env.dir(), "watch");
    let state = json(&std::fs::read_to_string(&state_path).unwrap());
    assert_valid(&env, "watch-state", &state);
    let fp = state["pending"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["kind"] == "bot")
        .unwrap()["fingerprint"]
        .as_str()
        .unwrap()
        .to_owned();
    let fenced = run(&["fence", "--finding", &fp, "1", "--json"]);
    assert_valid(&env, "fence", &json(&fenced));
    env.write("answers.json", &format!(r#"{{"{fp}": null}}"#));
    assert_valid(
        &env,
        "decide",
        &json(&run(&[
            "decide",
            "1",
            "--answers",
            "answers.json",
            "--json",
        ])),
    );
    let decisions = crate::common::state_file(env.dir(), "decisions");
    assert_valid(
        &env,
        "decisions",
        &json(&std::fs::read_to_string(decisions).unwrap()),
    );
}
