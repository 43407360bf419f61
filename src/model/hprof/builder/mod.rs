//! Synthetic heaps for tests, in the spirit of shark's `dump { }` DSL: describe classes,
//! objects and roots, and the builder writes a real HPROF file in memory, so every test also
//! exercises the reader.
//!
//! ```
//! use heapgrowth::hprof::builder::HeapBuilder;
//! use heapgrowth::heap::{FieldType, RootKind};
//!
//! let mut h = HeapBuilder::new();
//! let object = h.class_named("java.lang.Object");
//! let cart = h.class("com.example.Cart", Some(object), &[("items", FieldType::Object), ("count", FieldType::INT)]);
//! h.static_field(cart, "INSTANCE", FieldType::Object);
//!
//! let items = h.object_array("java.lang.Object[]", &[None, None]);
//! let the_cart = h.instance(cart, &[("items", items.into()), ("count", 2.into())]);
//! let first = h.string("first");
//! h.set_element(items, 0, Some(first));
//! h.set_static(cart, "INSTANCE", the_cart);
//! h.root(RootKind::StickyClass, cart);
//!
//! let graph = h.build();
//! let cart_object = the_cart.index_in(&graph);
//! assert_eq!(graph.class(graph.class_of(cart_object)).name, "com.example.Cart");
//! assert_eq!(graph.string_value(first.index_in(&graph)).as_deref(), Some("first"));
//! ```
//!
//! The dump looks like HotSpot's: strings and LOAD CLASS records first, then class dumps, then
//! objects in ascending id order, roots after them. [`DumpOptions`] varies that (4-byte ids,
//! roots first, small or split segments, shuffled objects) so reader and analysis tests can
//! check they don't depend on one layout; [`DumpOptions::variants`] lists a useful set.

use std::collections::HashMap;

use crate::heap::{FieldType, HeapGraph, ObjectIndex, PrimitiveType, RootKind};

mod value;
mod write;

pub use value::Value;

/// An object of a [`HeapBuilder`] heap, named by the HPROF id the builder gave it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ObjectId(u64);

impl ObjectId {
    /// An arbitrary id, for example one that no record has (as with CDS-archived objects the
    /// JVM leaves out of dumps): references to it are skipped by the reader.
    pub fn from_raw(id: u64) -> ObjectId {
        ObjectId(id)
    }

    /// The HPROF id.
    pub fn raw(self) -> u64 {
        self.0
    }

    /// This object's index in a graph read from the builder's dump.
    ///
    /// # Panics
    ///
    /// If the graph has no object with this id.
    pub fn index_in(self, graph: &HeapGraph) -> ObjectIndex {
        graph
            .index_of_id(self.0)
            .unwrap_or_else(|| panic!("object 0x{:x} is not in the graph", self.0))
    }
}

/// A class of a [`HeapBuilder`] heap. Its class object is an object too: [`ClassId::object`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct ClassId {
    index: usize,
    object: ObjectId,
}

impl ClassId {
    /// The class object (`java.lang.Class` instance) of this class, which holds its statics.
    pub fn object(self) -> ObjectId {
        self.object
    }
}

impl From<ClassId> for ObjectId {
    fn from(class: ClassId) -> ObjectId {
        class.object
    }
}

/// In which order the builder writes the objects that aren't class objects.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ObjectOrder {
    /// Ascending ids, as HotSpot writes them.
    Ascending,
    /// Descending ids.
    Descending,
    /// A pseudo-random permutation from `seed`.
    Shuffled {
        /// Seed of the permutation.
        seed: u64,
    },
}

/// How [`HeapBuilder::write_with`] lays out the dump.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DumpOptions {
    /// Identifier size: 8 (default) or 4. Four-byte ids need a builder made by
    /// [`HeapBuilder::with_id_size`], whose ids fit.
    pub id_size: u8,
    /// `JAVA PROFILE 1.0.<minor_version>`: 2 (default) or 1.
    pub minor_version: u8,
    /// Roots before the objects (JDK 25) instead of after them (JDK 17, default).
    pub roots_first: bool,
    /// Bytes per HEAP DUMP SEGMENT (default 1 MiB, as HotSpot); `None` writes a single HEAP
    /// DUMP record instead.
    pub segment_bytes: Option<usize>,
    /// Cut segments at exactly `segment_bytes` even inside a sub-record (the format allows it).
    pub split_sub_records: bool,
    /// Order of the objects (class dumps always come first).
    pub object_order: ObjectOrder,
    /// Also write START THREAD records (HotSpot names threads only through THREAD OBJECT roots).
    pub start_thread_records: bool,
    /// Write the dump as Android's ART does: `JAVA PROFILE 1.0.3` (whatever `minor_version`
    /// says), class names in Java form (`java.lang.Object[]`), and a HEAP DUMP INFO sub-record
    /// naming the heap ("app") before the objects.
    pub android: bool,
}

