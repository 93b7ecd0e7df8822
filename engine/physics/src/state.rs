//! The state of a [`PhysicsWorld`] as plain data, to save it and to carry on from it exactly.
//!
//! A step is a function of the bodies' moving state (where, how turned, how fast, resting and
//! its clocks), of their dense order (the order every serial part of the step walks) and of the
//! time not yet stepped; everything else a body holds (mass, inertia, points, clusters) follows
//! from its [`BodyDesc`], and the step's buffers are rebuilt every step. So a [`PhysicsState`]
//! keeps those and the handle table (generations and free slots, so that later bodies get the
//! handles they would have got), and [`PhysicsWorld::restore`] rebuilds the rest from the
//! descriptions: stepping the restored world gives the same bits as stepping the original.

use serde::{Deserialize, Serialize};

use super::body::{Bodies, BodyDesc, BodyHandle, MassProperties};
use super::error::PhysicsError;
use super::manifolds::KeptManifold;
use super::math::{self, Quaternion, Vector};
use super::tuning::{EDGE, MOST_ANGULAR_SPEED, MOST_SPEED, STEP};
use super::warm::{ContactImpulse, OTHER_POINT};
use super::world::PhysicsWorld;
use crate::bounded;
use crate::workers::WorkerPool;

/// The most bodies a world holds at once, and so the most slots of its handle table (a slot is
/// made only when no free one is left). A saved state with more is refused as it is read; the
/// game keeps its pieces under it (forty times the physics benchmark's heap of 400).
pub const MOST_BODIES: usize = 16_384;

/// The most contact pushes a saved state may keep: 128 touching contacts for each of
/// [`MOST_BODIES`] bodies (a resting cube touches with 4 to 8), some 100 MiB.
pub const MOST_CONTACT_IMPULSES: usize = 1 << 21;

/// The most kept manifolds a saved state may hold: 16 pairs for each of [`MOST_BODIES`] bodies.
pub const MOST_KEPT_MANIFOLDS: usize = 1 << 18;

crate::most!(
    /// The handle table's slots ([`MOST_BODIES`]).
    BodySlots,
    MOST_BODIES,
    "body slots"
);
crate::most!(
    /// The bodies ([`MOST_BODIES`]).
    BodyCount,
    MOST_BODIES,
    "bodies"
);
crate::most!(
    /// The contact pushes ([`MOST_CONTACT_IMPULSES`]).
    ContactImpulses,
    MOST_CONTACT_IMPULSES,
    "contact pushes"
);
crate::most!(
    /// The kept manifolds ([`MOST_KEPT_MANIFOLDS`]).
    KeptManifolds,
    MOST_KEPT_MANIFOLDS,
    "kept manifolds"
);

/// What a step changes of one body.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct BodyState {
    pub handle: BodyHandle,
    /// Where the centre of mass is in the world.
    pub position: [f64; 3],
    /// `[x, y, z, w]`, unit length.
    pub orientation: [f64; 4],
    pub velocity: [f64; 3],
    /// Angular velocity, world frame, radians per second.
    pub angular_velocity: [f64; 3],
    pub sleeping: bool,
    /// Seconds it has been touching and slow.
    pub still: f64,
    /// Seconds it has touched something since it was added or woken.
    pub age: f64,
    /// Contacts that touched it in its last step.
    pub touching: u32,
}

/// A whole [`PhysicsWorld`]'s state: what a step changes of each body, the handle table, the
/// time not yet stepped and the contacts' pushes; a restored world steps to the same bits.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PhysicsState {
    /// Seconds given to [`PhysicsWorld::advance`] and not yet stepped, in `[0, STEP)`.
    pub time: f64,
    /// The generation of every slot of the handle table, used or free.
    #[serde(deserialize_with = "bounded::vec::<_, _, BodySlots>")]
    pub generations: Vec<u32>,
    /// Free slots, in the order they are reused from the back.
    #[serde(deserialize_with = "bounded::vec::<_, _, BodySlots>")]
    pub free: Vec<u32>,
    /// The bodies in dense order.
    #[serde(deserialize_with = "bounded::vec::<_, _, BodyCount>")]
    pub bodies: Vec<BodyState>,
    /// The pushes last step's touching contacts ended with, in key order: the next step starts
    /// from them (warm starting, see [`ContactImpulse`]). Not part of this struct's serde form:
    /// saves made before warm starting have none, so a save keeps them after everything else
    /// (`WorldSave`, format version 2) and an older save loads with none, starting cold.
    #[serde(skip)]
    pub contacts: Vec<ContactImpulse>,
    /// The manifolds the pairs of bodies keep (`manifolds`), body by body in dense order: the
    /// next step places their contacts again instead of finding them. Not part of this
    /// struct's serde form either: a save keeps them after the contact pushes (format version
    /// 3), and an older save loads with none, finding every pair's contacts afresh.
    #[serde(skip)]
    pub manifolds: Vec<KeptManifold>,
}

