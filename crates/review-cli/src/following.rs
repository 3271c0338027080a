//! `review followup`'s adapters of `review_app::followup`'s ports: the state file
//! ([`StateFile`]), the local history over git ([`GitHistory`]), the PR read again through
//! GitHub ([`GitHubReread`]), the reply in the operator's own words ([`OwnWordsHost`]), the
//! judge command ([`JudgeCommand`]), the terminal ([`Narration`]), and the wrap-up's text
//! ([`wrap_up`]).

use std::path::{Path, PathBuf};
use std::time::Duration;

use review_app::followup::{
    Agents, Ask, FollowupHistory, FollowupState, FollowupStore, Helper, Judge, JudgeQuestion,
    Judged, Narrator, Note, OwnWords, Question, Reread, Tally, TaskEvent, Workspace,
};
use review_app::respond::{FixCommit, FixHistory};
use review_core::followup::form::IssueAnswer;
use review_core::followup::{self, DispatchMode, Intent, Issue, Task};
use review_core::model::{PullRequest, ThreadId};
use review_core::ports::{HostError, PostedComment};
use review_core::post;
use review_core::text::visible_line;

use crate::error::CliError;
use crate::git::GitVcs;
use crate::github::AuditedHost;
use crate::github::Connection;
use crate::output;
use crate::replying::History;

/// The follow-up's state file: `.git/review/pulls/OWNER/NAME/N/followup.json`.
#[derive(Debug, Clone)]
pub struct StateFile {
    path: PathBuf,
}

impl StateFile {
    /// The state file of `pr` in `vcs`'s repository.
    pub fn of(vcs: &GitVcs, pr: &PullRequest) -> Result<Self, CliError> {
        let path = vcs
            .state_file("followup", &pr.repo, pr.number)
            .map_err(|e| CliError::Other {
                message: format!("cannot open the follow-up's state: {e}"),
                hint: Some(e.hint()),
            })?;
        Ok(Self { path })
    }

    /// Where it is.
    pub fn path(&self) -> &Path {
        &self.path
    }

    fn input_error(&self, e: &crate::state::LoadError) -> CliError {
        CliError::Input {
            path: self.path.clone(),
            message: e.describe("follow-up state"),
            hint: Some("it was left as it is".to_owned()),
        }
    }
}

impl FollowupStore for StateFile {
    type Error = CliError;

    fn load(&self) -> Result<FollowupState, CliError> {
        crate::state::load(&self.path).map_err(|e| self.input_error(&e))
    }

    fn update(&self, change: &mut dyn FnMut(&mut FollowupState)) -> Result<(), CliError> {
        crate::state::update(&self.path, |st: &mut FollowupState| change(st))
            .map_err(|e| self.input_error(&e))
    }

    fn replace(&self, state: &FollowupState) -> Result<(), CliError> {
        crate::state::save(&self.path, state).map_err(|e| CliError::Input {
            path: self.path.clone(),
            message: format!("cannot record what is left: {e}"),
            hint: None,
        })
    }
}

/// The local history through git: `respond`'s ([`History`]) and the commits of a range with
/// the paths each changed.
#[derive(Debug, Clone, Copy)]
pub struct GitHistory<'a>(pub &'a GitVcs);

impl FixHistory for GitHistory<'_> {
    fn resolve_commit(&self, rev: &str) -> Option<String> {
        History(Some(self.0)).resolve_commit(rev)
    }

    fn has_commit(&self, sha: &str) -> bool {
        History(Some(self.0)).has_commit(sha)
    }

    fn is_ancestor(&self, ancestor: &str, descendant: &str) -> bool {
        History(Some(self.0)).is_ancestor(ancestor, descendant)
    }

    fn fix_commits(&self, base: Option<&str>, head: &str) -> Option<Vec<FixCommit>> {
        History(Some(self.0)).fix_commits(base, head)
    }

    fn patch_id(&self, sha: &str) -> Option<String> {
        History(Some(self.0)).patch_id(sha)
    }
}

