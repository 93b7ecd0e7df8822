//! The application's tests, one binary (one build, one link, one Vulkan instance): run with
//! `cargo test --test it`, or one subject with `cargo test --test it contacts::`. Each module is
//! one subject: the physics' scenes and properties, pieces, rubble, strength, support, saves
//! (and what quitting, a second game and a full disk do to them: `quit_saves`), the terrain,
//! the command line and the `sim` runner, and the GPU tests (`gpu_*`: render,
//! world, HUD, scripts, shadows, saves, a lost device). `common` holds what the GPU tests share.
//!
//! Three tests are binaries of their own: the windowed ones (`tests/gpu_windowed*.rs`), since
//! winit allows one event loop per process, and the soak (`tests/gpu_soak.rs`), which makes its
//! own GPU and holds the whole process's resident memory to a bound that other tests running
//! beside it would break.

mod common;

mod cli;
mod contacts;
mod determinism;
mod drawn_ground;
mod gpu_backend;
mod gpu_blocks;
mod gpu_compute;
mod gpu_device_lost;
mod gpu_far_view;
mod gpu_hud;
mod gpu_render;
mod gpu_script;
mod gpu_shadows;
mod gpu_terrain_cull;
mod gpu_terrain_render;
mod gpu_validation_canary;
mod gpu_vulkan12;
mod gpu_world;
mod gpu_world_meshes;
mod gpu_world_saves;
mod meshers;
mod pair_budget;
mod physics_properties;
mod pieces;
mod player;
mod quit_saves;
mod rigid_bodies;
mod rubble;
mod saves;
mod sim;
mod strength;
mod support;
mod terrain;
