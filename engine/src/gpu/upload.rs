//! The staging path: data for GPU-only buffers and images goes through a mapped staging buffer
//! and a copy on the queue.
//!
//! A batch collects copies, then one submit does them all. The staging buffer is dropped right
//! after the submit (deferred destruction keeps it until the copy has run); the command buffers
//! are freed by [`Uploader::reclaim`] once the timeline says their copies finished. A batch
//! counts as a recording from `begin` to `submit`, so a destination dropped in between is kept
//! until the copy into it has run.

use super::retire::Retire;
use std::sync::Arc;

use ash::vk;

use super::buffer::{Buffer, BufferDesc};
use super::conv;
use super::debug::label_colour;
use super::device::{Device, Recording, Submission};
use super::error::{GpuError, GpuResult, VkResultExt};
use super::image::{Image, ImageAccess};
use super::memory::MemoryLocation;

/// Staging offsets are kept to this alignment: a multiple of every texel size and of the usual
/// `optimalBufferCopyOffsetAlignment`.
const STAGING_ALIGNMENT: usize = 256;

/// Uploads data to the GPU through staging buffers.
pub struct Uploader {
    device: Arc<Device>,
    pool: vk::CommandPool,
    /// Submitted command buffers, each kept until its copies have run (`super::retire`).
    in_flight: Retire<vk::CommandBuffer>,
}

enum Copy {
    Buffer {
        dst: vk::Buffer,
        dst_offset: u64,
        src_offset: u64,
        size: u64,
    },
    Image {
        image: vk::Image,
        format: vk::Format,
        width: u32,
        height: u32,
        layers: u32,
        mips: u32,
        src_offset: u64,
        final_access: ImageAccess,
    },
}

/// Copies waiting to be submitted together.
pub struct UploadBatch<'a> {
    uploader: &'a mut Uploader,
    name: String,
    staging: Vec<u8>,
    copies: Vec<Copy>,
    recording: Recording,
}

impl Uploader {
    pub fn new(device: &Arc<Device>) -> GpuResult<Self> {
        let info = vk::CommandPoolCreateInfo::default()
            .queue_family_index(device.adapter.queue_family)
            .flags(vk::CommandPoolCreateFlags::TRANSIENT);
        // SAFETY: valid create info.
        let pool = unsafe { device.raw.create_command_pool(&info, None) }
            .vk("vkCreateCommandPool(upload)")?;
        device.set_name(pool, "upload command pool");
        Ok(Self {
            device: device.clone(),
            pool,
            in_flight: Retire::default(),
        })
    }

    /// Starts a batch of copies; `name` labels its command buffer.
    pub fn begin(&mut self, name: &str) -> UploadBatch<'_> {
        let recording = self.device.begin_recording();
        UploadBatch {
            uploader: self,
            name: name.to_owned(),
            staging: Vec::new(),
            copies: Vec::new(),
            recording,
        }
    }

    /// Frees the command buffers whose copies have finished.
    pub fn reclaim(&mut self) -> GpuResult<()> {
        let completed = self.device.completed()?;
        let (device, pool) = (&self.device, self.pool);
        self.in_flight
            .release(completed, |command_buffer| -> GpuResult<()> {
                // SAFETY: the command buffer finished executing (timeline value reached).
                unsafe { device.raw.free_command_buffers(pool, &[command_buffer]) };
                Ok(())
            })
    }

    /// Upload command buffers not yet reclaimed.
    pub fn pending(&self) -> usize {
        self.in_flight.len()
    }
}

impl Drop for Uploader {
    fn drop(&mut self) {
        if !self.in_flight.is_empty() {
            // The latest submission covers every upload's.
            if let Err(error) = self.device.wait_for(self.device.last_submitted()) {
                log::error!("waiting for uploads before dropping the uploader: {error}");
            }
        }
        // SAFETY: every command buffer of the pool finished (waited above); destroying the pool
        // frees them.
        unsafe { self.device.raw.destroy_command_pool(self.pool, None) };
    }
}

