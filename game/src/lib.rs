//! blockfall's world and its rules.
//!
//! - [`blocks`]: what blocks are made of (the six materials of the seeds).
//! - [`player`]: two balls that walk on whatever is solid, or fly.
//! - [`render`]: what the renderer draws with — procedural material textures.
//! - [`solids`]: the nearest surface of everything solid.
//! - [`terrain`]: the ground: density from noise, edits, the sampled field and chunks.

pub mod blocks;
pub mod player;
pub mod render;
pub mod solids;
pub mod terrain;
