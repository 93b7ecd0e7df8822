//! GPU memory through gpu-allocator: every buffer and image is sub-allocated from large blocks.

use ash::vk;
use gpu_allocator::vulkan::{Allocation, AllocationCreateDesc, AllocationScheme};
pub use gpu_allocator::MemoryLocation;

use super::device::Device;
use super::error::{GpuError, GpuResult};

/// How much GPU memory is in use, for benchmarks and leak checks.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct MemoryReport {
    /// Live allocations.
    pub allocations: usize,
    /// Vulkan memory objects (`vkAllocateMemory` calls still alive).
    pub blocks: usize,
    pub allocated_bytes: u64,
    pub capacity_bytes: u64,
}

impl Device {
    pub(crate) fn allocate_memory(
        &self,
        name: &str,
        requirements: vk::MemoryRequirements,
        location: MemoryLocation,
        linear: bool,
    ) -> GpuResult<Allocation> {
        let mut allocator = self
            .allocator
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        allocator
            .allocate(&AllocationCreateDesc {
                name,
                requirements,
                location,
                linear,
                allocation_scheme: AllocationScheme::GpuAllocatorManaged,
            })
            .map_err(|source| GpuError::Allocation {
                name: name.to_owned(),
                source,
            })
    }

    pub(crate) fn free_memory(&self, allocation: Allocation) {
        let mut allocator = self
            .allocator
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        if let Err(error) = allocator.free(allocation) {
            log::error!("freeing GPU memory: {error}");
        }
    }

    /// What the allocator holds now.
    pub fn memory_report(&self) -> MemoryReport {
        let allocator = self
            .allocator
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        let report = allocator.generate_report();
        MemoryReport {
            allocations: report.allocations.len(),
            blocks: report.blocks.len(),
            allocated_bytes: report.total_allocated_bytes,
            capacity_bytes: report.total_capacity_bytes,
        }
    }
}
