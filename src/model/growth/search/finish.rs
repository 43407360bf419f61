//! The end of a search: the candidates resolved into growing nodes with named paths, and the
//! paths set aside, into a [`SearchOutcome`].

use super::{
    AwaitingCleanup, ChildGrowth, Confirmation, ConfirmationCut, GoneOnRetake, GrowingNode,
    GrowthSearch, IgnoredPath, LeveledOff, LookedLonger, NameId, NodeId, NodeKey, PathStep,
    RetainedGrowth, SearchOutcome, Series, SeriesId, SnapshotValues, CONFIRMATION_SNAPSHOTS,
    IGNORED_MIN_RECORDS, KINDS,
};

impl GrowthSearch {
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
    pub(super) fn history(&self, id: SeriesId) -> Vec<SnapshotValues> {
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

    pub(super) fn describe(&self, id: SeriesId) -> GrowingNode {
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
    pub(super) fn resolve_path(&self, id: SeriesId) -> Vec<PathStep> {
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

    pub(super) fn resolve_step(
        &self,
        key: NodeKey,
        objects: u64,
        source: Option<NameId>,
    ) -> PathStep {
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
