//! `bench -- physics`: blockfall's physics core against rapier3d on the same falling pieces.
//!
//! One scene, built twice: pieces of plain 1 m blocks (1 to 64 each, boxes and random lattices,
//! of the six materials) dropped from 2 to 11 m onto the default world around the spawn point,
//! two to a column so that they land on each other. blockfall sees the world through
//! [`SceneSolids`] (the terrain's field) and each piece through an exact box-union distance of
//! its blocks; its contact points are the half-meter lattice points on the piece's outside
//! (26 for a lone block, 386 for 4 × 4 × 4). rapier3d gets each piece as one compound collider
//! of 0.5 m half-extent cuboids (same density, so the same mass and inertia), and the terrain as
//! one static trimesh: the CPU surface nets of the chunks under the drop area, the mesh the game
//! draws. Both: gravity 9.81 m/s², steps of 1/120 s, friction 0.6, restitution 0.15, the same
//! thread count (blockfall's [`WorkerPool`], rapier's `parallel` feature on a rayon pool of that
//! many threads).
//!
//! Then the capacity question: how many awake 4 × 4 × 4 pieces blockfall steps within a frame
//! of 8.33 ms on 2 threads, found by doubling and bisecting.

use std::sync::Arc;
use std::time::Instant;

use anyhow::{anyhow, ensure, Context as _};
use blockfall_engine::collision::{Solid, Surface};
use blockfall_engine::meshing::{DensityGrid, GridRegion, SurfaceMesh, SurfaceNets};
use blockfall_engine::physics::{BodyDesc, BodyHandle, BodyShape, Part, Physics, GRAVITY, STEP};
use blockfall_engine::workers::WorkerPool;
use blockfall_game::blocks::{BlockStore, MATERIALS};
use blockfall_game::scene::SceneSolids;
use blockfall_game::terrain::generator::SPAWN_XZ;
use blockfall_game::terrain::{chunks, ChunkCoord, EditStore, Field, Generator, Ground};
use blockfall_game::terrain::{CHUNK_SIZE, PADDED_SIZE};
use rapier3d::prelude as rp;

use crate::city::Rng;

/// The rapier3d release in `tools/Cargo.toml` (the newest whose MSRV fits the workspace's).
pub const RAPIER_VERSION: &str = "0.26.1";

/// A frame at 120 frames per second, in milliseconds.
pub const FRAME_MS: f64 = 1000.0 / 120.0;

/// Friction and restitution given to rapier, blockfall's own constants.
const FRICTION: f32 = blockfall_engine::physics::FRICTION as f32;
const RESTITUTION: f32 = blockfall_engine::physics::BOUNCE as f32;

/// Meters between the columns of dropped pieces.
const COLUMN_SPACING: f64 = 6.0;

/// Meters of terrain meshed for rapier around the pieces' spread.
const TERRAIN_BORDER: f64 = 10.0;

/// Steps of the falling phase reported on their own.
const FALL_STEPS: usize = 120;

/// Anything deeper than this below the lowest ground of the area has tunnelled.
const TUNNEL_DEPTH: f64 = 50.0;

/// The capacity search: steps before timing, steps timed, and the most pieces tried.
const CAPACITY_WARM_STEPS: u32 = 5;
const CAPACITY_TIMED_STEPS: u32 = 30;
const CAPACITY_MOST: usize = 1024;

/// A piece of plain 1 m blocks in its own frame: the low corner of its box at the origin,
/// block `(i, j, k)` filling `[i, i + 1] × [j, j + 1] × [k, k + 1]`.
#[derive(Debug, Clone)]
pub struct Piece {
    /// Blocks along x, y, z of its box.
    pub dims: [usize; 3],
    /// Whether each block of the box is there, x fastest.
    filled: Vec<bool>,
    /// An index into [`MATERIALS`].
    pub material: usize,
}

impl Piece {
    /// A full box of `dims` blocks.
    pub fn solid_box(dims: [usize; 3], material: usize) -> Self {
        Self {
            dims,
            filled: vec![true; dims[0] * dims[1] * dims[2]],
            material,
        }
    }

    /// `count` blocks grown at random, face to face, inside a box of `dims` blocks.
    fn lattice(dims: [usize; 3], count: usize, material: usize, rng: &mut Rng) -> Self {
        let mut piece = Self {
            dims,
            filled: vec![false; dims[0] * dims[1] * dims[2]],
            material,
        };
        let volume = piece.filled.len();
        let count = count.clamp(1, volume);
        let mut cells = vec![(rng.next_u64() % volume as u64) as usize];
        piece.filled[cells[0]] = true;
        while cells.len() < count {
            let from = cells[(rng.next_u64() % cells.len() as u64) as usize];
            let [x, y, z] = piece.position(from).map(|value| value as i32);
            let step = [
                [1, 0, 0],
                [-1, 0, 0],
                [0, 1, 0],
                [0, -1, 0],
                [0, 0, 1],
                [0, 0, -1],
            ][(rng.next_u64() % 6) as usize];
            if let Some(index) = piece.index(x + step[0], y + step[1], z + step[2]) {
                if !piece.filled[index] {
                    piece.filled[index] = true;
                    cells.push(index);
                }
            }
        }
        piece
    }

    fn position(&self, index: usize) -> [usize; 3] {
        let [nx, ny, _] = self.dims;
        [index % nx, (index / nx) % ny, index / (nx * ny)]
    }

