//! The terrain's density anywhere, as the meshes see it, and the samples kept for asking again.
//!
//! A probe blends the eight samples around a point trilinearly, the same blend and gradient
//! as the surface nets' normals, so the player and the pieces feel exactly the ground the
//! meshes show, holes included; nothing needs to be loaded.
//!
//! Falling pieces ask for the same samples over and over (neighbouring points share them, and
//! a piece moves centimeters per step), and an unedited sample is several noises. So the field
//! keeps every sample it worked out, in 8³ bricks, until an edit changes it: [`Field::forget`]
//! drops exactly the samples of the edit's box, and the rest stay. The bricks are spread over
//! shards, each behind its own lock, so workers probe in parallel; each shard keeps at most its
//! share of the brick budget and drops its oldest brick first. On top of that each thread keeps
//! its own copies of the whole bricks it reads most ([`Field::samples_in`] and probes inside one
//! brick): the physics' workers probe the same ground every step, and taking a shard's lock for
//! each read made its cache line bounce between the cores, so two threads were barely faster
//! than one.

use std::cell::RefCell;
use std::collections::VecDeque;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Mutex, MutexGuard};

use blockfall_physics::collision::fresh_stamp;
use crossbeam::utils::CachePadded;

use crate::cell_hash::CellMap;

use super::edits::{index_in_brick, EditError, EditStore, SampleBox, BRICK};
use super::ground::Ground;

/// Bricks kept by default: 4096 bricks of 8³ f32 samples, 8 MiB.
pub const DEFAULT_CACHED_BRICKS: usize = 4096;
const SHARDS: usize = 16;
const BRICK_VOLUME: usize = (BRICK * BRICK * BRICK) as usize;

/// The density at a point and its gradient (pointing into the ground).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Probe {
    pub density: f32,
    pub gradient: [f32; 3],
}

/// Whatever gives whole-meter samples of a density: the edited ground, or a test's own field.
pub trait Samples: Sync {
    fn sample(&self, x: i32, y: i32, z: i32) -> f32;

    /// The samples `low + (i, j, k)` with `i < size[0]` and so on, x fastest, into `out` (as
    /// many as the box holds). A source that works out a column at a time does it faster than
    /// one sample after another.
    fn fill(&self, low: [i32; 3], size: [usize; 3], out: &mut [f32]) {
        for (index, value) in out.iter_mut().enumerate() {
            let x = low[0].saturating_add((index % size[0]) as i32);
            let y = low[1].saturating_add((index / size[0] % size[1]) as i32);
            let z = low[2].saturating_add((index / (size[0] * size[1])) as i32);
            *value = self.sample(x, y, z);
        }
    }
}

impl<G: Ground + ?Sized> Samples for EditStore<G> {
    fn sample(&self, x: i32, y: i32, z: i32) -> f32 {
        EditStore::sample(self, x, y, z)
    }

    fn fill(&self, low: [i32; 3], size: [usize; 3], out: &mut [f32]) {
        let mut filled = Vec::with_capacity(out.len());
        self.fill_region(low, size, &mut filled);
        out.copy_from_slice(&filled);
    }
}

impl<F: Fn(i32, i32, i32) -> f32 + Sync> Samples for F {
    fn sample(&self, x: i32, y: i32, z: i32) -> f32 {
        self(x, y, z)
    }
}

/// Samples of one brick; NaN marks one not worked out (a density is never NaN).
type BrickSamples = Box<[f32; BRICK_VOLUME]>;

#[derive(Default)]
struct Shard {
    bricks: CellMap<BrickSamples>,
    /// The bricks in the order they came, for dropping the oldest.
    order: VecDeque<[i32; 3]>,
}

/// The density field over a source of samples, with the cache of samples.
pub struct Field<S = EditStore> {
    source: S,
    /// Each on its own cache line: threads probing different shards must not slow each other.
    shards: Vec<CachePadded<Mutex<Shard>>>,
    bricks_per_shard: usize,
    /// Which field a thread's own copies belong to.
    id: u64,
    /// Counts the forgets: a thread's copies made before the last one are dropped.
    forgets: AtomicU64,
    /// Names what the field answers now: fresh when it is made and whenever it forgets
    /// samples (its ground changed), see [`Field::stamp`].
    stamp: AtomicU64,
}

