//! The two per-object arrays that dominate the model's memory, in compact forms: the sorted id
//! array with its bucket directory, and the record offsets as 32-bit deltas.

use crate::parallel::{self, on_each};

/// Sorted object ids, and the map back from id to dense index.
///
/// References are followed by id, so `index_of` runs once per edge of every traversal: it is
/// the hottest lookup of the whole tool. Ids are object addresses, aligned and clustered (heap
/// regions, the CDS archive at the top of the heap), so the usual lookup is a bitmap of the
/// address space with one bit per aligned slot, stored in 64-byte lines that carry their own
/// rank counts: one cache line answers whether an id exists and which index it has. Pages of
/// the address space without objects cost 4 bytes. When the ids are spread too thinly for that
/// to pay (corrupt or unusual dumps), a directory over the sorted ids takes over.
///
/// With the bitmap, the sorted ids themselves are not kept (8 bytes per object, the largest
/// array of the model): every object's record starts with its id, so `index → id` reads it
/// there ([`crate::heap::HeapGraph::id`]). The directory needs them for its binary search.
pub(crate) struct IdIndex {
    len: usize,
    lookup: Lookup,
}

enum Lookup {
    Bitmap(RankBitmap),
    Directory {
        /// Strictly ascending; `index → id`.
        ids: Vec<u64>,
        directory: Directory,
    },
}

impl IdIndex {
    /// Builds the lookup over `ids`, which must be strictly ascending.
    pub(crate) fn new(ids: Vec<u64>) -> IdIndex {
        debug_assert!(ids.windows(2).all(|w| w[0] < w[1]));
        let len = ids.len();
        let lookup = match RankBitmap::new(&ids) {
            Some(bitmap) => Lookup::Bitmap(bitmap),
            None => Lookup::Directory {
                directory: Directory::new(&ids),
                ids,
            },
        };
        IdIndex { len, lookup }
    }

    /// The same, always with the directory (to test it).
    #[cfg(test)]
    fn with_directory(ids: Vec<u64>) -> IdIndex {
        IdIndex {
            len: ids.len(),
            lookup: Lookup::Directory {
                directory: Directory::new(&ids),
                ids,
            },
        }
    }

    /// The dense index of `id`, if an object has it.
    #[inline(always)]
    pub(crate) fn index_of(&self, id: u64) -> Option<u32> {
        match &self.lookup {
            Lookup::Bitmap(bitmap) => bitmap.rank_of(id),
            Lookup::Directory { ids, directory } => directory.index_of(ids, id),
        }
    }

    /// The id of object `index` where the index keeps ids (the directory); `None` with the
    /// bitmap, where the object's record has it.
    #[inline(always)]
    pub(crate) fn stored_id(&self, index: u32) -> Option<u64> {
        match &self.lookup {
            Lookup::Bitmap(_) => None,
            Lookup::Directory { ids, .. } => ids.get(index as usize).copied(),
        }
    }

    pub(crate) fn len(&self) -> usize {
        self.len
    }

    pub(crate) fn heap_bytes(&self) -> usize {
        match &self.lookup {
            Lookup::Bitmap(bitmap) => bitmap.heap_bytes(),
            Lookup::Directory { ids, directory } => ids.capacity() * 8 + directory.heap_bytes(),
        }
    }
}

/// 64 bytes: six bitmap words and the rank (number of set bits before) of each word.
#[derive(Clone, Copy, Default)]
#[repr(C, align(64))]
struct Line {
    /// Set bits before this line.
    base_rank: u32,
    /// Set bits before each word, counted from the start of the line.
    word_ranks: [u16; WORDS_PER_LINE],
    words: [u64; WORDS_PER_LINE],
}

const WORDS_PER_LINE: usize = 6;
const BITS_PER_LINE: usize = WORDS_PER_LINE * 64;
/// Slots per page: 8192 (64 KiB of address space at 8-byte alignment). Small enough that the
/// gaps between heap regions cost only page-table entries, large enough for a small table.
const PAGE_BITS_LOG2: u32 = 13;
const PAGE_BITS: usize = 1 << PAGE_BITS_LOG2;
const LINES_PER_PAGE: usize = PAGE_BITS.div_ceil(BITS_PER_LINE);
/// Page-table entry of a page without objects.
const EMPTY_PAGE: u32 = u32::MAX;

