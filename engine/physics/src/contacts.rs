//! Finding contacts: which points of a moving body touch a surface, or may touch one before
//! the step ends.
//!
//! One [`ContactJob`] per awake body, run on the workers. A job reads the step's frozen state
//! ([`Scene`]) and writes only its own list, so it is a pure function of the scene and the
//! lists come out the same on any number of threads. A pair of bodies is one job's: the awake
//! one's, or of two awake ones the one with the lower dense index, which finds both bodies'
//! points against the other's shape, so that each job's list holds whole groups, in order.
//!
//! ```text
//!        reach = MARGIN + speed · STEP
//!   p ●─────────┤            a point is asked for the nearest surface within the distance
//!     ¦ d                    it can travel in one step (plus the margin). A surface nearer
//!   ══╧═════════ surface     than MARGIN is a contact; a farther one inside the reach is a
//!                            speculative contact: it only keeps the point from crossing it.
//! ```
//!
//! Cheap bounds come first. The world is asked once for the body's middle with the radius of
//! its points added to the reach (and then for each cluster's middle with the cluster's): if
//! no surface is that near, none of its points can touch and none is asked. That holds only
//! where the world's distances are true distances ([`Solid::true_distances`]: no surface
//! nearer than `nearest` says, the distance changing no faster than the point moves). The
//! terrain's is not: its density over its gradient says nothing is near above the middle of a
//! dug bowl, where the dig's slope cancels the ground's, and a piece lying in the bowl sank
//! through it. So in any other world, a middle told "nothing" is asked again for the clearance
//! the world can prove ([`Solid::nearest_many_clear`], reaching a quarter meter past the body,
//! [`MIDDLE_LOOK`]); the body keeps it from step to step like its points' (`clearance`). The
//! clusters' middles are not asked there: their points are, and what they learn rules the
//! cluster out from then on.
//!
//! For a pair of bodies the broad phase has already checked the grown spheres; each point is
//! then checked against the other body's sphere before its shape is asked, which assumes what
//! [`BodyShape`] promises: a body's shape lies inside the sphere of its points.

use super::body::{Bodies, ClusterLanes};
use super::broad::draw;
use super::budget::{release, WHOLE_SHARE};
use super::clearance::{Clearance, LOOK};
use super::manifolds::{Manifolds, Pair, Poses, KEPT_REACH};
use super::math::{self, Matrix, Vector};
use super::patches::{Dropped, Reducer, PATCH_MOST};
use super::tuning::{BOUNCE_SPEED, MARGIN, STEP};
use super::warm::OTHER_POINT;
use super::BodyShape;
use crate::collision::{Around, Solid, Surface};
use wide::{f32x8, CmpEq, CmpGe, CmpLe};

/// "No body": the world, or a friction link that a normal row does not have.
pub(crate) const NONE: u32 = u32::MAX;

/// Slack added to the cheap bounds, in meters: the questions are asked in `f32`, and a bound
/// that rounds a hair too small would lose a contact, while one too large only costs a query.
const BOUND_SLACK: f64 = 1e-3;

/// A point of one body near a surface of the world or of another body.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Contact {
    /// The dense index of the body pushed along `normal`.
    pub body: u32,
    /// The dense index of the body pushed the other way, or [`NONE`] for the world.
    pub other: u32,
    /// Where the contact is, in the world.
    pub point: Vector,
    /// Unit length, in the world, the way out for `body`.
    pub normal: Vector,
    /// Meters to the surface, below 0 when sunk in.
    pub distance: f64,
    /// Which point: its index among `body`'s points, or among `other`'s with
    /// [`OTHER_POINT`] set (a resting body's point against `body`'s shape). With the two
    /// bodies it names the contact from step to step (`warm`).
    pub feature: u32,
}

/// A run of a job's contacts that go to one group: its key ([`group_key`]) and its range of
/// [`ContactJob::contacts`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct GroupRun {
    pub key: u64,
    pub start: u32,
    pub end: u32,
}

/// The state of a step that every job reads and none writes.
pub(crate) struct Scene<'a> {
    pub bodies: &'a Bodies,
    /// Each body's turn as a matrix.
    pub rotation: &'a [Matrix],
    /// How fast any point of a body may move, meters per second (0 for resting bodies).
    pub bound: &'a [f64],
    /// The bodies each job's body may touch, in no particular order:
    /// `partners[partner_start[job]..partner_start[job + 1]]`. A pair of awake bodies is
    /// listed for the lower dense index only: that job finds the whole pair.
    pub partner_start: &'a [u32],
    pub partners: &'a [u32],
    pub world: &'a dyn Solid,
    /// The world's [`Solid::true_distances`], asked once for the step.
    pub true_distances: bool,
    pub shapes: &'a dyn BodyShape,
    /// Which world the bodies' clearances belong to (see `clearance`).
    pub epoch: u64,
    /// Each body's place among the awake bodies ([`NONE`] if resting), by dense index.
    pub awake: &'a [u32],
    /// Each job's share of the contact budget ([`contact_shares`]).
    ///
    /// [`contact_shares`]: super::budget::contact_shares
    pub contact_shares: &'a [u32],
    /// The step's seed (`step::seed`): where a job short of its share starts among its
    /// partners.
    pub seed: u64,
}