/// Bricks a thread keeps its own copies of (2 KiB each).
const LOCAL_BRICKS: usize = 4096;

/// Each thread's own copies of whole bricks it read, so that threads probing the same ground
/// (the points of many bodies, every step) do not take the shards' locks, whose cache lines
/// would bounce between the cores. Only bricks with every sample worked out are copied; the
/// copies are dropped when the field forgets anything (edits happen between steps, not while
/// workers probe) or when there are too many.
struct LocalBricks {
    field: u64,
    forgets: u64,
    bricks: CellMap<BrickSamples>,
}

thread_local! {
    static LOCAL: RefCell<LocalBricks> = RefCell::new(LocalBricks {
        field: u64::MAX,
        forgets: 0,
        bricks: CellMap::default(),
    });
}

static NEXT_FIELD: AtomicU64 = AtomicU64::new(0);

impl<S> std::fmt::Debug for Field<S> {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        formatter
            .debug_struct("Field")
            .field("bricks_per_shard", &self.bricks_per_shard)
            .finish_non_exhaustive()
    }
}

impl<S: Samples> Field<S> {
    /// A field over `source` keeping up to [`DEFAULT_CACHED_BRICKS`] bricks of samples.
    pub fn new(source: S) -> Self {
        Self::with_cache(source, DEFAULT_CACHED_BRICKS)
    }

    /// A field keeping up to `bricks` bricks of 8³ samples (at least one per shard).
    pub fn with_cache(source: S, bricks: usize) -> Self {
        Self {
            source,
            shards: (0..SHARDS)
                .map(|_| CachePadded::new(Mutex::default()))
                .collect(),
            bricks_per_shard: bricks.div_ceil(SHARDS).max(1),
            id: NEXT_FIELD.fetch_add(1, Ordering::Relaxed),
            forgets: AtomicU64::new(0),
            stamp: AtomicU64::new(fresh_stamp()),
        }
    }

    /// What the field samples.
    pub fn source(&self) -> &S {
        &self.source
    }

    /// The most bricks the cache holds.
    pub fn cache_capacity(&self) -> usize {
        self.bricks_per_shard * SHARDS
    }

    /// The bricks the cache holds now.
    pub fn cached_bricks(&self) -> usize {
        self.shards
            .iter()
            .map(|shard| lock(shard).bricks.len())
            .sum()
    }

    /// Whether the sample is cached now.
    pub fn is_cached(&self, x: i32, y: i32, z: i32) -> bool {
        let sample = [x, y, z];
        let brick = sample.map(|value| value.div_euclid(BRICK));
        lock(self.shard(brick))
            .bricks
            .get(&brick)
            .is_some_and(|samples| !samples[index_in_brick(sample)].is_nan())
    }

    /// Forgets the cached samples in the box: the ground changed there.
    pub fn forget(&self, changed: &SampleBox) {
        self.forget_in_shards(changed);
        self.forgets.fetch_add(1, Ordering::AcqRel);
        self.stamp.store(fresh_stamp(), Ordering::Release);
    }

    /// A name for the field's answers now, never given to a field that answered otherwise:
    /// it changes whenever the field forgets samples, as it does when its ground is dug or
    /// built on (`blockfall_physics::collision::Solid::stamp`).
    pub fn stamp(&self) -> u64 {
        self.stamp.load(Ordering::Acquire)
    }

    fn forget_in_shards(&self, changed: &SampleBox) {
        let low = changed.low.map(|value| value.div_euclid(BRICK));
        let high = changed.high.map(|value| value.div_euclid(BRICK));
        for bz in low[2]..=high[2] {
            for by in low[1]..=high[1] {
                for bx in low[0]..=high[0] {
                    let brick = [bx, by, bz];
                    let mut shard = lock(self.shard(brick));
                    let Some(samples) = shard.bricks.get_mut(&brick) else {
                        continue;
                    };
                    let first = brick.map(|value| value * BRICK);
                    for (index, value) in samples.iter_mut().enumerate() {
                        let index = index as i32;
                        let sample = [
                            first[0] + index % BRICK,
                            first[1] + index / BRICK % BRICK,
                            first[2] + index / (BRICK * BRICK),
                        ];
                        if changed.contains(sample) {
                            *value = f32::NAN;
                        }
                    }
                }
            }
        }
    }

