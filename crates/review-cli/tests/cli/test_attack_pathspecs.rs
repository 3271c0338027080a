//! Attacks on the paths the tool hands git (issue 13, item 1): file names that read as pathspec
//! magic or globs, a journal naming one, the user's untracked files, and files a fixer creates.

use review_core::report::Outcome;
use review_test_support::{PrBuilder, bot};

use crate::attack_harness::{
    Attack, CODE, HUNK, TRIAGE_VALID, UNWRAP_FIX, VALID, bugbot, entry, journal_hash, suggestion,
};
use crate::common::git_out;

/// Names git would read as pathspec magic without `--literal-pathspecs`.
const MAGIC: [&str; 4] = [":(exclude)x.py", ":!x", ":^x", ":(glob)*"];

/// The user's uncommitted work in tracked files, which no commit of the tool may carry.
const USER_FILES: [(&str, &str); 3] = [
    ("a.py", "a = 'my unsaved work'\n"),
    ("b.py", "b = 'my unsaved work'\n"),
    ("x.py", "x = 'my unsaved work'\n"),
];

fn with_suggestion(builder: PrBuilder, id: &str, path: &str, n: usize) -> PrBuilder {
    builder
        .thread(
            id,
            path,
            3,
            &[(
                bot("coderabbitai"),
                &suggestion(&format!("Unchecked unwrap number {n} on request input")),
            )],
        )
        .with_last(|t| t.comments[0].diff_hunk = Some(HUNK.to_owned()))
}

