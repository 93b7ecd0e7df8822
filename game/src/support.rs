//! What holds a block (seed 002): blocks hold each other through a side or an edge, never a
//! corner alone; the ground holds a block when its density is positive at a point 20 cm outside
//! the middle of any cell of any of the block's sides; a block holds while a chain of touching
//! blocks reaches a block the ground holds. No strength, no weight.
//!
//! A search starts from seeds and looks at the lowest block it knows of first (a binary heap by
//! height): the ground is below, so a search from a roof goes straight down a wall and stops at
//! the first held block. Only a loose group is searched whole.
//!
//! [`Support`] searches only where something changed: the seeds are the blocks that touched a
//! removed block and the blocks near ground that was dug. The ground's answer per block is kept
//! until the ground near that block changes (not cleared world-wide as in the seed), and
//! `would_fall` keeps its answer while neither the blocks nor the ground change.

use std::cmp::Reverse;
use std::collections::{BTreeSet, BinaryHeap, HashMap, HashSet};

use crate::blocks::store::{region_of, Block, BlockId, BlockStore, CELL};
use crate::terrain::{Field, SampleBox, Samples};

/// How far solid ground may be from a block's box and still hold it, in meters.
pub const GROUND_REACH: f32 = 0.2;

/// Calls `visit` with every block that touches `block` by a side or an edge, each once. They fill
/// the cells around the block that lie beside it on one axis (a side) or two (an edge); a cell
/// beside it on all three meets it only at a corner, which holds nothing.
pub fn for_each_touching(store: &BlockStore, block: &Block, mut visit: impl FnMut(BlockId)) {
    let size = i32::from(block.size);
    let low = [block.x, block.y, block.z];
    let beside = |c: i32, axis: usize| u8::from(c < low[axis] || c >= low[axis] + size);
    let mut seen: Vec<BlockId> = Vec::new();
    let own = store.at(block.x, block.y, block.z);
    for k in low[2] - 1..=low[2] + size {
        for j in low[1] - 1..=low[1] + size {
            for i in low[0] - 1..=low[0] + size {
                let axes = beside(i, 0) + beside(j, 1) + beside(k, 2);
                if axes == 0 || axes == 3 {
                    continue;
                }
                let Some(other) = store.at(i, j, k) else {
                    continue;
                };
                if Some(other) == own || seen.contains(&other) {
                    continue;
                }
                seen.push(other);
                visit(other);
            }
        }
    }
}

/// Whether the ground holds a block: positive density at a point [`GROUND_REACH`] outside the
/// middle of any cell of any side (below, beside against a cliff, or above on a cave's ceiling).
pub fn ground_holds<S: Samples>(block: &Block, field: &Field<S>) -> bool {
    let meters = f32::from(block.size) * CELL;
    let low = [
        block.x as f32 * CELL,
        block.y as f32 * CELL,
        block.z as f32 * CELL,
    ];
    for axis in 0..3 {
        let (u, v) = ((axis + 1) % 3, (axis + 2) % 3);
        for positive in [false, true] {
            for a in 0..block.size {
                for b in 0..block.size {
                    let mut point = [0.0; 3];
                    point[axis] = if positive {
                        low[axis] + meters + GROUND_REACH
                    } else {
                        low[axis] - GROUND_REACH
                    };
                    point[u] = low[u] + (f32::from(a) + 0.5) * CELL;
                    point[v] = low[v] + (f32::from(b) + 0.5) * CELL;
                    if field.probe(point[0], point[1], point[2]).density > 0.0 {
                        return true;
                    }
                }
            }
        }
    }
    false
}

/// The groups of blocks nothing holds, among the groups the `seeds` belong to; `gone` counts as
/// taken away already. Each search goes lowest block first and stops at the first block `holds`
/// says yes to: then its whole group holds. Groups come in the order of their first seed, each
/// sorted by block id, so the answer does not depend on hash order.
pub fn loose_groups(
    store: &BlockStore,
    mut holds: impl FnMut(BlockId, &Block) -> bool,
    seeds: impl IntoIterator<Item = BlockId>,
    gone: Option<BlockId>,
) -> Vec<Vec<BlockId>> {
    let mut held: HashSet<BlockId> = HashSet::new();
    let mut loose: HashSet<BlockId> = HashSet::new();
    let mut groups = Vec::new();
    for seed in seeds {
        if Some(seed) == gone || held.contains(&seed) || loose.contains(&seed) {
            continue;
        }
        // A seed may have been removed since it was noted.
        if store.get(seed).is_none() {
            continue;
        }
        let mut reached: Vec<BlockId> = vec![seed];
        let mut reached_set: HashSet<BlockId> = HashSet::from([seed]);
        let mut waiting = BinaryHeap::new();
        waiting.push(Reverse((store.get(seed).map_or(0, |b| b.y), seed)));
        let mut is_held = false;
        while let Some(Reverse((_, id))) = waiting.pop() {
            let Some(block) = store.get(id) else {
                continue;
            };
            if held.contains(&id) || holds(id, block) {
                is_held = true;
                break;
            }
            for_each_touching(store, block, |other| {
                if Some(other) == gone || !reached_set.insert(other) {
                    return;
                }
                reached.push(other);
                if let Some(other_block) = store.get(other) {
                    waiting.push(Reverse((other_block.y, other)));
                }
            });
        }
        if is_held {
            held.extend(reached);
        } else {
            reached.sort();
            loose.extend(reached.iter().copied());
            groups.push(reached);
        }
    }
    groups
}

