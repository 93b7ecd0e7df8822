//! The terrain's meshes on the GPU: surface nets and marching cubes as compute shaders
//! ([`GpuMesher`], matching the CPU meshers of `blockfall-meshing` to the bit on lavapipe), the
//! terrain meshes' arenas and the light pass ([`TerrainMeshes`]). The CPU meshers' types are
//! re-exported here, so a caller of the GPU meshers names one module.

pub mod gpu;
pub mod gpu_marching_cubes;
pub mod terrain_meshes;

pub use blockfall_meshing::*;
pub use gpu::{GpuMeshError, GpuMesher};
pub use terrain_meshes::{SlotChanges, TerrainMeshError, TerrainMeshes, TerrainMeshesDesc};
