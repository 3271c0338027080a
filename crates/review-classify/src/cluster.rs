//! Duplicate clusters: threads on the same file that raise the same finding.
//!
//! Two threads are related when they are on the same path and either their line ranges overlap
//! or lie within [`NEAR_LINES`] lines of each other and their titles are similar (token Jaccard
//! of at least one half, or at least two shared words making 30% of the shorter title: bots word
//! the same finding differently), or their fingerprints, ignoring the family, are equal, or they
//! offer the same suggestion block on overlapping lines (two bots proposing the same fix are one
//! finding). A cluster is a connected group of two or more related threads, listed in the PR's
//! thread order.

use std::collections::BTreeMap;

use review_core::model::{LineRange, ThreadId};
use review_core::signals::Cluster;

use crate::fingerprint::{fingerprint, overlapping, similar, token_set};

/// How many lines apart two threads may start or end and still be near.
pub(crate) const NEAR_LINES: u32 = 3;

/// One unresolved thread, as clustering sees it.
#[derive(Debug, Clone)]
pub(crate) struct Entry {
    /// The thread.
    pub id: ThreadId,
    /// Its file.
    pub path: String,
    /// Its lines, if it has any.
    pub lines: Option<LineRange>,
    /// Its title's token set (see [`crate::fingerprint::token_set`]).
    pub tokens: Vec<String>,
    /// Its fingerprint without family; empty when the title says nothing.
    pub key: String,
    /// Who raised it: a named tool's family, else the author's login (lower case).
    pub reviewer: Option<String>,
    /// The replacement its one suggestion block offers, whitespace collapsed; empty when none.
    pub suggestion: String,
}

impl Entry {
    /// An entry for a thread whose finding has `title`.
    pub(crate) fn new(
        id: ThreadId,
        path: &str,
        lines: Option<LineRange>,
        title: &str,
        reviewer: Option<String>,
    ) -> Self {
        let tokens = token_set(title);
        let key = if tokens.is_empty() {
            String::new()
        } else {
            fingerprint(None, path, title)
        };
        Self {
            id,
            path: path.to_owned(),
            lines,
            tokens,
            key,
            reviewer,
            suggestion: String::new(),
        }
    }

    /// The entry of a finding that offers `replacement` as its one suggestion block.
    pub(crate) fn with_suggestion(mut self, replacement: &str) -> Self {
        self.suggestion = replacement.split_whitespace().collect::<Vec<_>>().join(" ");
        self
    }
}

/// Whether two line ranges share a line.
fn same_lines(a: Option<LineRange>, b: Option<LineRange>) -> bool {
    matches!((a, b), (Some(a), Some(b)) if a.overlaps(&b))
}

fn near(a: Option<LineRange>, b: Option<LineRange>) -> bool {
    match (a, b) {
        (Some(a), Some(b)) => {
            a.start <= b.end.saturating_add(NEAR_LINES)
                && b.start <= a.end.saturating_add(NEAR_LINES)
        }
        _ => false,
    }
}

fn related(a: &Entry, b: &Entry) -> bool {
    (!a.key.is_empty() && a.key == b.key)
        // The same suggestion on the same lines is the same finding, however it is worded.
        || (!a.suggestion.is_empty() && a.suggestion == b.suggestion && same_lines(a.lines, b.lines))
        || (near(a.lines, b.lines)
            && (similar(&a.tokens, &b.tokens) || overlapping(&a.tokens, &b.tokens)))
}

fn root(parent: &mut [usize], mut i: usize) -> usize {
    while let Some(&p) = parent.get(i) {
        if p == i {
            break;
        }
        // Path halving keeps the trees flat.
        let grand = parent.get(p).copied().unwrap_or(p);
        if let Some(slot) = parent.get_mut(i) {
            *slot = grand;
        }
        i = grand;
    }
    i
}

