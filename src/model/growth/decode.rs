//! The walk's decoding: turning queued objects into steps (the location part of the key of the
//! node each reference leads to), for the pipeline of [`super::decode_queue`] that runs it on
//! two threads ahead of the walk that groups them.

use super::bitset::BitSet;
use super::cleared::ClearedReferences;
use super::containers::Containers;
use super::key::{NodeId, StepKind};
use super::names::{NameId, SnapshotNames};
use super::roots::NonStrongFields;
use crate::heap::{ClassIndex, HeapGraph, ObjectIndex, ObjectKind, Reference, ReferenceKind};

/// How many objects ahead of the one being decoded the decoder prefetches: far enough for a
/// load from memory to finish in the meantime.
const PREFETCH_DISTANCE: usize = 16;

/// Objects decoded together. Large enough that hand-offs are rare, small enough that the
/// buffers stay in cache.
pub(super) const DECODE_BLOCK: usize = 4096;

/// How many collections ahead the decoder fetches the first records of their internals.
const CONTAINERS_AHEAD: usize = 8;

/// Which references the walk follows, and which lead into a collection's internals. They
/// depend only on the snapshot, so the decoding threads apply them.
pub(super) struct Rules {
    pub(super) containers: Containers,
    /// `Reference.referent` and `discovered`, never strong paths.
    pub(super) non_strong: NonStrongFields,
    /// References the collector cleared, which the walk takes last.
    cleared: ClearedReferences,
}

impl Rules {
    pub(super) fn new(graph: &HeapGraph) -> Rules {
        Rules {
            containers: Containers::new(graph),
            non_strong: NonStrongFields::new(graph),
            cleared: ClearedReferences::new(graph),
        }
    }

    /// Whether `object` is a reference the collector cleared (see [`super::cleared`]).
    #[inline]
    pub(super) fn is_cleared(&self, graph: &HeapGraph, object: ObjectIndex) -> bool {
        self.cleared.is_cleared(graph, object)
    }

    /// Whether `class` is `java.lang.ref.Reference` or a subclass.
    pub(super) fn is_reference(&self, class: ClassIndex) -> bool {
        self.cleared.is_reference(class)
    }

    fn is_not_strong(&self, reference: Reference) -> bool {
        self.non_strong.contains(reference.kind)
    }

    /// Whether `object` is a collection whose internals the walk looks through.
    fn is_container(&self, graph: &HeapGraph, object: ObjectIndex) -> bool {
        graph.kind(object) == ObjectKind::Instance
            && self.containers.is_container(graph.class_of(object))
    }

    /// Whether `reference`, read from a collection or one of its internal objects (of class
    /// `class`; `container` says whether that object is a collection itself), leads to more
    /// internals: through one of the collection rule's fields, or to an object of a
    /// collection-internal class (so `LinkedHashMap.head` is internal too).
    fn leads_inside(
        &self,
        graph: &HeapGraph,
        class: ClassIndex,
        container: bool,
        reference: Reference,
    ) -> bool {
        (container
            && self
                .containers
                .entry_fields(class)
                .contains(&field_of(reference.kind)))
            || self
                .containers
                .is_internal_class(graph.class_of(reference.target))
    }
}

/// A reference as the walk groups it: the location part of the key of the node its target
/// joins (the target's class completes it), or whether it leads into a collection's
/// internals instead. Decoding threads work these out, so the walk itself mostly looks keys
/// up.
#[derive(Clone, Copy)]
pub(super) struct Step {
    pub(super) target: ObjectIndex,
    pub(super) kind: StepKind,
    /// Leads into the internals of the collection being expanded.
    pub(super) inside: bool,
    pub(super) owner: NameId,
    pub(super) name: NameId,
}

/// What a reference from a collection's internal object leads to. Every such step is an
/// `ARRAY_ENTRY` of the collection's class, so this is all an internal step keeps beside its
/// target. A large collection's traced internals are the analysis's largest buffer (the
/// benchmark heap's map of 83,333 customers: 250,000 steps), and 16-byte [`Step`]s held
/// them in 3 times the room.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum InternalRole {
    /// More internals of the collection.
    Inside,
    /// An element, named `[x]`.
    Element,
    /// A map key, named `[key]`.
    Key,
}

/// The steps of internal objects, as targets and their roles side by side (5 bytes a step).
#[derive(Default)]
pub(super) struct InternalSteps {
    targets: Vec<ObjectIndex>,
    roles: Vec<InternalRole>,
}

