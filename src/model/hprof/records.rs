//! Parsing one heap dump sub-record, from bytes that are either one contiguous slice (the
//! normal case) or spread over consecutive heap dump segments (a sub-record the writer split).
//!
//! The parser never trusts a length: every read is checked against the bytes that exist, and a
//! list is only allocated after the bytes its entries need are known to be there.

use super::format::{self, layout, sub};
use super::HprofError;
pub(crate) use crate::heap::record::{read_u32, Id4, Id8, IdWidth};
use crate::heap::{FieldType, RootKind};

/// The bytes of one sub-record, addressed from its tag byte.
pub(crate) trait RecordBytes {
    /// Copies `out.len()` bytes starting `pos` bytes after the tag; false past the end.
    fn read_into(&mut self, pos: u64, out: &mut [u8]) -> bool;
    /// Whether at least `len` bytes exist from the tag on.
    fn has(&mut self, len: u64) -> bool;
    /// How many bytes exist from the tag on (for error messages).
    fn available(&mut self) -> u64;
}

/// A sub-record inside one contiguous slice that starts at its tag.
pub(crate) struct SliceRecord<'a>(pub &'a [u8]);

impl RecordBytes for SliceRecord<'_> {
    #[inline(always)]
    fn read_into(&mut self, pos: u64, out: &mut [u8]) -> bool {
        let Ok(start) = usize::try_from(pos) else {
            return false;
        };
        match self.0.get(start..start.saturating_add(out.len())) {
            Some(bytes) => {
                out.copy_from_slice(bytes);
                true
            }
            None => false,
        }
    }

    #[inline(always)]
    fn has(&mut self, len: u64) -> bool {
        len <= self.0.len() as u64
    }

    fn available(&mut self) -> u64 {
        self.0.len() as u64
    }
}

/// The body of one heap dump (segment) record in the file: `[start, end)`.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Segment {
    pub start: u64,
    pub end: u64,
}

/// One contiguous piece of a sub-record that spans segments.
#[derive(Clone, Copy, Debug)]
struct Piece {
    /// Position of the piece's first byte, counted from the sub-record's tag.
    record_pos: u64,
    file_start: u64,
    len: u64,
    segment: usize,
}

/// A sub-record that starts in one segment and continues in the following ones. Pieces are
/// added only as far as the parser reads, so a corrupt length costs at most one pass over the
/// remaining segment list, and a real split record costs the segments it spans.
pub(crate) struct SpanningRecord<'a> {
    data: &'a [u8],
    segments: &'a [Segment],
    next_segment: usize,
    pieces: Vec<Piece>,
    covered: u64,
}

impl<'a> SpanningRecord<'a> {
    /// The sub-record starting at file offset `start` inside `segments[segment]`.
    pub(crate) fn new(data: &'a [u8], segments: &'a [Segment], segment: usize, start: u64) -> Self {
        let first_len = segments[segment].end.saturating_sub(start);
        SpanningRecord {
            data,
            segments,
            next_segment: segment + 1,
            pieces: vec![Piece {
                record_pos: 0,
                file_start: start,
                len: first_len,
                segment,
            }],
            covered: first_len,
        }
    }

    fn extend_to(&mut self, len: u64) -> bool {
        while self.covered < len && self.next_segment < self.segments.len() {
            let segment = self.segments[self.next_segment];
            let piece_len = segment.end - segment.start;
            if piece_len > 0 {
                self.pieces.push(Piece {
                    record_pos: self.covered,
                    file_start: segment.start,
                    len: piece_len,
                    segment: self.next_segment,
                });
                self.covered += piece_len;
            }
            self.next_segment += 1;
        }
        self.covered >= len
    }

    fn piece_index(&self, pos: u64) -> usize {
        // The last piece starting at or before `pos`.
        self.pieces.partition_point(|p| p.record_pos <= pos) - 1
    }

    /// Appends the first `len` bytes of the sub-record (all present) to `out`.
    pub(crate) fn copy_to(&mut self, len: u64, out: &mut Vec<u8>) {
        let mut remaining = len;
        for piece in &self.pieces {
            if remaining == 0 {
                break;
            }
            let take = piece.len.min(remaining);
            let start = piece.file_start as usize;
            out.extend_from_slice(&self.data[start..start + take as usize]);
            remaining -= take;
        }
    }

