//! The walk's decoding pipeline: queued objects decoded into steps ([`super::decode`]) on two
//! threads, ahead of the walk that groups them.
//!
//! Decoding references from the mapped dump is mostly waiting for memory, and it doesn't
//! depend on the tree, so blocks of the queue are decoded ahead, by a second thread and by
//! the walk's own thread whenever the block it needs next isn't ready. The grouping into nodes
//! happens on the walk's thread in queue order, so the tree is the same as a single-threaded
//! walk's.

use super::bitset::BitSet;
use super::decode::{
    DecodedBlock, DecodedObject, Decoder, Rules, Step, StepMaker, TracedInternals, DECODE_BLOCK,
};
use super::key::NodeId;
use super::names::SnapshotNames;
use crate::heap::{HeapGraph, ObjectIndex};

/// Blocks queued for decoding ahead of the grouping. Grouping one block can take much longer
/// than decoding the next (or the other way round); some slack keeps both threads busy
/// through such stretches.
const BLOCKS_AHEAD: usize = 4;

/// A value on cache lines of its own, so that no other variable shares them. What the decoding
/// thread reads for every object (the [`Rules`], the snapshot's names) is borrowed from the
/// walk's stack frame, beside the walk's state (its queue's length, its counters), which the
/// walk's thread writes for every object. Where the two fell on one line (which depends on
/// the frame's layout and on where the process's stack starts), every write took the line
/// from the other core and every read took it back: both threads ran at half speed, in many
/// processes (docs/bench.md, "false sharing between the walk and its decoding helper"). 128
/// bytes: the pair of 64-byte lines that x86's adjacent-line prefetcher fetches together.
/// [`walk_in_order`] takes what the helper reads only in this wrapper, so none is left out.
#[repr(align(128))]
pub(super) struct OwnCacheLines<T>(pub(super) T);

/// Blocks of the queue on their way through decoding, oldest first. Either thread decodes any
/// block that is waiting; the walk consumes them in order. On cache lines of its own (as
/// [`OwnCacheLines`]): it lives on the walk's stack beside the walk's own decoder, which the
/// walk's thread writes while the helper takes the lock.
#[repr(align(128))]
struct DecodeQueue {
    state: std::sync::Mutex<DecodeQueueState>,
    /// Signalled when a block is queued for decoding, or the queue closes.
    queued: std::sync::Condvar,
    /// Signalled when a block has been decoded.
    decoded: std::sync::Condvar,
}

#[derive(Default)]
struct DecodeQueueState {
    /// `slots[0]` is the block the walk expands next; its sequence number is `first`.
    slots: std::collections::VecDeque<Slot>,
    first: u64,
    closed: bool,
    /// The helper thread has stopped (only a bug makes it stop early, by panicking).
    helper_gone: bool,
}

enum Slot {
    Waiting(DecodedBlock),
    Decoding,
    Decoded(DecodedBlock),
}

impl DecodeQueueState {
    /// Takes the oldest block waiting to be decoded, with its sequence number.
    fn take_waiting(&mut self) -> Option<(u64, DecodedBlock)> {
        let position = self
            .slots
            .iter()
            .position(|slot| matches!(slot, Slot::Waiting(_)))?;
        let Slot::Waiting(block) = std::mem::replace(&mut self.slots[position], Slot::Decoding)
        else {
            unreachable!("the slot was just found waiting")
        };
        Some((self.first + position as u64, block))
    }

    fn put_decoded(&mut self, sequence: u64, block: DecodedBlock) {
        self.slots[(sequence - self.first) as usize] = Slot::Decoded(block);
    }
}

