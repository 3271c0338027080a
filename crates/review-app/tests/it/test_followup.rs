//! The follow-up against the fake host and in-memory stores: `finish` posts each fix reply
//! once, and a run resumed after a crash posts nothing twice; a person's thread is never
//! replied to or resolved, nor their comments hidden; answers naming what the follow-up does
//! not show are refused with a typed error; a failing judge leaves its instructions unclear;
//! the tally counts what happened.

use std::collections::BTreeMap;

use review_app::ErrorKind;
use review_app::followup::{
    Agents, Ask, Completion, DispatchPorts, FinishPorts, FollowupHistory, FollowupState,
    FollowupStore, Helper, Hide, HostReread, Judge, JudgeQuestion, Judged, MemoryFollowup, Note,
    Notes, OwnWords, Planned, Question, Started, Tally, TaskEvent, UnknownAnswer, Workspace,
    analyse, by_hand, check_answers, hides, judge_unclear, leave_for_finish, plan,
    post_own_replies, translate,
};
use review_app::ports::Poisoned;
use review_app::respond::{FixCommit, FixHistory};
use review_core::followup::form::{
    ChosenAction, FormAnswers, FormIssue, FormPage, FormStatus, GroupAnswer, IssueAnswer,
};
use review_core::followup::{self, Difficulty, DispatchMode, Intent, Issue, Lang, Task};
use review_core::gate::AutomationSettings;
use review_core::model::{CommentId, PullRequest, ThreadId};
use review_core::ports::{HostError, PostedComment, ReviewHost};
use review_test_support::{FakeHost, HEAD_SHA, Mutation, PrBuilder, bot, person};

/// The fix commit the tests' agent made.
const FIX: &str = "f1f2f3f4f5f6f7f8f9f0f1f2f3f4f5f6f7f8f9f0";

/// Two bot threads of one reviewer (`BOT1`, `BOT2`), a person's own thread (`MEI`), and a bot
/// thread a person answered (`MIXED`).
fn pr() -> PullRequest {
    PrBuilder::new()
        .thread(
            "BOT1",
            "src/a.rs",
            3,
            &[(bot("coderabbitai"), "**Off by one.**")],
        )
        .thread(
            "BOT2",
            "src/b.rs",
            9,
            &[(bot("coderabbitai"), "**Unused.**")],
        )
        .thread("MEI", "src/c.rs", 1, &[(person("mei"), "Why this name?")])
        .thread(
            "MIXED",
            "src/d.rs",
            5,
            &[
                (bot("coderabbitai"), "**Rename it.**"),
                (person("mei"), "I disagree."),
            ],
        )
        .build()
}

/// A history where `on_head` are the commits of the PR's head.
struct History {
    on_head: Vec<String>,
}

impl History {
    fn with(on_head: &[&str]) -> Self {
        Self {
            on_head: on_head.iter().map(|s| (*s).to_owned()).collect(),
        }
    }
}

impl FixHistory for History {
    fn resolve_commit(&self, rev: &str) -> Option<String> {
        (rev == FIX || rev == HEAD_SHA).then(|| rev.to_owned())
    }
    fn has_commit(&self, sha: &str) -> bool {
        sha == FIX || sha == HEAD_SHA
    }
    fn is_ancestor(&self, ancestor: &str, descendant: &str) -> bool {
        descendant == HEAD_SHA
            && (ancestor == HEAD_SHA || self.on_head.iter().any(|s| s == ancestor))
    }
    fn fix_commits(&self, _: Option<&str>, _: &str) -> Option<Vec<FixCommit>> {
        Some(Vec::new())
    }
    fn patch_id(&self, _: &str) -> Option<String> {
        None
    }
}

impl FollowupHistory for History {
    fn commits_between(&self, _: &str, _: &str) -> Option<Vec<String>> {
        Some(self.on_head.clone())
    }
    fn paths_changed_by(&self, _: &str) -> Option<Vec<String>> {
        Some(vec!["src/a.rs".to_owned()])
    }
}

fn owed(thread: &str) -> Completion {
    Completion {
        thread_id: thread.into(),
        sha: FIX.to_owned(),
        what: "the bound is checked".to_owned(),
        lang: Lang::En,
        since: None,
        files: Vec::new(),
    }
}

