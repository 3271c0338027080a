//! Knock-ons: the loop's own fixes drawing new findings, and when the loop stops fixing.
//!
//! A new bot finding on a line that one of the loop's round commits last touched at the head is
//! a [`KnockOn`] of that commit: the fix drew a finding of its own. Left alone, a loop can fix
//! the knock-on, draw another, and drift for rounds, reverting its own fixes. So after
//! [`KNOCK_ON_LIMIT`] knock-ons in one file, or past the round limit (all files), the loop stops
//! fixing there: what it would fix is escalated instead, with [`FixingStopped`] as the reason —
//! the loop's fix commits in that file, what each fixed and what came back, and the commit to
//! revert first. It keeps watching and answering.

use std::fmt;

use crate::decisions::{Decisions, KnockOn};
use crate::site::Site;

/// At this many knock-ons in one file the loop stops fixing that file.
pub const KNOCK_ON_LIMIT: usize = 3;

/// The default round limit of `review loop` (`--max-rounds`).
pub const DEFAULT_MAX_ROUNDS: u32 = 10;

/// The longest "what it fixed" a summary quotes, in characters.
const WHAT_LIMIT: usize = 80;

/// One finding a fix commit answered.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FixedFinding {
    /// Where it was raised.
    pub thread_id: Site,
    /// What the fix did: the judge's reasoning, on one line, shortened.
    pub what: String,
}

/// One knock-on a fix commit drew.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CameBack {
    /// Where the new finding was raised.
    pub thread_id: Site,
    /// The line it is on.
    pub line: u32,
}

/// One of the loop's fix commits, as it bears on one file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FixRecord {
    /// The commit, as the decisions record it.
    pub commit: String,
    /// The round that made it.
    pub round: u32,
    /// What it fixed (in the file, or anywhere when none of its findings was on the file).
    pub fixed: Vec<FixedFinding>,
    /// The knock-ons it drew in the file.
    pub came_back: Vec<CameBack>,
}

/// The loop's fix commits in one file, oldest first, and the one to revert first.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileHistory {
    /// The file.
    pub path: String,
    /// The commits that fixed a finding on it or drew a knock-on in it.
    pub fixes: Vec<FixRecord>,
    /// The commit whose lines drew the most knock-ons (the earliest, on a tie), if any did.
    pub suggested_revert: Option<String>,
}

/// Why the loop no longer fixes a file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StopFixing {
    /// The file drew this many knock-ons (at least [`KNOCK_ON_LIMIT`]).
    KnockOns {
        /// How many.
        count: usize,
    },
    /// The round limit was passed: the loop fixes nothing any more.
    RoundLimit {
        /// The limit.
        max_rounds: u32,
    },
}

/// The loop's decision not to fix a finding's file, and what it rests on: its text is the
/// escalation's reason.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FixingStopped {
    /// Why.
    pub why: StopFixing,
    /// The loop's fixes in the file.
    pub history: FileHistory,
}

use crate::watch::short;

/// Whether two commit ids (full or abbreviated, at least 7 characters) name the same commit.
fn same_commit(a: &str, b: &str) -> bool {
    let (a, b) = (a.trim().to_ascii_lowercase(), b.trim().to_ascii_lowercase());
    a.len() >= 7 && b.len() >= 7 && (a.starts_with(&b) || b.starts_with(&a))
}

fn one_line(text: &str) -> String {
    let line = text.split_whitespace().collect::<Vec<_>>().join(" ");
    let line = line.trim_end_matches('.');
    if line.chars().count() <= WHAT_LIMIT {
        return line.to_owned();
    }
    let cut: String = line.chars().take(WHAT_LIMIT - 1).collect();
    format!("{}…", cut.trim_end())
}

impl Decisions {
    /// The loop's round commit `sha` is (a full or abbreviated id), if it is one: the id as the
    /// decisions record it, and its round.
    pub fn round_commit_of(&self, sha: &str) -> Option<(String, u32)> {
        let mut commits: Vec<(u32, &str)> = self
            .seen
            .values()
            .filter(|s| s.claims_fix())
            .filter_map(|s| Some((s.decided_in_round, s.resolved_sha.as_deref()?.trim())))
            .filter(|(_, c)| same_commit(c, sha))
            .collect();
        commits.sort_unstable();
        commits.first().map(|(r, c)| ((*c).to_owned(), *r))
    }

    /// Whether the finding `fingerprint` is a recorded knock-on.
    pub fn is_knock_on(&self, fingerprint: &str) -> bool {
        self.knock_ons.iter().any(|k| k.fingerprint == fingerprint)
    }

    /// Records a knock-on, once per finding; returns whether it was new.
    pub fn record_knock_on(&mut self, knock_on: KnockOn) -> bool {
        if self.is_knock_on(&knock_on.fingerprint) {
            return false;
        }
        self.knock_ons.push(knock_on);
        true
    }

