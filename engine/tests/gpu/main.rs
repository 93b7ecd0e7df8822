//! The engine's GPU tests, one binary (one Vulkan instance, one link): run with
//! `cargo test -p blockfall-engine`. Each module is one subject; `grids` makes the density and
//! light grids the meshing tests mesh (chunk-like terrain among them: the engine's tests need no
//! game), `resident` meshes grids into the terrain arenas and checks what they hold. The harness
//! (a GPU per process, validation errors fail the test), the mesh comparison and the readback
//! come from the dev-only `blockfall-test-support` crate (`tests/support`), which the
//! application's tests share.

use blockfall_test_support::gpu as common;
use blockfall_test_support::{meshes, readback};

mod grids;
mod resident;

mod arenas;
mod batches;
mod lifetimes;
mod light;
mod marching_cubes;
mod skirts;
mod surface_nets;
