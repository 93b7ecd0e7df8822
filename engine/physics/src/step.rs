//! One step, in the order of docs/physics.md (gravity, contacts, solve, integrate) with the
//! pairs, the solver set and the workers added. Each phase's time is kept
//! (`PhysicsWorld::last_step_times`, [`StepTimes`]):
//!
//! ```text
//!   prepare     gravity on the awake bodies; turn matrices, world inverse inertias,
//!               how fast each may move, grown spheres (workers); which are awake (serial)
//!   broad       sort (from last step's order) and sweep: pairs of bodies whose
//!               spheres overlap; the sweep a run of entries per job; the pairs
//!               into partner lists                                               (workers)
//!   contacts    one job per awake body: its points against the world and its
//!               partners' shapes, and the points of its resting partners and its
//!               later awake ones against its own: every contact of the groups
//!               whose first body it is, the groups in order                      (workers)
//!   plan        the jobs' groups one after another (in pair order), the awake set
//!               cut into regions, each region's groups four to a bundle          (serial)
//!   solve       one call in stages: each bundle's rows built, started from last
//!               step's pushes; the pushes the rows start with; then 8 passes, each
//!               the even regions at once, the odd ones, the groups apart, a
//!               region's bundles in order on one thread; in its last pass each
//!               bundle sums its pushes and makes those it keeps                  (workers)
//!   keep        the kept pushes gathered by shares of the bodies and sorted
//!               (workers); touching and impacts                                  (serial)
//!   integrate   the solved velocities back, move and turn, lose spin (workers);
//!               islands sleep together, fall out, what came to rest reported     (serial)
//! ```
//!
//! The serial parts are linear in the bodies, pairs or groups and cheap next to the contact
//! queries and the rows (under a fiftieth of a heap step's time); every order in them is the
//! dense index order, so the whole step is a function of the scene.

use super::broad::Spheres;
use super::budget::contact_shares;
use super::clearance::Clearance;
use super::contacts::{ContactJob, Scene, NONE};
use super::manifolds::Manifolds;
use super::math::{self, Matrix, Quaternion, Vector, ZERO, ZERO_MATRIX};
use super::solver::Shared;
use super::tuning::{
    ANGULAR_DAMPING, BOTTOM, EDGE, GRAVITY, LONGEST_FALL, MARGIN, MOST_ANGULAR_SPEED, MOST_SPEED,
    STEP, STILL_ANGULAR_SPEED, STILL_SPEED, STILL_TIME,
};
use super::warm::WarmStarts;
use super::world::{PhysicsWorld, Scratch};
use super::{BodyShape, Impact, StepCounts, StepReport, StepTimes};
use crate::collision::Solid;
use crate::workers::WorkerPool;
use std::time::Instant;

use super::body::{Bodies, Inertial, Kept, Motion, Shape, Sleep};

/// Added to every grown sphere, meters: the spheres are compared in `f64` but the queries
/// they guard are asked in `f32`.
const SPHERE_SLACK: f64 = 1e-3;

