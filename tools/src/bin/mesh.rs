//! Meshes a density grid with the engine's surface nets (or marching cubes) and writes the mesh
//! as JSON.
//!
//! `cargo run --release -p blockfall-tools --bin mesh -- --input GRID.f32 --dims NX,NY,NZ
//! --output MESH.json [--mesher surface-nets|marching-cubes]`
//!
//! The input is raw little-endian `f32` samples, x fastest, density above zero inside. The whole
//! grid is meshed (surface nets: every edge whose four cells exist; marching cubes: every
//! cell), read and meshed a slab of planes at a time so that memory stays bounded; the output is
//! `{"positions": [[x, y, z], ...], "normals": [[x, y, z], ...], "indices": [i, ...]}` in grid
//! units with sample (0, 0, 0) at the origin. The limits on the grid and the mesh, and why:
//! `blockfall_tools::mesh` (and `--help`).
//!
//! Exit status: 0 written; 2 refused input (dims or a mesher past their limits or malformed, a
//! grid that cannot be read or meshed, a FIFO or device, a mesh past the output limits, an
//! output that is the input or cannot be written), nothing written; 1 the write itself failed,
//! the old output kept.

use std::path::PathBuf;
use std::process::ExitCode;

use blockfall_tools::mesh::{
    check_output, mesh_stream, open_grid, parse_dims, parse_mesher, write_mesh, Budget, LIMITS_HELP,
};
use clap::Parser;

#[derive(Debug, Parser)]
#[command(
    name = "mesh",
    about = "Mesh a density grid (raw little-endian f32) with surface nets or marching cubes",
    after_help = LIMITS_HELP
)]
struct Cli {
    /// Raw little-endian f32 samples, x fastest, density > 0 inside.
    #[arg(long)]
    input: PathBuf,
    /// Samples per axis, `NX,NY,NZ`: each 2 to 4096, NX*NY at most 1048576, all at most
    /// 1073741824 (below).
    #[arg(long)]
    dims: String,
    /// Where the JSON mesh goes.
    #[arg(long)]
    output: PathBuf,
    /// `surface-nets` or `marching-cubes`.
    #[arg(long, default_value = "surface-nets")]
    mesher: String,
}

/// Exit status of a refused input (a grid that cannot be read or meshed, an output path that
/// cannot be written), as for `blockfall` and `sim`; 1 is a failure after the input was taken
/// (the write itself).
const REFUSED: u8 = 2;

fn main() -> ExitCode {
    env_logger::Builder::from_env(env_logger::Env::default().default_filter_or("warn")).init();
    // The values are checked here, not by clap, whose refusals quote a value whole.
    let cli = Cli::parse();
    let status = run(&cli);
    log::info!("peak resident memory: {}", peak_resident());
    status
}

fn run(cli: &Cli) -> ExitCode {
    let (dims, mesher) = match (parse_dims(&cli.dims), parse_mesher(&cli.mesher)) {
        (Ok(dims), Ok(mesher)) => (dims, mesher),
        (Err(message), _) | (_, Err(message)) => {
            eprintln!("error: {message}");
            return ExitCode::from(REFUSED);
        }
    };
    let taken = check_output(&cli.input, &cli.output)
        .and_then(|()| open_grid(&cli.input, dims))
        .and_then(|mut file| {
            mesh_stream(&mut file, dims, mesher, Budget::TOOL).map_err(|error| {
                error.context(format!("cannot mesh input `{}`", cli.input.display()))
            })
        });
    let mesh = match taken {
        Ok(mesh) => mesh,
        Err(error) => {
            eprintln!("error: {error:#}");
            return ExitCode::from(REFUSED);
        }
    };
    log::info!(
        "{} vertices, {} triangles",
        mesh.positions.len(),
        mesh.triangle_count()
    );
    match write_mesh(&cli.output, &mesh) {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("error: {error:#}");
            ExitCode::FAILURE
        }
    }
}

/// The process's peak resident memory (`VmHWM` of `/proc/self/status`, Linux), for the log:
/// the tests hold it under 1 GB.
fn peak_resident() -> String {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|status| {
            status
                .lines()
                .find_map(|line| line.strip_prefix("VmHWM:"))
                .map(|value| value.trim().to_owned())
        })
        .unwrap_or_else(|| "unknown".to_owned())
}
