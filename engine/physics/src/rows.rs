//! Contact rows (constraint rows, each one Jacobian row): what the sequential-impulse solver works
//! (`lanes`), built per group.
//!
//! A contact gives three rows: one along the normal that only pushes, two along the surface
//! for friction that may rub at most [`FRICTION`] times the normal row's push. A push `λ`
//! along a row's direction `n` at a lever `r` from a body's middle changes its velocity by
//! `n λ / m` and its spin by `I⁻¹ (r × n) λ`; a row between two bodies pushes the second the
//! other way.
//!
//! ```text
//!   speed along the row   s = n·(v_a − v_b) + (r_a × n)·ω_a − (r_b × n)·ω_b
//!   push to reach target  Δλ = (target − s) · m_eff, where
//!                         1 / m_eff = 1/m_a + (r_a×n)·I_a⁻¹(r_a×n) + 1/m_b + (r_b×n)·I_b⁻¹(r_b×n)
//!   limits on the sum     normal: λ ≥ 0      friction: |λ| ≤ FRICTION · λ_normal
//! ```
//!
//! A row holds its direction, lever × direction for each body, turn (`I⁻¹ · lever × direction`) for
//! each body, effective mass, target and accumulated impulse ([`Row`]). The rows between one awake
//! body and one other thing (the world, a resting body, or a second awake body) form a group (their
//! contact manifold); they are built here, contact by contact ([`contact_rows`]), and written
//! straight into the lanes that solve them (`lanes`, `solver`).
//!
//! Each row keeps the push it gave in this step and the limits apply to that sum, not to each
//! correction: a later pass may take back some push, as long as the sum never pulls.

use super::contacts::Contact;
use super::math::{self, Matrix, Vector, ZERO, ZERO_MATRIX};
use super::tuning::{
    BAUMGARTE, BOUNCE, BOUNCE_SPEED, FRICTION, MARGIN, MOST_CORRECTIVE_SPEED, SLOP, STEP,
};
use super::warm::WARM_START;

/// One row.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Row {
    /// Unit length: the first body is pushed along it, the second against it.
    pub direction: Vector,
    /// `r_a × direction`: how a push turns the first body.
    pub angular_a: Vector,
    pub angular_b: Vector,
    /// `I_a⁻¹ (r_a × direction)`, world frame: the spin one newton second adds.
    pub turn_a: Vector,
    pub turn_b: Vector,
    /// The push that changes the speed along the row by one meter per second.
    pub mass: f64,
    /// The speed along the row the step should end with.
    pub target: f64,
    /// The push it starts the step with (warm starting), newton seconds.
    pub impulse: f64,
}

/// What row building needs to know of a body.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Mover {
    pub position: Vector,
    pub velocity: Vector,
    pub spin: Vector,
    pub inverse_mass: f64,
    /// World frame.
    pub inverse_inertia: Matrix,
}

impl Mover {
    /// Something that does not move: the world, or a resting body (its middle still matters
    /// for nothing, since its turn is zero).
    pub const FIXED: Mover = Mover {
        position: ZERO,
        velocity: ZERO,
        spin: ZERO,
        inverse_mass: 0.0,
        inverse_inertia: ZERO_MATRIX,
    };
}

/// The three rows of a contact, the normal row first, whether it touches, and whether it
/// strikes.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct ContactRows {
    pub rows: [Row; 3],
    /// Within [`MARGIN`]: not only speculative. Only touching contacts are kept for the next
    /// step and started warm.
    pub touching: bool,
    /// If it strikes, its bounce: [`BOUNCE`] times the speed it closed at when the step
    /// began, the target of its group's bounce row (`lanes::BOUNCE_PASSES`); else 0.
    pub bounce: f64,
    /// Whether it starts the step pushed alike with its group's others that do
    /// (`lanes::Bundle::stop_closing`): it closes, reaches the surface in the step (or
    /// touches it), and has no push of the last step to start from.
    pub starts_even: bool,
}

