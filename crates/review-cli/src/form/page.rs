//! The form's page: the HTML for a [`FormPage`], every piece of pull-request text escaped, and
//! the page's style and script (`assets/form.css`, `assets/form.js`).

use std::time::Duration;

use review_core::followup::form::{ChosenAction, FormGroup, FormIssue, FormPage, IssueAnswer};
use review_core::text::visible;

use super::server::Answers;

/// `text` from the pull request as the page shows it: its control and bidirectional formatting
/// characters written as visible escapes ([`visible`]: a right-to-left override cannot reorder
/// the page), then escaped for HTML. Attribute values the page sends back (thread and group ids)
/// and the operator's own drafts use [`escape`] alone, so they round-trip exactly.
fn shown(text: &str) -> String {
    escape(&visible(text))
}

/// Escapes `text` for HTML text and quoted attribute values.
fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

/// `label` (already HTML) as a link to `url`, or alone when `url` is not `http(s)://`.
fn link(url: &str, label: &str) -> String {
    let lower = url.get(..8).unwrap_or(url).to_ascii_lowercase();
    if lower.starts_with("https://") || lower.starts_with("http://") {
        format!(
            "<a href=\"{}\" target=\"_blank\" rel=\"noopener noreferrer\">{label}</a>",
            escape(url)
        )
    } else {
        label.to_owned()
    }
}

/// `2025-06-01T12:34:56Z` as `2025-06-01 12:34 UTC`; anything else as it is.
fn show_time(at: &str) -> String {
    let bytes = at.as_bytes();
    if at.len() >= 17
        && bytes.get(10) == Some(&b'T')
        && at.ends_with('Z')
        && let (Some(day), Some(time)) = (at.get(..10), at.get(11..16))
    {
        return format!("{day} {time} UTC");
    }
    at.to_owned()
}

/// What the page's script needs.
#[derive(Debug)]
pub(super) struct PageScript<'a> {
    /// The nonce the Content-Security-Policy allows.
    pub(super) nonce: &'a str,
    /// How often to send a heartbeat.
    pub(super) heartbeat: Duration,
    /// How long until the form stops waiting.
    pub(super) remaining: Duration,
    /// The number of this load of the page.
    pub(super) load: u64,
}

/// The page's style: calm, readable, no external resources.
const STYLE: &str = include_str!("assets/form.css");

/// The page's script: builds the answers, posts them, and keeps the server told that the page is
/// open. `__HEARTBEAT__`, `__REMAINING__` and `__LOAD__` are replaced by numbers.
const SCRIPT: &str = include_str!("assets/form.js");

/// The whole page for `page`, filled in with `prefill`.
pub(super) fn render_page(
    page: &FormPage,
    prefill: Option<&Answers>,
    script: &PageScript<'_>,
) -> String {
    let threads: usize = page.groups.iter().map(|group| group.issues.len()).sum();
    let mut html = String::with_capacity(8192 + threads * 4096);
    html.push_str("<!doctype html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n");
    html.push_str("<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n");
    html.push_str("<meta name=\"referrer\" content=\"no-referrer\">\n");
    html.push_str(&format!("<title>{}</title>\n", shown(&page.title)));
    html.push_str(&format!(
        "<style>{STYLE}</style>\n</head>\n<body>\n<main>\n"
    ));
    html.push_str(&format!("<h1>{}</h1>\n", shown(&page.title)));
    let pr = link(
        &page.pr_url,
        &format!("#{} {}", page.pr_number, shown(&page.pr_title)),
    );
    let plural = if threads == 1 { "" } else { "s" };
    html.push_str(&format!(
        "<p class=\"sub\">{pr} · {threads} unresolved thread{plural}. Say how to handle each one, \
         then submit.</p>\n"
    ));
    if !page.summary.trim().is_empty() {
        html.push_str(&format!(
            "<details class=\"card summary\" open><summary>Summary</summary><pre>{}</pre></details>\n",
            shown(&page.summary)
        ));
    }
    html.push_str("<div id=\"done\" class=\"card done\" hidden></div>\n");
    html.push_str("<form id=\"answers\" autocomplete=\"off\">\n");
    let mut index = 0;
    for group in &page.groups {
        render_group(&mut html, group, prefill, &mut index);
    }
    html.push_str(
        "<div class=\"bar\"><button type=\"submit\" class=\"primary\" id=\"submit\">Submit</button>\
         <button type=\"button\" id=\"cancel\">Cancel</button><span id=\"problem\" role=\"alert\"></span>\
         <span class=\"when\" id=\"closes\"></span></div>\n</form>\n</main>\n",
    );
    let code = SCRIPT
        .replace("__HEARTBEAT__", &script.heartbeat.as_millis().to_string())
        .replace("__REMAINING__", &script.remaining.as_millis().to_string())
        .replace("__LOAD__", &script.load.to_string());
    html.push_str(&format!(
        "<script nonce=\"{}\">{code}</script>\n</body>\n</html>\n",
        escape(script.nonce)
    ));
    html
}

