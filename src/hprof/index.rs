//! The indexing pass: reads id, class and offset of every instance and array (in parallel,
//! over the runs the scan found), then merges those with the class objects into id order.

use super::classes::ResolvedClasses;
use super::format::{self, layout, sub};
use super::records::{read_u32, IdWidth};
use super::scan::{HeapScan, ObjectRun};
use super::HprofError;
use crate::heap::graph::class_word;
use crate::heap::storage::{RecordOffsets, RecordOffsetsBuilder};

/// Per-object columns in ascending id order.
pub(crate) struct ObjectColumns {
    pub ids: Vec<u64>,
    pub offsets: RecordOffsets,
    pub class_words: Vec<u32>,
}

/// At most this many threads index objects. The anchors measured 20–25 % from a second thread
/// on a 2-core machine; more threads would compete with the caller's own work.
const MAX_INDEX_THREADS: usize = 2;
/// Below this many bytes of object records a second thread costs more than it saves.
const PARALLEL_MIN_BYTES: u64 = 8 << 20;

/// What the per-run workers need, shared read-only.
struct Context<'a> {
    dump: &'a [u8],
    spliced: &'a [u8],
    spliced_origins: &'a [(u64, u64)],
    classes: &'a ResolvedClasses,
}

impl Context<'_> {
    fn bytes(&self, run: &ObjectRun) -> &[u8] {
        let dump_len = self.dump.len() as u64;
        let (source, start) = if run.start < dump_len {
            (self.dump, run.start)
        } else {
            (self.spliced, run.start - dump_len)
        };
        source
            .get(start as usize..(start + (run.end - run.start)) as usize)
            .unwrap_or(&[])
    }

    /// The file offset to report for a (possibly virtual) record offset.
    fn file_offset(&self, offset: u64) -> u64 {
        let dump_len = self.dump.len() as u64;
        if offset < dump_len {
            return offset;
        }
        let i = self
            .spliced_origins
            .partition_point(|&(virtual_offset, _)| virtual_offset <= offset);
        self.spliced_origins
            .get(i.wrapping_sub(1))
            .map_or(offset, |&(_, file_offset)| file_offset)
    }
}

/// The objects of one part of the dump, sorted by id.
struct Part {
    ids: Vec<u64>,
    offsets: Vec<u64>,
    class_words: Vec<u32>,
}

impl Part {
    fn with_capacity(objects: usize) -> Part {
        Part {
            ids: Vec::with_capacity(objects),
            offsets: Vec::with_capacity(objects),
            class_words: Vec::with_capacity(objects),
        }
    }

    fn push(&mut self, id: u64, offset: u64, class_word: u32) {
        self.ids.push(id);
        self.offsets.push(offset);
        self.class_words.push(class_word);
    }
}

/// Builds the id-ordered object columns: class objects from the scan's class dumps, every
/// other object from the runs.
pub(crate) fn index_objects<W: IdWidth>(
    dump: &[u8],
    scan: &HeapScan,
    classes: &ResolvedClasses,
) -> Result<ObjectColumns, HprofError> {
    let context = Context {
        dump,
        spliced: &scan.spliced,
        spliced_origins: &scan.spliced_origins,
        classes,
    };
    let mut parts = index_runs_in_parallel::<W>(&context, &scan.runs)?;

    let mut class_objects = Part::with_capacity(scan.class_dumps.len());
    let mut by_id: Vec<(u64, u64, u32)> = scan
        .class_dumps
        .iter()
        .enumerate()
        .map(|(index, dump)| {
            (
                dump.class_id,
                dump.offset,
                class_word::new(class_word::CLASS, index as u32),
            )
        })
        .collect();
    by_id.sort_unstable_by_key(|&(id, _, _)| id);
    for (id, offset, word) in by_id {
        class_objects.push(id, offset, word);
    }
    parts.push(class_objects);
    merge_parts(&parts, &context)
}

