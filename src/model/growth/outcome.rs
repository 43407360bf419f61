//! What a growth search found ([`SearchOutcome`]): the growing nodes, with their paths and
//! histories, and the paths it set aside and why.

use super::ignore::{IgnoreRule, RuleOrigin};
use super::key::StepKind;
use super::series::{GrowthKind, SnapshotValues};
use super::tree::simple_name;

/// One step of a path, with names resolved.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct PathStep {
    /// How the step's objects are referenced.
    pub kind: StepKind,
    /// Class that declares the field, the array/collection class, the frame's class for
    /// `LOCAL`, the loader's class for `CLASS`; empty for roots.
    pub owner: String,
    /// Field name, `[x]`, `[key]`, the method for `LOCAL`, the class for `CLASS`, or the root
    /// kind for [`StepKind::GcRoot`].
    pub name: String,
    /// Class of the referenced objects; for roots empty, or the thread name pattern of a
    /// group of threads (`worker-*`).
    pub target: String,
    /// Objects in the node, in the last snapshot.
    pub objects: u64,
    /// For `LOCAL`: where the frame was (`Timer.java:563`), when the dump says; else empty.
    pub source: String,
}

impl std::fmt::Display for PathStep {
    /// `STATIC_FIELD Cart.items -> instance of java.util.ArrayList`, `GcRoot(StickyClass)`,
    /// `GcRoot(ThreadObject "worker-*")`, `CLASS URLClassLoader -> class com.example.Plugin`:
    /// the owner by its simple name, as shark prints it. The source line of a `LOCAL` is not
    /// part of it (see [`PathStep::with_source`]): it moves while the thread runs.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.kind {
            StepKind::GcRoot if self.target.is_empty() => write!(f, "GcRoot({})", self.name),
            StepKind::GcRoot => write!(f, "GcRoot({} {:?})", self.name, self.target),
            StepKind::Class => write!(
                f,
                "{} {} -> class {}",
                self.kind.label(),
                simple_name(&self.owner),
                self.name
            ),
            kind => write!(
                f,
                "{} {}.{} -> instance of {}",
                kind.label(),
                simple_name(&self.owner),
                self.name,
                self.target
            ),
        }
    }
}

impl PathStep {
    /// The step as [`Display`](std::fmt::Display) writes it, with a `LOCAL`'s frame location:
    /// `LOCAL TimerThread.mainLoop(Timer.java:563) -> instance of java.util.TaskQueue`.
    pub fn with_source(&self) -> String {
        if self.source.is_empty() {
            return self.to_string();
        }
        format!(
            "{} {}.{}({}) -> instance of {}",
            self.kind.label(),
            simple_name(&self.owner),
            self.name,
            self.source,
            self.target
        )
    }
}

/// A child of a growing node.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ChildGrowth {
    /// The child's location.
    pub step: PathStep,
    /// Objects in the child in the last snapshot.
    pub objects: u64,
    /// Change since the snapshot before.
    pub new: i64,
    /// Shallow bytes of the child's objects in the last snapshot.
    pub bytes: u64,
    /// Change in bytes since the snapshot before.
    pub new_bytes: i64,
    /// The child's objects and those below it that no other growing node explains (what a
    /// node growing in [`GrowthKind::Spread`] spreads over).
    pub below: u64,
    /// Change since the snapshot before.
    pub new_below: i64,
}

/// Retained size in the last snapshot and its change since the one before.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct RetainedGrowth {
    /// Objects retained.
    pub objects: u64,
    /// Bytes retained.
    pub bytes: u64,
    /// Change in objects since the snapshot before; `None` when the node was not a candidate
    /// there, so its retained size was not measured (a candidate at the last of 3 or 4 dumps
    /// given to `heapgrowth diff`).
    pub objects_increase: Option<i64>,
    /// Change in bytes since the snapshot before; `None` as for `objects_increase`.
    pub bytes_increase: Option<i64>,
}

