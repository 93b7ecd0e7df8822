//! What holds a block (docs/support.md): blocks hold each other through a side or an edge, never a
//! corner alone; the ground holds a block when its density is positive at a point 20 cm outside
//! the middle of any cell of any of the block's sides; a block holds while a chain of touching
//! blocks reaches a block the ground holds. No strength, no weight. Such a block is held
//! (supported); a group of blocks none of which is held is loose (unsupported). Besides the
//! ground, anything the game adds through [`Holder`] (a support provider: rubble) holds blocks.
//!
//! A search starts from its starts (the blocks whose hold may have changed: a dirty set, or work
//! list) and looks at the lowest block it knows of first (a binary heap by height): the ground is
//! below, so a search from a roof goes straight down a wall and stops at the first held block.
//! Only a loose group is searched whole.
//!
//! [`Support`] searches only where something changed: its starts are the blocks that touched a
//! removed block and the blocks near ground that was dug. The ground's answer per block is kept
//! until the ground near that block changes (not cleared world-wide at every ground change), each
//! search's way to the ground is kept (a kept way: a cached path, followed by later searches),
//! and `would_fall` keeps its answer while neither the blocks nor the ground change.

use std::cmp::Reverse;
use std::collections::{BTreeSet, BinaryHeap};

use blockfall_physics::workers::WorkerPool;

use crate::blocks::store::{region_of, Block, BlockId, BlockStore, CELL};
use crate::terrain::{Field, SampleBox, SampleWindow, Samples};

/// How far solid ground may be from a block's box and still hold it, in meters.
pub const GROUND_REACH: f32 = 0.2;

/// Something besides the ground that holds blocks: rubble, the pieces lying at rest. A block
/// is held when the ground or a holder is solid at one of its probe points.
pub trait Holder: Sync {
    /// Whether anything of it may lie in the box (meters): a cheap test before `holds_at`.
    fn near(&self, low: [f32; 3], high: [f32; 3]) -> bool;
    /// Whether the point is inside it.
    fn holds_at(&self, point: [f32; 3]) -> bool;
}

/// No holder but the ground.
#[derive(Debug, Clone, Copy, Default)]
pub struct GroundOnly;

impl Holder for GroundOnly {
    fn near(&self, _low: [f32; 3], _high: [f32; 3]) -> bool {
        false
    }

    fn holds_at(&self, _point: [f32; 3]) -> bool {
        false
    }
}

/// Whether the ground or `holder` holds a block: solid at a point [`GROUND_REACH`] outside the
/// middle of any cell of any side.
pub fn held<S: Samples>(block: &Block, field: &Field<S>, holder: &dyn Holder) -> bool {
    if ground_holds(block, field) {
        return true;
    }
    let meters = f32::from(block.size) * CELL;
    let low = block.low().map(|c| c as f32 * CELL - GROUND_REACH);
    let high = block.low().map(|c| c as f32 * CELL + meters + GROUND_REACH);
    holder.near(low, high)
        && probe_sides(
            block,
            |point| if holder.holds_at(point) { 1.0 } else { -1.0 },
        )
}

/// The most blocks that can touch one block by a side or an edge: a 4-cell block with 1-cell
/// blocks all around it (6 sides of 16 cells, 12 edges of 4).
const MOST_TOUCHING: usize = 6 * 16 + 12 * 4;

/// Calls `visit` with every block that touches `block` by a side or an edge, each once. They fill
/// the cells around the block that lie beside it on one axis (a side) or two (an edge); a cell
/// beside it on all three meets it only at a corner, which holds nothing.
pub fn for_each_touching(store: &BlockStore, block: &Block, mut visit: impl FnMut(BlockId)) {
    touching_cells(store, block, |id, _| visit(id));
}

