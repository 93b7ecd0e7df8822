//! The Vulkan instance: loader, layers, the debug messenger.

use std::ffi::{c_char, c_void, CStr, CString};
use std::sync::Arc;

use ash::vk;

use super::debug::{messenger_callback, ValidationCanary};
use super::error::{GpuError, GpuResult, VkResultExt};

const VALIDATION_LAYER: &CStr = c"VK_LAYER_KHRONOS_validation";

/// What the instance is made with.
#[derive(Debug, Clone, Default)]
pub struct InstanceDesc {
    /// Shown to drivers and tools.
    pub app_name: String,
    /// Turn the Khronos validation layer on; its messages go to `log` and errors to the canary.
    pub validation: bool,
    /// Instance extensions a window surface needs (from `ash_window::enumerate_required_extensions`).
    pub surface_extensions: Vec<*const c_char>,
}

/// The loaded Vulkan library and an instance of it.
pub struct Instance {
    pub entry: ash::Entry,
    pub raw: ash::Instance,
    /// `VK_KHR_surface`, when a window was asked for.
    pub surface_fn: Option<ash::khr::surface::Instance>,
    debug_utils: Option<ash::ext::debug_utils::Instance>,
    messenger: vk::DebugUtilsMessengerEXT,
    canary: Arc<ValidationCanary>,
    validation: bool,
    debug_utils_enabled: bool,
}

