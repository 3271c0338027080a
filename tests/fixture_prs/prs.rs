//! The recorded pull requests of `tests/fixtures/prs/`, described by the corpus cases they are
//! built from. Each mixes review tools, people, outdated and resolved threads; together they
//! cover most families of `docs/classification.md` (18 tools), people's short comments and long
//! discussions, a thread not fully read, non-English comments, posts that are not findings
//! (summaries, walkthroughs, quota and status notices), duplicates and a user posting in a
//! tool's format. Cases come from the tuned part of the corpus only (checked).
//!
//! Non-finding posts sit where the tools put them (review bodies and top-level comments, which
//! get no outcome), and a few are review threads, the way the corpus reads every case, so that
//! the report shows how they are dismissed.

use crate::recorded::Text::Case;
use crate::recorded::{Pr, bot, person, thread};

/// Every recorded pull request.
pub fn all() -> Vec<Pr> {
    vec![
        go_ledger(),
        ts_storefront(),
        py_pipeline(),
        i18n_shop(),
        rust_cache_people(),
    ]
}

/// The recorded pull request named `name`.
pub fn named(name: &str) -> Pr {
    all()
        .into_iter()
        .find(|p| p.name == name)
        .unwrap_or_else(|| panic!("no recorded pull request {name}"))
}

/// A Go service reviewed by most tools: findings of every class, a tool's German finding and a
/// Chinese one, people's short comments, a person answering a bot, outdated and resolved threads.
fn go_ledger() -> Pr {
    Pr {
        name: "go-ledger-pr-1207",
        about: "Go service: findings of every class from nine tools, people, a reply to a bot, outdated and resolved threads",
        repo: "fernbank/ledger",
        number: 1207,
        title: "Settle invoices in batches and retry partner webhooks",
        author: "dmitri-v",
        head_ref: "dmitri/batch-settlement",
        head_sha: "4be1a0c97d2f3e58a6b1c0d9e8f7a6b5c4d3e2f1",
        reviews: vec![
            Case("rb-gemini-code-review-body"),
            Case("rc-coderabbit-review-body-nitpicks-only"),
        ],
        comments: vec![Case("rb-codex-usage-limit")],
        threads: vec![
            thread("rc-coderabbit-st-body-close"),
            thread("coderabbit26-correctness-major"),
            thread("coderabbit-nitpick-trivial"),
            thread("rc-coderabbit-go-nil-map-write").outdated(),
            thread("copilot-nitpick-naming"),
            thread("rb-copilot-zh-nitpick-naming"),
            thread("rb-gemini-zh-high-map-race"),
            thread("rb-gemini-zh-medium-error-wrap").reply("rp-human-author-wont-fix-idempotent"),
            thread("codex-p1-inline-code"),
            thread("greptile-p2-vague"),
            thread("rb-greptile-p2-close-error"),
            thread("rb-greptile-legacy-style-import").resolved(),
            thread("rd-qodo-v1-github-actions-high"),
            thread("rd-sourcery-security-de-token"),
            thread("bito-style"),
            thread("claude-speculative"),
            thread("rp-human-plus-one"),
            thread("rp-human-critical-tenant-filter"),
            thread("rp-human-must-return-upload-error").outdated(),
        ],
    }
}

