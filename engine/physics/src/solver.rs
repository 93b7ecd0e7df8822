//! The solver set: every awake body's contact rows, cut into regions, bundled and solved
//! together.
//!
//! The awake bodies are numbered densely by their place among the awake ones (their job's
//! index), and their velocities live in one array for the whole solve ([`Velocities`]).
//! Resting bodies are not in it: against them, as against the world, a row moves only the
//! awake side, so a resting pile costs the solver nothing.
//!
//! The rows are grouped by the pair of things they push (a group: one pair's contacts),
//! groups in the order of the pair's dense indices, a function of the scene alone. Then the
//! awake set is cut into **regions**: slabs across the axis the bodies spread most along, each
//! holding a like share of the contacts (1, 2, 4 or 8 of them, from the number of groups). A
//! group belongs to the region of its bodies, or of two neighbouring regions to the lower;
//! the few between regions further apart (a long piece across a thin slab) are **apart**:
//!
//! ```text
//!   regions along x:   | R0 | R1 | R2 | R3 |        a group inside R1, or between R1 and R2,
//!   a pass:   R0 R2  ·  R1 R3  ·  apart            is R1's; R0 and R2 touch no common body,
//!             (at once)  (at once)  (one thread)   so the even regions are solved at once,
//!                                                   then the odd ones, then the apart groups
//! ```
//!
//! Within a region its groups are packed four side by side into [`Bundle`]s (`lanes`: a
//! bundle's lanes share no awake body), those against something fixed first and then those
//! between two awake bodies, like length beside like length, and the region's bundles are
//! worked one after another on one thread: a Gauss–Seidel sweep through the region. So a
//! region's bodies stay in one core's cache for the whole solve (a body's velocities moving
//! from core to core made every bundle a third slower on two threads when the stages were
//! colours over the whole set, as in Box2D v3), and a pass waits at two or three barriers
//! instead of one per colour. The whole solve is one call on the workers in stages:
//!
//! ```text
//!   stage:   rows | start: evens | odds | apart | pass 1: evens | odds | apart | … pass 8
//!            │      └ each region's bundles in order, each loading its bodies' velocities,
//!            │        working its rows (the first time: the pushes they start with, warm
//!            │        starting), storing them back
//!            └ every region's bundles build their rows, on the thread that solves them
//! ```
//!
//! Every split and every order here comes from the scene: the regions from the bodies'
//! places and the groups, the bundles from the regions, the stages from both. Each region is
//! worked by exactly one thread per stage and the regions of a stage share no body, so the
//! result is bitwise the same for any number of threads.

use std::ops::Range;

use super::body::Bodies;
use super::broad::insertion_sort;
use super::budget::release;
use super::contacts::{Contact, ContactJob, NONE};
use super::lanes::{Bundle, Velocities, LANES};
use super::math::{Matrix, Vector};
use super::patches::spread;
use super::rows::{contact_rows, Mover, Striking};
use super::tuning::ITERATIONS;
use super::warm::{sort_list, ContactImpulse, ContactKey, WarmStarts};
use crate::workers::WorkerPool;

/// Groups a region is given at least, on average: fewer and its bundles would run part empty.
pub(crate) const REGION_GROUPS: usize = 48;

/// The most regions the awake set is cut into (a power of two). Each half pass works half of
/// them at once, so up to four threads share the solve; more regions would make the slabs
/// thinner than the pieces (more groups apart) and the bundles of each shorter.
pub(crate) const MOST_REGIONS: usize = 8;

/// How many of the bundles opened last a group may join ([`Solver::pack`]): an open bundle
/// its groups conflict with is passed over, and a body in many groups (a star) would otherwise
/// have every later group look at all of them.
const PACK_WINDOW: usize = 16;

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

