//! Jolt Physics' side of the physics benchmark (only with `--features jolt`): Jolt 5.0 through
//! JoltC (joltc-sys 0.3.1), and the few functions JoltC does not bind from
//! `jolt_shim.cpp` (built by `tools/build.rs`): the terrain's mesh shape, the solver's step
//! counts and gravity.
//!
//! The scene as rapier3d gets it: each piece one body whose shape is a compound of 0.5 m
//! half-extent boxes at their blocks' middles (Jolt's `StaticCompoundShape`; a lone block its
//! box moved to its middle), of the piece's material's density, so the same mass and inertia;
//! the terrain one static mesh shape. Friction 0.6 and restitution 0.15 on every body (Jolt
//! combines two bodies' friction as √(a b) and their restitution as the larger: the same
//! values). Left at Jolt's defaults: the boxes' convex radius (0.05 m: the edges rounded
//! inside the same 1 m box, so the mass is unchanged), gravity's (0, −9.81, 0) (set anyway),
//! the solver's steps unless the setup gives them, sleeping unless the setup turns it off.
//! Set otherwise: linear and angular damping 0 (Jolt's default 0.05 would slow every piece
//! where blockfall and rapier3d slow none in flight). The pool has `threads − 1` workers: the
//! calling thread works too, as blockfall's and rayon's do.

use std::ffi::{c_char, c_void, CStr};
use std::sync::Once;
use std::time::Instant;

use anyhow::{bail, ensure};
use blockfall_game::blocks::MATERIALS;
use blockfall_physics::{GRAVITY, STEP};
use joltc_sys as jolt;

use super::scene::{rotate, Placed};
use super::stage::Stage;
use super::steps::{is_moving, Run};
use super::terrain::TerrainMesh;
use super::yardstick::Setup;
use super::{FRICTION, RESTITUTION};

/// The Jolt release joltc-sys builds.
pub const JOLT_VERSION: &str = "5.0.0 (joltc-sys 0.3.1)";

// The shim's functions (`jolt_shim.cpp` says what each does).
extern "C" {
    /// Whether the Jolt linked was built with the shim's configuration.
    fn blockfall_jolt_abi_matches() -> bool;
    /// A static mesh shape (one reference for the caller), or null and Jolt's message.
    fn blockfall_jolt_mesh_shape(
        vertices: *const f32,
        vertex_count: usize,
        triangles: *const u32,
        triangle_count: usize,
        error: *mut c_char,
        error_len: usize,
    ) -> *mut jolt::JPC_Shape;
    /// The solver's velocity and position steps.
    fn blockfall_jolt_solver_steps(
        system: *const jolt::JPC_PhysicsSystem,
        velocity: *mut u32,
        position: *mut u32,
    );
    /// Sets the solver's velocity and position steps.
    fn blockfall_jolt_set_solver_steps(
        system: *mut jolt::JPC_PhysicsSystem,
        velocity: u32,
        position: u32,
    );
    /// Sets gravity, m/s².
    fn blockfall_jolt_set_gravity(system: *mut jolt::JPC_PhysicsSystem, x: f32, y: f32, z: f32);
    /// A dynamic body's inverse mass, 1/kg.
    #[cfg(test)]
    fn blockfall_jolt_inverse_mass(body: *const jolt::JPC_Body) -> f32;
}

/// The object layer (and broad phase layer) of the terrain, which never moves ...
const GROUND: jolt::JPC_ObjectLayer = 0;
/// ... and of the pieces.
const PIECES: jolt::JPC_ObjectLayer = 1;
/// How many layers there are of either kind.
const LAYERS: u32 = 2;

/// Bytes of Jolt's temporary allocator (each step's scratch memory).
const TEMP_BYTES: u32 = 64 << 20;
/// Jobs and barriers of the job pool: Jolt's `cMaxPhysicsJobs` and `cMaxPhysicsBarriers`
/// (`PhysicsSettings.h`), which JoltC does not bind.
const MAX_PHYSICS_JOBS: u32 = 2048;
const MAX_PHYSICS_BARRIERS: u32 = 8;

