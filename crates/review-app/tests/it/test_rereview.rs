//! `rereview` against the in-memory host and ledger: each bot asked once per head, by its
//! documented way, never one that reviewed the head, is out of quota or paused.

use review_app::ErrorKind;
use review_app::rereview::{
    Action, COPILOT_REVIEWER, RereviewRequest, Rereviewed, ReviewRequests, rereview,
};
use review_app::respond::{LedgerStore, MemoryLedger};
use review_core::gate::{AutomationSettings, DEFAULT_AUTOMATED_HEADER};
use review_core::model::{
    CommentId, CommitId, IssueComment, PullRequest, Review, ReviewId, ReviewState,
};
use review_core::post;
use review_test_support::{FakeHost, HEAD_SHA, Mutation, PrBuilder, bot, person};

fn gate(pr: &PullRequest) -> AutomationSettings {
    AutomationSettings {
        viewer: pr.author.as_ref().map(|a| a.login.clone()),
        ..AutomationSettings::default()
    }
}

fn asking(bots: &[&str]) -> RereviewRequest {
    RereviewRequest {
        expected_bots: bots.iter().map(|b| (*b).to_owned()).collect(),
        ..RereviewRequest::default()
    }
}

/// Who a review is requested from, as GitHub's REST API lists it: the bots `host` took a
/// request for (Copilot as `Copilot`), or, `Dropped`, nobody (a Copilot not enabled), or,
/// `Unreadable`, an error.
enum Requested<'a> {
    Listed(&'a FakeHost),
    Dropped,
    Unreadable,
}

impl ReviewRequests for Requested<'_> {
    type Error = std::io::Error;

    async fn requested_reviewers(&self, _pr: &PullRequest) -> Result<Vec<String>, Self::Error> {
        match self {
            Self::Listed(host) => Ok(host
                .mutations()
                .into_iter()
                .filter_map(|m| match m {
                    Mutation::RequestReview(login) if login == COPILOT_REVIEWER => {
                        Some("Copilot".to_owned())
                    }
                    Mutation::RequestReview(login) => Some(format!("{login}[bot]")),
                    _ => None,
                })
                .collect()),
            Self::Dropped => Ok(vec!["dana".to_owned()]),
            Self::Unreadable => Err(std::io::Error::other("502 Bad Gateway")),
        }
    }
}

async fn run(host: &FakeHost, ledger: &MemoryLedger, request: &RereviewRequest) -> Rereviewed {
    let pr = host.current();
    rereview(
        host,
        ledger,
        &Requested::Listed(host),
        &pr,
        &gate(&pr),
        request,
    )
    .await
    .expect("rereview runs")
}

fn action<'a>(done: &'a Rereviewed, bot: &str) -> &'a Action {
    &done
        .bots
        .iter()
        .find(|b| b.bot == bot)
        .unwrap_or_else(|| panic!("{bot} in {done:?}"))
        .action
}

fn comments(host: &FakeHost) -> Vec<String> {
    host.mutations()
        .into_iter()
        .filter_map(|m| match m {
            Mutation::Comment(body) => Some(body),
            _ => None,
        })
        .collect()
}

fn issue_comment(
    id: &str,
    author: review_core::model::Author,
    body: &str,
    at: &str,
) -> IssueComment {
    IssueComment {
        id: CommentId(id.to_owned()),
        author: Some(author),
        body: body.to_owned(),
        created_at: at.to_owned(),
        url: format!("https://x/{id}"),
    }
}

