//! The HPROF heap dump reader: turns a dump (memory-mapped, never copied) into a
//! [`HeapGraph`].
//!
//! Reading takes four passes, each chosen for what the format guarantees:
//! 1. top-level records (strings, LOAD CLASS, START THREAD, where heap dump segments are);
//! 2. every heap dump sub-record in order, since only walking them finds where each starts:
//!    class dumps and roots are kept, instances and arrays only counted in runs of ~1 MiB;
//! 3. the runs, in parallel: id, class and record offset of every object;
//! 4. ordering by id (HotSpot writes objects in address order, so this is mostly a check and a
//!    merge of the class objects, which come first in the dump).
//!
//! References are not extracted: the graph decodes them from the mapped records on demand.
//! Supported: `JAVA PROFILE 1.0.1/1.0.2/1.0.3`, 4- and 8-byte ids, HotSpot and Android root
//! kinds, HEAP DUMP and HEAP DUMP SEGMENT records, dumps over 4 GiB, up to 2^32-1 objects, and
//! sub-records split across segments (copied together). Corrupt input gives an [`HprofError`]
//! naming the offset, never a panic. What the reader refuses (counts past its 32-bit indexes,
//! a dump too large for the memory available) is in [`ReadLimits`], which tests lower.

pub mod builder;
mod classes;
mod error;
mod follow;
pub(crate) mod format;
mod id_map;
mod index;
mod limits;
mod measure;
pub(crate) mod records;
mod scan;
pub(crate) mod writer;

#[cfg(test)]
mod jvm_tests;
#[cfg(test)]
mod tests;

pub use error::HprofError;
pub use follow::DumpFollower;
pub use limits::{
    MemoryCheck, ReadLimits, MEMORY_CHECK_FLOOR, PEAK_BYTES_PER_OBJECT, SKIP_MEMORY_CHECK_ENV,
};
pub use measure::{measure_parse_and_walk, walk_from_roots, ParseMeasurement};

use std::path::Path;

use crate::heap::graph::{DumpBytes, DumpMapping};
use crate::heap::resident::most_resident;
use crate::heap::storage::IdIndex;
use crate::heap::{HeapGraph, ObjectIndex, Root, RootKind, StackFrame};
use records::{Id4, Id8, IdWidth};
use scan::{HeapScan, TopLevel};

/// Memory-maps the heap dump at `path` and indexes it, within the default [`ReadLimits`]. The
/// file must not change while the graph exists.
pub fn open(path: &Path) -> Result<HeapGraph, HprofError> {
    open_with_limits(path, &ReadLimits::default())
}

/// [`open`] within other limits.
pub fn open_with_limits(path: &Path, limits: &ReadLimits) -> Result<HeapGraph, HprofError> {
    let io_error = |source| HprofError::Io {
        path: path.to_path_buf(),
        source,
    };
    let file = open_regular_file(path).map_err(io_error)?;
    read_graph(map_whole(&file).map_err(io_error)?, limits)
}

/// Maps all of `file`, read-only, for reading in place.
fn map_whole(file: &std::fs::File) -> std::io::Result<DumpBytes> {
    let len = usize::try_from(file.metadata()?.len()).map_err(std::io::Error::other)?;
    let map = memmap2::MmapOptions::new()
        .len(len)
        .map_raw_read_only(file)?;
    // Safety: the mapping is read-only and private to this graph. Mapped memory can still
    // change if another process writes the file; heap dumps are written once and then only
    // read, and the documented contract is that the file isn't modified while open.
    Ok(DumpBytes::Mapped(unsafe { DumpMapping::new(map, len) }))
}

/// Opens `path` for reading if it is a regular file, without blocking: a FIFO (which would
/// block the open, then the reads, until a writer comes), a device or a directory is an error
/// saying what it is. Checked on the open file, so nothing can be swapped in after the check.
pub fn open_regular_file(path: &Path) -> std::io::Result<std::fs::File> {
    use std::os::unix::fs::{FileTypeExt, OpenOptionsExt};
    let file = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NONBLOCK | libc::O_NOCTTY)
        .open(path)?;
    let kind = file.metadata()?.file_type();
    let what = if kind.is_file() {
        return Ok(file);
    } else if kind.is_dir() {
        "it is a directory"
    } else if kind.is_fifo() {
        "it is a FIFO (named pipe), not a regular file"
    } else if kind.is_socket() {
        "it is a socket, not a regular file"
    } else if kind.is_char_device() || kind.is_block_device() {
        "it is a device, not a regular file"
    } else {
        "it is not a regular file"
    };
    Err(std::io::Error::other(what))
}

