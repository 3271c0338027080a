//! The pull requests, repositories and commands behind the upgrade fixtures
//! (`fixtures/upgrade/`): shared by the test that gives them to this release
//! (`test_state_files.rs`) and by the program that had the previous release write them
//! (`fixtures/upgrade/generate.rs`). Commits are made with a pinned identity and date, so a
//! repository built here has the same commit ids as the one the fixtures were written in.
#![allow(
    dead_code,
    reason = "what only the generator uses, which runs with the previous release"
)]

use std::path::Path;
use std::process::Command;

use review_core::model::{CommitId, PullRequest, RepoId, Review, ReviewId, ReviewState};
use review_test_support::github::FakeGitHub;
use review_test_support::{HEAD_SHA, PrBuilder, bot, person};

use crate::common::Output;

/// The pull request of the loop (watch, decide, commit-round, respond).
pub const LOOP_PR: u64 = 1;
/// The pull request `triage --apply` was killed on (journal, pre-review marker).
pub const TRIAGE_PR: u64 = 2;

pub fn repo() -> RepoId {
    RepoId::parse("acme/widgets").unwrap()
}

/// `src/cache.rs` of the loop's repository.
pub const CACHE_RS: &str = "pub struct Cache;\n";
/// The fix of finding `C` that `commit-round` committed.
pub const CACHE_RS_FIXED: &str = "pub struct Cache { max: usize }\n";
/// `src/lib.rs` of the triage repository.
pub const LIB_RS: &str = "fn a() {}\nfn b() {\n    let v = get().unwrap();\n}\n";

pub const FINDING_A: &str = "**Unbounded cache growth.** The cache never evicts entries.";
pub const FINDING_B: &str = "**Missing capacity check.** `insert` does not check the capacity.";
pub const FINDING_C: &str = "**No size bound.** `Cache` has no maximum size.";
pub const FINDING_D: &str =
    "### Bug: Possible panic on empty input\n\nThe slice is indexed without a length check.";

const MAJOR_WITH_SUGGESTION: &str = "_⚠️ Potential issue_ | _🟠 Major_\n\n**Unchecked unwrap on request input.**\n\nThe value comes from the request and can be missing; propagate the error instead of panicking.\n\n```suggestion\n    let v = get()?;\n```\n";
const NITPICK: &str = "_🧹 Nitpick_\n\n**Prefer a more descriptive name than `a`.**\n\nConsider renaming `a` to something that says what it does.";

/// The answers the triager gave.
pub const FALSE_POSITIVE_A: &str = r#"{"verdict": "FALSE_POSITIVE",
  "reasoning": "the cache is bounded by MAX_ENTRIES and evicts the oldest entry (src/cache.rs:40)",
  "evidence": ["src/cache.rs:40"]}"#;
pub const FALSE_POSITIVE_B: &str = r#"{"verdict": "FALSE_POSITIVE",
  "reasoning": "insert goes through reserve, which checks the capacity (src/cache.rs:52)",
  "evidence": ["src/cache.rs:52"]}"#;
pub const VALID_C: &str = r#"{"verdict": "VALID", "reasoning": "the cache now has a maximum size",
  "evidence": ["src/cache.rs:1"], "fixSketch": "a max field"}"#;

/// The replies file given to `respond --replies`.
pub const REPLIES: &str = r#"[
  {"threadId": "D", "replyBody": "Not applying this: the slice is never empty here (checked by the caller).", "resolve": false}
]"#;

/// The loop's pull request as it was before any command ran: findings `A`, `B`, `C` by
/// CodeRabbit on `src/cache.rs`, `D` by Cursor Bugbot, and a thread a person answered.
pub fn loop_pr() -> PullRequest {
    PrBuilder::new()
        .with_pr(|p| p.number = LOOP_PR)
        .thread("A", "src/cache.rs", 3, &[(bot("coderabbitai"), FINDING_A)])
        .thread("B", "src/cache.rs", 9, &[(bot("coderabbitai"), FINDING_B)])
        .thread("C", "src/cache.rs", 1, &[(bot("coderabbitai"), FINDING_C)])
        .thread("D", "src/lib.rs", 4, &[(bot("cursor"), FINDING_D)])
        .thread(
            "HUMAN",
            "src/lib.rs",
            7,
            &[
                (bot("coderabbitai"), FINDING_A),
                (person("mei"), "no, keep it"),
            ],
        )
        .with_pr(|pr| {
            pr.reviews.push(Review {
                id: ReviewId("R1".to_owned()),
                author: Some(bot("coderabbitai")),
                state: ReviewState::Commented,
                body: String::new(),
                submitted_at: Some("2026-01-05T10:00:00Z".to_owned()),
                commit: Some(CommitId(HEAD_SHA.to_owned())),
            });
        })
        .build()
}

