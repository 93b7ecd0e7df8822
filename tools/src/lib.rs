//! blockfall's command-line tools; each is a binary under `src/bin/`:
//! - `bench`: benchmarks whose results go to BENCHMARKS.md (frames, surface-nets, density,
//!   nearest).
//! - `mesh`: a raw f32 density grid in, a surface-nets mesh as JSON out.
//! - `sim`: a scene file in, a JSON-lines trace out.
//!
//! [`physics_bench`] is the physics benchmark: blockfall's physics core against rapier3d;
//! [`world_bench`] the startup benchmark: the world in view loaded, lit and meshed.
//!
//! And two modules the support benchmark uses: [`city`] builds a city of blocks on the world's
//! ground, [`seed_support`] is the port of seed 002's search it is measured against.

pub mod city;
pub mod physics_bench;
pub mod seed_support;
pub mod world_bench;

/// The GPU a benchmark measures: device `preferred` or the best one, validation off (it would
/// be measured too).
pub fn bench_gpu(
    preferred: Option<usize>,
) -> Result<blockfall_engine::gpu::Gpu, blockfall_engine::gpu::GpuError> {
    blockfall_engine::gpu::Gpu::headless(&blockfall_engine::gpu::GpuDesc {
        app_name: "blockfall bench".into(),
        validation: false,
        preferred_device: preferred,
        vulkan_1_2_path: false,
    })
}