/// Attack (1a): bots suggest fixes on files named `:(exclude)x.py`, `:!x`, `:^x`, `:(glob)*`
/// and `*.py` while the user has uncommitted edits in other tracked files. Safe: the magic names
/// are invalid paths (deferred, never written), `*.py` is committed alone by its literal name,
/// and the user's edits are in no commit, unstaged and untouched.
#[tokio::test(flavor = "multi_thread")]
async fn attack_pathspec_magic_file_names_never_pull_the_users_work_into_a_fix() {
    let mut files: Vec<(&str, &str)> = MAGIC.iter().map(|m| (*m, CODE)).collect();
    files.push(("*.py", CODE));
    files.extend([
        ("a.py", "a = 1\n"),
        ("b.py", "b = 1\n"),
        ("x.py", "x = 1\n"),
    ]);
    let a = Attack::with_files(&files).await;
    let head = a.head();
    a.open_pr(|mut b| {
        for (i, path) in MAGIC.iter().enumerate() {
            b = with_suggestion(b, &format!("MAGIC{i}"), path, i);
        }
        with_suggestion(b, "GLOB", "*.py", 9)
    });
    for (path, text) in USER_FILES {
        a.write(path, text);
    }

    let (out, report) = a.apply(&[]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    for i in 0..MAGIC.len() {
        let t = entry(&report, &format!("MAGIC{i}"));
        assert_eq!(t.outcome, Outcome::Deferred, "{t:?}");
        assert!(t.reason.contains("invalid path"), "{t:?}");
        assert!(t.commit.is_none(), "{t:?}");
    }
    let glob = entry(&report, "GLOB");
    assert_eq!(glob.outcome, Outcome::Actioned, "{glob:?}");
    assert_eq!(a.commits(), 3, "one fix commit, for `*.py`");
    assert_eq!(
        git_out(&a.work, &["diff", "--name-only", "-z", &head, "HEAD"]).trim_end_matches('\0'),
        "*.py",
        "the fix commit holds `*.py` and nothing it would match as a glob"
    );
    for (path, text) in USER_FILES {
        assert_eq!(a.read(path).as_deref(), Some(text), "{path} untouched");
    }
    for path in MAGIC {
        assert_eq!(a.read(path).as_deref(), Some(CODE), "{path} never written");
    }
    assert_eq!(a.staged(), "", "nothing left staged");
    assert_eq!(
        a.status(),
        "M a.py\n M b.py\n M x.py",
        "only the user's work is left"
    );
}

/// Attack (1b): a journal (as a killed run leaves it) names `:(exclude)x.py` and `*.py`, each
/// holding exactly what the journal records, while the user has uncommitted work in other
/// tracked files. Safe: recovery never reads a journal path as a pattern: the magic name is left
/// alone (not a path the tool writes), `*.py` alone is put back (one index entry), and the
/// user's work is untouched.
#[tokio::test(flavor = "multi_thread")]
async fn attack_a_journal_naming_pathspec_magic_restores_nothing_of_the_users() {
    let a = Attack::with_files(&[
        (":(exclude)x.py", CODE),
        ("*.py", CODE),
        ("a.py", "a = 1\n"),
        ("x.py", "x = 1\n"),
    ])
    .await;
    a.open_pr(|b| b);
    a.write("a.py", "a = 'my unsaved work'\n");
    a.write("x.py", "x = 'my unsaved work'\n");
    let tool_edit = "the tool's own edit\n";
    a.write(":(exclude)x.py", tool_edit);
    a.write("*.py", tool_edit);
    let journal = a.state_file("journal");
    std::fs::create_dir_all(journal.parent().unwrap()).unwrap();
    std::fs::write(
        &journal,
        serde_json::json!([
            {"path": ":(exclude)x.py", "written": journal_hash(tool_edit)},
            {"path": "*.py", "written": journal_hash(tool_edit)},
        ])
        .to_string(),
    )
    .unwrap();

    let (out, _) = a.apply(&[]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert_eq!(a.read("a.py").as_deref(), Some("a = 'my unsaved work'\n"));
    assert_eq!(a.read("x.py").as_deref(), Some("x = 'my unsaved work'\n"));
    assert_eq!(
        a.read(":(exclude)x.py").as_deref(),
        Some(tool_edit),
        "a journal path that is no valid path is never acted on"
    );
    assert_eq!(
        a.read("*.py").as_deref(),
        Some(CODE),
        "the one file put back"
    );
    assert!(
        out.stderr
            .contains(":(exclude)x.py changed since an earlier run edited it; left as it is"),
        "{}",
        out.stderr
    );
    assert_eq!(a.status(), "M :(exclude)x.py\n M a.py\n M x.py");
}

/// Attack (1c): the user keeps an untracked `.env.local`; findings name `.env.local` and
/// `*.local`, and a real fix is made in `src/app.rs`. Safe: `commit-round` commits only
/// `src/app.rs`; `.env.local` (there before, so the user's) is never staged, and a round with
/// only those findings commits nothing.
#[tokio::test(flavor = "multi_thread")]
async fn attack_commit_round_never_stages_the_users_untracked_env_file() {
    let a = Attack::with_files(&[("src/app.rs", "fn app() {}\n")]).await;
    a.open_pr(|b| {
        b.thread(
            "ENV",
            ".env.local",
            1,
            &[(
                bot("coderabbitai"),
                "**Wrong variable name in `.env.local`.** Rename `DB_HOST` to `DATABASE_HOST`.",
            )],
        )
        .thread(
            "GLOB",
            "*.local",
            1,
            &[(
                bot("coderabbitai"),
                "**Local files are loaded.** Check them.",
            )],
        )
        .thread(
            "APP",
            "src/app.rs",
            1,
            &[(
                bot("coderabbitai"),
                "**`app` does nothing.** Make it return.",
            )],
        )
    });
    a.write(".env.local", "API_KEY=sk-mine-0001\n");
    a.poll();
    let decide = |thread: &str| a.decide(thread, VALID);

    // Only the findings on the user's file: nothing to commit, nothing staged.
    decide("ENV");
    decide("GLOB");
    assert_eq!(
        a.decisions().uncommitted_fixes(1).len(),
        2,
        "both are fixes: {:?}",
        a.decisions()
    );
    let out = a.on_pr("commit-round", &[]);
    assert_ne!(out.code, 0, "{}", out.stderr);
    assert!(
        out.stderr.contains("none of their files has changes"),
        "{}",
        out.stderr
    );
    assert_eq!(a.staged(), "");
    assert_eq!(a.commits(), 2);

    // With a real fix as well: that file only.
    decide("APP");
    a.write("src/app.rs", "fn app() -> u8 { 1 }\n");
    let out = a.on_pr("commit-round", &["--check-cmd", "true"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert_eq!(a.files_of("HEAD"), ["src/app.rs"]);
    assert_eq!(a.staged(), "");
    assert_eq!(a.status(), "?? .env.local");
    assert!(
        !git_out(&a.work, &["log", "--all", "--name-only", "--format="]).contains(".env"),
        "no commit ever held it"
    );
}

/// Attack (1c, the loop): a bot finding on the user's untracked `.env.local` is judged VALID and
/// the fixer edits that file. Safe: the file was there before the fixer ran, so it is the
/// user's: the finding is escalated, the file put back as the user had it, and never staged.
#[tokio::test(flavor = "multi_thread")]
async fn attack_the_loop_never_commits_the_users_untracked_file_a_fixer_edited() {
    let a = Attack::with_files(&[("src/app.rs", "fn app() {}\n")]).await;
    a.open_pr(|b| {
        b.thread(
            "ENV",
            ".env.local",
            1,
            &[(
                bot("coderabbitai"),
                "**Wrong variable name in `.env.local`.** Rename `DB_HOST` to `DATABASE_HOST`.",
            )],
        )
    });
    a.write(".env.local", "API_KEY=sk-mine-0001\n");
    let triager = a.sh(
        "triage.sh",
        r#"cat > /dev/null; echo '{"verdict":"VALID","reasoning":"renamed the variable","evidence":[".env.local:1"],"fixSketch":"rename it"}'"#,
    );
    let out = a.on_pr(
        "loop",
        &[
            "--triager-cmd",
            &triager,
            "--fixer-cmd",
            "echo APP_KEY=sk-mine-0001 > .env.local",
            "--check-cmd",
            "true",
            "--interval",
            "0",
            "--max-polls",
            "1",
        ],
    );
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(
        out.stderr.contains("which has uncommitted work of yours"),
        "{}",
        out.stderr
    );
    assert_eq!(
        a.read(".env.local").as_deref(),
        Some("API_KEY=sk-mine-0001\n"),
        "put back as the user had it"
    );
    assert_eq!(a.commits(), 2, "nothing committed");
    assert_eq!(a.staged(), "");
    assert_eq!(a.status(), "?? .env.local");
}

const TEST_FIX: &str = "`other()` is not covered by any test, so a regression goes unnoticed. Add a `#[test] fn other()` in `tests/other.rs`.";

const FIXER_WITH_A_TEST: &str = r#"input=$(cat)
case "$input" in
  *'"path":"src/lib.rs"'*)
    sed -i 's/get().unwrap()/get()?/' src/lib.rs
    mkdir -p tests
    printf '#[test]\nfn regression() {}\n' > tests/regression.rs ;;
  *)
    mkdir -p tests
    printf '#[test]\nfn other() {}\n' > tests/other.rs ;;
esac
"#;

/// Attack (1d): a fixer writes a regression test (a new file) along with its edit, and another
/// fixer run only adds a file, while the user has an untracked `.env.local` and an edited
/// `notes.md`. Safe: each fix commit holds what its fixer did, new file included (a run that
/// only adds a file is a fix, not "changed nothing"); the user's files are in no commit.
#[tokio::test(flavor = "multi_thread")]
async fn attack_a_fixer_that_creates_a_file_commits_it_with_its_fix() {
    let a = Attack::with_files(&[
        ("src/lib.rs", CODE),
        ("src/other.rs", "fn other() {}\n"),
        ("notes.md", "mine\n"),
    ])
    .await;
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
            "ONLYNEW",
            "src/other.rs",
            1,
            &[(
                bot("cursor"),
                &bugbot("Other lacks a regression test", TEST_FIX),
            )],
        )
    });
    a.write(".env.local", "API_KEY=sk-mine-0001\n");
    a.write("notes.md", "my unsaved work\n");
    let fixer = a.sh("fix.sh", FIXER_WITH_A_TEST);
    let (out, report) = a.apply(&["--fixer-cmd", &fixer]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let bug = entry(&report, "BUG");
    assert_eq!(bug.outcome, Outcome::Actioned, "{bug:?}");
    let only_new = entry(&report, "ONLYNEW");
    assert_eq!(only_new.outcome, Outcome::Actioned, "{only_new:?}");
    let bug_commit = &bug.commit.as_ref().unwrap().0;
    assert_eq!(
        a.files_of(bug_commit),
        ["src/lib.rs", "tests/regression.rs"]
    );
    assert_eq!(
        a.files_of(&only_new.commit.as_ref().unwrap().0),
        ["tests/other.rs"]
    );
    assert_eq!(a.status(), "M notes.md\n?? .env.local");
    assert!(!a.state_file("journal").exists(), "every edit committed");
}