/// The clusters among `entries` (in PR order), each in PR order, ordered by their first thread.
pub(crate) fn clusters(entries: &[Entry]) -> Vec<Cluster> {
    let mut parent: Vec<usize> = (0..entries.len()).collect();
    let mut by_path: BTreeMap<&str, Vec<usize>> = BTreeMap::new();
    for (i, e) in entries.iter().enumerate() {
        by_path.entry(e.path.as_str()).or_default().push(i);
    }
    for members in by_path.values() {
        for (n, &a) in members.iter().enumerate() {
            for &b in members.get(n + 1..).unwrap_or(&[]) {
                let (Some(ea), Some(eb)) = (entries.get(a), entries.get(b)) else {
                    continue;
                };
                if related(ea, eb) {
                    let (ra, rb) = (root(&mut parent, a), root(&mut parent, b));
                    if ra != rb {
                        // The earlier thread is the root, so groups keep PR order.
                        let (lo, hi) = (ra.min(rb), ra.max(rb));
                        if let Some(slot) = parent.get_mut(hi) {
                            *slot = lo;
                        }
                    }
                }
            }
        }
    }
    let mut groups: BTreeMap<usize, Vec<usize>> = BTreeMap::new();
    for i in 0..entries.len() {
        let r = root(&mut parent, i);
        groups.entry(r).or_default().push(i);
    }
    groups
        .into_values()
        .filter(|members| members.len() >= 2)
        .map(|members| {
            let picked: Vec<&Entry> = members.iter().filter_map(|&i| entries.get(i)).collect();
            let mut reviewers: Vec<&str> = picked
                .iter()
                .filter_map(|e| e.reviewer.as_deref())
                .collect();
            reviewers.sort_unstable();
            reviewers.dedup();
            Cluster {
                threads: picked.iter().map(|e| e.id.clone()).collect(),
                convergent: reviewers.len() >= 2,
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(id: &str, path: &str, lines: Option<(u32, u32)>, title: &str, who: &str) -> Entry {
        Entry::new(
            ThreadId::from(id),
            path,
            lines.map(|(a, b)| LineRange::new(a, b)),
            title,
            Some(who.to_owned()),
        )
    }

    /// Regression: bots word one finding differently; strict title similarity missed these.
    #[test]
    fn differently_worded_findings_on_the_same_lines_cluster() {
        let entries = [
            entry(
                "CR",
                "src/export/mod.rs",
                Some((59, 59)),
                "Unbounded Vec growth: the whole export is buffered before anything is written",
                "coderabbit",
            ),
            entry(
                "GEM",
                "src/export/mod.rs",
                Some((61, 61)),
                "Every row is accumulated in buffer before anything is written, so memory grows",
                "gemini",
            ),
            entry(
                "CDX",
                "src/export/mod.rs",
                Some((58, 58)),
                "Bound the export buffer before collecting rows",
                "codex",
            ),
            entry(
                "BUG",
                "src/export/mod.rs",
                Some((57, 57)),
                "Export slot leaks when the export fails",
                "cursor",
            ),
            entry(
                "FAR",
                "src/export/mod.rs",
                Some((90, 90)),
                "Export buffer is never cleared between runs",
                "copilot",
            ),
        ];
        let found = clusters(&entries);
        assert_eq!(found.len(), 1, "{found:?}");
        let ids: Vec<&str> = found[0].threads.iter().map(|t| t.0.as_str()).collect();
        assert_eq!(
            ids,
            ["CR", "GEM", "CDX"],
            "one shared word is not enough, and far lines need the same statement"
        );
        assert!(found[0].convergent);
    }

    #[test]
    fn near_and_similar_threads_cluster_in_pr_order() {
        let entries = [
            entry(
                "t1",
                "a.rs",
                Some((10, 12)),
                "Missing null check in parser",
                "coderabbit",
            ),
            entry(
                "t2",
                "b.rs",
                Some((10, 12)),
                "Missing null check in parser",
                "gemini",
            ),
            entry(
                "t3",
                "a.rs",
                Some((15, 15)),
                "Parser lacks a null check",
                "gemini",
            ),
            entry(
                "t4",
                "a.rs",
                Some((40, 40)),
                "Missing null check in parser",
                "codex",
            ),
            entry(
                "t5",
                "a.rs",
                Some((11, 11)),
                "Unbounded allocation",
                "codex",
            ),
        ];
        let got = clusters(&entries);
        assert_eq!(got.len(), 1);
        // t4 is far away but has the same fingerprint as t1: the same finding.
        assert_eq!(
            got[0].threads,
            vec![
                ThreadId::from("t1"),
                ThreadId::from("t3"),
                ThreadId::from("t4")
            ]
        );
        assert!(got[0].convergent);
    }

    #[test]
    fn one_reviewer_reposting_is_not_convergent() {
        let entries = [
            entry(
                "t1",
                "a.rs",
                Some((10, 10)),
                "Leaks the file handle",
                "cursor",
            ),
            entry(
                "t2",
                "a.rs",
                Some((12, 12)),
                "Leaks the file handle (line 12)",
                "cursor",
            ),
        ];
        let got = clusters(&entries);
        assert_eq!(got.len(), 1);
        assert!(!got[0].convergent);
    }

    #[test]
    fn threads_without_lines_cluster_only_by_fingerprint() {
        let entries = [
            entry("t1", "a.rs", None, "Leaks the file handle", "cursor"),
            entry("t2", "a.rs", Some((1, 1)), "The file handle leaks", "alice"),
            entry("t3", "a.rs", None, "", "bob"),
            entry("t4", "a.rs", None, "", "carol"),
        ];
        assert!(clusters(&entries).is_empty());
    }

    #[test]
    fn distance_is_three_lines() {
        assert!(near(
            Some(LineRange::new(10, 12)),
            Some(LineRange::new(15, 20))
        ));
        assert!(!near(
            Some(LineRange::new(10, 12)),
            Some(LineRange::new(16, 20))
        ));
        assert!(near(
            Some(LineRange::new(20, 30)),
            Some(LineRange::new(1, 17))
        ));
        assert!(near(
            Some(LineRange::new(u32::MAX, u32::MAX)),
            Some(LineRange::new(u32::MAX - 1, u32::MAX))
        ));
    }
}
