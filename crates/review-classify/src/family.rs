//! Which tool wrote a comment: built-in bot logins, hosts whose family is in the body, and tools
//! that post through a person's account.

use review_core::gate::{AutomationSettings, Participation, same_login};
use review_core::model::Author;

use crate::doc::Doc;
use crate::families;

/// The tool family that wrote a comment.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Family {
    /// CodeRabbit (`coderabbitai`).
    CodeRabbit,
    /// GitHub Copilot code review.
    Copilot,
    /// Gemini Code Assist.
    Gemini,
    /// The Codex connector.
    Codex,
    /// Cursor Bugbot.
    Cursor,
    /// Greptile.
    Greptile,
    /// Sourcery.
    Sourcery,
    /// Qodo Merge / PR-Agent.
    Qodo,
    /// Claude.
    Claude,
    /// Bito.
    Bito,
    /// cubic (`cubic-dev-ai`).
    Cubic,
    /// Kilo Code (`kilo-code-bot`).
    Kilo,
    /// CodeAnt AI (`codeant-ai`).
    CodeAnt,
    /// GitHub code scanning alerts, CodeQL (`github-advanced-security`).
    CodeQl,
    /// DeepSource (`deepsource-io`).
    DeepSource,
    /// Amazon Q Developer (`amazon-q-developer`).
    AmazonQ,
    /// Jules (`google-labs-jules`).
    Jules,
    /// Vercel's deployment comments (`vercel`).
    Vercel,
    /// Korbit (`korbit-ai`).
    Korbit,
    /// SonarQube Cloud (`sonarqubecloud`, `sonarcloud`).
    SonarQube,
    /// A tool posting through a user account with the automated header, or through a configured
    /// automation account.
    QaHeader,
    /// A bot-typed account or configured automation account whose format is unknown.
    OtherBot,
}

impl Family {
    /// Every family, in declaration order.
    pub const ALL: [Self; 22] = [
        Self::CodeRabbit,
        Self::Copilot,
        Self::Gemini,
        Self::Codex,
        Self::Cursor,
        Self::Greptile,
        Self::Sourcery,
        Self::Qodo,
        Self::Claude,
        Self::Bito,
        Self::Cubic,
        Self::Kilo,
        Self::CodeAnt,
        Self::CodeQl,
        Self::DeepSource,
        Self::AmazonQ,
        Self::Jules,
        Self::Vercel,
        Self::Korbit,
        Self::SonarQube,
        Self::QaHeader,
        Self::OtherBot,
    ];

    /// The lower-case name used in signals and reports.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::CodeRabbit => "coderabbit",
            Self::Copilot => "copilot",
            Self::Gemini => "gemini",
            Self::Codex => "codex",
            Self::Cursor => "cursor",
            Self::Greptile => "greptile",
            Self::Sourcery => "sourcery",
            Self::Qodo => "qodo",
            Self::Claude => "claude",
            Self::Bito => "bito",
            Self::Cubic => "cubic",
            Self::Kilo => "kilo",
            Self::CodeAnt => "codeant",
            Self::CodeQl => "codeql",
            Self::DeepSource => "deepsource",
            Self::AmazonQ => "amazonq",
            Self::Jules => "jules",
            Self::Vercel => "vercel",
            Self::Korbit => "korbit",
            Self::SonarQube => "sonarqube",
            Self::QaHeader => "qa",
            Self::OtherBot => "bot",
        }
    }

    /// Whether this is a named review tool (not [`Family::QaHeader`] or [`Family::OtherBot`]).
    pub fn is_named_tool(self) -> bool {
        !matches!(self, Self::QaHeader | Self::OtherBot)
    }
}

