//! rapier3d's side of the physics benchmark: each piece one compound collider of 0.5 m
//! half-extent cuboids, the terrain one static trimesh, stepped by rapier's `PhysicsWorld` on a
//! rayon pool of the same thread count.
//!
//! The pieces' mass properties are given, not left to rapier: rapier3d 0.36.1 works out a
//! compound's principal axes of inertia wrongly when two principal moments are equal (glamx's
//! `SymmetricEigen3` takes its first eigenvector from a repeated eigenvalue): a 2 × 4 × 4 box
//! gets its largest moment about its y axis instead of its short x axis, and simulates so. So
//! each collider gets the piece's own mass, middle and inertia (as blockfall works them out,
//! the same as the cuboids' of the material's density), its principal axes found by
//! nalgebra's eigen-decomposition in `f64`.

use std::time::Instant;

use anyhow::{anyhow, ensure, Context as _};
use blockfall_physics::{GRAVITY, STEP};
use rapier3d::prelude as rp;

use super::piece::BenchPiece;
use super::scene::{rotate, Placed};
use super::stage::Stage;
use super::steps::{is_moving, Run};
use super::terrain::TerrainMesh;
use super::yardstick::Setup;
use super::{FRICTION, RESTITUTION};

/// The rapier3d release in `tools/Cargo.toml`.
pub const RAPIER_VERSION: &str = "0.36.1";

/// rapier's default solver iterations (`IntegrationParameters::num_solver_iterations`).
pub(super) fn default_iterations() -> usize {
    rp::IntegrationParameters::default().num_solver_iterations
}

/// `piece`'s mass, middle and inertia as rapier's mass properties: the inertia's principal
/// moments and the turn to their axes (a right-handed frame).
fn mass_properties(piece: &BenchPiece) -> rp::MassProperties {
    use rp::nalgebra::{Matrix3, Rotation3, UnitQuaternion};
    let (mass, middle, inertia) = piece.mass_properties();
    let eigen = Matrix3::from_fn(|row, column| inertia[row][column]).symmetric_eigen();
    let mut axes = eigen.eigenvectors;
    if axes.determinant() < 0.0 {
        axes.set_column(2, &-axes.column(2));
    }
    let turn = UnitQuaternion::from_rotation_matrix(&Rotation3::from_matrix_unchecked(axes));
    let [x, y, z, w] = [turn.i, turn.j, turn.k, turn.w].map(|value| value as f32);
    rp::MassProperties::with_principal_inertia_frame(
        rp::Vector::new(middle[0] as f32, middle[1] as f32, middle[2] as f32),
        mass as f32,
        rp::Vector::new(
            eigen.eigenvalues[0] as f32,
            eigen.eigenvalues[1] as f32,
            eigen.eigenvalues[2] as f32,
        ),
        rp::Rotation::from_xyzw(x, y, z, w).normalize(),
    )
}

/// A rapier world: the pieces and one static trimesh of terrain.
pub(super) struct RapierWorld {
    /// rapier's sets, pipelines and parameters, in one.
    pub(super) world: rp::PhysicsWorld,
    /// The pieces' bodies, in the order of the scene.
    pub(super) handles: Vec<rp::RigidBodyHandle>,
}

