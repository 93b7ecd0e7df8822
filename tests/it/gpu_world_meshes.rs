//! The engine's GPU meshing on the game's world, the one part of it that needs the game (the
//! engine's own tests, `engine/tests/gpu/`, prove the rest on grids of their own): the 20
//! chunks with a surface nearest the default world's spawn mesh on the GPU (`GpuMesher`)
//! as on the CPU, vertices as sets (positions within 1e-4, normals within 1e-3) and triangles,
//! winding included; and meshed into the terrain arenas (`TerrainMeshes`) with their sky light
//! (`light_grid`), a few of them read back as the CPU's meshes with every vertex lit as the
//! game's `LightGrid::light_at` at its world position.

use std::sync::Arc;

use blockfall_engine::gpu::FrameRing;
use blockfall_engine::meshing::{
    is_uniform, DensityGrid, GridRegion, TerrainMeshes, TerrainMeshesDesc,
};
use blockfall_game::terrain::chunks::{fill_padded_grid, load_order, MAX_LEVEL};
use blockfall_game::terrain::sky_light::light_grid;
use blockfall_game::terrain::{ChunkCoord, EditStore, Generator, PADDED_SIZE};

use blockfall_test_support::gpu::assert_no_validation_errors;
use blockfall_test_support::meshes::compare;
use blockfall_test_support::readback::{
    check_light, chunk_light, chunk_mesh, compare_padded_grids, cpu_mesh,
};

/// How far the GPU's light, blended at a chunk's own vertex positions, may lie from
/// `light_at` at the world positions: both blend the same samples by the same rule, but a
/// world position (the chunk's origin added, within a few hundred meters of the spawn) is
/// rounded to about 3e-5, and the light changes by at most 1 per meter along each axis.
const WORLD_LIGHT_TOLERANCE: f32 = 1e-4;

/// The default world and its first `count` chunks with a surface nearest the spawn, with
/// their padded grids.
fn world_chunks(count: usize) -> (EditStore<Generator>, Vec<(ChunkCoord, Vec<f32>)>) {
    let edits = EditStore::new(Arc::new(Generator::new(Generator::DEFAULT_SEED)));
    let spawn = edits.generator().spawn_point();
    let mut chunks = Vec::new();
    for coord in load_order(spawn, 4) {
        if chunks.len() == count {
            break;
        }
        let mut samples = Vec::new();
        fill_padded_grid(&edits, coord, &mut samples);
        if !is_uniform(&samples) {
            chunks.push((coord, samples));
        }
    }
    assert_eq!(
        chunks.len(),
        count,
        "chunks with a surface within 4 chunks of spawn"
    );
    (edits, chunks)
}

#[test]
fn twenty_chunks_of_the_world_mesh_on_the_gpu_as_on_the_cpu() {
    let Some(mut gpu) = crate::common::gpu() else {
        return;
    };
    let before = gpu.validation_errors();
    let (_, chunks) = world_chunks(20);
    let grids: Vec<(String, Vec<f32>)> = chunks
        .into_iter()
        .map(|(coord, samples)| (format!("chunk {coord:?}"), samples))
        .collect();
    let totals = compare_padded_grids(&mut gpu, [PADDED_SIZE; 3], &grids);
    assert!(totals.triangles > 0, "{totals:?}");
    assert_no_validation_errors(&gpu, before);
}

#[test]
fn chunks_of_every_coarser_level_mesh_on_the_gpu_as_on_the_cpu() {
    let Some(mut gpu) = crate::common::gpu() else {
        return;
    };
    let before = gpu.validation_errors();
    // For each level, the chunks with a surface around the spawn (its own and its neighbours
    // along x and z), their grids sampled every 2^level meters.
    let edits = EditStore::new(Arc::new(Generator::new(Generator::DEFAULT_SEED)));
    let spawn = edits.generator().spawn_point();
    let mut grids = Vec::new();
    for level in 1..=MAX_LEVEL {
        let around = ChunkCoord::containing_at(spawn, level);
        let mut found = 0;
        for (dx, dy, dz) in [
            (0, 0, 0),
            (1, 0, 0),
            (-1, 0, 0),
            (0, 0, 1),
            (0, -1, 0),
            (0, 1, 0),
        ] {
            let coord = ChunkCoord::at_level(around.x + dx, around.y + dy, around.z + dz, level);
            let mut samples = Vec::new();
            fill_padded_grid(&edits, coord, &mut samples);
            if !is_uniform(&samples) {
                grids.push((format!("chunk {coord:?}"), samples));
                found += 1;
            }
        }
        assert!(found >= 2, "level {level}: {found} chunks with a surface");
    }
    let totals = compare_padded_grids(&mut gpu, [PADDED_SIZE; 3], &grids);
    assert!(totals.triangles > 0, "{totals:?}");
    eprintln!(
        "{} chunks of levels 1 to {MAX_LEVEL}: {totals:?}",
        grids.len()
    );
    assert_no_validation_errors(&gpu, before);
}

