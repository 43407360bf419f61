//! Each growth rule on synthetic heaps: a closure builds the heap a scenario would have after
//! a given number of loops, and the search runs over it as it would over real snapshots.

use super::*;
use crate::heap::builder::{HeapBuilder, Value};
use crate::heap::{FieldType, HeapGraph, PrimitiveType};

/// Runs a search with default settings over `heap_after(loops)`.
fn search(heap_after: impl Fn(u32) -> HeapGraph) -> SearchOutcome {
    let mut search = GrowthSearch::new(SearchConfig::default());
    let mut loops = DEFAULT_WARMUP_LOOPS;
    loop {
        match search.add_snapshot(&heap_after(loops), loops) {
            NextStep::RunLoops(more) => loops += more,
            NextStep::Done => return search.finish(),
        }
    }
}

/// A builder with the JDK classes the tests use, laid out as in OpenJDK 17.
struct Jdk {
    h: HeapBuilder,
    array_list: ClassRef,
    item: ClassRef,
}

type ClassRef = crate::heap::builder::ClassId;
type ObjRef = crate::heap::builder::ObjectId;

impl Jdk {
    fn new() -> Jdk {
        let mut h = HeapBuilder::new();
        let object = h.class_named("java.lang.Object");
        let abstract_list = h.class(
            "java.util.AbstractList",
            Some(object),
            &[("modCount", FieldType::Primitive(PrimitiveType::Int))],
        );
        let array_list = h.class(
            "java.util.ArrayList",
            Some(abstract_list),
            &[
                ("elementData", FieldType::Object),
                ("size", FieldType::Primitive(PrimitiveType::Int)),
            ],
        );
        let item = h.class(
            "com.example.Item",
            Some(object),
            &[("name", FieldType::Object)],
        );
        Jdk {
            h,
            array_list,
            item,
        }
    }

    fn object(&self) -> ClassRef {
        self.h.class_named("java.lang.Object")
    }

    /// An `ArrayList` holding `elements`, with spare capacity like the real one.
    fn array_list(&mut self, elements: &[ObjRef]) -> ObjRef {
        let mut slots: Vec<Option<ObjRef>> = elements.iter().copied().map(Some).collect();
        slots.resize(elements.len().max(10) + 2, None);
        let data = self.h.object_array("java.lang.Object[]", &slots);
        self.h.instance(
            self.array_list,
            &[
                ("elementData", Value::Ref(data)),
                ("size", Value::Int(elements.len() as i32)),
            ],
        )
    }

    fn items(&mut self, count: u32) -> Vec<ObjRef> {
        (0..count)
            .map(|_| self.h.instance(self.item, &[]))
            .collect()
    }

    /// A class `name` whose static `field` holds `value`.
    fn holder(&mut self, name: &str, field: &str, value: ObjRef) -> ClassRef {
        let object = self.object();
        let class = self.h.class(name, Some(object), &[]);
        self.h.static_field(class, field, FieldType::Object);
        self.h.set_static(class, field, Value::Ref(value));
        class
    }

    fn build(self) -> HeapGraph {
        self.h.build()
    }
}

fn last_step(node: &GrowingNode) -> String {
    node.path.last().unwrap().to_string()
}

fn reported(outcome: &SearchOutcome) -> Vec<String> {
    outcome.growing.iter().map(last_step).collect()
}

/// A static list that gains one item per loop.
fn static_list_heap(items: u32) -> HeapGraph {
    let mut jdk = Jdk::new();
    let items = jdk.items(items);
    let list = jdk.array_list(&items);
    jdk.holder("com.example.Cart", "items", list);
    jdk.build()
}

#[test]
fn a_static_list_that_gains_an_item_every_loop_is_reported_with_its_elements() {
    let outcome = search(static_list_heap);
    assert_eq!(
        reported(&outcome),
        ["STATIC_FIELD Cart.items -> instance of java.util.ArrayList"]
    );
    let node = &outcome.growing[0];
    assert_eq!(node.path[0].kind, StepKind::GcRoot);
    assert_eq!(node.path[0].name, "Class");
    // Elements seen through ArrayList's internals, not as elementData -> Object[].
    let child = &node.children[0];
    assert_eq!(
        child.step.to_string(),
        "ARRAY_ENTRY ArrayList.[x] -> instance of com.example.Item"
    );
    assert_eq!(child.objects, u64::from(outcome.loops));
    // 3 warm-up loops, then 4 snapshots 2 loops apart, then 11 loops again over 2 snapshots.
    assert_eq!(node.children_objects, vec![3, 5, 7, 9, 11, 17, 23]);
    assert_eq!((outcome.loops, outcome.snapshots), (23, 7));
    assert_eq!(child.new, 6);
    // The list, its array and its 23 items.
    assert_eq!(node.retained.objects, 25);
    assert_eq!(node.retained.objects_increase, 6);
    assert!(node.retained.bytes_increase > 0);
}

