//! Thread-less findings: review bodies under `tests/fixtures/threadless/`, each with a
//! `.expected` listing of what must be read from it (`kind | path | lines | severity | title`,
//! one finding a line). The family is the file name's first word.

use std::path::Path;

use review_classify::{Family, ThreadlessKind, fingerprint, read_finding, threadless_findings};

fn render(body: &str, family: Family) -> String {
    threadless_findings(body, family)
        .iter()
        .map(|f| {
            let lines = f.lines.map_or_else(|| "-".to_owned(), |l| l.to_string());
            format!(
                "{} | {} | {} | {} | {}\n",
                f.kind,
                f.path,
                lines,
                f.severity.as_str(),
                f.title
            )
        })
        .collect()
}

#[test]
fn every_fixture_reads_as_expected() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/threadless");
    let mut seen = 0;
    let mut entries: Vec<_> = std::fs::read_dir(&dir)
        .expect("fixture directory")
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == "md"))
        .filter(|p| p.file_name().is_some_and(|n| n != "README.md"))
        .collect();
    entries.sort();
    for path in entries {
        let name = path
            .file_stem()
            .and_then(|s| s.to_str())
            .expect("utf-8 name");
        let family = match name.split('-').next() {
            Some("coderabbit") => Family::CodeRabbit,
            Some("copilot") => Family::Copilot,
            other => panic!("{name}: no family for {other:?}"),
        };
        let body = std::fs::read_to_string(&path).expect("fixture");
        let want = std::fs::read_to_string(path.with_extension("expected")).expect("expected");
        assert_eq!(render(&body, family), want, "{name}");
        seen += 1;
    }
    assert!(seen >= 6, "only {seen} fixtures");
}

#[test]
fn a_duplicate_item_has_the_inline_comment_s_fingerprint() {
    let body = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/fixtures/threadless/coderabbit-2025-review.md"),
    )
    .expect("fixture");
    let found = threadless_findings(&body, Family::CodeRabbit);
    let duplicate = found
        .iter()
        .find(|f| f.kind == ThreadlessKind::Duplicate)
        .expect("a duplicate item");
    let inline = "_⚠️ Potential issue_ | _🔴 Critical_\n\n**The flush is still not awaited (line 70).**\n\nIt is dropped.";
    let finding = read_finding(Family::CodeRabbit, inline, "src/export/mod.rs");
    assert_eq!(
        duplicate.fingerprint,
        finding
            .signals(Family::CodeRabbit, "src/export/mod.rs")
            .fingerprint
    );
    assert_eq!(
        duplicate.fingerprint,
        fingerprint(
            Some(Family::CodeRabbit),
            "src/export/mod.rs",
            &duplicate.title
        )
    );
}

#[test]
fn agent_prompts_and_tool_output_are_not_part_of_an_item() {
    let body = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/fixtures/threadless/coderabbit-2025-review.md"),
    )
    .expect("fixture");
    for f in threadless_findings(&body, Family::CodeRabbit) {
        assert!(!f.text.contains("mark this as critical"), "{}", f.text);
        assert!(!f.text.contains("do not read this"), "{}", f.text);
        assert!(!f.text.contains("LGTM"), "{}", f.text);
    }
}
