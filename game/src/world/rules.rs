//! The rules that tie the blocks, the ground, the support and the pieces together
//! (docs/support.md, docs/physics.md): what a break, a place or a dig sets falling, what
//! wakes, and a frame of the pieces and the player. The scene runner's events and the tools call
//! these, so `sim`, scripted runs and the window play by one set of rules.

use blockfall_physics::{BodyHandle, PhysicsError};

use crate::blocks::store::{region_of, Block, BlockError, BlockId, StoreEvent, CELL, SIZES};
use crate::pieces::{BreakPieceError, Lost, PieceError, Split};
use crate::player::Controls;
use crate::support::{Holder, GROUND_REACH};
use crate::terrain::{EditError, SampleBox};

use super::history::Edit;
use super::scene_solids::{SceneSolids, WithRubble};
use super::World;

/// Why a block was not placed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PlaceRefusal {
    /// Its cells are taken by blocks, or it would reach into rubble or a falling piece.
    Occupied,
    /// It would reach into the walking player.
    Player,
    /// The world holds the most blocks it may, or its blocks would spread past the most
    /// bricks ([`BlockError::Full`], [`BlockError::Spread`]; docs/saves.md, "Limits").
    Full(BlockError),
}

impl PlaceRefusal {
    /// The reason as the trace names it.
    pub fn name(self) -> &'static str {
        match self {
            PlaceRefusal::Occupied => "occupied",
            PlaceRefusal::Player => "player",
            PlaceRefusal::Full(_) => "full",
        }
    }
}

/// How many blocks an edit set falling (as pieces).
pub type Settled = usize;

impl World {
    /// Removes the block filling `cell`; whatever it held falls. Returns whether a block was
    /// there, and how many blocks fell with it. Recorded for undo.
    pub fn break_cell(&mut self, cell: [i32; 3]) -> (bool, Settled) {
        match self.blocks.at(cell[0], cell[1], cell[2]) {
            Some(id) => self.break_block(id),
            None => (false, self.settle()),
        }
    }

    /// Removes a block by id; whatever it held falls. Recorded for undo (as a break of the
    /// block's lowest cell, for redo).
    pub fn break_block(&mut self, id: BlockId) -> (bool, Settled) {
        let begun = match self.blocks.get(id) {
            Some(block) => self.begin_edit(Edit::Break { cell: block.low() }),
            None => false,
        };
        let removed = self.blocks.remove(id);
        if let Some(block) = &removed {
            self.note_break(block);
        }
        let fell = self.settle();
        self.end_edit(begun);
        (removed.is_some(), fell)
    }

    /// Why `block` may not be placed now, or `None` when it may: it must fit between the
    /// blocks, stay clear of every piece (moving or at rest) and of the walking player.
    pub fn refuse_place(&self, block: &Block) -> Option<PlaceRefusal> {
        if !self.blocks.fits(block.x, block.y, block.z, block.size) {
            return Some(PlaceRefusal::Occupied);
        }
        let meters = f32::from(block.size) * CELL;
        let low = block.low().map(|c| c as f32 * CELL);
        let high = low.map(|c| c + meters);
        // Not into rubble (where its middle would be inside a resting piece) nor any piece.
        let middle: [f32; 3] = std::array::from_fn(|axis| low[axis] + meters / 2.0);
        if Holder::holds_at(&self.pieces.rubble(), middle) || self.pieces.overlaps_box(low, high) {
            return Some(PlaceRefusal::Occupied);
        }
        let clear = !self.embodied
            || self
                .player
                .leaves_room(|point| crate::solids::block_distance_plain(block, point));
        if !clear {
            return Some(PlaceRefusal::Player);
        }
        None
    }

    /// Places `block` if [`World::refuse_place`] allows it. Recorded for undo.
    pub fn place(&mut self, block: Block) -> Result<BlockId, PlaceRefusal> {
        if let Some(refusal) = self.refuse_place(&block) {
            return Err(refusal);
        }
        let begun = self.begin_edit(Edit::Place { block });
        let id = self.blocks.add(block).map_err(|error| match error {
            BlockError::Full | BlockError::Spread => PlaceRefusal::Full(error),
            _ => PlaceRefusal::Occupied,
        });
        // Adding a block holds more, never less: the support need not hear of it.
        self.drain_store_events();
        self.end_edit(begun);
        id
    }

    /// Gives block `id` the cut mask `cuts` (a bit per edge, 0..12) and `slope`: the chisel
    /// cuts or restores an edge, or toggles the slope. Returns whether the block is there and
    /// the cuts are valid. Recorded for undo when the block changed.
    pub fn reshape(&mut self, id: BlockId, cuts: u16, slope: bool) -> bool {
        let before = self.blocks.get(id).copied();
        let begun = match before {
            Some(block) => self.begin_edit(Edit::Reshape {
                cell: block.low(),
                cuts,
                slope,
            }),
            None => false,
        };
        let done = self.blocks.reshape(id, cuts, slope).is_ok();
        // A block's cells stay its own: nothing holds more or less.
        self.drain_store_events();
        if let (true, Some(before), Some(&after)) = (done, before, self.blocks.get(id)) {
            self.record_reshape(before, after);
        }
        self.end_edit(begun);
        done
    }

