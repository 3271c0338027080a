//! Attacks through the user's external commands (issue 13, items 19, 21 and 24): tokens in
//! their environment, commands run by a plan, and children that outlive their command.

use std::collections::BTreeMap;
use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::Stdio;
use std::time::{Duration, Instant};

use review_core::report::Outcome;
use review_test_support::bot;
use serde_json::{Value, json};

use crate::attack_harness::{Attack, CODE, UNWRAP_FIX, VALID, bugbot, entry};

/// A clone with `src/lib.rs` and a PR whose Cursor thread `BUG` asks for an exact fix (one a
/// fixer makes) and whose CodeRabbit thread `VAGUE` leaves the change open (one the judge is
/// asked about).
async fn fixer_pr() -> Attack {
    let a = Attack::with_files(&[("src/lib.rs", CODE)]).await;
    a.open_pr(|b| {
        b.thread(
            "BUG",
            "src/lib.rs",
            3,
            &[(
                bot("cursor"),
                &bugbot("Unchecked unwrap panics", UNWRAP_FIX),
            )],
        )
        .thread(
            "VAGUE",
            "src/lib.rs",
            1,
            &[(
                bot("cursor"),
                &bugbot("Fragile naming", "The naming here looks fragile."),
            )],
        )
    });
    a
}

/// Every token variable, with a value to look for.
const SECRETS: [(&str, &str); 5] = [
    ("GH_TOKEN", "ghp_GHTOKENsecret0001"),
    ("GITHUB_TOKEN", "ghp_GITHUBTOKENsecret0002"),
    ("GH_ENTERPRISE_TOKEN", "ghe_ENTERPRISEsecret0003"),
    ("GITHUB_ENTERPRISE_TOKEN", "ghe_GHEsecret0004"),
    ("ACME_TOKEN", "ghp_ACMEsecret0005"),
];

/// Runs `triage --apply` with a reviewer and a fixer, and `loop` with a triager, a fixer and
/// checks, each writing its environment to a file; `extra` are more flags (`--pass-token`).
/// Returns each command's environment by name.
async fn environments(extra: &[&str]) -> BTreeMap<&'static str, String> {
    let mut seen = BTreeMap::new();
    let dump = |a: &Attack, name: &str| format!("env > '{}'", a.outside(name).display());

    let a = fixer_pr().await;
    a.env
        .write_user_config("[token-variables]\n\"github.com/acme\" = \"ACME_TOKEN\"\n");
    let reviewer = dump(&a, "reviewer.env");
    let fixer = format!(
        "{}; sed -i 's/get().unwrap()/get()?/' src/lib.rs",
        dump(&a, "fixer.env")
    );
    let mut args = vec![
        "triage",
        "1",
        "--repo",
        "acme/widgets",
        "--apply",
        "--json",
        "--reviewer-cmd",
        &reviewer,
        "--fixer-cmd",
        &fixer,
    ];
    args.extend_from_slice(extra);
    let out = a.run_with(&args, &SECRETS);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let report: review_core::report::Report = serde_json::from_str(&out.stdout).unwrap();
    assert_eq!(entry(&report, "BUG").outcome, Outcome::Actioned);
    for name in ["reviewer", "fixer"] {
        seen.insert(
            name,
            std::fs::read_to_string(a.outside(&format!("{name}.env"))).unwrap(),
        );
    }

    let a = fixer_pr().await;
    a.env
        .write_user_config("[token-variables]\n\"github.com/acme\" = \"ACME_TOKEN\"\n");
    let triager = a.sh(
        "triage.sh",
        &format!(
            "{}\ncat > /dev/null\necho '{}'\n",
            dump(&a, "triager.env"),
            VALID.replace('\n', " ")
        ),
    );
    let fixer = format!(
        "{}; sed -i 's/get().unwrap()/get()?/' src/lib.rs; echo '// named' >> src/lib.rs",
        dump(&a, "loop-fixer.env")
    );
    let checks = dump(&a, "checks.env");
    let mut args = vec![
        "loop",
        "1",
        "--repo",
        "acme/widgets",
        "--triager-cmd",
        &triager,
        "--fixer-cmd",
        &fixer,
        "--check-cmd",
        &checks,
        "--interval",
        "0",
        "--max-polls",
        "1",
    ];
    args.extend_from_slice(extra);
    let out = a.run_with(&args, &SECRETS);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(out.stderr.contains("ready to push"), "{}", out.stderr);
    for name in ["triager", "loop-fixer", "checks"] {
        seen.insert(
            name,
            std::fs::read_to_string(a.outside(&format!("{name}.env")))
                .unwrap_or_else(|_| panic!("{name} did not run: {}", out.stderr)),
        );
    }
    seen
}