    fn index(&self, x: i32, y: i32, z: i32) -> Option<usize> {
        let [nx, ny, nz] = self.dims.map(|value| value as i32);
        ((0..nx).contains(&x) && (0..ny).contains(&y) && (0..nz).contains(&z))
            .then(|| (x + nx * (y + ny * z)) as usize)
    }

    fn is_filled(&self, x: i32, y: i32, z: i32) -> bool {
        self.index(x, y, z).is_some_and(|index| self.filled[index])
    }

    /// The low corners of its blocks.
    pub fn blocks(&self) -> impl Iterator<Item = [usize; 3]> + '_ {
        (0..self.filled.len())
            .filter(|&index| self.filled[index])
            .map(|index| self.position(index))
    }

    pub fn block_count(&self) -> usize {
        self.filled.iter().filter(|filled| **filled).count()
    }

    /// The middle of its box, in its own frame.
    pub fn box_middle(&self) -> [f64; 3] {
        self.dims.map(|value| value as f64 * 0.5)
    }

    /// Kilograms per block.
    pub fn block_mass(&self) -> f64 {
        f64::from(MATERIALS[self.material].density)
    }

    /// Its parts (one per block: density × 1 m³, inertia m s² / 6 about the block's middle)
    /// and its contact points: every half-meter lattice point of its half-meter cells that is
    /// not surrounded by 8 of them.
    pub fn desc(&self) -> BodyDesc {
        let mass = self.block_mass();
        let own = mass / 6.0;
        let parts = self
            .blocks()
            .map(|[i, j, k]| Part {
                mass,
                center: [i as f64 + 0.5, j as f64 + 0.5, k as f64 + 0.5],
                inertia: [[own, 0.0, 0.0], [0.0, own, 0.0], [0.0, 0.0, own]],
            })
            .collect();
        // A half cell (u, v, w) lies in block (u / 2, v / 2, w / 2).
        let half_filled = |u: i32, v: i32, w: i32| {
            u >= 0 && v >= 0 && w >= 0 && self.is_filled(u / 2, v / 2, w / 2)
        };
        let [nx, ny, nz] = self.dims.map(|value| 2 * value as i32);
        let mut points = Vec::new();
        for w in 0..=nz {
            for v in 0..=ny {
                for u in 0..=nx {
                    let mut around = 0;
                    for corner in 0..8 {
                        let (du, dv, dw) = (corner & 1, (corner >> 1) & 1, corner >> 2);
                        around += usize::from(half_filled(u - du, v - dv, w - dw));
                    }
                    if around > 0 && around < 8 {
                        points.push([f64::from(u) * 0.5, f64::from(v) * 0.5, f64::from(w) * 0.5]);
                    }
                }
            }
        }
        BodyDesc { parts, points }
    }

    /// The nearest surface of the union of its blocks to `point` (its own frame) within
    /// `reach`: exact outside (the nearest block); inside, the nearest empty cell among the
    /// 26 around the point's block, exact for depths below a meter.
    pub fn nearest(&self, point: [f32; 3], reach: f32) -> Option<Surface> {
        if !point.iter().all(|value| value.is_finite()) {
            return None;
        }
        let cell = point.map(|value| value.floor() as i32);
        // The closest point of block `c` to `point`, and the offset to it.
        let offset_to = |c: [i32; 3]| {
            let mut offset = [0.0f32; 3];
            for axis in 0..3 {
                let low = c[axis] as f32;
                offset[axis] = point[axis].clamp(low, low + 1.0) - point[axis];
            }
            offset
        };
        let length = |v: [f32; 3]| (v[0] * v[0] + v[1] * v[1] + v[2] * v[2]).sqrt();
        if self.is_filled(cell[0], cell[1], cell[2]) {
            let mut best: Option<(f32, [f32; 3], [i32; 3])> = None;
            for dz in -1..=1 {
                for dy in -1..=1 {
                    for dx in -1..=1 {
                        let c = [cell[0] + dx, cell[1] + dy, cell[2] + dz];
                        if self.is_filled(c[0], c[1], c[2]) {
                            continue;
                        }
                        let offset = offset_to(c);
                        let distance = length(offset);
                        if best.is_none_or(|(nearest, _, _)| distance < nearest) {
                            best = Some((distance, offset, [dx, dy, dz]));
                        }
                    }
                }
            }
            let Some((distance, offset, towards)) = best else {
                // Deeper than a meter: out along the way from the piece's middle.
                let middle = self.box_middle();
                let away = [0, 1, 2].map(|axis| point[axis] - middle[axis] as f32);
                let norm = length(away).max(1e-6);
                return Some(Surface {
                    distance: -1.0,
                    normal: away.map(|value| value / norm),
                });
            };
            let normal = if distance > 1e-6 {
                offset.map(|value| value / distance)
            } else {
                let direction = towards.map(|value| value as f32);
                let norm = length(direction);
                direction.map(|value| value / norm)
            };
            return Some(Surface {
                distance: -distance,
                normal,
            });
        }
        let search = reach.clamp(0.0, 64.0);
        let low = point.map(|value| (value - search).floor() as i32);
        let high = point.map(|value| (value + search).floor() as i32);
        let mut best: Option<(f32, [f32; 3], [i32; 3])> = None;
        for z in low[2].max(0)..=high[2].min(self.dims[2] as i32 - 1) {
            for y in low[1].max(0)..=high[1].min(self.dims[1] as i32 - 1) {
                for x in low[0].max(0)..=high[0].min(self.dims[0] as i32 - 1) {
                    if !self.is_filled(x, y, z) {
                        continue;
                    }
                    let offset = offset_to([x, y, z]);
                    let distance = length(offset);
                    if best.is_none_or(|(nearest, _, _)| distance < nearest) {
                        best = Some((distance, offset, [x, y, z]));
                    }
                }
            }
        }
        let (distance, offset, block) = best?;
        if distance >= reach {
            return None;
        }
        let normal = if distance > 1e-6 {
            offset.map(|value| -value / distance)
        } else {
            // On the block's boundary: out from its middle along the largest axis.
            let away = [0, 1, 2].map(|axis| point[axis] - (block[axis] as f32 + 0.5));
            let axis = (0..3)
                .max_by(|&a, &b| away[a].abs().total_cmp(&away[b].abs()))
                .unwrap_or(1);
            let mut normal = [0.0; 3];
            normal[axis] = away[axis].signum();
            normal
        };
        Some(Surface { distance, normal })
    }
}

