//! The review loop's decisions: the triager's verdict on each finding, the escalations left for
//! a person, and the out-of-diff reviews answered.
//!
//! The decisions file is the loop's memory across sessions: a verdict written here is not
//! triaged again, and its reply prose survives until the reply is posted (`replied` flips to
//! `true` only then). The watcher reads it (to drop decided findings from what is pending, and
//! to judge quiescence) but never writes it.
//!
//! A triager's answer is untrusted output: [`judge`] turns anything that is not a well-formed,
//! evidenced verdict into an escalation, and escalates findings a comment must not be able to
//! talk the loop into acting on (security-flavoured findings, deny-listed paths, fixes that
//! would push, force or delete).

use std::collections::BTreeMap;
use std::fmt;

use serde::{Deserialize, Serialize};

use crate::plan::is_denied;
use crate::site::Site;

/// The verdicts a triager may return.
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum Verdict {
    /// The finding is right; the loop fixes it.
    Valid,
    /// The finding was right once and is already addressed.
    Stale,
    /// The finding is wrong.
    FalsePositive,
    /// Applying it as suggested would break a project rule.
    ConflictsWithRule,
    /// Right, but not this PR's business.
    OutOfScope,
    /// A person must decide.
    Escalate,
}

impl Verdict {
    /// Every verdict, in the order the workflow lists them.
    pub const ALL: [Self; 6] = [
        Self::Valid,
        Self::Stale,
        Self::FalsePositive,
        Self::ConflictsWithRule,
        Self::OutOfScope,
        Self::Escalate,
    ];

    /// The name as written in files: `VALID`, `FALSE_POSITIVE`, ...
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Valid => "VALID",
            Self::Stale => "STALE",
            Self::FalsePositive => "FALSE_POSITIVE",
            Self::ConflictsWithRule => "CONFLICTS_WITH_RULE",
            Self::OutOfScope => "OUT_OF_SCOPE",
            Self::Escalate => "ESCALATE",
        }
    }

    /// Reads a verdict name, ASCII case-insensitively, `-` or `_` between words.
    pub fn parse(text: &str) -> Option<Self> {
        let norm = text.trim().replace('-', "_").to_ascii_uppercase();
        Self::ALL.into_iter().find(|v| v.as_str() == norm)
    }
}

impl fmt::Display for Verdict {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A decided finding, under its fingerprint in [`Decisions::seen`].
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Seen {
    /// Where it was decided: its thread (or review, or report).
    pub thread_id: Site,
    /// Never [`Verdict::Escalate`]: escalations live in [`Decisions::escalated`].
    pub verdict: Verdict,
    /// The reply prose, kept here so it survives the session that wrote it.
    pub reasoning: String,
    /// What the triager checked (file:line references, commands run).
    #[serde(default)]
    pub evidence: Vec<String>,
    /// How the fix would go, for [`Verdict::Valid`] and [`Verdict::ConflictsWithRule`].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fix_sketch: Option<String>,
    /// The commit the reply cites (the fix, for [`Verdict::Valid`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resolved_sha: Option<String>,
    /// The round it was decided in.
    pub decided_in_round: u32,
    /// The file the finding is on (empty when unknown).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub path: String,
    /// `Some(true)` once the reply is posted. Absent in files written before the field existed:
    /// absent is not `true`, and a resumed run checks the thread (see [`Decisions::unreconciled`]).
    #[serde(default)]
    pub replied: Option<bool>,
    /// Why the tool owes this decision no reply although it posted none: the thread became a
    /// person's, or was closed on GitHub, before its answer. A settled decision counts as
    /// answered for quiescence. Absent while the reply is still the tool's to post.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub settled: Option<Settled>,
}

/// Why a decided finding needs no reply from the tool, in [`Seen::settled`].
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum Settled {
    /// A person took part in the thread (or reopened it) after the verdict: the thread is
    /// theirs now, and the PR's author answers it.
    HandedToPerson,
    /// The thread was resolved, or went away, on GitHub before its answer.
    ClosedOnGitHub,
    /// The bot cannot read replies in its threads: the thread was resolved without one.
    ResolvedWithoutReply,
    /// The bot resolves its own thread once a push fixes it: the tool's fix landed, and the
    /// thread is left to the bot, with no reply.
    LeftToBot,
}

impl Settled {
    /// How the summaries say it.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::HandedToPerson => "handed to a person",
            Self::ClosedOnGitHub => "closed on GitHub before its answer",
            Self::ResolvedWithoutReply => "resolved without reply (the bot does not read replies)",
            Self::LeftToBot => "left to the bot (it resolves its own fixed threads)",
        }
    }
}

