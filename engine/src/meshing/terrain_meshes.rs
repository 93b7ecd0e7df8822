//! The meshes of every resident chunk in three arenas: one vertex buffer, one light buffer and
//! one index buffer, sub-allocated per chunk ([`Arena`]), written by the compute surface nets
//! directly, and drawn through one `VkDrawIndexedIndirectCommand` per chunk that the GPU writes
//! too.
//!
//! ```text
//!   vertex arena  [ chunk a | chunk c |  free  | chunk b |    free     ]   VERTEX_FLOATS floats each
//!   light arena   [ chunk a | chunk c |  free  | chunk b |    free     ]   one f32 each, vertex for
//!                                                                          vertex (one range, two
//!                                                                          buffers)
//!   index arena   [ chunk b | chunk a |   free   | chunk c |   free    ]   u32, relative to the
//!   draw slots    [ draw a | draw b | 0 0 0 0 0 | draw c ]                  chunk's first vertex
//!                   index count, instance count (1), first index, vertex offset, first instance
//!                   (0, valid without drawIndirectFirstInstance); an unloaded chunk's slot is
//!                   all zero, so one
//!                   vkCmdDrawIndexedIndirect over the first `draw_count` slots draws every chunk.
//!
//!   staging       [ density 0 | light 0 ][ density 1 | light 1 ] … [ density K-1 | light K-1 ]
//!                   │ size frame  │ size frame or relight frame      mapped; each half
//!                   ▼             ▼                                  MAX_SAMPLES_PER_AXIS³ f32
//!   batch slot k  samples k, light samples k, flags k, prefix sums k, vertex offsets k, counts k
//!                   (device; K = TerrainMeshesDesc::batch slots, a descriptor set each for the
//!                   surface nets and one for the light pass; relight uses slot 0)
//!   totals        [ vertices 0, quads 0 | vertices 1, quads 1 | … ]  mapped, 2 × K u32
//! ```
//!
//! The light arena is the vertex arena's twin: a chunk's vertex range indexes both, so the draw's
//! vertex offset finds a vertex's light as it finds its position. Its light is a trilinear blend
//! of the chunk's light grid (as many samples as the density grid, x fastest) at the vertex's
//! position, as `LightGrid::light_at` in the game blends it; without a grid every vertex gets 1.
//! [`TerrainMeshes::relight`] blends a new grid into a resident chunk's light range without
//! meshing it again.
//!
//! Loading, remeshing, relighting and unloading chunks creates no Vulkan object and allocates no
//! memory: every buffer is made once in [`TerrainMeshes::new`] (the samples go through a staging
//! buffer of its own, not the shared uploader, whose staging buffers are per batch).
//!
//! # Sizing: count a batch, read back two numbers per chunk, then allocate exactly
//!
//! A chunk's vertex and index counts are only known once the GPU has counted and scanned its
//! flags. [`TerrainMeshes::mesh_chunks`] therefore meshes up to K chunks (a batch,
//! [`TerrainMeshesDesc::batch`]) in two frames, chunk `i` of the batch in batch slot `i`:
//!
//! 1. the **size** frame: upload (staging copies of every chunk's density grid and, if given,
//!    light grid into its slot), **count** every chunk, **scan** every chunk, and copy each
//!    chunk's two totals (vertex and quad count, 8 bytes) into its place in a small mapped
//!    buffer; the CPU waits for this frame, once for the batch, and reads them;
//! 2. in the order of the chunks, ranges of exactly that size are taken from the arenas (as
//!    [`TerrainMeshes::mesh_chunk`] one chunk after another would take them; a chunk without a
//!    surface is unloaded instead); then the **write** frame: **vertices** and **quads** of every
//!    placed chunk write straight into its ranges (the push constants carry the first vertex and
//!    first index), and the quads pass writes the chunk's draw into its slot: index count from
//!    the scan, first index = the index range's start, vertex offset = the vertex range's start
//!    (indices stay relative to the chunk, as the CPU mesher's), instance count 1, first
//!    instance 0. Then **light** reads the new vertices back from the vertex arena and
//!    writes each one's light at the same element of the light arena.
//!
//! More than K chunks go through successive batches. Each pass is one labelled, timed pass
//! around the dispatches of every chunk of the batch, with one barrier between passes.
//!
//! The alternative, taking the worst case (one vertex per cell, a quad per edge slot: 0.86 MB
//! of vertices and 2.8 MB of indices for a 34³ grid) before the GPU has counted, would hold
//! some 70 times what a chunk of the default world needs (about 1,200 vertices and 6,500
//! indices, 55 kB), so the default 32 MiB index arena would take 11 chunks.
//! The price of exact sizes is one wait per batch for a frame of small passes; the write frame,
//! the heavy one, is not waited for. A grid without a surface takes no range and no slot at
//! all. Batching the waits matters on lavapipe, where a submission and its wait cost some
//! 0.5–1 ms against some 3 ms of a chunk's GPU work (2 cores).
//!
//! # Safety of reuse
//!
//! Everything goes through the device's one queue. Each batch's size frame starts with a
//! barrier whose source is every earlier command (`ALL_COMMANDS`), so an arena range freed by an
//! unload or a remesh and handed to a new chunk is only overwritten after every earlier
//! submission — a frame still drawing the old chunk included — is done with it, and a batch
//! slot's samples, light samples and scratch, which the previous batch's write frame reads, are
//! only overwritten once that frame is done with them. The write frame starts with the same
//! barrier. A relight frame too, so it rewrites a light range (and slot 0's light samples) only
//! after the frames drawing it or meshing with them. An unloaded chunk's draw slot is zeroed by
//! a `vkCmdFillBuffer` recorded at the start of the next meshing frame (a slot freed by a
//! batch's chunk without a surface and handed to a later chunk of the same batch: at the start
//! of the write frame, before the quads pass writes the new draw), or earlier by
//! [`TerrainMeshes::record_pending_clears`], which the draw path calls in its frame before the
//! indirect draw. Within a write frame every chunk writes ranges and a slot of its own: the
//! ranges a write frame fills are all taken before it is recorded, and none is given back
//! before it is submitted (a key appears once per call).
//!
//! The staging buffer is host memory, which no barrier orders: the CPU rewrites it only once the
//! latest submission that copies from it has finished. That is a batch's size frame (waited for
//! anyway) or a relight frame (not waited for: the next write into the staging, by a batch's
//! size frame or another relight, waits for it first).

use std::collections::{BTreeSet, HashMap};
use std::sync::Arc;

use crate::gpu::arena::{Arena, ArenaError, ArenaRange};
use crate::gpu::debug::label_colour;
use crate::gpu::descriptors::BufferSetLayout;
use crate::gpu::{
    memory_barrier, read_back_words, vk, Buffer, BufferAccess, BufferDesc, Device, FrameRing,
    GpuError, MemoryLocation, OneTimeCommands, Pipeline, PipelineLayout,
};
use crate::shaders::LIBRARY;

use super::gpu::{
    check_grid, GpuMeshError, SurfaceNetsPipelines, SurfaceNetsPush, COUNT_VERTICES, COUNT_WORDS,
    MAX_SAMPLES_PER_AXIS, VERTEX_FLOATS, WORKGROUP_SIZE,
};
use super::{DensityGrid, GridRegion};

/// What names a chunk: opaque to the arenas (a chunk coordinate, say).
pub type ChunkKey = [i32; 3];

