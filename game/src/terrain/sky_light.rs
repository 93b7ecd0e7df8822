//! Sky light (sky visibility, the ambient term): how much of the open sky's light reaches each
//! sample of a chunk (its light grid;
//! how a grid is blended at a point is the engine's `meshing::vertex_light`). Out in the open
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
//! The light is that of a flood through the whole box, brightest first, but only the samples
//! it depends on are worked out (see `Sky`): the heights, the samples at the surface, the
//! padded grid's open air the ground's bounds do not prove, and the caves the light enters.
//! The ground under the surface and the closed caves, most of a chunk, are never sampled.
//!
//! The sky is the air above the generated ground's height (before caves): the ground there
//! only ever loses samples to caves and digs, so anything below the height is under ground,
//! and anything above is open, unless something was built over it (builds do not shade: a
//! known simplification, small next to the caves' darkness).

use blockfall_meshing::vertex_light;
use blockfall_physics::workers::WorkerPool;

use super::chunks::{ChunkCoord, PADDED_SIZE};
use super::edits::{EditStore, SampleBox};
use super::generator::ChunkKind;
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
    /// it (`blockfall_meshing::vertex_light::blend`, the rule the GPU's light pass
    /// follows); points outside the grid take the nearest sample inside. Blocks and pieces are
    /// lit with this.
    pub fn light_at(&self, point: [f32; 3]) -> f32 {
        let local: [f32; 3] = std::array::from_fn(|axis| point[axis] - self.origin[axis] as f32);
        vertex_light::blend(&self.values, [PADDED_SIZE; 3], local)
    }
}

/// Samples per side of the box light is worked out in: the padded grid and [`MARGIN`] more on
/// every side.
const SIDE: usize = PADDED_SIZE + 2 * MARGIN as usize;
/// Samples per layer of the box (x fastest, then y, then z).
const LAYER: usize = SIDE * SIDE;
/// The box's samples that belong to the padded grid, along each axis.
const PADDED: std::ops::Range<usize> = MARGIN as usize..MARGIN as usize + PADDED_SIZE;

/// What is known of a sample of the box: not worked out yet, ground (density > 0), or air.
const UNKNOWN: u8 = 0;
const GROUND: u8 = 1;
const AIR: u8 = 2;

/// The padded footprint is proven open (see [`Sky::prove_open_air`]) in this many tiles per
/// axis.
const PROOF_TILES: usize = 4;

/// How far the light gets below the sky, in meters, and how bright it is there.
struct Fades {
    /// `light[d]`: 1 faded `d` times, one f32 multiplication by [`FADE_PER_METER`] per meter,
    /// in order: bit for bit what the flood carries `d` meters.
    light: [f32; 64],
    /// The most meters light travels: one more and it is no longer above the flood's
    /// threshold of 1e-6, and it is not passed on.
    farthest: usize,
}

impl Fades {
    fn new() -> Self {
        let mut light = [0.0f32; 64];
        light[0] = 1.0;
        let mut farthest = 0;
        while farthest + 1 < light.len() {
            let passed = light[farthest] * FADE_PER_METER;
            // The flood's test for a sample not lit yet: `passed > 0.0 + 1e-6`.
            if passed <= 0.0 + 1e-6 {
                break;
            }
            farthest += 1;
            light[farthest] = passed;
        }
        Self { light, farthest }
    }
}

/// What the work on one chunk came to, for the tests and for tuning.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
struct Effort {
    /// Samples whose density was worked out, of the box's 50³.
    sampled: usize,
    /// Calls to `fill_region`.
    fills: usize,
    /// Samples below the generated height that the sky's light reached.
    flooded: usize,
}

