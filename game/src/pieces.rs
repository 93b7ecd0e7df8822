//! Falling pieces (seed 000): a loose group of blocks leaves the grid and falls as one rigid
//! body of `engine::physics`. The piece keeps its blocks where they were in the grid — that is
//! its own frame — in a store of its own, so that its shape (for contacts with other bodies)
//! and its mesh leave out the sides between its blocks.

use std::collections::BTreeMap;

use blockfall_engine::collision::{Solid, Surface};
use blockfall_engine::physics::{
    BodyDesc, BodyHandle, BodyShape, BodyView, Part, Physics, PhysicsError, StepReport,
};
use blockfall_engine::workers::WorkerPool;

use crate::blocks::materials::MATERIALS;
use crate::blocks::mesher::{mesh_blocks, BlockMesh};
use crate::blocks::shapes::{block_distance, shape_of};
use crate::blocks::store::{Block, BlockId, BlockStore, CELL};
use crate::cell_hash::CellMap;
use crate::solids::blocks_surface;

/// Why a group of blocks could not become a piece.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum PieceError {
    #[error("a piece needs at least one block")]
    Empty,
    #[error("the blocks of a piece overlap: {0}")]
    Overlap(String),
    #[error("the piece's body was refused: {0}")]
    Body(#[from] PhysicsError),
}

/// A block's part of a body: mass = density × the shape's volume × size³, its middle at the
/// shape's middle, and the inertia of a cube of that mass about its middle, m s² / 6 (seed 000).
pub fn part_of(block: &Block) -> Part {
    let meters = f64::from(block.size) * f64::from(CELL);
    let shape = shape_of(block.cuts, block.slope);
    let density = MATERIALS
        .get(usize::from(block.material))
        .map_or(1000.0, |m| f64::from(m.density));
    let mass = density * f64::from(shape.volume) * meters.powi(3);
    let low = block.low().map(|c| f64::from(c) * f64::from(CELL));
    let center = std::array::from_fn(|axis| low[axis] + f64::from(shape.middle[axis]) * meters);
    let inertia = mass * meters * meters / 6.0;
    Part {
        mass,
        center,
        inertia: [
            [inertia, 0.0, 0.0],
            [0.0, inertia, 0.0],
            [0.0, 0.0, inertia],
        ],
    }
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

/// The points a piece touches things with, in its own frame (meters): the corners of its cells
/// on its outside, a point every half meter. A corner with all eight cells around it in the
/// piece lies inside and is left out; on a cut block a corner is pulled onto the shape, unless a
/// plain block has that corner. A lone 1 m block has 26; a 4 × 4 × 4 piece of 1 m blocks 386.
pub fn contact_points(blocks: &[Block], own: &BlockStore) -> Vec<[f64; 3]> {
    // By corner, in a fixed order, so the body is the same on every run.
    let mut points: CellMap<(bool, [f64; 3])> = CellMap::default();
    let mut order: Vec<[i32; 3]> = Vec::new();
    for block in blocks {
        let size = i32::from(block.size);
        for k in 0..=size {
            for j in 0..=size {
                for i in 0..=size {
                    let corner = [block.x + i, block.y + j, block.z + k];
                    let cells = (0..8)
                        .filter(|c| {
                            own.at(
                                corner[0] - 1 + (c & 1),
                                corner[1] - 1 + ((c >> 1) & 1),
                                corner[2] - 1 + (c >> 2),
                            )
                            .is_some()
                        })
                        .count();
                    if cells == 8 {
                        continue;
                    }
                    let plain = block.cuts == 0;
                    if let Some((kept_plain, _)) = points.get(&corner) {
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
                    if points.insert(corner, (plain, point)).is_none() {
                        order.push(corner);
                    }
                }
            }
        }
    }
    order
        .iter()
        .filter_map(|corner| points.get(corner).map(|(_, p)| *p))
        .collect()
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
}

/// The pieces that broke off, falling or at rest, and the physics that moves them.
#[derive(Debug)]
pub struct Pieces {
    physics: Physics,
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
}

impl Pieces {
    pub fn new(pool: WorkerPool) -> Self {
        Self {
            physics: Physics::new(pool),
            pieces: BTreeMap::new(),
        }
    }

    /// A group of blocks becomes one piece: a body from their parts and contact points, and
    /// their own store and mesh. The blocks are not taken from any store: see
    /// [`Pieces::break_off`].
    pub fn add(&mut self, blocks: Vec<Block>) -> Result<BodyHandle, PieceError> {
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
        let points = contact_points(&blocks, &own);
        let desc = BodyDesc {
            parts: blocks.iter().map(part_of).collect(),
            points,
        };
        let handle = self.physics.add(&desc)?;
        let mut mesh = BlockMesh::new();
        mesh_blocks(&own, ids, &mut mesh);
        self.pieces.insert(
            handle,
            Piece {
                blocks,
                own,
                mesh,
                contact_points: desc.points.len(),
            },
        );
        Ok(handle)
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
    /// fell out of the world are gone.
    pub fn update(&mut self, dt: f64, world: &dyn Solid) -> StepReport {
        let shapes = Shapes {
            pieces: &self.pieces,
        };
        let report = self.physics.advance(dt, world, &shapes);
        for handle in &report.fell_out {
            self.pieces.remove(handle);
        }
        report
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

    /// The physics, for asking about bodies.
    pub fn physics(&self) -> &Physics {
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
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cube(x: i32, y: i32, z: i32) -> Block {
        Block::new(x, y, z, 2, 0, 0, false).unwrap()
    }

    fn points_of(blocks: &[Block]) -> usize {
        let mut own = BlockStore::new();
        for block in blocks {
            own.add(*block).unwrap();
        }
        contact_points(blocks, &own).len()
    }

    #[test]
    fn contact_points_of_the_seed() {
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
    fn a_blocks_part_has_the_seeds_mass_middle_and_inertia() {
        // A 1 m stone cube at cells (2, 4, 6): 2600 kg, middle at (1.5, 2.5, 3.5) m.
        let part = part_of(&cube(2, 4, 6));
        assert!((part.mass - 2600.0).abs() < 1e-6);
        assert_eq!(part.center, [1.5, 2.5, 3.5]);
        assert!((part.inertia[0][0] - 2600.0 / 6.0).abs() < 1e-9);
        // A ball of copper (every edge rounded) is lighter than its cube.
        let ball = Block::new(0, 0, 0, 2, 5, 0xFFF, false).unwrap();
        let part = part_of(&ball);
        assert!(
            part.mass < 8900.0 && part.mass > 8900.0 * 0.5,
            "{}",
            part.mass
        );
    }

    #[test]
    fn cut_corners_are_pulled_onto_the_shape() {
        let ball = Block::new(0, 0, 0, 2, 5, 0xFFF, false).unwrap();
        let mut own = BlockStore::new();
        own.add(ball).unwrap();
        for point in contact_points(&[ball], &own) {
            let local = point.map(|c| c as f32);
            let distance = block_distance(&ball, local, |_| true).distance;
            assert!(
                distance.abs() < 1e-3,
                "{point:?} is {distance} m off the shape"
            );
        }
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
