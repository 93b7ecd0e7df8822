//! The GPU test harness: one validated GPU per test process, handed out one test at a time.
//!
//! One instance and device per process, not per test: the validation layer of Debian 12
//! (1.3.239) crashed when many threads each had their own instance. A test that wants the
//! Vulkan 1.2 path ([`gpu_vulkan_1_2`]) gets a second instance, made the first time one is asked
//! for; both sit behind one lock, so only one test at a time uses either, and a test's
//! validation count is its own.
//!
//! A GPU test FAILS when no Vulkan device exists. Only `BLOCKFALL_SKIP_GPU=1`, set on purpose,
//! turns that into a skip; CI never sets it.

use std::ops::{Deref, DerefMut};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Mutex, MutexGuard};

use blockfall_engine::gpu::{vk, Adapter, Gpu, GpuDesc};

/// The process's GPUs, each made the first time a test asks for it (an error kept as text, so
/// that every later test reports the same one).
struct Gpus {
    core: Option<Result<Gpu, String>>,
    vulkan_1_2: Option<Result<Gpu, String>>,
}

static GPUS: Mutex<Gpus> = Mutex::new(Gpus {
    core: None,
    vulkan_1_2: None,
});

/// A test's turn with one of the process's GPUs: no other test uses either GPU until it drops.
pub struct GpuTurn {
    gpus: MutexGuard<'static, Gpus>,
    vulkan_1_2: bool,
}

impl GpuTurn {
    fn slot(&self) -> &Option<Result<Gpu, String>> {
        if self.vulkan_1_2 {
            &self.gpus.vulkan_1_2
        } else {
            &self.gpus.core
        }
    }
}

impl Deref for GpuTurn {
    type Target = Gpu;

    fn deref(&self) -> &Gpu {
        match self.slot() {
            Some(Ok(gpu)) => gpu,
            // `shared` hands out a turn only for a GPU that was made.
            _ => unreachable!("a turn with a GPU that was not made"),
        }
    }
}

impl DerefMut for GpuTurn {
    fn deref_mut(&mut self) -> &mut Gpu {
        let slot = if self.vulkan_1_2 {
            &mut self.gpus.vulkan_1_2
        } else {
            &mut self.gpus.core
        };
        match slot {
            Some(Ok(gpu)) => gpu,
            _ => unreachable!("a turn with a GPU that was not made"),
        }
    }
}

/// Whether a device's shader arithmetic is IEEE 754's to the bit: lavapipe (Mesa's llvmpipe on
/// the CPU) rounds every operation as the CPU does and fuses none that a shader marks `precise`.
/// The meshing shaders are written operation for operation as the CPU meshers, so there their
/// results are the CPU's bits. Vulkan lets other devices differ: a division to 2.5 ULP, a square
/// root through an approximate reciprocal, denormals flushed (an H200 gives normals 1 ULP off
/// the CPU's). There the tests hold the GPU's floats to the CPU's within the tolerances of
/// [`crate::meshes`] and everything else (counts, order, indices) exactly.
pub fn ieee_arithmetic(adapter: &Adapter) -> bool {
    adapter.device_type == vk::PhysicalDeviceType::CPU && adapter.name.starts_with("llvmpipe")
}

/// Whether the GPU the tests run on computes IEEE's bits ([`ieee_arithmetic`]); true until the
/// process's GPU is made. What [`crate::meshes::Comparison::same`] holds a mesh to.
pub fn exact_arithmetic() -> bool {
    EXACT.load(Ordering::Relaxed)
}

static EXACT: AtomicBool = AtomicBool::new(true);

/// Whether GPU tests were told to skip (never in CI).
pub fn skip_gpu() -> bool {
    std::env::var("BLOCKFALL_SKIP_GPU").is_ok_and(|v| v == "1")
}

/// The shared GPU with validation on, or `None` when skipping on purpose. Panics (fails the
/// test) when there is no usable Vulkan device.
pub fn gpu() -> Option<GpuTurn> {
    shared(false)
}

/// As [`gpu`], on the Vulkan 1.2 path (KHR dynamic rendering and synchronization2, SPIR-V 1.5)
/// that RenderDoc takes on lavapipe: a second instance and device of its own.
pub fn gpu_vulkan_1_2() -> Option<GpuTurn> {
    shared(true)
}

fn shared(vulkan_1_2_path: bool) -> Option<GpuTurn> {
    // A test that failed while it held its turn leaves the GPUs as they were: the next test
    // still gets them.
    let mut gpus = GPUS.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
    let slot = if vulkan_1_2_path {
        &mut gpus.vulkan_1_2
    } else {
        &mut gpus.core
    };
    let made = slot.get_or_insert_with(|| {
        let _ = env_logger::builder().is_test(true).try_init();
        Gpu::headless(&GpuDesc {
            app_name: "blockfall tests".into(),
            validation: true,
            preferred_device: None,
            vulkan_1_2_path,
        })
        .map_err(|error| error.to_string())
    });
    match made {
        Ok(gpu) => {
            if !ieee_arithmetic(&gpu.device.adapter) {
                EXACT.store(false, Ordering::Relaxed);
            }
            Some(GpuTurn {
                gpus,
                vulkan_1_2: vulkan_1_2_path,
            })
        }
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
