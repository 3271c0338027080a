//! Terminal escapes and bidirectional overrides from GitHub, through the binary: a person's
//! comment that erases its own row and draws a bot's in its place, a right-to-left override in a
//! path, escapes in the PR's title. Human-readable output shows them as escapes (`\u{1b}`);
//! `--json` and snapshots keep the exact text.

use review_core::model::CommitId;
use review_test_support::github::FakeGitHub;
use review_test_support::{PrBuilder, bot, person};

use crate::common::{Output, TestEnvironment};

/// Erases the line so far, returns to its start, and draws a bot's resolved nit there.
const REDRAW: &str = "\x1b[2K\r  MALLORY  src/lib.rs:1  coderabbit  nit  resolved as a nit";
/// A right-to-left override: `src/\u{202e}sr.bil` reads as `src/lib.rs` in a terminal.
const BIDI_PATH: &str = "src/\u{202e}sr.bil";
const TITLE: &str = "Widgets\x1b]0;pwned\x07 \u{2066}faster\u{2069}";

fn pr() -> review_core::model::PullRequest {
    PrBuilder::new()
        .with_pr(|p| {
            p.title = TITLE.to_owned();
            p.head_sha = CommitId("a1b2c3d4e5f60718293a4b5c6d7e8f9012345678".to_owned());
        })
        .thread(
            "NIT",
            "src/lib.rs",
            1,
            &[(bot("coderabbitai"), "_🧹 Nitpick_\n\n**Rename `x`.**")],
        )
        .thread(
            "MALLORY",
            BIDI_PATH,
            1,
            &[(
                person("mallory"),
                &format!("{REDRAW}\nand a second line \u{202e}!MTGL\u{9b}31m"),
            )],
        )
        .build()
}

/// The characters that must never reach a terminal raw: C0 controls (but newline and tab), DEL,
/// C1 controls, and the bidirectional formatting characters.
fn raw_controls(text: &str) -> Vec<String> {
    text.chars()
        .filter(|&c| {
            let n = u32::from(c);
            (n < 0x20 && c != '\n' && c != '\t')
                || (0x7f..=0x9f).contains(&n)
                || (0x202a..=0x202e).contains(&n)
                || (0x2066..=0x2069).contains(&n)
                || matches!(n, 0x200e | 0x200f | 0x61c)
        })
        .map(|c| format!("U+{:04X}", u32::from(c)))
        .collect()
}

fn assert_inert(what: &str, out: &Output) {
    for (stream, text) in [("stdout", &out.stdout), ("stderr", &out.stderr)] {
        let raw = raw_controls(text);
        assert!(raw.is_empty(), "{what} {stream} has raw {raw:?}:\n{text}");
    }
}

async fn serve() -> (TestEnvironment, FakeGitHub) {
    let github = FakeGitHub::start().await;
    github.set_viewer("dana");
    github.add_pull_request(pr());
    (TestEnvironment::new(), github)
}

fn run(env: &TestEnvironment, github: &FakeGitHub, args: &[&str]) -> Output {
    let graphql = github.graphql_url();
    let out = env.run_with(args, &[("GITHUB_GRAPHQL_URL", &graphql)]);
    assert_ne!(out.code, 101, "{}", out.stderr);
    out
}

