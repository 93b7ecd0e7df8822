//! Compiles the render passes' shaders in `shaders/` (the terrain, the test scene, the compute
//! check of the GPU tests) into `OUT_DIR/shaders.rs`, which `blockfall::shaders::LIBRARY` serves.
//! The engine compiles the shaders it owns itself (`engine/build.rs`); both use
//! `engine/build/shaders.rs`.

#[path = "engine/build/shaders.rs"]
mod shaders;

fn main() {
    // Read when the script runs, not when it is compiled: a build folder copied from another
    // checkout must compile this checkout's shaders.
    let root = std::env::var("CARGO_MANIFEST_DIR").expect("cargo sets CARGO_MANIFEST_DIR");
    let dir = std::path::Path::new(&root).join("shaders");
    shaders::compile_shaders(&dir, "shaders");
}