#[tokio::test]
async fn each_comment_bot_gets_its_command_first_then_the_header_and_the_key() {
    let host = FakeHost::new(PrBuilder::new().build());
    let ledger = MemoryLedger::default();
    let done = run(
        &host,
        &ledger,
        &asking(&["gemini-code-assist", "coderabbitai[bot]"]),
    )
    .await;
    assert_eq!(done.head, HEAD_SHA);
    assert!(
        matches!(action(&done, "gemini"), Action::ByComment { command, url: Some(_) } if command == "/gemini review"),
        "{done:?}"
    );
    assert!(
        matches!(action(&done, "coderabbit"), Action::ByComment { command, .. } if command == "@coderabbitai review")
    );
    let posted = comments(&host);
    assert_eq!(posted.len(), 2);
    for body in &posted {
        let first = body.lines().next().unwrap();
        assert!(
            first == "/gemini review" || first == "@coderabbitai review",
            "{body}"
        );
        assert!(
            body.contains(&format!("\n\n{DEFAULT_AUTOMATED_HEADER} **review**")),
            "{body}"
        );
        assert!(post::find_key(body).is_some() && post::is_marked(body, DEFAULT_AUTOMATED_HEADER));
        // The key is hidden: an HTML comment at the end.
        assert!(body.trim_end().ends_with(" -->"));
    }
    assert_eq!(ledger.load_ledger().unwrap().posted.len(), 2);
    assert!(!done.failed());
}

#[tokio::test]
async fn copilot_is_asked_by_a_review_request_not_a_comment() {
    let host = FakeHost::new(PrBuilder::new().build());
    let ledger = MemoryLedger::default();
    let done = run(&host, &ledger, &asking(&["copilot-pull-request-reviewer"])).await;
    assert_eq!(
        action(&done, "copilot"),
        &Action::ByReviewRequest {
            login: COPILOT_REVIEWER.to_owned()
        }
    );
    assert_eq!(
        host.mutations(),
        vec![Mutation::RequestReview(COPILOT_REVIEWER.to_owned())]
    );
    // The ledger records it, with no comment id for the gate to count.
    let book = ledger.load_ledger().unwrap();
    assert_eq!(book.posted.len(), 1);
    assert_eq!(book.comment_ids().count(), 0);
}

#[tokio::test]
async fn a_review_request_github_drops_is_not_confirmed_and_asked_again_next_run() {
    let host = FakeHost::new(PrBuilder::new().build());
    let pr = host.current();
    let ledger = MemoryLedger::default();
    let request = asking(&["copilot-pull-request-reviewer"]);
    for requests in [Requested::Dropped, Requested::Unreadable] {
        let done = rereview(&host, &ledger, &requests, &pr, &gate(&pr), &request)
            .await
            .expect("rereview runs");
        let Action::NotConfirmed { login, reason } = action(&done, "copilot") else {
            panic!("{done:?}");
        };
        assert_eq!(login, COPILOT_REVIEWER);
        assert!(reason.contains("GitHub took the request"), "{reason}");
        assert!(done.failed(), "an unconfirmed ask is not one made");
        // Nothing recorded: the next run asks again.
        assert!(ledger.load_ledger().unwrap().posted.is_empty());
    }
    assert_eq!(host.mutations().len(), 2, "asked on each run");
    let done = run(&host, &ledger, &request).await;
    assert!(matches!(
        action(&done, "copilot"),
        Action::ByReviewRequest { .. }
    ));
    assert_eq!(ledger.load_ledger().unwrap().posted.len(), 1);
}

#[tokio::test]
async fn a_second_run_asks_nothing_and_a_new_head_asks_again() {
    let bots = asking(&["gemini-code-assist", "copilot-pull-request-reviewer"]);
    let host = FakeHost::new(PrBuilder::new().build());
    let ledger = MemoryLedger::default();
    run(&host, &ledger, &bots).await;
    assert_eq!(host.mutations().len(), 2);
    let again = run(&host, &ledger, &bots).await;
    assert!(
        again.bots.iter().all(|b| b.action == Action::AlreadyAsked),
        "{again:?}"
    );
    assert_eq!(host.mutations().len(), 2, "nothing sent twice");

    // A push: the same bots, a new head, the same ledger: asked again, once.
    let mut pushed = host.current();
    pushed.head_sha = CommitId("ffffffffffffffffffffffffffffffffffffffff".to_owned());
    let host = FakeHost::new(pushed);
    let done = run(&host, &ledger, &bots).await;
    assert!(
        matches!(action(&done, "gemini"), Action::ByComment { .. }),
        "{done:?}"
    );
    assert!(matches!(
        action(&done, "copilot"),
        Action::ByReviewRequest { .. }
    ));
    assert_eq!(host.mutations().len(), 2);
    let body = &comments(&host)[0];
    assert!(body.contains("`fffffff`"), "{body}");
}