/// Attack (1d, the loop): for one finding the fixer edits a file and adds a test; for another
/// it only adds a test. Safe: the round's commit holds all three files (the new ones staged by
/// literal path), neither finding is escalated as "changed nothing", and the user's untracked
/// `.env.local` is not in it.
#[tokio::test(flavor = "multi_thread")]
async fn attack_the_loop_commits_the_files_its_fixer_created() {
    let a = Attack::with_files(&[("src/lib.rs", CODE), ("src/other.rs", "fn other() {}\n")]).await;
    a.open_pr(|b| {
        b.thread(
            "BUG",
            "src/lib.rs",
            3,
            &[(
                bot("coderabbitai"),
                "**Unchecked unwrap panics.** Propagate the error.",
            )],
        )
        .thread(
            "ONLYNEW",
            "src/other.rs",
            1,
            &[(
                bot("coderabbitai"),
                "**`other` has no regression test.** Add one.",
            )],
        )
    });
    a.write(".env.local", "API_KEY=sk-mine-0001\n");
    let triager = a.sh("triage.sh", TRIAGE_VALID);
    let fixer = a.sh("fix.sh", FIXER_WITH_A_TEST);
    let out = a.on_pr(
        "loop",
        &[
            "--triager-cmd",
            &triager,
            "--fixer-cmd",
            &fixer,
            "--check-cmd",
            "true",
            "--interval",
            "0",
            "--max-polls",
            "1",
        ],
    );
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(!out.stderr.contains("changed nothing"), "{}", out.stderr);
    assert!(out.stderr.contains("ready to push"), "{}", out.stderr);
    assert_eq!(
        a.files_of("HEAD"),
        ["src/lib.rs", "tests/other.rs", "tests/regression.rs"]
    );
    let message = git_out(&a.work, &["log", "-1", "--format=%B"]);
    assert!(
        message.contains("Review-Thread: BUG") && message.contains("Review-Thread: ONLYNEW"),
        "{message}"
    );
    assert_eq!(a.status(), "?? .env.local");
}

