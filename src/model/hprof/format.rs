//! Constants and conventions of the HPROF format: record tags, sub-record tags, basic types,
//! fixed record layouts and the JVM ↔ Java spelling of class names.
//!
//! Reference: the HPROF format description shipped with the JDK (`heapDumper.cpp` comments)
//! plus the Android additions (root kinds 0x89–0x90, 0xC3, 0xFE).

pub(crate) use crate::heap::record::{field_size, layout, primitive_java_name, primitive_size};
use crate::heap::{FieldType, PrimitiveType, RootKind};

/// Every header starts with this, followed by `1\0` or `2\0`.
pub(crate) const HEADER_PREFIX: &[u8] = b"JAVA PROFILE 1.0.";

/// Top-level record tags.
pub(crate) mod tag {
    pub(crate) const STRING: u8 = 0x01;
    pub(crate) const LOAD_CLASS: u8 = 0x02;
    pub(crate) const STACK_FRAME: u8 = 0x04;
    pub(crate) const STACK_TRACE: u8 = 0x05;
    pub(crate) const START_THREAD: u8 = 0x0A;
    pub(crate) const HEAP_DUMP: u8 = 0x0C;
    pub(crate) const HEAP_DUMP_SEGMENT: u8 = 0x1C;
    pub(crate) const HEAP_DUMP_END: u8 = 0x2C;
}

/// Heap dump sub-record tags.
pub(crate) mod sub {
    pub(crate) const ROOT_UNKNOWN: u8 = 0xFF;
    pub(crate) const ROOT_JNI_GLOBAL: u8 = 0x01;
    pub(crate) const ROOT_JNI_LOCAL: u8 = 0x02;
    pub(crate) const ROOT_JAVA_FRAME: u8 = 0x03;
    pub(crate) const ROOT_NATIVE_STACK: u8 = 0x04;
    pub(crate) const ROOT_STICKY_CLASS: u8 = 0x05;
    pub(crate) const ROOT_THREAD_BLOCK: u8 = 0x06;
    pub(crate) const ROOT_MONITOR_USED: u8 = 0x07;
    pub(crate) const ROOT_THREAD_OBJECT: u8 = 0x08;
    pub(crate) const ROOT_INTERNED_STRING: u8 = 0x89;
    pub(crate) const ROOT_FINALIZING: u8 = 0x8A;
    pub(crate) const ROOT_DEBUGGER: u8 = 0x8B;
    pub(crate) const ROOT_REFERENCE_CLEANUP: u8 = 0x8C;
    pub(crate) const ROOT_VM_INTERNAL: u8 = 0x8D;
    pub(crate) const ROOT_JNI_MONITOR: u8 = 0x8E;
    pub(crate) const ROOT_UNREACHABLE: u8 = 0x90;
    pub(crate) const HEAP_DUMP_INFO: u8 = 0xFE;
    pub(crate) const CLASS_DUMP: u8 = 0x20;
    pub(crate) const INSTANCE_DUMP: u8 = 0x21;
    pub(crate) const OBJECT_ARRAY_DUMP: u8 = 0x22;
    pub(crate) const PRIMITIVE_ARRAY_DUMP: u8 = 0x23;
    pub(crate) const PRIMITIVE_ARRAY_NODATA: u8 = 0xC3;
}

/// Basic type code of an object reference in field and array descriptions.
pub(crate) const BASIC_TYPE_OBJECT: u8 = 2;

