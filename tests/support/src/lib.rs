//! What blockfall's test binaries share, as a dev-only crate (never a dependency of the game):
//!
//! - [`gpu`]: the GPU test harness. One validated GPU per test process, handed to one test at a
//!   time, so that a test's validation count is its own; a GPU test fails without a Vulkan
//!   device unless `BLOCKFALL_SKIP_GPU=1` is set on purpose.
//! - [`meshes`]: comparing a GPU mesh with the CPU mesher's, and the grids both mesh.
//! - [`readback`]: reading GPU meshes, light and timings back to check them against the CPU.
//! - [`marching_cubes`]: the independent marching cubes (Bourke's) that the engine's is checked
//!   against, here and by `bench surface-nets`.
//!
//! It needs the engine only, so the engine's GPU tests (`engine/tests/gpu`) and the
//! application's tests (`tests/it`) both use it.

pub mod gpu;
pub mod marching_cubes;
pub mod meshes;
pub mod readback;
