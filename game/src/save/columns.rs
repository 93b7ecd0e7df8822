//! The block store as columns: one list per field over the store's slots, the cells as steps
//! from the block before. A city's blocks lie in rows, so the steps repeat and the columns
//! compress to a few bytes a block (postcard writes small numbers in one byte; LZ4 finds the
//! repeats).

use serde::{Deserialize, Serialize};

use blockfall_physics::bounded;

use crate::blocks::store::{Block, BlockStore, SIZES};
use crate::limits::{BlockCells, BlockSlots, FreeBlockSlots};

/// A [`BlockStore`]'s slots and free list, column by column.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct BlockColumns {
    /// Per slot: its generation.
    #[serde(deserialize_with = "bounded::vec::<_, _, BlockSlots>")]
    pub generations: Vec<u32>,
    /// Per slot: 0 for an empty slot, else 1 + the block's size index (2 bits), material (3),
    /// slope (1) and cuts (12), low bits first.
    #[serde(deserialize_with = "bounded::vec::<_, _, BlockSlots>")]
    pub kinds: Vec<u32>,
    /// Per block, in slot order: its lowest cell minus the previous block's (the first from
    /// the origin), wrapping.
    #[serde(deserialize_with = "steps")]
    pub steps: [Vec<i32>; 3],
    /// Free slots, reused from the back.
    #[serde(deserialize_with = "bounded::vec::<_, _, FreeBlockSlots>")]
    pub free: Vec<u32>,
}

/// The three columns of cells, each of at most [`crate::limits::MOST_BLOCKS`].
fn steps<'de, D: serde::Deserializer<'de>>(deserializer: D) -> Result<[Vec<i32>; 3], D::Error> {
    #[derive(Deserialize)]
    struct Column(#[serde(deserialize_with = "bounded::vec::<_, _, BlockCells>")] Vec<i32>);
    let [x, y, z] = <[Column; 3]>::deserialize(deserializer)?;
    Ok([x.0, y.0, z.0])
}

impl BlockColumns {
    /// The columns of a store.
    pub fn of(store: &BlockStore) -> Self {
        let mut columns = BlockColumns {
            generations: Vec::with_capacity(store.slot_count()),
            kinds: Vec::with_capacity(store.slot_count()),
            steps: Default::default(),
            free: store.free_slots().to_vec(),
        };
        let mut previous = [0i32; 3];
        for (generation, block) in store.slots() {
            columns.generations.push(generation);
            let Some(block) = block else {
                columns.kinds.push(0);
                continue;
            };
            columns.kinds.push(1 + kind_of(block));
            for (axis, low) in block.low().into_iter().enumerate() {
                columns.steps[axis].push(low.wrapping_sub(previous[axis]));
                previous[axis] = low;
            }
        }
        columns
    }

    /// The store again, every block checked ([`BlockStore::restore`]).
    pub fn store(&self) -> Result<BlockStore, String> {
        let slots = self.generations.len();
        if self.kinds.len() != slots {
            return Err(format!(
                "{} block slots but {} kinds",
                slots,
                self.kinds.len()
            ));
        }
        let blocks = self.kinds.iter().filter(|kind| **kind != 0).count();
        if self.steps.iter().any(|steps| steps.len() != blocks) {
            return Err(format!("{blocks} blocks but not as many cells"));
        }
        let mut previous = [0i32; 3];
        let mut next = 0usize;
        let mut decoded = Vec::with_capacity(slots);
        for (slot, (&generation, &kind)) in self.generations.iter().zip(&self.kinds).enumerate() {
            if kind == 0 {
                decoded.push((generation, None));
                continue;
            }
            let low: [i32; 3] =
                std::array::from_fn(|axis| previous[axis].wrapping_add(self.steps[axis][next]));
            next += 1;
            previous = low;
            let block = block_of(low, kind - 1)
                .ok_or_else(|| format!("block slot {slot} has kind {kind}, which is no block"))?;
            decoded.push((generation, Some(block)));
        }
        BlockStore::restore(decoded, self.free.clone())
    }
}

/// A block's size, material, slope and cuts in one number.
fn kind_of(block: &Block) -> u32 {
    let size = SIZES
        .iter()
        .position(|size| *size == block.size)
        .unwrap_or(0) as u32;
    size | u32::from(block.material) << 2 | u32::from(block.slope) << 5 | u32::from(block.cuts) << 6
}

/// The block at `low` of a [`kind_of`] number; `None` when the number is out of range (the
/// store checks the rest).
fn block_of(low: [i32; 3], kind: u32) -> Option<Block> {
    if kind >> 18 != 0 {
        return None;
    }
    Some(Block {
        x: low[0],
        y: low[1],
        z: low[2],
        size: *SIZES.get((kind & 3) as usize)?,
        material: (kind >> 2 & 7) as u8,
        slope: kind >> 5 & 1 == 1,
        cuts: (kind >> 6) as u16,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_store_survives_its_columns_with_its_ids() {
        let mut store = BlockStore::new();
        let mut ids = Vec::new();
        for i in 0..40i32 {
            let block = Block::new(
                i * 4 - 60,
                (i % 3) * 2,
                -i * 8,
                SIZES[(i % 3) as usize],
                (i % 6) as u8,
                (i as u16 * 37) & 0xFFF,
                i % 2 == 0,
            )
            .expect("a block");
            ids.push(store.add(block).expect("room"));
        }
        for id in [ids[3], ids[17], ids[39], ids[0]] {
            store.remove(id);
        }
        let columns = BlockColumns::of(&store);
        let mut restored = columns.store().expect("consistent");
        let listed = |store: &BlockStore| store.iter().map(|(id, b)| (id, *b)).collect::<Vec<_>>();
        assert_eq!(listed(&restored), listed(&store));
        let block = Block::new(500, 0, 0, 2, 1, 0, false).expect("a block");
        assert_eq!(
            restored.add(block).expect("room"),
            store.add(block).expect("room"),
            "the next block gets the same id"
        );
        assert_eq!(BlockColumns::of(&restored), BlockColumns::of(&store));
    }

    #[test]
    fn bad_columns_are_refused() {
        let mut store = BlockStore::new();
        store
            .add(Block::new(0, 0, 0, 2, 0, 0, false).expect("a block"))
            .expect("room");
        store
            .add(Block::new(2, 0, 0, 2, 0, 0, false).expect("a block"))
            .expect("room");
        let columns = BlockColumns::of(&store);
        let mut overlapping = columns.clone();
        overlapping.steps[0][1] = 1;
        assert!(overlapping.store().is_err());
        let mut bad_kind = columns.clone();
        bad_kind.kinds[0] = 1 << 20;
        assert!(bad_kind.store().is_err());
        let mut short = columns.clone();
        short.steps[2].pop();
        assert!(short.store().is_err());
        let mut free_taken = columns;
        free_taken.free.push(0);
        assert!(free_taken.store().is_err());
    }
}
