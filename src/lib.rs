//! blockfall: the application around the engine and the game — running a window or a headless
//! render, screenshots, RenderDoc captures, and the compiled shaders.

pub mod capture;
pub mod gpu_failure;
pub mod headless;
pub mod input;
pub mod options;
pub mod overlay;
pub mod play;
pub mod saves;
pub mod screenshot;
pub mod script;
pub mod shown;
pub mod soak;
pub mod window;

/// The SPIR-V that `build.rs` compiled from `shaders/`.
pub mod shaders {
    include!(concat!(env!("OUT_DIR"), "/shaders.rs"));

    /// The compiled shaders, by file name.
    pub const LIBRARY: blockfall_engine::gpu::ShaderLibrary =
        blockfall_engine::gpu::ShaderLibrary::new(SHADERS);
}
