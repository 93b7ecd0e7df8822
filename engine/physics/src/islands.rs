//! Islands: the awake bodies joined by touching contacts, which go to sleep together.
//!
//! A body that rests on another is held by it: were one put to sleep while the other still
//! moved, the sleeping one would be a fixed wall under or beside a moving one, and the moving
//! one's momentum would go into that wall. So, as in Box2D and rapier, a step joins the awake
//! bodies whose contacts touch (one union-find over the solved groups) and an island sleeps
//! only when every body in it is ready to (still for [`STILL_TIME`](super::STILL_TIME)), or
//! when one of them has been in contact for [`LONGEST_FALL`](super::LONGEST_FALL), which ends
//! endless jitter for the island as a whole. Waking is the other half, in the step
//! before its solve: a sleeping body that an awake body's contacts reach wakes, and the
//! contacts are found again with it awake (`step`), so what touches it wakes in turn: the
//! island wakes whole.
//!
//! Every order here is the dense index order, so which bodies sleep is a function of the scene.

/// Union-find over dense body indices, its buffers kept from step to step.
#[derive(Debug, Default)]
pub(super) struct Islands {
    /// Each body's parent; a root is its own. Only the awake bodies' entries are used.
    parent: Vec<u32>,
    /// Per root: whether every body joined to it is ready to sleep, and whether one of them
    /// has been touching for the longest fall ([`Islands::expire`]).
    ready: Vec<bool>,
    expired: Vec<bool>,
}

impl Islands {
    /// Every one of `count` bodies an island of its own.
    pub fn start(&mut self, count: usize) {
        self.parent.clear();
        self.parent.extend(0..count as u32);
        self.ready.clear();
        self.ready.resize(count, true);
        self.expired.clear();
        self.expired.resize(count, false);
    }

    /// The root of `body`'s island (halving the path on the way).
    pub fn root(&mut self, mut body: u32) -> u32 {
        while self.parent[body as usize] != body {
            let grand = self.parent[self.parent[body as usize] as usize];
            self.parent[body as usize] = grand;
            body = grand;
        }
        body
    }

    /// Joins the islands of `a` and `b`: the lower root becomes the root of both, so the
    /// result does not depend on the order the joins come in.
    pub fn join(&mut self, a: u32, b: u32) {
        let (a, b) = (self.root(a), self.root(b));
        if a != b {
            let (low, high) = (a.min(b), a.max(b));
            self.parent[high as usize] = low;
        }
    }

    /// Marks `body`'s island as not ready to sleep when `body` is not (call once every join
    /// is made).
    pub fn hold_awake(&mut self, body: u32, ready: bool) {
        if !ready {
            let root = self.root(body) as usize;
            self.ready[root] = false;
        }
    }

    /// Marks `body`'s island as done: `body` has touched something for the longest fall,
    /// and the whole island sleeps, however it moves (the longest fall ends endless jitter;
    /// put to sleep alone, the body would be woken at once by the island's contacts).
    pub fn expire(&mut self, body: u32) {
        let root = self.root(body) as usize;
        self.expired[root] = true;
    }

    /// Whether `body`'s island sleeps: every body in it is ready, or one has expired it.
    pub fn sleeps(&mut self, body: u32) -> bool {
        let root = self.root(body) as usize;
        self.ready[root] || self.expired[root]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_island_sleeps_only_when_every_body_joined_to_it_is_ready() {
        let mut islands = Islands::default();
        islands.start(6);
        // 0–2–4 touch, 1–3 touch, 5 alone.
        islands.join(4, 2);
        islands.join(0, 2);
        islands.join(3, 1);
        for (body, ready) in [
            (0, true),
            (1, true),
            (2, true),
            (3, false),
            (4, true),
            (5, true),
        ] {
            islands.hold_awake(body, ready);
        }
        assert!([0, 2, 4].into_iter().all(|b| islands.sleeps(b)));
        assert!([1, 3].into_iter().all(|b| !islands.sleeps(b)));
        assert!(islands.sleeps(5));
        assert_eq!(islands.root(4), 0, "the lowest index is the root");
        // One body of an island touching for the longest fall puts the whole island to sleep.
        islands.expire(3);
        assert!([1, 3].into_iter().all(|b| islands.sleeps(b)));
    }
}