/// One awake body's contacts, with the buffers it reuses from step to step.
#[derive(Debug, Default)]
pub(crate) struct ContactJob {
    /// Its dense index.
    pub body: u32,
    /// Its place in the list of awake bodies, for its partners.
    pub job: u32,
    /// Its contacts, in the order of their groups ([`ContactJob::find`]).
    pub contacts: Vec<Contact>,
    /// The runs of [`ContactJob::contacts`] that go to one group each, in order.
    pub groups: Vec<GroupRun>,
    /// Per contact, the reduced patch it is a kept point of (the index of the patch's first
    /// kept contact), or [`NONE`] (`patches`).
    pub patch_of: Vec<u32>,
    /// The points its groups' reduced patches left out, group after group, each with its
    /// patch.
    pub dropped: Vec<Dropped>,
    /// Per contact found, whether it holds (touching, not striking): only those are reduced.
    settled: Vec<bool>,
    reducer: Reducer,
    /// Where its clusters' middles are in the world this step.
    centres: Vec<Vector>,
    /// The questions to the world for its points, what its body fills around each, and the
    /// answers.
    queries: Vec<([f32; 3], f32)>,
    around: Vec<Around>,
    answers: Vec<Option<Surface>>,
    /// How clear of the world the world says each point asked is.
    clearances: Vec<f32>,
    /// The clusters whose points were looked at this step, to sum up afterwards.
    summed: Vec<u32>,
    /// The points asked about, in the order of the questions, with their indices and reaches.
    asked: Vec<(Vector, u32, f64)>,
    /// What its body has learned of the world: lent by the body for the step.
    pub clearance: Clearance,
    /// The manifolds its body kept (`manifolds`): lent by the body for the step, last step's
    /// going in and this step's coming out.
    pub manifolds: Manifolds,
    /// This step's manifolds while they are found.
    making: Manifolds,
    /// How many of its pairs' contacts its last [`ContactJob::find`] placed from kept
    /// manifolds.
    pub kept: u32,
    /// The partners whose pairs with its body it finds (resting ones, and awake ones with a
    /// higher dense index), ascending.
    partners: Vec<u32>,
    /// How many of them its last [`ContactJob::find`] left for later steps, beyond its share
    /// of the contact budget (`budget`).
    pub deferred: u32,
    /// Where its visit of its partners stands.
    visit: Visit,
    /// Whether its last [`ContactJob::find`] stopped short of its partners at its share of
    /// the contact budget, its list not yet finished ([`ContactJob::find_more`]).
    pub short: bool,
}

/// Where a job's visit of its partners stands: its share of the contact budget (the contacts
/// of its partners it may find, unless it has the whole budget), the partner it started at and how many it has visited, where
/// the contacts of its partners start in its list, where those of the partners from the
/// first in ascending order on start (they go first once the list is finished), and how many
/// it has found.
#[derive(Debug, Default, Clone, Copy)]
struct Visit {
    /// Whether it has the whole budget: nothing held back.
    whole: bool,
    share: usize,
    first: usize,
    next: usize,
    pairs_start: usize,
    wrapped: usize,
    /// How many contacts of its partners it has found.
    found: usize,
}

impl ContactJob {
    /// Gives back the lists that keep much more room than the step used (`step::trim`):
    /// after a step over the pair budget, whose pairs go to other jobs in the next. What they
    /// hold is the finished step's, cleared before the next find.
    pub fn trim(&mut self) {
        release(&mut self.contacts);
        release(&mut self.groups);
        release(&mut self.patch_of);
        release(&mut self.dropped);
        release(&mut self.settled);
        release(&mut self.partners);
        self.making.clear();
        self.making.release();
    }

    /// How many of its points it asked the world about in its last [`ContactJob::find`].
    pub fn asked(&self) -> usize {
        self.queries.len()
    }

    /// Fills [`ContactJob::contacts`] with every contact of the groups whose first body is
    /// this job's ([`group_key`]): against the world first, then each partner in ascending
    /// order, this body's points against the partner's shape before the partner's against
    /// this body's. That is the order of the groups' keys, and within a group the order the
    /// solver works them in, so the solver takes the jobs' lists as they are, one after
    /// another, with no sort ([`ContactJob::groups`]).
    ///
    /// Short of its share of the contact budget (`budget`), it stops before the partner whose
    /// contacts would pass it ([`ContactJob::short`]), to go on in [`ContactJob::find_more`];
    /// else its list is done.
    pub fn find(&mut self, scene: &Scene) {
        self.making.clear();
        self.kept = 0;
        self.deferred = 0;
        self.partners.clear();
        self.visit = Visit::default();
        self.short = false;
        self.find_contacts(scene);
        if !self.short {
            self.finish(scene);
        }
    }

    /// Goes on after a [`ContactJob::find`] that stopped short, with `more` contacts of its
    /// partners beyond its share, and finishes its list: the partners it still cannot take are
    /// left for later steps ([`ContactJob::deferred`]).
    pub fn find_more(&mut self, scene: &Scene, more: usize) {
        self.visit.share = self.visit.share.saturating_add(more);
        self.short = false;
        if more > 0 {
            self.visit_partners(scene);
        } else {
            self.short = true;
        }
        if self.short {
            self.short = false;
            self.deferred = (self.partners.len() - self.visit.next) as u32;
        }
        self.finish(scene);
    }

    /// How many contacts of its partners it has found (before its list is reduced).
    pub fn pair_contacts_found(&self) -> usize {
        self.visit.found
    }

    /// The points of the partners it has not visited with its body's own (the most contacts
    /// they can give), after a [`ContactJob::find`] that stopped short.
    pub fn points_left(&self, points: &[u32]) -> u64 {
        let own = u64::from(points[self.body as usize]);
        let count = self.partners.len();
        (self.visit.next..count)
            .map(|visit| self.partners[(self.visit.first + visit) % count])
            .map(|other| own + u64::from(points[other as usize]))
            .sum()
    }

