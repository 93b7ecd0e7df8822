//! Wide rows: groups that share no awake body solved [`LANES`] at a time.
//!
//! Solving a row waits on the row before it: its speed is read from the velocities the last
//! row changed. One group after another, the processor spends most of a pass waiting on that
//! chain. The groups of a bundle share no awake body (see `solver`), so they can be worked at
//! the same time: a [`Bundle`] (a SIMD-wide constraint batch) holds up to four of them side by
//! side, one per SIMD lane, and each instruction of the pass does the same step for all four.
//!
//! ```text
//!               lane 0      lane 1      lane 2      lane 3
//!   contact 0   1–⊥ n f f   2–3 n f f   4–5 n f f   6–⊥ n f f     rows of one contact: the
//!   contact 1   1–⊥ n f f   2–3 n f f   4–5 n f f   ·  (empty)    normal row n, then its two
//!   contact 2   ·           2–3 n f f   ·           ·             friction rows f
//! ```
//!
//! A lane works through its own group's contacts in the group's order, exactly as one group
//! solved alone: every lane does the same operations in the same order on its own numbers, so
//! a bundle gives each group the bits it would get by itself. A group with fewer contacts than
//! its neighbours is padded with empty rows (no direction, no mass, no push), which change
//! nothing; an empty lane has no bodies. Against the world or a resting body the second body
//! is fixed: its inverse mass and turn are zero and its velocities are not written back.
//!
//! The lanes are `wide::f64x4`: four `f64` in two SSE2 registers on any x86-64, one AVX
//! register where the build allows it, plain arrays elsewhere: safe code, the same result.

use super::budget::release;
use std::sync::atomic::{AtomicU64, Ordering};

use wide::f64x4;

use super::contacts::NONE;
use super::math::{self, Vector};
use super::rows::{ContactRows, Row};
use super::tuning::{FRICTION, ITERATIONS};
use super::warm::{ContactImpulse, ContactKey};

/// Groups solved side by side.
pub(crate) const LANES: usize = 4;

/// The last passes of a step, in which the contacts that strike aim at their bounce
/// ([`ContactRows::bounce`]); the passes before stop them. Stopped first, the points of a
/// face that lands flat push alike, and the bounce passes start from that even push: aimed
/// at their bounce from the first pass, the passes' order set a landing face's corners
/// pushing unevenly, and a cube landing on another slid and turned off it.
pub(crate) const BOUNCE_PASSES: usize = 2;

type Wide = f64x4;
/// One [`Vector`] per lane, axis by axis.
type WideVector = [Wide; 3];

const WIDE_ZERO: WideVector = [Wide::ZERO; 3];

/// One row of each lane, as `Rows` keeps it for one group.
#[derive(Debug, Clone, Copy)]
struct WideRow {
    direction: WideVector,
    angular_a: WideVector,
    angular_b: WideVector,
    turn_a: WideVector,
    turn_b: WideVector,
    mass: Wide,
    target: Wide,
    impulse: Wide,
}

impl Default for WideRow {
    fn default() -> Self {
        Self::EMPTY
    }
}

impl WideRow {
    const EMPTY: WideRow = WideRow {
        direction: WIDE_ZERO,
        angular_a: WIDE_ZERO,
        angular_b: WIDE_ZERO,
        turn_a: WIDE_ZERO,
        turn_b: WIDE_ZERO,
        mass: Wide::ZERO,
        target: Wide::ZERO,
        impulse: Wide::ZERO,
    };
}

/// The three rows of one contact of each lane: the normal row, then the two friction rows.
type WideContact = [WideRow; 3];

/// What a bundle knows of the group in one lane besides its rows.
#[derive(Debug, Default)]
pub(crate) struct LaneGroup {
    /// The dense index of the first body.
    pub first: u32,
    /// The dense index of the second awake body, or [`NONE`].
    pub second: u32,
    /// How many of its contacts touch, not only speculative.
    pub touching: u32,
    /// How many contacts it has.
    contacts: u32,
    /// The sum of its normal rows' pushes once the rows are solved ([`Bundle::finish`]),
    /// newton seconds.
    pub normal_push: f64,
    /// The touching contacts whose pushes are kept for the next step (`warm`): the key, the
    /// contact's slot, and the sign of its normal in the group.
    kept: Vec<(ContactKey, u32, f64)>,
}

