//! Chunks: which samples the mesher gets for a chunk, which chunks to load first, which ones
//! an edit dirtied, and generating many at once on the workers.
//!
//! ```text
//!   world sample:  32c-1 | 32c  32c+1 ... 32c+31 | 32c+32
//!   grid index:      0   |  1     2   ...   32   |   33
//!                 padding       cells of chunk c    padding
//! ```
//!
//! Chunk `c` covers the cells `[32c, 32c + 32)` and owns the surface-nets edges whose start
//! sample is in `[32c, 32c + 32)³`. Its vertices need the samples one beyond on either side,
//! so its grid is 34 samples per axis (a padded grid: a halo, or ghost cells, of one sample on
//! every side); a neighbour's grid shares the border samples.

use blockfall_physics::workers::WorkerPool;

use super::edits::{EditStore, SampleBox};
use super::generator::ChunkKind;
use super::ground::Ground;

/// Cells per chunk along each axis.
pub const CHUNK_SIZE: i32 = 32;
/// Samples per axis of a chunk's padded grid.
pub const PADDED_SIZE: usize = CHUNK_SIZE as usize + 2;
/// Positions farther from the origin than this, in meters, load nothing: chunk coordinates
/// and their samples stay well inside i32 (NaN and infinities are farther too).
pub const FARTHEST: f64 = 1.0e8;
/// Samples in a chunk's padded grid.
pub const PADDED_VOLUME: usize = PADDED_SIZE * PADDED_SIZE * PADDED_SIZE;

/// The deepest skirt a chunk's mesh hangs from its border, in its cells
/// (`render::chunk_meshes::skirt` gives each chunk's, never deeper): how far outside the padded
/// grid a vertex may lie, so that culling by the box never drops a skirt in view.
pub const SKIRT_REACH: f32 = 2.0;

/// The coarsest level of detail: chunks of level `L` have cells `2^L` meters wide, so a chunk
/// of the coarsest level spans 32 × 16 = 512 m (docs/terrain.md, "Levels of detail").
pub const MAX_LEVEL: u8 = 4;

/// A chunk's place, in chunks of its level, and its level of detail: a chunk of level `L`
/// has the same 32 cells a side as one of level 0, each `2^L` meters wide, so it spans
/// `32 · 2^L` meters and its grid samples the ground every `2^L` meters. Level 0 is full
/// detail. A chunk of level `L + 1` covers exactly the eight of level `L` below it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ChunkCoord {
    pub x: i32,
    pub y: i32,
    pub z: i32,
    pub level: u8,
}

impl ChunkCoord {
    /// A chunk of full detail (level 0).
    pub fn new(x: i32, y: i32, z: i32) -> Self {
        Self { x, y, z, level: 0 }
    }

    /// A chunk of level `level` (at most [`MAX_LEVEL`]).
    pub fn at_level(x: i32, y: i32, z: i32, level: u8) -> Self {
        debug_assert!(level <= MAX_LEVEL, "level {level}");
        Self { x, y, z, level }
    }

    /// The chunk of full detail holding the cell at this point.
    pub fn containing(position: [f32; 3]) -> Self {
        Self::containing_at(position, 0)
    }

    /// The chunk of level `level` holding this point.
    pub fn containing_at(position: [f32; 3], level: u8) -> Self {
        let size = f64::from(CHUNK_SIZE) * f64::from(1u32 << level);
        let [x, y, z] = position.map(|value| (f64::from(value) / size).floor() as i32);
        Self { x, y, z, level }
    }

    /// Meters between neighbouring samples of the chunk's grid: `2^level`.
    pub fn spacing(&self) -> i32 {
        1 << self.level
    }

    /// Meters the chunk spans along each axis: `32 · 2^level`.
    pub fn span(&self) -> f64 {
        f64::from(CHUNK_SIZE) * f64::from(self.spacing())
    }

