//! [`HeapGraph`]: the model of one heap dump. Per object it keeps the id (8 bytes), the record's
//! offset in the dump (about 4 bytes) and a class word (4 bytes); everything else, references
//! included, is decoded on demand from the memory-mapped dump.

use std::collections::HashMap;

use super::record::{self, layout, prefetch_address, read_u32, Id4, Id8, IdWidth};
use super::resident::{Released, RESIDENT_DUMP_BUDGET};
use super::storage::{IdIndex, RecordOffsets};
use super::{
    ClassIndex, ClassInfo, FieldType, FieldValue, ObjectIndex, ObjectKind, PrimitiveType,
    Reference, ReferenceKind, Root, StackFrame,
};

/// The class word of an object: the kind in the top two bits, a class index in the rest.
/// For a class object the index is the class it describes (its own class is always
/// `java.lang.Class`), which saves a separate table for [`HeapGraph::class_object_of`].
pub(crate) mod class_word {
    pub(crate) const KIND_SHIFT: u32 = 30;
    pub(crate) const CLASS_MASK: u32 = (1 << KIND_SHIFT) - 1;
    /// Classes the word can number.
    pub(crate) const MAX_CLASSES: u64 = 1 << KIND_SHIFT;
    pub(crate) const INSTANCE: u32 = 0;
    pub(crate) const OBJECT_ARRAY: u32 = 1;
    pub(crate) const PRIMITIVE_ARRAY: u32 = 2;
    pub(crate) const CLASS: u32 = 3;

    pub(crate) const fn new(kind: u32, class: u32) -> u32 {
        (kind << KIND_SHIFT) | class
    }
}

/// "No class" in [`ClassLayout::next_with_refs`].
pub(crate) const NO_CLASS: u32 = u32::MAX;

/// How to find values in one class's instances and class object.
#[derive(Clone, Debug, Default)]
pub(crate) struct ClassLayout {
    /// Bytes of instance field data of this class and all its super classes. In an instance
    /// of class `C`, the fields a super class `S` declares start at
    /// `C.hierarchy_size - S.hierarchy_size` (own fields come first, then each super class).
    pub hierarchy_size: u64,
    /// This class's own reference fields: `instance_slots[first..first + count]`.
    pub first_instance_slot: u32,
    pub instance_slot_count: u32,
    /// The nearest super class that declares reference fields, or [`NO_CLASS`]: lets the
    /// reference walk skip classes without any (Object, most abstract bases).
    pub next_with_refs: u32,
    /// Position of each static value in the class dump: `static_value_pos[first..]`, one per
    /// entry of [`ClassInfo::static_fields`].
    pub first_static_value: u32,
    /// Bytes of static values (the class object's "shallow size" without header).
    pub static_data_size: u64,
    /// For the array classes of primitive arrays: the element type.
    pub primitive_element: Option<PrimitiveType>,
}

/// One reference field of a class: where it sits in the class's own field bytes, and its
/// index in [`ClassInfo::instance_fields`].
#[derive(Clone, Copy, Debug)]
pub(crate) struct RefSlot {
    pub offset: u32,
    pub field: u16,
}

/// The bytes of the dump: mapped from a file, or owned (tests, fuzzing).
pub(crate) enum DumpBytes {
    Mapped(DumpMapping),
    Owned(Vec<u8>),
}

impl DumpBytes {
    #[inline(always)]
    pub(crate) fn as_slice(&self) -> &[u8] {
        match self {
            DumpBytes::Mapped(mapping) => mapping.as_slice(),
            DumpBytes::Owned(bytes) => bytes,
        }
    }
}

/// The first `len` bytes of a read-only mapping of a dump file, whose pages are released
/// once the dumps' resident pages exceed [`super::resident::RESIDENT_DUMP_BUDGET`] (see
/// [`super::resident`]). The mapping may be longer than the file: the one a dump was read
/// through while it was written is reserved past its end, and its pages are mapped already.
pub(crate) struct DumpMapping {
    // Declared before `map`: unregistered before the mapping goes.
    _released: Option<Released>,
    map: memmap2::MmapRaw,
    len: usize,
}