#[test]
fn world_chunks_in_the_arenas_are_lit_as_the_games_light_at() {
    let Some(gpu) = crate::common::gpu() else {
        return;
    };
    let before = gpu.validation_errors();
    let mut meshes = TerrainMeshes::new(
        &gpu.device,
        &TerrainMeshesDesc {
            vertex_arena_bytes: 8 << 20,
            index_arena_bytes: 8 << 20,
            max_chunks: 16,
            ..TerrainMeshesDesc::default()
        },
    )
    .unwrap();
    let mut frames = FrameRing::new(&gpu.device).unwrap();
    let (edits, chunks) = world_chunks(4);
    let dims = [PADDED_SIZE; 3];
    let region = GridRegion::owned_edges_of_padded_grid(dims);
    let lights: Vec<_> = chunks
        .iter()
        .map(|(coord, _)| light_grid(&edits, *coord))
        .collect();
    for ((coord, samples), light) in chunks.iter().zip(&lights) {
        assert_eq!(light.origin, coord.padded_origin());
        let grid = DensityGrid::new(samples, dims).unwrap();
        let key = coord.key();
        meshes
            .mesh_chunk(&mut frames, key, grid, region, 0.0, Some(&light.values))
            .unwrap()
            .expect("a surface");
    }
    let readback = meshes.read_back().unwrap();
    let (mut low, mut high, mut deviation) = (f32::MAX, f32::MIN, 0.0f32);
    for ((coord, samples), light) in chunks.iter().zip(&lights) {
        let chunk = meshes.chunk(coord.key()).unwrap();
        let cpu = cpu_mesh(samples, dims, region);
        let what = format!("chunk {coord:?}");
        // The GPU's vertices in the CPU's order: vertex i's light is that at the CPU's vertex i.
        let comparison = compare(&cpu, &chunk_mesh(&readback, chunk), &what);
        assert!(comparison.same(), "{what}: the CPU's vertices in order");
        let expected: Vec<f32> = cpu
            .positions
            .iter()
            .map(|position| {
                let world = std::array::from_fn(|axis| position[axis] + light.origin[axis] as f32);
                light.light_at(world)
            })
            .collect();
        let gpu_light = chunk_light(&readback, chunk);
        deviation = deviation.max(check_light(
            gpu_light,
            &expected,
            WORLD_LIGHT_TOLERANCE,
            &what,
        ));
        for &value in gpu_light {
            (low, high) = (low.min(value), high.max(value));
        }
    }
    assert!(low < high, "shade and open sky: light from {low} to {high}");
    eprintln!(
        "{} world chunks lit as LightGrid::light_at (light {low:.3} to {high:.3}), largest \
         deviation {deviation:e}",
        chunks.len()
    );
    drop(meshes);
    drop(frames);
    assert_no_validation_errors(&gpu, before);
}

#[test]
fn no_shelves_in_the_arenas_where_the_ground_lies_under_a_layer_border() {
    // The chunks around the spawn's hills, meshed by the compute shaders into the terrain
    // arenas with the game's skirts, read back: seen from above, no skirt raises the ground
    // (a skirt up to its chunk's top face drew shelves at y = 0 and y = 32).
    use crate::drawn_ground::{assert_no_shelf, chunks_around, edits, DrawnGround};
    let Some(gpu) = crate::common::gpu() else {
        return;
    };
    let before = gpu.validation_errors();
    let edits = edits(Generator::DEFAULT_SEED);
    let column = (-1, 1);
    let chunks = chunks_around(&edits, column, (-3, 3));
    let mut meshes = TerrainMeshes::new(
        &gpu.device,
        &TerrainMeshesDesc {
            vertex_arena_bytes: 32 << 20,
            index_arena_bytes: 32 << 20,
            max_chunks: chunks.len() as u32,
            ..TerrainMeshesDesc::default()
        },
    )
    .unwrap();
    let mut frames = FrameRing::new(&gpu.device).unwrap();
    let dims = [PADDED_SIZE; 3];
    let region = GridRegion::owned_edges_of_padded_grid(dims);
    for (coord, samples) in &chunks {
        let grid = DensityGrid::new(samples, dims).unwrap();
        meshes
            .mesh_chunk(
                &mut frames,
                coord.key(),
                grid,
                region,
                blockfall_game_render::chunk_meshes::skirt(*coord),
                None,
            )
            .unwrap();
    }
    let readback = meshes.read_back().unwrap();
    let mut drawn = DrawnGround::default();
    let mut resident = 0;
    for (coord, _) in &chunks {
        if let Some(chunk) = meshes.chunk(coord.key()) {
            drawn.add_chunk(*coord, &chunk_mesh(&readback, chunk));
            resident += 1;
        }
    }
    assert!(resident >= 9, "{resident} chunks with a surface");
    assert_no_shelf(
        "the arenas, column (-1, 1)",
        &edits,
        column,
        &chunks,
        &drawn,
        0.25,
    );
    drop(meshes);
    drop(frames);
    assert_no_validation_errors(&gpu, before);
}
