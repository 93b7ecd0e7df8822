//! Surface nets in compute shaders: the same mesh as [`SurfaceNets`](super::SurfaceNets), made on
//! the GPU from a density grid uploaded through the staging path.
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
//! the GPU's vertices and triangles also come in the CPU's order. The vertex pass computes the
//! CPU's arithmetic operation for operation with `precise`, and quads choose their diagonal from
//! the vertices' cell offsets as the CPU does; on an IEEE device (lavapipe) the two meshes are
//! equal to the bit.
//!
//! One mesher holds one set of buffers sized for the largest grid it takes
//! ([`MAX_SAMPLES_PER_AXIS`]³); meshing again overwrites them. Its counts buffer starts with an
//! indexed indirect draw ([`COUNTS_DRAW_OFFSET`]), so its mesh can be drawn without reading it
//! back; [`GpuSurfaceNets::read_back`] is for tests and tools. The terrain uses the same passes
//! (`SurfaceNetsPipelines`) through `super::TerrainMeshes`, which writes into arenas instead.

use std::sync::Arc;

use crate::gpu::debug::label_colour;
use crate::gpu::descriptors::BufferSetLayout;
use crate::gpu::{
    memory_barrier, read_back_words, vk, Buffer, BufferAccess, BufferDesc, Device, FrameRing, Gpu,
    GpuError, MemoryLocation, Pipeline, PipelineLayout, Uploader,
};
use crate::shaders::LIBRARY;

use super::{DensityGrid, GridRegion, MeshError, SurfaceMesh};

/// The largest grid a mesher takes, per axis: a chunk of 32 cells with one sample of padding on
/// either side.
pub const MAX_SAMPLES_PER_AXIS: usize = 34;

/// Where in the counts buffer the `VkDrawIndexedIndirectCommand` of the mesh lies (bytes).
pub const COUNTS_DRAW_OFFSET: u64 = 0;

/// `u32`s in the counts buffer: the indexed indirect draw (5), the vertex count, the quad count.
pub(crate) const COUNT_WORDS: usize = 7;
const COUNT_INDICES: usize = 0;
pub(crate) const COUNT_VERTICES: usize = 5;

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

/// The push constants of every pass (`SurfaceNetsPush` in `shaders/surface_nets.glsl`).
#[repr(C)]
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, bytemuck::Pod, bytemuck::Zeroable)]
pub(crate) struct SurfaceNetsPush {
    pub(crate) dims: [i32; 4],
    pub(crate) start_min: [i32; 4],
    pub(crate) start_max: [i32; 4],
    /// Where the outputs go: the first vertex, the first index, the draw slot, and 1 to have the
    /// quads pass write the indexed indirect draw into that slot (0: no draw written). All zero
    /// for a mesher's own buffers; [`super::TerrainMeshes`] points them into its arenas.
    pub(crate) output: [u32; 4],
}

impl SurfaceNetsPush {
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

/// The four passes' pipelines, their layout, and the layout of the set of eight buffers they
/// read and write: the same for a single grid ([`GpuSurfaceNets`]) and for the terrain's arenas.
pub(crate) struct SurfaceNetsPipelines {
    pub set_layout: BufferSetLayout,
    pub layout: PipelineLayout,
    pub passes: [Pipeline; 4],
}

impl SurfaceNetsPipelines {
    /// The pipelines, named `"{owner}: …"` after their passes.
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
            let pass = name.trim_start_matches("surface nets: ");
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
        Ok(Self {
            set_layout,
            layout,
            passes,
        })
    }

    /// Records the passes `passes` (indices into [`PASSES`]: count, scan, vertices, quads)
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
        // Vertices: one invocation per cell.
        2 => push.cells().div_ceil(WORKGROUP_SIZE),
        // Quads: one invocation per sample (three edge slots each).
        _ => push.samples().div_ceil(WORKGROUP_SIZE),
    }
}

/// The name of the pass that encloses the four passes of one mesh.
pub const PASS_NAME: &str = "surface nets";

/// A compute-shader surface-nets mesher with its own output buffers.
pub struct GpuSurfaceNets {
    device: Arc<Device>,
    /// The passes; their set layout owns the pool of `set`.
    pipelines: SurfaceNetsPipelines,
    set: vk::DescriptorSet,
    samples: Buffer,
    /// Scratch the set points at: flags, their prefix sums, per-vertex cell offsets.
    _scratch: [Buffer; 3],
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

impl GpuSurfaceNets {
    /// Makes the pipelines and the buffers for grids of up to [`MAX_SAMPLES_PER_AXIS`]³ samples.
    pub fn new(device: &Arc<Device>) -> Result<Self, GpuMeshError> {
        let max_samples = MAX_SAMPLES_PER_AXIS.pow(3) as u64;
        let max_cells = (MAX_SAMPLES_PER_AXIS - 1).pow(3) as u64;
        // Three edge slots per sample, each at most one quad.
        let max_quads = 3 * max_samples;
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
            "surface nets: samples",
            max_samples * 4,
            vk::BufferUsageFlags::TRANSFER_DST,
        )?;
        let flags = buffer(
            "surface nets: flags",
            (max_cells + max_quads) * 4,
            vk::BufferUsageFlags::empty(),
        )?;
        let prefix = buffer(
            "surface nets: prefix sums",
            (max_cells + max_quads) * 4,
            vk::BufferUsageFlags::empty(),
        )?;
        let vertex_offsets = buffer(
            "surface nets: vertex offsets",
            max_cells * 3 * 4,
            vk::BufferUsageFlags::empty(),
        )?;
        let vertices = buffer(
            "surface nets: vertices",
            max_cells * VERTEX_FLOATS as u64 * 4,
            vk::BufferUsageFlags::VERTEX_BUFFER | vk::BufferUsageFlags::TRANSFER_SRC,
        )?;
        let indices = buffer(
            "surface nets: indices",
            max_quads * 6 * 4,
            vk::BufferUsageFlags::INDEX_BUFFER | vk::BufferUsageFlags::TRANSFER_SRC,
        )?;
        let counts = buffer(
            "surface nets: counts",
            COUNT_WORDS as u64 * 4,
            vk::BufferUsageFlags::INDIRECT_BUFFER | vk::BufferUsageFlags::TRANSFER_SRC,
        )?;

