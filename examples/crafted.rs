//! Writes crafted heap dumps that once made the analysis slower than linear in the dump's size,
//! for `replay` to time:
//!
//! ```text
//! cargo run --release --example crafted -- deep-hierarchy /tmp/deep.hprof
//! cargo run --release --example replay -- /tmp/deep.hprof 5
//! ```
//!
//! `deep-hierarchy`: 20,000 classes each extending the one before under `java.util.HashMap`,
//! and as many under `java.util.HashSet`, one instance of each deepest class held by a static
//! field (walking every class's super class chain made this take 7 s).
//!
//! `long-chain`, `long-chain-2x`: a linked list of 500,000 (1,000,000) nodes from a static
//! field, so the path tree is as deep as the list; the second must take about twice as long.

use heapgrowth::heap::FieldType;
use heapgrowth::hprof::builder::{HeapBuilder, Value};

const DEPTH: usize = 20_000;
const CHAIN_LENGTH: usize = 500_000;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (Some(kind), Some(out)) = (args.first(), args.get(1)) else {
        eprintln!("usage: crafted deep-hierarchy|long-chain|long-chain-2x OUT.hprof");
        std::process::exit(2);
    };
    let bytes = match kind.as_str() {
        "deep-hierarchy" => deep_hierarchy(),
        "long-chain" => long_chain(CHAIN_LENGTH),
        "long-chain-2x" => long_chain(2 * CHAIN_LENGTH),
        other => {
            eprintln!(
                "crafted: unknown kind {other:?}; known: deep-hierarchy, long-chain, long-chain-2x"
            );
            std::process::exit(2);
        }
    };
    if let Err(e) = std::fs::write(out, bytes) {
        eprintln!("crafted: cannot write {out}: {e}");
        std::process::exit(2);
    }
}

fn deep_hierarchy() -> Vec<u8> {
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
    let (mut deepest_map, mut deepest_set) = (map, set);
    for level in 0..DEPTH {
        deepest_map = h.class(&format!("crafted.Map{level}"), Some(deepest_map), &[]);
        deepest_set = h.class(&format!("crafted.Set{level}"), Some(deepest_set), &[]);
    }
    let holder = h.class("crafted.Holder", Some(object), &[]);
    let deep_map = h.instance(deepest_map, &[]);
    let deep_set = h.instance(deepest_set, &[]);
    h.static_field(holder, "map", FieldType::Object);
    h.static_field(holder, "set", FieldType::Object);
    h.set_static(holder, "map", Value::Ref(deep_map));
    h.set_static(holder, "set", Value::Ref(deep_set));
    h.write()
}

fn long_chain(length: usize) -> Vec<u8> {
    let mut h = HeapBuilder::new();
    let object = h.class_named("java.lang.Object");
    let node = h.class("crafted.Node", Some(object), &[("next", FieldType::Object)]);
    let holder = h.class("crafted.Holder", Some(object), &[]);
    let mut head = Value::Null;
    for _ in 0..length {
        head = Value::Ref(h.instance(node, &[("next", head)]));
    }
    h.static_field(holder, "head", FieldType::Object);
    h.set_static(holder, "head", head);
    h.write()
}
