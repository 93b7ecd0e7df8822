//! The terrain's culling on the GPU: the compute pass "terrain cull" (`terrain_cull.comp`)
//! tests every draw slot's chunk (its box from the chunk table) against the view's six planes
//! and the complete fog, and writes the visible chunks' draw commands — copied from their slots,
//! `firstInstance` = the slot — nearest first into a compacted list with its count, which the
//! terrain pass draws with ONE `vkCmdDrawIndexedIndirectCount`.
//!
//! ```text
//!   chunk table (frame's) ─┐
//!   draw slots (meshes)  ──┼─ terrain cull (1 workgroup) ─▶ commands [ nearest … farthest ]
//!                          │                               counts   [ draws, indices, slots ]
//!   push: planes, eye, fog ┘      frame graph: ComputeWrite → IndirectRead, vertex reads
//! ```
//!
//! Per frame in flight: the commands, the ranks (the shader's scratch), and the counts in
//! host-readable memory, which the CPU reads when the frame slot comes round again (its frame
//! has finished then): the chunks and triangles drawn are those of the frame recorded
//! [`FRAMES_IN_FLIGHT`] frames earlier, or of the last recorded one after a wait
//! ([`GpuCull::last_counts`]).

use std::sync::Arc;

use ash::vk;
use blockfall_engine::gpu::descriptors::BufferSetLayout;
use blockfall_engine::gpu::{
    self, Buffer, BufferAccess, BufferDesc, FrameRing, GpuResult, MemoryLocation, Pipeline,
    PipelineLayout, ShaderLibrary, FRAMES_IN_FLIGHT,
};
use blockfall_engine::meshing::terrain_meshes::DRAW_BYTES;
use blockfall_engine::meshing::TerrainMeshes;

use super::culling::normalised_planes;
use super::table::ChunkTable;
use crate::frustum::Frustum;
use blockfall_game::camera::Camera;

/// The name of the compute pass (label and timing).
pub const CULL_PASS_NAME: &str = "terrain cull";

/// The push constants of `terrain_cull.comp`: 128 bytes.
#[repr(C)]
#[derive(Debug, Clone, Copy, bytemuck::Pod, bytemuck::Zeroable)]
struct CullPush {
    planes: [[f32; 4]; 6],
    /// xyz: the eye; w: the fog's complete distance.
    eye: [f32; 4],
    /// x: the slots to test.
    sizes: [u32; 4],
}

/// What a cull counted: the chunks it let through and their indices, of how many slots.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct CullCounts {
    pub chunks: u32,
    pub indices: u32,
    pub slots: u32,
}

const BINDINGS: [vk::DescriptorType; 5] = [vk::DescriptorType::STORAGE_BUFFER; 5];

/// One frame slot's output.
struct CullFrame {
    commands: Buffer,
    _ranks: Buffer,
    counts: Buffer,
    set: vk::DescriptorSet,
    /// Whether a frame of this slot recorded a cull (its counts mean something once it ran).
    recorded: bool,
}

/// The frame slots' outputs and their sets, for one [`TerrainMeshes`] and its tables.
struct CullFrames {
    /// The pool of the sets (an identical layout to the pipeline's).
    _sets: BufferSetLayout,
    frames: Vec<CullFrame>,
}

/// The cull's pipeline and its per-frame outputs.
pub(super) struct GpuCull {
    device: Arc<gpu::Device>,
    /// The pipeline layout's set layout (its own pool unused).
    _set_layout: BufferSetLayout,
    layout: PipelineLayout,
    pipeline: Pipeline,
    frames: Option<CullFrames>,
    /// The frame slot of the last recorded cull.
    last_slot: Option<usize>,
}

impl GpuCull {
    pub(super) fn new(device: &Arc<gpu::Device>, shaders: &ShaderLibrary) -> GpuResult<Self> {
        let set_layout = BufferSetLayout::new(
            device,
            "terrain cull",
            &BINDINGS,
            vk::ShaderStageFlags::COMPUTE,
            1,
        )?;
        let layout = PipelineLayout::new(
            device,
            "terrain cull",
            &[set_layout.raw],
            std::mem::size_of::<CullPush>() as u32,
            vk::ShaderStageFlags::COMPUTE,
        )?;
        let words = shaders.get("terrain_cull.comp", device.shader_target())?;
        let pipeline = Pipeline::compute(device, &layout, "terrain cull", &words)?;
        Ok(Self {
            device: device.clone(),
            _set_layout: set_layout,
            layout,
            pipeline,
            frames: None,
            last_slot: None,
        })
    }

