//! `decide` against an in-memory decisions store.

use std::collections::BTreeMap;

use review_app::ErrorKind;
use review_app::decide::{Answers, NO_VERDICT, decide, record_answer};
use review_app::ports::{DecisionsStore, MemoryDecisions};
use review_core::decisions::{Decisions, Verdict};
use review_core::watch::{FindingKind, ThreadFinding, WatchState};

const VALID: &str = r#"{"verdict": "VALID", "reasoning": "right, the bound is off by one", "evidence": ["src/page.rs:40"], "fixSketch": "use <= len"}"#;

fn finding(fp: &str, kind: FindingKind, body: &str, path: &str) -> ThreadFinding {
    ThreadFinding {
        fingerprint: fp.to_owned(),
        thread_id: format!("PRRT_{fp}").as_str().into(),
        kind,
        author: if kind == FindingKind::Bot {
            "coderabbit".to_owned()
        } else {
            "mei".to_owned()
        },
        path: path.to_owned(),
        line: Some(40),
        outdated: false,
        body: body.to_owned(),
        all_comments_read: true,
        url: String::new(),
        human_comment_ids: Vec::new(),
    }
}

fn watch() -> WatchState {
    WatchState {
        pending: vec![
            finding(
                "aaaa1111",
                FindingKind::Bot,
                "**Off by one.** The last page is dropped.",
                "src/page.rs",
            ),
            finding(
                "bbbb2222",
                FindingKind::Bot,
                "**Unused import.**",
                "src/lib.rs",
            ),
            finding(
                "cccc3333",
                FindingKind::Human,
                "Why not a constant?",
                "src/lib.rs",
            ),
        ],
        ..WatchState::default()
    }
}

#[test]
fn one_answer_is_judged_and_recorded() {
    let store = MemoryDecisions::default();
    let answers = Answers::One {
        fingerprint: "aaaa1111".to_owned(),
        raw: VALID.to_owned(),
    };
    let decided = decide(&store, &watch(), &answers, None, &[]).unwrap();
    assert_eq!(decided.recorded.len(), 1);
    assert_eq!(decided.recorded[0].verdict, "VALID");
    let d = store.load().unwrap();
    assert_eq!(d.seen["aaaa1111"].verdict, Verdict::Valid);
    assert_eq!(d.seen["aaaa1111"].path, "src/page.rs");
    // Recording the same answer again changes nothing.
    decide(&store, &watch(), &answers, None, &[]).unwrap();
    assert_eq!(store.load().unwrap(), d);
}

#[test]
fn a_batch_records_only_what_it_names_and_an_empty_answer_escalates() {
    let store = MemoryDecisions::default();
    let given: BTreeMap<String, String> = [
        ("bbbb2222".to_owned(), String::new()),
        ("ffff9999".to_owned(), VALID.to_owned()),
    ]
    .into();
    let decided = decide(&store, &watch(), &Answers::Batch(given), None, &[]).unwrap();
    assert_eq!(decided.ignored, ["ffff9999"], "not pending: ignored");
    assert_eq!(decided.left, 1, "aaaa1111 was not in the batch");
    assert_eq!(decided.recorded.len(), 1);
    assert_eq!(decided.recorded[0].verdict, "ESCALATE");
    assert_eq!(decided.recorded[0].reason.as_deref(), Some(NO_VERDICT));
    let d = store.load().unwrap();
    assert!(!d.seen.contains_key("aaaa1111"));
    assert_eq!(d.escalated.len(), 1);
}

#[test]
fn a_persons_finding_is_refused_and_an_unknown_one_not_found() {
    let store = MemoryDecisions::default();
    let w = watch();
    let err = record_answer(&store, &w.pending[2], VALID, None, &[], None).unwrap_err();
    assert_eq!(err.kind, ErrorKind::Refused);
    assert!(err.message.contains("human participation"), "{err}");
    assert_eq!(
        store.load().unwrap(),
        Decisions::default(),
        "nothing recorded"
    );
    let missing = Answers::One {
        fingerprint: "dead0000".to_owned(),
        raw: VALID.to_owned(),
    };
    let err = decide(&store, &w, &missing, None, &[]).unwrap_err();
    assert_eq!(err.kind, ErrorKind::NotFound);
    assert!(err.hint.is_some());
}

#[test]
fn the_hard_gates_escalate_whatever_the_answer() {
    let store = MemoryDecisions::default();
    let security = finding(
        "eeee5555",
        FindingKind::Bot,
        "**SQL injection.** The query interpolates `name` from the request.",
        "src/db.rs",
    );
    let r = record_answer(&store, &security, VALID, None, &[], None).unwrap();
    assert_eq!(r.verdict, "ESCALATE");
    assert!(r.reason.unwrap().starts_with("security-sensitive"));
    let workflow = finding(
        "dddd4444",
        FindingKind::Bot,
        "**Pin the action.**",
        ".github/workflows/ci.yml",
    );
    let r = record_answer(
        &store,
        &workflow,
        VALID,
        None,
        &[".github/".to_owned()],
        None,
    )
    .unwrap();
    assert_eq!(r.verdict, "ESCALATE");
    assert!(r.reason.unwrap().contains("deny-listed path"));
}

/// A store whose writes fail, with an error of its own.
#[derive(Debug)]
struct Broken;

#[derive(Debug, thiserror::Error)]
#[error("disk full")]
struct DiskFull;

impl DecisionsStore for Broken {
    type Error = DiskFull;
    fn load(&self) -> Result<Decisions, DiskFull> {
        Ok(Decisions::default())
    }
    fn update(&self, _: &mut dyn FnMut(&mut Decisions)) -> Result<(), DiskFull> {
        Err(DiskFull)
    }
}

#[test]
fn a_stores_failure_comes_back_whole() {
    let w = watch();
    let err = record_answer(&Broken, &w.pending[0], VALID, None, &[], None).unwrap_err();
    assert_eq!(err.kind, ErrorKind::Port);
    assert!(
        err.port_error::<DiskFull>().is_some(),
        "the store's own error is the source"
    );
}