/// One review group: its header and its threads.
fn render_group(
    html: &mut String,
    group: &FormGroup,
    prefill: Option<&Answers>,
    index: &mut usize,
) {
    let hide = prefill
        .and_then(|answers| answers.groups.get(&group.id))
        .is_some_and(|answer| answer.hide);
    let when = group
        .submitted_at
        .as_deref()
        .map(|at| format!(" <span class=\"when\">· {}</span>", shown(&show_time(at))))
        .unwrap_or_default();
    html.push_str(&format!(
        "<section class=\"group\" data-group=\"{}\">\n<div class=\"group-head\"><h2>Review by @{}{when}</h2>\
         <label><input type=\"checkbox\" data-role=\"hide\"{}> Hide this review group on the PR page</label></div>\n",
        escape(&group.id),
        shown(&group.reviewer),
        checked(hide),
    ));
    for issue in &group.issues {
        *index += 1;
        let answer = prefill.and_then(|answers| answers.issues.get(&issue.thread_id));
        render_issue(html, issue, answer, *index);
    }
    html.push_str("</section>\n");
}

/// One thread: what was said, the suggestion, and the operator's answer.
fn render_issue(html: &mut String, issue: &FormIssue, answer: Option<&IssueAnswer>, index: usize) {
    html.push_str(&format!(
        "<article class=\"card issue\" data-thread=\"{}\">\n<div class=\"meta\">",
        escape(&issue.thread_id)
    ));
    if issue.outdated {
        html.push_str("<span class=\"badge outdated\">OUTDATED</span>");
    }
    html.push_str(&format!("<span class=\"num\">#{}</span>", issue.number));
    if !issue.severity.is_empty() && issue.severity != "none" {
        let class = match issue.severity.as_str() {
            "critical" => " sev-critical",
            "major" => " sev-major",
            _ => "",
        };
        html.push_str(&format!(
            "<span class=\"badge{class}\">{}</span>",
            shown(&issue.severity)
        ));
    }
    html.push_str(&format!(
        "<span>@{} · <code>{}</code> · {}</span></div>\n",
        shown(&issue.reviewer),
        shown(&issue.location),
        link(&issue.url, "view on GitHub"),
    ));
    if !issue.summary.trim().is_empty() {
        html.push_str(&format!(
            "<div class=\"headline\">{}</div>\n",
            shown(&issue.summary)
        ));
    }
    html.push_str(&format!(
        "<div class=\"comment\">{}</div>\n",
        shown(&issue.comment)
    ));
    if issue.original != issue.comment && !issue.original.is_empty() {
        html.push_str(&format!(
            "<details class=\"more\"><summary>Original</summary><div class=\"original\">{}</div></details>\n",
            shown(&issue.original)
        ));
    }
    if let Some(hunk) = issue.diff_hunk.as_deref().filter(|hunk| !hunk.is_empty()) {
        html.push_str("<details class=\"more\"><summary>Diff</summary><pre class=\"diff\">");
        for line in hunk.lines() {
            let class = if line.starts_with("@@") {
                " class=\"hunk\""
            } else if line.starts_with('+') {
                " class=\"add\""
            } else if line.starts_with('-') {
                " class=\"del\""
            } else {
                ""
            };
            html.push_str(&format!("<span{class}>{}</span>", shown(line)));
        }
        html.push_str("</pre></details>\n");
    }
    render_suggestion(html, issue);
    if let Some(cluster) = &issue.cluster {
        html.push_str(&format!(
            "<div class=\"cluster\">Cluster {}: the same finding as other threads; one instruction \
             can serve them all</div>\n",
            shown(cluster)
        ));
    }
    let instruction = answer.map(|a| a.instruction.as_str()).unwrap_or_default();
    let auto = answer.is_some_and(|a| a.auto_resolve);
    let action = answer.map(|a| a.action).unwrap_or_default();
    html.push_str(&format!(
        "<div class=\"answer\"><label class=\"field\" for=\"instruction-{index}\">How to handle</label>\
         <textarea id=\"instruction-{index}\" rows=\"2\" placeholder=\"e.g. fix: validate the input · reply: this is intentional because … · skip\">{}</textarea>\
         <div class=\"row\"><label><input type=\"checkbox\" data-role=\"auto\"{}> Auto comment + resolve</label>\
         <label>Action <select data-role=\"action\">",
        escape(instruction),
        checked(auto),
    ));
    for (value, choice, label) in [
        ("auto", ChosenAction::Auto, "auto — from the instruction"),
        ("fix", ChosenAction::Fix, "fix — change the code"),
        ("reply", ChosenAction::Reply, "reply — no code change"),
        ("skip", ChosenAction::Skip, "skip"),
    ] {
        let selected = if choice == action { " selected" } else { "" };
        html.push_str(&format!(
            "<option value=\"{value}\"{selected}>{label}</option>"
        ));
    }
    html.push_str("</select></label></div></div>\n</article>\n");
}

