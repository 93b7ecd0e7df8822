//! The blocks of the world on the 0.5 m grid, and where each one is (docs/blocks.md).
//!
//! A block fills a cube of 1, 2 or 4 cells a side, from its lowest cell. Three views of the same
//! blocks are kept together, so that none can go stale:
//!
//! ```text
//!   slots:   BlockId -> Block            (generational: an id of a removed block stays dead)
//!   cells:   [x, y, z] -> slot            (every cell of a block, for "what is here?", in
//!                                          sparse bricks of 8³ cells: see `cell_grid`)
//!   regions: chunk of 64³ cells -> ids    (the blocks whose lowest cell lies in the chunk,
//!                                          for meshing and saving a chunk's blocks)
//! ```
//!
//! Regions are spatial buckets; bricks are the tiles of a sparse grid.
//!
//! Changes are told through a queue of [`StoreEvent`]s that the owner drains, not through
//! callbacks: a callback would have to borrow the store's owner while the store is borrowed.

use std::collections::{BTreeSet, HashMap, VecDeque};

use blockfall_physics::collision::fresh_stamp;
use thiserror::Error;

use super::cell_grid::CellGrid;
use super::materials::MATERIALS;
use super::shapes::SIDES;
use crate::limits::{MOST_BLOCKS, MOST_BLOCK_BRICKS};

/// Meters per grid cell.
pub const CELL: f32 = 0.5;

/// Cells per side of a region: one 32 m terrain chunk.
pub const REGION_CELLS: i32 = 64;

/// The sizes a block may have, in cells per side.
pub const SIZES: [u8; 3] = [1, 2, 4];

/// The world's edge in cells: every cell of every block lies within ±2^20 of the origin on
/// each axis (±524,288 m, the physics' `EDGE`).
pub const WORLD_CELLS: i32 = 1 << 20;

/// The largest cut mask: one bit for each of the twelve edges (see [`super::shapes`]).
pub const ALL_CUTS: u16 = 0xFFF;

/// Why a block can't be made, placed or changed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Error)]
pub enum BlockError {
    #[error("a block is 1, 2 or 4 cells a side, not {0}")]
    Size(u8),
    #[error("there is no material number {0}: there are {count}", count = MATERIALS.len())]
    Material(u8),
    #[error("cut mask {0:#x} has bits beyond the twelve edges")]
    Cuts(u16),
    #[error(
        "a block of {size} cells at ({x}, {y}, {z}) reaches outside the world (every cell \
         within ±{WORLD_CELLS} of the origin)"
    )]
    OutsideWorld { x: i32, y: i32, z: i32, size: u8 },
    #[error("the world holds {MOST_BLOCKS} blocks, the most it may (docs/saves.md, \"Limits\")")]
    Full,
    #[error(
        "the world's blocks would fill more than {MOST_BLOCK_BRICKS} bricks of 8³ cells (4 m), \
         the most they may (docs/saves.md, \"Limits\")"
    )]
    Spread,
    #[error("the cell ({x}, {y}, {z}) is already taken by another block")]
    Occupied { x: i32, y: i32, z: i32 },
    #[error("the block was removed")]
    Missing,
}

/// One block: a cube of cells, its material and how its edges are cut.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Block {
    /// The lowest cell on each axis.
    pub x: i32,
    pub y: i32,
    pub z: i32,
    /// Cells per side: 1, 2 or 4.
    pub size: u8,
    /// Index into [`MATERIALS`].
    pub material: u8,
    /// One bit per edge, numbered as [`super::shapes::side_edges`] documents: a set bit rounds
    /// the edge, or chamfers it when `slope` is set.
    pub cuts: u16,
    /// Whether cut edges are chamfered flat instead of rounded.
    pub slope: bool,
}

impl Block {
    /// A block, checked: see [`Block::validate`].
    pub fn new(
        x: i32,
        y: i32,
        z: i32,
        size: u8,
        material: u8,
        cuts: u16,
        slope: bool,
    ) -> Result<Block, BlockError> {
        let block = Block {
            x,
            y,
            z,
            size,
            material,
            cuts,
            slope,
        };
        block.validate()?;
        Ok(block)
    }

