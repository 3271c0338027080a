//! `review loop` on a real clone: a new bot finding on a line the loop's own round commit wrote
//! (as `git blame` at HEAD tells) is a knock-on, announced as a `KNOCK_ON` event line and
//! recorded in the decisions; one on a line of someone else's is not.

use review_test_support::{PrBuilder, bot};

use crate::attack_harness::{Attack, repo};
use crate::common::git_out;

fn cache_rs() -> String {
    let mut text = "let alpha = 1;\n".to_owned();
    for i in 2..10 {
        text.push_str(&format!("// line {i}\n"));
    }
    text
}

/// One poll of the loop: VALID for `ALPHA` (the fixer changes line 1), FALSE_POSITIVE for any
/// other thread.
fn loop_once(a: &Attack) -> crate::common::Output {
    let judge = a.sh(
        "judge.sh",
        r#"input=$(cat)
case "$input" in
  *'"threadId":"ALPHA"'*) echo '{"verdict":"VALID","reasoning":"alpha starts at two","evidence":["src/cache.rs:1"],"fixSketch":"start at two"}' ;;
  *) echo '{"verdict":"FALSE_POSITIVE","reasoning":"the value is intended","evidence":["src/cache.rs:1"]}' ;;
esac"#,
    );
    let fixer = a.sh(
        "fix.sh",
        "cat > /dev/null; sed -i 's/^let alpha = 1;/let alpha = 2;/' src/cache.rs",
    );
    a.on_pr(
        "loop",
        &[
            "--judge-cmd",
            &judge,
            "--fixer-cmd",
            &fixer,
            "--check-cmd",
            "true",
            "--interval",
            "0",
            "--max-polls",
            "1",
        ],
    )
}

#[tokio::test(flavor = "multi_thread")]
async fn a_finding_on_a_line_the_loop_wrote_is_a_knock_on() {
    let a = Attack::with_files(&[("src/cache.rs", &cache_rs())]).await;
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
    });
    let first = loop_once(&a);
    assert_eq!(first.code, 0, "{}", first.stderr);
    assert!(!first.stdout.contains("KNOCK_ON"), "{}", first.stdout);
    let fix = git_out(&a.work, &["rev-parse", "--short=7", "HEAD"]);
    assert!(
        git_out(&a.work, &["log", "-1", "--format=%B"]).contains("Review-Thread: ALPHA"),
        "the round committed"
    );

    // The user pushes; the bot reviews the fix: one finding on the line the fix wrote, one on
    // a line it did not.
    a.move_pr_head(&a.head());
    let new = PrBuilder::new()
        .thread(
            "AGAIN",
            "src/cache.rs",
            1,
            &[(
                bot("coderabbitai"),
                "**Two is out of range.** The table has two entries.",
            )],
        )
        .thread(
            "ELSE",
            "src/cache.rs",
            5,
            &[(
                bot("coderabbitai"),
                "**Stale comment.** Line five says nothing.",
            )],
        )
        .build()
        .threads;
    a.github
        .update_pull_request(&repo(), 1, |pr| pr.threads.extend(new));
    let second = loop_once(&a);
    assert_eq!(second.code, 0, "{}", second.stderr);

    let events: Vec<serde_json::Value> = second
        .stdout
        .lines()
        .map(|l| serde_json::from_str(l).expect("an event line"))
        .filter(|e: &serde_json::Value| e["event"] == "KNOCK_ON")
        .collect();
    assert_eq!(events.len(), 1, "{}", second.stdout);
    assert_eq!(events[0]["items"], serde_json::json!(["AGAIN", fix]));
    assert!(
        second.stderr.contains(&format!(
            "[loop] KNOCK_ON AGAIN: src/cache.rs:1 is a line of the round-1 fix {fix} (1 of 3 before the loop stops fixing the file)"
        )),
        "{}",
        second.stderr
    );
    let d = a.decisions();
    assert_eq!(d.knock_ons.len(), 1, "{:?}", d.knock_ons);
    let k = &d.knock_ons[0];
    assert_eq!(
        (
            k.thread_id.as_str(),
            k.path.as_str(),
            k.line,
            k.commit.as_str(),
            k.round
        ),
        ("AGAIN", "src/cache.rs", 1, fix.as_str(), 1)
    );
}
