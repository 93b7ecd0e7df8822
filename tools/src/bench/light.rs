//! `bench -- light`: sky light grids of the default world's chunks per second, on 1 and 2
//! threads: the chunks nearest the spawn point that may hold a surface, and those of them whose
//! samples hold one (the chunks the game lights).

use std::time::{Duration, Instant};

use blockfall_game::terrain::{chunks, sky_light, ChunkKind};
use blockfall_physics::workers::WorkerPool;

use crate::bench::shared::{threads_word, world_chunks};

/// Lights the `chunk_count` chunks nearest the spawn point that may hold a surface, and those
/// of them that hold one, on 1 and 2 threads, fastest of 3 runs; prints the time per chunk.
pub fn run(chunk_count: u32) -> anyhow::Result<()> {
    let (edits, coords) = world_chunks(chunk_count, |edits, coord| {
        chunks::classify(edits, coord) == ChunkKind::Mixed
    });
    // The game lights only the chunks whose samples hold a surface (see
    // `game::terrain::streaming::prepare`): the bounds above let through a few all air or all ground.
    let mut samples = Vec::new();
    let lit: Vec<_> = coords
        .iter()
        .copied()
        .filter(|&coord| {
            chunks::fill_padded_grid_or_skip(&edits, coord, &mut samples) == ChunkKind::Mixed
        })
        .collect();
    println!(
        "sky light of the default world: {} chunks that may hold a surface, nearest the spawn point; \
         {} of them hold one (the chunks the game lights)",
        coords.len(),
        lit.len()
    );
    for threads in [1, 2] {
        let pool = WorkerPool::new(threads)?;
        for (set, name) in [(&coords, "all"), (&lit, "with a surface")] {
            let mut best = Duration::MAX;
            let mut through_caves = 0;
            for _ in 0..3 {
                let started = Instant::now();
                let grids = sky_light::light_grids(&pool, &edits, set);
                best = best.min(started.elapsed());
                anyhow::ensure!(grids.len() == set.len());
                through_caves = grids
                    .iter()
                    .filter(|grid| grid.values.iter().any(|&v| v > 0.0 && v < 1.0))
                    .count();
            }
            println!(
                "{threads} {}, {name}: {:.2} ms per chunk ({:.0} ms for {}; {through_caves} \
                 with light through caves)",
                threads_word(threads),
                best.as_secs_f64() * 1000.0 / set.len().max(1) as f64,
                best.as_secs_f64() * 1000.0,
                set.len()
            );
        }
    }
    Ok(())
}