    /// The world sample at grid index 0: one sample (of the chunk's spacing) before the
    /// chunk's first cell.
    pub fn padded_origin(&self) -> [i32; 3] {
        let spacing = self.spacing();
        [self.x, self.y, self.z].map(|value| (value * CHUNK_SIZE - 1) * spacing)
    }

    /// The world samples the padded grid spans, `[32c - 1, 32c + 32]` times the spacing on
    /// each axis (a chunk of a coarser level reads only every `2^level`-th of them).
    pub fn padded_box(&self) -> SampleBox {
        let low = self.padded_origin();
        let last = (PADDED_SIZE as i32 - 1) * self.spacing();
        SampleBox {
            low,
            high: low.map(|value| value + last),
        }
    }

    /// The box the chunk's vertices lie in, in meters: its padded grid's, grown by the deepest
    /// skirt ([`SKIRT_REACH`] cells), which hangs below the grid's border cells.
    pub fn vertex_box(&self) -> ([f32; 3], [f32; 3]) {
        let spacing = self.spacing() as f32;
        let low = self
            .padded_origin()
            .map(|value| value as f32 - SKIRT_REACH * spacing);
        let reach = (CHUNK_SIZE as f32 + 1.0 + 2.0 * SKIRT_REACH) * spacing;
        (low, low.map(|value| value + reach))
    }

    /// The chunk's centre, in meters.
    pub fn centre(&self) -> [f64; 3] {
        let span = self.span();
        [self.x, self.y, self.z].map(|value| (f64::from(value) + 0.5) * span)
    }

    /// The chunk of the next coarser level that holds this one.
    pub fn parent(&self) -> Self {
        Self {
            x: self.x.div_euclid(2),
            y: self.y.div_euclid(2),
            z: self.z.div_euclid(2),
            level: self.level + 1,
        }
    }

    /// The eight chunks of the next finer level inside this one (none at level 0).
    pub fn children(&self) -> impl Iterator<Item = ChunkCoord> {
        let parent = *self;
        (0..if parent.level == 0 { 0 } else { 8 }).map(move |index| ChunkCoord {
            x: parent.x * 2 + (index & 1),
            y: parent.y * 2 + ((index >> 1) & 1),
            z: parent.z * 2 + (index >> 2),
            level: parent.level - 1,
        })
    }

    /// The arenas' name for the chunk: `[x, y, z, level]`.
    pub fn key(&self) -> [i32; 4] {
        [self.x, self.y, self.z, i32::from(self.level)]
    }

    /// The chunk the arenas name `key`, if it is one ([`ChunkCoord::key`]).
    pub fn from_key(key: [i32; 4]) -> Option<Self> {
        let level = u8::try_from(key[3])
            .ok()
            .filter(|&level| level <= MAX_LEVEL)?;
        Some(Self::at_level(key[0], key[1], key[2], level))
    }
}

/// A chunk's samples for the mesher.
#[derive(Debug, Clone, PartialEq)]
pub struct ChunkGrid {
    pub coord: ChunkCoord,
    pub kind: ChunkKind,
    /// The padded grid, x fastest, index `i + 34 j + 34² k` at world sample
    /// `32c - 1 + (i, j, k)`; empty when `kind` is Air or Solid and the chunk was skipped.
    pub samples: Vec<f32>,
}

/// The padded grid of `coord`, every sample worked out, into `out` (its allocation reused).
pub fn fill_padded_grid<G: Ground + ?Sized>(
    edits: &EditStore<G>,
    coord: ChunkCoord,
    out: &mut Vec<f32>,
) {
    edits.fill_region_spaced(
        coord.padded_origin(),
        [PADDED_SIZE; 3],
        coord.spacing(),
        out,
    );
}

/// What an unedited chunk's bounds prove, without sampling it.
pub fn classify<G: Ground + ?Sized>(edits: &EditStore<G>, coord: ChunkCoord) -> ChunkKind {
    let padded = coord.padded_box();
    edits.generator().classify(padded.low, padded.high)
}

