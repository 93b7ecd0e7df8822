//! Bodies: what the caller describes ([`Part`], [`BodyDesc`]), what the physics works out from
//! it (mass, middle, inertia), and where it keeps them: [`Bodies`], one `Vec` per field over a
//! dense index, with generational [`BodyHandle`]s outside.
//!
//! ```text
//!   handles (slots)          dense arrays (one per field)
//!   slot 0: gen 3 ──────┐    index:     0     1     2
//!   slot 1: free        └──► position: [p0]  [p1]  [p2]   removing index 0 moves the last
//!   slot 2: gen 1 ─────────► velocity: [v0]  [v1]  [v2]   body into its place and re-points
//!   slot 3: gen 0 ──┐        ...                          that body's slot: the arrays stay
//!                   └──────► owner:    [s0]  [s2]  [s3]   dense, every other handle stays valid
//! ```
//!
//! The hot loops walk the dense arrays; a handle is looked up once per call from outside.

use super::clearance::Clearance;
use super::error::PhysicsError;
use super::manifolds::Manifolds;
use super::math::{self, Matrix, Quaternion, Vector, NO_TURN, ZERO, ZERO_MATRIX};
use wide::f32x8;

/// A part of a body: its mass and middle, and its inertia about that middle.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Part {
    /// Kilograms, above zero.
    pub mass: f64,
    /// The middle of the part's mass, in the body's own frame, meters.
    pub center: [f64; 3],
    /// kg m², about the part's own middle, in the body's own frame.
    pub inertia: [[f64; 3]; 3],
}

/// What a body is made of and where it touches things.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct BodyDesc {
    /// The parts whose masses and inertias make the body's.
    pub parts: Vec<Part>,
    /// The points tested for contacts, in the body's own frame (the frame of the parts).
    pub points: Vec<[f64; 3]>,
    /// What the body fills around each point ([`crate::collision::Around::octants`]), as
    /// long as `points`; or empty, when nothing is known (every point then asks the plain
    /// question).
    pub around: Vec<u8>,
}

/// Names a body for as long as it exists. A handle of a removed body stays stale even when
/// its slot is reused: the generation differs.
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize, serde::Deserialize,
)]
pub struct BodyHandle {
    index: u32,
    generation: u32,
}

impl BodyHandle {
    /// The slot this handle names; slots are reused, so this alone is no identity.
    pub fn index(self) -> u32 {
        self.index
    }

    /// How often the slot had been used before this body.
    pub fn generation(self) -> u32 {
        self.generation
    }

    /// A handle made up for a test.
    #[cfg(test)]
    pub(crate) fn new(index: u32, generation: u32) -> Self {
        Self { index, generation }
    }
}

/// A copy of one body's state, for drawing it and for tests.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct BodyView {
    /// Kilograms.
    pub mass: f64,
    /// The centre of mass, in the body's own frame.
    pub center_of_mass: [f64; 3],
    /// Where the centre of mass is in the world.
    pub position: [f64; 3],
    /// How the body is turned, a unit quaternion `[x, y, z, w]`.
    pub orientation: [f64; 4],
    /// Meters per second.
    pub velocity: [f64; 3],
    /// Angular velocity: around this axis of the world, its length in radians per second.
    pub angular_velocity: [f64; 3],
    /// Sleeping: not stepped until woken.
    pub sleeping: bool,
    /// How many contacts touched it in its last step.
    pub touching: u32,
    /// Seconds it has touched something since it was added or woken (the clock of
    /// [`LONGEST_FALL`](super::LONGEST_FALL); free fall does not count).
    pub age: f64,
    /// The inverse of its inertia about the middle, in its own frame.
    pub inverse_inertia: [[f64; 3]; 3],
    /// Its inertia about the middle, in its own frame, kg m².
    pub inertia: [[f64; 3]; 3],
    /// The radius of the sphere about the middle that holds all its points.
    pub radius: f64,
}

/// Mass, middle and inertia worked out from a description.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct MassProperties {
    pub mass: f64,
    pub center: Vector,
    pub inertia: Matrix,
    pub inverse_inertia: Matrix,
}

