//! Contact rows and the sequential-impulse solver that works them.
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
//! The rows between one moving body and one other thing (the world, a resting body, or a
//! second moving body) form a [`Group`], whose rows are kept in one structure of arrays
//! ([`Rows`]): direction, lever × direction for each body, turn (`I⁻¹ · lever × direction`)
//! for each body, effective mass, target, accumulated impulse, and the friction link. While a
//! group is solved its two bodies' velocities are held in the group itself: that is what lets
//! groups that share no moving body be solved on different threads (see `islands`).
//!
//! Each row keeps the push it gave in this step and the limits apply to that sum, not to each
//! correction: a later pass may take back some push, as long as the sum never pulls.

use super::contacts::{Contact, NONE};
use super::math::{self, Matrix, Vector, ZERO, ZERO_MATRIX};
use super::tuning::{BOUNCE, BOUNCE_SPEED, FRICTION, MARGIN, MOST_PUSH, PUSH, SLOP, STEP};
use super::warm::{ContactKey, ContactPush, WARM_START};

/// The rows of one group, one `Vec` per field.
#[derive(Debug, Default)]
pub(crate) struct Rows {
    /// Unit length: the first body is pushed along it, the second against it.
    pub direction: Vec<Vector>,
    /// `r_a × direction`: how a push turns the first body.
    pub angular_a: Vec<Vector>,
    pub angular_b: Vec<Vector>,
    /// `I_a⁻¹ (r_a × direction)`, world frame: the spin one newton second adds.
    pub turn_a: Vec<Vector>,
    pub turn_b: Vec<Vector>,
    /// The push that changes the speed along the row by one meter per second.
    pub mass: Vec<f64>,
    /// The speed along the row the step should end with.
    pub target: Vec<f64>,
    /// The push given so far in this step, newton seconds.
    pub impulse: Vec<f64>,
    /// For a friction row, the index of its normal row; [`NONE`] for a normal row.
    pub normal: Vec<u32>,
}

impl Rows {
    pub fn len(&self) -> usize {
        self.direction.len()
    }

    fn clear(&mut self) {
        self.direction.clear();
        self.angular_a.clear();
        self.angular_b.clear();
        self.turn_a.clear();
        self.turn_b.clear();
        self.mass.clear();
        self.target.clear();
        self.impulse.clear();
        self.normal.clear();
    }
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

/// The rows between one moving body and one other thing, and the velocities of both while
/// they are being solved.
#[derive(Debug, Default)]
pub(crate) struct Group {
    /// Island-local index of the body pushed along the rows' directions.
    pub a: u32,
    /// Island-local index of the second moving body, or [`NONE`] when the other side is fixed.
    pub b: u32,
    /// The dense index of the resting body the rows push against, or [`NONE`].
    pub struck: u32,
    /// How many of its contacts touch (are within [`MARGIN`]), not only speculative.
    pub touching: u32,
    pub inverse_mass_a: f64,
    pub inverse_mass_b: f64,
    pub rows: Rows,
    /// The touching contacts whose pushes are kept for the next step (`warm`): the key, the
    /// index of the normal row (the two friction rows follow it) and the sign of the contact's
    /// normal in the group.
    kept: Vec<(ContactKey, u32, f64)>,
    pub velocity_a: Vector,
    pub spin_a: Vector,
    pub velocity_b: Vector,
    pub spin_b: Vector,
}

impl Group {
    /// Empties the group for new rows, keeping its buffers.
    pub fn reset(&mut self, a: u32, b: u32, struck: u32, mover_a: &Mover, mover_b: &Mover) {
        self.a = a;
        self.b = b;
        self.struck = struck;
        self.touching = 0;
        self.inverse_mass_a = mover_a.inverse_mass;
        self.inverse_mass_b = mover_b.inverse_mass;
        self.rows.clear();
        self.kept.clear();
    }