impl DumpMapping {
    /// The first `len` bytes of `map`.
    ///
    /// # Safety
    ///
    /// `map` is a read-only mapping of a file at least `len` bytes long (past the file's end
    /// a read faults), which nothing modifies while it is mapped.
    pub(crate) unsafe fn new(map: memmap2::MmapRaw, len: usize) -> DumpMapping {
        assert!(
            len <= map.len(),
            "{len} bytes of a {}-byte mapping",
            map.len()
        );
        // A mapping within the budget could never make the watcher release it.
        let released = (map.len() as u64 > RESIDENT_DUMP_BUDGET)
            // Safety: the caller's promise; `Released` is dropped before `map` (field order).
            .then(|| unsafe { Released::register(map.as_ptr(), map.len()) })
            .flatten();
        DumpMapping {
            _released: released,
            map,
            len,
        }
    }

    /// The same mapping, of the file's first `len` bytes (its length once it is finished).
    ///
    /// # Safety
    ///
    /// As for [`DumpMapping::new`]: the file is at least `len` bytes long.
    pub(crate) unsafe fn with_len(mut self, len: usize) -> DumpMapping {
        assert!(
            len <= self.map.len(),
            "{len} bytes of a {}-byte mapping",
            self.map.len()
        );
        self.len = len;
        self
    }

    #[inline(always)]
    pub(crate) fn as_slice(&self) -> &[u8] {
        // Safety: the mapping is at least `len` bytes long, and so is the file (`new`), which
        // is not modified while mapped; released pages fault the same bytes in again.
        unsafe { std::slice::from_raw_parts(self.map.as_ptr(), self.len) }
    }

    /// Where the mapping starts: reads past `len` are the caller's to justify (a mapping read
    /// while its file grew).
    pub(crate) fn as_ptr(&self) -> *const u8 {
        self.map.as_ptr()
    }
}

/// Bytes added to shallow sizes for the object header: a 64-bit JVM's 12-byte header
/// rounded to the usual 8-byte alignment (arrays: header plus length). An estimate, as the dump
/// records no headers.
const HEADER_ESTIMATE: u64 = 16;

/// A heap dump as a graph of objects numbered `0..object_count()` in ascending id order.
///
/// Built by [`crate::hprof::open`] (memory-maps the file) or [`crate::hprof::from_bytes`]; the
/// synthetic heaps of [`crate::hprof::builder::HeapBuilder`] go through the same reader.
pub struct HeapGraph {
    pub(crate) bytes: DumpBytes,
    /// Sub-records that crossed a segment boundary, copied together; record offsets at or
    /// past the dump's length point here.
    pub(crate) spliced: Vec<u8>,
    pub(crate) id_size: u8,
    pub(crate) ids: IdIndex,
    pub(crate) offsets: RecordOffsets,
    pub(crate) class_words: Vec<u32>,
    pub(crate) classes: Vec<ClassInfo>,
    pub(crate) layouts: Vec<ClassLayout>,
    pub(crate) instance_slots: Vec<RefSlot>,
    pub(crate) static_value_pos: Vec<u32>,
    pub(crate) class_names: HashMap<String, ClassIndex>,
    pub(crate) java_lang_class: ClassIndex,
    pub(crate) roots: Vec<Root>,
    pub(crate) frames: Vec<StackFrame>,
}

impl std::fmt::Debug for HeapGraph {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("HeapGraph")
            .field("objects", &self.object_count())
            .field("classes", &self.class_count())
            .field("roots", &self.roots.len())
            .field("id_size", &self.id_size)
            .finish_non_exhaustive()
    }
}

impl HeapGraph {
    /// Number of objects, class objects included.
    pub fn object_count(&self) -> usize {
        self.ids.len()
    }

    /// Number of classes: those with class dumps, array classes known only from LOAD CLASS, and
    /// one per primitive array type.
    pub fn class_count(&self) -> usize {
        self.classes.len()
    }

    /// The class with index `c`. Panics if `c >= class_count()`.
    pub fn class(&self, c: ClassIndex) -> &ClassInfo {
        &self.classes[c as usize]
    }

    /// All classes, indexed by [`ClassIndex`].
    pub fn classes(&self) -> &[ClassInfo] {
        &self.classes
    }