impl InternalSteps {
    fn len(&self) -> usize {
        self.targets.len()
    }

    pub(super) fn clear(&mut self) {
        self.targets.clear();
        self.roles.clear();
    }

    fn push(&mut self, target: ObjectIndex, role: InternalRole) {
        self.targets.push(target);
        self.roles.push(role);
    }

    fn shrink_to(&mut self, capacity: usize) {
        self.targets.shrink_to(capacity);
        self.roles.shrink_to(capacity);
    }

    /// Steps `start..end`, or all of them.
    fn slice(&self, range: std::ops::Range<usize>) -> InternalStepSlice<'_> {
        InternalStepSlice {
            targets: &self.targets[range.clone()],
            roles: &self.roles[range],
        }
    }

    pub(super) fn all(&self) -> InternalStepSlice<'_> {
        self.slice(0..self.len())
    }
}

/// The steps of one internal object.
#[derive(Clone, Copy)]
pub(super) struct InternalStepSlice<'s> {
    targets: &'s [ObjectIndex],
    roles: &'s [InternalRole],
}

impl<'s> InternalStepSlice<'s> {
    pub(super) fn iter(self) -> impl Iterator<Item = (ObjectIndex, InternalRole)> + 's {
        self.targets.iter().copied().zip(self.roles.iter().copied())
    }
}

/// References the buffer of a [`StepMaker`] keeps room for between objects: what ordinary
/// objects and most arrays have.
const REFERENCES_KEPT: usize = 4096;

/// Turns references into steps, for a decoding thread or the walk.
pub(super) struct StepMaker<'a> {
    graph: &'a HeapGraph,
    rules: &'a Rules,
    names: &'a SnapshotNames,
    /// Reused buffer for one object's references.
    references: Vec<Reference>,
}

impl<'a> StepMaker<'a> {
    pub(super) fn new(
        graph: &'a HeapGraph,
        rules: &'a Rules,
        names: &'a SnapshotNames,
    ) -> StepMaker<'a> {
        StepMaker {
            graph,
            rules,
            names,
            references: Vec::new(),
        }
    }

    /// Loads `object`'s references into the buffer.
    fn read(&mut self, object: ObjectIndex) {
        self.references.clear();
        // A large array's references (16 bytes each: 2 MB for the benchmark heap's map table)
        // are not kept for the rest of the walk.
        self.references.shrink_to(REFERENCES_KEPT);
        let graph = self.graph;
        graph.for_each_reference(object, |reference| self.references.push(reference));
    }

    /// What the walk follows from one object: its references except weak ones, as steps.
    /// `container` says whether the object is a collection, whose internals its steps may
    /// lead into.
    fn object_steps(
        &mut self,
        object: ObjectIndex,
        class: ClassIndex,
        container: bool,
        out: &mut Vec<Step>,
    ) {
        self.read(object);
        let (graph, rules, names) = (self.graph, self.rules, self.names);
        for &reference in &self.references {
            if rules.is_not_strong(reference) {
                continue;
            }
            let inside = container && rules.leads_inside(graph, class, true, reference);
            let (kind, owner, name) = names.location(class, reference);
            out.push(Step {
                target: reference.target,
                kind,
                inside,
                owner,
                name,
            });
        }
    }

    /// What the walk follows from an internal object of a collection: steps into more
    /// internals, or to the collection's elements, keys apart for maps (unless
    /// `keys_are_elements`, for sets built on maps).
    pub(super) fn internal_steps(
        &mut self,
        internal: ObjectIndex,
        keys_are_elements: bool,
        out: &mut InternalSteps,
    ) {
        self.read(internal);
        let (graph, rules, names) = (self.graph, self.rules, self.names);
        let class = graph.class_of(internal);
        let container = rules.is_container(graph, internal);
        for &reference in &self.references {
            if rules.is_not_strong(reference) {
                continue;
            }
            let role = if rules.leads_inside(graph, class, container, reference) {
                InternalRole::Inside
            } else {
                match reference.kind {
                    ReferenceKind::InstanceField {
                        declaring_class,
                        field,
                    } if !keys_are_elements
                        && names.instance_fields[declaring_class as usize][field as usize]
                            == names.key_field =>
                    {
                        InternalRole::Key
                    }
                    _ => InternalRole::Element,
                }
            };
            out.push(reference.target, role);
        }
    }
}

