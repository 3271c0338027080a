//! Hints for the report: a person's account whose comments carry a review tool's format.
//!
//! A tool that posts through a user account without the automated-comment header is a person
//! as far as the gate goes (anyone can type a bot's format), so its threads are left to the PR's
//! author. When such a comment shows a known family's markers, or the shape of an automated
//! review (a confidence score, an agent-prompt section), the report says so and names the flag
//! that would make the account automated. A hint never changes an outcome.

use review_core::gate::AutomationSettings;
use review_core::model::{Author, AuthorKind, PullRequest};
use review_core::report::Hint;

use crate::doc::Doc;
use crate::family::{Family, sniff};

/// Words that give an unnamed review tool away: a confidence score, an agent prompt.
fn tool_shaped(body: &str) -> bool {
    let lower = body.to_lowercase();
    let confidence = lower.match_indices("% confidence").any(|(at, _)| {
        lower
            .get(..at)
            .and_then(|b| b.chars().last())
            .is_some_and(|c| c.is_ascii_digit())
    }) || lower.contains("confidence score:");
    let prompt = Doc::parse(body).agent.lines().next().is_some()
        && (lower.contains("prompt for ai agent") || lower.contains("agent prompt"));
    confidence || prompt
}

/// The family a person's comment looks like it was written by (`bot` for an unnamed tool), or
/// `None`: for a comment the gate calls human, by a user account, whose body shows a tool's
/// format.
pub fn hint_family(
    author: Option<&Author>,
    body: &str,
    pr_author: Option<&Author>,
    automation: &AutomationSettings,
) -> Option<String> {
    let author = author?;
    if author.kind != AuthorKind::User
        || automation
            .participation(Some(author), body, pr_author)
            .is_automated()
    {
        return None;
    }
    // What a person quotes is the quoted tool's, not theirs.
    let own: String = body
        .lines()
        .filter(|l| !l.trim_start().starts_with('>'))
        .collect::<Vec<_>>()
        .join("\n");
    match sniff(&own) {
        // Labels people write too (Conventional Comments' `**suggestion:**`, `**nitpick:**`)
        // are not enough: the tool's own marks are needed.
        Some(family @ (Family::Sourcery | Family::Qodo)) => {
            let lower = own.to_lowercase();
            let marked = lower.contains("sourcery.ai")
                || lower.contains("qodo.ai")
                || lower.contains("pr-agent")
                || lower.contains(", importance:");
            marked.then(|| family.as_str().to_owned())
        }
        Some(family) => Some(family.as_str().to_owned()),
        None => tool_shaped(&own).then(|| "bot".to_owned()),
    }
}

/// The hints of a pull request: one per account and family, from review comments, review
/// bodies and conversation comments, in the order first seen.
pub fn account_hints(pr: &PullRequest, automation: &AutomationSettings) -> Vec<Hint> {
    let pr_author = pr.author.as_ref();
    let comments = pr
        .threads
        .iter()
        .flat_map(|t| t.comments.iter())
        .map(|c| (c.author.as_ref(), c.body.as_str()));
    let reviews = pr
        .reviews
        .iter()
        .map(|r| (r.author.as_ref(), r.body.as_str()));
    let issue = pr
        .comments
        .iter()
        .map(|c| (c.author.as_ref(), c.body.as_str()));
    let mut out: Vec<Hint> = Vec::new();
    for (author, body) in comments.chain(reviews).chain(issue) {
        let Some(family) = hint_family(author, body, pr_author, automation) else {
            continue;
        };
        let login = author.map_or("", |a| a.login.as_str());
        if !out.iter().any(|h| h.login == login && h.family == family) {
            out.push(Hint::posting_as_user(login, &family));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn user(login: &str) -> Author {
        Author::new(login, AuthorKind::User)
    }

    #[test]
    fn a_person_posting_in_a_tools_format_gets_a_hint() {
        let settings = AutomationSettings::default();
        let greptile = "<img alt=\"P1\" src=\"https://greptile-static-assets.s3.amazonaws.com/badges/p1.svg\"> **Digest sent to unsubscribed users**";
        assert_eq!(
            hint_family(Some(&user("greptile-apps")), greptile, None, &settings).as_deref(),
            Some("greptile")
        );
        let hint = Hint::posting_as_user("greptile-apps", "greptile");
        assert_eq!(
            hint.message,
            "looks like greptile posting as a user; add `--automation-account greptile-apps` if it is"
        );
        let quorum = "### 🟡 `isVendored` is wrong\n\n`src/a.ts:37` · Architecture reviewer · Medium · 82% confidence";
        assert_eq!(
            hint_family(Some(&user("quorum")), quorum, None, &settings).as_deref(),
            Some("bot")
        );
    }

    #[test]
    fn no_hint_for_plain_people_bots_or_configured_accounts() {
        let settings = AutomationSettings {
            accounts: vec!["qa-runner".to_owned()],
            ..AutomationSettings::default()
        };
        assert_eq!(
            hint_family(
                Some(&user("ana")),
                "why? this was fine before",
                None,
                &settings
            ),
            None
        );
        let rabbit = "_⚠️ Potential issue_ | _🟠 Major_\n\n**Missing check.**";
        let bot = Author::new("coderabbitai", AuthorKind::Bot);
        assert_eq!(hint_family(Some(&bot), rabbit, None, &settings), None);
        assert_eq!(
            hint_family(Some(&user("qa-runner")), rabbit, None, &settings),
            None
        );
        assert_eq!(hint_family(None, rabbit, None, &settings), None);
        assert_eq!(
            hint_family(
                Some(&user("ana")),
                "We are 100% confident.",
                None,
                &settings
            ),
            None
        );
    }
}
