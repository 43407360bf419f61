//! Reading a HotSpot JVM's performance-data file (`/tmp/hsperfdata_<user>/<pid>`), the file
//! `jps` and `jstat` read, for one value: `sun.rt.jvmCapabilities`, whose first character
//! says whether the JVM's attach mechanism is enabled.
//!
//! We read it before signalling the JVM because a JVM started with
//! `-XX:+DisableAttachMechanism` answers the attach handshake's SIGQUIT with a thread dump on its
//! standard output instead of opening the attach socket.
//!
//! The format (HotSpot's `perfMemory.hpp`, version 2.0): a 32-byte prologue, then a chain of
//! entries, each `{length, name offset, vector length, type, flags, units, variability, data
//! offset}` followed by a NUL-terminated name and the data. All multi-byte fields are in the byte
//! order the prologue names; the magic number is always stored as the bytes `ca fe c0 c0`.

use std::fs;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};

/// The magic number's bytes as they are on disk, whatever the byte order of the rest.
const MAGIC: [u8; 4] = [0xca, 0xfe, 0xc0, 0xc0];
/// Prologue byte 4: 0 for big-endian, 1 for little-endian.
const BYTE_ORDER_OFFSET: usize = 4;
const BIG_ENDIAN: u8 = 0;
const LITTLE_ENDIAN: u8 = 1;
/// Prologue byte 5: the major version; every JVM since JDK 1.4.2 writes 2.
const MAJOR_VERSION_OFFSET: usize = 5;
const SUPPORTED_MAJOR_VERSION: u8 = 2;
/// Prologue byte 7: set to 1 at the end of JVM start-up; before that entries may be missing.
const ACCESSIBLE_OFFSET: usize = 7;
/// Prologue: bytes of the buffer in use (entries end there).
const USED_OFFSET: usize = 8;
/// Prologue: offset of the first entry.
const ENTRY_OFFSET_OFFSET: usize = 24;
/// Prologue: how many entries there are.
const NUM_ENTRIES_OFFSET: usize = 28;
const PROLOGUE_SIZE: usize = 32;

/// Entry header size: length, name offset, vector length (3 × 4 bytes), type, flags, units,
/// variability (4 × 1 byte), data offset (4 bytes).
const ENTRY_HEADER_SIZE: usize = 20;
/// Entry type code of a byte vector, the only kind strings are stored as.
const TYPE_BYTE: u8 = b'B';
/// Entry type code of a long (a counter).
const TYPE_LONG: u8 = b'J';
/// Entry units of a string (`PerfData::U_String`).
const UNITS_STRING: u8 = 5;

/// The counter that holds the JVM's capabilities as a string of '0'/'1' flags
/// (HotSpot's `RuntimeService::init`); the first flag is "attach is supported".
pub(crate) const CAPABILITIES_NAME: &str = "sun.rt.jvmCapabilities";

/// What the perf-data file says about the attach mechanism.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum AttachSupport {
    /// Capability flag '1'.
    Enabled,
    /// Capability flag '0': `-XX:+DisableAttachMechanism`.
    Disabled,
    /// The JVM is still starting (the file is not marked accessible yet, or lacks the entry).
    NotYetKnown,
}

/// Why a perf-data buffer could not be read.
#[derive(Debug, PartialEq, Eq)]
pub(crate) struct PerfDataError(pub(crate) String);

/// Reads the attach capability from the bytes of a perf-data file.
pub(crate) fn attach_support(bytes: &[u8]) -> Result<AttachSupport, PerfDataError> {
    let buffer = PerfBuffer::new(bytes)?;
    if !buffer.accessible {
        return Ok(AttachSupport::NotYetKnown);
    }
    Ok(match buffer.string_value(CAPABILITIES_NAME)? {
        Some(flags) if flags.starts_with('1') => AttachSupport::Enabled,
        Some(flags) if flags.starts_with('0') => AttachSupport::Disabled,
        Some(flags) => {
            return Err(PerfDataError(format!(
                "{CAPABILITIES_NAME} is {flags:?}, not a string of 0/1 flags"
            )))
        }
        None => AttachSupport::NotYetKnown,
    })
}