/// The bitmap-with-ranks lookup of [`IdIndex`].
struct RankBitmap {
    min: u64,
    /// `max - min`.
    span: u64,
    /// Every `id - min` is a multiple of `1 << align_shift`.
    align_shift: u32,
    /// Page number → index of the page's first line, or [`EMPTY_PAGE`].
    pages: Vec<u32>,
    lines: Vec<Line>,
}

impl RankBitmap {
    /// `None` when the bitmap would take more than [`BITMAP_BUDGET_PER_ID`] bytes per id.
    fn new(ids: &[u64]) -> Option<RankBitmap> {
        let (&min, &max) = (ids.first()?, ids.last()?);
        let span = max - min;
        // Large id arrays are done in two parts on two threads, where there are two.
        let threads = parallel::threads(ids.len() >= PARALLEL_MIN_IDS);
        let halves: Vec<&[u64]> = ids.chunks(ids.len().div_ceil(threads)).collect();
        let spread = on_each(halves, |part| {
            part.iter().fold(0, |acc, &id| acc | (id - min))
        })
        .into_iter()
        .fold(0, |acc, part| acc | part);
        let align_shift = if spread == 0 {
            0
        } else {
            spread.trailing_zeros()
        };
        let page_of = |id: u64| (id - min) >> align_shift >> PAGE_BITS_LOG2;
        let page_count = page_of(max) + 1;
        // Parts that own whole pages: cut where a page starts.
        let parts: Vec<&[u64]> = if threads > 1 {
            let middle_page = page_of(ids[ids.len() / 2]);
            let (first, second) =
                ids.split_at(ids.partition_point(|&id| page_of(id) < middle_page));
            vec![first, second]
        } else {
            vec![ids]
        };
        // Count the pages that hold ids before allocating anything sized by the span.
        let used_pages = on_each(parts.clone(), |part| {
            let mut used = 0usize;
            let mut last_page = u64::MAX;
            for &id in part.iter() {
                let page = page_of(id);
                if page != last_page {
                    used += 1;
                    last_page = page;
                }
            }
            used
        });
        let total_used: usize = used_pages.iter().sum();
        let bytes = page_count * 4
            + total_used as u64 * (LINES_PER_PAGE * std::mem::size_of::<Line>()) as u64;
        if bytes > BITMAP_BUDGET_PER_ID * ids.len() as u64 + BITMAP_BUDGET_FLOOR {
            return None;
        }

        let mut pages = vec![EMPTY_PAGE; page_count as usize];
        let mut lines = vec![Line::default(); total_used * LINES_PER_PAGE];
        // Each part fills its own pages and lines.
        let mut shares = Vec::with_capacity(parts.len());
        let (mut pages_left, mut lines_left) = (&mut pages[..], &mut lines[..]);
        let (mut first_page, mut first_line, mut first_rank) = (0, 0, 0);
        for (i, (part, used)) in parts.iter().zip(&used_pages).enumerate() {
            let end_page = match parts.get(i + 1).and_then(|next| next.first()) {
                Some(&next_first) => page_of(next_first) as usize,
                None => page_count as usize,
            };
            let (part_pages, pages_rest) =
                std::mem::take(&mut pages_left).split_at_mut(end_page - first_page);
            let (part_lines, lines_rest) =
                std::mem::take(&mut lines_left).split_at_mut(used * LINES_PER_PAGE);
            (pages_left, lines_left) = (pages_rest, lines_rest);
            shares.push(BitmapShare {
                ids: part,
                pages: part_pages,
                first_page,
                lines: part_lines,
                first_line,
                first_rank,
            });
            first_page = end_page;
            first_line += used * LINES_PER_PAGE;
            first_rank += part.len() as u32;
        }
        on_each(shares, |share| share.fill(min, align_shift));
        Some(RankBitmap {
            min,
            span,
            align_shift,
            pages,
            lines,
        })
    }

