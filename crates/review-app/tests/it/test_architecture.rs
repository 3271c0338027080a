//! Architecture invariant: the application crate depends on no CLI, HTTP, protocol, terminal or
//! async-runtime crate, and its source touches no file, process, environment variable or clock
//! itself: those are the ports' business.

/// The only crates review-app may depend on (dev-dependencies aside).
const ALLOWED: &[&str] = &[
    // A macro for ports called as trait objects, as the core's `ReviewHost` is.
    "async-trait",
    "review-classify",
    "review-core",
    "schemars",
    "serde",
    "thiserror",
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
    let src = std::path::Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/src"));
    let (found, read) = review_test_support::world_calls_in(src);
    assert!(
        read >= 3,
        "the source files were not found under {}",
        src.display()
    );
    assert!(
        found.is_empty(),
        "the use-cases reach the world only through ports:\n{}",
        found.join("\n")
    );
}

/// The crates of the command line, HTTP, the MCP protocol, the GitHub client and the async
/// runtime are not in the allow-list above, and not reached through it: no crate review-app
/// depends on (the core, the reader) names them either.
#[test]
fn review_app_reaches_no_cli_http_protocol_or_runtime_crate_through_its_dependencies() {
    let crates = concat!(env!("CARGO_MANIFEST_DIR"), "/..");
    for member in ["review-core", "review-classify"] {
        let manifest = std::fs::read_to_string(format!("{crates}/{member}/Cargo.toml")).unwrap();
        let deps = review_test_support::dependencies_of(&manifest);
        for dep in &deps {
            assert!(
                !FORBIDDEN_CRATES.contains(&dep.as_str()),
                "{member}, a dependency of review-app, depends on `{dep}`"
            );
        }
    }
    for dep in FORBIDDEN_CRATES {
        assert!(!ALLOWED.contains(dep), "`{dep}` must not be allowed");
    }
}

/// The crates review-app must not depend on, directly or through the core and the reader.
const FORBIDDEN_CRATES: &[&str] = &["clap", "axum", "rmcp", "octocrab", "tokio", "reqwest"];
