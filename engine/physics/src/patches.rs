//! Contact reduction: a patch of many points between two things is solved by the few that
//! carry it, as Box2D's and Bullet's manifolds keep at most four points.
//!
//! Every outside cell corner of a piece is a contact point, one every half meter, so a face
//! lying on a face touches at every corner of it: nine points for 1 m blocks face to face,
//! twenty-five for 2 m, and a pair of pieces lying side by side touch at both pieces' points.
//! A rigid body held by a flat patch is held the same by the corners of the patch: the solver
//! needs those, and every point more is rows to solve for nothing. In a heap of 400 pieces, 40 %
//! of the contacts were such extra points (groups of up to 30).
//!
//! ```text
//!    ● · · · ●      a patch: a group's contacts whose normals (turned to push the group's
//!    ·       ·      first body) agree within 10°. Of more than four, the solver keeps:
//!    ·   ·   ·      a, the point farthest from the patch's first point (along the surface);
//!    ·       ·      b, the point farthest from a; the two farthest either way across a–b;
//!    ● · · · ●      and the deepest. On a rectangle: its four corners (and the deepest, a corner).
//! ```
//!
//! Each choice takes the first of equals in the group's order, which comes from the bodies'
//! points, so the same patch keeps the same points from step to step and they start warm.
//!
//! The points left out still count where the pushes are judged: a body's impacts (strength)
//! are reported at every point of the patch, the patch's push and moment spread over all of
//! them ([`spread`]), so a beam landing flat is pushed along its whole length, not at its ends.

use super::contacts::{Contact, NONE};
use super::math::{self, Vector};

/// A patch with more contacts than this is reduced.
pub(crate) const PATCH_MOST: usize = 4;

/// Two normals are of one patch when they agree within about 10°.
const PATCH_COS: f64 = 0.985;

/// A contact point of a reduced patch that the solver does not get: where it is, and the
/// patch it belongs to (the index, among its job's contacts, of the patch's first kept one).
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Dropped {
    pub patch: u32,
    pub point: Vector,
}

/// What reducing a job's groups needs from step to step.
#[derive(Debug, Default)]
pub(crate) struct Reducer {
    /// Each contact's patch within its group, and each patch's normal.
    patch: Vec<u32>,
    normals: Vec<Vector>,
    /// How many contacts each patch has, and the members (indices into the group) of the
    /// patch being reduced.
    sizes: Vec<usize>,
    members: Vec<u32>,
    /// Whether each contact of the group is kept, whether each patch is reduced, and each
    /// patch's first kept place.
    keep: Vec<bool>,
    reduced: Vec<bool>,
    first_kept: Vec<u32>,
}

impl Reducer {
    /// Reduces the group `contacts[start..end]` (its first body `first`, dense) in place: its
    /// kept contacts moved to `contacts[write..]` in their order, each one's patch (or [`NONE`]
    /// where its patch was not reduced) pushed to `patch_of`, and the points left out to
    /// `dropped`. Returns where the kept contacts end. `write <= start`. Only contacts marked
    /// in `settled` (by index into `contacts`) join patches; the others are all kept.
    #[allow(clippy::too_many_arguments)]
    pub fn reduce(
        &mut self,
        contacts: &mut [Contact],
        settled: &[bool],
        (start, end): (usize, usize),
        write: usize,
        first: u32,
        patch_of: &mut Vec<u32>,
        dropped: &mut Vec<Dropped>,
    ) -> usize {
        debug_assert!(write <= start && start <= end);
        let count = end - start;
        if count <= PATCH_MOST {
            contacts.copy_within(start..end, write);
            patch_of.extend(std::iter::repeat_n(NONE, count));
            return write + count;
        }
        let group = &contacts[start..end];
        let pushing = |contact: &Contact| {
            if contact.body == first {
                contact.normal
            } else {
                math::scale(contact.normal, -1.0)
            }
        };
        // The patches: each contact that holds joins the first patch its normal agrees with;
        // any other is a patch of its own.
        self.patch.clear();
        self.normals.clear();
        for (contact, &settled) in group.iter().zip(&settled[start..end]) {
            let normal = pushing(contact);
            if !settled {
                // A normal no other agrees with.
                self.normals.push([f64::NAN; 3]);
                self.patch.push(self.normals.len() as u32 - 1);
                continue;
            }
            let found = self
                .normals
                .iter()
                .position(|&other| math::dot(normal, other) >= PATCH_COS);
            let patch = found.unwrap_or_else(|| {
                self.normals.push(normal);
                self.normals.len() - 1
            });
            self.patch.push(patch as u32);
        }
        // How many contacts each patch has; the members of each patch to reduce, in the
        // group's order (patches are few: a face, a side, the odd contact of its own).
        let patches = self.normals.len();
        self.sizes.clear();
        self.sizes.resize(patches, 0);
        for &patch in &self.patch {
            self.sizes[patch as usize] += 1;
        }
        self.keep.clear();
        self.keep.resize(count, true);
        self.reduced.clear();
        self.reduced.resize(patches, false);
        for (patch, &normal) in self.normals.iter().enumerate() {
            if self.sizes[patch] <= PATCH_MOST {
                continue;
            }
            self.reduced[patch] = true;
            let of_patch = &self.patch;
            self.members.clear();
            self.members
                .extend((0..count as u32).filter(|&at| of_patch[at as usize] == patch as u32));
            let chosen = choose(group, normal, &self.members);
            for &at in &self.members {
                self.keep[at as usize] = chosen.contains(&(at as usize));
            }
        }
        if !self.reduced.contains(&true) {
            contacts.copy_within(start..end, write);
            patch_of.extend(std::iter::repeat_n(NONE, count));
            return write + count;
        }
        // Each reduced patch is named by where its first kept contact lands.
        self.first_kept.clear();
        self.first_kept.resize(self.normals.len(), NONE);
        let mut place = write;
        for (at, &keep) in self.keep.iter().enumerate() {
            if keep {
                let patch = self.patch[at] as usize;
                if self.first_kept[patch] == NONE {
                    self.first_kept[patch] = place as u32;
                }
                place += 1;
            }
        }
        // The points left out, before the kept ones move over them.
        for (at, contact) in group.iter().enumerate() {
            if !self.keep[at] {
                dropped.push(Dropped {
                    patch: self.first_kept[self.patch[at] as usize],
                    point: contact.point,
                });
            }
        }
        let mut place = write;
        for at in 0..count {
            if self.keep[at] {
                contacts[place] = contacts[start + at];
                let patch = self.patch[at] as usize;
                patch_of.push(if self.reduced[patch] {
                    self.first_kept[patch]
                } else {
                    NONE
                });
                place += 1;
            }
        }
        place
    }
}