/// Indexes a heap dump held in memory, within the default [`ReadLimits`].
pub fn from_bytes(bytes: Vec<u8>) -> Result<HeapGraph, HprofError> {
    from_bytes_with_limits(bytes, &ReadLimits::default())
}

/// [`from_bytes`] within other limits.
pub fn from_bytes_with_limits(
    bytes: Vec<u8>,
    limits: &ReadLimits,
) -> Result<HeapGraph, HprofError> {
    read_graph(DumpBytes::Owned(bytes), limits)
}

/// Reads a whole dump into a graph.
fn read_graph(bytes: DumpBytes, limits: &ReadLimits) -> Result<HeapGraph, HprofError> {
    let header = scan::read_header(bytes.as_slice())?;
    if header.id_size == 8 {
        read_graph_with::<Id8>(bytes, header, limits)
    } else {
        read_graph_with::<Id4>(bytes, header, limits)
    }
}

fn read_graph_with<W: IdWidth>(
    bytes: DumpBytes,
    header: scan::Header,
    limits: &ReadLimits,
) -> Result<HeapGraph, HprofError> {
    let data = bytes.as_slice();
    let top = scan::scan_top_level(data, header)?;
    let scan = scan::scan_heap::<W>(data, &top.segments)?;
    // A dump in memory is counted already; a mapped one's pages come as they are read, and
    // go once too many are resident (`heap::resident`).
    let mapped = match bytes {
        DumpBytes::Owned(_) => 0,
        _ => most_resident(data.len() as u64),
    };
    check_object_count(&scan, limits, mapped)?;
    let classes = classes::resolve_classes(data, &top, &scan.class_dumps, header.id_size, limits)?;
    let columns = index::index_objects::<W>(data, &scan, &classes)?;
    assemble(bytes, header, &top, scan, classes, columns, limits)
}

/// The graph from what the passes found: the id lookup, the classes' objects and loaders,
/// stack frames and roots.
fn assemble(
    bytes: DumpBytes,
    header: scan::Header,
    top: &TopLevel,
    scan: HeapScan,
    mut classes: classes::ResolvedClasses,
    columns: index::ObjectColumns,
    limits: &ReadLimits,
) -> Result<HeapGraph, HprofError> {
    let data = bytes.as_slice();
    let ids = IdIndex::new(columns.ids);
    for (info, dump) in classes.infos.iter_mut().zip(&scan.class_dumps) {
        info.object = ids.index_of(dump.class_id);
        info.loader = match dump.loader_id {
            0 => None,
            loader => ids.index_of(loader),
        };
    }
    let (frames, frames_of_thread) = resolve_frames(data, top, &classes, limits)?;
    let roots = resolve_roots(&ids, top, &scan, &frames_of_thread);

    let mut class_names = std::collections::HashMap::with_capacity(classes.infos.len());
    for (index, info) in classes.infos.iter().enumerate() {
        class_names.entry(info.name.clone()).or_insert(index as u32);
    }
    let HeapScan { spliced, .. } = scan;
    Ok(HeapGraph {
        bytes,
        spliced,
        id_size: header.id_size,
        ids,
        offsets: columns.offsets,
        class_words: columns.class_words,
        classes: classes.infos,
        layouts: classes.layouts,
        instance_slots: classes.instance_slots,
        static_value_pos: classes.static_value_pos,
        class_names,
        java_lang_class: classes.java_lang_class,
        roots,
        frames,
    })
}