    /// Makes the outputs and sets anew for `meshes` and `table` (just made for them).
    pub(super) fn remake(&mut self, table: &ChunkTable, meshes: &TerrainMeshes) -> GpuResult<()> {
        self.frames = None;
        self.last_slot = None;
        let slots = u64::from(meshes.max_chunks().max(1));
        let sets = BufferSetLayout::new(
            &self.device,
            "terrain cull sets",
            &BINDINGS,
            vk::ShaderStageFlags::COMPUTE,
            FRAMES_IN_FLIGHT as u32,
        )?;
        let storage = vk::BufferUsageFlags::STORAGE_BUFFER;
        let indirect = vk::BufferUsageFlags::INDIRECT_BUFFER;
        let mut frames = Vec::with_capacity(FRAMES_IN_FLIGHT);
        for frame in 0..FRAMES_IN_FLIGHT {
            let buffer = |what: &str, size, usage, location| {
                Buffer::new(
                    &self.device,
                    &BufferDesc {
                        name: &format!("terrain cull: {what}, frame {frame}"),
                        size,
                        usage,
                        location,
                    },
                )
            };
            let commands = buffer(
                "commands",
                slots * DRAW_BYTES,
                storage | indirect,
                MemoryLocation::GpuOnly,
            )?;
            let ranks = buffer("ranks", slots * 4, storage, MemoryLocation::GpuOnly)?;
            let counts = buffer("counts", 16, storage | indirect, MemoryLocation::GpuToCpu)?;
            let set = sets.allocate(
                &format!("terrain cull: set, frame {frame}"),
                &[
                    table.buffer(frame)?,
                    meshes.draw_buffer(),
                    &commands,
                    &ranks,
                    &counts,
                ],
            )?;
            frames.push(CullFrame {
                commands,
                _ranks: ranks,
                counts,
                set,
                recorded: false,
            });
        }
        self.frames = Some(CullFrames {
            _sets: sets,
            frames,
        });
        Ok(())
    }

    fn frame(&self, slot: usize) -> GpuResult<&CullFrame> {
        self.frames
            .as_ref()
            .and_then(|frames| frames.frames.get(slot))
            .ok_or_else(|| gpu::GpuError::Invalid("terrain cull: no outputs made".into()))
    }

    /// What the cull of frame slot `slot` counted, if one was recorded there: valid once that
    /// frame has finished (when the slot comes round again, or after a wait).
    pub(super) fn counts(&self, slot: usize) -> Option<CullCounts> {
        let frame = self.frame(slot).ok().filter(|frame| frame.recorded)?;
        let words: Vec<u32> = frame.counts.read().ok()?;
        Some(CullCounts {
            chunks: *words.first()?,
            indices: *words.get(1)?,
            slots: *words.get(2)?,
        })
    }

    /// What the last recorded cull counted; valid once its frame has finished
    /// (`FrameRing::wait_all`).
    pub(super) fn last_counts(&self) -> Option<CullCounts> {
        self.counts(self.last_slot?)
    }

    /// Records the pass "terrain cull" into the frame being recorded: `meshes`' pending slot
    /// clears, then the cull of its first [`TerrainMeshes::draw_count`] slots for `view` into
    /// this frame slot's commands and counts (the chunk table must be up to date for the slot).
    pub(super) fn record(
        &mut self,
        frames: &mut FrameRing,
        meshes: &mut TerrainMeshes,
        view: &Camera,
    ) -> GpuResult<()> {
        let slot = frames.slot();
        let frustum = Frustum::of(view);
        let push = CullPush {
            planes: normalised_planes(&frustum),
            eye: [view.eye.x, view.eye.y, view.eye.z, view.fog_distance],
            sizes: [meshes.draw_count(), 0, 0, 0],
        };
        // Zeroed slots of unloaded chunks before the cull reads them (the clears carry their
        // own barriers).
        meshes.record_pending_clears(frames.command_buffer());
        let device = self.device.clone();
        let set = self.frame(slot)?.set;
        // The draw slots were written by the meshing's compute passes (earlier submissions) and
        // the clears; the table by the CPU (visible at submission). Writes: the frame slot's
        // own outputs, which its finished earlier frame last used.
        let mut pass = frames
            .pass(CULL_PASS_NAME)
            .reads(&[BufferAccess::ComputeRead])
            .writes(&[BufferAccess::ComputeWrite])
            .compute(&device)?;
        pass.bind_pipeline(&self.pipeline)?;
        pass.bind_set_at(&self.layout, 0, set);
        pass.push(&self.layout, &push);
        pass.dispatch([1, 1, 1])?;
        drop(pass);
        if let Some(frames) = self.frames.as_mut() {
            frames.frames[slot].recorded = true;
        }
        self.last_slot = Some(slot);
        Ok(())
    }

    /// Frame slot `slot`'s compacted commands and counts (the draw count at byte 0).
    pub(super) fn outputs(&self, slot: usize) -> GpuResult<(&Buffer, &Buffer)> {
        let frame = self.frame(slot)?;
        Ok((&frame.commands, &frame.counts))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_push_constants_fit_the_guaranteed_minimum() {
        assert_eq!(std::mem::size_of::<CullPush>(), 128);
    }
}
