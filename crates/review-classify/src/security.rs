//! The reader's `security` signal: a finding whose title or lead names a security weakness.
//!
//! A bot's own mark (a Gemini `security-*` badge, a Sourcery `security (...)` label,
//! CodeRabbit's 🔒 Security pill, a Qodo security category, a CodeAnt `[security]` tag, a CodeQL
//! alert) is read by the family's reader. This is the rule for everything else, documented in
//! `docs/classification.md`: the finding's **title or lead** (the first prose after it, where
//! the finding is stated; never code blocks, agent prompts or hidden markers) contains, as
//! whole words, a term of [`WEAKNESSES`], or a term of [`CJK_WEAKNESSES`] anywhere in a word,
//! or describes an SQL statement built from request data ([`sql_from_input`]).

use crate::flags::Prose;
use crate::markup::WordText;

/// Security weaknesses, as word strings (see [`crate::markup::words`]): a phrase with a space
/// at both ends matches whole words, one without a trailing space matches a word's start.
pub(crate) const WEAKNESSES: &[&str] = &[
    " injection",
    " inject arbitrary ",
    " injects arbitrary ",
    " xss ",
    " cross site scripting ",
    " cross site request forgery ",
    " csrf ",
    " ssrf ",
    " server side request forgery ",
    " open redirect",
    " path traversal ",
    " directory traversal ",
    " idor ",
    " insecure direct object reference",
    " authentication bypass",
    " authorization bypass",
    " auth bypass",
    " privilege escalation ",
    " escalate privileges ",
    " remote code execution ",
    " arbitrary code execution ",
    " executes arbitrary ",
    " execute arbitrary ",
    " arbitrary command",
    " arbitrary sql ",
    " sql injection ",
    " command injection ",
    " shell injection ",
    " unsanitized ",
    " unsanitised ",
    " without sanitization ",
    " without sanitisation ",
    " dangerouslysetinnerhtml ",
    " hardcoded secret",
    " hard coded secret",
    " hardcoded credential",
    " hardcoded password",
    " hardcoded token",
    " hardcoded api key",
    " secret key ",
    " api key ",
    " api token ",
    " access token ",
    " refresh token ",
    " bearer token ",
    " private key ",
    " secrets ",
    " credentials ",
    " password ",
    " passwords ",
    " password hash ",
    " pii ",
    " personal data ",
    " personally identifiable ",
    " sensitive data ",
    " information disclosure ",
    " information leak",
    " stack trace to the client ",
    " timing attack",
    " timing side channel",
    " timing information ",
    " constant time ",
    " session cookie",
    " jwt ",
    " jwts ",
    " token verification ",
    " none algorithm ",
    " alg none ",
    " httponly ",
    " samesite ",
    " secure flag ",
    " cors ",
    " content security policy ",
    " clickjacking ",
    " csp ",
    " xxe ",
    " deserialization of untrusted ",
    " untrusted deserialization ",
    " insecure deserialization ",
    " tls verification ",
    " certificate verification ",
    " certificate validation ",
    " verify false ",
    " weak hash ",
    " weak cipher",
    " md5 ",
    " sha1 ",
    " vulnerab",
    " exploit",
    " attacker",
    " malicious ",
    " spoof",
    " forged ",
    " forgery ",
    " tamper",
    " replay attack",
    " brute force ",
    " rate limit bypass ",
    " x forwarded for ",
    " stolen ",
    " session fixation ",
    " session hijack",
    " cwe ",
    " cve ",
    " run as root ",
    " runs as root ",
    " as root inside ",
    " non root user ",
    " sandbox ",
    " crafted ",
    " unauthenticated ",
    " without authentication ",
    " without authorization ",
    " untrusted ",
    " user controlled ",
    " arbitrary file",
    " arbitrary path",
    " access control ",
    " permission check",
    " authorization check",
    " denial of service ",
    " redos ",
    " zip slip ",
    " symlink attack",
    " world readable ",
    " world writable ",
    // Permissions that let anyone on the machine write: a directory or file mode of 777.
    " 0o777 ",
    " 0777 ",
    " chmod 777 ",
    " any local user ",
    " every local user ",
    // Spreadsheet formula injection through exported cells.
    " formula injection ",
    " csv injection ",
    " evaluated as a formula ",
    // Credentials or data sent where anyone on the path can read them.
    " plain http ",
    " cleartext ",
    " clear text ",
    // Information exposure: personal data, or what a machine or a person is, made public.
    " privacy ",
    " personal data ",
    " personally identifiable ",
    " pii ",
    " in a public repository ",
    " in the public repository ",
    " shell true ",
    " secret ",
    " authorization and cookie headers ",
    " cookies ",
    " signed url",
    " signing key",
    " log access ",
    " anyone with access to the log",
    " escapes that directory ",
    " escapes the directory ",
    " escape the directory ",
    " outside the intended directory ",
    " outside the base directory ",
    " parameterised query ",
    " parameterized query ",
    " parameterised queries ",
    " parameterized queries ",
    " prepared statement",
];

