//! `review commit-round`: one commit for the fixes of the loop's current round, then the
//! round's summary.

use std::fmt::Write as _;
use std::path::PathBuf;
use std::time::Duration;

use clap::Args;
use review_core::decisions::{Decisions, round_commit_message};
use review_core::watch::{FindingKind, WatchState};

use crate::commands::common::{self, PrArgs};
use crate::error::CliError;
use crate::git::GitVcs;
use crate::loop_files::LoopFiles;
use crate::output;

/// Commit the current round's fixes as one commit (explicit paths, no push), and summarise
///
/// The fixes are the round's VALID verdicts (and CONFLICTS_WITH_RULE ones with a fix sketch)
/// not yet committed. Only the files named with --path are committed (by default the files of
/// those findings that have changes; an untracked file only when the loop's fixer created it:
/// files that were there before are yours and are never staged unless you name them), staged
/// by literal path; nothing else in the worktree is touched. The project's checks (--check-cmd)
/// run first: if they fail, or a commit is refused, the round stops with nothing committed and
/// its findings unresolved, and no reply claims their fix. On success the fixes record the
/// commit (their replies will cite it), the next round begins, and the summary groups the round
/// as FIXED / REJECTED / HUMAN / ESCALATED, ending with the commit and "ready to push". Git
/// hooks do not run unless --run-hooks (or `run-hooks = true` in your config): use --check-cmd
/// for the project's checks.
#[derive(Debug, Args)]
pub struct CommitRoundArgs {
    /// The pull request: a number, a URL, or nothing for the open PR of the current branch
    #[arg(value_name = "PR")]
    pr: Option<String>,

    /// A file this round edited (repeatable) [default: the round's findings' files that changed]
    #[arg(long = "path", value_name = "PATH")]
    paths: Vec<String>,

    /// The project's checks, run with `sh -c` in the repository root before committing
    /// [default: `commands.checks` of your config file]
    #[arg(long, value_name = "COMMAND")]
    check_cmd: Option<String>,

    /// How long the checks may run, in seconds
    #[arg(long, value_name = "SECONDS", default_value_t = 900)]
    check_timeout: u64,

    /// Also show the summary as a desktop notification, where the system offers one
    #[arg(long)]
    notify: bool,

    #[command(flatten)]
    target: PrArgs,
}

/// The round's summary.
pub fn summary(
    round: u32,
    decisions: &Decisions,
    watch: &WatchState,
    commit: Option<&str>,
) -> String {
    let mut text = format!("Round {round}\n");
    let mut group = |title: &str, lines: Vec<String>| {
        if !lines.is_empty() {
            let _ = writeln!(text, "{title}");
            for l in lines {
                let _ = writeln!(text, "  - {l}");
            }
        }
    };
    let in_round = || {
        decisions
            .seen
            .values()
            .filter(move |s| s.decided_in_round == round)
    };
    // A fix is a fix verdict with its commit; a STALE verdict citing an earlier commit is not.
    let fixed: Vec<String> = in_round()
        .filter(|s| s.claims_fix() && s.resolved_sha.is_some())
        .map(|s| {
            format!(
                "{} ({}): {}",
                if s.path.is_empty() { "?" } else { &s.path },
                s.thread_id,
                first_line(&s.reasoning)
            )
        })
        .collect();
    group("FIXED", fixed);
    let rejected: Vec<String> = in_round()
        .filter(|s| !s.claims_fix())
        .map(|s| {
            format!(
                "{} {}: {}",
                s.verdict,
                s.thread_id,
                first_line(&s.reasoning)
            )
        })
        .collect();
    group("REJECTED", rejected);
    let mut human: Vec<String> = watch
        .pending
        .iter()
        .filter(|f| f.kind == FindingKind::Human)
        .map(|f| format!("{} on {} ({})", f.author, f.path, f.thread_id))
        .collect();
    human.extend(
        watch
            .human_comments
            .iter()
            .map(|c| format!("@{} on the conversation ({})", c.author, c.id)),
    );
    group("HUMAN", human);
    let escalated: Vec<String> = decisions
        .escalated
        .iter()
        .filter(|e| e.escalated_in_round == round)
        .map(|e| format!("{}: {}", e.thread_id, e.reason))
        .collect();
    group("ESCALATED", escalated);
    match commit {
        Some(sha) => {
            let _ = writeln!(text, "{sha} — ready to push.");
        }
        None => text.push_str("No fixes this round; nothing committed.\n"),
    }
    text
}

fn first_line(text: &str) -> &str {
    text.lines().next().unwrap_or("").trim()
}

/// Shows `text` as a desktop notification, best effort.
pub(crate) fn notify(text: &str) {
    let title = "review";
    let body: String = text.lines().take(6).collect::<Vec<_>>().join("\n");
    let tried = if cfg!(target_os = "macos") {
        let script = format!(
            "display notification {:?} with title {:?}",
            body.replace('\n', " · "),
            title
        );
        std::process::Command::new("osascript")
            .args(["-e", &script])
            .status()
    } else {
        std::process::Command::new("notify-send")
            .args([title, &body])
            .status()
    };
    if !tried.is_ok_and(|s| s.success()) {
        output::narrate("[commit-round] no desktop notification could be shown");
    }
}