    /// Forgets every cached sample.
    pub fn forget_all(&self) {
        for shard in &self.shards {
            let mut shard = lock(shard);
            shard.bricks.clear();
            shard.order.clear();
        }
        self.forgets.fetch_add(1, Ordering::AcqRel);
        self.stamp.store(fresh_stamp(), Ordering::Release);
    }

    /// A sample, from the cache or worked out and kept.
    pub fn sample(&self, x: i32, y: i32, z: i32) -> f32 {
        let sample = [x, y, z];
        let brick = sample.map(|value| value.div_euclid(BRICK));
        let index = index_in_brick(sample);
        let shard = self.shard(brick);
        if let Some(samples) = lock(shard).bricks.get(&brick) {
            let value = samples[index];
            if !value.is_nan() {
                return value;
            }
        }
        // Worked out without the lock, so other threads are not held up by the noise.
        let value = self.source.sample(x, y, z);
        let mut shard = lock(shard);
        self.keep(&mut shard, brick, Box::new([f32::NAN; BRICK_VOLUME]));
        if let Some(samples) = shard.bricks.get_mut(&brick) {
            samples[index] = value;
        }
        value
    }

    /// Every sample of the box of `size` samples from `low`, x fastest, then y, then z, into
    /// `out` (which must hold exactly that many), from this thread's own copies of the bricks
    /// (see `LocalBricks`): no lock at all once a brick has been read here. A brick not all
    /// worked out yet is worked out whole, a column at a time. A caller that probes many points
    /// of a small box (a body's contact points, the ground test of a block) reads its samples
    /// here once and blends them itself.
    ///
    /// Panics if `out.len()` is not the box's volume (a caller's bug, not input).
    pub fn samples_in(&self, low: [i32; 3], size: [usize; 3], out: &mut [f32]) {
        assert_eq!(
            out.len(),
            size[0] * size[1] * size[2],
            "samples_in: wrong out size"
        );
        if out.is_empty() {
            return;
        }
        self.for_each_brick_of(low, size, |brick, from, to| {
            self.with_local(brick, |samples| {
                // A row of the box within the brick is a row of the brick: copied at once.
                let width = (to[0] - from[0] + 1) as usize;
                for z in from[2]..=to[2] {
                    for y in from[1]..=to[1] {
                        let row =
                            size[0] * ((y - low[1]) as usize + size[1] * (z - low[2]) as usize);
                        let start = row + (from[0] - low[0]) as usize;
                        let first = index_in_brick([from[0], y, z]);
                        out[start..start + width].copy_from_slice(&samples[first..first + width]);
                    }
                }
            });
        });
    }