    #[inline(always)]
    fn rank_of(&self, id: u64) -> Option<u32> {
        // Ids below `min` wrap around to huge values and fail the span test too.
        let relative = id.wrapping_sub(self.min);
        if relative > self.span || relative & ((1 << self.align_shift) - 1) != 0 {
            return None;
        }
        let slot = (relative >> self.align_shift) as usize;
        let first_line = *self.pages.get(slot >> PAGE_BITS_LOG2)?;
        if first_line == EMPTY_PAGE {
            return None;
        }
        let bit = slot & (PAGE_BITS - 1);
        let line = self.lines.get(first_line as usize + bit / BITS_PER_LINE)?;
        let word_index = (bit % BITS_PER_LINE) / 64;
        let word = line.words[word_index];
        let mask = 1u64 << (bit % 64);
        if word & mask == 0 {
            return None;
        }
        Some(line.base_rank + line.word_ranks[word_index] as u32 + (word & (mask - 1)).count_ones())
    }

    fn heap_bytes(&self) -> usize {
        self.pages.capacity() * 4 + self.lines.capacity() * std::mem::size_of::<Line>()
    }
}

/// Below this many ids the bitmap is built on one thread.
const PARALLEL_MIN_IDS: usize = 1 << 16;

/// One thread's part of a [`RankBitmap`] being built: ids that fill whole pages.
struct BitmapShare<'a> {
    ids: &'a [u64],
    /// The part's pages: `pages[0]` is page `first_page` of the bitmap.
    pages: &'a mut [u32],
    first_page: usize,
    /// The lines of those pages: `lines[0]` is line `first_line`.
    lines: &'a mut [Line],
    first_line: usize,
    /// Rank of the part's first id.
    first_rank: u32,
}

impl BitmapShare<'_> {
    /// Sets the bits of the part's ids and the ranks of its lines.
    fn fill(self, min: u64, align_shift: u32) {
        let mut next_line = 0;
        for &id in self.ids {
            let slot = ((id - min) >> align_shift) as usize;
            let page = &mut self.pages[(slot >> PAGE_BITS_LOG2) - self.first_page];
            if *page == EMPTY_PAGE {
                *page = (self.first_line + next_line) as u32;
                next_line += LINES_PER_PAGE;
            }
            let bit = slot & (PAGE_BITS - 1);
            let line = &mut self.lines[*page as usize - self.first_line + bit / BITS_PER_LINE];
            line.words[(bit % BITS_PER_LINE) / 64] |= 1 << (bit % 64);
        }
        let mut rank = self.first_rank;
        for line in self.lines {
            line.base_rank = rank;
            let mut within = 0u16;
            for (word_rank, word) in line.word_ranks.iter_mut().zip(line.words) {
                *word_rank = within;
                within += word.count_ones() as u16;
            }
            rank += within as u32;
        }
    }
}

/// Largest bitmap, in bytes per id (plus a floor for tiny heaps), before the directory takes
/// over: what the directory would take instead, the sorted ids and a bucket entry per
/// [`IDS_PER_BUCKET`] ids. Live heaps of 64-bit JVMs with a million objects measure about 0.6 per
/// id (most of it page-table entries for the address space between heap regions); a test JVM
/// of 80 k objects in a heap reserved over 6 GiB measures 5.5, all but 0.3 of it page-table
/// entries, and with the directory its every lookup was a search (62 % of decoding
/// references, a sixth of a snapshot's analysis).
const BITMAP_BUDGET_PER_ID: u64 = 8 + 4 / IDS_PER_BUCKET as u64;
const BITMAP_BUDGET_FLOOR: u64 = 1 << 16;

/// The fallback lookup: buckets over the id range, each pointing at its first id in the sorted
/// array, then a short search.
struct Directory {
    min: u64,
    /// `max - min`.
    span: u64,
    /// Bucket of an id: `(id - min) >> shift`.
    shift: u32,
    /// `bucket_starts[b]` = index of the first id in bucket `b` or later; one extra entry at
    /// the end holds `ids.len()`.
    bucket_starts: Vec<u32>,
}