/// Body pairs and contact constraints Jolt makes room for, per piece (and at least
/// [`FEWEST_PAIRS`]): a step that needs more fails rather than dropping contacts.
const PAIRS_PER_PIECE: usize = 64;
const FEWEST_PAIRS: usize = 65_536;

/// How many broad phase layers there are (Jolt's `BroadPhaseLayerInterface`) ...
extern "C" fn broad_phase_layer_count(_: *const c_void) -> u32 {
    LAYERS
}

/// ... and an object layer's: the one of the same number.
extern "C" fn broad_phase_layer(_: *const c_void, layer: jolt::JPC_ObjectLayer) -> u8 {
    layer as u8
}

/// Whether an object layer meets a broad phase layer: pieces meet everything, the terrain
/// only pieces.
extern "C" fn object_meets_broad_phase(
    _: *const c_void,
    layer: jolt::JPC_ObjectLayer,
    broad: u8,
) -> bool {
    layer == PIECES || broad == PIECES as u8
}

/// Whether two object layers meet: the same rule.
extern "C" fn objects_meet(
    _: *const c_void,
    first: jolt::JPC_ObjectLayer,
    second: jolt::JPC_ObjectLayer,
) -> bool {
    first == PIECES || second == PIECES
}

/// Registers Jolt's allocator and types, once per process, and checks that the shim was
/// compiled with the library's configuration.
fn start_jolt() -> anyhow::Result<()> {
    static START: Once = Once::new();
    START.call_once(|| {
        // SAFETY: called once, before any other Jolt call, as Jolt asks.
        unsafe {
            jolt::JPC_RegisterDefaultAllocator();
            jolt::JPC_FactoryInit();
            jolt::JPC_RegisterTypes();
        }
    });
    // SAFETY: a pure check of two constants.
    let matches = unsafe { blockfall_jolt_abi_matches() };
    ensure!(
        matches,
        "the Jolt shim was compiled with other defines than joltc-sys's Jolt (tools/build.rs)"
    );
    Ok(())
}

/// Jolt's default solver steps: velocity and position.
pub(super) fn default_steps() -> (u32, u32) {
    // A PhysicsSettings' defaults, read from an uninitialised system (the settings are set at
    // construction; Init does not change them).
    let _ = start_jolt();
    let (mut velocity, mut position) = (0, 0);
    // SAFETY: the system is made, read and deleted here, nothing else holds it.
    unsafe {
        let system = jolt::JPC_PhysicsSystem_new();
        blockfall_jolt_solver_steps(system, &mut velocity, &mut position);
        jolt::JPC_PhysicsSystem_delete(system);
    }
    (velocity, position)
}

/// A `JPC_Vec3` from three floats (the fourth lane a copy of z, as Jolt keeps it).
fn vec3(x: f32, y: f32, z: f32) -> jolt::JPC_Vec3 {
    jolt::JPC_Vec3 { x, y, z, _w: z }
}

/// Jolt's message for a failed shape, as a string; the message is freed.
///
/// # Safety
/// `error` is null or a string JoltC handed back and nothing else frees.
unsafe fn shape_error(error: *mut jolt::JPC_String) -> String {
    if error.is_null() {
        return "no message".into();
    }
    // SAFETY: a live string (the caller's promise), read and then freed once.
    unsafe {
        let message = CStr::from_ptr(jolt::JPC_String_c_str(error))
            .to_string_lossy()
            .into_owned();
        jolt::JPC_String_delete(error);
        message
    }
}

/// A Jolt world: the pieces and one static mesh of terrain, with its job pool and scratch
/// memory. Owns every Jolt object it made; dropping it deletes them.
pub(super) struct JoltWorld {
    system: *mut jolt::JPC_PhysicsSystem,
    interface: *mut jolt::JPC_BodyInterface,
    temp: *mut jolt::JPC_TempAllocatorImpl,
    jobs: *mut jolt::JPC_JobSystemThreadPool,
    layers: *mut jolt::JPC_BroadPhaseLayerInterface,
    object_vs_broad_phase: *mut jolt::JPC_ObjectVsBroadPhaseLayerFilter,
    object_pairs: *mut jolt::JPC_ObjectLayerPairFilter,
    /// The pieces' bodies, in the order of the scene (owned by the system).
    pub(super) bodies: Vec<*mut jolt::JPC_Body>,
}

