//! Which GitHub host to talk to, and the REST and GraphQL endpoints of that host.
//!
//! The host is, in order: one named explicitly (by a pull request URL or the git remote), then
//! [`EnvVars::GH_HOST`], then `github.com`. Its endpoints follow from its kind:
//!
//! | host | REST | GraphQL |
//! |---|---|---|
//! | `github.com` | `https://api.github.com` | `https://api.github.com/graphql` |
//! | `SUB.ghe.com` | `https://api.SUB.ghe.com` | `https://api.SUB.ghe.com/graphql` |
//! | Enterprise Server `HOST` | `https://HOST/api/v3` | `https://HOST/api/graphql` |
//!
//! [`EnvVars::GITHUB_API_URL`] and [`EnvVars::GITHUB_GRAPHQL_URL`] override these whatever the
//! host (GitHub Actions sets both; tests set them to a local server), unless
//! [`EnvVars::GITHUB_SERVER_URL`] says they belong to another host (a workflow on github.com
//! reading a pull request on an Enterprise host keeps that host's own endpoints and token). When only the REST URL is
//! set, the GraphQL endpoint is derived from it: `.../api/v3` gives `.../api/graphql`, any other
//! base `B` gives `B/graphql`.

use std::fmt;

use crate::env::{Env, EnvVars};
use crate::url;

/// The public GitHub host.
pub const GITHUB_COM: &str = "github.com";

/// The domain under which GitHub Enterprise Cloud with data residency gives each enterprise a
/// subdomain (`SUB.ghe.com`).
pub const GHE_COM: &str = "ghe.com";

/// What kind of GitHub a host is; it decides the endpoints and which token variables apply.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum HostKind {
    /// `github.com`.
    GitHubCom,
    /// `SUB.ghe.com`: GitHub Enterprise Cloud with data residency. Takes the `github.com`
    /// token variables, as `gh` does.
    DataResidency,
    /// Any other host: GitHub Enterprise Server.
    EnterpriseServer,
}

impl HostKind {
    /// The kind of `host`, which should already be [normalized](normalize_host).
    pub fn of(host: &str) -> Self {
        let name = host_name(host);
        if name == GITHUB_COM {
            Self::GitHubCom
        } else if name
            .strip_suffix(GHE_COM)
            .is_some_and(|sub| sub.len() > 1 && sub.ends_with('.'))
        {
            Self::DataResidency
        } else {
            Self::EnterpriseServer
        }
    }
}

/// The host name of `host[:port]`, without the port.
fn host_name(host: &str) -> &str {
    url::split_host_port(host).map_or(host, |(name, _)| name)
}

/// Normalizes a host the way `gh` does: lowercase, any `*.github.com` (`www.github.com`,
/// `api.github.com`, `ssh.github.com`) becomes `github.com`, and any deeper name under `ghe.com`
/// (`api.acme.ghe.com`) becomes the enterprise's own subdomain (`acme.ghe.com`). A port is kept.
///
/// ```
/// use review_github::host::normalize_host;
///
/// assert_eq!(normalize_host("WWW.GitHub.com"), "github.com");
/// assert_eq!(normalize_host("api.acme.ghe.com"), "acme.ghe.com");
/// assert_eq!(normalize_host("ghe.example.com:8443"), "ghe.example.com:8443");
/// ```
pub fn normalize_host(host: &str) -> String {
    let host = host.to_ascii_lowercase();
    let (name, port) = match url::split_host_port(&host) {
        Some((name, Some(_))) => (name, &host[name.len()..]),
        _ => (host.as_str(), ""),
    };
    let name = if name.ends_with(".github.com") {
        GITHUB_COM.to_owned()
    } else if let Some(before) = name.strip_suffix(".ghe.com") {
        let sub = before.rsplit('.').next().unwrap_or(before);
        format!("{sub}.{GHE_COM}")
    } else {
        name.to_owned()
    };
    format!("{name}{port}")
}

