//! Falling pieces (docs/physics.md): a loose group of blocks leaves the grid and falls as one rigid
//! body of `blockfall-physics` (a piece is a compound rigid body, one part per block). The piece
//! keeps its blocks where they were in the grid — that is its own frame — in a store of its own, so
//! that its shape (for contacts with other bodies) and its mesh leave out the sides between its
//! blocks.
//!
//! A piece struck hard enough breaks where its joints give (`crate::strength`): the groups that
//! still hold together become pieces of their own, each moving as its part of the old body
//! moved ([`PiecesReport::split`]).
//!
//! A piece at rest is rubble ([`Rubble`]: sleeping bodies used as static colliders): solid for
//! the player, the block tool and moving pieces, and a holder of blocks.

use std::collections::BTreeMap;

use blockfall_physics::collision::{Around, Solid, Surface};
use blockfall_physics::workers::WorkerPool;
use blockfall_physics::{
    BodyDesc, BodyHandle, BodyShape, BodyView, Impact, Part, PhysicsError, PhysicsState,
    PhysicsWorld, StepReport,
};

use crate::blocks::materials::part_of;
use crate::blocks::mesher::{mesh_blocks, BlockMesh};
use crate::blocks::shapes::{block_distance, shape_of};
use crate::blocks::store::{Block, BlockId, BlockStore, CELL};
use crate::cell_hash::CellMap;
use crate::limits::{MOST_PIECES, MOST_PIECE_BLOCKS};
use crate::solids::{blocks_surface, blocks_surface_around};
use crate::strength::{Joints, Push};

mod rubble;

pub use rubble::Rubble;

/// Why a group of blocks could not become a piece.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum PieceError {
    #[error("a piece needs at least one block")]
    Empty,
    #[error("the blocks of a piece overlap: {0}")]
    Overlap(String),
    #[error("the piece's body was refused: {0}")]
    Body(#[from] PhysicsError),
    #[error("the saved pieces do not hold together: {0}")]
    Saved(String),
    #[error("{0} (docs/saves.md, \"Limits\")")]
    Full(String),
}

/// Pulls a corner of a cut block (in the unit cube) in toward the middle of its shape until it
/// lies on the shape: the shapes are convex about their middles, so 16 halvings of the way
/// there and back find the surface.
fn pull_onto(block: &Block, corner: [f32; 3]) -> [f32; 3] {
    let shape = shape_of(block.cuts, block.slope);
    let middle = shape.middle;
    let at = |t: f32| std::array::from_fn(|axis| middle[axis] + (corner[axis] - middle[axis]) * t);
    let outside = |t: f32| shape.distance(at(t), |_| true).distance > 0.0;
    if !outside(1.0) {
        return corner;
    }
    let (mut inside, mut out) = (0.0, 1.0);
    for _ in 0..16 {
        let t = (inside + out) / 2.0;
        if outside(t) {
            out = t;
        } else {
            inside = t;
        }
    }
    at(inside)
}

/// A piece's contact points ([`contact_points`]), and what the piece fills around each.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ContactPoints {
    /// In the piece's own frame, meters.
    pub points: Vec<[f64; 3]>,
    /// Beside each point: which of the eight cells around its corner the piece fills
    /// (`collision::Around::octants`: bit `i | j << 1 | k << 2` for the cell on the positive
    /// side along the axes whose digit is 1); 0 for a point pulled onto a cut block, which lies
    /// on no corner.
    pub around: Vec<u8>,
}

/// The points a piece touches things with, in its own frame (meters): the corners of its cells
/// on its outside, a point every half meter. A corner with all eight cells around it in the
/// piece lies inside and is left out; on a cut block a corner is pulled onto the shape, unless a
/// plain block has that corner. A lone 1 m block has 26; a 4 × 4 × 4 piece of 1 m blocks 386.
/// Each point comes with the cells around it that the piece fills, which tell the faces it
/// meets from those it only lines up with (docs/physics.md, "Which face a point meets").
pub fn contact_points(blocks: &[Block], own: &BlockStore) -> ContactPoints {
    // By corner, in a fixed order, so the body is the same on every run.
    let mut points: CellMap<(bool, [f64; 3], u8)> = CellMap::default();
    let mut order: Vec<[i32; 3]> = Vec::new();
    for block in blocks {
        let size = i32::from(block.size);
        for k in 0..=size {
            for j in 0..=size {
                for i in 0..=size {
                    let corner = [block.x + i, block.y + j, block.z + k];
                    let filled = (0..8u8)
                        .filter(|c| {
                            own.at(
                                corner[0] - 1 + i32::from(c & 1),
                                corner[1] - 1 + i32::from((c >> 1) & 1),
                                corner[2] - 1 + i32::from(c >> 2),
                            )
                            .is_some()
                        })
                        .fold(0u8, |mask, c| mask | 1 << c);
                    if filled == u8::MAX {
                        continue;
                    }
                    let plain = block.cuts == 0;
                    if let Some((kept_plain, _, _)) = points.get(&corner) {
                        if *kept_plain || !plain {
                            continue;
                        }
                    }
                    let unit = [i, j, k].map(|c| c as f32 / size as f32);
                    let on_shape = if plain { unit } else { pull_onto(block, unit) };
                    let meters = f64::from(block.size) * f64::from(CELL);
                    let low = block.low();
                    let point = std::array::from_fn(|axis| {
                        f64::from(low[axis]) * f64::from(CELL) + f64::from(on_shape[axis]) * meters
                    });
                    let around = if plain { filled } else { 0 };
                    if points.insert(corner, (plain, point, around)).is_none() {
                        order.push(corner);
                    }
                }
            }
        }
    }
    let (points, around) = order
        .iter()
        .filter_map(|corner| {
            points
                .get(corner)
                .map(|&(_, point, around)| (point, around))
        })
        .unzip();
    ContactPoints { points, around }
}

