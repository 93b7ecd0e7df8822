//! A pass of the frame through one guard: [`FrameRing::pass`] names it, the builder declares
//! what it draws into, samples and reads, and beginning it times it (a timestamp pair for the
//! HUD), labels it for RenderDoc, hands the declaration to the frame graph (which records the
//! barriers before it, [`super::graph`]) and begins the recording. The guard ends all of it
//! when it drops: rendering, the label, the timestamp.
//!
//! ```text
//!   let mut pass = frames.pass("boxes")
//!       .draws_into(&target, Load::Keep)       colour attachment, what earlier passes drew kept
//!       .depth(depth, Load::Keep)              depth attachment
//!       .samples(shadows.as_slice())           images its shaders read (the shadow atlas)
//!       .reads(&[BufferAccess::VertexAttributeRead, BufferAccess::IndexRead])
//!       .draw(&device)?;                       → DrawPass: binds and draws, no unsafe
//! ```
//!
//! Images kept from frame to frame (a depth target, the shadow atlas) are the graph's business,
//! not a pass's: their owner says so once a frame ([`FrameRing::keep`]), and each frame starts
//! them in the state the last submitted frame left them in, so a first barrier waits for a
//! frame still in flight instead of for nothing.

use std::mem::ManuallyDrop;
use std::ops::{Deref, DerefMut};

use ash::vk;

use super::debug::label_colour;
use super::encoder::{ColourAttachment, ComputePass, DepthAttachment, Load, RenderPass};
use super::frame::{FrameRing, PassEnd};
use super::graph::ImageUse;
use super::{BufferAccess, Device, GpuError, GpuResult, Image, ImageAccess};

/// A colour image a frame draws into: the swapchain's image, or an offscreen target.
#[derive(Debug, Clone, Copy)]
pub struct RenderTarget {
    pub image: vk::Image,
    pub view: vk::ImageView,
    pub width: u32,
    pub height: u32,
}

/// An image a pass's shaders sample, with the set that binds it: the shadow atlas, handed by
/// the passes that draw it to the passes that read it.
#[derive(Debug, Clone, Copy)]
pub struct Sampled {
    pub set: vk::DescriptorSet,
    pub image: vk::Image,
    pub range: vk::ImageSubresourceRange,
}

impl Sampled {
    /// `image` sampled through `set`.
    pub fn of(image: &Image, set: vk::DescriptorSet) -> Self {
        Self {
            set,
            image: image.raw,
            range: image.range(),
        }
    }
}

/// A pass being declared ([`FrameRing::pass`]); nothing is recorded until it begins.
#[must_use = "a pass is recorded once it begins: call draw or compute"]
pub struct PassBuilder<'f> {
    frames: &'f mut FrameRing,
    name: &'f str,
    colour: Option<ColourAttachment>,
    depth: Option<DepthAttachment>,
    area: Option<vk::Rect2D>,
    images: Vec<ImageUse>,
    reads: Vec<BufferAccess>,
    writes: Vec<BufferAccess>,
}

fn whole(width: u32, height: u32) -> vk::Rect2D {
    vk::Rect2D {
        offset: vk::Offset2D { x: 0, y: 0 },
        extent: vk::Extent2D { width, height },
    }
}

impl FrameRing {
    /// Declares the next pass of the frame being recorded, named `name` (for RenderDoc, the
    /// HUD's timings and validation messages).
    pub fn pass<'f>(&'f mut self, name: &'f str) -> PassBuilder<'f> {
        PassBuilder {
            frames: self,
            name,
            colour: None,
            depth: None,
            area: None,
            images: Vec::new(),
            reads: Vec::new(),
            writes: Vec::new(),
        }
    }
}

impl<'f> PassBuilder<'f> {
    /// Draws into `target` as its colour attachment, cleared or keeping what earlier passes of
    /// the frame drew; the whole target is the pass's area.
    pub fn draws_into(mut self, target: &RenderTarget, load: Load<[f32; 3]>) -> Self {
        self.images.push(ImageUse {
            image: target.image,
            range: super::image::full_range(vk::Format::R8G8B8A8_SRGB, 1, 1),
            access: ImageAccess::ColorAttachment,
            keep: matches!(load, Load::Keep),
        });
        self.colour = Some(ColourAttachment {
            view: target.view,
            load,
        });
        self.area.get_or_insert(whole(target.width, target.height));
        self
    }

    /// Draws into `depth` as its depth attachment, cleared or kept; without a colour target,
    /// the whole image is the pass's area (see [`PassBuilder::tile`]).
    pub fn depth(mut self, depth: &Image, load: Load<f32>) -> Self {
        self.images.push(ImageUse {
            image: depth.raw,
            range: depth.range(),
            access: ImageAccess::DepthAttachment,
            keep: matches!(load, Load::Keep),
        });
        self.depth = Some(DepthAttachment {
            view: depth.view,
            load,
        });
        self.area.get_or_insert(whole(depth.width, depth.height));
        self
    }

