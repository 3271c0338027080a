//! Properties over generated input: reading never panics, never states a high severity for a
//! format it does not know, keeps suggestion text exactly, and fingerprints ignore
//! presentation.

use proptest::prelude::*;
use review_classify::{
    Family, analyze, fingerprint, identify, is_stale, read_finding, reviewed_commit,
    threadless_findings,
};
use review_core::gate::AutomationSettings;
use review_core::model::{
    Author, AuthorKind, Comment, CommentId, CommitId, LineRange, PrState, PullRequest, RepoId,
    SubjectType, Thread, ThreadId,
};
use review_core::signals::Concreteness;

/// Pieces of the formats the readers look for, to build bodies that reach the parsers' corners.
const PIECES: &[&str] = &[
    "```suggestion\n",
    "````suggestion\n",
    "```\n",
    "````\n",
    "~~~\n",
    "```diff\n",
    "<!--",
    "-->",
    "<details>",
    "</details>",
    "<summary>🤖 Prompt for AI Agents</summary>",
    "<summary>📝 Committable suggestion</summary>",
    "**",
    "_",
    "_⚠️ Potential issue_ | _🟠 Major_",
    "_🎯 Functional Correctness_ | _🔴 Critical_ | _⚡ Quick win_",
    "🧹 Nitpick",
    "![P1 Badge](https://img.shields.io/badge/P1-orange?style=flat)",
    "<img alt=\"P1\" src=\"https://x/badges/p1.svg\">",
    "![high](https://www.gstatic.com/codereviewagent/critical.svg)",
    "<img alt=\"Action required\" src=\"x\">",
    "[",
    "](",
    ")",
    "<",
    ">",
    "<img src='",
    "&amp;",
    "&",
    "`",
    "\n",
    "\r\n",
    " ",
    "    ",
    "### ",
    "**High Severity**",
    "**issue (bug_risk):**",
    "**Suggestion:** x [possible issue, importance: 9]",
    "[nitpick] ",
    "P0: ",
    "🤖 Automated comment by **QA Swarm**",
    "**Severity: HIGH**",
    "[CRITICAL] ",
    "✅ Addressed in commit abc1234",
    "Committable suggestion skipped",
    "Alternatively, ",
    "or\n",
    "src/other.rs:12",
    "#L1-L2",
    "é",
    "가",
    "İ",
    "🧹",
    ":",
    "line 42",
    "should we",
    "might",
    "<summary>⚠️ Outside diff range comments (2)</summary><blockquote>",
    "<summary>🧹 Nitpick comments (1)</summary>",
    "<summary>♻️ Duplicate comments (1)</summary>",
    "<summary>Comments suppressed due to low confidence (1)</summary>",
    "<summary>src/a.rs (1)</summary>",
    "<summary>🧰 Tools</summary>",
    "</blockquote></details>",
    "> ",
    "`41-52`: ",
    "`7`: **",
    "**src/a.rs:33**\n* ",
    "Reviewed everything up to ",
    "between ",
    " and ",
    "for commit ",
    "Commit Range: ",
    "..",
    "/commit/",
    "3b8f1d0c6e",
    "0123456789abcdef0123456789abcdef01234567",
];

fn family() -> impl Strategy<Value = Family> {
    proptest::sample::select(Family::ALL.to_vec())
}

fn body() -> impl Strategy<Value = String> {
    prop_oneof![
        any::<String>(),
        proptest::collection::vec(proptest::sample::select(PIECES), 0..40)
            .prop_map(|parts| parts.concat()),
        proptest::collection::vec(
            prop_oneof![
                proptest::sample::select(PIECES).prop_map(str::to_owned),
                "[a-zA-Z0-9 .,:()\\[\\]`*_<>#!-]{0,12}",
            ],
            0..40
        )
        .prop_map(|parts| parts.concat()),
    ]
}

