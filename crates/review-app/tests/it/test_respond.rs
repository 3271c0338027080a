//! `respond` against the fake host and in-memory stores: each reply posted once ever, a crash
//! between a post and its record reconciled without a second post, people's threads never
//! replied to, replies about fixes waiting for the push, settled threads left alone, and
//! failures that say what kind they are.

use review_app::ErrorKind;
use review_app::ports::{DecisionsStore, MemoryDecisions, Poisoned};
use review_app::respond::{
    Already, Failure, FixCommit, FixHistory, HostRereads, LedgerStore, MemoryLedger, NoHistory,
    Note, Notes, ReplyOutcome, Rereads, RespondPorts, Responded, Skip, Source, Wait,
    check_citations, landed_fix,
};
use review_app::watch_store::{MemoryLoop, MemoryWatch};
use review_core::decisions::{Decisions, Escalation, Seen, Settled, Verdict};
use review_core::gate::{AutomationSettings, Refusal};
use std::time::Duration;

use review_core::model::{CommentId, PullRequest, RepoId, ThreadId};
use review_core::ports::{HostError, MaybePosted, MinimizeReason, PostedComment, ReviewHost};
use review_core::reply::{Awaited, Ledger, Reply, ReplyTarget};
use review_core::watch::{Repost, WatchState};
use review_test_support::{FakeHost, HEAD_SHA, Mutation, PrBuilder, bot, person};

/// A PR with two bot threads (`BOT1`, `BOT2`) and one a person took part in (`MIXED`).
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
        .thread(
            "MIXED",
            "src/c.rs",
            1,
            &[
                (bot("coderabbitai"), "**Rename it.**"),
                (person("mei"), "I disagree."),
            ],
        )
        .build()
}

fn seen(thread: &str, verdict: Verdict, sha: Option<&str>) -> Seen {
    Seen {
        thread_id: thread.into(),
        verdict,
        reasoning: "the bound is deliberate".to_owned(),
        evidence: Vec::new(),
        fix_sketch: None,
        resolved_sha: sha.map(str::to_owned),
        decided_in_round: 1,
        path: String::new(),
        replied: Some(false),
        settled: None,
    }
}

fn decisions(entries: &[(&str, Seen)]) -> Decisions {
    Decisions {
        round: 1,
        seen: entries
            .iter()
            .map(|(fp, s)| ((*fp).to_owned(), s.clone()))
            .collect(),
        ..Decisions::default()
    }
}

fn files(d: Decisions, watch: Option<WatchState>) -> MemoryLoop {
    MemoryLoop {
        decisions: MemoryDecisions::new(d),
        watch: MemoryWatch::new(watch),
    }
}

/// Runs `respond` once on the host's PR as it is now.
async fn run<S: LedgerStore, F: FixHistory>(
    host: &FakeHost,
    ledger: &S,
    history: &F,
    files: Option<&MemoryLoop>,
    source: Source,
) -> Result<(Responded, Vec<Note>), review_app::AppError> {
    let notes = Notes::default();
    let rereads = HostRereads(host);
    let ports = RespondPorts {
        host,
        rereads: &rereads,
        ledger,
        history,
        files,
        channels: &review_app::respond::TABLE,
        deferral: None,
    };
    let pr = host.current();
    let responded = ports
        .respond(&notes, &pr, source, &AutomationSettings::default())
        .await?;
    Ok((responded, notes.taken()))
}

/// Runs `respond` outside a clone with `replies` given, on the host's PR as it is now.
async fn outside(host: &FakeHost, ledger: &MemoryLedger, replies: Vec<Reply>) -> Responded {
    let (out, _) = run(host, ledger, &NoHistory, None, Source::Given(replies))
        .await
        .expect("in-memory stores do not fail");
    out
}

fn replies_posted(host: &FakeHost) -> Vec<ThreadId> {
    host.mutations()
        .into_iter()
        .filter_map(|m| match m {
            Mutation::Reply(t, _) => Some(t),
            _ => None,
        })
        .collect()
}

/// The ports of a run outside a clone (no loop files, no history).
fn outside_the_loop<'a, R: Rereads>(
    host: &'a FakeHost,
    rereads: &'a R,
    ledger: &'a MemoryLedger,
) -> RespondPorts<'a, FakeHost, R, MemoryLedger, NoHistory, MemoryLoop> {
    RespondPorts {
        host,
        rereads,
        ledger,
        history: &NoHistory,
        files: None,
        channels: &review_app::respond::TABLE,
        deferral: None,
    }
}

