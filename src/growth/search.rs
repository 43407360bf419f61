//! The growth search: one path tree per snapshot, and for every path (a node matched across
//! snapshots by its keys) the trend of a few measures over all snapshots so far.
//!
//! Shark's rule is the baseline: a node grows when the objects under it keep increasing from
//! snapshot to snapshot, and a growing node is reported once, not again under a growing
//! ancestor. What this search does differently, and why:
//!
//! * **What grows.** A node's measures are the objects of its children, the references its
//!   objects hold (fields, array slots in use, collection entries: a list that gains references
//!   to objects that already exist grows only here, as BLeak counts it), the bytes of its
//!   children (a string that lengthens), the number of threads of a thread root group, and the
//!   objects anywhere below it that no other growing node explains (growth spread over many
//!   paths, as in a tree of nodes). Shark counts one child key's objects and misses all but
//!   the first.
//! * **The trend, not each diff.** A measure makes a *record* at a snapshot when it is higher
//!   than at every snapshot before; a node is a candidate after [`REQUIRED_RECORDS`]
//!   consecutive records. Noise around a level makes few records; a leak, however irregular
//!   (one object on an error path every few loops, three up and two down), makes one at every
//!   snapshot once snapshots are far enough apart. They are: the gap between snapshots doubles
//!   (2, 4, 8, … loops by default), so slow growth shows by itself without a flag, and while a
//!   path keeps making records without being a candidate yet, the search goes on for up to
//!   [`AMBIGUOUS_EXTRA_SNAPSHOTS`] more.
//! * **A bound levels off.** A cache that fills slowly grows at every early snapshot (BLeak's
//!   only false positives). Candidates are confirmed over snapshots spread geometrically, each
//!   at [`CONFIRMATION_LOOP_FACTOR`] times the loops of the one before, until the run reaches
//!   [`SearchConfig::confirm_loops`] loops (loops are cheap, dumps are not): a candidate must
//!   make a record at every one. A bound reached before the last confirmation snapshot's
//!   predecessor shows a flat last step and is listed as leveled off, with the loop it stopped
//!   at; a leak goes on growing.
//! * **Ignore rules** ([`IgnoreRule`]) take paths out of the search: known JDK growth that
//!   levels off after many loops, and the user's accepted growth. Ignored paths that would have
//!   been candidates are listed with the rule's reason, never dropped silently.

use super::ignore::{IgnoreRule, RuleOrigin};
use super::names::{FastMap, NameId, Names};
use super::retained::{retained_sizes, Retained};
use super::tree::{build_watching, simple_name, NodeId, NodeKey, PathTree, StepKind};
use crate::heap::HeapGraph;

/// Loops run before the first snapshot, so that class loading and lazy initialisation, which
/// usually happen in the first loop or two, are done before anything is measured.
pub const DEFAULT_WARMUP_LOOPS: u32 = 3;
/// Loops between the first two snapshots; the gap doubles after each snapshot of the
/// detection phase (snapshots at 3, 7, 15, 31, 63 loops with the defaults). Four, so that a
/// leak on a path taken once in ten loops or so has grown by the third snapshot, when a scenario
/// that nothing grows in stops; growth as rare as that makes no new high between snapshots
/// two loops apart.
pub const DEFAULT_LOOPS_PER_SNAPSHOT: u32 = 4;
/// Snapshots of the detection phase: enough for [`REQUIRED_RECORDS`] records after the first
/// snapshot with one to spare, so a leak that starts after the first snapshot is still seen.
pub const DEFAULT_MAX_SNAPSHOTS: u32 = 5;
/// Consecutive records a measure needs for its node to be a candidate. Three records are three
/// widening gaps of growth: lazy initialisation, a warming JIT or a one-off cache fill rarely
/// keep setting new highs that long.
pub const REQUIRED_RECORDS: u32 = 3;
/// Snapshots the detection phase may add while a path keeps making records without being a
/// candidate yet (a leak slower than one object per gap at first); the gap keeps doubling.
pub const AMBIGUOUS_EXTRA_SNAPSHOTS: u32 = 3;
/// Snapshots a candidate must keep making records in after it became one, at least.
pub const CONFIRMATION_SNAPSHOTS: u32 = 2;
/// Loops the run reaches before candidates count as confirmed, by default. A bound reached
/// by the second-to-last confirmation snapshot (about a quarter to a half of this many loops)
/// levels off visibly: the last snapshot sees no new high. Loops of small scenarios cost
/// microseconds.
pub const DEFAULT_CONFIRM_LOOPS: u32 = 1000;
/// Each confirmation snapshot is taken at this many times the loops of the one before (the
/// last one at the confirmation loops, or twice the one before if that is further).
pub const CONFIRMATION_LOOP_FACTOR: u32 = 4;
/// How much slower (per loop) a candidate may grow in one gap than in the gap before and still
/// count as growing. Gaps grow four times from one confirmation snapshot to the next, so a leak
/// of any steady rate passes with room to spare; a bound's creep does not.
pub const MAX_RATE_DROP: f64 = 8.0;
/// What a candidate must gain at least in each confirmation gap (hundreds of loops). What the
/// detection phase can find at all grows by far more over such gaps; a bound's creep by one or
/// two.
pub const MIN_CONFIRMATION_GROWTH: f64 = 3.0;
/// The share of what it had that a candidate growing in bytes must gain in each confirmation
/// gap.
pub const MIN_BYTES_SHARE: f64 = 0.1;
/// The share of the growth below a candidate its own measure must grow by for the candidate to
/// account for that growth (a list's items are a third of what it gains, with their strings
/// and their arrays).
pub const EXPLAINING_SHARE: f64 = 0.1;
/// The share of its spread objects a node must gain over its last records to be a candidate
/// for [`GrowthKind::Spread`]: the 15 % of the class-trend rule of the production profiler in
/// seed 000.
pub const SPREAD_MIN_SHARE: f64 = 0.15;
/// New highs at which an ignored path counts as having grown, for the report.
const IGNORED_MIN_RECORDS: u32 = 2;
/// The most of the heap a path may have had below it to be watched in the next snapshot's walk
/// before it is a candidate (see [`GrowthSearch::possible_candidates`]): below a path that
/// turns out not to be one, what the walk noted saves nothing, and the retained sizes take a
/// walk of everything below it that is reachable.
const WATCHED_MAX_SHARE: f64 = 1.0 / 16.0;
/// The static pseudo-field through which HotSpot's dumps show a class's constant pool: the
/// strings and method handles its code has resolved, one slot per constant. A slot fills when
/// code first uses its constant, or when the JIT compiles a method that does, so a string can
/// appear at loop 20 in one run and at loop 10 in the next (JDK 17's `sun.nio.ch.IOUtil`, its
/// `read` made hot by the settler's reads of /proc). Such growth is never a reason to look
/// longer; a path through it that makes its records anyway is judged like any other.
const CONSTANT_POOL_FIELD: &str = "<resolved_references>";
/// The root group of the boot loader's classes (HotSpot's sticky class roots): the JDK's own
/// classes, a fixed set; the group's children are their static fields. The JVM loads and
/// initialises them on first use, by the settler's or the JIT's work as well as the scenario's,
/// at loops that vary from run to run (the group one object richer from loop 31 on, in 2 of
/// 280 runs of a clean scenario). That the group itself gains objects is never a reason to look
/// longer; growth on any path below it (a JDK class's static cache of the program's objects)
/// still is.
const SYSTEM_CLASS_ROOTS: &str = "StickyClass";
/// Children per loop of the last gap that a candidate may hold at most for its growth to be
/// "few and new", and retaken before it is confirmed (see [`NextStep::Retake`]): a structure
/// that a library's own thread empties on its tick (a timer's queue of cancelled tasks, a
/// cache's expired entries) holds only what the loops since that tick added, so no more
/// children than the last gap's loops at one a loop; a leak that keeps a child a loop holds
/// those of every gap before too (as many as all the loops run: with the default
/// confirmation loops, twice the last gap's) and is confirmed as before, without the
/// retake's dump and wait. One a loop: the drained structures of the corpus (Netty's wheel
/// timer, a scheduled executor, Caffeine's expiring cache) gain one child a loop.
pub const FEW_CHILDREN_PER_LOOP: f64 = 1.0;
/// Snapshots of one search, whatever else says: a guard, far above what the rules need.
pub const MAX_SNAPSHOTS_PER_SEARCH: u32 = 16;

