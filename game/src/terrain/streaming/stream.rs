//! The chunks in play around the viewer: the [`Streamer`]'s plan carried out with chunks
//! prepared on the workers ([`super::prepare`]) and handed to a [`ChunkSink`] (the renderer's
//! meshes), the light of the chunks with a surface kept for [`ChunkStream::light_at`], and an
//! edit's consequences decided: the loaded chunks whose grids it changed are prepared and
//! meshed again, the ones whose light it may have changed (within [`MARGIN`] samples) are only
//! lit again.

use std::cell::RefCell;
use std::collections::{HashMap, HashSet};
use std::time::{Duration, Instant};

use blockfall_meshing::Mesher;
use blockfall_physics::workers::WorkerPool;

use super::plan::{StreamPlan, Streamer};
use super::prepare::{prepare_batches, Prepared};

use crate::terrain::chunks::{ChunkCoord, ChunkGrid};
use crate::terrain::edits::SampleBox;
use crate::terrain::sky_light::{light_grid, light_grids, LightGrid, MARGIN};
use crate::terrain::{ChunkKind, EditStore, Ground};

/// Chunks loaded per frame by default: a frame stays short while the world fills in.
pub const LOADS_PER_FRAME: usize = 8;

/// How many times a frame's load budget goes to meshing loaded chunks again after a change of
/// mesher ([`ChunkStream::remesh_all`]): every one of those has a surface (most loads are air
/// or solid, proven so cheaply), and the old meshes stay on screen meanwhile, so the switch
/// takes larger bites. With 4, the 535 resident chunks of the default radius are meshed again
/// in 17 frames (BENCHMARKS.md, "Terrain meshing").
pub const REMESH_BUDGET_FACTOR: usize = 4;

/// A prepared chunk that may hold a surface: its padded density grid and, at full detail, its
/// sky light (a coarser chunk is lit as open sky).
#[derive(Debug, Clone, Copy)]
pub struct SurfaceChunk<'a> {
    pub grid: &'a ChunkGrid,
    pub light: Option<&'a LightGrid>,
}

/// Why [`ChunkSink::mesh`] stopped.
#[derive(Debug)]
pub struct MeshFailure<E> {
    pub error: E,
    /// The index of the chunk it failed at, when known: the chunks before it are meshed, it
    /// perhaps dropped, those after it untouched. `None`: no chunk of the call was touched.
    pub failed: Option<usize>,
}

/// Where prepared chunks go: the renderer's meshes (`game::render::chunk_meshes`), which keep
/// a chunk only when they find a surface in it.
pub trait ChunkSink {
    type Error;

    /// How many chunks [`ChunkSink::mesh`] takes at once at best: the batches the workers
    /// prepare each hold that many that may have a surface.
    fn batch_capacity(&self) -> usize;

    /// Drops chunk `coord`'s mesh, if it has one (unloaded, or proven air or solid ground).
    fn unload(&mut self, coord: ChunkCoord);

    /// Meshes `chunks`, in order, in place of any mesh they had; returns, for each, whether it
    /// has a surface (and is kept) now.
    fn mesh(&mut self, chunks: &[SurfaceChunk<'_>]) -> Result<Vec<bool>, MeshFailure<Self::Error>>;

    /// Whether chunk `coord` has a mesh.
    fn is_resident(&self, coord: ChunkCoord) -> bool;

    /// Lights chunk `coord`'s mesh again with `light`, its geometry as it is.
    fn relight(&mut self, coord: ChunkCoord, light: &LightGrid) -> Result<(), Self::Error>;
}

/// What one [`ChunkStream::update`] did.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct StreamReport {
    /// Chunks loaded this frame (meshed or proven without a surface), nearest first.
    pub loaded: Vec<ChunkCoord>,
    /// Chunks dropped this frame.
    pub unloaded: Vec<ChunkCoord>,
    /// Of `loaded`, those with a surface: meshed into the arenas.
    pub meshed: Vec<ChunkCoord>,
    /// Loaded chunks meshed again this frame from the queue [`ChunkStream::remesh_all`] fills
    /// (those with a surface; the others dropped from the arenas), nearest first.
    pub remeshed: Vec<ChunkCoord>,
}

/// What one [`ChunkStream::edited`] did.
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
    /// Chunks handed to the mesher (those that may hold a surface).
    pub meshes: u64,
    pub relights: u64,
    /// Wall time filling density grids on the workers (the scheduling thread's view).
    pub generate_time: Duration,
    /// Wall time working out sky light on the workers.
    pub light_time: Duration,
    /// Wall time in the sink's meshing (on the GPU, the waits for each batch's counts
    /// included).
    pub mesh_time: Duration,
}

