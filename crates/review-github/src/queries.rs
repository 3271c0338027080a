//! The GraphQL operations review sends, typed with cynic and checked at compile time against the
//! schema subset in `schema/github.graphql`.
//!
//! Each operation's `operationName` is its struct name (`PullRequestFirstPage`, `ThreadsPage`,
//! ...), which is how the fake GitHub in `review-test-support` tells them apart.
//!
//! Page sizes are GitHub's maximum, 100: a PR of T threads is read in ceil(T/100) requests, plus
//! one per extra page of comments of a long thread, plus the extra pages of reviews and top-level
//! comments (their first pages ride in the first request).

#![allow(
    missing_docs,
    reason = "field names mirror GitHub's schema, documented there"
)]
#![allow(
    missing_debug_implementations,
    reason = "cynic generates marker types and variable field structs without Debug"
)]

#[cynic::schema("github")]
mod schema {}

/// An RFC 3339 time, as GitHub writes it.
#[derive(cynic::Scalar, Debug, Clone, PartialEq, Eq)]
pub struct DateTime(pub String);

/// A URL.
#[derive(cynic::Scalar, Debug, Clone, PartialEq, Eq)]
#[cynic(graphql_type = "URI")]
pub struct Uri(pub String);

/// A full commit id.
#[derive(cynic::Scalar, Debug, Clone, PartialEq, Eq)]
#[cynic(graphql_type = "GitObjectID")]
pub struct GitObjectId(pub String);

/// The page size of every connection.
pub const PAGE_SIZE: usize = 100;

// ---------------------------------------------------------------------------------------------
// Shared fragments.

#[derive(cynic::QueryFragment, Debug, Clone)]
#[cynic(graphql_type = "Actor")]
pub struct Actor {
    pub login: String,
    pub __typename: String,
}

#[derive(cynic::QueryFragment, Debug, Clone)]
pub struct PageInfo {
    pub has_next_page: bool,
    pub end_cursor: Option<String>,
}

#[derive(cynic::QueryFragment, Debug, Clone)]
pub struct RateLimit {
    pub cost: i32,
    pub remaining: i32,
    pub reset_at: DateTime,
}

#[derive(cynic::QueryFragment, Debug, Clone)]
#[cynic(graphql_type = "PullRequestReview")]
pub struct ReviewRef {
    pub id: cynic::Id,
}

#[derive(cynic::QueryFragment, Debug, Clone)]
#[cynic(graphql_type = "PullRequestReviewComment")]
pub struct ReviewComment {
    pub id: cynic::Id,
    pub author: Option<Actor>,
    pub author_association: CommentAuthorAssociation,
    pub body: String,
    pub created_at: DateTime,
    pub url: Uri,
    pub diff_hunk: String,
    pub pull_request_review: Option<ReviewRef>,
}

#[derive(cynic::QueryFragment, Debug, Clone)]
#[cynic(graphql_type = "PullRequestReviewCommentConnection")]
pub struct CommentConnection {
    pub nodes: Option<Vec<Option<ReviewComment>>>,
    pub page_info: PageInfo,
    pub total_count: i32,
}

#[derive(cynic::Enum, Debug, Clone, Copy, PartialEq, Eq)]
#[cynic(graphql_type = "PullRequestReviewThreadSubjectType")]
pub enum SubjectType {
    File,
    Line,
}

#[derive(cynic::QueryFragment, Debug, Clone)]
#[cynic(graphql_type = "PullRequestReviewThread")]
pub struct ReviewThread {
    pub id: cynic::Id,
    pub is_resolved: bool,
    pub is_outdated: bool,
    pub path: String,
    pub line: Option<i32>,
    pub start_line: Option<i32>,
    pub original_line: Option<i32>,
    pub original_start_line: Option<i32>,
    pub subject_type: SubjectType,
    #[arguments(first: 100)]
    pub comments: CommentConnection,
}

#[derive(cynic::QueryFragment, Debug, Clone)]
#[cynic(graphql_type = "PullRequestReviewThreadConnection")]
pub struct ThreadConnection {
    pub nodes: Option<Vec<Option<ReviewThread>>>,
    pub page_info: PageInfo,
    pub total_count: i32,
}

#[derive(cynic::Enum, Debug, Clone, Copy, PartialEq, Eq)]
#[cynic(graphql_type = "PullRequestReviewState")]
pub enum ReviewState {
    Approved,
    ChangesRequested,
    Commented,
    Dismissed,
    Pending,
}

