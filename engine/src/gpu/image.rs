//! Images and their views: 2D targets, and 2D texture arrays with mips for the bindless table.

use std::sync::atomic::Ordering;
use std::sync::Arc;

use ash::vk;
use gpu_allocator::vulkan::Allocation;

use super::conv;
use super::deferred::Retired;
use super::device::Device;
use super::error::{GpuError, GpuResult, VkResultExt};
use super::memory::MemoryLocation;

/// What an image is used for at a point in a command buffer; barriers go from one to another.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ImageAccess {
    /// Contents not needed (first use, or about to be overwritten whole).
    Undefined,
    TransferDst,
    TransferSrc,
    /// Sampled in a fragment or compute shader.
    ShaderRead,
    ColorAttachment,
    DepthAttachment,
    /// Handed to the presentation engine.
    Present,
}

/// What an image is made with.
#[derive(Debug, Clone, Copy)]
pub struct ImageDesc<'a> {
    pub name: &'a str,
    pub format: vk::Format,
    pub width: u32,
    pub height: u32,
    /// Array layers; a texture array has one per material.
    pub layers: u32,
    pub mips: u32,
    pub usage: vk::ImageUsageFlags,
    /// `TYPE_2D_ARRAY` for texture arrays, `TYPE_2D` for targets.
    pub view_type: vk::ImageViewType,
}

/// An image, its memory and one view of all of it.
pub struct Image {
    pub raw: vk::Image,
    pub view: vk::ImageView,
    pub format: vk::Format,
    pub width: u32,
    pub height: u32,
    pub layers: u32,
    pub mips: u32,
    name: String,
    /// Unique among every image of the process: tells an image from a later one that Vulkan
    /// gave the same handle once the first was destroyed (the frame graph's kept images).
    id: u64,
    allocation: Option<Allocation>,
    device: Arc<Device>,
}

/// The next image's [`Image::id`].
static NEXT_ID: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(1);

/// The number of mips of a full chain down to 1×1.
pub fn full_mip_count(width: u32, height: u32) -> u32 {
    32 - width.max(height).max(1).leading_zeros()
}

impl Image {
    pub fn new(device: &Arc<Device>, desc: &ImageDesc<'_>) -> GpuResult<Self> {
        if desc.width == 0 || desc.height == 0 || desc.layers == 0 || desc.mips == 0 {
            return Err(GpuError::Invalid(format!(
                "image `{}` would be empty ({}×{}, {} layers, {} mips)",
                desc.name, desc.width, desc.height, desc.layers, desc.mips
            )));
        }
        if desc.mips > full_mip_count(desc.width, desc.height) {
            return Err(GpuError::Invalid(format!(
                "image `{}`: {} mips is more than a {}×{} image has",
                desc.name, desc.mips, desc.width, desc.height
            )));
        }
        let info = vk::ImageCreateInfo::default()
            .image_type(vk::ImageType::TYPE_2D)
            .format(desc.format)
            .extent(vk::Extent3D {
                width: desc.width,
                height: desc.height,
                depth: 1,
            })
            .mip_levels(desc.mips)
            .array_layers(desc.layers)
            .samples(vk::SampleCountFlags::TYPE_1)
            .tiling(vk::ImageTiling::OPTIMAL)
            .usage(desc.usage)
            .sharing_mode(vk::SharingMode::EXCLUSIVE)
            .initial_layout(vk::ImageLayout::UNDEFINED);
        // SAFETY: valid create info, live device.
        let raw = unsafe { device.raw.create_image(&info, None) }.vk("vkCreateImage")?;
        // SAFETY: just created on this device.
        let requirements = unsafe { device.raw.get_image_memory_requirements(raw) };
        let allocation =
            match device.allocate_memory(desc.name, requirements, MemoryLocation::GpuOnly, false) {
                Ok(allocation) => allocation,
                Err(error) => {
                    // SAFETY: never used.
                    unsafe { device.raw.destroy_image(raw, None) };
                    return Err(error);
                }
            };
        // SAFETY: fresh image, fitting allocation.
        let bound = unsafe {
            device
                .raw
                .bind_image_memory(raw, allocation.memory(), allocation.offset())
        }
        .vk("vkBindImageMemory");
        let view = bound.and_then(|()| {
            let view_info = vk::ImageViewCreateInfo::default()
                .image(raw)
                .view_type(desc.view_type)
                .format(desc.format)
                .subresource_range(full_range(desc.format, desc.mips, desc.layers));
            // SAFETY: the image is bound and the range lies within it.
            unsafe { device.raw.create_image_view(&view_info, None) }.vk("vkCreateImageView")
        });
        let view = match view {
            Ok(view) => view,
            Err(error) => {
                device.free_memory(allocation);
                // SAFETY: never used.
                unsafe { device.raw.destroy_image(raw, None) };
                return Err(error);
            }
        };
        device.set_name(raw, desc.name);
        device.set_name(view, &format!("{} view", desc.name));
        device
            .counters
            .images_created
            .fetch_add(1, Ordering::Relaxed);
        Ok(Self {
            raw,
            view,
            format: desc.format,
            width: desc.width,
            height: desc.height,
            layers: desc.layers,
            mips: desc.mips,
            name: desc.name.to_owned(),
            id: NEXT_ID.fetch_add(1, std::sync::atomic::Ordering::Relaxed),
            allocation: Some(allocation),
            device: device.clone(),
        })
    }

