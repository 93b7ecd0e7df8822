//! The shape of a block with cut edges: its mesh, its volume and middle (the volume's centroid),
//! and its distance (docs/blocks.md).
//!
//! A block is the unit cube `[0, 1]³` scaled by its size. Any of its twelve edges may be cut: a
//! cut edge is rounded by a quarter cylinder of radius ½ around the cube's middle axis along the
//! edge, or, for a sloped block, chamfered by the 45° plane through the lines where that radius
//! meets the two faces. Seen along the edge, for the edge along x at y = 0, z = 0:
//!
//! ```text
//!   z                         rounded: (y - ½)² + (z - ½)² <= ¼   where y < ½ and z < ½
//!   1 +-------+               sloped:  y + z >= ½
//!     |       |
//!   ½ +       |               With the radius half the side, a cut takes the half of each
//!      \      |               face next to its edge, so what stays flat of a face is the
//!   0   '-+---+ y             quarters of it whose two edges are both uncut.
//!     0   ½   1
//! ```
//!
//! Every constraint is convex, so every shape is. In the cube's own frame from its middle
//! (`p = point - ½`), the edge's constraint only depends on how far `p` reaches toward the edge
//! on its two cross axes, `A = max(0, ±p_u)` and `B = max(0, ±p_v)`: rounded `A² + B² <= ¼`,
//! sloped `A + B <= ½`. That form gives the distance (each constraint has a closed-form nearest
//! point, and where two meet, at equal reaches along their edges, a curve with one parameter).
//! The mesh is the convex hull of points on the true surface (see `hull`): flat
//! parts exactly on the faces, bounded exactly by the arcs and diagonals, and convex.
//!
//! Edges are numbered `4 · axis + k`: `axis` is the one the edge runs along (0 x, 1 y, 2 z); the
//! other two axes `u < v` in ascending order, and bit 0 of `k` says the edge lies at `u = 1`
//! (else `u = 0`), bit 1 that it lies at `v = 1`. Sides are numbered `2 · axis + positive`:
//! 0 −x, 1 +x, 2 −y, 3 +y, 4 −z, 5 +z, as in [`SIDES`].
//!
//! - `hull`: building each shape: its mesh, the convex hull of points on the true surface,
//!   split into the cut surfaces and the six sides; its volume and middle.
//! - `distance`: the signed distance, exact outside, and inside out through the nearest open
//!   side (a side no plain block covers: an exposed face) or cut surface.

mod distance;
mod hull;

use std::sync::OnceLock;

use super::store::ALL_CUTS;
// Points and directions in a block's frame are in double precision.
use crate::dvec3::{cross, dot, length, sub, DVec3};

pub use distance::block_distance;
pub use hull::QUARTER_SEGMENTS;

/// The six sides, by number: `(axis, positive)`.
pub const SIDES: [(usize, bool); 6] = [
    (0, false),
    (0, true),
    (1, false),
    (1, true),
    (2, false),
    (2, true),
];

/// The number of a side.
pub fn side_of(axis: usize, positive: bool) -> usize {
    2 * axis + usize::from(positive)
}

/// Where an edge lies: the axis it runs along, and its two cross axes with which end of each.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Edge {
    pub axis: usize,
    pub u: usize,
    pub v: usize,
    pub u_high: bool,
    pub v_high: bool,
}

/// Edge `index` (0..12), as numbered in the module documentation.
pub fn edge(index: usize) -> Edge {
    let axis = (index / 4) % 3;
    let (u, v) = match axis {
        0 => (1, 2),
        1 => (0, 2),
        _ => (0, 1),
    };
    Edge {
        axis,
        u,
        v,
        u_high: index & 1 != 0,
        v_high: index & 2 != 0,
    }
}

/// The four edges around a side: the showcase's slate pyramid cuts `side_edges(1, true)`.
pub fn side_edges(axis: usize, positive: bool) -> [usize; 4] {
    let mut edges = [0; 4];
    let mut found = 0;
    for index in 0..12 {
        let Edge {
            u,
            v,
            u_high,
            v_high,
            ..
        } = edge(index);
        let on_side = (u == axis && u_high == positive) || (v == axis && v_high == positive);
        if on_side && found < 4 {
            edges[found] = index;
            found += 1;
        }
    }
    edges
}

/// The nearest surface to a point: the one collision question's answer (physics::collision).
pub use blockfall_physics::collision::Surface;

/// A part of a block shape's triangle mesh (its inner surfaces, or what lies on one cube face),
/// counter-clockwise seen from outside. Not a body's mass element (`physics::Part`).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct MeshPart {
    pub positions: Vec<[f32; 3]>,
    pub normals: Vec<[f32; 3]>,
    pub indices: Vec<u32>,
}