    /// Its list put in order and cut into groups, each group's patches reduced.
    fn finish(&mut self, scene: &Scene) {
        // The partners from the drawn one on came first: after those before it.
        let pairs = &mut self.contacts[self.visit.pairs_start..];
        pairs.rotate_left(self.visit.wrapped - self.visit.pairs_start);
        std::mem::swap(&mut self.manifolds, &mut self.making);
        self.groups.clear();
        for (index, contact) in self.contacts.iter().enumerate() {
            let key = group_key(contact, scene.awake);
            debug_assert_eq!(key >> 32, u64::from(self.body), "a group of another job");
            match self.groups.last_mut() {
                Some(run) if run.key == key => run.end += 1,
                last => {
                    debug_assert!(last.is_none_or(|run| run.key < key), "groups out of order");
                    let index = index as u32;
                    self.groups.push(GroupRun {
                        key,
                        start: index,
                        end: index + 1,
                    });
                }
            }
        }
        // Each group's patches of more than a few points reduced to the points that carry
        // them (`patches`), the kept contacts moved together.
        self.patch_of.clear();
        self.dropped.clear();
        // Only contacts that hold (touching, not striking) are reduced: a landing's pushes are
        // solved at every point. (Asked only where a group is long enough to be reduced.)
        let bodies = scene.bodies;
        let holds = |contact: &Contact| {
            let point = contact.point;
            let mut moving = velocity_at(bodies, contact.body as usize, point);
            if contact.other != NONE {
                moving = math::sub(moving, velocity_at(bodies, contact.other as usize, point));
            }
            let closing = -math::dot(moving, contact.normal);
            contact.distance < MARGIN && closing < BOUNCE_SPEED
        };
        self.settled.clear();
        self.settled.resize(self.contacts.len(), false);
        let mut write = 0;
        for run in &mut self.groups {
            let (start, end) = (run.start as usize, run.end as usize);
            if end - start > PATCH_MOST {
                for (settled, contact) in self.settled[start..end]
                    .iter_mut()
                    .zip(&self.contacts[start..end])
                {
                    *settled = holds(contact);
                }
            }
            let kept_start = write;
            write = self.reducer.reduce(
                &mut self.contacts,
                &self.settled,
                (start, end),
                write,
                (run.key >> 32) as u32,
                &mut self.patch_of,
                &mut self.dropped,
            );
            run.start = kept_start as u32;
            run.end = write as u32;
        }
        self.contacts.truncate(write);
    }

    fn find_contacts(&mut self, scene: &Scene) {
        self.contacts.clear();
        self.queries.clear();
        self.around.clear();
        let bodies = scene.bodies;
        let body = self.body as usize;
        let position = bodies.motion.position[body];
        let rotation = &scene.rotation[body];
        let velocity = bodies.motion.velocity[body];
        let spin = bodies.motion.angular_velocity[body];
        let bound = scene.bound[body];
        let radius = bodies.shape.radius[body];
        let most_reach = MARGIN + bound * STEP;
        let job = self.job as usize;
        let has_partners = scene.partner_start[job] < scene.partner_start[job + 1];
        let offsets = bodies.offsets_of(body);
        let around = bodies.around_of(body);
        let clusters = bodies.clusters_of(body);
        // What the body learned of the world in earlier steps (`clearance`).
        self.clearance
            .start(scene.epoch, clusters.len(), offsets.len());
        let near_world = world_near_middle(
            scene,
            &mut self.clearance,
            position,
            radius + most_reach + BOUND_SLACK,
        );
        if !near_world && !has_partners {
            // Nothing within reach of any point: not even where the points are is needed.
            return;
        }
        let point_of = |offset: Vector| {
            let lever = math::times(rotation, offset);
            let moving = math::add(velocity, math::cross(spin, lever));
            (math::add(position, lever), math::length(moving), moving)
        };
        // Where the clusters are; their points only once a cluster is near something.
        self.centres.clear();
        self.centres.extend(
            clusters
                .iter()
                .map(|cluster| math::add(position, math::times(rotation, cluster.centre))),
        );
        if near_world {
            // The clusters near the world, then the points of theirs that may be: all asked
            // at once, so the world reads what they share once.
            self.asked.clear();
            // A point surely clearer than any of its points must be is not asked.
            let clear = &mut self.clearance;
            let point_need = most_reach + BOUND_SLACK;
            let world_turn = turn_f32(rotation);
            self.summed.clear();
            for (which, (cluster, &centre)) in clusters.iter().zip(&self.centres).enumerate() {
                // None of its points may be near: not even the cluster is asked.
                if clear.cluster(which) >= point_need {
                    continue;
                }
                // The cluster's middle rules its points out only in a world of true distances
                // (the module's header); elsewhere its points are asked, and what they learn
                // rules the cluster out from then on.
                if scene.true_distances
                    && scene
                        .world
                        .nearest(math::to_f32(centre), (cluster.radius + point_need) as f32)
                        .is_none()
                {
                    continue;
                }
                self.summed.push(which as u32);
                let members = cluster.members();
                for index in members {
                    if clear.point(index) >= point_need {
                        continue;
                    }
                    let (point, speed, moving) = point_of(offsets[index]);
                    let reach = MARGIN + speed * STEP;
                    self.asked.push((point, index as u32, reach));
                    self.queries
                        .push((math::to_f32(point), (reach + LOOK) as f32));
                    self.around.push(Around {
                        octants: around[index],
                        turn: world_turn,
                        motion: motion_of(moving),
                    });
                }
            }
            self.answers.clear();
            self.answers.resize(self.queries.len(), None);
            self.clearances.clear();
            self.clearances
                .resize(self.queries.len(), f32::NEG_INFINITY);
            scene.world.nearest_many_around(
                &self.queries,
                &self.around,
                &mut self.answers,
                &mut self.clearances,
            );
            for ((&(point, feature, reach), answer), &learned) in
                self.asked.iter().zip(&self.answers).zip(&self.clearances)
            {
                clear.learn_point(feature as usize, f64::from(learned));
                // Only a surface within the point's own reach is a contact; one found
                // beyond it was asked for the bound.
                if let Some(surface) = answer.filter(|surface| surface.distance < reach as f32) {
                    let at = (point, feature);
                    push(&mut self.contacts, self.body, NONE, at, surface, None);
                }
            }
            for &which in &self.summed {
                let cluster = &clusters[which as usize];
                let members = cluster.members();
                clear.sum_up(which as usize, members);
            }
        }
        // The partners in ascending order (the broad phase lists them in the order it found
        // them): the contacts' order is a function of the scene.
        let start = scene.partner_start[job] as usize;
        let end = scene.partner_start[job + 1] as usize;
        self.partners.clear();
        self.partners.extend_from_slice(&scene.partners[start..end]);
        self.partners.sort_unstable();
        // The job's share of the contact budget (`budget`). With all of it, the partners in
        // ascending order. With less, from a partner the step's seed draws on, around to the
        // one before it, while their contacts fit in the share ([`ContactJob::find_more`]);
        // the contacts are then put back in the order of their groups.
        let share = scene.contact_shares[job];
        let count = self.partners.len();
        self.visit = Visit {
            whole: share == WHOLE_SHARE,
            share: share as usize,
            first: if share == WHOLE_SHARE || count == 0 {
                0
            } else {
                (draw(body as u64, !scene.seed) % count as u64) as usize
            },
            next: 0,
            pairs_start: self.contacts.len(),
            wrapped: self.contacts.len(),
            found: 0,
        };
        self.visit_partners(scene);
    }