/// The shapes of the bodies of a blockfall world, by the slot of their handle.
#[derive(Default)]
struct PieceShapes {
    by_slot: Vec<Option<usize>>,
    pieces: Vec<Piece>,
}

impl BodyShape for PieceShapes {
    fn nearest(&self, body: BodyHandle, point: [f32; 3], reach: f32) -> Option<Surface> {
        let piece = (*self.by_slot.get(body.index() as usize)?)?;
        self.pieces[piece].nearest(point, reach)
    }
}

/// A piece placed in the world: the middle of its box at `at`, turned by `turn` (`[x, y, z,
/// w]`).
#[derive(Debug, Clone)]
struct Placed {
    piece: Piece,
    at: [f64; 3],
    turn: [f64; 4],
}

fn quaternion_times(a: [f64; 4], b: [f64; 4]) -> [f64; 4] {
    let [ax, ay, az, aw] = a;
    let [bx, by, bz, bw] = b;
    [
        aw * bx + ax * bw + ay * bz - az * by,
        aw * by - ax * bz + ay * bw + az * bx,
        aw * bz + ax * by - ay * bx + az * bw,
        aw * bw - ax * bx - ay * by - az * bz,
    ]
}

fn about_axis(axis: usize, angle: f64) -> [f64; 4] {
    let mut q = [0.0, 0.0, 0.0, (angle * 0.5).cos()];
    q[axis] = (angle * 0.5).sin();
    q
}

fn rotate(q: [f64; 4], v: [f64; 3]) -> [f64; 3] {
    let [x, y, z, w] = q;
    let u = [x, y, z];
    let cross = |a: [f64; 3], b: [f64; 3]| {
        [
            a[1] * b[2] - a[2] * b[1],
            a[2] * b[0] - a[0] * b[2],
            a[0] * b[1] - a[1] * b[0],
        ]
    };
    let t = cross(u, v).map(|value| 2.0 * value);
    let c = cross(u, t);
    [0, 1, 2].map(|axis| v[axis] + w * t[axis] + c[axis])
}

/// A number in `[0, 1)`.
fn unit(rng: &mut Rng) -> f64 {
    (rng.next_u64() >> 11) as f64 / (1u64 << 53) as f64
}

/// The highest ground under a square of `half` meters around `(x, z)`, sampled every meter.
fn ground_under(generator: &Generator, x: f64, z: f64, half: f64) -> f64 {
    let steps = (half * 2.0).ceil() as i32;
    let mut highest = f64::NEG_INFINITY;
    for i in 0..=steps {
        for k in 0..=steps {
            let sx = x - half + f64::from(i) * (2.0 * half / f64::from(steps.max(1)));
            let sz = z - half + f64::from(k) * (2.0 * half / f64::from(steps.max(1)));
            highest = highest.max(f64::from(generator.surface_height(sx as f32, sz as f32)));
        }
    }
    highest
}

/// `count` random pieces, two to a column on a grid around the spawn point: the lower one 2 to
/// 4 m above the ground, the upper one 1.5 to 3.5 m above the lower one.
fn drop_scene(generator: &Generator, count: usize, seed: u64) -> Vec<Placed> {
    let mut rng = Rng::new(seed);
    let columns = count.div_ceil(2);
    let side = (columns as f64).sqrt().ceil() as usize;
    let mut placed = Vec::with_capacity(count);
    let mut tops = vec![0.0f64; columns];
    for index in 0..count {
        let column = index / 2;
        let dims = [0; 3].map(|_| 1 + (rng.next_u64() % 4) as usize);
        let material = (rng.next_u64() % MATERIALS.len() as u64) as usize;
        let volume = dims[0] * dims[1] * dims[2];
        let piece = if index % 4 < 2 {
            Piece::solid_box(dims, material)
        } else {
            let count = 1 + (rng.next_u64() % volume as u64) as usize;
            Piece::lattice(dims, count, material, &mut rng)
        };
        let turn = quaternion_times(
            about_axis(1, unit(&mut rng) * std::f64::consts::TAU),
            quaternion_times(
                about_axis(0, (unit(&mut rng) - 0.5) * 0.4),
                about_axis(2, (unit(&mut rng) - 0.5) * 0.4),
            ),
        );
        let (i, k) = (column % side, column / side);
        let x = f64::from(SPAWN_XZ[0]) + (i as f64 - (side - 1) as f64 * 0.5) * COLUMN_SPACING;
        let z = f64::from(SPAWN_XZ[1]) + (k as f64 - (side - 1) as f64 * 0.5) * COLUMN_SPACING;
        // Half the box's diagonal bounds how far it reaches from its middle, turned any way.
        let reach = 0.5 * ((dims[0].pow(2) + dims[1].pow(2) + dims[2].pow(2)) as f64).sqrt();
        let low = if index % 2 == 0 {
            ground_under(generator, x, z, COLUMN_SPACING * 0.5) + 2.0 + unit(&mut rng) * 2.0
        } else {
            tops[column] + 1.5 + unit(&mut rng) * 2.0
        };
        let y = low + reach;
        tops[column] = y + reach;
        placed.push(Placed {
            piece,
            at: [x, y, z],
            turn,
        });
    }
    placed
}

