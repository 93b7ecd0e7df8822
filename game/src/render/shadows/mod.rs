//! The sun's shadows: cascaded shadow maps drawn from the terrain, the blocks and the pieces,
//! sampled by the terrain's and the blocks' fragment shaders.

mod quality;

pub use quality::Shadows;