impl UploadBatch<'_> {
    fn stage(&mut self, bytes: &[u8]) -> u64 {
        let offset = self.staging.len().next_multiple_of(STAGING_ALIGNMENT);
        self.staging.resize(offset, 0);
        self.staging.extend_from_slice(bytes);
        offset as u64
    }

    /// Copies `bytes` into `dst` at `offset`. `dst` needs `TRANSFER_DST` usage.
    pub fn buffer(&mut self, dst: &Buffer, offset: u64, bytes: &[u8]) -> GpuResult<()> {
        if !dst.usage.contains(vk::BufferUsageFlags::TRANSFER_DST) {
            return Err(GpuError::Invalid(format!(
                "buffer `{}` lacks TRANSFER_DST usage for an upload",
                dst.name()
            )));
        }
        if offset
            .checked_add(bytes.len() as u64)
            .is_none_or(|end| end > dst.size)
        {
            return Err(GpuError::Invalid(format!(
                "upload of {} bytes at {offset} overruns buffer `{}` of {} bytes",
                bytes.len(),
                dst.name(),
                dst.size
            )));
        }
        if bytes.is_empty() {
            return Ok(());
        }
        let src_offset = self.stage(bytes);
        self.copies.push(Copy::Buffer {
            dst: dst.raw,
            dst_offset: offset,
            src_offset,
            size: bytes.len() as u64,
        });
        Ok(())
    }

    /// Fills every mip and layer of `image`. `data` holds mip 0 of every layer, then mip 1 of
    /// every layer, and so on, tightly packed. Afterwards the image is in `final_access`.
    pub fn image(
        &mut self,
        image: &Image,
        data: &[u8],
        final_access: ImageAccess,
    ) -> GpuResult<()> {
        let texel = conv::bytes_per_texel(image.format).ok_or_else(|| {
            GpuError::Invalid(format!(
                "image `{}`: uploads of {:?} are not supported",
                image.name(),
                image.format
            ))
        })? as usize;
        let expected: usize = (0..image.mips)
            .map(|mip| {
                let w = (image.width >> mip).max(1) as usize;
                let h = (image.height >> mip).max(1) as usize;
                w * h * texel * image.layers as usize
            })
            .sum();
        if data.len() != expected {
            return Err(GpuError::Invalid(format!(
                "image `{}` needs {expected} bytes for {} mips of {} layers, got {}",
                image.name(),
                image.mips,
                image.layers,
                data.len()
            )));
        }
        let src_offset = self.stage(data);
        self.copies.push(Copy::Image {
            image: image.raw,
            format: image.format,
            width: image.width,
            height: image.height,
            layers: image.layers,
            mips: image.mips,
            src_offset,
            final_access,
        });
        Ok(())
    }

    /// Records and submits every copy; returns the timeline value that marks them done.
    pub fn submit(self) -> GpuResult<u64> {
        let UploadBatch {
            uploader,
            name,
            staging,
            copies,
            recording,
        } = self;
        uploader.reclaim()?;
        if copies.is_empty() {
            return Ok(uploader.device.last_submitted());
        }
        let device = uploader.device.clone();
        let mut staging_buffer = Buffer::new(
            &device,
            &BufferDesc {
                name: &format!("staging: {name}"),
                size: staging.len() as u64,
                usage: vk::BufferUsageFlags::TRANSFER_SRC,
                location: MemoryLocation::CpuToGpu,
            },
        )?;
        staging_buffer.write(0, &staging)?;

        let allocate = vk::CommandBufferAllocateInfo::default()
            .command_pool(uploader.pool)
            .level(vk::CommandBufferLevel::PRIMARY)
            .command_buffer_count(1);
        // SAFETY: the pool belongs to this uploader, which only this thread uses (&mut).
        let command_buffer = unsafe { device.raw.allocate_command_buffers(&allocate) }
            .vk("vkAllocateCommandBuffers(upload)")?[0];
        device.set_name(command_buffer, &format!("upload: {name}"));
        let begin = vk::CommandBufferBeginInfo::default()
            .flags(vk::CommandBufferUsageFlags::ONE_TIME_SUBMIT);
        // SAFETY: freshly allocated command buffer.
        unsafe { device.raw.begin_command_buffer(command_buffer, &begin) }
            .vk("vkBeginCommandBuffer(upload)")?;
        device.begin_label(
            command_buffer,
            &format!("upload: {name}"),
            label_colour::TRANSFER,
        );
        for copy in &copies {
            record_copy(&device, command_buffer, staging_buffer.raw, copy);
        }
        device.end_label(command_buffer);
        // SAFETY: recording; every command above is complete.
        unsafe { device.raw.end_command_buffer(command_buffer) }
            .vk("vkEndCommandBuffer(upload)")?;

        let value = device.submit(Submission {
            command_buffers: &[command_buffer],
            ..Default::default()
        })?;
        // Both are kept until the copies have run: the staging buffer by deferred destruction,
        // the destinations dropped since `begin` by the recording.
        drop(staging_buffer);
        drop(recording);
        uploader.in_flight.after(value, command_buffer);
        Ok(value)
    }
}

fn record_copy(
    device: &Device,
    command_buffer: vk::CommandBuffer,
    staging: vk::Buffer,
    copy: &Copy,
) {
    match *copy {
        Copy::Buffer {
            dst,
            dst_offset,
            src_offset,
            size,
        } => {
            let region = vk::BufferCopy {
                src_offset,
                dst_offset,
                size,
            };
            // SAFETY: both buffers live until the submit finishes (deferred destruction, with
            // the batch open as a recording); the region was bounds-checked.
            unsafe {
                device
                    .raw
                    .cmd_copy_buffer(command_buffer, staging, dst, &[region])
            };
        }
        Copy::Image {
            image,
            format,
            width,
            height,
            layers,
            mips,
            src_offset,
            final_access,
        } => {
            let texel = conv::bytes_per_texel(format).unwrap_or(4) as u64;
            let range = super::image::full_range(format, mips, layers);
            super::image::image_barrier(
                device,
                command_buffer,
                image,
                range,
                ImageAccess::Undefined,
                ImageAccess::TransferDst,
            );
            let mut offset = src_offset;
            let mut regions = Vec::with_capacity(mips as usize);
            for mip in 0..mips {
                let w = (width >> mip).max(1);
                let h = (height >> mip).max(1);
                regions.push(
                    vk::BufferImageCopy::default()
                        .buffer_offset(offset)
                        .image_subresource(
                            vk::ImageSubresourceLayers::default()
                                .aspect_mask(conv::aspect_of(format))
                                .mip_level(mip)
                                .base_array_layer(0)
                                .layer_count(layers),
                        )
                        .image_extent(vk::Extent3D {
                            width: w,
                            height: h,
                            depth: 1,
                        }),
                );
                offset += w as u64 * h as u64 * texel * layers as u64;
            }
            // SAFETY: the image is in TRANSFER_DST (barrier above); regions lie inside it and
            // inside the staging buffer (sizes checked when staged).
            unsafe {
                device.raw.cmd_copy_buffer_to_image(
                    command_buffer,
                    staging,
                    image,
                    vk::ImageLayout::TRANSFER_DST_OPTIMAL,
                    &regions,
                )
            };
            super::image::image_barrier(
                device,
                command_buffer,
                image,
                range,
                ImageAccess::TransferDst,
                final_access,
            );
        }
    }
}
