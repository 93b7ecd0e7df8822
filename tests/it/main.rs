//! The application's tests, one binary (one build, one link, one Vulkan instance): run with
//! `cargo test --test it`, or one subject with `cargo test --test it saves::`. Each module is
//! one subject: saves (and what quitting, a second game and a full disk do to them:
//! `quit_saves`), the command line, the meshers against each other, and the GPU tests
//! (`gpu_*`: render, world, HUD, scripts, shadows, saves, a lost device). `common` holds what
//! the GPU tests share. The rules' own scenario tests (physics, pieces, rubble, strength,
//! support, the player, the terrain, scenes) are `game/tests/rules/`, built without the GPU.
//!
//! Three tests are binaries of their own: the windowed ones (`tests/gpu_windowed*.rs`), since
//! winit allows one event loop per process, and the soak (`tests/gpu_soak.rs`), which makes its
//! own GPU and holds the whole process's resident memory to a bound that other tests running
//! beside it would break.

mod common;

mod cli;
mod drawn_ground;
mod gpu_backend;
mod gpu_blocks;
mod gpu_compute;
mod gpu_device_lost;
mod gpu_far_view;
mod gpu_hud;
mod gpu_menu;
mod gpu_particles;
mod gpu_pass_example;
mod gpu_render;
mod gpu_script;
mod gpu_shadows;
mod gpu_sound;
mod gpu_terrain_cull;
mod gpu_terrain_render;
mod gpu_validation_canary;
mod gpu_vulkan12;
mod gpu_world;
mod gpu_world_meshes;
mod gpu_world_saves;
mod meshers;
mod quit_saves;
mod saves;
mod tint_pass;