    /// The first class with this Java-form name (`java.util.ArrayList`, `int[]`); several
    /// class loaders may define classes of the same name.
    pub fn class_by_name(&self, name: &str) -> Option<ClassIndex> {
        self.class_names.get(name).copied()
    }

    /// The class of an object; `java.lang.Class` for class objects. Panics if `o` is out of
    /// range (as do the other per-object methods).
    #[inline]
    pub fn class_of(&self, o: ObjectIndex) -> ClassIndex {
        let word = self.class_words[o as usize];
        if word >> class_word::KIND_SHIFT == class_word::CLASS {
            self.java_lang_class
        } else {
            word & class_word::CLASS_MASK
        }
    }

    /// What kind of record the object came from.
    #[inline]
    pub fn kind(&self, o: ObjectIndex) -> ObjectKind {
        let word = self.class_words[o as usize];
        match word >> class_word::KIND_SHIFT {
            class_word::INSTANCE => ObjectKind::Instance,
            class_word::OBJECT_ARRAY => ObjectKind::ObjectArray,
            class_word::PRIMITIVE_ARRAY => ObjectKind::PrimitiveArray(
                self.layouts[(word & class_word::CLASS_MASK) as usize]
                    .primitive_element
                    .unwrap_or(PrimitiveType::Byte),
            ),
            _ => ObjectKind::Class,
        }
    }

    /// For a class object: the class it describes.
    #[inline]
    pub fn class_object_of(&self, o: ObjectIndex) -> Option<ClassIndex> {
        let word = self.class_words[o as usize];
        (word >> class_word::KIND_SHIFT == class_word::CLASS)
            .then_some(word & class_word::CLASS_MASK)
    }

    /// Estimated bytes the object takes in the JVM: field data plus a 16-byte header for
    /// instances; 16 plus length times element size (references: the id size) for arrays;
    /// static data plus 16 for class objects.
    pub fn shallow_size(&self, o: ObjectIndex) -> u64 {
        let word = self.class_words[o as usize];
        let class = (word & class_word::CLASS_MASK) as usize;
        match word >> class_word::KIND_SHIFT {
            class_word::INSTANCE => self.classes[class].instance_size as u64 + HEADER_ESTIMATE,
            class_word::OBJECT_ARRAY => {
                HEADER_ESTIMATE + self.array_length(o).unwrap_or(0) as u64 * self.id_size as u64
            }
            class_word::PRIMITIVE_ARRAY => {
                let element = self.layouts[class]
                    .primitive_element
                    .map_or(1, PrimitiveType::size);
                HEADER_ESTIMATE + self.array_length(o).unwrap_or(0) as u64 * element as u64
            }
            _ => self.layouts[class].static_data_size + HEADER_ESTIMATE,
        }
    }

    /// Length of an array object; `None` for instances and class objects.
    pub fn array_length(&self, o: ObjectIndex) -> Option<u32> {
        let kind = self.class_words[o as usize] >> class_word::KIND_SHIFT;
        if kind != class_word::OBJECT_ARRAY && kind != class_word::PRIMITIVE_ARRAY {
            return None;
        }
        read_u32(self.record(o), layout::array_length(self.id_size as usize))
    }

    /// The object's HPROF id (its address when the dump was taken).
    #[inline]
    pub fn id(&self, o: ObjectIndex) -> u64 {
        if let Some(id) = self.ids.stored_id(o) {
            return id;
        }
        // Every object record (instance, array, class dump) starts with its tag, then its id.
        let id = self.record(o).get(1..).and_then(|bytes| {
            if self.id_size == 8 {
                Id8::read(bytes)
            } else {
                Id4::read(bytes)
            }
        });
        id.expect("an indexed record holds its id")
    }

    /// The object with this HPROF id, if the dump has a record for it.
    #[inline]
    pub fn index_of_id(&self, id: u64) -> Option<ObjectIndex> {
        self.ids.index_of(id)
    }

    /// Bytes per HPROF identifier: 4 or 8.
    pub fn id_size(&self) -> u8 {
        self.id_size
    }

    /// GC roots, in dump order; roots naming ids without a record are left out.
    pub fn roots(&self) -> &[Root] {
        &self.roots
    }

    /// The stack frames that [`Root::frame`] indexes.
    pub fn frames(&self) -> &[StackFrame] {
        &self.frames
    }

