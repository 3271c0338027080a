//! Finding the token for a host, the way `gh` does, and sending none where it does not belong.
//!
//! For `github.com` and `*.ghe.com` the variables are [`EnvVars::GH_TOKEN`] then
//! [`EnvVars::GITHUB_TOKEN`]; for an Enterprise Server host, [`EnvVars::GH_ENTERPRISE_TOKEN`]
//! then [`EnvVars::GITHUB_ENTERPRISE_TOKEN`]. Empty values are skipped. When none is set, a
//! [`TokenHelper`] is asked ([`GhCli`] runs `gh auth token --hostname HOST`).
//!
//! A token goes only to the host it belongs to. A pull request URL (or a remote) can name any
//! host, so the variables are read for a host only when the user configured it:
//! - `GH_TOKEN` and `GITHUB_TOKEN` go to `github.com`, and to a `*.ghe.com` host only when the
//!   user named that host ([`EnvVars::GH_HOST`], or a host the caller passes as configured: the
//!   hosts of the user's per-owner token variables);
//! - `GH_ENTERPRISE_TOKEN` and `GITHUB_ENTERPRISE_TOKEN` go only to the host `GH_HOST` names,
//!   never to `github.com` or any other host.
//!
//! For any other host the variables are not read ([`TokenError::NotForHost`] when one is set),
//! and the helper is asked without them in its environment (`gh` would otherwise hand out
//! `GH_ENTERPRISE_TOKEN` for any host): only a login the user made for that very host counts.
//!
//! A [`Token`] never shows its secret in `Debug` or `Display`: only [`Token::expose`] gives it.

use std::ffi::OsString;
use std::fmt;
use std::process::{Command, Stdio};

use crate::env::{Env, EnvVars};
use crate::host::{GITHUB_COM, HostKind, normalize_host};

/// A GitHub token. Its `Debug` and `Display` print `***`; [`Token::expose`] gives the secret.
///
/// ```
/// use review_github::token::Token;
///
/// let token = Token::new("ghp_secret");
/// assert_eq!(format!("{token} {token:?}"), "*** ***");
/// assert_eq!(token.expose(), "ghp_secret");
/// ```
#[derive(Clone, PartialEq, Eq)]
pub struct Token(String);

impl Token {
    /// Wraps a secret.
    pub fn new(secret: impl Into<String>) -> Self {
        Self(secret.into())
    }

    /// The secret, for the `Authorization` header and nothing else.
    pub fn expose(&self) -> &str {
        &self.0
    }
}

impl fmt::Debug for Token {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("***")
    }
}

impl fmt::Display for Token {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("***")
    }
}

/// Where a token came from, for messages like "using the token from GH_TOKEN".
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TokenSource {
    /// An environment variable, by name.
    Env(&'static str),
    /// A [`TokenHelper`], by the command it ran ([`TokenHelper::describe`]).
    Helper(String),
}

impl fmt::Display for TokenSource {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Env(var) => f.write_str(var),
            Self::Helper(command) => f.write_str(command),
        }
    }
}

/// A token and where it came from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ResolvedToken {
    /// The token.
    pub token: Token,
    /// Where it came from.
    pub source: TokenSource,
}

/// Something that can supply a token for a host when no environment variable does.
pub trait TokenHelper {
    /// The command or mechanism, for messages (`` `gh auth token --hostname github.com` ``).
    fn describe(&self, host: &str) -> String;

    /// The token for `host`, or `None` when there is none (the helper is not installed, is not
    /// logged in to that host, or failed). Must not print anything, least of all the token.
    fn token(&self, host: &str) -> Option<Token>;
}

/// The [`TokenHelper`] that asks GitHub's `gh` CLI: `gh auth token --hostname HOST`.
///
/// The command runs with stdin closed and stderr discarded; only its stdout is read, and only as
/// the token. A missing `gh`, a non-zero exit, or empty output gives `None`.
#[derive(Debug, Clone)]
pub struct GhCli {
    program: OsString,
    leading_args: Vec<OsString>,
}

impl Default for GhCli {
    fn default() -> Self {
        Self::new()
    }
}

impl GhCli {
    /// Runs `gh` found on `PATH`.
    pub fn new() -> Self {
        Self::with_command("gh", Vec::<OsString>::new())
    }

