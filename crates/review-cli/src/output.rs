//! The only module that writes to the terminal: data to stdout, narration and errors to stderr.
#![allow(
    clippy::print_stderr,
    reason = "this module is the CLI's one place for terminal output"
)]

use std::io::{self, IsTerminal, Write};
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, Ordering};

use review_core::text::visible;
use review_github::env::EnvVars;

/// When to color stderr.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum ColorChoice {
    /// On a terminal, unless NO_COLOR is set.
    Auto,
    /// Always.
    Always,
    /// Never.
    Never,
}

static COLOR: AtomicBool = AtomicBool::new(false);

/// Decides once whether stderr gets color.
#[expect(
    clippy::disallowed_methods,
    reason = "NO_COLOR is the terminal's, read where color is decided"
)]
pub fn set_color(choice: ColorChoice) {
    let no_color = std::env::var_os(EnvVars::NO_COLOR).is_some_and(|v| !v.is_empty());
    let on = match choice {
        ColorChoice::Always => true,
        ColorChoice::Never => false,
        ColorChoice::Auto => !no_color && io::stderr().is_terminal(),
    };
    COLOR.store(on, Ordering::Relaxed);
}

/// `label` in the SGR style `sgr` when stderr is colored.
fn paint(label: &str, sgr: &str) -> String {
    if COLOR.load(Ordering::Relaxed) {
        format!("\x1b[{sgr}m{label}\x1b[0m")
    } else {
        label.to_owned()
    }
}

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

/// What a command run in process (`review mcp`'s tools) writes, kept instead of printed: its
/// stdout, and its stderr line by line, each line also sent to `lines` as it comes (the call's
/// progress). While set, nothing a command writes reaches the terminal: the server's stdout
/// carries only the protocol.
#[derive(Debug)]
struct Capture {
    stdout: String,
    stderr: Vec<String>,
    lines: tokio::sync::mpsc::UnboundedSender<String>,
}

impl Capture {
    /// Keeps `text` (one or more lines, as stderr would show them) and sends each line on.
    fn stderr(&mut self, text: &str) {
        for line in text.lines() {
            self.stderr.push(line.to_owned());
            let _ = self.lines.send(line.to_owned());
        }
    }
}

static CAPTURE: Mutex<Option<Capture>> = Mutex::new(None);

fn capture_lock() -> std::sync::MutexGuard<'static, Option<Capture>> {
    CAPTURE
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// From now on, what commands write is kept (see [`end_capture`]) instead of printed, and each
/// stderr line is also sent to `lines`. One command at a time: the caller runs them in turn.
pub(crate) fn capture(lines: tokio::sync::mpsc::UnboundedSender<String>) {
    *capture_lock() = Some(Capture {
        stdout: String::new(),
        stderr: Vec::new(),
        lines,
    });
}

/// Ends a [`capture`]: what was written to stdout, and the stderr lines.
pub(crate) fn end_capture() -> (String, Vec<String>) {
    capture_lock()
        .take()
        .map(|c| (c.stdout, c.stderr))
        .unwrap_or_default()
}

/// Whether output is being captured.
pub(crate) fn capturing() -> bool {
    capture_lock().is_some()
}

/// Writes `text` to stdout. A closed pipe surfaces as an `io::Error` of kind `BrokenPipe`, which
/// the caller turns into a quiet exit.
pub fn stdout(text: &str) -> io::Result<()> {
    if let Some(capture) = capture_lock().as_mut() {
        capture.stdout.push_str(text);
        return Ok(());
    }
    let mut out = io::stdout().lock();
    out.write_all(text.as_bytes())?;
    out.flush()
}

/// Writes human-readable `text` to stdout, with the control and bidirectional formatting
/// characters of what it quotes from GitHub or the pull request shown escaped ([`visible`]:
/// newlines and tabs stay). JSON goes through [`stdout`]: it keeps the exact text.
pub fn human(text: &str) -> io::Result<()> {
    stdout(&visible(text))
}

/// Writes one narration line (`[triage] step N — ...`) to stderr, or collects it.
///
/// Narration quotes titles and paths from the pull request: on stderr its control and
/// bidirectional formatting characters are shown escaped ([`visible`]); collected narration
/// (JSON) keeps the exact text.
pub fn narrate(line: &str) {
    let mut collected = COLLECTED
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    match collected.as_mut() {
        Some(lines) => lines.push(line.to_owned()),
        None => match capture_lock().as_mut() {
            Some(capture) => capture.stderr(&visible(line)),
            None => eprintln!("{}", visible(line)),
        },
    }
}

/// The local adapters' warnings (`log` records of `review_local` at the `warn` level and
/// above), said as narration: `[review] warning: ...`. Other crates' log records are not shown.
#[derive(Debug)]
struct LocalWarnings;

impl log::Log for LocalWarnings {
    fn enabled(&self, metadata: &log::Metadata<'_>) -> bool {
        metadata.level() <= log::Level::Warn && metadata.target().starts_with("review_local")
    }

    fn log(&self, record: &log::Record<'_>) {
        if self.enabled(record.metadata()) {
            narrate(&format!("[review] warning: {}", record.args()));
        }
    }

