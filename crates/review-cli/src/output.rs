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

/// Where the narration of the command running on this thread goes.
///
/// Each command runs on one thread (the command line's main thread, or a thread of its own for
/// each `review mcp` call), so the destination is the thread's: two calls never mix their
/// lines, and nothing is shared process-wide. Work a command hands to other threads (a judge's
/// calls) narrates through the [`Sink`] it was given ([`sink`]).
#[derive(Debug, Clone, Default)]
pub enum Sink {
    /// stderr, the terminal's.
    #[default]
    Terminal,
    /// Kept for the command's own output (`review triage --substep` returns it in its JSON).
    Collect(std::sync::Arc<Mutex<Vec<String>>>),
    /// An in-process call's progress (`review mcp`): each line sent as it comes. The call's
    /// answer is its return value: on its thread, stdout is refused ([`stdout`]), since the
    /// server's stdout carries only the protocol.
    Call(tokio::sync::mpsc::UnboundedSender<String>),
}

impl Sink {
    /// Says one narration line here.
    ///
    /// On the terminal its control and bidirectional formatting characters are shown escaped
    /// ([`visible`]); collected narration (JSON) keeps the exact text.
    pub fn narrate(&self, line: &str) {
        match self {
            Self::Terminal => eprintln!("{}", visible(line)),
            Self::Collect(lines) => lines
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner)
                .push(line.to_owned()),
            Self::Call(lines) => {
                for line in visible(line).lines() {
                    let _ = lines.send(line.to_owned());
                }
            }
        }
    }
}

impl review_app::narrator::Narrator for Sink {
    fn narrate(&self, line: &str) {
        Self::narrate(self, line);
    }
}

thread_local! {
    static SINK: std::cell::RefCell<Sink> = std::cell::RefCell::default();
}

/// This thread's narration destination, to hand to work on other threads.
pub fn sink() -> Sink {
    SINK.with(|s| s.borrow().clone())
}

/// `f`, to run on another thread (the blocking pool's) with this thread's narration
/// destination: what it narrates goes where the caller's would. The other thread's own
/// destination is put back after.
pub fn carried<R>(f: impl FnOnce() -> R + Send + 'static) -> impl FnOnce() -> R + Send + 'static {
    let here = sink();
    move || {
        let before = set_sink(here);
        let result = f();
        set_sink(before);
        result
    }
}

/// Sends this thread's narration to `sink` from now on; returns where it went before.
pub fn set_sink(sink: Sink) -> Sink {
    SINK.with(|s| s.replace(sink))
}

/// From now on, this thread's narration is collected instead of printed.
pub fn collect_narration() {
    set_sink(Sink::Collect(std::sync::Arc::default()));
}

/// Whether this thread's narration is collected (a sub-step run, which must never prompt) or
/// goes to an in-process call: no terminal is there to answer.
pub fn collecting() -> bool {
    !matches!(sink(), Sink::Terminal)
}

/// The narration this thread collected so far.
pub fn collected_narration() -> Vec<String> {
    match sink() {
        Sink::Collect(lines) => lines
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .clone(),
        Sink::Terminal | Sink::Call(_) => Vec::new(),
    }
}

/// Whether this process's stdout carries a protocol (`review mcp`): nothing else may be written
/// there, from any thread.
static STDOUT_RESERVED: AtomicBool = AtomicBool::new(false);

/// From now on stdout carries only the protocol the caller writes itself: [`stdout`] refuses
/// on every thread (an MCP call's work on a thread of the blocking pool included).
pub fn reserve_stdout() {
    STDOUT_RESERVED.store(true, Ordering::SeqCst);
}

/// Writes `text` to stdout. A closed pipe surfaces as an `io::Error` of kind `BrokenPipe`, which
/// the caller turns into a quiet exit. Refused on an in-process call's thread and once stdout is
/// reserved for a protocol ([`reserve_stdout`]).
pub fn stdout(text: &str) -> io::Result<()> {
    if matches!(sink(), Sink::Call(_)) || STDOUT_RESERVED.load(Ordering::SeqCst) {
        return Err(io::Error::other(
            "an in-process call returns its answer: stdout carries only the protocol",
        ));
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

/// Says one narration line (`[triage] step N — ...`) where this thread's narration goes
/// ([`Sink`]): stderr, collected, or an in-process call's progress.
///
/// Narration quotes titles and paths from the pull request: on stderr its control and
/// bidirectional formatting characters are shown escaped ([`visible`]); collected narration
/// (JSON) keeps the exact text.
pub fn narrate(line: &str) {
    SINK.with(|s| s.borrow().narrate(line));
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

/// The use-cases' narrator: [`narrate`], where the thread's narration goes.
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
        let shown = io::stderr().is_terminal() && !collecting();
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

    /// On a call's thread narration goes to that call alone, and stdout is refused (the
    /// server's stdout carries only the protocol); another thread keeps its own destination.
    #[test]
    fn a_calls_thread_narrates_to_its_call_and_never_writes_stdout() {
        let call = |tag: &'static str| {
            std::thread::spawn(move || {
                let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel();
                set_sink(Sink::Call(tx));
                for n in 0..50 {
                    narrate(&format!("{tag} {n}\u{202e}"));
                }
                let refused = stdout("{}").is_err() && human("text").is_err();
                let mut heard = Vec::new();
                while let Ok(line) = rx.try_recv() {
                    heard.push(line);
                }
                (refused, heard)
            })
        };
        let (a, b) = (call("a"), call("b"));
        for (tag, handle) in [("a", a), ("b", b)] {
            let (refused, heard) = handle.join().unwrap();
            assert!(refused, "stdout is refused on a call's thread");
            assert_eq!(heard.len(), 50);
            for (n, line) in heard.iter().enumerate() {
                // Escaped as on a terminal: the call's client may show it.
                assert_eq!(line, &format!("{tag} {n}\\u{{202e}}"));
            }
        }
        // This thread was never a call's: collected narration is its own.
        collect_narration();
        narrate("mine");
        assert_eq!(collected_narration(), ["mine"]);
        set_sink(Sink::Terminal);
        assert!(collected_narration().is_empty());
    }

    #[test]
    fn color_follows_the_choice() {
        set_color(ColorChoice::Always);
        assert_eq!(paint("error:", "1;31"), "\x1b[1;31merror:\x1b[0m");
        set_color(ColorChoice::Never);
        assert_eq!(paint("error:", "1;31"), "error:");
    }
}
