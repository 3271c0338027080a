//! Issue 13, item 20: what an agent passes to the MCP server never becomes an option of the
//! `review` command it runs, and a pull request on another host or repository than the one the
//! server serves is refused. Driven over stdio as an agent drives it (see `test_mcp.rs`).

use std::io::{BufRead, BufReader, Write};
use std::process::{Command, Stdio};

use review_core::model::ThreadId;
use review_test_support::github::FakeGitHub;
use review_test_support::{Mutation, PrBuilder, bot};
use serde_json::{Value, json};

use crate::attack2_support::{nitpick, replies_in, run};
use crate::common::{TestEnvironment, git};

struct Session {
    child: std::process::Child,
    stdin: std::process::ChildStdin,
    stdout: BufReader<std::process::ChildStdout>,
    next: u64,
}

impl Session {
    fn start(env: &TestEnvironment, github: &FakeGitHub, repo: &str) -> Self {
        let mut child = Command::new(env!("CARGO_BIN_EXE_review"))
            .args(["mcp", "--allow-writes", "--repo", repo])
            .current_dir(env.dir())
            .env_clear()
            .env("PATH", std::env::var_os("PATH").unwrap_or_default())
            .env("HOME", env.dir())
            .env("GH_TOKEN", "test-token")
            .env("GITHUB_GRAPHQL_URL", github.graphql_url())
            .env("GITHUB_API_URL", github.rest_url())
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let stdin = child.stdin.take().unwrap();
        let stdout = BufReader::new(child.stdout.take().unwrap());
        let mut session = Self {
            child,
            stdin,
            stdout,
            next: 1,
        };
        let init = session.request(
            "initialize",
            &json!({
                "protocolVersion": "2025-06-18",
                "capabilities": {},
                "clientInfo": {"name": "attack", "version": "0"},
            }),
        );
        assert!(init["result"]["serverInfo"].is_object(), "{init}");
        session.send(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
        session
    }

    fn send(&mut self, message: &Value) {
        writeln!(self.stdin, "{message}").unwrap();
        self.stdin.flush().unwrap();
    }

    fn request(&mut self, method: &str, params: &Value) -> Value {
        let id = self.next;
        self.next += 1;
        self.send(&json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}));
        loop {
            let mut line = String::new();
            assert!(
                self.stdout.read_line(&mut line).unwrap() > 0,
                "the server closed"
            );
            let message: Value = serde_json::from_str(&line).expect("stdout carries JSON-RPC only");
            if message["id"] == id {
                return message;
            }
        }
    }

    /// Calls `tool`: whether it failed, and its text.
    fn call(&mut self, tool: &str, arguments: &Value) -> (bool, String) {
        let answer = self.request("tools/call", &json!({"name": tool, "arguments": arguments}));
        let result = &answer["result"];
        let text = result["content"][0]["text"]
            .as_str()
            .unwrap_or_default()
            .to_owned();
        (result["isError"] == true, text)
    }
}