/// A piece with the box it lies in: low and high corners, meters.
pub type PieceBox = (BodyHandle, [f32; 3], [f32; 3]);

/// What a step of the pieces did that the rest of the world must hear of.
#[derive(Debug, Default, Clone, PartialEq)]
pub struct PiecesReport {
    /// Pieces that came to rest (became rubble), with their box in the world (low, high).
    pub came_to_rest: Vec<(BodyHandle, [f32; 3], [f32; 3])>,
    /// Rubble that woke (a moving piece reached it, or what it lay on woke), with the box it
    /// lay in.
    pub woke: Vec<(BodyHandle, [f32; 3], [f32; 3])>,
    /// Pieces that fell out of the world.
    pub fell_out: Vec<BodyHandle>,
    /// What left the world with them: each piece that fell out, and its blocks.
    pub lost: Vec<Lost>,
    /// Pieces that broke where they were struck: the old handle is gone.
    pub split: Vec<Split>,
}

/// Blocks that left the world without falling as a piece, said so rather than vanishing: a
/// piece that fell out of the world, or a loose group the pieces had no room for (the world's
/// limits, `crate::limits`).
#[derive(Debug, Clone, PartialEq)]
pub struct Lost {
    /// The piece, when it was one.
    pub piece: Option<BodyHandle>,
    /// How many blocks.
    pub blocks: usize,
    /// Why they are gone.
    pub why: String,
}

/// A piece that broke where it was struck.
#[derive(Debug, Clone, PartialEq)]
pub struct Split {
    /// The piece that broke (its handle now stale).
    pub piece: BodyHandle,
    /// Its body as it was when it broke.
    pub body: BodyView,
    /// The pieces it split into, in the order of their first block.
    pub into: Vec<BodyHandle>,
}

/// Why a block could not be broken out of a piece.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum BreakPieceError {
    #[error("there is no piece {0}")]
    NoPiece(u32),
    #[error("piece {piece} has no block at cell ({x}, {y}, {z}) of its own grid")]
    NoBlock { piece: u32, x: i32, y: i32, z: i32 },
    #[error(transparent)]
    Piece(#[from] PieceError),
}

/// A group of blocks that broke off.
#[derive(Debug)]
pub struct Piece {
    /// The blocks, in the places they had in the grid (the piece's own frame).
    pub blocks: Vec<Block>,
    /// The same blocks in a store of their own: its sides between blocks are covered.
    pub own: BlockStore,
    /// The piece's mesh in its own frame, for the renderer.
    pub mesh: BlockMesh,
    /// How many contact points its body has.
    pub contact_points: usize,
    /// The joints between its blocks, and what breaks them.
    joints: Joints,
}

impl Piece {
    /// A piece of `blocks` (in their places in the grid) and the description of its body:
    /// parts and contact points.
    fn of(blocks: Vec<Block>) -> Result<(Piece, BodyDesc), PieceError> {
        if blocks.is_empty() {
            return Err(PieceError::Empty);
        }
        let mut own = BlockStore::new();
        let mut ids = Vec::with_capacity(blocks.len());
        for block in &blocks {
            ids.push(
                own.add(*block)
                    .map_err(|error| PieceError::Overlap(error.to_string()))?,
            );
        }
        own.drain_events().for_each(drop);
        let ContactPoints { points, around } = contact_points(&blocks, &own);
        let desc = BodyDesc {
            parts: blocks.iter().map(part_of).collect(),
            points,
            around,
        };
        let joints = Joints::of(&blocks, &own, &ids);
        let mut mesh = BlockMesh::new();
        mesh_blocks(&own, ids.iter().copied(), &mut mesh);
        let piece = Piece {
            blocks,
            own,
            mesh,
            contact_points: desc.points.len(),
            joints,
        };
        Ok((piece, desc))
    }
}

/// The pieces that broke off, falling or at rest, and the physics that moves them.
#[derive(Debug)]
pub struct Pieces {
    physics: PhysicsWorld,
    pieces: BTreeMap<BodyHandle, Piece>,
}

/// The pieces' shapes, for the physics' body-against-body contacts.
struct Shapes<'a> {
    pieces: &'a BTreeMap<BodyHandle, Piece>,
}

impl BodyShape for Shapes<'_> {
    fn nearest(&self, body: BodyHandle, point: [f32; 3], reach: f32) -> Option<Surface> {
        let piece = self.pieces.get(&body)?;
        blocks_surface(&piece.own, point, reach)
    }

    fn nearest_around(
        &self,
        body: BodyHandle,
        point: [f32; 3],
        reach: f32,
        around: Around,
    ) -> Option<Surface> {
        let piece = self.pieces.get(&body)?;
        blocks_surface_around(&piece.own, point, reach, &around).0
    }
}

impl Pieces {
    pub fn new(pool: WorkerPool) -> Self {
        Self {
            physics: PhysicsWorld::new(pool),
            pieces: BTreeMap::new(),
        }
    }

    /// A group of blocks becomes one piece: a body from their parts and contact points, and
    /// their own store and mesh. The blocks are not taken from any store: see
    /// [`Pieces::break_off`].
    pub fn add(&mut self, blocks: Vec<Block>) -> Result<BodyHandle, PieceError> {
        self.room_for(1, blocks.len())?;
        let (piece, desc) = Piece::of(blocks)?;
        let handle = self.physics.add(&desc)?;
        self.physics
            .set_impact_limit(handle, piece.joints.impact_limit())?;
        self.pieces.insert(handle, piece);
        Ok(handle)
    }

