//! rapier3d's side of the physics benchmark: each piece one compound collider of 0.5 m
//! half-extent cuboids (the same density, so the same mass and inertia), the terrain one static
//! trimesh, stepped on a rayon pool of the same thread count.

use std::time::Instant;

use anyhow::{anyhow, ensure, Context as _};
use blockfall_engine::physics::{GRAVITY, STEP};
use blockfall_game::blocks::MATERIALS;
use blockfall_game::terrain::Generator;
use rapier3d::prelude as rp;

use super::scene::{below_ground, rotate, Placed};
use super::steps::Run;
use super::terrain::TerrainMesh;
use super::{FRICTION, RESTITUTION};

/// How rapier is set up beyond the scene: its defaults, or sleeping off and a given number of
/// solver iterations for the equal-work comparison.
#[derive(Debug, Clone, Copy)]
pub(super) struct RapierSetup {
    /// Whether bodies may fall asleep (rapier's default: yes).
    pub(super) sleeping: bool,
    /// Solver iterations; `None`: rapier's default (4).
    pub(super) iterations: Option<usize>,
}

impl RapierSetup {
    pub(super) const DEFAULTS: RapierSetup = RapierSetup {
        sleeping: true,
        iterations: None,
    };
}

/// A rapier world: the pieces and one static trimesh of terrain.
pub(super) struct RapierWorld {
    pipeline: rp::PhysicsPipeline,
    parameters: rp::IntegrationParameters,
    islands: rp::IslandManager,
    broad_phase: rp::DefaultBroadPhase,
    narrow_phase: rp::NarrowPhase,
    pub(super) bodies: rp::RigidBodySet,
    colliders: rp::ColliderSet,
    impulse_joints: rp::ImpulseJointSet,
    multibody_joints: rp::MultibodyJointSet,
    ccd: rp::CCDSolver,
    /// The pieces' bodies, in the order of the scene.
    pub(super) handles: Vec<rp::RigidBodyHandle>,
}

impl RapierWorld {
    pub(super) fn new(
        placed: &[Placed],
        terrain: &TerrainMesh,
        setup: RapierSetup,
    ) -> anyhow::Result<Self> {
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
                .can_sleep(setup.sleeping)
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
        let mut parameters = rp::IntegrationParameters {
            dt: STEP as f32,
            ..rp::IntegrationParameters::default()
        };
        if let Some(iterations) = setup.iterations {
            parameters.num_solver_iterations = std::num::NonZeroUsize::new(iterations)
                .context("rapier needs at least one solver iteration")?;
        }
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

    /// The lowest piece: its place in the scene and the height of its middle.
    fn lowest(&self) -> (usize, f64) {
        self.handles
            .iter()
            .enumerate()
            .map(|(index, &handle)| (index, f64::from(self.bodies[handle].center_of_mass().y)))
            .fold(
                (0, f64::INFINITY),
                |low, this| if this.1 < low.1 { this } else { low },
            )
    }
}

/// Steps the pieces `placed` on `terrain` `steps` times on a rayon pool of `threads` threads,
/// rapier set up as `setup`: each step's time, and how the run ended. No body may fall below
/// `floor`.
pub(super) fn run_rapier(
    generator: &Generator,
    placed: &[Placed],
    terrain: &TerrainMesh,
    threads: usize,
    steps: u32,
    floor: f64,
    setup: RapierSetup,
) -> anyhow::Result<Run> {
    let mut world = RapierWorld::new(placed, terrain, setup)?;
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
    let (piece, lowest) = world.lowest();
    ensure!(
        lowest.is_finite() && lowest >= floor,
        "rapier, {threads} thread(s): piece {piece} (placed at {:?}) tunnelled to y = {lowest:.1} \
         m (floor {floor:.1} m)",
        placed[piece].at
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
        breaks: 0,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bench::physics::blockfall_runner::blockfall_world;
    use crate::bench::physics::scene::drop_scene;

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
        let rapier = RapierWorld::new(&placed, &terrain, RapierSetup::DEFAULTS).expect("a world");
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
