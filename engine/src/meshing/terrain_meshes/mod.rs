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
//!                   all zero (a draw of nothing)
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
//! The terrain renderer culls the first [`TerrainMeshes::draw_count`] slots on the GPU and
//! copies the visible ones' commands into one list for a single indirect draw with a count
//! (empty slots are all zero and skipped), or, without `drawIndirectCount`, draws each visible
//! chunk from its ranges. What it keeps per slot (the chunk's origin and box) it brings up to
//! date from a journal of the slots whose chunk changed ([`TerrainMeshes::slot_changes_since`],
//! [`TerrainMeshes::slot_key`]): placed, replaced or unloaded, at the cost of the changes.
//!
//! The light arena is the vertex arena's twin: a chunk's vertex range indexes both, so the draw's
//! vertex offset finds a vertex's light as it finds its position. Its light is a trilinear blend
//! of the chunk's light grid (as many samples as the density grid, x fastest) at the vertex's
//! position, by the rule of [`crate::meshing::vertex_light::blend`]; without a grid every vertex
//! gets 1.
//! [`TerrainMeshes::relight`] blends a new grid into a resident chunk's light range without
//! meshing it again.
//!
//! The work is split by job: `resources` makes every buffer, set and pipeline once; `batch` is
//! the size-then-write protocol below; `placement` keeps the arenas' and slots' books; `sync`
//! holds the barriers between the frames; `light` records the light pass (its rule, on the CPU,
//! is `crate::meshing::vertex_light`).
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
//!    buffer; the CPU waits for this frame, once for the batch, and reads them (with a skirt,
//!    [`ChunkToMesh::skirt`], the scan counts its vertices and quads too, so the ranges, the
//!    draw and the light pass cover them);
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
//! all. Batching the waits matters on lavapipe, where a submission and its wait cost a good
//! part of a chunk's GPU work (a chunk's GPU time: `bench gpu-mesh`, BENCHMARKS.md "Terrain
//! meshing"; what batching bought: `bench startup`, docs/performance-history.md).
//!
//! # Safety of reuse
//!
//! Everything goes through the device's one queue. Each batch's size frame starts with a
//! barrier whose source is every earlier use of a buffer (`gpu::barrier::BUFFER_STAGES`), so an arena range freed by an
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

use super::gpu::{GpuMeshError, MeshPipelines, VERTEX_FLOATS};
use super::Mesher;
use super::{DensityGrid, GridRegion};
use crate::gpu::arena::{Arena, ArenaError, ArenaRange};
use crate::gpu::debug::label_colour;
use crate::gpu::descriptors::BufferSetLayout;
use crate::gpu::{
    memory_barrier, read_back_words, vk, Buffer, BufferAccess, Device, FrameRing, GpuError,
};

mod batch;
mod light;
mod placement;
mod resources;
mod sync;

use batch::{check_chunks, check_light};
use light::{light_push, LightPass};
use sync::{after_earlier_work, record_clears, record_visible_to_draws};

/// What names a chunk: opaque to the arenas (a chunk coordinate, say).
pub type ChunkKey = [i32; 4];

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

    /// The first of the arenas' storage buffers (the vertex arena, the index arena, the draw
    /// slots) larger than a device's `maxStorageBufferRange`, as its name and size in bytes, or
    /// `None` when all fit. [`TerrainMeshes::new`] refuses such a desc; callers that size the
    /// arenas from a setting (the view radius) ask first and pick a size that fits.
    pub fn too_large_for(&self, storage_limit: u64) -> Option<(&'static str, u64)> {
        let vertex_bytes = self.vertex_arena_bytes / VERTEX_BYTES * VERTEX_BYTES;
        let index_bytes = self.index_arena_bytes / INDEX_BYTES * INDEX_BYTES;
        let draw_bytes = u64::from(self.max_chunks) * DRAW_BYTES;
        [
            ("vertex arena", vertex_bytes),
            ("index arena", index_bytes),
            ("draw slots", draw_bytes),
        ]
        .into_iter()
        .find(|&(_, bytes)| bytes > storage_limit)
    }
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
    /// The depth of the skirt hanging from the region's border, in grid units, as for
    /// [`super::SurfaceNets::mesh_with_skirt`]: 0 for none; negative or not finite is a
    /// [`super::MeshError::InvalidSkirt`]. The marching cubes ignore it.
    pub skirt: f32,
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