/// The padded grid of `coord` when it may hold a surface, into `out`; nothing (and `out`
/// emptied) when the bounds prove it all air or all ground and no edit reaches into it, so the
/// caller skips meshing it. The kind says which; for a filled grid it is read from the
/// samples, so an edited chunk that is uniform is still known as such.
pub fn fill_padded_grid_or_skip<G: Ground + ?Sized>(
    edits: &EditStore<G>,
    coord: ChunkCoord,
    out: &mut Vec<f32>,
) -> ChunkKind {
    let edited = edits.has_edits_in(&coord.padded_box());
    if !edited {
        let kind = classify(edits, coord);
        if kind != ChunkKind::Mixed {
            out.clear();
            return kind;
        }
    }
    fill_padded_grid(edits, coord, out);
    kind_of(out)
}

/// What a grid of samples holds: inside is density > 0.
pub fn kind_of(samples: &[f32]) -> ChunkKind {
    let inside = samples.iter().filter(|value| **value > 0.0).count();
    match inside {
        0 => ChunkKind::Air,
        count if count == samples.len() => ChunkKind::Solid,
        _ => ChunkKind::Mixed,
    }
}

/// The grids of many chunks, generated on the pool's threads; the same for any thread count,
/// in the order of `coords`.
pub fn generate_chunks<G: Ground + ?Sized>(
    pool: &WorkerPool,
    edits: &EditStore<G>,
    coords: &[ChunkCoord],
) -> Vec<ChunkGrid> {
    pool.map(coords, |coord| {
        let mut samples = Vec::new();
        let kind = fill_padded_grid_or_skip(edits, *coord, &mut samples);
        ChunkGrid {
            coord: *coord,
            kind,
            samples,
        }
    })
}

/// Every chunk whose centre is within `view_radius_chunks` chunks of `position` (a sphere, so
/// that looking down a cave loads as far as looking across a valley), nearest first; chunks at
/// the same distance in the order of their coordinates (x, then y, then z). Empty for a
/// position beyond [`FARTHEST`]; a radius is capped at 64 chunks (275 000 chunks already).
pub fn load_order(position: [f32; 3], view_radius_chunks: u32) -> Vec<ChunkCoord> {
    let mut chunks: Vec<(f64, ChunkCoord)> = Vec::new();
    chunks_in_view(position, view_radius_chunks, |squared, coord| {
        chunks.push((squared, coord))
    });
    chunks.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
    chunks.into_iter().map(|(_, coord)| coord).collect()
}

/// Calls `visit` with every chunk of [`load_order`] in no particular order, each with its
/// centre's squared distance from `position` in chunks.
pub fn chunks_in_view(
    position: [f32; 3],
    view_radius_chunks: u32,
    mut visit: impl FnMut(f64, ChunkCoord),
) {
    let view_radius_chunks = view_radius_chunks.min(64);
    let radius = f64::from(view_radius_chunks);
    let size = f64::from(CHUNK_SIZE);
    let position = position.map(f64::from);
    if !position.iter().all(|value| value.abs() <= FARTHEST) {
        return;
    }
    let around = ChunkCoord::containing(position.map(|value| value as f32));
    let reach = view_radius_chunks as i32 + 1;
    for z in around.z - reach..=around.z + reach {
        for y in around.y - reach..=around.y + reach {
            for x in around.x - reach..=around.x + reach {
                let coord = ChunkCoord::new(x, y, z);
                let centre = coord.centre();
                let squared: f64 = (0..3)
                    .map(|axis| {
                        let offset = (centre[axis] - position[axis]) / size;
                        offset * offset
                    })
                    .sum();
                if squared <= radius * radius {
                    visit(squared, coord);
                }
            }
        }
    }
}

/// Exactly the chunks of full detail whose padded grid holds a sample of `changed`: those to
/// mesh again.
pub fn chunks_touched(changed: &SampleBox) -> Vec<ChunkCoord> {
    chunks_touched_at(changed, 0)
}

