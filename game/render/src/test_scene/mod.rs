//! The scene that proves the backend: a sky clear and lit, textured cubes on a stone slab,
//! their materials drawn from **two texture arrays of the bindless table**, picked per instance
//! inside one instanced draw (so the shader's index is non-uniform).
//!
//! [`TestScene`] describes the scene at a time (camera, cubes, light) on the CPU, so tests can
//! work out what colour a pixel must have; [`TestSceneRenderer`] draws it.

mod mesh;
mod scene;
mod setup;

use std::sync::Arc;

use ash::vk;
use blockfall_engine::gpu::{
    self, BoundTexture, Buffer, BufferAccess, FrameRing, GpuResult, Load, Pipeline, PipelineLayout,
    TextureSlot, TransientUse,
};

use super::target::{DepthTarget, RenderTarget};

pub use scene::{CubeInstance, SceneCube, ScenePush, TestScene, ARRAY_MATERIALS, TEST_SCENE_SKY};

/// Draws the test scene.
pub struct TestSceneRenderer {
    device: Arc<gpu::Device>,
    layout: PipelineLayout,
    pipeline: Pipeline,
    vertices: Buffer,
    indices: Buffer,
    index_count: u32,
    /// The two texture arrays in the bindless table (their slots freed when they drop).
    textures: [BoundTexture; 2],
    depth: DepthTarget,
    bindless_set: vk::DescriptorSet,
    draws_last_frame: u32,
}

impl TestSceneRenderer {
    /// The bindless slots of the two texture arrays.
    pub fn slots(&self) -> [TextureSlot; 2] {
        self.textures.each_ref().map(BoundTexture::slot)
    }

    /// Draw calls recorded in the last frame (1: every cube in one instanced draw).
    pub fn draws_last_frame(&self) -> u32 {
        self.draws_last_frame
    }

    /// Records the scene pass into the frame being recorded. The target goes from undefined to
    /// colour attachment (it is cleared) and is left as a colour attachment.
    pub fn record(
        &mut self,
        frames: &mut FrameRing,
        target: RenderTarget,
        scene: &TestScene,
    ) -> GpuResult<()> {
        let device = self.device.clone();
        let instances = scene.instances(&self.slots());
        let instances_range = frames.transient(TransientUse::Vertex, &instances)?;

        let depth = self.depth.ensure(frames, target.width, target.height)?;
        let mut pass = frames
            .pass("scene")
            .draws_into(&target, Load::Clear(TEST_SCENE_SKY))
            .depth(depth, Load::Clear(1.0))
            .reads(&[BufferAccess::VertexAttributeRead, BufferAccess::IndexRead])
            .draw(&device)?;
        // A replaced instance buffer or depth image is retired into the frame ring.
        pass.bind_pipeline(&self.pipeline);
        pass.bind_set(&self.layout, self.bindless_set);
        pass.push(&self.layout, &scene.push_constants());
        pass.bind_vertices(0, &self.vertices, 0)?;
        pass.bind_vertices(
            1,
            frames.transient_buffer(&instances_range)?,
            instances_range.offset,
        )?;
        pass.bind_indices(&self.indices, 0, vk::IndexType::UINT16)?;
        pass.draw_indexed(0..self.index_count, 0, 0..instances.len() as u32)?;
        drop(pass);
        self.draws_last_frame = 1;
        Ok(())
    }
}