impl Seen {
    /// Whether this decision's reply speaks of a fix the tool made: [`Verdict::Valid`], or
    /// [`Verdict::ConflictsWithRule`] with a fix sketch (fixed another way). Such a reply waits
    /// for the fix's commit, and cites it once it is on the pull request's head.
    pub fn claims_fix(&self) -> bool {
        self.verdict == Verdict::Valid
            || (self.verdict == Verdict::ConflictsWithRule
                && self
                    .fix_sketch
                    .as_deref()
                    .is_some_and(|f| !f.trim().is_empty()))
    }
}

/// A finding left for a person, in [`Decisions::escalated`].
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Escalation {
    /// The finding's fingerprint.
    pub fingerprint: String,
    /// Where it was escalated: its thread (or review, or report).
    pub thread_id: Site,
    /// Why: malformed answer, no evidence, a deny-listed action, the triager's own reason, ...
    pub reason: String,
    /// The round it was escalated in.
    pub escalated_in_round: u32,
}

/// The decisions file: `<common dir>/review/pulls/OWNER/NAME/N/decisions.json`.
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Decisions {
    /// The current round: the one new verdicts are recorded in (at least 1).
    #[serde(default)]
    pub round: u32,
    /// Decided findings by fingerprint.
    #[serde(default)]
    pub seen: BTreeMap<String, Seen>,
    /// Escalated findings.
    #[serde(default)]
    pub escalated: Vec<Escalation>,
    /// Out-of-diff reviews answered with an aggregate comment, by review id.
    #[serde(default)]
    pub addressed_out_of_diff: BTreeMap<String, bool>,
    /// Reposts settled, by the new thread's id: `true` once answered with a pointer to the prior
    /// decision, `false` when a person took the thread over before the answer (none is owed).
    #[serde(default)]
    pub answered_reposts: BTreeMap<Site, bool>,
    /// Bot findings on lines one of the loop's own fix commits introduced (see
    /// [`crate::knock_on`]), once each, in the order they were found. Absent in files written
    /// before the field existed, and while there are none.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub knock_ons: Vec<KnockOn>,
}

/// A knock-on, in [`Decisions::knock_ons`]: a new bot finding on a line that a round commit of
/// the loop's own last touched at the head.
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct KnockOn {
    /// The new finding's fingerprint.
    pub fingerprint: String,
    /// Where it was raised: its thread (or review).
    pub thread_id: Site,
    /// The file it is on.
    pub path: String,
    /// The line it is on.
    pub line: u32,
    /// The round commit that last touched the line, as the decisions record it.
    pub commit: String,
    /// The round that made that commit.
    pub round: u32,
}

impl Decisions {
    /// The round new verdicts go into.
    pub fn current_round(&self) -> u32 {
        self.round.max(1)
    }

    /// Whether a fingerprint is decided or escalated: no longer pending triage.
    pub fn knows(&self, fingerprint: &str) -> bool {
        self.seen.contains_key(fingerprint) || self.is_escalated(fingerprint)
    }

    /// Whether a fingerprint is escalated.
    pub fn is_escalated(&self, fingerprint: &str) -> bool {
        self.escalated.iter().any(|e| e.fingerprint == fingerprint)
    }

    /// Whether the finding `fingerprint` on `thread` needs no more triage: it is decided (on
    /// this thread, or on another: then this one is a repost), or escalated on this thread. An
    /// escalated finding raised again on a new thread is triaged again, so it is never lost.
    pub fn settles(&self, fingerprint: &str, thread: &Site) -> bool {
        self.seen.contains_key(fingerprint)
            || self
                .escalated
                .iter()
                .any(|e| e.fingerprint == fingerprint && &e.thread_id == thread)
    }

