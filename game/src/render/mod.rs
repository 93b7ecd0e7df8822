//! What the renderer draws with. So far: procedural material textures.

pub mod test_scene;
pub mod textures;
