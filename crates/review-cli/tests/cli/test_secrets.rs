//! Secrets: every command `review --help` lists, run against the fake GitHub with a
//! recognisable token and `RUST_LOG=trace`, on success and on error paths (a refused token, a
//! token no header can carry, an unreachable server, a rate limit): the token appears in no
//! stdout, no stderr, no file the tool writes (the state under `.git/review`, snapshots,
//! reports), and reaches GitHub only in the `Authorization` header. `docs/robustness.md` lists
//! this drill.

use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use review_test_support::github::{FakeGitHub, Fault};
use review_test_support::{PrBuilder, bot, person};

use crate::common::{Output, TestEnvironment};
use crate::drill_support::{git_out, output_of, repository, triage_pr};

const TOKEN: &str = "ghp_SECRETsecret123456";
/// Pieces of the token that must not show either (a token cut short, or printed in part).
const PIECES: &[&str] = &["SECRETsecret", "secret123456", "ghp_SECRET"];

struct Setup {
    env: TestEnvironment,
    work: PathBuf,
    github: FakeGitHub,
    /// The arguments of every run, to check that every command was run.
    seen: std::cell::RefCell<Vec<String>>,
}

impl Setup {
    async fn start() -> Self {
        let env = TestEnvironment::new();
        let (head, work) = repository(&env);
        let github = FakeGitHub::start().await;
        github.require_token(TOKEN);
        let mut pr = triage_pr(&head, 3);
        let extra = PrBuilder::new()
            .thread(
                "LOOPED",
                "src/cache.rs",
                3,
                &[(
                    bot("coderabbitai"),
                    "**Unbounded cache growth.** The cache never evicts entries.",
                )],
            )
            .thread(
                "HUM2",
                "src/cache.rs",
                9,
                &[(person("mei"), "why a cache at all?")],
            )
            .build();
        pr.threads.extend(extra.threads);
        github.add_pull_request(pr);
        Self {
            env,
            work,
            github,
            seen: std::cell::RefCell::new(Vec::new()),
        }
    }

    fn command(&self, args: &[&str], vars: &[(&str, &str)]) -> Command {
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_review"));
        cmd.args(args)
            .current_dir(&self.work)
            .env_clear()
            .env("PATH", std::env::var_os("PATH").unwrap_or_default())
            .env("HOME", self.env.dir())
            .env("GH_TOKEN", TOKEN)
            .env("RUST_LOG", "trace")
            .env("RUST_BACKTRACE", "1")
            .env("NO_COLOR", "1")
            .env("GITHUB_GRAPHQL_URL", self.github.graphql_url())
            .env("GITHUB_API_URL", self.github.rest_url())
            .envs(crate::common::GIT_IDENTITY)
            .stdin(Stdio::null());
        for (k, v) in vars {
            cmd.env(k, v);
        }
        cmd
    }

    /// Runs `review args` (extra environment `vars`), checks its output for the token, and
    /// returns it.
    fn run_with(&self, args: &[&str], vars: &[(&str, &str)]) -> Output {
        let out = output_of(self.command(args, vars));
        assert_clean(&format!("{args:?}"), &out.stdout);
        assert_clean(&format!("{args:?} (stderr)"), &out.stderr);
        self.seen.borrow_mut().push(format!("{args:?}"));
        out
    }

    fn run(&self, args: &[&str]) -> Output {
        self.run_with(args, &[])
    }

    /// Runs and expects `code`.
    fn expect(&self, code: i32, args: &[&str]) -> Output {
        let out = self.run(args);
        assert_eq!(out.code, code, "{args:?}:\n{}\n{}", out.stdout, out.stderr);
        out
    }

    fn fingerprint(&self) -> String {
        let path = crate::common::state_file(&self.work, "watch");
        let state: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
        state["pending"]
            .as_array()
            .unwrap()
            .iter()
            .find(|p| p["threadId"] == "LOOPED")
            .map(|p| p["fingerprint"].as_str().unwrap().to_owned())
            .unwrap_or_else(|| panic!("LOOPED is pending: {state}"))
    }
}

fn assert_clean(what: &str, text: &str) {
    assert!(!text.contains(TOKEN), "{what} shows the token:\n{text}");
    for piece in PIECES {
        assert!(
            !text.contains(piece),
            "{what} shows part of the token ({piece}):\n{text}"
        );
    }
}

/// Every file under `dir` (git's compressed objects aside), checked for the token.
fn assert_no_file_holds_the_token(dir: &Path) -> usize {
    let mut checked = 0;
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for entry in std::fs::read_dir(&d).unwrap() {
            let path = entry.unwrap().path();
            let meta = std::fs::symlink_metadata(&path).unwrap();
            if meta.is_dir() {
                if path.file_name().is_some_and(|n| n == "objects") {
                    continue;
                }
                stack.push(path);
            } else if meta.is_file() {
                let bytes = std::fs::read(&path).unwrap();
                let text = String::from_utf8_lossy(&bytes);
                assert_clean(&path.display().to_string(), &text);
                checked += 1;
            }
        }
    }
    checked
}