/// [`for_each_touching`], with the first cell where each block was found beside `block`.
fn touching_cells(store: &BlockStore, block: &Block, mut visit: impl FnMut(BlockId, [i32; 3])) {
    let size = i32::from(block.size);
    let low = block.low();
    let high = low.map(|c| c.saturating_add(size - 1));
    let beside = |c: i32, axis: usize| u8::from(c < low[axis] || c > high[axis]);
    let mut seen = [None::<BlockId>; MOST_TOUCHING];
    let mut count = 0;
    store.for_each_cell_in(
        low.map(|c| c.saturating_sub(1)),
        high.map(|c| c.saturating_add(1)),
        |cell, other| {
            let axes = beside(cell[0], 0) + beside(cell[1], 1) + beside(cell[2], 2);
            if axes == 0 || axes == 3 || seen[..count].contains(&Some(other)) {
                return;
            }
            if count < MOST_TOUCHING {
                seen[count] = Some(other);
                count += 1;
            }
            visit(other, cell);
        },
    );
}

/// Whether the ground holds a block: positive density at a point [`GROUND_REACH`] outside the
/// middle of any cell of any side (below, beside against a cliff, or above on a cave's ceiling).
///
/// The probes of one block all lie in a box at most 2.4 m wide, so its samples (at most 5³) are
/// read from the field once, under one lock per brick, and blended here exactly as
/// [`Field::probe`] blends them. When no sample of the box is positive no blend of them is
/// either, and the answer is no without a single probe: most blocks of a building stand well
/// above the ground.
pub fn ground_holds<S: Samples>(block: &Block, field: &Field<S>) -> bool {
    /// The largest box of samples a block's probes need: 5³ for a 2 m block.
    const MOST: usize = 6 * 6 * 6;
    let meters = f32::from(block.size) * CELL;
    let low = block.low().map(|c| c as f32 * CELL);
    let (first, size) = SampleWindow::covering(
        low.map(|c| c - GROUND_REACH),
        low.map(|c| c + meters + GROUND_REACH),
    );
    let volume = size[0] * size[1] * size[2];
    if volume == 0 || volume > MOST {
        // Coordinates so large that f32 meters lose the cell: ask the field point by point.
        return probe_sides(block, |point| {
            field.probe(point[0], point[1], point[2]).density
        });
    }
    thread_local! {
        static BUFFER: std::cell::RefCell<Vec<f32>> = const { std::cell::RefCell::new(Vec::new()) };
    }
    BUFFER.with_borrow_mut(|buffer| {
        let window = field.window(first, size, buffer);
        if !window.any_inside() {
            return false;
        }
        probe_sides(block, |point| {
            window
                .probe(point[0], point[1], point[2])
                .unwrap_or_else(|| field.probe(point[0], point[1], point[2]))
                .density
        })
    })
}

/// Whether `density` is positive at any of the block's probe points: [`GROUND_REACH`] outside
/// the middle of each cell of each side.
fn probe_sides(block: &Block, density: impl Fn([f32; 3]) -> f32) -> bool {
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
                    if density(point) > 0.0 {
                        return true;
                    }
                }
            }
        }
    }
    false
}

/// The groups of blocks nothing holds, among the groups the `starts` belong to; `gone` counts as
/// taken away already. Each search goes lowest block first and stops at the first block `holds`
/// says yes to: then its whole group holds. Groups come in the order of their first start, each
/// sorted by block id, so the answer does not depend on hash order.
pub fn loose_groups(
    store: &BlockStore,
    holds: impl FnMut(BlockId, &Block) -> bool,
    starts: impl IntoIterator<Item = BlockId>,
    gone: Option<BlockId>,
) -> Vec<Vec<BlockId>> {
    Search::default().loose_groups(store, holds, starts, gone)
}

/// The blocks that would fall if `block` were taken away: every loose group among its
/// neighbours' groups, with `block` counted as gone.
pub fn would_fall<S: Samples>(
    store: &BlockStore,
    field: &Field<S>,
    block: BlockId,
) -> Vec<BlockId> {
    Search::default().falling_without(store, block, |_, candidate| ground_holds(candidate, field))
}

