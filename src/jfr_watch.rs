//! `heapgrowth watch --pid PID --jfr`: the watch of [`crate::watch`] for heaps too big to dump.
//! Instead of class histograms and heap dumps, a JFR recording of old-object samples
//! ([`crate::jfr`]) runs in the JVM; at each tick it is dumped with paths to GC roots, read,
//! deleted, and its samples feed [`OldObjectSearch`]. The watch ends once a class's samples keep
//! growing (the class-trend rule with its sample preset), on Ctrl-C, at the end of `--for` or
//! of input; the recording is stopped in every case.
//!
//! Interactive, each press of Enter dumps. At an interval, the recording starts at once and is
//! first dumped one interval later: a sample counts only once a collection ran after it.

use std::time::Instant;

use crate::attach::{OldObjectRecording, QueueSize, RecordingSettings, Target};
use crate::attribution::old_objects::sample_stacks;
use crate::engine::elapsed_ms;
use crate::growth::old_objects::{OldObjectConfig, OldObjectSearch};
use crate::growth::SearchOutcome;
use crate::jfr::JfrTool;
use crate::line::escape_line;
use crate::report::{LoopUnit, OldObjectReport, ScenarioReport, Subject, Timings};
use crate::tempdir::PrivateTempDir;
use crate::watch::{Pace, Tick, Ticks, WatchError, WatchEvent, WatchOptions};

/// Watches the JVM of `options` through old-object samples until a class grows or `ticks`
/// says stop. `options.trend` should be [`crate::growth::ClassTrendConfig::old_object_samples`]
/// (the histogram defaults are far too high for sample counts); `options.class_gate` does not
/// apply (no heap dump is ever taken). Errors before the first dump (no JFR, no `jfr` tool, a
/// recording that does not start) are errors; errors after it give a report with that error.
pub fn watch_old_objects(
    options: &WatchOptions,
    ticks: &mut dyn Ticks,
    events: &mut dyn FnMut(WatchEvent),
) -> Result<ScenarioReport, WatchError> {
    let mut search = OldObjectSearch::new(OldObjectConfig {
        trend: options.trend.clone(),
        ignore_rules: options.settings.ignore_rules.clone(),
    })
    .map_err(|e| WatchError::InvalidOptions(e.to_string()))?;
    let target = Target::check(options.pid)?;
    let jvm = target.attach_with(options.attach)?;
    let name = format!("pid {} ({})", options.pid, target.command());
    events(WatchEvent::Attached { name: &name });
    // Before anything starts in the JVM: a JRE without the tool is an error at once.
    let tool = JfrTool::for_jvm(options.pid)?;
    let queue = QueueSize::of(&jvm)?;
    let dir = PrivateTempDir::new("watch-jfr")?;
    let mut recording = OldObjectRecording::start(&jvm, dir.path(), RecordingSettings::default())?;
    events(WatchEvent::RecordingStarted {
        name: recording.name(),
        queue_size: queue.samples,
        queue_size_set_at_start: queue.set_at_start,
    });

    let mut timings = Timings::default();
    let mut position = 0u32;
    let mut stopped = None;
    let mut skip_first = options.pace == Pace::Periodic;
    // An error after the recording started ends the watch with a report of it.
    let result: Result<(), String> = loop {
        match ticks.next_tick() {
            Tick::Stop(reason) => {
                stopped = Some(reason);
                break Ok(());
            }
            Tick::Now(_) if std::mem::take(&mut skip_first) => continue,
            Tick::Now(repetitions) => position = position.saturating_add(repetitions.max(1)),
        }
        let started = Instant::now();
        let file = match recording.dump() {
            Ok(file) => file,
            Err(error) => break Err(error.to_string()),
        };
        timings.dump.push(elapsed_ms(started));
        let started = Instant::now();
        let read = tool.read(&file);
        // Read or not, the file goes: it holds the samples' stacks and chains.
        let _ = std::fs::remove_file(&file);
        let mut dump = match read {
            Ok(dump) => dump,
            Err(error) => break Err(error.to_string()),
        };
        timings.parse.push(elapsed_ms(started));
        if dump.samples.is_empty() {
            // No sample to carry the dump's time.
            dump.time = now_nanos();
        }
        let started = Instant::now();
        let counts = search.observe(&dump);
        timings.analysis.push(elapsed_ms(started));
        let selected = search.selected_rows();
        events(WatchEvent::OldObjectSamples {
            interval: timings.dump.len() as u32,
            samples: counts.counted(),
            selected: &selected,
        });
        if !selected.is_empty() {
            break Ok(());
        }
    };
    // Stopped here rather than on drop so the JVM is free of it before the report is written;
    // an error (the JVM ended) changes nothing.
    let _ = recording.stop();
    drop(dir);
    if let Some(reason) = stopped {
        events(WatchEvent::Stopped { reason });
    }
    let dumps = timings.dump.len() as u32;
    let mut report = ScenarioReport {
        subject: Subject::Jvm,
        loop_unit: LoopUnit::Snapshots,
        timings,
        ..ScenarioReport::failed(&name, String::new())
    };
    match result {
        Err(error) => report.result = Err(escape_line(&error)),
        Ok(()) => {
            let outcome = search.outcome();
            let stacks = outcome
                .growing
                .iter()
                .map(|class| {
                    class
                        .paths
                        .iter()
                        .map(|path| sample_stacks(&path.stacks))
                        .collect()
                })
                .collect();
            report.result = Ok(SearchOutcome {
                loops: position,
                snapshots: dumps,
                unmatched_rules: outcome.unmatched_rules.clone(),
                ..SearchOutcome::default()
            });
            report.old_objects = Some(OldObjectReport {
                outcome,
                stacks,
                queue,
            });
        }
    }
    Ok(report)
}

/// Nanoseconds since the Unix epoch, as JFR's event times.
fn now_nanos() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos() as i64)
}