fn index_runs_in_parallel<W: IdWidth>(
    context: &Context<'_>,
    runs: &[ObjectRun],
) -> Result<Vec<Part>, HprofError> {
    let total_bytes: u64 = runs.iter().map(|r| r.end - r.start).sum();
    let threads = if total_bytes < PARALLEL_MIN_BYTES {
        1
    } else {
        std::thread::available_parallelism()
            .map_or(1, |n| n.get())
            .min(MAX_INDEX_THREADS)
    };

    // Cut the runs into `threads` parts of about equal bytes.
    let mut groups: Vec<&[ObjectRun]> = Vec::with_capacity(threads);
    let mut rest = runs;
    let mut bytes_before = 0;
    for group in 0..threads {
        let target = total_bytes * (group as u64 + 1) / threads as u64;
        let mut cut = 0;
        while cut < rest.len() && (bytes_before < target || group + 1 == threads) {
            bytes_before += rest[cut].end - rest[cut].start;
            cut += 1;
        }
        let (mine, later) = rest.split_at(cut);
        groups.push(mine);
        rest = later;
    }

    std::thread::scope(|scope| {
        let mut groups = groups.into_iter();
        let first = groups.next().unwrap_or_default();
        let handles: Vec<_> = groups
            .map(|group| scope.spawn(move || index_group::<W>(context, group)))
            .collect();
        let mut parts = vec![index_group::<W>(context, first)];
        for handle in handles {
            // A worker only panics on a bug; let it surface as the panic it is.
            parts.push(
                handle
                    .join()
                    .unwrap_or_else(|panic| std::panic::resume_unwind(panic)),
            );
        }
        // Report the error that comes first in the dump.
        parts.into_iter().collect()
    })
}

fn index_group<W: IdWidth>(context: &Context<'_>, runs: &[ObjectRun]) -> Result<Part, HprofError> {
    let objects = runs.iter().map(|r| r.objects as usize).sum();
    let mut part = Part::with_capacity(objects);
    for run in runs {
        index_run::<W>(context, run, &mut part)?;
    }
    if !part.ids.windows(2).all(|pair| pair[0] < pair[1]) {
        sort_part(&mut part);
        if let Some(first) = part.ids.windows(2).position(|pair| pair[0] == pair[1]) {
            let (id, offset) = (part.ids[first + 1], part.offsets[first + 1]);
            return Err(HprofError::DuplicateId {
                offset: context.file_offset(offset),
                id,
            });
        }
    }
    Ok(part)
}

/// Reads the objects of one run. The scan has already checked every length and type code in
/// these bytes; the checks here only keep a bug from turning into a panic.
fn index_run<W: IdWidth>(
    context: &Context<'_>,
    run: &ObjectRun,
    part: &mut Part,
) -> Result<(), HprofError> {
    let bytes = context.bytes(run);
    let classes = context.classes;
    let id = W::SIZE;
    let inconsistent = |pos: usize| {
        HprofError::truncated(
            context.file_offset(run.start + pos as u64),
            "object sub-record",
            1,
            0,
        )
    };
    // Objects of one class often come together: remember the last class lookup.
    let mut last_class: Option<(u64, u32)> = None;
    let mut lookup_class =
        |class_id: u64, pos: usize, what: &'static str| -> Result<u32, HprofError> {
            if let Some((cached_id, index)) = last_class {
                if cached_id == class_id {
                    return Ok(index);
                }
            }
            let index = *classes
                .by_id
                .get(&class_id)
                .ok_or(HprofError::MissingClass {
                    offset: context.file_offset(run.start + pos as u64),
                    class_id,
                    what,
                })?;
            last_class = Some((class_id, index));
            Ok(index)
        };

    let mut pos = 0usize;
    for _ in 0..run.objects {
        let record = bytes.get(pos..).ok_or_else(|| inconsistent(pos))?;
        let sub_tag = *record.first().ok_or_else(|| inconsistent(pos))?;
        let object_id = record
            .get(1..)
            .and_then(W::read)
            .ok_or_else(|| inconsistent(pos))?;
        let (len, word) = match sub_tag {
            sub::INSTANCE_DUMP => {
                let class_id = record
                    .get(layout::instance_class_id(id)..)
                    .and_then(W::read)
                    .ok_or_else(|| inconsistent(pos))?;
                let field_bytes = read_u32(record, layout::instance_field_count(id))
                    .ok_or_else(|| inconsistent(pos))?;
                let class = lookup_class(class_id, pos, "instance dump")?;
                let needed = classes.layouts[class as usize].hierarchy_size;
                if (field_bytes as u64) < needed {
                    return Err(HprofError::InstanceTooShort {
                        offset: context.file_offset(run.start + pos as u64),
                        class: classes.infos[class as usize].name.clone(),
                        actual: field_bytes,
                        expected: needed,
                    });
                }
                (
                    layout::instance_fields(id) + field_bytes as usize,
                    class_word::new(class_word::INSTANCE, class),
                )
            }
            sub::OBJECT_ARRAY_DUMP => {
                let length =
                    read_u32(record, layout::array_length(id)).ok_or_else(|| inconsistent(pos))?;
                let class_id = record
                    .get(layout::object_array_class_id(id)..)
                    .and_then(W::read)
                    .ok_or_else(|| inconsistent(pos))?;
                let class = lookup_class(class_id, pos, "object array dump")?;
                (
                    layout::object_array_elements(id) + length as usize * id,
                    class_word::new(class_word::OBJECT_ARRAY, class),
                )
            }
            tag @ (sub::PRIMITIVE_ARRAY_DUMP | sub::PRIMITIVE_ARRAY_NODATA) => {
                let length =
                    read_u32(record, layout::array_length(id)).ok_or_else(|| inconsistent(pos))?;
                let element = record
                    .get(layout::primitive_array_type(id))
                    .and_then(|&code| format::primitive_type(code))
                    .ok_or_else(|| inconsistent(pos))?;
                let class = classes.primitive_array_classes[format::primitive_ordinal(element)];
                let data_len = if tag == sub::PRIMITIVE_ARRAY_DUMP {
                    length as usize * format::primitive_size(element) as usize
                } else {
                    0
                };
                (
                    layout::primitive_array_elements(id) + data_len,
                    class_word::new(class_word::PRIMITIVE_ARRAY, class),
                )
            }
            _ => return Err(inconsistent(pos)),
        };
        part.push(object_id, run.start + pos as u64, word);
        pos += len;
    }
    if pos != bytes.len() {
        return Err(inconsistent(pos));
    }
    Ok(())
}

