//! The terrain rapier3d gets in the physics benchmark: the CPU surface nets of the default
//! world's chunks under the drop area, the mesh the game draws, joined into one static mesh.

use anyhow::ensure;
use blockfall_engine::meshing::{DensityGrid, GridRegion, SurfaceMesh, SurfaceNets};
use blockfall_game::terrain::{chunks, ChunkCoord, EditStore, Field, Ground};
use blockfall_game::terrain::{CHUNK_SIZE, PADDED_SIZE};

/// The terrain under the drop area as one mesh, in world meters.
pub(super) struct TerrainMesh {
    pub(super) positions: Vec<[f32; 3]>,
    pub(super) triangles: Vec<[u32; 3]>,
    /// Chunks whose surface is in it.
    pub(super) chunks: usize,
}

/// The surface nets of every chunk whose padded grid meets `low..high` (x, z) between the
/// heights `bottom` and `top`, joined into one mesh (each chunk owns its edges, so the meshes
/// tile without cracks).
pub(super) fn terrain_mesh(
    field: &Field<EditStore<dyn Ground>>,
    low: [f64; 2],
    high: [f64; 2],
    bottom: f64,
    top: f64,
) -> anyhow::Result<TerrainMesh> {
    let size = f64::from(CHUNK_SIZE);
    // Chunk c's padded grid spans samples 32c - 1 ..= 32c + 32.
    let range = |from: f64, to: f64| {
        let first = ((from - size) / size).ceil() as i32;
        let last = ((to + 1.0) / size).floor() as i32;
        first..=last
    };
    let dims = [PADDED_SIZE; 3];
    let region = GridRegion::owned_edges_of_padded_grid(dims);
    let mut mesher = SurfaceNets::new();
    let mut mesh = SurfaceMesh::new();
    let mut samples = Vec::new();
    let mut terrain = TerrainMesh {
        positions: Vec::new(),
        triangles: Vec::new(),
        chunks: 0,
    };
    for cz in range(low[1], high[1]) {
        for cy in range(bottom, top) {
            for cx in range(low[0], high[0]) {
                let coord = ChunkCoord::new(cx, cy, cz);
                chunks::fill_padded_grid_or_skip(field.edits(), coord, &mut samples);
                if samples.is_empty() {
                    continue;
                }
                mesher.mesh(DensityGrid::new(&samples, dims)?, region, &mut mesh)?;
                if mesh.is_empty() {
                    continue;
                }
                let origin = coord.padded_origin().map(|value| value as f32);
                let base = terrain.positions.len() as u32;
                terrain.positions.extend(
                    mesh.positions
                        .iter()
                        .map(|p| [0, 1, 2].map(|axis| p[axis] + origin[axis])),
                );
                terrain.triangles.extend(
                    mesh.indices
                        .chunks_exact(3)
                        .map(|t| [base + t[0], base + t[1], base + t[2]]),
                );
                terrain.chunks += 1;
            }
        }
    }
    ensure!(
        !terrain.triangles.is_empty(),
        "no terrain surface under the drop area"
    );
    Ok(terrain)
}
