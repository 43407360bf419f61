//! What the growth search measures: a node's measures at each snapshot ([`NodeValues`]), and for
//! each path matched across snapshots its history and the trend of each measure.

use super::key::NodeKey;
use super::names::NameId;
use super::retained::Retained;

/// What grew about a node.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum GrowthKind {
    /// The threads of a thread root group.
    Threads,
    /// The objects of the node's children.
    Objects,
    /// Objects further below the node, spread over paths none of which grows by itself.
    Spread,
    /// The references the node's objects hold, to objects new or old.
    References,
    /// The bytes of the node's children, with as many children (a string that lengthens).
    Bytes,
}

pub(super) const KINDS: [GrowthKind; 5] = [
    GrowthKind::Threads,
    GrowthKind::Objects,
    GrowthKind::Spread,
    GrowthKind::References,
    GrowthKind::Bytes,
];

impl GrowthKind {
    /// The name used in reports: `threads`, `objects`, `spread`, `references`, `bytes`.
    pub fn label(self) -> &'static str {
        match self {
            GrowthKind::Threads => "threads",
            GrowthKind::Objects => "objects",
            GrowthKind::Spread => "spread",
            GrowthKind::References => "references",
            GrowthKind::Bytes => "bytes",
        }
    }

    pub(super) fn index(self) -> usize {
        self as usize
    }
}

/// A node's measures in one snapshot.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct NodeValues {
    /// The node's own objects (threads, for a thread root group).
    pub objects: u64,
    /// Objects of the node's children.
    pub children_objects: u64,
    /// References the node's objects hold.
    pub references: u64,
    /// Shallow bytes of the node's children, arrays of references left out (their length is
    /// capacity; what they hold counts as objects and references).
    pub children_bytes: u64,
    /// Objects below the node that no candidate below it and no ignored path accounts for.
    pub spread_objects: u64,
}

impl NodeValues {
    /// The measure that `kind` judges.
    pub fn get(&self, kind: GrowthKind) -> u64 {
        match kind {
            GrowthKind::Threads => self.objects,
            GrowthKind::Objects => self.children_objects,
            GrowthKind::Spread => self.spread_objects,
            GrowthKind::References => self.references,
            GrowthKind::Bytes => self.children_bytes,
        }
    }
}

/// A node's measures at one snapshot, with the loops run by then.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SnapshotValues {
    /// Loops run (warm-up included) when the snapshot was taken.
    pub loops: u32,
    /// The node's measures; all zero where the path did not exist.
    pub values: NodeValues,
}

/// Index of a path in the search's table of paths.
pub(super) type SeriesId = u32;

/// One measure's trend: its highest value so far, and the records that set it.
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct Trend {
    pub(super) max: u64,
    /// The value at the first snapshot of the search (0 if the path didn't exist yet).
    pub(super) first: u64,
    /// The value at the latest snapshot, and at the one before.
    pub(super) last: u64,
    pub(super) previous: u64,
    /// Consecutive snapshots, up to the latest, at which the measure made a record.
    pub(super) streak: u32,
    /// Records since the first snapshot.
    pub(super) records: u32,
}

impl Trend {
    /// Takes the value of a new snapshot; the first snapshot of a search sets no record.
    pub(super) fn push(&mut self, value: u64, first_snapshot: bool) -> bool {
        let record = !first_snapshot && value > self.max;
        if first_snapshot {
            self.first = value;
        }
        self.max = self.max.max(value);
        self.previous = self.last;
        self.last = value;
        if record {
            self.streak += 1;
            self.records += 1;
        } else {
            self.streak = 0;
        }
        record
    }

    /// Whether the measure is above where it started and still moving: it just made a new
    /// high, or changed since the snapshot before (growth with dips in between). Growing for
    /// all one can tell, but not steadily enough yet: worth a wider gap before calling it. A
    /// bound that is full stays put, and is not ambiguous.
    pub(super) fn is_ambiguous(&self) -> bool {
        self.records > 0
            && self.last > self.first
            && (self.streak >= 1 || self.last != self.previous)
    }
}

/// One path, matched across snapshots by its keys.
#[derive(Debug)]
pub(super) struct Series {
    pub(super) parent: Option<SeriesId>,
    pub(super) key: NodeKey,
    /// The first ignore rule matching a step of the path, here or above.
    pub(super) ignored_by: Option<usize>,
    /// Whether the path goes through a class's constant pool (see [`CONSTANT_POOL_FIELD`]),
    /// here or above.
    ///
    /// [`CONSTANT_POOL_FIELD`]: super::config::CONSTANT_POOL_FIELD
    pub(super) in_constant_pool: bool,
    /// Whether the node *is* a class's constant pool array, or its slots (`[x]` right below
    /// it): never a candidate (see [`CONSTANT_POOL_FIELD`]).
    ///
    /// [`CONSTANT_POOL_FIELD`]: super::config::CONSTANT_POOL_FIELD
    pub(super) is_constant_pool: bool,
    /// The root group of the boot loader's classes (see [`SYSTEM_CLASS_ROOTS`]).
    ///
    /// [`SYSTEM_CLASS_ROOTS`]: super::config::SYSTEM_CLASS_ROOTS
    pub(super) system_classes: bool,
    /// Whether [`GrowthKind::Threads`] applies: a root group of threads.
    pub(super) counts_own_objects: bool,
    /// A root group: its children are unrelated paths, so growth spread over them means
    /// nothing and [`GrowthKind::Spread`] is not measured.
    pub(super) is_root: bool,
    /// Snapshot at which the path first existed; `history` starts there.
    pub(super) first: u32,
    pub(super) history: Vec<Option<NodeValues>>,
    pub(super) trends: [Trend; 5],
    /// The snapshot at which the current run of candidacy began.
    pub(super) candidate_since: Option<u32>,
    /// The kinds it was a candidate for, the last time it was one.
    pub(super) candidate_kinds: Vec<GrowthKind>,
    /// The last snapshot at which it was a candidate, if ever.
    pub(super) last_candidate: Option<u32>,
    /// Retained size at the last two snapshots at which it was a candidate, latest last.
    pub(super) retained: [Option<Retained>; 2],
    /// For a `LOCAL` path: where the frame was, in the latest snapshot that had it.
    pub(super) source: Option<NameId>,
}

impl Series {
    pub(super) fn values_at(&self, snapshot: u32) -> NodeValues {
        snapshot
            .checked_sub(self.first)
            .and_then(|i| self.history.get(i as usize).copied().flatten())
            .unwrap_or_default()
    }

    pub(super) fn is_candidate(&self) -> bool {
        self.candidate_since.is_some()
    }
}

/// Objects awaiting cleanup among the children of a path's node
/// ([`PathTree::awaiting_cleanup`](super::PathTree::awaiting_cleanup)) at each snapshot since
/// the first that had any, and their trend: watched, never growth. Kept only for the few paths
/// that ever had any, not beside every path's measures.
#[derive(Debug)]
pub(super) struct AwaitingSeries {
    pub(super) first: u32,
    pub(super) counts: Vec<u64>,
    pub(super) trend: Trend,
}

impl AwaitingSeries {
    pub(super) fn at(&self, snapshot: u32) -> u64 {
        snapshot
            .checked_sub(self.first)
            .and_then(|i| self.counts.get(i as usize).copied())
            .unwrap_or(0)
    }
}
