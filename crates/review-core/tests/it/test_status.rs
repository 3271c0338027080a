//! The verdict of `review status`: each condition's verdict, their precedence, and the notes
//! that hold nothing back.

use proptest::prelude::*;
use review_core::gate::AutomationSettings;
use review_core::model::{
    CommitId, Mergeable, PullRequest, Review, ReviewId, ReviewState, ThreadId,
};
use review_core::plan::{FixSettings, Plan, TriageSettings, plan};
use review_core::status::{
    BotStanding, BotState, Note, Reason, Status, StatusInput, Verdict, evaluate,
};
use review_core::watch::{CheckState, Checks};
use review_test_support::{HEAD_SHA, PrBuilder, bot, person};

const CRITICAL: &str = "_⚠️ Potential issue_ | _🔴 Critical_\n\n**Off by one drops the last item.**\n\n```suggestion\nfor i in 0..=n {\n```";
const NIT: &str = "_🧹 Nitpick_ | _🔵 Trivial_\n\n**Rename `tmp` to `buffer`.**";

fn planned(pr: &PullRequest) -> Plan {
    let automation = AutomationSettings::default();
    let signals = review_classify::analyze(pr, &automation);
    plan(
        pr,
        &signals,
        &TriageSettings {
            fixes: FixSettings {
                fixer_available: true,
                ..FixSettings::default()
            },
            ..TriageSettings::default()
        },
    )
}

fn verdict_of(
    pr: &PullRequest,
    checks: &Checks,
    bots: &[BotStanding],
    ignore: &[String],
) -> Status {
    let plan = planned(pr);
    evaluate(&StatusInput {
        pr,
        plan: &plan,
        checks,
        bots,
        automation: &AutomationSettings::default(),
        ignore_checks: ignore,
        escalated: &[],
    })
}

fn review(login: &str, state: ReviewState, at: &str) -> Review {
    Review {
        id: ReviewId::from(format!("PRR_{login}_{at}").as_str()),
        author: Some(person(login)),
        state,
        body: String::new(),
        submitted_at: Some(at.to_owned()),
        commit: Some(CommitId(HEAD_SHA.to_owned())),
    }
}

fn green() -> Checks {
    Checks {
        state: CheckState::Green,
        ..Checks::default()
    }
}

fn reviewed(bot: &str) -> BotStanding {
    BotStanding {
        bot: bot.to_owned(),
        expected: true,
        state: BotState::ReviewedHead,
    }
}

#[test]
fn a_quiet_pull_request_with_green_checks_and_its_bots_caught_up_is_ready() {
    let pr = PrBuilder::new().build();
    let s = verdict_of(&pr, &green(), &[reviewed("coderabbit")], &[]);
    assert_eq!(s.verdict, Verdict::Ready);
    assert!(s.reasons.is_empty(), "{:?}", s.reasons);
    assert_eq!(s.head_sha, HEAD_SHA);
}

#[test]
fn a_bot_finding_to_fix_and_a_nit_left_open_are_the_authors_to_act_on() {
    let pr = PrBuilder::new()
        .thread("T1", "src/lib.rs", 3, &[(bot("coderabbitai"), CRITICAL)])
        .thread("T2", "src/lib.rs", 9, &[(bot("coderabbitai"), NIT)])
        .build();
    let s = verdict_of(&pr, &green(), &[], &[]);
    assert_eq!(s.verdict, Verdict::ActionRequired);
    assert!(
        matches!(&s.reasons[..], [Reason::Actionable(a), Reason::Nit(n)]
            if a.thread == ThreadId::from("T1") && n.thread == ThreadId::from("T2")),
        "{:?}",
        s.reasons
    );
}