    /// Checks what may come from a user or a file: the size, the material, the cut mask, and
    /// that every cell of the block lies within the world (±[`WORLD_CELLS`] on each axis).
    pub fn validate(&self) -> Result<(), BlockError> {
        if !SIZES.contains(&self.size) {
            return Err(BlockError::Size(self.size));
        }
        if usize::from(self.material) >= MATERIALS.len() {
            return Err(BlockError::Material(self.material));
        }
        if self.cuts > ALL_CUTS {
            return Err(BlockError::Cuts(self.cuts));
        }
        let reach = i32::from(self.size) - 1;
        let inside = [self.x, self.y, self.z]
            .iter()
            .all(|&low| low >= -WORLD_CELLS && low <= WORLD_CELLS - reach);
        if !inside {
            return Err(BlockError::OutsideWorld {
                x: self.x,
                y: self.y,
                z: self.z,
                size: self.size,
            });
        }
        Ok(())
    }

    /// The lowest cell.
    pub fn low(&self) -> [i32; 3] {
        [self.x, self.y, self.z]
    }

    /// Every cell the block fills. Only meaningful for a validated block.
    pub fn cells(&self) -> impl Iterator<Item = [i32; 3]> {
        cells_of(self.x, self.y, self.z, self.size)
    }
}

/// Every cell of a cube of `size` cells from `(x, y, z)`; empty where a cell would overflow.
fn cells_of(x: i32, y: i32, z: i32, size: u8) -> impl Iterator<Item = [i32; 3]> {
    let size = i32::from(size);
    let overflows = [x, y, z]
        .iter()
        .any(|low| low.checked_add(size - 1).is_none());
    let size = if overflows { 0 } else { size };
    (0..size).flat_map(move |dx| {
        (0..size).flat_map(move |dy| (0..size).map(move |dz| [x + dx, y + dy, z + dz]))
    })
}

/// The region (chunk of [`REGION_CELLS`]³ cells) a cell lies in.
pub fn region_of(x: i32, y: i32, z: i32) -> [i32; 3] {
    [
        x.div_euclid(REGION_CELLS),
        y.div_euclid(REGION_CELLS),
        z.div_euclid(REGION_CELLS),
    ]
}

/// A block's handle. The generation tells a removed block's id from the id of a block that
/// later took its slot.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct BlockId {
    index: u32,
    generation: u32,
}

impl BlockId {
    /// The slot the block lives in: a small dense number, below [`BlockStore::slot_count`],
    /// for tables indexed by block. A removed block's slot is given to a later block, whose id
    /// differs in its generation.
    pub fn slot(&self) -> usize {
        self.index as usize
    }
}

/// What changed in the store, pushed after the change: a `Removed` block is already gone.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum StoreEvent {
    Added(BlockId, Block),
    Removed(BlockId, Block),
    /// The block as it is now, with its new cuts.
    Reshaped(BlockId, Block),
}

#[derive(Debug, Default)]
struct Slot {
    generation: u32,
    block: Option<Block>,
}

/// All blocks, looked up by id, by cell and by region.
#[derive(Debug, Default)]
pub struct BlockStore {
    slots: Vec<Slot>,
    free: Vec<u32>,
    /// Asked for every collision query and every step of the support search, many times.
    cells: CellGrid,
    /// Ordered sets, so that walking a region is the same on every run.
    regions: HashMap<[i32; 3], BTreeSet<BlockId>>,
    events: VecDeque<StoreEvent>,
    revision: u64,
    /// Names what the store holds now: fresh with every change, 0 while none was made
    /// ([`BlockStore::stamp`]).
    stamp: u64,
    count: usize,
}

impl BlockStore {
    pub fn new() -> BlockStore {
        BlockStore::default()
    }

    /// The block filling a cell, if any.
    pub fn at(&self, x: i32, y: i32, z: i32) -> Option<BlockId> {
        self.cells.get([x, y, z]).map(|slot| self.id_of(slot))
    }

