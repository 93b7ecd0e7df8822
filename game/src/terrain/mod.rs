//! The ground: density from noise, edits, the sampled field and chunks. Density is a signed field,
//! solid positive (the opposite sign of an SDF); a sample is its value at a grid point, whole
//! meters apart.
//!
//! - [`generator`]: the generated density, its height field, and proofs that a region is all
//!   air or all ground.
//! - [`ground`]: what lies under the edits: the generated world or a plane (flat or sloped).
//! - [`edits`]: digging and building, kept as their spheres per cell (baked into compact bricks
//!   where many overlap), undone exactly.
//! - [`field`]: the density and its gradient anywhere, with a cache that forgets only what
//!   changed.
//! - [`chunks`]: chunk coordinates, padded sample grids for the mesher, load order, dirty
//!   tracking and parallel generation.
//! - [`sky_light`]: sky light per chunk, fading into caves, for the meshes, blocks and pieces.
//! - [`streaming`]: the chunks around the viewer: which to load and unload, their grids and
//!   light prepared on the workers for the renderer's meshes, the light kept for gameplay, and
//!   what an edit meshes again or lights again.

pub mod chunks;
pub mod edits;
pub mod field;
pub mod generator;
pub mod ground;
pub mod sky_light;
pub mod streaming;

pub use chunks::{ChunkCoord, ChunkGrid, CHUNK_SIZE, PADDED_SIZE};
pub use edits::{EditError, EditStore, EditedBrick, SampleBox};
pub use field::{Field, Probe, SampleWindow, Samples};
pub use generator::{ChunkKind, Generator};
pub use ground::{Ground, GroundKind, PlaneGround};
