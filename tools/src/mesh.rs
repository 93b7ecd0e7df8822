//! The `mesh` tool's work, as a library so that tests and the fuzzer drive it without a process:
//! the `--dims` text checked against the tool's limits, the raw grid read and meshed a slab of
//! planes at a time (so that memory stays bounded whatever the grid), the mesh kept within the
//! output limits, and the JSON written atomically (a temporary file renamed over the output: a
//! failed or killed write leaves the old output, never a truncated one). The input is never the
//! output.
//!
//! # Limits
//!
//! No number of the input sizes an allocation before it is checked against one of these; each
//! refusal names the limit, its value and why ([`LIMITS_HELP`] is the tool's `--help` text, and
//! README's `mesh` row says the same):
//!
//! | limit | value | why |
//! |---|---|---|
//! | samples on an axis | 2 to [`LARGEST_DIMENSION`] (4096) | a cell needs 2; positions are `f32`, which keep 1/4096 of a grid unit up to 4096 |
//! | samples in a plane, `NX·NY` | [`LARGEST_PLANE`] (2^20, 1024²) | a slab is at least 3 planes, and one plane's mesh, made whole before the output limits are checked, may take 300 bytes a sample (a checkerboard) |
//! | samples in the grid | [`LARGEST_GRID_SAMPLES`] (2^30, 1024³, a 4 GiB file) | time: reading and meshing that many takes up to half a minute (18 s for surface nets, 31 s for marching cubes, with a surface through every slab, in the tests' debug build; 3 s when empty) |
//! | vertices, triangles of the mesh | [`LARGEST_VERTICES`] (2^21), [`LARGEST_TRIANGLES`] (2^22) | the mesh (96 MiB at most) and its JSON (at most [`LARGEST_JSON_BYTES`], 323 MB) are held in memory to be written whole |
//!
//! So the tool's resident memory stays under about 500 MB for any input: a slab of at most
//! 3 · 2^20 samples and its mesher's scratch and mesh, the mesh so far, then the JSON.
//!
//! # Slab by slab
//!
//! Surface nets and marching cubes read only the two planes of samples around a cell, so the
//! grid is read a plane at a time and meshed in slabs along z: a slab owns the edges (surface
//! nets) or cells (marching cubes) starting in its planes `z0..z1` ([`GridRegion`]) and is meshed
//! from the samples `z0 − 1 ..= z1` (the plane below for the normals and the cells under its first
//! edges, the plane above for its last cells); the next slab starts from the last two. The slabs'
//! meshes are joined into one: their triangles, in order, are the whole grid's, and the vertices
//! of the cells (or edges) where two slabs meet are shared, not doubled ([`Joiner`]). A grid of up
//! to [`SLAB_SAMPLES`] samples is one slab: its mesh is the engine's mesh of the whole grid, bit
//! for bit.

use std::fs::File;
use std::io::{ErrorKind, Read};
use std::path::Path;

use anyhow::{bail, Context as _};
use blockfall_engine::meshing::{
    DensityGrid, GridRegion, MarchingCubes, MeshError, Mesher, SurfaceMesh, SurfaceNets,
};
use blockfall_game::files::{check_writable, identity, read_at_most, write_atomically};

/// The most samples on an axis: positions are `f32`, whose 24 bits keep 1/4096 of a grid unit
/// (2^-12) below 4096.
pub const LARGEST_DIMENSION: usize = 4096;
/// The most samples in a plane (`NX·NY`, 1024² = 2^20, 4 MiB of samples): a slab is meshed whole
/// from at least three planes, and the mesh of one plane of a checkerboard (a vertex a cell,
/// six triangles a sample; marching cubes' three vertices a sample) takes up to 300 bytes a
/// sample before the output limits can be checked.
pub const LARGEST_PLANE: usize = 1 << 20;
/// The most samples in a grid (1024³ = 2^30, a 4 GiB file): reading and meshing them takes
/// up to half a minute (a surface through every slab: 18 s for surface nets, 31 s for marching
/// cubes in the tests' debug build; 3 s for an empty grid); memory does not grow with it (the
/// grid is meshed slab by slab: 140 MB at the peak for those).
pub const LARGEST_GRID_SAMPLES: u64 = 1 << 30;
/// The largest grid file, in bytes (4 per sample).
pub const LARGEST_GRID_BYTES: u64 = 4 * LARGEST_GRID_SAMPLES;
/// The most vertices the tool writes: with [`LARGEST_TRIANGLES`], a mesh of 96 MiB and JSON of at
/// most [`LARGEST_JSON_BYTES`], both held in memory to be written whole (atomically).
pub const LARGEST_VERTICES: usize = 1 << 21;
/// The most triangles the tool writes (see [`LARGEST_VERTICES`]).
pub const LARGEST_TRIANGLES: usize = 1 << 22;
/// JSON bytes a vertex takes at most: a position and a normal, `[a,b,c],` each, an `f32` being
/// at most 16 characters (`-1.17549435e-38`).
pub const JSON_BYTES_PER_VERTEX: u64 = 2 * (3 * 16 + 5);
/// JSON bytes a triangle takes at most: three indices below 2^21 (7 digits), each with a comma.
pub const JSON_BYTES_PER_TRIANGLE: u64 = 3 * 8;
/// The largest JSON the tool writes, in bytes (323 MB): the output limits at their most, with
/// the keys and brackets around them.
pub const LARGEST_JSON_BYTES: u64 = LARGEST_VERTICES as u64 * JSON_BYTES_PER_VERTEX
    + LARGEST_TRIANGLES as u64 * JSON_BYTES_PER_TRIANGLE
    + 64;