    /// The three rows of a contact. `sign` is −1 when the contact's own `body` is this
    /// group's second body, so that its normal, the way out for that body, becomes the way in
    /// for the first.
    ///
    /// The normal row's target: for a point within [`MARGIN`] (touching), the larger of a
    /// bounce (a share of a fast closing speed) and a push out of the part sunk deeper than
    /// [`SLOP`]. For a point farther away (a speculative contact, found because it could get
    /// there within the step) a target below zero: the point may approach at up to the speed
    /// that brings it to half the margin by the end of the step, and the row only pushes if
    /// it comes faster. So a fast body stops at a thin wall instead of jumping through it
    /// between two looks, and a body that would not reach the surface feels nothing.
    ///
    /// A touching contact named by `key` is kept for the next step; with `warm` (the normal
    /// and friction pushes the same contact ended the last step with, the friction on the
    /// contact's own body) its rows start from [`WARM_START`] times them instead of from zero,
    /// the friction projected on this step's surface directions and held to its limit (see
    /// `warm`). The starting pushes are applied by [`Group::apply_start`].
    #[allow(clippy::too_many_arguments)]
    pub fn push_contact(
        &mut self,
        contact: &Contact,
        sign: f64,
        a: &Mover,
        b: &Mover,
        key: Option<ContactKey>,
        warm: Option<(f64, Vector)>,
    ) {
        let direction = math::scale(contact.normal, sign);
        let lever_a = math::sub(contact.point, a.position);
        let lever_b = math::sub(contact.point, b.position);
        let point_a = math::add(a.velocity, math::cross(a.spin, lever_a));
        let point_b = math::add(b.velocity, math::cross(b.spin, lever_b));
        let closing = -math::dot(math::sub(point_a, point_b), direction);
        let target = if contact.distance > MARGIN {
            -(contact.distance - MARGIN * 0.5) / STEP
        } else {
            self.touching += 1;
            let bounce = if closing > BOUNCE_SPEED {
                closing * BOUNCE
            } else {
                0.0
            };
            let push = (PUSH * (-contact.distance - SLOP).max(0.0) / STEP).min(MOST_PUSH);
            bounce.max(push)
        };
        let normal = self.rows.len() as u32;
        self.push_row(direction, lever_a, lever_b, a, b, target, NONE);
        let (first, second) = math::tangents(direction);
        self.push_row(first, lever_a, lever_b, a, b, 0.0, normal);
        self.push_row(second, lever_a, lever_b, a, b, 0.0, normal);
        if contact.distance > MARGIN {
            return;
        }
        if let Some(key) = key {
            self.kept.push((key, normal, sign));
        }
        if let Some((push, rub)) = warm {
            let push = (push * WARM_START).max(0.0);
            let rub = math::scale(rub, sign * WARM_START);
            let most = FRICTION * push;
            let at = normal as usize;
            let impulse = &mut self.rows.impulse;
            impulse[at] = push;
            impulse[at + 1] = math::dot(rub, first).max(-most).min(most);
            impulse[at + 2] = math::dot(rub, second).max(-most).min(most);
        }
    }

    /// Applies the pushes the rows start with (warm starting) to the velocities held in the
    /// group: call it after loading them and before the first pass.
    pub fn apply_start(&mut self) {
        if self.kept.is_empty() {
            return;
        }
        let rows = &self.rows;
        for row in 0..rows.len() {
            let push = rows.impulse[row];
            if push == 0.0 {
                continue;
            }
            let direction = rows.direction[row];
            self.velocity_a =
                math::add_scaled(self.velocity_a, direction, self.inverse_mass_a * push);
            self.spin_a = math::add_scaled(self.spin_a, rows.turn_a[row], push);
            if self.b != NONE {
                self.velocity_b =
                    math::add_scaled(self.velocity_b, direction, -self.inverse_mass_b * push);
                self.spin_b = math::add_scaled(self.spin_b, rows.turn_b[row], -push);
            }
        }
    }

    /// The pushes its touching contacts ended the step with, for the next step, each with the
    /// island-local index of the key's body (the group's first body, or its second when the
    /// contact's normal was turned): the normal push, and the friction push on the key's body,
    /// in the world.
    pub fn pushes(&self) -> impl Iterator<Item = (u32, ContactPush)> + '_ {
        let rows = &self.rows;
        self.kept.iter().filter_map(move |&(key, normal, sign)| {
            let at = normal as usize;
            let push = rows.impulse[at];
            (push > 0.0).then(|| {
                let rub = math::add(
                    math::scale(rows.direction[at + 1], rows.impulse[at + 1]),
                    math::scale(rows.direction[at + 2], rows.impulse[at + 2]),
                );
                let body = if sign > 0.0 { self.a } else { self.b };
                let push = ContactPush {
                    key,
                    normal: push,
                    friction: math::scale(rub, sign),
                };
                (body, push)
            })
        })
    }

