//! Building a block's shape (see the parent module for the geometry): the mesh, as the convex
//! hull of points on the true surface split into the cut surfaces (`inner`) and the six cube
//! sides, and from the closed mesh the volume and its middle.

use std::collections::HashMap;
use std::f64::consts::{FRAC_1_SQRT_2, FRAC_PI_2};

use super::{cross, dot, edge, length, reach, sign, sub, to_f32, DVec3, MeshPart, Shape, SIDES};

/// Segments of each rounded cut's quarter circle in the mesh: 8, 11.25° each, leave at most 2.4
/// thousandths of the side between the mesh and the true surface.
pub const QUARTER_SEGMENTS: u32 = 8;

impl Shape {
    /// Builds the shape of a cut mask and slope: its mesh, then its volume and middle.
    pub(super) fn new(cuts: u16, slope: bool) -> Shape {
        let mut shape = Shape {
            cuts,
            slope,
            inner: MeshPart::default(),
            sides: Default::default(),
            volume: 0.0,
            middle: [0.5; 3],
        };
        shape.build_mesh();
        shape.measure();
        shape
    }

    /// How far along the ray `middle + t · direction` the shape reaches, at most 1, and the cut
    /// that stops it there, if one does before `t = 1`.
    fn ray_limit(&self, direction: DVec3) -> (f64, Option<usize>) {
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
    fn cut_normal(&self, index: usize, p: DVec3) -> Option<DVec3> {
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
        let mut inner = MeshPartBuilder::default();
        let mut sides: [MeshPartBuilder; 6] = Default::default();
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
    fn hull_points(&self) -> Vec<DVec3> {
        let mut points: Vec<DVec3> = Vec::new();
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
        let mut kept: Vec<DVec3> = Vec::new();
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
    normal: DVec3,
    offset: f64,
    alive: bool,
    outside: Vec<usize>,
}

impl HullFace {
    fn new(points: &[DVec3], corners: [usize; 3]) -> HullFace {
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

    fn height(&self, p: DVec3) -> f64 {
        dot(self.normal, p) - self.offset
    }
}

/// The convex hull of points spread in all three dimensions (quickhull): its triangles as
/// indices into `points`, counter-clockwise seen from outside. Points on the hull's faces or
/// edges, within [`HULL_EPSILON`], are left out, so coplanar points never make slivers.
fn convex_hull(points: &[DVec3]) -> Vec<[usize; 3]> {
    let by = |key: &dyn Fn(DVec3) -> f64| -> usize {
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

/// Collects one part of the mesh, sharing vertices with the same corner and normal.
#[derive(Default)]
struct MeshPartBuilder {
    part: MeshPart,
    vertices: HashMap<([u32; 3], [u64; 3]), u32>,
}

impl MeshPartBuilder {
    fn triangle(&mut self, corners: [([u32; 3], DVec3); 3], normal_at: impl Fn(DVec3) -> DVec3) {
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
    use super::super::shape_of;
    use super::super::tests::{pyramid, sample_masks, triangles, ALL};
    use super::*;
    use std::f64::consts::PI;

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
                let vertices: Vec<DVec3> = mesh.iter().flatten().copied().collect();
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
        let area = |part: &MeshPart| -> f64 {
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
}