/// `count` 4 × 4 × 4 stone pieces on a 5 m grid around the spawn point, 5 cm above the ground
/// under them.
fn resting_scene(generator: &Generator, count: usize) -> Vec<Placed> {
    let side = (count as f64).sqrt().ceil() as usize;
    (0..count)
        .map(|index| {
            let (i, k) = (index % side, index / side);
            let x = f64::from(SPAWN_XZ[0]) + (i as f64 - (side - 1) as f64 * 0.5) * 5.0;
            let z = f64::from(SPAWN_XZ[1]) + (k as f64 - (side - 1) as f64 * 0.5) * 5.0;
            let y = ground_under(generator, x, z, 2.0) + 0.05 + 2.0;
            Placed {
                piece: Piece::solid_box([4, 4, 4], 0),
                at: [x, y, z],
                turn: [0.0, 0.0, 0.0, 1.0],
            }
        })
        .collect()
}

/// The pieces in a blockfall world stepped on `threads` threads.
fn blockfall_world(
    placed: &[Placed],
    threads: usize,
) -> anyhow::Result<(Physics, PieceShapes, Vec<BodyHandle>)> {
    let mut physics = Physics::new(WorkerPool::new(threads)?);
    let mut shapes = PieceShapes::default();
    let mut handles = Vec::with_capacity(placed.len());
    for (index, place) in placed.iter().enumerate() {
        let handle = physics.add(&place.piece.desc())?;
        let view = physics.body(handle).context("a body just added")?;
        let from_box = [0, 1, 2].map(|axis| view.center[axis] - place.piece.box_middle()[axis]);
        let turned = rotate(place.turn, from_box);
        let position = [0, 1, 2].map(|axis| place.at[axis] + turned[axis]);
        physics.set_pose(handle, position, place.turn)?;
        let slot = handle.index() as usize;
        if shapes.by_slot.len() <= slot {
            shapes.by_slot.resize(slot + 1, None);
        }
        shapes.by_slot[slot] = Some(index);
        shapes.pieces.push(place.piece.clone());
        handles.push(handle);
    }
    Ok((physics, shapes, handles))
}

/// A rapier world: the pieces and one static trimesh of terrain.
struct RapierWorld {
    pipeline: rp::PhysicsPipeline,
    parameters: rp::IntegrationParameters,
    islands: rp::IslandManager,
    broad_phase: rp::DefaultBroadPhase,
    narrow_phase: rp::NarrowPhase,
    bodies: rp::RigidBodySet,
    colliders: rp::ColliderSet,
    impulse_joints: rp::ImpulseJointSet,
    multibody_joints: rp::MultibodyJointSet,
    ccd: rp::CCDSolver,
    handles: Vec<rp::RigidBodyHandle>,
}

impl RapierWorld {
    fn new(placed: &[Placed], terrain: &TerrainMesh) -> anyhow::Result<Self> {
        let mut bodies = rp::RigidBodySet::new();
        let mut colliders = rp::ColliderSet::new();
        let vertices = terrain
            .positions
            .iter()
            .map(|p| rp::Point::new(p[0], p[1], p[2]))
            .collect();
        let ground = rp::ColliderBuilder::trimesh(vertices, terrain.triangles.clone())
            .map_err(|error| anyhow!("rapier refused the terrain trimesh: {error:?}"))?
            .friction(FRICTION)
            .restitution(RESTITUTION)
            .build();
        colliders.insert(ground);
        let mut handles = Vec::with_capacity(placed.len());
        for place in placed {
            let middle = place.piece.box_middle();
            let turned = rotate(place.turn, middle);
            let origin = [0, 1, 2].map(|axis| (place.at[axis] - turned[axis]) as f32);
            let [x, y, z, w] = place.turn.map(|value| value as f32);
            let rotation = rp::nalgebra::UnitQuaternion::new_normalize(
                rp::nalgebra::Quaternion::new(w, x, y, z),
            );
            let body = rp::RigidBodyBuilder::dynamic()
                .position(rp::Isometry::from_parts(
                    rp::nalgebra::Translation3::new(origin[0], origin[1], origin[2]),
                    rotation,
                ))
                .build();
            let handle = bodies.insert(body);
            let cubes = place
                .piece
                .blocks()
                .map(|[i, j, k]| {
                    (
                        rp::Isometry::translation(i as f32 + 0.5, j as f32 + 0.5, k as f32 + 0.5),
                        rp::SharedShape::cuboid(0.5, 0.5, 0.5),
                    )
                })
                .collect();
            let collider = rp::ColliderBuilder::compound(cubes)
                .density(MATERIALS[place.piece.material].density)
                .friction(FRICTION)
                .restitution(RESTITUTION)
                .build();
            colliders.insert_with_parent(collider, handle, &mut bodies);
            handles.push(handle);
        }
        let parameters = rp::IntegrationParameters {
            dt: STEP as f32,
            ..rp::IntegrationParameters::default()
        };
        Ok(Self {
            pipeline: rp::PhysicsPipeline::new(),
            parameters,
            islands: rp::IslandManager::new(),
            broad_phase: rp::DefaultBroadPhase::new(),
            narrow_phase: rp::NarrowPhase::new(),
            bodies,
            colliders,
            impulse_joints: rp::ImpulseJointSet::new(),
            multibody_joints: rp::MultibodyJointSet::new(),
            ccd: rp::CCDSolver::new(),
            handles,
        })
    }

