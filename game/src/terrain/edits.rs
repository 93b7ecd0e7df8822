//! Digging and building: changes to the generated ground, kept as the edits themselves.
//!
//! An edit adds to or takes from the density a smooth bump around a sphere:
//!
//! ```text
//!   bump(p) = STRENGTH · radius · (1 - q²)²     q = |p - centre| / radius, 0 beyond q = 1
//!   dig:   d -= bump        build:  d += bump
//! ```
//!
//! The bump and its slope fall to zero at the sphere's edge, so the rim of a hole is smooth,
//! and a second dig at the same place digs deeper, as a held tool should. The bump is added in
//! fixed point (whole multiples of [`QUANTUM`] per sample), so a build with the same sphere
//! undoes a dig exactly, bit for bit, whatever happened in between; min/max blends
//! (`d = min(d, |p - c| - r)`) cannot be undone, since they forget what they covered.
//!
//! # Storage
//!
//! A sample's offset is a sum of whole numbers: each edit's bump rounded to [`QUANTUM`]s. The
//! store keeps the edits, not the sums, in cells of [`CELL`]³ samples (2³ bricks, the tiles of a
//! sparse grid):
//!
//! - **spheres**: each cell lists the spheres that change one of its samples, each sphere once
//!   with its count (−1 per dig, +1 per build). A sample's offset is worked out when it is
//!   read: the same arithmetic, so the same bits, as when the edit was made. A 64 m dig costs
//!   a few hundred cells of a few dozen bytes, not the 2,700 bricks of offsets it reaches. A
//!   build of a listed sphere lowers its count, and at zero the sphere leaves the list (and an
//!   empty cell the store), so a build that undoes a dig gives its memory back.
//! - **baked bricks**: a cell listing more than [`BAKE_AFTER`] spheres adds them into its 8³
//!   bricks of offsets and empties its list, so that no sample sums more than that many bumps.
//!   A brick is kept as its smallest offset and each offset's excess over it in the narrowest
//!   whole type that holds them all (none at all when they are equal), and dropped when all its
//!   offsets are zero. Bricks loaded from a save (which stores offsets per brick) are baked too.
//!
//! Offsets add with wrapping arithmetic: sums in any order give the same bits, so a cell's
//! bricks and list, [`EditStore::sample`] and [`EditStore::fill_region`] all agree, and a build
//! undoes a dig even where a sum would overflow (which takes trillions of digs).

use std::sync::Arc;

use crate::cell_hash::CellMap;
use crate::limits::MOST_EDITED_CELLS;

use super::generator::Generator;
use super::ground::Ground;

/// An edit's bump at its centre, in density units (meters) per meter of radius: one dig
/// centred on flat ground opens a bowl about two thirds of its radius deep.
const STRENGTH: f64 = 2.0;
/// The fixed-point step of an edit offset, in density units.
pub const QUANTUM: f64 = 1.0 / 4096.0;
/// The largest edit radius, in meters: larger is most likely a bug, and would touch millions
/// of samples in one frame.
pub const MAX_EDIT_RADIUS: f32 = 64.0;
/// Samples per side of a brick: the unit of saves and of baked offsets.
pub const BRICK: i32 = 8;
const BRICK_VOLUME: usize = (BRICK * BRICK * BRICK) as usize;
/// Samples per side of a cell of the store: 2 bricks.
pub const CELL: i32 = 2 * BRICK;
const BRICKS_PER_CELL: usize = 8;
/// The most spheres a cell lists; one more and they are baked into its bricks. Each listed
/// sphere costs every sample of the cell a few arithmetic steps when it is read (a 16th of a
/// generated sample's cost or so), a baked brick 0.5–4 KiB.
pub const BAKE_AFTER: usize = 16;

/// An inclusive box of whole-meter samples.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct SampleBox {
    pub low: [i32; 3],
    pub high: [i32; 3],
}

impl SampleBox {
    /// Whether the sample is in the box.
    pub fn contains(&self, sample: [i32; 3]) -> bool {
        (0..3).all(|axis| self.low[axis] <= sample[axis] && sample[axis] <= self.high[axis])
    }

    /// Whether the two boxes share a sample.
    pub fn intersects(&self, other: &SampleBox) -> bool {
        (0..3).all(|axis| self.low[axis] <= other.high[axis] && other.low[axis] <= self.high[axis])
    }

    /// The smallest box holding both.
    pub fn union(&self, other: &SampleBox) -> SampleBox {
        SampleBox {
            low: std::array::from_fn(|axis| self.low[axis].min(other.low[axis])),
            high: std::array::from_fn(|axis| self.high[axis].max(other.high[axis])),
        }
    }

    /// The samples both boxes hold, `None` if none.
    pub fn intersection(&self, other: &SampleBox) -> Option<SampleBox> {
        self.intersects(other).then(|| SampleBox {
            low: std::array::from_fn(|axis| self.low[axis].max(other.low[axis])),
            high: std::array::from_fn(|axis| self.high[axis].min(other.high[axis])),
        })
    }
}

/// Why an edit was refused.
#[derive(Debug, Clone, Copy, PartialEq, thiserror::Error)]
pub enum EditError {
    /// The centre has a NaN or infinite coordinate.
    #[error("edit centre {0:?} is not a finite point")]
    CentreNotFinite([f32; 3]),
    /// The radius is not in (0, [`MAX_EDIT_RADIUS`]].
    #[error("edit radius {0} is not between 0 (exclusive) and {MAX_EDIT_RADIUS} m")]
    BadRadius(f32),
    /// The centre lies outside the world (±[`WORLD_METERS`] on each axis).
    #[error("edit centre {0:?} is outside the world (±{WORLD_METERS} m on each axis)")]
    OutsideWorld([f32; 3]),
    /// The edit would take the edited ground past [`MOST_EDITED_CELLS`].
    #[error(
        "the ground has {MOST_EDITED_CELLS} edited 16 m cells, the most a world may hold \
         (docs/saves.md, \"Limits\"): dig or build where it was edited before"
    )]
    Full,
}

/// The world's edge, in meters from the origin on each axis: the blocks' ±2^20 half-meter cells.
const WORLD_METERS: f32 = crate::blocks::store::WORLD_CELLS as f32 * crate::blocks::CELL;

/// Which way an edit goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Direction {
    Dig,
    Build,
}

/// An edited brick as plain data: the brick's coordinate (its samples from `BRICK ·
/// brick`) and its [`BRICK`]³ offsets in [`QUANTUM`]s, x fastest, then y, then z. What a save
/// keeps of the edits, whatever the store keeps in memory.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct EditedBrick {
    pub brick: [i32; 3],
    #[serde(
        deserialize_with = "blockfall_physics::bounded::vec::<_, _, crate::limits::BrickOffsets>"
    )]
    pub offsets: Vec<i64>,
}

