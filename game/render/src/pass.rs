//! What every draw pass of the renderer starts from: its vertex and fragment shaders and a
//! pipeline layout over the bindless table with the pass's push constants.

use blockfall_engine::gpu::{vk, Gpu, GpuResult, Pipeline, PipelineLayout, ShaderLibrary};

/// A pass's pipeline with the sun's shadows: its material built with `SHADOWS`
/// (`SHADER_shadows.frag`) over a layout of the bindless set (0) and the shadow maps' set (1,
/// `render::shadows`).
pub struct ShadowedPipeline {
    pub layout: PipelineLayout,
    pub pipeline: Pipeline,
}

/// `SHADER_shadows.frag` for this device and a layout named `name` of the bindless set, the
/// shadow maps' set `shadow_layout` and push constants `Push` for the vertex and fragment
/// stages.
pub fn shadowed_pass<Push>(
    gpu: &Gpu,
    shaders: &ShaderLibrary,
    shader: &str,
    name: &str,
    shadow_layout: vk::DescriptorSetLayout,
) -> GpuResult<(Vec<u32>, PipelineLayout)> {
    let target = gpu.device.shader_target();
    Ok((
        shaders.get(&format!("{shader}_shadows.frag"), target)?,
        PipelineLayout::new(
            &gpu.device,
            &format!("{name} (shadowed)"),
            &[gpu.bindless.layout, shadow_layout],
            std::mem::size_of::<Push>() as u32,
            vk::ShaderStageFlags::VERTEX | vk::ShaderStageFlags::FRAGMENT,
        )?,
    ))
}

/// The shaders and layout of a draw pass.
pub struct PassShaders {
    pub vertex: Vec<u32>,
    pub fragment: Vec<u32>,
    pub layout: PipelineLayout,
}

/// `SHADER.vert` and `SHADER.frag` for this device, and a layout named `name` of the bindless
/// set and push constants `Push` for both stages.
pub fn bindless_pass<Push>(
    gpu: &Gpu,
    shaders: &ShaderLibrary,
    shader: &str,
    name: &str,
) -> GpuResult<PassShaders> {
    let target = gpu.device.shader_target();
    Ok(PassShaders {
        vertex: shaders.get(&format!("{shader}.vert"), target)?,
        fragment: shaders.get(&format!("{shader}.frag"), target)?,
        layout: PipelineLayout::new(
            &gpu.device,
            name,
            &[gpu.bindless.layout],
            std::mem::size_of::<Push>() as u32,
            vk::ShaderStageFlags::VERTEX | vk::ShaderStageFlags::FRAGMENT,
        )?,
    })
}