    #[allow(clippy::too_many_arguments)]
    fn push_row(
        &mut self,
        direction: Vector,
        lever_a: Vector,
        lever_b: Vector,
        a: &Mover,
        b: &Mover,
        target: f64,
        normal: u32,
    ) {
        let angular_a = math::cross(lever_a, direction);
        let turn_a = math::times(&a.inverse_inertia, angular_a);
        let angular_b = math::cross(lever_b, direction);
        let turn_b = math::times(&b.inverse_inertia, angular_b);
        let inverse = a.inverse_mass
            + math::dot(angular_a, turn_a)
            + b.inverse_mass
            + math::dot(angular_b, turn_b);
        // The first body always moves, so `inverse` is at least its inverse mass, above zero.
        let rows = &mut self.rows;
        rows.direction.push(direction);
        rows.angular_a.push(angular_a);
        rows.angular_b.push(angular_b);
        rows.turn_a.push(turn_a);
        rows.turn_b.push(turn_b);
        rows.mass.push(1.0 / inverse);
        rows.target.push(target);
        rows.impulse.push(0.0);
        rows.normal.push(normal);
    }

    /// The sum of the pushes of its normal rows, newton seconds.
    pub fn normal_impulse(&self) -> f64 {
        self.rows
            .normal
            .iter()
            .zip(&self.rows.impulse)
            .filter(|(link, _)| **link == NONE)
            .map(|(_, impulse)| impulse)
            .sum()
    }

    /// One pass over the rows, in order, on the velocities held in the group.
    pub fn solve_once(&mut self) {
        if self.b == NONE {
            self.solve_against_fixed();
        } else {
            self.solve_between_two();
        }
    }

    /// The rows against the world or a resting body: only the first body moves.
    fn solve_against_fixed(&mut self) {
        let rows = &mut self.rows;
        let count = rows.len();
        let direction = &rows.direction[..count];
        let angular = &rows.angular_a[..count];
        let turn = &rows.turn_a[..count];
        let mass = &rows.mass[..count];
        let target = &rows.target[..count];
        let normal = &rows.normal[..count];
        let impulse = &mut rows.impulse[..count];
        let inverse_mass = self.inverse_mass_a;
        let mut velocity = self.velocity_a;
        let mut spin = self.spin_a;
        for row in 0..count {
            let speed = math::dot(direction[row], velocity) + math::dot(angular[row], spin);
            let old = impulse[row];
            let wanted = old + (target[row] - speed) * mass[row];
            let new = limit(wanted, normal[row], impulse);
            let change = new - old;
            impulse[row] = new;
            velocity = math::add_scaled(velocity, direction[row], inverse_mass * change);
            spin = math::add_scaled(spin, turn[row], change);
        }
        self.velocity_a = velocity;
        self.spin_a = spin;
    }

    /// The rows between two moving bodies.
    fn solve_between_two(&mut self) {
        let rows = &mut self.rows;
        let count = rows.len();
        let direction = &rows.direction[..count];
        let angular_a = &rows.angular_a[..count];
        let angular_b = &rows.angular_b[..count];
        let turn_a = &rows.turn_a[..count];
        let turn_b = &rows.turn_b[..count];
        let mass = &rows.mass[..count];
        let target = &rows.target[..count];
        let normal = &rows.normal[..count];
        let impulse = &mut rows.impulse[..count];
        let (inverse_mass_a, inverse_mass_b) = (self.inverse_mass_a, self.inverse_mass_b);
        let (mut velocity_a, mut spin_a) = (self.velocity_a, self.spin_a);
        let (mut velocity_b, mut spin_b) = (self.velocity_b, self.spin_b);
        for row in 0..count {
            let speed = math::dot(direction[row], math::sub(velocity_a, velocity_b))
                + math::dot(angular_a[row], spin_a)
                - math::dot(angular_b[row], spin_b);
            let old = impulse[row];
            let wanted = old + (target[row] - speed) * mass[row];
            let new = limit(wanted, normal[row], impulse);
            let change = new - old;
            impulse[row] = new;
            velocity_a = math::add_scaled(velocity_a, direction[row], inverse_mass_a * change);
            spin_a = math::add_scaled(spin_a, turn_a[row], change);
            velocity_b = math::add_scaled(velocity_b, direction[row], -inverse_mass_b * change);
            spin_b = math::add_scaled(spin_b, turn_b[row], -change);
        }
        self.velocity_a = velocity_a;
        self.spin_a = spin_a;
        self.velocity_b = velocity_b;
        self.spin_b = spin_b;
    }
}

