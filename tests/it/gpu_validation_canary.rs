//! The validation canary can fail: misuse the API on purpose and see the count move. Its own
//! test process, so the error it provokes is counted nowhere else.

use crate::common;

use blockfall_engine::gpu::vk;

#[test]
fn canary_counts_a_deliberate_validation_error() {
    let Some(gpu) = common::gpu() else {
        return;
    };
    assert!(
        gpu.instance.validation(),
        "GPU tests always run with validation"
    );
    let before = gpu.validation_errors();
    let limit = gpu.device.adapter.limits.max_sampler_lod_bias;
    // VUID-VkSamplerCreateInfo-mipLodBias-01069: the bias must not exceed maxSamplerLodBias.
    // Harmless to the driver (it clamps), but a rule broken on purpose.
    let info = vk::SamplerCreateInfo::default().mip_lod_bias(limit * 4.0 + 100.0);
    // SAFETY: deliberately invalid create info; the sampler is destroyed right after.
    let sampler = unsafe { gpu.device.raw.create_sampler(&info, None) };
    if let Ok(sampler) = sampler {
        // SAFETY: unused sampler of this device.
        unsafe { gpu.device.raw.destroy_sampler(sampler, None) };
    }
    let caught = gpu.validation_errors() - before;
    assert!(caught >= 1, "the validation layer reported nothing");
    let message = gpu.instance.canary().last_error().unwrap_or_default();
    assert!(
        message.contains("mipLodBias"),
        "the canary recorded another error: {message}"
    );

    // A valid sampler afterwards adds nothing.
    let after = gpu.validation_errors();
    // SAFETY: valid default create info.
    let sampler = unsafe {
        gpu.device
            .raw
            .create_sampler(&vk::SamplerCreateInfo::default(), None)
    }
    .unwrap();
    // SAFETY: unused sampler.
    unsafe { gpu.device.raw.destroy_sampler(sampler, None) };
    common::assert_no_validation_errors(&gpu, after);
}
