//! `triage` against the fake host and repository with a scripted judge, pusher and prompt: a
//! clear bot finding fixed and resolved once its fix is pushed, a person's thread never touched
//! (a fix there only at the user's word, pushed, never resolved), a closed pull request left
//! alone, a broken judge changing nothing, the threads whose fix waits for a push said in the
//! outcome, and a protocol signal (found from the user's texts) left alone.

use std::collections::BTreeMap;
use std::sync::Mutex;
use std::sync::atomic::AtomicBool;

use review_app::ErrorKind;
use review_app::narrator::Kept;
use review_app::respond::{FixCommit, FixHistory};
use review_app::triage::{
    HumanFixOffer, Judge, JudgeRequest, Judged, NoJudge, NoPusher, Outcome, Prompt, Pushed, Pusher,
    Settings, TriagePorts, Triaged,
};
use review_core::judge::Verdict;
use review_core::model::{CommitId, PrState, PullRequest, ThreadId};
use review_core::plan::TriageSettings;
use review_core::ports::{HostError, ReviewHost, Vcs};
use review_core::report::{DeferReason, Outcome as ThreadOutcome, Report, ThreadReport};
use review_test_support::{FakeHost, FakeVcs, HEAD_SHA, Mutation, PrBuilder, bot, person};

const LIB: &str = "fn a() {}\nfn b() {\n    let v = get().unwrap();\n}\n";

const MAJOR_WITH_SUGGESTION: &str = "_⚠️ Potential issue_ | _🟠 Major_\n\n**Unchecked unwrap on request input.**\n\nThe value comes from the request and can be missing; propagate the error instead of panicking.\n\n```suggestion\n    let v = get()?;\n```\n";
const NITPICK: &str = "_🧹 Nitpick_\n\n**Prefer a more descriptive name than `a`.**\n\nConsider renaming `a` to something that says what it does.";
const HUNK: &str = "@@ -0,0 +1,4 @@\n+fn a() {}\n+fn b() {\n+    let v = get().unwrap();";

/// FIX: a clear bot finding with a suggestion on src/lib.rs:3; NIT: a nitpick; HUMAN: the same
/// finding, answered by a person.
fn pr() -> PullRequest {
    PrBuilder::new()
        .thread(
            "FIX",
            "src/lib.rs",
            3,
            &[(bot("coderabbitai"), MAJOR_WITH_SUGGESTION)],
        )
        .with_last(|t| t.comments[0].diff_hunk = Some(HUNK.to_owned()))
        .thread("NIT", "src/lib.rs", 1, &[(bot("coderabbitai"), NITPICK)])
        .thread(
            "HUMAN",
            "src/lib.rs",
            3,
            &[
                (bot("coderabbitai"), MAJOR_WITH_SUGGESTION),
                (person("mei"), "no"),
            ],
        )
        .with_last(|t| t.comments[0].diff_hunk = Some(HUNK.to_owned()))
        .build()
}

/// The fake repository's history: the PR head and every commit made on top of it, whose
/// `Review-Thread:` trailers name the threads they fix (none of them landed on the PR).
struct History(FakeVcs);

impl History {
    fn local(&self) -> Vec<FixCommit> {
        let mut commits: Vec<FixCommit> = self
            .0
            .commits()
            .into_iter()
            .map(|c| FixCommit {
                sha: c.id.0,
                threads: c
                    .message
                    .lines()
                    .filter_map(|l| l.strip_prefix("Review-Thread: "))
                    .map(str::to_owned)
                    .collect(),
            })
            .collect();
        commits.reverse();
        commits
    }
}

impl FixHistory for History {
    fn resolve_commit(&self, rev: &str) -> Option<String> {
        self.has_commit(rev).then(|| rev.to_owned())
    }
    fn has_commit(&self, sha: &str) -> bool {
        sha == HEAD_SHA || sha == "HEAD" || self.local().iter().any(|c| c.sha == sha)
    }
    fn is_ancestor(&self, ancestor: &str, _: &str) -> bool {
        self.has_commit(ancestor)
    }
    fn fix_commits(&self, base: Option<&str>, head: &str) -> Option<Vec<FixCommit>> {
        Some(match (base, head) {
            (Some(HEAD_SHA), "HEAD") => self.local(),
            _ => Vec::new(),
        })
    }
    fn patch_id(&self, _: &str) -> Option<String> {
        None
    }
}