fn replies(host: &FakeHost, thread: &str) -> Vec<String> {
    host.mutations()
        .into_iter()
        .filter_map(|m| match m {
            Mutation::Reply(t, body) if t.0 == thread => Some(body),
            _ => None,
        })
        .collect()
}

fn touched(host: &FakeHost, thread: &str) -> bool {
    host.mutations().iter().any(|m| match m {
        Mutation::Reply(t, _) | Mutation::Resolve(t) | Mutation::Unresolve(t) => t.0 == thread,
        _ => false,
    })
}

async fn finish<S: FollowupStore>(
    host: &FakeHost,
    store: &S,
    history: &History,
    notes: &Notes,
) -> Result<Tally, review_app::AppError> {
    let ports = FinishPorts {
        host,
        reread: &HostReread(host),
        store,
        history,
    };
    ports
        .finish(notes, &pr(), &AutomationSettings::default())
        .await
}

#[tokio::test]
async fn finish_posts_each_fix_reply_once_and_a_rerun_posts_nothing() {
    let host = FakeHost::new(pr());
    let store = MemoryFollowup::new(FollowupState {
        completions: vec![owed("BOT1"), owed("BOT2")],
        ..FollowupState::default()
    });
    let history = History::with(&[FIX]);
    let notes = Notes::default();
    let tally = finish(&host, &store, &history, &notes).await.unwrap();
    assert_eq!((tally.replies, tally.resolved, tally.waiting), (2, 2, 0));
    for t in ["BOT1", "BOT2"] {
        let r = replies(&host, t);
        assert_eq!(r.len(), 1, "{r:?}");
        assert!(
            r[0].contains("Fixed in f1f2f3f: the bound is checked"),
            "{}",
            r[0]
        );
    }
    assert_eq!(
        store.load().unwrap(),
        FollowupState::default(),
        "nothing is left"
    );
    let before = host.mutations().len();
    let again = finish(&host, &store, &history, &notes).await.unwrap();
    assert_eq!(again, Tally::default());
    assert_eq!(host.mutations().len(), before);
}

/// A store that fails to record what is left, as a run killed after its posts would.
struct CrashOnRecord(MemoryFollowup);

impl FollowupStore for CrashOnRecord {
    type Error = Poisoned;
    fn load(&self) -> Result<FollowupState, Poisoned> {
        self.0.load()
    }
    fn update(&self, change: &mut dyn FnMut(&mut FollowupState)) -> Result<(), Poisoned> {
        self.0.update(change)
    }
    fn replace(&self, _: &FollowupState) -> Result<(), Poisoned> {
        Err(Poisoned)
    }
}

#[tokio::test]
async fn a_finish_resumed_after_a_crash_posts_nothing_twice() {
    let host = FakeHost::new(pr());
    let state = FollowupState {
        completions: vec![owed("BOT1"), owed("BOT2")],
        ..FollowupState::default()
    };
    let history = History::with(&[FIX]);
    let notes = Notes::default();
    // The first run posts and resolves, and dies before it records anything; the second run's
    // first reply lands while its answer is lost.
    let crashed = CrashOnRecord(MemoryFollowup::new(state.clone()));
    let err = finish(&host, &crashed, &history, &notes).await.unwrap_err();
    assert_eq!(err.kind, ErrorKind::Port);
    assert!(err.port_error::<Poisoned>().is_some());
    assert_eq!(replies(&host, "BOT1").len(), 1);

    // The threads were resolved: the resumed run answers nothing again.
    let store = MemoryFollowup::new(state.clone());
    let before = host.mutations().len();
    let tally = finish(&host, &store, &history, &notes).await.unwrap();
    assert_eq!(tally.replies, 0);
    assert_eq!(host.mutations().len(), before);
    assert!(notes.taken().contains(&Note::AlreadyResolved {
        thread: ThreadId("BOT1".to_owned())
    }));

    // Killed between a post and its resolve: the thread is open, its reply is there; the run
    // resumed finds the reply by its key, posts nothing, and resolves.
    let host = FakeHost::new(pr());
    host.lose_next_answer();
    let store = MemoryFollowup::new(FollowupState {
        completions: vec![owed("BOT1")],
        ..FollowupState::default()
    });
    let first = finish(&host, &store, &history, &notes).await.unwrap();
    assert_eq!(first.replies, 0, "the answer was lost: not counted");
    assert_eq!(
        store.load().unwrap().completions,
        vec![owed("BOT1")],
        "kept for the next run"
    );
    assert_eq!(replies(&host, "BOT1").len(), 1, "it landed all the same");
    let second = finish(&host, &store, &history, &notes).await.unwrap();
    assert_eq!((second.replies, second.resolved), (0, 1));
    assert_eq!(replies(&host, "BOT1").len(), 1, "never twice");
    assert_eq!(store.load().unwrap(), FollowupState::default());
}