/// Up to [`LANES`] groups that share no awake body, their rows side by side, and their bodies'
/// velocities while they are solved.
#[derive(Debug, Default)]
pub(crate) struct Bundle {
    /// The solver's index of the group in each lane; [`NONE`] for an empty lane.
    pub groups: [u32; LANES],
    /// The most contacts of any of its groups.
    most: u32,
    pub lanes: [LaneGroup; LANES],
    /// Each lane's bodies, by awake index ([`NONE`]: none, or fixed).
    a: [u32; LANES],
    b: [u32; LANES],
    inverse_mass_a: Wide,
    inverse_mass_b: Wide,
    contacts: Vec<WideContact>,
    /// Each contact's bounce ([`ContactRows::bounce`]), lane by lane: above 0 where it strikes.
    bounces: Vec<Wide>,
    /// Each lane's bounce row: one row at its striking contacts' middle, along their mean
    /// normal, aiming at their mean bounce ([`Bundle::set_bounce`]); empty where none strikes.
    bounce_row: WideRow,
    /// Whether the passes are the bounce passes ([`BOUNCE_PASSES`]).
    bouncing: bool,
    /// Each lane's start row: one row at the middle of its contacts that start pushed alike
    /// ([`ContactRows::starts_even`]), along their mean normal ([`Bundle::stop_closing`]);
    /// each contact's flag (1 where it starts so), and each lane's share for each: one over
    /// their count.
    start_row: WideRow,
    starting: Vec<Wide>,
    start_share: Wide,
    /// The pushes its touching contacts ended the step with ([`Bundle::finish`]), and the
    /// awake index of each one's key's body, apart: the threads gathering them by body read
    /// every bundle's bodies but only their own bodies' pushes.
    pub kept: Vec<ContactImpulse>,
    pub kept_bodies: Vec<u32>,
    /// How many of its stages it has worked this step: the first applies the pushes its rows
    /// start with, each later one is a pass.
    stage: u32,
    /// Whether [`Bundle::clear`] has made room for the rows of the groups last assigned.
    built: bool,
    velocity_a: WideVector,
    spin_a: WideVector,
    velocity_b: WideVector,
    spin_b: WideVector,
}

/// Lane `lane` of a wide vector set to `value`.
#[inline(always)]
fn set(wide: &mut WideVector, lane: usize, value: Vector) {
    for axis in 0..3 {
        wide[axis].as_array_mut()[lane] = value[axis];
    }
}

/// Lane `lane` of a wide vector.
#[inline(always)]
fn get(wide: &WideVector, lane: usize) -> Vector {
    [0, 1, 2].map(|axis| wide[axis].as_array_ref()[lane])
}

#[inline(always)]
fn dot(a: &WideVector, b: &WideVector) -> Wide {
    a[0] * b[0] + a[1] * b[1] + a[2] * b[2]
}

/// `v + d · s`, per axis.
#[inline(always)]
fn add_scaled(v: &mut WideVector, d: &WideVector, s: Wide) {
    for axis in 0..3 {
        v[axis] += d[axis] * s;
    }
}

/// Gives a push along `row` to the velocities and spins of its two bodies
/// (`[velocity_a, spin_a, velocity_b, spin_b]`): the first along the row, the second against it.
#[inline(always)]
fn give(
    row: &WideRow,
    push: Wide,
    (inverse_mass_a, inverse_mass_b): (Wide, Wide),
    [velocity_a, spin_a, velocity_b, spin_b]: [&mut WideVector; 4],
) {
    add_scaled(velocity_a, &row.direction, inverse_mass_a * push);
    add_scaled(spin_a, &row.turn_a, push);
    add_scaled(velocity_b, &row.direction, -(inverse_mass_b * push));
    add_scaled(spin_b, &row.turn_b, -push);
}

/// Writes `row` into lane `lane` of `wide`.
#[inline(always)]
fn set_row(wide: &mut WideRow, lane: usize, row: &Row) {
    set(&mut wide.direction, lane, row.direction);
    set(&mut wide.angular_a, lane, row.angular_a);
    set(&mut wide.angular_b, lane, row.angular_b);
    set(&mut wide.turn_a, lane, row.turn_a);
    set(&mut wide.turn_b, lane, row.turn_b);
    wide.mass.as_array_mut()[lane] = row.mass;
    wide.target.as_array_mut()[lane] = row.target;
    wide.impulse.as_array_mut()[lane] = row.impulse;
}

/// An empty row: no direction, no mass, no push. It changes nothing.
const EMPTY_ROW: Row = Row {
    direction: [0.0; 3],
    angular_a: [0.0; 3],
    angular_b: [0.0; 3],
    turn_a: [0.0; 3],
    turn_b: [0.0; 3],
    mass: 0.0,
    target: 0.0,
    impulse: 0.0,
};

impl Bundle {
    /// Frees its rows and kept pushes where they keep much more room than the step used
    /// ([`release`]): what they hold is the finished step's, made again in the next.
    pub fn trim(&mut self) {
        release(&mut self.contacts);
        release(&mut self.bounces);
        release(&mut self.starting);
        release(&mut self.kept);
        release(&mut self.kept_bodies);
        for lane in &mut self.lanes {
            release(&mut lane.kept);
        }
    }

    /// Takes the groups `groups` (the solver's indices, at most [`LANES`], none sharing an
    /// awake body), whose longest has `most` contacts. Cheap, for the serial part of the step:
    /// [`Bundle::clear`] makes room for their rows, on the workers.
    pub fn assign(&mut self, groups: std::ops::Range<u32>, most: usize) {
        debug_assert!(!groups.is_empty() && groups.len() <= LANES);
        self.groups = [NONE; LANES];
        for (lane, group) in groups.enumerate() {
            self.groups[lane] = group;
        }
        self.most = most as u32;
        self.built = false;
    }

    /// Whether its rows are built for the groups last assigned.
    pub fn built(&self) -> bool {
        self.built
    }

