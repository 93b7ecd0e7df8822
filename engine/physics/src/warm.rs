//! Warm starting: a contact that persists from one step to the next starts the solver from the
//! push it ended the last step with, instead of from nothing.
//!
//! A contact is known by [`ContactKey`]: the body whose point it is, the other side (a body or
//! the world), and which point (its index among the body's points; for a resting body's point
//! against a moving body's shape, the resting body's point with [`OTHER_POINT`] set). The
//! points are fixed in each body's frame, so the key names the same place of the same pair for
//! as long as they touch. After a step, every touching contact's accumulated normal push and
//! its friction push (as a vector in the world, on the key's body) are kept, per body
//! ([`WarmStarts`]: the bodies' lists are sorted on the workers and handed over by swapping,
//! [`WarmStarts::put`]); the next step, a contact that is touching again with the same key
//! starts with [`WARM_START`] times that normal push and the friction push projected onto its
//! new surface directions, within the friction limit, and those pushes are applied to the
//! bodies before the first pass. Sequential impulses then only correct what changed, so a stack
//! holds its weight from the first pass of every step instead of rebuilding it in eight, and
//! stops creeping.
//!
//! Only touching contacts are kept or started warm: a speculative contact's push depends on how
//! fast its point closes, which changes from step to step. The kept pushes are part of the
//! world's state ([`super::PhysicsState::contacts`]): a restored world steps to the same bits.

use serde::{Deserialize, Serialize};

use super::body::BodyHandle;
use super::budget::fit;
use super::math::Vector;

/// Set in [`ContactKey::point`] when the point is the other body's (a resting body's point
/// against the moving body's shape).
pub(crate) const OTHER_POINT: u32 = 1 << 31;

/// The share of last step's push a persisting contact starts with. Box2D starts with all of it
/// (its `dtRatio` is 1 at a fixed step); so does blockfall.
pub const WARM_START: f64 = 1.0;

/// Which contact, from step to step: the body whose point it is, the other side, and which
/// point (docs/physics.md, "Warm starting").
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct ContactKey {
    /// The body the contact's normal points out of.
    pub body: BodyHandle,
    /// The other body, or `None` for the world.
    pub other: Option<BodyHandle>,
    /// The point's index among its body's points, or among `other`'s with the top bit
    /// (`1 << 31`) set (a resting body's point against `body`'s shape).
    pub point: u32,
}

/// A kept contact: its key and the pushes it ended its last step with.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct ContactImpulse {
    pub key: ContactKey,
    /// Newton seconds along the normal (never below zero).
    pub normal: f64,
    /// Newton seconds along the surface, on `key.body`, in the world.
    pub friction: [f64; 3],
}

/// The pushes of last step's touching contacts, kept per body: by the slot of the key's body,
/// each list sorted by the other side and the point. A contact is found in its body's list by
/// stepping on from where that body's last contact was (a group's contacts come in point
/// order), with a binary search only past a few steps; the solver hands in the awake bodies'
/// new lists after the solve (the lists are swapped, not copied), so keeping them costs no
/// hashing and no copying on the serial path of a step.
#[derive(Debug, Default)]
pub(crate) struct WarmStarts {
    by_slot: Vec<Vec<ContactImpulse>>,
}

/// The order of a body's list: the other side (the world first, then by handle), then the
/// point. As one number, so a search compares once instead of field by field: the same order
/// as comparing `(key.other, key.point)`.
#[inline]
fn order(key: &ContactKey) -> u128 {
    let other = key.other.map_or(0, |handle| {
        1u128 << 96 | u128::from(handle.index()) << 64 | u128::from(handle.generation()) << 32
    });
    other | u128::from(key.point)
}

impl WarmStarts {
    /// Last step's pushes of the contact `key` (normal, friction on `key.body`), by a binary
    /// search: what [`WarmStarts::get_from`] must agree with.
    #[cfg(test)]
    pub fn get(&self, key: &ContactKey) -> Option<(f64, Vector)> {
        let list = self.by_slot.get(key.body.index() as usize)?;
        let at = list
            .binary_search_by(|push| order(&push.key).cmp(&order(key)))
            .ok()?;
        let push = &list[at];
        (push.key.body == key.body).then_some((push.normal, push.friction))
    }

    /// Last step's pushes of the contact `key` (normal, friction on `key.body`), for keys asked
    /// in order: `from` is where in `key.body`'s list the last key of that body was found, or
    /// would have been (0 to start), and becomes this key's. A group's contacts come in point
    /// order, so the next key is nearly always at or just past it: a few steps forward instead
    /// of a binary search over the list. The same answer whatever `from` holds.
    #[inline]
    pub fn get_from(&self, key: &ContactKey, from: &mut usize) -> Option<(f64, Vector)> {
        /// How far to step forward before searching the rest.
        const STEPS: usize = 4;
        let list = self.by_slot.get(key.body.index() as usize)?;
        let target = order(key);
        let start = if list
            .get(*from)
            .is_some_and(|push| order(&push.key) <= target)
        {
            *from
        } else {
            0
        };
        let mut at = start;
        let end = list.len().min(start + STEPS);
        while at < end && order(&list[at].key) < target {
            at += 1;
        }
        if at == end && at < list.len() {
            at += list[at..].partition_point(|push| order(&push.key) < target);
        }
        *from = at;
        let push = list.get(at).filter(|push| order(&push.key) == target)?;
        (push.key.body == key.body).then_some((push.normal, push.friction))
    }