impl Drop for JoltWorld {
    fn drop(&mut self) {
        // SAFETY: each pointer was made by its `_new` and is deleted once, the system (which
        // owns the bodies and uses the layers) first, then what it used.
        unsafe {
            jolt::JPC_PhysicsSystem_delete(self.system);
            jolt::JPC_JobSystemThreadPool_delete(self.jobs);
            jolt::JPC_TempAllocatorImpl_delete(self.temp);
            jolt::JPC_ObjectLayerPairFilter_delete(self.object_pairs);
            jolt::JPC_ObjectVsBroadPhaseLayerFilter_delete(self.object_vs_broad_phase);
            jolt::JPC_BroadPhaseLayerInterface_delete(self.layers);
        }
    }
}

impl JoltWorld {
    /// The pieces `placed` on `terrain`, stepped on `threads` threads, set up as `setup`.
    pub(super) fn new(
        placed: &[Placed],
        terrain: &TerrainMesh,
        threads: usize,
        setup: Setup,
    ) -> anyhow::Result<Self> {
        start_jolt()?;
        ensure!(threads > 0, "at least one thread");
        let pairs = (placed.len() * PAIRS_PER_PIECE).max(FEWEST_PAIRS) as u32;
        // SAFETY: every object is made by JoltC and kept by the world, which deletes it; the
        // callbacks read nothing through their `self` pointer (null).
        let mut world = unsafe {
            let layers = jolt::JPC_BroadPhaseLayerInterface_new(
                std::ptr::null(),
                jolt::JPC_BroadPhaseLayerInterfaceFns {
                    GetNumBroadPhaseLayers: Some(broad_phase_layer_count),
                    GetBroadPhaseLayer: Some(broad_phase_layer),
                },
            );
            let object_vs_broad_phase = jolt::JPC_ObjectVsBroadPhaseLayerFilter_new(
                std::ptr::null(),
                jolt::JPC_ObjectVsBroadPhaseLayerFilterFns {
                    ShouldCollide: Some(object_meets_broad_phase),
                },
            );
            let object_pairs = jolt::JPC_ObjectLayerPairFilter_new(
                std::ptr::null(),
                jolt::JPC_ObjectLayerPairFilterFns {
                    ShouldCollide: Some(objects_meet),
                },
            );
            let system = jolt::JPC_PhysicsSystem_new();
            jolt::JPC_PhysicsSystem_Init(
                system,
                placed.len() as u32 + 1,
                0,
                pairs,
                pairs,
                layers,
                object_vs_broad_phase,
                object_pairs,
            );
            blockfall_jolt_set_gravity(system, 0.0, -(GRAVITY as f32), 0.0);
            if let Some(iterations) = setup.iterations {
                let (mut velocity, mut position) = (0, 0);
                blockfall_jolt_solver_steps(system, &mut velocity, &mut position);
                blockfall_jolt_set_solver_steps(system, iterations as u32, position);
            }
            Self {
                system,
                interface: jolt::JPC_PhysicsSystem_GetBodyInterface(system),
                temp: jolt::JPC_TempAllocatorImpl_new(TEMP_BYTES),
                jobs: jolt::JPC_JobSystemThreadPool_new3(
                    MAX_PHYSICS_JOBS,
                    MAX_PHYSICS_BARRIERS,
                    threads as i32 - 1,
                ),
                layers,
                object_vs_broad_phase,
                object_pairs,
                bodies: Vec::with_capacity(placed.len()),
            }
        };
        world.add_terrain(terrain)?;
        world.add_pieces(placed, setup)?;
        // SAFETY: the system is live; the bodies are all added.
        unsafe { jolt::JPC_PhysicsSystem_OptimizeBroadPhase(world.system) };
        Ok(world)
    }