impl RapierWorld {
    pub(super) fn new(
        placed: &[Placed],
        terrain: &TerrainMesh,
        setup: Setup,
    ) -> anyhow::Result<Self> {
        let mut world = rp::PhysicsWorld::new();
        world.gravity = rp::Vector::new(0.0, -(GRAVITY as f32), 0.0);
        world.integration_parameters.dt = STEP as f32;
        if let Some(iterations) = setup.iterations {
            ensure!(iterations > 0, "rapier needs at least one solver iteration");
            world.integration_parameters.num_solver_iterations = iterations;
        }
        let vertices = terrain
            .positions
            .iter()
            .map(|p| rp::Vector::new(p[0], p[1], p[2]))
            .collect();
        let ground = rp::ColliderBuilder::trimesh(vertices, terrain.triangles.clone())
            .map_err(|error| anyhow!("rapier refused the terrain trimesh: {error:?}"))?
            .friction(FRICTION)
            .restitution(RESTITUTION);
        world.insert_collider(ground, None);
        let mut handles = Vec::with_capacity(placed.len());
        for place in placed {
            let middle = place.piece.box_middle();
            let turned = rotate(place.turn, middle);
            let origin = [0, 1, 2].map(|axis| (place.at[axis] - turned[axis]) as f32);
            let [x, y, z, w] = place.turn.map(|value| value as f32);
            let rotation = rp::Rotation::from_xyzw(x, y, z, w).normalize();
            let body = rp::RigidBodyBuilder::dynamic()
                .can_sleep(setup.sleeping)
                .pose(rp::Pose::from_parts(
                    rp::Vector::new(origin[0], origin[1], origin[2]),
                    rotation,
                ));
            let cubes = place
                .piece
                .blocks()
                .map(|[i, j, k]| {
                    (
                        rp::Pose::translation(i as f32 + 0.5, j as f32 + 0.5, k as f32 + 0.5),
                        rp::SharedShape::cuboid(0.5, 0.5, 0.5),
                    )
                })
                .collect();
            let collider = rp::ColliderBuilder::compound(cubes)
                .mass_properties(mass_properties(&place.piece))
                .friction(FRICTION)
                .restitution(RESTITUTION);
            let (handle, _) = world.insert(body, collider);
            handles.push(handle);
        }
        Ok(Self { world, handles })
    }

    /// The pieces' middles of mass.
    fn middles(&self) -> Vec<[f64; 3]> {
        self.handles
            .iter()
            .map(|&handle| {
                let middle = self.world.bodies[handle].center_of_mass();
                [middle.x, middle.y, middle.z].map(f64::from)
            })
            .collect()
    }
}

