//! What is solid in a running scene: the edited ground and the blocks ([`SceneSolids`]), and with
//! them the resting pieces ([`WithRubble`]); each answers with the nearer surface.

use blockfall_engine::collision::{Solid, Surface};

use crate::blocks::store::BlockStore;
use crate::solids::terrain_surface;
use crate::terrain::{EditStore, Field, Ground};

/// Everything solid in a scene: the edited ground and the blocks.
pub struct SceneSolids<'a> {
    pub field: &'a Field<EditStore<dyn Ground>>,
    pub blocks: &'a BlockStore,
}

impl Solid for SceneSolids<'_> {
    fn nearest(&self, point: [f32; 3], reach: f32) -> Option<Surface> {
        if !point.iter().all(|c| c.is_finite()) {
            return None;
        }
        let terrain = terrain_surface(self.field, point, reach);
        let blocks = crate::solids::blocks_surface(self.blocks, point, reach);
        nearer(terrain, blocks)
    }

    fn nearest_many(&self, queries: &[([f32; 3], f32)], out: &mut [Option<Surface>]) {
        self.many(queries, out, None);
    }

    fn nearest_many_clear(
        &self,
        queries: &[([f32; 3], f32)],
        out: &mut [Option<Surface>],
        clear: &mut [f32],
    ) {
        self.many(queries, out, Some(clear));
    }

    /// The ground's stamp and the blocks', side by side: each is fresh with every change.
    fn stamp(&self) -> Option<u128> {
        Some(u128::from(self.field.stamp()) << 64 | u128::from(self.blocks.stamp()))
    }
}

impl SceneSolids<'_> {
    /// The terrain's answers for all the points at once, then the blocks' one by one; with
    /// `clear`, the nearer of the two clearances (a block's distance is a true distance, and
    /// none within the reach means none nearer than the reach).
    fn many(
        &self,
        queries: &[([f32; 3], f32)],
        out: &mut [Option<Surface>],
        mut clear: Option<&mut [f32]>,
    ) {
        crate::solids::terrain_surfaces(self.field, queries, out, clear.as_deref_mut());
        let any_blocks = self.blocks.count() > 0;
        for (index, (answer, &(point, reach))) in out.iter_mut().zip(queries).enumerate() {
            if !point.iter().all(|c| c.is_finite()) {
                *answer = None;
                if let Some(clear) = clear.as_deref_mut() {
                    clear[index] = f32::NEG_INFINITY;
                }
                continue;
            }
            if any_blocks {
                let blocks = crate::solids::blocks_surface(self.blocks, point, reach);
                if let Some(clear) = clear.as_deref_mut() {
                    clear[index] = clear[index].min(blocks.map_or(reach, |s| s.distance));
                }
                *answer = nearer(*answer, blocks);
            }
        }
    }
}

/// The ground, the blocks and the rubble: what the player and the block tool meet.
pub struct WithRubble<'a> {
    pub solids: SceneSolids<'a>,
    pub rubble: crate::pieces::Rubble<'a>,
}

impl Solid for WithRubble<'_> {
    fn nearest(&self, point: [f32; 3], reach: f32) -> Option<Surface> {
        nearer(
            self.solids.nearest(point, reach),
            self.rubble.nearest(point, reach),
        )
    }
}

/// The nearer of two surfaces (the terrain's first on a tie).
fn nearer(terrain: Option<Surface>, blocks: Option<Surface>) -> Option<Surface> {
    match (terrain, blocks) {
        (Some(a), Some(b)) => Some(if b.distance < a.distance { b } else { a }),
        (a, b) => a.or(b),
    }
}