/// The sky light at many points: [`ChunkStream::light_at`], with the grids of chunks that keep
/// none (no surface in them: open air over flat ground, say) worked out once each and kept for
/// the sampler's life. One such grid costs about as much as lighting a chunk (its cost:
/// `bench light`, BENCHMARKS.md "Terrain meshing"), so asking it per vertex of a block region
/// would cost seconds.
pub struct LightSampler<'a, G: Ground + ?Sized> {
    stream: &'a ChunkStream,
    edits: &'a EditStore<G>,
    made: RefCell<HashMap<ChunkCoord, LightGrid>>,
}

impl<G: Ground + ?Sized> LightSampler<'_, G> {
    /// The sky light at `point`, as [`ChunkStream::light_at`] gives it.
    pub fn light_at(&self, point: [f32; 3]) -> f32 {
        if !point.iter().all(|c| c.is_finite()) {
            return 0.0;
        }
        let coord = ChunkCoord::containing(point);
        if let Some(grid) = self.stream.lights.get(&coord) {
            return grid.light_at(point);
        }
        self.made
            .borrow_mut()
            .entry(coord)
            .or_insert_with(|| light_grid(self.edits, coord))
            .light_at(point)
    }
}

/// The chunks around the viewer and the sky light of those with a surface.
#[derive(Debug, Clone)]
pub struct ChunkStream {
    streamer: Streamer,
    lights: HashMap<ChunkCoord, LightGrid>,
    /// The coarser chunks with a surface (they keep no light grid).
    coarse: HashSet<ChunkCoord>,
    /// The chunks of `lights` that no sky light reaches (closed caves, deep ground).
    dark: HashSet<ChunkCoord>,
    counters: StreamCounters,
    /// Loaded chunks to mesh again (the mesher changed), farthest first: the nearest is
    /// taken from the end.
    remesh: Vec<ChunkCoord>,
    /// The mesher the chunks are to be meshed with ([`ChunkStream::remesh_with`]).
    mesher: Mesher,
}

/// A chunk whose sky light is below this everywhere is dark: no sun reaches it.
const DARK: f32 = 0.02;

impl ChunkStream {
    /// Whether chunk `coord` holds a surface that no sky light reaches (its light grid is below
    /// 2 % everywhere: a closed cave, deep ground). The sun neither lights it nor, through it,
    /// shades anything: whatever it would shade, the ground above it shades first.
    pub fn is_dark(&self, coord: ChunkCoord) -> bool {
        self.dark.contains(&coord)
    }

    /// Keeps what a chunk found with a surface holds: its light grid at full detail, its
    /// place among the coarse ones otherwise.
    fn keep_light(&mut self, coord: ChunkCoord, light: Option<LightGrid>) {
        let Some(light) = light else {
            self.coarse.insert(coord);
            return;
        };
        if light.values.iter().all(|&value| value < DARK) {
            self.dark.insert(coord);
        } else {
            self.dark.remove(&coord);
        }
        self.lights.insert(coord, light);
    }

    fn forget_light(&mut self, coord: &ChunkCoord) {
        self.coarse.remove(coord);
        self.dark.remove(coord);
        self.lights.remove(coord);
    }

    /// Nothing loaded yet; chunks within `radius` chunks (at most 64) of the viewer to come.
    pub fn new(radius: u32) -> Self {
        Self {
            streamer: Streamer::new(radius),
            lights: HashMap::new(),
            coarse: HashSet::new(),
            dark: HashSet::new(),
            counters: StreamCounters::default(),
            remesh: Vec::new(),
            mesher: Mesher::default(),
        }
    }