    /// Draws into `area` of the attachments given before alone (a tile of the shadow atlas):
    /// the viewport and scissor, and what a clear clears. With `keep_rest`, what earlier passes
    /// drew outside the tile is kept (the other cascades' tiles), even where the tile is
    /// cleared.
    pub fn tile(mut self, area: vk::Rect2D, keep_rest: bool) -> Self {
        self.area = Some(area);
        for image in &mut self.images {
            if matches!(
                image.access,
                ImageAccess::ColorAttachment | ImageAccess::DepthAttachment
            ) {
                image.keep |= keep_rest;
            }
        }
        self
    }

    /// Samples `images` in its shaders (none, or the shadow atlas: `shadows.as_slice()`): the
    /// graph makes what earlier passes drew there visible first.
    pub fn samples(mut self, images: &[Sampled]) -> Self {
        self.images.extend(images.iter().map(|image| ImageUse {
            image: image.image,
            range: image.range,
            access: ImageAccess::ShaderRead,
            keep: true,
        }));
        self
    }

    /// Reads buffers that earlier submissions or passes wrote, as `reads`.
    pub fn reads(mut self, reads: &[BufferAccess]) -> Self {
        self.reads.extend_from_slice(reads);
        self
    }

    /// Writes buffers as `writes` (a compute pass: `ComputeWrite`); the next pass that reads
    /// buffers sees them.
    pub fn writes(mut self, writes: &[BufferAccess]) -> Self {
        self.writes.extend_from_slice(writes);
        self
    }

    /// Begins the pass as dynamic rendering into what it declared: timed and labelled, its
    /// barriers recorded. Binds and draws go through the returned guard; everything ends when
    /// it drops.
    pub fn draw<'d>(self, device: &'d Device) -> GpuResult<DrawPass<'d>> {
        let Some(area) = self.area else {
            return Err(GpuError::Invalid(format!(
                "pass `{}` draws into nothing: give it a colour or a depth target",
                self.name
            )));
        };
        if !self.writes.is_empty() {
            return Err(GpuError::Invalid(format!(
                "draw pass `{}` declares buffer writes: only compute passes write buffers",
                self.name
            )));
        }
        let (colour, depth) = (self.colour, self.depth);
        let end = self.open(device, label_colour::GRAPHICS)?;
        let pass = RenderPass::begin_in(device, end.command_buffer(), colour, depth, area);
        Ok(DrawPass {
            pass: ManuallyDrop::new(pass),
            end,
        })
    }

    /// Begins the pass as compute work (dispatches) with the buffer reads and writes it
    /// declared: timed and labelled, its barriers recorded; it ends when the guard drops.
    pub fn compute<'d>(self, device: &'d Device) -> GpuResult<ComputeGuard<'d>> {
        if !self.images.is_empty() {
            return Err(GpuError::Invalid(format!(
                "compute pass `{}` declares images: compute passes here read and write buffers",
                self.name
            )));
        }
        let end = self.open(device, label_colour::COMPUTE)?;
        let pass = ComputePass::begin(device, end.command_buffer());
        Ok(ComputeGuard { pass, end })
    }

    /// Opens the label and the timestamp, then records the barriers the graph derives; on an
    /// error, what was opened is closed again.
    fn open<'d>(self, device: &'d Device, colour: [f32; 4]) -> GpuResult<PassEnd<'d>> {
        let end = self.frames.open_pass(device, self.name, colour)?;
        let declared = if self.images.is_empty() {
            self.frames.declare_compute(&self.reads, &self.writes)
        } else {
            self.frames.declare_pass(&self.images, &self.reads)
        };
        match declared {
            Ok(()) => Ok(end),
            Err(error) => {
                end.close();
                Err(error)
            }
        }
    }
}

/// A draw pass being recorded: binds and draws through it ([`RenderPass`]'s calls); rendering,
/// the pass's label and its timing end when it drops.
#[must_use = "the pass ends when it drops: draw through it"]
pub struct DrawPass<'d> {
    pass: ManuallyDrop<RenderPass<'d>>,
    end: PassEnd<'d>,
}

impl<'d> Deref for DrawPass<'d> {
    type Target = RenderPass<'d>;
    fn deref(&self) -> &RenderPass<'d> {
        &self.pass
    }
}

impl<'d> DerefMut for DrawPass<'d> {
    fn deref_mut(&mut self) -> &mut RenderPass<'d> {
        &mut self.pass
    }
}

impl Drop for DrawPass<'_> {
    fn drop(&mut self) {
        // SAFETY: `pass` is dropped here once and never used again: rendering ends before the
        // pass's closing timestamp and label.
        unsafe { ManuallyDrop::drop(&mut self.pass) };
        self.end.close_in_place();
    }
}

/// A compute pass being recorded: pipelines, sets and dispatches through it
/// ([`ComputePass`]'s calls); its label and timing end when it drops.
#[must_use = "the pass ends when it drops: dispatch through it"]
pub struct ComputeGuard<'d> {
    pass: ComputePass<'d>,
    end: PassEnd<'d>,
}

impl<'d> Deref for ComputeGuard<'d> {
    type Target = ComputePass<'d>;
    fn deref(&self) -> &ComputePass<'d> {
        &self.pass
    }
}

impl<'d> DerefMut for ComputeGuard<'d> {
    fn deref_mut(&mut self) -> &mut ComputePass<'d> {
        &mut self.pass
    }
}

impl Drop for ComputeGuard<'_> {
    fn drop(&mut self) {
        self.end.close_in_place();
    }
}
