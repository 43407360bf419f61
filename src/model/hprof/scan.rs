//! The sequential passes: the header, the top-level records, then every heap dump sub-record
//! to learn where each one starts (class dumps and roots are kept whole; instances and arrays
//! are only counted, in runs the parallel indexing pass then reads).

use super::format::{tag, HEADER_PREFIX};
use super::id_map::IdMap;
use super::records::{
    parse_sub_record, ClassDumpRecord, IdWidth, RawRoot, RecordBytes, Segment, SliceRecord,
    SpanningRecord, Stop, SubRecord,
};
use super::HprofError;
use crate::parallel::on_each;

/// What the header says.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Header {
    pub id_size: u8,
    /// File offset of the first top-level record.
    pub records_start: u64,
}

/// Reads `JAVA PROFILE 1.0.x\0`, the id size and the timestamp.
pub(crate) fn read_header(data: &[u8]) -> Result<Header, HprofError> {
    let bad = |offset: u64, reason: String| HprofError::BadHeader { offset, reason };
    // The format name is NUL-terminated; real ones are 18 characters long.
    let Some(nul) = data.iter().take(64).position(|&b| b == 0) else {
        return Err(bad(
            0,
            "no NUL-terminated `JAVA PROFILE 1.0.x` format name".into(),
        ));
    };
    let name = &data[..nul];
    let version_ok = name.len() == HEADER_PREFIX.len() + 1
        && name.starts_with(HEADER_PREFIX)
        // 1.0.1 and 1.0.2 (HotSpot), 1.0.3 (Android): same records, 1.0.2 adds segments.
        && matches!(name[HEADER_PREFIX.len()], b'1' | b'2' | b'3');
    if !version_ok {
        return Err(bad(
            0,
            format!(
                "unsupported format name {:?}",
                String::from_utf8_lossy(name)
            ),
        ));
    }
    let id_pos = nul + 1;
    let Some(id_bytes) = data.get(id_pos..id_pos + 4) else {
        return Err(HprofError::truncated(
            id_pos as u64,
            "header",
            12,
            (data.len() - id_pos) as u64,
        ));
    };
    let id_size = u32::from_be_bytes(id_bytes.try_into().expect("4 bytes"));
    if id_size != 4 && id_size != 8 {
        return Err(bad(
            id_pos as u64,
            format!("identifier size {id_size} (only 4 and 8 are supported)"),
        ));
    }
    // The timestamp (two u32) follows the id size.
    let records_start = id_pos as u64 + 12;
    if records_start > data.len() as u64 {
        return Err(HprofError::truncated(
            id_pos as u64,
            "header",
            12,
            (data.len() - id_pos) as u64,
        ));
    }
    Ok(Header {
        id_size: id_size as u8,
        records_start,
    })
}

/// What the top-level records outside the heap dump say.
#[derive(Default)]
pub(crate) struct TopLevel {
    /// String id → (file offset of its modified-UTF-8 bytes, byte length).
    pub strings: IdMap<(u64, u32)>,
    /// Class object id → id of its name string (LOAD CLASS).
    pub class_names: IdMap<u64>,
    /// Thread serial → thread object id (START THREAD; HotSpot writes none).
    pub thread_objects: Vec<(u32, u64)>,
    /// Class serial → class object id (LOAD CLASS), for stack frames.
    pub class_serials: IdMap<u64>,
    /// Stack frame id → the frame (STACK FRAME).
    pub frames: IdMap<FrameRecord>,
    /// Thread serial → ids of its stack's frames, innermost first (STACK TRACE).
    pub thread_traces: IdMap<Vec<u64>>,
    /// Bodies of HEAP DUMP and HEAP DUMP SEGMENT records, in file order.
    pub segments: Vec<Segment>,
}

/// A STACK FRAME record: names as string ids, the class as a LOAD CLASS serial.
#[derive(Clone, Copy, Debug)]
pub(crate) struct FrameRecord {
    pub method_name: u64,
    pub source_file: u64,
    pub class_serial: u32,
    /// Line number; 0 or negative when unknown (-2: compiled, -3: native).
    pub line: i32,
}

