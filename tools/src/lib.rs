//! blockfall's command-line tools; each is a binary under `src/bin/`:
//! - `bench`: benchmarks whose results go to BENCHMARKS.md.
