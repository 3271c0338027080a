//! `commit_round`: one commit for the fixes of the loop's current round, after the project's
//! checks, then the round's summary; and `abandon_round`, which sets a failed round's edits
//! aside and escalates its fixes so that no reply claims a fix that was never committed.

use std::time::Duration;

use review_core::decisions::{Decisions, Judged, round_commit_message};
use review_core::round::RoundSummary;

use crate::error::{AppError, ErrorKind};
use crate::narrator::Narrator;
use crate::ports::DecisionsStore;
use crate::watch_store::WatchStore;

/// The working tree a round commits from: the loop's view of the repository, with the journal
/// of the tool's own uncommitted edits. Paths are relative to the root, with `/` separators.
///
/// `review_core::ports::Vcs` commits and reads files; a round also needs to know which files
/// the tool itself created (so an untracked file of the user's is never staged on the round's
/// account) and to set its edits aside when it fails.
pub trait RoundTree {
    /// The port's own error.
    type Error: std::error::Error + Send + Sync + 'static;

    /// The files the tool created (they did not exist before its edit) and has not committed.
    fn created(&self) -> Result<Vec<String>, Self::Error>;

    /// The untracked files that are not ignored.
    fn untracked(&self) -> Result<Vec<String>, Self::Error>;

    /// Which of `paths` have changes against HEAD (untracked files included), in their order.
    fn changed(&self, paths: &[String]) -> Result<Vec<String>, Self::Error>;

    /// Commits exactly `paths`, each staged by its literal path, with `message`; returns the
    /// commit's abbreviated id. A refused commit leaves the index and the tree as they were.
    fn commit_exactly(&self, paths: &[String], message: &str) -> Result<String, Self::Error>;

    /// Sets aside the tool's uncommitted edits of `round`: saves them where the user can find
    /// them and undoes each that still holds what the tool wrote. `None` when there were none.
    fn set_aside(&self, round: u32) -> Result<Option<SetAside>, Self::Error>;
}

/// What [`RoundTree::set_aside`] did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SetAside {
    /// Where the edits were saved (a patch file, say).
    pub saved: String,
    /// Files changed since the tool edited them: the user's now, left as they are.
    pub left: Vec<String>,
}

/// The project's checks, run before a round commits.
pub trait CheckRunner {
    /// Why the checks failed (their output, a timeout).
    type Error: std::error::Error + Send + Sync + 'static;

    /// Runs `check`; `Err` when it fails.
    fn run(&self, check: &Check<'_>) -> Result<(), Self::Error>;
}

/// The user's check command and how long it may run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Check<'a> {
    /// The command, as the user wrote it.
    pub command: &'a str,
    /// How long it may run.
    pub timeout: Duration,
}

/// What a round's commit goes through.
#[derive(Debug)]
pub struct RoundPorts<'a, T, S, C, N> {
    /// The working tree.
    pub tree: &'a T,
    /// The loop's files: the decisions (read and written) and the watch state (read).
    pub store: &'a S,
    /// The project's checks.
    pub checks: &'a C,
    /// Where progress is said.
    pub narrator: &'a N,
}

/// What to commit, and under which rules.
#[derive(Debug, Clone, Copy)]
pub struct RoundRequest<'a> {
    /// The files the round edited; empty: the files of its fixes that changed, and the files
    /// the tool created.
    pub paths: &'a [String],
    /// The checks to pass first, if any.
    pub check: Option<Check<'a>>,
    /// Paths the loop never commits.
    pub denied: &'a [String],
}

fn port<E: std::error::Error + Send + Sync + 'static>(e: E) -> AppError {
    AppError::port(e)
}