impl PhysicsWorld {
    /// One step, its events added to `report`.
    pub(super) fn step_into(
        &mut self,
        world: &dyn Solid,
        shapes: &dyn BodyShape,
        report: &mut StepReport,
    ) {
        report.steps += 1;
        let PhysicsWorld {
            pool,
            bodies,
            scratch,
            resting,
            pair_budget,
            warm,
            counts,
            world_stamp,
            epoch,
            times,
            ..
        } = self;
        let mut clock = Clock::start();
        // What the bodies learned of the world holds while it stays the same world.
        let stamp = world.stamp();
        if stamp.is_none() || stamp != *world_stamp {
            *epoch += 1;
            *world_stamp = stamp;
        }
        prepare(pool, bodies, scratch, true);
        *counts = StepCounts::default();
        *times = StepTimes::default();
        times.prepare = clock.lap();
        if scratch.moving.is_empty() {
            return;
        }
        // The contacts, found again as long as they reach sleeping bodies: those wake, before
        // the solve, and so does what touches them in turn (`islands`).
        loop {
            // Beyond the pair budget (`budget`), the step's seed draws the pairs and where
            // each job starts among its partners.
            let seed = seed(bodies);
            let spheres = Spheres {
                middles: &bodies.motion.position,
                radii: &scratch.sphere,
                awake: &scratch.awake,
            };
            scratch.sweep.find(pool, spheres, pair_budget.pairs, seed);
            partners(scratch);
            contact_shares(
                pair_budget.contacts,
                &scratch.moving,
                &scratch.partner_start,
                &scratch.partners,
                &bodies.shape.points_count,
                &mut scratch.contact_shares,
            );
            times.broad += clock.lap();
            let budget = (pair_budget.contacts, seed);
            find_contacts(pool, bodies, scratch, (world, shapes), *epoch, budget);
            times.contacts += clock.lap();
            if !wake_reached(bodies, scratch, report) {
                break;
            }
            prepare(pool, bodies, scratch, false);
            times.prepare += clock.lap();
        }
        let moving = scratch.moving.len();

        // The solver set: the awake bodies' contacts grouped, cut into regions, bundled,
        // built into rows and solved (see `solver`).
        let solver = &mut scratch.solver;
        solver.plan(&scratch.jobs[..moving], &scratch.job_of);
        let awake_bodies = &scratch.moving;
        solver.lay_out(|index| bodies.motion.position[awake_bodies[index] as usize]);
        scratch.owner.resize(bodies.len(), 0);
        for (index, &body) in awake_bodies.iter().enumerate() {
            scratch.owner[body as usize] = solver.thread_of(index, pool.threads()) as u32;
        }
        times.plan = clock.lap();
        let shared = Shared {
            bodies,
            inverse_inertia: &scratch.inverse_inertia,
            awake: &scratch.job_of,
            jobs: &scratch.jobs[..moving],
            warm,
        };
        solver.velocities.fill(scratch.moving.iter().map(|&body| {
            (
                bodies.motion.velocity[body as usize],
                bodies.motion.angular_velocity[body as usize],
            )
        }));
        solver.solve(pool, &shared);
        times.solve = clock.lap();
        solver.collect_pushes(pool, moving);

        // Each awake body's new pushes replace its old (the lists are swapped). A sleeping
        // body keeps the pushes it went to sleep with, as Box2D keeps a sleeping island's
        // contacts: woken, a stack carries its weight from the first pass, instead of sagging
        // while its passes find the pushes again and leaning from what that shook loose.
        for (index, &body) in scratch.moving.iter().enumerate() {
            warm.put(bodies.handle(body as usize), &mut solver.kept[index]);
        }

        // What touched what and how hard (the solved velocities go back into the bodies as
        // they move), in one pass over the groups.
        let tally = tally(bodies, scratch);
        impacts(bodies, scratch, moving, report);
        *counts = count(scratch, &tally);
        times.keep = clock.lap();
        integrate(pool, bodies, scratch, *resting, report);
        times.integrate = clock.lap();
        // This step's only: the report's list runs over all the steps of an `advance`.
        for &handle in &scratch.fallen {
            warm.forget(handle);
        }
        if counts.deferred_pairs > 0 {
            trim(bodies, scratch, warm);
        }
    }
}

/// Gives back the room a step's lists keep beyond what they used, after a step beyond the
/// pair budget (`budget`). Each job, bundle and body keeps its lists from step to step, grown
/// to the most it has held; beyond the budget each step draws another sample of the pairs, and
/// with it changes which jobs, bundles and bodies hold the pairs' contacts, rows, manifolds and
/// pushes: kept, that room would add up, sample after sample, to every pair's. Given back,
/// what stays is about what a step uses, within the budget. (A step within the budget, as
/// every step of the game's scenes, keeps its room: its next step needs about as much.)
fn trim(bodies: &mut Bodies, scratch: &mut Scratch, warm: &mut WarmStarts) {
    scratch.jobs.iter_mut().for_each(ContactJob::trim);
    bodies.kept.manifolds.iter_mut().for_each(Manifolds::trim);
    scratch.solver.trim();
    scratch.sweep.trim();
    warm.trim();
}