#[derive(cynic::QueryFragment, Debug, Clone)]
pub struct Commit {
    pub oid: GitObjectId,
}

#[derive(cynic::QueryFragment, Debug, Clone)]
pub struct PullRequestReview {
    pub id: cynic::Id,
    pub author: Option<Actor>,
    pub state: ReviewState,
    pub body: String,
    pub submitted_at: Option<DateTime>,
    pub commit: Option<Commit>,
}

#[derive(cynic::QueryFragment, Debug, Clone)]
#[cynic(graphql_type = "PullRequestReviewConnection")]
pub struct ReviewConnection {
    pub nodes: Option<Vec<Option<PullRequestReview>>>,
    pub page_info: PageInfo,
    pub total_count: i32,
}

#[derive(cynic::QueryFragment, Debug, Clone)]
pub struct IssueComment {
    pub id: cynic::Id,
    pub author: Option<Actor>,
    pub author_association: CommentAuthorAssociation,
    pub body: String,
    pub created_at: DateTime,
    pub url: Uri,
}

/// How a comment's author is associated with the repository.
#[derive(cynic::Enum, Debug, Clone, Copy, PartialEq, Eq)]
pub enum CommentAuthorAssociation {
    Collaborator,
    Contributor,
    FirstTimer,
    FirstTimeContributor,
    Mannequin,
    Member,
    None,
    Owner,
}

#[derive(cynic::QueryFragment, Debug, Clone)]
pub struct IssueCommentConnection {
    pub nodes: Option<Vec<Option<IssueComment>>>,
    pub page_info: PageInfo,
    pub total_count: i32,
}

#[derive(cynic::Enum, Debug, Clone, Copy, PartialEq, Eq)]
pub enum PullRequestState {
    Closed,
    Merged,
    Open,
}

/// Whether the pull request merges cleanly (`Unknown` while GitHub computes it).
#[derive(cynic::Enum, Debug, Clone, Copy, PartialEq, Eq)]
pub enum MergeableState {
    Conflicting,
    Mergeable,
    Unknown,
}

#[derive(cynic::Enum, Debug, Clone, Copy, PartialEq, Eq)]
pub enum StatusState {
    Error,
    Expected,
    Failure,
    Pending,
    Success,
}

#[derive(cynic::QueryFragment, Debug, Clone)]
#[cynic(graphql_type = "StatusCheckRollup")]
pub struct CheckRollup {
    pub state: StatusState,
}

// ---------------------------------------------------------------------------------------------
// PullRequestFirstPage: the PR, and the first page of threads, reviews and comments.

#[derive(cynic::QueryVariables, Debug, Clone)]
pub struct PullRequestVariables {
    pub owner: String,
    pub name: String,
    pub number: i32,
}

#[derive(cynic::QueryFragment, Debug)]
#[cynic(graphql_type = "Query", variables = "PullRequestVariables")]
pub struct PullRequestFirstPage {
    #[arguments(owner: $owner, name: $name)]
    pub repository: Option<RepositoryWithPullRequest>,
    pub rate_limit: Option<RateLimit>,
    pub viewer: Viewer,
}

/// The account the token belongs to.
#[derive(cynic::QueryFragment, Debug, Clone)]
#[cynic(graphql_type = "User")]
pub struct Viewer {
    pub login: String,
}

#[derive(cynic::QueryFragment, Debug, Clone)]
#[cynic(graphql_type = "Repository")]
pub struct RepositoryName {
    pub name_with_owner: String,
}

#[derive(cynic::QueryFragment, Debug)]
#[cynic(graphql_type = "Repository", variables = "PullRequestVariables")]
pub struct RepositoryWithPullRequest {
    #[arguments(number: $number)]
    pub pull_request: Option<PullRequestHead>,
}

