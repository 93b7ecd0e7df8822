//! Buffers: a `vk::Buffer` with its memory.
//!
//! Dropping a buffer is always safe: its handles go to the device's deferred destruction
//! (`gpu::deferred`) and are destroyed once no submission that may read it is running.

use std::sync::atomic::Ordering;
use std::sync::Arc;

use ash::vk;
use gpu_allocator::vulkan::Allocation;

use super::deferred::Retired;
use super::device::Device;
use super::error::{GpuError, GpuResult, VkResultExt};
use super::memory::MemoryLocation;

/// What a buffer is made with.
#[derive(Debug, Clone, Copy)]
pub struct BufferDesc<'a> {
    pub name: &'a str,
    pub size: u64,
    pub usage: vk::BufferUsageFlags,
    /// `GpuOnly` for what only the GPU touches, `CpuToGpu` for what the CPU writes every frame,
    /// `GpuToCpu` for readbacks.
    pub location: MemoryLocation,
}

/// A buffer and its memory.
pub struct Buffer {
    pub raw: vk::Buffer,
    pub size: u64,
    pub usage: vk::BufferUsageFlags,
    name: String,
    allocation: Option<Allocation>,
    device: Arc<Device>,
}

impl Buffer {
    pub fn new(device: &Arc<Device>, desc: &BufferDesc<'_>) -> GpuResult<Self> {
        if desc.size == 0 {
            return Err(GpuError::Invalid(format!(
                "buffer `{}` would be empty",
                desc.name
            )));
        }
        let info = vk::BufferCreateInfo::default()
            .size(desc.size)
            .usage(desc.usage)
            .sharing_mode(vk::SharingMode::EXCLUSIVE);
        // SAFETY: valid create info, live device.
        let raw = unsafe { device.raw.create_buffer(&info, None) }.vk("vkCreateBuffer")?;
        // SAFETY: `raw` was just created on this device.
        let requirements = unsafe { device.raw.get_buffer_memory_requirements(raw) };
        let allocation = match device.allocate_memory(desc.name, requirements, desc.location, true)
        {
            Ok(allocation) => allocation,
            Err(error) => {
                // SAFETY: never bound nor used.
                unsafe { device.raw.destroy_buffer(raw, None) };
                return Err(error);
            }
        };
        // SAFETY: the allocation satisfies the buffer's requirements and is not bound elsewhere.
        if let Err(error) = unsafe {
            device
                .raw
                .bind_buffer_memory(raw, allocation.memory(), allocation.offset())
        }
        .vk("vkBindBufferMemory")
        {
            device.free_memory(allocation);
            // SAFETY: never used.
            unsafe { device.raw.destroy_buffer(raw, None) };
            return Err(error);
        }
        device.set_name(raw, desc.name);
        device
            .counters
            .buffers_created
            .fetch_add(1, Ordering::Relaxed);
        Ok(Self {
            raw,
            size: desc.size,
            usage: desc.usage,
            name: desc.name.to_owned(),
            allocation: Some(allocation),
            device: device.clone(),
        })
    }

    /// The debug name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The buffer's bytes, when its memory is mapped (not `GpuOnly`).
    pub fn mapped(&self) -> Option<&[u8]> {
        self.allocation.as_ref()?.mapped_slice()
    }

    /// The buffer's bytes for writing, when its memory is mapped.
    pub fn mapped_mut(&mut self) -> Option<&mut [u8]> {
        self.allocation.as_mut()?.mapped_slice_mut()
    }

    /// Copies `data` into a mapped buffer at byte `offset`.
    pub fn write<T: bytemuck::Pod>(&mut self, offset: u64, data: &[T]) -> GpuResult<()> {
        let bytes: &[u8] = bytemuck::cast_slice(data);
        let name = self.name.clone();
        let mapped = self
            .mapped_mut()
            .ok_or_else(|| GpuError::Invalid(format!("buffer `{name}` is not mapped")))?;
        let start = usize::try_from(offset).unwrap_or(usize::MAX);
        let end = start
            .checked_add(bytes.len())
            .filter(|&e| e <= mapped.len());
        let Some(end) = end else {
            return Err(GpuError::Invalid(format!(
                "writing {} bytes at {offset} overruns buffer `{name}` of {} bytes",
                bytes.len(),
                mapped.len()
            )));
        };
        mapped[start..end].copy_from_slice(bytes);
        Ok(())
    }

    /// Reads a mapped buffer as a list of `T` (the GPU must have finished writing it).
    pub fn read<T: bytemuck::Pod>(&self) -> GpuResult<Vec<T>> {
        let mapped = self
            .mapped()
            .ok_or_else(|| GpuError::Invalid(format!("buffer `{}` is not mapped", self.name)))?;
        let size = std::mem::size_of::<T>().max(1);
        let whole = (self.size as usize).min(mapped.len()) / size * size;
        Ok(bytemuck::pod_collect_to_vec(&mapped[..whole]))
    }
}

impl Drop for Buffer {
    fn drop(&mut self) {
        self.device.retire(Retired::Buffer {
            raw: self.raw,
            allocation: self.allocation.take(),
        });
    }
}

impl std::fmt::Debug for Buffer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Buffer")
            .field("name", &self.name)
            .field("size", &self.size)
            .finish()
    }
}
