//! The follow-up form in a browser: a web server on the loopback interface that shows a
//! [`FormPage`] and blocks until the operator submits it, cancels it, closes the tab, or the page's
//! time runs out.
//!
//! Safety of the page:
//! - Every request must name the server itself in its `Host` header (`127.0.0.1:PORT` or
//!   `localhost:PORT`), so a page whose DNS name was rebound to the loopback address cannot reach
//!   it; every `POST` must come from the form's own page: an `Origin` of the server's own address,
//!   or, without one (or with the `null` origin a `no-referrer` beacon carries), a
//!   `Sec-Fetch-Site: same-origin`. Anything else is a 403, so another site cannot answer the
//!   form through the operator's browser.
//! - Every route sits under a per-run secret drawn from the operating system's random source
//!   (`/SECRET/`, `/SECRET/submit`, ...): anything else is a 404, so only whoever was shown the URL
//!   can read or answer the form.
//! - Everything shown comes from pull-request comments, which are untrusted: every piece of text is
//!   escaped, its control and bidirectional formatting characters shown as escapes
//!   (`review_core::text::visible`), links are only ever `http(s)://`, and the
//!   Content-Security-Policy runs no script but the page's own (a per-run nonce).
//! - Answers are checked strictly: only the page's thread and group ids, only the known fields.
//!
//!
//! The module is in three parts: this one (what the rest of the crate calls), [`server`] (the web
//! server, what its handlers share, how answers are checked, the responses and the browser
//! opener) and [`page`] (the HTML, its style `assets/form.css` and its script `assets/form.js`).

mod page;
mod server;

use std::io;
use std::time::Duration;

use review_core::followup::form::{FormAnswers, FormPage};

pub use server::FormServer;
use server::open_in_browser;

/// How the form watches its page. The defaults suit a person; tests shorten them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FormTimings {
    /// How often the open page tells the server it is still there (and saves a draft).
    pub heartbeat: Duration,
    /// Once the page was loaded, how long without a heartbeat before it counts as closed.
    pub silence: Duration,
    /// After the page says it is going away, how long a reload has to come back before the form
    /// counts as closed.
    pub reload_grace: Duration,
}

impl Default for FormTimings {
    fn default() -> Self {
        Self {
            heartbeat: Duration::from_secs(5),
            silence: Duration::from_secs(30),
            reload_grace: Duration::from_secs(3),
        }
    }
}

/// Why the form could not be shown.
#[derive(Debug, thiserror::Error)]
pub enum FormError {
    /// No secret could be drawn from the operating system's random source.
    #[error("cannot make the form's secret: {0}")]
    Secret(String),
    /// No port could be opened on the loopback interface.
    #[error("cannot listen on 127.0.0.1: {0}")]
    Bind(io::Error),
    /// The web server stopped before the form was answered.
    #[error("the form's web server stopped: {0}")]
    Serve(io::Error),
}

/// Shows `page` in a browser and waits for the operator's answers, with the default timings.
///
/// `previous` fills the form in again (the form is reopened after the operator rejects the
/// plan). With `open_browser`, the system's browser is asked to open the page; the URL is always
/// narrated on stderr.
pub async fn run_form(
    page: &FormPage,
    previous: Option<&FormAnswers>,
    open_browser: bool,
) -> Result<FormAnswers, FormError> {
    run_form_with(page, previous, open_browser, FormTimings::default()).await
}

/// [`run_form`] with the given timings.
pub async fn run_form_with(
    page: &FormPage,
    previous: Option<&FormAnswers>,
    open_browser: bool,
    timings: FormTimings,
) -> Result<FormAnswers, FormError> {
    let server = FormServer::bind(page, previous, timings).await?;
    crate::output::narrate(&format!(
        "[followup] the form is at {} — open it in a browser",
        server.url()
    ));
    if open_browser {
        open_in_browser(server.url());
    }
    server.wait().await
}

/// What the tests of [`server`] and [`page`] show.
#[cfg(test)]
mod fixtures {
    use review_core::followup::form::{
        ChosenAction, FormGroup, FormIssue, FormPage, FormSuggestion,
    };

    /// A thread with `comment`.
    pub(super) fn issue(thread_id: &str, number: usize, comment: &str) -> FormIssue {
        FormIssue {
            thread_id: thread_id.to_owned(),
            number,
            reviewer: "coderabbitai".to_owned(),
            location: "src/lib.rs:10".to_owned(),
            url: format!("https://github.com/acme/widgets/pull/482#discussion_r{number}"),
            outdated: false,
            comment: comment.to_owned(),
            original: comment.to_owned(),
            diff_hunk: Some("@@ -1,2 +1,2 @@\n-old\n+new".to_owned()),
            summary: "A finding".to_owned(),
            severity: "minor".to_owned(),
            suggestion: FormSuggestion {
                asks: "Change it".to_owned(),
                pros: vec!["clearer".to_owned()],
                cons: vec![],
                action: ChosenAction::Fix,
                reasoning: "It is cheap".to_owned(),
            },
            cluster: None,
        }
    }

    /// Two groups, three threads: `T1`, `T2` in `PRR_1`, `T3` in `standalone:T3`.
    pub(super) fn sample_page(timeout_secs: u64) -> FormPage {
        FormPage {
            title: "PR Review Triage — #482".to_owned(),
            pr_number: 482,
            pr_title: "Widgets".to_owned(),
            pr_url: "https://github.com/acme/widgets/pull/482".to_owned(),
            summary: "| # | thread |\n| 1 | T1 |".to_owned(),
            groups: vec![
                FormGroup {
                    id: "PRR_1".to_owned(),
                    reviewer: "coderabbitai".to_owned(),
                    submitted_at: Some("2025-06-01T12:34:56Z".to_owned()),
                    issues: vec![issue("T1", 1, "first"), issue("T2", 2, "second")],
                },
                FormGroup {
                    id: "standalone:T3".to_owned(),
                    reviewer: "alice".to_owned(),
                    submitted_at: None,
                    issues: vec![issue("T3", 3, "third")],
                },
            ],
            timeout_secs,
        }
    }
}