/// The three rows of a contact. `sign` is −1 when the contact's own `body` is its group's
/// second body, so that its normal, the way out for that body, becomes the way in for the
/// first.
///
/// The normal row's target, as Box2D's speculative contacts have it:
///
/// | the point | target speed along the normal |
/// |---|---|
/// | apart (`d > 0`), touching or speculative | `−d / STEP`: it may close the whole gap in this step, and no more |
/// | sunk in (`d ≤ 0`) | a push out of the part sunk deeper than the slop ([`SLOP`], or [`SIDE_SLOP`] on a side): `BAUMGARTE · (−d − slop) / STEP`, at most [`MOST_CORRECTIVE_SPEED`] |
/// | striking: closing faster than [`BOUNCE_SPEED`] and reaching the surface by the step's end (`closing · STEP ≥ d`) | 0 if apart (it stops), the push out if sunk in; then its bounce (below) |
///
/// So a body that would not reach the surface feels nothing, a fast one stops at a thin wall
/// instead of jumping through it between two looks, and a body that arrives slowly closes the
/// gap and touches what it lands on: it rests on the surface, not at the margin above it. A
/// point within [`MARGIN`] still counts as touching (its pushes are kept and started warm, and
/// its body may come to rest), whatever its target.
///
/// **The bounce** is Poisson's: the passes stop every striking point (the compression of the
/// impact), and once they are over each striking contact pushes again [`BOUNCE`] times the
/// push the passes gave it (the restitution, `lanes::Bundle::work`). A single point leaves at
/// `BOUNCE` times the speed it struck at, the whole speed, not what a slowing to the surface
/// would have left; the points of a face that lands flat push alike, so it leaves level.
/// (With the bounce as each point's target in the passes, as before, the passes' order set
/// the corners of a landing face pushing unevenly: a cube landing on another slid and turned
/// off it, and a tower of them fell.) A point strikes only when it reaches the surface in the
/// step, not when it only comes within the margin: a face tipping over its edge lands at once,
/// its middle with its far edge, and the middle does not bounce the face up before the far
/// edge arrives, which sent a cube tumbling down a slope rolling on like a wheel.
///
/// ```text
///   step n:   p ●  closing v > BOUNCE_SPEED, distance d, v · STEP ≥ d    → stop; then + BOUNCE · push
///               ¦  closing v too slow to bounce, or not reaching          → target −d / STEP
///   ══════════╧════ surface
/// ```
///
/// With `warm` (the normal and friction pushes the same contact ended the last step with, the
/// friction on the contact's own body) a touching contact's rows start from [`WARM_START`]
/// times them instead of from zero, the friction projected on this step's surface directions
/// and held to its limit (see `warm`).
#[inline]
pub(crate) fn contact_rows(
    contact: &Contact,
    sign: f64,
    a: &Mover,
    b: &Mover,
    warm: Option<(f64, Vector)>,
) -> ContactRows {
    let direction = math::scale(contact.normal, sign);
    let lever_a = math::sub(contact.point, a.position);
    let lever_b = math::sub(contact.point, b.position);
    let point_a = math::add(a.velocity, math::cross(a.spin, lever_a));
    let point_b = math::add(b.velocity, math::cross(b.spin, lever_b));
    let closing = -math::dot(math::sub(point_a, point_b), direction);
    let touching = contact.distance <= MARGIN;
    let fast = closing > BOUNCE_SPEED;
    // It strikes if it reaches the surface in this step (as its plane: it closes the whole
    // distance), not if it only comes within the margin: a point of a face tipping over its
    // edge comes down at a share of the far edge's speed, as far from the surface as that
    // share of the far edge's distance, and reaches it in the same step as the far edge.
    let strikes = fast && closing * STEP >= contact.distance;
    let target = if contact.distance > 0.0 {
        if strikes {
            // It strikes: the passes stop it (the bounce comes after them).
            0.0
        } else {
            // Apart: the point may close the whole gap in this step, and no more.
            -contact.distance / STEP
        }
    } else {
        (BAUMGARTE * (-contact.distance - slop_of(direction)).max(0.0) / STEP)
            .min(MOST_CORRECTIVE_SPEED)
    };
    let (first, second) = math::tangents(direction);
    let mut rows = [
        row(direction, lever_a, lever_b, a, b, target),
        row(first, lever_a, lever_b, a, b, 0.0),
        row(second, lever_a, lever_b, a, b, 0.0),
    ];
    let cold = !(touching && warm.is_some());
    if let (true, Some((push, rub))) = (touching, warm) {
        let share = warm_share(direction);
        let push = (push * share).max(0.0);
        let rub = math::scale(rub, sign * share);
        let most = FRICTION * push;
        rows[0].impulse = push;
        rows[1].impulse = math::dot(rub, first).max(-most).min(most);
        rows[2].impulse = math::dot(rub, second).max(-most).min(most);
    }
    ContactRows {
        rows,
        touching,
        bounce: if strikes { BOUNCE * closing } else { 0.0 },
        starts_even: cold && closing > 0.0 && (touching || closing * STEP >= contact.distance),
    }
}