/// Attack (1, the untracked-files rule): the user keeps an untracked binary file, an edited
/// binary tracked file and an untracked symbolic link to a directory outside the clone, and
/// the fixer adds a binary fixture with its edit. Safe: the fixer still runs and its fix (the
/// fixture included) is committed; the user's files are read as they are (bytes, link targets),
/// never followed out of the clone, never staged, and left untouched.
#[tokio::test(flavor = "multi_thread")]
async fn attack_binary_files_and_outward_links_of_the_users_do_not_stop_or_leak_into_a_fix() {
    let a = Attack::with_files(&[("src/lib.rs", CODE)]).await;
    let blob = |n: u8| -> Vec<u8> { vec![0xff, 0xfe, 0x00, n, 0x80] };
    std::fs::write(a.work.join("logo.png"), blob(1)).unwrap();
    crate::common::git(&a.work, &["add", "logo.png"]);
    crate::common::commit(&a.work, "logo");
    a.push();
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
    });
    std::fs::write(a.work.join("logo.png"), blob(2)).unwrap();
    std::fs::write(a.work.join("dump.bin"), blob(3)).unwrap();
    let outside = a.outside("shared-data");
    std::fs::create_dir_all(&outside).unwrap();
    std::fs::write(outside.join("big.csv"), "a,b\n").unwrap();
    std::os::unix::fs::symlink(&outside, a.work.join("data")).unwrap();
    let fixer = "sed -i 's/get().unwrap()/get()?/' src/lib.rs && mkdir -p tests && printf '\\377\\000fixture' > tests/fixture.bin";

    let (out, report) = a.apply(&["--fixer-cmd", fixer]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let bug = entry(&report, "BUG");
    assert_eq!(bug.outcome, Outcome::Actioned, "{bug:?}");
    assert_eq!(
        a.files_of(&bug.commit.as_ref().unwrap().0),
        ["src/lib.rs", "tests/fixture.bin"]
    );
    assert_eq!(std::fs::read(a.work.join("logo.png")).unwrap(), blob(2));
    assert_eq!(std::fs::read(a.work.join("dump.bin")).unwrap(), blob(3));
    assert_eq!(std::fs::read_link(a.work.join("data")).unwrap(), outside);
    assert_eq!(
        std::fs::read_to_string(outside.join("big.csv")).unwrap(),
        "a,b\n"
    );
    assert_eq!(a.status(), "M logo.png\n?? data\n?? dump.bin");
    assert!(!a.state_file("journal").exists(), "every edit committed");
}

/// Attack (1, the untracked-files rule): a failing fixer overwrites the user's untracked binary
/// file and points the user's link somewhere else. Safe: both are put back exactly (the bytes,
/// the link's own target: a link is restored as a link, never written through), nothing is
/// committed.
#[tokio::test(flavor = "multi_thread")]
async fn attack_a_failed_fixer_gets_the_users_binary_file_and_link_put_back() {
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
    });
    let blob = vec![0xff, 0xfe, 0x00, 0x80];
    std::fs::write(a.work.join("dump.bin"), &blob).unwrap();
    let outside = a.outside("shared-data");
    std::fs::create_dir_all(&outside).unwrap();
    std::os::unix::fs::symlink(&outside, a.work.join("data")).unwrap();
    let fixer = "sed -i 's/get().unwrap()/get()?/' src/lib.rs; printf 'text' > dump.bin; rm data; ln -s /etc data; exit 1";

    let (out, report) = a.apply(&["--fixer-cmd", fixer]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let bug = entry(&report, "BUG");
    assert_eq!(bug.outcome, Outcome::Deferred, "{bug:?}");
    assert!(bug.reason.contains("undone"), "{bug:?}");
    assert_eq!(std::fs::read(a.work.join("dump.bin")).unwrap(), blob);
    assert_eq!(std::fs::read_link(a.work.join("data")).unwrap(), outside);
    assert_eq!(a.read("src/lib.rs").as_deref(), Some(CODE));
    assert_eq!(a.status(), "?? data\n?? dump.bin");
    assert_eq!(a.commits(), 2);
}

