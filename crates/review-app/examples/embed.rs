//! Embedding a use-case: another tool posts its replies on a pull request through `review`'s
//! `respond`, with its own review host and stores. Here the host is the in-memory one of
//! `review-test-support` and the stores are the crate's in-memory ones; a real tool passes its
//! own `ReviewHost` (or `review_github::adapter::GitHubHost`) and its own `LedgerStore`.
//!
//! ```text
//! cargo run -p review-app --example embed
//! ```
//!
//! What it shows: a person's thread gets no reply whatever the tool asks; a bot's thread gets
//! its reply once, and a second run posts nothing (the ledger remembers).
#![allow(clippy::print_stdout, reason = "an example that prints what it did")]

use review_app::respond::{HostRereads, MemoryLedger, NoHistory, Notes, RespondPorts, Source};
use review_app::watch_store::MemoryLoop;
use review_core::gate::AutomationSettings;
use review_core::reply::Reply;
use review_test_support::{FakeHost, PrBuilder, bot, person};

fn main() -> Result<(), review_app::AppError> {
    let pr = PrBuilder::new()
        .thread(
            "BOT",
            "src/a.rs",
            3,
            &[(bot("coderabbitai"), "**Off by one.**")],
        )
        .thread(
            "TALK",
            "src/b.rs",
            9,
            &[
                (bot("coderabbitai"), "**Rename it.**"),
                (person("mei"), "No."),
            ],
        )
        .build();
    let host = FakeHost::new(pr);
    let ledger = MemoryLedger::default();
    let rereads = HostRereads(&host);
    let ports = RespondPorts {
        host: &host,
        rereads: &rereads,
        ledger: &ledger,
        history: &NoHistory,
        files: None::<&MemoryLoop>,
        channels: &review_app::respond::TABLE,
        deferral: None,
    };
    let replies = || {
        Source::Given(vec![
            Reply::thread(
                "BOT",
                "The bound is deliberate: see the loop's guard.".into(),
                true,
            ),
            Reply::thread("TALK", "Renamed.".into(), true),
        ])
    };
    let runtime = tokio::runtime::Builder::new_current_thread()
        .build()
        .map_err(review_app::AppError::port)?;
    for run in ["first run", "second run"] {
        let notes = Notes::default();
        let pr = host.current();
        let responded = runtime.block_on(ports.respond(
            &notes,
            &pr,
            replies(),
            &AutomationSettings::default(),
        ))?;
        println!("{run}:");
        for outcome in &responded.outcomes {
            println!("  {outcome:?}");
        }
    }
    println!("mutations on the host: {:?}", host.mutations());
    Ok(())
}
