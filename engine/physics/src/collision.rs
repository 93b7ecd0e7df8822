//! The one collision question, a signed distance query: how far is the nearest surface, and which
//! way is out? Its answer is a [`Surface`] (distance and outward normal; not the window's
//! `gpu::WindowSurface`). The player, the block tool and the physics core ask it of whatever is
//! solid through [`Solid`] (`Sync`, so workers can ask in parallel); rigid bodies ask it of their
//! own shape through [`crate::BodyShape`]. See `docs/blocks.md` for the rule the game
//! answers it with.

/// The nearest surface to a point.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Surface {
    /// Meters from the point to the surface, below 0 inside a solid.
    pub distance: f32,
    /// Unit length, pointing out of the solid.
    pub normal: [f32; 3],
}

/// What lies around the point a body asks from: which of the eight octants about the point (in
/// the body's own axes) the body fills, and those axes seen from the frame the question is
/// asked in. A solid with flat faces uses it to tell a face the body really meets from one the
/// point only lines up with: a block falling past a flush neighbour has points on the
/// neighbour's side plane, right above its top edge, yet none of the falling block lies over
/// that top face (docs/physics.md, "Which face a point meets").
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Around {
    /// Bit `x | y << 1 | z << 2` is set where the body fills the octant that lies on the
    /// positive side of the point along each axis whose digit is 1 (the negative side where it
    /// is 0). 0 when unknown: the question is then answered as [`Solid::nearest`] answers it.
    pub octants: u8,
    /// The body's own axes in the question's frame: `turn · v` turns a direction `v` of the
    /// body into that frame.
    pub turn: [[f32; 3]; 3],
    /// How far the point moves against the solid in this step, in the question's frame (0
    /// when unknown): of two surfaces, the one the point would come nearer to by the step's
    /// end is its contact ([`Surface::sooner`]).
    pub motion: [f32; 3],
}

impl Around {
    /// Nothing known of what lies around: the plain question.
    pub const UNKNOWN: Around = Around {
        octants: 0,
        turn: [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]],
        motion: [0.0; 3],
    };

    /// The middles of the filled octants' cells of side `2 · half` about `point`, in the
    /// question's frame, each passed to `visit` until it returns true; whether one did.
    pub fn any_cell(
        &self,
        point: [f32; 3],
        half: f32,
        mut visit: impl FnMut([f32; 3]) -> bool,
    ) -> bool {
        (0..8u8)
            .filter(|octant| self.octants >> octant & 1 == 1)
            .any(|octant| {
                let signs: [f32; 3] =
                    std::array::from_fn(|axis| if octant >> axis & 1 == 1 { half } else { -half });
                let middle = std::array::from_fn(|row| {
                    point[row]
                        + self.turn[row][0] * signs[0]
                        + self.turn[row][1] * signs[1]
                        + self.turn[row][2] * signs[2]
                });
                visit(middle)
            })
    }
}

impl Surface {
    /// Whether a point moving by `motion` this step comes nearer to this surface than to
    /// `other` by the step's end (each surface taken as its plane: `distance + normal ·
    /// motion`). A point has one contact per solid: where two surfaces are near (a wall beside
    /// the floor a block lands on), the one it is about to reach is the one that must stop it,
    /// not the side it only slides along. With no motion, the nearer.
    pub fn sooner(&self, other: &Surface, motion: [f32; 3]) -> bool {
        let end = |surface: &Surface| {
            surface.distance
                + surface.normal[0] * motion[0]
                + surface.normal[1] * motion[1]
                + surface.normal[2] * motion[2]
        };
        end(self) < end(other)
    }
}

/// Something solid that answers the collision question.
pub trait Solid: Sync {
    /// The nearest surface to `point`, if one is within `reach` meters (closer than `reach`,
    /// inside counting as closer).
    fn nearest(&self, point: [f32; 3], reach: f32) -> Option<Surface>;

    /// The nearest surface to each of many points, each with its own reach, into `out` (as
    /// long as `queries`): the same answers as [`Solid::nearest`] one by one. The points of one
    /// body lie close together, and a solid that can read what they share once (the terrain's
    /// samples) overrides this to do so.
    fn nearest_many(&self, queries: &[([f32; 3], f32)], out: &mut [Option<Surface>]) {
        for (answer, &(point, reach)) in out.iter_mut().zip(queries) {
            *answer = self.nearest(point, reach);
        }
    }