    fn flush(&self) {}
}

/// Routes the local adapters' warnings to [`narrate`]; once per process (a second call keeps
/// the first logger).
pub fn show_local_warnings() {
    static LOGGER: LocalWarnings = LocalWarnings;
    if log::set_logger(&LOGGER).is_ok() {
        log::set_max_level(log::LevelFilter::Warn);
    }
}

/// The use-cases' narrator: [`narrate`].
#[derive(Debug, Clone, Copy)]
pub struct Narrate;

impl review_app::narrator::Narrator for Narrate {
    fn narrate(&self, line: &str) {
        narrate(line);
    }
}

/// Writes an error, its causes and a hint to stderr, with the text's control and bidirectional
/// formatting characters shown escaped ([`visible`]).
pub fn error(message: &str, causes: Vec<String>, hint: Option<&str>) {
    if let Some(capture) = capture_lock().as_mut() {
        // Captured text is read back, never shown on a terminal: no color.
        capture.stderr(&format!("error: {}", visible(message)));
        for cause in causes {
            capture.stderr(&format!("  caused by: {}", visible(&cause)));
        }
        if let Some(hint) = hint {
            capture.stderr(&format!("hint: {}", visible(hint)));
        }
        return;
    }
    eprintln!("{} {}", paint("error:", "1;31"), visible(message));
    for cause in causes {
        eprintln!("  {} {}", paint("caused by:", "2"), visible(&cause));
    }
    if let Some(hint) = hint {
        eprintln!("{} {}", paint("hint:", "1;36"), visible(hint));
    }
}

/// Writes a question to stderr, without a newline, for an answer on stdin (its control and
/// bidirectional formatting characters shown escaped: [`visible`]).
pub fn prompt(question: &str) {
    if let Some(capture) = capture_lock().as_mut() {
        capture.stderr(&visible(question));
        return;
    }
    eprint!("{}", visible(question));
    let _ = io::stderr().flush();
}

/// A spinner on stderr for work that may take more than a moment (a read of a large pull
/// request, a wait between polls). It shows only on a terminal, only after the first 700 ms, and
/// erases itself when dropped; elsewhere it does nothing.
/// Its label may change as the work goes ([`Spinner::set_label`]: "judging 12/38"); it is not
/// narration, and never enters `--substep`'s narration.
#[derive(Debug)]
pub struct Spinner {
    stop: std::sync::Arc<AtomicBool>,
    label: std::sync::Arc<Mutex<String>>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl Spinner {
    /// Starts a spinner labelled `label` ("reading PR #482").
    pub fn start(label: &str) -> Self {
        let stop = std::sync::Arc::new(AtomicBool::new(false));
        let label = std::sync::Arc::new(Mutex::new(label.to_owned()));
        let shown = io::stderr().is_terminal() && !collecting() && !capturing();
        let thread = shown.then(|| {
            let stop = std::sync::Arc::clone(&stop);
            let label = std::sync::Arc::clone(&label);
            std::thread::spawn(move || spin(&label, &stop))
        });
        Self {
            stop,
            label,
            thread,
        }
    }

    /// Changes the label shown from the next frame on.
    pub fn set_label(&self, label: &str) {
        if let Ok(mut l) = self.label.lock() {
            label.clone_into(&mut l);
        }
    }
}

fn spin(label: &Mutex<String>, stop: &AtomicBool) {
    const FRAMES: [char; 10] = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏'];
    let started = std::time::Instant::now();
    let tick = std::time::Duration::from_millis(100);
    let mut drawn = false;
    let mut frame = 0;
    while !stop.load(Ordering::Relaxed) {
        std::thread::sleep(tick);
        if started.elapsed() < std::time::Duration::from_millis(700) {
            continue;
        }
        let text = label.lock().map(|l| l.clone()).unwrap_or_default();
        eprint!(
            "\r\x1b[2K{} {text} ({} s)",
            FRAMES[frame % FRAMES.len()],
            started.elapsed().as_secs()
        );
        let _ = io::stderr().flush();
        drawn = true;
        frame += 1;
    }
    if drawn {
        eprint!("\r\x1b[2K");
        let _ = io::stderr().flush();
    }
}

impl Drop for Spinner {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

/// The account the tool writes as, for narration: `@login` (without a bot's `[bot]`), or "the
/// token's owner" when the host did not name it.
pub fn account(login: Option<&str>) -> String {
    login.map_or_else(
        || "the token's owner".to_owned(),
        |l| format!("@{}", l.trim_end_matches("[bot]")),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn off_a_terminal_the_spinner_draws_nothing_and_stops_at_once() {
        // Test runs capture stderr: not a terminal.
        let spinner = Spinner::start("reading");
        assert!(spinner.thread.is_none());
        drop(spinner);
    }

    #[test]
    fn color_follows_the_choice() {
        set_color(ColorChoice::Always);
        assert_eq!(paint("error:", "1;31"), "\x1b[1;31merror:\x1b[0m");
        set_color(ColorChoice::Never);
        assert_eq!(paint("error:", "1;31"), "error:");
    }
}