    /// Forgets last step's groups and makes room for the assigned groups' rows.
    pub fn clear(&mut self) {
        self.a = [NONE; LANES];
        self.b = [NONE; LANES];
        self.inverse_mass_a = Wide::ZERO;
        self.inverse_mass_b = Wide::ZERO;
        self.stage = 0;
        self.built = true;
        self.bounce_row = WideRow::EMPTY;
        self.bouncing = false;
        self.start_row = WideRow::EMPTY;
        self.start_share = Wide::ZERO;
        // Every slot of every lane is written by `set_contact` or `end_group`: no need to
        // clear what is kept.
        let most = self.most as usize;
        self.contacts.resize(most, [WideRow::EMPTY; 3]);
        self.contacts.truncate(most);
        self.bounces.resize(most, Wide::ZERO);
        self.bounces.truncate(most);
        self.starting.resize(most, Wide::ZERO);
        self.starting.truncate(most);
        for lane in &mut self.lanes {
            lane.first = NONE;
            lane.second = NONE;
            lane.touching = 0;
            lane.contacts = 0;
            lane.normal_push = 0.0;
            lane.kept.clear();
        }
    }

    /// Lane `lane`'s group: its bodies (`a`, `b` by awake index, `b` [`NONE`] when fixed;
    /// `first`, `second` dense) and inverse masses.
    #[allow(clippy::too_many_arguments)]
    pub fn set_group(
        &mut self,
        lane: usize,
        (a, b): (u32, u32),
        (first, second): (u32, u32),
        inverse_mass_a: f64,
        inverse_mass_b: f64,
    ) {
        self.a[lane] = a;
        self.b[lane] = b;
        self.inverse_mass_a.as_array_mut()[lane] = inverse_mass_a;
        self.inverse_mass_b.as_array_mut()[lane] = if b == NONE { 0.0 } else { inverse_mass_b };
        let group = &mut self.lanes[lane];
        group.first = first;
        group.second = second;
    }

    /// The next contact of lane `lane`'s group; `key` names it for the next step if it
    /// touches, `sign` as for [`super::rows::contact_rows`].
    pub fn push_contact(
        &mut self,
        lane: usize,
        contact: &ContactRows,
        key: Option<ContactKey>,
        sign: f64,
    ) {
        let group = &mut self.lanes[lane];
        let slot = group.contacts as usize;
        group.contacts += 1;
        // A fixed side's numbers are zero (`rows::contact_rows`): its velocities are zero and
        // never stored.
        for (wide, row) in self.contacts[slot].iter_mut().zip(&contact.rows) {
            set_row(wide, lane, row);
        }
        self.bounces[slot].as_array_mut()[lane] = contact.bounce;
        self.starting[slot].as_array_mut()[lane] = f64::from(u8::from(contact.starts_even));
        if contact.touching {
            group.touching += 1;
            if let Some(key) = key {
                group.kept.push((key, slot as u32, sign));
            }
        }
    }

    /// Fills lane `lane`'s slots after its group's last contact with empty rows (all of them
    /// for an empty lane).
    pub fn end_group(&mut self, lane: usize) {
        let from = self.lanes[lane].contacts as usize;
        for contact in &mut self.contacts[from..] {
            for wide in contact {
                set_row(wide, lane, &EMPTY_ROW);
            }
        }
        for bounce in &mut self.bounces[from..] {
            bounce.as_array_mut()[lane] = 0.0;
        }
        for starting in &mut self.starting[from..] {
            starting.as_array_mut()[lane] = 0.0;
        }
    }

    /// How many rows it works per pass, empty ones included.
    pub fn rows(&self) -> usize {
        self.contacts.len() * 3 * LANES
    }

    /// Whether its next stage is the last pass.
    pub fn last_pass(&self) -> bool {
        self.built && self.stage == ITERATIONS as u32
    }

    /// Its next stage of the solve: its bodies' velocities loaded, the pushes its rows start
    /// with applied (the first time) or one pass over its rows, the velocities stored; the
    /// last [`BOUNCE_PASSES`] passes work the bounce rows ([`Bundle::start_bouncing`]); after
    /// the last, [`Bundle::finish`].
    pub fn work(&mut self, velocities: &Velocities) {
        self.load(velocities);
        if self.stage == 0 {
            self.apply_start();
            self.stop_closing();
        } else {
            if self.stage == (ITERATIONS + 1 - BOUNCE_PASSES) as u32 {
                self.start_bouncing();
            }
            self.solve_once();
        }
        self.store(velocities);
        if self.stage == ITERATIONS as u32 {
            self.finish();
        }
        self.stage += 1;
    }

    /// Copies its bodies' velocities in.
    #[inline]
    fn load(&mut self, velocities: &Velocities) {
        // Each wide value made whole from its four lanes, not written a lane at a time and
        // then read whole (a read the processor cannot take from the four writes).
        let a = self.a.map(|index| velocities.get_or_zero(index));
        let b = self.b.map(|index| velocities.get_or_zero(index));
        let gather = |side: &[(Vector, Vector); LANES], spin: bool| -> WideVector {
            std::array::from_fn(|axis| {
                Wide::new(std::array::from_fn(|lane| {
                    let (velocity, turn) = &side[lane];
                    if spin {
                        turn[axis]
                    } else {
                        velocity[axis]
                    }
                }))
            })
        };
        self.velocity_a = gather(&a, false);
        self.spin_a = gather(&a, true);
        self.velocity_b = gather(&b, false);
        self.spin_b = gather(&b, true);
    }

