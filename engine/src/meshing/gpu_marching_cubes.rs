//! Marching cubes in compute shaders: the same mesh as [`MarchingCubes`](super::MarchingCubes),
//! made on the GPU from a density grid uploaded through the staging path, as
//! [`GpuSurfaceNets`](super::GpuSurfaceNets) makes the surface nets'.
//!
//! ```text
//!   samples ──count──▶ flags ──scan──▶ prefix, counts ──vertices──▶ vertices
//!   (upload)  per sample:     exclusive sums:         per used edge: its vertex at prefix[slot]
//!             3 edge flags,   vertex index per edge,     │
//!             per cell its    first triangle per cell ──triangles──▶ indices
//!             triangle count  + indirect draw counts     per owned cell: its table triangles
//!                                                        at 3 * prefix[cell]
//! ```
//!
//! The CPU mesher's order was chosen for this: its vertices come by edge slot (sample row, then
//! axis, then x) and its triangles cell by cell (x fastest), each cell's in the case table's
//! order. Both are prefix sums of integer flags laid out in that order, so every vertex and
//! index has exactly one writer and no atomics are needed: the output is the same bytes on
//! every run, and in the CPU's order. An edge's flag is gathered by the edge itself (it changes
//! sign and one of its four cells is owned: the table uses exactly the crossing edges of every
//! configuration), so no pass scatters into another's slots. The vertex pass computes the CPU's
//! arithmetic operation for operation with `precise`; on an IEEE device (lavapipe) the two
//! meshes are equal to the bit.
//!
//! The case table is not typed into the shaders: [`case_table()`] is copied into a buffer when
//! the pipelines are made (`case_table_words` lays it out), so the rule that builds it stays
//! in one place and both meshers read the same triangles.
//!
//! The passes take the surface nets' push constants (`check_grid`): the grid, the box of owned
//! cells' min corners (the CPU's `low` and `high`: the region's min, its max clamped to the last
//! sample), and where the outputs go. Their set has the surface nets' shape too (eight storage
//! buffers, the case table where the surface nets keep their vertex offsets) and their counts
//! buffer the same words (an indexed indirect draw, the vertex count, then the triangle count),
//! so the terrain's arenas can drive either mesher with the same bookkeeping.

use std::sync::Arc;

use crate::gpu::debug::label_colour;
use crate::gpu::descriptors::BufferSetLayout;
use crate::gpu::{
    memory_barrier, read_back_words, vk, Buffer, BufferAccess, BufferDesc, Device, FrameRing, Gpu,
    GpuError, MemoryLocation, Pipeline, PipelineLayout, Uploader,
};
use crate::shaders::LIBRARY;

use super::gpu::{check_grid, GpuMeshError, SurfaceNetsPush, COUNT_WORDS, WORKGROUP_SIZE};
use super::marching_cubes::{case_table, edge_axis, edge_start, CaseTable, EDGES};
use super::{DensityGrid, GridRegion, SurfaceMesh};

/// The surface nets' limits and layouts, which these passes share: the largest grid per axis,
/// where the counts buffer's indexed indirect draw lies (bytes), floats per vertex.
pub use super::gpu::{COUNTS_DRAW_OFFSET, MAX_SAMPLES_PER_AXIS, VERTEX_FLOATS};

/// Words of the counts buffer: the indexed indirect draw (its index count first), the vertex
/// count, the triangle count (`COUNT_*` in `shaders/marching_cubes.glsl`).
const COUNT_INDICES: usize = 0;
pub(crate) const COUNT_VERTICES: usize = 5;
pub(crate) const COUNT_TRIANGLES: usize = 6;

/// Where the case table's parts start in its buffer (`u32` words; `TABLE_*` in
/// `shaders/marching_cubes.glsl`): the geometry of the 12 edges, the 257 starts of the
/// configurations' triangle runs, then the triangles.
pub(crate) const CASE_TABLE_EDGES: usize = 0;
pub(crate) const CASE_TABLE_STARTS: usize = CASE_TABLE_EDGES + EDGES;
pub(crate) const CASE_TABLE_TRIANGLES: usize = CASE_TABLE_STARTS + 257;

