//! Digging and building: changes to the generated ground, kept sparsely.
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
//! Only edited samples are stored: a map of 8³ bricks of offsets, a brick dropped again when
//! all its offsets return to zero.

use std::collections::HashMap;
use std::sync::Arc;

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
/// Samples per side of a brick of the store.
pub const BRICK: i32 = 8;
const BRICK_VOLUME: usize = (BRICK * BRICK * BRICK) as usize;

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
}

/// Which way an edit goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Direction {
    Dig,
    Build,
}

/// An edited brick as plain data: the brick's coordinate (its samples from `BRICK ·
/// brick`) and its [`BRICK`]³ offsets in [`QUANTUM`]s, x fastest, then y, then z.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct EditedBrick {
    pub brick: [i32; 3],
    pub offsets: Vec<i64>,
}

/// One brick's offsets, in [`QUANTUM`]s, and how many are not zero.
#[derive(Debug, Clone)]
struct Brick {
    offsets: Box<[i64; BRICK_VOLUME]>,
    edited: usize,
}

/// The ground as edited: the generated density plus the sparse offsets of every dig and build.
/// `G` is what lies under the edits: the generated world by default, or any [`Ground`]
/// (`EditStore<dyn Ground>` for a ground chosen at run time).
#[derive(Debug, Clone)]
pub struct EditStore<G: Ground + ?Sized = Generator> {
    generator: Arc<G>,
    bricks: HashMap<[i32; 3], Brick>,
}

