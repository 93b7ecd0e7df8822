//! The one collision question: how far is the nearest surface, and which way is out? The player,
//! the block tool and the physics core ask it of whatever is solid through [`Solid`] (`Sync`, so
//! workers can ask in parallel); rigid bodies ask it of their own shape through
//! [`crate::physics::BodyShape`]. See `docs/blocks.md` for the rule the game answers it with.

/// The nearest surface to a point.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Surface {
    /// Meters from the point to the surface, below 0 inside a solid.
    pub distance: f32,
    /// Unit length, pointing out of the solid.
    pub normal: [f32; 3],
}

/// Something solid that answers the collision question.
pub trait Solid: Sync {
    /// The nearest surface to `point`, if one is within `reach` meters (closer than `reach`,
    /// inside counting as closer).
    fn nearest(&self, point: [f32; 3], reach: f32) -> Option<Surface>;

    /// The nearest surface to each of many points, each with its own reach, into `out` (as
    /// long as `queries`): the same answers as [`Solid::nearest`] one by one. The points of one
    /// body lie close together, and a solid that can read what they share once (the terrain's
    /// samples) overrides this to do so.
    fn nearest_many(&self, queries: &[([f32; 3], f32)], out: &mut [Option<Surface>]) {
        for (answer, &(point, reach)) in out.iter_mut().zip(queries) {
            *answer = self.nearest(point, reach);
        }
    }

    /// [`Solid::nearest_many`], and into `clear` (as long as `queries`) how clear of every
    /// surface each point surely is: a clearance `c` promises that a question from any point
    /// within `c − r` of this one, with any reach `r`, finds nothing. It is what lets a body
    /// lying still skip its points from step to step (`physics::clearance`). A true distance
    /// is its own clearance (the distance found, or the reach when nothing was found), and this
    /// default gives that for a solid whose [`Solid::true_distances`] says so; −∞ (nothing
    /// promised) otherwise. A clearance may stop short of the reach, but the more of the reach
    /// it covers the better: a question with a reach past a body's radius, from its middle, is
    /// how the physics asks whether all of the body is clear of a world whose distances are not
    /// true distances.
    fn nearest_many_clear(
        &self,
        queries: &[([f32; 3], f32)],
        out: &mut [Option<Surface>],
        clear: &mut [f32],
    ) {
        self.nearest_many(queries, out);
        if self.true_distances() {
            true_clearances(queries, out, clear);
        } else {
            clear.fill(f32::NEG_INFINITY);
        }
    }

    /// Whether its distances are true distances: no surface nearer than the distance it gives,
    /// and the distance changing no faster than the point moves (an exact signed distance).
    fn true_distances(&self) -> bool {
        false
    }

    /// A name for everything the solid's answers depend on, now: any two solids that give the
    /// same stamp answer every question the same. A solid that changes (the ground dug, a
    /// block added) gives a stamp no solid has given before. `None` (the default) promises
    /// nothing.
    ///
    /// The physics core keeps the clearances of [`Solid::nearest_many_clear`] from step to step
    /// while the stamp stays the same, and asks only about the points that may have come near
    /// since; without a stamp it asks about every point near the world every step.
    fn stamp(&self) -> Option<u128> {
        None
    }
}

/// The clearances of a solid whose distances are true distances: the distance found, or the
/// whole reach when nothing was found.
fn true_clearances(queries: &[([f32; 3], f32)], out: &[Option<Surface>], clear: &mut [f32]) {
    for ((clear, answer), &(_, reach)) in clear.iter_mut().zip(out).zip(queries) {
        *clear = answer.map_or(reach, |surface| surface.distance);
    }
}

/// A stamp no caller of this function has had before in this process: for solids that name
/// each state they are in ([`Solid::stamp`]) by taking a fresh one whenever they change.
pub fn fresh_stamp() -> u64 {
    use std::sync::atomic::{AtomicU64, Ordering};
    // From 1: 0 is left for the empty states a `Default` makes.
    static NEXT: AtomicU64 = AtomicU64::new(1);
    NEXT.fetch_add(1, Ordering::Relaxed)
}
