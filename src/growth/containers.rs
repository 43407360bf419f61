//! Collections seen as what they hold.
//!
//! A leak in an `ArrayList` shows in the raw graph as `ArrayList.elementData -> Object[]`, then
//! `Object[].[x]`; in a `HashMap` as table → `HashMap$Node[]` → `HashMap$Node.value`, with nodes
//! chained through `next`. Those internals differ between JDK versions and hide the collection
//! the user wrote. As in shark, the path tree looks through them: a collection's elements become
//! its direct children (`ARRAY_ENTRY ArrayList.[x]`), and its internal objects belong to it.
//!
//! A rule names the fields through which a collection class reaches its internals. Objects
//! reached from those fields, and any object whose class is nested in one of the collection
//! classes below (`HashMap$Node`, `LinkedList$Node`, arrays of them), are internal; every other
//! object an internal object references is an element.

use crate::heap::{ClassIndex, HeapGraph};

/// Collection classes and the fields that lead to their internals. Subclasses inherit the rule
/// (`LinkedHashMap` uses `HashMap.table`, a user's `extends ArrayList` class uses `elementData`).
const RULES: &[(&str, &[&str])] = &[
    ("java.util.ArrayList", &["elementData"]),
    ("java.util.Vector", &["elementData"]),
    ("java.util.ArrayDeque", &["elements"]),
    ("java.util.PriorityQueue", &["queue"]),
    ("java.util.LinkedList", &["first", "last"]),
    ("java.util.HashMap", &["table"]),
    ("java.util.Hashtable", &["table"]),
    ("java.util.WeakHashMap", &["table"]),
    ("java.util.IdentityHashMap", &["table"]),
    ("java.util.TreeMap", &["root"]),
    ("java.util.EnumMap", &["vals"]),
    ("java.util.concurrent.CopyOnWriteArrayList", &["array"]),
    (
        "java.util.concurrent.ConcurrentHashMap",
        &["table", "nextTable"],
    ),
    ("java.util.concurrent.ConcurrentSkipListMap", &["head"]),
    (
        "java.util.concurrent.ConcurrentLinkedQueue",
        &["head", "tail"],
    ),
    (
        "java.util.concurrent.ConcurrentLinkedDeque",
        &["head", "tail"],
    ),
    (
        "java.util.concurrent.LinkedBlockingQueue",
        &["head", "last"],
    ),
    (
        "java.util.concurrent.LinkedBlockingDeque",
        &["first", "last"],
    ),
    ("java.util.concurrent.ArrayBlockingQueue", &["items"]),
    ("java.util.concurrent.PriorityBlockingQueue", &["queue"]),
    ("java.lang.ThreadLocal$ThreadLocalMap", &["table"]),
    // Wrappers: the collection they delegate to is part of them.
    ("java.util.HashSet", &["map"]),
    ("java.util.TreeSet", &["m"]),
    ("java.util.concurrent.CopyOnWriteArraySet", &["al"]),
    ("java.util.concurrent.ConcurrentSkipListSet", &["m"]),
    (
        "java.util.concurrent.ConcurrentHashMap$KeySetView",
        &["map"],
    ),
    ("java.util.Collections$SetFromMap", &["m"]),
    ("java.util.Collections$SynchronizedCollection", &["c"]),
    // The list and sorted variants keep the same collection in a field of their own too.
    ("java.util.Collections$SynchronizedList", &["list"]),
    ("java.util.Collections$SynchronizedSortedSet", &["ss"]),
    ("java.util.Collections$SynchronizedNavigableSet", &["ns"]),
    ("java.util.Collections$SynchronizedMap", &["m"]),
    ("java.util.Collections$SynchronizedSortedMap", &["sm"]),
    ("java.util.Collections$SynchronizedNavigableMap", &["nm"]),
    ("java.util.Collections$UnmodifiableCollection", &["c"]),
    ("java.util.Collections$UnmodifiableList", &["list"]),
    ("java.util.Collections$UnmodifiableSortedSet", &["ss"]),
    ("java.util.Collections$UnmodifiableNavigableSet", &["ns"]),
    ("java.util.Collections$UnmodifiableMap", &["m"]),
    ("java.util.Collections$UnmodifiableSortedMap", &["sm"]),
    ("java.util.Collections$UnmodifiableNavigableMap", &["nm"]),
];

