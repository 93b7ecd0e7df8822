//! A direct port of the original TypeScript support search (where the design came from:
//! docs/README.md), kept as the baseline the support benchmark compares
//! `blockfall_game::support` against. It follows the rules of docs/support.md, written in Rust
//! the way the TypeScript reads (the original's names in backticks):
//!
//! - its own store: a hash map of cells (`std`'s `HashMap`, as JavaScript's `Map`) to blocks;
//! - `forEachTouching` with a `Set` of the blocks seen;
//! - `LowestFirst`, a binary heap ordered by height alone (ties in heap order);
//! - `looseGroups` with `Set`s of held, loose and reached blocks, made per search;
//! - `Support` with a set of starts, and a ground cache that every ground change clears whole.
//!
//! The ground test is `groundHolds`: 24 probes of the same field blockfall asks (its cache of
//! samples included) for a 1 m block, one after another.

use std::collections::{HashMap, HashSet};

use blockfall_game::blocks::store::{Block, CELL};
use blockfall_game::support::GROUND_REACH;
use blockfall_game::terrain::{Field, Samples};

/// A block of the port's store: an index into `ReferenceStore::blocks`.
pub type ReferenceBlock = u32;

/// The original's `BlockStore`, as far as the support search uses it.
#[derive(Debug, Default)]
pub struct ReferenceStore {
    cells: HashMap<[i32; 3], ReferenceBlock>,
    blocks: Vec<Option<Block>>,
}

impl ReferenceStore {
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds a block whose cells are free; `None` if one is taken.
    pub fn add(&mut self, block: Block) -> Option<ReferenceBlock> {
        if block.cells().any(|cell| self.cells.contains_key(&cell)) {
            return None;
        }
        let id = ReferenceBlock::try_from(self.blocks.len()).ok()?;
        for cell in block.cells() {
            self.cells.insert(cell, id);
        }
        self.blocks.push(Some(block));
        Some(id)
    }

    /// Takes a block out; `false` if it was not there.
    pub fn remove(&mut self, id: ReferenceBlock) -> bool {
        let Some(block) = self.blocks.get_mut(id as usize).and_then(Option::take) else {
            return false;
        };
        for cell in block.cells() {
            self.cells.remove(&cell);
        }
        true
    }

    /// Puts a removed block back under its old id.
    pub fn restore(&mut self, id: ReferenceBlock, block: Block) {
        for cell in block.cells() {
            self.cells.insert(cell, id);
        }
        if let Some(slot) = self.blocks.get_mut(id as usize) {
            *slot = Some(block);
        }
    }

    pub fn at(&self, x: i32, y: i32, z: i32) -> Option<ReferenceBlock> {
        self.cells.get(&[x, y, z]).copied()
    }

    pub fn get(&self, id: ReferenceBlock) -> Option<&Block> {
        self.blocks.get(id as usize).and_then(Option::as_ref)
    }
}

/// `forEachTouching`: the blocks touching `block` by a side or an edge, each once.
pub fn for_each_touching(
    store: &ReferenceStore,
    id: ReferenceBlock,
    mut visit: impl FnMut(ReferenceBlock),
) {
    let Some(block) = store.get(id) else {
        return;
    };
    let mut seen: HashSet<ReferenceBlock> = HashSet::from([id]);
    let size = i32::from(block.size);
    let (x, y, z) = (block.x, block.y, block.z);
    let beside = |c: i32, low: i32| i32::from(c < low || c >= low + size);
    for k in z - 1..=z + size {
        for j in y - 1..=y + size {
            for i in x - 1..=x + size {
                let axes = beside(i, x) + beside(j, y) + beside(k, z);
                if axes == 0 || axes == 3 {
                    continue;
                }
                if let Some(other) = store.at(i, j, k) {
                    if seen.insert(other) {
                        visit(other);
                    }
                }
            }
        }
    }
}