#[test]
fn clean_heaps_stop_after_three_snapshots() {
    let outcome = search(|_| static_list_heap(5));
    assert!(outcome.growing.is_empty());
    assert_eq!(
        outcome.snapshots, 3,
        "no node can reach three growing diffs after two flat ones"
    );
}

#[test]
fn a_cache_that_levels_off_during_confirmation_is_not_reported() {
    // BLeak's false positives: grows through detection (up to 11), full at 12.
    let outcome = search(|loops| static_list_heap(loops.min(12)));
    assert!(outcome.growing.is_empty());
    assert_eq!(outcome.leveled_off.len(), 1);
    assert_eq!(outcome.snapshots, 7);
}

#[test]
fn growth_slower_than_one_object_per_loop_is_reported() {
    // Shark needs `loops` new objects in one child per snapshot and misses this.
    let outcome = search(|loops| static_list_heap(loops / 2));
    assert_eq!(
        reported(&outcome),
        ["STATIC_FIELD Cart.items -> instance of java.util.ArrayList"]
    );
}

#[test]
fn growth_that_alternates_between_two_classes_is_reported() {
    // Shark: neither child class gains `loops` objects per snapshot.
    let outcome = search(|loops| {
        let mut jdk = Jdk::new();
        let object = jdk.object();
        let apple = jdk.h.class("com.example.Apple", Some(object), &[]);
        let orange = jdk.h.class("com.example.Orange", Some(object), &[]);
        let fruit: Vec<ObjRef> = (0..loops)
            .map(|i| jdk.h.instance(if i % 2 == 0 { apple } else { orange }, &[]))
            .collect();
        let list = jdk.array_list(&fruit);
        jdk.holder("com.example.Basket", "fruit", list);
        jdk.build()
    });
    assert_eq!(
        reported(&outcome),
        ["STATIC_FIELD Basket.fruit -> instance of java.util.ArrayList"]
    );
    assert_eq!(outcome.growing[0].children.len(), 2);
}

#[test]
fn growth_in_bytes_without_more_objects_is_reported() {
    // A StringBuilder that lengthens: one byte[] that gets longer.
    let outcome = search(|loops| {
        let mut jdk = Jdk::new();
        let object = jdk.object();
        let builder = jdk.h.class(
            "java.lang.StringBuilder",
            Some(object),
            &[("value", FieldType::Object)],
        );
        let bytes = jdk.h.primitive_array(PrimitiveType::Byte, 64 * loops);
        let log = jdk.h.instance(builder, &[("value", Value::Ref(bytes))]);
        jdk.holder("com.example.Audit", "log", log);
        jdk.build()
    });
    assert_eq!(
        reported(&outcome),
        ["STATIC_FIELD Audit.log -> instance of java.lang.StringBuilder"]
    );
}

#[test]
fn an_array_replaced_by_a_longer_copy_every_loop_is_reported_not_its_root() {
    // The root group's children gain bytes (the longer array), but the array's own node
    // explains that: it gains elements.
    let outcome = search(|loops| {
        let mut jdk = Jdk::new();
        let items: Vec<Option<ObjRef>> = jdk.items(loops).into_iter().map(Some).collect();
        let array = jdk.h.object_array("java.lang.Object[]", &items);
        jdk.holder("com.example.Table", "rows", array);
        jdk.build()
    });
    assert_eq!(
        reported(&outcome),
        ["STATIC_FIELD Table.rows -> instance of java.lang.Object[]"]
    );
}

#[test]
fn a_leak_that_starts_after_the_first_snapshot_is_reported() {
    // Shark stops at the first snapshot without growth.
    let outcome = search(|loops| static_list_heap(loops.saturating_sub(6)));
    assert_eq!(
        reported(&outcome),
        ["STATIC_FIELD Cart.items -> instance of java.util.ArrayList"]
    );
}

#[test]
fn a_node_under_a_growing_node_is_not_reported_again() {
    // A growing list of lists whose inner lists also grow.
    let outcome = search(|loops| {
        let mut jdk = Jdk::new();
        let inner: Vec<ObjRef> = (0..loops)
            .map(|_| {
                let items = jdk.items(loops);
                jdk.array_list(&items)
            })
            .collect();
        let outer = jdk.array_list(&inner);
        jdk.holder("com.example.Matrix", "rows", outer);
        jdk.build()
    });
    assert_eq!(
        reported(&outcome),
        ["STATIC_FIELD Matrix.rows -> instance of java.util.ArrayList"]
    );
}