    /// The samples of the box of `size` samples from `low`, read at once (see
    /// [`Field::samples_in`]) into `buffer`, to be probed like the field itself.
    pub fn window<'a>(
        &self,
        low: [i32; 3],
        size: [usize; 3],
        buffer: &'a mut Vec<f32>,
    ) -> SampleWindow<'a> {
        buffer.clear();
        buffer.resize(size[0] * size[1] * size[2], 0.0);
        self.samples_in(low, size, buffer);
        SampleWindow {
            low,
            size,
            values: buffer,
        }
    }

    /// Calls `visit` for each brick the box of `size` samples from `low` reaches into, with the
    /// part of the box inside the brick (inclusive).
    fn for_each_brick_of(
        &self,
        low: [i32; 3],
        size: [usize; 3],
        mut visit: impl FnMut([i32; 3], [i32; 3], [i32; 3]),
    ) {
        let last = [0, 1, 2].map(|axis| low[axis].saturating_add(size[axis] as i32 - 1));
        let first_brick = low.map(|value| value.div_euclid(BRICK));
        let last_brick = last.map(|value| value.div_euclid(BRICK));
        for bz in first_brick[2]..=last_brick[2] {
            for by in first_brick[1]..=last_brick[1] {
                for bx in first_brick[0]..=last_brick[0] {
                    let brick = [bx, by, bz];
                    let from = [0, 1, 2].map(|axis| low[axis].max(brick[axis] * BRICK));
                    let to = [0, 1, 2].map(|axis| last[axis].min(brick[axis] * BRICK + BRICK - 1));
                    visit(brick, from, to);
                }
            }
        }
    }

    /// Keeps a brick's samples in its shard (the shard locked by the caller), dropping the
    /// shard's oldest brick when it is full. A brick another thread has put there meanwhile is
    /// kept as it is.
    fn keep(&self, shard: &mut Shard, brick: [i32; 3], samples: BrickSamples) {
        if shard.bricks.contains_key(&brick) {
            return;
        }
        if shard.bricks.len() >= self.bricks_per_shard {
            if let Some(oldest) = shard.order.pop_front() {
                shard.bricks.remove(&oldest);
            }
        }
        shard.order.push_back(brick);
        shard.bricks.insert(brick, samples);
    }

    /// The density at a point and its gradient, blended from the eight samples around it.
    pub fn probe(&self, x: f32, y: f32, z: f32) -> Probe {
        let x0 = floor(x);
        let y0 = floor(y);
        let z0 = floor(z);
        let fraction = [x - x0, y - y0, z - z0];
        let (x0, y0, z0) = (x0 as i32, y0 as i32, z0 as i32);
        if let Some(corners) = self.cached_corners([x0, y0, z0]) {
            return trilinear(&corners, fraction);
        }
        // Saturating: a probe absurdly far away answers with the edge samples, never panics.
        let d = |i: i32, j: i32, k: i32| {
            self.sample(
                x0.saturating_add(i),
                y0.saturating_add(j),
                z0.saturating_add(k),
            )
        };
        let corners = [
            d(0, 0, 0),
            d(1, 0, 0),
            d(0, 1, 0),
            d(1, 1, 0),
            d(0, 0, 1),
            d(1, 0, 1),
            d(0, 1, 1),
            d(1, 1, 1),
        ];
        trilinear(&corners, fraction)
    }

    /// The eight samples of the cell at `low`, from this thread's own copies of the bricks
    /// they lie in (made, each brick worked out whole, on the first read here): the common
    /// case for a piece or the player probing near where it probed before.
    fn cached_corners(&self, low: [i32; 3]) -> Option<[f32; 8]> {
        let brick = low.map(|value| value.div_euclid(BRICK));
        let inside = low.iter().all(|&value| value.rem_euclid(BRICK) < BRICK - 1);
        if !inside {
            // A cell across bricks (a third of all cells, bricks being 8 samples wide): its
            // corners from this thread's copies of up to eight bricks, `i + 2j + 4k` being
            // the order `samples_in` writes them in. Not at the very edge of `i32`, where
            // the cell's far corners would saturate onto its near ones.
            if low.iter().any(|&value| value >= i32::MAX - 1) {
                return None;
            }
            let mut corners = [0.0; 8];
            self.samples_in(low, [2, 2, 2], &mut corners);
            return Some(corners);
        }
        let first = index_in_brick(low);
        let (row, plane) = (BRICK as usize, (BRICK * BRICK) as usize);
        let corners_of = |samples: &[f32; BRICK_VOLUME]| cell_corners(samples, first, row, plane);
        Some(self.with_local(brick, corners_of))
    }

    /// `read` on this thread's own copy of a whole brick, made from the shared cache (the brick
    /// worked out whole first if it is not all there).
    fn with_local<R>(&self, brick: [i32; 3], read: impl FnOnce(&[f32; BRICK_VOLUME]) -> R) -> R {
        LOCAL.with_borrow_mut(|local| {
            let forgets = self.forgets.load(Ordering::Acquire);
            if local.field != self.id || local.forgets != forgets {
                local.bricks.clear();
                local.field = self.id;
                local.forgets = forgets;
            }
            if local.bricks.len() >= LOCAL_BRICKS && !local.bricks.contains_key(&brick) {
                local.bricks.clear();
            }
            let samples = local
                .bricks
                .entry(brick)
                .or_insert_with(|| self.whole_brick(brick));
            read(samples)
        })
    }

    /// A copy of a brick with every sample worked out: the missing ones are worked out (a
    /// column at a time, without the lock) and kept in the shared cache too.
    fn whole_brick(&self, brick: [i32; 3]) -> BrickSamples {
        {
            let shard = lock(self.shard(brick));
            if let Some(samples) = shard.bricks.get(&brick) {
                if !samples.iter().any(|value| value.is_nan()) {
                    return samples.clone();
                }
            }
        }
        let mut samples = Box::new([0.0; BRICK_VOLUME]);
        let origin = brick.map(|value| value.saturating_mul(BRICK));
        self.source
            .fill(origin, [BRICK as usize; 3], samples.as_mut_slice());
        let mut shard = lock(self.shard(brick));
        let shard = &mut *shard;
        self.keep(shard, brick, Box::new([f32::NAN; BRICK_VOLUME]));
        if let Some(kept) = shard.bricks.get_mut(&brick) {
            for (kept, &value) in kept.iter_mut().zip(samples.iter()) {
                if kept.is_nan() {
                    *kept = value;
                }
            }
        }
        samples
    }

    fn shard(&self, brick: [i32; 3]) -> &Mutex<Shard> {
        // A cheap mix of the coordinates, so that neighbouring bricks land in other shards.
        let hash = (brick[0] as u32).wrapping_mul(0x9E37_79B1)
            ^ (brick[1] as u32).wrapping_mul(0x85EB_CA77)
            ^ (brick[2] as u32).wrapping_mul(0xC2B2_AE3D);
        &self.shards[(hash >> 16) as usize % SHARDS]
    }
}

