//! What the drills share (`test_drills.rs`, `test_crash.rs`, `test_hostile.rs`,
//! `test_secrets.rs`): a clone with a bare remote and an uncommitted file of the user's, a pull
//! request with a fix, nits and a person's thread, the binary run in it against a fake GitHub,
//! and the end state a run leaves (GitHub's threads and replies, git's commits, the tool's files).

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::Command;

use review_core::model::{CommitId, PullRequest, RepoId};
use review_test_support::github::FakeGitHub;
use review_test_support::{Mutation, PrBuilder, bot, person};

pub use crate::common::git_out;
use crate::common::{Output, TestEnvironment, commit, git};

/// The source file the fixes edit.
pub const LIB: &str = "fn a() {}\nfn b() {\n    let v = get().unwrap();\n}\n";

/// CodeRabbit's major finding with a suggestion block for line 3 of [`LIB`].
pub const MAJOR_WITH_SUGGESTION: &str = "_⚠️ Potential issue_ | _🟠 Major_\n\n**Unchecked unwrap on request input.**\n\nThe value comes from the request and can be missing; propagate the error instead of panicking.\n\n```suggestion\n    let v = get()?;\n```\n";

/// A CodeRabbit nitpick: resolved without a reply.
pub fn nitpick(n: usize) -> String {
    format!(
        "_🧹 Nitpick_\n\n**Prefer a more descriptive name than `a{n}`.**\n\nConsider renaming `a{n}` to something that says what it does."
    )
}

/// The user's uncommitted work, which no commit of the tool may contain.
pub const USER_FILE: &str = "notes.md";
/// Its content.
pub const USER_WORK: &str = "my unsaved work\n";

pub fn repo() -> RepoId {
    RepoId::parse("acme/widgets").unwrap()
}

/// A clone (`work/`) with one commit, the PR head, pushed to a bare remote (`remote.git`), and
/// the user's own uncommitted edit of [`USER_FILE`]. Returns the head and the clone.
pub fn repository(env: &TestEnvironment) -> (String, PathBuf) {
    let work = env.dir().join("work");
    let remote = env.dir().join("remote.git");
    std::fs::create_dir_all(work.join("src")).unwrap();
    git(
        env.dir(),
        &[
            "init",
            "-q",
            "--bare",
            "-b",
            "feature",
            remote.to_str().unwrap(),
        ],
    );
    git(&work, &["init", "-q", "-b", "feature"]);
    std::fs::write(work.join("src/lib.rs"), LIB).unwrap();
    std::fs::write(work.join(USER_FILE), "mine\n").unwrap();
    git(&work, &["add", "."]);
    commit(&work, "widgets");
    git(
        &work,
        &["remote", "add", "origin", remote.to_str().unwrap()],
    );
    git(&work, &["push", "-q", "origin", "feature"]);
    std::fs::write(work.join(USER_FILE), USER_WORK).unwrap();
    (git_out(&work, &["rev-parse", "HEAD"]), work)
}

/// A pull request at `head`: `FIX` (a suggestion the tool commits), `nits` nitpicks `NIT0`, ...
/// (resolved without a reply), and `HUMAN` (a person answered: never touched).
pub fn triage_pr(head: &str, nits: usize) -> PullRequest {
    let mut builder = PrBuilder::new()
        .with_pr(|p| p.head_sha = CommitId(head.to_owned()))
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
        .thread(
            "HUMAN",
            "src/lib.rs",
            2,
            &[
                (bot("coderabbitai"), MAJOR_WITH_SUGGESTION),
                (person("mei"), "no, keep the unwrap"),
            ],
        );
    for n in 0..nits {
        builder = builder.thread(
            &format!("NIT{n}"),
            &format!("src/m{n}.rs"),
            1,
            &[(bot("coderabbitai"), &nitpick(n))],
        );
    }
    builder.build()
}

/// `review` in `work` with an empty environment but a token, the fake's endpoints (GraphQL at
/// `graphql`) and a git identity for the commits it makes.
pub fn review_in(work: &Path, home: &Path, github: &FakeGitHub, graphql: &str) -> Command {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_review"));
    cmd.current_dir(work)
        .env_clear()
        .env("PATH", std::env::var_os("PATH").unwrap_or_default())
        .env("HOME", home)
        .env("GH_TOKEN", "test-token")
        .env("NO_COLOR", "1")
        .env("GITHUB_GRAPHQL_URL", graphql)
        .env("GITHUB_API_URL", github.rest_url())
        .envs(crate::common::GIT_IDENTITY)
        .stdin(std::process::Stdio::null());
    cmd
}

/// Runs `cmd` to the end.
pub fn output_of(mut cmd: Command) -> Output {
    let out = cmd.output().unwrap();
    let result = Output {
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
        code: out.status.code().unwrap_or(-1),
    };
    assert_ne!(result.code, 101, "the binary panicked:\n{}", result.stderr);
    assert!(
        !result.stderr.contains("panicked at"),
        "the binary panicked:\n{}",
        result.stderr
    );
    result
}