#[tokio::test]
async fn a_post_the_ledger_lost_is_found_by_viewer_and_key_and_not_sent_again() {
    let bots = asking(&["gemini-code-assist"]);
    let host = FakeHost::new(PrBuilder::new().build());
    run(&host, &MemoryLedger::default(), &bots).await;
    // A run that stopped between the post and its record: a fresh ledger.
    let fresh = MemoryLedger::default();
    let done = run(&host, &fresh, &bots).await;
    assert_eq!(action(&done, "gemini"), &Action::AlreadyAsked);
    assert_eq!(comments(&host).len(), 1);
    assert_eq!(fresh.load_ledger().unwrap().posted.len(), 1, "recorded now");
}

#[tokio::test]
async fn someone_elses_copy_of_the_key_does_not_count_as_asked() {
    let bots = asking(&["gemini-code-assist"]);
    let host = FakeHost::new(PrBuilder::new().build());
    run(&host, &MemoryLedger::default(), &bots).await;
    let body = comments(&host)[0].clone();
    // Eve pastes the tool's comment on a PR where it was never asked.
    let pr = PrBuilder::new()
        .with_pr(|p| {
            p.comments.push(issue_comment(
                "IC_eve",
                person("eve"),
                &body,
                "2026-11-30T11:00:00Z",
            ));
        })
        .build();
    let host = FakeHost::new(pr);
    let done = run(&host, &MemoryLedger::default(), &bots).await;
    assert!(
        matches!(action(&done, "gemini"), Action::ByComment { .. }),
        "{done:?}"
    );
}

#[tokio::test]
async fn a_bot_that_reviewed_the_head_is_out_of_quota_or_paused_is_not_asked() {
    let pr = PrBuilder::new()
        .with_pr(|p| {
            p.reviews.push(Review {
                id: ReviewId("R_gem".to_owned()),
                author: Some(bot("gemini-code-assist")),
                state: ReviewState::Commented,
                body: "## Code Review\n\nLooks fine.".to_owned(),
                submitted_at: Some("2026-11-30T10:00:00Z".to_owned()),
                commit: Some(CommitId(HEAD_SHA.to_owned())),
            });
            p.comments.push(issue_comment(
                "IC_cr",
                bot("coderabbitai"),
                "> [!WARNING]\n> ## Rate limit exceeded\n>\n> Please wait **12 minutes and 30 seconds** before requesting another review.",
                "2026-11-30T10:00:00Z",
            ));
        })
        .build();
    let host = FakeHost::new(pr);
    let done = run(
        &host,
        &MemoryLedger::default(),
        &asking(&["gemini-code-assist", "coderabbitai"]),
    )
    .await;
    assert_eq!(action(&done, "gemini"), &Action::ReviewedHead);
    assert_eq!(
        action(&done, "coderabbit"),
        &Action::QuotaSpent {
            until: Some("2026-11-30T10:12:30Z".to_owned())
        }
    );
    assert_eq!(host.mutations(), vec![]);

    let paused = PrBuilder::new()
        .with_pr(|p| {
            p.comments.push(issue_comment(
                "IC_cr",
                bot("coderabbitai"),
                "> [!NOTE]\n> ## Reviews paused\n>\n> Use `@coderabbitai resume` to resume.",
                "2026-11-30T10:00:00Z",
            ));
        })
        .build();
    let host = FakeHost::new(paused);
    let done = run(&host, &MemoryLedger::default(), &asking(&["coderabbitai"])).await;
    assert_eq!(action(&done, "coderabbit"), &Action::Paused);
    assert_eq!(host.mutations(), vec![]);
}

