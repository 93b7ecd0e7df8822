//! The instance's half: the debug-utils messenger's callback, which logs every message of the
//! validation layer with the names of the objects it is about and counts them in the
//! [`ValidationCanary`].

use std::ffi::{c_void, CStr};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;

use ash::vk;

/// Counts what the validation layer reported. Shared by the instance and whoever asks.
#[derive(Debug, Default)]
pub struct ValidationCanary {
    errors: AtomicU64,
    warnings: AtomicU64,
    last_error: Mutex<Option<String>>,
}

impl ValidationCanary {
    /// Validation errors so far, over the life of the instance.
    pub fn errors(&self) -> u64 {
        self.errors.load(Ordering::SeqCst)
    }

    /// Validation and performance warnings so far.
    pub fn warnings(&self) -> u64 {
        self.warnings.load(Ordering::SeqCst)
    }

    /// The text of the latest error, to put in a failing test's message.
    pub fn last_error(&self) -> Option<String> {
        self.last_error
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
            .clone()
    }

    fn record_error(&self, text: String) {
        self.errors.fetch_add(1, Ordering::SeqCst);
        *self
            .last_error
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner()) = Some(text);
    }
}

/// The debug-utils messenger callback: log it, count it.
///
/// # Safety
/// Called by the Vulkan loader with a valid callback data pointer and, as user data, the pointer
/// to the [`ValidationCanary`] the instance keeps alive for as long as the messenger exists.
pub(crate) unsafe extern "system" fn messenger_callback(
    severity: vk::DebugUtilsMessageSeverityFlagsEXT,
    types: vk::DebugUtilsMessageTypeFlagsEXT,
    callback_data: *const vk::DebugUtilsMessengerCallbackDataEXT<'_>,
    user_data: *mut c_void,
) -> vk::Bool32 {
    if callback_data.is_null() {
        return vk::FALSE;
    }
    // SAFETY: checked non-null above; the loader guarantees it points to valid callback data for
    // the duration of this call.
    let data = unsafe { &*callback_data };
    // SAFETY: the strings are NUL-terminated or null; `cstr_or` handles null.
    let id_name = unsafe { cstr_or(data.p_message_id_name, "") };
    // SAFETY: as above.
    let message = unsafe { cstr_or(data.p_message, "") };
    let mut objects = String::new();
    if !data.p_objects.is_null() {
        // SAFETY: `p_objects` points to `object_count` valid entries while the callback runs.
        let list =
            unsafe { std::slice::from_raw_parts(data.p_objects, data.object_count as usize) };
        for object in list {
            // SAFETY: as above, a NUL-terminated name or null.
            let name = unsafe { cstr_or(object.p_object_name, "unnamed") };
            objects.push_str(&format!(
                "\n    {:?} {:#x} \"{}\"",
                object.object_type, object.object_handle, name
            ));
        }
    }
    let text = format!("[{id_name}] {message}{objects}");
    if severity.contains(vk::DebugUtilsMessageSeverityFlagsEXT::ERROR) {
        log::error!(target: "vulkan", "{types:?}: {text}");
        if !user_data.is_null() {
            // SAFETY: see the function's safety section; the canary outlives the messenger.
            let canary = unsafe { &*(user_data as *const ValidationCanary) };
            canary.record_error(text);
        }
    } else if severity.contains(vk::DebugUtilsMessageSeverityFlagsEXT::WARNING) {
        log::warn!(target: "vulkan", "{types:?}: {text}");
        if !user_data.is_null() {
            // SAFETY: as above.
            let canary = unsafe { &*(user_data as *const ValidationCanary) };
            canary.warnings.fetch_add(1, Ordering::SeqCst);
        }
    } else if severity.contains(vk::DebugUtilsMessageSeverityFlagsEXT::INFO) {
        log::debug!(target: "vulkan", "{types:?}: {text}");
    } else {
        log::trace!(target: "vulkan", "{types:?}: {text}");
    }
    // Never abort the call: the layer's own behaviour after a report is what the spec allows.
    vk::FALSE
}

/// # Safety
/// `pointer` is null or a valid NUL-terminated string that lives through the call.
unsafe fn cstr_or(pointer: *const std::ffi::c_char, fallback: &str) -> String {
    if pointer.is_null() {
        fallback.to_owned()
    } else {
        // SAFETY: guaranteed by the caller.
        unsafe { CStr::from_ptr(pointer) }
            .to_string_lossy()
            .into_owned()
    }
}
