//! Every conversion between Vulkan enums and the backend's own, in one place (after wgpu-hal).

use ash::vk;

use super::image::ImageAccess;

/// Bytes per texel of the formats the backend creates images in.
pub fn bytes_per_texel(format: vk::Format) -> Option<u32> {
    match format {
        vk::Format::R8_UNORM => Some(1),
        vk::Format::R8G8B8A8_UNORM
        | vk::Format::R8G8B8A8_SRGB
        | vk::Format::B8G8R8A8_UNORM
        | vk::Format::B8G8R8A8_SRGB
        | vk::Format::R32_SFLOAT
        | vk::Format::R32_UINT
        | vk::Format::D32_SFLOAT => Some(4),
        vk::Format::R16G16B16A16_SFLOAT => Some(8),
        vk::Format::R32G32B32A32_SFLOAT => Some(16),
        _ => None,
    }
}

/// Which aspect of an image a format has.
pub fn aspect_of(format: vk::Format) -> vk::ImageAspectFlags {
    match format {
        vk::Format::D16_UNORM | vk::Format::D32_SFLOAT | vk::Format::X8_D24_UNORM_PACK32 => {
            vk::ImageAspectFlags::DEPTH
        }
        vk::Format::D16_UNORM_S8_UINT
        | vk::Format::D24_UNORM_S8_UINT
        | vk::Format::D32_SFLOAT_S8_UINT => {
            vk::ImageAspectFlags::DEPTH | vk::ImageAspectFlags::STENCIL
        }
        _ => vk::ImageAspectFlags::COLOR,
    }
}

/// Whether a format stores sRGB-encoded colour (the hardware decodes on read, encodes on write):
/// every `*_SRGB` format of Vulkan 1.3 and of the extensions ash names (the PVRTC ones of
/// `VK_IMG_format_pvrtc`).
pub fn is_srgb(format: vk::Format) -> bool {
    use vk::Format as F;
    matches!(
        format,
        F::R8_SRGB
            | F::R8G8_SRGB
            | F::R8G8B8_SRGB
            | F::B8G8R8_SRGB
            | F::R8G8B8A8_SRGB
            | F::B8G8R8A8_SRGB
            | F::A8B8G8R8_SRGB_PACK32
            | F::BC1_RGB_SRGB_BLOCK
            | F::BC1_RGBA_SRGB_BLOCK
            | F::BC2_SRGB_BLOCK
            | F::BC3_SRGB_BLOCK
            | F::BC7_SRGB_BLOCK
            | F::ETC2_R8G8B8_SRGB_BLOCK
            | F::ETC2_R8G8B8A1_SRGB_BLOCK
            | F::ETC2_R8G8B8A8_SRGB_BLOCK
            | F::ASTC_4X4_SRGB_BLOCK
            | F::ASTC_5X4_SRGB_BLOCK
            | F::ASTC_5X5_SRGB_BLOCK
            | F::ASTC_6X5_SRGB_BLOCK
            | F::ASTC_6X6_SRGB_BLOCK
            | F::ASTC_8X5_SRGB_BLOCK
            | F::ASTC_8X6_SRGB_BLOCK
            | F::ASTC_8X8_SRGB_BLOCK
            | F::ASTC_10X5_SRGB_BLOCK
            | F::ASTC_10X6_SRGB_BLOCK
            | F::ASTC_10X8_SRGB_BLOCK
            | F::ASTC_10X10_SRGB_BLOCK
            | F::ASTC_12X10_SRGB_BLOCK
            | F::ASTC_12X12_SRGB_BLOCK
            | F::PVRTC1_2BPP_SRGB_BLOCK_IMG
            | F::PVRTC1_4BPP_SRGB_BLOCK_IMG
            | F::PVRTC2_2BPP_SRGB_BLOCK_IMG
            | F::PVRTC2_4BPP_SRGB_BLOCK_IMG
    )
}

/// Whether a format stores blue first (swapchains often do); readbacks swap it to RGBA.
pub fn is_bgra(format: vk::Format) -> bool {
    matches!(
        format,
        vk::Format::B8G8R8A8_SRGB | vk::Format::B8G8R8A8_UNORM
    )
}

/// Layout, stages and accesses of an image in one of its uses, for synchronization2 barriers.
pub fn image_access(
    access: ImageAccess,
) -> (vk::ImageLayout, vk::PipelineStageFlags2, vk::AccessFlags2) {
    use vk::{AccessFlags2 as A, ImageLayout as L, PipelineStageFlags2 as S};
    match access {
        ImageAccess::Undefined => (L::UNDEFINED, S::TOP_OF_PIPE, A::NONE),
        ImageAccess::TransferDst => (L::TRANSFER_DST_OPTIMAL, S::ALL_TRANSFER, A::TRANSFER_WRITE),
        ImageAccess::TransferSrc => (L::TRANSFER_SRC_OPTIMAL, S::ALL_TRANSFER, A::TRANSFER_READ),
        // `SHADER_READ` (sampled and storage reads), the access the layout's rule names: the
        // validation layer's best practices flag `SHADER_SAMPLED_READ` alone with this layout.
        ImageAccess::ShaderRead => (
            L::SHADER_READ_ONLY_OPTIMAL,
            S::FRAGMENT_SHADER | S::COMPUTE_SHADER,
            A::SHADER_READ,
        ),
        ImageAccess::ColorAttachment => (
            L::COLOR_ATTACHMENT_OPTIMAL,
            S::COLOR_ATTACHMENT_OUTPUT,
            A::COLOR_ATTACHMENT_WRITE | A::COLOR_ATTACHMENT_READ,
        ),
        ImageAccess::DepthAttachment => (
            L::DEPTH_ATTACHMENT_OPTIMAL,
            S::EARLY_FRAGMENT_TESTS | S::LATE_FRAGMENT_TESTS,
            A::DEPTH_STENCIL_ATTACHMENT_WRITE | A::DEPTH_STENCIL_ATTACHMENT_READ,
        ),
        ImageAccess::Present => (L::PRESENT_SRC_KHR, S::NONE, A::NONE),
    }
}