#[tokio::test]
async fn a_persons_thread_is_never_replied_to_resolved_or_hidden() {
    let store = MemoryFollowup::new(FollowupState {
        completions: vec![owed("BOT1")],
        hide: vec![
            Hide {
                group: "R1".to_owned(),
                reviewer: "coderabbitai".to_owned(),
                threads: vec!["BOT1".to_owned()],
            },
            Hide {
                group: "R2".to_owned(),
                reviewer: "coderabbitai".to_owned(),
                threads: vec!["MIXED".to_owned()],
            },
        ],
        ..FollowupState::default()
    });
    let notes = Notes::default();
    // MIXED is resolved by a person meanwhile: its group may be hidden, but only the bot's
    // comment of it.
    let mut current = pr();
    for t in current.threads.iter_mut().filter(|t| t.id.0 == "MIXED") {
        t.is_resolved = true;
    }
    let host_resolved = FakeHost::new(current);
    let tally = finish(&host_resolved, &store, &History::with(&[FIX]), &notes)
        .await
        .unwrap();
    assert_eq!((tally.replies, tally.resolved), (1, 1));
    for t in ["MEI", "MIXED"] {
        assert!(
            !touched(&host_resolved, t),
            "{t}: {:?}",
            host_resolved.mutations()
        );
    }
    let pr = pr();
    let persons: Vec<&CommentId> = pr
        .threads
        .iter()
        .flat_map(|t| t.comments.iter())
        .filter(|c| c.author.as_ref().is_some_and(|a| a.login == "mei"))
        .map(|c| &c.id)
        .collect();
    let hidden: Vec<CommentId> = host_resolved
        .mutations()
        .into_iter()
        .filter_map(|m| match m {
            Mutation::Minimize(c) => Some(c),
            _ => None,
        })
        .collect();
    assert_eq!(
        hidden.len(),
        2,
        "the bot's comments of both groups: {hidden:?}"
    );
    assert!(hidden.iter().all(|c| !persons.contains(&c)), "{hidden:?}");
}

#[tokio::test]
async fn a_fix_not_on_the_head_waits_and_the_tally_counts_what_happened() {
    let host = FakeHost::new(pr());
    let mut by_hand = owed("BOT2");
    by_hand.sha = String::new();
    by_hand.since = Some("0000000".to_owned());
    by_hand.files = vec!["src/b.rs".to_owned()];
    let state = FollowupState {
        completions: vec![owed("BOT1"), by_hand.clone()],
        hide: vec![Hide {
            group: "R1".to_owned(),
            reviewer: "coderabbitai".to_owned(),
            threads: vec!["BOT1".to_owned(), "BOT2".to_owned()],
        }],
        ..FollowupState::default()
    };
    let store = MemoryFollowup::new(state.clone());
    let notes = Notes::default();
    // Nothing pushed yet: both wait, the group stays.
    let tally = finish(&host, &store, &History::with(&[]), &notes)
        .await
        .unwrap();
    assert_eq!(
        tally,
        Tally {
            waiting: 2,
            ..Tally::default()
        }
    );
    assert!(host.mutations().is_empty());
    assert_eq!(store.load().unwrap(), state, "everything kept");
    let said = notes.taken();
    assert!(said.contains(&Note::NotPushed {
        thread: ThreadId("BOT1".to_owned()),
        sha: FIX.to_owned()
    }));
    assert!(said.contains(&Note::NoManualFix {
        thread: ThreadId("BOT2".to_owned()),
        files: vec!["src/b.rs".to_owned()]
    }));
    assert!(said.contains(&Note::GroupOpen {
        reviewer: "coderabbitai".to_owned(),
        open: 2,
        threads: 2
    }));

    // The agent's fix is pushed; the one by hand touched another file: one waits still.
    let tally = finish(&host, &store, &History::with(&[FIX]), &notes)
        .await
        .unwrap();
    assert_eq!((tally.replies, tally.resolved, tally.waiting), (1, 1, 1));
    let left = store.load().unwrap();
    assert_eq!(left.completions, vec![by_hand]);
    assert_eq!(left.hide.len(), 1, "one of its threads is open");
}