/// Where the chosen host came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum HostSource {
    /// Named by the caller: a pull request URL or the git remote.
    Explicit,
    /// The [`EnvVars::GH_HOST`] variable.
    GhHost,
    /// Nothing named one: `github.com`.
    Default,
}

impl fmt::Display for HostSource {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Self::Explicit => "the pull request URL or git remote",
            Self::GhHost => EnvVars::GH_HOST,
            Self::Default => "the default",
        })
    }
}

/// The endpoints of a GitHub host.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Endpoints {
    /// The host ([normalized](normalize_host)): what tokens are looked up for, and what `gh`
    /// knows the account by. With URL overrides it may differ from the URLs' host.
    pub host: String,
    /// The REST API base, without a trailing slash (`https://api.github.com`).
    pub rest: String,
    /// The GraphQL endpoint (`https://api.github.com/graphql`).
    pub graphql: String,
}

impl Endpoints {
    /// The standard endpoints of `host`, without any override. `host` is normalized first.
    ///
    /// ```
    /// use review_github::host::Endpoints;
    ///
    /// let ghes = Endpoints::for_host("ghe.example.com");
    /// assert_eq!(ghes.rest, "https://ghe.example.com/api/v3");
    /// assert_eq!(ghes.graphql, "https://ghe.example.com/api/graphql");
    /// ```
    pub fn for_host(host: &str) -> Self {
        let host = normalize_host(host);
        let (rest, graphql) = match HostKind::of(&host) {
            HostKind::GitHubCom => (
                "https://api.github.com".to_owned(),
                "https://api.github.com/graphql".to_owned(),
            ),
            HostKind::DataResidency => {
                let api = format!("https://api.{}", host_name(&host));
                let graphql = format!("{api}/graphql");
                (api, graphql)
            }
            HostKind::EnterpriseServer => (
                format!("https://{host}/api/v3"),
                format!("https://{host}/api/graphql"),
            ),
        };
        Self {
            host,
            rest,
            graphql,
        }
    }

    /// Resolves the endpoints: the host from `explicit_host`, else [`EnvVars::GH_HOST`], else
    /// `github.com`; then the overrides [`EnvVars::GITHUB_API_URL`] and
    /// [`EnvVars::GITHUB_GRAPHQL_URL`] (see the [module docs](self)). Empty variables count as
    /// unset.
    ///
    /// # Errors
    /// [`EndpointError::InvalidHost`] when the host is not a host name, and
    /// [`EndpointError::InvalidUrl`] when an override is not an `http(s)` URL with a host.
    pub fn resolve(explicit_host: Option<&str>, env: &dyn Env) -> Result<Self, EndpointError> {
        let (host, _) = choose_host(explicit_host, env)?;
        let mut endpoints = Self::for_host(&host);
        let server_host = env
            .non_empty(EnvVars::GITHUB_SERVER_URL)
            .and_then(|url| url_host(&url));
        if server_host.is_some_and(|server| server != endpoints.host) {
            return Ok(endpoints);
        }
        let api = override_url(env, EnvVars::GITHUB_API_URL)?;
        let graphql = override_url(env, EnvVars::GITHUB_GRAPHQL_URL)?;
        if let Some(api) = api {
            endpoints.graphql = graphql_for_rest_base(&api);
            endpoints.rest = api;
        }
        if let Some(graphql) = graphql {
            endpoints.graphql = graphql;
        }
        Ok(endpoints)
    }
}

/// The [normalized](normalize_host) host of a web address (`https://ghe.example.com/` gives
/// `ghe.example.com`), if it has one.
fn url_host(url: &str) -> Option<String> {
    let rest = url.trim().split_once("://").map_or(url.trim(), |(_, r)| r);
    let authority = rest.split(['/', '?', '#']).next()?;
    let host = authority.rsplit('@').next()?;
    (!host.is_empty()).then(|| normalize_host(host))
}