/// Runs `review commit-round`.
pub async fn run(args: CommitRoundArgs) -> Result<(), CliError> {
    let conn = crate::github::connect(
        args.pr.as_deref(),
        args.target.repo.as_deref(),
        &common::cwd()?,
    )
    .await?;
    let (repo, number) = (conn.repo.clone(), conn.number);
    let vcs = loop_vcs(&repo, number)?;
    let files = LoopFiles::new(&vcs, &repo, number)?;
    let config = crate::config::current()?;
    let check_cmd = crate::config::or_configured(args.check_cmd.as_ref(), config.checks.as_ref());
    let check = check_cmd
        .as_deref()
        .map(|c| (c, Duration::from_secs(args.check_timeout)));
    let denied = crate::config::repository_of(&conn.client, &repo, number)
        .await?
        .denied(&[])?;
    let text = commit_round(&vcs, &files, &args.paths, check, &denied)?;
    output::human(&text).map_err(CliError::Output)?;
    if args.notify {
        notify(&text);
    }
    Ok(())
}

/// The clone the loop works in, with the pull request's journal of the tool's own edits (the
/// loop's fixer runs are journaled, so a killed run is recovered and a failed round undone) and
/// its audit log.
pub(crate) fn loop_vcs(repo: &review_core::model::RepoId, number: u64) -> Result<GitVcs, CliError> {
    let vcs = GitVcs::open(&common::cwd()?).map_err(|e| CliError::Usage {
        message: format!("the loop commits in a git repository: {e}"),
        hint: Some("run inside a clone of the pull request's repository".to_owned()),
    })?;
    let journal =
        crate::state::pr_file_for(&vcs, "journal", repo, number).map_err(|e| CliError::Other {
            message: format!("cannot find the git directory: {e}"),
            hint: None,
        })?;
    let audit = crate::audit::Audit::new(Some(&vcs), repo, number);
    Ok(vcs.with_journal(journal).with_audit(audit))
}

/// Commits the current round's fixes (the files `paths`, or else those of the fixes that
/// changed) after `check`, records the commit on the fixes, starts the next round, and returns
/// the round's summary. A failing check or a refused commit stops the round: an error, nothing
/// committed.
pub(crate) fn commit_round(
    vcs: &GitVcs,
    files: &LoopFiles,
    paths: &[String],
    check: Option<(&str, Duration)>,
    denied: &[String],
) -> Result<String, CliError> {
    let decisions = files.load_decisions()?;
    let watch = files.load_watch()?.unwrap_or_default();
    let round = decisions.current_round();
    let fixes = decisions.uncommitted_fixes(round);

    let commit = if fixes.is_empty() {
        None
    } else {
        let paths = if paths.is_empty() {
            let mut candidates: Vec<String> = fixes
                .iter()
                .map(|(_, s)| s.path.clone())
                .filter(|p| !p.is_empty())
                .collect();
            // Files the fixer created are the round's too, untracked as they are.
            let created: Vec<String> = vcs
                .journal_entries()
                .map_err(|e| CliError::Other {
                    message: e.to_string(),
                    hint: None,
                })?
                .into_iter()
                .filter(|e| e.created)
                .map(|e| e.path)
                .collect();
            candidates.extend(created.iter().cloned());
            candidates.sort();
            candidates.dedup();
            let untracked = vcs.untracked().map_err(|e| CliError::Other {
                message: e.to_string(),
                hint: None,
            })?;
            // An untracked file the tool did not create is the user's (`.env.local`, say):
            // never staged on the round's account.
            vcs.changed(&candidates)
                .map_err(|e| CliError::Other {
                    message: e.to_string(),
                    hint: None,
                })?
                .into_iter()
                .filter(|p| !untracked.contains(p) || created.contains(p))
                .collect()
        } else {
            paths.to_vec()
        };
        if let Some(bad) = paths
            .iter()
            .find(|p| review_core::plan::is_denied(p, denied))
        {
            return Err(CliError::Refused {
                message: format!("{bad} is a deny-listed path: the loop does not commit it"),
                hint: Some("commit it yourself if you mean to".to_owned()),
            });
        }
        if paths.is_empty() {
            return Err(CliError::Usage {
                message: format!(
                    "round {round} has {} fix(es) but none of their files has changes",
                    fixes.len()
                ),
                hint: Some("pass --path for each file the round edited".to_owned()),
            });
        }
        if let Some((check, timeout)) = check {
            output::narrate(&format!("[commit-round] running the checks: {check}"));
            crate::command::run(crate::command::Kind::Checks, check, vcs.root(), "", timeout)
                .map_err(|why| CliError::Other {
                    message: format!("the project's checks failed: {why}"),
                    hint: Some(format!(
                        "round {round} stopped: nothing was committed and its findings stay unresolved"
                    )),
                })?;
        }
        let items: Vec<(&str, &str, &str)> = fixes
            .iter()
            .map(|(_, s)| (s.path.as_str(), s.reasoning.as_str(), s.thread_id.as_str()))
            .collect();
        let message = round_commit_message(round, &items);
        let sha = vcs
            .commit_paths_exactly(&paths, &message)
            .map_err(|e| CliError::Other {
                message: format!("the commit was refused: {e}"),
                hint: Some(format!(
                    "round {round} stopped: nothing was committed and its findings stay unresolved; fix what the hook reports, then run commit-round again"
                )),
            })?;
        Some(sha)
    };

    let fingerprints: Vec<String> = fixes.iter().map(|(fp, _)| (*fp).clone()).collect();
    let round_had_work = decisions.seen.values().any(|s| s.decided_in_round == round)
        || decisions
            .escalated
            .iter()
            .any(|e| e.escalated_in_round == round);
    let decisions = files.update_decisions(|d| {
        if let Some(sha) = &commit {
            for fp in &fingerprints {
                if let Some(seen) = d.seen.get_mut(fp) {
                    seen.resolved_sha = Some(sha.clone());
                }
            }
        }
        if round_had_work {
            d.round = round + 1;
        }
        d.clone()
    })?;
    Ok(summary(round, &decisions, &watch, commit.as_deref()))
}

