//! One step, in the order of docs/physics.md (gravity, contacts, solve, integrate) with the
//! pairs, islands and workers added:
//!
//! ```text
//!   prepare     gravity on the awake bodies; turn matrices, world inverse inertias,
//!               how fast each may move, grown spheres                          (serial)
//!   broad       sort and sweep: pairs of bodies whose spheres overlap           (serial)
//!   contacts    one job per awake body: its points against the world and its
//!               partners' shapes (and resting partners' points against its own) (workers)
//!   islands     union-find over contacts between awake bodies; contacts to the
//!               island of their first body                                      (serial)
//!   solve       per island: group, colour if large, build rows, 8 passes        (workers)
//!               large islands: colour after colour, a colour's groups at once   (workers)
//!   integrate   velocities back, move and turn, lose spin, rest, fall out       (serial)
//! ```
//!
//! The serial parts are linear in the bodies and cheap next to the contact queries and the
//! rows; every order in them is the dense index order, so the whole step is a function of the
//! scene.

use super::contacts::{Scene, NONE};
use super::islands::{ContactRef, Shared};
use super::math::{self, ZERO, ZERO_MATRIX};
use super::tuning::{
    BOTTOM, GRAVITY, LONGEST_FALL, MARGIN, SPIN_LOSS, STEP, STILL_SPEED, STILL_SPIN, STILL_TIME,
};
use super::world::{PhysicsWorld, Scratch};
use super::{BodyShape, StepReport};
use crate::collision::Solid;

use super::body::Bodies;

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
            large_rows,
            parallel_rows,
            resting,
            warm,
            ..
        } = self;
        prepare(bodies, scratch);
        if scratch.moving.is_empty() {
            warm.clear_all();
            return;
        }
        scratch
            .sweep
            .find(&bodies.position, &scratch.sphere, &scratch.awake);
        partners(scratch);

        let moving = scratch.moving.len();
        while scratch.jobs.len() < moving {
            scratch.jobs.push(Default::default());
        }
        for (job, (slot, &body)) in scratch.jobs.iter_mut().zip(&scratch.moving).enumerate() {
            slot.body = body;
            slot.job = job as u32;
        }
        let scene = Scene {
            bodies,
            rotation: &scratch.rotation,
            bound: &scratch.bound,
            partner_start: &scratch.partner_start,
            partners: &scratch.partners,
            world,
            shapes,
        };
        pool.for_each_mut(&mut scratch.jobs[..moving], |job| job.find(&scene));

        islands(bodies, scratch);
        let shared = Shared {
            bodies,
            inverse_inertia: &scratch.inverse_inertia,
            local: &scratch.local,
            jobs: &scratch.jobs,
            large_rows: *large_rows,
            warm,
        };
        let islands = &mut scratch.islands[..scratch.island_count];
        pool.for_each_mut(islands, |island| {
            island.build(&shared);
            if !island.large {
                island.solve_in_order();
                island.collect_pushes();
            }
        });
        for island in islands.iter_mut().filter(|island| island.large) {
            island.solve_by_colour(pool, *parallel_rows);
            island.collect_pushes();
        }
        // Each moving body's new pushes replace its old (the lists are swapped); a resting
        // body keeps none.
        for island in islands.iter_mut() {
            for (local, &body) in island.bodies.iter().enumerate() {
                warm.put(bodies.handle(body as usize), &mut island.kept[local]);
            }
        }
        for body in 0..bodies.len() {
            if bodies.resting[body] {
                warm.clear(bodies.handle(body));
            }
        }

        // The solved velocities back into the bodies, and what touched what.
        for island in islands.iter() {
            for (local, &body) in island.bodies.iter().enumerate() {
                let body = body as usize;
                bodies.velocity[body] = island.velocity[local];
                bodies.spin[body] = island.spin[local];
                bodies.touching[body] = 0;
            }
        }
        for island in islands.iter() {
            for group in &island.groups[..island.group_count] {
                let first = island.bodies[group.a as usize] as usize;
                bodies.touching[first] += group.touching;
                if group.b != NONE {
                    bodies.touching[island.bodies[group.b as usize] as usize] += group.touching;
                }
                if group.struck != NONE {
                    let impulse = group.normal_impulse();
                    if impulse > 0.0 {
                        report.hits.push((
                            bodies.handle(group.struck as usize),
                            bodies.handle(first),
                            impulse,
                        ));
                    }
                }
            }
        }

        integrate(bodies, scratch, *resting, report);
        for &handle in &report.fell_out {
            warm.forget(handle);
        }
    }
}

/// Gravity, and what the rest of the step needs to know of each body.
fn prepare(bodies: &mut Bodies, scratch: &mut Scratch) {
    let count = bodies.len();
    scratch.rotation.clear();
    scratch.inverse_inertia.clear();
    scratch.bound.clear();
    scratch.sphere.clear();
    scratch.awake.clear();
    scratch.moving.clear();
    scratch.job_of.clear();
    for body in 0..count {
        let rotation = math::rotation(bodies.orientation[body]);
        let radius = bodies.radius[body];
        if bodies.resting[body] {
            scratch.inverse_inertia.push(ZERO_MATRIX);
            scratch.bound.push(0.0);
            scratch.awake.push(false);
            scratch.job_of.push(NONE);
            scratch.sphere.push(radius + MARGIN + SPHERE_SLACK);
        } else {
            bodies.velocity[body][1] -= GRAVITY * STEP;
            scratch
                .inverse_inertia
                .push(math::turned(&rotation, &bodies.inverse_inertia[body]));
            // No point of the body moves faster than its middle plus its spin at its radius.
            let bound =
                math::length(bodies.velocity[body]) + math::length(bodies.spin[body]) * radius;
            scratch.bound.push(bound);
            scratch.awake.push(true);
            scratch.job_of.push(scratch.moving.len() as u32);
            scratch.moving.push(body as u32);
            scratch
                .sphere
                .push(radius + MARGIN + bound * STEP + SPHERE_SLACK);
        }
        scratch.rotation.push(rotation);
    }
}

