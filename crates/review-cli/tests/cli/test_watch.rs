//! `review watch`, `decide` and `respond --from-decisions` against the fake GitHub, over many
//! polls: events, reposts, people, checks, quiescence, and the cost of idle polls.

use review_core::decisions::{Decisions, Verdict};
use review_core::model::{CommitId, RepoId, Review, ReviewId, ReviewState, ThreadId};
use review_core::watch::WatchState;
use review_test_support::github::{FakeCheck, FakeGitHub};
use review_test_support::{HEAD_SHA, Mutation, PrBuilder, bot, person};
use serde_json::Value;

use crate::common::{Output, TestEnvironment, commit, git, git_out};

const HEAD2: &str = "b2c3d4e5f60718293a4b5c6d7e8f901234567890";
const FINDING: &str = "**Unbounded cache growth.** The cache never evicts entries.";

fn repo() -> RepoId {
    RepoId::parse("acme/widgets").unwrap()
}

fn review_on(id: &str, sha: &str, at: &str) -> Review {
    Review {
        id: ReviewId(id.to_owned()),
        author: Some(bot("coderabbitai")),
        state: ReviewState::Commented,
        body: String::new(),
        submitted_at: Some(at.to_owned()),
        commit: Some(CommitId(sha.to_owned())),
    }
}

struct Loop {
    env: TestEnvironment,
    github: FakeGitHub,
}

impl Loop {
    async fn start() -> Self {
        let env = TestEnvironment::new();
        git(env.dir(), &["init", "-q", "-b", "feature"]);
        let github = FakeGitHub::start().await;
        github.set_viewer("dana");
        github.add_pull_request(
            PrBuilder::new()
                .thread("A", "src/cache.rs", 3, &[(bot("coderabbitai"), FINDING)])
                .with_pr(|pr| {
                    pr.reviews
                        .push(review_on("R1", HEAD_SHA, "2026-01-05T10:00:00Z"));
                })
                .build(),
        );
        github.set_checks(&repo(), 1, vec![FakeCheck::passed("ci")]);
        Self { env, github }
    }

    /// `review ARGS 1 --repo acme/widgets` against the fake, as `f` runs it.
    fn with_command<T>(
        &self,
        args: &[&str],
        f: impl FnOnce(&TestEnvironment, &[&str], &[(&str, &str)]) -> T,
    ) -> T {
        let graphql = self.github.graphql_url();
        let rest = self.github.rest_url();
        let mut full = args.to_vec();
        full.extend(["1", "--repo", "acme/widgets"]);
        let mut vars = vec![
            ("GITHUB_GRAPHQL_URL", graphql.as_str()),
            ("GITHUB_API_URL", &rest),
        ];
        vars.extend(crate::common::GIT_IDENTITY);
        f(&self.env, &full, &vars)
    }

    fn run(&self, args: &[&str]) -> Output {
        self.with_command(args, |env, args, vars| env.run_with(args, vars))
    }

    /// The command [`Loop::run`] runs, to spawn.
    fn command(&self, args: &[&str]) -> std::process::Command {
        self.with_command(args, |env, args, vars| env.command(args, vars))
    }

    /// One poll; the events it printed.
    fn poll(&self) -> Vec<(String, Vec<String>)> {
        let out = self.run(&["watch", "--once"]);
        assert_eq!(out.code, 0, "{}", out.stderr);
        out.stdout
            .lines()
            .map(|l| {
                let v: Value = serde_json::from_str(l).unwrap();
                let items = v["items"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|i| i.as_str().unwrap().to_owned())
                    .collect();
                (v["event"].as_str().unwrap().to_owned(), items)
            })
            .collect()
    }

    fn events(&self) -> Vec<String> {
        self.poll().into_iter().map(|(e, _)| e).collect()
    }

    fn dir(&self, name: &str) -> std::path::PathBuf {
        crate::common::state_dir(self.env.dir()).join(name)
    }

    fn state(&self) -> WatchState {
        serde_json::from_str(&std::fs::read_to_string(self.dir("watch.json")).unwrap()).unwrap()
    }

    fn decisions(&self) -> Decisions {
        serde_json::from_str(&std::fs::read_to_string(self.dir("decisions.json")).unwrap()).unwrap()
    }

    fn decide(&self, fingerprint: &str, answer: &str) -> Output {
        self.env.write("answer.json", answer);
        self.run(&[
            "decide",
            "--finding",
            fingerprint,
            "--answer",
            "answer.json",
        ])
    }

    fn respond(&self) -> Output {
        let out = self.run(&["respond", "--from-decisions"]);
        assert_eq!(out.code, 0, "{}\n{}", out.stdout, out.stderr);
        out
    }

    fn replies_to(&self, thread: &str) -> usize {
        self.github
            .mutations()
            .iter()
            .filter(|m| matches!(m, Mutation::Reply(t, _) if t.0 == thread))
            .count()
    }

    /// CodeRabbit closes its threads and posts the same finding again as `thread`.
    fn repost(&self, thread: &str) {
        let id = thread.to_owned();
        self.github.update_pull_request(&repo(), 1, |pr| {
            for t in &mut pr.threads {
                t.is_resolved = true;
            }
            let mut fresh = PrBuilder::new()
                .thread(&id, "src/cache.rs", 3, &[(bot("coderabbitai"), FINDING)])
                .build()
                .threads
                .remove(0);
            fresh.comments[0].id.0 = format!("C-{id}");
            pr.threads.push(fresh);
        });
    }
}

