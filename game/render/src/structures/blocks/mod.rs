//! The block store on screen, pass `"blocks"`: the block mesher's mesh of each region (64³
//! cells, 32 m a side) kept in a [`MeshArena`], drawn with the materials' array, lit by the sun
//! and the sky light baked into each vertex on the CPU, and fogged like the terrain.
//!
//! * **Which regions**: the caller says which regions changed ([`BlocksRenderer::update`]). A
//!   block added, removed or reshaped changes the covered sides of its neighbours too, so the
//!   caller passes the regions of every cell next to the block's (the block's region and, when
//!   the block touches a region's side, the region beyond it). A region left with no blocks
//!   frees its ranges. [`BlocksRenderer::rebuild_all`] meshes every region at the start.
//! * **Light**: one sky light per vertex from the caller's light function (`World::light_at`),
//!   0 to 1, baked when the region is meshed: a region is meshed again when the terrain's light
//!   around it changes only if the caller passes it.
//! * **Room**: 256 Ki vertices (10 MiB) and 512 Ki indices (2 MiB) at first, about 10 000 plain
//!   1 m blocks in the open; when full, an arena twice the size of what is needed is made and
//!   every region meshed into it again.
//! * **Draws**: one `vkCmdDrawIndexed` per region in view (frustum and complete-fog culled like
//!   the terrain's chunks), nearest first.

mod regions;

pub use regions::region_vertices;

use std::sync::Arc;

use ash::vk;
use blockfall_engine::gpu::{
    self, BufferAccess, FrameRing, Gpu, GpuResult, Image, Load, Pipeline, PipelineLayout, Sampled,
    ShaderLibrary,
};
use ultraviolet::Vec3;

use super::mesh_arena::{MeshArena, MeshRange};
use super::{
    bind_material, shadowed_solid_pipeline, solid_pipeline, BlockMaterials, StructurePush,
};
use crate::frustum::Frustum;
use crate::pass::bindless_pass;
use crate::pass::ShadowedPipeline;
use crate::target::RenderTarget;
use blockfall_game::blocks::mesher::BlockMesh;
use blockfall_game::blocks::store::{CELL, REGION_CELLS};
use blockfall_game::camera::Camera;

/// The name of the frame pass (label and timing).
pub const PASS_NAME: &str = "blocks";

/// Vertices and indices of the first arena.
const FIRST_VERTICES: u64 = 256 << 10;
const FIRST_INDICES: u64 = 512 << 10;
/// A block's low cell is in its region; the block reaches this many meters beyond the region's
/// high side at most (a 2 m block).
const REACH_BEYOND_REGION: f32 = 2.0;

/// Draws the block store's regions.
pub struct BlocksRenderer {
    device: Arc<gpu::Device>,
    layout: PipelineLayout,
    pipeline: Pipeline,
    /// The material with the sun's shadows and the occlusion, where made.
    shadowed: Option<ShadowedPipeline>,
    materials: Arc<BlockMaterials>,
    bindless_set: vk::DescriptorSet,
    arena: MeshArena<[i32; 3]>,
    /// The mesher's scratch, kept between regions.
    mesh: BlockMesh,
    draws_last_frame: u32,
    triangles_last_frame: u64,
}

impl BlocksRenderer {
    /// The pipeline and the first arena; `colour_format` is the target's format; with
    /// `shadow_layout` (the shadow maps' set layout) the material with the sun's shadows and
    /// the occlusion too.
    pub fn new(
        gpu: &mut Gpu,
        shaders: &ShaderLibrary,
        colour_format: vk::Format,
        materials: &Arc<BlockMaterials>,
        shadow_layout: Option<vk::DescriptorSetLayout>,
    ) -> GpuResult<Self> {
        let pass = bindless_pass::<StructurePush>(gpu, shaders, "blocks", "blocks")?;
        let pipeline = solid_pipeline(
            gpu,
            &pass.layout,
            "blocks",
            &pass.vertex,
            &pass.fragment,
            colour_format,
            None,
        )?;
        let shadowed = shadow_layout
            .map(|shadow_layout| {
                shadowed_solid_pipeline(
                    gpu,
                    shaders,
                    "blocks",
                    &pass.vertex,
                    colour_format,
                    None,
                    shadow_layout,
                )
            })
            .transpose()?;
        Ok(Self {
            device: gpu.device.clone(),
            layout: pass.layout,
            pipeline,
            shadowed,
            materials: materials.clone(),
            bindless_set: gpu.bindless.set,
            arena: MeshArena::new(&gpu.device, "blocks", FIRST_VERTICES, FIRST_INDICES)?,
            mesh: BlockMesh::new(),
            draws_last_frame: 0,
            triangles_last_frame: 0,
        })
    }

