//! Big pull requests, built deterministically, for paging tests.

use std::collections::BTreeMap;

use review_core::model::{
    Author, Comment, CommentId, IssueComment, LineRange, PullRequest, Review, ReviewId,
    ReviewState, SubjectType, Thread, ThreadId,
};

use crate::builder::{PrBuilder, bot, person};

/// The login of the person [`with_human_reply`] puts in a thread.
pub const HUMAN_REVIEWER: &str = "mei";

/// The bots that open threads, in turn.
const BOTS: &[&str] = &[
    "coderabbitai",
    "copilot-pull-request-reviewer",
    "gemini-code-assist",
    "chatgpt-codex-connector",
];

const PATHS: &[&str] = &[
    "src/lib.rs",
    "src/parser.rs",
    "src/render/html.rs",
    "tests/it/main.rs",
    "Cargo.toml",
];

/// A finding of moderate size, formatted as review bots write them.
fn finding(bot: &str, thread: usize, path: &str, line: u32) -> String {
    let severity = ["Minor", "Major", "Critical", "Nitpick"][thread % 4];
    format!(
        "_⚠️ Potential issue_ | _{severity}_\n\n\
         **Unchecked index in `{path}` at line {line} (finding {thread} by {bot}).**\n\n\
         The value read here may be out of range when the input is empty, which panics at run \
         time instead of returning an error. Consider checking the length first, or using \
         `get` and handling `None` explicitly so that callers see a proper error.\n\n\
         ```suggestion\n    let Some(item) = items.get({line}) else {{ return Err(Error::Empty) }};\n```\n"
    )
}

fn follow_up(thread: usize, k: usize) -> String {
    format!(
        "Follow-up {k} on finding {thread}: the change in the latest commit does not cover the \
         empty case yet; the guard should run before the loop, not inside it."
    )
}

fn person_reply(thread: usize, k: usize) -> String {
    format!(
        "Reply {k} on {thread}: this is intentional. The caller validates the input before this \
         point, see the contract on the public function."
    )
}

