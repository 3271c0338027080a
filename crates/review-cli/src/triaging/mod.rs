//! `review triage`'s adapters of `review_app::triage`'s ports: the judge command
//! ([`CommandJudge`], with the files it gets as evidence), the push to the PR's branch
//! ([`GitPusher`]), the terminal's question about a fix in a person's thread ([`Terminal`]);
//! and the steps around the use-case that need the local machine: the read of the pull request
//! ([`read_recorded`], [`read_live`]), the checkout ([`checkout`], with the fix journal:
//! [`journaled`]), the `--substep` JSON ([`substep_json`]) and the use-case's errors in the
//! command line's terms ([`cli_error`]).

pub mod run;
mod settings;

pub use settings::{Settings, TriageArgs};

use std::collections::BTreeMap;
use std::fs;
use std::io::{BufRead, IsTerminal};
use std::path::{Path, PathBuf};

use review_app::triage::{
    HumanFixOffer, Judge, JudgeRequest, Judged, Prompt, Pusher, SubstepResult,
};
use review_app::{AppError, ErrorKind};
use review_core::model::{PullRequest, RepoId, ThreadId};
use review_core::snapshot;
use review_core::text::{counted, visible, visible_line};
use review_github::reader::{ReadError, Reader};

use crate::commands::common;
use crate::error::CliError;
use crate::git::GitVcs;
use crate::github;
use crate::judge::JudgeCmd;
use crate::output;

/// Reads the recorded snapshot at `path`; the PR `number` and `repo`, when given, must be the
/// ones it records.
pub fn read_snapshot(
    path: &Path,
    number: Option<u64>,
    repo: Option<&RepoId>,
) -> Result<PullRequest, CliError> {
    let input_error = |message: String, hint: &str| CliError::Input {
        path: path.to_path_buf(),
        message,
        hint: Some(hint.to_owned()),
    };
    let text = fs::read_to_string(path).map_err(|e| {
        input_error(
            e.to_string(),
            "check the path; a snapshot is a JSON file described in docs/snapshot-format.md",
        )
    })?;
    let pr = snapshot::parse(&text).map_err(|e| {
        input_error(
            e.to_string(),
            "the format is described in docs/snapshot-format.md",
        )
    })?;
    if let Some(number) = number
        && number != pr.number
    {
        return Err(input_error(
            format!("it records PR #{}, not #{number}", pr.number),
            "leave out the PR argument, or pass the snapshot of that PR",
        ));
    }
    if let Some(repo) = repo
        && repo != &pr.repo
    {
        return Err(input_error(
            format!("it records {}, not {repo}", pr.repo),
            "leave out --repo, or pass the snapshot of that repository",
        ));
    }
    Ok(pr)
}

/// Step 1 with `--input`: the recorded snapshot at `path` ([`read_snapshot`]), said so.
pub fn read_recorded(
    path: &Path,
    number: Option<u64>,
    repo: Option<&RepoId>,
) -> Result<PullRequest, CliError> {
    let read = read_snapshot(path, number, repo)?;
    output::narrate(&format!(
        "[triage] step 1 — read PR #{} ({}) from {}, a recorded snapshot at {}",
        read.number,
        read.repo,
        path.display(),
        read.head_sha.short()
    ));
    Ok(read)
}

/// Step 1 on GitHub: the connection to the PR (`pr`, `repo` as given, else found the `gh` way)
/// and the PR read whole, with a spinner meanwhile and what the read cost said.
pub async fn read_live(
    pr: Option<&str>,
    repo: Option<&str>,
    config: &crate::config::Config,
) -> Result<(github::Connection, PullRequest), CliError> {
    let conn = common::connect(pr, repo, config).await?;
    output::narrate(&format!(
        "[triage] step 1 — reading PR #{} ({}) from GitHub",
        conn.number, conn.repo
    ));
    let spinner = output::Spinner::start(&format!("reading PR #{}", conn.number));
    let read = conn.read_pr().await?;
    drop(spinner);
    let stats = conn.client.stats();
    output::narrate(&format!(
        "[triage] step 1 — read {} at {} in {} ({})",
        counted(read.threads.len(), "thread", "threads"),
        read.head_sha.short(),
        counted(stats.requests, "request", "requests"),
        counted(stats.points, "point", "points")
    ));
    Ok((conn, read))
}

