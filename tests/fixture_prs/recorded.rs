//! How a recorded pull request is described ([`Pr`], [`Thread`], [`Text`]) and built from the
//! corpus into a snapshot (`docs/snapshot-format.md`).
//!
//! A thread's first comment is a corpus case: its body, author and file exactly as the corpus
//! holds them (a case written by the PR's author is posted by this PR's author). Replies are
//! cases too, or words written for the fixture (the turns of a long discussion). Ids are made
//! from the case names (`PRRT_<case>`), so a report names the case each thread was built from.

use review_core::model::{
    Author, AuthorKind, ChecksState, Comment, CommentId, CommitId, IssueComment, LineRange,
    PrState, PullRequest, RepoId, Review, ReviewId, ReviewState, SubjectType, Thread as Recorded,
    ThreadId,
};
use review_core::snapshot;

use crate::corpus::{Case, Corpus};

/// When every fixture was "recorded".
const RECORDED_AT: &str = "2026-11-18T09:12:44Z";

/// A comment's text and author.
#[derive(Debug, Clone)]
pub enum Text {
    /// A corpus case: its body and author.
    Case(&'static str),
    /// Words written for the fixture: the author's login and kind, then the body.
    Own(&'static str, AuthorKind, &'static str),
}

/// Words a person wrote for the fixture.
pub fn person(login: &'static str, body: &'static str) -> Text {
    Text::Own(login, AuthorKind::User, body)
}

/// Words a bot posted, written for the fixture.
pub fn bot(login: &'static str, body: &'static str) -> Text {
    Text::Own(login, AuthorKind::Bot, body)
}

/// Where a thread stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum State {
    /// Open, on the current code.
    Open,
    /// Open, but the code it points at has changed.
    Outdated,
    /// Resolved by someone: kept as context, never triaged.
    Resolved,
}

/// A review thread: a corpus case first, then replies.
#[derive(Debug, Clone)]
pub struct Thread {
    /// The case of the first comment.
    pub case: &'static str,
    /// Open, outdated or resolved.
    pub state: State,
    /// The line it is on (a default by its position when `None`).
    pub line: Option<u32>,
    /// The replies, in order.
    pub replies: Vec<Text>,
    /// Whether a later page of its comments could not be read (`all_comments_read: false`).
    pub partial: bool,
}

/// A thread whose first comment is the corpus case `case`.
pub fn thread(case: &'static str) -> Thread {
    Thread {
        case,
        state: State::Open,
        line: None,
        replies: Vec::new(),
        partial: false,
    }
}

impl Thread {
    /// The code it points at has changed since.
    pub fn outdated(mut self) -> Self {
        self.state = State::Outdated;
        self
    }

    /// Someone resolved it.
    pub fn resolved(mut self) -> Self {
        self.state = State::Resolved;
        self
    }

    /// On line `line` of its file.
    pub fn line(mut self, line: u32) -> Self {
        self.line = Some(line);
        self
    }

    /// A reply from the corpus.
    pub fn reply(mut self, case: &'static str) -> Self {
        self.replies.push(Text::Case(case));
        self
    }

    /// A reply written for the fixture.
    pub fn then(mut self, text: Text) -> Self {
        self.replies.push(text);
        self
    }

    /// A later page of its comments could not be read.
    pub fn partial(mut self) -> Self {
        self.partial = true;
        self
    }

    /// The thread's id in the snapshot and the report.
    pub fn id(&self) -> String {
        format!("PRRT_{}", self.case)
    }

    /// Every corpus case the thread uses.
    pub fn cases(&self) -> impl Iterator<Item = &'static str> + '_ {
        std::iter::once(self.case).chain(self.replies.iter().filter_map(|r| match r {
            Text::Case(c) => Some(*c),
            Text::Own(..) => None,
        }))
    }
}

/// A recorded pull request.
#[derive(Debug, Clone)]
pub struct Pr {
    /// The file name under `tests/fixtures/prs/`, without `.json`; the snapshot's name.
    pub name: &'static str,
    /// What the fixture is for (one line, for the snapshot's description).
    pub about: &'static str,
    /// `owner/name`.
    pub repo: &'static str,
    /// The PR number.
    pub number: u64,
    /// The PR title.
    pub title: &'static str,
    /// The PR author's login (a `User`).
    pub author: &'static str,
    /// The branch it merges from.
    pub head_ref: &'static str,
    /// The head commit (40 hex digits).
    pub head_sha: &'static str,
    /// Review submissions: their bodies (summaries, overviews, walkthroughs).
    pub reviews: Vec<Text>,
    /// Top-level conversation comments.
    pub comments: Vec<Text>,
    /// The review threads.
    pub threads: Vec<Thread>,
}

