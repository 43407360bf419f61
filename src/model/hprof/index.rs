//! The indexing pass: reads id, class and offset of every instance and array (in parallel,
//! over the runs the scan found), then merges those with the class objects into id order.

use super::classes::ResolvedClasses;
use super::format::{self, layout, sub};
use super::records::{read_u32, IdWidth};
use super::scan::{HeapScan, ObjectRun};
use super::HprofError;
use crate::heap::graph::class_word;
use crate::heap::storage::{
    GrowingOffsets, InPlaceOffsets, OffsetShare, RecordOffsets, SharedBlocks,
};
use crate::parallel::on_each;

/// Per-object columns in ascending id order.
pub(crate) struct ObjectColumns {
    pub ids: Vec<u64>,
    pub offsets: RecordOffsets,
    pub class_words: Vec<u32>,
}

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
    let class_objects = class_objects(scan);

    let total_bytes: u64 = scan.runs.iter().map(|r| r.end - r.start).sum();
    let threads = super::worker_threads(total_bytes);
    let groups: Vec<&[ObjectRun]> = super::split_by_bytes(&scan.runs, threads, |r| r.end - r.start)
        .into_iter()
        .filter(|group| !group.is_empty())
        .collect();
    if let Some(columns) = index_in_id_order::<W>(&context, &groups, &class_objects)? {
        return Ok(columns);
    }
    let mut parts = index_groups_in_parallel::<W>(&context, &groups)?;
    let mut classes_part = Part::with_capacity(class_objects.len());
    for (id, offset, word) in class_objects {
        classes_part.push(id, offset, word);
    }
    parts.push(classes_part);
    merge_parts(&parts, &context)
}

/// (id, record offset, class word) of every class object, by id.
fn class_objects(scan: &HeapScan) -> Vec<(u64, u64, u32)> {
    let mut class_objects: Vec<(u64, u64, u32)> = scan
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
    class_objects.sort_unstable_by_key(|&(id, _, _)| id);
    class_objects
}

/// The columns built one run at a time, while the dump is still being written: objects must
/// come in ascending id order (as HotSpot's serial dumper writes them), the class objects are
/// merged in among them as their ids come up. Grows as runs come; large vectors grow in place
/// (the allocator remaps them), so the memory is what the objects need, 16 bytes each.
pub(crate) struct GrowingColumns {
    ids: Vec<u64>,
    offsets: GrowingOffsets,
    class_words: Vec<u32>,
    class_objects: Vec<(u64, u64, u32)>,
    /// How many of `class_objects` are in the columns.
    classes_put: usize,
    /// The objects so far were in order (else the columns are useless).
    in_order: bool,
}

impl GrowingColumns {
    /// Columns for the objects of a dump whose class dumps `scan` holds (all of them: a class
    /// dump after the first object makes the columns wrong, which the caller checks), with
    /// room for `expected` objects to start with. A vector that outgrows its room is moved:
    /// a large one by remapping its pages (glibc's `realloc`), a small one by a copy.
    pub(crate) fn new(scan: &HeapScan, expected: usize) -> GrowingColumns {
        let room = expected + expected / 64 + 1024;
        GrowingColumns {
            ids: Vec::with_capacity(room),
            offsets: GrowingOffsets::with_capacity(room),
            class_words: Vec::with_capacity(room),
            class_objects: class_objects(scan),
            classes_put: 0,
            in_order: true,
        }
    }

    /// Indexes one more run of `dump` (the runs in dump order), with `classes` resolved when
    /// the columns were made. `Ok(false)` once objects came out of id order.
    pub(crate) fn add_run<W: IdWidth>(
        &mut self,
        dump: &[u8],
        classes: &ResolvedClasses,
        run: &ObjectRun,
    ) -> Result<bool, HprofError> {
        if !self.in_order {
            return Ok(false);
        }
        let context = Context {
            dump,
            spliced: &[],
            spliced_origins: &[],
            classes,
        };
        let objects = run.objects as usize;
        self.ids.reserve(objects);
        self.class_words.reserve(objects);
        self.in_order =
            index_run::<W>(&context, run, |id, offset, word| self.put(id, offset, word))?;
        Ok(self.in_order)
    }

    fn put(&mut self, id: u64, offset: u64, class_word: u32) -> bool {
        while let Some(&(class_id, class_offset, class_word)) =
            self.class_objects.get(self.classes_put)
        {
            if class_id >= id {
                break;
            }
            if !self.write(class_id, class_offset, class_word) {
                return false;
            }
            self.classes_put += 1;
        }
        self.class_objects
            .get(self.classes_put)
            .map_or(true, |&(class_id, _, _)| class_id != id)
            && self.write(id, offset, class_word)
    }