/// One chunk's sky light, worked out lazily over the box of the padded grid and its margin.
///
/// # What the flood computes, and why this is the same, bit for bit
///
/// The full flood (kept as the reference in the tests) fills every sample of the 50³ box,
/// marks the sky (air at or above the generated height of its column, `!(y < height)` in f32
/// as here) with light 1, and passes light on brightest first from a heap: a sample taken
/// with light `v` offers `v · 0.75` to its air neighbours, which take it when it is above
/// their light + 1e-6, and gives `v` to its ground neighbours (each keeps the brightest). Sky
/// samples enter the heap only beside something darker: the others could change nothing.
///
/// 1. Every push is `0.75 ·` the light just taken, below it, so the lights taken from the heap
///    never increase (Dijkstra's order). A sample below the sky starts at 0 and takes the
///    first offer made to it if that is above 1e-6; every later offer is `0.75 ·` a light
///    taken no earlier, so no brighter, and is refused (an equal offer is not above). So each
///    such sample is lit at most once, by its neighbour nearest the sky, and taken from the
///    heap exactly once with that light. By induction on the order, a sample `d` steps of air
///    from the sky (the shortest 6-connected path inside the box) gets `1 · 0.75 · … · 0.75`:
///    `d` f32 products in that order, [`Fades::light`]`[d]`, the same bits, as long as they
///    stay above 1e-6 (`d <= farthest`); farther samples stay 0. The sky keeps 1.
/// 2. So the light of air below the sky is a plain breadth-first search by whole meters,
///    through air below the heights (air above them is sky already), cut at `farthest`
///    ([`Sky::flood`]). It starts from the air below the heights that touches the sky, which
///    is at the top of its column's samples below the height, or beside a lower column: the
///    samples from [`Sky::touching`] up, the only ones the search has to look at to start.
/// 3. A ground sample gets the brightest light taken from the heap among its air neighbours.
///    A sky sample beside ground is always in the heap (the ground's light, 0, is below 1),
///    so ground beside the sky gets 1; else the brightest reached neighbour below the sky;
///    else 0 (every reached sample is taken from the heap once).
/// 4. Hence a padded sample's light needs only whether it is ground, whether its neighbours
///    above their heights are air, and the search's levels ([`Sky::values`]). A sample below
///    its height that is not reached and has no lit neighbour is 0 whatever it is made of,
///    and is never sampled: that is the ground under the surface and the closed caves, most
///    of a chunk's cost. A sample above its height must be known air or ground: the ground's
///    own bounds ([`Ground::classify`], where no edit reaches) prove most of the open air
///    without sampling it ([`Sky::prove_open_air`]); the rest is sampled.
///
/// In particular, when no air below the heights touches the sky (most chunks of the default
/// world), nothing flows: the padded grid's air above its height is 1, its ground is 1
/// beside such air and 0 elsewhere, and the search never starts.
///
/// Densities are taken to be numbers: a NaN sample is read as air here, where the full flood
/// takes one above the height for air it may light but not for sky.
struct Sky<'a, G: Ground + ?Sized> {
    edits: &'a EditStore<G>,
    /// The world sample of the box's index 0.
    low: [i32; 3],
    /// Per column (`x + SIDE · z`): how many of its samples, from the bottom of the box, lie
    /// below the generated height (`y < height` in f32).
    under: Vec<u8>,
    /// Per column: its lowest sample below the height that touches a sample above a height
    /// (its own, or a lower column's beside it); `under` when none does. Every sample below it
    /// has all its neighbours below their heights.
    touching: Vec<u8>,
    /// Per column: one past its highest sample above the height that touches a sample below a
    /// height (above its own top one below, or beside a higher column's); `under` when none.
    touched: Vec<u8>,
    /// Per sample: [`UNKNOWN`], [`GROUND`] or [`AIR`].
    state: Vec<u8>,
    /// Per sample below its height: meters of air from the sky, 0 where the light did not
    /// reach (or the sample is not air).
    level: Vec<u8>,
    /// Whether the search reached any sample.
    reached_any: bool,
    fades: Fades,
    scratch: Vec<f32>,
    effort: Effort,
}

impl<'a, G: Ground + ?Sized> Sky<'a, G> {
    fn new(edits: &'a EditStore<G>, coord: ChunkCoord) -> Self {
        let low = coord.padded_origin().map(|c| c - MARGIN);
        Self {
            edits,
            low,
            under: vec![0; LAYER],
            touching: vec![0; LAYER],
            touched: vec![0; LAYER],
            state: vec![UNKNOWN; SIDE * LAYER],
            level: vec![0; SIDE * LAYER],
            reached_any: false,
            fades: Fades::new(),
            scratch: Vec::with_capacity(SIDE),
            effort: Effort::default(),
        }
    }

    fn index(x: usize, y: usize, z: usize) -> usize {
        x + SIDE * y + LAYER * z
    }

    fn coords(at: usize) -> [usize; 3] {
        [at % SIDE, at / SIDE % SIDE, at / LAYER]
    }

