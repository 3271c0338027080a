//! Complete reads: a pull request with every thread, every comment of every thread, every review
//! and every top-level comment, at the lowest request count the API allows.
//!
//! Requests for T threads: 1 (the PR with the first page of threads, reviews and comments) +
//! (ceil(T/100) - 1) + one per extra page of comments of a long thread + the extra pages of
//! reviews and top-level comments. Nothing per thread.
//!
//! A page of threads, reviews or comments that cannot be read fails the whole read: a shorter
//! list would be a silent truncation. A later page of one thread's comments that cannot be read
//! marks that thread `all_comments_read = false`, and the rules then leave it alone.

use cynic::QueryBuilder;
use review_core::model::{
    Author, AuthorKind, ChecksState, Comment, CommentId, CommitId, HeadRepo, IssueComment,
    LineRange, PrState, PullRequest, RepoId, Review, ReviewId, ReviewState, SubjectType, Thread,
    ThreadId,
};

use crate::client::{Client, ClientError, Repeat, Response};
use crate::queries as q;

/// Why a pull request could not be read.
#[derive(Debug, thiserror::Error)]
pub enum ReadError {
    /// No such repository, or the token cannot see it.
    #[error("repository {0} not found, or the token cannot see it")]
    RepoNotFound(RepoId),
    /// No such pull request.
    #[error("pull request {repo}#{number} not found")]
    PullRequestNotFound {
        /// The repository.
        repo: RepoId,
        /// The number.
        number: u64,
    },
    /// A request failed.
    #[error("reading {what} failed")]
    Request {
        /// What was being read.
        what: String,
        /// Why.
        #[source]
        source: ClientError,
    },
    /// GitHub answered with errors and no data.
    #[error("reading {what} failed: {message}")]
    Api {
        /// What was being read.
        what: String,
        /// GitHub's messages.
        message: String,
    },
}

fn author(actor: Option<q::Actor>) -> Option<Author> {
    actor.map(|a| {
        let kind = match a.__typename.as_str() {
            "User" => AuthorKind::User,
            "Bot" => AuthorKind::Bot,
            "Organization" => AuthorKind::Organization,
            "Mannequin" => AuthorKind::Mannequin,
            _ => AuthorKind::Unknown,
        };
        Author::new(a.login, kind)
    })
}

fn line_range(start: Option<i32>, line: Option<i32>) -> Option<LineRange> {
    let end = u32::try_from(line?).ok()?;
    let start = start.and_then(|s| u32::try_from(s).ok()).unwrap_or(end);
    Some(LineRange::new(start, end))
}

fn comment(c: q::ReviewComment) -> Comment {
    Comment {
        id: CommentId(c.id.into_inner()),
        author: author(c.author),
        body: c.body,
        created_at: c.created_at.0,
        url: c.url.0,
        diff_hunk: Some(c.diff_hunk).filter(|h| !h.is_empty()),
        review_id: c.pull_request_review.map(|r| ReviewId(r.id.into_inner())),
    }
}

fn comments(connection: q::CommentConnection) -> (Vec<Comment>, Option<String>) {
    let next = next_cursor(&connection.page_info);
    let list = connection
        .nodes
        .unwrap_or_default()
        .into_iter()
        .flatten()
        .map(comment)
        .collect();
    (list, next)
}

fn next_cursor(page: &q::PageInfo) -> Option<String> {
    if page.has_next_page {
        page.end_cursor.clone()
    } else {
        None
    }
}

/// A thread read so far, and the cursor of its next comment page.
struct PartThread {
    thread: Thread,
    next: Option<String>,
}

fn thread(t: q::ReviewThread) -> PartThread {
    let (list, next) = comments(t.comments);
    PartThread {
        thread: Thread {
            id: ThreadId(t.id.into_inner()),
            is_resolved: t.is_resolved,
            is_outdated: t.is_outdated,
            path: t.path,
            lines: line_range(t.start_line, t.line),
            subject_type: match t.subject_type {
                q::SubjectType::File => SubjectType::File,
                q::SubjectType::Line => SubjectType::Line,
            },
            comments: list,
            all_comments_read: next.is_none(),
        },
        next,
    }
}

fn review(r: q::PullRequestReview) -> Review {
    Review {
        id: ReviewId(r.id.into_inner()),
        author: author(r.author),
        state: match r.state {
            q::ReviewState::Approved => ReviewState::Approved,
            q::ReviewState::ChangesRequested => ReviewState::ChangesRequested,
            q::ReviewState::Commented => ReviewState::Commented,
            q::ReviewState::Dismissed => ReviewState::Dismissed,
            q::ReviewState::Pending => ReviewState::Pending,
        },
        body: r.body,
        submitted_at: r.submitted_at.map(|d| d.0),
        commit: r.commit.map(|c| CommitId(c.oid.0)),
    }
}