/// `groundHolds`: positive density just outside the middle of any cell of any side.
pub fn ground_holds<S: Samples>(block: &Block, field: &Field<S>) -> bool {
    let meters = f32::from(block.size) * CELL;
    let low = [
        block.x as f32 * CELL,
        block.y as f32 * CELL,
        block.z as f32 * CELL,
    ];
    for axis in 0..3 {
        let u = (axis + 1) % 3;
        let v = (axis + 2) % 3;
        for dir in [-1.0f32, 1.0] {
            for a in 0..block.size {
                for b in 0..block.size {
                    let mut p = [0.0; 3];
                    p[axis] = if dir > 0.0 {
                        low[axis] + meters + GROUND_REACH
                    } else {
                        low[axis] - GROUND_REACH
                    };
                    p[u] = low[u] + (f32::from(a) + 0.5) * CELL;
                    p[v] = low[v] + (f32::from(b) + 0.5) * CELL;
                    if field.probe(p[0], p[1], p[2]).density > 0.0 {
                        return true;
                    }
                }
            }
        }
    }
    false
}

/// `LowestFirst`: the original's binary heap of blocks, ordered by height alone.
struct LowestFirst<'a> {
    store: &'a ReferenceStore,
    heap: Vec<ReferenceBlock>,
}

impl<'a> LowestFirst<'a> {
    fn new(store: &'a ReferenceStore) -> Self {
        Self {
            store,
            heap: Vec::new(),
        }
    }

    fn y(&self, id: ReferenceBlock) -> i32 {
        self.store.get(id).map_or(i32::MAX, |block| block.y)
    }

    fn push(&mut self, id: ReferenceBlock) {
        self.heap.push(id);
        let mut i = self.heap.len() - 1;
        while i > 0 {
            let parent = (i - 1) >> 1;
            if self.y(self.heap[parent]) <= self.y(self.heap[i]) {
                break;
            }
            self.heap.swap(parent, i);
            i = parent;
        }
    }

    fn pop(&mut self) -> Option<ReferenceBlock> {
        let lowest = *self.heap.first()?;
        let last = self.heap.pop()?;
        if !self.heap.is_empty() {
            self.heap[0] = last;
            let mut i = 0;
            loop {
                let left = i * 2 + 1;
                let right = left + 1;
                let mut low = i;
                if left < self.heap.len() && self.y(self.heap[left]) < self.y(self.heap[low]) {
                    low = left;
                }
                if right < self.heap.len() && self.y(self.heap[right]) < self.y(self.heap[low]) {
                    low = right;
                }
                if low == i {
                    break;
                }
                self.heap.swap(low, i);
                i = low;
            }
        }
        Some(lowest)
    }
}

/// `looseGroups`: the groups nothing holds among the groups of `starts`, `gone` counted as removed.
pub fn loose_groups(
    store: &ReferenceStore,
    mut holds: impl FnMut(ReferenceBlock) -> bool,
    starts: impl IntoIterator<Item = ReferenceBlock>,
    gone: Option<ReferenceBlock>,
) -> Vec<Vec<ReferenceBlock>> {
    let mut held = HashSet::new();
    let mut loose = HashSet::new();
    let mut groups = Vec::new();
    for start in starts {
        if Some(start) == gone || held.contains(&start) || loose.contains(&start) {
            continue;
        }
        if store.get(start).is_none() {
            continue;
        }
        // JavaScript's Set keeps insertion order; a Vec beside the set does the same here.
        let mut reached_set = HashSet::from([start]);
        let mut reached = vec![start];
        let mut waiting = LowestFirst::new(store);
        waiting.push(start);
        let mut is_held = false;
        while let Some(block) = waiting.pop() {
            if held.contains(&block) || holds(block) {
                is_held = true;
                break;
            }
            for_each_touching(store, block, |other| {
                if Some(other) == gone || !reached_set.insert(other) {
                    return;
                }
                reached.push(other);
                waiting.push(other);
            });
        }
        if is_held {
            held.extend(reached);
        } else {
            loose.extend(reached.iter().copied());
            groups.push(reached);
        }
    }
    groups
}