impl PhysicsWorld {
    /// The state to save: see [`PhysicsState`].
    pub fn state(&self) -> PhysicsState {
        let bodies = &self.bodies;
        PhysicsState {
            time: self.time,
            generations: bodies.generations(),
            free: bodies.free_slots().to_vec(),
            bodies: (0..bodies.len())
                .map(|dense| BodyState {
                    handle: bodies.handle(dense),
                    position: bodies.motion.position[dense],
                    orientation: bodies.motion.orientation[dense],
                    velocity: bodies.motion.velocity[dense],
                    angular_velocity: bodies.motion.angular_velocity[dense],
                    sleeping: bodies.sleep.sleeping[dense],
                    still: bodies.sleep.still[dense],
                    age: bodies.sleep.age[dense],
                    touching: bodies.sleep.touching[dense],
                })
                .collect(),
            contacts: self.warm.pushes(),
            manifolds: (0..bodies.len())
                .flat_map(|dense| bodies.kept.manifolds[dense].saved(bodies.handle(dense)))
                .collect(),
        }
    }

    /// A world in `state`, each body built from its description in `descs` (the same order as
    /// `state.bodies`: the description the body was added with). Refuses a state that does
    /// not hold together: a handle table whose slots are used twice or out of range, a body a
    /// step could not have left ([`BodyState::check`]: not finite, outside the world, too
    /// fast, not of unit length), a time outside a step.
    pub fn restore(
        pool: WorkerPool,
        state: &PhysicsState,
        descs: &[BodyDesc],
    ) -> Result<Self, PhysicsError> {
        let bad = |reason: String| Err(PhysicsError::BadState(reason));
        if !(state.time.is_finite() && (0.0..STEP).contains(&state.time)) {
            return bad(format!(
                "the time not yet stepped, {}, is not in [0, {STEP})",
                state.time
            ));
        }
        if descs.len() != state.bodies.len() {
            return bad(format!(
                "{} bodies but {} descriptions",
                state.bodies.len(),
                descs.len()
            ));
        }
        let slots = state.generations.len();
        let mut used = vec![false; slots];
        for (dense, body) in state.bodies.iter().enumerate() {
            let slot = body.handle.index() as usize;
            if slot >= slots || used[slot] {
                return bad(format!(
                    "body {dense} is in slot {slot}, which is out of range or taken"
                ));
            }
            used[slot] = true;
            if state.generations[slot] != body.handle.generation() {
                return bad(format!("body {dense}'s handle has the wrong generation"));
            }
            check_body(dense, body)?;
        }
        for &slot in &state.free {
            let slot = slot as usize;
            if slot >= slots || used[slot] {
                return bad(format!(
                    "free slot {slot} is out of range, taken or listed twice"
                ));
            }
            used[slot] = true;
        }
        let mut world = PhysicsWorld::new(pool);
        world.time = state.time;
        world.bodies = Bodies::with_generations(&state.generations);
        for (body, desc) in state.bodies.iter().zip(descs) {
            let properties = MassProperties::of(desc)?;
            let dense = world.bodies.insert_in(
                body.handle.index(),
                properties,
                &desc.points,
                &desc.around,
            )?;
            let bodies = &mut world.bodies;
            bodies.motion.position[dense] = body.position;
            bodies.motion.orientation[dense] = body.orientation;
            bodies.motion.velocity[dense] = body.velocity;
            bodies.motion.angular_velocity[dense] = body.angular_velocity;
            bodies.sleep.sleeping[dense] = body.sleeping;
            bodies.sleep.still[dense] = body.still;
            bodies.sleep.age[dense] = body.age;
            bodies.sleep.touching[dense] = body.touching;
        }
        world.bodies.set_free(state.free.clone());
        for (index, push) in state.contacts.iter().enumerate() {
            let live = |handle: BodyHandle| world.bodies.dense(handle).is_some();
            if !(live(push.key.body) && push.key.other.is_none_or(live)) {
                return bad(format!(
                    "contact {index} is of a body that is not in the world"
                ));
            }
            if !(push.normal.is_finite() && push.normal >= 0.0 && math::finite(push.friction)) {
                return bad(format!(
                    "contact {index}'s pushes ({}, {:?}) are not finite newton seconds",
                    push.normal, push.friction
                ));
            }
        }
        world.warm.restore(&state.contacts);
        for (index, manifold) in state.manifolds.iter().enumerate() {
            let dense = check_manifold(&world.bodies, manifold).map_err(|reason| {
                PhysicsError::BadState(format!("kept manifold {index} {reason}"))
            })?;
            world.bodies.kept.manifolds[dense].restore(manifold);
        }
        Ok(world)
    }
}