/// The local checkout of the current directory, with the audit log, and with `apply` the fix
/// journal (a killed run's edits recovered: [`journaled`]). Outside a clone: none for a plan,
/// a usage error with `apply` (fixes are made in a checkout).
pub fn checkout(pr: &PullRequest, apply: bool) -> Result<Option<GitVcs>, CliError> {
    match GitVcs::open(&common::cwd()?) {
        Ok(vcs) => {
            let audit =
                crate::audit::Audit::new(vcs.state_dir().ok().as_ref(), &pr.repo, pr.number);
            let vcs = vcs.with_audit(audit);
            if apply {
                Ok(Some(journaled(vcs, pr)?))
            } else {
                Ok(Some(vcs))
            }
        }
        Err(e) if apply => Err(CliError::Usage {
            message: format!("--apply makes fixes in a local checkout of the PR: {e}"),
            hint: Some("run it inside a clone, with the PR's branch checked out".to_owned()),
        }),
        Err(_) => Ok(None),
    }
}

/// The files `threads` are on, at the PR head, for the judge: through the API when connected
/// (never from the working tree, which may hold links anywhere), else from the local checkout's
/// HEAD commit when it is the PR head, else none and why.
async fn files_at_head(
    pr: &PullRequest,
    threads: &[ThreadId],
    connection: Option<&github::Connection>,
    checkout: Option<&GitVcs>,
) -> BTreeMap<String, crate::judge::FileAtHead> {
    let mut files = BTreeMap::new();
    for id in threads {
        let Some(thread) = pr.thread(id) else {
            continue;
        };
        if files.contains_key(&thread.path) || thread.path.is_empty() {
            continue;
        }
        let found = match (connection, checkout) {
            (Some(conn), _) => match Reader::new(&conn.client)
                .file_at(
                    &pr.repo,
                    &pr.head_sha.0,
                    &thread.path,
                    crate::judge::FILE_LIMIT,
                )
                .await
            {
                Ok(review_github::reader::RepoFile::Text(text)) => Ok(text),
                Ok(review_github::reader::RepoFile::Absent) => {
                    Err("the file is not in the PR head".to_owned())
                }
                Ok(review_github::reader::RepoFile::Refused(why)) => Err(why),
                Err(e) => Err(format!("it could not be read: {e}")),
            },
            (None, Some(vcs)) => {
                match vcs.text_at("HEAD", &thread.path, crate::judge::FILE_LIMIT) {
                    Ok(Some(text)) => Ok(text),
                    Ok(None) => Err(
                        "not a regular text file of the PR head within the size read".to_owned(),
                    ),
                    Err(e) => Err(format!("it could not be read: {e}")),
                }
            }
            (None, None) => {
                Err("not available: a recorded snapshot with no checkout at the PR head".to_owned())
            }
        };
        files.insert(thread.path.clone(), found);
    }
    files
}

/// The judge as the user's command (`--judge-cmd`), asked about each thread with the evidence
/// as JSON on stdin ([`crate::judge`]): the files through the API when connected, else from the
/// checkout when it is at the PR head.
#[derive(Debug)]
pub struct CommandJudge<'a> {
    /// The command and its limits.
    pub judge: JudgeCmd,
    /// GitHub, when the PR was read there.
    pub connection: Option<&'a github::Connection>,
    /// The local checkout, if any.
    pub vcs: Option<&'a GitVcs>,
    /// Where the command runs.
    pub dir: PathBuf,
}

impl Judge for CommandJudge<'_> {
    type Error = CliError;

    fn max(&self) -> Option<usize> {
        self.judge.max
    }

    async fn judge(&self, request: JudgeRequest<'_>) -> Result<Judged, CliError> {
        let files = files_at_head(
            request.pr,
            request.threads,
            self.connection,
            self.vcs.filter(|_| request.checkout_at_head),
        )
        .await;
        let calls = crate::judge::prepare(
            &self.judge,
            request.pr,
            request.plan,
            request.signals,
            request.threads,
            &files,
        );
        let (judge, dir, eligible) = (self.judge.clone(), self.dir.clone(), request.threads.len());
        // The calls run side by side (--jobs) on the blocking pool; Ctrl-C stops them all.
        let (asked, stopped) = crate::command::interruptible(output::carried(move || {
            crate::judge::ask(&judge, &dir, &calls, eligible)
        }))
        .await
        .map_err(|e| CliError::Other {
            message: format!("the judge's calls failed: {e}"),
            hint: Some("nothing was changed; run again".to_owned()),
        })?;
        Ok(Judged {
            verdicts: asked.verdicts,
            eligible: asked.eligible,
            interrupted: asked.interrupted,
            stopped,
        })
    }
}

