//! The worked example of ARCHITECTURE.md, "Adding a pass", word for word (`gpu_pass_example`
//! checks that the two agree and draws with it).

use blockfall_engine::gpu::{
    vk, FrameRing, Gpu, GpuResult, GraphicsPipelineDesc, Load, Pipeline, PipelineLayout,
    RenderTarget, ShaderLibrary,
};

/// A colour laid over the whole picture, blended: a menu's dimming, a flash.
pub struct TintPass {
    pipeline: Pipeline,
    layout: PipelineLayout,
}

impl TintPass {
    /// Its pipeline, made once: `tint.vert` (one triangle over the target) and `tint.frag`
    /// (the push constants' colour) from `shaders/`, blended into `colour_format`.
    pub fn new(gpu: &Gpu, shaders: &ShaderLibrary, colour_format: vk::Format) -> GpuResult<Self> {
        let target = gpu.device.shader_target();
        let stages = vk::ShaderStageFlags::FRAGMENT;
        let layout = PipelineLayout::new(&gpu.device, "tint", &[], 16, stages)?;
        let desc = GraphicsPipelineDesc {
            name: "tint",
            vertex: &shaders.get("tint.vert", target)?,
            fragment: &shaders.get("tint.frag", target)?,
            vertex_bindings: &[],
            vertex_attributes: &[],
            topology: vk::PrimitiveTopology::TRIANGLE_LIST,
            cull_mode: vk::CullModeFlags::NONE,
            front_face: vk::FrontFace::COUNTER_CLOCKWISE,
            polygon_mode: vk::PolygonMode::FILL,
            color_formats: &[colour_format],
            depth_format: None,
            depth_write: false,
            blend: true,
            depth_bias: None,
        };
        let pipeline = Pipeline::graphics(&gpu.device, &layout, &desc)?;
        Ok(Self { pipeline, layout })
    }

    /// Records the pass "tint": `colour` (linear RGB, and alpha: how much of the picture it
    /// covers) over what the frame drew into `target`.
    pub fn record(
        &self,
        gpu: &Gpu,
        frames: &mut FrameRing,
        target: &RenderTarget,
        colour: [f32; 4],
    ) -> GpuResult<()> {
        let mut pass = frames
            .pass("tint")
            .draws_into(target, Load::Keep)
            .draw(&gpu.device)?;
        pass.bind_pipeline(&self.pipeline);
        pass.push(&self.layout, &colour);
        pass.draw(0..3, 0..1);
        Ok(())
    }
}