impl<G: Ground + ?Sized> EditStore<G> {
    /// Unedited ground.
    pub fn new(generator: Arc<G>) -> Self {
        Self {
            generator,
            bricks: HashMap::new(),
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

    /// Every edited brick, ordered by its coordinate: what a save keeps of the edits.
    pub fn edited(&self) -> Vec<EditedBrick> {
        let mut bricks: Vec<EditedBrick> = self
            .bricks
            .iter()
            .map(|(&brick, found)| EditedBrick {
                brick,
                offsets: found.offsets.to_vec(),
            })
            .collect();
        bricks.sort_unstable_by_key(|edited| edited.brick);
        bricks
    }

    /// The ground `generator` with the edits of `bricks` (from [`EditStore::edited`]). Refuses
    /// a brick without [`BRICK`]³ offsets, one whose samples are beyond what an `i32` holds,
    /// and one given twice; a brick of zero offsets is no edit and is left out.
    pub fn with_edits(generator: Arc<G>, bricks: Vec<EditedBrick>) -> Result<Self, String> {
        let mut store = Self::new(generator);
        let reach = i32::MAX / BRICK;
        for (index, edited) in bricks.into_iter().enumerate() {
            let offsets: Box<[i64; BRICK_VOLUME]> =
                edited.offsets.into_boxed_slice().try_into().map_err(|_| {
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
            let count = offsets.iter().filter(|offset| **offset != 0).count();
            if count == 0 {
                continue;
            }
            let brick = Brick {
                offsets,
                edited: count,
            };
            if store.bricks.insert(edited.brick, brick).is_some() {
                return Err(format!("the brick at {:?} is edited twice", edited.brick));
            }
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

    /// How many bricks hold edits: the store's size, for tests and statistics.
    pub fn edited_bricks(&self) -> usize {
        self.bricks.len()
    }

    /// The bytes the store holds on the heap (the map's slots and the bricks), not counting
    /// the allocator's own overhead: what the edits cost in memory.
    pub fn heap_bytes(&self) -> usize {
        let slot = std::mem::size_of::<([i32; 3], Brick)>() + 1;
        self.bricks.capacity() * slot
            + self.bricks.len() * std::mem::size_of::<[i64; BRICK_VOLUME]>()
    }

    /// Whether any sample in the box is edited (or was, in a brick not yet back to zero).
    pub fn has_edits_in(&self, region: &SampleBox) -> bool {
        if self.bricks.is_empty() {
            return false;
        }
        let low = region.low.map(|value| value.div_euclid(BRICK));
        let high = region.high.map(|value| value.div_euclid(BRICK));
        let count = (0..3)
            .map(|axis| i64::from(high[axis] - low[axis] + 1))
            .product::<i64>();
        // A huge box is cheaper to test against the bricks than brick by brick.
        if count > self.bricks.len() as i64 {
            return self.bricks.keys().any(|brick| {
                (0..3).all(|axis| low[axis] <= brick[axis] && brick[axis] <= high[axis])
            });
        }
        (low[0]..=high[0]).any(|x| {
            (low[1]..=high[1])
                .any(|y| (low[2]..=high[2]).any(|z| self.bricks.contains_key(&[x, y, z])))
        })
    }

    /// The densities of the samples `low + (i, j, k)`, `i < size[0]` and so on, x fastest,
    /// into `out`: generated a column at a time, then the edits in the region applied.
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
        for (z, k) in (region.low[2]..=region.high[2]).zip(0..) {
            for (y, j) in (region.low[1]..=region.high[1]).zip(0..) {
                for (x, i) in (region.low[0]..=region.high[0]).zip(0..) {
                    let offset = self.offset([x, y, z]);
                    if offset != 0 {
                        let index = i + j * size[0] + k * size[0] * size[1];
                        out[index] = apply(out[index], offset);
                    }
                }
            }
        }
    }

    fn offset(&self, sample: [i32; 3]) -> i64 {
        let brick = sample.map(|value| value.div_euclid(BRICK));
        self.bricks
            .get(&brick)
            .map_or(0, |found| found.offsets[index_in_brick(sample)])
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
        // Far from the origin a whole-meter sample is no longer an i32: refuse that too.
        let reach = |value: f32| f64::from(value).abs() + f64::from(radius) + 1.0;
        if centre
            .iter()
            .any(|value| reach(*value) > f64::from(i32::MAX / 2))
        {
            return Err(EditError::CentreNotFinite(centre));
        }
        let centre = centre.map(f64::from);
        let radius = f64::from(radius);
        let low = centre.map(|value| (value - radius).ceil() as i32);
        let high = centre.map(|value| (value + radius).floor() as i32);
        let mut changed: Option<SampleBox> = None;
        for z in low[2]..=high[2] {
            for y in low[1]..=high[1] {
                for x in low[0]..=high[0] {
                    let sample = [x, y, z];
                    let steps = bump_steps(sample, centre, radius);
                    if steps == 0 {
                        continue;
                    }
                    let signed = match direction {
                        Direction::Dig => -steps,
                        Direction::Build => steps,
                    };
                    if self.add_offset(sample, signed) {
                        let here = SampleBox {
                            low: sample,
                            high: sample,
                        };
                        changed = Some(changed.map_or(here, |found| found.union(&here)));
                    }
                }
            }
        }
        Ok(changed)
    }

    /// Adds `steps` to a sample's offset; whether its density changed.
    fn add_offset(&mut self, sample: [i32; 3], steps: i64) -> bool {
        let generated = self.generator.density(sample[0], sample[1], sample[2]);
        let brick_coord = sample.map(|value| value.div_euclid(BRICK));
        let brick = self.bricks.entry(brick_coord).or_insert_with(|| Brick {
            offsets: Box::new([0; BRICK_VOLUME]),
            edited: 0,
        });
        let index = index_in_brick(sample);
        let before = brick.offsets[index];
        let after = before.saturating_add(steps);
        brick.offsets[index] = after;
        match (before == 0, after == 0) {
            (true, false) => brick.edited += 1,
            (false, true) => brick.edited -= 1,
            _ => {}
        }
        if brick.edited == 0 {
            self.bricks.remove(&brick_coord);
        }
        let value = |offset: i64| match offset {
            0 => generated,
            offset => apply(generated, offset),
        };
        value(before).to_bits() != value(after).to_bits()
    }
}

/// The bump of an edit at a sample, in whole [`QUANTUM`]s.
fn bump_steps(sample: [i32; 3], centre: [f64; 3], radius: f64) -> i64 {
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
    use super::*;

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
        assert!(matches!(
            edits.dig([3.0e9, 0.0, 0.0], 2.0),
            Err(EditError::CentreNotFinite(_))
        ));
        assert_eq!(edits.edited_bricks(), 0);
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
        assert!(edits.edited_bricks() > 0);
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
        assert_eq!(edits.edited_bricks(), 0);
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
        assert_eq!(edits.edited_bricks(), 0);
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
}
