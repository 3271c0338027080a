//! Tokens go only to the host they are for. Two fake GitHubs on other loopback addresses stand
//! for two hosts: `127.0.0.2` the user's Enterprise Server (or github.com, as routed), and
//! `127.0.0.3` a host a pull request URL names. Each run reaches one of them over plain HTTP
//! through `GITHUB_SERVER_URL` / `GITHUB_API_URL` / `GITHUB_GRAPHQL_URL` (which then serve that
//! host only), so a token wrongly resolved for a host would arrive there: every test checks the
//! `Authorization` headers each server received. A `gh` stand-in on `PATH` answers a token
//! variable for any host, as the real `gh auth token --hostname HOST` does.

use std::collections::BTreeSet;
use std::net::{IpAddr, Ipv4Addr};
use std::os::unix::fs::PermissionsExt;

use review_core::model::RepoId;
use review_test_support::github::FakeGitHub;
use review_test_support::{PrBuilder, bot};

use crate::common::{Output, TestEnvironment};

const COM: &str = "ghp_COMtoken";
const ENTERPRISE: &str = "ghe_ENTERPRISEtoken";
const ACME: &str = "ghp_ACMEtoken";
const PLATFORM: &str = "ghe_PLATFORMtoken";

/// A fake GitHub on `127.0.0.LAST` holding `acme/widgets#1` and `platform/api#1`.
async fn server(last: u8) -> FakeGitHub {
    let github = FakeGitHub::start_on(IpAddr::V4(Ipv4Addr::new(127, 0, 0, last))).await;
    github.add_pull_request(
        PrBuilder::new()
            .thread("A", "src/lib.rs", 3, &[(bot("coderabbitai"), "x")])
            .build(),
    );
    github.add_pull_request(
        PrBuilder::new()
            .with_pr(|p| {
                p.repo = RepoId::parse("platform/api").unwrap();
                p.id = "PR_platform".to_owned();
            })
            .thread("P", "src/lib.rs", 3, &[(bot("coderabbitai"), "y")])
            .build(),
    );
    github
}

/// The host a fake stands for: its `127.0.0.N:PORT`.
fn host_of(github: &FakeGitHub) -> String {
    github
        .rest_url()
        .trim_start_matches("http://")
        .trim_end_matches('/')
        .to_owned()
}

/// Every `Authorization` header a fake received.
fn auths(github: &FakeGitHub) -> BTreeSet<String> {
    github
        .requests()
        .into_iter()
        .filter_map(|r| r.authorization)
        .chain(
            github
                .rest_log()
                .into_iter()
                .filter_map(|r| r.authorization),
        )
        .collect()
}

fn bearer(token: &str) -> BTreeSet<String> {
    [format!("Bearer {token}")].into()
}

/// A temp dir with a `gh` stand-in that, like `gh auth token --hostname HOST`, answers the
/// token variable of the host's kind whatever the host.
fn environment() -> (TestEnvironment, String) {
    let env = TestEnvironment::new();
    std::fs::create_dir_all(env.dir().join("bin")).unwrap();
    let gh = env.write(
        "bin/gh",
        "#!/bin/sh\n\
         case \"$4\" in\n\
           github.com|*.ghe.com) token=\"${GH_TOKEN:-$GITHUB_TOKEN}\" ;;\n\
           *) token=\"${GH_ENTERPRISE_TOKEN:-$GITHUB_ENTERPRISE_TOKEN}\" ;;\n\
         esac\n\
         [ -n \"$token\" ] || exit 1\n\
         printf '%s\\n' \"$token\"\n",
    );
    std::fs::set_permissions(&gh, std::fs::Permissions::from_mode(0o755)).unwrap();
    let path = format!(
        "{}:{}",
        env.dir().join("bin").display(),
        std::env::var("PATH").unwrap_or_default()
    );
    (env, path)
}