/// The passes in recording order: (shader, pass name).
pub(crate) const PASSES: [(&str, &str); 4] = [
    ("marching_cubes_count.comp", "marching cubes: count"),
    ("marching_cubes_scan.comp", "marching cubes: scan"),
    ("marching_cubes_vertices.comp", "marching cubes: vertices"),
    ("marching_cubes_triangles.comp", "marching cubes: triangles"),
];

/// The name of the pass that encloses the four passes of one mesh.
pub const PASS_NAME: &str = "marching cubes";

/// The case table as the shaders read it, one `u32` word each: edge `e`'s start corner (bits
/// 0–2, bit `a` its coordinate on axis `a`) and axis (bits 3–4) at [`CASE_TABLE_EDGES`]` + e`;
/// the configurations' starts at [`CASE_TABLE_STARTS`]; each triangle's three edges, 8 bits
/// each from bit 0, at [`CASE_TABLE_TRIANGLES`]` + t`. The edges' geometry goes with the table
/// so that their numbering, like the table, is the CPU's alone.
pub(crate) fn case_table_words(table: &CaseTable) -> Vec<u32> {
    let mut words = Vec::with_capacity(CASE_TABLE_TRIANGLES + table.triangles.len());
    words.extend((0..EDGES).map(|edge| (edge_start(edge) | edge_axis(edge) << 3) as u32));
    words.extend(table.starts.iter().map(|&start| u32::from(start)));
    words.extend(table.triangles.iter().map(|triangle| {
        triangle
            .iter()
            .rev()
            .fold(0u32, |word, &edge| word << 8 | u32::from(edge))
    }));
    words
}

/// The four passes' pipelines, their layout, the layout of the set of eight buffers they read
/// and write, and the case table they share: the same for a single grid ([`GpuMarchingCubes`])
/// and for the terrain's arenas (as [`super::gpu::SurfaceNetsPipelines`] are for the surface
/// nets). A set's bindings: samples, flags, prefix sums, [`Self::case_table`], vertices,
/// indices, counts, draws.
pub(crate) struct MarchingCubesPipelines {
    pub set_layout: BufferSetLayout,
    pub layout: PipelineLayout,
    pub passes: [Pipeline; 4],
    /// [`case_table_words`] of [`case_table()`], written once when made (host-visible memory:
    /// the host write is visible to every later submission without a copy or a barrier).
    pub case_table: Buffer,
}

impl MarchingCubesPipelines {
    /// The pipelines and the case table, named `"{owner}: …"` after their passes.
    pub(crate) fn new(device: &Arc<Device>, owner: &str) -> Result<Self, GpuError> {
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
        let pipeline = |(shader, name): (&str, &str)| -> Result<Pipeline, GpuError> {
            let pass = name.trim_start_matches("marching cubes: ");
            Pipeline::compute(
                device,
                &layout,
                &format!("{owner}: {pass}"),
                &LIBRARY.get(shader, device.shader_target())?,
            )
        };
        let passes = [
            pipeline(PASSES[0])?,
            pipeline(PASSES[1])?,
            pipeline(PASSES[2])?,
            pipeline(PASSES[3])?,
        ];
        let words = case_table_words(case_table());
        let mut case_table = Buffer::new(
            device,
            &BufferDesc {
                name: &format!("{owner}: case table"),
                size: (words.len() * 4) as u64,
                usage: vk::BufferUsageFlags::STORAGE_BUFFER,
                location: MemoryLocation::CpuToGpu,
            },
        )?;
        case_table.write(0, &words)?;
        Ok(Self {
            set_layout,
            layout,
            passes,
            case_table,
        })
    }

    /// Records the passes `passes` (indices into [`PASSES`]: count, scan, vertices, triangles)
    /// over every `(set, push)` of `meshes`: each pass one labelled, timed pass around the
    /// dispatches of every mesh (each with its own set: buffers and output ranges of its own),
    /// with a barrier between one pass's writes and the next one's reads. The caller orders
    /// what came before.
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
            frames.begin_pass_coloured(PASSES[index].1, label_colour::COMPUTE);
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
                // SAFETY: recording with a compute pipeline of this layout bound, its set
                // bound.
                unsafe {
                    device
                        .raw
                        .cmd_dispatch(command_buffer, pass_groups(push, index), 1, 1)
                };
            }
            frames.end_pass();
        }
    }
}

