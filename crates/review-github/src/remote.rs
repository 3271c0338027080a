//! The repository (and its host) named by a git remote URL, by `--repo`, or by
//! [`EnvVars::GH_REPO`].
//!
//! ```
//! use review_github::remote::HostedRepo;
//!
//! let remote = HostedRepo::from_remote_url("git@github.com:acme/widgets.git").unwrap();
//! assert_eq!(remote.host, "github.com");
//! assert_eq!(remote.repo.to_string(), "acme/widgets");
//! ```

use review_core::model::RepoId;

use crate::env::{Env, EnvVars};
use crate::host::normalize_host;
use crate::url;

/// A repository on a known host.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct HostedRepo {
    /// The host ([normalized](crate::host::normalize_host)). An `http(s)` remote keeps its port
    /// (it is the web server's); an `ssh` or `git` remote drops it (it is not).
    pub host: String,
    /// The repository.
    pub repo: RepoId,
}

impl HostedRepo {
    /// Reads a git remote URL:
    /// `https://HOST/OWNER/NAME[.git]` (also `http`, with `user@` or `user:password@` before the
    /// host), `ssh://[user@]HOST[:PORT]/OWNER/NAME[.git]` (also `git://`, `git+ssh://`,
    /// `ssh+git://`) and the scp-like `[user@]HOST:OWNER/NAME[.git]`. A trailing `/` is allowed.
    ///
    /// # Errors
    /// A [`RemoteError`] carrying the URL (any user info of a `scheme://` URL replaced by `***`):
    /// a local path, another scheme, a bad host, or a path that is not exactly `OWNER/NAME`.
    pub fn from_remote_url(input: &str) -> Result<Self, RemoteError> {
        let trimmed = input.trim();
        if let Some(parts) = url::split(trimmed) {
            let keep_port = match parts.scheme.as_str() {
                "https" | "http" => true,
                "ssh" | "git" | "git+ssh" | "ssh+git" => false,
                _ => {
                    return Err(RemoteError::UnsupportedScheme {
                        input: url::redact(trimmed),
                        scheme: parts.scheme,
                    });
                }
            };
            return hosted(trimmed, parts.authority, keep_port, parts.path);
        }
        // scp-like: `[user@]host:path`, where the host part has no `/` (else it is a local path).
        match trimmed.split_once(':') {
            Some((user_host, path)) if !user_host.contains('/') && !user_host.is_empty() => {
                let host = user_host
                    .rsplit_once('@')
                    .map_or(user_host, |(_, host)| host);
                hosted(trimmed, host, false, path)
            }
            _ => Err(RemoteError::NotARemote {
                input: trimmed.to_owned(),
            }),
        }
    }
}

/// Builds a [`HostedRepo`] from the host and path parts of the remote `input`.
fn hosted(
    input: &str,
    authority: &str,
    keep_port: bool,
    path: &str,
) -> Result<HostedRepo, RemoteError> {
    let Some((name, _port)) = url::split_host_port(authority) else {
        return Err(RemoteError::InvalidHost {
            input: url::redact(input),
        });
    };
    let host = if keep_port { authority } else { name };
    let path = path.trim_matches('/');
    let path = path.strip_suffix(".git").unwrap_or(path);
    let repo = RepoId::parse(path).map_err(|_| RemoteError::NoRepository {
        input: url::redact(input),
    })?;
    Ok(HostedRepo {
        host: normalize_host(host),
        repo,
    })
}

/// Why a git remote URL names no repository.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RemoteError {
    /// A local path, or anything else that is not a URL.
    #[error("the remote `{input}` is not a URL of a hosted repository")]
    NotARemote {
        /// The remote URL.
        input: String,
    },
    /// A scheme that does not reach GitHub (`file://`, ...).
    #[error("the remote `{input}` uses `{scheme}`, not https, http, ssh or git")]
    UnsupportedScheme {
        /// The remote URL (any user info replaced by `***`).
        input: String,
        /// The scheme, lowercased.
        scheme: String,
    },
    /// The host part is missing or malformed.
    #[error("the remote `{input}` has no valid host")]
    InvalidHost {
        /// The remote URL (any user info replaced by `***`).
        input: String,
    },
    /// The path is not exactly `OWNER/NAME` (with an optional `.git`).
    #[error("the remote `{input}` does not name a repository as OWNER/NAME")]
    NoRepository {
        /// The remote URL (any user info replaced by `***`).
        input: String,
    },
}

/// A repository as a user names it with `--repo` or [`EnvVars::GH_REPO`]: `OWNER/NAME`,
/// `HOST/OWNER/NAME`, or a URL as [`HostedRepo::from_remote_url`] reads it.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct RepoSpec {
    /// The host, when the spec names one ([normalized](crate::host::normalize_host)).
    pub host: Option<String>,
    /// The repository.
    pub repo: RepoId,
}