/// One batch slot: the device buffers one chunk of a batch is sized and meshed with, and each
/// mesher's descriptor set over them and the arenas.
struct BatchSlot {
    /// Per mesher ([`Mesher::index`]): samples, flags, prefix sums, the surface nets' vertex
    /// offsets or the marching cubes' case table, the arenas, counts, draw slots.
    sets: [vk::DescriptorSet; 2],
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

/// The vertex, light and index arenas of every resident chunk, with the compute passes that
/// fill them.
pub struct TerrainMeshes {
    device: Arc<Device>,
    /// Each mesher's passes and their layout (their own set layout's pool stays unused), and
    /// the marching cubes' case table, by [`Mesher::index`].
    pipelines: [MeshPipelines; 2],
    /// Which passes mesh the next batches ([`TerrainMeshes::set_mesher`]).
    mesher: Mesher,
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
    /// [`TerrainMeshes::id`].
    id: u64,
    /// Which chunk each draw slot holds, `max_chunks` long.
    slot_keys: Vec<Option<ChunkKey>>,
    /// The residency journal ([`TerrainMeshes::slot_changes_since`]).
    journal: SlotJournal,
}

/// Draw slots whose chunk changed (placed, replaced or unloaded), in order, so that what a
/// renderer keeps per slot (a chunk table) is brought up to date at the cost of the changes, not
/// of the resident chunks. Entries are numbered from 0 since the meshes were made; the oldest
/// are dropped once the journal is much longer than there are slots (a reader that far behind
/// rebuilds everything).
#[derive(Debug, Default)]
pub(crate) struct SlotJournal {
    /// The number of the first entry kept.
    start: u64,
    slots: Vec<u32>,
}

impl SlotJournal {
    fn push(&mut self, slot: u32, max_chunks: u32) {
        self.slots.push(slot);
        let limit = 2 * max_chunks as usize + 64;
        if self.slots.len() > limit {
            let dropped = self.slots.len() / 2;
            self.slots.drain(..dropped);
            self.start += dropped as u64;
        }
    }

    fn end(&self) -> u64 {
        self.start + self.slots.len() as u64
    }

    fn since(&self, cursor: u64) -> Option<&[u32]> {
        let skip = cursor.checked_sub(self.start)?;
        self.slots.get(usize::try_from(skip).ok()?..)
    }
}

/// The draw slots that changed since a reader's cursor ([`TerrainMeshes::slot_changes_since`]).
#[derive(Debug, Clone, Copy)]
pub enum SlotChanges<'a> {
    /// These slots (perhaps repeated) changed; the rest did not.
    Some(&'a [u32]),
    /// The reader is too far behind, or reads other meshes: every slot may have changed.
    All,
}

/// Tells every [`TerrainMeshes`] apart (their journals' cursors are not interchangeable).
static NEXT_MESHES_ID: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(1);

pub(crate) fn next_meshes_id() -> u64 {
    NEXT_MESHES_ID.fetch_add(1, std::sync::atomic::Ordering::Relaxed)
}

impl TerrainMeshes {
    /// Meshes `grid` (its `region` of owned edges, with a skirt `skirt` grid units deep, as
    /// [`super::SurfaceNets::mesh_with_skirt`]; 0 for none) into the
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
    /// [`GpuError::Invalid`], a skirt that is negative or not finite a
    /// [`super::MeshError::InvalidSkirt`], both found before anything reaches the GPU.
    pub fn mesh_chunk(
        &mut self,
        frames: &mut FrameRing,
        key: ChunkKey,
        grid: DensityGrid<'_>,
        region: GridRegion,
        skirt: f32,
        light: Option<&[f32]>,
    ) -> Result<Option<ResidentChunk>, TerrainMeshError> {
        let chunk = ChunkToMesh {
            key,
            grid,
            region,
            skirt,
            light,
        };
        let mut results = self.mesh_chunks(frames, &[chunk])?;
        Ok(results.pop().flatten())
    }

    /// The mesher the next chunks are meshed with (surface nets at first).
    pub fn mesher(&self) -> Mesher {
        self.mesher
    }