/// Workgroups of pass `index` (into [`PASSES`]) over the grid `push` describes.
fn pass_groups(push: &SurfaceNetsPush, index: usize) -> u32 {
    match index {
        // Count: one invocation per sample.
        0 => push.samples().div_ceil(WORKGROUP_SIZE),
        // Scan: one workgroup per run of flags, cells then edges.
        1 => 2,
        // Vertices: one invocation per edge slot, three per sample.
        2 => (3 * push.samples()).div_ceil(WORKGROUP_SIZE),
        // Triangles: one invocation per cell.
        _ => push.cells().div_ceil(WORKGROUP_SIZE),
    }
}

/// A compute-shader marching-cubes mesher with its own output buffers.
pub struct GpuMarchingCubes {
    device: Arc<Device>,
    /// The passes and the case table; their set layout owns the pool of `set`.
    pipelines: MarchingCubesPipelines,
    set: vk::DescriptorSet,
    samples: Buffer,
    /// Scratch the set points at: flags and their prefix sums.
    _scratch: [Buffer; 2],
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

impl GpuMarchingCubes {
    /// Makes the pipelines, the case table and the buffers for grids of up to
    /// [`MAX_SAMPLES_PER_AXIS`]³ samples.
    pub fn new(device: &Arc<Device>) -> Result<Self, GpuMeshError> {
        let max_samples = MAX_SAMPLES_PER_AXIS.pow(3) as u64;
        let max_cells = (MAX_SAMPLES_PER_AXIS - 1).pow(3) as u64;
        // Three edge slots per sample, each at most one vertex; each cell at most the table's
        // largest configuration.
        let max_edges = 3 * max_samples;
        let max_triangles = max_cells * case_table().most_triangles() as u64;
        let buffer = |name: &str, size: u64, usage: vk::BufferUsageFlags| {
            Buffer::new(
                device,
                &BufferDesc {
                    name,
                    size,
                    usage: vk::BufferUsageFlags::STORAGE_BUFFER | usage,
                    location: MemoryLocation::GpuOnly,
                },
            )
        };
        let samples = buffer(
            "marching cubes: samples",
            max_samples * 4,
            vk::BufferUsageFlags::TRANSFER_DST,
        )?;
        let flags = buffer(
            "marching cubes: flags",
            (max_cells + max_edges) * 4,
            vk::BufferUsageFlags::empty(),
        )?;
        let prefix = buffer(
            "marching cubes: prefix sums",
            (max_cells + max_edges) * 4,
            vk::BufferUsageFlags::empty(),
        )?;
        let vertices = buffer(
            "marching cubes: vertices",
            max_edges * VERTEX_FLOATS as u64 * 4,
            vk::BufferUsageFlags::VERTEX_BUFFER | vk::BufferUsageFlags::TRANSFER_SRC,
        )?;
        let indices = buffer(
            "marching cubes: indices",
            max_triangles * 3 * 4,
            vk::BufferUsageFlags::INDEX_BUFFER | vk::BufferUsageFlags::TRANSFER_SRC,
        )?;
        let counts = buffer(
            "marching cubes: counts",
            COUNT_WORDS as u64 * 4,
            vk::BufferUsageFlags::INDIRECT_BUFFER | vk::BufferUsageFlags::TRANSFER_SRC,
        )?;

        let pipelines = MarchingCubesPipelines::new(device, "marching cubes")?;
        let set = pipelines.set_layout.allocate(
            "marching cubes: buffers",
            &[
                &samples,
                &flags,
                &prefix,
                &pipelines.case_table,
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
            _scratch: [flags, prefix],
            vertices,
            indices,
            counts,
            push: None,
            last_use: 0,
        })
    }

    /// Checks `grid` and `region` as the CPU mesher does (dimensions, a region inside the grid,
    /// finite samples; the same errors) and stages the samples for the next
    /// [`GpuMarchingCubes::record`]. Waits first for the mesher's previous submission, which may
    /// still read the buffers.
    pub fn upload(
        &mut self,
        uploader: &mut Uploader,
        grid: DensityGrid<'_>,
        region: GridRegion,
    ) -> Result<(), GpuMeshError> {
        // From here on the old grid is gone, also when this upload fails.
        self.push = None;
        let push = check_grid(grid, region)?;
        self.device.wait_for(self.last_use)?;
        let mut batch = uploader.begin("marching cubes: samples");
        batch.buffer(&self.samples, 0, bytemuck::cast_slice(grid.samples()))?;
        self.last_use = batch.submit()?;
        self.push = Some(push);
        Ok(())
    }