    /// Calls `visit` with every filled cell of the box `low..=high` and the block filling it,
    /// much faster than asking [`BlockStore::at`] for each cell. The order is fixed (by bricks
    /// of 8³ cells, in each z, y, x ascending) but not simply row by row.
    pub fn for_each_cell_in(
        &self,
        low: [i32; 3],
        high: [i32; 3],
        mut visit: impl FnMut([i32; 3], BlockId),
    ) {
        self.cells
            .for_each_in(low, high, |cell, slot| visit(cell, self.id_of(slot)));
    }

    /// The id of the block in a slot the cell grid names (always a live block).
    fn id_of(&self, slot: u32) -> BlockId {
        BlockId {
            index: slot,
            generation: self.slots.get(slot as usize).map_or(0, |s| s.generation),
        }
    }

    /// How many slots there are: every id's [`BlockId::slot`] is below this.
    pub fn slot_count(&self) -> usize {
        self.slots.len()
    }

    /// The block, unless it was removed.
    pub fn get(&self, id: BlockId) -> Option<&Block> {
        let slot = self.slots.get(id.index as usize)?;
        if slot.generation != id.generation {
            return None;
        }
        slot.block.as_ref()
    }

    /// How many bricks of 8³ cells hold a block's cell (docs/saves.md, "Limits").
    pub fn brick_count(&self) -> usize {
        self.cells.brick_count()
    }

    /// Whether every cell of a cube of `size` cells from `(x, y, z)` is free. A cube reaching
    /// beyond the grid doesn't fit.
    pub fn fits(&self, x: i32, y: i32, z: i32, size: u8) -> bool {
        let reach = i32::from(size).saturating_sub(1);
        let inside = [x, y, z].iter().all(|low| low.checked_add(reach).is_some());
        inside && cells_of(x, y, z, size).all(|cell| !self.cells.contains(cell))
    }

    /// Places a block where all its cells are free.
    pub fn add(&mut self, block: Block) -> Result<BlockId, BlockError> {
        block.validate()?;
        if self.count >= MOST_BLOCKS {
            return Err(BlockError::Full);
        }
        if let Some([x, y, z]) = block.cells().find(|&cell| self.cells.contains(cell)) {
            return Err(BlockError::Occupied { x, y, z });
        }
        let high = block.low().map(|low| low + i32::from(block.size) - 1);
        if self.cells.brick_count() + self.cells.empty_bricks_in(block.low(), high)
            > MOST_BLOCK_BRICKS
        {
            return Err(BlockError::Spread);
        }
        let id = match self.free.pop() {
            Some(index) => {
                let slot = &mut self.slots[index as usize];
                slot.block = Some(block);
                BlockId {
                    index,
                    generation: slot.generation,
                }
            }
            None => {
                let index = u32::try_from(self.slots.len())
                    .expect("more than u32::MAX blocks cannot fit in memory");
                self.slots.push(Slot {
                    generation: 0,
                    block: Some(block),
                });
                BlockId {
                    index,
                    generation: 0,
                }
            }
        };
        for cell in block.cells() {
            self.cells.insert(cell, id.index);
        }
        self.regions
            .entry(region_of(block.x, block.y, block.z))
            .or_default()
            .insert(id);
        self.count += 1;
        self.revision += 1;
        self.stamp = fresh_stamp();
        self.events.push_back(StoreEvent::Added(id, block));
        Ok(id)
    }

