//! The one error type of the Vulkan backend.
//!
//! Every fallible call returns [`GpuResult`]; a failed Vulkan call names the call, so a log line
//! says what broke without a debugger.

use std::time::Duration;

use ash::vk;

/// Everything that can go wrong in the backend.
#[derive(Debug, thiserror::Error)]
pub enum GpuError {
    /// No Vulkan loader (libvulkan.so.1) on this machine.
    #[error(
        "the Vulkan loader could not be loaded ({0}); install libvulkan1 and a Vulkan driver \
         (on Debian: `bash tools/setup.sh`)"
    )]
    Loader(String),
    /// A Vulkan call returned an error code.
    #[error("{call} failed: {result:?}")]
    Vulkan {
        call: &'static str,
        result: vk::Result,
    },
    /// No physical device fits; the text lists them.
    #[error("{0}")]
    NoSuitableDevice(String),
    /// The device asked for (`GpuDesc::preferred_device`, the `--gpu` flag) does not exist or
    /// lacks what blockfall needs: bad input, not a missing driver; the text lists the devices.
    #[error("{0}")]
    PreferredDeviceUnfit(String),
    /// gpu-allocator could not place an allocation.
    #[error("GPU memory for `{name}`: {source}")]
    Allocation {
        name: String,
        #[source]
        source: gpu_allocator::AllocationError,
    },
    /// A SPIR-V blob that is not one.
    #[error("shader `{name}`: {reason}")]
    Shader { name: String, reason: String },
    /// The window system could not give a surface.
    #[error("window system: {0}")]
    Window(String),
    /// The caller asked for something the backend cannot do (a zero-sized image, say).
    #[error("{0}")]
    Invalid(String),
    /// The GPU did not finish in time: a hang, or a lost device.
    #[error("timed out after {0:?} waiting for the GPU")]
    Timeout(Duration),
}

/// Result of the backend.
pub type GpuResult<T> = Result<T, GpuError>;

/// Names a failed Vulkan call: `create_buffer(..).vk("vkCreateBuffer")?`.
pub(crate) trait VkResultExt<T> {
    fn vk(self, call: &'static str) -> GpuResult<T>;
}

impl<T> VkResultExt<T> for Result<T, vk::Result> {
    fn vk(self, call: &'static str) -> GpuResult<T> {
        self.map_err(|result| GpuError::Vulkan { call, result })
    }
}
