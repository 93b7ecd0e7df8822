//! Surface nets in compute shaders: the same mesh as [`SurfaceNets`](super::SurfaceNets), made on
//! the GPU from a density grid uploaded through the staging path; and what both compute meshers
//! share (the marching cubes' own passes are in [`super::gpu_marching_cubes`]).
//!
//! ```text
//!   samples ──count──▶ flags ──scan──▶ prefix, counts ──vertices──▶ vertices, vertex offsets
//!   (upload)  per sample:       exclusive sums:         per used cell: one vertex at prefix[cell]
//!             3 edge flags,     vertex index per cell,                  │
//!             1 cell flag       quad index per edge      ──quads──▶ indices
//!                               + indirect draw counts   per owned edge: 6 indices at
//!                                                        6 * prefix[edge]
//! ```
//!
//! Every vertex and index has exactly one writer, at a place given by a prefix sum of integer
//! flags: no atomics, so the output is the same bytes on every run. The flags are laid out in
//! the CPU mesher's sweep order (cells x fastest; edges by sample row, then axis, then x), so
//! the GPU's vertices and triangles also come in the CPU's order. With a skirt
//! ([`GpuMesher::upload_with_skirt`]) the flags are counts: 2 for a cell on the region's border
//! (its vertex and its skirt vertex), 1 + 2 per skirt segment for an edge, so the skirt's
//! vertices and quads land where the CPU puts them too. The vertex pass computes the
//! CPU's arithmetic operation for operation with `precise`, and quads choose their diagonal from
//! the vertices' cell offsets as the CPU does; on an IEEE device (lavapipe) the two meshes are
//! equal to the bit.
//!
//! One mesher holds one set of buffers sized for the largest grid it takes
//! ([`MAX_SAMPLES_PER_AXIS`]³); meshing again overwrites them. Its counts buffer starts with an
//! indexed indirect draw ([`COUNTS_DRAW_OFFSET`]), so its mesh can be drawn without reading it
//! back; [`GpuMesher::read_back`] is for tests and tools. The terrain uses the same passes
//! (`MeshPipelines`) through `super::TerrainMeshes`, which writes into arenas instead.
//!
//! The two meshers differ on the host only in data chosen from the [`Mesher`]: the shaders and
//! pass names, the workgroups per pass, the buffer at binding 3 (the surface nets' vertex
//! offsets, the marching cubes' case table), the buffers' sizes ([`output_bounds`]) and the
//! indices per face. [`GpuMesher`] and [`MeshPipelines`] are one type for both.

use std::sync::Arc;

use crate::gpu::debug::label_colour;
use crate::gpu::descriptors::BufferSetLayout;
use crate::gpu::{
    memory_barrier, read_back_words, vk, Buffer, BufferAccess, BufferDesc, Device, FrameRing, Gpu,
    GpuError, MemoryLocation, Pipeline, PipelineLayout, Uploader,
};
use crate::shaders::LIBRARY;

use super::gpu_marching_cubes as marching_cubes;
use super::marching_cubes::case_table;
use super::{check_skirt, DensityGrid, GridRegion, MeshError, Mesher, SurfaceMesh};

/// The largest grid a mesher takes, per axis: a chunk of 32 cells with one sample of padding on
/// either side.
pub const MAX_SAMPLES_PER_AXIS: usize = 34;

/// Where in the counts buffer the `VkDrawIndexedIndirectCommand` of the mesh lies (bytes).
pub const COUNTS_DRAW_OFFSET: u64 = 0;

/// `u32`s in the counts buffer: the indexed indirect draw (5, its index count first), the vertex
/// count, the quad or triangle count (`COUNT_*` in the shaders).
pub(crate) const COUNT_WORDS: usize = 7;
const COUNT_INDICES: usize = 0;
pub(crate) const COUNT_VERTICES: usize = 5;
const COUNT_FACES: usize = 6;

/// Floats per vertex in the vertex buffer: position xyz, normal xyz.
pub const VERTEX_FLOATS: usize = 6;

/// Invocations per workgroup of the per-sample and per-cell passes (`local_size_x`).
pub(crate) const WORKGROUP_SIZE: u32 = 64;

