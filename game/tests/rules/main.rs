//! The rules' scenario tests: the world, its physics, support, strength, pieces, the player and
//! scenes, run headless through `blockfall-game` alone. This binary builds no GPU crate; the
//! tests that need the application, a GPU or a window are `tests/it/` at the top.

mod contacts;
mod determinism;
mod pair_budget;
mod physics_properties;
mod pieces;
mod player;
mod rigid_bodies;
mod rubble;
mod sim;
mod strength;
mod support;
mod terrain;
mod undo;
