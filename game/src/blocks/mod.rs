//! Blocks on the 0.5 m grid of cells (voxels): their materials, the store that holds them, and
//! their shapes.

mod cell_grid;
pub mod materials;
pub mod mesher;
pub mod occlusion;
pub mod shapes;
pub mod store;

pub use materials::{Material, MATERIALS};
pub use shapes::{block_distance, shape_of, side_edges, MeshPart, Shape, Surface};
pub use store::{covered, region_of, Block, BlockError, BlockId, BlockStore, StoreEvent, CELL};
