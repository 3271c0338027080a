//! Complete reads: a pull request with every thread, every comment of every thread, every review
//! and every top-level comment, at the lowest request count the API allows.
//!
//! Requests for T threads: 1 (the PR with the first page of threads, reviews and comments) +
//! (ceil(T/100) - 1) + one per extra page of comments of a long thread + the extra pages of
//! reviews and top-level comments. Nothing per thread.
//!
//! After the first page, the independent chains of pages run together: the later pages of
//! threads, each long thread's later pages of comments (a thread's as soon as the page that
//! holds it has come), the later pages of reviews and those of top-level comments. At most
//! [`MAX_IN_FLIGHT`] requests of one reader are in flight at once, so a read takes as many
//! round trips one after another as its longest chain of pages (plus the first page), not as
//! many as it has pages. The results keep GitHub's order whatever order the answers come in.
//!
//! A page of threads, reviews or comments that cannot be read fails the whole read: a shorter
//! list would be a silent truncation. A later page of one thread's comments that cannot be read
//! marks that thread `all_comments_read = false`, and the rules then leave it alone.
//!
//! GitHub can also answer with data *and* errors: an object it could not load reads `null`,
//! with an error whose `path` points at it. Nothing of that is dropped:
//! - a null comment, or an error whose path lies inside a thread
//!   (`reviewThreads.nodes[i]....`), marks that thread not fully read;
//! - a null thread, review or top-level comment, or an error anywhere else, fails the read
//!   ([`ReadError::Incomplete`]), except the `NOT_FOUND` of a missing repository, pull request
//!   or node, which is read as "not found";
//! - every connection's `totalCount` is compared with what was read: a thread with fewer
//!   comments is not fully read; fewer threads, reviews or top-level comments fail the read.

use std::collections::BTreeSet;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use cynic::QueryBuilder;
use futures::{Stream, StreamExt, TryStreamExt, future, stream};
use review_core::model::{
    Association, Author, AuthorKind, ChecksState, Comment, CommentId, CommitId, HeadRepo,
    IssueComment, LineRange, Mergeable, PrState, PullRequest, RepoId, Review, ReviewId,
    ReviewState, SubjectType, Thread, ThreadId,
};
use tokio::sync::Semaphore;

use crate::client::{ApiError, Client, ClientError, Repeat, Response};
use crate::queries as q;