    /// Where the walk resumes after a sub-record of `len` bytes: segment index and file offset.
    pub(crate) fn end_of(&self, len: u64) -> (usize, u64) {
        let piece = self.pieces[self.piece_index(len - 1)];
        (piece.segment, piece.file_start + (len - piece.record_pos))
    }
}

impl RecordBytes for SpanningRecord<'_> {
    fn read_into(&mut self, pos: u64, out: &mut [u8]) -> bool {
        if !self.extend_to(pos + out.len() as u64) {
            return false;
        }
        let mut written = 0;
        let mut index = self.piece_index(pos);
        while written < out.len() {
            let piece = self.pieces[index];
            let from = pos + written as u64 - piece.record_pos;
            let take = ((piece.len - from) as usize).min(out.len() - written);
            let start = (piece.file_start + from) as usize;
            out[written..written + take].copy_from_slice(&self.data[start..start + take]);
            written += take;
            index += 1;
        }
        true
    }

    fn has(&mut self, len: u64) -> bool {
        self.extend_to(len)
    }

    fn available(&mut self) -> u64 {
        self.extend_to(u64::MAX);
        self.covered
    }
}

/// Why parsing stopped without a sub-record.
pub(crate) enum Stop {
    /// The bytes end before the sub-record does; it needs at least `needed` bytes.
    Incomplete { needed: u64, what: &'static str },
    /// The bytes are wrong.
    Invalid(HprofError),
}

impl From<HprofError> for Stop {
    fn from(e: HprofError) -> Self {
        Stop::Invalid(e)
    }
}

/// A root sub-record.
#[derive(Clone, Copy, Debug)]
pub(crate) struct RawRoot {
    pub kind: RootKind,
    pub id: u64,
    /// Serial of the thread whose stack holds the root (frame, JNI local, ...).
    pub owner_thread_serial: Option<u32>,
    /// For Java frame and JNI local roots: the frame's depth in the thread's stack trace
    /// (0 is the innermost), when the dump gives one.
    pub frame_depth: Option<u32>,
}

/// One static field as the class dump holds it.
#[derive(Clone, Debug)]
pub(crate) struct StaticFieldRecord {
    pub name_id: u64,
    pub ty: FieldType,
    /// Where the value starts, counted from the class dump's tag byte.
    pub value_pos: u32,
}

/// A class dump, with everything the model needs from it.
#[derive(Clone, Debug)]
pub(crate) struct ClassDumpRecord {
    /// Where the sub-record's bytes are: its file offset, or for a sub-record split over
    /// segments, a virtual offset past the end of the file into the copy the reader made.
    pub offset: u64,
    /// Where the sub-record starts in the file (for errors).
    pub file_offset: u64,
    pub class_id: u64,
    pub super_id: u64,
    /// The defining class loader's object id; 0 for the boot loader.
    pub loader_id: u64,
    pub instance_size: u32,
    pub static_fields: Vec<StaticFieldRecord>,
    pub instance_fields: Vec<(u64, FieldType)>,
}

/// What a sub-record was.
pub(crate) enum SubRecord {
    Root(RawRoot),
    /// A THREAD OBJECT root also tells which thread object a thread serial stands for.
    ThreadObject {
        id: u64,
        thread_serial: u32,
    },
    ClassDump(ClassDumpRecord),
    /// Instance, object array or primitive array: indexed by the second pass.
    Object,
    /// HEAP DUMP INFO: nothing the model keeps.
    Ignored,
}

/// One parsed sub-record and its length in bytes.
pub(crate) struct Parsed {
    pub len: u64,
    pub record: SubRecord,
}

/// Typed reads with the incomplete/invalid distinction, for one sub-record.
struct Reader<'s, S: RecordBytes, W: IdWidth> {
    src: &'s mut S,
    what: &'static str,
    _width: std::marker::PhantomData<W>,
}

