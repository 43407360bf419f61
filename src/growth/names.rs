//! Names that outlive one snapshot.
//!
//! Class and field indexes are only valid inside the snapshot that produced them, but a path
//! must be matched across snapshots. Every name a path key uses is interned here once, so keys
//! compare as integers and stay comparable from one snapshot to the next.

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

/// Interned name: an index into [`Names`].
pub type NameId = u32;

/// Interner shared by every snapshot of one growth search.
#[derive(Debug, Default)]
pub struct Names {
    // Every class and field name of a snapshot is looked up here, at every snapshot.
    ids: FastMap<Box<str>, NameId>,
    names: Vec<Box<str>>,
}

impl Names {
    /// The id of `name`, interning it on first use.
    pub fn intern(&mut self, name: &str) -> NameId {
        if let Some(&id) = self.ids.get(name) {
            return id;
        }
        let id = NameId::try_from(self.names.len()).expect("fewer than 2^32 distinct names");
        self.names.push(name.into());
        self.ids.insert(name.into(), id);
        id
    }

    /// The name behind `id`.
    pub fn get(&self, id: NameId) -> &str {
        &self.names[id as usize]
    }
}

/// A fast hasher for small integer keys (the multiply-rotate scheme rustc uses). The path tree
/// looks up a child for every newly reached object, so SipHash's cost would show.
#[derive(Default, Clone, Copy)]
pub(crate) struct FastHasher(u64);

const SEED: u64 = 0x51_7c_c1_b7_27_22_0a_95;

impl Hasher for FastHasher {
    fn write(&mut self, bytes: &[u8]) {
        for chunk in bytes.chunks(8) {
            let mut word = [0u8; 8];
            word[..chunk.len()].copy_from_slice(chunk);
            self.write_u64(u64::from_le_bytes(word));
        }
    }
    fn write_u32(&mut self, value: u32) {
        self.write_u64(u64::from(value));
    }
    fn write_u64(&mut self, value: u64) {
        self.0 = (self.0.rotate_left(5) ^ value).wrapping_mul(SEED);
    }
    fn write_u8(&mut self, value: u8) {
        self.write_u64(u64::from(value));
    }
    fn write_usize(&mut self, value: usize) {
        self.write_u64(value as u64);
    }
    fn finish(&self) -> u64 {
        self.0
    }
}

pub(crate) type FastMap<K, V> = HashMap<K, V, BuildHasherDefault<FastHasher>>;