    /// Runs `program leading_args... auth token --hostname HOST` instead: a `gh` at another path,
    /// or a stand-in in tests.
    pub fn with_command(
        program: impl Into<OsString>,
        leading_args: impl IntoIterator<Item = impl Into<OsString>>,
    ) -> Self {
        Self {
            program: program.into(),
            leading_args: leading_args.into_iter().map(Into::into).collect(),
        }
    }
}

impl TokenHelper for GhCli {
    fn describe(&self, host: &str) -> String {
        format!("`gh auth token --hostname {host}`")
    }

    #[expect(
        clippy::disallowed_methods,
        reason = "the token helper (`gh auth token`) runs here"
    )]
    fn token(&self, host: &str) -> Option<Token> {
        // A host is never an option; refuse anything `gh` could read as one.
        if host.is_empty() || host.starts_with('-') || host.chars().any(char::is_whitespace) {
            return None;
        }
        let output = Command::new(&self.program)
            .args(&self.leading_args)
            .args(["auth", "token", "--hostname", host])
            // `gh` answers a token variable for any host it is asked about; only its stored
            // login for that host may answer here (the variables were read, or refused, before).
            .env_remove(EnvVars::GH_TOKEN)
            .env_remove(EnvVars::GITHUB_TOKEN)
            .env_remove(EnvVars::GH_ENTERPRISE_TOKEN)
            .env_remove(EnvVars::GITHUB_ENTERPRISE_TOKEN)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .output()
            .ok()?;
        if !output.status.success() {
            return None;
        }
        let stdout = String::from_utf8(output.stdout).ok()?;
        let token = stdout.trim();
        (!token.is_empty()).then(|| Token::new(token))
    }
}

/// The variables that hold a token for `host`, in the order they are read: `GH_TOKEN`,
/// `GITHUB_TOKEN` for `github.com` and `*.ghe.com`; `GH_ENTERPRISE_TOKEN`,
/// `GITHUB_ENTERPRISE_TOKEN` for any other host.
pub fn token_vars(host: &str) -> &'static [&'static str] {
    match HostKind::of(&normalize_host(host)) {
        HostKind::GitHubCom | HostKind::DataResidency => {
            &[EnvVars::GH_TOKEN, EnvVars::GITHUB_TOKEN]
        }
        HostKind::EnterpriseServer => &[
            EnvVars::GH_ENTERPRISE_TOKEN,
            EnvVars::GITHUB_ENTERPRISE_TOKEN,
        ],
    }
}

/// Whether the variables of [`token_vars`] may go to `host` (normalized): `github.com` always;
/// a `*.ghe.com` host when `GH_HOST` names it or it is among `configured`; an Enterprise
/// Server host only when `GH_HOST` names it.
fn vars_belong_to(host: &str, env: &dyn Env, configured: &[String]) -> bool {
    let gh_host = env.non_empty(EnvVars::GH_HOST).map(|h| normalize_host(&h));
    let named = gh_host.as_deref() == Some(host);
    match HostKind::of(host) {
        HostKind::GitHubCom => true,
        HostKind::DataResidency => named || configured.iter().any(|c| normalize_host(c) == host),
        HostKind::EnterpriseServer => named,
    }
}