    /// Copies them back out.
    #[inline]
    fn store(&self, velocities: &Velocities) {
        for lane in 0..LANES {
            if self.a[lane] != NONE {
                let a = self.a[lane] as usize;
                velocities.set(a, get(&self.velocity_a, lane), get(&self.spin_a, lane));
            }
            if self.b[lane] != NONE {
                let b = self.b[lane] as usize;
                velocities.set(b, get(&self.velocity_b, lane), get(&self.spin_b, lane));
            }
        }
    }

    /// Lane `lane`'s bounce row ([`BOUNCE_PASSES`]).
    pub fn set_bounce(&mut self, lane: usize, row: &Row) {
        set_row(&mut self.bounce_row, lane, row);
    }

    /// Lane `lane`'s start row, for its `count` contacts that start pushed alike
    /// ([`Bundle::stop_closing`]).
    pub fn set_start(&mut self, lane: usize, row: &Row, count: u32) {
        set_row(&mut self.start_row, lane, row);
        self.start_share.as_array_mut()[lane] = 1.0 / f64::from(count.max(1));
    }

    /// Before the first pass: each lane's contacts that close with nothing to start from (a
    /// landing's, a stack's first step: [`ContactRows::starts_even`]) are pushed alike,
    /// together as much as stops their middle along their mean normal (the start row's speed
    /// brought to 0). The passes then only correct what is left, from an even start: started
    /// from nothing, the first passes pushed the first points hardest, and what they set
    /// turning the later passes could not all take back (a cube landing square in a slot
    /// slid 3 cm along it; a tower of 16 half-meter cubes released at once leaned 28 cm).
    fn stop_closing(&mut self) {
        let row = &self.start_row;
        let relative = [
            self.velocity_a[0] - self.velocity_b[0],
            self.velocity_a[1] - self.velocity_b[1],
            self.velocity_a[2] - self.velocity_b[2],
        ];
        let speed = dot(&row.direction, &relative) + dot(&row.angular_a, &self.spin_a)
            - dot(&row.angular_b, &self.spin_b);
        let stop = ((-speed) * row.mass).max(Wide::ZERO);
        let each = stop * self.start_share;
        let (inverse_mass_a, inverse_mass_b) = (self.inverse_mass_a, self.inverse_mass_b);
        for ([normal, _, _], starting) in self.contacts.iter_mut().zip(&self.starting) {
            let push = each * *starting;
            normal.impulse += push;
            give(
                normal,
                push,
                (inverse_mass_a, inverse_mass_b),
                [
                    &mut self.velocity_a,
                    &mut self.spin_a,
                    &mut self.velocity_b,
                    &mut self.spin_b,
                ],
            );
        }
    }

    /// Before the last [`BOUNCE_PASSES`] passes: the striking contacts' normal rows, which
    /// the passes before stopped, keep their pushes and push no more (their mass is set to
    /// 0), and each lane's bounce row joins the passes.
    fn start_bouncing(&mut self) {
        for ([normal, _, _], bounce) in self.contacts.iter_mut().zip(&self.bounces) {
            let bounces = bounce.to_array();
            let masses = normal.mass.as_array_mut();
            for (mass, bounce) in masses.iter_mut().zip(bounces) {
                if bounce > 0.0 {
                    *mass = 0.0;
                }
            }
        }
        self.bouncing = true;
    }

    /// Once the passes are over: each lane's bounce row's push shared among its striking
    /// contacts, in proportion to the pushes that stopped them (evenly if none did), so that
    /// the impacts reported and the pushes kept are the contacts' whole pushes.
    fn share_bounce(&mut self) {
        let bounces = self.bounce_row.impulse.to_array();
        for (lane, bounce) in bounces.into_iter().enumerate() {
            if bounce <= 0.0 {
                continue;
            }
            let striking = |bounces: &Wide| bounces.to_array()[lane] > 0.0;
            let (mut count, mut total) = (0.0, 0.0);
            for ([normal, _, _], bounces) in self.contacts.iter().zip(&self.bounces) {
                if striking(bounces) {
                    count += 1.0;
                    total += normal.impulse.to_array()[lane];
                }
            }
            for ([normal, _, _], bounces) in self.contacts.iter_mut().zip(&self.bounces) {
                if striking(bounces) {
                    let impulse = &mut normal.impulse.as_array_mut()[lane];
                    let share = if total > 0.0 {
                        *impulse / total
                    } else {
                        1.0 / count
                    };
                    *impulse += bounce * share;
                }
            }
        }
    }

    /// Applies the pushes the rows start with (warm starting) to the velocities it holds.
    fn apply_start(&mut self) {
        let (inverse_mass_a, inverse_mass_b) = (self.inverse_mass_a, self.inverse_mass_b);
        for row in self.contacts.iter().flatten() {
            give(
                row,
                row.impulse,
                (inverse_mass_a, inverse_mass_b),
                [
                    &mut self.velocity_a,
                    &mut self.spin_a,
                    &mut self.velocity_b,
                    &mut self.spin_b,
                ],
            );
        }
    }

