//! The logical device: one queue for everything, the allocator, and one timeline semaphore that
//! orders every submission.
//!
//! ```text
//!   submit #41 ──signals──▶ timeline = 41      frames, uploads and readbacks remember the value
//!   submit #42 ──signals──▶ timeline = 42      their submit signals; "has #41 finished?" is one
//!                                              counter read, and waiting is vkWaitSemaphores
//! ```
//! One counter instead of a fence per submit: deferred destruction (`gpu::deferred`),
//! staging buffers and frame slots all ask the same question the same way.

use std::mem::ManuallyDrop;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use ash::vk;
use gpu_allocator::vulkan::{Allocator, AllocatorCreateDesc};

use super::adapter::Adapter;
use super::deferred::{DeferredQueue, Retired, RetiredObject};
use super::error::{GpuError, GpuResult, VkResultExt};
use super::instance::Instance;
use super::pipeline::ShaderTarget;

/// How long a wait for the GPU may take before it counts as a hang. Generous: lavapipe on two
/// loaded CI cores is slow.
pub const GPU_TIMEOUT: Duration = Duration::from_secs(60);

/// A binary semaphore to wait on before a submission runs, and the stages that wait.
#[derive(Debug, Clone, Copy)]
pub struct SemaphoreWait {
    pub semaphore: vk::Semaphore,
    pub stages: vk::PipelineStageFlags2,
}

/// One submission to the queue.
#[derive(Debug, Default, Clone, Copy)]
pub struct Submission<'a> {
    pub command_buffers: &'a [vk::CommandBuffer],
    pub waits: &'a [SemaphoreWait],
    /// Binary semaphores to signal (a swapchain image's render-finished semaphore).
    pub signals: &'a [vk::Semaphore],
}

/// The logical device and what hangs off it.
pub struct Device {
    pub raw: ash::Device,
    pub instance: Arc<Instance>,
    pub adapter: Adapter,
    /// `VK_KHR_swapchain`, when the device was made for a window.
    pub swapchain_fn: Option<ash::khr::swapchain::Device>,
    pub(crate) debug_utils: Option<ash::ext::debug_utils::Device>,
    /// On a Vulkan 1.2 device, the KHR entry points of what 1.3 has in its core.
    extension_commands: Option<ExtensionCommands>,
    queue: Mutex<vk::Queue>,
    /// Shared (see [`Device::shared_allocator`]); dropped after the retired objects, before the
    /// device.
    pub(crate) allocator: ManuallyDrop<Arc<Mutex<Allocator>>>,
    timeline: vk::Semaphore,
    last_submitted: AtomicU64,
    /// Dropped objects the GPU may still use, destroyed once the timeline passes their key.
    deferred: Mutex<DeferredQueue>,
    /// Vulkan memory objects and resources created, for "no allocation per chunk" checks.
    pub(crate) counters: ResourceCounters,
}

/// A command buffer being recorded (see [`Device::begin_recording`]); drop it after submitting.
pub(crate) struct Recording {
    device: Arc<Device>,
}

impl Drop for Recording {
    fn drop(&mut self) {
        let mut deferred = self.device.lock_deferred();
        deferred.recording_ended(self.device.last_submitted());
    }
}

/// Entry points of VK_KHR_dynamic_rendering and VK_KHR_synchronization2, for 1.2 devices.
struct ExtensionCommands {
    dynamic_rendering: ash::khr::dynamic_rendering::Device,
    synchronization2: ash::khr::synchronization2::Device,
}

/// Counts of resource creations over the life of the device.
#[derive(Debug, Default)]
pub struct ResourceCounters {
    pub buffers_created: AtomicU64,
    pub images_created: AtomicU64,
}