/// A judge that answers from a script, or fails whole.
enum ScriptedJudge {
    /// Every thread asked gets this verdict.
    Every(Verdict),
    /// The port fails.
    Broken,
}

#[derive(Debug, thiserror::Error)]
#[error("the judge could not be started")]
struct JudgeDown;

impl Judge for ScriptedJudge {
    type Error = JudgeDown;

    fn max(&self) -> Option<usize> {
        None
    }

    async fn judge(&self, request: JudgeRequest<'_>) -> Result<Judged, JudgeDown> {
        match self {
            Self::Broken => Err(JudgeDown),
            Self::Every(verdict) => Ok(Judged {
                verdicts: request
                    .threads
                    .iter()
                    .map(|t| (t.clone(), verdict.clone()))
                    .collect(),
                eligible: request.threads.len(),
                ..Judged::default()
            }),
        }
    }
}

/// A pusher over the fake host: a push moves the PR's head (as the host is read again) to the
/// local HEAD.
struct FakePush<'a> {
    host: &'a FakeHost,
    vcs: &'a FakeVcs,
    pushed: Mutex<Option<CommitId>>,
}

impl Pusher for FakePush<'_> {
    type Error = HostError;

    async fn read_again(&self, pr: &PullRequest) -> Result<PullRequest, HostError> {
        let mut now = self.host.pull_request(&pr.repo, pr.number).await?;
        if let Some(head) = self.pushed.lock().expect("the push lock").clone() {
            now.head_sha = head;
        }
        Ok(now)
    }

    fn push(&self, branch: &str, now: &PullRequest) -> Result<String, String> {
        assert_eq!(branch, "feature");
        assert_eq!(now.head_sha.0, HEAD_SHA, "pushed on top of the PR's head");
        *self.pushed.lock().expect("the push lock") =
            Some(self.vcs.head().map_err(|e| e.to_string())?);
        Ok("origin".to_owned())
    }
}

/// A user who answers every question the same, and the questions asked.
struct User(bool, Mutex<Vec<String>>);

impl Prompt for User {
    fn available(&self) -> bool {
        true
    }
    fn ask(&self, offer: &HumanFixOffer<'_>) -> bool {
        self.1
            .lock()
            .expect("the questions")
            .push(offer.entry.id.0.clone());
        self.0
    }
}

fn settings(apply: bool, push: bool) -> Settings {
    Settings {
        apply,
        push,
        interactive: false,
        triage: TriageSettings::default(),
        protocol_signals: Vec::new(),
    }
}

fn entry<'a>(report: &'a Report, id: &str) -> &'a ThreadReport {
    report
        .threads
        .iter()
        .find(|t| t.id.0 == id)
        .unwrap_or_else(|| panic!("{id} is not in the report"))
}

fn triaged(outcome: Outcome) -> Triaged {
    match outcome {
        Outcome::Triaged(t) => *t,
        Outcome::Closed(c) => panic!("closed: {c:?}"),
    }
}

/// Runs triage on the fake host and repository with `judge`, `pusher` and `prompt`.
async fn run<J: Judge, U: Pusher>(
    host: &FakeHost,
    vcs: &FakeVcs,
    judge: Option<&J>,
    pusher: Option<&U>,
    prompt: Option<&dyn Prompt>,
    settings: &Settings,
    narrator: &Kept,
) -> Result<Outcome, review_app::AppError> {
    let history = History(vcs.clone());
    let stop = AtomicBool::new(false);
    let ports = TriagePorts {
        host: Some(host as &dyn ReviewHost),
        vcs: Some(vcs as &dyn Vcs),
        history: &history,
        fixer: None,
        judge,
        prompt,
        pusher,
        narrator,
        stop: &stop,
    };
    ports.triage(&host.current(), settings).await
}

