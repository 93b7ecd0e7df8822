//! Meshes a density grid with the engine's surface nets and writes the mesh as JSON.
//!
//! `cargo run --release -p blockfall-tools --bin mesh -- --input GRID.f32 --dims NX,NY,NZ
//! --output MESH.json`
//!
//! The input is raw little-endian `f32` samples, x fastest, density above zero inside. The whole
//! grid is meshed (every edge whose four cells exist); the output is
//! `{"positions": [[x, y, z], ...], "normals": [[x, y, z], ...], "indices": [i, ...]}` in grid
//! units with sample (0, 0, 0) at the origin.

use std::path::PathBuf;

use blockfall_tools::mesh::{check_output, mesh_grid, parse_dims, read_grid, write_mesh};
use clap::Parser;

#[derive(Debug, Parser)]
#[command(
    name = "mesh",
    about = "Mesh a density grid (raw little-endian f32) with surface nets"
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
}

fn main() -> anyhow::Result<()> {
    env_logger::Builder::from_env(env_logger::Env::default().default_filter_or("warn")).init();
    let cli = Cli::parse();
    check_output(&cli.input, &cli.output)?;
    let samples = read_grid(&cli.input, cli.dims)?;
    let mesh = mesh_grid(&samples, cli.dims)
        .map_err(|error| error.context(format!("cannot mesh input `{}`", cli.input.display())))?;
    log::info!(
        "{} vertices, {} triangles",
        mesh.positions.len(),
        mesh.triangle_count()
    );
    write_mesh(&cli.output, &mesh)
}