    /// [`Pieces::add`], the piece turned about its middle by `orientation` (a quaternion
    /// `[x, y, z, w]` from its own frame to the world, made unit length here): a piece set
    /// down askew before it moves. Its middle is where [`Pieces::add`] would put it. An
    /// orientation that is not finite or has no length is an error, and no piece is added.
    pub fn add_turned(
        &mut self,
        blocks: Vec<Block>,
        orientation: [f64; 4],
    ) -> Result<BodyHandle, PieceError> {
        let handle = self.add(blocks)?;
        let body = self
            .physics
            .body(handle)
            .ok_or(PhysicsError::StaleHandle(handle))?;
        if let Err(error) = self.physics.set_pose(handle, body.position, orientation) {
            self.physics.remove(handle)?;
            self.pieces.remove(&handle);
            return Err(error.into());
        }
        Ok(handle)
    }

    /// Whether `pieces` more pieces of `blocks` more blocks fit within the world's limits
    /// ([`MOST_PIECES`], [`MOST_PIECE_BLOCKS`]).
    fn room_for(&self, pieces: usize, blocks: usize) -> Result<(), PieceError> {
        if self.pieces.len() + pieces > MOST_PIECES {
            return Err(PieceError::Full(format!(
                "the world holds {} pieces, and {MOST_PIECES} is the most it may",
                self.pieces.len()
            )));
        }
        let held: usize = self.pieces.values().map(|piece| piece.blocks.len()).sum();
        if held + blocks > MOST_PIECE_BLOCKS {
            return Err(PieceError::Full(format!(
                "{blocks} blocks more would make {} blocks in pieces, more than the \
                 {MOST_PIECE_BLOCKS} a world may hold",
                held + blocks
            )));
        }
        Ok(())
    }

    /// What a save keeps: every piece's blocks, by handle, and the physics' state.
    pub fn state(&self) -> (Vec<(BodyHandle, &[Block])>, PhysicsState) {
        let blocks = self
            .pieces
            .iter()
            .map(|(&handle, piece)| (handle, piece.blocks.as_slice()))
            .collect();
        (blocks, self.physics.state())
    }

    /// Pieces of these blocks in this physics state (from [`Pieces::state`]): every body of
    /// the state needs its piece's blocks and every piece its body.
    pub fn restore(
        pool: WorkerPool,
        pieces: Vec<(BodyHandle, Vec<Block>)>,
        physics: &PhysicsState,
    ) -> Result<Self, PieceError> {
        let mut built = BTreeMap::new();
        let mut by_handle = BTreeMap::new();
        for (handle, blocks) in pieces {
            let (piece, desc) = Piece::of(blocks)?;
            if built.insert(handle, piece).is_some() {
                return Err(PieceError::Saved(format!(
                    "piece {} is listed twice",
                    handle.index()
                )));
            }
            by_handle.insert(handle, desc);
        }
        let descs: Vec<BodyDesc> = physics
            .bodies
            .iter()
            .map(|body| {
                by_handle.remove(&body.handle).ok_or_else(|| {
                    PieceError::Saved(format!(
                        "body {} has no piece (or two bodies share it)",
                        body.handle.index()
                    ))
                })
            })
            .collect::<Result<_, _>>()?;
        if let Some(handle) = by_handle.keys().next() {
            return Err(PieceError::Saved(format!(
                "piece {} has no body",
                handle.index()
            )));
        }
        let mut physics = PhysicsWorld::restore(pool, physics, &descs)?;
        for (&handle, piece) in &built {
            physics.set_impact_limit(handle, piece.joints.impact_limit())?;
        }
        Ok(Self {
            physics,
            pieces: built,
        })
    }

    /// A loose group leaves `store` and falls as one piece. Ids no longer in the store are
    /// skipped; a group with nothing left makes no piece.
    pub fn break_off(
        &mut self,
        group: &[BlockId],
        store: &mut BlockStore,
    ) -> Result<Option<BodyHandle>, PieceError> {
        let blocks: Vec<Block> = group.iter().filter_map(|&id| store.remove(id)).collect();
        if blocks.is_empty() {
            return Ok(None);
        }
        self.add(blocks).map(Some)
    }

    /// Moves the falling pieces on by `dt` seconds against `world`, in fixed steps; pieces that
    /// fell out of the world are gone, and rubble that a moving piece reached woke (the
    /// physics wakes it before the solve, so the blow moves it: docs/physics.md, "Sleeping and
    /// islands").
    pub fn update(&mut self, dt: f64, world: &dyn Solid) -> PiecesReport {
        let shapes = Shapes {
            pieces: &self.pieces,
        };
        let StepReport {
            fell_out,
            came_to_rest,
            woke,
            impacts,
            ..
        } = self.physics.advance(dt, world, &shapes);
        let mut report = PiecesReport::default();
        for handle in &fell_out {
            if let Some(piece) = self.pieces.remove(handle) {
                report.lost.push(Lost {
                    piece: Some(*handle),
                    blocks: piece.blocks.len(),
                    why: "it fell out of the world".into(),
                });
            }
        }
        report.fell_out = fell_out;
        // Where each woken piece lay (its points' sphere about its middle then), for the
        // support to search the blocks it held again.
        for (handle, lay) in woke {
            if let Some(body) = self.physics.body(handle) {
                let low = lay.map(|c| (c - body.radius) as f32);
                let high = lay.map(|c| (c + body.radius) as f32);
                report.woke.push((handle, low, high));
            }
        }
        report.split = self.break_struck(&impacts);
        for handle in came_to_rest {
            if !self.is_sleeping(handle) {
                continue;
            }
            if let Some((low, high)) = self.bounds(handle) {
                report.came_to_rest.push((handle, low, high));
            }
        }
        report
    }

