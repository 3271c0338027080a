//! A test environment for running the `review` binary: an empty environment, a temp directory
//! as the working directory and home, and output rendered for snapshots.

use std::path::{Path, PathBuf};
use std::process::Command;

/// The workspace root (where `examples/` lives).
pub fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .ancestors()
        .nth(2)
        .expect("the CLI crate lives two levels below the workspace root")
        .to_path_buf()
}

/// The example recorded pull request shipped in `examples/`.
pub fn example_snapshot() -> PathBuf {
    workspace_root().join("examples/acme-widgets-pr-482.json")
}

/// A run of the binary: what it printed and how it exited.
#[derive(Debug)]
pub struct Output {
    pub stdout: String,
    pub stderr: String,
    pub code: i32,
}

impl Output {
    /// stdout, stderr and the exit status, with paths made stable, for a snapshot.
    pub fn render(&self, env: &TestEnvironment) -> String {
        let mut text = String::new();
        if !self.stdout.is_empty() {
            text.push_str(&self.stdout);
        }
        if !self.stderr.is_empty() {
            text.push_str("------- stderr -------\n");
            text.push_str(&self.stderr);
        }
        text.push_str(&format!("[exit status: {}]\n", self.code));
        env.normalize(&text)
    }
}

/// A git that reads no user or system config and commits as `review`: what the tests' git
/// commands and the tool's own run with.
pub const GIT_IDENTITY: [(&str, &str); 6] = [
    ("GIT_CONFIG_GLOBAL", "/dev/null"),
    ("GIT_CONFIG_NOSYSTEM", "1"),
    ("GIT_AUTHOR_NAME", "review"),
    ("GIT_AUTHOR_EMAIL", "review@example.com"),
    ("GIT_COMMITTER_NAME", "review"),
    ("GIT_COMMITTER_EMAIL", "review@example.com"),
];

/// An isolated place to run the binary.
pub struct TestEnvironment {
    dir: tempfile::TempDir,
}

impl TestEnvironment {
    pub fn new() -> Self {
        Self {
            dir: tempfile::tempdir().expect("a temp dir can be made"),
        }
    }

    /// The working directory of the runs.
    pub fn dir(&self) -> &Path {
        self.dir.path()
    }

    /// Writes a file in the working directory and returns its path.
    pub fn write(&self, name: &str, contents: &str) -> PathBuf {
        let path = self.dir().join(name);
        std::fs::write(&path, contents).expect("the temp dir is writable");
        path
    }

    /// Writes the user's config file of the runs (`$HOME/.config/review/config.toml`, `HOME`
    /// being the temp dir).
    pub fn write_user_config(&self, contents: &str) {
        let dir = self.dir().join(".config/review");
        std::fs::create_dir_all(&dir).expect("the temp dir is writable");
        std::fs::write(dir.join("config.toml"), contents).expect("the temp dir is writable");
    }

    /// Runs `review` with `args`, an empty environment (but a fake token), in the temp dir.
    pub fn run(&self, args: &[&str]) -> Output {
        self.run_with(args, &[])
    }

    /// The `review` command with `args`, an empty environment but a fake token and `vars`, in
    /// the temp dir.
    pub fn command(&self, args: &[&str], vars: &[(&str, &str)]) -> Command {
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_review"));
        cmd.args(args)
            .current_dir(self.dir())
            .env_clear()
            .env("HOME", self.dir())
            .env("PATH", std::env::var_os("PATH").unwrap_or_default())
            .env("GH_TOKEN", "test-token")
            .env("NO_COLOR", "1")
            .stdin(std::process::Stdio::null());
        for (k, v) in vars {
            cmd.env(k, v);
        }
        cmd
    }

    /// Starts `review` with `args` and extra environment variables, without waiting for it.
    pub fn spawn_with(&self, args: &[&str], vars: &[(&str, &str)]) -> std::process::Child {
        self.command(args, vars)
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn()
            .expect("the review binary starts")
    }

    /// Runs `review` with `args` and extra environment variables.
    pub fn run_with(&self, args: &[&str], vars: &[(&str, &str)]) -> Output {
        let mut cmd = self.command(args, vars);
        let out = cmd.output().expect("the review binary runs");
        Output {
            stdout: String::from_utf8(out.stdout).expect("stdout is UTF-8"),
            stderr: String::from_utf8(out.stderr).expect("stderr is UTF-8"),
            code: out.status.code().unwrap_or(-1),
        }
    }

    /// Replaces machine-specific paths with stable placeholders.
    pub fn normalize(&self, text: &str) -> String {
        let tmp = self.dir().to_string_lossy().into_owned();
        let root = workspace_root().to_string_lossy().into_owned();
        let mut text = text.replace(&tmp, "[TEMP]").replace(&root, "[ROOT]");
        // Local server ports.
        while let Some(at) = text.find("127.0.0.1:") {
            let end = text[at + 10..]
                .find(|c: char| !c.is_ascii_digit())
                .map_or(text.len(), |e| at + 10 + e);
            text.replace_range(at..end, "[LOCALHOST]");
        }
        text
    }
}

/// The tool's directory of acme/widgets#1's files in the clone at `work`.
pub fn state_dir(work: &Path) -> PathBuf {
    work.join(".git/review/pulls/acme/widgets/1")
}

/// The tool's `kind` state file (`watch`, `decisions`, `ledger`, `journal`, `pre-review`,
/// `followup`) of acme/widgets#1 in the clone at `work`.
pub fn state_file(work: &Path, kind: &str) -> PathBuf {
    state_dir(work).join(format!("{kind}.json"))
}

/// Runs git in `dir`, failing the test if it fails.
pub fn git(dir: &Path, args: &[&str]) {
    let status = Command::new("git")
        .args(args)
        .current_dir(dir)
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .status()
        .expect("git runs");
    assert!(status.success(), "git {args:?} failed");
}

/// git's output in `dir`, trimmed; fails the test if git fails.
pub fn git_out(dir: &Path, args: &[&str]) -> String {
    let out = Command::new("git")
        .args(args)
        .current_dir(dir)
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .output()
        .expect("git runs");
    assert!(out.status.success(), "git {args:?} failed");
    String::from_utf8(out.stdout)
        .expect("git speaks UTF-8 here")
        .trim()
        .to_owned()
}

/// Commits what is staged in `dir` as the test's user.
pub fn commit(dir: &Path, message: &str) {
    git(
        dir,
        &[
            "-c",
            "user.name=Dana",
            "-c",
            "user.email=dana@example.com",
            "commit",
            "-q",
            "--allow-empty",
            "-m",
            message,
        ],
    );
}