/// Preference of a device type when none is asked for: discrete > integrated > virtual > CPU.
pub fn device_type_rank(device_type: vk::PhysicalDeviceType) -> u32 {
    match device_type {
        vk::PhysicalDeviceType::DISCRETE_GPU => 4,
        vk::PhysicalDeviceType::INTEGRATED_GPU => 3,
        vk::PhysicalDeviceType::VIRTUAL_GPU => 2,
        vk::PhysicalDeviceType::CPU => 1,
        _ => 0,
    }
}

/// A device type as people say it.
pub fn device_type_name(device_type: vk::PhysicalDeviceType) -> &'static str {
    match device_type {
        vk::PhysicalDeviceType::DISCRETE_GPU => "discrete GPU",
        vk::PhysicalDeviceType::INTEGRATED_GPU => "integrated GPU",
        vk::PhysicalDeviceType::VIRTUAL_GPU => "virtual GPU",
        vk::PhysicalDeviceType::CPU => "CPU",
        _ => "other",
    }
}

/// A Vulkan version number as `major.minor.patch`.
pub fn version_string(version: u32) -> String {
    format!(
        "{}.{}.{}",
        vk::api_version_major(version),
        vk::api_version_minor(version),
        vk::api_version_patch(version)
    )
}

/// Reads a fixed-size, NUL-terminated Vulkan name.
pub fn fixed_name(raw: &[std::ffi::c_char]) -> String {
    // SAFETY: Vulkan fills these arrays with a NUL-terminated string; `to_string_lossy` copes with
    // anything else, and the slice bounds the read.
    let bytes: Vec<u8> = raw
        .iter()
        .take_while(|&&c| c != 0)
        .map(|&c| c as u8)
        .collect();
    String::from_utf8_lossy(&bytes).into_owned()
}

/// Sample counts a value of the `vk::SampleCountFlags` type stands for.
pub fn sample_count(samples: u32) -> vk::SampleCountFlags {
    match samples {
        2 => vk::SampleCountFlags::TYPE_2,
        4 => vk::SampleCountFlags::TYPE_4,
        8 => vk::SampleCountFlags::TYPE_8,
        _ => vk::SampleCountFlags::TYPE_1,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn discrete_beats_integrated_beats_cpu() {
        assert!(
            device_type_rank(vk::PhysicalDeviceType::DISCRETE_GPU)
                > device_type_rank(vk::PhysicalDeviceType::INTEGRATED_GPU)
        );
        assert!(
            device_type_rank(vk::PhysicalDeviceType::INTEGRATED_GPU)
                > device_type_rank(vk::PhysicalDeviceType::CPU)
        );
    }

    #[test]
    fn depth_formats_have_depth_aspect() {
        assert_eq!(
            aspect_of(vk::Format::D32_SFLOAT),
            vk::ImageAspectFlags::DEPTH
        );
        assert_eq!(
            aspect_of(vk::Format::R8G8B8A8_SRGB),
            vk::ImageAspectFlags::COLOR
        );
    }

    #[test]
    fn srgb_formats_are_told_from_linear_ones() {
        // The ones the HUD's own list held (the HUD now asks this function), then the rest.
        for format in [
            vk::Format::R8G8B8A8_SRGB,
            vk::Format::B8G8R8A8_SRGB,
            vk::Format::A8B8G8R8_SRGB_PACK32,
            vk::Format::R8G8B8_SRGB,
            vk::Format::B8G8R8_SRGB,
            vk::Format::R8_SRGB,
            vk::Format::R8G8_SRGB,
            vk::Format::BC7_SRGB_BLOCK,
            vk::Format::ASTC_12X12_SRGB_BLOCK,
        ] {
            assert!(is_srgb(format), "{format:?}");
        }
        for format in [
            vk::Format::R8G8B8A8_UNORM,
            vk::Format::B8G8R8A8_UNORM,
            vk::Format::A2B10G10R10_UNORM_PACK32,
            vk::Format::R16G16B16A16_SFLOAT,
            vk::Format::BC7_UNORM_BLOCK,
        ] {
            assert!(!is_srgb(format), "{format:?}");
        }
    }

    #[test]
    fn fixed_names_stop_at_nul() {
        let raw: Vec<std::ffi::c_char> = b"llvmpipe\0garbage"
            .iter()
            .map(|&b| b as std::ffi::c_char)
            .collect();
        assert_eq!(fixed_name(&raw), "llvmpipe");
        assert_eq!(
            version_string(vk::make_api_version(0, 1, 3, 281)),
            "1.3.281"
        );
    }
}
