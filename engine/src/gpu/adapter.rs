//! Choosing the physical device: discrete > integrated > virtual > CPU, unless `--gpu N` says
//! which. A device that lacks what the renderer needs is never picked; when none fits, the error
//! lists every device with what it lacks.

use ash::vk;

use super::conv;
use super::error::{GpuError, GpuResult, VkResultExt};
use super::instance::Instance;

/// A physical device that fits, with what the backend needs to know of it.
#[derive(Debug, Clone)]
pub struct Adapter {
    pub raw: vk::PhysicalDevice,
    /// Its place in `vkEnumeratePhysicalDevices`, the number `--gpu` takes.
    pub index: usize,
    pub name: String,
    pub device_type: vk::PhysicalDeviceType,
    pub api_version: u32,
    pub driver_info: String,
    /// The queue family used for graphics, compute, transfer and present.
    pub queue_family: u32,
    /// Whether the queue family writes timestamps.
    pub timestamps: bool,
    pub limits: vk::PhysicalDeviceLimits,
    /// Whether `samplerAnisotropy` can be turned on.
    pub sampler_anisotropy: bool,
    /// Whether `fillModeNonSolid` can be turned on (wireframe views).
    pub fill_mode_non_solid: bool,
    /// Whether `multiDrawIndirect` can be turned on: one indirect call with a draw count above 1
    /// (the pieces' draws).
    pub multi_draw_indirect: bool,
    /// Whether `drawIndirectFirstInstance` can be turned on: indirect commands with a
    /// `firstInstance` other than 0 (a piece's transform is its instance).
    pub draw_indirect_first_instance: bool,
    /// Whether `drawIndirectCount` can be turned on: indirect draws whose count the GPU reads
    /// from a buffer (`RenderPass::draw_indexed_indirect_count`).
    pub draw_indirect_count: bool,
    /// Vulkan 1.3 (core dynamic rendering, synchronization2, maintenance4, SPIR-V 1.6); else a
    /// 1.2 device with the KHR extensions.
    pub core13: bool,
}

/// What one device offers, before judging it.
struct Candidate {
    adapter: Adapter,
    missing: Vec<String>,
}

/// Lists the devices and picks one. `surface` restricts the choice to devices that can present
/// to it; `preferred` is the `--gpu N` override.
///
/// `vulkan_1_2_path` treats every device as Vulkan 1.2 with the KHR extensions (tests use it to
/// cover the path RenderDoc takes on lavapipe).
pub fn select_adapter(
    instance: &Instance,
    surface: Option<vk::SurfaceKHR>,
    preferred: Option<usize>,
    vulkan_1_2_path: bool,
) -> GpuResult<Adapter> {
    // SAFETY: a plain query of a live instance.
    let devices =
        unsafe { instance.raw.enumerate_physical_devices() }.vk("vkEnumeratePhysicalDevices")?;
    if devices.is_empty() {
        return Err(GpuError::NoSuitableDevice(
            "no Vulkan device found: install a Vulkan driver (on Debian without a GPU, \
             `bash tools/setup.sh` installs Mesa's lavapipe)"
                .into(),
        ));
    }
    let candidates: Vec<Candidate> = devices
        .iter()
        .enumerate()
        .map(|(index, &raw)| inspect(instance, raw, index, surface, vulkan_1_2_path))
        .collect::<GpuResult<_>>()?;

    choose(&candidates, preferred)
}

