//! The benchmarks, run by hand with the `bench` binary; results go to BENCHMARKS.md with the
//! command that made them. One module each, its `run` the benchmark:
//!
//! - [`frames`]: GPU start-up time, and the headless frame time of the test scene.
//! - [`surface_nets`]: the CPU surface nets against `fast-surface-nets` 0.2.
//! - [`density`]: density samples of the default world per second on 1 and 2 threads.
//! - [`digs`]: the memory a dig costs, and sampling under edits.
//! - [`light`]: sky light grids of the chunks around the spawn point per second.
//! - [`gpu_mesh`]: the compute-shader surface nets, per chunk and per pass, against the CPU
//!   mesher.
//! - [`nearest`]: collision queries per second on 1 and 2 threads.
//! - [`occlusion`]: a dense region's meshing without and with the blocks' ambient occlusion.
//! - [`support`]: the support search on a generated city against a port of the original one.
//! - [`physics`]: falling pieces stepped by blockfall's physics core and by rapier3d, and the
//!   most awake pieces blockfall steps within a frame.
//! - [`startup`]: the world in view loaded, lit and meshed, then its frame time.
//! - [`saves`]: saving and loading the default world after digs, and a city of a million
//!   blocks: times and file sizes.
//!
//! [`shared`] holds what several of them use.

pub mod density;
pub mod digs;
pub mod frames;
pub mod gpu_mesh;
pub mod light;
pub mod nearest;
pub mod occlusion;
pub mod physics;
pub mod saves;
pub mod shared;
pub mod startup;
pub mod support;
pub mod surface_nets;