/// Samples of the planes a slab owns (at least one plane): 2^20, so that a slab's mesh and its
/// mesher's scratch, made before the output limits are checked, stay within about 300 MB (a
/// checkerboard's plane of 1024² samples by marching cubes: 320 MB at the peak, all told).
pub const SLAB_SAMPLES: usize = 1 << 20;

/// The limits, for the tool's `--help` (a test checks that it gives the constants' values).
pub const LIMITS_HELP: &str = "\
Limits (a grid or mesh past one is refused, exit status 2, naming it):
  samples on an axis   2 to 4096: a cell needs 2; positions are f32, which keep 1/4096 of a
                       grid unit up to 4096
  samples in a plane   NX*NY at most 1048576 (1024*1024): the grid is meshed a slab of planes at
                       a time, at least 3 planes, and one plane's mesh may take 300 bytes a sample
  samples in the grid  at most 1073741824 (1024^3, a 4 GiB file): reading and meshing that many
                       takes up to half a minute; memory does not grow with the grid
  the mesh             at most 2097152 vertices and 4194304 triangles: the mesh and its JSON (at
                       most 323 MB) are held in memory to be written whole
Resident memory stays under about 500 MB for any input.";

/// How the grid is cut into slabs and how large its mesh may grow: the tool's own
/// ([`Budget::TOOL`]), or smaller ones for the tests and the fuzzer, which meet every slab
/// boundary and every output limit on small grids.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Budget {
    /// Samples of the planes a slab owns (a slab owns at least one plane).
    pub slab_samples: usize,
    /// The most vertices of the mesh.
    pub vertices: usize,
    /// The most triangles of the mesh.
    pub triangles: usize,
}

impl Budget {
    /// The tool's.
    pub const TOOL: Budget = Budget {
        slab_samples: SLAB_SAMPLES,
        vertices: LARGEST_VERTICES,
        triangles: LARGEST_TRIANGLES,
    };
}

#[derive(serde::Serialize)]
struct MeshJson<'a> {
    positions: &'a [[f32; 3]],
    normals: &'a [[f32; 3]],
    indices: &'a [u32],
}

/// `--dims`: `NX,NY,NZ`, each 2 to [`LARGEST_DIMENSION`], `NX·NY` at most [`LARGEST_PLANE`] and
/// the three at most [`LARGEST_GRID_SAMPLES`]. A refusal names the limit and quotes at most the
/// start of what it was given ([`excerpt`]).
pub fn parse_dims(text: &str) -> Result<[usize; 3], String> {
    let mut parts = text.splitn(4, ',');
    let (Some(x), Some(y), Some(z), None) =
        (parts.next(), parts.next(), parts.next(), parts.next())
    else {
        return Err(format!(
            "--dims: expected three comma-separated sizes NX,NY,NZ, got {}",
            excerpt(text)
        ));
    };
    let mut dims = [0usize; 3];
    for ((dim, part), axis) in dims.iter_mut().zip([x, y, z]).zip(["NX", "NY", "NZ"]) {
        let part = part.trim();
        if part.is_empty() || !part.bytes().all(|byte| byte.is_ascii_digit()) {
            return Err(format!(
                "--dims: {axis} {} is not a whole number of samples",
                excerpt(part)
            ));
        }
        // Digits only: a number past u64 is simply too large.
        let value = part.parse::<u64>().unwrap_or(u64::MAX);
        if !(2..=LARGEST_DIMENSION as u64).contains(&value) {
            return Err(format!(
                "--dims: {axis} {} is not 2 to {LARGEST_DIMENSION} samples (a cell needs 2 on \
                 every axis; positions are f32, which keep 1/4096 of a grid unit up to \
                 {LARGEST_DIMENSION})",
                excerpt(part)
            ));
        }
        *dim = value as usize;
    }
    let [nx, ny, nz] = dims;
    let plane = nx * ny;
    if plane > LARGEST_PLANE {
        return Err(format!(
            "--dims: NX·NY = {nx}·{ny} = {plane} samples a plane, more than {LARGEST_PLANE} \
             (1024·1024): the grid is meshed a slab of planes at a time, at least 3 planes, and \
             one plane's mesh may take 300 bytes a sample before the output limits are checked"
        ));
    }
    let samples = (plane * nz) as u64;
    if samples > LARGEST_GRID_SAMPLES {
        return Err(format!(
            "--dims: {nx}·{ny}·{nz} = {samples} samples ({} bytes), more than \
             {LARGEST_GRID_SAMPLES} (1024³, a {LARGEST_GRID_BYTES}-byte file), the largest grid \
             the tool reads: reading and meshing that many takes up to half a minute",
            4 * samples
        ));
    }
    Ok(dims)
}