/// A pull request of `threads` review threads on [`PrBuilder`]'s defaults (`acme/widgets#1`),
/// for paging tests.
///
/// Thread `i` has id `PRRT_{i}`, comment `k` of it `PRRC_{i}_{k}`. Threads have
/// `comments_per_thread` comments (at least one), except those named in `long_threads` as
/// `(thread index, comment count)`, which have that many. The first comment of a thread is a
/// finding of a few hundred characters by one of four bots in turn, except every fifth thread
/// (`i % 5 == 4`), opened by a person; later comments alternate between the bot and the PR's
/// author (`dana`). Long threads are bots only, so that [`with_human_reply`] can place their one
/// human reply. Some threads are resolved (`i % 7 == 3`), outdated (`i % 11 == 5`), file-level
/// (`i % 13 == 6`) or span several lines (`i % 4 == 1`). Every comment has a URL, a diff hunk and
/// a review (one submitted review per author); the PR also has three top-level comments.
pub fn large_pull_request(
    threads: usize,
    comments_per_thread: usize,
    long_threads: &[(usize, usize)],
) -> PullRequest {
    let base = PrBuilder::new().build();
    let pr_url = base.url.clone();
    let mut reviews: BTreeMap<String, Review> = BTreeMap::new();
    let mut review_of = |author: &Author, minute: usize| -> ReviewId {
        let next = reviews.len();
        reviews
            .entry(author.login.clone())
            .or_insert_with(|| Review {
                id: ReviewId(format!("PRR_{next}")),
                author: Some(author.clone()),
                state: ReviewState::Commented,
                body: String::new(),
                submitted_at: Some(time(minute)),
                commit: Some(base.head_sha.clone()),
            })
            .id
            .clone()
    };
    let mut serial = 0usize;
    let threads: Vec<Thread> = (0..threads)
        .map(|i| {
            let long = long_threads
                .iter()
                .find(|(t, _)| *t == i)
                .map(|(_, n)| *n);
            let count = long.unwrap_or(comments_per_thread).max(1);
            let path = PATHS[i % PATHS.len()];
            let line = 10 + u32::try_from(i % 400).unwrap_or(0);
            let outdated = i % 11 == 5;
            let file = i % 13 == 6;
            let lines = (!outdated && !file).then(|| {
                if i % 4 == 1 {
                    LineRange::new(line - 3, line)
                } else {
                    LineRange::new(line, line)
                }
            });
            let opener = if i % 5 == 4 && long.is_none() {
                person(HUMAN_REVIEWER)
            } else {
                bot(BOTS[i % BOTS.len()])
            };
            let hunk = format!(
                "@@ -{line},6 +{line},7 @@ fn handle(items: &[Item]) -> Result<(), Error> {{\n     for item in items {{\n-        process(item);\n+        process(&items[{line}]);\n     }}"
            );
            let comments = (0..count)
                .map(|k| {
                    serial += 1;
                    let author = if k == 0 || long.is_some() || k % 2 == 0 {
                        opener.clone()
                    } else {
                        person("dana")
                    };
                    let body = if k == 0 {
                        finding(&author.login, i, path, line)
                    } else if author.kind == review_core::model::AuthorKind::Bot {
                        follow_up(i, k)
                    } else {
                        person_reply(i, k)
                    };
                    Comment {
                        id: CommentId(format!("PRRC_{i}_{k}")),
                        review_id: Some(review_of(&author, serial)),
                        author: Some(author),
                        body,
                        created_at: time(serial),
                        url: format!("{pr_url}#discussion_r{}", 1_000_000 + serial),
                        diff_hunk: Some(hunk.clone()),
                    }
                })
                .collect();
            Thread {
                id: ThreadId(format!("PRRT_{i}")),
                is_resolved: i % 7 == 3,
                is_outdated: outdated,
                path: path.to_owned(),
                lines,
                subject_type: if file {
                    SubjectType::File
                } else {
                    SubjectType::Line
                },
                comments,
                all_comments_read: true,
                original_lines: None,
            }
        })
        .collect();
    let mut reviews: Vec<Review> = reviews.into_values().collect();
    reviews.sort_by(|a, b| a.id.0.len().cmp(&b.id.0.len()).then(a.id.cmp(&b.id)));
    let comments = (0..3)
        .map(|k| IssueComment {
            id: CommentId(format!("IC_{k}")),
            author: Some(if k == 1 {
                person("dana")
            } else {
                bot(BOTS[k % BOTS.len()])
            }),
            body: format!("Summary {k}: the review found issues in several files."),
            created_at: time(k),
            url: format!("{pr_url}#issuecomment-{}", 2_000_000 + k),
        })
        .collect();
    PrBuilder::new()
        .with_pr(|pr| {
            pr.threads = threads;
            pr.reviews = reviews;
            pr.comments = comments;
        })
        .build()
}

/// `pr` with submitted reviews added, by the four bots in turn, until it has `count` of them (a
/// `pr` that has as many keeps its own). The added reviews have ids `PRR_{k}` numbered on from
/// the reviews already there, bodies naming their number, and times a minute apart; they come
/// after the existing ones, in the order GitHub lists reviews.
pub fn with_reviews(mut pr: PullRequest, count: usize) -> PullRequest {
    let start = pr.reviews.len();
    let head = pr.head_sha.clone();
    pr.reviews.extend((start..count).map(|k| Review {
        id: ReviewId(format!("PRR_{k}")),
        author: Some(bot(BOTS[k % BOTS.len()])),
        state: ReviewState::Commented,
        body: format!("Review {k}: a few findings in this round."),
        submitted_at: Some(time(k)),
        commit: Some(head.clone()),
    }));
    pr
}

/// Pages of at most 100 items, at least one (an empty list still answers a page).
fn pages(n: usize) -> usize {
    n.div_ceil(100).max(1)
}