/// Picks among inspected devices: the one `preferred` names, or the best type that fits.
fn choose(candidates: &[Candidate], preferred: Option<usize>) -> GpuResult<Adapter> {
    let listing = || {
        let mut text = String::from("Vulkan devices:");
        for c in candidates {
            let a = &c.adapter;
            text.push_str(&format!(
                "\n  [{}] {} ({}, Vulkan {}, {})",
                a.index,
                a.name,
                conv::device_type_name(a.device_type),
                conv::version_string(a.api_version),
                a.driver_info
            ));
            if c.missing.is_empty() {
                text.push_str(" - fits");
            } else {
                text.push_str(&format!(" - lacks: {}", c.missing.join(", ")));
            }
        }
        text
    };

    if let Some(wanted) = preferred {
        let Some(candidate) = candidates.iter().find(|c| c.adapter.index == wanted) else {
            return Err(GpuError::PreferredDeviceUnfit(format!(
                "--gpu {wanted}: there is no device {wanted}\n{}",
                listing()
            )));
        };
        if !candidate.missing.is_empty() {
            return Err(GpuError::PreferredDeviceUnfit(format!(
                "--gpu {wanted}: {} lacks what blockfall needs\n{}",
                candidate.adapter.name,
                listing()
            )));
        }
        return Ok(candidate.adapter.clone());
    }

    let best = candidates
        .iter()
        .filter(|c| c.missing.is_empty())
        // Ties go to the lower index, as the driver lists them.
        .max_by_key(|c| {
            (
                conv::device_type_rank(c.adapter.device_type),
                usize::MAX - c.adapter.index,
            )
        });
    match best {
        Some(candidate) => {
            log::info!("{}", listing());
            Ok(candidate.adapter.clone())
        }
        None => Err(GpuError::NoSuitableDevice(format!(
            "no Vulkan device has what blockfall needs (Vulkan 1.3, or 1.2 with \
             VK_KHR_dynamic_rendering and VK_KHR_synchronization2; timeline semaphores and \
             descriptor indexing; Mesa >= 23 lavapipe or any current desktop driver)\n{}",
            listing()
        ))),
    }
}

