//! Chunks meshed in batches (one size frame, one wait and one write frame per K chunks): a
//! batch lies where the same chunks meshed one by one lie and is the same bytes, every chunk the
//! CPU's mesh to the bit, its write frame labelled and timed; a batch with a bad grid, a bad
//! light grid or a key twice submits nothing and changes nothing; a chunk of a batch that does
//! not fit stops the batch there, the chunks before it meshed. A batch of 0 is refused.

use std::collections::HashMap;

use blockfall_engine::gpu::{FrameRing, GpuError};
use blockfall_engine::meshing::terrain_meshes::{
    ArenaKind, ChunkKey, ResidentChunk, TerrainReadback, LIGHT_PASS_NAME, VERTEX_BYTES,
    WRITE_PASS_NAME,
};
use blockfall_engine::meshing::{
    GpuMeshError, MeshError, TerrainMeshError, TerrainMeshes, TerrainMeshesDesc,
};

use crate::common::{self, assert_no_validation_errors};
use crate::grids::{terrain_chunks, TestGrid};
use crate::readback::assert_timed_passes;
use crate::resident::{bits, check_resident, desc, mesh, mesh_all, new_meshes, used};

/// One past the last vertex and the last index any of `chunks` took: below that the arenas
/// were all written at some time (their ranges are taken first fit from the start); above
/// it they hold what the memory held before.
fn written(chunks: &[Option<ResidentChunk>], high: &mut (usize, usize)) {
    for chunk in chunks.iter().flatten() {
        high.0 = high
            .0
            .max((chunk.vertices.offset + chunk.vertices.size) as usize);
        high.1 = high
            .1
            .max((chunk.indices.offset + chunk.indices.size) as usize);
    }
}

/// The same bits: every draw, and every vertex, light value and index below `high` (what
/// [`written`] found).
fn assert_same_readback(
    left: &TerrainReadback,
    right: &TerrainReadback,
    high: (usize, usize),
    what: &str,
) {
    assert_eq!(left.draws, right.draws, "{what}: the draws");
    let (vertices, indices) = high;
    assert!(
        bits(&left.vertices[..vertices * 6]) == bits(&right.vertices[..vertices * 6]),
        "{what}: the vertex arenas differ"
    );
    assert!(
        bits(&left.light[..vertices]) == bits(&right.light[..vertices]),
        "{what}: the light arenas differ"
    );
    assert!(
        left.indices[..indices] == right.indices[..indices],
        "{what}: the index arenas differ"
    );
}

/// Meshes `grids` under `keys` in one call of the batched meshes, and one by one in the single
/// ones; asserts they lie in the same places and that the call took `frames_expected` frames.
fn mesh_both(
    (batched, frames): (&mut TerrainMeshes, &mut FrameRing),
    (single, single_frames): (&mut TerrainMeshes, &mut FrameRing),
    keys: &[ChunkKey],
    grids: &[&TestGrid],
    frames_expected: u64,
) -> Vec<Option<ResidentChunk>> {
    let frame = frames.frame_number();
    let results = mesh_all(batched, frames, keys, grids).unwrap();
    assert_eq!(
        frames.frame_number() - frame,
        frames_expected,
        "a size frame and a write frame for each batch"
    );
    let one_by_one: Vec<Option<ResidentChunk>> = keys
        .iter()
        .zip(grids)
        .map(|(&key, grid)| mesh(single, single_frames, key, grid).unwrap())
        .collect();
    assert_eq!(results, one_by_one, "where the chunks lie");
    results
}