    pub fn name(&self) -> &str {
        &self.name
    }

    /// The whole image: every mip and layer.
    /// Unique among every image the process made (handles are not: Vulkan may give a new
    /// image the handle of one destroyed).
    pub fn id(&self) -> u64 {
        self.id
    }

    pub fn range(&self) -> vk::ImageSubresourceRange {
        full_range(self.format, self.mips, self.layers)
    }

    /// Records a barrier that moves the whole image from one use to another.
    pub fn barrier(&self, command_buffer: vk::CommandBuffer, from: ImageAccess, to: ImageAccess) {
        image_barrier(
            &self.device,
            command_buffer,
            self.raw,
            self.range(),
            from,
            to,
        );
    }
}

/// Every mip and layer of an image of `format`.
pub fn full_range(format: vk::Format, mips: u32, layers: u32) -> vk::ImageSubresourceRange {
    vk::ImageSubresourceRange::default()
        .aspect_mask(conv::aspect_of(format))
        .base_mip_level(0)
        .level_count(mips)
        .base_array_layer(0)
        .layer_count(layers)
}

/// Records a synchronization2 barrier of an image (also a swapchain image, which has no
/// [`Image`]) from one use to another.
pub fn image_barrier(
    device: &Device,
    command_buffer: vk::CommandBuffer,
    image: vk::Image,
    range: vk::ImageSubresourceRange,
    from: ImageAccess,
    to: ImageAccess,
) {
    let (old_layout, src_stage, src_access) = conv::image_access(from);
    let (new_layout, dst_stage, dst_access) = conv::image_access(to);
    // Present has no stage of its own: the acquire semaphore and the submit's signal order it.
    let src_stage = if src_stage == vk::PipelineStageFlags2::NONE {
        vk::PipelineStageFlags2::BOTTOM_OF_PIPE
    } else {
        src_stage
    };
    let dst_stage = if dst_stage == vk::PipelineStageFlags2::NONE {
        vk::PipelineStageFlags2::BOTTOM_OF_PIPE
    } else {
        dst_stage
    };
    let barrier = vk::ImageMemoryBarrier2::default()
        .src_stage_mask(src_stage)
        .src_access_mask(src_access)
        .dst_stage_mask(dst_stage)
        .dst_access_mask(dst_access)
        .old_layout(old_layout)
        .new_layout(new_layout)
        .src_queue_family_index(vk::QUEUE_FAMILY_IGNORED)
        .dst_queue_family_index(vk::QUEUE_FAMILY_IGNORED)
        .image(image)
        .subresource_range(range);
    let barriers = [barrier];
    let dependency = vk::DependencyInfo::default().image_memory_barriers(&barriers);
    // SAFETY: the command buffer is recording and the image belongs to this device.
    unsafe {
        device
            .raw
            .cmd_pipeline_barrier2(command_buffer, &dependency)
    };
}

impl Drop for Image {
    fn drop(&mut self) {
        // Destroyed once no submission that may use it is running (`super::deferred`).
        self.device.retire(Retired::Image {
            raw: self.raw,
            view: self.view,
            allocation: self.allocation.take(),
        });
    }
}

impl std::fmt::Debug for Image {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Image")
            .field("name", &self.name)
            .field("format", &self.format)
            .field("size", &(self.width, self.height))
            .field("layers", &self.layers)
            .field("mips", &self.mips)
            .finish()
    }
}

#[cfg(test)]
mod tests {
    use super::full_mip_count;

    #[test]
    fn mip_chain_reaches_one_texel() {
        assert_eq!(full_mip_count(1, 1), 1);
        assert_eq!(full_mip_count(256, 256), 9);
        assert_eq!(full_mip_count(256, 64), 9);
        assert_eq!(full_mip_count(300, 10), 9);
    }
}
