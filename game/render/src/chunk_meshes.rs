//! The streamed chunks on the GPU: the world's prepared chunks
//! ([`blockfall_game::terrain::streaming`]) handed to the engine's [`TerrainMeshes`], whose compute
//! surface nets mesh them into the arenas with their light per vertex. This side decides
//! nothing: what loads, unloads, is meshed again or only lit again comes from the
//! [`ChunkStream`](blockfall_game::terrain::streaming::ChunkStream); [`ChunkMeshes`] is its
//! [`ChunkSink`].
//!
//! ```text
//!   ChunkStream ── unload(coord) ─────────────────▶ TerrainMeshes::unload (ranges freed)
//!               ── mesh([grid + light + coord]) ──▶ TerrainMeshes::mesh_chunks (one size
//!                                                   frame, wait and write frame per batch)
//!               ── relight(coord, light) ─────────▶ TerrainMeshes::relight
//!   TerrainRenderer::record ◀── the arenas: one indirect draw per resident chunk in view
//! ```
//!
//! Only chunks with a surface hold arena ranges and a draw slot.

use std::sync::Arc;

use blockfall_engine::gpu::{Device, FrameRing, GpuError};
use blockfall_engine::meshing::terrain_meshes::ChunkToMesh;
use blockfall_engine::meshing::{
    DensityGrid, GridRegion, TerrainMeshError, TerrainMeshes, TerrainMeshesDesc,
};

use blockfall_game::terrain::chunks::{ChunkCoord, PADDED_SIZE};
use blockfall_game::terrain::sky_light::LightGrid;
use blockfall_game::terrain::streaming::{ChunkSink, MeshFailure, Streamer, SurfaceChunk};

/// Arenas sized for `radius` chunks of the default world: the resident chunks (those with a
/// surface) within a sphere of that radius, with room for edits and a turn of the view.
pub fn terrain_meshes(
    device: &Arc<Device>,
    radius: u32,
) -> Result<TerrainMeshes, TerrainMeshError> {
    TerrainMeshes::new(device, &arenas_for(radius))
}

/// Arena sizes for a view radius. The levels of detail split by the distance across the ground,
/// so the chunks in view ([`Streamer::in_view`]) stand in columns, each level's the full
/// height of the view, most of them open air or solid ground that never reach the GPU; the
/// ground's surface crosses one to three chunks of a column. So the arenas hold three chunks
/// per column of the chunks in view, with half as many again for the chunks kept while levels
/// change, each with some 1,500 vertices and 8,000 indices on average (caves and cliffs hold
/// more) and its skirts, at twice the mean; a draw slot for every chunk in view, and half
/// again.
pub fn arenas_for(radius: u32) -> TerrainMeshesDesc {
    let viewer = [16.0, 16.0, 16.0];
    let in_view = Streamer::new(radius.clamp(1, 64)).in_view(viewer);
    let columns = in_view
        .iter()
        .filter(|coord| coord.y == ChunkCoord::containing_at(viewer, coord.level).y)
        .count() as u64;
    let resident = (columns * 3 + columns * 3 / 2).max(64);
    let slots = in_view.len() as u64 * 3 / 2;
    TerrainMeshesDesc {
        vertex_arena_bytes: resident * 3_500 * 24,
        index_arena_bytes: resident * 18_000 * 4,
        max_chunks: slots.min(u64::from(u32::MAX)) as u32,
        ..TerrainMeshesDesc::default()
    }
}

/// The largest view radius, up to `most`, whose arenas ([`arenas_for`]) fit a device whose
/// storage buffers may be at most `storage_limit` bytes (`maxStorageBufferRange`); at least 1.
/// Vulkan's least `maxStorageBufferRange`, 128 MiB (lavapipe's), holds every radius up to 32
/// with the levels of detail.
pub fn largest_view_radius(storage_limit: u64, most: u32) -> u32 {
    (1..=most.max(1))
        .rev()
        .find(|&radius| arenas_for(radius).too_large_for(storage_limit).is_none())
        .unwrap_or(1)
}

/// How deep, in cells of its own level, every chunk's mesh hangs a skirt from its open border
/// into the ground: where a chunk meets one of the next level, the two meshes' borders lie up
/// to a coarse cell apart (docs/terrain.md, "The far view").
pub const SKIRT_CELLS: f32 = blockfall_game::terrain::chunks::SKIRT_REACH;

/// A chunk of full detail's skirt, in its cells (1 m): the coarser neighbour's skirt (4 m deep)
/// covers where the coarser mesh lies higher, this one where the finer does, by a fraction of a
/// coarse cell; and at 1 m the skirt takes the sky light of the ground just under the surface
/// (the light grid gives the ground at a surface the air's light), so that where it shows
/// it is not a dark line.
pub const FULL_DETAIL_SKIRT_CELLS: f32 = 1.0;

