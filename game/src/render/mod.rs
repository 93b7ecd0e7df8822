//! What the renderer draws with: procedural material textures, the test scene, the terrain.

pub mod streamed;
pub mod target;
pub mod terrain;
pub mod test_scene;
pub mod textures;
pub mod world;