/// The blocks that would fall if `block` were taken away: every loose group among its
/// neighbours' groups, with `block` counted as gone.
pub fn would_fall<S: Samples>(
    store: &BlockStore,
    field: &Field<S>,
    block: BlockId,
) -> Vec<BlockId> {
    falling_without(store, block, |_, candidate| ground_holds(candidate, field))
}

/// Every block of the loose groups among `block`'s neighbours' groups, with `block` counted as
/// gone, sorted by id; `holds` is the ground's answer.
fn falling_without(
    store: &BlockStore,
    block: BlockId,
    holds: impl FnMut(BlockId, &Block) -> bool,
) -> Vec<BlockId> {
    let Some(removed) = store.get(block) else {
        return Vec::new();
    };
    let mut seeds = Vec::new();
    for_each_touching(store, removed, |other| seeds.push(other));
    let mut falling: Vec<BlockId> = loose_groups(store, holds, seeds, Some(block))
        .into_iter()
        .flatten()
        .collect();
    falling.sort();
    falling
}

/// Keeps track of which blocks may have lost their hold, and finds the loose groups.
#[derive(Debug, Default)]
pub struct Support {
    /// Blocks whose hold may have changed since the last update, in id order.
    seeds: BTreeSet<BlockId>,
    /// Whether the ground holds a block, kept until the ground near the block changes.
    grounded: HashMap<BlockId, bool>,
    /// Counts up whenever the ground changes.
    ground_revision: u64,
    /// The last `would_fall` answer: block, store revision, ground revision, the blocks.
    preview: Option<(BlockId, u64, u64, Vec<BlockId>)>,
}

impl Support {
    pub fn new() -> Self {
        Self::default()
    }

    /// A block was taken away (it is gone from `store`): the blocks it touched may have lost
    /// their hold.
    pub fn removed(&mut self, store: &BlockStore, id: BlockId, block: &Block) {
        self.grounded.remove(&id);
        self.seeds.remove(&id);
        for_each_touching(store, block, |other| {
            self.seeds.insert(other);
        });
    }

    /// The ground changed in `changed` (an edit's box of samples): the blocks near it may have
    /// lost their hold, and only their ground answers are forgotten.
    pub fn ground_changed(&mut self, store: &BlockStore, changed: &SampleBox) {
        self.ground_revision += 1;
        // A sample changes the density up to one meter around it (the trilinear blend), and a
        // block asks the ground GROUND_REACH outside its box.
        let reach = GROUND_REACH + 1.0;
        let low = changed.low.map(|c| c as f32 - reach);
        let high = changed.high.map(|c| c as f32 + reach);
        // Regions are keyed by a block's lowest cell; the largest block reaches 4 cells (2 m)
        // from it, so look that much further on the low side.
        let largest = 4.0 * CELL;
        let region_low = low.map(|c| ((c - largest) / CELL).floor() as i32);
        let region_high = high.map(|c| (c / CELL).floor() as i32);
        let first = region_of(region_low[0], region_low[1], region_low[2]);
        let last = region_of(region_high[0], region_high[1], region_high[2]);
        for rz in first[2]..=last[2] {
            for ry in first[1]..=last[1] {
                for rx in first[0]..=last[0] {
                    for id in store.in_region([rx, ry, rz]) {
                        let Some(block) = store.get(id) else {
                            continue;
                        };
                        let meters = f32::from(block.size) * CELL;
                        let block_low = [block.x, block.y, block.z].map(|c| c as f32 * CELL);
                        let near = (0..3).all(|axis| {
                            block_low[axis] <= high[axis] && block_low[axis] + meters >= low[axis]
                        });
                        if near {
                            self.grounded.remove(&id);
                            self.seeds.insert(id);
                        }
                    }
                }
            }
        }
    }