/// The GraphQL endpoint that goes with a REST base: `.../api/v3` gives `.../api/graphql`
/// (Enterprise Server), any other base `B` gives `B/graphql`.
fn graphql_for_rest_base(rest: &str) -> String {
    match rest.strip_suffix("/api/v3") {
        Some(root) => format!("{root}/api/graphql"),
        None => format!("{rest}/graphql"),
    }
}

fn override_url(env: &dyn Env, var: &'static str) -> Result<Option<String>, EndpointError> {
    env.non_empty(var)
        .map(|value| {
            normalize_api_url(&value).map_err(|source| EndpointError::InvalidUrl {
                var,
                value: url::redact(&value),
                source,
            })
        })
        .transpose()
}

/// Chooses the host, [normalized](normalize_host): `explicit` if given, else
/// [`EnvVars::GH_HOST`] if set and non-empty, else `github.com`.
///
/// # Errors
/// [`EndpointError::InvalidHost`] when the chosen value is not `NAME[:PORT]` (a scheme or a path
/// is refused: `GH_HOST` takes a bare host name, as with `gh`).
pub fn choose_host(
    explicit: Option<&str>,
    env: &dyn Env,
) -> Result<(String, HostSource), EndpointError> {
    let (host, source) = match (explicit, env.non_empty(EnvVars::GH_HOST)) {
        (Some(host), _) => (host.trim().to_owned(), HostSource::Explicit),
        (None, Some(host)) => (host, HostSource::GhHost),
        (None, None) => return Ok((GITHUB_COM.to_owned(), HostSource::Default)),
    };
    if url::split_host_port(&host).is_none() {
        return Err(EndpointError::InvalidHost { host, from: source });
    }
    Ok((normalize_host(&host), source))
}

/// Checks an API URL and removes trailing slashes: the scheme must be `http` or `https`, the
/// host non-empty (a port is allowed, so `http://127.0.0.1:8080` is fine), and there may be no
/// query, fragment or whitespace.
///
/// ```
/// use review_github::host::normalize_api_url;
///
/// let url = normalize_api_url("https://ghe.example.com/api/v3/").unwrap();
/// assert_eq!(url, "https://ghe.example.com/api/v3");
/// assert!(normalize_api_url("ftp://example.com").is_err());
/// ```
///
/// # Errors
/// A [`UrlError`] naming what is wrong.
pub fn normalize_api_url(input: &str) -> Result<String, UrlError> {
    let trimmed = input.trim();
    if trimmed.chars().any(char::is_whitespace) {
        return Err(UrlError::Whitespace);
    }
    let parts = url::split(trimmed).ok_or(UrlError::NotAUrl)?;
    if parts.scheme != "http" && parts.scheme != "https" {
        return Err(UrlError::UnsupportedScheme {
            scheme: parts.scheme,
        });
    }
    if parts.authority.is_empty() {
        return Err(UrlError::MissingHost);
    }
    if url::split_host_port(parts.authority).is_none() {
        return Err(UrlError::InvalidHost {
            host: parts.authority.to_owned(),
        });
    }
    if parts.has_suffix {
        return Err(UrlError::QueryOrFragment);
    }
    Ok(trimmed.trim_end_matches('/').to_owned())
}

/// Why a host or an endpoint could not be resolved.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum EndpointError {
    /// The chosen host is not `NAME[:PORT]`.
    #[error("`{host}` (from {from}) is not a GitHub host name such as `github.example.com`")]
    InvalidHost {
        /// The value given.
        host: String,
        /// Where it came from.
        from: HostSource,
    },
    /// An endpoint override is not a usable URL.
    #[error("{var} is `{value}`, which is not a usable API URL")]
    InvalidUrl {
        /// The variable that holds it.
        var: &'static str,
        /// Its value (any user info replaced by `***`).
        value: String,
        /// What is wrong with it.
        source: UrlError,
    },
}

