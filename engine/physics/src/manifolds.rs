//! Kept manifolds: a pair of bodies that barely moves against each other keeps its contacts
//! from step to step instead of asking every point the nearest-surface question again.
//!
//! Finding a pair's contacts asks each point of either body near the other the other's shape
//! (`contacts`), a few dozen questions for two cubes; a resting stack asks them all every step
//! and finds the same answers. Jolt keeps a body pair's manifold while the pair's relative pose
//! stays within a millimetre and a couple of degrees of where it was found; rapier and Box2D
//! keep manifolds by feature. Ours keeps, per pair, each contact as it was found: which point
//! it is, and the surface it met as a point and an outward normal fixed in the frame of the
//! body whose shape it is. While kept, a contact's point is placed where its body is now and
//! its distance measured again to that surface (`(point − surface) · normal`), so the contact
//! follows the bodies exactly as long as the surface is flat under it.
//!
//! ```text
//!     A ●  point of A, placed anew each step           kept while every point of either
//!       ¦  distance = (point − surface) · normal       body has moved, relative to the
//!   ════╧════ surface of B, fixed in B's frame         other, less than KEPT_REACH less
//!                                                      what it may move this step
//! ```
//!
//! A manifold is found with the points asked [`KEPT_REACH`] farther than their reach, so that
//! it holds every point that may come within reach while it is kept: a point left out was
//! farther than its reach plus `KEPT_REACH`, and is still farther than its reach as long as the
//! two bodies' points have moved, relative to each other, by less than `KEPT_REACH` less how
//! far they may move in the step ([`Manifolds::reuse`]). The contacts within the point's reach
//! now are the step's contacts, exactly as finding them again would give them but for the
//! surface's curvature under a moved point and for which face a point on an edge meets (both
//! within the move). Only pairs slow enough to be kept for a few steps are kept
//! ([`KEEP_MOVE`]); fast ones are found afresh every step as before.
//!
//! The kept manifolds are part of the world's state ([`super::PhysicsState::manifolds`]): a
//! restored world keeps what the original kept, and steps to the same bits.
//!
//! Only pairs of bodies are kept. The world's contacts depend on the world, which a dig or a
//! block changes under a body, and a body lying on the world already asks only about its
//! touching points (`clearance`).

use serde::{Deserialize, Serialize};

use super::body::{Bodies, BodyHandle};
use super::budget::{fit, release};
use super::contacts::Contact;
use super::math::{self, Matrix, Vector};
use super::tuning::{MARGIN, STEP};
use super::warm::OTHER_POINT;

/// How much farther than its reach a kept pair's points are asked, in meters (half a
/// centimetre): how far the pair may move against each other before its manifold is found
/// again.
pub(crate) const KEPT_REACH: f64 = 0.005;

/// The most a kept pair's points may move against each other in one step, in meters: a pair
/// faster than this (0.3 m/s) would find its manifold again within a step or two, and is not
/// kept.
pub(crate) const KEEP_MOVE: f64 = 0.5 * KEPT_REACH;

/// A kept contact: which point, and the surface it met in the frame of the body whose shape it
/// is (docs/physics.md, "Kept manifolds").
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct KeptContact {
    /// Which point ([`super::ContactKey::point`]): its index among its body's points, with the
    /// top bit set when it is a resting body's point against the manifold's body's shape.
    pub point: u32,
    /// The point is the other body's (its shape the manifold's body's).
    pub others_point: bool,
    /// Where the point met the surface, from the middle of the body whose shape it is, in that
    /// body's frame.
    pub surface: [f64; 3],
    /// The surface's outward normal there, in the same frame, unit length.
    pub normal: [f64; 3],
}

/// A kept manifold of a pair of bodies, as plain data for the world's state.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct KeptManifold {
    /// The body that found it (of two awake bodies, the first in the step's order; else the
    /// awake one).
    pub body: BodyHandle,
    pub other: BodyHandle,
    /// Whether the other body was awake when it was found: a pair found with the other at
    /// rest lists the other's points differently, and is found again when that changes.
    pub other_awake: bool,
    /// The body's turn seen from the other's frame when it was found (`Rₒᵀ R`), rows.
    pub turn: [[f64; 3]; 3],
    /// The body's middle from the other's middle, in the other's frame (`Rₒᵀ (p − pₒ)`).
    pub shift: [f64; 3],
    pub contacts: Vec<KeptContact>,
}