/// An edit's sphere, with what its bump needs worked out once: the same values, so the same
/// bits, as the formula written out at every sample.
#[derive(Debug, Clone, Copy)]
struct Bump {
    centre: [f64; 3],
    radius: f64,
    radius_squared: f64,
    /// The bump at the centre, in density units: `STRENGTH · radius`.
    peak: f64,
}

impl Bump {
    fn new(centre: [f64; 3], radius: f64) -> Self {
        Self {
            centre,
            radius,
            radius_squared: radius * radius,
            peak: STRENGTH * radius,
        }
    }

    /// Whether the two are the same sphere (so the same bump at every sample).
    fn same_sphere(&self, other: &Bump) -> bool {
        self.centre == other.centre && self.radius == other.radius
    }

    /// The samples the sphere holds (an empty box, `low > high`, if none).
    fn reach(&self) -> SampleBox {
        SampleBox {
            low: self.centre.map(|value| (value - self.radius).ceil() as i32),
            high: self
                .centre
                .map(|value| (value + self.radius).floor() as i32),
        }
    }

    /// The squared distance from the centre to a sample, summed x, y, z.
    #[inline]
    fn squared_distance(&self, sample: [i32; 3]) -> f64 {
        let dx = f64::from(sample[0]) - self.centre[0];
        let dy = f64::from(sample[1]) - self.centre[1];
        let dz = f64::from(sample[2]) - self.centre[2];
        (dx * dx + dy * dy) + dz * dz
    }

    /// The bump at a sample `squared` (from [`Bump::squared_distance`]) from the centre, in
    /// whole [`QUANTUM`]s. Every step is monotonic, so the sample nearest the centre has the
    /// largest bump of any set of samples.
    #[inline]
    fn steps_at(&self, squared: f64) -> i64 {
        let q_squared = squared / self.radius_squared;
        if q_squared >= 1.0 {
            return 0;
        }
        let falloff = (1.0 - q_squared) * (1.0 - q_squared);
        round_half_away(self.peak * falloff / QUANTUM)
    }

    #[inline]
    fn steps(&self, sample: [i32; 3]) -> i64 {
        self.steps_at(self.squared_distance(sample))
    }

    /// Whether the bump changes a sample of the (non-empty) box: whether it does at the
    /// box's sample nearest the centre.
    fn reaches(&self, region: &SampleBox) -> bool {
        let nearest = std::array::from_fn(|axis| {
            (self.centre[axis].round() as i32).clamp(region.low[axis], region.high[axis])
        });
        self.steps(nearest) != 0
    }

    /// Adds `count` bumps to the offsets of the samples of `within` (which lies in the box of
    /// `size` samples from `low`, laid out x fastest, then y, then z, in `out`).
    fn add_over(
        &self,
        count: i64,
        low: [i32; 3],
        size: [usize; 3],
        within: &SampleBox,
        out: &mut [i64],
    ) {
        let Some(part) = within.intersection(&self.reach()) else {
            return;
        };
        for z in part.low[2]..=part.high[2] {
            let dz = f64::from(z) - self.centre[2];
            let dz_squared = dz * dz;
            let layer = (z - low[2]) as usize * size[1];
            for y in part.low[1]..=part.high[1] {
                let dy = f64::from(y) - self.centre[1];
                let dy_squared = dy * dy;
                // Every sample of the row is at least this far (rounding is monotonic).
                if dy_squared + dz_squared >= self.radius_squared {
                    continue;
                }
                let row = (layer + (y - low[1]) as usize) * size[0];
                for x in part.low[0]..=part.high[0] {
                    let dx = f64::from(x) - self.centre[0];
                    let steps = self.steps_at((dx * dx + dy_squared) + dz_squared);
                    if steps != 0 {
                        let index = row + (x - low[0]) as usize;
                        out[index] = out[index].wrapping_add(count.wrapping_mul(steps));
                    }
                }
            }
        }
    }
}

/// `value.round()` for `0 ≤ value < 2⁵²`, without a call into libm (x86-64's baseline has no
/// rounding instruction, and this runs for every sample an edit reaches when it is read):
/// halves away from zero, the same value for every such `value`.
#[inline]
fn round_half_away(value: f64) -> i64 {
    let whole = value as i64;
    // Exact: `value` less its whole part loses no bits.
    if value - whole as f64 >= 0.5 {
        whole + 1
    } else {
        whole
    }
}

/// A sphere a cell lists, and how many times its bump is added (−1 per dig, +1 per build).
#[derive(Debug, Clone, Copy)]
struct Listed {
    bump: Bump,
    count: i64,
}

/// A brick's baked offsets: the smallest, and each one's excess over it.
#[derive(Debug, Clone)]
struct Offsets {
    base: i64,
    excess: Excess,
}

/// The excesses of a brick's offsets over its smallest, in the narrowest type that holds them.
#[derive(Debug, Clone)]
enum Excess {
    /// Every offset is the smallest.
    None,
    U8(Box<[u8; BRICK_VOLUME]>),
    U16(Box<[u16; BRICK_VOLUME]>),
    U32(Box<[u32; BRICK_VOLUME]>),
    U64(Box<[u64; BRICK_VOLUME]>),
}

impl Offsets {
    /// A brick's offsets as kept, `None` when they are all zero.
    fn encode(values: &[i64; BRICK_VOLUME]) -> Option<Offsets> {
        if values.iter().all(|&value| value == 0) {
            return None;
        }
        let base = values.iter().copied().min().unwrap_or(0);
        let top = values.iter().copied().max().unwrap_or(0);
        // The true difference fits a u64 (wrapping gives its bits).
        let span = top.wrapping_sub(base) as u64;
        let excess = |value: i64| value.wrapping_sub(base) as u64;
        let excess = if span == 0 {
            Excess::None
        } else if span <= u64::from(u8::MAX) {
            Excess::U8(Box::new(values.map(|value| excess(value) as u8)))
        } else if span <= u64::from(u16::MAX) {
            Excess::U16(Box::new(values.map(|value| excess(value) as u16)))
        } else if span <= u64::from(u32::MAX) {
            Excess::U32(Box::new(values.map(|value| excess(value) as u32)))
        } else {
            Excess::U64(Box::new(values.map(excess)))
        };
        Some(Offsets { base, excess })
    }

    /// The offset at `index` (as [`index_in_brick`] gives it).
    #[inline]
    fn get(&self, index: usize) -> i64 {
        let excess = match &self.excess {
            Excess::None => 0,
            Excess::U8(excess) => u64::from(excess[index]),
            Excess::U16(excess) => u64::from(excess[index]),
            Excess::U32(excess) => u64::from(excess[index]),
            Excess::U64(excess) => excess[index],
        };
        self.base.wrapping_add(excess as i64)
    }