#[tokio::test]
async fn a_bot_without_a_command_is_skipped_and_an_unverified_one_is_shown_unless_asked() {
    let host = FakeHost::new(PrBuilder::new().build());
    let done = run(
        &host,
        &MemoryLedger::default(),
        &asking(&["acme-lint-bot", "claude"]),
    )
    .await;
    assert_eq!(action(&done, "acme-lint-bot"), &Action::NoCommand);
    assert_eq!(
        action(&done, "claude"),
        &Action::Unverified {
            command: "@claude review once".to_owned()
        }
    );
    assert_eq!(host.mutations(), vec![]);
    let mut request = asking(&["claude"]);
    request.send_unverified = true;
    let done = run(&host, &MemoryLedger::default(), &request).await;
    assert!(
        matches!(action(&done, "claude"), Action::ByComment { .. }),
        "{done:?}"
    );
    assert_eq!(comments(&host).len(), 1);
}

#[tokio::test]
async fn a_dry_run_sends_nothing_and_records_nothing() {
    let host = FakeHost::new(PrBuilder::new().build());
    let ledger = MemoryLedger::default();
    let mut request = asking(&["gemini-code-assist", "copilot-pull-request-reviewer"]);
    request.dry_run = true;
    let done = run(&host, &ledger, &request).await;
    assert!(done.dry_run);
    assert!(matches!(
        action(&done, "gemini"),
        Action::ByComment { url: None, .. }
    ));
    assert!(matches!(
        action(&done, "copilot"),
        Action::ByReviewRequest { .. }
    ));
    assert_eq!(host.mutations(), vec![]);
    assert!(ledger.load_ledger().unwrap().posted.is_empty());
}

#[tokio::test]
async fn a_login_with_odd_characters_is_refused_before_anything_is_read_or_sent() {
    let host = FakeHost::new(PrBuilder::new().build());
    let pr = host.current();
    for bad in ["gemini\n/approve", "a b", "<!-- x -->", "../../x", ""] {
        let request = asking(&["coderabbitai", bad]);
        let err = rereview(
            &host,
            &MemoryLedger::default(),
            &Requested::Listed(&host),
            &pr,
            &gate(&pr),
            &request,
        )
        .await
        .unwrap_err();
        assert_eq!(err.kind, ErrorKind::Invalid, "{bad:?}");
    }
    assert_eq!(host.mutations(), vec![]);
}

#[tokio::test]
async fn a_spent_rate_limit_fails_the_first_ask_and_tries_no_other() {
    let host = FakeHost::new(PrBuilder::new().build());
    host.spend_rate_limit(None);
    let done = run_on(&host, &asking(&["gemini-code-assist", "coderabbitai"])).await;
    assert!(done.failed());
    assert!(
        matches!(
            action(&done, "coderabbit"),
            Action::Failed {
                uncertain: false,
                ..
            }
        ),
        "{done:?}"
    );
    assert_eq!(action(&done, "gemini"), &Action::NotTried);
}

/// A run on a host that may refuse reads: the PR as built.
async fn run_on(host: &FakeHost, request: &RereviewRequest) -> Rereviewed {
    let pr = PrBuilder::new().build();
    rereview(
        host,
        &MemoryLedger::default(),
        &Requested::Listed(host),
        &pr,
        &gate(&pr),
        request,
    )
    .await
    .expect("rereview runs")
}