fn issue_comment(c: q::IssueComment) -> IssueComment {
    IssueComment {
        id: CommentId(c.id.into_inner()),
        author: author(c.author),
        body: c.body,
        created_at: c.created_at.0,
        url: c.url.0,
    }
}

fn api_message(errors: &[crate::client::ApiError]) -> String {
    if errors.is_empty() {
        "GitHub returned no data".to_owned()
    } else {
        errors
            .iter()
            .map(|e| e.message.as_str())
            .collect::<Vec<_>>()
            .join("; ")
    }
}

/// A file of a commit, as [`Reader::file_at`] found it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RepoFile {
    /// The commit has no such file.
    Absent,
    /// A regular file's text.
    Text(String),
    /// Something other than a small regular text file (a symbolic link, a directory, a
    /// submodule, binary content, too large): why it is not read.
    Refused(String),
}

/// The present nodes of a connection page.
fn nodes<T>(list: Option<Vec<Option<T>>>) -> impl Iterator<Item = T> {
    list.unwrap_or_default().into_iter().flatten()
}

/// The repository and PR number the page queries name.
#[derive(Debug, Clone, Copy)]
struct RepoVars<'a> {
    owner: &'a str,
    name: &'a str,
    number: i32,
}

impl RepoVars<'_> {
    fn after(self, after: String) -> q::PageVariables {
        q::PageVariables {
            owner: self.owner.to_owned(),
            name: self.name.to_owned(),
            number: self.number,
            after,
        }
    }
}

fn vanished(what: &str) -> ReadError {
    ReadError::Api {
        what: what.to_owned(),
        message: "the pull request disappeared while it was being read".to_owned(),
    }
}

/// One later page of a connection: its items and the next page's cursor.
type Page<T> = Result<(Vec<T>, Option<String>), ReadError>;

/// Reads pull requests completely through a [`Client`].
#[derive(Debug, Clone)]
pub struct Reader<'a> {
    client: &'a Client,
}

impl<'a> Reader<'a> {
    /// A reader over `client`.
    pub fn new(client: &'a Client) -> Self {
        Self { client }
    }

    async fn fetch<Q, V>(&self, op: cynic::Operation<Q, V>, what: &str) -> Result<Q, ReadError>
    where
        Q: serde::de::DeserializeOwned,
        V: serde::Serialize,
    {
        let Response { data, errors } =
            self.client
                .run(&op, Repeat::Safe)
                .await
                .map_err(|source| ReadError::Request {
                    what: what.to_owned(),
                    source,
                })?;
        // A field GitHub could not find comes back null beside a NOT_FOUND error; the callers
        // turn the null into a typed "not found".
        let only_not_found = errors
            .iter()
            .all(|e| e.kind.as_deref() == Some("NOT_FOUND"));
        match data {
            Some(d) if only_not_found => Ok(d),
            _ => Err(ReadError::Api {
                what: what.to_owned(),
                message: api_message(&errors),
            }),
        }
    }

    fn count_points(&self, rate: Option<&q::RateLimit>) {
        let cost = rate.map_or(1, |r| u64::try_from(r.cost).unwrap_or(1));
        self.client.add_points(cost);
    }