    /// One pass over its rows, each lane's in its group's order (the normal rows the other way
    /// round in two passes: [`Bundle::backward`]), on the velocities it holds: the one kernel
    /// ([`solve_pass`]) on AVX registers where the processor has them ([`avx`]), else on
    /// `wide`'s portable lanes. The two give the same bits.
    fn solve_once(&mut self) {
        #[cfg(target_arch = "x86_64")]
        if avx::available() {
            // SAFETY: the processor has AVX (checked just now).
            unsafe { avx::solve_once(self) };
            return;
        }
        self.solve_once_portable();
    }

    /// Whether this pass works the normal rows last to first (then the friction rows first to
    /// last): the second and the fourth do. The later passes keep one order, so that bodies
    /// lying still end each step alike (taken both ways to the end, bodies kept awake on the
    /// ground moved a hair more each step and asked the world a tenth more). Always worked first to last, contact by contact, the
    /// first contacts of a group take the most push in every pass and the last only correct
    /// what is left; in a stack whose passes never quite finish (16 half-meter cubes released
    /// at once), what that leaves turns every cube the same way a hair each step, and the
    /// tower leaned 9 cm. Taking the normal rows the other way in two passes favours neither
    /// end; the friction rows keep their order (worked backward too, with their
    /// normal rows, they turned a cube landing alone about the vertical).
    fn backward(&self) -> bool {
        self.stage % 2 == 0 && self.stage <= 4
    }

    /// [`Bundle::solve_once`] on `wide`'s lanes: on x86-64 builds without AVX enabled, two
    /// SSE2 instructions for each operation on four lanes.
    fn solve_once_portable(&mut self) {
        solve_pass::<Wide>(self);
    }

    /// Once the rows are solved: each lane's normal push summed
    /// ([`LaneGroup::normal_push`]) and the pushes its touching contacts keep for the next
    /// step ([`Bundle::kept`]).
    fn finish(&mut self) {
        self.share_bounce();
        let (mut kept, mut bodies) = (
            std::mem::take(&mut self.kept),
            std::mem::take(&mut self.kept_bodies),
        );
        kept.clear();
        bodies.clear();
        for lane in 0..LANES {
            self.lanes[lane].normal_push = self.normal_impulse(lane);
            for (body, push) in self.pushes(lane) {
                bodies.push(body);
                kept.push(push);
            }
        }
        (self.kept, self.kept_bodies) = (kept, bodies);
    }

    /// The pushes lane `lane`'s touching contacts ended the step with, for the next step, each
    /// with the awake index of the key's body (the group's first body, or its second when the
    /// contact's normal was turned): the normal push, and the friction push on the key's body,
    /// in the world.
    fn pushes(&self, lane: usize) -> impl Iterator<Item = (u32, ContactImpulse)> + '_ {
        self.lanes[lane]
            .kept
            .iter()
            .filter_map(move |&(key, slot, sign)| {
                let [normal, first, second] = &self.contacts[slot as usize];
                let push = normal.impulse.as_array_ref()[lane];
                (push > 0.0).then(|| {
                    let rub = math::add(
                        math::scale(
                            get(&first.direction, lane),
                            first.impulse.as_array_ref()[lane],
                        ),
                        math::scale(
                            get(&second.direction, lane),
                            second.impulse.as_array_ref()[lane],
                        ),
                    );
                    let body = if sign > 0.0 {
                        self.a[lane]
                    } else {
                        self.b[lane]
                    };
                    let push = ContactImpulse {
                        key,
                        normal: push,
                        friction: math::scale(rub, sign),
                    };
                    (body, push)
                })
            })
    }

    /// The whole push of each of lane `lane`'s contacts (its normal row's and its friction
    /// rows' along their directions), in its group's contact order, on the group's first body.
    pub fn contact_pushes(&self, lane: usize) -> impl Iterator<Item = Vector> + '_ {
        self.contacts[..self.lanes[lane].contacts as usize]
            .iter()
            .map(move |rows| {
                rows.iter().fold(math::ZERO, |push, row| {
                    let impulse = row.impulse.as_array_ref()[lane];
                    math::add(push, math::scale(get(&row.direction, lane), impulse))
                })
            })
    }

    /// Whether each of lane `lane`'s contacts struck (its group bounced from it), in order.
    pub fn strikes(&self, lane: usize) -> impl Iterator<Item = bool> + '_ {
        self.bounces[..self.lanes[lane].contacts as usize]
            .iter()
            .map(move |bounce| bounce.as_array_ref()[lane] > 0.0)
    }

    /// The sum of the pushes of lane `lane`'s normal rows, newton seconds.
    fn normal_impulse(&self, lane: usize) -> f64 {
        self.contacts[..self.lanes[lane].contacts as usize]
            .iter()
            .map(|[normal, _, _]| normal.impulse.as_array_ref()[lane])
            .sum()
    }
}

/// Four `f64` lanes and what a pass does with them, by `wide`'s rules: no fused multiply-add;
/// `max` and `min` keep `self` where `rhs` is NaN; negation is `0 − x` (so −(+0) is +0). The
/// one kernel ([`solve_pass`]) runs on `wide`'s portable lanes and on AVX registers
/// ([`avx`]); the same operations in the same order give the same bits on both.
trait Lanes: Copy {
    fn load(wide: &Wide) -> Self;
    fn store(self, wide: &mut Wide);
    fn splat(value: f64) -> Self;
    fn add(self, rhs: Self) -> Self;
    fn sub(self, rhs: Self) -> Self;
    fn mul(self, rhs: Self) -> Self;
    fn max(self, rhs: Self) -> Self;
    fn min(self, rhs: Self) -> Self;
    fn neg(self) -> Self;
}

