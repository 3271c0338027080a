//! Attacks on the loop's rounds (issue 13, items 4 and 5): a second fix on the same file that
//! fails or strays onto a deny-listed path, and a round whose checks fail.

use review_test_support::{Mutation, bot};

use crate::attack_harness::Attack;
use crate::common::git_out;

/// A file two findings are about: line 1 and line 20.
fn cache_rs(alpha: u8, omega: u8) -> String {
    let mut text = format!("let alpha = {alpha};\n");
    for i in 2..20 {
        text.push_str(&format!("// line {i}\n"));
    }
    text.push_str(&format!("let omega = {omega};\n"));
    text
}

/// A clone with `src/cache.rs` and `Cargo.lock`, the user's uncommitted work in `notes.md`, and a
/// PR with two CodeRabbit findings on `src/cache.rs`, far apart and unrelated.
async fn two_findings_on_one_file() -> Attack {
    let a = Attack::with_files(&[
        ("src/cache.rs", &cache_rs(1, 1)),
        ("src/lib.rs", "pub fn x() {}\n"),
        ("Cargo.lock", "# lock\n"),
        ("notes.md", "mine\n"),
    ])
    .await;
    a.open_pr(|b| {
        b.thread(
            "ALPHA",
            "src/cache.rs",
            1,
            &[(
                bot("coderabbitai"),
                "**Alpha starts at one.** It must start at two.",
            )],
        )
        .thread(
            "OMEGA",
            "src/cache.rs",
            20,
            &[(
                bot("coderabbitai"),
                "**Omega overflows.** Store it in a wider type.",
            )],
        )
    });
    a.write("notes.md", "my unsaved work\n");
    a
}

/// A fixer that makes a good edit on its first run and, on its second, edits the same file and
/// then `then` (fails, or touches a deny-listed path). It logs the threads in the order run.
fn first_good_then(a: &Attack, then: &str) -> String {
    let order = a.outside("order");
    a.sh(
        "fix.sh",
        &format!(
            r#"input=$(cat)
thread=$(printf '%s' "$input" | sed -n 's/.*"thread":"\([A-Z]*\)".*/\1/p')
echo "$thread" >> '{order}'
case "$thread" in
  ALPHA) sed -i 's/^let alpha = 1;/let alpha = 2;/' src/cache.rs ;;
  *) sed -i 's/^let omega = 1;/let omega = 2;/' src/cache.rs ;;
esac
if [ "$(wc -l < '{order}')" -eq 2 ]; then
  {then}
fi
"#,
            order = order.display()
        ),
    )
}

/// Runs one poll of the loop with a triager answering VALID for both, and `fixer`.
fn loop_once(a: &Attack, fixer: &str) -> crate::common::Output {
    let triager = a.sh(
        "triage.sh",
        r#"cat > /dev/null; echo '{"verdict":"VALID","reasoning":"right, changed as asked","evidence":["src/cache.rs:1"],"fixSketch":"as asked"}'"#,
    );
    a.on_pr(
        "loop",
        &[
            "--triager-cmd",
            &triager,
            "--fixer-cmd",
            fixer,
            "--check-cmd",
            "true",
            "--interval",
            "0",
            "--max-polls",
            "1",
        ],
    )
}

