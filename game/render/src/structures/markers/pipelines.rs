//! The markers' pipelines: blended triangles with back faces culled, and blended lines, both
//! depth tested and not written, sharing one layout and `markers.vert` / `markers.frag`.

use std::sync::Arc;

use ash::vk;
use blockfall_engine::gpu::pipeline::{vertex_attribute, vertex_binding};
use blockfall_engine::gpu::{
    self, GpuResult, GraphicsPipelineDesc, Pipeline, PipelineLayout, ShaderLibrary,
};

use super::{MarkerPush, MarkerVertex};
use crate::target::DEPTH_FORMAT;

/// The layout, the surfaces' pipeline and the lines' pipeline; `colour_format` is the target's
/// format.
pub(super) fn create(
    device: &Arc<gpu::Device>,
    shaders: &ShaderLibrary,
    colour_format: vk::Format,
) -> GpuResult<(PipelineLayout, Pipeline, Pipeline)> {
    let target = device.shader_target();
    let vertex = shaders.get("markers.vert", target)?;
    let fragment = shaders.get("markers.frag", target)?;
    let layout = PipelineLayout::new(
        device,
        "markers",
        &[],
        std::mem::size_of::<MarkerPush>() as u32,
        vk::ShaderStageFlags::VERTEX | vk::ShaderStageFlags::FRAGMENT,
    )?;
    let bindings = [vertex_binding(
        0,
        std::mem::size_of::<MarkerVertex>(),
        vk::VertexInputRate::VERTEX,
    )];
    let attributes = [
        vertex_attribute(0, 0, vk::Format::R32G32B32_SFLOAT, 0),
        vertex_attribute(1, 0, vk::Format::R32G32B32A32_SFLOAT, 12),
    ];
    let colour_formats = [colour_format];
    let pipeline = |name: &str, topology, cull_mode| {
        Pipeline::graphics(
            device,
            &layout,
            &GraphicsPipelineDesc {
                name,
                vertex: &vertex,
                fragment: &fragment,
                vertex_bindings: &bindings,
                vertex_attributes: &attributes,
                topology,
                cull_mode,
                front_face: vk::FrontFace::COUNTER_CLOCKWISE,
                polygon_mode: vk::PolygonMode::FILL,
                color_formats: &colour_formats,
                depth_format: Some(DEPTH_FORMAT),
                depth_write: false,
                blend: true,
                depth_bias: None,
            },
        )
    };
    let surfaces = pipeline(
        "markers: surfaces",
        vk::PrimitiveTopology::TRIANGLE_LIST,
        vk::CullModeFlags::BACK,
    )?;
    let lines = pipeline(
        "markers: lines",
        vk::PrimitiveTopology::LINE_LIST,
        vk::CullModeFlags::NONE,
    )?;
    Ok((layout, surfaces, lines))
}
