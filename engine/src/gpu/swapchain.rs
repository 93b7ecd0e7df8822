//! The window's surface and swapchain: survives resize (recreate), minimise (no extent: wait)
//! and out-of-date (recreate and try the next frame).
//!
//! One render-finished semaphore per swapchain image, not per frame: the presentation engine may
//! hold an image's semaphore longer than a frame slot lives, and reusing it early is a race the
//! validation layer reports.

use std::sync::Arc;

use ash::vk;
use winit::raw_window_handle::{RawDisplayHandle, RawWindowHandle};

use super::device::Device;
use super::error::{GpuError, GpuResult, VkResultExt};
use super::instance::Instance;

/// A window's Vulkan surface.
pub struct WindowSurface {
    pub raw: vk::SurfaceKHR,
    instance: Arc<Instance>,
}

impl WindowSurface {
    /// Creates a surface for a window. The instance must have been made with the window's
    /// surface extensions.
    pub fn new(
        instance: &Arc<Instance>,
        display: RawDisplayHandle,
        window: RawWindowHandle,
    ) -> GpuResult<Self> {
        if instance.surface_fn.is_none() {
            return Err(GpuError::Window(
                "the instance was made without surface extensions".into(),
            ));
        }
        // SAFETY: the handles come from a live winit window that outlives the surface (the app
        // drops the surface before the window).
        let raw = unsafe {
            ash_window::create_surface(&instance.entry, &instance.raw, display, window, None)
        }
        .map_err(|result| GpuError::Window(format!("vkCreate*SurfaceKHR failed: {result:?}")))?;
        Ok(Self {
            raw,
            instance: instance.clone(),
        })
    }
}

impl Drop for WindowSurface {
    fn drop(&mut self) {
        if let Some(surface_fn) = &self.instance.surface_fn {
            // SAFETY: swapchains made from the surface hold an `Arc<WindowSurface>` and are gone.
            unsafe { surface_fn.destroy_surface(self.raw, None) };
        }
    }
}

/// The result of asking for the next image.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Acquired {
    /// Render into image `index`; `suboptimal` asks for a recreate after presenting.
    Image { index: u32, suboptimal: bool },
    /// The swapchain no longer matches the window: recreate and skip this frame.
    OutOfDate,
}

/// A swapchain with a view and a render-finished semaphore per image.
pub struct Swapchain {
    pub raw: vk::SwapchainKHR,
    pub format: vk::Format,
    pub extent: vk::Extent2D,
    pub images: Vec<vk::Image>,
    pub views: Vec<vk::ImageView>,
    pub present_mode: vk::PresentModeKHR,
    render_finished: Vec<vk::Semaphore>,
    surface: Arc<WindowSurface>,
    device: Arc<Device>,
}

