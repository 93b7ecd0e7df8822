//! The generated ground: a density from noise, positive inside the ground.
//!
//! ```text
//!   density = min(depth, cave, tunnel)        depth = surface_height(x, z) - y
//!
//!        north (-z)                       spawn (0, 40)     south (+z)
//!   ______________                            |
//!                 \___  <- slope z in [-80, 10], tunnels open here
//!                     \______________________ v ________________
//! ```
//!
//! Near the surface the density is the height above or below it, in meters: it changes about
//! one per meter, so density over the length of its gradient is about the distance to the
//! surface, which the player and the pieces rely on. Caves and tunnels are distances too, and
//! `min` keeps the ground only where all three say "inside".
//!
//! Every term is bounded: Perlin noise of the `noise` crate is clamped to [-1, 1], and its
//! slope is bounded (see `PERLIN_SLOPE`), so [`Generator::classify`] can prove a region all
//! air or all ground from a few height samples instead of sampling every point.

use noise::{NoiseFn, Perlin};

/// The spawn point's x and z; the feet go one meter above the ground there.
pub const SPAWN_XZ: [f32; 2] = [0.0, 40.0];
/// Where the first view looks: north, at this x and z, 20 m above the ground.
pub const FIRST_VIEW_XZ: [f32; 2] = [0.0, -200.0];

/// The steepest slope of the `noise` crate's 2D Perlin noise at frequency 1, as a bound on the
/// length of its gradient.
///
/// Inside a lattice cell the noise is `√2 · Σ wᵢ gᵢ`, the `gᵢ` linear with slopes ±1 along x
/// and the weights `wᵢ` products of the quintic fade `s`. Along x the derivative is
/// `√2 · (Σ wᵢ ∂gᵢ/∂x + s'(dx) · [(1 - s(dy))(g₁₀ - g₀₀) + s(dy)(g₁₁ - g₀₁)])`; the first sum
/// is at most 1, `s' ≤ 1.875`, and `|g₁₀ - g₀₀| ≤ 1 + 2 dy`, `|g₁₁ - g₀₁| ≤ 1 + 2(1 - dy)`,
/// whose blend is at most `1 + 2 · 0.5` (since `s(t) ≤ t` below one half). So each axis is
/// bounded by `√2 · 4.75`, and the gradient by `2 · 4.75`. The clamp to [-1, 1] only flattens.
const PERLIN_SLOPE: f64 = 9.5;

/// Rounding in f64 and the cast to f32 stay far below this, in meters.
const BOUND_MARGIN: f64 = 0.05;

/// The slope north of the spawn: the ground rises this much from z = 10 to z = -80.
const SLOPE_RISE: f64 = 36.0;
const SLOPE_SOUTH: f64 = 10.0;
const SLOPE_NORTH: f64 = -80.0;

/// Around the spawn and its slope the hills are calmer and there are no cliffs: this box in
/// x and z, with the calm fading out over [`CALM_FADE`] meters around it.
const CALM_BOX: [[f64; 2]; 2] = [[-60.0, 60.0], [-100.0, 70.0]];
const CALM_FADE: f64 = 90.0;
/// How much of the hills is left inside the calm box.
const CALM_HILLS: f64 = 0.25;

/// Terraces: a low noise mapped through steps of this height, whose rise is squeezed into the
/// last [`TERRACE_RISE`] of each step: flats with cliffs between them.
const TERRACE_STEP: f64 = 7.0;
const TERRACE_RISE: f64 = 0.15;
const TERRACE_AMPLITUDE: f64 = 28.0;
const TERRACE_FREQUENCY: f64 = 1.0 / 300.0;

/// The large hills (amplitude, frequency): bounded per region through their slope.
const HILLS: [(f64, f64); 2] = [(20.0, 1.0 / 256.0), (9.0, 1.0 / 110.0)];
/// The small detail: bounded per region by its amplitude alone.
const DETAILS: [(f64, f64); 3] = [(3.0, 1.0 / 45.0), (1.2, 1.0 / 18.0), (0.5, 1.0 / 8.0)];