    /// Adds the terrain: one static body of one mesh shape, its triangles turned to face up
    /// if they face down (Jolt's bodies collide with the front faces alone, counter-clockwise
    /// seen from outside).
    fn add_terrain(&mut self, terrain: &TerrainMesh) -> anyhow::Result<()> {
        let up: f64 = terrain
            .triangles
            .iter()
            .map(|&[a, b, c]| {
                let [a, b, c] = [a, b, c].map(|index| terrain.positions[index as usize]);
                let (u, v) = (
                    [0, 1, 2].map(|axis| f64::from(b[axis] - a[axis])),
                    [0, 1, 2].map(|axis| f64::from(c[axis] - a[axis])),
                );
                u[2] * v[0] - u[0] * v[2]
            })
            .sum();
        let triangles: Vec<u32> = terrain
            .triangles
            .iter()
            .flat_map(|&[a, b, c]| if up >= 0.0 { [a, b, c] } else { [a, c, b] })
            .collect();
        let vertices: Vec<f32> = terrain.positions.iter().flatten().copied().collect();
        let mut error = [0 as c_char; 256];
        // SAFETY: the slices hold the counts given; the error buffer its length.
        let shape = unsafe {
            blockfall_jolt_mesh_shape(
                vertices.as_ptr(),
                terrain.positions.len(),
                triangles.as_ptr(),
                terrain.triangles.len(),
                error.as_mut_ptr(),
                error.len(),
            )
        };
        if shape.is_null() {
            // SAFETY: the shim wrote a zero-ended message into the buffer.
            let message = unsafe { CStr::from_ptr(error.as_ptr()) };
            bail!(
                "Jolt refused the terrain mesh: {}",
                message.to_string_lossy()
            );
        }
        let settings = jolt::JPC_BodyCreationSettings {
            Position: vec3(0.0, 0.0, 0.0),
            MotionType: jolt::JPC_MOTION_TYPE_STATIC,
            ObjectLayer: GROUND,
            Friction: FRICTION,
            Restitution: RESTITUTION,
            Shape: shape,
            ..Default::default()
        };
        // SAFETY: the settings are whole and the shape live; the body holds its own reference
        // to the shape, so ours is let go.
        unsafe {
            let body = jolt::JPC_BodyInterface_CreateBody(self.interface, &settings);
            jolt::JPC_Shape_Release(shape);
            ensure!(!body.is_null(), "Jolt has no room for the terrain's body");
            jolt::JPC_BodyInterface_AddBody(
                self.interface,
                jolt::JPC_Body_GetID(body),
                jolt::JPC_ACTIVATION_DONT_ACTIVATE,
            );
        }
        Ok(())
    }

    /// Adds the pieces, each one body of a compound of boxes, awake.
    fn add_pieces(&mut self, placed: &[Placed], setup: Setup) -> anyhow::Result<()> {
        // One box shape per material, shared by every block of it.
        let mut boxes: Vec<*mut jolt::JPC_Shape> = Vec::with_capacity(MATERIALS.len());
        for material in MATERIALS.iter() {
            let settings = jolt::JPC_BoxShapeSettings {
                HalfExtent: vec3(0.5, 0.5, 0.5),
                Density: material.density,
                ..Default::default()
            };
            let mut shape = std::ptr::null_mut();
            let mut error = std::ptr::null_mut();
            // SAFETY: the settings are whole; the out pointers point at locals.
            let made =
                unsafe { jolt::JPC_BoxShapeSettings_Create(&settings, &mut shape, &mut error) };
            if !made {
                // SAFETY: JoltC handed this message back for us to free.
                bail!("Jolt refused a box: {}", unsafe { shape_error(error) });
            }
            boxes.push(shape);
        }
        let result = self.add_pieces_with(placed, setup, &boxes);
        for shape in boxes {
            // SAFETY: our reference to each box, let go once; the compounds hold their own.
            unsafe { jolt::JPC_Shape_Release(shape) };
        }
        result
    }