/// What can go wrong meshing on the GPU: the grid, or the device.
#[derive(Debug, thiserror::Error)]
pub enum GpuMeshError {
    /// The grid or region is one the CPU mesher rejects too.
    #[error(transparent)]
    Grid(#[from] MeshError),
    /// More samples on an axis than the mesher's buffers hold.
    #[error("density grid dimensions {dims:?} exceed the GPU mesher's {max} samples per axis")]
    TooLarge { dims: [usize; 3], max: usize },
    #[error(transparent)]
    Gpu(#[from] GpuError),
}

/// The push constants of every pass (`SurfaceNetsPush` in `shaders/surface_nets.glsl`; the
/// marching cubes' passes read the first four fields).
#[repr(C)]
#[derive(Debug, Clone, Copy, Default, PartialEq, bytemuck::Pod, bytemuck::Zeroable)]
pub(crate) struct SurfaceNetsPush {
    pub(crate) dims: [i32; 4],
    pub(crate) start_min: [i32; 4],
    pub(crate) start_max: [i32; 4],
    /// Where the outputs go: the first vertex, the first index, the draw slot, and 1 to have the
    /// quads pass write the indexed indirect draw into that slot (0: no draw written). All zero
    /// for a mesher's own buffers; [`super::TerrainMeshes`] points them into its arenas.
    pub(crate) output: [u32; 4],
    /// The region's max, not clamped like `start_max`: the skirt's high border (w unused).
    pub(crate) region_max: [i32; 4],
    /// x: the skirt's depth in grid units, 0 for none (the rest unused).
    pub(crate) skirt: [f32; 4],
}

impl SurfaceNetsPush {
    /// The samples per axis.
    pub(crate) fn dims(&self) -> [u64; 3] {
        [0, 1, 2].map(|axis| self.dims[axis] as u64)
    }

    /// Whether the mesh has a skirt.
    pub(crate) fn skirted(&self) -> bool {
        self.skirt[0] > 0.0
    }

    pub(crate) fn samples(&self) -> u32 {
        (self.dims[0] * self.dims[1] * self.dims[2]) as u32
    }

    pub(crate) fn cells(&self) -> u32 {
        ((self.dims[0] - 1) * (self.dims[1] - 1) * (self.dims[2] - 1)) as u32
    }
}

/// The passes in recording order: (shader, pass name).
pub(crate) const PASSES: [(&str, &str); 4] = [
    ("surface_nets_count.comp", "surface nets: count"),
    ("surface_nets_scan.comp", "surface nets: scan"),
    ("surface_nets_vertices.comp", "surface nets: vertices"),
    ("surface_nets_quads.comp", "surface nets: quads"),
];

/// The name of the pass that encloses the four passes of one mesh.
pub const PASS_NAME: &str = "surface nets";

/// `mesher`'s passes in recording order: (shader, pass name).
pub(crate) fn passes(mesher: Mesher) -> &'static [(&'static str, &'static str); 4] {
    match mesher {
        Mesher::SurfaceNets => &PASSES,
        Mesher::MarchingCubes => &marching_cubes::PASSES,
    }
}

/// The name of `mesher`'s enclosing pass, which also begins the names of a single-grid mesher's
/// Vulkan objects and of its passes (`"surface nets: count"`).
pub(crate) fn pass_name(mesher: Mesher) -> &'static str {
    match mesher {
        Mesher::SurfaceNets => PASS_NAME,
        Mesher::MarchingCubes => marching_cubes::PASS_NAME,
    }
}

/// The most a mesher's passes write for one grid: what its output buffers (or arena ranges)
/// must hold, and what counts read back from the GPU may be.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct OutputBounds {
    pub(crate) vertices: u64,
    pub(crate) faces: u64,
    /// Indices per face: 6 per quad, 3 per triangle.
    pub(crate) indices_per_face: u64,
    /// What the faces are, for messages ("quads", "triangles").
    pub(crate) faces_name: &'static str,
}