/// Replies posted per thread.
pub fn replies_per_thread(github: &FakeGitHub) -> BTreeMap<String, usize> {
    let mut counts = BTreeMap::new();
    for m in github.mutations() {
        if let Mutation::Reply(t, _) = m {
            *counts.entry(t.0).or_insert(0) += 1;
        }
    }
    counts
}

/// Fails if any thread got more than one reply.
pub fn assert_no_reply_twice(github: &FakeGitHub) {
    let counts = replies_per_thread(github);
    assert!(
        counts.values().all(|&n| n == 1),
        "a reply posted twice: {counts:?}"
    );
}

/// The threads GitHub shows resolved.
pub fn resolved(github: &FakeGitHub) -> BTreeSet<String> {
    github
        .pull_request(&repo(), 1)
        .unwrap()
        .threads
        .iter()
        .filter(|t| t.is_resolved)
        .map(|t| t.id.0.clone())
        .collect()
}

/// The threads that got any mutation (a reply or a resolve).
pub fn touched(github: &FakeGitHub) -> BTreeSet<String> {
    github
        .mutations()
        .iter()
        .filter_map(|m| match m {
            Mutation::Reply(t, _) | Mutation::Resolve(t) => Some(t.0.clone()),
            _ => None,
        })
        .collect()
}

/// What a triage run leaves in git: per commit after the first (oldest first), the files it
/// changed and its `Review-Thread:` trailers; then the work tree's status and the fixed file.
#[derive(Debug, PartialEq, Eq)]
pub struct GitEnd {
    pub commits: Vec<(String, Vec<String>)>,
    pub status: String,
    pub lib: String,
    pub user_file: String,
}

pub fn git_end(work: &Path) -> GitEnd {
    let shas = git_out(work, &["rev-list", "--reverse", "HEAD"]);
    let commits = shas
        .lines()
        .skip(1)
        .map(|sha| {
            let files = git_out(work, &["show", "--name-only", "--format=", sha]);
            let trailers = git_out(
                work,
                &[
                    "show",
                    "-s",
                    "--format=%(trailers:key=Review-Thread,valueonly)",
                    sha,
                ],
            );
            (
                files,
                trailers
                    .lines()
                    .map(str::trim)
                    .filter(|l| !l.is_empty())
                    .map(str::to_owned)
                    .collect(),
            )
        })
        .collect();
    GitEnd {
        commits,
        status: git_out(work, &["status", "--porcelain"]),
        lib: std::fs::read_to_string(work.join("src/lib.rs")).unwrap(),
        user_file: std::fs::read_to_string(work.join(USER_FILE)).unwrap(),
    }
}

/// Fails unless no commit contains the user's file and it is still theirs, uncommitted.
pub fn assert_user_work_untouched(work: &Path) {
    let end = git_end(work);
    for (files, _) in &end.commits {
        assert!(
            !files.lines().any(|f| f == USER_FILE),
            "a commit took the user's file: {end:?}"
        );
    }
    assert_eq!(end.user_file, USER_WORK);
    assert!(
        end.status
            .lines()
            .any(|l| l.trim() == format!("M {USER_FILE}")),
        "{end:?}"
    );
}

/// Fails unless every `.json` file under the tool's directory (`.git/review`, follow-up
/// worktrees aside) parses as JSON (no half-written state), and every `.lock` file is the empty
/// lock. Returns the files seen, by their path in that directory.
pub fn assert_state_files_whole(work: &Path) -> Vec<String> {
    let dir = work.join(".git/review");
    let mut files = Vec::new();
    let mut todo = vec![dir.clone()];
    while let Some(d) = todo.pop() {
        let Ok(entries) = std::fs::read_dir(&d) else {
            continue;
        };
        for entry in entries {
            let path = entry.unwrap().path();
            if !path.is_dir() {
                files.push(path);
            } else if !path
                .file_name()
                .is_some_and(|n| n.to_string_lossy().starts_with("worktree-"))
            {
                todo.push(path);
            }
        }
    }
    let mut names = Vec::new();
    for path in files {
        let name = path
            .strip_prefix(&dir)
            .unwrap()
            .to_string_lossy()
            .into_owned();
        let bytes = std::fs::read(&path).unwrap();
        if name.ends_with(".json") {
            let parsed: Result<serde_json::Value, _> = serde_json::from_slice(&bytes);
            assert!(
                parsed.is_ok(),
                "{name} is not whole JSON: {}",
                String::from_utf8_lossy(&bytes)
            );
        } else if name.ends_with(".lock") {
            assert!(bytes.is_empty(), "{name}");
        }
        names.push(name);
    }
    names.sort();
    names
}

/// The report's outcome of each thread: `(outcome, deferred because)`, as JSON text.
pub fn outcomes(report_json: &str) -> BTreeMap<String, String> {
    let report: serde_json::Value = serde_json::from_str(report_json)
        .unwrap_or_else(|e| panic!("not a JSON report ({e}): {report_json}"));
    report["threads"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| {
            (
                t["id"].as_str().unwrap().to_owned(),
                format!("{} {}", t["outcome"], t["deferred_because"]),
            )
        })
        .collect()
}
