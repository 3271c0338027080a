//! `review schema`: the JSON Schema of each JSON output and file, generated from the types that
//! write them (the copies in docs/schemas/ are checked against these by the tests).

use clap::{Args, ValueEnum};
use schemars::{JsonSchema, schema_for};

use crate::error::CliError;
use crate::output;

/// Which output.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Output {
    /// `review triage --json`.
    Report,
    /// `review triage --substep`.
    Substep,
    /// `review threads --json`.
    Threads,
    /// One line of `review watch` (and of `review loop`'s stdout).
    WatchEvent,
    /// `review decide --json`.
    Decide,
    /// `review config --json`.
    Config,
    /// `review fence --json`.
    Fence,
    /// The watcher's state file.
    WatchState,
    /// The loop's decisions file.
    Decisions,
    /// `review status --json`.
    Status,
    /// `review rereview --json`.
    Rereview,
}

impl Output {
    /// Every output, in the order of the docs.
    pub const ALL: [Self; 11] = [
        Self::Report,
        Self::Substep,
        Self::Threads,
        Self::WatchEvent,
        Self::Decide,
        Self::Config,
        Self::Fence,
        Self::WatchState,
        Self::Decisions,
        Self::Status,
        Self::Rereview,
    ];

    /// The schema, as pretty JSON.
    pub fn schema(self) -> String {
        fn of<T: JsonSchema>() -> String {
            serde_json::to_string_pretty(&schema_for!(T)).unwrap_or_default() + "\n"
        }
        match self {
            Self::Report => of::<review_core::report::Report>(),
            Self::Substep => of::<review_app::triage::SubstepResult>(),
            Self::Threads => of::<crate::outputs::Listing>(),
            Self::WatchEvent => of::<crate::watching::EventLine>(),
            Self::Decide => of::<Vec<review_app::decide::Recorded>>(),
            Self::Config => of::<Vec<crate::outputs::Row>>(),
            Self::Fence => of::<crate::outputs::FenceOutput>(),
            Self::WatchState => of::<review_core::watch::WatchState>(),
            Self::Decisions => of::<review_core::decisions::Decisions>(),
            Self::Status => of::<crate::statusing::StatusReport>(),
            Self::Rereview => of::<crate::rerequesting::RereviewReport>(),
        }
    }
}

/// Print the JSON Schema of a JSON output or file
///
/// Generated from the types that write them, so they cannot drift. The same schemas are
/// published in docs/schemas/.
#[derive(Debug, Args)]
pub struct SchemaArgs {
    /// The output or file [default: list them]
    #[arg(value_enum)]
    output: Option<Output>,
}

/// Runs `review schema`.
pub fn run(args: &SchemaArgs) -> Result<(), CliError> {
    let text = match args.output {
        Some(o) => o.schema(),
        None => Output::ALL
            .iter()
            .filter_map(|o| o.to_possible_value())
            .map(|v| format!("{}\n", v.get_name()))
            .collect(),
    };
    output::stdout(&text).map_err(CliError::Output)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The schemas published in docs/schemas/ are the generated ones. `UPDATE_SCHEMAS=1 cargo
    /// test -p review-cli --lib schema` rewrites them.
    #[test]
    #[expect(
        clippy::disallowed_methods,
        reason = "the maintainers' knob to rewrite the schemas"
    )]
    fn published_schemas_match_the_types() {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/schemas");
        let update = std::env::var_os(review_github::env::EnvVars::UPDATE_SCHEMAS).is_some();
        for o in Output::ALL {
            let name = o.to_possible_value().unwrap().get_name().to_owned();
            let path = dir.join(format!("{name}.schema.json"));
            let generated = o.schema();
            if update {
                std::fs::create_dir_all(&dir).unwrap();
                std::fs::write(&path, &generated).unwrap();
                continue;
            }
            let published = std::fs::read_to_string(&path).unwrap_or_default();
            assert!(
                published == generated,
                "{} is out of date: run UPDATE_SCHEMAS=1 cargo test -p review-cli --lib schema",
                path.display()
            );
        }
    }
}