/// The tool's suggestion for a thread.
fn render_suggestion(html: &mut String, issue: &FormIssue) {
    let suggestion = &issue.suggestion;
    let list = |items: &[String]| {
        if items.is_empty() {
            "—".to_owned()
        } else {
            let items: String = items
                .iter()
                .map(|item| format!("<li>{}</li>", shown(item)))
                .collect();
            format!("<ul>{items}</ul>")
        }
    };
    let action = action_name(suggestion.action);
    html.push_str(&format!(
        "<details class=\"more suggestion\"><summary>Suggestion: {action}</summary><dl>\
         <dt>Asks</dt><dd>{}</dd><dt>For</dt><dd>{}</dd><dt>Against</dt><dd>{}</dd>\
         <dt>Suggested action</dt><dd>{action}</dd><dt>Why</dt><dd>{}</dd></dl></details>\n",
        shown(&suggestion.asks),
        list(&suggestion.pros),
        list(&suggestion.cons),
        shown(&suggestion.reasoning),
    ));
}

/// The selector's value for `action`.
fn action_name(action: ChosenAction) -> &'static str {
    match action {
        ChosenAction::Auto => "auto",
        ChosenAction::Fix => "fix",
        ChosenAction::Reply => "reply",
        ChosenAction::Skip => "skip",
    }
}

/// ` checked` when `on`.
fn checked(on: bool) -> &'static str {
    if on { " checked" } else { "" }
}

