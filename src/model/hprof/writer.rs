//! Writing HPROF: the low-level encoder behind [`crate::hprof::builder::HeapBuilder`], also used
//! by the reader's tests to craft dumps the builder wouldn't make (corrupt ones included).

use super::format::{self, sub, tag};
use crate::heap::{FieldType, PrimitiveType, RootKind};

/// Appends a big-endian id of `id_size` bytes.
pub(crate) fn put_id(out: &mut Vec<u8>, id: u64, id_size: u8) {
    if id_size == 4 {
        let narrow =
            u32::try_from(id).unwrap_or_else(|_| panic!("id 0x{id:x} doesn't fit 4-byte ids"));
        out.extend_from_slice(&narrow.to_be_bytes());
    } else {
        out.extend_from_slice(&id.to_be_bytes());
    }
}

/// Top-level records, header first.
pub(crate) struct HprofWriter {
    out: Vec<u8>,
    id_size: u8,
}

impl HprofWriter {
    /// Starts a dump with the `JAVA PROFILE 1.0.<minor>` header.
    pub(crate) fn new(minor_version: u8, id_size: u8) -> HprofWriter {
        let mut out = Vec::new();
        out.extend_from_slice(format::HEADER_PREFIX);
        out.push(b'0' + minor_version);
        out.push(0);
        out.extend_from_slice(&(id_size as u32).to_be_bytes());
        // Timestamp: milliseconds since the epoch, as two u32. Fixed, so dumps are reproducible.
        out.extend_from_slice(&0u32.to_be_bytes());
        out.extend_from_slice(&1_700_000_000u32.to_be_bytes());
        HprofWriter { out, id_size }
    }

    pub(crate) fn id_size(&self) -> u8 {
        self.id_size
    }

    /// A top-level record: tag, time offset 0, body length, body.
    pub(crate) fn record(&mut self, record_tag: u8, body: &[u8]) {
        self.out.push(record_tag);
        self.out.extend_from_slice(&0u32.to_be_bytes());
        let len = u32::try_from(body.len()).expect("a record body fits in u32");
        self.out.extend_from_slice(&len.to_be_bytes());
        self.out.extend_from_slice(body);
    }

    pub(crate) fn string(&mut self, id: u64, text: &str) {
        let mut body = Vec::with_capacity(self.id_size as usize + text.len());
        put_id(&mut body, id, self.id_size);
        body.extend_from_slice(text.as_bytes());
        self.record(tag::STRING, &body);
    }

    pub(crate) fn load_class(&mut self, serial: u32, class_id: u64, name_id: u64) {
        let mut body = Vec::new();
        body.extend_from_slice(&serial.to_be_bytes());
        put_id(&mut body, class_id, self.id_size);
        body.extend_from_slice(&0u32.to_be_bytes()); // stack trace serial
        put_id(&mut body, name_id, self.id_size);
        self.record(tag::LOAD_CLASS, &body);
    }

    pub(crate) fn start_thread(&mut self, serial: u32, thread_id: u64, name_id: u64) {
        let mut body = Vec::new();
        body.extend_from_slice(&serial.to_be_bytes());
        put_id(&mut body, thread_id, self.id_size);
        body.extend_from_slice(&0u32.to_be_bytes()); // stack trace serial
        put_id(&mut body, name_id, self.id_size);
        put_id(&mut body, 0, self.id_size); // group name
        put_id(&mut body, 0, self.id_size); // parent group name
        self.record(tag::START_THREAD, &body);
    }

    /// A thread's stack trace, as HotSpot writes one per thread: `frame_ids` innermost first.
    pub(crate) fn stack_trace(&mut self, serial: u32, thread_serial: u32, frame_ids: &[u64]) {
        let mut body = Vec::new();
        body.extend_from_slice(&serial.to_be_bytes());
        body.extend_from_slice(&thread_serial.to_be_bytes());
        body.extend_from_slice(&(frame_ids.len() as u32).to_be_bytes());
        for &frame in frame_ids {
            put_id(&mut body, frame, self.id_size);
        }
        self.record(tag::STACK_TRACE, &body);
    }

