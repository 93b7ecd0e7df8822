//! The device's half: names of Vulkan objects and labels of command-buffer regions, through
//! the debug-utils extension when the device has it.

use std::ffi::CString;

use ash::vk;

use crate::gpu::device::Device;

/// Colours of debug labels, so passes are told apart at a glance in RenderDoc.
pub mod label_colour {
    pub const GRAPHICS: [f32; 4] = [0.35, 0.6, 0.95, 1.0];
    pub const COMPUTE: [f32; 4] = [0.95, 0.6, 0.25, 1.0];
    pub const TRANSFER: [f32; 4] = [0.55, 0.85, 0.45, 1.0];
}

impl Device {
    /// Gives a Vulkan object a name that validation messages, RenderDoc and drivers show.
    /// Without the debug-utils extension it does nothing.
    pub fn set_name<H: vk::Handle>(&self, handle: H, name: &str) {
        let Some(debug_utils) = &self.debug_utils else {
            return;
        };
        let Ok(name) = CString::new(name.replace('\0', " ")) else {
            return;
        };
        let info = vk::DebugUtilsObjectNameInfoEXT::default()
            .object_handle(handle)
            .object_name(&name);
        // SAFETY: the handle belongs to this device (callers name what they just created) and
        // the info lives through the call.
        if let Err(result) = unsafe { debug_utils.set_debug_utils_object_name(&info) } {
            log::warn!("naming {name:?} failed: {result:?}");
        }
    }

    /// Opens a debug label region in a command buffer (a pass, a dispatch, an upload).
    pub fn begin_label(&self, command_buffer: vk::CommandBuffer, name: &str, colour: [f32; 4]) {
        let Some(debug_utils) = &self.debug_utils else {
            return;
        };
        let Ok(name) = CString::new(name.replace('\0', " ")) else {
            return;
        };
        let label = vk::DebugUtilsLabelEXT::default()
            .label_name(&name)
            .color(colour);
        // SAFETY: the command buffer is recording (callers only label what they record).
        unsafe { debug_utils.cmd_begin_debug_utils_label(command_buffer, &label) };
    }

    /// Closes the innermost label region opened by [`Device::begin_label`].
    pub fn end_label(&self, command_buffer: vk::CommandBuffer) {
        if let Some(debug_utils) = &self.debug_utils {
            // SAFETY: paired with a `begin_label` on the same recording command buffer.
            unsafe { debug_utils.cmd_end_debug_utils_label(command_buffer) };
        }
    }
}
