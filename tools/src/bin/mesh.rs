//! Meshes a density grid with the engine's surface nets and writes the mesh as JSON.
//!
//! `cargo run --release -p blockfall-tools --bin mesh -- --input GRID.f32 --dims NX,NY,NZ
//! --output MESH.json`
//!
//! The input is raw little-endian `f32` samples, x fastest, density above zero inside. The whole
//! grid is meshed (every edge whose four cells exist); the output is
//! `{"positions": [[x, y, z], ...], "normals": [[x, y, z], ...], "indices": [i, ...]}` in grid
//! units with sample (0, 0, 0) at the origin.

use std::fs::File;
use std::io::{BufWriter, Write as _};
use std::path::{Path, PathBuf};

use anyhow::{bail, Context as _};
use blockfall_engine::meshing::{DensityGrid, GridRegion, MeshError, SurfaceMesh, SurfaceNets};
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

#[derive(serde::Serialize)]
struct MeshJson<'a> {
    positions: &'a [[f32; 3]],
    normals: &'a [[f32; 3]],
    indices: &'a [u32],
}

fn main() -> anyhow::Result<()> {
    env_logger::Builder::from_env(env_logger::Env::default().default_filter_or("warn")).init();
    let cli = Cli::parse();
    let samples = read_grid(&cli.input, cli.dims)?;
    let grid = DensityGrid::new(&samples, cli.dims)
        .with_context(|| format!("density grid `{}`", cli.input.display()))?;
    let mut mesh = SurfaceMesh::new();
    SurfaceNets::new()
        .mesh(grid, GridRegion::whole(cli.dims), &mut mesh)
        .map_err(|error| describe_mesh_error(error, &cli.input))?;
    log::info!(
        "{} vertices, {} triangles",
        mesh.positions.len(),
        mesh.triangle_count()
    );
    write_mesh(&cli.output, &mesh)
}

/// `NX,NY,NZ` with each at least 2 and a product that fits in memory sizes.
fn parse_dims(text: &str) -> Result<[usize; 3], String> {
    let parts: Vec<&str> = text.split(',').map(str::trim).collect();
    let [x, y, z] = parts[..] else {
        return Err(format!(
            "expected three comma-separated sizes NX,NY,NZ, got `{text}`"
        ));
    };
    let mut dims = [0usize; 3];
    for ((dim, part), axis) in dims.iter_mut().zip([x, y, z]).zip(["NX", "NY", "NZ"]) {
        *dim = part
            .parse()
            .map_err(|error| format!("{axis} `{part}` is not a whole number: {error}"))?;
        if *dim < 2 {
            return Err(format!(
                "{axis} is {dim}: a grid needs at least 2 samples per axis"
            ));
        }
    }
    dims.iter()
        .try_fold(4usize, |bytes, &dim| bytes.checked_mul(dim))
        .ok_or_else(|| format!("dimensions {text} overflow: too many samples"))?;
    Ok(dims)
}

fn read_grid(path: &Path, dims: [usize; 3]) -> anyhow::Result<Vec<f32>> {
    // parse_dims checked the product fits.
    let expected = dims[0] * dims[1] * dims[2] * 4;
    let length = std::fs::metadata(path)
        .with_context(|| format!("cannot read input `{}`", path.display()))?
        .len();
    if length != expected as u64 {
        bail!(
            "input `{}` is {length} bytes, but dimensions {}x{}x{} need {expected} bytes \
             (4 per sample)",
            path.display(),
            dims[0],
            dims[1],
            dims[2]
        );
    }
    let bytes =
        std::fs::read(path).with_context(|| format!("cannot read input `{}`", path.display()))?;
    if bytes.len() != expected {
        bail!(
            "input `{}` changed size while being read ({} bytes, expected {expected})",
            path.display(),
            bytes.len()
        );
    }
    Ok(bytes
        .chunks_exact(4)
        .map(|sample| f32::from_le_bytes([sample[0], sample[1], sample[2], sample[3]]))
        .collect())
}

fn describe_mesh_error(error: MeshError, input: &Path) -> anyhow::Error {
    anyhow::Error::new(error).context(format!("cannot mesh input `{}`", input.display()))
}

fn write_mesh(path: &Path, mesh: &SurfaceMesh) -> anyhow::Result<()> {
    let file =
        File::create(path).with_context(|| format!("cannot write output `{}`", path.display()))?;
    let mut writer = BufWriter::new(file);
    serde_json::to_writer(
        &mut writer,
        &MeshJson {
            positions: &mesh.positions,
            normals: &mesh.normals,
            indices: &mesh.indices,
        },
    )
    .with_context(|| format!("cannot write output `{}`", path.display()))?;
    writer
        .flush()
        .with_context(|| format!("cannot write output `{}`", path.display()))?;
    Ok(())
}
