//! The review-host port's contract suite on the in-memory `FakeHost`; review-github's tests run
//! the same cases on `GitHubHost` over the fake GitHub.

review_test_support::host_contract!(review_test_support::contract::FakeBackend);
