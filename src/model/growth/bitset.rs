//! A fixed-size set of object indexes, one bit per object: the walk asks it for every
//! reference, so it must stay small enough to live in cache.

use crate::heap::ObjectIndex;

/// A set of object indexes below a fixed length.
#[derive(Clone)]
pub(crate) struct BitSet {
    words: Vec<u64>,
}

impl BitSet {
    pub(crate) fn new(len: usize) -> BitSet {
        BitSet {
            words: vec![0; len.div_ceil(64)],
        }
    }

    #[inline]
    pub(crate) fn contains(&self, index: ObjectIndex) -> bool {
        self.words[index as usize / 64] & (1 << (index % 64)) != 0
    }

    /// Adds `index`; returns whether it was there already.
    #[inline]
    pub(crate) fn test_and_set(&mut self, index: ObjectIndex) -> bool {
        let word = &mut self.words[index as usize / 64];
        let bit = 1 << (index % 64);
        let was_set = *word & bit != 0;
        *word |= bit;
        was_set
    }

    #[inline]
    pub(crate) fn remove(&mut self, index: ObjectIndex) {
        self.words[index as usize / 64] &= !(1 << (index % 64));
    }

    /// Heap bytes used.
    pub(crate) fn memory_bytes(&self) -> usize {
        self.words.capacity() * 8
    }

    /// The indexes in the set, in ascending order.
    pub(crate) fn iter(&self) -> impl Iterator<Item = ObjectIndex> + '_ {
        self.words.iter().enumerate().flat_map(|(at, &word)| {
            let base = at as ObjectIndex * 64;
            let mut rest = word;
            std::iter::from_fn(move || {
                if rest == 0 {
                    return None;
                }
                let bit = rest.trailing_zeros();
                rest &= rest - 1;
                Some(base + bit)
            })
        })
    }
}