/// The triage pull request at `head`: `FIX` (a suggestion the tool commits), `NIT` and a
/// thread a person answered.
pub fn triage_pr(head: &str) -> PullRequest {
    PrBuilder::new()
        .with_pr(|p| {
            p.number = TRIAGE_PR;
            p.id = "PR_2".to_owned();
            p.url = "https://github.com/acme/widgets/pull/2".to_owned();
            p.head_sha = CommitId(head.to_owned());
        })
        .thread(
            "FIX",
            "src/lib.rs",
            3,
            &[(bot("coderabbitai"), MAJOR_WITH_SUGGESTION)],
        )
        .with_last(|t| {
            t.comments[0].diff_hunk = Some(
                "@@ -0,0 +1,4 @@\n+fn a() {}\n+fn b() {\n+    let v = get().unwrap();".to_owned(),
            );
        })
        .thread("NIT", "src/lib.rs", 1, &[(bot("coderabbitai"), NITPICK)])
        .thread(
            "TALK",
            "src/lib.rs",
            2,
            &[
                (bot("coderabbitai"), MAJOR_WITH_SUGGESTION),
                (person("mei"), "no"),
            ],
        )
        .build()
}

/// The identity and date every commit of the scenario is made with.
const PINNED: [(&str, &str); 6] = [
    ("GIT_AUTHOR_NAME", "Dana"),
    ("GIT_AUTHOR_EMAIL", "dana@example.com"),
    ("GIT_AUTHOR_DATE", "2026-01-05T09:00:00Z"),
    ("GIT_COMMITTER_NAME", "Dana"),
    ("GIT_COMMITTER_EMAIL", "dana@example.com"),
    ("GIT_COMMITTER_DATE", "2026-01-05T09:00:00Z"),
];

/// Runs git in `dir` with the pinned identity and date; fails the test if git fails.
pub fn git_pinned(dir: &Path, args: &[&str]) -> String {
    let out = Command::new("git")
        .args(args)
        .current_dir(dir)
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .envs(PINNED)
        .output()
        .expect("git runs");
    assert!(
        out.status.success(),
        "git {args:?} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout)
        .expect("git speaks UTF-8 here")
        .trim()
        .to_owned()
}

/// A repository in `dir` with one commit of `files`; returns its id.
pub fn repository(dir: &Path, files: &[(&str, &str)]) -> String {
    std::fs::create_dir_all(dir).unwrap();
    git_pinned(dir, &["init", "-q", "-b", "feature"]);
    for (path, text) in files {
        let full = dir.join(path);
        std::fs::create_dir_all(full.parent().unwrap()).unwrap();
        std::fs::write(full, text).unwrap();
    }
    git_pinned(dir, &["add", "."]);
    git_pinned(dir, &["commit", "-q", "-m", "widgets"]);
    git_pinned(dir, &["rev-parse", "HEAD"])
}

/// The loop's repository: `src/cache.rs` and `src/lib.rs`.
pub fn loop_repository(dir: &Path) -> String {
    repository(dir, &[("src/cache.rs", CACHE_RS), ("src/lib.rs", LIB_RS)])
}

/// The triage repository: `src/lib.rs`.
pub fn triage_repository(dir: &Path) -> String {
    repository(dir, &[("src/lib.rs", LIB_RS)])
}

/// The `review` binary of this build run in `dir` on `github`, with an empty environment but
/// a token, `HOME` at `home`, and the pinned git identity and date.
pub fn review(dir: &Path, home: &Path, github: &FakeGitHub, args: &[&str]) -> Command {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_review"));
    cmd.args(args)
        .current_dir(dir)
        .env_clear()
        .env("PATH", std::env::var_os("PATH").unwrap_or_default())
        .env("HOME", home)
        .env("GH_TOKEN", "test-token")
        .env("NO_COLOR", "1")
        .env("GITHUB_GRAPHQL_URL", github.graphql_url())
        .env("GITHUB_API_URL", github.rest_url())
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .envs(PINNED)
        .stdin(std::process::Stdio::null());
    cmd
}

/// Runs [`review`] to the end.
pub fn run(dir: &Path, home: &Path, github: &FakeGitHub, args: &[&str]) -> Output {
    let out = review(dir, home, github, args).output().unwrap();
    Output {
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
        code: out.status.code().unwrap_or(-1),
    }
}

/// The state files an earlier release kept for the scenario, by file name, as they sit in
/// `<git dir>/review/`.
pub const OLD_FILES: [&str; 5] = [
    "ledger-acme-widgets-1.json",
    "decisions-acme-widgets-1.json",
    "watch-acme-widgets-1.json",
    "journal-acme-widgets-2.json",
    "pre-review-acme-widgets-2.json",
];
