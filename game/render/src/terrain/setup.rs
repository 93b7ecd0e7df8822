//! The terrain pass's setup: its pipelines (filled, and the wireframe where the device can draw
//! it) and its texture array in the bindless table.

use ash::vk;
use blockfall_engine::gpu::pipeline::{vertex_attribute, vertex_binding};
use blockfall_engine::gpu::{
    self, Gpu, GpuResult, GraphicsPipelineDesc, ImageAccess, Pipeline, PipelineLayout,
    ShaderLibrary,
};
use blockfall_engine::meshing::terrain_meshes::{LIGHT_BYTES, VERTEX_BYTES};

use super::cull::GpuCull;
use super::table::{ChunkTable, ENTRY_BYTES};
use super::{TerrainLook, TerrainPush, TerrainRenderer};
use crate::pass::{bindless_pass, shadowed_pass, ShadowedPipeline};
use crate::target::{DepthTarget, DEPTH_FORMAT};
use crate::textures::terrain_array;

/// Texture size of a terrain layer.
const TEXTURE_SIZE: u32 = 256;

impl TerrainRenderer {
    /// Makes the pipelines and the terrain texture array (with mips), and puts the array into
    /// the bindless table. `colour_format` is the target's format; with `shadow_layout` (the
    /// shadow maps' set layout) the material with the sun's shadows too.
    pub fn new(
        gpu: &mut Gpu,
        shaders: &ShaderLibrary,
        colour_format: vk::Format,
        look: TerrainLook,
        shadow_layout: Option<vk::DescriptorSetLayout>,
    ) -> GpuResult<Self> {
        let device = gpu.device.clone();
        let pass = bindless_pass::<TerrainPush>(gpu, shaders, "terrain", "terrain")?;
        // Binding 2: the chunk table, one entry per instance (the draw's firstInstance is the
        // chunk's slot): its origin and spacing.
        let bindings = [
            vertex_binding(0, VERTEX_BYTES as usize, vk::VertexInputRate::VERTEX),
            vertex_binding(1, LIGHT_BYTES as usize, vk::VertexInputRate::VERTEX),
            vertex_binding(2, ENTRY_BYTES as usize, vk::VertexInputRate::INSTANCE),
        ];
        let attributes = [
            vertex_attribute(0, 0, vk::Format::R32G32B32_SFLOAT, 0),
            vertex_attribute(1, 0, vk::Format::R32G32B32_SFLOAT, 12),
            vertex_attribute(2, 1, vk::Format::R32_SFLOAT, 0),
            vertex_attribute(3, 2, vk::Format::R32G32B32A32_SFLOAT, 0),
        ];
        let colour_formats = [colour_format];
        let pipeline = |name: &str,
                        layout: &PipelineLayout,
                        fragment: &[u32],
                        polygon_mode: vk::PolygonMode| {
            Pipeline::graphics(
                &device,
                layout,
                &GraphicsPipelineDesc {
                    name,
                    vertex: &pass.vertex,
                    fragment,
                    vertex_bindings: &bindings,
                    vertex_attributes: &attributes,
                    topology: vk::PrimitiveTopology::TRIANGLE_LIST,
                    // Both sides: cave walls are seen from inside as well as from outside.
                    cull_mode: vk::CullModeFlags::NONE,
                    front_face: vk::FrontFace::COUNTER_CLOCKWISE,
                    polygon_mode,
                    color_formats: &colour_formats,
                    depth_format: Some(DEPTH_FORMAT),
                    depth_write: true,
                    blend: false,
                    depth_bias: None,
                },
            )
        };
        let fill = pipeline(
            "terrain: fill",
            &pass.layout,
            &pass.fragment,
            vk::PolygonMode::FILL,
        )?;
        let wireframe = if wireframe_available(&device) {
            Some(pipeline(
                "terrain: wireframe",
                &pass.layout,
                &pass.fragment,
                vk::PolygonMode::LINE,
            )?)
        } else {
            None
        };
        let shadowed = match shadow_layout {
            Some(shadow_layout) => {
                let (fragment, layout) = shadowed_pass::<TerrainPush>(
                    gpu,
                    shaders,
                    "terrain",
                    "terrain",
                    shadow_layout,
                )?;
                let pipeline = pipeline(
                    "terrain: fill, shadowed",
                    &layout,
                    &fragment,
                    vk::PolygonMode::FILL,
                )?;
                Some(ShadowedPipeline { layout, pipeline })
            }
            None => None,
        };

        let data = terrain_array(TEXTURE_SIZE);
        let texture = data.image(&device, "terrain texture array: grass, dirt, rock, sand")?;
        let mut batch = gpu.uploader.begin("terrain textures");
        batch.image(&texture, &data.bytes, ImageAccess::ShaderRead)?;
        let uploaded = batch.submit()?;
        device.wait_for(uploaded)?;
        let texture = gpu.bindless.bind(texture)?;

        Ok(Self {
            device,
            layout: pass.layout,
            fill,
            wireframe,
            shadowed,
            wireframe_on: false,
            texture,
            depth: DepthTarget::new(&gpu.device, "terrain: depth"),
            bindless_set: gpu.bindless.set,
            look,
            table: ChunkTable::new(&gpu.device),
            cull: GpuCull::new(&gpu.device, shaders)?,
            gpu_culling: gpu_culling_available(&gpu.device),
            draws_last_frame: 0,
            chunks_drawn: 0,
            triangles_last_frame: 0,
            clear_colour: super::WORLD_SKY,
            cpu_time_last_frame: std::time::Duration::ZERO,
        })
    }
}

/// Whether the terrain may be culled on the GPU and drawn in one indirect draw with a count:
/// the device has `drawIndirectCount`, `multiDrawIndirect` and `drawIndirectFirstInstance`
/// turned on (`engine::gpu::device` turns on what the adapter has).
pub(super) fn gpu_culling_available(device: &gpu::Device) -> bool {
    let adapter = &device.adapter;
    adapter.draw_indirect_count
        && adapter.multi_draw_indirect
        && adapter.draw_indirect_first_instance
}

/// Whether a `polygonMode = LINE` pipeline may be used: the device turns `fillModeNonSolid` on
/// where the adapter has it (see `engine::gpu::device`); where not, the log says so.
fn wireframe_available(device: &gpu::Device) -> bool {
    if !device.adapter.fill_mode_non_solid {
        log::warn!(
            "terrain: {} lacks fillModeNonSolid; the wireframe draws filled",
            device.adapter.name
        );
    }
    device.adapter.fill_mode_non_solid
}
