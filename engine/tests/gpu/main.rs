//! The engine's GPU tests, one binary (one Vulkan instance, one link): run with
//! `cargo test -p blockfall-engine`. Each module is one subject; `common` is the harness (a GPU
//! per process, validation errors fail the test), `meshes` compares meshes.

mod common;
mod lifetimes;
mod meshes;
