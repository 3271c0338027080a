//! The review-thread model: a pull request, its reviews, its review threads and their comments.
//!
//! These are plain data, filled by a review host (GitHub, or a recorded snapshot) and read by the
//! rules. Nothing here talks to the network.

use std::fmt;

use serde::{Deserialize, Serialize};

/// The GraphQL node id of a review thread (`PRRT_...` on GitHub).
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(transparent)]
pub struct ThreadId(pub String);

/// The GraphQL node id of a comment (`PRRC_...` for review comments, `IC_...` for PR comments).
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(transparent)]
pub struct CommentId(pub String);

/// The GraphQL node id of a review submission (`PRR_...`).
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(transparent)]
pub struct ReviewId(pub String);

/// A full commit id (hex), as GitHub reports `oid`.
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(transparent)]
pub struct CommitId(pub String);

macro_rules! id_display {
    ($($t:ty),*) => {$(
        impl fmt::Display for $t {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(&self.0)
            }
        }
        impl From<&str> for $t {
            fn from(s: &str) -> Self {
                Self(s.to_owned())
            }
        }
    )*};
}
id_display!(ThreadId, CommentId, ReviewId, CommitId);

impl CommitId {
    /// The first seven characters, as people write a commit (`3f2a9c1`).
    pub fn short(&self) -> &str {
        self.0.get(..7).unwrap_or(&self.0)
    }
}

/// A repository on the review host, `owner/name`.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct RepoId {
    /// The owner (user or organisation) login.
    pub owner: String,
    /// The repository name.
    pub name: String,
}

#[cfg(feature = "schema")]
impl schemars::JsonSchema for RepoId {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "RepoId".into()
    }

    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({
            "type": "string",
            "description": "A repository as OWNER/NAME.",
            "pattern": "^[^/\\s]+/[^/\\s]+$"
        })
    }
}

/// Why a string is not an `owner/name` repository.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("`{input}` is not a repository of the form OWNER/NAME")]
pub struct RepoIdError {
    /// The text that was given.
    pub input: String,
}

impl RepoId {
    /// Parses `owner/name`. Both parts must be non-empty and contain no `/` or whitespace.
    pub fn parse(input: &str) -> Result<Self, RepoIdError> {
        let err = || RepoIdError {
            input: input.to_owned(),
        };
        let (owner, name) = input.split_once('/').ok_or_else(err)?;
        let valid =
            |s: &str| !s.is_empty() && !s.contains('/') && !s.chars().any(char::is_whitespace);
        if !valid(owner) || !valid(name) {
            return Err(err());
        }
        Ok(Self {
            owner: owner.to_owned(),
            name: name.to_owned(),
        })
    }
}

impl fmt::Display for RepoId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{}", self.owner, self.name)
    }
}

impl Serialize for RepoId {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

impl<'de> Deserialize<'de> for RepoId {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s = String::deserialize(d)?;
        Self::parse(&s).map_err(serde::de::Error::custom)
    }
}

/// The state of a pull request.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum PrState {
    /// Open for review.
    Open,
    /// Closed without merging.
    Closed,
    /// Merged.
    Merged,
}

/// What kind of account wrote a comment, as GitHub types it (`__typename` of the author).
///
/// Anything other than [`AuthorKind::Bot`] is a person as far as typing goes; a kind this
/// version does not know reads as [`AuthorKind::Unknown`], which the gate treats as human.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum AuthorKind {
    /// A user account. Some review tools post through user accounts.
    User,
    /// A GitHub App (bot) account.
    Bot,
    /// An organisation.
    Organization,
    /// A placeholder for an imported user.
    Mannequin,
    /// Any other or unknown type.
    #[serde(other)]
    Unknown,
}

/// The author of a comment. `None` where GitHub shows a deleted account (`ghost`).
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Author {
    /// The login as GraphQL reports it (bots without `[bot]`).
    pub login: String,
    /// The account type.
    pub kind: AuthorKind,
    /// The author's association with the repository, as GitHub reported it on the comment
    /// (`authorAssociation`); `None` for no association (GitHub's `NONE`) or not known (a
    /// snapshot recorded before the field).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub association: Option<Association>,
}

impl Author {
    /// Builds an author, of no known association with the repository.
    pub fn new(login: impl Into<String>, kind: AuthorKind) -> Self {
        Self {
            login: login.into(),
            kind,
            association: None,
        }
    }

    /// The same author, with `association`.
    #[must_use]
    pub fn with_association(mut self, association: Option<Association>) -> Self {
        self.association = association;
        self
    }

    /// Whether GitHub says the author owns the repository, is a member of its organisation or
    /// a collaborator on it: an approximation of write access (GitHub does not report the
    /// permission itself on a comment).
    pub fn is_maintainer(&self) -> bool {
        matches!(
            self.association,
            Some(Association::Owner | Association::Member | Association::Collaborator)
        )
    }
}