    /// Every offset, x fastest.
    fn decode(&self) -> [i64; BRICK_VOLUME] {
        std::array::from_fn(|index| self.get(index))
    }

    /// The bytes its excesses take on the heap.
    fn heap_bytes(&self) -> usize {
        let width = match &self.excess {
            Excess::None => 0,
            Excess::U8(_) => 1,
            Excess::U16(_) => 2,
            Excess::U32(_) => 4,
            Excess::U64(_) => 8,
        };
        width * BRICK_VOLUME
    }
}

/// The baked bricks of a cell, by [`brick_slot`].
type BakedBricks = [Option<Offsets>; BRICKS_PER_CELL];

/// The edits of one cell: the spheres summed when a sample is read, and the baked bricks.
#[derive(Debug, Clone, Default)]
struct Cell {
    spheres: Vec<Listed>,
    baked: Option<Box<BakedBricks>>,
}

impl Cell {
    fn is_empty(&self) -> bool {
        self.spheres.is_empty() && self.baked.is_none()
    }

    /// The offset of one of the cell's samples.
    #[inline]
    fn offset(&self, sample: [i32; 3]) -> i64 {
        let mut total = self.baked.as_ref().map_or(0, |baked| {
            baked[brick_slot(sample)]
                .as_ref()
                .map_or(0, |offsets| offsets.get(index_in_brick(sample)))
        });
        for listed in &self.spheres {
            let steps = listed.bump.steps(sample);
            if steps != 0 {
                total = total.wrapping_add(listed.count.wrapping_mul(steps));
            }
        }
        total
    }

    /// The offsets of the cell's samples in `within` (inside the cell) added to `out`, which
    /// holds the box of `size` samples from `low`, x fastest.
    fn add_offsets(&self, low: [i32; 3], size: [usize; 3], within: &SampleBox, out: &mut [i64]) {
        if let Some(baked) = &self.baked {
            for (slot, offsets) in baked.iter().enumerate() {
                let Some(offsets) = offsets else {
                    continue;
                };
                let Some(part) = brick_box(brick_of_slot(within.low, slot)).intersection(within)
                else {
                    continue;
                };
                for z in part.low[2]..=part.high[2] {
                    for y in part.low[1]..=part.high[1] {
                        let row =
                            ((z - low[2]) as usize * size[1] + (y - low[1]) as usize) * size[0];
                        for x in part.low[0]..=part.high[0] {
                            let index = row + (x - low[0]) as usize;
                            let offset = offsets.get(index_in_brick([x, y, z]));
                            out[index] = out[index].wrapping_add(offset);
                        }
                    }
                }
            }
        }
        for listed in &self.spheres {
            listed.bump.add_over(listed.count, low, size, within, out);
        }
    }

    /// The offsets of every brick of the cell at `coord`, by slot.
    fn brick_offsets(
        &self,
        coord: [i32; 3],
    ) -> impl Iterator<Item = ([i32; 3], [i64; BRICK_VOLUME])> + '_ {
        (0..BRICKS_PER_CELL).map(move |slot| {
            let brick = cell_brick(coord, slot);
            let mut values = self
                .baked
                .as_ref()
                .and_then(|baked| baked[slot].as_ref())
                .map_or([0; BRICK_VOLUME], Offsets::decode);
            let origin = brick.map(|value| value * BRICK);
            for listed in &self.spheres {
                listed.bump.add_over(
                    listed.count,
                    origin,
                    [BRICK as usize; 3],
                    &brick_box(brick),
                    &mut values,
                );
            }
            (brick, values)
        })
    }

    /// Adds the listed spheres into the bricks of the cell at `coord` and empties the list.
    fn bake(&mut self, coord: [i32; 3]) {
        let baked: BakedBricks = {
            let mut bricks = self.brick_offsets(coord);
            std::array::from_fn(|_| {
                bricks
                    .next()
                    .and_then(|(_, values)| Offsets::encode(&values))
            })
        };
        self.baked = baked.iter().any(Option::is_some).then(|| Box::new(baked));
        self.spheres = Vec::new();
    }

    /// The bytes the cell holds on the heap.
    fn heap_bytes(&self) -> usize {
        self.spheres.capacity() * std::mem::size_of::<Listed>()
            + self.baked.as_ref().map_or(0, |baked| {
                std::mem::size_of::<BakedBricks>()
                    + baked
                        .iter()
                        .flatten()
                        .map(Offsets::heap_bytes)
                        .sum::<usize>()
            })
    }
}

/// The ground as edited: the generated density plus the offsets of every dig and build (see
/// the [module documentation](self) for how they are kept). `G` is what lies under the edits:
/// the generated world by default, or any [`Ground`] (`EditStore<dyn Ground>` for a ground
/// chosen at run time).
#[derive(Debug, Clone)]
pub struct EditStore<G: Ground + ?Sized = Generator> {
    generator: Arc<G>,
    cells: CellMap<Cell>,
}

impl<G: Ground + ?Sized> EditStore<G> {
    /// Unedited ground.
    pub fn new(generator: Arc<G>) -> Self {
        Self {
            generator,
            cells: CellMap::default(),
        }
    }

    /// The ground under the edits.
    pub fn generator(&self) -> &Arc<G> {
        &self.generator
    }

    /// The density of a sample, edited or generated.
    pub fn sample(&self, x: i32, y: i32, z: i32) -> f32 {
        let generated = self.generator.density(x, y, z);
        match self.offset([x, y, z]) {
            0 => generated,
            offset => apply(generated, offset),
        }
    }

    /// Every edited brick (one with an offset that is not zero), ordered by its coordinate:
    /// what a save keeps of the edits.
    pub fn edited(&self) -> Vec<EditedBrick> {
        let mut bricks: Vec<EditedBrick> = self
            .cells
            .iter()
            .flat_map(|(&coord, cell)| cell.brick_offsets(coord))
            .filter(|(_, values)| values.iter().any(|&value| value != 0))
            .map(|(brick, values)| EditedBrick {
                brick,
                offsets: values.to_vec(),
            })
            .collect();
        bricks.sort_unstable_by_key(|edited| edited.brick);
        bricks
    }

