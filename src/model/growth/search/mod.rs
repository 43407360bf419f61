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
//!   [`AMBIGUOUS_EXTRA_SNAPSHOTS`](super::AMBIGUOUS_EXTRA_SNAPSHOTS) more.
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
//!
//! The [`GrowthSearch`] is here with what it is fed; [`trends`] measures each snapshot's nodes and
//! judges candidacy, [`steps`] decides what to do next (and the retake), [`finish`] resolves the
//! outcome.
//!
//! [`REQUIRED_RECORDS`]: super::REQUIRED_RECORDS
//! [`CONFIRMATION_LOOP_FACTOR`]: super::CONFIRMATION_LOOP_FACTOR

mod finish;
mod steps;
mod trends;

use super::config::{
    NextStep, SearchConfig, AMBIGUOUS_EXTRA_SNAPSHOTS, CONFIRMATION_LOOP_FACTOR,
    CONFIRMATION_SNAPSHOTS, CONSTANT_POOL_FIELD, EXPLAINING_SHARE, FEW_CHILDREN_PER_LOOP,
    IGNORED_MIN_RECORDS, MAX_RATE_DROP, MAX_SNAPSHOTS_PER_SEARCH, MIN_BYTES_SHARE,
    MIN_CONFIRMATION_GROWTH, SPREAD_MIN_SHARE, SYSTEM_CLASS_ROOTS, WATCHED_MAX_SHARE,
};
use super::ignore::IgnoreRule;
use super::key::{NodeId, NodeKey, StepKind};
use super::names::{FastMap, NameId, Names};
use super::outcome::{
    AwaitingCleanup, ChildGrowth, Confirmation, ConfirmationCut, GoneOnRetake, GrowingNode,
    IgnoredPath, LeveledOff, LookLongerReason, LookedLonger, PathStep, RetainedGrowth,
    SearchOutcome,
};
use super::retained::retained_sizes;
use super::series::{
    AwaitingSeries, GrowthKind, NodeValues, Series, SeriesId, SnapshotValues, Trend, KINDS,
};
use super::tree::{build_watching, PathTree};
use crate::heap::HeapGraph;

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
///
/// [`LookedLonger`]: super::LookedLonger
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
                    // The array, or its slots (`[x]`): both fill as constants resolve.
                    let is_constant_pool = (node.key.kind == StepKind::StaticField
                        && name == CONSTANT_POOL_FIELD)
                        || (node.key.kind == StepKind::ArrayEntry
                            && parent.is_some_and(|p| {
                                let parent = &self.series[p as usize];
                                parent.is_constant_pool && parent.key.kind == StepKind::StaticField
                            }));
                    let in_constant_pool = is_constant_pool
                        || parent.is_some_and(|p| self.series[p as usize].in_constant_pool);
                    self.series.push(Series {
                        parent,
                        key: node.key,
                        ignored_by,
                        in_constant_pool,
                        is_constant_pool,
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
}
