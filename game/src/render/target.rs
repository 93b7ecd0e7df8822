//! What a pass draws into, shared by the renderers: the colour target, a depth image kept at
//! its size, and the start of a dynamic-rendering pass that clears both (the first pass of a
//! frame, the terrain's) or keeps both (the passes after it: blocks, pieces, markers).
//!
//! Both attachments are stored at the end of every pass, so a later pass loads the picture and
//! its depth and draws into the same scene: blocks are hidden behind hills, and hills behind
//! blocks.

use std::sync::Arc;

use ash::vk;
use blockfall_engine::gpu::{
    self, ColourAttachment, DepthAttachment, GpuResult, Image, ImageAccess, ImageDesc, Load,
    RenderPass,
};

/// The depth format every renderer uses.
pub const DEPTH_FORMAT: vk::Format = vk::Format::D32_SFLOAT;

/// A colour target a renderer draws into.
#[derive(Debug, Clone, Copy)]
pub struct RenderTarget {
    pub image: vk::Image,
    pub view: vk::ImageView,
    pub width: u32,
    pub height: u32,
}

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

    /// The depth image for a target of `width` × `height`.
    pub fn ensure(&mut self, width: u32, height: u32) -> GpuResult<&Image> {
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
        self.image
            .as_ref()
            .ok_or_else(|| gpu::GpuError::Invalid(format!("{}: depth target missing", self.name)))
    }
}

/// Starts dynamic rendering into `target`, cleared to `clear`, with `depth` cleared to 1: the
/// layout transitions of both, the whole target as viewport and scissor. Both are stored, for
/// the passes that [`begin_loaded`] later. The caller binds its pipeline and draws; rendering
/// ends when the returned pass drops.
pub fn begin_colour_and_depth<'a>(
    device: &'a gpu::Device,
    command_buffer: vk::CommandBuffer,
    target: &RenderTarget,
    depth: &Image,
    clear: [f32; 3],
) -> RenderPass<'a> {
    gpu::image::image_barrier(
        device,
        command_buffer,
        target.image,
        gpu::image::full_range(vk::Format::R8G8B8A8_SRGB, 1, 1),
        ImageAccess::Undefined,
        ImageAccess::ColorAttachment,
    );
    depth.barrier(
        command_buffer,
        ImageAccess::Undefined,
        ImageAccess::DepthAttachment,
    );
    RenderPass::begin(
        device,
        command_buffer,
        ColourAttachment {
            view: target.view,
            load: Load::Clear(clear),
        },
        Some(DepthAttachment {
            view: depth.view,
            load: Load::Clear(1.0),
        }),
        (target.width, target.height),
    )
}

/// Clears `target` to `clear` and `depth` to 1 in a pass of its own that draws nothing: the
/// start of a frame without terrain (the blocks' tests), after which [`begin_loaded`] passes
/// draw.
pub fn clear_colour_and_depth(
    device: &gpu::Device,
    command_buffer: vk::CommandBuffer,
    target: &RenderTarget,
    depth: &Image,
    clear: [f32; 3],
) {
    drop(begin_colour_and_depth(
        device,
        command_buffer,
        target,
        depth,
        clear,
    ));
}

/// Starts dynamic rendering that keeps what an earlier pass of the frame drew: `target` in
/// colour-attachment layout and `depth` in depth-attachment layout, both loaded and stored.
/// A barrier first makes the earlier pass's colour and depth writes visible (attachment
/// accesses are ordered only within one rendering instance). Viewport and scissor are the
/// whole target; rendering ends when the returned pass drops.
pub fn begin_loaded<'a>(
    device: &'a gpu::Device,
    command_buffer: vk::CommandBuffer,
    target: &RenderTarget,
    depth: &Image,
) -> RenderPass<'a> {
    after_earlier_colour(device, command_buffer, target);
    depth.barrier(
        command_buffer,
        ImageAccess::DepthAttachment,
        ImageAccess::DepthAttachment,
    );
    RenderPass::begin(
        device,
        command_buffer,
        ColourAttachment {
            view: target.view,
            load: Load::Keep,
        },
        Some(DepthAttachment {
            view: depth.view,
            load: Load::Keep,
        }),
        (target.width, target.height),
    )
}

/// Starts dynamic rendering into `target` over what earlier passes of the frame drew there
/// (colour loaded and stored, no depth), for overlays such as the HUD: a barrier orders the
/// earlier passes' colour writes before this pass's blending, and the target stays a colour
/// attachment. The target must be a colour attachment already (an earlier pass of this frame
/// began it). Sets the whole target as viewport and scissor; rendering ends when the returned
/// pass drops.
pub fn begin_colour_load<'a>(
    device: &'a gpu::Device,
    command_buffer: vk::CommandBuffer,
    target: &RenderTarget,
) -> RenderPass<'a> {
    after_earlier_colour(device, command_buffer, target);
    RenderPass::begin(
        device,
        command_buffer,
        ColourAttachment {
            view: target.view,
            load: Load::Keep,
        },
        None,
        (target.width, target.height),
    )
}

/// The barrier that makes an earlier pass's colour writes to `target` visible to a pass that
/// keeps them (attachment accesses are ordered only within one rendering instance); the target
/// stays a colour attachment.
fn after_earlier_colour(
    device: &gpu::Device,
    command_buffer: vk::CommandBuffer,
    target: &RenderTarget,
) {
    gpu::image::image_barrier(
        device,
        command_buffer,
        target.image,
        gpu::image::full_range(vk::Format::R8G8B8A8_SRGB, 1, 1),
        ImageAccess::ColorAttachment,
        ImageAccess::ColorAttachment,
    );
}
