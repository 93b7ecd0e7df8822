//! A draw pass recorded without `unsafe` at the call site: dynamic rendering begun into a colour
//! target (and a depth image), the commands a draw pass records, and the end of rendering when
//! the encoder goes.
//!
//! ```text
//!   let mut pass = RenderPass::begin(device, command_buffer, colour, depth, size);
//!   pass.bind_pipeline(&pipeline);
//!   pass.bind_set(&layout, bindless.set);
//!   pass.push(&layout, &constants);
//!   pass.bind_vertices(0, &vertices, 0)?;
//!   pass.bind_indices(&indices, 0, vk::IndexType::UINT32)?;
//!   pass.draw_indexed(0..36, 0, 0..1)?;
//! ```                                                      (rendering ends when `pass` drops)
//!
//! What makes the calls safe: the command buffer is a frame's or one-time commands' recording
//! one (the renderers get it from `FrameRing::begin`); every object bound is borrowed while it
//! is bound and, once dropped, kept by the deferred queue until the submission that uses it
//! has finished (`super::deferred`); the ranges a draw reads are checked against the buffers
//! bound: indices against the index buffer's size, indirect commands against theirs. Vertex
//! reads beyond a vertex buffer cannot be checked here (the indices say which vertices are
//! read): the meshes' arenas hand out whole ranges.

use std::ops::Range;

use ash::vk;

use super::buffer::Buffer;
use super::device::Device;
use super::error::{GpuError, GpuResult};
use super::pipeline::{Pipeline, PipelineLayout};

/// What an attachment starts a pass with.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Load<T> {
    /// Cleared to this value.
    Clear(T),
    /// What earlier passes of the frame left there.
    Keep,
}

/// A colour attachment: the view and how the pass starts it (stored at the end, always).
#[derive(Debug, Clone, Copy)]
pub struct ColourAttachment {
    pub view: vk::ImageView,
    /// Cleared to an RGB colour (alpha 1), or kept.
    pub load: Load<[f32; 3]>,
}

/// A depth attachment: the view and how the pass starts it (stored at the end, always).
#[derive(Debug, Clone, Copy)]
pub struct DepthAttachment {
    pub view: vk::ImageView,
    /// Cleared to a depth, or kept.
    pub load: Load<f32>,
}

/// Dynamic rendering being recorded; ends when dropped.
#[must_use = "rendering ends when the pass drops: draw through it"]
pub struct RenderPass<'a> {
    device: &'a Device,
    command_buffer: vk::CommandBuffer,
    /// How many indices the bound index buffer holds from the bound offset.
    indices: Option<u64>,
}

/// Bytes of one `VkDrawIndexedIndirectCommand`.
const INDEXED_INDIRECT_BYTES: u64 = std::mem::size_of::<vk::DrawIndexedIndirectCommand>() as u64;

impl<'a> RenderPass<'a> {
    /// Begins rendering into `colour` (and `depth`) over `width` × `height`, which is also the
    /// viewport and scissor. The attachments must be in colour- and depth-attachment layout.
    pub fn begin(
        device: &'a Device,
        command_buffer: vk::CommandBuffer,
        colour: ColourAttachment,
        depth: Option<DepthAttachment>,
        (width, height): (u32, u32),
    ) -> Self {
        let area = vk::Rect2D {
            offset: vk::Offset2D { x: 0, y: 0 },
            extent: vk::Extent2D { width, height },
        };
        Self::begin_in(device, command_buffer, Some(colour), depth, area)
    }

    /// Begins rendering into `depth` alone (no colour: a shadow map's pass) over `area`, which
    /// is also the viewport and scissor: a tile of the image, the rest of it untouched (a clear
    /// clears the tile only). The image must be in depth-attachment layout.
    pub fn begin_depth_only(
        device: &'a Device,
        command_buffer: vk::CommandBuffer,
        depth: DepthAttachment,
        area: vk::Rect2D,
    ) -> Self {
        Self::begin_in(device, command_buffer, None, Some(depth), area)
    }

