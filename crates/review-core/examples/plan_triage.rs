//! Plans the triage of a small pull request built in code, and prints what would happen to each
//! thread.
//!
//! The signals a comment reader (`review-classify`) would produce are written here by hand, so
//! the example shows the core on its own: threads + signals + settings -> plan -> report.
//!
//! Run it with `cargo run -p review-core --example plan_triage`.

// An example's whole point is to show its result on the terminal; the workspace lint that keeps
// library code from printing does not apply here.
#![allow(clippy::print_stdout)]

use review_core::model::{
    Author, AuthorKind, Comment, CommentId, CommitId, LineRange, PrState, PullRequest, RepoId,
    SubjectType, Thread, ThreadId,
};
use review_core::plan::{Action, TriageSettings, plan};
use review_core::report::ReconcileError;
use review_core::signals::{
    Concreteness, LadderHint, Scope, Severity, SignalSet, Signals, Suggestion,
};

/// A current, unresolved thread on one line with the given comments.
fn thread(id: &str, path: &str, line: u32, comments: Vec<Comment>) -> Thread {
    Thread {
        id: ThreadId::from(id),
        is_resolved: false,
        is_outdated: false,
        path: path.to_owned(),
        lines: Some(LineRange::new(line, line)),
        subject_type: SubjectType::Line,
        comments,
        all_comments_read: true,
        original_lines: None,
    }
}

fn comment(id: &str, author: Author, body: &str) -> Comment {
    Comment {
        id: CommentId::from(id),
        author: Some(author),
        body: body.to_owned(),
        created_at: "2026-11-16T13:41:09Z".to_owned(),
        url: String::new(),
        diff_hunk: None,
        review_id: None,
    }
}

/// Signals for a recognised bot finding; each thread below changes what sets it apart.
fn finding(family: &str, title: &str, severity: Severity) -> Signals {
    Signals {
        family: Some(family.to_owned()),
        format_known: true,
        title: title.to_owned(),
        severity,
        concreteness: Concreteness::Vague,
        scope: Scope::SingleFile,
        design_decision: false,
        style_only: false,
        speculative: false,
        already_addressed: false,
        ladder_hint: LadderHint::StopAndAsk,
        fingerprint: format!("{family}:{title}"),
        ..Signals::unknown("")
    }
}

fn main() -> Result<(), ReconcileError> {
    let coderabbit = Author::new("coderabbitai", AuthorKind::Bot);
    let copilot = Author::new("copilot-pull-request-reviewer", AuthorKind::Bot);
    let mei = Author::new("mei", AuthorKind::User);

    let flush = thread(
        "PRRT_flush",
        "src/export/mod.rs",
        70,
        vec![comment(
            "PRRC_1",
            coderabbit,
            "_⚠️ Potential issue_ | _🔴 Critical_\n\n**`out.flush()` is never awaited.**\n\n\
             ```suggestion\n    out.flush().await?;\n```",
        )],
    );
    let question = thread(
        "PRRT_question",
        "src/export/mod.rs",
        68,
        vec![comment(
            "PRRC_2",
            mei,
            "Shouldn't this be a hard error rather than a warn?",
        )],
    );
    let nit = thread(
        "PRRT_nit",
        "src/export/mod.rs",
        81,
        vec![comment(
            "PRRC_3",
            copilot,
            "[nitpick] `tenant` can be captured inline like `ext`.",
        )],
    );

    let pr = PullRequest {
        repo: RepoId::parse("acme/widgets").expect("a literal owner/name"),
        number: 482,
        id: String::new(),
        title: "Add rate-limited widget export endpoint".to_owned(),
        url: "https://github.com/acme/widgets/pull/482".to_owned(),
        state: PrState::Open,
        author: Some(Author::new("dana", AuthorKind::User)),
        head_ref: "dana/widget-export".to_owned(),
        base_ref: "main".to_owned(),
        head_sha: CommitId::from("9c4e2b7a1f03d58e6b2c91a7f4d0e3b58a6c2f19"),
        base_sha: None,
        head_repo: None,
        viewer: None,
        draft: false,
        mergeable: None,
        checks: None,
        reviews: Vec::new(),
        comments: Vec::new(),
        threads: vec![flush, question, nit],
    };

    // What a comment reader would have found. The human thread needs no signals: the gate
    // defers it whatever they say.
    let mut signals = SignalSet::default();
    signals.threads.insert(
        ThreadId::from("PRRT_flush"),
        Signals {
            concreteness: Concreteness::Suggestion(Suggestion {
                lines: Some(LineRange::new(70, 70)),
                replacement: "    out.flush().await?;".to_owned(),
            }),
            ladder_hint: LadderHint::JustDoIt,
            ..finding(
                "coderabbit",
                "`out.flush()` is never awaited",
                Severity::Critical,
            )
        },
    );
    signals.threads.insert(
        ThreadId::from("PRRT_nit"),
        Signals {
            style_only: true,
            ..finding("copilot", "capture `tenant` inline", Severity::Nit)
        },
    );

    let plan = plan(&pr, &signals, &TriageSettings::default());
    // The report refuses outcomes that do not account for every unresolved thread.
    let report = plan.report(&pr)?;

    for line in &plan.narration {
        println!("{line}");
    }
    println!();
    for (entry, planned) in report.threads.iter().zip(&plan.threads) {
        let class = entry.class.map_or("-", |c| c.as_str());
        let action = match &planned.action {
            Action::Leave => "leave open",
            Action::Resolve => "resolve",
            Action::Fix(_) => "fix, then resolve",
            Action::FollowFix { .. } => "resolve with its leader's fix",
        };
        println!(
            "{:<14} {:<21} {:<9} class={class:<10} human={:<5} action={action}",
            entry.id.to_string(),
            entry.location,
            entry.outcome.as_str(),
            entry.human
        );
        println!("{:<14} reason: {}", "", entry.reason);
    }
    println!();
    println!("{}", report.summary_line("skip"));
    Ok(())
}