const FALSE_POSITIVE: &str = r#"{"verdict": "FALSE_POSITIVE",
  "reasoning": "the cache is bounded by MAX_ENTRIES and evicts the oldest entry (src/cache.rs:40)",
  "evidence": ["src/cache.rs:40"]}"#;

#[tokio::test(flavor = "multi_thread")]
async fn the_loop_over_many_polls() {
    let lp = Loop::start().await;

    // A first poll finds the bot's finding.
    let first = lp.poll();
    assert_eq!(
        first,
        vec![("NEW_FINDINGS".to_owned(), vec!["A".to_owned()])]
    );
    let state = lp.state();
    assert_eq!(state.pending.len(), 1);
    assert!(state.pending[0].all_comments_read);
    assert_eq!(state.reviewed_head["coderabbit"], &HEAD_SHA[..12]);
    let fp = state.pending[0].fingerprint.clone();

    // Nothing moved: nothing announced, no point spent.
    let points = lp.github.points();
    assert!(lp.events().is_empty());
    assert_eq!(
        lp.github.points(),
        points,
        "an idle poll spends no GraphQL point"
    );
    assert!(!lp.state().last_poll.full_read);

    // A verdict, then the reply it owes; the PR turns quiescent once, after a full read.
    let decided = lp.decide(&fp, FALSE_POSITIVE);
    assert_eq!(decided.code, 0, "{}", decided.stderr);
    assert!(
        decided.stdout.starts_with("FALSE_POSITIVE"),
        "{}",
        decided.stdout
    );
    assert!(lp.events().is_empty(), "owed a reply: not quiescent");
    let out = lp.respond();
    assert!(out.stdout.contains("posted   A"), "{}", out.stdout);
    assert!(out.stdout.contains("resolved A"), "{}", out.stdout);
    assert_eq!(lp.decisions().seen[&fp].replied, Some(true));
    assert_eq!(lp.events(), vec!["QUIESCENT"]);
    assert!(lp.events().is_empty(), "announced once per transition");

    // A push: announced; CodeRabbit has not reviewed the new head yet.
    lp.github.update_pull_request(&repo(), 1, |pr| {
        pr.head_sha = CommitId(HEAD2.to_owned());
        for t in &mut pr.threads {
            t.is_outdated = true;
        }
    });
    lp.github
        .set_checks(&repo(), 1, vec![FakeCheck::passed("ci")]);
    assert_eq!(lp.events(), vec!["PUSHED"]);
    assert!(!lp.state().quiescent);

    // CodeRabbit reviews the new head and re-posts the decided finding: a repost, count 1,
    // answered with a pointer to the decision and resolved.
    lp.github.update_pull_request(&repo(), 1, |pr| {
        pr.reviews
            .push(review_on("R2", HEAD2, "2026-01-05T11:00:00Z"));
    });
    lp.repost("B");
    let polled = lp.poll();
    assert_eq!(polled, vec![("REPOST".to_owned(), vec!["B".to_owned()])]);
    assert_eq!(lp.state().reposted[0].count, 1);
    assert_eq!(lp.state().reposted[0].prior_verdict, Verdict::FalsePositive);
    let out = lp.respond();
    assert!(out.stdout.contains("posted   B"), "{}", out.stdout);
    assert_eq!(lp.replies_to("B"), 1);
    assert_eq!(lp.events(), vec!["QUIESCENT"]);

    // Count 2 is answered too; at count 3 the loop escalates instead of answering.
    lp.repost("C");
    assert_eq!(lp.events(), vec!["REPOST"]);
    assert_eq!(lp.state().reposted[1].count, 2);
    lp.respond();
    assert_eq!(lp.replies_to("C"), 1);
    lp.repost("D");
    assert_eq!(lp.events(), vec!["REPOST"]);
    assert_eq!(lp.state().reposted[2].count, 3);
    let out = lp.respond();
    assert_eq!(
        lp.replies_to("D"),
        0,
        "escalated, not answered: {}",
        out.stdout
    );
    assert!(
        lp.decisions().escalated.iter().any(|e| e.thread_id == "D"),
        "{:?}",
        lp.decisions().escalated
    );
    assert!(
        !lp.github
            .mutations()
            .contains(&Mutation::Resolve(ThreadId::from("D"))),
        "an escalation stays open"
    );

    // A person answers in a bot thread: it becomes theirs.
    lp.github.update_pull_request(&repo(), 1, |pr| {
        let fresh = PrBuilder::new()
            .thread(
                "E",
                "src/lib.rs",
                9,
                &[(bot("coderabbitai"), "**Rename this.** `x` says nothing.")],
            )
            .build()
            .threads
            .remove(0);
        let mut fresh = fresh;
        fresh.comments[0].id.0 = "C-E".to_owned();
        pr.threads.push(fresh);
    });
    assert_eq!(lp.events(), vec!["NEW_FINDINGS"]);
    lp.github.update_pull_request(&repo(), 1, |pr| {
        let thread = pr.threads.iter_mut().find(|t| t.id.0 == "E").unwrap();
        let mut reply = thread.comments[0].clone();
        reply.id.0 = "C-E-mei".to_owned();
        reply.author = Some(person("mei"));
        reply.body = "I'd rather keep it; it matches the paper.".to_owned();
        thread.comments.push(reply);
    });
    let polled = lp.poll();
    assert_eq!(
        polled[0],
        ("HUMAN_COMMENT".to_owned(), vec!["C-E-mei".to_owned()])
    );
    let state = lp.state();
    let e = state.pending.iter().find(|f| f.thread_id == "E").unwrap();
    assert_eq!(e.kind, review_core::watch::FindingKind::Human);
    // Deciding it is refused: people's threads are not triaged.
    let refused = lp.decide(&e.fingerprint, FALSE_POSITIVE);
    assert_eq!(refused.code, 6, "{}", refused.stderr);

    // Checks go red, then green.
    lp.github
        .set_checks(&repo(), 1, vec![FakeCheck::failed("test (ubuntu)")]);
    let polled = lp.poll();
    assert_eq!(
        polled,
        vec![("CHECKS_RED".to_owned(), vec!["test (ubuntu)".to_owned()])]
    );
    assert!(lp.events().is_empty(), "still red: said once");
    lp.github
        .set_checks(&repo(), 1, vec![FakeCheck::passed("test (ubuntu)")]);
    // Green again: the person's thread and the escalation do not hold quiescence back; they are
    // reported in the clean report instead.
    let out = lp.run(&["watch", "--once"]);
    let lines: Vec<Value> = out
        .stdout
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), 2, "{}", out.stdout);
    assert_eq!(lines[0]["event"], "CHECKS_CLEAR");
    assert_eq!(lines[1]["event"], "QUIESCENT");
    let report = lines[1]["detail"].as_str().unwrap();
    assert!(
        report.starts_with("PR #1 is clean — all bots reviewed b2c3d4e,")
            && report.contains("1 human comment and 1 escalation remain open"),
        "{report}"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn a_hundred_idle_polls_spend_no_graphql_point() {
    let lp = Loop::start().await;
    lp.poll();
    let points = lp.github.points();
    let charged = lp.github.rest_charged();
    let out = lp.run(&["watch", "--max-polls", "100", "--interval", "0"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(out.stdout.is_empty(), "no event: {}", out.stdout);
    assert_eq!(
        lp.github.points(),
        points,
        "GraphQL points spent by idle polls"
    );
    assert_eq!(
        lp.github.rest_charged(),
        charged,
        "only 304s, which are free"
    );
    assert_eq!(lp.state().last_poll.points, 0);
    assert!(lp.github.rest_not_modified() >= 100 * 6);
}

#[tokio::test(flavor = "multi_thread")]
async fn a_corrupt_state_file_is_reported_and_left_alone() {
    let lp = Loop::start().await;
    lp.poll();
    let path = lp.dir("watch.json");
    std::fs::write(&path, "{\"version\": 1, \"pending\": [tru").unwrap();
    let out = lp.run(&["watch", "--once"]);
    assert_eq!(out.code, 3, "{}", out.stderr);
    assert!(out.stderr.contains("watch.json"), "{}", out.stderr);
    assert_eq!(
        std::fs::read_to_string(&path).unwrap(),
        "{\"version\": 1, \"pending\": [tru"
    );
    let decisions = lp.dir("decisions.json");
    std::fs::write(&decisions, "").unwrap();
    std::fs::write(&path, "").unwrap();
    let out = lp.run(&["decide", "--finding", "x", "--answer", "-"]);
    assert_ne!(out.code, 0);
    assert_eq!(std::fs::read_to_string(&decisions).unwrap(), "");
}

#[tokio::test(flavor = "multi_thread")]
async fn unanswered_findings_are_escalated_and_concurrent_decides_lose_nothing() {
    let lp = Loop::start().await;
    lp.github.update_pull_request(&repo(), 1, |pr| {
        for (i, n) in ["F1", "F2", "F3", "F4", "F5", "F6"].iter().enumerate() {
            let mut t = PrBuilder::new()
                .thread(
                    n,
                    &format!("src/m{i}.rs"),
                    3,
                    &[(
                        bot("coderabbitai"),
                        &format!("**Finding number {i}.** Details."),
                    )],
                )
                .build()
                .threads
                .remove(0);
            t.comments[0].id.0 = format!("C-{n}");
            pr.threads.push(t);
        }
    });
    lp.poll();
    let state = lp.state();
    let fps: Vec<String> = state
        .pending
        .iter()
        .map(|f| f.fingerprint.clone())
        .collect();
    assert_eq!(fps.len(), 7);

    // Parallel single decisions on six of them.
    std::thread::scope(|s| {
        for (i, fp) in fps.iter().take(6).enumerate() {
            let lp = &lp;
            s.spawn(move || {
                let name = format!("a{i}.json");
                lp.env.write(&name, FALSE_POSITIVE);
                let out = lp.run(&["decide", "--finding", fp, "--answer", &name]);
                assert_eq!(out.code, 0, "{}", out.stderr);
            });
        }
    });
    assert_eq!(
        lp.decisions().seen.len(),
        6,
        "concurrent decides lose nothing"
    );

    // A batch naming the last finding with nothing back, and an unknown one: the first is
    // escalated, the second ignored.
    lp.poll();
    let left: Vec<String> = lp
        .state()
        .pending
        .iter()
        .map(|f| f.fingerprint.clone())
        .collect();
    assert_eq!(left.len(), 1);
    lp.env.write(
        "answers.json",
        &format!(r#"{{"not-pending": "{{}}", "{}": null}}"#, left[0]),
    );
    let out = lp.run(&["decide", "--answers", "answers.json", "--json"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let recorded: Value = serde_json::from_str(&out.stdout).unwrap();
    assert_eq!(recorded[0]["verdict"], "ESCALATE");
    assert_eq!(recorded[0]["reason"], "no verdict was returned for it");
    let d = lp.decisions();
    assert_eq!(
        d.seen.len() + d.escalated.len(),
        7,
        "one outcome per finding"
    );
}

/// A batch of answers records only the findings it names: a verdict recorded before for a
/// finding the batch leaves out stays as it was (it used to be overwritten with an escalation).
#[tokio::test(flavor = "multi_thread")]
async fn a_batch_of_answers_records_only_what_it_answers() {
    let lp = Loop::start().await;
    lp.github.update_pull_request(&repo(), 1, |pr| {
        let mut t = PrBuilder::new()
            .thread(
                "B",
                "src/other.rs",
                3,
                &[(bot("coderabbitai"), "**Another finding.** Details.")],
            )
            .build()
            .threads
            .remove(0);
        t.comments[0].id.0 = "C-B".to_owned();
        pr.threads.push(t);
    });
    lp.poll();
    let pending = lp.state().pending;
    let fp_of = |thread: &str| {
        pending
            .iter()
            .find(|f| f.thread_id == thread)
            .unwrap()
            .fingerprint
            .clone()
    };
    let (a, b) = (fp_of("A"), fp_of("B"));
    lp.env.write("a.json", FALSE_POSITIVE);
    assert_eq!(
        lp.run(&["decide", "--finding", &a, "--answer", "a.json"])
            .code,
        0
    );
    // The watch state still lists A as pending (no poll since): the batch names only B.
    lp.env
        .write("answers.json", &format!(r#"{{"{b}": {FALSE_POSITIVE}}}"#));
    let out = lp.run(&["decide", "--answers", "answers.json", "--json"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let recorded: Value = serde_json::from_str(&out.stdout).unwrap();
    assert_eq!(recorded.as_array().unwrap().len(), 1, "{recorded}");
    let d = lp.decisions();
    assert_eq!(
        d.seen[&a].verdict,
        Verdict::FalsePositive,
        "A's verdict kept"
    );
    assert!(!d.is_escalated(&a));
    assert_eq!(d.seen[&b].verdict, Verdict::FalsePositive);
}

#[tokio::test(flavor = "multi_thread")]
async fn a_round_is_one_commit_of_the_fixed_files_only_and_its_replies_cite_it() {
    let lp = Loop::start().await;
    let dir = lp.env.dir().to_path_buf();
    std::fs::create_dir_all(dir.join("src")).unwrap();
    std::fs::write(dir.join("src/cache.rs"), "pub struct Cache;\n").unwrap();
    std::fs::write(dir.join("notes.txt"), "mine\n").unwrap();
    git(&dir, &["add", "."]);
    commit(&dir, "start");
    lp.poll();
    let fp = lp.state().pending[0].fingerprint.clone();
    let valid = r#"{"verdict": "VALID", "reasoning": "the cache now evicts its oldest entry when full",
      "evidence": ["src/cache.rs:1"], "fixSketch": "an LRU bound"}"#;
    assert_eq!(lp.decide(&fp, valid).code, 0);
    std::fs::write(
        dir.join("src/cache.rs"),
        "pub struct Cache { max: usize }\n",
    )
    .unwrap();
    std::fs::write(dir.join("notes.txt"), "my unsaved work\n").unwrap();
    let commits = || git_out(&dir, &["rev-list", "--count", "HEAD"]);

    // Failing checks, then a refusing hook: the round stops, nothing committed or staged.
    let out = lp.run(&["commit-round", "--check-cmd", "echo broken >&2; exit 1"]);
    assert_eq!(out.code, 1, "{}", out.stderr);
    assert!(out.stderr.contains("checks failed"), "{}", out.stderr);
    std::fs::write(
        dir.join(".git/hooks/pre-commit"),
        "#!/bin/sh\necho lint failed >&2\nexit 1\n",
    )
    .unwrap();
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(
            dir.join(".git/hooks/pre-commit"),
            std::fs::Permissions::from_mode(0o755),
        )
        .unwrap();
    }
    // (Hooks run only when the user opts in.)
    let out = lp.run(&["commit-round", "--run-hooks"]);
    assert_eq!(out.code, 1, "{}", out.stderr);
    assert!(out.stderr.contains("refused"), "{}", out.stderr);
    assert_eq!(commits(), "1");
    assert_eq!(
        git_out(&dir, &["diff", "--cached", "--name-only"]),
        "",
        "nothing left staged"
    );
    assert_eq!(
        lp.decisions().seen[&fp].resolved_sha,
        None,
        "still unresolved"
    );
    std::fs::remove_file(dir.join(".git/hooks/pre-commit")).unwrap();

    // Then it goes through: one commit, of the fixed file only.
    let out = lp.run(&["commit-round", "--check-cmd", "true"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert_eq!(commits(), "2");
    let sha = git_out(&dir, &["rev-parse", "--short=7", "HEAD"]);
    assert_eq!(
        git_out(&dir, &["show", "--name-only", "--format=", "HEAD"]),
        "src/cache.rs"
    );
    let message = git_out(&dir, &["log", "-1", "--format=%B"]);
    assert!(
        message.starts_with("fix: address review findings (round 1)"),
        "{message}"
    );
    assert!(message.contains("Review-Thread: A"), "{message}");
    assert!(message.lines().all(|l| l.chars().count() <= 100));
    assert_eq!(
        git_out(&dir, &["status", "--porcelain"]),
        "M notes.txt\n?? answer.json",
        "the user's other work is left alone"
    );
    assert!(out.stdout.contains("FIXED"), "{}", out.stdout);
    assert!(
        out.stdout
            .trim_end()
            .ends_with(&format!("{sha} — ready to push.")),
        "{}",
        out.stdout
    );
    let d = lp.decisions();
    assert_eq!(d.seen[&fp].resolved_sha.as_deref(), Some(sha.as_str()));
    assert_eq!(d.round, 2);

    // The reply cites the commit, so it waits for the push; once the PR's head has it, it goes.
    let out = lp.respond();
    assert!(out.stdout.contains("waiting  A"), "{}", out.stdout);
    assert_eq!(lp.replies_to("A"), 0);
    let head = git_out(&dir, &["rev-parse", "HEAD"]);
    lp.github
        .update_pull_request(&repo(), 1, |pr| pr.head_sha = CommitId(head));
    let out = lp.respond();
    assert!(out.stdout.contains("posted   A"), "{}", out.stdout);
    let body = lp
        .github
        .mutations()
        .into_iter()
        .find_map(|m| match m {
            Mutation::Reply(t, body) if t.0 == "A" => Some(body),
            _ => None,
        })
        .unwrap();
    assert!(
        body.contains(&format!(
            "Fixed in {sha} — the cache now evicts its oldest entry when full."
        )),
        "{body}"
    );
}

/// The clone of `lp` with the files its findings are on, committed.
fn sources(lp: &Loop) -> std::path::PathBuf {
    let dir = lp.env.dir().to_path_buf();
    std::fs::create_dir_all(dir.join("src")).unwrap();
    std::fs::write(dir.join("src/cache.rs"), "pub struct Cache;\n").unwrap();
    std::fs::write(dir.join("src/lib.rs"), "pub fn x() {}\n").unwrap();
    git(&dir, &["add", "src"]);
    commit(&dir, "start");
    dir
}

/// The cache finding `A` of [`Loop::start`] and a naming finding `N` on a clone holding their
/// files, with a triager that finds the first right and the second wrong (it checks that it
/// sees the finding fenced) and a fixer for the first. Returns the clone.
fn two_findings(lp: &Loop) -> std::path::PathBuf {
    let dir = sources(lp);
    lp.github.update_pull_request(&repo(), 1, |pr| {
        let mut t = PrBuilder::new()
            .thread(
                "N",
                "src/lib.rs",
                1,
                &[(
                    bot("coderabbitai"),
                    "**Rename `x`.** The name says nothing.",
                )],
            )
            .build()
            .threads
            .remove(0);
        t.comments[0].id.0 = "C-N".to_owned();
        pr.threads.push(t);
    });
    lp.env.write(
        "triage.sh",
        r#"input=$(cat)
case "$input" in *'"marker":"finding_'*) ;; *) exit 1 ;; esac
case "$input" in
  *Unbounded*) echo '{"verdict":"VALID","reasoning":"the cache now evicts its oldest entry","evidence":["src/cache.rs:1"],"fixSketch":"bound it"}' ;;
  *) echo '{"verdict":"FALSE_POSITIVE","reasoning":"x is the name the paper uses","evidence":["src/lib.rs:1"]}' ;;
esac
"#,
    );
    lp.env.write(
        "fix.sh",
        "printf 'pub struct Cache { max: usize }\\n' > src/cache.rs\n",
    );
    dir
}

/// `review loop` with the triager and fixer of [`two_findings`], for `polls` polls.
fn loop_run(lp: &Loop, polls: &str) -> Output {
    lp.run(&[
        "loop",
        "--triager-cmd",
        "sh triage.sh",
        "--fixer-cmd",
        "sh fix.sh",
        "--check-cmd",
        "true",
        "--interval",
        "0",
        "--max-polls",
        polls,
    ])
}

/// The user pushes HEAD of `dir`; the bot reviews it and the checks pass.
fn push(lp: &Loop, dir: &std::path::Path) {
    let head = git_out(dir, &["rev-parse", "HEAD"]);
    lp.github.update_pull_request(&repo(), 1, |pr| {
        pr.head_sha = CommitId(head.clone());
        pr.reviews
            .push(review_on("R2", &head, "2026-01-05T11:00:00Z"));
    });
    lp.github
        .set_checks(&repo(), 1, vec![FakeCheck::passed("ci")]);
}

/// The events a run printed.
fn events_of(out: &Output) -> Vec<String> {
    out.stdout
        .lines()
        .map(|l| {
            serde_json::from_str::<Value>(l).unwrap()["event"]
                .as_str()
                .unwrap()
                .to_owned()
        })
        .collect()
}

/// Regression: a person who replied in a bot thread between its VALID verdict and the push left
/// the decision `replied: false` forever (the gate rightly refuses the reply), and quiescence
/// never came, without a word. The thread is the person's: its decision is settled as handed to
/// a person, said once, and quiescence comes; until then the loop says what it waits on.
#[tokio::test(flavor = "multi_thread")]
async fn a_person_replying_before_the_push_takes_the_thread_and_quiescence_still_comes() {
    let lp = Loop::start().await;
    let dir = two_findings(&lp);
    // The first poll waits on the findings' triage, the second on their replies.
    let out = loop_run(&lp, "2");
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(
        out.stderr
            .contains("[watch] not quiescent yet, waiting on: 2 bot finding(s) not yet triaged")
            && out.stderr.contains("a reply owed on A (VALID)")
            && out.stderr.contains("a reply owed on N (FALSE_POSITIVE)"),
        "the loop says what it waits on: {}",
        out.stderr
    );
    // Before the push, a person answers the bot in A.
    lp.github.update_pull_request(&repo(), 1, |pr| {
        let mut reply = PrBuilder::new()
            .thread(
                "X",
                "src/cache.rs",
                3,
                &[(person("erin"), "I'd rather keep it unbounded.")],
            )
            .build()
            .threads
            .remove(0)
            .comments
            .remove(0);
        reply.id.0 = "C-erin".to_owned();
        let a = pr.threads.iter_mut().find(|t| t.id.0 == "A").unwrap();
        a.comments.push(reply);
    });
    push(&lp, &dir);
    let out = loop_run(&lp, "3");
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert_eq!(lp.replies_to("A"), 0, "the person's thread gets no reply");
    assert!(
        !lp.github
            .mutations()
            .contains(&Mutation::Resolve(ThreadId::from("A"))),
        "nor a resolve"
    );
    assert_eq!(lp.replies_to("N"), 1, "the bot's thread is answered");
    let d = lp.decisions();
    let a = d.seen.values().find(|s| s.thread_id == "A").unwrap();
    assert_eq!(
        a.settled,
        Some(review_core::decisions::Settled::HandedToPerson)
    );
    assert_ne!(a.replied, Some(true), "no reply was posted");
    assert_eq!(
        out.stderr
            .matches("handed   A: human participation (@erin)")
            .count(),
        1,
        "said once: {}",
        out.stderr
    );
    assert!(!out.stderr.contains("skipped  A"), "{}", out.stderr);
    assert!(
        events_of(&out).contains(&"QUIESCENT".to_owned()),
        "{}\n{}",
        out.stdout,
        out.stderr
    );
}

/// The answers of a round without a commit go out at once: nothing will be pushed for them.
#[tokio::test(flavor = "multi_thread")]
async fn a_round_without_a_commit_answers_at_once() {
    let lp = Loop::start().await;
    sources(&lp);
    lp.env.write(
        "triage.sh",
        r#"echo '{"verdict":"FALSE_POSITIVE","reasoning":"the cache is bounded by MAX","evidence":["src/cache.rs:1"]}'"#,
    );
    lp.env.write("fix.sh", "exit 1\n");
    let out = loop_run(&lp, "1");
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert_eq!(lp.replies_to("A"), 1, "{}", out.stderr);
    assert!(
        lp.github
            .mutations()
            .contains(&Mutation::Resolve(ThreadId::from("A")))
    );
}

/// Runs `review ARGS` until its first poll is printed, then presses Ctrl-C (SIGINT); returns
/// its exit code and what it narrated.
fn ctrl_c_after_the_first_poll(lp: &Loop, args: &[&str]) -> (Option<i32>, String) {
    let mut child = lp
        .command(args)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let stderr = child.stderr.take().unwrap();
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        use std::io::BufRead;
        for line in std::io::BufReader::new(stderr)
            .lines()
            .map_while(Result::ok)
        {
            if tx.send(line).is_err() {
                break;
            }
        }
    });
    let mut seen = Vec::new();
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
    while !seen
        .iter()
        .any(|l: &String| l.starts_with("[watch] poll 1"))
    {
        let left = deadline.saturating_duration_since(std::time::Instant::now());
        match rx.recv_timeout(left) {
            Ok(line) => seen.push(line),
            Err(_) => {
                let _ = child.kill();
                panic!("no first poll: {seen:?}");
            }
        }
    }
    let pid = child.id().to_string();
    let killed = std::process::Command::new("kill")
        .args(["-INT", &pid])
        .status()
        .unwrap();
    assert!(killed.success());
    let status = child.wait().unwrap();
    seen.extend(rx.iter());
    (status.code(), seen.join("\n"))
}

/// `review watch` stops on Ctrl-C (exit 130) whenever it comes: it listens from before its
/// first poll, as the loop does.
#[tokio::test(flavor = "multi_thread")]
async fn watch_stops_on_ctrl_c() {
    let lp = Loop::start().await;
    let (code, text) = ctrl_c_after_the_first_poll(&lp, &["watch", "--interval", "600"]);
    assert_eq!(code, Some(130), "{text}");
}

/// Regression: Ctrl-C said "the report above says what was done" with no report above it. The
/// loop prints its final summary on Ctrl-C (exit 130) and after its last poll.
#[tokio::test(flavor = "multi_thread")]
async fn the_loop_prints_a_final_summary_when_stopped() {
    let lp = Loop::start().await;
    two_findings(&lp);
    let out = loop_run(&lp, "1");
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(
        out.stderr.contains(
            "[loop] Stopped after 1 poll: 1 round · 1 fixed · 1 rejected.\n\
             [loop] 2 replies still owed (posted when their fix is pushed, or on the next run).\n\
             [loop] 0 human comments and 0 escalations remain open, awaiting you.\n\
             [loop] The state is kept: run the loop again to resume."
        ),
        "{}",
        out.stderr
    );

    let (code, text) = ctrl_c_after_the_first_poll(
        &lp,
        &["loop", "--triager-cmd", "sh triage.sh", "--interval", "600"],
    );
    assert_eq!(code, Some(130), "{text}");
    assert!(text.contains("[loop] stopped by Ctrl-C"), "{text}");
    assert!(text.contains("[loop] Stopped after 1 poll: "), "{text}");
}

#[tokio::test(flavor = "multi_thread")]
async fn review_loop_triages_fixes_commits_and_answers_on_its_own() {
    let lp = Loop::start().await;
    let dir = two_findings(&lp);
    let run_loop = |polls: &str| loop_run(&lp, polls);
    let out = run_loop("1");
    assert_eq!(out.code, 0, "{}", out.stderr);
    let d = lp.decisions();
    assert_eq!(d.seen.len(), 2, "{d:?}");
    let sha = git_out(&dir, &["rev-parse", "--short=7", "HEAD"]);
    assert_eq!(
        git_out(&dir, &["show", "--name-only", "--format=", "HEAD"]),
        "src/cache.rs"
    );
    assert!(
        out.stderr.contains(&format!("{sha} — ready to push.")),
        "{}",
        out.stderr
    );
    // The round made a commit: all its answers go out with its push, the rejection's too.
    assert_eq!(
        lp.replies_to("N"),
        0,
        "the rejection waits for the round's push"
    );
    assert_eq!(lp.replies_to("A"), 0, "the fix's reply waits for the push");
    assert!(
        lp.github.mutations().is_empty(),
        "nothing posted before the push"
    );
    assert!(
        out.stderr.contains("its round's commit") && out.stderr.contains("waiting  N"),
        "{}",
        out.stderr
    );

    // The user pushes; the loop answers the fix and, on the next poll, announces quiescence.
    push(&lp, &dir);
    let out = run_loop("2");
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert_eq!(lp.replies_to("A"), 1);
    assert_eq!(lp.replies_to("N"), 1);
    for thread in ["A", "N"] {
        assert!(
            lp.github
                .mutations()
                .contains(&Mutation::Resolve(ThreadId::from(thread)))
        );
    }
    assert_eq!(
        events_of(&out),
        vec!["PUSHED", "QUIESCENT"],
        "{}",
        out.stderr
    );
}

const OUT_OF_DIFF: &str = "**Actionable comments posted: 0**\n\n<details>\n\
<summary>⚠️ Outside diff range comments (2)</summary><blockquote>\n\n<details>\n\
<summary>src/config.rs (2)</summary><blockquote>\n\n\
`41-52`: **The export keys are not read from the environment.**\n\n\
Every other key can be overridden; these two keep the file value.\n\n---\n\n\
`88`: **`validate` accepts a zero limit.**\n\n\
A zero limit rejects every export.\n\n\
</blockquote></details>\n\n</blockquote></details>";

#[tokio::test(flavor = "multi_thread")]
async fn out_of_diff_findings_are_announced_split_and_answered_once() {
    let lp = Loop::start().await;
    lp.github.update_pull_request(&repo(), 1, |pr| {
        let mut review = review_on("R3", HEAD_SHA, "2026-01-05T10:30:00Z");
        review.body = OUT_OF_DIFF.to_owned();
        pr.reviews.push(review);
    });
    let polled = lp.poll();
    assert!(
        polled.contains(&("OUT_OF_DIFF".to_owned(), vec!["R3".to_owned()])),
        "{polled:?}"
    );
    let state = lp.state();
    assert_eq!(state.out_of_diff.len(), 1);
    let titles: Vec<&str> = state.out_of_diff[0]
        .findings
        .iter()
        .map(|f| f.title.as_str())
        .collect();
    assert_eq!(titles.len(), 2, "split per finding: {titles:?}");
    assert_eq!(state.out_of_diff[0].findings[1].line, Some(88));

    // The inline finding answered, the PR still waits for the out-of-diff review.
    let fp = state.pending[0].fingerprint.clone();
    assert_eq!(lp.decide(&fp, FALSE_POSITIVE).code, 0);
    lp.respond();
    assert!(
        lp.events().is_empty(),
        "an unaddressed out-of-diff review holds quiescence"
    );
    assert!(!lp.state().quiescent);

    // One aggregate comment, recorded, never posted twice.
    lp.env.write(
        "replies.json",
        r#"[{"reviewId": "R3", "replyBody": "Out of scope for this PR — the config loader is reworked in the next one."}]"#,
    );
    for _ in 0..2 {
        let out = lp.run(&["respond", "--replies", "replies.json"]);
        assert_eq!(out.code, 0, "{}", out.stderr);
    }
    let comments = lp
        .github
        .mutations()
        .iter()
        .filter(|m| matches!(m, Mutation::Comment(_)))
        .count();
    assert_eq!(comments, 1);
    assert_eq!(lp.decisions().addressed_out_of_diff.get("R3"), Some(&true));
    assert_eq!(lp.events(), vec!["QUIESCENT"]);

    // A review id cannot be resolved, and must exist.
    lp.env.write(
        "replies.json",
        r#"[{"reviewId": "R3", "replyBody": "x", "resolve": true}]"#,
    );
    assert_eq!(lp.run(&["respond", "--replies", "replies.json"]).code, 2);
}

/// React Doctor's report after a scan: one new error (on `src/cache.rs`) and one warning.
const DOCTOR_REPORT: &str = "<!-- react-doctor -->\n\n## React Doctor\n\n2 new issues.\n\n\
**Score:** `74` / 100 (Needs work)\n\n### Findings\n\n<details>\n\
<summary><b>react-doctor/no-mutable-module-state</b> · 1 occurrence</summary>\n\n\
- ❌ `src/cache.rs:1` - Module-level mutable state is shared across requests\n\n\
Suppress with: `// eslint-disable-next-line react-doctor/no-mutable-module-state -- intentional`\n\
</details>\n\n<details>\n\
<summary><b>react-doctor/prefer-named-export</b> · 1 occurrence</summary>\n\n\
- ⚠️ `src/lib.rs:1` - Prefer a named export\n\n</details>";

/// The seed's DOCTOR event: React Doctor's report comment is announced when posted or
/// rewritten, its new errors are findings the loop triages and fixes (the warning is advisory),
/// and nothing is replied on it (it has no thread); a person's comment in the same format is a
/// person's comment, not a report.
#[tokio::test(flavor = "multi_thread")]
async fn react_doctors_new_errors_are_findings_to_fix_and_its_warnings_advisory() {
    let lp = Loop::start().await;
    let dir = sources(&lp);
    let comment = |id: &str, author: review_core::model::Author| review_core::model::IssueComment {
        id: review_core::model::CommentId(id.to_owned()),
        author: Some(author),
        body: DOCTOR_REPORT.to_owned(),
        created_at: "2026-01-05T10:05:00Z".to_owned(),
        url: format!("https://github.com/acme/widgets/pull/1#issuecomment-{id}"),
    };
    lp.github.update_pull_request(&repo(), 1, |pr| {
        pr.threads.clear();
        pr.comments
            .push(comment("IC_doctor", bot("github-actions")));
        pr.comments.push(comment("IC_mallory", person("mallory")));
    });
    lp.env.write(
        "triage.sh",
        r#"input=$(cat)
case "$input" in
  *no-mutable-module-state*) echo '{"verdict":"VALID","reasoning":"the cache is no longer module state","evidence":["src/cache.rs:1"],"fixSketch":"own it"}' ;;
  *) echo '{"verdict":"FALSE_POSITIVE","reasoning":"not an error","evidence":["src/lib.rs:1"]}' ;;
esac
"#,
    );
    lp.env.write(
        "fix.sh",
        "printf 'pub struct Cache { owned: bool }\\n' > src/cache.rs\n",
    );
    let out = loop_run(&lp, "1");
    assert_eq!(out.code, 0, "{}", out.stderr);
    let doctor: Vec<Value> = out
        .stdout
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap())
        .filter(|e| e["event"] == "DOCTOR")
        .collect();
    assert_eq!(doctor.len(), 1, "{}", out.stdout);
    assert_eq!(doctor[0]["items"].as_array().unwrap().len(), 1, "one error");
    assert!(
        doctor[0]["detail"]
            .as_str()
            .unwrap()
            .contains("1 new error to fix, 1 warning (advisory)"),
        "{}",
        doctor[0]
    );
    let d = lp.decisions();
    assert_eq!(d.seen.len(), 1, "only the error was triaged: {d:?}");
    let seen = d.seen.values().next().unwrap();
    assert_eq!(seen.thread_id, "report:react-doctor");
    assert_eq!(seen.path, "src/cache.rs");
    assert_eq!(
        git_out(&dir, &["show", "--name-only", "--format=", "HEAD"]),
        "src/cache.rs",
        "the error's fix is the round's commit"
    );
    assert!(
        lp.github.mutations().is_empty(),
        "nothing is posted on a report: {:?}",
        lp.github.mutations()
    );
    let state = lp.state();
    assert!(
        state.human_comments.iter().any(|c| c.id == "IC_mallory"),
        "a person's copy of the format is a person's comment"
    );
    assert_eq!(
        state.doctor.as_ref().map(|r| r.id.as_str()),
        Some("IC_doctor")
    );

    // The user pushes and React Doctor scans the head again (deleting its report and posting a
    // clean one). The decided error owes no reply, so quiescence comes.
    push(&lp, &dir);
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs();
    let later = review_core::time::format_utc(i64::try_from(now).unwrap() + 3600);
    lp.github.update_pull_request(&repo(), 1, |pr| {
        pr.comments.clear();
        let mut rescan = comment("IC_doctor2", bot("github-actions"));
        rescan.body = "<!-- react-doctor -->\n\n## React Doctor\n\nNo issues found.".to_owned();
        rescan.created_at.clone_from(&later);
        pr.comments.push(rescan);
    });
    let out = loop_run(&lp, "2");
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(
        lp.github.mutations().is_empty(),
        "{:?}",
        lp.github.mutations()
    );
    assert!(
        events_of(&out).contains(&"QUIESCENT".to_owned()),
        "{}\n{}",
        out.stdout,
        out.stderr
    );
}

/// `review loop --rereview-late` asks the user's expected bot that is late on the head to review
/// again, once per head; without the flag nothing is asked.
#[tokio::test(flavor = "multi_thread")]
async fn review_loop_asks_a_late_bot_again_once_only_with_the_flag() {
    let lp = Loop::start().await;
    lp.env.write(
        "triage.sh",
        r#"cat >/dev/null
echo '{"verdict":"FALSE_POSITIVE","reasoning":"the cache is bounded elsewhere","evidence":["src/cache.rs:1"]}'
"#,
    );
    let args = |extra: &[&'static str]| -> Vec<&'static str> {
        let mut v = vec![
            "loop",
            "--triager-cmd",
            "sh triage.sh",
            "--interval",
            "0",
            "--max-polls",
            "1",
            "--expect-bot",
            "gemini-code-assist",
            "--late-after",
            "0",
        ];
        v.extend(extra);
        v
    };
    let asked = |lp: &Loop| {
        lp.github
            .mutations()
            .into_iter()
            .filter(|m| matches!(m, Mutation::Comment(b) if b.starts_with("/gemini review\n")))
            .count()
    };
    let out = lp.run(&args(&[]));
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert_eq!(asked(&lp), 0, "not without the flag");
    let out = lp.run(&args(&["--rereview-late"]));
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(
        out.stderr
            .contains("[loop] late on the head: gemini  asked by comment `/gemini review`"),
        "{}",
        out.stderr
    );
    assert_eq!(asked(&lp), 1);
    let out = lp.run(&args(&["--rereview-late"]));
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert_eq!(asked(&lp), 1, "once per head");
}
