//! The terrain on screen: every chunk of a [`TerrainMeshes`] drawn from its arenas with the
//! terrain material of `shaders/terrain.frag`, culled on the GPU and drawn in one call.
//!
//! ```text
//!   residency changes ──▶ chunk table (per frame in flight, host-visible: origin, spacing, box
//!   (meshes' journal)      per draw slot; only the changed slots rewritten)      `table`
//!   pass "terrain cull" ─▶ compute, one workgroup: every slot's box against the 6 planes and
//!                          the fog; visible slots' commands (firstInstance = slot) compacted,
//!                          nearest first, + count + indices drawn                `cull`
//!   pass "terrain"      ─▶ ONE vkCmdDrawIndexedIndirectCount over the compacted commands
//!   (fallback, no drawIndirectCount: the CPU culls and sorts, one vkCmdDrawIndexed per chunk)
//! ```
//!
//! * **Geometry**: binding 0 is the vertex arena (position xyz, normal xyz, in the chunk's
//!   padded-grid units), binding 1 the light arena, the index buffer the index arena (indices
//!   relative to the chunk's first vertex, which the draw's `vertexOffset` adds). Binding 2 is
//!   the frame's chunk table (`table`), one entry per instance: a draw's `firstInstance` is its
//!   chunk's draw slot, so `terrain.vert` reads the chunk's padded origin and spacing
//!   ([`ChunkCoord::padded_origin`](blockfall_game::terrain::chunks::ChunkCoord::padded_origin),
//!   `spacing`) and moves the vertices to the world. The push constants are the same for every
//!   chunk (view, fog, sky, marker, the texture array's slot).
//! * **Culling and draws, on the GPU** (where the device has `drawIndirectCount`,
//!   `multiDrawIndirect` and `drawIndirectFirstInstance`, unless
//!   [`TerrainRenderer::set_gpu_culling`] turned it off): the compute pass "terrain cull"
//!   (`cull`, `shaders/terrain_cull.comp`) tests each draw slot's chunk box against the view's
//!   frustum and the complete fog (the rule of [`Frustum::may_see_box`], on normalised planes,
//!   erring half a millimetre toward drawing) and writes the visible chunks' commands, copied
//!   from the slots the meshing wrote, into a compacted per-frame list with its count; the pass
//!   "terrain" draws it with ONE `vkCmdDrawIndexedIndirectCount`. **Nearest first** survives
//!   (early depth rejects most hidden fragments; the material's 12 texture reads are the frame's
//!   cost on a CPU rasteriser): the cull puts each visible chunk in one of 256 distance rings
//!   (finer near the eye, under 2 m wide within 16 m) and lays the rings out in order; within
//!   a ring the order is the atomics', which can only change which of two surfaces at exactly
//!   the same depth wins a pixel. The frame graph orders the cull's writes before the draw's
//!   indirect and vertex reads (its pass declares them: `PassBuilder::writes`). The CPU's part is a few push
//!   constants and the chunk table's changed entries: it does not grow with the resident
//!   chunks.
//! * **Fallback** (no `drawIndirectCount`, or forced): the CPU culls by the same rule
//!   (`culling`), sorts the visible chunks nearest first and records one `vkCmdDrawIndexed` per
//!   chunk from its ranges ([`ResidentChunk`](blockfall_engine::meshing::terrain_meshes::ResidentChunk)),
//!   `firstInstance` = its slot: the same shaders, the same picture.
//! * **Statistics**: [`TerrainRenderer::draws_last_frame`] is the draw calls recorded (1 on the
//!   GPU path); [`TerrainRenderer::chunks_drawn`] and [`TerrainRenderer::triangles_last_frame`]
//!   are counted by the cull on the GPU and read back when the frame slot comes round again —
//!   they describe the frame recorded `FRAMES_IN_FLIGHT` (2) frames earlier
//!   ([`TerrainRenderer::refresh_counts`] reads the last one's after a wait); on the fallback
//!   path they are this frame's. [`TerrainRenderer::cpu_time_last_frame`] is what the terrain's
//!   cull and recording cost the CPU (`bench frames`).
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
//!   the terrain stays filled. It, the filled and the shadowed pipelines share the vertex input.

mod cull;
mod culling;
mod look;
mod setup;
mod table;

use std::sync::Arc;
use std::time::{Duration, Instant};

use ash::vk;
use blockfall_engine::gpu::{
    self, BoundTexture, BufferAccess, FrameRing, GpuResult, Image, Load, Pipeline, PipelineLayout,
    Sampled, TextureSlot,
};
use blockfall_engine::meshing::terrain_meshes::DRAW_BYTES;
use blockfall_engine::meshing::TerrainMeshes;

