//! Running a user's external command (a reviewer or a fixer): `sh -c COMMAND` in a directory,
//! input on stdin, a time limit, and the last line of its stderr when it fails.
//!
//! What a command receives is data on stdin, never text spliced into its command line.

use std::io::{Read, Write};
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// The most of a command's stdout kept.
const MAX_OUTPUT: u64 = 1 << 20;

/// A fence marker from the operating system's random source: 128 bits, as hex.
pub fn random_marker() -> Result<String, String> {
    let mut bytes = [0u8; 16];
    std::fs::File::open("/dev/urandom")
        .and_then(|mut f| f.read_exact(&mut bytes))
        .map_err(|e| format!("cannot draw a fence marker: {e}"))?;
    Ok(bytes.iter().map(|b| format!("{b:02x}")).collect())
}

/// Runs `command` through `sh -c` in `dir`, writing `input` to its stdin, and waits for it at
/// most `timeout`. Returns its stdout (the first MiB), or a one-line reason when it cannot be
/// run, fails, or is stopped.
pub fn run(command: &str, dir: &Path, input: &str, timeout: Duration) -> Result<String, String> {
    let mut child = Command::new("sh")
        .arg("-c")
        .arg(command)
        .current_dir(dir)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| format!("cannot run `{command}`: {e}"))?;
    if let Some(mut stdin) = child.stdin.take() {
        // A command that does not read its input closes the pipe early: that is its business.
        let _ = stdin.write_all(input.as_bytes());
    }
    // Read the outputs on threads so a chatty command cannot fill a pipe and stall.
    let stdout = child.stdout.take();
    let out_reader = std::thread::spawn(move || {
        let mut text = String::new();
        if let Some(o) = stdout {
            let _ = o.take(MAX_OUTPUT).read_to_string(&mut text);
        }
        text
    });
    let stderr = child.stderr.take();
    let reader = std::thread::spawn(move || {
        let mut text = String::new();
        if let Some(mut e) = stderr {
            let _ = e.read_to_string(&mut text);
        }
        text
    });
    let started = Instant::now();
    let status = loop {
        match child.try_wait() {
            Ok(Some(status)) => break status,
            Ok(None) if started.elapsed() > timeout => {
                let _ = child.kill();
                let _ = child.wait();
                return Err(format!(
                    "did not finish within {} s and was stopped",
                    timeout.as_secs()
                ));
            }
            Ok(None) => std::thread::sleep(Duration::from_millis(25)),
            Err(e) => return Err(format!("cannot wait for it: {e}")),
        }
    };
    let err = reader.join().unwrap_or_default();
    let out = out_reader.join().unwrap_or_default();
    if status.success() {
        return Ok(out);
    }
    let last = err
        .lines()
        .rev()
        .find(|l| !l.trim().is_empty())
        .unwrap_or("")
        .trim();
    Err(format!("exited with {status}: {last}"))
}