    /// Whether an escalation names `thread`.
    pub fn is_escalated_thread(&self, thread: &Site) -> bool {
        self.escalated.iter().any(|e| &e.thread_id == thread)
    }

    /// Records a judged answer: a verdict into `seen`, an escalation into `escalated` (once per
    /// fingerprint and thread). A later verdict on the same fingerprint replaces the earlier one, keeping
    /// `replied` if the thread did not change.
    pub fn record(&mut self, fingerprint: &str, thread_id: &Site, judged: Judged, round: u32) {
        match judged {
            Judged::Escalate { reason } => {
                self.seen.remove(fingerprint);
                let known = self
                    .escalated
                    .iter()
                    .any(|e| e.fingerprint == fingerprint && &e.thread_id == thread_id);
                if !known {
                    self.escalated.push(Escalation {
                        fingerprint: fingerprint.to_owned(),
                        thread_id: thread_id.clone(),
                        reason,
                        escalated_in_round: round,
                    });
                }
            }
            Judged::Decided(answer) => {
                self.escalated.retain(|e| e.fingerprint != fingerprint);
                let prior = self
                    .seen
                    .get(fingerprint)
                    .filter(|s| &s.thread_id == thread_id);
                let replied = prior
                    .filter(|s| s.reasoning == answer.reasoning)
                    .and_then(|s| s.replied);
                // A thread handed to a person stays theirs whatever a later verdict says.
                let settled = prior.and_then(|s| s.settled);
                self.seen.insert(
                    fingerprint.to_owned(),
                    Seen {
                        thread_id: thread_id.clone(),
                        verdict: answer.verdict,
                        reasoning: answer.reasoning,
                        evidence: answer.evidence,
                        fix_sketch: answer.fix_sketch,
                        resolved_sha: answer.resolved_sha,
                        decided_in_round: round,
                        path: String::new(),
                        replied: Some(replied.unwrap_or(false)),
                        settled,
                    },
                );
            }
        }
    }

    /// Decided findings whose `replied` is absent (and not settled): a resumed run must check
    /// their threads.
    pub fn unreconciled(&self) -> impl Iterator<Item = (&String, &Seen)> {
        self.seen
            .iter()
            .filter(|(_, s)| s.replied.is_none() && s.settled.is_none())
    }

    /// Decided findings still owed a reply: not replied, and not settled otherwise. A finding of
    /// a diagnostics report ([`Site::Report`]) has no thread to reply on: it is owed none.
    pub fn owed(&self) -> impl Iterator<Item = (&String, &Seen)> {
        self.seen.iter().filter(|(_, s)| {
            s.replied != Some(true) && s.settled.is_none() && !s.thread_id.is_report()
        })
    }

    /// Places the decisions on reviews: a file records a review's out-of-diff finding under the
    /// review's id, which reads back as a thread's ([`crate::site`]). Each id among `reviews`
    /// (the reviews the watcher recorded, and those answered) is a review's. The store calls
    /// this once, as it loads the file.
    pub fn place_reviews(&mut self, reviews: impl IntoIterator<Item = String>) {
        let mut reviews: std::collections::BTreeSet<String> = reviews.into_iter().collect();
        reviews.extend(self.addressed_out_of_diff.keys().cloned());
        let place = |site: &mut Site| {
            if let Site::Thread(id) = site
                && reviews.contains(&id.0)
            {
                *site = Site::Review(crate::model::ReviewId(id.0.clone()));
            }
        };
        for seen in self.seen.values_mut() {
            place(&mut seen.thread_id);
        }
        for e in &mut self.escalated {
            place(&mut e.thread_id);
        }
        for k in &mut self.knock_ons {
            place(&mut k.thread_id);
        }
    }

    /// Settles every decision on `thread` still owed a reply, as `why`: no reply is owed any
    /// more. Returns whether one was.
    pub fn settle_thread(&mut self, thread: &Site, why: Settled) -> bool {
        let mut any = false;
        for seen in self.seen.values_mut().filter(|s| &s.thread_id == thread) {
            if seen.replied != Some(true) && seen.settled.is_none() {
                seen.settled = Some(why);
                any = true;
            }
        }
        any
    }