    /// Finds the contacts of the partners from [`Visit::next`] on, while they fit in its share:
    /// [`ContactJob::short`] if one did not (its contacts are dropped again).
    fn visit_partners(&mut self, scene: &Scene) {
        let poses = Poses {
            bodies: scene.bodies,
            rotation: scene.rotation,
            bound: scene.bound,
        };
        let count = self.partners.len();
        let whole = self.visit.whole;
        while self.visit.next < count {
            let at = (self.visit.first + self.visit.next) % count;
            if at == 0 && self.visit.next > 0 {
                self.visit.wrapped = self.contacts.len();
            }
            let pair = Pair {
                body: self.body as usize,
                other: self.partners[at] as usize,
            };
            let undo = (self.contacts.len(), self.making.mark(), self.kept);
            self.pair_contacts(scene, &poses, pair);
            let found = self.contacts.len() - self.visit.pairs_start;
            if !whole && found > self.visit.share {
                self.contacts.truncate(undo.0);
                self.making.truncate(undo.1);
                self.kept = undo.2;
                self.short = true;
                return;
            }
            self.visit.found = found;
            self.visit.next += 1;
        }
    }

    /// The contacts of the pair of this job's body and a partner, into
    /// [`ContactJob::contacts`]: placed from its kept manifold, or found (and kept, if the pair
    /// is slow).
    fn pair_contacts(&mut self, scene: &Scene, poses: &Poses, pair: Pair) {
        let (body, other_index) = (pair.body, pair.other);
        // A pair that barely moved keeps its manifold (`manifolds`).
        if self
            .making
            .reuse(&self.manifolds, poses, pair, &mut self.contacts)
        {
            self.kept += 1;
            return;
        }
        let keeps = poses.keeps(pair);
        let extra = if keeps { KEPT_REACH } else { 0.0 };
        let from = self.contacts.len();
        // This body's points against the other's shape; nothing more when their boxes
        // of points are apart.
        if !points_against(scene, (body, other_index), false, extra, &mut self.contacts) {
            return;
        }
        if scene.bodies.sleep.sleeping[other_index] {
            // A resting body has no job of its own: its points against this body's shape
            // are found here, and this body is pushed the other way.
            resting_points_against(scene, (body, other_index), extra, &mut self.contacts);
        } else {
            // An awake partner (a later one: an earlier one's job found the pair) has its
            // points against this body's shape found here too, so that every contact of
            // the pair's group is in this job's list, after this body's own points, as the
            // group orders them.
            // The boxes' test is the same both ways: not made again.
            points_against(scene, (other_index, body), true, extra, &mut self.contacts);
        }
        if keeps {
            self.making.keep(poses, pair, &mut self.contacts, from);
        }
    }
}

/// The points of the resting body `other_index` near `body` against `body`'s shape, into
/// `contacts` with `body` pushed the other way, asked `extra` farther than they may reach.
fn resting_points_against(
    scene: &Scene,
    (body, other_index): (usize, usize),
    extra: f64,
    contacts: &mut Vec<Contact>,
) {
    let bodies = scene.bodies;
    let position = bodies.motion.position[body];
    let rotation = &scene.rotation[body];
    let bound = scene.bound[body];
    let radius = bodies.shape.radius[body];
    let other_position = bodies.motion.position[other_index];
    let other_rotation = &scene.rotation[other_index];
    let reach = MARGIN + bound * STEP + extra;
    let limit = radius + reach + BOUND_SLACK;
    let other_offsets = bodies.offsets_of(other_index);
    let other_around = bodies.around_of(other_index);
    // The resting body's axes seen from this body's frame.
    let other_turn = turn_f32(&math::product(&math::transpose(rotation), other_rotation));
    for cluster in bodies.clusters_of(other_index) {
        let centre = math::add(other_position, math::times(other_rotation, cluster.centre));
        let from_body = math::sub(centre, position);
        let cluster_limit = limit + cluster.radius;
        if math::dot(from_body, from_body) > cluster_limit * cluster_limit {
            continue;
        }
        let members = cluster.members();
        for (feature, offset) in members.clone().zip(&other_offsets[members]) {
            let point = math::add(other_position, math::times(other_rotation, *offset));
            let from_body = math::sub(point, position);
            if math::dot(from_body, from_body) > limit * limit {
                continue;
            }
            let asked = Asked {
                shape: body,
                from: from_body,
                reach,
                at: (point, feature as u32 | OTHER_POINT),
                around: Around {
                    octants: other_around[feature],
                    turn: other_turn,
                    // The resting point against this body, which moves: the other way.
                    motion: motion_of(math::times_transposed(
                        rotation,
                        math::scale(velocity_at(bodies, body, point), -1.0),
                    )),
                },
                pushed_out: false,
            };
            ask_shape(scene, contacts, body as u32, other_index as u32, asked);
        }
    }
}

