//! The contract suite of the review-host port: one set of cases that every [`ReviewHost`] must
//! pass, run alike against the in-memory [`FakeHost`] (in this crate's tests) and against
//! `GitHubHost` over [`crate::github::FakeGitHub`] (in review-github's tests), as jj runs one
//! suite across its backends.
//!
//! A backend implements [`Backend`]: it sets up a pull request, makes its host spend its rate
//! limit, refuse the token, fail a thread or lose the answer to a post, and says which mutations
//! landed. [`host_contract!`](crate::host_contract) then writes one `#[tokio::test]` per case
//! into the module it is called in:
//!
//! ```
//! // In a test crate: `FakeBackend` here, your own `Backend` for another host.
//! mod test_contract {
//!     review_test_support::host_contract!(review_test_support::contract::FakeBackend);
//! }
//! # fn main() {}
//! ```
//!
//! Where two hosts may legitimately differ the port's contract allows both answers, and the
//! backend says which it gives in [`Capabilities`]: the cases check each answer against the flag,
//! and skip nothing.
#![allow(
    clippy::unwrap_used,
    reason = "the cases are tests: an unexpected Ok or Err is a failed case"
)]

use std::time::Duration;

use async_trait::async_trait;
use review_core::gate::{AutomationSettings, DEFAULT_AUTOMATED_HEADER};
use review_core::model::{
    Association, CommentId, LineRange, PullRequest, RepoId, Thread, ThreadId,
};
use review_core::ports::{HostError, MinimizeReason, ReviewHost};
use review_core::post;

use crate::github::{large_pull_request, with_human_reply};
use crate::{FakeHost, Mutation, PrBuilder, bot, person};

/// Where two hosts may legitimately answer differently, what this one does.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Capabilities {
    /// After a post whose answer was lost, the host looks for the post itself and returns it
    /// (`GitHubHost`), rather than failing with an error that says it may have been posted
    /// ([`HostError::may_have_been_posted`], `FakeHost`). Either way the post is there once.
    pub finds_lost_posts: bool,
}

/// Which post [`Backend::lose_next_answer`] loses the answer of.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Post {
    /// A reply in a thread.
    Reply,
    /// A top-level comment on the pull request.
    Comment,
}

/// A review host under test, with the knobs the contract cases need.
#[async_trait]
pub trait Backend: Sized + Send + Sync {
    /// Its name, in failure messages.
    const NAME: &'static str;
    /// Where it answers as the contract allows but other hosts may not.
    const CAPABILITIES: Capabilities;

    /// A backend holding `pr`, whose host writes to it as its author (the viewer) would, with
    /// posts required to start with [`DEFAULT_AUTOMATED_HEADER`].
    async fn start(pr: PullRequest) -> Self;

    /// The host under test.
    fn host(&self) -> &dyn ReviewHost;

    /// Makes every later request meet a spent rate limit that resets in `reset_in`.
    fn spend_rate_limit(&self, reset_in: Duration);

    /// Makes every later request meet a refused token.
    fn refuse_token(&self);

    /// Makes every later mutation of `thread` fail, as a host failing on that one thread would;
    /// nothing of it is applied.
    fn fail_thread(&self, thread: &ThreadId);

    /// Makes the next post of kind `post` land while its answer is lost (a timeout, a 502).
    fn lose_next_answer(&self, post: Post);

    /// The mutations that landed, in order.
    fn mutations(&self) -> Vec<Mutation>;
}

/// The in-memory [`FakeHost`] as a [`Backend`].
#[derive(Debug)]
pub struct FakeBackend(FakeHost);

#[async_trait]
impl Backend for FakeBackend {
    const NAME: &'static str = "FakeHost";
    const CAPABILITIES: Capabilities = Capabilities {
        finds_lost_posts: false,
    };

    async fn start(pr: PullRequest) -> Self {
        Self(FakeHost::new(pr))
    }

    fn host(&self) -> &dyn ReviewHost {
        &self.0
    }

    fn spend_rate_limit(&self, reset_in: Duration) {
        self.0.spend_rate_limit(Some(reset_in));
    }

    fn refuse_token(&self) {
        self.0.refuse_token();
    }