/// Finds the token for `host`: the first non-empty variable of [`token_vars`] when those
/// variables belong to `host` (see the [module docs](self); `configured` are the hosts the user
/// named beside `GH_HOST`, such as those of per-owner token variables), else the `helper` (pass
/// `None` to use the environment only), which then sees no token variable.
///
/// ```
/// use review_github::env::MapEnv;
/// use review_github::token::{resolve_token, TokenError, TokenSource};
///
/// let env = MapEnv::from_iter([("GH_TOKEN", ""), ("GITHUB_TOKEN", "ghs_from_actions")]);
/// let found = resolve_token("github.com", &env, &[], None).unwrap();
/// assert_eq!(found.token.expose(), "ghs_from_actions");
/// assert_eq!(found.source, TokenSource::Env("GITHUB_TOKEN"));
///
/// // The Enterprise token goes to the host GH_HOST names, and nowhere else.
/// let env = MapEnv::from_iter([
///     ("GH_HOST", "ghe.example.com"),
///     ("GH_ENTERPRISE_TOKEN", "ghp_enterprise"),
/// ]);
/// assert!(resolve_token("ghe.example.com", &env, &[], None).is_ok());
/// let err = resolve_token("elsewhere.example", &env, &[], None).unwrap_err();
/// assert!(matches!(err, TokenError::NotForHost { .. }));
/// ```
///
/// # Errors
/// [`TokenError::NotForHost`] when a variable is set but does not belong to `host` and the
/// helper gives nothing; [`TokenError::NotFound`], naming what was tried, when nothing gives a
/// token.
pub fn resolve_token(
    host: &str,
    env: &dyn Env,
    configured: &[String],
    helper: Option<&dyn TokenHelper>,
) -> Result<ResolvedToken, TokenError> {
    let host = normalize_host(host);
    let vars = token_vars(&host);
    let belongs = vars_belong_to(&host, env, configured);
    let mut refused = Vec::new();
    for var in vars {
        if let Some(secret) = env.non_empty(var) {
            if !belongs {
                refused.push(*var);
                continue;
            }
            return Ok(ResolvedToken {
                token: Token::new(secret),
                source: TokenSource::Env(var),
            });
        }
    }
    if let Some(helper) = helper
        && let Some(token) = helper.token(&host)
    {
        return Ok(ResolvedToken {
            token,
            source: TokenSource::Helper(helper.describe(&host)),
        });
    }
    let helper = helper.map(|h| h.describe(&host));
    if refused.is_empty() {
        Err(TokenError::NotFound {
            vars: vars.to_vec(),
            helper,
            host,
        })
    } else {
        Err(TokenError::NotForHost {
            vars: refused,
            helper,
            host,
        })
    }
}

/// Why no token could be found.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum TokenError {
    /// No variable was set for the host, and the helper (if any) gave nothing.
    #[error("{}", not_found_message(.host, .vars, .helper.as_deref()))]
    NotFound {
        /// The host a token was wanted for.
        host: String,
        /// The variables read, in order; each was unset or empty.
        vars: Vec<&'static str>,
        /// The helper asked after them, as [`TokenHelper::describe`] puts it.
        helper: Option<String>,
    },
    /// A variable is set, but its token does not belong to the host (a host the user did not
    /// configure, named by a pull request URL or a remote), and the helper (if any) gave
    /// nothing: nothing is sent.
    #[error("{}", not_for_host_message(.host, .vars, .helper.as_deref()))]
    NotForHost {
        /// The host a token was wanted for.
        host: String,
        /// The variables set but not sent, in order.
        vars: Vec<&'static str>,
        /// The helper asked after them, as [`TokenHelper::describe`] puts it.
        helper: Option<String>,
    },
}

fn not_for_host_message(host: &str, vars: &[&str], helper: Option<&str>) -> String {
    let verb = if vars.len() == 1 { "is" } else { "are" };
    let whose = match HostKind::of(host) {
        HostKind::EnterpriseServer => "the Enterprise host GH_HOST names",
        _ => "github.com and the hosts you name",
    };
    let mut message = format!(
        "no GitHub token for {host}: {} {verb} set, but only for {whose}, and {host} is not one \
         of them",
        vars.join(" and ")
    );
    if let Some(helper) = helper {
        message = format!("{message}; {helper} gave none");
    }
    format!(
        "{message}; a token goes only to the host it is for: if {host} is yours, set \
         GH_HOST={host} or run `gh auth login --hostname {host}`"
    )
}

fn not_found_message(host: &str, vars: &[&str], helper: Option<&str>) -> String {
    let verb = if vars.len() == 1 { "is" } else { "are" };
    let mut message = format!(
        "no GitHub token for {host}: {} {verb} unset or empty",
        vars.join(" and ")
    );
    if let Some(helper) = helper {
        message = format!("{message}, and {helper} gave none");
    }
    let login = if host == GITHUB_COM {
        "`gh auth login`".to_owned()
    } else {
        format!("`gh auth login --hostname {host}`")
    };
    let var = vars.first().copied().unwrap_or(EnvVars::GH_TOKEN);
    format!("{message}; run {login} or set {var}")
}

#[cfg(test)]
mod tests {
    use std::cell::RefCell;

    use super::*;
    use crate::env::MapEnv;

    /// A helper that answers from a fixed value and records the hosts it was asked about.
    struct FakeHelper {
        token: Option<&'static str>,
        asked: RefCell<Vec<String>>,
    }

    impl FakeHelper {
        fn new(token: Option<&'static str>) -> Self {
            Self {
                token,
                asked: RefCell::default(),
            }
        }
    }

