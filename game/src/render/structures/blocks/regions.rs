//! The blocks pass's regions meshed and uploaded: the regions the caller says changed, or every
//! region at once into an arena made anew when they do not fit.

use std::collections::BTreeSet;

use blockfall_engine::gpu::{self, Gpu, GpuResult};

use super::{BlocksRenderer, FIRST_INDICES, FIRST_VERTICES};
use crate::blocks::mesher::mesh_region;
use crate::blocks::store::{region_of, BlockStore};
use crate::render::structures::mesh_arena::MeshArena;
use crate::render::structures::vertices_of;

impl BlocksRenderer {
    /// Meshes exactly `regions` of `store` again (each vertex lit by `light` at its position)
    /// and uploads them; a region without blocks frees its ranges. Call it between frames
    /// (before `FrameRing::begin`): the copies are submitted at once and the frame recorded
    /// next draws them. The caller passes the neighbouring regions of a changed block too (its
    /// neighbours' covered sides change with it).
    pub fn update(
        &mut self,
        gpu: &mut Gpu,
        store: &BlockStore,
        regions: impl IntoIterator<Item = [i32; 3]>,
        light: &dyn Fn([f32; 3]) -> f32,
    ) -> GpuResult<()> {
        let regions: BTreeSet<[i32; 3]> = regions.into_iter().collect();
        let mut batch = gpu.uploader.begin("blocks: regions");
        let mut fitted = true;
        for region in &regions {
            self.mesh.clear();
            mesh_region(store, *region, &mut self.mesh);
            let vertices = vertices_of(&self.mesh, |i| light(self.mesh.positions[i]));
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
            self.rebuild(gpu, store, light, 2)?;
        }
        Ok(())
    }

    /// Meshes every region of `store` anew (the start of a run, or after a new store).
    pub fn rebuild_all(
        &mut self,
        gpu: &mut Gpu,
        store: &BlockStore,
        light: &dyn Fn([f32; 3]) -> f32,
    ) -> GpuResult<()> {
        self.rebuild(gpu, store, light, 1)
    }

    /// Every region meshed into the arena, made anew (with room for `growth` times what the
    /// regions need, at least the first arena's) when they do not fit the present one.
    fn rebuild(
        &mut self,
        gpu: &mut Gpu,
        store: &BlockStore,
        light: &dyn Fn([f32; 3]) -> f32,
        growth: u64,
    ) -> GpuResult<()> {
        let regions: BTreeSet<[i32; 3]> = store
            .iter()
            .map(|(_, block)| region_of(block.x, block.y, block.z))
            .collect();
        let mut meshes = Vec::with_capacity(regions.len());
        for region in regions {
            self.mesh.clear();
            mesh_region(store, region, &mut self.mesh);
            let vertices = vertices_of(&self.mesh, |i| light(self.mesh.positions[i]));
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