/// Fails if the dump holds more objects than the model can number, or plainly more than the
/// memory available can analyse. Runs once the scan has counted the objects and before
/// anything per object is allocated; costs O(1) (and a read of a few /proc and /sys files
/// for dumps past [`MEMORY_CHECK_FLOOR`]).
/// `mapped` is the size of the dump's mapping (0 for a dump in memory), which a memory cgroup
/// counts as the reader touches it.
fn check_object_count(scan: &HeapScan, limits: &ReadLimits, mapped: u64) -> Result<(), HprofError> {
    let objects = scan.objects();
    if objects > limits.object_limit() {
        return Err(HprofError::TooManyObjects {
            count: objects,
            max: limits.object_limit(),
        });
    }
    let needed = objects.saturating_mul(PEAK_BYTES_PER_OBJECT);
    if let Some(available) = limits::available_for(&limits.memory, needed, mapped) {
        if needed > available.bytes {
            return Err(HprofError::NotEnoughMemory {
                objects,
                bytes_per_object: PEAK_BYTES_PER_OBJECT,
                needed,
                available: available.bytes,
                figure_from: available.source,
            });
        }
    }
    Ok(())
}

/// Thread serial → (index of its first frame, frame count).
type FramesOfThread = id_map::IdMap<(u32, u32)>;

/// The frames of every thread's stack trace, and for each thread serial where its frames
/// start in them and how many there are. Frames whose strings or class are missing keep what
/// is known (`<unknown>` for a missing name): a stack frame only ever labels a path.
fn resolve_frames(
    data: &[u8],
    top: &TopLevel,
    classes: &classes::ResolvedClasses,
    limits: &ReadLimits,
) -> Result<(Vec<StackFrame>, FramesOfThread), HprofError> {
    let string = |string_id: u64| -> Option<String> {
        let &(offset, len) = top.strings.get(&string_id)?;
        let bytes = data.get(offset as usize..offset as usize + len as usize)?;
        Some(String::from_utf8_lossy(bytes).into_owned())
    };
    let mut frames = Vec::new();
    let mut frames_of_thread: id_map::IdMap<(u32, u32)> = Default::default();
    for (&thread_serial, frame_ids) in &top.thread_traces {
        let start = frames.len() as u32;
        for frame_id in frame_ids {
            let Some(record) = top.frames.get(frame_id) else {
                continue;
            };
            let class = top
                .class_serials
                .get(&(record.class_serial as u64))
                .and_then(|class_id| classes.by_id.get(class_id))
                .map(|&class| classes.infos[class as usize].name.clone())
                .unwrap_or_else(|| "<unknown>".to_owned());
            frames.push(StackFrame {
                class,
                method: string(record.method_name).unwrap_or_else(|| "<unknown>".to_owned()),
                file: string(record.source_file).unwrap_or_default(),
                line: u32::try_from(record.line).ok().filter(|&line| line > 0),
            });
        }
        frames_of_thread.insert(thread_serial, (start, frames.len() as u32 - start));
    }
    // Checked once at the end: while the total stays within the limit (at most `u32::MAX`),
    // no `as u32` above wrapped.
    if frames.len() as u64 > limits.table_limit() {
        return Err(HprofError::TooManyTableEntries {
            table: "stack frames (over all thread stacks)",
            count: frames.len() as u64,
            max: limits.table_limit(),
        });
    }
    Ok((frames, frames_of_thread))
}

/// Below this many bytes a second thread costs more than it saves.
const PARALLEL_MIN_BYTES: u64 = 8 << 20;

/// How many threads should share reading `bytes` of records.
fn worker_threads(bytes: u64) -> usize {
    crate::parallel::threads(bytes >= PARALLEL_MIN_BYTES)
}

/// Cuts `items` into `parts` consecutive groups of about equal bytes (the last ones may be
/// empty).
fn split_by_bytes<T>(items: &[T], parts: usize, bytes: impl Fn(&T) -> u64) -> Vec<&[T]> {
    let total: u64 = items.iter().map(&bytes).sum();
    let mut groups = Vec::with_capacity(parts);
    let mut rest = items;
    let mut bytes_before = 0;
    for group in 0..parts {
        let target = total * (group as u64 + 1) / parts as u64;
        let mut cut = 0;
        while cut < rest.len() && (bytes_before < target || group + 1 == parts) {
            bytes_before += bytes(&rest[cut]);
            cut += 1;
        }
        let (mine, later) = rest.split_at(cut);
        groups.push(mine);
        rest = later;
    }
    groups
}