    /// The pieces lying at rest, as a solid (and as a holder of blocks).
    pub fn rubble(&self) -> Rubble<'_> {
        Rubble { pieces: self }
    }

    /// How many pieces are falling (not resting).
    pub fn falling(&self) -> usize {
        self.physics.awake_count()
    }

    pub fn len(&self) -> usize {
        self.pieces.len()
    }

    pub fn is_empty(&self) -> bool {
        self.pieces.is_empty()
    }

    /// Every piece with its body, in handle order.
    pub fn iter(&self) -> impl Iterator<Item = (BodyHandle, &Piece, BodyView)> + '_ {
        self.pieces.iter().filter_map(|(&handle, piece)| {
            self.physics.body(handle).map(|body| (handle, piece, body))
        })
    }

    /// The piece whose handle has this index (the `id` of the trace), if it is there.
    pub fn by_index(&self, index: u32) -> Option<BodyHandle> {
        self.pieces
            .keys()
            .copied()
            .find(|handle| handle.index() == index)
    }

    /// Whether a piece is rubble: lying at rest.
    pub fn is_sleeping(&self, handle: BodyHandle) -> bool {
        self.physics.body(handle).is_some_and(|body| body.sleeping)
    }

    /// The box (low, high, in meters) a piece lies in: its points' sphere.
    pub fn bounds(&self, handle: BodyHandle) -> Option<([f32; 3], [f32; 3])> {
        let body = self.physics.body(handle)?;
        let low = body.position.map(|c| (c - body.radius) as f32);
        let high = body.position.map(|c| (c + body.radius) as f32);
        Some((low, high))
    }

    /// Wakes a resting piece; returns it with the box it lay in, or nothing if it was not
    /// resting. What touches it wakes in the next step, when its contacts reach it (the
    /// physics wakes islands whole), and is reported then ([`PiecesReport::woke`]).
    pub fn wake(&mut self, handle: BodyHandle) -> Vec<(BodyHandle, [f32; 3], [f32; 3])> {
        if !self.is_sleeping(handle) {
            return Vec::new();
        }
        match (self.bounds(handle), self.physics.wake(handle)) {
            (Some((low, high)), Ok(())) => vec![(handle, low, high)],
            _ => Vec::new(),
        }
    }

    /// Sets a piece moving at `velocity` (m/s) with `spin` (rad/s, about an axis of the
    /// world), as a throw or a blast would. Rubble wakes first ([`Pieces::wake`]; what lies on
    /// it wakes in the next step); the pieces woken are returned with the boxes they lay in, for the
    /// support to hear of ([`World::launch_piece`](crate::world::World::launch_piece) tells
    /// it). A stale handle or a value that is not finite is an error and changes nothing.
    pub fn launch(
        &mut self,
        handle: BodyHandle,
        velocity: [f64; 3],
        spin: [f64; 3],
    ) -> Result<Vec<PieceBox>, PhysicsError> {
        if self.physics.body(handle).is_none() {
            return Err(PhysicsError::StaleHandle(handle));
        }
        for (field, value) in [("velocity", velocity), ("spin", spin)] {
            if !value.iter().all(|c| c.is_finite()) {
                return Err(PhysicsError::NotFinite {
                    field,
                    value: value.to_vec(),
                });
            }
        }
        let woken = self.wake(handle);
        self.physics.set_velocity(handle, velocity)?;
        self.physics.set_angular_velocity(handle, spin)?;
        Ok(woken)
    }

    /// Wakes the rubble whose box meets `low..high` (meters): the ground or a block under it
    /// changed. What lies on it wakes in the next step.
    pub fn wake_in(
        &mut self,
        low: [f32; 3],
        high: [f32; 3],
    ) -> Vec<(BodyHandle, [f32; 3], [f32; 3])> {
        let touched: Vec<BodyHandle> = self
            .pieces
            .keys()
            .copied()
            .filter(|&handle| {
                self.is_sleeping(handle)
                    && self.bounds(handle).is_some_and(|(l, h)| {
                        (0..3).all(|axis| l[axis] <= high[axis] && h[axis] >= low[axis])
                    })
            })
            .collect();
        touched
            .into_iter()
            .flat_map(|handle| self.wake(handle))
            .collect()
    }

    /// Breaks the block at `cell` (of the piece's own grid) out of a piece: the blocks left
    /// split into the groups that still touch (side or edge), each a piece of its own where it
    /// lay, with mass, middle and inertia worked out again, moving as the piece moved. Returns
    /// the block and the new pieces.
    pub fn break_block(
        &mut self,
        handle: BodyHandle,
        cell: [i32; 3],
    ) -> Result<(Block, Vec<BodyHandle>), BreakPieceError> {
        let piece = self
            .pieces
            .get(&handle)
            .ok_or(BreakPieceError::NoPiece(handle.index()))?;
        let [x, y, z] = cell;
        let id = piece.own.at(x, y, z).ok_or(BreakPieceError::NoBlock {
            piece: handle.index(),
            x,
            y,
            z,
        })?;
        let body = self
            .physics
            .body(handle)
            .ok_or(BreakPieceError::NoPiece(handle.index()))?;
        let mut own = BlockStore::new();
        let mut removed = None;
        for (other, block) in piece.own.iter() {
            if other == id {
                removed = Some(*block);
            } else {
                own.add(*block)
                    .map_err(|e| PieceError::Overlap(e.to_string()))?;
            }
        }
        let removed = removed.ok_or(BreakPieceError::NoPiece(handle.index()))?;
        let all: Vec<BlockId> = own.iter().map(|(id, _)| id).collect();
        let groups = crate::support::loose_groups(&own, |_, _| false, all, None)
            .iter()
            .map(|group| {
                group
                    .iter()
                    .filter_map(|&id| own.get(id).copied())
                    .collect()
            })
            .collect();
        let made = self.split(handle, &body, groups)?;
        Ok((removed, made))
    }

    /// Replaces piece `handle` (whose body is `body`) by pieces of `groups` of its blocks (in
    /// its own grid), each where it lay and moving as its part of the old body moved: the old
    /// velocity at the group's own middle of mass (`v + ω × r`), the old spin. The mass is
    /// kept, and so is the momentum: the groups' middles weighted by their masses are the old
    /// middle, so their `ω × r` cancel. Returns the new pieces, in the order of the groups.
    fn split(
        &mut self,
        handle: BodyHandle,
        body: &BodyView,
        groups: Vec<Vec<Block>>,
    ) -> Result<Vec<BodyHandle>, PieceError> {
        // At the limit a piece stays whole rather than losing what it could not split into.
        self.room_for(groups.len().saturating_sub(1), 0)?;
        let mut placed = Vec::with_capacity(groups.len());
        for blocks in groups {
            let parts: Vec<Part> = blocks.iter().map(part_of).collect();
            let mass: f64 = parts.iter().map(|p| p.mass).sum();
            let middle: [f64; 3] = std::array::from_fn(|axis| {
                parts.iter().map(|p| p.center[axis] * p.mass).sum::<f64>() / mass
            });
            let position = self
                .physics
                .to_world(handle, middle)
                .ok_or(PhysicsError::StaleHandle(handle))?;
            let lever: [f64; 3] = std::array::from_fn(|axis| position[axis] - body.position[axis]);
            let [wx, wy, wz] = body.angular_velocity;
            let turning = [
                wy * lever[2] - wz * lever[1],
                wz * lever[0] - wx * lever[2],
                wx * lever[1] - wy * lever[0],
            ];
            let velocity = std::array::from_fn(|axis| body.velocity[axis] + turning[axis]);
            placed.push((blocks, position, velocity));
        }
        self.physics.remove(handle)?;
        self.pieces.remove(&handle);
        let mut made = Vec::with_capacity(placed.len());
        for (blocks, position, velocity) in placed {
            let new = self.add(blocks)?;
            self.physics.set_pose(new, position, body.orientation)?;
            self.physics.set_velocity(new, velocity)?;
            self.physics
                .set_angular_velocity(new, body.angular_velocity)?;
            made.push(new);
        }
        Ok(made)
    }

    /// Breaks the pieces whose joints the steps' pushes overloaded (`crate::strength`), each
    /// step's pushes on a piece weighed on their own; pieces in handle order.
    fn break_struck(&mut self, impacts: &[Impact]) -> Vec<Split> {
        let mut by_body: BTreeMap<BodyHandle, Vec<&Impact>> = BTreeMap::new();
        for impact in impacts {
            by_body.entry(impact.body).or_default().push(impact);
        }
        let mut splits = Vec::new();
        for (handle, pushes) in by_body {
            let (Some(piece), Some(body)) = (self.pieces.get(&handle), self.physics.body(handle))
            else {
                // Fell out of the world in a later step.
                continue;
            };
            let mut broken = vec![false; piece.joints.joints().len()];
            for step in pushes.chunk_by(|a, b| a.step == b.step) {
                let step: Vec<Push> = step
                    .iter()
                    .map(|impact| (impact.point, impact.impulse))
                    .collect();
                let now = piece.joints.broken(&piece.blocks, &piece.own, &step);
                for (was, now) in broken.iter_mut().zip(now) {
                    *was |= now;
                }
            }
            let groups = piece.joints.groups(piece.blocks.len(), &broken);
            if groups.len() < 2 {
                continue;
            }
            let groups = groups
                .iter()
                .map(|group| group.iter().map(|&b| piece.blocks[b as usize]).collect())
                .collect();
            // Its own blocks, apart as they were: only a body the physics refuses could fail.
            if let Ok(into) = self.split(handle, &body, groups) {
                splits.push(Split {
                    piece: handle,
                    body,
                    into,
                });
            }
        }
        splits
    }

    /// The block of the rubble a ray from `origin` along `direction` (any length) meets first
    /// within `reach` meters: the piece and the block's lowest cell in the piece's own grid,
    /// as the block tool and `break_piece` name it. Sphere tracing along the ray with the
    /// rubble's distances.
    pub fn aim(
        &self,
        origin: [f32; 3],
        direction: [f32; 3],
        reach: f32,
    ) -> Option<(BodyHandle, [i32; 3])> {
        self.aim_along(origin, direction, reach)
            .map(|(handle, cell, _)| (handle, cell))
    }

    /// [`Pieces::aim`], with how far along the ray (meters) the rubble was met.
    pub fn aim_along(
        &self,
        origin: [f32; 3],
        direction: [f32; 3],
        reach: f32,
    ) -> Option<(BodyHandle, [i32; 3], f32)> {
        let length = direction.iter().map(|c| c * c).sum::<f32>().sqrt();
        if !(length.is_finite() && length > 0.0 && reach.is_finite()) {
            return None;
        }
        let direction = direction.map(|c| c / length);
        let rubble = self.rubble();
        let mut travelled = 0.0f32;
        while travelled <= reach {
            let point = std::array::from_fn(|axis| origin[axis] + direction[axis] * travelled);
            let surface = rubble.nearest(point, reach - travelled + 0.01)?;
            if surface.distance < 0.005 {
                // Just inside: which piece, which block.
                let inside: [f32; 3] =
                    std::array::from_fn(|axis| point[axis] + direction[axis] * 0.01);
                return self.pieces.iter().find_map(|(&handle, piece)| {
                    if !self.is_sleeping(handle) {
                        return None;
                    }
                    let local = self.physics.to_local(handle, inside.map(f64::from))?;
                    let cell = local.map(|c| (c / f64::from(CELL)).floor() as i32);
                    let id = piece.own.at(cell[0], cell[1], cell[2])?;
                    let block = piece.own.get(id)?;
                    (block_distance(block, local.map(|c| c as f32), |_| true).distance < 0.02)
                        .then_some((handle, block.low(), travelled))
                });
            }
            travelled += surface.distance.max(0.005);
        }
        None
    }

    /// The block of piece `handle` whose cells hold `cell` of the piece's own grid (as
    /// [`Pieces::aim`] names it), if there is one.
    pub fn block_at(&self, handle: BodyHandle, cell: [i32; 3]) -> Option<Block> {
        let piece = self.pieces.get(&handle)?;
        let id = piece.own.at(cell[0], cell[1], cell[2])?;
        piece.own.get(id).copied()
    }

    /// Takes piece `handle` out of the world, its body with it (an undone break, whose blocks
    /// go back to the grid). Returns the box it lay in (its points' sphere, as
    /// [`Pieces::bounds`]), or `None` for a stale handle. Rubble lying on it stays asleep: the
    /// caller wakes what lay in the box ([`Pieces::wake_in`]) and tells the support.
    pub fn remove(&mut self, handle: BodyHandle) -> Option<([f32; 3], [f32; 3])> {
        let bounds = self.bounds(handle)?;
        self.physics.remove(handle).ok()?;
        self.pieces.remove(&handle);
        Some(bounds)
    }

    /// The physics, for asking about bodies.
    pub fn physics(&self) -> &PhysicsWorld {
        &self.physics
    }

    /// Where a point of a piece's own frame is in the world.
    pub fn to_world(&self, handle: BodyHandle, local: [f64; 3]) -> Option<[f64; 3]> {
        self.physics.to_world(handle, local)
    }

    /// The signed distance from a world point to a piece, with its normal in the world: for
    /// tests and tools that check nothing passes through a piece.
    pub fn distance_to(&self, handle: BodyHandle, world: [f64; 3]) -> Option<f32> {
        let piece = self.pieces.get(&handle)?;
        let local = self.physics.to_local(handle, world)?.map(|c| c as f32);
        piece
            .blocks
            .iter()
            .map(|block| block_distance(block, local, |_| true).distance)
            .reduce(f32::min)
    }

    /// Whether any piece, moving or at rest, reaches into the box `low..high` (meters): for
    /// refusing a block placed into one. Exact for boxes: each block of a piece near the box is
    /// its cell box turned with the piece, tested against the box on the separating axes of two
    /// boxes (their 3 + 3 face normals and the 9 crossings of their edges). Both are taken 2 cm
    /// inside their faces, so a block may be placed touching a piece. A block's whole cell box
    /// counts, a slope's empty half and cut edges included.
    pub fn overlaps_box(&self, low: [f32; 3], high: [f32; 3]) -> bool {
        const INSET: f64 = 0.02;
        let low = low.map(|c| f64::from(c) + INSET);
        let high = high.map(|c| f64::from(c) - INSET);
        self.pieces.iter().any(|(&handle, piece)| {
            let Some((piece_low, piece_high)) = self.bounds(handle) else {
                return false;
            };
            let apart = (0..3).any(|axis| {
                f64::from(piece_high[axis]) < low[axis] || f64::from(piece_low[axis]) > high[axis]
            });
            !apart
                && piece.blocks.iter().any(|block| {
                    let meters = f64::from(block.size) * f64::from(CELL);
                    let base = block.low().map(|c| f64::from(c) * f64::from(CELL));
                    let mut corners = [[0.0; 3]; 8];
                    for (corner, world) in corners.iter_mut().enumerate() {
                        let local = std::array::from_fn(|axis| {
                            base[axis]
                                + if (corner >> axis) & 1 == 1 {
                                    meters - INSET
                                } else {
                                    INSET
                                }
                        });
                        match self.to_world(handle, local) {
                            Some(point) => *world = point,
                            None => return false,
                        }
                    }
                    turned_box_meets_box(&corners, low, high)
                })
        })
    }
}