#[derive(cynic::QueryFragment, Debug)]
#[cynic(graphql_type = "PullRequest")]
pub struct PullRequestHead {
    pub id: cynic::Id,
    pub number: i32,
    pub title: String,
    pub url: Uri,
    pub state: PullRequestState,
    pub is_draft: bool,
    pub mergeable: MergeableState,
    pub head_ref_name: String,
    pub head_ref_oid: GitObjectId,
    pub base_ref_name: String,
    pub base_ref_oid: GitObjectId,
    pub head_repository: Option<RepositoryName>,
    pub is_cross_repository: bool,
    pub author: Option<Actor>,
    pub status_check_rollup: Option<CheckRollup>,
    #[arguments(first: 100)]
    pub review_threads: ThreadConnection,
    #[arguments(first: 100)]
    pub reviews: Option<ReviewConnection>,
    #[arguments(first: 100)]
    pub comments: IssueCommentConnection,
}

/// [`PullRequestFirstPage`] for a server whose API lacks `PullRequest.statusCheckRollup` (an
/// older GitHub Enterprise Server): the same selection without it.
#[derive(cynic::QueryFragment, Debug)]
#[cynic(graphql_type = "Query", variables = "PullRequestVariables")]
pub struct PullRequestFirstPageWithoutChecks {
    #[arguments(owner: $owner, name: $name)]
    pub repository: Option<RepositoryWithPullRequestWithoutChecks>,
    pub rate_limit: Option<RateLimit>,
    pub viewer: Viewer,
}

#[derive(cynic::QueryFragment, Debug)]
#[cynic(graphql_type = "Repository", variables = "PullRequestVariables")]
pub struct RepositoryWithPullRequestWithoutChecks {
    #[arguments(number: $number)]
    pub pull_request: Option<PullRequestHeadWithoutChecks>,
}

#[derive(cynic::QueryFragment, Debug)]
#[cynic(graphql_type = "PullRequest")]
pub struct PullRequestHeadWithoutChecks {
    pub id: cynic::Id,
    pub number: i32,
    pub title: String,
    pub url: Uri,
    pub state: PullRequestState,
    pub is_draft: bool,
    pub mergeable: MergeableState,
    pub head_ref_name: String,
    pub head_ref_oid: GitObjectId,
    pub base_ref_name: String,
    pub base_ref_oid: GitObjectId,
    pub head_repository: Option<RepositoryName>,
    pub is_cross_repository: bool,
    pub author: Option<Actor>,
    #[arguments(first: 100)]
    pub review_threads: ThreadConnection,
    #[arguments(first: 100)]
    pub reviews: Option<ReviewConnection>,
    #[arguments(first: 100)]
    pub comments: IssueCommentConnection,
}

/// The page as [`PullRequestFirstPage`], its roll-up absent (the reader marks it unknown).
impl From<PullRequestFirstPageWithoutChecks> for PullRequestFirstPage {
    fn from(page: PullRequestFirstPageWithoutChecks) -> Self {
        let head = |h: PullRequestHeadWithoutChecks| PullRequestHead {
            id: h.id,
            number: h.number,
            title: h.title,
            url: h.url,
            state: h.state,
            is_draft: h.is_draft,
            mergeable: h.mergeable,
            head_ref_name: h.head_ref_name,
            head_ref_oid: h.head_ref_oid,
            base_ref_name: h.base_ref_name,
            base_ref_oid: h.base_ref_oid,
            head_repository: h.head_repository,
            is_cross_repository: h.is_cross_repository,
            author: h.author,
            status_check_rollup: None,
            review_threads: h.review_threads,
            reviews: h.reviews,
            comments: h.comments,
        };
        Self {
            repository: page.repository.map(|r| RepositoryWithPullRequest {
                pull_request: r.pull_request.map(head),
            }),
            rate_limit: page.rate_limit,
            viewer: page.viewer,
        }
    }
}

// ---------------------------------------------------------------------------------------------
// ThreadsPage, ReviewsPage, IssueCommentsPage: the later pages of each connection.

#[derive(cynic::QueryVariables, Debug, Clone)]
pub struct PageVariables {
    pub owner: String,
    pub name: String,
    pub number: i32,
    pub after: String,
}

#[derive(cynic::QueryFragment, Debug)]
#[cynic(graphql_type = "Query", variables = "PageVariables")]
pub struct ThreadsPage {
    #[arguments(owner: $owner, name: $name)]
    pub repository: Option<RepositoryThreads>,
    pub rate_limit: Option<RateLimit>,
}

#[derive(cynic::QueryFragment, Debug)]
#[cynic(graphql_type = "Repository", variables = "PageVariables")]
pub struct RepositoryThreads {
    #[arguments(number: $number)]
    pub pull_request: Option<PullRequestThreads>,
}

