//! The bindless table (descriptor indexing): one descriptor set with a sampler and a
//! variable-count, partially-bound, update-after-bind array of sampled images. Each entry is a 2D
//! texture array with mips (one layer per material); shaders index it with `nonuniformEXT(slot)`.
//!
//! ```text
//!   set 0  binding 0  sampler            (immutable: linear, repeat, trilinear, anisotropic)
//!          binding 1  texture2DArray[]   slot 0 | slot 1 | ... | capacity-1   (holes allowed)
//! ```
//! Bound once per command buffer; registering a texture writes one descriptor, even while frames
//! that use other slots are in flight (update-after-bind). A released slot is reused only after
//! the submission that last used it has finished.

use std::sync::Arc;

use ash::vk;

use super::deferred::Retired;
use super::device::Device;
use super::error::{GpuError, GpuResult, VkResultExt};
use super::image::Image;

/// The most texture arrays the table holds, if the device allows that many.
pub const DEFAULT_CAPACITY: u32 = 1024;

/// Binding of the sampler in the bindless set.
pub const SAMPLER_BINDING: u32 = 0;
/// Binding of the texture array in the bindless set.
pub const TEXTURES_BINDING: u32 = 1;

/// Where a texture array sits in the table: the index shaders use.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct TextureSlot(pub u32);

/// The table of texture arrays.
pub struct BindlessTable {
    pub layout: vk::DescriptorSetLayout,
    pub set: vk::DescriptorSet,
    pool: vk::DescriptorPool,
    sampler: vk::Sampler,
    capacity: u32,
    used: Vec<bool>,
    free: Vec<u32>,
    /// Slots released, free again once the timeline passes the value.
    retired: Vec<(u64, u32)>,
    device: Arc<Device>,
}

impl BindlessTable {
    pub fn new(device: &Arc<Device>, wanted_capacity: u32) -> GpuResult<Self> {
        let limits = &device.adapter.limits;
        // Update-after-bind limits live in the descriptor-indexing properties; the plain ones
        // are a safe lower bound that every device reports.
        let mut indexing = vk::PhysicalDeviceDescriptorIndexingProperties::default();
        let mut properties = vk::PhysicalDeviceProperties2::default().push_next(&mut indexing);
        // SAFETY: plain query of the device's adapter.
        unsafe {
            device
                .instance
                .raw
                .get_physical_device_properties2(device.adapter.raw, &mut properties)
        };
        let limit = indexing
            .max_descriptor_set_update_after_bind_sampled_images
            .min(indexing.max_per_stage_descriptor_update_after_bind_sampled_images)
            .max(limits.max_per_stage_descriptor_sampled_images);
        let capacity = wanted_capacity.min(limit).max(1);

        let anisotropy = device.adapter.sampler_anisotropy;
        let sampler_info = vk::SamplerCreateInfo::default()
            .mag_filter(vk::Filter::LINEAR)
            .min_filter(vk::Filter::LINEAR)
            .mipmap_mode(vk::SamplerMipmapMode::LINEAR)
            .address_mode_u(vk::SamplerAddressMode::REPEAT)
            .address_mode_v(vk::SamplerAddressMode::REPEAT)
            .address_mode_w(vk::SamplerAddressMode::REPEAT)
            .anisotropy_enable(anisotropy)
            .max_anisotropy(if anisotropy {
                limits.max_sampler_anisotropy.min(16.0)
            } else {
                1.0
            })
            .min_lod(0.0)
            .max_lod(vk::LOD_CLAMP_NONE);
        // SAFETY: valid create info; anisotropy only when the feature was enabled.
        let sampler = unsafe { device.raw.create_sampler(&sampler_info, None) }
            .vk("vkCreateSampler(bindless)")?;
        device.set_name(sampler, "bindless: material sampler");

        let samplers = [sampler];
        let bindings = [
            vk::DescriptorSetLayoutBinding::default()
                .binding(SAMPLER_BINDING)
                .descriptor_type(vk::DescriptorType::SAMPLER)
                .descriptor_count(1)
                .stage_flags(vk::ShaderStageFlags::ALL)
                .immutable_samplers(&samplers),
            vk::DescriptorSetLayoutBinding::default()
                .binding(TEXTURES_BINDING)
                .descriptor_type(vk::DescriptorType::SAMPLED_IMAGE)
                .descriptor_count(capacity)
                .stage_flags(vk::ShaderStageFlags::ALL),
        ];
        let binding_flags = [
            vk::DescriptorBindingFlags::empty(),
            vk::DescriptorBindingFlags::PARTIALLY_BOUND
                | vk::DescriptorBindingFlags::UPDATE_AFTER_BIND
                | vk::DescriptorBindingFlags::VARIABLE_DESCRIPTOR_COUNT,
        ];
        let mut flags_info =
            vk::DescriptorSetLayoutBindingFlagsCreateInfo::default().binding_flags(&binding_flags);
        let layout_info = vk::DescriptorSetLayoutCreateInfo::default()
            .flags(vk::DescriptorSetLayoutCreateFlags::UPDATE_AFTER_BIND_POOL)
            .bindings(&bindings)
            .push_next(&mut flags_info);
        // SAFETY: the features behind every flag were enabled at device creation.
        let layout = unsafe { device.raw.create_descriptor_set_layout(&layout_info, None) }
            .vk("vkCreateDescriptorSetLayout(bindless)")?;
        device.set_name(layout, "bindless: set layout");

        let pool_sizes = [
            vk::DescriptorPoolSize {
                ty: vk::DescriptorType::SAMPLER,
                descriptor_count: 1,
            },
            vk::DescriptorPoolSize {
                ty: vk::DescriptorType::SAMPLED_IMAGE,
                descriptor_count: capacity,
            },
        ];
        let pool_info = vk::DescriptorPoolCreateInfo::default()
            .flags(vk::DescriptorPoolCreateFlags::UPDATE_AFTER_BIND)
            .max_sets(1)
            .pool_sizes(&pool_sizes);
        // SAFETY: valid create info.
        let pool = unsafe { device.raw.create_descriptor_pool(&pool_info, None) }
            .vk("vkCreateDescriptorPool(bindless)")?;
        device.set_name(pool, "bindless: pool");

        let counts = [capacity];
        let mut variable = vk::DescriptorSetVariableDescriptorCountAllocateInfo::default()
            .descriptor_counts(&counts);
        let layouts = [layout];
        let allocate = vk::DescriptorSetAllocateInfo::default()
            .descriptor_pool(pool)
            .set_layouts(&layouts)
            .push_next(&mut variable);
        // SAFETY: the pool has room for exactly this set.
        let set = unsafe { device.raw.allocate_descriptor_sets(&allocate) }
            .vk("vkAllocateDescriptorSets(bindless)")?[0];
        device.set_name(set, "bindless: table");

        log::debug!("bindless table: {capacity} texture arrays");
        Ok(Self {
            layout,
            set,
            pool,
            sampler,
            capacity,
            used: vec![false; capacity as usize],
            // Popped from the back: slot 0 first.
            free: (0..capacity).rev().collect(),
            retired: Vec::new(),
            device: device.clone(),
        })
    }