/// Average ids per bucket when ids are spread evenly: a directory entry (4 bytes) per four
/// objects costs 1 byte per object and keeps the search within a bucket short.
const IDS_PER_BUCKET: usize = 4;

impl Directory {
    fn new(ids: &[u64]) -> Directory {
        let (Some(&min), Some(&max)) = (ids.first(), ids.last()) else {
            return Directory {
                min: 1,
                span: 0,
                shift: 0,
                bucket_starts: vec![0, 0],
            };
        };
        let span = max - min;
        let target_buckets = (ids.len() / IDS_PER_BUCKET).max(1) as u64;
        // Capped so `>> shift` stays defined; a span near 2^64 then gets two buckets.
        let mut shift = 0;
        while shift < 63 && (span >> shift) >= target_buckets {
            shift += 1;
        }
        let buckets = (span >> shift) as usize + 1;
        let mut bucket_starts = Vec::with_capacity(buckets + 1);
        for (index, &id) in ids.iter().enumerate() {
            let bucket = ((id - min) >> shift) as usize;
            while bucket_starts.len() <= bucket {
                bucket_starts.push(index as u32);
            }
        }
        bucket_starts.resize(buckets + 1, ids.len() as u32);
        Directory {
            min,
            span,
            shift,
            bucket_starts,
        }
    }

    #[inline(always)]
    fn index_of(&self, ids: &[u64], id: u64) -> Option<u32> {
        let relative = id.wrapping_sub(self.min);
        if relative > self.span {
            return None;
        }
        let bucket = (relative >> self.shift) as usize;
        let start = *self.bucket_starts.get(bucket)? as usize;
        let end = *self.bucket_starts.get(bucket + 1)? as usize;
        let candidates = ids.get(start..end)?;
        candidates
            .binary_search(&id)
            .ok()
            .map(|i| (start + i) as u32)
    }

    fn heap_bytes(&self) -> usize {
        self.bucket_starts.capacity() * 4
    }
}

/// Record offsets (u64) stored as a u32 delta per object from a u64 base per block of
/// [`OFFSET_BLOCK`] objects: 4.1 bytes per object instead of 8. Objects of a block are
/// neighbours in the dump, so their deltas fit; one that doesn't (a block spanning more than
/// 4 GiB: huge arrays, or objects stored far out of address order) goes to a side list.
pub(crate) struct RecordOffsets {
    block_bases: Vec<u64>,
    deltas: Vec<u32>,
    /// (object index, offset) of objects whose delta doesn't fit, sorted by index.
    far: Vec<(u32, u64)>,
}

const OFFSET_BLOCK_SHIFT: u32 = 6;
/// Objects per block: small enough that blocks rarely span 4 GiB, large enough that the bases
/// cost an eighth of a byte per object.
const OFFSET_BLOCK: usize = 1 << OFFSET_BLOCK_SHIFT;
/// Delta marking an offset kept in [`RecordOffsets::far`].
const FAR: u32 = u32::MAX;

/// Builds [`RecordOffsets`] in place, a block at a time (no full-width copy of the offsets
/// ever exists), from one or several threads each pushing the offsets of a consecutive share
/// of the objects ([`OffsetShare`]). A share encodes the blocks that lie wholly inside it; the
/// few blocks that straddle two shares are encoded at the end from the offsets the shares set
/// aside.
pub(crate) struct InPlaceOffsets {
    deltas: Vec<u32>,
}

/// What an [`OffsetShare`] leaves for [`InPlaceOffsets::finish`].
pub(crate) struct SharedBlocks {
    first_block: usize,
    bases: Vec<u64>,
    far: Vec<(u32, u64)>,
    /// (object index, offset) of objects in blocks shared with other shares.
    loose: Vec<(u32, u64)>,
}