impl FollowupHistory for GitHistory<'_> {
    fn commits_between(&self, from: &str, to: &str) -> Option<Vec<String>> {
        self.0.commits_between(from, to).ok()
    }

    fn paths_changed_by(&self, sha: &str) -> Option<Vec<String>> {
        self.0.paths_changed_by(sha).ok()
    }
}

/// The pull request read again through the GraphQL reader; a failure is the CLI's read error.
#[derive(Debug, Clone, Copy)]
pub struct GitHubReread<'a>(pub &'a Connection);

impl Reread for GitHubReread<'_> {
    type Error = CliError;

    async fn pull_request(&self, _pr: &PullRequest) -> Result<PullRequest, CliError> {
        self.0.read_pr().await
    }
}

/// The reply in the operator's own words through GitHub, recorded in the audit log.
#[derive(Debug, Clone, Copy)]
pub struct OwnWordsHost<'a>(pub &'a AuditedHost);

impl OwnWords for OwnWordsHost<'_> {
    type Error = HostError;

    async fn reply_in_own_words(
        &self,
        thread: &ThreadId,
        body: &str,
    ) -> Result<PostedComment, HostError> {
        let result = self.0.inner().reply_in_own_words(thread, body).await;
        self.0.record_post("reply", &thread.0, &result);
        result
    }
}

/// `--judge-cmd`: each question as JSON on stdin (`marker`, `instruction` and `comment` fenced
/// under a fresh random marker, `location`, `instructions`), the calls side by side on the
/// blocking pool, Ctrl-C stopping them all.
#[derive(Debug, Clone)]
pub struct JudgeCommand {
    /// The command, run with `sh -c`.
    pub command: String,
    /// Where it runs.
    pub dir: PathBuf,
}

impl Judge for JudgeCommand {
    type Error = CliError;

    async fn ask(
        &self,
        questions: &[JudgeQuestion],
    ) -> Result<Vec<Result<String, String>>, CliError> {
        let inputs: Vec<Result<String, String>> = questions
            .iter()
            .map(|q| {
                let marker = format!("instruction_{}", crate::command::random_marker()?);
                Ok(serde_json::json!({
                    "marker": marker,
                    "instruction": post::fence(&q.instruction, &marker),
                    "comment": post::fence(&q.comment, &marker),
                    "location": q.location,
                    "instructions": q.instructions,
                })
                .to_string())
            })
            .collect();
        let judge = self.command.clone();
        let dir = self.dir.clone();
        let (verdicts, stopped) = crate::command::interruptible(output::carried(move || {
            let mut out = Vec::with_capacity(inputs.len());
            crate::command::for_each_ordered(
                &inputs,
                |_| {},
                |input| match input {
                    Ok(input) => crate::command::run(
                        crate::command::Kind::Judge,
                        &judge,
                        &dir,
                        input,
                        Duration::from_secs(300),
                    ),
                    Err(why) => Err(why.clone()),
                },
                |_, verdict| out.push(verdict),
                |_| {},
            );
            out
        }))
        .await
        .map_err(|e| CliError::Other {
            message: format!("the judge's calls failed: {e}"),
            hint: Some("nothing was posted; run again".to_owned()),
        })?;
        if stopped {
            output::narrate(
                "[followup] interrupted while the judge read the instructions; nothing was posted",
            );
            return Err(CliError::Interrupted);
        }
        Ok(verdicts)
    }
}

/// The working tree the agents commit in, with the deny list their commits are checked
/// against.
#[derive(Debug, Clone, Copy)]
pub struct GitWorkspace<'a> {
    /// The clone.
    pub vcs: &'a GitVcs,
    /// The deny list.
    pub denied: &'a [String],
}

impl Workspace for GitWorkspace<'_> {
    fn head(&self) -> Option<String> {
        self.vcs.head_id().ok()
    }

    fn short_head(&self) -> Option<String> {
        self.vcs.short_head().ok()
    }

    fn is_ancestor(&self, ancestor: &str, descendant: &str) -> bool {
        self.vcs.is_ancestor(ancestor, descendant)
    }

    fn denied_commit(&self, from: &str, to: &str) -> Option<String> {
        crate::dispatch::denied_commit(self.vcs, from, to, self.denied)
    }
}