    /// The samples beside `at` inside the box, with whether each lies below its height; the
    /// first `count` of the list.
    fn beside(&self, at: usize) -> ([(usize, bool); 6], usize) {
        let [x, y, z] = Self::coords(at);
        let mut list = [(0, false); 6];
        let mut count = 0;
        let mut add = |inside: bool, next: usize, x: usize, y: usize, z: usize| {
            if inside {
                list[count] = (next, y < usize::from(self.under[x + SIDE * z]));
                count += 1;
            }
        };
        add(x > 0, at.wrapping_sub(1), x.wrapping_sub(1), y, z);
        add(x + 1 < SIDE, at + 1, x + 1, y, z);
        add(y > 0, at.wrapping_sub(SIDE), x, y.wrapping_sub(1), z);
        add(y + 1 < SIDE, at + SIDE, x, y + 1, z);
        add(z > 0, at.wrapping_sub(LAYER), x, y, z.wrapping_sub(1));
        add(z + 1 < SIDE, at + LAYER, x, y, z + 1);
        (list, count)
    }

    /// How many meters sample `at` is from the samples whose light the padded grid's values
    /// read (the padded grid and one more on every side).
    fn away(at: usize) -> usize {
        Self::coords(at)
            .iter()
            .map(|&c| (PADDED.start - 1).saturating_sub(c) + c.saturating_sub(PADDED.end))
            .sum()
    }

    /// The densities of the column's samples `from..=to`, worked out in one call.
    fn fill(&mut self, x: usize, z: usize, from: usize, to: usize) {
        let count = to - from + 1;
        let low = [
            self.low[0] + x as i32,
            self.low[1] + from as i32,
            self.low[2] + z as i32,
        ];
        self.edits
            .fill_region(low, [1, count, 1], &mut self.scratch);
        let mut at = Self::index(x, from, z);
        for &density in &self.scratch {
            self.state[at] = if density > 0.0 { GROUND } else { AIR };
            at += SIDE;
        }
        self.effort.sampled += count;
        self.effort.fills += 1;
    }

    /// Whether sample `at` is ground or air, working out the unknown samples around it in its
    /// column (a few at once: a search that needs one usually needs the next).
    fn ensure(&mut self, at: usize) -> u8 {
        if self.state[at] != UNKNOWN {
            return self.state[at];
        }
        let [x, y, z] = Self::coords(at);
        let (mut from, mut to) = (y, y);
        while from > 0 && y - from < 2 && self.state[at - (y - from + 1) * SIDE] == UNKNOWN {
            from -= 1;
        }
        while to + 1 < SIDE && to - y < 3 && self.state[at + (to - y + 1) * SIDE] == UNKNOWN {
            to += 1;
        }
        self.fill(x, z, from, to);
        self.state[at]
    }

    /// The generated heights: which samples of each column lie below it.
    fn find_heights(&mut self) {
        let low_y = self.low[1];
        for z in 0..SIDE {
            for x in 0..SIDE {
                let height = self.edits.generator().surface_height(
                    (self.low[0] + x as i32) as f32,
                    (self.low[2] + z as i32) as f32,
                );
                // The flood's test, exactly: the samples below are a prefix of the column,
                // since (low + j) as f32 never decreases with j.
                let below = |j: usize| ((low_y + j as i32) as f32) < height;
                // A guess (NaN and infinities saturate), then made exact.
                let mut count = (height - low_y as f32).ceil().clamp(0.0, SIDE as f32) as usize;
                while count > 0 && !below(count - 1) {
                    count -= 1;
                }
                while count < SIDE && below(count) {
                    count += 1;
                }
                self.under[x + SIDE * z] = count as u8;
            }
        }
        for z in 0..SIDE {
            for x in 0..SIDE {
                let under = self.under[x + SIDE * z];
                // Ours below the height from `lowest` on, and ours above it before `end`,
                // touch the other side.
                let (mut lowest, mut end) = if usize::from(under) < SIDE && under > 0 {
                    (under - 1, under + 1)
                } else {
                    (under, under)
                };
                for (dx, dz) in [(-1i32, 0i32), (1, 0), (0, -1), (0, 1)] {
                    let (nx, nz) = (x as i32 + dx, z as i32 + dz);
                    if (0..SIDE as i32).contains(&nx) && (0..SIDE as i32).contains(&nz) {
                        let other = self.under[nx as usize + SIDE * nz as usize];
                        lowest = lowest.min(other);
                        end = end.max(other);
                    }
                }
                self.touching[x + SIDE * z] = lowest.min(under);
                self.touched[x + SIDE * z] = end;
            }
        }
    }