    fn fail_thread(&self, thread: &ThreadId) {
        self.0.fail_thread(&thread.0);
    }

    fn lose_next_answer(&self, _post: Post) {
        self.0.lose_next_answer();
    }

    fn mutations(&self) -> Vec<Mutation> {
        self.0.mutations()
    }
}

/// Writes one `#[tokio::test]` per contract case for the [`Backend`] `$backend`, into the
/// module it is called in. The list of cases is here, once.
#[macro_export]
macro_rules! host_contract {
    ($backend:ty) => {
        $crate::host_contract!(@cases $backend;
            a_read_is_the_whole_pull_request,
            an_unknown_pull_request_is_not_found,
            a_reply_is_there_on_the_next_read_marked_as_automated,
            an_unmarked_or_blank_post_is_refused_and_nothing_is_posted,
            an_unknown_thread_or_comment_is_not_found,
            a_resolve_is_there_on_the_next_read_and_resolving_twice_succeeds,
            one_unknown_id_in_a_resolve_fails_only_that_one,
            an_unresolve_reopens_and_reopening_an_open_thread_succeeds,
            a_minimize_hides_and_hiding_twice_succeeds,
            a_pr_comment_is_there_on_the_next_read_with_its_key,
            a_post_whose_answer_was_lost_is_there_once,
            a_refused_token_is_unauthorized_on_every_request,
            a_spent_rate_limit_is_throttled_with_its_reset_on_every_request,
            a_failing_thread_fails_only_its_own_mutations,
            a_review_request_is_sent_once_each_time_and_a_bad_one_is_refused,
        );
    };
    (@cases $backend:ty; $($case:ident),* $(,)?) => {
        $(
            #[tokio::test]
            async fn $case() {
                $crate::contract::$case::<$backend>().await;
            }
        )*
    };
}

fn repo() -> RepoId {
    PrBuilder::new().build().repo
}

/// A body as the tool posts it: the automated header, the text, the idempotency key.
fn marked(on: &str, text: &str) -> String {
    let key = post::idempotency_key(&ThreadId::from(on), text);
    post::marked_body(DEFAULT_AUTOMATED_HEADER, text, &key)
}

/// Three bot threads, `T1`..`T3`, one comment each.
fn small_pr() -> PullRequest {
    PrBuilder::new()
        .thread("T1", "src/a.rs", 1, &[(bot("coderabbitai"), "x")])
        .thread("T2", "src/a.rs", 2, &[(bot("coderabbitai"), "y")])
        .thread("T3", "src/b.rs", 3, &[(bot("coderabbitai"), "z")])
        .build()
}

fn ids(names: &[&str]) -> Vec<ThreadId> {
    names.iter().map(|n| ThreadId::from(*n)).collect()
}

async fn read<B: Backend>(b: &B) -> PullRequest {
    b.host()
        .pull_request(&repo(), 1)
        .await
        .unwrap_or_else(|e| panic!("{}: reading the pull request failed: {e}", B::NAME))
}

fn thread<'p>(pr: &'p PullRequest, id: &str) -> &'p Thread {
    pr.thread(&ThreadId::from(id))
        .unwrap_or_else(|| panic!("no thread {id}"))
}

/// The pull request of [`a_read_is_the_whole_pull_request`]: 130 threads (two pages), one of
/// 150 comments with a person's reply on its second page, bots and people, an association,
/// resolved and outdated threads, diff hunks and original lines.
fn whole_pr() -> PullRequest {
    let mut pr = with_human_reply(large_pull_request(130, 2, &[(7, 150)]), 7, 140);
    // Thread 4 is opened by a person; say who they are to the repository.
    if let Some(c) = pr.threads[4].comments.first_mut() {
        c.author = Some(person("mei").with_association(Some(Association::Member)));
    }
    // Thread 5 is outdated: GitHub gives it no current lines, only the original ones.
    let outdated = &mut pr.threads[5];
    outdated.lines = None;
    outdated.original_lines = Some(LineRange::new(10, 12));
    pr
}