impl<G: Ground + ?Sized> Field<EditStore<G>> {
    /// The edited ground.
    pub fn edits(&self) -> &EditStore<G> {
        &self.source
    }

    /// Digs (see [`EditStore::dig`]) and forgets the samples that changed.
    pub fn dig(&mut self, centre: [f32; 3], radius: f32) -> Result<Option<SampleBox>, EditError> {
        let changed = self.source.dig(centre, radius)?;
        if let Some(changed) = &changed {
            self.forget(changed);
        }
        Ok(changed)
    }

    /// Builds (see [`EditStore::build`]) and forgets the samples that changed.
    pub fn build(&mut self, centre: [f32; 3], radius: f32) -> Result<Option<SampleBox>, EditError> {
        let changed = self.source.build(centre, radius)?;
        if let Some(changed) = &changed {
            self.forget(changed);
        }
        Ok(changed)
    }
}

/// `x.floor()` without a call into libm (x86-64's baseline has no rounding instruction, and
/// this runs for every contact point of every body every step); the same value for every `x`.
#[inline]
fn floor(x: f32) -> f32 {
    // Beyond 2²³ every f32 is a whole number already; NaN and infinities go to libm.
    if x.abs() < 8_388_608.0 {
        let truncated = x as i32 as f32;
        if truncated > x {
            truncated - 1.0
        } else if truncated == x {
            // Whole already (keeps the sign of -0.0).
            x
        } else {
            truncated
        }
    } else {
        x.floor()
    }
}

/// The eight samples of a cell in a box of samples laid out x fastest: from the sample at
/// `first`, one along x, `row` along y, `layer` along z; in [`trilinear`]'s order.
#[inline]
pub(crate) fn cell_corners(values: &[f32], first: usize, row: usize, layer: usize) -> [f32; 8] {
    [
        values[first],
        values[first + 1],
        values[first + row],
        values[first + row + 1],
        values[first + layer],
        values[first + layer + 1],
        values[first + layer + row],
        values[first + layer + row + 1],
    ]
}

/// Samples of a box read from a [`Field`] at once, probed exactly as the field probes.
#[derive(Debug, Clone, Copy)]
pub struct SampleWindow<'a> {
    low: [i32; 3],
    size: [usize; 3],
    values: &'a [f32],
}

