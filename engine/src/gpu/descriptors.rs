//! Descriptor sets of buffers, for compute passes: a layout, a pool and the sets made from it.

use std::sync::Arc;

use ash::vk;

use super::buffer::Buffer;
use super::deferred::Retired;
use super::device::Device;
use super::error::{GpuError, GpuResult, VkResultExt};

/// A descriptor set layout of buffer bindings (0, 1, 2, … in order) and sets allocated from it.
pub struct BufferSetLayout {
    pub raw: vk::DescriptorSetLayout,
    kinds: Vec<vk::DescriptorType>,
    pool: vk::DescriptorPool,
    device: Arc<Device>,
}

impl BufferSetLayout {
    /// A layout whose binding `i` is of `kinds[i]` (storage or uniform buffers), with room for
    /// `max_sets` sets.
    pub fn new(
        device: &Arc<Device>,
        name: &str,
        kinds: &[vk::DescriptorType],
        stages: vk::ShaderStageFlags,
        max_sets: u32,
    ) -> GpuResult<Self> {
        if let Some(kind) = kinds.iter().find(|k| {
            !matches!(
                **k,
                vk::DescriptorType::STORAGE_BUFFER | vk::DescriptorType::UNIFORM_BUFFER
            )
        }) {
            return Err(GpuError::Invalid(format!(
                "{name}: {kind:?} is not a buffer descriptor"
            )));
        }
        let bindings: Vec<vk::DescriptorSetLayoutBinding> = kinds
            .iter()
            .enumerate()
            .map(|(i, &kind)| {
                vk::DescriptorSetLayoutBinding::default()
                    .binding(i as u32)
                    .descriptor_type(kind)
                    .descriptor_count(1)
                    .stage_flags(stages)
            })
            .collect();
        let info = vk::DescriptorSetLayoutCreateInfo::default().bindings(&bindings);
        // SAFETY: valid create info.
        let raw = unsafe { device.raw.create_descriptor_set_layout(&info, None) }
            .vk("vkCreateDescriptorSetLayout")?;
        device.set_name(raw, &format!("{name}: set layout"));

        let mut sizes: Vec<vk::DescriptorPoolSize> = Vec::new();
        for &kind in kinds {
            match sizes.iter_mut().find(|s| s.ty == kind) {
                Some(size) => size.descriptor_count += max_sets,
                None => sizes.push(vk::DescriptorPoolSize {
                    ty: kind,
                    descriptor_count: max_sets,
                }),
            }
        }
        let pool_info = vk::DescriptorPoolCreateInfo::default()
            .max_sets(max_sets.max(1))
            .pool_sizes(&sizes);
        // SAFETY: valid create info.
        let pool = match unsafe { device.raw.create_descriptor_pool(&pool_info, None) }
            .vk("vkCreateDescriptorPool")
        {
            Ok(pool) => pool,
            Err(error) => {
                // SAFETY: unused layout.
                unsafe { device.raw.destroy_descriptor_set_layout(raw, None) };
                return Err(error);
            }
        };
        device.set_name(pool, &format!("{name}: pool"));
        Ok(Self {
            raw,
            kinds: kinds.to_vec(),
            pool,
            device: device.clone(),
        })
    }

    /// Allocates a set and points its bindings at `buffers` (whole buffers, in binding order).
    pub fn allocate(&self, name: &str, buffers: &[&Buffer]) -> GpuResult<vk::DescriptorSet> {
        if buffers.len() != self.kinds.len() {
            return Err(GpuError::Invalid(format!(
                "{name}: {} buffers for {} bindings",
                buffers.len(),
                self.kinds.len()
            )));
        }
        let layouts = [self.raw];
        let info = vk::DescriptorSetAllocateInfo::default()
            .descriptor_pool(self.pool)
            .set_layouts(&layouts);
        // SAFETY: the pool was sized for `max_sets` sets of this layout.
        let set = unsafe { self.device.raw.allocate_descriptor_sets(&info) }
            .vk("vkAllocateDescriptorSets")?[0];
        self.device.set_name(set, name);
        let infos: Vec<[vk::DescriptorBufferInfo; 1]> = buffers
            .iter()
            .map(|b| {
                [vk::DescriptorBufferInfo::default()
                    .buffer(b.raw)
                    .offset(0)
                    .range(vk::WHOLE_SIZE)]
            })
            .collect();
        let writes: Vec<vk::WriteDescriptorSet> = infos
            .iter()
            .zip(&self.kinds)
            .enumerate()
            .map(|(i, (info, &kind))| {
                vk::WriteDescriptorSet::default()
                    .dst_set(set)
                    .dst_binding(i as u32)
                    .descriptor_type(kind)
                    .buffer_info(info)
            })
            .collect();
        // SAFETY: the set is fresh and not in use; the buffers are live.
        unsafe { self.device.raw.update_descriptor_sets(&writes, &[]) };
        Ok(set)
    }
}

impl Drop for BufferSetLayout {
    fn drop(&mut self) {
        // The pool (and its sets) and the layout go once no submission that may bind a set is
        // running (`super::deferred`).
        self.device.retire(Retired::DescriptorPool {
            pool: self.pool,
            layout: self.raw,
        });
    }
}
