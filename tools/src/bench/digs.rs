//! `bench -- digs`: what digging costs in memory (docs/terrain.md, "How edits are kept"; the
//! figures in BENCHMARKS.md, "Memory") and what it does to sampling.
//!
//! 1. One dig of the largest radius (64 m) into the default world's ground near the spawn
//!    point, on a store of its own: the bytes the edit store holds for it
//!    ([`EditStore::heap_bytes`]), how long it took, and the bytes left once a build of the same
//!    sphere has undone it.
//! 2. `digs` digs of radius 8–64 m at random places on the ground within `spread` meters of the
//!    spawn point, through the world's dig path ([`World::edit_sphere`]): the store's bytes per
//!    dig and the process's resident memory before and after.
//! 3. The density of the padded chunk grids around the spawn point, every sample worked out,
//!    with no edits, under that one 64 m dig, and under 100 digs of 2 m (the terrain tool's
//!    sphere) stacked into one hole: samples per second on 1 thread, fastest of 3.

use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::Context as _;
use blockfall_game::terrain::edits::MAX_EDIT_RADIUS;
use blockfall_game::terrain::{chunks, ChunkCoord, EditStore, Generator};
use blockfall_game::world::World;
use blockfall_physics::workers::WorkerPool;

use crate::bench::shared::{Rng, PADDED};

/// Chunks whose padded grids the sampling part fills.
const SAMPLED_CHUNKS: usize = 64;

/// Runs the three parts and prints their lines.
pub fn run(digs: usize, spread: i32) -> anyhow::Result<()> {
    let generator = Arc::new(Generator::new(Generator::DEFAULT_SEED));
    let spawn = generator.spawn_point();
    let centre = |x: f32, z: f32| [x, generator.surface_height(x, z), z];

    // 1. One 64 m dig on a store of its own.
    let mut store = EditStore::new(generator.clone());
    let empty = store.heap_bytes();
    let sphere = centre(spawn[0], spawn[2]);
    let started = Instant::now();
    let changed = store
        .dig(sphere, MAX_EDIT_RADIUS)
        .context("a 64 m dig")?
        .context("a 64 m dig changes the ground")?;
    let took = started.elapsed();
    let dug = store.heap_bytes();
    let side = |axis: usize| changed.high[axis] - changed.low[axis] + 1;
    println!(
        "one dig of {MAX_EDIT_RADIUS} m: {} bytes in the edit store ({:.3} MB), {:.1} ms; changed box {}×{}×{} samples",
        dug - empty,
        (dug - empty) as f64 / 1e6,
        took.as_secs_f64() * 1e3,
        side(0),
        side(1),
        side(2),
    );
    let mut undone = store.clone();
    undone.build(sphere, MAX_EDIT_RADIUS).context("the build")?;
    println!(
        "after a build of the same sphere: {} bytes (empty: {empty})",
        undone.heap_bytes()
    );
    drop(undone);

    // 2. Many digs through the world's dig path.
    let pool = WorkerPool::new(2)?;
    let mut world = World::generated(Generator::DEFAULT_SEED, 8, pool).context("the world")?;
    let before_rss = resident_bytes();
    let before = world.edits().heap_bytes();
    let mut rng = Rng::new(16);
    let started = Instant::now();
    for _ in 0..digs {
        let x = spawn[0] + rng.range(-spread, spread) as f32;
        let z = spawn[2] + rng.range(-spread, spread) as f32;
        let radius = rng.range(8, MAX_EDIT_RADIUS as i32) as f32;
        let at = centre(x, z);
        world.edit_sphere(true, at, radius).context("a dig")?;
    }
    let took = started.elapsed();
    let after = world.edits().heap_bytes();
    let after_rss = resident_bytes();
    println!(
        "{digs} digs of 8–64 m within {spread} m of the spawn point: {:.3} MB in the edit store ({:.0} bytes per dig), {:.1} ms per dig",
        (after - before) as f64 / 1e6,
        (after - before) as f64 / digs.max(1) as f64,
        took.as_secs_f64() * 1e3 / digs.max(1) as f64,
    );
    match (before_rss, after_rss) {
        (Some(before_rss), Some(after_rss)) => println!(
            "resident memory: {:.1} MB before the digs, {:.1} MB after ({:+.1} MB)",
            before_rss as f64 / 1e6,
            after_rss as f64 / 1e6,
            (after_rss as f64 - before_rss as f64) / 1e6,
        ),
        _ => println!("resident memory: not known on this system (no /proc/self/status)"),
    }
    drop(world);

    // 3. Sampling with and without edits.
    let coords: Vec<ChunkCoord> = chunks::load_order(spawn, 8)
        .into_iter()
        .filter(|&coord| {
            let padded = coord.padded_box();
            let middle = [0, 1, 2].map(|axis| (padded.low[axis] + padded.high[axis]) / 2);
            let distance = (0..3)
                .map(|axis| (middle[axis] as f32 - sphere[axis]).powi(2))
                .sum::<f32>()
                .sqrt();
            distance < MAX_EDIT_RADIUS
        })
        .take(SAMPLED_CHUNKS)
        .collect();
    let mut tool_hole = EditStore::new(generator.clone());
    for step in 0..100 {
        let depth = step as f32 * 0.1;
        let wobble = (step % 7) as f32 * 0.3;
        tool_hole
            .dig([sphere[0] + wobble, sphere[1] - depth, sphere[2]], 2.0)
            .context("a tool dig")?;
    }
    let hole_coords: Vec<ChunkCoord> = chunks::load_order(sphere, 2).into_iter().take(8).collect();
    for (name, edits, coords) in [
        ("no edits", EditStore::new(generator.clone()), &coords),
        ("under one 64 m dig", store, &coords),
        (
            "no edits (tool hole chunks)",
            EditStore::new(generator.clone()),
            &hole_coords,
        ),
        ("100 stacked 2 m digs", tool_hole, &hole_coords),
    ] {
        let rate = sample_rate(&edits, coords);
        println!(
            "density {name}: {:.2} M samples per second on 1 thread ({} chunks, {} bytes of edits)",
            rate / 1e6,
            coords.len(),
            edits.heap_bytes()
        );
    }
    Ok(())
}

/// Samples per second filling the padded grids of `coords`, fastest of 3 runs.
fn sample_rate(edits: &EditStore, coords: &[ChunkCoord]) -> f64 {
    let mut samples = Vec::new();
    let mut best = Duration::MAX;
    for _ in 0..3 {
        let started = Instant::now();
        for &coord in coords {
            chunks::fill_padded_grid(edits, coord, &mut samples);
        }
        best = best.min(started.elapsed());
    }
    (PADDED * PADDED * PADDED * coords.len()) as f64 / best.as_secs_f64()
}

/// The process's resident memory in bytes, where the system says (Linux's /proc).
fn resident_bytes() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|line| line.starts_with("VmRSS:"))?;
    let kilobytes: u64 = line
        .trim_start_matches("VmRSS:")
        .trim()
        .trim_end_matches("kB")
        .trim()
        .parse()
        .ok()?;
    Some(kilobytes * 1024)
}