impl SampleWindow<'_> {
    /// The whole-meter box a set of points needs, from `low` to `high` in meters (each probe
    /// reads the samples at the floor of its point and one beyond): its first sample and size.
    pub fn covering(low: [f32; 3], high: [f32; 3]) -> ([i32; 3], [usize; 3]) {
        let first = low.map(|c| c.floor() as i32);
        let size = [0, 1, 2].map(|axis| {
            let last = (high[axis].floor() as i32).saturating_add(1);
            usize::try_from(last.saturating_sub(first[axis]).saturating_add(1)).unwrap_or(0)
        });
        (first, size)
    }

    /// The density and gradient at a point, as [`Field::probe`] gives them; `None` when the
    /// point's cell is not all inside the window.
    pub fn probe(&self, x: f32, y: f32, z: f32) -> Option<Probe> {
        let corner = [floor(x), floor(y), floor(z)];
        let fraction = [x - corner[0], y - corner[1], z - corner[2]];
        let mut at = [0usize; 3];
        for axis in 0..3 {
            let offset = corner[axis] as i64 - i64::from(self.low[axis]);
            if offset < 0 || offset + 1 >= self.size[axis] as i64 {
                return None;
            }
            at[axis] = offset as usize;
        }
        let (row, layer) = (self.size[0], self.size[0] * self.size[1]);
        let first = at[0] + at[1] * row + at[2] * layer;
        Some(trilinear(
            &cell_corners(self.values, first, row, layer),
            fraction,
        ))
    }

    /// An upper bound on the length of the gradient anywhere in the window's box: along each
    /// axis, a cell's slope is a blend of its four edges' differences, so no more than the
    /// largest difference between neighbouring samples along that axis. Infinite if a sample
    /// is not finite.
    pub fn steepest(&self) -> f32 {
        let values = self.values;
        // The magnitudes as bits: for non-negative floats the bits order as the values do, and
        // whole numbers take their largest in lanes, which `f32::max` (with its NaN rule) does
        // not. Infinity and NaN have every exponent bit set, so one look finds them.
        const EXPONENT: u32 = 0x7f80_0000;
        let magnitude = |value: f32| value.to_bits() & 0x7fff_ffff;
        if values
            .iter()
            .fold(0, |most, &value| most.max(magnitude(value)))
            >= EXPONENT
        {
            return f32::INFINITY;
        }
        let [nx, ny, _] = self.size;
        let (row, layer) = (nx, nx * ny);
        // The largest difference between samples `stride` apart in each run of `run` samples
        // (a run being a row along x, a layer along y, the whole box along z).
        let most = |run: usize, stride: usize| {
            let bits = values
                .chunks(run)
                .filter(|chunk| chunk.len() > stride)
                .map(|chunk| {
                    chunk[stride..]
                        .iter()
                        .zip(chunk)
                        .fold(0, |most, (far, near)| most.max(magnitude(far - near)))
                })
                .fold(0, u32::max);
            f32::from_bits(bits)
        };
        let [x, y, z] = [most(row, 1), most(layer, row), most(values.len(), layer)];
        (x * x + y * y + z * z).sqrt()
    }

    /// How clear of the terrain a point inside the window surely is, from its probe and the
    /// window's [`SampleWindow::steepest`] rise `steepest`: its density over that rise, and no
    /// more than its room to the window's sides. Every point `q` within `clear − r` of it lies
    /// in the window, where the density rises at most `steepest` per meter, so at `q` the
    /// density is still below `−r` times the length of the gradient there: the terrain's
    /// distance at `q` (density over the gradient's length) is at least `r`. −∞ for a point in
    /// the ground, on its surface or with a probe that is not a number.
    pub fn clearance(&self, probe: Probe, point: [f32; 3], steepest: f32) -> f32 {
        if probe.density.is_nan() || probe.density >= 0.0 {
            return f32::NEG_INFINITY;
        }
        let room = (0..3)
            .map(|axis| {
                let low = self.low[axis] as f32;
                let high = low + (self.size[axis] - 1) as f32;
                (point[axis] - low).min(high - point[axis])
            })
            .fold(f32::INFINITY, f32::min);
        // A flat window (a rise of 0) leaves the room; an infinite rise leaves nothing.
        (-probe.density / steepest).min(room)
    }

    /// Whether any sample of the window is positive (inside the ground).
    pub fn any_inside(&self) -> bool {
        self.values.iter().any(|&value| value > 0.0)
    }
}

