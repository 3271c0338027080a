//! Running a user's external command (a reviewer, judge, fixer, checks, agent, translator or
//! analyst): `sh -c COMMAND` in a directory, input on stdin, a time limit, and the last line of
//! its stderr when it fails.
//!
//! What a command receives is data on stdin, never text spliced into its command line. Each
//! command runs in a process group of its own: when it outlives its time limit, or when it
//! ends, the whole group is killed, so a "stopped" fixer cannot go on editing in the
//! background, and its output is read only until the deadline, so a background child holding
//! a pipe open cannot hang the tool. Token variables are not passed down unless the user named
//! the command (`--pass-token NAME`, or `commands.pass-token` in the user's own config).
//!
//! Calls that only answer (judges, analysts, translators) may run side by side
//! ([`for_each_ordered`], at most `--jobs` at a time), their results taken in order; fixers
//! edit the working tree and run one at a time. [`stop_all`] (Ctrl-C) kills every running
//! command's group and starts no other.

use std::collections::{BTreeMap, BTreeSet};
use std::io::{Read, Write};
use std::os::unix::process::CommandExt as _;
use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::mpsc;
use std::sync::{Mutex, OnceLock};
use std::time::{Duration, Instant};

/// The most of a command's stdout kept.
const MAX_OUTPUT: u64 = 1 << 20;

/// How many answering commands run at once when the user says nothing (`--jobs`).
pub const DEFAULT_JOBS: usize = 4;

/// How many answering commands run at once (`--jobs`, `jobs` in the user's config).
static JOBS: AtomicUsize = AtomicUsize::new(DEFAULT_JOBS);

/// Set by [`stop_all`]: no command starts any more, and a running one is stopped.
static STOPPING: AtomicBool = AtomicBool::new(false);

/// The process groups of the commands running now.
static RUNNING: Mutex<BTreeSet<u32>> = Mutex::new(BTreeSet::new());

/// How long output is still read after the command ended or was killed.
const DRAIN: Duration = Duration::from_secs(2);

/// The environment variables that hold tokens, besides those the user's config names.
const TOKEN_VARIABLES: &[&str] = &[
    "GH_TOKEN",
    "GITHUB_TOKEN",
    "GH_ENTERPRISE_TOKEN",
    "GITHUB_ENTERPRISE_TOKEN",
];

/// Which of the user's commands runs: the names `--pass-token` takes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// The pre-review (`--reviewer-cmd`).
    Reviewer,
    /// The judge (`--judge-cmd`; `--triager-cmd` is its older name).
    Judge,
    /// The fixer (`--fixer-cmd`).
    Fixer,
    /// The project's checks (`--check-cmd`).
    Checks,
    /// The follow-up's coding agent (`--agent-cmd`).
    Agent,
    /// The follow-up's translator.
    Translator,
    /// The follow-up's analyst.
    Analyst,
}

impl Kind {
    /// Every kind, for `--pass-token`'s values.
    pub const ALL: [Self; 7] = [
        Self::Reviewer,
        Self::Judge,
        Self::Fixer,
        Self::Checks,
        Self::Agent,
        Self::Translator,
        Self::Analyst,
    ];

    /// The kind named `name` (`triager` is the judge's older name).
    pub fn named(name: &str) -> Option<Self> {
        let name = if name == "triager" { "judge" } else { name };
        Self::ALL.into_iter().find(|k| k.as_str() == name)
    }

    /// Its name, as `--pass-token` and `commands.pass-token` take it.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Reviewer => "reviewer",
            Self::Judge => "judge",
            Self::Fixer => "fixer",
            Self::Checks => "checks",
            Self::Agent => "agent",
            Self::Translator => "translator",
            Self::Analyst => "analyst",
        }
    }
}

/// The commands that get the token variables, and the user's own token variable names; set
/// once, at start.
static PASS: OnceLock<(Vec<Kind>, Vec<String>)> = OnceLock::new();

/// Names the commands that may see the token variables (`--pass-token`, `commands.pass-token`)
/// and the extra variables that hold tokens (the user's `[token-variables]`).
pub fn set_token_policy(pass: Vec<Kind>, extra_variables: Vec<String>) {
    let _ = PASS.set((pass, extra_variables));
}

fn passes_token(kind: Kind) -> bool {
    PASS.get().is_some_and(|(pass, _)| pass.contains(&kind))
}

