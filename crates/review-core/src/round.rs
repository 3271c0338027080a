//! A round of the review loop, summarised: what it fixed, rejected, left to people and
//! escalated, and its commit. Pure: the summary is built from the decisions and the watch state,
//! and rendered (its [`fmt::Display`]) as `review commit-round` prints it.

use std::fmt;

use crate::decisions::{Decisions, Verdict};
use crate::site::Site;
use crate::watch::{FindingKind, WatchState};

/// A finding the round fixed: a fix verdict with its commit.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Fixed {
    /// The file (empty when unknown).
    pub path: String,
    /// Where it was raised.
    pub thread_id: Site,
    /// The first line of the verdict's reasoning.
    pub reasoning: String,
}

/// A finding the round decided needs no fix (STALE, INVALID, ...).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Rejected {
    /// The verdict.
    pub verdict: Verdict,
    /// Where it was raised.
    pub thread_id: Site,
    /// The first line of the verdict's reasoning.
    pub reasoning: String,
}

/// What waits for a person.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ForPeople {
    /// A person's thread on a file.
    Thread {
        /// Who wrote it.
        author: String,
        /// The file.
        path: String,
        /// The thread.
        thread_id: Site,
    },
    /// A person's comment on the conversation.
    Comment {
        /// Who wrote it.
        author: String,
        /// The comment's id.
        comment_id: String,
    },
}

/// A finding the round escalated.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Escalated {
    /// Where it was raised.
    pub thread_id: Site,
    /// Why.
    pub reason: String,
}

/// A round's summary: its groups, and the commit (`None`: nothing was committed).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RoundSummary {
    /// The round.
    pub round: u32,
    /// FIXED: the fix verdicts of the round that carry their commit.
    pub fixed: Vec<Fixed>,
    /// REJECTED: the round's verdicts that claim no fix.
    pub rejected: Vec<Rejected>,
    /// HUMAN: what the watcher saw waiting for people.
    pub human: Vec<ForPeople>,
    /// ESCALATED: the round's escalations.
    pub escalated: Vec<Escalated>,
    /// The round's commit.
    pub commit: Option<String>,
}

impl RoundSummary {
    /// The summary of `round` from the decisions and the watch state, with its `commit`.
    pub fn of(round: u32, decisions: &Decisions, watch: &WatchState, commit: Option<&str>) -> Self {
        let in_round = || {
            decisions
                .seen
                .values()
                .filter(move |s| s.decided_in_round == round)
        };
        // A fix is a fix verdict with its commit; a STALE verdict citing an earlier commit is
        // not.
        let fixed = in_round()
            .filter(|s| s.claims_fix() && s.resolved_sha.is_some())
            .map(|s| Fixed {
                path: s.path.clone(),
                thread_id: s.thread_id.clone(),
                reasoning: first_line(&s.reasoning).to_owned(),
            })
            .collect();
        let rejected = in_round()
            .filter(|s| !s.claims_fix())
            .map(|s| Rejected {
                verdict: s.verdict,
                thread_id: s.thread_id.clone(),
                reasoning: first_line(&s.reasoning).to_owned(),
            })
            .collect();
        let mut human: Vec<ForPeople> = watch
            .pending
            .iter()
            .filter(|f| f.kind == FindingKind::Human)
            .map(|f| ForPeople::Thread {
                author: f.author.clone(),
                path: f.path.clone(),
                thread_id: f.thread_id.clone(),
            })
            .collect();
        human.extend(watch.human_comments.iter().map(|c| ForPeople::Comment {
            author: c.author.clone(),
            comment_id: c.id.clone(),
        }));
        let escalated = decisions
            .escalated
            .iter()
            .filter(|e| e.escalated_in_round == round)
            .map(|e| Escalated {
                thread_id: e.thread_id.clone(),
                reason: e.reason.clone(),
            })
            .collect();
        Self {
            round,
            fixed,
            rejected,
            human,
            escalated,
            commit: commit.map(str::to_owned),
        }
    }
}

