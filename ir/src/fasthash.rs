//! A fast hasher for the compiler's own maps and sets, whose keys are
//! small ids (node and region indices, ports): one multiply and rotate
//! per word instead of SipHash's rounds. Not resistant to chosen keys,
//! which a compiler's internal tables need not be; deterministic, so no
//! result may depend on iteration order any more than before.

use std::collections::{HashMap, HashSet};
use std::hash::{BuildHasherDefault, Hasher};

/// The hasher: `h = (rotl(h, 5) ^ word) · K` per word.
#[derive(Clone, Copy, Default, Debug)]
pub struct FastHasher {
    hash: u64,
}

/// An odd constant with well-spread bits (from the fractional part of
/// the golden ratio).
const K: u64 = 0x9e37_79b9_7f4a_7c15;

impl FastHasher {
    #[inline]
    fn add(&mut self, word: u64) {
        self.hash = (self.hash.rotate_left(5) ^ word).wrapping_mul(K);
    }
}

impl Hasher for FastHasher {
    #[inline]
    fn write(&mut self, bytes: &[u8]) {
        let mut chunks = bytes.chunks_exact(8);
        for c in &mut chunks {
            let mut w = [0u8; 8];
            w.copy_from_slice(c);
            self.add(u64::from_le_bytes(w));
        }
        let rest = chunks.remainder();
        if !rest.is_empty() {
            let mut w = [0u8; 8];
            w[..rest.len()].copy_from_slice(rest);
            self.add(u64::from_le_bytes(w) ^ ((rest.len() as u64) << 56));
        }
    }

    #[inline]
    fn write_u8(&mut self, i: u8) {
        self.add(u64::from(i));
    }

    #[inline]
    fn write_u16(&mut self, i: u16) {
        self.add(u64::from(i));
    }

    #[inline]
    fn write_u32(&mut self, i: u32) {
        self.add(u64::from(i));
    }

    #[inline]
    fn write_u64(&mut self, i: u64) {
        self.add(i);
    }

    #[inline]
    fn write_usize(&mut self, i: usize) {
        self.add(i as u64);
    }

    #[inline]
    fn finish(&self) -> u64 {
        // Fold the high bits down: hash tables index with the low bits.
        self.hash ^ (self.hash >> 32)
    }
}

/// Builds [`FastHasher`]s.
pub type FastBuild = BuildHasherDefault<FastHasher>;
/// A `HashMap` with [`FastHasher`].
pub type FastMap<K, V> = HashMap<K, V, FastBuild>;
/// A `HashSet` with [`FastHasher`].
pub type FastSet<T> = HashSet<T, FastBuild>;

#[cfg(test)]
mod tests {
    use super::*;
    use std::hash::Hash;

    fn hash<T: Hash>(t: &T) -> u64 {
        let mut h = FastHasher::default();
        t.hash(&mut h);
        h.finish()
    }

    #[test]
    fn equal_keys_hash_equal_and_small_ids_spread() {
        assert_eq!(hash(&(3u32, 7u16)), hash(&(3u32, 7u16)));
        assert_ne!(hash(&(3u32, 7u16)), hash(&(7u32, 3u16)));
        // Consecutive ids land in different buckets of a small table.
        let buckets: FastSet<u64> = (0u32..64).map(|i| hash(&i) & 63).collect();
        assert!(buckets.len() > 32, "{}", buckets.len());
        // Byte strings of different lengths differ.
        assert_ne!(hash(&"ab"), hash(&"ab\0"));
    }

    #[test]
    fn maps_work() {
        let mut m: FastMap<(u32, u32), usize> = FastMap::default();
        for i in 0..1000u32 {
            m.insert((i, i * 7), i as usize);
        }
        assert_eq!(m.len(), 1000);
        assert_eq!(m.get(&(10, 70)), Some(&10));
        assert_eq!(m.get(&(10, 71)), None);
    }
}