/// A time `step` steps after the PR's first review, 4 minutes apart (RFC 3339, UTC).
fn at(step: usize) -> String {
    let minutes = 13 * 60 + 5 + 4 * step;
    let (day, rest) = (16 + minutes / (24 * 60), minutes % (24 * 60));
    format!("2026-11-{day:02}T{:02}:{:02}:00Z", rest / 60, rest % 60)
}

/// The author and body of a text.
fn text(corpus: &mut Corpus, pr_author: &Author, t: &Text) -> (Option<Author>, String) {
    match t {
        Text::Case(name) => {
            let case = corpus.case(name);
            (case_author(case, pr_author), case.body.clone())
        }
        Text::Own(login, kind, body) => (Some(Author::new(*login, *kind)), (*body).to_owned()),
    }
}

/// A case's author in this PR: a case written by the PR's author is posted by this PR's author.
fn case_author(case: &Case, pr_author: &Author) -> Option<Author> {
    if case.pr_author {
        Some(pr_author.clone())
    } else {
        case.author.clone()
    }
}

/// A short name for an id: the case's name, or the thread's and the reply's position.
fn text_id(t: &Text, fallback: String) -> String {
    match t {
        Text::Case(name) => (*name).to_owned(),
        Text::Own(..) => fallback,
    }
}

impl Pr {
    /// The snapshot of this pull request, built from the corpus.
    pub fn build(&self, corpus: &mut Corpus) -> PullRequest {
        let author = Author::new(self.author, AuthorKind::User);
        let (owner, name) = self.repo.split_once('/').expect("repo is owner/name");
        let head = CommitId::from(self.head_sha);
        let mut clock = 0;
        let mut tick = || {
            clock += 1;
            at(clock - 1)
        };
        let reviews = self
            .reviews
            .iter()
            .enumerate()
            .map(|(i, t)| {
                let (by, body) = text(corpus, &author, t);
                Review {
                    id: ReviewId::from(
                        format!("PRR_{}", text_id(t, format!("review{i}"))).as_str(),
                    ),
                    author: by,
                    state: ReviewState::Commented,
                    body,
                    submitted_at: Some(tick()),
                    commit: Some(head.clone()),
                }
            })
            .collect();
        let threads = self
            .threads
            .iter()
            .enumerate()
            .map(|(i, t)| {
                let path = corpus.case(t.case).path.clone();
                let line = t
                    .line
                    .unwrap_or_else(|| 12 + 9 * u32::try_from(i).expect("few threads"));
                let comments = std::iter::once(Text::Case(t.case))
                    .chain(t.replies.iter().cloned())
                    .enumerate()
                    .map(|(j, c)| {
                        let (by, body) = text(corpus, &author, &c);
                        let id = if j == 0 {
                            format!("PRRC_{}", t.case)
                        } else {
                            format!("PRRC_{}_r{j}", t.case)
                        };
                        Comment {
                            id: CommentId::from(id.as_str()),
                            author: by,
                            body,
                            created_at: tick(),
                            url: format!(
                                "https://github.com/{}/pull/{}#discussion_r{}",
                                self.repo,
                                self.number,
                                4_100_000 + 100 * i + j
                            ),
                            diff_hunk: None,
                            review_id: None,
                        }
                    })
                    .collect();
                Recorded {
                    id: ThreadId::from(t.id().as_str()),
                    is_resolved: t.state == State::Resolved,
                    is_outdated: t.state == State::Outdated,
                    path,
                    lines: (t.state != State::Outdated).then(|| LineRange::new(line, line)),
                    subject_type: SubjectType::Line,
                    comments,
                    all_comments_read: !t.partial,
                    original_lines: None,
                }
            })
            .collect();
        let comments = self
            .comments
            .iter()
            .enumerate()
            .map(|(i, t)| {
                let (by, body) = text(corpus, &author, t);
                IssueComment {
                    id: CommentId::from(
                        format!("IC_{}", text_id(t, format!("comment{i}"))).as_str(),
                    ),
                    author: by,
                    body,
                    created_at: tick(),
                    url: String::new(),
                }
            })
            .collect();
        PullRequest {
            repo: RepoId {
                owner: owner.to_owned(),
                name: name.to_owned(),
            },
            number: self.number,
            id: format!("PR_{}", self.name),
            title: self.title.to_owned(),
            url: format!("https://github.com/{}/pull/{}", self.repo, self.number),
            state: PrState::Open,
            author: Some(author),
            head_ref: self.head_ref.to_owned(),
            base_ref: "main".to_owned(),
            head_sha: head,
            base_sha: None,
            head_repo: None,
            viewer: None,
            draft: false,
            mergeable: None,
            checks: Some(ChecksState::Success),
            reviews,
            comments,
            threads,
        }
    }

    /// The snapshot file's text.
    pub fn render(&self, corpus: &mut Corpus) -> String {
        let mut text = snapshot::to_string(&self.build(corpus), Some(RECORDED_AT));
        text.push('\n');
        text
    }
}