#[test]
fn a_batch_is_the_same_bytes_as_its_chunks_meshed_one_by_one() {
    let Some(gpu) = common::gpu() else {
        return;
    };
    let before = gpu.validation_errors();
    let desc = |batch| TerrainMeshesDesc {
        batch,
        ..desc(16 << 20, 16 << 20, 64)
    };
    let (mut batched, mut frames) = new_meshes(&gpu, desc(8));
    let (mut single, mut single_frames) = new_meshes(&gpu, desc(1));
    assert_eq!(batched.batch_capacity(), 8);
    assert_eq!(single.batch_capacity(), 1);
    assert_eq!(TerrainMeshesDesc::default().batch, 8, "the default batch");

    // Every other terrain chunk lit, each its own way.
    let terrain: Vec<TestGrid> = terrain_chunks(20)
        .iter()
        .enumerate()
        .map(|(index, grid)| {
            if index % 2 == 0 {
                grid.lit(0.37 * index as f32)
            } else {
                grid.clone()
            }
        })
        .collect();
    let solid = TestGrid::uniform(1.0);
    let spheres = [
        TestGrid::sphere([12, 12, 12], [5.5, 5.7, 5.9], 3.6),
        TestGrid::sphere([10, 13, 7], [4.3, 6.6, 3.2], 3.7).lit(0.4),
        TestGrid::sphere([20, 20, 20], [9.3, 10.1, 9.7], 6.2),
        TestGrid::sphere([16, 16, 16], [7.1, 8.4, 7.7], 5.0),
    ];
    // Resident already, in both: four chunks that the batch remeshes or empties.
    let mut expected: HashMap<ChunkKey, &TestGrid> = HashMap::new();
    let mut high = (0, 0);
    for (index, grid) in spheres.iter().enumerate() {
        let key = [index as i32, 0, 0, 0];
        let left = mesh(&mut batched, &mut frames, key, grid).unwrap();
        let right = mesh(&mut single, &mut single_frames, key, grid).unwrap();
        assert_eq!(left, right);
        written(&[left], &mut high);
        expected.insert(key, grid);
    }

    // A batch of 8 (one size frame, one write frame): three remeshes, an empty grid in place
    // of a resident chunk, four new chunks.
    let keys: Vec<ChunkKey> = (0..8).map(|i| [i, 0, 0, 0]).collect();
    let mut grids: Vec<&TestGrid> = terrain[..8].iter().collect();
    grids[3] = &solid;
    let results = mesh_both(
        (&mut batched, &mut frames),
        (&mut single, &mut single_frames),
        &keys,
        &grids,
        2,
    );
    written(&results, &mut high);
    assert_eq!(results[3], None, "the empty grid");
    assert_eq!(batched.chunk(keys[3]), None, "unloaded");
    for (key, grid) in keys.iter().zip(&grids) {
        if results[key[0] as usize].is_some() {
            expected.insert(*key, grid);
        } else {
            expected.remove(key);
        }
    }
    let passes = [
        WRITE_PASS_NAME,
        "surface nets: vertices",
        "surface nets: quads",
        LIGHT_PASS_NAME,
    ];
    // A labelled, timed pass around each pass of every chunk.
    assert_timed_passes(&gpu, &mut frames, &passes, "a batch's write frame");
    let same = check_resident(&mut batched, &expected, "a batch of 8");
    assert_eq!(same, expected.len(), "the CPU's meshes in its order");
    check_resident(&mut single, &expected, "one by one");
    assert_same_readback(
        &batched.read_back().unwrap(),
        &single.read_back().unwrap(),
        high,
        "a batch of 8",
    );

    // A batch of 20 with K = 8: three size frames and three write frames.
    let keys: Vec<ChunkKey> = (0..20).map(|i| [i, 1, 0, 0]).collect();
    let grids: Vec<&TestGrid> = terrain.iter().collect();
    let results = mesh_both(
        (&mut batched, &mut frames),
        (&mut single, &mut single_frames),
        &keys,
        &grids,
        6,
    );
    written(&results, &mut high);
    assert!(
        results.iter().all(Option::is_some),
        "terrain chunks with a surface"
    );
    for (key, grid) in keys.iter().zip(&grids) {
        expected.insert(*key, grid);
    }
    let same = check_resident(&mut batched, &expected, "a batch of 20");
    assert_eq!(same, expected.len(), "the CPU's meshes in its order");
    assert_same_readback(
        &batched.read_back().unwrap(),
        &single.read_back().unwrap(),
        high,
        "a batch of 20",
    );
    eprintln!(
        "batches of 8 and 20 (K = 8) equal the same chunks meshed one by one, {} chunks the \
         CPU's to the bit",
        expected.len()
    );

    // An empty call does nothing.
    let frame = frames.frame_number();
    assert!(batched.mesh_chunks(&mut frames, &[]).unwrap().is_empty());
    assert_eq!(frames.frame_number(), frame);
    drop(batched);
    drop(single);
    drop(frames);
    drop(single_frames);
    assert_no_validation_errors(&gpu, before);
}

