//! The slice of GitHub's GraphQL schema the fake serves: the types, fields, arguments and
//! nullability of everything a review client reads or writes. A field outside this slice is
//! refused as GitHub refuses an unknown field, with a message that says the fake does not serve
//! it, so a test never passes on data GitHub would not have sent.

use super::document::TypeRef;

/// A field of an object or interface type.
#[derive(Debug)]
pub(crate) struct FieldDef {
    pub name: &'static str,
    /// The type, in SDL notation.
    pub ty: &'static str,
    /// `(name, type)` of each argument, in SDL notation.
    pub args: &'static [(&'static str, &'static str)],
}

impl FieldDef {
    /// The field's type, parsed.
    pub fn type_ref(&self) -> TypeRef {
        TypeRef::parse(self.ty).unwrap_or_else(|| TypeRef::Named(self.ty.to_owned()))
    }
}

/// What kind of type a name is.
#[derive(Debug)]
pub(crate) enum Kind {
    Object(&'static [FieldDef]),
    Interface(&'static [FieldDef]),
    Scalar,
    Enum(&'static [&'static str]),
    Input(&'static [(&'static str, &'static str)]),
}

const fn f(name: &'static str, ty: &'static str) -> FieldDef {
    FieldDef {
        name,
        ty,
        args: &[],
    }
}

const fn fa(
    name: &'static str,
    ty: &'static str,
    args: &'static [(&'static str, &'static str)],
) -> FieldDef {
    FieldDef { name, ty, args }
}

const PAGE: &[(&str, &str)] = &[
    ("after", "String"),
    ("before", "String"),
    ("first", "Int"),
    ("last", "Int"),
];

const QUERY: &[FieldDef] = &[
    fa(
        "repository",
        "Repository",
        &[
            ("owner", "String!"),
            ("name", "String!"),
            ("followRenames", "Boolean"),
        ],
    ),
    fa("node", "Node", &[("id", "ID!")]),
    fa("rateLimit", "RateLimit", &[("dryRun", "Boolean")]),
    f("viewer", "User!"),
];

const MUTATION: &[FieldDef] = &[
    fa(
        "resolveReviewThread",
        "ResolveReviewThreadPayload",
        &[("input", "ResolveReviewThreadInput!")],
    ),
    fa(
        "unresolveReviewThread",
        "UnresolveReviewThreadPayload",
        &[("input", "UnresolveReviewThreadInput!")],
    ),
    fa(
        "addPullRequestReviewThreadReply",
        "AddPullRequestReviewThreadReplyPayload",
        &[("input", "AddPullRequestReviewThreadReplyInput!")],
    ),
    fa(
        "minimizeComment",
        "MinimizeCommentPayload",
        &[("input", "MinimizeCommentInput!")],
    ),
    fa(
        "addComment",
        "AddCommentPayload",
        &[("input", "AddCommentInput!")],
    ),
    fa(
        "requestReviewsByLogin",
        "RequestReviewsByLoginPayload",
        &[("input", "RequestReviewsByLoginInput!")],
    ),
];

const REPOSITORY: &[FieldDef] = &[
    f("id", "ID!"),
    f("name", "String!"),
    f("nameWithOwner", "String!"),
    f("url", "URI!"),
    f("owner", "RepositoryOwner!"),
    f("defaultBranchRef", "Ref"),
    fa(
        "object",
        "GitObject",
        &[("expression", "String"), ("oid", "GitObjectID")],
    ),
    fa("pullRequest", "PullRequest", &[("number", "Int!")]),
    fa(
        "pullRequests",
        "PullRequestConnection!",
        &[
            ("after", "String"),
            ("before", "String"),
            ("first", "Int"),
            ("last", "Int"),
            ("headRefName", "String"),
            ("baseRefName", "String"),
            ("states", "[PullRequestState!]"),
        ],
    ),
];

const PULL_REQUEST: &[FieldDef] = &[
    f("id", "ID!"),
    f("number", "Int!"),
    f("title", "String!"),
    f("body", "String!"),
    f("url", "URI!"),
    f("state", "PullRequestState!"),
    f("isDraft", "Boolean!"),
    f("mergeable", "MergeableState!"),
    f("headRefName", "String!"),
    f("headRefOid", "GitObjectID!"),
    f("baseRefName", "String!"),
    f("baseRefOid", "GitObjectID!"),
    f("author", "Actor"),
    f("headRepositoryOwner", "RepositoryOwner"),
    f("headRepository", "Repository"),
    f("isCrossRepository", "Boolean!"),
    f("statusCheckRollup", "StatusCheckRollup"),
    f("repository", "Repository!"),
    fa("reviewThreads", "PullRequestReviewThreadConnection!", PAGE),
    fa(
        "reviews",
        "PullRequestReviewConnection",
        &[
            ("after", "String"),
            ("before", "String"),
            ("first", "Int"),
            ("last", "Int"),
            ("author", "String"),
            ("states", "[PullRequestReviewState!]"),
        ],
    ),
    fa("comments", "IssueCommentConnection!", PAGE),
];

const THREAD: &[FieldDef] = &[
    f("id", "ID!"),
    f("isResolved", "Boolean!"),
    f("isOutdated", "Boolean!"),
    f("isCollapsed", "Boolean!"),
    f("path", "String!"),
    f("line", "Int"),
    f("startLine", "Int"),
    f("originalLine", "Int"),
    f("originalStartLine", "Int"),
    f("diffSide", "DiffSide!"),
    f("subjectType", "PullRequestReviewThreadSubjectType!"),
    f("viewerCanReply", "Boolean!"),
    f("viewerCanResolve", "Boolean!"),
    f("viewerCanUnresolve", "Boolean!"),
    fa("comments", "PullRequestReviewCommentConnection!", PAGE),
    f("pullRequest", "PullRequest!"),
    f("repository", "Repository!"),
];

const REVIEW_COMMENT: &[FieldDef] = &[
    f("id", "ID!"),
    f("author", "Actor"),
    f("authorAssociation", "CommentAuthorAssociation!"),
    f("body", "String!"),
    f("createdAt", "DateTime!"),
    f("url", "URI!"),
    f("diffHunk", "String!"),
    f("path", "String!"),
    f("outdated", "Boolean!"),
    f("pullRequestReview", "PullRequestReview"),
    f("isMinimized", "Boolean!"),
    f("minimizedReason", "String"),
];

const REVIEW: &[FieldDef] = &[
    f("id", "ID!"),
    f("author", "Actor"),
    f("state", "PullRequestReviewState!"),
    f("body", "String!"),
    f("submittedAt", "DateTime"),
    f("commit", "Commit"),
];

const ISSUE_COMMENT: &[FieldDef] = &[
    f("id", "ID!"),
    f("author", "Actor"),
    f("authorAssociation", "CommentAuthorAssociation!"),
    f("body", "String!"),
    f("createdAt", "DateTime!"),
    f("url", "URI!"),
    f("isMinimized", "Boolean!"),
    f("minimizedReason", "String"),
];

const ACTOR: &[FieldDef] = &[f("login", "String!")];
const OWNER: &[FieldDef] = &[f("login", "String!")];
const NODE: &[FieldDef] = &[f("id", "ID!")];
const MINIMIZABLE: &[FieldDef] = &[f("isMinimized", "Boolean!"), f("minimizedReason", "String")];

const COMMIT: &[FieldDef] = &[f("oid", "GitObjectID!")];
const GIT_OBJECT: &[FieldDef] = &[f("id", "ID!"), f("oid", "GitObjectID!")];
const TREE: &[FieldDef] = &[
    f("id", "ID!"),
    f("oid", "GitObjectID!"),
    f("entries", "[TreeEntry!]"),
];
const TREE_ENTRY: &[FieldDef] = &[
    f("name", "String!"),
    f("mode", "Int!"),
    f("type", "String!"),
    f("size", "Int!"),
];
const BLOB: &[FieldDef] = &[
    f("id", "ID!"),
    f("oid", "GitObjectID!"),
    f("byteSize", "Int!"),
    f("isBinary", "Boolean"),
    f("isTruncated", "Boolean!"),
    f("text", "String"),
];
const REF: &[FieldDef] = &[f("name", "String!"), f("prefix", "String!")];

const PAGE_INFO: &[FieldDef] = &[
    f("hasNextPage", "Boolean!"),
    f("hasPreviousPage", "Boolean!"),
    f("startCursor", "String"),
    f("endCursor", "String"),
];

const RATE_LIMIT: &[FieldDef] = &[
    f("cost", "Int!"),
    f("limit", "Int!"),
    f("remaining", "Int!"),
    f("used", "Int!"),
    f("resetAt", "DateTime!"),
];

macro_rules! connection {
    ($name:ident, $node:literal) => {
        const $name: &[FieldDef] = &[
            f("nodes", concat!("[", $node, "]")),
            f("pageInfo", "PageInfo!"),
            f("totalCount", "Int!"),
        ];
    };
}
connection!(THREAD_CONNECTION, "PullRequestReviewThread");
connection!(COMMENT_CONNECTION, "PullRequestReviewComment");
connection!(REVIEW_CONNECTION, "PullRequestReview");
connection!(ISSUE_COMMENT_CONNECTION, "IssueComment");
connection!(PR_CONNECTION, "PullRequest");

const THREAD_PAYLOAD: &[FieldDef] = &[
    f("clientMutationId", "String"),
    f("thread", "PullRequestReviewThread"),
];
const REPLY_PAYLOAD: &[FieldDef] = &[
    f("clientMutationId", "String"),
    f("comment", "PullRequestReviewComment"),
];
const COMMENT_PAYLOAD: &[FieldDef] = &[
    f("clientMutationId", "String"),
    f("commentEdge", "IssueCommentEdge"),
];
const REQUEST_REVIEWS_PAYLOAD: &[FieldDef] = &[
    f("clientMutationId", "String"),
    f("pullRequest", "PullRequest"),
];
const ISSUE_COMMENT_EDGE: &[FieldDef] = &[f("cursor", "String!"), f("node", "IssueComment")];
const MINIMIZE_PAYLOAD: &[FieldDef] = &[
    f("clientMutationId", "String"),
    f("minimizedComment", "Minimizable"),
];

const ROLLUP: &[FieldDef] = &[f("id", "ID!"), f("state", "StatusState!")];

/// The account types an `Actor` may be.
pub(crate) const ACTOR_TYPES: &[&str] = &[
    "User",
    "Bot",
    "Organization",
    "Mannequin",
    "EnterpriseUserAccount",
];

/// The values of `ReportedContentClassifiers`.
pub(crate) const CLASSIFIERS: &[&str] = &[
    "ABUSE",
    "DUPLICATE",
    "OFF_TOPIC",
    "OUTDATED",
    "RESOLVED",
    "SPAM",
];

/// The type named `name`, if the fake serves it.
pub(crate) fn kind(name: &str) -> Option<Kind> {
    use Kind::{Enum, Input, Interface, Object, Scalar};
    Some(match name {
        "Query" => Object(QUERY),
        "Mutation" => Object(MUTATION),
        "Repository" => Object(REPOSITORY),
        "PullRequest" => Object(PULL_REQUEST),
        "PullRequestReviewThread" => Object(THREAD),
        "PullRequestReviewComment" => Object(REVIEW_COMMENT),
        "PullRequestReview" => Object(REVIEW),
        "IssueComment" => Object(ISSUE_COMMENT),
        "User" | "Bot" | "Organization" | "Mannequin" | "EnterpriseUserAccount" => Object(ACTOR),
        "Commit" => Object(COMMIT),
        "Tree" => Object(TREE),
        "TreeEntry" => Object(TREE_ENTRY),
        "Blob" => Object(BLOB),
        "GitObject" => Interface(GIT_OBJECT),
        "Ref" => Object(REF),
        "StatusCheckRollup" => Object(ROLLUP),
        "PageInfo" => Object(PAGE_INFO),
        "RateLimit" => Object(RATE_LIMIT),
        "PullRequestReviewThreadConnection" => Object(THREAD_CONNECTION),
        "PullRequestReviewCommentConnection" => Object(COMMENT_CONNECTION),
        "PullRequestReviewConnection" => Object(REVIEW_CONNECTION),
        "IssueCommentConnection" => Object(ISSUE_COMMENT_CONNECTION),
        "PullRequestConnection" => Object(PR_CONNECTION),
        "ResolveReviewThreadPayload" | "UnresolveReviewThreadPayload" => Object(THREAD_PAYLOAD),
        "AddPullRequestReviewThreadReplyPayload" => Object(REPLY_PAYLOAD),
        "MinimizeCommentPayload" => Object(MINIMIZE_PAYLOAD),
        "AddCommentPayload" => Object(COMMENT_PAYLOAD),
        "RequestReviewsByLoginPayload" => Object(REQUEST_REVIEWS_PAYLOAD),
        "IssueCommentEdge" => Object(ISSUE_COMMENT_EDGE),
        "Actor" => Interface(ACTOR),
        "RepositoryOwner" => Interface(OWNER),
        "Node" => Interface(NODE),
        "Minimizable" => Interface(MINIMIZABLE),
        "ID" | "String" | "Int" | "Boolean" | "Float" | "URI" | "DateTime" | "GitObjectID" => {
            Scalar
        }
        "PullRequestState" => Enum(&["CLOSED", "MERGED", "OPEN"]),
        "MergeableState" => Enum(&["CONFLICTING", "MERGEABLE", "UNKNOWN"]),
        "CommentAuthorAssociation" => Enum(&[
            "COLLABORATOR",
            "CONTRIBUTOR",
            "FIRST_TIMER",
            "FIRST_TIME_CONTRIBUTOR",
            "MANNEQUIN",
            "MEMBER",
            "NONE",
            "OWNER",
        ]),
        "PullRequestReviewState" => Enum(&[
            "APPROVED",
            "CHANGES_REQUESTED",
            "COMMENTED",
            "DISMISSED",
            "PENDING",
        ]),
        "PullRequestReviewThreadSubjectType" => Enum(&["FILE", "LINE"]),
        "StatusState" => Enum(&["ERROR", "EXPECTED", "FAILURE", "PENDING", "SUCCESS"]),
        "DiffSide" => Enum(&["LEFT", "RIGHT"]),
        "ReportedContentClassifiers" => Enum(CLASSIFIERS),
        "ResolveReviewThreadInput" | "UnresolveReviewThreadInput" => {
            Input(&[("threadId", "ID!"), ("clientMutationId", "String")])
        }
        "AddPullRequestReviewThreadReplyInput" => Input(&[
            ("pullRequestReviewThreadId", "ID!"),
            ("body", "String!"),
            ("pullRequestReviewId", "ID"),
            ("clientMutationId", "String"),
        ]),
        "AddCommentInput" => Input(&[
            ("subjectId", "ID!"),
            ("body", "String!"),
            ("clientMutationId", "String"),
        ]),
        "RequestReviewsByLoginInput" => Input(&[
            ("pullRequestId", "ID!"),
            ("userLogins", "[String!]"),
            ("botLogins", "[String!]"),
            ("teamSlugs", "[String!]"),
            ("union", "Boolean"),
            ("clientMutationId", "String"),
        ]),
        "MinimizeCommentInput" => Input(&[
            ("subjectId", "ID!"),
            ("classifier", "ReportedContentClassifiers!"),
            ("clientMutationId", "String"),
        ]),
        _ => return None,
    })
}

/// The fields of an object or interface type.
pub(crate) fn fields(ty: &str) -> &'static [FieldDef] {
    match kind(ty) {
        Some(Kind::Object(fs) | Kind::Interface(fs)) => fs,
        _ => &[],
    }
}

/// The definition of `field` on `ty`.
pub(crate) fn field(ty: &str, field: &str) -> Option<&'static FieldDef> {
    fields(ty).iter().find(|d| d.name == field)
}

/// Whether an object of type `object` matches a fragment on `condition`.
pub(crate) fn matches(object: &str, condition: &str) -> bool {
    object == condition
        || match condition {
            "Node" => field(object, "id").is_some(),
            "Actor" => ACTOR_TYPES.contains(&object),
            "RepositoryOwner" => matches!(object, "User" | "Organization"),
            "Minimizable" => matches!(object, "IssueComment" | "PullRequestReviewComment"),
            "GitObject" => matches!(object, "Commit" | "Tree" | "Blob"),
            _ => false,
        }
}

/// Whether a type is something a selection set may be made on.
pub(crate) fn is_composite(ty: &str) -> bool {
    matches!(kind(ty), Some(Kind::Object(_) | Kind::Interface(_)))
}
