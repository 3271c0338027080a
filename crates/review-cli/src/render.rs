//! The human-readable triage report: one section per outcome, one line per thread.
//!
//! Plain text with no colour, so it reads the same in a terminal, a log or a pipe. What comes
//! from the pull request (its title, thread ids, paths, logins, reasons quoting a finding) is
//! shown with [`visible_line`]: one line each, control and bidirectional formatting characters
//! escaped, so a comment cannot redraw a row or start one of its own.

use std::fmt::Write as _;

use review_core::model::PullRequest;
use review_core::report::{Outcome, Report, ThreadReport};
use review_core::text::{counted, visible_line};

/// What each section of the report means, said once under its heading: `applying` for a run
/// with --apply, `resolved_outdated` when it resolved threads outdated by their own fix.
fn section_note(outcome: Outcome, applying: bool, resolved_outdated: bool) -> &'static str {
    match (outcome, applying) {
        (Outcome::Outdated, true) if resolved_outdated => {
            "the code changed since; those outdated by their own fix were resolved"
        }
        (Outcome::Actioned, false) => {
            "findings the tool would fix (actionable, and nits with a concrete fix)"
        }
        (Outcome::Actioned, true) => "findings fixed (actionable, and nits with a concrete fix)",
        (Outcome::Promoted, false) => "ambiguous findings the autonomy ladder would fix",
        (Outcome::Promoted, true) => "ambiguous findings the autonomy ladder fixed",
        (Outcome::Resolved, false) => "threads the tool would resolve, without a reply",
        (Outcome::Resolved, true) => "threads resolved, without a reply",
        (Outcome::Deferred, _) => "left open for a person",
        (Outcome::Outdated, _) => "the code changed since; not acted on",
    }
}

fn who(t: &ThreadReport) -> String {
    let who = match (&t.family, &t.author, t.human) {
        (Some(family), _, false) => family.clone(),
        (_, Some(login), _) => format!("@{login}"),
        (_, None, _) => "(unknown)".to_owned(),
    };
    visible_line(&who).into_owned()
}

/// Renders the report for people; `applying` for a run with --apply (which may change
/// nothing).
pub fn report(pr: &PullRequest, report: &Report, applying: bool) -> String {
    let mut out = String::new();
    let mode = match (report.applied, applying) {
        (true, _) => "changes applied",
        (false, true) => "nothing changed",
        (false, false) => "plan only, nothing changed",
    };
    let applying = applying || report.applied;
    // Outdated threads resolved because their own fix is on the PR.
    let resolved_outdated = applying
        && report.threads.iter().any(|t| {
            t.outcome == Outcome::Outdated && t.commit.is_some() && t.deferred_because.is_none()
        });
    let _ = writeln!(
        out,
        "{}#{} {} at {} ({mode})",
        report.repo,
        report.pr,
        visible_line(&format!("{:?}", pr.title)),
        report.head_sha.short()
    );
    let id_w = report
        .threads
        .iter()
        .map(|t| visible_line(&t.id.0).len())
        .max()
        .unwrap_or(0);
    let loc_w = report
        .threads
        .iter()
        .map(|t| visible_line(&t.location).len())
        .max()
        .unwrap_or(0);
    let who_w = report
        .threads
        .iter()
        .map(|t| who(t).len())
        .max()
        .unwrap_or(0);
    for outcome in Outcome::ALL {
        let entries: Vec<&ThreadReport> = report
            .threads
            .iter()
            .filter(|t| t.outcome == outcome)
            .collect();
        if entries.is_empty() {
            continue;
        }
        let _ = writeln!(
            out,
            "\n{} ({}) — {}",
            outcome.as_str().to_uppercase(),
            entries.len(),
            section_note(outcome, applying, resolved_outdated)
        );
        for t in entries {
            let class = match (t.human, t.class) {
                (true, _) => "human",
                (false, Some(c)) => c.as_str(),
                (false, None) => "-",
            };
            let _ = writeln!(
                out,
                "  {:id_w$}  {:loc_w$}  {:who_w$}  {:10}  {}",
                visible_line(&t.id.0),
                visible_line(&t.location),
                who(t),
                class,
                visible_line(&t.reason),
            );
        }
    }
    let c = &report.counts;
    let _ = writeln!(
        out,
        "\n{}: resolved={} actioned={} promoted={} deferred={} outdated={}",
        counted(report.threads.len(), "thread", "threads"),
        c.resolved,
        c.actioned,
        c.promoted,
        c.deferred,
        c.outdated
    );
    let recommend: Vec<&ThreadReport> = report
        .threads
        .iter()
        .filter(|t| t.alternative.is_some())
        .collect();
    if !recommend.is_empty() {
        let _ = writeln!(
            out,
            "\nRecommend-and-ask — say so if you would rather the alternative:"
        );
        for t in recommend {
            let _ = writeln!(
                out,
                "  {} ({}): alternative was {}",
                visible_line(&t.id.0),
                visible_line(&t.location),
                visible_line(t.alternative.as_deref().unwrap_or_default())
            );
        }
    }
    if !report.hints.is_empty() {
        let _ = writeln!(out);
        for hint in &report.hints {
            let _ = writeln!(out, "hint: @{} {}", hint.login, hint.message);
        }
    }
    out
}
