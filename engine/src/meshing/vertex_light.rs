//! Light per vertex: a light grid (one value per density sample; the game's is its sky light)
//! blended trilinearly at each vertex of a chunk's mesh. [`blend`] is the rule, on the CPU; the
//! light pass (`engine/shaders/surface_nets_light.comp`, recorded by `LightPass`) does the same
//! on the GPU, operation for operation, into the terrain meshes' light arena, and the GPU tests
//! hold it to [`blend`]. The game lights blocks and pieces with [`blend`] too, so everything at
//! one place gets the same light.
//!
//! ```text
//!   local = clamp(p, 0, dims - 1)            p: grid units from sample (0, 0, 0)
//!   low   = min(floor(local), dims - 2)      the cell's lowest corner (the last cell at the end)
//!   f     = local - low                      in [0, 1] per axis
//!   lerp in x, then y, then z, each a + (b - a) t
//! ```

use std::sync::Arc;

use crate::gpu::debug::label_colour;
use crate::gpu::descriptors::BufferSetLayout;
use crate::gpu::{vk, Buffer, Device, FrameRing, GpuError, Pipeline, PipelineLayout};
use crate::shaders::LIBRARY;

use super::gpu::WORKGROUP_SIZE;
use super::terrain_meshes::{ResidentChunk, LIGHT_PASS_NAME};

/// The light pass's shader.
const LIGHT_SHADER: &str = "surface_nets_light.comp";

/// The trilinear blend of a light grid of `dims` samples (x fastest) at `point`, in grid units
/// from sample (0, 0, 0); points outside the grid take the nearest place inside it. A grid with
/// fewer than 2 samples on an axis, too few samples, or a point that is not finite gives 0.
pub fn blend(light: &[f32], dims: [usize; 3], point: [f32; 3]) -> f32 {
    let samples = dims.iter().try_fold(1usize, |n, &d| n.checked_mul(d));
    if dims.iter().any(|&d| d < 2)
        || samples.is_none_or(|n| n > light.len())
        || !point.iter().all(|c| c.is_finite())
    {
        return 0.0;
    }
    let local: [f32; 3] =
        std::array::from_fn(|axis| point[axis].clamp(0.0, (dims[axis] - 1) as f32));
    let low: [usize; 3] =
        std::array::from_fn(|axis| (local[axis].floor() as usize).min(dims[axis] - 2));
    let [fx, fy, fz]: [f32; 3] = std::array::from_fn(|axis| local[axis] - low[axis] as f32);
    let at = |i: usize, j: usize, k: usize| {
        light[(low[0] + i) + dims[0] * ((low[1] + j) + dims[1] * (low[2] + k))]
    };
    let lerp = |a: f32, b: f32, t: f32| a + (b - a) * t;
    lerp(
        lerp(
            lerp(at(0, 0, 0), at(1, 0, 0), fx),
            lerp(at(0, 1, 0), at(1, 1, 0), fx),
            fy,
        ),
        lerp(
            lerp(at(0, 0, 1), at(1, 0, 1), fx),
            lerp(at(0, 1, 1), at(1, 1, 1), fx),
            fy,
        ),
        fz,
    )
}

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

    /// A grid whose value is x + 10 y + 100 z: trilinear blends reproduce it exactly inside.
    fn ramp(dims: [usize; 3]) -> Vec<f32> {
        let mut values = Vec::new();
        for z in 0..dims[2] {
            for y in 0..dims[1] {
                for x in 0..dims[0] {
                    values.push(x as f32 + 10.0 * y as f32 + 100.0 * z as f32);
                }
            }
        }
        values
    }

    #[test]
    fn a_linear_field_is_blended_exactly_and_samples_are_returned_as_they_are() {
        let dims = [4, 3, 5];
        let light = ramp(dims);
        assert_eq!(blend(&light, dims, [2.0, 1.0, 3.0]), 312.0);
        assert_eq!(blend(&light, dims, [0.5, 0.5, 0.5]), 55.5);
        assert_eq!(
            blend(&light, dims, [3.0, 2.0, 4.0]),
            423.0,
            "the last corner"
        );
    }

    #[test]
    fn points_outside_take_the_nearest_place_inside() {
        let dims = [3, 3, 3];
        let light = ramp(dims);
        assert_eq!(blend(&light, dims, [-5.0, 1.0, 1.0]), 110.0);
        assert_eq!(blend(&light, dims, [9.0, 9.0, 9.0]), 222.0);
    }

    #[test]
    fn bad_grids_and_points_give_zero_instead_of_a_panic() {
        let light = ramp([3, 3, 3]);
        assert_eq!(blend(&light, [1, 3, 3], [0.0; 3]), 0.0, "too thin");
        assert_eq!(blend(&light[..20], [3, 3, 3], [0.0; 3]), 0.0, "too short");
        assert_eq!(blend(&light, [3, 3, 3], [f32::NAN, 0.0, 0.0]), 0.0);
        assert_eq!(blend(&light, [usize::MAX, 2, 2], [0.0; 3]), 0.0, "overflow");
    }

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