    pub(crate) fn begin_in(
        device: &'a Device,
        command_buffer: vk::CommandBuffer,
        colour: Option<ColourAttachment>,
        depth: Option<DepthAttachment>,
        area: vk::Rect2D,
    ) -> Self {
        let colour_attachment: Vec<vk::RenderingAttachmentInfo> = colour
            .map(|colour| {
                let (load, clear) = match colour.load {
                    Load::Clear([r, g, b]) => (vk::AttachmentLoadOp::CLEAR, [r, g, b, 1.0]),
                    Load::Keep => (vk::AttachmentLoadOp::LOAD, [0.0, 0.0, 0.0, 1.0]),
                };
                vk::RenderingAttachmentInfo::default()
                    .image_view(colour.view)
                    .image_layout(vk::ImageLayout::COLOR_ATTACHMENT_OPTIMAL)
                    .load_op(load)
                    .store_op(vk::AttachmentStoreOp::STORE)
                    .clear_value(vk::ClearValue {
                        color: vk::ClearColorValue { float32: clear },
                    })
            })
            .into_iter()
            .collect();
        let depth_attachment = depth.map(|depth| {
            let (load, clear) = match depth.load {
                Load::Clear(value) => (vk::AttachmentLoadOp::CLEAR, value),
                Load::Keep => (vk::AttachmentLoadOp::LOAD, 1.0),
            };
            vk::RenderingAttachmentInfo::default()
                .image_view(depth.view)
                .image_layout(vk::ImageLayout::DEPTH_ATTACHMENT_OPTIMAL)
                .load_op(load)
                .store_op(vk::AttachmentStoreOp::STORE)
                .clear_value(vk::ClearValue {
                    depth_stencil: vk::ClearDepthStencilValue {
                        depth: clear,
                        stencil: 0,
                    },
                })
        });
        let mut rendering = vk::RenderingInfo::default()
            .render_area(area)
            .layer_count(1)
            .color_attachments(&colour_attachment);
        if let Some(depth_attachment) = &depth_attachment {
            rendering = rendering.depth_attachment(depth_attachment);
        }
        let viewport = vk::Viewport {
            x: area.offset.x as f32,
            y: area.offset.y as f32,
            width: area.extent.width as f32,
            height: area.extent.height as f32,
            min_depth: 0.0,
            max_depth: 1.0,
        };
        // SAFETY: the caller's command buffer is recording (the module's header); the views
        // live until its submission finishes (deferred destruction).
        unsafe {
            device.cmd_begin_rendering(command_buffer, &rendering);
            device.raw.cmd_set_viewport(command_buffer, 0, &[viewport]);
            device.raw.cmd_set_scissor(command_buffer, 0, &[area]);
        }
        Self {
            device,
            command_buffer,
            indices: None,
        }
    }

    /// The command buffer the pass records into (for the engine's own recorders, such as
    /// timing and labels).
    pub fn command_buffer(&self) -> vk::CommandBuffer {
        self.command_buffer
    }

    /// Binds a graphics pipeline.
    pub fn bind_pipeline(&mut self, pipeline: &Pipeline) {
        pipeline.bind(self.command_buffer);
    }

    /// Binds descriptor set 0 of `layout` (the bindless table's set).
    pub fn bind_set(&mut self, layout: &PipelineLayout, set: vk::DescriptorSet) {
        self.bind_set_at(layout, 0, set);
    }

    /// Binds `set` as set number `index` of `layout`.
    pub fn bind_set_at(&mut self, layout: &PipelineLayout, index: u32, set: vk::DescriptorSet) {
        // SAFETY: recording (the module's header); the set lives as long as its owner (the
        // bindless table, a renderer's sets), which outlives the recording or retires its
        // pool through the deferred queue.
        unsafe {
            self.device.raw.cmd_bind_descriptor_sets(
                self.command_buffer,
                vk::PipelineBindPoint::GRAPHICS,
                layout.raw,
                index,
                &[set],
                &[],
            )
        };
    }

    /// Records push constants for `layout`'s stages.
    pub fn push<T: bytemuck::Pod>(&mut self, layout: &PipelineLayout, constants: &T) {
        layout.push(self.command_buffer, constants);
    }

    /// Binds `buffer` from `offset` as vertex binding `binding`.
    pub fn bind_vertices(&mut self, binding: u32, buffer: &Buffer, offset: u64) -> GpuResult<()> {
        if offset >= buffer.size || !buffer.usage.contains(vk::BufferUsageFlags::VERTEX_BUFFER) {
            return Err(GpuError::Invalid(format!(
                "a vertex binding at byte {offset} of a {}-byte buffer with usage {:?}",
                buffer.size, buffer.usage
            )));
        }
        // SAFETY: recording; the buffer is borrowed now and kept by the deferred queue once
        // dropped; the offset lies within it and it is a vertex buffer (checked above).
        unsafe {
            self.device.raw.cmd_bind_vertex_buffers(
                self.command_buffer,
                binding,
                &[buffer.raw],
                &[offset],
            )
        };
        Ok(())
    }