/// The start of `text` for a message that quotes a value it refuses: `` `text` `` whole when it
/// is short, else its first 32 characters, `…` and its length; escaped, so a message stays one
/// line whatever the value holds.
pub fn excerpt(text: &str) -> String {
    const SHOWN: usize = 32;
    let mut shown = String::new();
    let mut count = 0;
    let mut cut = false;
    for character in text.chars() {
        count += 1;
        if cut {
            continue;
        }
        let escaped: String = character.escape_debug().collect();
        if shown.chars().count() + escaped.chars().count() > SHOWN {
            cut = true;
        } else {
            shown.push_str(&escaped);
        }
    }
    if cut {
        format!("`{shown}…` ({count} characters)")
    } else {
        format!("`{shown}`")
    }
}

/// `--mesher`: a [`Mesher::name`]; a refusal quotes at most the start of the name and lists the
/// meshers.
pub fn parse_mesher(text: &str) -> Result<Mesher, String> {
    Mesher::ALL
        .into_iter()
        .find(|mesher| mesher.name() == text)
        .ok_or_else(|| {
            format!(
                "--mesher: no mesher {}: one of {}",
                excerpt(text),
                Mesher::ALL.map(Mesher::name).join(", ")
            )
        })
}

/// Samples in a grid of `dims` checked by [`parse_dims`].
fn sample_count(dims: [usize; 3]) -> u64 {
    dims.iter().map(|&n| n as u64).product()
}

/// Opens the grid of `dims` (checked by [`parse_dims`]) at `path` for [`mesh_stream`]: only a
/// regular file (a FIFO, a device or a folder is refused at once, never waited on: the game's
/// own check, [`read_at_most`]), of exactly `4 · NX · NY · NZ` bytes (a file of another length is
/// refused with both lengths, before a sample is read).
pub fn open_grid(path: &Path, dims: [usize; 3]) -> anyhow::Result<File> {
    let cannot_read = || format!("cannot read input `{}`", path.display());
    // Reads at most one byte, and refuses anything but a regular file without blocking.
    read_at_most(path, 0).with_context(cannot_read)?;
    let file = File::open(path).with_context(cannot_read)?;
    let metadata = file.metadata().with_context(cannot_read)?;
    if !metadata.is_file() {
        bail!(
            "cannot read input `{}`: it is no longer a regular file",
            path.display()
        );
    }
    let expected = 4 * sample_count(dims);
    if metadata.len() != expected {
        bail!(
            "input `{}` is {} bytes, but dimensions {}x{}x{} need {expected} bytes (4 per \
             sample)",
            path.display(),
            metadata.len(),
            dims[0],
            dims[1],
            dims[2]
        );
    }
    Ok(file)
}

/// Little-endian `f32`s of `bytes` (a trailing part of a sample is ignored).
pub fn samples_of(bytes: &[u8]) -> Vec<f32> {
    bytes
        .chunks_exact(4)
        .map(|sample| f32::from_le_bytes([sample[0], sample[1], sample[2], sample[3]]))
        .collect()
}

/// The mesh of a whole grid held in memory by `mesher` (surface nets: every edge whose four
/// cells exist; marching cubes: every cell), as the engine makes it: what [`mesh_stream`]'s
/// slabs are checked against.
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

