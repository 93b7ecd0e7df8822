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

use blockfall_engine::workers::WorkerPool;

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

/// A chunk's place, in chunks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ChunkCoord {
    pub x: i32,
    pub y: i32,
    pub z: i32,
}

impl ChunkCoord {
    pub fn new(x: i32, y: i32, z: i32) -> Self {
        Self { x, y, z }
    }

    /// The chunk holding the cell at this point.
    pub fn containing(position: [f32; 3]) -> Self {
        let [x, y, z] =
            position.map(|value| (f64::from(value) / f64::from(CHUNK_SIZE)).floor() as i32);
        Self { x, y, z }
    }

    /// The world sample at grid index 0: one before the chunk's first cell.
    pub fn padded_origin(&self) -> [i32; 3] {
        [self.x, self.y, self.z].map(|value| value * CHUNK_SIZE - 1)
    }

    /// The world samples of the padded grid, `[32c - 1, 32c + 32]` on each axis.
    pub fn padded_box(&self) -> SampleBox {
        let low = self.padded_origin();
        SampleBox {
            low,
            high: low.map(|value| value + PADDED_SIZE as i32 - 1),
        }
    }

    /// The chunk's centre, in meters.
    pub fn centre(&self) -> [f64; 3] {
        [self.x, self.y, self.z].map(|value| (f64::from(value) + 0.5) * f64::from(CHUNK_SIZE))
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
    edits.fill_region(coord.padded_origin(), [PADDED_SIZE; 3], out);
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
                let coord = ChunkCoord { x, y, z };
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

/// Exactly the chunks whose padded grid holds a sample of `changed`: those to mesh again.
pub fn chunks_touched(changed: &SampleBox) -> Vec<ChunkCoord> {
    // [32c - 1, 32c + 32] meets [low, high] when 32c - 1 <= high and 32c + 32 >= low.
    let first = changed
        .low
        .map(|value| value.saturating_sub(1).div_euclid(CHUNK_SIZE));
    let last = changed
        .high
        .map(|value| value.saturating_add(1).div_euclid(CHUNK_SIZE));
    let mut chunks = Vec::new();
    for z in first[2]..=last[2] {
        for y in first[1]..=last[1] {
            for x in first[0]..=last[0] {
                chunks.push(ChunkCoord { x, y, z });
            }
        }
    }
    chunks
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
    fn touched_chunks_are_exactly_those_whose_padding_meets_the_box() {
        let boxes = [
            SampleBox {
                low: [31, 0, -1],
                high: [31, 0, -1],
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
