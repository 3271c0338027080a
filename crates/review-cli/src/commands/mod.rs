//! One module per subcommand, each with its arguments and a `run` function.

pub mod triage;