/// Security weaknesses in scripts without spaces between words (Chinese, Japanese) and Korean,
/// matched anywhere in a word.
pub(crate) const CJK_WEAKNESSES: &[&str] = &[
    "注入",
    "越权",
    "泄露",
    "敏感信息",
    "个人信息",
    "インジェクション",
    "脆弱性",
    "個人情報",
    "漏えい",
    "漏洩",
    "인젝션",
    "취약",
    "개인정보",
    "개인식별정보",
    "유출",
];

/// An SQL statement or query built from request data by interpolation or concatenation.
fn sql_from_input(text: &WordText) -> bool {
    text.has_any(&[
        " sql ",
        " query ",
        " select ",
        " where clause ",
        " order by ",
    ]) && text.has_any(&[
        " interpolat",
        " concatenat",
        " f string ",
        " string formatting ",
        " formatted into ",
        " formats it into ",
        " formatting it into ",
        " formatted straight into ",
        " built from ",
        " straight into ",
    ]) && text.has_any(&[
        " request ",
        " req ",
        " query string ",
        " user input ",
        " user supplied ",
        " user provided ",
        " client ",
        " caller ",
        " parameter ",
    ])
}

/// The first phrase of `phrases` found in `text`.
fn first_of<'a>(text: &WordText, phrases: &[&'a str]) -> Option<&'a str> {
    phrases
        .iter()
        .find(|p| text.has_any(std::slice::from_ref(p)))
        .copied()
}

/// Phrases that contain a weakness term but name none: removed before matching.
const NOT_WEAKNESSES: &[&str] = &[" dependency injection ", " no security concerns "];

/// What makes the finding security-sensitive by the reader's rule, if anything: the term found.
pub(crate) fn reader_security(prose: &Prose) -> Option<String> {
    let cleaned;
    let lead = if NOT_WEAKNESSES
        .iter()
        .any(|p| prose.lead.as_str().contains(p))
    {
        let mut text = prose.lead.as_str().to_owned();
        for p in NOT_WEAKNESSES {
            text = text.replace(p, " ");
        }
        cleaned = WordText::new(text);
        &cleaned
    } else {
        &prose.lead
    };
    let cjk = || {
        let text = lead.as_str();
        if text.is_ascii() {
            return None;
        }
        CJK_WEAKNESSES.iter().find(|p| text.contains(*p)).copied()
    };
    if let Some(term) = first_of(lead, WEAKNESSES).or_else(cjk) {
        return Some(format!(
            "the finding names a security weakness: \"{}\"",
            term.trim()
        ));
    }
    sql_from_input(lead).then(|| "the finding describes SQL built from request data".to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::doc::Doc;
    use crate::markup::words;

    fn read(body: &str) -> Option<String> {
        let doc = Doc::parse(body);
        reader_security(&Prose::new(&doc, ""))
    }

    #[test]
    fn phrases_are_word_strings() {
        for p in WEAKNESSES {
            let normal = words(p);
            assert!(
                normal.starts_with(p.trim_end()) || normal == *p,
                "{p:?} is not normalised ({normal:?})"
            );
        }
    }

    #[test]
    fn weaknesses_named_in_the_lead() {
        for body in [
            "The `sort` parameter allows SQL injection through the ORDER BY clause.",
            "Uploading an HTML file gives stored XSS on the app domain.",
            "Session cookies are issued without the Secure and HttpOnly flags.",
            "The debug line logs the customer's PII to the shared index.",
            "결제 로그에 개인식별정보(PII)가 남습니다.",
            "这里存在 SQL 注入风险。",
            "`search_orders` builds the SQL query with an f-string from the request's `term`.",
            "`findUser` interpolates `req.body.email` into the `SELECT` string.",
            "A crafted email reads or modifies any row in `users`.",
            "`os.makedirs(cache_dir, mode=0o777)` lets every local user write into the cache.",
            "The notes record a home path, which publishes a username in a public repository.",
            "A redirect to `http://` keeps the header, so the token is sent over plain HTTP.",
            "A cell that starts with `=` is evaluated as a formula when the export is opened.",
            "A name containing `..` escapes that directory and overwrites the hook.",
            "The lookup concatenates the id; use a parameterised query.",
            "The export endpoint is reachable by unauthenticated callers.",
            "`load` unpickles untrusted bytes from the upload.",
            "It logs the whole request, including the `authorization` and `cookie` headers.",
            "The URL carries the signature, so anyone with log access can replay uploads.",
        ] {
            assert!(read(body).is_some(), "{body}");
        }
    }

    #[test]
    fn ordinary_defects_are_not_security() {
        for body in [
            "`revokeToken` is not awaited, so the response goes out first.",
            "Compare the role with `equals`, not `==`: administrators fail this check.",
            "The injector registers the service twice.",
            "Dependency injection makes this easier to test.",
            "No security concerns identified.",
            "The `SELECT` returns rows in insertion order, so the page is unstable.",
            "The craft fair listing shows the wrong date.",
            "`header.split(\" \")[1]` raises when the Authorization header is only `Bearer`.",
        ] {
            assert_eq!(read(body), None, "{body}");
        }
    }

    #[test]
    fn code_blocks_and_late_prose_are_not_read() {
        let body = format!(
            "The loop is off by one.\n\n```suggestion\nlet password = x;\n```\n\n{}\nA password hash.",
            "More words. ".repeat(100)
        );
        assert_eq!(read(&body), None);
    }
}
