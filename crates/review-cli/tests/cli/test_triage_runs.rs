//! `review triage` run end to end as a user and an orchestrator run it: the fake GitHub, a real
//! clone, and a remote whose pushes move the PR's head on the fake as they do on GitHub. What
//! the sub-step result says, when the narration comes, and whether it agrees with the counts.

use std::io::BufRead as _;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use review_core::model::PrState;
use review_core::report::{DeferReason, Outcome};
use review_test_support::{PrBuilder, bot, person};
use serde_json::Value;

use crate::attack_harness::{
    Attack, CODE, HUNK, UNWRAP_FIX, bugbot, entry, repo, script, suggestion,
};
use crate::common::{Output, git_out};

const NITPICK: &str = "_🧹 Nitpick_\n\n**Prefer a more descriptive name than `a`.**\n\nConsider renaming `a` to something that says what it does.";

/// The fixer's edit for [`UNWRAP_FIX`].
const SED_FIX: &str = "sed -i 's/get().unwrap()/get()?/' src/lib.rs";

/// CodeRabbit's finding `FIX` on line 3 of [`CODE`], with a suggestion block.
fn with_fix(b: PrBuilder) -> PrBuilder {
    b.thread(
        "FIX",
        "src/lib.rs",
        3,
        &[(bot("coderabbitai"), &suggestion("Unchecked unwrap"))],
    )
    .with_last(|t| t.comments[0].diff_hunk = Some(HUNK.to_owned()))
}

/// Cursor's finding `BUG` on line 3 of [`CODE`], whose fix a fixer makes.
fn with_bug(b: PrBuilder) -> PrBuilder {
    b.thread(
        "BUG",
        "src/lib.rs",
        3,
        &[(
            bot("cursor"),
            &bugbot("Unchecked unwrap panics", UNWRAP_FIX),
        )],
    )
}

/// A nit on line 1 of [`CODE`].
fn with_nit(b: PrBuilder) -> PrBuilder {
    b.thread("NIT", "src/lib.rs", 1, &[(bot("coderabbitai"), NITPICK)])
}

/// A clone holding [`CODE`] and its PR, built by `build`.
async fn pr(build: impl FnOnce(PrBuilder) -> PrBuilder) -> Attack {
    let a = Attack::with_files(&[("src/lib.rs", CODE)]).await;
    a.open_pr(build);
    a
}

/// The remote's `feature` branch.
fn remote_head(a: &Attack) -> String {
    git_out(&a.outside("remote.git"), &["rev-parse", "feature"])
}

/// Sets its flag when dropped, so a helper thread stops even when the test panics.
struct SetOnDrop<'a>(&'a AtomicBool);

impl Drop for SetOnDrop<'_> {
    fn drop(&mut self) {
        self.0.store(true, Ordering::SeqCst);
    }
}

/// Runs `f` with a remote that acts as GitHub does on a push: the PR's head on the fake moves to
/// the commit pushed before the push returns (the remote's post-receive hook waits until the
/// test has moved it).
fn pushes_move_the_head<T>(a: &Attack, f: impl FnOnce() -> T) -> T {
    let hook = a.outside("remote.git/hooks/post-receive");
    let pushed = a.outside("pushed");
    let shown = a.outside("shown");
    script(
        &hook,
        &format!(
            "read old new ref\necho \"$new\" > '{p}.tmp' && mv '{p}.tmp' '{p}'\n\
             while [ ! -e '{s}' ]; do sleep 0.02; done\nrm -f '{s}'\n",
            p = pushed.display(),
            s = shown.display()
        ),
    );
    let done = AtomicBool::new(false);
    let out = std::thread::scope(|scope| {
        scope.spawn(|| {
            while !done.load(Ordering::SeqCst) {
                if let Ok(sha) = std::fs::read_to_string(&pushed) {
                    std::fs::remove_file(&pushed).unwrap();
                    a.move_pr_head(sha.trim());
                    std::fs::write(&shown, "").unwrap();
                }
                std::thread::sleep(Duration::from_millis(20));
            }
        });
        let _stop = SetOnDrop(&done);
        f()
    });
    std::fs::remove_file(hook).unwrap();
    out
}