/// The token values in an environment dump.
fn tokens_in(env: &str) -> Vec<&'static str> {
    SECRETS
        .iter()
        .filter(|(_, value)| env.contains(value))
        .map(|(name, _)| *name)
        .collect()
}

/// Attack (19): the reviewer, the judge, the fixer and the checks dump their environment while
/// every token variable (and one the user's `[token-variables]` names) is set. Safe: none of
/// them sees a token; with `--pass-token fixer` the fixer alone gets them all.
#[tokio::test(flavor = "multi_thread")]
async fn attack_child_commands_inherit_no_token_unless_named() {
    for (name, env) in environments(&[]).await {
        assert!(env.contains("PATH="), "{name} dumped its environment");
        assert_eq!(tokens_in(&env), Vec::<&str>::new(), "{name} sees a token");
    }
    for (name, env) in environments(&["--pass-token", "fixer"]).await {
        if name.ends_with("fixer") {
            assert_eq!(tokens_in(&env).len(), SECRETS.len(), "{name}:\n{env}");
        } else {
            assert_eq!(tokens_in(&env), Vec::<&str>::new(), "{name} sees a token");
        }
    }
}

/// Scripts for the reviewer, triager and fixer that leave a marker outside the clone.
fn marking_commands(a: &Attack) -> BTreeMap<&'static str, String> {
    let mut commands = BTreeMap::new();
    for (name, tail) in [
        ("reviewer", "cat > /dev/null"),
        (
            "triager",
            "cat > /dev/null; echo '{\"rung\": \"stop-and-ask\"}'",
        ),
        ("fixer", "cat > /dev/null"),
    ] {
        let marker = a.outside(&format!("{name}-ran"));
        commands.insert(
            name,
            a.sh(
                &format!("{name}.sh"),
                &format!("touch '{}'\n{tail}\n", marker.display()),
            ),
        );
    }
    commands
}

/// Which of the commands left their marker (and clears them).
fn ran(a: &Attack) -> Vec<&'static str> {
    ["reviewer", "triager", "fixer"]
        .into_iter()
        .filter(|name| std::fs::remove_file(a.outside(&format!("{name}-ran"))).is_ok())
        .collect()
}

/// The user's config file naming all three commands, plus `more`.
fn config_with_commands(a: &Attack, name: &str, more: &str) -> String {
    let c = marking_commands(a);
    let path = a.outside(name);
    std::fs::write(
        &path,
        format!(
            "{more}[commands]\nreviewer = {:?}\ntriager = {:?}\nfixer = {:?}\n",
            c["reviewer"], c["triager"], c["fixer"]
        ),
    )
    .unwrap();
    path.display().to_string()
}

/// Attack (21): a plan (`review triage`, no `--apply`) with a reviewer on the command line, and
/// with the reviewer, judge and fixer in the user's config file. Safe: a plan runs none of them
/// (a reviewer posts a review); a judge named on the command line does run; `--apply` runs the
/// configured ones (so the file was read).
#[tokio::test(flavor = "multi_thread")]
async fn attack_a_plan_runs_no_configured_or_reviewer_command() {
    let a = fixer_pr().await;
    let config = config_with_commands(&a, "config.toml", "");
    let commands = marking_commands(&a);
    let with_config = [("REVIEW_CONFIG", config.as_str())];
    let plan = |extra: &[&str]| {
        let mut args = vec!["triage", "1", "--repo", "acme/widgets", "--json"];
        args.extend_from_slice(extra);
        let out = a.run_with(&args, &with_config);
        assert_eq!(out.code, 0, "{}", out.stderr);
        out
    };

    plan(&[]);
    assert_eq!(
        ran(&a),
        Vec::<&str>::new(),
        "a plan runs no configured command"
    );
    let out = plan(&["--reviewer-cmd", &commands["reviewer"]]);
    assert_eq!(ran(&a), Vec::<&str>::new(), "a plan runs no reviewer");
    assert!(
        out.stderr.contains("a plan runs no reviewer"),
        "{}",
        out.stderr
    );
    plan(&["--triager-cmd", &commands["triager"]]);
    assert_eq!(
        ran(&a),
        ["triager"],
        "a judge named on the command line runs"
    );

    let out = a.run_with(
        &["triage", "1", "--repo", "acme/widgets", "--apply", "--json"],
        &with_config,
    );
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert_eq!(
        ran(&a),
        ["reviewer", "triager", "fixer"],
        "the file is read"
    );
}