    /// Keeps `list` (sorted, every key's body `body`) as `body`'s pushes; `list` gets the old
    /// list's buffer, emptied.
    pub fn put(&mut self, body: BodyHandle, list: &mut Vec<ContactImpulse>) {
        let slot = body.index() as usize;
        if self.by_slot.len() <= slot {
            self.by_slot.resize_with(slot + 1, Vec::new);
        }
        std::mem::swap(&mut self.by_slot[slot], list);
        list.clear();
    }

    /// Forgets the pushes of `body`'s own points (it rests, or is gone).
    pub fn clear(&mut self, body: BodyHandle) {
        if let Some(list) = self.by_slot.get_mut(body.index() as usize) {
            list.clear();
        }
    }

    /// Gives back the room each body's list keeps beyond what it holds, where that is much
    /// more ([`fit`]).
    pub fn trim(&mut self) {
        self.by_slot.iter_mut().for_each(fit);
    }

    /// Forgets everything.
    pub fn clear_all(&mut self) {
        self.by_slot.iter_mut().for_each(Vec::clear);
    }

    /// Forgets every contact of `body`, its own and those against it (it was moved by hand or
    /// removed).
    pub fn forget(&mut self, body: BodyHandle) {
        self.clear(body);
        for list in &mut self.by_slot {
            list.retain(|push| push.key.other != Some(body));
        }
    }

    /// The kept pushes, in key order (so the same state gives the same bytes).
    pub fn pushes(&self) -> Vec<ContactImpulse> {
        let mut pushes: Vec<ContactImpulse> = self.by_slot.iter().flatten().copied().collect();
        pushes.sort_unstable_by_key(|push| push.key);
        pushes
    }

    /// What [`WarmStarts::pushes`] gave, kept again.
    pub fn restore(&mut self, pushes: &[ContactImpulse]) {
        self.clear_all();
        for push in pushes {
            let slot = push.key.body.index() as usize;
            if self.by_slot.len() <= slot {
                self.by_slot.resize_with(slot + 1, Vec::new);
            }
            self.by_slot[slot].push(*push);
        }
        for list in &mut self.by_slot {
            list.sort_unstable_by_key(|push| order(&push.key));
            list.dedup_by_key(|push| order(&push.key));
        }
    }
}

/// Sorts a body's new list into the order [`WarmStarts::get`] searches.
pub(crate) fn sort_list(list: &mut [ContactImpulse]) {
    list.sort_unstable_by_key(|push| order(&push.key));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_lookup_from_where_the_last_ended_finds_what_a_search_finds() {
        let body = BodyHandle::new(2, 1);
        let mut warm = WarmStarts::default();
        let mut list: Vec<ContactImpulse> = (0..40u32)
            .map(|i| ContactImpulse {
                key: ContactKey {
                    body,
                    other: (i % 3 != 0).then(|| BodyHandle::new(i % 5, 0)),
                    point: (i * 7 % 23) | if i % 4 == 0 { OTHER_POINT } else { 0 },
                },
                normal: f64::from(i),
                friction: [f64::from(i), 0.0, 1.0],
            })
            .collect();
        sort_list(&mut list);
        list.dedup_by_key(|push| order(&push.key));
        warm.put(body, &mut list);
        // Keys in order, out of order, present and missing, from every starting place.
        let mut asked: Vec<ContactKey> = Vec::new();
        for other in [
            None,
            Some(BodyHandle::new(1, 0)),
            Some(BodyHandle::new(4, 0)),
        ] {
            for point in [0, 3, 7, 14, 21, 22, 40, OTHER_POINT, OTHER_POINT | 7] {
                asked.push(ContactKey { body, other, point });
            }
        }
        asked.sort();
        let scrambled: Vec<ContactKey> = asked.iter().rev().step_by(2).copied().collect();
        for keys in [&asked, &scrambled] {
            for start in [0, 5, 17, 1000] {
                let mut from = start;
                for key in keys.iter() {
                    assert_eq!(warm.get_from(key, &mut from), warm.get(key), "{key:?}");
                }
            }
        }
        let found = asked.iter().filter(|key| warm.get(key).is_some()).count();
        assert!(
            found > 5 && found < asked.len(),
            "{found} of {}",
            asked.len()
        );
        // Another body's keys are never found in this body's list.
        let stranger = ContactKey {
            body: BodyHandle::new(2, 2),
            ..asked[0]
        };
        assert_eq!(warm.get_from(&stranger, &mut 0), None);
    }

    #[test]
    fn the_one_number_order_is_the_order_of_other_side_then_point() {
        let handles = [
            BodyHandle::new(0, 0),
            BodyHandle::new(0, 7),
            BodyHandle::new(3, 1),
            BodyHandle::new(u32::MAX, u32::MAX),
        ];
        let others: Vec<Option<BodyHandle>> = std::iter::once(None)
            .chain(handles.iter().copied().map(Some))
            .collect();
        let mut keys = Vec::new();
        for &other in &others {
            for point in [0, 1, 40, OTHER_POINT, OTHER_POINT | 5, u32::MAX] {
                keys.push(ContactKey {
                    body: BodyHandle::new(1, 0),
                    other,
                    point,
                });
            }
        }
        for a in &keys {
            for b in &keys {
                assert_eq!(
                    order(a).cmp(&order(b)),
                    (a.other, a.point).cmp(&(b.other, b.point)),
                    "{a:?} {b:?}"
                );
            }
        }
    }
}