impl Lanes for Wide {
    #[inline(always)]
    fn load(wide: &Wide) -> Self {
        *wide
    }
    #[inline(always)]
    fn store(self, wide: &mut Wide) {
        *wide = self;
    }
    #[inline(always)]
    fn splat(value: f64) -> Self {
        Wide::splat(value)
    }
    #[inline(always)]
    fn add(self, rhs: Self) -> Self {
        self + rhs
    }
    #[inline(always)]
    fn sub(self, rhs: Self) -> Self {
        self - rhs
    }
    #[inline(always)]
    fn mul(self, rhs: Self) -> Self {
        self * rhs
    }
    #[inline(always)]
    fn max(self, rhs: Self) -> Self {
        Wide::max(self, rhs)
    }
    #[inline(always)]
    fn min(self, rhs: Self) -> Self {
        Wide::min(self, rhs)
    }
    #[inline(always)]
    fn neg(self) -> Self {
        -self
    }
}

/// A [`WideVector`] in lanes `L`: an axis each.
type LaneVector<L> = [L; 3];

#[inline(always)]
fn load_vector<L: Lanes>(wide: &WideVector) -> LaneVector<L> {
    [L::load(&wide[0]), L::load(&wide[1]), L::load(&wide[2])]
}

#[inline(always)]
fn store_vector<L: Lanes>(wide: &mut WideVector, value: LaneVector<L>) {
    for (axis, part) in value.into_iter().enumerate() {
        part.store(&mut wide[axis]);
    }
}

/// `a·b` summed as `(a₀b₀ + a₁b₁) + a₂b₂`.
#[inline(always)]
fn lane_dot<L: Lanes>(a: &LaneVector<L>, b: &LaneVector<L>) -> L {
    a[0].mul(b[0]).add(a[1].mul(b[1])).add(a[2].mul(b[2]))
}

/// `v + d · s` per axis.
#[inline(always)]
fn lane_add_scaled<L: Lanes>(v: &mut LaneVector<L>, d: &LaneVector<L>, s: L) {
    for axis in 0..3 {
        v[axis] = v[axis].add(d[axis].mul(s));
    }
}

/// One row worked in every lane: the push that brings the row's speed to its target, kept
/// within `low..=high` in all (the accumulated impulse), and its change given to the two
/// bodies' velocities and angular velocities (`[velocity_a, spin_a, velocity_b, spin_b]`).
#[inline(always)]
fn solve_row<L: Lanes>(
    row: &mut WideRow,
    (low, high): (L, L),
    (inverse_mass_a, inverse_mass_b): (L, L),
    [velocity_a, spin_a, velocity_b, spin_b]: &mut [LaneVector<L>; 4],
) {
    let direction = load_vector(&row.direction);
    let relative = [0, 1, 2].map(|axis| velocity_a[axis].sub(velocity_b[axis]));
    let speed = lane_dot(&direction, &relative)
        .add(lane_dot(&load_vector(&row.angular_a), spin_a))
        .sub(lane_dot(&load_vector(&row.angular_b), spin_b));
    let old = L::load(&row.impulse);
    let wanted = old.add(L::load(&row.target).sub(speed).mul(L::load(&row.mass)));
    let new = wanted.max(low).min(high);
    let change = new.sub(old);
    new.store(&mut row.impulse);
    lane_add_scaled(velocity_a, &direction, inverse_mass_a.mul(change));
    lane_add_scaled(spin_a, &load_vector(&row.turn_a), change);
    lane_add_scaled(velocity_b, &direction, inverse_mass_b.mul(change).neg());
    lane_add_scaled(spin_b, &load_vector(&row.turn_b), change.neg());
}

/// One pass of `bundle`'s rows in lanes `L` ([`Bundle::solve_once`]): written once for every
/// kind of lane.
#[inline(always)]
fn solve_pass<L: Lanes>(bundle: &mut Bundle) {
    let masses = (
        L::load(&bundle.inverse_mass_a),
        L::load(&bundle.inverse_mass_b),
    );
    let mut state = [
        load_vector(&bundle.velocity_a),
        load_vector(&bundle.spin_a),
        load_vector(&bundle.velocity_b),
        load_vector(&bundle.spin_b),
    ];
    let friction = L::splat(FRICTION);
    let pushes_only = (L::splat(0.0), L::splat(f64::INFINITY));
    let backward = bundle.backward();
    if backward {
        for [normal, _, _] in bundle.contacts.iter_mut().rev() {
            solve_row(normal, pushes_only, masses, &mut state);
        }
        for [normal, first, second] in &mut bundle.contacts {
            let most = friction.mul(L::load(&normal.impulse));
            let limits = (most.neg(), most);
            solve_row(first, limits, masses, &mut state);
            solve_row(second, limits, masses, &mut state);
        }
    } else {
        for [normal, first, second] in &mut bundle.contacts {
            solve_row(normal, pushes_only, masses, &mut state);
            let most = friction.mul(L::load(&normal.impulse));
            let limits = (most.neg(), most);
            solve_row(first, limits, masses, &mut state);
            solve_row(second, limits, masses, &mut state);
        }
    }
    if bundle.bouncing {
        solve_row(&mut bundle.bounce_row, pushes_only, masses, &mut state);
    }
    let [velocity_a, spin_a, velocity_b, spin_b] = state;
    store_vector(&mut bundle.velocity_a, velocity_a);
    store_vector(&mut bundle.spin_a, spin_a);
    store_vector(&mut bundle.velocity_b, velocity_b);
    store_vector(&mut bundle.spin_b, spin_b);
}

