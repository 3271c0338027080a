//! One `review triage` run on the local machine and GitHub: the pull request read (live or
//! recorded), the pre-review, the adapters wired (GitHub with the audit log, the fixer and
//! judge commands, git, the terminal), `review_app::triage` called, and the status refreshed.
//! The command line renders what it returns; `review mcp`'s triage tools return it.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use review_app::triage::{self, TriagePorts};
use review_core::model::PullRequest;
use review_core::ports::{ReviewHost, Vcs};
use review_core::text::counted;

use super::settings::{Settings, Source};
use crate::commands::common;
use crate::error::CliError;
use crate::fixer::CommandFixer;
use crate::git::GitVcs;
use crate::output;
use crate::prereview;
use crate::replying::History;
use crate::triaging;

/// What a run did.
#[derive(Debug)]
pub enum Run {
    /// The pull request is closed or merged: nothing was done.
    Closed(triage::Closed),
    /// The threads were triaged.
    Triaged {
        /// The pull request as the run read it.
        pr: Box<PullRequest>,
        /// The report and what the run did.
        triaged: Box<triage::Triaged>,
        /// Whether the pre-review ran (`ran`) or not (`skip`).
        pre_review: &'static str,
    },
}

/// Runs one triage with `settings` (their deny list completed with the repository's file).
pub async fn run(settings: &mut Settings, config: &crate::config::Config) -> Result<Run, CliError> {
    let narrator = output::Narrate;
    let mut connection = None;
    let mut pr = match &settings.source {
        Source::Snapshot { path, pr, repo } => triaging::read_recorded(path, *pr, repo.as_ref())?,
        Source::Live { pr, repo } => {
            let (conn, read) = triaging::read_live(pr.as_deref(), repo.as_deref(), config).await?;
            connection = Some(conn);
            read
        }
    };
    if let Some(closed) = triage::closed(&pr, &narrator) {
        return Ok(Run::Closed(closed));
    }
    // The repository's own file, read at the PR's base commit through the API (never from the
    // working tree, which is the pull request's content).
    let repository = match &connection {
        Some(conn) => crate::config::repository(&conn.client, &pr).await?,
        None => crate::config::RepositoryLayer::default(),
    };
    // The deny list, one way for every command: the defaults, the flags, the user's file and
    // the repository's.
    settings.triage.fixes.denied_paths = repository.denied(&settings.deny_flags, config);
    let mut pre_review = "skip";
    match (&settings.source, &settings.reviewer, &connection) {
        (Source::Snapshot { .. }, _, _) => {
            output::narrate(
                "[triage] step 2 — skip pre-review: a recorded snapshot cannot be reviewed again",
            );
        }
        _ if settings.substep => {
            output::narrate("[triage] step 2 — skip pre-review as a sub-step: the caller runs it");
        }
        (_, None, _) if !settings.plan_notes.is_empty() => {
            for note in &settings.plan_notes {
                output::narrate(note);
            }
        }
        (_, None, _) => {
            output::narrate("[triage] step 2 — skip pre-review: no reviewer command configured");
        }
        (_, Some((command, timeout)), Some(conn)) => match GitVcs::open(&common::cwd()?) {
            Ok(vcs) => {
                if prereview::run(&vcs, &pr, command, *timeout, settings.skip_pre_review)?
                    == prereview::Outcome::Ran
                {
                    pre_review = "ran";
                    output::narrate(
                        "[triage] step 2 — the reviewer finished; reading the PR again for its findings",
                    );
                    pr = conn.read_pr().await?;
                }
            }
            Err(e) => output::narrate(&format!(
                "[triage] step 2 — warning: skip pre-review, it needs a local checkout: {e}"
            )),
        },
        (_, Some(_), None) => {}
    }

    // The local checkout: where fixes are made, and where earlier fixes are found.
    let vcs = match &settings.source {
        Source::Snapshot { .. } => None,
        Source::Live { .. } => triaging::checkout(&pr, settings.apply)?,
    };
    // What the gate knows of this PR: the repository's bot logins, the account the tool posts
    // as, its own comments (ledger) and the threads it resolved (audit log).
    settings.triage.automation = common::gate_for(
        settings.triage.automation.clone(),
        &repository,
        &pr,
        vcs.as_ref(),
    )?;

    // The adapters: GitHub with the audit log, the fixer and judge commands, git, the terminal.
    let acting = match (&connection, &vcs) {
        (Some(conn), Some(vcs)) if settings.apply => Some((conn, vcs)),
        _ => None,
    };
    if acting.is_some() {
        // Before any write: the account the resolves (and pushes' threads) go out as.
        output::narrate(&format!(
            "[triage] step 1 — writes go out as {}",
            output::account(pr.viewer.as_deref())
        ));
    }
    let host = acting.map(|(conn, vcs)| {
        conn.audited_host(review_core::gate::DEFAULT_AUTOMATED_HEADER, Some(vcs))
    });
    let fixer =
        acting
            .and(settings.fixer.as_ref())
            .zip(vcs.as_ref())
            .map(|((cmd, timeout), vcs)| {
                CommandFixer::new(cmd.clone(), vcs.clone(), Arc::new(pr.clone()), *timeout)
            });
    let judge = match &settings.judge {
        Some(judge) => Some(triaging::CommandJudge {
            judge: judge.clone(),
            connection: connection.as_ref(),
            vcs: vcs.as_ref(),
            dir: common::cwd()?,
        }),
        None => None,
    };
    let pusher = acting.map(|(conn, vcs)| triaging::GitPusher { vcs, conn });
    let stop = Arc::new(AtomicBool::new(false));
    // Ctrl-C stops at the next checkpoint; what was done so far is still reported.
    let watcher = acting.map(|_| {
        let flag = stop.clone();
        tokio::spawn(async move {
            crate::command::ctrl_c().await;
            flag.store(true, Ordering::SeqCst);
        })
    });
    let history = History(vcs.as_ref());
    let ports = TriagePorts {
        host: host.as_ref().map(|h| h as &dyn ReviewHost),
        vcs: vcs.as_ref().map(|v| v as &dyn Vcs),
        history: &history,
        fixer: fixer.as_ref().map(|f| f as &dyn review_core::ports::Fixer),
        judge: judge.as_ref(),
        prompt: Some(&triaging::Terminal),
        pusher: pusher.as_ref(),
        narrator: &narrator,
        stop: &stop,
    };
    let app_settings = triage::Settings {
        apply: settings.apply,
        push: settings.push,
        interactive: settings.interactive,
        triage: settings.triage.clone(),
        protocol_signals: settings.protocol_signals.clone(),
    };
    let outcome = ports.triage(&pr, &app_settings).await;
    if let Some(watcher) = watcher {
        watcher.abort();
    }
    if let (Some(conn), Some(host)) = (&connection, &host) {
        crate::statusing::refresh_if_resolved(
            conn,
            host,
            &settings.triage.automation,
            &pr,
            Some(&settings.triage.fixes.denied_paths),
            config,
        )
        .await;
    }
    Ok(match outcome.map_err(triaging::cli_error)? {
        triage::Outcome::Closed(closed) => Run::Closed(closed),
        triage::Outcome::Triaged(triaged) => Run::Triaged {
            pr: Box::new(pr),
            triaged,
            pre_review,
        },
    })
}

