//! The `mesh` tool's work, as a library so that tests and the fuzzer drive it without a process:
//! the `--dims` text checked, the raw grid read with a size limit (never more than the dims ask
//! for, so an endless or huge file is refused after `expected + 1` bytes), the grid meshed, and
//! the JSON written atomically (a temporary file renamed over the output: a failed or killed
//! write leaves the old output, never a truncated one). The input is never the output.

use std::path::Path;

use anyhow::{bail, Context as _};
use blockfall_engine::meshing::{
    DensityGrid, GridRegion, MarchingCubes, Mesher, SurfaceMesh, SurfaceNets,
};
use blockfall_game::files::{check_writable, identity, read_at_most, write_atomically};

/// The largest grid the tool reads, in bytes (4 GiB: a 1024³ grid).
pub const LARGEST_GRID_BYTES: u64 = 4 << 30;

#[derive(serde::Serialize)]
struct MeshJson<'a> {
    positions: &'a [[f32; 3]],
    normals: &'a [[f32; 3]],
    indices: &'a [u32],
}

/// `NX,NY,NZ` with each at least 2 and at most [`LARGEST_GRID_BYTES`] of samples in all.
pub fn parse_dims(text: &str) -> Result<[usize; 3], String> {
    let parts: Vec<&str> = text.split(',').map(str::trim).collect();
    let [x, y, z] = parts[..] else {
        return Err(format!(
            "expected three comma-separated sizes NX,NY,NZ, got `{}`",
            shorten(text)
        ));
    };
    let mut dims = [0usize; 3];
    for ((dim, part), axis) in dims.iter_mut().zip([x, y, z]).zip(["NX", "NY", "NZ"]) {
        *dim = part.parse().map_err(|error| {
            format!("{axis} `{}` is not a whole number: {error}", shorten(part))
        })?;
        if *dim < 2 {
            return Err(format!(
                "{axis} is {dim}: a grid needs at least 2 samples per axis"
            ));
        }
    }
    let bytes = dims
        .iter()
        .try_fold(4u64, |bytes, &dim| bytes.checked_mul(dim as u64))
        .ok_or_else(|| format!("dimensions {} overflow: too many samples", shorten(text)))?;
    if bytes > LARGEST_GRID_BYTES {
        return Err(format!(
            "dimensions {}x{}x{} need {bytes} bytes; the tool reads at most {LARGEST_GRID_BYTES}",
            dims[0], dims[1], dims[2]
        ));
    }
    Ok(dims)
}

/// At most 64 characters of `text`, for messages that quote what they were given.
fn shorten(text: &str) -> String {
    const LONGEST: usize = 64;
    match text.char_indices().nth(LONGEST) {
        Some((end, _)) => format!("{}…", &text[..end]),
        None => text.to_owned(),
    }
}

/// Reads the samples of a grid of `dims` (checked by [`parse_dims`]) from `path`: exactly
/// `4 · NX · NY · NZ` bytes, little-endian `f32`s, x fastest. A file of another length is
/// refused with both lengths, and no more than one byte past the expected length is read. Only
/// a regular file is read ([`read_at_most`]): a FIFO, a device or a folder is refused at once,
/// never waited on.
pub fn read_grid(path: &Path, dims: [usize; 3]) -> anyhow::Result<Vec<f32>> {
    let expected = 4 * (dims[0] * dims[1] * dims[2]) as u64;
    let bytes = read_at_most(path, expected)
        .with_context(|| format!("cannot read input `{}`", path.display()))?;
    let describe = |length: String| {
        format!(
            "input `{}` is {length} bytes, but dimensions {}x{}x{} need {expected} bytes (4 per \
             sample)",
            path.display(),
            dims[0],
            dims[1],
            dims[2]
        )
    };
    let Some(bytes) = bytes else {
        // Only `expected + 1` bytes were read; a plain file's length is known all the same.
        let length = std::fs::metadata(path)
            .ok()
            .filter(|metadata| metadata.is_file())
            .map_or_else(|| format!("more than {expected}"), |m| m.len().to_string());
        bail!(describe(length));
    };
    if bytes.len() as u64 != expected {
        bail!(describe(bytes.len().to_string()));
    }
    Ok(samples_of(&bytes))
}

/// Little-endian `f32`s of `bytes` (a trailing part of a sample is ignored).
pub fn samples_of(bytes: &[u8]) -> Vec<f32> {
    bytes
        .chunks_exact(4)
        .map(|sample| f32::from_le_bytes([sample[0], sample[1], sample[2], sample[3]]))
        .collect()
}

/// The mesh of the whole grid by `mesher` (surface nets: every edge whose four cells exist;
/// marching cubes: every cell).
pub fn mesh_grid(samples: &[f32], dims: [usize; 3], mesher: Mesher) -> anyhow::Result<SurfaceMesh> {
    let grid = DensityGrid::new(samples, dims)?;
    let mut mesh = SurfaceMesh::new();
    let region = GridRegion::whole(dims);
    match mesher {
        Mesher::SurfaceNets => SurfaceNets::new().mesh(grid, region, &mut mesh)?,
        Mesher::MarchingCubes => MarchingCubes::new().mesh(grid, region, &mut mesh)?,
    }
    Ok(mesh)
}

/// `--mesher`'s parser: a [`Mesher::name`].
pub fn parse_mesher(text: &str) -> Result<Mesher, String> {
    Mesher::from_name(text)
}

/// The mesh as the tool's JSON.
pub fn mesh_json(mesh: &SurfaceMesh) -> Vec<u8> {
    serde_json::to_vec(&MeshJson {
        positions: &mesh.positions,
        normals: &mesh.normals,
        indices: &mesh.indices,
    })
    .expect("a mesh of finite numbers is always JSON")
}

/// Refuses an output that is the input (a path spelled differently that names the same file
/// counts too: compared by file identity, and after resolving links, where the output exists),
/// and one that cannot be written (its folder is tried first, as the game's outputs are).
pub fn check_output(input: &Path, output: &Path) -> anyhow::Result<()> {
    let same = input == output
        || matches!(
            (std::fs::canonicalize(input), std::fs::canonicalize(output)),
            (Ok(a), Ok(b)) if a == b
        )
        || matches!(
            (identity(input), identity(output)),
            (Ok(Some(a)), Ok(Some(b))) if a == b
        );
    if same {
        bail!(
            "--output `{}` is the input: the tool never writes over its input",
            output.display()
        );
    }
    check_writable(output).with_context(|| format!("cannot write output `{}`", output.display()))
}

/// Writes the JSON of `mesh` to `path` atomically.
pub fn write_mesh(path: &Path, mesh: &SurfaceMesh) -> anyhow::Result<()> {
    write_atomically(path, &mesh_json(mesh))
        .with_context(|| format!("cannot write output `{}`", path.display()))
}