/// The class, kind and size of a decoded object, and where its steps end.
#[derive(Clone, Copy)]
pub(super) struct DecodedObject {
    pub(super) class: ClassIndex,
    /// An instance of a collection class (see [`Rules::is_container`]).
    pub(super) container: bool,
    pub(super) bytes: u64,
    /// End of its steps in [`DecodedBlock::steps`].
    pub(super) steps_end: u32,
    /// End of its collection's traced internals in [`DecodedBlock::internals`].
    pub(super) internals_end: u32,
}

/// The steps of a block of queued objects, decoded ahead of the walk, with the internal
/// objects of the collections among them.
#[derive(Default)]
pub(super) struct DecodedBlock {
    pub(super) objects: Vec<ObjectIndex>,
    /// The node of each object (not needed for decoding, but read in order with the objects).
    pub(super) nodes: Vec<NodeId>,
    decoded: Vec<DecodedObject>,
    steps: Vec<Step>,
    internals: DecodedBlockInternals,
}

/// Internal objects in the order a walk expands them, and their steps.
#[derive(Default)]
struct DecodedBlockInternals {
    ids: Vec<ObjectIndex>,
    /// End of each one's steps in `steps`.
    ends: Vec<u32>,
    steps: InternalSteps,
}

/// Steps a spare block keeps room for, at most: what a block of ordinary objects needs
/// (a few per object), not what the block that held a large collection's internals grew to.
const SPARE_STEPS: usize = 8 * DECODE_BLOCK;

impl DecodedBlock {
    /// Gives back the room a large object's steps took, before the block waits as a spare:
    /// spares kept every block's largest size, at the analysis's memory peak (15 bytes per
    /// object on the benchmark heap, a third of the peak).
    pub(super) fn trim(&mut self) {
        self.steps.shrink_to(SPARE_STEPS);
        self.internals.ids.shrink_to(SPARE_STEPS);
        self.internals.ends.shrink_to(SPARE_STEPS);
        self.internals.steps.shrink_to(SPARE_STEPS);
    }

    /// The steps of the object at `index` in the block, and its traced internals.
    pub(super) fn object(&self, index: usize) -> (DecodedObject, &[Step], TracedInternals<'_>) {
        let (steps_start, internals_start) = match index.checked_sub(1) {
            Some(before) => {
                let before = self.decoded[before];
                (before.steps_end, before.internals_end)
            }
            None => (0, 0),
        };
        let object = self.decoded[index];
        let steps = &self.steps[steps_start as usize..object.steps_end as usize];
        let internals = TracedInternals {
            traced: &self.internals,
            next: internals_start as usize,
            end: object.internals_end as usize,
        };
        (object, steps, internals)
    }
}

/// A decoding thread's side: decodes blocks, and traces the internals of the collections in
/// them as the walk will (it can't know what the walk has reached, so it assumes nothing).
pub(super) struct Decoder<'a> {
    pub(super) maker: StepMaker<'a>,
    /// Internal objects of the collection being traced; emptied after each.
    pub(super) traced: BitSet,
    pub(super) stack: Vec<ObjectIndex>,
    /// Positions of the collections in the block being decoded.
    pub(super) containers: Vec<usize>,
}

