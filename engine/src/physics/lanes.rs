//! Wide rows: the groups of one colour solved [`LANES`] at a time.
//!
//! Solving a row waits on the row before it: its speed is read from the velocities the last
//! row changed. One group after another, the processor spends most of a pass waiting on that
//! chain. Groups of one colour share no awake body (see `solver`), so they can be worked at
//! the same time: a [`Bundle`] holds up to four of them side by side, one per lane, and each
//! instruction of the pass does the same step for all four.
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

use std::sync::atomic::{AtomicU64, Ordering};

use wide::f64x4;

use super::contacts::NONE;
use super::math::Vector;
use super::rows::Group;
use super::tuning::FRICTION;

/// Groups solved side by side.
pub(crate) const LANES: usize = 4;

type Wide = f64x4;
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

/// Up to [`LANES`] groups of one colour, their rows side by side, and their bodies'
/// velocities while they are solved.
#[derive(Debug, Default)]
pub(crate) struct Bundle {
    /// The index of the group in each lane; [`NONE`] for an empty lane.
    pub groups: [u32; LANES],
    /// Each lane's bodies, by awake index ([`NONE`]: none, or fixed).
    a: [u32; LANES],
    b: [u32; LANES],
    inverse_mass_a: Wide,
    inverse_mass_b: Wide,
    contacts: Vec<WideContact>,
    /// How many of its stages it has worked this step: the first applies the pushes its rows
    /// start with, each later one is a pass.
    stage: u32,
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

impl Bundle {
    /// Takes the groups `lanes` (indices into the groups, at most [`LANES`], none sharing an
    /// awake body) for [`Bundle::pack`].
    pub fn assign(&mut self, lanes: &[u32]) {
        debug_assert!(!lanes.is_empty() && lanes.len() <= LANES);
        self.groups = [NONE; LANES];
        self.groups[..lanes.len()].copy_from_slice(lanes);
    }

    /// Lays out its groups' rows side by side, with the pushes they start with.
    pub fn pack(&mut self, groups: &[Group]) {
        self.stage = 0;
        self.a = [NONE; LANES];
        self.b = [NONE; LANES];
        self.inverse_mass_a = Wide::ZERO;
        self.inverse_mass_b = Wide::ZERO;
        let lanes = self.groups.iter().take_while(|&&index| index != NONE);
        let most = lanes
            .clone()
            .map(|&index| groups[index as usize].rows.len() / 3)
            .max()
            .unwrap_or(0);
        self.contacts.clear();
        self.contacts.resize(most, [WideRow::EMPTY; 3]);
        for (lane, &index) in lanes.enumerate() {
            let group = &groups[index as usize];
            self.a[lane] = group.a;
            self.b[lane] = group.b;
            let moving_b = group.b != NONE;
            self.inverse_mass_a.as_array_mut()[lane] = group.inverse_mass_a;
            if moving_b {
                self.inverse_mass_b.as_array_mut()[lane] = group.inverse_mass_b;
            }
            let rows = &group.rows;
            for (at, row) in self
                .contacts
                .iter_mut()
                .flatten()
                .take(rows.len())
                .enumerate()
            {
                set(&mut row.direction, lane, rows.direction[at]);
                set(&mut row.angular_a, lane, rows.angular_a[at]);
                set(&mut row.turn_a, lane, rows.turn_a[at]);
                if moving_b {
                    set(&mut row.angular_b, lane, rows.angular_b[at]);
                    set(&mut row.turn_b, lane, rows.turn_b[at]);
                }
                row.mass.as_array_mut()[lane] = rows.mass[at];
                row.target.as_array_mut()[lane] = rows.target[at];
                row.impulse.as_array_mut()[lane] = rows.impulse[at];
            }
        }
    }

    /// Its next stage of the solve: its bodies' velocities loaded, the pushes its rows start
    /// with applied (the first time) or one pass over its rows, the velocities stored.
    pub fn work(&mut self, velocities: &Velocities) {
        self.load(velocities);
        if self.stage == 0 {
            self.apply_start();
        } else {
            self.solve_once();
        }
        self.store(velocities);
        self.stage += 1;
    }

    /// How many rows it works per pass, empty ones included.
    pub fn rows(&self) -> usize {
        self.contacts.len() * 3 * LANES
    }

