//! Names that outlive one snapshot.
//!
//! Class and field indexes are only valid inside the snapshot that produced them, but a path
//! must be matched across snapshots. Every name a path key uses is interned here once, so keys
//! compare as integers and stay comparable from one snapshot to the next.

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

use super::containers::KEY_FIELD;
use crate::class_name::stable_class_name;
use crate::heap::{ClassIndex, HeapGraph, RootKind};

/// Interned name: an index into [`Names`].
pub type NameId = u32;

/// Interner shared by every snapshot of one growth search.
#[derive(Debug, Default)]
pub struct Names {
    // Every class and field name of a snapshot is looked up here, at every snapshot.
    ids: FastMap<Box<str>, NameId>,
    names: Vec<Box<str>>,
}

impl Names {
    /// The id of `name`, interning it on first use.
    pub fn intern(&mut self, name: &str) -> NameId {
        if let Some(&id) = self.ids.get(name) {
            return id;
        }
        let id = NameId::try_from(self.names.len()).expect("fewer than 2^32 distinct names");
        self.names.push(name.into());
        self.ids.insert(name.into(), id);
        id
    }

    /// The name behind `id`.
    pub fn get(&self, id: NameId) -> &str {
        &self.names[id as usize]
    }
}

/// A fast hasher for small integer keys (the multiply-rotate scheme rustc uses). The path tree
/// looks up a child for every newly reached object, so SipHash's cost would show.
#[derive(Default, Clone, Copy)]
pub(crate) struct FastHasher(u64);

const SEED: u64 = 0x51_7c_c1_b7_27_22_0a_95;

impl Hasher for FastHasher {
    fn write(&mut self, bytes: &[u8]) {
        for chunk in bytes.chunks(8) {
            let mut word = [0u8; 8];
            word[..chunk.len()].copy_from_slice(chunk);
            self.write_u64(u64::from_le_bytes(word));
        }
    }
    fn write_u32(&mut self, value: u32) {
        self.write_u64(u64::from(value));
    }
    fn write_u64(&mut self, value: u64) {
        self.0 = (self.0.rotate_left(5) ^ value).wrapping_mul(SEED);
    }
    fn write_u8(&mut self, value: u8) {
        self.write_u64(u64::from(value));
    }
    fn write_usize(&mut self, value: usize) {
        self.write_u64(value as u64);
    }
    fn finish(&self) -> u64 {
        self.0
    }
}

pub(crate) type FastMap<K, V> = HashMap<K, V, BuildHasherDefault<FastHasher>>;

/// Interned names of one snapshot's classes and fields.
pub(super) struct SnapshotNames {
    pub(super) class: Vec<NameId>,
    pub(super) instance_fields: Vec<Vec<NameId>>,
    pub(super) static_fields: Vec<Vec<NameId>>,
    pub(super) element: NameId,
    pub(super) key_element: NameId,
    /// The name of the field that holds a map entry's key ([`KEY_FIELD`]).
    pub(super) key_field: NameId,
    pub(super) empty: NameId,
    pub(super) thread: NameId,
    /// `classLoader`, the field of `java.lang.Class` that names a class's loader.
    pub(super) class_loader: NameId,
    /// For each of the graph's stack frames: the method's class, the method, and
    /// `File.java:LINE`.
    frames: Vec<(NameId, NameId, NameId)>,
    /// Names of `LOCAL` steps whose frame the dump doesn't give, by root kind.
    local_without_frame: [NameId; 4],
}

impl SnapshotNames {
    pub(super) fn new(graph: &HeapGraph, names: &mut Names) -> SnapshotNames {
        let count = graph.class_count() as ClassIndex;
        let mut class = Vec::with_capacity(count as usize);
        let mut instance_fields = Vec::with_capacity(count as usize);
        let mut static_fields = Vec::with_capacity(count as usize);
        for c in 0..count {
            let info = graph.class(c);
            class.push(names.intern(&stable_class_name(&info.name)));
            instance_fields.push(
                info.instance_fields
                    .iter()
                    .map(|f| names.intern(&f.name))
                    .collect(),
            );
            static_fields.push(
                info.static_fields
                    .iter()
                    .map(|f| names.intern(&f.name))
                    .collect(),
            );
        }
        SnapshotNames {
            class,
            instance_fields,
            static_fields,
            element: names.intern("[x]"),
            key_element: names.intern("[key]"),
            key_field: names.intern(KEY_FIELD),
            empty: names.intern(""),
            thread: names.intern("java.lang.Thread"),
            class_loader: names.intern("classLoader"),
            frames: graph
                .frames()
                .iter()
                .map(|frame| {
                    let source = match frame.line {
                        Some(line) => format!("{}:{line}", frame.file),
                        None => frame.file.clone(),
                    };
                    (
                        names.intern(&stable_class_name(&frame.class)),
                        names.intern(&frame.method),
                        names.intern(&source),
                    )
                })
                .collect(),
            local_without_frame: ["<frame>", "<JNI local>", "<native stack>", "<thread block>"]
                .map(|name| names.intern(name)),
        }
    }

    /// Owner, name and source of a `LOCAL` step for a stack root of `kind` in `frame`: the
    /// frame's class and method, or `java.lang.Thread` and what kind of local it is.
    pub(super) fn local(
        &self,
        kind: RootKind,
        frame: Option<u32>,
    ) -> (NameId, NameId, Option<NameId>) {
        if let Some(&(class, method, source)) = frame.and_then(|f| self.frames.get(f as usize)) {
            return (class, method, Some(source));
        }
        let name = match kind {
            RootKind::JniLocal => self.local_without_frame[1],
            RootKind::NativeStack => self.local_without_frame[2],
            RootKind::ThreadBlock => self.local_without_frame[3],
            _ => self.local_without_frame[0],
        };
        (self.thread, name, None)
    }
}