fn issues(pr: &PullRequest) -> Vec<Issue> {
    let automation = AutomationSettings::default();
    followup::collect(pr, &review_classify::analyze(pr, &automation), &automation)
}

fn answers(issues: &[(&str, IssueAnswer)], groups: &[&str]) -> FormAnswers {
    FormAnswers {
        status: FormStatus::Submitted,
        issues: issues
            .iter()
            .map(|(id, a)| ((*id).to_owned(), a.clone()))
            .collect(),
        groups: groups
            .iter()
            .map(|g| ((*g).to_owned(), GroupAnswer { hide: true }))
            .collect::<BTreeMap<_, _>>(),
    }
}

fn say(text: &str) -> IssueAnswer {
    IssueAnswer {
        instruction: text.to_owned(),
        ..IssueAnswer::default()
    }
}

#[test]
fn answers_naming_unknown_threads_or_groups_are_refused_with_a_typed_error() {
    let pr = pr();
    let shown = issues(&pr);
    let notes = Notes::default();

    let err = check_answers(&notes, &answers(&[], &["R_ELSEWHERE"]), &shown, &pr).unwrap_err();
    assert_eq!(err.kind, ErrorKind::Invalid);
    assert!(err.message.contains("\"R_ELSEWHERE\""), "{}", err.message);
    let source = err
        .source
        .as_deref()
        .and_then(|s| s.downcast_ref::<UnknownAnswer>());
    assert_eq!(
        source,
        Some(&UnknownAnswer::Group("R_ELSEWHERE".to_owned()))
    );

    let err = check_answers(
        &notes,
        &answers(&[("NOPE", say("skip")), ("BOT1", say("skip"))], &[]),
        &shown,
        &pr,
    )
    .unwrap_err();
    assert_eq!(err.kind, ErrorKind::Invalid);
    assert!(
        err.message
            .contains("a thread this follow-up does not show"),
        "{}",
        err.message
    );
    let source = err
        .source
        .as_deref()
        .and_then(|s| s.downcast_ref::<UnknownAnswer>());
    assert_eq!(
        source,
        Some(&UnknownAnswer::Threads(vec!["NOPE".to_owned()]))
    );

    // A thread of the PR resolved since: left out, not refused.
    let mut resolved = pr;
    for t in resolved.threads.iter_mut().filter(|t| t.id.0 == "BOT2") {
        t.is_resolved = true;
    }
    let shown = issues(&resolved);
    check_answers(
        &notes,
        &answers(&[("BOT2", say("skip"))], &[]),
        &shown,
        &resolved,
    )
    .unwrap();
    assert_eq!(
        notes.taken(),
        vec![Note::AnswerLeftOut {
            thread: "BOT2".to_owned()
        }]
    );
}

/// A judge answering each question with `answer` (or failing with it, for `Err`).
struct FixedJudge(Result<String, String>);

impl Judge for FixedJudge {
    type Error = Poisoned;
    async fn ask(
        &self,
        questions: &[JudgeQuestion],
    ) -> Result<Vec<Result<String, String>>, Poisoned> {
        Ok(questions.iter().map(|_| self.0.clone()).collect())
    }
}