    /// The commit `round` made, if it made one: the commit its fixes record. The round's other
    /// replies wait for it to be pushed, as its fix replies do.
    pub fn round_commit(&self, round: u32) -> Option<&str> {
        self.seen
            .values()
            .filter(|s| s.decided_in_round == round && s.claims_fix())
            .find_map(|s| s.resolved_sha.as_deref())
            .map(str::trim)
            .filter(|s| !s.is_empty())
    }
}

/// A triager's answer once read and checked.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Answer {
    /// The verdict.
    pub verdict: Verdict,
    /// The reasoning: the reply prose.
    #[serde(default)]
    pub reasoning: String,
    /// What was checked.
    #[serde(default)]
    pub evidence: Vec<String>,
    /// How the fix would go.
    #[serde(default)]
    pub fix_sketch: Option<String>,
    /// The commit a reply cites.
    #[serde(default)]
    pub resolved_sha: Option<String>,
}

/// What [`judge`] made of an answer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Judged {
    /// A verdict to record in `seen`.
    Decided(Answer),
    /// An escalation, with its reason.
    Escalate {
        /// Why.
        reason: String,
    },
}

/// What [`judge`] needs to know about the finding an answer is about.
#[derive(Debug, Clone, Copy)]
pub struct FindingFacts<'a> {
    /// The file it is on (empty when unknown).
    pub path: &'a str,
    /// Its text (the untrusted comment body).
    pub body: &'a str,
    /// Paths no fix may touch.
    pub denied_paths: &'a [String],
    /// What makes the finding security-sensitive, if the reader found it so (the bot's own mark,
    /// or the reader's documented rule): a person decides those.
    pub security: Option<&'a str>,
}

/// The deny-listed action `text` proposes, if any: the one list of [`crate::judge`].
pub fn denied_action(text: &str) -> Option<&'static str> {
    crate::judge::denied_action(text)
}

/// Reads a triager's raw answer and decides what to record.
///
/// The answer is the triager's final message: a JSON object `{verdict, reasoning, evidence,
/// fixSketch?, resolvedSha?}`, possibly inside a ```` ```json ```` fence or after some prose.
/// Escalated: no answer, malformed JSON, an unknown verdict, an empty evidence list, an empty
/// reasoning for a verdict that replies, `ESCALATE` itself, and any finding the loop must not act
/// on alone (the hard gates of [`crate::judge`]: security-sensitive, on a deny-listed path, or
/// whose fix would push, force or delete).
pub fn judge(raw: &str, facts: FindingFacts<'_>) -> Judged {
    let escalate = |reason: String| Judged::Escalate { reason };
    let text = raw.trim();
    if text.is_empty() {
        return escalate("the triager returned nothing".to_owned());
    }
    let Some(json) = json_object(text) else {
        return escalate("the triager's answer is not a JSON object".to_owned());
    };
    let value: serde_json::Value = match serde_json::from_str(json) {
        Ok(v) => v,
        Err(e) => return escalate(format!("the triager's answer is malformed JSON: {e}")),
    };
    if let Some(v) = value.get("verdict").and_then(|v| v.as_str())
        && Verdict::parse(v).is_none()
    {
        return escalate(format!("unknown verdict {v:?}"));
    }
    let mut value = value;
    if let Some(v) = value.get_mut("verdict")
        && let Some(parsed) = v.as_str().and_then(Verdict::parse)
    {
        *v = serde_json::Value::String(parsed.as_str().to_owned());
    }
    let answer: Answer = match serde_json::from_value(value) {
        Ok(a) => a,
        Err(e) => return escalate(format!("the triager's answer is malformed: {e}")),
    };
    if answer.verdict == Verdict::Escalate {
        let why = answer.reasoning.trim();
        return escalate(if why.is_empty() {
            "the triager escalated it".to_owned()
        } else {
            format!("the triager escalated it: {why}")
        });
    }
    if answer.evidence.iter().all(|e| e.trim().is_empty()) {
        return escalate("the verdict cites no evidence".to_owned());
    }
    if answer.reasoning.trim().is_empty() {
        return escalate("the verdict gives no reasoning to reply with".to_owned());
    }
    if let Some(mark) = facts.security {
        return escalate(format!("security-sensitive ({mark}): a person decides"));
    }
    let acts = matches!(answer.verdict, Verdict::Valid | Verdict::ConflictsWithRule);
    if acts && !facts.path.is_empty() && is_denied(facts.path, facts.denied_paths) {
        return escalate(format!(
            "the fix would edit {}, a deny-listed path",
            facts.path
        ));
    }
    let proposal = format!(
        "{}\n{}",
        answer.fix_sketch.as_deref().unwrap_or(""),
        if acts { answer.reasoning.as_str() } else { "" }
    );
    if let Some(action) = denied_action(&proposal) {
        return escalate(format!(
            "the fix would take a deny-listed action ({action})"
        ));
    }
    Judged::Decided(answer)
}

