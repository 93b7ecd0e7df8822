//! What the renderer draws with: procedural material textures, the test scene, the terrain
//! (the world's streamed chunks meshed into the engine's arenas, and the pass that draws them).

pub mod chunk_meshes;
pub mod hud;
pub mod pass;
pub mod target;
pub mod terrain;
pub mod test_scene;
pub mod textures;
pub mod world;
