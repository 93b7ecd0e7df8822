//! What the view aims at for the block tool, and where a block would go (docs/player.md, "The
//! block tool"): the nearest of a block, the rubble and the ground along the view within
//! [`BLOCK_REACH`].
//!
//! - **Blocks** are met by sphere tracing: each step goes as far as the nearest block surface
//!   (`solids::blocks_surface`, asked within a meter), so rounded and sloped edges are met where
//!   they are, not at their cells.
//! - **The ground** by [`super::ground_along`] (quarter-meter steps, then halvings), its normal
//!   from the density's gradient.
//! - **Rubble** by [`Pieces::aim_along`](crate::pieces::Pieces::aim_along).
//!
//! The side a new block goes against is the axis the surface's normal points along most. Against
//! a block's side the new block lies beside it; on the ground (or rubble) the new block holds
//! the cell the aim met and reaches out from it along that axis, so on flat ground it sits in
//! the ground by up to a cell, as the showcase's columns do. Across the side it is centred on
//! the aimed point, snapped to the cells.

use blockfall_physics::BodyHandle;
use ultraviolet::Vec3;

use crate::blocks::store::{Block, BlockId, CELL};
use crate::solids::blocks_surface;

use super::rules::PlaceRefusal;
use super::World;

/// How far the block tool reaches along the view, in meters.
pub const BLOCK_REACH: f32 = 16.0;
/// A sphere-tracing step asks for block surfaces within this many meters; with none that near,
/// the ray moves on by it.
const TRACE_REACH: f32 = 1.0;
/// Closer than this to a block surface is a hit.
const TRACE_HIT: f32 = 2e-3;

/// What the block tool aims at.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum AimTarget {
    /// A block standing on the grid.
    Block { id: BlockId, block: Block },
    /// A block of a resting piece: the piece and the block's lowest cell in its own grid.
    Piece { handle: BodyHandle, cell: [i32; 3] },
    /// The ground.
    Ground,
}

/// A block the tool would place, and whether it may be.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Placement {
    pub block: Block,
    /// Why it may not be placed now (drawn red), or `None` (drawn orange).
    pub refusal: Option<PlaceRefusal>,
}

impl Placement {
    pub fn fits(&self) -> bool {
        self.refusal.is_none()
    }
}

/// What the view aims at, worked out once a frame.
#[derive(Debug, Clone, PartialEq)]
pub struct Aim {
    pub target: AimTarget,
    /// Where the view meets it, in meters.
    pub point: [f32; 3],
    /// The side a new block goes against: `2 · axis + positive` (0 −x … 5 +z).
    pub side: usize,
    /// The block the right button would place here.
    pub placement: Option<Placement>,
    /// The blocks that would fall if the aimed block were broken (none for rubble or ground).
    pub would_fall: Vec<BlockId>,
}

impl World {
    /// What the block tool aims at now, as of the last frame (`None` with the terrain tool).
    pub fn aim(&self) -> Option<&Aim> {
        self.aim.as_ref()
    }

    /// Works out what the view aims at (the block tool, a player present) for the markers, the
    /// HUD and the buttons. Called by every frame and command; call it after changing the view
    /// by hand.
    pub fn update_aim(&mut self) {
        // Without a player nobody aims (a scene's world with no player).
        self.aim = if self.embodied && self.tool.kind == super::ToolKind::Blocks {
            self.trace_aim()
        } else {
            None
        };
    }

