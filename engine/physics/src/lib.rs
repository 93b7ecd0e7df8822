//! blockfall's physics core: rigid bodies that fall, spin, hit the world and each other, slide,
//! tip over and come to rest (docs/physics.md), laid out for many bodies on several threads. It
//! knows nothing of the GPU (no Vulkan crate in its tree), nor of the game.
//!
//! Beside the bodies, what every solid thing in the game answers through and what the step
//! runs on:
//!
//! - [`collision`]: the one question everything solid answers: the nearest surface.
//! - [`workers`]: a thread pool whose results do not depend on its thread count.
//! - [`random`]: the one seeded generator (SplitMix64) for reproducible numbers: random scenes
//!   in tests, the soak's script, the fuzzers' cases.
//! - [`bounded`]: lists read from files with a limit on their length, checked before they are
//!   allocated (saves of a few bytes that claim a billion elements).
//!
//! The step knows two questions and nothing else of what it moves: [`Solid::nearest`] for the
//! world, and [`BodyShape::nearest`] for a body's own shape.
//!
//! # Bodies
//!
//! A body is described by parts (mass elements: mass, centre of mass, inertia about it) and the
//! points it touches things with, all in its own frame ([`BodyDesc`]). Its state is kept as
//! structures of arrays grouped by what each phase of a step reads (`body`: motion, inertial
//! properties, shape, sleep), one `Vec` per field over a dense index: position of the centre of
//! mass, orientation (a unit quaternion `[x, y, z, w]`), velocity, angular velocity, inverse
//! mass, inverse inertia in the body frame, its points (a range of one shared list, measured
//! from the centre of mass), the radius of their sphere, and sleeping, still time, age and
//! touching. The loops of a step walk these arrays in order and touch only the fields they
//! need. [`BodyHandle`]s are generational indices into a slot table outside the arrays: removal
//! swaps the last body into the hole, and only the removed body's handle goes stale. State is
//! `f64`: a body far from the origin or falling for a long time keeps its precision, and free fall
//! matches the closed form of the integrator to rounding. The questions to the world are asked in
//! `f32`.
//!
//! # A step
//!
//! Fixed steps of [`STEP`] (1/120 s), as many as [`PhysicsWorld::advance`]'s time holds. Each:
//! gravity; contacts; contact rows solved by sequential impulses, [`ITERATIONS`] passes with
//! the limits on the accumulated impulse; then the velocity moves the centre of mass and the
//! angular velocity turns the orientation (`q += ½ (ω, 0) q dt`, renormalised). A touching
//! body's angular velocity is damped ([`ANGULAR_DAMPING`]).
//! Bodies sleep by islands (`islands`): the awake bodies joined by touching contacts sleep
//! together once all are slow for [`STILL_TIME`], or once one of them has touched something for
//! [`LONGEST_FALL`] (free fall does not count); a sleeping body stops and is not stepped until
//! an awake body's contacts reach it (it wakes before that step's solve, and what touches it
//! with it) or [`PhysicsWorld::wake`]. A body whose centre of mass is below
//! [`BOTTOM`] (or whose state is no longer finite) is removed and reported.
//!
//! Each contact gives three rows in a structure of arrays (direction, lever × direction and
//! turn = I⁻¹ (lever × direction) for each body, effective mass, target, accumulated impulse,
//! friction link): one along the normal that only pushes, with a target of a small bounce or
//! a gentle push out (the Baumgarte correction, [`BAUMGARTE`]); two along the surface that rub
//! at most [`FRICTION`] times the normal impulse.
//! See `rows.rs`.
//!
//! # No tunnelling: speculative contacts
//!
//! A piece dropped from 100 m moves 0.37 m per step at the end, more than a thin slab is thick.
//! Each point is therefore asked for the nearest surface within the distance it can travel this
//! step (its speculative reach, the speculative contact distance: its speed × [`STEP`], plus
//! [`MARGIN`]), not just within the margin. A surface found farther than the margin gives a
//! *speculative* row: push-only like any normal row, with a target that lets the point approach at
//! up to `d / STEP`, so the point ends the step on the surface instead of behind it, and nothing
//! happens if it would not get there (a touching point apart from its surface is treated alike: the
//! gap closes, and a resting piece touches what it rests on). Speculative rows bounce only when
//! they strike within the step, and do not count as touching. A point asks its question with what
//! its body fills around it, so that a face it only lines up with (a flush neighbour's top, seen
//! from the side) is not met (`collision::box_face`, docs/physics.md "Which face a point meets").
//! Cheap bounds keep the extra reach cheap: the world is first asked once for the body's centre
//! of mass with the radius of its points added, and a body far from every surface asks nothing more; pairs
//! of bodies are first culled by their grown bounding spheres.
//!
//! # Bodies against bodies
//!
//! A sort and sweep over the grown spheres on x finds the pairs that may touch (at most a
//! budget of them, [`PairBudget`]). For a pair, each body's points are asked against the other
//! body's shape, in the other's frame, and the normal turned back into the world; the rows
//! push the two bodies apart. A sleeping body that an awake body's contacts reach wakes before
//! the solve and is reported in [`StepReport::woke`]: only the world is fixed, so the blow
//! moves what it strikes.
//!
//! # Threads, and why the result does not depend on their number
//!
//! The contacts of each awake body are found by one job on the [`WorkerPool`], a pure function of
//! the step's frozen state. The awake bodies and their contact rows then form one solver set
//! (`solver`): the rows grouped by the pair of things they push (a group is the pair's contact
//! manifold; pairs in dense index order), the set cut into regions (slabs along the axis the
//! bodies spread most along, a like share of the contacts in each), each region's groups laid
//! four side by side in bundles that share no awake body and solved together with SIMD lanes
//! (`lanes`). The solve is one call on the workers in stages (parallel-for stages, a barrier
//! between them): in each pass the even regions at once, then the odd ones, then the few groups
//! between regions that are not neighbours; a region's bundles one after another on one thread.
//! Every split and every order is made from the scene alone — the dense indices, the bodies'
//! places, the contacts — never from the thread count, and each region is worked by exactly one
//! thread. So every floating-point operation happens in the same order with one thread or
//! sixteen, and [`PhysicsWorld::state_hash`] is bitwise the same.
//!
//! [`Solid::nearest`]: crate::collision::Solid::nearest
//! [`WorkerPool`]: crate::workers::WorkerPool
//!
//! # Allocation
//!
//! Every buffer of a step (spheres, pairs, partner lists, contacts, groups and their rows,
//! bundles) is kept in the [`PhysicsWorld`] and reused: once grown to the scene, a step allocates
//! nothing of its own. The pool makes a channel per parallel call (and its staged call a lock
//! per bundle and two counters per stage), and a report's lists grow when something comes to
//! rest, falls out or wakes.
//!
//! What a step holds grows with its pairs and their contacts, and bodies heaped into one place
//! make `n (n − 1) / 2` pairs: a step takes on at most a budget of pairs and of their contacts
//! ([`PairBudget`], [`PAIR_BUDGET`], [`CONTACT_BUDGET`]), a sample drawn afresh each step,
//! and counts the rest ([`StepCounts::deferred_pairs`]) for later steps (`budget`,
//! docs/physics.md "The pair budget"). A step beyond the budget gives back the room its lists
//! keep beyond what they used, so what stays allocated is bounded too.