/// A read of the pull request that failed, for the push: the command fails with the reader's
/// own error ([`cli_error`]).
#[derive(Debug, thiserror::Error)]
#[error(transparent)]
pub struct ReadAgain(ReadError);

/// Pushes the fix commits to the PR's own branch ([`GitVcs::push_to_pr`]), reading the PR
/// through the GraphQL reader.
#[derive(Debug, Clone, Copy)]
pub struct GitPusher<'a> {
    /// The checkout.
    pub vcs: &'a GitVcs,
    /// GitHub.
    pub conn: &'a github::Connection,
}

impl Pusher for GitPusher<'_> {
    type Error = ReadAgain;

    async fn read_again(&self, _: &PullRequest) -> Result<PullRequest, ReadAgain> {
        Reader::new(&self.conn.client)
            .pull_request(&self.conn.repo, self.conn.number)
            .await
            .map_err(ReadAgain)
    }

    fn push(&self, branch: &str, now: &PullRequest) -> Result<String, String> {
        self.vcs
            .push_to_pr(
                &self.conn.host_name,
                now.head_repo.as_ref(),
                branch,
                &now.head_sha.0,
                &github::read_remote,
            )
            .map_err(|e| e.to_string())
    }
}

/// The terminal, for `--interactive`: asks on stderr, reads the answer on stdin.
#[derive(Debug, Clone, Copy)]
pub struct Terminal;

impl Prompt for Terminal {
    fn available(&self) -> bool {
        std::io::stdin().is_terminal() && std::io::stderr().is_terminal()
    }

    fn ask(&self, offer: &HumanFixOffer<'_>) -> bool {
        ask_terminal(&human_fix_question(
            offer.entry,
            offer.path,
            offer.title,
            offer.suggestion,
            offer.lines,
        ))
    }
}

/// The use-case's error in the command line's terms: a failed read of the PR as the reader's
/// error says (its exit code), any other as [`CliError`] takes an [`AppError`].
pub fn cli_error(e: AppError) -> CliError {
    let AppError {
        kind,
        message,
        hint,
        source,
    } = e;
    let source = match source {
        Some(source) if kind == ErrorKind::Port => match source.downcast::<ReadAgain>() {
            Ok(read) => return github::read_error(read.0),
            Err(other) => Some(other),
        },
        other => other,
    };
    CliError::from(AppError {
        kind,
        message,
        hint,
        source,
    })
}

/// What `review triage --substep` prints: `result` as pretty JSON, with a final newline.
pub fn substep_json(result: &SubstepResult) -> String {
    let mut text = serde_json::to_string_pretty(result).unwrap_or_else(|_| "{}".to_owned());
    text.push('\n');
    text
}

/// The checkout with a journal of the tool's own uncommitted edits for this PR, after recovering
/// from a run that was killed between writing a fix and committing it.
pub fn journaled(vcs: GitVcs, pr: &PullRequest) -> Result<GitVcs, CliError> {
    let git_error = |e: crate::git::GitError| CliError::Other {
        message: format!("cannot read the fix journal: {e}"),
        hint: None,
    };
    let path = vcs
        .state_file("journal", &pr.repo, pr.number)
        .map_err(|e| CliError::Other {
            message: format!("cannot open the fix journal: {e}"),
            hint: Some(e.hint()),
        })?;
    let vcs = vcs.with_journal(path.clone());
    // A journal that does not parse is an input file like the others: exit 3, left as it is.
    let (restored, left) = vcs.recover().map_err(|e| {
        match crate::state::load::<Vec<serde_json::Value>>(&path) {
            Err(bad) => CliError::Input {
                path: path.clone(),
                message: bad.describe("fix journal"),
                hint: Some(
                    "it was left as it is: fix it, or move it away (the edits it records are then left to you)"
                        .to_owned(),
                ),
            },
            Ok(_) => git_error(e),
        }
    })?;
    if !restored.is_empty() {
        output::narrate(&format!(
            "[triage] step 3 — an earlier run stopped before committing its edits of {}; put back, the fixes are made again",
            restored.join(", ")
        ));
    }
    if !left.is_empty() {
        output::narrate(&format!(
            "[triage] step 3 — {} changed since an earlier run edited it; left as it is (yours)",
            left.join(", ")
        ));
    }
    Ok(vcs)
}

