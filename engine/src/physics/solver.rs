//! The solver set: every awake body's contact rows, coloured, bundled and solved together.
//!
//! The awake bodies are numbered densely by their place among the awake ones (their job's
//! index), and their velocities live in one array for the whole solve ([`Velocities`]).
//! Resting bodies are not in it: against them, as against the world, a row moves only the
//! awake side, so a resting pile costs the solver nothing.
//!
//! The rows are grouped by the pair of things they push ([`Group`]), groups in the order of
//! the pair's dense indices, a function of the scene alone. Then, as in Box2D v3, the groups
//! are coloured over the whole set (no islands in the solver):
//!
//! ```text
//!   groups (a–b = rows between awake bodies a and b, a–⊥ = rows against something fixed)
//!     colour 0:  1–⊥  2–3  4–5        no two groups of a colour share an awake body, so the
//!     colour 1:  2–⊥  3–4             groups of a colour may be solved in any order, or at
//!     colour 2:  1–2  3–⊥             once, and give the same bits; colours go in order.
//! ```
//!
//! Greedy colouring: each group, in pair order, takes the lowest colour that neither of its
//! awake bodies has used yet. A body in more than [`COLOURS`] groups puts the rest in one last
//! colour whose groups are worked one after another (the overflow).
//!
//! The groups of a colour are laid side by side in [`Bundle`]s of four (`lanes`), like length
//! beside like length, and the whole solve is one call on the workers in stages:
//!
//! ```text
//!   stage:   rows | start c0 | start c1 | … | pass 1: c0 | c1 | … | pass 8: … | cN
//!            │      └ then each stage: its colour's bundles on any thread, each bundle
//!            │        loading its bodies' velocities, working its rows (the first time: the
//!            │        pushes they start with, warm starting), storing them back
//!            └ every bundle builds its rows, each on the thread that will mostly solve it;
//!              the next stage begins when all of this one's bundles are done
//! ```
//!
//! Every split and every order here comes from the scene: the colours from the groups, the
//! bundles from the colours, the stages from both. Each bundle is worked by exactly one thread
//! per stage and reads and writes only its own bodies, so the result is bitwise the same for
//! any number of threads.

use std::ops::Range;

use super::body::Bodies;
use super::contacts::{Contact, ContactJob, NONE};
use super::lanes::{Bundle, Velocities, LANES};
use super::math::{Matrix, Vector};
use super::patches::spread;
use super::rows::{contact_rows, Mover};
use super::tuning::ITERATIONS;
use super::warm::{sort_list, ContactKey, ContactPush, WarmStarts};
use crate::workers::WorkerPool;

/// How many colours the groups may use; groups that find none free go into one more, worked
/// in order.
pub(crate) const COLOURS: usize = 64;

/// What building the rows reads.
pub(crate) struct Shared<'a> {
    pub bodies: &'a Bodies,
    /// World frame, for the awake bodies.
    pub inverse_inertia: &'a [Matrix],
    /// Each body's place among the awake ones ([`NONE`] if resting).
    pub awake: &'a [u32],
    pub jobs: &'a [ContactJob],
    /// Last step's pushes, to start persisting contacts from.
    pub warm: &'a WarmStarts,
}

/// The awake set's groups, colours, bundles and velocities, with the buffers a step reuses.
#[derive(Debug, Default)]
pub(crate) struct Solver {
    /// How many contacts the step has.
    contacts: usize,
    /// Per group, in solving order (colour, then the longest first, then pair): its key,
    /// colour, and the job and range of its contacts.
    plans: Vec<Plan>,
    /// The groups in pair order while they are sorted into solving order, and the sort's
    /// bucket starts.
    coloured: Vec<Plan>,
    starts: Vec<u32>,
    /// Where each colour's groups end; the last colour is the overflow when `overflow` is set.
    colour_ends: Vec<usize>,
    overflow: bool,
    /// The colours each awake body has used, one bit each.
    masks: Vec<u64>,
    /// The groups side by side, colour after colour; only the first `bundle_count` are in use.
    bundles: Vec<Bundle>,
    bundle_count: usize,
    /// Each colour's bundles.
    colour_bundles: Vec<Range<usize>>,
    /// The solve's stages: ranges of bundles.
    stages: Vec<Range<usize>>,
    pub velocities: Velocities,
    /// Per awake body, the pushes its touching contacts ended the step with, sorted for the
    /// next step's search; handed to the world's [`WarmStarts`] after the step.
    pub kept: Vec<Vec<ContactPush>>,
}

