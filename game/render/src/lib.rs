//! What the renderer draws with: procedural material textures, the test scene, the terrain
//! (the world's streamed chunks meshed into the engine's arenas, and the pass that draws them),
//! the structures drawn after it into the same picture (blocks, pieces and the block tool's
//! markers), the blows' dust and debris (`particles`), and the HUD over everything.

pub mod chunk_meshes;
pub mod frustum;
pub mod hud;
pub mod particles;
pub mod pass;
pub mod shadows;
pub mod structures;
pub mod target;
pub mod terrain;
pub mod test_scene;
pub mod textures;
pub mod world;
