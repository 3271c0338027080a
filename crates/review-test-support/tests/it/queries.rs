//! The documents the GitHub adapter sends (as cynic prints them), to drive the fake as the
//! adapter will.

pub const PULL_REQUEST_FIRST_PAGE: &str = r#"query PullRequestFirstPage($owner: String!, $name: String!, $number: Int!) {
  repository(owner: $owner, name: $name) {
    pullRequest(number: $number) {
      id
      number
      title
      url
      state
      headRefName
      headRefOid
      baseRefName
      author {
        login
        __typename
      }
      reviewThreads(first: 100) {
        nodes {
          id
          isResolved
          isOutdated
          path
          line
          startLine
          subjectType
          comments(first: 100) {
            nodes {
              id
              author {
                login
                __typename
              }
              body
              createdAt
              url
              diffHunk
              pullRequestReview {
                id
              }
            }
            pageInfo {
              hasNextPage
              endCursor
            }
          }
        }
        pageInfo {
          hasNextPage
          endCursor
        }
        totalCount
      }
      reviews(first: 100) {
        nodes {
          id
          author {
            login
            __typename
          }
          state
          body
          submittedAt
          commit {
            oid
          }
        }
        pageInfo {
          hasNextPage
          endCursor
        }
      }
      comments(first: 100) {
        nodes {
          id
          author {
            login
            __typename
          }
          body
          createdAt
          url
        }
        pageInfo {
          hasNextPage
          endCursor
        }
      }
    }
  }
  rateLimit {
    cost
    remaining
    resetAt
  }
}
"#;

pub const THREADS_PAGE: &str = r#"query ThreadsPage($owner: String!, $name: String!, $number: Int!, $after: String!) {
  repository(owner: $owner, name: $name) {
    pullRequest(number: $number) {
      reviewThreads(first: 100, after: $after) {
        nodes {
          id
          isResolved
          isOutdated
          path
          line
          startLine
          subjectType
          comments(first: 100) {
            nodes {
              id
              author {
                login
                __typename
              }
              body
              createdAt
              url
              diffHunk
              pullRequestReview {
                id
              }
            }
            pageInfo {
              hasNextPage
              endCursor
            }
          }
        }
        pageInfo {
          hasNextPage
          endCursor
        }
        totalCount
      }
    }
  }
  rateLimit {
    cost
    remaining
    resetAt
  }
}
"#;

pub const REVIEWS_PAGE: &str = r#"query ReviewsPage($owner: String!, $name: String!, $number: Int!, $after: String!) {
  repository(owner: $owner, name: $name) {
    pullRequest(number: $number) {
      reviews(first: 100, after: $after) {
        nodes {
          id
          author {
            login
            __typename
          }
          state
          body
          submittedAt
          commit {
            oid
          }
        }
        pageInfo {
          hasNextPage
          endCursor
        }
      }
    }
  }
  rateLimit {
    cost
    remaining
    resetAt
  }
}
"#;

pub const ISSUE_COMMENTS_PAGE: &str = r#"query IssueCommentsPage($owner: String!, $name: String!, $number: Int!, $after: String!) {
  repository(owner: $owner, name: $name) {
    pullRequest(number: $number) {
      comments(first: 100, after: $after) {
        nodes {
          id
          author {
            login
            __typename
          }
          body
          createdAt
          url
        }
        pageInfo {
          hasNextPage
          endCursor
        }
      }
    }
  }
  rateLimit {
    cost
    remaining
    resetAt
  }
}
"#;

pub const THREAD_COMMENTS_PAGE: &str = r#"query ThreadCommentsPage($id: ID!, $after: String) {
  node(id: $id) {
    __typename
    ... on PullRequestReviewThread {
      comments(first: 100, after: $after) {
        nodes {
          id
          author {
            login
            __typename
          }
          body
          createdAt
          url
          diffHunk
          pullRequestReview {
            id
          }
        }
        pageInfo {
          hasNextPage
          endCursor
        }
      }
    }
  }
  rateLimit {
    cost
    remaining
    resetAt
  }
}
"#;

pub const RESOLVE_THREAD: &str = r#"mutation ResolveThread($threadId: ID!) {
  resolveReviewThread(input: {threadId: $threadId}) {
    thread {
      id
      isResolved
    }
  }
}
"#;

pub const UNRESOLVE_THREAD: &str = r#"mutation UnresolveThread($threadId: ID!) {
  unresolveReviewThread(input: {threadId: $threadId}) {
    thread {
      id
      isResolved
    }
  }
}
"#;

pub const ADD_THREAD_REPLY: &str = r#"mutation AddThreadReply($threadId: ID!, $body: String!) {
  addPullRequestReviewThreadReply(input: {pullRequestReviewThreadId: $threadId, body: $body}) {
    comment {
      id
      url
    }
  }
}
"#;

pub const OPEN_PULL_REQUESTS_FOR_BRANCH: &str = r#"query OpenPullRequestsForBranch($owner: String!, $name: String!, $headRefName: String!) {
  repository(owner: $owner, name: $name) {
    defaultBranchRef {
      name
    }
    pullRequests(headRefName: $headRefName, states: [OPEN], first: 20) {
      nodes {
        number
        title
        url
        headRepositoryOwner {
          login
        }
      }
    }
  }
}
"#;

pub const VIEWER_PENDING_REVIEW: &str = r#"query ViewerPendingReview($owner: String!, $name: String!, $number: Int!) {
  repository(owner: $owner, name: $name) {
    pullRequest(number: $number) {
      reviews(states: [PENDING], first: 1) {
        nodes {
          id
        }
      }
    }
  }
}
"#;

pub const MINIMIZE_COMMENT: &str = r#"mutation MinimizeComment($subjectId: ID!, $classifier: ReportedContentClassifiers!) {
  minimizeComment(input: {subjectId: $subjectId, classifier: $classifier}) {
    minimizedComment {
      isMinimized
    }
  }
}
"#;

/// A batch of `count` copies of a one-field mutation under aliases `r0..`, each with its own
/// variables, the way the adapter builds `ResolveThreads` and `MinimizeComments`.
fn batch(name: &str, field: &str, vars: &[(&str, &str)], selection: &str, count: usize) -> String {
    let mut header = Vec::new();
    let mut fields = Vec::new();
    for i in 0..count {
        let mut input = Vec::new();
        for (var, ty) in vars {
            header.push(format!("${var}{i}: {ty}"));
            input.push(format!("{var}: ${var}{i}"));
        }
        fields.push(format!(
            "  r{i}: {field}(input: {{{}}}) {selection}",
            input.join(", ")
        ));
    }
    format!(
        "mutation {name}({}) {{\n{}\n}}\n",
        header.join(", "),
        fields.join("\n")
    )
}

/// `ResolveThreads` over `count` threads.
pub fn resolve_threads(count: usize) -> String {
    batch(
        "ResolveThreads",
        "resolveReviewThread",
        &[("threadId", "ID!")],
        "{ thread { id isResolved } }",
        count,
    )
}

/// `MinimizeComments` over `count` comments.
pub fn minimize_comments(count: usize) -> String {
    batch(
        "MinimizeComments",
        "minimizeComment",
        &[
            ("subjectId", "ID!"),
            ("classifier", "ReportedContentClassifiers!"),
        ],
        "{ minimizedComment { isMinimized } }",
        count,
    )
}