    /// A STACK FRAME record; names are string ids, the class a LOAD CLASS serial.
    pub(crate) fn stack_frame(
        &mut self,
        frame_id: u64,
        method_name_id: u64,
        source_file_id: u64,
        class_serial: u32,
        line: i32,
    ) {
        let mut body = Vec::new();
        put_id(&mut body, frame_id, self.id_size);
        put_id(&mut body, method_name_id, self.id_size);
        put_id(&mut body, 0, self.id_size); // signature
        put_id(&mut body, source_file_id, self.id_size);
        body.extend_from_slice(&class_serial.to_be_bytes());
        body.extend_from_slice(&line.to_be_bytes());
        self.record(tag::STACK_FRAME, &body);
    }

    /// Writes the heap sub-records as one HEAP DUMP record or as segments.
    pub(crate) fn heap(&mut self, heap: &SubRecords, segmenting: Segmenting) {
        match segmenting {
            Segmenting::SingleHeapDump => self.record(tag::HEAP_DUMP, &heap.bytes),
            Segmenting::Segments {
                max_bytes,
                split_sub_records,
            } => {
                let max_bytes = max_bytes.max(1);
                if split_sub_records {
                    for chunk in heap.bytes.chunks(max_bytes) {
                        self.record(tag::HEAP_DUMP_SEGMENT, chunk);
                    }
                } else {
                    let mut segment_start = 0;
                    let mut ends = heap
                        .starts
                        .iter()
                        .skip(1)
                        .copied()
                        .chain([heap.bytes.len()])
                        .peekable();
                    while let Some(end) = ends.next() {
                        let next_end = ends.peek().copied();
                        let next_fits =
                            matches!(next_end, Some(next) if next - segment_start <= max_bytes);
                        if !next_fits {
                            self.record(tag::HEAP_DUMP_SEGMENT, &heap.bytes[segment_start..end]);
                            segment_start = end;
                        }
                    }
                }
                self.record(tag::HEAP_DUMP_END, &[]);
            }
        }
    }

    /// Bytes written so far.
    #[cfg(test)]
    pub(crate) fn len(&self) -> usize {
        self.out.len()
    }

    pub(crate) fn finish(self) -> Vec<u8> {
        self.out
    }
}

/// How heap sub-records are packed into top-level records.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Segmenting {
    /// One HEAP DUMP (0x0C) record, as format 1.0.1 writers do.
    SingleHeapDump,
    /// HEAP DUMP SEGMENT (0x1C) records of at most `max_bytes` (a larger sub-record gets a
    /// segment of its own), then HEAP DUMP END. With `split_sub_records`, segments are cut at
    /// exactly `max_bytes`, even inside a sub-record.
    Segments {
        max_bytes: usize,
        split_sub_records: bool,
    },
}

/// Heap dump sub-records, encoded back to back.
pub(crate) struct SubRecords {
    pub(crate) bytes: Vec<u8>,
    /// Where each sub-record starts in `bytes`.
    pub(crate) starts: Vec<usize>,
    id_size: u8,
}

impl SubRecords {
    pub(crate) fn new(id_size: u8) -> SubRecords {
        SubRecords {
            bytes: Vec::new(),
            starts: Vec::new(),
            id_size,
        }
    }

    fn begin(&mut self, sub_tag: u8) {
        self.starts.push(self.bytes.len());
        self.bytes.push(sub_tag);
    }

    fn id(&mut self, id: u64) {
        put_id(&mut self.bytes, id, self.id_size);
    }

    fn u32(&mut self, value: u32) {
        self.bytes.extend_from_slice(&value.to_be_bytes());
    }

    /// A root of any kind, with `thread_serial` where the kind carries one.
    pub(crate) fn root(&mut self, kind: RootKind, id: u64, thread_serial: u32) {
        self.root_in_frame(kind, id, thread_serial, None);
    }