/// The bounds of `mesher` on a grid of `dims` samples, with or without a skirt. Surface nets: a
/// vertex per cell at most, a quad per edge slot (three per sample); a skirt adds at most a
/// vertex per cell on the grid's six faces of cells (every border cell lies on two planes of
/// cells per axis), and per axis and each of the two planes of edge starts across it, two edge
/// axes' segments of two quads each. Marching cubes (which ignores the skirt): a vertex per
/// edge slot at most, the case table's most triangles per cell.
pub(crate) fn output_bounds(mesher: Mesher, dims: [u64; 3], skirt: bool) -> OutputBounds {
    let samples = dims[0] * dims[1] * dims[2];
    let cell_dims = dims.map(|n| n.saturating_sub(1));
    let cells = cell_dims[0] * cell_dims[1] * cell_dims[2];
    // Per axis, the size of a plane across it.
    let planes = |d: [u64; 3]| d[1] * d[2] + d[0] * d[2] + d[0] * d[1];
    match mesher {
        Mesher::SurfaceNets => {
            let (skirt_vertices, skirt_quads) = if skirt {
                (2 * planes(cell_dims), 2 * 2 * 2 * planes(dims))
            } else {
                (0, 0)
            };
            OutputBounds {
                vertices: cells + skirt_vertices,
                faces: 3 * samples + skirt_quads,
                indices_per_face: 6,
                faces_name: "quads",
            }
        }
        Mesher::MarchingCubes => OutputBounds {
            vertices: 3 * samples,
            faces: cells * case_table().most_triangles() as u64,
            indices_per_face: 3,
            faces_name: "triangles",
        },
    }
}

/// One mesher's four passes' pipelines, their layout, the layout of the set of eight buffers
/// they read and write, and (marching cubes) the case table: the same for a single grid
/// ([`GpuMesher`]) and for the terrain's arenas. A set's bindings: samples, flags, prefix sums,
/// the surface nets' vertex offsets or the marching cubes' [`Self::case_table`], vertices,
/// indices, counts, draws. Both meshers' sets have this shape and their passes the same push
/// constants, so the terrain drives either with the same bookkeeping.
pub(crate) struct MeshPipelines {
    mesher: Mesher,
    pub set_layout: BufferSetLayout,
    pub layout: PipelineLayout,
    pub passes: [Pipeline; 4],
    /// Marching cubes only: [`marching_cubes::case_table_words`] of
    /// [`case_table()`], written once when made (host-visible memory: the host write is visible
    /// to every later submission without a copy or a barrier).
    pub case_table: Option<Buffer>,
}

impl MeshPipelines {
    /// `mesher`'s pipelines (and case table), named `"{owner}: …"` after their passes.
    pub(crate) fn new(device: &Arc<Device>, mesher: Mesher, owner: &str) -> Result<Self, GpuError> {
        let set_layout = BufferSetLayout::new(
            device,
            owner,
            &[vk::DescriptorType::STORAGE_BUFFER; 8],
            vk::ShaderStageFlags::COMPUTE,
            1,
        )?;
        let layout = PipelineLayout::new(
            device,
            owner,
            &[set_layout.raw],
            std::mem::size_of::<SurfaceNetsPush>() as u32,
            vk::ShaderStageFlags::COMPUTE,
        )?;
        let prefix = format!("{}: ", pass_name(mesher));
        let pipeline = |&(shader, name): &(&str, &str)| -> Result<Pipeline, GpuError> {
            let pass = name.trim_start_matches(prefix.as_str());
            Pipeline::compute(
                device,
                &layout,
                &format!("{owner}: {pass}"),
                &LIBRARY.get(shader, device.shader_target())?,
            )
        };
        let [count, scan, vertices, faces] = passes(mesher);
        let passes = [
            pipeline(count)?,
            pipeline(scan)?,
            pipeline(vertices)?,
            pipeline(faces)?,
        ];
        let case_table = match mesher {
            Mesher::SurfaceNets => None,
            Mesher::MarchingCubes => {
                let words = marching_cubes::case_table_words(case_table());
                let mut buffer = Buffer::new(
                    device,
                    &BufferDesc {
                        name: &format!("{owner}: case table"),
                        size: (words.len() * 4) as u64,
                        usage: vk::BufferUsageFlags::STORAGE_BUFFER,
                        location: MemoryLocation::CpuToGpu,
                    },
                )?;
                buffer.write(0, &words)?;
                Some(buffer)
            }
        };
        Ok(Self {
            mesher,
            set_layout,
            layout,
            passes,
            case_table,
        })
    }