/// A group: its pair (the key, `first << 32 | other`: `first` the group's first body, dense,
/// `other` 0 for the world, else the other body's dense index plus one), colour, and its
/// contacts: `jobs[job].contacts[start..end]`.
#[derive(Debug, Clone, Copy, Default)]
struct Plan {
    key: u64,
    colour: u32,
    job: u32,
    start: u32,
    end: u32,
}

impl Plan {
    fn contacts<'a>(&self, jobs: &'a [ContactJob]) -> &'a [Contact] {
        &jobs[self.job as usize].contacts[self.start as usize..self.end as usize]
    }
}

impl Solver {
    /// Takes in the groups the jobs found, in pair order, and colours them. `awake` is per
    /// dense index.
    ///
    /// Each job found every contact of the groups whose first body is its own, its groups in
    /// ascending order ([`ContactJob::find`]), and the jobs go in the order of their bodies'
    /// dense indices: one job after another, the groups come in the order of their keys with
    /// no sort. (Two counting sorts of every contact did this alone, a fifth of the time
    /// the 2-thread step spent on one thread.)
    pub fn plan(&mut self, jobs: &[ContactJob], awake: &[u32]) {
        self.plans.clear();
        self.contacts = 0;
        for (index, job) in jobs.iter().enumerate() {
            self.contacts += job.contacts.len();
            self.plans.extend(job.groups.iter().map(|run| Plan {
                key: run.key,
                colour: 0,
                job: index as u32,
                start: run.start,
                end: run.end,
            }));
        }
        debug_assert!(self.plans.windows(2).all(|two| two[0].key < two[1].key));
        self.colour(jobs.len(), awake);
    }

    /// How many contacts the groups have.
    pub fn contact_count(&self) -> usize {
        self.contacts
    }

    /// How many groups there are.
    pub fn group_count(&self) -> usize {
        self.plans.len()
    }

    /// Gives each plan the lowest colour neither of its awake bodies has used, then puts the
    /// plans in solving order: by colour, and within a colour the longest first (pair order
    /// among equals), the overflow in pair order.
    ///
    /// Groups of like length then lie side by side in the bundles, so that few lanes run
    /// empty, and the longest come first: the threads share out a stage's bundles in order,
    /// and the last ones taken are then the shortest, so neither thread waits long for the
    /// other at the stage's end (what longest first and the one sort bought: `bench physics
    /// --equal-work --only-heap`, docs/performance-history.md "Physics"). Within a colour the
    /// order changes no bits, each group being solved on its own. The overflow keeps its
    /// order: its groups are worked one after another. One stable counting sort by (colour,
    /// longest less length) does it, cheaper than a sort of each colour by length after a
    /// counting sort by colour.
    fn colour(&mut self, awake_count: usize, awake: &[u32]) {
        self.masks.clear();
        self.masks.resize(awake_count, 0);
        self.colour_ends.clear();
        self.overflow = false;
        let mut most = 0;
        for plan in &mut self.plans {
            let first = awake[(plan.key >> 32) as usize] as usize;
            let other = (plan.key & 0xffff_ffff) as u32;
            let second = (other != 0)
                .then(|| awake[other as usize - 1])
                .filter(|&index| index != NONE)
                .map(|index| index as usize);
            let used = self.masks[first] | second.map_or(0, |second| self.masks[second]);
            let colour = (!used).trailing_zeros() as usize;
            plan.colour = colour.min(COLOURS) as u32;
            if colour < COLOURS {
                self.masks[first] |= 1 << colour;
                if let Some(second) = second {
                    self.masks[second] |= 1 << colour;
                }
            } else {
                self.overflow = true;
            }
            most = most.max(colour.min(COLOURS));
        }
        // Buckets: `colour · width + (longest − contacts)`, the overflow's all in its first.
        let length = |plan: &Plan| (plan.end - plan.start) as usize;
        let longest = self.plans.iter().map(length).max().unwrap_or(0);
        let width = longest + 1;
        let overflow = self.overflow;
        let bucket = |plan: &Plan| {
            let colour = plan.colour as usize;
            let shorter = if overflow && colour == COLOURS {
                0
            } else {
                longest - length(plan)
            };
            colour * width + shorter
        };
        let buckets = (most + 1) * width;
        self.starts.clear();
        self.starts.resize(buckets + 1, 0);
        for plan in &self.plans {
            self.starts[bucket(plan) + 1] += 1;
        }
        for at in 0..buckets {
            self.starts[at + 1] += self.starts[at];
        }
        self.colour_ends.clear();
        self.colour_ends
            .extend((1..=most + 1).map(|colour| self.starts[colour * width] as usize));
        self.coloured.clear();
        self.coloured.resize(self.plans.len(), Plan::default());
        // `starts[b]` serves as bucket b's fill cursor.
        for plan in &self.plans {
            let cursor = &mut self.starts[bucket(plan)];
            self.coloured[*cursor as usize] = *plan;
            *cursor += 1;
        }
        std::mem::swap(&mut self.plans, &mut self.coloured);
    }