/// Whether `outcome` is a reply the host refused or failed, surely not posted.
fn refused_post(outcome: &ReplyOutcome) -> bool {
    matches!(
        outcome,
        ReplyOutcome::Failed {
            why: Failure::Reply {
                uncertain: false,
                ..
            },
            ..
        }
    )
}

fn thread(id: &str) -> ReplyTarget {
    ReplyTarget::Thread(ThreadId(id.to_owned()))
}

#[tokio::test]
async fn replies_are_posted_once_and_a_rerun_posts_nothing() {
    let host = FakeHost::new(pr());
    let ledger = MemoryLedger::default();
    let given = vec![
        Reply::thread("BOT1", "Not applying this — deliberate.".to_owned(), true),
        Reply::thread("BOT2", "Out of scope.".to_owned(), false),
    ];
    let first = outside(&host, &ledger, given.clone()).await;
    assert!(
        matches!(&first.outcomes[..], [
            ReplyOutcome::Posted { target: a, .. },
            ReplyOutcome::Posted { target: b, .. },
            ReplyOutcome::Resolved { thread: r },
        ] if *a == thread("BOT1") && *b == thread("BOT2") && r.0 == "BOT1"),
        "{:?}",
        first.outcomes
    );
    assert_eq!((first.failed(), first.uncertain(), first.asked), (0, 0, 2));
    assert_eq!(ledger.load_ledger().unwrap().posted.len(), 2);
    // Each reply carries the header and its key.
    let pr = host.current();
    let body = &pr.thread(&ThreadId("BOT2".into())).unwrap().comments[1].body;
    assert!(review_core::post::find_key(body).is_some(), "{body}");

    let again = outside(&host, &ledger, given).await;
    assert!(
        again.outcomes.iter().all(|o| matches!(
            o,
            ReplyOutcome::AlreadyPosted {
                when: Already::Before,
                ..
            }
        )),
        "{:?}",
        again.outcomes
    );
    assert_eq!(replies_posted(&host).len(), 2, "nothing posted twice");
}

/// A ledger whose every save fails: the run stops as a process killed between the post and
/// the record would, with the post made and nothing recorded.
#[derive(Debug, Default)]
struct Crashing;

#[derive(Debug, thiserror::Error)]
#[error("killed before the record")]
struct Killed;

impl LedgerStore for Crashing {
    type Error = Killed;
    fn load_ledger(&self) -> Result<Ledger, Killed> {
        Ok(Ledger::default())
    }
    fn save_ledger(&self, _: &Ledger) -> Result<(), Killed> {
        Err(Killed)
    }
}

#[tokio::test]
async fn a_crash_between_the_post_and_its_record_is_reconciled_without_a_second_post() {
    let host = FakeHost::new(pr());
    let given = vec![Reply::thread("BOT1", "Not applying this.".to_owned(), true)];
    let err = run(
        &host,
        &Crashing,
        &NoHistory,
        None,
        Source::Given(given.clone()),
    )
    .await
    .unwrap_err();
    assert_eq!(err.kind, ErrorKind::Port);
    assert!(
        err.port_error::<Killed>().is_some(),
        "the store's own error"
    );
    assert_eq!(replies_posted(&host).len(), 1, "posted, not recorded");

    // The next run finds the reply by its key, records it, and posts nothing; it resolves what
    // the crash left open.
    let ledger = MemoryLedger::default();
    let rerun = outside(&host, &ledger, given).await;
    assert!(
        matches!(
            &rerun.outcomes[..],
            [
                ReplyOutcome::AlreadyPosted {
                    when: Already::Before,
                    ..
                },
                ReplyOutcome::Resolved { .. }
            ]
        ),
        "{:?}",
        rerun.outcomes
    );
    assert_eq!(replies_posted(&host).len(), 1, "no second post");
    let recorded = ledger.load_ledger().unwrap();
    let posted: Vec<_> = recorded.posted.values().collect();
    assert_eq!(posted.len(), 1);
    assert_eq!(posted[0].thread, "BOT1");
}