/// How many loops to run and how often to look.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SearchConfig {
    /// Loops between the first two snapshots (the gap then doubles).
    pub loops_per_snapshot: u32,
    /// Snapshots of the detection phase, before extensions and confirmation.
    pub max_snapshots: u32,
    /// Loops the run reaches before candidates count as confirmed.
    pub confirm_loops: u32,
}

impl Default for SearchConfig {
    fn default() -> Self {
        SearchConfig {
            loops_per_snapshot: DEFAULT_LOOPS_PER_SNAPSHOT,
            max_snapshots: DEFAULT_MAX_SNAPSHOTS,
            confirm_loops: DEFAULT_CONFIRM_LOOPS,
        }
    }
}

impl SearchConfig {
    /// Records needed for a candidate: [`REQUIRED_RECORDS`], or fewer when the user asked for
    /// fewer detection snapshots than that allows.
    pub fn required_records(&self) -> u32 {
        REQUIRED_RECORDS
            .min(self.max_snapshots.saturating_sub(1))
            .max(1)
    }
}

/// What the caller should do after a snapshot.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NextStep {
    /// Run this many more loops, then take a snapshot.
    RunLoops(u32),
    /// Take one more snapshot without running loops, after waiting out the settling bound
    /// (the settler's wait for a timer thread's tick), and pass it to
    /// [`GrowthSearch::add_snapshot`] with the same loops: candidates whose growth is a few new
    /// children are confirmed only if it holds there. A source that cannot take one (heap dumps
    /// given) calls [`GrowthSearch::skip_retake`] instead, and they are confirmed as before.
    Retake,
    /// The search is over; call [`GrowthSearch::finish`].
    Done,
}

/// Where a search is with the retake before confirmation ([`NextStep::Retake`]).
#[derive(Clone, Debug, PartialEq, Eq)]
enum Retake {
    /// None asked for yet.
    NotAsked,
    /// Asked for, to check these candidates.
    Pending(Vec<SeriesId>),
    /// Taken, or skipped by the source.
    Over,
}

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

