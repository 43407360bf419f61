//! The settings of the growth search and the thresholds of its rules: how many loops to run,
//! how often to look, and what counts as growth (see [`super::GrowthSearch`]).

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
/// for [`GrowthKind::Spread`](super::GrowthKind::Spread): the 15 % of the class-trend rule.
pub const SPREAD_MIN_SHARE: f64 = 0.15;
/// New highs at which an ignored path counts as having grown, for the report.
pub(super) const IGNORED_MIN_RECORDS: u32 = 2;
/// The most of the heap a path may have had below it to be watched in the next snapshot's walk
/// before it is a candidate (see [`GrowthSearch::possible_candidates`]): below a path that
/// turns out not to be one, what the walk noted saves nothing, and the retained sizes take a
/// walk of everything below it that is reachable.
///
/// [`GrowthSearch::possible_candidates`]: super::GrowthSearch::possible_candidates
pub(super) const WATCHED_MAX_SHARE: f64 = 1.0 / 16.0;
/// The static pseudo-field through which HotSpot's dumps show a class's constant pool: the
/// strings and method handles its code has resolved, one slot per constant. A slot fills when
/// code first uses its constant, or when the JIT compiles a method that does, so a string can
/// appear at loop 20 in one run and at loop 10 in the next (JDK 17's `sun.nio.ch.IOUtil`, its
/// `read` made hot by the settler's reads of /proc). Such growth is never a reason to look
/// longer; a path through it that makes its records anyway is judged like any other.
pub(super) const CONSTANT_POOL_FIELD: &str = "<resolved_references>";
/// The root group of the boot loader's classes (HotSpot's sticky class roots): the JDK's own
/// classes, a fixed set; the group's children are their static fields. The JVM loads and
/// initialises them on first use, by the settler's or the JIT's work as well as the scenario's,
/// at loops that vary from run to run (the group one object richer from loop 31 on, in 2 of
/// 280 runs of a clean scenario). That the group itself gains objects is never a reason to look
/// longer; growth on any path below it (a JDK class's static cache of the program's objects)
/// still is.
pub(super) const SYSTEM_CLASS_ROOTS: &str = "StickyClass";
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
    ///
    /// [`GrowthSearch::add_snapshot`]: super::GrowthSearch::add_snapshot
    /// [`GrowthSearch::skip_retake`]: super::GrowthSearch::skip_retake
    Retake,
    /// The search is over; call [`GrowthSearch::finish`](super::GrowthSearch::finish).
    Done,
}