/// `review mcp` over stdio: initialize, list the tools, call the read-only ones.
fn mcp_session(s: &Setup) -> Output {
    let mut child = s
        .command(&["mcp", "--repo", "acme/widgets"], &[])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let mut stdout = BufReader::new(child.stdout.take().unwrap());
    let mut transcript = String::new();
    let mut request = |id: u64, method: &str, params: serde_json::Value| {
        let message =
            serde_json::json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params});
        writeln!(stdin, "{message}").unwrap();
        stdin.flush().unwrap();
        loop {
            let mut line = String::new();
            assert!(
                stdout.read_line(&mut line).unwrap() > 0,
                "the server closed"
            );
            transcript.push_str(&line);
            let answer: serde_json::Value = serde_json::from_str(&line).unwrap();
            if answer["id"] == id {
                break;
            }
        }
    };
    request(
        1,
        "initialize",
        serde_json::json!({"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "0"}}),
    );
    request(2, "tools/list", serde_json::json!({}));
    request(
        3,
        "tools/call",
        serde_json::json!({"name": "list_threads", "arguments": {"pr": "1"}}),
    );
    request(
        4,
        "tools/call",
        serde_json::json!({"name": "plan_triage", "arguments": {"pr": "1"}}),
    );
    request(
        5,
        "tools/call",
        serde_json::json!({"name": "watch_once", "arguments": {"pr": "1"}}),
    );
    drop(stdin);
    let out = child.wait_with_output().unwrap();
    let mut rest = String::new();
    std::io::Read::read_to_string(&mut stdout, &mut rest).unwrap();
    transcript.push_str(&rest);
    Output {
        stdout: transcript,
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
        code: out.status.code().unwrap_or(-1),
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn secrets_the_token_appears_nowhere_on_any_command() {
    let s = Setup::start().await;
    let pr = ["1", "--repo", "acme/widgets"];
    let with_pr = |args: &[&'static str]| -> Vec<&str> {
        let mut v = args.to_vec();
        v.extend(pr);
        v
    };

    // Every command, on its success path.
    let listed = s.expect(0, &["--help"]);
    s.expect(0, &with_pr(&["triage", "--json"]));
    s.expect(0, &with_pr(&["threads", "--all", "--json"]));
    s.expect(0, &with_pr(&["snapshot", "--out", "snapshot.json"]));
    let snapshot = s.work.join("snapshot.json");
    s.expect(
        0,
        &["triage", "--input", snapshot.to_str().unwrap(), "--json"],
    );
    s.expect(
        0,
        &["resolve", "NIT0", "--pr", "1", "--repo", "acme/widgets"],
    );
    s.expect(
        0,
        &[
            "reply",
            "NIT1",
            "--pr",
            "1",
            "--repo",
            "acme/widgets",
            "--body",
            "Not applying this.",
        ],
    );
    s.expect(0, &["defer", "NIT1", "--pr", "1", "--repo", "acme/widgets"]);
    std::fs::write(
        s.work.join("replies.json"),
        r#"[{"threadId": "NIT2", "replyBody": "Out of scope.", "resolve": true}]"#,
    )
    .unwrap();
    s.expect(0, &with_pr(&["respond", "--replies", "replies.json"]));
    s.expect(0, &with_pr(&["triage", "--apply", "--json"]));
    s.expect(0, &with_pr(&["watch", "--once"]));
    for args in [&["status"][..], &["status", "--json", "--publish"]] {
        let out = s.run(&with_pr(args));
        assert!(
            out.code == 0 || (8..=11).contains(&out.code),
            "{args:?}: a verdict: {}",
            out.stderr
        );
    }
    s.expect(
        0,
        &with_pr(&[
            "rereview",
            "--expect-bot",
            "gemini-code-assist",
            "--expect-bot",
            "copilot-pull-request-reviewer",
            "--json",
        ]),
    );
    let fp = s.fingerprint();
    s.expect(
        0,
        &["fence", "1", "--repo", "acme/widgets", "--finding", &fp],
    );
    std::fs::write(
        s.work.join("answer.json"),
        r#"{"verdict": "VALID", "reasoning": "the cache never evicts", "evidence": ["src/cache.rs:3"], "fixSketch": "bound it"}"#,
    )
    .unwrap();
    s.expect(
        0,
        &[
            "decide",
            "1",
            "--repo",
            "acme/widgets",
            "--finding",
            &fp,
            "--answer",
            "answer.json",
            "--json",
        ],
    );
    std::fs::write(
        s.work.join("src/cache.rs"),
        "pub struct Cache { max: usize }\n",
    )
    .unwrap();
    let round = s.run(&with_pr(&[
        "commit-round",
        "--path",
        "src/cache.rs",
        "--check-cmd",
        "true",
    ]));
    assert!(matches!(round.code, 0 | 1), "{}", round.stderr);
    s.expect(0, &with_pr(&["respond", "--from-decisions"]));
    std::fs::write(
        s.work.join("triage.sh"),
        "cat > /dev/null\necho '{\"verdict\":\"FALSE_POSITIVE\",\"reasoning\":\"bounded\",\"evidence\":[\"src/cache.rs:1\"]}'\n",
    )
    .unwrap();
    s.expect(
        0,
        &with_pr(&[
            "loop",
            "--triager-cmd",
            "sh triage.sh",
            "--check-cmd",
            "true",
            "--interval",
            "0",
            "--max-polls",
            "1",
        ]),
    );
    std::fs::write(
        s.work.join("answers.json"),
        r#"{"status": "submitted", "issues": {}}"#,
    )
    .unwrap();
    s.expect(
        0,
        &with_pr(&[
            "followup",
            "--answers",
            "answers.json",
            "--yes",
            "--no-browser",
        ]),
    );
    s.expect(0, &with_pr(&["followup", "--finish", "--no-browser"]));
    s.expect(0, &with_pr(&["log"]));
    s.expect(0, &with_pr(&["log", "--json"]));
    s.expect(0, &["config"]);
    s.expect(0, &["config", "--json"]);
    s.expect(0, &["schema", "report"]);
    s.expect(0, &["completions", "bash"]);
    s.expect(0, &["man"]);
    s.expect(0, &["judge-prompt", "triage"]);
    let mcp = mcp_session(&s);
    assert_clean("mcp (stdout)", &mcp.stdout);
    assert_clean("mcp (stderr)", &mcp.stderr);
    assert!(mcp.stdout.contains("\"id\":5"), "{}", mcp.stdout);

    // Every command listed by `review --help` was run above.
    let ran: Vec<String> = s.seen.borrow().clone();
    let commands: Vec<&str> = listed
        .stdout
        .lines()
        .skip_while(|l| !l.starts_with("Commands:"))
        .skip(1)
        .take_while(|l| !l.trim().is_empty())
        .filter(|l| l.starts_with("  ") && !l.starts_with("   "))
        .filter_map(|l| l.split_whitespace().next())
        .filter(|c| *c != "help")
        .collect();
    assert!(commands.len() >= 11, "{}", listed.stdout);
    for command in commands {
        assert!(
            command == "mcp"
                || ran
                    .iter()
                    .any(|a| a.starts_with(&format!("[\"{command}\""))),
            "`review {command}` is not in the secrets drill: add it"
        );
    }

    // Error paths: the token refused, one no header can carry, no server, a spent budget.
    s.github.inject(Fault::RateLimited {
        operation: None,
        reset_in_secs: 3600,
        times: 5,
    });
    let limited = s.run(&with_pr(&["threads"]));
    assert_eq!(limited.code, 4, "{}", limited.stderr);
    s.github.clear_faults();
    s.github.require_token("another-token");
    for args in [
        with_pr(&["triage", "--json"]),
        with_pr(&["threads"]),
        with_pr(&["respond", "--replies", "replies.json"]),
        with_pr(&["watch", "--once"]),
        with_pr(&["snapshot", "--out", "refused.json"]),
        with_pr(&["triage", "--apply"]),
        vec!["resolve", "NIT0", "--pr", "1", "--repo", "acme/widgets"],
    ] {
        let out = s.run(&args);
        assert_eq!(out.code, 4, "{args:?}: {}", out.stderr);
        assert!(
            out.stderr.contains("refused the token"),
            "{args:?}: {}",
            out.stderr
        );
    }
    let newline = format!("{TOKEN}\nX-Injected: 1");
    let out = s.run_with(&with_pr(&["threads"]), &[("GH_TOKEN", &newline)]);
    assert_ne!(out.code, 0);
    // An endpoint that is no URL: the error names it, not the token. (A server that does not
    // answer at all takes the client's full backoff, 7 s: left to review-github's tests.)
    let out = s.run_with(
        &with_pr(&["threads"]),
        &[("GITHUB_GRAPHQL_URL", "http://exa mple/graphql")],
    );
    assert_ne!(out.code, 0, "{}", out.stderr);

    // No file the tool wrote holds it: the loop's state, the ledger, the journal, snapshots.
    let files = assert_no_file_holds_the_token(s.env.dir());
    assert!(files > 10, "{files} files checked");
    for kind in ["watch", "decisions", "ledger"] {
        assert!(
            crate::common::state_file(&s.work, kind).exists(),
            "the {kind} file was checked"
        );
    }
    // Nor any commit the tool made.
    let log = git_out(&s.work, &["log", "-p", "--all"]);
    assert_clean("git log -p", &log);

    // GitHub saw the token only where it belongs: the Authorization header.
    for r in s.github.requests() {
        assert_clean("a GraphQL document", &r.query);
        assert_clean("GraphQL variables", &r.variables.to_string());
        if let Some(auth) = &r.authorization {
            assert!(
                auth == &format!("Bearer {TOKEN}") || auth == &format!("token {TOKEN}"),
                "{auth}"
            );
        }
    }
    for r in s.github.rest_log() {
        assert_clean("a REST path", &r.path);
    }
}