    /// How many colours the groups took (the overflow counting as one).
    pub fn colour_count(&self) -> usize {
        self.colour_ends.len()
    }

    /// Lays the groups of each colour side by side in bundles of [`LANES`] (the overflow's one
    /// to a bundle: its groups may share bodies) and lays out the stages of the solve;
    /// its first stage ([`Solver::solve`]) fills the bundles' rows.
    pub fn lay_out(&mut self) {
        self.bundle_count = 0;
        self.stages.clear();
        self.colour_bundles.clear();
        let mut start = 0;
        let plans = &self.plans;
        let contacts = |group: u32| {
            let plan = &plans[group as usize];
            (plan.end - plan.start) as usize
        };
        for (colour, &end) in self.colour_ends.iter().enumerate() {
            let overflow = self.overflow && colour == self.colour_ends.len() - 1;
            let width = if overflow { 1 } else { LANES };
            // In solving order already (`colour`).
            let first_bundle = self.bundle_count;
            for first in (start..end).step_by(width) {
                let lanes = first as u32..end.min(first + width) as u32;
                if self.bundles.len() == self.bundle_count {
                    self.bundles.push(Bundle::default());
                }
                // The longest comes first.
                let most = contacts(lanes.start);
                self.bundles[self.bundle_count].assign(lanes, most);
                self.bundle_count += 1;
            }
            self.colour_bundles.push(first_bundle..self.bundle_count);
            start = end;
        }
        // The rows built, the pushes the rows start with, then the passes; the overflow a
        // bundle at a time.
        if self.bundle_count > 0 {
            self.stages.push(0..self.bundle_count);
        }
        for _ in 0..=ITERATIONS {
            for (colour, bundles) in self.colour_bundles.iter().enumerate() {
                if self.overflow && colour == self.colour_bundles.len() - 1 {
                    self.stages
                        .extend(bundles.clone().map(|bundle| bundle..bundle + 1));
                } else if !bundles.is_empty() {
                    self.stages.push(bundles.clone());
                }
            }
        }
    }

    /// Calls `visit` with every contact of the step and the whole push it gave its group's
    /// first body (normal and friction; the second body took the opposite), bundle by bundle,
    /// lane by lane, each group's contacts in order. The group's first body is the contact's
    /// own or its other, whichever has the lower dense index when both are awake.
    ///
    /// A reduced patch (`patches`) is visited at every one of its points, the kept ones and
    /// those left out, its pushes spread over them all with the same net push and moment
    /// ([`spread`]); a point left out is visited as its patch's first kept contact placed there.
    pub fn for_each_push(&self, jobs: &[ContactJob], mut visit: impl FnMut(&Contact, u32, Vector)) {
        let (mut pushes, mut kept) = (Vec::new(), Vec::new());
        for bundle in self.bundles() {
            for lane in 0..LANES {
                let group = bundle.groups[lane];
                if group == NONE {
                    continue;
                }
                let plan = &self.plans[group as usize];
                let first = (plan.key >> 32) as u32;
                let job = &jobs[plan.job as usize];
                let range = plan.start as usize..plan.end as usize;
                let patch_of = &job.patch_of[range.clone()];
                pushes.clear();
                pushes.extend(bundle.contact_pushes(lane));
                for ((contact, &push), &patch) in
                    plan.contacts(jobs).iter().zip(&pushes).zip(patch_of)
                {
                    if patch == NONE {
                        visit(contact, first, push);
                    }
                }
                // Each reduced patch once, at its first kept contact.
                for (at, &patch) in patch_of.iter().enumerate() {
                    if patch as usize != range.start + at {
                        continue;
                    }
                    kept.clear();
                    kept.extend(
                        patch_of
                            .iter()
                            .zip(plan.contacts(jobs).iter().zip(&pushes))
                            .filter(|&(&of, _)| of == patch)
                            .map(|(_, (contact, &push))| (contact.point, push)),
                    );
                    let dropped = job
                        .dropped
                        .iter()
                        .filter(move |dropped| dropped.patch == patch)
                        .map(|dropped| dropped.point);
                    let representative = job.contacts[patch as usize];
                    spread(&kept, dropped, |point, push| {
                        let contact = Contact {
                            point,
                            ..representative
                        };
                        visit(&contact, first, push);
                    });
                }
            }
        }
    }