impl Device {
    /// Creates the device with every feature the renderer relies on, and its allocator.
    pub fn new(instance: Arc<Instance>, adapter: Adapter, swapchain: bool) -> GpuResult<Arc<Self>> {
        let priorities = [1.0f32];
        let queue_infos = [vk::DeviceQueueCreateInfo::default()
            .queue_family_index(adapter.queue_family)
            .queue_priorities(&priorities)];

        let mut features12 = vk::PhysicalDeviceVulkan12Features::default()
            .timeline_semaphore(true)
            .descriptor_indexing(true)
            .runtime_descriptor_array(true)
            .descriptor_binding_partially_bound(true)
            .descriptor_binding_variable_descriptor_count(true)
            .descriptor_binding_sampled_image_update_after_bind(true)
            .shader_sampled_image_array_non_uniform_indexing(true)
            .host_query_reset(true)
            .draw_indirect_count(adapter.draw_indirect_count);
        let mut features13 = vk::PhysicalDeviceVulkan13Features::default()
            .dynamic_rendering(true)
            .synchronization2(true)
            // SPIR-V 1.6 compute shaders use LocalSizeId, which needs maintenance4.
            .maintenance4(true);
        let mut dynamic_rendering =
            vk::PhysicalDeviceDynamicRenderingFeatures::default().dynamic_rendering(true);
        let mut synchronization2 =
            vk::PhysicalDeviceSynchronization2Features::default().synchronization2(true);
        // Optional features, on where the device has them: anisotropic filtering, wireframe,
        // and the pieces' single indirect call (many commands, each its own first instance).
        let base_features = vk::PhysicalDeviceFeatures::default()
            .sampler_anisotropy(adapter.sampler_anisotropy)
            .fill_mode_non_solid(adapter.fill_mode_non_solid)
            .multi_draw_indirect(adapter.multi_draw_indirect)
            .draw_indirect_first_instance(adapter.draw_indirect_first_instance);
        let mut features2 = vk::PhysicalDeviceFeatures2::default()
            .features(base_features)
            .push_next(&mut features12);
        let mut extensions = Vec::new();
        if adapter.core13 {
            features2 = features2.push_next(&mut features13);
        } else {
            features2 = features2
                .push_next(&mut dynamic_rendering)
                .push_next(&mut synchronization2);
            extensions.push(ash::khr::dynamic_rendering::NAME.as_ptr());
            extensions.push(ash::khr::synchronization2::NAME.as_ptr());
        }
        if swapchain {
            extensions.push(ash::khr::swapchain::NAME.as_ptr());
        }
        let create_info = vk::DeviceCreateInfo::default()
            .queue_create_infos(&queue_infos)
            .enabled_extension_names(&extensions)
            .push_next(&mut features2);
        // SAFETY: the adapter was checked to support every feature and extension asked for;
        // the create info points at locals.
        let raw = unsafe { instance.raw.create_device(adapter.raw, &create_info, None) }
            .vk("vkCreateDevice")?;
        // SAFETY: family and index 0 were created above.
        let queue = unsafe { raw.get_device_queue(adapter.queue_family, 0) };

        let allocator = Allocator::new(&AllocatorCreateDesc {
            instance: instance.raw.clone(),
            device: raw.clone(),
            physical_device: adapter.raw,
            debug_settings: Default::default(),
            buffer_device_address: false,
            allocation_sizes: Default::default(),
        })
        .map_err(|source| GpuError::Allocation {
            name: "allocator".into(),
            source,
        })?;

        let mut timeline_type = vk::SemaphoreTypeCreateInfo::default()
            .semaphore_type(vk::SemaphoreType::TIMELINE)
            .initial_value(0);
        let timeline_info = vk::SemaphoreCreateInfo::default().push_next(&mut timeline_type);
        // SAFETY: timeline semaphores were enabled above.
        let timeline = unsafe { raw.create_semaphore(&timeline_info, None) }
            .vk("vkCreateSemaphore(timeline)")?;

        let debug_utils = instance
            .debug_utils_enabled()
            .then(|| ash::ext::debug_utils::Device::new(&instance.raw, &raw));
        let swapchain_fn = swapchain.then(|| ash::khr::swapchain::Device::new(&instance.raw, &raw));
        let extension_commands = (!adapter.core13).then(|| ExtensionCommands {
            dynamic_rendering: ash::khr::dynamic_rendering::Device::new(&instance.raw, &raw),
            synchronization2: ash::khr::synchronization2::Device::new(&instance.raw, &raw),
        });

        log::info!(
            "device: {} ({}, {}), queue family {}",
            adapter.name,
            super::conv::device_type_name(adapter.device_type),
            adapter.driver_info,
            adapter.queue_family
        );
        let device = Arc::new(Self {
            raw,
            instance,
            adapter,
            swapchain_fn,
            debug_utils,
            extension_commands,
            queue: Mutex::new(queue),
            allocator: ManuallyDrop::new(Arc::new(Mutex::new(allocator))),
            timeline,
            last_submitted: AtomicU64::new(0),
            deferred: Mutex::new(DeferredQueue::default()),
            counters: ResourceCounters::default(),
        });
        device.set_name(device.raw.handle(), "blockfall device");
        device.set_name(queue, "main queue");
        device.set_name(timeline, "submission timeline");
        Ok(device)
    }