#[tokio::test]
async fn peoples_threads_are_never_replied_to_and_their_decisions_are_handed_over() {
    let host = FakeHost::new(pr());
    let ledger = MemoryLedger::default();
    let given = vec![Reply::thread("MIXED", "Renamed.".to_owned(), true)];
    // Outside the loop: skipped.
    let out = outside(&host, &ledger, given.clone()).await;
    assert!(
        matches!(
            &out.outcomes[..],
            [ReplyOutcome::Skipped {
                why: Skip::Refused(Refusal::Human(_)),
                ..
            }]
        ),
        "{:?}",
        out.outcomes
    );
    // With a decision owed on it: handed to a person, no reply owed any more.
    let loop_files = files(
        decisions(&[("f1", seen("MIXED", Verdict::FalsePositive, None))]),
        None,
    );
    let (out, _) = run(
        &host,
        &ledger,
        &NoHistory,
        Some(&loop_files),
        Source::FromDecisions,
    )
    .await
    .unwrap();
    assert!(
        matches!(&out.outcomes[..], [ReplyOutcome::HandedOver { thread, .. }] if thread.0 == "MIXED"),
        "{:?}",
        out.outcomes
    );
    let d = loop_files.load().unwrap();
    assert_eq!(d.seen["f1"].settled, Some(Settled::HandedToPerson));
    assert!(host.mutations().is_empty(), "nothing posted or resolved");
}

#[tokio::test]
async fn a_person_who_answers_between_the_read_and_the_post_takes_the_thread() {
    // The PR as first read has a bot-only thread; the host has a person's reply in it since.
    let read = pr();
    let host = FakeHost::new(
        PrBuilder::new()
            .thread(
                "BOT1",
                "src/a.rs",
                3,
                &[
                    (bot("coderabbitai"), "**Off by one.**"),
                    (person("mei"), "Wait, I will fix it."),
                ],
            )
            .build(),
    );
    let ledger = MemoryLedger::default();
    let rereads = HostRereads(&host);
    let ports = outside_the_loop(&host, &rereads, &ledger);
    let replies = [Reply::thread("BOT1", "Not applying this.".to_owned(), true)];
    let out = ports
        .post_replies(&read, &replies, &AutomationSettings::default())
        .await
        .unwrap();
    assert!(
        matches!(
            &out.outcomes[..],
            [ReplyOutcome::Skipped {
                why: Skip::RefusedSinceRead(Refusal::Human(_)),
                ..
            }]
        ),
        "{:?}",
        out.outcomes
    );
    assert!(host.mutations().is_empty());
}

/// A history that knows some commits, some of them on the PR's head, and the PR's fix
/// commits by their trailers.
#[derive(Debug, Default)]
struct Known {
    /// Full ids it has.
    commits: Vec<String>,
    /// Those that are on the head.
    on_head: Vec<String>,
    /// The PR's own fix commits.
    fixes: Vec<FixCommit>,
}

impl FixHistory for Known {
    fn resolve_commit(&self, rev: &str) -> Option<String> {
        self.commits.iter().find(|c| c.starts_with(rev)).cloned()
    }
    fn has_commit(&self, sha: &str) -> bool {
        sha == HEAD_SHA || self.commits.iter().any(|c| c == sha)
    }
    fn is_ancestor(&self, ancestor: &str, descendant: &str) -> bool {
        descendant == HEAD_SHA && self.on_head.iter().any(|c| c == ancestor)
    }
    fn fix_commits(&self, _: Option<&str>, _: &str) -> Option<Vec<FixCommit>> {
        Some(self.fixes.clone())
    }
    fn patch_id(&self, _: &str) -> Option<String> {
        None
    }
}

const FIX: &str = "f1f1f1f1f1f1f1f1f1f1f1f1f1f1f1f1f1f1f1f1";
const LANDED: &str = "0a0a0a0a0a0a0a0a0a0a0a0a0a0a0a0a0a0a0a0a";