/// The skirt a chunk is meshed with, in its grid's units.
pub fn skirt(coord: ChunkCoord) -> f32 {
    if coord.level == 0 {
        FULL_DETAIL_SKIRT_CELLS
    } else {
        SKIRT_CELLS
    }
}

/// The arenas, fed through the frame ring: the sink the world's chunks are meshed into.
pub struct ChunkMeshes<'a> {
    pub meshes: &'a mut TerrainMeshes,
    pub frames: &'a mut FrameRing,
}

impl ChunkSink for ChunkMeshes<'_> {
    type Error = TerrainMeshError;

    fn batch_capacity(&self) -> usize {
        self.meshes.batch_capacity()
    }

    fn unload(&mut self, coord: ChunkCoord) {
        self.meshes.unload(key(coord));
    }

    /// One size frame, one wait and one write frame per batch of the arenas' capacity.
    fn mesh(
        &mut self,
        chunks: &[SurfaceChunk<'_>],
    ) -> Result<Vec<bool>, MeshFailure<TerrainMeshError>> {
        let dims = [PADDED_SIZE; 3];
        let region = GridRegion::owned_edges_of_padded_grid(dims);
        let mut to_mesh = Vec::with_capacity(chunks.len());
        for chunk in chunks {
            let coord = chunk.grid.coord;
            let density =
                DensityGrid::new(&chunk.grid.samples, dims).map_err(|error| MeshFailure {
                    error: GpuError::Invalid(format!("chunk {coord:?}'s padded grid: {error}"))
                        .into(),
                    failed: None,
                })?;
            to_mesh.push(ChunkToMesh {
                key: key(coord),
                grid: density,
                region,
                skirt: skirt(coord),
                light: chunk.light.map(|light| light.values.as_slice()),
            });
        }
        match self.meshes.mesh_chunks(self.frames, &to_mesh) {
            Ok(results) => Ok(results.iter().map(Option::is_some).collect()),
            Err(error) => {
                let failed = match &error {
                    TerrainMeshError::ArenaFull { key, .. }
                    | TerrainMeshError::TooManyChunks { key, .. } => {
                        to_mesh.iter().position(|chunk| chunk.key == *key)
                    }
                    _ => None,
                };
                Err(MeshFailure { error, failed })
            }
        }
    }

    fn is_resident(&self, coord: ChunkCoord) -> bool {
        self.meshes.chunk(key(coord)).is_some()
    }

    fn relight(&mut self, coord: ChunkCoord, light: &LightGrid) -> Result<(), TerrainMeshError> {
        self.meshes
            .relight(self.frames, key(coord), &light.values)?;
        Ok(())
    }
}

/// The arenas' name for a chunk.
fn key(coord: ChunkCoord) -> [i32; 4] {
    coord.key()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Vulkan's least `maxStorageBufferRange` (2²⁷ bytes), lavapipe's.
    const LEAST_RANGE: u64 = 1 << 27;

    #[test]
    fn no_skirt_hangs_outside_the_box_the_culling_takes_for_its_chunk() {
        for level in 0..=blockfall_game::terrain::chunks::MAX_LEVEL {
            let coord = ChunkCoord::at_level(3, -1, 2, level);
            let depth = skirt(coord);
            assert!(depth > 0.0 && depth <= blockfall_game::terrain::chunks::SKIRT_REACH);
            // A border vertex at the padded grid's lowest corner, its skirt straight down.
            let (low, _) = coord.vertex_box();
            let origin = coord.padded_origin();
            let lowest = origin[1] as f32 - depth * coord.spacing() as f32;
            assert!(low[1] <= lowest, "level {level}: {low:?} against {lowest}");
        }
    }

    #[test]
    fn the_largest_view_radius_fits_lavapipe_with_levels_of_detail() {
        // With levels of detail the farthest view fits lavapipe's 128 MiB.
        assert_eq!(largest_view_radius(LEAST_RANGE, 32), 32);
        assert_eq!(arenas_for(32).too_large_for(LEAST_RANGE), None);
        // Far views cost little more than near ones: the chunks with a surface grow with the
        // levels, not the sphere.
        let near = arenas_for(8);
        let far = arenas_for(32);
        assert!(
            far.vertex_arena_bytes < 2 * near.vertex_arena_bytes,
            "{far:?} against {near:?}"
        );
        // A device with room for everything, and one with room for nothing.
        assert_eq!(largest_view_radius(u64::MAX, 32), 32);
        assert_eq!(largest_view_radius(0, 32), 1);
        assert_eq!(largest_view_radius(LEAST_RANGE, 4), 4);
        // A device whose storage buffers hold only a small view gets a smaller radius.
        let small = arenas_for(2).vertex_arena_bytes;
        let fitted = largest_view_radius(small, 32);
        assert!((1..32).contains(&fitted), "{fitted}");
        assert_eq!(arenas_for(fitted).too_large_for(small), None);
    }
}
