//! The world's chunks around the viewer, prepared for whoever meshes them: which chunks load
//! and unload ([`plan`]), their density grids and sky light filled on the workers
//! ([`prepare`]), and the chunks in play, their light kept for gameplay's
//! [`ChunkStream::light_at`], and what an edit meshes again or only lights again ([`stream`]).
//! Nothing here touches the GPU: the renderer is a [`ChunkSink`] that takes the prepared chunks
//! (`game::render::chunk_meshes` hands them to the engine's `TerrainMeshes`).
//!
//! ```text
//!   frame:  update(viewer) ── plan: unload far chunks ────────────────────────▶ sink.unload
//!                 │             load ≤ budget nearest, in batches of the sink's capacity
//!                 │             ├─ workers: density grids (Air / Solid proven without sampling)
//!                 │             ├─ workers: sky light of the chunks that may have a surface
//!                 │             │  (a thread prepares the next batch while the sink meshes)
//!                 │             ├─ Air / Solid ───────────────────────────────▶ sink.unload
//!                 │             └─ grid + light + coordinate ─────────────────▶ sink.mesh
//!                 │                   light kept for the chunks the sink found a surface in
//!   edit:   edited(changed) ── touched chunks: grids, light ──────────────────▶ sink.mesh
//!                            └─ chunks within the light's margin: light ──────▶ sink.relight
//!   play:   light_at(point) ── the kept light grid, or that chunk's worked out now
//! ```
//!
//! Only chunks with a surface (as the sink found) keep a light grid; a chunk of air or solid
//! ground costs a place in the streamer's set and nothing else.

pub mod plan;
pub mod prepare;
pub mod stream;

pub use plan::{StreamPlan, Streamer, VIEW_RADIUS};
pub use stream::{
    ChunkSink, ChunkStream, EditReport, LightSampler, MeshFailure, StreamCounters, StreamReport,
    SurfaceChunk, LOADS_PER_FRAME,
};