/// The passes with AVX: [`solve_pass`] with one instruction for each operation on four lanes, where `wide` in a
/// build for any x86-64 takes two. Found at run time (a build for any x86-64 runs on any), and
/// bitwise the same as the portable pass: the same IEEE operations in the same order, no
/// fused multiply-add, and `wide`'s rules for NaN in `max` and `min` and for negation
/// (`0 − x`).
#[cfg(target_arch = "x86_64")]
mod avx {
    use std::arch::x86_64::{
        __m256d, _mm256_add_pd, _mm256_blendv_pd, _mm256_cmp_pd, _mm256_loadu_pd, _mm256_max_pd,
        _mm256_min_pd, _mm256_mul_pd, _mm256_set1_pd, _mm256_setzero_pd, _mm256_storeu_pd,
        _mm256_sub_pd, _CMP_UNORD_Q,
    };

    use super::{solve_pass, Bundle, Lanes, Wide};

    /// Four lanes in one AVX register. Made only inside [`solve_once`], which runs only where
    /// the processor has AVX: what each of its operations asks of the processor is there.
    #[derive(Clone, Copy)]
    struct Avx(__m256d);

    /// Whether this processor has AVX (the answer is cached by the standard library).
    #[inline]
    pub(super) fn available() -> bool {
        std::arch::is_x86_feature_detected!("avx")
    }

    impl Lanes for Avx {
        #[inline(always)]
        fn load(wide: &Wide) -> Self {
            // SAFETY: AVX is there (see `Avx`); four `f64` in a row, read unaligned.
            Avx(unsafe { _mm256_loadu_pd(wide.as_array_ref().as_ptr()) })
        }
        #[inline(always)]
        fn store(self, wide: &mut Wide) {
            // SAFETY: AVX is there (see `Avx`); four `f64` in a row, written unaligned.
            unsafe { _mm256_storeu_pd(wide.as_array_mut().as_mut_ptr(), self.0) };
        }
        #[inline(always)]
        fn splat(value: f64) -> Self {
            // SAFETY: AVX is there (see `Avx`).
            Avx(unsafe { _mm256_set1_pd(value) })
        }
        #[inline(always)]
        fn add(self, rhs: Self) -> Self {
            // SAFETY: AVX is there (see `Avx`).
            Avx(unsafe { _mm256_add_pd(self.0, rhs.0) })
        }
        #[inline(always)]
        fn sub(self, rhs: Self) -> Self {
            // SAFETY: AVX is there (see `Avx`).
            Avx(unsafe { _mm256_sub_pd(self.0, rhs.0) })
        }
        #[inline(always)]
        fn mul(self, rhs: Self) -> Self {
            // SAFETY: AVX is there (see `Avx`).
            Avx(unsafe { _mm256_mul_pd(self.0, rhs.0) })
        }
        /// `wide`'s `max`: `rhs` NaN gives `self`, else the instruction's.
        #[inline(always)]
        fn max(self, rhs: Self) -> Self {
            // SAFETY: AVX is there (see `Avx`).
            Avx(unsafe {
                let nan = _mm256_cmp_pd::<_CMP_UNORD_Q>(rhs.0, rhs.0);
                _mm256_blendv_pd(_mm256_max_pd(self.0, rhs.0), self.0, nan)
            })
        }
        /// `wide`'s `min`, likewise.
        #[inline(always)]
        fn min(self, rhs: Self) -> Self {
            // SAFETY: AVX is there (see `Avx`).
            Avx(unsafe {
                let nan = _mm256_cmp_pd::<_CMP_UNORD_Q>(rhs.0, rhs.0);
                _mm256_blendv_pd(_mm256_min_pd(self.0, rhs.0), self.0, nan)
            })
        }
        /// `wide`'s negation, `0 − x`.
        #[inline(always)]
        fn neg(self) -> Self {
            // SAFETY: AVX is there (see `Avx`).
            Avx(unsafe { _mm256_sub_pd(_mm256_setzero_pd(), self.0) })
        }
    }

    /// [`Bundle::solve_once`] with AVX: only for a processor that has it ([`available`]).
    #[target_feature(enable = "avx")]
    pub(super) fn solve_once(bundle: &mut Bundle) {
        solve_pass::<Avx>(bundle);
    }
}

/// The awake bodies' velocities and spins while the rows are solved, by awake index, shared
/// by the threads. A bundle reads and writes only its own bodies and the bundles of one stage
/// share none; the stages order the rest (`WorkerPool::for_each_in_stages`). So relaxed
/// atomics, plain loads and stores on x86-64, are all the sharing needs, and every thread sees
/// exactly what one thread alone would.
#[derive(Debug, Default)]
pub(crate) struct Velocities {
    values: Vec<Slot>,
}