/// Caves are where two 3D noises are both near zero: worm-like tunnels.
const CAVE_FREQUENCY: f64 = 1.0 / 40.0;
/// How near zero, in noise units.
const CAVE_RADIUS: f64 = 0.12;
/// Noise units to meters, so that a cave's density is about a distance too.
const CAVE_SCALE: f64 = 16.0;
/// Caves fill up below this depth: the cave term rises by this stiffness per meter deeper.
const CAVE_FLOOR: f64 = 40.0;
const CAVE_FLOOR_STIFFNESS: f64 = 2.0;
/// Caves stay below this depth, except on the slope north of the spawn, where they may open.
const CAVE_ROOF: f64 = 8.0;
const CAVE_ROOF_AT_ENTRANCES: f64 = -2.0;
const CAVE_ROOF_STIFFNESS: f64 = 1.0;
/// The entrance zone on the slope, in x and z, fading over [`ENTRANCE_FADE`] meters.
const ENTRANCE_BOX: [[f64; 2]; 2] = [[-70.0, 70.0], [-85.0, 5.0]];
const ENTRANCE_FADE: f64 = 20.0;
/// No cave is deeper than this: below it the cave term is positive whatever the noise says.
const DEEPEST_CAVE: f64 = CAVE_FLOOR + CAVE_SCALE * CAVE_RADIUS / CAVE_FLOOR_STIFFNESS;

/// Tunnels dug into the slope north of the spawn, so that it has cave entrances for any seed:
/// (x of the mouth, z of the mouth, sideways bend).
const TUNNELS: [(f64, f64, f64); 3] = [(-34.0, -35.0, 1.0), (2.0, -22.0, -1.0), (32.0, -45.0, 1.0)];
const TUNNEL_RADIUS: f64 = 3.0;

/// What a region of samples holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ChunkKind {
    /// Every sample is air (density <= 0): nothing to mesh.
    Air,
    /// Every sample is ground (density > 0): nothing to mesh.
    Solid,
    /// Maybe both: the surface may pass through.
    Mixed,
}

/// One octave of 2D noise.
#[derive(Clone)]
struct Octave {
    noise: Perlin,
    amplitude: f64,
    frequency: f64,
}

impl Octave {
    fn get(&self, x: f64, z: f64) -> f64 {
        self.amplitude * self.noise.get([x * self.frequency, z * self.frequency])
    }

    /// The steepest this octave can be, in meters per meter.
    fn slope(&self) -> f64 {
        self.amplitude * self.frequency * PERLIN_SLOPE
    }
}

/// A tunnel's axis: a polyline, with the box around it for bounds.
#[derive(Debug, Clone)]
struct Tunnel {
    points: [[f64; 3]; 3],
}

/// One straight piece of a tunnel, with its bounding box.
#[derive(Debug, Clone, Copy)]
struct Segment {
    start: [f64; 3],
    end: [f64; 3],
    low: [f64; 3],
    high: [f64; 3],
}

impl Segment {
    fn new(start: [f64; 3], end: [f64; 3]) -> Self {
        Self {
            start,
            end,
            low: std::array::from_fn(|axis| start[axis].min(end[axis])),
            high: std::array::from_fn(|axis| start[axis].max(end[axis])),
        }
    }

    /// No point of the box `low..=high` is nearer the segment than this.
    fn distance_at_least(&self, low: [f64; 3], high: [f64; 3]) -> f64 {
        let mut squared = 0.0;
        for axis in 0..3 {
            let gap = (self.low[axis] - high[axis])
                .max(low[axis] - self.high[axis])
                .max(0.0);
            squared += gap * gap;
        }
        squared.sqrt()
    }
}

/// What a column of ground shares between its samples.
#[derive(Debug, Clone, Copy)]
struct Column {
    x: f64,
    z: f64,
    height: f64,
    /// Caves stay below this depth here.
    roof: f64,
}

/// An interval of values, for the bounds of [`Generator::classify`].
#[derive(Debug, Clone, Copy)]
struct Interval {
    low: f64,
    high: f64,
}

