//! Work outside the frame ring: a command buffer recorded, submitted once and waited for
//! ([`OneTimeCommands`]), and whole buffers read back to the host ([`read_back_words`]). For
//! setup, tests and tools; no per-frame path waits like this.

use std::sync::Arc;

use ash::vk;

use super::barrier::{memory_barrier, BufferAccess};
use super::buffer::{Buffer, BufferDesc};
use super::debug::label_colour;
use super::deferred::Retired;
use super::device::{Device, Recording, Submission};
use super::error::{GpuError, GpuResult, VkResultExt};
use super::memory::MemoryLocation;

/// A command buffer from a pool of its own, submitted once and waited for; both freed on drop.
/// It counts as a recording for deferred destruction from `new` until it is submitted.
pub struct OneTimeCommands {
    device: Arc<Device>,
    pool: vk::CommandPool,
    command_buffer: vk::CommandBuffer,
    recording: Option<Recording>,
    submitted: u64,
}

impl OneTimeCommands {
    /// A recording command buffer; `name` names its pool and buffer.
    pub fn new(device: &Arc<Device>, name: &str) -> Result<Self, GpuError> {
        let info = vk::CommandPoolCreateInfo::default()
            .queue_family_index(device.adapter.queue_family)
            .flags(vk::CommandPoolCreateFlags::TRANSIENT);
        // SAFETY: valid create info on a live device.
        let pool = unsafe { device.raw.create_command_pool(&info, None) }
            .vk("vkCreateCommandPool(one-time commands)")?;
        device.set_name(pool, &format!("{name}: command pool"));
        let mut commands = Self {
            device: device.clone(),
            pool,
            command_buffer: vk::CommandBuffer::null(),
            recording: None,
            submitted: 0,
        };
        let allocate = vk::CommandBufferAllocateInfo::default()
            .command_pool(pool)
            .level(vk::CommandBufferLevel::PRIMARY)
            .command_buffer_count(1);
        // SAFETY: the pool is new and used by this thread only.
        commands.command_buffer = unsafe { device.raw.allocate_command_buffers(&allocate) }
            .vk("vkAllocateCommandBuffers(one-time commands)")?[0];
        device.set_name(commands.command_buffer, &format!("{name}: commands"));
        let begin = vk::CommandBufferBeginInfo::default()
            .flags(vk::CommandBufferUsageFlags::ONE_TIME_SUBMIT);
        // SAFETY: freshly allocated.
        unsafe {
            device
                .raw
                .begin_command_buffer(commands.command_buffer, &begin)
        }
        .vk("vkBeginCommandBuffer(one-time commands)")?;
        commands.recording = Some(device.begin_recording());
        Ok(commands)
    }

    /// The command buffer to record into.
    pub fn command_buffer(&self) -> vk::CommandBuffer {
        self.command_buffer
    }

    /// Ends recording, submits, and waits for the GPU to finish.
    pub fn submit_and_wait(mut self) -> Result<(), GpuError> {
        // SAFETY: recording and complete.
        let submitted = unsafe { self.device.raw.end_command_buffer(self.command_buffer) }
            .vk("vkEndCommandBuffer(one-time commands)")
            .and_then(|()| {
                self.device.submit(Submission {
                    command_buffers: &[self.command_buffer],
                    ..Default::default()
                })
            });
        self.recording = None;
        self.submitted = submitted?;
        self.device.wait_for(self.submitted)
    }
}

impl Drop for OneTimeCommands {
    fn drop(&mut self) {
        self.recording = None;
        if let Err(error) = self.device.wait_for(self.submitted) {
            log::error!("waiting for a one-time command buffer before freeing it: {error}");
        }
        // SAFETY: the command buffer finished or was never submitted; destroying the pool
        // frees it.
        unsafe { self.device.raw.destroy_command_pool(self.pool, None) };
    }
}

/// Copies the whole of each buffer of `sources` back to the host, in one submission of its own
/// that is waited for, after everything earlier on the queue (`before` records into it first,
/// for work that must precede the copies); returns each buffer's contents as `u32` words. For
/// tests and tools: no draw or meshing path reads back.
pub fn read_back_words(
    device: &Arc<Device>,
    name: &str,
    sources: &[&Buffer],
    before: impl FnOnce(vk::CommandBuffer),
) -> Result<Vec<Vec<u32>>, GpuError> {
    let total: u64 = sources.iter().map(|buffer| buffer.size).sum();
    let readback = Buffer::new(
        device,
        &BufferDesc {
            name,
            size: total,
            usage: vk::BufferUsageFlags::TRANSFER_DST,
            location: MemoryLocation::GpuToCpu,
        },
    )?;
    let commands = OneTimeCommands::new(device, name)?;
    let command_buffer = commands.command_buffer();
    device.begin_label(command_buffer, name, label_colour::TRANSFER);
    before(command_buffer);
    memory_barrier(
        device,
        command_buffer,
        &[BufferAccess::AnyWrite],
        &[BufferAccess::CopyRead],
    );
    let mut dst_offset = 0;
    for source in sources {
        let region = vk::BufferCopy {
            src_offset: 0,
            dst_offset,
            size: source.size,
        };
        // SAFETY: recording; both buffers live until the wait below; the region lies in both
        // (the readback buffer is the sum of the sources).
        unsafe {
            device
                .raw
                .cmd_copy_buffer(command_buffer, source.raw, readback.raw, &[region])
        };
        dst_offset += source.size;
    }
    memory_barrier(
        device,
        command_buffer,
        &[BufferAccess::CopyWrite],
        &[BufferAccess::HostRead],
    );
    device.end_label(command_buffer);
    commands.submit_and_wait()?;
    let mut words = readback.read::<u32>()?.into_iter();
    Ok(sources
        .iter()
        .map(|source| words.by_ref().take((source.size / 4) as usize).collect())
        .collect())
}

/// A transient command pool on the device's queue family, for another library that records its
/// own command buffers (the HUD's texture uploads through egui-ash-renderer). Dropping it hands
/// the pool to the deferred queue, so it is destroyed only once no submission that may use one
/// of its command buffers is running.
pub struct CommandPool {
    pub raw: vk::CommandPool,
    device: Arc<Device>,
}

impl CommandPool {
    pub fn new(device: &Arc<Device>, name: &str) -> GpuResult<Self> {
        let info = vk::CommandPoolCreateInfo::default()
            .queue_family_index(device.adapter.queue_family)
            .flags(vk::CommandPoolCreateFlags::TRANSIENT);
        // SAFETY: a valid create info on a live device.
        let raw =
            unsafe { device.raw.create_command_pool(&info, None) }.vk("vkCreateCommandPool")?;
        device.set_name(raw, name);
        Ok(Self {
            raw,
            device: device.clone(),
        })
    }
}

impl Drop for CommandPool {
    fn drop(&mut self) {
        self.device.retire(Retired::CommandPool(self.raw));
    }
}