fn author() -> impl Strategy<Value = Option<Author>> {
    let kind = prop_oneof![
        Just(AuthorKind::Bot),
        Just(AuthorKind::User),
        Just(AuthorKind::Unknown),
    ];
    let login = prop_oneof![
        proptest::sample::select(vec![
            "coderabbitai",
            "Copilot",
            "github-actions",
            "cursor[bot]",
            "alice",
            "qa-runner",
        ])
        .prop_map(str::to_owned),
        any::<String>(),
    ];
    proptest::option::of((login, kind).prop_map(|(l, k)| Author::new(l, k)))
}

fn settings() -> AutomationSettings {
    AutomationSettings {
        accounts: vec!["qa-runner".to_owned()],
        ..AutomationSettings::default()
    }
}

proptest! {
    #[test]
    fn identify_never_panics(a in author(), b in body(), p in author()) {
        let _ = identify(a.as_ref(), &b, p.as_ref(), &settings());
    }

    #[test]
    fn reading_never_panics_and_keeps_its_promises(f in family(), b in body(), path in "[a-z/._]{0,20}") {
        let finding = read_finding(f, &b, &path);
        prop_assert!(finding.title.chars().count() <= 120, "{:?}", finding.title);
        prop_assert!(!finding.title.contains('\n'));
        if !finding.format_known {
            prop_assert!(!finding.severity.is_high());
        }
        if matches!(f, Family::OtherBot | Family::Claude | Family::Bito) {
            prop_assert!(!finding.severity.is_high());
        }
        let signals = finding.signals(f, &path);
        prop_assert_eq!(signals.fingerprint.len(), 16);
    }

    #[test]
    fn suggestion_text_is_kept_exactly(lines in proptest::collection::vec("[^`~\r\n]{0,30}", 0..6)) {
        let text: String = lines.iter().map(|l| format!("{l}\n")).collect();
        let body = format!("The fix.\n\n```suggestion\n{text}```\n");
        let finding = read_finding(Family::Copilot, &body, "a.rs");
        match finding.concreteness {
            Concreteness::Suggestion(s) => prop_assert_eq!(s.replacement, text),
            other => prop_assert!(false, "not a suggestion: {:?}", other),
        }
    }

    #[test]
    fn analyze_never_panics(
        threads in proptest::collection::vec((author(), body(), 0u32..50, any::<bool>(), any::<bool>()), 0..8),
        replies in proptest::collection::vec((author(), body()), 0..4),
    ) {
        let threads = threads
            .into_iter()
            .enumerate()
            .map(|(i, (author, body, line, resolved, outdated))| {
                let mut comments = vec![Comment {
                    id: CommentId::from("c"),
                    author,
                    body,
                    created_at: String::new(),
                    url: String::new(),
                    diff_hunk: None,
                    review_id: None,
                }];
                if i == 0 {
                    comments.extend(replies.iter().cloned().map(|(author, body)| Comment {
                        id: CommentId::from("r"),
                        author,
                        body,
                        created_at: String::new(),
                        url: String::new(),
                        diff_hunk: None,
                        review_id: None,
                    }));
                }
                Thread {
                    id: ThreadId(format!("t{i}")),
                    is_resolved: resolved,
                    is_outdated: outdated,
                    path: if i % 2 == 0 { "a.rs".to_owned() } else { "b.rs".to_owned() },
                    lines: (!outdated).then(|| LineRange::new(line, line + 1)),
                    subject_type: SubjectType::Line,
                    comments,
                    all_comments_read: true,
                    original_lines: None,
                }
            })
            .collect();
        let pr = PullRequest {
            repo: RepoId::parse("acme/widgets").expect("valid"),
            number: 1,
            id: String::new(),
            title: String::new(),
            url: String::new(),
            state: PrState::Open,
            author: Some(Author::new("alice", AuthorKind::User)),
            head_ref: String::new(),
            base_ref: String::new(),
            head_sha: CommitId::from("0"),
            base_sha: None,
            head_repo: None,
            viewer: None,
            draft: false,
            mergeable: None,
            checks: None,
            reviews: vec![],
            comments: vec![],
            threads,
        };
        let set = analyze(&pr, &settings());
        for cluster in &set.clusters {
            prop_assert!(cluster.threads.len() >= 2);
            let positions: Vec<usize> = cluster
                .threads
                .iter()
                .filter_map(|id| pr.threads.iter().position(|t| &t.id == id))
                .collect();
            prop_assert!(positions.windows(2).all(|w| w[0] < w[1]), "PR order");
        }
        for (id, signals) in &set.threads {
            let thread = pr.thread(id).expect("a thread of the PR");
            prop_assert!(!thread.is_resolved);
            if !signals.format_known {
                prop_assert!(!signals.severity.is_high());
            }
        }
    }
}

