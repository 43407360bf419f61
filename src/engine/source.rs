//! Where a search's snapshots come from ([`SnapshotSource`]), and the snapshot loop every front
//! end shares: take a snapshot, read it, analyse it, delete it.

use std::collections::VecDeque;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::time::Instant;

use super::dumps::done_with;
use super::{describe, Progress, ScenarioError, SearchSettings};
use crate::growth::{ConfirmationCut, GrowthSearch, NextStep, SearchOutcome};
use crate::report::{elapsed_ms, LoopUnit, ScenarioReport, Subject, Timings};

/// Numbers the heap dumps of this process.
static NEXT_DUMP: AtomicU64 = AtomicU64::new(1);

/// Objects in the last heap dump read of the JVM in this process (0: none yet). A process has
/// at most one JVM, whose heap changes little from one scenario or test method to the next, so
/// a search's first dump is read while written into room for this many objects, instead of
/// room that grows as objects come.
static OWN_JVM_DUMP_OBJECTS: AtomicUsize = AtomicUsize::new(0);

/// Runs the growth search over the snapshots of `source` (heap dumps given, a JVM attached
/// to), with the same reading, analysis and deletion of dumps as [`search`](super::search).
/// `settings`' warm-up and time budget are the source's business.
pub fn search_source(
    source: &mut dyn SnapshotSource,
    name: &str,
    settings: &SearchSettings,
    dumps: &Path,
    progress: &Progress,
) -> ScenarioReport {
    let mut timings = Timings::default();
    let mut kept = VecDeque::new();
    let result = search_snapshots(
        source,
        name,
        settings,
        dumps,
        &mut timings,
        &mut kept,
        progress,
    )
    .map_err(describe);
    ScenarioReport {
        result,
        timings,
        kept_dumps: kept.into(),
        subject: source.subject(),
        loop_unit: source.unit(),
        not_attributed: source.not_attributed(),
        ..ScenarioReport::failed(name, String::new())
    }
}

/// Where the snapshots of one search come from: a scenario heapgrowth runs in loops (a
/// [`Driver`](super::Driver), in [`search`](super::search)), heap dumps the user gives, a
/// running JVM heapgrowth attached to. [`search_source`] reads each snapshot, feeds it to the
/// growth search and deletes it.
pub trait SnapshotSource {
    /// What the source is, for the report.
    fn subject(&self) -> Subject;
    /// What the source's positions count.
    fn unit(&self) -> LoopUnit;
    /// Where the source is now: loops run, dumps read, snapshots taken.
    fn position(&self) -> u32;
    /// The next snapshot: a heap dump the source writes to `new_dump` (a new file in the
    /// private directory), or one that already exists.
    fn take_snapshot(&mut self, new_dump: &Path) -> Result<Snapshot, ScenarioError>;
    /// Gets ready for the next snapshot, after the search asked for `requested` more loops
    /// (a source that runs no loops moves on by one).
    fn advance(&mut self, requested: u32) -> Result<Advance, ScenarioError>;
    /// Called after each snapshot has been analysed, with the search so far (to show progress).
    fn after_snapshot(&mut self, search: &GrowthSearch) {
        let _ = search;
    }
    /// Whether every snapshot the source has must be read, even once the search has what it
    /// needs (dumps the user gave: the report then shows the last one's values).
    fn reads_to_the_end(&self) -> bool {
        false
    }
    /// Why the source cannot attribute growth, said once in the report; `None` where it can.
    fn not_attributed(&self) -> Option<String> {
        None
    }
    /// Gets ready to take the snapshot a search asks for before confirming candidates
    /// ([`NextStep::Retake`]): the same position again, after
    /// [`RETAKE_AFTER`](super::RETAKE_AFTER). `false` when it cannot (a source that runs no
    /// loops, no time left); the candidates are then confirmed as they stand.
    fn prepare_retake(&mut self) -> Result<bool, ScenarioError> {
        Ok(false)
    }
    /// Whether the source's dumps are of the JVM in this process, not of another JVM or files:
    /// a search of such a source expects its first dump to hold about as many objects as the
    /// last dump of that JVM any search read.
    fn dumps_this_process(&self) -> bool {
        false
    }
    /// Whether [`take_snapshot`](Self::take_snapshot) writes new dumps (a JVM dumping), which
    /// are read as they are written; a source of existing files (`diff`) says no, and no
    /// thread then watches for a file that never comes.
    fn writes_dumps(&self) -> bool {
        true
    }
}

/// A reader of the dump `source` is about to write at `new_dump`, for a source that writes
/// dumps; `None` for one that reads existing files.
pub(crate) fn follower_for(
    source: &dyn SnapshotSource,
    new_dump: &Path,
    expected_objects: Option<usize>,
) -> Option<crate::hprof::DumpFollower> {
    source
        .writes_dumps()
        .then(|| crate::hprof::DumpFollower::start(new_dump, expected_objects))
}

/// About how many objects a search's next dump holds, for reading it while it is written: the
/// last dump's count, and before a search's first dump, for a source that dumps the JVM in this
/// process, the last count any search read of it (kept in `shared`).
pub(super) struct ObjectCountHint {
    last: Option<usize>,
    shared: Option<&'static AtomicUsize>,
}

impl ObjectCountHint {
    pub(super) fn new(shared: Option<&'static AtomicUsize>) -> ObjectCountHint {
        let last = shared
            .map(|count| count.load(Ordering::Relaxed))
            .filter(|&count| count > 0);
        ObjectCountHint { last, shared }
    }

    pub(super) fn expected(&self) -> Option<usize> {
        self.last
    }