    /// Reads `repo#number` whole: every thread (resolved ones included), every comment, every
    /// review and top-level comment.
    pub async fn pull_request(&self, repo: &RepoId, number: u64) -> Result<PullRequest, ReadError> {
        let int_number = i32::try_from(number).map_err(|_| ReadError::PullRequestNotFound {
            repo: repo.clone(),
            number,
        })?;
        let first = self
            .fetch(
                q::PullRequestFirstPage::build(q::PullRequestVariables {
                    owner: repo.owner.clone(),
                    name: repo.name.clone(),
                    number: int_number,
                }),
                &format!("pull request {repo}#{number}"),
            )
            .await?;
        self.count_points(first.rate_limit.as_ref());
        let repository = first
            .repository
            .ok_or_else(|| ReadError::RepoNotFound(repo.clone()))?;
        let head = repository
            .pull_request
            .ok_or_else(|| ReadError::PullRequestNotFound {
                repo: repo.clone(),
                number,
            })?;

        let repo_vars = RepoVars {
            owner: &repo.owner,
            name: &repo.name,
            number: int_number,
        };

        // Threads, page by page.
        let mut threads: Vec<PartThread> = nodes(head.review_threads.nodes).map(thread).collect();
        threads.extend(
            self.rest_of(
                next_cursor(&head.review_threads.page_info),
                "a page of review threads",
                |after| self.threads_page(repo_vars, after),
            )
            .await?,
        );

        // The rest of each long thread. A page that fails leaves the thread marked partly read.
        for part in &mut threads {
            while let Some(after) = part.next.take() {
                match self.thread_comments(&part.thread.id, Some(after)).await {
                    Ok((more, next)) => {
                        part.thread.comments.extend(more);
                        part.next = next;
                        part.thread.all_comments_read = part.next.is_none();
                    }
                    Err(_) => {
                        part.thread.all_comments_read = false;
                        break;
                    }
                }
            }
        }

        // Reviews and top-level comments, page by page.
        let mut reviews = Vec::new();
        if let Some(connection) = head.reviews {
            reviews.extend(nodes(connection.nodes).map(review));
            reviews.extend(
                self.rest_of(
                    next_cursor(&connection.page_info),
                    "a page of reviews",
                    |after| self.reviews_page(repo_vars, after),
                )
                .await?,
            );
        }
        let mut issue_comments: Vec<IssueComment> =
            nodes(head.comments.nodes).map(issue_comment).collect();
        issue_comments.extend(
            self.rest_of(
                next_cursor(&head.comments.page_info),
                "a page of PR comments",
                |after| self.comments_page(repo_vars, after),
            )
            .await?,
        );

        Ok(PullRequest {
            repo: repo.clone(),
            number,
            id: head.id.into_inner(),
            title: head.title,
            url: head.url.0,
            state: match head.state {
                q::PullRequestState::Open => PrState::Open,
                q::PullRequestState::Closed => PrState::Closed,
                q::PullRequestState::Merged => PrState::Merged,
            },
            author: author(head.author),
            head_ref: head.head_ref_name,
            base_ref: head.base_ref_name,
            head_sha: CommitId(head.head_ref_oid.0),
            // GitHub answers zeros for a base it no longer has.
            base_sha: Some(head.base_ref_oid.0)
                .filter(|oid| !oid.is_empty() && !oid.bytes().all(|b| b == b'0'))
                .map(CommitId),
            head_repo: head
                .head_repository
                .and_then(|r| RepoId::parse(&r.name_with_owner).ok())
                .map(|repo| HeadRepo {
                    repo,
                    cross_repository: head.is_cross_repository,
                }),
            viewer: Some(first.viewer.login).filter(|l| !l.is_empty()),
            checks: head.status_check_rollup.map(|r| match r.state {
                q::StatusState::Error => ChecksState::Error,
                q::StatusState::Expected => ChecksState::Expected,
                q::StatusState::Failure => ChecksState::Failure,
                q::StatusState::Pending => ChecksState::Pending,
                q::StatusState::Success => ChecksState::Success,
            }),
            reviews,
            comments: issue_comments,
            threads: threads.into_iter().map(|p| p.thread).collect(),
        })
    }

    /// Follows a connection's cursors from `next` to its last page. A page that cannot be read
    /// fails the whole read: a shorter list would be a silent truncation.
    async fn rest_of<T, F, Fut>(
        &self,
        mut next: Option<String>,
        what: &str,
        mut page: F,
    ) -> Result<Vec<T>, ReadError>
    where
        F: FnMut(String) -> Fut,
        Fut: Future<Output = Page<T>>,
    {
        let mut out = Vec::new();
        while let Some(after) = next.take() {
            let (items, cursor) = page(after).await.map_err(|e| match e {
                ReadError::Request { source, .. } => ReadError::Request {
                    what: what.to_owned(),
                    source,
                },
                other => other,
            })?;
            out.extend(items);
            next = cursor;
        }
        Ok(out)
    }

    async fn threads_page(&self, vars: RepoVars<'_>, after: String) -> Page<PartThread> {
        let what = "a page of review threads";
        let page = self
            .fetch(q::ThreadsPage::build(vars.after(after)), what)
            .await?;
        self.count_points(page.rate_limit.as_ref());
        let c = page
            .repository
            .and_then(|r| r.pull_request)
            .map(|p| p.review_threads)
            .ok_or_else(|| vanished(what))?;
        Ok((
            nodes(c.nodes).map(thread).collect(),
            next_cursor(&c.page_info),
        ))
    }

    async fn reviews_page(&self, vars: RepoVars<'_>, after: String) -> Page<Review> {
        let what = "a page of reviews";
        let page = self
            .fetch(q::ReviewsPage::build(vars.after(after)), what)
            .await?;
        self.count_points(page.rate_limit.as_ref());
        let c = page
            .repository
            .and_then(|r| r.pull_request)
            .and_then(|p| p.reviews)
            .ok_or_else(|| vanished(what))?;
        Ok((
            nodes(c.nodes).map(review).collect(),
            next_cursor(&c.page_info),
        ))
    }

    async fn comments_page(&self, vars: RepoVars<'_>, after: String) -> Page<IssueComment> {
        let what = "a page of PR comments";
        let page = self
            .fetch(q::IssueCommentsPage::build(vars.after(after)), what)
            .await?;
        self.count_points(page.rate_limit.as_ref());
        let c = page
            .repository
            .and_then(|r| r.pull_request)
            .map(|p| p.comments)
            .ok_or_else(|| vanished(what))?;
        Ok((
            nodes(c.nodes).map(issue_comment).collect(),
            next_cursor(&c.page_info),
        ))
    }