    impl TokenHelper for FakeHelper {
        fn describe(&self, host: &str) -> String {
            format!("`fake {host}`")
        }
        fn token(&self, host: &str) -> Option<Token> {
            self.asked.borrow_mut().push(host.to_owned());
            self.token.map(Token::new)
        }
    }

    /// (host, env, helper answer, expected token, expected source)
    type Row = (
        &'static str,
        &'static [(&'static str, &'static str)],
        Option<&'static str>,
        &'static str,
        &'static str,
    );

    const ALL_SET: &[(&str, &str)] = &[
        ("GH_TOKEN", "gh"),
        ("GITHUB_TOKEN", "github"),
        ("GH_ENTERPRISE_TOKEN", "gh-ent"),
        ("GITHUB_ENTERPRISE_TOKEN", "github-ent"),
    ];

    #[test]
    fn precedence_table() {
        let rows: &[Row] = &[
            // github.com: GH_TOKEN, then GITHUB_TOKEN; enterprise variables never apply.
            ("github.com", ALL_SET, Some("h"), "gh", "GH_TOKEN"),
            (
                "github.com",
                &[("GITHUB_TOKEN", "github")],
                None,
                "github",
                "GITHUB_TOKEN",
            ),
            (
                "github.com",
                &[("GH_TOKEN", ""), ("GITHUB_TOKEN", "github")],
                None,
                "github",
                "GITHUB_TOKEN",
            ),
            (
                "github.com",
                &[("GH_TOKEN", "  \n"), ("GITHUB_TOKEN", "github")],
                None,
                "github",
                "GITHUB_TOKEN",
            ),
            (
                "github.com",
                &[("GH_TOKEN", " gh\n"), ("GITHUB_TOKEN", "github")],
                None,
                "gh",
                "GH_TOKEN",
            ),
            (
                "github.com",
                &[("GH_ENTERPRISE_TOKEN", "gh-ent")],
                Some("h"),
                "h",
                "`fake github.com`",
            ),
            ("www.github.com", ALL_SET, None, "gh", "GH_TOKEN"),
            // *.ghe.com takes the github.com variables, as with gh.
            ("acme.ghe.com", ALL_SET, None, "gh", "GH_TOKEN"),
            (
                "acme.ghe.com",
                &[
                    ("GH_ENTERPRISE_TOKEN", "gh-ent"),
                    ("GITHUB_TOKEN", "github"),
                ],
                None,
                "github",
                "GITHUB_TOKEN",
            ),
            // Enterprise Server: GH_ENTERPRISE_TOKEN, then GITHUB_ENTERPRISE_TOKEN.
            (
                "ghe.example.com",
                ALL_SET,
                None,
                "gh-ent",
                "GH_ENTERPRISE_TOKEN",
            ),
            (
                "ghe.example.com",
                &[
                    ("GH_ENTERPRISE_TOKEN", ""),
                    ("GITHUB_ENTERPRISE_TOKEN", "github-ent"),
                ],
                None,
                "github-ent",
                "GITHUB_ENTERPRISE_TOKEN",
            ),
            (
                "ghe.example.com",
                &[("GH_TOKEN", "gh"), ("GITHUB_TOKEN", "github")],
                Some("h"),
                "h",
                "`fake ghe.example.com`",
            ),
            (
                "127.0.0.1:8080",
                &[("GH_ENTERPRISE_TOKEN", "gh-ent")],
                None,
                "gh-ent",
                "GH_ENTERPRISE_TOKEN",
            ),
        ];
        for (host, vars, helper_answer, token, source) in rows {
            let mut env = MapEnv::from_iter(vars.iter().copied());
            if HostKind::of(&normalize_host(host)) != HostKind::GitHubCom {
                // A host other than github.com takes its variables only once it is configured.
                env.set(EnvVars::GH_HOST, *host);
            }
            let helper = FakeHelper::new(*helper_answer);
            let found = resolve_token(host, &env, &[], Some(&helper))
                .unwrap_or_else(|e| panic!("{host} {vars:?}: {e}"));
            assert_eq!(found.token.expose(), *token, "{host} {vars:?}");
            assert_eq!(found.source.to_string(), *source, "{host} {vars:?}");
        }
    }

    #[test]
    fn helper_is_asked_only_after_the_variables_with_the_normalized_host() {
        let helper = FakeHelper::new(Some("h"));
        let env = MapEnv::from_iter([("GH_TOKEN", "gh")]);
        resolve_token("github.com", &env, &[], Some(&helper)).unwrap();
        assert!(helper.asked.borrow().is_empty());
        resolve_token("API.Acme.ghe.com", &MapEnv::new(), &[], Some(&helper)).unwrap();
        assert_eq!(*helper.asked.borrow(), ["acme.ghe.com"]);
    }