    /// Records the passes `passes` (indices into the mesher's [`passes`]: count, scan, vertices,
    /// quads or triangles) over every `(set, push)` of `meshes`: each pass one labelled, timed
    /// pass around the dispatches of every mesh (each with its own set: buffers and output
    /// ranges of its own), with a barrier between one pass's writes and the next one's reads.
    /// The caller orders what came before.
    pub(crate) fn record(
        &self,
        device: &Device,
        frames: &mut FrameRing,
        meshes: &[(vk::DescriptorSet, SurfaceNetsPush)],
        passes: std::ops::Range<usize>,
    ) {
        let command_buffer = frames.command_buffer();
        let first = passes.start;
        for index in passes {
            if index > first {
                memory_barrier(
                    device,
                    command_buffer,
                    &[BufferAccess::ComputeWrite],
                    &[BufferAccess::ComputeRead],
                );
            }
            frames.begin_pass_coloured(self::passes(self.mesher)[index].1, label_colour::COMPUTE);
            self.passes[index].bind(command_buffer);
            for (set, push) in meshes {
                // SAFETY: recording; the sets (of this layout's set layout, or one defined
                // identically) and the layout live as long as their owners, which keep them
                // until their last submission finishes.
                unsafe {
                    device.raw.cmd_bind_descriptor_sets(
                        command_buffer,
                        vk::PipelineBindPoint::COMPUTE,
                        self.layout.raw,
                        0,
                        &[*set],
                        &[],
                    );
                }
                self.layout.push(command_buffer, push);
                let groups = pass_groups(self.mesher, push, index);
                // SAFETY: recording with a compute pipeline of this layout bound, its set
                // bound.
                unsafe { device.raw.cmd_dispatch(command_buffer, groups, 1, 1) };
            }
            frames.end_pass();
        }
    }
}

/// Workgroups of `mesher`'s pass `index` (into its [`passes`]) over the grid `push` describes.
fn pass_groups(mesher: Mesher, push: &SurfaceNetsPush, index: usize) -> u32 {
    match (index, mesher) {
        // Count: one invocation per sample.
        (0, _) => push.samples().div_ceil(WORKGROUP_SIZE),
        // Scan: one workgroup per run of flags, cells then edges.
        (1, _) => 2,
        // Surface nets' vertices: one invocation per cell.
        (2, Mesher::SurfaceNets) => push.cells().div_ceil(WORKGROUP_SIZE),
        // Marching cubes' vertices: one invocation per edge slot, three per sample.
        (2, Mesher::MarchingCubes) => (3 * push.samples()).div_ceil(WORKGROUP_SIZE),
        // Quads: one invocation per sample (three edge slots each).
        (_, Mesher::SurfaceNets) => push.samples().div_ceil(WORKGROUP_SIZE),
        // Triangles: one invocation per cell.
        (_, Mesher::MarchingCubes) => push.cells().div_ceil(WORKGROUP_SIZE),
    }
}

/// A compute-shader mesher (surface nets or marching cubes) with its own output buffers.
pub struct GpuMesher {
    device: Arc<Device>,
    /// The passes (and case table); their set layout owns the pool of `set`.
    pipelines: MeshPipelines,
    set: vk::DescriptorSet,
    samples: Buffer,
    /// Scratch the set points at: flags, their prefix sums, and (surface nets) per-vertex cell
    /// offsets.
    _scratch: Vec<Buffer>,
    vertices: Buffer,
    indices: Buffer,
    counts: Buffer,
    /// The grid of the latest upload.
    push: Option<SurfaceNetsPush>,
    /// The timeline value of the latest submission that used the buffers (0: none): the next
    /// upload overwrites the samples only after it. (Dropping the mesher needs no wait: its
    /// objects go through the device's deferred destruction.)
    last_use: u64,
}