/// What the searches know about a block slot, together so that a search touching a block
/// touches one cache line: stamps of the search or the call that reached or judged it (an
/// old stamp means "not seen", so starting afresh costs nothing), and its kept way.
#[derive(Debug, Clone, Copy, Default)]
struct Mark {
    /// The search that reached the block.
    reached: u32,
    /// The call that judged the block's group, and whether it holds.
    judged: u32,
    held: bool,
    /// The way to the ground a search found from this block.
    toward: Toward,
    /// The block the current search found this one from.
    found_from: Option<BlockId>,
}

/// The way to the ground a search found from a block, kept for later searches.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
enum Toward {
    #[default]
    Unknown,
    /// The ground held the block.
    Ground,
    /// A touching block whose own way led to the ground.
    Block(BlockId),
}

/// How many steps a kept way to the ground is followed before the search gives up on it (ways
/// can be rewritten into loops by later searches; following one is never wrong, only slow).
const LONGEST_WAY: usize = 1024;

/// The working memory of the searches, kept between them: tables by block slot instead of hash
/// sets made per search, and one heap.
///
/// It also remembers ways to the ground: when a search from a start ends at a held block, each
/// block on the chain that led there points to the next one. A later search that meets such a
/// block follows its pointers; if every block on the way is still there (an id names one
/// placement of one block, so two live blocks that touched still touch) and the last one is
/// still held by the ground, the block holds, without searching its neighbours. Breaking a
/// block in a building then costs a walk down the walls' kept ways, not a search of them.
#[derive(Debug, Default)]
struct Search {
    marks: Vec<Mark>,
    /// The stamp of the current search and of the current call.
    search: u32,
    call: u32,
    /// Blocks waiting, the lowest first; among blocks of one height the one found last, so a
    /// search runs along a floor to the nearest wall instead of flooding the floor around it.
    waiting: BinaryHeap<(Reverse<i32>, u32, BlockId)>,
    reached: Vec<BlockId>,
    counters: Counters,
}

/// What the searches have done so far: for benchmarks and statistics.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Counters {
    /// Searches started (one per start whose group was not judged yet).
    pub searches: u64,
    /// Blocks taken from the heap and looked at.
    pub visited: u64,
    /// Ground tests worked out (not answered from what was kept).
    pub ground_tests: u64,
    /// Steps along kept ways to the ground that still held.
    pub way_steps: u64,
}

impl Search {
    /// Starts a call: a new stamp, the tables grown to the store's slots.
    fn begin_call(&mut self, store: &BlockStore) {
        if self.marks.len() < store.slot_count() {
            self.marks.resize(store.slot_count(), Mark::default());
        }
        self.call = self.call.wrapping_add(1);
        if self.call == 0 {
            // After four billion calls the stamps come round again: forget them (not the ways).
            for mark in &mut self.marks {
                *mark = Mark {
                    toward: mark.toward,
                    ..Mark::default()
                };
            }
            self.call = 1;
            self.search = 0;
        }
    }

    /// Starts a search within the call.
    fn begin_search(&mut self) {
        self.search = self.search.wrapping_add(1);
        if self.search == 0 {
            for mark in &mut self.marks {
                mark.reached = 0;
            }
            self.search = 1;
        }
        self.waiting.clear();
        self.reached.clear();
        self.counters.searches += 1;
    }