/// Reads the grid of `dims` (checked by [`parse_dims`]) from `input` a plane at a time and meshes
/// it by `mesher` slab by slab (the module's docs), within `budget`: memory is a slab of at most
/// `budget.slab_samples` samples and two planes more, its mesh, and the mesh so far.
///
/// Refused: a grid shorter or longer than the dims ask for (at most one byte past it is read), a
/// NaN or infinite sample (named by its index and place, as the engine names it), and a mesh past
/// `budget`'s vertices or triangles, as soon as a slab takes it there.
pub fn mesh_stream(
    input: &mut dyn Read,
    dims: [usize; 3],
    mesher: Mesher,
    budget: Budget,
) -> anyhow::Result<SurfaceMesh> {
    let [nx, ny, nz] = dims;
    let plane = nx * ny;
    let owned = (budget.slab_samples / plane).max(1);
    let mut reader = PlaneReader {
        input,
        dims,
        bytes: vec![0; 4 * plane],
        read: 0,
    };
    let mut samples: Vec<f32> = Vec::with_capacity((owned + 2).min(nz) * plane);
    let mut sides: Vec<Sides> = Vec::with_capacity((owned + 2).min(nz));
    let mut joiner = Joiner {
        mesh: SurfaceMesh::new(),
        dims,
        budget,
        cells: Vec::new(),
        edges: Vec::new(),
    };
    let mut surface_nets = SurfaceNets::new();
    let mut marching_cubes = MarchingCubes::new();
    let mut slab = SurfaceMesh::new();
    let mut planes_read = 0;
    let mut z0 = 0;
    while z0 + 1 < nz {
        let z1 = (z0 + owned).min(nz - 1);
        // The slab's samples start a plane below its own (but at the grid's first).
        let base = z0.saturating_sub(1);
        while planes_read <= z1 {
            sides.push(reader.read_plane(planes_read, &mut samples)?);
            planes_read += 1;
        }
        slab.clear();
        // A slab all inside or all outside has no surface.
        if sides.iter().any(|plane| plane.inside) && sides.iter().any(|plane| plane.outside) {
            let grid = DensityGrid::new(&samples, [nx, ny, z1 - base + 1])?;
            let region = GridRegion {
                min: [0, 0, z0 - base],
                max: [nx, ny, z1 - base],
            };
            match mesher {
                Mesher::SurfaceNets => surface_nets.mesh(grid, region, &mut slab)?,
                Mesher::MarchingCubes => marching_cubes.mesh(grid, region, &mut slab)?,
            }
        }
        let slab_edges = match mesher {
            Mesher::MarchingCubes if !slab.positions.is_empty() => marching_cubes.vertex_edges(),
            _ => &[],
        };
        joiner.add(mesher, &slab, slab_edges, base, z0, z1)?;
        // The next slab's samples start at plane z1 - 1.
        samples.drain(..(z1 - 1 - base) * plane);
        sides.drain(..z1 - 1 - base);
        z0 = z1;
    }
    reader.finish()?;
    Ok(joiner.mesh)
}

/// Whether some samples of a plane (or a slab) lie inside the surface, and whether some lie
/// outside: a slab with samples on one side only has no surface.
#[derive(Debug, Clone, Copy)]
struct Sides {
    inside: bool,
    outside: bool,
}

/// Reads a grid's planes in order, each checked for NaN and infinities as it comes.
struct PlaneReader<'a> {
    input: &'a mut dyn Read,
    dims: [usize; 3],
    /// One plane's bytes.
    bytes: Vec<u8>,
    /// Bytes read so far.
    read: u64,
}

impl PlaneReader<'_> {
    fn expected(&self) -> u64 {
        4 * sample_count(self.dims)
    }

    fn describe(&self, what: String) -> String {
        let [nx, ny, nz] = self.dims;
        format!(
            "the grid is {what} bytes, but dimensions {nx}x{ny}x{nz} need {} bytes (4 per sample)",
            self.expected()
        )
    }

    /// Appends plane `z` to `samples`; on which sides of the surface its samples lie.
    fn read_plane(&mut self, z: usize, samples: &mut Vec<f32>) -> anyhow::Result<Sides> {
        let got = read_full(self.input, &mut self.bytes).context("reading the grid")?;
        self.read += got as u64;
        if got < self.bytes.len() {
            bail!(self.describe(self.read.to_string()));
        }
        let start = samples.len();
        // One pass: the samples, whether all are finite, and on which sides they lie.
        let (mut finite, mut inside, mut outside) = (true, false, false);
        let (whole_samples, _) = self.bytes.as_chunks::<4>();
        for &bytes in whole_samples {
            let sample = f32::from_le_bytes(bytes);
            finite &= sample.is_finite();
            let is_inside = sample > 0.0;
            inside |= is_inside;
            outside |= !is_inside;
            samples.push(sample);
        }
        let plane = &samples[start..];
        if !finite {
            let at = plane
                .iter()
                .position(|sample| !sample.is_finite())
                .unwrap_or(0);
            let nx = self.dims[0];
            return Err(MeshError::NotFinite {
                index: z * plane.len() + at,
                position: [at % nx, at / nx, z],
                value: plane[at],
            }
            .into());
        }
        Ok(Sides { inside, outside })
    }

    /// Refuses bytes past the grid (one is read to tell).
    fn finish(&mut self) -> anyhow::Result<()> {
        let mut one = [0u8; 1];
        if read_full(self.input, &mut one).context("reading the grid")? > 0 {
            bail!(self.describe(format!("more than {}", self.expected())));
        }
        Ok(())
    }
}