#[tokio::test]
async fn a_reply_about_a_fix_waits_for_the_push_then_cites_the_fix_as_it_landed() {
    let host = FakeHost::new(pr());
    let ledger = MemoryLedger::default();
    let loop_files = files(
        decisions(&[("f1", seen("BOT1", Verdict::Valid, Some(FIX)))]),
        None,
    );
    // The fix is only local: the reply waits.
    let local = Known {
        commits: vec![FIX.to_owned()],
        ..Known::default()
    };
    let (out, _) = run(
        &host,
        &ledger,
        &local,
        Some(&loop_files),
        Source::FromDecisions,
    )
    .await
    .unwrap();
    assert!(
        matches!(
            &out.outcomes[..],
            [ReplyOutcome::AwaitingPush {
                wait: Wait::Awaited {
                    awaited: Awaited::OwnFix(c),
                    ..
                },
                ..
            }] if c == FIX
        ),
        "{:?}",
        out.outcomes
    );
    assert!(out.outcomes[0].is_standing());
    assert!(host.mutations().is_empty());
    // Pushed after a rebase: the PR's commit whose trailer names the thread is cited.
    let pushed = Known {
        commits: vec![FIX.to_owned(), LANDED.to_owned()],
        on_head: vec![LANDED.to_owned()],
        fixes: vec![FixCommit {
            sha: LANDED.to_owned(),
            threads: vec!["BOT1".to_owned()],
        }],
    };
    assert_eq!(
        landed_fix(&pushed, &host.current(), "BOT1", FIX).as_deref(),
        Some(LANDED)
    );
    let (out, _) = run(
        &host,
        &ledger,
        &pushed,
        Some(&loop_files),
        Source::FromDecisions,
    )
    .await
    .unwrap();
    assert!(
        matches!(
            &out.outcomes[..],
            [ReplyOutcome::Posted { .. }, ReplyOutcome::Resolved { .. }]
        ),
        "{:?}",
        out.outcomes
    );
    let posted = host.mutations();
    let Some(Mutation::Reply(_, body)) = posted.first() else {
        panic!("{posted:?}");
    };
    assert!(body.contains("Fixed in 0a0a0a0 "), "{body}");
    assert_eq!(loop_files.load().unwrap().seen["f1"].replied, Some(true));
}

#[tokio::test]
async fn a_reply_citing_an_unpushed_commit_waits_and_one_citing_an_unknown_commit_is_refused() {
    let host = FakeHost::new(pr());
    let pr = host.current();
    let local = Known {
        commits: vec![FIX.to_owned()],
        ..Known::default()
    };
    let unpushed = vec![Reply::thread("BOT1", "Fixed in f1f1f1f.".to_owned(), true)];
    check_citations(&local, &pr, &unpushed).unwrap();
    let (out, _) = run(
        &host,
        &MemoryLedger::default(),
        &local,
        None,
        Source::Given(unpushed),
    )
    .await
    .unwrap();
    assert!(
        matches!(&out.outcomes[..], [ReplyOutcome::AwaitingPush { wait: Wait::Cites { sha, .. }, .. }] if sha == "f1f1f1f"),
        "{:?}",
        out.outcomes
    );
    let unknown = vec![Reply::thread(
        "BOT1",
        "Fixed in `abcdef1`.".to_owned(),
        true,
    )];
    let err = check_citations(&local, &pr, &unknown).unwrap_err();
    assert_eq!(err.kind, ErrorKind::Invalid);
    assert!(err.message.contains("BOT1 cites abcdef1"), "{err}");
    assert!(err.hint.unwrap().contains("nothing was posted"));
    assert!(host.mutations().is_empty());
}

#[tokio::test]
async fn settled_and_escalated_threads_are_not_answered() {
    // BOT1 was resolved on GitHub before its answer; BOT2 is escalated.
    let mut read = pr();
    read.threads[0].is_resolved = true;
    let host = FakeHost::new(read);
    let mut d = decisions(&[("f1", seen("BOT1", Verdict::FalsePositive, None))]);
    d.escalated.push(Escalation {
        fingerprint: "f2".to_owned(),
        thread_id: "BOT2".into(),
        reason: "security-sensitive".to_owned(),
        escalated_in_round: 1,
    });
    let loop_files = files(d, None);
    let ledger = MemoryLedger::default();
    let (out, notes) = run(
        &host,
        &ledger,
        &NoHistory,
        Some(&loop_files),
        Source::FromDecisions,
    )
    .await
    .unwrap();
    assert!(out.outcomes.is_empty(), "{:?}", out.outcomes);
    assert_eq!(
        notes,
        [Note::ClosedBeforeAnswer {
            thread: "BOT1".to_owned()
        }]
    );
    assert_eq!(
        loop_files.load().unwrap().seen["f1"].settled,
        Some(Settled::ClosedOnGitHub)
    );
    // A reply given for the escalated thread is skipped.
    let given = vec![Reply::thread("BOT2", "Not applying this.".to_owned(), true)];
    let (out, _) = run(
        &host,
        &ledger,
        &NoHistory,
        Some(&loop_files),
        Source::Given(given),
    )
    .await
    .unwrap();
    assert_eq!(
        out.outcomes,
        [ReplyOutcome::Skipped {
            target: thread("BOT2"),
            why: Skip::Escalated
        }]
    );
    assert!(host.mutations().is_empty());
}