/// `review triage 1 --repo acme/widgets --substep ARGS`, its result parsed.
fn substep(a: &Attack, args: &[&str]) -> (Output, Value) {
    let mut all = vec!["--substep"];
    all.extend_from_slice(args);
    let out = a.on_pr("triage", &all);
    let result = serde_json::from_str(&out.stdout)
        .unwrap_or_else(|e| panic!("{e}: {:?}\n{}", out.stdout, out.stderr));
    (out, result)
}

fn narration(result: &Value) -> Vec<String> {
    result["narration"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| l.as_str().unwrap().to_owned())
        .collect()
}

/// The index of the first of `lines` that contains every one of `parts`.
fn position(lines: &[String], parts: &[&str]) -> usize {
    lines
        .iter()
        .position(|l| parts.iter().all(|p| l.contains(p)))
        .unwrap_or_else(|| panic!("no line with {parts:?} in {lines:#?}"))
}

// Item 8: the sub-step result.

/// Regression: `new_head_sha` was the head the run started from after a run that pushed an
/// earlier run's fix: the result said the head had not moved when the run had moved it.
#[tokio::test(flavor = "multi_thread")]
async fn substep_new_head_sha_is_the_head_the_run_pushed() {
    // Fixed and pushed in one run.
    let a = pr(with_fix).await;
    let head_in = a.head();
    let (out, result) = pushes_move_the_head(&a, || substep(&a, &["--apply", "--push"]));
    assert_eq!(out.code, 0, "{}", out.stderr);
    let pushed = remote_head(&a);
    assert_ne!(pushed, head_in, "the fix was pushed");
    assert_eq!(result["head_sha_in"], head_in.as_str());
    assert_eq!(result["new_head_sha"], pushed.as_str(), "{result:#}");
    assert_eq!(result["actioned"], 1);

    // Fixed by an earlier run, pushed by this one.
    let b = pr(with_fix).await;
    let head_in = b.head();
    let (out, _) = b.apply(&[]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let (out, result) = pushes_move_the_head(&b, || substep(&b, &["--apply", "--push"]));
    assert_eq!(out.code, 0, "{}", out.stderr);
    let pushed = remote_head(&b);
    assert_ne!(pushed, head_in, "the earlier fix was pushed");
    assert_eq!(result["head_sha_in"], head_in.as_str());
    assert_eq!(result["new_head_sha"], pushed.as_str(), "{result:#}");
}

/// Regression: a run that made no commit but resolved a nit named the user's own unpushed
/// commit as `new_head_sha`; the PR's head did not move.
#[tokio::test(flavor = "multi_thread")]
async fn substep_new_head_sha_is_never_the_users_own_commit() {
    let a = pr(|b| with_fix(with_nit(b))).await;
    let head_in = a.head();
    a.commit_files(&[("notes.txt", "mine\n")], "my own work, not pushed");
    let (out, result) = substep(&a, &["--apply"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert_eq!(result["resolved"], 1, "the nit is resolved: {result:#}");
    assert_eq!(result["actioned"], 0, "not at the PR head: no fix");
    assert_eq!(result["head_sha_in"], head_in.as_str());
    assert_eq!(result["new_head_sha"], head_in.as_str(), "{result:#}");
}

/// A sub-step acts (the workflow's sub-step fixes, pushes and resolves): without --apply there is
/// no consent to act, so it is refused rather than answered with a result of planned counts an
/// orchestrator would take for done. A recorded snapshot (--input) is only ever planned.
#[tokio::test(flavor = "multi_thread")]
async fn substep_without_apply_is_refused_and_says_why() {
    let a = pr(with_nit).await;
    let out = a.on_pr("triage", &["--substep"]);
    assert_eq!(out.code, 2, "{}\n{}", out.stdout, out.stderr);
    assert!(out.stdout.is_empty(), "{}", out.stdout);
    assert!(
        out.stderr
            .contains("error: --substep acts as the workflow's sub-step does"),
        "{}",
        out.stderr
    );
    assert!(out.stderr.contains("hint: pass --apply"), "{}", out.stderr);
    assert!(a.mutations().is_empty());

    // With the user's `defaults.apply`, the sub-step acts.
    a.env.write_user_config("[defaults]\napply = true\n");
    let (out, result) = substep(&a, &[]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert_eq!(result["resolved"], 1);
}

/// Regression: a thread passed back with --deferred lost its class, so an actionable finding
/// left unfixed no longer counted in `unresolved_actionable_remaining` on the next pass.
#[tokio::test(flavor = "multi_thread")]
async fn unresolved_actionable_remaining_holds_for_a_thread_passed_back_as_deferred() {
    let a = pr(|b| {
        with_bug(b).thread(
            "HUMAN",
            "src/lib.rs",
            2,
            &[
                (bot("coderabbitai"), &suggestion("Unchecked unwrap")),
                (person("mei"), "let dana decide"),
            ],
        )
    })
    .await;
    // No fixer: the actionable finding stays.
    let (out, first) = substep(&a, &["--apply"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert_eq!(
        first["deferred_threads"],
        serde_json::json!(["BUG", "HUMAN"])
    );
    assert_eq!(first["unresolved_actionable_remaining"], true);

    let (out, second) = substep(&a, &["--apply", "--deferred", "BUG", "--deferred", "HUMAN"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert_eq!(second["deferred_threads"], first["deferred_threads"]);
    assert_eq!(
        second["unresolved_actionable_remaining"], true,
        "{second:#}"
    );

    // Passed back, the person's thread alone is not an actionable finding left.
    let b = pr(|b| {
        b.thread(
            "HUMAN",
            "src/lib.rs",
            2,
            &[
                (bot("coderabbitai"), &suggestion("Unchecked unwrap")),
                (person("mei"), "let dana decide"),
            ],
        )
    })
    .await;
    let (_, result) = substep(&b, &["--apply", "--deferred", "HUMAN"]);
    assert_eq!(result["unresolved_actionable_remaining"], false);
}

/// Regression: on a merged or closed PR `--substep` printed nothing, and the orchestrator had
/// no result to read; it now gets the result of a run that did nothing, and why.
#[tokio::test(flavor = "multi_thread")]
async fn substep_on_a_merged_or_closed_pr_still_returns_the_result() {
    for (state, word) in [(PrState::Merged, "merged"), (PrState::Closed, "closed")] {
        let a = Attack::with_files(&[("src/lib.rs", CODE)]).await;
        let head = a.head();
        a.open_pr(|b| with_fix(b).with_pr(|p| p.state = state));
        let (out, result) = substep(&a, &["--apply", "--marker", "abc1234"]);
        assert_eq!(out.code, 0, "{}", out.stderr);
        assert!(out.stderr.is_empty(), "{}", out.stderr);
        assert_eq!(result["head_sha_in"], head.as_str());
        assert_eq!(result["new_head_sha"], head.as_str());
        assert_eq!(result["qa_swarm_marker_sha"], "abc1234");
        for count in ["resolved", "actioned", "promoted"] {
            assert_eq!(result[count], 0, "{result:#}");
        }
        assert_eq!(result["deferred_threads"], serde_json::json!([]));
        assert_eq!(result["unresolved_actionable_remaining"], false);
        assert_eq!(
            narration(&result).last().unwrap(),
            &format!("[triage] done — PR #1 is {word}; nothing to triage")
        );
        assert!(a.mutations().is_empty());
    }
}

// Item 9: narration as it happens.

/// Lines of a child's stderr as they come.
fn lines_of(child: &mut std::process::Child) -> mpsc::Receiver<String> {
    let stderr = child.stderr.take().unwrap();
    let (send, receive) = mpsc::channel();
    std::thread::spawn(move || {
        for line in std::io::BufReader::new(stderr).lines() {
            let Ok(line) = line else { break };
            if send.send(line).is_err() {
                break;
            }
        }
    });
    receive
}

/// Waits for a line containing every one of `parts`, keeping every line read in `seen`.
fn wait_for_line(lines: &mpsc::Receiver<String>, seen: &mut Vec<String>, parts: &[&str]) -> bool {
    let deadline = Instant::now() + Duration::from_secs(30);
    while let Some(left) = deadline.checked_duration_since(Instant::now()) {
        match lines.recv_timeout(left) {
            Ok(line) => {
                let found = parts.iter().all(|p| line.contains(p));
                seen.push(line);
                if found {
                    return true;
                }
            }
            Err(_) => return false,
        }
    }
    false
}

/// A script that writes `started`, waits for `release`, then runs `then`.
fn held(a: &Attack, name: &str, then: &str) -> String {
    let started = a.outside(&format!("{name}-started"));
    let release = a.outside(&format!("{name}-release"));
    a.sh(
        &format!("{name}.sh"),
        &format!(
            "cat > /dev/null\ntouch '{}'\nwhile [ ! -e '{}' ]; do sleep 0.02; done\n{then}\n",
            started.display(),
            release.display()
        ),
    )
}

/// Regression: "applying fix" lines came only after every fix was made, and the judge and the
/// fixer ran without a word: a long silent gap. Each judge call and each fix is now narrated
/// as it starts and as it ends, on stderr as it happens (and in that order in a sub-step's
/// narration).
#[tokio::test(flavor = "multi_thread")]
async fn narration_comes_as_each_judge_call_and_fix_starts_and_ends() {
    let a = pr(with_bug).await;
    let judge = held(
        &a,
        "judge",
        r#"echo '{"class": "actionable", "reason": "a clear, local defect"}'"#,
    );
    let fixer = held(&a, "fixer", SED_FIX);
    let mut child = a
        .command(
            &[
                "triage",
                "1",
                "--repo",
                "acme/widgets",
                "--apply",
                "--judge-cmd",
                &judge,
                "--fixer-cmd",
                &fixer,
            ],
            &[],
        )
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let lines = lines_of(&mut child);
    let mut seen = Vec::new();
    let release = |name: &str| std::fs::write(a.outside(&format!("{name}-release")), "").unwrap();

    // The judge and the fixer cannot end before their release: a line read before it was
    // written before they ended.
    let said = wait_for_line(&lines, &mut seen, &["asking the judge about thread BUG"]);
    release("judge");
    assert!(said, "{seen:#?}");
    let said = wait_for_line(&lines, &mut seen, &["applying fix for thread BUG"]);
    release("fixer");
    assert!(said, "{seen:#?}");
    assert!(
        !seen.iter().any(|l| l.contains("fixed thread BUG")),
        "{seen:#?}"
    );
    let status = child.wait().unwrap();
    seen.extend(lines.iter());
    assert!(status.success(), "{seen:#?}");
    assert!(a.outside("judge-started").exists() && a.outside("fixer-started").exists());
    let judge_asked = position(&seen, &["asking the judge about thread BUG"]);
    let judge_answered = position(&seen, &["the judge answered for thread BUG: actionable"]);
    let applying = position(&seen, &["applying fix for thread BUG (src/lib.rs)"]);
    let fixed = position(&seen, &["fixed thread BUG in "]);
    let done = position(&seen, &["[triage] done — "]);
    assert!(
        judge_asked < judge_answered
            && judge_answered < applying
            && applying < fixed
            && fixed < done,
        "{seen:#?}"
    );

    // A sub-step collects the same lines, in the same order.
    let b = pr(with_bug).await;
    let (out, result) = substep(
        &b,
        &[
            "--apply",
            "--judge-cmd",
            r#"cat > /dev/null; echo '{"class": "actionable", "reason": "a clear, local defect"}'"#,
            "--fixer-cmd",
            SED_FIX,
        ],
    );
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(out.stderr.is_empty(), "{}", out.stderr);
    let lines = narration(&result);
    let order = [
        position(&lines, &["asking the judge about thread BUG"]),
        position(&lines, &["the judge answered for thread BUG"]),
        position(&lines, &["applying fix for thread BUG"]),
        position(&lines, &["fixed thread BUG in "]),
        position(&lines, &["[triage] done — "]),
    ];
    assert!(order.windows(2).all(|w| w[0] < w[1]), "{lines:#?}");
}

// Item 10: narration and counts.

/// Regression: "resolving 1 threads without reply" was followed by `resolved=0`: the thread
/// resolved was outdated by its own fix, which counts as outdated. The narration now says what
/// is resolved under which count, and the report says it was resolved.
#[tokio::test(flavor = "multi_thread")]
async fn narration_and_counts_agree_when_a_thread_is_outdated_by_its_fix() {
    let a = pr(|b| with_fix(with_nit(b))).await;
    let (out, _) = a.apply(&[]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    // The user pushes; on GitHub the fixed thread is now outdated.
    a.push();
    let pushed = a.head();
    a.github.update_pull_request(&repo(), 1, |pr| {
        pr.head_sha.0.clone_from(&pushed);
        for t in &mut pr.threads {
            t.is_outdated = t.id.0 == "FIX";
        }
    });
    let out = a.on_pr("triage", &["--apply"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    // Before its first write, the run names the account it writes as.
    let named = out
        .stderr
        .find("[triage] step 1 — writes go out as @")
        .expect("the account is named");
    assert!(
        named < out.stderr.find("[triage] step 4").unwrap(),
        "{}",
        out.stderr
    );
    assert!(
        out.stderr.contains(
            "[triage] step 4 — resolving 1 thread without reply: 1 outdated by its own fix (counted as outdated)"
        ),
        "{}",
        out.stderr
    );
    assert!(
        out.stderr
            .contains("resolved=0 actioned=0 promoted=0 deferred=0 outdated=1"),
        "{}",
        out.stderr
    );
    assert!(
        out.stdout.contains(
            "OUTDATED (1) — the code changed since; those outdated by their own fix were resolved"
        ),
        "{}",
        out.stdout
    );
    assert!(
        out.stdout.contains("which is on the PR; resolved\n"),
        "{}",
        out.stdout
    );
    assert!(
        a.mutations()
            .contains(&review_test_support::Mutation::Resolve("FIX".into()))
    );
}

/// Regression: a run whose only change was pushing an earlier run's fix (and resolving its
/// thread) printed "plan only, nothing changed", and its report said `applied: false`.
#[tokio::test(flavor = "multi_thread")]
async fn a_push_only_run_says_what_it_changed() {
    let a = pr(with_fix).await;
    let (out, _) = a.apply(&[]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let out = pushes_move_the_head(&a, || a.on_pr("triage", &["--apply", "--push"]));
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert_eq!(remote_head(&a), a.head(), "the earlier fix is pushed");
    assert!(out.stdout.contains("(changes applied)"), "{}", out.stdout);
    assert!(!out.stdout.contains("plan only"), "{}", out.stdout);
    assert!(
        out.stdout.contains("fixed in ") && out.stdout.contains(", pushed; resolved"),
        "{}",
        out.stdout
    );

    // Run again: nothing is left to do, and an --apply run does not call itself a plan.
    let out = a.on_pr("triage", &["--apply"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(
        out.stdout.contains(" (nothing changed)\n"),
        "{}",
        out.stdout
    );
}

// Item 11: smaller ones.

/// A doc whose name is not ASCII (which git quotes unless told `-z`) is still a doc: a change to
/// it alone does not run the reviewer again. (The pre-review already read names with `-z`.)
#[tokio::test(flavor = "multi_thread")]
async fn a_doc_with_a_non_ascii_name_needs_no_new_pre_review() {
    let a = pr(with_nit).await;
    let runs = a.outside("reviews");
    let reviewer = a.sh(
        "reviewer.sh",
        &format!("cat > /dev/null; echo run >> '{}'", runs.display()),
    );
    let out = a.on_pr("triage", &["--apply", "--reviewer-cmd", &reviewer]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert_eq!(std::fs::read_to_string(&runs).unwrap(), "run\n");

    a.commit_files(
        &[
            ("docs/café notes.md", "déjà vu\n"),
            ("Ünïcode \"quoted\".TXT", "naïve\n"),
        ],
        "docs",
    );
    a.push();
    a.move_pr_head(&a.head());
    let out = a.on_pr("triage", &["--apply", "--reviewer-cmd", &reviewer]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(
        out.stderr
            .contains("[triage] step 2 — skip pre-review, only doc-only changes since"),
        "{}",
        out.stderr
    );
    assert_eq!(std::fs::read_to_string(&runs).unwrap(), "run\n");
}

/// Regression: --skip-pre-review on a first pass said "although the first pass".
#[tokio::test(flavor = "multi_thread")]
async fn skip_pre_review_on_a_first_pass_says_so_in_plain_words() {
    let b = pr(with_nit).await;
    let reviewer = b.sh("reviewer.sh", "cat > /dev/null");
    let out = b.on_pr(
        "triage",
        &["--apply", "--reviewer-cmd", &reviewer, "--skip-pre-review"],
    );
    assert!(
        out.stderr.contains(
            "[triage] step 2 — pre-review skipped by --skip-pre-review, although this is the first pass"
        ),
        "{}",
        out.stderr
    );
}

/// The "approval dismissed" notice is a protocol signal between tools, not a review thread: it
/// is left alone and counted as deferred (every thread read has an outcome), but it needs no
/// person: it is not in `--exit-code`'s threads, not actionable, not among the threads a person
/// must answer nor in `deferred_threads`, and the narration names it.
#[tokio::test(flavor = "multi_thread")]
async fn a_protocol_signal_needs_no_person() {
    let signal = "Stamphog approval dismissed: new commits were pushed.";
    let a = pr(|b| b.thread("SIGNAL", "src/lib.rs", 1, &[(bot("stamphog"), signal)])).await;
    let args = ["--protocol-signal", "approval dismissed", "--exit-code"];
    let (out, report) = a.apply(&args);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let t = entry(&report, "SIGNAL");
    assert_eq!(t.outcome, Outcome::Deferred);
    assert_eq!(t.deferred_because, Some(DeferReason::ProtocolSignal));
    assert_eq!(
        report.counts.deferred, 1,
        "every thread read has an outcome"
    );
    assert!(!report.unresolved_actionable_remaining);
    assert!(
        out.stderr.contains(
            "[triage] step 3 — 1 bot thread: 0 actionable, 0 nit, 0 ambiguous (0 promoted by the ladder), 0 duplicates, 1 protocol signal left alone"
        ),
        "{}",
        out.stderr
    );
    assert!(
        out.stderr
            .contains("[triage] step 4 — 0 threads with human participation deferred untouched"),
        "{}",
        out.stderr
    );
    assert!(a.mutations().is_empty());

    let (out, result) = substep(&a, &[&["--apply"], &args[..]].concat());
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert_eq!(result["deferred_threads"], serde_json::json!([]));
    assert_eq!(result["unresolved_actionable_remaining"], false);

    // Beside a person's thread, --exit-code counts the person's thread alone.
    let b = pr(|b| {
        b.thread("SIGNAL", "src/lib.rs", 1, &[(bot("stamphog"), signal)])
            .thread("HUMAN", "src/lib.rs", 2, &[(person("mei"), "why?")])
    })
    .await;
    let out = b.on_pr("triage", &[&["--apply"], &args[..]].concat());
    assert_eq!(out.code, 7, "{}", out.stderr);
    assert!(
        out.stderr
            .contains("deferred=2 (1 human, 1 protocol signal)"),
        "{}",
        out.stderr
    );
}

/// Regression: counts of one were written "1 threads".
#[tokio::test(flavor = "multi_thread")]
async fn counts_of_one_are_singular() {
    let a = pr(with_nit).await;
    let out = a.on_pr("triage", &[]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    for line in [
        " in 1 request (1 point)\n",
        "[triage] step 1 — read 1 thread at ",
        "[triage] step 3 — 1 unresolved current thread on PR #1 (0 outdated set aside)",
        "[triage] step 3 — 1 bot thread: 0 actionable, 1 nit, 0 ambiguous",
    ] {
        assert!(out.stderr.contains(line), "{line}\n{}", out.stderr);
    }
    assert!(!out.stderr.contains(" 1 threads"), "{}", out.stderr);
    assert!(
        out.stdout.contains("\n1 thread: resolved=1"),
        "{}",
        out.stdout
    );

    let out = a.on_pr("triage", &["--apply"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(
        out.stderr
            .contains("[triage] step 4 — resolving 1 thread without reply\n"),
        "{}",
        out.stderr
    );
    assert!(!out.stderr.contains(" 1 threads"), "{}", out.stderr);
}