/// `--agent-cmd`: the tasks dispatched through `review_local::dispatch` (one after another, or in parallel
/// git worktrees under `dir`, merged back in order), a commit touching a deny-listed path never
/// counted as done.
#[derive(Debug, Clone)]
pub struct AgentCommand<'a> {
    /// The clone.
    pub vcs: &'a GitVcs,
    /// Where the task files and worktrees are kept (the pull request's own directory).
    pub dir: PathBuf,
    /// The agent command, run with `sh -c`.
    pub command: String,
    /// How long one agent run may take.
    pub timeout: Duration,
    /// The deny list.
    pub denied: &'a [String],
}

impl Agents for AgentCommand<'_> {
    fn marker(&self) -> Result<String, String> {
        crate::command::random_marker()
    }

    fn run(
        &self,
        mode: DispatchMode,
        descriptions: &[String],
        record: &dyn Fn(TaskEvent<'_>),
    ) -> Vec<Result<Option<String>, String>> {
        let heard = |event: crate::dispatch::TaskEvent<'_>| match event {
            crate::dispatch::TaskEvent::Started(i, base) => record(TaskEvent::Started(i, base)),
            crate::dispatch::TaskEvent::Finished(i, outcome) => {
                record(TaskEvent::Finished(i, outcome));
            }
        };
        crate::dispatch::run_tasks(
            self.vcs,
            &self.dir,
            &self.command,
            self.timeout,
            mode,
            descriptions,
            self.denied,
            &heard,
            &output::Narrate,
        )
    }
}

/// `--translator-cmd` and `--analyst-cmd`: each question as JSON on stdin (`marker`, the text
/// fenced under a fresh random marker, `location`, `diffHunk`, `instructions`), the calls side
/// by side (--jobs) with a spinner, the answers in order. Outside a working directory, or
/// without a marker, nothing is asked.
#[derive(Debug, Clone)]
pub struct HelperCommand {
    /// The command, run with `sh -c`.
    pub command: String,
    /// Where it runs.
    pub dir: Option<PathBuf>,
}

fn kind_of(helper: Helper) -> crate::command::Kind {
    match helper {
        Helper::Translator => crate::command::Kind::Translator,
        Helper::Analyst => crate::command::Kind::Analyst,
    }
}

impl Ask for HelperCommand {
    fn ask(&self, helper: Helper, questions: &[Question]) -> Option<Vec<Result<String, String>>> {
        let dir = self.dir.as_ref()?;
        let kind = kind_of(helper);
        // The inputs first, in thread order; the calls side by side; the answers in order.
        let mut inputs = Vec::with_capacity(questions.len());
        for q in questions {
            let hex = crate::command::random_marker().ok()?;
            let marker = format!("comment_{hex}");
            let input = serde_json::json!({
                "marker": marker,
                q.field: post::fence(&q.text, &marker),
                "location": q.location,
                "diffHunk": q.diff_hunk,
                "instructions": q.instructions,
            });
            inputs.push(input.to_string());
        }
        let timeout = Duration::from_secs(match helper {
            Helper::Translator => 120,
            Helper::Analyst => 300,
        });
        let mut answers = Vec::with_capacity(inputs.len());
        let spinner = output::Spinner::start(&format!("{} 0/{}", kind.as_str(), inputs.len()));
        crate::command::for_each_ordered(
            &inputs,
            |_| {},
            |input| crate::command::run(kind, &self.command, dir, input, timeout),
            |_, answer| answers.push(answer),
            |done| spinner.set_label(&format!("{} {done}/{}", kind.as_str(), inputs.len())),
        );
        drop(spinner);
        Some(answers)
    }
}

/// The follow-up's notes on stderr, as `[followup] ...` lines.
#[derive(Debug, Clone, Copy, Default)]
pub struct Narration;

impl Narrator for Narration {
    fn note(&self, note: &Note) {
        output::narrate(&line(note));
    }
}