impl MassProperties {
    /// Mass is the sum of the parts', the middle their mass-weighted mean, and the inertia
    /// about that middle each part's own plus its mass at its distance (the parallel axis
    /// theorem, `m (|d|² I − d dᵀ)`).
    pub fn of(desc: &BodyDesc) -> Result<Self, PhysicsError> {
        if desc.parts.is_empty() {
            return Err(PhysicsError::NoParts);
        }
        if desc.points.is_empty() {
            return Err(PhysicsError::NoPoints);
        }
        for (index, part) in desc.parts.iter().enumerate() {
            if !(part.mass.is_finite() && part.mass > 0.0) {
                return Err(PhysicsError::BadMass {
                    part: index,
                    mass: part.mass,
                });
            }
            if !math::finite(part.center) {
                return Err(PhysicsError::PartNotFinite {
                    part: index,
                    field: "center",
                });
            }
            if !part.inertia.iter().all(|row| math::finite(*row)) {
                return Err(PhysicsError::PartNotFinite {
                    part: index,
                    field: "inertia",
                });
            }
        }
        if !desc.around.is_empty() && desc.around.len() != desc.points.len() {
            return Err(PhysicsError::AroundCount {
                around: desc.around.len(),
                points: desc.points.len(),
            });
        }
        if let Some((index, point)) = desc
            .points
            .iter()
            .enumerate()
            .find(|(_, point)| !math::finite(**point))
        {
            return Err(PhysicsError::PointNotFinite {
                point: index,
                value: *point,
            });
        }
        let mass: f64 = desc.parts.iter().map(|part| part.mass).sum();
        let center = desc.parts.iter().fold(ZERO, |sum, part| {
            math::add_scaled(sum, part.center, part.mass / mass)
        });
        let mut inertia = ZERO_MATRIX;
        for part in &desc.parts {
            let d = math::sub(part.center, center);
            let length_squared = math::dot(d, d);
            for (i, row) in inertia.iter_mut().enumerate() {
                for (j, value) in row.iter_mut().enumerate() {
                    let axis = if i == j { length_squared } else { 0.0 };
                    *value += part.inertia[i][j] + part.mass * (axis - d[i] * d[j]);
                }
            }
        }
        // Sums of finite numbers can still overflow.
        if !mass.is_finite() || !math::finite(center) {
            return Err(PhysicsError::PartNotFinite {
                part: 0,
                field: "sum of masses or middles",
            });
        }
        let inverse_inertia =
            math::inverse(&inertia).ok_or(PhysicsError::SingularInertia(inertia))?;
        Ok(Self {
            mass,
            center,
            inertia,
            inverse_inertia,
        })
    }
}

/// What a slot of the handle table holds.
#[derive(Debug, Clone, Copy)]
struct Slot {
    generation: u32,
    /// The body's dense index, or `None` while the slot is free.
    dense: Option<u32>,
}

/// Some of a body's points that lie together, with the sphere that holds them (in the body's
/// frame, from its middle): asked about as one before its points are.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Cluster {
    pub centre: Vector,
    pub radius: f64,
    /// Half the sides of its points' box about `centre`, in the body's frame.
    pub half: Vector,
    /// Its points: `count` from `start` within the body's points.
    pub start: u32,
    pub count: u32,
}

impl Cluster {
    /// Its points' indices within the body's points.
    #[inline]
    pub fn members(&self) -> std::ops::Range<usize> {
        self.start as usize..(self.start + self.count) as usize
    }
}

/// A body's clusters (at most eight, one per octant) in `f32` lanes, a cluster per lane: the
/// lanes past its clusters hold NaN, which no comparison keeps. Only for filters that may keep
/// more than they need to (`contacts`): the clusters themselves are the truth.
#[derive(Debug, Clone, Copy)]
pub(crate) struct ClusterLanes {
    pub centre: [f32x8; 3],
    pub radius: f32x8,
    pub half: [f32x8; 3],
    /// Each cluster's points as [`Cluster::members`] gives them (`(start, count)`; `(0, 0)`
    /// past its clusters), beside the lanes: a filter that keeps a cluster reads its points
    /// from the lines it has just read instead of from the cluster.
    pub members: [(u32, u32); 8],
}

