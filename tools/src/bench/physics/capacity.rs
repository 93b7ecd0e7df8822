//! The physics benchmark's capacity question: how many awake 4 × 4 × 4 pieces blockfall's
//! physics core steps within a frame of 8.33 ms on 2 threads, found by doubling and bisecting;
//! and the awake trials it is made of, also run on their own for profiling
//! (`bench -- physics --only-awake N`).

use std::time::Instant;

use anyhow::ensure;
use blockfall_game::blocks::BlockStore;
use blockfall_game::scene::SceneSolids;
use blockfall_game::terrain::Generator;
use blockfall_physics::StepCounts;

use super::blockfall_runner::{blockfall_world, check_blockfall};
use super::scene::resting_scene;
use super::steps::Run;
use super::FRAME_MS;
use crate::bench::shared::world_field;

/// The capacity search: steps before timing, steps timed, and the most pieces tried.
const CAPACITY_WARM_STEPS: u32 = 5;
const CAPACITY_TIMED_STEPS: u32 = 30;
const CAPACITY_MOST: usize = 4096;

/// Mean milliseconds per step of `count` awake 4 × 4 × 4 pieces on 2 threads, each step's
/// fastest of `repeats` runs.
fn capacity_trial(
    generator: &Generator,
    solids: &SceneSolids<'_>,
    count: usize,
    repeats: u32,
) -> anyhow::Result<f64> {
    Ok(awake_trial(generator, solids, count, repeats, 2)?.0)
}

/// Mean ms per step of `count` awake 4 × 4 × 4 pieces on the ground, on `threads` threads,
/// and what the last step counted.
fn awake_trial(
    generator: &Generator,
    solids: &SceneSolids<'_>,
    count: usize,
    repeats: u32,
    threads: usize,
) -> anyhow::Result<(f64, StepCounts)> {
    let placed = resting_scene(generator, count);
    let mut fastest = vec![f64::INFINITY; CAPACITY_TIMED_STEPS as usize];
    let mut counts = StepCounts::default();
    for _ in 0..repeats {
        let (mut physics, shapes, handles) = blockfall_world(&placed, threads)?;
        for step in 0..CAPACITY_WARM_STEPS + CAPACITY_TIMED_STEPS {
            for &handle in &handles {
                physics.wake(handle)?;
            }
            let started = Instant::now();
            let report = physics.step(solids, &shapes);
            let ms = started.elapsed().as_secs_f64() * 1e3;
            if let Some(timed) = step.checked_sub(CAPACITY_WARM_STEPS) {
                let kept = &mut fastest[timed as usize];
                *kept = kept.min(ms);
            }
            ensure!(
                report.fell_out.is_empty(),
                "capacity, {count} pieces: bodies fell out of the world"
            );
        }
        ensure!(
            physics.awake_count() == count,
            "capacity, {count} pieces: only {} awake",
            physics.awake_count()
        );
        check_blockfall(
            &physics,
            &handles,
            f64::NEG_INFINITY,
            &format!("capacity, {count} pieces"),
        )?;
        counts = physics.last_step_counts();
    }
    Ok((Run::mean(&fastest), counts))
}

/// Times `count` awake 4 × 4 × 4 pieces on 1 and 2 threads, and nothing else: for profiling.
pub fn run_awake(count: usize, repeats: u32) -> anyhow::Result<()> {
    let generator = Generator::new(Generator::DEFAULT_SEED);
    let field = world_field(&generator);
    let blocks = BlockStore::new();
    let solids = SceneSolids::new(&field, &blocks);
    for threads in [1, 2] {
        let (ms, counts) = awake_trial(&generator, &solids, count, repeats, threads)?;
        println!("{count} awake 4 × 4 × 4 pieces, {threads} thread(s): {ms:.2} ms per step");
        if threads == 1 {
            println!("  last step: {counts:?}");
        }
    }
    Ok(())
}

/// The most awake 4 × 4 × 4 pieces blockfall steps within [`FRAME_MS`] on 2 threads: doubling
/// from 1, then bisecting.
pub(super) fn capacity_search(
    generator: &Generator,
    solids: &SceneSolids<'_>,
    repeats: u32,
) -> anyhow::Result<()> {
    let mut tried = Vec::new();
    let mut trial = |count: usize| -> anyhow::Result<bool> {
        let ms = capacity_trial(generator, solids, count, repeats)?;
        tried.push((count, ms));
        Ok(ms <= FRAME_MS)
    };
    let mut good = 0;
    let mut bad = None;
    let mut count = 1;
    while count <= CAPACITY_MOST {
        if trial(count)? {
            good = count;
            count *= 2;
        } else {
            bad = Some(count);
            break;
        }
    }
    if let Some(mut bad) = bad {
        while bad - good > 1 {
            let middle = (good + bad) / 2;
            if trial(middle)? {
                good = middle;
            } else {
                bad = middle;
            }
        }
    }
    tried.sort_by_key(|(count, _)| *count);
    let trail: Vec<String> = tried
        .iter()
        .map(|(count, ms)| format!("{count}: {ms:.2}"))
        .collect();
    let limit = if bad.is_none() {
        " (the most tried)"
    } else {
        ""
    };
    println!(
        "Most awake 4 × 4 × 4 pieces (64 blocks, 386 contact points each, kept awake, on the \
         ground 5 m apart) that blockfall steps within {FRAME_MS:.2} ms on 2 threads: \
         **{good}**{limit}. Mean ms per step over {CAPACITY_TIMED_STEPS} steps after \
         {CAPACITY_WARM_STEPS} (each step's fastest of {repeats} runs), by piece count: {}.",
        trail.join(", ")
    );
    Ok(())
}