    /// How many texture arrays fit.
    pub fn capacity(&self) -> u32 {
        self.capacity
    }

    /// How many slots are taken.
    pub fn len(&self) -> usize {
        self.used.iter().filter(|&&u| u).count()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Puts a texture array (in `SHADER_READ_ONLY_OPTIMAL` when sampled) into a free slot.
    pub fn register(&mut self, image: &Image) -> GpuResult<TextureSlot> {
        self.reclaim()?;
        let slot = self.free.pop().ok_or_else(|| {
            GpuError::Invalid(format!(
                "the bindless table is full ({} texture arrays)",
                self.capacity
            ))
        })?;
        self.write(slot, image.view);
        self.used[slot as usize] = true;
        Ok(TextureSlot(slot))
    }

    /// Points a taken slot at another texture array (a texture rebuilt at another size).
    pub fn replace(&mut self, slot: TextureSlot, image: &Image) -> GpuResult<()> {
        if !self.used.get(slot.0 as usize).copied().unwrap_or(false) {
            return Err(GpuError::Invalid(format!(
                "bindless slot {} is not taken",
                slot.0
            )));
        }
        self.write(slot.0, image.view);
        Ok(())
    }

    /// Frees a slot once submission `last_use` (the last that may sample it) has finished.
    pub fn release(&mut self, slot: TextureSlot, last_use: u64) {
        if let Some(used) = self.used.get_mut(slot.0 as usize) {
            if *used {
                *used = false;
                self.retired.push((last_use, slot.0));
            }
        }
    }

    fn reclaim(&mut self) -> GpuResult<()> {
        if self.retired.is_empty() {
            return Ok(());
        }
        let completed = self.device.completed()?;
        let free = &mut self.free;
        self.retired.retain(|&(value, slot)| {
            if value <= completed {
                free.push(slot);
                false
            } else {
                true
            }
        });
        Ok(())
    }

    fn write(&self, slot: u32, view: vk::ImageView) {
        let image_info = [vk::DescriptorImageInfo::default()
            .image_view(view)
            .image_layout(vk::ImageLayout::SHADER_READ_ONLY_OPTIMAL)];
        let write = vk::WriteDescriptorSet::default()
            .dst_set(self.set)
            .dst_binding(TEXTURES_BINDING)
            .dst_array_element(slot)
            .descriptor_type(vk::DescriptorType::SAMPLED_IMAGE)
            .image_info(&image_info);
        // SAFETY: the slot is within capacity; update-after-bind allows writing a slot no
        // pending command buffer uses (released slots wait for their last use to finish).
        unsafe { self.device.raw.update_descriptor_sets(&[write], &[]) };
    }
}

impl Drop for BindlessTable {
    fn drop(&mut self) {
        // Destroyed once no submission that may bind the set is running (`super::deferred`);
        // destroying the pool frees the set.
        self.device.retire(Retired::DescriptorPool {
            pool: self.pool,
            layout: self.layout,
        });
        self.device.retire(Retired::Sampler(self.sampler));
    }
}
