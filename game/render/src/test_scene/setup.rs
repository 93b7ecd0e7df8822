//! The test scene's setup: its pipeline, the cube mesh's buffers and the two texture arrays in
//! the bindless table.

use std::mem::size_of;

use ash::vk;
use blockfall_engine::gpu::pipeline::{vertex_attribute, vertex_binding};
use blockfall_engine::gpu::{
    self, Buffer, BufferDesc, Gpu, GpuResult, GraphicsPipelineDesc, Image, ImageAccess,
    MemoryLocation, Pipeline, ShaderLibrary,
};

use super::mesh::{cube_mesh, Vertex};
use super::{CubeInstance, ScenePush, TestSceneRenderer, ARRAY_MATERIALS};
use crate::pass::bindless_pass;
use crate::target::{DepthTarget, DEPTH_FORMAT};
use crate::textures::{material_array, TextureStyle};

/// Texture size of a layer.
const TEXTURE_SIZE: u32 = 256;

impl TestSceneRenderer {
    /// Makes the pipeline, the cube mesh and the two texture arrays, and puts the arrays into the
    /// bindless table. `colour_format` is the target's format.
    pub fn new(
        gpu: &mut Gpu,
        shaders: &ShaderLibrary,
        colour_format: vk::Format,
        style: TextureStyle,
    ) -> GpuResult<Self> {
        let device = gpu.device.clone();
        let pass = bindless_pass::<ScenePush>(gpu, shaders, "scene", "test scene")?;
        let bindings = [
            vertex_binding(0, size_of::<Vertex>(), vk::VertexInputRate::VERTEX),
            vertex_binding(1, size_of::<CubeInstance>(), vk::VertexInputRate::INSTANCE),
        ];
        let attributes = [
            vertex_attribute(0, 0, vk::Format::R32G32B32_SFLOAT, 0),
            vertex_attribute(1, 0, vk::Format::R32G32B32_SFLOAT, 12),
            vertex_attribute(2, 0, vk::Format::R32G32_SFLOAT, 24),
            vertex_attribute(3, 1, vk::Format::R32G32B32A32_SFLOAT, 0),
            vertex_attribute(4, 1, vk::Format::R32G32B32A32_SFLOAT, 16),
            vertex_attribute(5, 1, vk::Format::R32G32B32A32_SFLOAT, 32),
            vertex_attribute(6, 1, vk::Format::R32G32B32A32_SFLOAT, 48),
            vertex_attribute(7, 1, vk::Format::R32G32_UINT, 64),
        ];
        let colour_formats = [colour_format];
        let pipeline = Pipeline::graphics(
            &device,
            &pass.layout,
            &GraphicsPipelineDesc {
                name: "test scene: cubes",
                vertex: &pass.vertex,
                fragment: &pass.fragment,
                vertex_bindings: &bindings,
                vertex_attributes: &attributes,
                topology: vk::PrimitiveTopology::TRIANGLE_LIST,
                cull_mode: vk::CullModeFlags::BACK,
                front_face: vk::FrontFace::COUNTER_CLOCKWISE,
                polygon_mode: vk::PolygonMode::FILL,
                color_formats: &colour_formats,
                depth_format: Some(DEPTH_FORMAT),
                depth_write: true,
                blend: false,
                depth_bias: None,
            },
        )?;

        let (vertex_data, index_data) = cube_mesh();
        let vertices = Buffer::new(
            &device,
            &BufferDesc {
                name: "test scene: cube vertices",
                size: std::mem::size_of_val(vertex_data.as_slice()) as u64,
                usage: vk::BufferUsageFlags::VERTEX_BUFFER | vk::BufferUsageFlags::TRANSFER_DST,
                location: MemoryLocation::GpuOnly,
            },
        )?;
        let indices = Buffer::new(
            &device,
            &BufferDesc {
                name: "test scene: cube indices",
                size: std::mem::size_of_val(index_data.as_slice()) as u64,
                usage: vk::BufferUsageFlags::INDEX_BUFFER | vk::BufferUsageFlags::TRANSFER_DST,
                location: MemoryLocation::GpuOnly,
            },
        )?;

        let mut textures = Vec::new();
        let mut batch = gpu.uploader.begin("test scene");
        batch.buffer(&vertices, 0, bytemuck::cast_slice(&vertex_data))?;
        batch.buffer(&indices, 0, bytemuck::cast_slice(&index_data))?;
        for (i, materials) in ARRAY_MATERIALS.iter().enumerate() {
            let data = material_array(&format!("materials {i}"), materials, TEXTURE_SIZE, style);
            let name = format!("texture array {i}: {}", layer_names(materials));
            let image = data.image(&device, &name)?;
            batch.image(&image, &data.bytes, ImageAccess::ShaderRead)?;
            textures.push(image);
        }
        let uploaded = batch.submit()?;
        device.wait_for(uploaded)?;
        let [first, second]: [Image; 2] = textures
            .try_into()
            .map_err(|_| gpu::GpuError::Invalid("two texture arrays expected".into()))?;
        let textures = [gpu.bindless.bind(first)?, gpu.bindless.bind(second)?];

        Ok(Self {
            device,
            layout: pass.layout,
            pipeline,
            vertices,
            indices,
            index_count: index_data.len() as u32,
            textures,
            depth: DepthTarget::new(&gpu.device, "test scene: depth"),
            bindless_set: gpu.bindless.set,
            draws_last_frame: 0,
        })
    }
}

fn layer_names(materials: &[usize]) -> String {
    materials
        .iter()
        .map(|&m| blockfall_game::blocks::materials::MATERIALS[m].name)
        .collect::<Vec<_>>()
        .join(", ")
}