#[test]
fn objects_reachable_only_through_weak_references_are_not_on_a_path() {
    let outcome = search(|loops| {
        let mut jdk = Jdk::new();
        let items = jdk.items(loops);
        let list = jdk.array_list(&items);
        let weak_class = jdk.h.class_named("java.lang.ref.WeakReference");
        let weak = jdk
            .h
            .instance(weak_class, &[("referent", Value::Ref(list))]);
        jdk.holder("com.example.WeakCache", "ref", weak);
        jdk.build()
    });
    assert!(outcome.growing.is_empty(), "{:?}", reported(&outcome));
}

#[test]
fn a_linked_chain_folds_into_one_node_that_grows() {
    let outcome = search(|loops| {
        let mut jdk = Jdk::new();
        let object = jdk.object();
        let node_class = jdk.h.class(
            "com.example.Node",
            Some(object),
            &[("next", FieldType::Object), ("payload", FieldType::Object)],
        );
        let mut head: Option<ObjRef> = None;
        for _ in 0..loops {
            let payload = jdk.h.instance(jdk.item, &[]);
            let next = head.map_or(Value::Null, Value::Ref);
            head = Some(jdk.h.instance(
                node_class,
                &[("next", next), ("payload", Value::Ref(payload))],
            ));
        }
        jdk.holder("com.example.Chain", "head", head.unwrap());
        jdk.build()
    });
    assert_eq!(
        reported(&outcome),
        ["STATIC_FIELD Chain.head -> instance of com.example.Node"]
    );
    let children: Vec<(String, u64)> = outcome.growing[0]
        .children
        .iter()
        .map(|c| (c.step.to_string(), c.objects))
        .collect();
    assert_eq!(
        children,
        [
            (
                "INSTANCE_FIELD Node.next -> instance of com.example.Node".to_owned(),
                22
            ),
            // The head's own payload; the others hang off the folded chain.
            (
                "INSTANCE_FIELD Node.payload -> instance of com.example.Item".to_owned(),
                1
            ),
        ]
    );
}

#[test]
fn several_owners_of_one_class_are_one_node() {
    let outcome = search(|loops| {
        let mut jdk = Jdk::new();
        let object = jdk.object();
        let registry = jdk.h.class(
            "com.example.Registry",
            Some(object),
            &[("entries", FieldType::Object)],
        );
        let registries: Vec<ObjRef> = (0..3)
            .map(|_| {
                let items = jdk.items(loops);
                let list = jdk.array_list(&items);
                jdk.h.instance(registry, &[("entries", Value::Ref(list))])
            })
            .collect();
        let all = jdk.array_list(&registries);
        jdk.holder("com.example.App", "registries", all);
        jdk.build()
    });
    assert_eq!(
        reported(&outcome),
        ["INSTANCE_FIELD Registry.entries -> instance of java.util.ArrayList"]
    );
    let node = &outcome.growing[0];
    assert_eq!(node.path.last().unwrap().objects, 3);
    assert_eq!(node.children[0].new, 18, "three lists, six loops each");
}

#[test]
fn a_local_variable_of_a_thread_hangs_off_the_thread() {
    let outcome = search(|loops| {
        let mut jdk = Jdk::new();
        let thread_class = jdk.h.class_named("java.lang.Thread");
        let thread = jdk.h.instance(thread_class, &[]);
        jdk.h.thread(thread);
        let items = jdk.items(loops);
        let list = jdk.array_list(&items);
        jdk.h.frame_local(list, thread);
        jdk.build()
    });
    let node = &outcome.growing[0];
    let path: Vec<String> = node.path.iter().map(ToString::to_string).collect();
    assert_eq!(
        path,
        [
            "GcRoot(ThreadObject)",
            "LOCAL Thread. -> instance of java.util.ArrayList"
        ]
    );
}

#[test]
fn retained_size_splits_objects_shared_by_two_growing_nodes() {
    // Two lists of their own items; every item of both references one shared catalog.
    let outcome = search(|loops| {
        let mut jdk = Jdk::new();
        let object = jdk.object();
        let catalog_class = jdk.h.class("com.example.Catalog", Some(object), &[]);
        let priced = jdk.h.class(
            "com.example.Priced",
            Some(object),
            &[("catalog", FieldType::Object)],
        );
        let catalog = jdk.h.instance(catalog_class, &[]);
        for owner in ["com.example.First", "com.example.Second"] {
            let items: Vec<ObjRef> = (0..loops)
                .map(|_| jdk.h.instance(priced, &[("catalog", Value::Ref(catalog))]))
                .collect();
            let list = jdk.array_list(&items);
            jdk.holder(owner, "items", list);
        }
        jdk.build()
    });
    assert_eq!(outcome.growing.len(), 2);
    // Each: its list, the list's array, 23 items, and half of the catalog (25.5, rounded).
    let retained: Vec<u64> = outcome.growing.iter().map(|n| n.retained.objects).collect();
    assert_eq!(retained, [26, 26]);
}