pub mod bounded;
pub mod collision;
pub mod random;
pub mod workers;

mod body;
mod broad;
mod budget;
mod clearance;
mod contacts;
mod error;
mod islands;
pub mod lanes;
mod manifolds;
mod math;
mod patches;
mod rows;
mod solver;
mod state;
mod step;
mod tuning;
mod warm;
mod world;

#[cfg(test)]
mod scenarios;
#[cfg(test)]
mod testing;

pub use body::{BodyDesc, BodyHandle, BodyView, Part};
pub use budget::PairBudget;
pub use error::PhysicsError;
pub use manifolds::{KeptContact, KeptManifold};
pub use state::{
    shown, BodyState, ContactImpulses, KeptManifolds, PhysicsState, MOST_BODIES,
    MOST_CONTACT_IMPULSES, MOST_KEPT_MANIFOLDS,
};
pub use tuning::{
    ANGULAR_DAMPING, BAUMGARTE, BOTTOM, BOUNCE, BOUNCE_SPEED, CONTACT_BUDGET, EDGE, FRICTION,
    GRAVITY, ITERATIONS, LONGEST_FALL, MARGIN, MOST_ANGULAR_SPEED, MOST_CORRECTIVE_SPEED,
    MOST_SPEED, MOST_STEPS, PAIR_BUDGET, SLOP, STEP, STILL_ANGULAR_SPEED, STILL_SPEED, STILL_TIME,
};
pub use warm::{ContactImpulse, ContactKey, WARM_START};
pub use world::PhysicsWorld;

use crate::collision::{Around, Surface};

/// The shapes of the bodies, for contacts between them.
pub trait BodyShape: Sync {
    /// The nearest surface of `body`'s own shape to `point`, both in the body's own frame (the
    /// frame of its parts and points), if one is within `reach` meters (closer than `reach`,
    /// inside counting as closer). The shape must lie inside the sphere of the body's points
    /// (see [`BodyView::radius`]): pairs farther apart are not asked.
    fn nearest(&self, body: BodyHandle, point: [f32; 3], reach: f32) -> Option<Surface>;

