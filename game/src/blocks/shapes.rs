//! The shape of a block with cut edges: its mesh, its volume and middle, and its distance
//! (seeds 000 and 003).
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
//! The mesh is the convex hull of points on the true surface (see `Shape::build_mesh`): flat
//! parts exactly on the faces, bounded exactly by the arcs and diagonals, and convex.
//!
//! Edges are numbered `4 · axis + k`: `axis` is the one the edge runs along (0 x, 1 y, 2 z); the
//! other two axes `u < v` in ascending order, and bit 0 of `k` says the edge lies at `u = 1`
//! (else `u = 0`), bit 1 that it lies at `v = 1`. Sides are numbered `2 · axis + positive`:
//! 0 −x, 1 +x, 2 −y, 3 +y, 4 −z, 5 +z, as the seeds' `SIDES`.

use std::collections::HashMap;
use std::f64::consts::{FRAC_1_SQRT_2, FRAC_PI_2};
use std::sync::OnceLock;

use super::store::{Block, ALL_CUTS, CELL};

/// Segments of each rounded cut's quarter circle in the mesh: 8, 11.25° each, leave at most 2.4
/// thousandths of the side between the mesh and the true surface.
pub const QUARTER_SEGMENTS: u32 = 8;

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

/// The four edges around a side: the sample scene's slate pyramid cuts `side_edges(1, true)`.
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

/// The nearest surface to a point: the one collision question's answer (engine::collision).
pub use blockfall_engine::collision::Surface;

/// A piece of a triangle mesh, counter-clockwise seen from outside.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Part {
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
    pub inner: Part,
    /// What lies on each cube face, by side number: left out where a neighbour covers the side.
    /// Together with `inner`, a closed mesh.
    pub sides: [Part; 6],
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

/// The distance from a point in meters to a block, below 0 inside it; inside, the way out is
/// only through the sides `is_open` says are open, or the cut surfaces (see [`Shape::distance`]).
pub fn block_distance(block: &Block, point: [f32; 3], is_open: impl Fn(usize) -> bool) -> Surface {
    let meters = f32::from(block.size) * CELL;
    let low = [block.x, block.y, block.z];
    let local: [f32; 3] =
        std::array::from_fn(|axis| (point[axis] - low[axis] as f32 * CELL) / meters);
    let surface = shape_of(block.cuts, block.slope).distance(local, is_open);
    Surface {
        distance: surface.distance * meters,
        normal: surface.normal,
    }
}

type Vec3 = [f64; 3];

fn sub(a: Vec3, b: Vec3) -> Vec3 {
    [a[0] - b[0], a[1] - b[1], a[2] - b[2]]
}

fn dot(a: Vec3, b: Vec3) -> f64 {
    a[0] * b[0] + a[1] * b[1] + a[2] * b[2]
}

fn cross(a: Vec3, b: Vec3) -> Vec3 {
    [
        a[1] * b[2] - a[2] * b[1],
        a[2] * b[0] - a[0] * b[2],
        a[0] * b[1] - a[1] * b[0],
    ]
}

fn length(a: Vec3) -> f64 {
    dot(a, a).sqrt()
}