#[tokio::test]
async fn a_repost_seen_three_times_is_escalated_and_a_fresh_one_points_to_the_decision() {
    let host = FakeHost::new(pr());
    let repost = |thread: &str, count| Repost {
        fingerprint: "f1".to_owned(),
        thread_id: thread.into(),
        prior_thread_id: "OLD".into(),
        prior_verdict: Verdict::FalsePositive,
        count,
        all_comments_read: true,
    };
    let watch = WatchState {
        reposted: vec![repost("BOT1", 1), repost("BOT2", 3)],
        ..WatchState::default()
    };
    let mut prior = seen("OLD", Verdict::FalsePositive, None);
    prior.replied = Some(true);
    let loop_files = files(decisions(&[("f1", prior)]), Some(watch));
    let (out, notes) = run(
        &host,
        &MemoryLedger::default(),
        &NoHistory,
        Some(&loop_files),
        Source::FromDecisions,
    )
    .await
    .unwrap();
    assert!(
        matches!(&out.outcomes[..], [ReplyOutcome::Posted { target, .. }, ReplyOutcome::Resolved { .. }] if *target == thread("BOT1")),
        "{:?}",
        out.outcomes
    );
    assert_eq!(
        notes,
        [
            Note::RepostEscalated {
                thread: "BOT2".to_owned(),
                count: 3
            },
            // The one reply's batch names its account (the fake's read names none).
            Note::PostingAs {
                login: None,
                replies: 1
            }
        ]
    );
    let d = loop_files.load().unwrap();
    assert!(d.is_escalated_thread(&"BOT2".into()));
    assert_eq!(d.answered_reposts.get(&"BOT1".into()), Some(&true));
    let Some(Mutation::Reply(_, body)) = host.mutations().into_iter().next() else {
        panic!("no reply");
    };
    assert!(body.contains("raised before"), "{body}");
}

#[tokio::test]
async fn a_spent_rate_limit_stops_the_replies_instead_of_trying_each() {
    let host = FakeHost::new(pr());
    let ledger = MemoryLedger::default();
    let rereads = HostRereads(&host);
    let ports = outside_the_loop(&host, &rereads, &ledger);
    let read = host.current();
    host.fail_thread("BOT1");
    let replies = [
        Reply::thread("BOT1", "One.".to_owned(), true),
        Reply::thread("BOT2", "Two.".to_owned(), true),
    ];
    let out = ports
        .post_replies(&read, &replies, &AutomationSettings::default())
        .await
        .unwrap();
    assert!(
        matches!(
            &out.outcomes[..],
            [f, ReplyOutcome::Posted { .. }, ReplyOutcome::Resolved { .. }] if refused_post(f)
        ),
        "an unavailable thread fails alone: {:?}",
        out.outcomes
    );
    assert_eq!(out.failed(), 1);
    // With the limit spent, the first refused post stops the run: the rest are not tried.
    host.spend_rate_limit(None);
    let rereads = Fixed(read.clone());
    let ports = outside_the_loop(&host, &rereads, &ledger);
    let replies = [
        Reply::thread("BOT1", "Three.".to_owned(), true),
        Reply::thread("BOT2", "Four.".to_owned(), true),
        Reply::thread("BOT2", "Five.".to_owned(), true),
    ];
    let out = ports
        .post_replies(&read, &replies, &AutomationSettings::default())
        .await
        .unwrap();
    assert!(
        matches!(&out.outcomes[..], [f, ReplyOutcome::Stopped { left: 2 }] if refused_post(f)),
        "{:?}",
        out.outcomes
    );
    assert_eq!(out.failed(), 3, "the refused one and the two not tried");
}

/// Reads again what it was given: the host's own reads are refused in the test.
#[derive(Debug)]
struct Fixed(PullRequest);