    /// The ground `generator` with the edits of `bricks` (from [`EditStore::edited`]), baked.
    /// Refuses a brick without [`BRICK`]³ offsets, one whose samples are beyond what an `i32`
    /// holds, and one given twice; a brick of zero offsets is no edit and is left out.
    pub fn with_edits(generator: Arc<G>, bricks: Vec<EditedBrick>) -> Result<Self, String> {
        let mut store = Self::new(generator);
        // The bricks an edit within the world can reach: samples are whole meters, and an
        // edit at the edge reaches its radius and a brick past it.
        let reach = (WORLD_METERS + MAX_EDIT_RADIUS) as i32 / BRICK + 2;
        for (index, edited) in bricks.into_iter().enumerate() {
            let values: [i64; BRICK_VOLUME] = edited.offsets.try_into().map_err(|_| {
                format!("edited brick {index} does not hold {BRICK_VOLUME} offsets")
            })?;
            if edited
                .brick
                .iter()
                .any(|value| !(-reach..reach).contains(value))
            {
                return Err(format!(
                    "edited brick {index} at {:?} lies beyond the world",
                    edited.brick
                ));
            }
            let Some(offsets) = Offsets::encode(&values) else {
                continue;
            };
            let coord = edited.brick.map(|value| value.div_euclid(2));
            if store.cells.len() == MOST_EDITED_CELLS && !store.cells.contains_key(&coord) {
                return Err(format!(
                    "edited brick {index} takes the ground past {MOST_EDITED_CELLS} edited 16 m \
                     cells, the most a world may hold"
                ));
            }
            let cell = store.cells.entry(coord).or_default();
            let slot =
                &mut cell.baked.get_or_insert_with(Box::default)[brick_slot_of(edited.brick)];
            if slot.is_some() {
                return Err(format!("the brick at {:?} is edited twice", edited.brick));
            }
            *slot = Some(offsets);
        }
        Ok(store)
    }

    /// Digs a smooth bowl of `radius` meters around `centre`; the box of samples whose value
    /// changed, `None` if none did (a radius too small to reach a sample).
    pub fn dig(&mut self, centre: [f32; 3], radius: f32) -> Result<Option<SampleBox>, EditError> {
        self.edit(centre, radius, Direction::Dig)
    }

    /// Builds a smooth mound of `radius` meters around `centre`: the exact opposite of
    /// [`EditStore::dig`] with the same sphere.
    pub fn build(&mut self, centre: [f32; 3], radius: f32) -> Result<Option<SampleBox>, EditError> {
        self.edit(centre, radius, Direction::Build)
    }

    /// The bytes the store holds on the heap: its table of cells (laid out as the standard
    /// map lays out its table), their lists of spheres and their baked bricks, not counting
    /// the allocator's own overhead. What the edits cost in memory.
    pub fn heap_bytes(&self) -> usize {
        let table = table_bytes(
            self.cells.capacity(),
            std::mem::size_of::<([i32; 3], Cell)>(),
        );
        table + self.cells.values().map(Cell::heap_bytes).sum::<usize>()
    }

    /// Whether a sample in the box may be edited: an edit changes one of its samples, or a
    /// baked brick meets it (whose offsets may be back to zero there).
    pub fn has_edits_in(&self, region: &SampleBox) -> bool {
        let mut found = false;
        self.visit_cells(region, |_, cell, within| {
            found = found
                || cell.baked.is_some()
                || cell.spheres.iter().any(|listed| {
                    within
                        .intersection(&listed.bump.reach())
                        .is_some_and(|part| listed.bump.reaches(&part))
                });
        });
        found
    }

    /// The densities of the samples `low + (i, j, k)`, `i < size[0]` and so on, x fastest,
    /// into `out`: generated a column at a time, then the edits in the region applied, a cell
    /// at a time.
    pub fn fill_region(&self, low: [i32; 3], size: [usize; 3], out: &mut Vec<f32>) {
        self.generator.fill_region(low, size, out);
        if size.contains(&0) {
            return;
        }
        let region = SampleBox {
            low,
            high: std::array::from_fn(|axis| low[axis] + size[axis] as i32 - 1),
        };
        if !self.has_edits_in(&region) {
            return;
        }
        let mut offsets = vec![0i64; out.len()];
        self.visit_cells(&region, |_, cell, within| {
            cell.add_offsets(low, size, &within, &mut offsets);
        });
        for (value, &offset) in out.iter_mut().zip(&offsets) {
            if offset != 0 {
                *value = apply(*value, offset);
            }
        }
    }

    /// [`EditStore::fill_region`] with the samples `spacing` meters apart: the samples
    /// `low + spacing · (i, j, k)`, a coarse level of detail's grid. Each is the same value as
    /// the field's sample there.
    pub fn fill_region_spaced(
        &self,
        low: [i32; 3],
        size: [usize; 3],
        spacing: i32,
        out: &mut Vec<f32>,
    ) {
        if spacing <= 1 {
            return self.fill_region(low, size, out);
        }
        self.generator.fill_region_spaced(low, size, spacing, out);
        if size.contains(&0) {
            return;
        }
        let region = SampleBox {
            low,
            high: std::array::from_fn(|axis| low[axis] + (size[axis] as i32 - 1) * spacing),
        };
        if !self.has_edits_in(&region) {
            return;
        }
        // Edits far away are few and small next to a coarse chunk: each sample asked alone.
        let mut index = 0;
        for k in 0..size[2] as i32 {
            for j in 0..size[1] as i32 {
                for i in 0..size[0] as i32 {
                    let sample = [
                        low[0] + i * spacing,
                        low[1] + j * spacing,
                        low[2] + k * spacing,
                    ];
                    let offset = self.offset(sample);
                    if offset != 0 {
                        out[index] = apply(out[index], offset);
                    }
                    index += 1;
                }
            }
        }
    }

    /// Calls `visit` with each cell of the store that meets `region`, and the part of the
    /// region inside it.
    fn visit_cells(&self, region: &SampleBox, mut visit: impl FnMut([i32; 3], &Cell, SampleBox)) {
        if self.cells.is_empty() {
            return;
        }
        let low = region.low.map(|value| value.div_euclid(CELL));
        let high = region.high.map(|value| value.div_euclid(CELL));
        let count = (0..3)
            .map(|axis| i64::from(high[axis]) - i64::from(low[axis]) + 1)
            .product::<i64>();
        // A huge box is cheaper to test against the cells than cell by cell.
        if count > self.cells.len() as i64 {
            for (&coord, cell) in &self.cells {
                if let Some(within) = cell_box(coord).intersection(region) {
                    visit(coord, cell, within);
                }
            }
            return;
        }
        for z in low[2]..=high[2] {
            for y in low[1]..=high[1] {
                for x in low[0]..=high[0] {
                    let coord = [x, y, z];
                    if let Some(cell) = self.cells.get(&coord) {
                        if let Some(within) = cell_box(coord).intersection(region) {
                            visit(coord, cell, within);
                        }
                    }
                }
            }
        }
    }