/// A TypeScript storefront: tools from CodeRabbit to Amazon Q, a finding posted twice, summaries
/// posted as threads, a person asking a bot why, a user posting in Greptile's format.
fn ts_storefront() -> Pr {
    Pr {
        name: "ts-storefront-pr-2048",
        about: "TypeScript app: thirteen tools, a finding posted twice, summaries as threads, a person questioning a bot, a user in a tool's format",
        repo: "northwind/storefront",
        number: 2048,
        title: "Cart pricing: cursor pagination, refunds in minor units, webhook retries",
        author: "sam-ortega",
        head_ref: "sam/cart-pricing",
        head_sha: "a3f9c2e1b7d4058f6e2c9a1b3d5f7e9c0b2d4f68",
        reviews: vec![
            Case("rb-cursor-review-found-issues"),
            Case("rc-coderabbit-review-body-autofix"),
        ],
        comments: vec![Case("rb-greptile-summary-old-bullets")],
        threads: vec![
            thread("rc-coderabbit-fc-page-slice-off-by-one"),
            thread("rc-coderabbit-fc-major-behaviour-choice"),
            thread("rc-coderabbit-old-nitpick-naming"),
            thread("rb-codex-p1-title-names-change"),
            thread("rb-codex-p1-callers-positional"),
            thread("cursor-high"),
            thread("rb-cursor-low-unused-param"),
            thread("rb-cursor-old-details-format").outdated(),
            thread("gemini-high-suggestion"),
            thread("rb-gemini-medium-redundant-guard"),
            thread("rb-gemini-medium-object-from-entries")
                .resolved()
                .reply("rp-human-author-both-nits-fixed"),
            thread("rb-greptile-p1-unbounded-cursor"),
            thread("rb-greptile-p1-security-webhook-sig"),
            thread("greptile-p1-suggestion")
                .reply("rp-human-at-greptile-why-p1")
                .then(bot(
                    "greptile-apps",
                    "You're right that the middleware rejects a missing `expiresAt` for browser sessions, but the API-key path in `authenticate()` skips that middleware and reaches this handler with `expiresAt` unset. That path is why I kept it at P1.",
                )),
            thread("rb-greptile-repost-a").line(88),
            thread("rb-greptile-repost-b").line(88),
            thread("rb-greptile-summary-new"),
            thread("rc-kilo-critical-typo-suggestion"),
            thread("rc-kilo-summary-clean"),
            thread("rc-cubic-p2-blank-url-validation"),
            thread("rd-qodo-v2-action-required-inline"),
            thread("rd-claude-inline-nit-naming"),
            thread("bito-html-suggestion"),
            thread("rd-amazonq-internal-error"),
            thread("rd-codeql-toctou-race"),
            thread("generic-suggestion-low"),
            thread("rp-human-hint-greptile-digest"),
            thread("human-gemini-badge-copy"),
        ],
    }
}

/// A Python pipeline: critical and security findings side by side, a thread whose second page
/// of comments could not be read, tools' summaries in review bodies and top-level comments.
fn py_pipeline() -> Pr {
    Pr {
        name: "py-pipeline-pr-77",
        about: "Python pipeline: critical and security findings, a thread not fully read, summaries and reviewer's guides",
        repo: "saltmarsh/pipeline",
        number: 77,
        title: "Retry uploads with backoff and move exports to the worker pool",
        author: "kenji-arai",
        head_ref: "kenji/upload-retries",
        head_sha: "0d5e8b3a6c1f9e27d4b8a05c3e6f1d9b2a7c4e80",
        reviews: vec![
            Case("rd-sourcery-review-body-prompt"),
            Case("rb-copilot-overview-legacy-heading"),
        ],
        comments: vec![
            Case("rd-qodo-reviewer-guide-focus-areas"),
            Case("rd-sourcery-reviewers-guide-collapsed"),
        ],
        threads: vec![
            thread("rc-coderabbit-st-critical-retry-loop"),
            thread("rc-coderabbit-fc-mutable-default"),
            thread("rc-coderabbit-sec-sql-interpolation"),
            thread("rc-coderabbit-st-minor-blocking-sleep"),
            // The first page of comments, all the bot's; a later page could not be read.
            thread("rc-coderabbit-old-critical-keyerror")
                .then(bot(
                    "coderabbitai",
                    "<!-- This is an auto-generated reply by CodeRabbit -->\nThe same handler reads `payload[\"currency\"]` two lines below; the storefront sends it for every cart, so that one is safe.",
                ))
                .partial(),
            thread("sourcery-bug-risk"),
            thread("rd-sourcery-bug-risk-retry-removes-upload"),
            thread("sourcery-security"),
            thread("sourcery-nitpick"),
            thread("copilot-p0-custom"),
            thread("rb-copilot-nitpick-docstring-typo"),
            thread("rb-copilot-sql-fstring"),
            thread("rb-gemini-critical-double-lock"),
            thread("rb-gemini-security-high-path-traversal"),
            thread("rb-gemini-high-retry-redesign"),
            thread("rb-codex-p1-clamp-retry-delay"),
            thread("rc-cubic-p0-undefined-name"),
            thread("rb-cursor-high-mutable-default"),
            thread("rb-greptile-p1-fix-in-claude-code"),
            thread("rb-greptile-p3-naming"),
            thread("rb-greptile-legacy-logic-offset").outdated(),
            thread("rd-codeant-critical-security-token"),
            thread("rd-deepsource-minor-unused-variable"),
            thread("rd-codeql-unused-import"),
            thread("rc-kilo-warning-small-fix"),
            thread("qodo-v1-importance-low"),
            thread("rp-human-quotes-copilot-unreachable"),
        ],
    }
}