    fn loose_groups(
        &mut self,
        store: &BlockStore,
        mut holds: impl FnMut(BlockId, &Block) -> bool,
        starts: impl IntoIterator<Item = BlockId>,
        gone: Option<BlockId>,
    ) -> Vec<Vec<BlockId>> {
        self.begin_call(store);
        let mut groups = Vec::new();
        for start in starts {
            // A start may have been removed since it was noted.
            let Some(start_block) = store.get(start) else {
                continue;
            };
            if Some(start) == gone || self.marks[start.slot()].judged == self.call {
                continue;
            }
            self.begin_search();
            let (search, call) = (self.search, self.call);
            self.marks[start.slot()].reached = search;
            self.reached.push(start);
            let mut order = 0u32;
            self.waiting.push((Reverse(start_block.y), order, start));
            let mut is_held = false;
            while let Some((_, _, id)) = self.waiting.pop() {
                let Some(block) = store.get(id) else {
                    continue;
                };
                self.counters.visited += 1;
                let mark = self.marks[id.slot()];
                let held = (mark.judged == call && mark.held)
                    || self.way_holds(store, id, gone, &mut holds)
                    || holds(id, block)
                        .then(|| self.marks[id.slot()].toward = Toward::Ground)
                        .is_some();
                if held {
                    is_held = true;
                    // Each block of the chain from the start points on toward this one.
                    let mut at = id;
                    while at != start {
                        let Some(from) = self.marks[at.slot()].found_from else {
                            break;
                        };
                        self.marks[from.slot()].toward = Toward::Block(at);
                        at = from;
                    }
                    break;
                }
                let (marks, waiting, reached) =
                    (&mut self.marks, &mut self.waiting, &mut self.reached);
                touching_cells(store, block, |other, cell| {
                    let mark = &mut marks[other.slot()];
                    if Some(other) == gone || mark.reached == search {
                        return;
                    }
                    mark.reached = search;
                    mark.found_from = Some(id);
                    reached.push(other);
                    // The height of the cell where it touches: close enough to the block's own
                    // for the order, without looking the block up.
                    order = order.wrapping_add(1);
                    waiting.push((Reverse(cell[1]), order, other));
                });
            }
            for id in &self.reached {
                let mark = &mut self.marks[id.slot()];
                mark.judged = call;
                mark.held = is_held;
            }
            if !is_held {
                let mut group = self.reached.clone();
                group.sort_unstable();
                groups.push(group);
            }
        }
        groups
    }

    /// Whether the kept way from `start` still leads to the ground: every block on it is there
    /// (and is not `gone`), and the ground holds the last. The blocks of a way that holds are
    /// judged held for the rest of the call, so the next start's way stops where it meets them.
    fn way_holds(
        &mut self,
        store: &BlockStore,
        start: BlockId,
        gone: Option<BlockId>,
        holds: &mut impl FnMut(BlockId, &Block) -> bool,
    ) -> bool {
        /// How a walk along a kept way ended.
        enum End {
            Held,
            /// Through `gone`: the way is fine in the store, only not for this question.
            Hypothetical,
            /// A removed block, ground that no longer holds, no way, or a loop.
            Dead,
        }
        let mut at = start;
        let mut steps = 0;
        let end = loop {
            let mark = self.marks[at.slot()];
            if mark.judged == self.call && mark.held {
                break End::Held;
            }
            match mark.toward {
                Toward::Unknown => break End::Dead,
                Toward::Ground => {
                    let held = store.get(at).is_some_and(|block| holds(at, block));
                    break if held { End::Held } else { End::Dead };
                }
                Toward::Block(next) => {
                    if Some(next) == gone {
                        break End::Hypothetical;
                    }
                    if store.get(next).is_none() || steps == LONGEST_WAY {
                        break End::Dead;
                    }
                    at = next;
                    steps += 1;
                }
            }
        };
        let mut at = start;
        match end {
            End::Hypothetical => false,
            End::Dead => {
                // Every block walked leads to a dead end: forget their ways, so that the next
                // walk meeting one stops there instead of walking the same dead way again.
                for _ in 0..=steps {
                    match std::mem::take(&mut self.marks[at.slot()].toward) {
                        Toward::Block(next) => at = next,
                        _ => break,
                    }
                }
                false
            }
            End::Held => {
                self.counters.way_steps += steps as u64;
                for _ in 0..steps {
                    let mark = &mut self.marks[at.slot()];
                    mark.judged = self.call;
                    mark.held = true;
                    match mark.toward {
                        Toward::Block(next) => at = next,
                        _ => break,
                    }
                }
                true
            }
        }
    }