    #[test]
    fn not_found_names_exactly_the_variables_tried() {
        let rows: &[(&str, bool, &str)] = &[
            (
                "github.com",
                true,
                "no GitHub token for github.com: GH_TOKEN and GITHUB_TOKEN are unset or empty, \
                 and `fake github.com` gave none; run `gh auth login` or set GH_TOKEN",
            ),
            (
                "github.com",
                false,
                "no GitHub token for github.com: GH_TOKEN and GITHUB_TOKEN are unset or empty; \
                 run `gh auth login` or set GH_TOKEN",
            ),
            (
                "acme.ghe.com",
                true,
                "no GitHub token for acme.ghe.com: GH_TOKEN and GITHUB_TOKEN are unset or empty, \
                 and `fake acme.ghe.com` gave none; run `gh auth login --hostname acme.ghe.com` \
                 or set GH_TOKEN",
            ),
            (
                "ghe.example.com",
                true,
                "no GitHub token for ghe.example.com: GH_ENTERPRISE_TOKEN and \
                 GITHUB_ENTERPRISE_TOKEN are unset or empty, and `fake ghe.example.com` gave \
                 none; run `gh auth login --hostname ghe.example.com` or set GH_ENTERPRISE_TOKEN",
            ),
        ];
        // Variables of the other kind of host, and empty ones, do not count.
        let env = MapEnv::from_iter([("GH_TOKEN", ""), ("GITHUB_ENTERPRISE_TOKEN", "")]);
        for (host, with_helper, message) in rows {
            let helper = FakeHelper::new(None);
            let helper = with_helper.then_some(&helper as &dyn TokenHelper);
            let err = resolve_token(host, &env, &[], helper).unwrap_err();
            assert_eq!(err.to_string(), *message);
            let TokenError::NotFound { vars, .. } = &err else {
                panic!("{err:?}");
            };
            assert_eq!(vars.as_slice(), token_vars(host));
        }
        let env = MapEnv::from_iter([("GH_TOKEN", "gh"), ("GITHUB_TOKEN", "github")]);
        let err = resolve_token("ghe.example.com", &env, &[], None).unwrap_err();
        assert!(!err.to_string().contains("GH_TOKEN "), "{err}");
    }

    /// Hosts a pull request URL can name that the user did not configure: no variable's token
    /// goes there, and the helper is asked for that host's own login only.
    #[test]
    fn a_token_goes_only_to_the_host_it_is_for() {
        let env = MapEnv::from_iter([
            ("GH_TOKEN", "gh"),
            ("GITHUB_TOKEN", "github"),
            ("GH_ENTERPRISE_TOKEN", "gh-ent"),
            ("GITHUB_ENTERPRISE_TOKEN", "github-ent"),
            ("GH_HOST", "GHE.example.com"),
        ]);
        let configured = ["tenant.ghe.com".to_owned()];
        // (host, token, or the variables refused)
        let rows: &[(&str, Result<&str, &[&str]>)] = &[
            ("github.com", Ok("gh")),
            ("ghe.example.com", Ok("gh-ent")),
            ("tenant.ghe.com", Ok("gh")),
            ("api.tenant.ghe.com", Ok("gh")),
            (
                "evil.example.com",
                Err(&["GH_ENTERPRISE_TOKEN", "GITHUB_ENTERPRISE_TOKEN"]),
            ),
            (
                "ghe.example.com:8443",
                Err(&["GH_ENTERPRISE_TOKEN", "GITHUB_ENTERPRISE_TOKEN"]),
            ),
            ("evil.ghe.com", Err(&["GH_TOKEN", "GITHUB_TOKEN"])),
        ];
        for (host, expected) in rows {
            let helper = FakeHelper::new(None);
            match (
                resolve_token(host, &env, &configured, Some(&helper)),
                expected,
            ) {
                (Ok(found), Ok(token)) => assert_eq!(found.token.expose(), *token, "{host}"),
                (Err(TokenError::NotForHost { vars, .. }), Err(refused)) => {
                    assert_eq!(vars.as_slice(), *refused, "{host}");
                    assert_eq!(*helper.asked.borrow(), [normalize_host(host)], "{host}");
                }
                (other, _) => panic!("{host}: {other:?}"),
            }
        }
        // A login the user made for that host (the helper) still counts.
        let helper = FakeHelper::new(Some("stored"));
        let found = resolve_token("evil.example.com", &env, &[], Some(&helper)).unwrap();
        assert_eq!(found.token.expose(), "stored");
        // GH_HOST on github.com: the Enterprise variables go nowhere.
        let env = MapEnv::from_iter([("GH_ENTERPRISE_TOKEN", "gh-ent"), ("GH_HOST", "github.com")]);
        assert!(matches!(
            resolve_token("ghe.example.com", &env, &[], None),
            Err(TokenError::NotForHost { .. })
        ));
    }