impl<S: RecordBytes, W: IdWidth> Reader<'_, S, W> {
    #[inline(always)]
    fn bytes<const N: usize>(&mut self, pos: u64) -> Result<[u8; N], Stop> {
        let mut out = [0u8; N];
        if self.src.read_into(pos, &mut out) {
            Ok(out)
        } else {
            Err(Stop::Incomplete {
                needed: pos + N as u64,
                what: self.what,
            })
        }
    }

    #[inline(always)]
    fn u8(&mut self, pos: u64) -> Result<u8, Stop> {
        Ok(self.bytes::<1>(pos)?[0])
    }

    #[inline(always)]
    fn u16(&mut self, pos: u64) -> Result<u16, Stop> {
        Ok(u16::from_be_bytes(self.bytes::<2>(pos)?))
    }

    #[inline(always)]
    fn u32(&mut self, pos: u64) -> Result<u32, Stop> {
        Ok(u32::from_be_bytes(self.bytes::<4>(pos)?))
    }

    #[inline(always)]
    fn id(&mut self, pos: u64) -> Result<u64, Stop> {
        if W::SIZE == 4 {
            Ok(u32::from_be_bytes(self.bytes::<4>(pos)?) as u64)
        } else {
            Ok(u64::from_be_bytes(self.bytes::<8>(pos)?))
        }
    }

    /// Fails with `Incomplete` unless `len` bytes exist.
    #[inline(always)]
    fn need(&mut self, len: u64) -> Result<(), Stop> {
        if self.src.has(len) {
            Ok(())
        } else {
            Err(Stop::Incomplete {
                needed: len,
                what: self.what,
            })
        }
    }
}

/// Parses the sub-record whose tag is the first byte of `src`. `offset` (its file offset) is
/// only used in errors.
#[inline]
pub(crate) fn parse_sub_record<S: RecordBytes, W: IdWidth>(
    src: &mut S,
    offset: u64,
) -> Result<Parsed, Stop> {
    let id = W::SIZE as u64;
    let mut r = Reader::<S, W> {
        src,
        what: "heap dump sub-record",
        _width: Default::default(),
    };
    let tag = r.u8(0)?;
    match tag {
        sub::INSTANCE_DUMP => {
            r.what = "instance dump";
            let field_bytes = r.u32(layout::instance_field_count(W::SIZE) as u64)?;
            let len = layout::instance_fields(W::SIZE) as u64 + field_bytes as u64;
            r.need(len)?;
            Ok(Parsed {
                len,
                record: SubRecord::Object,
            })
        }
        sub::OBJECT_ARRAY_DUMP => {
            r.what = "object array dump";
            let length = r.u32(layout::array_length(W::SIZE) as u64)?;
            let len = layout::object_array_elements(W::SIZE) as u64 + length as u64 * id;
            r.need(len)?;
            Ok(Parsed {
                len,
                record: SubRecord::Object,
            })
        }
        sub::PRIMITIVE_ARRAY_DUMP => {
            r.what = "primitive array dump";
            let length = r.u32(layout::array_length(W::SIZE) as u64)?;
            let code = r.u8(layout::primitive_array_type(W::SIZE) as u64)?;
            let element = format::primitive_type(code).ok_or(HprofError::BadBasicType {
                offset,
                code,
                what: r.what,
            })?;
            let len = layout::primitive_array_elements(W::SIZE) as u64
                + length as u64 * format::primitive_size(element) as u64;
            r.need(len)?;
            Ok(Parsed {
                len,
                record: SubRecord::Object,
            })
        }
        sub::PRIMITIVE_ARRAY_NODATA => {
            r.what = "primitive array (no data)";
            let code = r.u8(layout::primitive_array_type(W::SIZE) as u64)?;
            format::primitive_type(code).ok_or(HprofError::BadBasicType {
                offset,
                code,
                what: r.what,
            })?;
            Ok(Parsed {
                len: layout::primitive_array_elements(W::SIZE) as u64,
                record: SubRecord::Object,
            })
        }
        sub::CLASS_DUMP => parse_class_dump(&mut r, offset),
        sub::HEAP_DUMP_INFO => {
            r.what = "heap dump info";
            let len = 1 + 4 + id;
            r.need(len)?;
            Ok(Parsed {
                len,
                record: SubRecord::Ignored,
            })
        }
        sub::ROOT_THREAD_OBJECT => {
            r.what = "thread object root";
            let object = r.id(1)?;
            let thread_serial = r.u32(1 + id)?;
            r.need(1 + id + 8)?;
            Ok(Parsed {
                len: 1 + id + 8,
                record: SubRecord::ThreadObject {
                    id: object,
                    thread_serial,
                },
            })
        }
        _ => {
            let Some((kind, has_owner)) = format::root_kind(tag) else {
                return Err(HprofError::UnknownSubRecord { offset, tag }.into());
            };
            r.what = "GC root";
            let object = r.id(1)?;
            let owner_thread_serial = if has_owner {
                Some(r.u32(1 + id)?)
            } else {
                None
            };
            // Java frame and JNI local roots name the frame: its depth, or -1 for none.
            let frame_depth = if matches!(kind, RootKind::JavaFrame | RootKind::JniLocal) {
                let depth = r.u32(1 + id + 4)?;
                (depth != u32::MAX).then_some(depth)
            } else {
                None
            };
            let len = 1 + id + format::root_trailer_len(tag, W::SIZE as u8) as u64;
            r.need(len)?;
            Ok(Parsed {
                len,
                record: SubRecord::Root(RawRoot {
                    kind,
                    id: object,
                    owner_thread_serial,
                    frame_depth,
                }),
            })
        }
    }
}