/// One thread's consecutive objects of an [`InPlaceOffsets`].
pub(crate) struct OffsetShare<'a> {
    /// Index of the share's first object.
    start: usize,
    deltas: &'a mut [u32],
    total: usize,
    pushed: usize,
    /// Offsets of the current block so far.
    block: [u64; OFFSET_BLOCK],
    done: SharedBlocks,
}

impl InPlaceOffsets {
    pub(crate) fn new(total: usize) -> InPlaceOffsets {
        InPlaceOffsets {
            // Zeroed memory comes from the system as it is, so the threads that fill parts
            // of it also share the page faults.
            deltas: vec![0; total],
        }
    }

    /// Cuts the objects into shares of `sizes` objects each, in order.
    pub(crate) fn shares(&mut self, sizes: &[usize]) -> Vec<OffsetShare<'_>> {
        let total = self.deltas.len();
        let mut rest = &mut self.deltas[..];
        let mut start = 0;
        let mut shares = Vec::with_capacity(sizes.len());
        for &size in sizes {
            let (deltas, later) = std::mem::take(&mut rest).split_at_mut(size);
            rest = later;
            shares.push(OffsetShare {
                start,
                deltas,
                total,
                pushed: 0,
                block: [0; OFFSET_BLOCK],
                done: SharedBlocks {
                    first_block: start.div_ceil(OFFSET_BLOCK),
                    bases: Vec::new(),
                    far: Vec::new(),
                    loose: Vec::new(),
                },
            });
            start += size;
        }
        shares
    }

    /// Puts the shares' work together; `done` in share order, every share full.
    pub(crate) fn finish(mut self, done: Vec<SharedBlocks>) -> RecordOffsets {
        let total = self.deltas.len();
        let mut block_bases = vec![0; total.div_ceil(OFFSET_BLOCK)];
        let mut far = Vec::new();
        let mut loose = Vec::new();
        for share in done {
            block_bases[share.first_block..share.first_block + share.bases.len()]
                .copy_from_slice(&share.bases);
            far.extend(share.far);
            loose.extend(share.loose);
        }
        // The straddling blocks, whose offsets are all in `loose`, in index order.
        let mut offsets = Vec::with_capacity(OFFSET_BLOCK);
        for piece in
            loose.chunk_by(|a, b| a.0 as usize / OFFSET_BLOCK == b.0 as usize / OFFSET_BLOCK)
        {
            let first = piece[0].0 as usize;
            offsets.clear();
            offsets.extend(piece.iter().map(|&(_, offset)| offset));
            block_bases[first / OFFSET_BLOCK] = encode_block(
                &offsets,
                first,
                &mut self.deltas[first..first + offsets.len()],
                &mut far,
            );
        }
        far.sort_unstable_by_key(|&(index, _)| index);
        RecordOffsets {
            block_bases,
            deltas: self.deltas,
            far,
        }
    }
}

impl OffsetShare<'_> {
    /// The offset of the share's next object.
    #[inline]
    pub(crate) fn push(&mut self, offset: u64) {
        let index = self.start + self.pushed;
        self.pushed += 1;
        let block_start = index / OFFSET_BLOCK * OFFSET_BLOCK;
        let block_end = (block_start + OFFSET_BLOCK).min(self.total);
        if block_start < self.start || block_end > self.start + self.deltas.len() {
            self.done.loose.push((index as u32, offset));
            return;
        }
        self.block[index - block_start] = offset;
        if index + 1 == block_end {
            let from = block_start - self.start;
            let base = encode_block(
                &self.block[..block_end - block_start],
                block_start,
                &mut self.deltas[from..from + (block_end - block_start)],
                &mut self.done.far,
            );
            self.done.bases.push(base);
        }
    }

    /// Whether every object of the share was pushed.
    pub(crate) fn is_full(&self) -> bool {
        self.pushed == self.deltas.len()
    }

    pub(crate) fn finish(self) -> SharedBlocks {
        self.done
    }
}