impl Default for DumpOptions {
    fn default() -> Self {
        DumpOptions {
            id_size: 8,
            minor_version: 2,
            roots_first: false,
            segment_bytes: Some(1 << 20),
            split_sub_records: false,
            object_order: ObjectOrder::Ascending,
            start_thread_records: false,
            android: false,
        }
    }
}

impl DumpOptions {
    /// Layouts worth testing a reader or analysis against, for a builder with ids of `id_size`
    /// bytes: HotSpot 17 and 25 styles, one HEAP DUMP record (1.0.1), tiny segments, segments
    /// that split sub-records, objects out of order, and Android's layout.
    pub fn variants(id_size: u8) -> Vec<DumpOptions> {
        let base = DumpOptions {
            id_size,
            ..DumpOptions::default()
        };
        vec![
            base,
            DumpOptions {
                roots_first: true,
                ..base
            },
            DumpOptions {
                minor_version: 1,
                segment_bytes: None,
                ..base
            },
            DumpOptions {
                segment_bytes: Some(64),
                ..base
            },
            DumpOptions {
                segment_bytes: Some(37),
                split_sub_records: true,
                ..base
            },
            DumpOptions {
                object_order: ObjectOrder::Descending,
                start_thread_records: true,
                ..base
            },
            DumpOptions {
                object_order: ObjectOrder::Shuffled { seed: 7 },
                roots_first: true,
                ..base
            },
            DumpOptions {
                android: true,
                ..base
            },
        ]
    }
}

struct ClassDef {
    id: u64,
    name: String,
    super_class: Option<usize>,
    /// The defining loader's object id; 0 for the boot loader.
    loader: u64,
    fields: Vec<(String, FieldType)>,
    statics: Vec<(String, FieldType, Value)>,
}

enum ObjectData {
    /// Values in dump order: the class's own fields, then each super class's.
    Instance { class: usize, values: Vec<Value> },
    ObjectArray {
        class: usize,
        elements: Vec<Option<ObjectId>>,
    },
    /// `data` holds the big-endian values.
    PrimitiveArray {
        ty: PrimitiveType,
        length: u32,
        data: Vec<u8>,
    },
}

struct RootDef {
    kind: RootKind,
    object: u64,
    thread_serial: u32,
    /// For Java frame roots: the frame's depth in the thread's stack.
    frame_depth: Option<u32>,
}

/// A frame of a thread's stack: class, method, source file, line.
struct FrameDef {
    class: String,
    method: String,
    file: String,
    line: i32,
}

/// Builds a heap in memory and writes it as an HPROF dump. See the [module docs](self).
///
/// Predefined classes: `java.lang.Object`, `java.lang.Class`, `java.lang.String` (`value`:
/// `byte[]`, `coder`: byte), `java.lang.ref.Reference` (`referent`, `queue`, `next`,
/// `discovered`) with `WeakReference`, `SoftReference` and `PhantomReference`, and
/// `java.lang.Thread` (`name`). Object array classes (`com.example.Item[]`) appear when first
/// used. Methods panic on misuse (unknown field, wrong value type): they are for tests.
pub struct HeapBuilder {
    classes: Vec<ClassDef>,
    classes_by_name: HashMap<String, usize>,
    objects: Vec<(u64, ObjectData)>,
    object_positions: HashMap<u64, usize>,
    roots: Vec<RootDef>,
    /// Thread object id → thread serial.
    thread_serials: HashMap<u64, u32>,
    threads: Vec<u64>,
    /// Each thread's stack frames, innermost first, by thread serial - 1.
    stacks: Vec<Vec<FrameDef>>,
    next_id: u64,
    system_classes_sticky: bool,
    options: DumpOptions,
}

/// Ids are spaced like addresses of small objects.
const ID_STEP: u64 = 16;

impl Default for HeapBuilder {
    fn default() -> Self {
        HeapBuilder::new()
    }
}

impl HeapBuilder {
    /// A heap with the predefined classes and 8-byte ids above 4 GiB (as on a 64-bit JVM).
    pub fn new() -> HeapBuilder {
        HeapBuilder::with_id_size(8)
    }

