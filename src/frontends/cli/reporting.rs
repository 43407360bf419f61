//! How and where the report is written, and the exit status it gives; the one stderr line.

use std::io::Write;
use std::os::fd::FromRawFd;
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Mutex;

use super::args::{Format, OutputArgs};
use crate::engine::EngineError;
use crate::line::escape_line;
use crate::report::{self, ScenarioReport, StackDepth, EXIT_ERROR};
use crate::settings::WarnUnmatched;

/// How and where the report is written, and the exit status it gives.
pub(super) struct Reporting {
    format: Format,
    depth: StackDepth,
    sink: ReportSink,
    /// `--html FILE`, checked.
    html: Option<crate::output::OutputFile>,
    /// Which ignore rules that matched nothing are warned about.
    unmatched: WarnUnmatched,
    /// Set by the first [`Reporting::finish`]: the JVM's exit hook and the end of the run can
    /// both get there (a scenario's thread calling System.exit as the run ends).
    finished: AtomicBool,
}

impl Reporting {
    /// Checks `--output` and `--html` against each other and `inputs` (see
    /// [`crate::output::check_outputs`]), before any work.
    pub(super) fn new(
        args: &OutputArgs,
        inputs: &[&Path],
        unmatched: WarnUnmatched,
    ) -> Result<Reporting, String> {
        let mut outputs: Vec<(&str, &Path)> = Vec::new();
        outputs.extend(args.output.as_deref().map(|path| ("--output", path)));
        outputs.extend(args.html.as_deref().map(|path| ("--html", path)));
        let mut checked = crate::output::check_outputs(&outputs, inputs)
            .map_err(|e| e.to_string())?
            .into_iter();
        let output = args.output.as_ref().and_then(|_| checked.next());
        let html = args.html.as_ref().and_then(|_| checked.next());
        Ok(Reporting {
            format: args.format,
            depth: if args.full_stacks {
                StackDepth::Full
            } else {
                StackDepth::ToThePlaceToLook
            },
            sink: ReportSink::new(output),
            html,
            unmatched,
            finished: AtomicBool::new(false),
        })
    }

    /// Writes the report (or the run's error), the warnings and the error line; returns the exit
    /// status.
    pub(super) fn finish(&self, result: Result<Vec<ScenarioReport>, EngineError>) -> u8 {
        if self.finished.swap(true, Ordering::SeqCst) {
            // The other writer has the report; the JVM's end makes the status 2 anyway.
            return EXIT_ERROR;
        }
        let reports = match result {
            Ok(reports) => reports,
            Err(error) => {
                say(format_args!("{}", escape_line(&error.to_string())));
                return EXIT_ERROR;
            }
        };
        let text = match self.format {
            Format::Text => report::render_text(&reports, self.depth),
            Format::Json => format!("{}\n", report::to_json(&reports)),
        };
        if let Err(error) = self.sink.write(&text) {
            say(format_args!("{error}"));
            return EXIT_ERROR;
        }
        if let Some(html) = &self.html {
            let page = report::render_html(&reports);
            if let Err(error) = report::write_report_file(&html.target, &page) {
                say(format_args!(
                    "cannot write the HTML report to {}: {error}",
                    escape_line(&html.given.display().to_string())
                ));
                return EXIT_ERROR;
            }
        }
        for warning in self.unmatched.warnings(&reports) {
            say(format_args!("warning: {warning}"));
        }
        if let Some(failed) = reports.iter().find_map(|r| r.result.as_ref().err()) {
            // The first line is the error; the rest is a Java stack.
            say(format_args!(
                "{}",
                failed.lines().next().unwrap_or_default()
            ));
            return EXIT_ERROR;
        }
        report::exit_status(&reports)
    }
}

/// One `heapgrowth: ...` line on stderr. A stderr that cannot be written to (closed, full) is
/// no reason to panic or to change the exit status.
pub(super) fn say(message: std::fmt::Arguments) {
    let _ = writeln!(std::io::stderr().lock(), "heapgrowth: {message}");
}

/// Where the report goes: `--output FILE`, or the process's stdout. Either way stdout holds the
/// report alone: file descriptor 1 is pointed at stderr when the run starts, so what the JVM
/// and the scenarios print there (a library logging to `System.out`) goes to stderr, and the
/// report is written to a copy of the original stdout.
struct ReportSink {
    target: Target,
}

enum Target {
    Stdout(Mutex<std::fs::File>),
    /// There was no stdout (closed file descriptor 1): like a closed pipe.
    NoStdout,
    File(crate::output::OutputFile),
}

impl ReportSink {
    /// `output` checked by [`crate::output::check_outputs`].
    fn new(output: Option<crate::output::OutputFile>) -> ReportSink {
        // Safety: fcntl and dup2 on the process's standard descriptors; the duplicate is a new
        // descriptor that this process owns from here on, and is close-on-exec. Descriptor 1
        // is pointed at stderr even when it was closed: else the next file the JVM opens would
        // get number 1, and System.out would write into it.
        let saved = unsafe { libc::fcntl(libc::STDOUT_FILENO, libc::F_DUPFD_CLOEXEC, 3) };
        unsafe { libc::dup2(libc::STDERR_FILENO, libc::STDOUT_FILENO) };
        let target = match output {
            Some(output) => Target::File(output),
            // Safety: `saved` is an open descriptor that nothing else owns.
            None if saved >= 0 => {
                Target::Stdout(Mutex::new(unsafe { std::fs::File::from_raw_fd(saved) }))
            }
            None => Target::NoStdout,
        };
        ReportSink { target }
    }

    /// Writes `text`. A closed pipe (`heapgrowth run ... | head -1`) is not an error: the
    /// reader has what it wanted, as with any Unix tool.
    fn write(&self, text: &str) -> Result<(), String> {
        match &self.target {
            Target::NoStdout => Ok(()),
            Target::Stdout(file) => {
                let mut file = file.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
                match file.write_all(text.as_bytes()).and_then(|()| file.flush()) {
                    Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(()),
                    Err(e) => Err(format!("cannot write the report to stdout: {e}")),
                    Ok(()) => Ok(()),
                }
            }
            Target::File(output) => report::write_report_file(&output.target, text).map_err(|e| {
                format!(
                    "cannot write the report to {}: {e}",
                    escape_line(&output.given.display().to_string())
                )
            }),
        }
    }
}