    /// Every slot in order: its generation and its block, if one lives there (with
    /// [`BlockStore::free_slots`], what a save keeps to give later blocks the same ids).
    pub fn slots(&self) -> impl ExactSizeIterator<Item = (u32, Option<&Block>)> + '_ {
        self.slots
            .iter()
            .map(|slot| (slot.generation, slot.block.as_ref()))
    }

    /// The free slots, reused from the back.
    pub fn free_slots(&self) -> &[u32] {
        &self.free
    }

    /// A store of these slots (generation and block, as [`BlockStore::slots`] lists them) and
    /// free slots, each block checked and placed as [`BlockStore::add`] would, no events
    /// queued. Refuses a bad block, two blocks in one cell, and a free slot that holds a block,
    /// is out of range or is listed twice.
    pub fn restore(
        slots: impl IntoIterator<Item = (u32, Option<Block>)>,
        free: Vec<u32>,
    ) -> Result<BlockStore, String> {
        let mut store = BlockStore::new();
        for (index, (generation, block)) in slots.into_iter().enumerate() {
            let index = u32::try_from(index).map_err(|_| "too many block slots".to_string())?;
            store.slots.push(Slot {
                generation,
                block: None,
            });
            if let Some(block) = block {
                store.free.push(index);
                store
                    .add(block)
                    .map_err(|error| format!("block slot {index}: {error}"))?;
            }
        }
        let mut listed = vec![false; store.slots.len()];
        for &index in &free {
            let slot = store.slots.get(index as usize);
            if slot.is_none_or(|slot| slot.block.is_some()) || listed[index as usize] {
                return Err(format!(
                    "free block slot {index} holds a block, is out of range or is listed twice"
                ));
            }
            listed[index as usize] = true;
        }
        store.free = free;
        store.events.clear();
        Ok(store)
    }

    /// Takes a block out; `None` if the id is stale.
    pub fn remove(&mut self, id: BlockId) -> Option<Block> {
        let slot = self.slots.get_mut(id.index as usize)?;
        if slot.generation != id.generation {
            return None;
        }
        let block = slot.block.take()?;
        // A new generation, so that this id stays dead when the slot is used again.
        slot.generation = slot.generation.wrapping_add(1);
        self.free.push(id.index);
        for cell in block.cells() {
            self.cells.remove(cell);
        }
        let region = region_of(block.x, block.y, block.z);
        if let Some(ids) = self.regions.get_mut(&region) {
            ids.remove(&id);
            if ids.is_empty() {
                self.regions.remove(&region);
            }
        }
        self.count -= 1;
        self.revision += 1;
        self.stamp = fresh_stamp();
        self.events.push_back(StoreEvent::Removed(id, block));
        Some(block)
    }

    /// Changes how a block's edges are cut.
    pub fn reshape(&mut self, id: BlockId, cuts: u16, slope: bool) -> Result<(), BlockError> {
        if cuts > ALL_CUTS {
            return Err(BlockError::Cuts(cuts));
        }
        let slot = self
            .slots
            .get_mut(id.index as usize)
            .filter(|slot| slot.generation == id.generation)
            .ok_or(BlockError::Missing)?;
        let block = slot.block.as_mut().ok_or(BlockError::Missing)?;
        block.cuts = cuts;
        block.slope = slope;
        let block = *block;
        self.revision += 1;
        self.stamp = fresh_stamp();
        self.events.push_back(StoreEvent::Reshaped(id, block));
        Ok(())
    }

    /// The blocks whose lowest cell lies in a region, in a fixed order.
    pub fn in_region(&self, region: [i32; 3]) -> impl Iterator<Item = BlockId> + '_ {
        self.regions.get(&region).into_iter().flatten().copied()
    }

    /// Counts up with every add, remove and reshape: a cheap "has anything changed?".
    pub fn revision(&self) -> u64 {
        self.revision
    }

    /// A name for what the store holds now, never given to a store that held other blocks:
    /// fresh with every add, remove and reshape (`blockfall_physics::collision::Solid::stamp`).
    /// Stores no block was ever added to share 0: they hold the same, nothing.
    pub fn stamp(&self) -> u64 {
        self.stamp
    }

    /// How many blocks there are.
    pub fn count(&self) -> usize {
        self.count
    }

    /// Every block with its id, in slot order.
    pub fn iter(&self) -> impl Iterator<Item = (BlockId, &Block)> + '_ {
        self.slots.iter().enumerate().filter_map(|(index, slot)| {
            let block = slot.block.as_ref()?;
            let id = BlockId {
                index: index as u32,
                generation: slot.generation,
            };
            Some((id, block))
        })
    }

    /// The changes since the last drain, oldest first.
    pub fn drain_events(&mut self) -> impl Iterator<Item = StoreEvent> + '_ {
        self.events.drain(..)
    }
}

