//! The bindless table (descriptor indexing): one descriptor set with a sampler and a
//! variable-count, partially-bound, update-after-bind array of sampled images. Each entry is a 2D
//! texture array with mips (one layer per material); shaders index it with `nonuniformEXT(slot)`.
//!
//! ```text
//!   set 0  binding 0  sampler            (immutable: linear, repeat, trilinear, anisotropic)
//!          binding 1  texture2DArray[]   slot 0 | slot 1 | ... | capacity-1   (holes allowed)
//! ```
//! Bound once per command buffer; binding a texture writes one descriptor, even while frames
//! that use other slots are in flight (update-after-bind).
//!
//! A texture in the table is a [`BoundTexture`]: it owns the image and its slot, and dropping it
//! gives both back through the device's deferred queue (`super::deferred`), keyed like every
//! other object: the slot returns to the table, and the image is destroyed, only once every
//! submission that may sample it has finished. So a texture rebuilt any number of times never
//! runs the table out of slots, and a slot is never pointed at a new image while a frame in
//! flight still reads the old one.
//!
//! ```text
//!   bind(image) ──▶ BoundTexture { image, slot }      the slot's descriptor: the image's view
//!   drop ──▶ deferred queue (slot, image) ── timeline passes ──▶ slot back in `returned`,
//!                                                                 image destroyed
//!   next bind ──▶ the table takes the returned slots back first
//! ```

use std::sync::{Arc, Mutex, PoisonError};

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

/// Slots whose texture was dropped and whose last use has finished, waiting for the table to
/// take them back (shared by the table and the deferred queue).
pub(crate) type ReturnedSlots = Arc<Mutex<Vec<u32>>>;

/// A texture array in the bindless table: the image and the slot shaders sample it by. Dropping
/// it frees both once the GPU is done with them (the module's header).
pub struct BoundTexture {
    image: Image,
    slot: TextureSlot,
    returned: ReturnedSlots,
    device: Arc<Device>,
}

impl BoundTexture {
    /// The slot shaders index the table with.
    pub fn slot(&self) -> TextureSlot {
        self.slot
    }

    /// The texture array.
    pub fn image(&self) -> &Image {
        &self.image
    }
}

impl std::fmt::Debug for BoundTexture {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("BoundTexture")
            .field("slot", &self.slot)
            .finish_non_exhaustive()
    }
}

impl Drop for BoundTexture {
    fn drop(&mut self) {
        // Keyed as the image is (it retires right after this, when the field drops): the slot
        // comes back once nothing that may sample the image is running.
        self.device.retire(Retired::BindlessSlot {
            slot: self.slot.0,
            returned: self.returned.clone(),
        });
    }
}

/// The table of texture arrays.
pub struct BindlessTable {
    pub layout: vk::DescriptorSetLayout,
    pub set: vk::DescriptorSet,
    pool: vk::DescriptorPool,
    sampler: vk::Sampler,
    capacity: u32,
    used: Vec<bool>,
    free: Vec<u32>,
    /// Slots of dropped textures whose last use has finished (filled by the deferred queue).
    returned: ReturnedSlots,
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
            returned: Arc::default(),
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

    /// Puts a texture array (in `SHADER_READ_ONLY_OPTIMAL` when sampled) into a free slot; the
    /// slot is the texture's until it drops. Fails when every slot is taken by a texture alive
    /// or not yet finished with by the GPU.
    pub fn bind(&mut self, image: Image) -> GpuResult<BoundTexture> {
        self.reclaim()?;
        let slot = self.free.pop().ok_or_else(|| {
            GpuError::Invalid(format!(
                "the bindless table is full ({} texture arrays)",
                self.capacity
            ))
        })?;
        self.write(slot, image.view);
        self.used[slot as usize] = true;
        Ok(BoundTexture {
            image,
            slot: TextureSlot(slot),
            returned: self.returned.clone(),
            device: self.device.clone(),
        })
    }

    /// Takes back the slots of dropped textures the GPU is done with: what finished is
    /// collected from the deferred queue first.
    fn reclaim(&mut self) -> GpuResult<()> {
        self.device.destroy_finished()?;
        let mut returned = self.returned.lock().unwrap_or_else(PoisonError::into_inner);
        for slot in returned.drain(..) {
            if let Some(used) = self.used.get_mut(slot as usize) {
                if std::mem::replace(used, false) {
                    self.free.push(slot);
                }
            }
        }
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