/// A shop reviewed in Korean, Japanese, Chinese, Spanish, German, French and Portuguese, by tools
/// and people alike.
fn i18n_shop() -> Pr {
    Pr {
        name: "i18n-shop-pr-512",
        about: "Comments in Korean, Japanese, Chinese, Spanish, French, German and Portuguese, from tools and people",
        repo: "hanbit/shop",
        number: 512,
        title: "주문 목록 페이지네이션과 세션 만료 처리 / order list pagination and session expiry",
        author: "minji-s",
        head_ref: "minji/order-pagination",
        head_sha: "7c2e9f4a1b8d3065e7f2a9c4b1d8e3f6a0c5b792",
        reviews: vec![
            Case("rb-copilot-es-overview"),
        ],
        comments: vec![Case("rb-gemini-ja-summary")],
        threads: vec![
            thread("rc-coderabbit-ko-critical-nan-expiry"),
            thread("rc-coderabbit-ko-major-missing-await"),
            thread("rc-coderabbit-ja-major-pipe-deadlock"),
            thread("rc-coderabbit-ja-security-token-storage"),
            thread("rc-coderabbit-ko-nitpick-abbrev"),
            thread("rc-coderabbit-ja-minor-docs-typo"),
            thread("rc-coderabbit-ja-minor-runtime-note").outdated(),
            thread("rc-coderabbit-ko-nitpick-prefix-match").reply("rp-human-ko-author-reflected"),
            thread("rb-gemini-ko-high-page-offset"),
            thread("rb-gemini-ko-security-jwt-verify"),
            thread("rb-gemini-ko-medium-naming"),
            thread("rb-gemini-ja-medium-magic-number"),
            thread("rb-codex-p1-zh-flush"),
            thread("rb-codex-p2-ja-cache-key"),
            thread("rb-copilot-zh-null-roles"),
            thread("rb-copilot-pt-file-handle"),
            thread("rb-copilot-pt-tautological-assert").resolved(),
            thread("rd-qodo-v1-pt-null-check"),
            thread("rd-qodo-v1-zh-missing-await"),
            thread("rd-qodo-v2-ko-timezone"),
            thread("rd-sourcery-bug-risk-ko-path-marker"),
            thread("rd-claude-inline-ja-naive-datetime"),
            thread("rd-claude-review-es-design")
                .then(person(
                    "andres-vm",
                    "Buena observación. No sé si el hook debería decidir la zona horaria o recibirla del llamador; prefiero que lo decida el equipo.",
                ))
                .then(person(
                    "lucia-m",
                    "Yo me quedaría con la segunda opción: el hook no debería decidir la zona horaria. ¿Lo dejamos para otro PR y abrimos un issue?",
                )),
            thread("rb-greptile-ko-p2-timezone"),
            thread("greptile-p1-korean"),
            thread("claude-korean"),
            thread("rp-human-ko-question-constant"),
            thread("rp-human-ja-question-await"),
            thread("rp-human-zh-null-check"),
            thread("rp-human-es-why-gender"),
            thread("rp-human-fr-missing-migration"),
            thread("rp-human-de-question-rethrow"),
            thread("rp-human-pt-question-rescue"),
        ],
    }
}

