//! What a user passes to name a pull request: a number, a URL, or nothing.
//!
//! ```
//! use review_github::pr_ref::PrRef;
//!
//! assert_eq!(PrRef::parse("#482")?, PrRef::Number(482));
//! assert_eq!(PrRef::from_arg(None)?, PrRef::CurrentBranch);
//!
//! let PrRef::Url(url) = PrRef::parse("https://ghe.example.com/acme/widgets/pull/7/files")? else {
//!     unreachable!("a URL parses as a URL")
//! };
//! assert_eq!(url.host, "ghe.example.com");
//! assert_eq!(url.repo.to_string(), "acme/widgets");
//! assert_eq!(url.number, 7);
//! # Ok::<(), review_github::pr_ref::PrRefError>(())
//! ```

use review_core::model::RepoId;

use crate::host::normalize_host;
use crate::url;

/// A pull request as the user named it.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum PrRef {
    /// A number in the repository the command runs in (`482` or `#482`).
    Number(u64),
    /// A URL, which also names the host and repository.
    Url(PrUrl),
    /// Nothing given: the open pull request of the current branch.
    CurrentBranch,
}

/// A pull request named by its URL, `http(s)://HOST/OWNER/NAME/pull/NUMBER`.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct PrUrl {
    /// The host ([normalized](crate::host::normalize_host), with its port if any), so the
    /// endpoints can follow the URL.
    pub host: String,
    /// The repository.
    pub repo: RepoId,
    /// The pull request number, at least 1.
    pub number: u64,
}

impl PrRef {
    /// Reads an optional command-line argument: `None` is [`PrRef::CurrentBranch`], anything
    /// else goes to [`PrRef::parse`].
    ///
    /// # Errors
    /// As [`PrRef::parse`].
    pub fn from_arg(arg: Option<&str>) -> Result<Self, PrRefError> {
        arg.map_or(Ok(Self::CurrentBranch), Self::parse)
    }

    /// Parses a number (`482`, `#482`) or a pull request URL. Surrounding whitespace is ignored.
    /// After the number a URL may go on (`/files`, `/commits/SHA`, a trailing `/`) and carry a
    /// query or fragment; the scheme may be `http` or `https`.
    ///
    /// # Errors
    /// A [`PrRefError`] carrying the input (any user info in a URL replaced by `***`).
    pub fn parse(input: &str) -> Result<Self, PrRefError> {
        let trimmed = input.trim();
        if trimmed.is_empty() {
            return Err(PrRefError::Empty);
        }
        if let Some(parts) = url::split(trimmed) {
            return parse_url(trimmed, &parts).map(Self::Url);
        }
        let digits = trimmed.strip_prefix('#').unwrap_or(trimmed);
        if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
            return Err(PrRefError::Unrecognized {
                input: trimmed.to_owned(),
            });
        }
        match digits.parse::<u64>() {
            Ok(0) | Err(_) => Err(PrRefError::InvalidNumber {
                input: trimmed.to_owned(),
            }),
            Ok(number) => Ok(Self::Number(number)),
        }
    }
}

fn parse_url(input: &str, parts: &url::Parts<'_>) -> Result<PrUrl, PrRefError> {
    let input = || url::redact(input);
    if parts.scheme != "http" && parts.scheme != "https" {
        return Err(PrRefError::UnsupportedScheme {
            input: input(),
            scheme: parts.scheme.clone(),
        });
    }
    if url::split_host_port(parts.authority).is_none() {
        return Err(PrRefError::NotAPullRequestUrl { input: input() });
    }
    let mut segments = parts.path.trim_start_matches('/').split('/');
    let (Some(owner), Some(name), Some("pull"), Some(number)) = (
        segments.next(),
        segments.next(),
        segments.next(),
        segments.next(),
    ) else {
        return Err(PrRefError::NotAPullRequestUrl { input: input() });
    };
    let repo = RepoId::parse(&format!("{owner}/{name}"))
        .map_err(|_| PrRefError::NotAPullRequestUrl { input: input() })?;
    if number.is_empty() || !number.bytes().all(|b| b.is_ascii_digit()) {
        return Err(PrRefError::NotAPullRequestUrl { input: input() });
    }
    let number = match number.parse::<u64>() {
        Ok(0) | Err(_) => return Err(PrRefError::InvalidNumber { input: input() }),
        Ok(n) => n,
    };
    Ok(PrUrl {
        host: normalize_host(parts.authority),
        repo,
        number,
    })
}