    /// [`Solid::nearest_many`], and into `clear` (as long as `queries`) how clear of every
    /// surface each point surely is: a clearance `c` promises that a question from any point
    /// within `c − r` of this one, with any reach `r`, finds nothing. It is what lets a body
    /// lying still skip its points from step to step (`physics::clearance`). A true distance
    /// is its own clearance (the distance found, or the reach when nothing was found), and this
    /// default gives that for a solid whose [`Solid::true_distances`] says so; −∞ (nothing
    /// promised) otherwise. A clearance may stop short of the reach, but the more of the reach
    /// it covers the better: a question with a reach past a body's radius, from its middle, is
    /// how the physics asks whether all of the body is clear of a world whose distances are not
    /// true distances.
    fn nearest_many_clear(
        &self,
        queries: &[([f32; 3], f32)],
        out: &mut [Option<Surface>],
        clear: &mut [f32],
    ) {
        self.nearest_many(queries, out);
        if self.true_distances() {
            true_clearances(queries, out, clear);
        } else {
            clear.fill(f32::NEG_INFINITY);
        }
    }

    /// [`Solid::nearest_many_clear`] for the points of a body, with what lies around each
    /// ([`Around`]: `around[i]` for `queries[i]`, in the world's frame). A solid with flat
    /// faces answers with the face each point meets, and a solid of several surfaces with the
    /// one each point is about to reach ([`Surface::sooner`]); the default ignores what lies
    /// around, right for one smooth solid. The clearances stay those of the true distances.
    fn nearest_many_around(
        &self,
        queries: &[([f32; 3], f32)],
        around: &[Around],
        out: &mut [Option<Surface>],
        clear: &mut [f32],
    ) {
        let _ = around;
        self.nearest_many_clear(queries, out, clear);
    }

    /// Whether its distances are true distances: no surface nearer than the distance it gives,
    /// and the distance changing no faster than the point moves (an exact signed distance).
    fn true_distances(&self) -> bool {
        false
    }

    /// A name for everything the solid's answers depend on, now: any two solids that give the
    /// same stamp answer every question the same. A solid that changes (the ground dug, a
    /// block added) gives a stamp no solid has given before. `None` (the default) promises
    /// nothing.
    ///
    /// The physics core keeps the clearances of [`Solid::nearest_many_clear`] from step to step
    /// while the stamp stays the same, and asks only about the points that may have come near
    /// since; without a stamp it asks about every point near the world every step.
    fn stamp(&self) -> Option<u128> {
        None
    }
}

/// How near the line of a face's edge a point still lies on it, in meters: a body whose side is
/// this near a neighbour's is flush with it. As wide as the physics' touching margin, so that
/// any two pieces the physics sees touching side by side slide past each other.
pub const FLUSH: f32 = 0.02;

/// What a box's faces answer a point asked from a body ([`box_face`]).
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum FaceAnswer {
    /// The face the point meets: the distance to its plane (below 0 inside) and its normal.
    Face(Surface),
    /// The point only lines up with faces its body does not meet (it lies on the line of a
    /// flush neighbour's side, its own body beside and not over the neighbour's face): no
    /// surface.
    Beside,
    /// Beyond the box along two or more axes (a real edge or corner), deep inside it, or
    /// nothing known of what lies around the point: the true distance answers.
    Distance,
}

