//! Connecting to GitHub the way `gh` users expect: which repository, which pull request, which
//! host and endpoints, which token.
//!
//! - Repository: the PR URL's, else `--repo [HOST/]OWNER/NAME`, else `GH_REPO`, else the `origin`
//!   remote of the repository in the current directory.
//! - Host and endpoints: the repository's host, else `GH_HOST`, else github.com;
//!   `GITHUB_API_URL` and `GITHUB_GRAPHQL_URL` override the endpoints.
//! - Token: the variable `[token-variables]` of the user's config file binds to the host and
//!   owner, else `GH_TOKEN`, then `GITHUB_TOKEN` (`GH_ENTERPRISE_TOKEN`, then
//!   `GITHUB_ENTERPRISE_TOKEN` for the Enterprise Server host `GH_HOST` names), then `gh auth
//!   token`. A token goes only to the host it is for: a pull request URL naming a host the user
//!   did not configure gets none of them (see `review_github::token`).
//! - Pull request: the number or URL given, else the one open pull request of the current branch.

use std::collections::BTreeMap;
use std::io::{BufRead, IsTerminal};
use std::path::Path;
use std::sync::Arc;

use review_core::model::RepoId;
use review_github::client::{Client, RetryPolicy};
use review_github::env::{Env, ProcessEnv};
use review_github::host::Endpoints;
use review_github::locate::{self, Choice};
use review_github::pr_ref::PrRef;
use review_github::reader::ReadError;
use review_github::remote::{HostedRepo, RepoSpec};
use review_github::token::{GhCli, ResolvedToken, TokenError, resolve_token};

use crate::error::CliError;
use crate::git;
use crate::output;

/// GitHub's review host with every mutation recorded in the audit log.
pub type AuditedHost = crate::audit::AuditedHost<review_github::adapter::GitHubHost>;

/// A remote URL as the repository it names on GitHub and its host ([`HostedRepo`]'s rules),
/// for the local adapters, which know git but not GitHub's URLs.
pub fn read_remote(url: &str) -> Option<(String, RepoId)> {
    HostedRepo::from_remote_url(url)
        .ok()
        .map(|hosted| (hosted.host, hosted.repo))
}

/// A pull request on a host, and a client to reach it.
#[derive(Debug, Clone)]
pub struct Connection {
    /// The GraphQL client.
    pub client: Client,
    /// The repository.
    pub repo: RepoId,
    /// The pull request number.
    pub number: u64,
    /// The REST API base, for the cheap "changed?" questions of `review watch`.
    pub rest: String,
    /// The token, for REST requests.
    pub token: review_github::token::Token,
    /// The host the repository is on (`github.com`, an Enterprise host).
    pub host_name: String,
    /// How long a post whose answer was lost is looked for (`github.post-check-seconds`).
    pub post_check: std::time::Duration,
}

impl Connection {
    /// The pull request read whole: every thread, review and comment, each page followed.
    pub async fn read_pr(&self) -> Result<review_core::model::PullRequest, CliError> {
        review_github::reader::Reader::new(&self.client)
            .pull_request(&self.repo, self.number)
            .await
            .map_err(read_error)
    }

    /// The REST client of this connection (the change probe, commit statuses, issues).
    pub fn probe(&self) -> Result<review_github::probe::Probe, CliError> {
        review_github::probe::Probe::new(&self.rest, &self.token).map_err(|e| CliError::GitHub {
            message: e.to_string(),
            source: None,
            hint: Some("check GITHUB_API_URL".to_owned()),
        })
    }

    /// [`Connection::host`] with every mutation recorded in the audit log kept in `vcs`'s
    /// repository (none outside a clone).
    pub fn audited_host(&self, header: &str, vcs: Option<&git::GitVcs>) -> AuditedHost {
        crate::audit::AuditedHost::new(
            self.host(header),
            crate::audit::Audit::new(
                vcs.and_then(|v| v.state_dir().ok()).as_ref(),
                &self.repo,
                self.number,
            ),
        )
    }

    /// The review host of this pull request, for writes: every post starts with `header` (the
    /// automated-comment header the gate recognises).
    pub fn host(&self, header: &str) -> review_github::adapter::GitHubHost {
        review_github::adapter::GitHubHost::new(
            self.client.clone(),
            self.repo.clone(),
            self.number,
            review_github::adapter::WriteSettings {
                header: header.to_owned(),
                post_check: self.post_check,
                ..review_github::adapter::WriteSettings::default()
            },
        )
    }
}