/// Bytes per vertex in the vertex arena: position xyz, normal xyz.
pub const VERTEX_BYTES: u64 = VERTEX_FLOATS as u64 * 4;
/// Bytes per vertex in the light arena: one `f32`, the vertex's sky light in [0, 1].
pub const LIGHT_BYTES: u64 = 4;
/// Bytes per index in the index arena (`u32`).
pub const INDEX_BYTES: u64 = 4;
/// Bytes per draw slot: a `VkDrawIndexedIndirectCommand`, also the stride of the indirect draw.
pub const DRAW_BYTES: u64 = std::mem::size_of::<DrawIndexedIndirect>() as u64;

/// The name of the frame pass that uploads, counts and scans a batch of chunks.
pub const SIZE_PASS_NAME: &str = "terrain meshes: size";
/// The name of the pass (in the size frame) that copies a batch's grids out of the staging.
pub const UPLOAD_PASS_NAME: &str = "terrain meshes: upload";
/// The name of the frame pass that writes a batch's vertices, indices, draws and light into the
/// arenas.
pub const WRITE_PASS_NAME: &str = "terrain meshes: write";
/// The name of the pass (in the write frame, after the vertices and quads, and in a relight
/// frame) that blends a chunk's light grid into its light range.
pub const LIGHT_PASS_NAME: &str = "terrain meshes: light";
/// The name of the frame pass that uploads a new light grid and relights a resident chunk.
pub const RELIGHT_PASS_NAME: &str = "terrain meshes: relight";

/// The light pass's shader.
const LIGHT_SHADER: &str = "surface_nets_light.comp";

/// How large the arenas are and how many chunks may be resident.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TerrainMeshesDesc {
    /// Bytes of the vertex arena (rounded down to whole vertices).
    pub vertex_arena_bytes: u64,
    /// Bytes of the index arena (rounded down to whole indices).
    pub index_arena_bytes: u64,
    /// Draw slots: the most chunks with a surface resident at once.
    pub max_chunks: u32,
    /// K: the most chunks [`TerrainMeshes::mesh_chunks`] sizes in one submission (and one wait)
    /// and writes in the next; at least 1. Each takes a batch slot of scratch buffers, about
    /// 2 MB of device memory and 0.3 MB of staging.
    pub batch: u32,
}

impl TerrainMeshesDesc {
    /// Chunks per batch by default.
    pub const DEFAULT_BATCH: u32 = 8;
}

impl Default for TerrainMeshesDesc {
    fn default() -> Self {
        Self {
            vertex_arena_bytes: 64 << 20,
            index_arena_bytes: 32 << 20,
            max_chunks: 4096,
            batch: Self::DEFAULT_BATCH,
        }
    }
}

/// One chunk for [`TerrainMeshes::mesh_chunks`]: what [`TerrainMeshes::mesh_chunk`] takes.
#[derive(Debug, Clone, Copy)]
pub struct ChunkToMesh<'a> {
    pub key: ChunkKey,
    pub grid: DensityGrid<'a>,
    /// The grid's owned edges, as for [`super::SurfaceNets::mesh`].
    pub region: GridRegion,
    /// A light grid of the density grid's dimensions (x fastest, one finite value per sample),
    /// or `None`: every vertex gets light 1.
    pub light: Option<&'a [f32]>,
}

/// `VkDrawIndexedIndirectCommand`, as the GPU writes it into a slot.
#[repr(C)]
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, bytemuck::Pod, bytemuck::Zeroable)]
pub struct DrawIndexedIndirect {
    pub index_count: u32,
    pub instance_count: u32,
    pub first_index: u32,
    pub vertex_offset: i32,
    pub first_instance: u32,
}

/// Where a resident chunk's mesh lies: ranges in vertices and in indices, and its draw slot.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ResidentChunk {
    pub slot: u32,
    /// In vertices ([`VERTEX_BYTES`] each) of the vertex arena.
    pub vertices: ArenaRange,
    /// In indices of the index arena.
    pub indices: ArenaRange,
}

/// Which arena a chunk did not fit.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ArenaKind {
    Vertex,
    Index,
}

impl ArenaKind {
    fn elements(self) -> &'static str {
        match self {
            Self::Vertex => "vertices",
            Self::Index => "indices",
        }
    }

    fn arena(self) -> &'static str {
        match self {
            Self::Vertex => "vertex",
            Self::Index => "index",
        }
    }
}

/// What can go wrong putting a chunk's mesh into the arenas.
#[derive(Debug, thiserror::Error)]
pub enum TerrainMeshError {
    /// The grid (checked before anything reaches the GPU), or the device.
    #[error(transparent)]
    Mesh(#[from] GpuMeshError),
    /// The mesh does not fit its arena. Nothing changed for that chunk, except when
    /// `previous_dropped`: a remeshed chunk whose new mesh did not fit even in the place of its
    /// old one is unloaded. (For the other chunks of a [`TerrainMeshes::mesh_chunks`] call see
    /// there: those before it are meshed, those after it untouched.)
    #[error(
        "chunk {key:?}: its {count} {} do not fit the {} arena{}: {source}",
        kind.elements(),
        kind.arena(),
        if *previous_dropped { " (its previous mesh is unloaded)" } else { "" }
    )]
    ArenaFull {
        key: ChunkKey,
        kind: ArenaKind,
        count: u64,
        source: ArenaError,
        previous_dropped: bool,
    },
    /// Every draw slot holds a resident chunk.
    #[error("chunk {key:?}: all {max_chunks} draw slots hold resident chunks")]
    TooManyChunks { key: ChunkKey, max_chunks: u32 },
}

impl From<GpuError> for TerrainMeshError {
    fn from(error: GpuError) -> Self {
        Self::Mesh(GpuMeshError::Gpu(error))
    }
}

/// The arenas and draw slots copied back to the CPU ([`TerrainMeshes::read_back`]).
#[derive(Debug, Clone, Default)]
pub struct TerrainReadback {
    /// Every slot, `max_chunks` of them.
    pub draws: Vec<DrawIndexedIndirect>,
    /// The whole vertex arena, [`VERTEX_FLOATS`] floats per vertex.
    pub vertices: Vec<f32>,
    /// The whole light arena, one value per vertex of the vertex arena.
    pub light: Vec<f32>,
    /// The whole index arena.
    pub indices: Vec<u32>,
}

/// The push constants of the light pass (`LightPush` in `shaders/surface_nets_light.comp`).
#[repr(C)]
#[derive(Debug, Clone, Copy, Default, PartialEq, bytemuck::Pod, bytemuck::Zeroable)]
struct LightPush {
    /// Light grid samples per axis (w unused).
    dims: [i32; 4],
    first_vertex: u32,
    vertex_count: u32,
    /// 1: blend the light samples; 0: every vertex gets `constant_light`.
    from_grid: u32,
    constant_light: f32,
}

/// The light pass: reads the vertex arena and a batch slot's light samples, writes the light
/// arena.
struct LightPass {
    /// Owns the pool of `sets`.
    _set_layout: BufferSetLayout,
    layout: PipelineLayout,
    pipeline: Pipeline,
    /// One per batch slot: the vertex arena, the slot's light samples, the light arena.
    sets: Vec<vk::DescriptorSet>,
}

