//! The one collision question (seeds, part 3): how far is the nearest surface, and which way is
//! out? The player, and later the physics core, ask it of whatever is solid through [`Solid`],
//! so workers can ask in parallel.

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
}