/// The points of `body` against the shape of `other_index` (a partner the broad phase found),
/// a cluster at a time, into `contacts` with `body` pushed out, each point asked `extra`
/// farther than it may reach (`manifolds`). False when the two boxes of points are apart by
/// more than either may reach this step: then no point of either is near the other.
/// `boxes_near` says that test was made already (the pair's other way round) and passed.
fn points_against(
    scene: &Scene,
    (body, other_index): (usize, usize),
    boxes_near: bool,
    extra: f64,
    contacts: &mut Vec<Contact>,
) -> bool {
    let bodies = scene.bodies;
    let position = bodies.motion.position[body];
    let rotation = &scene.rotation[body];
    let velocity = bodies.motion.velocity[body];
    let spin = bodies.motion.angular_velocity[body];
    let bound = scene.bound[body];
    let offsets = bodies.offsets_of(body);
    let around = bodies.around_of(body);
    let point_of = |offset: Vector| {
        let lever = math::times(rotation, offset);
        let moving = math::add(velocity, math::cross(spin, lever));
        (math::add(position, lever), math::length(moving), moving)
    };
    let other_position = bodies.motion.position[other_index];
    let other_rotation = &scene.rotation[other_index];
    let other_bound = scene.bound[other_index];
    let other_radius = bodies.shape.radius[other_index];
    let other_extent = bodies.shape.extent[other_index];
    // A cluster whose sphere is out of reach of the other's has no point within reach.
    let most_reach = MARGIN + (bound + other_bound) * STEP + extra;
    // Nothing at all when the two boxes of points are apart by more than the reach (a quarter
    // of the pairs in a heap, and pieces lying side by side, whose spheres overlap but whose
    // boxes do not come near): each body's points lie in its box, and so does its shape.
    let gap = most_reach + BOUND_SLACK;
    let this_box = (position, rotation, bodies.shape.extent[body]);
    if !boxes_near
        && boxes_apart(
            this_box,
            (other_position, other_rotation, other_extent),
            gap,
        )
    {
        return false;
    }
    // None of this body's points when the other's sphere is out of reach of this body's box:
    // the other's shape lies in that sphere.
    let from_body = math::times_transposed(rotation, math::sub(other_position, position));
    let reaches = within(
        from_body,
        bodies.shape.extent[body],
        other_radius + most_reach + BOUND_SLACK,
    );
    if !reaches {
        return true;
    }
    // This body's points seen from the other's middle, in its frame: `turn · offset + shift`.
    // Only a filter: a point it keeps is placed and asked as before, in the world, so the
    // contacts do not depend on it.
    let turn = math::product(&math::transpose(other_rotation), rotation);
    let shift = math::times_transposed(other_rotation, math::sub(position, other_position));
    let point_grow = most_reach + 2.0 * BOUND_SLACK;
    let turn_size = turn.map(|row| row.map(f64::abs));
    let turn_there = turn_f32(&turn);
    let seen_from_other = Seen {
        turn: &turn,
        turn_size: &turn_size,
        shift,
    };
    // The clusters near enough to look at, all eight at once (`ClusterLanes`): those whose
    // sphere reaches the other's and whose points, seen from the other, may lie within reach
    // of its box of points.
    let cluster_reach = other_radius + most_reach + BOUND_SLACK;
    let lanes = &bodies.shape.cluster_lanes[body];
    let mut near = seen_from_other.clusters_near(
        lanes,
        (cluster_reach, bodies.shape.radius[body]),
        other_extent,
        point_grow,
    );
    while near != 0 {
        let members = lanes.members(near.trailing_zeros() as usize);
        near &= near - 1;
        for feature in members {
            let offset = offsets[feature];
            // No point farther outside the other's box of points than any point of this body
            // may reach is asked (`ask_shape` checks the point's own reach).
            if !within(seen_from_other.point(offset), other_extent, point_grow) {
                continue;
            }
            let (point, speed, moving) = point_of(offset);
            let reach = MARGIN + (speed + other_bound) * STEP + extra;
            let from_other = math::sub(point, other_position);
            let limit = other_radius + reach + BOUND_SLACK;
            if math::dot(from_other, from_other) > limit * limit {
                continue;
            }
            let asked = Asked {
                shape: other_index,
                from: from_other,
                reach,
                at: (point, feature as u32),
                around: Around {
                    octants: around[feature],
                    turn: turn_there,
                    motion: motion_of(math::times_transposed(
                        other_rotation,
                        math::sub(moving, velocity_at(bodies, other_index, point)),
                    )),
                },
                pushed_out: true,
            };
            ask_shape(scene, contacts, body as u32, other_index as u32, asked);
        }
    }
    true
}