    /// What the view aims at for the block tool, whatever tool is in hand.
    pub(super) fn trace_aim(&mut self) -> Option<Aim> {
        let eye = self.eye();
        let direction = self.look_direction();
        let mut best: Option<(f32, AimTarget, [f32; 3], Vec3)> = None;
        if let Some((distance, id, normal)) = self.block_along(eye, direction, BLOCK_REACH) {
            let block = *self.blocks.get(id)?;
            let point = eye + direction * distance;
            best = Some((
                distance,
                AimTarget::Block { id, block },
                point.into(),
                normal,
            ));
        }
        let reach = best.as_ref().map_or(BLOCK_REACH, |b| b.0);
        if let Some((handle, cell, distance)) =
            self.pieces.aim_along(eye.into(), direction.into(), reach)
        {
            let point = eye + direction * distance;
            let normal = self.pieces_normal(point).unwrap_or(-direction);
            best = Some((
                distance,
                AimTarget::Piece { handle, cell },
                point.into(),
                normal,
            ));
        }
        let reach = best.as_ref().map_or(BLOCK_REACH, |b| b.0);
        if let Some(point) = super::ground_along(&self.field, eye, direction, reach) {
            let distance = (Vec3::from(point) - eye).mag();
            let probe = self.field.probe(point[0], point[1], point[2]);
            let mut normal = -Vec3::from(probe.gradient);
            if normal.mag_sq().is_nan() || normal.mag_sq() <= 1e-12 {
                normal = Vec3::unit_y();
            }
            if best.as_ref().is_none_or(|b| distance < b.0) {
                best = Some((distance, AimTarget::Ground, point, normal));
            }
        }
        let (_, target, point, normal) = best?;
        let side = dominant_side(normal);
        let placement = self
            .placement_at(&target, point, side)
            .map(|block| Placement {
                block,
                refusal: self.refuse_place(&block),
            });
        let would_fall = match target {
            AimTarget::Block { id, .. } => self.would_fall(id),
            _ => Vec::new(),
        };
        Some(Aim {
            target,
            point,
            side,
            placement,
            would_fall,
        })
    }

    /// The first block surface along the ray within `reach`: how far, which block, the normal.
    fn block_along(
        &self,
        origin: Vec3,
        direction: Vec3,
        reach: f32,
    ) -> Option<(f32, BlockId, Vec3)> {
        if self.blocks.count() == 0 {
            return None;
        }
        let mut travelled = 0.0f32;
        while travelled <= reach {
            let point = origin + direction * travelled;
            match blocks_surface(&self.blocks, point.into(), TRACE_REACH) {
                Some(surface) if surface.distance < TRACE_HIT => {
                    // Just inside along the ray, or (inside a corner) just behind the surface.
                    let inside = [
                        point + direction * 0.01,
                        point - Vec3::from(surface.normal) * 0.01,
                        point,
                    ];
                    let id = inside.iter().find_map(|p| {
                        let cell = [p.x, p.y, p.z].map(|c| (c / CELL).floor() as i32);
                        self.blocks.at(cell[0], cell[1], cell[2])
                    })?;
                    return Some((travelled, id, surface.normal.into()));
                }
                Some(surface) => travelled += surface.distance.max(TRACE_HIT),
                None => travelled += TRACE_REACH,
            }
        }
        None
    }

    /// The outward normal of the rubble at a point on it.
    fn pieces_normal(&self, point: Vec3) -> Option<Vec3> {
        use blockfall_physics::collision::Solid;
        self.pieces
            .rubble()
            .nearest(point.into(), 0.1)
            .map(|surface| Vec3::from(surface.normal))
    }

    /// The block of the tool's material and size that would go against `side` of what was
    /// met at `point`.
    fn placement_at(&self, target: &AimTarget, point: [f32; 3], side: usize) -> Option<Block> {
        let size = self.tool.size;
        let cells = i32::from(size);
        let (axis, positive) = (side / 2, side % 2 == 1);
        let mut low = [0i32; 3];
        for (a, low) in low.iter_mut().enumerate() {
            if a == axis {
                continue;
            }
            // Centred on the aimed point, snapped to the cells.
            *low = (point[a] / CELL - f32::from(size) / 2.0).round() as i32;
        }
        low[axis] = match target {
            AimTarget::Block { block, .. } => {
                if positive {
                    block.low()[axis] + i32::from(block.size)
                } else {
                    block.low()[axis] - cells
                }
            }
            AimTarget::Ground | AimTarget::Piece { .. } => {
                // Holding the met cell (ground), or the cell just outside (rubble), and
                // reaching out from it.
                let out = if matches!(target, AimTarget::Piece { .. }) {
                    if positive {
                        0.01
                    } else {
                        -0.01
                    }
                } else {
                    0.0
                };
                let cell = ((point[axis] + out) / CELL).floor() as i32;
                if positive {
                    cell
                } else {
                    cell - cells + 1
                }
            }
        };
        let material = self.tool.material as u8;
        Block::new(low[0], low[1], low[2], size, material, 0, false).ok()
    }

