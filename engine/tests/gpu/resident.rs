//! Meshing [`TestGrid`]s into the terrain arenas, and the check every arena test ends with:
//! read everything back and find each resident chunk equal to the CPU mesh of its grid, its
//! light equal to the CPU's blend of its light grid at the CPU's vertices (1 without one), each
//! in a slot of its own, every other slot an empty draw.

use std::collections::HashMap;

use blockfall_engine::gpu::{FrameRing, Gpu};
use blockfall_engine::meshing::terrain_meshes::{
    ChunkKey, ChunkToMesh, DrawIndexedIndirect, ResidentChunk, TerrainReadback,
};
use blockfall_engine::meshing::{TerrainMeshError, TerrainMeshes, TerrainMeshesDesc};

use crate::grids::TestGrid;
use crate::meshes::compare;
use crate::readback::{check_light, chunk_light, chunk_mesh, LIGHT_TOLERANCE};

/// Terrain meshes with arenas of these sizes and slots, batches of the default size.
pub fn desc(vertex_arena_bytes: u64, index_arena_bytes: u64, max_chunks: u32) -> TerrainMeshesDesc {
    TerrainMeshesDesc {
        vertex_arena_bytes,
        index_arena_bytes,
        max_chunks,
        ..TerrainMeshesDesc::default()
    }
}

pub fn new_meshes(gpu: &Gpu, desc: TerrainMeshesDesc) -> (TerrainMeshes, FrameRing) {
    let meshes = TerrainMeshes::new(&gpu.device, &desc).unwrap();
    let frames = FrameRing::new(&gpu.device).unwrap();
    (meshes, frames)
}

pub fn to_mesh(key: ChunkKey, grid: &TestGrid) -> ChunkToMesh<'_> {
    ChunkToMesh {
        key,
        grid: grid.grid(),
        region: grid.region,
        skirt: grid.skirt,
        light: grid.light.as_deref(),
    }
}

/// Meshes one grid with [`TerrainMeshes::mesh_chunk`].
pub fn mesh(
    meshes: &mut TerrainMeshes,
    frames: &mut FrameRing,
    key: ChunkKey,
    grid: &TestGrid,
) -> Result<Option<ResidentChunk>, TerrainMeshError> {
    meshes.mesh_chunk(
        frames,
        key,
        grid.grid(),
        grid.region,
        grid.skirt,
        grid.light.as_deref(),
    )
}

/// Meshes `grids` under `keys` in one call of [`TerrainMeshes::mesh_chunks`].
pub fn mesh_all(
    meshes: &mut TerrainMeshes,
    frames: &mut FrameRing,
    keys: &[ChunkKey],
    grids: &[&TestGrid],
) -> Result<Vec<Option<ResidentChunk>>, TerrainMeshError> {
    assert_eq!(keys.len(), grids.len());
    let chunks: Vec<ChunkToMesh> = keys
        .iter()
        .zip(grids)
        .map(|(&key, grid)| to_mesh(key, grid))
        .collect();
    meshes.mesh_chunks(frames, &chunks)
}

/// The arenas' use: vertices and indices taken.
pub fn used(meshes: &TerrainMeshes) -> (u64, u64) {
    (meshes.vertex_arena().used(), meshes.index_arena().used())
}

/// Every bit of the read-back floats, to compare to the bit.
pub fn bits(values: &[f32]) -> Vec<u32> {
    values.iter().map(|v| v.to_bits()).collect()
}

/// The same bits in every arena and every draw.
pub fn assert_same_arenas(left: &TerrainReadback, right: &TerrainReadback, what: &str) {
    assert_eq!(bits(&left.light), bits(&right.light), "{what}: the light");
    assert_eq!(
        bits(&left.vertices),
        bits(&right.vertices),
        "{what}: the vertices"
    );
    assert_eq!(left.indices, right.indices, "{what}: the indices");
    assert_eq!(left.draws, right.draws, "{what}: the draws");
}

/// Reads everything back and checks every resident chunk against the CPU mesh of its grid, and
/// its light against the CPU's blend of its light grid at the CPU's vertices; returns how many
/// meshes were the CPU's in its order (to the bit on an IEEE device: `Comparison::same`).
pub fn check_resident(
    meshes: &mut TerrainMeshes,
    expected: &HashMap<ChunkKey, &TestGrid>,
    what: &str,
) -> usize {
    let readback = meshes.read_back().unwrap();
    assert_eq!(
        readback.light.len() * 6,
        readback.vertices.len(),
        "{what}: a light value per vertex"
    );
    assert_eq!(
        meshes.resident_chunks(),
        expected.len(),
        "{what}: residents"
    );
    let mut same = 0;
    let mut slots_seen = vec![false; meshes.max_chunks() as usize];
    for (&key, grid) in expected {
        let chunk = meshes.chunk(key).expect("resident");
        assert!(!slots_seen[chunk.slot as usize], "{what}: a slot twice");
        slots_seen[chunk.slot as usize] = true;
        let gpu = chunk_mesh(&readback, chunk);
        let cpu = grid.cpu_mesh();
        let what = format!("{what}: chunk {key:?}");
        let comparison = compare(&cpu, &gpu, &what);
        same += usize::from(comparison.same());
        check_light(
            chunk_light(&readback, chunk),
            &grid.cpu_light(&cpu),
            LIGHT_TOLERANCE,
            &what,
        );
    }
    // Every other slot is an empty draw.
    for (slot, draw) in readback.draws.iter().enumerate() {
        if !slots_seen[slot] {
            assert_eq!(
                *draw,
                DrawIndexedIndirect::default(),
                "{what}: slot {slot} holds no chunk"
            );
        }
    }
    same
}
