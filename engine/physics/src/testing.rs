//! Small analytic solids and shapes for the tests, and bodies made of cubes.

use std::collections::HashMap;

use super::body::cube_inertia;
use super::{BodyDesc, BodyHandle, BodyShape, Part};
use crate::collision::{box_face, Around, FaceAnswer, Solid, Surface};

/// Numbers in `[0, 1)` from a linear congruential generator started at `seed`: repeatable
/// scenes for the tests.
pub fn uniform(mut seed: u64) -> impl FnMut() -> f64 {
    move || {
        seed = seed
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (seed >> 11) as f64 / (1u64 << 53) as f64
    }
}

/// A test solid's stamp: a 128-bit FNV-1a hash of its kind and its numbers, which never
/// change (so that the tests step with what bodies learn of the world kept, as the game does).
fn named(kind: u8, numbers: &[f32]) -> Option<u128> {
    const PRIME: u128 = 0x0000_0000_0100_0000_0000_0000_0000_013B;
    let bytes = numbers
        .iter()
        .flat_map(|number| number.to_bits().to_le_bytes());
    let hash = std::iter::once(kind).chain(bytes).fold(
        0x6c62_272e_07bb_0142_62b8_2175_6295_c58d,
        |hash: u128, byte| (hash ^ u128::from(byte)).wrapping_mul(PRIME),
    );
    Some(hash)
}

/// Nothing solid anywhere.
pub struct Nothing;

impl Solid for Nothing {
    fn nearest(&self, _point: [f32; 3], _reach: f32) -> Option<Surface> {
        None
    }

    fn nearest_many_clear(
        &self,
        _queries: &[([f32; 3], f32)],
        out: &mut [Option<Surface>],
        clear: &mut [f32],
    ) {
        out.fill(None);
        clear.fill(f32::INFINITY);
    }

    fn stamp(&self) -> Option<u128> {
        named(0, &[])
    }
}

/// Everything below `y = height` is solid.
pub struct Ground {
    pub height: f32,
}

impl Solid for Ground {
    fn nearest(&self, point: [f32; 3], reach: f32) -> Option<Surface> {
        let distance = point[1] - self.height;
        (distance < reach).then_some(Surface {
            distance,
            normal: [0.0, 1.0, 0.0],
        })
    }

    fn true_distances(&self) -> bool {
        true
    }

    fn stamp(&self) -> Option<u128> {
        named(1, &[self.height])
    }
}

/// A plane through the origin rising along +x at `angle` radians, solid below.
pub struct Slope {
    pub angle: f32,
}

impl Slope {
    pub fn normal(&self) -> [f32; 3] {
        [-self.angle.sin(), self.angle.cos(), 0.0]
    }
}

impl Solid for Slope {
    fn nearest(&self, point: [f32; 3], reach: f32) -> Option<Surface> {
        let normal = self.normal();
        let distance = point[0] * normal[0] + point[1] * normal[1] + point[2] * normal[2];
        (distance < reach).then_some(Surface { distance, normal })
    }

    fn true_distances(&self) -> bool {
        true
    }

    fn stamp(&self) -> Option<u128> {
        named(2, &[self.angle])
    }
}

/// The exact distance to an axis-aligned box and the way out, within `reach`.
pub fn box_nearest(point: [f32; 3], low: [f32; 3], high: [f32; 3], reach: f32) -> Option<Surface> {
    let mut outside = [0.0f32; 3];
    let mut deepest = (f32::NEG_INFINITY, 0usize, 1.0f32);
    for axis in 0..3 {
        let middle = (low[axis] + high[axis]) * 0.5;
        let half = (high[axis] - low[axis]) * 0.5;
        let from = point[axis] - middle;
        let beyond = from.abs() - half;
        let sign = if from < 0.0 { -1.0 } else { 1.0 };
        outside[axis] = beyond.max(0.0) * sign;
        if beyond > deepest.0 {
            deepest = (beyond, axis, sign);
        }
    }
    let length = (outside[0].powi(2) + outside[1].powi(2) + outside[2].powi(2)).sqrt();
    let surface = if length > 0.0 {
        Surface {
            distance: length,
            normal: [
                outside[0] / length,
                outside[1] / length,
                outside[2] / length,
            ],
        }
    } else {
        let mut normal = [0.0; 3];
        normal[deepest.1] = deepest.2;
        Surface {
            distance: deepest.0,
            normal,
        }
    };
    (surface.distance < reach).then_some(surface)
}

/// An axis-aligned box, solid inside.
pub struct Slab {
    pub low: [f32; 3],
    pub high: [f32; 3],
}

impl Solid for Slab {
    fn nearest(&self, point: [f32; 3], reach: f32) -> Option<Surface> {
        box_nearest(point, self.low, self.high, reach)
    }

    fn true_distances(&self) -> bool {
        true
    }

    fn stamp(&self) -> Option<u128> {
        named(3, &[self.low, self.high].concat())
    }
}

/// A ledge: solid where `x < edge` and `y < 0`, endless in z.
pub struct Ledge {
    pub edge: f32,
}

impl Solid for Ledge {
    fn nearest(&self, point: [f32; 3], reach: f32) -> Option<Surface> {
        let x = point[0] - self.edge;
        let y = point[1];
        let surface = if x > 0.0 && y > 0.0 {
            let length = (x * x + y * y).sqrt();
            Surface {
                distance: length,
                normal: [x / length, y / length, 0.0],
            }
        } else if x > 0.0 || (y <= 0.0 && x > y) {
            Surface {
                distance: x,
                normal: [1.0, 0.0, 0.0],
            }
        } else {
            Surface {
                distance: y,
                normal: [0.0, 1.0, 0.0],
            }
        };
        (surface.distance < reach).then_some(surface)
    }