/// Whether a turned box, given by its 8 corners (corner `i` at the low end of axis `a` when bit
/// `a` of `i` is 0), and the axis-aligned box `low..high` share inside points: no separating
/// axis among the two boxes' face normals and the crossings of their edges.
fn turned_box_meets_box(corners: &[[f64; 3]; 8], low: [f64; 3], high: [f64; 3]) -> bool {
    let sub = |a: [f64; 3], b: [f64; 3]| std::array::from_fn::<f64, 3, _>(|i| a[i] - b[i]);
    let cross = |a: [f64; 3], b: [f64; 3]| {
        [
            a[1] * b[2] - a[2] * b[1],
            a[2] * b[0] - a[0] * b[2],
            a[0] * b[1] - a[1] * b[0],
        ]
    };
    let dot = |a: [f64; 3], b: [f64; 3]| a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
    let edges = [1, 2, 4].map(|corner| sub(corners[corner], corners[0]));
    let world = [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]];
    let mut axes = Vec::with_capacity(15);
    axes.extend(world);
    axes.extend(edges);
    for edge in edges {
        for axis in world {
            let crossed = cross(edge, axis);
            // Parallel edges give no axis of their own (their plane's normals are tested).
            if dot(crossed, crossed) > 1e-12 * dot(edge, edge) {
                axes.push(crossed);
            }
        }
    }
    axes.into_iter().all(|axis| {
        let (turned_low, turned_high) = corners
            .iter()
            .map(|&corner| dot(corner, axis))
            .fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), p| {
                (a.min(p), b.max(p))
            });
        // The box's extent along the axis: its middle's projection ± its half sizes'.
        let middle: [f64; 3] = std::array::from_fn(|i| (low[i] + high[i]) / 2.0);
        let reach: f64 = (0..3)
            .map(|i| (high[i] - low[i]) / 2.0 * axis[i].abs())
            .sum();
        let centre = dot(middle, axis);
        turned_low < centre + reach && centre - reach < turned_high
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::solids::TerrainSolid;
    use crate::terrain::Field;

    fn cube(x: i32, y: i32, z: i32) -> Block {
        Block::new(x, y, z, 2, 0, 0, false).unwrap()
    }

    fn points_of(blocks: &[Block]) -> usize {
        let mut own = BlockStore::new();
        for block in blocks {
            own.add(*block).unwrap();
        }
        contact_points(blocks, &own).points.len()
    }

    /// The corners of a cube of side `side` turned `degrees` about the vertical, around `middle`.
    fn turned_cube(middle: [f64; 3], side: f64, degrees: f64) -> [[f64; 3]; 8] {
        let (sin, cos) = degrees.to_radians().sin_cos();
        std::array::from_fn(|corner| {
            let local: [f64; 3] =
                std::array::from_fn(|axis| side * (((corner >> axis) & 1) as f64 - 0.5));
            [
                middle[0] + cos * local[0] + sin * local[2],
                middle[1] + local[1],
                middle[2] - sin * local[0] + cos * local[2],
            ]
        })
    }

    #[test]
    fn a_piece_edge_reaching_into_a_block_between_sample_points_is_an_overlap() {
        // A 2 m cube turned 45°: its vertical edge reaches 10 cm into the 1 m box through the
        // face x = 1, at z = 0.6, where no corner of either box lies inside the other and the
        // old quarter-meter sample points (z = 0.5, 0.74) both missed the 8 cm wide wedge.
        let (low, high) = ([0.0; 3], [1.0; 3]);
        let reach = 2f64.sqrt();
        let into = turned_cube([1.0 + reach - 0.1, 0.5, 0.6], 2.0, 45.0);
        assert!(turned_box_meets_box(&into, low, high));
        let apart = turned_cube([1.0 + reach + 0.01, 0.5, 0.6], 2.0, 45.0);
        assert!(!turned_box_meets_box(&apart, low, high));
        // Face to face, unturned: touching is not overlapping; a centimeter in is.
        let touching = turned_cube([1.5, 0.5, 0.5], 1.0, 0.0);
        assert!(!turned_box_meets_box(&touching, low, high));
        let inside = turned_cube([1.49, 0.5, 0.5], 1.0, 0.0);
        assert!(turned_box_meets_box(&inside, low, high));
        // Diagonal to the box's edge: a turned cube beside the box's vertical edge, apart
        // along the diagonal though its axis-aligned bounds overlap the box.
        let beside = turned_cube([1.6, 0.5, 1.6], 1.0, 45.0);
        assert!(!turned_box_meets_box(&beside, low, high));
    }

    #[test]
    fn contact_points_are_the_outside_cell_corners() {
        assert_eq!(points_of(&[cube(0, 0, 0)]), 26, "a lone 1 m block");
        let mut blocks = Vec::new();
        for x in 0..4 {
            for y in 0..4 {
                for z in 0..4 {
                    blocks.push(cube(x * 2, y * 2, z * 2));
                }
            }
        }
        assert_eq!(points_of(&blocks), 386, "a 4 × 4 × 4 piece of 1 m blocks");
    }

    #[test]
    fn cut_corners_are_pulled_onto_the_shape() {
        let ball = Block::new(0, 0, 0, 2, 5, 0xFFF, false).unwrap();
        let mut own = BlockStore::new();
        own.add(ball).unwrap();
        for point in contact_points(&[ball], &own).points {
            let local = point.map(|c| c as f32);
            let distance = block_distance(&ball, local, |_| true).distance;
            assert!(
                distance.abs() < 1e-3,
                "{point:?} is {distance} m off the shape"
            );
        }
    }

    fn flat() -> Field<impl Fn(i32, i32, i32) -> f32 + Sync> {
        Field::new(|_x: i32, y: i32, _z: i32| -(y as f32))
    }

    /// Steps until every piece rests (at most 10 s), gathering the reports.
    fn settle<S: crate::terrain::Samples>(pieces: &mut Pieces, field: &Field<S>) -> PiecesReport {
        let world = TerrainSolid { field };
        let mut all = PiecesReport::default();
        for _ in 0..600 {
            let report = pieces.update(1.0 / 60.0, &world);
            all.woke.extend(report.woke);
            all.came_to_rest.extend(report.came_to_rest);
            if pieces.falling() == 0 {
                break;
            }
        }
        all
    }

    #[test]
    fn a_wake_spreads_through_the_pieces_that_touch_and_no_further() {
        let field = flat();
        let mut pieces = Pieces::new(WorkerPool::new(1).unwrap());
        let below = pieces.add(vec![cube(0, 0, 0)]).unwrap();
        let on_top = pieces.add(vec![cube(0, 2, 0)]).unwrap();
        let beside = pieces.add(vec![cube(2, 0, 0)]).unwrap();
        let apart = pieces.add(vec![cube(6, 0, 0)]).unwrap();
        settle(&mut pieces, &field);
        assert!([below, on_top, beside, apart]
            .iter()
            .all(|&h| pieces.is_sleeping(h)));
        let woken: Vec<BodyHandle> = pieces.wake(below).into_iter().map(|(h, _, _)| h).collect();
        assert_eq!(woken, vec![below]);
        let report = pieces.update(blockfall_physics::STEP, &TerrainSolid { field: &field });
        let mut woke: Vec<BodyHandle> = report.woke.iter().map(|&(h, _, _)| h).collect();
        woke.sort();
        let mut touching = vec![on_top, beside];
        touching.sort();
        assert_eq!(
            woke, touching,
            "what touches it wakes with it, in the next step"
        );
        assert!(pieces.is_sleeping(apart), "what lies apart stays");
        let report = settle(&mut pieces, &field);
        assert!(report.woke.is_empty(), "nothing more: {report:?}");
        assert_eq!(
            report.came_to_rest.len(),
            3,
            "the three sleep again: {report:?}"
        );
    }

    #[test]
    fn rubble_that_a_moving_piece_reaches_wakes_and_sleeps_again_with_it() {
        let field = flat();
        let mut pieces = Pieces::new(WorkerPool::new(2).unwrap());
        let rubble = pieces.add(vec![cube(0, 0, 0)]).unwrap();
        settle(&mut pieces, &field);
        let lay = pieces.physics().body(rubble).unwrap().position;
        // A plank laid on it from 2 cm: the rubble wakes when the plank's contacts reach it,
        // and the two sleep together, the rubble where it lay.
        let plank = Block::new(0, 2, 0, 2, 2, 0, false).unwrap();
        let laid = pieces.add(vec![plank]).unwrap();
        let mut raised = pieces.physics().body(laid).unwrap().position;
        raised[1] += 0.02;
        pieces
            .physics
            .set_pose(laid, raised, [0.0, 0.0, 0.0, 1.0])
            .unwrap();
        let report = settle(&mut pieces, &field);
        let woke: Vec<BodyHandle> = report.woke.iter().map(|(h, _, _)| *h).collect();
        assert_eq!(woke, vec![rubble], "{report:?}");
        assert!(pieces.is_sleeping(rubble) && pieces.is_sleeping(laid));
        let now = pieces.physics().body(rubble).unwrap().position;
        let moved = (0..3).map(|a| (now[a] - lay[a]).abs()).fold(0.0, f64::max);
        assert!(moved < 2e-3, "the rubble moved {moved} m");
    }

    #[test]
    fn a_launch_wakes_rubble_and_refuses_bad_motion() {
        let field = flat();
        let mut pieces = Pieces::new(WorkerPool::new(1).unwrap());
        let below = pieces.add(vec![cube(0, 0, 0)]).unwrap();
        let on_top = pieces.add(vec![cube(0, 2, 0)]).unwrap();
        settle(&mut pieces, &field);
        assert!(pieces.is_sleeping(below) && pieces.is_sleeping(on_top));
        let hash = pieces.physics().state_hash();
        assert!(matches!(
            pieces.launch(below, [f64::NAN, 0.0, 0.0], [0.0; 3]),
            Err(PhysicsError::NotFinite {
                field: "velocity",
                ..
            })
        ));
        assert!(pieces
            .launch(below, [0.0; 3], [0.0, f64::INFINITY, 0.0])
            .is_err());
        assert_eq!(pieces.physics().state_hash(), hash, "nothing changed");
        assert!(pieces.is_sleeping(below));

        let woken: Vec<BodyHandle> = pieces
            .launch(below, [3.0, 4.0, 0.0], [0.0, 1.0, 0.0])
            .unwrap()
            .into_iter()
            .map(|(handle, _, _)| handle)
            .collect();
        assert_eq!(woken, vec![below], "what lies on it wakes in the next step");
        let body = pieces.physics().body(below).unwrap();
        assert_eq!(
            (body.velocity, body.angular_velocity),
            ([3.0, 4.0, 0.0], [0.0, 1.0, 0.0])
        );
        // A piece already moving is launched again without waking anything.
        assert!(pieces.launch(below, [0.0; 3], [0.0; 3]).unwrap().is_empty());

        let mut other = Pieces::new(WorkerPool::new(1).unwrap());
        let stale = other.add(vec![cube(8, 0, 0)]).unwrap();
        other.physics.remove(stale).unwrap();
        assert_eq!(
            other.launch(stale, [0.0; 3], [0.0; 3]),
            Err(PhysicsError::StaleHandle(stale))
        );
    }

    #[test]
    fn the_block_tool_aims_at_rubble() {
        let field = flat();
        let mut pieces = Pieces::new(WorkerPool::new(1).unwrap());
        let lower = pieces.add(vec![cube(0, 0, 0)]).unwrap();
        let upper = pieces.add(vec![cube(0, 2, 0)]).unwrap();
        settle(&mut pieces, &field);
        // Looking down from above: the upper block; from the side at 0.5 m: the lower one.
        assert_eq!(
            pieces.aim([0.5, 5.0, 0.5], [0.0, -1.0, 0.0], 6.0),
            Some((upper, [0, 2, 0]))
        );
        assert_eq!(
            pieces.aim([-3.0, 0.5, 0.5], [1.0, 0.0, 0.0], 6.0),
            Some((lower, [0, 0, 0]))
        );
        assert_eq!(
            pieces.aim([-3.0, 0.5, 0.5], [-1.0, 0.0, 0.0], 6.0),
            None,
            "behind the eye"
        );
        assert_eq!(
            pieces.aim([-9.0, 0.5, 0.5], [1.0, 0.0, 0.0], 6.0),
            None,
            "out of reach"
        );
        assert_eq!(pieces.aim([0.0; 3], [0.0; 3], 6.0), None, "no direction");
    }

    #[test]
    fn bad_pieces_are_errors() {
        let mut pieces = Pieces::new(WorkerPool::new(1).unwrap());
        assert_eq!(pieces.add(Vec::new()), Err(PieceError::Empty));
        assert!(matches!(
            pieces.add(vec![cube(0, 0, 0), cube(1, 1, 1)]),
            Err(PieceError::Overlap(_))
        ));
        assert!(pieces.is_empty());
    }
}