/// Each awake body's contacts, one job per body on the workers (`contacts`): with the world,
/// and with the partners the broad phase paired it with.
fn find_contacts(
    pool: &WorkerPool,
    bodies: &mut Bodies,
    scratch: &mut Scratch,
    (world, shapes): (&dyn Solid, &dyn BodyShape),
    epoch: u64,
    (contact_budget, seed): (usize, u64),
) {
    let moving = scratch.moving.len();
    while scratch.jobs.len() < moving {
        scratch.jobs.push(Default::default());
    }
    for (job, (slot, &body)) in scratch.jobs.iter_mut().zip(&scratch.moving).enumerate() {
        slot.body = body;
        slot.job = job as u32;
        // Lent for the contacts, given back after them.
        std::mem::swap(
            &mut slot.clearance,
            &mut bodies.kept.clearance[body as usize],
        );
        std::mem::swap(
            &mut slot.manifolds,
            &mut bodies.kept.manifolds[body as usize],
        );
    }
    let scene = Scene {
        bodies,
        rotation: &scratch.rotation,
        bound: &scratch.bound,
        partner_start: &scratch.partner_start,
        partners: &scratch.partners,
        world,
        true_distances: world.true_distances(),
        shapes,
        epoch,
        awake: &scratch.job_of,
        contact_shares: &scratch.contact_shares,
        seed,
    };
    let (owner, awake_bodies) = (&scratch.owner, &scratch.moving);
    pool.for_each_mut_owned(
        &mut scratch.jobs[..moving],
        |job| {
            owner
                .get(awake_bodies[job] as usize)
                .map_or(job, |&o| o as usize)
        },
        |job| job.find(&scene),
    );
    // The jobs that stopped short of their partners at their share of the contact budget go
    // on with what the others left of it, shared by the points of the partners they have not
    // visited (`budget`), and finish.
    let jobs = &mut scratch.jobs[..moving];
    if jobs.iter().any(|job| job.short) {
        let found: usize = jobs.iter().map(ContactJob::pair_contacts_found).sum();
        let left = contact_budget.saturating_sub(found);
        let points = &bodies.shape.points_count;
        let more = &mut scratch.more;
        more.clear();
        more.extend(jobs.iter().map(|job| {
            if job.short {
                job.points_left(points)
            } else {
                0
            }
        }));
        let total: u64 = more.iter().sum();
        for more in more.iter_mut() {
            *more = (u128::from(*more) * left as u128 / u128::from(total.max(1))) as u64;
        }
        let more = &scratch.more;
        pool.for_each_mut_owned(
            jobs,
            |job| {
                owner
                    .get(awake_bodies[job] as usize)
                    .map_or(job, |&o| o as usize)
            },
            |job| {
                if job.short {
                    job.find_more(&scene, more[job.job as usize] as usize);
                }
            },
        );
    }
    for job in &mut scratch.jobs[..moving] {
        std::mem::swap(
            &mut job.clearance,
            &mut bodies.kept.clearance[job.body as usize],
        );
        std::mem::swap(
            &mut job.manifolds,
            &mut bodies.kept.manifolds[job.body as usize],
        );
    }
}

/// Wakes every sleeping body that an awake body's contacts reach (touching, or within what
/// the awake body may travel this step): before the solve, so that the blow moves it instead
/// of going into a wall. A woken body starts still, takes this step's gravity, and is
/// reported with where it lay. True if any woke (the step then finds its contacts again).
fn wake_reached(bodies: &mut Bodies, scratch: &Scratch, report: &mut StepReport) -> bool {
    let mut woke = false;
    for job in &scratch.jobs[..scratch.moving.len()] {
        for group in &job.groups {
            // The group's other side: 0 for the world, else a dense index plus one.
            let other = (group.key & u64::from(u32::MAX)) as usize;
            if other == 0 || group.start == group.end {
                continue;
            }
            let body = other - 1;
            if !bodies.sleep.sleeping[body] {
                continue;
            }
            bodies.sleep.sleeping[body] = false;
            bodies.sleep.still[body] = 0.0;
            bodies.sleep.age[body] = 0.0;
            bodies.motion.velocity[body] = [0.0, -GRAVITY * STEP, 0.0];
            bodies.motion.angular_velocity[body] = ZERO;
            report
                .woke
                .push((bodies.handle(body), bodies.motion.position[body]));
            woke = true;
        }
    }
    woke
}

