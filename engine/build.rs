//! Compiles the shaders the engine owns (`engine/shaders/`: the compute surface nets and the
//! light pass) into `OUT_DIR/shaders.rs`, which `blockfall_engine::shaders::LIBRARY` serves.

#[path = "build/shaders.rs"]
mod shaders;

fn main() {
    // Read when the script runs, not when it is compiled: a build folder copied from another
    // checkout must compile this checkout's shaders.
    let root = std::env::var("CARGO_MANIFEST_DIR").expect("cargo sets CARGO_MANIFEST_DIR");
    let dir = std::path::Path::new(&root).join("shaders");
    shaders::compile_shaders(&dir, "engine/shaders");
}