/// Why confirmation ended before the run reached its confirmation loops.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ConfirmationCut {
    /// The scenario's time budget ran out.
    TimeBudget,
    /// The search took [`MAX_SNAPSHOTS_PER_SEARCH`](super::MAX_SNAPSHOTS_PER_SEARCH) snapshots.
    SnapshotLimit,
    /// The heap dumps given ran out (`heapgrowth diff`).
    DumpsRanOut,
    /// Watching ended (Ctrl-C, end of input, `--for`) (`heapgrowth watch`).
    WatchEnded,
}

impl ConfirmationCut {
    /// Why, in words.
    pub fn reason(self) -> &'static str {
        match self {
            ConfirmationCut::TimeBudget => "the time budget ran out",
            ConfirmationCut::SnapshotLimit => "the snapshot limit was reached",
            ConfirmationCut::DumpsRanOut => "the heap dumps given ran out",
            ConfirmationCut::WatchEnded => "watching ended",
        }
    }
}

/// Over which loops a growing node kept growing after it became a candidate.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Confirmation {
    /// Loops at the snapshot at which it became a candidate.
    pub from_loop: u32,
    /// Loops at the last snapshot.
    pub to_loop: u32,
    /// Snapshots after `from_loop`, each with a new record.
    pub snapshots: u32,
    /// Why confirmation stopped early, if it did.
    pub cut: Option<ConfirmationCut>,
}

/// A node that kept growing through detection and confirmation.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GrowingNode {
    /// From the root group down to the growing node.
    pub path: Vec<PathStep>,
    /// What grew, most telling first.
    pub kinds: Vec<GrowthKind>,
    /// The node's measures at every snapshot.
    pub history: Vec<SnapshotValues>,
    /// Over which loops it was confirmed.
    pub confirmed: Confirmation,
    /// What the node keeps alive.
    pub retained: RetainedGrowth,
    /// The node's children in the last snapshot.
    pub children: Vec<ChildGrowth>,
}

impl GrowingNode {
    /// Objects in the node's children, one number per snapshot.
    pub fn children_objects(&self) -> Vec<u64> {
        self.history
            .iter()
            .map(|s| s.values.children_objects)
            .collect()
    }
}

/// A path that was a candidate and then stopped growing: a bound reached, not a leak.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LeveledOff {
    /// From the root group down to the node.
    pub path: Vec<PathStep>,
    /// What had grown.
    pub kinds: Vec<GrowthKind>,
    /// Loops at the last snapshot at which it was still growing.
    pub last_growth_loop: u32,
    /// Its measures at every snapshot.
    pub history: Vec<SnapshotValues>,
}

/// A candidate whose growth a snapshot retaken after the settling bound did not find
/// ([`NextStep::Retake`]): a structure that a background thread empties on its own tick,
/// caught before that tick at every snapshot. Not confirmed, not growth.
///
/// [`NextStep::Retake`]: super::NextStep::Retake
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GoneOnRetake {
    /// From the root group down to the node.
    pub path: Vec<PathStep>,
    /// What had grown.
    pub kinds: Vec<GrowthKind>,
    /// Its measures at every snapshot (the retake not included).
    pub history: Vec<SnapshotValues>,
    /// The objects of its children in the retaken snapshot.
    pub retaken_children_objects: u64,
}

/// A path whose children held more objects awaiting cleanup at each of the last snapshots
/// ([`PathTree::awaiting_cleanup`](super::PathTree::awaiting_cleanup)): entries of a
/// `WeakHashMap`, a weak interner or a `ThreadLocalMap` whose referents the collector cleared,
/// which their owner removes on a later access. Growth counting leaves them out; a map that
/// never removes them is listed here, not reported.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AwaitingCleanup {
    /// From the root group down to the node.
    pub path: Vec<PathStep>,
    /// Loops, and the objects awaiting cleanup among the node's children, at every snapshot.
    pub history: Vec<(u32, u64)>,
}

impl AwaitingCleanup {
    /// The objects awaiting cleanup at the last snapshot, and how many more than at the one
    /// before.
    pub fn last_and_new(&self) -> (u64, i64) {
        let last = self.history.last().map_or(0, |&(_, objects)| objects);
        let before = self
            .history
            .len()
            .checked_sub(2)
            .map_or(0, |i| self.history[i].1);
        (last, last as i64 - before as i64)
    }
}