impl LightPass {
    fn new(
        device: &Arc<Device>,
        vertex_buffer: &Buffer,
        light_samples: &[&Buffer],
        light_buffer: &Buffer,
    ) -> Result<Self, GpuError> {
        let set_layout = BufferSetLayout::new(
            device,
            LIGHT_PASS_NAME,
            &[vk::DescriptorType::STORAGE_BUFFER; 3],
            vk::ShaderStageFlags::COMPUTE,
            light_samples.len() as u32,
        )?;
        let layout = PipelineLayout::new(
            device,
            LIGHT_PASS_NAME,
            &[set_layout.raw],
            std::mem::size_of::<LightPush>() as u32,
            vk::ShaderStageFlags::COMPUTE,
        )?;
        let pipeline = Pipeline::compute(
            device,
            &layout,
            LIGHT_PASS_NAME,
            &LIBRARY.get(LIGHT_SHADER, device.shader_target())?,
        )?;
        let sets = light_samples
            .iter()
            .enumerate()
            .map(|(slot, samples)| {
                set_layout.allocate(
                    &format!("{LIGHT_PASS_NAME}: buffers {slot}"),
                    &[vertex_buffer, samples, light_buffer],
                )
            })
            .collect::<Result<Vec<_>, _>>()?;
        Ok(Self {
            _set_layout: set_layout,
            layout,
            pipeline,
            sets,
        })
    }

    /// Records one labelled, timed pass over every `(batch slot, push)` of `lights`: each
    /// chunk's vertices lit from its slot's light samples. The caller orders the vertex and
    /// light-sample writes before it and its light writes before their readers.
    fn record(&self, device: &Device, frames: &mut FrameRing, lights: &[(usize, LightPush)]) {
        let command_buffer = frames.command_buffer();
        frames.begin_pass_coloured(LIGHT_PASS_NAME, label_colour::COMPUTE);
        self.pipeline.bind(command_buffer);
        for (slot, push) in lights {
            // SAFETY: recording; the sets and layout live as long as the meshes, which keep
            // them until their last submission finishes.
            unsafe {
                device.raw.cmd_bind_descriptor_sets(
                    command_buffer,
                    vk::PipelineBindPoint::COMPUTE,
                    self.layout.raw,
                    0,
                    &[self.sets[*slot]],
                    &[],
                );
            }
            self.layout.push(command_buffer, push);
            let groups = push.vertex_count.div_ceil(WORKGROUP_SIZE);
            // SAFETY: recording with a compute pipeline of this layout bound, its set bound.
            unsafe { device.raw.cmd_dispatch(command_buffer, groups, 1, 1) };
        }
        frames.end_pass();
    }
}

/// One batch slot: the device buffers one chunk of a batch is sized and meshed with, and the
/// surface nets' descriptor set over them and the arenas.
struct BatchSlot {
    /// samples, flags, prefix sums, vertex offsets, the arenas, counts, draw slots.
    set: vk::DescriptorSet,
    samples: Buffer,
    /// The light grid of the chunk being meshed (or, in slot 0, relit).
    light_samples: Buffer,
    /// flags, prefix sums, vertex offsets: the set points at them.
    _scratch: [Buffer; 3],
    /// The scan's totals of the slot's chunk.
    counts: Buffer,
}

/// A resident chunk and the dimensions of the grids it was meshed (and is lit) from.
#[derive(Debug, Clone, Copy)]
struct Resident {
    chunk: ResidentChunk,
    dims: [usize; 3],
}

/// Where the light half of a batch slot's part of the staging buffer starts (bytes from the
/// part's start).
const LIGHT_STAGING_OFFSET: u64 =
    (MAX_SAMPLES_PER_AXIS * MAX_SAMPLES_PER_AXIS * MAX_SAMPLES_PER_AXIS) as u64 * 4;

/// Bytes of the staging buffer per batch slot: a density grid and a light grid.
const STAGING_SLOT_BYTES: u64 = 2 * LIGHT_STAGING_OFFSET;

/// The vertex, light and index arenas of every resident chunk, with the compute passes that
/// fill them.
pub struct TerrainMeshes {
    device: Arc<Device>,
    /// The passes and their layout (their own set layout's pool stays unused).
    pipelines: SurfaceNetsPipelines,
    /// Identical to the pipelines' set layout, with a pool of a set per batch slot.
    _slot_set_layout: BufferSetLayout,
    light_pass: LightPass,
    /// K of them, each overwritten by the next batch.
    slots: Vec<BatchSlot>,
    /// Mapped, [`STAGING_SLOT_BYTES`] per batch slot: the density samples of the slot's chunk
    /// being sized, then (at [`LIGHT_STAGING_OFFSET`]) its light samples (in slot 0 also those
    /// of the chunk being relit).
    staging: Buffer,
    /// The timeline value of the latest submission that copies from `staging` (0: none).
    staging_use: u64,
    /// Mapped: the vertex and quad totals of each batch slot copied back, 2 × K `u32`.
    totals: Buffer,
    vertex_buffer: Buffer,
    /// One `f32` per vertex of `vertex_buffer`; its ranges are the vertex arena's.
    light_buffer: Buffer,
    index_buffer: Buffer,
    draw_buffer: Buffer,
    vertex_arena: Arena,
    index_arena: Arena,
    max_chunks: u32,
    /// Slots below `draw_count` that no chunk holds (the highest slot is never free).
    free_slots: BTreeSet<u32>,
    draw_count: u32,
    chunks: HashMap<ChunkKey, Resident>,
    /// Slots of unloaded chunks whose draws are still to be zeroed.
    pending_clears: Vec<u32>,
}