/// Writes the deltas of one block of offsets (objects from `first_index` on) and returns its
/// base; offsets too far from the base go to `far`, in index order.
fn encode_block(
    block: &[u64],
    first_index: usize,
    deltas: &mut [u32],
    far: &mut Vec<(u32, u64)>,
) -> u64 {
    let base = block.iter().copied().min().unwrap_or(0);
    for (i, (&offset, delta)) in block.iter().zip(deltas).enumerate() {
        let from_base = offset - base;
        if from_base < FAR as u64 {
            *delta = from_base as u32;
        } else {
            *delta = FAR;
            far.push(((first_index + i) as u32, offset));
        }
    }
    base
}

/// Builds [`RecordOffsets`] one offset at a time without knowing how many will come (for a
/// dump read while it is written): the same blocks, encoded as each one fills.
pub(crate) struct GrowingOffsets {
    block_bases: Vec<u64>,
    deltas: Vec<u32>,
    far: Vec<(u32, u64)>,
    /// Offsets of the current block so far.
    block: [u64; OFFSET_BLOCK],
}

impl GrowingOffsets {
    /// Room for `objects` offsets.
    pub(crate) fn with_capacity(objects: usize) -> GrowingOffsets {
        GrowingOffsets {
            block_bases: Vec::with_capacity(objects.div_ceil(OFFSET_BLOCK)),
            deltas: Vec::with_capacity(objects),
            far: Vec::new(),
            block: [0; OFFSET_BLOCK],
        }
    }

    /// How many offsets were pushed.
    pub(crate) fn len(&self) -> usize {
        self.deltas.len()
    }

    fn pending(&self) -> usize {
        self.deltas.len() - self.block_bases.len() * OFFSET_BLOCK
    }

    /// The offset of the next object.
    #[inline]
    pub(crate) fn push(&mut self, offset: u64) {
        let in_block = self.pending();
        self.block[in_block] = offset;
        // A placeholder until the block is encoded, so that `deltas` counts the objects.
        self.deltas.push(0);
        if in_block + 1 == OFFSET_BLOCK {
            self.encode_last_block();
        }
    }

    fn encode_last_block(&mut self) {
        let count = self.pending();
        let first = self.deltas.len() - count;
        let base = encode_block(
            &self.block[..count],
            first,
            &mut self.deltas[first..],
            &mut self.far,
        );
        self.block_bases.push(base);
    }

    /// The offsets, in room of their size if `shrink`.
    pub(crate) fn finish(mut self, shrink: bool) -> RecordOffsets {
        if self.pending() > 0 {
            self.encode_last_block();
        }
        if shrink {
            self.deltas.shrink_to_fit();
            self.block_bases.shrink_to_fit();
        }
        RecordOffsets {
            block_bases: self.block_bases,
            deltas: self.deltas,
            far: self.far,
        }
    }
}

impl RecordOffsets {
    #[cfg(test)]
    fn new(offsets: &[u64]) -> RecordOffsets {
        let mut in_place = InPlaceOffsets::new(offsets.len());
        let mut share = in_place.shares(&[offsets.len()]).pop().expect("one share");
        for &offset in offsets {
            share.push(offset);
        }
        let done = share.finish();
        in_place.finish(vec![done])
    }

    #[inline(always)]
    pub(crate) fn get(&self, index: u32) -> u64 {
        let delta = self.deltas[index as usize];
        if delta != FAR {
            self.block_bases[(index >> OFFSET_BLOCK_SHIFT) as usize] + delta as u64
        } else {
            self.far_offset(index)
        }
    }

    /// Asks the CPU to load the entry of `index`.
    #[inline(always)]
    pub(crate) fn prefetch(&self, index: u32) {
        if let Some(delta) = self.deltas.get(index as usize) {
            super::record::prefetch_address(delta as *const u32);
        }
    }

    #[cold]
    fn far_offset(&self, index: u32) -> u64 {
        match self.far.binary_search_by_key(&index, |&(i, _)| i) {
            Ok(position) => self.far[position].1,
            // Unreachable by construction; an offset past every byte makes readers see nothing.
            Err(_) => u64::MAX,
        }
    }

