//! Finding the pull request of the current branch, as the loop workflow's table says:
//!
//! | situation | result |
//! |---|---|
//! | detached HEAD | stop: pass a PR number |
//! | on the default branch | stop: pass a PR number |
//! | no open PR with this head branch | stop: "no open PR for branch X — open one, or pass a number" |
//! | exactly one | use it (and say which) |
//! | several | ask which on a terminal, else list them and stop |
//!
//! Only open pull requests match a branch name (branch names get reused), and only those whose
//! head is in the namespace the branch is pushed to: the repository's owner's in a clone of the
//! repository, the fork's owner's in a fork's clone (`origin` the fork, `upstream` the base). A
//! branch of the same name in someone else's fork is not ours.

use cynic::QueryBuilder;
use review_core::model::RepoId;

use crate::client::{Client, Repeat};
use crate::queries as q;
use crate::reader::ReadError;

/// An open pull request whose head is a given branch.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OpenPr {
    /// Its number.
    pub number: u64,
    /// Its title.
    pub title: String,
    /// Its link.
    pub url: String,
    /// The owner of its head repository (differs from the base's for a fork).
    pub head_owner: Option<String>,
}

/// What GitHub says about a branch.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BranchLookup {
    /// The repository's default branch.
    pub default_branch: Option<String>,
    /// The open pull requests with that head branch name.
    pub open: Vec<OpenPr>,
}

/// What to do about the current branch.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Choice {
    /// Exactly one open pull request: use it.
    Use(OpenPr),
    /// HEAD is detached.
    Detached,
    /// The branch is the default branch.
    DefaultBranch(String),
    /// No open pull request has this head branch.
    NoneOpen(String),
    /// Several do.
    Several(String, Vec<OpenPr>),
}

/// Decides, from the checked-out branch (`None` when detached), the owner of the repository it
/// is pushed to (`head_owner`), and what GitHub said.
pub fn choose(branch: Option<&str>, head_owner: &str, lookup: &BranchLookup) -> Choice {
    let Some(branch) = branch else {
        return Choice::Detached;
    };
    if lookup.default_branch.as_deref() == Some(branch) {
        return Choice::DefaultBranch(branch.to_owned());
    }
    let mut ours: Vec<OpenPr> = lookup
        .open
        .iter()
        .filter(|pr| {
            pr.head_owner
                .as_deref()
                .is_none_or(|o| o.eq_ignore_ascii_case(head_owner))
        })
        .cloned()
        .collect();
    match ours.len() {
        0 => Choice::NoneOpen(branch.to_owned()),
        1 => Choice::Use(ours.remove(0)),
        _ => Choice::Several(branch.to_owned(), ours),
    }
}

/// Asks GitHub for the default branch and the open pull requests whose head is `branch`.
pub async fn lookup(
    client: &Client,
    repo: &RepoId,
    branch: &str,
) -> Result<BranchLookup, ReadError> {
    let what = format!("the open pull requests of branch {branch}");
    let op = q::OpenPullRequestsForBranch::build(q::BranchVariables {
        owner: repo.owner.clone(),
        name: repo.name.clone(),
        head_ref_name: branch.to_owned(),
    });
    let response = client
        .run(&op, Repeat::Safe)
        .await
        .map_err(|source| ReadError::Request {
            what: what.clone(),
            source,
        })?;
    client.add_points(1);
    let repository = response
        .data
        .and_then(|d| d.repository)
        .ok_or_else(|| ReadError::RepoNotFound(repo.clone()))?;
    Ok(BranchLookup {
        default_branch: repository.default_branch_ref.map(|r| r.name),
        open: repository
            .pull_requests
            .nodes
            .unwrap_or_default()
            .into_iter()
            .flatten()
            .filter_map(|p| {
                Some(OpenPr {
                    number: u64::try_from(p.number).ok()?,
                    title: p.title,
                    url: p.url.0,
                    head_owner: p.head_repository_owner.map(|o| o.login),
                })
            })
            .collect(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pr(number: u64, owner: &str) -> OpenPr {
        OpenPr {
            number,
            title: format!("PR {number}"),
            url: String::new(),
            head_owner: Some(owner.to_owned()),
        }
    }

    fn lookup_of(open: Vec<OpenPr>) -> BranchLookup {
        BranchLookup {
            default_branch: Some("main".to_owned()),
            open,
        }
    }

    #[test]
    fn every_row_of_the_table() {
        assert_eq!(
            choose(None, "acme", &lookup_of(vec![pr(1, "acme")])),
            Choice::Detached
        );
        assert_eq!(
            choose(Some("main"), "acme", &lookup_of(vec![pr(1, "acme")])),
            Choice::DefaultBranch("main".to_owned())
        );
        assert_eq!(
            choose(Some("feat"), "acme", &lookup_of(vec![])),
            Choice::NoneOpen("feat".to_owned())
        );
        assert_eq!(
            choose(Some("feat"), "acme", &lookup_of(vec![pr(7, "acme")])),
            Choice::Use(pr(7, "acme"))
        );
        assert_eq!(
            choose(
                Some("feat"),
                "acme",
                &lookup_of(vec![pr(7, "acme"), pr(9, "ACME")])
            ),
            Choice::Several("feat".to_owned(), vec![pr(7, "acme"), pr(9, "ACME")])
        );
    }

    #[test]
    fn in_a_forks_clone_the_forks_branch_is_ours() {
        // `origin` is me/widgets (the fork), `upstream` acme/widgets (the base).
        assert_eq!(
            choose(
                Some("feat"),
                "me",
                &lookup_of(vec![pr(7, "acme"), pr(8, "me"), pr(9, "someone-else")])
            ),
            Choice::Use(pr(8, "me"))
        );
    }

    #[test]
    fn a_forks_branch_of_the_same_name_is_not_ours() {
        assert_eq!(
            choose(
                Some("feat"),
                "acme",
                &lookup_of(vec![pr(7, "acme"), pr(8, "someone-else")])
            ),
            Choice::Use(pr(7, "acme"))
        );
        assert_eq!(
            choose(
                Some("feat"),
                "acme",
                &lookup_of(vec![pr(8, "someone-else")])
            ),
            Choice::NoneOpen("feat".to_owned())
        );
    }
}