/// The awake set's groups, regions, bundles and velocities, with the buffers a step reuses.
#[derive(Debug, Default)]
pub(crate) struct Solver {
    /// How many contacts the step has.
    contacts: usize,
    /// How many awake bodies the step has.
    awake_count: usize,
    /// Per group, in solving order (region, then bundle after bundle, each bundle's lanes
    /// side by side): its key, region, awake bodies, and the job and range of its contacts.
    plans: Vec<Plan>,
    /// The groups in pair order while they are sorted into solving order, and the sort's
    /// bucket starts.
    sorted: Vec<Plan>,
    starts: Vec<u32>,
    /// How many regions this step's set is cut into, and each awake body's.
    regions: usize,
    region_of: Vec<u32>,
    /// The awake bodies along the cut's axis (kept for the next step's sort, with the axis),
    /// and the contacts each is the first body of.
    along: Vec<(f64, u32)>,
    along_axis: usize,
    weight: Vec<u32>,
    /// The bundles being filled while one region's groups are packed: each one's groups (as
    /// places in `sorted`) and awake bodies.
    packing: Vec<Packing>,
    /// Those of them with room left, oldest first.
    open: Vec<u32>,
    /// The items of the staged solve, each a region's bundles (or the apart groups'), in the
    /// order the stages take them: the even regions, the odd ones, the apart groups. Each
    /// keeps its bundles from step to step, so a region's rows are laid out for its size.
    items: Vec<Run>,
    /// The region of each item, and the item of each region.
    item_region: Vec<usize>,
    region_item: Vec<usize>,
    /// The solve's stages: ranges of items.
    stages: Vec<Range<usize>>,
    pub velocities: Velocities,
    /// Per awake body, the pushes its touching contacts ended the step with, sorted for the
    /// next step's search; handed to the world's [`WarmStarts`] after the step.
    pub kept: Vec<Vec<ContactImpulse>>,
}

/// One item of the staged solve: a region's bundles, the first `count` in use, worked one
/// after another.
#[derive(Debug, Default)]
struct Run {
    bundles: Vec<Bundle>,
    count: usize,
}

impl Run {
    fn bundles(&self) -> &[Bundle] {
        &self.bundles[..self.count]
    }
}

/// A bundle being filled by [`Solver::pack`].
#[derive(Debug, Clone, Copy)]
struct Packing {
    groups: [u32; LANES],
    bodies: [u32; 2 * LANES],
    /// Its bodies' bits (see [`Solver::pack`]).
    bits: u64,
    count: usize,
}

/// A group: its pair (the key, `first << 32 | other`: `first` the group's first body, dense,
/// `other` 0 for the world, else the other body's dense index plus one), region, and its
/// contacts: `jobs[job].contacts[start..end]`.
#[derive(Debug, Clone, Copy, Default)]
struct Plan {
    key: u64,
    /// The region whose item solves it ([`Solver::lay_out`]); the region count for a group
    /// between regions that are not neighbours (apart).
    owner: u32,
    /// Its awake bodies' places among the awake ones; `b` is [`NONE`] against something fixed.
    a: u32,
    b: u32,
    job: u32,
    start: u32,
    end: u32,
}

impl Plan {
    fn contacts<'a>(&self, jobs: &'a [ContactJob]) -> &'a [Contact] {
        &jobs[self.job as usize].contacts[self.start as usize..self.end as usize]
    }

    fn length(&self) -> usize {
        (self.end - self.start) as usize
    }
}

impl Solver {
    /// Takes in the groups the jobs found, in pair order. `awake` is per dense index.
    ///
    /// Each job found every contact of the groups whose first body is its own, its groups in
    /// ascending order ([`ContactJob::find`]), and the jobs go in the order of their bodies'
    /// dense indices: one job after another, the groups come in the order of their keys with
    /// no sort. (Two counting sorts of every contact did this alone, a fifth of the time
    /// the 2-thread step spent on one thread.)
    pub fn plan(&mut self, jobs: &[ContactJob], awake: &[u32]) {
        self.plans.clear();
        self.contacts = 0;
        self.awake_count = jobs.len();
        for (index, job) in jobs.iter().enumerate() {
            self.contacts += job.contacts.len();
            self.plans.extend(job.groups.iter().map(|run| {
                let first = (run.key >> 32) as usize;
                let other = (run.key & 0xffff_ffff) as usize;
                Plan {
                    key: run.key,
                    owner: 0,
                    a: awake[first],
                    b: if other == 0 { NONE } else { awake[other - 1] },
                    job: index as u32,
                    start: run.start,
                    end: run.end,
                }
            }));
        }
        debug_assert!(self.plans.windows(2).all(|two| two[0].key < two[1].key));
    }