    /// Copies its bodies' velocities in.
    #[inline]
    fn load(&mut self, velocities: &Velocities) {
        for lane in 0..LANES {
            let (velocity, spin) = velocities.get_or_zero(self.a[lane]);
            set(&mut self.velocity_a, lane, velocity);
            set(&mut self.spin_a, lane, spin);
            let (velocity, spin) = velocities.get_or_zero(self.b[lane]);
            set(&mut self.velocity_b, lane, velocity);
            set(&mut self.spin_b, lane, spin);
        }
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

    /// Applies the pushes the rows start with (warm starting) to the velocities it holds.
    fn apply_start(&mut self) {
        let (inverse_mass_a, inverse_mass_b) = (self.inverse_mass_a, self.inverse_mass_b);
        for row in self.contacts.iter().flatten() {
            let push = row.impulse;
            add_scaled(&mut self.velocity_a, &row.direction, inverse_mass_a * push);
            add_scaled(&mut self.spin_a, &row.turn_a, push);
            add_scaled(
                &mut self.velocity_b,
                &row.direction,
                -(inverse_mass_b * push),
            );
            add_scaled(&mut self.spin_b, &row.turn_b, -push);
        }
    }

    /// One pass over its rows, each lane's in its group's order, on the velocities it holds.
    fn solve_once(&mut self) {
        let (inverse_mass_a, inverse_mass_b) = (self.inverse_mass_a, self.inverse_mass_b);
        let mut velocity_a = self.velocity_a;
        let mut spin_a = self.spin_a;
        let mut velocity_b = self.velocity_b;
        let mut spin_b = self.spin_b;
        let friction = Wide::splat(FRICTION);
        for [normal, first, second] in &mut self.contacts {
            let mut solve = |row: &mut WideRow, low: Wide, high: Wide| {
                let relative = [
                    velocity_a[0] - velocity_b[0],
                    velocity_a[1] - velocity_b[1],
                    velocity_a[2] - velocity_b[2],
                ];
                let speed = dot(&row.direction, &relative) + dot(&row.angular_a, &spin_a)
                    - dot(&row.angular_b, &spin_b);
                let old = row.impulse;
                let wanted = old + (row.target - speed) * row.mass;
                let new = wanted.max(low).min(high);
                let change = new - old;
                row.impulse = new;
                add_scaled(&mut velocity_a, &row.direction, inverse_mass_a * change);
                add_scaled(&mut spin_a, &row.turn_a, change);
                add_scaled(&mut velocity_b, &row.direction, -(inverse_mass_b * change));
                add_scaled(&mut spin_b, &row.turn_b, -change);
            };
            solve(normal, Wide::ZERO, Wide::splat(f64::INFINITY));
            let most = friction * normal.impulse;
            solve(first, -most, most);
            solve(second, -most, most);
        }
        self.velocity_a = velocity_a;
        self.spin_a = spin_a;
        self.velocity_b = velocity_b;
        self.spin_b = spin_b;
    }

    /// The pushes lane `lane`'s rows ended with, into its group's `impulse`.
    pub fn unpack(&self, lane: usize, impulse: &mut [f64]) {
        for (value, row) in impulse.iter_mut().zip(self.contacts.iter().flatten()) {
            *value = row.impulse.as_array_ref()[lane];
        }
    }
}

/// The awake bodies' velocities and spins while the rows are solved, by awake index, shared
/// by the threads. A bundle reads and writes only its own bodies and the bundles of one stage
/// share none; the stages order the rest (`WorkerPool::for_each_in_stages`). So relaxed
/// atomics, plain loads and stores on x86-64, are all the sharing needs, and every thread sees
/// exactly what one thread alone would.
#[derive(Debug, Default)]
pub(crate) struct Velocities {
    values: Vec<[AtomicU64; 6]>,
}

impl Velocities {
    /// Holds `values` (velocity, spin), by awake index.
    pub fn fill(&mut self, values: impl ExactSizeIterator<Item = (Vector, Vector)>) {
        self.values.clear();
        self.values.reserve(values.len());
        for (velocity, spin) in values {
            let [x, y, z] = velocity.map(f64::to_bits);
            let [i, j, k] = spin.map(f64::to_bits);
            self.values.push([x, y, z, i, j, k].map(AtomicU64::new));
        }
    }

    /// Awake body `index`'s velocity and spin.
    #[inline]
    pub fn get(&self, index: usize) -> (Vector, Vector) {
        let value = &self.values[index];
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
        let value = &self.values[index];
        for (at, part) in velocity.into_iter().chain(spin).enumerate() {
            value[at].store(part.to_bits(), Ordering::Relaxed);
        }
    }
}