#[tokio::test]
async fn a_clear_bot_finding_is_fixed_and_resolved_once_its_fix_is_pushed() {
    let host = FakeHost::new(pr());
    let vcs = FakeVcs::new(HEAD_SHA, &[("src/lib.rs", LIB)]);
    let pusher = FakePush {
        host: &host,
        vcs: &vcs,
        pushed: Mutex::new(None),
    };
    let narrator = Kept::default();
    let outcome = run(
        &host,
        &vcs,
        None::<&NoJudge>,
        Some(&pusher),
        None,
        &settings(true, true),
        &narrator,
    )
    .await
    .unwrap();
    let t = triaged(outcome);
    let commits = vcs.commits();
    assert_eq!(commits.len(), 1, "one commit, for FIX");
    assert!(commits[0].message.contains("Review-Thread: FIX"));
    assert_eq!(commits[0].paths, ["src/lib.rs"]);
    assert_eq!(
        vcs.committed_file("src/lib.rs").unwrap(),
        LIB.replace("get().unwrap()", "get()?")
    );
    assert_eq!(t.pushed, Pushed::To(commits[0].id.clone()));
    assert_eq!(t.new_head, Some(commits[0].id.clone()));
    assert_eq!(t.resolved_after_push, [ThreadId::from("FIX")]);
    assert!(t.awaiting_push.is_empty(), "{:?}", t.awaiting_push);
    assert!(!t.interrupted);
    let fix = entry(&t.report, "FIX");
    assert_eq!(fix.outcome, ThreadOutcome::Actioned);
    assert!(fix.reason.ends_with("pushed; resolved"), "{}", fix.reason);
    assert_eq!(
        host.mutations(),
        [
            Mutation::Resolve(ThreadId::from("NIT")),
            Mutation::Resolve(ThreadId::from("FIX"))
        ],
        "no reply, nothing on HUMAN"
    );
    assert!(t.report.applied);
    let lines = narrator.lines();
    assert!(
        lines
            .iter()
            .any(|l| l == "[triage] push — pushed to origin; reading the PR again"),
        "{lines:#?}"
    );
}

#[tokio::test]
async fn a_persons_thread_is_never_touched_and_a_fix_there_only_at_the_users_word() {
    // Without --interactive: the person's thread is deferred, nothing written there.
    let host = FakeHost::new(pr());
    let vcs = FakeVcs::new(HEAD_SHA, &[("src/lib.rs", LIB)]);
    let outcome = run(
        &host,
        &vcs,
        None::<&NoJudge>,
        None::<&NoPusher>,
        None,
        &settings(true, false),
        &Kept::default(),
    )
    .await
    .unwrap();
    let t = triaged(outcome);
    let human = entry(&t.report, "HUMAN");
    assert_eq!(human.outcome, ThreadOutcome::Deferred);
    assert_eq!(human.deferred_because, Some(DeferReason::Human));
    assert!(human.commit.is_none());
    assert!(
        vcs.commits()
            .iter()
            .all(|c| !c.message.contains("Review-Thread: HUMAN"))
    );
    assert!(
        host.mutations().iter().all(
            |m| !matches!(m, Mutation::Resolve(id) | Mutation::Reply(id, _) if id.0 == "HUMAN")
        )
    );

    // With --interactive and the user's no: asked, and nothing written there.
    let host = FakeHost::new(pr());
    let vcs = FakeVcs::new(HEAD_SHA, &[("src/lib.rs", LIB)]);
    let user = User(false, Mutex::new(Vec::new()));
    let mut asked = settings(true, false);
    asked.interactive = true;
    let t = triaged(
        run(
            &host,
            &vcs,
            None::<&NoJudge>,
            None::<&NoPusher>,
            Some(&user as &dyn Prompt),
            &asked,
            &Kept::default(),
        )
        .await
        .unwrap(),
    );
    assert_eq!(
        *user.1.lock().unwrap(),
        ["HUMAN"],
        "only the person's thread is offered"
    );
    assert!(
        vcs.commits()
            .iter()
            .all(|c| !c.message.contains("Review-Thread: HUMAN"))
    );
    assert!(
        host.mutations().iter().all(
            |m| !matches!(m, Mutation::Resolve(id) | Mutation::Reply(id, _) if id.0 == "HUMAN")
        ),
        "{:?}",
        host.mutations()
    );
    assert_eq!(entry(&t.report, "HUMAN").outcome, ThreadOutcome::Deferred);
}

