//! The follow-up form in a real browser: headless Chromium, driven through the DevTools protocol
//! over a pipe (`--remote-debugging-pipe`: JSON messages ended by a NUL byte, read by the browser
//! on its fd 3 and written on its fd 4), against the form's own server, which the library exposes
//! to this test (`review_cli::form_test_support`).
//!
//! Without a Chromium on PATH (or at `REVIEW_BROWSER`) the tests pass with a note, unless
//! `REVIEW_REQUIRE_BROWSER=1` (CI) makes that a failure. `REVIEW_SCREENSHOT=1` also renders the
//! picture of the form in `docs/images/followup-form.png`.

use std::collections::BTreeMap;
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use review_core::followup::form::{
    ChosenAction, FormAnswers, FormGroup, FormIssue, FormPage, FormStatus, FormSuggestion,
    IssueAnswer,
};
use serde_json::{Value, json};

use review_cli::form_test_support::{FormError, FormServer, FormTimings};

use crate::common::workspace_root;

/// How long one DevTools call or one wait in the page may take.
const PATIENCE: Duration = Duration::from_secs(90);

/// The browser to drive, or `None` (with a note) when there is none and none is required.
#[allow(
    clippy::print_stderr,
    reason = "the note that says the test was skipped"
)]
fn browser_or_skip(test: &str) -> Option<PathBuf> {
    if let Some(path) = find_browser() {
        return Some(path);
    }
    assert!(
        std::env::var("REVIEW_REQUIRE_BROWSER").as_deref() != Ok("1"),
        "REVIEW_REQUIRE_BROWSER=1 but no chromium is on PATH (install Debian's `chromium`)"
    );
    eprintln!(
        "note: {test} skipped: no chromium on PATH (set REVIEW_BROWSER to a Chromium binary)"
    );
    None
}

/// A Chromium binary: `REVIEW_BROWSER`, else the first known name on PATH.
fn find_browser() -> Option<PathBuf> {
    if let Some(path) = std::env::var_os("REVIEW_BROWSER").filter(|path| !path.is_empty()) {
        return Some(PathBuf::from(path));
    }
    let names = [
        "chromium",
        "chromium-browser",
        "google-chrome",
        "google-chrome-stable",
        "chrome",
    ];
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .flat_map(|dir| names.iter().map(move |name| dir.join(name)))
        .find(|candidate| candidate.is_file())
}

/// A headless Chromium and its DevTools pipe.
struct Browser {
    /// The browser process.
    child: Child,
    /// Commands to the browser (its fd 3).
    commands: ChildStdin,
    /// Answers and events from the browser (its fd 4), read on a thread.
    messages: mpsc::Receiver<Value>,
    /// The id of the next command.
    next_id: u64,
    /// The browser's profile, removed afterwards.
    _profile: tempfile::TempDir,
}