    /// Calls `f` for each non-null reference of `o` to an object that has a record, in a fixed
    /// order: instance fields in dump order (the object's class first, then its super classes),
    /// array entries by index, static fields of a class object in declaration order.
    #[inline]
    pub fn for_each_reference(&self, o: ObjectIndex, f: impl FnMut(Reference)) {
        // Every reference's target is ranked in the id bitmap with a population count: without
        // the instruction (not in the x86-64 baseline that builds target) it is a dozen
        // dependent operations, a fifth of the time of reading an object's references.
        #[cfg(target_arch = "x86_64")]
        if std::arch::is_x86_feature_detected!("popcnt") {
            // Safety: the CPU has the instruction, checked just above.
            return unsafe { self.for_each_reference_popcnt(o, f) };
        }
        self.for_each_reference_on_any_cpu(o, f)
    }

    /// [`Self::for_each_reference`] compiled with the `popcnt` instruction.
    ///
    /// # Safety
    ///
    /// The CPU has `popcnt`.
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "popcnt")]
    unsafe fn for_each_reference_popcnt(&self, o: ObjectIndex, f: impl FnMut(Reference)) {
        self.for_each_reference_on_any_cpu(o, f)
    }

    /// [`Self::for_each_reference`] as compiled for any CPU of the target.
    #[inline(always)]
    pub(crate) fn for_each_reference_on_any_cpu(&self, o: ObjectIndex, f: impl FnMut(Reference)) {
        if self.id_size == 8 {
            self.references_with::<Id8>(o, f)
        } else {
            self.references_with::<Id4>(o, f)
        }
    }

    #[inline(always)]
    fn references_with<W: IdWidth>(&self, o: ObjectIndex, mut f: impl FnMut(Reference)) {
        let word = self.class_words[o as usize];
        let class = word & class_word::CLASS_MASK;
        match word >> class_word::KIND_SHIFT {
            class_word::INSTANCE => {
                let layouts = &self.layouts;
                let own = &layouts[class as usize];
                let mut declaring = if own.instance_slot_count > 0 {
                    class
                } else {
                    own.next_with_refs
                };
                if declaring == NO_CLASS {
                    return;
                }
                let fields = self
                    .record(o)
                    .get(layout::instance_fields(W::SIZE)..)
                    .unwrap_or(&[]);
                while let Some(declaring_layout) = layouts.get(declaring as usize) {
                    let base = own
                        .hierarchy_size
                        .wrapping_sub(declaring_layout.hierarchy_size)
                        as usize;
                    let first = declaring_layout.first_instance_slot as usize;
                    let slots = &self.instance_slots
                        [first..first + declaring_layout.instance_slot_count as usize];
                    for slot in slots {
                        let at = base.wrapping_add(slot.offset as usize);
                        let Some(id) = fields.get(at..).and_then(W::read) else {
                            continue;
                        };
                        if id == 0 {
                            continue;
                        }
                        if let Some(target) = self.ids.index_of(id) {
                            let kind = ReferenceKind::InstanceField {
                                declaring_class: declaring,
                                field: slot.field,
                            };
                            f(Reference { kind, target });
                        }
                    }
                    declaring = declaring_layout.next_with_refs;
                }
            }
            class_word::OBJECT_ARRAY => {
                let record = self.record(o);
                let length = read_u32(record, layout::array_length(W::SIZE)).unwrap_or(0) as usize;
                let start = layout::object_array_elements(W::SIZE);
                let elements = record.get(start..start + length * W::SIZE).unwrap_or(&[]);
                for (index, element) in elements.chunks_exact(W::SIZE).enumerate() {
                    let Some(id) = W::read(element) else { continue };
                    if id == 0 {
                        continue;
                    }
                    if let Some(target) = self.ids.index_of(id) {
                        f(Reference {
                            kind: ReferenceKind::ArrayEntry {
                                index: index as u32,
                            },
                            target,
                        });
                    }
                }
            }
            class_word::CLASS => {
                let record = self.record(o);
                let statics = &self.classes[class as usize].static_fields;
                let first = self.layouts[class as usize].first_static_value as usize;
                let positions = &self.static_value_pos[first..first + statics.len()];
                for (field, (static_field, &pos)) in statics.iter().zip(positions).enumerate() {
                    if static_field.ty != FieldType::Object {
                        continue;
                    }
                    let Some(id) = record.get(pos as usize..).and_then(W::read) else {
                        continue;
                    };
                    if id == 0 {
                        continue;
                    }
                    if let Some(target) = self.ids.index_of(id) {
                        f(Reference {
                            kind: ReferenceKind::StaticField {
                                class,
                                field: field as u16,
                            },
                            target,
                        });
                    }
                }
            }
            _ => {} // primitive arrays hold no references
        }
    }

    /// Heap bytes held by the model's own arrays (not the mapped dump): the per-object arrays,
    /// the id directory, classes and roots.
    pub fn model_bytes(&self) -> usize {
        let class_infos: usize = self
            .classes
            .iter()
            .map(|c| {
                std::mem::size_of::<ClassInfo>()
                    + c.name.capacity()
                    + (c.instance_fields.capacity() + c.static_fields.capacity())
                        * std::mem::size_of::<super::Field>()
                    + c.instance_fields
                        .iter()
                        .chain(&c.static_fields)
                        .map(|f| f.name.capacity())
                        .sum::<usize>()
            })
            .sum();
        let name_index: usize = self
            .class_names
            .keys()
            .map(|name| name.capacity() + std::mem::size_of::<(String, ClassIndex)>() + 1)
            .sum();
        self.ids.heap_bytes()
            + self.offsets.heap_bytes()
            + self.class_words.capacity() * 4
            + self.spliced.capacity()
            + class_infos
            + name_index
            + self.layouts.capacity() * std::mem::size_of::<ClassLayout>()
            + self.instance_slots.capacity() * std::mem::size_of::<RefSlot>()
            + self.static_value_pos.capacity() * 4
            + self.roots.capacity() * std::mem::size_of::<Root>()
    }

    /// The value of instance field `name` of instance `o`, looked up in its class and then its
    /// super classes (the first match, as Java resolves shadowed fields from the object's class).
    /// `None` if `o` is not an instance or no class in its hierarchy declares `name`.
    pub fn field_value(&self, o: ObjectIndex, name: &str) -> Option<FieldValue> {
        if self.class_words[o as usize] >> class_word::KIND_SHIFT != class_word::INSTANCE {
            return None;
        }
        let fields = self
            .record(o)
            .get(layout::instance_fields(self.id_size as usize)..)?;
        let mut class = Some(self.class_of(o));
        let mut position = 0usize;
        while let Some(c) = class {
            let info = self.classes.get(c as usize)?;
            for field in &info.instance_fields {
                if field.name == name {
                    return self.decode_value(fields.get(position..)?, field.ty);
                }
                position += record::field_size(field.ty, self.id_size) as usize;
            }
            class = info.super_class;
        }
        None
    }

    /// The value of static field `name` declared by class `c`; `None` if the class has no class
    /// dump or declares no such static.
    pub fn static_field_value(&self, c: ClassIndex, name: &str) -> Option<FieldValue> {
        let info = self.classes.get(c as usize)?;
        let record = self.record(info.object?);
        let (index, field) = info
            .static_fields
            .iter()
            .enumerate()
            .find(|(_, f)| f.name == name)?;
        let pos =
            self.static_value_pos[self.layouts[c as usize].first_static_value as usize + index];
        self.decode_value(record.get(pos as usize..)?, field.ty)
    }

    /// For an instance of `java.lang.String`: its text, from the `value` array and, on JDK 9+,
    /// the `coder` field (0: Latin-1, 1: UTF-16 in the dumping machine's byte order, assumed
    /// little-endian). JDK 8's `char[]` values work too. `None` for other objects or when the
    /// value array is missing from the dump.
    pub fn string_value(&self, o: ObjectIndex) -> Option<String> {
        if self.kind(o) != ObjectKind::Instance
            || self.class(self.class_of(o)).name != "java.lang.String"
        {
            return None;
        }
        let FieldValue::Object(value_id) = self.field_value(o, "value")? else {
            return None;
        };
        let value = self.index_of_id(value_id)?;
        let length = self.array_length(value)? as usize;
        let data_start = layout::primitive_array_elements(self.id_size as usize);
        match self.kind(value) {
            ObjectKind::PrimitiveArray(PrimitiveType::Byte) => {
                let bytes = self.record(value).get(data_start..data_start + length)?;
                let utf16 = matches!(self.field_value(o, "coder"), Some(FieldValue::Byte(1)));
                if utf16 {
                    let units: Vec<u16> = bytes
                        .chunks_exact(2)
                        .map(|u| u16::from_le_bytes([u[0], u[1]]))
                        .collect();
                    Some(String::from_utf16_lossy(&units))
                } else {
                    Some(bytes.iter().map(|&b| b as char).collect())
                }
            }
            ObjectKind::PrimitiveArray(PrimitiveType::Char) => {
                let bytes = self
                    .record(value)
                    .get(data_start..data_start + 2 * length)?;
                let units: Vec<u16> = bytes
                    .chunks_exact(2)
                    .map(|u| u16::from_be_bytes([u[0], u[1]]))
                    .collect();
                Some(String::from_utf16_lossy(&units))
            }
            _ => None,
        }
    }

    fn decode_value(&self, bytes: &[u8], ty: FieldType) -> Option<FieldValue> {
        let take = |n: usize| bytes.get(..n);
        Some(match ty {
            FieldType::Object => FieldValue::Object(if self.id_size == 8 {
                Id8::read(bytes)?
            } else {
                Id4::read(bytes)?
            }),
            FieldType::Primitive(p) => match p {
                PrimitiveType::Boolean => FieldValue::Boolean(*bytes.first()? != 0),
                PrimitiveType::Byte => FieldValue::Byte(*bytes.first()? as i8),
                PrimitiveType::Char => {
                    FieldValue::Char(u16::from_be_bytes(take(2)?.try_into().ok()?))
                }
                PrimitiveType::Short => {
                    FieldValue::Short(i16::from_be_bytes(take(2)?.try_into().ok()?))
                }
                PrimitiveType::Int => {
                    FieldValue::Int(i32::from_be_bytes(take(4)?.try_into().ok()?))
                }
                PrimitiveType::Float => {
                    FieldValue::Float(f32::from_be_bytes(take(4)?.try_into().ok()?))
                }
                PrimitiveType::Long => {
                    FieldValue::Long(i64::from_be_bytes(take(8)?.try_into().ok()?))
                }
                PrimitiveType::Double => {
                    FieldValue::Double(f64::from_be_bytes(take(8)?.try_into().ok()?))
                }
            },
        })
    }

    /// Asks the CPU to start loading `o`'s record, which a walk will decode soon. A
    /// breadth-first walk visits objects in an order unrelated to their place in the dump, and
    /// waiting for each record from memory is most of its time; issued a few objects ahead,
    /// the wait overlaps with useful work. Finding the record reads `o`'s record offset, so
    /// that should have been asked for earlier with [`Self::prefetch_entries`].
    #[inline]
    pub fn prefetch(&self, o: ObjectIndex) {
        let record = self.record(o).as_ptr();
        prefetch_address(record);
        // A record's fields start 25 bytes in (with 8-byte ids): most cross into the next line.
        prefetch_address(record.wrapping_add(64));
    }

    /// Asks the CPU to start loading `o`'s entries in the per-object arrays (record offset,
    /// class word): the step before [`Self::prefetch`], issued further ahead.
    #[inline]
    pub fn prefetch_entries(&self, o: ObjectIndex) {
        if let Some(word) = self.class_words.get(o as usize) {
            prefetch_address(word as *const u32);
        }
        self.offsets.prefetch(o);
    }

    /// The bytes of an object's sub-record, from its tag to the end of the dump (or of the
    /// copy, for a sub-record that was split over segments).
    #[inline(always)]
    fn record(&self, o: ObjectIndex) -> &[u8] {
        let offset = self.offsets.get(o);
        let dump = self.bytes.as_slice();
        let dump_len = dump.len() as u64;
        if offset < dump_len {
            &dump[offset as usize..]
        } else {
            usize::try_from(offset - dump_len)
                .ok()
                .and_then(|at| self.spliced.get(at..))
                .unwrap_or(&[])
        }
    }
}