    fn offset(&self, sample: [i32; 3]) -> i64 {
        let coord = sample.map(|value| value.div_euclid(CELL));
        self.cells.get(&coord).map_or(0, |cell| cell.offset(sample))
    }

    fn edit(
        &mut self,
        centre: [f32; 3],
        radius: f32,
        direction: Direction,
    ) -> Result<Option<SampleBox>, EditError> {
        if !centre.iter().all(|value| value.is_finite()) {
            return Err(EditError::CentreNotFinite(centre));
        }
        if !(radius > 0.0 && radius <= MAX_EDIT_RADIUS) {
            return Err(EditError::BadRadius(radius));
        }
        if centre.iter().any(|value| value.abs() > WORLD_METERS) {
            return Err(EditError::OutsideWorld(centre));
        }
        let bump = Bump::new(centre.map(f64::from), f64::from(radius));
        let reach = bump.reach();
        if (0..3).any(|axis| reach.low[axis] > reach.high[axis]) || !bump.reaches(&reach) {
            return Ok(None);
        }
        if self.cells.len() + self.new_cells(&bump, &reach) > MOST_EDITED_CELLS {
            return Err(EditError::Full);
        }
        let count = match direction {
            Direction::Dig => -1,
            Direction::Build => 1,
        };
        self.add_bump(bump, count, &reach);
        Ok(self.changed_box(&bump, count, &reach))
    }

    /// How many cells `bump` would add to the store: those it changes that hold no edit yet.
    fn new_cells(&self, bump: &Bump, reach: &SampleBox) -> usize {
        let low = reach.low.map(|value| value.div_euclid(CELL));
        let high = reach.high.map(|value| value.div_euclid(CELL));
        let mut new = 0;
        for z in low[2]..=high[2] {
            for y in low[1]..=high[1] {
                for x in low[0]..=high[0] {
                    let coord = [x, y, z];
                    let changes = cell_box(coord)
                        .intersection(reach)
                        .is_some_and(|within| bump.reaches(&within));
                    if changes && !self.cells.contains_key(&coord) {
                        new += 1;
                    }
                }
            }
        }
        new
    }

    /// Lists `count` bumps in every cell whose samples they change (a sphere listed already
    /// has its count changed), baking a cell whose list grows too long; a sphere whose count
    /// comes to zero leaves the list, and an empty cell the store.
    fn add_bump(&mut self, bump: Bump, count: i64, reach: &SampleBox) {
        let low = reach.low.map(|value| value.div_euclid(CELL));
        let high = reach.high.map(|value| value.div_euclid(CELL));
        let mut emptied = false;
        for z in low[2]..=high[2] {
            for y in low[1]..=high[1] {
                for x in low[0]..=high[0] {
                    let coord = [x, y, z];
                    let Some(within) = cell_box(coord).intersection(reach) else {
                        continue;
                    };
                    if !bump.reaches(&within) {
                        continue;
                    }
                    let cell = self.cells.entry(coord).or_default();
                    match cell
                        .spheres
                        .iter()
                        .position(|listed| listed.bump.same_sphere(&bump))
                    {
                        Some(index) => {
                            let listed = &mut cell.spheres[index];
                            listed.count = listed.count.wrapping_add(count);
                            if listed.count == 0 {
                                cell.spheres.swap_remove(index);
                                cell.spheres.shrink_to_fit();
                            }
                        }
                        None => {
                            cell.spheres.reserve_exact(1);
                            cell.spheres.push(Listed { bump, count });
                            if cell.spheres.len() > BAKE_AFTER {
                                cell.bake(coord);
                            }
                        }
                    }
                    if cell.is_empty() {
                        self.cells.remove(&coord);
                        emptied = true;
                    }
                }
            }
        }
        // Memory that edits gave back goes back: the table shrinks once half of it is empty.
        if emptied && self.cells.len() * 2 <= self.cells.capacity() {
            self.cells.shrink_to_fit();
        }
    }

    /// The tight box of the samples whose value `count` bumps (just added) changed: on each
    /// side, the first plane of the sphere's box from outside that holds one. Few samples of
    /// those planes are reached at all, so this costs far less than the sphere's volume.
    fn changed_box(&self, bump: &Bump, count: i64, reach: &SampleBox) -> Option<SampleBox> {
        let changed = |sample: [i32; 3]| {
            let steps = bump.steps(sample);
            if steps == 0 {
                return false;
            }
            let after = self.offset(sample);
            let before = after.wrapping_sub(count.wrapping_mul(steps));
            let generated = self.generator.density(sample[0], sample[1], sample[2]);
            let value = |offset: i64| match offset {
                0 => generated,
                offset => apply(generated, offset),
            };
            value(before).to_bits() != value(after).to_bits()
        };
        let plane_changed = |axis: usize, at: i32| {
            let (u, v) = ((axis + 1) % 3, (axis + 2) % 3);
            (reach.low[u]..=reach.high[u]).any(|first| {
                (reach.low[v]..=reach.high[v]).any(|second| {
                    let mut sample = [0; 3];
                    sample[axis] = at;
                    sample[u] = first;
                    sample[v] = second;
                    changed(sample)
                })
            })
        };
        let mut low = [0; 3];
        let mut high = [0; 3];
        for axis in 0..3 {
            low[axis] = (reach.low[axis]..=reach.high[axis]).find(|&at| plane_changed(axis, at))?;
            high[axis] = (low[axis]..=reach.high[axis])
                .rev()
                .find(|&at| plane_changed(axis, at))
                .unwrap_or(low[axis]);
        }
        Some(SampleBox { low, high })
    }
}

/// The bytes of a hash table of `capacity` entries of `slot` bytes as the standard map lays it
/// out: a power of two of buckets, 7/8 of them usable, a control byte each and a group's worth
/// more.
fn table_bytes(capacity: usize, slot: usize) -> usize {
    if capacity == 0 {
        return 0;
    }
    let buckets = (capacity * 8 / 7).next_power_of_two();
    buckets * (slot + 1) + 16
}

/// The samples of a cell.
fn cell_box(coord: [i32; 3]) -> SampleBox {
    SampleBox {
        low: coord.map(|value| value * CELL),
        high: coord.map(|value| value * CELL + (CELL - 1)),
    }
}

/// The samples of a brick.
fn brick_box(brick: [i32; 3]) -> SampleBox {
    SampleBox {
        low: brick.map(|value| value * BRICK),
        high: brick.map(|value| value * BRICK + (BRICK - 1)),
    }
}

/// Which of its cell's bricks a brick is: x, y, z bits.
fn brick_slot_of(brick: [i32; 3]) -> usize {
    let [x, y, z] = brick.map(|value| (value & 1) as usize);
    x | (y << 1) | (z << 2)
}