#[tokio::test]
async fn a_failing_judge_leaves_the_instructions_unclear() {
    let pr = pr();
    let shown = issues(&pr);
    let given = answers(
        &[("BOT1", say("I'll fix it in the allocator, thanks!"))],
        &[],
    );
    let sorted = followup::sort(
        &shown,
        &given,
        &review_classify::instruction::read_instruction,
    );
    assert_eq!(sorted.unclear.len(), 1, "{sorted:?}");
    let notes = Notes::default();

    let failing = FixedJudge(Err("timed out after 300 s".to_owned()));
    let kept = judge_unclear(&failing, &notes, sorted.clone(), &given)
        .await
        .unwrap();
    assert_eq!(
        kept.unclear, sorted.unclear,
        "the documented fallback: it stays unclear"
    );
    assert!(kept.fixes.is_empty() && kept.replies.is_empty());
    assert_eq!(
        notes.taken(),
        vec![Note::Judged {
            number: 1,
            verdict: Judged::Failed("timed out after 300 s".to_owned())
        }]
    );

    let unreadable = FixedJudge(Ok("no idea".to_owned()));
    let kept = judge_unclear(&unreadable, &Notes::default(), sorted.clone(), &given)
        .await
        .unwrap();
    assert_eq!(kept.unclear, sorted.unclear);

    let placing = FixedJudge(Ok(r#"{"intent": "fix"}"#.to_owned()));
    let notes = Notes::default();
    let placed = judge_unclear(&placing, &notes, sorted.clone(), &given)
        .await
        .unwrap();
    assert!(placed.unclear.is_empty());
    assert_eq!(placed.fixes.len(), 1);
    assert_eq!(
        placed.fixes[0].1.instruction,
        "I'll fix it in the allocator, thanks!"
    );
    assert_eq!(
        notes.taken(),
        vec![Note::Judged {
            number: 1,
            verdict: Judged::Placed(Intent::Fix)
        }]
    );

    // The selector set by hand is never second-guessed by the judge.
    let mut chosen = given.clone();
    if let Some(a) = chosen.issues.get_mut("BOT1") {
        a.action = ChosenAction::Fix;
        a.instruction = "   ".to_owned();
    }
    let sorted = followup::sort(
        &shown,
        &chosen,
        &review_classify::instruction::read_instruction,
    );
    let kept = judge_unclear(&placing, &Notes::default(), sorted.clone(), &chosen)
        .await
        .unwrap();
    assert_eq!(kept, sorted);
}

/// The fake host's reply, standing in for the operator's own words (the fake requires the
/// automated header; the body here is what `own_words_body` makes, so it is passed on with it).
struct Words<'a>(&'a FakeHost);

impl OwnWords for Words<'_> {
    type Error = HostError;
    async fn reply_in_own_words(
        &self,
        thread: &ThreadId,
        body: &str,
    ) -> Result<PostedComment, HostError> {
        let header = review_core::gate::DEFAULT_AUTOMATED_HEADER;
        self.0.reply(thread, &format!("{header}\n\n{body}")).await
    }
}

#[tokio::test]
async fn reply_only_threads_are_answered_once_and_resolved_as_asked() {
    let host = FakeHost::new(pr());
    let shown = issues(&pr());
    let pick = |id: &str, resolve: bool| {
        let issue = shown.iter().find(|i| i.thread_id == id).unwrap().clone();
        (
            issue,
            IssueAnswer {
                instruction: "It is deliberate: the bound is checked above.".to_owned(),
                auto_resolve: resolve,
                action: ChosenAction::Reply,
            },
        )
    };
    let planned = vec![pick("BOT1", true), pick("MEI", false)];
    let notes = Notes::default();
    let tally = post_own_replies(&host, &Words(&host), &notes, &pr(), &planned).await;
    assert_eq!((tally.replies, tally.resolved), (2, 1));
    assert_eq!(replies(&host, "BOT1").len(), 1);
    assert_eq!(
        replies(&host, "MEI").len(),
        1,
        "the operator's words, as asked"
    );
    assert!(
        !host
            .mutations()
            .iter()
            .any(|m| matches!(m, Mutation::Resolve(t) if t.0 == "MEI")),
        "not asked: not resolved"
    );
    // Again, on the PR as read now: replied before, not again.
    let before = host.mutations().len();
    let notes = Notes::default();
    let tally = post_own_replies(&host, &Words(&host), &notes, &host.current(), &planned).await;
    assert_eq!(tally.replies, 0);
    assert_eq!(host.mutations().len(), before + 1, "only the resolve again");
    assert!(notes.taken().contains(&Note::RepliedBefore { number: 1 }));

    // A failed reply leaves its thread open.
    let host = FakeHost::new(pr());
    host.fail_thread("BOT1");
    let notes = Notes::default();
    let tally = post_own_replies(&host, &Words(&host), &notes, &pr(), &planned[..1]).await;
    assert_eq!(tally, Tally::default());
    assert!(matches!(
        notes.taken()[0],
        Note::ReplyFailed { number: 1, .. }
    ));
}

/// A helper answering each question with `answer`, keeping what it was asked.
struct FixedHelper {
    answer: Result<String, String>,
    asked: std::sync::Mutex<Vec<Question>>,
}

impl FixedHelper {
    fn new(answer: Result<&str, &str>) -> Self {
        Self {
            answer: answer.map(str::to_owned).map_err(str::to_owned),
            asked: std::sync::Mutex::default(),
        }
    }
}