    /// How many contacts the groups have.
    pub fn contact_count(&self) -> usize {
        self.contacts
    }

    /// How many groups there are.
    pub fn group_count(&self) -> usize {
        self.plans.len()
    }

    /// How many regions the set was cut into.
    pub fn region_count(&self) -> usize {
        self.regions
    }

    /// How many groups join bodies of regions that are not neighbours (solved after the
    /// regions, in each pass, on one thread).
    pub fn apart_count(&self) -> usize {
        self.region_bundles(self.regions)
            .iter()
            .map(|bundle| bundle.groups.iter().filter(|&&group| group != NONE).count())
            .sum()
    }

    /// Region `region`'s bundles (the apart groups' for the region count).
    fn region_bundles(&self, region: usize) -> &[Bundle] {
        region_bundles(&self.items, &self.region_item, region)
    }

    /// Cuts the awake set into regions, packs each region's groups side by side into bundles,
    /// and lays out the stages of the solve (its first stage, [`Solver::solve`], fills the
    /// bundles' rows). `middle` is an awake body's middle, by its place among the awake ones.
    ///
    /// The regions are slabs across the axis the awake bodies spread most along, cut where
    /// each holds a like share of the contacts (a body's are those of the groups it is first
    /// of); the count comes from the groups alone. A group belongs to its bodies' region, or
    /// of two neighbouring regions the lower one; a group between regions further apart is
    /// solved after them.
    pub fn lay_out(&mut self, middle: impl Fn(usize) -> Vector) {
        let awake = self.awake_count;
        let groups = self.plans.len();
        // The most regions, a power of two, that each get their share of groups.
        let fit = (groups / REGION_GROUPS).max(1);
        self.regions = (1 << fit.ilog2()).min(MOST_REGIONS);
        let regions = self.regions;
        self.region_of.clear();
        self.region_of.resize(awake, 0);
        if regions > 1 {
            self.cut(&middle);
        }
        let apart = regions as u32;
        for plan in &mut self.plans {
            let ra = self.region_of[plan.a as usize];
            plan.owner = if plan.b == NONE {
                ra
            } else {
                let rb = self.region_of[plan.b as usize];
                if ra.abs_diff(rb) <= 1 {
                    ra.min(rb)
                } else {
                    apart
                }
            };
        }
        // One stable counting sort by (owner, pair with an awake body, longest less length):
        // each region's groups against something fixed first, then those between two awake
        // bodies, each kind longest first, pair order among equals. Solving what holds a body
        // up before what it presses on settles a pile sooner (as the colours did, a body's
        // group with the world taking its first colour): bodies thrown on the ground asked
        // 14,509 points in vain over 200 steps lying still this way, 26,040 with all groups
        // longest first (`what_bodies_learn_of_the_world…`). Like lengths side by side keep
        // the lanes full.
        let longest = self.plans.iter().map(Plan::length).max().unwrap_or(0);
        let length_buckets = longest + 1;
        let width = 2 * length_buckets;
        let bucket = |plan: &Plan| {
            plan.owner as usize * width
                + usize::from(plan.b != NONE) * length_buckets
                + (longest - plan.length())
        };
        let buckets = (regions + 1) * width;
        self.starts.clear();
        self.starts.resize(buckets + 1, 0);
        for plan in &self.plans {
            self.starts[bucket(plan) + 1] += 1;
        }
        for at in 0..buckets {
            self.starts[at + 1] += self.starts[at];
        }
        self.sorted.clear();
        self.sorted.resize(groups, Plan::default());
        for plan in &self.plans {
            let cursor = &mut self.starts[bucket(plan)];
            self.sorted[*cursor as usize] = *plan;
            *cursor += 1;
        }
        // The items: the even regions, the odd ones, the apart groups. A staged call gives a
        // thread the items at its place modulo the threads, so each parity's regions go in
        // bit-reversed order (0 4 2 6, then 1 5 3 7): with two threads one works regions 0–3
        // and the other 4–7, with four each a neighbouring pair, in both half passes alike,
        // and a region's bodies stay in one core's cache from pass to pass.
        let evens = regions.div_ceil(2);
        let bits = evens.trailing_zeros();
        let spread = |index: usize| {
            if bits == 0 {
                index
            } else {
                index.reverse_bits() >> (usize::BITS - bits)
            }
        };
        self.item_region.clear();
        self.item_region
            .extend((0..evens).map(|index| 2 * spread(index)));
        self.item_region
            .extend((0..regions / 2).map(|index| 2 * spread(index) + 1));
        self.item_region.push(regions);
        self.region_item.clear();
        self.region_item.resize(regions + 1, 0);
        for (item, &region) in self.item_region.iter().enumerate() {
            self.region_item[region] = item;
        }
        if self.items.len() < regions + 1 {
            self.items.resize_with(regions + 1, Run::default);
        }
        // Each owner's groups packed into its item's bundles, the plans rewritten in bundle
        // order.
        self.plans.clear();
        let mut start = 0;
        for owner in 0..=regions {
            // The fill cursors have moved on: the owner's bucket run now ends where the next
            // owner's first bucket started.
            let end = self.starts[(owner + 1) * width - 1] as usize;
            self.pack(start..end, self.region_item[owner]);
            start = end;
        }
        self.stages.clear();
        if self.plans.is_empty() {
            return;
        }
        self.stages.push(0..regions + 1);
        let apart_empty = self.region_bundles(regions).is_empty();
        for _ in 0..=ITERATIONS {
            self.stages.push(0..evens);
            if regions > 1 {
                self.stages.push(evens..regions);
            }
            if !apart_empty {
                self.stages.push(regions..regions + 1);
            }
        }
    }

