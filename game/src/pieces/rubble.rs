//! Rubble: the pieces lying at rest, as something solid ([`Rubble`], made by
//! [`Pieces::rubble`]).

use blockfall_physics::collision::{Solid, Surface};
use blockfall_physics::BodyHandle;

use super::{Piece, Pieces};
use crate::solids::blocks_surface;

/// The pieces lying at rest, as something solid: the player stands on it, the block tool aims
/// at it, and blocks placed on it are held by it. Moving pieces meet it through the physics
/// (which wakes it when they reach it), not through this.
#[derive(Clone, Copy)]
pub struct Rubble<'a> {
    pub(super) pieces: &'a Pieces,
}

impl Rubble<'_> {
    /// The resting pieces whose sphere comes within `reach` of `point`.
    fn near(&self, point: [f32; 3], reach: f32) -> impl Iterator<Item = (BodyHandle, &Piece)> + '_ {
        let point = point.map(f64::from);
        self.pieces
            .pieces
            .iter()
            .filter_map(move |(&handle, piece)| {
                let body = self.pieces.physics.body(handle)?;
                if !body.sleeping {
                    return None;
                }
                let apart = (0..3)
                    .map(|axis| (point[axis] - body.position[axis]).powi(2))
                    .sum::<f64>()
                    .sqrt();
                (apart <= body.radius + f64::from(reach) + 0.5).then_some((handle, piece))
            })
    }
}

impl Solid for Rubble<'_> {
    fn nearest(&self, point: [f32; 3], reach: f32) -> Option<Surface> {
        if !point.iter().all(|c| c.is_finite()) {
            return None;
        }
        let mut nearest: Option<Surface> = None;
        for (handle, piece) in self.near(point, reach) {
            let physics = &self.pieces.physics;
            let Some(local) = physics.to_local(handle, point.map(f64::from)) else {
                continue;
            };
            let Some(surface) = blocks_surface(&piece.own, local.map(|c| c as f32), reach) else {
                continue;
            };
            // The normal turned into the world: the middle's image and the tip's.
            let (Some(from), Some(to)) = (
                physics.to_world(handle, [0.0; 3]),
                physics.to_world(handle, surface.normal.map(f64::from)),
            ) else {
                continue;
            };
            let normal = std::array::from_fn(|axis| (to[axis] - from[axis]) as f32);
            if nearest.is_none_or(|n| surface.distance < n.distance) {
                nearest = Some(Surface {
                    distance: surface.distance,
                    normal,
                });
            }
        }
        nearest
    }
}

impl crate::support::Holder for Rubble<'_> {
    fn near(&self, low: [f32; 3], high: [f32; 3]) -> bool {
        let middle = std::array::from_fn(|axis| (low[axis] + high[axis]) / 2.0);
        let half = (0..3)
            .map(|axis| (high[axis] - low[axis]).powi(2))
            .sum::<f32>()
            .sqrt()
            / 2.0;
        Rubble::near(self, middle, half).next().is_some()
    }

    fn holds_at(&self, point: [f32; 3]) -> bool {
        self.nearest(point, 0.01)
            .is_some_and(|surface| surface.distance < 0.0)
    }
}