    pub(crate) fn heap_bytes(&self) -> usize {
        self.block_bases.capacity() * 8 + self.deltas.capacity() * 4 + self.far.capacity() * 16
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Both lookups of `ids`, with which one `IdIndex::new` chose.
    fn both_lookups(ids: &[u64]) -> [(IdIndex, &'static str); 2] {
        let chosen = IdIndex::new(ids.to_vec());
        let name = if matches!(chosen.lookup, Lookup::Bitmap(_)) {
            "bitmap"
        } else {
            "directory"
        };
        [
            (chosen, name),
            (IdIndex::with_directory(ids.to_vec()), "directory"),
        ]
    }

    fn assert_finds_exactly(ids: &[u64], probes: &[u64]) {
        for (index, lookup) in both_lookups(ids) {
            for (i, &id) in ids.iter().enumerate() {
                assert_eq!(index.index_of(id), Some(i as u32), "{lookup}: id {id:x}");
                // The directory keeps the ids; the bitmap leaves them to the records.
                let stored = index.stored_id(i as u32);
                assert!(
                    stored.is_none() || stored == Some(id),
                    "{lookup}: id {id:x}"
                );
                assert_eq!(stored.is_some(), lookup == "directory", "{lookup}");
            }
            for &probe in probes {
                assert_eq!(
                    index.index_of(probe),
                    ids.binary_search(&probe).ok().map(|i| i as u32),
                    "{lookup}: {probe:x}"
                );
            }
        }
    }

    #[test]
    fn id_index_finds_every_id_and_nothing_else() {
        // Dense clusters far apart, like heap regions and the CDS archive.
        let mut ids: Vec<u64> = (0..10_000u64)
            .map(|i| 0xc000_0000 + i * 64 + (i % 7) * 8)
            .collect();
        ids.extend((0..3000u64).map(|i| 0xd000_0000 + i * 24));
        ids.extend((0..100u64).map(|i| 0xfff0_0000 + i * 16));
        assert!(matches!(
            IdIndex::new(ids.clone()).lookup,
            Lookup::Bitmap(_)
        ));
        let mut probes: Vec<u64> = ids
            .iter()
            .flat_map(|&id| [id - 8, id + 4, id + 8, id + 1])
            .collect();
        probes.extend([
            0,
            0xbfff_fff8,
            0xc000_0000 + 640_000 * 2,
            u64::MAX,
            0x1_0000_0000,
        ]);
        assert_finds_exactly(&ids, &probes);
    }

    #[test]
    fn a_large_id_index_built_in_two_parts_finds_every_id() {
        // Enough ids for two threads, 16-byte aligned, in two clusters with the middle id
        // inside the first.
        let mut ids: Vec<u64> = (0..150_000u64)
            .map(|i| 0x8_0000_0000 + i * 48 + (i % 3) * 16)
            .collect();
        ids.extend((0..50_000u64).map(|i| 0x9_0000_0000 + i * 16));
        let index = IdIndex::new(ids.clone());
        let Lookup::Bitmap(bitmap) = &index.lookup else {
            panic!("a bitmap fits these ids");
        };
        assert_eq!(bitmap.align_shift, 4);
        let probes: Vec<u64> = ids
            .iter()
            .step_by(97)
            .flat_map(|&id| [id - 8, id + 16, id + 1])
            .collect();
        assert_finds_exactly(&ids, &probes);
    }

    #[test]
    fn id_index_handles_tiny_sparse_and_unaligned_sets() {
        assert_finds_exactly(&[], &[0, 1, u64::MAX]);
        assert_finds_exactly(&[42], &[41, 43, 0]);
        assert_finds_exactly(&[1, u64::MAX], &[0, 2, u64::MAX - 1]);
        // Unaligned ids, and ids spread so thinly that only the directory fits the budget.
        let odd: Vec<u64> = (0..5000u64).map(|i| 1001 + i * 3).collect();
        assert_finds_exactly(&odd, &[1000, 1002, 1004, 20_000]);
        let sparse: Vec<u64> = (0..5000u64).map(|i| i * ((1 << 40) + 8)).collect();
        assert!(matches!(
            IdIndex::new(sparse.clone()).lookup,
            Lookup::Directory { .. }
        ));
        assert_finds_exactly(&sparse, &[1, (3 << 40) + 16, u64::MAX]);
        // Perfectly aligned ids far apart are dense in units of their alignment.
        let aligned: Vec<u64> = (0..5000u64).map(|i| i << 40).collect();
        assert!(matches!(
            IdIndex::new(aligned.clone()).lookup,
            Lookup::Bitmap(_)
        ));
        assert_finds_exactly(&aligned, &[1, (3 << 40) + 8, u64::MAX]);
    }

    #[test]
    fn a_small_heap_in_a_large_reserved_range_gets_the_bitmap() {
        // As in a test JVM: 84 k objects in 58 pages of a heap reserved over 6 GiB, where the
        // page table (4 bytes per 64 KiB) outweighs the lines.
        let ids: Vec<u64> = (0..58u64)
            .flat_map(|page| {
                let start = 0x6_0000_0000 + page * (100 << 20);
                (0..1452u64).map(move |i| start + i * 40)
            })
            .collect();
        let index = IdIndex::new(ids.clone());
        assert!(matches!(index.lookup, Lookup::Bitmap(_)));
        let directory = IdIndex::with_directory(ids.clone());
        assert!(
            index.heap_bytes() < directory.heap_bytes(),
            "bitmap {} bytes, directory {}",
            index.heap_bytes(),
            directory.heap_bytes()
        );
        let probes: Vec<u64> = ids.iter().step_by(13).map(|&id| id + 8).collect();
        assert_finds_exactly(&ids, &probes);
    }

    #[test]
    fn bitmap_stays_within_its_budget() {
        let ids: Vec<u64> = (0..100_000u64).map(|i| 0x7_0000_0000 + i * 32).collect();
        let index = IdIndex::new(ids);
        assert!(matches!(index.lookup, Lookup::Bitmap(_)));
        // The bitmap keeps no id array: what it holds is the lookup alone.
        let lookup_bytes = index.heap_bytes();
        assert!(lookup_bytes < 100_000, "{lookup_bytes} bytes for 100k ids");
    }

    /// Offsets with a block that spans more than 4 GiB, descending order inside a block, and
    /// a last block that isn't full.
    fn awkward_offsets() -> Vec<u64> {
        let mut offsets: Vec<u64> = (0..1000u64).map(|i| 100 + i * 40).collect();
        offsets[130] = 9 << 32;
        offsets[131] = (9 << 32) - 8;
        offsets.extend((0..70u64).rev().map(|i| (20 << 32) + i * 16));
        offsets
    }

    fn assert_round_trip(compact: &RecordOffsets, offsets: &[u64], how: &str) {
        for (i, &offset) in offsets.iter().enumerate() {
            assert_eq!(compact.get(i as u32), offset, "{how}: offset {i}");
        }
    }

    #[test]
    fn record_offsets_round_trip_including_far_ones() {
        let offsets = awkward_offsets();
        assert_round_trip(&RecordOffsets::new(&offsets), &offsets, "builder");
    }

    #[test]
    fn record_offsets_built_in_shares_round_trip() {
        let offsets = awkward_offsets();
        // Shares that start and end inside blocks, smaller than a block, empty, and one
        // that straddles the far block.
        for sizes in [
            vec![offsets.len()],
            vec![64, offsets.len() - 64],
            vec![10, 0, 20, 100, 3, offsets.len() - 133],
            vec![131, 1, 500, offsets.len() - 632],
        ] {
            let mut in_place = InPlaceOffsets::new(offsets.len());
            let mut shares = in_place.shares(&sizes);
            let mut next = offsets.iter();
            for share in &mut shares {
                while !share.is_full() {
                    share.push(*next.next().unwrap());
                }
            }
            let done = shares.into_iter().map(OffsetShare::finish).collect();
            assert_round_trip(&in_place.finish(done), &offsets, &format!("{sizes:?}"));
        }
    }
}