#[derive(cynic::QueryFragment, Debug)]
#[cynic(graphql_type = "PullRequest", variables = "PageVariables")]
pub struct PullRequestThreads {
    #[arguments(first: 100, after: $after)]
    pub review_threads: ThreadConnection,
}

#[derive(cynic::QueryFragment, Debug)]
#[cynic(graphql_type = "Query", variables = "PageVariables")]
pub struct ReviewsPage {
    #[arguments(owner: $owner, name: $name)]
    pub repository: Option<RepositoryReviews>,
    pub rate_limit: Option<RateLimit>,
}

#[derive(cynic::QueryFragment, Debug)]
#[cynic(graphql_type = "Repository", variables = "PageVariables")]
pub struct RepositoryReviews {
    #[arguments(number: $number)]
    pub pull_request: Option<PullRequestReviews>,
}

#[derive(cynic::QueryFragment, Debug)]
#[cynic(graphql_type = "PullRequest", variables = "PageVariables")]
pub struct PullRequestReviews {
    #[arguments(first: 100, after: $after)]
    pub reviews: Option<ReviewConnection>,
}

#[derive(cynic::QueryFragment, Debug)]
#[cynic(graphql_type = "Query", variables = "PageVariables")]
pub struct IssueCommentsPage {
    #[arguments(owner: $owner, name: $name)]
    pub repository: Option<RepositoryIssueComments>,
    pub rate_limit: Option<RateLimit>,
}

#[derive(cynic::QueryFragment, Debug)]
#[cynic(graphql_type = "Repository", variables = "PageVariables")]
pub struct RepositoryIssueComments {
    #[arguments(number: $number)]
    pub pull_request: Option<PullRequestIssueComments>,
}

#[derive(cynic::QueryFragment, Debug)]
#[cynic(graphql_type = "PullRequest", variables = "PageVariables")]
pub struct PullRequestIssueComments {
    #[arguments(first: 100, after: $after)]
    pub comments: IssueCommentConnection,
}

// ---------------------------------------------------------------------------------------------
// ThreadCommentsPage: the later comments of one long thread, through `node(id:)`.

#[derive(cynic::QueryVariables, Debug, Clone)]
pub struct ThreadCommentsVariables {
    pub id: cynic::Id,
    /// `None` reads from the first comment (to check whether a post landed).
    pub after: Option<String>,
}

#[derive(cynic::QueryFragment, Debug)]
#[cynic(graphql_type = "Query", variables = "ThreadCommentsVariables")]
pub struct ThreadCommentsPage {
    #[arguments(id: $id)]
    pub node: Option<ThreadNode>,
    pub rate_limit: Option<RateLimit>,
}

#[derive(cynic::InlineFragments, Debug)]
#[cynic(graphql_type = "Node", variables = "ThreadCommentsVariables")]
pub enum ThreadNode {
    PullRequestReviewThread(ThreadComments),
    #[cynic(fallback)]
    Other,
}

#[derive(cynic::QueryFragment, Debug)]
#[cynic(
    graphql_type = "PullRequestReviewThread",
    variables = "ThreadCommentsVariables"
)]
pub struct ThreadComments {
    #[arguments(first: 100, after: $after)]
    pub comments: CommentConnection,
}

// ---------------------------------------------------------------------------------------------
// PullRequestBase: the commit a pull request is compared with.

#[derive(cynic::QueryFragment, Debug)]
#[cynic(graphql_type = "Query", variables = "PullRequestVariables")]
pub struct PullRequestBase {
    #[arguments(owner: $owner, name: $name)]
    pub repository: Option<RepositoryPullRequestBase>,
    pub rate_limit: Option<RateLimit>,
}

#[derive(cynic::QueryFragment, Debug)]
#[cynic(graphql_type = "Repository", variables = "PullRequestVariables")]
pub struct RepositoryPullRequestBase {
    #[arguments(number: $number)]
    pub pull_request: Option<BaseOid>,
}

#[derive(cynic::QueryFragment, Debug)]
#[cynic(graphql_type = "PullRequest")]
pub struct BaseOid {
    pub base_ref_oid: GitObjectId,
}

// ---------------------------------------------------------------------------------------------
// RepositoryFile: one file of a commit, with its directory's entries (to see its mode: a
// symbolic link is refused, not followed).