/// How a triage that ran ends: interrupted, its push failed, GitHub failed some resolves
/// (exit 4), or (`exit_code`) threads wait for a person (exit 7); done otherwise.
pub fn ended(triaged: &triage::Triaged, exit_code: bool) -> Result<(), CliError> {
    let report = &triaged.report;
    if triaged.interrupted {
        return Err(CliError::Interrupted);
    }
    if let triage::Pushed::Failed(why) = &triaged.pushed {
        return Err(CliError::Other {
            message: format!("the push failed: {why}"),
            hint: Some(
                "the fixes are committed locally; pull or rebase, then push yourself and run again"
                    .to_owned(),
            ),
        });
    }
    // GitHub failed some resolves (the report says why): not a success (exit 4, as documented).
    let unresolved = report
        .threads
        .iter()
        .filter(|t| t.deferred_because == Some(review_core::report::DeferReason::HostError))
        .count();
    if unresolved > 0 {
        return Err(CliError::GitHub {
            message: format!(
                "{} could not be resolved on GitHub",
                counted(unresolved, "thread", "threads")
            ),
            source: None,
            hint: Some(
                "the report says why; run again: what was done is not done twice".to_owned(),
            ),
        });
    }
    // Protocol signals need no person: they are the tools' business.
    let waiting = report.waiting_for_a_person().count();
    if exit_code && waiting > 0 {
        return Err(CliError::NeedsPerson { deferred: waiting });
    }
    Ok(())
}