/// The step's seed, from which a step over the pair budget draws its pairs (`broad`): a hash
/// of every body's place and velocity, in dense order (FNV-1a over their bits, then
/// MurmurHash3's finish). A function of the state a save keeps, so a restored world draws the
/// same pairs; it changes as the bodies move, so each step draws others.
fn seed(bodies: &Bodies) -> u64 {
    let mut hash = 0xcbf2_9ce4_8422_2325u64;
    for (place, velocity) in bodies.motion.position.iter().zip(&bodies.motion.velocity) {
        for value in place.iter().chain(velocity) {
            hash ^= value.to_bits();
            hash = hash.wrapping_mul(0x0000_0100_0000_01b3);
        }
    }
    hash ^= hash >> 33;
    hash = hash.wrapping_mul(0xff51_afd7_ed55_8ccd);
    hash ^ hash >> 33
}

/// The time between a step's phases.
struct Clock(Instant);

impl Clock {
    fn start() -> Self {
        Self(Instant::now())
    }

    /// Seconds since the last lap (or the start).
    fn lap(&mut self) -> f64 {
        let now = Instant::now();
        let seconds = (now - self.0).as_secs_f64();
        self.0 = now;
        seconds
    }
}

/// What one pass over the solved groups gives the rest of the step.
struct Tally {
    /// Touching contacts, all groups together.
    touching: usize,
    bundles: usize,
    lane_rows: usize,
}

/// One pass over the solved groups: each awake body's touching contacts
/// ([`Bodies::touching`]) and the normal push it took ([`Scratch::taken`], for [`impacts`]),
/// and the counts for [`count`].
fn tally(bodies: &mut Bodies, scratch: &mut Scratch) -> Tally {
    for &body in &scratch.moving {
        bodies.sleep.touching[body as usize] = 0;
    }
    let taken = &mut scratch.taken;
    taken.clear();
    taken.resize(bodies.len(), 0.0);
    let mut tally = Tally {
        touching: 0,
        bundles: 0,
        lane_rows: 0,
    };
    for bundle in scratch.solver.bundles() {
        tally.bundles += 1;
        tally.lane_rows += bundle.rows();
        for group in &bundle.lanes {
            if group.first == NONE {
                continue;
            }
            let first = group.first as usize;
            let push = group.normal_push;
            tally.touching += group.touching as usize;
            bodies.sleep.touching[first] += group.touching;
            taken[first] += push;
            if group.second != NONE {
                bodies.sleep.touching[group.second as usize] += group.touching;
                taken[group.second as usize] += push;
            }
        }
    }
    tally
}

/// The pushes on each awake body that took at least its impact limit this step, into the
/// report in the body's own frame (before the step moves it).
fn impacts(bodies: &Bodies, scratch: &mut Scratch, moving: usize, report: &mut StepReport) {
    let solver = &scratch.solver;
    let taken = &scratch.taken;
    let over = |body: u32| {
        body != NONE && {
            let body = body as usize;
            taken[body] > 0.0 && taken[body] >= bodies.kept.impact_limit[body]
        }
    };
    if !scratch.moving.iter().any(|&body| over(body)) {
        return;
    }
    let step = report.steps - 1;
    solver.for_each_push(&scratch.jobs[..moving], |contact, first, push| {
        if push == ZERO {
            return;
        }
        let second = if contact.body == first {
            contact.other
        } else {
            contact.body
        };
        for (body, push) in [(first, push), (second, math::scale(push, -1.0))] {
            if !over(body) {
                continue;
            }
            let dense = body as usize;
            let rotation = &scratch.rotation[dense];
            let offset = math::sub(contact.point, bodies.motion.position[dense]);
            report.impacts.push(Impact {
                step,
                body: bodies.handle(dense),
                point: math::add(
                    bodies.inertial.center_of_mass[dense],
                    math::times_transposed(rotation, offset),
                ),
                impulse: math::times_transposed(rotation, push),
            });
        }
    });
}