impl TerrainMeshes {
    /// Makes the arenas, the draw slots (zeroed), `desc.batch` batch slots of scratch buffers
    /// for grids of up to [`MAX_SAMPLES_PER_AXIS`]³ samples, the staging for as many grids (and
    /// light grids) and the pipelines. The only Vulkan allocations the arenas ever make.
    pub fn new(device: &Arc<Device>, desc: &TerrainMeshesDesc) -> Result<Self, TerrainMeshError> {
        let vertex_capacity = desc.vertex_arena_bytes / VERTEX_BYTES;
        let index_capacity = desc.index_arena_bytes / INDEX_BYTES;
        let storage_limit = u64::from(device.adapter.limits.max_storage_buffer_range);
        let invalid = |what: String| TerrainMeshError::from(GpuError::Invalid(what));
        if vertex_capacity == 0 || index_capacity == 0 || desc.max_chunks == 0 {
            return Err(invalid(format!(
                "terrain meshes: {desc:?} leaves no room for a single chunk"
            )));
        }
        if desc.batch == 0 {
            return Err(invalid(format!(
                "terrain meshes: {desc:?} has batch 0; a batch meshes at least one chunk"
            )));
        }
        // Draws carry the first vertex as an i32 and the first index as a u32.
        if vertex_capacity > i32::MAX as u64 || index_capacity > u64::from(u32::MAX) {
            return Err(invalid(format!(
                "terrain meshes: {desc:?} has more vertices or indices than a draw can address"
            )));
        }
        let draw_bytes = u64::from(desc.max_chunks) * DRAW_BYTES;
        for (what, bytes) in [
            ("vertex arena", vertex_capacity * VERTEX_BYTES),
            ("index arena", index_capacity * INDEX_BYTES),
            ("draw slots", draw_bytes),
        ] {
            if bytes > storage_limit {
                return Err(invalid(format!(
                    "terrain meshes: the {what} ({bytes} bytes) exceeds the device's storage \
                     buffer range of {storage_limit} bytes"
                )));
            }
        }

        let max_samples = MAX_SAMPLES_PER_AXIS.pow(3) as u64;
        let max_cells = (MAX_SAMPLES_PER_AXIS - 1).pow(3) as u64;
        let max_quads = 3 * max_samples;
        let buffer = |name: &str, size: u64, usage: vk::BufferUsageFlags, location| {
            Buffer::new(
                device,
                &BufferDesc {
                    name,
                    size,
                    usage,
                    location,
                },
            )
        };
        let storage = vk::BufferUsageFlags::STORAGE_BUFFER;
        let gpu_only = MemoryLocation::GpuOnly;
        let batch = u64::from(desc.batch);
        // Per batch slot: density samples, then light samples.
        let staging = buffer(
            "terrain meshes: staging",
            batch * STAGING_SLOT_BYTES,
            vk::BufferUsageFlags::TRANSFER_SRC,
            MemoryLocation::CpuToGpu,
        )?;
        let totals = buffer(
            "terrain meshes: totals readback",
            batch * 8,
            vk::BufferUsageFlags::TRANSFER_DST,
            MemoryLocation::GpuToCpu,
        )?;
        let vertex_buffer = buffer(
            "terrain meshes: vertex arena",
            vertex_capacity * VERTEX_BYTES,
            storage | vk::BufferUsageFlags::VERTEX_BUFFER | vk::BufferUsageFlags::TRANSFER_SRC,
            gpu_only,
        )?;
        let light_buffer = buffer(
            "terrain meshes: light arena",
            vertex_capacity * LIGHT_BYTES,
            storage | vk::BufferUsageFlags::VERTEX_BUFFER | vk::BufferUsageFlags::TRANSFER_SRC,
            gpu_only,
        )?;
        let index_buffer = buffer(
            "terrain meshes: index arena",
            index_capacity * INDEX_BYTES,
            storage | vk::BufferUsageFlags::INDEX_BUFFER | vk::BufferUsageFlags::TRANSFER_SRC,
            gpu_only,
        )?;
        let draw_buffer = buffer(
            "terrain meshes: draw slots",
            draw_bytes,
            storage
                | vk::BufferUsageFlags::INDIRECT_BUFFER
                | vk::BufferUsageFlags::TRANSFER_SRC
                | vk::BufferUsageFlags::TRANSFER_DST,
            gpu_only,
        )?;

        let pipelines = SurfaceNetsPipelines::new(device, "terrain meshes")?;
        // The same bindings as the pipelines' set layout, so its sets bind with their layout.
        let slot_set_layout = BufferSetLayout::new(
            device,
            "terrain meshes: batch slots",
            &[vk::DescriptorType::STORAGE_BUFFER; 8],
            vk::ShaderStageFlags::COMPUTE,
            desc.batch,
        )?;
        let mut slots = Vec::with_capacity(desc.batch as usize);
        for slot in 0..desc.batch {
            let samples = buffer(
                &format!("terrain meshes: samples {slot}"),
                max_samples * 4,
                storage | vk::BufferUsageFlags::TRANSFER_DST,
                gpu_only,
            )?;
            let light_samples = buffer(
                &format!("terrain meshes: light samples {slot}"),
                max_samples * 4,
                storage | vk::BufferUsageFlags::TRANSFER_DST,
                gpu_only,
            )?;
            let flags = buffer(
                &format!("terrain meshes: flags {slot}"),
                (max_cells + max_quads) * 4,
                storage,
                gpu_only,
            )?;
            let prefix = buffer(
                &format!("terrain meshes: prefix sums {slot}"),
                (max_cells + max_quads) * 4,
                storage,
                gpu_only,
            )?;
            let vertex_offsets = buffer(
                &format!("terrain meshes: vertex offsets {slot}"),
                max_cells * 3 * 4,
                storage,
                gpu_only,
            )?;
            let counts = buffer(
                &format!("terrain meshes: counts {slot}"),
                COUNT_WORDS as u64 * 4,
                storage | vk::BufferUsageFlags::TRANSFER_SRC,
                gpu_only,
            )?;
            let set = slot_set_layout.allocate(
                &format!("terrain meshes: buffers {slot}"),
                &[
                    &samples,
                    &flags,
                    &prefix,
                    &vertex_offsets,
                    &vertex_buffer,
                    &index_buffer,
                    &counts,
                    &draw_buffer,
                ],
            )?;
            slots.push(BatchSlot {
                set,
                samples,
                light_samples,
                _scratch: [flags, prefix, vertex_offsets],
                counts,
            });
        }
        let light_samples: Vec<&Buffer> = slots.iter().map(|slot| &slot.light_samples).collect();
        let light_pass = LightPass::new(device, &vertex_buffer, &light_samples, &light_buffer)?;

        // Every slot starts as an empty draw.
        let commands = OneTimeCommands::new(device, "terrain meshes: clear draw slots")?;
        // SAFETY: recording; the buffer is new, has TRANSFER_DST usage and lives past the wait.
        unsafe {
            device.raw.cmd_fill_buffer(
                commands.command_buffer(),
                draw_buffer.raw,
                0,
                vk::WHOLE_SIZE,
                0,
            )
        };
        memory_barrier(
            device,
            commands.command_buffer(),
            &[BufferAccess::ClearWrite],
            &[BufferAccess::Any],
        );
        commands.submit_and_wait()?;

        Ok(Self {
            device: device.clone(),
            pipelines,
            _slot_set_layout: slot_set_layout,
            light_pass,
            slots,
            staging,
            staging_use: 0,
            totals,
            vertex_buffer,
            light_buffer,
            index_buffer,
            draw_buffer,
            vertex_arena: Arena::new(vertex_capacity),
            index_arena: Arena::new(index_capacity),
            max_chunks: desc.max_chunks,
            free_slots: BTreeSet::new(),
            draw_count: 0,
            chunks: HashMap::new(),
            pending_clears: Vec::new(),
        })
    }

    /// Meshes `grid` (its `region` of owned edges, as [`super::SurfaceNets::mesh`]) into the
    /// arenas as chunk `key`, replacing the chunk's previous mesh if it has one, and lights its
    /// vertices from `light`: a light grid of the same dimensions as `grid` (x fastest, one
    /// finite value per density sample), blended trilinearly at each vertex into the light
    /// arena; `None` gives every vertex light 1. Returns where the mesh lies, or `None` when the
    /// grid has no surface in the region: the chunk is then not resident (and costs nothing).
    ///
    /// A batch of one for [`TerrainMeshes::mesh_chunks`]: submits two frames of `frames` and
    /// waits for the first (see the module docs); the second — the vertices, indices, draw and
    /// light — is ordered before anything submitted later on the queue and made visible to
    /// indirect draws, index and vertex reads.
    ///
    /// On an error nothing changed, except as [`TerrainMeshError::ArenaFull`] says. A light
    /// grid of the wrong length or with a value that is not finite is a
    /// [`GpuError::Invalid`], found before anything reaches the GPU.
    pub fn mesh_chunk(
        &mut self,
        frames: &mut FrameRing,
        key: ChunkKey,
        grid: DensityGrid<'_>,
        region: GridRegion,
        light: Option<&[f32]>,
    ) -> Result<Option<ResidentChunk>, TerrainMeshError> {
        let chunk = ChunkToMesh {
            key,
            grid,
            region,
            light,
        };
        let mut results = self.mesh_chunks(frames, &[chunk])?;
        Ok(results.pop().flatten())
    }

