//! The audited host keeps the host port's contract (the same suite `FakeHost` and `GitHubHost`
//! pass), and records each mutation once with its outcome: done, failed, or uncertain when the
//! host cannot say whether a post landed.

use std::time::Duration;

use async_trait::async_trait;
use review_core::gate::DEFAULT_AUTOMATED_HEADER;
use review_core::model::{PullRequest, RepoId, ThreadId};
use review_core::ports::ReviewHost;
use review_core::post;
use review_local::audit::{self, Audit, AuditedHost};
use review_local::state::StateDir;
use review_test_support::contract::{Backend, Capabilities, Post};
use review_test_support::{FakeHost, Mutation, PrBuilder, bot};

/// `FakeHost` behind the audit log, which a temporary directory keeps.
struct Audited {
    host: AuditedHost<FakeHost>,
    _dir: tempfile::TempDir,
}

#[async_trait]
impl Backend for Audited {
    const NAME: &'static str = "AuditedHost<FakeHost>";
    const CAPABILITIES: Capabilities = Capabilities {
        finds_lost_posts: false,
    };

    async fn start(pr: PullRequest) -> Self {
        let dir = tempfile::tempdir().expect("a temporary directory");
        let audit = Audit::new(Some(&StateDir::new(dir.path())), &pr.repo, pr.number);
        Self {
            host: AuditedHost::new(FakeHost::new(pr), audit),
            _dir: dir,
        }
    }

    fn host(&self) -> &dyn ReviewHost {
        &self.host
    }

    fn spend_rate_limit(&self, reset_in: Duration) {
        self.host.inner().spend_rate_limit(Some(reset_in));
    }

    fn refuse_token(&self) {
        self.host.inner().refuse_token();
    }

    fn fail_thread(&self, thread: &ThreadId) {
        self.host.inner().fail_thread(&thread.0);
    }

    fn lose_next_answer(&self, _post: Post) {
        self.host.inner().lose_next_answer();
    }

    fn mutations(&self) -> Vec<Mutation> {
        self.host.inner().mutations()
    }
}

mod contract {
    review_test_support::host_contract!(super::Audited);
}

/// Every mutation is one line of the log with its outcome; a thread the tool resolved is the
/// gate's "resolved by the tool" until the tool reopens it; a post whose answer was lost is
/// uncertain, not failed, so a rerun looks for it before posting again.
#[tokio::test]
async fn each_mutation_is_one_line_with_its_outcome() {
    let pr = PrBuilder::new()
        .thread("A", "src/lib.rs", 1, &[(bot("coderabbitai"), "**Nit.**")])
        .thread("B", "src/lib.rs", 2, &[(bot("coderabbitai"), "**Nit.**")])
        .build();
    let temp = tempfile::tempdir().expect("a temporary directory");
    let dir = StateDir::new(temp.path());
    let repo: RepoId = pr.repo.clone();
    let host = AuditedHost::new(
        FakeHost::new(pr.clone()),
        Audit::new(Some(&dir), &repo, pr.number),
    );
    host.inner().fail_thread("B");
    let (a, b) = (ThreadId("A".to_owned()), ThreadId("B".to_owned()));
    let results = host.resolve_threads(&[a.clone(), b.clone()]).await;
    assert!(results[0].is_ok() && results[1].is_err(), "{results:?}");
    assert_eq!(host.resolved(), 1);
    let key = post::idempotency_key(&a, "Thanks.");
    let body = post::marked_body(DEFAULT_AUTOMATED_HEADER, "Thanks.", &key);
    host.inner().lose_next_answer();
    let lost = host.reply(&a, &body).await;
    assert!(
        lost.as_ref()
            .is_err_and(review_core::ports::HostError::may_have_been_posted),
        "{lost:?}"
    );
    host.unresolve_thread(&a)
        .await
        .expect("the fake reopens it");

    let entries = audit::entries(&dir, &repo, pr.number).expect("the log reads");
    let said: Vec<(&str, &str, &str)> = entries
        .iter()
        .map(|e| (e.action.as_str(), e.target.as_str(), e.outcome.as_str()))
        .collect();
    assert_eq!(
        said,
        [
            ("resolve", "A", "ok"),
            ("resolve", "B", "failed"),
            ("reply", "A", "uncertain"),
            ("unresolve", "A", "ok"),
        ]
    );
    assert!(
        audit::resolved_threads(&dir, &repo, pr.number).is_empty(),
        "reopened by the tool itself"
    );
    assert!(
        entries
            .iter()
            .all(|e| e.run == entries[0].run && !e.run.is_empty())
    );
}