/// How a comment's author is associated with the repository (GitHub's
/// `CommentAuthorAssociation`, but `NONE`, which is [`Author::association`]'s `None`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum Association {
    /// Owns the repository.
    Owner,
    /// A member of the organisation that owns it.
    Member,
    /// Invited to collaborate on it.
    Collaborator,
    /// Has committed to it before.
    Contributor,
    /// Contributing for the first time on GitHub.
    FirstTimer,
    /// Contributing to this repository for the first time.
    FirstTimeContributor,
    /// A placeholder for an imported user.
    Mannequin,
}

/// One comment of a review thread.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Comment {
    /// The comment's node id.
    pub id: CommentId,
    /// Who wrote it; `None` for a deleted account.
    pub author: Option<Author>,
    /// The markdown body, untrusted.
    pub body: String,
    /// When it was created, RFC 3339, as the host reports it.
    pub created_at: String,
    /// A link to the comment.
    #[serde(default)]
    pub url: String,
    /// The diff hunk the comment was written against, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub diff_hunk: Option<String>,
    /// The review submission this comment belongs to.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub review_id: Option<ReviewId>,
}

/// What a thread is attached to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum SubjectType {
    /// A line or range of lines.
    #[default]
    Line,
    /// A whole file.
    File,
}

/// A range of lines in the new version of a file, both ends inclusive, 1-based.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct LineRange {
    /// First line.
    pub start: u32,
    /// Last line (equal to `start` for a single line).
    pub end: u32,
}

impl LineRange {
    /// A range; `start` and `end` are swapped if given in the wrong order.
    pub fn new(start: u32, end: u32) -> Self {
        Self {
            start: start.min(end),
            end: start.max(end),
        }
    }

    /// Whether two ranges share a line.
    pub fn overlaps(&self, other: &Self) -> bool {
        self.start <= other.end && other.start <= self.end
    }
}

impl fmt::Display for LineRange {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.start == self.end {
            write!(f, "{}", self.start)
        } else {
            write!(f, "{}-{}", self.start, self.end)
        }
    }
}

/// A review thread: comments anchored to a place in the diff.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Thread {
    /// The thread's node id.
    pub id: ThreadId,
    /// Whether someone resolved it.
    pub is_resolved: bool,
    /// Whether the code it points at has changed since (GitHub's `isOutdated`).
    pub is_outdated: bool,
    /// The file the thread is on.
    pub path: String,
    /// The lines it covers in the current diff; `None` when outdated or file-level.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lines: Option<LineRange>,
    /// The lines it was written on, in the diff it was written against (GitHub's
    /// `originalStartLine`/`originalLine`): an outdated thread keeps them. `None` for a
    /// file-level thread, and in snapshots recorded before they were read.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub original_lines: Option<LineRange>,
    /// Line or file thread.
    #[serde(default)]
    pub subject_type: SubjectType,
    /// The comments in order. The first is the finding; later ones are replies.
    pub comments: Vec<Comment>,
    /// Whether every comment of the thread was read. A thread read only in part must never be
    /// mutated: a reply that was not read may be a person's.
    pub all_comments_read: bool,
}

impl Thread {
    /// The first comment, which states the finding.
    pub fn first_comment(&self) -> Option<&Comment> {
        self.comments.first()
    }

    /// `path:line` (or `path` alone) for reports.
    pub fn location(&self) -> String {
        match self.lines {
            Some(lines) => format!("{}:{lines}", self.path),
            None => self.path.clone(),
        }
    }
}

/// The state of a review submission.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum ReviewState {
    /// Approved.
    Approved,
    /// Changes requested.
    ChangesRequested,
    /// Commented.
    Commented,
    /// Dismissed.
    Dismissed,
    /// Not yet submitted (a draft).
    Pending,
}

/// A review submission: a body and the inline comments posted with it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Review {
    /// The review's node id.
    pub id: ReviewId,
    /// Who submitted it.
    pub author: Option<Author>,
    /// Its state.
    pub state: ReviewState,
    /// The review body (may be empty), untrusted.
    #[serde(default)]
    pub body: String,
    /// When it was submitted, RFC 3339.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub submitted_at: Option<String>,
    /// The commit the review was made on.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub commit: Option<CommitId>,
}

/// The combined state of the checks and statuses on the PR's head commit.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum ChecksState {
    /// A status errored.
    Error,
    /// A required status has not reported yet.
    Expected,
    /// A check failed.
    Failure,
    /// Checks are running.
    Pending,
    /// Every check passed.
    Success,
    /// The host's API cannot report the roll-up (an older GitHub Enterprise Server lacking
    /// `statusCheckRollup`): not known to pass, nor to be absent.
    Unknown,
}

