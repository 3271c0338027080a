//! The narrator port: the one-line progress messages a use-case says as it works (the `review`
//! binary writes them on stderr; a test keeps them).

/// Where a use-case says what it is doing, one line at a time.
pub trait Narrator {
    /// Says `line` (no trailing newline).
    fn narrate(&self, line: &str);
}

/// A narrator that keeps what it was told, for tests and for callers that render later.
#[derive(Debug, Default)]
pub struct Kept {
    lines: std::sync::Mutex<Vec<String>>,
}

impl Kept {
    /// The lines said so far.
    pub fn lines(&self) -> Vec<String> {
        self.lines
            .lock()
            .map(|l| l.clone())
            .unwrap_or_else(|e| e.into_inner().clone())
    }
}

impl Narrator for Kept {
    fn narrate(&self, line: &str) {
        match self.lines.lock() {
            Ok(mut l) => l.push(line.to_owned()),
            Err(e) => e.into_inner().push(line.to_owned()),
        }
    }
}
