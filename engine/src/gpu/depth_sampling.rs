//! A depth image sampled with comparison by draw passes (a shadow map), with a uniform block
//! the CPU writes each frame (what the passes need to look it up: the light's projections):
//!
//! ```text
//!   set N  binding 0  sampler2DShadow   (immutable sampler: linear, clamped to a white border,
//!                                        compare LESS_OR_EQUAL: 1 where the reference is not
//!                                        behind the stored depth, bilinear over the 2×2)
//!          binding 1  uniform block     one buffer per frame in flight, host-visible
//! ```
//!
//! One set per frame in flight, each pointing at the same image and its own buffer:
//! [`DepthSampling::write`] fills the buffer of the slot being recorded, which no frame in
//! flight reads (the slot's last submission has finished: `FrameRing::begin`). The image is
//! fixed for the sets' life; a different image means a new `DepthSampling` (the old one's pool,
//! sampler and buffers go through deferred destruction).

use std::sync::Arc;

use ash::vk;

use super::buffer::{Buffer, BufferDesc};
use super::deferred::Retired;
use super::device::Device;
use super::error::{GpuError, GpuResult, VkResultExt};
use super::frame::FRAMES_IN_FLIGHT;
use super::memory::MemoryLocation;

/// The layout of [`DepthSampling`]'s sets and its comparison sampler: made once, so that the
/// pipelines that sample a depth image can be made before the image (or a new image, of
/// another size) is.
pub struct DepthSamplingLayout {
    pub raw: vk::DescriptorSetLayout,
    sampler: vk::Sampler,
    device: Arc<Device>,
}

impl DepthSamplingLayout {
    /// The layout, its bindings visible to `stages`.
    pub fn new(
        device: &Arc<Device>,
        name: &str,
        stages: vk::ShaderStageFlags,
    ) -> GpuResult<Arc<Self>> {
        let sampler_info = vk::SamplerCreateInfo::default()
            .mag_filter(vk::Filter::LINEAR)
            .min_filter(vk::Filter::LINEAR)
            .mipmap_mode(vk::SamplerMipmapMode::NEAREST)
            .address_mode_u(vk::SamplerAddressMode::CLAMP_TO_BORDER)
            .address_mode_v(vk::SamplerAddressMode::CLAMP_TO_BORDER)
            .address_mode_w(vk::SamplerAddressMode::CLAMP_TO_BORDER)
            .border_color(vk::BorderColor::FLOAT_OPAQUE_WHITE)
            .compare_enable(true)
            .compare_op(vk::CompareOp::LESS_OR_EQUAL)
            .max_lod(0.0);
        // SAFETY: valid create info.
        let sampler =
            unsafe { device.raw.create_sampler(&sampler_info, None) }.vk("vkCreateSampler")?;
        device.set_name(sampler, &format!("{name}: comparison sampler"));
        let mut this = Self {
            raw: vk::DescriptorSetLayout::null(),
            sampler,
            device: device.clone(),
        };
        // From here on a failure drops `this`, which retires what was made.
        let samplers = [sampler];
        let bindings = [
            vk::DescriptorSetLayoutBinding::default()
                .binding(0)
                .descriptor_type(vk::DescriptorType::COMBINED_IMAGE_SAMPLER)
                .descriptor_count(1)
                .stage_flags(stages)
                .immutable_samplers(&samplers),
            vk::DescriptorSetLayoutBinding::default()
                .binding(1)
                .descriptor_type(vk::DescriptorType::UNIFORM_BUFFER)
                .descriptor_count(1)
                .stage_flags(stages),
        ];
        let info = vk::DescriptorSetLayoutCreateInfo::default().bindings(&bindings);
        // SAFETY: valid create info; the sampler lives as long as the layout.
        this.raw = unsafe { device.raw.create_descriptor_set_layout(&info, None) }
            .vk("vkCreateDescriptorSetLayout")?;
        device.set_name(this.raw, &format!("{name}: set layout"));
        Ok(Arc::new(this))
    }
}

impl Drop for DepthSamplingLayout {
    fn drop(&mut self) {
        // Once no submission that may use it runs (`super::deferred`); a null pool is
        // destroyed as nothing.
        self.device.retire(Retired::DescriptorPool {
            pool: vk::DescriptorPool::null(),
            layout: self.raw,
        });
        self.device.retire(Retired::Sampler(self.sampler));
    }
}

/// A depth image's comparison sampling and a per-frame uniform block, as one descriptor set per
/// frame in flight.
pub struct DepthSampling {
    layout: Arc<DepthSamplingLayout>,
    pool: vk::DescriptorPool,
    sets: Vec<vk::DescriptorSet>,
    buffers: Vec<Buffer>,
    block_bytes: u64,
}

