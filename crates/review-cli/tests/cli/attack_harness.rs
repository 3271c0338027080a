//! What the attack tests (`test_attack_*.rs`, issue 13) share: a clone (`work/`) whose `origin`
//! is `https://github.com/acme/widgets.git`, which git reaches in a local bare repository
//! (`remote.git`, through `url.<path>.insteadOf`); the fake GitHub holding acme/widgets#1; and
//! the binary run in the clone with an empty environment but a token, the fake's endpoints and
//! a git identity.

use std::path::{Path, PathBuf};
use std::process::Command;

use review_core::model::{CommitId, PullRequest, RepoId};
use review_test_support::github::FakeGitHub;
use review_test_support::{Mutation, PrBuilder};

use crate::common::{Output, TestEnvironment, commit, git, git_out};

/// A Python-ish file whose line 3 the bot's suggestion [`suggestion`] replaces.
pub const CODE: &str = "fn a() {}\nfn b() {\n    let v = get().unwrap();\n}\n";

/// The diff hunk of a comment on line 3 of [`CODE`].
pub const HUNK: &str = "@@ -0,0 +1,4 @@\n+fn a() {}\n+fn b() {\n+    let v = get().unwrap();";

/// CodeRabbit's major finding titled `title`, with a suggestion block for line 3 of [`CODE`].
pub fn suggestion(title: &str) -> String {
    format!(
        "_⚠️ Potential issue_ | _🟠 Major_\n\n**{title}.**\n\nThe value can be missing; propagate the error instead of panicking.\n\n```suggestion\n    let v = get()?;\n```\n"
    )
}

/// A Cursor Bugbot finding titled `title` asking for `fix` (no suggestion block: a fixer makes
/// it).
pub fn bugbot(title: &str, fix: &str) -> String {
    format!(
        "### {title}\n\n**High Severity**\n\n<!-- BUGBOT_BUG_ID: {} -->\n\n{fix}\n",
        title.len()
    )
}

/// What a Cursor finding on line 3 of [`CODE`] asks for: an exact fix a fixer makes.
pub const UNWRAP_FIX: &str = "`get()` returns `None` when the header is missing, and the `unwrap()` panics the handler. Replace `get().unwrap()` with `get()?` so the error propagates to the caller.";

/// A judge's answer: VALID, with evidence and a fix sketch.
pub const VALID: &str = r#"{"verdict": "VALID", "reasoning": "right, fixed as suggested", "evidence": ["src/lib.rs:1"], "fixSketch": "as suggested"}"#;

/// A triager command's script that answers VALID for every finding.
pub const TRIAGE_VALID: &str = r#"cat > /dev/null; echo '{"verdict":"VALID","reasoning":"right, fixed as suggested","evidence":["src/lib.rs:1"],"fixSketch":"as suggested"}'"#;

pub fn repo() -> RepoId {
    RepoId::parse("acme/widgets").unwrap()
}

/// A clone, its remote and the fake GitHub (see the module's documentation).
pub struct Attack {
    pub env: TestEnvironment,
    pub work: PathBuf,
    pub github: FakeGitHub,
    base: Option<String>,
}

impl Attack {
    /// An empty clone on `feature` with its remote, and the fake GitHub (viewer `dana`, the
    /// PR's author); no pull request yet.
    pub async fn empty() -> Self {
        let env = TestEnvironment::new();
        let work = env.dir().join("work");
        let remote = env.dir().join("remote.git");
        std::fs::create_dir_all(&work).unwrap();
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
        git(
            &work,
            &[
                "remote",
                "add",
                "origin",
                "https://github.com/acme/widgets.git",
            ],
        );
        git(
            &work,
            &[
                "config",
                &format!("url.{}.insteadOf", remote.to_str().unwrap()),
                "https://github.com/acme/widgets.git",
            ],
        );
        let github = FakeGitHub::start().await;
        github.set_viewer("dana");
        Self {
            env,
            work,
            github,
            base: None,
        }
    }

    /// A clone whose base commit holds a README and whose PR head (pushed) adds `files`.
    pub async fn with_files(files: &[(&str, &str)]) -> Self {
        let mut a = Self::empty().await;
        a.commit_files(&[("README.md", "widgets\n")], "base");
        a.mark_base();
        a.commit_files(files, "widgets");
        a.push();
        a
    }