    fn step(&mut self) {
        self.pipeline.step(
            &rp::Vector::new(0.0, -(GRAVITY as f32), 0.0),
            &self.parameters,
            &mut self.islands,
            &mut self.broad_phase,
            &mut self.narrow_phase,
            &mut self.bodies,
            &mut self.colliders,
            &mut self.impulse_joints,
            &mut self.multibody_joints,
            &mut self.ccd,
            None,
            &(),
            &(),
        );
    }

    fn awake(&self) -> usize {
        self.handles
            .iter()
            .filter(|&&handle| !self.bodies[handle].is_sleeping())
            .count()
    }

    fn lowest(&self) -> f64 {
        self.handles
            .iter()
            .map(|&handle| f64::from(self.bodies[handle].center_of_mass().y))
            .fold(f64::INFINITY, f64::min)
    }
}

/// The terrain under the drop area as one mesh, in world meters.
struct TerrainMesh {
    positions: Vec<[f32; 3]>,
    triangles: Vec<[u32; 3]>,
    chunks: usize,
}

/// The surface nets of every chunk whose padded grid meets `low..high` (x, z) between the
/// heights `bottom` and `top`, joined into one mesh (each chunk owns its edges, so the meshes
/// tile without cracks).
fn terrain_mesh(
    field: &Field<EditStore<dyn Ground>>,
    low: [f64; 2],
    high: [f64; 2],
    bottom: f64,
    top: f64,
) -> anyhow::Result<TerrainMesh> {
    let size = f64::from(CHUNK_SIZE);
    // Chunk c's padded grid spans samples 32c - 1 ..= 32c + 32.
    let range = |from: f64, to: f64| {
        let first = ((from - size) / size).ceil() as i32;
        let last = ((to + 1.0) / size).floor() as i32;
        first..=last
    };
    let dims = [PADDED_SIZE; 3];
    let region = GridRegion::owned_edges_of_padded_grid(dims);
    let mut mesher = SurfaceNets::new();
    let mut mesh = SurfaceMesh::new();
    let mut samples = Vec::new();
    let mut terrain = TerrainMesh {
        positions: Vec::new(),
        triangles: Vec::new(),
        chunks: 0,
    };
    for cz in range(low[1], high[1]) {
        for cy in range(bottom, top) {
            for cx in range(low[0], high[0]) {
                let coord = ChunkCoord::new(cx, cy, cz);
                chunks::fill_padded_grid_or_skip(field.edits(), coord, &mut samples);
                if samples.is_empty() {
                    continue;
                }
                mesher.mesh(DensityGrid::new(&samples, dims)?, region, &mut mesh)?;
                if mesh.is_empty() {
                    continue;
                }
                let origin = coord.padded_origin().map(|value| value as f32);
                let base = terrain.positions.len() as u32;
                terrain.positions.extend(
                    mesh.positions
                        .iter()
                        .map(|p| [0, 1, 2].map(|axis| p[axis] + origin[axis])),
                );
                terrain.triangles.extend(
                    mesh.indices
                        .chunks_exact(3)
                        .map(|t| [base + t[0], base + t[1], base + t[2]]),
                );
                terrain.chunks += 1;
            }
        }
    }
    ensure!(
        !terrain.triangles.is_empty(),
        "no terrain surface under the drop area"
    );
    Ok(terrain)
}

/// Step times of one run, in milliseconds, and how it ended.
struct Run {
    times: Vec<f64>,
    awake: usize,
    /// Pieces whose middle ended below the ground's height there (caves aside).
    sunk: usize,
}

impl Run {
    fn mean(times: &[f64]) -> f64 {
        times.iter().sum::<f64>() / times.len().max(1) as f64
    }

    /// Each step's time the fastest of this run's and `other`'s (the same steps); the end is
    /// `other`'s.
    fn keep_fastest(&mut self, other: &Run) {
        for (time, other) in self.times.iter_mut().zip(&other.times) {
            *time = time.min(*other);
        }
        self.awake = other.awake;
        self.sunk = other.sunk;
    }

    fn all(&self) -> f64 {
        Self::mean(&self.times)
    }

    fn falling(&self) -> f64 {
        Self::mean(&self.times[..FALL_STEPS.min(self.times.len())])
    }

    fn after(&self) -> f64 {
        Self::mean(&self.times[FALL_STEPS.min(self.times.len())..])
    }
}

/// Whether a point is below the ground's height there.
fn below_ground(generator: &Generator, point: [f64; 3]) -> bool {
    point[1] < f64::from(generator.surface_height(point[0] as f32, point[2] as f32))
}

