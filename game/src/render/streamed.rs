//! The terrain around the viewer on the GPU: the [`Streamer`]'s plan carried out. Chunks load
//! nearest first, a budget per frame: the workers fill their density grids and sky light, and
//! the compute surface nets mesh the ones with a surface into the [`TerrainMeshes`] arenas.
//! Chunks beyond the radius give their arena ranges back. After a dig or a build the loaded
//! chunks whose grids the edit changed are meshed again before the next frame is drawn, and the
//! chunks whose light it may have changed (within [`MARGIN`] samples) are lit again without
//! meshing.
//!
//! ```text
//!   frame:  update(viewer) ── plan: unload far chunks (ranges freed), load ≤ budget nearest
//!                 │             ├─ workers: density grids (Air / Solid proven without sampling)
//!                 │             ├─ workers: sky light of the chunks with a surface
//!                 │             └─ GPU: mesh each into the arenas (+ its light per vertex)
//!   edit:   edited(changed) ── touched chunks: grids, light, meshed again
//!                            └─ chunks within the light's margin: light again (relight)
//! ```
//!
//! Only chunks with a surface hold arena ranges, a draw slot and a light grid; a chunk of air
//! or solid ground costs a place in the streamer's set and nothing on the GPU.

use std::collections::HashMap;
use std::sync::Arc;
use std::time::{Duration, Instant};

use blockfall_engine::gpu::{Device, FrameRing, GpuError};
use blockfall_engine::meshing::terrain_meshes::ChunkToMesh;
use blockfall_engine::meshing::{
    DensityGrid, GridRegion, TerrainMeshError, TerrainMeshes, TerrainMeshesDesc,
};
use blockfall_engine::workers::WorkerPool;

use crate::terrain::chunks::{classify, generate_chunks, ChunkCoord, ChunkGrid, PADDED_SIZE};
use crate::terrain::edits::SampleBox;
use crate::terrain::light::{light_grid, light_grids, LightGrid, MARGIN};
use crate::terrain::streaming::{StreamPlan, Streamer};
use crate::terrain::{ChunkKind, EditStore, Ground};

/// Chunks loaded per frame by default: a frame stays short while the world fills in.
pub const LOADS_PER_FRAME: usize = 8;

/// What one [`StreamedTerrain::update`] did.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct StreamReport {
    /// Chunks loaded this frame (meshed or proven without a surface), nearest first.
    pub loaded: Vec<ChunkCoord>,
    /// Chunks dropped this frame.
    pub unloaded: Vec<ChunkCoord>,
    /// Of `loaded`, those with a surface: meshed into the arenas.
    pub meshed: Vec<ChunkCoord>,
}

/// What one [`StreamedTerrain::edited`] did.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct EditReport {
    /// Loaded chunks whose grids the edit changed, meshed again (in coordinate order).
    pub remeshed: Vec<ChunkCoord>,
    /// Other resident chunks near enough for their light to change, lit again.
    pub relit: Vec<ChunkCoord>,
}

/// Totals since the start, for the window's title, logs, tests and the startup benchmark. The
/// times overlap where chunks are filled while others are meshed.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct StreamCounters {
    pub loads: u64,
    pub unloads: u64,
    /// Chunks handed to the GPU mesher (those that may hold a surface).
    pub meshes: u64,
    pub relights: u64,
    /// Wall time filling density grids on the workers (the scheduling thread's view).
    pub generate_time: Duration,
    /// Wall time working out sky light on the workers.
    pub light_time: Duration,
    /// Wall time meshing on the GPU, the waits for each batch's counts included.
    pub mesh_time: Duration,
}

/// The chunks around the viewer, meshed on the GPU, with their sky light.
pub struct StreamedTerrain {
    streamer: Streamer,
    meshes: TerrainMeshes,
    lights: HashMap<ChunkCoord, LightGrid>,
    counters: StreamCounters,
}

impl StreamedTerrain {
    /// Arenas sized for `radius` chunks of the default world: the resident chunks (those with
    /// a surface) within a sphere of that radius, with room for edits and a turn of the view.
    pub fn new(device: &Arc<Device>, radius: u32) -> Result<Self, TerrainMeshError> {
        Self::with_arenas(device, radius, Self::arenas_for(radius))
    }

