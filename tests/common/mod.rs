//! What the GPU tests share: one validated GPU per test process, handed out one test at a time.
//!
//! One instance and device per process, not per test: the 1.3.239 validation layer crashed when
//! many threads each had their own instance (VULKAN-RECIPE.md, pitfall 2). The mutex also makes
//! the validation count of a test its own.
//!
//! A GPU test FAILS when no Vulkan device exists. Only `BLOCKFALL_SKIP_GPU=1`, set on purpose,
//! turns that into a skip; CI never sets it.

#![allow(dead_code)]

use std::sync::{Mutex, MutexGuard, OnceLock};

use blockfall_engine::gpu::{Gpu, GpuDesc};

static GPU: OnceLock<Result<Mutex<Gpu>, String>> = OnceLock::new();

/// Whether GPU tests were told to skip (never in CI).
pub fn skip_gpu() -> bool {
    std::env::var("BLOCKFALL_SKIP_GPU").is_ok_and(|v| v == "1")
}

/// The shared GPU with validation on, or `None` when skipping on purpose. Panics (fails the
/// test) when there is no usable Vulkan device.
pub fn gpu() -> Option<MutexGuard<'static, Gpu>> {
    let gpu = GPU.get_or_init(|| {
        let _ = env_logger::builder().is_test(true).try_init();
        Gpu::headless(&GpuDesc {
            app_name: "blockfall tests".into(),
            validation: true,
            preferred_device: None,
        })
        .map(Mutex::new)
        .map_err(|error| error.to_string())
    });
    match gpu {
        Ok(gpu) => Some(gpu.lock().unwrap_or_else(|poisoned| poisoned.into_inner())),
        Err(error) if skip_gpu() => {
            eprintln!("BLOCKFALL_SKIP_GPU=1: skipping a GPU test ({error})");
            None
        }
        Err(error) => panic!(
            "no usable Vulkan device: {error}\nGPU tests fail without one (run tools/setup.sh); \
             set BLOCKFALL_SKIP_GPU=1 only to skip them on purpose"
        ),
    }
}

/// Fails the test if validation reported errors since `before`.
pub fn assert_no_validation_errors(gpu: &Gpu, before: u64) {
    let errors = gpu.validation_errors() - before;
    assert_eq!(
        errors,
        0,
        "{errors} validation errors; the last: {}",
        gpu.instance.canary().last_error().unwrap_or_default()
    );
}

/// Asserts two colours are equal within `tolerance` per channel.
pub fn assert_colour_near(actual: [u8; 4], expected: [u8; 3], tolerance: u8, what: &str) {
    for c in 0..3 {
        let difference = (actual[c] as i16 - expected[c] as i16).unsigned_abs();
        assert!(
            difference <= tolerance as u16,
            "{what}: got {:?}, expected {:?} (±{tolerance})",
            &actual[..3],
            expected
        );
    }
}
