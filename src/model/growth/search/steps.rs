//! What the search does after a snapshot: run more loops, retake the snapshot, or stop; and the
//! retake's judgement of candidates whose growth is a few new children.

use super::trends::set_candidacy;
use super::{build_watching, ConfirmationCut, HeapGraph, LookLongerReason};
use super::{
    GrowthKind, GrowthSearch, LookedLongerAt, NextStep, NodeId, PathTree, Retake, Series, SeriesId,
    AMBIGUOUS_EXTRA_SNAPSHOTS, CONFIRMATION_LOOP_FACTOR, CONFIRMATION_SNAPSHOTS,
    FEW_CHILDREN_PER_LOOP, KINDS, MAX_SNAPSHOTS_PER_SEARCH,
};

impl GrowthSearch {
    /// The candidates to report whose growth is a few new children: they grew in
    /// [`GrowthKind::Objects`], and hold no more children than [`FEW_CHILDREN_PER_LOOP`] a loop
    /// of the last gap.
    pub(super) fn few_and_new(&self) -> Vec<SeriesId> {
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
    pub(super) fn check_retake(&mut self, graph: &HeapGraph, due: &[SeriesId]) {
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
    ///
    /// [`NodeValues::children_objects`]: super::NodeValues::children_objects
    pub(super) fn children_objects_in(
        &mut self,
        tree: &PathTree,
        id: SeriesId,
        node: NodeId,
    ) -> u64 {
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
    pub(super) fn is_below(&self, id: SeriesId, ancestor: SeriesId) -> bool {
        let mut current = self.series[id as usize].parent;
        while let Some(parent) = current {
            if parent == ancestor {
                return true;
            }
            current = self.series[parent as usize].parent;
        }
        false
    }

    /// Series that are candidates now, ignored ones included.
    pub(super) fn current_candidates(&self) -> Vec<SeriesId> {
        (0..self.series.len() as SeriesId)
            .filter(|&id| self.series[id as usize].is_candidate())
            .collect()
    }

    /// Of `candidates`, those to report: not ignored, and not under another one of them.
    pub(super) fn reportable(&self, candidates: &[SeriesId]) -> Vec<SeriesId> {
        self.top_most(candidates, |series| series.ignored_by.is_none())
    }

    /// Of `set`, those that `keep` accepts and that have no ancestor in `set` it accepts.
    pub(super) fn top_most(
        &self,
        set: &[SeriesId],
        keep: impl Fn(&Series) -> bool,
    ) -> Vec<SeriesId> {
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

    pub(super) fn next_step(&mut self, loops: u32) -> NextStep {
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
    pub(super) fn wanted_step(&mut self, loops: u32, taken: u32) -> NextStep {
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
    pub(super) fn has_unconfirmed_candidates(&self, loops: u32) -> bool {
        let last = self.loops_at.len() as u32 - 1;
        let reportable = self.reportable(&self.current_candidates());
        !reportable.is_empty()
            && (loops < self.config.confirm_loops
                || reportable.iter().any(|&id| {
                    let since = self.series[id as usize].candidate_since.unwrap_or(last);
                    last - since < CONFIRMATION_SNAPSHOTS
                }))
    }
}