    /// Binds `buffer` from `offset` as the index buffer, of 32-bit indices
    /// (`vk::IndexType::UINT32`) or 16-bit ones (`UINT16`).
    pub fn bind_indices(
        &mut self,
        buffer: &Buffer,
        offset: u64,
        index_type: vk::IndexType,
    ) -> GpuResult<()> {
        let size = match index_type {
            vk::IndexType::UINT32 => 4,
            vk::IndexType::UINT16 => 2,
            other => {
                return Err(GpuError::Invalid(format!(
                    "index type {other:?}: 16- or 32-bit indices only"
                )))
            }
        };
        if offset >= buffer.size
            || offset % size != 0
            || !buffer.usage.contains(vk::BufferUsageFlags::INDEX_BUFFER)
        {
            return Err(GpuError::Invalid(format!(
                "an index binding at byte {offset} of a {}-byte buffer with usage {:?}",
                buffer.size, buffer.usage
            )));
        }
        // SAFETY: as for vertices; the offset is a multiple of the index size.
        unsafe {
            self.device.raw.cmd_bind_index_buffer(
                self.command_buffer,
                buffer.raw,
                offset,
                index_type,
            )
        };
        self.indices = Some((buffer.size - offset) / size);
        Ok(())
    }

    /// Draws `vertices` of the bound vertex buffers, `instances` times.
    pub fn draw(&mut self, vertices: Range<u32>, instances: Range<u32>) {
        if vertices.is_empty() || instances.is_empty() {
            return;
        }
        // SAFETY: recording inside the rendering this pass began.
        unsafe {
            self.device.raw.cmd_draw(
                self.command_buffer,
                vertices.len() as u32,
                instances.len() as u32,
                vertices.start,
                instances.start,
            )
        };
    }

    /// Draws `indices` of the bound index buffer, each plus `vertex_offset`, `instances` times.
    pub fn draw_indexed(
        &mut self,
        indices: Range<u32>,
        vertex_offset: i32,
        instances: Range<u32>,
    ) -> GpuResult<()> {
        let held = self
            .indices
            .ok_or_else(|| GpuError::Invalid("an indexed draw with no index buffer".into()))?;
        if u64::from(indices.end) > held {
            return Err(GpuError::Invalid(format!(
                "indices {indices:?} of an index buffer holding {held}"
            )));
        }
        if indices.is_empty() || instances.is_empty() {
            return Ok(());
        }
        // SAFETY: recording inside the rendering; the indices lie in the bound buffer.
        unsafe {
            self.device.raw.cmd_draw_indexed(
                self.command_buffer,
                indices.len() as u32,
                instances.len() as u32,
                indices.start,
                vertex_offset,
                instances.start,
            )
        };
        Ok(())
    }

    /// Draws `count` `VkDrawIndexedIndirectCommand`s read from `buffer` at `offset`, `stride`
    /// bytes apart.
    pub fn draw_indexed_indirect(
        &mut self,
        buffer: &Buffer,
        offset: u64,
        count: u32,
        stride: u32,
    ) -> GpuResult<()> {
        if count == 0 {
            return self.check_indirect(buffer, offset, 0, stride);
        }
        self.check_indirect(buffer, offset, count, stride)?;
        // SAFETY: recording inside the rendering; the commands lie in the buffer, which is an
        // indirect buffer (checked above).
        unsafe {
            self.device.raw.cmd_draw_indexed_indirect(
                self.command_buffer,
                buffer.raw,
                offset,
                count,
                stride,
            )
        };
        Ok(())
    }
}