    /// As [`StreamedTerrain::new`], with arenas of the given sizes.
    pub fn with_arenas(
        device: &Arc<Device>,
        radius: u32,
        desc: TerrainMeshesDesc,
    ) -> Result<Self, TerrainMeshError> {
        Ok(Self {
            streamer: Streamer::new(radius),
            meshes: TerrainMeshes::new(device, &desc)?,
            lights: HashMap::new(),
            counters: StreamCounters::default(),
        })
    }

    /// Arena sizes for a view radius: the sphere's chunks (4/3 π r³, plus the hysteresis shell)
    /// of which, in the default world, about one in three has a surface, each with some 1,500
    /// vertices and 8,000 indices on average (caves and cliffs hold more). Sized for every
    /// chunk of the sphere to have a surface at twice the mean, so that no terrain runs out.
    pub fn arenas_for(radius: u32) -> TerrainMeshesDesc {
        let r = f64::from(radius.clamp(1, 64)) + 1.0;
        let chunks = (4.0 / 3.0 * std::f64::consts::PI * r * r * r).ceil() as u64;
        // A third of the sphere's chunks with a surface, at twice the mean mesh.
        let resident = (chunks / 3).max(64);
        TerrainMeshesDesc {
            vertex_arena_bytes: resident * 3_000 * 24,
            index_arena_bytes: resident * 16_000 * 4,
            max_chunks: chunks.min(u64::from(u32::MAX)) as u32,
            ..TerrainMeshesDesc::default()
        }
    }

    /// The arenas, for drawing.
    pub fn meshes(&mut self) -> &mut TerrainMeshes {
        &mut self.meshes
    }

    pub fn counters(&self) -> StreamCounters {
        self.counters
    }