/// The JSON object in a triager's message: the whole text, a fenced block, or the span from the
/// first `{` to the last `}`.
pub fn json_object(text: &str) -> Option<&str> {
    if text.starts_with('{') {
        return Some(text);
    }
    if let Some(start) = text.find("```") {
        let after = &text[start + 3..];
        let body_start = after.find('\n').map_or(0, |i| i + 1);
        let body = &after[body_start..];
        if let Some(end) = body.find("```") {
            let inner = body[..end].trim();
            if inner.starts_with('{') {
                return Some(inner);
            }
        }
    }
    let (start, end) = (text.find('{')?, text.rfind('}')?);
    (start < end).then(|| &text[start..=end])
}

/// The reply for a decided finding, in the loop's voice. `None` when it cannot be written yet:
/// a [`Verdict::Valid`] fix must cite its commit, and [`Verdict::Escalate`] gets no reply.
///
/// The text comes from the triager's reasoning; it never quotes the comment.
pub fn reply_text(seen: &Seen) -> Option<String> {
    let why = seen.reasoning.trim().trim_end_matches('.');
    let sha = seen
        .resolved_sha
        .as_deref()
        .map(str::trim)
        .filter(|s| !s.is_empty());
    // A reply that speaks of a fix ("renamed the variable instead") waits for the fix's commit.
    if seen.claims_fix() && sha.is_none() {
        return None;
    }
    let text = match (seen.verdict, sha) {
        (Verdict::Valid, Some(sha)) => format!("Fixed in {sha} — {why}."),
        (Verdict::Valid, None) | (Verdict::Escalate, _) => return None,
        (Verdict::Stale, Some(sha)) => format!("Already addressed in {sha} — {why}."),
        (Verdict::Stale, None) => format!("Already addressed — {why}."),
        (Verdict::FalsePositive, _) => format!("Not applying this — {why}."),
        (Verdict::ConflictsWithRule, _) => format!("Not applying as suggested — {why}."),
        (Verdict::OutOfScope, _) => format!("Out of scope for this PR — {why}."),
    };
    Some(text)
}

/// The reply to a repost: a pointer to the decision already taken on the prior thread.
pub fn repost_reply(prior: &Seen, prior_url: Option<&str>) -> String {
    let at = prior_url.map_or_else(
        || format!("thread {}", prior.thread_id),
        |u| format!("[the earlier thread]({u})"),
    );
    let decided = reply_text(prior).unwrap_or_else(|| format!("Decided as {}.", prior.verdict));
    format!("This finding was raised before and decided in {at}: {decided}")
}

/// The longest line of a round commit's message.
pub const COMMIT_LINE_LIMIT: usize = 100;

impl Decisions {
    /// The fixes of `round` not yet committed: VALID verdicts, and CONFLICTS_WITH_RULE ones
    /// whose fix sketch proposes a rule-compliant alternative, without a `resolvedSha`.
    pub fn uncommitted_fixes(&self, round: u32) -> Vec<(&String, &Seen)> {
        self.seen
            .iter()
            .filter(|(_, s)| s.decided_in_round == round && s.resolved_sha.is_none())
            .filter(|(_, s)| s.claims_fix())
            .collect()
    }

    /// Whether `round` decided or escalated anything: a round with no work is not closed (the
    /// next round does not begin) and has nothing to commit.
    pub fn round_had_work(&self, round: u32) -> bool {
        self.seen.values().any(|s| s.decided_in_round == round)
            || self.escalated.iter().any(|e| e.escalated_in_round == round)
    }
}

