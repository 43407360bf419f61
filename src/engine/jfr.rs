//! `--jfr`: the loops with a JFR old-object recording instead of heap dumps, for heaps too big
//! to dump.

use std::time::{Duration, Instant};

use super::{describe, Driver, Progress, ScenarioError, SearchSettings};
use crate::growth::old_objects::{OldObjectConfig, OldObjectSearch};
use crate::jvm::JvmError;
use crate::line::escape_line;
use crate::old_object_session::{attach_to_this_process, OldObjectSession, RecordingError};
use crate::report::{LoopUnit, ScenarioReport, Subject};

/// Loop time between two dumps of the JFR recording (`--jfr`): samples are taken by allocated
/// bytes, so an interval must allocate enough to sample, and it should be long next to the
/// dump and its reading (about half a second).
pub const JFR_INTERVAL: Duration = Duration::from_secs(1);

/// Dumps of the recording after which a scenario none of whose classes qualified is clean: the
/// sample preset of the class trend needs 3 qualifying dumps in a row after its rise shows,
/// which took 9 to 10 dumps for a leak of 4 KiB per millisecond loop beside 16 KiB of garbage
/// (`run --jfr` and a JUnit test); 16 leaves room for one that allocates less.
pub const MAX_JFR_DUMPS: u32 = 16;

/// The most loops of one interval. What a leak keeps, every collection and every dump's walk
/// of the heap for paths to GC roots (JFR's own, at a safepoint) must go over again: the
/// bundled example, a microsecond a loop, kept 3 million loops' worth of items by its ninth
/// one-second interval, whose dump then took 2 s and the process 1.1 GB (16 dumps never
/// ended within 300 s on a quiet machine). 20,000 loops of it allocate about 10 MB, plenty for
/// samples, and 16 intervals of them keep about 2 million objects.
pub const MAX_JFR_LOOPS_PER_INTERVAL: u32 = 20_000;

/// When the heap walks of a dump (the collection and the recording's dump) take longer than
/// an interval of loops, the next interval runs half the loops, down to a sixteenth of
/// [`MAX_JFR_LOOPS_PER_INTERVAL`]: the heap they walk grows with what the scenario keeps,
/// and halving bounds what is added after that. Not less: a first dump of the recording
/// takes 100 to 400 ms whatever the heap (JFR starting up), and a leak needs loops to show
/// (one run here halved down to nothing and read flat counts as clean).
const JFR_DUMP_COST_SHARE: f64 = 1.0;

/// How many batches an interval's loops run in: the clock is read between batches, so an
/// interval (and the time budget) is kept to within a tenth of an interval's loops.
const JFR_BATCHES_PER_INTERVAL: u32 = 10;