    /// A root; for Java frame and JNI local roots `frame_depth` is the frame's depth in the
    /// thread's stack trace (`None` writes -1, no frame).
    pub(crate) fn root_in_frame(
        &mut self,
        kind: RootKind,
        id: u64,
        thread_serial: u32,
        frame_depth: Option<u32>,
    ) {
        let sub_tag = format::root_sub_tag(kind);
        self.begin(sub_tag);
        self.id(id);
        match sub_tag {
            sub::ROOT_JNI_GLOBAL => self.id(0), // the JNI global reference's own id
            sub::ROOT_JNI_LOCAL | sub::ROOT_JAVA_FRAME => {
                self.u32(thread_serial);
                self.u32(frame_depth.unwrap_or(u32::MAX));
            }
            sub::ROOT_JNI_MONITOR => {
                self.u32(thread_serial);
                self.u32(0); // stack depth
            }
            sub::ROOT_THREAD_OBJECT => {
                self.u32(thread_serial);
                self.u32(0); // stack trace serial
            }
            sub::ROOT_NATIVE_STACK | sub::ROOT_THREAD_BLOCK => self.u32(thread_serial),
            _ => {}
        }
    }

    /// A class dump. `statics` holds each static's name id, type and encoded value.
    pub(crate) fn class_dump(
        &mut self,
        class_id: u64,
        super_id: u64,
        loader_id: u64,
        instance_size: u32,
        statics: &[(u64, FieldType, Vec<u8>)],
        fields: &[(u64, FieldType)],
    ) {
        self.begin(sub::CLASS_DUMP);
        self.id(class_id);
        self.u32(0); // stack trace serial
        self.id(super_id);
        self.id(loader_id);
        for _ in 0..4 {
            self.id(0); // signers, protection domain, two reserved
        }
        self.u32(instance_size);
        self.bytes.extend_from_slice(&0u16.to_be_bytes()); // constant pool
        self.bytes
            .extend_from_slice(&(statics.len() as u16).to_be_bytes());
        for (name_id, ty, value) in statics {
            self.id(*name_id);
            self.bytes.push(format::field_type_code(*ty));
            self.bytes.extend_from_slice(value);
        }
        self.bytes
            .extend_from_slice(&(fields.len() as u16).to_be_bytes());
        for &(name_id, ty) in fields {
            self.id(name_id);
            self.bytes.push(format::field_type_code(ty));
        }
    }

    pub(crate) fn instance(&mut self, id: u64, class_id: u64, field_bytes: &[u8]) {
        self.begin(sub::INSTANCE_DUMP);
        self.id(id);
        self.u32(0);
        self.id(class_id);
        self.u32(field_bytes.len() as u32);
        self.bytes.extend_from_slice(field_bytes);
    }

    pub(crate) fn object_array(&mut self, id: u64, array_class_id: u64, elements: &[u64]) {
        self.begin(sub::OBJECT_ARRAY_DUMP);
        self.id(id);
        self.u32(0);
        self.u32(elements.len() as u32);
        self.id(array_class_id);
        for &element in elements {
            self.id(element);
        }
    }

    /// A primitive array; `data` holds `length` big-endian values.
    pub(crate) fn primitive_array(&mut self, id: u64, ty: PrimitiveType, length: u32, data: &[u8]) {
        self.begin(sub::PRIMITIVE_ARRAY_DUMP);
        self.id(id);
        self.u32(0);
        self.u32(length);
        self.bytes.push(format::primitive_type_code(ty));
        self.bytes.extend_from_slice(data);
    }

    /// HEAP DUMP INFO (Android): the heap the objects after it are in, and its name's id.
    pub(crate) fn heap_dump_info(&mut self, heap_type: u32, name_id: u64) {
        self.starts.push(self.bytes.len());
        self.bytes.push(format::sub::HEAP_DUMP_INFO);
        self.bytes.extend_from_slice(&heap_type.to_be_bytes());
        put_id(&mut self.bytes, name_id, self.id_size);
    }

    /// Raw bytes as a sub-record of their own (tests use it to plant corrupt records).
    #[cfg(test)]
    pub(crate) fn raw(&mut self, bytes: &[u8]) {
        self.starts.push(self.bytes.len());
        self.bytes.extend_from_slice(bytes);
    }
}