impl Interval {
    fn add(self, other: Self) -> Self {
        Self {
            low: self.low + other.low,
            high: self.high + other.high,
        }
    }

    fn multiply(self, other: Self) -> Self {
        let products = [
            self.low * other.low,
            self.low * other.high,
            self.high * other.low,
            self.high * other.high,
        ];
        Self {
            low: products.iter().copied().fold(f64::INFINITY, f64::min),
            high: products.iter().copied().fold(f64::NEG_INFINITY, f64::max),
        }
    }
}

/// The world's ground for one seed. Deterministic: the same seed gives the same density
/// everywhere, on any thread.
#[derive(Clone)]
pub struct Generator {
    seed: u32,
    hills: Vec<Octave>,
    details: Vec<Octave>,
    terraces: Perlin,
    caves: [Perlin; 2],
    tunnels: Vec<Tunnel>,
    /// The tunnels' straight pieces.
    segments: Vec<Segment>,
}

impl std::fmt::Debug for Generator {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        formatter
            .debug_struct("Generator")
            .field("seed", &self.seed)
            .finish_non_exhaustive()
    }
}

impl Generator {
    /// The seed of the default world: the one the game opens and the benchmarks measure.
    pub const DEFAULT_SEED: u32 = 20_261_129;

    /// The ground of `seed`.
    pub fn new(seed: u32) -> Self {
        let noise = |index: u32| Perlin::new(seed.wrapping_mul(0x9E37_79B9).wrapping_add(index));
        let octaves = |list: &[(f64, f64)], first: u32| {
            list.iter()
                .zip(first..)
                .map(|(&(amplitude, frequency), index)| Octave {
                    noise: noise(index),
                    amplitude,
                    frequency,
                })
                .collect::<Vec<_>>()
        };
        let mut generator = Self {
            seed,
            hills: octaves(&HILLS, 0),
            details: octaves(&DETAILS, 10),
            terraces: noise(20),
            caves: [noise(30), noise(31)],
            tunnels: Vec::new(),
            segments: Vec::new(),
        };
        // The tunnels start at the ground of their mouths, which the noise decides.
        generator.tunnels = TUNNELS
            .iter()
            .map(|&(x, z, bend)| {
                let mouth = generator.height(x, z);
                Tunnel {
                    points: [
                        [x, mouth + 1.0, z],
                        [x + 8.0 * bend, mouth - 5.0, z - 40.0],
                        [x - 6.0 * bend, mouth - 18.0, z - 90.0],
                    ],
                }
            })
            .collect();
        generator.segments = generator
            .tunnels
            .iter()
            .flat_map(|tunnel| {
                tunnel
                    .points
                    .windows(2)
                    .map(|pair| Segment::new(pair[0], pair[1]))
                    .collect::<Vec<_>>()
            })
            .collect();
        generator
    }

    /// The seed this ground was made from.
    pub fn seed(&self) -> u32 {
        self.seed
    }

    /// Where the player's feet start: one meter above the ground at [`SPAWN_XZ`].
    pub fn spawn_point(&self) -> [f32; 3] {
        let [x, z] = SPAWN_XZ;
        [x, self.surface_height(x, z) + 1.0, z]
    }

    /// Where the first view looks: north, 20 m above the ground at [`FIRST_VIEW_XZ`].
    pub fn first_view_target(&self) -> [f32; 3] {
        let [x, z] = FIRST_VIEW_XZ;
        [x, self.surface_height(x, z) + 20.0, z]
    }

    /// The mouths of the tunnels on the slope north of the spawn: points in the open air just
    /// in front of each entrance.
    pub fn cave_entrances(&self) -> Vec<[f32; 3]> {
        self.tunnels
            .iter()
            .map(|tunnel| {
                let [x, y, z] = tunnel.points[0];
                [x as f32, y as f32, z as f32]
            })
            .collect()
    }