impl Ask for FixedHelper {
    fn ask(&self, _: Helper, questions: &[Question]) -> Option<Vec<Result<String, String>>> {
        if let Ok(mut asked) = self.asked.lock() {
            asked.extend(questions.iter().cloned());
        }
        Some(questions.iter().map(|_| self.answer.clone()).collect())
    }
}

fn page() -> FormPage {
    let pr = pr();
    let shown = issues(&pr);
    followup::form_page(&pr, &shown, &followup::Summary::of(&pr, &shown))
}

fn form_issues(page: &FormPage) -> Vec<FormIssue> {
    page.groups
        .iter()
        .flat_map(|g| g.issues.iter().cloned())
        .collect()
}

#[test]
fn a_failing_helper_leaves_the_page_as_the_reader_made_it() {
    let before = page();
    let n = form_issues(&before).len();

    // The translator fails: every comment and summary as written, each failure said.
    let mut translated = before.clone();
    let notes = Notes::default();
    translate(
        &FixedHelper::new(Err("timed out after 120 s")),
        &notes,
        &mut translated,
    );
    assert_eq!(translated, before);
    assert_eq!(
        notes.taken().len(),
        2 * n,
        "the comments, then the summaries"
    );
    assert!(matches!(
        &notes.taken()[0],
        Note::HelperFailed { helper: Helper::Translator, number: 1, why } if why == "timed out after 120 s"
    ));

    // The analyst answers what does not read: the reader's suggestion stays.
    let mut analysed = before.clone();
    let notes = Notes::default();
    let analyst = FixedHelper::new(Ok("I would fix it"));
    analyse(&analyst, &notes, &mut analysed);
    assert_eq!(analysed, before);
    assert_eq!(notes.taken()[0], Note::NoAnalysis { number: 1 });
    let asked = analyst.asked.lock().unwrap().clone();
    assert_eq!(asked.len(), n);
    assert_eq!(
        (asked[0].field, asked[0].text.as_str()),
        ("comment", "**Off by one.**")
    );

    // A translator that answers: the translation beside the original.
    let mut translated = before.clone();
    translate(
        &FixedHelper::new(Ok("  Um eins daneben.\n")),
        &Notes::default(),
        &mut translated,
    );
    let first = &form_issues(&translated)[0];
    assert_eq!(first.comment, "Um eins daneben.");
    assert_eq!(first.original, "**Off by one.**");
    assert_eq!(first.summary, "Um eins daneben.");

    // An analyst that answers: its suggestion.
    let mut analysed = before;
    analyse(
        &FixedHelper::new(Ok(r#"{"asks": "Fix the bound.", "action": "fix"}"#)),
        &Notes::default(),
        &mut analysed,
    );
    assert_eq!(form_issues(&analysed)[0].suggestion.asks, "Fix the bound.");
    assert_eq!(
        form_issues(&analysed)[0].suggestion.action,
        ChosenAction::Fix
    );
}

fn task(thread: &str) -> Task {
    Task {
        title: format!("Fix {thread}"),
        difficulty: Difficulty::Easy,
        threads: vec![thread.to_owned()],
        instructions: vec![(thread.to_owned(), "Check the bound".to_owned())],
        files: vec!["src/a.rs".to_owned()],
        auto_resolve: [(thread.to_owned(), true)].into_iter().collect(),
    }
}

/// A working tree at `head`, where `base` is an ancestor; commits since `denied_from` are
/// refused.
struct Tree {
    head: String,
    ancestors: Vec<String>,
    denied_from: Option<String>,
}

impl Workspace for Tree {
    fn head(&self) -> Option<String> {
        Some(self.head.clone())
    }
    fn short_head(&self) -> Option<String> {
        self.head.get(..7).map(str::to_owned)
    }
    fn is_ancestor(&self, ancestor: &str, descendant: &str) -> bool {
        descendant == self.head
            && (ancestor == self.head || self.ancestors.iter().any(|a| a == ancestor))
    }
    fn denied_commit(&self, from: &str, _: &str) -> Option<String> {
        (self.denied_from.as_deref() == Some(from))
            .then(|| "it touches .github/workflows/ci.yml".to_owned())
    }
}

/// An agent that commits `commit` for each task (or fails with `Err`), recording as it goes,
/// and counts its runs.
struct Agent {
    outcome: Result<Option<String>, String>,
    runs: std::sync::Mutex<Vec<String>>,
}

impl Agent {
    fn new(outcome: Result<Option<&str>, &str>) -> Self {
        Self {
            outcome: outcome.map(|o| o.map(str::to_owned)).map_err(str::to_owned),
            runs: std::sync::Mutex::default(),
        }
    }
    fn runs(&self) -> Vec<String> {
        self.runs.lock().map(|r| r.clone()).unwrap_or_default()
    }
}

impl Agents for Agent {
    fn marker(&self) -> Result<String, String> {
        Ok("0123456789abcdef".to_owned())
    }
    fn run(
        &self,
        _: DispatchMode,
        descriptions: &[String],
        record: &dyn Fn(TaskEvent<'_>),
    ) -> Vec<Result<Option<String>, String>> {
        descriptions
            .iter()
            .enumerate()
            .map(|(i, d)| {
                if let Ok(mut runs) = self.runs.lock() {
                    runs.push(d.clone());
                }
                record(TaskEvent::Started(i, "base0001"));
                record(TaskEvent::Finished(i, &self.outcome));
                self.outcome.clone()
            })
            .collect()
    }
}

#[test]
fn a_dispatch_killed_mid_task_loses_no_fix_and_repeats_none() {
    let pr = pr();
    let shown = issues(&pr);
    let tasks = [task("BOT1"), task("BOT2")];
    // The run before was killed while BOT1's agent worked: started on base0001, and it
    // committed; HEAD is its commit now.
    let store = MemoryFollowup::new(FollowupState {
        started: vec![Started {
            threads: vec!["BOT1".to_owned()],
            base: "base0001".to_owned(),
        }],
        ..FollowupState::default()
    });
    let tree = Tree {
        head: "c0ffee1234567".to_owned(),
        ancestors: vec!["base0001".to_owned()],
        denied_from: None,
    };
    let agent = Agent::new(Ok(Some("abc1234")));
    let notes = Notes::default();
    let ports = DispatchPorts {
        workspace: &tree,
        agents: &agent,
        store: &store,
    };
    let tally = ports
        .dispatch(&notes, &pr, &shown, &tasks, DispatchMode::Lead)
        .unwrap();
    assert_eq!((tally.tasks_done, tally.tasks_failed), (2, 0));
    let runs = agent.runs();
    assert_eq!(runs.len(), 1, "BOT1 is taken up, not dispatched again");
    assert!(
        runs[0].contains("task_0123456789abcdef"),
        "fenced: {}",
        runs[0]
    );
    assert_eq!(
        notes.taken()[0],
        Note::TaskTakenUp {
            title: "Fix BOT1".to_owned(),
            sha: "c0ffee1".to_owned()
        }
    );
    let state = store.load().unwrap();
    assert!(state.started.is_empty(), "{:?}", state.started);
    let owed: Vec<(&str, &str)> = state
        .completions
        .iter()
        .map(|c| (c.thread_id.as_str(), c.sha.as_str()))
        .collect();
    assert_eq!(owed, [("BOT1", "c0ffee1"), ("BOT2", "abc1234")]);

    // Run again: both were done; nothing is dispatched.
    let again = Agent::new(Ok(Some("fff0000")));
    let notes = Notes::default();
    let ports = DispatchPorts {
        workspace: &tree,
        agents: &again,
        store: &store,
    };
    let tally = ports
        .dispatch(&notes, &pr, &shown, &tasks, DispatchMode::Lead)
        .unwrap();
    assert_eq!(tally, Tally::default());
    assert!(again.runs().is_empty());
    assert_eq!(notes.taken().len(), 2);
    assert_eq!(store.load().unwrap(), state);
}

#[test]
fn a_denied_or_failed_task_is_counted_failed_and_owes_no_reply() {
    let pr = pr();
    let shown = issues(&pr);
    let store = MemoryFollowup::new(FollowupState {
        started: vec![Started {
            threads: vec!["BOT1".to_owned()],
            base: "base0001".to_owned(),
        }],
        ..FollowupState::default()
    });
    let tree = Tree {
        head: "c0ffee1234567".to_owned(),
        ancestors: vec!["base0001".to_owned()],
        denied_from: Some("base0001".to_owned()),
    };
    let agent = Agent::new(Err("the agent exited with status 1"));
    let notes = Notes::default();
    let ports = DispatchPorts {
        workspace: &tree,
        agents: &agent,
        store: &store,
    };
    let tally = ports
        .dispatch(
            &notes,
            &pr,
            &shown,
            &[task("BOT1"), task("BOT2")],
            DispatchMode::Lead,
        )
        .unwrap();
    assert_eq!((tally.tasks_done, tally.tasks_failed), (0, 2));
    assert_eq!(
        store.load().unwrap(),
        FollowupState::default(),
        "no reply owed"
    );
    assert!(matches!(&notes.taken()[0], Note::TaskFailed { why, .. } if why.contains("ci.yml")));
    assert!(matches!(&notes.taken()[1], Note::TaskFailed { why, .. } if why.contains("status 1")));
}

#[test]
fn tasks_by_hand_owe_their_replies_since_the_commit_they_were_written_at() {
    let pr = pr();
    let shown = issues(&pr);
    let mut state = FollowupState::default();
    let written = by_hand(
        &Agent::new(Ok(None)),
        &pr,
        &shown,
        &[task("BOT1")],
        Some("base0001"),
        &mut state,
    )
    .unwrap();
    assert_eq!(written.len(), 1);
    assert_eq!(written[0].title, "Fix BOT1");
    assert_eq!(state.completions.len(), 1);
    assert_eq!(state.completions[0].since.as_deref(), Some("base0001"));
    assert_eq!(state.completions[0].files, ["src/a.rs"]);

    // Left for finish: a second run keeps the first commit, and the group is listed once.
    let store = MemoryFollowup::new(FollowupState::default());
    let given = answers(&[], &["standalone:BOT1"]);
    leave_for_finish(&store, state.completions.clone(), hides(&given, &shown)).unwrap();
    let mut later = state.completions.clone();
    later[0].since = Some("later0002".to_owned());
    leave_for_finish(&store, later, hides(&given, &shown)).unwrap();
    let left = store.load().unwrap();
    assert_eq!(left.completions[0].since.as_deref(), Some("base0001"));
    assert_eq!(
        left.hide,
        [Hide {
            group: "standalone:BOT1".to_owned(),
            reviewer: "coderabbitai".to_owned(),
            threads: vec!["BOT1".to_owned()],
        }]
    );
}

#[tokio::test]
async fn the_plan_drops_what_was_resolved_since_and_keeps_the_unclear_for_the_operator() {
    let pr = pr();
    let shown = issues(&pr);
    // BOT2 is resolved on the host since the threads were collected.
    let mut now = pr.clone();
    for t in now.threads.iter_mut().filter(|t| t.id.0 == "BOT2") {
        t.is_resolved = true;
    }
    let host = FakeHost::new(now);
    let notes = Notes::default();
    let given = answers(
        &[
            ("BOT1", say("fix: check the bound")),
            ("BOT2", say("reply: It is deliberate.")),
        ],
        &[],
    );
    let planned = plan(
        None::<&FixedJudge>,
        &HostReread(&host),
        &notes,
        &pr,
        &shown,
        &given,
    )
    .await
    .unwrap();
    let Planned::Plan { sorted, tasks, .. } = planned else {
        panic!("{planned:?}");
    };
    assert_eq!(tasks.len(), 1);
    assert!(sorted.replies.is_empty(), "{:?}", sorted.replies);
    assert_eq!(
        notes.taken(),
        vec![Note::DroppedStale {
            thread: "BOT2".to_owned()
        }]
    );
    assert!(host.mutations().is_empty());

    let unclear = answers(
        &[("BOT1", say("I'll fix it in the allocator, thanks!"))],
        &[],
    );
    let failing = FixedJudge(Err("timed out".to_owned()));
    let planned = plan(
        Some(&failing),
        &HostReread(&host),
        &Notes::default(),
        &pr,
        &shown,
        &unclear,
    )
    .await
    .unwrap();
    assert!(
        matches!(&planned, Planned::Unclear(u) if u.len() == 1),
        "{planned:?}"
    );

    let skipped = answers(&[("BOT1", say("skip"))], &[]);
    let planned = plan(
        None::<&FixedJudge>,
        &HostReread(&host),
        &Notes::default(),
        &pr,
        &shown,
        &skipped,
    )
    .await
    .unwrap();
    assert_eq!(planned, Planned::Nothing);
}
