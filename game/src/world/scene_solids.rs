//! Everything solid in a running scene, joined: the edited ground and the blocks
//! ([`SceneSolids`]), and with them the resting pieces ([`WithRubble`]); each answers with the
//! nearer surface. The answer of each kind alone (the terrain's, the blocks') is
//! [`crate::solids`]'s.

use blockfall_physics::collision::{Around, Solid, Surface};

use crate::blocks::store::BlockStore;
use crate::solids::terrain_surface;
use crate::terrain::{EditStore, Field, Ground};

/// Everything solid in a scene: the edited ground and the blocks. A view that only reads: it
/// borrows both for as long as it is asked.
pub struct SceneSolids<'a> {
    field: &'a Field<EditStore<dyn Ground>>,
    blocks: &'a BlockStore,
}

impl<'a> SceneSolids<'a> {
    /// The solids of `field` (the ground with its edits) and `blocks`.
    pub fn new(field: &'a Field<EditStore<dyn Ground>>, blocks: &'a BlockStore) -> Self {
        SceneSolids { field, blocks }
    }
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
        self.many(queries, out, None, None);
    }

    fn nearest_many_clear(
        &self,
        queries: &[([f32; 3], f32)],
        out: &mut [Option<Surface>],
        clear: &mut [f32],
    ) {
        self.many(queries, out, Some(clear), None);
    }

    fn nearest_many_around(
        &self,
        queries: &[([f32; 3], f32)],
        around: &[Around],
        out: &mut [Option<Surface>],
        clear: &mut [f32],
    ) {
        self.many(queries, out, Some(clear), Some(around));
    }

    /// The ground's stamp and the blocks', side by side: each is fresh with every change.
    fn stamp(&self) -> Option<u128> {
        Some(u128::from(self.field.stamp()) << 64 | u128::from(self.blocks.stamp()))
    }
}

impl SceneSolids<'_> {
    /// The terrain's answers for all the points at once, then the blocks' one by one; with
    /// `clear`, the nearer of the two clearances (a block's distance is a true distance, and
    /// none within the reach means none nearer than the reach). With `around` (what each
    /// point's body fills around it, and how it moves), the blocks answer with the faces the
    /// points meet (`crate::solids::blocks_surface_around`), the terrain (smooth) as ever, and of the
    /// two the surface each point is about to reach ([`Surface::sooner`]).
    fn many(
        &self,
        queries: &[([f32; 3], f32)],
        out: &mut [Option<Surface>],
        mut clear: Option<&mut [f32]>,
        around: Option<&[Around]>,
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
                let motion = around.map_or([0.0; 3], |around| around[index].motion);
                let (blocks, blocks_clear) = match around {
                    Some(around) => crate::solids::blocks_surface_around(
                        self.blocks,
                        point,
                        reach,
                        &around[index],
                    ),
                    None => {
                        let blocks = crate::solids::blocks_surface(self.blocks, point, reach);
                        (blocks, blocks.map_or(reach, |s| s.distance))
                    }
                };
                if let Some(clear) = clear.as_deref_mut() {
                    clear[index] = clear[index].min(blocks_clear);
                }
                *answer = sooner(*answer, blocks, motion);
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
    sooner(terrain, blocks, [0.0; 3])
}

