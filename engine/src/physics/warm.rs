//! Warm starting: a contact that persists from one step to the next starts the solver from the
//! push it ended the last step with, instead of from nothing.
//!
//! A contact is known by [`ContactKey`]: the body whose point it is, the other side (a body or
//! the world), and which point (its index among the body's points; for a resting body's point
//! against a moving body's shape, the resting body's point with [`OTHER_POINT`] set). The
//! points are fixed in each body's frame, so the key names the same place of the same pair for
//! as long as they touch. After a step, every touching contact's accumulated normal push and
//! its friction push (as a vector in the world, on the key's body) are kept
//! ([`WarmStarts::keep`]); the next step, a contact that is touching again with the same key
//! starts with [`WARM_START`] times that normal push and the friction push projected onto its
//! new surface directions, within the friction limit, and those pushes are applied to the
//! bodies before the first pass. Sequential impulses then only correct what changed, so a stack
//! holds its weight from the first pass of every step instead of rebuilding it in eight, and
//! stops creeping.
//!
//! Only touching contacts are kept or started warm: a speculative contact's push depends on how
//! fast its point closes, which changes from step to step. The kept pushes are part of the
//! world's state ([`super::PhysicsState::contacts`]): a restored world steps to the same bits.

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

use serde::{Deserialize, Serialize};

use super::body::BodyHandle;
use super::math::Vector;

/// Set in [`ContactKey::point`] when the point is the other body's (a resting body's point
/// against the moving body's shape).
pub(crate) const OTHER_POINT: u32 = 1 << 31;

/// The share of last step's push a persisting contact starts with. Box2D starts with all of it
/// (its `dtRatio` is 1 at a fixed step); so does blockfall.
pub const WARM_START: f64 = 1.0;

/// Which contact: see the [module documentation](self).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct ContactKey {
    /// The body the contact's normal points out of.
    pub body: BodyHandle,
    /// The other body, or `None` for the world.
    pub other: Option<BodyHandle>,
    /// The point's index among its body's points, [`OTHER_POINT`] set when it is `other`'s.
    pub point: u32,
}

/// A kept contact: its key and the pushes it ended its last step with.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct ContactPush {
    pub key: ContactKey,
    /// Newton seconds along the normal (never below zero).
    pub normal: f64,
    /// Newton seconds along the surface, on `key.body`, in the world.
    pub friction: [f64; 3],
}

/// A fast hasher for [`ContactKey`]s (a few whole numbers; no untrusted keys to guard
/// against): each word rotated in and multiplied, as rustc's FxHasher does. std's SipHash made
/// keeping and finding every touching contact of a step cost a tenth of the step.
#[derive(Debug, Default, Clone, Copy)]
pub(crate) struct KeyHasher(u64);

impl KeyHasher {
    #[inline]
    fn add(&mut self, word: u64) {
        self.0 = (self.0.rotate_left(5) ^ word).wrapping_mul(0x51_7c_c1_b7_27_22_0a_95);
    }
}

impl Hasher for KeyHasher {
    #[inline]
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        for &byte in bytes {
            self.add(u64::from(byte));
        }
    }

    #[inline]
    fn write_u8(&mut self, value: u8) {
        self.add(u64::from(value));
    }

    #[inline]
    fn write_u32(&mut self, value: u32) {
        self.add(u64::from(value));
    }

    #[inline]
    fn write_u64(&mut self, value: u64) {
        self.add(value);
    }

    #[inline]
    fn write_usize(&mut self, value: usize) {
        self.add(value as u64);
    }

    #[inline]
    fn write_isize(&mut self, value: isize) {
        self.add(value as u64);
    }
}

/// The pushes of last step's touching contacts, by key.
#[derive(Debug, Default)]
pub(crate) struct WarmStarts {
    last: HashMap<ContactKey, (f64, Vector), BuildHasherDefault<KeyHasher>>,
}

impl WarmStarts {
    /// Last step's pushes of the contact `key` (normal, friction on `key.body`).
    #[inline]
    pub fn get(&self, key: &ContactKey) -> Option<(f64, Vector)> {
        self.last.get(key).copied()
    }

    /// Replaces what is kept by this step's pushes.
    pub fn keep(&mut self, pushes: impl Iterator<Item = (ContactKey, f64, Vector)>) {
        self.last.clear();
        for (key, normal, friction) in pushes {
            self.last.insert(key, (normal, friction));
        }
    }

    /// Forgets every contact of `body` (it was moved by hand).
    pub fn forget(&mut self, body: BodyHandle) {
        self.last
            .retain(|key, _| key.body != body && key.other != Some(body));
    }

    /// The kept pushes, in key order (so the same state gives the same bytes).
    pub fn pushes(&self) -> Vec<ContactPush> {
        let mut pushes: Vec<ContactPush> = self
            .last
            .iter()
            .map(|(&key, &(normal, friction))| ContactPush {
                key,
                normal,
                friction,
            })
            .collect();
        pushes.sort_unstable_by_key(|push| push.key);
        pushes
    }

    /// What [`WarmStarts::pushes`] gave, kept again.
    pub fn restore(&mut self, pushes: &[ContactPush]) {
        self.keep(
            pushes
                .iter()
                .map(|push| (push.key, push.normal, push.friction)),
        );
    }
}
