//! The pure domain of `review`: the review conversation on a pull request, and the decisions the
//! triage workflow makes about it.
//!
//! This crate does no I/O: no network, no git, no terminal, no clock, no environment. It receives
//! a [`model::PullRequest`] and the [`signals::SignalSet`] a comment reader produced, decides
//! with [`plan::plan`], and acts only through the traits in [`ports`].
//!
//! # Using it from your own project
//!
//! ```sh
//! cargo add review-core review-classify
//! ```
//!
//! Read a pull request into a [`model::PullRequest`] (from your service, a recording, or
//! `review-github`), let `review_classify::analyze` read its comments into a
//! [`signals::SignalSet`], plan with [`plan::plan`], and carry the plan out with
//! [`execute::execute`] through your own implementation of [`ports::ReviewHost`] (and, to make
//! fixes, [`ports::Vcs`]). The example `recorded_host` plugs a host that serves a recorded file
//! and records the mutations asked of it: `cargo run -p review-core --example recorded_host`.
//! The review loop's pieces are here too: [`watch::observe`] turns successive reads into events
//! and quiescence, and [`decisions::judge`] checks a triager's verdict.
//!
//! The invariants it holds:
//! - a thread with any comment not recognisably automated is human ([`gate`]) and is never
//!   planned for a mutation;
//! - every unresolved thread read ends in exactly one outcome, and a [`report::Report`] cannot
//!   be built when they do not reconcile;
//! - a thread whose comments were not all read is never planned for a mutation.
//!
//! ```
//! use review_core::gate::AutomationSettings;
//! use review_core::model::*;
//! use review_core::plan::{plan, TriageSettings};
//! use review_core::report::Outcome;
//! use review_core::signals::SignalSet;
//!
//! let person = Author::new("alice", AuthorKind::User);
//! let pr = PullRequest {
//!     repo: RepoId::parse("acme/widgets").unwrap(),
//!     number: 7,
//!     id: String::new(),
//!     title: "Add widgets".into(),
//!     url: String::new(),
//!     state: PrState::Open,
//!     author: Some(person.clone()),
//!     head_ref: "widgets".into(),
//!     base_ref: "main".into(),
//!     head_sha: CommitId::from("0123456789abcdef0123456789abcdef01234567"),
//!     base_sha: None,
//!     head_repo: None,
//!     viewer: None,
//!     draft: false,
//!     mergeable: None,
//!     checks: None,
//!     reviews: vec![],
//!     comments: vec![],
//!     threads: vec![Thread {
//!         id: ThreadId::from("PRRT_1"),
//!         is_resolved: false,
//!         is_outdated: false,
//!         path: "src/lib.rs".into(),
//!         lines: Some(LineRange::new(3, 3)),
//!         subject_type: SubjectType::Line,
//!         comments: vec![Comment {
//!             id: CommentId::from("PRRC_1"),
//!             author: Some(Author::new("bob", AuthorKind::User)),
//!             body: "Why not a HashMap here?".into(),
//!             created_at: "2026-11-30T10:00:00Z".into(),
//!             url: String::new(),
//!             diff_hunk: None,
//!             review_id: None,
//!         }],
//!         all_comments_read: true,
//!         original_lines: None,
//!     }],
//! };
//! let plan = plan(&pr, &SignalSet::default(), &TriageSettings::default());
//! let report = plan.report(&pr).unwrap();
//! assert_eq!(report.threads[0].outcome, Outcome::Deferred);
//! assert!(report.threads[0].human);
//! assert_eq!(report.counts.handled(), 1);
//! ```
#![warn(missing_docs)]

pub mod decisions;
pub mod defer;
pub mod execute;
pub mod followup;
pub mod gate;
pub mod judge;
pub mod knock_on;
pub mod model;
pub mod plan;
pub mod ports;
pub mod post;
pub mod reply;
pub mod report;
pub mod round;
pub mod rules;
pub mod signals;
pub mod site;
pub mod snapshot;
pub mod status;
pub mod suggestion;
pub mod text;
pub mod time;
pub mod watch;