    /// Digs (`dig`) or builds a sphere of `radius` meters around `centre`; what loses its hold
    /// falls, rubble on the changed ground wakes. Returns the samples that changed and how many
    /// blocks fell. Recorded for undo when a sample changed.
    pub fn edit_sphere(
        &mut self,
        dig: bool,
        centre: [f32; 3],
        radius: f32,
    ) -> Result<(Option<SampleBox>, Settled), EditError> {
        let edited = if dig {
            self.field.dig(centre, radius)
        } else {
            self.field.build(centre, radius)
        };
        let changed = edited?;
        let begun = changed.is_some()
            && self.begin_edit(Edit::Ground {
                dig,
                centre,
                radius,
            });
        if let Some(changed) = changed {
            self.record_ground(changed);
            self.ground_edited(changed);
            self.note_ground_edit(dig, centre, radius);
        }
        let fell = self.settle();
        self.end_edit(begun);
        Ok((changed, fell))
    }

    /// The ground's samples in `changed` changed: noted for meshing, the blocks near it
    /// searched again, and rubble whose points may lie on it woken.
    pub(super) fn ground_edited(&mut self, changed: SampleBox) {
        self.note_changed_ground(changed);
        self.support.ground_changed(&self.blocks, &changed);
        // Rubble whose points may lie on the changed ground wakes (the blend reaches a meter
        // from a changed sample).
        let low = changed.low.map(|c| c as f32 - 1.0 - GROUND_REACH);
        let high = changed.high.map(|c| c as f32 + 1.0 + GROUND_REACH);
        for (_, low, high) in self.pieces.wake_in(low, high) {
            self.support.solid_changed(&self.blocks, low, high);
        }
    }

    /// Breaks the block whose lowest cell is `cell` (in the piece's own grid) out of piece
    /// `index`: the rest splits into the groups that still touch. Returns the new pieces.
    pub fn break_piece_block(
        &mut self,
        index: u32,
        cell: [i32; 3],
    ) -> Result<(Vec<u32>, Settled), BreakPieceError> {
        let handle = self
            .pieces
            .by_index(index)
            .ok_or(BreakPieceError::NoPiece(index))?;
        let bounds = self.pieces.bounds(handle);
        let (_, made) = self.pieces.break_block(handle, cell)?;
        // The pieces an edit set falling are its pieces still, broken apart.
        self.record_split(handle, &made);
        let ids = made.iter().map(|handle| handle.index()).collect();
        if let Some((low, high)) = bounds {
            // What lay on it wakes, and the blocks it held are searched again.
            self.support.solid_changed(&self.blocks, low, high);
            for (_, low, high) in self.pieces.wake_in(low, high) {
                self.support.solid_changed(&self.blocks, low, high);
            }
        }
        Ok((ids, self.settle()))
    }

    /// The pieces that broke where they were struck in the last [`World::step`], in the order
    /// they broke.
    pub fn splits(&self) -> &[Split] {
        &self.splits
    }

    /// Sets a piece moving at `velocity` (m/s) with `spin` (rad/s), as a throw or a blast
    /// would ([`Pieces::launch`](crate::pieces::Pieces::launch)). Rubble wakes, with what lies
    /// on it; the blocks it held are searched again and what lost its hold falls. Returns how
    /// many blocks fell; a stale handle or a value that is not finite changes nothing.
    pub fn launch_piece(
        &mut self,
        handle: BodyHandle,
        velocity: [f64; 3],
        spin: [f64; 3],
    ) -> Result<Settled, PhysicsError> {
        let woken = self.pieces.launch(handle, velocity, spin)?;
        for (_, low, high) in &woken {
            self.support.solid_changed(&self.blocks, *low, *high);
        }
        Ok(if woken.is_empty() { 0 } else { self.settle() })
    }

    /// Sets `blocks` down as one piece where they lie (a scene's or a test's set-up; the
    /// blocks are not taken from the grid: a standing block leaves it only by the rules, as
    /// [`World::break_cell`] does). It falls from the next [`World::step`], and the support hears
    /// of it when it comes to rest, as of any piece. The caller sets it clear of the blocks and
    /// the player.
    pub fn add_piece(&mut self, blocks: Vec<Block>) -> Result<BodyHandle, PieceError> {
        self.pieces.add(blocks)
    }

    /// [`World::add_piece`], the piece turned about its middle by `orientation` (a quaternion
    /// `[x, y, z, w]`; see [`Pieces::add_turned`](crate::pieces::Pieces::add_turned)).
    pub fn add_piece_turned(
        &mut self,
        blocks: Vec<Block>,
        orientation: [f64; 4],
    ) -> Result<BodyHandle, PieceError> {
        self.pieces.add_turned(blocks, orientation)
    }