    /// [`BodyShape::nearest`] asked from a point of another body, with what lies around that
    /// point ([`Around`], its turn into `body`'s own frame): a shape with flat faces answers
    /// with the face the point meets (see [`crate::collision::Solid::nearest_many_around`]).
    /// The default ignores what lies around.
    fn nearest_around(
        &self,
        body: BodyHandle,
        point: [f32; 3],
        reach: f32,
        around: Around,
    ) -> Option<Surface> {
        let _ = around;
        self.nearest(body, point, reach)
    }
}

/// How much work the last step had, for profiling: what the benchmarks print beside their
/// times.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct StepCounts {
    /// Bodies stepped (not resting).
    pub awake: usize,
    /// Pairs of bodies whose grown spheres overlap, given contacts this step: at most the
    /// budget's ([`PhysicsWorld::set_pair_budget`]).
    pub pairs: usize,
    /// Pairs of bodies whose grown spheres overlap, left for later steps beyond the budget:
    /// by the broad phase, or by their contact jobs beyond their share of the contacts
    /// (docs/physics.md, "The pair budget"). Zero in every scene the game makes; with
    /// `pairs`, every overlapping pair.
    pub deferred_pairs: usize,
    /// Points asked of the world (the others were surely clear of it, see
    /// [`crate::collision::Solid::stamp`]).
    pub asked: usize,
    /// Pairs of bodies whose kept manifold gave their contacts, placed again instead of found
    /// (docs/physics.md, "Kept manifolds").
    pub kept: usize,
    /// Contacts found, touching and speculative.
    pub contacts: usize,
    /// Of those, the ones within the margin.
    pub touching: usize,
    /// Rows solved (three per contact).
    pub rows: usize,
    /// Groups of rows (one per pair of things pushed).
    pub groups: usize,
    /// Regions the awake set was cut into for the solve, and the groups between regions that
    /// are not neighbours, solved after them.
    pub regions: usize,
    pub between_regions: usize,
    /// Bundles the groups were solved in, four side by side, and the rows those work per
    /// pass, empty lanes included (`rows / lane_rows` is how full the lanes are).
    pub bundles: usize,
    pub lane_rows: usize,
}

/// Where the last step's time went, phase by phase (see `step` for the phases): for profiling
/// the serial share of a step, what the benchmarks print beside their times. Wall-clock
/// seconds, so they vary from run to run; nothing in the step reads them.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct StepTimes {
    /// Gravity, turns, bounds and spheres (workers), and which bodies are awake.
    pub prepare: f64,
    /// The sort and sweep for pairs, and the partner lists.
    pub broad: f64,
    /// Each awake body's contacts (workers).
    pub contacts: f64,
    /// The jobs' groups cut into regions and laid into bundles (serial).
    pub plan: f64,
    /// The bundles' rows built, then the passes over them (workers, stage by stage).
    pub solve: f64,
    /// The pushes kept for the next step (workers), touching and impacts.
    pub keep: f64,
    /// The velocities back, moving, turning and rest (workers), and falling out.
    pub integrate: f64,
}

impl StepTimes {
    /// The whole step.
    pub fn total(&self) -> f64 {
        self.prepare
            + self.broad
            + self.contacts
            + self.plan
            + self.solve
            + self.keep
            + self.integrate
    }

    /// How many phases a step has ([`StepTimes::phases`]).
    pub const PHASES: usize = 7;

    /// Each phase's time, with its name, in step order.
    pub fn phases(&self) -> [(&'static str, f64); Self::PHASES] {
        [
            ("prepare", self.prepare),
            ("broad", self.broad),
            ("contacts", self.contacts),
            ("plan", self.plan),
            ("solve", self.solve),
            ("keep", self.keep),
            ("integrate", self.integrate),
        ]
    }
}

/// What happened during one or more steps.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct StepReport {
    /// How many steps were taken.
    pub steps: u32,
    /// Bodies whose middle went below [`BOTTOM`]: removed, their handles now stale.
    pub fell_out: Vec<BodyHandle>,
    /// Bodies that came to rest.
    pub came_to_rest: Vec<BodyHandle>,
    /// Sleeping bodies that an awake body's contacts reached, woken before the step's solve,
    /// with where their middle lay.
    pub woke: Vec<(BodyHandle, [f64; 3])>,
    /// Each push on a body that took at least its impact limit in one step
    /// ([`PhysicsWorld::set_impact_limit`]), in an order that is a function of the scene.
    pub impacts: Vec<Impact>,
}

/// One contact's push on a body in one step, in the body's own frame (the frame of its
/// [`BodyDesc`]) as it lay in that step.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Impact {
    /// Which step of the report (0 for the first).
    pub step: u32,
    pub body: BodyHandle,
    /// Where the contact was.
    pub point: [f64; 3],
    /// The impulse, newton seconds: the contact's normal impulse and its friction together.
    pub impulse: [f64; 3],
}