/// Finds the perf-data file of the JVM whose pid in its own namespace is `ns_pid`, under the
/// `tmp` directory it sees: `hsperfdata_<user>/<ns_pid>`, owned by `uid`.
///
/// The directory is named after the user as the JVM's own `/etc/passwd` spells it (inside a
/// container that may differ from ours), so every `hsperfdata_*` directory is tried and the
/// file's owner decides.
pub(crate) fn find_file(tmp: &Path, ns_pid: u32, uid: u32) -> Option<PathBuf> {
    let entries = fs::read_dir(tmp).ok()?;
    entries.flatten().find_map(|entry| {
        let name = entry.file_name();
        if !name.to_string_lossy().starts_with("hsperfdata_") {
            return None;
        }
        let candidate = entry.path().join(ns_pid.to_string());
        // symlink_metadata: a symlink planted there is not the JVM's file.
        let meta = fs::symlink_metadata(&candidate).ok()?;
        (meta.is_file() && meta.uid() == uid).then_some(candidate)
    })
}

/// A parsed prologue over the buffer's bytes.
struct PerfBuffer<'a> {
    bytes: &'a [u8],
    big_endian: bool,
    accessible: bool,
}

impl<'a> PerfBuffer<'a> {
    fn new(bytes: &'a [u8]) -> Result<PerfBuffer<'a>, PerfDataError> {
        if bytes.len() < PROLOGUE_SIZE {
            return Err(PerfDataError(format!(
                "{} bytes, shorter than the {PROLOGUE_SIZE}-byte prologue",
                bytes.len()
            )));
        }
        if bytes[..4] != MAGIC {
            return Err(PerfDataError(format!(
                "magic number {:02x?} is not cafec0c0",
                &bytes[..4]
            )));
        }
        let big_endian = match bytes[BYTE_ORDER_OFFSET] {
            BIG_ENDIAN => true,
            LITTLE_ENDIAN => false,
            other => return Err(PerfDataError(format!("unknown byte order {other}"))),
        };
        let major = bytes[MAJOR_VERSION_OFFSET];
        if major != SUPPORTED_MAJOR_VERSION {
            return Err(PerfDataError(format!(
                "version {major}, only {SUPPORTED_MAJOR_VERSION} is known"
            )));
        }
        Ok(PerfBuffer {
            bytes,
            big_endian,
            accessible: bytes[ACCESSIBLE_OFFSET] != 0,
        })
    }

    fn u32_at(&self, offset: usize) -> Option<u32> {
        let raw: [u8; 4] = self.bytes.get(offset..offset + 4)?.try_into().ok()?;
        Some(if self.big_endian {
            u32::from_be_bytes(raw)
        } else {
            u32::from_le_bytes(raw)
        })
    }

    /// The value of the string entry `name`, up to its first NUL; `None` if there is no such
    /// entry. Every offset is checked against the buffer: the JVM writes the file while we read
    /// it, and a damaged file must give an error, not a panic.
    fn string_value(&self, name: &str) -> Result<Option<String>, PerfDataError> {
        for entry in self.entries()? {
            if entry.name == name.as_bytes() {
                if entry.type_code != TYPE_BYTE || entry.units != UNITS_STRING {
                    return Err(PerfDataError(format!("{name} is not a string entry")));
                }
                let data = &entry.data[..entry.vector_length.min(entry.data.len())];
                return Ok(Some(String::from_utf8_lossy(until_nul(data)).into_owned()));
            }
        }
        Ok(None)
    }

    /// The values of the long counters whose names `keep` keeps.
    fn long_values(&self, keep: impl Fn(&str) -> bool) -> Result<Vec<i64>, PerfDataError> {
        Ok(self
            .entries()?
            .into_iter()
            .filter(|entry| entry.type_code == TYPE_LONG && entry.vector_length == 0)
            .filter(|entry| std::str::from_utf8(entry.name).is_ok_and(&keep))
            .filter_map(|entry| {
                let raw: [u8; 8] = entry.data.get(..8)?.try_into().ok()?;
                Some(if self.big_endian {
                    i64::from_be_bytes(raw)
                } else {
                    i64::from_le_bytes(raw)
                })
            })
            .collect())
    }

    /// Every entry, in order.
    fn entries(&self) -> Result<Vec<PerfEntry<'a>>, PerfDataError> {
        let field = |offset| {
            self.u32_at(offset)
                .map(|v| v as usize)
                .ok_or_else(|| PerfDataError(format!("prologue field at {offset} is cut off")))
        };
        let used = field(USED_OFFSET)?.min(self.bytes.len());
        let mut entry = field(ENTRY_OFFSET_OFFSET)?;
        let count = field(NUM_ENTRIES_OFFSET)?;
        let mut entries = Vec::new();
        for _ in 0..count {
            if entry + ENTRY_HEADER_SIZE > used {
                return Err(PerfDataError(format!(
                    "entry at {entry} runs past the {used} bytes in use"
                )));
            }
            let header = |at| self.u32_at(entry + at).map(|v| v as usize).unwrap_or(0);
            let length = header(0);
            let name_offset = header(4);
            let vector_length = header(8);
            let type_code = self.bytes[entry + 12];
            let units = self.bytes[entry + 14];
            let data_offset = header(16);
            if length < ENTRY_HEADER_SIZE
                || entry + length > used
                || name_offset >= length
                || data_offset > length
            {
                return Err(PerfDataError(format!(
                    "entry at {entry} has a bad layout (length {length}, name at {name_offset}, \
                     data at {data_offset})"
                )));
            }
            let body: &'a [u8] = &self.bytes[entry..entry + length];
            entries.push(PerfEntry {
                name: until_nul(&body[name_offset..]),
                type_code,
                units,
                vector_length,
                data: &body[data_offset..],
            });
            entry += length;
        }
        Ok(entries)
    }
}