/// A Rust cache where people talk: a long discussion on a bot's finding with a re-review
/// requested and acknowledged, a thread whose later comments could not be read, people whose
/// accounts look like bots', forged headers, a deleted account, automation accounts, and the same
/// finding posted twice.
fn rust_cache_people() -> Pr {
    Pr {
        name: "rust-cache-pr-9041",
        about: "Rust crate: a long discussion on a bot's finding, a thread not fully read, look-alike and forged authors, automation accounts, duplicates",
        repo: "acme/widgets",
        number: 9041,
        title: "Sharded LRU cache for the export writer",
        author: "dana",
        head_ref: "dana/sharded-lru",
        head_sha: "e91b5d07c3a2f84b6d0e9c1a7f3b5d2e8c4a6f10",
        reviews: vec![Case("rc-coderabbit-review-body-short")],
        comments: vec![Case("rc-coderabbit-notice-rate-limit")],
        threads: vec![
            thread("coderabbit-design-decision")
                .then(person(
                    "mei",
                    "Is this reproducible, or read off the code? `promote` takes the shard lock too.",
                ))
                .then(bot(
                    "coderabbitai",
                    "<!-- This is an auto-generated reply by CodeRabbit -->\n`promote` takes the shard lock, but `evict` reads `self.tail` before it takes the lock (line 88), so a `promote` of the tail can land between the read and the unlink. A test with two threads hammering one key reproduces it in about one run in fifty.",
                ))
                .then(person(
                    "tomasz",
                    "I'd rather not pull in a dependency for this. Can we move the tail read under the lock instead?",
                ))
                .then(person(
                    "dana",
                    "Moving the read under the lock is one line, but then `evict` holds the lock across the eviction callback. That is the deadlock we hit in #812.",
                ))
                .then(bot(
                    "coderabbitai",
                    "<!-- This is an auto-generated reply by CodeRabbit -->\nTwo ways out that keep the callback outside the lock:\n\n1. take the victim under the lock and run the callback after releasing it;\n2. switch to the `lru` crate, whose `pop_lru` does the same.\n\nOption 1 keeps the module and the current dependency set.",
                ))
                .then(person(
                    "mei",
                    "Option 1 sounds right. Has anyone measured the lock hold time?",
                ))
                .then(person(
                    "dana",
                    "On the 8-core box p99 goes from 41µs to 44µs with option 1. Acceptable?",
                ))
                .then(person(
                    "tomasz",
                    "Fine by me. In this PR please, not a follow-up.",
                ))
                .reply("rp-human-at-coderabbit-full-review")
                .reply("rc-coderabbit-notice-full-review")
                .then(person(
                    "mei",
                    "LGTM once the numbers are in the PR description.",
                ))
                .then(person(
                    "dana",
                    "Added them. Leaving this open for @tomasz to resolve.",
                )),
            thread("coderabbit-major-suggestion")
                .then(person("tomasz", "Is `DEFAULT_PORT` the right fallback in production?"))
                .partial(),
            thread("coderabbit-repost-flush-a").line(57),
            thread("coderabbit-repost-flush-b").line(57),
            thread("coderabbit-different-finding"),
            thread("rc-coderabbit-rust-index-get"),
            thread("coderabbit-trivial-low").reply("human-pr-author-reply"),
            thread("coderabbit26-maintainability-nitpick"),
            thread("codex-p1"),
            thread("codex-p3"),
            thread("rb-codex-p3-log-level").outdated(),
            thread("rb-copilot-diff-off-by-one"),
            thread("rb-copilot-rust-unwrap-port"),
            thread("copilot-speculative"),
            thread("cursor-repost-a").line(30),
            thread("cursor-repost-b").line(30),
            thread("rb-gemini-high-skipped-count"),
            thread("gemini-medium-prose"),
            thread("gemini-low-suggestion"),
            thread("rd-codeant-critical-silent-success"),
            thread("rd-codeant-major-double-lock"),
            thread("generic-lint-bot"),
            thread("qa-header-high"),
            thread("qa-header-low"),
            thread("qa-automation-account"),
            thread("rp-qa-runner-account-low-log"),
            thread("human-lgtm"),
            thread("human-nit-short"),
            thread("human-plain-question"),
            thread("rp-human-rust-panic-trace"),
            thread("human-forged-coderabbit"),
            thread("human-forged-header"),
            thread("human-bot-like-login-user"),
            thread("rp-human-login-coderabbitai-user"),
            thread("human-deleted-account"),
            thread("human-mannequin"),
            thread("human-organization"),
            thread("human-polish").outdated(),
            thread("human-suggestion-prefix").resolved(),
        ],
    }
}
