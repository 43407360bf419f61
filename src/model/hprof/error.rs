//! The one error type of the HPROF reader.

use std::path::PathBuf;

use super::limits::human_bytes;
#[cfg(doc)]
use super::ReadLimits;

/// Why a heap dump could not be read. Offsets are byte offsets in the file (for a sub-record
/// that continues in a following heap dump segment: the offset where it starts).
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum HprofError {
    /// The file could not be opened or mapped.
    #[error("cannot read heap dump {path}: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// What the operating system said.
        source: std::io::Error,
    },
    /// The file does not start with a `JAVA PROFILE 1.0.x` header this reader understands.
    #[error("not an HPROF heap dump: {reason} (at offset {offset})")]
    BadHeader {
        /// Where the header went wrong.
        offset: u64,
        /// What was expected.
        reason: String,
    },
    /// The file (or a heap dump segment stream) ends inside a record.
    #[error(
        "truncated heap dump: {what} at offset {offset} needs {needed} bytes, {available} remain"
    )]
    Truncated {
        /// Where the record starts.
        offset: u64,
        /// Which record.
        what: &'static str,
        /// Bytes the record needs from `offset` (at least).
        needed: u64,
        /// Bytes left from `offset`.
        available: u64,
    },
    /// The file has no HEAP DUMP or HEAP DUMP SEGMENT record (a CPU profile, or a dump cut
    /// short before its heap).
    #[error("the file holds no heap dump records (records end at offset {records_end})")]
    NoHeapDump {
        /// Where the last record ends.
        records_end: u64,
    },
    /// A heap dump sub-record tag this reader does not know; its length can't be known, so the
    /// rest of the segment can't be read.
    #[error("unknown heap dump sub-record tag 0x{tag:02x} at offset {offset}")]
    UnknownSubRecord {
        /// Where the sub-record starts.
        offset: u64,
        /// The tag byte.
        tag: u8,
    },
    /// A field or array element type code that isn't one of HPROF's basic types.
    #[error("unknown basic type code {code} in {what} at offset {offset}")]
    BadBasicType {
        /// Where the enclosing sub-record starts.
        offset: u64,
        /// The type byte.
        code: u8,
        /// Which record it appeared in.
        what: &'static str,
    },
    /// An instance, object array or class refers to a class id that has no class dump (object
    /// arrays may also use a LOAD CLASS record of an array class).
    #[error("{what} at offset {offset} refers to class 0x{class_id:x}, which has no class dump")]
    MissingClass {
        /// Where the referring sub-record starts.
        offset: u64,
        /// The class id it names.
        class_id: u64,
        /// Which record refers to it.
        what: &'static str,
    },
    /// Following super classes from a class leads back to it.
    #[error("the super class chain of class 0x{class_id:x} (class dump at offset {offset}) loops")]
    SuperClassCycle {
        /// Where the class dump starts.
        offset: u64,
        /// The class id.
        class_id: u64,
    },
    /// An instance holds fewer field bytes than its class hierarchy declares.
    #[error(
        "instance at offset {offset} has {actual} bytes of field data, \
         but the fields of its class {class} take {expected}"
    )]
    InstanceTooShort {
        /// Where the instance dump starts.
        offset: u64,
        /// Java name of its class.
        class: String,
        /// Bytes of field data in the record.
        actual: u32,
        /// Bytes the declared fields of the class and its super classes take.
        expected: u64,
    },
    /// Two records (objects or class dumps) carry the same id.
    #[error("object id 0x{id:x} appears in two records (one at offset {offset})")]
    DuplicateId {
        /// Where one of the records starts.
        offset: u64,
        /// The id.
        id: u64,
    },
    /// More objects than the model can number ([`ReadLimits::max_objects`]: a `u32` index).
    #[error(
        "the heap dump holds {count} objects, more than the {max} this reader can number: \
         take the dump from a smaller heap (a smaller -Xmx, or fewer loops before the dump)"
    )]
    TooManyObjects {
        /// Objects in the dump: instances, arrays and class objects.
        count: u64,
        /// The limit.
        max: u64,
    },
    /// More classes than the model can number ([`ReadLimits::max_classes`]).
    #[error(
        "the heap dump holds {count} classes, more than the {max} this reader can number: \
         no JVM holds that many, so the dump is likely corrupt"
    )]
    TooManyClasses {
        /// Classes found (class dumps, array classes known from LOAD CLASS, and the ones the
        /// reader adds for primitive arrays).
        count: u64,
        /// The limit.
        max: u64,
    },
    /// A table the model numbers with a `u32` besides objects has more entries than
    /// [`ReadLimits::max_table_entries`]: the reference fields or the static fields of all
    /// classes together, or the frames of all thread stacks.
    #[error(
        "the heap dump declares {count} {table}, more than the {max} this reader can number: \
         a JVM writes far fewer, so the dump is likely corrupt"
    )]
    TooManyTableEntries {
        /// Which table.
        table: &'static str,
        /// Entries the dump declares.
        count: u64,
        /// The limit.
        max: u64,
    },
    /// Reading and analysing the dump would need plainly more memory than there is
    /// ([`ReadLimits::memory`]); checked after the scan, before the per-object arrays.
    #[error(
        "the heap dump holds {objects} objects: reading and analysing it needs about {} \
         ({bytes_per_object} bytes per object), but {} are available ({figure_from}); \
         free memory or raise the limit, or set HEAPGROWTH_SKIP_MEMORY_CHECK=1 to try anyway",
        human_bytes(*needed),
        human_bytes(*available)
    )]
    NotEnoughMemory {
        /// Objects in the dump.
        objects: u64,
        /// The estimate per object ([`super::PEAK_BYTES_PER_OBJECT`]).
        bytes_per_object: u64,
        /// The estimate: objects times bytes per object.
        needed: u64,
        /// What is available.
        available: u64,
        /// Where that figure comes from (`/proc/meminfo`, a cgroup).
        figure_from: String,
    },
}

impl HprofError {
    pub(crate) fn truncated(offset: u64, what: &'static str, needed: u64, available: u64) -> Self {
        HprofError::Truncated {
            offset,
            what,
            needed,
            available,
        }
    }
}
