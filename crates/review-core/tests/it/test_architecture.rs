//! Architecture invariant: review-core depends on no HTTP, git, terminal or runtime crate, and its
//! source touches no file, process, environment variable or clock: every effect is a port
//! (`review_core::ports`), and the time is a value its callers pass in.

/// The only crates review-core may depend on (dev-dependencies aside).
// `schemars` is optional (feature `schema`) and only derives the JSON Schemas of serialized types.
const ALLOWED: &[&str] = &[
    "async-trait",
    "schemars",
    "serde",
    "serde_json",
    "thiserror",
];

#[test]
fn review_core_depends_only_on_pure_crates() {
    let manifest =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/Cargo.toml")).unwrap();
    let deps = review_test_support::dependencies_of(&manifest);
    assert!(
        !deps.is_empty(),
        "the manifest's [dependencies] were not found"
    );
    for dep in &deps {
        assert!(
            ALLOWED.contains(&dep.as_str()),
            "review-core must stay pure: `{dep}` is not an allowed dependency (see docs/architecture.md)"
        );
    }
}

/// The review loop's verdicts are below its watcher: `decisions` names nothing of `watch`, so
/// the two modules do not import each other.
#[test]
fn the_decisions_do_not_know_the_watcher() {
    let text =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/src/decisions.rs")).unwrap();
    assert!(
        !text.contains("crate::watch") && !text.contains("super::watch"),
        "decisions.rs imports watch: the circle is back"
    );
}

#[test]
fn review_core_source_calls_no_file_process_environment_or_clock() {
    let src = std::path::Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/src"));
    let (found, read) = review_test_support::world_calls_in(src);
    assert!(
        read >= 10,
        "the source files were not found under {}",
        src.display()
    );
    assert!(
        found.is_empty(),
        "the core is pure; effects go through its ports:\n{}",
        found.join("\n")
    );
}