    /// A heap whose ids fit in `id_size` bytes (4 or 8); dumps use that id size by default.
    pub fn with_id_size(id_size: u8) -> HeapBuilder {
        assert!(
            id_size == 4 || id_size == 8,
            "HPROF ids are 4 or 8 bytes, not {id_size}"
        );
        let mut h = HeapBuilder {
            classes: Vec::new(),
            classes_by_name: HashMap::new(),
            objects: Vec::new(),
            object_positions: HashMap::new(),
            roots: Vec::new(),
            thread_serials: HashMap::new(),
            threads: Vec::new(),
            stacks: Vec::new(),
            next_id: if id_size == 8 {
                0x7_f000_0000
            } else {
                0x1000_0000
            },
            system_classes_sticky: false,
            options: DumpOptions {
                id_size,
                ..DumpOptions::default()
            },
        };
        let object = h.class("java.lang.Object", None, &[]);
        h.class("java.lang.Class", Some(object), &[]);
        h.class(
            "java.lang.String",
            Some(object),
            &[("value", FieldType::Object), ("coder", FieldType::BYTE)],
        );
        let reference = h.class(
            "java.lang.ref.Reference",
            Some(object),
            &[
                ("referent", FieldType::Object),
                ("queue", FieldType::Object),
                ("next", FieldType::Object),
                ("discovered", FieldType::Object),
            ],
        );
        for kind in ["Weak", "Soft", "Phantom"] {
            h.class(
                &format!("java.lang.ref.{kind}Reference"),
                Some(reference),
                &[],
            );
        }
        h.class(
            "java.lang.Thread",
            Some(object),
            &[("name", FieldType::Object)],
        );
        h
    }

    /// Sets how [`write`](Self::write) and [`build`](Self::build) lay out the dump.
    pub fn set_dump_options(&mut self, options: DumpOptions) -> &mut Self {
        self.options = options;
        self
    }

    fn new_id(&mut self) -> u64 {
        let id = self.next_id;
        self.next_id += ID_STEP;
        id
    }

    /// Declares a class with its own instance fields (in dump order). `super_class: None` makes
    /// a root class like `java.lang.Object`.
    pub fn class(
        &mut self,
        name: &str,
        super_class: Option<ClassId>,
        fields: &[(&str, FieldType)],
    ) -> ClassId {
        let id = self.new_id();
        let index = self.classes.len();
        self.classes.push(ClassDef {
            id,
            name: name.to_string(),
            super_class: super_class.map(|c| c.index),
            loader: 0,
            fields: fields.iter().map(|&(n, ty)| (n.to_string(), ty)).collect(),
            statics: Vec::new(),
        });
        self.classes_by_name
            .entry(name.to_string())
            .or_insert(index);
        ClassId {
            index,
            object: ObjectId(id),
        }
    }

    /// The first class declared with this Java name.
    pub fn find_class(&self, name: &str) -> Option<ClassId> {
        self.classes_by_name
            .get(name)
            .map(|&index| self.class_id(index))
    }

    /// The first class declared with this Java name.
    ///
    /// # Panics
    ///
    /// If there is none.
    pub fn class_named(&self, name: &str) -> ClassId {
        self.find_class(name)
            .unwrap_or_else(|| panic!("no class named {name}"))
    }

    fn class_id(&self, index: usize) -> ClassId {
        ClassId {
            index,
            object: ObjectId(self.classes[index].id),
        }
    }

    /// Declares a static field (null or zero until [`set_static`](Self::set_static)).
    pub fn static_field(&mut self, class: ClassId, name: &str, ty: FieldType) {
        self.classes[class.index]
            .statics
            .push((name.to_string(), ty, Value::zero(ty)));
    }

    /// Sets a static field declared by `class`.
    pub fn set_static(&mut self, class: ClassId, name: &str, value: impl Into<Value>) {
        let value = value.into();
        let def = &mut self.classes[class.index];
        let Some(slot) = def.statics.iter_mut().find(|(n, _, _)| n == name) else {
            panic!("class {} declares no static field {name}", def.name)
        };
        assert!(
            value.fits(slot.1),
            "static {}.{name} is {:?}, got {value:?}",
            def.name,
            slot.1
        );
        slot.2 = value;
    }