/// The group a contact's rows go to, as `first << 32 | other`: `first` the group's first
/// body (dense), `other` 0 for the world, else the other body's dense index plus one. Between
/// two awake bodies the first is the lower index; against a resting body, the awake one.
/// `awake` is each body's place among the awake ones ([`NONE`] if resting).
pub(crate) fn group_key(contact: &Contact, awake: &[u32]) -> u64 {
    let (first, other) = if contact.other == NONE {
        (contact.body, 0)
    } else if awake[contact.other as usize] == NONE {
        (contact.body, contact.other + 1)
    } else {
        (
            contact.body.min(contact.other),
            contact.body.max(contact.other) + 1,
        )
    };
    (u64::from(first) << 32) | u64::from(other)
}

/// One body's points as another sees them: from its middle, in its frame, `turn · offset +
/// shift` for a point at `offset` in the first body's frame; `turn_size` is `turn` with every
/// entry made positive.
struct Seen<'a> {
    turn: &'a Matrix,
    turn_size: &'a Matrix,
    shift: Vector,
}

impl Seen<'_> {
    #[inline]
    fn point(&self, offset: Vector) -> Vector {
        math::add(math::times(self.turn, offset), self.shift)
    }
}

impl Seen<'_> {
    /// Which of a body's clusters (`lanes`, bit `i` for cluster `i`) may hold a point within
    /// `grow` of the box `(low, high)` and within `reach` of the other's middle beyond the
    /// cluster's own sphere: [`Seen::cluster_within`] and that sphere's test for all eight at
    /// once, in `f32`. Only a filter: it may keep a cluster the tests in `f64` would rule out,
    /// never the other way, since every bound is grown by more than `f32`'s rounding can move a
    /// cluster (a hundred times 2⁻²⁴ of the largest size involved, `radius` being the body's
    /// sphere of points), and the points of a cluster kept are each checked in `f64`.
    fn clusters_near(
        &self,
        lanes: &ClusterLanes,
        (reach, radius): (f64, f64),
        (low, high): (Vector, Vector),
        grow: f64,
    ) -> u32 {
        let largest = |values: &[f64]| values.iter().map(|value| value.abs()).fold(0.0, f64::max);
        let size = radius + largest(&self.shift) + largest(&low) + largest(&high) + grow + reach;
        let slack = size * 100.0 * f64::from(f32::EPSILON);
        let splat = |value: f64| f32x8::splat(value as f32);
        let [x, y, z] = lanes.centre;
        let mut near = f32x8::splat(0.0).cmp_eq(f32x8::splat(0.0));
        let mut distance_squared = f32x8::splat(0.0);
        for axis in 0..3 {
            let [along_x, along_y, along_z] = self.turn[axis].map(splat);
            let seen = x * along_x + y * along_y + z * along_z + splat(self.shift[axis]);
            distance_squared += seen * seen;
            let [size_x, size_y, size_z] = self.turn_size[axis].map(splat);
            let across = lanes.half[0] * size_x + lanes.half[1] * size_y + lanes.half[2] * size_z;
            let spread = across.min(lanes.radius) + splat(grow + slack);
            near = near
                & seen.cmp_ge(splat(low[axis]) - spread)
                & seen.cmp_le(splat(high[axis]) + spread);
        }
        let limit = lanes.radius + splat(reach + slack);
        (near & distance_squared.cmp_le(limit * limit)).move_mask() as u32
    }
}

/// A point asked against a body's shape.
struct Asked {
    /// The dense index of the body whose shape is asked.
    shape: usize,
    /// The point from that body's middle, in the world.
    from: Vector,
    reach: f64,
    /// The point in the world, and which point it is (`Contact::feature`).
    at: (Vector, u32),
    /// What the point's own body fills around it, turned into the asked body's frame.
    around: Around,
    /// Whether the surface's normal is the way out for the contact's body (the point is the
    /// contact body's own, asked against the other's shape), or the way in (a resting body's
    /// point against the contact body's own shape).
    pushed_out: bool,
}

/// How far past what it needs the question about a body's middle reaches, in meters, where the
/// world's answer must be checked by its clearance: as far as a point's question looks past its
/// reach ([`LOOK`]), so the answer lasts while the body moves that far. A meter was tried: the
/// terrain then read (and kept) more ground around every piece in the air, and the game's soak
/// grew a megabyte more, for no gain on the heap.
const MIDDLE_LOOK: f64 = LOOK;

/// Whether any question from a point within `need` less its reach of the body's middle
/// `position` may find the world (see the module's header). First what the body learned: a
/// middle surely clear by `need` has nothing near. Then the middle's own question: a surface
/// found is near enough to look. Where nothing is found and the world's distances are true
/// distances, nothing is near; elsewhere the world's proven clearance of the middle decides,
/// and the body learns it (not asked again for a while when it fell short: then the clusters
/// and points decide).
fn world_near_middle(scene: &Scene, clear: &mut Clearance, position: Vector, need: f64) -> bool {
    if clear.middle() >= need {
        return false;
    }
    let middle = math::to_f32(position);
    if scene.world.nearest(middle, need as f32).is_some() {
        return true;
    }
    if scene.true_distances {
        return false;
    }
    if !clear.middle_worth_asking() {
        return true;
    }
    let question = [(middle, (need + MIDDLE_LOOK) as f32)];
    let (mut answer, mut clearance) = ([None], [f32::NEG_INFINITY]);
    scene
        .world
        .nearest_many_clear(&question, &mut answer, &mut clearance);
    clear.learn_middle(f64::from(clearance[0]), need);
    clear.middle() < need
}

