//! A fixed-size set of object indexes, one bit per object: the walk asks it for every
//! reference, so it must stay small enough to live in cache.

use crate::heap::ObjectIndex;

/// A set of object indexes below a fixed length.
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
}
