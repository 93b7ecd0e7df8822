//! The terrain's parts together: the generator's proofs against full chunk grids, edits seen
//! through the field and the chunks, and parallel generation on the worker pool.

use std::sync::Arc;

use blockfall_game::terrain::chunks::{
    chunks_touched, classify, fill_padded_grid, fill_padded_grid_or_skip, generate_chunks, kind_of,
    load_order, PADDED_VOLUME,
};
use blockfall_game::terrain::{
    ChunkCoord, ChunkKind, EditStore, Field, Generator, CHUNK_SIZE, PADDED_SIZE,
};
use blockfall_physics::workers::WorkerPool;

fn edits(seed: u32) -> EditStore {
    EditStore::new(Arc::new(Generator::new(seed)))
}

/// A small deterministic random sequence.
fn next(state: &mut u64) -> u64 {
    *state = state
        .wrapping_mul(6364136223846793005)
        .wrapping_add(1442695040888963407);
    *state >> 33
}

fn grid_index(i: usize, j: usize, k: usize) -> usize {
    i + j * PADDED_SIZE + k * PADDED_SIZE * PADDED_SIZE
}

#[test]
fn proven_chunks_agree_with_every_sample_and_far_chunks_need_no_sampling() {
    let edits = edits(11);
    let generator = edits.generator().clone();
    let mut state = 5;
    let mut samples = Vec::new();
    let mut far = 0;
    let mut far_proven = 0;
    let mut checked = 0;
    for _ in 0..400 {
        let x = (next(&mut state) % 40) as i32 - 20;
        let z = (next(&mut state) % 40) as i32 - 20;
        let surface = generator.surface_height(
            ((x * CHUNK_SIZE) + CHUNK_SIZE / 2) as f32,
            ((z * CHUNK_SIZE) + CHUNK_SIZE / 2) as f32,
        );
        let around = (surface / CHUNK_SIZE as f32).floor() as i32;
        let y = around + (next(&mut state) % 9) as i32 - 4;
        let coord = ChunkCoord::new(x, y, z);
        let kind = classify(&edits, coord);
        let bottom = (y * CHUNK_SIZE - 1) as f32;
        let top = bottom + PADDED_SIZE as f32;
        // Far: the whole chunk more than two chunks above, or below the caves too.
        if bottom > surface + 64.0 || top < surface - 110.0 {
            far += 1;
            far_proven += usize::from(kind != ChunkKind::Mixed);
        }
        // Every sample of the proven ones, near the surface foremost (the sampling is slow).
        if kind != ChunkKind::Mixed && checked < 12 && (bottom - surface).abs() < 80.0 {
            checked += 1;
            fill_padded_grid(&edits, coord, &mut samples);
            assert_eq!(kind_of(&samples), kind, "{coord:?}");
        }
    }
    assert!(
        checked >= 6,
        "only {checked} proven chunks near the surface"
    );
    assert!(far >= 50, "{far}");
    assert!(
        far_proven * 10 >= far * 9,
        "{far_proven} of {far} far chunks proven"
    );
}

#[test]
fn a_probe_sees_an_edit_at_once_and_far_bricks_stay_cached() {
    let mut field = Field::new(edits(2));
    let [x, y, z] = field.edits().generator().spawn_point();
    let ground = y - 1.0;
    let near = field.probe(x + 0.3, ground - 0.5, z + 0.2);
    let far = [x + 100.0, ground, z + 100.0];
    field.probe(far[0], far[1], far[2]);
    let far_sample = far.map(|value| value.floor() as i32);
    assert!(field.is_cached(far_sample[0], far_sample[1], far_sample[2]));

    let changed = field
        .dig([x, ground, z], 3.0)
        .expect("a valid edit")
        .expect("the ground changed");
    let after = field.probe(x + 0.3, ground - 0.5, z + 0.2);
    assert!(after.density < near.density - 1.0, "{near:?} -> {after:?}");
    // What the probe sees is what the store says, sample by sample.
    for (sx, sy, sz) in [(0, 0, 0), (1, 1, 1), (-2, 0, 1)] {
        let sample = [x as i32 + sx, ground as i32 + sy, z as i32 + sz];
        assert_eq!(
            field.sample(sample[0], sample[1], sample[2]),
            field.edits().sample(sample[0], sample[1], sample[2])
        );
    }
    assert!(field.is_cached(far_sample[0], far_sample[1], far_sample[2]));
    assert!(!changed.contains(far_sample));

    // Building it back, the probe is as before, exactly.
    field.build([x, ground, z], 3.0).expect("a valid edit");
    assert_eq!(field.probe(x + 0.3, ground - 0.5, z + 0.2), near);
}

#[test]
fn the_cache_stays_within_its_budget_on_a_long_walk() {
    let field = Field::with_cache(edits(4), 256);
    let generator = field.edits().generator().clone();
    for step in 0..1500 {
        let x = step as f32 * 1.7;
        let z = (step as f32 * 0.05).sin() * 40.0;
        let y = generator.surface_height(x, z);
        for height in [0.4, 1.4] {
            field.probe(x, y + height, z);
        }
    }
    assert!(field.cached_bricks() <= field.cache_capacity());
    assert!(field.cache_capacity() < 300);
}

#[test]
fn density_over_its_gradient_is_about_the_distance_near_the_spawn() {
    let field = Field::new(edits(0));
    let [x, feet, z] = field.edits().generator().spawn_point();
    let ground = feet - 1.0;
    for height in [0.3f32, 0.6, 1.0] {
        let probe = field.probe(x, ground + height, z);
        let length = probe
            .gradient
            .iter()
            .map(|value| value * value)
            .sum::<f32>()
            .sqrt();
        let distance = -probe.density / length;
        // The ground near the spawn is gentle: the distance is the height, give or take.
        assert!(
            (distance - height).abs() < 0.3 * height + 0.1,
            "{distance} vs {height}"
        );
    }
}