/// A block's shape in the unit cube.
#[derive(Debug, Clone, PartialEq)]
pub struct Shape {
    pub cuts: u16,
    pub slope: bool,
    /// The rounded or chamfered surfaces: nothing can cover them.
    pub inner: MeshPart,
    /// What lies on each cube face, by side number: left out where a neighbour covers the side.
    /// Together with `inner`, a closed mesh.
    pub sides: [MeshPart; 6],
    /// How much of the cube the shape fills, from 0 to 1.
    pub volume: f32,
    /// The middle of its volume: where its weight pulls.
    pub middle: [f32; 3],
}

/// The shape for a cut mask and slope, built on first use and kept: 8192 possible shapes, each
/// built only if a block has it.
pub fn shape_of(cuts: u16, slope: bool) -> &'static Shape {
    static SHAPES: OnceLock<Vec<OnceLock<Shape>>> = OnceLock::new();
    let cuts = cuts & ALL_CUTS;
    let table = SHAPES.get_or_init(|| {
        (0..2 * (usize::from(ALL_CUTS) + 1))
            .map(|_| OnceLock::new())
            .collect()
    });
    let index = usize::from(cuts) | (usize::from(slope) << 12);
    table[index].get_or_init(|| Shape::new(cuts, slope))
}

fn to_f32(a: DVec3) -> [f32; 3] {
    a.map(|c| c as f32)
}

fn sign(high: bool) -> f64 {
    if high {
        1.0
    } else {
        -1.0
    }
}

/// How far `p` (from the middle) reaches toward an edge on its two cross axes.
fn reach(edge: &Edge, p: DVec3) -> (f64, f64) {
    (
        (sign(edge.u_high) * p[edge.u]).max(0.0),
        (sign(edge.v_high) * p[edge.v]).max(0.0),
    )
}

impl Shape {
    /// The cut edges.
    fn cut_edges(&self) -> impl Iterator<Item = (usize, Edge)> + '_ {
        (0..12)
            .filter(move |index| self.cuts & (1 << index) != 0)
            .map(|index| (index, edge(index)))
    }

    /// Whether a point (from the middle) is in the shape.
    fn contains(&self, p: DVec3) -> bool {
        self.contains_within(p, 0.0)
    }

    /// Whether a point (from the middle) is in the shape, or at most about `tolerance` out.
    fn contains_within(&self, p: DVec3, tolerance: f64) -> bool {
        p.iter().all(|c| c.abs() <= 0.5 + tolerance)
            && self.cut_edges().all(|(_, edge)| {
                let (a, b) = reach(&edge, p);
                if self.slope {
                    a + b <= 0.5 + tolerance
                } else {
                    a * a + b * b <= 0.25 + tolerance
                }
            })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    pub(super) const ALL: u16 = ALL_CUTS;

    pub(super) fn pyramid() -> u16 {
        side_edges(1, true)
            .iter()
            .fold(0, |cuts, edge| cuts | (1 << edge))
    }

    /// A few of every kind: none, each single edge, pairs at a corner, three at a corner, the
    /// ball, the pyramid, and some mixed masks.
    pub(super) fn sample_masks() -> Vec<u16> {
        let mut masks = vec![
            0,
            ALL,
            pyramid(),
            0b0000_0001_0001,
            0b0001_0001_0001,
            0x5A5,
            0x3C3,
            0xF0F,
            0x0FF,
        ];
        masks.extend((0..12).map(|edge| 1 << edge));
        masks
    }

    pub(super) fn triangles(shape: &Shape) -> Vec<[DVec3; 3]> {
        std::iter::once(&shape.inner)
            .chain(shape.sides.iter())
            .flat_map(|part| {
                part.indices
                    .chunks_exact(3)
                    .map(|t| [0, 1, 2].map(|k| part.positions[t[k] as usize].map(f64::from)))
            })
            .collect()
    }

    #[test]
    fn side_edges_go_around_their_side() {
        let mut sides_per_edge = [0; 12];
        for &(axis, positive) in &SIDES {
            for index in side_edges(axis, positive) {
                let edge = edge(index);
                assert_ne!(edge.axis, axis);
                let high = if edge.u == axis {
                    edge.u_high
                } else {
                    edge.v_high
                };
                assert_eq!(high, positive);
                sides_per_edge[index] += 1;
            }
        }
        assert_eq!(sides_per_edge, [2; 12]);
        assert_eq!(side_edges(1, true), [1, 3, 10, 11]);
    }
}