/// Title words that are not line references or filler.
fn title_words() -> impl Strategy<Value = Vec<String>> {
    proptest::collection::vec(
        "[a-z]{1,8}".prop_filter("not a line word", |w| {
            !matches!(w.as_str(), "line" | "lines" | "ln")
        }),
        1..8,
    )
}

fn dress(word: &str, style: u8) -> String {
    match style % 6 {
        0 => word.to_owned(),
        1 => format!("**{word}**"),
        2 => format!("`{word}`"),
        3 => format!("_{word}_"),
        4 => format!("<b>{word}</b>"),
        _ => format!("⚠️ {word}"),
    }
}

proptest! {
    #[test]
    fn fingerprints_ignore_whitespace_markup_and_line_numbers(
        words in title_words(),
        styles in proptest::collection::vec(any::<u8>(), 8),
        gaps in proptest::collection::vec(proptest::sample::select(vec![" ", "  ", "\t", " \n "]), 8),
        n in 1u32..100_000,
        m in 1u32..100_000,
        reference in 0u8..5,
        fam in proptest::option::of(family()),
    ) {
        let plain = words.join(" ");
        let mut dressed = String::from("  ");
        for (i, w) in words.iter().enumerate() {
            if i > 0 {
                dressed.push_str(gaps.get(i).copied().unwrap_or(" "));
            }
            dressed.push_str(&dress(w, styles.get(i).copied().unwrap_or(0)));
        }
        let suffix = match reference {
            0 => format!(" (line {n})"),
            1 => format!(" at L{n}"),
            2 => format!(" #L{n}-L{m}"),
            3 => format!(" (lines {n} to {m})"),
            _ => format!(" on lines {n}-{m}."),
        };
        dressed.push_str(&suffix);
        let a = fingerprint(fam, "src/lib.rs", &plain);
        let b = fingerprint(fam, "src/lib.rs", &dressed);
        prop_assert_eq!(a, b, "{:?} vs {:?}", plain, dressed);
    }

    #[test]
    fn different_titles_get_different_fingerprints(a in title_words(), b in title_words()) {
        let (ta, tb) = (a.join(" "), b.join(" "));
        let same = fingerprint(None, "a.rs", &ta) == fingerprint(None, "a.rs", &tb);
        let filler = ["a", "an", "the", "of", "to", "in", "on", "at", "for", "is", "are", "be",
            "this", "that", "it", "its", "and", "or", "with", "by", "from", "as", "near", "around"];
        let strip = |w: &[String]| -> Vec<String> {
            w.iter().filter(|x| !filler.contains(&x.as_str())).cloned().collect()
        };
        prop_assert_eq!(same, strip(&a) == strip(&b));
    }
}

/// A finding's body in one family's format, with its title and description.
fn bot_body(family: Family, title: &str, description: &str, sha: &str) -> String {
    match family {
        Family::CodeRabbit => format!(
            "_⚠️ Potential issue_ | _🟠 Major_\n\n**{title}**\n\n{description}\n\n<!-- fingerprinting:{sha} -->\n\n<!-- This is an auto-generated comment by CodeRabbit -->"
        ),
        Family::Codex => format!(
            "**<sub><sub>![P1 Badge](https://img.shields.io/badge/P1-orange?style=flat)</sub></sub>  {title}**\n\n{description}\n\nUseful? React with 👍 / 👎."
        ),
        Family::Gemini => format!(
            "![high](https://www.gstatic.com/codereviewagent/high-priority.svg)\n\n{title}. {description}"
        ),
        Family::Greptile => format!(
            "<img alt=\"P2\" src=\"https://greptile-static-assets.s3.amazonaws.com/badges/p2.svg\" align=\"top\"> **{title}**\n\n{description}"
        ),
        Family::Cursor => format!(
            "### {title}\n\n**High Severity**\n\n<!-- DESCRIPTION START -->\n{description}\n<!-- DESCRIPTION END -->\n\n<sup>Reviewed by [Cursor Bugbot](https://cursor.com/bugbot) for commit {sha}.</sup>"
        ),
        Family::Sourcery => format!("**issue (bug_risk):** {title}.\n\n{description}"),
        _ => format!("**Suggestion:** {title} [possible issue, importance: 8]\n\n{description}"),
    }
}