    fn write(&mut self, id: u64, offset: u64, class_word: u32) -> bool {
        if self.ids.last().is_some_and(|&last| id <= last) {
            return false;
        }
        self.ids.push(id);
        self.offsets.push(offset);
        self.class_words.push(class_word);
        true
    }

    /// Objects (class objects among them) in the columns so far.
    #[cfg(test)]
    pub(crate) fn len(&self) -> usize {
        self.ids.len()
    }

    /// The finished columns, after the last run; `None` if the objects were out of order.
    pub(crate) fn finish(mut self) -> Option<ObjectColumns> {
        if !self.in_order {
            return None;
        }
        for i in self.classes_put..self.class_objects.len() {
            let (id, offset, word) = self.class_objects[i];
            if !self.write(id, offset, word) {
                return None;
            }
        }
        debug_assert_eq!(self.offsets.len(), self.ids.len());
        // Room well past the objects (a heap that shrank since the count expected) is given
        // back, which copies; a little more is cheaper to keep.
        let oversized = self.ids.capacity() - self.ids.len() > self.ids.len() / 16;
        if oversized {
            self.class_words.shrink_to_fit();
        }
        Some(ObjectColumns {
            // The ids are dropped once the id lookup is built (unless it is the directory).
            ids: self.ids,
            offsets: self.offsets.finish(oversized),
            class_words: self.class_words,
        })
    }
}

/// The way for dumps whose objects come in ascending id order, as HotSpot's serial dumper
/// writes them (in address order): each thread writes its objects, and the class objects
/// whose ids fall among them, straight to their final places. `None` when the dump isn't in
/// that order (or has a duplicate id); the general way then sorts and merges.
fn index_in_id_order<W: IdWidth>(
    context: &Context<'_>,
    groups: &[&[ObjectRun]],
    class_objects: &[(u64, u64, u32)],
) -> Result<Option<ObjectColumns>, HprofError> {
    if groups.is_empty() {
        return Ok(None); // only class objects: nothing to gain here
    }
    // Each group's ids must come after the previous group's: its first id bounds them.
    let mut first_ids = Vec::with_capacity(groups.len());
    for group in groups {
        let Some(id) = context.bytes(&group[0]).get(1..).and_then(W::read) else {
            return Ok(None);
        };
        if first_ids.last().is_some_and(|&previous| previous >= id) {
            return Ok(None);
        }
        first_ids.push(id);
    }
    // Where each group's class objects start: those below its first id belong to earlier ones.
    let class_starts: Vec<usize> = std::iter::once(0)
        .chain(
            first_ids
                .iter()
                .skip(1)
                .map(|&first| class_objects.partition_point(|&(id, _, _)| id < first)),
        )
        .chain(std::iter::once(class_objects.len()))
        .collect();
    let region_sizes: Vec<usize> = groups
        .iter()
        .enumerate()
        .map(|(g, group)| {
            group.iter().map(|run| run.objects as usize).sum::<usize>() + class_starts[g + 1]
                - class_starts[g]
        })
        .collect();
    let total = region_sizes.iter().sum();
    // Zeroed memory comes from the system as it is, so the threads share the page faults.
    let mut ids: Vec<u64> = vec![0; total];
    let mut offsets = InPlaceOffsets::new(total);
    let mut class_words: Vec<u32> = vec![0; total];

    let mut regions = Vec::with_capacity(groups.len());
    let (mut ids_left, mut words_left) = (&mut ids[..], &mut class_words[..]);
    for ((g, &size), offsets) in region_sizes
        .iter()
        .enumerate()
        .zip(offsets.shares(&region_sizes))
    {
        let (ids_here, ids_rest) = std::mem::take(&mut ids_left).split_at_mut(size);
        let (words_here, words_rest) = std::mem::take(&mut words_left).split_at_mut(size);
        (ids_left, words_left) = (ids_rest, words_rest);
        regions.push(Region {
            ids: ids_here,
            offsets,
            class_words: words_here,
            filled: 0,
            last_id: 0,
            below: first_ids.get(g + 1).copied().unwrap_or(u64::MAX),
            class_objects: &class_objects[class_starts[g]..class_starts[g + 1]],
        });
    }
    let in_order = on_each(
        groups.iter().zip(regions).collect(),
        |(group, mut region)| -> Result<Option<SharedBlocks>, HprofError> {
            for run in *group {
                if !index_run::<W>(context, run, |id, offset, word| {
                    region.put(id, offset, word)
                })? {
                    return Ok(None);
                }
            }
            Ok(region.finish())
        },
    );
    // Report the error that comes first in the dump.
    let mut shared_blocks = Vec::with_capacity(in_order.len());
    for result in in_order {
        match result? {
            Some(blocks) => shared_blocks.push(blocks),
            None => return Ok(None),
        }
    }
    Ok(Some(ObjectColumns {
        ids,
        offsets: offsets.finish(shared_blocks),
        class_words,
    }))
}

