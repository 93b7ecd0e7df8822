//! `bench -- nearest`: collision queries (`nearest()` of the scene's solids within the
//! player's radius) per second on 1 and 2 threads, in two cases: the terrain only, at points
//! within a meter of the default world's surface, and inside a dense structure of 4096 blocks
//! on flat ground.

use std::sync::Arc;
use std::time::{Duration, Instant};

use blockfall_game::blocks::store::{Block, BlockStore};
use blockfall_game::player::RADIUS;
use blockfall_game::scene::SceneSolids;
use blockfall_game::terrain::{EditStore, Field, Generator, Ground, PlaneGround};
use blockfall_physics::collision::Solid;
use blockfall_physics::workers::WorkerPool;

use crate::bench::shared::{threads_word, world_field, Sequence};

/// Asks `queries` points of each case on 1 and 2 threads, fastest of 3 runs; prints the
/// queries per second.
pub fn run(queries: u32) -> anyhow::Result<()> {
    let generator = Generator::new(Generator::DEFAULT_SEED);
    let world_field = world_field(&generator);
    let no_blocks = BlockStore::new();
    let mut sequence = Sequence(7);
    let terrain_points: Vec<[f32; 3]> = (0..queries)
        .map(|_| {
            let x = sequence.next_unit() * 80.0 - 40.0;
            let z = sequence.next_unit() * 80.0;
            let y = generator.surface_height(x, z) + sequence.next_unit() * 2.0 - 1.0;
            [x, y, z]
        })
        .collect();

    // A solid cube of 16 × 16 × 16 plain 1 m blocks on flat ground, asked at points in and
    // around it: every query finds blocks within reach, most of them covered on some sides.
    let flat: Arc<dyn Ground> = Arc::new(PlaneGround::flat(0.0));
    let flat_field = Field::new(EditStore::new(flat));
    let mut building = BlockStore::new();
    for z in 0..16 {
        for y in 0..16 {
            for x in 0..16 {
                building.add(Block::new(x * 2, y * 2, z * 2, 2, 0, 0, false)?)?;
            }
        }
    }
    let block_points: Vec<[f32; 3]> = (0..queries)
        .map(|_| [0, 1, 2].map(|_| sequence.next_unit() * 18.0 - 1.0))
        .collect();

    let cases = [
        (
            "terrain only (world, points within 1 m of the surface)",
            SceneSolids::new(&world_field, &no_blocks),
            &terrain_points,
        ),
        (
            "inside a dense block structure (4096 blocks of 1 m)",
            SceneSolids::new(&flat_field, &building),
            &block_points,
        ),
    ];
    println!("nearest(point, {RADIUS} m): {queries} queries per case, fastest of 3 runs");
    for (name, solids, points) in &cases {
        for threads in [1, 2] {
            let pool = WorkerPool::new(threads)?;
            let batches: Vec<&[[f32; 3]]> = points.chunks(4096).collect();
            let mut best = Duration::MAX;
            let mut found = 0;
            for _ in 0..3 {
                let started = Instant::now();
                let counts = pool.map(&batches, |batch| {
                    batch
                        .iter()
                        .filter(|&&point| solids.nearest(point, RADIUS).is_some())
                        .count()
                });
                best = best.min(started.elapsed());
                found = counts.iter().sum::<usize>();
            }
            println!(
                "{name}, {threads} {}: {:.2} M queries per second ({found} found a surface)",
                threads_word(threads),
                points.len() as f64 / best.as_secs_f64() / 1e6
            );
        }
    }
    Ok(())
}