    /// The mesher the chunks are to be meshed with (surface nets at first): the sink meshes
    /// with it, and what is meshed with the last one waits in [`ChunkStream::remeshing`].
    pub fn mesher(&self) -> Mesher {
        self.mesher
    }

    /// The chunks to be meshed with `mesher` from now on: if it is another one, every loaded
    /// chunk is queued to be meshed again ([`ChunkStream::remesh_all`]). The sink must mesh
    /// with it too (the game's renderer switches both at once).
    pub fn remesh_with(&mut self, mesher: Mesher, viewer: [f32; 3]) {
        if mesher != self.mesher {
            self.mesher = mesher;
            self.remesh_all(viewer);
        }
    }

    /// Every loaded chunk with a surface (those with a mesh: the others have nothing to mesh
    /// again) to be meshed again, nearest `viewer` first, with the frames' streaming
    /// ([`ChunkStream::update`]: what its budget, [`REMESH_BUDGET_FACTOR`] times over, leaves
    /// after the chunks still missing): what a change of mesher asks for. Each chunk's old mesh is drawn until its new one replaces it,
    /// so the ground never opens while play goes on.
    pub fn remesh_all(&mut self, viewer: [f32; 3]) {
        let viewer = viewer.map(f64::from);
        let distance = |coord: &ChunkCoord| {
            let centre = coord.centre();
            (0..3)
                .map(|axis| (centre[axis] - viewer[axis]).powi(2))
                .sum::<f64>()
        };
        // A chunk with a surface keeps its light grid (or, coarser, its place).
        let mut chunks: Vec<(f64, ChunkCoord)> = self
            .lights
            .keys()
            .chain(&self.coarse)
            .map(|&coord| (distance(&coord), coord))
            .collect();
        // Farthest first, ties in reverse coordinate order: popped nearest first, ties in
        // coordinate order, as chunks load.
        chunks.sort_by(|a, b| b.0.total_cmp(&a.0).then(b.1.cmp(&a.1)));
        self.remesh = chunks.into_iter().map(|(_, coord)| coord).collect();
    }

    /// Loaded chunks still to be meshed again ([`ChunkStream::remesh_all`]).
    pub fn remeshing(&self) -> usize {
        self.remesh.len()
    }

    pub fn counters(&self) -> StreamCounters {
        self.counters
    }

    /// How many chunks around the viewer are kept loaded.
    pub fn radius(&self) -> u32 {
        self.streamer.radius()
    }

