//! Follow-up issues on GitHub: the [`IssueTracker`] the `defer` use-case opens issues through
//! (the REST API, as the token's owner, each opening recorded in the audit log), and whether
//! the user turned deferring on (a flag, or `defer-to-issue = true` in their own file; never the
//! repository's).

use async_trait::async_trait;
use review_app::defer::IssueTracker;
use review_core::defer::{IssueDraft, IssueRef, Opened};
use review_core::ports::HostError;
use review_github::probe::{Probe, ProbeError};

/// What a deferred finding's issue and reply say first when no note is given.
pub const DEFAULT_NOTE: &str = "Out of scope for this pull request.";

use crate::audit::Audit;
use crate::error::CliError;
use crate::github::Connection;

/// The pull request's repository's issues, as the token's owner.
pub struct GitHubIssues<'a> {
    conn: &'a Connection,
    probe: Probe,
    /// The token's owner, whose issues are searched for a key (`None`: anyone's).
    creator: Option<String>,
    audit: Audit,
    /// The reply ledger, which records each issue opened (`issue:KEY`): a rerun finds it there
    /// first, however many issues were opened on the repository since.
    ledger: crate::ledger::LedgerFile,
}

impl std::fmt::Debug for GitHubIssues<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("GitHubIssues")
            .field("repo", &self.conn.repo)
            .field("creator", &self.creator)
            .finish_non_exhaustive()
    }
}

impl<'a> GitHubIssues<'a> {
    /// The issues of `conn`'s repository, searched among `creator`'s, each opening recorded in
    /// `vcs`'s audit log.
    pub fn new(
        conn: &'a Connection,
        creator: Option<String>,
        vcs: Option<&crate::git::GitVcs>,
    ) -> Result<Self, CliError> {
        let probe = conn.probe()?;
        let dir = crate::commands::common::state_dir(vcs)?;
        Ok(Self {
            conn,
            probe,
            creator,
            audit: Audit::new(dir.as_ref(), &conn.repo, conn.number),
            ledger: crate::ledger::LedgerFile::new(dir.as_ref(), &conn.repo, conn.number)?,
        })
    }
}

/// A REST failure in the port's terms.
fn host_error(what: &str, e: ProbeError) -> HostError {
    let message = format!("{what}: {e}");
    match e {
        ProbeError::BadCredentials => HostError::Unauthorized {
            message,
            source: Some(Box::new(e)),
        },
        ProbeError::RateLimited { retry_after, .. } => HostError::Throttled {
            message,
            reset_in: retry_after,
            source: Some(Box::new(e)),
        },
        ProbeError::NotFound { .. } => HostError::NotFound(message),
        ProbeError::Http { status, .. } if (400..500).contains(&status) => {
            HostError::Refused(message)
        }
        e => HostError::Unavailable {
            message,
            source: Some(Box::new(e)),
        },
    }
}

/// The ledger's entry of the follow-up issue with `key`.
fn ledger_entry(key: &str) -> String {
    format!("issue:{key}")
}

/// The issue a ledger entry records: its link, and the number at the link's end.
fn recorded(posted: &review_core::reply::Posted) -> Option<IssueRef> {
    let number = posted.url.rsplit('/').next()?.parse().ok()?;
    Some(IssueRef {
        number,
        url: posted.url.clone(),
    })
}

#[async_trait]
impl IssueTracker for GitHubIssues<'_> {
    async fn find_issue(&self, key: &str) -> Result<Option<IssueRef>, HostError> {
        // A ledger that cannot be read is no answer: GitHub is asked, as without one.
        if let Some(issue) = self
            .ledger
            .load()
            .ok()
            .and_then(|l| l.posted.get(&ledger_entry(key)).and_then(recorded))
        {
            return Ok(Some(issue));
        }
        self.probe
            .find_issue(&self.conn.repo, self.creator.as_deref(), key)
            .await
            .map_err(|e| host_error("looking for the follow-up issue", e))
    }

    async fn open_issue(&self, draft: &IssueDraft) -> Result<Opened, HostError> {
        let result = self
            .probe
            .open_issue(&self.conn.repo, draft)
            .await
            .map_err(|e| host_error("opening the follow-up issue", e));
        if let Ok(Opened::Issue(issue)) = &result
            && let Ok(mut book) = self.ledger.load()
        {
            book.posted.insert(
                ledger_entry(&draft.key),
                review_core::reply::Posted {
                    thread: draft.key.clone(),
                    comment: String::new(),
                    url: issue.url.clone(),
                },
            );
            // Unrecorded, the issue is still found by its key on GitHub.
            let _ = self.ledger.save(&book);
        }
        let (outcome, detail) = match &result {
            Ok(Opened::Issue(issue)) => ("ok", issue.url.clone()),
            Ok(Opened::IssuesOff) => ("issues-off", String::new()),
            Err(e) => ("failed", e.to_string()),
        };
        self.audit
            .record("open-issue", &draft.key, outcome, &detail);
        result
    }
}

/// Whether deferring to issues is on: `flag`, else the user's `defer-to-issue`.
pub fn wanted(flag: bool, config: &crate::config::Config) -> bool {
    flag || config.defer_to_issue.as_ref().is_some_and(|(on, _)| *on)
}

/// The labels the user gives follow-up issues (`defer-labels`).
pub fn labels(config: &crate::config::Config) -> Vec<String> {
    config.defer_labels.iter().map(|(l, _)| l.clone()).collect()
}