/// Steps the pieces of `stage` `steps` times on a rayon pool of `threads` threads, rapier set
/// up as `setup`: each step's time, and how the run ended. No body may fall below the stage's
/// floor.
pub(super) fn run_rapier(
    stage: &Stage,
    threads: usize,
    steps: u32,
    setup: Setup,
) -> anyhow::Result<Run> {
    let mut rapier = RapierWorld::new(&stage.placed, &stage.terrain, setup)?;
    rapier
        .world
        .configure_thread_pool(threads)
        .context("building rapier's rayon pool")?;
    let times = (0..steps)
        .map(|_| {
            let started = Instant::now();
            rapier.world.step();
            started.elapsed().as_secs_f64() * 1e3
        })
        .collect();
    let middles = rapier.middles();
    let (piece, lowest) = middles
        .iter()
        .enumerate()
        .map(|(index, middle)| (index, middle[1]))
        .fold((0, f64::INFINITY), |low, this| {
            if this.1 < low.1 || this.1.is_nan() {
                this
            } else {
                low
            }
        });
    ensure!(
        lowest.is_finite() && lowest >= stage.floor,
        "rapier, {}, {threads} thread(s): piece {piece} (placed at {:?}) tunnelled to y = \
         {lowest:.1} m (floor {:.1} m)",
        stage.name,
        stage.placed[piece].at,
        stage.floor
    );
    let (in_ground, highest) = stage.end_state(&middles);
    let bodies = &rapier.world.bodies;
    Ok(Run {
        times,
        awake: rapier
            .handles
            .iter()
            .filter(|&&handle| !bodies[handle].is_sleeping())
            .count(),
        moving: rapier
            .handles
            .iter()
            .filter(|&&handle| {
                let body = &bodies[handle];
                let (v, w) = (body.linvel(), body.angvel());
                is_moving(
                    [v.x, v.y, v.z].map(f64::from),
                    [w.x, w.y, w.z].map(f64::from),
                )
            })
            .count(),
        in_ground,
        highest,
        breaks: 0,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bench::physics::blockfall_runner::{blockfall_world, world_inverse_inertia};
    use crate::bench::physics::scene::drop_scene;
    use blockfall_game::blocks::MATERIALS;
    use blockfall_game::terrain::Generator;

    #[test]
    fn both_worlds_give_the_pieces_the_same_middle_mass_and_inertia() {
        let generator = Generator::new(Generator::DEFAULT_SEED);
        let placed = drop_scene(&generator, 12, 1);
        let (physics, _, handles) = blockfall_world(&placed, 1).expect("a world");
        let terrain = TerrainMesh {
            positions: vec![[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 0.0, 1.0]],
            triangles: vec![[0, 2, 1]],
            chunks: 1,
        };
        let rapier = RapierWorld::new(&placed, &terrain, Setup::DEFAULTS).expect("a world");
        for (piece, (handle, body)) in handles.iter().zip(&rapier.handles).enumerate() {
            let ours = physics.body(*handle).expect("a body");
            let theirs = &rapier.world.bodies[*body];
            let middle = theirs.center_of_mass();
            for axis in 0..3 {
                assert!((ours.position[axis] - f64::from(middle[axis])).abs() < 1e-3);
            }
            assert!((ours.mass - f64::from(theirs.mass())).abs() / ours.mass < 1e-4);
            // What the solver uses: the inverse inertia in the world's axes.
            let world = world_inverse_inertia(&ours);
            let sdp = theirs.mass_properties().effective_world_inv_inertia;
            let theirs = [
                [sdp.m11, sdp.m12, sdp.m13],
                [sdp.m12, sdp.m22, sdp.m23],
                [sdp.m13, sdp.m23, sdp.m33],
            ];
            let scale = world[0][0].abs().max(world[1][1].abs());
            for row in 0..3 {
                for column in 0..3 {
                    let (a, b) = (world[row][column], f64::from(theirs[row][column]));
                    assert!(
                        (a - b).abs() / scale < 1e-3,
                        "piece {piece}, inverse inertia [{row}][{column}]: {a} against {b}"
                    );
                }
            }
        }
    }

    /// Why the pieces' mass properties are given: rapier's own for a compound of cuboids
    /// making a 2 × 4 × 4 box put its largest moment (about x, the short side: m (4² + 4²) /
    /// 12) about y. When a rapier3d release gets this right, this test fails: the given mass
    /// properties may then go.
    #[test]
    fn rapier_0_36_turns_a_compounds_equal_moments_wrongly() {
        let piece = BenchPiece::solid_box([2, 4, 4], 3);
        let cubes = piece
            .blocks()
            .map(|[i, j, k]| {
                (
                    rp::Pose::translation(i as f32 + 0.5, j as f32 + 0.5, k as f32 + 0.5),
                    rp::SharedShape::cuboid(0.5, 0.5, 0.5),
                )
            })
            .collect();
        let density = MATERIALS[piece.material].density;
        let own = rp::SharedShape::compound(cubes).mass_properties(density);
        let given = mass_properties(&piece);
        let (mass, _, inertia) = piece.mass_properties();
        assert!((f64::from(own.mass()) - mass).abs() / mass < 1e-5);
        let about = |properties: &rp::MassProperties| {
            let matrix = properties.reconstruct_inertia_matrix();
            [matrix.x_axis.x, matrix.y_axis.y, matrix.z_axis.z].map(f64::from)
        };
        let expected = [inertia[0][0], inertia[1][1], inertia[2][2]];
        let close = |moments: [f64; 3]| {
            (0..3).all(|axis| (moments[axis] - expected[axis]).abs() / expected[0] < 1e-4)
        };
        assert!(close(about(&given)), "given: {:?}", about(&given));
        assert!(!close(about(&own)), "rapier's own: {:?}", about(&own));
    }
}
