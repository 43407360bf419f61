//! The loop every front end that runs a scenario shares, written once against [`Driver`]:
//! warm-up, then the scenario as a [`SnapshotSource`] (a settle and a live dump per snapshot,
//! the loops between snapshots within the time budget), then attribution.

use std::collections::VecDeque;
use std::path::Path;
use std::time::Instant;

use super::budget::Budget;
use super::jfr::sample_old_objects;
use super::source::search_snapshots;
use super::{
    describe, Advance, Progress, ScenarioError, SearchSettings, Snapshot, SnapshotSource,
    RETAKE_AFTER,
};
use crate::attribution::{attribution_loops, Attribution};
use crate::growth::{ConfirmationCut, GrowingNode, SearchOutcome};
use crate::jvm::JvmError;
use crate::report::{elapsed_ms, LoopUnit, ScenarioReport, Subject, Timings};

/// One scenario as the engine sees it: something that runs loops, in a JVM that can dump its
/// heap.
pub trait Driver {
    /// Runs `count` more loops.
    fn run_loops(&mut self, count: u32) -> Result<(), JvmError>;
    /// Loops run so far.
    fn loops_run(&self) -> u32;
    /// Waits, up to a bound, for work the loops handed to other threads to finish (the common
    /// `ForkJoinPool`, threads the scenario started, the tick of its timer threads), so a dump
    /// doesn't catch it half done. Whether it finished within its bounds: `false` when it was
    /// cut short (the report says so).
    fn settle(&mut self) -> Result<bool, JvmError>;
    /// Runs a full collection and waits for the cleanup it starts (the engine runs one a fixed
    /// number of loops before every dump).
    fn collect_garbage(&mut self) -> Result<(), JvmError>;
    /// Writes a live heap dump of the scenario's JVM to `path` (a new `.hprof` file).
    fn dump_heap(&mut self, path: &Path) -> Result<(), JvmError>;
    /// Runs `loops` more loops with a recorder on `node` and says which code grew it; `None`
    /// when attribution is switched off. Drivers without access to the scenario's objects keep
    /// this default.
    fn attribute(&mut self, node: &GrowingNode, loops: u32) -> Option<Attribution> {
        let _ = (node, loops);
        Some(Attribution::not_attributed(
            "this front end gives attribution no access to the scenario's JVM objects",
        ))
    }
}

/// Runs the growth search on one scenario: warm-up, snapshots into `dumps` (each deleted once
/// read), confirmation, attribution; with [`SearchSettings::jfr`], JFR old-object samples
/// instead of heap dumps. Never fails as a whole: a failing scenario gives a report with its
/// error.
pub fn search(
    driver: &mut dyn Driver,
    name: &str,
    settings: &SearchSettings,
    dumps: &Path,
    progress: &Progress,
) -> ScenarioReport {
    if settings.jfr {
        return sample_old_objects(driver, name, settings, progress);
    }
    let mut timings = Timings::default();
    let mut attributions = Vec::new();
    let mut kept = VecDeque::new();
    let mut settling_cut_short = Vec::new();
    let result = warm_up(driver, name, settings, progress)
        .and_then(|budget| {
            let mut source = LoopedScenario {
                driver: &mut *driver,
                name,
                tail: settings.search.loops_per_snapshot,
                budget,
                snapshot_started: Instant::now(),
                progress,
                settling_cut_short: &mut settling_cut_short,
            };
            search_snapshots(
                &mut source,
                name,
                settings,
                dumps,
                &mut timings,
                &mut kept,
                progress,
            )
        })
        .inspect(|outcome| {
            attributions = attribute(driver, name, outcome, &mut timings, progress);
        })
        .map_err(describe);
    ScenarioReport {
        result,
        attributions,
        timings,
        kept_dumps: kept.into(),
        settling_cut_short,
        ..ScenarioReport::failed(name, String::new())
    }
}

/// Attribution: the loops again, one growing node at a time, with a recorder on it.
fn attribute(
    driver: &mut dyn Driver,
    name: &str,
    outcome: &SearchOutcome,
    timings: &mut Timings,
    progress: &Progress,
) -> Vec<Option<Attribution>> {
    outcome
        .growing
        .iter()
        .map(|node| {
            let loops = attribution_loops(node);
            let target = node
                .path
                .last()
                .map(ToString::to_string)
                .unwrap_or_default();
            progress.show(format_args!("{name}: attributing {target}"));
            let started = Instant::now();
            let found = driver.attribute(node, loops);
            timings.attribution.push(elapsed_ms(started));
            found
        })
        .collect()
}