impl GpuMesher {
    /// Makes `mesher`'s pipelines (and case table) and the buffers for grids of up to
    /// [`MAX_SAMPLES_PER_AXIS`]³ samples, named after its pass ([`PASS_NAME`],
    /// [`marching_cubes::PASS_NAME`]).
    pub fn new(device: &Arc<Device>, mesher: Mesher) -> Result<Self, GpuMeshError> {
        let name = pass_name(mesher);
        let max_samples = MAX_SAMPLES_PER_AXIS.pow(3) as u64;
        let max_cells = (MAX_SAMPLES_PER_AXIS - 1).pow(3) as u64;
        let most = output_bounds(mesher, [MAX_SAMPLES_PER_AXIS as u64; 3], true);
        // A flag per cell, then one per edge slot (three per sample).
        let flag_words = max_cells + 3 * max_samples;
        let buffer = |part: &str, size: u64, usage: vk::BufferUsageFlags| {
            Buffer::new(
                device,
                &BufferDesc {
                    name: &format!("{name}: {part}"),
                    size,
                    usage: vk::BufferUsageFlags::STORAGE_BUFFER | usage,
                    location: MemoryLocation::GpuOnly,
                },
            )
        };
        let samples = buffer(
            "samples",
            max_samples * 4,
            vk::BufferUsageFlags::TRANSFER_DST,
        )?;
        let flags = buffer("flags", flag_words * 4, vk::BufferUsageFlags::empty())?;
        let prefix = buffer("prefix sums", flag_words * 4, vk::BufferUsageFlags::empty())?;
        let mut scratch = vec![flags, prefix];
        if mesher == Mesher::SurfaceNets {
            // By cell: a skirt's vertices need none.
            scratch.push(buffer(
                "vertex offsets",
                max_cells * 3 * 4,
                vk::BufferUsageFlags::empty(),
            )?);
        }
        let vertices = buffer(
            "vertices",
            most.vertices * VERTEX_FLOATS as u64 * 4,
            vk::BufferUsageFlags::VERTEX_BUFFER | vk::BufferUsageFlags::TRANSFER_SRC,
        )?;
        let indices = buffer(
            "indices",
            most.faces * most.indices_per_face * 4,
            vk::BufferUsageFlags::INDEX_BUFFER | vk::BufferUsageFlags::TRANSFER_SRC,
        )?;
        let counts = buffer(
            "counts",
            COUNT_WORDS as u64 * 4,
            vk::BufferUsageFlags::INDIRECT_BUFFER | vk::BufferUsageFlags::TRANSFER_SRC,
        )?;

        let pipelines = MeshPipelines::new(device, mesher, name)?;
        // Binding 3: the marching cubes' case table where the surface nets keep their vertex
        // offsets (the third scratch buffer, made above for surface nets alone).
        let third = match &pipelines.case_table {
            Some(table) => table,
            None => &scratch[2],
        };
        let set = pipelines.set_layout.allocate(
            &format!("{name}: buffers"),
            &[
                &samples,
                &scratch[0],
                &scratch[1],
                third,
                &vertices,
                &indices,
                &counts,
                // The draws binding: unused here (the push's output draw flag is 0).
                &counts,
            ],
        )?;
        Ok(Self {
            device: device.clone(),
            pipelines,
            set,
            samples,
            _scratch: scratch,
            vertices,
            indices,
            counts,
            push: None,
            last_use: 0,
        })
    }

    /// Which mesher this is.
    pub fn mesher(&self) -> Mesher {
        self.pipelines.mesher
    }

