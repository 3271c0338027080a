//! The pure half of answering on a pull request: what a reply is and whom it answers, the commits
//! it cites, the replies the review loop's decisions owe, and the reply ledger's records with
//! its decision for one reply (post it, or it is posted already). The use-case that posts them
//! through the ports is `review_app::respond`.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::decisions::{self, Decisions};
use crate::model::{CommentId, PullRequest, ReviewId, ThreadId};
use crate::ports::PostedComment;
use crate::post;
use crate::site::Site;
use crate::watch::{REPOST_LIMIT, Repost, WatchState};

/// What a reply answers: a review thread, or a review (whose out-of-diff findings get one PR
/// comment).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ReplyTarget {
    /// A review thread: the reply goes in it.
    Thread(ThreadId),
    /// A review: the answer is one top-level comment on the pull request.
    Review(ReviewId),
}

impl ReplyTarget {
    /// The id, as reports name it.
    pub fn id(&self) -> &str {
        match self {
            Self::Thread(t) => &t.0,
            Self::Review(r) => &r.0,
        }
    }

    /// The idempotency key of `text` posted to this target (a review's under `review:ID`).
    pub fn key(&self, text: &str) -> String {
        match self {
            Self::Thread(t) => post::idempotency_key(t, text),
            Self::Review(r) => post::idempotency_key(&ThreadId(format!("review:{}", r.0)), text),
        }
    }

    /// The ledger's entry for a post with `key` here: `ID:KEY`.
    pub fn ledger_entry(&self, key: &str) -> String {
        format!("{}:{key}", self.id())
    }
}

/// The commit a reply written from a decision waits for, as recorded.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Awaited {
    /// The reply's own fix: it waits until the fix is on the PR's head and cites it as it
    /// landed there.
    OwnFix(String),
    /// The commit of the round the reply was decided in: the round's answers go out together,
    /// once it is pushed.
    RoundCommit(String),
}

impl Awaited {
    /// The commit, as recorded.
    pub fn commit(&self) -> &str {
        match self {
            Self::OwnFix(c) | Self::RoundCommit(c) => c,
        }
    }
}

/// How the answer to a bot's thread reaches the bot, from what its channel can hear.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Voice {
    /// Post the reply (and resolve as asked).
    #[default]
    Reply,
    /// The bot does not read replies: resolve the thread without one (when the reply would
    /// resolve it; otherwise the reply is posted).
    ResolveWithoutReply,
    /// The bot resolves its own thread once a push fixes it: a reply about the tool's fix is
    /// neither posted nor followed by a resolve once the fix has landed.
    LeaveToBot,
}

/// One reply to post.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Reply {
    /// What it answers.
    pub target: ReplyTarget,
    /// Its text (without the header and the key, which posting adds).
    pub body: String,
    /// Whether the thread is resolved after the reply (never for a review).
    pub resolve: bool,
    /// For a reply written from a decision: the commit it waits for.
    pub awaits: Option<Awaited>,
    /// How it reaches the bot: [`Voice::Reply`] unless the bot's channel says otherwise (never
    /// for a reply the user wrote).
    pub voice: Voice,
}

impl Reply {
    /// A reply to thread `thread`.
    pub fn thread(thread: &str, body: String, resolve: bool) -> Self {
        Self {
            target: ReplyTarget::Thread(ThreadId(thread.to_owned())),
            body,
            resolve,
            awaits: None,
            voice: Voice::Reply,
        }
    }

    /// The one comment answering review `review`'s out-of-diff findings.
    pub fn review(review: &str, body: String) -> Self {
        Self {
            target: ReplyTarget::Review(ReviewId(review.to_owned())),
            body,
            resolve: false,
            awaits: None,
            voice: Voice::Reply,
        }
    }
}

/// The commits a reply cites: runs of 7 to 40 hex digits (digits alone included) that follow
/// "in " (as in "Fixed in 3f2a9c1") or stand alone in a code span (`` `3f2a9c1` ``).
pub fn cited_commits(text: &str) -> Vec<&str> {
    let is_sha = |w: &str| (7..=40).contains(&w.len()) && w.bytes().all(|b| b.is_ascii_hexdigit());
    let mut out: Vec<&str> = Vec::new();
    // Code spans.
    for (i, span) in text.split('`').enumerate() {
        if i % 2 == 1 && is_sha(span.trim()) {
            out.push(span.trim());
        }
    }
    // "in <sha>", whatever precedes "in".
    let words: Vec<&str> = text
        .split(|c: char| c.is_whitespace())
        .filter(|w| !w.is_empty())
        .collect();
    for pair in words.windows(2) {
        if pair[0].eq_ignore_ascii_case("in") {
            let w = pair[1].trim_matches(|c: char| !c.is_ascii_alphanumeric());
            if is_sha(w) {
                out.push(w);
            }
        }
    }
    out.sort_unstable();
    out.dedup();
    out
}

