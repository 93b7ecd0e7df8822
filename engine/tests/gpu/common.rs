//! What the GPU tests share: one validated GPU per test process, handed out one test at a time.
//!
//! One instance and device per process, not per test: the validation layer of Debian 12
//! (1.3.239) crashed when many threads each had their own instance. The mutex also makes the
//! validation count of a test its own.
//!
//! A GPU test FAILS when no Vulkan device exists. Only `BLOCKFALL_SKIP_GPU=1`, set on purpose,
//! turns that into a skip; CI never sets it.
//!
//! The engine's GPU tests (`engine/tests/gpu/`) and the application's (`tests/`) both use this
//! file (the latter through `#[path]`).

#![allow(dead_code)]

use std::sync::{Mutex, MutexGuard, OnceLock};

use blockfall_engine::gpu::{Gpu, GpuDesc};

type SharedGpu = OnceLock<Result<Mutex<Gpu>, String>>;

static GPU: SharedGpu = OnceLock::new();
static GPU_VULKAN_1_2: SharedGpu = OnceLock::new();

/// Whether GPU tests were told to skip (never in CI).
pub fn skip_gpu() -> bool {
    std::env::var("BLOCKFALL_SKIP_GPU").is_ok_and(|v| v == "1")
}

/// The shared GPU with validation on, or `None` when skipping on purpose. Panics (fails the
/// test) when there is no usable Vulkan device.
pub fn gpu() -> Option<MutexGuard<'static, Gpu>> {
    shared(&GPU, false)
}

/// As [`gpu`], on the Vulkan 1.2 path (KHR dynamic rendering and synchronization2, SPIR-V 1.5)
/// that RenderDoc takes on lavapipe. Use it in its own test binary: one instance per process.
pub fn gpu_vulkan_1_2() -> Option<MutexGuard<'static, Gpu>> {
    shared(&GPU_VULKAN_1_2, true)
}

fn shared(cell: &'static SharedGpu, vulkan_1_2_path: bool) -> Option<MutexGuard<'static, Gpu>> {
    let gpu = cell.get_or_init(|| {
        let _ = env_logger::builder().is_test(true).try_init();
        Gpu::headless(&GpuDesc {
            app_name: "blockfall tests".into(),
            validation: true,
            preferred_device: None,
            vulkan_1_2_path,
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