    /// The mesher's name, which begins its objects' names and messages.
    fn name(&self) -> &'static str {
        pass_name(self.pipelines.mesher)
    }

    /// Checks `grid` and `region` as the CPU mesher does (dimensions, a region inside the grid,
    /// finite samples; the same errors) and stages the samples for the next
    /// [`GpuMesher::record`], without a skirt. Waits first for the mesher's previous
    /// submission, which may still read the buffers.
    pub fn upload(
        &mut self,
        uploader: &mut Uploader,
        grid: DensityGrid<'_>,
        region: GridRegion,
    ) -> Result<(), GpuMeshError> {
        self.upload_with_skirt(uploader, grid, region, 0.0)
    }

    /// [`GpuMesher::upload`] for a mesh with a skirt `skirt` grid units deep, as
    /// [`super::SurfaceNets::mesh_with_skirt`] makes it (0: none; negative or not finite:
    /// [`MeshError::InvalidSkirt`]). The marching cubes ignore the skirt.
    pub fn upload_with_skirt(
        &mut self,
        uploader: &mut Uploader,
        grid: DensityGrid<'_>,
        region: GridRegion,
        skirt: f32,
    ) -> Result<(), GpuMeshError> {
        // From here on the old grid is gone, also when this upload fails.
        self.push = None;
        let push = check_grid(grid, region, skirt)?;
        self.device.wait_for(self.last_use)?;
        let mut batch = uploader.begin(&format!("{}: samples", self.name()));
        batch.buffer(&self.samples, 0, bytemuck::cast_slice(grid.samples()))?;
        self.last_use = batch.submit()?;
        self.push = Some(push);
        Ok(())
    }

    /// Records the four passes over the uploaded grid into the frame being recorded, inside one
    /// labelled, timed pass (the mesher's [`PASS_NAME`] or [`marching_cubes::PASS_NAME`])
    /// holding a labelled, timed pass each. Afterwards the vertex, index and counts buffers are
    /// written (compute-shader writes; the user adds the barrier for its reads).
    ///
    /// The caller keeps the mesher's buffers alone until the frame finishes: no upload into
    /// this mesher before then (meshing through [`GpuMesher::mesh`] takes care of it).
    pub fn record(&self, frames: &mut FrameRing) -> Result<(), GpuMeshError> {
        let push = self.push.ok_or_else(|| {
            GpuError::Invalid(format!(
                "{}: recording without an uploaded grid",
                self.name()
            ))
        })?;
        let device = &self.device;
        let command_buffer = frames.command_buffer();
        frames.begin_pass_coloured(self.name(), label_colour::COMPUTE);
        // The upload's copy (an earlier submission on the same queue) before the first reads;
        // the previous mesh's reads of flags and outputs before this one's writes.
        memory_barrier(
            device,
            command_buffer,
            &[BufferAccess::TransferWrite, BufferAccess::ComputeWrite],
            &[BufferAccess::ComputeRead, BufferAccess::ComputeWrite],
        );
        self.pipelines.record(
            device,
            frames,
            &[(self.set, push)],
            0..self.pipelines.passes.len(),
        );
        frames.end_pass();
        Ok(())
    }

    /// Uploads `grid`, records the passes into a frame of `frames` of their own and submits it.
    /// The frame's timings ([`FrameRing::last_timings`]) hold the passes once it finished.
    pub fn mesh(
        &mut self,
        gpu: &mut Gpu,
        frames: &mut FrameRing,
        grid: DensityGrid<'_>,
        region: GridRegion,
    ) -> Result<(), GpuMeshError> {
        self.mesh_with_skirt(gpu, frames, grid, region, 0.0)
    }

    /// [`GpuMesher::mesh`] with a skirt `skirt` grid units deep ([`GpuMesher::upload_with_skirt`]).
    pub fn mesh_with_skirt(
        &mut self,
        gpu: &mut Gpu,
        frames: &mut FrameRing,
        grid: DensityGrid<'_>,
        region: GridRegion,
        skirt: f32,
    ) -> Result<(), GpuMeshError> {
        self.upload_with_skirt(&mut gpu.uploader, grid, region, skirt)?;
        frames.begin()?;
        if let Err(error) = self.record(frames) {
            frames.abandon()?;
            return Err(error);
        }
        self.last_use = frames.submit(&[], &[])?;
        Ok(())
    }

    /// The counts buffer: an indexed indirect draw at [`COUNTS_DRAW_OFFSET`], then the vertex
    /// count and the quad or triangle count.
    pub fn counts_buffer(&self) -> &Buffer {
        &self.counts
    }

    /// The vertex buffer: [`VERTEX_FLOATS`] floats per vertex, position then normal.
    pub fn vertex_buffer(&self) -> &Buffer {
        &self.vertices
    }

    /// The index buffer: `u32` indices, three per triangle.
    pub fn index_buffer(&self) -> &Buffer {
        &self.indices
    }

    /// Waits for the latest mesh and copies it back to the CPU, in grid units relative to the
    /// grid's sample (0, 0, 0) like the CPU mesher's. For tests and tools: the draw path never
    /// reads meshes back.
    pub fn read_back(&self) -> Result<SurfaceMesh, GpuMeshError> {
        let name = self.name();
        if self.push.is_none() {
            return Err(GpuError::Invalid(format!("{name}: nothing meshed to read back")).into());
        }
        let words = read_back_words(
            &self.device,
            &format!("{name}: readback"),
            &[&self.counts, &self.vertices, &self.indices],
            |_| {},
        )?;
        let [counts, vertices, indices] = <[Vec<u32>; 3]>::try_from(words)
            .map_err(|_| GpuError::Invalid(format!("{name}: readback of 3 buffers")))?;
        let vertex_count = counts[COUNT_VERTICES] as usize;
        let index_count = counts[COUNT_INDICES] as usize;
        let face_count = counts[COUNT_FACES] as usize;
        let bounds = output_bounds(self.mesher(), [MAX_SAMPLES_PER_AXIS as u64; 3], true);
        if vertex_count * VERTEX_FLOATS > vertices.len()
            || index_count > indices.len()
            || index_count as u64 != bounds.indices_per_face * face_count as u64
        {
            return Err(GpuError::Invalid(format!(
                "{name}: counts {vertex_count} vertices, {index_count} indices, {face_count} \
                 {} disagree or overrun the buffers",
                bounds.faces_name
            ))
            .into());
        }
        let floats = &vertices[..vertex_count * VERTEX_FLOATS];
        let mut mesh = SurfaceMesh::new();
        for vertex in floats.chunks_exact(VERTEX_FLOATS) {
            let value = |i: usize| f32::from_bits(vertex[i]);
            mesh.positions.push([value(0), value(1), value(2)]);
            mesh.normals.push([value(3), value(4), value(5)]);
        }
        mesh.indices.extend_from_slice(&indices[..index_count]);
        Ok(mesh)
    }
}