/// Why a pull request argument could not be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PrRefError {
    /// An empty or blank argument.
    #[error("the pull request is empty: give a number, a URL, or nothing for the current branch")]
    Empty,
    /// Digits, but not a pull request number: 0, or too large.
    #[error("`{input}` is not a pull request number")]
    InvalidNumber {
        /// The argument.
        input: String,
    },
    /// A URL with a scheme other than `http` or `https`.
    #[error("`{input}` is not a web URL: the scheme `{scheme}` is not http or https")]
    UnsupportedScheme {
        /// The argument.
        input: String,
        /// Its scheme, lowercased.
        scheme: String,
    },
    /// A web URL, but not of the form `https://HOST/OWNER/NAME/pull/NUMBER`.
    #[error("`{input}` is not a pull request URL such as https://github.com/OWNER/NAME/pull/123")]
    NotAPullRequestUrl {
        /// The argument (any user info replaced by `***`).
        input: String,
    },
    /// Neither a number nor a URL.
    #[error(
        "`{input}` is not a pull request: give a number (123 or #123) or a URL \
         (https://github.com/OWNER/NAME/pull/123)"
    )]
    Unrecognized {
        /// The argument.
        input: String,
    },
}

#[cfg(test)]
mod tests {
    use super::*;

    fn url(host: &str, repo: &str, number: u64) -> PrRef {
        PrRef::Url(PrUrl {
            host: host.to_owned(),
            repo: RepoId::parse(repo).unwrap(),
            number,
        })
    }

    #[test]
    fn accepted_table() {
        let rows = [
            ("482", PrRef::Number(482)),
            ("#482", PrRef::Number(482)),
            (" 482\n", PrRef::Number(482)),
            ("0482", PrRef::Number(482)),
            (
                "https://github.com/acme/widgets/pull/482",
                url("github.com", "acme/widgets", 482),
            ),
            (
                "https://github.com/acme/widgets/pull/482/",
                url("github.com", "acme/widgets", 482),
            ),
            (
                "https://github.com/acme/widgets/pull/482/files",
                url("github.com", "acme/widgets", 482),
            ),
            (
                "https://github.com/acme/widgets/pull/482/commits/0123abc",
                url("github.com", "acme/widgets", 482),
            ),
            (
                "https://github.com/acme/widgets/pull/482?notification_referrer_id=x",
                url("github.com", "acme/widgets", 482),
            ),
            (
                "https://github.com/acme/widgets/pull/482#discussion_r123",
                url("github.com", "acme/widgets", 482),
            ),
            (
                "https://github.com/acme/widgets/pull/482/files#diff-abc",
                url("github.com", "acme/widgets", 482),
            ),
            (
                "https://www.GitHub.com/acme/widgets/pull/1",
                url("github.com", "acme/widgets", 1),
            ),
            (
                "HTTP://ghe.example.com/acme/widgets/pull/7",
                url("ghe.example.com", "acme/widgets", 7),
            ),
            (
                "http://127.0.0.1:8080/acme/widgets/pull/7",
                url("127.0.0.1:8080", "acme/widgets", 7),
            ),
            (
                "https://acme.ghe.com/team/app/pull/3",
                url("acme.ghe.com", "team/app", 3),
            ),
            (
                "https://user@github.com/acme/widgets/pull/5",
                url("github.com", "acme/widgets", 5),
            ),
        ];
        for (input, expected) in rows {
            assert_eq!(PrRef::parse(input), Ok(expected), "{input}");
        }
    }

