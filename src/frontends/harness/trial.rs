//! The parent side of a trial: runs the test binary again as a child process for one scenario
//! and turns what it reports, or how it died, into the trial's outcome.

use std::path::{Path, PathBuf};
use std::process::{Command, ExitStatus, Stdio};

use libtest_mimic::Failed;

use super::{crate_dir, RESULT_ENV, TRIAL_ENV};
use crate::tempdir::PrivateTempDir;

/// Lines of the child's output kept in a crash message.
const OUTPUT_TAIL_LINES: usize = 40;
/// Lines of the JVM's crash log (`hs_err`) kept in a crash message: its summary, down to the
/// problematic frame.
const CRASH_LOG_HEAD_LINES: usize = 16;
/// The JVM's crash log inside the trial's private directory.
pub(super) const CRASH_LOG: &str = "hs_err.log";

/// Starts child processes for trials.
pub(super) struct Spawner {
    exe: PathBuf,
    crate_dir: PathBuf,
    nocapture: bool,
}

/// What the child wrote before exiting.
enum Verdict {
    Pass,
    Fail(String),
}

impl Spawner {
    pub(super) fn new(nocapture: bool) -> Result<Spawner, String> {
        let exe = std::env::current_exe()
            .map_err(|e| format!("cannot find this test binary to run trials in: {e}"))?;
        Ok(Spawner {
            exe,
            crate_dir: crate_dir(),
            nocapture,
        })
    }

    /// Runs trial `name` in a child process and waits for it.
    pub(super) fn run(&self, name: &str) -> Result<(), Failed> {
        let dir = PrivateTempDir::new("trial")
            .map_err(|e| format!("cannot create a private directory for the trial: {e}"))?;
        let result_path = dir.path().join("result");
        let mut command = Command::new(&self.exe);
        command
            .env(TRIAL_ENV, name)
            .env(RESULT_ENV, &result_path)
            .env("CARGO_MANIFEST_DIR", &self.crate_dir)
            // Whatever the child leaves in the temporary directory (heap dumps, if the JVM
            // crashes before deleting them) goes into the trial's directory, deleted below.
            .env("TMPDIR", dir.path())
            .current_dir(&self.crate_dir)
            .stdin(Stdio::null());
        // insta finds the workspace with `cargo metadata` otherwise, once per child.
        if std::env::var_os("INSTA_WORKSPACE_ROOT").is_none() {
            command.env("INSTA_WORKSPACE_ROOT", &self.crate_dir);
        }
        let (status, output) = if self.nocapture {
            let status = command.status().map_err(|e| spawn_error(&self.exe, e))?;
            (status, String::new())
        } else {
            let output = command.output().map_err(|e| spawn_error(&self.exe, e))?;
            let mut text = String::from_utf8_lossy(&output.stdout).into_owned();
            text.push_str(&String::from_utf8_lossy(&output.stderr));
            (output.status, text)
        };
        match read_verdict(&result_path) {
            Some(Verdict::Pass) => Ok(()),
            Some(Verdict::Fail(message)) => {
                Err(with_output(with_crash_log(message, dir.path()), &output).into())
            }
            None => Err(crash_message(name, status, &output, dir.path()).into()),
        }
    }
}

fn spawn_error(exe: &Path, error: std::io::Error) -> String {
    format!("cannot start {} for the trial: {error}", exe.display())
}

fn read_verdict(path: &Path) -> Option<Verdict> {
    let text = std::fs::read_to_string(path).ok()?;
    let (first, rest) = text.split_once('\n').unwrap_or((&text, ""));
    match first {
        "pass" => Some(Verdict::Pass),
        "fail" => Some(Verdict::Fail(rest.to_owned())),
        _ => None,
    }
}

fn with_output(message: String, output: &str) -> String {
    if output.trim().is_empty() {
        message
    } else {
        format!(
            "{message}\n\noutput of the trial's process:\n{}",
            output.trim_end()
        )
    }
}

/// `message`, then the head of the JVM's crash log if the trial's JVM wrote one (a crash the
/// child reported itself, through the JVM's abort hook, as well as one it could not).
fn with_crash_log(mut message: String, dir: &Path) -> String {
    if let Ok(log) = std::fs::read_to_string(dir.join(CRASH_LOG)) {
        message.push_str("\n\nthe JVM's crash log begins:\n");
        for line in log.lines().take(CRASH_LOG_HEAD_LINES) {
            message.push_str(line);
            message.push('\n');
        }
    }
    message
}

/// The child ended without a verdict: the JVM crashed, or something ended the process.
fn crash_message(name: &str, status: ExitStatus, output: &str, dir: &Path) -> String {
    let mut message = format!(
        "the process running {name} ended with {} before reporting a result: the JVM crashed, \
         or the scenario ended the process (System.exit, Runtime.halt)",
        describe_status(status)
    );
    message = with_crash_log(message, dir);
    let lines: Vec<&str> = output.lines().collect();
    if !lines.is_empty() {
        message.push_str("\nlast lines of the trial's output:\n");
        message.push_str(&lines[lines.len().saturating_sub(OUTPUT_TAIL_LINES)..].join("\n"));
    }
    message
}

fn describe_status(status: ExitStatus) -> String {
    #[cfg(unix)]
    {
        use std::os::unix::process::ExitStatusExt;
        if let Some(signal) = status.signal() {
            let name = match signal {
                libc::SIGABRT => " (SIGABRT)",
                libc::SIGSEGV => " (SIGSEGV)",
                libc::SIGBUS => " (SIGBUS)",
                libc::SIGILL => " (SIGILL)",
                libc::SIGFPE => " (SIGFPE)",
                libc::SIGKILL => " (SIGKILL, perhaps out of memory)",
                libc::SIGTERM => " (SIGTERM)",
                _ => "",
            };
            return format!("signal {signal}{name}");
        }
    }
    match status.code() {
        Some(code) => format!("exit status {code}"),
        None => status.to_string(),
    }
}
