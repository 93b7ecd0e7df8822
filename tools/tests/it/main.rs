//! The tools' tests, one binary: run with `cargo test -p blockfall-tools --test it`. The fuzzer's
//! short run, and the `mesh` and `sim` tools as a user runs them (a kill in the middle of a save
//! among them).

mod fuzz;
mod hostile;
mod mesh_cli;
mod save_kill;
mod sim_cli;