    /// The thread of a pool of `threads` that solves awake body `index`'s region first in each
    /// stage: a staged call gives item i to the thread of number i modulo the threads
    /// ([`WorkerPool::for_each_in_stages`]).
    pub fn thread_of(&self, index: usize, threads: usize) -> usize {
        let region = self
            .region_of
            .get(index)
            .map_or(0, |&region| region as usize);
        self.region_item
            .get(region)
            .map_or(0, |&item| item % threads.max(1))
    }

    /// Gives each awake body its region: the bodies in order along the axis they spread most
    /// along (ties by place), a body's region the share of all contacts that lies before it.
    fn cut(&mut self, middle: &impl Fn(usize) -> Vector) {
        let awake = self.awake_count;
        let regions = self.regions as u64;
        let (mut low, mut high) = ([f64::INFINITY; 3], [f64::NEG_INFINITY; 3]);
        for index in 0..awake {
            let at = middle(index);
            for axis in 0..3 {
                low[axis] = low[axis].min(at[axis]);
                high[axis] = high[axis].max(at[axis]);
            }
        }
        let axis = (0..3)
            .max_by(|&i, &j| (high[i] - low[i]).total_cmp(&(high[j] - low[j])))
            .unwrap_or(0);
        self.weight.clear();
        self.weight.resize(awake, 0);
        for plan in &self.plans {
            self.weight[plan.a as usize] += plan.length() as u32;
        }
        let total: u64 = self.weight.iter().map(|&weight| u64::from(weight)).sum();
        // From last step's order where it still names every awake place: the bodies moved
        // little, and an insertion sort finishes it (the sweep's way, `broad`). The order is a
        // total one, so the same either way.
        let before = |x: &(f64, u32), y: &(f64, u32)| x.0.total_cmp(&y.0).then(x.1.cmp(&y.1));
        let reused = self.along_axis == axis && self.along.len() == awake;
        if reused {
            for entry in &mut self.along {
                entry.0 = middle(entry.1 as usize)[axis];
            }
        } else {
            self.along.clear();
            self.along
                .extend((0..awake as u32).map(|index| (middle(index as usize)[axis], index)));
        }
        if !(reused && insertion_sort(&mut self.along, 8 * awake, before)) {
            self.along.sort_unstable_by(before);
        }
        self.along_axis = axis;
        let mut before = 0u64;
        for (rank, &(_, index)) in self.along.iter().enumerate() {
            // By contacts; by count where none has any.
            let region = (before * regions)
                .checked_div(total)
                .unwrap_or(rank as u64 * regions / awake as u64);
            self.region_of[index as usize] = region.min(regions - 1) as u32;
            before += u64::from(self.weight[index as usize]);
        }
    }