/// What the step had to do, from its buffers once the rows are solved.
fn count(scratch: &Scratch, tally: &Tally) -> StepCounts {
    let solver = &scratch.solver;
    // The pairs the broad phase kept whose jobs left them for later (`budget`).
    let left: usize = scratch.jobs[..scratch.moving.len()]
        .iter()
        .map(|job| job.deferred as usize)
        .sum();
    StepCounts {
        awake: scratch.moving.len(),
        pairs: scratch.sweep.pairs.len() - left,
        deferred_pairs: scratch.sweep.deferred + left,
        asked: scratch.jobs[..scratch.moving.len()]
            .iter()
            .map(|job| job.asked())
            .sum(),
        kept: scratch.jobs[..scratch.moving.len()]
            .iter()
            .map(|job| job.kept as usize)
            .sum(),
        contacts: solver.contact_count(),
        touching: tally.touching,
        rows: solver.contact_count() * 3,
        groups: solver.group_count(),
        regions: solver.region_count(),
        between_regions: solver.apart_count(),
        bundles: tally.bundles,
        lane_rows: tally.lane_rows,
    }
}

/// Bodies per run of the step's per-body work on the workers ([`prepare`], [`integrate`]): a
/// run is a few microseconds of work. Any cut gives the same bits (each body is worked on its
/// own).
const BODY_RUN: usize = 64;

/// One run of bodies for [`prepare`]: from dense index `first`, the parts of the per-body
/// arrays it writes.
struct PrepareRun<'a> {
    first: usize,
    velocity: &'a mut [Vector],
    clearance: &'a mut [Clearance],
    rotation: &'a mut [Matrix],
    inverse_inertia: &'a mut [Matrix],
    bound: &'a mut [f64],
    sphere: &'a mut [f64],
}

/// Gravity (if `gravity`: a step's second call, after bodies woke, adds none), and what the
/// rest of the step needs to know of each body: on the workers, a run of bodies each (it was a serial part of the step; its cost: `bench physics --equal-work
/// --only-heap`, docs/performance-history.md "Physics"); then, in dense order, which are awake.
fn prepare(pool: &WorkerPool, bodies: &mut Bodies, scratch: &mut Scratch, gravity: bool) {
    let count = bodies.len();
    scratch.rotation.resize(count, ZERO_MATRIX);
    scratch.inverse_inertia.resize(count, ZERO_MATRIX);
    scratch.bound.resize(count, 0.0);
    scratch.sphere.resize(count, 0.0);
    let Bodies {
        motion:
            Motion {
                position,
                orientation,
                velocity,
                angular_velocity: spin,
            },
        inertial: Inertial {
            inverse_inertia, ..
        },
        shape: Shape { radius, .. },
        sleep: Sleep {
            sleeping: resting, ..
        },
        kept: Kept { clearance, .. },
        ..
    } = bodies;
    let (position, orientation, spin) = (&*position, &*orientation, &*spin);
    let (inverse_inertia, radius, resting) = (&*inverse_inertia, &*radius, &*resting);
    let mut runs: Vec<PrepareRun> = velocity
        .chunks_mut(BODY_RUN)
        .zip(clearance.chunks_mut(BODY_RUN))
        .zip(scratch.rotation.chunks_mut(BODY_RUN))
        .zip(scratch.inverse_inertia.chunks_mut(BODY_RUN))
        .zip(scratch.bound.chunks_mut(BODY_RUN))
        .zip(scratch.sphere.chunks_mut(BODY_RUN))
        .enumerate()
        .map(
            |(index, (((((velocity, clearance), rotation), inverse_inertia), bound), sphere))| {
                PrepareRun {
                    first: index * BODY_RUN,
                    velocity,
                    clearance,
                    rotation,
                    inverse_inertia,
                    bound,
                    sphere,
                }
            },
        )
        .collect();
    let prepare_run = |run: &mut PrepareRun| {
        for at in 0..run.velocity.len() {
            let body = run.first + at;
            let rotation = math::rotation(orientation[body]);
            let radius = radius[body];
            if resting[body] {
                run.inverse_inertia[at] = ZERO_MATRIX;
                run.bound[at] = 0.0;
                run.sphere[at] = radius + MARGIN + SPHERE_SLACK;
            } else {
                if gravity {
                    run.velocity[at][1] -= GRAVITY * STEP;
                }
                run.clearance[at].follow(position[body], orientation[body], radius);
                run.inverse_inertia[at] = math::turned(&rotation, &inverse_inertia[body]);
                // No point of the body moves faster than its middle plus its spin at its
                // radius.
                let bound = math::length(run.velocity[at]) + math::length(spin[body]) * radius;
                run.bound[at] = bound;
                run.sphere[at] = radius + MARGIN + bound * STEP + SPHERE_SLACK;
            }
            run.rotation[at] = rotation;
        }
    };
    pool.for_each_mut(&mut runs, prepare_run);
    scratch.awake.clear();
    scratch.moving.clear();
    scratch.job_of.clear();
    for (body, &resting) in resting.iter().enumerate() {
        scratch.awake.push(!resting);
        if resting {
            scratch.job_of.push(NONE);
        } else {
            scratch.job_of.push(scratch.moving.len() as u32);
            scratch.moving.push(body as u32);
        }
    }
}