/// Which of its cell's bricks holds a sample.
#[inline]
fn brick_slot(sample: [i32; 3]) -> usize {
    brick_slot_of(sample.map(|value| value.div_euclid(BRICK)))
}

/// The brick in `slot` of the cell at `coord`.
fn cell_brick(coord: [i32; 3], slot: usize) -> [i32; 3] {
    [0, 1, 2].map(|axis| coord[axis] * 2 + ((slot >> axis) & 1) as i32)
}

/// The brick in `slot` of the cell holding `sample`.
fn brick_of_slot(sample: [i32; 3], slot: usize) -> [i32; 3] {
    cell_brick(sample.map(|value| value.div_euclid(CELL)), slot)
}

/// A generated density with an edit offset added.
fn apply(generated: f32, offset: i64) -> f32 {
    (f64::from(generated) + offset as f64 * QUANTUM) as f32
}

pub(crate) fn index_in_brick(sample: [i32; 3]) -> usize {
    let [x, y, z] = sample.map(|value| value.rem_euclid(BRICK) as usize);
    x + y * BRICK as usize + z * (BRICK * BRICK) as usize
}

#[cfg(test)]
mod tests {
    use std::collections::HashMap;

    use super::*;
    use crate::terrain::ground::PlaneGround;
    use blockfall_physics::random::Rng;

    fn store() -> EditStore {
        EditStore::new(Arc::new(Generator::new(3)))
    }

    #[test]
    fn bad_edits_are_errors_not_panics() {
        let mut edits = store();
        for radius in [0.0, -1.0, f32::NAN, f32::INFINITY, MAX_EDIT_RADIUS * 1.01] {
            assert!(
                matches!(edits.dig([0.0; 3], radius), Err(EditError::BadRadius(_))),
                "radius {radius}"
            );
        }
        assert!(matches!(
            edits.build([f32::NAN, 0.0, 0.0], 2.0),
            Err(EditError::CentreNotFinite(_))
        ));
        assert!(matches!(
            edits.dig([0.0, f32::INFINITY, 0.0], 2.0),
            Err(EditError::CentreNotFinite(_))
        ));
        for far in [3.0e9, 524_289.0, -524_289.0] {
            assert!(matches!(
                edits.dig([far, 0.0, 0.0], 2.0),
                Err(EditError::OutsideWorld(_))
            ));
        }
        assert_eq!(edits.heap_bytes(), 0);
    }

    #[test]
    fn dig_then_build_restores_every_sample_exactly() {
        let mut edits = store();
        let before = edits.clone();
        let centre = [3.3, 1.7, -12.4];
        let changed = edits
            .dig(centre, 5.5)
            .expect("a valid edit")
            .expect("changes");
        assert!(edits.heap_bytes() > 0);
        let again = edits.build(centre, 5.5).expect("a valid edit");
        assert_eq!(again, Some(changed));
        for z in changed.low[2] - 1..=changed.high[2] + 1 {
            for y in changed.low[1] - 1..=changed.high[1] + 1 {
                for x in changed.low[0] - 1..=changed.high[0] + 1 {
                    assert_eq!(
                        edits.sample(x, y, z).to_bits(),
                        before.sample(x, y, z).to_bits()
                    );
                }
            }
        }
        // Nothing is stored for ground that is back as it was.
        assert_eq!(edits.heap_bytes(), 0);
    }

    #[test]
    fn changed_box_is_tight() {
        let mut edits = store();
        for (centre, radius) in [([0.5, 0.5, 0.5], 3.0), ([-7.2, 20.9, 4.4], 6.3)] {
            let before = edits.clone();
            let changed = edits
                .dig(centre, radius)
                .expect("a valid edit")
                .expect("changes");
            let mut found: Option<SampleBox> = None;
            for z in changed.low[2] - 2..=changed.high[2] + 2 {
                for y in changed.low[1] - 2..=changed.high[1] + 2 {
                    for x in changed.low[0] - 2..=changed.high[0] + 2 {
                        if edits.sample(x, y, z).to_bits() != before.sample(x, y, z).to_bits() {
                            let here = SampleBox {
                                low: [x, y, z],
                                high: [x, y, z],
                            };
                            found = Some(found.map_or(here, |box_| box_.union(&here)));
                        }
                    }
                }
            }
            // Every face of the box holds a changed sample, and none lies outside it.
            assert_eq!(found, Some(changed));
        }
    }

    #[test]
    fn a_dig_lowers_and_a_build_raises() {
        let mut edits = store();
        let before = edits.sample(0, 5, 0);
        edits.dig([0.0, 5.0, 0.0], 2.0).expect("a valid edit");
        let dug = edits.sample(0, 5, 0);
        assert!(
            (f64::from(before - dug) - 4.0).abs() < 1e-3,
            "{before} {dug}"
        );
        edits.build([0.0, 5.0, 0.0], 2.0).expect("a valid edit");
        edits.build([0.0, 5.0, 0.0], 2.0).expect("a valid edit");
        assert!(edits.sample(0, 5, 0) > before);
    }

    #[test]
    fn tiny_edits_between_samples_change_nothing() {
        let mut edits = store();
        assert_eq!(edits.dig([0.5, 0.5, 0.5], 0.1), Ok(None));
        assert_eq!(edits.heap_bytes(), 0);
    }

    #[test]
    fn fill_region_sees_the_edits() {
        let mut edits = store();
        edits.dig([2.0, 3.0, 4.0], 4.0).expect("a valid edit");
        let mut samples = Vec::new();
        let low = [-3, -2, 0];
        let size = [9, 8, 7];
        edits.fill_region(low, size, &mut samples);
        let mut index = 0;
        for z in 0..size[2] as i32 {
            for y in 0..size[1] as i32 {
                for x in 0..size[0] as i32 {
                    let expected = edits.sample(low[0] + x, low[1] + y, low[2] + z);
                    assert_eq!(samples[index].to_bits(), expected.to_bits());
                    index += 1;
                }
            }
        }
    }

    /// A number in `low..high`, from the project's seeded generator.
    fn range(rng: &mut Rng, low: f32, high: f32) -> f32 {
        rng.float(f64::from(low), f64::from(high)) as f32
    }