fn usage(message: String, hint: &str) -> CliError {
    CliError::Usage {
        message,
        hint: Some(hint.to_owned()),
    }
}

/// Maps a read failure to the CLI's errors (not found: exit 5; GitHub trouble: exit 4).
pub fn read_error(e: ReadError) -> CliError {
    match e {
        ReadError::RepoNotFound(_) | ReadError::PullRequestNotFound { .. } => CliError::NotFound {
            message: e.to_string(),
            hint: Some(
                "check the number and --repo; a private repository needs a token that can see it"
                    .to_owned(),
            ),
        },
        ReadError::Request { what, source } => {
            let hint = match &source {
                review_github::client::ClientError::BadCredentials => {
                    "check GH_TOKEN / GITHUB_TOKEN, or run `gh auth login`".to_owned()
                }
                review_github::client::ClientError::RateLimited { .. } => {
                    "wait for the reset, then run again; nothing was changed".to_owned()
                }
                review_github::client::ClientError::Unsupported(missing) => {
                    return CliError::GitHub {
                        message: format!("reading {what} failed: {missing}"),
                        hint: Some(review_github::unsupported::advice(missing)),
                        source: None,
                    };
                }
                _ => "run again; nothing was changed".to_owned(),
            };
            CliError::GitHub {
                message: format!("reading {what} failed"),
                source: Some(Box::new(source)),
                hint: Some(hint),
            }
        }
        ReadError::Api { .. } => CliError::GitHub {
            message: e.to_string(),
            source: None,
            hint: Some("run again; nothing was changed".to_owned()),
        },
        ReadError::Incomplete { .. } => CliError::GitHub {
            message: e.to_string(),
            source: None,
            hint: Some(
                "run again; nothing was changed: the tool acts only on a pull request it read whole"
                    .to_owned(),
            ),
        },
    }
}

/// Connects to the pull request named by `pr_arg` (and `repo_flag`), finding the current
/// branch's open pull request when none is named.
pub async fn connect(
    pr_arg: Option<&str>,
    repo_flag: Option<&str>,
    cwd: &Path,
    config: &crate::config::Config,
) -> Result<Connection, CliError> {
    connect_with(pr_arg, repo_flag, cwd, config, &ProcessEnv).await
}

/// The pull request named by `pr_arg`, and the host and repository it is on, without asking
/// GitHub anything.
fn target(
    pr_arg: Option<&str>,
    repo_flag: Option<&str>,
    cwd: &Path,
    env: &(dyn Env + Sync),
) -> Result<(PrRef, Option<String>, RepoId), CliError> {
    let pr = PrRef::from_arg(pr_arg).map_err(|e| {
        usage(
            e.to_string(),
            "pass a number such as 482, or a URL such as https://github.com/OWNER/REPO/pull/482",
        )
    })?;
    let flag = repo_flag.map(RepoSpec::parse).transpose().map_err(|e| {
        usage(
            e.to_string(),
            "pass --repo as OWNER/NAME or HOST/OWNER/NAME",
        )
    })?;

    let (host, repo) = match (&pr, flag) {
        (PrRef::Url(url), Some(flag)) if flag.repo != url.repo => {
            return Err(usage(
                format!(
                    "the PR URL names {} but --repo names {}",
                    url.repo, flag.repo
                ),
                "pass one of them, or make them agree",
            ));
        }
        (PrRef::Url(url), _) => (Some(url.host.clone()), url.repo.clone()),
        (_, Some(flag)) => (flag.host, flag.repo),
        (_, None) => match RepoSpec::from_env(env)
            .map_err(|e| usage(e.to_string(), "fix or unset GH_REPO"))?
        {
            Some(spec) => (spec.host, spec.repo),
            None => {
                let (remote, url) = git::base_remote(cwd)
                    .ok()
                    .flatten()
                    .ok_or_else(|| usage(
                        "cannot tell which repository to use".to_owned(),
                        "pass --repo OWNER/NAME, or run inside a clone whose `origin` (or `upstream`) remote is on GitHub",
                    ))?;
                let hosted = HostedRepo::from_remote_url(&url)
                    .map_err(|e| usage(e.to_string(), "pass --repo OWNER/NAME"))?;
                if remote != "origin" {
                    // The repository only: a remote URL may carry credentials.
                    output::narrate(&format!(
                        "[review] using {} from the `{remote}` remote; pass --repo to choose another",
                        hosted.repo
                    ));
                }
                (Some(hosted.host), hosted.repo)
            }
        },
    };
    Ok((pr, host, repo))
}