impl RenderPass<'_> {
    /// Draws as many `VkDrawIndexedIndirectCommand`s read from `buffer` at `offset`, `stride`
    /// bytes apart, as the `u32` at `count_offset` in `count_buffer` says when the GPU reads it
    /// (a count another pass wrote: a culling pass's), at most `max_draws`. Needs the device's
    /// `drawIndirectCount` (`Adapter::draw_indirect_count`).
    pub fn draw_indexed_indirect_count(
        &mut self,
        (buffer, offset): (&Buffer, u64),
        (count_buffer, count_offset): (&Buffer, u64),
        max_draws: u32,
        stride: u32,
    ) -> GpuResult<()> {
        if !self.device.adapter.draw_indirect_count {
            return Err(GpuError::Invalid(
                "an indirect draw with a count: the device has no drawIndirectCount".into(),
            ));
        }
        self.check_indirect(buffer, offset, max_draws, stride)?;
        if count_offset % 4 != 0
            || count_offset + 4 > count_buffer.size
            || !count_buffer
                .usage
                .contains(vk::BufferUsageFlags::INDIRECT_BUFFER)
        {
            return Err(GpuError::Invalid(format!(
                "an indirect draw count at byte {count_offset} of a {}-byte buffer with usage \
                 {:?}",
                count_buffer.size, count_buffer.usage
            )));
        }
        if max_draws == 0 {
            return Ok(());
        }
        // SAFETY: recording inside the rendering; the commands and the count lie in their
        // buffers, both indirect buffers (checked above); drawIndirectCount is on.
        unsafe {
            self.device.raw.cmd_draw_indexed_indirect_count(
                self.command_buffer,
                buffer.raw,
                offset,
                count_buffer.raw,
                count_offset,
                max_draws,
                stride,
            )
        };
        Ok(())
    }

    /// That an indexed indirect draw of up to `count` commands at `offset`, `stride` apart, reads
    /// within `buffer`, an indirect buffer, with an index buffer bound.
    fn check_indirect(
        &self,
        buffer: &Buffer,
        offset: u64,
        count: u32,
        stride: u32,
    ) -> GpuResult<()> {
        if self.indices.is_none() {
            return Err(GpuError::Invalid(
                "an indirect indexed draw with no index buffer".into(),
            ));
        }
        if count == 0 {
            return Ok(());
        }
        let stride_ok =
            count == 1 || (u64::from(stride) >= INDEXED_INDIRECT_BYTES && stride % 4 == 0);
        let end = offset + u64::from(count - 1) * u64::from(stride.max(1)) + INDEXED_INDIRECT_BYTES;
        if offset % 4 != 0
            || !stride_ok
            || end > buffer.size
            || !buffer.usage.contains(vk::BufferUsageFlags::INDIRECT_BUFFER)
        {
            return Err(GpuError::Invalid(format!(
                "{count} indirect draws at byte {offset}, stride {stride}, of a {}-byte buffer \
                 with usage {:?}",
                buffer.size, buffer.usage
            )));
        }
        Ok(())
    }
}

/// A compute pass being recorded into a frame's (or one-time commands') recording command
/// buffer: pipeline, descriptor sets, push constants and dispatches, with no `unsafe` at the
/// call site. Its barriers come from the frame graph (`FrameRing::pass`, `PassBuilder::compute`).
#[must_use = "record dispatches through it"]
pub struct ComputePass<'a> {
    device: &'a Device,
    command_buffer: vk::CommandBuffer,
    /// Whether a compute pipeline was bound.
    bound: bool,
}

impl<'a> ComputePass<'a> {
    /// Starts recording compute work into `command_buffer`, which must be recording.
    pub fn begin(device: &'a Device, command_buffer: vk::CommandBuffer) -> Self {
        Self {
            device,
            command_buffer,
            bound: false,
        }
    }

    /// Binds a compute pipeline (a graphics one is refused).
    pub fn bind_pipeline(&mut self, pipeline: &Pipeline) -> GpuResult<()> {
        if pipeline.bind_point != vk::PipelineBindPoint::COMPUTE {
            return Err(GpuError::Invalid(
                "a graphics pipeline bound in a compute pass".into(),
            ));
        }
        pipeline.bind(self.command_buffer);
        self.bound = true;
        Ok(())
    }

    /// Binds `set` as set number `index` of `layout` for compute.
    pub fn bind_set_at(&mut self, layout: &PipelineLayout, index: u32, set: vk::DescriptorSet) {
        // SAFETY: recording (the caller's command buffer); the set lives as long as its owner,
        // which retires its pool through the deferred queue.
        unsafe {
            self.device.raw.cmd_bind_descriptor_sets(
                self.command_buffer,
                vk::PipelineBindPoint::COMPUTE,
                layout.raw,
                index,
                &[set],
                &[],
            )
        };
    }

    /// Records push constants for `layout`'s stages.
    pub fn push<T: bytemuck::Pod>(&mut self, layout: &PipelineLayout, constants: &T) {
        layout.push(self.command_buffer, constants);
    }

    /// Dispatches `groups` workgroups (x, y, z) of the bound pipeline.
    pub fn dispatch(&mut self, groups: [u32; 3]) -> GpuResult<()> {
        if !self.bound {
            return Err(GpuError::Invalid(
                "a dispatch with no compute pipeline bound".into(),
            ));
        }
        if groups.contains(&0) {
            return Ok(());
        }
        // SAFETY: recording, outside any rendering; a compute pipeline is bound.
        unsafe {
            self.device
                .raw
                .cmd_dispatch(self.command_buffer, groups[0], groups[1], groups[2])
        };
        Ok(())
    }
}

impl Drop for RenderPass<'_> {
    fn drop(&mut self) {
        // SAFETY: rendering was begun by `begin` on this command buffer and not ended since.
        unsafe { self.device.cmd_end_rendering(self.command_buffer) };
    }
}