/// The environment variables that hold tokens: the well-known ones and the user's own.
pub(crate) fn token_variables() -> impl Iterator<Item = &'static str> {
    TOKEN_VARIABLES.iter().copied().chain(
        PASS.get()
            .map(|(_, extra)| extra.iter().map(String::as_str))
            .into_iter()
            .flatten(),
    )
}

/// A fence marker from the operating system's random source: 128 bits, as hex.
pub fn random_marker() -> Result<String, String> {
    let mut bytes = [0u8; 16];
    std::fs::File::open("/dev/urandom")
        .and_then(|mut f| f.read_exact(&mut bytes))
        .map_err(|e| format!("cannot draw a fence marker: {e}"))?;
    Ok(bytes.iter().map(|b| format!("{b:02x}")).collect())
}

/// Kills the process group led by `pid` (best effort: it may be gone).
/// Sets how many answering commands may run at once (at least one).
pub fn set_jobs(jobs: usize) {
    JOBS.store(jobs.max(1), Ordering::SeqCst);
}

/// How many answering commands may run at once.
pub fn jobs() -> usize {
    JOBS.load(Ordering::SeqCst)
}

/// Stops everything the tool runs (Ctrl-C): every running command's process group is killed
/// and no other command starts in this process.
pub fn stop_all() {
    STOPPING.store(true, Ordering::SeqCst);
    STOPPED.notify_waiters();
    let running: Vec<u32> = RUNNING
        .lock()
        .map(|r| r.iter().copied().collect())
        .unwrap_or_default();
    for pid in running {
        kill_group(pid);
    }
}

/// Whether [`stop_all`] was called.
pub fn stopping() -> bool {
    STOPPING.load(Ordering::SeqCst)
}

/// Wakes those waiting in [`stopped`].
static STOPPED: tokio::sync::Notify = tokio::sync::Notify::const_new();

/// Completes once [`stop_all`] is called (at once if it was).
pub async fn stopped() {
    loop {
        // Created before the check, so a stop between the two still wakes it.
        let woken = STOPPED.notified();
        if stopping() {
            return;
        }
        woken.await;
    }
}

/// Set by [`interrupt`]: the in-process Ctrl-C of a cancelled `review mcp` call.
static INTERRUPTED: AtomicBool = AtomicBool::new(false);

/// Wakes those waiting in [`ctrl_c`] when [`interrupt`] is called.
static INTERRUPT: tokio::sync::Notify = tokio::sync::Notify::const_new();

/// Completes on Ctrl-C, or once [`interrupt`] is called (at once if it was): what the commands
/// listen to instead of `tokio::signal::ctrl_c`, so that a cancelled `review mcp` call, which
/// runs its command in this process, stops it as Ctrl-C stops the command line's.
pub async fn ctrl_c() {
    tokio::select! {
        result = tokio::signal::ctrl_c() => {
            if result.is_err() {
                // No signal handler: only an interrupt ends the wait.
                interrupted().await;
            }
        }
        () = interrupted() => {}
    }
}

/// Completes once [`interrupt`] is called (at once if it was).
async fn interrupted() {
    loop {
        // Created before the check, so an interrupt between the two still wakes it.
        let woken = INTERRUPT.notified();
        if INTERRUPTED.load(Ordering::SeqCst) {
            return;
        }
        woken.await;
    }
}

/// Does to the running command what Ctrl-C does ([`ctrl_c`] completes): it stops at its next
/// checkpoint and reports what it did. For `review mcp`'s cancelled calls.
pub fn interrupt() {
    INTERRUPTED.store(true, Ordering::SeqCst);
    INTERRUPT.notify_waiters();
}

/// Forgets an earlier [`interrupt`] and [`stop_all`], before `review mcp` runs its next command
/// in this process (one at a time).
pub fn resume() {
    INTERRUPTED.store(false, Ordering::SeqCst);
    STOPPING.store(false, Ordering::SeqCst);
}

/// Listens for Ctrl-C for the rest of the run: the first one calls [`stop_all`]. For a command
/// that runs long with steps of its own (`review loop`): a Ctrl-C between two steps is not
/// lost, and each step sees [`stopping`].
pub fn stop_on_ctrl_c() {
    tokio::spawn(async {
        ctrl_c().await;
        stop_all();
    });
}