impl std::fmt::Display for Family {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Built-in bot logins. They count only for authors GitHub types as `Bot`.
const BOT_LOGINS: &[(&str, Family)] = &[
    ("coderabbitai", Family::CodeRabbit),
    ("copilot-pull-request-reviewer", Family::Copilot),
    ("copilot", Family::Copilot),
    ("gemini-code-assist", Family::Gemini),
    ("chatgpt-codex-connector", Family::Codex),
    ("cursor", Family::Cursor),
    ("greptile-apps", Family::Greptile),
    ("greptile-apps-staging", Family::Greptile),
    ("sourcery-ai", Family::Sourcery),
    ("qodo-merge-pro", Family::Qodo),
    ("qodo-merge", Family::Qodo),
    ("codium-pr-agent", Family::Qodo),
    ("qodo-code-review", Family::Qodo),
    ("qodo-ai", Family::Qodo),
    ("claude", Family::Claude),
    ("bito-code-review", Family::Bito),
    ("cubic-dev-ai", Family::Cubic),
    ("kilo-code-bot", Family::Kilo),
    ("codeant-ai", Family::CodeAnt),
    ("github-advanced-security", Family::CodeQl),
    ("deepsource-io", Family::DeepSource),
    ("deepsource-autofix", Family::DeepSource),
    ("amazon-q-developer", Family::AmazonQ),
    ("google-labs-jules", Family::Jules),
    ("vercel", Family::Vercel),
    ("korbit-ai", Family::Korbit),
    ("sonarqubecloud", Family::SonarQube),
    ("sonarcloud", Family::SonarQube),
];

/// Bot accounts that host many tools: the family is read from the body.
const HOST_LOGINS: &[&str] = &["github-actions"];

/// The family of a built-in bot login (the author must be typed `Bot`).
fn bot_login_family(login: &str) -> Option<Family> {
    BOT_LOGINS
        .iter()
        .find(|(known, _)| same_login(known, login))
        .map(|&(_, family)| family)
}

/// Family of a comment's author. Built-in bot logins count only when GitHub types the author
/// as `Bot` (a person may own a bot-looking login), matched exactly, ignoring ASCII case, with
/// or without `[bot]`. `github-actions` hosts many tools: its family is read from the body. A
/// configured automation account, or the PR author writing the automated header, is
/// [`Family::QaHeader`] unless the body shows another family's format. Other bot accounts are
/// [`Family::OtherBot`].
///
/// Returns `None` for the comments the gate calls human.
pub fn identify(
    author: Option<&Author>,
    body: &str,
    pr_author: Option<&Author>,
    automation: &AutomationSettings,
) -> Option<Family> {
    let participation = automation.participation(author, body, pr_author);
    match participation {
        Participation::Human { .. } => None,
        Participation::BotAccount => {
            let login = author.map_or("", |a| a.login.as_str());
            if HOST_LOGINS.iter().any(|h| same_login(h, login)) {
                return Some(sniff(body).unwrap_or(Family::OtherBot));
            }
            // A bot login this build does not know (a self-hosted or renamed app): GitHub vouches
            // that it is a bot, so its format may name the family.
            Some(
                bot_login_family(login)
                    .or_else(|| sniff(body))
                    .unwrap_or(Family::OtherBot),
            )
        }
        Participation::AutomationAccount
        | Participation::AutomatedHeader
        | Participation::OwnPost => Some(sniff(body).unwrap_or(Family::QaHeader)),
    }
}

/// Whether a body shows a family's format: `(doc, lower-case body)`.
type Detector = fn(&Doc, &str) -> bool;

/// The family whose format the body shows, from markers a tool writes and a reader would not
/// type by accident (hidden markers, badge images, label shapes).
pub(crate) fn sniff(body: &str) -> Option<Family> {
    let lower = body.to_lowercase();
    let doc = Doc::parse(body);
    let detectors: [(Family, Detector); 17] = [
        (Family::CodeRabbit, families::coderabbit::detect),
        (Family::Cursor, families::cursor::detect),
        (Family::Codex, families::codex::detect),
        (Family::Gemini, families::gemini::detect),
        (Family::Greptile, families::greptile::detect),
        (Family::Cubic, families::cubic::detect),
        (Family::Kilo, families::kilo::detect),
        // CodeAnt before Qodo: both write `**Suggestion:**`; CodeAnt adds its severity block.
        (Family::CodeAnt, families::codeant::detect),
        (Family::CodeQl, families::codeql::detect),
        (Family::DeepSource, families::deepsource::detect),
        (Family::Vercel, families::others::detect_vercel),
        (Family::Jules, families::others::detect_jules),
        (Family::SonarQube, families::others::detect_sonarqube),
        // Qodo before Sourcery: Qodo's `**Suggestion:**` looks like a Sourcery label.
        (Family::Qodo, families::qodo::detect),
        (Family::Sourcery, families::sourcery::detect),
        (Family::Bito, families::generic::detect_bito),
        (Family::Claude, families::generic::detect_claude),
    ];
    detectors
        .iter()
        .find(|(_, detect)| detect(&doc, &lower))
        .map(|&(family, _)| family)
}

#[cfg(test)]
mod tests {
    use review_core::model::AuthorKind;

