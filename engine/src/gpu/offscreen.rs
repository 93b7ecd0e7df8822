//! An offscreen colour target for headless runs, with a readback of its pixels.

use std::sync::Arc;

use ash::vk;

use super::barrier::BufferAccess;
use super::buffer::{Buffer, BufferDesc};
use super::conv;
use super::device::Device;
use super::error::{GpuError, GpuResult};
use super::image::{Image, ImageAccess, ImageDesc};
use super::memory::MemoryLocation;

/// Pixels read back from the GPU, 8-bit RGBA, rows top to bottom.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RgbaImage {
    pub width: u32,
    pub height: u32,
    pub pixels: Vec<u8>,
}

impl RgbaImage {
    /// The pixel at (x, y), or `None` outside the image.
    pub fn pixel(&self, x: u32, y: u32) -> Option<[u8; 4]> {
        if x >= self.width || y >= self.height {
            return None;
        }
        let i = ((y * self.width + x) * 4) as usize;
        self.pixels.get(i..i + 4).map(|p| [p[0], p[1], p[2], p[3]])
    }
}

/// A colour image to render into without a window, and a buffer to read it back through.
pub struct OffscreenTarget {
    pub color: Image,
    readback: ImageReadback,
}

/// A host-visible buffer to read one 8-bit colour image back through: an offscreen target's,
/// or a window's swapchain image for a screenshot.
pub struct ImageReadback {
    buffer: Buffer,
    width: u32,
    height: u32,
    format: vk::Format,
}

impl ImageReadback {
    /// A readback of a `width` × `height` image of `format` (8-bit RGBA or BGRA colour).
    pub fn new(
        device: &Arc<Device>,
        width: u32,
        height: u32,
        format: vk::Format,
    ) -> GpuResult<Self> {
        if conv::bytes_per_texel(format) != Some(4)
            || conv::aspect_of(format) != vk::ImageAspectFlags::COLOR
        {
            return Err(GpuError::Invalid(format!(
                "readback of format {format:?}: only 8-bit RGBA/BGRA colour is read back"
            )));
        }
        let buffer = Buffer::new(
            device,
            &BufferDesc {
                name: "image readback",
                size: u64::from(width) * u64::from(height) * 4,
                usage: vk::BufferUsageFlags::TRANSFER_DST,
                location: MemoryLocation::GpuToCpu,
            },
        )?;
        Ok(Self {
            buffer,
            width,
            height,
            format,
        })
    }

    /// Records the copy of `image` (its size and format as given to [`ImageReadback::new`],
    /// made with `TRANSFER_SRC` usage, now in `current`) into the buffer, and leaves the image
    /// in `after`. Read with [`ImageReadback::pixels`] once the frame has finished.
    pub fn record(
        &self,
        device: &Device,
        command_buffer: vk::CommandBuffer,
        image: vk::Image,
        current: ImageAccess,
        after: ImageAccess,
    ) {
        let range = super::image::full_range(self.format, 1, 1);
        super::image::image_barrier(
            device,
            command_buffer,
            image,
            range,
            current,
            ImageAccess::TransferSrc,
        );
        let region = vk::BufferImageCopy::default()
            .image_subresource(
                vk::ImageSubresourceLayers::default()
                    .aspect_mask(vk::ImageAspectFlags::COLOR)
                    .mip_level(0)
                    .base_array_layer(0)
                    .layer_count(1),
            )
            .image_extent(vk::Extent3D {
                width: self.width,
                height: self.height,
                depth: 1,
            });
        // SAFETY: recording; the image is in TRANSFER_SRC (barrier above), of this size, and
        // the buffer holds exactly width × height × 4 bytes.
        unsafe {
            device.raw.cmd_copy_image_to_buffer(
                command_buffer,
                image,
                vk::ImageLayout::TRANSFER_SRC_OPTIMAL,
                self.buffer.raw,
                &[region],
            )
        };
        super::image::image_barrier(
            device,
            command_buffer,
            image,
            range,
            ImageAccess::TransferSrc,
            after,
        );
        // Make the transfer's writes visible to the host read.
        super::barrier::memory_barrier(
            device,
            command_buffer,
            &[BufferAccess::TransferWrite],
            &[BufferAccess::HostRead],
        );
    }

    /// The pixels of the last copy, as RGBA (BGRA images are swapped).
    pub fn pixels(&self) -> GpuResult<RgbaImage> {
        let mut pixels = self.buffer.read::<u8>()?;
        if conv::is_bgra(self.format) {
            for pixel in pixels.chunks_exact_mut(4) {
                pixel.swap(0, 2);
            }
        }
        Ok(RgbaImage {
            width: self.width,
            height: self.height,
            pixels,
        })
    }
}

impl OffscreenTarget {
    /// `format` is an 8-bit RGBA or BGRA format (sRGB for what people look at).
    pub fn new(
        device: &Arc<Device>,
        width: u32,
        height: u32,
        format: vk::Format,
    ) -> GpuResult<Self> {
        // Checks the format first: only 8-bit RGBA/BGRA colour is read back.
        let readback = ImageReadback::new(device, width, height, format)?;
        let color = Image::new(
            device,
            &ImageDesc {
                name: "offscreen colour",
                format,
                width,
                height,
                layers: 1,
                mips: 1,
                usage: vk::ImageUsageFlags::COLOR_ATTACHMENT | vk::ImageUsageFlags::TRANSFER_SRC,
                view_type: vk::ImageViewType::TYPE_2D,
            },
        )?;
        Ok(Self { color, readback })
    }

    /// Records the copy of the colour image (now in `current`) into the readback buffer; the
    /// image is left in `ColorAttachment` for the next frame. Read with
    /// [`OffscreenTarget::pixels`] once the frame has finished.
    pub fn record_readback(
        &self,
        device: &Device,
        command_buffer: vk::CommandBuffer,
        current: ImageAccess,
    ) {
        self.readback.record(
            device,
            command_buffer,
            self.color.raw,
            current,
            ImageAccess::ColorAttachment,
        );
    }

    /// The pixels of the last readback, as RGBA (BGRA targets are swapped).
    pub fn pixels(&self) -> GpuResult<RgbaImage> {
        self.readback.pixels()
    }
}

#[cfg(test)]
mod tests {
    use super::RgbaImage;

    #[test]
    fn pixel_reads_rows_top_down_and_refuses_outside() {
        let image = RgbaImage {
            width: 2,
            height: 2,
            pixels: (0..16).collect(),
        };
        assert_eq!(image.pixel(1, 0), Some([4, 5, 6, 7]));
        assert_eq!(image.pixel(0, 1), Some([8, 9, 10, 11]));
        assert_eq!(image.pixel(2, 0), None);
    }
}