/// Turns the sorted pairs into each awake body's list of partners, ascending.
fn partners(scratch: &mut Scratch) {
    let moving = scratch.moving.len();
    scratch.partner_start.clear();
    scratch.partner_start.resize(moving + 1, 0);
    for &(a, b) in &scratch.sweep.pairs {
        for body in [a, b] {
            let job = scratch.job_of[body as usize];
            if job != NONE {
                scratch.partner_start[job as usize + 1] += 1;
            }
        }
    }
    for job in 0..moving {
        scratch.partner_start[job + 1] += scratch.partner_start[job];
    }
    scratch.partners.clear();
    scratch
        .partners
        .resize(scratch.partner_start[moving] as usize, 0);
    // `local` is free until the islands: it serves as each job's fill cursor.
    scratch.local.clear();
    scratch
        .local
        .extend_from_slice(&scratch.partner_start[..moving]);
    // The pairs are sorted, so (a, x) with a < x come before (x, b): each list ascends.
    for &(a, b) in &scratch.sweep.pairs {
        for (body, other) in [(a, b), (b, a)] {
            let job = scratch.job_of[body as usize];
            if job != NONE {
                let at = &mut scratch.local[job as usize];
                scratch.partners[*at as usize] = other;
                *at += 1;
            }
        }
    }
}

/// Groups the awake bodies into islands and hands each island its contacts.
fn islands(bodies: &Bodies, scratch: &mut Scratch) {
    let count = bodies.len();
    let moving = scratch.moving.len();
    scratch.links.reset(count);
    for job in &scratch.jobs[..moving] {
        for contact in &job.contacts {
            if contact.other != NONE && scratch.awake[contact.other as usize] {
                scratch.links.join(contact.body, contact.other);
            }
        }
    }
    // Islands are numbered in the order of their lowest body, and take their bodies in
    // ascending order. `job_of` is done with and maps roots to islands here.
    scratch.island_of.clear();
    scratch.island_of.resize(count, NONE);
    scratch.local.clear();
    scratch.local.resize(count, NONE);
    for root in scratch.job_of.iter_mut() {
        *root = NONE;
    }
    scratch.island_count = 0;
    for &body in &scratch.moving {
        let root = scratch.links.find(body) as usize;
        if scratch.job_of[root] == NONE {
            scratch.job_of[root] = scratch.island_count as u32;
            if scratch.islands.len() == scratch.island_count {
                scratch.islands.push(Default::default());
            }
            scratch.islands[scratch.island_count].clear();
            scratch.island_count += 1;
        }
        let island = scratch.job_of[root];
        let members = &mut scratch.islands[island as usize].bodies;
        scratch.island_of[body as usize] = island;
        scratch.local[body as usize] = members.len() as u32;
        members.push(body);
    }
    for (job, found) in scratch.jobs[..moving].iter().enumerate() {
        for (index, contact) in found.contacts.iter().enumerate() {
            let (first, other) = if contact.other == NONE {
                (contact.body, 0)
            } else if !scratch.awake[contact.other as usize] {
                (contact.body, contact.other + 1)
            } else {
                (
                    contact.body.min(contact.other),
                    contact.body.max(contact.other) + 1,
                )
            };
            let island = scratch.island_of[contact.body as usize] as usize;
            scratch.islands[island].refs.push(ContactRef {
                key: (u64::from(first) << 32) | u64::from(other),
                job: job as u32,
                index: index as u32,
            });
        }
    }
}

/// Moves and turns the awake bodies, lets touching ones lose spin and (if `resting`) come to
/// rest, and removes those that fell out of the world.
fn integrate(bodies: &mut Bodies, scratch: &mut Scratch, resting: bool, report: &mut StepReport) {
    scratch.fallen.clear();
    let spin_kept = (1.0 - SPIN_LOSS * STEP).max(0.0);
    for &body in &scratch.moving {
        let body = body as usize;
        let velocity = bodies.velocity[body];
        bodies.position[body] = math::add_scaled(bodies.position[body], velocity, STEP);
        bodies.orientation[body] = math::spun(bodies.orientation[body], bodies.spin[body], STEP);
        let touching = bodies.touching[body] > 0;
        if touching {
            bodies.spin[body] = math::scale(bodies.spin[body], spin_kept);
        }
        let still = touching
            && math::length(velocity) < STILL_SPEED
            && math::length(bodies.spin[body]) < STILL_SPIN;
        bodies.still[body] = if still {
            bodies.still[body] + STEP
        } else {
            0.0
        };
        bodies.age[body] += STEP;
        if bodies.position[body][1] < BOTTOM || !math::finite(bodies.position[body]) {
            scratch.fallen.push(bodies.handle(body));
            continue;
        }
        if resting && (bodies.still[body] >= STILL_TIME || bodies.age[body] >= LONGEST_FALL) {
            bodies.resting[body] = true;
            bodies.velocity[body] = ZERO;
            bodies.spin[body] = ZERO;
            report.came_to_rest.push(bodies.handle(body));
        }
    }
    for &handle in &scratch.fallen {
        if bodies.remove(handle).is_ok() {
            report.fell_out.push(handle);
        }
    }
}