/// One kept manifold's head in a body's list.
#[derive(Debug, Clone, Copy)]
struct Head {
    other: BodyHandle,
    other_awake: bool,
    turn: Matrix,
    shift: Vector,
    start: u32,
    end: u32,
}

/// The manifolds one body found and keeps, in the order it found them (lent to its contact
/// job during a step, like its clearance).
#[derive(Debug, Clone, Default)]
pub(crate) struct Manifolds {
    heads: Vec<Head>,
    contacts: Vec<KeptContact>,
}

/// A pair of bodies as a contact job sees it: the finder (`body`) and the other, both dense.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Pair {
    pub body: usize,
    pub other: usize,
}

/// What a manifold's contacts are made against: the bodies, their turns and how fast any of
/// their points may move this step.
pub(crate) struct Poses<'a> {
    pub bodies: &'a Bodies,
    pub rotation: &'a [Matrix],
    pub bound: &'a [f64],
}

impl Poses<'_> {
    /// The pair's relative pose: the body's turn and middle seen from the other.
    fn relative(&self, pair: Pair) -> (Matrix, Vector) {
        let other_rotation = &self.rotation[pair.other];
        let turn = math::product(&math::transpose(other_rotation), &self.rotation[pair.body]);
        let shift = math::times_transposed(
            other_rotation,
            math::sub(
                self.bodies.motion.position[pair.body],
                self.bodies.motion.position[pair.other],
            ),
        );
        (turn, shift)
    }

    /// Whether the pair is slow enough to keep its manifold.
    pub fn keeps(&self, pair: Pair) -> bool {
        (self.bound[pair.body] + self.bound[pair.other]) * STEP <= KEEP_MOVE
    }
}

impl Manifolds {
    /// Where it ends now, for [`Manifolds::truncate`].
    pub fn mark(&self) -> (usize, usize) {
        (self.heads.len(), self.contacts.len())
    }

    /// Forgets what was added since `mark`.
    pub fn truncate(&mut self, (heads, contacts): (usize, usize)) {
        self.heads.truncate(heads);
        self.contacts.truncate(contacts);
    }

    /// Gives back the room its lists keep beyond what they hold, where that is much more
    /// ([`fit`]).
    pub fn trim(&mut self) {
        fit(&mut self.heads);
        fit(&mut self.contacts);
    }

    /// Frees its lists where they keep much more room than they hold ([`release`]): for
    /// manifolds no longer needed, once cleared.
    pub fn release(&mut self) {
        release(&mut self.heads);
        release(&mut self.contacts);
    }

    /// Forgets everything.
    pub fn clear(&mut self) {
        self.heads.clear();
        self.contacts.clear();
    }

    /// If `kept` (the body's manifolds of the last step) holds the pair's manifold and it
    /// still holds (module header), copies it into `self` (this step's) and adds its contacts
    /// within reach to `out`; true if it did.
    pub fn reuse(
        &mut self,
        kept: &Manifolds,
        poses: &Poses,
        pair: Pair,
        out: &mut Vec<Contact>,
    ) -> bool {
        let bodies = poses.bodies;
        let other = bodies.handle(pair.other);
        let other_awake = !bodies.sleep.sleeping[pair.other];
        let Some(head) = kept
            .heads
            .iter()
            .find(|head| head.other == other && head.other_awake == other_awake)
        else {
            return false;
        };
        let (turn, shift) = poses.relative(pair);
        // How far any point of either body may have moved against the other since: the
        // shift's change, and the turn's at the farthest a point of either can be from the
        // other's middle (`‖ΔR‖` bounds how far the turn carries a point at unit distance).
        let turned: f64 = (0..3)
            .flat_map(|row| (0..3).map(move |column| (row, column)))
            .map(|(row, column)| (turn[row][column] - head.turn[row][column]).powi(2))
            .sum::<f64>()
            .sqrt();
        let far =
            bodies.shape.radius[pair.body] + bodies.shape.radius[pair.other] + math::length(shift);
        let moved = math::length(math::sub(shift, head.shift)) + turned * far;
        let ahead = (poses.bound[pair.body] + poses.bound[pair.other]) * STEP;
        // (Not finite: not kept.)
        let holds = moved + ahead <= KEPT_REACH;
        if !holds {
            return false;
        }
        let contacts = &kept.contacts[head.start as usize..head.end as usize];
        let start = self.contacts.len() as u32;
        self.contacts.extend_from_slice(contacts);
        self.heads.push(Head {
            start,
            end: self.contacts.len() as u32,
            ..*head
        });
        place(poses, pair, contacts, out);
        true
    }