    #[test]
    fn rejected_table() {
        let rows = [
            ("", PrRefError::Empty),
            ("  ", PrRefError::Empty),
            (
                "0",
                PrRefError::InvalidNumber {
                    input: "0".to_owned(),
                },
            ),
            (
                "#0",
                PrRefError::InvalidNumber {
                    input: "#0".to_owned(),
                },
            ),
            (
                "99999999999999999999999",
                PrRefError::InvalidNumber {
                    input: "99999999999999999999999".to_owned(),
                },
            ),
            (
                "+5",
                PrRefError::Unrecognized {
                    input: "+5".to_owned(),
                },
            ),
            (
                "-5",
                PrRefError::Unrecognized {
                    input: "-5".to_owned(),
                },
            ),
            (
                "#",
                PrRefError::Unrecognized {
                    input: "#".to_owned(),
                },
            ),
            (
                "12a",
                PrRefError::Unrecognized {
                    input: "12a".to_owned(),
                },
            ),
            (
                "my-branch",
                PrRefError::Unrecognized {
                    input: "my-branch".to_owned(),
                },
            ),
            (
                "github.com/acme/widgets/pull/1",
                PrRefError::Unrecognized {
                    input: "github.com/acme/widgets/pull/1".to_owned(),
                },
            ),
            (
                "ftp://github.com/acme/widgets/pull/1",
                PrRefError::UnsupportedScheme {
                    input: "ftp://github.com/acme/widgets/pull/1".to_owned(),
                    scheme: "ftp".to_owned(),
                },
            ),
            (
                "https://github.com/acme/widgets/issues/1",
                PrRefError::NotAPullRequestUrl {
                    input: "https://github.com/acme/widgets/issues/1".to_owned(),
                },
            ),
            (
                "https://github.com/acme/widgets/pull/",
                PrRefError::NotAPullRequestUrl {
                    input: "https://github.com/acme/widgets/pull/".to_owned(),
                },
            ),
            (
                "https://github.com/acme/widgets/pull/x1",
                PrRefError::NotAPullRequestUrl {
                    input: "https://github.com/acme/widgets/pull/x1".to_owned(),
                },
            ),
            (
                "https://github.com/acme/widgets",
                PrRefError::NotAPullRequestUrl {
                    input: "https://github.com/acme/widgets".to_owned(),
                },
            ),
            (
                "https://github.com//widgets/pull/1",
                PrRefError::NotAPullRequestUrl {
                    input: "https://github.com//widgets/pull/1".to_owned(),
                },
            ),
            (
                "https:///acme/widgets/pull/1",
                PrRefError::NotAPullRequestUrl {
                    input: "https:///acme/widgets/pull/1".to_owned(),
                },
            ),
            (
                "https://github.com/acme/widgets/pull/0",
                PrRefError::InvalidNumber {
                    input: "https://github.com/acme/widgets/pull/0".to_owned(),
                },
            ),
        ];
        for (input, expected) in rows {
            let err = PrRef::parse(input).unwrap_err();
            assert_eq!(err, expected, "{input}");
            let shown = err.to_string();
            if !input.trim().is_empty() {
                assert!(shown.contains(input), "{shown}");
            }
        }
    }

    #[test]
    fn errors_do_not_show_user_info() {
        let err =
            PrRef::parse("https://me:ghp_secret@github.com/acme/widgets/issues/1").unwrap_err();
        assert_eq!(
            err,
            PrRefError::NotAPullRequestUrl {
                input: "https://***@github.com/acme/widgets/issues/1".to_owned()
            }
        );
    }

    #[test]
    fn no_argument_is_the_current_branch() {
        assert_eq!(PrRef::from_arg(None), Ok(PrRef::CurrentBranch));
        assert_eq!(PrRef::from_arg(Some("#3")), Ok(PrRef::Number(3)));
        assert_eq!(PrRef::from_arg(Some("")), Err(PrRefError::Empty));
    }
}