/// The points of a patch the solver keeps (indices into `group`, at most five): the module's
/// header. `members` are the patch's, in the group's order; `normal` its normal.
fn choose(group: &[Contact], normal: Vector, members: &[u32]) -> [usize; 5] {
    let members = members.iter().map(|&at| at as usize);
    // Along the surface: the part of a difference across the normal.
    let across = |from: Vector, to: Vector| {
        let apart = math::sub(to, from);
        math::sub(apart, math::scale(normal, math::dot(apart, normal)))
    };
    let farthest_from = |from: Vector| {
        let mut best = (f64::NEG_INFINITY, usize::MAX);
        for at in members.clone() {
            let apart = across(from, group[at].point);
            let far = math::dot(apart, apart);
            if far > best.0 {
                best = (far, at);
            }
        }
        best.1
    };
    let start = members.clone().next().expect("a patch has members");
    let a = farthest_from(group[start].point);
    let b = farthest_from(group[a].point);
    let line = math::cross(normal, across(group[a].point, group[b].point));
    let (mut most, mut least) = ((f64::NEG_INFINITY, a), (f64::INFINITY, a));
    let mut deepest = (f64::INFINITY, a);
    for at in members {
        let along = math::dot(group[at].point, line);
        if along > most.0 {
            most = (along, at);
        }
        if along < least.0 {
            least = (along, at);
        }
        if group[at].distance < deepest.0 {
            deepest = (group[at].distance, at);
        }
    }
    [a, b, most.1, least.1, deepest.1]
}