#[derive(cynic::QueryVariables, Debug, Clone)]
pub struct RepositoryFileVariables {
    pub owner: String,
    pub name: String,
    /// `COMMIT:DIR`, the directory holding the file.
    pub dir: String,
    /// `COMMIT:DIR/FILE`.
    pub file: String,
}

#[derive(cynic::QueryFragment, Debug)]
#[cynic(graphql_type = "Query", variables = "RepositoryFileVariables")]
pub struct RepositoryFile {
    #[arguments(owner: $owner, name: $name)]
    pub repository: Option<RepositoryObjects>,
    pub rate_limit: Option<RateLimit>,
}

#[derive(cynic::QueryFragment, Debug)]
#[cynic(graphql_type = "Repository", variables = "RepositoryFileVariables")]
pub struct RepositoryObjects {
    #[arguments(expression: $dir)]
    #[cynic(alias, rename = "object")]
    pub dir: Option<DirObject>,
    #[arguments(expression: $file)]
    #[cynic(alias, rename = "object")]
    pub file: Option<FileObject>,
}

#[derive(cynic::InlineFragments, Debug)]
#[cynic(graphql_type = "GitObject")]
pub enum DirObject {
    Tree(TreeEntries),
    #[cynic(fallback)]
    Other,
}

#[derive(cynic::QueryFragment, Debug)]
#[cynic(graphql_type = "Tree")]
pub struct TreeEntries {
    pub entries: Option<Vec<TreeEntry>>,
}

#[derive(cynic::QueryFragment, Debug)]
pub struct TreeEntry {
    pub name: String,
    pub mode: i32,
    #[cynic(rename = "type")]
    pub kind: String,
    pub size: i32,
}

#[derive(cynic::InlineFragments, Debug)]
#[cynic(graphql_type = "GitObject")]
pub enum FileObject {
    Blob(BlobText),
    #[cynic(fallback)]
    Other,
}

#[derive(cynic::QueryFragment, Debug)]
#[cynic(graphql_type = "Blob")]
pub struct BlobText {
    pub byte_size: i32,
    pub is_binary: Option<bool>,
    pub is_truncated: bool,
    pub text: Option<String>,
}

// ---------------------------------------------------------------------------------------------
// Mutations. Resolves are batched under aliases (see `batch`); the single operations here are the
// typed, schema-checked source the batches are made from.

#[derive(cynic::QueryVariables, Debug, Clone)]
pub struct ThreadVariables {
    pub thread_id: cynic::Id,
}

#[derive(cynic::QueryFragment, Debug, Clone)]
#[cynic(graphql_type = "PullRequestReviewThread")]
pub struct ThreadState {
    pub id: cynic::Id,
    pub is_resolved: bool,
}

#[derive(cynic::QueryFragment, Debug)]
#[cynic(graphql_type = "ResolveReviewThreadPayload")]
pub struct ResolvePayload {
    pub thread: Option<ThreadState>,
}

#[derive(cynic::QueryFragment, Debug)]
#[cynic(graphql_type = "Mutation", variables = "ThreadVariables")]
pub struct ResolveThread {
    #[arguments(input: { threadId: $thread_id })]
    pub resolve_review_thread: Option<ResolvePayload>,
}

#[derive(cynic::QueryFragment, Debug)]
#[cynic(graphql_type = "UnresolveReviewThreadPayload")]
pub struct UnresolvePayload {
    pub thread: Option<ThreadState>,
}

#[derive(cynic::QueryFragment, Debug)]
#[cynic(graphql_type = "Mutation", variables = "ThreadVariables")]
pub struct UnresolveThread {
    #[arguments(input: { threadId: $thread_id })]
    pub unresolve_review_thread: Option<UnresolvePayload>,
}

#[derive(cynic::QueryVariables, Debug, Clone)]
pub struct ReplyVariables {
    pub thread_id: cynic::Id,
    pub body: String,
}

#[derive(cynic::QueryFragment, Debug)]
#[cynic(graphql_type = "PullRequestReviewComment")]
pub struct PostedReply {
    pub id: cynic::Id,
    pub url: Uri,
}

#[derive(cynic::QueryFragment, Debug)]
#[cynic(graphql_type = "AddPullRequestReviewThreadReplyPayload")]
pub struct ReplyPayload {
    pub comment: Option<PostedReply>,
}