/// What the round left: the first thread fixed in one commit under its own trailer, the second
/// escalated with its edit undone and carried by no commit, the user's work untouched.
fn assert_only_the_first_fix_ships(a: &Attack, out: &crate::common::Output, expect: &str) {
    assert_eq!(out.code, 0, "{}", out.stderr);
    let order = std::fs::read_to_string(a.outside("order")).unwrap();
    let order: Vec<&str> = order.lines().collect();
    assert_eq!(order.len(), 2, "{order:?}");
    let (first, second) = (order[0], order[1]);
    let value = |t: &str| if t == "ALPHA" { (2, 1) } else { (1, 2) };
    let (alpha, omega) = value(first);

    assert_eq!(a.commits(), 3, "one round commit: {}", out.stderr);
    assert_eq!(a.files_of("HEAD"), ["src/cache.rs"]);
    assert_eq!(
        git_out(&a.work, &["show", "HEAD:src/cache.rs"]),
        cache_rs(alpha, omega).trim_end(),
        "the round commit holds the first fix only"
    );
    let message = git_out(&a.work, &["log", "-1", "--format=%B"]);
    assert!(
        message.contains(&format!("Review-Thread: {first}")),
        "{message}"
    );
    assert!(
        !message.contains(&format!("Review-Thread: {second}")),
        "{message}"
    );
    assert_eq!(
        a.read("src/cache.rs").unwrap(),
        cache_rs(alpha, omega),
        "the second edit is undone, not left for a later commit"
    );
    assert_eq!(a.read("Cargo.lock").as_deref(), Some("# lock\n"));
    assert_eq!(a.status(), "M notes.md", "only the user's work is left");
    assert_eq!(a.read("notes.md").as_deref(), Some("my unsaved work\n"));

    let d = a.decisions();
    let escalated: Vec<&str> = d.escalated.iter().map(|e| e.thread_id.as_str()).collect();
    assert_eq!(escalated, [second], "{:?}", d.escalated);
    let reason = &d.escalated[0].reason;
    assert!(reason.contains(expect), "{reason}");
    assert!(reason.contains("undone"), "{reason}");
    assert!(
        !reason.contains("uncommitted work of yours"),
        "the first fix's edit is the tool's, not the user's: {reason}"
    );
    let sha = git_out(&a.work, &["rev-parse", "--short=7", "HEAD"]);
    let fixed: Vec<&str> = d
        .seen
        .values()
        .filter(|s| s.resolved_sha.as_deref() == Some(sha.as_str()))
        .map(|s| s.thread_id.as_str())
        .collect();
    assert_eq!(fixed, [first], "only the first is fixed by the round");
    assert!(
        out.stderr.contains(&format!("{sha} — ready to push")),
        "{}",
        out.stderr
    );
    assert!(
        a.replies_to(second).is_empty(),
        "an escalation is not answered"
    );
    assert!(!a.mutations().contains(&Mutation::Resolve(second.into())));
}

/// Attack (4): two VALID findings on one file in one round; the fixer's second run edits the
/// file and then fails. Safe: the second is escalated (its edit undone, the first's kept, and
/// the first's edit is not taken for the user's work), the round commit holds only the first
/// fix under its own trailer.
#[tokio::test(flavor = "multi_thread")]
async fn attack_a_failed_second_fix_on_the_same_file_never_ships() {
    let a = two_findings_on_one_file().await;
    let fixer = first_good_then(&a, "echo 'agent crashed' >&2; exit 1");
    let out = loop_once(&a, &fixer);
    assert_only_the_first_fix_ships(&a, &out, "agent crashed");
}

/// Attack (4): as above, but the second run, besides its edit of the same file, touches
/// `Cargo.lock` (deny-listed). Safe: the second is escalated with both of its edits undone; the
/// round commit holds only the first fix.
#[tokio::test(flavor = "multi_thread")]
async fn attack_a_second_fix_touching_a_denied_path_never_ships() {
    let a = two_findings_on_one_file().await;
    let fixer = first_good_then(&a, "echo '# changed' >> Cargo.lock");
    let out = loop_once(&a, &fixer);
    assert_only_the_first_fix_ships(&a, &out, "deny-listed");
}