/// Regression: a person's comment carrying `ESC [2K` and a carriage return redrew its row in
/// `review threads` as a bot's, and a right-to-left override reordered a path in the report.
#[tokio::test(flavor = "multi_thread")]
async fn hostile_escapes_cannot_redraw_the_report_or_the_listing() {
    let (env, github) = serve().await;

    let report = run(&env, &github, &["triage", "1", "--repo", "acme/widgets"]);
    assert_eq!(report.code, 0, "{}", report.stderr);
    assert_inert("triage", &report);
    assert!(
        report.stdout.contains("src/\\u{202e}sr.bil:1"),
        "{}",
        report.stdout
    );
    assert!(
        report
            .stdout
            .contains("\"Widgets\\u{1b}]0;pwned\\u{7} \\u{2066}faster\\u{2069}\""),
        "{}",
        report.stdout
    );
    let row = report
        .stdout
        .lines()
        .find(|l| l.contains("MALLORY"))
        .unwrap();
    assert!(row.contains("@mallory") && row.contains("human"), "{row}");

    let listing = run(&env, &github, &["threads", "1", "--repo", "acme/widgets"]);
    assert_eq!(listing.code, 0, "{}", listing.stderr);
    assert_inert("threads", &listing);
    let rows: Vec<&str> = listing
        .stdout
        .lines()
        .filter(|l| l.contains("MALLORY"))
        .collect();
    assert_eq!(rows.len(), 1, "the person's row, and no other: {rows:?}");
    assert!(rows[0].starts_with("MALLORY"), "{}", rows[0]);
    assert!(rows[0].contains("human  @mallory"), "{}", rows[0]);
    assert!(
        rows[0].contains("\\u{1b}[2K\\u{d}  MALLORY  src/lib.rs:1  coderabbit"),
        "the forged row is shown as text inside the person's row: {}",
        rows[0]
    );
    assert!(rows[0].contains("src/\\u{202e}sr.bil:1"), "{}", rows[0]);

    // The follow-up's summary, narrated on stderr, is one row per thread too.
    let followup = run(
        &env,
        &github,
        &[
            "followup",
            "1",
            "--repo",
            "acme/widgets",
            "--answers",
            &env.write("answers.json", r#"{"status": "closed"}"#)
                .to_string_lossy(),
        ],
    );
    assert_eq!(followup.code, 0, "{}", followup.stderr);
    assert_inert("followup", &followup);
    assert!(
        followup
            .stderr
            .contains("| 2 | @mallory | src/\\u{202e}sr.bil:1 |"),
        "{}",
        followup.stderr
    );
}

/// Machine outputs keep the exact text: JSON escapes what it must, and parses back to it.
#[tokio::test(flavor = "multi_thread")]
async fn hostile_escapes_stay_exact_in_json() {
    let (env, github) = serve().await;

    let listing = run(
        &env,
        &github,
        &["threads", "1", "--repo", "acme/widgets", "--json"],
    );
    assert_eq!(listing.code, 0, "{}", listing.stderr);
    assert!(!listing.stdout.contains('\x1b'), "JSON escapes ESC itself");
    let json: serde_json::Value = serde_json::from_str(&listing.stdout).unwrap();
    let mallory = json["threads"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["id"] == "MALLORY")
        .unwrap();
    assert_eq!(mallory["location"], format!("{BIDI_PATH}:1"));
    assert_eq!(mallory["human"], true);
    let title = mallory["title"].as_str().unwrap();
    assert!(REDRAW.starts_with(title), "{title:?}");
    assert!(title.starts_with("\x1b[2K\r"), "{title:?}");

    let report = run(
        &env,
        &github,
        &["triage", "1", "--repo", "acme/widgets", "--json"],
    );
    assert_eq!(report.code, 0, "{}", report.stderr);
    let json: serde_json::Value = serde_json::from_str(&report.stdout).unwrap();
    let mallory = json["threads"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["id"] == "MALLORY")
        .unwrap();
    assert_eq!(mallory["location"], format!("{BIDI_PATH}:1"));

    let snapshot = run(
        &env,
        &github,
        &["snapshot", "1", "--repo", "acme/widgets", "--out", "-"],
    );
    assert_eq!(snapshot.code, 0, "{}", snapshot.stderr);
    let recorded = review_core::snapshot::parse(&snapshot.stdout).unwrap();
    assert_eq!(recorded.title, TITLE);
    let thread = recorded
        .threads
        .iter()
        .find(|t| t.id.0 == "MALLORY")
        .unwrap();
    assert_eq!(thread.path, BIDI_PATH);
    assert_eq!(
        thread.comments[0].body,
        format!("{REDRAW}\nand a second line \u{202e}!MTGL\u{9b}31m"),
        "the exact body round-trips"
    );
}

/// `review config` shows values from the configuration files (the repository's is the pull
/// request's) with their escapes visible; `--json` keeps them exact.
#[test]
fn hostile_escapes_in_config_values_are_shown_escaped() {
    let env = TestEnvironment::new();
    let file = env.write(
        "config.toml",
        "[paths]\ndeny = [\"\\u001B[2K\\rpaths.deny  .github/  (default)\", \"\\u202Egro.live\"]\n",
    );
    let file = file.to_string_lossy();
    let vars = [("REVIEW_CONFIG", file.as_ref())];
    let out = env.run_with(&["config"], &vars);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert_inert("config", &out);
    assert!(
        out.stdout
            .contains("\\u{1b}[2K\\u{d}paths.deny  .github/  (default)"),
        "{}",
        out.stdout
    );
    assert!(out.stdout.contains("\\u{202e}gro.live"), "{}", out.stdout);
    let out = env.run_with(&["config", "--json"], &vars);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let rows: Vec<serde_json::Value> = serde_json::from_str(&out.stdout).unwrap();
    let denied: Vec<&str> = rows
        .iter()
        .filter(|r| r["key"] == "paths.deny")
        .filter_map(|r| r["value"].as_str())
        .collect();
    assert!(denied.contains(&"\x1b[2K\rpaths.deny  .github/  (default)"));
    assert!(denied.contains(&"\u{202e}gro.live"));
}