    /// Forgets every region's mesh (a new world is drawn next): the pipeline and the arena stay,
    /// and the next [`BlocksRenderer::rebuild_all`] meshes the new store.
    pub fn forget_all(&mut self) {
        self.arena.clear();
    }

    /// Regions with a mesh on the GPU.
    pub fn resident_regions(&self) -> usize {
        self.arena.len()
    }

    /// Every resident region's mesh: the box its blocks may fill and its range in
    /// [`BlocksRenderer::arena`] (the shadow casters' draws).
    pub fn regions(&self) -> impl Iterator<Item = ((Vec3, Vec3), MeshRange)> + '_ {
        self.arena
            .iter()
            .map(|(region, range)| (region_box(*region), *range))
    }

    /// The arena the regions' meshes live in.
    pub fn arena(&self) -> &MeshArena<[i32; 3]> {
        &self.arena
    }

    /// Draws recorded in the last frame: one per region in view.
    pub fn draws_last_frame(&self) -> u32 {
        self.draws_last_frame
    }

    /// Triangles those draws held.
    pub fn triangles_last_frame(&self) -> u64 {
        self.triangles_last_frame
    }

    /// Records the blocks pass ("blocks", labelled and timed) into the frame being recorded:
    /// `target` and `depth` are loaded as an earlier pass of the frame left them (colour and
    /// depth attachment layouts) and stored. With `shadows` (the shadow maps' set of this
    /// frame) the blocks are drawn with the sun's shadows and the occlusion.
    pub fn record(
        &mut self,
        frames: &mut FrameRing,
        target: RenderTarget,
        depth: &Image,
        view: &Camera,
        shadows: Option<Sampled>,
    ) -> GpuResult<()> {
        let device = self.device.clone();
        // The regions' meshes, copied in by earlier submissions: vertices and indices.
        let reads = [BufferAccess::VertexAttributeRead, BufferAccess::IndexRead];
        let mut pass = frames
            .pass(PASS_NAME)
            .draws_into(&target, Load::Keep)
            .depth(depth, Load::Keep)
            .samples(shadows.as_slice())
            .reads(&reads)
            .draw(&device)?;
        let frustum = Frustum::of(view);
        let mut regions: Vec<_> = self
            .arena
            .iter()
            .filter(|(region, _)| {
                let (low, high) = region_box(**region);
                frustum.may_see_box(low, high)
            })
            .map(|(region, range)| {
                let (low, high) = region_box(*region);
                let middle = (low + high) * 0.5;
                ((middle - view.eye).mag_sq(), *region, *range)
            })
            .collect();
        // Nearest first, for early depth; ties by region, so the order is the same every run.
        regions.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
        let push = StructurePush::new(view, self.materials.slot());
        let layout = bind_material(
            &mut pass,
            (&self.pipeline, &self.layout),
            self.shadowed.as_ref(),
            self.bindless_set,
            shadows.map(|sampled| sampled.set),
        );
        pass.push(layout, &push);
        pass.bind_vertices(0, self.arena.vertex_buffer(), 0)?;
        pass.bind_indices(self.arena.index_buffer(), 0, vk::IndexType::UINT32)?;
        for (_, _, range) in &regions {
            let first = range.first_index();
            pass.draw_indexed(
                first..first + range.index_count(),
                range.vertex_offset(),
                0..1,
            )?;
        }
        drop(pass);
        self.draws_last_frame = regions.len() as u32;
        self.triangles_last_frame = regions
            .iter()
            .map(|(_, _, range)| u64::from(range.index_count() / 3))
            .sum();
        Ok(())
    }
}

/// The box a region's blocks may fill, in meters: its 32 m cube, and up to 2 m beyond its high
/// sides (a block's low cell is in the region, the rest may not be).
fn region_box(region: [i32; 3]) -> (Vec3, Vec3) {
    let size = REGION_CELLS as f32 * CELL;
    let low = Vec3::new(
        region[0] as f32 * size,
        region[1] as f32 * size,
        region[2] as f32 * size,
    );
    (low, low + Vec3::broadcast(size + REACH_BEYOND_REGION))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_region_box_holds_its_blocks_and_their_reach() {
        let (low, high) = region_box([1, -1, 0]);
        assert_eq!(low, Vec3::new(32.0, -32.0, 0.0));
        assert_eq!(high, Vec3::new(66.0, 2.0, 34.0));
    }
}