/// Fills `buffer` from `input` unless it ends first; the bytes read.
fn read_full(input: &mut dyn Read, buffer: &mut [u8]) -> std::io::Result<usize> {
    let mut filled = 0;
    while filled < buffer.len() {
        match input.read(&mut buffer[filled..]) {
            Ok(0) => break,
            Ok(read) => filled += read,
            Err(error) if error.kind() == ErrorKind::Interrupted => {}
            Err(error) => return Err(error),
        }
    }
    Ok(filled)
}

/// A surface-nets vertex of a slab's last cell layer, which the next slab's first cell layer
/// may use again.
#[derive(Debug, Clone, Copy)]
struct SharedCell {
    /// Its x and y and its normal, to the bit: the same cell gives the same in both slabs (they
    /// are made from its 8 samples and its x and y alone); only z, made from the slab's own
    /// plane numbers, may round differently in its last bit.
    key: [u32; 5],
    z: f32,
    index: u32,
}

impl SharedCell {
    fn key(position: [f32; 3], normal: [f32; 3]) -> [u32; 5] {
        [
            position[0].to_bits(),
            position[1].to_bits(),
            normal[0].to_bits(),
            normal[1].to_bits(),
            normal[2].to_bits(),
        ]
    }
}

/// Joins slabs' meshes into one mesh of the whole grid, within the budget.
///
/// The cells (surface nets) or edges (marching cubes) where two slabs meet are meshed by both;
/// their vertices are kept once:
/// - marching cubes: a vertex lies on an edge, and the engine says which
///   ([`MarchingCubes::vertex_edges`]); the x and y edges of the plane the slabs share are the
///   same edges in both;
/// - surface nets: a vertex belongs to a cell, and the cell layer between the slabs' shared
///   planes is meshed by both; the same cell's vertex has the same x, y and normal, to the bit,
///   and the same z to within rounding ([`SharedCell`]). Two different cells whose vertices
///   matched so would lie at the same place with the same normal: one vertex is as good as two.
struct Joiner {
    mesh: SurfaceMesh,
    dims: [usize; 3],
    budget: Budget,
    /// Surface nets: the last slab's vertices at or above its last cell layer's floor, sorted by
    /// key.
    cells: Vec<SharedCell>,
    /// Marching cubes: the last slab's vertices on x and y edges of its top plane, as
    /// (3 · sample in the plane + axis, vertex), sorted.
    edges: Vec<(u64, u32)>,
}

