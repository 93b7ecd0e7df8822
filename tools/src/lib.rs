//! blockfall's command-line tools; each is a binary under `src/bin/`:
//! - `bench`: benchmarks whose results go to BENCHMARKS.md (frames, surface-nets, density,
//!   light, gpu-mesh, nearest, support, physics, startup). The binary reads its command line;
//!   the benchmarks themselves are this library's [`bench`](mod@bench) modules, one each.
//! - `mesh`: a raw f32 density grid in, a surface-nets mesh as JSON out ([`mesh`] holds its
//!   reading, meshing and writing).
//! - `sim`: a scene file in, a JSON-lines trace out.
//! - `fuzz`: seeded, structure-aware fuzzing of scene, save, settings and mesh inputs (no panic,
//!   no hang, a clear error for every refused input); the targets and the runner are this
//!   library's [`fuzz`] modules (docs/fuzzing.md).

pub mod bench;
pub mod fuzz;
pub mod mesh;
