pub mod shaders {
    include!(concat!(env!("OUT_DIR"), "/shaders.rs"));
}