/// The root kind a root sub-record tag stands for, and whether the record carries a thread
/// serial number right after the object id.
pub(crate) fn root_kind(sub_tag: u8) -> Option<(RootKind, bool)> {
    Some(match sub_tag {
        sub::ROOT_UNKNOWN => (RootKind::Unknown, false),
        sub::ROOT_JNI_GLOBAL => (RootKind::JniGlobal, false),
        sub::ROOT_JNI_LOCAL => (RootKind::JniLocal, true),
        sub::ROOT_JAVA_FRAME => (RootKind::JavaFrame, true),
        sub::ROOT_NATIVE_STACK => (RootKind::NativeStack, true),
        sub::ROOT_STICKY_CLASS => (RootKind::StickyClass, false),
        sub::ROOT_THREAD_BLOCK => (RootKind::ThreadBlock, true),
        sub::ROOT_MONITOR_USED => (RootKind::MonitorUsed, false),
        // The serial of a thread object root is the thread's own serial, not an owner's.
        sub::ROOT_THREAD_OBJECT => (RootKind::ThreadObject, false),
        sub::ROOT_INTERNED_STRING => (RootKind::InternedString, false),
        sub::ROOT_FINALIZING => (RootKind::Finalizing, false),
        sub::ROOT_DEBUGGER => (RootKind::Debugger, false),
        sub::ROOT_REFERENCE_CLEANUP => (RootKind::ReferenceCleanup, false),
        sub::ROOT_VM_INTERNAL => (RootKind::VmInternal, false),
        sub::ROOT_JNI_MONITOR => (RootKind::JniMonitor, true),
        sub::ROOT_UNREACHABLE => (RootKind::Unreachable, false),
        _ => return None,
    })
}

/// The sub-record tag the writer uses for a root kind (inverse of [`root_kind`]).
pub(crate) fn root_sub_tag(kind: RootKind) -> u8 {
    match kind {
        RootKind::Unknown => sub::ROOT_UNKNOWN,
        RootKind::JniGlobal => sub::ROOT_JNI_GLOBAL,
        RootKind::JniLocal => sub::ROOT_JNI_LOCAL,
        RootKind::JavaFrame => sub::ROOT_JAVA_FRAME,
        RootKind::NativeStack => sub::ROOT_NATIVE_STACK,
        RootKind::StickyClass => sub::ROOT_STICKY_CLASS,
        RootKind::ThreadBlock => sub::ROOT_THREAD_BLOCK,
        RootKind::MonitorUsed => sub::ROOT_MONITOR_USED,
        RootKind::ThreadObject => sub::ROOT_THREAD_OBJECT,
        RootKind::InternedString => sub::ROOT_INTERNED_STRING,
        RootKind::Finalizing => sub::ROOT_FINALIZING,
        RootKind::Debugger => sub::ROOT_DEBUGGER,
        RootKind::ReferenceCleanup => sub::ROOT_REFERENCE_CLEANUP,
        RootKind::VmInternal => sub::ROOT_VM_INTERNAL,
        RootKind::JniMonitor => sub::ROOT_JNI_MONITOR,
        RootKind::Unreachable => sub::ROOT_UNREACHABLE,
    }
}

/// Bytes that follow the object id in a root sub-record (thread serials, frame numbers, the
/// JNI global reference id).
pub(crate) fn root_trailer_len(sub_tag: u8, id_size: u8) -> usize {
    match sub_tag {
        sub::ROOT_JNI_GLOBAL => id_size as usize,
        sub::ROOT_JNI_LOCAL
        | sub::ROOT_JAVA_FRAME
        | sub::ROOT_THREAD_OBJECT
        | sub::ROOT_JNI_MONITOR => 8,
        sub::ROOT_NATIVE_STACK | sub::ROOT_THREAD_BLOCK => 4,
        _ => 0,
    }
}

/// Decodes a basic type code of a field or primitive array.
pub(crate) fn field_type(code: u8) -> Option<FieldType> {
    Some(match code {
        BASIC_TYPE_OBJECT => FieldType::Object,
        _ => FieldType::Primitive(primitive_type(code)?),
    })
}

/// Decodes a primitive basic type code (4..=11).
pub(crate) fn primitive_type(code: u8) -> Option<PrimitiveType> {
    Some(match code {
        4 => PrimitiveType::Boolean,
        5 => PrimitiveType::Char,
        6 => PrimitiveType::Float,
        7 => PrimitiveType::Double,
        8 => PrimitiveType::Byte,
        9 => PrimitiveType::Short,
        10 => PrimitiveType::Int,
        11 => PrimitiveType::Long,
        _ => return None,
    })
}