/// Exactly the chunks of level `level` whose padded grid holds a sample of `changed`: those
/// whose span (`[32c - 1, 32c + 32]` times the level's spacing) meets it at one of the samples
/// the grid reads (every `2^level`-th).
pub fn chunks_touched_at(changed: &SampleBox, level: u8) -> Vec<ChunkCoord> {
    let spacing = 1i32 << level;
    let span = CHUNK_SIZE * spacing;
    // [32cs - s, 32cs + 32s] meets [low, high] when 32cs - s <= high and 32cs + 32s >= low.
    let first = changed
        .low
        .map(|value| value.saturating_sub(1).div_euclid(span));
    let last = changed
        .high
        .map(|value| value.saturating_add(spacing).div_euclid(span));
    let mut chunks = Vec::new();
    for z in first[2]..=last[2] {
        for y in first[1]..=last[1] {
            for x in first[0]..=last[0] {
                let coord = ChunkCoord::at_level(x, y, z, level);
                if reads_a_sample_of(coord, changed) {
                    chunks.push(coord);
                }
            }
        }
    }
    chunks
}

/// Whether `coord`'s padded grid reads a sample of `changed`: on each axis, one of its
/// samples `origin + k · spacing` (`k` in `0..34`) lies in the box.
fn reads_a_sample_of(coord: ChunkCoord, changed: &SampleBox) -> bool {
    let origin = coord.padded_origin();
    let spacing = i64::from(coord.spacing());
    (0..3).all(|axis| {
        let low = i64::from(changed.low[axis]) - i64::from(origin[axis]);
        let high = i64::from(changed.high[axis]) - i64::from(origin[axis]);
        let first = low.max(0).div_euclid(spacing) + i64::from(low.max(0) % spacing != 0);
        let last = high.div_euclid(spacing).min(PADDED_SIZE as i64 - 1);
        first <= last
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn load_order_is_nearest_first_and_complete() {
        let position = [10.0, -5.0, 70.0];
        let radius = 3;
        let order = load_order(position, radius);
        let distance = |coord: &ChunkCoord| {
            let centre = coord.centre();
            (0..3)
                .map(|axis| (centre[axis] - f64::from(position[axis])) / 32.0)
                .map(|offset| offset * offset)
                .sum::<f64>()
                .sqrt()
        };
        for pair in order.windows(2) {
            assert!(distance(&pair[0]) <= distance(&pair[1]));
        }
        let mut expected = 0;
        for z in -10..10 {
            for y in -10..10 {
                for x in -10..10 {
                    let coord = ChunkCoord::new(x, y, z);
                    if distance(&coord) <= 3.0 {
                        expected += 1;
                        assert!(order.contains(&coord), "{coord:?} missing");
                    }
                }
            }
        }
        assert_eq!(order.len(), expected);
        assert_eq!(load_order(position, radius), order, "deterministic");
        assert!(load_order([f32::NAN, 0.0, 0.0], 2).is_empty());
        assert!(load_order([0.0, 3.0e9, 0.0], 2).is_empty());
        assert_eq!(
            load_order([0.0; 3], 1).len(),
            8,
            "the eight chunks around a corner"
        );
    }

    #[test]
    fn a_level_is_eight_chunks_of_the_level_below_and_keys_name_them_back() {
        let coord = ChunkCoord::at_level(-3, 1, 2, 2);
        assert_eq!(coord.spacing(), 4);
        assert_eq!(coord.span(), 128.0);
        // Grid index 0 is one sample (4 m) before the first cell at -3 · 128 m.
        assert_eq!(coord.padded_origin(), [-388, 124, 252]);
        assert_eq!(
            coord.padded_box().high,
            [-388 + 33 * 4, 124 + 132, 252 + 132]
        );
        let children: Vec<ChunkCoord> = coord.children().collect();
        assert_eq!(children.len(), 8);
        for child in &children {
            assert_eq!(child.level, 1);
            assert_eq!(child.parent(), coord);
            // The children tile the parent's cells exactly.
            let (low, high) = (child.centre(), coord.centre());
            assert!((0..3).all(|axis| (low[axis] - high[axis]).abs() == 32.0));
        }
        assert_eq!(ChunkCoord::new(0, 0, 0).children().count(), 0);
        assert_eq!(ChunkCoord::from_key(coord.key()), Some(coord));
        assert_eq!(ChunkCoord::from_key([0, 0, 0, 9]), None);
        assert_eq!(ChunkCoord::from_key([0, 0, 0, -1]), None);
        assert_eq!(
            ChunkCoord::containing_at([-1.0, 511.0, 512.0], 4),
            ChunkCoord::at_level(-1, 0, 1, 4)
        );
    }

    #[test]
    fn a_coarse_grid_reads_the_fields_samples_at_its_spacing() {
        use crate::terrain::Generator;
        use std::sync::Arc;
        let generator = Arc::new(Generator::new(Generator::DEFAULT_SEED));
        let ground = generator.surface_height(40.0, 40.0);
        let mut edits = EditStore::new(generator.clone());
        // A dig at the surface that the coarse grids sample: their samples change as the
        // field's do.
        let centre = [40.0, ground, 40.0];
        edits.dig(centre, 9.0).expect("a dig in the world");
        for level in [1u8, 3] {
            let coord = ChunkCoord::containing_at(centre, level);
            let mut samples = Vec::new();
            fill_padded_grid(&edits, coord, &mut samples);
            assert_eq!(samples.len(), PADDED_VOLUME);
            let origin = coord.padded_origin();
            let spacing = coord.spacing();
            let mut dug = 0;
            for (index, value) in samples.iter().enumerate() {
                let [i, j, k] = [
                    index % PADDED_SIZE,
                    index / PADDED_SIZE % PADDED_SIZE,
                    index / (PADDED_SIZE * PADDED_SIZE),
                ]
                .map(|step| step as i32 * spacing);
                let [x, y, z] = [origin[0] + i, origin[1] + j, origin[2] + k];
                let expected = edits.sample(x, y, z);
                assert_eq!(
                    value.to_bits(),
                    expected.to_bits(),
                    "level {level}, {index}"
                );
                dug += usize::from(expected != generator.density(x, y, z));
            }
            assert!(
                dug > 0,
                "level {level}: the dig reaches a sample of the grid"
            );
        }
    }

    #[test]
    fn touched_chunks_are_exactly_those_whose_padding_meets_the_box() {
        let boxes = [
            SampleBox {
                low: [31, 0, -1],
                high: [31, 0, -1],
            },
            // Between the samples of every coarser level on x.
            SampleBox {
                low: [62, 2, 5],
                high: [62, 9, 40],
            },
            SampleBox {
                low: [32, 63, 64],
                high: [40, 64, 64],
            },
            SampleBox {
                low: [-70, -3, 5],
                high: [-60, 30, 33],
            },
        ];
        for level in 1..=3 {
            for changed in &boxes {
                let touched = chunks_touched_at(changed, level);
                for z in -3..3 {
                    for y in -3..3 {
                        for x in -3..3 {
                            let coord = ChunkCoord::at_level(x, y, z, level);
                            // Whether a sample the grid reads lies in the box, by asking
                            // each one.
                            let origin = coord.padded_origin();
                            let spacing = coord.spacing();
                            let reads = (0..3).all(|axis| {
                                (0..PADDED_SIZE as i32).any(|k| {
                                    let sample = origin[axis] + k * spacing;
                                    (changed.low[axis]..=changed.high[axis]).contains(&sample)
                                })
                            });
                            assert_eq!(
                                touched.contains(&coord),
                                reads,
                                "{coord:?} and {changed:?}"
                            );
                        }
                    }
                }
            }
        }
        for changed in boxes {
            let touched = chunks_touched(&changed);
            for z in -4..4 {
                for y in -4..4 {
                    for x in -4..4 {
                        let coord = ChunkCoord::new(x, y, z);
                        assert_eq!(
                            touched.contains(&coord),
                            coord.padded_box().intersects(&changed),
                            "{coord:?} and {changed:?}"
                        );
                    }
                }
            }
        }
    }
}
