//! Islands: the moving bodies that push on each other this step, solved together.
//!
//! Two moving bodies with a contact between them are in one island (union-find over the
//! contacts). A resting body, like the world, is a fixed obstacle: it links nothing, so a
//! pile of pieces resting on the ground does not make every piece that lands on it one big
//! island. Islands share no moving body, so they are solved in parallel, each on its own
//! copies of its bodies' velocities.
//!
//! Inside an island the rows are grouped by the pair of things they push ([`Group`]), and the
//! groups are ordered by the pair's dense indices: a function of the scene alone. A small
//! island is worked through in that order, group after group, pass after pass, by one thread.
//! A large island is split further by colours:
//!
//! ```text
//!   groups (a–b = rows between bodies a and b, a–⊥ = rows against something fixed)
//!     colour 0:  1–⊥  2–3  4–5        no two groups of a colour share a moving body, so
//!     colour 1:  2–⊥  3–4             the groups of a colour may be solved in any order, or
//!     colour 2:  1–2  3–⊥             at once, and give the same bits; colours go in order.
//! ```
//!
//! Greedy colouring: each group, in pair order, takes the lowest colour that neither of its
//! moving bodies has used yet. Whether an island is large depends on its number of rows, and
//! the colours on its groups, never on the number of threads: a large island is solved colour
//! by colour with one thread as with sixteen, which is why the results are bitwise identical.
//! A body in more than [`COLOURS`] groups puts the rest in a last group of groups that is
//! worked through in order on one thread.

use super::body::Bodies;
use super::contacts::{ContactJob, NONE};
use super::math::{Matrix, Vector};
use super::rows::{Group, Mover};
use super::tuning::ITERATIONS;
use super::warm::{sort_list, ContactKey, ContactPush, WarmStarts};
use crate::workers::WorkerPool;

/// How many colours an island may use for parallel solving; groups that find none free go
/// into one more, solved in order.
pub(crate) const COLOURS: usize = 64;

/// Islands with more rows than this are solved colour by colour, the groups of a colour on
/// the workers. Below it, the cost of starting threads for every colour of every pass is more
/// than the rows are worth: the pool starts its threads per call.
pub(crate) const LARGE_ISLAND_ROWS: usize = 4096;

/// A colour of fewer rows than this is solved on the calling thread (with the same result).
pub(crate) const PARALLEL_COLOUR_ROWS: usize = 1024;

/// Union-find over dense body indices, with path halving. Which body becomes a root depends on
/// the order of the unions, but which bodies share a root does not.
#[derive(Debug, Default)]
pub(crate) struct Links {
    parent: Vec<u32>,
}

impl Links {
    /// Every body its own set.
    pub fn reset(&mut self, count: usize) {
        self.parent.clear();
        self.parent.extend(0..count as u32);
    }

    pub fn find(&mut self, mut body: u32) -> u32 {
        while self.parent[body as usize] != body {
            let grandparent = self.parent[self.parent[body as usize] as usize];
            self.parent[body as usize] = grandparent;
            body = grandparent;
        }
        body
    }

    pub fn join(&mut self, a: u32, b: u32) {
        let (a, b) = (self.find(a), self.find(b));
        if a != b {
            // The lower index becomes the root: any rule would do, this one is fixed.
            let (low, high) = if a < b { (a, b) } else { (b, a) };
            self.parent[high as usize] = low;
        }
    }
}

/// A contact, by where it is kept, with the key of the group it belongs to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) struct ContactRef {
    /// `first << 32 | other`: `first` the group's first body (dense), `other` 0 for the
    /// world, else the other body's dense index plus one.
    pub key: u64,
    /// The job that found it and its place in that job's list: unique, so sorting by
    /// `(key, job, index)` is a total order.
    pub job: u32,
    pub index: u32,
}

/// A group before its rows are built: which contacts, and where it goes.
#[derive(Debug, Clone, Copy)]
struct Plan {
    key: u64,
    colour: u32,
    /// Its place in key order.
    order: u32,
    start: u32,
    end: u32,
}

/// What building an island's rows reads.
pub(crate) struct Shared<'a> {
    pub bodies: &'a Bodies,
    /// World frame, for the awake bodies.
    pub inverse_inertia: &'a [Matrix],
    /// Each awake body's index within its island.
    pub local: &'a [u32],
    pub jobs: &'a [ContactJob],
    pub large_rows: usize,
    /// Last step's pushes, to start persisting contacts from.
    pub warm: &'a WarmStarts,
}

