//! Writing the described heap as an HPROF dump, in the layout [`DumpOptions`] asks for.

use std::collections::HashMap;

use super::super::format;
use super::super::writer::{HprofWriter, Segmenting, SubRecords};
use super::{DumpOptions, HeapBuilder, ObjectData, ObjectOrder};
use crate::heap::{HeapGraph, RootKind};

impl HeapBuilder {
    /// The dump, laid out by the options set with [`set_dump_options`](Self::set_dump_options).
    pub fn write(&self) -> Vec<u8> {
        self.write_with(&self.options)
    }

    /// Writes the dump with the given layout.
    ///
    /// # Panics
    ///
    /// If `options.id_size` is 4 and an id doesn't fit (use [`HeapBuilder::with_id_size`]).
    pub fn write_with(&self, options: &DumpOptions) -> Vec<u8> {
        let id_size = options.id_size;
        assert!(
            id_size == 8 || self.next_id <= u32::MAX as u64,
            "this builder's ids don't fit {id_size} bytes: make it with HeapBuilder::with_id_size({id_size})"
        );
        let minor_version = if options.android {
            3
        } else {
            options.minor_version
        };
        let mut out = HprofWriter::new(minor_version, id_size);
        let mut strings = StringTable::default();

        for (serial, class) in (1..).zip(&self.classes) {
            let name = if options.android {
                class.name.clone()
            } else {
                format::jvm_class_name(&class.name)
            };
            let name_id = strings.id(&mut out, &name);
            out.load_class(serial, class.id, name_id);
        }
        let mut frame_id = 0;
        for (serial, stack) in (1..).zip(&self.stacks) {
            let mut frame_ids = Vec::with_capacity(stack.len());
            for frame in stack {
                frame_id += 1;
                let method = strings.id(&mut out, &frame.method);
                let file = strings.id(&mut out, &frame.file);
                let class_serial = self.classes_by_name[&frame.class] as u32 + 1;
                out.stack_frame(frame_id, method, file, class_serial, frame.line);
                frame_ids.push(frame_id);
            }
            out.stack_trace(serial, serial, &frame_ids);
        }
        for (serial, &thread) in (1..).zip(&self.threads) {
            if options.start_thread_records {
                let name_id = strings.id(&mut out, &format!("thread-{serial}"));
                out.start_thread(serial, thread, name_id);
            }
        }

        let mut heap = SubRecords::new(id_size);
        if options.android {
            // Heap type 'A', the app heap, as ART names it.
            heap.heap_dump_info(u32::from(b'A'), strings.id(&mut out, "app"));
        }
        if options.roots_first {
            self.write_roots(&mut heap);
        }
        for (index, class) in self.classes.iter().enumerate() {
            let super_id = class.super_class.map_or(0, |s| self.classes[s].id);
            let statics: Vec<_> = class
                .statics
                .iter()
                .map(|(name, ty, value)| {
                    let mut encoded = Vec::new();
                    value.encode(&mut encoded, id_size);
                    (strings.id(&mut out, name), *ty, encoded)
                })
                .collect();
            let fields: Vec<_> = class
                .fields
                .iter()
                .map(|(name, ty)| (strings.id(&mut out, name), *ty))
                .collect();
            let instance_size = self
                .instance_slots(index)
                .iter()
                .map(|&(_, _, ty)| format::field_size(ty, id_size) as u32)
                .sum();
            heap.class_dump(
                class.id,
                super_id,
                class.loader,
                instance_size,
                &statics,
                &fields,
            );
        }
        for &(id, ref data) in self.ordered_objects(options.object_order) {
            match data {
                ObjectData::Instance { class, values } => {
                    let mut field_bytes = Vec::new();
                    for value in values {
                        value.encode(&mut field_bytes, id_size);
                    }
                    heap.instance(id, self.classes[*class].id, &field_bytes);
                }
                ObjectData::ObjectArray { class, elements } => {
                    let elements: Vec<u64> =
                        elements.iter().map(|e| e.map_or(0, |o| o.0)).collect();
                    heap.object_array(id, self.classes[*class].id, &elements);
                }
                ObjectData::PrimitiveArray { ty, length, data } => {
                    heap.primitive_array(id, *ty, *length, data)
                }
            }
        }
        if !options.roots_first {
            self.write_roots(&mut heap);
        }
        let segmenting = match options.segment_bytes {
            None => Segmenting::SingleHeapDump,
            Some(max_bytes) => Segmenting::Segments {
                max_bytes,
                split_sub_records: options.split_sub_records,
            },
        };
        out.heap(&heap, segmenting);
        out.finish()
    }

    fn write_roots(&self, heap: &mut SubRecords) {
        if self.system_classes_sticky {
            let system = ["java.", "javax.", "jdk.", "sun."];
            for class in &self.classes {
                if system.iter().any(|prefix| class.name.starts_with(prefix)) {
                    heap.root(RootKind::StickyClass, class.id, 0);
                }
            }
        }
        for root in &self.roots {
            heap.root_in_frame(root.kind, root.object, root.thread_serial, root.frame_depth);
        }
    }

    fn ordered_objects(&self, order: ObjectOrder) -> Vec<&(u64, ObjectData)> {
        // Objects are created with ascending ids.
        let mut objects: Vec<_> = self.objects.iter().collect();
        match order {
            ObjectOrder::Ascending => {}
            ObjectOrder::Descending => objects.reverse(),
            ObjectOrder::Shuffled { seed } => {
                let mut state = seed | 1;
                for i in (1..objects.len()).rev() {
                    // xorshift64: enough to scramble the order, reproducibly.
                    state ^= state << 13;
                    state ^= state >> 7;
                    state ^= state << 17;
                    objects.swap(i, (state % (i as u64 + 1)) as usize);
                }
            }
        }
        objects
    }

    /// Writes the dump and reads it back.
    ///
    /// # Panics
    ///
    /// If the reader rejects the dump (a reader bug, since the builder writes valid dumps).
    pub fn build(&self) -> HeapGraph {
        self.build_with(&self.options)
    }

    /// Writes the dump with the given layout and reads it back.
    ///
    /// # Panics
    ///
    /// As [`build`](Self::build).
    pub fn build_with(&self, options: &DumpOptions) -> HeapGraph {
        super::super::from_bytes(self.write_with(options))
            .unwrap_or_else(|e| panic!("the reader rejected a builder dump ({options:?}): {e}"))
    }
}

/// STRING records, written once per distinct text.
#[derive(Default)]
struct StringTable {
    ids: HashMap<String, u64>,
}

impl StringTable {
    fn id(&mut self, out: &mut HprofWriter, text: &str) -> u64 {
        if let Some(&id) = self.ids.get(text) {
            return id;
        }
        // String ids are their own name space; small numbers keep them apart from object ids.
        let id = self.ids.len() as u64 + 1;
        debug_assert!(out.id_size() == 8 || id <= u32::MAX as u64);
        out.string(id, text);
        self.ids.insert(text.to_string(), id);
        id
    }
}
