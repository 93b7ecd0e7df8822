//! `bench -- physics`: blockfall's physics core against rapier3d 0.36 and (built with
//! `--features jolt`) Jolt Physics 5, on the same pieces.
//!
//! Three scenes, each built once for every engine: **drop**, pieces of plain 1 m blocks (1 to
//! 64 each, boxes and random lattices, of the six materials) dropped from 2 to 11 m onto the
//! default world around the spawn point, two to a column so that they land on each other;
//! **heap**, 400 small pieces falling into a pit dug at the spawn point, so that most contacts
//! are piece against piece; **pyramid**, 210 single cubes stacked on flat ground, 20 in the
//! bottom row (every engine's standard stack). blockfall sees the ground through
//! [`SceneSolids`](blockfall_game::scene::SceneSolids) (the world's field) and each piece
//! through an exact box-union distance of its blocks; its contact points are the half-meter
//! lattice points on the piece's outside (26 for a lone block, 386 for 4 × 4 × 4). The other
//! engines get each piece as one compound of 0.5 m half-extent boxes (same density, so the same
//! mass and inertia), and the ground as one static triangle mesh: the CPU surface nets of the
//! chunks under the scene, the mesh the game draws. All: gravity 9.81 m/s², steps of 1/120 s,
//! friction 0.6, restitution 0.15, the same thread count (blockfall's
//! [`WorkerPool`](blockfall_physics::workers::WorkerPool), rapier's `parallel` feature on a rayon
//! pool of that many threads, Jolt's job pool). Each engine runs at its defaults; the others
//! also at blockfall's 8 iterations. The report closes with the anchors line: per scene and
//! thread count, the faster other engine's time per step over blockfall's.
//!
//! Then the capacity question: how many awake 4 × 4 × 4 pieces blockfall steps within a frame
//! of 8.33 ms on 2 threads, found by doubling and bisecting.
//!
//! The parts, a module each: `piece` the pieces, `scene` where they go, `stage` a scene set up
//! for every engine (its terrain mesh from `terrain`), `blockfall_runner`, `rapier_world` and
//! `jolt_world` the engines' runs, `yardstick` the other engines and their setups, `compare`
//! one scene's runs, `steps` a run's step times and end, `capacity` the capacity search,
//! `report` what is printed, `equal_work` the equal-work comparison.

mod blockfall_runner;
mod capacity;
mod compare;
mod equal_work;
#[cfg(feature = "jolt")]
mod jolt_world;
mod piece;
mod rapier_world;
mod report;
mod scene;
mod stage;
mod steps;
mod terrain;
mod yardstick;

use anyhow::ensure;
use blockfall_game::blocks::BlockStore;
use blockfall_game::scene::SceneSolids;
use blockfall_game::terrain::Generator;

use crate::bench::shared::world_field;
use capacity::capacity_search;
use compare::compare_stage;
use equal_work::HEAP_PIECES;
use report::{anchors_line, print_rows, print_scenes, print_speed_ups};
use stage::Stage;
use steps::FALL_STEPS;
use yardstick::Yardstick;

pub use capacity::run_awake;
pub use equal_work::{run as run_equal_work, run_heap_only};
pub use piece::BenchPiece;
pub use rapier_world::RAPIER_VERSION;

/// A frame at 120 frames per second, in milliseconds.
pub const FRAME_MS: f64 = 1000.0 / 120.0;

/// Friction and restitution given to the other engines, blockfall's own constants.
const FRICTION: f32 = blockfall_physics::FRICTION as f32;
const RESTITUTION: f32 = blockfall_physics::BOUNCE as f32;

/// Anything deeper than this below the lowest ground of the area has tunnelled.
pub(super) const TUNNEL_DEPTH: f64 = 50.0;

/// Runs the benchmark and prints its results as Markdown for BENCHMARKS.md: the heap (400
/// pieces from `seed`), the drop scene (`pieces` pieces from `seed`) and the pyramid, each
/// stepped `steps` times by every engine on 1 and 2 threads, each run `repeats` times; then, if
/// `capacity`, the capacity search; last the anchors line. blockfall judges strength inside its
/// steps when `strength`.
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
        "`cargo run --release -p blockfall-tools{} --bin bench -- {}`",
        if Yardstick::HAS_JOLT {
            " --features jolt"
        } else {
            ""
        },
        command.join(" ")
    );
    println!();

    let generator = Generator::new(Generator::DEFAULT_SEED);
    let stages = [
        Stage::heap(&generator, HEAP_PIECES, seed)?,
        Stage::drop(&generator, pieces, seed)?,
        Stage::pyramid()?,
    ];
    print_scenes(&stages, steps, repeats, strength);
    let mut scenes = Vec::new();
    for stage in &stages {
        let comparisons = compare_stage(stage, steps, repeats, strength)?;
        print_rows(stage, &comparisons);
        scenes.push((stage, comparisons));
    }
    println!();
    for (stage, comparisons) in &scenes {
        let breaks = strength.then(|| comparisons[0].blockfall.breaks);
        print_speed_ups(stage, comparisons, breaks);
    }

    if capacity {
        println!();
        let field = world_field(&generator);
        let no_blocks = BlockStore::new();
        let solids = SceneSolids::new(&field, &no_blocks);
        capacity_search(&generator, &solids, repeats)?;
    }
    println!();
    if !Yardstick::HAS_JOLT {
        println!(
            "Jolt is not in this build (`--features jolt`): the anchors are rapier3d's alone."
        );
    }
    let named: Vec<(&str, Vec<_>)> = scenes
        .into_iter()
        .map(|(stage, comparisons)| (stage.name, comparisons))
        .collect();
    println!("{}", anchors_line(&named));
    Ok(())
}