/// The face of the box `low..high` (meters, the question's frame) that a body's point meets,
/// given what the body fills around it: the rule that keeps a block sliding past a flush
/// neighbour, or into a slot its own width, from catching on the neighbour's top edge.
///
/// ```text
///        ┌───┐            ┌───┐ a point of the falling block, on the line of A's side,
///        │ B │            │ B │ right above A's edge: B lies beside A's top face, not over
///        └───●            ●───┘ it, so the top face is not met (and the side face's extent
///   ┌───┐ ↓            ┌───┐    ends below the point): no surface, B slides on down.
///   │ A │              │ A │    A block stacked on A has its cells over the top face: met.
///   └───┘              └───┘
/// ```
///
/// Each axis is *beyond* (the point lies more than [`FLUSH`] outside the box's slab), *flush*
/// (within `FLUSH` of a side's plane) or *inside*. The faces a point may meet are the one it is
/// beyond (when it is beyond along exactly one axis), else each it is flush with (a side
/// `is_open` says is covered by a neighbour is no way out, unless the point is outside it). A
/// face is met where the point lies within its extent; where the point lies on the line of the
/// face's edges (flush along another axis), only if a cell of the body at the point (`half`
/// meters along each octant's diagonal from it, `Around::turn` turning it) lies over the face:
/// outside its plane and within its extent across. Of the faces met, the one the point is
/// farthest out of (the separating face, as a separating-axis test takes it); none met is
/// [`FaceAnswer::Beside`]. Beyond along two or more axes the point faces a real edge or
/// corner, and the true distance (whose normal points from the edge) is the answer.
pub fn box_face(
    (low, high): ([f32; 3], [f32; 3]),
    point: [f32; 3],
    around: &Around,
    half: f32,
    is_open: impl Fn(usize) -> bool,
) -> FaceAnswer {
    if around.octants == 0 {
        return FaceAnswer::Distance;
    }
    let mut outside = [0.0f32; 3];
    let mut positive = [false; 3];
    for axis in 0..3 {
        let (below, above) = (low[axis] - point[axis], point[axis] - high[axis]);
        positive[axis] = above >= below;
        outside[axis] = below.max(above);
    }
    let flush: [bool; 3] = std::array::from_fn(|axis| outside[axis].abs() <= FLUSH);
    let beyond = outside.iter().filter(|&&o| o > FLUSH).count();
    if beyond >= 2 || (beyond == 0 && !flush.contains(&true)) {
        return FaceAnswer::Distance;
    }
    let mut met: Option<(f32, usize)> = None;
    for axis in 0..3 {
        let candidate = if beyond == 1 {
            outside[axis] > FLUSH
        } else {
            flush[axis]
        };
        let side = axis * 2 + usize::from(positive[axis]);
        if !candidate || (outside[axis] <= 0.0 && !is_open(side)) {
            continue;
        }
        let edges: [bool; 3] = std::array::from_fn(|across| across != axis && flush[across]);
        let over = |middle: [f32; 3]| {
            let out = if positive[axis] {
                middle[axis] > point[axis]
            } else {
                middle[axis] < point[axis]
            };
            out && (0..3).all(|across| {
                !edges[across] || (middle[across] >= low[across] && middle[across] <= high[across])
            })
        };
        let meets = !edges.contains(&true) || around.any_cell(point, half, over);
        if meets && met.is_none_or(|(farthest, _)| outside[axis] > farthest) {
            met = Some((outside[axis], side));
        }
    }
    match met {
        Some((distance, side)) => {
            let mut normal = [0.0; 3];
            normal[side / 2] = if side % 2 == 1 { 1.0 } else { -1.0 };
            FaceAnswer::Face(Surface { distance, normal })
        }
        None => FaceAnswer::Beside,
    }
}

/// A lower bound on the distance from `point` to the box `low..high` (0 or less inside), for
/// clearances: a [`box_face`] answer is never nearer than this less twice [`FLUSH`].
pub fn box_clearance((low, high): ([f32; 3], [f32; 3]), point: [f32; 3]) -> f32 {
    let mut squared = 0.0f32;
    let mut deepest = f32::NEG_INFINITY;
    for axis in 0..3 {
        let out = (low[axis] - point[axis]).max(point[axis] - high[axis]);
        deepest = deepest.max(out);
        squared += out.max(0.0) * out.max(0.0);
    }
    if deepest > 0.0 {
        squared.sqrt()
    } else {
        deepest
    }
}

/// The clearances of a solid whose distances are true distances: the distance found, or the
/// whole reach when nothing was found.
fn true_clearances(queries: &[([f32; 3], f32)], out: &[Option<Surface>], clear: &mut [f32]) {
    for ((clear, answer), &(_, reach)) in clear.iter_mut().zip(out).zip(queries) {
        *clear = answer.map_or(reach, |surface| surface.distance);
    }
}