/// The dense index of a saved manifold's body, if the manifold could have been kept in this
/// world: both bodies in it, every number finite, the normals of unit length, every point one
/// of its body's.
fn check_manifold(bodies: &Bodies, manifold: &KeptManifold) -> Result<usize, String> {
    let (Some(dense), Some(other)) = (bodies.dense(manifold.body), bodies.dense(manifold.other))
    else {
        return Err("is of a body that is not in the world".into());
    };
    if dense == other {
        return Err("pairs a body with itself".into());
    }
    if !(manifold.turn.iter().all(|row| math::finite(*row)) && math::finite(manifold.shift)) {
        return Err("has a pose that is not finite".into());
    }
    for (index, contact) in manifold.contacts.iter().enumerate() {
        let owner = if contact.others_point { other } else { dense };
        let flipped = contact.point & OTHER_POINT != 0;
        let point = (contact.point & !OTHER_POINT) as usize;
        if point >= bodies.offsets_of(owner).len() || (flipped && !contact.others_point) {
            return Err(format!("names point {} of no body's", contact.point));
        }
        let unit = (math::length(contact.normal) - 1.0).abs() < 1e-6;
        if !(math::finite(contact.surface) && math::finite(contact.normal) && unit) {
            return Err(format!("has contact {index} off its surface"));
        }
    }
    Ok(dense)
}

fn check_body(dense: usize, body: &BodyState) -> Result<(), PhysicsError> {
    body.check()
        .map_err(|reason| PhysicsError::BadState(format!("body {dense}'s {reason}")))
}

/// A number as a message shows it: plainly when it is of everyday size, in exponent form
/// (`1e300`, `3e38`) when it is huge or tiny, so that a refusal names the value read.
pub fn shown<T>(value: T) -> String
where
    T: Copy + Into<f64> + std::fmt::Display + std::fmt::LowerExp,
{
    let size = value.into().abs();
    if size.is_finite() && size != 0.0 && !(1e-4..1e7).contains(&size) {
        format!("{value:e}")
    } else {
        format!("{value}")
    }
}

/// How far past a speed limit a saved speed may be: the rounding of the step's own scaling to
/// the limit (a relative 1e-12), never a real overshoot.
const ROUNDING: f64 = 1e-12;

