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
}