impl RepoSpec {
    /// Parses `[HOST/]OWNER/NAME` or a remote URL. Surrounding whitespace is ignored.
    ///
    /// ```
    /// use review_github::remote::RepoSpec;
    ///
    /// let spec = RepoSpec::parse("ghe.example.com/acme/widgets").unwrap();
    /// assert_eq!(spec.host.as_deref(), Some("ghe.example.com"));
    /// assert_eq!(RepoSpec::parse("acme/widgets").unwrap().host, None);
    /// ```
    ///
    /// # Errors
    /// [`RepoSpecError`] carrying the input.
    pub fn parse(input: &str) -> Result<Self, RepoSpecError> {
        Self::parse_from(input, None)
    }

    /// Reads [`EnvVars::GH_REPO`]: `None` when it is unset or empty.
    ///
    /// # Errors
    /// [`RepoSpecError`] naming the variable when its value does not parse.
    pub fn from_env(env: &dyn Env) -> Result<Option<Self>, RepoSpecError> {
        env.non_empty(EnvVars::GH_REPO)
            .map(|value| Self::parse_from(&value, Some(EnvVars::GH_REPO)))
            .transpose()
    }

    fn parse_from(input: &str, var: Option<&'static str>) -> Result<Self, RepoSpecError> {
        let trimmed = input.trim();
        let err = || RepoSpecError {
            input: url::redact(trimmed),
            var,
        };
        if let Some(spec) = parse_host_owner_name(trimmed) {
            return Ok(spec);
        }
        // `scheme://...` or the scp-like `git@host:owner/name`.
        if url::split(trimmed).is_some() || trimmed.contains(':') {
            let hosted = HostedRepo::from_remote_url(trimmed).map_err(|_| err())?;
            return Ok(Self {
                host: Some(hosted.host),
                repo: hosted.repo,
            });
        }
        Err(err())
    }
}

/// `[HOST/]OWNER/NAME`, where owner and name use only the characters GitHub allows in them.
fn parse_host_owner_name(input: &str) -> Option<RepoSpec> {
    let github_name = |s: &str| {
        !s.is_empty()
            && s.chars()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'))
    };
    let (host, owner, name) = match input.split('/').collect::<Vec<_>>().as_slice() {
        [owner, name] => (None, *owner, *name),
        [host, owner, name] => {
            url::split_host_port(host)?;
            (Some(normalize_host(host)), *owner, *name)
        }
        _ => return None,
    };
    if !github_name(owner) || !github_name(name) {
        return None;
    }
    let repo = RepoId::parse(&format!("{owner}/{name}")).ok()?;
    Some(RepoSpec { host, repo })
}

/// Why a repository argument could not be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "`{input}`{} is not a repository of the form [HOST/]OWNER/NAME",
    var.map(|v| format!(" (from {v})")).unwrap_or_default()
)]
pub struct RepoSpecError {
    /// The value given (any user info replaced by `***`).
    pub input: String,
    /// The variable it came from, when it came from one.
    pub var: Option<&'static str>,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::env::MapEnv;

    fn hosted(host: &str, repo: &str) -> HostedRepo {
        HostedRepo {
            host: host.to_owned(),
            repo: RepoId::parse(repo).unwrap(),
        }
    }

    #[test]
    fn accepted_remotes() {
        let rows = [
            (
                "https://github.com/acme/widgets",
                hosted("github.com", "acme/widgets"),
            ),
            (
                "https://github.com/acme/widgets.git",
                hosted("github.com", "acme/widgets"),
            ),
            (
                "https://github.com/acme/widgets/",
                hosted("github.com", "acme/widgets"),
            ),
            (
                "https://github.com/acme/widgets.git/",
                hosted("github.com", "acme/widgets"),
            ),
            (
                "http://github.com/acme/widgets",
                hosted("github.com", "acme/widgets"),
            ),
            (
                "https://user@github.com/acme/widgets",
                hosted("github.com", "acme/widgets"),
            ),
            (
                "https://x-access-token:ghs_x@github.com/acme/widgets.git",
                hosted("github.com", "acme/widgets"),
            ),
            (
                "https://ghe.example.com:8443/acme/widgets.git",
                hosted("ghe.example.com:8443", "acme/widgets"),
            ),
            (
                "ssh://git@github.com/acme/widgets.git",
                hosted("github.com", "acme/widgets"),
            ),
            (
                "ssh://git@github.com:22/acme/widgets.git",
                hosted("github.com", "acme/widgets"),
            ),
            (
                "ssh://git@ssh.github.com:443/acme/widgets.git",
                hosted("github.com", "acme/widgets"),
            ),
            (
                "ssh://git@ghe.example.com:2222/acme/widgets",
                hosted("ghe.example.com", "acme/widgets"),
            ),
            (
                "git://github.com/acme/widgets.git",
                hosted("github.com", "acme/widgets"),
            ),
            (
                "git+ssh://git@github.com/acme/widgets",
                hosted("github.com", "acme/widgets"),
            ),
            (
                "git@github.com:acme/widgets.git",
                hosted("github.com", "acme/widgets"),
            ),
            (
                "git@github.com:acme/widgets",
                hosted("github.com", "acme/widgets"),
            ),
            (
                "git@github.com:/acme/widgets.git",
                hosted("github.com", "acme/widgets"),
            ),
            (
                "github.com:acme/widgets.git",
                hosted("github.com", "acme/widgets"),
            ),
            (
                "org-1@acme.ghe.com:team/app.git",
                hosted("acme.ghe.com", "team/app"),
            ),
            (
                "git@GHE.Example.com:acme/my.widgets.git\n",
                hosted("ghe.example.com", "acme/my.widgets"),
            ),
        ];
        for (input, expected) in rows {
            assert_eq!(HostedRepo::from_remote_url(input), Ok(expected), "{input}");
        }
    }

