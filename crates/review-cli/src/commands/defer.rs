//! `review defer`: move a bot's finding to a follow-up issue.

use clap::Args;
use review_app::defer::Prepared;
use review_app::respond::Source;

use crate::commands::common::{self, AutomationArgs, PrArgs};
use crate::error::CliError;
use crate::loop_files::LoopFiles;
use crate::replying::{self, PostLock};
use crate::{deferring, output};

/// Move a bot's finding to a follow-up issue
///
/// Opens an issue on the pull request's repository (its title, the finding quoted as inert
/// text, a link to the thread, and a hidden key; labels from `defer-labels` in your own
/// config), replies in the thread with the issue's link and resolves it. Run it again and
/// nothing is opened or posted twice: the issue is found again by its key, the reply by its
/// own. Refused on a thread a person took part in: defer those in your own words through
/// `review followup`. Where the repository has its issues turned off, nothing is opened or
/// posted and the thread stays open.
#[derive(Debug, Args)]
pub struct DeferArgs {
    /// The thread's node id (`PRRT_...`, as `review threads` lists it)
    #[arg(value_name = "THREAD")]
    thread: String,

    /// Why it is deferred, said first in the issue and in the reply
    #[arg(
        long,
        value_name = "TEXT",
        default_value = "Out of scope for this pull request."
    )]
    note: String,

    /// The pull request: a number or URL [default: the open PR of the current branch]
    #[arg(long, value_name = "PR")]
    pr: Option<String>,

    #[command(flatten)]
    target: PrArgs,

    #[command(flatten)]
    automation: AutomationArgs,
}

/// Runs `review defer`.
pub async fn run(args: DeferArgs, config: &crate::config::Config) -> Result<(), CliError> {
    let automation = args.automation.settings(config)?;
    let id = common::thread_id(&args.thread)?;
    let (conn, pr) = common::load(
        args.pr.as_deref(),
        args.target.repo.as_deref(),
        "[defer]",
        config,
    )
    .await?;
    let vcs = common::clone_here()?;
    let repository = crate::config::repository(&conn.client, &pr).await?;
    let automation = common::gate_for(automation, &repository, &pr, vcs.as_ref())?;
    // One run posts on a pull request at a time; the PR is read again under the lock.
    let _lock = PostLock::take(vcs.as_ref(), &pr)?;
    let pr = conn.read_pr().await?;
    let issues = deferring::GitHubIssues::new(&conn, pr.viewer.clone(), vcs.as_ref())?;
    let labels = deferring::labels(config);
    let prepared =
        review_app::defer::defer_thread(&issues, &pr, &id, &args.note, &labels, &automation)
            .await?;
    let (issue, reply) = match prepared {
        Prepared::StaysDeferred { why } => {
            return Err(CliError::Refused {
                message: format!("{id}: {why}"),
                hint: Some(
                    "turn the repository's issues on, or track the finding elsewhere; the thread \
                     was left open"
                        .to_owned(),
                ),
            });
        }
        Prepared::Reply { issue, reply } => (issue, reply),
    };
    if let Some(found) = issue.issue() {
        let how = match issue {
            review_app::defer::Issue::Opened(_) => "opened",
            _ => "found (opened before)",
        };
        output::narrate(&format!(
            "[defer] follow-up issue {how}: #{} {}",
            found.number, found.url
        ));
    }
    let files = vcs
        .as_ref()
        .map(|v| LoopFiles::new(v, &pr.repo, pr.number))
        .transpose()?;
    let responded = replying::respond(
        &conn,
        &pr,
        Source::Given(vec![reply]),
        &automation,
        vcs.as_ref(),
        files.as_ref(),
        false,
        config,
    )
    .await?;
    let lines: Vec<String> = responded.outcomes.iter().map(replying::render).collect();
    output::human(&format!("{}\n", lines.join("\n"))).map_err(CliError::Output)?;
    let failed = responded.failed() + responded.uncertain();
    if failed > 0 {
        return Err(CliError::GitHub {
            message: format!("the reply or the resolve of {id} failed"),
            source: None,
            hint: Some(
                "run the same command again: the issue is found by its key and the reply is \
                 not posted twice"
                    .to_owned(),
            ),
        });
    }
    if let Some(found) = issue.issue() {
        output::stdout(&format!("{}\n", found.url)).map_err(CliError::Output)?;
    }
    Ok(())
}
