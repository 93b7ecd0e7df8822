//! The engine's GPU tests, one binary (one Vulkan instance, one link): run with
//! `cargo test -p blockfall-engine`. Each module is one subject; `common` is the harness (a GPU
//! per process, validation errors fail the test), `meshes` compares meshes, `grids` makes the
//! density and light grids the meshing tests mesh (chunk-like terrain among them: the engine's
//! tests need no game), `readback` reads GPU meshes back, `resident` meshes grids into the
//! terrain arenas and checks what they hold.

mod common;
mod grids;
mod meshes;
mod readback;
mod resident;

mod arenas;
mod batches;
mod lifetimes;
mod light;
mod surface_nets;
