//! The review-host port's contract suite (`review_test_support::contract`) on `GitHubHost` over
//! the fake GitHub; review-test-support's tests run the same cases on `FakeHost`.

use std::time::Duration;

use async_trait::async_trait;
use review_core::model::{PullRequest, ThreadId};
use review_core::ports::ReviewHost;
use review_github::adapter::GitHubHost;
use review_test_support::Mutation;
use review_test_support::contract::{Backend, Capabilities, Post};
use review_test_support::github::Fault;

use crate::common::{Setup, fast_policy, host, setup};

/// `GitHubHost` on a fake GitHub holding the pull request.
pub struct GitHubBackend {
    setup: Setup,
    host: GitHubHost,
}

#[async_trait]
impl Backend for GitHubBackend {
    const NAME: &'static str = "GitHubHost";
    const CAPABILITIES: Capabilities = Capabilities {
        finds_lost_posts: true,
    };

    async fn start(pr: PullRequest) -> Self {
        let number = pr.number;
        let setup = setup(pr, fast_policy()).await;
        let host = host(&setup, number);
        Self { setup, host }
    }

    fn host(&self) -> &dyn ReviewHost {
        &self.host
    }

    fn spend_rate_limit(&self, reset_in: Duration) {
        self.setup.github.inject(Fault::RateLimited {
            operation: None,
            reset_in_secs: reset_in.as_secs(),
            times: usize::MAX,
        });
    }

    fn refuse_token(&self) {
        self.setup.github.require_token("another-token");
    }

    fn fail_thread(&self, thread: &ThreadId) {
        self.setup.github.inject(Fault::FailingNode {
            id: thread.0.clone(),
            times: usize::MAX,
        });
    }

    fn lose_next_answer(&self, post: Post) {
        let operation = match post {
            Post::Reply => "AddThreadReply",
            Post::Comment => "AddPrComment",
        };
        self.setup.github.inject(Fault::ApplyThenFail {
            operation: Some(operation.to_owned()),
            status: 502,
            times: 1,
        });
    }

    fn mutations(&self) -> Vec<Mutation> {
        self.setup.github.mutations()
    }
}

review_test_support::host_contract!(GitHubBackend);
