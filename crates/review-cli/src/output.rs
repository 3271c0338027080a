//! The only module that writes to the terminal: data to stdout, narration and errors to stderr.
#![allow(
    clippy::print_stderr,
    reason = "this module is the CLI's one place for terminal output"
)]

use std::io::{self, Write};

/// Writes `text` to stdout. A closed pipe surfaces as an `io::Error` of kind `BrokenPipe`, which
/// the caller turns into a quiet exit.
pub fn stdout(text: &str) -> io::Result<()> {
    let mut out = io::stdout().lock();
    out.write_all(text.as_bytes())?;
    out.flush()
}

/// Writes one narration line (`[triage] step N — ...`) to stderr.
pub fn narrate(line: &str) {
    eprintln!("{line}");
}

/// Writes an error, its causes and a hint to stderr.
pub fn error(message: &str, causes: Vec<String>, hint: Option<&str>) {
    eprintln!("error: {message}");
    for cause in causes {
        eprintln!("  caused by: {cause}");
    }
    if let Some(hint) = hint {
        eprintln!("hint: {hint}");
    }
}

/// Writes a question to stderr, without a newline, for an answer on stdin.
pub fn prompt(question: &str) {
    eprint!("{question}");
    let _ = io::stderr().flush();
}
