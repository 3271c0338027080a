//! Deferring to follow-up issues against the fake host and an in-memory issue tracker: the
//! issue opened once per thread (found again by its key), the reply carrying its link, nothing
//! opened for a person's thread, the reply held back when no issue could be opened, and an
//! escalation where the repository's issues are off.

use std::sync::Mutex;

use async_trait::async_trait;
use review_app::ErrorKind;
use review_app::defer::{Deferral, IssueTracker, Prepared, defer_thread, ensure_issue};
use review_app::ports::{DecisionsStore, MemoryDecisions};
use review_app::respond::{
    HostRereads, MemoryLedger, NoHistory, Note, Notes, ReplyOutcome, RespondPorts, Source,
};
use review_app::watch_store::{MemoryLoop, MemoryWatch};
use review_core::decisions::{Decisions, Seen, Verdict};
use review_core::defer::{IssueDraft, IssueRef, Opened, key_in};
use review_core::gate::AutomationSettings;
use review_core::model::ThreadId;
use review_core::ports::HostError;
use review_test_support::{FakeHost, Mutation, PrBuilder, bot, person};

/// Issues in memory: what was opened, whether issues are on, and a failure to return instead.
#[derive(Debug, Default)]
struct Tracker {
    opened: Mutex<Vec<IssueDraft>>,
    off: bool,
    failing: bool,
}

#[async_trait]
impl IssueTracker for Tracker {
    async fn find_issue(&self, key: &str) -> Result<Option<IssueRef>, HostError> {
        if self.failing {
            return Err(HostError::Unavailable {
                message: "GitHub is down".to_owned(),
                source: None,
            });
        }
        let opened = self.opened.lock().expect("not poisoned");
        Ok(opened
            .iter()
            .position(|d| key_in(&d.body) == Some(key))
            .map(|i| issue(i as u64 + 10)))
    }

    async fn open_issue(&self, draft: &IssueDraft) -> Result<Opened, HostError> {
        if self.off {
            return Ok(Opened::IssuesOff);
        }
        let mut opened = self.opened.lock().expect("not poisoned");
        opened.push(draft.clone());
        Ok(Opened::Issue(issue(opened.len() as u64 + 9)))
    }
}

fn issue(number: u64) -> IssueRef {
    IssueRef {
        number,
        url: format!("https://github.com/acme/widgets/issues/{number}"),
    }
}