/// One entry of the buffer.
struct PerfEntry<'a> {
    name: &'a [u8],
    type_code: u8,
    units: u8,
    /// 0 for a scalar.
    vector_length: usize,
    data: &'a [u8],
}

/// Garbage collections the JVM has run, all collectors together (the counters
/// `sun.gc.collector.N.invocations` that `jstat` reads); `None` when it has none.
pub(crate) fn collections(bytes: &[u8]) -> Result<Option<u64>, PerfDataError> {
    let counts = PerfBuffer::new(bytes)?.long_values(|name| {
        name.strip_prefix("sun.gc.collector.")
            .is_some_and(|rest| rest.ends_with(".invocations"))
    })?;
    Ok((!counts.is_empty()).then(|| counts.iter().map(|&n| n.max(0) as u64).sum()))
}

fn until_nul(bytes: &[u8]) -> &[u8] {
    let end = bytes.iter().position(|&b| b == 0).unwrap_or(bytes.len());
    &bytes[..end]
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Writes a perf-data buffer as HotSpot lays it out: the prologue, then one entry per
    /// `(name, value)`, each a byte vector of string units, padded to 4 bytes.
    fn perf_buffer(big_endian: bool, accessible: bool, strings: &[(&str, &str)]) -> Vec<u8> {
        let put = |buf: &mut Vec<u8>, v: u32| {
            buf.extend_from_slice(&if big_endian {
                v.to_be_bytes()
            } else {
                v.to_le_bytes()
            })
        };
        let mut entries = Vec::new();
        for (name, value) in strings {
            let name_offset = ENTRY_HEADER_SIZE;
            let name_len = (name.len() + 1).next_multiple_of(4);
            let data_offset = name_offset + name_len;
            // HotSpot reserves more room than the value needs; the rest stays NUL.
            let vector_length = value.len() + 8;
            let length = (data_offset + vector_length).next_multiple_of(4);
            put(&mut entries, length as u32);
            put(&mut entries, name_offset as u32);
            put(&mut entries, vector_length as u32);
            entries.extend_from_slice(&[TYPE_BYTE, 1, UNITS_STRING, 1]);
            put(&mut entries, data_offset as u32);
            let mut name_bytes = name.as_bytes().to_vec();
            name_bytes.resize(name_len, 0);
            entries.extend_from_slice(&name_bytes);
            let mut value_bytes = value.as_bytes().to_vec();
            value_bytes.resize(length - data_offset, 0);
            entries.extend_from_slice(&value_bytes);
        }
        let mut buf = MAGIC.to_vec();
        buf.push(if big_endian {
            BIG_ENDIAN
        } else {
            LITTLE_ENDIAN
        });
        buf.extend_from_slice(&[SUPPORTED_MAJOR_VERSION, 0, u8::from(accessible)]);
        put(&mut buf, (PROLOGUE_SIZE + entries.len()) as u32); // used
        put(&mut buf, 0); // overflow
        buf.extend_from_slice(&[0; 8]); // modification time stamp
        put(&mut buf, PROLOGUE_SIZE as u32); // entry offset
        put(&mut buf, strings.len() as u32);
        buf.extend_from_slice(&entries);
        // The file is larger than what is in use; the rest is zero.
        buf.resize(buf.len() + 64, 0);
        buf
    }

    const ENABLED: &str = "1100000000000000000000000000000000000000000000000000000000000000";
    const DISABLED: &str = "0100000000000000000000000000000000000000000000000000000000000000";

    #[test]
    fn capability_flag_is_read_in_both_byte_orders() {
        for big_endian in [false, true] {
            let others = ("java.property.java.vm.name", "OpenJDK 64-Bit Server VM");
            let on = perf_buffer(big_endian, true, &[others, (CAPABILITIES_NAME, ENABLED)]);
            assert_eq!(attach_support(&on), Ok(AttachSupport::Enabled));
            let off = perf_buffer(big_endian, true, &[(CAPABILITIES_NAME, DISABLED), others]);
            assert_eq!(attach_support(&off), Ok(AttachSupport::Disabled));
        }
    }

    #[test]
    fn collections_are_the_sum_of_the_collectors_invocation_counters() {
        for big_endian in [false, true] {
            let mut buffer = perf_buffer(big_endian, true, &[("sun.rt.x", "y")]);
            // Append two long entries by hand after the string one: patch the count and used.
            let put = |v: u32| {
                if big_endian {
                    v.to_be_bytes()
                } else {
                    v.to_le_bytes()
                }
            };
            buffer.truncate(buffer.len() - 64);
            for (name, value) in [
                ("sun.gc.collector.0.invocations", 12i64),
                ("sun.gc.collector.0.time", 999),
                ("sun.gc.collector.1.invocations", 3),
            ] {
                let name_len = (name.len() + 1).next_multiple_of(8);
                let data_offset = ENTRY_HEADER_SIZE + name_len;
                let length = data_offset + 8;
                buffer.extend_from_slice(&put(length as u32));
                buffer.extend_from_slice(&put(ENTRY_HEADER_SIZE as u32));
                buffer.extend_from_slice(&put(0));
                buffer.extend_from_slice(&[TYPE_LONG, 1, 4, 3]);
                buffer.extend_from_slice(&put(data_offset as u32));
                let mut name_bytes = name.as_bytes().to_vec();
                name_bytes.resize(name_len, 0);
                buffer.extend_from_slice(&name_bytes);
                buffer.extend_from_slice(&if big_endian {
                    value.to_be_bytes()
                } else {
                    value.to_le_bytes()
                });
            }
            let used = buffer.len() as u32;
            buffer[USED_OFFSET..USED_OFFSET + 4].copy_from_slice(&put(used));
            buffer[NUM_ENTRIES_OFFSET..NUM_ENTRIES_OFFSET + 4].copy_from_slice(&put(4));
            buffer.resize(buffer.len() + 64, 0);
            assert_eq!(
                collections(&buffer),
                Ok(Some(15)),
                "big endian: {big_endian}"
            );
        }
        let none = perf_buffer(false, true, &[("sun.rt.x", "y")]);
        assert_eq!(collections(&none), Ok(None));
    }

    #[test]
    fn a_starting_jvm_is_not_yet_known() {
        // Not marked accessible: the JVM has not finished starting.
        let starting = perf_buffer(false, false, &[(CAPABILITIES_NAME, DISABLED)]);
        assert_eq!(attach_support(&starting), Ok(AttachSupport::NotYetKnown));
        // Accessible but without the entry.
        let without = perf_buffer(false, true, &[("sun.rt.other", "x")]);
        assert_eq!(attach_support(&without), Ok(AttachSupport::NotYetKnown));
    }

    #[test]
    fn damaged_buffers_are_errors_not_panics() {
        let good = perf_buffer(false, true, &[(CAPABILITIES_NAME, ENABLED)]);
        assert!(attach_support(&good[..10]).is_err());
        let mut bad_magic = good.clone();
        bad_magic[0] = 0;
        let err = attach_support(&bad_magic).unwrap_err();
        assert!(err.0.contains("magic"), "{err:?}");
        let mut bad_order = good.clone();
        bad_order[BYTE_ORDER_OFFSET] = 7;
        assert!(attach_support(&bad_order).is_err());
        // An entry length pointing past the buffer in use.
        let mut bad_length = good.clone();
        bad_length[PROLOGUE_SIZE..PROLOGUE_SIZE + 4].copy_from_slice(&9999u32.to_le_bytes());
        assert!(attach_support(&bad_length).is_err());
        // Every truncation of a good buffer is an error or a clean answer, never a panic.
        for len in 0..good.len() {
            let _ = attach_support(&good[..len]);
        }
    }

    #[test]
    fn the_perf_file_is_found_by_owner_in_any_user_directory() {
        let tmp = crate::tempdir::PrivateTempDir::new("test").unwrap();
        let dir = tmp.path().join("hsperfdata_someone");
        fs::create_dir(&dir).unwrap();
        fs::write(dir.join("4242"), b"x").unwrap();
        // What we just wrote is owned by our effective uid.
        let uid = fs::metadata(dir.join("4242")).unwrap().uid();
        assert_eq!(find_file(tmp.path(), 4242, uid), Some(dir.join("4242")));
        assert_eq!(find_file(tmp.path(), 4243, uid), None);
        assert_eq!(find_file(tmp.path(), 4242, uid + 1), None);
    }
}