/// `review ARGS` with the variables `vars`, reaching `github` as the host `host`.
fn run(
    env: &TestEnvironment,
    path: &str,
    github: &FakeGitHub,
    host: &str,
    vars: &[(&str, &str)],
    args: &[&str],
) -> Output {
    let server_url = if host.starts_with("127.") {
        format!("http://{host}")
    } else {
        format!("https://{host}")
    };
    let graphql = github.graphql_url();
    let rest = github.rest_url();
    let mut all: Vec<(&str, &str)> = vec![
        ("PATH", path),
        ("GH_TOKEN", COM),
        ("GITHUB_SERVER_URL", &server_url),
        ("GITHUB_API_URL", &rest),
        ("GITHUB_GRAPHQL_URL", &graphql),
    ];
    all.extend_from_slice(vars);
    env.run_with(args, &all)
}

#[tokio::test(flavor = "multi_thread")]
async fn secrets_the_enterprise_token_goes_to_the_gh_host_and_nowhere_else() {
    let (ghe, other) = (server(2).await, server(3).await);
    let (ghe_host, other_host) = (host_of(&ghe), host_of(&other));
    let (env, path) = environment();
    let enterprise = [
        ("GH_ENTERPRISE_TOKEN", ENTERPRISE),
        ("GITHUB_ENTERPRISE_TOKEN", ENTERPRISE),
    ];
    let with_gh_host = [enterprise[0], enterprise[1], ("GH_HOST", ghe_host.as_str())];

    // The host GH_HOST names gets the Enterprise token.
    let args = ["threads", "1", "--repo", "acme/widgets", "--json"];
    let out = run(&env, &path, &ghe, &ghe_host, &with_gh_host, &args);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert_eq!(auths(&ghe), bearer(ENTERPRISE));

    // A pull request URL (or --repo) naming another host gets nothing: not the Enterprise
    // token, not GitHub's, not what `gh` would hand out for it.
    let url = format!("https://{other_host}/acme/widgets/pull/1");
    let repo = format!("{other_host}/acme/widgets");
    for (vars, args) in [
        (&with_gh_host[..], vec!["threads", url.as_str()]),
        (&enterprise[..], vec!["threads", url.as_str()]),
        (
            &with_gh_host[..],
            vec!["threads", "1", "--repo", repo.as_str()],
        ),
        (&with_gh_host[..], vec!["triage", url.as_str(), "--apply"]),
    ] {
        let out = run(&env, &path, &other, &other_host, vars, &args);
        assert_eq!(out.code, 4, "{args:?}: {}", out.stderr);
        assert!(
            out.stderr.contains(&format!(
                "error: no GitHub token for {other_host}: GH_ENTERPRISE_TOKEN and \
                 GITHUB_ENTERPRISE_TOKEN are set, but only for the Enterprise host GH_HOST names"
            )) && out.stderr.contains("hint: or bind a variable"),
            "{args:?}: {}",
            out.stderr
        );
        assert!(!out.stderr.contains(ENTERPRISE), "{}", out.stderr);
        assert!(
            other.requests().is_empty() && other.rest_log().is_empty(),
            "{args:?}: the other host received {:?}",
            auths(&other)
        );
    }
    assert_eq!(auths(&ghe), bearer(ENTERPRISE), "nothing else went there");
}

#[tokio::test(flavor = "multi_thread")]
async fn secrets_the_github_com_token_goes_to_no_host_the_user_did_not_name() {
    let (com, other) = (server(2).await, server(3).await);
    let (env, path) = environment();
    let args = ["threads", "1", "--repo", "acme/widgets", "--json"];

    // github.com (routed to the first fake) gets GH_TOKEN.
    let out = run(&env, &path, &com, "github.com", &[], &args);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert_eq!(auths(&com), bearer(COM));

    // A `*.ghe.com` host named only by a pull request URL does not.
    let url = "https://evil.ghe.com/acme/widgets/pull/1";
    let out = run(&env, &path, &other, "evil.ghe.com", &[], &["threads", url]);
    assert_eq!(out.code, 4, "{}", out.stderr);
    assert!(
        out.stderr.contains(
            "no GitHub token for evil.ghe.com: GH_TOKEN is set, but only for github.com and the \
             hosts you name"
        ),
        "{}",
        out.stderr
    );
    assert!(other.requests().is_empty(), "{:?}", auths(&other));

    // An Enterprise host named by a URL never gets it either.
    let other_host = host_of(&other);
    let url = format!("https://{other_host}/acme/widgets/pull/1");
    let out = run(&env, &path, &other, &other_host, &[], &["threads", &url]);
    assert_eq!(out.code, 4, "{}", out.stderr);
    assert!(other.requests().is_empty(), "{:?}", auths(&other));

    // Named by GH_HOST, the `*.ghe.com` host is the user's: it gets the token.
    let url = "https://evil.ghe.com/acme/widgets/pull/1";
    let out = run(
        &env,
        &path,
        &other,
        "evil.ghe.com",
        &[("GH_HOST", "evil.ghe.com")],
        &["threads", url],
    );
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert_eq!(auths(&other), bearer(COM));
}