/// The striking contacts of one group, gathered for its bounce row (`lanes::BOUNCE_PASSES`):
/// how many, and the sums of their points, directions and bounces.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct Striking {
    count: u32,
    points: Vector,
    directions: Vector,
    bounces: f64,
}

impl Striking {
    /// Counts `rows` in if its contact (at `point`) strikes.
    #[inline]
    pub fn add(&mut self, point: Vector, rows: &ContactRows) {
        self.add_if(rows.bounce > 0.0, point, rows);
    }

    /// Counts `rows` in if `take`.
    #[inline]
    pub fn add_if(&mut self, take: bool, point: Vector, rows: &ContactRows) {
        if take {
            self.count += 1;
            self.points = math::add(self.points, point);
            self.directions = math::add(self.directions, rows.rows[0].direction);
            self.bounces += rows.bounce;
        }
    }

    /// How many contacts strike.
    pub fn count(&self) -> u32 {
        self.count
    }

    /// The group's bounce row, if any of its contacts strikes: one row at their middle,
    /// along their mean normal, aiming at their mean bounce. A face that strikes flat bounces
    /// level, and one point alone bounces as it would by itself.
    pub fn row(&self, a: &Mover, b: &Mover) -> Option<Row> {
        if self.count == 0 {
            return None;
        }
        let direction = math::normalized(self.directions)?;
        let share = 1.0 / f64::from(self.count);
        let point = math::scale(self.points, share);

        Some(row(
            direction,
            math::sub(point, a.position),
            math::sub(point, b.position),
            a,
            b,
            self.bounces * share,
        ))
    }
}

/// How deep a point may sink in before it is pushed out: [`SLOP`] where the surface carries
/// weight, [`SIDE_SLOP`] on a side (its normal nearer level than upright). See [`SIDE_SLOP`].
#[inline]
fn slop_of(direction: Vector) -> f64 {
    if direction[1].abs() < SIDE {
        SIDE_SLOP
    } else {
        SLOP
    }
}

/// How deep a point may sink into a side before it is pushed out. Flush neighbours (a wall's
/// cubes, a pyramid's rows) press a few millimeters into each other's sides whenever a
/// landing tips them a hair; pushed out beyond the weight's slop, they are pushed apart, and
/// nothing pulls them back: landing after landing, a pyramid's rows spread by centimeters.
/// A side carries no weight, so it may keep what a blow pressed in, as far as Box2D's and our
/// earlier slop of a centimeter; surfaces that carry weight keep [`SLOP`], so that a heavy piece
/// does not press a light one into the ground.
pub(crate) const SIDE_SLOP: f64 = 0.01;

/// How much of a contact's last pushes it starts the step with: [`WARM_START`] where its
/// surface carries weight, [`SIDE_WARM_START`] where it is a side (its normal nearer level
/// than upright). See [`SIDE_WARM_START`].
#[inline]
fn warm_share(direction: Vector) -> f64 {
    if direction[1].abs() < SIDE {
        SIDE_WARM_START
    } else {
        WARM_START
    }
}

/// A normal with less than this of its length up or down is a side's (45° from level).
const SIDE: f64 = std::f64::consts::FRAC_1_SQRT_2;

/// The share of its last pushes a contact on a side starts the step with. A body squeezed
/// between two sides (a cube in a slot its width, a corner pressed in by a step's passes) can
/// end a step with pushes from both that cancel, and friction as large as they allow: a
/// solution of the step as valid as the one without them, which the passes keep finding once
/// they start from it, so the body hangs between the sides on nothing but friction. Weight
/// rests on surfaces that face up; a side carries only what a step's motion presses into it.
/// So a side's pushes are started at half, and a squeeze the motion does not renew lets go
/// within a few steps, while a stack's pushes, on surfaces that face up, start whole.
pub(crate) const SIDE_WARM_START: f64 = 0.5;