/// Puts to sleep the islands (`islands`) whose bodies are all ready, or one of whose bodies has
/// touched something for the longest fall: the awake bodies joined by the step's touching
/// contacts between two of them. A body that falls out counts as ready: it leaves the island.
fn sleep_islands(bodies: &mut Bodies, scratch: &mut Scratch, report: &mut StepReport) {
    let islands = &mut scratch.islands;
    islands.start(bodies.len());
    for bundle in scratch.solver.bundles() {
        for group in &bundle.lanes {
            if group.first != NONE && group.second != NONE && group.touching > 0 {
                islands.join(group.first, group.second);
            }
        }
    }
    for &body in &scratch.moving {
        let moved = scratch.moved[body as usize];
        islands.hold_awake(body, moved != Moved::On);
        if moved == Moved::Aged {
            islands.expire(body);
        }
    }
    for &body in &scratch.moving {
        let dense = body as usize;
        if scratch.moved[dense] != Moved::Fell && islands.sleeps(body) {
            bodies.sleep.sleeping[dense] = true;
            bodies.motion.velocity[dense] = ZERO;
            bodies.motion.angular_velocity[dense] = ZERO;
            report.came_to_rest.push(bodies.handle(dense));
        }
    }
}

/// Turns the pairs into the lists of partners of the jobs that find them ([`finder`]).
fn partners(scratch: &mut Scratch) {
    let moving = scratch.moving.len();
    scratch.partner_start.clear();
    scratch.partner_start.resize(moving + 1, 0);
    for &(a, b) in &scratch.sweep.pairs {
        if let Some(job) = finder(&scratch.job_of, a, b) {
            scratch.partner_start[job as usize + 1] += 1;
        }
    }
    for job in 0..moving {
        scratch.partner_start[job + 1] += scratch.partner_start[job];
    }
    scratch.partners.clear();
    scratch
        .partners
        .resize(scratch.partner_start[moving] as usize, 0);
    // `local` serves as each job's fill cursor.
    scratch.local.clear();
    scratch
        .local
        .extend_from_slice(&scratch.partner_start[..moving]);
    // In the pairs' order (each job sorts its own list when it runs).
    for &(a, b) in &scratch.sweep.pairs {
        if let Some(job) = finder(&scratch.job_of, a, b) {
            let other = if scratch.job_of[a as usize] == job {
                b
            } else {
                a
            };
            let at = &mut scratch.local[job as usize];
            scratch.partners[*at as usize] = other;
            *at += 1;
        }
    }
}

/// The job that finds a pair's contacts: the awake body's, or of two awake bodies the one
/// with the lower dense index (its job finds both bodies' points, [`ContactJob::find`]).
///
/// [`ContactJob::find`]: super::contacts::ContactJob::find
fn finder(job_of: &[u32], a: u32, b: u32) -> Option<u32> {
    let (low, high) = (a.min(b), a.max(b));
    [job_of[low as usize], job_of[high as usize]]
        .into_iter()
        .find(|&job| job != NONE)
}

/// What became of a body as it moved ([`integrate`]).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(super) enum Moved {
    /// Resting, or moved and still awake.
    #[default]
    On,
    /// Below the world or no longer finite: to be removed.
    Fell,
    /// Ready to sleep: still long enough; it sleeps if its whole island is ready (`islands`).
    Ready,
    /// Touching something for the longest fall: its whole island sleeps.
    Aged,
}