/// Walks the top-level records, skipping the bodies of heap dump segments.
pub(crate) fn scan_top_level(data: &[u8], header: Header) -> Result<TopLevel, HprofError> {
    let mut scan = TopLevelScan::new(header);
    scan.advance(data, true)?;
    scan.finish(data.len() as u64)
}

/// [`scan_top_level`] a piece at a time, for a dump still being written: each
/// [`advance`](TopLevelScan::advance) reads the records that have come in whole since the last.
pub(crate) struct TopLevelScan {
    id_size: u8,
    top: TopLevel,
    /// Where the next record starts.
    pos: u64,
    /// Inside a segmented heap dump that hasn't seen its HEAP DUMP END yet.
    segments_open: bool,
    /// STRING and LOAD CLASS records read: what names classes.
    naming_records: u64,
}

const RECORD_HEADER: u64 = 9; // tag u8, time offset u32, body length u32

/// Bytes of the dump the top-level scan passes between two looks at its resident pages.
const LOOK_EVERY: u64 = crate::heap::resident::RESIDENT_DUMP_BUDGET / 2;

impl TopLevelScan {
    pub(crate) fn new(header: Header) -> TopLevelScan {
        TopLevelScan {
            id_size: header.id_size,
            top: TopLevel::default(),
            pos: header.records_start,
            segments_open: false,
            naming_records: 0,
        }
    }

    /// How many STRING and LOAD CLASS records were read so far: classes resolved from the
    /// records read so far are the final ones if no more come (and no more class dumps).
    pub(crate) fn naming_records(&self) -> u64 {
        self.naming_records
    }

    /// Where the next record starts: all before it has been read.
    pub(crate) fn position(&self) -> u64 {
        self.pos
    }

    /// What the records read so far say.
    pub(crate) fn top(&self) -> &TopLevel {
        &self.top
    }