    /// How many knock-ons `path` drew.
    pub fn knock_ons_in(&self, path: &str) -> usize {
        self.knock_ons.iter().filter(|k| k.path == path).count()
    }

    /// The loop's fix commits in `path`: each with what it fixed and what came back.
    pub fn file_history(&self, path: &str) -> FileHistory {
        let mut commits: Vec<(u32, String)> = Vec::new();
        let mut add = |round: u32, commit: &str| {
            if !commits.iter().any(|(_, c)| same_commit(c, commit)) {
                commits.push((round, commit.to_owned()));
            }
        };
        for s in self
            .seen
            .values()
            .filter(|s| s.claims_fix() && s.path == path)
        {
            if let Some(c) = s
                .resolved_sha
                .as_deref()
                .map(str::trim)
                .filter(|c| !c.is_empty())
            {
                add(s.decided_in_round, c);
            }
        }
        for k in self.knock_ons.iter().filter(|k| k.path == path) {
            add(k.round, &k.commit);
        }
        commits.sort();
        let fixes: Vec<FixRecord> = commits
            .into_iter()
            .map(|(round, commit)| {
                let of_commit = |s: &&crate::decisions::Seen| {
                    s.claims_fix()
                        && s.resolved_sha
                            .as_deref()
                            .is_some_and(|c| same_commit(c, &commit))
                };
                let mut fixed: Vec<FixedFinding> = self
                    .seen
                    .values()
                    .filter(of_commit)
                    .filter(|s| s.path == path)
                    .map(|s| FixedFinding {
                        thread_id: s.thread_id.clone(),
                        what: one_line(&s.reasoning),
                    })
                    .collect();
                if fixed.is_empty() {
                    fixed = self
                        .seen
                        .values()
                        .filter(of_commit)
                        .map(|s| FixedFinding {
                            thread_id: s.thread_id.clone(),
                            what: one_line(&s.reasoning),
                        })
                        .collect();
                }
                let came_back = self
                    .knock_ons
                    .iter()
                    .filter(|k| k.path == path && same_commit(&k.commit, &commit))
                    .map(|k| CameBack {
                        thread_id: k.thread_id.clone(),
                        line: k.line,
                    })
                    .collect();
                FixRecord {
                    commit,
                    round,
                    fixed,
                    came_back,
                }
            })
            .collect();
        let mut suggested: Option<&FixRecord> = None;
        for f in fixes.iter().filter(|f| !f.came_back.is_empty()) {
            if suggested.is_none_or(|s| f.came_back.len() > s.came_back.len()) {
                suggested = Some(f);
            }
        }
        FileHistory {
            path: path.to_owned(),
            suggested_revert: suggested.map(|f| f.commit.clone()),
            fixes,
        }
    }

    /// Whether the loop, in `round`, no longer fixes findings on `path`: past `max_rounds` it
    /// fixes nothing, and after [`KNOCK_ON_LIMIT`] knock-ons in a file it fixes nothing there.
    pub fn fixing_stopped(&self, path: &str, round: u32, max_rounds: u32) -> Option<FixingStopped> {
        let why = if round > max_rounds {
            StopFixing::RoundLimit { max_rounds }
        } else {
            let count = self.knock_ons_in(path);
            if path.is_empty() || count < KNOCK_ON_LIMIT {
                return None;
            }
            StopFixing::KnockOns { count }
        };
        Some(FixingStopped {
            why,
            history: self.file_history(path),
        })
    }
}