#[test]
fn parallel_generation_is_the_same_on_one_and_two_threads() {
    let mut edits = edits(8);
    let [x, y, z] = edits.generator().spawn_point();
    edits.dig([x, y - 1.0, z], 5.0).expect("a valid edit");
    let around = ChunkCoord::containing([x, y, z]);
    let coords: Vec<ChunkCoord> = [(0, 0, 0), (1, 0, 0), (0, -1, 0), (0, 5, 0), (-1, -6, 2)]
        .iter()
        .map(|(dx, dy, dz)| ChunkCoord::new(around.x + dx, around.y + dy, around.z + dz))
        .collect();
    let one = generate_chunks(&WorkerPool::new(1).expect("one"), &edits, &coords);
    let two = generate_chunks(&WorkerPool::new(2).expect("two"), &edits, &coords);
    assert_eq!(one.len(), coords.len());
    for (first, second) in one.iter().zip(&two) {
        assert_eq!(first.coord, second.coord);
        assert_eq!(first.kind, second.kind);
        let bits = |values: &[f32]| {
            values
                .iter()
                .map(|value| value.to_bits())
                .collect::<Vec<_>>()
        };
        assert_eq!(bits(&first.samples), bits(&second.samples));
    }
    // The edited chunk was sampled in full; the chunk far above was skipped.
    assert_eq!(one[0].samples.len(), PADDED_SIZE.pow(3));
    assert_eq!(one[3].kind, ChunkKind::Air);
    assert!(one[3].samples.is_empty());
}

#[test]
fn neighbours_share_their_border_samples() {
    let edits = edits(6);
    let [x, y, z] = edits.generator().spawn_point();
    let here = ChunkCoord::containing([x, y, z]);
    let east = ChunkCoord::new(here.x + 1, here.y, here.z);
    let mut mine = Vec::new();
    let mut theirs = Vec::new();
    fill_padded_grid(&edits, here, &mut mine);
    fill_padded_grid(&edits, east, &mut theirs);
    // World x = 32(c+1) - 1 and 32(c+1): indices 32, 33 here and 0, 1 there.
    for k in 0..PADDED_SIZE {
        for j in 0..PADDED_SIZE {
            for (mine_i, theirs_i) in [(32, 0), (33, 1)] {
                assert_eq!(
                    mine[grid_index(mine_i, j, k)].to_bits(),
                    theirs[grid_index(theirs_i, j, k)].to_bits()
                );
            }
        }
    }
    // The grid index maps to the world sample 32c - 1 + i.
    let origin = here.padded_origin();
    assert_eq!(
        mine[grid_index(3, 5, 7)],
        edits.sample(origin[0] + 3, origin[1] + 5, origin[2] + 7)
    );
}

#[test]
fn an_edit_dirties_exactly_the_chunks_whose_grids_changed() {
    let mut edits = edits(9);
    // On a chunk corner, so that the box spills into neighbours and their padding.
    let centre = [31.6f32, 0.0, -0.4];
    let before = edits.clone();
    let changed = edits
        .dig(centre, 2.5)
        .expect("a valid edit")
        .expect("the ground changed");
    let touched = chunks_touched(&changed);
    let mut old = Vec::new();
    let mut new = Vec::new();
    let mut differing = 0;
    for z in -2..=1 {
        for y in -2..=1 {
            for x in -1..=2 {
                let coord = ChunkCoord::new(x, y, z);
                // Only chunks whose padded box meets the box can differ; that is the brute
                // force answer, checked here against the samples themselves for those.
                let meets = coord.padded_box().intersects(&changed);
                assert_eq!(touched.contains(&coord), meets, "{coord:?}");
                if meets {
                    fill_padded_grid(&before, coord, &mut old);
                    fill_padded_grid(&edits, coord, &mut new);
                    assert_ne!(old, new, "{coord:?} touched but unchanged");
                    differing += 1;
                }
            }
        }
    }
    assert_eq!(differing, touched.len());
}

#[test]
fn load_order_starts_at_the_players_chunk() {
    let generator = Generator::new(0);
    let spawn = generator.spawn_point();
    let order = load_order(spawn, 4);
    // The spawn's x is on a chunk border: its chunk ties with the one west of it, which comes
    // first by its coordinates; either way it is among the first few.
    assert!(order[..4].contains(&ChunkCoord::containing(spawn)));
    assert!(order.len() > 200);
}

#[test]
fn proven_chunks_are_skipped_and_agree_with_their_samples() {
    // Speed is measured by `bench density`, not here: this checks what the skip decides.
    let edits = edits(1);
    let mut samples = Vec::new();
    let high = ChunkCoord::new(3, 12, -4);
    let kind = fill_padded_grid_or_skip(&edits, high, &mut samples);
    assert_eq!(kind, ChunkKind::Air);
    assert!(samples.is_empty(), "a proven chunk is not sampled");
    fill_padded_grid(&edits, high, &mut samples);
    assert_eq!(kind_of(&samples), ChunkKind::Air);

    // A chunk through the slope with its tunnels and caves: every noise at work.
    let [_, y, _] = edits.generator().cave_entrances()[1];
    let slope = ChunkCoord::containing([0.0, y, -40.0]);
    assert_eq!(
        fill_padded_grid_or_skip(&edits, slope, &mut samples),
        ChunkKind::Mixed
    );
    assert_eq!(samples.len(), PADDED_VOLUME);
}
