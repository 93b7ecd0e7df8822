//! blockfall's world and its rules.
//!
//! - [`blocks`]: what blocks are made of (the six materials of the seeds).
//! - [`render`]: what the renderer draws with — procedural material textures.
//! - [`terrain`]: the ground: density from noise, edits, the sampled field and chunks.

pub mod blocks;
pub mod render;
pub mod terrain;