    /// Meshes `chunks` into the arenas, each as [`TerrainMeshes::mesh_chunk`] would, in order,
    /// but up to [`TerrainMeshes::batch_capacity`] (K) of them with one size frame, one wait
    /// and one write frame (see the module docs); more go through successive batches. Returns,
    /// for each chunk in order, where its mesh lies, or `None` when its grid has no surface in
    /// its region (the chunk is then not resident: unloaded if it was).
    ///
    /// Every grid and light grid is checked, and the keys too (a key twice in one call is a
    /// [`GpuError::Invalid`]), before anything reaches the GPU: on such an error nothing
    /// changed.
    ///
    /// On an error found after the GPU counted — [`TerrainMeshError::ArenaFull`],
    /// [`TerrainMeshError::TooManyChunks`], totals the grid cannot have — at chunk `i`, the
    /// call stops there, as a loop of [`TerrainMeshes::mesh_chunk`] stopping at the first error
    /// would: chunks `0..i` are meshed (resident where they have a surface, their write frame
    /// submitted; [`TerrainMeshes::chunk`] tells where they lie), chunk `i` is as the error
    /// says (`ArenaFull` with `previous_dropped`: unloaded; else unchanged), and the chunks
    /// after it are untouched (a resident one keeps its previous mesh). Their grids may have
    /// been uploaded and counted, which changes nothing the arenas hold.
    pub fn mesh_chunks(
        &mut self,
        frames: &mut FrameRing,
        chunks: &[ChunkToMesh<'_>],
    ) -> Result<Vec<Option<ResidentChunk>>, TerrainMeshError> {
        let pushes = check_chunks(chunks)?;
        let mut results = Vec::with_capacity(chunks.len());
        let batch = self.slots.len();
        for (chunks, pushes) in chunks.chunks(batch).zip(pushes.chunks(batch)) {
            self.mesh_batch(frames, chunks, pushes, &mut results)?;
        }
        Ok(results)
    }

    /// K: how many chunks [`TerrainMeshes::mesh_chunks`] sizes with one submission and one
    /// wait ([`TerrainMeshesDesc::batch`]).
    pub fn batch_capacity(&self) -> usize {
        self.slots.len()
    }

    /// Blends a new light grid into resident chunk `key`'s light range, from its vertices as
    /// they are (no remeshing). `light` is as for [`TerrainMeshes::mesh_chunk`]: one finite
    /// value per sample of the grid the chunk was meshed from, x fastest. Returns `false`, and
    /// does nothing, when the chunk is not resident.
    ///
    /// Submits one frame of `frames`, not waited for: its upload and light pass come after
    /// every earlier submission on the queue (frames still drawing the chunk included) and its
    /// light is made visible to later vertex reads. On an error nothing changed.
    pub fn relight(
        &mut self,
        frames: &mut FrameRing,
        key: ChunkKey,
        light: &[f32],
    ) -> Result<bool, TerrainMeshError> {
        let Some(resident) = self.chunks.get(&key).copied() else {
            return Ok(false);
        };
        check_light(key, light, resident.dims)?;
        self.stage_light(light)?;
        let command_buffer = frames.begin()?;
        let device = self.device.clone();
        frames.begin_pass_coloured(RELIGHT_PASS_NAME, label_colour::COMPUTE);
        // Everything earlier on the queue (draws reading the light range, earlier light passes
        // reading slot 0's light samples, the writes of the chunk's vertices) before this
        // frame.
        after_earlier_work(&device, command_buffer);
        self.record_light_upload(frames, light);
        memory_barrier(
            &device,
            command_buffer,
            &[BufferAccess::CopyWrite],
            &[BufferAccess::ComputeRead],
        );
        // Slot 0's light samples and set, as staged.
        self.light_pass.record(
            &device,
            frames,
            &[(0, light_push(resident.chunk, resident.dims, true))],
        );
        record_visible_to_draws(&device, command_buffer);
        frames.end_pass();
        self.staging_use = frames.submit(&[], &[])?;
        Ok(true)
    }

    /// Unloads chunk `key`: its ranges go back to the arenas and its slot is freed, its draw
    /// zeroed before the next meshing frame or [`TerrainMeshes::record_pending_clears`].
    /// Returns whether the chunk was resident.
    pub fn unload(&mut self, key: ChunkKey) -> bool {
        let Some(Resident { chunk, .. }) = self.chunks.remove(&key) else {
            return false;
        };
        self.free_ranges(chunk);
        self.release_slot(chunk.slot);
        self.pending_clears.push(chunk.slot);
        true
    }

    /// Records, into a frame that will draw the terrain, the zeroing of the draws of chunks
    /// unloaded since the last meshing frame, and a barrier that orders it before indirect
    /// draws. Records nothing when there is nothing to clear.
    pub fn record_pending_clears(&mut self, command_buffer: vk::CommandBuffer) {
        let pending = std::mem::take(&mut self.pending_clears);
        record_clears(&self.device, command_buffer, &self.draw_buffer, &pending);
    }

    /// Where chunk `key`'s mesh lies, if it is resident.
    pub fn chunk(&self, key: ChunkKey) -> Option<ResidentChunk> {
        self.chunks.get(&key).map(|resident| resident.chunk)
    }

    /// The resident chunks (those with a surface) and where their meshes lie.
    pub fn chunks(&self) -> impl Iterator<Item = (ChunkKey, ResidentChunk)> + '_ {
        self.chunks
            .iter()
            .map(|(&key, resident)| (key, resident.chunk))
    }

    /// How many chunks are resident.
    pub fn resident_chunks(&self) -> usize {
        self.chunks.len()
    }

    /// The vertex arena's bookkeeping, in vertices.
    pub fn vertex_arena(&self) -> &Arena {
        &self.vertex_arena
    }

    /// The index arena's bookkeeping, in indices.
    pub fn index_arena(&self) -> &Arena {
        &self.index_arena
    }

    /// The most chunks resident at once.
    pub fn max_chunks(&self) -> u32 {
        self.max_chunks
    }

    /// Slots free for chunks not yet resident.
    pub fn free_slot_count(&self) -> u32 {
        self.max_chunks - self.chunks.len() as u32
    }

    /// How many slots an indirect draw needs to cover every resident chunk: one past the
    /// highest slot in use (the slots in between that no chunk holds are zero draws).
    pub fn draw_count(&self) -> u32 {
        self.draw_count
    }

    /// The vertex arena: [`VERTEX_FLOATS`] floats per vertex, position (grid units, relative to
    /// the chunk's grid sample (0, 0, 0)) then normal.
    pub fn vertex_buffer(&self) -> &Buffer {
        &self.vertex_buffer
    }

    /// The light arena: one `f32` per vertex of the vertex arena, at the vertex's own element
    /// (a draw's vertex offset applies to both), [`LIGHT_BYTES`] each: the vertex's sky light
    /// in [0, 1].
    pub fn light_buffer(&self) -> &Buffer {
        &self.light_buffer
    }

    /// The index arena: `u32` indices relative to their draw's vertex offset.
    pub fn index_buffer(&self) -> &Buffer {
        &self.index_buffer
    }