fn track(pid: u32, running: bool) {
    if let Ok(mut r) = RUNNING.lock() {
        if running {
            r.insert(pid);
        } else {
            r.remove(&pid);
        }
    }
}

/// Runs `work` on each of `items`, at most [`jobs`] at a time on threads of their own, and
/// hands each result to `done` with its index, in the order of `items` (a result waits for the
/// ones before it); `started` hears of each item as its work starts, in the order of `items`;
/// `finished` hears how many are done after each.
pub fn for_each_ordered<T: Sync, R: Send>(
    items: &[T],
    started: impl Fn(&T) + Sync,
    work: impl Fn(&T) -> R + Sync,
    mut done: impl FnMut(usize, R),
    mut finished: impl FnMut(usize),
) {
    let workers = jobs().clamp(1, items.len().max(1));
    // Taking the next item and saying it started happen together, so starts come in order.
    let next = Mutex::new(0usize);
    let (tx, rx) = mpsc::channel();
    std::thread::scope(|scope| {
        for _ in 0..workers {
            let tx = tx.clone();
            let (next, work, started) = (&next, &work, &started);
            scope.spawn(move || {
                loop {
                    let taken = next.lock().ok().and_then(|mut n| {
                        let i = *n;
                        let item = items.get(i)?;
                        *n += 1;
                        started(item);
                        Some((i, item))
                    });
                    let Some((i, item)) = taken else { break };
                    if tx.send((i, work(item))).is_err() {
                        break;
                    }
                }
            });
        }
        drop(tx);
        let mut waiting = BTreeMap::new();
        let (mut want, mut count) = (0, 0);
        for (i, result) in rx {
            count += 1;
            finished(count);
            waiting.insert(i, result);
            while let Some(result) = waiting.remove(&want) {
                done(want, result);
                want += 1;
            }
        }
    });
}

/// Runs `f` on a thread of the blocking pool; a Ctrl-C meanwhile stops every command it runs
/// ([`stop_all`]). Returns its result and whether it was interrupted.
pub async fn interruptible<R: Send + 'static>(
    f: impl FnOnce() -> R + Send + 'static,
) -> Result<(R, bool), String> {
    let mut handle = tokio::task::spawn_blocking(f);
    tokio::select! {
        result = &mut handle => result.map(|r| (r, false)).map_err(|e| e.to_string()),
        () = ctrl_c() => {
            stop_all();
            handle.await.map(|r| (r, true)).map_err(|e| e.to_string())
        }
    }
}

fn kill_group(pid: u32) {
    if let Some(pid) = i32::try_from(pid)
        .ok()
        .and_then(rustix::process::Pid::from_raw)
    {
        let _ = rustix::process::kill_process_group(pid, rustix::process::Signal::KILL);
    }
}

/// Reads `from` to the end (at most `limit` bytes) on a thread, sending the text when done.
fn reader(mut from: impl Read + Send + 'static, limit: u64) -> mpsc::Receiver<String> {
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let mut bytes = Vec::new();
        let _ = (&mut from).take(limit).read_to_end(&mut bytes);
        // Drain the rest so the writer is not blocked on a full pipe.
        let _ = std::io::copy(&mut from, &mut std::io::sink());
        let _ = tx.send(String::from_utf8_lossy(&bytes).into_owned());
    });
    rx
}

/// Runs the user's `command` of `kind` through `sh -c` in `dir`, writing `input` to its stdin,
/// and waits for it at most `timeout`. Returns its stdout (the first MiB), or a one-line reason
/// when it cannot be run, fails, or is stopped.
pub fn run(
    kind: Kind,
    command: &str,
    dir: &Path,
    input: &str,
    timeout: Duration,
) -> Result<String, String> {
    run_with(kind, command, dir, input, timeout, &[])
}