/// A stamp no caller of this function has had before in this process: for solids that name
/// each state they are in ([`Solid::stamp`]) by taking a fresh one whenever they change.
pub fn fresh_stamp() -> u64 {
    use std::sync::atomic::{AtomicU64, Ordering};
    // From 1: 0 is left for the empty states a `Default` makes.
    static NEXT: AtomicU64 = AtomicU64::new(1);
    NEXT.fetch_add(1, Ordering::Relaxed)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The unit cube `0..1` on every axis: the neighbour a body's point is asked against.
    const CUBE: ([f32; 3], [f32; 3]) = ([0.0; 3], [1.0; 3]);

    /// What a body fills around a point: the octants whose signs (per axis, `true` for the
    /// positive side) `filled` accepts, in the body's own axes turned by `turn`.
    fn around(filled: impl Fn([bool; 3]) -> bool, turn: [[f32; 3]; 3]) -> Around {
        let octants = (0..8u8).fold(0, |mask, octant| {
            let signs = [0, 1, 2].map(|axis| octant >> axis & 1 == 1);
            mask | u8::from(filled(signs)) << octant
        });
        Around {
            octants,
            turn,
            motion: [0.0; 3],
        }
    }

    const STRAIGHT: [[f32; 3]; 3] = Around::UNKNOWN.turn;

    fn face(point: [f32; 3], around: &Around) -> FaceAnswer {
        box_face(CUBE, point, around, 0.25, |_| true)
    }

    /// Asserts the answer is the top face at `distance` (to a hundredth of a millimeter).
    fn assert_up(answer: FaceAnswer, distance: f32) {
        match answer {
            FaceAnswer::Face(surface) => assert!(
                surface.normal == [0.0, 1.0, 0.0] && (surface.distance - distance).abs() < 1e-5,
                "{surface:?}, not the top at {distance}"
            ),
            other => panic!("{other:?}, not the top at {distance}"),
        }
    }

    #[test]
    fn a_block_falling_past_a_flush_neighbour_meets_none_of_its_faces() {
        // The falling block lies at x > 1, above its bottom-left edge: its points on the line
        // of the cube's side, above the cube's top edge, and level with it.
        let beside = around(|[x, y, _]| x && y, STRAIGHT);
        for height in [1.3, 1.01, 1.0, 0.995] {
            assert_eq!(
                face([1.0, height, 0.5], &beside),
                FaceAnswer::Beside,
                "{height}"
            );
        }
        // Lower, beside the cube's side: that side, at distance 0 (no push, no catch).
        let side = face([1.0, 0.6, 0.5], &beside);
        assert_eq!(
            side,
            FaceAnswer::Face(Surface {
                distance: 0.0,
                normal: [1.0, 0.0, 0.0]
            })
        );
        // A hair apart (within FLUSH) changes nothing.
        assert_eq!(face([1.004, 1.2, 0.5], &beside), FaceAnswer::Beside);
    }

    #[test]
    fn a_block_stacked_on_it_meets_its_top_even_at_the_edge() {
        // The block above covers the cube's top: its points on the cube's top edges and
        // corners meet the top face.
        let over = around(|[x, y, z]| !x && y && !z, STRAIGHT);
        assert_up(face([1.0, 1.3, 1.0], &over), 0.3);
        assert_up(face([1.0, 1.0, 1.0], &over), 0.0);
        // A body across the edge (over the top and beyond it): its points on the edge meet the top.
        let both = around(|[_, y, _]| y, STRAIGHT);
        assert_up(face([1.0, 1.004, 0.5], &both), 0.004);
        // Deep inside, or beyond two faces (a real edge): the true distance answers.
        assert_eq!(face([0.5, 0.5, 0.5], &over), FaceAnswer::Distance);
        assert_eq!(face([1.2, 1.3, 0.5], &over), FaceAnswer::Distance);
        // Nothing known: the true distance.
        assert_eq!(
            face([1.0, 1.3, 1.0], &Around::UNKNOWN),
            FaceAnswer::Distance
        );
    }

    #[test]
    fn a_covered_side_is_no_way_out_and_a_turned_body_is_seen_turned() {
        // Just inside the cube's +x side, which a neighbour covers: not the way out; the top,
        // open, is.
        let over = around(|[x, y, _]| !x && y, STRAIGHT);
        let covered = box_face(CUBE, [0.99, 0.995, 0.5], &over, 0.25, |side| side != 1);
        assert_up(covered, -0.005);
        // A body turned a quarter about z (its +x now the world's +y): its cells at +x are
        // over the top face, so the top is met.
        let quarter = [[0.0, -1.0, 0.0], [1.0, 0.0, 0.0], [0.0, 0.0, 1.0]];
        let turned = around(|[x, y, _]| x && y, quarter);
        assert!(matches!(
            face([1.0, 1.2, 0.5], &turned),
            FaceAnswer::Face(_)
        ));
    }

    #[test]
    fn the_clearance_bound_is_never_above_the_face_met() {
        // Over a grid of points around the cube and every body of one octant, a face met is
        // never nearer than the bound less twice FLUSH.
        let mut checked = 0;
        for i in -6..=16 {
            for j in -6..=16 {
                let point = [i as f32 * 0.0925, j as f32 * 0.0925, 0.5];
                let bound = box_clearance(CUBE, point);
                for octant in 0..8u8 {
                    let one = Around {
                        octants: 1 << octant,
                        ..Around::UNKNOWN
                    };
                    if let FaceAnswer::Face(surface) = face(point, &one) {
                        checked += 1;
                        assert!(surface.distance >= bound - 2.0 * FLUSH, "{point:?}");
                    }
                }
            }
        }
        assert!(checked > 100, "{checked}");
    }
}