/// The message of a round's commit: a Conventional Commits subject, one body line per fix
/// (wrapped at [`COMMIT_LINE_LIMIT`] characters), and a `Review-Thread:` trailer per thread.
///
/// ```
/// use review_core::decisions::{round_commit_message, COMMIT_LINE_LIMIT};
///
/// let msg = round_commit_message(2, &[("src/cache.rs", "evict the oldest entry", "PRRT_1")]);
/// assert!(msg.starts_with("fix: address review findings (round 2)\n\n- src/cache.rs: evict"));
/// assert!(msg.ends_with("Review-Thread: PRRT_1"));
/// assert!(msg.lines().all(|l| l.chars().count() <= COMMIT_LINE_LIMIT));
/// ```
pub fn round_commit_message(round: u32, fixes: &[(&str, &str, &str)]) -> String {
    let mut body = Vec::new();
    for (path, what, _) in fixes {
        let what = what.split_whitespace().collect::<Vec<_>>().join(" ");
        let what = what.trim_end_matches('.');
        let line = if path.is_empty() {
            format!("- {what}")
        } else {
            format!("- {path}: {what}")
        };
        body.extend(wrap(&line, COMMIT_LINE_LIMIT, "  "));
    }
    let trailers: Vec<String> = fixes
        .iter()
        .map(|(_, _, thread)| format!("Review-Thread: {thread}"))
        .collect();
    format!(
        "fix: address review findings (round {round})\n\n{}\n\n{}",
        body.join("\n"),
        trailers.join("\n")
    )
}