/// The token the user's config file binds to `repo`'s owner on `host` (`[token-variables]`,
/// `"HOST/OWNER" = "VARIABLE"`), when it names one: read from that environment variable, which
/// must then be set. An entry for another host never applies.
fn owner_token(
    host: &str,
    repo: &RepoId,
    config: &crate::config::Config,
    env: &(dyn Env + Sync),
) -> Result<Option<review_github::token::Token>, CliError> {
    let key = (host.to_owned(), repo.owner.to_ascii_lowercase());
    let Some((var, _)) = config.token_variables.get(&key) else {
        return Ok(None);
    };
    match env.var(var).filter(|v| !v.trim().is_empty()) {
        Some(value) => Ok(Some(review_github::token::Token::new(value.trim()))),
        None => Err(CliError::GitHub {
            message: format!(
                "your config file says the token for {}'s repositories on {host} is in ${var}, which is unset or empty",
                repo.owner
            ),
            source: None,
            hint: Some(format!(
                "export {var}, or remove the entry from [token-variables]"
            )),
        }),
    }
}

/// The repository and number of the pull request named by `pr_arg`, when it is named (a number
/// or a URL): no token and no request needed. `None` when it must be found from the branch.
pub fn named_pull_request(
    pr_arg: Option<&str>,
    repo_flag: Option<&str>,
    cwd: &Path,
) -> Result<Option<(RepoId, u64)>, CliError> {
    let (pr, _, repo) = target(pr_arg, repo_flag, cwd, &ProcessEnv)?;
    Ok(match pr {
        PrRef::Number(n) => Some((repo, n)),
        PrRef::Url(url) => Some((repo, url.number)),
        PrRef::CurrentBranch => None,
    })
}

async fn connect_with(
    pr_arg: Option<&str>,
    repo_flag: Option<&str>,
    cwd: &Path,
    config: &crate::config::Config,
    env: &(dyn Env + Sync),
) -> Result<Connection, CliError> {
    let (pr, host, repo) = target(pr_arg, repo_flag, cwd, env)?;
    let endpoints = Endpoints::resolve(host.as_deref(), env).map_err(|e| {
        usage(
            e.to_string(),
            "fix GH_HOST, GITHUB_API_URL or GITHUB_GRAPHQL_URL",
        )
    })?;
    let key = (endpoints.host.clone(), repo.owner.clone());
    let remembered = remembered_tokens().and_then(|tokens| tokens.get(&key).cloned());
    let found = match remembered {
        Some(found) => found,
        None => resolve_for(&endpoints.host, &repo, config, env)?,
    };
    if let Some(mut tokens) = remembered_tokens() {
        tokens.insert(key, found.clone());
    }
    let progress: review_github::client::Progress =
        Arc::new(|message: &str| output::narrate(&format!("[review] {message}")));
    let client = Client::new(&endpoints.graphql, &found.token, RetryPolicy::default())
        .map_err(|e| CliError::GitHub {
            message: e.to_string(),
            source: None,
            hint: None,
        })?
        .with_progress(progress);

    let number = match pr {
        PrRef::Number(n) => n,
        PrRef::Url(url) => url.number,
        PrRef::CurrentBranch => current_branch_pr(&client, &repo, cwd).await?,
    };
    Ok(Connection {
        client,
        repo,
        number,
        rest: endpoints.rest,
        token: found.token,
        host_name: endpoints.host.clone(),
        post_check: config.post_check.as_ref().map_or_else(
            || review_github::adapter::WriteSettings::default().post_check,
            |(secs, _)| std::time::Duration::from_secs(*secs),
        ),
    })
}