    /// Proves, without sampling, the padded grid's open air where the ground's bounds allow:
    /// per tile of the padded footprint, the lowest layer (from the tile's highest height up)
    /// from which the ground proves the rest of the tile's padded samples all air, where no
    /// edit reaches. Any proof will do: the search is only cheaper when it finds a low one.
    fn prove_open_air(&mut self) {
        let top = PADDED.end - 1;
        let edges: [usize; PROOF_TILES + 1] =
            std::array::from_fn(|tile| PADDED.start + tile * PADDED_SIZE / PROOF_TILES);
        for tile_z in 0..PROOF_TILES {
            for tile_x in 0..PROOF_TILES {
                let xs = edges[tile_x]..edges[tile_x + 1];
                let zs = edges[tile_z]..edges[tile_z + 1];
                let mut highest = 0;
                for z in zs.clone() {
                    for x in xs.clone() {
                        highest = highest.max(usize::from(self.under[x + SIDE * z]));
                    }
                }
                // Bounds seldom prove air below a height: the search starts at the highest.
                let lowest = highest.max(PADDED.start);
                if lowest > top {
                    continue;
                }
                let proven = |from: usize| {
                    let region = SampleBox {
                        low: [
                            self.low[0] + xs.start as i32,
                            self.low[1] + from as i32,
                            self.low[2] + zs.start as i32,
                        ],
                        high: [
                            self.low[0] + xs.end as i32 - 1,
                            self.low[1] + top as i32,
                            self.low[2] + zs.end as i32 - 1,
                        ],
                    };
                    !self.edits.has_edits_in(&region)
                        && self.edits.generator().classify(region.low, region.high)
                            == ChunkKind::Air
                };
                // The lowest proven layer, by bisection (any layer proven is a proof).
                if !proven(top) {
                    continue;
                }
                let (mut open, mut unproven) = (top, lowest);
                if proven(lowest) {
                    open = lowest;
                } else {
                    while open - unproven > 1 {
                        let middle = (open + unproven) / 2;
                        if proven(middle) {
                            open = middle;
                        } else {
                            unproven = middle;
                        }
                    }
                }
                for z in zs.clone() {
                    for x in xs.clone() {
                        for y in open..=top {
                            self.state[Self::index(x, y, z)] = AIR;
                        }
                    }
                }
            }
        }
    }

    /// Works out, a column at a time (one `fill_region` each), the samples the light's entry
    /// below the heights and the padded grid's sky depend on: in each column the samples below
    /// its height that touch a sample above a height (the top one, and those beside a lower
    /// column), and in the padded footprint the samples above its height beside those and every
    /// padded sample above the height not yet proven air. Only a head start: whatever else is
    /// needed is worked out when asked for ([`Sky::ensure`]).
    fn survey(&mut self) {
        for z in 0..SIDE {
            for x in 0..SIDE {
                let column = x + SIDE * z;
                let under = usize::from(self.under[column]);
                // In order: the samples below the height touching the sky's side, those above it
                // touching the ground's side, and the padded grid's samples above the height.
                let padded = PADDED.contains(&x) && PADDED.contains(&z);
                let mut from = usize::from(self.touching[column]);
                // Outside the padded footprint the sky's side is needed only beside air below
                // the height, rare: it is worked out when asked for.
                let mut end = if padded {
                    usize::from(self.touched[column]).max(under)
                } else {
                    under
                };
                if padded && under < PADDED.end {
                    from = from.min(under.max(PADDED.start));
                    end = end.max(PADDED.end);
                }
                if from >= end {
                    continue;
                }
                let mut to = end - 1;
                while from <= to && self.state[Self::index(x, from, z)] != UNKNOWN {
                    from += 1;
                }
                while to >= from && self.state[Self::index(x, to, z)] != UNKNOWN {
                    to -= 1;
                }
                if from <= to {
                    self.fill(x, z, from, to);
                }
            }
        }
    }