    /// The bundles in use.
    pub fn bundles(&self) -> &[Bundle] {
        &self.bundles[..self.bundle_count]
    }

    /// The solve: every stage, the bundles of a stage on the workers, the first stage building
    /// every bundle's rows.
    pub fn solve(&mut self, pool: &WorkerPool, shared: &Shared) {
        let (plans, velocities) = (&self.plans, &self.velocities);
        pool.for_each_in_stages(
            &mut self.bundles[..self.bundle_count],
            &self.stages,
            |bundle| {
                if bundle.built() {
                    bundle.work(velocities);
                } else {
                    build(bundle, plans, shared);
                }
            },
        );
    }

    /// Sorts the pushes the touching contacts ended the step with ([`Bundle::kept`]) into
    /// [`Solver::kept`], by awake body. On the workers, each thread a share of the bodies: it
    /// reads every bundle's pushes and keeps its own bodies', so no thread writes another's
    /// lists and nothing is left to do alone (gathering them on one thread was most of the
    /// serial time after the solve: `bench physics --equal-work --only-heap`,
    /// docs/performance-history.md "Physics").
    pub fn collect_pushes(&mut self, pool: &WorkerPool, awake_count: usize) {
        if self.kept.len() < awake_count {
            self.kept.resize_with(awake_count, Vec::new);
        }
        let bundles = &self.bundles[..self.bundle_count];
        let share = awake_count.div_ceil(pool.threads()).max(1);
        let mut shares: Vec<(usize, &mut [Vec<ContactPush>])> = self.kept[..awake_count]
            .chunks_mut(share)
            .enumerate()
            .map(|(index, lists)| (index * share, lists))
            .collect();
        pool.for_each_mut(&mut shares, |(first, lists)| {
            let first = *first;
            for list in lists.iter_mut() {
                list.clear();
            }
            let bodies = first..first + lists.len();
            for bundle in bundles {
                for (&body, push) in bundle.kept_bodies.iter().zip(&bundle.kept) {
                    if bodies.contains(&(body as usize)) {
                        lists[body as usize - first].push(*push);
                    }
                }
            }
            // A body's keys are unique, so its sorted list does not depend on the order of
            // the bundles.
            for list in lists.iter_mut() {
                sort_list(list);
            }
        });
    }
}