    /// Every block of the loose groups among `block`'s neighbours' groups, with `block` counted
    /// as gone, sorted by id; `holds` is the ground's answer.
    fn falling_without(
        &mut self,
        store: &BlockStore,
        block: BlockId,
        holds: impl FnMut(BlockId, &Block) -> bool,
    ) -> Vec<BlockId> {
        let Some(removed) = store.get(block) else {
            return Vec::new();
        };
        let mut starts = Vec::new();
        for_each_touching(store, removed, |other| starts.push(other));
        let mut falling: Vec<BlockId> = self
            .loose_groups(store, holds, starts, Some(block))
            .into_iter()
            .flatten()
            .collect();
        falling.sort_unstable();
        falling
    }
}

/// The ground's answer for each block slot, kept until the ground near the block changes.
#[derive(Debug, Default)]
struct GroundAnswers {
    /// The block the answer is for (a slot's later block has another id) and the answer.
    answers: Vec<Option<(BlockId, bool)>>,
    tests: u64,
}

impl GroundAnswers {
    fn get_or_ask<S: Samples>(
        &mut self,
        id: BlockId,
        block: &Block,
        field: &Field<S>,
        holder: &dyn Holder,
    ) -> bool {
        if self.answers.len() <= id.slot() {
            self.answers.resize(id.slot() + 1, None);
        }
        match self.answers[id.slot()] {
            Some((kept, holds)) if kept == id => holds,
            _ => {
                let holds = held(block, field, holder);
                self.tests += 1;
                self.answers[id.slot()] = Some((id, holds));
                holds
            }
        }
    }

    fn set(&mut self, id: BlockId, holds: bool) {
        if self.answers.len() <= id.slot() {
            self.answers.resize(id.slot() + 1, None);
        }
        self.answers[id.slot()] = Some((id, holds));
    }

    fn forget(&mut self, id: BlockId) {
        if let Some(answer) = self.answers.get_mut(id.slot()) {
            if answer.is_some_and(|(kept, _)| kept == id) {
                *answer = None;
            }
        }
    }

    fn len(&self) -> usize {
        self.answers
            .iter()
            .filter(|answer| answer.is_some())
            .count()
    }
}