    /// The height of the ground's surface, caves aside: hills, valleys and terraced cliffs,
    /// and the slope north of the spawn.
    pub fn surface_height(&self, x: f32, z: f32) -> f32 {
        self.height(f64::from(x), f64::from(z)) as f32
    }

    /// The density at a whole-meter sample: positive inside the ground, about the distance to
    /// the surface in meters near it.
    pub fn density(&self, x: i32, y: i32, z: i32) -> f32 {
        self.density_at(f64::from(x), f64::from(y), f64::from(z)) as f32
    }

    /// The density anywhere, in f64 (the samples are this at whole meters).
    pub fn density_at(&self, x: f64, y: f64, z: f64) -> f64 {
        self.density_in(&self.column(x, z), y)
    }

    /// The densities of the samples `low + (i, j, k)` for `i < size[0]` and so on, x fastest,
    /// into `out` (cleared first); the same bits as [`Generator::density`] for each.
    ///
    /// Each column's height is worked out once, and so is which tunnel pieces can matter to
    /// it: a piece whose distance from the column, less the tunnel's radius, exceeds the
    /// column's deepest depth is farther than the ground's own term `depth` at every sample,
    /// so leaving it out of the minimum changes no value (most columns keep none).
    pub fn fill_region(&self, low: [i32; 3], size: [usize; 3], out: &mut Vec<f32>) {
        self.fill_region_spaced(low, size, 1, out);
    }

    /// [`Generator::fill_region`] with the samples `spacing` meters apart: the samples
    /// `low + spacing · (i, j, k)` (a coarse level of detail's grid), the same bits as
    /// `density()` at each.
    pub fn fill_region_spaced(
        &self,
        low: [i32; 3],
        size: [usize; 3],
        spacing: i32,
        out: &mut Vec<f32>,
    ) {
        out.clear();
        out.resize(size[0] * size[1] * size[2], 0.0);
        let row = size[0];
        let layer = size[0] * size[1];
        let step = f64::from(spacing.max(1));
        let bottom = f64::from(low[1]);
        let top = bottom + size[1].saturating_sub(1) as f64 * step;
        let mut near = Vec::with_capacity(self.segments.len());
        for k in 0..size[2] {
            for i in 0..size[0] {
                let column = self.column(
                    f64::from(low[0]) + i as f64 * step,
                    f64::from(low[2]) + k as f64 * step,
                );
                let deepest = column.height - bottom;
                near.clear();
                near.extend(self.segments.iter().copied().filter(|segment| {
                    let reach = segment
                        .distance_at_least([column.x, bottom, column.z], [column.x, top, column.z]);
                    reach - TUNNEL_RADIUS <= deepest
                }));
                for j in 0..size[1] {
                    let y = bottom + j as f64 * step;
                    out[i + j * row + k * layer] = self.density_near(&column, y, &near) as f32;
                }
            }
        }
    }

    /// What the samples of the inclusive box `low..=high` hold, proven from the bounds of the
    /// noise: [`ChunkKind::Air`] or [`ChunkKind::Solid`] only when every sample is, without
    /// sampling them. [`ChunkKind::Mixed`] when the bounds cannot tell.
    pub fn classify(&self, low: [i32; 3], high: [i32; 3]) -> ChunkKind {
        let height = self.height_bounds(
            [f64::from(low[0]), f64::from(low[2])],
            [f64::from(high[0]), f64::from(high[2])],
        );
        let bottom = f64::from(low[1]);
        let top = f64::from(high[1]);
        // density <= depth = height - y: above the highest ground, all air.
        if bottom > height.high + BOUND_MARGIN {
            return ChunkKind::Air;
        }
        // Below the deepest cave and clear of the tunnels, all ground.
        let shallowest = height.low - top;
        if shallowest > DEEPEST_CAVE + BOUND_MARGIN && self.clear_of_tunnels(low, high) {
            return ChunkKind::Solid;
        }
        ChunkKind::Mixed
    }