    /// The queue, locked: submissions and presents go through one thread at a time.
    pub fn lock_queue(&self) -> MutexGuard<'_, vk::Queue> {
        self.queue
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// Submits work; returns the timeline value that marks it finished.
    pub fn submit(&self, submission: Submission<'_>) -> GpuResult<u64> {
        let command_buffers: Vec<vk::CommandBufferSubmitInfo> = submission
            .command_buffers
            .iter()
            .map(|&cb| vk::CommandBufferSubmitInfo::default().command_buffer(cb))
            .collect();
        let waits: Vec<vk::SemaphoreSubmitInfo> = submission
            .waits
            .iter()
            .map(|w| {
                vk::SemaphoreSubmitInfo::default()
                    .semaphore(w.semaphore)
                    .stage_mask(w.stages)
            })
            .collect();
        let queue = self.lock_queue();
        // Taken under the queue lock, so values reach the queue in increasing order.
        let value = self.last_submitted.load(Ordering::SeqCst) + 1;
        let mut signals: Vec<vk::SemaphoreSubmitInfo> = submission
            .signals
            .iter()
            .map(|&s| {
                vk::SemaphoreSubmitInfo::default()
                    .semaphore(s)
                    .stage_mask(vk::PipelineStageFlags2::ALL_COMMANDS)
            })
            .collect();
        signals.push(
            vk::SemaphoreSubmitInfo::default()
                .semaphore(self.timeline)
                .value(value)
                .stage_mask(vk::PipelineStageFlags2::ALL_COMMANDS),
        );
        let submit = vk::SubmitInfo2::default()
            .command_buffer_infos(&command_buffers)
            .wait_semaphore_infos(&waits)
            .signal_semaphore_infos(&signals);
        // SAFETY: the queue is locked; the command buffers are executable and the semaphores
        // belong to this device (callers' contract); the arrays outlive the call.
        unsafe { self.raw.queue_submit2(*queue, &[submit], vk::Fence::null()) }
            .vk("vkQueueSubmit2")?;
        self.last_submitted.store(value, Ordering::SeqCst);
        drop(queue);
        // Each submission also frees what earlier ones are done with.
        if let Err(error) = self.destroy_finished() {
            log::error!("destroying retired objects after a submission: {error}");
        }
        Ok(value)
    }

    /// The value of the latest submission.
    pub fn last_submitted(&self) -> u64 {
        self.last_submitted.load(Ordering::SeqCst)
    }

    /// The value of the latest finished submission.
    pub fn completed(&self) -> GpuResult<u64> {
        // SAFETY: the semaphore is a live timeline semaphore of this device.
        unsafe { self.raw.get_semaphore_counter_value(self.timeline) }
            .vk("vkGetSemaphoreCounterValue")
    }

    /// Waits until submission `value` has finished.
    pub fn wait_for(&self, value: u64) -> GpuResult<()> {
        if value == 0 {
            return Ok(());
        }
        let semaphores = [self.timeline];
        let values = [value];
        let info = vk::SemaphoreWaitInfo::default()
            .semaphores(&semaphores)
            .values(&values);
        // SAFETY: as above; the arrays outlive the call.
        match unsafe {
            self.raw
                .wait_semaphores(&info, GPU_TIMEOUT.as_nanos() as u64)
        } {
            Ok(()) => Ok(()),
            Err(vk::Result::TIMEOUT) => Err(GpuError::Timeout(GPU_TIMEOUT)),
            Err(result) => Err(GpuError::Vulkan {
                call: "vkWaitSemaphores",
                result,
            }),
        }
    }

    /// Waits until everything submitted so far has finished, and destroys every dropped object
    /// (none is in use any more).
    pub fn wait_idle(&self) -> GpuResult<()> {
        self.wait_for(self.last_submitted())?;
        self.destroy_finished()?;
        Ok(())
    }