    /// Records the four passes over the uploaded grid into the frame being recorded, inside one
    /// labelled, timed pass ([`PASS_NAME`]) holding a labelled, timed pass each. Afterwards the
    /// vertex, index and counts buffers are written (compute-shader writes; the user adds the
    /// barrier for its reads).
    ///
    /// The caller keeps the mesher's buffers alone until the frame finishes: no upload into
    /// this mesher before then (meshing through [`GpuMarchingCubes::mesh`] takes care of it).
    pub fn record(&self, frames: &mut FrameRing) -> Result<(), GpuMeshError> {
        let push = self.push.ok_or_else(|| {
            GpuError::Invalid("marching cubes: recording without an uploaded grid".into())
        })?;
        let device = &self.device;
        let command_buffer = frames.command_buffer();
        frames.begin_pass_coloured(PASS_NAME, label_colour::COMPUTE);
        // The upload's copy (an earlier submission on the same queue) before the first reads;
        // the previous mesh's reads of flags and outputs before this one's writes.
        memory_barrier(
            device,
            command_buffer,
            &[BufferAccess::TransferWrite, BufferAccess::ComputeWrite],
            &[BufferAccess::ComputeRead, BufferAccess::ComputeWrite],
        );
        self.pipelines
            .record(device, frames, &[(self.set, push)], 0..PASSES.len());
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
        self.upload(&mut gpu.uploader, grid, region)?;
        frames.begin()?;
        if let Err(error) = self.record(frames) {
            frames.abandon()?;
            return Err(error);
        }
        self.last_use = frames.submit(&[], &[])?;
        Ok(())
    }

    /// The counts buffer: an indexed indirect draw at [`COUNTS_DRAW_OFFSET`], then the vertex
    /// count and the triangle count.
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
        if self.push.is_none() {
            return Err(
                GpuError::Invalid("marching cubes: nothing meshed to read back".into()).into(),
            );
        }
        let words = read_back_words(
            &self.device,
            "marching cubes: readback",
            &[&self.counts, &self.vertices, &self.indices],
            |_| {},
        )?;
        let [counts, vertices, indices] = <[Vec<u32>; 3]>::try_from(words)
            .map_err(|_| GpuError::Invalid("marching cubes: readback of 3 buffers".into()))?;
        let vertex_count = counts[COUNT_VERTICES] as usize;
        let index_count = counts[COUNT_INDICES] as usize;
        let triangle_count = counts[COUNT_TRIANGLES] as usize;
        if vertex_count * VERTEX_FLOATS > vertices.len()
            || index_count > indices.len()
            || index_count != 3 * triangle_count
        {
            return Err(GpuError::Invalid(format!(
                "marching cubes: counts {vertex_count} vertices, {index_count} indices, \
                 {triangle_count} triangles disagree or overrun the buffers"
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_case_table_words_hold_the_cpu_table_and_edge_numbering() {
        let table = case_table();
        let words = case_table_words(table);
        assert_eq!(
            words.len(),
            CASE_TABLE_TRIANGLES + table.triangles.len(),
            "edges, starts, triangles"
        );
        for edge in 0..EDGES {
            let word = words[CASE_TABLE_EDGES + edge] as usize;
            assert_eq!(word & 7, edge_start(edge), "edge {edge}'s start corner");
            assert_eq!(word >> 3, edge_axis(edge), "edge {edge}'s axis");
        }
        for config in 0..=255u8 {
            let index = CASE_TABLE_STARTS + usize::from(config);
            let (first, last) = (words[index] as usize, words[index + 1] as usize);
            let decoded: Vec<[u8; 3]> = words[CASE_TABLE_TRIANGLES + first..][..last - first]
                .iter()
                .map(|&word| [0, 1, 2].map(|k| (word >> (8 * k)) as u8))
                .collect();
            assert_eq!(
                decoded,
                table.triangles_of(config),
                "configuration {config}"
            );
        }
        assert_eq!(
            words[CASE_TABLE_STARTS + 256] as usize,
            table.triangles.len()
        );
    }
}
