//! A JFR old-object recording in a JVM and the search over its dumps: one mechanism for every
//! front end that samples instead of dumping the heap. `heapgrowth watch --jfr` records a JVM
//! it attached to; `run --jfr`, the cargo harness and the JUnit extension with their JFR option
//! record the JVM the scenario runs in, attached to from within its own process (the attach
//! protocol does not care who asks, [`attach_to_this_process`]).
//!
//! Each [`OldObjectSession::sample`] dumps the recording with paths to GC roots into a private
//! directory, reads it with the JDK's `jfr` tool, deletes it, and folds its samples into an
//! [`OldObjectSearch`]; [`OldObjectSession::finish`] stops the recording and makes the report.

use std::time::{Duration, Instant};

use crate::attach::{
    AttachError, AttachedJvm, OldObjectRecording, QueueSize, RecordingSettings, Target,
};
use crate::growth::old_objects::{DumpCounts, OldObjectSearch};
use crate::growth::{SearchOutcome, TrendRow};
use crate::jfr::{JfrError, JfrTool};
use crate::line::escape_line;
use crate::report::{elapsed_ms, LoopUnit, OldObjectReport, ScenarioReport, Subject, Timings};
use crate::tempdir::PrivateTempDir;

/// Why a recording could not start. Each message is one line that says what to do.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum RecordingError {
    /// Attaching, or starting the recording (Flight Recorder disabled, a runtime without the
    /// `jdk.jfr` module).
    #[error(transparent)]
    Attach(#[from] AttachError),
    /// No `jfr` tool to read recordings with.
    #[error(transparent)]
    Jfr(#[from] JfrError),
    /// The private directory for recordings could not be made.
    #[error("cannot create a private directory for JFR recordings: {0}")]
    TempDir(#[from] std::io::Error),
}

/// The JVM this process runs (embedded, or the test JVM that loaded heapgrowth), attached to
/// through its attach listener like any other. The JVM heapgrowth starts runs with `-Xrs` (its
/// own signal handlers must delete the dumps), so it cannot be woken by SIGQUIT: it is started
/// with `-XX:+StartAttachListener` when a JFR option asks for this.
pub fn attach_to_this_process() -> Result<AttachedJvm, AttachError> {
    Target::check(std::process::id())?.attach()
}

/// A running old-object recording and the search over its dumps.
pub struct OldObjectSession {
    tool: JfrTool,
    queue: QueueSize,
    search: OldObjectSearch,
    timings: Timings,
    /// Stopped in [`OldObjectSession::finish`], else when dropped.
    recording: OldObjectRecording,
    /// The JVM, to count its collections.
    jvm: AttachedJvm,
    /// Its collections when the recording started, if its counters can be read.
    collections_at_start: Option<u64>,
    /// Collections from the start to the last dump, as the JVM's counters say.
    collections: Option<u64>,
    /// Full collections run for the session ([`OldObjectSession::collected`]): a JVM without
    /// the performance counters (one embedded through the invocation API has no
    /// `PerfCounter.print`) ran at least those.
    forced_collections: u64,
    /// `forced_collections` at the dump before.
    forced_at_last_dump: u64,
    /// Holds the settings and each dump until it is read; after `recording`, so it is removed
    /// once the recording is stopped.
    _dir: PrivateTempDir,
}

impl OldObjectSession {
    /// Finds the `jfr` tool of `jvm`'s JDK and the JVM's queue size, then starts the recording,
    /// whose dumps `search` will judge. A JDK without the tool is an error before anything
    /// starts in the JVM.
    pub fn start(
        jvm: &AttachedJvm,
        mut search: OldObjectSearch,
    ) -> Result<OldObjectSession, RecordingError> {
        let tool = JfrTool::for_jvm(jvm.pid())?;
        let queue = QueueSize::of(jvm)?;
        let dir = PrivateTempDir::new("jfr")?;
        let collections_at_start = jvm.collections();
        search.recording_started(now_nanos());
        let recording = OldObjectRecording::start(jvm, dir.path(), RecordingSettings::default())?;
        Ok(OldObjectSession {
            tool,
            queue,
            search,
            timings: Timings::default(),
            recording,
            jvm: jvm.clone(),
            collections_at_start,
            collections: None,
            forced_collections: 0,
            forced_at_last_dump: 0,
            _dir: dir,
        })
    }

    /// The recording's name in the JVM.
    pub fn recording_name(&self) -> &str {
        self.recording.name()
    }

    /// The JVM's old-object queue.
    pub fn queue(&self) -> QueueSize {
        self.queue
    }

    /// Dumps the recording, reads and deletes the file, and folds the samples into the search.
    /// The error is one line for the report.
    pub fn sample(&mut self) -> Result<DumpCounts, String> {
        let started = Instant::now();
        let file = self.recording.dump().map_err(|e| e.to_string())?;
        self.timings.dump.push(elapsed_ms(started));
        if let (Some(before), Some(now)) = (self.collections_at_start, self.jvm.collections()) {
            self.collections = Some(now.saturating_sub(before));
        }
        let started = Instant::now();
        let read = self.tool.read(&file);
        // Read or not, the file goes: it holds the samples' stacks and chains.
        let _ = std::fs::remove_file(&file);
        let mut dump = read.map_err(|e| e.to_string())?;
        self.timings.parse.push(elapsed_ms(started));
        if dump.samples.is_empty() {
            // No sample to carry the dump's time.
            dump.time = now_nanos();
        }
        let started = Instant::now();
        let full_collection = self.forced_collections > self.forced_at_last_dump;
        self.forced_at_last_dump = self.forced_collections;
        let counts = self.search.observe(&dump, full_collection);
        self.timings.analysis.push(elapsed_ms(started));
        Ok(counts)
    }

    /// How long reading the last dump took (the `jfr` tool).
    pub fn last_read_time(&self) -> Duration {
        Duration::from_millis(self.timings.parse.last().copied().unwrap_or(0))
    }

    /// Dumps so far.
    pub fn dumps(&self) -> u32 {
        self.timings.dump.len() as u32
    }

    /// The classes the trend selects now: growth, once there is one.
    pub fn selected_rows(&self) -> Vec<TrendRow> {
        self.search.selected_rows()
    }

    /// Whether the samples show growth: a class the trend selects, or a common path of
    /// survivors spread over the recording.
    pub fn found_growth(&self) -> bool {
        !self.search.selected_classes().is_empty() || self.search.has_survivors()
    }

    /// Collections from the recording's start to the last dump, if known: the JVM's count,
    /// else at least those run for the session.
    pub fn collections(&self) -> Option<u64> {
        match self.collections {
            Some(counted) => Some(counted.max(self.forced_collections)),
            None => (self.forced_collections > 0).then_some(self.forced_collections),
        }
    }

    /// Counts a full collection the caller ran in the JVM (`run --jfr` runs one before each
    /// dump).
    pub fn collected(&mut self) {
        self.forced_collections += 1;
    }

    /// Runs a full collection in the JVM through the attach listener, so that samples move
    /// (`watch --jfr --gc-every`).
    pub fn collect_garbage(&mut self) -> Result<(), String> {
        self.jvm.collect_garbage().map_err(|e| e.to_string())?;
        self.collected();
        Ok(())
    }

    /// Stops the recording and reports on `subject` after `loops` (in `unit`); `result` is the
    /// error that ended the sampling, if one did.
    pub fn finish(
        self,
        name: &str,
        subject: Subject,
        unit: LoopUnit,
        loops: u32,
        result: Result<(), String>,
    ) -> ScenarioReport {
        // Stopped before the report is written, so the JVM is free of it; an error (the JVM
        // ended) changes nothing.
        let collections = self.collections();
        let _ = self.recording.stop();
        let mut report = ScenarioReport {
            subject,
            loop_unit: unit,
            timings: self.timings,
            ..ScenarioReport::failed(name, String::new())
        };
        match result {
            Err(error) => report.result = Err(escape_line(&error)),
            Ok(()) => {
                let outcome = self.search.outcome();
                report.result = Ok(SearchOutcome {
                    loops,
                    snapshots: report.timings.dump.len() as u32,
                    unmatched_rules: outcome.unmatched_rules.clone(),
                    ..SearchOutcome::default()
                });
                let mut samples = OldObjectReport::new(outcome, self.queue);
                samples.collections = collections;
                report.old_objects = Some(samples);
            }
        }
        report
    }
}

/// Nanoseconds since the Unix epoch, as JFR's event times.
fn now_nanos() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos() as i64)
}