impl Rereads for Fixed {
    type Error = std::convert::Infallible;
    async fn thread(&self, _: &PullRequest, id: &ThreadId) -> Option<review_core::model::Thread> {
        self.0.thread(id).cloned()
    }
    async fn pull_request(&self, _: &PullRequest) -> Result<PullRequest, Self::Error> {
        Ok(self.0.clone())
    }
}

/// A host whose replies land but whose answers are lost: the adapter says each may have been
/// posted.
#[derive(Debug)]
struct LostAnswers(FakeHost);

#[async_trait::async_trait]
impl ReviewHost for LostAnswers {
    async fn pull_request(&self, repo: &RepoId, number: u64) -> Result<PullRequest, HostError> {
        self.0.pull_request(repo, number).await
    }
    async fn resolve_threads(&self, threads: &[ThreadId]) -> Vec<Result<(), HostError>> {
        self.0.resolve_threads(threads).await
    }
    async fn unresolve_thread(&self, thread: &ThreadId) -> Result<(), HostError> {
        self.0.unresolve_thread(thread).await
    }
    async fn reply(&self, thread: &ThreadId, body: &str) -> Result<PostedComment, HostError> {
        self.0.reply(thread, body).await?;
        Err(HostError::Unavailable {
            message: "the reply may have been posted".to_owned(),
            source: Some(Box::new(MaybePosted {
                looked: Duration::from_secs(5),
            })),
        })
    }
    async fn comment(&self, subject: &str, body: &str) -> Result<PostedComment, HostError> {
        self.0.comment(subject, body).await
    }
    async fn minimize(&self, comment: &CommentId, reason: MinimizeReason) -> Result<(), HostError> {
        self.0.minimize(comment, reason).await
    }
}

#[tokio::test]
async fn a_reply_whose_answer_was_lost_is_uncertain_and_the_next_run_finds_it() {
    let host = LostAnswers(FakeHost::new(pr()));
    let ledger = MemoryLedger::default();
    let rereads = HostRereads(&host);
    let ports = RespondPorts {
        host: &host,
        rereads: &rereads,
        ledger: &ledger,
        history: &NoHistory,
        files: None::<&MemoryLoop>,
        channels: &review_app::respond::TABLE,
        deferral: None,
    };
    let replies = [Reply::thread("BOT1", "Not applying this.".to_owned(), true)];
    let out = ports
        .post_replies(&host.0.current(), &replies, &AutomationSettings::default())
        .await
        .unwrap();
    assert!(
        matches!(
            &out.outcomes[..],
            [ReplyOutcome::Failed {
                why: Failure::Reply {
                    uncertain: true,
                    ..
                },
                ..
            }]
        ),
        "not resolved: {:?}",
        out.outcomes
    );
    assert_eq!((out.failed(), out.uncertain()), (0, 1));
    let again = ports
        .post_replies(&host.0.current(), &replies, &AutomationSettings::default())
        .await
        .unwrap();
    assert!(
        matches!(
            &again.outcomes[..],
            [
                ReplyOutcome::AlreadyPosted { .. },
                ReplyOutcome::Resolved { .. }
            ]
        ),
        "{:?}",
        again.outcomes
    );
    assert_eq!(replies_posted(&host.0).len(), 1, "posted once");
}

/// Loop files that cannot be read.
#[derive(Debug)]
struct Unreadable;

impl DecisionsStore for Unreadable {
    type Error = Poisoned;
    fn load(&self) -> Result<Decisions, Poisoned> {
        Err(Poisoned)
    }
    fn update(&self, _: &mut dyn FnMut(&mut Decisions)) -> Result<(), Poisoned> {
        Err(Poisoned)
    }
}

#[tokio::test]
async fn failures_say_their_kind() {
    let host = FakeHost::new(pr());
    // From the decisions with no loop files: invalid, nothing posted.
    let err = run(
        &host,
        &MemoryLedger::default(),
        &NoHistory,
        None,
        Source::FromDecisions,
    )
    .await
    .unwrap_err();
    assert_eq!(err.kind, ErrorKind::Invalid);
    assert!(err.hint.is_some());
    // A store that fails: a port error carrying the store's own.
    let err = review_app::respond::reconcile(&Unreadable, &host.current()).unwrap_err();
    assert_eq!(err.kind, ErrorKind::Port);
    assert!(err.port_error::<Poisoned>().is_some());
    assert!(host.mutations().is_empty());
}