    /// Meshes the next chunks with `mesher`. The resident chunks keep the meshes they have
    /// until they are meshed again: both meshers write the same vertex layout into the same
    /// arenas, lit by the same pass and drawn by the same draws.
    pub fn set_mesher(&mut self, mesher: Mesher) {
        self.mesher = mesher;
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
        self.note_slot(chunk.slot, None);
        self.free_ranges(chunk);
        self.release_slot(chunk.slot);
        self.pending_clears.push(chunk.slot);
        true
    }

    /// Unloads every resident chunk (as [`TerrainMeshes::unload`] each): the arenas, the
    /// pipelines and the buffers stay for the next world. Returns how many were resident.
    pub fn unload_all(&mut self) -> usize {
        let keys: Vec<ChunkKey> = self.chunks.keys().copied().collect();
        for key in &keys {
            self.unload(*key);
        }
        keys.len()
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

    /// Which chunk draw slot `slot` holds, if any.
    pub fn slot_key(&self, slot: u32) -> Option<ChunkKey> {
        self.slot_keys.get(slot as usize).copied().flatten()
    }

    /// The journal's cursor after the newest change: pass it to
    /// [`TerrainMeshes::slot_changes_since`] next time, with [`TerrainMeshes::id`].
    pub fn slot_journal_end(&self) -> u64 {
        self.journal.end()
    }

    /// The draw slots whose chunk changed (placed, replaced, unloaded) since `cursor` (a
    /// [`TerrainMeshes::slot_journal_end`] of these meshes, `id`), cheaply: as many as the
    /// changes. [`SlotChanges::All`] when `id` is not these meshes' or the cursor is older than
    /// the journal keeps.
    pub fn slot_changes_since(&self, id: u64, cursor: u64) -> SlotChanges<'_> {
        match self.journal.since(cursor) {
            Some(slots) if id == self.id => SlotChanges::Some(slots),
            _ => SlotChanges::All,
        }
    }

    /// What tells these meshes apart from any other [`TerrainMeshes`] of the process.
    pub fn id(&self) -> u64 {
        self.id
    }

    /// Draw slot `slot` now holds `key` (or nothing): noted in the journal.
    pub(super) fn note_slot(&mut self, slot: u32, key: Option<ChunkKey>) {
        if let Some(held) = self.slot_keys.get_mut(slot as usize) {
            *held = key;
        }
        self.journal.push(slot, self.max_chunks);
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
}

#[cfg(test)]
mod tests {
    use super::resources::{LIGHT_STAGING_OFFSET, STAGING_SLOT_BYTES};
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
    fn a_batch_slots_staging_holds_a_density_grid_and_a_light_grid() {
        // The light half of the staging holds the largest grid, 4-byte aligned for the copy;
        // a batch slot's part of the staging holds both grids.
        assert_eq!(LIGHT_STAGING_OFFSET, 34 * 34 * 34 * 4);
        assert_eq!(STAGING_SLOT_BYTES, 2 * 34 * 34 * 34 * 4);
        assert_eq!(LIGHT_BYTES, 4);
    }
}

#[cfg(test)]
mod journal_tests {
    use super::SlotJournal;

    #[test]
    fn the_journal_gives_the_changes_after_a_cursor_until_it_drops_them() {
        let mut journal = SlotJournal::default();
        assert_eq!(journal.since(0), Some(&[][..]));
        journal.push(3, 4);
        journal.push(1, 4);
        let cursor = journal.end();
        journal.push(2, 4);
        assert_eq!(journal.since(0), Some(&[3, 1, 2][..]));
        assert_eq!(journal.since(cursor), Some(&[2][..]));
        assert_eq!(journal.since(journal.end()), Some(&[][..]));
        assert_eq!(
            journal.since(journal.end() + 1),
            None,
            "a cursor from elsewhere"
        );
        // Far more changes than slots: the oldest go, and a reader that old must rebuild.
        for slot in 0..200 {
            journal.push(slot % 4, 4);
        }
        assert!(journal.slots.len() <= 2 * 4 + 64);
        assert_eq!(journal.since(cursor), None);
        assert_eq!(journal.since(journal.end() - 1), Some(&[199 % 4][..]));
    }
}