/// Wraps `line` at word boundaries to `limit` characters; continuation lines start with
/// `indent`. A word longer than the limit is cut.
fn wrap(line: &str, limit: usize, indent: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut current = String::new();
    for word in line.split(' ').filter(|w| !w.is_empty()) {
        let mut word: String = word.to_owned();
        loop {
            let prefix = if current.is_empty() && !out.is_empty() {
                indent
            } else {
                ""
            };
            let sep = usize::from(!current.is_empty());
            let room = limit.saturating_sub(current.chars().count() + sep + prefix.chars().count());
            if word.chars().count() <= room {
                if current.is_empty() {
                    current.push_str(prefix);
                } else {
                    current.push(' ');
                }
                current.push_str(&word);
                break;
            }
            if current.trim().is_empty() {
                // A word longer than a whole line: cut it.
                let head: String = word.chars().take(room.max(1)).collect();
                let rest: String = word.chars().skip(room.max(1)).collect();
                out.push(format!("{prefix}{head}"));
                word = rest;
                if word.is_empty() {
                    break;
                }
                continue;
            }
            out.push(std::mem::take(&mut current));
        }
    }
    if !current.is_empty() {
        out.push(current);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn facts<'a>(path: &'a str, body: &'a str, denied: &'a [String]) -> FindingFacts<'a> {
        FindingFacts {
            path,
            body,
            denied_paths: denied,
            security: None,
        }
    }

    const GOOD: &str = r#"{"verdict":"FALSE_POSITIVE","reasoning":"the cache is bounded by MAX_ENTRIES (src/cache.rs:40)","evidence":["src/cache.rs:40"]}"#;

    #[test]
    fn a_well_formed_answer_is_decided() {
        let judged = judge(GOOD, facts("src/cache.rs", "Unbounded cache", &[]));
        let Judged::Decided(a) = judged else {
            panic!("{judged:?}")
        };
        assert_eq!(a.verdict, Verdict::FalsePositive);
    }

    #[test]
    fn fenced_and_prose_wrapped_answers_are_read() {
        let fenced = format!("Here is my verdict.\n```json\n{GOOD}\n```\nDone.");
        assert!(matches!(
            judge(&fenced, facts("a.rs", "x", &[])),
            Judged::Decided(_)
        ));
        let inline = format!("Verdict follows: {GOOD} (end)");
        assert!(matches!(
            judge(&inline, facts("a.rs", "x", &[])),
            Judged::Decided(_)
        ));
        let lower = GOOD.replace("FALSE_POSITIVE", "false-positive");
        assert!(matches!(
            judge(&lower, facts("a.rs", "x", &[])),
            Judged::Decided(_)
        ));
    }

    #[test]
    fn every_malfunction_escalates() {
        let none = facts("a.rs", "x", &[]);
        for (raw, why) in [
            ("", "returned nothing"),
            ("   \n", "returned nothing"),
            ("I think it is fine", "not a JSON object"),
            ("{\"verdict\": \"VALID\",", "malformed JSON"),
            ("{\"verdict\": \"VALID\", }", "malformed JSON"),
            (
                r#"{"verdict":"PROBABLY_FINE","reasoning":"x","evidence":["a"]}"#,
                "unknown verdict",
            ),
            (
                r#"{"verdict":"VALID","reasoning":"x","evidence":[]}"#,
                "no evidence",
            ),
            (r#"{"verdict":"VALID","reasoning":"x"}"#, "no evidence"),
            (
                r#"{"verdict":"VALID","reasoning":" ","evidence":["a.rs:1"]}"#,
                "no reasoning",
            ),
            (
                r#"{"verdict":"ESCALATE","reasoning":"needs a product call","evidence":[]}"#,
                "escalated it: needs a product call",
            ),
            (r#"{"reasoning":"x","evidence":["a"]}"#, "malformed"),
            (r#"["VALID"]"#, "not a JSON object"),
        ] {
            match judge(raw, none) {
                Judged::Escalate { reason } => {
                    assert!(reason.contains(why), "{raw:?}: {reason}");
                }
                other => panic!("{raw:?} was not escalated: {other:?}"),
            }
        }
    }

    #[test]
    fn findings_the_loop_must_not_act_on_alone_escalate() {
        let valid = r#"{"verdict":"VALID","reasoning":"renamed","evidence":["a.rs:1"],"fixSketch":"rename"}"#;
        let denied = vec![".github/".to_owned()];
        let security = judge(
            valid,
            FindingFacts {
                security: Some("the finding names a security weakness: \"injection\""),
                ..facts("a.rs", "Possible SQL injection here", &[])
            },
        );
        assert!(matches!(security, Judged::Escalate { reason } if reason.contains("security")));
        // Security is the reader's finding, not a substring of the body.
        let plain = judge(valid, facts("a.rs", "Possible SQL injection here", &[]));
        assert!(matches!(plain, Judged::Decided(_)), "{plain:?}");
        let path = judge(
            valid,
            facts(".github/workflows/ci.yml", "pin the action", &denied),
        );
        assert!(matches!(path, Judged::Escalate { reason } if reason.contains("deny-listed path")));
        let push = r#"{"verdict":"VALID","reasoning":"x","evidence":["a"],"fixSketch":"rebase and git push --force"}"#;
        let pushed = judge(push, facts("a.rs", "rebase this", &[]));
        assert!(
            matches!(pushed, Judged::Escalate { reason } if reason.contains("deny-listed action"))
        );
        // Rejecting a finding on a denied path does not touch it: no escalation.
        let reject = judge(GOOD, facts(".github/workflows/ci.yml", "pin it", &denied));
        assert!(matches!(reject, Judged::Decided(_)));
    }

    #[test]
    fn replies_follow_the_voice_and_valid_needs_a_sha() {
        let mut seen = Seen {
            thread_id: "PRRT_1".into(),
            verdict: Verdict::Valid,
            reasoning: "the loop now stops at the page end.".into(),
            evidence: vec!["src/read.rs:10".into()],
            fix_sketch: None,
            resolved_sha: None,
            decided_in_round: 1,
            path: String::new(),
            replied: Some(false),
            settled: None,
        };
        assert_eq!(reply_text(&seen), None);
        seen.resolved_sha = Some("3f2a9c1".into());
        assert_eq!(
            reply_text(&seen).unwrap(),
            "Fixed in 3f2a9c1 — the loop now stops at the page end."
        );
        seen.verdict = Verdict::FalsePositive;
        assert!(
            reply_text(&seen)
                .unwrap()
                .starts_with("Not applying this — ")
        );
        seen.verdict = Verdict::OutOfScope;
        assert!(
            reply_text(&seen)
                .unwrap()
                .starts_with("Out of scope for this PR — ")
        );
        seen.verdict = Verdict::ConflictsWithRule;
        assert!(
            reply_text(&seen)
                .unwrap()
                .starts_with("Not applying as suggested — ")
        );
        seen.verdict = Verdict::Stale;
        assert!(
            reply_text(&seen)
                .unwrap()
                .starts_with("Already addressed in 3f2a9c1 — ")
        );
    }

    proptest::proptest! {
        #[test]
        fn commit_lines_never_exceed_the_limit(
            items in proptest::collection::vec(("[a-z/._]{0,40}", "[ -~]{0,400}", "[A-Za-z0-9_]{1,30}"), 1..6),
            round in 1u32..50,
        ) {
            let fixes: Vec<(&str, &str, &str)> =
                items.iter().map(|(p, w, t)| (p.as_str(), w.as_str(), t.as_str())).collect();
            let msg = round_commit_message(round, &fixes);
            for line in msg.lines() {
                proptest::prop_assert!(line.chars().count() <= COMMIT_LINE_LIMIT, "{line:?}");
            }
            let words = |s: &str| s.split_whitespace().map(str::to_owned).collect::<Vec<_>>().concat();
            for (p, w, t) in &fixes {
                let trailer = format!("Review-Thread: {t}");
                proptest::prop_assert!(msg.contains(&trailer));
                let _ = p;
                let wanted = words(w).trim_end_matches('.').to_owned();
                proptest::prop_assert!(words(&msg).contains(&wanted) || wanted.is_empty());
            }
        }
    }

    #[test]
    fn recording_moves_between_seen_and_escalated() {
        let mut d = Decisions::default();
        d.record(
            "fp1",
            &"PRRT_1".into(),
            Judged::Escalate {
                reason: "no evidence".into(),
            },
            1,
        );
        d.record(
            "fp1",
            &"PRRT_1".into(),
            Judged::Escalate {
                reason: "again".into(),
            },
            1,
        );
        assert_eq!(d.escalated.len(), 1, "one escalation per fingerprint");
        assert!(d.knows("fp1") && d.is_escalated("fp1"));
        let Judged::Decided(a) = judge(GOOD, facts("a.rs", "x", &[])) else {
            panic!()
        };
        d.record("fp1", &"PRRT_1".into(), Judged::Decided(a), 2);
        assert!(d.escalated.is_empty());
        assert_eq!(d.seen["fp1"].replied, Some(false));
        assert_eq!(d.seen["fp1"].decided_in_round, 2);
        assert_eq!(d.owed().count(), 1);
    }

    #[test]
    fn unknown_fields_are_refused_not_dropped() {
        // A hand-edited file with a misspelt key must be reported, not silently rewritten
        // without it by the next write.
        assert!(serde_json::from_str::<Decisions>(r#"{"sen": {}}"#).is_err());
        assert!(serde_json::from_str::<Decisions>(
            r#"{"seen": {"fp": {"threadId": "T", "verdict": "VALID", "reasoning": "x", "decidedInRound": 1, "replyed": true}}}"#
        )
        .is_err());
    }

    #[test]
    fn a_file_without_knock_ons_still_loads_and_is_written_the_same() {
        let text =
            r#"{"round":2,"seen":{},"escalated":[],"addressedOutOfDiff":{},"answeredReposts":{}}"#;
        let d: Decisions = serde_json::from_str(text).unwrap();
        assert!(d.knock_ons.is_empty());
        assert_eq!(
            serde_json::to_string(&d).unwrap(),
            text,
            "no knock-ons, no field"
        );
    }

    #[test]
    fn an_old_file_without_replied_is_unreconciled_not_replied() {
        let text = r#"{"seen":{"fp":{"threadId":"PRRT_1","verdict":"VALID","reasoning":"x","resolvedSha":"abc1234","decidedInRound":1}},"escalated":[],"addressedOutOfDiff":{}}"#;
        let d: Decisions = serde_json::from_str(text).unwrap();
        assert_eq!(d.unreconciled().count(), 1);
        assert_eq!(d.owed().count(), 1);
        assert_eq!(d.current_round(), 1);
    }
}