    #[test]
    fn a_refusal_says_why_and_what_to_do() {
        let env = MapEnv::from_iter([("GH_ENTERPRISE_TOKEN", "gh-ent")]);
        let helper = FakeHelper::new(None);
        let err = resolve_token("evil.example.com", &env, &[], Some(&helper)).unwrap_err();
        assert_eq!(
            err.to_string(),
            "no GitHub token for evil.example.com: GH_ENTERPRISE_TOKEN is set, but only for the \
             Enterprise host GH_HOST names, and evil.example.com is not one of them; `fake \
             evil.example.com` gave none; a token goes only to the host it is for: if \
             evil.example.com is yours, set GH_HOST=evil.example.com or run `gh auth login \
             --hostname evil.example.com`"
        );
        assert!(!err.to_string().contains("gh-ent"));
    }

    #[test]
    fn token_debug_and_display_never_show_the_secret() {
        let token = Token::new("ghp_s3cret");
        let resolved = ResolvedToken {
            token: token.clone(),
            source: TokenSource::Env("GH_TOKEN"),
        };
        for shown in [
            format!("{token}"),
            format!("{token:?}"),
            format!("{token:#?}"),
            format!("{resolved:?}"),
            format!("{resolved:#?}"),
            format!("{:?}", Some(&token)),
        ] {
            assert!(!shown.contains("s3cret"), "{shown}");
            assert!(shown.contains("***"), "{shown}");
        }
        assert_eq!(token.to_string(), "***");
        assert_eq!(format!("{token:?}"), "***");
        assert_eq!(token.expose(), "ghp_s3cret");
    }

    #[test]
    fn gh_cli_describes_its_command() {
        assert_eq!(
            GhCli::new().describe("ghe.example.com"),
            "`gh auth token --hostname ghe.example.com`"
        );
    }

    #[test]
    fn gh_cli_missing_program_gives_none() {
        let gh = GhCli::with_command("/nonexistent/review-test/gh", Vec::<OsString>::new());
        assert_eq!(gh.token("github.com"), None);
    }

    #[cfg(unix)]
    #[test]
    fn gh_cli_refuses_hosts_that_look_like_options() {
        // `true` would succeed with empty output anyway; this checks the guard runs first.
        let gh = GhCli::with_command("sh", ["-c", "echo tok", "sh"]);
        for host in ["", "-h", "--help", "a b"] {
            assert_eq!(gh.token(host), None, "{host:?}");
        }
        assert_eq!(gh.token("github.com"), Some(Token::new("tok")));
    }

    #[cfg(unix)]
    #[test]
    fn gh_cli_reads_trimmed_stdout_of_a_successful_run() {
        // The stand-in checks its arguments and writes noise to stderr, which is discarded.
        let script = r#"test "$*" = "auth token --hostname ghe.example.com" || exit 3
echo "noise" >&2
printf 'ghp_tok\n'"#;
        let gh = GhCli::with_command("sh", ["-c", script, "sh"]);
        assert_eq!(gh.token("ghe.example.com"), Some(Token::new("ghp_tok")));
        assert_eq!(gh.token("github.com"), None, "the arguments name the host");
    }

    #[cfg(unix)]
    #[test]
    fn gh_cli_failure_or_empty_output_gives_none() {
        for script in [
            "echo 'no oauth token found for github.com' >&2; exit 1",
            "echo ghp_tok; exit 1",
            "printf '\\n'",
            // stdin is closed: a helper that waits for input reads nothing.
            "read -r x; printf '%s' \"$x\"",
        ] {
            let gh = GhCli::with_command("sh", ["-c", script, "sh"]);
            assert_eq!(gh.token("github.com"), None, "{script}");
        }
    }
}