    /// Fields of an instance of `class`, in dump order: (declaring class, name, type).
    fn instance_slots(&self, class: usize) -> Vec<(usize, &str, FieldType)> {
        let mut slots = Vec::new();
        let mut current = Some(class);
        while let Some(c) = current {
            slots.extend(
                self.classes[c]
                    .fields
                    .iter()
                    .map(|(name, ty)| (c, name.as_str(), *ty)),
            );
            current = self.classes[c].super_class;
        }
        slots
    }

    /// A new instance of `class`; fields not named are null or zero. Names are looked up in the
    /// class first, then its super classes.
    pub fn instance(&mut self, class: ClassId, fields: &[(&str, Value)]) -> ObjectId {
        let values = self
            .instance_slots(class.index)
            .into_iter()
            .map(|(_, _, ty)| Value::zero(ty))
            .collect();
        let id = self.push_object(ObjectData::Instance {
            class: class.index,
            values,
        });
        for &(name, value) in fields {
            self.set_field(id, name, value);
        }
        id
    }

    fn push_object(&mut self, data: ObjectData) -> ObjectId {
        let id = self.new_id();
        self.object_positions.insert(id, self.objects.len());
        self.objects.push((id, data));
        ObjectId(id)
    }

    fn object_mut(&mut self, object: ObjectId) -> &mut ObjectData {
        let position = *self.object_positions.get(&object.0).unwrap_or_else(|| {
            panic!(
                "0x{:x} is not an instance or array of this builder",
                object.0
            )
        });
        &mut self.objects[position].1
    }

    /// Sets an instance field (declared by the object's class or a super class), e.g. to close
    /// a cycle.
    pub fn set_field(&mut self, object: ObjectId, name: &str, value: impl Into<Value>) {
        let value = value.into();
        let class = match self.object_mut(object) {
            ObjectData::Instance { class, .. } => *class,
            _ => panic!("0x{:x} is not an instance", object.0),
        };
        let slots = self.instance_slots(class);
        let Some(position) = slots.iter().position(|&(_, n, _)| n == name) else {
            panic!("{} has no field {name}", self.classes[class].name)
        };
        let ty = slots[position].2;
        assert!(
            value.fits(ty),
            "field {}.{name} is {ty:?}, got {value:?}",
            self.classes[class].name
        );
        if let ObjectData::Instance { values, .. } = self.object_mut(object) {
            values[position] = value;
        }
    }

    /// The array class named `name` (`com.example.Item[]`), declared on first use with
    /// `java.lang.Object` as super class, like HotSpot's array class dumps.
    pub fn array_class(&mut self, name: &str) -> ClassId {
        assert!(name.ends_with("[]"), "{name} is not an array class name");
        if let Some(class) = self.find_class(name) {
            return class;
        }
        let object = self.class_named("java.lang.Object");
        self.class(name, Some(object), &[])
    }

    /// An object array of class `array_class` (`java.lang.Object[]`); `None` entries are null.
    pub fn object_array(&mut self, array_class: &str, elements: &[Option<ObjectId>]) -> ObjectId {
        let class = self.array_class(array_class).index;
        self.push_object(ObjectData::ObjectArray {
            class,
            elements: elements.to_vec(),
        })
    }

    /// Sets one element of an object array.
    pub fn set_element(&mut self, array: ObjectId, index: usize, element: Option<ObjectId>) {
        match self.object_mut(array) {
            ObjectData::ObjectArray { elements, .. } => elements[index] = element,
            _ => panic!("0x{:x} is not an object array", array.0),
        }
    }

    /// A zero-filled primitive array.
    pub fn primitive_array(&mut self, ty: PrimitiveType, length: u32) -> ObjectId {
        let data = vec![0; length as usize * ty.size() as usize];
        self.push_object(ObjectData::PrimitiveArray { ty, length, data })
    }

    /// A `byte[]` with these contents.
    pub fn byte_array(&mut self, bytes: &[u8]) -> ObjectId {
        let length = bytes.len() as u32;
        self.push_object(ObjectData::PrimitiveArray {
            ty: PrimitiveType::Byte,
            length,
            data: bytes.to_vec(),
        })
    }

    /// An `int[]` with these contents.
    pub fn int_array(&mut self, values: &[i32]) -> ObjectId {
        let data = values.iter().flat_map(|v| v.to_be_bytes()).collect();
        self.push_object(ObjectData::PrimitiveArray {
            ty: PrimitiveType::Int,
            length: values.len() as u32,
            data,
        })
    }

