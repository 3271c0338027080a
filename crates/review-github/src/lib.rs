//! The GitHub adapter of `review`.
//!
//! This first layer is pure: it decides *where* to talk to GitHub and *as whom*, following the
//! conventions of GitHub's `gh` CLI, and reads what users pass to name a pull request or a
//! repository. It reads no environment of its own: functions take an [`env::Env`], and
//! [`env::ProcessEnv`] is the one reader of the real environment.
//!
//! - [`mod@env`]: [`env::EnvVars`], the one list of variables the tool reads, and the [`env::Env`]
//!   lookup.
//! - [`host`]: the host (explicit, `GH_HOST`, or `github.com`) and its REST and GraphQL
//!   [`host::Endpoints`] (github.com, `*.ghe.com`, Enterprise Server, `GITHUB_API_URL`
//!   overrides).
//! - [`token`]: the token for a host (`GH_TOKEN`, `GITHUB_TOKEN`, the Enterprise variables, then
//!   `gh auth token`), sent only to the host it belongs to, kept in a [`token::Token`] that
//!   never prints its secret.
//! - [`pr_ref`]: a pull request given as `482`, `#482`, a URL, or nothing.
//! - [`remote`]: the repository and host of a git remote URL, `--repo` or `GH_REPO`.
//! - [`probe`]: a REST "has anything changed?" probe of a pull request, with `ETag`s, so that an
//!   idle poll costs no GraphQL points and no rate limit.
//! - [`transport`]: the one HTTP transport under the GraphQL [`client`] and the probe (the token
//!   check, time limits, retries and backoff, rate limits), with its
//!   [`transport::TransportError`] and [`transport::RateLimit`].
//! - [`unsupported`]: a field, mutation or argument an older server's API lacks, read from
//!   GraphQL's schema errors.
//!
//! ```
//! use review_github::env::MapEnv;
//! use review_github::host::Endpoints;
//! use review_github::pr_ref::PrRef;
//! use review_github::token::resolve_token;
//!
//! let env = MapEnv::from_iter([
//!     ("GH_HOST", "ghe.example.com"),
//!     ("GH_ENTERPRISE_TOKEN", "ghp_secret"),
//! ]);
//!
//! // A URL names the host, and the endpoints and token follow it.
//! let PrRef::Url(pr) = PrRef::parse("https://ghe.example.com/acme/widgets/pull/482/files")? else {
//!     unreachable!("a URL parses as a URL")
//! };
//! let endpoints = Endpoints::resolve(Some(&pr.host), &env)?;
//! assert_eq!(endpoints.rest, "https://ghe.example.com/api/v3");
//! assert_eq!(endpoints.graphql, "https://ghe.example.com/api/graphql");
//!
//! // The Enterprise token goes to the host GH_HOST names, and to no other.
//! let found = resolve_token(&endpoints.host, &env, &[], None)?;
//! assert_eq!(found.source.to_string(), "GH_ENTERPRISE_TOKEN");
//! assert_eq!(format!("{:?}", found.token), "***");
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

#![warn(missing_docs)]

pub mod adapter;
pub mod client;
pub mod env;
pub mod host;
pub mod ids;
pub mod issues;
pub mod locate;
pub mod pr_ref;
pub mod probe;
pub mod queries;
pub mod reader;
pub mod remote;
pub mod token;
pub mod transport;
pub mod unsupported;
mod url;