fn run_blockfall(
    generator: &Generator,
    placed: &[Placed],
    threads: usize,
    steps: u32,
    solids: &SceneSolids<'_>,
    floor: f64,
) -> anyhow::Result<Run> {
    let (mut physics, shapes, handles) = blockfall_world(placed, threads)?;
    let mut times = Vec::with_capacity(steps as usize);
    for step in 0..steps {
        let started = Instant::now();
        let report = physics.step(solids, &shapes);
        times.push(started.elapsed().as_secs_f64() * 1e3);
        ensure!(
            report.fell_out.is_empty(),
            "blockfall, {threads} thread(s), step {step}: {} bodies fell out of the world",
            report.fell_out.len()
        );
    }
    check_blockfall(&physics, &handles, floor, &format!("{threads} thread(s)"))?;
    let sunk = handles
        .iter()
        .filter_map(|&handle| physics.body(handle))
        .filter(|view| below_ground(generator, view.position))
        .count();
    Ok(Run {
        times,
        awake: physics.awake_count(),
        sunk,
    })
}

/// Every body still there, finite, and not below `floor`.
fn check_blockfall(
    physics: &Physics,
    handles: &[BodyHandle],
    floor: f64,
    what: &str,
) -> anyhow::Result<()> {
    for &handle in handles {
        let view = physics
            .body(handle)
            .with_context(|| format!("blockfall, {what}: a body is gone"))?;
        let finite = view
            .position
            .iter()
            .chain(&view.orientation)
            .chain(&view.velocity)
            .chain(&view.spin)
            .all(|value| value.is_finite());
        ensure!(
            finite,
            "blockfall, {what}: a body's state is not finite: {view:?}"
        );
        ensure!(
            view.position[1] >= floor,
            "blockfall, {what}: a body tunnelled to y = {:.1} m (floor {floor:.1} m)",
            view.position[1]
        );
    }
    Ok(())
}

fn run_rapier(
    generator: &Generator,
    placed: &[Placed],
    terrain: &TerrainMesh,
    threads: usize,
    steps: u32,
    floor: f64,
) -> anyhow::Result<Run> {
    let mut world = RapierWorld::new(placed, terrain)?;
    let pool = rapier3d::rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .context("building rapier's rayon pool")?;
    let times = pool.install(|| {
        (0..steps)
            .map(|_| {
                let started = Instant::now();
                world.step();
                started.elapsed().as_secs_f64() * 1e3
            })
            .collect()
    });
    let lowest = world.lowest();
    ensure!(
        lowest.is_finite() && lowest >= floor,
        "rapier, {threads} thread(s): a body tunnelled to y = {lowest:.1} m (floor {floor:.1} m)"
    );
    let sunk = world
        .handles
        .iter()
        .map(|&handle| world.bodies[handle].center_of_mass())
        .filter(|middle| below_ground(generator, [middle.x, middle.y, middle.z].map(f64::from)))
        .count();
    Ok(Run {
        times,
        awake: world.awake(),
        sunk,
    })
}

/// Mean milliseconds per step of `count` awake 4 × 4 × 4 pieces on 2 threads, each step's
/// fastest of `repeats` runs.
fn capacity_trial(
    generator: &Generator,
    solids: &SceneSolids<'_>,
    count: usize,
    repeats: u32,
) -> anyhow::Result<f64> {
    awake_trial(generator, solids, count, repeats, 2)
}

/// Mean ms per step of `count` awake 4 × 4 × 4 pieces on the ground, on `threads` threads.
fn awake_trial(
    generator: &Generator,
    solids: &SceneSolids<'_>,
    count: usize,
    repeats: u32,
    threads: usize,
) -> anyhow::Result<f64> {
    let placed = resting_scene(generator, count);
    let mut fastest = vec![f64::INFINITY; CAPACITY_TIMED_STEPS as usize];
    for _ in 0..repeats {
        let (mut physics, shapes, handles) = blockfall_world(&placed, threads)?;
        for step in 0..CAPACITY_WARM_STEPS + CAPACITY_TIMED_STEPS {
            for &handle in &handles {
                physics.wake(handle)?;
            }
            let started = Instant::now();
            let report = physics.step(solids, &shapes);
            let ms = started.elapsed().as_secs_f64() * 1e3;
            if let Some(timed) = step.checked_sub(CAPACITY_WARM_STEPS) {
                let kept = &mut fastest[timed as usize];
                *kept = kept.min(ms);
            }
            ensure!(
                report.fell_out.is_empty(),
                "capacity, {count} pieces: bodies fell out of the world"
            );
        }
        ensure!(
            physics.awake_count() == count,
            "capacity, {count} pieces: only {} awake",
            physics.awake_count()
        );
        check_blockfall(
            &physics,
            &handles,
            f64::NEG_INFINITY,
            &format!("capacity, {count} pieces"),
        )?;
    }
    Ok(Run::mean(&fastest))
}

/// Times `count` awake 4 × 4 × 4 pieces on 1 and 2 threads, and nothing else: for profiling.
pub fn run_awake(count: usize, repeats: u32) -> anyhow::Result<()> {
    let generator = Generator::new(Generator::DEFAULT_SEED);
    let world: Arc<dyn Ground> = Arc::new(generator.clone());
    let field = Field::new(EditStore::new(world));
    let blocks = BlockStore::new();
    let solids = SceneSolids {
        field: &field,
        blocks: &blocks,
    };
    for threads in [1, 2] {
        let ms = awake_trial(&generator, &solids, count, repeats, threads)?;
        println!("{count} awake 4 × 4 × 4 pieces, {threads} thread(s): {ms:.2} ms per step");
    }
    Ok(())
}