/// One island's bodies, contacts, groups of rows, and the velocities it works on.
#[derive(Debug, Default)]
pub(crate) struct Island {
    /// Dense indices, ascending.
    pub bodies: Vec<u32>,
    /// The island's copies of its bodies' velocities and spins, by island-local index.
    pub velocity: Vec<Vector>,
    pub spin: Vec<Vector>,
    pub refs: Vec<ContactRef>,
    plans: Vec<Plan>,
    /// Groups in solving order; only the first `group_count` are in use, the rest keep their
    /// buffers for later steps.
    pub groups: Vec<Group>,
    pub group_count: usize,
    /// Where each colour's groups end; the groups of the last colour are solved in order
    /// when `overflow` is set.
    colour_ends: Vec<usize>,
    overflow: bool,
    pub large: bool,
    /// The colours each island-local body has used, one bit each.
    masks: Vec<u64>,
    /// Per island-local body, the pushes its touching contacts ended the step with, sorted
    /// for the next step's search (`warm`); handed to the world's [`WarmStarts`] after the step.
    pub kept: Vec<Vec<ContactPush>>,
}

impl Island {
    /// Empties the island for a new step, keeping its buffers.
    pub fn clear(&mut self) {
        self.bodies.clear();
        self.refs.clear();
        self.group_count = 0;
        self.colour_ends.clear();
        self.overflow = false;
        self.large = false;
    }

    /// Copies the velocities in, sorts the contacts into groups, colours a large island, and
    /// builds the rows.
    pub fn build(&mut self, shared: &Shared) {
        let bodies = shared.bodies;
        self.velocity.clear();
        self.spin.clear();
        for &body in &self.bodies {
            self.velocity.push(bodies.velocity[body as usize]);
            self.spin.push(bodies.spin[body as usize]);
        }
        self.refs.sort_unstable();
        self.plans.clear();
        let mut start = 0;
        while start < self.refs.len() {
            let key = self.refs[start].key;
            let mut end = start + 1;
            while end < self.refs.len() && self.refs[end].key == key {
                end += 1;
            }
            self.plans.push(Plan {
                key,
                colour: 0,
                order: self.plans.len() as u32,
                start: start as u32,
                end: end as u32,
            });
            start = end;
        }
        let rows = self.refs.len() * 3;
        self.large = rows > shared.large_rows;
        if self.large {
            self.colour(shared);
        } else {
            self.colour_ends.push(self.plans.len());
        }
        while self.groups.len() < self.plans.len() {
            self.groups.push(Group::default());
        }
        self.group_count = self.plans.len();
        let mover = |dense: usize| Mover {
            position: bodies.position[dense],
            velocity: bodies.velocity[dense],
            spin: bodies.spin[dense],
            inverse_mass: bodies.inverse_mass[dense],
            inverse_inertia: shared.inverse_inertia[dense],
        };
        for (plan, group) in self.plans.iter().zip(&mut self.groups) {
            let first = (plan.key >> 32) as u32;
            let other = (plan.key & 0xffff_ffff) as u32;
            let mover_a = mover(first as usize);
            let a = shared.local[first as usize];
            let (b, struck, mover_b) = if other == 0 {
                (NONE, NONE, Mover::FIXED)
            } else {
                let other = other - 1;
                if bodies.resting[other as usize] {
                    (NONE, other, Mover::FIXED)
                } else {
                    (shared.local[other as usize], NONE, mover(other as usize))
                }
            };
            group.reset(a, b, struck, &mover_a, &mover_b);
            for reference in &self.refs[plan.start as usize..plan.end as usize] {
                let contact =
                    &shared.jobs[reference.job as usize].contacts[reference.index as usize];
                let sign = if contact.body == first { 1.0 } else { -1.0 };
                let key = ContactKey {
                    body: bodies.handle(contact.body as usize),
                    other: (contact.other != NONE).then(|| bodies.handle(contact.other as usize)),
                    point: contact.feature,
                };
                let warm = shared.warm.get(&key);
                group.push_contact(contact, sign, &mover_a, &mover_b, Some(key), warm);
            }
        }
        // The pushes persisting contacts start with, applied before the first pass, group by
        // group in solving order.
        for group in &mut self.groups[..self.group_count] {
            load(group, &self.velocity, &self.spin);
            group.apply_start();
            store(group, &mut self.velocity, &mut self.spin);
        }
    }

    /// Sorts the pushes its touching contacts ended the step with into [`Island::kept`], by
    /// body: call it once the island is solved.
    pub fn collect_pushes(&mut self) {
        if self.kept.len() < self.bodies.len() {
            self.kept.resize_with(self.bodies.len(), Vec::new);
        }
        for list in &mut self.kept[..self.bodies.len()] {
            list.clear();
        }
        for group in &self.groups[..self.group_count] {
            for (body, push) in group.pushes() {
                self.kept[body as usize].push(push);
            }
        }
        for list in &mut self.kept[..self.bodies.len()] {
            sort_list(list);
        }
    }

