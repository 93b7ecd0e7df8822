//! Blocks on the 0.5 m grid. So far: their materials.

pub mod materials;

pub use materials::{Material, MATERIALS};
