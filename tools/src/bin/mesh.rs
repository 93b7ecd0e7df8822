//! Meshes a density grid with the engine's surface nets (or marching cubes) and writes the mesh
//! as JSON.
//!
//! `cargo run --release -p blockfall-tools --bin mesh -- --input GRID.f32 --dims NX,NY,NZ
//! --output MESH.json [--mesher surface-nets|marching-cubes]`
//!
//! The input is raw little-endian `f32` samples, x fastest, density above zero inside. The whole
//! grid is meshed (surface nets: every edge whose four cells exist; marching cubes: every
//! cell); the output is
//! `{"positions": [[x, y, z], ...], "normals": [[x, y, z], ...], "indices": [i, ...]}` in grid
//! units with sample (0, 0, 0) at the origin.
//!
//! Exit status: 0 written; 2 refused input (a grid that cannot be read or meshed, a FIFO or
//! device, an output that is the input or cannot be written), nothing written; 1 the write
//! itself failed, the old output kept.

use std::path::PathBuf;
use std::process::ExitCode;

use blockfall_engine::meshing::Mesher;
use blockfall_tools::mesh::{
    check_output, mesh_grid, parse_dims, parse_mesher, read_grid, write_mesh,
};
use clap::Parser;

#[derive(Debug, Parser)]
#[command(
    name = "mesh",
    about = "Mesh a density grid (raw little-endian f32) with surface nets or marching cubes"
)]
struct Cli {
    /// Raw little-endian f32 samples, x fastest, density > 0 inside.
    #[arg(long)]
    input: PathBuf,
    /// Samples per axis, `NX,NY,NZ`, each at least 2.
    #[arg(long, value_parser = parse_dims)]
    dims: [usize; 3],
    /// Where the JSON mesh goes.
    #[arg(long)]
    output: PathBuf,
    /// `surface-nets` or `marching-cubes`.
    #[arg(long, value_parser = parse_mesher, default_value = "surface-nets")]
    mesher: Mesher,
}

/// Exit status of a refused input (a grid that cannot be read or meshed, an output path that
/// cannot be written), as for `blockfall` and `sim`; 1 is a failure after the input was taken
/// (the write itself).
const REFUSED: u8 = 2;

fn main() -> ExitCode {
    env_logger::Builder::from_env(env_logger::Env::default().default_filter_or("warn")).init();
    let cli = Cli::parse();
    let taken = check_output(&cli.input, &cli.output)
        .and_then(|()| read_grid(&cli.input, cli.dims))
        .and_then(|samples| {
            mesh_grid(&samples, cli.dims, cli.mesher).map_err(|error| {
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