    #[test]
    fn rejected_remotes() {
        let not_remote = |input: &str| RemoteError::NotARemote {
            input: input.to_owned(),
        };
        let no_repo = |input: &str| RemoteError::NoRepository {
            input: input.to_owned(),
        };
        let rows = [
            ("/srv/git/widgets.git", not_remote("/srv/git/widgets.git")),
            ("../widgets", not_remote("../widgets")),
            ("", not_remote("")),
            (":acme/widgets", not_remote(":acme/widgets")),
            (
                "file:///srv/git/widgets.git",
                RemoteError::UnsupportedScheme {
                    input: "file:///srv/git/widgets.git".to_owned(),
                    scheme: "file".to_owned(),
                },
            ),
            (
                "https://github.com/acme",
                no_repo("https://github.com/acme"),
            ),
            ("https://github.com/", no_repo("https://github.com/")),
            ("https://github.com", no_repo("https://github.com")),
            (
                "https://github.com/acme/.git",
                no_repo("https://github.com/acme/.git"),
            ),
            (
                "https://github.com/acme/widgets/tree/main",
                no_repo("https://github.com/acme/widgets/tree/main"),
            ),
            (
                "git@github.com:widgets.git",
                no_repo("git@github.com:widgets.git"),
            ),
            ("git@github.com:", no_repo("git@github.com:")),
            (
                "https:///acme/widgets",
                RemoteError::InvalidHost {
                    input: "https:///acme/widgets".to_owned(),
                },
            ),
            (
                "git@:acme/widgets",
                RemoteError::InvalidHost {
                    input: "git@:acme/widgets".to_owned(),
                },
            ),
        ];
        for (input, expected) in rows {
            let err = HostedRepo::from_remote_url(input).unwrap_err();
            assert_eq!(err, expected, "{input}");
            assert!(err.to_string().contains(&format!("`{input}`")), "{err}");
        }
    }

    #[test]
    fn remote_errors_do_not_show_credentials() {
        let err = HostedRepo::from_remote_url("https://x-access-token:ghs_secret@github.com/acme")
            .unwrap_err();
        assert_eq!(
            err,
            RemoteError::NoRepository {
                input: "https://***@github.com/acme".to_owned()
            }
        );
    }

    #[test]
    fn repo_specs() {
        let rows: &[(&str, Option<&str>, &str)] = &[
            ("acme/widgets", None, "acme/widgets"),
            (" acme/widgets\n", None, "acme/widgets"),
            (
                "github.com/acme/widgets",
                Some("github.com"),
                "acme/widgets",
            ),
            (
                "GHE.example.com:8443/acme/widgets",
                Some("ghe.example.com:8443"),
                "acme/widgets",
            ),
            (
                "https://ghe.example.com/acme/widgets",
                Some("ghe.example.com"),
                "acme/widgets",
            ),
            (
                "git@github.com:acme/widgets.git",
                Some("github.com"),
                "acme/widgets",
            ),
        ];
        for (input, host, repo) in rows {
            let got = RepoSpec::parse(input).unwrap_or_else(|e| panic!("{input}: {e}"));
            assert_eq!(got.host.as_deref(), *host, "{input}");
            assert_eq!(got.repo.to_string(), *repo, "{input}");
        }
        for bad in [
            "",
            "acme",
            "acme/",
            "/widgets",
            "a/b/c/d",
            "bad host/acme/widgets",
            "acme/wid gets",
            "a:b",
        ] {
            let err = RepoSpec::parse(bad).unwrap_err();
            assert_eq!(
                err,
                RepoSpecError {
                    input: bad.to_owned(),
                    var: None
                }
            );
            assert_eq!(
                err.to_string(),
                format!("`{bad}` is not a repository of the form [HOST/]OWNER/NAME")
            );
        }
    }

    #[test]
    fn repo_spec_from_gh_repo() {
        assert_eq!(RepoSpec::from_env(&MapEnv::new()), Ok(None));
        assert_eq!(
            RepoSpec::from_env(&MapEnv::from_iter([("GH_REPO", "")])),
            Ok(None)
        );
        let spec = RepoSpec::from_env(&MapEnv::from_iter([("GH_REPO", "acme/widgets")]))
            .unwrap()
            .unwrap();
        assert_eq!(spec.repo.to_string(), "acme/widgets");
        let err = RepoSpec::from_env(&MapEnv::from_iter([("GH_REPO", "widgets")])).unwrap_err();
        assert_eq!(
            err.to_string(),
            "`widgets` (from GH_REPO) is not a repository of the form [HOST/]OWNER/NAME"
        );
    }
}
