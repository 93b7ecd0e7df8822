//! The blocks pass's regions meshed and uploaded: the regions the caller says changed, or every
//! region at once into an arena made anew when they do not fit. Each vertex is lit by the sky
//! light at it and shaded by the ambient occlusion of the cells around it
//! ([`blockfall_game::blocks::occlusion`]): the world's blocks, neighbouring regions' too, and the cells
//! whose middle is inside the ground.

use std::collections::BTreeSet;

use blockfall_engine::gpu::{self, Gpu, GpuResult};

use super::{BlocksRenderer, FIRST_INDICES, FIRST_VERTICES};
use crate::structures::mesh_arena::MeshArena;
use crate::structures::{vertices_of, BlockVertex, Surroundings};
use blockfall_game::blocks::mesher::{mesh_region, BlockMesh};
use blockfall_game::blocks::occlusion::{block_cells, occlude, with_ground};
use blockfall_game::blocks::store::{region_of, BlockStore};

impl BlocksRenderer {
    /// Meshes exactly `regions` of `store` again (each vertex lit by `around`'s light at its
    /// position, occluded by the blocks of `store` and `around`'s ground) and uploads them; a region without blocks frees its ranges. Call it between frames
    /// (before `FrameRing::begin`): the copies are submitted at once and the frame recorded
    /// next draws them. The caller passes the neighbouring regions of a changed block too (its
    /// neighbours' covered sides change with it).
    pub fn update(
        &mut self,
        gpu: &mut Gpu,
        store: &BlockStore,
        regions: impl IntoIterator<Item = [i32; 3]>,
        around: &dyn Surroundings,
    ) -> GpuResult<()> {
        let regions: BTreeSet<[i32; 3]> = regions.into_iter().collect();
        let mut batch = gpu.uploader.begin("blocks: regions");
        let mut fitted = true;
        for region in &regions {
            let vertices = region_vertices(&mut self.mesh, store, *region, around);
            if !self
                .arena
                .put(&mut batch, *region, &vertices, &self.mesh.indices)?
            {
                fitted = false;
                break;
            }
        }
        batch.submit()?;
        if !fitted {
            // No room: every region into an arena twice the size of what they need.
            self.rebuild(gpu, store, around, 2)?;
        }
        Ok(())
    }

    /// Meshes every region of `store` anew (the start of a run, or after a new store).
    pub fn rebuild_all(
        &mut self,
        gpu: &mut Gpu,
        store: &BlockStore,
        around: &dyn Surroundings,
    ) -> GpuResult<()> {
        self.rebuild(gpu, store, around, 1)
    }

    /// Every region meshed into the arena, made anew (with room for `growth` times what the
    /// regions need, at least the first arena's) when they do not fit the present one.
    fn rebuild(
        &mut self,
        gpu: &mut Gpu,
        store: &BlockStore,
        around: &dyn Surroundings,
        growth: u64,
    ) -> GpuResult<()> {
        let regions: BTreeSet<[i32; 3]> = store
            .iter()
            .map(|(_, block)| region_of(block.x, block.y, block.z))
            .collect();
        let mut meshes = Vec::with_capacity(regions.len());
        for region in regions {
            let vertices = region_vertices(&mut self.mesh, store, region, around);
            meshes.push((region, vertices, self.mesh.indices.clone()));
        }
        let vertices: u64 = meshes.iter().map(|(_, v, _)| v.len() as u64).sum();
        let indices: u64 = meshes.iter().map(|(_, _, i)| i.len() as u64).sum();
        let (vertex_capacity, index_capacity) = self.arena.capacity();
        if growth > 1 || vertices > vertex_capacity || indices > index_capacity {
            let vertex_capacity = (vertices * growth.max(2)).max(FIRST_VERTICES);
            let index_capacity = (indices * growth.max(2)).max(FIRST_INDICES);
            log::info!(
                "blocks: a new arena of {vertex_capacity} vertices and {index_capacity} indices \
                 for {} regions",
                meshes.len()
            );
            // The old arena's buffers are retired until the frames that drew them have run.
            self.arena = MeshArena::new(&self.device, "blocks", vertex_capacity, index_capacity)?;
        } else {
            let keys: Vec<[i32; 3]> = self.arena.iter().map(|(key, _)| *key).collect();
            for key in keys {
                self.arena.remove(&key);
            }
            // The ranges just freed may still be read by the last frame: wait for it, so that
            // everything fits again.
            self.device.wait_for(self.device.last_submitted())?;
        }
        let mut batch = gpu.uploader.begin("blocks: every region");
        for (region, vertices, indices) in &meshes {
            if !self.arena.put(&mut batch, *region, vertices, indices)? {
                return Err(gpu::GpuError::Invalid(format!(
                    "blocks: region {region:?} does not fit an arena made for every region"
                )));
            }
        }
        batch.submit()?;
        Ok(())
    }
}