    /// Writes and commits `files` with `message` (as the test's user).
    pub fn commit_files(&self, files: &[(&str, &str)], message: &str) {
        for (path, text) in files {
            self.write(path, text);
            git(&self.work, &["--literal-pathspecs", "add", "--", path]);
        }
        commit(&self.work, message);
    }

    /// The current HEAD is the PR's base commit.
    pub fn mark_base(&mut self) {
        self.base = Some(self.head());
    }

    /// Pushes HEAD to the remote's `feature`.
    pub fn push(&self) {
        git(
            &self.work,
            &["push", "-q", "origin", "HEAD:refs/heads/feature"],
        );
    }

    /// Writes a file of the clone (directories made).
    pub fn write(&self, path: &str, text: &str) {
        let full = self.work.join(path);
        std::fs::create_dir_all(full.parent().unwrap()).unwrap();
        std::fs::write(full, text).unwrap();
    }

    /// A file of the clone, or `None`.
    pub fn read(&self, path: &str) -> Option<String> {
        std::fs::read_to_string(self.work.join(path)).ok()
    }

    pub fn head(&self) -> String {
        git_out(&self.work, &["rev-parse", "HEAD"])
    }

    pub fn commits(&self) -> usize {
        git_out(&self.work, &["rev-list", "--count", "HEAD"])
            .parse()
            .unwrap()
    }

    /// The paths `rev` changes, sorted, as git stores them.
    pub fn files_of(&self, rev: &str) -> Vec<String> {
        let out = git_out(&self.work, &["show", "--name-only", "-z", "--format=", rev]);
        let mut files: Vec<String> = out
            .split('\0')
            .map(str::trim)
            .filter(|p| !p.is_empty())
            .map(str::to_owned)
            .collect();
        files.sort();
        files
    }

    /// `git status --porcelain`, untracked files included, with paths unquoted.
    pub fn status(&self) -> String {
        git_out(
            &self.work,
            &["-c", "core.quotePath=false", "status", "--porcelain"],
        )
    }

    /// The paths staged in the index (against HEAD).
    pub fn staged(&self) -> String {
        git_out(&self.work, &["diff", "--cached", "--name-only"])
    }

    /// Opens acme/widgets#1 at the clone's HEAD (and base), with `build`'s threads.
    pub fn open_pr(&self, build: impl FnOnce(PrBuilder) -> PrBuilder) -> PullRequest {
        let (head, base) = (self.head(), self.base.clone());
        let pr = build(PrBuilder::new())
            .with_pr(|p| {
                p.head_sha = CommitId(head);
                p.base_sha = base.map(CommitId);
            })
            .build();
        self.github.add_pull_request(pr.clone());
        pr
    }

    /// Moves the PR's head on GitHub to `sha`.
    pub fn move_pr_head(&self, sha: &str) {
        let sha = sha.to_owned();
        self.github
            .update_pull_request(&repo(), 1, |pr| pr.head_sha = CommitId(sha));
    }

    pub fn mutations(&self) -> Vec<Mutation> {
        self.github.mutations()
    }

    /// The replies posted on `thread`.
    pub fn replies_to(&self, thread: &str) -> Vec<String> {
        self.mutations()
            .into_iter()
            .filter_map(|m| match m {
                Mutation::Reply(t, body) if t.0 == thread => Some(body),
                _ => None,
            })
            .collect()
    }

    /// `review ARGS` in the clone.
    pub fn command(&self, args: &[&str], vars: &[(&str, &str)]) -> Command {
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_review"));
        cmd.args(args)
            .current_dir(&self.work)
            .env_clear()
            .env("PATH", std::env::var_os("PATH").unwrap_or_default())
            .env("HOME", self.env.dir())
            .env("GH_TOKEN", "test-token")
            .env("NO_COLOR", "1")
            .env("GITHUB_GRAPHQL_URL", self.github.graphql_url())
            .env("GITHUB_API_URL", self.github.rest_url())
            .envs(crate::common::GIT_IDENTITY)
            .stdin(std::process::Stdio::null());
        for (k, v) in vars {
            cmd.env(k, v);
        }
        cmd
    }