/// [`run`] with extra environment variables (`REVIEW_TASK_FILE`, say).
#[expect(
    clippy::disallowed_methods,
    reason = "the one runner of the user's commands"
)]
pub fn run_with(
    kind: Kind,
    command: &str,
    dir: &Path,
    input: &str,
    timeout: Duration,
    vars: &[(&str, &str)],
) -> Result<String, String> {
    if stopping() {
        return Err("was not started: interrupted".to_owned());
    }
    let mut cmd = Command::new("sh");
    cmd.arg("-c")
        .arg(command)
        .current_dir(dir)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .process_group(0);
    if !passes_token(kind) {
        for var in token_variables() {
            cmd.env_remove(var);
        }
    }
    for (k, v) in vars {
        cmd.env(k, v);
    }
    let mut child = cmd
        .spawn()
        .map_err(|e| format!("cannot run `{command}`: {e}"))?;
    let pid = child.id();
    track(pid, true);
    if let Some(mut stdin) = child.stdin.take() {
        // A command that does not read its input closes the pipe early: that is its business.
        let input = input.to_owned();
        std::thread::spawn(move || {
            let _ = stdin.write_all(input.as_bytes());
        });
    }
    // Read the outputs on threads so a chatty command cannot fill a pipe and stall.
    let out = child.stdout.take().map(|o| reader(o, MAX_OUTPUT));
    let err = child.stderr.take().map(|e| reader(e, MAX_OUTPUT));
    let started = Instant::now();
    let status = loop {
        match child.try_wait() {
            Ok(Some(status)) => break Some(status),
            Ok(None) if started.elapsed() > timeout || stopping() => {
                kill_group(pid);
                let _ = child.kill();
                let _ = child.wait();
                break None;
            }
            Ok(None) => std::thread::sleep(Duration::from_millis(25)),
            Err(e) => {
                kill_group(pid);
                track(pid, false);
                return Err(format!("cannot wait for it: {e}"));
            }
        }
    };
    // Whatever it left running in its group goes with it.
    kill_group(pid);
    track(pid, false);
    let deadline = Instant::now() + DRAIN;
    let collect = |rx: Option<mpsc::Receiver<String>>| {
        rx.and_then(|rx| {
            rx.recv_timeout(deadline.saturating_duration_since(Instant::now()))
                .ok()
        })
        .unwrap_or_default()
    };
    let out = collect(out);
    let err = collect(err);
    let Some(status) = status else {
        if stopping() {
            return Err("was stopped: interrupted".to_owned());
        }
        return Err(format!(
            "did not finish within {} s and was stopped",
            timeout.as_secs()
        ));
    };
    if status.success() {
        return Ok(out);
    }
    let last = err
        .lines()
        .rev()
        .find(|l| !l.trim().is_empty())
        .unwrap_or("")
        .trim();
    if last.is_empty() {
        return Err(format!("exited with {status}"));
    }
    Err(format!("exited with {status}: {last}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn alive(pid: &str) -> bool {
        Path::new(&format!("/proc/{pid}")).exists()
            && std::fs::read_to_string(format!("/proc/{pid}/stat"))
                .is_ok_and(|s| !s.contains(") Z "))
    }

    #[test]
    fn a_stopped_command_takes_its_whole_group_with_it() {
        let dir = tempfile::tempdir().unwrap();
        let pids = dir.path().join("pids");
        let marker = dir.path().join("late");
        // A background child that would go on writing after its parent is stopped.
        let command = format!(
            "(sleep 2; touch {late}) & echo $! > {pids}; sleep 30",
            late = marker.display(),
            pids = pids.display()
        );
        let started = Instant::now();
        let result = run(
            Kind::Fixer,
            &command,
            dir.path(),
            "",
            Duration::from_millis(500),
        );
        assert!(result.unwrap_err().contains("was stopped"));
        assert!(started.elapsed() < Duration::from_secs(10));
        let child = std::fs::read_to_string(&pids).unwrap();
        std::thread::sleep(Duration::from_millis(200));
        assert!(!alive(child.trim()), "the background child was killed");
        std::thread::sleep(Duration::from_secs(3));
        assert!(!marker.exists(), "nothing ran after the stop");
    }

    #[test]
    fn a_background_child_holding_stderr_does_not_hang_the_tool() {
        let dir = tempfile::tempdir().unwrap();
        let started = Instant::now();
        // The command ends at once, leaving a child that keeps stdout and stderr open.
        let result = run(
            Kind::Checks,
            "sleep 60 & echo done",
            dir.path(),
            "",
            Duration::from_secs(30),
        );
        assert_eq!(result.unwrap().trim(), "done");
        assert!(
            started.elapsed() < Duration::from_secs(10),
            "{:?}",
            started.elapsed()
        );
    }
}
