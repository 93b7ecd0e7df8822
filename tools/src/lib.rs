//! blockfall's command-line tools; each is a binary under `src/bin/`:
//! - `bench`: benchmarks whose results go to BENCHMARKS.md (frames, surface-nets, density,
//!   nearest).
//! - `mesh`: a raw f32 density grid in, a surface-nets mesh as JSON out.
//! - `sim`: a scene file in, a JSON-lines trace out.