/// The trilinear blend of a cell's corners `d[i + 2j + 4k]` at `fraction` within the cell,
/// and its gradient: the same lerps as the surface nets' normals.
pub fn trilinear(corners: &[f32; 8], fraction: [f32; 3]) -> Probe {
    let [d000, d100, d010, d110, d001, d101, d011, d111] = *corners;
    let [fx, fy, fz] = fraction;
    let lerp = |a: f32, b: f32, t: f32| a + (b - a) * t;
    let density = lerp(
        lerp(lerp(d000, d100, fx), lerp(d010, d110, fx), fy),
        lerp(lerp(d001, d101, fx), lerp(d011, d111, fx), fy),
        fz,
    );
    let gradient = [
        lerp(
            lerp(d100 - d000, d110 - d010, fy),
            lerp(d101 - d001, d111 - d011, fy),
            fz,
        ),
        lerp(
            lerp(d010 - d000, d110 - d100, fx),
            lerp(d011 - d001, d111 - d101, fx),
            fz,
        ),
        lerp(
            lerp(d001 - d000, d101 - d100, fx),
            lerp(d011 - d010, d111 - d110, fx),
            fy,
        ),
    ];
    Probe { density, gradient }
}

/// Locks a shard; a panic elsewhere leaves its samples valid (each write is one value).
fn lock(shard: &Mutex<Shard>) -> MutexGuard<'_, Shard> {
    shard.lock().unwrap_or_else(|poison| poison.into_inner())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `SampleWindow::steepest` as its doc says it, one difference at a time with `f32::max`.
    fn steepest_plainly(window: &SampleWindow) -> f32 {
        let [nx, ny, nz] = window.size;
        let at = |i: usize, j: usize, k: usize| window.values[i + nx * (j + ny * k)];
        if window.values.iter().any(|value| !value.is_finite()) {
            return f32::INFINITY;
        }
        let mut most = [0.0f32; 3];
        for k in 0..nz {
            for j in 0..ny {
                for i in 0..nx {
                    let here = at(i, j, k);
                    let next = [
                        (i + 1 < nx).then(|| at(i + 1, j, k)),
                        (j + 1 < ny).then(|| at(i, j + 1, k)),
                        (k + 1 < nz).then(|| at(i, j, k + 1)),
                    ];
                    for (axis, next) in next.into_iter().enumerate() {
                        if let Some(next) = next {
                            most[axis] = most[axis].max((next - here).abs());
                        }
                    }
                }
            }
        }
        (most[0] * most[0] + most[1] * most[1] + most[2] * most[2]).sqrt()
    }

    #[test]
    fn the_steepest_rise_is_the_largest_difference_along_each_axis() {
        let mut rng = blockfall_physics::random::Rng::new(0x57ee_9e57);
        for case in 0..400 {
            let size = [0; 3].map(|_| 1 + rng.between(0, 6) as usize);
            let count = size[0] * size[1] * size[2];
            let scale = [0.01, 1.0, 40.0, 3e38][case % 4];
            let mut values: Vec<f32> = (0..count)
                .map(|_| ((rng.unit() - 0.5) * scale) as f32)
                .collect();
            if case % 7 == 0 {
                let at = rng.between(0, count as i64 - 1) as usize;
                values[at] = [f32::NAN, f32::INFINITY, f32::NEG_INFINITY, -0.0][case / 7 % 4];
            }
            let window = SampleWindow {
                low: [0; 3],
                size,
                values: &values,
            };
            let (fast, plain) = (window.steepest(), steepest_plainly(&window));
            assert_eq!(fast.to_bits(), plain.to_bits(), "{size:?} {values:?}");
        }
    }

    #[test]
    fn the_fast_floor_is_floor() {
        let mut values = vec![
            0.0f32,
            -0.0,
            0.5,
            -0.5,
            1.0,
            -1.0,
            8_388_607.5,
            -8_388_607.5,
        ];
        values.extend([
            8_388_608.0,
            -8_388_609.0,
            1e20,
            -1e20,
            f32::MIN_POSITIVE,
            -1e-30,
        ]);
        let mut x = -70_000.123f32;
        while x < 70_000.0 {
            values.push(x);
            x += 0.371;
        }
        for value in values {
            assert_eq!(floor(value).to_bits(), value.floor().to_bits(), "{value}");
        }
        assert!(floor(f32::NAN).is_nan());
        assert_eq!(floor(f32::INFINITY), f32::INFINITY);
    }

    fn assert_sync<T: Sync>() {}

    #[test]
    fn field_is_sync() {
        assert_sync::<Field>();
    }

    #[test]
    fn a_probe_across_bricks_blends_the_same_eight_samples_as_one_inside_a_brick() {
        let wavy = |x: i32, y: i32, z: i32| {
            let (x, y, z) = (x as f32, y as f32, z as f32);
            (x * 0.9).sin() * 2.0 + (y * 0.4).cos() - z * 0.3 + x * z * 0.02
        };
        let field = Field::new(wavy);
        // Cells whose corners lie in two, four and eight bricks (bricks are 8 samples wide),
        // on both sides of zero, and one inside a brick.
        for point in [
            [7.25f32, 3.5, 2.75],
            [7.5, 15.125, 4.0],
            [7.75, 7.5, 7.25],
            [-0.5, -0.25, -0.75],
            [-8.5, 23.5, -16.5],
            [2.5, 2.5, 2.5],
        ] {
            let low = point.map(|value| value.floor() as i32);
            let corners: [f32; 8] = std::array::from_fn(|corner| {
                let [i, j, k] = [corner & 1, corner >> 1 & 1, corner >> 2].map(|bit| bit as i32);
                wavy(low[0] + i, low[1] + j, low[2] + k)
            });
            let fraction = [0, 1, 2].map(|axis| point[axis] - low[axis] as f32);
            let expected = trilinear(&corners, fraction);
            // Twice: the first read copies the bricks to this thread, the second reads the
            // copies.
            for _ in 0..2 {
                assert_eq!(
                    field.probe(point[0], point[1], point[2]),
                    expected,
                    "{point:?}"
                );
            }
        }
    }

    #[test]
    fn blend_is_exact_on_planes() {
        // Dyadic slopes and fractions: every step of the blend is exact in f32.
        let slope = [0.5f32, -1.25, 0.75];
        let offset = 3.0f32;
        let plane = move |x: i32, y: i32, z: i32| {
            slope[0] * x as f32 + slope[1] * y as f32 + slope[2] * z as f32 + offset
        };
        let field = Field::new(plane);
        for point in [
            [0.25f32, 0.5, 0.125],
            [-3.75, 10.5, 7.875],
            [12.0, -4.625, 0.0],
        ] {
            let probe = field.probe(point[0], point[1], point[2]);
            let expected = slope[0] * point[0] + slope[1] * point[1] + slope[2] * point[2] + offset;
            assert_eq!(probe.density, expected, "{point:?}");
            assert_eq!(probe.gradient, slope, "{point:?}");
        }
    }

    #[test]
    fn gradient_matches_finite_differences_inside_cells() {
        let wavy = |x: i32, y: i32, z: i32| {
            let (x, y, z) = (x as f32, y as f32, z as f32);
            (x * 0.7).sin() * 3.0 + (y * 0.3).cos() * 2.0 - z * z * 0.05 + x * y * 0.1
        };
        let field = Field::new(wavy);
        let step = 1e-2f32;
        for point in [[0.3f32, 0.4, 0.6], [5.5, -2.2, 3.7], [-7.45, 1.5, -0.35]] {
            let probe = field.probe(point[0], point[1], point[2]);
            for axis in 0..3 {
                let mut ahead = point;
                let mut behind = point;
                ahead[axis] += step;
                behind[axis] -= step;
                let forward = field.probe(ahead[0], ahead[1], ahead[2]).density;
                let backward = field.probe(behind[0], behind[1], behind[2]).density;
                let difference = (forward - backward) / (2.0 * step);
                assert!(
                    (difference - probe.gradient[axis]).abs() < 2e-3,
                    "{point:?} axis {axis}: {difference} vs {}",
                    probe.gradient[axis]
                );
            }
        }
    }

    #[test]
    fn cache_holds_to_its_budget() {
        let field = Field::with_cache(|x: i32, y: i32, z: i32| (x + y + z) as f32, 64);
        for step in 0..4000 {
            let t = step as f32 * 0.5;
            field.probe(t, (t * 0.1).sin() * 5.0, t * 0.3);
        }
        assert!(field.cached_bricks() <= field.cache_capacity());
        assert!(field.cache_capacity() <= 64 + SHARDS);
        // Absurd points answer instead of overflowing.
        field.probe(3.0e9, -3.0e9, f32::NAN);
    }
}
