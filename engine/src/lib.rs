//! blockfall's engine: reusable parts that know nothing of the game.
//!
//! - [`gpu`]: the Vulkan backend (instance, device, memory, bindless textures, pipelines,
//!   frames in flight, swapchain, offscreen targets, debug names and the validation canary).
//! - [`meshing`]: surface nets on density grids, with edge ownership so separately meshed
//!   regions join without cracks; the terrain meshes' GPU arenas; light blended per vertex
//!   ([`meshing::vertex_light`]).
//! - [`shaders`]: the SPIR-V of the shaders the engine owns (`engine/shaders/`), compiled by
//!   `engine/build.rs`.
//!
//! The physics, the nearest-surface question and the worker threads are the crate
//! `blockfall-physics` (`engine/physics/`), which knows nothing of the GPU.

pub mod gpu;
pub mod meshing;

/// The SPIR-V that `engine/build.rs` compiled from `engine/shaders/`.
pub mod shaders {
    include!(concat!(env!("OUT_DIR"), "/shaders.rs"));

    /// The engine's compiled shaders, by file name.
    pub const LIBRARY: crate::gpu::ShaderLibrary = crate::gpu::ShaderLibrary::new(SHADERS);
}