/// The fewest requests a complete read of `pr` takes: one per 100 threads (the first page also
/// carries the first pages of reviews and top-level comments), plus the later comment pages of
/// long threads, plus the pages of reviews and top-level comments beyond their first.
pub fn requests_lower_bound(pr: &PullRequest) -> usize {
    pages(pr.threads.len())
        + pr.threads
            .iter()
            .map(|t| pages(t.comments.len()) - 1)
            .sum::<usize>()
        + (pages(pr.reviews.len()) - 1)
        + (pages(pr.comments.len()) - 1)
}

/// The fewest round trips one after another a complete read of `pr` takes: the first page,
/// then the longest chain of later pages. The pages of threads, of reviews and of top-level
/// comments are three chains; a long thread's later comment pages follow the page of threads
/// that holds it.
pub fn depth_lower_bound(pr: &PullRequest) -> usize {
    let threads = pr
        .threads
        .iter()
        .enumerate()
        .map(|(i, t)| i / 100 + pages(t.comments.len()))
        .max()
        .unwrap_or(1);
    threads
        .max(pages(pr.reviews.len()))
        .max(pages(pr.comments.len()))
}

/// Makes comment `comment` of thread `thread` (indexes into `pr.threads` and its comments) a
/// person's reply: by [`HUMAN_REVIEWER`], typed `User`, with a body that disagrees. The rest of
/// the thread is left as is; on a long thread of [`large_pull_request`], it becomes the only
/// human reply.
///
/// # Panics
/// If there is no such comment: the test is wrong.
pub fn with_human_reply(mut pr: PullRequest, thread: usize, comment: usize) -> PullRequest {
    let Some(c) = pr
        .threads
        .get_mut(thread)
        .and_then(|t| t.comments.get_mut(comment))
    else {
        panic!("with_human_reply: no comment {comment} in thread {thread}");
    };
    c.author = Some(person(HUMAN_REVIEWER));
    c.body = format!(
        "I disagree with this finding (reply at comment {comment}): the bounds are checked by \
         the caller. Please leave this thread open."
    );
    pr
}

/// A creation time `minute` minutes after the first comment.
fn time(minute: usize) -> String {
    let minute = u64::try_from(minute).unwrap_or(0);
    super::state::rfc3339(1_796_032_800 + minute * 60)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn long_threads_are_bots_but_for_the_planted_reply() {
        let pr = with_human_reply(large_pull_request(250, 2, &[(7, 150)]), 7, 140);
        assert_eq!(pr.threads.len(), 250);
        assert_eq!(pr.threads[7].comments.len(), 150);
        assert_eq!(pr.threads[0].comments.len(), 2);
        let humans: Vec<usize> = pr.threads[7]
            .comments
            .iter()
            .enumerate()
            .filter(|(_, c)| {
                c.author
                    .as_ref()
                    .is_some_and(|a| a.kind != review_core::model::AuthorKind::Bot)
            })
            .map(|(k, _)| k)
            .collect();
        assert_eq!(humans, vec![140]);
        let pr = with_reviews(pr, 240);
        assert_eq!(pr.reviews.len(), 240);
        let mut ids: Vec<&str> = pr.reviews.iter().map(|r| r.id.0.as_str()).collect();
        ids.sort_unstable();
        ids.dedup();
        assert_eq!(ids.len(), 240, "every review id is its own");
        // 3 pages of threads, one more for thread 7, 2 more of reviews; the chains of threads
        // and of reviews are both 3 pages long (thread 7's 2 pages start on the first).
        assert_eq!(requests_lower_bound(&pr), 3 + 1 + 2);
        assert_eq!(depth_lower_bound(&pr), 3);
        let empty = PrBuilder::new().build();
        assert_eq!(
            (requests_lower_bound(&empty), depth_lower_bound(&empty)),
            (1, 1)
        );
        let body = &pr.threads[3].comments[0].body;
        assert!((300..1_000).contains(&body.len()), "{}", body.len());
        let review_ids: Vec<&ReviewId> = pr.reviews.iter().map(|r| &r.id).collect();
        for c in pr.threads.iter().flat_map(|t| &t.comments) {
            assert!(review_ids.contains(&c.review_id.as_ref().unwrap()));
        }
    }
}