fn inspect(
    instance: &Instance,
    raw: vk::PhysicalDevice,
    index: usize,
    surface: Option<vk::SurfaceKHR>,
    vulkan_1_2_path: bool,
) -> GpuResult<Candidate> {
    let mut driver = vk::PhysicalDeviceDriverProperties::default();
    let mut properties2 = vk::PhysicalDeviceProperties2::default().push_next(&mut driver);
    // SAFETY: `raw` comes from this instance; the chain points at locals.
    unsafe {
        instance
            .raw
            .get_physical_device_properties2(raw, &mut properties2)
    };
    let properties = properties2.properties;
    let name = conv::fixed_name(&properties.device_name);
    let driver_info = format!(
        "{} {}",
        conv::fixed_name(&driver.driver_name),
        conv::fixed_name(&driver.driver_info)
    )
    .trim()
    .to_owned();

    let mut missing = Vec::new();
    if properties.api_version < vk::API_VERSION_1_2 {
        missing.push(format!(
            "Vulkan 1.2 (has {})",
            conv::version_string(properties.api_version)
        ));
    }
    // SAFETY: plain query.
    let extensions = unsafe { instance.raw.enumerate_device_extension_properties(raw) }
        .vk("vkEnumerateDeviceExtensionProperties")?;
    let has_extension = |name: &std::ffi::CStr| {
        extensions
            .iter()
            .any(|e| e.extension_name_as_c_str().is_ok_and(|n| n == name))
    };
    // Vulkan 1.3 has dynamic rendering, synchronization2 and maintenance4 in its core; a 1.2
    // device may offer the first two as extensions (lavapipe under RenderDoc does), and then
    // takes SPIR-V 1.5 shaders, which need no maintenance4.
    let core13 = properties.api_version >= vk::API_VERSION_1_3 && !vulkan_1_2_path;
    let has_dynamic_rendering = has_extension(ash::khr::dynamic_rendering::NAME);
    let has_synchronization2 = has_extension(ash::khr::synchronization2::NAME);

    let mut features12 = vk::PhysicalDeviceVulkan12Features::default();
    let mut features13 = vk::PhysicalDeviceVulkan13Features::default();
    let mut dynamic_rendering = vk::PhysicalDeviceDynamicRenderingFeatures::default();
    let mut synchronization2 = vk::PhysicalDeviceSynchronization2Features::default();
    let mut sampler_anisotropy = false;
    let mut fill_mode_non_solid = false;
    let mut multi_draw_indirect = false;
    let mut draw_indirect_first_instance = false;
    let mut draw_indirect_count = false;
    if properties.api_version >= vk::API_VERSION_1_2 {
        let mut features2 = vk::PhysicalDeviceFeatures2::default().push_next(&mut features12);
        if core13 {
            features2 = features2.push_next(&mut features13);
        } else {
            // Only structures of extensions the device has may be chained.
            if has_dynamic_rendering {
                features2 = features2.push_next(&mut dynamic_rendering);
            }
            if has_synchronization2 {
                features2 = features2.push_next(&mut synchronization2);
            }
        }
        // SAFETY: as above; every chained structure is of the device's version or extensions.
        unsafe {
            instance
                .raw
                .get_physical_device_features2(raw, &mut features2)
        };
        sampler_anisotropy = features2.features.sampler_anisotropy == vk::TRUE;
        fill_mode_non_solid = features2.features.fill_mode_non_solid == vk::TRUE;
        multi_draw_indirect = features2.features.multi_draw_indirect == vk::TRUE;
        draw_indirect_first_instance = features2.features.draw_indirect_first_instance == vk::TRUE;
        draw_indirect_count = features12.draw_indirect_count == vk::TRUE;
    }
    let mut required: Vec<(&str, vk::Bool32)> = vec![
        ("timelineSemaphore", features12.timeline_semaphore),
        ("descriptorIndexing", features12.descriptor_indexing),
        (
            "runtimeDescriptorArray",
            features12.runtime_descriptor_array,
        ),
        (
            "descriptorBindingPartiallyBound",
            features12.descriptor_binding_partially_bound,
        ),
        (
            "descriptorBindingVariableDescriptorCount",
            features12.descriptor_binding_variable_descriptor_count,
        ),
        (
            "descriptorBindingSampledImageUpdateAfterBind",
            features12.descriptor_binding_sampled_image_update_after_bind,
        ),
        (
            "shaderSampledImageArrayNonUniformIndexing",
            features12.shader_sampled_image_array_non_uniform_indexing,
        ),
        ("hostQueryReset", features12.host_query_reset),
    ];
    if core13 {
        required.extend([
            ("dynamicRendering", features13.dynamic_rendering),
            ("synchronization2", features13.synchronization2),
            ("maintenance4", features13.maintenance4),
        ]);
    } else {
        required.extend([
            (
                "dynamicRendering (VK_KHR_dynamic_rendering)",
                dynamic_rendering.dynamic_rendering,
            ),
            (
                "synchronization2 (VK_KHR_synchronization2)",
                synchronization2.synchronization2,
            ),
        ]);
    }
    for (feature, supported) in required {
        if supported != vk::TRUE {
            missing.push(feature.to_owned());
        }
    }

    // SAFETY: plain queries.
    let families = unsafe {
        instance
            .raw
            .get_physical_device_queue_family_properties(raw)
    };
    let wanted = vk::QueueFlags::GRAPHICS | vk::QueueFlags::COMPUTE;
    let mut chosen = None;
    for (family, props) in families.iter().enumerate() {
        if !props.queue_flags.contains(wanted) {
            continue;
        }
        if let (Some(surface), Some(surface_fn)) = (surface, &instance.surface_fn) {
            // SAFETY: the surface belongs to this instance.
            let presents = unsafe {
                surface_fn.get_physical_device_surface_support(raw, family as u32, surface)
            }
            .unwrap_or(false);
            if !presents {
                continue;
            }
        }
        chosen = Some((family as u32, props.timestamp_valid_bits > 0));
        break;
    }
    let (queue_family, timestamps) = chosen.unwrap_or_else(|| {
        missing.push(if surface.is_some() {
            "a graphics+compute queue that presents to the window".to_owned()
        } else {
            "a graphics+compute queue".to_owned()
        });
        (0, false)
    });

    if surface.is_some() && !has_extension(ash::khr::swapchain::NAME) {
        missing.push("VK_KHR_swapchain".to_owned());
    }

    Ok(Candidate {
        adapter: Adapter {
            raw,
            index,
            name,
            device_type: properties.device_type,
            api_version: properties.api_version,
            driver_info,
            queue_family,
            timestamps: timestamps && properties.limits.timestamp_compute_and_graphics == vk::TRUE,
            limits: properties.limits,
            sampler_anisotropy,
            fill_mode_non_solid,
            multi_draw_indirect,
            draw_indirect_first_instance,
            draw_indirect_count,
            core13,
        },
        missing,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn candidate(index: usize, device_type: vk::PhysicalDeviceType, missing: &[&str]) -> Candidate {
        Candidate {
            adapter: Adapter {
                raw: vk::PhysicalDevice::null(),
                index,
                name: format!("device {index}"),
                device_type,
                api_version: vk::API_VERSION_1_3,
                driver_info: "test driver".into(),
                queue_family: 0,
                timestamps: true,
                limits: vk::PhysicalDeviceLimits::default(),
                sampler_anisotropy: false,
                fill_mode_non_solid: false,
                multi_draw_indirect: false,
                draw_indirect_first_instance: false,
                draw_indirect_count: false,
                core13: true,
            },
            missing: missing.iter().map(|m| m.to_string()).collect(),
        }
    }

    #[test]
    fn best_fitting_type_wins() {
        let candidates = [
            candidate(0, vk::PhysicalDeviceType::CPU, &[]),
            candidate(1, vk::PhysicalDeviceType::INTEGRATED_GPU, &[]),
            candidate(2, vk::PhysicalDeviceType::DISCRETE_GPU, &["maintenance4"]),
        ];
        // The discrete GPU lacks a feature, so the integrated one is best.
        assert_eq!(choose(&candidates, None).unwrap().index, 1);
    }

    #[test]
    fn discrete_beats_cpu_and_ties_go_to_the_first() {
        let candidates = [
            candidate(0, vk::PhysicalDeviceType::CPU, &[]),
            candidate(1, vk::PhysicalDeviceType::DISCRETE_GPU, &[]),
            candidate(2, vk::PhysicalDeviceType::DISCRETE_GPU, &[]),
        ];
        assert_eq!(choose(&candidates, None).unwrap().index, 1);
    }

    #[test]
    fn preferred_device_overrides_the_ranking() {
        let candidates = [
            candidate(0, vk::PhysicalDeviceType::DISCRETE_GPU, &[]),
            candidate(1, vk::PhysicalDeviceType::CPU, &[]),
        ];
        assert_eq!(choose(&candidates, Some(1)).unwrap().index, 1);
    }

    #[test]
    fn errors_list_every_device_and_what_it_lacks() {
        let candidates = [
            candidate(
                0,
                vk::PhysicalDeviceType::CPU,
                &["runtimeDescriptorArray", "maintenance4"],
            ),
            candidate(
                1,
                vk::PhysicalDeviceType::INTEGRATED_GPU,
                &["Vulkan 1.2 (has 1.1.0)"],
            ),
        ];
        let none = choose(&candidates, None).unwrap_err().to_string();
        assert!(none.contains("[0] device 0 (CPU"), "{none}");
        assert!(
            none.contains("lacks: runtimeDescriptorArray, maintenance4"),
            "{none}"
        );
        assert!(none.contains("[1] device 1 (integrated GPU"), "{none}");
        let unfit = choose(&candidates, Some(1)).unwrap_err().to_string();
        assert!(unfit.contains("--gpu 1: device 1 lacks"), "{unfit}");
        let absent = choose(&candidates, Some(7)).unwrap_err().to_string();
        assert!(absent.contains("there is no device 7"), "{absent}");
    }
}