/// What the loop's decisions and the watcher's reposts owe, as [`owed`] reads them: the replies
/// to post, and the changes to record first.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Owed {
    /// The replies, decided findings first, then reposts.
    pub replies: Vec<Reply>,
    /// Decided threads whose reply about a fix has no fix commit recorded yet (`resolvedSha`).
    pub awaiting_fix_sha: Vec<Site>,
    /// Decided threads resolved (or gone) on GitHub before their answer: settled as closed.
    pub closed: Vec<Site>,
    /// Reposts resolved (or gone) before their answer: settled as answered.
    pub closed_reposts: Vec<Site>,
    /// Reposts seen [`REPOST_LIMIT`] times: escalated for a person instead of answered.
    pub escalate: Vec<Repost>,
}

/// The replies owed according to `decisions` and the watcher's reposts in `watch`, on `pr` as
/// read. Out-of-diff findings (recorded under their review) are answered apart.
pub fn owed(decisions: &Decisions, watch: &WatchState, pr: &PullRequest) -> Owed {
    let mut owed = Owed::default();
    for seen in decisions.owed().map(|(_, s)| s) {
        // Out-of-diff findings (under their review) are answered apart.
        let Some(id) = seen.thread_id.as_thread() else {
            continue;
        };
        let Some(thread) = pr.thread(id).filter(|t| !t.is_resolved) else {
            owed.closed.push(seen.thread_id.clone());
            continue;
        };
        match decisions::reply_text(seen) {
            Some(text) => {
                let mut reply = Reply::thread(&id.0, text, thread.all_comments_read);
                if seen.claims_fix() {
                    reply.awaits = seen.resolved_sha.clone().map(Awaited::OwnFix);
                } else if let Some(commit) = decisions.round_commit(seen.decided_in_round) {
                    reply.awaits = Some(Awaited::RoundCommit(commit.to_owned()));
                }
                owed.replies.push(reply);
            }
            None => owed.awaiting_fix_sha.push(seen.thread_id.clone()),
        }
    }
    for repost in &watch.reposted {
        if decisions.answered_reposts.contains_key(&repost.thread_id)
            || decisions.is_escalated_thread(&repost.thread_id)
        {
            continue;
        }
        let open = repost
            .thread_id
            .as_thread()
            .and_then(|id| pr.thread(id))
            .is_some_and(|t| !t.is_resolved);
        if !open {
            owed.closed_reposts.push(repost.thread_id.clone());
            continue;
        }
        if repost.count >= REPOST_LIMIT {
            owed.escalate.push(repost.clone());
            continue;
        }
        let Some(prior) = decisions.seen.get(&repost.fingerprint) else {
            continue;
        };
        let prior_url = prior
            .thread_id
            .as_thread()
            .and_then(|id| pr.thread(id))
            .and_then(|t| t.first_comment())
            .map(|c| c.url.as_str())
            .filter(|u| !u.is_empty());
        let mut reply = Reply::thread(
            repost.thread_id.as_str(),
            decisions::repost_reply(prior, prior_url),
            repost.all_comments_read,
        );
        if prior.claims_fix() {
            reply.awaits = prior.resolved_sha.clone().map(Awaited::OwnFix);
        }
        owed.replies.push(reply);
    }
    owed
}

/// The answers owed to out-of-diff reviews: one comment for each review of `watch` not answered
/// yet whose findings are all decided ([`crate::watch::OutOfDiff::reply`]).
pub fn out_of_diff_answers(decisions: &Decisions, watch: &WatchState) -> Vec<Reply> {
    watch
        .out_of_diff
        .iter()
        .filter(|o| !decisions.addressed_out_of_diff.contains_key(&o.review_id))
        .filter_map(|review| {
            review
                .reply(decisions)
                .map(|text| Reply::review(&review.review_id, text))
        })
        .collect()
}

/// The reply ledger: what the tool posted on a pull request, by `ID:KEY`, so a rerun can see it
/// already did, and so the gate knows the tool's own comments by id.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Ledger {
    /// The posts, by `thread:key` (`review:key` for a review's comment).
    pub posted: BTreeMap<String, Posted>,
}

/// One post in the [`Ledger`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Posted {
    /// The thread (or review) answered.
    pub thread: String,
    /// The comment's node id.
    pub comment: String,
    /// A link to it.
    pub url: String,
}