    /// The chunks loaded (with or without a surface), in coordinate order.
    pub fn loaded(&self) -> impl Iterator<Item = ChunkCoord> + '_ {
        self.streamer.loaded()
    }

    /// Whether every chunk within the radius of `viewer` is loaded.
    pub fn is_complete(&self, viewer: [f32; 3]) -> bool {
        self.streamer.missing(viewer) == 0
    }

    /// Chunks of full detail within 4 chunks (128 m) of `viewer` still to load: the near view,
    /// first in the load order.
    pub fn missing_near(&self, viewer: [f32; 3]) -> usize {
        self.streamer.missing_near(viewer)
    }

    /// The coarsest level of detail loaded (0 for a view within 128 m).
    pub fn top_level(&self) -> u8 {
        self.streamer.top_level()
    }

    /// Chunks within the radius of `viewer` still to load.
    pub fn missing(&self, viewer: [f32; 3]) -> usize {
        self.streamer.missing(viewer)
    }

    /// One frame's streaming around `viewer`: far chunks unloaded, at most `budget` of the
    /// nearest missing ones prepared and meshed into `sink`. On an error the chunks of this
    /// frame not yet meshed are left unloaded, so a later frame tries them again.
    pub fn update<G: Ground + ?Sized, S: ChunkSink>(
        &mut self,
        pool: &WorkerPool,
        edits: &EditStore<G>,
        sink: &mut S,
        viewer: [f32; 3],
        budget: usize,
    ) -> Result<StreamReport, S::Error> {
        let StreamPlan { load, unload } = self.streamer.plan(viewer, budget);
        for coord in &unload {
            sink.unload(*coord);
            self.forget_light(coord);
        }
        self.counters.unloads += unload.len() as u64;
        let meshed = match self.load(pool, edits, sink, &load) {
            Ok(meshed) => meshed,
            Err(error) => {
                self.streamer.forget(&load);
                for coord in &load {
                    sink.unload(*coord);
                    self.forget_light(coord);
                }
                return Err(error);
            }
        };
        self.counters.loads += load.len() as u64;
        // What the budget leaves, [`REMESH_BUDGET_FACTOR`] times over, goes to meshing loaded
        // chunks again, nearest first (those unloaded since the queue was filled are passed
        // over).
        let mut again = Vec::new();
        while again.len() + load.len() < REMESH_BUDGET_FACTOR * budget {
            let Some(coord) = self.remesh.pop() else {
                break;
            };
            if self.streamer.is_loaded(coord) {
                again.push(coord);
            }
        }
        let remeshed = match self.load(pool, edits, sink, &again) {
            Ok(remeshed) => remeshed,
            Err(error) => {
                // Tried again on a later frame, nearest first still.
                self.remesh.extend(again.iter().rev());
                return Err(error);
            }
        };
        Ok(StreamReport {
            loaded: load,
            unloaded: unload,
            meshed,
            remeshed,
        })
    }

    /// Brings `sink` up to date after an edit that changed the samples in `changed`: the
    /// loaded chunks whose padded grids hold a changed sample are prepared and meshed again,
    /// and the other resident chunks within the light's reach are lit again.
    pub fn edited<G: Ground + ?Sized, S: ChunkSink>(
        &mut self,
        pool: &WorkerPool,
        edits: &EditStore<G>,
        sink: &mut S,
        changed: &SampleBox,
    ) -> Result<EditReport, S::Error> {
        let remeshed = self.streamer.touched(changed);
        self.load(pool, edits, sink, &remeshed)?;
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
            sink.relight(*coord, &light)?;
            self.keep_light(*coord, Some(light));
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

    /// A [`LightSampler`] for asking the light at many points (a block region's vertices): the
    /// grid of a chunk without a kept one is worked out once for the sampler, not per point.
    pub fn sampler<'a, G: Ground + ?Sized>(
        &'a self,
        edits: &'a EditStore<G>,
    ) -> LightSampler<'a, G> {
        LightSampler {
            stream: self,
            edits,
            made: RefCell::new(HashMap::new()),
        }
    }

    /// Prepares `coords` (loaded in the streamer already) and meshes them into `sink`, a batch
    /// at a time; returns those with a surface.
    fn load<G: Ground + ?Sized, S: ChunkSink>(
        &mut self,
        pool: &WorkerPool,
        edits: &EditStore<G>,
        sink: &mut S,
        coords: &[ChunkCoord],
    ) -> Result<Vec<ChunkCoord>, S::Error> {
        let mut meshed = Vec::new();
        prepare_batches(pool, edits, coords, sink.batch_capacity(), |prepared| {
            meshed.extend(self.mesh_prepared(sink, prepared)?);
            Ok::<(), S::Error>(())
        })?;
        Ok(meshed)
    }

    /// Hands a prepared batch to `sink`: the chunks proven without a surface dropped, the
    /// others meshed; keeps the light of those the sink found a surface in and returns them.
    fn mesh_prepared<S: ChunkSink>(
        &mut self,
        sink: &mut S,
        prepared: Prepared,
    ) -> Result<Vec<ChunkCoord>, S::Error> {
        let started = Instant::now();
        self.counters.generate_time += prepared.generate_time;
        self.counters.light_time += prepared.light_time;
        let Prepared { grids, lights, .. } = prepared;
        let mut mixed = Vec::new();
        for grid in &grids {
            if grid.kind != ChunkKind::Mixed {
                sink.unload(grid.coord);
                self.forget_light(&grid.coord);
                continue;
            }
            mixed.push(grid);
        }
        assert_eq!(mixed.len(), lights.len(), "one light per mixed chunk");
        let outcome = {
            let chunks: Vec<SurfaceChunk<'_>> = mixed
                .iter()
                .zip(&lights)
                .map(|(grid, light)| SurfaceChunk {
                    grid,
                    light: light.as_ref(),
                })
                .collect();
            sink.mesh(&chunks)
        };
        let resident = match outcome {
            Ok(resident) => resident,
            Err(MeshFailure { error, failed }) => {
                // The chunks before the one that failed are meshed (as their light now
                // reads), that one perhaps dropped, those after it untouched.
                if let Some(failed) = failed {
                    for (index, (grid, light)) in
                        mixed.iter().zip(lights).enumerate().take(failed + 1)
                    {
                        if !sink.is_resident(grid.coord) {
                            self.forget_light(&grid.coord);
                        } else if index < failed {
                            self.keep_light(grid.coord, light);
                        }
                    }
                }
                return Err(error);
            }
        };
        self.counters.meshes += resident.len() as u64;
        let mut meshed = Vec::new();
        for ((grid, light), resident) in mixed.iter().zip(lights).zip(resident) {
            let coord = grid.coord;
            if resident {
                self.keep_light(coord, light);
                meshed.push(coord);
            } else {
                self.forget_light(&coord);
            }
        }
        self.counters.mesh_time += started.elapsed();
        Ok(meshed)
    }
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeSet;
    use std::sync::Arc;

    use super::*;
    use crate::terrain::chunks::load_order;
    use crate::terrain::PlaneGround;

    /// A sink that keeps every chunk it is asked to mesh, but those in `empty` (found without a
    /// surface), and fails at the chunk `fail_at` when it is set.
    #[derive(Default)]
    struct Meshes {
        resident: BTreeSet<ChunkCoord>,
        empty: BTreeSet<ChunkCoord>,
        fail_at: Option<ChunkCoord>,
        meshed: Vec<ChunkCoord>,
        relit: Vec<ChunkCoord>,
    }

    impl ChunkSink for Meshes {
        type Error = ChunkCoord;

        fn batch_capacity(&self) -> usize {
            2
        }

        fn unload(&mut self, coord: ChunkCoord) {
            self.resident.remove(&coord);
        }

        fn mesh(
            &mut self,
            chunks: &[SurfaceChunk<'_>],
        ) -> Result<Vec<bool>, MeshFailure<ChunkCoord>> {
            let mut resident = Vec::new();
            for (index, chunk) in chunks.iter().enumerate() {
                let coord = chunk.grid.coord;
                assert_eq!(chunk.grid.kind, ChunkKind::Mixed);
                assert_eq!(
                    chunk.light.map(|light| light.origin),
                    Some(coord.padded_origin())
                );
                if self.fail_at == Some(coord) {
                    self.resident.remove(&coord);
                    return Err(MeshFailure {
                        error: coord,
                        failed: Some(index),
                    });
                }
                self.meshed.push(coord);
                let surface = !self.empty.contains(&coord);
                if surface {
                    self.resident.insert(coord);
                } else {
                    self.resident.remove(&coord);
                }
                resident.push(surface);
            }
            Ok(resident)
        }

        fn is_resident(&self, coord: ChunkCoord) -> bool {
            self.resident.contains(&coord)
        }

        fn relight(&mut self, coord: ChunkCoord, light: &LightGrid) -> Result<(), ChunkCoord> {
            assert!(self.resident.contains(&coord));
            assert_eq!(light.origin, coord.padded_origin());
            self.relit.push(coord);
            Ok(())
        }
    }

    fn flat() -> EditStore<dyn Ground> {
        let ground: Arc<dyn Ground> = Arc::new(PlaneGround::flat(0.5));
        EditStore::new(ground)
    }

    /// At the corner of four chunks of row y = 0, the only row the ground at y = 0.5 crosses;
    /// radius 1 loads those four and the four below.
    const VIEWER: [f32; 3] = [32.0, 4.0, 32.0];

    fn kept(stream: &ChunkStream) -> BTreeSet<ChunkCoord> {
        stream.lights.keys().copied().collect()
    }

    #[test]
    fn remeshing_all_meshes_every_loaded_chunk_again_nearest_first_within_the_budget() {
        let edits = flat();
        let pool = WorkerPool::new(2).unwrap();
        let mut stream = ChunkStream::new(2);
        let mut sink = Meshes::default();
        while !stream.is_complete(VIEWER) {
            stream
                .update(&pool, &edits, &mut sink, VIEWER, 100)
                .unwrap();
        }
        let resident = sink.resident.clone();
        assert!(resident.len() >= 8, "{resident:?}");
        sink.meshed.clear();
        // The viewer has walked on; the queue is nearest this place first.
        let walked = [40.0, 4.0, 20.0];
        stream.remesh_all(walked);
        let queued = stream.remeshing();
        assert_eq!(
            queued,
            resident.len(),
            "the chunks with a surface, no others"
        );
        let mut order = Vec::new();
        let mut frames = 0;
        while stream.remeshing() > 0 {
            // The viewer stays in the same chunk: nothing to load, the budget all the queue's.
            let report = stream.update(&pool, &edits, &mut sink, VIEWER, 1).unwrap();
            assert!(report.loaded.is_empty());
            assert!(report.remeshed.len() <= REMESH_BUDGET_FACTOR);
            order.extend(report.remeshed);
            frames += 1;
        }
        assert_eq!(
            frames,
            queued.div_ceil(REMESH_BUDGET_FACTOR),
            "the budget, {REMESH_BUDGET_FACTOR} times over, a frame"
        );
        // Every resident chunk meshed again, in order of distance from where the switch was
        // asked.
        assert_eq!(order.iter().copied().collect::<BTreeSet<_>>(), resident);
        assert_eq!(sink.meshed, order);
        let distance = |coord: &ChunkCoord| {
            let centre = coord.centre();
            (0..3)
                .map(|axis| (centre[axis] - f64::from(walked[axis])).powi(2))
                .sum::<f64>()
        };
        assert!(order
            .windows(2)
            .all(|pair| distance(&pair[0]) <= distance(&pair[1])));
        assert_eq!(
            sink.resident, resident,
            "nothing left the arenas on the way"
        );
    }

    #[test]
    fn chunks_load_nearest_first_and_those_with_a_surface_keep_their_light() {
        let edits = flat();
        let pool = WorkerPool::new(2).unwrap();
        let mut stream = ChunkStream::new(1);
        let mut sink = Meshes::default();
        let surface = ChunkCoord::new(0, 0, 0);
        sink.empty.insert(ChunkCoord::new(1, 0, 0));
        let report = stream
            .update(&pool, &edits, &mut sink, VIEWER, 100)
            .unwrap();
        assert_eq!(report.loaded, load_order(VIEWER, 1));
        assert!(stream.is_complete(VIEWER));
        // The ground at y = 0.5 crosses the chunks of row y = 0 alone.
        let row: Vec<ChunkCoord> = report.loaded.iter().copied().filter(|c| c.y == 0).collect();
        assert_eq!(
            sink.meshed, row,
            "only chunks that may hold a surface are meshed"
        );
        let with_surface: Vec<ChunkCoord> = row
            .iter()
            .copied()
            .filter(|c| !sink.empty.contains(c))
            .collect();
        assert_eq!(report.meshed, with_surface);
        assert_eq!(kept(&stream), with_surface.iter().copied().collect());
        assert_eq!(stream.counters().meshes, row.len() as u64);
        // Gameplay's light is the kept grid's, and a chunk without one works its own out.
        for point in [[10.0, 0.7, 12.0], [40.0, 0.7, 12.0], [10.0, 40.0, 3.0]] {
            let coord = ChunkCoord::containing(point);
            assert_eq!(
                stream.light_at(&edits, point),
                light_grid(&edits, coord).light_at(point)
            );
        }
        assert!(stream.lights.contains_key(&surface));
        assert_eq!(stream.light_at(&edits, [f32::NAN, 0.0, 0.0]), 0.0);
        // Far away: everything unloads, the sink and the light with it.
        let far = [1000.0, 4.0, 16.0];
        let report = stream.update(&pool, &edits, &mut sink, far, 0).unwrap();
        assert_eq!(report.unloaded.len(), load_order(VIEWER, 1).len());
        assert!(sink.resident.is_empty() && stream.lights.is_empty());
    }

    #[test]
    fn an_edit_meshes_the_chunks_it_changed_and_relights_those_its_light_reaches() {
        let mut edits = flat();
        let pool = WorkerPool::new(2).unwrap();
        let mut stream = ChunkStream::new(1);
        let mut sink = Meshes::default();
        stream
            .update(&pool, &edits, &mut sink, VIEWER, 100)
            .unwrap();
        sink.meshed.clear();
        // A dig in the middle of chunk (0, 0, 0), 5 samples from its +x neighbour's grid.
        let changed = edits
            .dig([24.0, 0.0, 16.0], 2.0)
            .unwrap()
            .expect("samples change");
        let report = stream.edited(&pool, &edits, &mut sink, &changed).unwrap();
        // It reaches the ground's chunk and the one below (solid until now).
        assert_eq!(
            report.remeshed,
            vec![ChunkCoord::new(0, -1, 0), ChunkCoord::new(0, 0, 0)]
        );
        assert_eq!(sink.meshed, report.remeshed);
        assert_eq!(report.relit, vec![ChunkCoord::new(1, 0, 0)]);
        assert_eq!(sink.relit, report.relit);
        for coord in report.remeshed.iter().chain(&report.relit) {
            assert_eq!(stream.lights[coord], light_grid(&edits, *coord));
        }
        assert_eq!(stream.counters().relights, 1);
    }

    #[test]
    fn a_chunk_no_sky_light_reaches_is_dark_until_its_light_changes_or_it_is_forgotten() {
        let edits = flat();
        let pool = WorkerPool::new(2).unwrap();
        let mut stream = ChunkStream::new(1);
        let mut sink = Meshes::default();
        stream
            .update(&pool, &edits, &mut sink, VIEWER, 100)
            .unwrap();
        // The ground under the open sky is lit.
        let ground = ChunkCoord::new(0, 0, 0);
        assert!(stream.lights.contains_key(&ground) && !stream.is_dark(ground));
        // A grid black everywhere (a closed cave) is dark; one sample of light, and it is not.
        let size = crate::terrain::chunks::PADDED_SIZE.pow(3);
        let cave = ChunkCoord::new(0, -3, 0);
        let black = LightGrid {
            origin: [0, -96, 0],
            values: vec![0.0; size],
        };
        stream.keep_light(cave, Some(black.clone()));
        assert!(stream.is_dark(cave));
        let mut mouth = black;
        mouth.values[size / 2] = DARK * 2.0;
        stream.keep_light(cave, Some(mouth));
        assert!(!stream.is_dark(cave));
        // Forgotten (unloaded, or found without a surface), it is not dark either.
        let black = LightGrid {
            origin: [0, -96, 0],
            values: vec![0.0; size],
        };
        stream.keep_light(cave, Some(black));
        assert!(stream.is_dark(cave));
        stream.forget_light(&cave);
        assert!(!stream.is_dark(cave) && !stream.lights.contains_key(&cave));
    }

    #[test]
    fn a_failed_load_is_taken_back_and_tried_again() {
        let edits = flat();
        let pool = WorkerPool::new(2).unwrap();
        let mut stream = ChunkStream::new(1);
        let mut sink = Meshes::default();
        let order = load_order(VIEWER, 1);
        let row: Vec<ChunkCoord> = order.iter().copied().filter(|c| c.y == 0).collect();
        sink.fail_at = Some(row[1]);
        let error = stream.update(&pool, &edits, &mut sink, VIEWER, 100);
        assert_eq!(error, Err(row[1]));
        assert_eq!(
            stream.missing(VIEWER),
            order.len(),
            "nothing counts as loaded"
        );
        assert!(sink.resident.is_empty() && stream.lights.is_empty());
        sink.fail_at = None;
        let report = stream
            .update(&pool, &edits, &mut sink, VIEWER, 100)
            .unwrap();
        assert_eq!(report.loaded, order);
        assert_eq!(kept(&stream), row.iter().copied().collect());
    }
}