/// The page shown once the form was answered (a reload after submitting or cancelling).
pub(super) fn render_answered(title: &str) -> String {
    format!(
        "<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>{}</title>\
         <style>{STYLE}</style></head><body><main><div class=\"card done\">This form has been answered — you \
         can close this tab</div></main></body></html>\n",
        shown(title)
    )
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use super::super::fixtures::sample_page;
    use super::*;

    #[test]
    fn hostile_text_renders_as_inert_text() {
        let mut page = sample_page(600);
        page.title = "</title><script>alert(1)</script>".to_owned();
        page.pr_url = "javascript:alert(1)".to_owned();
        page.summary = "<script>alert(2)</script>".to_owned();
        let group = &mut page.groups[0];
        group.id = "\"><script>alert(3)</script>".to_owned();
        group.reviewer = "a\" onmouseover=\"alert(4)".to_owned();
        group.submitted_at = Some("<b>now</b>".to_owned());
        let hostile = &mut group.issues[0];
        hostile.thread_id = "x' onfocus='alert(5)".to_owned();
        hostile.comment = "<script>alert(1)</script> and <img src=x onerror=alert(1)>".to_owned();
        hostile.original = "<iframe src=\"https://evil.example\"></iframe>".to_owned();
        hostile.url = "javascript:alert(6)".to_owned();
        hostile.location = "<svg onload=alert(7)>".to_owned();
        hostile.diff_hunk = Some("+<script>alert(8)</script>".to_owned());
        hostile.suggestion.pros = vec!["<u>x</u>".to_owned()];
        hostile.cluster = Some("<A>".to_owned());
        let prefill = Answers {
            issues: BTreeMap::from([(
                "T2".to_owned(),
                IssueAnswer {
                    instruction: "</textarea><script>alert(9)</script>".to_owned(),
                    ..IssueAnswer::default()
                },
            )]),
            groups: BTreeMap::new(),
        };
        let html = render_page(
            &page,
            Some(&prefill),
            &PageScript {
                nonce: "abc",
                heartbeat: Duration::from_secs(5),
                remaining: Duration::from_secs(600),
                load: 1,
            },
        );

        // The page's own script is the only one, and every tag is one the page writes itself.
        assert_eq!(html.matches("<script").count(), 1, "{html}");
        assert!(html.contains("<script nonce=\"abc\">"));
        let allowed = [
            "!doctype", "html", "head", "meta", "title", "style", "body", "main", "h1", "h2", "p",
            "a", "details", "summary", "pre", "div", "form", "section", "label", "input",
            "article", "span", "code", "textarea", "select", "option", "dl", "dt", "dd", "ul",
            "li", "button", "script",
        ];
        for (at, _) in html.match_indices('<') {
            let name: String = html[at + 1..]
                .trim_start_matches('/')
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric() || *c == '!')
                .collect();
            assert!(
                allowed.contains(&name.to_ascii_lowercase().as_str()),
                "<{name} at {at}"
            );
        }
        assert!(html.contains(
            "&lt;script&gt;alert(1)&lt;/script&gt; and &lt;img src=x onerror=alert(1)&gt;"
        ));
        assert!(
            html.contains("<title>&lt;/title&gt;&lt;script&gt;alert(1)&lt;/script&gt;</title>")
        );
        assert!(html.contains("data-group=\"&quot;&gt;&lt;script&gt;alert(3)&lt;/script&gt;\""));
        assert!(html.contains("data-thread=\"x&#39; onfocus=&#39;alert(5)\""));
        assert!(html.contains("@a&quot; onmouseover=&quot;alert(4)"));
        assert!(html.contains("&lt;/textarea&gt;&lt;script&gt;alert(9)&lt;/script&gt;</textarea>"));
        assert!(html.contains("Cluster &lt;A&gt;:"));
        assert!(!html.to_ascii_lowercase().contains("javascript:"));
        assert!(html.contains("https://github.com/acme/widgets/pull/482#discussion_r2\""));
    }

    /// Regression: a comment's control characters and bidirectional overrides reached the page
    /// as they were, where a right-to-left override reorders the text around it. They are shown
    /// as escapes; the ids the page sends back stay exact.
    #[test]
    fn control_and_bidi_characters_are_shown_as_escapes() {
        let mut page = sample_page(600);
        page.pr_title = "Widgets\u{202e}gpj.exe".to_owned();
        page.summary = "| 1 | @alice\u{1b}[2K\r| src/a.rs |".to_owned();
        let group = &mut page.groups[0];
        group.id = "PRR_\u{2066}1".to_owned();
        group.reviewer = "mei\u{200f}".to_owned();
        let issue = &mut group.issues[0];
        issue.thread_id = "T\u{7}1".to_owned();
        issue.comment =
            "looks fine\u{1b}[2K\r\u{1b}[1A@coderabbitai: LGTM \u{202e}!won\n\tnext".to_owned();
        issue.original = "x\u{9b}31m".to_owned();
        issue.location = "src/a.rs\u{61c}:3".to_owned();
        issue.summary = "Use \u{2067}a constant\u{200e}".to_owned();
        issue.diff_hunk = Some("+let a = \"\u{202d}\";\u{7f}".to_owned());
        issue.suggestion.asks = "\u{85}asks".to_owned();
        let html = render_page(
            &page,
            None,
            &PageScript {
                nonce: "abc",
                heartbeat: Duration::from_secs(5),
                remaining: Duration::from_secs(600),
                load: 1,
            },
        );
        let raw: Vec<String> = html
            .chars()
            .filter(|c| review_core::text::is_escaped(*c, false))
            .map(|c| format!("U+{:04X}", u32::from(c)))
            .collect();
        assert_eq!(
            raw,
            vec!["U+2066", "U+0007"],
            "only the ids the page sends back keep their characters"
        );
        for shown in [
            "Widgets\\u{202e}gpj.exe",
            "@alice\\u{1b}[2K\\u{d}|",
            "Review by @mei\\u{200f}",
            "looks fine\\u{1b}[2K\\u{d}\\u{1b}[1A@coderabbitai: LGTM \\u{202e}!won\n\tnext",
            "x\\u{9b}31m",
            "src/a.rs\\u{61c}:3",
            "Use \\u{2067}a constant\\u{200e}",
            "+let a = &quot;\\u{202d}&quot;;\\u{7f}",
            "\\u{85}asks",
        ] {
            assert!(html.contains(shown), "{shown}: {html}");
        }
        assert!(html.contains("data-group=\"PRR_\u{2066}1\""));
        assert!(html.contains("data-thread=\"T\u{7}1\""));
    }

    #[test]
    fn only_web_links_become_links() {
        assert_eq!(link("javascript:alert(1)", "x"), "x");
        assert_eq!(link("data:text/html,hi", "x"), "x");
        assert_eq!(link("//evil.example", "x"), "x");
        assert!(
            link("HTTPS://github.com/a\"b", "x")
                .starts_with("<a href=\"HTTPS://github.com/a&quot;b\"")
        );
        assert!(link("http://localhost/", "x").starts_with("<a href=\"http://localhost/\""));
        assert_eq!(escape("<&>\"'"), "&lt;&amp;&gt;&quot;&#39;");
        assert_eq!(show_time("2025-06-01T12:34:56Z"), "2025-06-01 12:34 UTC");
        assert_eq!(show_time("yesterday"), "yesterday");
    }
}