#[test]
fn a_batch_with_a_bad_chunk_or_a_key_twice_changes_nothing() {
    let Some(gpu) = common::gpu() else {
        return;
    };
    let before = gpu.validation_errors();
    let (mut meshes, mut frames) = new_meshes(
        &gpu,
        TerrainMeshesDesc {
            batch: 4,
            ..desc(8 << 20, 8 << 20, 32)
        },
    );
    let terrain: Vec<TestGrid> = terrain_chunks(6)
        .iter()
        .enumerate()
        .map(|(index, grid)| grid.lit(0.5 * index as f32))
        .collect();
    let keys: Vec<ChunkKey> = (0..6).map(|i| [i, 3, 0, 0]).collect();
    let grids: Vec<&TestGrid> = terrain.iter().collect();
    mesh_all(&mut meshes, &mut frames, &keys[..4], &grids[..4]).unwrap();
    let mut expected: HashMap<ChunkKey, &TestGrid> = HashMap::new();
    for (key, grid) in keys[..4].iter().zip(&grids) {
        expected.insert(*key, grid);
    }
    let old = meshes.read_back().unwrap();
    let before_errors = used(&meshes);
    // The arenas hold the four chunks from the start, nothing freed.
    let high = (before_errors.0 as usize, before_errors.1 as usize);
    let unchanged = |meshes: &mut TerrainMeshes, frames: &FrameRing, frame: u64, what: &str| {
        assert_eq!(frames.frame_number(), frame, "{what}: nothing submitted");
        assert_eq!(used(meshes), before_errors, "{what}: the arenas");
        assert_eq!(meshes.resident_chunks(), 4, "{what}: residents");
        assert_same_readback(&old, &meshes.read_back().unwrap(), high, what);
    };

    // A grid that is not finite, the last of a batch of 6 (the second batch of K = 4).
    let mut nan = terrain[5].clone();
    nan.samples[777] = f32::NAN;
    let mut bad = grids.clone();
    bad[5] = &nan;
    let frame = frames.frame_number();
    let error = mesh_all(&mut meshes, &mut frames, &keys, &bad).unwrap_err();
    assert!(
        matches!(
            error,
            TerrainMeshError::Mesh(GpuMeshError::Grid(MeshError::NotFinite { index: 777, .. }))
        ),
        "{error:?}"
    );
    unchanged(&mut meshes, &frames, frame, "a grid not finite");

    // A light grid of the wrong length, in the middle.
    let mut short = terrain[2].clone();
    short.light.as_mut().unwrap().pop();
    let mut bad = grids.clone();
    bad[2] = &short;
    let frame = frames.frame_number();
    let error = mesh_all(&mut meshes, &mut frames, &keys, &bad).unwrap_err();
    assert!(error.to_string().contains("light grid holds"), "{error}");
    unchanged(&mut meshes, &frames, frame, "a light grid too short");

    // A key twice.
    let twice = [keys[4], keys[0], keys[4]];
    let frame = frames.frame_number();
    let error = mesh_all(&mut meshes, &mut frames, &twice, &grids[..3]).unwrap_err();
    assert!(
        matches!(
            &error,
            TerrainMeshError::Mesh(GpuMeshError::Gpu(GpuError::Invalid(_)))
        ),
        "{error:?}"
    );
    assert!(
        error.to_string().contains("is both chunk 0 and chunk 2"),
        "{error}"
    );
    eprintln!("a key twice: {error}");
    unchanged(&mut meshes, &frames, frame, "a key twice");
    check_resident(&mut meshes, &expected, "after the errors");
    drop(meshes);
    drop(frames);

    // A batch of K = 0 is refused when made.
    let error = TerrainMeshes::new(
        &gpu.device,
        &TerrainMeshesDesc {
            batch: 0,
            ..TerrainMeshesDesc::default()
        },
    )
    .err()
    .expect("no batch slot");
    assert!(error.to_string().contains("batch 0"), "{error}");
    assert_no_validation_errors(&gpu, before);
}

#[test]
fn a_chunk_of_a_batch_that_does_not_fit_stops_the_batch_there() {
    let Some(gpu) = common::gpu() else {
        return;
    };
    let before = gpu.validation_errors();
    let terrain = terrain_chunks(4);
    let vertices: Vec<u64> = terrain
        .iter()
        .map(|grid| grid.cpu_mesh().positions.len() as u64)
        .collect();
    // Room for the first two chunks and all but one vertex of the third.
    let (mut meshes, mut frames) = new_meshes(
        &gpu,
        TerrainMeshesDesc {
            batch: 8,
            ..desc(
                (vertices[0] + vertices[1] + vertices[2] - 1) * VERTEX_BYTES,
                8 << 20,
                16,
            )
        },
    );
    let keys: Vec<ChunkKey> = (0..4).map(|i| [i, 4, 0, 0]).collect();
    let grids: Vec<&TestGrid> = terrain.iter().collect();
    let frame = frames.frame_number();
    let error = mesh_all(&mut meshes, &mut frames, &keys, &grids).unwrap_err();
    assert!(
        matches!(
            error,
            TerrainMeshError::ArenaFull {
                key,
                kind: ArenaKind::Vertex,
                previous_dropped: false,
                ..
            } if key == keys[2]
        ),
        "{error:?}"
    );
    assert_eq!(
        frames.frame_number() - frame,
        2,
        "the size frame, and the write frame of the chunks before"
    );
    // The chunks before it are meshed; it and those after it are not resident.
    let mut expected: HashMap<ChunkKey, &TestGrid> = HashMap::new();
    expected.insert(keys[0], grids[0]);
    expected.insert(keys[1], grids[1]);
    check_resident(&mut meshes, &expected, "stopped at the third chunk");
    assert_eq!(meshes.chunk(keys[2]), None);
    assert_eq!(meshes.chunk(keys[3]), None);
    assert_eq!(
        meshes.vertex_arena().used(),
        vertices[0] + vertices[1],
        "no range for the chunks from the third on"
    );
    drop(meshes);
    drop(frames);
    assert_no_validation_errors(&gpu, before);
}