/// Maps root ids to objects (dropping roots whose object has no record) and stack roots'
/// thread serials to thread objects.
fn resolve_roots(
    ids: &IdIndex,
    top: &TopLevel,
    scan: &HeapScan,
    frames_of_thread: &id_map::IdMap<(u32, u32)>,
) -> Vec<Root> {
    let mut thread_by_serial: id_map::IdMap<ObjectIndex> = Default::default();
    // THREAD OBJECT roots are what HotSpot writes; START THREAD records are the older way.
    for &(serial, thread_id) in top.thread_objects.iter().chain(&scan.thread_objects) {
        if let Some(thread) = ids.index_of(thread_id) {
            thread_by_serial.insert(serial as u64, thread);
        }
    }
    scan.roots
        .iter()
        .filter_map(|raw| {
            let object = ids.index_of(raw.id)?;
            let thread = raw
                .owner_thread_serial
                .and_then(|serial| thread_by_serial.get(&(serial as u64)).copied());
            let frame = raw
                .owner_thread_serial
                .zip(raw.frame_depth)
                .and_then(|(serial, depth)| {
                    let &(start, count) = frames_of_thread.get(&(serial as u64))?;
                    (depth < count).then_some(start + depth)
                });
            Some(Root {
                kind: raw.kind,
                object,
                thread,
                frame,
            })
        })
        .collect()
}

/// Reads `bytes` as a heap dump and, if that works, touches everything a graph offers: every
/// object's class, kind, size, array length and references, every class and every root. The
/// fuzz target and the mutation test run this: reading must never panic or hang, whatever the
/// input. Returns a checksum so the work can't be optimized away.
///
/// # Panics
///
/// Only if the graph breaks its own invariants (an id that doesn't map back to its object):
/// a reader bug, which is what fuzzing looks for.
pub fn read_and_walk(bytes: &[u8]) -> Result<u64, HprofError> {
    let graph = from_bytes(bytes.to_vec())?;
    Ok(walk_checksum(&graph) ^ graph.model_bytes() as u64)
}

/// The checksum of [`read_and_walk`]: of everything `graph` offers (but not the room its model
/// takes, which depends on how it was read).
pub(crate) fn walk_checksum(graph: &HeapGraph) -> u64 {
    let mut checksum = graph.object_count() as u64 ^ ((graph.class_count() as u64) << 32);
    for o in 0..graph.object_count() as ObjectIndex {
        let class = graph.class_of(o);
        checksum = checksum.wrapping_mul(31).wrapping_add(class as u64);
        checksum = checksum
            .wrapping_add(graph.shallow_size(o))
            .wrapping_add(graph.id(o));
        checksum ^= graph.array_length(o).unwrap_or(0) as u64;
        checksum ^= matches!(graph.kind(o), crate::heap::ObjectKind::Class) as u64;
        checksum ^= graph.class_object_of(o).unwrap_or(0) as u64;
        assert_eq!(
            graph.index_of_id(graph.id(o)),
            Some(o),
            "ids must map back to their objects"
        );
        graph.for_each_reference(o, |reference| {
            checksum = checksum
                .wrapping_mul(17)
                .wrapping_add(reference.target as u64);
        });
        if graph.class(class).name == "java.lang.String" {
            checksum ^= graph.string_value(o).map_or(0, |s| s.len() as u64);
        }
        if let Some(field) = graph.class(class).instance_fields.first() {
            checksum ^= graph.field_value(o, &field.name).is_some() as u64;
        }
    }
    for class in graph.classes() {
        checksum ^= class.name.len() as u64;
        if let Some(object) = class.object {
            debug_assert_eq!(graph.kind(object), crate::heap::ObjectKind::Class);
        }
    }
    for root in graph.roots() {
        checksum = checksum.wrapping_add(root.object as u64 + root.thread.unwrap_or(0) as u64);
        checksum ^= (root.kind == RootKind::ThreadObject) as u64;
    }
    checksum
}