/// Attack (5): the round's checks fail after the fixer edited two files and created one, for a
/// VALID finding and a CONFLICTS_WITH_RULE one with a fix sketch ("renamed the variable
/// instead"), while the user has uncommitted work in another file. Safe: the round's edits are
/// saved as a patch under the git common dir (its path printed) and undone in the tool's files
/// only (a patch `git apply` takes back, whatever the user's diff settings); both fixes are
/// escalated; no reply claims a fix and nothing is resolved; the next poll runs the fixer on
/// neither again.
#[tokio::test(flavor = "multi_thread")]
async fn attack_a_failed_check_leaves_no_claim_and_no_edit_behind() {
    let a = Attack::with_files(&[
        ("src/cache.rs", "let cache = 1;\n"),
        ("src/lib.rs", "let tmp = 1;\n"),
        ("notes.md", "mine\n"),
    ])
    .await;
    a.open_pr(|b| {
        b.thread(
            "VALID",
            "src/cache.rs",
            1,
            &[(bot("coderabbitai"), "**The cache is unbounded.** Bound it.")],
        )
        .thread(
            "RULE",
            "src/lib.rs",
            1,
            &[(
                bot("coderabbitai"),
                "**Use `let mut` for `tmp`.** It is reassigned.",
            )],
        )
    });
    a.write("notes.md", "my unsaved work\n");
    // The user's own diff settings (a colour forced on, an external diff tool) do not get into
    // the saved patch.
    crate::common::git(&a.work, &["config", "color.diff", "always"]);
    crate::common::git(&a.work, &["config", "diff.external", "false"]);
    let triager = a.sh(
        "triage.sh",
        r#"input=$(cat)
case "$input" in
  *'"path":"src/lib.rs"'*) echo '{"verdict":"CONFLICTS_WITH_RULE","reasoning":"renamed the variable instead","evidence":["src/lib.rs:1"],"fixSketch":"rename tmp to value"}' ;;
  *) echo '{"verdict":"VALID","reasoning":"the cache now has a bound","evidence":["src/cache.rs:1"],"fixSketch":"bound it"}' ;;
esac
"#,
    );
    let runs = a.outside("fixer-runs");
    let fixer = a.sh(
        "fix.sh",
        &format!(
            r#"input=$(cat)
echo run >> '{runs}'
case "$input" in
  *'"path":"src/lib.rs"'*) sed -i 's/tmp/value/' src/lib.rs ;;
  *) echo 'let cache = 2;' > src/cache.rs; mkdir -p tests; echo 'test' > tests/cache.rs
     printf '\377\000fixture' > tests/fixture.bin ;;