/// A read returns every thread past the first page and every comment of a long thread, in
/// order, with authors typed Bot or User, their association, the outdated and resolved flags,
/// lines and diff hunks as the host holds them.
pub async fn a_read_is_the_whole_pull_request<B: Backend>() {
    let pr = whole_pr();
    let b = B::start(pr.clone()).await;
    let got = read(&b).await;
    let name = B::NAME;
    assert_eq!(got.threads.len(), 130, "{name}: every thread page");
    let long = &got.threads[7];
    assert_eq!(long.comments.len(), 150, "{name}: every comment page");
    assert!(long.all_comments_read, "{name}");
    assert!(
        AutomationSettings::default().thread_is_human(long, &got),
        "{name}: the person's reply on the second comment page is read"
    );
    assert_eq!(
        got.threads, pr.threads,
        "{name}: threads as the host holds them"
    );
    assert_eq!(got.comments, pr.comments, "{name}: top-level comments");
    assert_eq!(
        (&got.id, got.number, &got.head_sha, &got.author, &got.state),
        (&pr.id, pr.number, &pr.head_sha, &pr.author, &pr.state),
        "{name}"
    );
    // What the equality above covers is really in the pull request.
    let comments = || got.threads.iter().flat_map(|t| &t.comments);
    let kinds = |kind| comments().any(|c| c.author.as_ref().is_some_and(|a| a.kind == kind));
    assert!(kinds(review_core::model::AuthorKind::Bot), "{name}");
    assert!(kinds(review_core::model::AuthorKind::User), "{name}");
    assert_eq!(
        got.threads[4].comments[0]
            .author
            .as_ref()
            .and_then(|a| a.association),
        Some(Association::Member),
        "{name}"
    );
    assert!(got.threads.iter().any(|t| t.is_resolved), "{name}");
    assert!(got.threads.iter().any(|t| !t.is_resolved), "{name}");
    assert!(got.threads[5].is_outdated, "{name}");
    assert_eq!(
        got.threads[5].original_lines,
        Some(LineRange::new(10, 12)),
        "{name}"
    );
    assert!(comments().all(|c| c.diff_hunk.is_some()), "{name}");
}

/// A pull request the host does not have is [`HostError::NotFound`].
pub async fn an_unknown_pull_request_is_not_found<B: Backend>() {
    let b = B::start(small_pr()).await;
    let e = b.host().pull_request(&repo(), 99).await.unwrap_err();
    assert!(matches!(e, HostError::NotFound(_)), "{}: {e:?}", B::NAME);
    let other = RepoId::parse("acme/nothing").expect("a valid repository");
    let e = b.host().pull_request(&other, 1).await.unwrap_err();
    assert!(matches!(e, HostError::NotFound(_)), "{}: {e:?}", B::NAME);
}

/// A reply is on the next read: last in its thread, the body as sent (the automated header and
/// the key), by the viewer, with the id the host returned; the thread stays a bot thread.
pub async fn a_reply_is_there_on_the_next_read_marked_as_automated<B: Backend>() {
    let pr = small_pr();
    let b = B::start(pr.clone()).await;
    let body = marked("T1", "Fixed in 3f2a9c1.");
    let posted = b
        .host()
        .reply(&ThreadId::from("T1"), &body)
        .await
        .unwrap_or_else(|e| panic!("{}: {e}", B::NAME));
    let got = read(&b).await;
    let t = thread(&got, "T1");
    assert_eq!(t.comments.len(), 2, "{}", B::NAME);
    let reply = &t.comments[1];
    assert_eq!(reply.id, posted.id, "{}", B::NAME);
    assert_eq!(reply.body, body, "{}", B::NAME);
    assert!(post::is_marked(&reply.body, DEFAULT_AUTOMATED_HEADER));
    assert_eq!(reply.author, pr.author, "{}: posted as the viewer", B::NAME);
    assert!(
        !AutomationSettings::default().thread_is_human(t, &got),
        "{}: our marked reply keeps the thread automated",
        B::NAME
    );
    assert_eq!(thread(&got, "T2").comments.len(), 1, "{}", B::NAME);
    assert_eq!(
        b.mutations(),
        vec![Mutation::Reply(ThreadId::from("T1"), body)],
        "{}",
        B::NAME
    );
}