fn repost_family() -> impl Strategy<Value = Family> {
    proptest::sample::select(vec![
        Family::CodeRabbit,
        Family::Codex,
        Family::Gemini,
        Family::Greptile,
        Family::Cursor,
        Family::Sourcery,
        Family::Qodo,
    ])
}

/// Title words long enough to make a title on their own.
fn repost_words() -> impl Strategy<Value = Vec<String>> {
    proptest::collection::vec(
        "[a-z]{3,8}".prop_filter("not a line word", |w| {
            !matches!(w.as_str(), "line" | "lines")
        }),
        3..7,
    )
}

proptest! {
    /// A bot re-posts a finding after a push: new thread, new commit in the footer, new line
    /// numbers, reflowed whitespace, different inline markup, reworded description. The
    /// fingerprint the reader gives both stays the same.
    #[test]
    fn a_reposted_finding_keeps_its_fingerprint(
        fam in repost_family(),
        words in repost_words(),
        styles in proptest::collection::vec(0u8..5, 8),
        gaps in proptest::collection::vec(proptest::sample::select(vec![" ", "  ", "   "]), 8),
        line in 1u32..5000,
        reference in 0u8..4,
        description in "[A-Za-z ]{0,60}",
    ) {
        let plain = words.join(" ");
        let mut dressed = String::new();
        for (i, w) in words.iter().enumerate() {
            if i > 0 {
                dressed.push_str(gaps.get(i).copied().unwrap_or(" "));
            }
            dressed.push_str(&match styles.get(i).copied().unwrap_or(0) {
                0 => w.clone(),
                1 => format!("`{w}`"),
                2 => format!("_{w}_"),
                3 => format!("<code>{w}</code>"),
                _ => format!("<em>{w}</em>"),
            });
        }
        dressed.push_str(&match reference {
            0 => format!(" (line {line})"),
            1 => format!(" at L{line}"),
            2 => format!(" on lines {line}-{}", line + 3),
            _ => String::new(),
        });
        let first = bot_body(fam, &plain, "The first wording of the details.", "0a1b2c3d4e5f60718293a4b5c6d7e8f901234567");
        let again = bot_body(fam, &dressed, &description, "9f8e7d6c5b4a39281706f5e4d3c2b1a098765432");
        let a = read_finding(fam, &first, "src/lib.rs");
        let b = read_finding(fam, &again, "src/lib.rs");
        prop_assert!(a.format_known && b.format_known);
        prop_assert_eq!(
            a.signals(fam, "src/lib.rs").fingerprint,
            b.signals(fam, "src/lib.rs").fingerprint,
            "{:?} vs {:?}", a.title, b.title
        );
    }

    #[test]
    fn review_body_readers_never_panic(f in family(), b in body(), head in "[0-9a-f]{0,40}") {
        for found in threadless_findings(&b, f) {
            prop_assert!(found.title.chars().count() <= 120);
            prop_assert_eq!(found.fingerprint.len(), 16);
            if let Some(lines) = found.lines {
                prop_assert!(lines.start <= lines.end);
            }
        }
        if let Some(sha) = reviewed_commit(&b) {
            prop_assert!((7..=40).contains(&sha.len()), "{}", sha);
            prop_assert!(sha.bytes().all(|c| c.is_ascii_hexdigit()));
            prop_assert!(!is_stale(&b, &CommitId(sha)));
        }
        let _ = is_stale(&b, &CommitId(head));
    }
}