/// One body's velocity and spin, alone on its cache line: two threads working different
/// bodies never write the same line (no false sharing between the bundles of a stage).
#[derive(Debug, Default)]
#[repr(align(64))]
struct Slot([AtomicU64; 6]);

impl Velocities {
    /// Holds `values` (velocity, spin), by awake index.
    pub fn fill(&mut self, values: impl ExactSizeIterator<Item = (Vector, Vector)>) {
        self.values.clear();
        self.values.reserve(values.len());
        for (velocity, spin) in values {
            let [x, y, z] = velocity.map(f64::to_bits);
            let [i, j, k] = spin.map(f64::to_bits);
            self.values
                .push(Slot([x, y, z, i, j, k].map(AtomicU64::new)));
        }
    }

    /// Awake body `index`'s velocity and spin.
    #[inline]
    pub fn get(&self, index: usize) -> (Vector, Vector) {
        let value = &self.values[index].0;
        let read = |at: usize| f64::from_bits(value[at].load(Ordering::Relaxed));
        ([read(0), read(1), read(2)], [read(3), read(4), read(5)])
    }

    /// Awake body `index`'s, or zero for [`NONE`] (nothing, or a fixed side).
    #[inline]
    fn get_or_zero(&self, index: u32) -> (Vector, Vector) {
        if index == NONE {
            ([0.0; 3], [0.0; 3])
        } else {
            self.get(index as usize)
        }
    }

    #[inline]
    fn set(&self, index: usize, velocity: Vector, spin: Vector) {
        let value = &self.values[index].0;
        for (at, part) in velocity.into_iter().chain(spin).enumerate() {
            value[at].store(part.to_bits(), Ordering::Relaxed);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::random::Rng;
    use crate::rows::ContactRows;

    /// A bundle of four groups of up to `most` contacts with rows of random numbers (some
    /// zero, some −0, a few NaN), and its bodies' velocities, made the same way from the same
    /// seed.
    fn random_bundle(seed: u64, most: usize) -> Bundle {
        let mut rng = Rng::new(seed);
        let number = |rng: &mut Rng| match rng.below(64) {
            0..4 => 0.0,
            4..8 => -0.0,
            8 => f64::NAN,
            _ => rng.float(-10.0, 10.0),
        };
        let vector = |rng: &mut Rng| [number(rng), number(rng), number(rng)];
        let mut bundle = Bundle::default();
        bundle.assign(0..4, most);
        bundle.clear();
        let mut velocities = Velocities::default();
        velocities.fill((0..7).map(|_| (vector(&mut rng), vector(&mut rng))));
        for lane in 0..LANES {
            // Lane 3 pushes against something fixed.
            let b = if lane == 3 { NONE } else { lane as u32 + 4 };
            bundle.set_group(lane, (lane as u32, b), (0, NONE), 0.5, 0.25);
            for _ in 0..(most - lane % 2) {
                let mut row = || Row {
                    direction: vector(&mut rng),
                    angular_a: vector(&mut rng),
                    angular_b: vector(&mut rng),
                    turn_a: vector(&mut rng),
                    turn_b: vector(&mut rng),
                    mass: number(&mut rng).abs(),
                    target: number(&mut rng),
                    impulse: number(&mut rng).abs(),
                };
                let rows = ContactRows {
                    rows: [row(), row(), row()],
                    touching: true,
                    bounce: number(&mut rng).abs(),
                    starts_even: false,
                };
                bundle.push_contact(lane, &rows, None, 1.0);
            }
            bundle.end_group(lane);
        }
        bundle.load(&velocities);
        bundle
    }

    fn bits(bundle: &Bundle) -> Vec<u64> {
        let mut all = Vec::new();
        let mut wide = |value: &Wide| all.extend(value.as_array_ref().map(f64::to_bits));
        for row in bundle.contacts.iter().flatten() {
            wide(&row.impulse);
        }
        for vector in [
            &bundle.velocity_a,
            &bundle.spin_a,
            &bundle.velocity_b,
            &bundle.spin_b,
        ] {
            vector.iter().for_each(&mut wide);
        }
        all
    }

    #[test]
    #[cfg(target_arch = "x86_64")]
    fn the_avx_passes_give_the_portable_passes_bits() {
        if !avx::available() {
            eprintln!("no AVX on this processor: only the portable passes run here");
            return;
        }
        for seed in 1..40 {
            let mut portable = random_bundle(seed, 1 + seed as usize % 5);
            let mut wide = random_bundle(seed, 1 + seed as usize % 5);
            assert_eq!(bits(&portable), bits(&wide));
            for _ in 0..ITERATIONS {
                portable.solve_once_portable();
                // SAFETY: the processor has AVX (checked above).
                unsafe { avx::solve_once(&mut wide) };
            }
            let (portable, wide) = (bits(&portable), bits(&wide));
            assert_eq!(portable, wide, "seed {seed}");
            // The passes did something.
            let start = random_bundle(seed, 1 + seed as usize % 5);
            assert_ne!(bits(&start), portable, "seed {seed}");
        }
    }
}