    /// Adds the pieces, each block one of `boxes` (one per material) in the piece's compound.
    fn add_pieces_with(
        &mut self,
        placed: &[Placed],
        setup: Setup,
        boxes: &[*mut jolt::JPC_Shape],
    ) -> anyhow::Result<()> {
        for place in placed {
            let cube = boxes[place.piece.material];
            let parts: Vec<jolt::JPC_SubShapeSettings> = place
                .piece
                .blocks()
                .map(|[i, j, k]| jolt::JPC_SubShapeSettings {
                    Shape: cube,
                    Position: vec3(i as f32 + 0.5, j as f32 + 0.5, k as f32 + 0.5),
                    Rotation: jolt::JPC_Quat {
                        x: 0.0,
                        y: 0.0,
                        z: 0.0,
                        w: 1.0,
                    },
                    ..Default::default()
                })
                .collect();
            let settings = jolt::JPC_StaticCompoundShapeSettings {
                SubShapes: parts.as_ptr(),
                SubShapesLen: parts.len(),
                ..Default::default()
            };
            let mut shape = std::ptr::null_mut();
            let mut error = std::ptr::null_mut();
            // SAFETY: the settings point at `parts`, alive for the call; the out pointers at
            // locals.
            let made = unsafe {
                jolt::JPC_StaticCompoundShapeSettings_Create(&settings, &mut shape, &mut error)
            };
            if !made {
                // SAFETY: JoltC handed this message back for us to free.
                bail!("Jolt refused a piece's compound: {}", unsafe {
                    shape_error(error)
                });
            }
            let middle = place.piece.box_middle();
            let turned = rotate(place.turn, middle);
            let origin = [0, 1, 2].map(|axis| (place.at[axis] - turned[axis]) as f32);
            let [x, y, z, w] = place.turn.map(|value| value as f32);
            let norm = (x * x + y * y + z * z + w * w).sqrt();
            let body = jolt::JPC_BodyCreationSettings {
                Position: vec3(origin[0], origin[1], origin[2]),
                Rotation: jolt::JPC_Quat {
                    x: x / norm,
                    y: y / norm,
                    z: z / norm,
                    w: w / norm,
                },
                MotionType: jolt::JPC_MOTION_TYPE_DYNAMIC,
                ObjectLayer: PIECES,
                AllowSleeping: setup.sleeping,
                Friction: FRICTION,
                Restitution: RESTITUTION,
                LinearDamping: 0.0,
                AngularDamping: 0.0,
                Shape: shape,
                ..Default::default()
            };
            // SAFETY: the settings are whole and the shape live; the body holds its own
            // reference, so ours is let go.
            let made = unsafe {
                let made = jolt::JPC_BodyInterface_CreateBody(self.interface, &body);
                jolt::JPC_Shape_Release(shape);
                if !made.is_null() {
                    jolt::JPC_BodyInterface_AddBody(
                        self.interface,
                        jolt::JPC_Body_GetID(made),
                        jolt::JPC_ACTIVATION_ACTIVATE,
                    );
                }
                made
            };
            ensure!(!made.is_null(), "Jolt has no room for another body");
            self.bodies.push(made);
        }
        Ok(())
    }

    /// One step of 1/120 s.
    fn step(&mut self) -> anyhow::Result<()> {
        // SAFETY: the system, its scratch memory and its pool are live and used by this
        // thread alone.
        let error = unsafe {
            jolt::JPC_PhysicsSystem_Update(self.system, STEP as f32, 1, self.temp, self.jobs)
        };
        ensure!(
            error == jolt::JPC_PHYSICS_UPDATE_ERROR_NONE,
            "Jolt's step ran out of room (error {error:#x}: 1 manifolds, 2 body pairs, 4 \
             contact constraints)"
        );
        Ok(())
    }

    /// A piece's middle of mass, velocity and angular velocity, and whether it is awake.
    pub(super) fn state(&self, piece: usize) -> ([f64; 3], [f64; 3], [f64; 3], bool) {
        let body = self.bodies[piece];
        let triple = |v: jolt::JPC_Vec3| [v.x, v.y, v.z].map(f64::from);
        // SAFETY: the body is live (the system owns it until the world drops) and no step
        // runs meanwhile.
        unsafe {
            (
                triple(jolt::JPC_Body_GetCenterOfMassPosition(body)),
                triple(jolt::JPC_Body_GetLinearVelocity(body)),
                triple(jolt::JPC_Body_GetAngularVelocity(body)),
                jolt::JPC_Body_IsActive(body),
            )
        }
    }