/// Of two surfaces, the one a point moving by `motion` this step comes nearer to by its end
/// ([`Surface::sooner`]; with no motion, the nearer), the terrain's first on a tie.
fn sooner(terrain: Option<Surface>, blocks: Option<Surface>, motion: [f32; 3]) -> Option<Surface> {
    match (terrain, blocks) {
        (Some(a), Some(b)) => Some(if b.sooner(&a, motion) { b } else { a }),
        (a, b) => a.or(b),
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use blockfall_physics::collision::Solid;
    use blockfall_physics::random::Rng;

    use super::SceneSolids;
    use crate::blocks::store::{Block, BlockStore, ALL_CUTS, CELL};
    use crate::terrain::{EditStore, Field, Generator, Ground};

    /// Asks `tries` questions from random points around `point`, each with a random reach `r`
    /// within `clear − r` of it: none may find anything. The number of questions asked.
    fn nothing_within(
        solids: &SceneSolids,
        next: &mut impl FnMut() -> f32,
        point: [f32; 3],
        clear: f32,
        tries: usize,
        asked: &str,
    ) -> usize {
        for _ in 0..tries {
            let reach = next() * clear;
            let direction = [0; 3].map(|_| next() - 0.5);
            let length = direction.iter().map(|d| d * d).sum::<f32>().sqrt();
            // Short of the bound by a millimeter: the promise is made in f32. Spread through
            // the ball's volume.
            let travel = (clear - reach - 1e-3).max(0.0) * next().cbrt();
            let moved: [f32; 3] =
                std::array::from_fn(|axis| point[axis] + direction[axis] / length * travel);
            let found = solids.nearest(moved, reach);
            assert!(
                found.is_none(),
                "{asked}: clear {clear} at {point:?}, yet {found:?} within {reach} at {moved:?}, \
                 {travel} m away"
            );
        }
        tries
    }

    /// The promise of `nearest_many_clear`, checked: from every point a question was asked
    /// about, a question from anywhere within its clearance less the reach finds nothing. Over
    /// dug and built ground and chiselled blocks, with points near and inside both.
    #[test]
    fn nothing_is_found_within_a_clearance_less_the_reach() {
        let generator = Generator::new(11);
        let [sx, _, sz] = generator.spawn_point();
        let ground = generator.surface_height(sx, sz);
        let source: Arc<dyn Ground> = Arc::new(generator);
        let mut field = Field::new(EditStore::new(source));
        field.dig([sx + 3.0, ground, sz], 2.5).expect("a dig");
        field
            .build([sx - 4.0, ground + 0.5, sz + 2.0], 1.5)
            .expect("a build");
        let mut blocks = BlockStore::new();
        let cell = |c: f32| (c / CELL).floor() as i32;
        for (index, (dx, dz, size)) in [(0.0, 5.0, 2u8), (1.0, 5.0, 1), (-3.0, -4.0, 4)]
            .into_iter()
            .enumerate()
        {
            let block = Block::new(
                cell(sx + dx),
                cell(ground + 0.3),
                cell(sz + dz),
                size,
                index as u8,
                if index == 1 { ALL_CUTS } else { 0 },
                index == 2,
            )
            .expect("a valid block");
            blocks.add(block).expect("room for the block");
        }
        let solids = SceneSolids::new(&field, &blocks);
        let mut rng = Rng::new(0x1234_5678_9ABC_DEF1);
        let mut next = move || rng.unit() as f32;
        let (mut kept, mut checked) = (0, 0);
        for body in 0..60 {
            // A body's points: a few meters across, around the ground and the blocks.
            let centre = [
                sx + (next() - 0.5) * 12.0,
                ground + (next() - 0.5) * 4.0,
                sz + (next() - 0.5) * 12.0,
            ];
            let queries: Vec<([f32; 3], f32)> = (0..40)
                .map(|_| {
                    let point = centre.map(|c| c + (next() - 0.5) * 3.0);
                    (point, 0.02 + next() * 0.3)
                })
                .collect();
            let mut out = vec![None; queries.len()];
            let mut clear = vec![0.0; queries.len()];
            solids.nearest_many_clear(&queries, &mut out, &mut clear);
            for ((&(point, reach), answer), &clear) in queries.iter().zip(&out).zip(&clear) {
                // The answers are the plain ones.
                assert_eq!(
                    *answer,
                    solids.nearest(point, reach),
                    "body {body}, {point:?}"
                );
                if clear.is_nan() || clear <= 0.0 {
                    continue;
                }
                kept += 1;
                let asked = format!("body {body}");
                checked += nothing_within(&solids, &mut next, point, clear, 20, &asked);
            }
        }
        assert!(
            kept > 500 && checked > 10_000,
            "{kept} clearances, {checked} checks"
        );

        // A body's middle, asked alone with a reach past the body's radius: the clearance may
        // reach as far as the question (the terrain reads that much ground around the point),
        // and the promise holds there too. Above the dug bowl most of all, where the ground's
        // own answer (density over gradient) says nothing is near. (A window a sample wider
        // than its points, as for a point's own questions, gives no clearance past 2 m.)
        let (mut wide, mut checked) = (0, 0);
        for middle in 0..400 {
            let centre = [
                sx + 3.0 + (next() - 0.5) * 8.0,
                ground + next() * 5.0,
                sz + (next() - 0.5) * 8.0,
            ];
            let reach = 0.5 + next() * 3.0;
            let (mut out, mut clear) = ([None], [0.0]);
            solids.nearest_many_clear(&[(centre, reach)], &mut out, &mut clear);
            let clear = clear[0];
            if clear.is_nan() || clear <= 0.0 {
                continue;
            }
            assert!(
                clear <= reach + 1.0,
                "middle {middle}: {clear} past {reach}"
            );
            if clear > 2.0 {
                wide += 1;
            }
            let asked = format!("middle {middle}");
            checked += nothing_within(&solids, &mut next, centre, clear, 50, &asked);
        }
        assert!(
            wide > 5 && checked > 5_000,
            "{wide} clearances past 2 m, {checked} checks"
        );
    }

    /// Digging, building and every change to the blocks give a stamp never seen before.
    #[test]
    fn every_change_to_the_ground_or_the_blocks_gives_a_new_stamp() {
        let generator = Generator::new(3);
        let [sx, sy, sz] = generator.spawn_point();
        let source: Arc<dyn Ground> = Arc::new(generator);
        let mut field = Field::new(EditStore::new(source));
        let mut blocks = BlockStore::new();
        let stamp = |field: &Field<EditStore<dyn Ground>>, blocks: &BlockStore| {
            SceneSolids::new(field, blocks).stamp().expect("a stamp")
        };
        let mut seen = vec![stamp(&field, &blocks)];
        assert_eq!(stamp(&field, &blocks), seen[0], "unchanged, the same stamp");
        let changed = |seen: &mut Vec<u128>, stamp: u128| {
            assert!(!seen.contains(&stamp), "{stamp:x} seen before");
            seen.push(stamp);
        };
        field.dig([sx, sy, sz], 2.0).expect("a dig");
        changed(&mut seen, stamp(&field, &blocks));
        field.build([sx, sy, sz], 1.0).expect("a build");
        changed(&mut seen, stamp(&field, &blocks));
        let block = Block::new(0, 200, 0, 1, 0, 0, false).expect("a block");
        let id = blocks.add(block).expect("room");
        changed(&mut seen, stamp(&field, &blocks));
        blocks.reshape(id, 3, false).expect("a reshape");
        changed(&mut seen, stamp(&field, &blocks));
        blocks.remove(id).expect("a block to remove");
        changed(&mut seen, stamp(&field, &blocks));
        // Another field over the same ground: its own stamp.
        let other = Field::new(EditStore::new(
            Arc::new(Generator::new(3)) as Arc<dyn Ground>
        ));
        changed(&mut seen, stamp(&other, &blocks));
    }
}