    /// The allocator, for a library that allocates through gpu-allocator itself (the HUD's
    /// egui-ash-renderer): its memory then comes from the same blocks and shows in
    /// [`Device::memory_report`]. A holder must let go of its clone before the device drops
    /// (the device holds its allocator's last reference when it frees its memory); handing the
    /// holder to [`Device::retire_object`] does that.
    pub fn shared_allocator(&self) -> Arc<Mutex<Allocator>> {
        Arc::clone(&self.allocator)
    }

    /// Keeps `object` until no submission that may use it is still running, then drops it: for
    /// objects of other libraries that destroy their Vulkan handles in their own `Drop` (the
    /// HUD's egui renderer). Keyed like every retired object (`gpu::deferred`), so it is safe
    /// even while a frame that recorded commands using it is still being recorded. Its `Drop`
    /// runs on whichever thread frees finished objects (a submit, a frame start, `wait_idle`),
    /// or when the device drops, before the allocator and the device go.
    pub fn retire_object<T: Send + 'static>(&self, object: T) {
        self.retire(Retired::Object(RetiredObject::new(Box::new(object))));
    }

    /// Takes the handles of a dropped object; they are destroyed once no submission that may use
    /// them is still running. Every GPU object's `Drop` comes here.
    pub(crate) fn retire(&self, retired: Retired) {
        let mut deferred = self.lock_deferred();
        // Read under the lock: a recording that ends concurrently keys its objects after this.
        deferred.retire(retired, self.last_submitted());
    }

    /// Marks a command buffer as being recorded until the returned guard drops (after its
    /// submission, or when it is abandoned): objects dropped meanwhile may be used by that
    /// submission, so they are kept until it has run.
    pub(crate) fn begin_recording(self: &Arc<Self>) -> Recording {
        self.lock_deferred().recording_began();
        Recording {
            device: self.clone(),
        }
    }

    /// Destroys the dropped objects whose last possible use has finished; returns how many.
    /// Submissions, frame starts and [`Device::wait_idle`] call it; callers rarely need to.
    pub fn destroy_finished(&self) -> GpuResult<usize> {
        let completed = self.completed()?;
        let finished = self.lock_deferred().take_finished(completed);
        let count = finished.len();
        for retired in finished {
            // SAFETY: the timeline passed the last submission that may use it.
            unsafe { self.destroy_retired(retired) };
        }
        Ok(count)
    }

    /// Dropped objects not yet destroyed (the GPU may still use them).
    pub fn retired_objects(&self) -> usize {
        self.lock_deferred().len()
    }

    fn lock_deferred(&self) -> MutexGuard<'_, DeferredQueue> {
        self.deferred
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// # Safety
    /// No pending or running submission uses the object.
    unsafe fn destroy_retired(&self, retired: Retired) {
        // SAFETY: forwarded from the caller; each handle was made on this device and is
        // destroyed once (it left its owner when the owner dropped).
        unsafe {
            match retired {
                Retired::Buffer { raw, allocation } => {
                    self.raw.destroy_buffer(raw, None);
                    if let Some(allocation) = allocation {
                        self.free_memory(allocation);
                    }
                }
                Retired::Image {
                    raw,
                    view,
                    allocation,
                } => {
                    self.raw.destroy_image_view(view, None);
                    self.raw.destroy_image(raw, None);
                    if let Some(allocation) = allocation {
                        self.free_memory(allocation);
                    }
                }
                Retired::Pipeline(pipeline) => self.raw.destroy_pipeline(pipeline, None),
                Retired::PipelineLayout(layout) => self.raw.destroy_pipeline_layout(layout, None),
                Retired::DescriptorPool { pool, layout } => {
                    self.raw.destroy_descriptor_pool(pool, None);
                    self.raw.destroy_descriptor_set_layout(layout, None);
                }
                Retired::Sampler(sampler) => self.raw.destroy_sampler(sampler, None),
                Retired::CommandPool(pool) => self.raw.destroy_command_pool(pool, None),
                Retired::BindlessSlot { slot, returned } => returned
                    .lock()
                    .unwrap_or_else(std::sync::PoisonError::into_inner)
                    .push(slot),
                Retired::Object(object) => drop(object),
            }
        }
    }

    /// Which SPIR-V the device takes.
    pub fn shader_target(&self) -> ShaderTarget {
        if self.adapter.core13 {
            ShaderTarget::Vulkan1_3
        } else {
            ShaderTarget::Vulkan1_2
        }
    }

    /// `vkCmdBeginRendering`, from the core or from VK_KHR_dynamic_rendering.
    ///
    /// # Safety
    /// As `vkCmdBeginRendering`: a recording command buffer of this device, valid attachments.
    pub unsafe fn cmd_begin_rendering(
        &self,
        command_buffer: vk::CommandBuffer,
        info: &vk::RenderingInfo<'_>,
    ) {
        // SAFETY: forwarded from the caller.
        unsafe {
            match &self.extension_commands {
                None => self.raw.cmd_begin_rendering(command_buffer, info),
                Some(commands) => commands
                    .dynamic_rendering
                    .cmd_begin_rendering(command_buffer, info),
            }
        }
    }

    /// `vkCmdEndRendering`, from the core or from VK_KHR_dynamic_rendering.
    ///
    /// # Safety
    /// As `vkCmdEndRendering`: inside a rendering begun with [`Device::cmd_begin_rendering`].
    pub unsafe fn cmd_end_rendering(&self, command_buffer: vk::CommandBuffer) {
        // SAFETY: forwarded from the caller.
        unsafe {
            match &self.extension_commands {
                None => self.raw.cmd_end_rendering(command_buffer),
                Some(commands) => commands.dynamic_rendering.cmd_end_rendering(command_buffer),
            }
        }
    }

    /// `vkCmdPipelineBarrier2`, from the core or from VK_KHR_synchronization2.
    ///
    /// # Safety
    /// As `vkCmdPipelineBarrier2`: a recording command buffer, barriers of this device's objects.
    pub unsafe fn cmd_pipeline_barrier2(
        &self,
        command_buffer: vk::CommandBuffer,
        dependency: &vk::DependencyInfo<'_>,
    ) {
        // SAFETY: forwarded from the caller.
        unsafe {
            match &self.extension_commands {
                None => self.raw.cmd_pipeline_barrier2(command_buffer, dependency),
                Some(commands) => commands
                    .synchronization2
                    .cmd_pipeline_barrier2(command_buffer, dependency),
            }
        }
    }

    /// `vkCmdWriteTimestamp2`, from the core or from VK_KHR_synchronization2.
    ///
    /// # Safety
    /// As `vkCmdWriteTimestamp2`: a recording command buffer, a reset query of a timestamp pool.
    pub unsafe fn cmd_write_timestamp2(
        &self,
        command_buffer: vk::CommandBuffer,
        stage: vk::PipelineStageFlags2,
        query_pool: vk::QueryPool,
        query: u32,
    ) {
        // SAFETY: forwarded from the caller.
        unsafe {
            match &self.extension_commands {
                None => self
                    .raw
                    .cmd_write_timestamp2(command_buffer, stage, query_pool, query),
                Some(commands) => commands.synchronization2.cmd_write_timestamp2(
                    command_buffer,
                    stage,
                    query_pool,
                    query,
                ),
            }
        }
    }

    /// How many buffers and images were created over the device's life.
    pub fn resources_created(&self) -> (u64, u64) {
        (
            self.counters.buffers_created.load(Ordering::Relaxed),
            self.counters.images_created.load(Ordering::Relaxed),
        )
    }
}

impl Drop for Device {
    fn drop(&mut self) {
        // SAFETY: every object made from this device holds an `Arc<Device>` and is gone (its
        // handles retired here); waiting idle first makes destroying them, the semaphore and the
        // device legal.
        unsafe {
            let queue = self.lock_queue();
            let _ = self.raw.queue_wait_idle(*queue);
            drop(queue);
            let retired = self.lock_deferred().take_all();
            for retired in retired {
                self.destroy_retired(retired);
            }
            self.raw.destroy_semaphore(self.timeline, None);
            // The allocator frees its memory blocks through the device, so it goes first. A
            // clone still held elsewhere would free them after the device: say so.
            let holders = Arc::strong_count(&self.allocator);
            if holders > 1 {
                log::error!(
                    "the device drops while {} other holders of its allocator remain; their \
                     memory outlives the device",
                    holders - 1
                );
            }
            ManuallyDrop::drop(&mut self.allocator);
            self.raw.destroy_device(None);
        }
    }
}

impl std::fmt::Debug for Device {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Device")
            .field("adapter", &self.adapter.name)
            .field("last_submitted", &self.last_submitted())
            .finish()
    }
}