fn parse_class_dump<S: RecordBytes, W: IdWidth>(
    r: &mut Reader<'_, S, W>,
    offset: u64,
) -> Result<Parsed, Stop> {
    r.what = "class dump";
    let id = W::SIZE as u64;
    let bad_type = |code| {
        Stop::Invalid(HprofError::BadBasicType {
            offset,
            code,
            what: "class dump",
        })
    };
    let value_size = |code: u8| -> Result<u64, Stop> {
        let ty = format::field_type(code).ok_or_else(|| bad_type(code))?;
        Ok(format::field_size(ty, W::SIZE as u8) as u64)
    };

    // Class id, stack serial, then super, loader, signers, protection domain and two reserved ids.
    let class_id = r.id(1)?;
    let super_id = r.id(1 + id + 4)?;
    let loader_id = r.id(1 + 2 * id + 4)?;
    let instance_size = r.u32(1 + 7 * id + 4)?;
    let mut pos = 1 + 7 * id + 8;

    let constant_pool_len = r.u16(pos)?;
    pos += 2;
    for _ in 0..constant_pool_len {
        // Constant pool index u16, type, value. HotSpot writes none; skip what others write.
        let code = r.u8(pos + 2)?;
        pos += 3 + value_size(code)?;
    }

    let static_count = r.u16(pos)? as u64;
    pos += 2;
    // Each static takes at least a name id, a type byte and a one-byte value.
    r.need(pos + static_count * (id + 2))?;
    let mut static_fields = Vec::with_capacity(static_count as usize);
    for _ in 0..static_count {
        let name_id = r.id(pos)?;
        let code = r.u8(pos + id)?;
        let ty = format::field_type(code).ok_or_else(|| bad_type(code))?;
        let value_pos = pos + id + 1;
        static_fields.push(StaticFieldRecord {
            name_id,
            ty,
            value_pos: value_pos as u32,
        });
        pos = value_pos + format::field_size(ty, W::SIZE as u8) as u64;
    }

    let field_count = r.u16(pos)? as u64;
    pos += 2;
    r.need(pos + field_count * (id + 1))?;
    let mut instance_fields = Vec::with_capacity(field_count as usize);
    for _ in 0..field_count {
        let name_id = r.id(pos)?;
        let code = r.u8(pos + id)?;
        let ty = format::field_type(code).ok_or_else(|| bad_type(code))?;
        instance_fields.push((name_id, ty));
        pos += id + 1;
    }
    r.need(pos)?;

    Ok(Parsed {
        len: pos,
        record: SubRecord::ClassDump(ClassDumpRecord {
            offset,
            file_offset: offset,
            class_id,
            super_id,
            loader_id,
            instance_size,
            static_fields,
            instance_fields,
        }),
    })
}