impl Decoder<'_> {
    pub(super) fn decode(&mut self, block: &mut DecodedBlock) {
        let (graph, rules) = (self.maker.graph, self.maker.rules);
        block.decoded.clear();
        block.steps.clear();
        block.internals.ids.clear();
        block.internals.ends.clear();
        block.internals.steps.clear();
        self.containers.clear();
        let mut steps_start = 0;
        for (i, &object) in block.objects.iter().enumerate() {
            if let Some(&ahead) = block.objects.get(i + 2 * PREFETCH_DISTANCE) {
                graph.prefetch_entries(ahead);
            }
            if let Some(&ahead) = block.objects.get(i + PREFETCH_DISTANCE) {
                graph.prefetch(ahead);
            }
            let class = graph.class_of(object);
            let container = rules.is_container(graph, object);
            self.maker
                .object_steps(object, class, container, &mut block.steps);
            if container {
                self.containers.push(i);
                for step in &block.steps[steps_start..] {
                    graph.prefetch_entries(step.target);
                }
            }
            block.decoded.push(DecodedObject {
                class,
                container,
                bytes: graph.shallow_size(object),
                steps_end: block.steps.len() as u32,
                internals_end: 0,
            });
            steps_start = block.steps.len();
        }
        // Collections' internals go second, when the records of their first internal objects
        // (an `ArrayList`'s array, a `HashMap`'s table) can be fetched a few collections ahead.
        let steps_of = |decoded: &[DecodedObject], i: usize| {
            let start = i
                .checked_sub(1)
                .map_or(0, |before| decoded[before].steps_end);
            start as usize..decoded[i].steps_end as usize
        };
        for k in 0..self.containers.len() {
            if let Some(&later) = self.containers.get(k + CONTAINERS_AHEAD) {
                for step in &block.steps[steps_of(&block.decoded, later)] {
                    graph.prefetch(step.target);
                }
            }
            let i = self.containers[k];
            self.trace_internals(
                block.decoded[i].class,
                &block.steps[steps_of(&block.decoded, i)],
                &mut block.internals,
            );
            block.decoded[i].internals_end = block.internals.ids.len() as u32;
        }
        let mut internals_end = 0;
        for decoded in &mut block.decoded {
            if decoded.container {
                internals_end = decoded.internals_end;
            }
            decoded.internals_end = internals_end;
        }
    }

    /// The depth-first walk of [`Walk::expand_internals`] through the internals of one
    /// collection of class `class` whose steps are `steps`, recording each internal object's
    /// steps.
    fn trace_internals(
        &mut self,
        class: ClassIndex,
        steps: &[Step],
        out: &mut DecodedBlockInternals,
    ) {
        let (graph, rules) = (self.maker.graph, self.maker.rules);
        // The walk holds cleared internal objects back for later, so they are not traced
        // here, where it would expect the ones after them.
        let traces = |traced: &mut BitSet, internal: ObjectIndex| {
            !rules.is_cleared(graph, internal) && !traced.test_and_set(internal)
        };
        for step in steps {
            if step.inside && traces(&mut self.traced, step.target) {
                self.stack.push(step.target);
            }
        }
        let keys_are_elements = rules.containers.keys_are_elements(class);
        let first = out.ids.len();
        while let Some(internal) = self.stack.pop() {
            // The stack's deeper entries are popped later (unless what is popped before them
            // pushes more).
            let depth = self.stack.len();
            if let Some(at) = depth.checked_sub(2 * PREFETCH_DISTANCE) {
                graph.prefetch_entries(self.stack[at]);
            }
            if let Some(at) = depth.checked_sub(PREFETCH_DISTANCE) {
                graph.prefetch(self.stack[at]);
            }
            let start = out.steps.len();
            self.maker
                .internal_steps(internal, keys_are_elements, &mut out.steps);
            for (target, role) in out.steps.slice(start..out.steps.len()).iter() {
                if role == InternalRole::Inside && traces(&mut self.traced, target) {
                    self.stack.push(target);
                }
            }
            out.ids.push(internal);
            out.ends.push(out.steps.len() as u32);
        }
        for &internal in &out.ids[first..] {
            self.traced.remove(internal);
        }
    }
}

/// The internals traced for one collection, consumed in order by the walk.
pub(super) struct TracedInternals<'b> {
    traced: &'b DecodedBlockInternals,
    next: usize,
    end: usize,
}

/// Nothing traced, for internals the walk expands later than the block they were met in.
static NOTHING_TRACED: DecodedBlockInternals = DecodedBlockInternals {
    ids: Vec::new(),
    ends: Vec::new(),
    steps: InternalSteps {
        targets: Vec::new(),
        roles: Vec::new(),
    },
};

impl<'b> TracedInternals<'b> {
    /// No traced internals: the walk decodes each internal object itself.
    pub(super) fn none() -> TracedInternals<'static> {
        TracedInternals {
            traced: &NOTHING_TRACED,
            next: 0,
            end: 0,
        }
    }

    /// The steps of `internal` if it is the next traced object. It isn't when the walk had
    /// reached some of the collection's internals before (through another path, or another
    /// collection sharing them), and then the walk decodes the object itself.
    pub(super) fn next_if(&mut self, internal: ObjectIndex) -> Option<InternalStepSlice<'b>> {
        if self.next >= self.end || self.traced.ids[self.next] != internal {
            return None;
        }
        let start = self
            .next
            .checked_sub(1)
            .map_or(0, |before| self.traced.ends[before]);
        let end = self.traced.ends[self.next];
        self.next += 1;
        Some(self.traced.steps.slice(start as usize..end as usize))
    }
}

/// `(declaring class, field)` of an instance-field reference; a value no field has otherwise.
fn field_of(kind: ReferenceKind) -> (ClassIndex, u16) {
    match kind {
        ReferenceKind::InstanceField {
            declaring_class,
            field,
        } => (declaring_class, field),
        _ => (ClassIndex::MAX, u16::MAX),
    }
}