/// A path an ignore rule kept out of the search that would have been a candidate.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct IgnoredPath {
    /// From the root group down to the node.
    pub path: Vec<PathStep>,
    /// What grew.
    pub kinds: Vec<GrowthKind>,
    /// The rule's pattern.
    pub pattern: String,
    /// The rule's reason.
    pub reason: String,
    /// Whose rule it is.
    pub origin: RuleOrigin,
    /// Its measures at every snapshot.
    pub history: Vec<SnapshotValues>,
}

/// Why detection took one more snapshot than its first three: a path that had set new highs
/// and could still become a candidate, or whose trend was not yet telling. Clean code often
/// takes one (something grew once by then); more say which path kept the search going, and so
/// why a run took longer than others (the JVM filling something of its own at a loop that
/// varies from run to run, say).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LookedLonger {
    /// Loops at the snapshot after which the search went on.
    pub after_loop: u32,
    /// What the path did.
    pub reason: LookLongerReason,
    /// The first path that kept it going, in the order paths were first seen.
    pub path: Vec<PathStep>,
    /// What of that path's measures did.
    pub kinds: Vec<GrowthKind>,
    /// How many paths did, that one included.
    pub paths: u32,
    /// That path's measures at every snapshot.
    pub history: Vec<SnapshotValues>,
}

/// See [`LookedLonger`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LookLongerReason {
    /// It made a record at the last snapshot, and enough snapshots are left for it to make the
    /// records a candidate needs.
    StillGrowing,
    /// It is above where it started and moved since the snapshot before, without making
    /// records in a row: worth a wider gap (up to [`AMBIGUOUS_EXTRA_SNAPSHOTS`] more).
    ///
    /// [`AMBIGUOUS_EXTRA_SNAPSHOTS`]: super::AMBIGUOUS_EXTRA_SNAPSHOTS
    AmbiguousTrend,
}

impl LookLongerReason {
    /// As the JSON report writes it.
    pub fn label(self) -> &'static str {
        match self {
            LookLongerReason::StillGrowing => "still growing",
            LookLongerReason::AmbiguousTrend => "ambiguous trend",
        }
    }
}

/// The result of one search.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SearchOutcome {
    /// Loops run, warm-up and confirmation included.
    pub loops: u32,
    /// Snapshots taken.
    pub snapshots: u32,
    /// The loops at each snapshot, in order.
    pub snapshot_loops: Vec<u32>,
    /// Why the search ended while it still wanted snapshots (the time budget, the dumps given
    /// or the watch ran out first); `None` when it ended because it was done.
    pub cut: Option<ConfirmationCut>,
    /// Why detection went on past its first three snapshots, at each snapshot it did; `None`
    /// where the snapshots were not the search's to choose (`heapgrowth diff` reads every dump
    /// it is given).
    pub looked_longer: Option<Vec<LookedLonger>>,
    /// Confirmed growing nodes, sorted by path.
    pub growing: Vec<GrowingNode>,
    /// Candidates a watch ended on before their last confirmation snapshot
    /// ([`ConfirmationCut::WatchEnded`]): growing for all one could tell, not confirmed, not
    /// counted as growth.
    pub unconfirmed: Vec<GrowingNode>,
    /// Paths that grew for a while but leveled off, sorted by path.
    pub leveled_off: Vec<LeveledOff>,
    /// Candidates whose growth was gone from the snapshot retaken before confirming them,
    /// sorted by path: not growth.
    pub gone_on_retake: Vec<GoneOnRetake>,
    /// Paths under which references the collector cleared kept piling up, sorted by path:
    /// garbage waiting for its owner's cleanup, not growth.
    pub awaiting_cleanup: Vec<AwaitingCleanup>,
    /// Paths ignore rules kept out that grew, sorted by path.
    pub ignored: Vec<IgnoredPath>,
    /// The user's rules that matched no step of any path (a misspelled class or field, or a
    /// rule for another scenario), in the order given.
    pub unmatched_rules: Vec<IgnoreRule>,
}
