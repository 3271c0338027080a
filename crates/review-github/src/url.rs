//! Splitting URLs into their parts: just enough for the URLs this crate meets (API bases, pull
//! request links, git remotes), without a URL crate.

/// The parts of `scheme://[userinfo@]authority[path][?query][#fragment]`, borrowed from the input.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Parts<'a> {
    /// The scheme, lowercased.
    pub scheme: String,
    /// What came before `@` in the authority, if anything.
    pub userinfo: Option<&'a str>,
    /// `host[:port]`, without the user info.
    pub authority: &'a str,
    /// The path, from its leading `/` (empty when there is none), without query or fragment.
    pub path: &'a str,
    /// Whether a `?query` or `#fragment` followed the path.
    pub has_suffix: bool,
}

/// Splits `input` at `://` and the first `/`, `?` or `#` after it. `None` when it has no
/// `scheme://` prefix.
pub(crate) fn split(input: &str) -> Option<Parts<'_>> {
    let (scheme, rest) = input.split_once("://")?;
    let valid_scheme = scheme.starts_with(|c: char| c.is_ascii_alphabetic())
        && scheme
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.'));
    if !valid_scheme {
        return None;
    }
    let end = rest.find(['/', '?', '#']).unwrap_or(rest.len());
    let (authority, after) = rest.split_at(end);
    let path_end = after.find(['?', '#']).unwrap_or(after.len());
    let (userinfo, authority) = match authority.rsplit_once('@') {
        Some((userinfo, host)) => (Some(userinfo), host),
        None => (None, authority),
    };
    Some(Parts {
        scheme: scheme.to_ascii_lowercase(),
        userinfo,
        authority,
        path: &after[..path_end],
        has_suffix: path_end < after.len(),
    })
}

/// Splits `host[:port]` (an IPv6 address in brackets) into the host name and the port, checking
/// both: a name of letters, digits, `-`, `.` and `_` (or a bracketed IPv6 address), and a port
/// that fits in 16 bits. `None` when either is missing or malformed.
pub(crate) fn split_host_port(authority: &str) -> Option<(&str, Option<u16>)> {
    let (name, port) = if let Some(inner) = authority.strip_prefix('[') {
        let (addr, after) = inner.split_once(']')?;
        let valid = !addr.is_empty() && addr.chars().all(|c| c.is_ascii_hexdigit() || c == ':');
        if !valid {
            return None;
        }
        let port = match after {
            "" => None,
            _ => Some(after.strip_prefix(':')?),
        };
        (&authority[..addr.len() + 2], port)
    } else {
        match authority.split_once(':') {
            Some((name, port)) => (name, Some(port)),
            None => (authority, None),
        }
    };
    let valid_name = !name.is_empty()
        && (name.starts_with('[')
            || name
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '.' | '_')));
    if !valid_name {
        return None;
    }
    let port = match port {
        None => None,
        Some(p) if !p.is_empty() && p.bytes().all(|b| b.is_ascii_digit()) => Some(p.parse().ok()?),
        Some(_) => return None,
    };
    Some((name, port))
}

/// `input` with any user info of a URL replaced by `***`, for error messages: a remote like
/// `https://x-access-token:SECRET@github.com/o/r` carries a token there.
pub(crate) fn redact(input: &str) -> String {
    match split(input).and_then(|parts| parts.userinfo) {
        Some(userinfo) => input.replacen(&format!("{userinfo}@"), "***@", 1),
        None => input.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// (scheme, userinfo, authority, path, has_suffix)
    type Split = (
        &'static str,
        Option<&'static str>,
        &'static str,
        &'static str,
        bool,
    );

    #[test]
    fn split_table() {
        let cases: &[(&str, Option<Split>)] = &[
            (
                "https://github.com/o/r",
                Some(("https", None, "github.com", "/o/r", false)),
            ),
            (
                "HTTP://u:p@h:8080/a?q#f",
                Some(("http", Some("u:p"), "h:8080", "/a", true)),
            ),
            ("https://h", Some(("https", None, "h", "", false))),
            ("https://h#x", Some(("https", None, "h", "", true))),
            ("git@h:o/r", None),
            ("://h/o", None),
            ("1x://h/o", None),
        ];
        for (input, expected) in cases {
            let got = split(input).map(|p| {
                (
                    p.scheme,
                    p.userinfo.map(str::to_owned),
                    p.authority.to_owned(),
                    p.path.to_owned(),
                    p.has_suffix,
                )
            });
            let expected = expected.map(|(s, u, a, p, q)| {
                (
                    s.to_owned(),
                    u.map(str::to_owned),
                    a.to_owned(),
                    p.to_owned(),
                    q,
                )
            });
            assert_eq!(got, expected, "{input}");
        }
    }

    #[test]
    fn host_port_table() {
        type HostPort = (&'static str, Option<u16>);
        let cases: &[(&str, Option<HostPort>)] = &[
            ("github.com", Some(("github.com", None))),
            ("127.0.0.1:8080", Some(("127.0.0.1", Some(8080)))),
            ("[::1]:443", Some(("[::1]", Some(443)))),
            ("[::1]", Some(("[::1]", None))),
            ("", None),
            (":80", None),
            ("h:", None),
            ("h:99999", None),
            ("h:+1", None),
            ("h h", None),
            ("[::1]x", None),
            ("[]", None),
        ];
        for (input, expected) in cases {
            assert_eq!(split_host_port(input), *expected, "{input}");
        }
    }

    #[test]
    fn redact_hides_user_info() {
        assert_eq!(
            redact("https://x-access-token:ghs_secret@github.com/o"),
            "https://***@github.com/o"
        );
        assert_eq!(redact("https://github.com/o"), "https://github.com/o");
        assert_eq!(redact("git@github.com:o"), "git@github.com:o");
    }
}