#[test]
fn the_same_heaps_give_the_same_outcome() {
    assert_eq!(search(static_list_heap), search(static_list_heap));
}

/// A `HashMap` held by `Index.byName` with an entry per loop (a `String` key, an `Item`
/// value). With `pin`, `Pins.pinned` holds the node of that entry, and the walk reaches it
/// before the map.
fn hash_map_heap(loops: u32, pin: Option<u32>) -> HeapGraph {
    let mut jdk = Jdk::new();
    let object = jdk.object();
    let abstract_map = jdk.h.class(
        "java.util.AbstractMap",
        Some(object),
        &[("keySet", FieldType::Object)],
    );
    let hash_map = jdk.h.class(
        "java.util.HashMap",
        Some(abstract_map),
        &[("table", FieldType::Object)],
    );
    let node = jdk.h.class(
        "java.util.HashMap$Node",
        Some(object),
        &[
            ("key", FieldType::Object),
            ("value", FieldType::Object),
            ("next", FieldType::Object),
        ],
    );
    // Two buckets, entries chained through `next`, as a real table has them.
    let mut buckets: [Option<ObjRef>; 2] = [None, None];
    let mut pinned = None;
    for i in 0..loops {
        let key = jdk.h.string(&format!("key-{i}"));
        let value = jdk.h.instance(jdk.item, &[]);
        let next = buckets[(i % 2) as usize].map_or(Value::Null, Value::Ref);
        let entry = jdk.h.instance(
            node,
            &[
                ("key", Value::Ref(key)),
                ("value", Value::Ref(value)),
                ("next", next),
            ],
        );
        buckets[(i % 2) as usize] = Some(entry);
        if pin == Some(i) {
            pinned = Some(entry);
        }
    }
    if let Some(pinned) = pinned {
        jdk.holder("com.example.Pins", "pinned", pinned);
    }
    let table = jdk.h.object_array("java.util.HashMap$Node[]", &buckets);
    let map = jdk.h.instance(hash_map, &[("table", Value::Ref(table))]);
    jdk.holder("com.example.Index", "byName", map);
    jdk.build()
}

fn children(node: &GrowingNode) -> Vec<String> {
    node.children
        .iter()
        .map(|c| format!("{} {}", c.objects, c.step))
        .collect()
}

/// The walk expands a collection's internals from what another thread traced ahead of it,
/// assuming none of them was reached before; here one was, and the rest must still land in
/// the map.
#[test]
fn a_map_entry_reached_before_the_map_belongs_to_its_first_path() {
    // The pinned entry starts the chain of the bucket the walk expands first.
    let outcome = search(|loops| hash_map_heap(loops, Some(1)));
    assert_eq!(
        reported(&outcome),
        ["STATIC_FIELD Index.byName -> instance of java.util.HashMap"]
    );
    assert_eq!(
        children(&outcome.growing[0]),
        [
            "22 ARRAY_ENTRY HashMap.[key] -> instance of java.lang.String",
            "22 ARRAY_ENTRY HashMap.[x] -> instance of com.example.Item",
        ]
    );
}

#[test]
fn a_hash_map_shows_its_keys_and_values_as_children() {
    let outcome = search(|loops| hash_map_heap(loops, None));
    assert_eq!(
        reported(&outcome),
        ["STATIC_FIELD Index.byName -> instance of java.util.HashMap"]
    );
    assert_eq!(
        children(&outcome.growing[0]),
        [
            "23 ARRAY_ENTRY HashMap.[key] -> instance of java.lang.String",
            "23 ARRAY_ENTRY HashMap.[x] -> instance of com.example.Item",
        ]
    );
    // The normalized report names what grew, and nothing that varies.
    let normalized = crate::report::normalized_node(&outcome.growing[0], None);
    assert_eq!(
        normalized,
        "GcRoot(Class)\n\
         ╰→STATIC_FIELD Index.byName -> instance of java.util.HashMap\n    \
         grows: ARRAY_ENTRY HashMap.[key] -> instance of java.lang.String\n    \
         grows: ARRAY_ENTRY HashMap.[x] -> instance of com.example.Item\n"
    );
}
