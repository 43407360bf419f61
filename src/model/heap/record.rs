//! How an object's record is laid out in the dump bytes the model keeps. [`super::HeapGraph`]
//! decodes references and values lazily from those bytes, so this part of the HPROF format
//! belongs to the model; the reader (`crate::hprof`) uses it from here, never the other way.

use super::{FieldType, PrimitiveType};

/// Width of HPROF identifiers, as a type so the hot loops compile once per width.
pub(crate) trait IdWidth: Copy + Send + Sync + 'static {
    /// Bytes per identifier.
    const SIZE: usize;
    /// Reads a big-endian identifier from the first `SIZE` bytes.
    fn read(bytes: &[u8]) -> Option<u64>;
}

/// 4-byte identifiers (32-bit JVMs, some Android dumps).
#[derive(Clone, Copy)]
pub(crate) struct Id4;
/// 8-byte identifiers (64-bit HotSpot).
#[derive(Clone, Copy)]
pub(crate) struct Id8;

impl IdWidth for Id4 {
    const SIZE: usize = 4;
    #[inline(always)]
    fn read(bytes: &[u8]) -> Option<u64> {
        Some(u32::from_be_bytes(bytes.get(..4)?.try_into().ok()?) as u64)
    }
}

impl IdWidth for Id8 {
    const SIZE: usize = 8;
    #[inline(always)]
    fn read(bytes: &[u8]) -> Option<u64> {
        Some(u64::from_be_bytes(bytes.get(..8)?.try_into().ok()?))
    }
}

/// A hint to load the cache line at `address`; never faults, whatever the address.
#[inline(always)]
pub(crate) fn prefetch_address<T>(address: *const T) {
    #[cfg(target_arch = "x86_64")]
    // Safety: a prefetch is a hint that never faults.
    unsafe {
        core::arch::x86_64::_mm_prefetch::<{ core::arch::x86_64::_MM_HINT_T0 }>(address.cast());
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = address;
}

#[inline(always)]
pub(crate) fn read_u32(bytes: &[u8], pos: usize) -> Option<u32> {
    Some(u32::from_be_bytes(
        bytes.get(pos..pos + 4)?.try_into().ok()?,
    ))
}

/// Bytes one value of a primitive type takes in the dump.
pub(crate) fn primitive_size(ty: PrimitiveType) -> u8 {
    match ty {
        PrimitiveType::Boolean | PrimitiveType::Byte => 1,
        PrimitiveType::Char | PrimitiveType::Short => 2,
        PrimitiveType::Float | PrimitiveType::Int => 4,
        PrimitiveType::Double | PrimitiveType::Long => 8,
    }
}

/// Bytes one value of a field type takes in the dump (references take the id size).
pub(crate) fn field_size(ty: FieldType, id_size: u8) -> u8 {
    match ty {
        FieldType::Object => id_size,
        FieldType::Primitive(p) => primitive_size(p),
    }
}

/// Java keyword of a primitive type (`int`).
pub(crate) fn primitive_java_name(ty: PrimitiveType) -> &'static str {
    match ty {
        PrimitiveType::Boolean => "boolean",
        PrimitiveType::Char => "char",
        PrimitiveType::Float => "float",
        PrimitiveType::Double => "double",
        PrimitiveType::Byte => "byte",
        PrimitiveType::Short => "short",
        PrimitiveType::Int => "int",
        PrimitiveType::Long => "long",
    }
}

/// Fixed offsets inside the object sub-records, for an id size `I`. Positions count from the
/// tag byte.
pub(crate) mod layout {
    /// INSTANCE DUMP: tag, id, stack serial u32, class id, field byte count u32, field bytes.
    pub(crate) const fn instance_class_id(id: usize) -> usize {
        1 + id + 4
    }
    pub(crate) const fn instance_field_count(id: usize) -> usize {
        1 + 2 * id + 4
    }
    pub(crate) const fn instance_fields(id: usize) -> usize {
        1 + 2 * id + 8
    }
    /// OBJECT ARRAY DUMP / PRIMITIVE ARRAY DUMP: tag, id, stack serial u32, length u32, then
    /// the array class id (object arrays) or the element type byte (primitive arrays).
    pub(crate) const fn array_length(id: usize) -> usize {
        1 + id + 4
    }
    pub(crate) const fn object_array_class_id(id: usize) -> usize {
        1 + id + 8
    }
    pub(crate) const fn object_array_elements(id: usize) -> usize {
        1 + 2 * id + 8
    }
    pub(crate) const fn primitive_array_type(id: usize) -> usize {
        1 + id + 8
    }
    pub(crate) const fn primitive_array_elements(id: usize) -> usize {
        1 + id + 9
    }
}