#[derive(cynic::QueryFragment, Debug)]
#[cynic(graphql_type = "Mutation", variables = "ReplyVariables")]
pub struct AddThreadReply {
    #[arguments(input: { pullRequestReviewThreadId: $thread_id, body: $body })]
    pub add_pull_request_review_thread_reply: Option<ReplyPayload>,
}

#[derive(cynic::QueryVariables, Debug, Clone)]
pub struct CommentVariables {
    pub subject_id: cynic::Id,
    pub body: String,
}

#[derive(cynic::QueryFragment, Debug)]
#[cynic(graphql_type = "IssueComment")]
pub struct PostedComment {
    pub id: cynic::Id,
    pub url: Uri,
}

#[derive(cynic::QueryFragment, Debug)]
#[cynic(graphql_type = "IssueCommentEdge")]
pub struct PostedCommentEdge {
    pub node: Option<PostedComment>,
}

#[derive(cynic::QueryFragment, Debug)]
#[cynic(graphql_type = "AddCommentPayload")]
pub struct CommentPayload {
    pub comment_edge: Option<PostedCommentEdge>,
}

#[derive(cynic::QueryFragment, Debug)]
#[cynic(graphql_type = "Mutation", variables = "CommentVariables")]
pub struct AddPrComment {
    #[arguments(input: { subjectId: $subject_id, body: $body })]
    pub add_comment: Option<CommentPayload>,
}

#[derive(cynic::QueryVariables, Debug, Clone)]
pub struct RequestReviewVariables {
    pub pull_request_id: cynic::Id,
    pub bot_logins: Option<Vec<String>>,
}

#[derive(cynic::QueryFragment, Debug)]
#[cynic(graphql_type = "PullRequest")]
pub struct RequestedOn {
    pub id: cynic::Id,
}

#[derive(cynic::QueryFragment, Debug)]
#[cynic(graphql_type = "RequestReviewsByLoginPayload")]
pub struct RequestReviewsPayload {
    pub pull_request: Option<RequestedOn>,
}

/// A review requested from bots, added to the reviewers already requested.
#[derive(cynic::QueryFragment, Debug)]
#[cynic(graphql_type = "Mutation", variables = "RequestReviewVariables")]
pub struct RequestReviewsByLogin {
    #[arguments(input: { pullRequestId: $pull_request_id, botLogins: $bot_logins, union: true })]
    pub request_reviews_by_login: Option<RequestReviewsPayload>,
}

#[derive(cynic::Enum, Debug, Clone, Copy, PartialEq, Eq)]
pub enum ReportedContentClassifiers {
    Abuse,
    Duplicate,
    OffTopic,
    Outdated,
    Resolved,
    Spam,
}

#[derive(cynic::QueryVariables, Debug, Clone)]
pub struct MinimizeVariables {
    pub subject_id: cynic::Id,
    pub classifier: ReportedContentClassifiers,
}

#[derive(cynic::QueryFragment, Debug)]
#[cynic(graphql_type = "Minimizable")]
pub struct MinimizedState {
    pub is_minimized: bool,
}

#[derive(cynic::QueryFragment, Debug)]
#[cynic(graphql_type = "MinimizeCommentPayload")]
pub struct MinimizePayload {
    pub minimized_comment: Option<MinimizedState>,
}

#[derive(cynic::QueryFragment, Debug)]
#[cynic(graphql_type = "Mutation", variables = "MinimizeVariables")]
pub struct MinimizeComment {
    #[arguments(input: { subjectId: $subject_id, classifier: $classifier })]
    pub minimize_comment: Option<MinimizePayload>,
}

// ---------------------------------------------------------------------------------------------
// OpenPullRequestsForBranch: the open PRs whose head is a branch (forks share branch names: the
// caller compares the head repository's owner).

#[derive(cynic::QueryVariables, Debug, Clone)]
pub struct BranchVariables {
    pub owner: String,
    pub name: String,
    pub head_ref_name: String,
}

#[derive(cynic::QueryFragment, Debug)]
#[cynic(graphql_type = "Query", variables = "BranchVariables")]
pub struct OpenPullRequestsForBranch {
    #[arguments(owner: $owner, name: $name)]
    pub repository: Option<RepositoryBranchPulls>,
}