/// Abandons a round whose checks failed or whose commit was refused: its edits are saved as a
/// patch under the git common directory, the edits the journal says the tool made are undone
/// (files the user changed since are left alone), and the round's fixes are escalated, so no
/// reply claims a fix that was never committed and the next round starts clean. Returns the
/// patch's path.
pub(crate) fn abandon_round(
    vcs: &GitVcs,
    files: &LoopFiles,
    why: &str,
) -> Result<Option<PathBuf>, CliError> {
    let other = |message: String| CliError::Other {
        message,
        hint: None,
    };
    let entries = vcs.journal_entries().map_err(|e| other(e.to_string()))?;
    let decisions = files.load_decisions()?;
    let round = decisions.current_round();
    let fixes: Vec<(String, String)> = decisions
        .uncommitted_fixes(round)
        .into_iter()
        .map(|(fp, s)| (fp.clone(), s.thread_id.clone()))
        .collect();
    let paths: Vec<String> = entries.iter().map(|e| e.path.clone()).collect();
    let patch = if paths.is_empty() {
        None
    } else {
        let text = vcs.patch_of(&entries).map_err(|e| other(e.to_string()))?;
        let dir = vcs
            .common_dir()
            .map_err(|e| other(e.to_string()))?
            .join("review");
        std::fs::create_dir_all(&dir).map_err(|e| other(e.to_string()))?;
        let path = dir.join(format!(
            "failed-round-{round}-{}.patch",
            crate::audit::run_id()
        ));
        crate::state::write_atomically(&path, &text).map_err(|e| other(e.to_string()))?;
        let (_, left) = vcs
            .undo_own_edits(&paths)
            .map_err(|e| other(e.to_string()))?;
        for p in left {
            output::narrate(&format!(
                "[loop] {p} changed since the fixer edited it; left as it is"
            ));
        }
        Some(path)
    };
    let reason = match &patch {
        Some(p) => format!(
            "{why}; the round's edits were undone and saved in {}",
            p.display()
        ),
        None => why.to_owned(),
    };
    files.update_decisions(|d| {
        for (fp, thread) in &fixes {
            d.record(
                fp,
                thread,
                review_core::decisions::Judged::Escalate {
                    reason: reason.clone(),
                },
                round,
            );
        }
    })?;
    Ok(patch)
}

#[cfg(test)]
mod tests {
    use review_core::decisions::{Decisions, FindingFacts, judge};
    use review_core::watch::WatchState;

    use super::summary;

    fn decided(d: &mut Decisions, fp: &str, thread: &str, answer: &str) {
        let facts = FindingFacts {
            path: "src/lib.rs",
            body: "Handle the error",
            denied_paths: &[],
            security: None,
        };
        d.record(fp, thread, judge(answer, facts), 1);
    }

    /// Regression: a STALE verdict citing the commit that had already addressed it was listed
    /// under FIXED, as if this round had fixed it.
    #[test]
    fn a_stale_verdict_with_its_commit_is_not_listed_as_fixed() {
        let mut d = Decisions::default();
        decided(
            &mut d,
            "fp1",
            "T1",
            r#"{"verdict":"STALE","reasoning":"handled in update() below","evidence":["src/lib.rs:9"],"resolvedSha":"0a1b2c3"}"#,
        );
        decided(
            &mut d,
            "fp2",
            "T2",
            r#"{"verdict":"VALID","reasoning":"the error is handled","evidence":["src/lib.rs:3"],"fixSketch":"use ?"}"#,
        );
        d.seen.get_mut("fp2").unwrap().resolved_sha = Some("3f2a9c1".into());
        let text = summary(1, &d, &WatchState::default(), Some("3f2a9c1"));
        let fixed = text.split("REJECTED").next().unwrap();
        assert!(fixed.contains("(T2)"), "{text}");
        assert!(!fixed.contains("T1"), "{text}");
        assert!(
            text.contains("REJECTED\n  - STALE T1: handled in update() below"),
            "{text}"
        );
    }
}