    /// C (or Shift+C with `slope`): cuts or restores the aimed block's edge nearest the aimed
    /// point on the aimed side, or toggles its slope. Returns whether the block changed.
    pub fn chisel_aimed(&mut self, slope: bool) -> bool {
        let Some(aim) = &self.aim else {
            return false;
        };
        let AimTarget::Block { id, block } = aim.target else {
            return false;
        };
        if slope {
            return self.reshape(id, block.cuts, !block.slope);
        }
        let edge = nearest_edge(&block, aim.point, aim.side);
        self.reshape(id, block.cuts ^ (1 << edge), block.slope)
    }
}

/// The side (`2 · axis + positive`) a normal points along most.
fn dominant_side(normal: Vec3) -> usize {
    let n = [normal.x, normal.y, normal.z];
    let axis = (0..3)
        .max_by(|&a, &b| n[a].abs().total_cmp(&n[b].abs()))
        .unwrap_or(1);
    2 * axis + usize::from(n[axis] > 0.0)
}

/// The edge (`4 · along + k`, numbered as in `blocks::shapes`) of `side` of `block` nearest
/// `point`.
pub(crate) fn nearest_edge(block: &Block, point: [f32; 3], side: usize) -> usize {
    let meters = f32::from(block.size) * CELL;
    let low = block.low().map(|c| c as f32 * CELL);
    let q: [f32; 3] = std::array::from_fn(|a| ((point[a] - low[a]) / meters).clamp(0.0, 1.0));
    let (axis, positive) = (side / 2, side % 2 == 1);
    let others: Vec<usize> = (0..3).filter(|&a| a != axis).collect();
    // The other axis whose face border the point is nearest: the edge runs along the third.
    let toward = |a: usize| q[a].min(1.0 - q[a]);
    let (cross, along) = if toward(others[0]) <= toward(others[1]) {
        (others[0], others[1])
    } else {
        (others[1], others[0])
    };
    let high = |a: usize| {
        if a == axis {
            positive
        } else {
            q[a] > 0.5
        }
    };
    let (u, v) = if axis < cross {
        (axis, cross)
    } else {
        (cross, axis)
    };
    4 * along + usize::from(high(u)) + 2 * usize::from(high(v))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::blocks::shapes::edge;

    #[test]
    fn the_nearest_edge_lies_on_the_aimed_side_next_to_the_aimed_point() {
        let block = Block::new(0, 0, 0, 2, 0, 0, false).unwrap();
        // On the top (+y), near the +x border, halfway along z.
        let index = nearest_edge(&block, [0.95, 1.0, 0.5], 3);
        let e = edge(index);
        assert_eq!(e.axis, 2, "runs along z");
        assert_eq!((e.u, e.v), (0, 1));
        assert!(e.u_high && e.v_high, "at x = 1, y = 1");
        // On the −z side near the bottom.
        let e = edge(nearest_edge(&block, [0.5, 0.05, 0.0], 4));
        assert_eq!(e.axis, 0, "runs along x");
        assert_eq!((e.u, e.v), (1, 2));
        assert!(!e.u_high && !e.v_high, "at y = 0, z = 0");
    }

    #[test]
    fn a_normal_picks_the_axis_it_points_along_most() {
        assert_eq!(dominant_side(Vec3::new(0.1, 0.9, 0.2)), 3);
        assert_eq!(dominant_side(Vec3::new(-0.8, 0.5, 0.2)), 0);
        assert_eq!(dominant_side(Vec3::new(0.0, 0.1, -0.7)), 4);
    }
}
