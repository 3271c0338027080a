//! What the attack tests of the gate's side doors, stale reads and writes share: a clone whose
//! `origin` is the PR's repository on GitHub (reached in a local bare remote), the binary run in
//! it against the fake GitHub (to the end, or started and waited for), a person's reply added to
//! a thread as it happens on GitHub between two reads, and small waits on signal files.

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use review_core::model::{Author, Comment, CommentId, CommitId, PullRequest, ThreadId};
use review_core::report::{Report, ThreadReport};
use review_test_support::Mutation;
use review_test_support::github::FakeGitHub;

use crate::common::{Output, TestEnvironment, commit, git, git_out};
pub use crate::drill_support::{LIB, MAJOR_WITH_SUGGESTION, nitpick, repo};

/// The diff hunk of [`MAJOR_WITH_SUGGESTION`] on line 3 of [`LIB`].
pub const LIB_HUNK: &str = "@@ -0,0 +1,4 @@\n+fn a() {}\n+fn b() {\n+    let v = get().unwrap();";

/// Cursor Bugbot's finding on line 3 of [`LIB`]: exact, but no suggestion block, so it needs a
/// fixer command.
pub const BUGBOT: &str = "### Unchecked unwrap panics on a missing value\n\n**High Severity**\n\n<!-- BUGBOT_BUG_ID: 4f1c -->\n\n`get()` returns `None` when the header is missing, and the `unwrap()` panics the handler. Replace `get().unwrap()` with `get()?` so the error propagates to the caller.\n";

/// A clone (`work/`) with one commit (the PR head) on `feature`, and a bare remote
/// (`remote.git`) it was pushed to. `origin` is `https://github.com/acme/widgets.git`, which git
/// reaches in the bare remote (`url.<remote>.insteadOf`), so the tool takes it for the PR's
/// repository. Returns the head and the clone.
pub fn clone(env: &TestEnvironment) -> (String, PathBuf) {
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
    git(&work, &["add", "."]);
    commit(&work, "widgets");
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
    git(&work, &["push", "-q", "origin", "feature"]);
    (git_out(&work, &["rev-parse", "HEAD"]), work)
}

/// `review ARGS` in `dir` against `github`, with an empty environment but a token, `HOME` at
/// `home` and a git identity for the commits it makes.
pub fn review(dir: &Path, home: &Path, github: &FakeGitHub, args: &[&str]) -> Command {
    let mut cmd = crate::drill_support::review_in(dir, home, github, &github.graphql_url());
    cmd.args(args);
    cmd
}

/// Runs `cmd` to the end (failing the test on a panic).
pub fn run(cmd: Command) -> Output {
    crate::drill_support::output_of(cmd)
}

/// Starts `cmd` with its output captured.
pub fn spawn(mut cmd: Command) -> Child {
    cmd.stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the review binary starts")
}

/// Waits for a started run to end.
pub fn finish(child: Child) -> Output {
    let out = child.wait_with_output().unwrap();
    let result = Output {
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
        code: out.status.code().unwrap_or(-1),
    };
    assert!(
        !result.stderr.contains("panicked at"),
        "the binary panicked:\n{}",
        result.stderr
    );
    result
}

/// Waits (up to 30 s) until `ready` holds, failing the test with `what` otherwise.
pub fn wait_until(what: &str, mut ready: impl FnMut() -> bool) {
    let deadline = Instant::now() + Duration::from_secs(30);
    while !ready() {
        assert!(Instant::now() < deadline, "timed out waiting: {what}");
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// Whether the fake received a reply in `thread`.
pub fn replied_in(github: &FakeGitHub, thread: &str) -> bool {
    github
        .mutations()
        .iter()
        .any(|m| matches!(m, Mutation::Reply(t, _) if t.0 == thread))
}

/// The bodies of the replies posted in `thread`, in order.
pub fn replies_in(github: &FakeGitHub, thread: &str) -> Vec<String> {
    github
        .mutations()
        .into_iter()
        .filter_map(|m| match m {
            Mutation::Reply(t, body) if t.0 == thread => Some(body),
            _ => None,
        })
        .collect()
}

/// Whether the fake received a resolve of `thread`.
pub fn resolved_on_github(github: &FakeGitHub, thread: &str) -> bool {
    github
        .mutations()
        .contains(&Mutation::Resolve(ThreadId::from(thread)))
}

/// Adds a comment by `author` at the end of `thread`, as it happens on GitHub between two reads.
pub fn add_comment(github: &FakeGitHub, thread: &str, author: Author, body: &str) {
    let id = format!("PRRC_added_{thread}_{}", author.login);
    github.update_pull_request(&repo(), 1, |pr| {
        let t = pr
            .threads
            .iter_mut()
            .find(|t| t.id.0 == thread)
            .unwrap_or_else(|| panic!("no thread {thread}"));
        t.comments.push(Comment {
            id: CommentId(id),
            author: Some(author),
            body: body.to_owned(),
            created_at: "2026-11-30T11:00:00Z".to_owned(),
            url: String::new(),
            diff_hunk: None,
            review_id: None,
        });
    });
}

/// Moves the fake's PR head to `sha`, as GitHub shows a push.
pub fn move_head(github: &FakeGitHub, sha: &str) {
    let sha = sha.to_owned();
    github.update_pull_request(&repo(), 1, |pr| pr.head_sha = CommitId(sha));
}

/// The pull request as the fake holds it now.
pub fn fake_pr(github: &FakeGitHub) -> PullRequest {
    github.pull_request(&repo(), 1).unwrap()
}

/// The report a `--json` run printed.
pub fn report(out: &Output) -> Report {
    serde_json::from_str(&out.stdout)
        .unwrap_or_else(|e| panic!("not a report ({e}):\n{}\n{}", out.stdout, out.stderr))
}

/// One thread's entry in `report`.
pub fn entry<'a>(report: &'a Report, id: &str) -> &'a ThreadReport {
    report
        .threads
        .iter()
        .find(|t| t.id.0 == id)
        .unwrap_or_else(|| panic!("no {id} in the report"))
}