    /// A `java.lang.String` and its `byte[]` value, encoded as JDK 9+ does: Latin-1 (coder 0)
    /// when every character fits, else UTF-16 (coder 1, little-endian like x86 JVMs).
    pub fn string(&mut self, text: &str) -> ObjectId {
        let latin1: Option<Vec<u8>> = text.chars().map(|c| u8::try_from(c as u32).ok()).collect();
        let (bytes, coder) = match latin1 {
            Some(bytes) => (bytes, 0),
            None => (text.encode_utf16().flat_map(u16::to_le_bytes).collect(), 1),
        };
        let value = self.byte_array(&bytes);
        let string = self.class_named("java.lang.String");
        self.instance(
            string,
            &[("value", value.into()), ("coder", Value::Byte(coder))],
        )
    }

    /// A GC root. Roots that belong to a thread's stack get thread serial 0 (unknown); use
    /// [`thread_root`](Self::thread_root) to name the thread.
    pub fn root(&mut self, kind: RootKind, object: impl Into<ObjectId>) {
        self.roots.push(RootDef {
            kind,
            object: object.into().0,
            thread_serial: 0,
            frame_depth: None,
        });
    }

    /// Makes `loader` the class loader that defined `class` (the boot loader by default).
    pub fn set_class_loader(&mut self, class: ClassId, loader: ObjectId) {
        self.classes[class.index].loader = loader.0;
    }

    /// Gives `thread` (registered if it wasn't) a stack of frames, innermost first:
    /// `(class, method, source file, line)`. The classes must have been declared.
    pub fn thread_stack(&mut self, thread: ObjectId, frames: &[(&str, &str, &str, u32)]) {
        let serial = self.thread(thread);
        self.stacks[serial as usize - 1] = frames
            .iter()
            .map(|&(class, method, file, line)| {
                assert!(
                    self.classes_by_name.contains_key(class),
                    "stack frame of undeclared class {class}"
                );
                FrameDef {
                    class: class.to_owned(),
                    method: method.to_owned(),
                    file: file.to_owned(),
                    line: line as i32,
                }
            })
            .collect();
    }

    /// A local variable of frame `depth` (0 is innermost) of `thread`'s stack (see
    /// [`thread_stack`](Self::thread_stack)).
    pub fn frame_local_at(&mut self, object: ObjectId, thread: ObjectId, depth: u32) {
        let thread_serial = self.thread(thread);
        self.roots.push(RootDef {
            kind: RootKind::JavaFrame,
            object: object.0,
            thread_serial,
            frame_depth: Some(depth),
        });
    }

    /// Registers a thread object with a THREAD OBJECT root (once) and returns its serial.
    pub fn thread(&mut self, thread: ObjectId) -> u32 {
        if let Some(&serial) = self.thread_serials.get(&thread.0) {
            return serial;
        }
        let serial = self.threads.len() as u32 + 1;
        self.threads.push(thread.0);
        self.stacks.push(Vec::new());
        self.thread_serials.insert(thread.0, serial);
        self.roots.push(RootDef {
            kind: RootKind::ThreadObject,
            object: thread.0,
            thread_serial: serial,
            frame_depth: None,
        });
        serial
    }

    /// A `java.lang.Thread` named `name`, registered as a thread.
    pub fn thread_named(&mut self, name: &str) -> ObjectId {
        let name = self.string(name);
        let class = self.class_named("java.lang.Thread");
        let thread = self.instance(class, &[("name", name.into())]);
        self.thread(thread);
        thread
    }

    /// A local variable of a Java frame of `thread` (registered if it wasn't).
    pub fn frame_local(&mut self, object: ObjectId, thread: ObjectId) {
        self.thread_root(RootKind::JavaFrame, object, thread);
    }

    /// A root on `thread`'s stack (`JavaFrame`, `JniLocal`, `NativeStack`, `ThreadBlock`,
    /// `JniMonitor`), with the thread's serial.
    pub fn thread_root(&mut self, kind: RootKind, object: ObjectId, thread: ObjectId) {
        let thread_serial = self.thread(thread);
        self.roots.push(RootDef {
            kind,
            object: object.0,
            thread_serial,
            frame_depth: None,
        });
    }

    /// Makes every class in `java.`, `javax.`, `jdk.` and `sun.` (those declared so far and
    /// later) a sticky-class root, as the boot class loader's classes are in HotSpot dumps.
    pub fn make_system_classes_sticky(&mut self) {
        self.system_classes_sticky = true;
    }
}