/// Basic type code of a field type.
pub(crate) fn field_type_code(ty: FieldType) -> u8 {
    match ty {
        FieldType::Object => BASIC_TYPE_OBJECT,
        FieldType::Primitive(p) => primitive_type_code(p),
    }
}

/// Basic type code of a primitive type.
pub(crate) fn primitive_type_code(ty: PrimitiveType) -> u8 {
    match ty {
        PrimitiveType::Boolean => 4,
        PrimitiveType::Char => 5,
        PrimitiveType::Float => 6,
        PrimitiveType::Double => 7,
        PrimitiveType::Byte => 8,
        PrimitiveType::Short => 9,
        PrimitiveType::Int => 10,
        PrimitiveType::Long => 11,
    }
}

/// The eight primitive types in basic type code order; their array classes are numbered the
/// same way.
pub(crate) const PRIMITIVE_TYPES: [PrimitiveType; 8] = [
    PrimitiveType::Boolean,
    PrimitiveType::Char,
    PrimitiveType::Float,
    PrimitiveType::Double,
    PrimitiveType::Byte,
    PrimitiveType::Short,
    PrimitiveType::Int,
    PrimitiveType::Long,
];

/// Position of a primitive type in [`PRIMITIVE_TYPES`].
pub(crate) fn primitive_ordinal(ty: PrimitiveType) -> usize {
    (primitive_type_code(ty) - 4) as usize
}

fn primitive_descriptor(ty: PrimitiveType) -> char {
    match ty {
        PrimitiveType::Boolean => 'Z',
        PrimitiveType::Char => 'C',
        PrimitiveType::Float => 'F',
        PrimitiveType::Double => 'D',
        PrimitiveType::Byte => 'B',
        PrimitiveType::Short => 'S',
        PrimitiveType::Int => 'I',
        PrimitiveType::Long => 'J',
    }
}

/// Converts a class name as LOAD CLASS spells it to the Java spelling: see
/// [`crate::class_name::java_class_name`].
pub(crate) use crate::class_name::java_class_name;

/// Converts a Java class name back to the JVM spelling LOAD CLASS uses (inverse of
/// [`java_class_name`]); used by the heap builder.
pub(crate) fn jvm_class_name(java_name: &str) -> String {
    let mut element = java_name;
    let mut dims = 0;
    while let Some(inner) = element.strip_suffix("[]") {
        element = inner;
        dims += 1;
    }
    if dims == 0 {
        return java_name.replace('.', "/");
    }
    let mut name = "[".repeat(dims);
    match PRIMITIVE_TYPES
        .into_iter()
        .find(|&p| primitive_java_name(p) == element)
    {
        Some(p) => name.push(primitive_descriptor(p)),
        None => {
            name.push('L');
            name.push_str(&element.replace('.', "/"));
            name.push(';');
        }
    }
    name
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn converts_java_names_back_to_jvm_names() {
        for (java, jvm) in [
            ("java.util.ArrayList", "java/util/ArrayList"),
            ("java.lang.Object[]", "[Ljava/lang/Object;"),
            ("java.lang.String[][]", "[[Ljava/lang/String;"),
            ("int[]", "[I"),
            ("double[][]", "[[D"),
        ] {
            assert_eq!(jvm_class_name(java), jvm);
            assert_eq!(java_class_name(jvm), java);
        }
    }

    #[test]
    fn basic_types_round_trip() {
        for p in PRIMITIVE_TYPES {
            assert_eq!(primitive_type(primitive_type_code(p)), Some(p));
            assert_eq!(PRIMITIVE_TYPES[primitive_ordinal(p)], p);
        }
        assert_eq!(field_type(2), Some(FieldType::Object));
        assert_eq!(field_type(1), None);
        assert_eq!(field_type(12), None);
    }
}