/// Asks a yes/no question on the terminal.
fn ask_terminal(question: &str) -> bool {
    output::prompt(question);
    let mut answer = String::new();
    std::io::stdin().lock().read_line(&mut answer).is_ok()
        && matches!(answer.trim(), "y" | "Y" | "yes")
}

/// The gutter before each line of a replacement in [`human_fix_question`].
const GUTTER: &str = "│ ";

/// The question `--interactive` asks about the suggestion in a person's thread. The replacement
/// is shown exactly as it will be committed (the lines `suggestion::apply` writes): each line
/// after a visible gutter, the end marked, and control and bidirectional formatting characters
/// written as escapes (`\u{1b}`), so nothing in it can redraw the prompt, hide a line or reorder
/// one. Ids, paths and titles from the pull request are shown on one line each.
fn human_fix_question(
    entry: &review_core::report::ThreadReport,
    path: &str,
    title: &str,
    suggestion: &review_core::signals::Suggestion,
    lines: Option<review_core::model::LineRange>,
) -> String {
    use std::fmt::Write as _;
    let range = lines.map_or_else(|| "?".to_owned(), |l| l.to_string());
    let mut out = format!(
        "\n{} ({}): {}\n{}\n",
        visible_line(&entry.id.0),
        visible_line(&entry.location),
        visible_line(title),
        visible_line(&entry.reason)
    );
    let new: Vec<&str> = suggestion.replacement.lines().collect();
    if new.is_empty() {
        let _ = writeln!(
            out,
            "suggested replacement: lines {range} of {} are deleted",
            visible_line(path)
        );
    } else {
        let _ = writeln!(
            out,
            "suggested replacement of lines {range} of {}, {} line(s) exactly as they will be \
             committed (each after \"{}\"; control characters shown as \\u{{..}}):",
            visible_line(path),
            new.len(),
            GUTTER.trim_end()
        );
        for line in new {
            let _ = writeln!(out, "{GUTTER}{}", visible(line));
        }
    }
    out.push_str("└─ end of the replacement\n");
    out.push_str("commit this fix? The thread stays open for your reply. [y/N] ");
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Regression: `--interactive` printed a suggestion's replacement raw, so an escape sequence
    /// in it could erase the shown lines and draw others: what was shown was not what would be
    /// committed. Each line is now shown after a gutter, escapes visible, the end marked.
    #[test]
    fn the_interactive_question_shows_the_replacement_exactly_and_inertly() {
        use review_core::report::{Outcome, ThreadReport};
        let entry: ThreadReport = serde_json::from_value(serde_json::json!({
            "id": "PRRT_1\u{1b}[2K",
            "location": "src/lib.rs:3",
            "outcome": "deferred",
            "human": true,
            "class": null,
            "reason": "a person took part",
        }))
        .unwrap();
        assert_eq!(entry.outcome, Outcome::Deferred);
        let suggestion = review_core::signals::Suggestion {
            lines: Some(review_core::model::LineRange::new(3, 4)),
            replacement:
                "let a = 1;\x1b[2K\r\x1b[1Alet a = safe();\r\n\tlet b = \u{202e}2;\u{9b}0m\nend"
                    .to_owned(),
        };
        let question = human_fix_question(
            &entry,
            "src/lib.rs",
            "Use \u{2066}a constant",
            &suggestion,
            suggestion.lines,
        );
        assert_eq!(
            question,
            "\nPRRT_1\\u{1b}[2K (src/lib.rs:3): Use \\u{2066}a constant\na person took part\n\
             suggested replacement of lines 3-4 of src/lib.rs, 3 line(s) exactly as they will be \
             committed (each after \"│\"; control characters shown as \\u{..}):\n\
             │ let a = 1;\\u{1b}[2K\\u{d}\\u{1b}[1Alet a = safe();\n\
             │ \tlet b = \\u{202e}2;\\u{9b}0m\n\
             │ end\n\
             └─ end of the replacement\n\
             commit this fix? The thread stays open for your reply. [y/N] "
        );
        for c in question.chars() {
            assert!(
                !review_core::text::is_escaped(c, false),
                "a raw U+{:04X} in the question",
                u32::from(c)
            );
        }
        let deleted = review_core::signals::Suggestion {
            lines: Some(review_core::model::LineRange::new(7, 7)),
            replacement: String::new(),
        };
        let question = human_fix_question(&entry, "src/lib.rs", "x", &deleted, deleted.lines);
        assert!(
            question.contains("suggested replacement: lines 7 of src/lib.rs are deleted\n└─ end of the replacement\n"),
            "{question}"
        );
    }
}
