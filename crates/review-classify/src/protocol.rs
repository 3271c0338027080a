//! Protocol signals: bot comments that are messages between tools (an "approval dismissed"
//! notice, a merge-queue stamp), named by texts the user configures (`--protocol-signal`).
//! Such a thread is left alone by the planner, not triaged.

use std::collections::BTreeSet;

use review_core::model::{PullRequest, ThreadId};

/// Whether `body` carries one of the protocol-signal `texts`, case-insensitively. Blank texts
/// match nothing.
pub fn is_protocol_signal(body: &str, texts: &[String]) -> bool {
    let lower = body.to_lowercase();
    texts
        .iter()
        .filter(|s| !s.trim().is_empty())
        .any(|s| lower.contains(&s.to_lowercase()))
}

/// The threads of `pr` whose first comment is a protocol signal of `texts`: what the planner's
/// `TriageSettings::protocol_signalled` is given.
pub fn protocol_signalled(pr: &PullRequest, texts: &[String]) -> BTreeSet<ThreadId> {
    if texts.iter().all(|s| s.trim().is_empty()) {
        return BTreeSet::new();
    }
    pr.threads
        .iter()
        .filter(|t| {
            t.first_comment()
                .is_some_and(|c| is_protocol_signal(&c.body, texts))
        })
        .map(|t| t.id.clone())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn texts(list: &[&str]) -> Vec<String> {
        list.iter().map(|s| (*s).to_owned()).collect()
    }

    #[test]
    fn a_text_matches_in_any_case_anywhere_in_the_body() {
        let body = "Heads up: Approval dismissed: new commits were pushed.";
        assert!(is_protocol_signal(body, &texts(&["approval DISMISSED"])));
        assert!(!is_protocol_signal(body, &texts(&["approval granted"])));
    }

    #[test]
    fn blank_texts_match_nothing() {
        assert!(!is_protocol_signal("anything at all", &texts(&["", "  "])));
        assert!(!is_protocol_signal("anything at all", &[]));
    }
}