impl Browser {
    /// Starts `path` headless with a fresh profile.
    fn launch(path: &Path) -> Self {
        let profile = tempfile::tempdir().unwrap();
        // The shell hands the browser our pipes as its fds 3 and 4.
        let mut child = Command::new("sh")
            .arg("-c")
            .arg(r#"exec "$0" "$@" 3<&0 4>&1 </dev/null >/dev/null"#)
            .arg(path)
            .args([
                "--headless=new",
                "--remote-debugging-pipe",
                "--no-sandbox",
                "--disable-gpu",
                "--disable-dev-shm-usage",
                "--disable-extensions",
                "--disable-background-networking",
                "--disable-component-update",
                "--disable-default-apps",
                "--disable-sync",
                "--no-first-run",
                "--no-default-browser-check",
                "--mute-audio",
                "--hide-scrollbars",
                "--window-size=1200,900",
            ])
            .arg(format!("--user-data-dir={}", profile.path().display()))
            .arg("about:blank")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let commands = child.stdin.take().unwrap();
        let mut output = BufReader::new(child.stdout.take().unwrap());
        let (sender, messages) = mpsc::channel();
        std::thread::spawn(move || {
            let mut message = Vec::new();
            while output.read_until(0, &mut message).is_ok_and(|n| n > 0) {
                if message.last() == Some(&0) {
                    message.pop();
                }
                let Ok(value) = serde_json::from_slice::<Value>(&message) else {
                    break;
                };
                if sender.send(value).is_err() {
                    break;
                }
                message.clear();
            }
        });
        Self {
            child,
            commands,
            messages,
            next_id: 1,
            _profile: profile,
        }
    }

    /// Sends `method` (to the page of `session`, if any) and returns its result.
    fn call(&mut self, session: Option<&str>, method: &str, params: &Value) -> Value {
        let id = self.next_id;
        self.next_id += 1;
        let mut message = json!({ "id": id, "method": method, "params": params });
        if let Some(session) = session {
            message["sessionId"] = json!(session);
        }
        let mut bytes = serde_json::to_vec(&message).unwrap();
        bytes.push(0);
        self.commands.write_all(&bytes).unwrap();
        self.commands.flush().unwrap();
        let deadline = Instant::now() + PATIENCE;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            let message = self
                .messages
                .recv_timeout(left)
                .unwrap_or_else(|e| panic!("no answer to {method}: {e}"));
            if message["id"] == json!(id) {
                assert!(message.get("error").is_none(), "{method} failed: {message}");
                return message["result"].clone();
            }
        }
    }

    /// Opens `url` in a new tab and waits until it is loaded.
    fn open(&mut self, url: &str) -> Tab {
        let target = self.call(
            None,
            "Target.createTarget",
            &json!({ "url": "about:blank" }),
        );
        let target_id = target["targetId"].as_str().unwrap().to_owned();
        let attached = self.call(
            None,
            "Target.attachToTarget",
            &json!({ "targetId": target_id, "flatten": true }),
        );
        let tab = Tab {
            target_id,
            session: attached["sessionId"].as_str().unwrap().to_owned(),
        };
        self.call(Some(&tab.session), "Page.navigate", &json!({ "url": url }));
        self.wait_for(
            &tab,
            "location.href !== 'about:blank' && document.readyState === 'complete'",
        );
        tab
    }

    /// The value of the JavaScript `expression` in `tab`.
    fn eval(&mut self, tab: &Tab, expression: &str) -> Value {
        let result = self.call(
            Some(&tab.session),
            "Runtime.evaluate",
            &json!({ "expression": expression, "returnByValue": true, "awaitPromise": true }),
        );
        assert!(
            result.get("exceptionDetails").is_none(),
            "{expression} threw: {result}"
        );
        result["result"]["value"].clone()
    }

    /// Waits until `condition` holds in `tab`.
    fn wait_for(&mut self, tab: &Tab, condition: &str) {
        let deadline = Instant::now() + PATIENCE;
        while self.eval(tab, &format!("!!({condition})")) != json!(true) {
            assert!(Instant::now() < deadline, "never true: {condition}");
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    /// Clicks the middle of the element `selector`, with the mouse, as a person would.
    fn click(&mut self, tab: &Tab, selector: &str) {
        let selector = serde_json::to_string(selector).unwrap();
        let point = self.eval(
            tab,
            &format!(
                "(() => {{ const el = document.querySelector({selector});
                 el.scrollIntoView({{ block: 'center' }});
                 const r = el.getBoundingClientRect();
                 return {{ x: r.left + r.width / 2, y: r.top + r.height / 2 }}; }})()"
            ),
        );
        for kind in ["mousePressed", "mouseReleased"] {
            self.call(
                Some(&tab.session),
                "Input.dispatchMouseEvent",
                &json!({ "type": kind, "x": point["x"], "y": point["y"], "button": "left", "clickCount": 1 }),
            );
        }
    }

    /// Clicks into the element `selector` and types `text`.
    fn type_into(&mut self, tab: &Tab, selector: &str, text: &str) {
        self.click(tab, selector);
        self.call(
            Some(&tab.session),
            "Input.insertText",
            &json!({ "text": text }),
        );
    }

    /// Closes `tab` as a person closes a tab.
    fn close(&mut self, tab: &Tab) {
        self.call(
            None,
            "Target.closeTarget",
            &json!({ "targetId": tab.target_id }),
        );
    }
}