/// The accumulated push a row may hold: a normal row never pulls, a friction row rubs at
/// most [`FRICTION`] times its normal row's push. `max`/`min` rather than `clamp`, which
/// would panic on a NaN bound.
#[inline(always)]
fn limit(wanted: f64, normal: u32, impulse: &[f64]) -> f64 {
    if normal == NONE {
        wanted.max(0.0)
    } else {
        let most = FRICTION * impulse[normal as usize];
        wanted.max(-most).min(most)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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

    fn solved(mover: &Mover, contact: &Contact) -> Group {
        let mut group = Group::default();
        group.reset(0, NONE, NONE, mover, &Mover::FIXED);
        group.push_contact(contact, 1.0, mover, &Mover::FIXED, None, None);
        group.velocity_a = mover.velocity;
        group.spin_a = mover.spin;
        for _ in 0..crate::physics::ITERATIONS {
            group.solve_once();
        }
        group
    }

    #[test]
    fn a_slow_point_on_the_ground_stops_without_bouncing() {
        let mover = falling(1.0);
        let group = solved(&mover, &contact_below(0.0));
        assert_eq!(group.rows.len(), 3);
        assert_eq!(group.touching, 1);
        // Straight below the middle: no turn, and the fall stops.
        assert!(group.velocity_a[1].abs() < 1e-9, "{:?}", group.velocity_a);
        assert!((group.normal_impulse() - 1.0 * 6.0).abs() < 1e-9);
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
        let expected = PUSH * (0.06 - SLOP) / STEP;
        assert!((group.velocity_a[1] - expected).abs() < 1e-9);
        let deep = solved(&mover, &contact_below(-5.0));
        assert!((deep.velocity_a[1] - MOST_PUSH).abs() < 1e-9);
    }

    #[test]
    fn a_speculative_contact_only_slows_what_would_cross() {
        // 0.3 m above, falling at 44 m/s: without the row it would be 0.07 m under after the
        // step. The row lets it close to half the margin.
        let mover = falling(44.0);
        let group = solved(&mover, &contact_below(0.3));
        let gap_after = 0.3 + group.velocity_a[1] * STEP;
        assert!((gap_after - MARGIN * 0.5).abs() < 1e-9, "{gap_after}");
        assert_eq!(group.touching, 0);
        // Falling slowly, it would not reach the surface: nothing happens.
        let slow = solved(&falling(2.0), &contact_below(0.3));
        assert_eq!(slow.velocity_a, [0.0, -2.0, 0.0]);
        assert_eq!(slow.normal_impulse(), 0.0);
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
        let mut group = Group::default();
        group.reset(0, 1, NONE, &a, &b);
        group.push_contact(&contact_below(0.0), 1.0, &a, &b, None, None);
        group.velocity_a = a.velocity;
        group.velocity_b = b.velocity;
        for _ in 0..crate::physics::ITERATIONS {
            group.solve_once();
        }
        // The closing speed of 1 m/s (too slow to bounce) is gone, and the momentum
        // (1 kg · −0.5 m/s + 2 kg · 0.5 m/s = 0.5 N s) is kept.
        let closing = group.velocity_b[1] - group.velocity_a[1];
        assert!(closing.abs() < 1e-9);
        let momentum = group.velocity_a[1] + 2.0 * group.velocity_b[1];
        assert!((momentum - 0.5).abs() < 1e-9);
    }
}