#[tokio::test]
async fn a_fix_in_a_persons_thread_at_the_users_word_is_pushed_and_left_open() {
    // Only the person's thread has a suggestion here.
    let pr = PrBuilder::new()
        .thread(
            "HUMAN",
            "src/lib.rs",
            3,
            &[
                (bot("coderabbitai"), MAJOR_WITH_SUGGESTION),
                (person("mei"), "yes, please"),
            ],
        )
        .with_last(|t| t.comments[0].diff_hunk = Some(HUNK.to_owned()))
        .build();
    let host = FakeHost::new(pr);
    let vcs = FakeVcs::new(HEAD_SHA, &[("src/lib.rs", LIB)]);
    let pusher = FakePush {
        host: &host,
        vcs: &vcs,
        pushed: Mutex::new(None),
    };
    let user = User(true, Mutex::new(Vec::new()));
    let mut asked = settings(true, true);
    asked.interactive = true;
    let t = triaged(
        run(
            &host,
            &vcs,
            None::<&NoJudge>,
            Some(&pusher),
            Some(&user as &dyn Prompt),
            &asked,
            &Kept::default(),
        )
        .await
        .unwrap(),
    );
    let commits = vcs.commits();
    assert_eq!(commits.len(), 1, "committed at the user's word");
    assert_eq!(t.pushed, Pushed::To(commits[0].id.clone()));
    let human = entry(&t.report, "HUMAN");
    assert_eq!(
        human.reason,
        format!(
            "fixed in {}, pushed; thread left open for your reply",
            commits[0].id.short()
        )
    );
    assert!(host.mutations().is_empty(), "{:?}", host.mutations());
    assert!(t.resolved_after_push.is_empty());
}

#[tokio::test]
async fn a_closed_or_merged_pull_request_is_left_alone() {
    for (state, merged) in [(PrState::Merged, true), (PrState::Closed, false)] {
        let mut closed = pr();
        closed.state = state;
        let host = FakeHost::new(closed);
        let vcs = FakeVcs::new(HEAD_SHA, &[("src/lib.rs", LIB)]);
        let pusher = FakePush {
            host: &host,
            vcs: &vcs,
            pushed: Mutex::new(None),
        };
        let narrator = Kept::default();
        let outcome = run(
            &host,
            &vcs,
            Some(&ScriptedJudge::Broken),
            Some(&pusher),
            None,
            &settings(true, true),
            &narrator,
        )
        .await
        .unwrap();
        let Outcome::Closed(c) = outcome else {
            panic!("triaged a {state:?} PR");
        };
        assert_eq!(c.merged, merged);
        assert_eq!(c.head.0, HEAD_SHA);
        assert!(host.mutations().is_empty());
        assert!(vcs.commits().is_empty());
        assert!(pusher.pushed.lock().unwrap().is_none());
        let word = if merged { "merged" } else { "closed" };
        assert_eq!(
            narrator.lines(),
            [format!(
                "[triage] done — PR #1 is {word}; nothing to triage"
            )]
        );
    }
}

/// The report of a plan (nothing changed) with `judge`.
async fn plan_of(judge: Option<&ScriptedJudge>) -> Report {
    let host = FakeHost::new(pr());
    let vcs = FakeVcs::new(HEAD_SHA, &[("src/lib.rs", LIB)]);
    let t = triaged(
        run(
            &host,
            &vcs,
            judge,
            None::<&NoPusher>,
            None,
            &settings(false, false),
            &Kept::default(),
        )
        .await
        .expect("a plan"),
    );
    assert!(host.mutations().is_empty(), "a plan changes nothing");
    assert!(vcs.commits().is_empty());
    t.report
}