/// Sets that keep their elements as the keys of a map they wrap.
const SETS_OVER_MAPS: &[&str] = &[
    "java.util.HashSet",
    "java.util.TreeSet",
    "java.util.concurrent.ConcurrentSkipListSet",
    "java.util.concurrent.ConcurrentHashMap$KeySetView",
    "java.util.Collections$SetFromMap",
];

/// Classes whose nested classes are collection internals even when the class itself has no
/// rule (it inherits one).
const EXTRA_INTERNAL_OUTERS: &[&str] = &["java.util.LinkedHashMap", "java.util.LinkedHashSet"];

/// The field of an internal entry object that holds a map key; its targets are named `[key]`,
/// every other element `[x]`.
pub(crate) const KEY_FIELD: &str = "key";

/// Per-snapshot answers to "is this a collection, and which of its fields are internal?".
#[derive(Debug)]
pub(crate) struct Containers {
    /// For each class: the (declaring class, field index) pairs that lead to internals, or
    /// empty when the class is not a collection.
    entry_fields: Vec<Vec<(ClassIndex, u16)>>,
    /// For each class: whether its instances are internal to a collection.
    internal: Vec<bool>,
    /// For each class: whether it is a set over a map (see [`SETS_OVER_MAPS`]).
    set_over_map: Vec<bool>,
}

impl Containers {
    pub(crate) fn new(graph: &HeapGraph) -> Containers {
        let class_count = graph.class_count();
        let mut direct_rule: Vec<Option<&[&str]>> = vec![None; class_count];
        let mut internal = vec![false; class_count];
        for class in 0..class_count as ClassIndex {
            let name = graph.class(class).name.as_str();
            direct_rule[class as usize] = RULES
                .iter()
                .find(|(rule, _)| *rule == name)
                .map(|(_, fields)| *fields);
            let element = name.trim_end_matches("[]");
            internal[class as usize] = match element.rsplit_once('$') {
                Some(_) => RULES
                    .iter()
                    .map(|(rule, _)| *rule)
                    .chain(EXTRA_INTERNAL_OUTERS.iter().copied())
                    .any(|outer| {
                        element.len() > outer.len()
                            && element.starts_with(outer)
                            && element.as_bytes()[outer.len()] == b'$'
                    }),
                None => false,
            };
        }
        let set_over_map = (0..class_count as ClassIndex)
            .map(|class| {
                let mut current = Some(class);
                while let Some(c) = current {
                    if SETS_OVER_MAPS.contains(&graph.class(c).name.as_str()) {
                        return true;
                    }
                    current = graph.class(c).super_class;
                }
                false
            })
            .collect();
        let entry_fields = (0..class_count as ClassIndex)
            .map(|class| {
                let mut fields = Vec::new();
                let mut current = Some(class);
                while let Some(c) = current {
                    if let Some(names) = direct_rule[c as usize] {
                        let info = graph.class(c);
                        for (index, field) in info.instance_fields.iter().enumerate() {
                            if names.contains(&field.name.as_str()) {
                                fields.push((c, index as u16));
                            }
                        }
                    }
                    current = graph.class(c).super_class;
                }
                fields
            })
            .collect();
        Containers {
            entry_fields,
            internal,
            set_over_map,
        }
    }

    /// The fields of `class` that lead to its internals; empty if it is not a collection.
    pub(crate) fn entry_fields(&self, class: ClassIndex) -> &[(ClassIndex, u16)] {
        &self.entry_fields[class as usize]
    }

    pub(crate) fn is_container(&self, class: ClassIndex) -> bool {
        !self.entry_fields[class as usize].is_empty()
    }

    /// Whether the map keys inside a collection of `class` are its elements (sets over maps).
    pub(crate) fn keys_are_elements(&self, class: ClassIndex) -> bool {
        self.set_over_map[class as usize]
    }

    pub(crate) fn is_internal_class(&self, class: ClassIndex) -> bool {
        self.internal[class as usize]
    }
}