/// A reply or comment that is blank, lacks the automated header or lacks the idempotency key
/// is [`HostError::Refused`], and nothing is posted.
pub async fn an_unmarked_or_blank_post_is_refused_and_nothing_is_posted<B: Backend>() {
    let pr = small_pr();
    let b = B::start(pr.clone()).await;
    let key = post::idempotency_key(&ThreadId::from("T1"), "Done.");
    let no_header = post::own_words_body("Done.", &key);
    let no_key = format!("{DEFAULT_AUTOMATED_HEADER} **review**\n\nDone.");
    for body in ["", "  \n", "plain words", &no_header, &no_key] {
        let e = b
            .host()
            .reply(&ThreadId::from("T1"), body)
            .await
            .unwrap_err();
        assert!(
            matches!(e, HostError::Refused(_)),
            "{}: reply {body:?}: {e:?}",
            B::NAME
        );
        let e = b.host().comment(&pr.id, body).await.unwrap_err();
        assert!(
            matches!(e, HostError::Refused(_)),
            "{}: comment {body:?}: {e:?}",
            B::NAME
        );
    }
    assert_eq!(b.mutations(), vec![], "{}", B::NAME);
    assert_eq!(read(&b).await.threads, pr.threads, "{}", B::NAME);
}

/// A thread, comment or pull request id the host does not know is [`HostError::NotFound`], for
/// every write.
pub async fn an_unknown_thread_or_comment_is_not_found<B: Backend>() {
    let b = B::start(small_pr()).await;
    let host = b.host();
    let nope = ThreadId::from("PRRT_nope");
    let mut errors = vec![
        (
            "reply",
            host.reply(&nope, &marked("PRRT_nope", "Done."))
                .await
                .unwrap_err(),
        ),
        ("unresolve", host.unresolve_thread(&nope).await.unwrap_err()),
        (
            "minimize",
            host.minimize(&CommentId::from("PRRC_nope"), MinimizeReason::Resolved)
                .await
                .unwrap_err(),
        ),
        (
            "comment",
            host.comment("PR_nope", &marked("PR_nope", "All done."))
                .await
                .unwrap_err(),
        ),
    ];
    let mut resolved = host.resolve_threads(std::slice::from_ref(&nope)).await;
    assert_eq!(resolved.len(), 1, "{}", B::NAME);
    errors.push(("resolve", resolved.remove(0).unwrap_err()));
    for (what, e) in errors {
        assert!(
            matches!(e, HostError::NotFound(_)),
            "{}: {what}: {e:?}",
            B::NAME
        );
    }
    assert_eq!(b.mutations(), vec![], "{}", B::NAME);
}

/// A resolve is on the next read; resolving a resolved thread succeeds, and leaves it resolved.
pub async fn a_resolve_is_there_on_the_next_read_and_resolving_twice_succeeds<B: Backend>() {
    let b = B::start(small_pr()).await;
    let results = b.host().resolve_threads(&ids(&["T1", "T3"])).await;
    assert!(
        results.iter().all(Result::is_ok),
        "{}: {results:?}",
        B::NAME
    );
    let got = read(&b).await;
    assert!(thread(&got, "T1").is_resolved && thread(&got, "T3").is_resolved);
    assert!(!thread(&got, "T2").is_resolved, "{}", B::NAME);
    let again = b.host().resolve_threads(&ids(&["T1"])).await;
    assert!(again.iter().all(Result::is_ok), "{}: {again:?}", B::NAME);
    assert!(thread(&read(&b).await, "T1").is_resolved, "{}", B::NAME);
    assert!(
        b.host().resolve_threads(&[]).await.is_empty(),
        "{}",
        B::NAME
    );
}

/// One unknown id among several to resolve fails alone, in its place; the others land.
pub async fn one_unknown_id_in_a_resolve_fails_only_that_one<B: Backend>() {
    let b = B::start(small_pr()).await;
    let results = b
        .host()
        .resolve_threads(&ids(&["T1", "PRRT_nope", "T2"]))
        .await;
    assert_eq!(results.len(), 3, "{}", B::NAME);
    assert!(
        results[0].is_ok() && results[2].is_ok(),
        "{}: {results:?}",
        B::NAME
    );
    assert!(
        matches!(results[1], Err(HostError::NotFound(_))),
        "{}: {:?}",
        B::NAME,
        results[1]
    );
    let got = read(&b).await;
    assert!(thread(&got, "T1").is_resolved && thread(&got, "T2").is_resolved);
}