/// Commits the current round's fixes (`request.paths`, or else the files of its fixes that
/// changed and the files the tool created) after the checks, records the commit on the fixes,
/// starts the next round when this one had work, and returns the round's summary.
///
/// A deny-listed path is refused ([`ErrorKind::Refused`]); fixes whose files have no change are
/// [`ErrorKind::Invalid`]; failing checks or a refused commit are [`ErrorKind::Failed`]. In each
/// case nothing was committed and the decisions are unchanged: see [`abandon_round`].
pub fn commit_round<T, S, C, N>(
    ports: &RoundPorts<'_, T, S, C, N>,
    request: &RoundRequest<'_>,
) -> Result<RoundSummary, AppError>
where
    T: RoundTree,
    S: DecisionsStore + WatchStore,
    C: CheckRunner,
    N: Narrator,
{
    let RoundPorts {
        tree,
        store,
        checks,
        narrator,
    } = *ports;
    let decisions = DecisionsStore::load(store).map_err(port)?;
    let watch = store.load_watch().map_err(port)?.unwrap_or_default();
    let round = decisions.current_round();
    let fixes = decisions.uncommitted_fixes(round);

    let commit = if fixes.is_empty() {
        None
    } else {
        let paths = if request.paths.is_empty() {
            round_paths(tree, &decisions, round)?
        } else {
            request.paths.to_vec()
        };
        if let Some(bad) = paths
            .iter()
            .find(|p| review_core::plan::is_denied(p, request.denied))
        {
            return Err(AppError::new(
                ErrorKind::Refused,
                format!("{bad} is a deny-listed path: the loop does not commit it"),
                Some("commit it yourself if you mean to"),
            ));
        }
        if paths.is_empty() {
            return Err(AppError::new(
                ErrorKind::Invalid,
                format!(
                    "round {round} has {} fix(es) but none of their files has changes",
                    fixes.len()
                ),
                Some("pass --path for each file the round edited"),
            ));
        }
        let stopped = || {
            format!("round {round} stopped: nothing was committed and its findings stay unresolved")
        };
        if let Some(check) = &request.check {
            narrator.narrate(&format!(
                "[commit-round] running the checks: {}",
                check.command
            ));
            checks.run(check).map_err(|why| {
                AppError::caused(
                    ErrorKind::Failed,
                    format!("the project's checks failed: {why}"),
                    Some(stopped()),
                    why,
                )
            })?;
        }
        let sites: Vec<String> = fixes.iter().map(|(_, s)| s.thread_id.to_string()).collect();
        let items: Vec<(&str, &str, &str)> = fixes
            .iter()
            .zip(&sites)
            .map(|((_, s), site)| (s.path.as_str(), s.reasoning.as_str(), site.as_str()))
            .collect();
        let message = round_commit_message(round, &items);
        let sha = tree.commit_exactly(&paths, &message).map_err(|e| {
            AppError::caused(
                ErrorKind::Failed,
                format!("the commit was refused: {e}"),
                Some(format!(
                    "{}; fix what the hook reports, then run commit-round again",
                    stopped()
                )),
                e,
            )
        })?;
        Some(sha)
    };

    let fingerprints: Vec<String> = fixes.iter().map(|(fp, _)| (*fp).clone()).collect();
    let had_work = decisions.round_had_work(round);
    let mut after = Decisions::default();
    store
        .update(&mut |d| {
            if let Some(sha) = &commit {
                for fp in &fingerprints {
                    if let Some(seen) = d.seen.get_mut(fp) {
                        seen.resolved_sha = Some(sha.clone());
                    }
                }
            }
            if had_work {
                d.round = round + 1;
            }
            after = d.clone();
        })
        .map_err(port)?;
    Ok(RoundSummary::of(round, &after, &watch, commit.as_deref()))
}

/// The files of `round`'s fixes that changed, and the files the tool created: an untracked file
/// the tool did not create is the user's (`.env.local`, say) and never staged on the round's
/// account.
fn round_paths<T: RoundTree>(
    tree: &T,
    decisions: &Decisions,
    round: u32,
) -> Result<Vec<String>, AppError> {
    let mut candidates: Vec<String> = decisions
        .uncommitted_fixes(round)
        .iter()
        .map(|(_, s)| s.path.clone())
        .filter(|p| !p.is_empty())
        .collect();
    let created = tree.created().map_err(port)?;
    candidates.extend(created.iter().cloned());
    candidates.sort();
    candidates.dedup();
    let untracked = tree.untracked().map_err(port)?;
    Ok(tree
        .changed(&candidates)
        .map_err(port)?
        .into_iter()
        .filter(|p| !untracked.contains(p) || created.contains(p))
        .collect())
}

/// Abandons a round whose checks failed or whose commit was refused: the tool's edits are set
/// aside ([`RoundTree::set_aside`]; files the user changed since are left alone and said), and
/// the round's fixes are escalated with `why`, so no reply claims a fix that was never
/// committed and the next round starts clean. Returns where the edits were saved.
pub fn abandon_round<T, S, N>(
    tree: &T,
    store: &S,
    narrator: &N,
    why: &str,
) -> Result<Option<String>, AppError>
where
    T: RoundTree,
    S: DecisionsStore,
    N: Narrator,
{
    let decisions = store.load().map_err(port)?;
    let round = decisions.current_round();
    let fixes: Vec<(String, review_core::site::Site)> = decisions
        .uncommitted_fixes(round)
        .into_iter()
        .map(|(fp, s)| (fp.clone(), s.thread_id.clone()))
        .collect();
    let aside = tree.set_aside(round).map_err(port)?;
    for p in aside.iter().flat_map(|a| &a.left) {
        narrator.narrate(&format!(
            "[loop] {p} changed since the fixer edited it; left as it is"
        ));
    }
    let saved = aside.map(|a| a.saved);
    let reason = match &saved {
        Some(p) => format!("{why}; the round's edits were undone and saved in {p}"),
        None => why.to_owned(),
    };
    store
        .update(&mut |d| {
            for (fp, thread) in &fixes {
                d.record(
                    fp,
                    thread,
                    Judged::Escalate {
                        reason: reason.clone(),
                    },
                    round,
                );
            }
        })
        .map_err(port)?;
    Ok(saved)
}