/// Runs the benchmark and prints its results as Markdown for BENCHMARKS.md.
pub fn run(
    pieces: usize,
    steps: u32,
    repeats: u32,
    seed: u64,
    capacity: bool,
) -> anyhow::Result<()> {
    ensure!(pieces > 0, "at least one piece");
    ensure!(repeats > 0, "at least one run");
    ensure!(
        steps as usize > FALL_STEPS,
        "more than {FALL_STEPS} steps, to report the falling phase and the rest"
    );
    let command: Vec<String> = std::env::args().skip(1).collect();
    println!(
        "`cargo run --release -p blockfall-tools --bin bench -- {}`",
        command.join(" ")
    );
    println!();

    let generator = Generator::new(Generator::DEFAULT_SEED);
    let world: Arc<dyn Ground> = Arc::new(generator.clone());
    let field = Field::new(EditStore::new(world));
    let no_blocks = BlockStore::new();
    let solids = SceneSolids {
        field: &field,
        blocks: &no_blocks,
    };

    let placed = drop_scene(&generator, pieces, seed);
    let mut low = [f64::INFINITY; 2];
    let mut high = [f64::NEG_INFINITY; 2];
    for place in &placed {
        for (axis, along) in [(0, 0), (1, 2)] {
            low[axis] = low[axis].min(place.at[along] - TERRAIN_BORDER);
            high[axis] = high[axis].max(place.at[along] + TERRAIN_BORDER);
        }
    }
    let mut lowest_ground = f64::INFINITY;
    let mut highest_ground = f64::NEG_INFINITY;
    let mut x = low[0];
    while x <= high[0] {
        let mut z = low[1];
        while z <= high[1] {
            let height = f64::from(generator.surface_height(x as f32, z as f32));
            lowest_ground = lowest_ground.min(height);
            highest_ground = highest_ground.max(height);
            z += 1.0;
        }
        x += 1.0;
    }
    let floor = lowest_ground - TUNNEL_DEPTH;

    let started = Instant::now();
    let terrain = terrain_mesh(&field, low, high, lowest_ground - 8.0, highest_ground + 8.0)?;
    let mesh_ms = started.elapsed().as_secs_f64() * 1e3;

    // Warm the field's sample cache over the area, as the game's is where pieces fall.
    let started = Instant::now();
    let mut z = low[1];
    while z <= high[1] {
        let mut x = low[0];
        while x <= high[0] {
            let ground = generator.surface_height(x as f32, z as f32);
            for dy in -2..=4 {
                solids.nearest([x as f32, ground + dy as f32 * 4.0, z as f32], 1.0);
            }
            x += 4.0;
        }
        z += 4.0;
    }
    let warm_ms = started.elapsed().as_secs_f64() * 1e3;

    let blocks: usize = placed.iter().map(|place| place.piece.block_count()).sum();
    let points: usize = placed
        .iter()
        .map(|place| place.piece.desc().points.len())
        .sum();
    let most = placed
        .iter()
        .map(|place| place.piece.block_count())
        .max()
        .unwrap_or(0);
    println!(
        "Scene: {pieces} pieces of plain 1 m blocks (seed {seed}; half boxes, half random \
         lattices, 1 to {most} blocks, {blocks} in all, the six materials' densities), two to a \
         column {COLUMN_SPACING} m apart around the spawn point ({}, {}), dropped 2 to 11 m onto \
         the default world (ground {lowest_ground:.1} to {highest_ground:.1} m). blockfall: \
         {points} contact points, the terrain's field (sample cache warmed in {warm_ms:.0} ms). \
         rapier3d {RAPIER_VERSION} (`parallel`): one compound collider of cuboids per piece, the \
         terrain one trimesh of {} triangles from the CPU surface nets of {} chunks (meshed in \
         {mesh_ms:.0} ms); default integration parameters otherwise. Both: dt 1/120 s, \
         friction {FRICTION}, restitution {RESTITUTION}, {steps} steps; each run {repeats} times, \
         the engines taking turns, each step's fastest time kept.",
        SPAWN_XZ[0],
        SPAWN_XZ[1],
        terrain.triangles.len(),
        terrain.chunks,
    );
    println!();
    println!(
        "| engine | threads | ms per step | first {FALL_STEPS} steps (falling) | the rest | \
         awake at the end | middle below the ground |"
    );
    println!("|---|---|---|---|---|---|---|");
    // Each run again `repeats` times, the engines taking turns, keeping each step's fastest
    // time: the steps do the same work every time, and a stray interruption of the machine
    // counts in none of them.
    let mut results: Vec<(usize, Run, Run)> = Vec::new();
    for repeat in 0..repeats {
        for (slot, threads) in [1, 2].into_iter().enumerate() {
            let ours = run_blockfall(&generator, &placed, threads, steps, &solids, floor)?;
            let theirs = run_rapier(&generator, &placed, &terrain, threads, steps, floor)?;
            if repeat == 0 {
                results.push((threads, ours, theirs));
            } else {
                results[slot].1.keep_fastest(&ours);
                results[slot].2.keep_fastest(&theirs);
            }
        }
    }
    for (threads, ours, theirs) in &results {
        for (name, run) in [("blockfall", ours), ("rapier3d", theirs)] {
            println!(
                "| {name} | {threads} | {:.2} | {:.2} | {:.2} | {} of {pieces} | {} |",
                run.all(),
                run.falling(),
                run.after(),
                run.awake,
                run.sunk
            );
        }
    }
    println!();
    for (threads, ours, theirs) in &results {
        println!(
            "- speed-up over rapier3d on {threads} thread{}: {:.2}× per step ({:.2}× falling, \
             {:.2}× after)",
            if *threads == 1 { "" } else { "s" },
            theirs.all() / ours.all(),
            theirs.falling() / ours.falling(),
            theirs.after() / ours.after()
        );
    }
    if let [(_, ours_1, theirs_1), (_, ours_2, theirs_2)] = results.as_slice() {
        println!(
            "- 1 → 2 threads: blockfall {:.2}× ({:.2}× falling, {:.2}× after), rapier3d {:.2}×",
            ours_1.all() / ours_2.all(),
            ours_1.falling() / ours_2.falling(),
            ours_1.after() / ours_2.after(),
            theirs_1.all() / theirs_2.all()
        );
    }

    if capacity {
        println!();
        capacity_search(&generator, &solids, repeats)?;
    }
    Ok(())
}

