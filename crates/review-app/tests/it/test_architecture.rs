//! Architecture invariant: the application crate depends on no CLI, HTTP, protocol, terminal or
//! async-runtime crate, and its source touches no file, process, environment variable or clock
//! itself: those are the ports' business.

/// The only crates review-app may depend on (dev-dependencies aside).
const ALLOWED: &[&str] = &[
    "review-classify",
    "review-core",
    "schemars",
    "serde",
    "thiserror",
];

/// What the source must never call.
const FORBIDDEN: &[&str] = &[
    "std::fs",
    "std::process",
    "std::env",
    "std::net",
    "SystemTime",
    "Instant::now",
    "thread::sleep",
    "tokio",
    "clap",
    "octocrab",
    "rmcp",
    "axum",
];

#[test]
fn review_app_depends_only_on_the_core_and_the_reader() {
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
            "review-app must stay behind its ports: `{dep}` is not an allowed dependency"
        );
    }
}

#[test]
fn review_app_source_calls_no_file_process_environment_or_clock() {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/src");
    let mut read = 0;
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        let text = std::fs::read_to_string(&path).unwrap();
        read += 1;
        for word in FORBIDDEN {
            assert!(
                !text.contains(word),
                "{} names `{word}`: the use-cases reach the world only through ports",
                path.display()
            );
        }
    }
    assert!(read >= 3, "the source files were not found");
}