/// An unresolve reopens a resolved thread (on the next read); reopening an open one succeeds.
pub async fn an_unresolve_reopens_and_reopening_an_open_thread_succeeds<B: Backend>() {
    let pr = PrBuilder::new()
        .thread("T1", "src/a.rs", 1, &[(bot("coderabbitai"), "x")])
        .with_last(|t| t.is_resolved = true)
        .thread("T2", "src/a.rs", 2, &[(bot("coderabbitai"), "y")])
        .build();
    let b = B::start(pr).await;
    for id in ["T1", "T1", "T2"] {
        b.host()
            .unresolve_thread(&ThreadId::from(id))
            .await
            .unwrap_or_else(|e| panic!("{}: {id}: {e}", B::NAME));
    }
    let got = read(&b).await;
    assert!(got.threads.iter().all(|t| !t.is_resolved), "{}", B::NAME);
}

/// A minimize lands (the host records it); minimizing a minimized comment succeeds. Review
/// comments and top-level comments alike.
pub async fn a_minimize_hides_and_hiding_twice_succeeds<B: Backend>() {
    let mut pr = small_pr();
    pr.comments.push(review_core::model::IssueComment {
        id: CommentId::from("IC_1"),
        author: Some(bot("coderabbitai")),
        body: "Summary".to_owned(),
        created_at: "2026-11-30T10:00:00Z".to_owned(),
        url: String::new(),
    });
    let review_comment = pr.threads[0].comments[0].id.clone();
    let b = B::start(pr.clone()).await;
    for (comment, reason) in [
        (&review_comment, MinimizeReason::Outdated),
        (&review_comment, MinimizeReason::Resolved),
        (&CommentId::from("IC_1"), MinimizeReason::Duplicate),
    ] {
        b.host()
            .minimize(comment, reason)
            .await
            .unwrap_or_else(|e| panic!("{}: {comment}: {e}", B::NAME));
    }
    let minimized: Vec<_> = b
        .mutations()
        .into_iter()
        .filter_map(|m| match m {
            Mutation::Minimize(c) => Some(c),
            _ => None,
        })
        .collect();
    assert_eq!(
        minimized,
        vec![
            review_comment.clone(),
            review_comment,
            CommentId::from("IC_1")
        ],
        "{}",
        B::NAME
    );
    // Hiding is not deleting: the comments are still read.
    let got = read(&b).await;
    assert_eq!(got.threads, pr.threads, "{}", B::NAME);
    assert_eq!(got.comments.len(), 1, "{}", B::NAME);
}

/// A top-level comment is on the next read, after those there were, with its body (header and
/// key) and the id the host returned.
pub async fn a_pr_comment_is_there_on_the_next_read_with_its_key<B: Backend>() {
    let pr = small_pr();
    let b = B::start(pr.clone()).await;
    let body = marked(&pr.id, "All review threads are resolved.");
    let posted = b
        .host()
        .comment(&pr.id, &body)
        .await
        .unwrap_or_else(|e| panic!("{}: {e}", B::NAME));
    let got = read(&b).await;
    assert_eq!(got.comments.len(), 1, "{}", B::NAME);
    let c = &got.comments[0];
    assert_eq!((&c.id, &c.body), (&posted.id, &body), "{}", B::NAME);
    assert_eq!(c.author, pr.author, "{}: posted as the viewer", B::NAME);
    assert_eq!(
        post::find_key(&c.body),
        post::find_key(&body),
        "{}",
        B::NAME
    );
    assert_eq!(b.mutations(), vec![Mutation::Comment(body)], "{}", B::NAME);
}