/// Whether a side of a block is covered: plain blocks fill every cell beyond it, so nothing can
/// leave the block that way (docs/blocks.md, "Open sides"). The mesher leaves such sides out,
/// and the collision question ([`crate::solids`]) never looks for the way out of a block
/// through one.
pub fn covered(store: &BlockStore, block: &Block, side: usize) -> bool {
    let (axis, positive) = SIDES[side];
    let size = i32::from(block.size);
    let low = [block.x, block.y, block.z];
    let (u, v) = ((axis + 1) % 3, (axis + 2) % 3);
    (0..size).all(|a| {
        (0..size).all(|b| {
            let mut cell = low;
            cell[axis] = if positive {
                low[axis] + size
            } else {
                low[axis] - 1
            };
            cell[u] += a;
            cell[v] += b;
            store
                .at(cell[0], cell[1], cell[2])
                .and_then(|id| store.get(id))
                .is_some_and(|other| other.cuts == 0)
        })
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn block(x: i32, y: i32, z: i32, size: u8) -> Block {
        Block::new(x, y, z, size, 0, 0, false).expect("a valid block")
    }

    #[test]
    fn every_cell_of_every_size_finds_its_block() {
        for size in SIZES {
            let mut store = BlockStore::new();
            let id = store.add(block(-3, 5, 7, size)).expect("room");
            let side = i32::from(size);
            for dx in -1..=side {
                for dy in -1..=side {
                    for dz in -1..=side {
                        let inside = (0..side).contains(&dx)
                            && (0..side).contains(&dy)
                            && (0..side).contains(&dz);
                        let found = store.at(-3 + dx, 5 + dy, 7 + dz);
                        assert_eq!(found, inside.then_some(id), "size {size} at {dx} {dy} {dz}");
                    }
                }
            }
            assert_eq!(store.remove(id).map(|b| b.size), Some(size));
            assert_eq!(store.at(-3, 5, 7), None);
            assert_eq!(store.count(), 0);
        }
    }

    #[test]
    fn a_block_past_the_most_bricks_is_refused_and_changes_nothing() {
        let mut store = BlockStore::new();
        // One 1-cell block in each brick, in a square of bricks.
        let side = (MOST_BLOCK_BRICKS as f64).sqrt().ceil() as i32;
        for i in 0..MOST_BLOCK_BRICKS as i32 {
            store
                .add(block(8 * (i % side), 0, 8 * (i / side), 1))
                .expect("room within the limit");
        }
        assert_eq!(store.brick_count(), MOST_BLOCK_BRICKS);
        store.drain_events().for_each(drop);
        let revision = store.revision();
        // A block in a new brick is refused, with the limit named...
        let far = block(-8, 0, -8, 1);
        let refused = store.add(far).unwrap_err();
        assert_eq!(refused, BlockError::Spread);
        assert!(refused.to_string().contains(&MOST_BLOCK_BRICKS.to_string()));
        assert_eq!(store.count(), MOST_BLOCK_BRICKS);
        assert_eq!(store.revision(), revision);
        assert_eq!(store.at(-8, 0, -8), None);
        // ...and one reaching a new brick from a held one too, while the held brick has room.
        assert_eq!(store.add(block(4, 0, -2, 4)), Err(BlockError::Spread));
        store.add(block(2, 0, 2, 4)).expect("room in a held brick");
        assert_eq!(store.brick_count(), MOST_BLOCK_BRICKS);
    }

    #[test]
    fn overlapping_blocks_do_not_fit() {
        let mut store = BlockStore::new();
        store.add(block(0, 0, 0, 2)).expect("room");
        assert!(!store.fits(1, 1, 1, 1));
        assert!(!store.fits(-1, -1, -1, 2));
        assert!(store.fits(2, 0, 0, 4));
        assert!(store.fits(-1, -1, -1, 1));
        assert_eq!(
            store.add(block(1, 1, 0, 4)),
            Err(BlockError::Occupied { x: 1, y: 1, z: 0 })
        );
        assert_eq!(store.count(), 1);
        assert!(!store.fits(i32::MAX, 0, 0, 2));
    }

    #[test]
    fn bad_blocks_are_refused() {
        assert_eq!(
            Block::new(0, 0, 0, 3, 0, 0, false),
            Err(BlockError::Size(3))
        );
        assert_eq!(
            Block::new(0, 0, 0, 1, 6, 0, false),
            Err(BlockError::Material(6))
        );
        assert_eq!(
            Block::new(0, 0, 0, 1, 0, 0x1000, false),
            Err(BlockError::Cuts(0x1000))
        );
        assert!(matches!(
            Block::new(i32::MAX - 2, 0, 0, 4, 0, 0, false),
            Err(BlockError::OutsideWorld { .. })
        ));
        // Every cell within ±2^20: a size-4 block at 2^20 - 3 reaches the edge, one cell more
        // is outside, and so is anything below -2^20.
        let edge = WORLD_CELLS;
        assert!(Block::new(edge - 3, -edge, 0, 4, 5, 0xFFF, true).is_ok());
        for (x, y) in [(edge - 2, 0), (0, -edge - 1), (edge + 1, 0), (i32::MIN, 0)] {
            assert!(
                matches!(
                    Block::new(x, y, 0, 4, 0, 0, false),
                    Err(BlockError::OutsideWorld { .. })
                ),
                "({x}, {y})"
            );
        }
    }

    #[test]
    fn revision_counts_every_change_and_events_come_in_order() {
        let mut store = BlockStore::new();
        let first = store.add(block(0, 0, 0, 1)).expect("room");
        let second = store.add(block(4, 0, 0, 2)).expect("room");
        store.reshape(second, 0b1111, true).expect("alive");
        let removed = store.remove(first).expect("alive");
        assert_eq!(store.revision(), 4);
        // A refused change changes nothing.
        assert!(store.add(block(4, 1, 1, 1)).is_err());
        assert_eq!(store.reshape(first, 1, false), Err(BlockError::Missing));
        assert_eq!(store.revision(), 4);

        let events: Vec<StoreEvent> = store.drain_events().collect();
        let reshaped = Block {
            cuts: 0b1111,
            slope: true,
            ..block(4, 0, 0, 2)
        };
        assert_eq!(
            events,
            vec![
                StoreEvent::Added(first, block(0, 0, 0, 1)),
                StoreEvent::Added(second, block(4, 0, 0, 2)),
                StoreEvent::Reshaped(second, reshaped),
                StoreEvent::Removed(first, removed),
            ]
        );
        assert_eq!(store.drain_events().count(), 0);
    }

    #[test]
    fn stale_ids_stay_dead_when_the_slot_is_reused() {
        let mut store = BlockStore::new();
        let old = store.add(block(0, 0, 0, 1)).expect("room");
        store.remove(old).expect("alive");
        let new = store.add(block(0, 0, 0, 1)).expect("room");
        assert_ne!(old, new);
        assert_eq!(store.get(old), None);
        assert_eq!(store.remove(old), None);
        assert!(store.get(new).is_some());
        assert_eq!(store.at(0, 0, 0), Some(new));
    }

    #[test]
    fn regions_hold_blocks_by_their_lowest_cell() {
        assert_eq!(region_of(0, 63, -1), [0, 0, -1]);
        assert_eq!(region_of(64, -64, -65), [1, -1, -2]);
        let mut store = BlockStore::new();
        // Reaches into the next region, but belongs to the one of its lowest cell.
        let edge = store.add(block(62, 0, 0, 4)).expect("room");
        let below = store.add(block(0, -1, 0, 1)).expect("room");
        let next = store.add(block(66, 0, 0, 1)).expect("room");
        assert_eq!(store.in_region([0, 0, 0]).collect::<Vec<_>>(), vec![edge]);
        assert_eq!(store.in_region([0, -1, 0]).collect::<Vec<_>>(), vec![below]);
        assert_eq!(store.in_region([1, 0, 0]).collect::<Vec<_>>(), vec![next]);
        store.remove(edge);
        assert_eq!(store.in_region([0, 0, 0]).count(), 0);
        assert_eq!(store.iter().count(), 2);
    }
}