impl DepthSampling {
    /// Sets of `layout` sampling `view` (a depth image in `SHADER_READ_ONLY_OPTIMAL` layout when
    /// drawn with) with a uniform block of `block_bytes`.
    pub fn new(
        layout: &Arc<DepthSamplingLayout>,
        name: &str,
        view: vk::ImageView,
        block_bytes: u64,
    ) -> GpuResult<Self> {
        if block_bytes == 0 {
            return Err(GpuError::Invalid(format!("{name}: an empty uniform block")));
        }
        let device = &layout.device;
        let mut this = Self {
            layout: layout.clone(),
            pool: vk::DescriptorPool::null(),
            sets: Vec::new(),
            buffers: Vec::new(),
            block_bytes,
        };
        let sets = FRAMES_IN_FLIGHT as u32;
        let sizes = [
            vk::DescriptorPoolSize {
                ty: vk::DescriptorType::COMBINED_IMAGE_SAMPLER,
                descriptor_count: sets,
            },
            vk::DescriptorPoolSize {
                ty: vk::DescriptorType::UNIFORM_BUFFER,
                descriptor_count: sets,
            },
        ];
        let pool_info = vk::DescriptorPoolCreateInfo::default()
            .max_sets(sets)
            .pool_sizes(&sizes);
        // SAFETY: valid create info.
        this.pool = unsafe { device.raw.create_descriptor_pool(&pool_info, None) }
            .vk("vkCreateDescriptorPool")?;
        device.set_name(this.pool, &format!("{name}: pool"));
        for slot in 0..FRAMES_IN_FLIGHT {
            let buffer = Buffer::new(
                device,
                &BufferDesc {
                    name: &format!("{name}: uniform block, frame slot {slot}"),
                    size: block_bytes,
                    usage: vk::BufferUsageFlags::UNIFORM_BUFFER,
                    location: MemoryLocation::CpuToGpu,
                },
            )?;
            let layouts = [layout.raw];
            let allocate = vk::DescriptorSetAllocateInfo::default()
                .descriptor_pool(this.pool)
                .set_layouts(&layouts);
            // SAFETY: the pool has room for one set per frame slot.
            let set = unsafe { device.raw.allocate_descriptor_sets(&allocate) }
                .vk("vkAllocateDescriptorSets")?[0];
            device.set_name(set, &format!("{name}: set, frame slot {slot}"));
            let image_info = [vk::DescriptorImageInfo::default()
                .image_view(view)
                .image_layout(vk::ImageLayout::SHADER_READ_ONLY_OPTIMAL)];
            let buffer_info = [vk::DescriptorBufferInfo::default()
                .buffer(buffer.raw)
                .offset(0)
                .range(block_bytes)];
            let writes = [
                vk::WriteDescriptorSet::default()
                    .dst_set(set)
                    .dst_binding(0)
                    .descriptor_type(vk::DescriptorType::COMBINED_IMAGE_SAMPLER)
                    .image_info(&image_info),
                vk::WriteDescriptorSet::default()
                    .dst_set(set)
                    .dst_binding(1)
                    .descriptor_type(vk::DescriptorType::UNIFORM_BUFFER)
                    .buffer_info(&buffer_info),
            ];
            // SAFETY: the set is fresh and not in use; the view and buffer are live.
            unsafe { device.raw.update_descriptor_sets(&writes, &[]) };
            this.sets.push(set);
            this.buffers.push(buffer);
        }
        Ok(this)
    }

    /// Writes the uniform block of frame slot `slot` (`FrameRing::slot`, the frame being
    /// recorded) and returns that slot's set to bind.
    pub fn write<T: bytemuck::Pod>(
        &mut self,
        slot: usize,
        block: &T,
    ) -> GpuResult<vk::DescriptorSet> {
        let bytes = std::mem::size_of::<T>() as u64;
        if bytes != self.block_bytes {
            return Err(GpuError::Invalid(format!(
                "a uniform block of {bytes} bytes written where {} were declared",
                self.block_bytes
            )));
        }
        let buffer = self
            .buffers
            .get_mut(slot)
            .ok_or_else(|| GpuError::Invalid(format!("frame slot {slot} of {FRAMES_IN_FLIGHT}")))?;
        buffer.write(0, std::slice::from_ref(block))?;
        Ok(self.sets[slot])
    }
}

impl Drop for DepthSampling {
    fn drop(&mut self) {
        // The pool (and its sets) goes once no submission that may bind a set is running
        // (`super::deferred`); the buffers retire themselves, the layout when its last user
        // goes. A null layout is destroyed as nothing.
        self.layout.device.retire(Retired::DescriptorPool {
            pool: self.pool,
            layout: vk::DescriptorSetLayout::null(),
        });
    }
}
