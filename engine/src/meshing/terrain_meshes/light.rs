//! The light pass: the GPU's vertex light, recorded into the terrain meshes' frames. It reads
//! the vertex arena and a batch slot's light samples and writes the light arena, by the rule of
//! [`crate::meshing::vertex_light::blend`] (`engine/shaders/surface_nets_light.comp`), which the
//! GPU tests hold it to.

use std::sync::Arc;

use super::{ResidentChunk, LIGHT_PASS_NAME};
use crate::gpu::debug::label_colour;
use crate::gpu::descriptors::BufferSetLayout;
use crate::gpu::{vk, Buffer, Device, FrameRing, GpuError, Pipeline, PipelineLayout};
use crate::meshing::gpu::WORKGROUP_SIZE;
use crate::shaders::LIBRARY;

/// The light pass's shader.
const LIGHT_SHADER: &str = "surface_nets_light.comp";

/// The push constants of the light pass (`LightPush` in `engine/shaders/surface_nets_light.comp`).
#[repr(C)]
#[derive(Debug, Clone, Copy, Default, PartialEq, bytemuck::Pod, bytemuck::Zeroable)]
pub(crate) struct LightPush {
    /// Light grid samples per axis (w unused).
    pub(crate) dims: [i32; 4],
    pub(crate) first_vertex: u32,
    pub(crate) vertex_count: u32,
    /// 1: blend the light samples; 0: every vertex gets `constant_light`.
    pub(crate) from_grid: u32,
    pub(crate) constant_light: f32,
}

/// The light pass: reads the vertex arena and a batch slot's light samples, writes the light
/// arena.
pub(crate) struct LightPass {
    /// Owns the pool of `sets`.
    _set_layout: BufferSetLayout,
    layout: PipelineLayout,
    pipeline: Pipeline,
    /// One per batch slot: the vertex arena, the slot's light samples, the light arena.
    sets: Vec<vk::DescriptorSet>,
}

impl LightPass {
    pub(crate) fn new(
        device: &Arc<Device>,
        vertex_buffer: &Buffer,
        light_samples: &[&Buffer],
        light_buffer: &Buffer,
    ) -> Result<Self, GpuError> {
        let set_layout = BufferSetLayout::new(
            device,
            LIGHT_PASS_NAME,
            &[vk::DescriptorType::STORAGE_BUFFER; 3],
            vk::ShaderStageFlags::COMPUTE,
            light_samples.len() as u32,
        )?;
        let layout = PipelineLayout::new(
            device,
            LIGHT_PASS_NAME,
            &[set_layout.raw],
            std::mem::size_of::<LightPush>() as u32,
            vk::ShaderStageFlags::COMPUTE,
        )?;
        let pipeline = Pipeline::compute(
            device,
            &layout,
            LIGHT_PASS_NAME,
            &LIBRARY.get(LIGHT_SHADER, device.shader_target())?,
        )?;
        let sets = light_samples
            .iter()
            .enumerate()
            .map(|(slot, samples)| {
                set_layout.allocate(
                    &format!("{LIGHT_PASS_NAME}: buffers {slot}"),
                    &[vertex_buffer, samples, light_buffer],
                )
            })
            .collect::<Result<Vec<_>, _>>()?;
        Ok(Self {
            _set_layout: set_layout,
            layout,
            pipeline,
            sets,
        })
    }

    /// Records one labelled, timed pass over every `(batch slot, push)` of `lights`: each
    /// chunk's vertices lit from its slot's light samples. The caller orders the vertex and
    /// light-sample writes before it and its light writes before their readers.
    pub(crate) fn record(
        &self,
        device: &Device,
        frames: &mut FrameRing,
        lights: &[(usize, LightPush)],
    ) {
        let command_buffer = frames.command_buffer();
        frames.begin_pass_coloured(LIGHT_PASS_NAME, label_colour::COMPUTE);
        self.pipeline.bind(command_buffer);
        for (slot, push) in lights {
            // SAFETY: recording; the sets and layout live as long as the meshes, which keep
            // them until their last submission finishes.
            unsafe {
                device.raw.cmd_bind_descriptor_sets(
                    command_buffer,
                    vk::PipelineBindPoint::COMPUTE,
                    self.layout.raw,
                    0,
                    &[self.sets[*slot]],
                    &[],
                );
            }
            self.layout.push(command_buffer, push);
            let groups = push.vertex_count.div_ceil(WORKGROUP_SIZE);
            // SAFETY: recording with a compute pipeline of this layout bound, its set bound.
            unsafe { device.raw.cmd_dispatch(command_buffer, groups, 1, 1) };
        }
        frames.end_pass();
    }
}

/// The light pass over `chunk`'s vertices, blending a light grid of `dims` samples or, without
/// one, lighting every vertex fully.
pub(crate) fn light_push(chunk: ResidentChunk, dims: [usize; 3], from_grid: bool) -> LightPush {
    LightPush {
        dims: [dims[0] as i32, dims[1] as i32, dims[2] as i32, 0],
        first_vertex: chunk.vertices.offset as u32,
        vertex_count: chunk.vertices.size as u32,
        from_grid: u32::from(from_grid),
        constant_light: 1.0,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_light_push_constants_are_the_shaders() {
        // `LightPush` in engine/shaders/surface_nets_light.comp: an ivec4, then three uints
        // and a float, std430-packed.
        assert_eq!(std::mem::size_of::<LightPush>(), 32);
        assert_eq!(std::mem::offset_of!(LightPush, first_vertex), 16);
        assert_eq!(std::mem::offset_of!(LightPush, vertex_count), 20);
        assert_eq!(std::mem::offset_of!(LightPush, from_grid), 24);
        assert_eq!(std::mem::offset_of!(LightPush, constant_light), 28);
    }
}