    fn true_distances(&self) -> bool {
        true
    }

    fn stamp(&self) -> Option<u128> {
        named(4, &[self.edge])
    }
}

/// Box shapes of bodies, in their own frames.
#[derive(Default)]
pub struct Boxes {
    pub boxes: HashMap<BodyHandle, ([f32; 3], [f32; 3])>,
}

impl BodyShape for Boxes {
    fn nearest(&self, body: BodyHandle, point: [f32; 3], reach: f32) -> Option<Surface> {
        let (low, high) = self.boxes.get(&body)?;
        box_nearest(point, *low, *high, reach)
    }

    /// The face a point meets (`collision::box_face`, the cells of the asking body taken a
    /// quarter meter across: the half-block cells of 1 m blocks).
    fn nearest_around(
        &self,
        body: BodyHandle,
        point: [f32; 3],
        reach: f32,
        around: Around,
    ) -> Option<Surface> {
        let &(low, high) = self.boxes.get(&body)?;
        match box_face((low, high), point, &around, 0.25, |_| true) {
            FaceAnswer::Face(surface) => Some(surface).filter(|s| s.distance < reach),
            FaceAnswer::Beside => None,
            FaceAnswer::Distance => box_nearest(point, low, high, reach),
        }
    }
}

/// A box of `blocks` cubes of `block` meters on each axis, its low corner at `low`, of stone
/// (2600 kg/m³): a part per cube, and points every half block on its outside (a lone 1 m
/// cube has 26).
pub fn block_box(low: [f64; 3], blocks: [usize; 3], block: f64) -> BodyDesc {
    let mass = 2600.0 * block * block * block;
    let mut parts = Vec::new();
    for i in 0..blocks[0] {
        for j in 0..blocks[1] {
            for k in 0..blocks[2] {
                let at = |index: usize, axis: usize| low[axis] + (index as f64 + 0.5) * block;
                parts.push(Part {
                    mass,
                    center: [at(i, 0), at(j, 1), at(k, 2)],
                    inertia: cube_inertia(mass, block),
                });
            }
        }
    }
    let steps = [blocks[0] * 2, blocks[1] * 2, blocks[2] * 2];
    let mut points = Vec::new();
    let mut around = Vec::new();
    for i in 0..=steps[0] {
        for j in 0..=steps[1] {
            for k in 0..=steps[2] {
                let on_outside =
                    i == 0 || j == 0 || k == 0 || i == steps[0] || j == steps[1] || k == steps[2];
                if on_outside {
                    let half = block * 0.5;
                    points.push([
                        low[0] + i as f64 * half,
                        low[1] + j as f64 * half,
                        low[2] + k as f64 * half,
                    ]);
                    // The half-block cells around the point that lie in the box.
                    let at = [i, j, k];
                    let filled = |octant: u8, axis: usize| {
                        if octant >> axis & 1 == 1 {
                            at[axis] < steps[axis]
                        } else {
                            at[axis] > 0
                        }
                    };
                    around.push((0..8u8).fold(0u8, |mask, octant| {
                        let inside = (0..3).all(|axis| filled(octant, axis));
                        mask | u8::from(inside) << octant
                    }));
                }
            }
        }
    }
    BodyDesc {
        parts,
        points,
        around,
    }
}

/// The box of a [`block_box`] in its own frame.
pub fn block_box_extent(low: [f64; 3], blocks: [usize; 3], block: f64) -> ([f32; 3], [f32; 3]) {
    let high = [
        low[0] + blocks[0] as f64 * block,
        low[1] + blocks[1] as f64 * block,
        low[2] + blocks[2] as f64 * block,
    ];
    (
        [low[0] as f32, low[1] as f32, low[2] as f32],
        [high[0] as f32, high[1] as f32, high[2] as f32],
    )
}

/// A 1 m stone cube with its low corner at `low`.
pub fn cube(low: [f64; 3]) -> BodyDesc {
    block_box(low, [1, 1, 1], 1.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_lone_cube_has_26_points_and_a_4_cube_386() {
        assert_eq!(cube([0.0; 3]).points.len(), 26);
        assert_eq!(block_box([0.0; 3], [4, 4, 4], 1.0).points.len(), 386);
    }

    #[test]
    fn the_test_solids_measure_true_distances() {
        let slab = Slab {
            low: [-1.0, -0.5, -1.0],
            high: [1.0, 0.0, 1.0],
        };
        let above = slab.nearest([0.0, 0.3, 0.0], 1.0).expect("near");
        assert!((above.distance - 0.3).abs() < 1e-6 && above.normal == [0.0, 1.0, 0.0]);
        let inside = slab.nearest([0.0, -0.4, 0.0], 1.0).expect("inside");
        assert!((inside.distance + 0.1).abs() < 1e-6 && inside.normal == [0.0, -1.0, 0.0]);
        assert!(slab.nearest([0.0, 2.0, 0.0], 1.0).is_none());
        let ledge = Ledge { edge: 0.0 };
        let corner = ledge.nearest([3.0, 4.0, 0.0], 10.0).expect("near");
        assert!((corner.distance - 5.0).abs() < 1e-6);
        let side = ledge.nearest([0.5, -2.0, 0.0], 1.0).expect("near");
        assert!((side.distance - 0.5).abs() < 1e-6 && side.normal == [1.0, 0.0, 0.0]);
        let top = ledge.nearest([-2.0, 0.01, 0.0], 1.0).expect("near");
        assert!((top.distance - 0.01).abs() < 1e-6 && top.normal == [0.0, 1.0, 0.0]);
        let under = ledge.nearest([-2.0, -0.1, 0.0], 1.0).expect("inside");
        assert!((under.distance + 0.1).abs() < 1e-6 && under.normal == [0.0, 1.0, 0.0]);
    }
}