/// The ledger's decision on one reply, given what the host shows.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LedgerDecision {
    /// Neither the ledger nor the host has it: post it.
    Post,
    /// The ledger records it: posted before.
    AlreadyPosted,
    /// The host has it but the ledger does not (a run stopped between the post and the
    /// record): record this, and do not post again.
    RecordLanded(Posted),
}

/// A comment on the host that carries a reply's key.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Landed<'a> {
    /// Its node id.
    pub id: &'a CommentId,
    /// Its link.
    pub url: &'a str,
}

impl<'a> From<&'a PostedComment> for Landed<'a> {
    fn from(posted: &'a PostedComment) -> Self {
        Self {
            id: &posted.id,
            url: &posted.url,
        }
    }
}

impl Posted {
    /// The record of `comment`, posted to `target`.
    fn of(target: &ReplyTarget, comment: Landed<'_>) -> Self {
        Self {
            thread: target.id().to_owned(),
            comment: comment.id.0.clone(),
            url: comment.url.to_owned(),
        }
    }
}

impl Ledger {
    /// Records `comment`, posted to `target`, as `entry`.
    pub fn record(&mut self, entry: String, target: &ReplyTarget, comment: Landed<'_>) {
        self.posted.insert(entry, Posted::of(target, comment));
    }

    /// What to do with the reply recorded as `entry` (see [`ReplyTarget::ledger_entry`]) for
    /// `target`, when `landed` is the comment on the host carrying its key, if any.
    pub fn decide(
        &self,
        entry: &str,
        target: &ReplyTarget,
        landed: Option<Landed<'_>>,
    ) -> LedgerDecision {
        match (self.posted.contains_key(entry), landed) {
            (true, _) => LedgerDecision::AlreadyPosted,
            (false, Some(c)) => LedgerDecision::RecordLanded(Posted::of(target, c)),
            (false, None) => LedgerDecision::Post,
        }
    }

    /// The ids of the comments the tool posted (a record of a review request has none).
    pub fn comment_ids(&self) -> impl Iterator<Item = CommentId> + '_ {
        self.posted
            .values()
            .filter(|p| !p.comment.is_empty())
            .map(|p| CommentId(p.comment.clone()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cited_commits_follow_in_or_stand_in_a_code_span_digits_alone_included() {
        assert_eq!(
            cited_commits("Fixed in 3f2a9c1 — renamed."),
            vec!["3f2a9c1"]
        );
        assert_eq!(
            cited_commits("Fixed in `0123456789abcdef0123456789abcdef01234567`."),
            vec!["0123456789abcdef0123456789abcdef01234567"]
        );
        // About one short sha in 27 is all digits: it is a citation all the same.
        assert_eq!(cited_commits("Fixed in 8675309."), vec!["8675309"]);
        assert_eq!(cited_commits("see `1234567`"), vec!["1234567"]);
        assert!(cited_commits("Not applying this — the cache is deliberate.").is_empty());
        assert!(cited_commits("see issue 1234567 and the word deadbeef").is_empty());
    }

    #[test]
    fn the_ledger_posts_what_nobody_has_and_records_what_only_the_host_has() {
        let target = ReplyTarget::Thread(ThreadId("PRRT_1".to_owned()));
        let key = target.key("Fixed.");
        let entry = target.ledger_entry(&key);
        assert!(entry.starts_with("PRRT_1:"));
        let mut ledger = Ledger::default();
        assert_eq!(ledger.decide(&entry, &target, None), LedgerDecision::Post);
        let id = CommentId("PRRC_9".to_owned());
        let landed = Landed {
            id: &id,
            url: "https://x/9",
        };
        let LedgerDecision::RecordLanded(posted) = ledger.decide(&entry, &target, Some(landed))
        else {
            panic!("a landed reply the ledger lacks is recorded");
        };
        assert_eq!(posted.comment, "PRRC_9");
        ledger.posted.insert(entry.clone(), posted);
        assert_eq!(
            ledger.decide(&entry, &target, Some(landed)),
            LedgerDecision::AlreadyPosted
        );
        assert_eq!(ledger.comment_ids().count(), 1);
    }

    #[test]
    fn a_reviews_key_is_not_its_threads() {
        let review = ReplyTarget::Review(ReviewId("X".to_owned()));
        let thread = ReplyTarget::Thread(ThreadId("X".to_owned()));
        assert_ne!(review.key("t"), thread.key("t"));
        assert_eq!(
            review.key("t"),
            post::idempotency_key(&ThreadId("review:X".to_owned()), "t")
        );
    }
}