#[tokio::test]
async fn a_reviews_out_of_diff_findings_get_one_comment_once() {
    let read = PrBuilder::new()
        .with_pr(|pr| {
            pr.reviews.push(review_core::model::Review {
                id: review_core::model::ReviewId("PRR_1".to_owned()),
                author: Some(bot("coderabbitai")),
                state: review_core::model::ReviewState::Commented,
                body: "Outside the diff: `src/z.rs`".to_owned(),
                submitted_at: None,
                commit: None,
            });
        })
        .build();
    let host = FakeHost::new(read);
    let ledger = MemoryLedger::default();
    let given = vec![Reply::review(
        "PRR_1",
        "Both findings are stale.".to_owned(),
    )];
    let out = outside(&host, &ledger, given.clone()).await;
    assert!(
        matches!(&out.outcomes[..], [ReplyOutcome::Posted { target: ReplyTarget::Review(r), .. }] if r.0 == "PRR_1"),
        "{:?}",
        out.outcomes
    );
    let out = outside(&host, &ledger, given).await;
    assert!(
        matches!(&out.outcomes[..], [ReplyOutcome::AlreadyPosted { .. }]),
        "{:?}",
        out.outcomes
    );
    let comments = host
        .mutations()
        .into_iter()
        .filter(|m| matches!(m, Mutation::Comment(_)))
        .count();
    assert_eq!(comments, 1);
    // No such review: a failure outcome, nothing posted.
    let out = outside(&host, &ledger, vec![Reply::review("PRR_9", "x".to_owned())]).await;
    assert_eq!(
        out.outcomes,
        [ReplyOutcome::Failed {
            target: ReplyTarget::Review(review_core::model::ReviewId("PRR_9".to_owned())),
            why: Failure::NoSuchReview { number: 1 }
        }]
    );
    assert_eq!(out.failed(), 1);
}

/// A PR with one thread each from Copilot (reads no replies), CodeQL (resolves its own fixed
/// threads) and CodeRabbit (reads replies).
fn channels_pr() -> PullRequest {
    PrBuilder::new()
        .thread(
            "COP",
            "src/a.rs",
            3,
            &[(
                bot("copilot-pull-request-reviewer"),
                "The loop skips the last item: use `0..=n`.",
            )],
        )
        .thread(
            "CQL",
            "src/b.rs",
            9,
            &[(
                bot("github-advanced-security"),
                "## Uncontrolled data used in path expression\n\nThis path depends on a user-provided value.",
            )],
        )
        .thread(
            "CR",
            "src/c.rs",
            1,
            &[(bot("coderabbitai"), "**Off by one.**")],
        )
        .build()
}

/// Every thread decided VALID, each fix landed on the head.
fn fixed_everywhere() -> (MemoryLoop, Known) {
    let loop_files = files(
        decisions(&[
            ("f1", seen("COP", Verdict::Valid, Some(FIX))),
            ("f2", seen("CQL", Verdict::Valid, Some(FIX))),
            ("f3", seen("CR", Verdict::Valid, Some(FIX))),
        ]),
        None,
    );
    let history = Known {
        commits: vec![FIX.to_owned()],
        on_head: vec![FIX.to_owned()],
        fixes: vec![FixCommit {
            sha: FIX.to_owned(),
            threads: vec!["COP".to_owned(), "CQL".to_owned(), "CR".to_owned()],
        }],
    };
    (loop_files, history)
}

async fn respond_with(
    host: &FakeHost,
    loop_files: &MemoryLoop,
    history: &Known,
    channels: &review_app::respond::Channels,
    source: Source,
) -> Responded {
    let ledger = MemoryLedger::default();
    let rereads = HostRereads(host);
    let ports = RespondPorts {
        host,
        rereads: &rereads,
        ledger: &ledger,
        history,
        files: Some(loop_files),
        channels,
        deferral: None,
    };
    ports
        .respond(
            &Notes::default(),
            &host.current(),
            source,
            &AutomationSettings::default(),
        )
        .await
        .expect("in-memory stores do not fail")
}

