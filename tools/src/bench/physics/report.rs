//! The physics benchmark's report, as Markdown for BENCHMARKS.md: the scene both engines
//! step, the table of step times per engine and thread count, and the speed-ups.

use blockfall_game::terrain::generator::SPAWN_XZ;

use super::scene::{DropArea, Placed, COLUMN_SPACING};
use super::steps::{Run, FALL_STEPS};
use super::terrain::TerrainMesh;
use super::{FRICTION, RAPIER_VERSION, RESTITUTION};
use crate::bench::shared::threads_word;

/// What the scene's description tells besides the pieces themselves.
pub(super) struct Scene<'a> {
    pub(super) pieces: usize,
    pub(super) seed: u64,
    pub(super) placed: &'a [Placed],
    pub(super) area: &'a DropArea,
    /// Milliseconds spent warming the field's sample cache.
    pub(super) warm_ms: f64,
    pub(super) terrain: &'a TerrainMesh,
    /// Milliseconds spent meshing the terrain for rapier3d.
    pub(super) mesh_ms: f64,
    pub(super) steps: u32,
    pub(super) repeats: u32,
}

/// Prints the scene's description and the table's head.
pub(super) fn print_scene(scene: &Scene<'_>) {
    let Scene {
        pieces,
        seed,
        area,
        warm_ms,
        terrain,
        mesh_ms,
        steps,
        repeats,
        ..
    } = scene;
    let blocks: usize = scene
        .placed
        .iter()
        .map(|place| place.piece.block_count())
        .sum();
    let points: usize = scene
        .placed
        .iter()
        .map(|place| place.piece.desc().points.len())
        .sum();
    let most = scene
        .placed
        .iter()
        .map(|place| place.piece.block_count())
        .max()
        .unwrap_or(0);
    println!(
        "Scene: {pieces} pieces of plain 1 m blocks (seed {seed}; half boxes, half random \
         lattices, 1 to {most} blocks, {blocks} in all, the six materials' densities), two to a \
         column {COLUMN_SPACING} m apart around the spawn point ({}, {}), dropped 2 to 11 m onto \
         the default world (ground {:.1} to {:.1} m). blockfall: \
         {points} contact points, the terrain's field (sample cache warmed in {warm_ms:.0} ms). \
         rapier3d {RAPIER_VERSION} (`parallel`): one compound collider of cuboids per piece, the \
         terrain one trimesh of {} triangles from the CPU surface nets of {} chunks (meshed in \
         {mesh_ms:.0} ms); default integration parameters otherwise. Both: dt 1/120 s, \
         friction {FRICTION}, restitution {RESTITUTION}, {steps} steps; each run {repeats} times, \
         the engines taking turns, each step's fastest time kept.",
        SPAWN_XZ[0],
        SPAWN_XZ[1],
        area.lowest_ground,
        area.highest_ground,
        terrain.triangles.len(),
        terrain.chunks,
    );
    println!();
    println!(
        "| engine | threads | ms per step | first {FALL_STEPS} steps (falling) | the rest | \
         awake at the end | middle below the ground |"
    );
    println!("|---|---|---|---|---|---|---|");
}

/// Prints the table's rows, one per engine and thread count, and the speed-ups; `results`
/// holds each thread count with blockfall's run and rapier3d's.
pub(super) fn print_results(pieces: usize, results: &[(usize, Run, Run)]) {
    for (threads, ours, theirs) in results {
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
    for (threads, ours, theirs) in results {
        println!(
            "- speed-up over rapier3d on {threads} {}: {:.2}× per step ({:.2}× falling, \
             {:.2}× after)",
            threads_word(*threads),
            theirs.all() / ours.all(),
            theirs.falling() / ours.falling(),
            theirs.after() / ours.after()
        );
    }
    if let [(_, ours_1, theirs_1), (_, ours_2, theirs_2)] = results {
        println!(
            "- 1 → 2 threads: blockfall {:.2}× ({:.2}× falling, {:.2}× after), rapier3d {:.2}×",
            ours_1.all() / ours_2.all(),
            ours_1.falling() / ours_2.falling(),
            ours_1.after() / ours_2.after(),
            theirs_1.all() / theirs_2.all()
        );
    }
}