    pub(super) fn read(&mut self, objects: usize) {
        self.last = Some(objects);
        if let Some(shared) = self.shared {
            shared.store(objects, Ordering::Relaxed);
        }
    }
}

/// A snapshot a [`SnapshotSource`] took.
#[derive(Debug)]
pub enum Snapshot {
    /// A heap dump written to the path the source was given, in this many milliseconds; it is
    /// deleted once read.
    Written {
        /// How long the dump took (the JVM's full collection included).
        dump_ms: u64,
    },
    /// A heap dump that already exists (the user's file): read, never deleted.
    Existing(PathBuf),
    /// No snapshot will come (the watched JVM ended while dumping): the search ends with the
    /// snapshots it has, and the report says why.
    None(ConfirmationCut),
}

/// What a [`SnapshotSource`] can do after a snapshot.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Advance {
    /// The next snapshot can be taken.
    Ready,
    /// One more snapshot can be taken, and confirmation stops after it.
    Last(ConfirmationCut),
    /// No snapshot will come.
    End(ConfirmationCut),
}

/// The snapshot loop every front end shares: take a snapshot, read it, analyse it, delete it,
/// and advance the source as far as the search asks.
pub(super) fn search_snapshots(
    source: &mut dyn SnapshotSource,
    name: &str,
    settings: &SearchSettings,
    dumps: &Path,
    timings: &mut Timings,
    kept: &mut VecDeque<PathBuf>,
    progress: &Progress,
) -> Result<SearchOutcome, ScenarioError> {
    let mut search =
        GrowthSearch::with_ignore_rules(settings.search, settings.ignore_rules.clone());
    let unit = source.unit().singular();
    let mut object_count =
        ObjectCountHint::new(source.dumps_this_process().then_some(&OWN_JVM_DUMP_OBJECTS));
    // Whether this snapshot is the retake of the one before (NextStep::Retake): never kept, as
    // a kept dump stands for the loops of a snapshot (`diff --loops`).
    let mut retaking = false;
    for snapshot in 1.. {
        let position = source.position();
        // Unique in the process: a file a failed dump could not remove does not stop the next.
        let new_dump = dumps.join(format!(
            "snapshot-{}.hprof",
            NEXT_DUMP.fetch_add(1, Ordering::Relaxed)
        ));
        // Reads the dump while the source writes it: writing is most of a dump's time, on
        // one of the JVM's threads.
        let follower = follower_for(source, &new_dump, object_count.expected());
        let abandon = |follower: Option<crate::hprof::DumpFollower>| {
            if let Some(follower) = follower {
                follower.abandon();
            }
        };
        let (path, written, follower) = match source.take_snapshot(&new_dump) {
            Ok(Snapshot::Written { dump_ms }) => {
                timings.dump.push(dump_ms);
                (new_dump, true, follower)
            }
            Ok(Snapshot::Existing(path)) => {
                drop(follower);
                (path, false, None)
            }
            Ok(Snapshot::None(cut)) => {
                let _ = std::fs::remove_file(&new_dump);
                abandon(follower);
                search.stop_after_next_snapshot(cut);
                break;
            }
            Err(error) => {
                // A dump that failed half way (a full disk) holds secrets too, and its space is
                // what the next dump needs: deleted, and let go of by the follower, at once.
                let _ = std::fs::remove_file(&new_dump);
                abandon(follower);
                return Err(error);
            }
        };
        progress.show(format_args!(
            "{name}: {unit} {position}, snapshot {snapshot}: reading"
        ));
        let started = Instant::now();
        let graph = match follower {
            Some(follower) => follower.finish(),
            None => crate::hprof::open(&path),
        };
        // The dump holds every secret in the heap: delete it as soon as it has been read.
        let done = |path: PathBuf, kept: &mut VecDeque<PathBuf>| {
            if written {
                let limit = if retaking {
                    0
                } else {
                    settings.keep_dumps.kept_per_search()
                };
                done_with(path, limit, kept);
            }
        };
        let next = match graph {
            Ok(graph) => {
                timings.parse.push(elapsed_ms(started));
                object_count.read(graph.object_count());
                progress.show(format_args!(
                    "{name}: {unit} {position}, snapshot {snapshot}: analysing"
                ));
                let started = Instant::now();
                let next = search.add_snapshot(&graph, position);
                timings.analysis.push(elapsed_ms(started));
                drop(graph);
                done(path, kept);
                source.after_snapshot(&search);
                next
            }
            Err(source) => {
                let shown = path.display().to_string();
                done(path, kept);
                return Err(ScenarioError::Dump {
                    path: shown,
                    source,
                });
            }
        };
        let next = match next {
            NextStep::Retake if !source.prepare_retake()? => {
                search.skip_retake();
                NextStep::Done
            }
            next => next,
        };
        retaking = next == NextStep::Retake;
        match next {
            // The same position again, after the wait.
            NextStep::Retake => {}
            NextStep::RunLoops(requested) => match source.advance(requested)? {
                Advance::Ready => {}
                Advance::Last(cut) => search.stop_after_next_snapshot(cut),
                Advance::End(cut) => {
                    search.stop_after_next_snapshot(cut);
                    break;
                }
            },
            NextStep::Done if source.reads_to_the_end() => {
                if let Advance::End(_) = source.advance(0)? {
                    break;
                }
            }
            NextStep::Done => break,
        }
    }
    let mut outcome = search.finish();
    if source.reads_to_the_end() {
        // Its snapshots were all read whatever the search said: none was taken for a reason.
        outcome.looked_longer = None;
    }
    Ok(outcome)
}