/// The original's `Support`: starts noted at removals, a ground cache cleared by any ground change,
/// and the last `wouldFall` answer.
#[derive(Debug, Default)]
pub struct ReferenceSupport {
    starts: Vec<ReferenceBlock>,
    start_set: HashSet<ReferenceBlock>,
    grounded: HashMap<ReferenceBlock, bool>,
    ground_revision: u64,
    preview: Option<(ReferenceBlock, u64, Vec<ReferenceBlock>)>,
}

impl ReferenceSupport {
    pub fn new() -> Self {
        Self::default()
    }

    /// `removed`: the block is gone from the store; the blocks it touched are starts. The original
    /// walks the cells around the removed block, which the store no longer knows, so the
    /// block itself is passed.
    pub fn removed(&mut self, store: &ReferenceStore, id: ReferenceBlock, block: &Block) {
        self.grounded.remove(&id);
        let size = i32::from(block.size);
        let (x, y, z) = (block.x, block.y, block.z);
        let beside = |c: i32, low: i32| i32::from(c < low || c >= low + size);
        let mut seen = HashSet::new();
        for k in z - 1..=z + size {
            for j in y - 1..=y + size {
                for i in x - 1..=x + size {
                    let axes = beside(i, x) + beside(j, y) + beside(k, z);
                    if axes == 0 || axes == 3 {
                        continue;
                    }
                    if let Some(other) = store.at(i, j, k) {
                        if seen.insert(other) && self.start_set.insert(other) {
                            self.starts.push(other);
                        }
                    }
                }
            }
        }
    }

    /// Fills the ground cache for every block, the warm state the port reaches once every block
    /// has been asked about (the counterpart of `Support::survey` in the benchmark).
    pub fn warm<S: Samples>(&mut self, store: &ReferenceStore, field: &Field<S>) {
        for (id, block) in store.blocks.iter().enumerate() {
            if let Some(block) = block {
                self.grounded
                    .insert(id as ReferenceBlock, ground_holds(block, field));
            }
        }
    }

    /// `groundChanged`, as far as the cache goes: the original clears every ground answer.
    pub fn ground_changed(&mut self) {
        self.grounded.clear();
        self.ground_revision += 1;
    }

    /// `update`: the groups that lost their hold.
    pub fn update<S: Samples>(
        &mut self,
        store: &ReferenceStore,
        field: &Field<S>,
    ) -> Vec<Vec<ReferenceBlock>> {
        if self.starts.is_empty() {
            return Vec::new();
        }
        let starts = std::mem::take(&mut self.starts);
        self.start_set.clear();
        self.search(store, field, starts, None)
    }

    /// `looseGroups` with the original's `holds`: the ground's answer, kept in the cache.
    fn search<S: Samples>(
        &mut self,
        store: &ReferenceStore,
        field: &Field<S>,
        starts: Vec<ReferenceBlock>,
        gone: Option<ReferenceBlock>,
    ) -> Vec<Vec<ReferenceBlock>> {
        let grounded = &mut self.grounded;
        loose_groups(
            store,
            |id| {
                *grounded.entry(id).or_insert_with(|| {
                    store
                        .get(id)
                        .is_some_and(|block| ground_holds(block, field))
                })
            },
            starts,
            gone,
        )
    }

    /// `wouldFall`: what would fall with `block`, kept while nothing changes (the caller passes
    /// the store's revision).
    pub fn would_fall<S: Samples>(
        &mut self,
        store: &ReferenceStore,
        field: &Field<S>,
        block: ReferenceBlock,
        revision: u64,
    ) -> Vec<ReferenceBlock> {
        let revision = revision ^ (self.ground_revision << 32);
        if let Some((id, kept, falling)) = &self.preview {
            if *id == block && *kept == revision {
                return falling.clone();
            }
        }
        let mut starts = Vec::new();
        for_each_touching(store, block, |other| starts.push(other));
        let falling: Vec<ReferenceBlock> = self
            .search(store, field, starts, Some(block))
            .into_iter()
            .flatten()
            .collect();
        self.preview = Some((block, revision, falling.clone()));
        falling
    }
}