/// A top-level comment on the pull request's conversation (not attached to a line).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct IssueComment {
    /// The comment's node id.
    pub id: CommentId,
    /// Who wrote it.
    pub author: Option<Author>,
    /// The body, untrusted.
    pub body: String,
    /// When it was created, RFC 3339.
    pub created_at: String,
    /// A link to it.
    #[serde(default)]
    pub url: String,
}

/// The repository a pull request's branch lives in.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct HeadRepo {
    /// The repository, `owner/name`.
    pub repo: RepoId,
    /// Whether it is another repository than the one the PR is opened on (a fork).
    pub cross_repository: bool,
}

/// Whether a pull request merges cleanly into its base, as the host computed it.
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Mergeable {
    /// It merges without conflicts.
    Mergeable,
    /// It has merge conflicts with its base.
    Conflicting,
}

/// A pull request with everything the triage reads.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PullRequest {
    /// The repository.
    pub repo: RepoId,
    /// The PR number.
    pub number: u64,
    /// The PR's node id (subject of PR-level comments).
    #[serde(default)]
    pub id: String,
    /// Title.
    #[serde(default)]
    pub title: String,
    /// Link to the PR.
    #[serde(default)]
    pub url: String,
    /// Open, closed or merged.
    pub state: PrState,
    /// The PR's author; comments carrying the automated header count as automated only from
    /// this login or a configured automation account.
    pub author: Option<Author>,
    /// Whether the PR is a draft.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub draft: bool,
    /// Whether it merges cleanly into its base; `None` while the host has not computed it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mergeable: Option<Mergeable>,
    /// The branch the PR merges from.
    #[serde(default)]
    pub head_ref: String,
    /// The branch the PR merges into.
    #[serde(default)]
    pub base_ref: String,
    /// The head commit on the host.
    pub head_sha: CommitId,
    /// The base branch's commit the PR is compared with (`baseRefOid`), when known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub base_sha: Option<CommitId>,
    /// Where the PR's branch lives, when known (a fork's PR lives in another repository).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub head_repo: Option<HeadRepo>,
    /// The login of the account that read the PR (the token's owner): the account the tool
    /// posts as.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub viewer: Option<String>,
    /// The combined checks state of the head commit, if it has any checks.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub checks: Option<ChecksState>,
    /// Review submissions.
    #[serde(default)]
    pub reviews: Vec<Review>,
    /// Top-level conversation comments.
    #[serde(default)]
    pub comments: Vec<IssueComment>,
    /// Every review thread read, resolved ones included.
    pub threads: Vec<Thread>,
}

impl PullRequest {
    /// The threads the triage must account for: unresolved ones.
    pub fn unresolved_threads(&self) -> impl Iterator<Item = &Thread> {
        self.threads.iter().filter(|t| !t.is_resolved)
    }

    /// Finds a thread by id.
    pub fn thread(&self, id: &ThreadId) -> Option<&Thread> {
        self.threads.iter().find(|t| &t.id == id)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn repo_id_parses_owner_and_name() {
        let repo = RepoId::parse("acme/widgets").unwrap();
        assert_eq!(repo.owner, "acme");
        assert_eq!(repo.name, "widgets");
        assert_eq!(repo.to_string(), "acme/widgets");
    }

    #[test]
    fn repo_id_rejects_malformed_input() {
        for bad in [
            "",
            "acme",
            "/widgets",
            "acme/",
            "a/b/c",
            "ac me/w",
            "acme/w idgets",
        ] {
            assert!(RepoId::parse(bad).is_err(), "{bad:?} should be rejected");
        }
    }

    #[test]
    fn line_ranges_overlap_at_shared_lines_only() {
        let a = LineRange::new(10, 12);
        assert!(a.overlaps(&LineRange::new(12, 20)));
        assert!(a.overlaps(&LineRange::new(11, 11)));
        assert!(!a.overlaps(&LineRange::new(13, 20)));
        assert_eq!(LineRange::new(5, 3), LineRange { start: 3, end: 5 });
    }

    #[test]
    fn unknown_author_kinds_deserialize_as_unknown() {
        let author: Author =
            serde_json::from_str(r#"{"login":"x","kind":"EnterpriseUserAccount"}"#).unwrap();
        assert_eq!(author.kind, AuthorKind::Unknown);
    }

    #[test]
    fn short_commit_is_seven_characters_or_the_whole_id() {
        assert_eq!(CommitId::from("0123456789abcdef").short(), "0123456");
        assert_eq!(CommitId::from("abc").short(), "abc");
    }
}
