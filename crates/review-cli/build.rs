//! Records what `review --version` prints beside the version: the commit the binary was built
//! from and the target it was built for.
//!
//! The commit comes from, in order: `REVIEW_BUILD_COMMIT` (for packagers building outside git),
//! the `.cargo_vcs_info.json` that `cargo package` puts in a published crate, and `git` when this
//! crate is tracked in the repository around it. Anything else (a tarball without `.git`) is
//! `unknown`: the build never fails for want of git.
#![allow(
    clippy::disallowed_methods,
    reason = "a build script reads cargo's variables and runs git, at build time"
)]

use std::path::{Path, PathBuf};
use std::process::Command;

fn main() {
    let manifest = PathBuf::from(std::env::var_os("CARGO_MANIFEST_DIR").unwrap_or_default());
    println!("cargo::rerun-if-env-changed=REVIEW_BUILD_COMMIT");
    println!("cargo::rerun-if-changed=build.rs");
    let commit = std::env::var("REVIEW_BUILD_COMMIT")
        .ok()
        .filter(|c| is_commit(c))
        .or_else(|| packaged_commit(&manifest))
        .or_else(|| git_commit(&manifest))
        .map_or_else(|| "unknown".to_owned(), |c| short(&c));
    let target = std::env::var("TARGET").unwrap_or_else(|_| "unknown".to_owned());
    println!("cargo::rustc-env=REVIEW_BUILD_COMMIT={commit}");
    println!("cargo::rustc-env=REVIEW_BUILD_TARGET={target}");
}

/// A commit id as git prints it: 7 to 40 hexadecimal digits.
fn is_commit(text: &str) -> bool {
    (7..=40).contains(&text.len()) && text.bytes().all(|b| b.is_ascii_hexdigit())
}

fn short(commit: &str) -> String {
    commit
        .chars()
        .take(12)
        .collect::<String>()
        .to_ascii_lowercase()
}

/// `{"git": {"sha1": "..."}}` from the file `cargo package` writes into a published crate.
fn packaged_commit(manifest: &Path) -> Option<String> {
    let text = std::fs::read_to_string(manifest.join(".cargo_vcs_info.json")).ok()?;
    let start = text.find("\"sha1\"")? + "\"sha1\"".len();
    let rest = text[start..].trim_start().strip_prefix(':')?.trim_start();
    let value = rest.strip_prefix('"')?.split('"').next()?;
    is_commit(value).then(|| value.to_owned())
}

/// The commit of the repository this crate is tracked in, watching its `HEAD` so that a new
/// commit builds again. `None` outside git, or when the repository around is another one (a
/// home directory kept in git, with the crate unpacked somewhere below it).
fn git_commit(manifest: &Path) -> Option<String> {
    let git = |args: &[&str]| -> Option<String> {
        let out = Command::new("git")
            .args(args)
            .current_dir(manifest)
            .output()
            .ok()?;
        out.status
            .success()
            .then(|| String::from_utf8_lossy(&out.stdout).trim().to_owned())
    };
    git(&["ls-files", "--error-unmatch", "Cargo.toml"])?;
    let commit = git(&["rev-parse", "HEAD"]).filter(|c| is_commit(c))?;
    // Only files that exist: Cargo runs the script again on every build for a missing one.
    let watch = |path: &str| {
        if let Some(file) = git(&["rev-parse", "--path-format=absolute", "--git-path", path])
            && Path::new(&file).is_file()
        {
            println!("cargo::rerun-if-changed={file}");
        }
    };
    watch("HEAD");
    watch("packed-refs");
    if let Some(branch) = git(&["symbolic-ref", "-q", "HEAD"]) {
        watch(&branch);
    }
    Some(commit)
}
