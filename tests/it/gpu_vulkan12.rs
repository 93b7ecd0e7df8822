//! The Vulkan 1.2 path: dynamic rendering and synchronization2 from KHR extensions, SPIR-V 1.5
//! shaders. RenderDoc takes it by itself on lavapipe (it reports 1.2 there, lacking
//! bufferDeviceAddressCaptureReplay); here it is forced on the same device so CI covers it.
//! Its own test process: one instance per process.

use crate::common;

use blockfall_engine::gpu::ShaderTarget;
use blockfall_game_render::textures::TextureStyle;

#[test]
fn vulkan_1_2_path_computes_and_renders_like_the_core_path() {
    let Some(mut gpu) = common::gpu_vulkan_1_2() else {
        return;
    };
    assert!(!gpu.device.adapter.core13, "the 1.2 path was asked for");
    assert_eq!(gpu.device.shader_target(), ShaderTarget::Vulkan1_2);

    let (values, multiples) = common::fill_count(&gpu, 10_000, 5);
    let expected: Vec<u32> = (0..10_000).map(common::hash).collect();
    assert_eq!(values, expected);
    assert_eq!(
        multiples,
        expected.iter().filter(|v| *v % 5 == 0).count() as u32
    );

    let rendered = common::render_scene(&mut gpu, TextureStyle::Solid, 2, 320, 180);
    assert_eq!(rendered.draws, 1);
    common::assert_scene_pixels(&rendered.image);
}