    /// The bump of an edit at a sample exactly as the store worked it out when it kept sums,
    /// sample by sample when the edit was made: the store must give the same bits.
    fn reference_steps(sample: [i32; 3], centre: [f32; 3], radius: f32) -> i64 {
        let centre = centre.map(f64::from);
        let radius = f64::from(radius);
        let squared: f64 = (0..3)
            .map(|axis| {
                let offset = f64::from(sample[axis]) - centre[axis];
                offset * offset
            })
            .sum();
        let q_squared = squared / (radius * radius);
        if q_squared >= 1.0 {
            return 0;
        }
        let falloff = (1.0 - q_squared) * (1.0 - q_squared);
        (STRENGTH * radius * falloff / QUANTUM).round() as i64
    }

    /// Every sample's offset, summed edit by edit (`count` −1 for a dig, +1 for a build).
    fn reference_offsets(edits: &[([f32; 3], f32, i64)]) -> HashMap<[i32; 3], i64> {
        let mut offsets = HashMap::new();
        for &(centre, radius, count) in edits {
            let bump = Bump::new(centre.map(f64::from), f64::from(radius));
            let reach = bump.reach();
            for z in reach.low[2]..=reach.high[2] {
                for y in reach.low[1]..=reach.high[1] {
                    for x in reach.low[0]..=reach.high[0] {
                        let steps = reference_steps([x, y, z], centre, radius);
                        *offsets.entry([x, y, z]).or_insert(0) += count * steps;
                    }
                }
            }
        }
        offsets.retain(|_, offset| *offset != 0);
        offsets
    }

    /// The edited bricks of reference offsets, as a save keeps them.
    fn reference_bricks(offsets: &HashMap<[i32; 3], i64>) -> Vec<EditedBrick> {
        let mut bricks: HashMap<[i32; 3], Vec<i64>> = HashMap::new();
        for (&sample, &offset) in offsets {
            let brick = sample.map(|value| value.div_euclid(BRICK));
            bricks.entry(brick).or_insert_with(|| vec![0; BRICK_VOLUME])[index_in_brick(sample)] =
                offset;
        }
        let mut bricks: Vec<EditedBrick> = bricks
            .into_iter()
            .map(|(brick, offsets)| EditedBrick { brick, offsets })
            .collect();
        bricks.sort_unstable_by_key(|edited| edited.brick);
        bricks
    }

    /// Applies the edits to a store (on a flat plane: the ground's noise is not what is tested).
    fn plane_store(edits: &[([f32; 3], f32, i64)]) -> EditStore<PlaneGround> {
        let mut store = EditStore::new(Arc::new(PlaneGround::flat(0.0)));
        for &(centre, radius, count) in edits {
            let result = if count < 0 {
                store.dig(centre, radius)
            } else {
                store.build(centre, radius)
            };
            result.expect("a valid edit");
        }
        store
    }

    /// Checks every sample around the edits against the reference sums: `sample`,
    /// `fill_region` and the saved bricks.
    fn assert_matches_reference<G: Ground + ?Sized>(
        store: &EditStore<G>,
        edits: &[([f32; 3], f32, i64)],
        region: SampleBox,
    ) {
        let offsets = reference_offsets(edits);
        let size = [0, 1, 2].map(|axis| (region.high[axis] - region.low[axis] + 1) as usize);
        let mut filled = Vec::new();
        store.fill_region(region.low, size, &mut filled);
        let mut index = 0;
        for z in region.low[2]..=region.high[2] {
            for y in region.low[1]..=region.high[1] {
                for x in region.low[0]..=region.high[0] {
                    let offset = offsets.get(&[x, y, z]).copied().unwrap_or(0);
                    assert_eq!(store.offset([x, y, z]), offset, "offset at {:?}", [x, y, z]);
                    assert_eq!(
                        filled[index].to_bits(),
                        store.sample(x, y, z).to_bits(),
                        "fill_region at {:?}",
                        [x, y, z]
                    );
                    index += 1;
                }
            }
        }
        assert_eq!(store.edited(), reference_bricks(&offsets));
    }

    #[test]
    fn a_radius_64_dig_costs_under_1_mb() {
        // Before the store kept edits instead of sums, a 64 m dig kept 2,708 bricks of 512 i64
        // offsets, 11 MB that stayed (docs/performance-history.md, "Dig memory").
        let mut edits = store();
        let [x, y, z] = edits.generator().spawn_point();
        let changed = edits
            .dig([x, y, z], MAX_EDIT_RADIUS)
            .expect("a valid edit")
            .expect("changes");
        assert!(changed.high[0] - changed.low[0] > 120, "{changed:?}");
        let bytes = edits.heap_bytes();
        assert!(bytes > 0);
        assert!(bytes < 1_000_000, "{bytes} bytes for one 64 m dig");
        // A second dig of the same sphere only counts it twice.
        edits.dig([x, y, z], MAX_EDIT_RADIUS).expect("a valid edit");
        assert_eq!(edits.heap_bytes(), bytes);
    }

    #[test]
    fn thousands_of_digs_stay_under_a_bound() {
        // 2,000 digs of 8–64 m at random places on a 1 km square, many overlapping: the old
        // store would have held about 8 GB. Past `MOST_EDITED_CELLS` the rest are refused.
        let mut edits = EditStore::new(Arc::new(PlaneGround::flat(0.0)));
        let mut rng = Rng::new(16);
        let mut refused = 0;
        for _ in 0..2000 {
            let centre = [
                range(&mut rng, -500.0, 500.0),
                range(&mut rng, -8.0, 8.0),
                range(&mut rng, -500.0, 500.0),
            ];
            let cells = edits.cells.len();
            match edits.dig(centre, range(&mut rng, 8.0, MAX_EDIT_RADIUS)) {
                Ok(_) => {}
                // Past the limit a dig is refused whole: nothing changes.
                Err(EditError::Full) => {
                    refused += 1;
                    assert_eq!(edits.cells.len(), cells);
                }
                Err(error) => panic!("{error}"),
            }
            assert!(edits.cells.len() <= MOST_EDITED_CELLS);
        }
        // About 500 of these digs of up to 64 m fill the limit's 16,384 cells.
        assert!(refused < 1600, "{refused} of 2,000 digs refused");
        // 53–70 MB over seeds 0–7 and 16: under 50 KB a dig on average, where one dig alone
        // of 64 m costs about 49 KB and the old store held 11 MB for it.
        let bytes = edits.heap_bytes();
        assert!(bytes < 2_000 * 50_000, "{bytes} bytes for 2,000 digs");
    }