#[test]
fn a_finding_the_loop_escalated_is_a_persons_to_decide_whatever_the_plan_would_do() {
    let pr = PrBuilder::new()
        .thread("T1", "src/lib.rs", 3, &[(bot("coderabbitai"), CRITICAL)])
        .build();
    let plan = planned(&pr);
    let escalated = [(
        ThreadId::from("T1"),
        "the judge's answer had no evidence".to_owned(),
    )];
    let s = evaluate(&StatusInput {
        pr: &pr,
        plan: &plan,
        checks: &green(),
        bots: &[],
        automation: &AutomationSettings::default(),
        ignore_checks: &[],
        escalated: &escalated,
    });
    assert_eq!(s.verdict, Verdict::ActionRequired);
    assert!(
        matches!(&s.reasons[..], [Reason::Escalated(e)]
            if e.thread == ThreadId::from("T1") && e.why.contains("no evidence")),
        "{:?}",
        s.reasons
    );
}

#[test]
fn a_persons_thread_waits_for_the_author_until_the_author_answers() {
    let asked = PrBuilder::new()
        .thread(
            "T1",
            "src/lib.rs",
            3,
            &[(person("erin"), "why not a map here?")],
        )
        .build();
    let s = verdict_of(&asked, &green(), &[], &[]);
    assert_eq!(s.verdict, Verdict::ActionRequired);
    assert!(
        matches!(&s.reasons[..], [Reason::PersonWaiting(t)] if t.author.as_deref() == Some("erin"))
    );

    let answered = PrBuilder::new()
        .thread(
            "T1",
            "src/lib.rs",
            3,
            &[
                (person("erin"), "why not a map here?"),
                (person("dana"), "order matters; a map would lose it"),
            ],
        )
        .build();
    let s = verdict_of(&answered, &green(), &[], &[]);
    assert_eq!(s.verdict, Verdict::Ready, "{:?}", s.reasons);
    assert!(
        matches!(&s.notes[..], [Note::ReviewerToAnswer(t)] if t.author.as_deref() == Some("erin"))
    );
}

#[test]
fn a_persons_latest_review_decides_whether_changes_are_requested() {
    let mut pr = PrBuilder::new().build();
    pr.reviews = vec![review(
        "erin",
        ReviewState::ChangesRequested,
        "2026-01-01T00:00:00Z",
    )];
    assert_eq!(
        verdict_of(&pr, &green(), &[], &[]).verdict,
        Verdict::Blocked
    );
    pr.reviews.push(review(
        "erin",
        ReviewState::Commented,
        "2026-01-02T00:00:00Z",
    ));
    assert_eq!(
        verdict_of(&pr, &green(), &[], &[]).verdict,
        Verdict::Blocked,
        "a comment does not withdraw a request for changes"
    );
    pr.reviews.push(review(
        "erin",
        ReviewState::Approved,
        "2026-01-03T00:00:00Z",
    ));
    assert_eq!(verdict_of(&pr, &green(), &[], &[]).verdict, Verdict::Ready);

    // A bot's request for changes is its findings, in threads: it blocks nothing itself.
    let mut by_bot = PrBuilder::new().build();
    let mut r = review(
        "coderabbitai",
        ReviewState::ChangesRequested,
        "2026-01-01T00:00:00Z",
    );
    r.author = Some(bot("coderabbitai"));
    by_bot.reviews = vec![r];
    assert_eq!(
        verdict_of(&by_bot, &green(), &[], &[]).verdict,
        Verdict::Ready
    );
}

#[test]
fn failing_checks_are_named_and_an_ignored_check_is_only_noted() {
    let pr = PrBuilder::new().build();
    let checks = Checks {
        state: CheckState::Red,
        failing: vec!["lint".to_owned(), "flaky-e2e".to_owned()],
        ..Checks::default()
    };
    let s = verdict_of(&pr, &checks, &[], &[]);
    assert_eq!(s.verdict, Verdict::CiFailing);
    assert_eq!(
        s.reasons,
        [Reason::ChecksFailing {
            checks: vec!["lint".to_owned(), "flaky-e2e".to_owned()]
        }]
    );
    let both = ["lint".to_owned(), "flaky-e2e".to_owned()];
    let s = verdict_of(&pr, &checks, &[], &both);
    assert_eq!(s.verdict, Verdict::Ready, "{:?}", s.reasons);
    assert_eq!(s.notes.len(), 2);
    // A red roll-up with no names cannot be ignored by name.
    let unnamed = Checks {
        state: CheckState::Red,
        ..Checks::default()
    };
    assert_eq!(
        verdict_of(&pr, &unnamed, &[], &both).verdict,
        Verdict::CiFailing
    );
}

