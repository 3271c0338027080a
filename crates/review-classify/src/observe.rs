//! What the review loop's watcher sees in a pull request: [`observe`] reads a complete
//! [`PullRequest`] into the core's [`Observation`] (findings with fingerprints, people's
//! comments, out-of-diff findings, what each bot last reviewed, sticky reports, Copilot's quota
//! notices).

use review_core::gate::AutomationSettings;
use review_core::model::{Author, PullRequest, ReviewState};
use review_core::post;
use review_core::watch::{
    BotActivity, CheckState, Checks, DiagnosticsReport, FindingKind, HumanComment, Observation,
    OutOfDiff, OutOfDiffFinding, Sticky, ThreadFinding,
};

use crate::{Family, ThreadlessKind, fingerprint, identify, read, reviewed_commit};

/// The watcher's view of `pr`. Comments the tool itself posted (they carry its idempotency
/// key) are neither bot activity nor sticky reports.
pub fn observe(pr: &PullRequest, automation: &AutomationSettings) -> Observation {
    let pr_author = pr.author.as_ref();
    let signals = crate::analyze(pr, automation);
    let ours = |body: &str| post::find_key(body).is_some();
    let mut obs = Observation {
        head_sha: pr.head_sha.0.clone(),
        checks: Checks {
            state: CheckState::of(pr.checks),
            ..Checks::default()
        },
        ..Observation::default()
    };

    for thread in &pr.threads {
        obs.resolved.insert(thread.id.0.clone(), thread.is_resolved);
        if thread.is_resolved {
            continue;
        }
        let Some(first) = thread.first_comment() else {
            continue;
        };
        let human_comment_ids: Vec<String> = thread
            .comments
            .iter()
            .filter(|c| !automation.comment_participation(c, pr).is_automated())
            .map(|c| c.id.0.clone())
            .collect();
        let family = identify(first.author.as_ref(), &first.body, pr_author, automation);
        let fp = signals
            .threads
            .get(&thread.id)
            .map(|s| s.fingerprint.clone())
            .filter(|f| !f.is_empty())
            .unwrap_or_else(|| fingerprint(family, &thread.path, &read::title_of(&first.body)));
        obs.threads.push(ThreadFinding {
            fingerprint: fp,
            thread_id: review_core::site::Site::Thread(thread.id.clone()),
            kind: if human_comment_ids.is_empty() {
                FindingKind::Bot
            } else {
                FindingKind::Human
            },
            author: family.map_or_else(
                || author_key(first.author.as_ref()),
                |f| bot_key(f, first.author.as_ref()),
            ),
            path: thread.path.clone(),
            line: thread.lines.map(|l| l.end),
            outdated: thread.is_outdated,
            body: first.body.clone(),
            all_comments_read: thread.all_comments_read,
            url: first.url.clone(),
            human_comment_ids,
        });
    }

    for review in &pr.reviews {
        if review.state == ReviewState::Pending || ours(&review.body) {
            continue;
        }
        let Some(family) = identify(review.author.as_ref(), &review.body, pr_author, automation)
        else {
            continue;
        };
        let bot = bot_key(family, review.author.as_ref());
        obs.activity.push(BotActivity {
            bot: bot.clone(),
            marker: reviewed_commit(&review.body),
            commit: review.commit.as_ref().map(|c| c.0.clone()),
            submitted_at: review.submitted_at.clone(),
        });
        let findings: Vec<OutOfDiffFinding> = crate::threadless_findings(&review.body, family)
            .into_iter()
            .filter(|f| f.kind == ThreadlessKind::OutsideDiff)
            .map(|f| OutOfDiffFinding {
                path: f.path,
                line: f.lines.map(|l| l.end),
                title: f.title,
                body: f.text,
                fingerprint: f.fingerprint,
            })
            .collect();
        if !findings.is_empty() {
            obs.out_of_diff.push(OutOfDiff {
                review_id: review.id.0.clone(),
                author: bot,
                findings,
            });
        }
    }

    for c in &pr.comments {
        let participation = automation.participation(c.author.as_ref(), &c.body, pr_author);
        if !participation.is_automated() {
            let by_pr_author = matches!((c.author.as_ref(), pr_author), (Some(a), Some(p))
                if review_core::gate::same_login(&a.login, &p.login));
            if !by_pr_author {
                obs.human_comments.push(HumanComment {
                    id: c.id.0.clone(),
                    author: c
                        .author
                        .as_ref()
                        .map_or_else(|| "ghost".to_owned(), |a| a.login.clone()),
                    body: c.body.clone(),
                    url: c.url.clone(),
                });
            }
            continue;
        }
        if ours(&c.body) {
            continue;
        }
        if let Some(found) = crate::doctor::diagnostics(&c.body) {
            doctor(&mut obs, c, &found);
            continue;
        }
        let Some(family) = identify(c.author.as_ref(), &c.body, pr_author, automation) else {
            continue;
        };
        let bot = bot_key(family, c.author.as_ref());
        if let Some(marker) = reviewed_commit(&c.body) {
            obs.activity.push(BotActivity {
                bot: bot.clone(),
                marker: Some(marker),
                commit: None,
                submitted_at: Some(c.created_at.clone()),
            });
        }
        obs.stickies.push(Sticky {
            id: c.id.0.clone(),
            author: bot,
            digest: format!("{:016x}", fingerprint::fnv1a(&[c.body.as_bytes()])),
        });
    }
    obs.quota_spent = crate::standing::standings(pr, automation, &[])
        .into_iter()
        .filter(|b| matches!(b.state, review_core::status::BotState::QuotaSpent { .. }))
        .map(|b| b.bot)
        .collect();
    obs
}