    /// A piece's mass and its inverse inertia in the world's axes.
    #[cfg(test)]
    pub(super) fn mass_and_inverse_inertia(&self, piece: usize) -> (f64, [[f64; 3]; 3]) {
        let body = self.bodies[piece];
        let mut matrix = jolt::JPC_Mat44 {
            matrix: [jolt::JPC_Vec4 {
                x: 0.0,
                y: 0.0,
                z: 0.0,
                w: 0.0,
            }; 4],
        };
        // SAFETY: the body is live and no step runs meanwhile.
        let inverse_mass = unsafe {
            jolt::JPC_Body_GetInverseInertia(body, &mut matrix);
            blockfall_jolt_inverse_mass(body)
        };
        // Jolt's matrices are column-major: `matrix[column]` holds a column.
        let column = |c: usize| {
            let v = matrix.matrix[c];
            [v.x, v.y, v.z].map(f64::from)
        };
        let columns = [column(0), column(1), column(2)];
        let inverse_inertia = [0, 1, 2].map(|row| [0, 1, 2].map(|c| columns[c][row]));
        (1.0 / f64::from(inverse_mass), inverse_inertia)
    }
}

/// Steps the pieces of `stage` `steps` times on `threads` threads, Jolt set up as `setup`: each
/// step's time, and how the run ended. No body may fall below the stage's floor.
pub(super) fn run_jolt(
    stage: &Stage,
    threads: usize,
    steps: u32,
    setup: Setup,
) -> anyhow::Result<Run> {
    let mut world = JoltWorld::new(&stage.placed, &stage.terrain, threads, setup)?;
    let mut times = Vec::with_capacity(steps as usize);
    for _ in 0..steps {
        let started = Instant::now();
        world.step()?;
        times.push(started.elapsed().as_secs_f64() * 1e3);
    }
    let states: Vec<_> = (0..world.bodies.len())
        .map(|piece| world.state(piece))
        .collect();
    let middles: Vec<[f64; 3]> = states.iter().map(|state| state.0).collect();
    for (piece, middle) in middles.iter().enumerate() {
        ensure!(
            middle.iter().all(|value| value.is_finite()) && middle[1] >= stage.floor,
            "Jolt, {}, {threads} thread(s): piece {piece} (placed at {:?}) tunnelled to y = \
             {:.1} m (floor {:.1} m)",
            stage.name,
            stage.placed[piece].at,
            middle[1],
            stage.floor
        );
    }
    let (in_ground, highest) = stage.end_state(&middles);
    Ok(Run {
        times,
        awake: states.iter().filter(|state| state.3).count(),
        moving: states
            .iter()
            .filter(|state| is_moving(state.1, state.2))
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
    use blockfall_game::terrain::Generator;

    #[test]
    fn jolt_gives_the_pieces_blockfalls_middle_mass_and_inertia() {
        let generator = Generator::new(Generator::DEFAULT_SEED);
        let placed = drop_scene(&generator, 12, 1);
        let (physics, _, handles) = blockfall_world(&placed, 1).expect("a world");
        let terrain = TerrainMesh {
            positions: vec![[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 0.0, 1.0]],
            triangles: vec![[0, 2, 1]],
            chunks: 1,
        };
        let jolt = JoltWorld::new(&placed, &terrain, 1, Setup::DEFAULTS).expect("a world");
        for (piece, handle) in handles.iter().enumerate() {
            let ours = physics.body(*handle).expect("a body");
            let (middle, _, _, awake) = jolt.state(piece);
            assert!(awake);
            for (ours, theirs) in ours.position.iter().zip(middle) {
                assert!((ours - theirs).abs() < 1e-3);
            }
            let (mass, inverse_inertia) = jolt.mass_and_inverse_inertia(piece);
            assert!((ours.mass - mass).abs() / ours.mass < 1e-4);
            let world = world_inverse_inertia(&ours);
            let scale = world[0][0].abs().max(world[1][1].abs());
            for row in 0..3 {
                for column in 0..3 {
                    let (a, b) = (world[row][column], inverse_inertia[row][column]);
                    assert!(
                        (a - b).abs() / scale < 1e-3,
                        "piece {piece}, inverse inertia [{row}][{column}]: {a} against {b}"
                    );
                }
            }
        }
    }
}