/// Keeps track of which blocks may have lost their hold, and finds the loose groups.
#[derive(Debug, Default)]
pub struct Support {
    /// Blocks whose hold may have changed since the last update, in id order.
    starts: BTreeSet<BlockId>,
    /// Whether the ground holds a block, kept until the ground near the block changes.
    grounded: GroundAnswers,
    search: Search,
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
        self.grounded.forget(id);
        self.starts.remove(&id);
        for_each_touching(store, block, |other| {
            self.starts.insert(other);
        });
    }

    /// The ground changed in `changed` (an edit's box of samples): the blocks near it may have
    /// lost their hold, and only their ground answers are forgotten.
    pub fn ground_changed(&mut self, store: &BlockStore, changed: &SampleBox) {
        // A sample changes the density up to one meter around it (the trilinear blend).
        let low = changed.low.map(|c| c as f32 - 1.0);
        let high = changed.high.map(|c| c as f32 + 1.0);
        self.solid_changed(store, low, high);
    }

    /// Something solid that may hold blocks changed in the box `low..high` (meters): rubble
    /// came to rest there or moved away. The blocks near it may have lost (or found) their
    /// hold: their answers are forgotten and they are searched again.
    pub fn solid_changed(&mut self, store: &BlockStore, low: [f32; 3], high: [f32; 3]) {
        self.ground_revision += 1;
        // A block asks GROUND_REACH outside its box.
        let low = low.map(|c| c - GROUND_REACH);
        let high = high.map(|c| c + GROUND_REACH);
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
                            self.grounded.forget(id);
                            self.starts.insert(id);
                        }
                    }
                }
            }
        }
    }

    /// Learns every block at once, as when a saved world or a generated town is loaded: the
    /// ground's answer for each block (worked out on the workers), then a search from every
    /// block, lowest first, which leaves each block a kept way to the ground. Later breaks and
    /// previews then walk kept ways instead of testing the ground. Returns the loose groups
    /// among all blocks (blocks that were placed floating), which stay in the store as with
    /// [`Support::update`]; any starts noted so far are searched too.
    pub fn survey<S: Samples>(
        &mut self,
        store: &BlockStore,
        field: &Field<S>,
        pool: &WorkerPool,
    ) -> Vec<Vec<BlockId>> {
        let holder = &GroundOnly;
        let mut blocks: Vec<(BlockId, Block)> =
            store.iter().map(|(id, block)| (id, *block)).collect();
        let answers = pool.map(&blocks, |(_, block)| held(block, field, holder));
        for ((id, _), holds) in blocks.iter().zip(answers) {
            self.grounded.set(*id, holds);
        }
        blocks.sort_by_key(|(id, block)| (block.y, *id));
        let starts = std::mem::take(&mut self.starts);
        let grounded = &mut self.grounded;
        self.search.loose_groups(
            store,
            |id, block| grounded.get_or_ask(id, block, field, holder),
            blocks.into_iter().map(|(id, _)| id).chain(starts),
            None,
        )
    }

    /// The groups of blocks that lost their hold since the last update (they stay in the store:
    /// the caller decides what becomes of them).
    pub fn update<S: Samples>(
        &mut self,
        store: &BlockStore,
        field: &Field<S>,
    ) -> Vec<Vec<BlockId>> {
        self.update_with(store, field, &GroundOnly)
    }

    /// [`Support::update`] with `holder` holding blocks besides the ground.
    pub fn update_with<S: Samples>(
        &mut self,
        store: &BlockStore,
        field: &Field<S>,
        holder: &dyn Holder,
    ) -> Vec<Vec<BlockId>> {
        if self.starts.is_empty() {
            return Vec::new();
        }
        let starts = std::mem::take(&mut self.starts);
        let grounded = &mut self.grounded;
        self.search.loose_groups(
            store,
            |id, block| grounded.get_or_ask(id, block, field, holder),
            starts,
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
        self.would_fall_with(store, field, block, &GroundOnly)
    }

    /// [`Support::would_fall`] with `holder` holding blocks besides the ground.
    pub fn would_fall_with<S: Samples>(
        &mut self,
        store: &BlockStore,
        field: &Field<S>,
        block: BlockId,
        holder: &dyn Holder,
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
            let falling = self.search.falling_without(store, block, |id, candidate| {
                grounded.get_or_ask(id, candidate, field, holder)
            });
            self.preview = Some((block, revision, self.ground_revision, falling));
        }
        self.preview
            .as_ref()
            .map_or(&[], |(_, _, _, falling)| falling)
    }

    /// Whether blocks are waiting to be searched (since the last update).
    pub fn pending(&self) -> bool {
        !self.starts.is_empty()
    }

    /// What the searches have done since the support was made.
    pub fn counters(&self) -> Counters {
        Counters {
            ground_tests: self.grounded.tests,
            ..self.search.counters
        }
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

    /// A noisy field with caves and overhangs, for tests that compare ways of asking it.
    fn rough() -> Field<impl Fn(i32, i32, i32) -> f32 + Sync> {
        Field::new(|x: i32, y: i32, z: i32| {
            let (x, y, z) = (x as f32, y as f32, z as f32);
            2.0 + (x * 0.7).sin() * 2.5 + (z * 0.45).cos() * 2.0 - y
                + (x * 0.3 + y * 0.9).sin() * 1.5
        })
    }

    #[test]
    fn the_batched_ground_test_equals_probing_each_point() {
        let field = rough();
        let mut held = 0;
        for x in -20..20 {
            for y in -6..14 {
                for z in [-7, 0, 5] {
                    for size in [1u8, 2, 4] {
                        let block = Block::new(x, y, z, size, 0, 0, false).unwrap();
                        let expected =
                            probe_sides(&block, |p| field.probe(p[0], p[1], p[2]).density);
                        assert_eq!(ground_holds(&block, &field), expected, "{block:?}");
                        held += usize::from(expected);
                    }
                }
            }
        }
        assert!(held > 100 && held < 7000, "both answers occur: {held} held");
    }

    /// Whether `support` (after `update`) agrees with a search of every block from scratch, and
    /// `would_fall` with a fresh search, on every block.
    fn check_against_scratch<S: Samples>(
        support: &mut Support,
        store: &BlockStore,
        field: &Field<S>,
    ) {
        let all: Vec<BlockId> = store.iter().map(|(id, _)| id).collect();
        for &id in &all {
            let expected = would_fall(store, field, id);
            assert_eq!(
                support.would_fall(store, field, id),
                expected.as_slice(),
                "{id:?}"
            );
        }
    }

    #[test]
    fn kept_ways_give_the_answers_of_a_search_from_scratch() {
        let field = rough();
        let pool = WorkerPool::new(2).unwrap();
        let mut random = 0x2545_f491_4f6c_dd1du64;
        let mut next = move |n: u64| {
            random ^= random << 13;
            random ^= random >> 7;
            random ^= random << 17;
            (random % n) as i32
        };
        for round in 0..6 {
            // Walls, floors and stray blocks over rough ground: many ways, many loops.
            let mut store = BlockStore::new();
            for _ in 0..500 {
                let (x, z) = (next(12) * 2 - 12, next(6) * 2 - 6);
                let y = next(10) * 2 - 2;
                let _ = store.add(plain(x, y, z));
            }
            let mut support = Support::new();
            if round % 2 == 0 {
                // Half the rounds learn everything first, half start cold.
                for group in support.survey(&store, &field, &pool) {
                    for id in group {
                        store.remove(id);
                    }
                }
            } else {
                let all: Vec<BlockId> = store.iter().map(|(id, _)| id).collect();
                for group in loose_groups(&store, |_, b| ground_holds(b, &field), all, None) {
                    for id in group {
                        store.remove(id);
                    }
                }
            }
            check_against_scratch(&mut support, &store, &field);
            for step in 0..60 {
                let ids: Vec<(BlockId, Block)> = store.iter().map(|(id, b)| (id, *b)).collect();
                if ids.is_empty() {
                    break;
                }
                let (id, block) = ids[next(ids.len() as u64) as usize];
                store.remove(id);
                support.removed(&store, id, &block);
                let fell: BTreeSet<BlockId> = support
                    .update(&store, &field)
                    .into_iter()
                    .flatten()
                    .collect();
                // From scratch: everything loose after the break.
                let all: Vec<BlockId> = store.iter().map(|(id, _)| id).collect();
                let expected: BTreeSet<BlockId> =
                    loose_groups(&store, |_, b| ground_holds(b, &field), all, None)
                        .into_iter()
                        .flatten()
                        .collect();
                assert_eq!(fell, expected, "round {round}, step {step}");
                for &id in &fell {
                    let block = store.remove(id).unwrap();
                    support.removed(&store, id, &block);
                }
                // Now and then the broken block goes back (a new id in an old place), so ways
                // must not trust an old id's slot.
                if step % 3 == 0 {
                    if let Ok(back) = store.add(block) {
                        // Only where it holds: placing does not make anything fall.
                        let loose =
                            loose_groups(&store, |_, b| ground_holds(b, &field), [back], None);
                        if !loose.is_empty() {
                            store.remove(back);
                        }
                    }
                }
                if step % 10 == 9 {
                    check_against_scratch(&mut support, &store, &field);
                }
            }
        }
    }
}