/// One run of bodies for [`integrate`]: from dense index `first`, the parts of the per-body
/// arrays it writes.
struct MoveRun<'a> {
    first: usize,
    position: &'a mut [Vector],
    orientation: &'a mut [Quaternion],
    velocity: &'a mut [Vector],
    spin: &'a mut [Vector],
    still: &'a mut [f64],
    age: &'a mut [f64],
    moved: &'a mut [Moved],
}

/// Moves and turns the awake bodies with their solved velocities, lets touching ones lose
/// spin and (if `resting`) islands whose bodies are all still come to rest
/// ([`sleep_islands`]), and removes those that fell out of the world. On
/// the workers, a run of bodies each (as [`prepare`]); what became of each is reported in
/// dense order.
fn integrate(
    pool: &WorkerPool,
    bodies: &mut Bodies,
    scratch: &mut Scratch,
    resting: bool,
    report: &mut StepReport,
) {
    let count = bodies.len();
    scratch.moved.clear();
    scratch.moved.resize(count, Moved::On);
    let spin_kept = (1.0 - ANGULAR_DAMPING * STEP).max(0.0);
    let (job_of, velocities) = (&scratch.job_of, &scratch.solver.velocities);
    let Bodies {
        motion:
            Motion {
                position,
                orientation,
                velocity,
                angular_velocity: spin,
            },
        sleep:
            Sleep {
                still,
                age,
                touching,
                ..
            },
        ..
    } = bodies;
    let touching = &*touching;
    let mut runs: Vec<MoveRun> = position
        .chunks_mut(BODY_RUN)
        .zip(orientation.chunks_mut(BODY_RUN))
        .zip(velocity.chunks_mut(BODY_RUN))
        .zip(spin.chunks_mut(BODY_RUN))
        .zip(still.chunks_mut(BODY_RUN))
        .zip(age.chunks_mut(BODY_RUN))
        .zip(scratch.moved.chunks_mut(BODY_RUN))
        .enumerate()
        .map(
            |(index, ((((((position, orientation), velocity), spin), still), age), moved))| {
                MoveRun {
                    first: index * BODY_RUN,
                    position,
                    orientation,
                    velocity,
                    spin,
                    still,
                    age,
                    moved,
                }
            },
        )
        .collect();
    let move_run = |run: &mut MoveRun| {
        for at in 0..run.position.len() {
            let body = run.first + at;
            let job = job_of[body];
            if job == NONE {
                continue;
            }
            let (velocity, spin) = velocities.get(job as usize);
            // The speed limits: a terminal velocity nothing in play reaches (`MOST_SPEED`).
            let velocity = math::at_most(velocity, MOST_SPEED);
            let spin = math::at_most(spin, MOST_ANGULAR_SPEED);
            run.velocity[at] = velocity;
            run.position[at] = math::add_scaled(run.position[at], velocity, STEP);
            run.orientation[at] = math::spun(run.orientation[at], spin, STEP);
            let touching = touching[body] > 0;
            run.spin[at] = if touching {
                math::scale(spin, spin_kept)
            } else {
                spin
            };
            let still = touching
                && math::length(velocity) < STILL_SPEED
                && math::length(run.spin[at]) < STILL_ANGULAR_SPEED;
            run.still[at] = if still { run.still[at] + STEP } else { 0.0 };
            // The longest fall counts only the time spent touching: it ends endless jitter,
            // and a body in free fall falls until it lands or leaves the world.
            if touching {
                run.age[at] += STEP;
            }
            let position = run.position[at];
            if position[1] < BOTTOM
                || !math::finite(position)
                || position.iter().any(|c| c.abs() > EDGE)
            {
                run.moved[at] = Moved::Fell;
                continue;
            }
            if resting && run.age[at] >= LONGEST_FALL {
                run.moved[at] = Moved::Aged;
            } else if resting && run.still[at] >= STILL_TIME {
                run.moved[at] = Moved::Ready;
            }
        }
    };
    pool.for_each_mut(&mut runs, move_run);
    if resting {
        sleep_islands(bodies, scratch, report);
    }
    scratch.fallen.clear();
    for &body in &scratch.moving {
        let body = body as usize;
        if scratch.moved[body] == Moved::Fell {
            scratch.fallen.push(bodies.handle(body));
        }
    }
    for &handle in &scratch.fallen {
        if bodies.remove(handle).is_ok() {
            report.fell_out.push(handle);
        }
    }
}