fn to_f32(a: Vec3) -> [f32; 3] {
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
fn reach(edge: &Edge, p: Vec3) -> (f64, f64) {
    (
        (sign(edge.u_high) * p[edge.u]).max(0.0),
        (sign(edge.v_high) * p[edge.v]).max(0.0),
    )
}

impl Shape {
    fn new(cuts: u16, slope: bool) -> Shape {
        let mut shape = Shape {
            cuts,
            slope,
            inner: Part::default(),
            sides: Default::default(),
            volume: 0.0,
            middle: [0.5; 3],
        };
        shape.build_mesh();
        shape.measure();
        shape
    }

    /// The cut edges.
    fn cut_edges(&self) -> impl Iterator<Item = (usize, Edge)> + '_ {
        (0..12)
            .filter(move |index| self.cuts & (1 << index) != 0)
            .map(|index| (index, edge(index)))
    }

    /// How far along the ray `middle + t · direction` the shape reaches, at most 1, and the cut
    /// that stops it there, if one does before `t = 1`.
    fn ray_limit(&self, direction: Vec3) -> (f64, Option<usize>) {
        let mut limit = 1.0;
        let mut stop = None;
        for (index, edge) in self.cut_edges() {
            let (a, b) = reach(&edge, direction);
            let edge_limit = if self.slope {
                if a + b > 0.0 {
                    0.5 / (a + b)
                } else {
                    f64::INFINITY
                }
            } else if a * a + b * b > 0.0 {
                0.5 / (a * a + b * b).sqrt()
            } else {
                f64::INFINITY
            };
            if edge_limit < limit {
                limit = edge_limit;
                stop = Some(index);
            }
        }
        (limit, stop)
    }

    /// The outward normal of a cut's surface at a point on it (from the middle).
    fn cut_normal(&self, index: usize, p: Vec3) -> Option<Vec3> {
        let edge = edge(index);
        let (a, b) = if self.slope {
            (FRAC_1_SQRT_2, FRAC_1_SQRT_2)
        } else {
            let (a, b) = reach(&edge, p);
            let norm = (a * a + b * b).sqrt();
            if norm < 1e-9 {
                return None;
            }
            (a / norm, b / norm)
        };
        let mut normal = [0.0; 3];
        normal[edge.u] = sign(edge.u_high) * a;
        normal[edge.v] = sign(edge.v_high) * b;
        Some(normal)
    }

    /// Meshes the boundary of the shape as the convex hull of points on its true surface: the
    /// cube corners it keeps, and for each cut edge the two ends of its surface's rulings (the
    /// lines along the edge) at every step of its quarter circle (for a chamfer, its ends and
    /// its middle, where two other cuts' bounds may cross). A ruling ends at the cube face, or
    /// where the cut of an edge meeting it at a corner starts: seen from that corner, the
    /// reach along the edge is at most the reach toward that other edge's face (the two
    /// cylinders, or planes, meet where the two reaches are equal). These ends trace every
    /// boundary of a flat face region exactly (its arcs, diagonals and middle lines), so the
    /// hull's triangles on a cube face make up exactly what stays flat of it; the rest is the
    /// cut surfaces, with every vertex on them. The plain cube keeps two triangles a face.
    fn build_mesh(&mut self) {
        let points = self.hull_points();
        let triangles = convex_hull(&points);
        let mut inner = PartBuilder::default();
        let mut sides: [PartBuilder; 6] = Default::default();
        for triangle in triangles {
            let corners = triangle.map(|k| ([k as u32, 0, 0], points[k]));
            let on_side = SIDES.iter().position(|&(axis, positive)| {
                corners
                    .iter()
                    .all(|(_, point)| (point[axis] - sign(positive) * 0.5).abs() < 1e-9)
            });
            if let Some(side) = on_side {
                let (axis, positive) = SIDES[side];
                let mut face_normal = [0.0; 3];
                face_normal[axis] = sign(positive);
                let corners = corners.map(|(key, mut point)| {
                    point[axis] = sign(positive) * 0.5;
                    (key, point)
                });
                sides[side].triangle(corners, |_| face_normal);
            } else {
                let [a, b, c] = corners.map(|(_, point)| point);
                let centroid = [0, 1, 2].map(|axis| (a[axis] + b[axis] + c[axis]) / 3.0);
                let flat_normal = cross(sub(b, a), sub(c, a));
                let flat_normal = flat_normal.map(|c| c / length(flat_normal));
                let stop = self.ray_limit(centroid).1;
                inner.triangle(corners, |point| {
                    stop.and_then(|index| self.cut_normal(index, point))
                        .unwrap_or(flat_normal)
                });
            }
        }
        self.inner = inner.part;
        self.sides = sides.map(|builder| builder.part);
    }

    /// The points whose convex hull is the mesh (from the middle), all on the true surface.
    fn hull_points(&self) -> Vec<Vec3> {
        let mut points: Vec<Vec3> = Vec::new();
        for corner in 0..8 {
            let p = [0, 1, 2].map(|axis| if corner >> axis & 1 != 0 { 0.5 } else { -0.5 });
            if self.contains(p) {
                points.push(p);
            }
        }
        let steps = QUARTER_SEGMENTS as usize;
        // Where along the cut's cross-section: the reaches toward its two faces.
        let cross_sections: Vec<(f64, f64, bool)> = if self.slope {
            vec![(0.5, 0.0, false), (0.25, 0.25, true), (0.0, 0.5, false)]
        } else {
            (0..=steps)
                .map(|i| {
                    if i == 0 {
                        (0.5, 0.0, false)
                    } else if i == steps {
                        (0.0, 0.5, false)
                    } else {
                        let angle = FRAC_PI_2 * i as f64 / steps as f64;
                        (0.5 * angle.cos(), 0.5 * angle.sin(), false)
                    }
                })
                .collect()
        };
        for (_, edge) in self.cut_edges() {
            for &(reach_u, reach_v, only_at_kinks) in &cross_sections {
                for high in [false, true] {
                    let mut highs = [false; 3];
                    highs[edge.u] = edge.u_high;
                    highs[edge.v] = edge.v_high;
                    highs[edge.axis] = high;
                    let along_u = self.cuts & (1 << edge_at(edge.u, highs)) != 0;
                    let along_v = self.cuts & (1 << edge_at(edge.v, highs)) != 0;
                    if only_at_kinks && !(along_u && along_v) {
                        // On a chamfer the middle only bends the ruling ends' line where both
                        // other cuts bound it; elsewhere it would lie on a hull edge.
                        continue;
                    }
                    let mut limit: f64 = 0.5;
                    if along_u {
                        limit = limit.min(reach_u);
                    }
                    if along_v {
                        limit = limit.min(reach_v);
                    }
                    let mut p = [0.0; 3];
                    p[edge.u] = sign(edge.u_high) * reach_u;
                    p[edge.v] = sign(edge.v_high) * reach_v;
                    p[edge.axis] = sign(high) * limit;
                    points.push(p);
                }
            }
        }
        let mut kept: Vec<Vec3> = Vec::new();
        for p in points {
            if self.contains_within(p, 1e-9) && kept.iter().all(|q| length(sub(p, *q)) > 1e-7) {
                kept.push(p);
            }
        }
        kept
    }

    /// Works out the volume and its middle from the closed mesh: each triangle and the origin
    /// make a pyramid of volume `a · (b × c) / 6` (positive for our counter-clockwise-outward
    /// triangles), its middle a quarter of the way from the origin to the triangle's corners.
    fn measure(&mut self) {
        let mut volume = 0.0;
        let mut middle = [0.0; 3];
        for part in std::iter::once(&self.inner).chain(self.sides.iter()) {
            for triangle in part.indices.chunks_exact(3) {
                let [a, b, c] =
                    [0, 1, 2].map(|k| part.positions[triangle[k] as usize].map(f64::from));
                let pyramid = dot(a, cross(b, c)) / 6.0;
                volume += pyramid;
                for axis in 0..3 {
                    middle[axis] += (a[axis] + b[axis] + c[axis]) * pyramid / 4.0;
                }
            }
        }
        self.volume = volume as f32;
        if volume > 1e-9 {
            self.middle = to_f32(middle.map(|c| c / volume));
        }
    }

    /// Whether a point (from the middle) is in the shape.
    fn contains(&self, p: Vec3) -> bool {
        self.contains_within(p, 0.0)
    }

    /// Whether a point (from the middle) is in the shape, or at most about `tolerance` out.
    fn contains_within(&self, p: Vec3, tolerance: f64) -> bool {
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

    /// The signed distance from a point in the unit cube's frame, below 0 inside. Outside, the
    /// true distance, out from the nearest point. Inside, the way out through the nearest open
    /// side (by number, see [`SIDES`]) or the nearest cut surface, which nothing can cover; if
    /// there is neither, up through the top. For a plain cube, seed 003's `blockDistance`.
    pub fn distance(&self, point: [f32; 3], is_open: impl Fn(usize) -> bool) -> Surface {
        let p: Vec3 = std::array::from_fn(|axis| f64::from(point[axis]) - 0.5);
        if !self.contains(p) {
            let nearest = self.nearest_point(p);
            let away = sub(p, nearest);
            let distance = length(away);
            if distance > 0.0 {
                return Surface {
                    distance: distance as f32,
                    normal: to_f32(away.map(|c| c / distance)),
                };
            }
        }
        self.way_out(p, is_open)
    }

    /// Inside: the nearest open side or cut surface.
    fn way_out(&self, p: Vec3, is_open: impl Fn(usize) -> bool) -> Surface {
        let mut best: Option<(f64, Vec3)> = None;
        let mut consider = |distance: f64, normal: Vec3| {
            if best.is_none_or(|(found, _)| distance > found) {
                best = Some((distance, normal));
            }
        };
        // The sides nearest first, asking `is_open` only until one is: it looks at neighbours,
        // and a point deep in a wall would otherwise ask about all six sides.
        let mut sides: [(f64, usize); 6] = std::array::from_fn(|side| {
            let (axis, positive) = SIDES[side];
            (sign(positive) * p[axis] - 0.5, side)
        });
        sides.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
        if let Some(&(distance, side)) = sides.iter().find(|&&(_, side)| is_open(side)) {
            let (axis, positive) = SIDES[side];
            let mut normal = [0.0; 3];
            normal[axis] = sign(positive);
            consider(distance, normal);
        }
        for (_, edge) in self.cut_edges() {
            // Seen along the edge: the cut is the arc (or the segment) from (½, 0) to (0, ½).
            let (su, sv) = (sign(edge.u_high), sign(edge.v_high));
            let (a, b) = (su * p[edge.u], sv * p[edge.v]);
            let (distance, (out_a, out_b)) = cut_from_inside(a, b, self.slope);
            let mut normal = [0.0; 3];
            normal[edge.u] = su * out_a;
            normal[edge.v] = sv * out_b;
            consider(-distance, normal);
        }
        let (distance, normal) = best.unwrap_or((p[1] - 0.5, [0.0, 1.0, 0.0]));
        Surface {
            distance: distance as f32,
            normal: to_f32(normal),
        }
    }

    /// The nearest point of the shape to a point outside it (both from the middle). It lies in
    /// the point's octant: moving a coordinate toward 0 never leaves the shape. There only the
    /// cuts of the three edges at that octant's corner matter; with none or one the shape is a
    /// product of intervals and a 2D region, with closed-form nearest points. With more, the
    /// nearest point has one cut, two or all three on it: with one, it is that cut's own
    /// nearest point; with two, the nearest point of the curve where they meet (for two edges
    /// along `w1` and `w2`, the reaches along them are equal there); with three, their common
    /// point. The nearest of those candidates that lie in the shape is the answer.
    fn nearest_point(&self, p: Vec3) -> Vec3 {
        let signs = p.map(|c| if c >= 0.0 { 1.0 } else { -1.0 });
        let a: Vec3 = std::array::from_fn(|axis| signs[axis] * p[axis]);
        let active: Vec<Edge> = self
            .cut_edges()
            .map(|(_, edge)| edge)
            .filter(|edge| sign(edge.u_high) == signs[edge.u] && sign(edge.v_high) == signs[edge.v])
            .collect();
        let slope = self.slope;
        let nearest = match active.as_slice() {
            [] => a.map(|c| c.min(0.5)),
            [edge] => nearest_in_cut(a, edge, slope),
            edges => {
                let mut candidates: Vec<Vec3> = edges
                    .iter()
                    .map(|edge| nearest_in_cut(a, edge, slope))
                    .collect();
                for (k, first) in edges.iter().enumerate() {
                    for second in &edges[k + 1..] {
                        nearest_on_meeting(a, first.axis, second.axis, slope, &mut candidates);
                    }
                }
                if edges.len() == 3 {
                    let corner = if slope { 0.25 } else { 0.25 * 2f64.sqrt() };
                    candidates.push([corner; 3]);
                }
                candidates
                    .into_iter()
                    .filter(|&x| in_corner_cuts(x, edges, slope, 1e-9))
                    .min_by(|x, y| length(sub(*x, a)).total_cmp(&length(sub(*y, a))))
                    .unwrap_or_else(|| a.map(|c| c.min(0.0)))
            }
        };
        std::array::from_fn(|axis| signs[axis] * nearest[axis])
    }
}

/// In an octant's frame (coordinates toward its corner): the nearest point to `a` in the box
/// and one cut, whose region is a product of an interval and a 2D region.
fn nearest_in_cut(a: Vec3, edge: &Edge, slope: bool) -> Vec3 {
    let mut nearest = a;
    nearest[edge.axis] = a[edge.axis].min(0.5);
    let (u, v) = project_cut(a[edge.u], a[edge.v], slope);
    nearest[edge.u] = u;
    nearest[edge.v] = v;
    nearest
}

/// In an octant's frame: whether `x` lies in the box and the given cuts, within `tolerance`.
fn in_corner_cuts(x: Vec3, edges: &[Edge], slope: bool, tolerance: f64) -> bool {
    x.iter().all(|c| *c <= 0.5 + tolerance)
        && edges.iter().all(|edge| {
            let (a, b) = (x[edge.u].max(0.0), x[edge.v].max(0.0));
            if slope {
                a + b <= 0.5 + tolerance
            } else {
                a * a + b * b <= 0.25 + tolerance
            }
        })
}

/// In an octant's frame: the points of the curve where the cuts of the corner's edges along
/// `first` and `second` meet that are nearest to `a` along it (each local minimum of the
/// distance, and the curve's ends), added to `candidates`. The curve: reaches along the two
/// axes equal, `t`, and with the third axis's reach `c`, `(t, c)` on the quarter circle (or
/// the chamfer's segment) from (½, 0) to (0, ½).
fn nearest_on_meeting(
    a: Vec3,
    first: usize,
    second: usize,
    slope: bool,
    candidates: &mut Vec<Vec3>,
) {
    let third = 3 - first - second;
    let point = |s: f64| -> Vec3 {
        let (t, c) = if slope {
            (0.5 * (1.0 - s), 0.5 * s)
        } else {
            let angle = FRAC_PI_2 * s;
            (0.5 * angle.cos(), 0.5 * angle.sin())
        };
        let mut x = [0.0; 3];
        x[first] = t;
        x[second] = t;
        x[third] = c;
        x
    };
    let distance = |s: f64| length(sub(point(s), a));
    const SAMPLES: usize = 32;
    let values: Vec<f64> = (0..=SAMPLES)
        .map(|k| distance(k as f64 / SAMPLES as f64))
        .collect();
    candidates.push(point(0.0));
    candidates.push(point(1.0));
    for k in 0..=SAMPLES {
        let low_side = k == 0 || values[k] <= values[k - 1];
        let high_side = k == SAMPLES || values[k] <= values[k + 1];
        if !(low_side && high_side) {
            continue;
        }
        // Narrow the bracket around the sample's minimum by thirds.
        let mut low = k.saturating_sub(1) as f64 / SAMPLES as f64;
        let mut high = (k + 1).min(SAMPLES) as f64 / SAMPLES as f64;
        for _ in 0..60 {
            let one = low + (high - low) / 3.0;
            let two = high - (high - low) / 3.0;
            if distance(one) <= distance(two) {
                high = two;
            } else {
                low = one;
            }
        }
        candidates.push(point((low + high) / 2.0));
    }
}

/// The edge along `axis` at the ends of its two cross axes that `highs` says.
fn edge_at(axis: usize, highs: [bool; 3]) -> usize {
    (0..12)
        .find(|&index| {
            let edge = edge(index);
            edge.axis == axis && edge.u_high == highs[edge.u] && edge.v_high == highs[edge.v]
        })
        .unwrap_or(0)
}

/// How far a point must lie above a hull triangle's plane to count as outside it.
const HULL_EPSILON: f64 = 1e-9;

/// A triangle of the hull being built: its corners counter-clockwise seen from outside, its
/// plane, and the points left that lie above it.
struct HullFace {
    corners: [usize; 3],
    normal: Vec3,
    offset: f64,
    alive: bool,
    outside: Vec<usize>,
}

impl HullFace {
    fn new(points: &[Vec3], corners: [usize; 3]) -> HullFace {
        let [a, b, c] = corners.map(|k| points[k]);
        let normal = cross(sub(b, a), sub(c, a));
        let norm = length(normal).max(1e-300);
        let normal = normal.map(|x| x / norm);
        HullFace {
            corners,
            normal,
            offset: dot(normal, a),
            alive: true,
            outside: Vec::new(),
        }
    }

    fn height(&self, p: Vec3) -> f64 {
        dot(self.normal, p) - self.offset
    }
}

/// The convex hull of points spread in all three dimensions (quickhull): its triangles as
/// indices into `points`, counter-clockwise seen from outside. Points on the hull's faces or
/// edges, within [`HULL_EPSILON`], are left out, so coplanar points never make slivers.
fn convex_hull(points: &[Vec3]) -> Vec<[usize; 3]> {
    let by = |key: &dyn Fn(Vec3) -> f64| -> usize {
        (0..points.len())
            .max_by(|&i, &j| key(points[i]).total_cmp(&key(points[j])))
            .unwrap_or(0)
    };
    let first = by(&|p| -p[0]);
    let second = by(&|p| length(sub(p, points[first])));
    let line = sub(points[second], points[first]);
    let third = by(&|p| length(cross(line, sub(p, points[first]))));
    let plane = cross(line, sub(points[third], points[first]));
    let fourth = by(&|p| dot(plane, sub(p, points[first])).abs());
    let simplex = [first, second, third, fourth];
    let mut faces: Vec<HullFace> = Vec::new();
    for skip in 0..4 {
        let mut corners: Vec<usize> = (0..4).filter(|&k| k != skip).map(|k| simplex[k]).collect();
        let face = HullFace::new(points, [corners[0], corners[1], corners[2]]);
        if face.height(points[simplex[skip]]) > 0.0 {
            corners.swap(1, 2);
        }
        faces.push(HullFace::new(points, [corners[0], corners[1], corners[2]]));
    }
    // Directed edge -> the face it belongs to.
    let mut edges: HashMap<(usize, usize), usize> = HashMap::new();
    for (index, face) in faces.iter().enumerate() {
        for k in 0..3 {
            edges.insert((face.corners[k], face.corners[(k + 1) % 3]), index);
        }
    }
    let assign = |faces: &mut Vec<HullFace>, candidates: &[usize], point: usize| {
        let best = candidates
            .iter()
            .map(|&f| (f, faces[f].height(points[point])))
            .filter(|&(_, height)| height > HULL_EPSILON)
            .max_by(|x, y| x.1.total_cmp(&y.1));
        if let Some((f, _)) = best {
            faces[f].outside.push(point);
        }
    };
    let all: Vec<usize> = (0..4).collect();
    for point in 0..points.len() {
        if !simplex.contains(&point) {
            assign(&mut faces, &all, point);
        }
    }
    while let Some(start) = faces.iter().position(|f| f.alive && !f.outside.is_empty()) {
        let apex = *faces[start]
            .outside
            .iter()
            .max_by(|&&i, &&j| {
                let face = &faces[start];
                face.height(points[i]).total_cmp(&face.height(points[j]))
            })
            .unwrap_or(&faces[start].outside[0]);
        // The faces that see the apex, found from the start across edges, and the horizon.
        let mut visible = vec![start];
        let mut seen: HashMap<usize, bool> = HashMap::from([(start, true)]);
        let mut horizon: Vec<(usize, usize)> = Vec::new();
        let mut next = 0;
        while next < visible.len() {
            let face = visible[next];
            next += 1;
            let corners = faces[face].corners;
            for k in 0..3 {
                let (a, b) = (corners[k], corners[(k + 1) % 3]);
                let Some(&neighbour) = edges.get(&(b, a)) else {
                    continue;
                };
                let sees = *seen
                    .entry(neighbour)
                    .or_insert_with(|| faces[neighbour].height(points[apex]) > HULL_EPSILON);
                if sees {
                    if !visible.contains(&neighbour) {
                        visible.push(neighbour);
                    }
                } else {
                    horizon.push((a, b));
                }
            }
        }
        let mut orphans = Vec::new();
        for &face in &visible {
            faces[face].alive = false;
            orphans.append(&mut faces[face].outside);
            let corners = faces[face].corners;
            for k in 0..3 {
                edges.remove(&(corners[k], corners[(k + 1) % 3]));
            }
        }
        let mut created = Vec::new();
        for (a, b) in horizon {
            let index = faces.len();
            faces.push(HullFace::new(points, [a, b, apex]));
            for edge in [(a, b), (b, apex), (apex, a)] {
                edges.insert(edge, index);
            }
            created.push(index);
        }
        for point in orphans {
            if point != apex {
                assign(&mut faces, &created, point);
            }
        }
    }
    faces
        .iter()
        .filter(|face| face.alive)
        .map(|face| face.corners)
        .collect()
}

/// The nearest point of a cut's region seen along its edge, in coordinates toward the edge:
/// rounded, the quadrant below (0, 0) widened by the radius ½; sloped, below the line through
/// (½, 0) and (0, ½) and the two face lines.
fn project_cut(a: f64, b: f64, slope: bool) -> (f64, f64) {
    if slope {
        if a + b <= 0.5 {
            return (a.min(0.5), b.min(0.5));
        }
        let shift = (a + b - 0.5) / 2.0;
        let (on_a, on_b) = (a - shift, b - shift);
        if on_a > 0.5 {
            (0.5, b.min(0.0))
        } else if on_b > 0.5 {
            (a.min(0.0), 0.5)
        } else {
            (on_a, on_b)
        }
    } else {
        let (reach_a, reach_b) = (a.max(0.0), b.max(0.0));
        let norm = (reach_a * reach_a + reach_b * reach_b).sqrt();
        if norm <= 0.5 {
            return (a, b);
        }
        let scale = 0.5 / norm;
        (a - reach_a + reach_a * scale, b - reach_b + reach_b * scale)
    }
}

/// From a point inside, seen along a cut edge in coordinates toward it: the distance to the
/// cut's surface (the quarter arc or the chamfer from (½, 0) to (0, ½)), and the unit direction
/// there.
fn cut_from_inside(a: f64, b: f64, slope: bool) -> (f64, (f64, f64)) {
    let toward = |target_a: f64, target_b: f64| {
        let (da, db) = (target_a - a, target_b - b);
        let distance = (da * da + db * db).sqrt();
        if distance > 1e-12 {
            (distance, (da / distance, db / distance))
        } else {
            (0.0, (FRAC_1_SQRT_2, FRAC_1_SQRT_2))
        }
    };
    let nearer_end = || {
        let ends = [toward(0.5, 0.0), toward(0.0, 0.5)];
        if ends[0].0 <= ends[1].0 {
            ends[0]
        } else {
            ends[1]
        }
    };
    if slope {
        // Along the segment from (½, 0) to (0, ½).
        let along = (a - b + 0.5) / 2.0;
        if (0.0..=0.5).contains(&along) {
            (
                (0.5 - a - b).abs() * FRAC_1_SQRT_2,
                (FRAC_1_SQRT_2, FRAC_1_SQRT_2),
            )
        } else {
            nearer_end()
        }
    } else if a >= 0.0 && b >= 0.0 {
        let norm = (a * a + b * b).sqrt();
        if norm > 1e-12 {
            ((0.5 - norm).abs(), (a / norm, b / norm))
        } else {
            (0.5, (FRAC_1_SQRT_2, FRAC_1_SQRT_2))
        }
    } else {
        nearer_end()
    }
}

/// Collects one part of the mesh, sharing vertices with the same corner and normal.
#[derive(Default)]
struct PartBuilder {
    part: Part,
    vertices: HashMap<([u32; 3], [u64; 3]), u32>,
}

impl PartBuilder {
    fn triangle(&mut self, corners: [([u32; 3], Vec3); 3], normal_at: impl Fn(Vec3) -> Vec3) {
        for (key, point) in corners {
            let normal = normal_at(point);
            let part = &mut self.part;
            let index = *self
                .vertices
                .entry((key, normal.map(f64::to_bits)))
                .or_insert_with(|| {
                    part.positions.push(to_f32(point.map(|c| c + 0.5)));
                    part.normals.push(to_f32(normal));
                    (part.positions.len() - 1) as u32
                });
            part.indices.push(index);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::f64::consts::PI;

    const ALL: u16 = ALL_CUTS;
    /// How far inside the true surface the mesh may lie: the sagitta of a quarter circle's
    /// segment, and of the curves where two rounded cuts meet, is about 2.4 thousandths.
    const MESH_SAG: f64 = 0.01;

    fn pyramid() -> u16 {
        side_edges(1, true)
            .iter()
            .fold(0, |cuts, edge| cuts | (1 << edge))
    }

    /// A few of every kind: none, each single edge, pairs at a corner, three at a corner, the
    /// ball, the pyramid, and some mixed masks.
    fn sample_masks() -> Vec<u16> {
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

    fn triangles(shape: &Shape) -> Vec<[Vec3; 3]> {
        std::iter::once(&shape.inner)
            .chain(shape.sides.iter())
            .flat_map(|part| {
                part.indices
                    .chunks_exact(3)
                    .map(|t| [0, 1, 2].map(|k| part.positions[t[k] as usize].map(f64::from)))
            })
            .collect()
    }

    /// The nearest point of a triangle (Ericson, "Real-Time Collision Detection", 5.1.5).
    fn nearest_on_triangle(p: Vec3, [a, b, c]: [Vec3; 3]) -> Vec3 {
        let add = |x: Vec3, y: Vec3, s: f64| -> Vec3 { std::array::from_fn(|i| x[i] + y[i] * s) };
        let (ab, ac, ap) = (sub(b, a), sub(c, a), sub(p, a));
        let (d1, d2) = (dot(ab, ap), dot(ac, ap));
        if d1 <= 0.0 && d2 <= 0.0 {
            return a;
        }
        let bp = sub(p, b);
        let (d3, d4) = (dot(ab, bp), dot(ac, bp));
        if d3 >= 0.0 && d4 <= d3 {
            return b;
        }
        let vc = d1 * d4 - d3 * d2;
        if vc <= 0.0 && d1 >= 0.0 && d3 <= 0.0 {
            return add(a, ab, d1 / (d1 - d3));
        }
        let cp = sub(p, c);
        let (d5, d6) = (dot(ab, cp), dot(ac, cp));
        if d6 >= 0.0 && d5 <= d6 {
            return c;
        }
        let vb = d5 * d2 - d1 * d6;
        if vb <= 0.0 && d2 >= 0.0 && d6 <= 0.0 {
            return add(a, ac, d2 / (d2 - d6));
        }
        let va = d3 * d6 - d5 * d4;
        if va <= 0.0 && (d4 - d3) >= 0.0 && (d5 - d6) >= 0.0 {
            return add(b, sub(c, b), (d4 - d3) / ((d4 - d3) + (d5 - d6)));
        }
        let denominator = 1.0 / (va + vb + vc);
        add(add(a, ab, vb * denominator), ac, vc * denominator)
    }

    fn mesh_distance(mesh: &[[Vec3; 3]], p: Vec3) -> f64 {
        mesh.iter()
            .map(|&triangle| length(sub(p, nearest_on_triangle(p, triangle))))
            .fold(f64::INFINITY, f64::min)
    }

    /// A small fixed random sequence, so that failures repeat.
    struct Random(u64);

    impl Random {
        fn next(&mut self) -> f64 {
            self.0 = self
                .0
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (self.0 >> 11) as f64 / (1u64 << 53) as f64
        }

        fn point(&mut self, low: f64, high: f64) -> Vec3 {
            [0; 3].map(|_| low + (high - low) * self.next())
        }
    }

    #[test]
    fn the_cube_fills_the_cube() {
        let shape = shape_of(0, false);
        assert!((shape.volume - 1.0).abs() < 1e-6);
        assert!(shape.middle.iter().all(|c| (c - 0.5).abs() < 1e-6));
        assert!(shape.inner.indices.is_empty());
        assert!(shape.sides.iter().all(|side| side.indices.len() == 6));
    }

    #[test]
    fn volumes_match_their_formulas() {
        let ball = 8.0 * (2.0 - 2f64.sqrt()) * 0.125;
        let rounded_edge = 1.0 - (0.25 - PI * 0.25 / 4.0);
        let cases = [
            (ALL, false, ball, 0.01),
            (1, false, rounded_edge, 0.005),
            (1 << 7, true, 1.0 - 0.125, 0.005),
            (pyramid(), true, 0.5 + 0.5 / 3.0, 0.005),
        ];
        for (cuts, slope, expected, tolerance) in cases {
            let volume = f64::from(shape_of(cuts, slope).volume);
            assert!(
                ((volume - expected) / expected).abs() < tolerance,
                "cuts {cuts:#x} slope {slope}: {volume} against {expected}"
            );
        }
        // The pyramid's weight sits low: below the middle, centred across.
        let middle = shape_of(pyramid(), true).middle;
        assert!(
            middle[1] < 0.45 && (middle[0] - 0.5).abs() < 1e-5 && (middle[2] - 0.5).abs() < 1e-5
        );
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

    #[test]
    fn meshes_are_closed_and_face_outward() {
        for cuts in sample_masks() {
            for slope in [false, true] {
                let shape = shape_of(cuts, slope);
                let mesh = triangles(shape);
                let mut edges: HashMap<([u64; 3], [u64; 3]), i32> = HashMap::new();
                for triangle in &mesh {
                    for k in 0..3 {
                        let from = triangle[k].map(f64::to_bits);
                        let to = triangle[(k + 1) % 3].map(f64::to_bits);
                        *edges.entry((from, to)).or_default() += 1;
                    }
                }
                for (&(from, to), &count) in &edges {
                    assert_eq!(count, 1, "cuts {cuts:#x}: a directed edge used twice");
                    assert_eq!(
                        edges.get(&(to, from)),
                        Some(&1),
                        "cuts {cuts:#x}: an open edge"
                    );
                }
                let middle = shape.middle.map(f64::from);
                for [a, b, c] in &mesh {
                    let normal = cross(sub(*b, *a), sub(*c, *a));
                    assert!(length(normal) > 0.0);
                    let normal = normal.map(|x| x / length(normal));
                    assert!(
                        dot(normal, sub(*a, middle)) > 0.0,
                        "cuts {cuts:#x}: a triangle faces in"
                    );
                }
                // Convex: no vertex lies outside any triangle's plane.
                for [a, b, c] in &mesh {
                    let normal = cross(sub(*b, *a), sub(*c, *a));
                    let normal = normal.map(|x| x / length(normal));
                    for triangle in &mesh {
                        for vertex in triangle {
                            assert!(
                                dot(normal, sub(*vertex, *a)) < 1e-5,
                                "cuts {cuts:#x} slope {slope}: not convex at {vertex:?}"
                            );
                        }
                    }
                }
                for (side, part) in shape.sides.iter().enumerate() {
                    let (axis, positive) = SIDES[side];
                    let plane = if positive { 1.0 } else { 0.0 };
                    assert!(part.positions.iter().all(|p| p[axis] == plane));
                }
            }
        }
    }

    /// Every one of the 8192 shapes, rounded and sloped: closed, convex and outward (about 2 s in
    /// the test profile).
    #[test]
    fn every_shape_is_closed_and_convex() {
        for slope in [false, true] {
            for cuts in 0..=ALL {
                let shape = Shape::new(cuts, slope);
                let mesh = triangles(&shape);
                let mut edges: HashMap<([u32; 3], [u32; 3]), i32> = HashMap::new();
                for triangle in &mesh {
                    for k in 0..3 {
                        let from = triangle[k].map(|c| (c as f32).to_bits());
                        let to = triangle[(k + 1) % 3].map(|c| (c as f32).to_bits());
                        *edges.entry((from, to)).or_default() += 1;
                    }
                }
                for (&(from, to), &count) in &edges {
                    assert_eq!(count, 1, "cuts {cuts:#x} slope {slope}");
                    assert_eq!(
                        edges.get(&(to, from)),
                        Some(&1),
                        "cuts {cuts:#x} slope {slope}"
                    );
                }
                let vertices: Vec<Vec3> = mesh.iter().flatten().copied().collect();
                for [a, b, c] in &mesh {
                    let normal = cross(sub(*b, *a), sub(*c, *a));
                    assert!(
                        length(normal) > 1e-9,
                        "cuts {cuts:#x} slope {slope}: a sliver"
                    );
                    let normal = normal.map(|x| x / length(normal));
                    assert!(dot(normal, sub(*a, [0.5; 3])) > 0.0);
                    assert!(vertices.iter().all(|v| dot(normal, sub(*v, *a)) < 1e-5));
                }
            }
        }
    }

    #[test]
    fn vertices_lie_on_the_surface_and_flat_parts_fill_their_regions() {
        for cuts in sample_masks() {
            for slope in [false, true] {
                let shape = shape_of(cuts, slope);
                for part in std::iter::once(&shape.inner).chain(shape.sides.iter()) {
                    for position in &part.positions {
                        let p = position.map(|c| f64::from(c) - 0.5);
                        let out = p.map(|c| c * (1.0 + 1e-4));
                        let within = p.map(|c| c * (1.0 - 1e-4));
                        assert!(
                            shape.contains_within(p, 1e-6) && !shape.contains(out),
                            "cuts {cuts:#x} slope {slope}: {p:?} is off the surface"
                        );
                        assert!(shape.contains(within));
                    }
                }
            }
        }
        let area = |part: &Part| -> f64 {
            part.indices
                .chunks_exact(3)
                .map(|t| {
                    let [a, b, c] = [0, 1, 2].map(|k| part.positions[t[k] as usize].map(f64::from));
                    length(cross(sub(b, a), sub(c, a))) / 2.0
                })
                .sum()
        };
        // The edge along x at y = 0, z = 0: on the faces across it, the arc bounds the flat
        // part; on the two faces along it, half the face stays flat.
        for slope in [false, true] {
            let shape = shape_of(1, slope);
            let corner = if slope { 0.125 } else { 0.25 - PI / 16.0 };
            for (side, expected) in [(0, 1.0 - corner), (1, 1.0 - corner), (2, 0.5), (4, 0.5)] {
                let found = area(&shape.sides[side]);
                assert!(
                    (found - expected).abs() < 2e-3,
                    "side {side}: {found} against {expected}"
                );
            }
            assert_eq!(area(&shape.sides[3]), 1.0);
        }
        // The ball keeps nothing flat.
        assert!(shape_of(ALL, false)
            .sides
            .iter()
            .all(|side| side.indices.is_empty()));
    }

    #[test]
    fn distance_outside_is_the_distance_to_the_mesh() {
        let mut random = Random(7);
        for cuts in sample_masks() {
            for slope in [false, true] {
                let shape = shape_of(cuts, slope);
                let mesh = triangles(shape);
                let mut tested = 0;
                while tested < 40 {
                    let p = random.point(-0.6, 1.6);
                    let surface = shape.distance(to_f32(p), |_| true);
                    if surface.distance <= 0.0 {
                        continue;
                    }
                    tested += 1;
                    let brute = mesh_distance(&mesh, p);
                    // The mesh lies inside the shape, so it is never nearer; it lies within
                    // the tessellation's sagitta of the true surface.
                    let error = brute - f64::from(surface.distance);
                    assert!(
                        error > -1e-3 && error < MESH_SAG,
                        "cuts {cuts:#x} slope {slope} at {p:?}: {} against {brute}",
                        surface.distance
                    );
                    // The normal leads back from the nearest point.
                    let back: Vec3 = std::array::from_fn(|axis| {
                        p[axis] - f64::from(surface.normal[axis]) * f64::from(surface.distance)
                    });
                    assert!(mesh_distance(&mesh, back) < MESH_SAG);
                }
            }
        }
    }

    /// The nearest point by Dykstra's alternating projections onto the box and each cut of a
    /// corner (in the octant's frame): slow, but plainly right, to check the closed form.
    fn dykstra_nearest(a: Vec3, edges: &[Edge], slope: bool) -> Vec3 {
        let mut x = a;
        let mut corrections = vec![[0.0; 3]; edges.len() + 1];
        for _ in 0..20_000 {
            let before = x;
            let corrections_before = corrections.clone();
            for (set, correction) in corrections.iter_mut().enumerate() {
                let moved: Vec3 = std::array::from_fn(|axis| x[axis] + correction[axis]);
                let mut projected = moved;
                if set == 0 {
                    projected = moved.map(|c| c.min(0.5));
                } else {
                    let edge = &edges[set - 1];
                    let (u, v) = project_cut(moved[edge.u], moved[edge.v], slope);
                    projected[edge.u] = u;
                    projected[edge.v] = v;
                }
                *correction = sub(moved, projected);
                x = projected;
            }
            let settled = corrections
                .iter()
                .zip(&corrections_before)
                .all(|(now, then)| length(sub(*now, *then)) < 1e-13);
            if settled && length(sub(x, before)) < 1e-13 {
                break;
            }
        }
        x
    }

    #[test]
    fn nearest_points_at_cut_corners_match_dykstra() {
        let mut random = Random(5);
        // The corner at x = y = z = 1: edges 3 (along x), 7 (along y), 11 (along z).
        let masks = [
            1 << 3 | 1 << 7,
            1 << 3 | 1 << 11,
            1 << 7 | 1 << 11,
            1 << 3 | 1 << 7 | 1 << 11,
        ];
        for cuts in masks {
            for slope in [false, true] {
                let shape = shape_of(cuts, slope);
                let edges: Vec<Edge> = shape.cut_edges().map(|(_, edge)| edge).collect();
                let mut tested = 0;
                while tested < 300 {
                    // From the middle, in the corner's octant.
                    let p = random.point(0.0, 1.0);
                    if shape.contains(p) {
                        continue;
                    }
                    tested += 1;
                    let found = shape.nearest_point(p);
                    let expected = dykstra_nearest(p, &edges, slope);
                    // In the shape, and no farther than Dykstra's point (which, where the
                    // cuts meet the faces tangentially, may still creep along the surface).
                    let error = length(sub(p, found)) - length(sub(p, expected));
                    assert!(
                        in_corner_cuts(found, &edges, slope, 1e-9) && error.abs() < 1e-6,
                        "cuts {cuts:#x} slope {slope} at {p:?}: {found:?} against {expected:?}"
                    );
                }
            }
        }
    }

    #[test]
    fn the_plain_cube_is_seed_003s_box() {
        let mut random = Random(3);
        let shape = shape_of(0, false);
        for _ in 0..500 {
            let p = random.point(-2.0, 3.0);
            let outside: Vec3 = p.map(|c| (c - 0.5).abs() - 0.5).map(|c| c.max(0.0));
            let expected = length(outside);
            if expected > 0.0 {
                let surface = shape.distance(to_f32(p), |_| true);
                assert!((f64::from(surface.distance) - expected).abs() < 1e-5);
            }
        }
    }

    #[test]
    fn inside_the_way_out_is_through_open_sides() {
        let cube = shape_of(0, false);
        let covered = cube.distance([0.2, 0.3, 0.6], |_| false);
        assert_eq!(covered.normal, [0.0, 1.0, 0.0]);
        assert!((covered.distance + 0.7).abs() < 1e-6);
        let west = cube.distance([0.8, 0.3, 0.6], |side| side == 0);
        assert_eq!(west.normal, [-1.0, 0.0, 0.0]);
        assert!((west.distance + 0.8).abs() < 1e-6);
        let nearest = cube.distance([0.8, 0.3, 0.6], |_| true);
        assert_eq!(nearest.normal, [1.0, 0.0, 0.0]);
        // A rounded edge is always open: near the ball's surface, out through it.
        let ball = shape_of(ALL, false).distance([0.5, 0.95, 0.5], |_| false);
        assert!(ball.distance < 0.0 && ball.distance > -0.06);
        assert!(ball.normal[1] > 0.99);
    }

    #[test]
    fn outside_blocks_the_nearest_is_the_distance_to_their_union() {
        let blocks = [
            Block::new(0, 0, 0, 2, 0, 0, false),
            Block::new(2, 0, 0, 1, 1, ALL, false),
            Block::new(0, 2, 0, 2, 4, pyramid(), true),
            Block::new(-4, 0, 1, 4, 2, 0x0F0, false),
        ]
        .map(|block| block.expect("a valid block"));
        let meshes: Vec<Vec<[Vec3; 3]>> = blocks
            .iter()
            .map(|block| {
                let meters = f64::from(block.size) * f64::from(CELL);
                let low = block.low().map(|c| f64::from(c) * f64::from(CELL));
                triangles(shape_of(block.cuts, block.slope))
                    .into_iter()
                    .map(|t| t.map(|v| std::array::from_fn(|axis| low[axis] + v[axis] * meters)))
                    .collect()
            })
            .collect();
        let mut random = Random(11);
        let mut tested = 0;
        while tested < 200 {
            let p = random.point(-2.5, 2.5);
            let surfaces: Vec<Surface> = blocks
                .iter()
                .map(|block| block_distance(block, to_f32(p), |_| true))
                .collect();
            if surfaces.iter().any(|surface| surface.distance <= 0.0) {
                continue;
            }
            tested += 1;
            let nearest = surfaces
                .iter()
                .map(|s| f64::from(s.distance))
                .fold(f64::INFINITY, f64::min);
            let union = meshes
                .iter()
                .map(|mesh| mesh_distance(mesh, p))
                .fold(f64::INFINITY, f64::min);
            // Blocks up to 2 m: the mesh sags up to twice as far in meters.
            assert!(
                nearest <= union + 1e-3 && union - nearest < MESH_SAG * 2.0,
                "at {p:?}: {nearest} against {union}"
            );
        }
    }
}