fn host() -> FakeHost {
    FakeHost::new(
        PrBuilder::new()
            .thread(
                "BOT",
                "src/a.rs",
                3,
                &[(
                    bot("coderabbitai"),
                    "**Cache the parsed settings.** Parsed on every call.",
                )],
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
            .build(),
    )
}

#[tokio::test]
async fn a_thread_is_deferred_to_one_issue_however_often_it_is_asked() {
    let host = host();
    let tracker = Tracker::default();
    let pr = host.current();
    let automation = AutomationSettings::default();
    let labels = vec!["follow-up".to_owned()];
    for _ in 0..3 {
        let prepared = defer_thread(
            &tracker,
            &pr,
            &ThreadId::from("BOT"),
            "Later.",
            &labels,
            &automation,
        )
        .await
        .unwrap();
        let Prepared::Reply { reply, .. } = prepared else {
            panic!("an issue stands: {prepared:?}");
        };
        assert_eq!(
            reply.body,
            "Later. Deferred to a follow-up issue: https://github.com/acme/widgets/issues/10"
        );
        assert!(reply.resolve);
    }
    let opened = tracker.opened.lock().unwrap();
    assert_eq!(opened.len(), 1);
    assert_eq!(opened[0].labels, labels);
    assert!(
        opened[0].title.contains("Cache the parsed settings"),
        "{}",
        opened[0].title
    );
}

#[tokio::test]
async fn a_persons_thread_opens_nothing() {
    let host = host();
    let tracker = Tracker::default();
    let err = defer_thread(
        &tracker,
        &host.current(),
        &ThreadId::from("MIXED"),
        "",
        &[],
        &AutomationSettings::default(),
    )
    .await
    .unwrap_err();
    assert_eq!(err.kind, ErrorKind::Refused);
    assert!(err.hint.as_deref().unwrap_or("").contains("followup"));
    assert!(tracker.opened.lock().unwrap().is_empty());
}

#[tokio::test]
async fn a_host_that_fails_is_a_port_error_that_says_a_rerun_finds_the_issue() {
    let tracker = Tracker {
        failing: true,
        ..Tracker::default()
    };
    let pr = host().current();
    let draft = review_core::defer::draft(&pr, &pr.threads[0], "t", "", &[]);
    let err = ensure_issue(&tracker, &draft).await.unwrap_err();
    assert_eq!(err.kind, ErrorKind::Port);
    assert!(err.source.is_some());
    assert!(err.hint.unwrap().contains("rerun"));
}

fn out_of_scope_on(thread: &str) -> MemoryLoop {
    let mut decisions = Decisions::default();
    decisions.seen.insert(
        "fp".to_owned(),
        Seen {
            thread_id: thread.into(),
            verdict: Verdict::OutOfScope,
            reasoning: "it belongs to the config rework".to_owned(),
            evidence: Vec::new(),
            fix_sketch: None,
            resolved_sha: None,
            decided_in_round: 1,
            path: "src/a.rs".to_owned(),
            replied: Some(false),
            settled: None,
        },
    );
    MemoryLoop {
        decisions: MemoryDecisions::new(decisions),
        watch: MemoryWatch::new(None),
    }
}

async fn respond_deferring(host: &FakeHost, files: &MemoryLoop, tracker: &Tracker) -> Vec<Note> {
    let notes = Notes::default();
    let ledger = MemoryLedger::default();
    let rereads = HostRereads(host);
    let ports = RespondPorts {
        host,
        rereads: &rereads,
        ledger: &ledger,
        history: &NoHistory,
        files: Some(files),
        channels: &review_app::respond::TABLE,
        deferral: Some(Deferral {
            tracker,
            labels: &[],
        }),
    };
    let out = ports
        .respond(
            &notes,
            &host.current(),
            Source::FromDecisions,
            &AutomationSettings::default(),
        )
        .await
        .expect("in-memory stores do not fail");
    assert!(
        out.outcomes
            .iter()
            .all(|o| !matches!(o, ReplyOutcome::Failed { .. })),
        "{out:?}"
    );
    notes.taken()
}

fn replies(host: &FakeHost) -> Vec<String> {
    host.mutations()
        .into_iter()
        .filter_map(|m| match m {
            Mutation::Reply(_, body) => Some(body),
            _ => None,
        })
        .collect()
}

#[tokio::test]
async fn an_out_of_scope_reply_carries_its_issue_and_the_batch_names_its_account() {
    let host = host();
    let files = out_of_scope_on("BOT");
    let tracker = Tracker::default();
    let notes = respond_deferring(&host, &files, &tracker).await;
    let posted = replies(&host);
    assert_eq!(posted.len(), 1);
    assert!(
        posted[0].contains(
            "Out of scope for this PR — it belongs to the config rework. Deferred to a follow-up \
             issue: https://github.com/acme/widgets/issues/10"
        ),
        "{}",
        posted[0]
    );
    assert!(
        notes
            .iter()
            .any(|n| matches!(n, Note::Deferred { opened: true, .. }))
    );
    assert!(
        notes
            .iter()
            .any(|n| matches!(n, Note::PostingAs { replies: 1, .. })),
        "{notes:?}"
    );
    // The issue quotes the decision's words first.
    let opened = tracker.opened.lock().unwrap();
    assert!(
        opened[0]
            .body
            .starts_with("Out of scope for this PR — it belongs")
    );
}

#[tokio::test]
async fn no_issue_no_reply_and_with_issues_off_an_escalation() {
    let host = host();
    let files = out_of_scope_on("BOT");
    let failing = Tracker {
        failing: true,
        ..Tracker::default()
    };
    let notes = respond_deferring(&host, &files, &failing).await;
    assert!(replies(&host).is_empty(), "the reply waits for its issue");
    assert!(notes.iter().any(|n| matches!(n, Note::DeferHeld { .. })));
    assert!(!files.load().unwrap().is_escalated_thread(&"BOT".into()));

    let off = Tracker {
        off: true,
        ..Tracker::default()
    };
    respond_deferring(&host, &files, &off).await;
    assert!(replies(&host).is_empty());
    let decisions = files.load().unwrap();
    assert!(decisions.is_escalated_thread(&"BOT".into()));
    assert!(decisions.escalated[0].reason.contains("issues turned off"));
}