    #[test]
    fn a_build_that_undoes_a_dig_gives_its_memory_back() {
        let mut edits = store();
        let mut rng = Rng::new(3);
        for _ in 0..20 {
            let centre = [
                range(&mut rng, -80.0, 80.0),
                range(&mut rng, -10.0, 10.0),
                range(&mut rng, -80.0, 80.0),
            ];
            edits
                .dig(centre, range(&mut rng, 1.0, 20.0))
                .expect("a valid edit");
        }
        let before = edits.heap_bytes();
        for (centre, radius) in [
            ([3.5, 0.0, -7.25], MAX_EDIT_RADIUS),
            ([10.0, 2.0, 4.0], 5.0),
        ] {
            edits.dig(centre, radius).expect("a valid edit");
            assert!(edits.heap_bytes() > before);
            edits.build(centre, radius).expect("a valid edit");
            assert!(
                edits.heap_bytes() <= before,
                "{} > {before}",
                edits.heap_bytes()
            );
        }
        // From no edits, nothing at all is left.
        let mut edits = store();
        edits
            .dig([0.0, 0.0, 0.0], MAX_EDIT_RADIUS)
            .expect("a valid edit");
        edits
            .build([0.0, 0.0, 0.0], MAX_EDIT_RADIUS)
            .expect("a valid edit");
        assert_eq!(edits.heap_bytes(), 0);
        assert!(edits.edited().is_empty());
    }

    #[test]
    fn the_store_gives_every_edits_sum_bit_for_bit() {
        // Digs and builds overlapping in one place, more than a cell lists (so cells bake),
        // repeated spheres, and undoing builds in another order than the digs.
        let mut rng = Rng::new(7);
        let mut edits = Vec::new();
        for step in 0..60 {
            let centre = [
                range(&mut rng, -6.0, 6.0),
                range(&mut rng, -6.0, 6.0),
                range(&mut rng, -6.0, 6.0),
            ];
            let radius = range(&mut rng, 0.5, 9.0);
            edits.push((centre, radius, -1));
            if step % 5 == 0 {
                edits.push((centre, radius, -1));
            }
        }
        let undone: Vec<_> = edits
            .iter()
            .rev()
            .step_by(3)
            .map(|&(c, r, _)| (c, r, 1))
            .collect();
        edits.extend(undone);
        edits.push(([-20.0, 3.3, 17.9], 4.5, 1));
        let store = plane_store(&edits);
        assert!(
            store.cells.values().any(|cell| cell.baked.is_some()),
            "a cell baked"
        );
        let region = SampleBox {
            low: [-26, -16, -16],
            high: [16, 16, 23],
        };
        assert_matches_reference(&store, &edits, region);
    }

    #[test]
    fn dig_then_build_restores_every_sample_after_baking() {
        let mut edits = store();
        let before = edits.clone();
        let spheres: Vec<([f32; 3], f32)> = (0..40)
            .map(|step| ([step as f32 * 0.25, 1.0 - step as f32 * 0.1, 0.5], 3.0))
            .collect();
        for &(centre, radius) in &spheres {
            edits.dig(centre, radius).expect("a valid edit");
        }
        for &(centre, radius) in spheres.iter().rev() {
            edits.build(centre, radius).expect("a valid edit");
        }
        for z in -4..=5 {
            for y in -8..=5 {
                for x in -4..=14 {
                    assert_eq!(
                        edits.sample(x, y, z).to_bits(),
                        before.sample(x, y, z).to_bits()
                    );
                }
            }
        }
        assert!(edits.edited().is_empty());
    }

    #[test]
    fn saved_bricks_load_back_and_edit_on_exactly() {
        let mut rng = Rng::new(5);
        let mut edits: Vec<([f32; 3], f32, i64)> = (0..30)
            .map(|_| {
                let centre = [
                    range(&mut rng, -5.0, 5.0),
                    range(&mut rng, -5.0, 5.0),
                    range(&mut rng, -5.0, 5.0),
                ];
                (centre, range(&mut rng, 1.0, 7.0), -1)
            })
            .collect();
        let store = plane_store(&edits);
        let saved = store.edited();
        let loaded =
            EditStore::with_edits(store.generator().clone(), saved.clone()).expect("loads");
        assert_eq!(loaded.edited(), saved);
        // Edits go on from a loaded store as from the one that was saved.
        let mut loaded = loaded;
        let (centre, radius, _) = edits[4];
        loaded.build(centre, radius).expect("a valid edit");
        loaded.dig([1.0, 2.0, 3.0], 2.5).expect("a valid edit");
        edits.push((centre, radius, 1));
        edits.push(([1.0, 2.0, 3.0], 2.5, -1));
        let region = SampleBox {
            low: [-13, -13, -13],
            high: [13, 13, 13],
        };
        assert_matches_reference(&loaded, &edits, region);
    }

    #[test]
    fn bad_saved_bricks_are_refused() {
        let generator = Arc::new(Generator::new(3));
        let brick = |brick: [i32; 3], length: usize| EditedBrick {
            brick,
            offsets: vec![7; length],
        };
        let load = |bricks| EditStore::with_edits(generator.clone(), bricks);
        assert!(load(vec![brick([0, 0, 0], 511)]).is_err());
        assert!(load(vec![brick([i32::MAX / 4, 0, 0], 512)]).is_err());
        assert!(load(vec![brick([1, 2, 3], 512), brick([1, 2, 3], 512)]).is_err());
        let zero = EditedBrick {
            brick: [0; 3],
            offsets: vec![0; 512],
        };
        let loaded = load(vec![zero]).expect("a zero brick is no edit");
        assert_eq!(loaded.heap_bytes(), 0);
    }

    #[test]
    fn baked_offsets_keep_any_values() {
        let cases: [Box<dyn Fn(usize) -> i64>; 6] = [
            Box::new(|_| -5),
            Box::new(|index| index as i64 % 200 - 100),
            Box::new(|index| index as i64 * 97 - 30_000),
            Box::new(|index| index as i64 * 4_000_000),
            Box::new(|index| if index % 2 == 0 { i64::MIN } else { i64::MAX }),
            Box::new(|index| i64::MAX - index as i64),
        ];
        for (case, value) in cases.iter().enumerate() {
            let values: [i64; BRICK_VOLUME] = std::array::from_fn(value);
            let offsets = Offsets::encode(&values).expect("not zero");
            assert_eq!(offsets.decode(), values, "case {case}");
        }
        assert_eq!(
            Offsets::encode(&[-5; BRICK_VOLUME]).map(|o| o.heap_bytes()),
            Some(0)
        );
        assert!(Offsets::encode(&[0; BRICK_VOLUME]).is_none());
    }

    #[test]
    fn the_fast_round_is_round() {
        let mut values = vec![
            0.0,
            0.5,
            1.5,
            2.5,
            0.49999999999999994,
            524_288.0,
            524_287.5,
        ];
        let mut value = 0.0f64;
        while value < 600_000.0 {
            values.push(value);
            value = value * 1.001 + 0.0371;
        }
        for value in values {
            assert_eq!(round_half_away(value), value.round() as i64, "{value}");
        }
    }
}