/// The most awake 4 × 4 × 4 pieces blockfall steps within [`FRAME_MS`] on 2 threads: doubling
/// from 1, then bisecting.
fn capacity_search(
    generator: &Generator,
    solids: &SceneSolids<'_>,
    repeats: u32,
) -> anyhow::Result<()> {
    let mut tried = Vec::new();
    let mut trial = |count: usize| -> anyhow::Result<bool> {
        let ms = capacity_trial(generator, solids, count, repeats)?;
        tried.push((count, ms));
        Ok(ms <= FRAME_MS)
    };
    let mut good = 0;
    let mut bad = None;
    let mut count = 1;
    while count <= CAPACITY_MOST {
        if trial(count)? {
            good = count;
            count *= 2;
        } else {
            bad = Some(count);
            break;
        }
    }
    if let Some(mut bad) = bad {
        while bad - good > 1 {
            let middle = (good + bad) / 2;
            if trial(middle)? {
                good = middle;
            } else {
                bad = middle;
            }
        }
    }
    tried.sort_by_key(|(count, _)| *count);
    let trail: Vec<String> = tried
        .iter()
        .map(|(count, ms)| format!("{count}: {ms:.2}"))
        .collect();
    let limit = if bad.is_none() {
        " (the most tried)"
    } else {
        ""
    };
    println!(
        "Most awake 4 × 4 × 4 pieces (64 blocks, 386 contact points each, kept awake, on the \
         ground 5 m apart) that blockfall steps within {FRAME_MS:.2} ms on 2 threads: \
         **{good}**{limit}. Mean ms per step over {CAPACITY_TIMED_STEPS} steps after \
         {CAPACITY_WARM_STEPS} (each step's fastest of {repeats} runs), by piece count: {}.",
        trail.join(", ")
    );
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pieces_have_the_seeds_contact_points() {
        assert_eq!(Piece::solid_box([1, 1, 1], 0).desc().points.len(), 26);
        assert_eq!(Piece::solid_box([4, 4, 4], 0).desc().points.len(), 386);
        let desc = Piece::solid_box([2, 1, 1], 2).desc();
        assert_eq!(desc.parts.len(), 2);
        assert!((desc.parts[0].mass - 600.0).abs() < 1e-9);
    }

    #[test]
    fn lattices_have_as_many_blocks_as_asked() {
        let mut rng = Rng::new(3);
        for count in [1, 5, 20, 64] {
            let piece = Piece::lattice([4, 4, 4], count, 0, &mut rng);
            assert_eq!(piece.block_count(), count);
        }
    }

    #[test]
    fn the_box_union_distance_is_exact() {
        // An L of three blocks: (0,0,0), (1,0,0), (0,1,0).
        let mut piece = Piece::solid_box([2, 2, 1], 0);
        piece.filled[3] = false;
        let above = piece.nearest([1.5, 1.25, 0.5], 1.0).expect("near");
        assert!((above.distance - 0.25).abs() < 1e-6 && above.normal == [0.0, 1.0, 0.0]);
        let corner = piece.nearest([1.5, 1.5, 0.5], 1.0).expect("near");
        assert!((corner.distance - 0.5).abs() < 1e-6 && corner.normal == [0.0, 1.0, 0.0]);
        let inside = piece.nearest([0.5, 0.9, 0.5], 1.0).expect("inside");
        // Half a meter from the outside at x = 0 and at z = 0 and 1, farther from the
        // missing block (1, 1, 0).
        assert!((inside.distance + 0.5).abs() < 1e-6);
        let shallow = piece.nearest([1.5, 0.9, 0.5], 1.0).expect("inside");
        assert!((shallow.distance + 0.1).abs() < 1e-6 && shallow.normal == [0.0, 1.0, 0.0]);
        assert!(piece.nearest([5.0, 5.0, 5.0], 1.0).is_none());
    }

    #[test]
    fn both_worlds_put_the_middle_in_the_same_place() {
        let generator = Generator::new(Generator::DEFAULT_SEED);
        let placed = drop_scene(&generator, 6, 1);
        let (physics, _, handles) = blockfall_world(&placed, 1).expect("a world");
        let terrain = TerrainMesh {
            positions: vec![[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 0.0, 1.0]],
            triangles: vec![[0, 2, 1]],
            chunks: 1,
        };
        let rapier = RapierWorld::new(&placed, &terrain).expect("a world");
        for (handle, body) in handles.iter().zip(&rapier.handles) {
            let ours = physics.body(*handle).expect("a body");
            let theirs = &rapier.bodies[*body];
            let middle = theirs.center_of_mass();
            for axis in 0..3 {
                assert!((ours.position[axis] - f64::from(middle[axis])).abs() < 1e-3);
            }
            assert!((ours.mass - f64::from(theirs.mass())).abs() / ours.mass < 1e-4);
        }
    }
}
