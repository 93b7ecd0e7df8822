//! Sky light: how much of the open sky's light reaches each sample of a chunk. Out in the open
//! it is 1; it follows air into caves and tunnels and fades by [`FADE_PER_METER`] with every
//! meter it travels, so a cave mouth is bright, its depths dark, and a closed cave black. The
//! ground right at a surface takes the light of the air beside it, so a blend of the samples at
//! a surface vertex is the light of the air there.
//!
//! Worked out per chunk, on the workers, for the chunk's padded grid (the samples its mesh
//! blends), from a box [`MARGIN`] samples larger on every side: light that enters further away
//! than the margin arrives faded below `FADE_PER_METER ^ MARGIN` (0.1) and is left out, so two
//! neighbouring chunks agree on their shared samples to within that. Meshes sample the grid at
//! their vertices; blocks and pieces ask [`LightGrid::light_at`] for the same light.
//!
//! The sky is the air above the generated ground's height (before caves): the ground there
//! only ever loses samples to caves and digs, so anything below the height is under ground,
//! and anything above is open, unless something was built over it (builds do not shade: a
//! known simplification, small next to the caves' darkness).

use std::cmp::Ordering;
use std::collections::BinaryHeap;

use blockfall_engine::workers::WorkerPool;

use super::chunks::{ChunkCoord, PADDED_SIZE};
use super::edits::EditStore;
use super::ground::Ground;

/// How much light is left after travelling one meter through air below the sky.
pub const FADE_PER_METER: f32 = 0.75;

/// Samples beyond the padded grid, on every side, through which light may come in.
pub const MARGIN: i32 = 8;

/// The light of one chunk's padded grid (34³ samples, x fastest), from 0 to 1.
#[derive(Debug, Clone, PartialEq)]
pub struct LightGrid {
    /// The world sample of index 0.
    pub origin: [i32; 3],
    pub values: Vec<f32>,
}

impl LightGrid {
    /// The light of a world sample, if it lies in the grid.
    pub fn sample(&self, sample: [i32; 3]) -> Option<f32> {
        let mut index = 0;
        let mut stride = 1;
        for (&at, &origin) in sample.iter().zip(&self.origin) {
            let offset = at.checked_sub(origin)?;
            if !(0..PADDED_SIZE as i32).contains(&offset) {
                return None;
            }
            index += offset as usize * stride;
            stride *= PADDED_SIZE;
        }
        self.values.get(index).copied()
    }

    /// The light at a point (meters), blended from the 8 samples around it as the meshes blend
    /// it; points outside the grid take the nearest sample inside. Blocks and pieces are lit
    /// with this.
    pub fn light_at(&self, point: [f32; 3]) -> f32 {
        if !point.iter().all(|c| c.is_finite()) {
            return 0.0;
        }
        let last = (PADDED_SIZE - 1) as f32;
        let local: [f32; 3] =
            std::array::from_fn(|axis| (point[axis] - self.origin[axis] as f32).clamp(0.0, last));
        let low = local.map(|c| (c.floor() as i32).min(PADDED_SIZE as i32 - 2));
        let fraction: [f32; 3] = std::array::from_fn(|axis| local[axis] - low[axis] as f32);
        let at = |i: i32, j: i32, k: i32| {
            self.sample([
                self.origin[0] + low[0] + i,
                self.origin[1] + low[1] + j,
                self.origin[2] + low[2] + k,
            ])
            .unwrap_or(0.0)
        };
        let lerp = |a: f32, b: f32, t: f32| a + (b - a) * t;
        let [fx, fy, fz] = fraction;
        lerp(
            lerp(
                lerp(at(0, 0, 0), at(1, 0, 0), fx),
                lerp(at(0, 1, 0), at(1, 1, 0), fx),
                fy,
            ),
            lerp(
                lerp(at(0, 0, 1), at(1, 0, 1), fx),
                lerp(at(0, 1, 1), at(1, 1, 1), fx),
                fy,
            ),
            fz,
        )
    }
}

