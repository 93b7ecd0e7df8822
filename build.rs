//! Compiles the render passes' shaders in `shaders/` (the terrain, the test scene, the compute
//! check of the GPU tests) into `OUT_DIR/shaders.rs`, which `blockfall::shaders::LIBRARY` serves.
//! The engine compiles the shaders it owns itself (`engine/build.rs`); both use
//! `engine/build/shaders.rs`.

#[path = "engine/build/shaders.rs"]
mod shaders;

fn main() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("shaders");
    shaders::compile_shaders(&dir, "shaders");
}