/// The key React Doctor's findings and report go by.
const DOCTOR: &str = "react-doctor";

/// Reads React Doctor's report comment `c` (automated: a person's comment is never read as
/// one) into `obs`: the report, and each error as a finding under the report's thread, where the
/// loop triages and fixes it like any bot finding, and answers it with no reply. The latest
/// report counts: it is posted again after each scan.
fn doctor(
    obs: &mut Observation,
    c: &review_core::model::IssueComment,
    found: &[crate::doctor::Diagnostic],
) {
    let thread = review_core::site::Site::report(DOCTOR);
    // Posted again after each scan: the latest one stands.
    obs.threads.retain(|t| t.thread_id != thread);
    let mut errors = Vec::new();
    for d in found.iter().filter(|d| d.error) {
        // Lines move as code changes: the fingerprint is the rule, the file and the message.
        let title = format!("{} {}", d.rule, d.message);
        let fp = fingerprint(None, &d.path, &title);
        if errors.contains(&fp) {
            continue;
        }
        errors.push(fp.clone());
        let at = d
            .line
            .map_or_else(|| d.path.clone(), |l| format!("{}:{l}", d.path));
        obs.threads.push(ThreadFinding {
            fingerprint: fp,
            thread_id: thread.clone(),
            kind: FindingKind::Bot,
            author: DOCTOR.to_owned(),
            path: d.path.clone(),
            line: d.line,
            outdated: false,
            body: format!(
                "**{}** (`{}`, an error React Doctor reports at `{at}`)",
                d.message, d.rule
            ),
            all_comments_read: true,
            url: c.url.clone(),
            human_comment_ids: Vec::new(),
        });
    }
    // Posted after each scan: when it was, is when the tool last looked at the code.
    obs.activity.push(BotActivity {
        bot: DOCTOR.to_owned(),
        marker: None,
        commit: None,
        submitted_at: Some(c.created_at.clone()),
    });
    obs.doctor = Some(DiagnosticsReport {
        id: c.id.0.clone(),
        author: DOCTOR.to_owned(),
        url: c.url.clone(),
        digest: format!("{:016x}", fingerprint::fnv1a(&[c.body.as_bytes()])),
        errors,
        warnings: found.iter().filter(|d| !d.error).count(),
    });
}

/// The key the watcher knows a bot by, from its login (`coderabbitai`, `coderabbitai[bot]`,
/// `copilot-pull-request-reviewer`): a named tool's family (`coderabbit`, `copilot`), else the
/// login in lower case without `[bot]`.
///
/// ```
/// assert_eq!(review_classify::bot_key_of_login("coderabbitai[bot]"), "coderabbit");
/// assert_eq!(review_classify::bot_key_of_login("Some-QA-Bot"), "some-qa-bot");
/// ```
pub fn bot_key_of_login(login: &str) -> String {
    let base = login.trim().strip_suffix("[bot]").unwrap_or(login.trim());
    let author = Author::new(base, review_core::model::AuthorKind::Bot);
    match identify(Some(&author), "", None, &AutomationSettings::default()) {
        Some(family) => bot_key(family, Some(&author)),
        None => author_key(Some(&author)),
    }
}

/// The key a bot is known by: a named tool's family, else its login.
pub(crate) fn bot_key(family: Family, author: Option<&Author>) -> String {
    if family.is_named_tool() {
        family.as_str().to_owned()
    } else {
        author_key(author)
    }
}

/// A login as a key: lower case, without `[bot]`.
fn author_key(author: Option<&Author>) -> String {
    author.map_or_else(
        || "ghost".to_owned(),
        |a| {
            a.login
                .strip_suffix("[bot]")
                .unwrap_or(&a.login)
                .to_ascii_lowercase()
        },
    )
}
