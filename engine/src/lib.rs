//! blockfall's engine: reusable parts that know nothing of the game.
//!
//! - [`bounded`]: lists read from files with a limit on their length, checked before they are
//!   allocated (saves of a few bytes that claim a billion elements).
//! - [`collision`]: the one question everything solid answers: the nearest surface.
//! - [`gpu`]: the Vulkan backend (instance, device, memory, bindless textures, pipelines,
//!   frames in flight, swapchain, offscreen targets, debug names and the validation canary).
//! - [`meshing`]: surface nets on density grids, with edge ownership so separately meshed
//!   regions join without cracks; the terrain meshes' GPU arenas; light blended per vertex
//!   ([`meshing::vertex_light`]).
//! - [`shaders`]: the SPIR-V of the shaders the engine owns (`engine/shaders/`), compiled by
//!   `engine/build.rs`.
//! - [`physics`]: rigid bodies in structure-of-arrays form, contact rows solved by sequential
//!   impulses on the workers, bitwise the same for any thread count.
//! - [`random`]: the one seeded generator (SplitMix64) for reproducible numbers: random scenes
//!   in tests, the soak's script, the fuzzers' cases.
//! - [`workers`]: a thread pool whose results do not depend on its thread count.

pub mod bounded;
pub mod collision;
pub mod gpu;
pub mod meshing;
pub mod physics;
pub mod random;
pub mod workers;

/// The SPIR-V that `engine/build.rs` compiled from `engine/shaders/`.
pub mod shaders {
    include!(concat!(env!("OUT_DIR"), "/shaders.rs"));

    /// The engine's compiled shaders, by file name.
    pub const LIBRARY: crate::gpu::ShaderLibrary = crate::gpu::ShaderLibrary::new(SHADERS);
}