impl Drop for Browser {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// One page of the browser.
#[derive(Debug)]
struct Tab {
    /// The page's target.
    target_id: String,
    /// The DevTools session attached to it.
    session: String,
}

/// Runs the form's server for `page` on its own runtime.
struct Served {
    /// The runtime the server runs on.
    runtime: tokio::runtime::Runtime,
    /// The page's URL.
    url: String,
    /// The form's outcome, once it ends.
    outcome: tokio::task::JoinHandle<Result<FormAnswers, FormError>>,
}

impl Served {
    /// Starts serving `page`.
    fn start(page: &FormPage, previous: Option<&FormAnswers>, timings: FormTimings) -> Self {
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(1)
            .enable_all()
            .build()
            .unwrap();
        let server = runtime
            .block_on(FormServer::bind(page, previous, timings))
            .unwrap();
        let url = server.url().to_owned();
        let outcome = runtime.spawn(server.wait());
        Self {
            runtime,
            url,
            outcome,
        }
    }

    /// The form's outcome, which must come within `limit`.
    fn outcome(self, limit: Duration) -> FormAnswers {
        let outcome = self.outcome;
        self.runtime
            .block_on(async { tokio::time::timeout(limit, outcome).await })
            .expect("the form ends in time")
            .unwrap()
            .unwrap()
    }
}

/// Timings short enough for a test. The grace after a goodbye is shorter than the heartbeat,
/// so only the page's load number keeps a reload from closing the form.
fn quick() -> FormTimings {
    FormTimings {
        heartbeat: Duration::from_millis(400),
        silence: Duration::from_secs(20),
        reload_grace: Duration::from_millis(150),
    }
}

/// A thread by `reviewer`.
fn issue(thread_id: &str, number: usize, reviewer: &str, comment: &str) -> FormIssue {
    FormIssue {
        thread_id: thread_id.to_owned(),
        number,
        reviewer: reviewer.to_owned(),
        location: format!("src/widget_{number}.rs:{}", number * 7),
        url: format!(
            "https://github.com/acme/widgets/pull/482#discussion_r{}",
            1000 + number
        ),
        outdated: number.is_multiple_of(9),
        comment: comment.to_owned(),
        original: comment.to_owned(),
        diff_hunk: Some(format!(
            "@@ -{number},3 +{number},3 @@ fn widget()\n let a = 1;\n-let b = a * 2;\n+let b = a << 1;"
        )),
        summary: format!("Finding {number}"),
        severity: "minor".to_owned(),
        suggestion: FormSuggestion {
            asks: "A small change".to_owned(),
            pros: vec!["clearer".to_owned()],
            cons: vec!["churn".to_owned()],
            action: ChosenAction::Fix,
            reasoning: "Cheap and safe".to_owned(),
        },
        cluster: None,
    }
}

/// The script that would prove the page unsafe if it ever ran.
const HOSTILE: &str = "<script>window.pwned = true; document.title = 'pwned';</script>\
                       <img src=x onerror=\"window.pwned = true\">";

/// A body that would redraw a terminal line and reorder the page if shown as it is.
const REORDERING: &str = "LGTM\u{1b}[2K\r from @alice \u{202e}!won ti xif";

/// 40 threads over 4 review groups; thread `T7` carries a hostile body, `T8` control and
/// bidirectional formatting characters.
fn forty_threads(timeout_secs: u64) -> FormPage {
    let reviewers = [
        "coderabbitai",
        "copilot-pull-request-reviewer",
        "alice",
        "bob",
    ];
    let groups = reviewers
        .iter()
        .enumerate()
        .map(|(g, reviewer)| FormGroup {
            id: format!("PRR_{g}"),
            reviewer: (*reviewer).to_owned(),
            submitted_at: Some(format!("2025-06-0{}T10:00:00Z", g + 1)),
            issues: (1..=10)
                .map(|i| {
                    let number = g * 10 + i;
                    let comment = if number == 7 {
                        HOSTILE.to_owned()
                    } else if number == 8 {
                        REORDERING.to_owned()
                    } else {
                        format!("Comment {number}: please look at this.")
                    };
                    issue(&format!("T{number}"), number, reviewer, &comment)
                })
                .collect(),
        })
        .collect();
    FormPage {
        title: "PR Review Triage — #482".to_owned(),
        pr_number: 482,
        pr_title: "Widgets: faster rendering".to_owned(),
        pr_url: "https://github.com/acme/widgets/pull/482".to_owned(),
        summary: "40 unresolved threads.".to_owned(),
        groups,
        timeout_secs,
    }
}

#[test]
fn form_in_a_real_browser_renders_every_thread_inertly_and_submits() {
    let Some(chromium) = browser_or_skip("form_in_a_real_browser") else {
        return;
    };
    let started = Instant::now();
    let mut browser = Browser::launch(&chromium);
    let served = Served::start(&forty_threads(600), None, quick());
    let tab = browser.open(&served.url);

    // Every thread is there, and the page's own script ran (it fills in the closing time).
    assert_eq!(
        browser.eval(&tab, "document.querySelectorAll('textarea').length"),
        json!(40)
    );
    assert_eq!(
        browser.eval(&tab, "document.querySelectorAll('article.issue').length"),
        json!(40)
    );
    browser.wait_for(
        &tab,
        "document.getElementById('closes').textContent.startsWith('Open until')",
    );

    // The hostile body is text on the page, not code.
    assert_eq!(
        browser.eval(&tab, "typeof window.pwned"),
        json!("undefined")
    );
    assert_eq!(
        browser.eval(&tab, "document.title"),
        json!("PR Review Triage — #482")
    );
    assert_eq!(
        browser.eval(
            &tab,
            "document.querySelectorAll('main script, main img').length"
        ),
        json!(0)
    );
    let shown = browser.eval(
        &tab,
        "document.querySelector('article[data-thread=\"T7\"] .comment').textContent",
    );
    assert_eq!(shown, json!(HOSTILE));
    // Control and bidirectional formatting characters show as escapes: nothing is reordered.
    let shown = browser.eval(
        &tab,
        "document.querySelector('article[data-thread=\"T8\"] .comment').textContent",
    );
    assert_eq!(
        shown,
        json!("LGTM\\u{1b}[2K\\u{d} from @alice \\u{202e}!won ti xif")
    );

    // Answer two threads and hide one group, as a person would.
    browser.type_into(
        &tab,
        "article[data-thread=\"T3\"] textarea",
        "Use the constant from config.rs",
    );
    browser.type_into(
        &tab,
        "article[data-thread=\"T28\"] textarea",
        "Reply: this is intended <b>&</b>",
    );
    browser.click(
        &tab,
        "article[data-thread=\"T28\"] input[data-role=\"auto\"]",
    );
    // A reload keeps what was typed (the heartbeat saved it) and the form open.
    std::thread::sleep(quick().heartbeat * 3);
    browser.eval(&tab, "location.reload()");
    browser.wait_for(
        &tab,
        "document.readyState === 'complete' && document.querySelectorAll('textarea').length === 40",
    );
    std::thread::sleep(quick().reload_grace * 2);
    assert!(
        !served.outcome.is_finished(),
        "the reloaded page's goodbye does not close the form"
    );
    assert_eq!(
        browser.eval(
            &tab,
            "document.querySelector('article[data-thread=\"T3\"] textarea').value"
        ),
        json!("Use the constant from config.rs")
    );
    assert_eq!(
        browser.eval(&tab, "document.querySelector('article[data-thread=\"T28\"] input[data-role=\"auto\"]').checked"),
        json!(true)
    );
    browser.eval(
        &tab,
        "(() => { const s = document.querySelector('article[data-thread=\"T28\"] select'); \
         s.value = 'reply'; s.dispatchEvent(new Event('change')); })()",
    );
    browser.click(
        &tab,
        "section[data-group=\"PRR_2\"] input[data-role=\"hide\"]",
    );
    browser.click(&tab, "#submit");
    browser.wait_for(
        &tab,
        "!document.getElementById('done').hidden && \
         document.getElementById('done').textContent === 'Submitted \u{2014} you can close this tab'",
    );
    let answers = served.outcome(PATIENCE);
    let result = serde_json::to_value(&answers).unwrap();
    assert_eq!(result["status"], json!("submitted"));
    assert_eq!(
        result["issues"]["T3"],
        json!({ "instruction": "Use the constant from config.rs", "autoResolve": false, "action": "auto" })
    );
    assert_eq!(
        result["issues"]["T28"],
        json!({ "instruction": "Reply: this is intended <b>&</b>", "autoResolve": true, "action": "reply" })
    );
    assert_eq!(answers.issues.len(), 40);
    let changed: Vec<&String> = answers
        .issues
        .iter()
        .filter(|(_, answer)| **answer != IssueAnswer::default())
        .map(|(id, _)| id)
        .collect();
    assert_eq!(changed, ["T28", "T3"], "only the answered threads changed");
    assert_eq!(result["groups"]["PRR_2"], json!({ "hide": true }));
    assert_eq!(
        answers.groups.values().filter(|group| group.hide).count(),
        1
    );

    // Cancel.
    let served = Served::start(&forty_threads(600), None, quick());
    let tab = browser.open(&served.url);
    browser.click(&tab, "#cancel");
    browser.wait_for(
        &tab,
        "document.getElementById('done').textContent === 'Cancelled \u{2014} you can close this tab'",
    );
    assert_eq!(served.outcome(PATIENCE).status, FormStatus::Cancelled);

    // The tab is closed: the page says so as it goes.
    let served = Served::start(&forty_threads(600), None, quick());
    let tab = browser.open(&served.url);
    let closing = Instant::now();
    browser.close(&tab);
    assert_eq!(served.outcome(PATIENCE).status, FormStatus::Closed);
    assert!(
        closing.elapsed() < quick().silence,
        "the closing beacon, not the silence, ended it"
    );

    // Nobody answers in time, with the page open.
    let served = Served::start(&forty_threads(2), None, quick());
    let _tab = browser.open(&served.url);
    assert_eq!(served.outcome(PATIENCE).status, FormStatus::Timeout);
    eprintln!("form_in_a_real_browser: {:.1?}", started.elapsed());
}

/// A realistic pull request: eight threads from CodeRabbit, Copilot and a person.
fn realistic_page() -> FormPage {
    let hunk = |path_line: &str, old: &str, new: &str| {
        Some(format!(
            "@@ -{path_line} @@\n     let config = load()?;\n-    {old}\n+    {new}"
        ))
    };
    let thread =
        |n: usize, reviewer: &str, location: &str, summary: &str, comment: &str| FormIssue {
            thread_id: format!("PRRT_kwDOA{n:02}"),
            number: n,
            reviewer: reviewer.to_owned(),
            location: location.to_owned(),
            url: format!("https://github.com/acme/widgets/pull/482#discussion_r18{n:02}4431"),
            outdated: false,
            comment: comment.to_owned(),
            original: comment.to_owned(),
            diff_hunk: None,
            summary: summary.to_owned(),
            severity: "minor".to_owned(),
            suggestion: FormSuggestion {
                asks: summary.to_owned(),
                pros: vec![],
                cons: vec![],
                action: ChosenAction::Fix,
                reasoning: String::new(),
            },
            cluster: None,
        };
    let mut rabbit = vec![
        thread(
            1,
            "coderabbitai",
            "src/cache.rs:88",
            "The cache is never invalidated when the config changes",
            "⚠️ Potential issue\n\nThe cache key ignores `config.version`, so a reloaded \
             configuration keeps serving stale widgets until the process restarts. Include the \
             version in the key.",
        ),
        thread(
            2,
            "coderabbitai",
            "src/render.rs:142",
            "Avoid unwrap on user input",
            "`parse_size(input).unwrap()` panics on a malformed size from the query string. \
             Return a 400 instead.",
        ),
        thread(
            3,
            "coderabbitai",
            "src/render.rs:201",
            "Avoid unwrap on user input",
            "Same as above: `parse_color(input).unwrap()` can panic on user input.",
        ),
        thread(
            4,
            "coderabbitai",
            "src/lib.rs:12",
            "Nit: module docs",
            "Nitpick\n\nThe module lacks a doc comment describing the rendering pipeline.",
        ),
    ];
    rabbit[0].severity = "major".to_owned();
    rabbit[0].diff_hunk = hunk(
        "80,6 +80,7",
        "let key = widget.id;",
        "let key = (widget.id, config.shard);",
    );
    rabbit[0].suggestion = FormSuggestion {
        asks: "Add the configuration's version to the cache key.".to_owned(),
        pros: vec![
            "Stale widgets after a reload are a real bug".to_owned(),
            "A one-line change".to_owned(),
        ],
        cons: vec!["Invalidates the whole cache on every reload".to_owned()],
        action: ChosenAction::Fix,
        reasoning: "The reviewer is right and the fix is small.".to_owned(),
    };
    rabbit[1].cluster = Some("A".to_owned());
    rabbit[2].cluster = Some("A".to_owned());
    rabbit[3].severity = "nit".to_owned();
    rabbit[3].outdated = true;
    rabbit[3].suggestion.action = ChosenAction::Skip;
    let mut copilot = vec![
        thread(
            5,
            "copilot-pull-request-reviewer",
            "src/render.rs:77",
            "Off-by-one in the row loop",
            "The loop `for i in 0..=rows` renders one row past the end of the buffer.",
        ),
        thread(
            6,
            "copilot-pull-request-reviewer",
            "README.md:40",
            "Typo in the README",
            "\"recieve\" should be \"receive\".",
        ),
    ];
    copilot[0].severity = "major".to_owned();
    copilot[0].diff_hunk = hunk("70,6 +70,6", "for i in 0..rows {", "for i in 0..=rows {");
    let mut person = vec![
        thread(
            7,
            "maria-k",
            "src/cache.rs:30",
            "Why a Mutex here?",
            "Why a `Mutex` rather than an `RwLock`? Reads dominate here.",
        ),
        thread(
            8,
            "maria-k",
            "general comment",
            "Benchmarks?",
            "Do you have numbers for the speed-up? The PR title promises faster rendering.",
        ),
    ];
    person[0].severity = "none".to_owned();
    person[1].severity = "none".to_owned();
    copilot[1].severity = "nit".to_owned();
    person[0].suggestion.action = ChosenAction::Reply;
    person[1].suggestion.action = ChosenAction::Reply;
    person[1].url = "https://github.com/acme/widgets/pull/482#issuecomment-2871".to_owned();
    FormPage {
        title: "PR Review Triage — #482".to_owned(),
        pr_number: 482,
        pr_title: "Widgets: faster rendering".to_owned(),
        pr_url: "https://github.com/acme/widgets/pull/482".to_owned(),
        summary: "\
| #   | reviewer     | where            | what                                     |
|-----|--------------|------------------|------------------------------------------|
| 1   | coderabbitai | src/cache.rs:88  | The cache is never invalidated (major)   |
| 2-3 | coderabbitai | src/render.rs    | Avoid unwrap on user input (cluster A)   |
| 4   | coderabbitai | src/lib.rs:12    | Nit: module docs (outdated)              |
| 5   | copilot      | src/render.rs:77 | Off-by-one in the row loop (major)       |
| 6   | copilot      | README.md:40     | Typo in the README                       |
| 7-8 | maria-k      | src/cache.rs, PR | Questions: Mutex or RwLock, benchmarks   |"
            .to_owned(),
        groups: vec![
            FormGroup {
                id: "PRR_kwDOAcode".to_owned(),
                reviewer: "coderabbitai".to_owned(),
                submitted_at: Some("2025-06-02T09:14:03Z".to_owned()),
                issues: rabbit,
            },
            FormGroup {
                id: "PRR_kwDOAcopi".to_owned(),
                reviewer: "copilot-pull-request-reviewer".to_owned(),
                submitted_at: Some("2025-06-02T09:20:41Z".to_owned()),
                issues: copilot,
            },
            FormGroup {
                id: "PRR_kwDOAmari".to_owned(),
                reviewer: "maria-k".to_owned(),
                submitted_at: Some("2025-06-02T11:02:57Z".to_owned()),
                issues: person,
            },
        ],
        timeout_secs: 1440,
    }
}

#[test]
fn form_screenshot() {
    if std::env::var("REVIEW_SCREENSHOT").as_deref() != Ok("1") {
        return;
    }
    let Some(chromium) = browser_or_skip("form_screenshot") else {
        return;
    };
    let page = realistic_page();
    let previous = FormAnswers {
        status: FormStatus::Submitted,
        issues: BTreeMap::from([
            (
                "PRRT_kwDOA01".to_owned(),
                IssueAnswer {
                    instruction: "Fix it: key the cache on (widget id, config version).".to_owned(),
                    auto_resolve: true,
                    action: ChosenAction::Fix,
                },
            ),
            (
                "PRRT_kwDOA02".to_owned(),
                IssueAnswer {
                    instruction: "Return 400 Bad Request on a malformed value; same for both."
                        .to_owned(),
                    auto_resolve: true,
                    action: ChosenAction::Fix,
                },
            ),
        ]),
        groups: BTreeMap::new(),
    };
    let mut browser = Browser::launch(&chromium);
    let served = Served::start(&page, Some(&previous), quick());
    let tab = browser.open(&served.url);
    browser.eval(
        &tab,
        "document.querySelector('article[data-thread=\"PRRT_kwDOA01\"] details.suggestion').open = true",
    );
    browser.eval(
        &tab,
        "document.querySelector('article[data-thread=\"PRRT_kwDOA05\"] details:not(.suggestion)').open = true",
    );
    // The whole page in one picture: a viewport as tall as the page.
    let metrics = |height: &Value| json!({ "width": 1100, "height": height, "deviceScaleFactor": 1, "mobile": false });
    browser.call(
        Some(&tab.session),
        "Emulation.setDeviceMetricsOverride",
        &metrics(&json!(900)),
    );
    let height = browser.eval(&tab, "document.documentElement.scrollHeight");
    browser.call(
        Some(&tab.session),
        "Emulation.setDeviceMetricsOverride",
        &metrics(&height),
    );
    browser.eval(&tab, "window.scrollTo(0, 0)");
    let shot = browser.call(
        Some(&tab.session),
        "Page.captureScreenshot",
        &json!({ "format": "png" }),
    );
    let png = base64_decode(shot["data"].as_str().unwrap());
    assert!(png.starts_with(b"\x89PNG"));
    let path = workspace_root().join("docs/images/followup-form.png");
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(&path, png).unwrap();
    eprintln!("wrote {}", path.display());
    browser.click(&tab, "#cancel");
    assert_eq!(served.outcome(PATIENCE).status, FormStatus::Cancelled);
}

/// Decodes standard base64 (what DevTools sends a screenshot in).
fn base64_decode(text: &str) -> Vec<u8> {
    let value = |c: u8| -> u32 {
        match c {
            b'A'..=b'Z' => u32::from(c - b'A'),
            b'a'..=b'z' => u32::from(c - b'a') + 26,
            b'0'..=b'9' => u32::from(c - b'0') + 52,
            b'+' => 62,
            b'/' => 63,
            _ => panic!("not base64: {c}"),
        }
    };
    let digits: Vec<u8> = text
        .bytes()
        .filter(|c| *c != b'=' && !c.is_ascii_whitespace())
        .collect();
    let mut out = Vec::with_capacity(digits.len() * 3 / 4);
    for chunk in digits.chunks(4) {
        let bits = chunk
            .iter()
            .enumerate()
            .fold(0u32, |acc, (i, c)| acc | (value(*c) << (18 - 6 * i)));
        let bytes = bits.to_be_bytes();
        out.extend_from_slice(&bytes[1..chunk.len()]);
    }
    out
}