/// One thread's share of the columns in [`index_in_id_order`].
struct Region<'a> {
    ids: &'a mut [u64],
    offsets: OffsetShare<'a>,
    class_words: &'a mut [u32],
    filled: usize,
    last_id: u64,
    /// The next region's first id: every id here is below it.
    below: u64,
    /// The class objects whose ids fall in this region, by id.
    class_objects: &'a [(u64, u64, u32)],
}

impl Region<'_> {
    /// Appends an object after the class objects with smaller ids; `false` if it is out of
    /// order (or the region is full, which only an out-of-order dump can cause).
    fn put(&mut self, id: u64, offset: u64, class_word: u32) -> bool {
        while let Some(&(class_id, class_offset, class_word)) = self.class_objects.first() {
            if class_id >= id {
                break;
            }
            if !self.write(class_id, class_offset, class_word) {
                return false;
            }
            self.class_objects = &self.class_objects[1..];
        }
        self.class_objects
            .first()
            .map_or(true, |&(class_id, _, _)| class_id != id)
            && id < self.below
            && self.write(id, offset, class_word)
    }

    fn write(&mut self, id: u64, offset: u64, class_word: u32) -> bool {
        if id <= self.last_id || self.filled == self.ids.len() {
            return false;
        }
        self.ids[self.filled] = id;
        self.offsets.push(offset);
        self.class_words[self.filled] = class_word;
        self.filled += 1;
        self.last_id = id;
        true
    }

    /// Writes the remaining class objects; the offsets' shared blocks if the region came out
    /// exactly full.
    fn finish(mut self) -> Option<SharedBlocks> {
        for &(id, offset, word) in std::mem::take(&mut self.class_objects) {
            if !self.write(id, offset, word) {
                return None;
            }
        }
        (self.filled == self.ids.len() && self.offsets.is_full()).then(|| self.offsets.finish())
    }
}

/// The general way: each thread indexes its runs and sorts them by id.
fn index_groups_in_parallel<W: IdWidth>(
    context: &Context<'_>,
    groups: &[&[ObjectRun]],
) -> Result<Vec<Part>, HprofError> {
    // Report the error that comes first in the dump.
    on_each(groups.to_vec(), |group| index_group::<W>(context, group))
        .into_iter()
        .collect()
}

fn index_group<W: IdWidth>(context: &Context<'_>, runs: &[ObjectRun]) -> Result<Part, HprofError> {
    let objects = runs.iter().map(|r| r.objects as usize).sum();
    let mut part = Part::with_capacity(objects);
    for run in runs {
        index_run::<W>(context, run, |id, offset, word| {
            part.push(id, offset, word);
            true
        })?;
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

/// Reads the objects of one run and hands each one's id, record offset and class word to
/// `put`, until it returns `false` (then this does too). The scan has already checked every
/// length and type code in these bytes; the checks here only keep a bug from turning into a
/// panic.
fn index_run<W: IdWidth>(
    context: &Context<'_>,
    run: &ObjectRun,
    mut put: impl FnMut(u64, u64, u32) -> bool,
) -> Result<bool, HprofError> {
    // The runs before are read: their pages can go (the walk faults in what it needs).
    crate::heap::resident::release_if_over_budget();
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
                .ok_or_else(|| HprofError::MissingClass {
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
        if !put(object_id, run.start + pos as u64, word) {
            return Ok(false);
        }
        pos += len;
    }
    if pos != bytes.len() {
        return Err(inconsistent(pos));
    }
    Ok(true)
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
    let mut offsets = InPlaceOffsets::new(total);
    let mut offsets_share = offsets.shares(&[total]).pop().expect("one share");
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
        for &offset in &part.offsets[start..end] {
            offsets_share.push(offset);
        }
        next[p] = end;
    }
    let shared_blocks = offsets_share.finish();
    Ok(ObjectColumns {
        ids,
        offsets: offsets.finish(vec![shared_blocks]),
        class_words,
    })
}