use super::frustum::Frustum;
use super::pass::ShadowedPipeline;
use super::target::{DepthTarget, RenderTarget};
use blockfall_game::camera::Camera;
use cull::GpuCull;
use culling::{distance_squared, may_see_chunk};
use table::ChunkTable;

pub use cull::{CullCounts, CULL_PASS_NAME};
pub use look::{push_constants, sky_colour, TerrainLook, TerrainPush, WORLD_SKY};
pub use table::{ChunkEntry, ENTRY_BYTES};

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
    /// Each draw slot's chunk, per frame in flight.
    table: ChunkTable,
    /// The cull on the GPU and its outputs.
    cull: GpuCull,
    /// Whether the next frames cull on the GPU (only where the device can).
    gpu_culling: bool,
    draws_last_frame: u32,
    chunks_drawn: u32,
    triangles_last_frame: u64,
    /// What the pass clears the colour target to: the sky ([`WORLD_SKY`]), or [`DEBUG_SKY`].
    clear_colour: [f32; 3],
    cpu_time_last_frame: Duration,
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

    /// Whether the device can cull on the GPU and draw the terrain in one indirect draw with a
    /// count (`drawIndirectCount`, `multiDrawIndirect`, `drawIndirectFirstInstance`).
    pub fn gpu_culling_supported(&self) -> bool {
        setup::gpu_culling_available(&self.device)
    }

    /// Whether the next frames cull on the GPU.
    pub fn gpu_culling(&self) -> bool {
        self.gpu_culling
    }

    /// Culls on the GPU (one draw call) or on the CPU (the fallback: one draw per chunk in
    /// view) from the next frame on; returns whether the GPU culls, which it cannot where the
    /// device lacks [`TerrainRenderer::gpu_culling_supported`]. For tests and measurements.
    pub fn set_gpu_culling(&mut self, on: bool) -> bool {
        self.gpu_culling = on && self.gpu_culling_supported();
        self.gpu_culling
    }

    /// The depth image the last [`TerrainRenderer::record`] drew into and stored (`None` before
    /// the first frame): the passes after the terrain's test against it and write into it
    /// (with `Load::Keep`). It is in depth-attachment layout after the pass.
    pub fn depth(&self) -> Option<&Image> {
        self.depth.current()
    }

    /// Draw calls recorded in the last frame: 1 culling on the GPU (0 with no resident chunk),
    /// else one per resident chunk in view.
    pub fn draws_last_frame(&self) -> u32 {
        self.draws_last_frame
    }

    /// Chunks drawn: on the GPU path as the cull counted them in the frame recorded
    /// `FRAMES_IN_FLIGHT` frames before the last (read back when its slot came round; see
    /// [`TerrainRenderer::refresh_counts`]), on the fallback path in the last frame.
    pub fn chunks_drawn(&self) -> u32 {
        self.chunks_drawn
    }

    /// Triangles drawn, as [`TerrainRenderer::chunks_drawn`] counts chunks.
    pub fn triangles_last_frame(&self) -> u64 {
        self.triangles_last_frame
    }

    /// The CPU time the last [`TerrainRenderer::record`] took: the terrain's culling (the
    /// chunk table brought up to date and the cull recorded, or the CPU's culling and sorting)
    /// and its recording.
    pub fn cpu_time_last_frame(&self) -> Duration {
        self.cpu_time_last_frame
    }

    /// Reads the GPU cull's counts of the last recorded frame into
    /// [`TerrainRenderer::chunks_drawn`] and [`TerrainRenderer::triangles_last_frame`]; call
    /// once that frame has finished (after `FrameRing::wait_all`). Returns them (`None` on the
    /// fallback path or before any GPU cull).
    pub fn refresh_counts(&mut self) -> Option<CullCounts> {
        if !self.gpu_culling {
            return None;
        }
        let counts = self.cull.last_counts()?;
        self.take_counts(counts);
        Some(counts)
    }

    fn take_counts(&mut self, counts: CullCounts) {
        self.chunks_drawn = counts.chunks;
        self.triangles_last_frame = u64::from(counts.indices) / 3;
    }

    /// Records the terrain's work into the frame being recorded: with GPU culling the pass
    /// "terrain cull" (compute), then the pass "terrain" (both labelled and timed). The target
    /// goes from undefined to colour attachment, cleared to the sky, and is left as a colour
    /// attachment; the depth image ([`TerrainRenderer::depth`]) is cleared, written and stored
    /// for the passes after this one. Also records `meshes`' pending draw-slot clears before
    /// anything reads the slots. With `shadows` (the shadow maps' set of this frame,
    /// `render::shadows`) the filled terrain is drawn with the sun's shadows.
    pub fn record(
        &mut self,
        frames: &mut FrameRing,
        target: RenderTarget,
        meshes: &mut TerrainMeshes,
        view: &Camera,
        shadows: Option<Sampled>,
    ) -> GpuResult<()> {
        let start = Instant::now();
        let device = self.device.clone();
        let slot = frames.slot();
        // The chunk table of this frame slot: as many entries written as slots changed.
        if self.table.update(slot, meshes)? {
            self.cull.remake(&self.table, meshes)?;
        }
        let gpu_culling = self.gpu_culling;
        if gpu_culling {
            // This slot's last cull has finished: its counts are two frames old.
            if let Some(counts) = self.cull.counts(slot) {
                self.take_counts(counts);
            }
            self.cull.record(frames, meshes, view)?;
        }

        if !gpu_culling {
            meshes.record_pending_clears(frames.command_buffer());
        }
        let depth = self.depth.ensure(frames, target.width, target.height)?;
        // The meshes' arenas: written by the meshing's copies and compute in earlier
        // submissions (and the clears), read as vertices, light and indices; the cull's
        // commands and count, written by the compute pass above, as indirect commands.
        let mut pass = frames
            .pass(PASS_NAME)
            .draws_into(&target, Load::Clear(self.clear_colour))
            .depth(depth, Load::Clear(1.0))
            .samples(shadows.as_slice())
            .reads(&[
                BufferAccess::IndirectRead,
                BufferAccess::IndexRead,
                BufferAccess::VertexAttributeRead,
            ])
            .draw(&device)?;
        let shadows = shadows.map(|sampled| sampled.set);
        let (pipeline, layout, shadow_set) =
            match (&self.wireframe, self.wireframe_on, &self.shadowed, shadows) {
                (Some(wireframe), true, _, _) => (wireframe, &self.layout, None),
                (_, _, Some(shadowed), Some(set)) => {
                    (&shadowed.pipeline, &shadowed.layout, Some(set))
                }
                _ => (&self.fill, &self.layout, None),
            };
        // The arenas live as long as `meshes` (which waits for its own submissions, and whose
        // meshing frames made their writes visible to indirect, index and vertex reads); the
        // table and the cull's outputs are this frame slot's; a replaced depth image is
        // retired into the frame ring.
        pass.bind_pipeline(pipeline);
        pass.bind_set(layout, self.bindless_set);
        if let Some(set) = shadow_set {
            pass.bind_set_at(layout, 1, set);
        }
        pass.push(
            layout,
            &push_constants(view, &self.look, self.texture.slot()),
        );
        pass.bind_vertices(0, meshes.vertex_buffer(), 0)?;
        pass.bind_vertices(1, meshes.light_buffer(), 0)?;
        pass.bind_vertices(2, self.table.buffer(slot)?, 0)?;
        pass.bind_indices(meshes.index_buffer(), 0, vk::IndexType::UINT32)?;
        if gpu_culling {
            let (commands, counts) = self.cull.outputs(slot)?;
            let max_draws = meshes.draw_count();
            pass.draw_indexed_indirect_count(
                (commands, 0),
                (counts, 0),
                max_draws,
                DRAW_BYTES as u32,
            )?;
            self.draws_last_frame = u32::from(max_draws > 0);
        } else {
            // Nearest first, as the GPU's rings order them; chunks wholly outside the view, or
            // wholly in the complete fog, are not drawn.
            let frustum = Frustum::of(view);
            let mut chunks: Vec<_> = meshes
                .chunks()
                .filter(|(key, _)| may_see_chunk(&frustum, *key))
                .map(|(key, chunk)| (distance_squared(view.eye, key), chunk))
                .collect();
            chunks.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.slot.cmp(&b.1.slot)));
            for (_, chunk) in &chunks {
                let first = chunk.indices.offset as u32;
                pass.draw_indexed(
                    first..first + chunk.indices.size as u32,
                    chunk.vertices.offset as i32,
                    chunk.slot..chunk.slot + 1,
                )?;
            }
            self.draws_last_frame = chunks.len() as u32;
            self.chunks_drawn = chunks.len() as u32;
            self.triangles_last_frame =
                chunks.iter().map(|(_, chunk)| chunk.indices.size / 3).sum();
        }
        drop(pass);
        self.cpu_time_last_frame = start.elapsed();
        Ok(())
    }
}
