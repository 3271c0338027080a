//! Builders for pull requests in tests.

use review_core::model::{
    Author, AuthorKind, Comment, CommentId, CommitId, LineRange, PrState, PullRequest, RepoId,
    SubjectType, Thread, ThreadId,
};

/// A bot author (GraphQL login, typed Bot).
pub fn bot(login: &str) -> Author {
    Author::new(login, AuthorKind::Bot)
}

/// A person (typed User).
pub fn person(login: &str) -> Author {
    Author::new(login, AuthorKind::User)
}

/// Builds a [`PullRequest`] thread by thread.
#[derive(Debug, Clone)]
pub struct PrBuilder {
    pr: PullRequest,
    next_comment: usize,
}

/// The head commit every built PR has.
pub const HEAD_SHA: &str = "a1b2c3d4e5f60718293a4b5c6d7e8f9012345678";

impl Default for PrBuilder {
    fn default() -> Self {
        Self::new()
    }
}

impl PrBuilder {
    /// An open PR #1 on `acme/widgets` by `dana`, at [`HEAD_SHA`], with no threads.
    pub fn new() -> Self {
        Self {
            pr: PullRequest {
                repo: RepoId {
                    owner: "acme".to_owned(),
                    name: "widgets".to_owned(),
                },
                number: 1,
                id: "PR_1".to_owned(),
                title: "Test PR".to_owned(),
                url: "https://github.com/acme/widgets/pull/1".to_owned(),
                state: PrState::Open,
                author: Some(person("dana")),
                head_ref: "feature".to_owned(),
                base_ref: "main".to_owned(),
                head_sha: CommitId(HEAD_SHA.to_owned()),
                base_sha: None,
                head_repo: None,
                viewer: None,
                draft: false,
                mergeable: None,
                checks: None,
                reviews: Vec::new(),
                comments: Vec::new(),
                threads: Vec::new(),
            },
            next_comment: 0,
        }
    }

    /// Adds an unresolved, current thread on `path:line` with one comment per `(author, body)`.
    pub fn thread(mut self, id: &str, path: &str, line: u32, comments: &[(Author, &str)]) -> Self {
        let comments = comments
            .iter()
            .map(|(author, body)| self.comment(Some(author.clone()), body))
            .collect();
        self.pr.threads.push(Thread {
            id: ThreadId(id.to_owned()),
            is_resolved: false,
            is_outdated: false,
            path: path.to_owned(),
            lines: Some(LineRange::new(line, line)),
            subject_type: SubjectType::Line,
            comments,
            all_comments_read: true,
            original_lines: None,
        });
        self
    }

    /// Changes the last thread added.
    pub fn with_last(mut self, f: impl FnOnce(&mut Thread)) -> Self {
        if let Some(t) = self.pr.threads.last_mut() {
            f(t);
        }
        self
    }

    /// Changes the PR.
    pub fn with_pr(mut self, f: impl FnOnce(&mut PullRequest)) -> Self {
        f(&mut self.pr);
        self
    }

    fn comment(&mut self, author: Option<Author>, body: &str) -> Comment {
        self.next_comment += 1;
        Comment {
            id: CommentId(format!("PRRC_{}", self.next_comment)),
            author,
            body: body.to_owned(),
            created_at: "2026-11-30T10:00:00Z".to_owned(),
            url: String::new(),
            diff_hunk: None,
            review_id: None,
        }
    }

    /// The pull request.
    pub fn build(self) -> PullRequest {
        self.pr
    }
}
