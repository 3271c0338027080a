//! The only module that writes to the terminal: data to stdout, narration and errors to stderr.
#![allow(
    clippy::print_stderr,
    reason = "this module is the CLI's one place for terminal output"
)]

use std::io::{self, Write};
use std::sync::Mutex;

/// Narration collected instead of printed (`review triage --substep` returns it in its JSON).
static COLLECTED: Mutex<Option<Vec<String>>> = Mutex::new(None);

/// From now on, narration is collected instead of printed.
pub fn collect_narration() {
    *COLLECTED
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner) = Some(Vec::new());
}

/// Whether narration is being collected (a sub-step run, which must never prompt).
pub fn collecting() -> bool {
    COLLECTED
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
        .is_some()
}

/// The narration collected so far.
pub fn collected_narration() -> Vec<String> {
    COLLECTED
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
        .clone()
        .unwrap_or_default()
}

/// Writes `text` to stdout. A closed pipe surfaces as an `io::Error` of kind `BrokenPipe`, which
/// the caller turns into a quiet exit.
pub fn stdout(text: &str) -> io::Result<()> {
    let mut out = io::stdout().lock();
    out.write_all(text.as_bytes())?;
    out.flush()
}

/// Writes one narration line (`[triage] step N — ...`) to stderr, or collects it.
pub fn narrate(line: &str) {
    let mut collected = COLLECTED
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    match collected.as_mut() {
        Some(lines) => lines.push(line.to_owned()),
        None => eprintln!("{line}"),
    }
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