/// A post whose answer was lost landed once. The host either finds it and returns it, or says
/// it may have been posted ([`Capabilities::finds_lost_posts`]); never does it post it again,
/// and the next read shows its key once, so a caller that looks for the key first (as the next
/// run does) does not post it twice.
pub async fn a_post_whose_answer_was_lost_is_there_once<B: Backend>() {
    let pr = small_pr();
    let b = B::start(pr.clone()).await;
    let reply = marked("T1", "Not applying this: the input is checked upstream.");
    b.lose_next_answer(Post::Reply);
    let replied = b.host().reply(&ThreadId::from("T1"), &reply).await;
    let comment = marked(&pr.id, "All review threads are resolved.");
    b.lose_next_answer(Post::Comment);
    let commented = b.host().comment(&pr.id, &comment).await;
    for (what, result) in [("reply", &replied), ("comment", &commented)] {
        match (B::CAPABILITIES.finds_lost_posts, result) {
            (true, Ok(_)) => {}
            (false, Err(e)) if e.may_have_been_posted() => {}
            (finds, other) => panic!(
                "{}: {what}: finds_lost_posts is {finds}, and the post ended {other:?}",
                B::NAME
            ),
        }
    }
    let got = read(&b).await;
    let carrying = |bodies: Vec<&str>, body: &str| {
        bodies
            .into_iter()
            .filter(|b| post::find_key(b) == post::find_key(body))
            .count()
    };
    let in_thread = thread(&got, "T1").comments.iter().map(|c| c.body.as_str());
    assert_eq!(carrying(in_thread.collect(), &reply), 1, "{}", B::NAME);
    let on_pr = got.comments.iter().map(|c| c.body.as_str());
    assert_eq!(carrying(on_pr.collect(), &comment), 1, "{}", B::NAME);
    if let Ok(posted) = &replied {
        assert_eq!(thread(&got, "T1").comments[1].id, posted.id, "{}", B::NAME);
    }
    assert_eq!(
        b.mutations(),
        vec![
            Mutation::Reply(ThreadId::from("T1"), reply),
            Mutation::Comment(comment)
        ],
        "{}: each sent once",
        B::NAME
    );
}

/// Every kind of request, reads and writes, on [`small_pr`], with the error each ended in.
async fn every_request(host: &dyn ReviewHost) -> Vec<(&'static str, HostError)> {
    let mut errors = vec![("read", host.pull_request(&repo(), 1).await.unwrap_err())];
    for result in host.resolve_threads(&ids(&["T1", "T2"])).await {
        errors.push(("resolve", result.unwrap_err()));
    }
    let t1 = ThreadId::from("T1");
    errors.push(("unresolve", host.unresolve_thread(&t1).await.unwrap_err()));
    let reply = marked("T1", "Not applying this.");
    errors.push(("reply", host.reply(&t1, &reply).await.unwrap_err()));
    let comment = marked("PR_1", "All review threads are resolved.");
    errors.push(("comment", host.comment("PR_1", &comment).await.unwrap_err()));
    let first = CommentId::from("PRRC_1");
    let minimize = host.minimize(&first, MinimizeReason::Resolved).await;
    errors.push(("minimize", minimize.unwrap_err()));
    let request = host
        .request_review("PR_1", "copilot-pull-request-reviewer")
        .await;
    errors.push(("request review", request.unwrap_err()));
    errors
}

/// With the token refused, every request is [`HostError::Unauthorized`], which stops all
/// requests, and nothing is changed.
pub async fn a_refused_token_is_unauthorized_on_every_request<B: Backend>() {
    let b = B::start(small_pr()).await;
    b.refuse_token();
    every_request_stops(&b, |e| matches!(e, HostError::Unauthorized { .. })).await;
}

/// With the rate limit spent, every request is [`HostError::Throttled`] with the time until it
/// resets, which stops all requests, and nothing is changed.
pub async fn a_spent_rate_limit_is_throttled_with_its_reset_on_every_request<B: Backend>() {
    let b = B::start(small_pr()).await;
    b.spend_rate_limit(Duration::from_secs(3600));
    let reset = Duration::from_secs(3590)..=Duration::from_secs(3602);
    every_request_stops(
        &b,
        |e| matches!(e, HostError::Throttled { reset_in: Some(r), .. } if reset.contains(r)),
    )
    .await;
}

