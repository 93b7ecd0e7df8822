//! What a pass draws into, shared by the renderers: the colour target, a depth image kept at
//! its size, and the start of a dynamic-rendering pass that clears both (the first pass of a
//! frame, the terrain's) or keeps both (the passes after it: blocks, pieces, markers), each
//! declared to the frame graph (`gpu::graph`), which records the barriers before it.
//!
//! Both attachments are stored at the end of every pass, so a later pass loads the picture and
//! its depth and draws into the same scene: blocks are hidden behind hills, and hills behind
//! blocks.

use std::sync::Arc;

use ash::vk;
use blockfall_engine::gpu::{
    self, BufferAccess, ColourAttachment, DepthAttachment, FrameRing, GpuResult, Image,
    ImageAccess, ImageDesc, ImageUse, Load, RenderPass,
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
    /// The frame number the image was first drawn into: once that frame was submitted, the
    /// image is left as a depth attachment by every frame.
    first_frame: Option<u64>,
}

impl DepthTarget {
    pub fn new(device: &Arc<gpu::Device>, name: &'static str) -> Self {
        Self {
            device: device.clone(),
            name,
            image: None,
            first_frame: None,
        }
    }

    /// The depth image made by the last [`DepthTarget::ensure`], if any.
    pub fn current(&self) -> Option<&Image> {
        self.image.as_ref()
    }

    /// The depth image for a target of `width` × `height`, for the frame being recorded in
    /// `frames`. The image is kept from frame to frame, and an earlier frame in flight may still
    /// be drawing into it: where one was submitted, the image's state is declared to the frame
    /// graph as a depth attachment, so that the first pass's barrier waits for those writes
    /// (from "nothing" it would wait for nothing).
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
            self.first_frame = None;
        }
        // Frame numbers count submitted frames only: a first frame that was abandoned does
        // not count.
        match (self.first_frame, &self.image) {
            (Some(first), Some(image)) if frames.frame_number() > first => {
                frames
                    .graph()
                    .import(image.raw, ImageAccess::DepthAttachment);
            }
            (Some(_), _) => {}
            (None, _) => self.first_frame = Some(frames.frame_number()),
        }
        self.image
            .as_ref()
            .ok_or_else(|| gpu::GpuError::Invalid(format!("{}: depth target missing", self.name)))
    }
}

/// How `target` is drawn into by a pass, for the frame graph: as a colour attachment, `keep`ing
/// what earlier passes drew or not.
fn colour_use(target: &RenderTarget, keep: bool) -> ImageUse {
    ImageUse {
        image: target.image,
        range: gpu::image::full_range(vk::Format::R8G8B8A8_SRGB, 1, 1),
        access: ImageAccess::ColorAttachment,
        keep,
    }
}

/// How `depth` is drawn into by a pass, for the frame graph.
fn depth_use(depth: &Image, keep: bool) -> ImageUse {
    ImageUse {
        image: depth.raw,
        range: depth.range(),
        access: ImageAccess::DepthAttachment,
        keep,
    }
}

/// Starts dynamic rendering into `target`, cleared to `clear`, with `depth` cleared to 1, both
/// declared to the frame graph with the buffers the pass `reads` (the graph records the
/// barriers: `gpu::graph`); the whole target as viewport and scissor. Both are stored, for the
/// passes that [`begin_loaded`] later. The caller binds its pipeline and draws; rendering ends
/// when the returned pass drops.
pub fn begin_colour_and_depth<'a>(
    device: &'a gpu::Device,
    frames: &mut FrameRing,
    target: &RenderTarget,
    depth: &Image,
    clear: [f32; 3],
    reads: &[BufferAccess],
) -> GpuResult<RenderPass<'a>> {
    frames.declare_pass(&[colour_use(target, false), depth_use(depth, false)], reads)?;
    Ok(RenderPass::begin(
        device,
        frames.command_buffer(),
        ColourAttachment {
            view: target.view,
            load: Load::Clear(clear),
        },
        Some(DepthAttachment {
            view: depth.view,
            load: Load::Clear(1.0),
        }),
        (target.width, target.height),
    ))
}

/// Clears `target` to `clear` and `depth` to 1 in a pass of its own that draws nothing: the
/// start of a frame without terrain (the blocks' tests), after which [`begin_loaded`] passes
/// draw.
pub fn clear_colour_and_depth(
    device: &gpu::Device,
    frames: &mut FrameRing,
    target: &RenderTarget,
    depth: &Image,
    clear: [f32; 3],
) -> GpuResult<()> {
    drop(begin_colour_and_depth(
        device,
        frames,
        target,
        depth,
        clear,
        &[],
    )?);
    Ok(())
}

/// Starts dynamic rendering that keeps what an earlier pass of the frame drew: `target` as a
/// colour attachment and `depth` as a depth attachment, both loaded and stored, declared to the
/// frame graph with the buffers the pass `reads` (the graph makes the earlier pass's colour and
/// depth writes visible first: attachment accesses are ordered only within one rendering
/// instance). Viewport and scissor are the whole target; rendering ends when the returned pass
/// drops.
pub fn begin_loaded<'a>(
    device: &'a gpu::Device,
    frames: &mut FrameRing,
    target: &RenderTarget,
    depth: &Image,
    reads: &[BufferAccess],
) -> GpuResult<RenderPass<'a>> {
    frames.declare_pass(&[colour_use(target, true), depth_use(depth, true)], reads)?;
    Ok(RenderPass::begin(
        device,
        frames.command_buffer(),
        ColourAttachment {
            view: target.view,
            load: Load::Keep,
        },
        Some(DepthAttachment {
            view: depth.view,
            load: Load::Keep,
        }),
        (target.width, target.height),
    ))
}

/// Starts dynamic rendering into `target` over what earlier passes of the frame drew there
/// (colour loaded and stored, no depth), for overlays such as the HUD, declared to the frame
/// graph with the buffers the pass `reads`: the earlier passes' colour writes come before this
/// pass's blending. An earlier pass of this frame must have drawn the target. Sets the whole
/// target as viewport and scissor; rendering ends when the returned pass drops.
pub fn begin_colour_load<'a>(
    device: &'a gpu::Device,
    frames: &mut FrameRing,
    target: &RenderTarget,
    reads: &[BufferAccess],
) -> GpuResult<RenderPass<'a>> {
    frames.declare_pass(&[colour_use(target, true)], reads)?;
    Ok(RenderPass::begin(
        device,
        frames.command_buffer(),
        ColourAttachment {
            view: target.view,
            load: Load::Keep,
        },
        None,
        (target.width, target.height),
    ))
}
