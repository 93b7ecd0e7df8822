//! What a pass draws into, shared by the renderers: the colour target (the engine's
//! [`RenderTarget`]) and a depth image kept at its size. The first pass of a frame (the
//! terrain's) clears both, the passes after it (blocks, pieces, markers) keep both
//! (`FrameRing::pass`, `Load::Keep`).
//!
//! Both attachments are stored at the end of every pass, so a later pass loads the picture and
//! its depth and draws into the same scene: blocks are hidden behind hills, and hills behind
//! blocks.

use std::sync::Arc;

use ash::vk;
use blockfall_engine::gpu::{self, FrameRing, GpuResult, Image, ImageDesc, Load};

/// The depth format every renderer uses.
pub const DEPTH_FORMAT: vk::Format = vk::Format::D32_SFLOAT;

pub use blockfall_engine::gpu::RenderTarget;

/// A depth image made again when the target's size changes (the old one's drop defers its
/// destruction until the frames that use it have run).
pub struct DepthTarget {
    device: Arc<gpu::Device>,
    name: &'static str,
    image: Option<Image>,
}

impl DepthTarget {
    pub fn new(device: &Arc<gpu::Device>, name: &'static str) -> Self {
        Self {
            device: device.clone(),
            name,
            image: None,
        }
    }

    /// The depth image made by the last [`DepthTarget::ensure`], if any.
    pub fn current(&self) -> Option<&Image> {
        self.image.as_ref()
    }

    /// The depth image for a target of `width` × `height`, for the frame being recorded in
    /// `frames`. The image is kept from frame to frame, and an earlier frame in flight may still
    /// be drawing into it: the frame graph keeps it (`FrameRing::keep`), so that the first
    /// pass's barrier waits for those writes (from "nothing" it would wait for nothing).
    pub fn ensure(&mut self, frames: &mut FrameRing, width: u32, height: u32) -> GpuResult<&Image> {
        let fits = self
            .image
            .as_ref()
            .is_some_and(|depth| depth.width == width && depth.height == height);
        if !fits {
            let depth = Image::new(
                &self.device,
                &ImageDesc {
                    name: self.name,
                    format: DEPTH_FORMAT,
                    width,
                    height,
                    layers: 1,
                    mips: 1,
                    usage: vk::ImageUsageFlags::DEPTH_STENCIL_ATTACHMENT,
                    view_type: vk::ImageViewType::TYPE_2D,
                },
            )?;
            // The old target may be in a frame still in flight: its drop defers destruction.
            self.image = Some(depth);
        }
        if let Some(image) = &self.image {
            frames.keep(image);
        }
        self.image
            .as_ref()
            .ok_or_else(|| gpu::GpuError::Invalid(format!("{}: depth target missing", self.name)))
    }
}

/// Clears `target` to `clear` and `depth` to 1 in a pass of its own that draws nothing: the
/// start of a frame without terrain (the blocks' tests), after which passes that keep what is
/// there draw.
pub fn clear_colour_and_depth(
    device: &gpu::Device,
    frames: &mut FrameRing,
    target: &RenderTarget,
    depth: &Image,
    clear: [f32; 3],
) -> GpuResult<()> {
    drop(
        frames
            .pass("clear")
            .draws_into(target, Load::Clear(clear))
            .depth(depth, Load::Clear(1.0))
            .draw(device)?,
    );
    Ok(())
}
