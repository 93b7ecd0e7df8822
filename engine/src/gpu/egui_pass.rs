//! egui's meshes drawn by our device: egui-ash-renderer's renderer behind the engine, so that
//! what records commands stays here and a game's HUD only says what to draw.
//!
//! egui-ash-renderer keeps its own pipeline, textures and one vertex/index buffer pair per frame
//! in flight, and destroys them at once when dropped: [`EguiRenderer`] hands it to the
//! device's deferred destruction instead, so that no frame still running loses them. Its
//! texture uploads submit and wait on the device's one queue: the queue's lock keeps every
//! other submission out meanwhile. When a pair of vertex buffers is out of use is the caller's
//! to know (the HUD keys it to its frames).

use std::sync::Arc;

use ash::vk;
use egui::epaint::ImageDelta;
use egui::{ClippedPrimitive, TextureId};
use egui_ash_renderer::allocator::GpuAllocator;
use egui_ash_renderer::{DynamicRendering, Options, RenderMode, Renderer, RendererError};

use super::commands::CommandPool;
use super::conv::is_srgb;
use super::device::Device;
use super::encoder::RenderPass;
use super::frame::FRAMES_IN_FLIGHT;

/// egui's renderer for colour targets of one format.
pub struct EguiRenderer {
    device: Arc<Device>,
    /// `None` only while dropping.
    raw: Option<Renderer<GpuAllocator>>,
}

impl EguiRenderer {
    /// A renderer drawing into targets of `colour_format` (an `_SRGB` format gets linear output,
    /// which the target encodes; any other gets sRGB-encoded output), with a vertex/index
    /// buffer pair for each frame in flight.
    pub fn new(device: &Arc<Device>, colour_format: vk::Format) -> Result<Self, RendererError> {
        let raw = Renderer::with_gpu_allocator(
            device.shared_allocator(),
            device.raw.clone(),
            RenderMode::DynamicRendering(DynamicRendering {
                color_attachment_format: colour_format,
                depth_attachment_format: None,
                stencil_attachment_format: None,
            }),
            Options {
                in_flight_frames: FRAMES_IN_FLIGHT,
                enable_depth_test: false,
                enable_depth_write: false,
                srgb_framebuffer: is_srgb(colour_format),
            },
        )?;
        Ok(Self {
            device: device.clone(),
            raw: Some(raw),
        })
    }

    fn raw(&mut self) -> &mut Renderer<GpuAllocator> {
        self.raw.as_mut().expect("the renderer lives until drop")
    }

    /// Draws `primitives` in `pass` (rendering into a target of `extent`), writing the next
    /// of its vertex/index buffer pairs (which must be out of use).
    pub fn draw(
        &mut self,
        pass: &RenderPass<'_>,
        extent: vk::Extent2D,
        pixels_per_point: f32,
        primitives: &[ClippedPrimitive],
    ) -> Result<(), RendererError> {
        let command_buffer = pass.command_buffer();
        self.raw()
            .cmd_draw(command_buffer, extent, pixels_per_point, primitives)
    }

    /// Sets texture `id` to `delta` (uploaded whole: `delta.pos` must be `None`), recording the
    /// upload from `pool` and waiting for it, with the queue locked meanwhile.
    pub fn set_texture(
        &mut self,
        pool: &CommandPool,
        id: TextureId,
        delta: &ImageDelta,
    ) -> Result<(), RendererError> {
        let device = self.device.clone();
        let queue = device.lock_queue();
        self.raw().set_texture(*queue, pool.raw, id, delta)
    }

    /// Frees texture `id` at once: no frame that samples it may still run.
    pub fn free_texture(&mut self, id: TextureId) -> Result<(), RendererError> {
        self.raw().free_texture(id)
    }
}

impl Drop for EguiRenderer {
    fn drop(&mut self) {
        // egui-ash-renderer destroys its objects in its own drop, at once: the device keeps it
        // until no submission that may use it runs (also a frame still being recorded).
        if let Some(raw) = self.raw.take() {
            self.device.retire_object(raw);
        }
    }
}
