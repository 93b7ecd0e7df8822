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
        crate::solids::terrain_surfaces(self.field, queries, out);
        let any_blocks = self.blocks.count() > 0;
        for (answer, &(point, reach)) in out.iter_mut().zip(queries) {
            if !point.iter().all(|c| c.is_finite()) {
                *answer = None;
                continue;
            }
            if any_blocks {
                let blocks = crate::solids::blocks_surface(self.blocks, point, reach);
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