#[derive(cynic::QueryFragment, Debug)]
#[cynic(graphql_type = "Repository", variables = "BranchVariables")]
pub struct RepositoryBranchPulls {
    pub default_branch_ref: Option<BranchRef>,
    #[arguments(headRefName: $head_ref_name, states: [OPEN], first: 20)]
    pub pull_requests: BranchPullConnection,
}

#[derive(cynic::QueryFragment, Debug)]
#[cynic(graphql_type = "Ref")]
pub struct BranchRef {
    pub name: String,
}

#[derive(cynic::QueryFragment, Debug)]
#[cynic(graphql_type = "PullRequestConnection")]
pub struct BranchPullConnection {
    pub nodes: Option<Vec<Option<BranchPull>>>,
}

#[derive(cynic::QueryFragment, Debug)]
#[cynic(graphql_type = "PullRequest")]
pub struct BranchPull {
    pub number: i32,
    pub title: String,
    pub url: Uri,
    pub head_repository_owner: Option<Owner>,
}

#[derive(cynic::QueryFragment, Debug)]
#[cynic(graphql_type = "RepositoryOwner")]
pub struct Owner {
    pub login: String,
}

// ---------------------------------------------------------------------------------------------
// ViewerPendingReview: a reply posted while the viewer has a draft review vanishes into the
// draft. Pending reviews are visible only to their author, so any returned is the viewer's.

#[derive(cynic::QueryFragment, Debug)]
#[cynic(graphql_type = "Query", variables = "PullRequestVariables")]
pub struct ViewerPendingReview {
    #[arguments(owner: $owner, name: $name)]
    pub repository: Option<RepositoryPending>,
}

#[derive(cynic::QueryFragment, Debug)]
#[cynic(graphql_type = "Repository", variables = "PullRequestVariables")]
pub struct RepositoryPending {
    #[arguments(number: $number)]
    pub pull_request: Option<PullRequestPending>,
}

#[derive(cynic::QueryFragment, Debug)]
#[cynic(graphql_type = "PullRequest")]
pub struct PullRequestPending {
    #[arguments(states: [PENDING], first: 1)]
    pub reviews: Option<PendingConnection>,
}

#[derive(cynic::QueryFragment, Debug)]
#[cynic(graphql_type = "PullRequestReviewConnection")]
pub struct PendingConnection {
    pub nodes: Option<Vec<Option<ReviewRef>>>,
}

// ---------------------------------------------------------------------------------------------
// Batches: several copies of one typed mutation in one document, under aliases `r0`, `r1`, ...,
// each with its own variables (`threadId0`, `threadId1`, ...). GitHub runs them in order and
// names a failing alias in the error's `path`, so one bad id never hides the others' results.

/// Builds a document that runs `single` (a one-field mutation built by cynic, so checked against
/// the schema) `count` times under the aliases `r0..r{count-1}`, named `name`. Each variable `$v`
/// of `single` becomes `$v0`, `$v1`, ...; returns `None` if `single` is not of that shape.
pub fn batch_document(single: &str, name: &str, count: usize) -> Option<String> {
    let open = single.find('(')?;
    let close = open + single.get(open..)?.find(')')?;
    let decls: Vec<(&str, &str)> = single
        .get(open + 1..close)?
        .split(',')
        .map(|d| {
            let (var, ty) = d.split_once(':')?;
            Some((var.trim().strip_prefix('$')?, ty.trim()))
        })
        .collect::<Option<_>>()?;
    let body_start = close + single.get(close..)?.find('{')? + 1;
    let body_end = single.rfind('}')?;
    let body = single.get(body_start..body_end)?.trim();
    let mut header = Vec::new();
    let mut fields = Vec::new();
    for i in 0..count {
        let mut field = body.to_owned();
        for (var, ty) in &decls {
            header.push(format!("${var}{i}: {ty}"));
            field = replace_variable(&field, var, &format!("{var}{i}"));
        }
        fields.push(format!("  r{i}: {field}"));
    }
    Some(format!(
        "mutation {name}({}) {{\n{}\n}}\n",
        header.join(", "),
        fields.join("\n")
    ))
}

/// Replaces `$var` (as a whole name) with `$new` in `text`.
fn replace_variable(text: &str, var: &str, new: &str) -> String {
    let needle = format!("${var}");
    let mut out = String::with_capacity(text.len() + 8);
    let mut rest = text;
    while let Some(at) = rest.find(&needle) {
        let after = rest.get(at + needle.len()..).unwrap_or("");
        out.push_str(rest.get(..at).unwrap_or(""));
        if after.starts_with(|c: char| c.is_alphanumeric() || c == '_') {
            out.push_str(&needle);
        } else {
            out.push('$');
            out.push_str(new);
        }
        rest = after;
    }
    out.push_str(rest);
    out
}

