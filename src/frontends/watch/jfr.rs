//! `heapgrowth watch --pid PID --jfr`: the watch of [`crate::watch`] for heaps too big to dump.
//! Instead of class histograms and heap dumps, a JFR recording of old-object samples
//! ([`OldObjectSession`]) runs in the JVM; at each tick it is dumped with paths to GC roots,
//! read, deleted, and its samples are judged. The watch ends once a class's samples keep
//! growing (the class-trend rule with its sample preset), on Ctrl-C, at the end of `--for` or
//! of input; the recording is stopped in every case.
//!
//! Interactive, each press of Enter dumps. At an interval, the recording starts at once and is
//! first dumped one interval later: a sample counts only once a collection ran after it. With
//! `--gc-every`, heapgrowth runs a full collection before a dump when that long has passed
//! since its last: a JVM that does not collect on its own gives no sample to judge (the report
//! is then inconclusive, and says how many collections ran).

use std::time::Instant;

use crate::attach::Target;
use crate::growth::old_objects::{OldObjectConfig, OldObjectSearch};
use crate::old_object_session::OldObjectSession;
use crate::report::{LoopUnit, ScenarioReport, Subject};
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
    let search = OldObjectSearch::new(OldObjectConfig {
        trend: options.trend.clone(),
        ignore_rules: options.settings.ignore_rules.clone(),
    })
    .map_err(|e| WatchError::InvalidOptions(e.to_string()))?;
    let target = Target::check(options.pid)?;
    let jvm = target.attach_with(options.attach)?;
    let name = format!("pid {} ({})", options.pid, target.command());
    events(WatchEvent::Attached { name: &name });
    let mut session = OldObjectSession::start(&jvm, search)?;
    events(WatchEvent::RecordingStarted {
        name: session.recording_name(),
        queue_size: session.queue().samples,
        queue_size_set_at_start: session.queue().set_at_start,
    });

    let mut position = 0u32;
    let mut stopped = None;
    let mut skip_first = options.pace == Pace::Periodic;
    // When heapgrowth last ran a collection (`--gc-every`).
    let mut last_collection: Option<Instant> = None;
    // Why the JVM ended the watch, if it did.
    let mut ended = None;
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
        if let Some(every) = options.gc_every {
            if !last_collection.is_some_and(|at: Instant| at.elapsed() < every) {
                if let Err(error) = session.collect_garbage() {
                    break Err(error);
                }
                last_collection = Some(Instant::now());
            }
        }
        let counts = match session.sample() {
            Ok(counts) => counts,
            // The JVM ended: the samples so far are the report, and say so.
            Err(error) if !jvm.is_running() => {
                ended = Some(error);
                break Ok(());
            }
            Err(error) => break Err(error),
        };
        let selected = session.selected_rows();
        events(WatchEvent::OldObjectSamples {
            interval: session.dumps(),
            samples: counts.counted(),
            selected: &selected,
        });
        if session.found_growth() {
            break Ok(());
        }
    };
    let mut report = session.finish(&name, Subject::Jvm, LoopUnit::Snapshots, position, result);
    if let Some(error) = ended {
        report.cut_short = Some(format!(
            "the JVM ended during the watch: {}",
            crate::line::escape_line(&error)
        ));
    }
    if let Some(reason) = stopped {
        events(WatchEvent::Stopped { reason });
    }
    Ok(report)
}
