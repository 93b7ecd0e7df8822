//! The terrain on screen: every chunk of a [`TerrainMeshes`] drawn from its arenas through the
//! draw commands the GPU wrote, with the terrain material of `shaders/terrain.frag`.
//!
//! * **Geometry**: binding 0 is the vertex arena (position xyz, normal xyz, in the chunk's
//!   padded-grid units), the index buffer the index arena (indices relative to the chunk's first
//!   vertex, which the draw's `vertexOffset` adds). Each chunk's vertices are moved to the world
//!   by its padded origin
//!   ([`ChunkCoord::padded_origin`](crate::terrain::chunks::ChunkCoord::padded_origin)), which
//!   the draw's push constants carry.
//! * **Draws**: one `vkCmdDrawIndexedIndirect` per resident chunk in view, reading the command
//!   the GPU wrote into the chunk's slot, nearest chunk first (so that early depth rejects most
//!   hidden fragments). Chunks wholly outside the [`Camera`]'s frustum or wholly in the
//!   complete fog are not drawn: about two thirds of the resident chunks at the start. A single
//!   indirect draw over every slot (`multiDrawIndirect`, the origin looked up by
//!   `gl_InstanceIndex`) would draw them all; culling on the GPU (a compute pass writing a
//!   compacted command list and a count for `vkCmdDrawIndexedIndirectCount`) is the step that
//!   would make one call pay.
//! * **Material**: triplanar (weights `|n|⁴`, one repeat per 4 m) from the terrain texture array
//!   ([`terrain_array`](super::textures::terrain_array)) in the bindless table; rock on steep
//!   faces, grass on flat high ground, sand on flat low ground, dirt in between, blended
//!   smoothly ([`TerrainLook`]).
//! * **Light**: the sun from the upper right of the first view plus the sky's ambient light,
//!   both scaled by the sky light: binding 1 is the light arena (one float per vertex, at the
//!   vertex's index, so `vertexOffset` serves both bindings), which the compute pass blends from
//!   the chunk's light grid (`game::terrain::sky_light`, made on the CPU workers by
//!   `game::terrain::streaming`) at each vertex.
//! * **Fog**: toward the sky colour from half the view radius, complete at 95% of it (8 chunks:
//!   128 m to 243 m; the [`Camera`]'s fog distance; docs/terrain.md), so the edge of the loaded
//!   chunks is never seen.
//! * **Wireframe**: a second pipeline with `polygonMode = LINE`, only where the device has
//!   `fillModeNonSolid` turned on; otherwise [`TerrainRenderer::set_wireframe`] logs why and
//!   the terrain stays filled.

mod culling;
mod look;
mod setup;

use std::sync::Arc;

use ash::vk;
use blockfall_engine::gpu::{
    self, BoundTexture, BufferAccess, FrameRing, GpuResult, Image, Pipeline, PipelineLayout,
    TextureSlot,
};
use blockfall_engine::meshing::terrain_meshes::DRAW_BYTES;
use blockfall_engine::meshing::TerrainMeshes;

use super::frustum::Frustum;
use super::pass::ShadowedPipeline;
use super::target::{DepthTarget, RenderTarget};
use crate::camera::Camera;
use culling::{distance_squared, may_see_chunk};

pub use look::{push_constants, sky_colour, TerrainLook, TerrainPush, WORLD_SKY};

/// The sky's clear colour that makes holes in the terrain stand out (`--debug-sky`): magenta,
/// a colour neither the terrain nor its fog (the sky's colour) takes.
pub const DEBUG_SKY: [f32; 3] = [1.0, 0.0, 1.0];

/// The name of the frame pass (label and timing).
pub const PASS_NAME: &str = "terrain";

/// Draws the chunks of a [`TerrainMeshes`].
pub struct TerrainRenderer {
    device: Arc<gpu::Device>,
    layout: PipelineLayout,
    fill: Pipeline,
    /// `polygonMode = LINE`; `None` where the device lacks `fillModeNonSolid`.
    wireframe: Option<Pipeline>,
    wireframe_on: bool,
    /// The material with the sun's shadows, where made with the shadow maps' set layout.
    shadowed: Option<ShadowedPipeline>,
    /// The terrain's texture array in the bindless table (its slot freed when it drops).
    texture: BoundTexture,
    depth: DepthTarget,
    bindless_set: vk::DescriptorSet,
    look: TerrainLook,
    draws_last_frame: u32,
    triangles_last_frame: u64,
    /// What the pass clears the colour target to: the sky ([`WORLD_SKY`]), or [`DEBUG_SKY`].
    clear_colour: [f32; 3],
}

impl TerrainRenderer {
    /// The bindless slot of the terrain texture array.
    pub fn slot(&self) -> TextureSlot {
        self.texture.slot()
    }

    /// Where the layers go.
    pub fn look(&self) -> TerrainLook {
        self.look
    }

    /// Where the layers go from now on (a new world's ground).
    pub fn set_look(&mut self, look: TerrainLook) {
        self.look = look;
    }

    /// What the pass clears to from now on: the sky ([`WORLD_SKY`], the fog's colour too) or
    /// another colour, so that holes show ([`DEBUG_SKY`]).
    pub fn set_clear_colour(&mut self, colour: [f32; 3]) {
        self.clear_colour = colour;
    }