    /// Packs the groups `sorted[range]` (one owner's, longest first) into bundles of up to
    /// [`LANES`] groups that share no awake body, in order: each group joins the first of the
    /// last [`PACK_WINDOW`] bundles opened that has room and none of its bodies, else opens
    /// one. The bundles go in the order they were opened, their groups into `plans`.
    fn pack(&mut self, range: Range<usize>, item: usize) {
        self.packing.clear();
        self.open.clear();
        // A bit per body (its place modulo 64): a bundle whose bits miss the group's bodies'
        // surely holds neither, and most do.
        let bit = |body: u32| if body == NONE { 0 } else { 1u64 << (body % 64) };
        for at in range {
            let plan = self.sorted[at];
            let bits = bit(plan.a) | bit(plan.b);
            let clash = |packing: &Packing| {
                packing.bits & bits != 0
                    && packing.bodies[..2 * packing.count]
                        .iter()
                        .any(|&body| body == plan.a || (plan.b != NONE && body == plan.b))
            };
            // The newest open bundle first: the groups come longest first, so it has the
            // fewest contacts to pad this one's up to.
            let window = self.open.len().saturating_sub(PACK_WINDOW);
            let joined = self.open[window..]
                .iter()
                .rposition(|&bundle| !clash(&self.packing[bundle as usize]));
            let (bundle, slot) = match joined {
                Some(slot) => (self.open[window + slot] as usize, window + slot),
                None => {
                    self.packing.push(Packing {
                        groups: [NONE; LANES],
                        bodies: [NONE; 2 * LANES],
                        bits: 0,
                        count: 0,
                    });
                    self.open.push(self.packing.len() as u32 - 1);
                    (self.packing.len() - 1, self.open.len() - 1)
                }
            };
            let packing = &mut self.packing[bundle];
            packing.groups[packing.count] = at as u32;
            packing.bodies[2 * packing.count] = plan.a;
            packing.bodies[2 * packing.count + 1] = plan.b;
            packing.bits |= bits;
            packing.count += 1;
            if packing.count == LANES {
                self.open.remove(slot);
            }
        }
        let run = &mut self.items[item];
        run.count = 0;
        for packing in &self.packing {
            let first = self.plans.len() as u32;
            for &group in &packing.groups[..packing.count] {
                self.plans.push(self.sorted[group as usize]);
            }
            if run.bundles.len() == run.count {
                run.bundles.push(Bundle::default());
            }
            let most = packing.groups[..packing.count]
                .iter()
                .map(|&group| self.sorted[group as usize].length())
                .max()
                .unwrap_or(0);
            run.bundles[run.count].assign(first..first + packing.count as u32, most);
            run.count += 1;
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
    /// A group's striking contacts are visited so too, as one patch of their own.
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
                // The contacts that struck, as one patch: a landing's pushes spread over its
                // points as a rigid contact carries them, as a reduced patch's are (the
                // passes share them out unevenly: a beam landing flat was reported pushed
                // hard at some points and hardly at others, and broke).
                kept.clear();
                for (((contact, &push), &patch), strikes) in plan
                    .contacts(jobs)
                    .iter()
                    .zip(&pushes)
                    .zip(patch_of)
                    .zip(bundle.strikes(lane))
                {
                    if patch != NONE {
                        continue;
                    }
                    if strikes {
                        kept.push((contact.point, push));
                    } else {
                        visit(contact, first, push);
                    }
                }
                let representative = plan
                    .contacts(jobs)
                    .iter()
                    .zip(bundle.strikes(lane))
                    .find(|&(_, strikes)| strikes)
                    .map(|(contact, _)| *contact);
                if let Some(representative) = representative {
                    spread(&kept, std::iter::empty(), |point, push| {
                        let contact = Contact {
                            point,
                            ..representative
                        };
                        visit(&contact, first, push);
                    });
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

    /// The bundles in use, region after region, the apart groups' last.
    pub fn bundles(&self) -> impl Iterator<Item = &Bundle> + Clone {
        all_bundles(&self.items, &self.region_item)
    }

    /// The solve: every stage, a region's bundles one after another on one thread, the first
    /// stage building every bundle's rows.
    pub fn solve(&mut self, pool: &WorkerPool, shared: &Shared) {
        let (plans, velocities) = (&self.plans, &self.velocities);
        let items = &mut self.items[..self.item_region.len()];
        pool.for_each_in_stages(items, &self.stages, |run| {
            let bundles = &mut run.bundles[..run.count];
            // The last pass works a region's groups the other way round: those between two
            // awake bodies first, then those against the world, so that the step ends with
            // what holds against the world satisfied. A light piece on a slab struck by a
            // heavy one from above was otherwise left moving down into the slab by what the
            // passes had not yet taken from the blow, and went through it.
            if bundles.first().is_some_and(Bundle::last_pass) {
                for bundle in bundles.iter_mut().rev() {
                    bundle.work(velocities);
                }
                return;
            }
            for bundle in bundles {
                if bundle.built() {
                    bundle.work(velocities);
                } else {
                    build(bundle, plans, shared);
                }
            }
        });
    }

    /// Frees what the bundles, and the lists of pushes the world handed back, keep beyond what
    /// the step used (`step::trim`); the bundles past those in use go.
    pub fn trim(&mut self) {
        for run in &mut self.items {
            run.bundles.truncate(run.count);
            run.bundles.iter_mut().for_each(Bundle::trim);
        }
        self.kept.iter_mut().for_each(release);
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
        let bundles = all_bundles(&self.items, &self.region_item);
        let share = awake_count.div_ceil(pool.threads()).max(1);
        let mut shares: Vec<(usize, &mut [Vec<ContactImpulse>])> = self.kept[..awake_count]
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
            for bundle in bundles.clone() {
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

/// Region `region`'s bundles among `items` (the apart groups' for the region count);
/// `region_item` is each region's item.
fn region_bundles<'a>(items: &'a [Run], region_item: &[usize], region: usize) -> &'a [Bundle] {
    region_item
        .get(region)
        .map_or(&[], |&item| items[item].bundles())
}

/// Every region's bundles, region after region, the apart groups' last.
fn all_bundles<'a>(
    items: &'a [Run],
    region_item: &'a [usize],
) -> impl Iterator<Item = &'a Bundle> + Clone {
    (0..region_item.len()).flat_map(move |region| region_bundles(items, region_item, region))
}

/// Builds the rows of a bundle's groups straight into its lanes, each contact started from
/// last step's pushes when it persists.
fn build(bundle: &mut Bundle, plans: &[Plan], shared: &Shared) {
    bundle.clear();
    let bodies = shared.bodies;
    let mover = |dense: usize| Mover {
        position: bodies.motion.position[dense],
        velocity: bodies.motion.velocity[dense],
        spin: bodies.motion.angular_velocity[dense],
        inverse_mass: bodies.inertial.inverse_mass[dense],
        inverse_inertia: shared.inverse_inertia[dense],
    };
    for lane in 0..LANES {
        let group = bundle.groups[lane];
        if group != NONE {
            let plan = &plans[group as usize];
            let first = (plan.key >> 32) as u32;
            let other = (plan.key & 0xffff_ffff) as u32;
            let mover_a = mover(first as usize);
            // The other side: the world, or another awake body (the step wakes every
            // sleeping body a contact reaches before it solves).
            let (b, second, mover_b) = if other == 0 {
                (NONE, NONE, Mover::FIXED)
            } else {
                let other = other - 1;
                match shared.awake[other as usize] {
                    NONE => (NONE, NONE, Mover::FIXED),
                    b => (b, other, mover(other as usize)),
                }
            };
            let a = shared.awake[first as usize];
            bundle.set_group(
                lane,
                (a, b),
                (first, second),
                mover_a.inverse_mass,
                mover_b.inverse_mass,
            );
            // Where each body's last contact was found in its warm list: a group's contacts
            // come body by body in point order.
            let mut from = [0usize; 2];
            // The striking contacts, for the group's bounce row (`lanes::BOUNCE_PASSES`), and
            // those that start pushed alike (`Bundle::stop_closing`).
            let (mut striking, mut starting) = (Striking::default(), Striking::default());
            for contact in plan.contacts(shared.jobs) {
                let sign = if contact.body == first { 1.0 } else { -1.0 };
                let key = ContactKey {
                    body: bodies.handle(contact.body as usize),
                    other: (contact.other != NONE).then(|| bodies.handle(contact.other as usize)),
                    point: contact.feature,
                };
                let warm = shared
                    .warm
                    .get_from(&key, &mut from[usize::from(contact.body != first)]);
                let rows = contact_rows(contact, sign, &mover_a, &mover_b, warm);
                striking.add(contact.point, &rows);
                starting.add_if(rows.starts_even, contact.point, &rows);
                bundle.push_contact(lane, &rows, Some(key), sign);
            }
            if let Some(bounce) = striking.row(&mover_a, &mover_b) {
                bundle.set_bounce(lane, &bounce);
            }
            if let Some(start) = starting.row(&mover_a, &mover_b) {
                bundle.set_start(lane, &start, starting.count());
            }
        }
        bundle.end_group(lane);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A group between awake bodies `first` and `second` (or the world) with `contacts`; the
    /// awake bodies' places are their dense indices.
    fn plan(first: u32, second: Option<u32>, contacts: u32) -> Plan {
        Plan {
            key: (u64::from(first) << 32) | second.map_or(0, |second| u64::from(second) + 1),
            owner: 0,
            a: first,
            b: second.unwrap_or(NONE),
            job: first,
            start: 0,
            end: contacts,
        }
    }

    /// Bodies in a row along z, out of their dense order: a chain of neighbours' groups of
    /// mixed lengths, every third body on the ground, and body 7 touching 70 others spread
    /// along the row (a star, most of its groups between regions far apart).
    fn row_of_bodies() -> (Vec<Plan>, Vec<Vector>) {
        let bodies = 400u32;
        let middles: Vec<Vector> = (0..bodies)
            .map(|body| [0.25, 1.0, f64::from((body * 37) % bodies)])
            .collect();
        let mut by_place: Vec<u32> = (0..bodies).collect();
        by_place.sort_by(|&x, &y| middles[x as usize][2].total_cmp(&middles[y as usize][2]));
        let mut plans = Vec::new();
        for pair in by_place.windows(2) {
            let (x, y) = (pair[0].min(pair[1]), pair[0].max(pair[1]));
            plans.push(plan(x, Some(y), 1 + (x * 5 + y) % 9));
        }
        plans.extend(
            (0..bodies)
                .step_by(3)
                .map(|body| plan(body, None, 1 + body % 4)),
        );
        plans.extend(
            (0..bodies)
                .step_by(5)
                .filter(|&other| other > 7)
                .take(70)
                .map(|other| plan(7, Some(other), 2)),
        );
        plans.sort_by_key(|plan| plan.key);
        plans.dedup_by_key(|plan| plan.key);
        (plans, middles)
    }

    #[test]
    fn regions_are_slabs_of_like_work_and_no_two_items_of_a_stage_share_a_body() {
        let (plans, middles) = row_of_bodies();
        let mut solver = Solver {
            plans: plans.clone(),
            awake_count: middles.len(),
            ..Solver::default()
        };
        solver.lay_out(|index| middles[index]);
        let regions = solver.region_count();
        assert_eq!(regions, MOST_REGIONS, "{} groups", plans.len());
        // Slabs along z (the axis of most spread), in order, each with its share of contacts.
        let region_of = |body: u32| solver.region_of[body as usize];
        let mut along: Vec<u32> = (0..middles.len() as u32).collect();
        along.sort_by(|&x, &y| middles[x as usize][2].total_cmp(&middles[y as usize][2]));
        assert!(along
            .windows(2)
            .all(|two| region_of(two[0]) <= region_of(two[1])));
        let total: usize = plans.iter().map(Plan::length).sum();
        let mut share = vec![0; regions];
        for plan in &plans {
            share[region_of(plan.a) as usize] += plan.length();
        }
        let most_one = plans.iter().map(|plan| plan.length()).max().unwrap_or(0) * 80;
        for (region, &contacts) in share.iter().enumerate() {
            assert!(
                contacts.abs_diff(total / regions) <= most_one,
                "region {region}: {contacts} of {total} contacts"
            );
        }
        // Each group's owner: its region, the lower of two neighbours, or apart.
        let mut apart = 0;
        for plan in &solver.plans {
            let ra = region_of(plan.a);
            let expected = if plan.b == NONE {
                ra
            } else {
                let rb = region_of(plan.b);
                if ra.abs_diff(rb) <= 1 {
                    ra.min(rb)
                } else {
                    apart += 1;
                    regions as u32
                }
            };
            assert_eq!(plan.owner, expected, "{plan:?}");
        }
        assert!(apart > 0, "the star reaches regions far apart");
        assert_eq!(solver.apart_count(), apart);
        // Every group once, in bundles of one owner whose lanes share no body.
        let mut keys: Vec<u64> = solver.plans.iter().map(|plan| plan.key).collect();
        keys.sort_unstable();
        assert_eq!(keys, plans.iter().map(|plan| plan.key).collect::<Vec<_>>());
        let bodies_of = |bundle: &Bundle| -> Vec<u32> {
            let mut bodies = Vec::new();
            for &group in bundle.groups.iter().filter(|&&group| group != NONE) {
                let plan = solver.plans[group as usize];
                bodies.push(plan.a);
                if plan.b != NONE {
                    bodies.push(plan.b);
                }
            }
            bodies
        };
        for owner in 0..=regions {
            for bundle in solver.region_bundles(owner) {
                let mut bodies = bodies_of(bundle);
                let count = bodies.len();
                bodies.sort_unstable();
                bodies.dedup();
                assert_eq!(bodies.len(), count, "a body twice in one bundle");
                let lanes: Vec<&Plan> = bundle
                    .groups
                    .iter()
                    .filter(|&&group| group != NONE)
                    .map(|&group| &solver.plans[group as usize])
                    .collect();
                assert!(lanes.iter().all(|plan| plan.owner as usize == owner));
            }
        }
        // Lanes full but where they cannot be: no two of the star's groups share a bundle,
        // and each owner's last bundles may be part full.
        let star = |bundle: &&Bundle| bodies_of(bundle).contains(&7);
        let (with_star, others): (Vec<&Bundle>, Vec<&Bundle>) = solver.bundles().partition(star);
        let empty = |bundles: &[&Bundle]| -> usize {
            bundles
                .iter()
                .map(|bundle| bundle.groups.iter().filter(|&&group| group == NONE).count())
                .sum()
        };
        assert!(with_star.len() >= 70);
        assert!(
            empty(&others) <= 2 * (regions + 1) * (LANES - 1),
            "{} empty lanes in {} bundles",
            empty(&others),
            others.len()
        );
        // The stages: all items to build, then each pass the even regions, the odd ones and
        // the apart groups; within a stage no two items touch one body.
        assert_eq!(solver.stages[0], 0..regions + 1);
        assert_eq!(solver.stages.len(), 1 + (ITERATIONS + 1) * 3);
        for stage in &solver.stages[1..] {
            let mut seen = std::collections::HashMap::new();
            for (item, &owner) in solver.item_region[stage.clone()].iter().enumerate() {
                for bundle in solver.region_bundles(owner) {
                    for body in bodies_of(bundle) {
                        let first = *seen.entry(body).or_insert(item);
                        assert_eq!(first, item, "body {body} in two items of {stage:?}");
                    }
                }
            }
        }
    }

    #[test]
    fn a_few_groups_are_one_region_solved_on_one_item() {
        let plans: Vec<Plan> = (0..40).map(|body| plan(body, None, 4)).collect();
        let mut solver = Solver {
            plans,
            awake_count: 40,
            ..Solver::default()
        };
        solver.lay_out(|index| [index as f64, 0.0, 0.0]);
        assert_eq!(solver.region_count(), 1);
        assert_eq!(solver.apart_count(), 0);
        assert_eq!(solver.bundles().count(), 10);
        // Building, then each pass one stage: the region's item.
        assert_eq!(solver.stages.len(), 1 + (ITERATIONS + 1));
        assert!(solver.stages[1..].iter().all(|stage| *stage == (0..1)));
    }
}