    /// The chunks loaded (with or without a surface), in coordinate order.
    pub fn loaded(&self) -> impl Iterator<Item = ChunkCoord> + '_ {
        self.streamer.loaded()
    }

    /// Chunks with a surface: meshed, lit and drawn.
    pub fn resident_chunks(&self) -> usize {
        self.meshes.resident_chunks()
    }

    /// Whether every chunk within the radius of `viewer` is loaded.
    pub fn is_complete(&self, viewer: [f32; 3]) -> bool {
        self.streamer.missing(viewer) == 0
    }

    /// Chunks within the radius of `viewer` still to load.
    pub fn missing(&self, viewer: [f32; 3]) -> usize {
        self.streamer.missing(viewer)
    }

    /// One frame's streaming around `viewer`: far chunks unloaded, at most `budget` of the
    /// nearest missing ones loaded. On an error the chunks of this frame not yet meshed are
    /// left unloaded, so a later frame tries them again.
    pub fn update<G: Ground + ?Sized>(
        &mut self,
        frames: &mut FrameRing,
        pool: &WorkerPool,
        edits: &EditStore<G>,
        viewer: [f32; 3],
        budget: usize,
    ) -> Result<StreamReport, TerrainMeshError> {
        let StreamPlan { load, unload } = self.streamer.plan(viewer, budget);
        for coord in &unload {
            self.meshes.unload(key(*coord));
            self.lights.remove(coord);
        }
        self.counters.unloads += unload.len() as u64;
        let meshed = match self.load(frames, pool, edits, &load) {
            Ok(meshed) => meshed,
            Err(error) => {
                self.streamer.forget(&load);
                for coord in &load {
                    self.meshes.unload(key(*coord));
                    self.lights.remove(coord);
                }
                return Err(error);
            }
        };
        self.counters.loads += load.len() as u64;
        Ok(StreamReport {
            loaded: load,
            unloaded: unload,
            meshed,
        })
    }

    /// Brings the terrain up to date after an edit that changed the samples in `changed`: the
    /// loaded chunks whose padded grids hold a changed sample are filled and meshed again,
    /// and the other resident chunks within the light's reach are lit again.
    pub fn edited<G: Ground + ?Sized>(
        &mut self,
        frames: &mut FrameRing,
        pool: &WorkerPool,
        edits: &EditStore<G>,
        changed: &SampleBox,
    ) -> Result<EditReport, TerrainMeshError> {
        let remeshed = self.streamer.touched(changed);
        self.load(frames, pool, edits, &remeshed)?;
        // Light flows up to MARGIN samples from where it enters a chunk's box: a change that
        // far from a chunk's padded grid may change its light.
        let reach = SampleBox {
            low: changed.low.map(|c| c.saturating_sub(MARGIN)),
            high: changed.high.map(|c| c.saturating_add(MARGIN)),
        };
        let relit: Vec<ChunkCoord> = self
            .streamer
            .touched(&reach)
            .into_iter()
            .filter(|coord| !remeshed.contains(coord) && self.lights.contains_key(coord))
            .collect();
        let grids = light_grids(pool, edits, &relit);
        for (coord, light) in relit.iter().zip(grids) {
            self.meshes.relight(frames, key(*coord), &light.values)?;
            self.lights.insert(*coord, light);
        }
        self.counters.relights += relit.len() as u64;
        Ok(EditReport { remeshed, relit })
    }

    /// The sky light at a point, as the terrain there is lit: from the chunk's light grid if it
    /// has a surface and is loaded, else worked out for that chunk now (blocks and pieces away
    /// from any surface are rare; air chunks above the ground come out at 1).
    pub fn light_at<G: Ground + ?Sized>(&self, edits: &EditStore<G>, point: [f32; 3]) -> f32 {
        if !point.iter().all(|c| c.is_finite()) {
            return 0.0;
        }
        let coord = ChunkCoord::containing(point);
        match self.lights.get(&coord) {
            Some(grid) => grid.light_at(point),
            None => light_grid(edits, coord).light_at(point),
        }
    }

    /// Fills, lights and meshes `coords` (loaded in the streamer already); returns those with
    /// a surface.
    ///
    /// Many chunks (the start of a run) go through a pipeline: a thread fills and lights the
    /// next batch on the workers while this one drives the GPU mesher, whose wait for each
    /// batch's counts would otherwise leave the cores idle.
    fn load<G: Ground + ?Sized>(
        &mut self,
        frames: &mut FrameRing,
        pool: &WorkerPool,
        edits: &EditStore<G>,
        coords: &[ChunkCoord],
    ) -> Result<Vec<ChunkCoord>, TerrainMeshError> {
        let batches = surface_batches(edits, coords, self.meshes.batch_capacity());
        if batches.len() <= 1 {
            let prepared = prepare(pool, edits, coords);
            return self.mesh_prepared(frames, prepared);
        }
        std::thread::scope(|scope| {
            let (sender, receiver) = crossbeam::channel::bounded(1);
            scope.spawn(move || {
                for batch in batches {
                    // The receiver is gone when meshing failed: stop.
                    if sender.send(prepare(pool, edits, batch)).is_err() {
                        break;
                    }
                }
            });
            let mut meshed = Vec::new();
            for prepared in receiver {
                meshed.extend(self.mesh_prepared(frames, prepared)?);
            }
            Ok(meshed)
        })
    }

    /// Meshes a prepared batch into the arenas; returns the chunks with a surface.
    fn mesh_prepared(
        &mut self,
        frames: &mut FrameRing,
        prepared: Prepared,
    ) -> Result<Vec<ChunkCoord>, TerrainMeshError> {
        let started = Instant::now();
        self.counters.generate_time += prepared.generate_time;
        self.counters.light_time += prepared.light_time;
        let dims = [PADDED_SIZE; 3];
        let region = GridRegion::owned_edges_of_padded_grid(dims);
        let mut mixed = Vec::new();
        for grid in &prepared.grids {
            if grid.kind != ChunkKind::Mixed {
                self.meshes.unload(key(grid.coord));
                self.lights.remove(&grid.coord);
                continue;
            }
            mixed.push(grid);
        }
        assert_eq!(
            mixed.len(),
            prepared.lights.len(),
            "one light grid per mixed chunk"
        );
        let mut chunks = Vec::with_capacity(mixed.len());
        for (grid, light) in mixed.iter().zip(&prepared.lights) {
            let coord = grid.coord;
            let density = DensityGrid::new(&grid.samples, dims).map_err(|error| {
                GpuError::Invalid(format!("chunk {coord:?}'s padded grid: {error}"))
            })?;
            chunks.push(ChunkToMesh {
                key: key(coord),
                grid: density,
                region,
                light: Some(&light.values),
            });
        }
        // One size frame, one wait and one write frame per batch of the arenas' capacity.
        let results = match self.meshes.mesh_chunks(frames, &chunks) {
            Ok(results) => results,
            Err(error) => {
                // The chunks before the one that failed are meshed (as their light now
                // reads), that one perhaps unloaded, those after it untouched.
                let failed = match &error {
                    TerrainMeshError::ArenaFull { key, .. }
                    | TerrainMeshError::TooManyChunks { key, .. } => {
                        chunks.iter().position(|chunk| chunk.key == *key)
                    }
                    _ => None,
                };
                if let Some(failed) = failed {
                    for (index, (grid, light)) in mixed
                        .iter()
                        .zip(prepared.lights)
                        .enumerate()
                        .take(failed + 1)
                    {
                        if self.meshes.chunk(key(grid.coord)).is_none() {
                            self.lights.remove(&grid.coord);
                        } else if index < failed {
                            self.lights.insert(grid.coord, light);
                        }
                    }
                }
                return Err(error);
            }
        };
        self.counters.meshes += results.len() as u64;
        let mut meshed = Vec::new();
        for ((grid, light), resident) in mixed.iter().zip(prepared.lights).zip(results) {
            let coord = grid.coord;
            if resident.is_some() {
                self.lights.insert(coord, light);
                meshed.push(coord);
            } else {
                self.lights.remove(&coord);
            }
        }
        self.counters.mesh_time += started.elapsed();
        Ok(meshed)
    }
}

