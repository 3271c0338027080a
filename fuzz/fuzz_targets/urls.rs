//! The readers of what users and the environment pass to name things: pull request references
//! (numbers, URLs), remote URLs, `--repo`/`GH_REPO` specs, API URLs and host names. None may
//! panic.
#![no_main]

use libfuzzer_sys::fuzz_target;
use review_github::host::{normalize_api_url, normalize_host};
use review_github::pr_ref::PrRef;
use review_github::remote::{HostedRepo, RepoSpec};

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let _ = PrRef::parse(text);
    let _ = HostedRepo::from_remote_url(text);
    let _ = RepoSpec::parse(text);
    let _ = normalize_api_url(text);
    let _ = normalize_host(text);
    let _ = review_core::model::RepoId::parse(text);
});
