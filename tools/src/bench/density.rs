//! `bench -- density`: density samples of the default world per second, on 1 and 2 threads:
//! every sample of the padded grids of the chunks nearest the spawn point worked out; then the
//! same chunks through the proof that skips all-air and all-ground chunks unsampled, and what a
//! proven chunk costs.

use std::time::{Duration, Instant};

use blockfall_game::terrain::{chunks, ChunkKind};
use blockfall_physics::workers::WorkerPool;

use crate::bench::shared::{padded_grid, threads_word, world_chunks, PADDED};

/// Fills the padded grids of the `chunk_count` chunks nearest the spawn point on 1 and 2
/// threads, fastest of 3 runs; then the same chunks through the skip; prints the rates.
pub fn run(chunk_count: u32) -> anyhow::Result<()> {
    let (edits, coords) = world_chunks(chunk_count, |_, _| true);
    let samples_per_chunk = (PADDED * PADDED * PADDED) as f64;
    println!("density of the default world: {} chunks of {PADDED}³ samples nearest the spawn point, every sample worked out", coords.len());
    for threads in [1, 2] {
        let pool = WorkerPool::new(threads)?;
        let mut best = Duration::MAX;
        for _ in 0..3 {
            let started = Instant::now();
            let grids = pool.map(&coords, |&coord| padded_grid(&edits, coord).len());
            best = best.min(started.elapsed());
            anyhow::ensure!(grids.iter().all(|&n| n == PADDED * PADDED * PADDED));
        }
        println!(
            "{threads} {}: {:.2} M samples per second ({:.1} ms for all)",
            threads_word(threads),
            samples_per_chunk * coords.len() as f64 / best.as_secs_f64() / 1e6,
            best.as_secs_f64() * 1000.0
        );
    }
    // The same chunks through the skip: proven Air/Solid chunks are not sampled at all.
    let mut samples = Vec::new();
    let mut best = Duration::MAX;
    let mut proven = 0;
    for _ in 0..3 {
        proven = 0;
        let started = Instant::now();
        for &coord in &coords {
            chunks::fill_padded_grid_or_skip(&edits, coord, &mut samples);
            proven += usize::from(samples.is_empty());
        }
        best = best.min(started.elapsed());
    }
    println!(
        "with the proof: {proven} of {} chunks skipped without sampling, {:.1} ms for all on 1 thread",
        coords.len(),
        best.as_secs_f64() * 1000.0
    );
    let mut skip_best = Duration::MAX;
    let proven_coords: Vec<_> = coords
        .iter()
        .copied()
        .filter(|&coord| chunks::classify(&edits, coord) != ChunkKind::Mixed)
        .collect();
    if !proven_coords.is_empty() {
        for _ in 0..5 {
            let started = Instant::now();
            for &coord in &proven_coords {
                chunks::fill_padded_grid_or_skip(&edits, coord, &mut samples);
            }
            skip_best = skip_best.min(started.elapsed());
        }
        println!(
            "a proven chunk costs {:.1} µs",
            skip_best.as_secs_f64() * 1e6 / proven_coords.len() as f64
        );
    }
    Ok(())
}