/// The vertices of a region of `store`, meshed into `mesh` (its memory kept between regions),
/// each lit by `around`'s light and occluded by the blocks of `store` and `around`'s ground:
/// what the renderer uploads for the region (and `bench occlusion` times).
pub fn region_vertices(
    mesh: &mut BlockMesh,
    store: &BlockStore,
    region: [i32; 3],
    around: &dyn Surroundings,
) -> Vec<BlockVertex> {
    mesh.clear();
    mesh_region(store, region, mesh);
    occlude(
        mesh,
        with_ground(block_cells(store), |point| around.inside_ground(point)),
    );
    vertices_of(mesh, |i| around.light(mesh.positions[i]))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::structures::LitGround;
    use blockfall_game::blocks::store::Block;

    fn plain(x: i32, y: i32, z: i32, size: u8) -> Block {
        Block::new(x, y, z, size, 0, 0, false).unwrap()
    }

    #[test]
    fn a_lone_block_is_open_but_where_it_meets_the_ground() {
        let mut store = BlockStore::new();
        store.add(plain(4, 0, 4, 2)).unwrap();
        let mut mesh = BlockMesh::new();
        // No ground: open everywhere, lit by the light.
        let vertices = region_vertices(&mut mesh, &store, [0, 0, 0], &|_: [f32; 3]| 0.5);
        assert_eq!(vertices.len(), mesh.vertex_count());
        assert!(vertices
            .iter()
            .all(|v| v.occlusion == 1.0 && v.light == 0.5));
        // The ground below y = 0: darker at the foot, darkest underneath, open above.
        let around = LitGround {
            light: &|_| 1.0,
            ground: &|point| point[1] < 0.0,
        };
        let vertices = region_vertices(&mut mesh, &store, [0, 0, 0], &around);
        assert!(!vertices.is_empty());
        for vertex in &vertices {
            let expected = if vertex.normal[1] < -0.5 {
                0.4
            } else if vertex.position[1] == 0.0 {
                0.6
            } else {
                1.0
            };
            assert!((vertex.occlusion - expected).abs() < 1e-6, "{vertex:?}");
        }
    }

    #[test]
    fn blocks_of_neighbouring_regions_occlude() {
        // Cell 63 and 64 lie in neighbouring regions; a floor of both, a wall on the second.
        let mut store = BlockStore::new();
        store.add(plain(63, 0, 0, 1)).unwrap();
        store.add(plain(64, 0, 0, 1)).unwrap();
        store.add(plain(64, 1, 0, 1)).unwrap();
        let mut mesh = BlockMesh::new();
        let vertices = region_vertices(&mut mesh, &store, [0, 0, 0], &|_: [f32; 3]| 1.0);
        // The floor's top in region 0 meets the wall of region 1 along x = 32 m.
        let darker: Vec<_> = vertices
            .iter()
            .filter(|v| v.normal[1] > 0.5 && v.position[0] == 32.0)
            .collect();
        assert_eq!(darker.len(), 2);
        assert!(darker.iter().all(|v| v.occlusion < 1.0));
    }
}