#[inline]
fn row(
    direction: Vector,
    lever_a: Vector,
    lever_b: Vector,
    a: &Mover,
    b: &Mover,
    target: f64,
) -> Row {
    let angular_a = math::cross(lever_a, direction);
    let turn_a = math::times(&a.inverse_inertia, angular_a);
    let inverse_a = a.inverse_mass + math::dot(angular_a, turn_a);
    // A fixed second side (no mass, no turn) adds nothing: its numbers stay zero, and the sum
    // is the first side's to the bit (`x + 0 + 0 == x` for the positive `x` here).
    let fixed = b.inverse_mass == 0.0 && b.inverse_inertia == ZERO_MATRIX;
    let (angular_b, turn_b, inverse) = if fixed {
        (ZERO, ZERO, inverse_a)
    } else {
        let angular_b = math::cross(lever_b, direction);
        let turn_b = math::times(&b.inverse_inertia, angular_b);
        let inverse = inverse_a + b.inverse_mass + math::dot(angular_b, turn_b);
        (angular_b, turn_b, inverse)
    };
    // The first body always moves, so `inverse` is at least its inverse mass, above zero.
    Row {
        direction,
        angular_a,
        angular_b,
        turn_a,
        turn_b,
        mass: 1.0 / inverse,
        target,
        impulse: 0.0,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::contacts::NONE;
    use crate::lanes::{Bundle, Velocities};

    fn falling(speed: f64) -> Mover {
        Mover {
            position: [0.0, 0.5, 0.0],
            velocity: [0.0, -speed, 0.0],
            spin: ZERO,
            inverse_mass: 1.0 / 6.0,
            inverse_inertia: [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]],
        }
    }

    fn contact_below(distance: f64) -> Contact {
        Contact {
            body: 0,
            other: NONE,
            point: [0.0, 0.0, 0.0],
            normal: [0.0, 1.0, 0.0],
            distance,
            feature: 0,
        }
    }

    /// A group of one contact solved alone, in lane 0 of a bundle, from the velocities
    /// given (its first body awake index 0, its second 1 if `b` moves).
    struct Solved {
        velocity_a: Vector,
        velocity_b: Vector,
        normal_impulse: f64,
        touching: u32,
    }

    fn solve_alone(contact: &Contact, a: &Mover, b: Option<&Mover>) -> Solved {
        let mut velocities = Velocities::default();
        let (b_index, b_mover) = match b {
            Some(b) => (1, *b),
            None => (NONE, Mover::FIXED),
        };
        velocities.fill([(a.velocity, a.spin), (b_mover.velocity, b_mover.spin)].into_iter());
        let rows = contact_rows(contact, 1.0, a, &b_mover, None);
        let mut bundle = Bundle::default();
        bundle.assign(0..1, 1);
        bundle.clear();
        bundle.set_group(
            0,
            (0, b_index),
            (0, NONE),
            a.inverse_mass,
            b_mover.inverse_mass,
        );
        bundle.push_contact(0, &rows, None, 1.0);
        let (mut striking, mut starting) = (Striking::default(), Striking::default());
        striking.add(contact.point, &rows);
        starting.add_if(rows.starts_even, contact.point, &rows);
        if let Some(bounce) = striking.row(a, &b_mover) {
            bundle.set_bounce(0, &bounce);
        }
        if let Some(start) = starting.row(a, &b_mover) {
            bundle.set_start(0, &start, starting.count());
        }
        for lane in 0..crate::lanes::LANES {
            bundle.end_group(lane);
        }
        for _ in 0..=crate::ITERATIONS {
            bundle.work(&velocities);
        }
        Solved {
            velocity_a: velocities.get(0).0,
            velocity_b: velocities.get(1).0,
            normal_impulse: bundle.lanes[0].normal_push,
            touching: bundle.lanes[0].touching,
        }
    }

    fn solved(mover: &Mover, contact: &Contact) -> Solved {
        solve_alone(contact, mover, None)
    }

    #[test]
    fn a_slow_point_on_the_ground_stops_without_bouncing() {
        let mover = falling(1.0);
        let group = solved(&mover, &contact_below(0.0));
        assert_eq!(group.touching, 1);
        // Straight below the middle: no turn, and the fall stops.
        assert!(group.velocity_a[1].abs() < 1e-9, "{:?}", group.velocity_a);
        assert!((group.normal_impulse - 1.0 * 6.0).abs() < 1e-9);
    }

    #[test]
    fn a_fast_hit_bounces_a_share_of_its_speed() {
        let mover = falling(4.0);
        let group = solved(&mover, &contact_below(0.0));
        assert!((group.velocity_a[1] - 4.0 * BOUNCE).abs() < 1e-9);
    }

    #[test]
    fn a_sunk_point_is_pushed_out_gently() {
        let mover = falling(0.0);
        let group = solved(&mover, &contact_below(-0.06));
        let expected = BAUMGARTE * (0.06 - SLOP) / STEP;
        assert!((group.velocity_a[1] - expected).abs() < 1e-9);
        let deep = solved(&mover, &contact_below(-5.0));
        assert!((deep.velocity_a[1] - MOST_CORRECTIVE_SPEED).abs() < 1e-9);
    }

    #[test]
    fn a_point_that_would_not_reach_the_surface_feels_nothing() {
        // 0.021 m above (just outside the margin), closing at 1.4 m/s (too slow to bounce): it
        // would end the step 0.0093 m above the surface, and nothing pushes it.
        let group = solved(&falling(1.4), &contact_below(0.021));
        assert_eq!(group.velocity_a, [0.0, -1.4, 0.0]);
        assert_eq!(group.normal_impulse, 0.0);
        assert_eq!(group.touching, 0);
        let slow = solved(&falling(2.0), &contact_below(0.3));
        assert_eq!(slow.velocity_a, [0.0, -2.0, 0.0]);
        assert_eq!(slow.normal_impulse, 0.0);
    }

    #[test]
    fn a_touching_point_apart_closes_the_gap_and_one_sunk_in_within_the_slop_stays() {
        // 8 mm above, within the margin: it touches, and may close the 8 mm in this step.
        let group = solved(&falling(1.0), &contact_below(0.008));
        assert_eq!(group.touching, 1);
        let gap_after = 0.008 + group.velocity_a[1] * STEP;
        assert!(gap_after.abs() < 1e-9, "{gap_after}");
        // Sunk in by less than the slop: held where it is, neither pushed out nor sinking.
        let sunk = solved(&falling(1.0), &contact_below(-0.5 * SLOP));
        assert!(sunk.velocity_a[1].abs() < 1e-9, "{:?}", sunk.velocity_a);
    }

    #[test]
    fn a_fast_point_that_strikes_within_the_step_bounces_with_all_its_speed() {
        // 0.3 m above, falling at 44 m/s: it would be 0.07 m under by the step's end. It
        // strikes in this step and leaves with its share of the whole 44 m/s, not of what a
        // slowing to the surface would have left.
        let group = solved(&falling(44.0), &contact_below(0.3));
        assert!((group.velocity_a[1] - 44.0 * BOUNCE).abs() < 1e-9);
        assert_eq!(group.touching, 0);
        // Just short of reaching the surface by the step's end: not yet.
        let early = solved(&falling(0.3 / STEP - 1e-6), &contact_below(0.3));
        assert_eq!(early.normal_impulse, 0.0);
        // Just reaching it: it strikes.
        let speed = 0.3 / STEP + 1e-6;
        let edge = solved(&falling(speed), &contact_below(0.3));
        assert!((edge.velocity_a[1] - speed * BOUNCE).abs() < 1e-9);
    }

    #[test]
    fn a_point_closing_fast_but_not_reaching_the_surface_keeps_its_speed() {
        // 4 cm above, closing at 3 m/s: 2.5 cm this step, within the margin by its end but
        // not on the surface. The middle of a face tipping over its edge comes down so, at
        // half the far edge's speed: it must not bounce before the face lands.
        let group = solved(&falling(3.0), &contact_below(0.04));
        assert_eq!(group.velocity_a, [0.0, -3.0, 0.0]);
        assert_eq!(group.normal_impulse, 0.0);
    }

    #[test]
    fn friction_holds_at_most_its_share_of_the_push() {
        let mut mover = falling(1.0);
        mover.velocity = [5.0, -1.0, 0.0];
        // A lever of zero: no turn to muddy the numbers.
        mover.position = [0.0, 0.0, 0.0];
        let group = solved(&mover, &contact_below(0.0));
        // The normal push stops the fall (6 N s); friction takes off at most 0.6 × 6 N s, so
        // 3.6 N s of the 30 N s of sliding: 0.6 m/s.
        assert!((group.velocity_a[0] - (5.0 - FRICTION)).abs() < 1e-9);
    }

    #[test]
    fn two_bodies_share_the_push_by_their_masses() {
        let a = Mover {
            position: [0.0, 1.0, 0.0],
            velocity: [0.0, -0.5, 0.0],
            spin: ZERO,
            inverse_mass: 1.0,
            inverse_inertia: [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]],
        };
        let b = Mover {
            position: [0.0, -1.0, 0.0],
            velocity: [0.0, 0.5, 0.0],
            inverse_mass: 0.5,
            ..a
        };
        let group = solve_alone(&contact_below(0.0), &a, Some(&b));
        // The closing speed of 1 m/s (too slow to bounce) is gone, and the momentum
        // (1 kg · −0.5 m/s + 2 kg · 0.5 m/s = 0.5 N s) is kept.
        let closing = group.velocity_b[1] - group.velocity_a[1];
        assert!(closing.abs() < 1e-9);
        let momentum = group.velocity_a[1] + 2.0 * group.velocity_b[1];
        assert!((momentum - 0.5).abs() < 1e-9);
    }
}