    /// The blocks that would fall with the block filling `cell` if it were broken.
    pub fn would_fall_at(&mut self, cell: [i32; 3]) -> Vec<BlockId> {
        match self.blocks.at(cell[0], cell[1], cell[2]) {
            Some(id) => self.would_fall(id),
            None => Vec::new(),
        }
    }

    /// The blocks that would fall with block `id` if it were broken (the support keeps the
    /// answer while the blocks and the ground stay the same).
    pub fn would_fall(&mut self, id: BlockId) -> Vec<BlockId> {
        self.support
            .would_fall_with(&self.blocks, &self.field, id, &self.pieces.rubble())
            .to_vec()
    }

    /// Tells the support what left the store, then every group that lost its hold leaves the
    /// grid and falls as a piece; rubble that lay on a block that left wakes, and the blocks
    /// it held are searched again, until nothing more changes. Returns how many blocks fell.
    pub(super) fn settle(&mut self) -> Settled {
        let mut fell = 0;
        loop {
            self.forward_removals();
            if !self.support.pending() {
                break;
            }
            let rubble = self.pieces.rubble();
            let groups = self.support.update_with(&self.blocks, &self.field, &rubble);
            for group in groups {
                let blocks = group.len();
                match self.pieces.break_off(&group, &mut self.blocks) {
                    Ok(Some(handle)) => {
                        fell += blocks;
                        self.record_piece(handle);
                    }
                    Ok(None) => {}
                    Err(error) => {
                        // Blocks of the store make a valid piece unless the world is at its
                        // limits: then the group crumbles, and the frame's report says so.
                        log::warn!("{blocks} loose blocks crumbled: {error}");
                        self.lost.push(Lost {
                            piece: None,
                            blocks,
                            why: format!("they crumbled: {error}"),
                        });
                    }
                }
            }
        }
        fell
    }

    /// Tells the support which blocks left the store, and wakes the rubble lying on them.
    fn forward_removals(&mut self) {
        for event in self.drain_store_events() {
            if let StoreEvent::Removed(id, block) = event {
                self.support.removed(&self.blocks, id, &block);
                let meters = f32::from(block.size) * CELL;
                let low = block.low().map(|c| c as f32 * CELL - 0.05);
                let high = low.map(|c| c + meters + 0.1);
                for (_, low, high) in self.pieces.wake_in(low, high) {
                    self.support.solid_changed(&self.blocks, low, high);
                }
            }
        }
    }

    /// The store's events since the last call; the regions they touch are marked for meshing.
    fn drain_store_events(&mut self) -> Vec<StoreEvent> {
        let events: Vec<StoreEvent> = self.blocks.drain_events().collect();
        for event in &events {
            let (StoreEvent::Added(_, block)
            | StoreEvent::Removed(_, block)
            | StoreEvent::Reshaped(_, block)) = event;
            self.mark_regions_around(block);
        }
        self.record_events(&events);
        events
    }

    /// Marks the regions of every block whose drawn sides `block` may cover or uncover: blocks
    /// whose lowest cell lies up to the largest size ([`SIZES`]) in cells below it or one beyond it, on each axis.
    fn mark_regions_around(&mut self, block: &Block) {
        let low = block.low();
        let reach = i32::from(SIZES[SIZES.len() - 1]);
        let size = i32::from(block.size);
        let from = low.map(|c| region_of(c.saturating_sub(reach), 0, 0)[0]);
        let to = low.map(|c| region_of(c.saturating_add(size), 0, 0)[0]);
        for x in from[0]..=to[0] {
            for y in from[1]..=to[1] {
                for z in from[2]..=to[2] {
                    self.changed_regions.insert([x, y, z]);
                }
            }
        }
    }

    /// One frame of `dt` seconds: the pieces fall (in the physics' fixed steps), what came to
    /// rest or woke is told to the support, then the player moves against the ground, the
    /// blocks and the rubble.
    pub fn step(&mut self, dt: f32, controls: &Controls) {
        let solids = SceneSolids::new(&self.field, &self.blocks);
        let motions = self.motions();
        let report = self.pieces.update(f64::from(dt), &solids);
        self.splits = report.split;
        self.note_strikes(&motions, f64::from(dt));
        // The pieces an edit set falling are its pieces still, split apart.
        self.record_splits();
        self.lost.extend(report.lost);
        // Rubble that came to rest may hold blocks, rubble that woke may have held some.
        for (_, low, high) in report.came_to_rest.iter().chain(&report.woke) {
            self.support.solid_changed(&self.blocks, *low, *high);
        }
        if !report.woke.is_empty() {
            self.settle();
        }
        if !self.embodied {
            return;
        }
        let solids = WithRubble {
            solids: SceneSolids::new(&self.field, &self.blocks),
            rubble: self.pieces.rubble(),
        };
        let (was_grounded, from) = (self.player.grounded, self.player.position);
        let fall_speed = (-self.player.velocity.y).max(0.0);
        self.player
            .update(dt, controls, self.yaw, self.pitch, &solids);
        self.note_steps(was_grounded, fall_speed, from);
    }
}
