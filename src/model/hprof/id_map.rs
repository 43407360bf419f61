//! Hash maps keyed by HPROF ids (string ids, class ids), with a cheap hasher: ids are
//! addresses, so SipHash's resistance to chosen keys buys nothing here and costs 3–4x.

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

/// Multiply-and-fold hash of one u64 (the keys are always u64 ids).
#[derive(Default, Clone, Copy)]
pub(crate) struct IdHasher(u64);

impl Hasher for IdHasher {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        // Only reached for keys other than u64; fold bytes in so it still works.
        for &b in bytes {
            self.write_u64(b as u64);
        }
    }

    #[inline]
    fn write_u64(&mut self, id: u64) {
        // Ids are 8-aligned addresses: multiply moves their varying bits up, and folding the
        // high half down spreads them over the low bits the table indexes with.
        let x = (self.0 ^ id).wrapping_mul(0x9E37_79B9_7F4A_7C15);
        self.0 = x ^ (x >> 32);
    }
}

/// A map keyed by HPROF id.
pub(crate) type IdMap<V> = HashMap<u64, V, BuildHasherDefault<IdHasher>>;