impl Swapchain {
    /// Creates a swapchain of the window's current size (`wanted` where the surface leaves it
    /// open). `None` while the window is minimised (no pixels to present). `old` is the
    /// swapchain being replaced; the caller drops it after this returns.
    pub fn new(
        device: &Arc<Device>,
        surface: &Arc<WindowSurface>,
        wanted: (u32, u32),
        vsync: bool,
        old: Option<&Swapchain>,
    ) -> GpuResult<Option<Self>> {
        let surface_fn = device
            .instance
            .surface_fn
            .as_ref()
            .ok_or_else(|| GpuError::Window("no surface extension".into()))?;
        let swapchain_fn = device
            .swapchain_fn
            .as_ref()
            .ok_or_else(|| GpuError::Window("device made without VK_KHR_swapchain".into()))?;
        let physical = device.adapter.raw;
        // SAFETY: plain queries of a live surface, here and below.
        let capabilities =
            unsafe { surface_fn.get_physical_device_surface_capabilities(physical, surface.raw) }
                .vk("vkGetPhysicalDeviceSurfaceCapabilitiesKHR")?;
        let extent = if capabilities.current_extent.width != u32::MAX {
            capabilities.current_extent
        } else {
            vk::Extent2D {
                width: wanted.0.clamp(
                    capabilities.min_image_extent.width,
                    capabilities.max_image_extent.width,
                ),
                height: wanted.1.clamp(
                    capabilities.min_image_extent.height,
                    capabilities.max_image_extent.height,
                ),
            }
        };
        if extent.width == 0 || extent.height == 0 {
            return Ok(None);
        }
        // SAFETY: as above.
        let formats =
            unsafe { surface_fn.get_physical_device_surface_formats(physical, surface.raw) }
                .vk("vkGetPhysicalDeviceSurfaceFormatsKHR")?;
        let chosen = formats
            .iter()
            .find(|f| {
                matches!(
                    f.format,
                    vk::Format::B8G8R8A8_SRGB | vk::Format::R8G8B8A8_SRGB
                ) && f.color_space == vk::ColorSpaceKHR::SRGB_NONLINEAR
            })
            .or_else(|| formats.first())
            .copied()
            .ok_or_else(|| GpuError::Window("the surface offers no formats".into()))?;
        // SAFETY: as above.
        let modes =
            unsafe { surface_fn.get_physical_device_surface_present_modes(physical, surface.raw) }
                .vk("vkGetPhysicalDeviceSurfacePresentModesKHR")?;
        let present_mode = if vsync {
            vk::PresentModeKHR::FIFO
        } else {
            [vk::PresentModeKHR::MAILBOX, vk::PresentModeKHR::IMMEDIATE]
                .into_iter()
                .find(|m| modes.contains(m))
                .unwrap_or(vk::PresentModeKHR::FIFO)
        };
        let mut image_count = capabilities.min_image_count + 1;
        if capabilities.max_image_count > 0 {
            image_count = image_count.min(capabilities.max_image_count);
        }
        let composite_alpha = [
            vk::CompositeAlphaFlagsKHR::OPAQUE,
            vk::CompositeAlphaFlagsKHR::INHERIT,
            vk::CompositeAlphaFlagsKHR::PRE_MULTIPLIED,
            vk::CompositeAlphaFlagsKHR::POST_MULTIPLIED,
        ]
        .into_iter()
        .find(|&a| capabilities.supported_composite_alpha.contains(a))
        .unwrap_or(vk::CompositeAlphaFlagsKHR::OPAQUE);
        let mut usage = vk::ImageUsageFlags::COLOR_ATTACHMENT;
        if capabilities
            .supported_usage_flags
            .contains(vk::ImageUsageFlags::TRANSFER_SRC)
        {
            // Screenshots of the window copy from the swapchain image.
            usage |= vk::ImageUsageFlags::TRANSFER_SRC;
        }
        let info = vk::SwapchainCreateInfoKHR::default()
            .surface(surface.raw)
            .min_image_count(image_count)
            .image_format(chosen.format)
            .image_color_space(chosen.color_space)
            .image_extent(extent)
            .image_array_layers(1)
            .image_usage(usage)
            .image_sharing_mode(vk::SharingMode::EXCLUSIVE)
            .pre_transform(capabilities.current_transform)
            .composite_alpha(composite_alpha)
            .present_mode(present_mode)
            .clipped(true)
            .old_swapchain(old.map_or(vk::SwapchainKHR::null(), |o| o.raw));
        // SAFETY: every value was chosen from the surface's capabilities; the old swapchain is
        // retired by this call and dropped by the caller afterwards.
        let raw =
            unsafe { swapchain_fn.create_swapchain(&info, None) }.vk("vkCreateSwapchainKHR")?;
        device.set_name(raw, "swapchain");
        // SAFETY: just created.
        let images =
            unsafe { swapchain_fn.get_swapchain_images(raw) }.vk("vkGetSwapchainImagesKHR")?;
        let mut views = Vec::with_capacity(images.len());
        let mut render_finished = Vec::with_capacity(images.len());
        for (i, &image) in images.iter().enumerate() {
            device.set_name(image, &format!("swapchain image {i}"));
            let view_info = vk::ImageViewCreateInfo::default()
                .image(image)
                .view_type(vk::ImageViewType::TYPE_2D)
                .format(chosen.format)
                .subresource_range(super::image::full_range(chosen.format, 1, 1));
            // SAFETY: a view of a live swapchain image, and a plain semaphore.
            let view = unsafe { device.raw.create_image_view(&view_info, None) }
                .vk("vkCreateImageView(swapchain)")?;
            device.set_name(view, &format!("swapchain image {i} view"));
            views.push(view);
            // SAFETY: as above.
            let semaphore = unsafe {
                device
                    .raw
                    .create_semaphore(&vk::SemaphoreCreateInfo::default(), None)
            }
            .vk("vkCreateSemaphore(render finished)")?;
            device.set_name(semaphore, &format!("swapchain image {i}: render finished"));
            render_finished.push(semaphore);
        }
        log::info!(
            "swapchain {}×{} {:?} {:?}, {} images",
            extent.width,
            extent.height,
            chosen.format,
            present_mode,
            images.len()
        );
        Ok(Some(Self {
            raw,
            format: chosen.format,
            extent,
            images,
            views,
            present_mode,
            render_finished,
            surface: surface.clone(),
            device: device.clone(),
        }))
    }