#[test]
fn an_expected_bot_is_waited_for_unless_it_cannot_review() {
    let pr = PrBuilder::new().build();
    let bots = |state: BotState, expected: bool| {
        vec![BotStanding {
            bot: "copilot".to_owned(),
            expected,
            state,
        }]
    };
    for waiting in [
        BotState::NeverSeen,
        BotState::Reviewing,
        BotState::ReviewedEarlier {
            commit: Some("abc1234".to_owned()),
        },
    ] {
        let s = verdict_of(&pr, &green(), &bots(waiting.clone(), true), &[]);
        assert_eq!(s.verdict, Verdict::Waiting, "{waiting:?}");
        // A bot nobody expects is shown, never waited for.
        let s = verdict_of(&pr, &green(), &bots(waiting, false), &[]);
        assert_eq!(s.verdict, Verdict::Ready);
    }
    for unavailable in [BotState::Paused, BotState::QuotaSpent { until: None }] {
        let s = verdict_of(&pr, &green(), &bots(unavailable.clone(), true), &[]);
        assert_eq!(s.verdict, Verdict::Ready, "{unavailable:?}");
        assert!(matches!(&s.notes[..], [Note::BotUnavailable { .. }]));
    }
}

#[test]
fn the_json_names_the_verdict_and_each_reason_by_kind() {
    let mut pr = PrBuilder::new().build();
    pr.draft = true;
    let s = verdict_of(&pr, &green(), &[], &[]);
    let json = serde_json::to_value(&s).unwrap();
    assert_eq!(json["verdict"], "BLOCKED");
    assert_eq!(json["reasons"][0]["kind"], "draft");
}

/// Which conditions hold, for the property below.
#[derive(Debug, Clone, Copy)]
struct Conditions {
    draft: bool,
    conflicts: bool,
    changes_requested: bool,
    failing: bool,
    actionable: bool,
    person_waiting: bool,
    pending: bool,
    bot_waiting: bool,
}

fn conditions() -> impl Strategy<Value = Conditions> {
    proptest::array::uniform8(any::<bool>()).prop_map(|b| Conditions {
        draft: b[0],
        conflicts: b[1],
        changes_requested: b[2],
        failing: b[3],
        actionable: b[4],
        person_waiting: b[5],
        pending: b[6],
        bot_waiting: b[7],
    })
}

proptest! {
    /// The verdict is the strongest that applies (BLOCKED > CI_FAILING > ACTION_REQUIRED >
    /// WAITING > READY), every condition that holds has its reason, and the reasons come
    /// strongest first.
    #[test]
    fn the_strongest_condition_decides_and_every_one_is_listed(c in conditions()) {
        let mut b = PrBuilder::new();
        if c.actionable {
            b = b.thread("T1", "src/lib.rs", 3, &[(bot("coderabbitai"), CRITICAL)]);
        }
        if c.person_waiting {
            b = b.thread("T2", "src/lib.rs", 9, &[(person("erin"), "is this right?")]);
        }
        let mut pr = b.build();
        pr.draft = c.draft;
        pr.mergeable = Some(if c.conflicts { Mergeable::Conflicting } else { Mergeable::Mergeable });
        if c.changes_requested {
            pr.reviews.push(review("erin", ReviewState::ChangesRequested, "2026-01-01T00:00:00Z"));
        }
        let checks = Checks {
            state: if c.failing { CheckState::Red } else if c.pending { CheckState::Pending } else { CheckState::Green },
            failing: if c.failing { vec!["test".to_owned()] } else { vec![] },
            pending: if c.pending { vec!["build".to_owned()] } else { vec![] },
            passed: vec![],
        };
        let bots = vec![BotStanding {
            bot: "gemini".to_owned(),
            expected: true,
            state: if c.bot_waiting { BotState::NeverSeen } else { BotState::ReviewedHead },
        }];
        let s = verdict_of(&pr, &checks, &bots, &[]);

        let expected = if c.draft || c.conflicts || c.changes_requested {
            Verdict::Blocked
        } else if c.failing {
            Verdict::CiFailing
        } else if c.actionable || c.person_waiting {
            Verdict::ActionRequired
        } else if c.pending || c.bot_waiting {
            Verdict::Waiting
        } else {
            Verdict::Ready
        };
        prop_assert_eq!(s.verdict, expected);
        let count = [c.draft, c.conflicts, c.changes_requested, c.failing, c.actionable, c.person_waiting, c.pending, c.bot_waiting]
            .iter()
            .filter(|x| **x)
            .count();
        prop_assert_eq!(s.reasons.len(), count, "{:?}", s.reasons);
        prop_assert!(s.reasons.windows(2).all(|w| w[0].verdict() >= w[1].verdict()));
    }
}

