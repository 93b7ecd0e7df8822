//! Whether many points near each other are inside the ground: [`World::inside_ground`] to the
//! bit, several times faster, for the cells around a block region's vertices (the blocks'
//! ambient occlusion, [`crate::blocks::occlusion`]), which are tens of thousands in a dense
//! region and mostly in the open air.
//!
//! The samples are taken in boxes of 8 m. A box the ground's bounds prove all air or all ground,
//! where no edit reaches, is answered without a sample; another one has its 9³ samples read from
//! the field at once ([`Field::samples_in`]) and blended here as the field's probe blends them.
//! Each box is looked at once per sampler: make one per batch of meshing, since it does not see
//! later edits.
//!
//! [`World::inside_ground`]: super::World::inside_ground
//! [`Field::samples_in`]: crate::terrain::Field::samples_in

use std::cell::RefCell;

use super::WorldField;
use crate::cell_hash::CellMap;
use crate::terrain::field::{cell_corners, trilinear};
use crate::terrain::{ChunkKind, SampleBox};

/// Samples per side of a box (meters).
const SIDE: i32 = 8;

/// Samples along a side of a box, with those of its far face: a probe in the box reads up to
/// one sample beyond it.
const SPAN: usize = SIDE as usize + 1;

/// Points further out than this (meters) are probed by the field itself.
const FAR: f32 = 1.0e9;

/// What is known of a box.
enum Proven {
    Air,
    Solid,
    /// Its samples, x fastest, `SPAN` a side.
    Samples(Box<[f32]>),
}

/// [`World::inside_ground`] for many points near each other (see the module documentation).
///
/// [`World::inside_ground`]: super::World::inside_ground
pub struct GroundSampler<'a> {
    field: &'a WorldField,
    /// By the box's lowest sample / `SIDE`.
    boxes: RefCell<CellMap<Proven>>,
}

impl<'a> GroundSampler<'a> {
    pub fn new(field: &'a WorldField) -> Self {
        Self {
            field,
            boxes: RefCell::new(CellMap::default()),
        }
    }

    /// Whether `point` (meters) is inside the ground: density above 0, the same bits as
    /// `field.probe(point)` gives.
    pub fn inside(&self, point: [f32; 3]) -> bool {
        let corner = point.map(f32::floor);
        if !corner.iter().all(|c| c.abs() < FAR) {
            return self.field.probe(point[0], point[1], point[2]).density > 0.0;
        }
        let low = corner.map(|c| c as i32);
        let key = low.map(|c| c.div_euclid(SIDE));
        let mut boxes = self.boxes.borrow_mut();
        let values = match boxes.entry(key).or_insert_with(|| self.prove(key)) {
            Proven::Air => return false,
            Proven::Solid => return true,
            Proven::Samples(values) => values,
        };
        let at = [0, 1, 2].map(|axis| (low[axis] - key[axis] * SIDE) as usize);
        let (row, layer) = (SPAN, SPAN * SPAN);
        let first = at[0] + row * at[1] + layer * at[2];
        // In the order of `trilinear`, as the field's probe reads them.
        let corners = cell_corners(values, first, row, layer);
        let fraction = [0, 1, 2].map(|axis| point[axis] - corner[axis]);
        trilinear(&corners, fraction).density > 0.0
    }

    /// What the box `key` holds: proven by the ground's bounds where no edit reaches, else its
    /// samples.
    fn prove(&self, key: [i32; 3]) -> Proven {
        let samples = SampleBox {
            low: key.map(|c| c * SIDE),
            high: key.map(|c| c * SIDE + SIDE),
        };
        let edits = self.field.edits();
        if !edits.has_edits_in(&samples) {
            match edits.generator().classify(samples.low, samples.high) {
                ChunkKind::Air => return Proven::Air,
                ChunkKind::Solid => return Proven::Solid,
                ChunkKind::Mixed => {}
            }
        }
        let mut values = vec![0.0; SPAN * SPAN * SPAN];
        self.field.samples_in(samples.low, [SPAN; 3], &mut values);
        Proven::Samples(values.into_boxed_slice())
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use blockfall_physics::workers::WorkerPool;

    use crate::terrain::Generator;
    use crate::world::World;

    #[test]
    fn the_sampler_answers_as_the_field_probes() {
        let pool = WorkerPool::new(1).unwrap();
        let mut world = World::on(Arc::new(Generator::new(Generator::DEFAULT_SEED)), 1, pool);
        let height = world.ground().surface_height(3.0, -5.0);
        // A dig below the surface: the boxes it reaches are sampled, not proven.
        world.edit_at(true, [3.0, height - 2.0, -5.0], 4.0).unwrap();
        let sampler = world.ground_sampler();
        let mut inside = 0;
        let mut checked = 0;
        for x in -24..24 {
            for z in -24..24 {
                for y in -40..40 {
                    // Cell middles, and points off the quarter grid.
                    for point in [
                        [
                            x as f32 * 0.5 + 0.25,
                            height + y as f32 * 0.5 + 0.25,
                            z as f32 * 0.5,
                        ],
                        [x as f32 * 0.37, height + y as f32 * 0.61, z as f32 * -0.43],
                    ] {
                        let expected = world.inside_ground(point);
                        assert_eq!(sampler.inside(point), expected, "{point:?}");
                        inside += usize::from(expected);
                        checked += 1;
                    }
                }
            }
        }
        assert!(
            inside > checked / 8 && inside < checked * 7 / 8,
            "{inside} of {checked}"
        );
        // Far out and not finite: the field's own answer.
        for point in [[1e20, 0.0, 0.0], [0.0, -3e9, 0.0], [f32::NAN, 0.0, 0.0]] {
            assert_eq!(sampler.inside(point), world.inside_ground(point));
        }
    }
}
