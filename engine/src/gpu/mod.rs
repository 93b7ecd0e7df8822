//! The Vulkan backend: one file per object family (after kajiya), every conversion in `conv`,
//! every failure a [`GpuError`].
//!
//! [`Gpu`] bundles what every user needs: instance, device, the upload path and the bindless
//! table. Windows add a [`swapchain::WindowSurface`] (the window's `VkSurfaceKHR`) and
//! [`swapchain::Swapchain`]; headless runs an [`offscreen::OffscreenTarget`].

pub mod adapter;
pub mod arena;
pub mod barrier;
pub mod bindless;
pub mod buffer;
pub mod commands;
pub mod conv;
pub mod debug;
mod deferred;
pub mod depth_sampling;
pub mod descriptors;
pub mod device;
pub mod egui_pass;
pub mod encoder;
pub mod error;
pub mod frame;
pub mod graph;
pub mod image;
pub mod instance;
pub mod memory;
pub mod offscreen;
pub mod pass;
pub mod pipeline;
pub mod retire;
pub mod swapchain;
pub mod transient;
pub mod upload;

use std::sync::Arc;

pub use adapter::Adapter;
pub use ash::vk;
pub use barrier::{memory_barrier, BufferAccess};
pub use bindless::{BindlessTable, BoundTexture, TextureSlot};
pub use buffer::{Buffer, BufferDesc};
pub use commands::{read_back_words, CommandPool, OneTimeCommands};
pub use debug::ValidationCanary;
pub use depth_sampling::{DepthSampling, DepthSamplingLayout};
pub use device::{Device, SemaphoreWait, Submission};
pub use egui_pass::EguiRenderer;
pub use encoder::{ColourAttachment, ComputePass, DepthAttachment, Load, RenderPass};
pub use error::{GpuError, GpuResult};
pub use frame::{FrameRing, PassTiming, FRAMES_IN_FLIGHT};
pub use graph::{FrameGraph, ImageUse};
pub use image::{Image, ImageAccess, ImageDesc};
pub use instance::{Instance, InstanceDesc};
pub use memory::{MemoryLocation, MemoryReport};
pub use offscreen::{ImageReadback, OffscreenTarget, RgbaImage};
pub use pass::{ComputeGuard, DrawPass, PassBuilder, RenderTarget, Sampled};
pub use pipeline::{
    DepthBias, GraphicsPipelineDesc, Pipeline, PipelineLayout, ShaderLibrary, ShaderTarget,
};
pub use retire::Retire;
pub use swapchain::{Acquired, Swapchain, WindowSurface};
pub use transient::{TransientRange, TransientUse};
pub use upload::Uploader;

/// How to make a [`Gpu`].
#[derive(Debug, Clone, Default)]
pub struct GpuDesc {
    pub app_name: String,
    /// The Khronos validation layer, messages to the log, errors counted.
    pub validation: bool,
    /// `--gpu N`: the device's index in the listing, instead of the best one.
    pub preferred_device: Option<usize>,
    /// Use the Vulkan 1.2 path (KHR dynamic rendering and synchronization2, SPIR-V 1.5) even on
    /// a 1.3 device. RenderDoc on lavapipe takes that path by itself; tests force it to cover it.
    pub vulkan_1_2_path: bool,
}

/// The backend as an application holds it.
pub struct Gpu {
    pub instance: Arc<Instance>,
    pub device: Arc<Device>,
    pub uploader: Uploader,
    pub bindless: BindlessTable,
}

impl Gpu {
    /// A GPU for offscreen work (headless renders, compute, tests).
    pub fn headless(desc: &GpuDesc) -> GpuResult<Self> {
        let instance = Instance::new(&InstanceDesc {
            app_name: desc.app_name.clone(),
            validation: desc.validation,
            surface_extensions: Vec::new(),
        })?;
        let adapter =
            adapter::select_adapter(&instance, None, desc.preferred_device, desc.vulkan_1_2_path)?;
        Self::finish(instance, adapter, false)
    }

    /// A GPU that presents to a window; also returns the window's surface.
    pub fn windowed(
        desc: &GpuDesc,
        display: winit::raw_window_handle::RawDisplayHandle,
        window: winit::raw_window_handle::RawWindowHandle,
    ) -> GpuResult<(Self, Arc<WindowSurface>)> {
        let extensions = ash_window::enumerate_required_extensions(display)
            .map_err(|result| {
                GpuError::Window(format!(
                    "no Vulkan surface extensions for this window system: {result:?}"
                ))
            })?
            .to_vec();
        let instance = Instance::new(&InstanceDesc {
            app_name: desc.app_name.clone(),
            validation: desc.validation,
            surface_extensions: extensions,
        })?;
        let surface = Arc::new(WindowSurface::new(&instance, display, window)?);
        let adapter = adapter::select_adapter(
            &instance,
            Some(surface.raw),
            desc.preferred_device,
            desc.vulkan_1_2_path,
        )?;
        Ok((Self::finish(instance, adapter, true)?, surface))
    }

    fn finish(instance: Arc<Instance>, adapter: Adapter, swapchain: bool) -> GpuResult<Self> {
        let device = Device::new(instance.clone(), adapter, swapchain)?;
        let uploader = Uploader::new(&device)?;
        let bindless = BindlessTable::new(&device, bindless::DEFAULT_CAPACITY)?;
        Ok(Self {
            instance,
            device,
            uploader,
            bindless,
        })
    }

    /// Validation errors so far (0 unless something misused the API).
    pub fn validation_errors(&self) -> u64 {
        self.instance.canary().errors()
    }
}