/// `--jfr`: the scenario's loops with a JFR old-object recording running in its JVM, attached
/// to from this process, one dump of the recording after each [`JFR_INTERVAL`] of loops (at
/// most [`MAX_JFR_LOOPS_PER_INTERVAL`]) and a full collection (a sample counts once a
/// collection ran after it). It ends when a class's samples qualify in the class trend or
/// survivors are spread over the recording, after [`MAX_JFR_DUMPS`] dumps, or when the time
/// budget runs out: an interval is cut where its loops and the dump after them would pass
/// the budget, so the run ends within it but for the dump in progress. The growing classes'
/// allocation stacks are the attribution.
pub(super) fn sample_old_objects(
    driver: &mut dyn Driver,
    name: &str,
    settings: &SearchSettings,
    progress: &Progress,
) -> ScenarioReport {
    let started = Instant::now();
    let deadline = started + settings.time_budget;
    progress.show(format_args!("{name}: warm-up"));
    if let Err(error) = driver.run_loops(settings.warmup) {
        return ScenarioReport::failed(name, describe(ScenarioError::Jvm(error)));
    }
    let search = OldObjectSearch::new(OldObjectConfig {
        ignore_rules: settings.ignore_rules.clone(),
        ..OldObjectConfig::default()
    })
    .expect("the sample preset is valid");
    let session = attach_to_this_process()
        .map_err(RecordingError::from)
        .and_then(|jvm| OldObjectSession::start(&jvm, search));
    let mut session = match session {
        Ok(session) => session,
        Err(error) => return ScenarioReport::failed(name, escape_line(&error.to_string())),
    };
    let mut per_loop = started.elapsed() / settings.warmup.max(1);
    let mut most_loops = MAX_JFR_LOOPS_PER_INTERVAL;
    // The last dump's whole cost: collection, recording dump, reading.
    let mut dump_cost = Duration::ZERO;
    // The dumps taken when the time budget ended the sampling undecided.
    let mut budget_cut = None;
    let result = loop {
        // The loops stop where the dump after them, as long as the last, still ends in time.
        let interval_end =
            (Instant::now() + JFR_INTERVAL).min(deadline - dump_cost.min(settings.time_budget));
        if Instant::now() >= interval_end {
            budget_cut = Some(session.dumps());
            break Ok(());
        }
        let first = driver.loops_run() + 1;
        progress.show(format_args!(
            "{name}: loops from {first}: JFR dump {} next",
            session.dumps() + 1
        ));
        let ran = run_until(driver, interval_end, most_loops, &mut per_loop);
        let dump_started = Instant::now();
        if let Err(error) = ran.and_then(|()| driver.collect_garbage()) {
            break Err(describe(ScenarioError::Jvm(error)));
        }
        session.collected();
        if let Err(error) = session.sample() {
            break Err(error);
        }
        dump_cost = dump_started.elapsed();
        // What grows with the heap: the collection and the recording's dump, not the
        // reading, which is the `jfr` tool's start-up.
        let heap_walks = dump_started.elapsed() - session.last_read_time();
        if heap_walks.as_secs_f64() > JFR_DUMP_COST_SHARE * JFR_INTERVAL.as_secs_f64() {
            most_loops = (most_loops / 2).max(MAX_JFR_LOOPS_PER_INTERVAL / 16);
        }
        if session.found_growth() || session.dumps() >= MAX_JFR_DUMPS {
            break Ok(());
        }
    };
    let mut report = session.finish(
        name,
        Subject::Scenario,
        LoopUnit::Loops,
        driver.loops_run(),
        result,
    );
    if let (Some(dumps), Some(samples)) = (budget_cut, report.old_objects.as_mut()) {
        samples.stopped_early = Some(format!(
            "the time budget ({} s) ran out after {dumps} of the {MAX_JFR_DUMPS} JFR dumps a \
             search takes, with no class selected yet: growth that needs more dumps to show is \
             not ruled out (give it a larger time budget)",
            settings.time_budget.as_secs()
        ));
    }
    report
}

/// Runs loops in batches until `end` or `most` loops, whichever comes first, at least one;
/// `per_loop` is the time one took so far, updated.
fn run_until(
    driver: &mut dyn Driver,
    end: Instant,
    most: u32,
    per_loop: &mut Duration,
) -> Result<(), JvmError> {
    let mut ran = 0;
    while ran < most {
        let left = end.saturating_duration_since(Instant::now());
        if left.is_zero() && ran > 0 {
            break;
        }
        let batch = loops_for(JFR_INTERVAL / JFR_BATCHES_PER_INTERVAL, *per_loop)
            .min(loops_for(left, *per_loop))
            .min(most - ran);
        let started = Instant::now();
        driver.run_loops(batch)?;
        *per_loop = started.elapsed() / batch;
        ran += batch;
    }
    Ok(())
}

/// Loops that take about `interval` at `per_loop` each, at least one; at most a million, so
/// that a loop that does nothing measurable still reaches its dump.
fn loops_for(interval: Duration, per_loop: Duration) -> u32 {
    const MOST: u32 = 1_000_000;
    let per_loop = per_loop.as_secs_f64().max(1e-9);
    (interval.as_secs_f64() / per_loop).clamp(1.0, f64::from(MOST)) as u32
}