        let pipelines = SurfaceNetsPipelines::new(device, "surface nets")?;
        let set = pipelines.set_layout.allocate(
            "surface nets: buffers",
            &[
                &samples,
                &flags,
                &prefix,
                &vertex_offsets,
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
            _scratch: [flags, prefix, vertex_offsets],
            vertices,
            indices,
            counts,
            push: None,
            last_use: 0,
        })
    }

    /// Checks `grid` and `region` as the CPU mesher does (dimensions, finite samples, a region
    /// inside the grid) and stages the samples for the next [`GpuSurfaceNets::record`]. Waits
    /// first for the mesher's previous submission, which may still read the buffers.
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
        let mut batch = uploader.begin("surface nets: samples");
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
    /// this mesher before then (meshing through [`GpuSurfaceNets::mesh`] takes care of it).
    pub fn record(&self, frames: &mut FrameRing) -> Result<(), GpuMeshError> {
        let push = self.push.ok_or_else(|| {
            GpuError::Invalid("surface nets: recording without an uploaded grid".into())
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
    /// count.
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
                GpuError::Invalid("surface nets: nothing meshed to read back".into()).into(),
            );
        }
        let words = read_back_words(
            &self.device,
            "surface nets: readback",
            &[&self.counts, &self.vertices, &self.indices],
            |_| {},
        )?;
        let [counts, vertices, indices] = <[Vec<u32>; 3]>::try_from(words)
            .map_err(|_| GpuError::Invalid("surface nets: readback of 3 buffers".into()))?;
        let vertex_count = counts[COUNT_VERTICES] as usize;
        let index_count = counts[COUNT_INDICES] as usize;
        if vertex_count * VERTEX_FLOATS > vertices.len() || index_count > indices.len() {
            return Err(GpuError::Invalid(format!(
                "surface nets: counts {vertex_count} vertices, {index_count} indices overrun the \
                 buffers"
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

/// The push constants for `grid` and `region`, after the checks of the CPU mesher.
pub(crate) fn check_grid(
    grid: DensityGrid<'_>,
    region: GridRegion,
) -> Result<SurfaceNetsPush, GpuMeshError> {
    let dims = grid.dims();
    if dims.iter().any(|&n| n > MAX_SAMPLES_PER_AXIS) {
        return Err(GpuMeshError::TooLarge {
            dims,
            max: MAX_SAMPLES_PER_AXIS,
        });
    }
    for axis in 0..3 {
        if region.min[axis] > region.max[axis] || region.max[axis] > dims[axis] {
            return Err(MeshError::RegionOutsideGrid {
                min: region.min,
                max: region.max,
                dims,
            }
            .into());
        }
    }
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
        let push = check_grid(grid, GridRegion::owned_edges_of_padded_grid(dims)).unwrap();
        assert_eq!(push.dims, [34, 34, 34, 0]);
        assert_eq!(push.start_min, [1, 1, 1, 0]);
        assert_eq!(push.start_max, [33, 33, 33, 0]);
        assert_eq!(push.samples(), 34 * 34 * 34);
        assert_eq!(push.cells(), 33 * 33 * 33);
        // A whole region's starts stop one short of the last sample, as the CPU's do.
        let push = check_grid(grid, GridRegion::whole(dims)).unwrap();
        assert_eq!(push.start_min, [0, 0, 0, 0]);
        assert_eq!(push.start_max, [33, 33, 33, 0]);

        let outside = GridRegion {
            min: [2; 3],
            max: [1, 34, 34],
        };
        assert!(matches!(
            check_grid(grid, outside),
            Err(GpuMeshError::Grid(MeshError::RegionOutsideGrid { .. }))
        ));

        samples[5] = f32::INFINITY;
        let grid = DensityGrid::new(&samples, dims).unwrap();
        assert!(matches!(
            check_grid(grid, GridRegion::whole(dims)),
            Err(GpuMeshError::Grid(MeshError::NotFinite { index: 5, .. }))
        ));

        let too_large = [35, 2, 2];
        let samples = vec![0.5f32; 35 * 2 * 2];
        let grid = DensityGrid::new(&samples, too_large).unwrap();
        let error = check_grid(grid, GridRegion::whole(too_large)).unwrap_err();
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
}
