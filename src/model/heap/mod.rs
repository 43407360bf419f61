//! The heap model: a heap snapshot as flat arrays indexed by a dense object index, with no JNI
//! types, so that every analysis above it can be tested on synthetic heaps
//! (see [`crate::hprof::builder::HeapBuilder`]). It depends on nothing above it
//! (only the crate's small `parallel` helper): the reader ([`crate::hprof`]) builds it.
//!
//! Objects are numbered `0..object_count()` in ascending order of their HPROF id. Class objects
//! (which HPROF describes only as class dumps) are objects too, so static fields have an owner.
//! The graph decodes references lazily from the memory-mapped dump instead of copying them into
//! edge arrays: that keeps per-object memory small (see docs/bench.md).

pub(crate) mod graph;
pub(crate) mod record;
pub(crate) mod resident;
pub(crate) mod storage;

pub use graph::HeapGraph;

/// Dense index of an object in one snapshot. Valid only for the [`HeapGraph`] that produced it.
pub type ObjectIndex = u32;
/// Dense index of a class in one snapshot.
pub type ClassIndex = u32;

/// Why an object is a GC root, as HPROF records it (HotSpot and Android record kinds).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[non_exhaustive]
pub enum RootKind {
    /// ROOT UNKNOWN (0xFF).
    Unknown,
    /// A JNI global reference (0x01).
    JniGlobal,
    /// A JNI local reference in a native frame (0x02).
    JniLocal,
    /// A local variable or operand of a Java frame (0x03).
    JavaFrame,
    /// Held by native code on a thread's stack (0x04).
    NativeStack,
    /// A class the VM never unloads, e.g. loaded by the boot class loader (0x05).
    StickyClass,
    /// Held by a thread block (0x06).
    ThreadBlock,
    /// An object used as a monitor (0x07).
    MonitorUsed,
    /// A live `java.lang.Thread` (0x08).
    ThreadObject,
    /// Android: an interned string (0x89).
    InternedString,
    /// Android: waiting for finalization (0x8A).
    Finalizing,
    /// Android: held by the debugger (0x8B).
    Debugger,
    /// Android: reference cleanup (0x8C).
    ReferenceCleanup,
    /// Android: held by the VM (0x8D).
    VmInternal,
    /// Android: a JNI monitor (0x8E).
    JniMonitor,
    /// Android: listed as unreachable (0x90).
    Unreachable,
}

/// One GC root record.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Root {
    /// Why the object is a root.
    pub kind: RootKind,
    /// The root object.
    pub object: ObjectIndex,
    /// For roots that belong to a thread's stack (Java frame, JNI local, native stack, thread
    /// block): the thread object, when the dump names it through a thread serial number.
    pub thread: Option<ObjectIndex>,
    /// For Java frame and JNI local roots: the frame that holds the local, an index into
    /// [`HeapGraph::frames`], when the dump has the thread's stack trace.
    pub frame: Option<u32>,
}

/// A frame of a thread's stack, as the dump's stack traces record it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StackFrame {
    /// The class declaring the method, in Java form (`java.util.TimerThread`).
    pub class: String,
    /// The method's name (`mainLoop`).
    pub method: String,
    /// The source file (`Timer.java`); empty when unknown.
    pub file: String,
    /// The line, when known (not for native or compiled frames without line data).
    pub line: Option<u32>,
}

/// Primitive element or field types.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum PrimitiveType {
    /// `boolean` (1 byte).
    Boolean,
    /// `char` (2 bytes, UTF-16 code unit).
    Char,
    /// `float` (4 bytes).
    Float,
    /// `double` (8 bytes).
    Double,
    /// `byte` (1 byte).
    Byte,
    /// `short` (2 bytes).
    Short,
    /// `int` (4 bytes).
    Int,
    /// `long` (8 bytes).
    Long,
}

impl PrimitiveType {
    /// Bytes one value takes in a heap dump.
    pub fn size(self) -> u8 {
        record::primitive_size(self)
    }

    /// The Java keyword (`int`); the array class is named `int[]`.
    pub fn java_name(self) -> &'static str {
        record::primitive_java_name(self)
    }
}