impl Drop for Session {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

async fn setup() -> (TestEnvironment, FakeGitHub) {
    let env = TestEnvironment::new();
    git(env.dir(), &["init", "-q", "-b", "feature"]);
    let github = FakeGitHub::start().await;
    github.add_pull_request(
        PrBuilder::new()
            .thread(
                "NIT",
                "src/lib.rs",
                5,
                &[(bot("coderabbitai"), &nitpick(0))],
            )
            .build(),
    );
    (env, github)
}

/// Options `review` takes, written as a thread id.
const OPTION_IDS: &[&str] = &["--help", "-h", "--version", "--repo=evil/x", "--all"];

// Attack: an agent passes `--help` (or another option) as a thread id, hoping it reaches the
// command as an option (help printed as success, another repository, ...); safe: refused as
// not a thread id before anything runs or is asked of GitHub.
#[tokio::test(flavor = "multi_thread")]
async fn attack_mcp_a_thread_id_of_help_is_refused_as_not_a_thread_id() {
    let (env, github) = setup().await;
    let mut session = Session::start(&env, &github, "acme/widgets");
    let before = github.requests().len();
    for id in OPTION_IDS {
        for (tool, args) in [
            ("resolve_thread", json!({"pr": "1", "thread_id": id})),
            (
                "reply_thread",
                json!({"pr": "1", "thread_id": id, "body": "Fixed."}),
            ),
            ("get_thread", json!({"pr": "1", "thread_id": id})),
        ] {
            let (error, text) = session.call(tool, &args);
            assert!(error, "{tool} {id}: {text}");
            assert_eq!(text, format!("`{id}` is not a thread id"), "{tool}");
        }
    }
    assert_eq!(github.requests().len(), before, "nothing asked of GitHub");
    assert!(github.mutations().is_empty());
}

// Attack: a reply body that reads as options (`--repo evil/x`), once refused and liable to be
// parsed as arguments; safe: the body travels by file and is posted as text, verbatim.
#[tokio::test(flavor = "multi_thread")]
async fn attack_mcp_a_reply_body_starting_with_a_dash_is_posted_verbatim() {
    let (env, github) = setup().await;
    let mut session = Session::start(&env, &github, "acme/widgets");
    let body = "--repo evil/x --body pwned\n-h";
    let (error, text) = session.call(
        "reply_thread",
        &json!({"pr": "1", "thread_id": "NIT", "body": body}),
    );
    assert!(!error, "{text}");
    let replies = replies_in(&github, "NIT");
    assert_eq!(replies.len(), 1, "{:?}", github.mutations());
    assert!(
        replies[0].contains(&format!("\n\n{body}\n\n")),
        "the text as given: {}",
        replies[0]
    );
    let requests = github.requests();
    assert!(requests.iter().any(|r| r.variables.get("owner").is_some()));
    assert!(
        requests
            .iter()
            .all(|r| r.variables.get("owner").is_none_or(|o| o == "acme")),
        "no request about evil/x"
    );
}

// Attack: a PR URL on another host (where the token would follow) or in another repository than
// the one the server was started for; safe: refused before anything runs, whatever the tool.
#[tokio::test(flavor = "multi_thread")]
async fn attack_mcp_a_pr_on_another_host_or_repository_is_refused() {
    let (env, github) = setup().await;
    let mut session = Session::start(&env, &github, "acme/widgets");
    let before = github.requests().len();
    for (pr, why) in [
        (
            "https://ghe.example.com/acme/widgets/pull/1",
            "is on ghe.example.com, and this server serves github.com",
        ),
        (
            "https://evil.example.com/acme/widgets/pull/1",
            "is on evil.example.com, and this server serves github.com",
        ),
        (
            "https://github.com/evil/x/pull/1",
            "is in evil/x, and this server serves acme/widgets",
        ),
    ] {
        for (tool, args) in [
            ("resolve_thread", json!({"pr": pr, "thread_id": "NIT"})),
            ("plan_triage", json!({"pr": pr})),
            ("list_threads", json!({"pr": pr})),
            ("respond", json!({"pr": pr, "replies": []})),
        ] {
            let (error, text) = session.call(tool, &args);
            assert!(error, "{tool} {pr}: {text}");
            assert!(text.contains(why), "{tool} {pr}: {text}");
        }
    }
    assert_eq!(github.requests().len(), before, "nothing asked of GitHub");
    // The pinned repository's own URL goes through.
    let (error, text) = session.call(
        "resolve_thread",
        &json!({"pr": "https://github.com/acme/widgets/pull/1", "thread_id": "NIT"}),
    );
    assert!(!error, "{text}");
    assert_eq!(
        github.mutations(),
        vec![Mutation::Resolve(ThreadId::from("NIT"))]
    );

    // A server pinned to an Enterprise host refuses github.com's URLs.
    let mut pinned = Session::start(&env, &github, "ghe.example.com/acme/widgets");
    let (error, text) = pinned.call(
        "resolve_thread",
        &json!({"pr": "https://github.com/acme/widgets/pull/1", "thread_id": "NIT"}),
    );
    assert!(error, "{text}");
    assert!(
        text.contains("is on github.com, and this server serves ghe.example.com"),
        "{text}"
    );
    assert_eq!(github.mutations().len(), 1);
}

// Attack: a positional argument that starts with `-` (a thread id `--help`) read by clap as an
// option of the command the server runs; safe: the server puts every positional after `--`,
// and the command then refuses it as not a thread id (exit 2) instead of obeying it.
#[tokio::test(flavor = "multi_thread")]
async fn attack_a_positional_starting_with_a_dash_never_reaches_clap_as_an_option() {
    let (env, github) = setup().await;
    env.write("body.txt", "Fixed.");
    for id in OPTION_IDS {
        for args in [
            vec!["resolve", "--pr", "1", "--repo", "acme/widgets", "--", id],
            vec![
                "reply",
                "--pr",
                "1",
                "--repo",
                "acme/widgets",
                "--body-file",
                "body.txt",
                "--",
                id,
            ],
        ] {
            let out = run(crate::attack2_support::review(
                env.dir(),
                env.dir(),
                &github,
                &args,
            ));
            assert_eq!(out.code, 2, "{args:?}: {}{}", out.stdout, out.stderr);
            assert!(
                out.stderr.contains(&format!("`{id}` is not a thread id")),
                "{args:?}: {}",
                out.stderr
            );
            assert!(
                !out.stdout.contains("Usage"),
                "no help printed: {}",
                out.stdout
            );
        }
    }
    assert!(github.requests().is_empty(), "nothing asked of GitHub");
    // Through the server, the same ids never get that far (see above); a thread id that is one
    // goes through the same `--` and is acted on.
    let mut session = Session::start(&env, &github, "acme/widgets");
    let (error, text) = session.call("resolve_thread", &json!({"pr": "1", "thread_id": "NIT"}));
    assert!(!error, "{text}");
    assert_eq!(
        github.mutations(),
        vec![Mutation::Resolve(ThreadId::from("NIT"))]
    );
}