/// The line of `note`.
fn line(note: &Note) -> String {
    match note {
        Note::AnswerLeftOut { thread } => format!(
            "[followup] thread {} is resolved: its answer is left out",
            visible_line(thread)
        ),
        Note::DroppedStale { thread } => format!(
            "[followup] thread {thread} was resolved since it was collected: dropped from the plan"
        ),
        Note::RepliedBefore { number } => {
            format!("[followup] #{number}: replied before; not again")
        }
        Note::Replied { number } => format!("[followup] #{number}: replied"),
        Note::DeferredTo {
            number,
            issue,
            opened,
        } => format!(
            "[followup] #{number}: follow-up issue {}: #{} {}",
            if *opened { "opened" } else { "found" },
            issue.number,
            issue.url
        ),
        Note::DeferFailed { number, why } => {
            format!("[followup] #{number}: not deferred ({why}); no reply, left open")
        }
        Note::ReplyFailed { number, error } => {
            format!("[followup] #{number}: the reply failed ({error}); not resolved")
        }
        Note::ResolveFailed { thread, error } => {
            format!("[followup] resolving {thread} failed: {error}")
        }
        Note::AlreadyResolved { thread } => {
            format!("[followup] {thread} is already resolved: no reply")
        }
        Note::NotPushed { thread, sha } => format!(
            "[followup] {thread}: fixed in {sha}, which is not on the PR yet; push, then run `review followup --finish`"
        ),
        Note::NoManualFix { thread, files } => format!(
            "[followup] {thread}: no fix for it on the PR's head yet (a commit after the follow-up touching {}, or naming the thread in a `{}` trailer); commit and push it, then run `review followup --finish`",
            if files.is_empty() {
                "any file".to_owned()
            } else {
                visible_line(&files.join(", ")).into_owned()
            },
            crate::git::THREAD_TRAILER
        ),
        Note::FixReplyFailed { thread, error } => {
            format!("[followup] {thread}: the reply failed ({error}); kept for the next --finish")
        }
        Note::GroupOpen {
            reviewer,
            open,
            threads,
        } => format!(
            "Group @{}: {open}/{threads} threads still unresolved, skipping hide.",
            visible_line(reviewer)
        ),
        Note::HideFailed { comment, error } => {
            format!("[followup] hiding {comment} failed: {error}")
        }
        Note::ReviewBodyNotHidden { error } => {
            format!("[followup] the review's own body could not be hidden: {error}")
        }
        Note::GroupHidden { reviewer, comments } => format!(
            "[followup] group @{} hidden ({comments} comments)",
            visible_line(reviewer)
        ),
        Note::HelperFailed {
            helper,
            number,
            why,
        } => format!(
            "[followup] the {} {why} for #{number}",
            kind_of(*helper).as_str()
        ),
        Note::NoAnalysis { number } => format!(
            "[followup] the analyst gave no analysis it could read for #{number}: the reader's suggestion stays"
        ),
        Note::TaskDoneBefore { title } => format!(
            "[followup] task \"{}\" was done by an earlier run",
            visible_line(title)
        ),
        Note::TaskTakenUp { title, sha } => format!(
            "[followup] task \"{}\" was committed ({sha}) by a run that stopped: taken up",
            visible_line(title)
        ),
        Note::TaskFailed { title, why } => format!(
            "[followup] task \"{}\" failed: {why}; its threads stay open",
            visible_line(title)
        ),
        Note::TaskNoCommit { title } => format!(
            "[followup] task \"{}\" made no commit: its threads stay open",
            visible_line(title)
        ),
        Note::RecordFailed { error } => format!("[followup] cannot record the task: {error}"),
        Note::Judged { number, verdict } => {
            let said = match verdict {
                Judged::Failed(why) => format!("the judge {why}: it stays unclear"),
                Judged::NotPlaced => "the judge could not place it either".to_owned(),
                Judged::Placed(intent) => {
                    format!("the judge reads it as {}", intent_name(*intent))
                }
            };
            format!("[followup] #{number}: {said}")
        }
    }
}

fn intent_name(intent: Intent) -> &'static str {
    match intent {
        Intent::Fix => "a fix",
        Intent::Reply => "a reply, posted as written",
        Intent::Skip => "a skip",
        Intent::Defer => "a follow-up issue, then a reply as written",
        Intent::Unclear => "unclear",
    }
}