    /// Keeps the pair's contacts just found (`found`, asked [`KEPT_REACH`] farther than their
    /// reach), and puts in their place in `out` (from `from`) those within reach, made from
    /// what was kept exactly as a kept manifold's are in later steps.
    pub fn keep(&mut self, poses: &Poses, pair: Pair, out: &mut Vec<Contact>, from: usize) {
        let bodies = poses.bodies;
        let start = self.contacts.len() as u32;
        for contact in &out[from..] {
            let flipped = contact.feature & OTHER_POINT != 0;
            let others_point = flipped || contact.body as usize != pair.body;
            let shape = if others_point { pair.body } else { pair.other };
            let normal = if flipped {
                math::scale(contact.normal, -1.0)
            } else {
                contact.normal
            };
            let surface = math::add_scaled(contact.point, normal, -contact.distance);
            let rotation = &poses.rotation[shape];
            self.contacts.push(KeptContact {
                point: contact.feature,
                others_point,
                surface: math::times_transposed(
                    rotation,
                    math::sub(surface, bodies.motion.position[shape]),
                ),
                normal: math::times_transposed(rotation, normal),
            });
        }
        let (turn, shift) = poses.relative(pair);
        self.heads.push(Head {
            other: bodies.handle(pair.other),
            other_awake: !bodies.sleep.sleeping[pair.other],
            turn,
            shift,
            start,
            end: self.contacts.len() as u32,
        });
        out.truncate(from);
        place(poses, pair, &self.contacts[start as usize..], out);
    }

    /// The manifolds as plain data, found by `body`.
    pub fn saved(&self, body: BodyHandle) -> impl Iterator<Item = KeptManifold> + '_ {
        self.heads.iter().map(move |head| KeptManifold {
            body,
            other: head.other,
            other_awake: head.other_awake,
            turn: head.turn,
            shift: head.shift,
            contacts: self.contacts[head.start as usize..head.end as usize].to_vec(),
        })
    }

    /// Adds a saved manifold (checked by the restore).
    pub fn restore(&mut self, manifold: &KeptManifold) {
        let start = self.contacts.len() as u32;
        self.contacts.extend_from_slice(&manifold.contacts);
        self.heads.push(Head {
            other: manifold.other,
            other_awake: manifold.other_awake,
            turn: manifold.turn,
            shift: manifold.shift,
            start,
            end: self.contacts.len() as u32,
        });
    }
}