async fn current_branch_pr(client: &Client, repo: &RepoId, cwd: &Path) -> Result<u64, CliError> {
    let branch = git::current_branch(cwd).map_err(|e| {
        usage(
            format!("no pull request given, and the current branch cannot be read: {e}"),
            "pass a PR number or URL",
        )
    })?;
    let lookup = match &branch {
        Some(b) => locate::lookup(client, repo, b).await.map_err(read_error)?,
        None => locate::BranchLookup {
            default_branch: None,
            open: Vec::new(),
        },
    };
    // In a fork's clone the branch is pushed to the fork: its pull request's head is there.
    let head_owner = branch
        .as_deref()
        .and_then(|b| git::push_owner(cwd, b, &read_remote))
        .unwrap_or_else(|| repo.owner.clone());
    match locate::choose(branch.as_deref(), &head_owner, &lookup) {
        Choice::Use(pr) => {
            output::narrate(&format!(
                "[review] using PR #{} ({}) of branch {}",
                pr.number,
                pr.title,
                branch.unwrap_or_default()
            ));
            Ok(pr.number)
        }
        Choice::Detached => Err(usage(
            "HEAD is detached, so there is no branch to find a pull request for".to_owned(),
            "pass a PR number or URL, or check out the PR's branch",
        )),
        Choice::DefaultBranch(b) => Err(usage(
            format!("{b} is the default branch; its pull requests are not found by branch"),
            "pass a PR number or URL",
        )),
        Choice::NoneOpen(b) => Err(CliError::NotFound {
            message: format!("no open PR for branch {b} — open one, or pass a number"),
            hint: None,
        }),
        Choice::Several(b, prs) => {
            let list: Vec<String> = prs
                .iter()
                .map(|p| format!("  #{}  {}  {}", p.number, p.title, p.url))
                .collect();
            if std::io::stdin().is_terminal()
                && std::io::stderr().is_terminal()
                && !output::collecting()
            {
                output::narrate(&format!(
                    "several open pull requests have branch {b}:\n{}",
                    list.join("\n")
                ));
                output::prompt("which one (number)? ");
                let mut answer = String::new();
                std::io::stdin()
                    .lock()
                    .read_line(&mut answer)
                    .map_err(CliError::Output)?;
                let chosen: Option<u64> = answer.trim().trim_start_matches('#').parse().ok();
                match chosen.filter(|n| prs.iter().any(|p| p.number == *n)) {
                    Some(n) => Ok(n),
                    None => Err(usage(
                        format!("`{}` is not one of them", answer.trim()),
                        "pass the PR number",
                    )),
                }
            } else {
                Err(usage(
                    format!(
                        "several open pull requests have branch {b}:\n{}",
                        list.join("\n")
                    ),
                    "pass the PR number",
                ))
            }
        }
    }
}

/// Whether the tokens found are kept for the rest of the process ([`remember_tokens`]).
static REMEMBER: std::sync::OnceLock<std::sync::Mutex<BTreeMap<(String, String), ResolvedToken>>> =
    std::sync::OnceLock::new();

/// From now on, the token found for a host and owner is kept for the rest of the process and not
/// looked for again (`review mcp`: once per server, not once per call).
pub(crate) fn remember_tokens() {
    let _ = REMEMBER.set(std::sync::Mutex::default());
}

/// The tokens kept, when [`remember_tokens`] was called.
fn remembered_tokens()
-> Option<std::sync::MutexGuard<'static, BTreeMap<(String, String), ResolvedToken>>> {
    REMEMBER
        .get()
        .map(|m| m.lock().unwrap_or_else(std::sync::PoisonError::into_inner))
}

/// The token for `repo` on `host`: the one the user's config binds to its owner, else the
/// host's ([`resolve_token`]).
fn resolve_for(
    host: &str,
    repo: &RepoId,
    config: &crate::config::Config,
    env: &(dyn Env + Sync),
) -> Result<ResolvedToken, CliError> {
    Ok(match owner_token(host, repo, config, env)? {
        Some(token) => ResolvedToken {
            token,
            source: review_github::token::TokenSource::Helper("token-variables".to_owned()),
        },
        None => {
            // The hosts the user bound a token variable to count as configured.
            let configured: Vec<String> = config
                .token_variables
                .keys()
                .map(|(host, _)| host.clone())
                .collect();
            resolve_token(host, env, &configured, Some(&GhCli::new())).map_err(|e| {
                let hint = matches!(e, TokenError::NotForHost { .. }).then(|| {
                    format!(
                        "or bind a variable to that host's owner in [token-variables] of \
                             your config file: \"{host}/{}\" = \"VARIABLE\"",
                        repo.owner
                    )
                });
                CliError::GitHub {
                    message: e.to_string(),
                    source: None,
                    hint,
                }
            })?
        }
    })
}
