//! A server whose schema lacks fields, arguments and mutations, as an older GitHub Enterprise
//! Server's does: each document selecting one fails whole, as GitHub answers it.

use review_core::model::RepoId;
use review_test_support::PrBuilder;
use review_test_support::github::FakeGitHub;
use serde_json::{Value, json};

use crate::client::ok;
use crate::queries::RESOLVE_THREAD;

const ROLLUP: &str = r#"query Rollup($owner: String!, $name: String!, $number: Int!) {
  repository(owner: $owner, name: $name) {
    pullRequest(number: $number) {
      number
      statusCheckRollup {
        state
      }
    }
  }
}
"#;

const PLAIN: &str = r#"query Plain($owner: String!, $name: String!, $number: Int!) {
  repository(owner: $owner, name: $name) {
    pullRequest(number: $number) {
      number
      isDraft
    }
  }
}
"#;

const REQUEST: &str = r#"mutation Request($pullRequestId: ID!) {
  requestReviewsByLogin(input: {pullRequestId: $pullRequestId, userLogins: ["copilot"]}) {
    clientMutationId
  }
}
"#;

fn vars() -> Value {
    json!({"owner": "acme", "name": "widgets", "number": 1})
}

async fn fake() -> FakeGitHub {
    let github = FakeGitHub::start().await;
    github.add_pull_request(PrBuilder::new().build());
    github
}

/// The first error of an answer that must carry no `data` (a variable only the missing field
/// used is reported unused beside it).
fn only_error(answer: &Value) -> &Value {
    assert!(answer.get("data").is_none(), "no data expected: {answer}");
    let errors = answer["errors"].as_array().unwrap();
    assert!(
        errors[1..]
            .iter()
            .all(|e| e["extensions"]["code"] == "variableNotUsed"),
        "{answer}"
    );
    &errors[0]
}

#[tokio::test]
async fn a_missing_field_fails_the_document_as_github_answers_it() {
    let github = fake().await;
    assert!(
        ok(&github, "Rollup", ROLLUP, &vars())
            .get("errors")
            .is_none()
    );
    let spent = github.points();

    github.without_field("PullRequest", "statusCheckRollup");
    let answer = ok(&github, "Rollup", ROLLUP, &vars());
    let error = only_error(&answer);
    assert_eq!(
        error["message"],
        "Field 'statusCheckRollup' doesn't exist on type 'PullRequest'"
    );
    assert_eq!(error["extensions"]["code"], "undefinedField");
    assert_eq!(error["extensions"]["typeName"], "PullRequest");
    assert_eq!(error["extensions"]["fieldName"], "statusCheckRollup");
    assert_eq!(
        error["path"],
        json!([
            "query Rollup",
            "repository",
            "pullRequest",
            "statusCheckRollup"
        ])
    );
    assert!(error["locations"][0]["line"].as_u64().unwrap() > 1);
    assert_eq!(github.points(), spent, "a refused document costs nothing");

    // The other fields of the type are still there.
    assert!(ok(&github, "Plain", PLAIN, &vars()).get("errors").is_none());
}

#[tokio::test]
async fn a_missing_mutation_applies_nothing() {
    let github = fake().await;
    github.without_mutation("requestReviewsByLogin");
    let pr = github
        .pull_request(&RepoId::parse("acme/widgets").unwrap(), 1)
        .unwrap();
    let answer = ok(
        &github,
        "Request",
        REQUEST,
        &json!({"pullRequestId": pr.id}),
    );
    let error = only_error(&answer);
    assert_eq!(error["extensions"]["code"], "undefinedField");
    assert_eq!(error["extensions"]["typeName"], "Mutation");
    assert_eq!(error["extensions"]["fieldName"], "requestReviewsByLogin");
    assert!(github.mutations().is_empty());

    // Other mutations still run.
    let thread = json!({"threadId": "no-such-thread"});
    let answer = ok(&github, "ResolveThread", RESOLVE_THREAD, &thread);
    assert!(answer.get("data").is_some(), "{answer}");
}

#[tokio::test]
async fn a_missing_argument_is_not_accepted() {
    let github = fake().await;
    github.without_argument("Repository", "pullRequest", "number");
    let answer = ok(&github, "Plain", PLAIN, &vars());
    let error = only_error(&answer);
    assert_eq!(
        error["message"],
        "Field 'pullRequest' doesn't accept argument 'number'"
    );
    assert_eq!(error["extensions"]["code"], "argumentNotAccepted");
    assert_eq!(error["extensions"]["name"], "pullRequest");
    assert_eq!(error["extensions"]["typeName"], "Field");
    assert_eq!(error["extensions"]["argumentName"], "number");
}