    fn column(&self, x: f64, z: f64) -> Column {
        let entrance = 1.0 - smoothstep(distance_to_box(x, z, ENTRANCE_BOX) / ENTRANCE_FADE);
        Column {
            x,
            z,
            height: self.height(x, z),
            roof: CAVE_ROOF + (CAVE_ROOF_AT_ENTRANCES - CAVE_ROOF) * entrance,
        }
    }

    fn density_in(&self, column: &Column, y: f64) -> f64 {
        self.density_near(column, y, &self.segments)
    }

    /// The density at height `y` of a column, with only the tunnel pieces `segments` (those
    /// that can be nearer than the ground's own term there).
    fn density_near(&self, column: &Column, y: f64, segments: &[Segment]) -> f64 {
        let depth = column.height - y;
        let tunnel = tunnel_distance(segments, [column.x, y, column.z]);
        // The cave term is never below this; when that is no lower than the rest, the noise
        // cannot change the minimum and need not be worked out.
        let cave_floor_term = CAVE_FLOOR_STIFFNESS * (depth - CAVE_FLOOR).max(0.0);
        let cave_roof_term = CAVE_ROOF_STIFFNESS * (column.roof - depth).max(0.0);
        let cave_lowest = cave_floor_term + cave_roof_term - CAVE_SCALE * CAVE_RADIUS;
        let ground = depth.min(tunnel);
        if cave_lowest >= ground {
            return ground;
        }
        let point = [
            column.x * CAVE_FREQUENCY,
            y * CAVE_FREQUENCY,
            column.z * CAVE_FREQUENCY,
        ];
        let first = self.caves[0].get(point);
        let second = self.caves[1].get(point);
        let cave = CAVE_SCALE * ((first * first + second * second).sqrt() - CAVE_RADIUS)
            + cave_floor_term
            + cave_roof_term;
        ground.min(cave)
    }

    fn height(&self, x: f64, z: f64) -> f64 {
        let calm = smoothstep(distance_to_box(x, z, CALM_BOX) / CALM_FADE);
        let hills: f64 = self.hills.iter().map(|octave| octave.get(x, z)).sum();
        let details: f64 = self.details.iter().map(|octave| octave.get(x, z)).sum();
        slope(z)
            + hills * (CALM_HILLS + (1.0 - CALM_HILLS) * calm)
            + terrace(self.terrace_noise(x, z)) * calm
            + details
    }

    fn terrace_noise(&self, x: f64, z: f64) -> f64 {
        TERRACE_AMPLITUDE
            * self
                .terraces
                .get([x * TERRACE_FREQUENCY, z * TERRACE_FREQUENCY])
    }