    /// The commit `repo#number` is compared with (`baseRefOid`), when GitHub still has one.
    pub async fn base_commit(
        &self,
        repo: &RepoId,
        number: u64,
    ) -> Result<Option<CommitId>, ReadError> {
        let int_number = i32::try_from(number).map_err(|_| ReadError::PullRequestNotFound {
            repo: repo.clone(),
            number,
        })?;
        let page = self
            .fetch(
                q::PullRequestBase::build(q::PullRequestVariables {
                    owner: repo.owner.clone(),
                    name: repo.name.clone(),
                    number: int_number,
                }),
                &format!("the base of {repo}#{number}"),
            )
            .await?;
        self.count_points(page.rate_limit.as_ref());
        let pr = page
            .repository
            .ok_or_else(|| ReadError::RepoNotFound(repo.clone()))?
            .pull_request
            .ok_or_else(|| ReadError::PullRequestNotFound {
                repo: repo.clone(),
                number,
            })?;
        let oid = pr.base_ref_oid.0;
        Ok((!oid.is_empty() && !oid.bytes().all(|b| b == b'0')).then_some(CommitId(oid)))
    }

    /// The file `path` of `commit` in `repo`, read through the API (never from a working tree),
    /// if it is a regular text file of at most `max_bytes`: a symbolic link is refused, not
    /// followed.
    pub async fn file_at(
        &self,
        repo: &RepoId,
        commit: &str,
        path: &str,
        max_bytes: usize,
    ) -> Result<RepoFile, ReadError> {
        let path = path.trim_matches('/');
        let (dir, name) = path.rsplit_once('/').unwrap_or(("", path));
        let what = format!("{path} at {}", commit.get(..7).unwrap_or(commit));
        let page = self
            .fetch(
                q::RepositoryFile::build(q::RepositoryFileVariables {
                    owner: repo.owner.clone(),
                    name: repo.name.clone(),
                    dir: format!("{commit}:{dir}"),
                    file: format!("{commit}:{path}"),
                }),
                &what,
            )
            .await?;
        self.count_points(page.rate_limit.as_ref());
        let objects = page
            .repository
            .ok_or_else(|| ReadError::RepoNotFound(repo.clone()))?;
        let entries = match objects.dir {
            Some(q::DirObject::Tree(tree)) => tree.entries.unwrap_or_default(),
            _ => return Ok(RepoFile::Absent),
        };
        let Some(entry) = entries.iter().find(|e| e.name == name) else {
            return Ok(RepoFile::Absent);
        };
        // Regular files are 100644 or 100755; 120000 is a symbolic link, 160000 a submodule.
        if !(entry.kind == "blob" && matches!(entry.mode, 0o100_644 | 0o100_755)) {
            return Ok(RepoFile::Refused(format!(
                "it is not a regular file (mode {:o})",
                entry.mode
            )));
        }
        let size = usize::try_from(entry.size).unwrap_or(usize::MAX);
        if size > max_bytes {
            return Ok(RepoFile::Refused(format!(
                "it is {size} bytes, more than the {max_bytes} read"
            )));
        }
        match objects.file {
            Some(q::FileObject::Blob(blob))
                if !blob.is_truncated && blob.is_binary != Some(true) =>
            {
                match blob.text {
                    Some(text) if text.len() <= max_bytes => Ok(RepoFile::Text(text)),
                    Some(_) => Ok(RepoFile::Refused(format!(
                        "it is more than the {max_bytes} bytes read"
                    ))),
                    None => Ok(RepoFile::Refused("it is not text".to_owned())),
                }
            }
            Some(q::FileObject::Blob(_)) => Ok(RepoFile::Refused(
                "it is binary or too large to read".to_owned(),
            )),
            _ => Ok(RepoFile::Absent),
        }
    }

    /// One page of a thread's comments, from the start (`after = None`) or after a cursor.
    /// Returns the comments and the next page's cursor.
    pub async fn thread_comments(
        &self,
        thread: &ThreadId,
        after: Option<String>,
    ) -> Result<(Vec<Comment>, Option<String>), ReadError> {
        let what = format!("the comments of thread {thread}");
        let page = self
            .fetch(
                q::ThreadCommentsPage::build(q::ThreadCommentsVariables {
                    id: cynic::Id::new(&thread.0),
                    after,
                }),
                &what,
            )
            .await?;
        self.count_points(page.rate_limit.as_ref());
        match page.node {
            Some(q::ThreadNode::PullRequestReviewThread(t)) => Ok(comments(t.comments)),
            _ => Err(ReadError::Api {
                what,
                message: "no such review thread".to_owned(),
            }),
        }
    }
}
