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

/// For every class, `value(class, its super class's value)`, super classes first. The reader
/// refuses super class cycles, so every chain ends.
pub(super) fn inherited<T>(
    graph: &HeapGraph,
    value: impl Fn(ClassIndex, Option<&T>) -> T,
) -> Vec<T> {
    let class_count = graph.class_count();
    let mut values: Vec<Option<T>> = (0..class_count).map(|_| None).collect();
    let mut chain = Vec::new();
    for start in 0..class_count as ClassIndex {
        // Up to the first class already done (or the top), then back down.
        let mut current = Some(start);
        while let Some(c) = current.filter(|&c| values[c as usize].is_none()) {
            chain.push(c);
            current = graph.class(c).super_class;
        }
        while let Some(c) = chain.pop() {
            let parent = graph
                .class(c)
                .super_class
                .and_then(|s| values[s as usize].as_ref());
            values[c as usize] = Some(value(c, parent));
        }
    }
    values
        .into_iter()
        .map(|v| v.expect("every class was computed"))
        .collect()
}

/// Whether instances of the class `name` (or arrays of it) are internal to a collection: a
/// class nested in a collection class (`HashMap$Node`, `HashMap$Node[]`).
pub(crate) fn is_internal_class_name(name: &str) -> bool {
    let element = name.trim_end_matches("[]");
    element.rsplit_once('$').is_some()
        && RULES
            .iter()
            .map(|(rule, _)| *rule)
            .chain(EXTRA_INTERNAL_OUTERS.iter().copied())
            .any(|outer| {
                element.len() > outer.len()
                    && element.starts_with(outer)
                    && element.as_bytes()[outer.len()] == b'$'
            })
}

/// JDK subclasses of the collection classes of [`RULES`] that add no internals of their own:
/// for [`entry_fields_by_name`], which has no class hierarchy to inherit rules through.
const KNOWN_SUBCLASSES: &[(&str, &str)] = &[
    ("java.util.LinkedHashMap", "java.util.HashMap"),
    ("java.util.LinkedHashSet", "java.util.HashSet"),
    ("java.util.Stack", "java.util.Vector"),
];

/// The fields through which a collection of the class `name` reaches its internals, by name
/// alone: for reference chains without a heap model (JFR's old-object samples name an
/// object's class, not its super classes). The classes of [`RULES`] and their JDK subclasses
/// of [`KNOWN_SUBCLASSES`].
pub(crate) fn entry_fields_by_name(name: &str) -> Option<&'static [&'static str]> {
    let name = KNOWN_SUBCLASSES
        .iter()
        .find(|(subclass, _)| *subclass == name)
        .map_or(name, |(_, rule)| rule);
    RULES
        .iter()
        .find(|(rule, _)| *rule == name)
        .map(|(_, fields)| *fields)
}

/// Whether a collection of the class `name` keeps its elements as map keys (by name, as
/// [`entry_fields_by_name`]).
pub(crate) fn keys_are_elements_by_name(name: &str) -> bool {
    let name = KNOWN_SUBCLASSES
        .iter()
        .find(|(subclass, _)| *subclass == name)
        .map_or(name, |(_, rule)| rule);
    SETS_OVER_MAPS.contains(&name)
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
            internal[class as usize] = is_internal_class_name(name);
        }
        // Both are inherited: each class's answer is its own part and its super class's answer,
        // computed super classes first, so a deep hierarchy costs its number of classes (walking
        // every class's whole chain cost its depth squared: seconds for a crafted dump).
        let set_over_map = inherited(graph, |class, parent: Option<&bool>| {
            SETS_OVER_MAPS.contains(&graph.class(class).name.as_str())
                || parent.copied().unwrap_or(false)
        });
        let entry_fields = inherited(graph, |class, parent: Option<&Vec<(ClassIndex, u16)>>| {
            let mut fields = Vec::new();
            if let Some(names) = direct_rule[class as usize] {
                for (index, field) in graph.class(class).instance_fields.iter().enumerate() {
                    if names.contains(&field.name.as_str()) {
                        fields.push((class, index as u16));
                    }
                }
            }
            fields.extend(parent.into_iter().flatten().copied());
            fields
        });
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::heap::FieldType;
    use crate::hprof::builder::HeapBuilder;

    /// A class 20,000 levels below `java.util.HashMap` (and a `HashSet` below that) still
    /// finds the map's `table` and counts as a set over a map; computing it for every class
    /// costs the number of classes, not the depth squared (7 s for this heap before).
    #[test]
    fn a_deep_hierarchy_inherits_entry_fields_and_set_over_map() {
        const DEPTH: usize = 20_000;
        let mut h = HeapBuilder::new();
        let object = h.class_named("java.lang.Object");
        let map = h.class(
            "java.util.HashMap",
            Some(object),
            &[("table", FieldType::Object)],
        );
        let set = h.class(
            "java.util.HashSet",
            Some(object),
            &[("map", FieldType::Object)],
        );
        let mut deepest_map = map;
        let mut deepest_set = set;
        for level in 0..DEPTH {
            deepest_map = h.class(
                &format!("com.example.Map{level}"),
                Some(deepest_map),
                &[("own", FieldType::Object)],
            );
            deepest_set = h.class(&format!("com.example.Set{level}"), Some(deepest_set), &[]);
        }
        h.class("com.example.Holder", Some(object), &[]);
        let graph = h.build();
        let index = |name: &str| {
            (0..graph.class_count() as ClassIndex)
                .find(|&c| graph.class(c).name == name)
                .unwrap()
        };
        let containers = Containers::new(&graph);
        let map_index = index("java.util.HashMap");
        let deep_map = index(&format!("com.example.Map{}", DEPTH - 1));
        assert_eq!(containers.entry_fields(deep_map), &[(map_index, 0)]);
        assert_eq!(containers.entry_fields(map_index), &[(map_index, 0)]);
        assert!(containers
            .entry_fields(index("com.example.Holder"))
            .is_empty());
        let deep_set = index(&format!("com.example.Set{}", DEPTH - 1));
        assert!(containers.set_over_map[deep_set as usize]);
        assert!(!containers.set_over_map[deep_map as usize]);
    }
}