    /// Reads the records of `data` (the dump's first bytes, all of it if `complete`) from
    /// where the last call stopped. A record cut off at the end of `data` is an error only if
    /// `complete`; otherwise the next call reads it.
    pub(crate) fn advance(&mut self, data: &[u8], complete: bool) -> Result<(), HprofError> {
        let id = self.id_size as u64;
        let file_len = data.len() as u64;
        let top = &mut self.top;
        let mut looked_at = self.pos;
        while self.pos < file_len {
            let pos = self.pos;
            // The headers read lie all over the dump (a segment's every MiB or so). Where the
            // page cache holds the dump in 2 MiB folios (a dump read from disk, on Linux 6.18
            // with ext4), each read maps 2 MiB: before this looked, the whole dump was
            // resident a moment after the scan (0.47 of a 0.51 GB dump; docs/bench.md,
            // "Issue 33: a dump cached in 2 MiB folios"). Looking every half budget passed
            // keeps it within the budget and two folios.
            if pos - looked_at >= LOOK_EVERY {
                crate::heap::resident::release_if_over_budget();
                looked_at = pos;
            }
            let available = file_len - pos;
            if available < RECORD_HEADER {
                if !complete {
                    return Ok(());
                }
                return Err(HprofError::truncated(
                    pos,
                    "record header",
                    RECORD_HEADER,
                    available,
                ));
            }
            let p = pos as usize;
            let record_tag = data[p];
            let body_len =
                u32::from_be_bytes(data[p + 5..p + 9].try_into().expect("4 bytes")) as u64;
            let body_start = pos + RECORD_HEADER;
            if body_len > file_len - body_start {
                if !complete {
                    return Ok(());
                }
                return Err(HprofError::truncated(
                    pos,
                    tag_name(record_tag),
                    RECORD_HEADER + body_len,
                    available,
                ));
            }
            let body = &data[body_start as usize..(body_start + body_len) as usize];
            let too_short = |needed: u64| {
                HprofError::truncated(
                    pos,
                    tag_name(record_tag),
                    RECORD_HEADER + needed,
                    RECORD_HEADER + body_len,
                )
            };
            let read_id = |at: usize| -> u64 {
                if id == 4 {
                    u32::from_be_bytes(body[at..at + 4].try_into().expect("4 bytes")) as u64
                } else {
                    u64::from_be_bytes(body[at..at + 8].try_into().expect("8 bytes"))
                }
            };
            let id_len = id as usize;
            if matches!(record_tag, tag::STRING | tag::LOAD_CLASS) {
                self.naming_records += 1;
            }
            match record_tag {
                tag::STRING => {
                    if body_len < id {
                        return Err(too_short(id));
                    }
                    top.strings
                        .insert(read_id(0), (body_start + id, (body_len - id) as u32));
                }
                tag::LOAD_CLASS => {
                    // Class serial, class object id, stack trace serial, name string id.
                    if body_len < 8 + 2 * id {
                        return Err(too_short(8 + 2 * id));
                    }
                    // Array classes are announced more than once: the first name is as good.
                    top.class_names
                        .entry(read_id(4))
                        .or_insert(read_id(8 + id_len));
                    let serial = u32::from_be_bytes(body[..4].try_into().expect("4 bytes"));
                    top.class_serials.insert(serial as u64, read_id(4));
                }
                tag::STACK_FRAME => {
                    // Frame id, method name, signature and source file string ids, class
                    // serial, line number.
                    if body_len < 4 * id + 8 {
                        return Err(too_short(4 * id + 8));
                    }
                    let at = 4 * id_len;
                    let word = |at: usize| {
                        u32::from_be_bytes(body[at..at + 4].try_into().expect("4 bytes"))
                    };
                    top.frames.insert(
                        read_id(0),
                        FrameRecord {
                            method_name: read_id(id_len),
                            source_file: read_id(3 * id_len),
                            class_serial: word(at),
                            line: word(at + 4) as i32,
                        },
                    );
                }
                tag::STACK_TRACE => {
                    // Trace serial, thread serial, frame count, frame ids.
                    if body_len < 12 {
                        return Err(too_short(12));
                    }
                    let word = |at: usize| {
                        u32::from_be_bytes(body[at..at + 4].try_into().expect("4 bytes"))
                    };
                    let count = word(8) as u64;
                    if body_len < 12 + count * id {
                        return Err(too_short(12 + count * id));
                    }
                    let frames = (0..count as usize)
                        .map(|i| read_id(12 + i * id_len))
                        .collect();
                    top.thread_traces.insert(word(4) as u64, frames);
                }
                tag::START_THREAD => {
                    // Thread serial, thread object id, stack serial, three name ids.
                    if body_len < 8 + 4 * id {
                        return Err(too_short(8 + 4 * id));
                    }
                    let serial = u32::from_be_bytes(body[..4].try_into().expect("4 bytes"));
                    top.thread_objects.push((serial, read_id(4)));
                }
                tag::HEAP_DUMP | tag::HEAP_DUMP_SEGMENT => {
                    top.segments.push(Segment {
                        start: body_start,
                        end: body_start + body_len,
                    });
                    self.segments_open = record_tag == tag::HEAP_DUMP_SEGMENT;
                }
                tag::HEAP_DUMP_END => self.segments_open = false,
                // Everything else: nothing the model needs.
                _ => {}
            }
            self.pos = body_start + body_len;
        }
        Ok(())
    }

    /// The records of a whole dump of `file_len` bytes, once [`advance`](Self::advance) has
    /// read all of them.
    pub(crate) fn finish(self, file_len: u64) -> Result<TopLevel, HprofError> {
        // A file cut at a record boundary parses cleanly up to the cut: these two checks are
        // what tells it from a complete dump.
        if self.segments_open {
            return Err(HprofError::truncated(
                file_len,
                "heap dump without HEAP DUMP END",
                RECORD_HEADER,
                0,
            ));
        }
        if self.top.segments.is_empty() {
            return Err(HprofError::NoHeapDump {
                records_end: file_len,
            });
        }
        Ok(self.top)
    }
}