/// The contacts of a kept manifold as the bodies stand now: each point placed, its distance
/// to its kept surface measured, kept if within its reach (`contacts`: its speed plus how fast
/// the shape's body may move, times the step, plus the margin).
fn place(poses: &Poses, pair: Pair, kept: &[KeptContact], out: &mut Vec<Contact>) {
    let bodies = poses.bodies;
    for contact in kept {
        let (owner, shape) = if contact.others_point {
            (pair.other, pair.body)
        } else {
            (pair.body, pair.other)
        };
        let offset = bodies.offsets_of(owner)[(contact.point & !OTHER_POINT) as usize];
        let lever = math::times(&poses.rotation[owner], offset);
        let point = math::add(bodies.motion.position[owner], lever);
        let shape_rotation = &poses.rotation[shape];
        let normal = math::times(shape_rotation, contact.normal);
        let surface = math::add(
            bodies.motion.position[shape],
            math::times(shape_rotation, contact.surface),
        );
        let distance = math::dot(math::sub(point, surface), normal);
        let moving = math::add(
            bodies.motion.velocity[owner],
            math::cross(bodies.motion.angular_velocity[owner], lever),
        );
        let reach = MARGIN + (math::length(moving) + poses.bound[shape]) * STEP;
        let within = distance < reach;
        if !within {
            continue;
        }
        let flipped = contact.point & OTHER_POINT != 0;
        out.push(if flipped {
            Contact {
                body: shape as u32,
                other: owner as u32,
                point,
                normal: math::scale(normal, -1.0),
                distance,
                feature: contact.point,
            }
        } else {
            Contact {
                body: owner as u32,
                other: shape as u32,
                point,
                normal,
                distance,
                feature: contact.point,
            }
        });
    }
}

#[cfg(test)]
mod tests {
    use crate::testing::{block_box, block_box_extent, Boxes, Ground};
    use crate::workers::WorkerPool;
    use crate::{BodyHandle, PhysicsWorld};

    /// A tower of three cubes on the ground beside a plank across two of them, settling: the
    /// world and its shapes. `keep` false forgets every kept manifold before each step, so
    /// every contact is found afresh.
    fn settle(keep: bool, steps: usize) -> (PhysicsWorld, Vec<BodyHandle>, usize) {
        // (Returns as well the most pairs whose kept manifold a step used.)
        let mut physics = PhysicsWorld::new(WorkerPool::new(2).expect("threads"));
        physics.set_sleeping(false);
        let mut shapes = Boxes::default();
        let mut handles = Vec::new();
        let bodies: [([f64; 3], [usize; 3]); 5] = [
            ([0.0, 0.01, 0.0], [1, 1, 1]),
            ([0.1, 1.03, 0.05], [1, 1, 1]),
            ([-0.05, 2.05, 0.1], [1, 1, 1]),
            ([3.0, 0.01, 0.0], [1, 1, 1]),
            ([0.2, 3.1, 0.0], [4, 1, 1]),
        ];
        for (low, blocks) in bodies {
            let handle = physics.add(&block_box(low, blocks, 1.0)).expect("a body");
            shapes
                .boxes
                .insert(handle, block_box_extent(low, blocks, 1.0));
            handles.push(handle);
        }
        let ground = Ground { height: 0.0 };
        let mut most_kept = 0;
        for _ in 0..steps {
            if !keep {
                for manifolds in &mut physics.bodies.kept.manifolds {
                    manifolds.clear();
                }
            }
            physics.step(&ground, &shapes);
            most_kept = most_kept.max(physics.last_step_counts().kept);
        }
        (physics, handles, most_kept)
    }

    #[test]
    fn a_settling_tower_keeps_its_manifolds_and_moves_as_it_does_finding_them_afresh() {
        let steps = 240;
        let (kept, handles, most_kept) = settle(true, steps);
        let (fresh, _, none_kept) = settle(false, steps);
        assert_eq!(none_kept, 0, "forgotten before every step, none is used");
        // The tower's two pairs and the plank on the top cube and on the far cube, kept once
        // they slow down.
        assert!(most_kept >= 3, "{most_kept} manifolds kept");
        // The bodies end where the afresh run leaves them, within a millimetre: a kept
        // contact is placed and measured again as the bodies move.
        for &handle in &handles {
            let a = kept.body(handle).expect("a body");
            let b = fresh.body(handle).expect("a body");
            let apart = (0..3)
                .map(|axis| (a.position[axis] - b.position[axis]).powi(2))
                .sum::<f64>()
                .sqrt();
            assert!(
                apart < 1e-3,
                "{handle:?} ends {apart} m from the afresh run"
            );
            assert!(a.position[1] > 0.4, "{handle:?} sank: {:?}", a.position);
        }
        // And both stood: the top cube is still on the tower.
        let top = kept.body(handles[2]).expect("a body");
        assert!(top.position[1] > 2.4 && top.position[1] < 2.6, "{top:?}");
    }
}