    /// The breadth-first search of the light below the heights, from the air there that
    /// touches the sky.
    fn flood(&mut self) {
        let farthest = self.fades.farthest;
        let mut reached = Vec::new();
        for z in 0..SIDE {
            for x in 0..SIDE {
                let under = usize::from(self.under[x + SIDE * z]);
                for y in usize::from(self.touching[x + SIDE * z])..under {
                    let at = Self::index(x, y, z);
                    // (Air too far from the padded grid for its light to get there: see below.)
                    if 1 + Self::away(at) > farthest || self.ensure(at) != AIR {
                        continue;
                    }
                    let (beside, count) = self.beside(at);
                    for &(next, under) in &beside[..count] {
                        if !under && self.ensure(next) == AIR {
                            self.level[at] = 1;
                            reached.push(at as u32);
                            break;
                        }
                    }
                }
            }
        }
        // Level by level: `meters` is the level of `reached`. Light that could only reach the
        // padded grid's neighbourhood from farther than `farthest` is not followed: it cannot
        // change a value there (every sample on a shortest path keeps its level plus its
        // distance to the end within the end's level).
        let mut meters = 1;
        let mut next_reached = Vec::new();
        while !reached.is_empty() && meters < farthest {
            self.effort.flooded += reached.len();
            for &at in &reached {
                let (beside, count) = self.beside(at as usize);
                for &(next, under) in &beside[..count] {
                    if under
                        && self.level[next] == 0
                        && meters + 1 + Self::away(next) <= farthest
                        && self.ensure(next) == AIR
                    {
                        self.level[next] = (meters + 1) as u8;
                        next_reached.push(next as u32);
                    }
                }
            }
            std::mem::swap(&mut reached, &mut next_reached);
            next_reached.clear();
            meters += 1;
        }
        self.effort.flooded += reached.len();
        self.reached_any = self.effort.flooded > 0;
    }

    /// The light a sample gives a ground neighbour: 1 for the sky, its own light where the
    /// search reached it, else none.
    fn given(&mut self, at: usize, under: bool) -> f32 {
        let meters = self.level[at];
        match meters {
            0 if !under && self.ensure(at) == AIR => 1.0,
            0 => 0.0,
            meters => self.fades.light[usize::from(meters)],
        }
    }

    /// The brightest light any neighbour gives.
    fn brightest_beside(&mut self, at: usize) -> f32 {
        let (beside, count) = self.beside(at);
        let mut brightest = 0.0f32;
        for &(next, under) in &beside[..count] {
            brightest = brightest.max(self.given(next, under));
            if brightest == 1.0 {
                break;
            }
        }
        brightest
    }

    /// The padded grid's light, x fastest (points 3 and 4 of the proof above).
    fn values(&mut self) -> Vec<f32> {
        // The light of a reached sample by its meters from the sky; none where not reached.
        let mut reached_light = self.fades.light;
        reached_light[0] = 0.0;
        let mut values = Vec::with_capacity(PADDED_SIZE * PADDED_SIZE * PADDED_SIZE);
        for z in PADDED {
            for y in PADDED {
                for x in PADDED {
                    let at = Self::index(x, y, z);
                    let column = x + SIDE * z;
                    let value = if y >= usize::from(self.under[column]) {
                        // Air here is sky; ground takes its neighbours' light.
                        match self.ensure(at) {
                            AIR => 1.0,
                            _ => self.brightest_beside(at),
                        }
                    } else if self.level[at] > 0 {
                        self.fades.light[usize::from(self.level[at])]
                    } else {
                        // Not reached: 0 if air; if ground, the light beside it; with none
                        // beside it, 0 whatever it is, and not worked out.
                        let brightest = if y < usize::from(self.touching[column]) {
                            // Every neighbour is below its height (and inside the box).
                            if self.reached_any {
                                [1, SIDE, LAYER]
                                    .into_iter()
                                    .flat_map(|step| [at - step, at + step])
                                    .map(|next| reached_light[usize::from(self.level[next])])
                                    .fold(0.0f32, f32::max)
                            } else {
                                0.0
                            }
                        } else {
                            self.brightest_beside(at)
                        };
                        if brightest > 0.0 && self.ensure(at) == GROUND {
                            brightest
                        } else {
                            0.0
                        }
                    };
                    values.push(value);
                }
            }
        }
        values
    }
}

/// The light grid of one chunk of the edited ground.
pub fn light_grid<G: Ground + ?Sized>(edits: &EditStore<G>, coord: ChunkCoord) -> LightGrid {
    light_grid_with_effort(edits, coord).0
}

