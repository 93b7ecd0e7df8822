//! A block's signed distance (see the parent module for the geometry): outside, the true
//! distance to the nearest point of the shape (closed form, up to three cuts at a corner);
//! inside, the way out through the nearest open side or cut surface.

use std::f64::consts::{FRAC_1_SQRT_2, FRAC_PI_2};

use super::{length, shape_of, sign, sub, to_f32, DVec3, Edge, Shape, Surface, SIDES};
use crate::blocks::store::{Block, CELL};

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

impl Shape {
    /// The signed distance from a point in the unit cube's frame, below 0 inside. Outside, the
    /// true distance, out from the nearest point. Inside, the way out through the nearest open
    /// side (by number, see [`SIDES`]) or the nearest cut surface, which nothing can cover; if
    /// there is neither, up through the top. For a plain cube with every side open, the box's
    /// signed distance.
    pub fn distance(&self, point: [f32; 3], is_open: impl Fn(usize) -> bool) -> Surface {
        let p: DVec3 = std::array::from_fn(|axis| f64::from(point[axis]) - 0.5);
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
    fn way_out(&self, p: DVec3, is_open: impl Fn(usize) -> bool) -> Surface {
        let mut best: Option<(f64, DVec3)> = None;
        let mut consider = |distance: f64, normal: DVec3| {
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
    fn nearest_point(&self, p: DVec3) -> DVec3 {
        let signs = p.map(|c| if c >= 0.0 { 1.0 } else { -1.0 });
        let a: DVec3 = std::array::from_fn(|axis| signs[axis] * p[axis]);
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
                let mut candidates: Vec<DVec3> = edges
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
fn nearest_in_cut(a: DVec3, edge: &Edge, slope: bool) -> DVec3 {
    let mut nearest = a;
    nearest[edge.axis] = a[edge.axis].min(0.5);
    let (u, v) = project_cut(a[edge.u], a[edge.v], slope);
    nearest[edge.u] = u;
    nearest[edge.v] = v;
    nearest
}

/// In an octant's frame: whether `x` lies in the box and the given cuts, within `tolerance`.
fn in_corner_cuts(x: DVec3, edges: &[Edge], slope: bool, tolerance: f64) -> bool {
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
    a: DVec3,
    first: usize,
    second: usize,
    slope: bool,
    candidates: &mut Vec<DVec3>,
) {
    let third = 3 - first - second;
    let point = |s: f64| -> DVec3 {
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

#[cfg(test)]
mod tests {
    use super::super::dot;
    use super::super::tests::{pyramid, sample_masks, triangles, ALL};
    use super::*;

    /// How far inside the true surface the mesh may lie: the sagitta of a quarter circle's
    /// segment, and of the curves where two rounded cuts meet, is about 2.4 thousandths.
    const MESH_SAG: f64 = 0.01;

    /// The nearest point of a triangle (Ericson, "Real-Time Collision Detection", 5.1.5).
    fn nearest_on_triangle(p: DVec3, [a, b, c]: [DVec3; 3]) -> DVec3 {
        let add =
            |x: DVec3, y: DVec3, s: f64| -> DVec3 { std::array::from_fn(|i| x[i] + y[i] * s) };
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

    fn mesh_distance(mesh: &[[DVec3; 3]], p: DVec3) -> f64 {
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

        fn point(&mut self, low: f64, high: f64) -> DVec3 {
            [0; 3].map(|_| low + (high - low) * self.next())
        }
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
                    let back: DVec3 = std::array::from_fn(|axis| {
                        p[axis] - f64::from(surface.normal[axis]) * f64::from(surface.distance)
                    });
                    assert!(mesh_distance(&mesh, back) < MESH_SAG);
                }
            }
        }
    }

    /// The nearest point by Dykstra's alternating projections onto the box and each cut of a
    /// corner (in the octant's frame): slow, but plainly right, to check the closed form.
    fn dykstra_nearest(a: DVec3, edges: &[Edge], slope: bool) -> DVec3 {
        let mut x = a;
        let mut corrections = vec![[0.0; 3]; edges.len() + 1];
        for _ in 0..20_000 {
            let before = x;
            let corrections_before = corrections.clone();
            for (set, correction) in corrections.iter_mut().enumerate() {
                let moved: DVec3 = std::array::from_fn(|axis| x[axis] + correction[axis]);
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
    fn outside_the_plain_cube_is_the_box_distance() {
        let mut random = Random(3);
        let shape = shape_of(0, false);
        for _ in 0..500 {
            let p = random.point(-2.0, 3.0);
            let outside: DVec3 = p.map(|c| (c - 0.5).abs() - 0.5).map(|c| c.max(0.0));
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
        let meshes: Vec<Vec<[DVec3; 3]>> = blocks
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