#[cfg(test)]
mod tests {
    use cynic::{MutationBuilder, QueryBuilder};

    use super::*;

    /// The documents sent, printed, so a change to what is asked of GitHub shows in review.
    #[test]
    fn operation_names_are_the_struct_names() {
        let op = PullRequestFirstPage::build(PullRequestVariables {
            owner: "o".into(),
            name: "n".into(),
            number: 1,
        });
        assert_eq!(op.operation_name.as_deref(), Some("PullRequestFirstPage"));
        assert!(
            op.query.contains("reviewThreads(first: 100)"),
            "{}",
            op.query
        );
        let op = ThreadCommentsPage::build(ThreadCommentsVariables {
            id: cynic::Id::new("PRRT_1"),
            after: Some("c".into()),
        });
        assert!(
            op.query.contains("... on PullRequestReviewThread"),
            "{}",
            op.query
        );
        let op = ResolveThread::build(ThreadVariables {
            thread_id: cynic::Id::new("PRRT_1"),
        });
        assert_eq!(op.operation_name.as_deref(), Some("ResolveThread"));
    }

    #[test]
    fn batches_alias_each_copy_with_its_own_variables() {
        let single = ResolveThread::build(ThreadVariables {
            thread_id: cynic::Id::new("x"),
        })
        .query;
        let doc = batch_document(&single, "ResolveThreads", 2).unwrap();
        assert!(
            doc.starts_with("mutation ResolveThreads($threadId0: ID!, $threadId1: ID!) {"),
            "{doc}"
        );
        assert!(
            doc.contains("r0: resolveReviewThread(input: {threadId: $threadId0})"),
            "{doc}"
        );
        assert!(
            doc.contains("r1: resolveReviewThread(input: {threadId: $threadId1})"),
            "{doc}"
        );
        let minimize = MinimizeComment::build(MinimizeVariables {
            subject_id: cynic::Id::new("x"),
            classifier: ReportedContentClassifiers::Resolved,
        })
        .query;
        let doc = batch_document(&minimize, "MinimizeComments", 1).unwrap();
        assert!(
            doc.contains("$subjectId0: ID!, $classifier0: ReportedContentClassifiers!"),
            "{doc}"
        );
        assert_eq!(replace_variable("$a $ab $a,", "a", "a7"), "$a7 $ab $a7,");
    }
}
#[cfg(test)]
mod print_docs {
    use cynic::{MutationBuilder, QueryBuilder};

    use super::*;

    #[test]
    fn print_all() {
        let pv = || PageVariables {
            owner: "o".into(),
            name: "n".into(),
            number: 1,
            after: "c".into(),
        };
        for q in [
            PullRequestFirstPage::build(PullRequestVariables {
                owner: "o".into(),
                name: "n".into(),
                number: 1,
            })
            .query,
            ThreadsPage::build(pv()).query,
            ReviewsPage::build(pv()).query,
            IssueCommentsPage::build(pv()).query,
            ThreadCommentsPage::build(ThreadCommentsVariables {
                id: cynic::Id::new("x"),
                after: Some("c".into()),
            })
            .query,
            ResolveThread::build(ThreadVariables {
                thread_id: cynic::Id::new("x"),
            })
            .query,
            UnresolveThread::build(ThreadVariables {
                thread_id: cynic::Id::new("x"),
            })
            .query,
            AddThreadReply::build(ReplyVariables {
                thread_id: cynic::Id::new("x"),
                body: "b".into(),
            })
            .query,
            OpenPullRequestsForBranch::build(BranchVariables {
                owner: "o".into(),
                name: "n".into(),
                head_ref_name: "b".into(),
            })
            .query,
            ViewerPendingReview::build(PullRequestVariables {
                owner: "o".into(),
                name: "n".into(),
                number: 1,
            })
            .query,
            MinimizeComment::build(MinimizeVariables {
                subject_id: cynic::Id::new("x"),
                classifier: ReportedContentClassifiers::Resolved,
            })
            .query,
        ] {
            println!("{q}\n----");
        }
    }
}