    /// The groups of blocks that lost their hold since the last update (they stay in the store:
    /// the caller decides what becomes of them).
    pub fn update<S: Samples>(
        &mut self,
        store: &BlockStore,
        field: &Field<S>,
    ) -> Vec<Vec<BlockId>> {
        if self.seeds.is_empty() {
            return Vec::new();
        }
        let seeds = std::mem::take(&mut self.seeds);
        let grounded = &mut self.grounded;
        loose_groups(
            store,
            |id, block| {
                *grounded
                    .entry(id)
                    .or_insert_with(|| ground_holds(block, field))
            },
            seeds,
            None,
        )
    }

    /// The blocks that would fall if `block` were taken away; asked again while neither the
    /// blocks nor the ground changed, the same answer at no cost.
    pub fn would_fall<S: Samples>(
        &mut self,
        store: &BlockStore,
        field: &Field<S>,
        block: BlockId,
    ) -> &[BlockId] {
        let revision = store.revision();
        let fresh = self
            .preview
            .as_ref()
            .is_some_and(|(id, store_revision, ground, _)| {
                *id == block && *store_revision == revision && *ground == self.ground_revision
            });
        if !fresh {
            let grounded = &mut self.grounded;
            let falling = falling_without(store, block, |id, candidate| {
                *grounded
                    .entry(id)
                    .or_insert_with(|| ground_holds(candidate, field))
            });
            self.preview = Some((block, revision, self.ground_revision, falling));
        }
        self.preview
            .as_ref()
            .map_or(&[], |(_, _, _, falling)| falling)
    }

    /// Ground answers kept: for tests and statistics.
    pub fn kept_ground_answers(&self) -> usize {
        self.grounded.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn plain(x: i32, y: i32, z: i32) -> Block {
        Block::new(x, y, z, 2, 0, 0, false).unwrap()
    }

    fn flat() -> Field<impl Fn(i32, i32, i32) -> f32 + Sync> {
        Field::new(|_x: i32, y: i32, _z: i32| -(y as f32))
    }

    #[test]
    fn edges_hold_and_corners_do_not() {
        let field = flat();
        // A staircase touching only by edges stands on its first step.
        let mut store = BlockStore::new();
        let steps: Vec<BlockId> = (0..5)
            .map(|i| store.add(plain(i * 2, i * 2, 0)).unwrap())
            .collect();
        let groups = loose_groups(&store, |_, b| ground_holds(b, &field), steps.clone(), None);
        assert!(groups.is_empty(), "the staircase stands");
        // Two blocks touching only by a corner: the upper one falls.
        let mut store = BlockStore::new();
        let low = store.add(plain(0, 0, 0)).unwrap();
        let high = store.add(plain(2, 2, 2)).unwrap();
        let groups = loose_groups(&store, |_, b| ground_holds(b, &field), [low, high], None);
        assert_eq!(groups, vec![vec![high]]);
    }

    #[test]
    fn a_beam_of_a_hundred_blocks_stands_on_one_corner() {
        let field = flat();
        let mut store = BlockStore::new();
        for y in 0..4 {
            store.add(plain(0, y * 2, 0)).unwrap();
        }
        let beam: Vec<BlockId> = (1..=100)
            .map(|i| store.add(plain(i * 2, 6, 0)).unwrap())
            .collect();
        let far = *beam.last().unwrap();
        assert!(loose_groups(&store, |_, b| ground_holds(b, &field), [far], None).is_empty());
        // Without the pillar's lowest block, the rest of the pillar and the whole beam would fall.
        let foot = store.at(0, 0, 0).unwrap();
        assert_eq!(would_fall(&store, &field, foot).len(), 3 + 100);
    }

    #[test]
    fn the_ground_holds_from_below_beside_and_above() {
        // Ground below y = 0: a block resting on it, one 10 cm above it, one 30 cm above it.
        let field = flat();
        assert!(ground_holds(&plain(0, 0, 0), &field));
        let hovering = Block::new(0, 1, 0, 1, 0, 0, false).unwrap(); // 0.5 m up: too far
        assert!(!ground_holds(&hovering, &field));
        // A cave ceiling at y = 2 m: ground above, air below.
        let ceiling = Field::new(|_x: i32, y: i32, _z: i32| y as f32 - 2.0);
        assert!(
            ground_holds(&plain(0, 2, 0), &ceiling),
            "hanging under the ceiling"
        );
        // A block sunk halfway into a 36° slope (ground below y = tan 36° · x).
        let slope = 36f32.to_radians().tan();
        let hill = Field::new(move |x: i32, y: i32, _z: i32| slope * x as f32 - y as f32);
        let sunk = Block::new(4, 2, 0, 2, 0, 0, false).unwrap(); // x 2..3 m, ground 1.45..2.18 m
        assert!(ground_holds(&sunk, &hill), "sunk halfway into the slope");
        // A cliff face at x = 0 (ground for x < 0).
        let cliff = Field::new(|x: i32, _y: i32, _z: i32| -(x as f32));
        assert!(ground_holds(&plain(0, 20, 0), &cliff), "against the cliff");
    }
}