impl DecodeQueue {
    fn new() -> DecodeQueue {
        DecodeQueue {
            state: Default::default(),
            queued: Default::default(),
            decoded: Default::default(),
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, DecodeQueueState> {
        // Neither side panics while holding the lock; if one did, the walk is lost anyway.
        self.state
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    fn push(&self, block: DecodedBlock) {
        self.lock().slots.push_back(Slot::Waiting(block));
        self.queued.notify_one();
    }

    fn len(&self) -> usize {
        self.lock().slots.len()
    }

    fn close(&self) {
        self.lock().closed = true;
        self.queued.notify_all();
    }

    /// The helper thread: decodes waiting blocks until the queue closes.
    fn help(&self, decoder: &mut Decoder) {
        /// Tells the walk when the helper stops, also by panicking, so it never waits for a
        /// block the helper won't finish.
        struct Stopped<'q>(&'q DecodeQueue);
        impl Drop for Stopped<'_> {
            fn drop(&mut self) {
                self.0.lock().helper_gone = true;
                self.0.decoded.notify_all();
            }
        }
        let _stopped = Stopped(self);
        let mut state = self.lock();
        loop {
            if let Some((sequence, mut block)) = state.take_waiting() {
                drop(state);
                decoder.decode(&mut block);
                state = self.lock();
                state.put_decoded(sequence, block);
                self.decoded.notify_one();
            } else if state.closed {
                return;
            } else {
                state = self.queued.wait(state).unwrap_or_else(|p| p.into_inner());
            }
        }
    }

    /// The oldest block, decoded; while it isn't ready, this thread decodes waiting blocks
    /// too. `None` when no block is queued.
    fn next(&self, decoder: &mut Decoder) -> Option<DecodedBlock> {
        let mut state = self.lock();
        loop {
            match state.slots.front()? {
                Slot::Decoded(_) => {
                    state.first += 1;
                    let Some(Slot::Decoded(block)) = state.slots.pop_front() else {
                        unreachable!("the front slot was just seen decoded")
                    };
                    return Some(block);
                }
                _ => {
                    if let Some((sequence, mut block)) = state.take_waiting() {
                        drop(state);
                        decoder.decode(&mut block);
                        state = self.lock();
                        state.put_decoded(sequence, block);
                    } else if state.helper_gone {
                        panic!("the decoding thread stopped with blocks unfinished");
                    } else {
                        state = self.decoded.wait(state).unwrap_or_else(|p| p.into_inner());
                    }
                }
            }
        }
    }
}

/// Closes the queue when dropped.
struct CloseOnDrop<'q>(&'q DecodeQueue);

impl Drop for CloseOnDrop<'_> {
    fn drop(&mut self) {
        self.0.close();
    }
}

/// What the pipeline decodes for: a walk whose queue grows as it expands the objects in it.
pub(super) trait QueueWalk {
    /// The objects queued so far, and their nodes.
    fn queued(&self) -> (&[ObjectIndex], &[NodeId]);
    /// Groups the steps of the queued `object` (of `node`) into nodes, queuing what they reach.
    fn expand(
        &mut self,
        object: ObjectIndex,
        node: NodeId,
        decoded: DecodedObject,
        steps: &[Step],
        internals: TracedInternals,
    );
}

/// Expands the objects `walk` queued from position `from` on, in queue order, until the queue
/// is exhausted, decoding them ahead on two threads.
pub(super) fn walk_in_order(
    walk: &mut impl QueueWalk,
    from: usize,
    graph: &HeapGraph,
    rules: &OwnCacheLines<Rules>,
    names: &OwnCacheLines<SnapshotNames>,
) {
    let new_decoder = || Decoder {
        maker: StepMaker::new(graph, &rules.0, &names.0),
        traced: BitSet::new(graph.object_count()),
        stack: Vec::new(),
        containers: Vec::new(),
    };
    let blocks = DecodeQueue::new();
    std::thread::scope(|scope| {
        // Without a helper (no thread to be had: a process limit, `ulimit -v`) this thread
        // decodes every block itself.
        let _ = std::thread::Builder::new().spawn_scoped(scope, || blocks.help(&mut new_decoder()));
        // However this thread leaves the walk, panics included, the helper must stop too, or
        // the scope would wait for it forever.
        let _close = CloseOnDrop(&blocks);
        let mut decoder = new_decoder();
        let mut spares: Vec<DecodedBlock> = Vec::new();
        let mut sent = from;
        loop {
            // Releases the dump's pages the walk has read once too many are resident (see
            // `heap::resident`): a block's objects lie all over the dump, and each fault maps
            // up to 64 KiB around the page. The look reads a `/proc` file, a few microseconds.
            crate::heap::resident::release_if_over_budget();
            let mut queued = blocks.len();
            let (objects, nodes) = walk.queued();
            while queued < BLOCKS_AHEAD && sent < objects.len() {
                let mut next = spares.pop().unwrap_or_default();
                let end = objects.len().min(sent + DECODE_BLOCK);
                next.objects.clear();
                next.objects.extend_from_slice(&objects[sent..end]);
                next.nodes.clear();
                next.nodes.extend_from_slice(&nodes[sent..end]);
                sent = end;
                queued += 1;
                blocks.push(next);
            }
            let Some(block) = blocks.next(&mut decoder) else {
                break;
            };
            for (i, (&object, &node)) in block.objects.iter().zip(&block.nodes).enumerate() {
                let (decoded, steps, internals) = block.object(i);
                walk.expand(object, node, decoded, steps, internals);
            }
            let mut block = block;
            block.trim();
            spares.push(block);
        }
    });
}