    pub fn run_with(&self, args: &[&str], vars: &[(&str, &str)]) -> Output {
        let out = self.command(args, vars).output().unwrap();
        Output {
            stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
            stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
            code: out.status.code().unwrap_or(-1),
        }
    }

    pub fn run(&self, args: &[&str]) -> Output {
        self.run_with(args, &[])
    }

    /// `review COMMAND 1 --repo acme/widgets ARGS`.
    pub fn on_pr(&self, command: &str, args: &[&str]) -> Output {
        let mut all = vec![command, "1", "--repo", "acme/widgets"];
        all.extend_from_slice(args);
        self.run(&all)
    }

    /// `review triage 1 --repo acme/widgets --apply --json ARGS`, its report parsed.
    pub fn apply(&self, args: &[&str]) -> (Output, review_core::report::Report) {
        let mut all = vec!["--apply", "--json"];
        all.extend_from_slice(args);
        let out = self.on_pr("triage", &all);
        let report = serde_json::from_str(&out.stdout)
            .unwrap_or_else(|e| panic!("{e}: {}\n{}", out.stdout, out.stderr));
        (out, report)
    }

    /// The tool's state file `kind` for acme/widgets#1.
    pub fn state_file(&self, kind: &str) -> PathBuf {
        crate::common::state_file(&self.work, kind)
    }

    /// The watcher's state file.
    pub fn watch_state(&self) -> review_core::watch::WatchState {
        serde_json::from_str(&std::fs::read_to_string(self.state_file("watch")).unwrap()).unwrap()
    }

    /// The loop's decisions file.
    pub fn decisions(&self) -> review_core::decisions::Decisions {
        serde_json::from_str(&std::fs::read_to_string(self.state_file("decisions")).unwrap())
            .unwrap()
    }

    /// Polls once (`watch --once`).
    pub fn poll(&self) {
        let out = self.on_pr("watch", &["--once"]);
        assert_eq!(out.code, 0, "{}", out.stderr);
    }

    /// Records `answer` (a judge's JSON answer) for the pending finding of `thread`.
    pub fn decide(&self, thread: &str, answer: &str) {
        let state = self.watch_state();
        let fp = &state
            .pending
            .iter()
            .find(|f| f.thread_id == thread)
            .unwrap_or_else(|| panic!("{thread} is not pending: {:?}", state.pending))
            .fingerprint;
        let file = self.outside("answer.json");
        std::fs::write(&file, answer).unwrap();
        let out = self.on_pr(
            "decide",
            &["--finding", fp, "--answer", file.to_str().unwrap()],
        );
        assert_eq!(out.code, 0, "{}", out.stderr);
    }

    /// Writes `body` as a shell script outside the clone; returns the command that runs it.
    pub fn sh(&self, name: &str, body: &str) -> String {
        let path = self.outside(name);
        std::fs::write(&path, body).unwrap();
        format!("sh {}", path.display())
    }

    /// A path outside the clone (in the test's temp dir), for markers and dumps.
    pub fn outside(&self, name: &str) -> PathBuf {
        self.env.dir().join(name)
    }
}

/// The report's entry for thread `id`.
pub fn entry<'a>(
    report: &'a review_core::report::Report,
    id: &str,
) -> &'a review_core::report::ThreadReport {
    report
        .threads
        .iter()
        .find(|t| t.id.0 == id)
        .unwrap_or_else(|| panic!("no thread {id} in the report"))
}

/// The journal's content hash (FNV-1a, 64 bits), as the tool writes it.
pub fn journal_hash(text: &str) -> String {
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    for byte in text.bytes() {
        hash ^= u64::from(byte);
        hash = hash.wrapping_mul(0x0000_0100_0000_01b3);
    }
    format!("{hash:016x}")
}

/// Writes `path` as an executable shell script.
pub fn script(path: &Path, body: &str) {
    use std::os::unix::fs::PermissionsExt as _;
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, format!("#!/bin/sh\n{body}")).unwrap();
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755)).unwrap();
}
