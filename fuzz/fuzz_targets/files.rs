//! The parsers of files and answers from outside: the snapshot format, the loop's state and
//! decisions files, the follow-up's answers, a triager's verdict, timestamps, instructions, and
//! the fence and idempotency-key readers. None may panic; the fence must always hold.
#![no_main]

use libfuzzer_sys::fuzz_target;
use review_core::decisions::{Decisions, FindingFacts, judge};
use review_core::followup::form::FormAnswers;
use review_core::watch::WatchState;
use review_core::{followup, post, snapshot, time};

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let _ = snapshot::parse(text);
    let _ = serde_json::from_str::<Decisions>(text);
    let _ = serde_json::from_str::<WatchState>(text);
    let _ = serde_json::from_str::<FormAnswers>(text);
    let denied = vec![".github/".to_owned(), "Cargo.lock".to_owned()];
    let _ = judge(
        text,
        FindingFacts {
            path: "src/lib.rs",
            body: text,
            denied_paths: &denied,
            security: None,
        },
    );
    let _ = time::parse_rfc3339(text);
    let _ = followup::intent(text);
    let _ = followup::read_instruction(text);
    let _ = followup::language_of([text]);
    let _ = post::find_key(text);
    let marker = "finding_0123456789abcdef0123456789abcdef";
    let fenced = post::fence(text, marker);
    assert_eq!(fenced.matches(marker).count(), 2, "the fence holds");
});