/// What is wrong with an API URL.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum UrlError {
    /// There is no `scheme://` at the start.
    #[error("it does not start with `http://` or `https://`")]
    NotAUrl,
    /// The scheme is neither `http` nor `https`.
    #[error("the scheme `{scheme}` is not http or https")]
    UnsupportedScheme {
        /// The scheme found, lowercased.
        scheme: String,
    },
    /// Nothing between `://` and the path.
    #[error("it has no host")]
    MissingHost,
    /// The host is not `NAME[:PORT]`.
    #[error("`{host}` is not a host name with an optional port")]
    InvalidHost {
        /// The authority found.
        host: String,
    },
    /// A `?query` or `#fragment` follows the path; API bases take neither.
    #[error("an API base URL takes no query or fragment")]
    QueryOrFragment,
    /// Whitespace inside the URL.
    #[error("it contains whitespace")]
    Whitespace,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::env::MapEnv;

    #[test]
    fn host_kinds() {
        for (host, kind) in [
            ("github.com", HostKind::GitHubCom),
            ("acme.ghe.com", HostKind::DataResidency),
            ("ghe.com", HostKind::EnterpriseServer),
            ("notghe.com", HostKind::EnterpriseServer),
            ("ghe.example.com", HostKind::EnterpriseServer),
            ("127.0.0.1:8080", HostKind::EnterpriseServer),
            ("github.com.evil.example", HostKind::EnterpriseServer),
        ] {
            assert_eq!(HostKind::of(host), kind, "{host}");
        }
    }

    #[test]
    fn normalize_host_table() {
        for (input, expected) in [
            ("github.com", "github.com"),
            ("GitHub.COM", "github.com"),
            ("www.github.com", "github.com"),
            ("ssh.github.com", "github.com"),
            ("acme.ghe.com", "acme.ghe.com"),
            ("api.acme.ghe.com", "acme.ghe.com"),
            ("Ghe.Example.com", "ghe.example.com"),
            ("ghe.example.com:8443", "ghe.example.com:8443"),
            ("127.0.0.1:8080", "127.0.0.1:8080"),
            ("github.com.evil.example", "github.com.evil.example"),
        ] {
            assert_eq!(normalize_host(input), expected, "{input}");
        }
    }

    /// (explicit host, env, expected host, rest, graphql)
    type Row = (
        Option<&'static str>,
        &'static [(&'static str, &'static str)],
        &'static str,
        &'static str,
        &'static str,
    );

    #[test]
    fn resolve_table() {
        let rows: &[Row] = &[
            (
                None,
                &[],
                "github.com",
                "https://api.github.com",
                "https://api.github.com/graphql",
            ),
            (
                Some("github.com"),
                &[],
                "github.com",
                "https://api.github.com",
                "https://api.github.com/graphql",
            ),
            (
                Some("www.github.com"),
                &[],
                "github.com",
                "https://api.github.com",
                "https://api.github.com/graphql",
            ),
            // Enterprise Server: GraphQL is /api/graphql, not /api/v3/graphql.
            (
                Some("ghe.example.com"),
                &[],
                "ghe.example.com",
                "https://ghe.example.com/api/v3",
                "https://ghe.example.com/api/graphql",
            ),
            (
                Some("ghe.example.com:8443"),
                &[],
                "ghe.example.com:8443",
                "https://ghe.example.com:8443/api/v3",
                "https://ghe.example.com:8443/api/graphql",
            ),
            // Data residency.
            (
                Some("acme.ghe.com"),
                &[],
                "acme.ghe.com",
                "https://api.acme.ghe.com",
                "https://api.acme.ghe.com/graphql",
            ),
            (
                Some("api.acme.ghe.com"),
                &[],
                "acme.ghe.com",
                "https://api.acme.ghe.com",
                "https://api.acme.ghe.com/graphql",
            ),
            // GH_HOST when nothing explicit; explicit wins over it; empty GH_HOST is unset.
            (
                None,
                &[("GH_HOST", "ghe.example.com")],
                "ghe.example.com",
                "https://ghe.example.com/api/v3",
                "https://ghe.example.com/api/graphql",
            ),
            (
                Some("github.com"),
                &[("GH_HOST", "ghe.example.com")],
                "github.com",
                "https://api.github.com",
                "https://api.github.com/graphql",
            ),
            (
                None,
                &[("GH_HOST", "")],
                "github.com",
                "https://api.github.com",
                "https://api.github.com/graphql",
            ),
            // Overrides: both given, trailing slashes dropped.
            (
                None,
                &[
                    ("GITHUB_API_URL", "https://api.github.com/"),
                    ("GITHUB_GRAPHQL_URL", "https://api.github.com/graphql/"),
                ],
                "github.com",
                "https://api.github.com",
                "https://api.github.com/graphql",
            ),
            // A local test server; the host stays what tokens are looked up for.
            (
                None,
                &[("GITHUB_API_URL", "http://127.0.0.1:4321")],
                "github.com",
                "http://127.0.0.1:4321",
                "http://127.0.0.1:4321/graphql",
            ),
            (
                None,
                &[("GITHUB_API_URL", "http://127.0.0.1:4321/")],
                "github.com",
                "http://127.0.0.1:4321",
                "http://127.0.0.1:4321/graphql",
            ),
            // Only the REST override, Enterprise-style base: GraphQL is derived as /api/graphql.
            (
                Some("ghe.example.com"),
                &[("GITHUB_API_URL", "https://ghe.example.com/api/v3/")],
                "ghe.example.com",
                "https://ghe.example.com/api/v3",
                "https://ghe.example.com/api/graphql",
            ),
            // Only the GraphQL override.
            (
                Some("ghe.example.com"),
                &[("GITHUB_GRAPHQL_URL", "http://127.0.0.1:9/gql")],
                "ghe.example.com",
                "https://ghe.example.com/api/v3",
                "http://127.0.0.1:9/gql",
            ),
            // Empty overrides count as unset.
            (
                None,
                &[("GITHUB_API_URL", ""), ("GITHUB_GRAPHQL_URL", " ")],
                "github.com",
                "https://api.github.com",
                "https://api.github.com/graphql",
            ),
        ];
        for (explicit, vars, host, rest, graphql) in rows {
            let env = MapEnv::from_iter(vars.iter().copied());
            let got = Endpoints::resolve(*explicit, &env)
                .unwrap_or_else(|e| panic!("{explicit:?} {vars:?}: {e}"));
            assert_eq!(
                got,
                Endpoints {
                    host: (*host).to_owned(),
                    rest: (*rest).to_owned(),
                    graphql: (*graphql).to_owned(),
                },
                "{explicit:?} {vars:?}"
            );
        }
    }

    #[test]
    fn host_source() {
        let env = MapEnv::from_iter([("GH_HOST", "GHE.example.com")]);
        assert_eq!(
            choose_host(Some("github.com"), &env).unwrap(),
            ("github.com".to_owned(), HostSource::Explicit)
        );
        assert_eq!(
            choose_host(None, &env).unwrap(),
            ("ghe.example.com".to_owned(), HostSource::GhHost)
        );
        assert_eq!(
            choose_host(None, &MapEnv::new()).unwrap(),
            ("github.com".to_owned(), HostSource::Default)
        );
    }

    #[test]
    fn invalid_hosts_are_typed_errors_naming_the_input() {
        for (explicit, gh_host, bad, source) in [
            (
                None,
                "https://ghe.example.com",
                "https://ghe.example.com",
                HostSource::GhHost,
            ),
            (None, "ghe example", "ghe example", HostSource::GhHost),
            (Some("h/x"), "", "h/x", HostSource::Explicit),
            (Some(""), "", "", HostSource::Explicit),
        ] {
            let env = MapEnv::from_iter([("GH_HOST", gh_host)]);
            let err = Endpoints::resolve(explicit, &env).unwrap_err();
            assert_eq!(
                err,
                EndpointError::InvalidHost {
                    host: bad.to_owned(),
                    from: source
                }
            );
            assert!(err.to_string().contains(&format!("`{bad}`")), "{err}");
        }
        let env = MapEnv::from_iter([("GH_HOST", "https://ghe.example.com")]);
        assert_eq!(
            Endpoints::resolve(None, &env).unwrap_err().to_string(),
            "`https://ghe.example.com` (from GH_HOST) is not a GitHub host name such as \
             `github.example.com`"
        );
    }

    #[test]
    fn actions_overrides_serve_only_the_host_the_workflow_runs_on() {
        let actions = |server: &str| {
            MapEnv::from_iter([
                ("GITHUB_SERVER_URL", server.to_owned()),
                ("GITHUB_API_URL", "https://api.github.com".to_owned()),
                (
                    "GITHUB_GRAPHQL_URL",
                    "https://api.github.com/graphql".to_owned(),
                ),
            ])
        };
        // A workflow on github.com reading a PR on an Enterprise host: that host's endpoints.
        let env = actions("https://github.com");
        let ghes = Endpoints::resolve(Some("ghe.example.com"), &env).unwrap();
        assert_eq!(ghes, Endpoints::for_host("ghe.example.com"));
        // On its own host the overrides hold.
        let own = Endpoints::resolve(Some("github.com"), &env).unwrap();
        assert_eq!(own.graphql, "https://api.github.com/graphql");
        let env = actions("https://GHE.example.com/");
        let on_ghes = Endpoints::resolve(Some("ghe.example.com"), &env).unwrap();
        assert_eq!(
            on_ghes.rest, "https://api.github.com",
            "the workflow's own host"
        );
        // Without GITHUB_SERVER_URL (tests, scripts) they hold whatever the host.
        let env = MapEnv::from_iter([("GITHUB_GRAPHQL_URL", "http://127.0.0.1:9/graphql")]);
        let local = Endpoints::resolve(Some("ghe.example.com"), &env).unwrap();
        assert_eq!(local.graphql, "http://127.0.0.1:9/graphql");
    }

    #[test]
    fn invalid_override_urls_are_typed_errors() {
        let cases: &[(&str, &str, UrlError)] = &[
            ("GITHUB_API_URL", "api.github.com", UrlError::NotAUrl),
            (
                "GITHUB_API_URL",
                "ftp://api.github.com",
                UrlError::UnsupportedScheme {
                    scheme: "ftp".to_owned(),
                },
            ),
            (
                "GITHUB_GRAPHQL_URL",
                "https:///graphql",
                UrlError::MissingHost,
            ),
            (
                "GITHUB_API_URL",
                "http://127.0.0.1:port",
                UrlError::InvalidHost {
                    host: "127.0.0.1:port".to_owned(),
                },
            ),
            (
                "GITHUB_API_URL",
                "https://h/api?x=1",
                UrlError::QueryOrFragment,
            ),
            ("GITHUB_GRAPHQL_URL", "https://h/a b", UrlError::Whitespace),
        ];
        for (var, value, problem) in cases {
            let env = MapEnv::from_iter([(*var, *value)]);
            let err = Endpoints::resolve(None, &env).unwrap_err();
            assert_eq!(
                err,
                EndpointError::InvalidUrl {
                    var,
                    value: (*value).to_owned(),
                    source: problem.clone(),
                },
                "{var}={value}"
            );
            assert_eq!(
                err.to_string(),
                format!("{var} is `{value}`, which is not a usable API URL")
            );
        }
    }

    #[test]
    fn override_errors_do_not_show_user_info() {
        let env = MapEnv::from_iter([("GITHUB_API_URL", "ftp://me:secret@h")]);
        let err = Endpoints::resolve(None, &env).unwrap_err();
        assert!(!err.to_string().contains("secret"), "{err}");
        assert!(!format!("{err:?}").contains("secret"), "{err:?}");
    }

    #[test]
    fn upper_case_scheme_is_accepted() {
        assert_eq!(
            normalize_api_url("HTTPS://api.github.com//").unwrap(),
            "HTTPS://api.github.com"
        );
    }
}
