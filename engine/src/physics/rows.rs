//! Contact rows: what the sequential-impulse solver works (`lanes`), built per group.
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
//! for each body, effective mass, target, accumulated impulse, and the friction link. The
//! rows are built here and solved side by side with those of other groups of their colour
//! (`lanes`, `solver`); their pushes come back here for the next step and the reports.
//!
//! Each row keeps the push it gave in this step and the limits apply to that sum, not to each
//! correction: a later pass may take back some push, as long as the sum never pulls.

use std::ops::Range;

use super::contacts::{Contact, NONE};
use super::lanes::Bundle;
use super::math::{self, Matrix, Vector, ZERO, ZERO_MATRIX};
use super::solver::{ContactRef, Shared};
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

/// The rows between one awake body and one other thing.
#[derive(Debug, Default)]
pub(crate) struct Group {
    /// The pair: `first << 32 | other` (see `solver::ContactRef`), and its contacts' range of
    /// the solver's sorted contacts.
    key: u64,
    refs: Range<u32>,
    /// Where it is solved: its bundle and lane.
    pub place: (u32, u32),
    /// The awake index of the body pushed along the rows' directions.
    pub a: u32,
    /// The awake index of the second awake body, or [`NONE`] when the other side is fixed.
    pub b: u32,
    /// The dense index of the first body.
    pub first: u32,
    /// The dense index of the second awake body, or [`NONE`].
    pub second: u32,
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
}

impl Group {
    /// Names the group's pair and contacts, for [`Group::build`].
    pub fn plan(&mut self, key: u64, refs: Range<u32>) {
        self.key = key;
        self.refs = refs;
    }

    /// Builds the rows of its contacts, each started from last step's pushes when it
    /// persists.
    pub fn build(&mut self, shared: &Shared, refs: &[ContactRef]) {
        let bodies = shared.bodies;
        let first = (self.key >> 32) as u32;
        let other = (self.key & 0xffff_ffff) as u32;
        let mover = |dense: usize| Mover {
            position: bodies.position[dense],
            velocity: bodies.velocity[dense],
            spin: bodies.spin[dense],
            inverse_mass: bodies.inverse_mass[dense],
            inverse_inertia: shared.inverse_inertia[dense],
        };
        let mover_a = mover(first as usize);
        let (b, second, struck, mover_b) = if other == 0 {
            (NONE, NONE, NONE, Mover::FIXED)
        } else {
            let other = other - 1;
            match shared.awake[other as usize] {
                NONE => (NONE, NONE, other, Mover::FIXED),
                b => (b, other, NONE, mover(other as usize)),
            }
        };
        self.reset(shared.awake[first as usize], b, struck, &mover_a, &mover_b);
        self.first = first;
        self.second = second;
        for reference in &refs[self.refs.start as usize..self.refs.end as usize] {
            let contact = &shared.jobs[reference.job as usize].contacts[reference.index as usize];
            let sign = if contact.body == first { 1.0 } else { -1.0 };
            let key = ContactKey {
                body: bodies.handle(contact.body as usize),
                other: (contact.other != NONE).then(|| bodies.handle(contact.other as usize)),
                point: contact.feature,
            };
            let warm = shared.warm.get(&key);
            self.push_contact(contact, sign, &mover_a, &mover_b, Some(key), warm);
        }
    }

    /// Empties the group for new rows, keeping its buffers.
    pub fn reset(&mut self, a: u32, b: u32, struck: u32, mover_a: &Mover, mover_b: &Mover) {
        self.a = a;
        self.b = b;
        self.first = NONE;
        self.second = NONE;
        self.struck = struck;
        self.touching = 0;
        self.inverse_mass_a = mover_a.inverse_mass;
        self.inverse_mass_b = mover_b.inverse_mass;
        self.rows.clear();
        self.kept.clear();
    }

    /// Takes the pushes its rows ended the solve with from its bundle.
    pub fn unpack(&mut self, bundles: &[Bundle]) {
        let (bundle, lane) = self.place;
        bundles[bundle as usize].unpack(lane as usize, &mut self.rows.impulse);
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

    /// The pushes its touching contacts ended the step with, for the next step, each with the
    /// awake index of the key's body (the group's first body, or its second when the
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
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::physics::lanes::Velocities;

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

    /// A group solved alone, and its bodies' velocities after.
    struct Solved {
        group: Group,
        velocity_a: Vector,
        velocity_b: Vector,
    }

    impl std::ops::Deref for Solved {
        type Target = Group;
        fn deref(&self) -> &Group {
            &self.group
        }
    }

    /// The group's start and passes, alone in a bundle, from the velocities given (its first
    /// body awake index 0, its second 1).
    fn solve_alone(mut group: Group, velocity: [Vector; 2], spin: [Vector; 2]) -> Solved {
        let velocities = Velocities::default();
        let mut velocities = velocities;
        velocities.fill(velocity.into_iter().zip(spin));
        group.place = (0, 0);
        let mut bundle = Bundle::default();
        bundle.assign(&[0]);
        bundle.pack(std::slice::from_ref(&group));
        for _ in 0..=crate::physics::ITERATIONS {
            bundle.work(&velocities);
        }
        group.unpack(std::slice::from_ref(&bundle));
        Solved {
            group,
            velocity_a: velocities.get(0).0,
            velocity_b: velocities.get(1).0,
        }
    }

    fn solved(mover: &Mover, contact: &Contact) -> Solved {
        let mut group = Group::default();
        group.reset(0, NONE, NONE, mover, &Mover::FIXED);
        group.push_contact(contact, 1.0, mover, &Mover::FIXED, None, None);
        solve_alone(group, [mover.velocity, ZERO], [mover.spin, ZERO])
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
        let group = solve_alone(group, [a.velocity, b.velocity], [a.spin, b.spin]);
        // The closing speed of 1 m/s (too slow to bounce) is gone, and the momentum
        // (1 kg · −0.5 m/s + 2 kg · 0.5 m/s = 0.5 N s) is kept.
        let closing = group.velocity_b[1] - group.velocity_a[1];
        assert!(closing.abs() < 1e-9);
        let momentum = group.velocity_a[1] + 2.0 * group.velocity_b[1];
        assert!((momentum - 0.5).abs() < 1e-9);
    }
}