impl fmt::Display for FixingStopped {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let path = &self.history.path;
        match self.why {
            StopFixing::KnockOns { count } => write!(
                f,
                "the loop stopped fixing {path}: its own fixes there drew {count} new findings (knock-ons)"
            )?,
            StopFixing::RoundLimit { max_rounds } => write!(
                f,
                "the loop reached its round limit ({max_rounds}) and fixes nothing more"
            )?,
        }
        if self.history.fixes.is_empty() {
            if !path.is_empty() {
                write!(f, "; it made no fix in {path}")?;
            }
            return Ok(());
        }
        write!(f, "; its fixes in {path}:")?;
        for (i, fix) in self.history.fixes.iter().enumerate() {
            let sep = if i == 0 { " " } else { "; " };
            let fixed = fix
                .fixed
                .iter()
                .map(|x| format!("{} ({})", x.thread_id, x.what))
                .collect::<Vec<_>>()
                .join(", ");
            let fixed = if fixed.is_empty() {
                "a finding no longer recorded".to_owned()
            } else {
                fixed
            };
            let came_back = if fix.came_back.is_empty() {
                "nothing".to_owned()
            } else {
                fix.came_back
                    .iter()
                    .map(|c| format!("{} (line {})", c.thread_id, c.line))
                    .collect::<Vec<_>>()
                    .join(", ")
            };
            write!(
                f,
                "{sep}{} (round {}) fixed {fixed}, and drew {came_back}",
                short(&fix.commit),
                fix.round
            )?;
        }
        if let Some(revert) = &self.history.suggested_revert {
            let drew = self
                .history
                .fixes
                .iter()
                .find(|x| &x.commit == revert)
                .map_or(0, |x| x.came_back.len());
            let total: usize = self.history.fixes.iter().map(|x| x.came_back.len()).sum();
            write!(
                f,
                "; revert {} first: its lines drew {drew} of the {total} knock-ons",
                short(revert)
            )?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::decisions::{Seen, Verdict};

    fn fix(thread: &str, path: &str, sha: &str, round: u32) -> Seen {
        Seen {
            thread_id: thread.into(),
            verdict: Verdict::Valid,
            reasoning: format!("fixed {thread}."),
            evidence: vec!["a".into()],
            fix_sketch: None,
            resolved_sha: Some(sha.into()),
            decided_in_round: round,
            path: path.into(),
            replied: Some(true),
            settled: None,
        }
    }

    fn knock(thread: &str, path: &str, line: u32, sha: &str, round: u32) -> KnockOn {
        KnockOn {
            fingerprint: format!("fp-{thread}"),
            thread_id: thread.into(),
            path: path.into(),
            line,
            commit: sha.into(),
            round,
        }
    }

    fn decisions() -> Decisions {
        let mut d = Decisions::default();
        d.seen
            .insert("f1".into(), fix("T1", "src/a.rs", "aaaaaaa", 1));
        d.seen
            .insert("f2".into(), fix("T2", "src/a.rs", "bbbbbbb", 2));
        d.seen
            .insert("f3".into(), fix("T3", "src/b.rs", "ccccccc", 2));
        d
    }

    #[test]
    fn a_round_commit_is_known_by_its_full_or_short_id() {
        let d = decisions();
        assert_eq!(
            d.round_commit_of("AAAAAAA0123456789"),
            Some(("aaaaaaa".into(), 1))
        );
        assert_eq!(d.round_commit_of("ddddddd"), None);
        assert_eq!(d.round_commit_of("aaa"), None, "too short to tell");
    }

    #[test]
    fn knock_ons_are_recorded_once_and_counted_by_file() {
        let mut d = decisions();
        assert!(d.record_knock_on(knock("T4", "src/a.rs", 3, "aaaaaaa", 1)));
        assert!(!d.record_knock_on(knock("T4", "src/a.rs", 3, "aaaaaaa", 1)));
        assert_eq!(d.knock_ons_in("src/a.rs"), 1);
        assert_eq!(d.knock_ons_in("src/b.rs"), 0);
        assert!(d.fixing_stopped("src/a.rs", 2, 10).is_none());
    }

    #[test]
    fn the_third_knock_on_stops_fixing_the_file_and_names_the_revert() {
        let mut d = decisions();
        d.record_knock_on(knock("T4", "src/a.rs", 3, "aaaaaaa", 1));
        d.record_knock_on(knock("T5", "src/a.rs", 4, "aaaaaaa", 1));
        d.record_knock_on(knock("T6", "src/a.rs", 9, "bbbbbbb", 2));
        assert!(d.fixing_stopped("src/b.rs", 3, 10).is_none());
        let stopped = d.fixing_stopped("src/a.rs", 3, 10).unwrap();
        assert_eq!(stopped.why, StopFixing::KnockOns { count: 3 });
        assert_eq!(stopped.history.suggested_revert.as_deref(), Some("aaaaaaa"));
        assert_eq!(
            stopped.to_string(),
            "the loop stopped fixing src/a.rs: its own fixes there drew 3 new findings (knock-ons); \
its fixes in src/a.rs: aaaaaaa (round 1) fixed T1 (fixed T1), and drew T4 (line 3), T5 (line 4); \
bbbbbbb (round 2) fixed T2 (fixed T2), and drew T6 (line 9); revert aaaaaaa first: its lines drew 2 of the 3 knock-ons"
        );
    }

    #[test]
    fn past_the_round_limit_nothing_is_fixed() {
        let d = decisions();
        let stopped = d.fixing_stopped("src/c.rs", 11, 10).unwrap();
        assert_eq!(stopped.why, StopFixing::RoundLimit { max_rounds: 10 });
        assert_eq!(
            stopped.to_string(),
            "the loop reached its round limit (10) and fixes nothing more; it made no fix in src/c.rs"
        );
        assert!(d.fixing_stopped("src/c.rs", 10, 10).is_none());
        let b = d.fixing_stopped("src/b.rs", 11, 10).unwrap().to_string();
        assert!(
            b.ends_with(
                "its fixes in src/b.rs: ccccccc (round 2) fixed T3 (fixed T3), and drew nothing"
            ),
            "{b}"
        );
    }
}