/// `coords` split, in order, into batches that each hold `per_batch` chunks that may have a
/// surface (the last fewer): each batch then fills one submission of the GPU mesher, and the
/// chunks proven air or solid (most of a view sphere) ride along for free.
fn surface_batches<'a, G: Ground + ?Sized>(
    edits: &EditStore<G>,
    coords: &'a [ChunkCoord],
    per_batch: usize,
) -> Vec<&'a [ChunkCoord]> {
    let per_batch = per_batch.max(1);
    let mut batches = Vec::new();
    let mut start = 0;
    let mut candidates = 0;
    for (index, coord) in coords.iter().enumerate() {
        let proven =
            !edits.has_edits_in(&coord.padded_box()) && classify(edits, *coord) != ChunkKind::Mixed;
        if !proven {
            candidates += 1;
        }
        if candidates == per_batch {
            batches.push(&coords[start..=index]);
            start = index + 1;
            candidates = 0;
        }
    }
    if start < coords.len() {
        batches.push(&coords[start..]);
    }
    batches
}

/// A batch of chunks ready for the GPU: density grids, and light for those that may hold a
/// surface (in the same order).
struct Prepared {
    grids: Vec<ChunkGrid>,
    lights: Vec<LightGrid>,
    generate_time: Duration,
    light_time: Duration,
}

/// Fills and lights `coords` on the workers.
fn prepare<G: Ground + ?Sized>(
    pool: &WorkerPool,
    edits: &EditStore<G>,
    coords: &[ChunkCoord],
) -> Prepared {
    let started = Instant::now();
    let grids = generate_chunks(pool, edits, coords);
    let mixed: Vec<ChunkCoord> = grids
        .iter()
        .filter(|grid| grid.kind == ChunkKind::Mixed)
        .map(|grid| grid.coord)
        .collect();
    let generated = Instant::now();
    let lights = light_grids(pool, edits, &mixed);
    Prepared {
        grids,
        lights,
        generate_time: generated - started,
        light_time: generated.elapsed(),
    }
}

/// The arenas' name for a chunk.
fn key(coord: ChunkCoord) -> [i32; 3] {
    [coord.x, coord.y, coord.z]
}
