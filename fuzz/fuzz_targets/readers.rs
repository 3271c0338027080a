//! Every reader of comment text on arbitrary input: identify, read_finding (with its signals
//! and the core's classification), threadless_findings, reviewed_commit and is_stale, and
//! analyze, observe (the review loop's watcher) and the follow-up's collect over a small pull
//! request built from the input. None may panic.
#![no_main]

use libfuzzer_sys::fuzz_target;
use review_classify::{
    Family, analyze, identify, is_stale, read_finding, reviewed_commit, threadless_findings,
};
use review_core::gate::AutomationSettings;
use review_core::model::{
    Author, AuthorKind, Comment, CommentId, CommitId, LineRange, PrState, PullRequest, RepoId,
    SubjectType, Thread, ThreadId,
};
use review_core::rules::classify;

const LOGINS: [&str; 8] = [
    "coderabbitai",
    "Copilot",
    "github-actions[bot]",
    "gemini-code-assist",
    "cursor",
    "alice",
    "qa-runner",
    "some-linter",
];

fuzz_target!(|data: &[u8]| {
    let (head, rest) = data.split_at(data.len().min(2));
    let pick = head.first().copied().unwrap_or(0);
    let extra = head.get(1).copied().unwrap_or(0);
    let body = String::from_utf8_lossy(rest);
    let family = Family::ALL[usize::from(pick) % Family::ALL.len()];
    let settings = AutomationSettings {
        accounts: vec!["qa-runner".to_owned()],
        ..AutomationSettings::default()
    };
    let kind = if extra & 1 == 0 {
        AuthorKind::Bot
    } else {
        AuthorKind::User
    };
    let login = LOGINS[usize::from(extra >> 1) % LOGINS.len()];
    let author = Author::new(login, kind);
    let pr_author = Author::new("alice", AuthorKind::User);

    let _ = identify(Some(&author), &body, Some(&pr_author), &settings);
    let finding = read_finding(family, &body, "src/lib.rs");
    assert!(finding.title.chars().count() <= 120);
    if !finding.format_known {
        assert!(!finding.severity.is_high());
    }
    let signals = finding.signals(family, "src/lib.rs");
    let _ = classify(&signals, extra & 2 == 0);
    for found in threadless_findings(&body, family) {
        assert!(found.title.chars().count() <= 120);
    }
    if let Some(sha) = reviewed_commit(&body) {
        assert!(!is_stale(&body, &CommitId(sha)));
    }
    let _ = is_stale(
        &body,
        &CommitId::from("0123456789abcdef0123456789abcdef01234567"),
    );

    let comment = |id: &str, text: &str| Comment {
        id: CommentId::from(id),
        author: Some(author.clone()),
        body: text.to_owned(),
        created_at: String::new(),
        url: String::new(),
        diff_hunk: None,
        review_id: None,
    };
    let half = body.len() / 2;
    let cut = (0..=half)
        .rev()
        .find(|&i| body.is_char_boundary(i))
        .unwrap_or(0);
    let (a, b) = body.split_at(cut);
    let thread = |id: &str, line: u32, text: &str| Thread {
        id: ThreadId::from(id),
        is_resolved: false,
        is_outdated: false,
        path: "src/lib.rs".to_owned(),
        lines: Some(LineRange::new(line, line)),
        subject_type: SubjectType::Line,
        comments: vec![comment(id, text), comment("reply", b)],
        all_comments_read: true,
        original_lines: None,
    };
    let pr = PullRequest {
        repo: RepoId::parse("acme/widgets").expect("a valid repository"),
        number: 1,
        id: String::new(),
        title: String::new(),
        url: String::new(),
        state: PrState::Open,
        author: Some(pr_author.clone()),
        head_ref: String::new(),
        base_ref: String::new(),
        head_sha: CommitId::from("0123456789abcdef0123456789abcdef01234567"),
        base_sha: None,
        head_repo: None,
        viewer: None,
        draft: false,
        mergeable: None,
        checks: None,
        reviews: vec![],
        comments: vec![],
        threads: vec![thread("t1", 10, a), thread("t2", 11, &body)],
    };
    let signals = analyze(&pr, &settings);
    let _ = review_classify::observe(&pr, &settings);
    let issues = review_core::followup::collect(&pr, &signals, &settings);
    let summary = review_core::followup::Summary::of(&pr, &issues);
    let _ = review_core::followup::form_page(&pr, &issues, &summary);
});