#[test]
fn a_review_from_a_deleted_account_blocks_nothing_and_a_ghosts_thread_waits_for_the_author() {
    let mut pr = PrBuilder::new().build();
    let mut ghost = review(
        "gone",
        ReviewState::ChangesRequested,
        "2026-01-01T00:00:00Z",
    );
    ghost.author = None;
    pr.reviews = vec![ghost];
    assert_eq!(verdict_of(&pr, &green(), &[], &[]).verdict, Verdict::Ready);

    // A thread whose author GitHub no longer shows (a null node) is a person's: never a bot
    // finding the tool would fix.
    let mut pr = PrBuilder::new()
        .thread("T1", "src/lib.rs", 3, &[(bot("coderabbitai"), CRITICAL)])
        .build();
    pr.threads[0].comments[0].author = None;
    let s = verdict_of(&pr, &green(), &[], &[]);
    assert!(
        matches!(&s.reasons[..], [Reason::PersonWaiting(_)]),
        "{:?}",
        s.reasons
    );
}

#[test]
fn a_person_pasting_a_bots_quota_notice_does_not_stop_the_wait_for_that_bot() {
    let notice = "> [!WARNING]\n> ## Rate limit exceeded\n>\n> Please wait 12 minutes.";
    let pr = PrBuilder::new()
        .with_pr(|pr| {
            pr.comments.push(review_core::model::IssueComment {
                id: review_core::model::CommentId("IC_1".to_owned()),
                author: Some(person("mallory")),
                body: notice.to_owned(),
                created_at: "2026-01-05T10:00:00Z".to_owned(),
                url: String::new(),
            });
        })
        .build();
    assert_eq!(pr.head_sha.0, HEAD_SHA);
    let bots = review_classify::standing::standings(
        &pr,
        &AutomationSettings::default(),
        &["coderabbit".to_owned()],
    );
    assert_eq!(
        bots,
        [BotStanding {
            bot: "coderabbit".to_owned(),
            expected: true,
            state: BotState::NeverSeen,
        }]
    );
}

#[test]
fn checks_the_host_cannot_report_are_waited_on_never_ready() {
    let pr = PrBuilder::new().build();
    let unknown = Checks {
        state: CheckState::of(Some(review_core::model::ChecksState::Unknown)),
        ..Checks::default()
    };
    assert_eq!(unknown.state, CheckState::Unknown);
    let status = verdict_of(&pr, &unknown, &[], &[]);
    assert_eq!(status.verdict, Verdict::Waiting);
    assert_eq!(status.reasons, vec![Reason::ChecksUnknown]);
    assert!(
        Reason::ChecksUnknown
            .to_string()
            .contains("lacks PullRequest.statusCheckRollup")
    );
    // Named checks (from REST) decide over an unknown roll-up.
    let named = Checks {
        pending: vec!["ci".to_owned()],
        ..unknown
    };
    let status = verdict_of(&pr, &named, &[], &[]);
    assert!(
        !status.reasons.contains(&Reason::ChecksUnknown),
        "{status:?}"
    );
}