    /// Gives each plan the lowest colour neither of its moving bodies has used, then puts the
    /// plans in colour order (key order within a colour).
    fn colour(&mut self, shared: &Shared) {
        self.masks.clear();
        self.masks.resize(self.bodies.len(), 0);
        let moving = |other: u32| other != 0 && !shared.bodies.resting[other as usize - 1];
        let mut most = 0;
        for plan in &mut self.plans {
            let first = shared.local[(plan.key >> 32) as usize] as usize;
            let other = (plan.key & 0xffff_ffff) as u32;
            let second = moving(other).then(|| shared.local[other as usize - 1] as usize);
            let used = self.masks[first] | second.map_or(0, |second| self.masks[second]);
            let colour = (!used).trailing_zeros() as usize;
            plan.colour = colour as u32;
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
        self.plans
            .sort_unstable_by_key(|plan| (plan.colour.min(COLOURS as u32), plan.order));
        let mut at = 0;
        for colour in 0..=most {
            while at < self.plans.len()
                && self.plans[at].colour.min(COLOURS as u32) as usize == colour
            {
                at += 1;
            }
            self.colour_ends.push(at);
        }
    }

    /// How many colours its groups were split into (1 for an island solved in order).
    #[cfg(test)]
    pub fn colour_count(&self) -> usize {
        self.colour_ends.len()
    }

    /// The island's passes on one thread, groups in order: for islands that are not large.
    pub fn solve_in_order(&mut self) {
        let groups = &mut self.groups[..self.group_count];
        if let [group] = groups {
            // One group: its bodies are nobody else's, so they stay in the group for all passes.
            load(group, &self.velocity, &self.spin);
            for _ in 0..ITERATIONS {
                group.solve_once();
            }
            store(group, &mut self.velocity, &mut self.spin);
            return;
        }
        for _ in 0..ITERATIONS {
            for group in groups.iter_mut() {
                load(group, &self.velocity, &self.spin);
                group.solve_once();
                store(group, &mut self.velocity, &mut self.spin);
            }
        }
    }

    /// The passes of a large island, colour after colour, the groups of a colour on the
    /// workers. Every group of a colour reads its bodies before any is solved and writes them
    /// back after all are: the same as in order, since no two of them share a moving body.
    ///
    /// A colour of fewer than `parallel_rows` rows is solved on this thread, in order: that
    /// gives the same bits (the point of colouring) without the cost of starting threads.
    pub fn solve_by_colour(&mut self, pool: &WorkerPool, parallel_rows: usize) {
        for _ in 0..ITERATIONS {
            let mut start = 0;
            for (colour, &end) in self.colour_ends.iter().enumerate() {
                let groups = &mut self.groups[start..end];
                start = end;
                let in_order = (self.overflow && colour == self.colour_ends.len() - 1)
                    || pool.threads() == 1
                    || groups.len() < 2
                    || groups.iter().map(|group| group.rows.len()).sum::<usize>() < parallel_rows;
                if in_order {
                    for group in groups.iter_mut() {
                        load(group, &self.velocity, &self.spin);
                        group.solve_once();
                        store(group, &mut self.velocity, &mut self.spin);
                    }
                    continue;
                }
                for group in groups.iter_mut() {
                    load(group, &self.velocity, &self.spin);
                }
                pool.for_each_mut(groups, Group::solve_once);
                for group in groups.iter_mut() {
                    store(group, &mut self.velocity, &mut self.spin);
                }
            }
        }
    }
}

/// Copies a group's bodies' velocities into the group.
#[inline]
fn load(group: &mut Group, velocity: &[Vector], spin: &[Vector]) {
    group.velocity_a = velocity[group.a as usize];
    group.spin_a = spin[group.a as usize];
    if group.b != NONE {
        group.velocity_b = velocity[group.b as usize];
        group.spin_b = spin[group.b as usize];
    }
}

/// Copies them back.
#[inline]
fn store(group: &Group, velocity: &mut [Vector], spin: &mut [Vector]) {
    velocity[group.a as usize] = group.velocity_a;
    spin[group.a as usize] = group.spin_a;
    if group.b != NONE {
        velocity[group.b as usize] = group.velocity_b;
        spin[group.b as usize] = group.spin_b;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn links_join_what_touches_and_nothing_else() {
        let mut links = Links::default();
        links.reset(6);
        links.join(4, 1);
        links.join(2, 4);
        links.join(5, 3);
        let roots: Vec<u32> = (0..6).map(|body| links.find(body)).collect();
        assert_eq!(roots, vec![0, 1, 1, 3, 1, 3]);
    }
}