impl Joiner {
    /// Adds the mesh of the slab that owns planes `z0..z1`, meshed from samples starting at plane
    /// `base`; `slab_edges` are its vertices' edges (marching cubes).
    fn add(
        &mut self,
        mesher: Mesher,
        slab: &SurfaceMesh,
        slab_edges: &[u32],
        base: usize,
        z0: usize,
        z1: usize,
    ) -> anyhow::Result<()> {
        let triangles = self.mesh.triangle_count() + slab.triangle_count();
        if triangles > self.budget.triangles {
            bail!(self.too_large("triangles", self.budget.triangles, z1));
        }
        let nz = self.dims[2];
        let plane = self.dims[0] * self.dims[1];
        let shift = base as f32;
        // Whether a slab came before this one, and whether another comes after.
        let (after, before) = (z0 > 0, z1 + 1 < nz);
        let tolerance = 4.0 * f32::EPSILON * (z0 as f32 + 1.0);
        let mut cells = Vec::new();
        let mut edges = Vec::new();
        let mut remap = Vec::with_capacity(slab.positions.len());
        for (vertex, (position, &normal)) in slab.positions.iter().zip(&slab.normals).enumerate() {
            let position = [position[0], position[1], position[2] + shift];
            let index = match mesher {
                Mesher::SurfaceNets => {
                    let key = SharedCell::key(position, normal);
                    // The first cell layer lies at or below plane z0.
                    let shared = if after && position[2] <= z0 as f32 {
                        self.shared_cell(key, position[2], tolerance)
                    } else {
                        None
                    };
                    let index = match shared {
                        Some(index) => index,
                        None => self.push_vertex(position, normal, z1)?,
                    };
                    // The last cell layer lies at or above plane z1 - 1.
                    if before && position[2] >= (z1 - 1) as f32 {
                        cells.push(SharedCell {
                            key,
                            z: position[2],
                            index,
                        });
                    }
                    index
                }
                Mesher::MarchingCubes => {
                    let edge = slab_edges[vertex] as usize;
                    let (sample, axis) = (edge / 3, edge % 3);
                    let (local_plane, in_plane) = (sample / plane, sample % plane);
                    let key = 3 * in_plane as u64 + axis as u64;
                    let across = axis < 2;
                    let shared = if after && across && base + local_plane == z0 {
                        self.edges
                            .binary_search_by_key(&key, |&(key, _)| key)
                            .ok()
                            .map(|at| self.edges[at].1)
                    } else {
                        None
                    };
                    let index = match shared {
                        Some(index) => index,
                        None => self.push_vertex(position, normal, z1)?,
                    };
                    if before && across && base + local_plane == z1 {
                        edges.push((key, index));
                    }
                    index
                }
            };
            remap.push(index);
        }
        cells.sort_unstable_by_key(|cell| cell.key);
        edges.sort_unstable_by_key(|&(key, _)| key);
        self.cells = cells;
        self.edges = edges;
        self.mesh
            .indices
            .extend(slab.indices.iter().map(|&index| remap[index as usize]));
        Ok(())
    }

    /// The vertex of the last slab whose cell this is: the same key, z within `tolerance`.
    fn shared_cell(&self, key: [u32; 5], z: f32, tolerance: f32) -> Option<u32> {
        let start = self.cells.partition_point(|cell| cell.key < key);
        self.cells[start..]
            .iter()
            .take_while(|cell| cell.key == key)
            .filter(|cell| (cell.z - z).abs() <= tolerance)
            .min_by(|a, b| (a.z - z).abs().total_cmp(&(b.z - z).abs()))
            .map(|cell| cell.index)
    }

    fn push_vertex(
        &mut self,
        position: [f32; 3],
        normal: [f32; 3],
        z1: usize,
    ) -> anyhow::Result<u32> {
        let index = self.mesh.positions.len();
        if index >= self.budget.vertices {
            bail!(self.too_large("vertices", self.budget.vertices, z1));
        }
        self.mesh.positions.push(position);
        self.mesh.normals.push(normal);
        Ok(index as u32)
    }

    fn too_large(&self, what: &str, limit: usize, z1: usize) -> String {
        format!(
            "the mesh has more than {limit} {what} by sample plane {} of {}: the tool writes at \
             most {} vertices and {} triangles, so that the mesh and its JSON (at most {} MB) \
             fit in memory to be written whole",
            z1 + 1,
            self.dims[2],
            self.budget.vertices,
            self.budget.triangles,
            json_megabytes(self.budget)
        )
    }
}