#[tokio::test]
async fn the_tools_rereview_post_is_no_persons_comment_for_watch_or_the_gate() {
    let host = FakeHost::new(PrBuilder::new().build());
    run(
        &host,
        &MemoryLedger::default(),
        &asking(&["gemini-code-assist"]),
    )
    .await;
    let body = comments(&host)[0].clone();
    assert!(body.starts_with("/gemini review\n"), "{body}");
    // The tool runs as an account that is not the PR's author (dana): a CI user.
    let pr = PrBuilder::new()
        .with_pr(|p| {
            p.comments.push(issue_comment(
                "IC_ci",
                person("ci-runner"),
                &body,
                "2026-11-30T11:00:00Z",
            ));
        })
        .build();
    let automation = AutomationSettings {
        viewer: Some("ci-runner".to_owned()),
        ..AutomationSettings::default()
    };
    let participation = automation.participation(
        pr.comments[0].author.as_ref(),
        &pr.comments[0].body,
        pr.author.as_ref(),
    );
    assert!(participation.is_automated(), "{participation:?}");
    let obs = review_classify::observe(&pr, &automation);
    assert!(obs.human_comments.is_empty(), "{:?}", obs.human_comments);
    let (_, events) = review_core::watch::observe(
        None,
        obs,
        &review_core::decisions::Decisions::default(),
        &review_core::watch::WatchSettings::default(),
        "acme/widgets#1",
        0,
    );
    assert!(
        !events
            .iter()
            .any(|e| e.event == review_core::watch::EventKind::HumanComment),
        "{events:?}"
    );
    // Nor is it a bot's review: gemini is still waited for.
    let standings = review_classify::standing::standings(&pr, &automation, &["gemini".to_owned()]);
    assert_eq!(standings[0].state, review_core::status::BotState::NeverSeen);
    // Without the viewer known, the same comment by another account is a person's.
    let unknown = AutomationSettings::default();
    assert!(
        !unknown
            .participation(pr.comments[0].author.as_ref(), &body, pr.author.as_ref())
            .is_automated()
    );
    assert_eq!(
        review_classify::observe(&pr, &unknown).human_comments.len(),
        1
    );
}

#[test]
fn a_quota_notice_holds_its_bot_back_only_until_its_wait_ends() {
    use review_core::gate::AutomationSettings;
    use review_core::model::{CommentId, IssueComment};
    let mut pr = PrBuilder::new().build();
    pr.comments.push(IssueComment {
        id: CommentId("IC".to_owned()),
        author: Some(bot("coderabbitai")),
        body: "> [!WARNING]\n> ## Rate limit exceeded\n>\n> Please wait **12 minutes and 30 seconds** before requesting another review.".to_owned(),
        created_at: "2026-01-05T10:00:00Z".to_owned(),
        url: String::new(),
    });
    let posted = review_core::time::parse_rfc3339("2026-01-05T10:00:00Z").unwrap();
    let at = |now: Option<i64>| {
        review_classify::standing::standings_at(&pr, &AutomationSettings::default(), &[], now)[0]
            .state
            .clone()
    };
    let spent = review_core::status::BotState::QuotaSpent {
        until: Some("2026-01-05T10:12:30Z".to_owned()),
    };
    assert_eq!(at(None), spent);
    assert_eq!(at(Some(posted + 749)), spent);
    // From the end of its wait the notice counts for nothing: the bot was seen, no more.
    assert_eq!(
        at(Some(posted + 750)),
        review_core::status::BotState::ReviewedEarlier { commit: None }
    );
}

/// Qodo and Bito both read `/review`: one comment asks both, in this run and the next, whichever
/// of them was asked first.
#[tokio::test]
async fn bots_that_share_a_command_are_asked_by_one_comment() {
    let host = FakeHost::new(PrBuilder::new().build());
    let ledger = MemoryLedger::default();
    let done = run(&host, &ledger, &asking(&["qodo", "bito"])).await;
    assert_eq!(comments(&host).len(), 1, "{:?}", host.mutations());
    let actions = [action(&done, "bito"), action(&done, "qodo")];
    assert!(
        actions
            .iter()
            .any(|a| matches!(a, Action::ByComment { command, .. } if command == "/review")),
        "{done:?}"
    );
    assert!(actions.contains(&&Action::AlreadyAsked), "{done:?}");

    // Asked for Bito alone first, then for both: still the one comment.
    let host = FakeHost::new(PrBuilder::new().build());
    let ledger = MemoryLedger::default();
    run(&host, &ledger, &asking(&["bito"])).await;
    let done = run(&host, &ledger, &asking(&["qodo", "bito"])).await;
    assert_eq!(comments(&host).len(), 1, "{:?}", host.mutations());
    assert_eq!(action(&done, "qodo"), &Action::AlreadyAsked);
}