/// Sends every kind of request to `b`'s host, and checks that each ended in an error that is
/// `expected` and stops all requests, and that nothing landed.
async fn every_request_stops<B: Backend>(b: &B, expected: impl Fn(&HostError) -> bool) {
    for (request, e) in every_request(b.host()).await {
        assert!(expected(&e), "{}: {request}: {e:?}", B::NAME);
        assert!(e.stops_all_requests(), "{}: {request}", B::NAME);
    }
    assert_eq!(b.mutations(), vec![], "{}", B::NAME);
}

/// A thread the host fails on fails its own mutations with [`HostError::Unavailable`] (which
/// does not stop the other requests), and only those: the others land, and the failed ones
/// left nothing behind.
pub async fn a_failing_thread_fails_only_its_own_mutations<B: Backend>() {
    let b = B::start(small_pr()).await;
    let t2 = ThreadId::from("T2");
    b.fail_thread(&t2);
    let unavailable = |what: &str, e: &HostError| {
        assert!(
            matches!(e, HostError::Unavailable { .. }) && !e.stops_all_requests(),
            "{}: {what}: {e:?}",
            B::NAME
        );
    };
    let results = b.host().resolve_threads(&ids(&["T1", "T2", "T3"])).await;
    assert!(
        results[0].is_ok() && results[2].is_ok(),
        "{}: {results:?}",
        B::NAME
    );
    unavailable("resolve", results[1].as_ref().unwrap_err());
    let e = b
        .host()
        .reply(&t2, &marked("T2", "Done."))
        .await
        .unwrap_err();
    unavailable("reply", &e);
    unavailable(
        "unresolve",
        &b.host().unresolve_thread(&t2).await.unwrap_err(),
    );
    b.host()
        .reply(&ThreadId::from("T3"), &marked("T3", "Done."))
        .await
        .unwrap_or_else(|e| panic!("{}: another thread's reply: {e}", B::NAME));
    let got = read(&b).await;
    assert!(thread(&got, "T1").is_resolved && thread(&got, "T3").is_resolved);
    let failed = thread(&got, "T2");
    assert!(
        !failed.is_resolved && failed.comments.len() == 1,
        "{}",
        B::NAME
    );
    assert_eq!(thread(&got, "T3").comments.len(), 2, "{}", B::NAME);
}

/// A review request from a bot lands as one mutation each time it is asked (requesting one
/// already requested succeeds); `[bot]` may be written or not. A pull request the host does not
/// know is [`HostError::NotFound`]; a login that is not a plain login is refused before
/// anything is sent.
pub async fn a_review_request_is_sent_once_each_time_and_a_bad_one_is_refused<B: Backend>() {
    let pr = small_pr();
    let b = B::start(pr.clone()).await;
    let copilot = "copilot-pull-request-reviewer";
    b.host()
        .request_review(&pr.id, copilot)
        .await
        .unwrap_or_else(|e| panic!("{}: {e}", B::NAME));
    b.host()
        .request_review(&pr.id, &format!("{copilot}[bot]"))
        .await
        .unwrap_or_else(|e| panic!("{}: again: {e}", B::NAME));
    for bad in ["evil\n/approve", "a b", "", "x[bot][bot]", "../x"] {
        let e = b.host().request_review(&pr.id, bad).await.unwrap_err();
        assert!(
            matches!(e, HostError::Refused(_)),
            "{}: {bad:?}: {e:?}",
            B::NAME
        );
    }
    let e = b
        .host()
        .request_review("PR_nope", copilot)
        .await
        .unwrap_err();
    assert!(matches!(e, HostError::NotFound(_)), "{}: {e:?}", B::NAME);
    assert_eq!(
        b.mutations(),
        vec![
            Mutation::RequestReview(copilot.to_owned()),
            Mutation::RequestReview(copilot.to_owned())
        ],
        "{}",
        B::NAME
    );
    // A review request changes no thread and posts nothing.
    let got = read(&b).await;
    assert_eq!(got.threads, pr.threads, "{}", B::NAME);
    assert_eq!(got.comments, pr.comments, "{}", B::NAME);
}