fn first_line(text: &str) -> &str {
    text.lines().next().unwrap_or("").trim()
}

fn group<T>(
    f: &mut fmt::Formatter<'_>,
    title: &str,
    items: &[T],
    line: impl Fn(&T) -> String,
) -> fmt::Result {
    if items.is_empty() {
        return Ok(());
    }
    writeln!(f, "{title}")?;
    for item in items {
        writeln!(f, "  - {}", line(item))?;
    }
    Ok(())
}

/// The summary as `review commit-round` prints it: `Round N`, the non-empty groups, then the
/// commit and "ready to push" (or "nothing committed").
impl fmt::Display for RoundSummary {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "Round {}", self.round)?;
        group(f, "FIXED", &self.fixed, |x| {
            let path = if x.path.is_empty() { "?" } else { &x.path };
            format!("{path} ({}): {}", x.thread_id, x.reasoning)
        })?;
        group(f, "REJECTED", &self.rejected, |x| {
            format!("{} {}: {}", x.verdict, x.thread_id, x.reasoning)
        })?;
        group(f, "HUMAN", &self.human, |x| match x {
            ForPeople::Thread {
                author,
                path,
                thread_id,
            } => format!("{author} on {path} ({thread_id})"),
            ForPeople::Comment { author, comment_id } => {
                format!("@{author} on the conversation ({comment_id})")
            }
        })?;
        group(f, "ESCALATED", &self.escalated, |x| {
            format!("{}: {}", x.thread_id, x.reason)
        })?;
        match &self.commit {
            Some(sha) => writeln!(f, "{sha} — ready to push."),
            None => f.write_str("No fixes this round; nothing committed.\n"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::RoundSummary;
    use crate::decisions::{Decisions, FindingFacts, judge};
    use crate::watch::WatchState;

    fn decided(d: &mut Decisions, fp: &str, thread: &str, answer: &str) {
        let facts = FindingFacts {
            path: "src/lib.rs",
            body: "Handle the error",
            denied_paths: &[],
            security: None,
        };
        d.record(fp, &thread.into(), judge(answer, facts), 1);
    }

    /// Regression: a STALE verdict citing the commit that had already addressed it was listed
    /// under FIXED, as if this round had fixed it.
    #[test]
    fn a_stale_verdict_with_its_commit_is_not_listed_as_fixed() {
        let mut d = Decisions::default();
        decided(
            &mut d,
            "fp1",
            "T1",
            r#"{"verdict":"STALE","reasoning":"handled in update() below","evidence":["src/lib.rs:9"],"resolvedSha":"0a1b2c3"}"#,
        );
        decided(
            &mut d,
            "fp2",
            "T2",
            r#"{"verdict":"VALID","reasoning":"the error is handled","evidence":["src/lib.rs:3"],"fixSketch":"use ?"}"#,
        );
        d.seen.get_mut("fp2").unwrap().resolved_sha = Some("3f2a9c1".into());
        assert!(d.round_had_work(1) && !d.round_had_work(2));
        let text = RoundSummary::of(1, &d, &WatchState::default(), Some("3f2a9c1")).to_string();
        let fixed = text.split("REJECTED").next().unwrap();
        assert!(fixed.contains("(T2)"), "{text}");
        assert!(!fixed.contains("T1"), "{text}");
        assert!(
            text.contains("REJECTED\n  - STALE T1: handled in update() below"),
            "{text}"
        );
        assert!(text.ends_with("3f2a9c1 — ready to push.\n"), "{text}");
    }

    #[test]
    fn an_empty_round_says_nothing_was_committed() {
        let text = RoundSummary::of(3, &Decisions::default(), &WatchState::default(), None);
        assert_eq!(
            text.to_string(),
            "Round 3\nNo fixes this round; nothing committed.\n"
        );
    }
}