    use super::*;

    fn bot(login: &str) -> Author {
        Author::new(login, AuthorKind::Bot)
    }

    fn user(login: &str) -> Author {
        Author::new(login, AuthorKind::User)
    }

    fn id(author: &Author, body: &str) -> Option<Family> {
        identify(Some(author), body, None, &AutomationSettings::default())
    }

    #[test]
    fn as_str_names_are_the_documented_ones() {
        let names: Vec<&str> = Family::ALL.iter().map(|f| f.as_str()).collect();
        assert_eq!(
            names,
            [
                "coderabbit",
                "copilot",
                "gemini",
                "codex",
                "cursor",
                "greptile",
                "sourcery",
                "qodo",
                "claude",
                "bito",
                "cubic",
                "kilo",
                "codeant",
                "codeql",
                "deepsource",
                "amazonq",
                "jules",
                "vercel",
                "korbit",
                "sonarqube",
                "qa",
                "bot"
            ]
        );
    }

    #[test]
    fn built_in_logins_need_a_bot_typed_author() {
        for (login, family) in BOT_LOGINS {
            assert_eq!(id(&bot(login), "x"), Some(*family), "{login}");
            let suffixed = format!("{}[bot]", login.to_uppercase());
            assert_eq!(id(&bot(&suffixed), "x"), Some(*family), "{suffixed}");
            assert_eq!(id(&user(login), "x"), None, "a person may own {login}");
        }
    }

    #[test]
    fn logins_match_exactly() {
        assert_eq!(id(&bot("coderabbitai-fork"), "x"), Some(Family::OtherBot));
        assert_eq!(id(&bot("my-cursor"), "x"), Some(Family::OtherBot));
    }

    #[test]
    fn github_actions_family_comes_from_the_body() {
        let actions = bot("github-actions");
        assert_eq!(id(&actions, "plain text"), Some(Family::OtherBot));
        let qodo = "**Suggestion:** Guard the index [possible issue, importance: 8]";
        assert_eq!(id(&actions, qodo), Some(Family::Qodo));
        let claude = "**Claude finished @alice's task** —— [View job](https://x)";
        assert_eq!(
            id(&bot("github-actions[bot]"), claude),
            Some(Family::Claude)
        );
    }

    #[test]
    fn an_unknown_bot_login_is_read_from_its_format() {
        let settings = AutomationSettings::default();
        let author = Author::new("acme-coderabbit-selfhosted", AuthorKind::Bot);
        let body = "_⚠️ Potential issue_ | _🟠 Major_\n\n**Missing check.**\n\n<!-- This is an auto-generated comment by CodeRabbit -->";
        assert_eq!(
            identify(Some(&author), body, None, &settings),
            Some(Family::CodeRabbit)
        );
        assert_eq!(
            identify(Some(&author), "plain words", None, &settings),
            Some(Family::OtherBot)
        );
    }

    #[test]
    fn qa_header_and_automation_accounts() {
        let alice = user("alice");
        let settings = AutomationSettings {
            accounts: vec!["qa-runner".to_owned()],
            ..AutomationSettings::default()
        };
        let body = "🤖 Automated comment by **QA Swarm**\n\n**Severity: HIGH**\n\nMissing check.";
        assert_eq!(
            identify(Some(&alice), body, Some(&alice), &settings),
            Some(Family::QaHeader)
        );
        // Anyone else can type the header: the gate calls it human.
        assert_eq!(
            identify(Some(&user("mallory")), body, Some(&alice), &settings),
            None
        );
        assert_eq!(
            identify(Some(&user("QA-Runner")), "anything", None, &settings),
            Some(Family::QaHeader)
        );
        // The body may show another family's format.
        let relayed =
            "🤖 Automated comment by **relay**\n\n_⚠️ Potential issue_ | _🟠 Major_\n\n**Title**";
        assert_eq!(
            identify(Some(&alice), relayed, Some(&alice), &settings),
            Some(Family::CodeRabbit)
        );
    }

    #[test]
    fn deleted_authors_are_human() {
        assert_eq!(
            identify(
                None,
                "🤖 Automated comment by X",
                None,
                &AutomationSettings::default()
            ),
            None
        );
    }
}