impl Instance {
    /// Loads Vulkan and creates an instance for Vulkan 1.3.
    pub fn new(desc: &InstanceDesc) -> GpuResult<Arc<Self>> {
        // SAFETY: loading the system's Vulkan loader runs its initialisers; nothing else in this
        // process loads it in a conflicting way.
        let entry = unsafe { ash::Entry::load() }.map_err(|e| GpuError::Loader(e.to_string()))?;

        // SAFETY: plain queries of the loader.
        let version = unsafe { entry.try_enumerate_instance_version() }
            .vk("vkEnumerateInstanceVersion")?
            .unwrap_or(vk::API_VERSION_1_0);
        if version < vk::API_VERSION_1_2 {
            return Err(GpuError::NoSuitableDevice(format!(
                "the Vulkan loader supports {} but blockfall needs 1.2 or newer; update libvulkan1",
                super::conv::version_string(version)
            )));
        }
        // SAFETY: as above.
        let layers = unsafe { entry.enumerate_instance_layer_properties() }
            .vk("vkEnumerateInstanceLayerProperties")?;
        // SAFETY: as above.
        let extensions = unsafe { entry.enumerate_instance_extension_properties(None) }
            .vk("vkEnumerateInstanceExtensionProperties")?;
        let has_extension = |name: &CStr| {
            extensions
                .iter()
                .any(|e| e.extension_name_as_c_str().is_ok_and(|n| n == name))
        };

        let mut layer_names: Vec<*const c_char> = Vec::new();
        if desc.validation {
            let found = layers
                .iter()
                .any(|l| l.layer_name_as_c_str().is_ok_and(|n| n == VALIDATION_LAYER));
            if !found {
                return Err(GpuError::NoSuitableDevice(
                    "validation was asked for, but VK_LAYER_KHRONOS_validation is not installed \
                     (Debian: apt-get install vulkan-validationlayers)"
                        .into(),
                ));
            }
            layer_names.push(VALIDATION_LAYER.as_ptr());
        }

        let debug_utils_enabled = has_extension(ash::ext::debug_utils::NAME);
        let mut extension_names: Vec<*const c_char> = desc.surface_extensions.clone();
        if debug_utils_enabled {
            extension_names.push(ash::ext::debug_utils::NAME.as_ptr());
        } else {
            log::warn!("VK_EXT_debug_utils is missing: no object names, labels or validation log");
        }

        let app_name = CString::new(desc.app_name.replace('\0', " "))
            .unwrap_or_else(|_| CString::from(c"blockfall"));
        let app_info = vk::ApplicationInfo::default()
            .application_name(&app_name)
            .application_version(vk::make_api_version(0, 0, 1, 0))
            .engine_name(c"blockfall-engine")
            .engine_version(vk::make_api_version(0, 0, 1, 0))
            .api_version(vk::API_VERSION_1_3);

        let canary = Arc::new(ValidationCanary::default());
        let mut messenger_info = vk::DebugUtilsMessengerCreateInfoEXT::default()
            .message_severity(
                vk::DebugUtilsMessageSeverityFlagsEXT::ERROR
                    | vk::DebugUtilsMessageSeverityFlagsEXT::WARNING
                    | vk::DebugUtilsMessageSeverityFlagsEXT::INFO
                    | vk::DebugUtilsMessageSeverityFlagsEXT::VERBOSE,
            )
            .message_type(
                vk::DebugUtilsMessageTypeFlagsEXT::GENERAL
                    | vk::DebugUtilsMessageTypeFlagsEXT::VALIDATION
                    | vk::DebugUtilsMessageTypeFlagsEXT::PERFORMANCE,
            )
            .pfn_user_callback(Some(messenger_callback))
            .user_data(Arc::as_ptr(&canary) as *mut c_void);

        let mut create_info = vk::InstanceCreateInfo::default()
            .application_info(&app_info)
            .enabled_layer_names(&layer_names)
            .enabled_extension_names(&extension_names);
        if debug_utils_enabled {
            // Also catches what goes wrong inside vkCreateInstance / vkDestroyInstance.
            create_info = create_info.push_next(&mut messenger_info);
        }
        // SAFETY: every pointer in `create_info` points into locals that outlive the call.
        let raw = match unsafe { entry.create_instance(&create_info, None) } {
            Ok(raw) => raw,
            Err(vk::Result::ERROR_INCOMPATIBLE_DRIVER) => {
                return Err(GpuError::NoSuitableDevice(
                    "no Vulkan device found: the Vulkan loader found no driver (install a Vulkan \
                     driver; on Debian without a GPU, `bash tools/setup.sh` installs Mesa's \
                     lavapipe)"
                        .into(),
                ))
            }
            Err(result) => {
                return Err(GpuError::Vulkan {
                    call: "vkCreateInstance",
                    result,
                })
            }
        };

        let (debug_utils, messenger) = if debug_utils_enabled {
            let debug_utils = ash::ext::debug_utils::Instance::new(&entry, &raw);
            // SAFETY: the canary the user data points to is kept in `Self` and dropped after the
            // messenger is destroyed.
            let messenger =
                unsafe { debug_utils.create_debug_utils_messenger(&messenger_info, None) }
                    .vk("vkCreateDebugUtilsMessengerEXT")?;
            (Some(debug_utils), messenger)
        } else {
            (None, vk::DebugUtilsMessengerEXT::null())
        };

        let surface_fn = (!desc.surface_extensions.is_empty())
            .then(|| ash::khr::surface::Instance::new(&entry, &raw));

        log::info!(
            "Vulkan instance {} (validation {})",
            super::conv::version_string(version),
            if desc.validation { "on" } else { "off" }
        );
        Ok(Arc::new(Self {
            entry,
            raw,
            surface_fn,
            debug_utils,
            messenger,
            canary,
            validation: desc.validation,
            debug_utils_enabled,
        }))
    }

    /// What the validation layer has reported so far.
    pub fn canary(&self) -> &Arc<ValidationCanary> {
        &self.canary
    }

    /// Whether the validation layer is on.
    pub fn validation(&self) -> bool {
        self.validation
    }

    /// Whether debug names and labels reach anything.
    pub fn debug_utils_enabled(&self) -> bool {
        self.debug_utils_enabled
    }
}

impl Drop for Instance {
    fn drop(&mut self) {
        // SAFETY: every child object (devices, surfaces) holds an `Arc<Instance>` and is gone by
        // now; the messenger is destroyed before the instance it belongs to.
        unsafe {
            if let Some(debug_utils) = &self.debug_utils {
                debug_utils.destroy_debug_utils_messenger(self.messenger, None);
            }
            self.raw.destroy_instance(None);
        }
    }
}

impl std::fmt::Debug for Instance {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Instance")
            .field("validation", &self.validation)
            .field("debug_utils", &self.debug_utils_enabled)
            .finish()
    }
}
