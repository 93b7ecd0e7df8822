//! A fast hash for maps keyed by grid coordinates (cells, samples, bricks): the lookups sit on
//! the hottest paths (every collision query), and the keys are grid positions, not input an
//! attacker shapes, so SipHash's protection buys nothing there.

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

/// A map keyed by grid coordinates, hashed with [`CellHasher`].
pub type CellMap<V> = HashMap<[i32; 3], V, BuildHasherDefault<CellHasher>>;

/// A multiply-rotate hash (the Fx hash of rustc) for small integer keys such as cells.
#[derive(Debug, Default, Clone, Copy)]
pub struct CellHasher {
    hash: u64,
}

impl CellHasher {
    const MULTIPLIER: u64 = 0x51_7c_c1_b7_27_22_0a_95;

    fn add(&mut self, word: u64) {
        self.hash = (self.hash.rotate_left(5) ^ word).wrapping_mul(Self::MULTIPLIER);
    }
}

impl Hasher for CellHasher {
    fn write(&mut self, bytes: &[u8]) {
        let mut chunks = bytes.chunks_exact(8);
        for chunk in &mut chunks {
            let mut word = [0u8; 8];
            word.copy_from_slice(chunk);
            self.add(u64::from_le_bytes(word));
        }
        let rest = chunks.remainder();
        if !rest.is_empty() {
            let mut word = [0u8; 8];
            word[..rest.len()].copy_from_slice(rest);
            self.add(u64::from_le_bytes(word));
        }
    }

    fn write_i32(&mut self, value: i32) {
        self.add(u64::from(value as u32));
    }

    fn write_usize(&mut self, value: usize) {
        self.add(value as u64);
    }

    fn finish(&self) -> u64 {
        self.hash
    }
}
