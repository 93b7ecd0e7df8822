//! What can be wrong with what the caller hands the physics.

use super::BodyHandle;

/// Why a body could not be added or changed. Nothing is changed when one is returned.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum PhysicsError {
    /// A body needs at least one part: without mass it cannot move.
    #[error("a body needs at least one part, but none were given")]
    NoParts,
    /// A body needs at least one point: without points it touches nothing and falls forever.
    #[error("a body needs at least one contact point, but none were given")]
    NoPoints,
    /// A part's mass is zero, negative or not a number.
    #[error("part {part} has mass {mass} kg; every part needs a positive, finite mass")]
    BadMass { part: usize, mass: f64 },
    /// A part's middle or inertia holds NaN or an infinity.
    #[error("part {part}: its {field} is not finite")]
    PartNotFinite { part: usize, field: &'static str },
    /// A contact point holds NaN or an infinity.
    #[error("contact point {point} is not finite: {value:?}")]
    PointNotFinite { point: usize, value: [f64; 3] },
    /// The list of what lies around the points is neither empty nor one per point.
    #[error(
        "{around} octant masks were given for {points} contact points; give one per point, or none"
    )]
    AroundCount { around: usize, points: usize },
    /// A value handed to a setter (position, orientation, velocity, spin) is not finite.
    #[error("the {field} {value:?} is not finite")]
    NotFinite {
        field: &'static str,
        value: Vec<f64>,
    },
    /// An orientation of (nearly) zero length describes no turn.
    #[error("the orientation {0:?} has no length; give a quaternion [x, y, z, w] that is not 0")]
    ZeroOrientation([f64; 4]),
    /// The parts' inertia about the body's middle cannot be inverted: the parts are points on
    /// one line (or one point) with no inertia of their own, so some turn costs nothing.
    #[error("the body's inertia {0:?} is singular; give the parts an inertia of their own")]
    SingularInertia([[f64; 3]; 3]),
    /// The handle's body was removed (or fell out of the world), or it is of another
    /// `PhysicsWorld`.
    #[error("{0:?} is no body of this world (removed, fallen out, or never added)")]
    StaleHandle(BodyHandle),
    /// A saved state does not hold together (see [`PhysicsWorld::restore`]).
    ///
    /// [`PhysicsWorld::restore`]: super::PhysicsWorld::restore
    #[error("the saved physics state is inconsistent: {0}")]
    BadState(String),
    /// An impact limit below zero or not a number.
    #[error(
        "the impact limit {0} N s is below zero or not a number; give 0 or more (infinite: never)"
    )]
    BadLimit(f64),
    /// More bodies than a handle can count.
    #[error("too many bodies: at most {0} can exist at once")]
    TooManyBodies(usize),
}
