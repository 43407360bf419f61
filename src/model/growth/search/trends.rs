//! Measuring each snapshot's nodes, and judging from the trends of their measures which paths
//! are candidates.

use super::{
    AwaitingSeries, FastMap, GrowthKind, GrowthSearch, NodeId, NodeValues, PathTree, Series,
    SeriesId, Trend, EXPLAINING_SHARE, KINDS, MAX_RATE_DROP, MIN_BYTES_SHARE,
    MIN_CONFIRMATION_GROWTH, SPREAD_MIN_SHARE,
};

impl GrowthSearch {
    /// Measures every node of `tree`, pushes the values into the series' histories (zeros for
    /// paths the snapshot doesn't have), and updates trends and candidacy.
    pub(super) fn update_trends(
        &mut self,
        tree: &PathTree,
        node_series: &[SeriesId],
        snapshot: u32,
    ) {
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
            // A constant pool's array has the length the class gave it: it and its slots
            // filling as the JVM resolves constants are never a leak (what a resolved constant
            // keeps is a path further below, judged like any other).
            if series.is_constant_pool {
                kinds.clear();
            }
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
///
/// [`SearchConfig::required_records`]: super::SearchConfig::required_records
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
pub(super) fn set_candidacy(series: &mut Series, kinds: Vec<GrowthKind>, snapshot: u32) {
    if kinds.is_empty() {
        series.candidate_since = None;
    } else {
        series.candidate_since.get_or_insert(snapshot);
        series.last_candidate = Some(snapshot);
        series.candidate_kinds = kinds;
    }
}