/// Asks the shape of `asked.shape` for the nearest surface to the point, unless the point is
/// farther than its reach outside that body's box of points (the shape lies within it); a
/// surface found is a contact of `body` against `other`.
fn ask_shape(scene: &Scene, contacts: &mut Vec<Contact>, body: u32, other: u32, asked: Asked) {
    let bodies = scene.bodies;
    let rotation = &scene.rotation[asked.shape];
    let relative = math::times_transposed(rotation, asked.from);
    if !within(
        relative,
        bodies.shape.extent[asked.shape],
        asked.reach + BOUND_SLACK,
    ) {
        return;
    }
    let local = math::add(bodies.inertial.center_of_mass[asked.shape], relative);
    let handle = bodies.handle(asked.shape);
    let reach = asked.reach as f32;
    let surface = scene
        .shapes
        .nearest_around(handle, math::to_f32(local), reach, asked.around);
    if let Some(surface) = surface {
        let sign = if asked.pushed_out { 1.0 } else { -1.0 };
        push(
            contacts,
            body,
            other,
            asked.at,
            surface,
            Some((rotation, sign)),
        );
    }
}

/// A body's box of points as the separating-axis test sees it: its middle's place, its turn,
/// and the box from the middle in its own frame.
type PlacedBox<'a> = (Vector, &'a Matrix, (Vector, Vector));

/// Whether two turned boxes are farther apart than `gap` along one of their six face
/// directions: then no point of one is within `gap` of the other.
fn boxes_apart(a: PlacedBox, b: PlacedBox, gap: f64) -> bool {
    let middle_and_half = |(position, rotation, (low, high)): PlacedBox| {
        let middle: Vector = std::array::from_fn(|axis| (low[axis] + high[axis]) * 0.5);
        let half: Vector = std::array::from_fn(|axis| (high[axis] - low[axis]) * 0.5);
        (math::add(position, math::times(rotation, middle)), half)
    };
    let (a_middle, a_half) = middle_and_half(a);
    let (b_middle, b_half) = middle_and_half(b);
    let apart = math::sub(b_middle, a_middle);
    let (a_turn, b_turn) = (a.1, b.1);
    // `across[i][j]`: how much of b's axis j lies along a's axis i (the columns are the axes).
    let across: [[f64; 3]; 3] = std::array::from_fn(|i| {
        std::array::from_fn(|j| {
            (0..3)
                .map(|k| a_turn[k][i] * b_turn[k][j])
                .sum::<f64>()
                .abs()
        })
    });
    let a_apart = math::times_transposed(a_turn, apart);
    let b_apart = math::times_transposed(b_turn, apart);
    (0..3).any(|i| {
        let b_reach: f64 = (0..3).map(|j| b_half[j] * across[i][j]).sum();
        a_apart[i].abs() > a_half[i] + b_reach + gap
    }) || (0..3).any(|j| {
        let a_reach: f64 = (0..3).map(|i| a_half[i] * across[i][j]).sum();
        b_apart[j].abs() > b_half[j] + a_reach + gap
    })
}

/// How far a point moving at `velocity` goes in a step, in `f32`, for the questions.
fn motion_of(velocity: Vector) -> [f32; 3] {
    math::to_f32(math::scale(velocity, STEP))
}

/// The velocity of body `dense` at `point` (the world): its own and its spin's.
fn velocity_at(bodies: &Bodies, dense: usize, point: Vector) -> Vector {
    let lever = math::sub(point, bodies.motion.position[dense]);
    math::add(
        bodies.motion.velocity[dense],
        math::cross(bodies.motion.angular_velocity[dense], lever),
    )
}

/// A turn in `f32`, for the questions.
fn turn_f32(turn: &Matrix) -> [[f32; 3]; 3] {
    turn.map(|row| row.map(|value| value as f32))
}

/// Whether a point (from a body's middle, in its frame) lies within `grow` of the box.
#[inline]
fn within(point: Vector, (low, high): (Vector, Vector), grow: f64) -> bool {
    // Every comparison made, no early way out: the answer is a coin toss for the points near
    // a box, and one branch on the whole is cheaper than six mispredicted ones.
    let inside =
        |axis: usize| (point[axis] >= low[axis] - grow) & (point[axis] <= high[axis] + grow);
    inside(0) & inside(1) & inside(2)
}