#[tokio::test(flavor = "multi_thread")]
async fn secrets_token_variables_go_to_their_own_host_only() {
    let (com, ghe) = (server(2).await, server(3).await);
    let ghe_host = host_of(&ghe);
    let (env, path) = environment();
    env.write_user_config(&format!(
        "[token-variables]\n\"github.com/acme\" = \"ACME_TOKEN\"\n\"{ghe_host}/platform\" = \"PLATFORM_TOKEN\"\n"
    ));
    let vars = [
        ("ACME_TOKEN", ACME),
        ("PLATFORM_TOKEN", PLATFORM),
        ("GH_ENTERPRISE_TOKEN", ENTERPRISE),
    ];

    // github.com: acme's repositories get acme's token, platform's get GH_TOKEN.
    let out = run(
        &env,
        &path,
        &com,
        "github.com",
        &vars,
        &["threads", "1", "--repo", "acme/widgets"],
    );
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert_eq!(auths(&com), bearer(ACME));
    let out = run(
        &env,
        &path,
        &com,
        "github.com",
        &vars,
        &["threads", "1", "--repo", "platform/api"],
    );
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert_eq!(
        auths(&com),
        [format!("Bearer {ACME}"), format!("Bearer {COM}")].into(),
        "platform's token is for the other host"
    );

    // The other host: platform's token for platform's repositories...
    let url = format!("https://{ghe_host}/platform/api/pull/1");
    let out = run(&env, &path, &ghe, &ghe_host, &vars, &["threads", &url]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert_eq!(auths(&ghe), bearer(PLATFORM));
    // ...and nothing for acme's there: acme's token is github.com's, and the Enterprise token
    // is GH_HOST's (unset here).
    let url = format!("https://{ghe_host}/acme/widgets/pull/1");
    let out = run(&env, &path, &ghe, &ghe_host, &vars, &["threads", &url]);
    assert_eq!(out.code, 4, "{}", out.stderr);
    assert!(
        out.stderr.contains(&format!(
            "hint: or bind a variable to that host's owner in [token-variables] of your config \
             file: \"{ghe_host}/acme\" = \"VARIABLE\""
        )),
        "{}",
        out.stderr
    );
    assert_eq!(
        auths(&ghe),
        bearer(PLATFORM),
        "acme's token never went there"
    );

    let out = env.run(&["config"]);
    assert!(
        out.stdout.contains("github.com/acme = ACME_TOKEN")
            && out
                .stdout
                .contains(&format!("{ghe_host}/platform = PLATFORM_TOKEN")),
        "{}",
        out.stdout
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn secrets_a_token_variable_bound_to_no_host_is_an_error_showing_the_new_form() {
    let com = server(2).await;
    let (env, path) = environment();
    env.write_user_config("[token-variables]\nacme = \"ACME_TOKEN\"\n");
    let out = run(
        &env,
        &path,
        &com,
        "github.com",
        &[("ACME_TOKEN", ACME)],
        &["threads", "1", "--repo", "acme/widgets"],
    );
    assert_eq!(out.code, 3, "{}", out.stderr);
    assert!(
        out.stderr
            .contains("line 2: [token-variables] `acme` names no host")
            && out
                .stderr
                .contains("hint: write it as \"github.com/acme\" = \"ACME_TOKEN\""),
        "{}",
        out.stderr
    );
    assert!(com.requests().is_empty(), "nothing was sent");
}