/// Attack (1, the untracked-files rule, follow-up): the user keeps an untracked `.env.local`
/// and the follow-up's coding agent, working in the clone, commits with `git add -A`. Safe: a
/// commit of the agent's that adds a file the user had before it ran is not counted as done (no
/// completion reply is recorded); it is left for the user to inspect.
#[tokio::test(flavor = "multi_thread")]
async fn attack_a_followup_agent_committing_the_users_untracked_file_is_not_done() {
    let a = Attack::with_files(&[("src/cache.rs", "// cache\n")]).await;
    a.open_pr(|b| {
        b.thread(
            "CACHE",
            "src/cache.rs",
            1,
            &[(
                bot("coderabbitai"),
                "**Unbounded cache.** Entries are never evicted.",
            )],
        )
    });
    a.write(".env.local", "API_KEY=sk-mine-0001\n");
    std::fs::write(
        a.outside("answers.json"),
        r#"{"status": "submitted", "issues": {"CACHE": {"instruction": "fix the eviction", "autoResolve": true}}}"#,
    )
    .unwrap();
    let agent = a.sh(
        "agent.sh",
        "echo '// evicts' >> src/cache.rs\ngit add -A\ngit commit -q -m 'fix: evict'\n",
    );
    let answers = a.outside("answers.json");
    let out = a.on_pr(
        "followup",
        &[
            "--answers",
            answers.to_str().unwrap(),
            "--yes",
            "--agent-cmd",
            &agent,
        ],
    );
    assert_eq!(
        out.code, 1,
        "its one task failed: {}\n{}",
        out.stdout, out.stderr
    );
    assert_eq!(
        a.files_of("HEAD"),
        [".env.local", "src/cache.rs"],
        "the agent's commit"
    );
    assert!(out.stderr.contains(".env.local"), "{}", out.stderr);
    assert!(out.stdout.contains("completed: 0"), "{}", out.stdout);
    let state: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(a.state_file("followup")).unwrap()).unwrap();
    assert_eq!(
        state["completions"],
        serde_json::json!([]),
        "no completion recorded: {state}"
    );
    assert!(!out.stderr.contains("push, then run"), "{}", out.stderr);
}

/// Attack (1, the untracked-files rule): besides its edit, the fixer creates links to a named
/// pipe outside the clone (opening it blocks until someone writes), to `/dev/zero` (reading it
/// never ends) and to a directory outside the clone. Safe: links are never followed, so the
/// run ends; a fix holding a link out of the clone is not committed and its edit is undone.
#[tokio::test(flavor = "multi_thread")]
async fn attack_a_fixer_creating_links_out_of_the_clone_is_never_followed_or_committed() {
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
    });
    let fifo = a.outside("fifo");
    let fixer = format!(
        "sed -i 's/get().unwrap()/get()?/' src/lib.rs; mkfifo '{fifo}'; ln -s '{fifo}' pipe; ln -s /dev/zero zero; ln -s /etc etc",
        fifo = fifo.display()
    );
    let mut child = a
        .command(
            &[
                "triage",
                "1",
                "--repo",
                "acme/widgets",
                "--apply",
                "--json",
                "--fixer-cmd",
                &fixer,
            ],
            &[],
        )
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
    while child.try_wait().unwrap().is_none() {
        if std::time::Instant::now() > deadline {
            let _ = child.kill();
            let _ = child.wait();
            panic!("the run hung on a link it followed");
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    let out = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    let report: review_core::report::Report = serde_json::from_slice(&out.stdout).unwrap();
    let bug = entry(&report, "BUG");
    assert_eq!(bug.outcome, Outcome::Deferred, "{bug:?}");
    assert!(
        bug.reason.contains("leads outside the work tree"),
        "{bug:?}"
    );
    assert_eq!(a.commits(), 2, "nothing committed");
    assert_eq!(
        a.read("src/lib.rs").as_deref(),
        Some(CODE),
        "its edit undone"
    );
    assert_eq!(a.staged(), "");
}