/// Attack (21): the read-only MCP server (no `--allow-writes`) asked for `plan_triage`, with the
/// reviewer, judge and fixer in the user's config file and `defaults.apply = true`. Safe: it
/// plans (nothing applied) and runs none of the commands.
#[tokio::test(flavor = "multi_thread")]
async fn attack_the_read_only_mcp_plan_runs_no_configured_command() {
    let a = fixer_pr().await;
    let config = config_with_commands(&a, "config.toml", "[defaults]\napply = true\n");
    let mut child = a
        .command(
            &["mcp", "--repo", "acme/widgets"],
            &[("REVIEW_CONFIG", &config)],
        )
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let mut stdout = BufReader::new(child.stdout.take().unwrap());
    let mut request = |id: u64, method: &str, params: Value| -> Value {
        writeln!(
            stdin,
            "{}",
            json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params})
        )
        .unwrap();
        stdin.flush().unwrap();
        loop {
            let mut line = String::new();
            assert!(
                stdout.read_line(&mut line).unwrap() > 0,
                "the server closed"
            );
            let message: Value = serde_json::from_str(&line).unwrap();
            if message["id"] == id {
                return message;
            }
        }
    };
    let init = request(
        1,
        "initialize",
        json!({"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "0"}}),
    );
    assert!(init["result"]["serverInfo"].is_object(), "{init}");
    let answer = request(
        2,
        "tools/call",
        json!({"name": "plan_triage", "arguments": {"pr": "1"}}),
    );
    let _ = child.kill();
    let _ = child.wait();
    let text = answer["result"]["content"][0]["text"].as_str().unwrap();
    assert_ne!(answer["result"]["isError"], true, "{text}");
    let report: Value = serde_json::from_str(text).unwrap();
    assert_eq!(report["applied"], false, "{report}");
    assert_eq!(ran(&a), Vec::<&str>::new(), "no command ran");
    assert!(a.mutations().is_empty());
    assert_eq!(a.commits(), 2);
}

fn alive(pid: &str) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat")).is_ok_and(|s| !s.contains(") Z "))
}

/// Attack (24): a fixer that starts a background child which edits the file after the fixer is
/// stopped (`--fixer-timeout 1`). Safe: the whole group is killed at the deadline: the thread is
/// deferred, nothing is committed, and the file is never edited later.
#[tokio::test(flavor = "multi_thread")]
async fn attack_a_stopped_fixers_background_child_edits_nothing_later() {
    let a = fixer_pr().await;
    let late = a.outside("late");
    let pid = a.outside("child-pid");
    let fixer = format!(
        "(sleep 2; echo '// late' >> src/lib.rs; touch '{late}') & echo $! > '{pid}'; sleep 30",
        late = late.display(),
        pid = pid.display()
    );
    let started = Instant::now();
    let (out, report) = a.apply(&["--fixer-cmd", &fixer, "--fixer-timeout", "1"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(
        started.elapsed() < Duration::from_secs(15),
        "{:?}",
        started.elapsed()
    );
    let bug = entry(&report, "BUG");
    assert_eq!(bug.outcome, Outcome::Deferred, "{bug:?}");
    assert!(bug.reason.contains("did not finish within 1 s"), "{bug:?}");
    let child = std::fs::read_to_string(&pid).unwrap();
    assert!(!alive(child.trim()), "the background child was killed");
    std::thread::sleep(Duration::from_secs(3));
    assert!(!late.exists(), "nothing ran after the stop");
    assert_eq!(a.read("src/lib.rs").as_deref(), Some(CODE));
    assert_eq!(a.status(), "");
    assert_eq!(a.commits(), 2);
}

/// Attack (24): `commit-round`'s checks pass but leave background children holding stdout and
/// stderr, one of them in a session of its own (out of reach of the group kill). Safe: the
/// round is committed within seconds; the child in the command's group is killed.
#[tokio::test(flavor = "multi_thread")]
async fn attack_a_check_commands_background_child_does_not_hang_commit_round() {
    let a = fixer_pr().await;
    a.poll();
    a.decide("BUG", VALID);
    a.write("src/lib.rs", &CODE.replace("get().unwrap()", "get()?"));
    let (in_group, own_session) = (a.outside("pid-group"), a.outside("pid-session"));
    let check = format!(
        "sleep 60 & echo $! > '{}'; setsid sleep 30 & echo $! > '{}'; echo checks passed",
        in_group.display(),
        own_session.display()
    );
    let started = Instant::now();
    let out = a.on_pr("commit-round", &["--check-cmd", &check]);
    let took = started.elapsed();
    let read_pid = |p: &Path| std::fs::read_to_string(p).unwrap().trim().to_owned();
    let stray = read_pid(&own_session);
    let _ = std::process::Command::new("kill").arg(&stray).status();
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(took < Duration::from_secs(15), "commit-round took {took:?}");
    assert_eq!(a.files_of("HEAD"), ["src/lib.rs"]);
    assert!(
        !alive(&read_pid(&in_group)),
        "the child in its group was killed"
    );
}
