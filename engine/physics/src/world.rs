//! [`PhysicsWorld`]: the bodies, the buffers a step reuses, and the calls the caller makes.

use super::body::{BodyDesc, BodyHandle, BodyView, MassProperties};
use super::broad::Sweep;
use super::budget::PairBudget;
use super::contacts::ContactJob;
use super::error::PhysicsError;
use super::math::{self, Matrix, Vector};
use super::solver::Solver;
use super::tuning::{MOST_ANGULAR_SPEED, MOST_SPEED, MOST_STEPS, STEP};
use super::warm::WarmStarts;
use super::{BodyShape, StepCounts, StepReport, StepTimes};
use crate::collision::Solid;
use crate::workers::WorkerPool;

use super::body::Bodies;

/// Rigid bodies that fall, hit the world and each other, slide, and come to rest.
///
/// See the [module documentation](super) for how a step works and why its result does not
/// depend on the number of threads.
#[derive(Debug)]
pub struct PhysicsWorld {
    pub(super) pool: WorkerPool,
    pub(super) bodies: Bodies,
    /// Seconds given to [`PhysicsWorld::advance`] and not yet stepped, less than a step.
    pub(super) time: f64,
    /// Whether bodies come to rest (see [`PhysicsWorld::set_resting`]).
    pub(super) resting: bool,
    /// How many pairs a step gives contacts to (see [`PhysicsWorld::set_pair_budget`]).
    pub(super) pair_budget: PairBudget,
    /// Last step's pushes of the touching contacts, to start the next from (`warm`).
    pub(super) warm: WarmStarts,
    pub(super) scratch: Scratch,
    /// What the last step had to do.
    pub(super) counts: StepCounts,
    /// Where the last step's time went.
    pub(super) times: StepTimes,
    /// The world the bodies' clearances were learned in: its stamp, and the epoch counted
    /// up each time a step meets another world (or one without a stamp).
    pub(super) world_stamp: Option<u128>,
    pub(super) epoch: u64,
}

/// Buffers a step fills and the next one reuses: once they have grown to the scene, a step
/// allocates nothing of its own (the worker pool still makes a channel per call).
#[derive(Debug, Default)]
pub(super) struct Scratch {
    /// Per dense index: the turn as a matrix, the inverse inertia in the world, how fast any
    /// point may move, the grown sphere, and whether it is awake.
    pub rotation: Vec<Matrix>,
    pub inverse_inertia: Vec<Matrix>,
    pub bound: Vec<f64>,
    pub sphere: Vec<f64>,
    pub awake: Vec<bool>,
    /// Dense indices of the awake bodies, ascending; a body's place here is its job's.
    pub moving: Vec<u32>,
    /// Per dense index: its job, which is its place among the awake bodies ([`NONE`] if
    /// resting).
    ///
    /// [`NONE`]: super::contacts::NONE
    pub job_of: Vec<u32>,
    /// Each job's fill cursor while the partner lists are made.
    pub local: Vec<u32>,
    /// Per dense index: the worker thread that solved the body's region last step
    /// ([`Solver::thread_of`]), which then finds its contacts this step and builds their rows
    /// from its own cache. Only where work runs: stale or missing for a body just woken, which
    /// changes nothing but speed.
    ///
    /// [`Solver::thread_of`]: super::solver::Solver::thread_of
    pub owner: Vec<u32>,
    pub sweep: Sweep,
    pub partner_start: Vec<u32>,
    pub partners: Vec<u32>,
    /// Each job's share of the contact budget (`budget`), and, for a job that stopped short of
    /// its partners at it, its share of what the others left.
    pub contact_shares: Vec<u32>,
    pub more: Vec<u64>,
    pub jobs: Vec<ContactJob>,
    /// The awake bodies' contact rows, cut into regions, bundled and solved.
    pub solver: Solver,
    pub fallen: Vec<BodyHandle>,
    /// Per dense index: what became of it as it moved.
    pub moved: Vec<super::step::Moved>,
    /// Per dense index: the normal push it took this step, newton seconds.
    pub taken: Vec<f64>,
    /// The awake bodies joined by touching contacts, which sleep together.
    pub islands: super::islands::Islands,
}

impl PhysicsWorld {
    /// No bodies yet; the steps run on `pool`.
    pub fn new(pool: WorkerPool) -> Self {
        Self {
            pool,
            bodies: Bodies::default(),
            time: 0.0,
            resting: true,
            pair_budget: PairBudget::DEFAULT,
            warm: WarmStarts::default(),
            scratch: Scratch::default(),
            counts: StepCounts::default(),
            times: StepTimes::default(),
            world_stamp: None,
            epoch: 0,
        }
    }