    /// The draw slots: [`DrawIndexedIndirect`]s, stride [`DRAW_BYTES`].
    pub fn draw_buffer(&self) -> &Buffer {
        &self.draw_buffer
    }

    /// Waits for the GPU and copies every draw slot and the three whole arenas back (clearing
    /// the draws of unloaded chunks first). For tests and tools: the draw path never reads back.
    pub fn read_back(&mut self) -> Result<TerrainReadback, TerrainMeshError> {
        let pending = std::mem::take(&mut self.pending_clears);
        let words = read_back_words(
            &self.device,
            "terrain meshes: readback",
            &[
                &self.draw_buffer,
                &self.vertex_buffer,
                &self.light_buffer,
                &self.index_buffer,
            ],
            |command_buffer| {
                record_clears(&self.device, command_buffer, &self.draw_buffer, &pending);
            },
        )?;
        let [draws, vertices, light, indices] = <[Vec<u32>; 4]>::try_from(words)
            .map_err(|_| GpuError::Invalid("terrain meshes: readback of 4 buffers".into()))?;
        let floats = |words: &[u32]| words.iter().map(|&bits| f32::from_bits(bits)).collect();
        Ok(TerrainReadback {
            draws: bytemuck::pod_collect_to_vec(&draws),
            vertices: floats(&vertices),
            light: floats(&light),
            indices,
        })
    }