    /// Bounds on the height over the rectangle `low..=high` in x and z.
    ///
    /// The smooth terms (hills, the terrace noise) are sampled on a 5×5 grid over the
    /// rectangle: every point is within `δ` of a grid point, so it is within `slope · δ` of that
    /// value. The slope north of the spawn and the calm around it are monotone in a coordinate
    /// or a distance, so their ends bound them; the terraces are monotone in their noise; the
    /// details are bounded by their amplitudes.
    fn height_bounds(&self, low: [f64; 2], high: [f64; 2]) -> Interval {
        const GRID: usize = 5;
        let step = [
            (high[0] - low[0]) / (GRID - 1) as f64,
            (high[1] - low[1]) / (GRID - 1) as f64,
        ];
        let reach = (step[0] * step[0] + step[1] * step[1]).sqrt() / 2.0;
        let mut hills = Interval {
            low: f64::INFINITY,
            high: f64::NEG_INFINITY,
        };
        let mut terraces = hills;
        for i in 0..GRID {
            for k in 0..GRID {
                let x = low[0] + step[0] * i as f64;
                let z = low[1] + step[1] * k as f64;
                let value: f64 = self.hills.iter().map(|octave| octave.get(x, z)).sum();
                hills.low = hills.low.min(value);
                hills.high = hills.high.max(value);
                let value = self.terrace_noise(x, z);
                terraces.low = terraces.low.min(value);
                terraces.high = terraces.high.max(value);
            }
        }
        let hills_slope: f64 = self.hills.iter().map(Octave::slope).sum();
        let hills_amplitude: f64 = self.hills.iter().map(|octave| octave.amplitude).sum();
        let hills = Interval {
            low: (hills.low - hills_slope * reach).max(-hills_amplitude),
            high: (hills.high + hills_slope * reach).min(hills_amplitude),
        };
        let terrace_slope = TERRACE_AMPLITUDE * TERRACE_FREQUENCY * PERLIN_SLOPE;
        let terraces = Interval {
            low: terrace((terraces.low - terrace_slope * reach).max(-TERRACE_AMPLITUDE)),
            high: terrace((terraces.high + terrace_slope * reach).min(TERRACE_AMPLITUDE)),
        };
        let nearest = rectangle_distance_to_box(low, high, CALM_BOX);
        let farthest = [
            [low[0], low[1]],
            [low[0], high[1]],
            [high[0], low[1]],
            [high[0], high[1]],
        ]
        .iter()
        .map(|&[x, z]| distance_to_box(x, z, CALM_BOX))
        .fold(0.0, f64::max);
        let calm = Interval {
            low: smoothstep(nearest / CALM_FADE),
            high: smoothstep(farthest / CALM_FADE),
        };
        let hill_weight = Interval {
            low: CALM_HILLS + (1.0 - CALM_HILLS) * calm.low,
            high: CALM_HILLS + (1.0 - CALM_HILLS) * calm.high,
        };
        let details: f64 = self.details.iter().map(|octave| octave.amplitude).sum();
        Interval {
            low: slope(high[1]),
            high: slope(low[1]),
        }
        .add(hills.multiply(hill_weight))
        .add(terraces.multiply(calm))
        .add(Interval {
            low: -details,
            high: details,
        })
    }

    /// The signed distance to the nearest tunnel wall, negative inside a tunnel.
    /// Whether no sample of the box `low..=high` is within a tunnel: the box is farther from
    /// every segment's bounding box than the tunnel's radius.
    fn clear_of_tunnels(&self, low: [i32; 3], high: [i32; 3]) -> bool {
        self.tunnels.iter().all(|tunnel| {
            tunnel.points.windows(2).all(|pair| {
                let mut squared = 0.0;
                for axis in 0..3 {
                    let segment_low = pair[0][axis].min(pair[1][axis]);
                    let segment_high = pair[0][axis].max(pair[1][axis]);
                    let gap = (segment_low - f64::from(high[axis]))
                        .max(f64::from(low[axis]) - segment_high)
                        .max(0.0);
                    squared += gap * gap;
                }
                squared.sqrt() > TUNNEL_RADIUS + BOUND_MARGIN
            })
        })
    }
}

/// The slope north of the spawn: 0 south of it, [`SLOPE_RISE`] north of it; never increasing
/// with z, which [`Generator::height_bounds`] relies on.
fn slope(z: f64) -> f64 {
    SLOPE_RISE * smoothstep((SLOPE_SOUTH - z) / (SLOPE_SOUTH - SLOPE_NORTH))
}

/// Terraces of the noise `value`: flat steps joined by steep rises. Never decreasing, which
/// [`Generator::height_bounds`] relies on.
fn terrace(value: f64) -> f64 {
    let steps = value / TERRACE_STEP;
    let whole = steps.floor();
    let rise = smoothstep((steps - whole - (1.0 - TERRACE_RISE)) / TERRACE_RISE);
    TERRACE_STEP * (whole + rise)
}

/// 0 below 0, 1 above 1, and smooth between.
fn smoothstep(t: f64) -> f64 {
    let t = t.clamp(0.0, 1.0);
    t * t * (3.0 - 2.0 * t)
}

/// How far (x, z) is from the box `[[x low, x high], [z low, z high]]`, 0 inside.
fn distance_to_box(x: f64, z: f64, bounds: [[f64; 2]; 2]) -> f64 {
    let dx = (bounds[0][0] - x).max(x - bounds[0][1]).max(0.0);
    let dz = (bounds[1][0] - z).max(z - bounds[1][1]).max(0.0);
    (dx * dx + dz * dz).sqrt()
}