impl BodyState {
    /// Whether this is a state a step could have left: position finite and within the world
    /// ([`EDGE`]), velocity and spin finite and within [`MOST_SPEED`] and [`MOST_ANGULAR_SPEED`], the
    /// orientation of unit length, the clocks finite and not negative. The reason names the
    /// first value that is not (`position x = 1e300 is outside the world (±524288 m)`).
    pub fn check(&self) -> Result<(), String> {
        const AXES: [&str; 3] = ["x", "y", "z"];
        let vectors: [(&str, Vector); 3] = [
            ("position", self.position),
            ("velocity", self.velocity),
            ("spin", self.angular_velocity),
        ];
        for (field, value) in vectors {
            if let Some(axis) = value.iter().position(|c| !c.is_finite()) {
                return Err(format!(
                    "{field} {} = {} is not finite",
                    AXES[axis], value[axis]
                ));
            }
        }
        if let Some(axis) = self.position.iter().position(|c| c.abs() > EDGE) {
            return Err(format!(
                "position {} = {} is outside the world (±{EDGE} m)",
                AXES[axis],
                shown(self.position[axis])
            ));
        }
        let speed = math::length(self.velocity);
        if speed > MOST_SPEED * (1.0 + ROUNDING) {
            return Err(format!(
                "velocity {:?} is {} m/s, faster than the {MOST_SPEED} m/s a body may move",
                self.velocity.map(shown),
                shown(speed)
            ));
        }
        let spin = math::length(self.angular_velocity);
        if spin > MOST_ANGULAR_SPEED * (1.0 + ROUNDING) {
            return Err(format!(
                "spin {:?} is {} rad/s, faster than the {MOST_ANGULAR_SPEED} rad/s a body may spin",
                self.angular_velocity.map(shown),
                shown(spin)
            ));
        }
        let turn: Quaternion = self.orientation;
        let length: f64 = turn.iter().map(|value| value * value).sum::<f64>().sqrt();
        if !(length.is_finite() && (length - 1.0).abs() < 1e-6) {
            return Err(format!("orientation {turn:?} is not of unit length"));
        }
        if !(self.still.is_finite() && self.still >= 0.0 && self.age.is_finite() && self.age >= 0.0)
        {
            return Err(format!(
                "clocks ({}, {}) are not finite seconds",
                self.still, self.age
            ));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::super::testing::{block_box, block_box_extent, cube, Boxes, Ground};
    use super::*;

    /// Cubes dropped on each other and on the ground, some removed on the way so that the
    /// dense order and the free slots are shuffled.
    fn pile(pool: WorkerPool) -> (PhysicsWorld, Vec<BodyDesc>, Boxes) {
        let mut physics = PhysicsWorld::new(pool);
        let mut descs = Vec::new();
        let mut shapes = Boxes::default();
        for i in 0..9 {
            let low = [
                (i % 3) as f64 * 0.7,
                1.0 + i as f64 * 1.1,
                (i / 3) as f64 * 0.4,
            ];
            let blocks = [1 + i % 2, 1, 1];
            let desc = if i % 2 == 0 {
                cube(low)
            } else {
                block_box(low, blocks, 1.0)
            };
            let handle = physics.add(&desc).expect("a body");
            shapes
                .boxes
                .insert(handle, block_box_extent(low, blocks, 1.0));
            descs.push((handle, desc));
        }
        for gone in [2, 5] {
            let (handle, _) = descs[gone];
            physics.remove(handle).expect("a live body");
        }
        descs.retain(|(handle, _)| physics.body(*handle).is_some());
        let ground = Ground { height: 0.0 };
        // Long enough for the lowest to land (their contacts then carry pushes) and for some
        // lying on each other to slow down (their pairs then keep their manifolds).
        for _ in 0..25 {
            physics.advance(STEP * 10.05, &ground, &shapes);
        }
        // The descriptions in dense order, as a caller keeping them by handle would give them.
        let state = physics.state();
        let by_dense = state
            .bodies
            .iter()
            .map(|body| {
                descs
                    .iter()
                    .find(|(handle, _)| *handle == body.handle)
                    .map(|(_, desc)| desc.clone())
                    .expect("every body has its description")
            })
            .collect();
        (physics, by_dense, shapes)
    }

    #[test]
    fn the_step_keeps_bodies_within_the_limits_a_restore_accepts() {
        use super::super::testing::Nothing;
        let mut physics = PhysicsWorld::new(WorkerPool::new(1).expect("threads"));
        let shapes = Boxes::default();
        // One far too fast and spinning, one about to leave the world sideways.
        let fast = physics.add(&cube([0.0, 100.0, 0.0])).expect("a body");
        physics
            .set_velocity(fast, [3e38, 0.0, 0.0])
            .expect("finite");
        physics
            .set_angular_velocity(fast, [0.0, 1e30, 0.0])
            .expect("finite");
        let leaving = physics.add(&cube([EDGE - 1.0, 0.0, 0.0])).expect("a body");
        physics
            .set_velocity(leaving, [MOST_SPEED, 0.0, 0.0])
            .expect("finite");
        for _ in 0..10 {
            physics.step(&Nothing, &shapes);
        }
        let state = physics.state();
        assert_eq!(
            state.bodies.len(),
            1,
            "the body past the edge left the world"
        );
        let body = state.bodies[0];
        assert_eq!(body.handle, fast);
        assert!(math::length(body.velocity) <= MOST_SPEED * (1.0 + 1e-12));
        assert!(math::length(body.angular_velocity) <= MOST_ANGULAR_SPEED * (1.0 + 1e-12));
        body.check().expect("a state a restore accepts");
        let mut outside = body;
        outside.position[0] = 1e300;
        assert_eq!(
            outside.check().expect_err("outside"),
            "position x = 1e300 is outside the world (±524288 m)"
        );
        let mut fast = body;
        fast.velocity = [0.0, -3e38, 0.0];
        let reason = fast.check().expect_err("too fast");
        assert!(
            reason.contains("is 3e38 m/s, faster than the 1000 m/s"),
            "{reason}"
        );
    }

    #[test]
    fn a_restored_world_steps_to_the_same_bits_as_the_original() {
        let (mut original, descs, shapes) = pile(WorkerPool::new(2).expect("threads"));
        let state = original.state();
        assert!(
            !state.contacts.is_empty(),
            "the pile touches the ground: its contact pushes are part of the state"
        );
        assert!(
            !state.manifolds.is_empty(),
            "pieces of the pile lie on each other: their kept manifolds are part of the state"
        );
        let mut restored =
            PhysicsWorld::restore(WorkerPool::new(1).expect("threads"), &state, &descs)
                .expect("a consistent state");
        assert_eq!(
            restored.state(),
            state,
            "the state survives a restore whole"
        );
        assert_eq!(restored.state_hash(), original.state_hash());
        let ground = Ground { height: 0.0 };
        for _ in 0..90 {
            original.advance(STEP * 0.75, &ground, &shapes);
            restored.advance(STEP * 0.75, &ground, &shapes);
        }
        assert_eq!(restored.state(), original.state());
        // Later bodies get the same handles in both.
        let desc = cube([5.0, 3.0, 5.0]);
        assert_eq!(
            original.add(&desc).expect("a body"),
            restored.add(&desc).expect("a body")
        );
    }

    /// A handle of no body of the pile: the 20th body of another world (the pile has 9 slots).
    fn handle_of_no_body() -> BodyHandle {
        let mut other = PhysicsWorld::new(WorkerPool::new(1).expect("threads"));
        (0..20)
            .map(|i| {
                other
                    .add(&cube([f64::from(i) * 2.0, 0.0, 0.0]))
                    .expect("a body")
            })
            .last()
            .expect("twenty bodies")
    }

    #[test]
    fn an_inconsistent_state_is_refused() {
        let (physics, descs, _) = pile(WorkerPool::new(1).expect("threads"));
        let state = physics.state();
        let pool = || WorkerPool::new(1).expect("threads");
        let mut cases: Vec<(&str, PhysicsState)> = Vec::new();
        let mut twice = state.clone();
        twice.bodies[1].handle = twice.bodies[0].handle;
        cases.push(("slot", twice));
        let mut free_used = state.clone();
        free_used.free.push(state.bodies[0].handle.index());
        cases.push(("free slot", free_used));
        let mut nan = state.clone();
        nan.bodies[0].velocity[1] = f64::NAN;
        cases.push(("not finite", nan));
        let mut long = state.clone();
        long.bodies[0].orientation = [0.0, 0.0, 0.0, 2.0];
        cases.push(("unit length", long));
        let mut late = state.clone();
        late.time = STEP;
        cases.push(("time", late));
        let mut out = state.clone();
        out.generations.truncate(1);
        cases.push(("out of range", out));
        let mut push = state.clone();
        push.contacts[0].normal = f64::NAN;
        cases.push(("not finite newton seconds", push));
        let mut gone = state.clone();
        gone.contacts[0].key.other = Some(handle_of_no_body());
        cases.push(("not in the world", gone));
        let mut no_point = state.clone();
        no_point.manifolds[0].contacts[0].point = 4000;
        cases.push(("names point 4000 of no body's", no_point));
        let mut off = state.clone();
        off.manifolds[0].contacts[0].normal = [0.0, 2.0, 0.0];
        cases.push(("off its surface", off));
        let mut lost = state.clone();
        lost.manifolds[0].other = handle_of_no_body();
        cases.push((
            "kept manifold 0 is of a body that is not in the world",
            lost,
        ));
        for (expected, case) in cases {
            let error = PhysicsWorld::restore(pool(), &case, &descs)
                .expect_err("an inconsistent state")
                .to_string();
            assert!(error.contains(expected), "{error:?} lacks {expected:?}");
        }
        assert!(PhysicsWorld::restore(pool(), &state, &descs[1..]).is_err());
    }
}