    /// Sizes one batch (at most K chunks, checked, their `pushes` in the same order), places
    /// them in order and writes the placed ones; pushes each chunk's result onto `results`.
    /// Stops at the first chunk that cannot be placed, after submitting the writes of those
    /// before it.
    fn mesh_batch(
        &mut self,
        frames: &mut FrameRing,
        chunks: &[ChunkToMesh<'_>],
        pushes: &[SurfaceNetsPush],
        results: &mut Vec<Option<ResidentChunk>>,
    ) -> Result<(), TerrainMeshError> {
        let totals = self.size(frames, chunks, pushes)?;
        let mut writes = Vec::with_capacity(chunks.len());
        let mut failure = None;
        for (slot, ((chunk, push), [vertex_count, quad_count])) in
            chunks.iter().zip(pushes).zip(totals).enumerate()
        {
            match self.take_place(chunk.key, chunk.grid.dims(), push, vertex_count, quad_count) {
                Ok(None) => results.push(None),
                Ok(Some(resident)) => {
                    results.push(Some(resident));
                    let mut push = *push;
                    push.output = [
                        resident.vertices.offset as u32,
                        resident.indices.offset as u32,
                        resident.slot,
                        1,
                    ];
                    let lighting = light_push(resident, chunk.grid.dims(), chunk.light.is_some());
                    writes.push((slot, push, lighting));
                }
                Err(error) => {
                    failure = Some(error);
                    break;
                }
            }
        }
        if !writes.is_empty() {
            self.write(frames, &writes)?;
        }
        match failure {
            Some(error) => Err(error),
            None => Ok(()),
        }
    }

    /// The size frame: upload (each chunk's density grid, and its light grid if it has one,
    /// into its batch slot), count, scan, and each slot's two totals back to the CPU. Returns
    /// the vertex and quad count of each chunk.
    fn size(
        &mut self,
        frames: &mut FrameRing,
        chunks: &[ChunkToMesh<'_>],
        pushes: &[SurfaceNetsPush],
    ) -> Result<Vec<[u32; 2]>, TerrainMeshError> {
        // The totals buffer was last used by the previous batch's size frame, waited for
        // already; the staging perhaps by a relight frame since, waited for here. The device
        // buffers only need the queue order (barriers below).
        self.device.wait_for(self.staging_use)?;
        for (slot, chunk) in chunks.iter().enumerate() {
            let base = slot as u64 * STAGING_SLOT_BYTES;
            self.staging.write(base, chunk.grid.samples())?;
            if let Some(light) = chunk.light {
                self.staging.write(base + LIGHT_STAGING_OFFSET, light)?;
            }
        }
        let command_buffer = frames.begin()?;
        let device = self.device.clone();
        frames.begin_pass_coloured(SIZE_PASS_NAME, label_colour::COMPUTE);
        self.record_pending_clears(command_buffer);
        // Everything earlier on the queue (draws of freed ranges, the previous batch's passes
        // reading the slots' samples, light samples and scratch) before this batch's writes.
        after_earlier_work(&device, command_buffer);
        frames.begin_pass_coloured(UPLOAD_PASS_NAME, label_colour::TRANSFER);
        for (slot, chunk) in chunks.iter().enumerate() {
            let base = slot as u64 * STAGING_SLOT_BYTES;
            let buffers = &self.slots[slot];
            let grids = [
                Some((chunk.grid.samples(), 0, &buffers.samples)),
                chunk
                    .light
                    .map(|light| (light, LIGHT_STAGING_OFFSET, &buffers.light_samples)),
            ];
            for (values, offset, destination) in grids.into_iter().flatten() {
                let region = vk::BufferCopy {
                    src_offset: base + offset,
                    dst_offset: 0,
                    size: std::mem::size_of_val(values) as u64,
                };
                // SAFETY: recording; both buffers live as long as `self` (dropping waits); the
                // grids were checked to fit a slot's part of the staging and its buffers.
                unsafe {
                    device.raw.cmd_copy_buffer(
                        command_buffer,
                        self.staging.raw,
                        destination.raw,
                        &[region],
                    )
                };
            }
        }
        frames.end_pass();
        memory_barrier(
            &device,
            command_buffer,
            &[BufferAccess::CopyWrite],
            &[BufferAccess::ComputeRead],
        );
        let sized: Vec<(usize, SurfaceNetsPush)> = pushes.iter().copied().enumerate().collect();
        self.record_passes(frames, &sized, 0..2);
        memory_barrier(
            &device,
            command_buffer,
            &[BufferAccess::ComputeWrite],
            &[BufferAccess::CopyRead],
        );
        for slot in 0..chunks.len() {
            let totals = vk::BufferCopy {
                // The vertex count, then the quad count.
                src_offset: COUNT_VERTICES as u64 * 4,
                dst_offset: slot as u64 * 8,
                size: 8,
            };
            // SAFETY: as above; the region lies in both buffers (2 × K words of totals).
            unsafe {
                device.raw.cmd_copy_buffer(
                    command_buffer,
                    self.slots[slot].counts.raw,
                    self.totals.raw,
                    &[totals],
                )
            };
        }
        memory_barrier(
            &device,
            command_buffer,
            &[BufferAccess::CopyWrite],
            &[BufferAccess::HostRead],
        );
        frames.end_pass();
        let submitted = frames.submit(&[], &[])?;
        self.staging_use = submitted;
        device.wait_for(submitted)?;
        let totals: Vec<u32> = self.totals.read::<u32>()?;
        Ok((0..chunks.len())
            .map(|slot| [totals[2 * slot], totals[2 * slot + 1]])
            .collect())
    }

    /// A counted chunk's place: checks the GPU's totals against the grid, unloads the chunk
    /// when it has no surface (`None`), else takes its ranges and slot.
    fn take_place(
        &mut self,
        key: ChunkKey,
        dims: [usize; 3],
        push: &SurfaceNetsPush,
        vertex_count: u32,
        quad_count: u32,
    ) -> Result<Option<ResidentChunk>, TerrainMeshError> {
        if vertex_count > push.cells() || quad_count > 3 * push.samples() {
            return Err(GpuError::Invalid(format!(
                "terrain meshes: chunk {key:?}: the GPU counted {vertex_count} vertices and \
                 {quad_count} quads for a grid of {:?} samples",
                push.dims
            ))
            .into());
        }
        if quad_count == 0 {
            self.unload(key);
            return Ok(None);
        }
        self.place(
            key,
            dims,
            u64::from(vertex_count),
            6 * u64::from(quad_count),
        )
        .map(Some)
    }

    /// The write frame: vertices and quads (and the draw) of each `(batch slot, push, light)`
    /// of `writes` into the arenas at its push's output, then the light of the new vertices
    /// into the light arena.
    fn write(
        &mut self,
        frames: &mut FrameRing,
        writes: &[(usize, SurfaceNetsPush, LightPush)],
    ) -> Result<(), TerrainMeshError> {
        let command_buffer = frames.begin()?;
        let device = self.device.clone();
        frames.begin_pass_coloured(WRITE_PASS_NAME, label_colour::COMPUTE);
        // Slots freed by this batch's chunks without a surface, perhaps handed to later chunks
        // of the batch: zeroed before the quads pass writes the new draws.
        self.record_pending_clears(command_buffer);
        // The size frame's flags, prefix sums and counts; everything earlier on the queue
        // (draws of the ranges these chunks now take) before the writes.
        memory_barrier(
            &device,
            command_buffer,
            &[BufferAccess::AnyWrite],
            &[BufferAccess::ComputeRead, BufferAccess::ComputeWrite],
        );
        let meshes: Vec<(usize, SurfaceNetsPush)> =
            writes.iter().map(|&(slot, push, _)| (slot, push)).collect();
        self.record_passes(frames, &meshes, 2..4);
        // The vertices pass's writes to the vertex arena before the light pass reads them (the
        // light samples were ordered before this frame by the barrier above).
        memory_barrier(
            &device,
            command_buffer,
            &[BufferAccess::ComputeWrite],
            &[BufferAccess::ComputeRead],
        );
        let lights: Vec<(usize, LightPush)> = writes
            .iter()
            .map(|&(slot, _, lighting)| (slot, lighting))
            .collect();
        self.light_pass.record(&device, frames, &lights);
        record_visible_to_draws(&device, command_buffer);
        frames.end_pass();
        frames.submit(&[], &[])?;
        Ok(())
    }

    /// Writes `light` into the light half of batch slot 0's part of the staging, once the
    /// latest submission that copies from the staging has finished.
    fn stage_light(&mut self, light: &[f32]) -> Result<(), TerrainMeshError> {
        self.device.wait_for(self.staging_use)?;
        self.staging.write(LIGHT_STAGING_OFFSET, light)?;
        Ok(())
    }

    /// Records the copy of the light grid staged by [`TerrainMeshes::stage_light`] into batch
    /// slot 0's light samples, as a labelled, timed pass. The caller orders earlier readers of
    /// the light samples before it and the copy before the light pass.
    fn record_light_upload(&self, frames: &mut FrameRing, light: &[f32]) {
        let command_buffer = frames.command_buffer();
        frames.begin_pass_coloured("terrain meshes: upload light", label_colour::TRANSFER);
        let region = vk::BufferCopy {
            src_offset: LIGHT_STAGING_OFFSET,
            dst_offset: 0,
            size: std::mem::size_of_val(light) as u64,
        };
        // SAFETY: recording; both buffers live as long as `self` (dropping waits); the light
        // grid has as many samples as a checked density grid, which fit both the light half of
        // the staging and the light samples.
        unsafe {
            self.device.raw.cmd_copy_buffer(
                command_buffer,
                self.staging.raw,
                self.slots[0].light_samples.raw,
                &[region],
            )
        };
        frames.end_pass();
    }

    /// Records surface-nets passes `passes` (indices into [`super::gpu::PASSES`]) over every
    /// `(batch slot, push)` of `meshes`, each slot with its own descriptor set.
    fn record_passes(
        &self,
        frames: &mut FrameRing,
        meshes: &[(usize, SurfaceNetsPush)],
        passes: std::ops::Range<usize>,
    ) {
        let sets: Vec<(vk::DescriptorSet, SurfaceNetsPush)> = meshes
            .iter()
            .map(|&(slot, push)| (self.slots[slot].set, push))
            .collect();
        self.pipelines.record(&self.device, frames, &sets, passes);
    }

    /// Takes the ranges and slot for chunk `key`'s new mesh, from a grid of `dims` samples,
    /// giving back its old ranges.
    fn place(
        &mut self,
        key: ChunkKey,
        dims: [usize; 3],
        vertex_count: u64,
        index_count: u64,
    ) -> Result<ResidentChunk, TerrainMeshError> {
        let old = self.chunks.get(&key).map(|resident| resident.chunk);
        let slot = match old {
            Some(old) => old.slot,
            None => self.take_slot().ok_or(TerrainMeshError::TooManyChunks {
                key,
                max_chunks: self.max_chunks,
            })?,
        };
        // With the old mesh still in place first, so that a failure leaves it drawn.
        let ranges = match self.allocate(vertex_count, index_count) {
            Ok(ranges) => {
                if let Some(old) = old {
                    self.free_ranges(old);
                }
                ranges
            }
            Err((kind, count, source)) => {
                let Some(old) = old else {
                    self.release_slot(slot);
                    return Err(TerrainMeshError::ArenaFull {
                        key,
                        kind,
                        count,
                        source,
                        previous_dropped: false,
                    });
                };
                // Perhaps it fits where the old mesh was.
                self.free_ranges(old);
                match self.allocate(vertex_count, index_count) {
                    Ok(ranges) => ranges,
                    Err((kind, count, source)) => {
                        self.chunks.remove(&key);
                        self.release_slot(slot);
                        self.pending_clears.push(slot);
                        return Err(TerrainMeshError::ArenaFull {
                            key,
                            kind,
                            count,
                            source,
                            previous_dropped: true,
                        });
                    }
                }
            }
        };
        let chunk = ResidentChunk {
            slot,
            vertices: ranges.0,
            indices: ranges.1,
        };
        self.chunks.insert(key, Resident { chunk, dims });
        Ok(chunk)
    }

    /// A vertex range and an index range, or neither.
    fn allocate(
        &mut self,
        vertex_count: u64,
        index_count: u64,
    ) -> Result<(ArenaRange, ArenaRange), (ArenaKind, u64, ArenaError)> {
        let vertices = self
            .vertex_arena
            .allocate(vertex_count, 1)
            .map_err(|error| (ArenaKind::Vertex, vertex_count, error))?;
        match self.index_arena.allocate(index_count, 1) {
            Ok(indices) => Ok((vertices, indices)),
            Err(error) => {
                if let Err(free_error) = self.vertex_arena.free(vertices) {
                    log::error!("terrain meshes: freeing a vertex range: {free_error}");
                }
                Err((ArenaKind::Index, index_count, error))
            }
        }
    }

    fn free_ranges(&mut self, chunk: ResidentChunk) {
        // Both were allocated from these arenas and are freed once: only a bug here fails.
        if let Err(error) = self.vertex_arena.free(chunk.vertices) {
            log::error!("terrain meshes: freeing a vertex range: {error}");
        }
        if let Err(error) = self.index_arena.free(chunk.indices) {
            log::error!("terrain meshes: freeing an index range: {error}");
        }
    }

    /// The lowest free slot, or a new one at the end.
    fn take_slot(&mut self) -> Option<u32> {
        if let Some(slot) = self.free_slots.pop_first() {
            return Some(slot);
        }
        if self.draw_count < self.max_chunks {
            self.draw_count += 1;
            return Some(self.draw_count - 1);
        }
        None
    }

    fn release_slot(&mut self, slot: u32) {
        self.free_slots.insert(slot);
        // Keep the highest slot in use at `draw_count - 1`.
        while self.draw_count > 0 && self.free_slots.remove(&(self.draw_count - 1)) {
            self.draw_count -= 1;
        }
    }
}

/// The light pass over `chunk`'s vertices, blending a light grid of `dims` samples or, without
/// one, lighting every vertex fully.
fn light_push(chunk: ResidentChunk, dims: [usize; 3], from_grid: bool) -> LightPush {
    LightPush {
        dims: [dims[0] as i32, dims[1] as i32, dims[2] as i32, 0],
        first_vertex: chunk.vertices.offset as u32,
        vertex_count: chunk.vertices.size as u32,
        from_grid: u32::from(from_grid),
        constant_light: 1.0,
    }
}

/// Checks every chunk's grid, region and light grid, and that no key comes twice; returns the
/// push constants of each chunk's grid, in order.
fn check_chunks(chunks: &[ChunkToMesh<'_>]) -> Result<Vec<SurfaceNetsPush>, TerrainMeshError> {
    let mut seen: HashMap<ChunkKey, usize> = HashMap::with_capacity(chunks.len());
    let mut pushes = Vec::with_capacity(chunks.len());
    for (index, chunk) in chunks.iter().enumerate() {
        pushes.push(check_grid(chunk.grid, chunk.region)?);
        if let Some(light) = chunk.light {
            check_light(chunk.key, light, chunk.grid.dims())?;
        }
        if let Some(first) = seen.insert(chunk.key, index) {
            return Err(GpuError::Invalid(format!(
                "terrain meshes: chunk {:?} is both chunk {first} and chunk {index} of one \
                 call; a call meshes a chunk once",
                chunk.key
            ))
            .into());
        }
    }
    Ok(pushes)
}

/// Checks that `light` is a light grid for a density grid of `dims` samples: one finite value
/// per sample.
fn check_light(key: ChunkKey, light: &[f32], dims: [usize; 3]) -> Result<(), GpuError> {
    let expected = dims[0] * dims[1] * dims[2];
    if light.len() != expected {
        return Err(GpuError::Invalid(format!(
            "terrain meshes: chunk {key:?}: the light grid holds {} values but the density grid \
             of {dims:?} samples needs {expected}",
            light.len()
        )));
    }
    if let Some(index) = light.iter().position(|value| !value.is_finite()) {
        let position = [
            index % dims[0],
            index / dims[0] % dims[1],
            index / (dims[0] * dims[1]),
        ];
        return Err(GpuError::Invalid(format!(
            "terrain meshes: chunk {key:?}: light value {index} at (x, y, z) = {position:?} is \
             {}, not a finite number",
            light[index]
        )));
    }
    Ok(())
}

/// Records the barrier that makes a frame's compute writes to the arenas and draw slots visible
/// to the draws (indirect commands, indices, vertex attributes: positions and light) and copies
/// of later submissions.
fn record_visible_to_draws(device: &Device, command_buffer: vk::CommandBuffer) {
    memory_barrier(
        device,
        command_buffer,
        &[BufferAccess::ComputeWrite],
        &[
            BufferAccess::CopyRead,
            BufferAccess::ComputeRead,
            BufferAccess::ComputeWrite,
            BufferAccess::IndirectRead,
            BufferAccess::IndexRead,
            BufferAccess::VertexAttributeRead,
            BufferAccess::VertexShaderRead,
        ],
    );
}

/// Records the zeroing of the draw slots `slots` of `draw_buffer`, ordered after everything
/// earlier and before indirect draws, compute passes and copies; nothing for no slots.
fn record_clears(
    device: &Device,
    command_buffer: vk::CommandBuffer,
    draw_buffer: &Buffer,
    slots: &[u32],
) {
    if slots.is_empty() {
        return;
    }
    memory_barrier(
        device,
        command_buffer,
        &[BufferAccess::AnyWrite],
        &[BufferAccess::ClearWrite],
    );
    for &slot in slots {
        // SAFETY: recording; the slot lies in the draw buffer (slot < max_chunks), which has
        // TRANSFER_DST usage and outlives the submission (its owner waits for its own work);
        // offset and size are multiples of 4.
        unsafe {
            device.raw.cmd_fill_buffer(
                command_buffer,
                draw_buffer.raw,
                u64::from(slot) * DRAW_BYTES,
                DRAW_BYTES,
                0,
            )
        };
    }
    memory_barrier(
        device,
        command_buffer,
        &[BufferAccess::ClearWrite],
        &[
            BufferAccess::CopyRead,
            BufferAccess::ComputeRead,
            BufferAccess::ComputeWrite,
            BufferAccess::IndirectRead,
        ],
    );
}

/// Orders everything earlier on the queue — draws of ranges handed out again, earlier passes
/// reading the samples, scratch and light samples — before a meshing frame's copies and
/// compute passes write.
fn after_earlier_work(device: &Device, command_buffer: vk::CommandBuffer) {
    memory_barrier(
        device,
        command_buffer,
        &[BufferAccess::AnyWrite],
        &[
            BufferAccess::CopyWrite,
            BufferAccess::ComputeRead,
            BufferAccess::ComputeWrite,
        ],
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_draw_command_layout_is_vulkans() {
        assert_eq!(
            DRAW_BYTES,
            std::mem::size_of::<vk::DrawIndexedIndirectCommand>() as u64
        );
        assert_eq!(
            std::mem::offset_of!(DrawIndexedIndirect, vertex_offset),
            std::mem::offset_of!(vk::DrawIndexedIndirectCommand, vertex_offset)
        );
        assert_eq!(
            std::mem::offset_of!(DrawIndexedIndirect, first_instance),
            std::mem::offset_of!(vk::DrawIndexedIndirectCommand, first_instance)
        );
    }

    #[test]
    fn the_light_push_constants_are_the_shaders() {
        // `LightPush` in shaders/surface_nets_light.comp: an ivec4, then three uints and a
        // float, std430-packed.
        assert_eq!(std::mem::size_of::<LightPush>(), 32);
        assert_eq!(std::mem::offset_of!(LightPush, first_vertex), 16);
        assert_eq!(std::mem::offset_of!(LightPush, vertex_count), 20);
        assert_eq!(std::mem::offset_of!(LightPush, from_grid), 24);
        assert_eq!(std::mem::offset_of!(LightPush, constant_light), 28);
        // The light half of the staging holds the largest grid, 4-byte aligned for the copy;
        // a batch slot's part of the staging holds both grids.
        assert_eq!(LIGHT_STAGING_OFFSET, 34 * 34 * 34 * 4);
        assert_eq!(STAGING_SLOT_BYTES, 2 * 34 * 34 * 34 * 4);
        assert_eq!(LIGHT_BYTES, 4);
    }
}