/// The type of a field as HPROF records it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum FieldType {
    /// A reference (an id of the dump's id size).
    Object,
    /// A primitive value.
    Primitive(PrimitiveType),
}

/// Short names for field declarations in tests: `("count", FieldType::INT)`.
impl FieldType {
    /// `boolean`.
    pub const BOOLEAN: FieldType = FieldType::Primitive(PrimitiveType::Boolean);
    /// `char`.
    pub const CHAR: FieldType = FieldType::Primitive(PrimitiveType::Char);
    /// `float`.
    pub const FLOAT: FieldType = FieldType::Primitive(PrimitiveType::Float);
    /// `double`.
    pub const DOUBLE: FieldType = FieldType::Primitive(PrimitiveType::Double);
    /// `byte`.
    pub const BYTE: FieldType = FieldType::Primitive(PrimitiveType::Byte);
    /// `short`.
    pub const SHORT: FieldType = FieldType::Primitive(PrimitiveType::Short);
    /// `int`.
    pub const INT: FieldType = FieldType::Primitive(PrimitiveType::Int);
    /// `long`.
    pub const LONG: FieldType = FieldType::Primitive(PrimitiveType::Long);
}

/// A declared field of a class (instance or static).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Field {
    /// Field name as the dump spells it.
    pub name: String,
    /// Declared type.
    pub ty: FieldType,
}

/// What kind of record an object came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ObjectKind {
    /// An instance dump.
    Instance,
    /// An object array dump.
    ObjectArray,
    /// A primitive array dump (or Android's primitive array without data).
    PrimitiveArray(PrimitiveType),
    /// A class dump: the `java.lang.Class` object of [`HeapGraph::class_object_of`].
    Class,
}

/// A class of the snapshot: loaded classes from class dumps, plus array classes.
#[derive(Clone, Debug)]
pub struct ClassInfo {
    /// Java-style name: `java.util.ArrayList`, `java.util.HashMap$Node`, `java.lang.Object[]`,
    /// `int[]`.
    pub name: String,
    /// The direct super class (`None` for `java.lang.Object`, interfaces' dumps name Object).
    pub super_class: Option<ClassIndex>,
    /// The class object (a graph node of kind [`ObjectKind::Class`]); `None` for array classes
    /// that have no class dump.
    pub object: Option<ObjectIndex>,
    /// Instance fields declared by this class itself (not inherited), in dump order.
    pub instance_fields: Vec<Field>,
    /// Static fields declared by this class, in dump order.
    pub static_fields: Vec<Field>,
    /// The class loader object that defined the class; `None` for the boot loader (and for
    /// array classes, which have no class dump).
    pub loader: Option<ObjectIndex>,
    /// HPROF instance size: bytes of field data of one instance (no header).
    pub instance_size: u32,
}

/// The location a reference is read from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ReferenceKind {
    /// Instance field `declaring_class.instance_fields[field]`.
    InstanceField {
        /// The class that declares the field (the object's class or a super class).
        declaring_class: ClassIndex,
        /// Index into that class's [`ClassInfo::instance_fields`].
        field: u16,
    },
    /// Static field `class.static_fields[field]`, read from the class object.
    StaticField {
        /// The class whose class object holds the field.
        class: ClassIndex,
        /// Index into [`ClassInfo::static_fields`].
        field: u16,
    },
    /// Element `index` of an object array.
    ArrayEntry {
        /// Element index.
        index: u32,
    },
}

/// One outgoing reference to an object that exists in the snapshot.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Reference {
    /// Where the reference is stored.
    pub kind: ReferenceKind,
    /// The object it points to.
    pub target: ObjectIndex,
}

/// A field value read from the dump by [`HeapGraph::field_value`] or
/// [`HeapGraph::static_field_value`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum FieldValue {
    /// A reference, as the raw HPROF id (0 is null); map it with [`HeapGraph::index_of_id`]
    /// (ids of objects without a record, as with CDS, map to `None`).
    Object(u64),
    /// `boolean`.
    Boolean(bool),
    /// `char`.
    Char(u16),
    /// `float`.
    Float(f32),
    /// `double`.
    Double(f64),
    /// `byte`.
    Byte(i8),
    /// `short`.
    Short(i16),
    /// `int`.
    Int(i32),
    /// `long`.
    Long(i64),
}
