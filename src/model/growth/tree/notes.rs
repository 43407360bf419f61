//! What a walk notes about the nodes it creates and the edges it follows: nothing, or for the
//! retained sizes of watched paths, their [`WatchedEdges`].

use super::{BitSet, FastMap, NodeId, NodeKey, ObjectIndex, WatchedEdges};

/// What a walk notes about the nodes it creates and the edges it follows, for the retained
/// sizes of watched paths ([`WatchedEdges`]).
pub(super) trait EdgeNotes {
    /// Node `id` was just created under `parent` with `key`.
    fn node_created(&mut self, id: NodeId, parent: Option<NodeId>, key: NodeKey);
    /// `object` was reached for the first time and joined `node` (a collection's internal
    /// object: the collection's node).
    fn reached(&mut self, object: ObjectIndex, node: NodeId);
    /// An edge from an object of `from` to `target`, which joins `to` (`None`: `target` was
    /// reached before).
    fn edge(&mut self, from: NodeId, to: Option<NodeId>, target: ObjectIndex);
    fn into_watched_edges(self) -> Option<WatchedEdges>;
}

/// Nothing to watch.
pub(super) struct NoNotes;

impl EdgeNotes for NoNotes {
    #[inline(always)]
    fn node_created(&mut self, _: NodeId, _: Option<NodeId>, _: NodeKey) {}
    #[inline(always)]
    fn reached(&mut self, _: ObjectIndex, _: NodeId) {}
    #[inline(always)]
    fn edge(&mut self, _: NodeId, _: Option<NodeId>, _: ObjectIndex) {}
    fn into_watched_edges(self) -> Option<WatchedEdges> {
        None
    }
}

impl EdgeNotes for Watch {
    fn node_created(&mut self, id: NodeId, parent: Option<NodeId>, key: NodeKey) {
        debug_assert_eq!(id as usize, self.inside.len());
        self.add_node(parent, key);
    }

    #[inline]
    fn reached(&mut self, object: ObjectIndex, node: NodeId) {
        if !self.inside[node as usize] {
            self.outside.test_and_set(object);
        }
    }

    #[inline]
    fn edge(&mut self, from: NodeId, to: Option<NodeId>, target: ObjectIndex) {
        if !self.inside[from as usize] && to.map_or(true, |to| self.inside[to as usize]) {
            self.from_outside.test_and_set(target);
        }
    }

    fn into_watched_edges(self) -> Option<WatchedEdges> {
        Some(WatchedEdges {
            watched_nodes: self.watched_nodes,
            outside: self.outside,
            from_outside: self.from_outside,
        })
    }
}

/// The watched paths as a trie of keys, and what [`WatchedEdges`] holds, being filled.
pub(super) struct Watch {
    /// (state of the parent, key) → state of the child; state 0 is above the root groups.
    trie: FastMap<(u32, NodeKey), u32>,
    /// Per trie state: whether a watched path ends there.
    ends: Vec<bool>,
    /// Per node: its trie state, if its path is a prefix of a watched one.
    node_states: Vec<Option<u32>>,
    /// Per node: whether it or an ancestor is watched (its objects are not `outside`).
    inside: Vec<bool>,
    watched_nodes: Vec<bool>,
    outside: BitSet,
    from_outside: BitSet,
}

impl Watch {
    pub(super) fn new(watched: &[Vec<NodeKey>], objects: usize) -> Watch {
        let mut trie = FastMap::default();
        let mut ends = vec![false];
        for path in watched {
            let mut state = 0;
            for &key in path {
                let next = ends.len() as u32;
                state = *trie.entry((state, key)).or_insert(next);
                if state == next {
                    ends.push(false);
                }
            }
            ends[state as usize] = true;
        }
        Watch {
            trie,
            ends,
            node_states: Vec::new(),
            inside: Vec::new(),
            watched_nodes: Vec::new(),
            outside: BitSet::new(objects),
            from_outside: BitSet::new(objects),
        }
    }

    /// Notes node `id`, just created under `parent` with `key`.
    fn add_node(&mut self, parent: Option<NodeId>, key: NodeKey) {
        let parent_state = match parent {
            Some(parent) => self.node_states[parent as usize],
            None => Some(0),
        };
        let state = parent_state.and_then(|state| self.trie.get(&(state, key)).copied());
        let watched = state.is_some_and(|state| self.ends[state as usize]);
        let inside = watched || parent.is_some_and(|parent| self.inside[parent as usize]);
        self.node_states.push(state);
        self.watched_nodes.push(watched);
        self.inside.push(inside);
    }
}
