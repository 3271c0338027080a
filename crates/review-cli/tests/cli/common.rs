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

    /// Runs `review` with `args`, an empty environment (but a fake token), in the temp dir.
    pub fn run(&self, args: &[&str]) -> Output {
        let out = Command::new(env!("CARGO_BIN_EXE_review"))
            .args(args)
            .current_dir(self.dir())
            .env_clear()
            .env("HOME", self.dir())
            .env("GH_TOKEN", "test-token-not-used")
            .env("NO_COLOR", "1")
            .output()
            .expect("the review binary runs");
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
        text.replace(&tmp, "[TEMP]").replace(&root, "[ROOT]")
    }
}