fn light_grid_with_effort<G: Ground + ?Sized>(
    edits: &EditStore<G>,
    coord: ChunkCoord,
) -> (LightGrid, Effort) {
    let origin = coord.padded_origin();
    // A box the ground's bounds prove all ground, with no edit in it, has no air: no sky, no
    // flow, every value 0.
    let region = SampleBox {
        low: origin.map(|c| c - MARGIN),
        high: origin.map(|c| c - MARGIN + SIDE as i32 - 1),
    };
    if !edits.has_edits_in(&region)
        && edits.generator().classify(region.low, region.high) == ChunkKind::Solid
    {
        let values = vec![0.0; PADDED_SIZE * PADDED_SIZE * PADDED_SIZE];
        return (LightGrid { origin, values }, Effort::default());
    }
    let mut sky = Sky::new(edits, coord);
    sky.find_heights();
    sky.prove_open_air();
    sky.survey();
    sky.flood();
    let values = sky.values();
    (LightGrid { origin, values }, sky.effort)
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
    use crate::terrain::{Generator, PlaneGround};

    fn flat() -> EditStore<dyn Ground> {
        let ground: Arc<dyn Ground> = Arc::new(PlaneGround::flat(0.0));
        EditStore::new(ground)
    }

    // The flood as first written (before the lazy search), kept to hold the fast one to it.

    use std::cmp::Ordering;
    use std::collections::BinaryHeap;

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

    /// The light grid of one chunk as first written: the whole 50³ box filled, the light
    /// flooded brightest first through a heap. What [`light_grid`] must equal, bit for bit.
    fn light_grid_reference<G: Ground + ?Sized>(
        edits: &EditStore<G>,
        coord: ChunkCoord,
    ) -> LightGrid {
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

    /// Whether two grids agree bit for bit; the first difference otherwise.
    fn assert_same(fast: &LightGrid, reference: &LightGrid, what: &str) {
        assert_eq!(fast.origin, reference.origin, "{what}");
        assert_eq!(fast.values.len(), reference.values.len(), "{what}");
        for (index, (a, b)) in fast.values.iter().zip(&reference.values).enumerate() {
            assert!(
                a.to_bits() == b.to_bits(),
                "{what}: sample {index} ({}, {}, {} in the grid): {a} against the reference {b}",
                index % PADDED_SIZE,
                index / PADDED_SIZE % PADDED_SIZE,
                index / (PADDED_SIZE * PADDED_SIZE)
            );
        }
    }

    /// Lit by the sky through a cave: some value strictly between 0 and 1.
    fn cave_lit(grid: &LightGrid) -> bool {
        grid.values.iter().any(|&v| v > 0.0 && v < 1.0)
    }

    #[test]
    fn the_fades_are_the_floods_products() {
        let fades = Fades::new();
        let mut light = 1.0f32;
        for meters in 0..=fades.farthest {
            assert_eq!(fades.light[meters].to_bits(), light.to_bits());
            assert!(light > 1e-6);
            light *= FADE_PER_METER;
        }
        assert!(light <= 1e-6, "one meter more is not passed on");
        assert_eq!(fades.farthest, 48);
    }

    #[test]
    fn the_default_world_is_lit_exactly_as_by_the_full_flood() {
        let generator = Arc::new(Generator::new(Generator::DEFAULT_SEED));
        let edits = EditStore::new(generator.clone());
        let spawn = ChunkCoord::containing(generator.spawn_point());
        // The chunks around the spawn, from the open sky down to the caves below the surface,
        // and over the slope north of it where the caves open to the sky.
        let mut coords = Vec::new();
        for z in spawn.z - 3..=spawn.z + 1 {
            for y in spawn.y - 2..=spawn.y + 1 {
                for x in spawn.x - 2..=spawn.x + 1 {
                    coords.push(ChunkCoord::new(x, y, z));
                }
            }
        }
        assert!(coords.len() >= 60);
        let (mut flowing, mut still, mut lit_caves, mut surfaces) = (0, 0, 0, 0);
        let mut samples = Vec::new();
        for &coord in &coords {
            let (fast, effort) = light_grid_with_effort(&edits, coord);
            let reference = light_grid_reference(&edits, coord);
            assert_same(&fast, &reference, &format!("{coord:?}"));
            if effort.flooded > 0 {
                flowing += 1;
            } else {
                still += 1;
            }
            lit_caves += usize::from(cave_lit(&reference));
            if crate::terrain::chunks::fill_padded_grid_or_skip(&edits, coord, &mut samples)
                == ChunkKind::Mixed
            {
                surfaces += 1;
                // Far less than the box is worked out, in few calls.
                assert!(effort.sampled < SIDE * LAYER / 3, "{coord:?}: {effort:?}");
                assert!(effort.fills < 3 * LAYER, "{coord:?}: {effort:?}");
            }
        }
        // Both ways through: light flowing below the heights, and none.
        assert!(
            flowing >= 10 && still >= 10,
            "{flowing} flowing, {still} still"
        );
        assert!(
            lit_caves >= 5,
            "{lit_caves} chunks with caves lit from the sky"
        );
        assert!(surfaces >= 20, "{surfaces} chunks with a surface");
    }

    #[test]
    fn planes_are_lit_exactly_as_by_the_full_flood() {
        for ground in [
            PlaneGround::flat(0.0),
            PlaneGround::flat(-7.5),
            PlaneGround::sloped(30.0, 2.0),
            PlaneGround::sloped(-55.0, -10.0),
        ] {
            let ground: Arc<dyn Ground> = Arc::new(ground);
            let edits = EditStore::new(ground);
            for coord in [
                ChunkCoord::new(0, 0, 0),
                ChunkCoord::new(0, -1, 0),
                ChunkCoord::new(1, -1, 0),
                ChunkCoord::new(-1, 1, 2),
                ChunkCoord::new(0, -3, 0),
                ChunkCoord::new(0, 2, 0),
            ] {
                let reference = light_grid_reference(&edits, coord);
                assert_same(
                    &light_grid(&edits, coord),
                    &reference,
                    &format!("{coord:?}"),
                );
            }
        }
    }

    #[test]
    fn digs_and_builds_are_lit_exactly_as_by_the_full_flood() {
        // Flat ground: a pit with a tunnel from its bottom, a shaft reaching a closed cave,
        // and a roof built over part of the pit (ground above the height, in the sky).
        let mut edits = flat();
        edits.dig([10.0, 0.0, 20.0], 3.0).unwrap();
        let mut x = 10.0;
        while x <= 40.0 {
            edits.dig([x, -3.5, 20.0], 2.0).unwrap();
            x += 1.0;
        }
        edits.dig([-20.0, -15.0, -10.0], 5.0).unwrap();
        let mut y = -12.0;
        while y <= 1.0 {
            edits.dig([-20.0, y, -10.0], 1.5).unwrap();
            y += 1.0;
        }
        edits.build([10.0, 3.5, 19.0], 3.0).unwrap();
        edits.build([33.0, 2.0, 40.0], 4.0).unwrap();
        let mut lit = 0;
        for coord in [
            ChunkCoord::new(0, -1, 0),
            ChunkCoord::new(0, 0, 0),
            ChunkCoord::new(1, -1, 0),
            ChunkCoord::new(-1, -1, -1),
            ChunkCoord::new(-1, 0, -1),
            ChunkCoord::new(1, 0, 1),
        ] {
            let reference = light_grid_reference(&edits, coord);
            lit += usize::from(cave_lit(&reference));
            assert_same(
                &light_grid(&edits, coord),
                &reference,
                &format!("{coord:?}"),
            );
        }
        assert!(lit >= 2, "{lit} chunks lit through the digs");

        // The default world: a shaft dug from the surface into a cave, and a mound built.
        let generator = Arc::new(Generator::new(Generator::DEFAULT_SEED));
        let mut edits = EditStore::new(generator.clone());
        let [sx, _, sz] = generator.spawn_point();
        let top = generator.surface_height(sx + 20.0, sz);
        let mut depth = 0.0;
        while depth <= 30.0 {
            edits.dig([sx + 20.0, top - depth, sz], 2.5).unwrap();
            depth += 1.5;
        }
        edits.build([sx - 10.0, top + 2.0, sz + 5.0], 5.0).unwrap();
        let centre = ChunkCoord::containing([sx + 20.0, top - 15.0, sz]);
        for dz in -1..=1 {
            for dy in -1..=1 {
                for dx in -1..=1 {
                    let coord = ChunkCoord::new(centre.x + dx, centre.y + dy, centre.z + dz);
                    let reference = light_grid_reference(&edits, coord);
                    assert_same(
                        &light_grid(&edits, coord),
                        &reference,
                        &format!("{coord:?}"),
                    );
                }
            }
        }
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