const KINDS: [GrowthKind; 5] = [
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

    fn index(self) -> usize {
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
type SeriesId = u32;

/// One measure's trend: its highest value so far, and the records that set it.
#[derive(Clone, Copy, Debug, Default)]
struct Trend {
    max: u64,
    /// The value at the first snapshot of the search (0 if the path didn't exist yet).
    first: u64,
    /// The value at the latest snapshot, and at the one before.
    last: u64,
    previous: u64,
    /// Consecutive snapshots, up to the latest, at which the measure made a record.
    streak: u32,
    /// Records since the first snapshot.
    records: u32,
}

impl Trend {
    /// Takes the value of a new snapshot; the first snapshot of a search sets no record.
    fn push(&mut self, value: u64, first_snapshot: bool) -> bool {
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
    fn is_ambiguous(&self) -> bool {
        self.records > 0
            && self.last > self.first
            && (self.streak >= 1 || self.last != self.previous)
    }
}

/// One path, matched across snapshots by its keys.
#[derive(Debug)]
struct Series {
    parent: Option<SeriesId>,
    key: NodeKey,
    /// The first ignore rule matching a step of the path, here or above.
    ignored_by: Option<usize>,
    /// Whether the path goes through a class's constant pool (see [`CONSTANT_POOL_FIELD`]),
    /// here or above.
    in_constant_pool: bool,
    /// The root group of the boot loader's classes (see [`SYSTEM_CLASS_ROOTS`]).
    system_classes: bool,
    /// Whether [`GrowthKind::Threads`] applies: a root group of threads.
    counts_own_objects: bool,
    /// A root group: its children are unrelated paths, so growth spread over them means
    /// nothing and [`GrowthKind::Spread`] is not measured.
    is_root: bool,
    /// Snapshot at which the path first existed; `history` starts there.
    first: u32,
    history: Vec<Option<NodeValues>>,
    trends: [Trend; 5],
    /// The snapshot at which the current run of candidacy began.
    candidate_since: Option<u32>,
    /// The kinds it was a candidate for, the last time it was one.
    candidate_kinds: Vec<GrowthKind>,
    /// The last snapshot at which it was a candidate, if ever.
    last_candidate: Option<u32>,
    /// Retained size at the last two snapshots at which it was a candidate, latest last.
    retained: [Option<Retained>; 2],
    /// For a `LOCAL` path: where the frame was, in the latest snapshot that had it.
    source: Option<NameId>,
}

impl Series {
    fn values_at(&self, snapshot: u32) -> NodeValues {
        snapshot
            .checked_sub(self.first)
            .and_then(|i| self.history.get(i as usize).copied().flatten())
            .unwrap_or_default()
    }

    fn is_candidate(&self) -> bool {
        self.candidate_since.is_some()
    }
}

/// Objects awaiting cleanup among the children of a path's node
/// ([`PathTree::awaiting_cleanup`](super::PathTree::awaiting_cleanup)) at each snapshot since
/// the first that had any, and their trend: watched, never growth. Kept only for the few paths
/// that ever had any, not beside every path's measures.
#[derive(Debug)]
struct AwaitingSeries {
    first: u32,
    counts: Vec<u64>,
    trend: Trend,
}

impl AwaitingSeries {
    fn at(&self, snapshot: u32) -> u64 {
        snapshot
            .checked_sub(self.first)
            .and_then(|i| self.counts.get(i as usize).copied())
            .unwrap_or(0)
    }
}

/// The growth search over the snapshots of one scenario. Feed it snapshots with
/// [`GrowthSearch::add_snapshot`] and run the loops it asks for until it says
/// [`NextStep::Done`].
#[derive(Debug)]
pub struct GrowthSearch {
    config: SearchConfig,
    rules: Vec<IgnoreRule>,
    names: Names,
    series: Vec<Series>,
    /// The paths that ever had objects awaiting cleanup among their children.
    awaiting: FastMap<SeriesId, AwaitingSeries>,
    by_parent_and_key: FastMap<(SeriesId, NodeKey), SeriesId>,
    /// Loops run (warm-up included) when each snapshot was taken.
    loops_at: Vec<u32>,
    /// The last two trees, latest last, with the series of each of their nodes.
    trees: Vec<(PathTree, Vec<SeriesId>)>,
    /// Why the search stopped before confirmation was complete, if it did.
    cut: Option<ConfirmationCut>,
    /// Why the detection phase went on past its first three snapshots, at each snapshot it did.
    looked_longer: Vec<LookedLongerAt>,
    /// Whether each rule matched a step of some path, to point out misspelled ones.
    rule_matched: Vec<bool>,
    /// The first rule that matches each step seen: the same steps recur under many parents
    /// (`HashMap.table` everywhere), and a JUnit JVM's first snapshot has 16,000 paths to
    /// match against every rule.
    rule_of_step: FastMap<RuleInput, Option<usize>>,
    done: bool,
    /// Whether the search wanted another snapshot when it last said what to do: a source that
    /// ends it then ([`GrowthSearch::stop_after_next_snapshot`]) leaves it undecided.
    undecided: bool,
    retake: Retake,
    /// Candidates whose growth a retaken snapshot did not find, with their children's objects
    /// there.
    gone_on_retake: Vec<(SeriesId, u64)>,
}

/// What [`GrowthSearch::matching_rule`] reads of a step's key: a root group's label, not the
/// class of the objects at other steps.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
struct RuleInput {
    kind: StepKind,
    owner: NameId,
    name: NameId,
    root_label: Option<NameId>,
}

impl RuleInput {
    fn of(key: NodeKey) -> RuleInput {
        RuleInput {
            kind: key.kind,
            owner: key.owner,
            name: key.name,
            root_label: (key.kind == StepKind::GcRoot).then_some(key.target),
        }
    }
}

/// A snapshot after which detection went on because of `series` (the first of `paths` paths
/// that could, in the order paths were first seen), resolved into a [`LookedLonger`] at the end.
#[derive(Debug)]
struct LookedLongerAt {
    after_loop: u32,
    reason: LookLongerReason,
    series: SeriesId,
    kinds: Vec<GrowthKind>,
    paths: u32,
}

/// No parent, in [`GrowthSearch::by_parent_and_key`].
const NO_SERIES: SeriesId = SeriesId::MAX;

impl GrowthSearch {
    /// A search that has seen no snapshot yet, with heapgrowth's rules for known JDK growth.
    pub fn new(config: SearchConfig) -> GrowthSearch {
        GrowthSearch::with_ignore_rules(config, IgnoreRule::built_in())
    }

    /// A search that leaves out the paths `rules` match (see [`IgnoreRule`]); pass
    /// [`IgnoreRule::built_in`] among them to keep the built-in ones.
    pub fn with_ignore_rules(config: SearchConfig, rules: Vec<IgnoreRule>) -> GrowthSearch {
        GrowthSearch {
            config,
            rule_matched: vec![false; rules.len()],
            rule_of_step: FastMap::default(),
            rules,
            names: Names::default(),
            series: Vec::new(),
            awaiting: FastMap::default(),
            by_parent_and_key: FastMap::default(),
            loops_at: Vec::new(),
            trees: Vec::new(),
            cut: None,
            looked_longer: Vec::new(),
            done: false,
            undecided: false,
            retake: Retake::NotAsked,
            gone_on_retake: Vec::new(),
        }
    }

    /// Tells the search that the loops it asks for next cannot all be run (a time budget);
    /// the snapshot after them is the last, and the report says why.
    pub fn stop_after_next_snapshot(&mut self, cut: ConfirmationCut) {
        self.cut = Some(cut);
    }

    /// Tells the search that the retake it asked for ([`NextStep::Retake`]) cannot be taken
    /// (its source has no more snapshots to give, or no time left): its candidates are
    /// confirmed as they stand.
    pub fn skip_retake(&mut self) {
        self.retake = Retake::Over;
    }

    /// The candidates to report whose growth is a few new children: they grew in
    /// [`GrowthKind::Objects`], and hold no more children than [`FEW_CHILDREN_PER_LOOP`] a loop
    /// of the last gap.
    fn few_and_new(&self) -> Vec<SeriesId> {
        let Some(last) = self.loops_at.len().checked_sub(1) else {
            return Vec::new();
        };
        let gap = last.checked_sub(1).map_or(self.loops_at[last], |before| {
            self.loops_at[last] - self.loops_at[before]
        });
        self.reportable(&self.current_candidates())
            .into_iter()
            .filter(|&id| {
                let series = &self.series[id as usize];
                series.candidate_kinds.contains(&GrowthKind::Objects)
                    && series.values_at(last as u32).children_objects as f64
                        <= FEW_CHILDREN_PER_LOOP * f64::from(gap)
            })
            .collect()
    }

    /// Judges the retaken snapshot `graph`: a candidate of `due` whose children's objects there
    /// are no higher than before its last record has lost its growth, and is not confirmed
    /// (nor are candidates below it, part of what was emptied).
    fn check_retake(&mut self, graph: &HeapGraph, due: &[SeriesId]) {
        let (tree, _) = build_watching(graph, &mut self.names, &[]);
        let last = self.loops_at.len() as u32 - 1;
        let mut gone = Vec::new();
        for &id in due {
            let retaken = tree
                .find(&self.keys_to(id))
                .map_or(0, |node| self.children_objects_in(&tree, id, node));
            let before_last_record = (0..last)
                .map(|snapshot| {
                    self.series[id as usize]
                        .values_at(snapshot)
                        .children_objects
                })
                .max()
                .unwrap_or(0);
            if retaken <= before_last_record {
                gone.push((id, retaken));
            }
        }
        for &(id, _) in &gone {
            for candidate in self.current_candidates() {
                if candidate == id || self.is_below(candidate, id) {
                    set_candidacy(&mut self.series[candidate as usize], Vec::new(), last);
                }
            }
        }
        self.gone_on_retake.extend(gone);
    }

    /// The objects of the children of `node` in `tree` (series `id`'s node), as
    /// [`NodeValues::children_objects`] counts them: children that an ignore rule covers
    /// left out.
    fn children_objects_in(&mut self, tree: &PathTree, id: SeriesId, node: NodeId) -> u64 {
        let mut objects = 0;
        for &child in &tree.node(node).children {
            let key = tree.node(child).key;
            let ignored = match self.by_parent_and_key.get(&(id, key)) {
                Some(&series) => self.series[series as usize].ignored_by.is_some(),
                None => self.matching_rule(key).is_some(),
            };
            if !ignored {
                objects += tree.node(child).objects;
            }
        }
        objects
    }

    /// Whether series `id` is below series `ancestor`.
    fn is_below(&self, id: SeriesId, ancestor: SeriesId) -> bool {
        let mut current = self.series[id as usize].parent;
        while let Some(parent) = current {
            if parent == ancestor {
                return true;
            }
            current = self.series[parent as usize].parent;
        }
        false
    }

    /// Analyses a snapshot taken after `loops` loops in total (warm-up included) and says what
    /// to do next.
    pub fn add_snapshot(&mut self, graph: &HeapGraph, loops: u32) -> NextStep {
        if let Retake::Pending(due) = &self.retake {
            let due = due.clone();
            self.check_retake(graph, &due);
            self.retake = Retake::Over;
            self.done = true;
            return NextStep::Done;
        }
        let snapshot = self.loops_at.len() as u32;
        // The walk watches the paths that can be candidates to report at this snapshot, so
        // that their retained sizes need no second walk of the heap.
        let watched: Vec<Vec<NodeKey>> = self
            .possible_candidates(graph.object_count())
            .iter()
            .map(|&id| self.keys_to(id))
            .collect();
        let (tree, objects) = build_watching(graph, &mut self.names, &watched);
        let node_series = self.match_series(&tree, snapshot);
        self.loops_at.push(loops);
        self.update_trends(&tree, &node_series, snapshot);

        // Retained sizes of the candidates that would be reported, for the report's increase.
        let reported = self.reportable(&self.current_candidates());
        let present: Vec<(SeriesId, NodeId)> = node_series
            .iter()
            .enumerate()
            .filter(|(_, series)| reported.contains(series))
            .map(|(node, &series)| (series, node as NodeId))
            .collect();
        let nodes: Vec<NodeId> = present.iter().map(|&(_, node)| node).collect();
        for (&(series, _), size) in present.iter().zip(retained_sizes(graph, &objects, &nodes)) {
            let retained = &mut self.series[series as usize].retained;
            retained[0] = retained[1];
            retained[1] = Some(size);
        }

        self.trees.push((tree, node_series));
        if self.trees.len() > 2 {
            self.trees.remove(0);
        }
        let next = self.next_step(loops);
        if next == NextStep::Done {
            self.done = true;
        }
        next
    }

    /// Series that are likely to be candidates to report after the next snapshot, of a heap of
    /// `objects` objects: those that are now, and those one record short of enough for a
    /// measure (a measure gains at most one record per snapshot) that had at most
    /// [`WATCHED_MAX_SHARE`] of the heap below them. Not a promise either way: a candidate left
    /// out only takes a second walk of the heap for its retained size, and one that is not a
    /// candidate only some walking below it.
    fn possible_candidates(&self, objects: usize) -> Vec<SeriesId> {
        let mut possible = self.reportable(&self.current_candidates());
        let Some(last) = self.loops_at.len().checked_sub(1) else {
            return possible;
        };
        let required = self.config.required_records();
        possible.extend((0..self.series.len() as SeriesId).filter(|&id| {
            let series = &self.series[id as usize];
            let values = series.values_at(last as u32);
            series.ignored_by.is_none()
                && !series.is_candidate()
                && (values.objects + values.spread_objects) as f64
                    <= WATCHED_MAX_SHARE * objects as f64
                && series
                    .trends
                    .iter()
                    .any(|trend| trend.streak > 0 && trend.streak + 1 >= required)
        }));
        possible
    }

    /// The keys of the path of series `id`, from its root group down.
    fn keys_to(&self, id: SeriesId) -> Vec<NodeKey> {
        let mut keys = Vec::new();
        let mut current = Some(id);
        while let Some(series) = current {
            keys.push(self.series[series as usize].key);
            current = self.series[series as usize].parent;
        }
        keys.reverse();
        keys
    }

    /// The series of every node of `tree`, creating those seen for the first time.
    fn match_series(&mut self, tree: &PathTree, snapshot: u32) -> Vec<SeriesId> {
        let mut node_series: Vec<SeriesId> = Vec::with_capacity(tree.nodes().len());
        // Parents are created before their children, so a parent's series is known first.
        for node in tree.nodes() {
            let parent = node.parent.map(|p| node_series[p as usize]);
            let map_key = (parent.unwrap_or(NO_SERIES), node.key);
            let id = match self.by_parent_and_key.get(&map_key) {
                Some(&id) => id,
                None => {
                    let id = self.series.len() as SeriesId;
                    let ignored_by = parent
                        .and_then(|p| self.series[p as usize].ignored_by)
                        .or_else(|| {
                            let rule = self.matching_rule(node.key)?;
                            self.rule_matched[rule] = true;
                            Some(rule)
                        });
                    let name = self.names.get(node.key.name);
                    let in_constant_pool = parent
                        .is_some_and(|p| self.series[p as usize].in_constant_pool)
                        || (node.key.kind == StepKind::StaticField && name == CONSTANT_POOL_FIELD);
                    self.series.push(Series {
                        parent,
                        key: node.key,
                        ignored_by,
                        in_constant_pool,
                        system_classes: node.parent.is_none() && name == SYSTEM_CLASS_ROOTS,
                        counts_own_objects: node.parent.is_none() && name == "ThreadObject",
                        is_root: node.parent.is_none(),
                        first: snapshot,
                        history: Vec::new(),
                        trends: Default::default(),
                        candidate_since: None,
                        candidate_kinds: Vec::new(),
                        last_candidate: None,
                        retained: [None; 2],
                        source: None,
                    });
                    self.by_parent_and_key.insert(map_key, id);
                    id
                }
            };
            if node.source.is_some() {
                self.series[id as usize].source = node.source;
            }
            node_series.push(id);
        }
        node_series
    }

    /// The first rule that matches the step `key`.
    fn matching_rule(&mut self, key: NodeKey) -> Option<usize> {
        let input = RuleInput::of(key);
        if let Some(&rule) = self.rule_of_step.get(&input) {
            return rule;
        }
        let rule = self.first_matching_rule(key);
        self.rule_of_step.insert(input, rule);
        rule
    }

    /// [`Self::matching_rule`], tried against every rule.
    fn first_matching_rule(&self, key: NodeKey) -> Option<usize> {
        let names = &self.names;
        self.rules.iter().position(|rule| match key.kind {
            // A root group's target is the label that tells groups of one kind apart.
            StepKind::GcRoot => rule.matches_root(names.get(key.name), names.get(key.target)),
            // The built-in rules name caches. A frame of the JDK's own classes holds what it
            // was called with: since JDK 18, `main` and test methods are invoked through
            // method handles (`LambdaForm$MH.invoke`, `DirectMethodHandleAccessor.invoke`),
            // whose locals hold the user's classes, and everything below them is the user's (a
            // library's frame likewise).
            StepKind::Local if rule.origin.is_built_in() => false,
            _ => rule.matches_location(names.get(key.owner), names.get(key.name)),
        })
    }

    /// Measures every node of `tree`, pushes the values into the series' histories (zeros for
    /// paths the snapshot doesn't have), and updates trends and candidacy.
    fn update_trends(&mut self, tree: &PathTree, node_series: &[SeriesId], snapshot: u32) {
        let nodes = tree.nodes();
        let first_snapshot = snapshot == 0;
        let required = self.config.required_records();
        let names = &self.names;
        let series = &self.series;
        // What an ignore rule covers doesn't count towards its parent's growth either, but an
        // ignored node's own measures count all of it, for the report of ignored growth.
        let ignored: Vec<bool> = node_series
            .iter()
            .map(|&id| series[id as usize].ignored_by.is_some())
            .collect();
        let hidden = |parent: usize, child: usize| ignored[child] && !ignored[parent];
        // Objects awaiting cleanup among each node's children, for the few that have any.
        let mut awaiting_cleanup: FastMap<SeriesId, u64> = FastMap::default();
        for (id, node) in nodes.iter().enumerate() {
            let Some(parent) = node.parent else { continue };
            let count = tree.awaiting_cleanup(id as NodeId);
            if count > 0 && !hidden(parent as usize, id) {
                *awaiting_cleanup
                    .entry(node_series[parent as usize])
                    .or_default() += count;
            }
        }
        for (&id, &count) in &awaiting_cleanup {
            self.awaiting
                .entry(id)
                .or_insert_with(|| AwaitingSeries {
                    first: snapshot,
                    counts: Vec::new(),
                    trend: Trend::default(),
                })
                .counts
                .push(count);
        }
        for awaiting in self.awaiting.values_mut() {
            // Paths with none this snapshot (or not in it at all): 0.
            if awaiting.first + awaiting.counts.len() as u32 <= snapshot {
                awaiting.counts.push(0);
            }
            let now = *awaiting.counts.last().expect("pushed above");
            awaiting.trend.push(now, first_snapshot);
        }
        let mut values: Vec<NodeValues> = nodes
            .iter()
            .enumerate()
            .map(|(id, node)| {
                let (children_objects, children_bytes) = node
                    .children
                    .iter()
                    .filter(|&&child| !hidden(id, child as usize))
                    .fold((0, 0), |(objects, bytes), &child| {
                        let child = &nodes[child as usize];
                        // An object array that gets longer without more references in use
                        // is spare capacity of a growable buffer, not content; its content
                        // shows in its own node's objects and references.
                        let content = if is_object_array(names.get(child.key.target)) {
                            0
                        } else {
                            child.bytes
                        };
                        (objects + child.objects, bytes + content)
                    });
                NodeValues {
                    objects: node.objects,
                    children_objects,
                    references: node.references,
                    children_bytes,
                    spread_objects: 0,
                }
            })
            .collect();

        // Direct measures, children before parents: a lengthening array or string belongs to
        // the node holding it, not to every ancestor whose children's bytes include it, so
        // bytes count only where no child made a record of its own.
        let mut recorded = vec![false; nodes.len()];
        let mut direct_candidate = vec![false; nodes.len()];
        for id in (0..nodes.len()).rev() {
            let series = &mut self.series[node_series[id] as usize];
            let v = values[id];
            let objects =
                series.trends[GrowthKind::Objects.index()].push(v.children_objects, first_snapshot);
            // Not for a root group: its objects are classes or threads, and what they reference
            // are its children, measured as objects already (a static that comes to point at an
            // object reached before is no growth of the root group).
            let references = !series.is_root
                && series.trends[GrowthKind::References.index()].push(v.references, first_snapshot);
            let threads = series.counts_own_objects
                && series.trends[GrowthKind::Threads.index()].push(v.objects, first_snapshot);
            let child_recorded = nodes[id]
                .children
                .iter()
                .any(|&child| recorded[child as usize]);
            let bytes_trend = &mut series.trends[GrowthKind::Bytes.index()];
            let bytes = if objects || child_recorded {
                // Keep the high mark, but this is not growth in bytes.
                bytes_trend.max = bytes_trend.max.max(v.children_bytes);
                bytes_trend.streak = 0;
                false
            } else {
                bytes_trend.push(v.children_bytes, first_snapshot)
            };
            recorded[id] = objects || references || threads || bytes;
            direct_candidate[id] = [
                GrowthKind::Threads,
                GrowthKind::Objects,
                GrowthKind::References,
                GrowthKind::Bytes,
            ]
            .iter()
            .any(|&kind| series.trends[kind.index()].streak >= required);
        }

        // Spread: objects below each node, leaving out what ignore rules cover. Children before
        // parents again.
        let mut below = vec![0u64; nodes.len()];
        for id in (0..nodes.len()).rev() {
            below[id] = nodes[id]
                .children
                .iter()
                .map(|&child| child as usize)
                .filter(|&child| !hidden(id, child))
                .map(|child| nodes[child].objects + below[child])
                .sum();
            values[id].spread_objects = below[id];
        }
        // How much of the growth below each node since the snapshot before candidates below it
        // account for. A candidate accounts for the growth of what is below it when its own
        // measure grew by a fair part of that ([`EXPLAINING_SHARE`]): a growing list accounts
        // for its items and their strings; a path through a tree whose count creeps up by a
        // few while a thousand nodes are added below it accounts for nothing.
        let previous: Vec<NodeValues> = (0..nodes.len())
            .map(|id| {
                let series = &self.series[node_series[id] as usize];
                snapshot
                    .checked_sub(1)
                    .map_or(values[id], |previous| series.values_at(previous))
            })
            .collect();
        let before = |id: usize| previous[id];
        let grown_below: Vec<i64> = (0..nodes.len())
            .map(|id| below[id] as i64 - previous[id].spread_objects as i64)
            .collect();
        // A recursive step (a tree node's child of the tree's node class) accounts for nothing:
        // growth through a recursive structure belongs to its top.
        let explains: Vec<bool> = (0..nodes.len())
            .map(|id| {
                let series = &self.series[node_series[id] as usize];
                let recursive = nodes[id].parent.is_some_and(|parent| {
                    nodes[parent as usize].key.target == nodes[id].key.target
                });
                let own_growth = [
                    GrowthKind::Threads,
                    GrowthKind::Objects,
                    GrowthKind::References,
                    GrowthKind::Bytes,
                ]
                .iter()
                .filter(|&&kind| series.trends[kind.index()].streak >= required)
                .map(|&kind| values[id].get(kind) as i64 - before(id).get(kind) as i64)
                .max();
                !recursive
                    && own_growth.is_some_and(|grown| {
                        grown as f64 >= EXPLAINING_SHARE * grown_below[id] as f64
                    })
            })
            .collect();
        let mut explained = vec![0i64; nodes.len()];
        for id in (0..nodes.len()).rev() {
            let mut total = 0;
            for &child in &nodes[id].children {
                let child = child as usize;
                if hidden(id, child) {
                    continue;
                }
                total += if explains[child] {
                    (nodes[child].objects as i64 + below[child] as i64
                        - before(child).objects as i64
                        - before(child).spread_objects as i64)
                        .max(0)
                } else {
                    explained[child]
                };
            }
            explained[id] = total;
        }
        let mut spread_streaking = vec![false; nodes.len()];
        for id in (0..nodes.len()).rev() {
            let series = &mut self.series[node_series[id] as usize];
            if series.is_root {
                continue;
            }
            series.trends[GrowthKind::Spread.index()]
                .push(values[id].spread_objects, first_snapshot);
            spread_streaking[id] = series.trends[GrowthKind::Spread.index()].streak >= required;
        }

        // Candidacy. A spread candidate is where spread growth divides: the paths above it have
        // one streaking child each and are passed through; a root group is never one (its
        // children are unrelated paths); nor a node whose growth below candidates below it
        // account for, by half or more. Once one, it stays one while its spread keeps making
        // new highs, whatever its children do.
        let mut seen = vec![false; self.series.len()];
        for (id, node) in nodes.iter().enumerate() {
            let series_id = node_series[id];
            seen[series_id as usize] = true;
            let streaking_children = node
                .children
                .iter()
                .filter(|&&child| spread_streaking[child as usize])
                .count();
            let series = &mut self.series[series_id as usize];
            let was_spread =
                series.is_candidate() && series.candidate_kinds.contains(&GrowthKind::Spread);
            let unexplained = !explains[id] && explained[id] * 2 < grown_below[id];
            let spread = spread_streaking[id]
                && node.parent.is_some()
                && (was_spread || (streaking_children != 1 && unexplained));
            let mut kinds: Vec<GrowthKind> = KINDS
                .iter()
                .copied()
                .filter(|&kind| {
                    kind != GrowthKind::Spread && series.trends[kind.index()].streak >= required
                })
                .collect();
            if spread {
                kinds.push(GrowthKind::Spread);
                kinds.sort();
            }
            let index = snapshot - series.first;
            series.history.resize(index as usize, None);
            series.history.push(Some(values[id]));
            // A candidate must keep growing at about the pace it grew at; a spread one by a
            // fair share of what it spreads over.
            let loops_at = &self.loops_at;
            kinds.retain(|&kind| {
                (!series.is_candidate() || keeps_pace(series, kind, loops_at))
                    && (kind != GrowthKind::Spread || grew_by_a_share(series, required, snapshot))
            });
            set_candidacy(series, kinds, snapshot);
        }
        // Paths this snapshot doesn't have: their measures are zero now.
        for (id, series) in self.series.iter_mut().enumerate() {
            if id < seen.len() && seen[id] {
                continue;
            }
            for trend in &mut series.trends {
                trend.push(0, first_snapshot);
            }
            set_candidacy(series, Vec::new(), snapshot);
        }
    }

    /// Series that are candidates now, ignored ones included.
    fn current_candidates(&self) -> Vec<SeriesId> {
        (0..self.series.len() as SeriesId)
            .filter(|&id| self.series[id as usize].is_candidate())
            .collect()
    }

    /// Of `candidates`, those to report: not ignored, and not under another one of them.
    fn reportable(&self, candidates: &[SeriesId]) -> Vec<SeriesId> {
        self.top_most(candidates, |series| series.ignored_by.is_none())
    }

    /// Of `set`, those that `keep` accepts and that have no ancestor in `set` it accepts.
    fn top_most(&self, set: &[SeriesId], keep: impl Fn(&Series) -> bool) -> Vec<SeriesId> {
        let kept: Vec<SeriesId> = set
            .iter()
            .copied()
            .filter(|&id| keep(&self.series[id as usize]))
            .collect();
        kept.iter()
            .copied()
            .filter(|&id| {
                let mut ancestor = self.series[id as usize].parent;
                while let Some(a) = ancestor {
                    if kept.contains(&a) {
                        return false;
                    }
                    ancestor = self.series[a as usize].parent;
                }
                true
            })
            .collect()
    }

    fn next_step(&mut self, loops: u32) -> NextStep {
        let taken = self.loops_at.len() as u32;
        let recorded = self.looked_longer.len();
        let wanted = self.wanted_step(loops, taken);
        // Until the search says it is done, a source that ends it leaves it undecided.
        self.undecided = !matches!(wanted, NextStep::Done | NextStep::Retake);
        if self.cut.is_some() || taken >= MAX_SNAPSHOTS_PER_SEARCH {
            // It does not go on, whatever it wanted: no retake either.
            if wanted == NextStep::Retake {
                self.skip_retake();
            }
            self.looked_longer.truncate(recorded);
            if self.cut.is_none() && self.has_unconfirmed_candidates(loops) {
                self.cut = Some(ConfirmationCut::SnapshotLimit);
            }
            return NextStep::Done;
        }
        wanted
    }

    /// What the search would do next after `taken` snapshots, were it free to go on.
    fn wanted_step(&mut self, loops: u32, taken: u32) -> NextStep {
        if !self.reportable(&self.current_candidates()).is_empty() {
            if !self.has_unconfirmed_candidates(loops) {
                if self.retake == Retake::NotAsked {
                    let due = self.few_and_new();
                    if !due.is_empty() {
                        self.retake = Retake::Pending(due);
                        return NextStep::Retake;
                    }
                }
                return NextStep::Done;
            }
            // Four times the loops, but no further past the confirmation loops than twice.
            let base = loops.max(self.config.loops_per_snapshot).max(1);
            let next = base
                .saturating_mul(CONFIRMATION_LOOP_FACTOR)
                .min(self.config.confirm_loops.max(base.saturating_mul(2)));
            return NextStep::RunLoops(next - loops);
        }
        let detection_gap = self
            .config
            .loops_per_snapshot
            .saturating_mul(1 << (taken - 1).min(20));
        let required = self.config.required_records();
        let max_snapshots = self.config.max_snapshots;
        if taken < 3.min(max_snapshots) {
            return NextStep::RunLoops(detection_gap.max(1));
        }
        // Ignored paths never keep the search going, nor what the JVM fills at its own pace:
        // constants resolved, system classes loaded.
        let watched = |series: &Series| {
            series.ignored_by.is_none() && !series.in_constant_pool && !series.system_classes
        };
        // Not bytes for an ambiguous trend: strings whose numbers gain a digit grow in bytes
        // at every power of ten, and that alone is no reason to look longer. Nor paths that
        // were candidates already and were judged to have leveled off.
        let kinds_of = |series: &Series, reason: LookLongerReason| -> Vec<GrowthKind> {
            let keeps_looking = |kind: GrowthKind| {
                let trend = &series.trends[kind.index()];
                match reason {
                    LookLongerReason::StillGrowing => {
                        trend.streak >= 1
                            && trend.streak + max_snapshots.saturating_sub(taken) >= required
                    }
                    LookLongerReason::AmbiguousTrend => {
                        series.last_candidate.is_none()
                            && kind != GrowthKind::Bytes
                            && trend.is_ambiguous()
                    }
                }
            };
            KINDS
                .iter()
                .copied()
                .filter(|&kind| keeps_looking(kind))
                .collect()
        };
        let reasons = [
            (LookLongerReason::StillGrowing, max_snapshots),
            (
                LookLongerReason::AmbiguousTrend,
                max_snapshots + AMBIGUOUS_EXTRA_SNAPSHOTS,
            ),
        ];
        for (reason, limit) in reasons {
            if taken >= limit {
                continue;
            }
            let mut first = None;
            let mut paths = 0;
            for (id, series) in self.series.iter().enumerate() {
                if !watched(series) {
                    continue;
                }
                let kinds = kinds_of(series, reason);
                if !kinds.is_empty() {
                    paths += 1;
                    first.get_or_insert((id as SeriesId, kinds));
                }
            }
            if let Some((series, kinds)) = first {
                self.looked_longer.push(LookedLongerAt {
                    after_loop: loops,
                    reason,
                    series,
                    kinds,
                    paths,
                });
                return NextStep::RunLoops(detection_gap.max(1));
            }
        }
        NextStep::Done
    }

    /// Whether a candidate to report has not yet made [`CONFIRMATION_SNAPSHOTS`] records
    /// since it became one, or the run has not reached its confirmation loops.
    fn has_unconfirmed_candidates(&self, loops: u32) -> bool {
        let last = self.loops_at.len() as u32 - 1;
        let reportable = self.reportable(&self.current_candidates());
        !reportable.is_empty()
            && (loops < self.config.confirm_loops
                || reportable.iter().any(|&id| {
                    let since = self.series[id as usize].candidate_since.unwrap_or(last);
                    last - since < CONFIRMATION_SNAPSHOTS
                }))
    }

    /// The paths that are candidates now, not yet confirmed (a front end that shows progress,
    /// as `heapgrowth watch` does after each snapshot); empty before the first snapshot.
    pub fn candidates_so_far(&self) -> Vec<Vec<PathStep>> {
        if self.loops_at.is_empty() {
            return Vec::new();
        }
        let mut paths: Vec<Vec<PathStep>> = self
            .reportable(&self.current_candidates())
            .iter()
            .map(|&id| self.resolve_path(id))
            .collect();
        paths.sort();
        paths
    }

    /// The candidates now as nodes, with the children that grew (a watch samples their
    /// classes while they are confirmed); empty before the first snapshot.
    pub fn candidate_nodes(&self) -> Vec<GrowingNode> {
        if self.loops_at.is_empty() {
            return Vec::new();
        }
        self.reportable(&self.current_candidates())
            .iter()
            .map(|&id| self.describe(id))
            .collect()
    }

    /// The result: the nodes that grew through detection and confirmation, those that leveled
    /// off, and those that ignore rules kept out.
    pub fn finish(self) -> SearchOutcome {
        let loops = self.loops_at.last().copied().unwrap_or(0);
        let snapshots = self.loops_at.len() as u32;
        let candidates = self.current_candidates();
        let reported = self.reportable(&candidates);
        let mut growing: Vec<GrowingNode> = reported.iter().map(|&id| self.describe(id)).collect();
        growing.sort_by(|a, b| a.path.cmp(&b.path));
        // A watch ends when its user or its clock says, not when the search is done: a
        // candidate it did not see through every confirmation snapshot is a few records, which
        // a churning structure sampled near its period makes too (a list cleared every 2 s,
        // dumped every 300 ms, made one at the first confirmation snapshot too). Listed, but
        // not growth.
        let (unconfirmed, growing): (Vec<GrowingNode>, Vec<GrowingNode>) =
            growing.into_iter().partition(|node| {
                node.confirmed.cut == Some(ConfirmationCut::WatchEnded)
                    && node.confirmed.snapshots < CONFIRMATION_SNAPSHOTS
            });

        let under_reported = |series: &Series| {
            let mut ancestor = series.parent;
            while let Some(a) = ancestor {
                if reported.contains(&a) {
                    return true;
                }
                ancestor = self.series[a as usize].parent;
            }
            false
        };
        // What a retake found gone is listed as such, not as leveled off.
        let gone_or_below = |id: SeriesId| {
            self.gone_on_retake
                .iter()
                .any(|&(gone, _)| gone == id || self.is_below(id, gone))
        };
        let were_candidates: Vec<SeriesId> = (0..self.series.len() as SeriesId)
            .filter(|&id| {
                let series = &self.series[id as usize];
                series.last_candidate.is_some() && !series.is_candidate() && !gone_or_below(id)
            })
            .collect();
        let mut leveled_off: Vec<LeveledOff> = self
            .top_most(&were_candidates, |series| {
                series.ignored_by.is_none() && !under_reported(series)
            })
            .into_iter()
            .map(|id| {
                let series = &self.series[id as usize];
                let stopped = series.last_candidate.unwrap_or(0);
                LeveledOff {
                    path: self.resolve_path(id),
                    kinds: series.candidate_kinds.clone(),
                    last_growth_loop: self.loops_at[stopped as usize],
                    history: self.history(id),
                }
            })
            .collect();
        leveled_off.sort_by(|a, b| a.path.cmp(&b.path));

        // Cleared references that kept piling up under a path, a new high at every snapshot
        // of a search that stopped as soon as nothing grew (or at the last records a candidate
        // needs): listed once, at the top-most such path, and not under (or at) a growing
        // node, whose report says more.
        let piling_up_records = self
            .config
            .required_records()
            .min(snapshots.saturating_sub(1))
            .max(2);
        let mut piling_up: Vec<SeriesId> = self
            .awaiting
            .iter()
            .filter(|(_, awaiting)| awaiting.trend.streak >= piling_up_records)
            .map(|(&id, _)| id)
            .collect();
        piling_up.sort_unstable();
        let mut awaiting_cleanup: Vec<AwaitingCleanup> = self
            .top_most(&piling_up, |series| {
                series.ignored_by.is_none() && !under_reported(series)
            })
            .into_iter()
            .filter(|id| !reported.contains(id))
            .map(|id| {
                let awaiting = &self.awaiting[&id];
                AwaitingCleanup {
                    path: self.resolve_path(id),
                    history: self
                        .loops_at
                        .iter()
                        .enumerate()
                        .map(|(snapshot, &loops)| (loops, awaiting.at(snapshot as u32)))
                        .collect(),
                }
            })
            .collect();
        awaiting_cleanup.sort_by(|a, b| a.path.cmp(&b.path));

        // Ignored paths are not followed to candidacy (the search doesn't wait for them), so
        // those that set new highs at two snapshots or more are listed as having grown.
        let ignored_ever: Vec<SeriesId> = (0..self.series.len() as SeriesId)
            .filter(|&id| {
                let series = &self.series[id as usize];
                series.ignored_by.is_some()
                    && (series.last_candidate.is_some()
                        || series
                            .trends
                            .iter()
                            .any(|t| t.records >= IGNORED_MIN_RECORDS))
            })
            .collect();
        let mut ignored: Vec<IgnoredPath> = self
            .top_most(&ignored_ever, |_| true)
            .into_iter()
            .map(|id| {
                let series = &self.series[id as usize];
                let rule = &self.rules[series.ignored_by.expect("filtered on ignored_by")];
                let kinds = if series.candidate_kinds.is_empty() {
                    KINDS
                        .iter()
                        .copied()
                        .filter(|&kind| series.trends[kind.index()].records >= IGNORED_MIN_RECORDS)
                        .collect()
                } else {
                    series.candidate_kinds.clone()
                };
                IgnoredPath {
                    path: self.resolve_path(id),
                    kinds,
                    pattern: rule.pattern.clone(),
                    reason: rule.reason.clone(),
                    origin: rule.origin.clone(),
                    history: self.history(id),
                }
            })
            .collect();
        ignored.sort_by(|a, b| a.path.cmp(&b.path));

        let unmatched_rules = self
            .rules
            .iter()
            .zip(&self.rule_matched)
            .filter(|(rule, &matched)| !matched && !rule.origin.is_built_in())
            .map(|(rule, _)| rule.clone())
            .collect();

        let looked_longer = self
            .looked_longer
            .iter()
            .map(|at| LookedLonger {
                after_loop: at.after_loop,
                reason: at.reason,
                path: self.resolve_path(at.series),
                kinds: at.kinds.clone(),
                paths: at.paths,
                history: self.history(at.series),
            })
            .collect();

        let mut gone_on_retake: Vec<GoneOnRetake> = self
            .gone_on_retake
            .iter()
            .map(|&(id, retaken_children_objects)| GoneOnRetake {
                path: self.resolve_path(id),
                kinds: self.series[id as usize].candidate_kinds.clone(),
                history: self.history(id),
                retaken_children_objects,
            })
            .collect();
        gone_on_retake.sort_by(|a, b| a.path.cmp(&b.path));

        SearchOutcome {
            loops,
            snapshots,
            cut: self
                .undecided
                .then(|| self.cut.unwrap_or(ConfirmationCut::SnapshotLimit)),
            snapshot_loops: self.loops_at.clone(),
            looked_longer: Some(looked_longer),
            growing,
            unconfirmed,
            leveled_off,
            gone_on_retake,
            awaiting_cleanup,
            ignored,
            unmatched_rules,
        }
    }

    /// The measures of series `id` at every snapshot.
    fn history(&self, id: SeriesId) -> Vec<SnapshotValues> {
        let series = &self.series[id as usize];
        self.loops_at
            .iter()
            .enumerate()
            .map(|(snapshot, &loops)| SnapshotValues {
                loops,
                values: series.values_at(snapshot as u32),
            })
            .collect()
    }

    fn describe(&self, id: SeriesId) -> GrowingNode {
        let series = &self.series[id as usize];
        let last = self.loops_at.len() - 1;
        let (tree, node_series) = self.trees.last().expect("finish has a snapshot");
        let node = node_series
            .iter()
            .position(|&s| s == id)
            .expect("a candidate is in the last tree") as NodeId;
        let previous = self.trees.len().checked_sub(2).and_then(|i| {
            let (tree, node_series) = &self.trees[i];
            let node = node_series.iter().position(|&s| s == id)?;
            Some((tree, node as NodeId))
        });
        let previous_child = |key: NodeKey| {
            let (tree, parent) = previous?;
            tree.child(Some(parent), key).map(|child| tree.node(child))
        };
        // A child only cleared references reach holds nothing that grows.
        let mut children: Vec<ChildGrowth> = tree
            .node(node)
            .children
            .iter()
            .filter(|&&child| tree.node(child).objects > 0)
            .map(|&child| {
                let child_node = tree.node(child);
                let before = previous_child(child_node.key);
                let (before_objects, before_bytes) =
                    before.map_or((0, 0), |c| (c.objects, c.bytes));
                let child_series = &self.series[node_series[child as usize] as usize];
                let below = |snapshot: usize| {
                    let values = child_series.values_at(snapshot as u32);
                    values.objects + values.spread_objects
                };
                ChildGrowth {
                    step: self.resolve_step(child_node.key, child_node.objects, child_node.source),
                    objects: child_node.objects,
                    new: child_node.objects as i64 - before_objects as i64,
                    bytes: child_node.bytes,
                    new_bytes: child_node.bytes as i64 - before_bytes as i64,
                    below: below(last),
                    new_below: below(last) as i64 - last.checked_sub(1).map_or(0, below) as i64,
                }
            })
            .collect();
        children.sort_by(|a, b| a.step.cmp(&b.step));
        let [before, latest] = series.retained;
        let latest = latest.unwrap_or_default();
        let since = series.candidate_since.unwrap_or(last as u32) as usize;
        GrowingNode {
            path: self.resolve_path(id),
            kinds: series.candidate_kinds.clone(),
            history: self.history(id),
            confirmed: Confirmation {
                from_loop: self.loops_at[since],
                to_loop: self.loops_at[last],
                snapshots: (last - since) as u32,
                cut: self.cut,
            },
            retained: RetainedGrowth {
                objects: latest.objects,
                bytes: latest.bytes,
                objects_increase: before.map(|b| latest.objects as i64 - b.objects as i64),
                bytes_increase: before.map(|b| latest.bytes as i64 - b.bytes as i64),
            },
            children,
        }
    }

    /// The steps from the root group down to series `id`, with the objects each step had in
    /// the last snapshot.
    fn resolve_path(&self, id: SeriesId) -> Vec<PathStep> {
        let last = self.loops_at.len() as u32 - 1;
        let mut chain = Vec::new();
        let mut current = Some(id);
        while let Some(s) = current {
            chain.push(s);
            current = self.series[s as usize].parent;
        }
        chain
            .iter()
            .rev()
            .map(|&s| {
                let series = &self.series[s as usize];
                self.resolve_step(series.key, series.values_at(last).objects, series.source)
            })
            .collect()
    }

    fn resolve_step(&self, key: NodeKey, objects: u64, source: Option<NameId>) -> PathStep {
        PathStep {
            kind: key.kind,
            owner: self.names.get(key.owner).to_owned(),
            name: self.names.get(key.name).to_owned(),
            target: self.names.get(key.target).to_owned(),
            objects,
            source: source
                .map(|s| self.names.get(s).to_owned())
                .unwrap_or_default(),
        }
    }
}

/// Whether a candidate kept its pace in `kind` over the latest gap: it grew by at least
/// [`MIN_CONFIRMATION_GROWTH`], at a rate per loop at least a [`MAX_RATE_DROP`]th of the gap's
/// before. A leak keeps its pace as snapshots get further apart, however irregular it is from
/// loop to loop; a structure that fills up towards a bound slows down, and its count creeps
/// along (a shortest path now and then through one more entry of a bounded cache's linked
/// queue) while the loops between snapshots multiply.
fn keeps_pace(series: &Series, kind: GrowthKind, loops_at: &[u32]) -> bool {
    let Some(now) = loops_at.len().checked_sub(1) else {
        return true;
    };
    if now < 2 {
        return true;
    }
    let value = |snapshot: usize| series.values_at(snapshot as u32).get(kind) as f64;
    let gap = |snapshot: usize| f64::from(loops_at[snapshot] - loops_at[snapshot - 1]).max(1.0);
    let grown = value(now) - value(now - 1);
    let rate_before = (value(now - 1) - value(now - 2)) / gap(now - 1);
    // Bytes also by a share of what there was: strings of a bounded map whose keys gain a
    // digit now and then add a few bytes to kilobytes; text that keeps being appended to
    // grows by its own size again over gaps this long.
    let floor = match kind {
        GrowthKind::Bytes => MIN_CONFIRMATION_GROWTH.max(value(now - 1) * MIN_BYTES_SHARE),
        _ => MIN_CONFIRMATION_GROWTH,
    };
    grown >= floor && grown / gap(now) * MAX_RATE_DROP >= rate_before
}

/// Whether the node's spread objects grew, over its last [`SearchConfig::required_records`]
/// snapshots, by at least [`SPREAD_MIN_SHARE`] of what they were: a node high up the tree
/// (a class loader, everything below it) gains a few objects now and then from class loading
/// and caches all over; that is not growth spread over its paths, a leak is.
fn grew_by_a_share(series: &Series, required: u32, snapshot: u32) -> bool {
    let now = series.values_at(snapshot).spread_objects as f64;
    let then = series
        .values_at(snapshot.saturating_sub(required))
        .spread_objects as f64;
    now - then >= (then * SPREAD_MIN_SHARE).max(1.0)
}

/// Whether a class name is that of an array of references (`java.lang.Object[]`), not of
/// primitives (`byte[]`).
fn is_object_array(class: &str) -> bool {
    const PRIMITIVE_ARRAYS: [&str; 8] = [
        "boolean[]",
        "char[]",
        "float[]",
        "double[]",
        "byte[]",
        "short[]",
        "int[]",
        "long[]",
    ];
    class.ends_with("[]") && !PRIMITIVE_ARRAYS.contains(&class)
}

/// Updates a series' candidacy at `snapshot` from the kinds it qualifies for now.
fn set_candidacy(series: &mut Series, kinds: Vec<GrowthKind>, snapshot: u32) {
    if kinds.is_empty() {
        series.candidate_since = None;
    } else {
        series.candidate_since.get_or_insert(snapshot);
        series.last_candidate = Some(snapshot);
        series.candidate_kinds = kinds;
    }
}

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
    /// The search took [`MAX_SNAPSHOTS_PER_SEARCH`] snapshots.
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