/// A patch's pushes (`kept`: its kept points and their pushes) spread over all of its points
/// (`kept`'s and `dropped`'s) as a rigid contact carries them: the same net push and moment,
/// the least sum of squares, `f = F / n + μ × r` with `r` from the points' middle and
/// `G μ = M`, `G = Σ (|r|² 1 − r rᵀ)`. Points in a line (no turn about it) keep the moment a
/// billionth of `G`'s trace lets them. `visit` gets each point and its push, the kept first.
pub(crate) fn spread(
    kept: &[(Vector, Vector)],
    dropped: impl Iterator<Item = Vector> + Clone,
    mut visit: impl FnMut(Vector, Vector),
) {
    let points = || kept.iter().map(|&(point, _)| point).chain(dropped.clone());
    let count = points().count() as f64;
    let middle = math::scale(points().fold(math::ZERO, math::add), 1.0 / count);
    let mut net = math::ZERO;
    let mut moment = math::ZERO;
    for &(point, push) in kept {
        net = math::add(net, push);
        moment = math::add(moment, math::cross(math::sub(point, middle), push));
    }
    let mut spread = [[0.0; 3]; 3];
    for point in points() {
        let r = math::sub(point, middle);
        let far = math::dot(r, r);
        for (row, line) in spread.iter_mut().enumerate() {
            for (column, entry) in line.iter_mut().enumerate() {
                let along = if row == column { far } else { 0.0 };
                *entry += along - r[row] * r[column];
            }
        }
    }
    let trace = spread[0][0] + spread[1][1] + spread[2][2];
    let turn = if trace > 0.0 {
        for (axis, line) in spread.iter_mut().enumerate() {
            line[axis] += 1e-9 * trace;
        }
        math::inverse(&spread).map_or(math::ZERO, |inverse| math::times(&inverse, moment))
    } else {
        math::ZERO
    };
    let each = math::scale(net, 1.0 / count);
    for point in points() {
        let r = math::sub(point, middle);
        visit(point, math::add(each, math::cross(turn, r)));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn contact(point: Vector, distance: f64, feature: u32) -> Contact {
        Contact {
            body: 0,
            other: NONE,
            point,
            normal: [0.0, 1.0, 0.0],
            distance,
            feature,
        }
    }

    /// A 1 m face's nine corner points (half a meter apart) on the ground, tilted a hair so
    /// that one corner is deepest.
    fn face() -> Vec<Contact> {
        let mut contacts = Vec::new();
        for x in 0..3 {
            for z in 0..3 {
                let point = [f64::from(x) * 0.5, 0.0, f64::from(z) * 0.5];
                let distance = 0.001 * f64::from(x + z);
                contacts.push(contact(point, distance, (x * 3 + z) as u32));
            }
        }
        contacts
    }

    #[test]
    fn a_flat_face_keeps_its_four_corners_and_its_order() {
        let mut contacts = face();
        let (mut patch_of, mut dropped) = (Vec::new(), Vec::new());
        let end = Reducer::default().reduce(
            &mut contacts,
            &[true; 9],
            (0, 9),
            0,
            0,
            &mut patch_of,
            &mut dropped,
        );
        let kept: Vec<u32> = contacts[..end].iter().map(|c| c.feature).collect();
        // The corners (x, z) = (0,0), (0,2), (2,0), (2,2): features 0, 2, 6, 8, in order.
        assert_eq!(kept, vec![0, 2, 6, 8]);
        assert_eq!(patch_of, vec![0; 4]);
        assert_eq!(dropped.len(), 5);
        assert!(dropped.iter().all(|d| d.patch == 0));
    }

    #[test]
    fn a_group_of_two_faces_keeps_each_faces_corners_and_a_small_group_is_left_whole() {
        // The face on the ground and a side face of the same pair (normal along x).
        let mut contacts = face();
        for y in 0..3 {
            for z in 0..3 {
                let mut side = contact([0.0, f64::from(y) * 0.5, f64::from(z) * 0.5], 0.0, 100);
                side.normal = [1.0, 0.0, 0.0];
                side.feature = 100 + (y * 3 + z) as u32;
                contacts.push(side);
            }
        }
        // Three more, a group of their own, left whole.
        contacts.extend((0..3).map(|i| contact([5.0, 0.0, f64::from(i)], 0.0, 200 + i)));
        let (mut patch_of, mut dropped) = (Vec::new(), Vec::new());
        let mut reducer = Reducer::default();
        let end = reducer.reduce(
            &mut contacts,
            &[true; 21],
            (0, 18),
            0,
            0,
            &mut patch_of,
            &mut dropped,
        );
        assert_eq!(end, 8);
        let end = reducer.reduce(
            &mut contacts,
            &[true; 21],
            (18, 21),
            end,
            0,
            &mut patch_of,
            &mut dropped,
        );
        assert_eq!(end, 11);
        let kept: Vec<u32> = contacts[..end].iter().map(|c| c.feature).collect();
        assert_eq!(kept, vec![0, 2, 6, 8, 100, 102, 106, 108, 200, 201, 202]);
        assert_eq!(patch_of[..8], [0, 0, 0, 0, 4, 4, 4, 4]);
        assert_eq!(patch_of[8..], [NONE; 3]);
        assert_eq!(dropped.len(), 10);
    }

    #[test]
    fn the_spread_keeps_the_net_push_and_moment_over_every_point() {
        // A 4 m beam's bottom, pushed at its two ends only, unevenly.
        let kept = [
            ([0.0, 0.0, 0.0], [0.0, 25.0, 1.0]),
            ([4.0, 0.0, 0.0], [0.0, 15.0, 0.0]),
        ];
        let dropped = (1..8).map(|i| [f64::from(i) * 0.5, 0.0, 0.0]);
        let mut net = math::ZERO;
        let mut moment = math::ZERO;
        let mut visited = 0;
        spread(&kept, dropped, |point, push| {
            visited += 1;
            net = math::add(net, push);
            moment = math::add(moment, math::cross(point, push));
            // Every point of the beam takes a share of the upward push.
            assert!(push[1] > 0.0, "{point:?} {push:?}");
        });
        assert_eq!(visited, 9);
        let (want_net, want_moment) = kept
            .iter()
            .fold((math::ZERO, math::ZERO), |(n, m), &(p, f)| {
                (math::add(n, f), math::add(m, math::cross(p, f)))
            });
        for axis in 0..3 {
            assert!((net[axis] - want_net[axis]).abs() < 1e-9);
            assert!(
                (moment[axis] - want_moment[axis]).abs() < 1e-6,
                "{moment:?} {want_moment:?}"
            );
        }
    }
}