/// Sorts a part by id. HotSpot writes objects in address order, so this only runs for other
/// writers (or HotSpot's parallel dumper, whose several ascending runs the stable sort merges
/// in close to linear time).
fn sort_part(part: &mut Part) {
    let mut order: Vec<(u64, u32)> = part
        .ids
        .iter()
        .enumerate()
        .map(|(i, &id)| (id, i as u32))
        .collect();
    order.sort_by_key(|&(id, _)| id);
    part.offsets = order
        .iter()
        .map(|&(_, i)| part.offsets[i as usize])
        .collect();
    part.class_words = order
        .iter()
        .map(|&(_, i)| part.class_words[i as usize])
        .collect();
    part.ids = order.into_iter().map(|(id, _)| id).collect();
}

/// Merges the sorted parts into the final columns, failing on an id seen twice.
fn merge_parts(parts: &[Part], context: &Context<'_>) -> Result<ObjectColumns, HprofError> {
    let total: usize = parts.iter().map(|p| p.ids.len()).sum();
    let mut ids = Vec::with_capacity(total);
    let mut class_words = Vec::with_capacity(total);
    let mut offsets = RecordOffsetsBuilder::with_capacity(total);
    let mut next = vec![0usize; parts.len()];
    loop {
        // The part whose next id is smallest; parts are few (the index threads and the class
        // objects), so a linear pick beats a heap.
        let mut smallest: Option<(usize, u64)> = None;
        for (p, part) in parts.iter().enumerate() {
            if let Some(&id) = part.ids.get(next[p]) {
                if smallest.map_or(true, |(_, smallest_id)| id < smallest_id) {
                    smallest = Some((p, id));
                }
            }
        }
        let Some((p, id)) = smallest else { break };
        let part = &parts[p];
        // Ids only grow within a part and the pick takes the smallest across parts, so an id
        // equal to the last one written belongs to a second record.
        if ids.last() == Some(&id) {
            return Err(HprofError::DuplicateId {
                offset: context.file_offset(part.offsets[next[p]]),
                id,
            });
        }
        // Copy the whole stretch that comes before every other part's next id in one go.
        let limit = parts
            .iter()
            .enumerate()
            .filter(|&(q, _)| q != p)
            .filter_map(|(q, other)| other.ids.get(next[q]).copied())
            .min()
            .unwrap_or(u64::MAX);
        let start = next[p];
        let mut end = start + 1;
        while end < part.ids.len() && part.ids[end] < limit {
            end += 1;
        }
        ids.extend_from_slice(&part.ids[start..end]);
        class_words.extend_from_slice(&part.class_words[start..end]);
        offsets.extend(&part.offsets[start..end]);
        next[p] = end;
    }
    Ok(ObjectColumns {
        ids,
        offsets: offsets.finish(),
        class_words,
    })
}