fn tag_name(record_tag: u8) -> &'static str {
    match record_tag {
        tag::STRING => "STRING record",
        tag::LOAD_CLASS => "LOAD CLASS record",
        tag::START_THREAD => "START THREAD record",
        tag::STACK_FRAME => "STACK FRAME record",
        tag::STACK_TRACE => "STACK TRACE record",
        tag::HEAP_DUMP => "HEAP DUMP record",
        tag::HEAP_DUMP_SEGMENT => "HEAP DUMP SEGMENT record",
        _ => "top-level record",
    }
}

/// Consecutive object sub-records (instances, arrays) in one contiguous byte range.
#[derive(Clone, Copy, Debug)]
pub(crate) struct ObjectRun {
    /// Offset of the first sub-record (virtual for a split sub-record, see [`HeapScan::spliced`]).
    pub start: u64,
    pub end: u64,
    pub objects: u32,
}

/// Runs stop growing at this size, so that the indexing pass can share work between threads
/// evenly even when the whole heap is one HEAP DUMP record; small enough for balance, large
/// enough that per-run costs vanish.
const RUN_TARGET_BYTES: u64 = 1 << 20;

/// What the walk over all sub-records found.
#[derive(Default)]
pub(crate) struct HeapScan {
    pub class_dumps: Vec<ClassDumpRecord>,
    pub roots: Vec<RawRoot>,
    /// Thread serial → thread object id (THREAD OBJECT roots).
    pub thread_objects: Vec<(u32, u64)>,
    pub runs: Vec<ObjectRun>,
    /// Instance and array sub-records (class dumps not counted).
    pub object_records: u64,
    /// Copies of sub-records that continue from one segment into the next, so the model can
    /// read every sub-record from contiguous bytes. Offset `file_len + i` means `spliced[i]`.
    pub spliced: Vec<u8>,
    /// (virtual offset, file offset) of each copied sub-record, for error messages.
    pub spliced_origins: Vec<(u64, u64)>,
}

impl HeapScan {
    fn add_object(&mut self, start: u64, len: u64) {
        self.object_records += 1;
        if let Some(run) = self.runs.last_mut() {
            if run.end == start && run.end - run.start < RUN_TARGET_BYTES && run.objects < u32::MAX
            {
                run.end += len;
                run.objects += 1;
                return;
            }
        }
        self.runs.push(ObjectRun {
            start,
            end: start + len,
            objects: 1,
        });
    }

    /// Objects found so far: instances, arrays and class objects.
    pub(crate) fn objects(&self) -> u64 {
        self.object_records + self.class_dumps.len() as u64
    }

    /// Adds what a scan of the segments after this one's found (neither has split sub-records).
    pub(crate) fn append(&mut self, later: HeapScan) {
        self.class_dumps.extend(later.class_dumps);
        self.roots.extend(later.roots);
        self.thread_objects.extend(later.thread_objects);
        self.runs.extend(later.runs);
        self.object_records += later.object_records;
    }

    fn add(&mut self, record: SubRecord, start: u64, len: u64) {
        match record {
            SubRecord::Object => self.add_object(start, len),
            SubRecord::ClassDump(mut class) => {
                class.offset = start;
                self.class_dumps.push(class);
            }
            SubRecord::Root(root) => self.roots.push(root),
            SubRecord::ThreadObject { id, thread_serial } => {
                self.roots.push(RawRoot {
                    kind: crate::heap::RootKind::ThreadObject,
                    id,
                    owner_thread_serial: None,
                    frame_depth: None,
                });
                self.thread_objects.push((thread_serial, id));
            }
            SubRecord::Ignored => {}
        }
    }
}

/// Walks every sub-record of every heap dump segment.
pub(crate) fn scan_heap<W: IdWidth>(
    data: &[u8],
    segments: &[Segment],
) -> Result<HeapScan, HprofError> {
    // The object count is checked against the reader's limits right after (`check_object_count`).
    match scan_in_parallel::<W>(data, segments) {
        Some(scan) => Ok(scan),
        None => scan_in_order::<W>(data, segments),
    }
}

