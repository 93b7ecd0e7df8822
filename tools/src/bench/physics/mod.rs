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
//! thread count (blockfall's [`WorkerPool`](blockfall_engine::workers::WorkerPool), rapier's
//! `parallel` feature on a rayon pool of that many threads).
//!
//! Then the capacity question: how many awake 4 × 4 × 4 pieces blockfall steps within a frame
//! of 8.33 ms on 2 threads, found by doubling and bisecting.
//!
//! The parts, a module each: `piece` the pieces, `scene` where they go, `blockfall_runner` and
//! `rapier_world` the two engines' runs (rapier's terrain from `terrain`), `steps` a run's step
//! times, `capacity` the capacity search, `report` what is printed.

mod blockfall_runner;
mod capacity;
mod equal_work;
mod piece;
mod rapier_world;
mod report;
mod scene;
mod steps;
mod terrain;

use std::time::Instant;

use anyhow::ensure;
use blockfall_game::blocks::BlockStore;
use blockfall_game::scene::SceneSolids;
use blockfall_game::terrain::Generator;

use crate::bench::shared::world_field;
use blockfall_runner::run_blockfall;
use capacity::capacity_search;
use rapier_world::{run_rapier, RapierSetup};
use report::{print_results, print_scene, Scene};
use scene::{drop_scene, DropArea};
use steps::{Run, FALL_STEPS};
use terrain::terrain_mesh;

pub use capacity::run_awake;
pub use equal_work::{run as run_equal_work, run_heap_only};
pub use piece::BenchPiece;

/// The rapier3d release in `tools/Cargo.toml` (the newest whose MSRV fits the workspace's).
pub const RAPIER_VERSION: &str = "0.26.1";

/// A frame at 120 frames per second, in milliseconds.
pub const FRAME_MS: f64 = 1000.0 / 120.0;

/// Friction and restitution given to rapier, blockfall's own constants.
const FRICTION: f32 = blockfall_engine::physics::FRICTION as f32;
const RESTITUTION: f32 = blockfall_engine::physics::BOUNCE as f32;

/// Anything deeper than this below the lowest ground of the area has tunnelled.
pub(super) const TUNNEL_DEPTH: f64 = 50.0;

/// Runs the benchmark and prints its results as Markdown for BENCHMARKS.md: `pieces` pieces
/// (shapes, materials and turns from `seed`) stepped `steps` times by both engines on 1 and 2
/// threads, each run `repeats` times; then, if `capacity`, the capacity search.
pub fn run(
    pieces: usize,
    steps: u32,
    repeats: u32,
    seed: u64,
    capacity: bool,
    strength: bool,
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
    let field = world_field(&generator);
    let no_blocks = BlockStore::new();
    let solids = SceneSolids::new(&field, &no_blocks);

    let placed = drop_scene(&generator, pieces, seed);
    let area = DropArea::around(&generator, &placed);
    let floor = area.lowest_ground - TUNNEL_DEPTH;

    let started = Instant::now();
    let terrain = terrain_mesh(
        &field,
        area.low,
        area.high,
        area.lowest_ground - 8.0,
        area.highest_ground + 8.0,
    )?;
    let mesh_ms = started.elapsed().as_secs_f64() * 1e3;

    let started = Instant::now();
    area.warm(&generator, &solids);
    let warm_ms = started.elapsed().as_secs_f64() * 1e3;

    print_scene(&Scene {
        pieces,
        seed,
        placed: &placed,
        area: &area,
        warm_ms,
        terrain: &terrain,
        mesh_ms,
        steps,
        repeats,
    });
    // Each run again `repeats` times, the engines taking turns, keeping each step's fastest
    // time: the steps do the same work every time, and a stray interruption of the machine
    // counts in none of them.
    let mut results: Vec<(usize, Run, Run)> = Vec::new();
    for repeat in 0..repeats {
        for (slot, threads) in [1, 2].into_iter().enumerate() {
            let ours = run_blockfall(
                &generator, &placed, threads, steps, &solids, floor, true, strength,
            )?;
            let theirs = run_rapier(
                &generator,
                &placed,
                &terrain,
                threads,
                steps,
                floor,
                RapierSetup::DEFAULTS,
            )?;
            if repeat == 0 {
                results.push((threads, ours, theirs));
            } else {
                results[slot].1.keep_fastest(&ours);
                results[slot].2.keep_fastest(&theirs);
            }
        }
    }
    print_results(pieces, &results);
    if strength {
        println!(
            "blockfall's steps include judging strength (game::strength, as the game's pieces \
             do; --no-strength leaves it out): {} piece-steps over a joint's strength, not split",
            results[0].1.breaks
        );
    }

    if capacity {
        println!();
        capacity_search(&generator, &solids, repeats)?;
    }
    Ok(())
}