/// The least distance between the rectangle `low..=high` (x, z) and the box.
fn rectangle_distance_to_box(low: [f64; 2], high: [f64; 2], bounds: [[f64; 2]; 2]) -> f64 {
    let dx = (bounds[0][0] - high[0]).max(low[0] - bounds[0][1]).max(0.0);
    let dz = (bounds[1][0] - high[1]).max(low[1] - bounds[1][1]).max(0.0);
    (dx * dx + dz * dz).sqrt()
}

/// The distance from `point` to the segment `start..end`.
/// The distance from `point` to the nearest tunnel of `segments`' surfaces (negative inside).
fn tunnel_distance(segments: &[Segment], point: [f64; 3]) -> f64 {
    let mut nearest = f64::INFINITY;
    for segment in segments {
        let distance = segment_distance(point, segment.start, segment.end) - TUNNEL_RADIUS;
        nearest = nearest.min(distance);
    }
    nearest
}

fn segment_distance(point: [f64; 3], start: [f64; 3], end: [f64; 3]) -> f64 {
    let along = [end[0] - start[0], end[1] - start[1], end[2] - start[2]];
    let offset = [
        point[0] - start[0],
        point[1] - start[1],
        point[2] - start[2],
    ];
    let length_squared = along[0] * along[0] + along[1] * along[1] + along[2] * along[2];
    let t = if length_squared > 0.0 {
        ((offset[0] * along[0] + offset[1] * along[1] + offset[2] * along[2]) / length_squared)
            .clamp(0.0, 1.0)
    } else {
        0.0
    };
    let dx = offset[0] - along[0] * t;
    let dy = offset[1] - along[1] * t;
    let dz = offset[2] - along[2] * t;
    (dx * dx + dy * dy + dz * dz).sqrt()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A small deterministic random sequence for the property tests.
    fn next(state: &mut u64) -> u64 {
        *state = state
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        *state >> 33
    }

    #[test]
    fn same_seed_same_ground_other_seed_other_ground() {
        let first = Generator::new(7);
        let again = Generator::new(7);
        let other = Generator::new(8);
        let mut differs = false;
        for index in 0..200 {
            let (x, y, z) = (index * 13 - 900, index % 40 - 10, index * 7 - 600);
            assert_eq!(
                first.density(x, y, z).to_bits(),
                again.density(x, y, z).to_bits()
            );
            differs |= first.density(x, y, z) != other.density(x, y, z);
        }
        assert!(differs);
    }

    #[test]
    fn density_is_about_meters_near_the_surface() {
        let generator = Generator::new(1);
        let mut state = 3;
        for _ in 0..200 {
            let x = (next(&mut state) % 2000) as f64 - 1000.0;
            let z = (next(&mut state) % 2000) as f64 - 1000.0;
            let height = generator.height(x, z);
            let below = generator.density_at(x, height - 0.5, z);
            let above = generator.density_at(x, height + 0.5, z);
            // Just above the surface, the density is the height above it (caves only lower
            // it where they open); just below, at most the depth.
            assert!((above + 0.5).abs() < 1e-9, "{above} at {x} {z}");
            assert!(below <= 0.5 + 1e-9);
        }
    }

    #[test]
    fn spawn_and_view_are_above_ground_and_the_slope_rises_north() {
        let generator = Generator::new(0);
        let [x, y, z] = generator.spawn_point();
        assert!(generator.density_at(f64::from(x), f64::from(y), f64::from(z)) < 0.0);
        assert!(generator.surface_height(0.0, -80.0) > generator.surface_height(0.0, 10.0) + 15.0);
        let target = generator.first_view_target();
        assert!((target[1] - generator.surface_height(0.0, -200.0) - 20.0).abs() < 1e-4);
    }

    #[test]
    fn every_seed_has_cave_entrances_on_the_slope_north_of_spawn() {
        for seed in [0, 1, 42, 1234] {
            let generator = Generator::new(seed);
            let entrances = generator.cave_entrances();
            assert!(!entrances.is_empty());
            for [x, y, z] in entrances {
                assert!((-80.0..=10.0).contains(&z) && x.abs() < 60.0);
                // In the open in front of the entrance...
                let (x, y, z) = (f64::from(x), f64::from(y), f64::from(z));
                assert!(generator.density_at(x, y, z) < 0.0);
                // ...and a few meters in, still air but under the ground: a cave.
                let inside = (4..30).any(|step| {
                    let along = f64::from(step);
                    let (ix, iy, iz) = (x, y - along * 0.15, z - along);
                    generator.density_at(ix, iy, iz) < 0.0 && generator.height(ix, iz) > iy + 2.0
                });
                assert!(inside, "seed {seed}: no cave behind the mouth at {x} {z}");
            }
        }
    }

    #[test]
    fn classified_regions_agree_with_every_sample() {
        let generator = Generator::new(5);
        let mut state = 11;
        let mut samples = Vec::new();
        let mut proven = 0;
        for _ in 0..60 {
            let x = (next(&mut state) % 400) as i32 - 200;
            let z = (next(&mut state) % 400) as i32 - 200;
            // Around the surface, where proofs are hardest.
            let surface = generator.surface_height(x as f32, z as f32) as i32;
            let y = surface + (next(&mut state) % 160) as i32 - 80;
            let low = [x, y, z];
            let high = [x + 17, y + 17, z + 17];
            let kind = generator.classify(low, high);
            if kind == ChunkKind::Mixed {
                continue;
            }
            proven += 1;
            generator.fill_region(low, [18, 18, 18], &mut samples);
            for value in &samples {
                match kind {
                    ChunkKind::Air => assert!(*value <= 0.0, "{value} in air at {low:?}"),
                    ChunkKind::Solid => assert!(*value > 0.0, "{value} in ground at {low:?}"),
                    ChunkKind::Mixed => {}
                }
            }
        }
        assert!(proven > 10, "only {proven} regions proven");
    }

    #[test]
    fn fill_region_matches_density_through_the_tunnels() {
        // Boxes around every tunnel's bends, reaching above and below the ground: the pieces
        // a column leaves out never change a sample.
        let generator = Generator::new(Generator::DEFAULT_SEED);
        let mut samples = Vec::new();
        let mut checked = 0;
        let mut in_tunnels = 0;
        for tunnel in &generator.tunnels {
            for point in tunnel.points {
                let low = point.map(|c| c as i32 - 12);
                let size = [25, 30, 25];
                generator.fill_region(low, size, &mut samples);
                let mut index = 0;
                for k in 0..size[2] as i32 {
                    for j in 0..size[1] as i32 {
                        for i in 0..size[0] as i32 {
                            let (x, y, z) = (low[0] + i, low[1] + j, low[2] + k);
                            let expected = generator.density(x, y, z);
                            assert_eq!(
                                samples[index].to_bits(),
                                expected.to_bits(),
                                "({x}, {y}, {z})"
                            );
                            let tunnel =
                                tunnel_distance(&generator.segments, [x, y, z].map(f64::from));
                            if tunnel < 0.0 && expected <= 0.0 {
                                in_tunnels += 1;
                            }
                            index += 1;
                            checked += 1;
                        }
                    }
                }
            }
        }
        assert!(checked > 100_000);
        assert!(in_tunnels > 1000, "{in_tunnels} samples of tunnel air");
    }

    #[test]
    fn fill_region_matches_density() {
        let generator = Generator::new(9);
        let mut samples = Vec::new();
        let low = [-3, 10, 17];
        generator.fill_region(low, [4, 3, 2], &mut samples);
        let mut index = 0;
        for k in 0..2 {
            for j in 0..3 {
                for i in 0..4 {
                    let expected = generator.density(low[0] + i, low[1] + j, low[2] + k);
                    assert_eq!(samples[index].to_bits(), expected.to_bits());
                    index += 1;
                }
            }
        }
    }
}
