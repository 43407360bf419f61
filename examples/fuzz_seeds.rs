//! Writes the seed corpus of the reader's fuzz target (`fuzz/fuzz_targets/hprof_reader.rs`):
//! one small heap, written in every layout of `DumpOptions::variants` with 8- and 4-byte ids,
//! plus an empty heap. `scripts/fuzz.sh` runs it before fuzzing; nothing binary is committed.
//!
//! ```text
//! cargo run --example fuzz_seeds -- fuzz/corpus/hprof_reader
//! ```
//!
//! The heap has something of every record the reader decodes: classes with super classes,
//! instance and static fields of several types, a class loader, instances, a reference cycle,
//! an object array with a null and a dangling element, a primitive array of each type, Latin-1
//! and UTF-16 strings, a weak reference, a thread with a stack trace and frame locals, and
//! roots of several kinds.

use std::path::PathBuf;

use heapgrowth::heap::{FieldType, PrimitiveType, RootKind};
use heapgrowth::hprof::builder::{DumpOptions, HeapBuilder, ObjectId, Value};

fn main() {
    let Some(dir) = std::env::args().nth(1).map(PathBuf::from) else {
        eprintln!("usage: fuzz_seeds DIR");
        std::process::exit(2);
    };
    if let Err(e) = std::fs::create_dir_all(&dir) {
        eprintln!("fuzz_seeds: cannot create {}: {e}", dir.display());
        std::process::exit(2);
    }
    let mut seeds = Vec::new();
    for id_size in [8, 4] {
        let heap = small_heap(id_size);
        for (n, options) in DumpOptions::variants(id_size).iter().enumerate() {
            seeds.push((format!("seed-id{id_size}-{n}"), heap.write_with(options)));
        }
        seeds.push((
            format!("seed-id{id_size}-empty"),
            HeapBuilder::with_id_size(id_size).write(),
        ));
    }
    for (name, bytes) in &seeds {
        let path = dir.join(name);
        if let Err(e) = std::fs::write(&path, bytes) {
            eprintln!("fuzz_seeds: cannot write {}: {e}", path.display());
            std::process::exit(2);
        }
    }
    let largest = seeds.iter().map(|(_, b)| b.len()).max().unwrap_or(0);
    println!(
        "fuzz_seeds: {} seeds in {} (largest {largest} bytes)",
        seeds.len(),
        dir.display()
    );
}

fn small_heap(id_size: u8) -> HeapBuilder {
    let mut h = HeapBuilder::with_id_size(id_size);
    h.make_system_classes_sticky();
    let object = h.class_named("java.lang.Object");
    let item_class = h.class(
        "com.example.Item",
        Some(object),
        &[
            ("name", FieldType::Object),
            ("price", FieldType::LONG),
            ("next", FieldType::Object),
            ("serial", FieldType::INT),
        ],
    );
    let cart_class = h.class(
        "com.example.Cart",
        Some(object),
        &[("items", FieldType::Object), ("count", FieldType::INT)],
    );
    h.static_field(cart_class, "INSTANCE", FieldType::Object);
    h.static_field(cart_class, "LIMIT", FieldType::INT);

    let cart = h.instance(cart_class, &[("count", 2.into())]);
    let mut items = Vec::new();
    for i in 0..2 {
        let name = h.string(&format!("item-{i}"));
        items.push(h.instance(
            item_class,
            &[
                ("name", name.into()),
                ("price", Value::Long(100 * i)),
                ("serial", (i as i32).into()),
            ],
        ));
    }
    h.set_field(items[0], "next", items[1]);
    h.set_field(items[1], "next", items[0]); // a cycle
    let dangling = ObjectId::from_raw(if id_size == 8 {
        0x9_dead_bee0
    } else {
        0xdead_bee0
    });
    let array = h.object_array(
        "com.example.Item[]",
        &[Some(items[0]), None, Some(dangling)],
    );
    h.set_field(cart, "items", array);
    h.set_static(cart_class, "INSTANCE", cart);
    h.set_static(cart_class, "LIMIT", 10);
    for ty in [
        PrimitiveType::Boolean,
        PrimitiveType::Char,
        PrimitiveType::Float,
        PrimitiveType::Double,
        PrimitiveType::Byte,
        PrimitiveType::Short,
        PrimitiveType::Int,
        PrimitiveType::Long,
    ] {
        h.primitive_array(ty, 2);
    }
    let utf16 = h.string("snow ☃");
    let weak_class = h.class_named("java.lang.ref.WeakReference");
    let weak = h.instance(weak_class, &[("referent", items[1].into())]);
    let thread = h.thread_named("main");
    let loader_class = h.class("com.example.Loader", Some(object), &[]);
    let loader = h.instance(loader_class, &[]);
    h.set_class_loader(cart_class, loader);
    h.thread_stack(
        thread,
        &[
            ("com.example.Cart", "checkout", "Cart.java", 42),
            ("com.example.Item", "price", "Item.java", 7),
        ],
    );
    h.frame_local(cart, thread);
    h.frame_local_at(items[0], thread, 1);
    h.thread_root(RootKind::JniLocal, weak, thread);
    h.root(RootKind::JniGlobal, utf16);
    h.root(RootKind::StickyClass, cart_class);
    h
}