/// Adds a contact at `point` (its place, and which point it is) for a surface an answer
/// found, its normal turned into the world by `turn.0` and multiplied by `turn.1` (−1 when the
/// surface is the pushed body's own), unless the answer holds NaN or a normal of no length: a
/// broken answer is no contact.
fn push(
    contacts: &mut Vec<Contact>,
    body: u32,
    other: u32,
    (point, feature): (Vector, u32),
    surface: crate::collision::Surface,
    turn: Option<(&Matrix, f64)>,
) {
    let distance = f64::from(surface.distance);
    let Some(normal) = math::normalized(math::from_f32(surface.normal)) else {
        return;
    };
    if !distance.is_finite() {
        return;
    }
    let normal = match turn {
        Some((rotation, sign)) => math::scale(math::times(rotation, normal), sign),
        None => normal,
    };
    contacts.push(Contact {
        body,
        other,
        point,
        normal,
        distance,
        feature,
    });
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::body::Cluster;
    use crate::math::rotation;
    use crate::random::Rng;

    #[test]
    fn a_cluster_ruled_out_has_no_point_near_the_other_box_and_its_middle() {
        // Bodies of eight random clusters of random points, turned and moved at random,
        // against a box: when the filter rules a cluster out, no point of it is within the gap
        // of the box and within the reach of the other's middle; and it keeps some and rules
        // out some, or it would prove nothing. Every fourth body is moved so that a point lies
        // exactly on the grown box's face, where `f32`'s rounding could lose it.
        let mut rng = Rng::new(0x2545_f491_4f6c_dd1d);
        let mut unit = move || rng.unit();
        let other = ([-0.5, -1.0, -0.25], [0.5, 1.0, 0.75]);
        let (mut kept, mut ruled_out, mut on_the_face) = (0, 0, 0);
        for body in 0..1000 {
            let mut quaternion = [0.0; 4].map(|_| unit() * 2.0 - 1.0);
            let norm = quaternion.iter().map(|q| q * q).sum::<f64>().sqrt();
            quaternion = quaternion.map(|q| q / norm.max(1e-9));
            let turn = rotation(quaternion);
            let turn_size = turn.map(|row| row.map(f64::abs));
            let mut shift = [0.0; 3].map(|_| unit() * 5.0 - 2.5);
            let gap = unit() * 0.3;
            let reach = unit() * 3.0;
            let mut clusters = Vec::new();
            let mut points: Vec<Vec<Vector>> = Vec::new();
            for which in 0..8 {
                let corner = [which & 1, which >> 1 & 1, which >> 2 & 1].map(|bit| bit as f64);
                let members: Vec<Vector> = (0..6)
                    .map(|_| std::array::from_fn(|axis| corner[axis] + unit() * 0.8 - 0.5))
                    .collect();
                let mut low = members[0];
                let mut high = members[0];
                for point in &members {
                    for axis in 0..3 {
                        low[axis] = low[axis].min(point[axis]);
                        high[axis] = high[axis].max(point[axis]);
                    }
                }
                let centre: Vector = std::array::from_fn(|axis| (low[axis] + high[axis]) / 2.0);
                clusters.push(Cluster {
                    centre,
                    radius: members
                        .iter()
                        .map(|point| math::length(math::sub(*point, centre)))
                        .fold(0.0, f64::max),
                    half: std::array::from_fn(|axis| (high[axis] - low[axis]) / 2.0),
                    start: which * 6,
                    count: 6,
                });
                points.push(members);
            }
            let radius = points
                .iter()
                .flatten()
                .map(|point| math::length(*point))
                .fold(0.0, f64::max);
            let seen_at = |shift: Vector| Seen {
                turn: &turn,
                turn_size: &turn_size,
                shift,
            };
            let face = body % 4 == 0;
            if face {
                // The first point seen from the other exactly on the grown face along x, in
                // the middle of the box along y and z.
                let place = seen_at(shift).point(points[0][0]);
                let aim = [other.1[0] + gap, 0.0, 0.25];
                for axis in 0..3 {
                    shift[axis] += aim[axis] - place[axis];
                }
            }
            let seen = seen_at(shift);
            let reach = if face { 50.0 } else { reach };
            let lanes = ClusterLanes::new(&clusters);
            let near = seen.clusters_near(&lanes, (reach, radius), other, gap);
            for (which, members) in points.iter().enumerate() {
                let within_reach = |point: &Vector| {
                    let place = seen.point(*point);
                    within(place, other, gap) && math::length(place) <= reach
                };
                if near & (1 << which) != 0 {
                    kept += 1;
                } else {
                    ruled_out += 1;
                    for point in members {
                        assert!(
                            !within_reach(point),
                            "body {body}, cluster {which}: {point:?}"
                        );
                    }
                }
            }
            if face && within(seen.point(points[0][0]), other, gap) {
                on_the_face += 1;
                assert!(near & 1 != 0, "body {body}: the point on the face lost");
            }
        }
        assert!(
            kept > 500 && ruled_out > 500 && on_the_face > 50,
            "{kept} kept, {ruled_out} ruled out, {on_the_face} on the face"
        );
    }

    #[test]
    fn boxes_are_apart_only_when_a_face_direction_separates_them_by_more_than_the_gap() {
        let unit = ([-0.5; 3], [0.5; 3]);
        let straight = rotation([0.0, 0.0, 0.0, 1.0]);
        // A turn of 45° about z: its edges reach 0.5·√2 along x.
        let eighth = std::f64::consts::FRAC_PI_8;
        let tilted = rotation([0.0, 0.0, eighth.sin(), eighth.cos()]);
        let at = |x: f64| [x, 0.0, 0.0];
        // Side by side, 0.1 m apart: apart for a gap of 0.05, not for 0.2.
        assert!(boxes_apart(
            (at(0.0), &straight, unit),
            (at(1.1), &straight, unit),
            0.05
        ));
        assert!(!boxes_apart(
            (at(0.0), &straight, unit),
            (at(1.1), &straight, unit),
            0.2
        ));
        // Turned 45° about z, the other reaches 0.707 toward the first: at 1.25 they are
        // 0.043 apart, at 1.15 they overlap.
        assert!(boxes_apart(
            (at(0.0), &straight, unit),
            (at(1.25), &tilted, unit),
            0.01
        ));
        assert!(!boxes_apart(
            (at(0.0), &straight, unit),
            (at(1.25), &tilted, unit),
            0.1
        ));
        assert!(!boxes_apart(
            (at(0.0), &straight, unit),
            (at(1.15), &tilted, unit),
            0.0
        ));
        // A box off its middle: only its points' box counts.
        let off = ([1.0, -0.5, -0.5], [2.0, 0.5, 0.5]);
        assert!(!boxes_apart(
            (at(0.0), &straight, off),
            (at(2.6), &straight, unit),
            0.2
        ));
        assert!(boxes_apart(
            (at(0.0), &straight, off),
            (at(2.8), &straight, unit),
            0.2
        ));
    }
}