/// The push constants for `grid`, `region` and a skirt `skirt` deep, after the checks of the CPU
/// mesher.
pub(crate) fn check_grid(
    grid: DensityGrid<'_>,
    region: GridRegion,
    skirt: f32,
) -> Result<SurfaceNetsPush, GpuMeshError> {
    let dims = grid.dims();
    if dims.iter().any(|&n| n > MAX_SAMPLES_PER_AXIS) {
        return Err(GpuMeshError::TooLarge {
            dims,
            max: MAX_SAMPLES_PER_AXIS,
        });
    }
    region.check(dims)?;
    check_skirt(skirt)?;
    if let Some(index) = grid.samples().iter().position(|s| !s.is_finite()) {
        return Err(MeshError::NotFinite {
            index,
            position: grid.position_of(index),
            value: grid.samples()[index],
        }
        .into());
    }
    // An edge starting on an axis' last sample either leaves the grid or lacks its cells.
    let start_max = [0, 1, 2].map(|axis| region.max[axis].min(dims[axis] - 1));
    let as_i32 = |values: [usize; 3]| [values[0] as i32, values[1] as i32, values[2] as i32, 0];
    Ok(SurfaceNetsPush {
        dims: as_i32(dims),
        start_min: as_i32(region.min),
        start_max: as_i32(start_max),
        output: [0; 4],
        region_max: as_i32(region.max),
        skirt: [skirt, 0.0, 0.0, 0.0],
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn grids_are_checked_before_anything_reaches_the_gpu() {
        let dims = [MAX_SAMPLES_PER_AXIS; 3];
        let mut samples = vec![1.0f32; MAX_SAMPLES_PER_AXIS.pow(3)];
        let grid = DensityGrid::new(&samples, dims).unwrap();
        let push = check_grid(grid, GridRegion::owned_edges_of_padded_grid(dims), 0.0).unwrap();
        assert_eq!(push.dims, [34, 34, 34, 0]);
        assert_eq!(push.start_min, [1, 1, 1, 0]);
        assert_eq!(push.start_max, [33, 33, 33, 0]);
        assert_eq!(push.samples(), 34 * 34 * 34);
        assert_eq!(push.cells(), 33 * 33 * 33);
        // A whole region's starts stop one short of the last sample, as the CPU's do.
        let push = check_grid(grid, GridRegion::whole(dims), 0.0).unwrap();
        assert_eq!(push.start_min, [0, 0, 0, 0]);
        assert_eq!(push.start_max, [33, 33, 33, 0]);

        let outside = GridRegion {
            min: [2; 3],
            max: [1, 34, 34],
        };
        assert!(matches!(
            check_grid(grid, outside, 0.0),
            Err(GpuMeshError::Grid(MeshError::RegionOutsideGrid { .. }))
        ));

        samples[5] = f32::INFINITY;
        let grid = DensityGrid::new(&samples, dims).unwrap();
        assert!(matches!(
            check_grid(grid, GridRegion::whole(dims), 0.0),
            Err(GpuMeshError::Grid(MeshError::NotFinite { index: 5, .. }))
        ));

        let too_large = [35, 2, 2];
        let samples = vec![0.5f32; 35 * 2 * 2];
        let grid = DensityGrid::new(&samples, too_large).unwrap();
        let error = check_grid(grid, GridRegion::whole(too_large), 0.0).unwrap_err();
        assert!(
            matches!(
                error,
                GpuMeshError::TooLarge {
                    dims: [35, 2, 2],
                    max: 34
                }
            ),
            "{error:?}"
        );
        assert!(error.to_string().contains("34 samples per axis"), "{error}");
    }

    #[test]
    fn skirts_are_checked_before_anything_reaches_the_gpu_and_bound_the_outputs() {
        let dims = [MAX_SAMPLES_PER_AXIS; 3];
        let samples = vec![1.0f32; MAX_SAMPLES_PER_AXIS.pow(3)];
        let grid = DensityGrid::new(&samples, dims).unwrap();
        let region = GridRegion::owned_edges_of_padded_grid(dims);
        for skirt in [f32::NAN, -0.5, f32::INFINITY, f32::NEG_INFINITY] {
            let error = check_grid(grid, region, skirt).unwrap_err();
            assert!(
                matches!(error, GpuMeshError::Grid(MeshError::InvalidSkirt { .. })),
                "{skirt}: {error:?}"
            );
            assert!(error.to_string().contains("skirt depth"), "{error}");
        }
        let push = check_grid(grid, region, 2.5).unwrap();
        assert_eq!(push.skirt, [2.5, 0.0, 0.0, 0.0]);
        assert!(push.skirted());
        assert_eq!(push.region_max, [33, 33, 33, 0]);
        assert!(!check_grid(grid, region, 0.0).unwrap().skirted());
        // The whole region's max is not clamped: no cell lies on its high border.
        let whole = check_grid(grid, GridRegion::whole(dims), 1.0).unwrap();
        assert_eq!(whole.region_max, [34, 34, 34, 0]);
        assert_eq!(whole.start_max, [33, 33, 33, 0]);

        // `SurfaceNetsPush` in engine/shaders/surface_nets.glsl: six 16-byte vectors.
        assert_eq!(std::mem::size_of::<SurfaceNetsPush>(), 96);
        assert_eq!(std::mem::offset_of!(SurfaceNetsPush, region_max), 64);
        assert_eq!(std::mem::offset_of!(SurfaceNetsPush, skirt), 80);

        let plain = output_bounds(Mesher::SurfaceNets, [34; 3], false);
        assert_eq!(plain.vertices, 33 * 33 * 33);
        assert_eq!(plain.faces, 3 * 34 * 34 * 34);
        let skirted = output_bounds(Mesher::SurfaceNets, [34; 3], true);
        assert_eq!(skirted.vertices, 33 * 33 * 33 + 6 * 33 * 33);
        assert_eq!(skirted.faces, 3 * 34 * 34 * 34 + 8 * 3 * 34 * 34);
        assert_eq!(
            output_bounds(Mesher::MarchingCubes, [34; 3], true),
            output_bounds(Mesher::MarchingCubes, [34; 3], false),
            "the marching cubes ignore the skirt"
        );
    }
}