/// Scans groups of whole segments on several threads. That works when every sub-record ends
/// in the segment it starts in, as HotSpot writes them; `None` when one doesn't, or on any
/// error: the scan in order then copies split sub-records together and reports the first
/// error.
fn scan_in_parallel<W: IdWidth>(data: &[u8], segments: &[Segment]) -> Option<HeapScan> {
    let total_bytes = segments.iter().map(|s| s.end - s.start).sum();
    let threads = super::worker_threads(total_bytes);
    if threads < 2 || segments.len() < 2 {
        return None;
    }
    let groups = super::split_by_bytes(segments, threads, |s| s.end - s.start);
    let scans = on_each(groups, |group| scan_whole_segments::<W>(data, group));
    let mut merged = HeapScan::default();
    for scan in scans {
        merged.append(scan?);
    }
    Some(merged)
}

/// The sub-records of `segments`, if each one ends in its segment and all are valid.
pub(crate) fn scan_whole_segments<W: IdWidth>(
    data: &[u8],
    segments: &[Segment],
) -> Option<HeapScan> {
    let mut scan = HeapScan::default();
    for segment in segments {
        // The segments before are read: their pages can go (the indexing reads them again).
        crate::heap::resident::release_if_over_budget();
        let body = &data[segment.start as usize..segment.end as usize];
        let mut pos = 0;
        while pos < body.len() {
            let offset = segment.start + pos as u64;
            let parsed = parse_sub_record::<_, W>(&mut SliceRecord(&body[pos..]), offset).ok()?;
            scan.add(parsed.record, offset, parsed.len);
            pos += parsed.len as usize;
        }
    }
    Some(scan)
}

/// Walks every sub-record of every heap dump segment, in order. A sub-record that doesn't end
/// in its segment continues in the next ones (the format allows it); it is copied together.
fn scan_in_order<W: IdWidth>(data: &[u8], segments: &[Segment]) -> Result<HeapScan, HprofError> {
    let file_len = data.len() as u64;
    let mut scan = HeapScan::default();
    let mut segment_index = 0;
    // Where to start in the current segment when a split sub-record ended inside it.
    let mut resume_at: Option<u64> = None;
    'segments: while segment_index < segments.len() {
        let segment = segments[segment_index];
        crate::heap::resident::release_if_over_budget();
        let body = &data[segment.start as usize..segment.end as usize];
        let mut pos = resume_at
            .take()
            .map_or(0, |at| (at - segment.start) as usize);
        while pos < body.len() {
            let offset = segment.start + pos as u64;
            match parse_sub_record::<_, W>(&mut SliceRecord(&body[pos..]), offset) {
                Ok(parsed) => {
                    scan.add(parsed.record, offset, parsed.len);
                    pos += parsed.len as usize;
                }
                Err(Stop::Invalid(e)) => return Err(e),
                Err(Stop::Incomplete { .. }) => {
                    let mut spanning = SpanningRecord::new(data, segments, segment_index, offset);
                    match parse_sub_record::<_, W>(&mut spanning, offset) {
                        Ok(parsed) => {
                            let virtual_offset = file_len + scan.spliced.len() as u64;
                            spanning.copy_to(parsed.len, &mut scan.spliced);
                            scan.spliced_origins.push((virtual_offset, offset));
                            scan.add(parsed.record, virtual_offset, parsed.len);
                            let (end_segment, end_offset) = spanning.end_of(parsed.len);
                            segment_index = end_segment;
                            resume_at = Some(end_offset);
                            continue 'segments;
                        }
                        Err(Stop::Invalid(e)) => return Err(e),
                        Err(Stop::Incomplete { needed, what }) => {
                            let available = spanning.available();
                            return Err(HprofError::truncated(offset, what, needed, available));
                        }
                    }
                }
            }
        }
        segment_index += 1;
    }
    Ok(scan)
}