    /// Asks for the next image, to be signalled on `semaphore`.
    pub fn acquire(&self, semaphore: vk::Semaphore) -> GpuResult<Acquired> {
        let swapchain_fn = self.swapchain_fn()?;
        // SAFETY: live swapchain; the semaphore is unsignalled (its last wait finished before
        // the frame slot was reused).
        match unsafe {
            swapchain_fn.acquire_next_image(
                self.raw,
                super::device::GPU_TIMEOUT.as_nanos() as u64,
                semaphore,
                vk::Fence::null(),
            )
        } {
            Ok((index, suboptimal)) => Ok(Acquired::Image { index, suboptimal }),
            Err(vk::Result::ERROR_OUT_OF_DATE_KHR) => Ok(Acquired::OutOfDate),
            Err(vk::Result::TIMEOUT) | Err(vk::Result::NOT_READY) => {
                Err(GpuError::Timeout(super::device::GPU_TIMEOUT))
            }
            Err(result) => Err(GpuError::Vulkan {
                call: "vkAcquireNextImageKHR",
                result,
            }),
        }
    }

    /// The semaphore the frame that renders image `index` signals and presenting waits on.
    pub fn render_finished(&self, index: u32) -> vk::Semaphore {
        self.render_finished[index as usize]
    }

    /// Presents image `index`; `Ok(true)` asks for a recreate (suboptimal or out of date).
    pub fn present(&self, index: u32) -> GpuResult<bool> {
        let swapchain_fn = self.swapchain_fn()?;
        let waits = [self.render_finished[index as usize]];
        let swapchains = [self.raw];
        let indices = [index];
        let info = vk::PresentInfoKHR::default()
            .wait_semaphores(&waits)
            .swapchains(&swapchains)
            .image_indices(&indices);
        let queue = self.device.lock_queue();
        // SAFETY: the queue is locked; the image was acquired and its frame submitted with the
        // semaphore waited on here.
        match unsafe { swapchain_fn.queue_present(*queue, &info) } {
            Ok(suboptimal) => Ok(suboptimal),
            Err(vk::Result::ERROR_OUT_OF_DATE_KHR) => Ok(true),
            Err(result) => Err(GpuError::Vulkan {
                call: "vkQueuePresentKHR",
                result,
            }),
        }
    }

    fn swapchain_fn(&self) -> GpuResult<&ash::khr::swapchain::Device> {
        self.device
            .swapchain_fn
            .as_ref()
            .ok_or_else(|| GpuError::Window("device made without VK_KHR_swapchain".into()))
    }

    /// The surface the swapchain presents to.
    pub fn surface(&self) -> &Arc<WindowSurface> {
        &self.surface
    }
}

impl Drop for Swapchain {
    fn drop(&mut self) {
        // Presentation may still read the images and wait on the semaphores: wait for the queue.
        // Swapchains are recreated rarely (resize), so the stall is cheap.
        {
            let queue = self.device.lock_queue();
            // SAFETY: the queue is locked for the call.
            let _ = unsafe { self.device.raw.queue_wait_idle(*queue) };
        }
        // SAFETY: the queue is idle, so no frame or present uses these objects.
        unsafe {
            for &view in &self.views {
                self.device.raw.destroy_image_view(view, None);
            }
            for &semaphore in &self.render_finished {
                self.device.raw.destroy_semaphore(semaphore, None);
            }
            if let Some(swapchain_fn) = &self.device.swapchain_fn {
                swapchain_fn.destroy_swapchain(self.raw, None);
            }
        }
    }
}