/// Warm-up loops before the first snapshot; the time budget starts with them.
fn warm_up(
    driver: &mut dyn Driver,
    name: &str,
    settings: &SearchSettings,
    progress: &Progress,
) -> Result<Budget, ScenarioError> {
    progress.show(format_args!("{name}: warm-up"));
    let started = Instant::now();
    let mut budget = Budget::new(settings.time_budget, started);
    driver.run_loops(settings.warmup)?;
    budget.ran_loops(settings.warmup, started.elapsed());
    Ok(budget)
}

/// A [`Driver`]'s scenario as a [`SnapshotSource`]: a snapshot is a settle and a live dump, and
/// the loops between snapshots run within the time budget.
struct LoopedScenario<'a> {
    driver: &'a mut dyn Driver,
    name: &'a str,
    /// Loops run after the full collection before a dump ([`run_gap`]).
    tail: u32,
    budget: Budget,
    /// When the last snapshot started: its whole cost (settle, dump, read, analysis) sizes
    /// the room left for the next.
    snapshot_started: Instant,
    progress: &'a Progress,
    /// The loops at which a snapshot's settling was cut short, for the report.
    settling_cut_short: &'a mut Vec<u32>,
}

impl SnapshotSource for LoopedScenario<'_> {
    fn subject(&self) -> Subject {
        Subject::Scenario
    }

    fn unit(&self) -> LoopUnit {
        LoopUnit::Loops
    }

    fn position(&self) -> u32 {
        self.driver.loops_run()
    }

    fn take_snapshot(&mut self, new_dump: &Path) -> Result<Snapshot, ScenarioError> {
        let (name, loops) = (self.name, self.driver.loops_run());
        self.snapshot_started = Instant::now();
        self.progress
            .show(format_args!("{name}: loop {loops}: settling"));
        // A retake's settle is at the loops of the snapshot before: listed once.
        if !self.driver.settle()? && self.settling_cut_short.last() != Some(&loops) {
            self.settling_cut_short.push(loops);
        }
        self.progress
            .show(format_args!("{name}: loop {loops}: dumping"));
        let started = Instant::now();
        self.driver.dump_heap(new_dump)?;
        Ok(Snapshot::Written {
            dump_ms: elapsed_ms(started),
        })
    }

    fn dumps_this_process(&self) -> bool {
        // Every driver's JVM is the one in this process (JNI allows one).
        true
    }

    fn prepare_retake(&mut self) -> Result<bool, ScenarioError> {
        self.budget.took_snapshot(self.snapshot_started.elapsed());
        if !self.budget.affords(RETAKE_AFTER) {
            return Ok(false);
        }
        let (name, loops) = (self.name, self.driver.loops_run());
        self.progress.show(format_args!(
            "{name}: loop {loops}: waiting {} ms to take the snapshot again",
            RETAKE_AFTER.as_millis()
        ));
        std::thread::sleep(RETAKE_AFTER);
        Ok(true)
    }

    fn advance(&mut self, requested: u32) -> Result<Advance, ScenarioError> {
        self.budget.took_snapshot(self.snapshot_started.elapsed());
        let count = self.budget.affordable_loops(requested);
        if count == 0 {
            return Ok(Advance::End(ConfirmationCut::TimeBudget));
        }
        let (name, loops) = (self.name, self.driver.loops_run());
        self.progress
            .show(format_args!("{name}: loop {loops}, running {count} loops"));
        let started = Instant::now();
        run_gap(self.driver, count, self.tail)?;
        self.budget.ran_loops(count, started.elapsed());
        Ok(if count < requested {
            Advance::Last(ConfirmationCut::TimeBudget)
        } else {
            Advance::Ready
        })
    }
}

/// Runs the `count` loops between two snapshots, with a full collection `tail` loops before
/// the end. Some garbage is cleaned up only after the collection that finds it, when the code
/// holding it next runs (a `WeakHashMap` expunges stale entries on its next use; a cleaner
/// thread unlinks its cleanables): a dump holds what the loops since the last collection left.
/// With the collection at a fixed distance before every dump, that is the same amount at
/// every snapshot, however far apart snapshots are, and is not mistaken for growth.
fn run_gap(driver: &mut dyn Driver, count: u32, tail: u32) -> Result<(), JvmError> {
    if count <= tail {
        return driver.run_loops(count);
    }
    driver.run_loops(count - tail)?;
    driver.collect_garbage()?;
    driver.run_loops(tail)
}
