//! The one error type of the HPROF reader.

use std::path::PathBuf;

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
    /// More objects than a 32-bit dense index can number.
    #[error("the heap dump holds {count} objects; at most 4294967295 are supported")]
    TooManyObjects {
        /// Objects found so far.
        count: u64,
    },
    /// More classes than the model can number.
    #[error("the heap dump holds {count} classes; at most {max} are supported")]
    TooManyClasses {
        /// Classes found.
        count: u64,
        /// The limit.
        max: u64,
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