#[tokio::test]
async fn each_bot_is_answered_on_its_own_channel_and_the_decision_settled() {
    let host = FakeHost::new(channels_pr());
    let (loop_files, history) = fixed_everywhere();
    let out = respond_with(
        &host,
        &loop_files,
        &history,
        &review_app::respond::TABLE,
        Source::FromDecisions,
    )
    .await;
    // Copilot does not read replies: resolved without one. CodeQL resolves its own fixed
    // threads: left to it, neither replied to nor resolved. CodeRabbit reads replies: answered.
    assert_eq!(
        replies_posted(&host),
        [ThreadId::from("CR")],
        "{:?}",
        out.outcomes
    );
    let resolved: Vec<ThreadId> = host
        .mutations()
        .into_iter()
        .filter_map(|m| match m {
            Mutation::Resolve(t) => Some(t),
            _ => None,
        })
        .collect();
    assert!(resolved.contains(&ThreadId::from("COP")), "{resolved:?}");
    assert!(!resolved.contains(&ThreadId::from("CQL")), "{resolved:?}");
    assert!(out.outcomes.iter().any(|o| matches!(o,
        ReplyOutcome::Unsaid { thread, how: Settled::ResolvedWithoutReply } if thread.0 == "COP")));
    assert!(out.outcomes.iter().any(|o| matches!(o,
        ReplyOutcome::Unsaid { thread, how: Settled::LeftToBot } if thread.0 == "CQL")));
    let d = loop_files.decisions.load().unwrap();
    assert_eq!(d.seen["f1"].settled, Some(Settled::ResolvedWithoutReply));
    assert_eq!(d.seen["f2"].settled, Some(Settled::LeftToBot));
    assert_eq!(
        d.owed().count(),
        0,
        "quiescence counts every decision answered"
    );

    // A second run does nothing more.
    let before = host.mutations().len();
    respond_with(
        &host,
        &loop_files,
        &history,
        &review_app::respond::TABLE,
        Source::FromDecisions,
    )
    .await;
    assert_eq!(host.mutations().len(), before);
}

#[tokio::test]
async fn a_reply_about_a_fix_not_yet_landed_waits_whatever_the_channel() {
    let host = FakeHost::new(channels_pr());
    let (loop_files, _) = fixed_everywhere();
    let local = Known {
        commits: vec![FIX.to_owned()],
        ..Known::default()
    };
    let out = respond_with(
        &host,
        &loop_files,
        &local,
        &review_app::respond::TABLE,
        Source::FromDecisions,
    )
    .await;
    assert!(
        out.outcomes
            .iter()
            .all(|o| matches!(o, ReplyOutcome::AwaitingPush { .. })),
        "nothing is resolved or left to a bot before the fix is on the head: {:?}",
        out.outcomes
    );
    assert!(host.mutations().is_empty());
    assert_eq!(loop_files.decisions.load().unwrap().owed().count(), 3);
}

#[tokio::test]
async fn the_users_word_on_a_channel_wins_and_channels_can_be_turned_off() {
    let host = FakeHost::new(channels_pr());
    let (loop_files, history) = fixed_everywhere();
    let mut channels = review_app::respond::Channels::default();
    // The user says CodeRabbit does not read replies, and Copilot does.
    channels.overrides.insert(
        "coderabbit".to_owned(),
        review_app::respond::ChannelOverride {
            reads_replies: Some(false),
            resolves_fixed_threads: None,
        },
    );
    channels.overrides.insert(
        "copilot".to_owned(),
        review_app::respond::ChannelOverride {
            reads_replies: Some(true),
            resolves_fixed_threads: None,
        },
    );
    respond_with(
        &host,
        &loop_files,
        &history,
        &channels,
        Source::FromDecisions,
    )
    .await;
    assert_eq!(replies_posted(&host), [ThreadId::from("COP")]);

    let host = FakeHost::new(channels_pr());
    let (loop_files, history) = fixed_everywhere();
    respond_with(
        &host,
        &loop_files,
        &history,
        &review_app::respond::Channels::off(),
        Source::FromDecisions,
    )
    .await;
    let mut posted = replies_posted(&host);
    posted.sort();
    assert_eq!(posted, ["COP", "CQL", "CR"].map(ThreadId::from));
}

#[tokio::test]
async fn replies_the_user_wrote_are_posted_whatever_the_bot_hears() {
    let host = FakeHost::new(channels_pr());
    let (loop_files, history) = fixed_everywhere();
    respond_with(
        &host,
        &loop_files,
        &history,
        &review_app::respond::TABLE,
        Source::Given(vec![Reply::thread(
            "COP",
            "Fixed by hand.".to_owned(),
            true,
        )]),
    )
    .await;
    assert_eq!(replies_posted(&host), [ThreadId::from("COP")]);
}
