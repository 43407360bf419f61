//! Timing the reader on a real dump: open + index, then a breadth-first walk of everything
//! reachable from the roots (what every analysis does first). Used by the benchmark test and
//! callable from a benchmark binary.

use std::path::Path;
use std::time::{Duration, Instant};

use super::HprofError;
use crate::heap::{HeapGraph, ObjectIndex};

/// What one [`measure_parse_and_walk`] run saw.
#[derive(Clone, Debug)]
pub struct ParseMeasurement {
    /// Time for [`crate::hprof::open`].
    pub parse: Duration,
    /// Time for the breadth-first walk from the roots.
    pub walk: Duration,
    /// Objects in the graph.
    pub objects: usize,
    /// Objects reached from the roots.
    pub reachable: usize,
    /// References followed (from reached objects to objects with a record).
    pub references: u64,
    /// [`HeapGraph::model_bytes`].
    pub model_bytes: usize,
}

/// Opens the dump at `path` and walks it breadth-first from its roots, timing both.
pub fn measure_parse_and_walk(path: &Path) -> Result<ParseMeasurement, HprofError> {
    let start = Instant::now();
    let graph = super::open(path)?;
    let parse = start.elapsed();
    let start = Instant::now();
    let (reachable, references) = walk_from_roots(&graph);
    let walk = start.elapsed();
    Ok(ParseMeasurement {
        parse,
        walk,
        objects: graph.object_count(),
        reachable,
        references,
        model_bytes: graph.model_bytes(),
    })
}

/// Breadth-first walk from every root: (objects reached, references followed).
pub fn walk_from_roots(graph: &HeapGraph) -> (usize, u64) {
    let mut visited = vec![0u64; graph.object_count().div_ceil(64)];
    let mut first_visit = |o: ObjectIndex| {
        let (word, bit) = ((o / 64) as usize, 1u64 << (o % 64));
        let new = visited[word] & bit == 0;
        visited[word] |= bit;
        new
    };
    let mut queue: Vec<ObjectIndex> = Vec::new();
    for root in graph.roots() {
        if first_visit(root.object) {
            queue.push(root.object);
        }
    }
    let mut references = 0u64;
    let mut next = 0;
    while let Some(&object) = queue.get(next) {
        next += 1;
        graph.for_each_reference(object, |reference| {
            references += 1;
            if first_visit(reference.target) {
                queue.push(reference.target);
            }
        });
    }
    (queue.len(), references)
}