/// A sample waiting to pass its light on, brightest first.
#[derive(PartialEq)]
struct Lit(f32, u32);

impl Eq for Lit {}

impl PartialOrd for Lit {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Lit {
    fn cmp(&self, other: &Self) -> Ordering {
        // Lights are finite and in 0..=1; ties by index keep the order fixed.
        self.0
            .total_cmp(&other.0)
            .then_with(|| other.1.cmp(&self.1))
    }
}

/// The six samples beside sample `at` of a cube of `side`³ samples (x fastest), where they exist.
fn neighbours(at: usize, side: usize) -> [Option<usize>; 6] {
    let (x, y, z) = (at % side, at / side % side, at / (side * side));
    [
        (x > 0).then(|| at - 1),
        (x + 1 < side).then(|| at + 1),
        (y > 0).then(|| at - side),
        (y + 1 < side).then(|| at + side),
        (z > 0).then(|| at - side * side),
        (z + 1 < side).then(|| at + side * side),
    ]
}

/// The light grid of one chunk of the edited ground.
pub fn light_grid<G: Ground + ?Sized>(edits: &EditStore<G>, coord: ChunkCoord) -> LightGrid {
    let origin = coord.padded_origin();
    let side = PADDED_SIZE + 2 * MARGIN as usize;
    let low = origin.map(|c| c - MARGIN);
    let mut density = Vec::new();
    edits.fill_region(low, [side; 3], &mut density);
    let index = |x: usize, y: usize, z: usize| x + side * (y + side * z);
    let mut light = vec![0.0f32; density.len()];
    let mut waiting = BinaryHeap::new();
    // The open sky: air above the generated ground's height.
    for z in 0..side {
        for x in 0..side {
            let world_x = (low[0] + x as i32) as f32;
            let world_z = (low[2] + z as i32) as f32;
            let height = edits.generator().surface_height(world_x, world_z);
            for y in (0..side).rev() {
                let world_y = (low[1] + y as i32) as f32;
                if world_y < height {
                    break;
                }
                let at = index(x, y, z);
                if density[at] <= 0.0 {
                    light[at] = 1.0;
                }
            }
        }
    }
    // Only sky samples beside something not lit yet pass light on: most of the open sky is
    // surrounded by sky and need not wait in the heap.
    for at in 0..density.len() {
        if light[at] < 1.0 {
            continue;
        }
        let dark_beside = neighbours(at, side)
            .into_iter()
            .flatten()
            .any(|next| light[next] < 1.0);
        if dark_beside {
            waiting.push(Lit(1.0, at as u32));
        }
    }
    // Light flows through air, fading with each meter, brightest first (each sample is settled
    // when it is first taken from the heap with its final light).
    let mut lit_ground = vec![0.0f32; density.len()];
    while let Some(Lit(value, at)) = waiting.pop() {
        let at = at as usize;
        if value < light[at] {
            continue;
        }
        let passed = value * FADE_PER_METER;
        for next in neighbours(at, side).into_iter().flatten() {
            if density[next] > 0.0 {
                // Ground at the surface takes the light of the air beside it.
                lit_ground[next] = lit_ground[next].max(value);
            } else if passed > light[next] + 1e-6 {
                light[next] = passed;
                waiting.push(Lit(passed, next as u32));
            }
        }
    }
    let margin = MARGIN as usize;
    let mut values = Vec::with_capacity(PADDED_SIZE * PADDED_SIZE * PADDED_SIZE);
    for z in 0..PADDED_SIZE {
        for y in 0..PADDED_SIZE {
            for x in 0..PADDED_SIZE {
                let at = index(x + margin, y + margin, z + margin);
                values.push(if density[at] > 0.0 {
                    lit_ground[at]
                } else {
                    light[at]
                });
            }
        }
    }
    LightGrid { origin, values }
}

/// The light grids of many chunks on the workers, in the order of `coords`.
pub fn light_grids<G: Ground + ?Sized>(
    pool: &WorkerPool,
    edits: &EditStore<G>,
    coords: &[ChunkCoord],
) -> Vec<LightGrid> {
    pool.map(coords, |&coord| light_grid(edits, coord))
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::*;
    use crate::terrain::PlaneGround;

    fn flat() -> EditStore<dyn Ground> {
        let ground: Arc<dyn Ground> = Arc::new(PlaneGround::flat(0.0));
        EditStore::new(ground)
    }

    #[test]
    fn the_open_sky_is_bright_and_deep_ground_dark() {
        let edits = flat();
        let grid = light_grid(&edits, ChunkCoord::new(0, 0, 0));
        assert_eq!(grid.sample([5, 10, 5]), Some(1.0), "open air");
        assert_eq!(grid.sample([5, 0, 5]), Some(1.0), "the surface");
        let below = light_grid(&edits, ChunkCoord::new(0, -1, 0));
        assert_eq!(below.sample([5, -10, 5]), Some(0.0), "deep in the ground");
        assert!((grid.light_at([5.5, 0.3, 5.5]) - 1.0).abs() < 1e-6);
    }

    #[test]
    fn a_closed_cave_is_black_and_a_tunnel_fades_from_its_mouth() {
        let mut edits = flat();
        // A closed cave 15 m down.
        edits.dig([10.0, -15.0, 10.0], 4.0).unwrap();
        // An open pit, and a tunnel from its bottom running along +x.
        edits.dig([10.0, 0.0, 20.0], 3.0).unwrap();
        let mut x = 10.0;
        while x <= 30.0 {
            edits.dig([x, -3.5, 20.0], 2.0).unwrap();
            x += 1.0;
        }
        let grid = light_grid(&edits, ChunkCoord::new(0, -1, 0));
        assert_eq!(grid.sample([10, -15, 10]), Some(0.0), "the closed cave");
        let along: Vec<f32> = [14, 18, 22, 26]
            .iter()
            .map(|&x| grid.sample([x, -4, 20]).unwrap())
            .collect();
        assert!(
            along.windows(2).all(|w| w[0] > w[1]),
            "fades along the tunnel: {along:?}"
        );
        assert!(along[0] > 0.05 && along[3] < 0.05, "{along:?}");
    }

    #[test]
    fn neighbouring_chunks_agree_on_their_shared_samples() {
        let mut edits = flat();
        edits.dig([31.0, -2.0, 10.0], 5.0).unwrap();
        let pool = WorkerPool::new(2).unwrap();
        let coords = [ChunkCoord::new(0, -1, 0), ChunkCoord::new(1, -1, 0)];
        let grids = light_grids(&pool, &edits, &coords);
        let mut compared = 0;
        for y in -33..1 {
            for z in -1..33 {
                for x in 31..34 {
                    let (Some(a), Some(b)) =
                        (grids[0].sample([x, y, z]), grids[1].sample([x, y, z]))
                    else {
                        continue;
                    };
                    assert!((a - b).abs() <= 0.1, "({x}, {y}, {z}): {a} against {b}");
                    compared += 1;
                }
            }
        }
        assert!(compared > 1000);
        assert_eq!(
            grids[0],
            light_grid(&edits, coords[0]),
            "the same on one thread"
        );
    }

    #[test]
    fn light_at_blends_the_samples() {
        let edits = flat();
        let grid = light_grid(&edits, ChunkCoord::new(0, -1, 0));
        for sample in [[3, -2, 4], [0, -1, 0], [10, -30, 7]] {
            let point = sample.map(|c| c as f32);
            assert_eq!(grid.light_at(point), grid.sample(sample).unwrap());
        }
        assert_eq!(grid.light_at([f32::NAN, 0.0, 0.0]), 0.0);
        // Far outside: the nearest sample's light, no panic.
        assert!(grid.light_at([1e9, 1e9, 1e9]).is_finite());
    }
}