    /// Whether bodies come to rest (the default): a touching body still for [`STILL_TIME`], or
    /// any body that has touched something for [`LONGEST_FALL`], stops and costs nothing until woken. Off, every body
    /// stays awake and is stepped every step, however still — for measuring the solver at
    /// equal work against an engine with its sleeping turned off (`bench -- physics
    /// --equal-work`), and for tests of long contact. Bodies resting already stay so until
    /// [`PhysicsWorld::wake`].
    ///
    /// [`STILL_TIME`]: super::STILL_TIME
    /// [`LONGEST_FALL`]: super::LONGEST_FALL
    pub fn set_sleeping(&mut self, sleeping: bool) {
        self.resting = sleeping;
    }

    /// How many pairs of bodies a step gives contacts to, and how many contacts those pairs may
    /// find: [`PairBudget::DEFAULT`] unless set. A step whose overlapping pairs are beyond it
    /// gives contacts to a sample of them drawn afresh each step, and counts the rest
    /// ([`StepCounts::deferred_pairs`]; docs/physics.md, "The pair budget"). A smaller budget
    /// is for tests of a heap beyond it, and for a caller that wants a step's memory held
    /// lower; [`PairBudget::UNLIMITED`] is the step without one.
    pub fn set_pair_budget(&mut self, budget: PairBudget) {
        self.pair_budget = budget;
    }

    /// The budget [`PhysicsWorld::set_pair_budget`] set.
    pub fn pair_budget(&self) -> PairBudget {
        self.pair_budget
    }

    /// Adds a body. Its mass is the sum of its parts', its middle their mass-weighted mean,
    /// its inertia each part's own plus the parallel-axis term `m (|d|² I − d dᵀ)`. It starts
    /// where its description puts it (its own frame is the world's: the middle at the
    /// middle of the parts), unturned, still, and awake.
    pub fn add(&mut self, desc: &BodyDesc) -> Result<BodyHandle, PhysicsError> {
        let properties = MassProperties::of(desc)?;
        self.bodies.insert(properties, &desc.points, &desc.around)
    }

    /// Removes a body; its handle, and only its, goes stale.
    pub fn remove(&mut self, handle: BodyHandle) -> Result<(), PhysicsError> {
        self.bodies.remove(handle)?;
        self.warm.forget(handle);
        Ok(())
    }

    fn dense(&self, handle: BodyHandle) -> Result<usize, PhysicsError> {
        self.bodies
            .dense(handle)
            .ok_or(PhysicsError::StaleHandle(handle))
    }

    /// Sets how fast the middle moves, meters per second (held to [`MOST_SPEED`]). A resting
    /// body stays resting (and unmoved) until [`PhysicsWorld::wake`].
    pub fn set_velocity(
        &mut self,
        handle: BodyHandle,
        velocity: [f64; 3],
    ) -> Result<(), PhysicsError> {
        let dense = self.dense(handle)?;
        check_finite("velocity", velocity)?;
        self.bodies.motion.velocity[dense] = math::at_most(velocity, MOST_SPEED);
        Ok(())
    }

    /// From which normal push in one step (newton seconds, all the body's contacts together)
    /// the step reports each push on the body ([`StepReport::impacts`]): for a caller that
    /// breaks bodies under load, the push its weakest joint holds. Infinite (the default):
    /// never. Not part of the saved state: it comes from what the body is made of.
    ///
    /// [`StepReport::impacts`]: super::StepReport::impacts
    pub fn set_impact_limit(&mut self, handle: BodyHandle, limit: f64) -> Result<(), PhysicsError> {
        let dense = self.dense(handle)?;
        if limit.is_nan() || limit < 0.0 {
            return Err(PhysicsError::BadLimit(limit));
        }
        self.bodies.kept.impact_limit[dense] = limit;
        Ok(())
    }

    /// Sets the spin: around this axis of the world, its length in radians per second (held to
    /// [`MOST_ANGULAR_SPEED`]).
    pub fn set_angular_velocity(
        &mut self,
        handle: BodyHandle,
        spin: [f64; 3],
    ) -> Result<(), PhysicsError> {
        let dense = self.dense(handle)?;
        check_finite("spin", spin)?;
        self.bodies.motion.angular_velocity[dense] = math::at_most(spin, MOST_ANGULAR_SPEED);
        Ok(())
    }

    /// Puts the body's middle at `position` in the world, turned by `orientation` (`[x, y, z,
    /// w]`, made unit length here). Does not wake it.
    pub fn set_pose(
        &mut self,
        handle: BodyHandle,
        position: [f64; 3],
        orientation: [f64; 4],
    ) -> Result<(), PhysicsError> {
        let dense = self.dense(handle)?;
        check_finite("position", position)?;
        if !orientation.iter().all(|value| value.is_finite()) {
            return Err(PhysicsError::NotFinite {
                field: "orientation",
                value: orientation.to_vec(),
            });
        }
        let unit = math::normalized_quaternion(orientation)
            .ok_or(PhysicsError::ZeroOrientation(orientation))?;
        self.bodies.motion.position[dense] = position;
        self.bodies.motion.orientation[dense] = unit;
        // Its contacts are elsewhere now: none starts from what it pushed where it was.
        self.warm.forget(handle);
        Ok(())
    }