impl ClusterLanes {
    pub fn new(clusters: &[Cluster]) -> ClusterLanes {
        debug_assert!(clusters.len() <= 8, "one cluster per octant");
        let lanes = |value: &dyn Fn(&Cluster) -> f64| {
            let mut lanes = [f32::NAN; 8];
            for (lane, cluster) in lanes.iter_mut().zip(clusters) {
                *lane = value(cluster) as f32;
            }
            f32x8::from(lanes)
        };
        ClusterLanes {
            centre: std::array::from_fn(|axis| lanes(&|cluster| cluster.centre[axis])),
            radius: lanes(&|cluster| cluster.radius),
            half: std::array::from_fn(|axis| lanes(&|cluster| cluster.half[axis])),
            members: std::array::from_fn(|lane| {
                clusters
                    .get(lane)
                    .map_or((0, 0), |cluster| (cluster.start, cluster.count))
            }),
        }
    }

    /// Cluster `lane`'s points' indices within the body's points ([`Cluster::members`]).
    #[inline]
    pub fn members(&self, lane: usize) -> std::ops::Range<usize> {
        let (start, count) = self.members[lane];
        start as usize..(start + count) as usize
    }
}

/// Columns of per-body state over the dense index, each a `Vec`; `swap_remove` moves the last
/// body into a removed one's place in every column at once.
macro_rules! columns {
    ($(#[$meta:meta])* $name:ident { $($(#[$field_meta:meta])* $field:ident: $ty:ty,)* }) => {
        $(#[$meta])*
        #[derive(Debug, Default)]
        pub(crate) struct $name {
            $($(#[$field_meta])* pub $field: Vec<$ty>,)*
        }

        impl $name {
            fn swap_remove(&mut self, dense: usize) {
                $(self.$field.swap_remove(dense);)*
            }
        }
    };
}

columns!(
    /// How each body moves: what the integration writes and every phase of a step reads.
    Motion {
        /// Where the centre of mass is in the world.
        position: Vector,
        orientation: Quaternion,
        velocity: Vector,
        /// World frame, radians per second.
        angular_velocity: Vector,
    }
);

columns!(
    /// How each body answers a push: what the solver's rows are made from.
    Inertial {
        mass: f64,
        inverse_mass: f64,
        /// In the body's own frame.
        center_of_mass: Vector,
        /// About the centre of mass, in the body's own frame.
        inertia: Matrix,
        inverse_inertia: Matrix,
    }
);

columns!(
    /// Where each body's points and clusters are and what bounds them: what the broad phase and
    /// the contact jobs read.
    Shape {
        /// Where each body's points start in [`Bodies::offsets`], and how many there are
        /// (stored by cluster, see [`Cluster`]).
        points_start: u32,
        points_count: u32,
        /// The sphere about the centre of mass that holds all points.
        radius: f64,
        /// The box that holds all points, from the centre of mass in the body's own frame:
        /// low, high.
        extent: (Vector, Vector),
        /// Each body's points fall into up to eight clusters (by octant about the centre of
        /// mass, the points stored cluster by cluster): where its clusters start in
        /// [`Bodies::clusters`].
        clusters_start: u32,
        clusters_count: u32,
        /// Each body's clusters again, in `f32` lanes (`contacts` rules them out eight at once).
        cluster_lanes: ClusterLanes,
    }
);

columns!(
    /// Whether each body sleeps, and what decides it: what the islands read and write.
    Sleep {
        /// Not stepped until woken.
        sleeping: bool,
        /// Seconds it has been touching and slow.
        still: f64,
        /// Seconds it has touched something since it was added or woken.
        age: f64,
        /// Contacts that touched it in its last step.
        touching: u32,
    }
);

columns!(
    /// What each body's contact job keeps from step to step (lent to the job during a step).
    Kept {
        /// The normal push in one step (newton seconds, all its contacts together) from which
        /// the step reports where it was pushed ([`super::Impact`]); infinite: never.
        impact_limit: f64,
        /// How clear of the world its points were found, and how far they may have moved since.
        clearance: Clearance,
        /// The manifolds of the pairs it found that barely moved (`manifolds`).
        manifolds: Manifolds,
    }
);

/// Every body's state over a dense index `0..len`, grouped by what each phase of a step reads:
/// [`Motion`], [`Inertial`], [`Shape`], [`Sleep`], and what the contact jobs keep ([`Kept`]),
/// each a column per field. Handles are generational slots outside the columns.
#[derive(Debug, Default)]
pub(crate) struct Bodies {
    slots: Vec<Slot>,
    /// Free slots, reused last-freed first (a function of the calls alone, so deterministic).
    free: Vec<u32>,
    /// The slot of each dense index.
    pub owner: Vec<u32>,
    pub motion: Motion,
    pub inertial: Inertial,
    pub shape: Shape,
    pub sleep: Sleep,
    pub kept: Kept,
    /// Every body's points, measured from its centre of mass in its own frame
    /// (`point − center`), one body after another.
    pub offsets: Vec<Vector>,
    /// What each body fills around each of its points (`collision::Around::octants`, 0 when
    /// unknown), beside [`Bodies::offsets`].
    pub around: Vec<u8>,
    /// Every body's clusters, one body after another.
    pub clusters: Vec<Cluster>,
}

impl Bodies {
    pub fn len(&self) -> usize {
        self.motion.position.len()
    }

    /// The dense index of a live handle.
    pub fn dense(&self, handle: BodyHandle) -> Option<usize> {
        let slot = self.slots.get(handle.index as usize)?;
        if slot.generation != handle.generation {
            return None;
        }
        slot.dense.map(|dense| dense as usize)
    }

    /// The handle of the body at a dense index.
    pub fn handle(&self, dense: usize) -> BodyHandle {
        let index = self.owner[dense];
        BodyHandle {
            index,
            generation: self.slots[index as usize].generation,
        }
    }

    /// Live handles, in ascending slot order.
    pub fn handles(&self) -> impl Iterator<Item = BodyHandle> + '_ {
        self.slots
            .iter()
            .enumerate()
            .filter(|(_, slot)| slot.dense.is_some())
            .map(|(index, slot)| BodyHandle {
                // Slots are only made while fewer than u32::MAX exist.
                index: index as u32,
                generation: slot.generation,
            })
    }

    /// Live dense indices in ascending slot order: an order that does not depend on how
    /// removals shuffled the dense arrays.
    pub fn dense_in_slot_order(&self) -> impl Iterator<Item = usize> + '_ {
        self.slots
            .iter()
            .filter_map(|slot| slot.dense.map(|dense| dense as usize))
    }

    /// No bodies, and free slots of these generations (for [`Bodies::insert_in`]).
    pub fn with_generations(generations: &[u32]) -> Self {
        Self {
            slots: generations
                .iter()
                .map(|&generation| Slot {
                    generation,
                    dense: None,
                })
                .collect(),
            ..Self::default()
        }
    }

    /// The generation of every slot, used or free.
    pub fn generations(&self) -> Vec<u32> {
        self.slots.iter().map(|slot| slot.generation).collect()
    }

    /// The free slots, reused from the back.
    pub fn free_slots(&self) -> &[u32] {
        &self.free
    }

    /// Replaces the list of free slots (restoring a saved state: the caller checked that
    /// they are free and distinct).
    pub fn set_free(&mut self, free: Vec<u32>) {
        self.free = free;
    }

    /// Refuses a body that would make more bodies or points than a `u32` counts.
    fn check_room(&self, points: usize) -> Result<(), PhysicsError> {
        let limit = u32::MAX as usize - 1;
        if self.len() >= limit || self.offsets.len() + points >= limit {
            return Err(PhysicsError::TooManyBodies(limit));
        }
        Ok(())
    }

    /// Adds a body with its middle at `properties.center`: its own frame is the world's.
    pub fn insert(
        &mut self,
        properties: MassProperties,
        points: &[[f64; 3]],
        around: &[u8],
    ) -> Result<BodyHandle, PhysicsError> {
        self.check_room(points.len())?;
        let index = match self.free.pop() {
            Some(index) => index,
            None => {
                self.slots.push(Slot {
                    generation: 0,
                    dense: None,
                });
                (self.slots.len() - 1) as u32
            }
        };
        let dense = self.insert_in(index, properties, points, around)?;
        Ok(self.handle(dense))
    }

    /// [`Bodies::insert`] into a given free slot (which must exist); the new dense index.
    /// `around` is one mask per point, or empty (nothing known).
    pub fn insert_in(
        &mut self,
        index: u32,
        properties: MassProperties,
        points: &[[f64; 3]],
        around: &[u8],
    ) -> Result<usize, PhysicsError> {
        self.check_room(points.len())?;
        let dense = self.len() as u32;
        let slot = self
            .slots
            .get_mut(index as usize)
            .filter(|slot| slot.dense.is_none())
            .ok_or_else(|| PhysicsError::BadState(format!("slot {index} is not free")))?;
        slot.dense = Some(dense);
        let start = self.offsets.len() as u32;
        let mut radius = 0.0f64;
        // Stored octant by octant about the middle (in the given order within one), each
        // octant a cluster with its own bounding sphere: a piece lying on the ground asks the
        // ground only about the clusters near it.
        let octant = |offset: Vector| {
            usize::from(offset[0] >= 0.0)
                | usize::from(offset[1] >= 0.0) << 1
                | usize::from(offset[2] >= 0.0) << 2
        };
        let clusters_start = self.clusters.len() as u32;
        for which in 0..8 {
            let first = self.offsets.len();
            for (at, point) in points.iter().enumerate() {
                let offset = math::sub(*point, properties.center);
                if octant(offset) == which {
                    radius = radius.max(math::length(offset));
                    self.offsets.push(offset);
                    self.around.push(around.get(at).copied().unwrap_or(0));
                }
            }
            let members = &self.offsets[first..];
            if members.is_empty() {
                continue;
            }
            let mut low = members[0];
            let mut high = members[0];
            for offset in members {
                for axis in 0..3 {
                    low[axis] = low[axis].min(offset[axis]);
                    high[axis] = high[axis].max(offset[axis]);
                }
            }
            let centre: Vector = std::array::from_fn(|axis| (low[axis] + high[axis]) / 2.0);
            let cluster_radius = members
                .iter()
                .map(|offset| math::length(math::sub(*offset, centre)))
                .fold(0.0, f64::max);
            self.clusters.push(Cluster {
                centre,
                radius: cluster_radius,
                half: std::array::from_fn(|axis| (high[axis] - low[axis]) / 2.0),
                start: (first - start as usize) as u32,
                count: members.len() as u32,
            });
        }
        let body_offsets = &self.offsets[start as usize..];
        let mut extent = (ZERO, ZERO);
        if let Some(first) = body_offsets.first() {
            extent = (*first, *first);
            for offset in body_offsets {
                extent.0 = std::array::from_fn(|axis| extent.0[axis].min(offset[axis]));
                extent.1 = std::array::from_fn(|axis| extent.1[axis].max(offset[axis]));
            }
        }
        self.shape.extent.push(extent);
        self.shape.clusters_start.push(clusters_start);
        self.shape
            .clusters_count
            .push(self.clusters.len() as u32 - clusters_start);
        self.shape
            .cluster_lanes
            .push(ClusterLanes::new(&self.clusters[clusters_start as usize..]));
        self.owner.push(index);
        self.motion.position.push(properties.center);
        self.motion.orientation.push(NO_TURN);
        self.motion.velocity.push(ZERO);
        self.motion.angular_velocity.push(ZERO);
        self.inertial.mass.push(properties.mass);
        self.inertial.inverse_mass.push(1.0 / properties.mass);
        self.inertial.center_of_mass.push(properties.center);
        self.inertial.inertia.push(properties.inertia);
        self.inertial
            .inverse_inertia
            .push(properties.inverse_inertia);
        self.shape.points_start.push(start);
        self.shape.points_count.push(points.len() as u32);
        self.shape.radius.push(radius);
        self.sleep.sleeping.push(false);
        self.sleep.still.push(0.0);
        self.sleep.age.push(0.0);
        self.sleep.touching.push(0);
        self.kept.impact_limit.push(f64::INFINITY);
        self.kept
            .clearance
            .push(Clearance::new(properties.center, NO_TURN));
        self.kept.manifolds.push(Manifolds::default());
        Ok(dense as usize)
    }

    /// Removes a body: the last body moves into its dense place, its points leave the shared
    /// list, and its slot is freed with a new generation.
    pub fn remove(&mut self, handle: BodyHandle) -> Result<(), PhysicsError> {
        let dense = self
            .dense(handle)
            .ok_or(PhysicsError::StaleHandle(handle))?;
        let start = self.shape.points_start[dense] as usize;
        let count = self.shape.points_count[dense] as usize;
        self.offsets.drain(start..start + count);
        self.around.drain(start..start + count);
        for other in &mut self.shape.points_start {
            if *other as usize > start {
                *other -= count as u32;
            }
        }
        let clusters_start = self.shape.clusters_start[dense] as usize;
        let clusters = self.shape.clusters_count[dense] as usize;
        self.clusters
            .drain(clusters_start..clusters_start + clusters);
        for other in &mut self.shape.clusters_start {
            if *other as usize > clusters_start {
                *other -= clusters as u32;
            }
        }
        let slot = &mut self.slots[handle.index as usize];
        slot.dense = None;
        // A slot used four billion times is retired rather than risk an old handle matching
        // again.
        if let Some(next) = slot.generation.checked_add(1) {
            slot.generation = next;
            self.free.push(handle.index);
        }
        self.owner.swap_remove(dense);
        self.motion.swap_remove(dense);
        self.inertial.swap_remove(dense);
        self.shape.swap_remove(dense);
        self.sleep.swap_remove(dense);
        self.kept.swap_remove(dense);
        if let Some(&moved) = self.owner.get(dense) {
            self.slots[moved as usize].dense = Some(dense as u32);
        }
        Ok(())
    }

    /// The clusters of the body at `dense`.
    #[inline]
    pub fn clusters_of(&self, dense: usize) -> &[Cluster] {
        let start = self.shape.clusters_start[dense] as usize;
        &self.clusters[start..start + self.shape.clusters_count[dense] as usize]
    }

    /// What the body at `dense` fills around each of its points, beside
    /// [`Bodies::offsets_of`].
    #[inline]
    pub fn around_of(&self, dense: usize) -> &[u8] {
        let start = self.shape.points_start[dense] as usize;
        &self.around[start..start + self.shape.points_count[dense] as usize]
    }

    /// The points of the body at `dense`, from its middle in its own frame.
    #[inline]
    pub fn offsets_of(&self, dense: usize) -> &[Vector] {
        let start = self.shape.points_start[dense] as usize;
        &self.offsets[start..start + self.shape.points_count[dense] as usize]
    }

    pub fn view(&self, dense: usize) -> BodyView {
        BodyView {
            mass: self.inertial.mass[dense],
            center_of_mass: self.inertial.center_of_mass[dense],
            position: self.motion.position[dense],
            orientation: self.motion.orientation[dense],
            velocity: self.motion.velocity[dense],
            angular_velocity: self.motion.angular_velocity[dense],
            sleeping: self.sleep.sleeping[dense],
            touching: self.sleep.touching[dense],
            age: self.sleep.age[dense],
            inverse_inertia: self.inertial.inverse_inertia[dense],
            inertia: self.inertial.inertia[dense],
            radius: self.shape.radius[dense],
        }
    }
}

/// A cube's inertia about its middle, kg m²: `m s² / 6` about every axis.
#[cfg(test)]
pub(crate) fn cube_inertia(mass: f64, size: f64) -> Matrix {
    let value = mass * size * size / 6.0;
    let mut m = ZERO_MATRIX;
    for (axis, row) in m.iter_mut().enumerate() {
        row[axis] = value;
    }
    m
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cube(mass: f64, center: Vector) -> Part {
        Part {
            mass,
            center,
            inertia: cube_inertia(mass, 1.0),
        }
    }

    #[test]
    fn an_l_of_three_cubes_has_the_inertia_worked_out_by_hand() {
        // Three 1 m cubes of 6 kg: at (0.5, 0.5, 0.5), (1.5, 0.5, 0.5) and (0.5, 1.5, 0.5).
        // Middle: x = (0.5 + 1.5 + 0.5) / 3 = 5/6, y = 5/6, z = 0.5.
        // Offsets d: (−1/3, −1/3, 0), (2/3, −1/3, 0), (−1/3, 2/3, 0).
        // Each cube's own: 6 · 1 / 6 = 1 about every axis, 3 in all.
        // Ixx = 3 + 6 Σ (dy² + dz²) = 3 + 6 (1/9 + 1/9 + 4/9) = 3 + 4 = 7.
        // Iyy = 3 + 6 Σ (dx² + dz²) = 3 + 6 (1/9 + 4/9 + 1/9) = 7.
        // Izz = 3 + 6 Σ (dx² + dy²) = 3 + 6 (2/9 + 5/9 + 5/9) = 3 + 8 = 11.
        // Ixy = −6 Σ dx dy = −6 (1/9 − 2/9 − 2/9) = 2; Ixz = Iyz = 0.
        let desc = BodyDesc {
            parts: vec![
                cube(6.0, [0.5, 0.5, 0.5]),
                cube(6.0, [1.5, 0.5, 0.5]),
                cube(6.0, [0.5, 1.5, 0.5]),
            ],
            points: vec![[0.0; 3]],
            around: Vec::new(),
        };
        let properties = MassProperties::of(&desc).expect("a valid body");
        assert!((properties.mass - 18.0).abs() < 1e-12);
        let close = |a: &[f64], b: &[f64]| a.iter().zip(b).all(|(a, b)| (a - b).abs() < 1e-12);
        assert!(close(&properties.center, &[5.0 / 6.0, 5.0 / 6.0, 0.5]));
        let expected = [[7.0, 2.0, 0.0], [2.0, 7.0, 0.0], [0.0, 0.0, 11.0]];
        assert!(
            close(properties.inertia.as_flattened(), expected.as_flattened()),
            "{:?}",
            properties.inertia
        );
        let one = math::product(&properties.inertia, &properties.inverse_inertia);
        assert!(close(one.as_flattened(), math::IDENTITY.as_flattened()));
    }

    #[test]
    fn bad_descriptions_are_clear_errors() {
        let good = cube(1.0, [0.0; 3]);
        let points = vec![[0.0; 3]];
        let check = |parts: Vec<Part>, points: Vec<[f64; 3]>| {
            MassProperties::of(&BodyDesc {
                parts,
                points,
                around: Vec::new(),
            })
            .expect_err("a bad body")
        };
        assert_eq!(check(vec![], points.clone()), PhysicsError::NoParts);
        assert_eq!(check(vec![good], vec![]), PhysicsError::NoPoints);
        let zero = check(vec![good, cube(0.0, [0.0; 3])], points.clone());
        assert_eq!(zero, PhysicsError::BadMass { part: 1, mass: 0.0 });
        assert!(zero.to_string().contains("part 1 has mass 0"), "{zero}");
        assert!(matches!(
            check(vec![cube(-2.0, [0.0; 3])], points.clone()),
            PhysicsError::BadMass { part: 0, .. }
        ));
        assert!(matches!(
            check(vec![cube(f64::NAN, [0.0; 3])], points.clone()),
            PhysicsError::BadMass { part: 0, .. }
        ));
        assert_eq!(
            check(vec![cube(1.0, [f64::NAN, 0.0, 0.0])], points.clone()),
            PhysicsError::PartNotFinite {
                part: 0,
                field: "center"
            }
        );
        assert!(matches!(
            check(vec![good], vec![[0.0; 3], [0.0, f64::INFINITY, 0.0]]),
            PhysicsError::PointNotFinite { point: 1, .. }
        ));
        let point_mass = Part {
            mass: 1.0,
            center: [0.0; 3],
            inertia: ZERO_MATRIX,
        };
        assert!(matches!(
            check(vec![point_mass], points),
            PhysicsError::SingularInertia(_)
        ));
    }

    #[test]
    fn handles_survive_removal_of_others_and_go_stale_themselves() {
        let mut bodies = Bodies::default();
        let desc = |x: f64| BodyDesc {
            parts: vec![cube(1.0, [x, 0.0, 0.0])],
            points: vec![[x, 0.0, 0.0], [x + 1.0, 0.0, 0.0]],
            around: Vec::new(),
        };
        let handles: Vec<BodyHandle> = (0..4)
            .map(|x| {
                let desc = desc(f64::from(x));
                let properties = MassProperties::of(&desc).expect("valid");
                bodies
                    .insert(properties, &desc.points, &desc.around)
                    .expect("room")
            })
            .collect();
        bodies.remove(handles[1]).expect("live");
        assert_eq!(
            bodies.remove(handles[1]),
            Err(PhysicsError::StaleHandle(handles[1]))
        );
        assert!(bodies.dense(handles[1]).is_none());
        for &handle in [handles[0], handles[2], handles[3]].iter() {
            let dense = bodies.dense(handle).expect("still live");
            let x = bodies.motion.position[dense][0];
            assert_eq!(bodies.handle(dense), handle);
            assert_eq!(bodies.offsets_of(dense), &[[0.0; 3], [1.0, 0.0, 0.0]]);
            assert_eq!(f64::from(handle.index()), x);
        }
        // The freed slot is reused with a new generation; the old handle stays stale.
        let desc = desc(9.0);
        let properties = MassProperties::of(&desc).expect("valid");
        let again = bodies
            .insert(properties, &desc.points, &desc.around)
            .expect("room");
        assert_eq!(again.index(), handles[1].index());
        assert_ne!(again, handles[1]);
        assert!(bodies.dense(handles[1]).is_none());
        assert_eq!(bodies.handles().count(), 4);
        assert_eq!(bodies.shape.radius[bodies.dense(again).expect("live")], 1.0);
    }
}