/// The wrap-up of a follow-up run.
pub fn wrap_up(t: &Tally) -> String {
    format!(
        "Threads triaged: {}\nFix tasks dispatched: {} (completed: {})\nReplies posted: {}\nThreads resolved: {}\nSkipped: {}\nFix replies waiting for a push: {}\n",
        t.triaged, t.tasks, t.tasks_done, t.replies, t.resolved, t.skipped, t.waiting
    )
}

/// One line per answer: its thread, and the words to post as written.
fn list_answers(out: &mut String, answers: &[(Issue, IssueAnswer)]) {
    for (issue, answer) in answers {
        out.push_str(&format!(
            "- #{} @{} on {}{}: {}\n",
            issue.number,
            visible_line(&issue.reviewer),
            visible_line(&issue.location()),
            if answer.auto_resolve {
                " (then resolved)"
            } else {
                ""
            },
            visible_line(answer.instruction.trim())
        ));
    }
}

/// The plan shown before it is confirmed: the tasks, the reply-only threads, every reply word
/// for word, the counts and the dispatch mode.
pub fn preview(
    tasks: &[Task],
    mode: DispatchMode,
    replies: &[(Issue, IssueAnswer)],
    deferred: &[(Issue, IssueAnswer)],
    skipped: usize,
    issues: &[Issue],
) -> String {
    let number = |id: &str| {
        issues
            .iter()
            .find(|i| i.thread_id == id)
            .map_or_else(|| "?".to_owned(), |i| format!("#{}", i.number))
    };
    let mut out = String::from(
        "## Execution Preview\n\n| Task | Issues | Files | Difficulty | Action |\n|------|--------|-------|------------|--------|\n",
    );
    for t in tasks {
        let nums: Vec<String> = t.threads.iter().map(|id| number(id)).collect();
        // Titles and paths come from the pull request: one line each, escapes visible.
        out.push_str(&format!(
            "| {} | {} | {} | {:?} | fix |\n",
            visible_line(&t.title).replace('|', "\\|"),
            nums.join(", "),
            if t.files.is_empty() {
                "—".to_owned()
            } else {
                visible_line(&t.files.join(", ")).replace('|', "\\|")
            },
            t.difficulty
        ));
    }
    for (issue, _) in replies {
        out.push_str(&format!(
            "| {} | #{} | {} | — | reply-only |\n",
            visible_line(&issue.summary).replace('|', "\\|"),
            issue.number,
            visible_line(&issue.location()).replace('|', "\\|"),
        ));
    }
    for (issue, _) in deferred {
        out.push_str(&format!(
            "| {} | #{} | {} | — | follow-up issue |\n",
            visible_line(&issue.summary).replace('|', "\\|"),
            issue.number,
            visible_line(&issue.location()).replace('|', "\\|"),
        ));
    }
    if !deferred.is_empty() {
        out.push_str(
            "\nFollow-up issues to open (as you, on the pull request's repository), each thread then \
             answered as written with the issue's link:\n",
        );
        list_answers(&mut out, deferred);
    }
    if !replies.is_empty() {
        // What will be posted, word for word, before anything is confirmed.
        out.push_str("\nReplies to post, as written:\n");
        list_answers(&mut out, replies);
    }
    out.push_str(&format!(
        "\nCode fix tasks: {}\nReply-only items: {}\nSkipped: {skipped}\nDispatch mode: {}\n",
        tasks.len(),
        replies.len(),
        match mode {
            DispatchMode::Solo => "Solo",
            DispatchMode::Team => "Team (parallel, one git worktree each)",
            DispatchMode::Lead => "Lead (one after another)",
        }
    ));
    out
}

/// The clarifications asked for the instructions left unclear, one per line (with the rules'
/// hint when they have one).
pub fn clarifications(unclear: &[(Issue, String)]) -> String {
    let lines: Vec<String> = unclear
        .iter()
        .map(|(i, text)| {
            let hint = review_classify::instruction::read_instruction(text)
                .hint
                .map_or_else(String::new, |h| format!("\n  hint: {h}"));
            followup::clarification(i.number, &visible_line(text)) + &hint
        })
        .collect();
    lines.join("\n") + "\n"
}