/// Builds the rows of a bundle's groups straight into its lanes, each contact started from
/// last step's pushes when it persists.
fn build(bundle: &mut Bundle, plans: &[Plan], shared: &Shared) {
    bundle.clear();
    let bodies = shared.bodies;
    let mover = |dense: usize| Mover {
        position: bodies.position[dense],
        velocity: bodies.velocity[dense],
        spin: bodies.spin[dense],
        inverse_mass: bodies.inverse_mass[dense],
        inverse_inertia: shared.inverse_inertia[dense],
    };
    for lane in 0..LANES {
        let group = bundle.groups[lane];
        if group != NONE {
            let plan = &plans[group as usize];
            let first = (plan.key >> 32) as u32;
            let other = (plan.key & 0xffff_ffff) as u32;
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
            let a = shared.awake[first as usize];
            bundle.set_group(
                lane,
                (a, b),
                (first, second, struck),
                mover_a.inverse_mass,
                mover_b.inverse_mass,
            );
            for contact in plan.contacts(shared.jobs) {
                let sign = if contact.body == first { 1.0 } else { -1.0 };
                let key = ContactKey {
                    body: bodies.handle(contact.body as usize),
                    other: (contact.other != NONE).then(|| bodies.handle(contact.other as usize)),
                    point: contact.feature,
                };
                let warm = shared.warm.get(&key);
                let rows = contact_rows(contact, sign, &mover_a, &mover_b, warm);
                bundle.push_contact(lane, &rows, Some(key), sign);
            }
        }
        bundle.end_group(lane);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A group between awake bodies `first` and `second` (or the world) with `contacts`.
    fn plan(first: u32, second: Option<u32>, contacts: u32) -> Plan {
        Plan {
            key: (u64::from(first) << 32) | second.map_or(0, |second| u64::from(second) + 1),
            colour: 0,
            job: first,
            start: 0,
            end: contacts,
        }
    }

    #[test]
    fn groups_are_coloured_apart_longest_first_and_the_overflow_kept_in_pair_order() {
        // Body 0 touches the world and 79 others: 64 colours and the overflow; a chain of
        // others beside it, of mixed lengths.
        let bodies = 120;
        let awake: Vec<u32> = (0..bodies).collect();
        let mut plans = vec![plan(0, None, 2)];
        plans.extend((1..80).map(|other| plan(0, Some(other), 1 + other % 5)));
        plans.extend((80..bodies - 1).map(|body| plan(body, Some(body + 1), 1 + body % 7)));
        plans.sort_by_key(|plan| plan.key);
        let mut solver = Solver {
            plans: plans.clone(),
            ..Solver::default()
        };
        solver.colour(bodies as usize, &awake);
        solver.lay_out();
        assert!(solver.overflow);
        assert_eq!(solver.colour_count(), COLOURS + 1);
        let length = |plan: &Plan| plan.end - plan.start;
        let mut start = 0;
        for (colour, &end) in solver.colour_ends.iter().enumerate() {
            let groups = &solver.plans[start..end];
            assert!(groups.iter().all(|plan| plan.colour as usize == colour));
            if colour < COLOURS {
                // No two share a body; the longest first, pair order among equals.
                let mut bodies_seen = std::collections::HashSet::new();
                for plan in groups {
                    let (first, other) = (plan.key >> 32, plan.key & 0xffff_ffff);
                    assert!(bodies_seen.insert(first), "colour {colour}");
                    assert!(
                        other == 0 || bodies_seen.insert(other - 1),
                        "colour {colour}"
                    );
                }
                assert!(groups.windows(2).all(|two| {
                    (std::cmp::Reverse(length(&two[0])), two[0].key)
                        < (std::cmp::Reverse(length(&two[1])), two[1].key)
                }));
            } else {
                // The overflow: the 16 groups of body 0 that found no colour, in pair order.
                assert_eq!(groups.len(), 80 - COLOURS);
                assert!(groups.windows(2).all(|two| two[0].key < two[1].key));
            }
            start = end;
        }
        // Every group once, and the bundles: four of a colour side by side, the overflow's
        // one each and a stage each in every pass.
        let mut keys: Vec<u64> = solver.plans.iter().map(|plan| plan.key).collect();
        keys.sort_unstable();
        assert_eq!(keys, plans.iter().map(|plan| plan.key).collect::<Vec<_>>());
        let overflow = solver.colour_bundles.last().expect("colours").clone();
        assert_eq!(overflow.len(), 80 - COLOURS);
        let mut start = 0;
        for (colour, bundles) in solver.colour_bundles.iter().enumerate() {
            let groups = solver.colour_ends[colour] - start;
            let width = if colour < COLOURS { LANES } else { 1 };
            assert_eq!(bundles.len(), groups.div_ceil(width), "colour {colour}");
            let lanes: usize = solver.bundles()[bundles.clone()]
                .iter()
                .map(|bundle| bundle.groups.iter().filter(|&&group| group != NONE).count())
                .sum();
            assert_eq!(lanes, groups, "colour {colour}");
            start = solver.colour_ends[colour];
        }
        let single = solver
            .stages
            .iter()
            .filter(|stage| stage.len() == 1 && overflow.contains(&stage.start))
            .count();
        assert_eq!(single, (80 - COLOURS) * (ITERATIONS + 1));
    }
}
