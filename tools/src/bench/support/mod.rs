//! `bench -- support`: blockfall's support search (`blockfall_game::support`) against the
//! baseline, a direct port of the original TypeScript one ([`reference_support`]), in one run,
//! on the same generated city of about a million 1 m blocks ([`city`]): loose groups after
//! breaking one random block, before and after the survey of every block; `would_fall` on one
//! block; and the worst case, cutting the only support of a platform on one pillar. Each with
//! the median, 99th percentile and mean time of both, and the speed-up.

pub mod city;
mod measure;
pub mod reference_support;

use std::time::Instant;

use anyhow::Context as _;
use blockfall_game::blocks::store::BlockStore;
use blockfall_game::support::Support;
use blockfall_game::terrain::{EditStore, Field, Generator};
use blockfall_physics::workers::WorkerPool;

use crate::bench::shared::Rng;
use city::{build_city, build_platform};
use measure::{break_all, cut_only_support, report, would_fall_all};
use reference_support::{ReferenceStore, ReferenceSupport};

/// Builds a city of about `target` blocks and a platform of `platform` blocks on one pillar,
/// breaks `breaks` random city blocks (half before the survey, half after) and asks
/// `would_fall` of the second half, then cuts the platform's pillar; prints every result.
pub fn run(target: usize, breaks: usize, platform: usize) -> anyhow::Result<()> {
    let generator = Generator::new(Generator::DEFAULT_SEED);
    let field = Field::new(EditStore::new(std::sync::Arc::new(generator.clone())));
    let surface = |x: f32, z: f32| generator.surface_height(x, z);
    let started = Instant::now();
    let mut store = BlockStore::new();
    let city = build_city(&mut store, &field, surface, target, 5)?;
    let city_ids: Vec<_> = store.iter().map(|(id, _)| id).collect();
    // The platform stands apart, east of the city.
    let (pillar_top, platform_blocks) =
        build_platform(&mut store, &field, surface, 1000, 0, platform)?;
    let _ = store.drain_events().count();
    println!(
        "city: {} buildings, {} bridges, {} blocks; platform of {platform_blocks} blocks on one \
         pillar; {} blocks in all, built in {:.1} s",
        city.buildings,
        city.bridges,
        city.blocks,
        store.count(),
        started.elapsed().as_secs_f64()
    );

    // The port's own store of the same blocks.
    let mut reference_store = ReferenceStore::new();
    let mut pairs = Vec::with_capacity(store.count());
    for (id, block) in store.iter() {
        let reference_id = reference_store
            .add(*block)
            .context("the port's store refused a block")?;
        pairs.push((id, reference_id));
    }
    pairs.sort_unstable();
    let reference_of = |id| {
        pairs
            .binary_search_by_key(&id, |&(ours, _)| ours)
            .map(|at| pairs[at].1)
    };
    let mut picks_rng = Rng::new(99);
    let mut picks: Vec<_> = (0..breaks)
        .map(|_| {
            let id = city_ids[picks_rng.next_u64() as usize % city_ids.len()];
            (
                id,
                reference_of(id).expect("every city block is in the port's store"),
            )
        })
        .collect();
    picks.sort_unstable();
    picks.dedup();
    // Shuffled again, so that neighbouring picks are not searched one after another.
    for i in (1..picks.len()).rev() {
        picks.swap(i, picks_rng.next_u64() as usize % (i + 1));
    }

    let half = picks.len() / 2;
    let (cold_picks, warm_picks) = picks.split_at_mut(half);

    // Cold: nothing known yet; every search tests the ground it meets.
    let mut support = Support::new();
    let mut reference_support = ReferenceSupport::new();
    let mut times = break_all(
        cold_picks,
        (&mut store, &mut support),
        (&mut reference_store, &mut reference_support),
        &field,
    )?;
    let counters = support.counters();
    println!(
        "cold: {} random city blocks broken (and put back), {} blocks fell; blockfall made {:.1} \
         searches, looked at {:.1} blocks and tested the ground under {:.1} per break",
        cold_picks.len(),
        times.fell,
        counters.searches as f64 / cold_picks.len() as f64,
        counters.visited as f64 / cold_picks.len() as f64,
        counters.ground_tests as f64 / cold_picks.len() as f64,
    );
    report(
        "cold: loose groups after breaking one block",
        &mut times.ours,
        &mut times.port,
    );

    // Warm: the support has surveyed every block (ground answers on the workers, kept ways to
    // the ground); the port's ground cache holds every block.
    let pool = WorkerPool::new(2)?;
    let started = Instant::now();
    let loose = support.survey(&store, &field, &pool);
    let survey_time = started.elapsed();
    let started = Instant::now();
    reference_support.warm(&reference_store, &field);
    println!(
        "survey of {} blocks: {:.2} s on 2 threads ({} loose groups); the port's ground cache \
         filled in {:.2} s",
        store.count(),
        survey_time.as_secs_f64(),
        loose.len(),
        started.elapsed().as_secs_f64()
    );
    let before = support.counters();
    let mut times = break_all(
        warm_picks,
        (&mut store, &mut support),
        (&mut reference_store, &mut reference_support),
        &field,
    )?;
    let counters = support.counters();
    println!(
        "warm: {} other random city blocks broken (and put back), {} blocks fell; blockfall made \
         {:.1} searches, looked at {:.1} blocks, walked {:.1} steps of kept ways and tested the \
         ground under {:.1} per break",
        warm_picks.len(),
        times.fell,
        (counters.searches - before.searches) as f64 / warm_picks.len() as f64,
        (counters.visited - before.visited) as f64 / warm_picks.len() as f64,
        (counters.way_steps - before.way_steps) as f64 / warm_picks.len() as f64,
        (counters.ground_tests - before.ground_tests) as f64 / warm_picks.len() as f64,
    );
    report(
        "warm: loose groups after breaking one block",
        &mut times.ours,
        &mut times.port,
    );
    let _ = store.drain_events().count();

    let mut times = would_fall_all(
        warm_picks,
        (&mut store, &mut support),
        (&mut reference_store, &mut reference_support),
        &field,
    )?;
    println!(
        "warm: {} random city blocks aimed at; {} would fall in all",
        warm_picks.len(),
        times.fell
    );
    report(
        "warm: would_fall on one block",
        &mut times.ours,
        &mut times.port,
    );

    cut_only_support(
        pillar_top,
        reference_of(pillar_top).expect("the pillar is in the port"),
        (&mut store, &mut support),
        (&mut reference_store, &mut reference_support),
        &field,
    )
}
