//! Compiles the shaders the engine owns (`engine/shaders/`: the compute surface nets and the
//! light pass) into `OUT_DIR/shaders.rs`, which `blockfall_engine::shaders::LIBRARY` serves.

#[path = "build/shaders.rs"]
mod shaders;

fn main() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("shaders");
    shaders::compile_shaders(&dir, "engine/shaders");
}