    /// Whether the device can draw the wireframe.
    pub fn wireframe_supported(&self) -> bool {
        self.wireframe.is_some()
    }

    /// Whether the next frames draw the wireframe.
    pub fn wireframe(&self) -> bool {
        self.wireframe_on
    }

    /// Turns the wireframe on or off; returns whether it is on. Where the device lacks
    /// `fillModeNonSolid` it stays off, with an error in the log.
    pub fn set_wireframe(&mut self, on: bool) -> bool {
        if on && self.wireframe.is_none() {
            log::error!(
                "terrain: wireframe needs the device feature fillModeNonSolid, which this \
                 device was created without; the terrain stays filled"
            );
            self.wireframe_on = false;
        } else {
            self.wireframe_on = on;
        }
        self.wireframe_on
    }

    /// The depth image the last [`TerrainRenderer::record`] drew into and stored (`None` before
    /// the first frame): the passes after the terrain's test against it and write into it
    /// (`super::target::begin_loaded`). It is in depth-attachment layout after the pass.
    pub fn depth(&self) -> Option<&Image> {
        self.depth.current()
    }

    /// Indirect draws recorded in the last frame: one per resident chunk in view.
    pub fn draws_last_frame(&self) -> u32 {
        self.draws_last_frame
    }

    /// Triangles those draws held.
    pub fn triangles_last_frame(&self) -> u64 {
        self.triangles_last_frame
    }

    /// Records the terrain pass ("terrain", labelled and timed) into the frame being recorded:
    /// the target goes from undefined to colour attachment, cleared to the sky, and is left as
    /// a colour attachment; the depth image ([`TerrainRenderer::depth`]) is cleared, written and
    /// stored for the passes after this one. Also records `meshes`' pending draw-slot clears before drawing.
    /// With `shadows` (the shadow maps' set of this frame, `render::shadows`) the filled
    /// terrain is drawn with the sun's shadows.
    pub fn record(
        &mut self,
        frames: &mut FrameRing,
        target: RenderTarget,
        meshes: &mut TerrainMeshes,
        view: &Camera,
        shadows: Option<vk::DescriptorSet>,
    ) -> GpuResult<()> {
        let device = self.device.clone();
        let command_buffer = frames.command_buffer();

        frames.begin_pass(PASS_NAME);
        meshes.record_pending_clears(command_buffer);
        let depth = self.depth.ensure(frames, target.width, target.height)?;
        // The meshes' arenas: written by the meshing's copies and compute in earlier
        // submissions (and the clears just above), read as vertices, light, indices and draws.
        let mut pass = super::target::begin_colour_and_depth(
            &device,
            frames,
            &target,
            depth,
            self.clear_colour,
            &[
                BufferAccess::IndirectRead,
                BufferAccess::IndexRead,
                BufferAccess::VertexAttributeRead,
            ],
        )?;
        let (pipeline, layout, shadow_set) =
            match (&self.wireframe, self.wireframe_on, &self.shadowed, shadows) {
                (Some(wireframe), true, _, _) => (wireframe, &self.layout, None),
                (_, _, Some(shadowed), Some(set)) => {
                    (&shadowed.pipeline, &shadowed.layout, Some(set))
                }
                _ => (&self.fill, &self.layout, None),
            };
        // Nearest first: the depth test then rejects most hidden fragments before they are
        // shaded (the material's 12 texture reads are the frame's cost on a CPU rasteriser).
        // Chunks wholly outside the view, or wholly in the complete fog, are not drawn.
        let frustum = Frustum::of(view);
        let mut chunks: Vec<_> = meshes
            .chunks()
            .filter(|(key, _)| may_see_chunk(&frustum, *key))
            .map(|(key, chunk)| (distance_squared(view.eye, key), key, chunk))
            .collect();
        chunks.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.2.slot.cmp(&b.2.slot)));
        // The arenas and draw slots live as long as `meshes` (which waits for its own
        // submissions, and whose meshing frames made their writes visible to indirect, index
        // and vertex reads); a replaced depth image is retired into the frame ring. Every draw
        // reads one slot (drawCount 1).
        pass.bind_pipeline(pipeline);
        pass.bind_set(layout, self.bindless_set);
        if let Some(set) = shadow_set {
            pass.bind_set_at(layout, 1, set);
        }
        pass.bind_vertices(0, meshes.vertex_buffer(), 0)?;
        pass.bind_vertices(1, meshes.light_buffer(), 0)?;
        pass.bind_indices(meshes.index_buffer(), 0, vk::IndexType::UINT32)?;
        for (_, key, chunk) in &chunks {
            pass.push(
                layout,
                &push_constants(view, &self.look, self.texture.slot(), *key),
            );
            pass.draw_indexed_indirect(
                meshes.draw_buffer(),
                u64::from(chunk.slot) * DRAW_BYTES,
                1,
                DRAW_BYTES as u32,
            )?;
        }
        drop(pass);
        self.draws_last_frame = chunks.len() as u32;
        self.triangles_last_frame = chunks
            .iter()
            .map(|(_, _, chunk)| chunk.indices.size / 3)
            .sum();
        frames.end_pass();
        Ok(())
    }
}