mod first_page;

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
    /// GitHub's answer left something out outside any one thread: a thread, review or top-level
    /// comment came back `null`, an error named a place outside the threads, or a list held
    /// fewer items than its `totalCount`. Reading on would silently drop what is missing.
    #[error("GitHub left part of {what} out of its answer: {detail}")]
    Incomplete {
        /// What was being read.
        what: String,
        /// What is missing, with GitHub's messages and the paths they name.
        detail: String,
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

/// GitHub's association of a comment's author with the repository; `NONE` is none.
fn association(a: q::CommentAuthorAssociation) -> Option<Association> {
    use q::CommentAuthorAssociation as A;
    Some(match a {
        A::Owner => Association::Owner,
        A::Member => Association::Member,
        A::Collaborator => Association::Collaborator,
        A::Contributor => Association::Contributor,
        A::FirstTimer => Association::FirstTimer,
        A::FirstTimeContributor => Association::FirstTimeContributor,
        A::Mannequin => Association::Mannequin,
        A::None => return None,
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
        author: author(c.author).map(|a| a.with_association(association(c.author_association))),
        body: c.body,
        created_at: c.created_at.0,
        url: c.url.0,
        diff_hunk: Some(c.diff_hunk).filter(|h| !h.is_empty()),
        review_id: c.pull_request_review.map(|r| ReviewId(r.id.into_inner())),
    }
}

/// One page of a thread's comments.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CommentsPage {
    /// The comments GitHub gave, in order.
    pub comments: Vec<Comment>,
    /// The next page's cursor, if there is one.
    pub next: Option<String>,
    /// The thread's `totalCount` of comments.
    pub total: usize,
    /// How many comments of the page came back `null` (GitHub could not load them).
    pub lost: usize,
}

fn comments(connection: q::CommentConnection) -> CommentsPage {
    let next = next_cursor(&connection.page_info);
    let nodes = connection.nodes.unwrap_or_default();
    let lost = nodes.iter().filter(|n| n.is_none()).count();
    CommentsPage {
        comments: nodes.into_iter().flatten().map(comment).collect(),
        next,
        total: count(connection.total_count),
        lost,
    }
}

/// A `totalCount` as a length (a negative one, which GitHub never sends, as none).
fn count(total: i32) -> usize {
    usize::try_from(total).unwrap_or(0)
}

fn next_cursor(page: &q::PageInfo) -> Option<String> {
    if page.has_next_page {
        page.end_cursor.clone()
    } else {
        None
    }
}

/// A thread read so far, the cursor of its next comment page, and what is known to be missing.
struct PartThread {
    thread: Thread,
    next: Option<String>,
    /// The thread's `totalCount` of comments.
    total: usize,
    /// A comment came back null, or an error named a place inside the thread.
    lost: bool,
}

impl PartThread {
    /// Whether every comment of the thread was read: no page left, none lost, and as many as
    /// GitHub counts.
    fn whole(&self) -> bool {
        self.next.is_none() && !self.lost && self.thread.comments.len() >= self.total
    }
}

fn thread(t: q::ReviewThread) -> PartThread {
    let page = comments(t.comments);
    let (list, next) = (page.comments, page.next);
    PartThread {
        thread: Thread {
            id: ThreadId(t.id.into_inner()),
            is_resolved: t.is_resolved,
            is_outdated: t.is_outdated,
            path: t.path,
            lines: line_range(t.start_line, t.line),
            original_lines: line_range(t.original_start_line, t.original_line),
            subject_type: match t.subject_type {
                q::SubjectType::File => SubjectType::File,
                q::SubjectType::Line => SubjectType::Line,
            },
            comments: list,
            all_comments_read: false,
        },
        next,
        total: page.total,
        lost: page.lost > 0,
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
        author: author(c.author).map(|a| a.with_association(association(c.author_association))),
        body: c.body,
        created_at: c.created_at.0,
        url: c.url.0,
    }
}

fn api_message(errors: &[ApiError]) -> String {
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

/// The nodes of a page of threads, reviews or top-level comments. A node GitHub answered as
/// `null` (it could not load it) fails the read: leaving it out would drop it silently.
fn nodes<T>(list: Option<Vec<Option<T>>>, what: &str) -> Result<Vec<T>, ReadError> {
    let list = list.unwrap_or_default();
    let lost: Vec<String> = list
        .iter()
        .enumerate()
        .filter(|(_, n)| n.is_none())
        .map(|(i, _)| i.to_string())
        .collect();
    if !lost.is_empty() {
        return Err(ReadError::Incomplete {
            what: what.to_owned(),
            detail: format!("item {} of a page came back null", lost.join(", ")),
        });
    }
    Ok(list.into_iter().flatten().collect())
}

/// Fails the read when a list ends shorter than GitHub's `totalCount` of it.
fn check_total(read: usize, total: usize, what: &str) -> Result<(), ReadError> {
    if read < total {
        return Err(ReadError::Incomplete {
            what: what.to_owned(),
            detail: format!("{read} read of the {total} GitHub counts"),
        });
    }
    Ok(())
}

/// Where a page's threads are in its answer: `reviewThreads.nodes[i]` of the pull request.
const THREADS: [&str; 4] = ["repository", "pullRequest", "reviewThreads", "nodes"];

/// The fields a page of the pull request may find missing, which the caller reads as "not found":
/// the repository and the pull request.
const PR_FIELDS: &[&[&str]] = &[&["repository"], &["repository", "pullRequest"]];

/// The field a page of one thread's comments may find missing: the thread, by its node id.
const NODE_FIELD: &[&[&str]] = &[&["node"]];

fn path_is(path: &[serde_json::Value], wanted: &[&str]) -> bool {
    path.len() == wanted.len() && path.iter().zip(wanted).all(|(p, w)| p.as_str() == Some(*w))
}

/// The index `i` of an error path below `reviewThreads.nodes[i]` (strictly inside thread `i`).
fn thread_index(path: &[serde_json::Value]) -> Option<usize> {
    if path.len() <= THREADS.len() + 1
        || !THREADS
            .iter()
            .zip(path)
            .all(|(w, p)| p.as_str() == Some(*w))
    {
        return None;
    }
    usize::try_from(path.get(THREADS.len())?.as_u64()?).ok()
}

/// An error as a person reads it: its type, message and the path it names.
fn describe(e: &ApiError) -> String {
    let path = e.path.as_deref().map_or_else(String::new, |p| {
        let parts: Vec<String> = p
            .iter()
            .map(|s| s.as_str().map_or_else(|| s.to_string(), ToOwned::to_owned))
            .collect();
        format!(" at {}", parts.join("."))
    });
    match &e.kind {
        Some(kind) => format!("{kind}: {}{path}", e.message),
        None => format!("{}{path}", e.message),
    }
}

/// Sorts the errors GitHub gave beside a page's data. A `NOT_FOUND` on one of the `missing`
/// fields is left to the caller, which reads that field's null as "not found"; with `threads`,
/// an error inside thread `i` of the page marks that thread not fully read (its index is
/// returned); any other error fails the read.
fn sort_errors(
    errors: &[ApiError],
    missing: &[&[&str]],
    threads: bool,
    what: &str,
) -> Result<BTreeSet<usize>, ReadError> {
    let mut partial = BTreeSet::new();
    let mut elsewhere = Vec::new();
    for e in errors {
        let path = e.path.as_deref().unwrap_or_default();
        if e.kind.as_deref() == Some("NOT_FOUND") && missing.iter().any(|m| path_is(path, m)) {
            continue;
        }
        match thread_index(path).filter(|_| threads) {
            Some(i) => {
                partial.insert(i);
            }
            None => elsewhere.push(describe(e)),
        }
    }
    if elsewhere.is_empty() {
        Ok(partial)
    } else {
        Err(ReadError::Incomplete {
            what: what.to_owned(),
            detail: elsewhere.join("; "),
        })
    }
}

/// The threads of a page: a null thread fails the read; a thread an error points inside is
/// marked not fully read.
fn threads_of(
    list: Option<Vec<Option<q::ReviewThread>>>,
    partial: &BTreeSet<usize>,
    what: &str,
) -> Result<Vec<PartThread>, ReadError> {
    Ok(nodes(list, what)?
        .into_iter()
        .enumerate()
        .map(|(i, t)| {
            let mut part = thread(t);
            part.lost |= partial.contains(&i);
            part
        })
        .collect())
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

/// One later page of a connection: its items, the next page's cursor and the connection's
/// `totalCount`.
type Page<T> = Result<(Vec<T>, Option<String>, usize), ReadError>;

/// The most requests one [`Reader`] (and its clones) keeps in flight at once.
///
/// Eight answers together cut a large read's wall time to its longest chain of pages, while
/// staying far below GitHub's guidance of at most 100 concurrent requests per token, so that a
/// read does not bring on a secondary rate limit by itself.
pub const MAX_IN_FLIGHT: usize = 8;

/// A request that failed, named after the list it was reading (`what`).
fn named(e: ReadError, what: &str) -> ReadError {
    match e {
        ReadError::Request { source, .. } => ReadError::Request {
            what: what.to_owned(),
            source,
        },
        other => other,
    }
}

/// Reads pull requests completely through a [`Client`].
///
/// The pages of one read that do not wait for one another are read concurrently, at most
/// [`MAX_IN_FLIGHT`] requests at a time (shared by the reader's clones).
#[derive(Debug, Clone)]
pub struct Reader<'a> {
    client: &'a Client,
    in_flight: Arc<Semaphore>,
}

impl<'a> Reader<'a> {
    /// A reader over `client`.
    pub fn new(client: &'a Client) -> Self {
        Self {
            client,
            in_flight: Arc::new(Semaphore::new(MAX_IN_FLIGHT)),
        }
    }

    /// Runs a page query: its data and the errors GitHub gave beside it, for the caller to sort
    /// ([`sort_errors`]). No data at all fails.
    async fn fetch<Q, V>(
        &self,
        op: cynic::Operation<Q, V>,
        what: &str,
    ) -> Result<(Q, Vec<ApiError>), ReadError>
    where
        Q: serde::de::DeserializeOwned,
        V: serde::Serialize,
    {
        // The semaphore is never closed; were it, the request would go without a permit.
        let _permit = self.in_flight.acquire().await.ok();
        let Response { data, errors } =
            self.client
                .run(&op, Repeat::Safe)
                .await
                .map_err(|source| ReadError::Request {
                    what: what.to_owned(),
                    source,
                })?;
        match data {
            Some(d) => Ok((d, errors)),
            None => Err(ReadError::Api {
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
        let what = format!("pull request {repo}#{number}");
        let first_page::FirstPage {
            page: first,
            errors,
            rollup_unknown,
        } = self
            .first_page(
                q::PullRequestVariables {
                    owner: repo.owner.clone(),
                    name: repo.name.clone(),
                    number: int_number,
                },
                &what,
            )
            .await?;
        self.count_points(first.rate_limit.as_ref());
        let partial = sort_errors(&errors, PR_FIELDS, true, &what)?;
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

        // The first pages of reviews and top-level comments, checked before anything else is
        // asked for.
        let reviews_first = head
            .reviews
            .map(|c| -> Result<_, ReadError> {
                Ok((
                    nodes(c.nodes, &what)?
                        .into_iter()
                        .map(review)
                        .collect::<Vec<_>>(),
                    next_cursor(&c.page_info),
                    count(c.total_count),
                ))
            })
            .transpose()?;
        let comments_first: Vec<IssueComment> = nodes(head.comments.nodes, &what)?
            .into_iter()
            .map(issue_comment)
            .collect();
        let first_threads = threads_of(head.review_threads.nodes, &partial, &what)?;

        // The three chains run together; the first failure fails the read and drops the rest.
        let reviews = async {
            let Some((mut reviews, next, total)) = reviews_first else {
                return Ok(Vec::new());
            };
            let (more, total) = self
                .rest_of(next, total, "a page of reviews", |after| {
                    self.reviews_page(repo_vars, after)
                })
                .await?;
            reviews.extend(more);
            check_total(reviews.len(), total, "the reviews")?;
            Ok(reviews)
        };
        let issue_comments = async {
            let mut issue_comments = comments_first;
            let (more, total) = self
                .rest_of(
                    next_cursor(&head.comments.page_info),
                    count(head.comments.total_count),
                    "a page of PR comments",
                    |after| self.comments_page(repo_vars, after),
                )
                .await?;
            issue_comments.extend(more);
            check_total(issue_comments.len(), total, "the PR comments")?;
            Ok(issue_comments)
        };
        let (threads, reviews, issue_comments) = futures::try_join!(
            self.all_threads(
                repo_vars,
                first_threads,
                next_cursor(&head.review_threads.page_info),
                count(head.review_threads.total_count),
            ),
            reviews,
            issue_comments,
        )?;

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
            draft: head.is_draft,
            mergeable: match head.mergeable {
                q::MergeableState::Conflicting => Some(Mergeable::Conflicting),
                q::MergeableState::Mergeable => Some(Mergeable::Mergeable),
                q::MergeableState::Unknown => None,
            },
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
            checks: if rollup_unknown {
                Some(ChecksState::Unknown)
            } else {
                head.status_check_rollup.map(|r| match r.state {
                    q::StatusState::Error => ChecksState::Error,
                    q::StatusState::Expected => ChecksState::Expected,
                    q::StatusState::Failure => ChecksState::Failure,
                    q::StatusState::Pending => ChecksState::Pending,
                    q::StatusState::Success => ChecksState::Success,
                })
            },
            reviews,
            comments: issue_comments,
            threads: threads.into_iter().map(|p| p.thread).collect(),
        })
    }

    /// The later pages of a connection, from the cursor `next` to its last page, one after
    /// another: each page's items and the connection's `totalCount` as that page gave it. A page
    /// that cannot be read ends the stream with its error, the request named `what`.
    fn pages<'s, T, F, Fut>(
        next: Option<String>,
        what: &'s str,
        page: F,
    ) -> impl Stream<Item = Result<(Vec<T>, usize), ReadError>> + 's
    where
        T: 's,
        F: FnMut(String) -> Fut + 's,
        Fut: Future<Output = Page<T>> + 's,
    {
        stream::try_unfold((next, page), move |(next, mut page)| async move {
            let Some(after) = next else {
                return Ok(None);
            };
            let (items, cursor, total) = page(after).await.map_err(|e| named(e, what))?;
            Ok(Some(((items, total), (cursor, page))))
        })
    }

    /// Follows a connection's cursors from `next` to its last page; returns the items and the
    /// connection's `totalCount` as the last page gave it (`total` is the first page's). A page
    /// that cannot be read fails the whole read: a shorter list would be a silent truncation.
    async fn rest_of<T, F, Fut>(
        &self,
        next: Option<String>,
        total: usize,
        what: &str,
        page: F,
    ) -> Result<(Vec<T>, usize), ReadError>
    where
        F: FnMut(String) -> Fut,
        Fut: Future<Output = Page<T>>,
    {
        Self::pages(next, what, page)
            .try_fold((Vec::new(), total), |(mut out, _), (items, total)| {
                out.extend(items);
                future::ready(Ok((out, total)))
            })
            .await
    }

    /// Every thread, in GitHub's order, each with all its comments: the thread pages after
    /// `first` one after another, and beside them each long thread's later comment pages, started
    /// as soon as the page that holds the thread has come. Fewer threads than GitHub's
    /// `totalCount` (`total`, then as the last page gave it) fail the read.
    async fn all_threads(
        &self,
        vars: RepoVars<'_>,
        first: Vec<PartThread>,
        next: Option<String>,
        total: usize,
    ) -> Result<Vec<PartThread>, ReadError> {
        let what = "a page of review threads";
        let total = AtomicUsize::new(total);
        let later = Self::pages(next, what, |after| self.threads_page(vars, after));
        let threads: Vec<PartThread> = stream::once(future::ready(Ok((first, 0))))
            .chain(later.map_ok(|(page, count)| {
                total.store(count, Ordering::Relaxed);
                (page, count)
            }))
            .map_ok(|(page, _)| {
                stream::iter(
                    page.into_iter()
                        .map(|part| Ok(async { Ok(self.finish(part).await) })),
                )
            })
            .try_flatten()
            // The requests are bounded by the reader's permits: the buffer only keeps the
            // threads in order while an earlier long thread is still being read, and never
            // holds up the next page of threads.
            .try_buffered(usize::MAX)
            .try_collect()
            .await?;
        check_total(
            threads.len(),
            total.load(Ordering::Relaxed),
            "the review threads",
        )?;
        Ok(threads)
    }

    /// The rest of a long thread, page by page. A page that fails, or leaves a comment out,
    /// leaves the thread marked partly read.
    async fn finish(&self, mut part: PartThread) -> PartThread {
        while !part.lost
            && let Some(after) = part.next.take()
        {
            match self.thread_comments(&part.thread.id, Some(after)).await {
                Ok(page) => {
                    part.thread.comments.extend(page.comments);
                    part.next = page.next;
                    part.lost = page.lost > 0;
                }
                Err(_) => part.lost = true,
            }
        }
        part.thread.all_comments_read = part.whole();
        part
    }

    async fn threads_page(&self, vars: RepoVars<'_>, after: String) -> Page<PartThread> {
        let what = "a page of review threads";
        let (page, errors) = self
            .fetch(q::ThreadsPage::build(vars.after(after)), what)
            .await?;
        self.count_points(page.rate_limit.as_ref());
        let partial = sort_errors(&errors, PR_FIELDS, true, what)?;
        let c = page
            .repository
            .and_then(|r| r.pull_request)
            .map(|p| p.review_threads)
            .ok_or_else(|| vanished(what))?;
        Ok((
            threads_of(c.nodes, &partial, what)?,
            next_cursor(&c.page_info),
            count(c.total_count),
        ))
    }

    async fn reviews_page(&self, vars: RepoVars<'_>, after: String) -> Page<Review> {
        let what = "a page of reviews";
        let (page, errors) = self
            .fetch(q::ReviewsPage::build(vars.after(after)), what)
            .await?;
        self.count_points(page.rate_limit.as_ref());
        sort_errors(&errors, PR_FIELDS, false, what)?;
        let c = page
            .repository
            .and_then(|r| r.pull_request)
            .and_then(|p| p.reviews)
            .ok_or_else(|| vanished(what))?;
        Ok((
            nodes(c.nodes, what)?.into_iter().map(review).collect(),
            next_cursor(&c.page_info),
            count(c.total_count),
        ))
    }

    async fn comments_page(&self, vars: RepoVars<'_>, after: String) -> Page<IssueComment> {
        let what = "a page of PR comments";
        let (page, errors) = self
            .fetch(q::IssueCommentsPage::build(vars.after(after)), what)
            .await?;
        self.count_points(page.rate_limit.as_ref());
        sort_errors(&errors, PR_FIELDS, false, what)?;
        let c = page
            .repository
            .and_then(|r| r.pull_request)
            .map(|p| p.comments)
            .ok_or_else(|| vanished(what))?;
        Ok((
            nodes(c.nodes, what)?
                .into_iter()
                .map(issue_comment)
                .collect(),
            next_cursor(&c.page_info),
            count(c.total_count),
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
        let what = format!("the base of {repo}#{number}");
        let (page, errors) = self
            .fetch(
                q::PullRequestBase::build(q::PullRequestVariables {
                    owner: repo.owner.clone(),
                    name: repo.name.clone(),
                    number: int_number,
                }),
                &what,
            )
            .await?;
        sort_errors(&errors, PR_FIELDS, false, &what)?;
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
        let (page, errors) = self
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
        // A commit or path GitHub does not have reads as no file.
        sort_errors(
            &errors,
            &[
                &["repository"],
                &["repository", "dir"],
                &["repository", "file"],
            ],
            false,
            &what,
        )?;
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
    ///
    /// A comment GitHub answered as `null`, or an error inside the thread, counts in
    /// [`CommentsPage::lost`]; an error elsewhere (but the thread's own `NOT_FOUND`, read as "no
    /// such review thread") fails the page ([`ReadError::Incomplete`]).
    pub async fn thread_comments(
        &self,
        thread: &ThreadId,
        after: Option<String>,
    ) -> Result<CommentsPage, ReadError> {
        let what = format!("the comments of thread {thread}");
        let (page, errors) = self
            .fetch(
                q::ThreadCommentsPage::build(q::ThreadCommentsVariables {
                    id: cynic::Id::new(&thread.0),
                    after,
                }),
                &what,
            )
            .await?;
        self.count_points(page.rate_limit.as_ref());
        // An error inside the thread (below `node`) leaves a comment unread; any other fails.
        let (inside, elsewhere): (Vec<ApiError>, Vec<ApiError>) = errors
            .into_iter()
            .partition(|e| e.path.as_deref().is_some_and(|p| p.len() > 1));
        sort_errors(&elsewhere, NODE_FIELD, false, &what)?;
        match page.node {
            Some(q::ThreadNode::PullRequestReviewThread(t)) => {
                let mut page = comments(t.comments);
                page.lost = page.lost.max(usize::from(!inside.is_empty()));
                Ok(page)
            }
            _ => Err(ReadError::Api {
                what,
                message: "no such review thread".to_owned(),
            }),
        }
    }
}