    /// Sets a resting body moving again (and restarts its clocks). What touches it wakes in
    /// the next step, when its contacts reach it; the physics wakes by itself every sleeping
    /// body an awake body's contacts reach ([`StepReport::woke`]).
    pub fn wake(&mut self, handle: BodyHandle) -> Result<(), PhysicsError> {
        let dense = self.dense(handle)?;
        self.bodies.sleep.sleeping[dense] = false;
        self.bodies.sleep.still[dense] = 0.0;
        self.bodies.sleep.age[dense] = 0.0;
        Ok(())
    }

    /// One fixed step of [`STEP`] seconds, against the solid world and the shapes of the
    /// bodies.
    pub fn step(&mut self, world: &dyn Solid, shapes: &dyn BodyShape) -> StepReport {
        let mut report = StepReport::default();
        self.step_into(world, shapes, &mut report);
        report
    }

    /// Moves on by `dt` seconds in fixed steps, as many as the time given so far holds, and
    /// keeps the rest (less than a step) for the next call. At most [`MOST_STEPS`] steps per
    /// call: time owed beyond them is dropped, so a stalled frame slows the world down
    /// instead of making the next frame slower still. A `dt` that is negative or not finite
    /// counts as zero.
    pub fn advance(&mut self, dt: f64, world: &dyn Solid, shapes: &dyn BodyShape) -> StepReport {
        let mut report = StepReport::default();
        if dt.is_finite() && dt > 0.0 {
            self.time += dt;
        }
        while self.time >= STEP {
            if report.steps == MOST_STEPS {
                self.time %= STEP;
                break;
            }
            self.time -= STEP;
            self.step_into(world, shapes, &mut report);
        }
        report
    }

    /// How much work the last step had (all zero before the first, or after a step with
    /// nothing awake).
    pub fn last_step_counts(&self) -> StepCounts {
        self.counts
    }

    /// Where the last step's time went, phase by phase (all zero before the first step; only
    /// `prepare` after a step with nothing awake).
    pub fn last_step_times(&self) -> StepTimes {
        self.times
    }

    /// How many bodies there are, resting or not.
    pub fn len(&self) -> usize {
        self.bodies.len()
    }

    pub fn is_empty(&self) -> bool {
        self.bodies.len() == 0
    }

    /// The live bodies, in ascending slot index.
    pub fn handles(&self) -> impl Iterator<Item = BodyHandle> + '_ {
        self.bodies.handles()
    }

    /// How many bodies are not resting.
    pub fn awake_count(&self) -> usize {
        self.bodies
            .sleep
            .sleeping
            .iter()
            .filter(|resting| !**resting)
            .count()
    }

    /// A copy of a body's state, or `None` for a stale handle.
    pub fn body(&self, handle: BodyHandle) -> Option<BodyView> {
        self.bodies
            .dense(handle)
            .map(|dense| self.bodies.view(dense))
    }

    /// Where a point of the body's own frame is in the world.
    pub fn to_world(&self, handle: BodyHandle, local: [f64; 3]) -> Option<[f64; 3]> {
        let dense = self.bodies.dense(handle)?;
        let rotation = math::rotation(self.bodies.motion.orientation[dense]);
        let offset = math::sub(local, self.bodies.inertial.center_of_mass[dense]);
        Some(math::add(
            self.bodies.motion.position[dense],
            math::times(&rotation, offset),
        ))
    }

    /// Where a point of the world is in the body's own frame.
    pub fn to_local(&self, handle: BodyHandle, world: [f64; 3]) -> Option<[f64; 3]> {
        let dense = self.bodies.dense(handle)?;
        let rotation = math::rotation(self.bodies.motion.orientation[dense]);
        let offset = math::sub(world, self.bodies.motion.position[dense]);
        Some(math::add(
            self.bodies.inertial.center_of_mass[dense],
            math::times_transposed(&rotation, offset),
        ))
    }

    /// A hash of every live body's position, orientation, velocity and spin bits and whether
    /// it rests, in slot order: equal hashes after the same calls mean bitwise equal states.
    /// FNV-1a over 64-bit words, so it is the same on every platform and Rust version.
    pub fn state_hash(&self) -> u64 {
        let mut hash = 0xcbf2_9ce4_8422_2325u64;
        let mut mix = |word: u64| {
            hash ^= word;
            hash = hash.wrapping_mul(0x0000_0100_0000_01b3);
        };
        let bodies = &self.bodies;
        for dense in bodies.dense_in_slot_order() {
            let words = bodies.motion.position[dense]
                .iter()
                .chain(&bodies.motion.orientation[dense])
                .chain(&bodies.motion.velocity[dense])
                .chain(&bodies.motion.angular_velocity[dense]);
            for value in words {
                mix(value.to_bits());
            }
            mix(u64::from(bodies.sleep.sleeping[dense]));
        }
        hash
    }
}

fn check_finite(field: &'static str, value: Vector) -> Result<(), PhysicsError> {
    if math::finite(value) {
        Ok(())
    } else {
        Err(PhysicsError::NotFinite {
            field,
            value: value.to_vec(),
        })
    }
}