esac
"#,
            runs = runs.display()
        ),
    );
    let checks = a.outside("check-runs");
    let check = format!(
        "echo run >> '{}'; echo 'tests failed' >&2; exit 1",
        checks.display()
    );
    let out = a.on_pr(
        "loop",
        &[
            "--triager-cmd",
            &triager,
            "--fixer-cmd",
            &fixer,
            "--check-cmd",
            &check,
            "--interval",
            "0",
            "--max-polls",
            "2",
        ],
    );
    assert_eq!(out.code, 0, "{}", out.stderr);

    // The patch, under the git common dir, named in the output, holding the round's edits.
    let review_dir = a.work.join(".git/review");
    let patch = std::fs::read_dir(&review_dir)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .find(|p| {
            p.file_name()
                .is_some_and(|n| n.to_string_lossy().starts_with("failed-round-1-"))
        })
        .unwrap_or_else(|| panic!("no patch in {}: {}", review_dir.display(), out.stderr));
    assert!(
        out.stderr.contains(&patch.display().to_string()),
        "the patch's path is printed: {}",
        out.stderr
    );
    let text = std::fs::read_to_string(&patch).unwrap();
    for line in ["+let cache = 2;", "+let value = 1;", "+++ b/tests/cache.rs"] {
        assert!(text.contains(line), "{line} in\n{text}");
    }
    assert!(
        !text.contains("notes.md"),
        "the user's work is not the round's:\n{text}"
    );

    // Undone in the tool's files only.
    assert_eq!(a.read("src/cache.rs").as_deref(), Some("let cache = 1;\n"));
    assert_eq!(a.read("src/lib.rs").as_deref(), Some("let tmp = 1;\n"));
    assert_eq!(
        a.read("tests/cache.rs"),
        None,
        "the file the fixer created is removed"
    );
    assert!(!a.work.join("tests/fixture.bin").exists());
    assert_eq!(a.read("notes.md").as_deref(), Some("my unsaved work\n"));
    assert_eq!(a.status(), "M notes.md");
    assert_eq!(a.commits(), 2, "nothing committed");

    // The patch takes the round's edits back.
    let applied = std::process::Command::new("git")
        .args(["apply", patch.to_str().unwrap()])
        .current_dir(&a.work)
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .output()
        .unwrap();
    assert!(
        applied.status.success(),
        "{}\n{text}",
        String::from_utf8_lossy(&applied.stderr)
    );
    assert_eq!(a.read("src/cache.rs").as_deref(), Some("let cache = 2;\n"));
    assert_eq!(a.read("src/lib.rs").as_deref(), Some("let value = 1;\n"));
    assert_eq!(a.read("tests/cache.rs").as_deref(), Some("test\n"));
    assert_eq!(
        std::fs::read(a.work.join("tests/fixture.bin")).unwrap(),
        b"\xff\x00fixture",
        "a binary file the fixer created is in the patch too"
    );
    crate::common::git(&a.work, &["checkout", "--", "src"]);
    std::fs::remove_dir_all(a.work.join("tests")).unwrap();

    // Escalated; nothing claims the fix on GitHub.
    let d = a.decisions();
    let mut escalated: Vec<&str> = d.escalated.iter().map(|e| e.thread_id.as_str()).collect();
    escalated.sort_unstable();
    assert_eq!(escalated, ["RULE", "VALID"], "{:?}", d.escalated);
    assert!(
        a.mutations().is_empty(),
        "no reply, no resolve: {:?}",
        a.mutations()
    );

    // The second poll ran neither the fixer nor the checks again.
    assert_eq!(std::fs::read_to_string(&runs).unwrap().lines().count(), 2);
    assert_eq!(std::fs::read_to_string(&checks).unwrap().lines().count(), 1);
}

/// The loop's judge calls within one poll run side by side (`--jobs 2`: both are out at once,
/// each waiting for the other), and their answers are recorded in order as with one at a time.
#[tokio::test(flavor = "multi_thread")]
async fn the_loops_judge_calls_run_side_by_side() {
    let a = two_findings_on_one_file().await;
    let started = a.outside("started");
    std::fs::create_dir_all(&started).unwrap();
    let judge = a.sh(
        "barrier.sh",
        &format!(
            r#"cat > /dev/null
touch '{started}/'$$
i=0
while [ "$(ls '{started}' | wc -l)" -lt 2 ] && [ $i -lt 200 ]; do sleep 0.05; i=$((i+1)); done
[ $i -lt 200 ] || exit 9
echo '{{"verdict":"FALSE_POSITIVE","reasoning":"not so","evidence":["src/cache.rs:1"]}}'
"#,
            started = started.display()
        ),
    );
    let out = a.on_pr(
        "loop",
        &[
            "--judge-cmd",
            &judge,
            "--jobs",
            "2",
            "--interval",
            "0",
            "--max-polls",
            "1",
        ],
    );
    assert_eq!(out.code, 0, "{}", out.stderr);
    let d = a.decisions();
    assert!(
        d.escalated.is_empty(),
        "a call waited alone: {d:?}\n{}",
        out.stderr
    );
    assert_eq!(d.seen.len(), 2, "{d:?}");
    let alpha = out.stderr.find("FALSE_POSITIVE ALPHA").unwrap();
    let omega = out.stderr.find("FALSE_POSITIVE OMEGA").unwrap();
    assert!(
        alpha < omega,
        "answers are recorded in order: {}",
        out.stderr
    );
}