/// The most JSON a mesh within `budget` takes, in MB (rounded).
fn json_megabytes(budget: Budget) -> u64 {
    let bytes = budget.vertices as u64 * JSON_BYTES_PER_VERTEX
        + budget.triangles as u64 * JSON_BYTES_PER_TRIANGLE
        + 64;
    (bytes + 500_000) / 1_000_000
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

#[cfg(test)]
mod tests {
    use super::*;

    /// A ball of radius `radius` about `centre` with some noise on its density, so that vertices
    /// fall anywhere in their cells.
    fn ball(dims: [usize; 3], centre: [f32; 3], radius: f32) -> Vec<f32> {
        let mut samples = Vec::new();
        for z in 0..dims[2] {
            for y in 0..dims[1] {
                for x in 0..dims[0] {
                    let p = [x as f32, y as f32, z as f32];
                    let distance = (0..3)
                        .map(|a| (p[a] - centre[a]).powi(2))
                        .sum::<f32>()
                        .sqrt();
                    let wobble = ((x * 7 + y * 13 + z * 29) % 17) as f32 * 0.01;
                    samples.push(radius - distance + wobble);
                }
            }
        }
        samples
    }

    fn bytes_of(samples: &[f32]) -> Vec<u8> {
        samples.iter().flat_map(|s| s.to_le_bytes()).collect()
    }

    fn stream(
        samples: &[f32],
        dims: [usize; 3],
        mesher: Mesher,
        budget: Budget,
    ) -> anyhow::Result<SurfaceMesh> {
        mesh_stream(&mut &bytes_of(samples)[..], dims, mesher, budget)
    }

    /// Each triangle of `slabs` is `whole`'s triangle of the same number: the same corners to
    /// within rounding, the same normals; and no vertex is doubled.
    fn assert_same_mesh(whole: &SurfaceMesh, slabs: &SurfaceMesh, what: &str) {
        assert_eq!(
            whole.indices.len(),
            slabs.indices.len(),
            "{what}: triangles"
        );
        assert_eq!(
            whole.positions.len(),
            slabs.positions.len(),
            "{what}: vertices"
        );
        for (corner, (&a, &b)) in whole.indices.iter().zip(&slabs.indices).enumerate() {
            let (a, b) = (a as usize, b as usize);
            for axis in 0..3 {
                let gap = (whole.positions[a][axis] - slabs.positions[b][axis]).abs();
                assert!(gap < 1e-4, "{what}: corner {corner} is {gap} away");
            }
            assert_eq!(
                whole.normals[a], slabs.normals[b],
                "{what}: corner {corner}"
            );
        }
    }

    #[test]
    fn slabs_of_any_thickness_mesh_as_the_whole_grid() {
        for (dims, centre, radius) in [
            ([20, 17, 23], [9.3, 8.1, 11.7], 7.4),
            ([70, 3, 9], [30.0, 1.2, 4.0], 20.0),
            ([6, 6, 3], [2.5, 2.4, 1.0], 1.7),
        ] {
            let samples = ball(dims, centre, radius);
            for mesher in Mesher::ALL {
                let whole = mesh_grid(&samples, dims, mesher).expect("the whole grid");
                assert!(!whole.is_empty());
                for slab_samples in [1, dims[0] * dims[1] * 2, dims[0] * dims[1] * 5, 1 << 20] {
                    let budget = Budget {
                        slab_samples,
                        ..Budget::TOOL
                    };
                    let slabs = stream(&samples, dims, mesher, budget).expect("the slabs");
                    let what = format!("{dims:?} {} in slabs of {slab_samples}", mesher.name());
                    assert_same_mesh(&whole, &slabs, &what);
                    if slab_samples >= samples.len() {
                        assert_eq!(whole, slabs, "{what}: one slab is the engine's mesh");
                    }
                }
            }
        }
    }

    #[test]
    fn a_mesh_past_the_budget_is_refused_with_the_limit_named() {
        let dims = [12, 12, 12];
        let checkerboard: Vec<f32> = (0..12 * 12 * 12)
            .map(|i| {
                if (i % 12 + i / 12 % 12 + i / 144) % 2 == 0 {
                    1.0
                } else {
                    -1.0
                }
            })
            .collect();
        for mesher in Mesher::ALL {
            let whole = mesh_grid(&checkerboard, dims, mesher).expect("the whole grid");
            let (vertices, triangles) = (whole.positions.len(), whole.triangle_count());
            let fits = Budget {
                slab_samples: 1,
                vertices,
                triangles,
            };
            let slabs = stream(&checkerboard, dims, mesher, fits).expect("just within");
            assert_same_mesh(&whole, &slabs, mesher.name());
            for (budget, what) in [
                (
                    Budget {
                        triangles: triangles - 1,
                        ..fits
                    },
                    "triangles",
                ),
                (
                    Budget {
                        vertices: vertices - 1,
                        ..fits
                    },
                    "vertices",
                ),
            ] {
                let error = format!(
                    "{:#}",
                    stream(&checkerboard, dims, mesher, budget).unwrap_err()
                );
                let limit = if what == "triangles" {
                    triangles - 1
                } else {
                    vertices - 1
                };
                assert!(
                    error.contains(&format!("has more than {limit} {what}"))
                        && error.contains("at most"),
                    "{error}"
                );
            }
        }
    }

    #[test]
    fn grids_of_the_wrong_length_or_with_nan_are_refused_where_they_go_wrong() {
        let dims = [4, 4, 6];
        let mut samples = ball(dims, [1.5, 1.5, 2.5], 1.8);
        for mesher in Mesher::ALL {
            let budget = Budget {
                slab_samples: 1,
                ..Budget::TOOL
            };
            let short = bytes_of(&samples[..samples.len() - 1]);
            let error = format!(
                "{:#}",
                mesh_stream(&mut &short[..], dims, mesher, budget).unwrap_err()
            );
            assert!(
                error.contains("is 380 bytes") && error.contains("need 384"),
                "{error}"
            );
            let mut long = bytes_of(&samples);
            long.push(0);
            let error = format!(
                "{:#}",
                mesh_stream(&mut &long[..], dims, mesher, budget).unwrap_err()
            );
            assert!(
                error.contains("more than 384") && error.contains("need 384"),
                "{error}"
            );
        }
        samples[3 + 4 * (2 + 4 * 5)] = f32::NAN;
        let error = format!(
            "{:#}",
            stream(&samples, dims, Mesher::SurfaceNets, Budget::TOOL).unwrap_err()
        );
        assert!(
            error.contains("sample 91 at (x, y, z) = (3, 2, 5) is NaN"),
            "{error}"
        );
        let whole = format!(
            "{:#}",
            mesh_grid(&samples, dims, Mesher::SurfaceNets).unwrap_err()
        );
        assert_eq!(error, whole, "named as the engine names it");
    }

    #[test]
    fn dims_past_each_limit_are_refused_naming_it_and_quoting_little() {
        assert_eq!(parse_dims("4096,256,1024"), Ok([4096, 256, 1024]));
        assert_eq!(parse_dims(" 2 , 3 ,4"), Ok([2, 3, 4]));
        for (dims, problem) in [
            ("8,8", "expected three"),
            ("8,8,8,8", "expected three"),
            ("8,x,8", "NY `x` is not a whole number"),
            ("+8,8,8", "NX `+8` is not a whole number"),
            ("1,8,8", "NX `1` is not 2 to 4096 samples"),
            ("8,8,4097", "NZ `4097` is not 2 to 4096"),
            ("99999999999999999999999999,8,8", "not 2 to 4096"),
            ("2048,1024,2", "2097152 samples a plane, more than 1048576"),
            ("1024,1024,1025", "more than 1073741824"),
        ] {
            let message = parse_dims(dims).unwrap_err();
            assert!(message.contains(problem), "{dims}: {message}");
            assert!(message.starts_with("--dims: "), "{message}");
        }
        for digits in [40, 5000] {
            let message = parse_dims(&format!("{},2,2", "7".repeat(digits))).unwrap_err();
            assert!(message.chars().count() < 300, "{message}");
            assert!(message.contains(&format!("{}…` ({digits} characters)", "7".repeat(32))));
        }
        let message = parse_dims(&"\u{200b},".repeat(3000)).unwrap_err();
        assert!(
            message.chars().count() < 300 && !message.contains('\n'),
            "{message}"
        );
    }

    #[test]
    fn excerpts_are_short_and_one_line() {
        assert_eq!(excerpt("3,4"), "`3,4`");
        assert_eq!(excerpt("a\nb"), "`a\\nb`");
        let long = excerpt(&"é".repeat(100));
        assert_eq!(long, format!("`{}…` (100 characters)", "é".repeat(32)));
        assert!(excerpt(&"\u{1}".repeat(100)).chars().count() < 60);
    }

    #[test]
    fn a_mesher_name_is_quoted_short() {
        assert_eq!(parse_mesher("marching-cubes"), Ok(Mesher::MarchingCubes));
        let message = parse_mesher(&"x".repeat(5000)).unwrap_err();
        assert!(message.chars().count() < 200, "{message}");
        assert!(
            message.contains("surface-nets, marching-cubes"),
            "{message}"
        );
    }

    #[test]
    fn the_json_bound_holds_for_the_longest_numbers() {
        // The longest f32s serde_json writes, and the largest index the limits allow.
        let longest = [
            -1.175_494_4e-38_f32,
            -1.234_567_9e-30,
            -0.000_012_345_679,
            -4_095.999_8,
        ];
        for value in longest {
            let text = serde_json::to_string(&value).expect("JSON");
            assert!(text.len() <= 16, "{text}");
        }
        let mesh = SurfaceMesh {
            positions: vec![[longest[0]; 3]; 10],
            normals: vec![[longest[1]; 3]; 10],
            indices: vec![LARGEST_VERTICES as u32 - 1; 30],
        };
        let bytes = mesh_json(&mesh).len() as u64;
        assert!(bytes <= 10 * JSON_BYTES_PER_VERTEX + 10 * JSON_BYTES_PER_TRIANGLE + 64);
        assert_eq!((LARGEST_JSON_BYTES + 500_000) / 1_000_000, 323);
    }

    #[test]
    fn the_help_gives_the_limits_values() {
        for value in [
            LARGEST_DIMENSION as u64,
            LARGEST_PLANE as u64,
            LARGEST_GRID_SAMPLES,
            LARGEST_VERTICES as u64,
            LARGEST_TRIANGLES as u64,
        ] {
            assert!(LIMITS_HELP.contains(&value.to_string()), "{value}");
        }
        let megabytes = json_megabytes(Budget::TOOL);
        assert!(LIMITS_HELP.contains(&format!("{megabytes} MB")));
    }
}