#[tokio::test]
async fn a_broken_judge_changes_nothing() {
    let without = plan_of(None::<&ScriptedJudge>).await;
    // Every call failing: the reader's class stands for every thread.
    let failed = ScriptedJudge::Every(Verdict::Failed("timed out".to_owned()));
    let with = plan_of(Some(&failed)).await;
    let shape =
        |r: &Report| -> BTreeMap<String, (ThreadOutcome, Option<review_core::rules::Class>)> {
            r.threads
                .iter()
                .map(|t| (t.id.0.clone(), (t.outcome, t.class)))
                .collect()
        };
    assert_eq!(shape(&with), shape(&without));
    assert_eq!(with.counts, without.counts);

    // The judge port failing whole, in apply mode: an error, and nothing was done.
    let host = FakeHost::new(pr());
    let vcs = FakeVcs::new(HEAD_SHA, &[("src/lib.rs", LIB)]);
    let err = run(
        &host,
        &vcs,
        Some(&ScriptedJudge::Broken),
        None::<&NoPusher>,
        None,
        &settings(true, false),
        &Kept::default(),
    )
    .await
    .unwrap_err();
    assert_eq!(err.kind, ErrorKind::Port);
    assert!(err.port_error::<JudgeDown>().is_some());
    assert!(host.mutations().is_empty());
    assert!(vcs.commits().is_empty());
}

#[tokio::test]
async fn the_threads_whose_fix_waits_for_a_push_are_in_the_outcome() {
    let host = FakeHost::new(pr());
    let vcs = FakeVcs::new(HEAD_SHA, &[("src/lib.rs", LIB)]);
    // Apply without a push: FIX is committed and waits.
    let t = triaged(
        run(
            &host,
            &vcs,
            None::<&NoJudge>,
            None::<&NoPusher>,
            None,
            &settings(true, false),
            &Kept::default(),
        )
        .await
        .unwrap(),
    );
    assert_eq!(t.awaiting_push, [ThreadId::from("FIX")]);
    assert_eq!(t.pushed, Pushed::Nothing);
    let commit = vcs.commits()[0].id.clone();
    assert_eq!(t.new_head, Some(commit.clone()));
    assert_eq!(entry(&t.report, "FIX").commit, Some(commit.clone()));

    // The next run (a plan) finds the fix in the local history: it still waits, not fixed again.
    let t = triaged(
        run(
            &host,
            &vcs,
            None::<&NoJudge>,
            None::<&NoPusher>,
            None,
            &settings(false, false),
            &Kept::default(),
        )
        .await
        .unwrap(),
    );
    assert_eq!(t.awaiting_push, [ThreadId::from("FIX")]);
    assert_eq!(entry(&t.report, "FIX").commit, Some(commit));
    assert_eq!(vcs.commits().len(), 1, "not fixed again");
}

#[tokio::test]
async fn a_thread_carrying_a_protocol_signal_text_is_left_alone() {
    // The comment reader finds the signals from the user's texts: the planner reads no text.
    let host = FakeHost::new(
        PrBuilder::new()
            .thread(
                "SIG",
                "src/lib.rs",
                3,
                &[(
                    bot("stamphog"),
                    "Approval dismissed: new commits were pushed.",
                )],
            )
            .thread("NIT", "src/lib.rs", 1, &[(bot("coderabbitai"), NITPICK)])
            .build(),
    );
    let vcs = FakeVcs::new(HEAD_SHA, &[("src/lib.rs", LIB)]);
    let mut settings = settings(true, false);
    settings.protocol_signals = vec!["APPROVAL dismissed".to_owned()];
    let t = triaged(
        run(
            &host,
            &vcs,
            None::<&NoJudge>,
            None::<&NoPusher>,
            None,
            &settings,
            &Kept::default(),
        )
        .await
        .unwrap(),
    );
    let sig = entry(&t.report, "SIG");
    assert_eq!(sig.deferred_because, Some(DeferReason::ProtocolSignal));
    assert_eq!(
        host.mutations(),
        [Mutation::Resolve(ThreadId::from("NIT"))],
        "the signal is left alone, the nit is not"
    );
}
